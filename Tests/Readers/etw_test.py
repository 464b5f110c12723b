#!/usr/bin/env python3
"""Tests of the ETW (.etl) reader against the ETW oracle.

Usage: etw_test.py TRACESTORE SHARED_DIR WORK CASE [ARGS]

  records SAMPLE     every HardFault and image record of SAMPLE (a file of
                     shared/data/etw, .zip unpacked here) equals the oracle's
                     line for line: ts (the raw ts converted as docs/reader-etw.md says,
                     from the header fields read here with struct), address,
                     thread, base, size, pid, name; image unloads equal its
                     IMG2 lines as ftrace_event args; every event is counted.
  truncated SAMPLE   SAMPLE cut inside a buffer: exit 1, the byte offset of
                     that buffer, and the events of the buffers before it kept
                     (as many as the oracle frames in those buffers).
  damaged SAMPLE     an event header of an uncompressed buffer (or, for a
                     compressed sample, a buffer's compressed bytes) damaged:
                     exit 1, the offset, every event before it kept (a plain
                     buffer: the events of the buffers before it; a
                     compressed one: the time-ordered replay up to the last
                     event of its CPU's buffers before it).
  zero_tail          the uncompressed sample with a zero-filled tail (a
                     preallocated log): imported whole, exit 0, the oracle's
                     event count.
  typegroup1 [32]    a log generated here (the sample's header buffer and a
                     buffer of TypeGroup1 faults, images and threads, built
                     with struct from Microsoft's PageFault_TypeGroup1
                     layout): rows and counts per kind vs the oracle's PF lines.
  late_start         a log generated here whose thread start and image load
                     (CPU 1's buffer) come after the hard faults they explain
                     (CPU 0's buffer) in the file, but before them in time:
                     every fault's pid and module equal the time-ordered
                     replay's (all attributed; a file-order replay attributes
                     none), and every store is in time order.
  records SAMPLE plot  also: tracestore plot draws it (PNG and SVG), and
                     --summary counts the oracle's hard faults, and those
                     outside every image as attribute() finds them.

The oracle runs under /usr/bin/python3 (Debian's python3-construct).
"""
import csv, io, os, shutil, struct, subprocess, sys, zipfile

ts_bin, shared, work, case = sys.argv[1:5]
args = sys.argv[5:]
tools = os.path.join(shared, 'tools', 'etw-oracle')
data = os.path.join(shared, 'data', 'etw')
here = os.path.dirname(os.path.abspath(__file__))
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def sample(name):
    path = os.path.join(data, name)
    if name.endswith('.zip'):
        with zipfile.ZipFile(path) as z:
            inner = next(n for n in z.namelist() if n.lower().endswith('.etl'))
            out = os.path.join(work, os.path.basename(inner))
            open(out, 'wb').write(z.read(inner))
            return out
    return path


def run_oracle(path, out):
    subprocess.run(['/usr/bin/python3', os.path.join(here, 'etw_oracle.py'), tools,
                    path, out], check=True)
    r = {}
    for name in ('oracle', 'images', 'threads', 'sequence', 'processes'):
        r[name] = open(os.path.join(out, name + '.txt')).read().splitlines()
    r['framed'] = [tuple(int(x) for x in l.split()) for l in open(os.path.join(out, 'events.txt'))]
    r['index'] = {}
    for line in open(os.path.join(out, 'index.txt')):
        name, i = line.split()
        r['index'].setdefault(name, []).append(int(i))
    for f in ('counts', 'clock'):
        for line in open(os.path.join(out, f + '.txt')):
            k, v = line.split()
            r[k] = int(v)
    return r


def to_ns(o, raw):
    if o['flags'] == 2:
        f, sync, base = 10 ** 7, 116444736000000000, 0
    else:
        f, sync, base = o['freq'], o['sync'], (o['start'] - 116444736000000000) * 100
    d = raw - sync
    sign = -1 if d < 0 else 1
    q, r = divmod(abs(d), f)
    return base + sign * (q * 10 ** 9 + r * 10 ** 9 // f)


def imp(path, session, expect=0):
    p = subprocess.run([ts_bin, 'import', '-o', session, path], capture_output=True, text=True)
    sys.stdout.write(p.stdout + p.stderr)
    if p.returncode != expect:
        fail('import exit %d, expected %d' % (p.returncode, expect))
    return p.stderr


def sql(session, query):
    p = subprocess.run([ts_bin, 'sql', '--csv', session, query], capture_output=True, text=True)
    if p.returncode != 0:
        fail('sql: ' + p.stderr)
    rows = list(csv.reader(io.StringIO(p.stdout)))
    return rows[1:]


def ascii_only(s):
    return ''.join(c if ord(c) < 128 else '?' for c in s)


def same(got, want, what):
    if got != want:
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail('%s: row %d: got %s, oracle %s' % (what, i, g, w))
        fail('%s: %d rows, oracle %d' % (what, len(got), len(want)))
    print('ok: %d %s rows equal the oracle\'s' % (len(got), what))


def in_time_order(o, name):
    """The lines of o[name] as a replay of the log in time order meets them:
    by raw timestamp; equal timestamps by the rank of the event's CPU (CPUs
    numbered by their first buffer in the file), then in file order.  Each
    CPU's events are in time order in the file: this is the merge of the
    CPUs' streams."""
    idx, ev = o['index'].get(name, []), o['framed']
    if len(idx) != len(o[name]):
        fail('the oracle indexed %d of %d %s lines' % (len(idx), len(o[name]), name))
    order = sorted(range(len(idx)), key=lambda i: (ev[idx[i]][0], ev[idx[i]][1], idx[i]))
    return [o[name][i] for i in order]


def attribute(o, order=in_time_order):
    """Each hard fault's pid and image, in time order (order=in_time_order;
    or lambda o, n: o[n], file order): the thread's process from the last
    thread event, the latest image loaded (and not unloaded) there that
    holds the address; kernel addresses in the kernel's images."""
    proc, live, out = {}, [], []
    kernel = lambda a: a >= 0xFFFF800000000000
    for line in order(o, 'sequence'):
        f = line.split(' ', 4)
        if f[0] == 'T':
            proc[int(f[2])] = int(f[1])
        elif f[0] == 'I':
            base, size = int(f[2], 16), int(f[3], 16)
            owner = -1 if kernel(base) else int(f[1])
            if size and not any(x[:3] == (owner, base, size) for x in live):
                live.append((owner, base, size, f[4]))
        elif f[0] == 'U':
            base = int(f[2], 16)
            owner = -1 if kernel(base) else int(f[1])
            live = [x for x in live if (x[0], x[1]) != (owner, base)]
        else:
            va = int(f[2], 16)
            owner = -1 if kernel(va) else proc.get(int(f[1]))
            hit = [x for x in live if x[0] == owner and x[1] <= va < x[1] + x[2]]
            pid = proc.get(int(f[1]))
            out.append(['' if pid is None else str(pid)] +
                       ([hit[-1][3], str(va - hit[-1][1])] if hit else ['', '']))
    return out


def check_records(path, o, s):
    # HardFault: ts, va, ttid (and the oracle's own order).
    want = []
    for line in in_time_order(o, 'oracle'):
        if line.startswith('HF '):
            f = dict(kv.split('=') for kv in line.split()[1:])
            want.append([str(to_ns(o, int(f['ts']))), f['va'], f['ttid']])
    got = sql(s, "SELECT ts, printf('%x', address), tid FROM page_fault "
                 "WHERE name = 'HardFault' ORDER BY id")
    same(got, want, 'HardFault')
    got = [[r[0], ascii_only(r[1]), r[2]] for r in
           sql(s, "SELECT pid, module, module_offset FROM page_fault WHERE name = 'HardFault' "
                  "ORDER BY id")]
    same(got, attribute(o), 'HardFault pid, module and module_offset (time-ordered replay)')

    # The images the oracle prints are the system-header ones of images.txt.
    mine = []
    for line in o['oracle']:
        if line.startswith('IMG'):
            f = line.split(' ', 7)
            kv = dict(x.split('=', 1) for x in f[2:7])
            mine.append('%s %s %s %s %s %s' % (f[0], kv['ts'], kv['pid'], kv['base'], kv['size'],
                                               line.split(' name=', 1)[1]))
    sysimg = [l for l in o['images'] if l in set(mine)]
    if len([l for l in mine]) != len(o['images']) - o['perfinfo_images']:
        fail('the extended oracle disagrees with etw_pagefaults.py on images')

    want, unload = [], []
    for line in in_time_order(o, 'images'):
        kind, raw, pid, base, size, name = line.split(' ', 5)
        row = [str(to_ns(o, int(raw))), pid, base, size, name]
        if kind == 'IMG2':
            unload.append([row[0], 'pid=%s base=0x%s size=0x%s name=%s' % (pid, base, size, name)])
        else:
            want.append(row)
    got = [[r[0], r[1], r[2], r[3], ascii_only(r[4])] for r in
           sql(s, "SELECT ts, pid, printf('%x', start), printf('%x', \"end\" - start), "
                  "path FROM module ORDER BY id")]
    same(got, want, 'image (module)')
    got = [[r[0], ascii_only(r[1])] for r in
           sql(s, "SELECT ts, args FROM ftrace_event WHERE name = 'Image/Unload' ORDER BY id")]
    same(got, unload, 'image unload')

    # Every event counted: its own row, or a process row of a start.
    events = int(sql(s, 'SELECT events FROM source')[0][0])
    if events != o['events']:
        fail('source.events %d, the oracle frames %d events' % (events, o['events']))
    n = sum(int(sql(s, 'SELECT count(*) FROM %s' % t)[0][0])
            for t in ('page_fault', 'module', 'ftrace_event'))
    if n + o['procstart'] != o['events']:
        fail('%d rows + %d process starts, %d events' % (n, o['procstart'], o['events']))
    print('ok: %d events, each a row (%d process starts in process)' % (events, o['procstart']))

    # Processes: the rows of Process Start/DCStart events (filename not
    # NULL: the rows of pids first seen elsewhere have none) vs etl-parser's
    # own Process MOF.
    got = ['%s\t%s\t%s' % (r[0], ascii_only(r[1]), ascii_only(r[2])) for r in
           sql(s, 'SELECT pid, name, filename FROM process WHERE filename IS NOT NULL ORDER BY id')]
    same(got, in_time_order(o, 'processes'), 'process (name, command line)')
    # A process the rundown names (DCStart) was running when the log began:
    # its start_ts is the log's start (the ts of its header, the first
    # event), so no plot draws it starting; a Process/Start's is its own.
    first = int(sql(s, 'SELECT min(ts) FROM (SELECT ts FROM page_fault UNION ALL '
                       'SELECT ts FROM ftrace_event)')[0][0])
    early = int(sql(s, 'SELECT count(*) FROM process WHERE filename IS NOT NULL '
                       'AND start_ts <= %d' % first)[0][0])
    if early != o['procstart_rundown']:
        fail('%d processes start with the first event, the rundown names %d'
             % (early, o['procstart_rundown']))
    print('ok: the %d processes of the rundown start with the log, %d start in it'
          % (early, o['procstart'] - early))

    # Threads: every (tid, pid) of a thread event has a thread row.
    have = {(r[0], r[1]) for r in sql(s, 'SELECT tid, pid FROM thread')}
    need = {(l.split()[2], l.split()[1]) for l in o['threads']}
    if need - have:
        fail('no thread row for %s' % sorted(need - have)[:5])
    print('ok: %d threads of thread events have rows' % len(need))


def plot(o, s):
    """tracestore plot draws the session; --summary's total line counts the
    oracle's hard faults, none soft, and as many without a module offset as
    attribute() finds outside every image."""
    hf = sum(1 for l in o['oracle'] if l.startswith('HF '))
    outside = sum(1 for m in attribute(o) if m[1] == '')
    for ext in ('png', 'svg'):
        out = os.path.join(work, 'faults.' + ext)
        p = subprocess.run([ts_bin, 'plot', '--summary', '-o', out, s],
                           capture_output=True, text=True)
        if p.returncode != 0 or not os.path.exists(out) or not os.path.getsize(out):
            fail('plot %s: exit %d: %s' % (ext, p.returncode, p.stderr))
        total = [l.split('\t') for l in p.stdout.splitlines() if l.endswith('\ttotal')]
        if not total:
            fail('no total line in --summary')
        hc, hd, sc, sd, uncl, nooff = (int(x) for x in total[0][:6])
        if (hc + hd, sc + sd, uncl, nooff) != (hf, 0, 0, outside):
            fail('summary %s; the oracle: %d hard, 0 soft, %d outside images'
                 % (total[0], hf, outside))
    head = open(os.path.join(work, 'faults.png'), 'rb').read(8)
    if head != b'\x89PNG\r\n\x1a\n' or b'<svg' not in open(os.path.join(work, 'faults.svg'), 'rb').read(4096):
        fail('not a PNG and an SVG')
    print('ok: PNG and SVG drawn; --summary: %d hard faults, %d outside images' % (hf, outside))


def buffers(path):
    d = open(path, 'rb').read()
    off, out = 0, []
    while off + 72 <= len(d):
        bs, so = struct.unpack_from('<II', d, off)
        flag = struct.unpack_from('<H', d, off + 52)[0]
        out.append((off, bs, so, flag))
        off += bs
    return d, out


def expect_error(path, s, needle):
    err = imp(path, s, expect=1)
    if needle not in err:
        fail('the message lacks "%s"' % needle)
    if os.path.basename(path) not in err:
        fail('the message lacks the file name')
    print('ok: exit 1, "%s"' % needle)


if case == 'records':
    path = sample(args[0])
    o = run_oracle(path, os.path.join(work, 'o'))
    imp(path, os.path.join(work, 's'))
    check_records(path, o, os.path.join(work, 's'))
    if 'plot' in args:
        plot(o, os.path.join(work, 's'))

elif case in ('truncated', 'damaged'):
    path = sample(args[0])
    d, bufs = buffers(path)
    k = max(2, len(bufs) // 8)
    off, bs, so, flag = bufs[k]
    head = os.path.join(work, 'head.etl')
    open(head, 'wb').write(d[:off])
    o = run_oracle(head, os.path.join(work, 'o'))
    kept = o['events']
    hf = sum(1 for l in o['oracle'] if l.startswith('HF '))
    bad = os.path.join(work, case + '.etl')
    if case == 'truncated':
        open(bad, 'wb').write(d[:off + bs // 2])
        needle = 'byte offset %d: truncated buffer' % off
    elif flag & 0x40:
        b = bytearray(d)
        b[off + 72 + 100:off + 72 + 400] = b'\xff' * 300    # matches before the start
        open(bad, 'wb').write(bytes(b))
        needle = 'byte offset %d: compressed buffer' % off
        # A compressed buffer is decompressed when the time-ordered replay
        # needs it: after the last event of its CPU's buffers before it
        # (docs/reader-etw.md).  What is kept is the replay up to there.
        full = run_oracle(path, os.path.join(work, 'full'))
        ev = full['framed']
        order = sorted(range(len(ev)), key=lambda i: (ev[i][0], ev[i][1], i))
        cpu = ev[next(i for i in range(len(ev)) if ev[i][2] == k)][1]
        before = [n for n, i in enumerate(order) if ev[i][1] == cpu and ev[i][2] < k]
        kept = before[-1] + 1 if before else 0
        taken = {order[n] for n in range(kept)}
        hf = sum(1 for line, i in zip(full['oracle'], full['index']['oracle'])
                 if line.startswith('HF ') and i in taken)
    else:
        b = bytearray(d)
        b[off + 72 + 3] = 0x00            # the first event's marker flags
        open(bad, 'wb').write(bytes(b))
        needle = 'byte offset %d: not an event header' % (off + 72)
    s = os.path.join(work, 's')
    expect_error(bad, s, needle)
    events = int(sql(s, 'SELECT events FROM source')[0][0])
    if events != kept:
        fail('kept %d events, the oracle\'s replay has %d before buffer %d' % (events, kept, k))
    got = int(sql(s, 'SELECT count(*) FROM page_fault')[0][0])
    if got != hf:
        fail('kept %d faults, the oracle has %d before the damage' % (got, hf))
    print('ok: the %d events (%d hard faults) before buffer %d kept' % (events, hf, k))

elif case == 'zero_tail':
    path = sample('ShutdownPerfDiagLogger.etl')
    padded = os.path.join(work, 'padded.etl')
    open(padded, 'wb').write(open(path, 'rb').read() + b'\0' * (3 * 65536 + 100))
    o = run_oracle(path, os.path.join(work, 'o'))
    s = os.path.join(work, 's')
    imp(padded, s)
    events = int(sql(s, 'SELECT events FROM source')[0][0])
    if events != o['events']:
        fail('%d events, the oracle frames %d' % (events, o['events']))
    bad = os.path.join(work, 'bad.etl')
    open(bad, 'wb').write(open(path, 'rb').read() + b'\0' * 1000 + b'\1')
    expect_error(bad, os.path.join(work, 's2'), 'byte offset %d: not a buffer header' % os.path.getsize(path))
    print('ok: a zero tail ends the log; a tail with a byte set is an error')

elif case == 'typegroup1':
    # A header buffer from the uncompressed sample, then one buffer of events
    # built here: a thread and an image of process 1234, and 6 kinds x 50
    # faults.  With "32", the events have 32-bit headers and pointers: the
    # oracle's lines assume 64-bit payloads, so the expected rows are then
    # the generator's own values (its framing still counts the events).
    bits = int(args[0]) if args else 64
    ptr = 'Q' if bits == 64 else 'I'
    base = 0x140000000 if bits == 64 else 0x10000000
    d, bufs = buffers(os.path.join(data, 'ShutdownPerfDiagLogger.etl'))
    first = d[:bufs[0][1]]
    sync = struct.unpack_from('<q', d, 72 + 16)[0]
    events = []

    def sysev(group, typ, ver, t, payload, tid=77, pid=1234):
        size = 32 + len(payload)
        e = struct.pack('<HBBHBBIIqII', ver, 2 if bits == 64 else 1, 0xC0, size, typ, group,
                        tid, pid, t, 0, 0) + payload
        return e + b'\0' * (-len(e) % 8)

    def perfev(group, typ, ver, t, payload):
        size = 16 + len(payload)
        e = struct.pack('<HBBHBBq', ver, 0x11 if bits == 64 else 0x10, 0xC0, size, typ, group,
                        t) + payload
        return e + b'\0' * (-len(e) % 8)

    t = sync + 1000
    events.append(sysev(5, 3, 3, t, struct.pack('<II', 1234, 77) + b'\0' * 64))
    name = 'C:\\app\\app.exe'.encode('utf-16le') + b'\0\0'
    img = struct.pack('<' + ptr * 2 + 'IIII' + ptr + '16x', base, 0x30000, 1234, 0, 0, 0,
                      0) + name
    events.append(sysev(0x14, 3, 3, t + 1, img))
    counts, made = {}, []
    for i in range(300):
        typ = 10 + i % 6
        va = base + (i * 4096) % 0x40000      # some outside the image
        pc = base + 0x1000 + i
        counts[typ] = counts.get(typ, 0) + 1
        mk = sysev if i % 2 else (lambda g, ty, v, tt, p: perfev(g, ty, v, tt, p))
        events.append(mk(2, typ, 2, t + 10 + i, struct.pack('<' + ptr * 2, va, pc)))
        made.append([str(typ), t + 10 + i, '%x' % va, '%x' % pc])
    body = b''.join(events)
    hdr = bytearray(first[:72])
    struct.pack_into('<II', hdr, 0, 72 + len(body), 72 + len(body))
    struct.pack_into('<H', hdr, 52, 0)
    gen = os.path.join(work, 'typegroup1.etl')
    open(gen, 'wb').write(first + bytes(hdr) + body)
    o = run_oracle(gen, os.path.join(work, 'o'))
    want = []
    for line in o['oracle']:
        if line.startswith('PF'):
            f = dict(kv.split('=') for kv in line.split()[1:])
            want.append([line.split()[0][2:], str(to_ns(o, int(f['ts']))), f['va'], f['pc']])
    if bits == 32:
        if o['events'] != 3 + 2 + 300:
            fail('the oracle frames %d events, 305 generated' % o['events'])
        want = [[m[0], str(to_ns(o, m[1])), m[2], m[3]] for m in made]
    if sorted(counts.items()) != sorted((int(k), sum(1 for w in want if w[0] == str(k)))
                                        for k in counts):
        fail('the oracle does not see the generated faults')
    s = os.path.join(work, 's')
    imp(gen, s)
    names = {'10': 'TransitionFault', '11': 'DemandZeroFault', '12': 'CopyOnWrite',
             '13': 'GuardPageFault', '14': 'HardPageFault', '15': 'AccessViolation'}
    got = sql(s, "SELECT name, ts, printf('%x', address), printf('%x', ip) FROM page_fault ORDER BY id")
    same(got, [[names[w[0]]] + w[1:] for w in want],
         'TypeGroup1' if bits == 64 else 'TypeGroup1 (32-bit; expected: the generator\'s values)')
    # Per kind: hard, fault_kind and module as docs/reader-etw.md maps them (the image
    # spans 0x30000 bytes from base: offsets below that are in it).
    kinds = {'10': ('0', 'page_cache'), '11': ('0', 'demand_zero'), '12': ('0', 'copy_on_write'),
             '13': ('0', 'demand_zero'), '14': ('1', 'file'), '15': ('', 'access_violation')}
    # Faults with a perfinfo header (every other one) name no thread, so no
    # process and no module.
    rows = sql(s, "SELECT hard, fault_kind, module, module_offset, pid FROM page_fault ORDER BY id")
    for i, (w, r) in enumerate(zip(want, rows)):
        off = int(w[2], 16) - base
        task = i % 2 == 1
        inside = off < 0x30000 and task
        hard, kind = kinds[w[0]]
        if w[0] == '14' and not inside:
            kind = ''
        exp = [hard, kind, 'C:\\app\\app.exe' if inside else '', str(off) if inside else '',
               '1234' if task else '']
        if r != exp:
            fail('type %s at %s: got %s, expected %s' % (w[0], w[2], r, exp))
    print('ok: hard, fault_kind, module, module_offset and pid of every fault')

elif case == 'late_start':
    d, bufs = buffers(os.path.join(data, 'ShutdownPerfDiagLogger.etl'))
    first = d[:bufs[0][1]]
    sync = struct.unpack_from('<q', d, 72 + 16)[0]

    def sysev(group, typ, ver, t, payload, tid=0, pid=0):
        e = struct.pack('<HBBHBBIIqII', ver, 2, 0xC0, 32 + len(payload), typ, group,
                        tid, pid, t, 0, 0) + payload
        return e + b'\0' * (-len(e) % 8)

    def buffer(cpu, events):
        body = b''.join(events)
        hdr = bytearray(first[:72])
        struct.pack_into('<II', hdr, 0, 72 + len(body), 72 + len(body))
        struct.pack_into('<H', hdr, 40, cpu)
        struct.pack_into('<H', hdr, 52, 0)
        return bytes(hdr) + body

    t0, base = sync + 1000, 0x140000000
    name = 'C:\\app\\app.exe'.encode('utf-16le') + b'\0\0'
    start = [sysev(5, 1, 3, t0, struct.pack('<II', 1234, 77) + b'\0' * 64, 77, 1234),
             sysev(3, 10, 3, t0 + 1, struct.pack('<QQIIIIQ16x', base, 0x30000, 1234, 0, 0, 0, 0)
                   + name, 77, 1234)]
    faults = [sysev(2, 32, 2, t0 + 10 + i,
                    struct.pack('<QQQQII', t0, 4096 * i, base + 0x1000 + 64 * i, 0xfeed, 77, 4096),
                    77, 1234) for i in range(13)]
    gen = os.path.join(work, 'late_start.etl')
    open(gen, 'wb').write(first + buffer(0, faults) + buffer(1, start))
    o = run_oracle(gen, os.path.join(work, 'o'))
    want = attribute(o)
    if [w[0] for w in want] != ['1234'] * 13 or any(w[1] != 'C:\\app\\app.exe' for w in want):
        fail('the time-ordered replay does not attribute the generated faults: %s' % want[:3])
    if any(w[0] or w[1] for w in attribute(o, lambda o, n: o[n])):
        fail('a file-order replay attributes them: the log does not test the order')
    s = os.path.join(work, 's')
    imp(gen, s)
    got = sql(s, "SELECT pid, module, module_offset FROM page_fault ORDER BY id")
    same(got, want, 'HardFault pid, module and module_offset (time-ordered replay)')
    for table in ('page_fault', 'module', 'ftrace_event'):
        bad = sql(s, 'SELECT count(*) FROM %s a JOIN %s b ON b.id = a.id + 1 WHERE b.ts < a.ts'
                  % (table, table))[0][0]
        if bad != '0':
            fail('%s: %s rows earlier than the row before them' % (table, bad))
    print('ok: 13 faults attributed as the time-ordered replay does; stores in time order')

else:
    fail('unknown case ' + case)
