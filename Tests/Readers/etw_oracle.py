#!/usr/bin/env python3
"""The ETW oracle, run once, with what the ETW tests need besides its own lines.

Usage: etw_oracle.py SHARED_TOOLS_ETW_ORACLE FILE.etl[.zip] OUTDIR

Runs ../shared/tools/etw-oracle/etw_pagefaults.py's own Observer (its output
lines go to OUTDIR/oracle.txt, unchanged) over its own framing (etl-parser +
xpress_lz77), and from the same callbacks writes:
  OUTDIR/images.txt   every image event, system *and* perfinfo headers (the
                      oracle prints only the former): "IMG<type> ts pid base size name"
  OUTDIR/threads.txt  thread events: "ts pid tid"
  OUTDIR/processes.txt Process Start/DCStart, by etl-parser's own Process
                      MOF (v3, v4): "pid <TAB> ImageFileName <TAB> CommandLine"
  OUTDIR/sequence.txt images, threads and hard faults in file order:
                      "I pid base size name", "U pid base", "T pid tid",
                      "F ttid va" (for attributing faults to images)
  OUTDIR/events.txt   every event in file order: "ts rank buffer", its raw
                      timestamp, the rank of its buffer's CPU (CPUs
                      numbered by their first buffer in the file) and its
                      buffer's number in the file, framed
                      here with struct (checked against etl-parser's count
                      and timestamps), for replaying the log in time order
  OUTDIR/index.txt    the event index (a line of events.txt) of each line
                      of oracle.txt, images.txt, sequence.txt and
                      processes.txt: "oracle 12", "images 40", ...
  OUTDIR/counts.txt   "events N" (every framed event), "procstart N"
                      (Process Start and DCStart), "procstart_rundown N"
                      (DCStart: running when the log began),
                      (Process Start/DCStart), "perfinfo_images N"
  OUTDIR/clock.txt    "freq F", "start S" (FILETIME), "flags R", "sync T"
                      (the header event's raw ts), read with struct from
                      the file's first buffer.
Nothing here reads Tracer's code or output.
"""
import contextlib, io, os, struct, sys

tools, path, out_dir = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, tools)
import etw_pagefaults as oracle  # noqa: E402

G = {'EVENT_TRACE_GROUP_MEMORY': 2, 'EVENT_TRACE_GROUP_PROCESS': 3,
     'EVENT_TRACE_GROUP_THREAD': 5, 'EVENT_TRACE_GROUP_IMAGE': 0x14}
counts = {'events': 0, 'procstart': 0, 'procstart_rundown': 0, 'perfinfo_images': 0}
images, threads, sequence, processes = [], [], [], []
index = []          # (list name, event index) of every line written
seen_ts = {}        # event index -> the ts etl-parser gives it


def note(name, lst, before):
    index.extend((name, counts['events'] - 1) for _ in range(len(lst) - before))


def frame(data):
    """Every event's (raw ts, CPU rank, buffer number), in file order: buffers of
    BufferSize bytes, events 8-byte aligned after the 72-byte header, the
    header type at byte 2 giving where the size and the ts are (EtwFormat.h's
    layout, as docs/reader-etw.md and etl-parser's wmi.py describe it)."""
    out, rank, off, number = [], {}, 0, 0
    while off + 72 <= len(data):
        bs, so = struct.unpack_from('<II', data, off)
        cpu = struct.unpack_from('<H', data, off + 40)[0]
        r = rank.setdefault(cpu, len(rank))
        p, a = data[off + 72:off + so], 0
        while a + 4 <= len(p):
            t = p[a + 2]
            if t in (1, 2, 3, 4):
                size, ts = struct.unpack_from('<H', p, a + 4)[0], struct.unpack_from('<q', p, a + 16)[0]
            elif t in (0x10, 0x11):
                size, ts = struct.unpack_from('<H', p, a + 4)[0], struct.unpack_from('<q', p, a + 8)[0]
            else:
                size, ts = struct.unpack_from('<H', p, a)[0], struct.unpack_from('<q', p, a + 16)[0]
            out.append((ts, r, number))
            a += (size + 7) & ~7
        off += bs
        number += 1
    return out


def process(e, group, typ, ver):
    if G.get(str(group)) != 3 or typ not in (1, 3) or ver < 2:
        return
    try:
        mof = e.get_mof()
        processes.append('%d\t%s\t%s' % (mof.source.ProcessId,
                         ''.join(c if ord(c) < 128 else '?' for c in mof.get_image_file_name()),
                         ''.join(c if ord(c) < 128 else '?' for c in mof.get_command_line())))
    except Exception as x:      # a layout etl-parser does not know
        processes.append('? %s' % type(x).__name__)


def image(kind, typ, ts, d):
    base, size, ipid = struct.unpack_from('<QQI', d)
    nm = d[56:].decode('utf-16le', 'replace').split('\x00')[0]
    nm = ''.join(c if ord(c) < 128 else '?' for c in nm)
    images.append('IMG%d %d %d %x %x %s' % (typ, ts, ipid, base, size, nm))
    if typ == 2:
        sequence.append('U %d %x' % (ipid, base))
    else:
        sequence.append('I %d %x %x %s' % (ipid, base, size, nm))


def other(group, typ, ver, ts, d, perfinfo):
    g = G.get(str(group))
    if ((g == 3 and typ == 10) or (g == 0x14 and 2 <= typ <= 4)) and len(d) >= 56 and ver >= 2:
        image('sys' if not perfinfo else 'perf', typ, ts, d)
        if perfinfo:
            counts['perfinfo_images'] += 1
    if g == 3 and typ in (1, 3) and ver >= 2:
        counts['procstart'] += 1
        counts['procstart_rundown'] += typ == 3
    if g == 5 and 1 <= typ <= 4 and ver >= 1 and len(d) >= 8:
        pid, tid = struct.unpack_from('<II', d)
        threads.append('%d %d %d' % (ts, pid, tid))
        sequence.append('T %d %d' % (pid, tid))
    if g == 2 and typ == 32 and len(d) >= 40:
        va, tt = struct.unpack_from('<16xQ8xI', d)
        sequence.append('F %d %x' % (tt, va))


class Observer(oracle.Observer):
    def lines(self, call, ts):
        counts['events'] += 1
        seen_ts[counts['events'] - 1] = ts
        before = [len(images), len(sequence), len(processes)]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            call()
        out.write(printed.getvalue())
        index.extend(('oracle', counts['events'] - 1) for _ in range(printed.getvalue().count('\n')))
        note('images', images, before[0])
        note('sequence', sequence, before[1])
        note('processes', processes, before[2])

    def on_system_trace(self, e):
        h = e.source.system_header

        def call():
            super(Observer, self).on_system_trace(e)
            other(h.header.group, h.header.type, h.marker.version, h.system_time,
                  bytes(e.source.mof_data), False)
            process(e, h.header.group, h.header.type, h.marker.version)
        self.lines(call, h.system_time)

    def on_perfinfo_trace(self, e):
        h = e.source

        def call():
            super(Observer, self).on_perfinfo_trace(e)
            other(h.header.group, h.header.type, h.marker.version, h.timestamp,
                  bytes(h.mof_data), True)
            process(e, h.header.group, h.header.type, h.marker.version)
        self.lines(call, h.timestamp)

    def on_trace_record(self, e): counts['events'] += 1
    def on_event_record(self, e): counts['events'] += 1
    def on_win_trace(self, e): counts['events'] += 1


data = oracle.plain(oracle.read_etl(path))
etl = oracle.build_from_stream(data)
# build_from_stream walks every buffer but the first (the header's): its
# events are counted with the same framing.
from etl.etl import ChunkParser, EtlLogFile  # noqa: E402
counts['events'] += len(ChunkParser.parse(EtlLogFile.parse(data)[0].payload))
out = io.StringIO()
etl.parse(Observer())
os.makedirs(out_dir, exist_ok=True)
events = frame(data)
if len(events) != counts['events'] or any(events[i][0] != ts for i, ts in seen_ts.items()):
    sys.exit('etw_oracle.py: the struct framing disagrees with etl-parser\'s')
open(os.path.join(out_dir, 'events.txt'), 'w').write(''.join('%d %d %d\n' % e for e in events))
open(os.path.join(out_dir, 'index.txt'), 'w').write(''.join('%s %d\n' % e for e in index))
open(os.path.join(out_dir, 'oracle.txt'), 'w').write(out.getvalue())
open(os.path.join(out_dir, 'images.txt'), 'w').write(''.join(l + '\n' for l in images))
open(os.path.join(out_dir, 'threads.txt'), 'w').write(''.join(l + '\n' for l in threads))
open(os.path.join(out_dir, 'processes.txt'), 'w').write(''.join(l + '\n' for l in processes))
open(os.path.join(out_dir, 'sequence.txt'), 'w').write(''.join(l + '\n' for l in sequence))
open(os.path.join(out_dir, 'counts.txt'), 'w').write(''.join('%s %d\n' % kv for kv in counts.items()))
hdr = 72 + 32
sync = struct.unpack_from('<q', data, 72 + 16)[0]
freq, start, flags = struct.unpack_from('<qqI', data, hdr + 256)
open(os.path.join(out_dir, 'clock.txt'), 'w').write(
    'freq %d\nstart %d\nflags %d\nsync %d\n' % (freq, start, flags, sync))
