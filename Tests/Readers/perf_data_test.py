#!/usr/bin/env python3
"""perf.data read natively (Readers/Decoders/Perf/PerfData*.c) against perf.

Each case records with the real `perf record` here, imports the file with
`tracestore import`, and compares the session with what `perf script`
prints from the same file (never with our own output):

  tracepoints  -a with raw_syscalls, sched_switch, page_fault_user: every
               event's ts, cpu, pid, tid, comm and name in perf's order;
               sys_enter/sys_exit args equal perf's text; sched_switch
               columns and page_fault_user's address, ip, error_code
               equal the fields perf prints.
  pipe         the same events from `perf record -o -` (pipe mode).
  zstd         the same events from `perf record -z` (COMPRESSED records:
               one zstd stream whose records span them).
  zstd_callgraph  -z -g samples with their stacks, as callgraph checks.
  faults       -c 1 -e major-faults,minor-faults -d: every fault's ts, pid,
               tid, address, ip, hard/soft from perf's event name, and
               module + module_offset from a replay of the
               PERF_RECORD_MMAP/MMAP2/FORK/COMM exec lines perf prints
               with --show-mmap-events --show-task-events (addr - start +
               pgoff; anonymous memory's offset is addr - start, as
               docs/reader-perf.md says).
  report       sample_self's top 20 (comm, module, symbol, overhead)
               equal `perf report --stdio --no-children`'s: symbols from
               kallsyms and the mapped files' ELF symbols (and detached
               debug files), PLT entries named as perf names them.
  callgraph    -g cpu-clock samples: ts, pid, tid, period, ip, and every
               frame of each call chain (the address perf prints:
               map-relative for a file's frames, else the address).
  dwarf        --call-graph dwarf (REGS_USER and STACK_USER skipped by
               their sizes): every sample's ts, pid, tid, period, ip.
  count1       -c 1 -a context-switches: every sample's fields.
  header       the metadata rows (perf.hostname, perf.cmdline, ...) and
               the event names equal perf report --header-only's; the
               session's host and kernel are the recording's.
  lost         -m 1 (a tiny buffer): dropped equals perf's LOST and
               LOST_SAMPLES records (perf script -D), the larger sum.
  damaged      the faults file cut at every record boundary and inside
               records, with flipped header and size bytes and a
               zero-size record: exit 1, "byte offset" in the message, the
               session opens, and it holds exactly the samples that lie
               whole before the damage (counted from the record headers).

Exit 77 when perf cannot record here.
usage: perf_data_test.py TRACESTORE WORKDIR CASE
"""
import csv
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys

TS, WORK, CASE = sys.argv[1], sys.argv[2], sys.argv[3]
SYSTEM_LOAD = "ls -R /usr/share/doc /usr/share/man > /dev/null"
SPIN = "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def skip(msg):
    print("SKIP:", msg)
    sys.exit(77)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def record(name, args, command):
    path = os.path.join(WORK, name + ".data")
    r = run(["perf", "record", "-q", "-o", path] + args + ["--", "sh", "-c", command])
    if r.returncode != 0 or not os.path.exists(path):
        skip("perf record %s failed here: %s" % (" ".join(args), r.stderr[-400:]))
    return path


def script(path, *args):
    r = subprocess.run(["perf", "script", "-i", path, "--ns"] + list(args),
                       capture_output=True)
    if r.returncode != 0:
        fail("perf script %s: %s" % (" ".join(args), r.stderr.decode()[-400:]))
    return r.stdout.decode("utf-8", "replace").splitlines()


def imp(path, session, expect_ok=True):
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session, path])
    if expect_ok and r.returncode != 0:
        fail("import %s: %s" % (path, r.stderr))
    return r


def sql(session, query):
    r = run([TS, "sql", "--csv", session, query])
    if r.returncode != 0:
        fail("sql %s: %s" % (query, r.stderr))
    return list(csv.reader(io.StringIO(r.stdout)))[1:]


def u64(v):
    """An address column: SQLite holds 64-bit values signed."""
    return str(int(v) % (1 << 64)) if v != "" else v


def ns(sec, frac):
    return int(sec) * 1000000000 + int(frac)


def opt(v):
    return None if v in ("", None) else int(v)


# perf script -F comm,pid,tid,cpu,time,event,trace --ns
TRACE_LINE = re.compile(r"^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):\s?(.*)$")


def perf_tracepoints(path):
    events = []
    for line in script(path, "-F", "comm,pid,tid,cpu,time,event,trace"):
        m = TRACE_LINE.match(line)
        if not m:
            fail("perf script line not understood: %r" % line)
        comm, pid, tid, cpu, sec, frac, event, trace = m.groups()
        events.append(dict(comm=comm, pid=int(pid), tid=int(tid), cpu=int(cpu),
                           ts=ns(sec, frac), name=event.split(":")[-1],
                           trace=trace.rstrip()))
    return events


def plugin_state(perf_state, table):
    """perf prints prev_state by the event's print fmt (__print_flags of
    this kernel's letters, "+" for preempted); the trace.dat import writes
    trace-cmd's sched_switch plugin's letters ("SDTtZXxW" for bits 0-7,
    R for none, no "+").  Map one to the other through the format file's
    own table."""
    state = perf_state.rstrip("+")
    bits = 0
    if state != "R":
        for letter in state.split("|"):
            bits |= table[letter]
    out = [c for i, c in enumerate("SDTtZXxW") if bits & (1 << i)]
    return "|".join(out) if out else "R"


def state_table():
    fmt = open("/sys/kernel/tracing/events/sched/sched_switch/format").read()
    return {letter: int(value, 16) for value, letter in
            re.findall(r'\{\s*(0x[0-9a-f]+),\s*"([^"]+)"\s*\}', fmt)}


def check_tracepoints(path, session):
    events = perf_tracepoints(path)
    if len(events) < 100:
        fail("only %d events recorded" % len(events))
    imp(path, session)
    # The event view, each store in its own order (perf's, by ts then file).
    rows = sql(session, "SELECT store, ts, cpu, pid, tid, name FROM event ORDER BY store, id")
    ours = {}
    for store, ts, cpu, pid, tid, name in rows:
        ours.setdefault(store, []).append((int(ts), int(cpu), opt(pid), opt(tid), name))
    store_of = {"sched_switch": "sched_switch", "page_fault_user": "page_fault"}
    theirs = {}
    for e in events:
        store = store_of.get(e["name"], "ftrace_event")
        # perf prints -1/-1 for a thread that had exited when its event was
        # taken (docs/reader-perf.md); the record's common_pid still names it.
        pid = None if e["pid"] == -1 else e["pid"]
        tid = None if e["tid"] == -1 else e["tid"]
        theirs.setdefault(store, []).append((e["ts"], e["cpu"], pid, tid, e["name"]))
    for store in set(ours) | set(theirs):
        a, b = ours.get(store, []), theirs.get(store, [])
        if len(a) != len(b):
            fail("%s: %d rows, perf printed %d" % (store, len(a), len(b)))
        for i, (x, y) in enumerate(zip(a, b)):
            if store == "sched_switch":
                x = (x[0], x[1], None, None, "sched_switch")
                y = (y[0], y[1], None, None, y[4])
            if y[3] is None:
                x = x[:2] + (None, None) + x[4:]
            if x != y:
                fail("%s row %d: %s, perf: %s" % (store, i, x, y))
    # Fields.
    args = [r[0] for r in sql(session, "SELECT args FROM ftrace_event ORDER BY id")]
    texts = [e["trace"] for e in events if store_of.get(e["name"]) is None]
    for i, (a, t) in enumerate(zip(args, texts)):
        if a != t:
            fail("ftrace_event %d args %r, perf: %r" % (i, a, t))
    comms = sql(session, "SELECT comm FROM ftrace_event ORDER BY id")
    for i, (c, e) in enumerate(zip(comms, [e for e in events if store_of.get(e["name"]) is None])):
        # pid 0 is "<idle>" in a trace.dat import (trace-cmd's name), which
        # tracepoint rows keep; perf calls it "swapper".
        if e["tid"] == 0 and c[0] == "<idle>" and e["comm"] == "swapper":
            continue
        if not e["comm"].startswith(":") and c[0] != e["comm"]:
            fail("ftrace_event %d comm %r, perf: %r" % (i, c[0], e["comm"]))
    table = state_table()
    sw = sql(session, "SELECT prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio FROM sched_switch ORDER BY id")
    perf_sw = [e["trace"] for e in events if e["name"] == "sched_switch"]
    for i, (row, t) in enumerate(zip(sw, perf_sw)):
        m = re.match(r"prev_comm=(.*) prev_pid=(\d+) prev_prio=(-?\d+) prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+) next_prio=(-?\d+)$", t)
        if not m:
            fail("sched_switch text not understood: %r" % t)
        if [plugin_state(g, table) if k == 3 else g for k, g in enumerate(m.groups())] != row:
            fail("sched_switch %d: %s, perf: %s" % (i, row, list(m.groups())))
    pf = sql(session, "SELECT printf('0x%x', address), printf('0x%x', ip), printf('0x%x', error_code) FROM page_fault ORDER BY id")
    perf_pf = [e["trace"] for e in events if e["name"] == "page_fault_user"]
    for i, (row, t) in enumerate(zip(pf, perf_pf)):
        want = re.match(r"address=(0x[0-9a-f]+) ip=(0x[0-9a-f]+) error_code=(0x[0-9a-f]+)$", t)
        if not want or list(want.groups()) != row:
            fail("page_fault %d: %s, perf: %s" % (i, row, t))
    counts = {}
    for e in events:
        counts[e["name"]] = counts.get(e["name"], 0) + 1
    print("ok: %d events (%s) equal perf script's" % (
        len(events), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))


def replay_maps(lines):
    """The mappings perf's side-band lines build, applied in their order."""
    maps = {}
    mm = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)[^\]]*\]: (\S+) (.*)$")
    fork = re.compile(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)")

    def add(pid, start, end, pgoff, path, prot):
        kept = []
        for (s, e, p, pa, pr) in maps.get(pid, []):
            if e <= start or s >= end:
                kept.append((s, e, p, pa, pr))
                continue
            if s < start:
                kept.append((s, start, p, pa, pr))
            if e > end:
                kept.append((end, e, p + (end - s), pa, pr))
        kept.append((start, end, pgoff, path, prot))
        maps[pid] = kept

    def find(pid, addr):
        for key in (pid, -1):
            for (s, e, p, pa, pr) in maps.get(key, []):
                if s <= addr < e:
                    return s, e, p, pa, pr
        return None

    def event(line):
        m = mm.search(line)
        if m:
            pid, start, length, pgoff, prot, path = m.groups()
            start, length, pgoff = int(start, 16), int(length, 16), int(pgoff, 16)
            if path.startswith("[kernel.kallsyms]"):
                path = "[kernel.kallsyms]"
            add(int(pid), start, start + length, pgoff, path, prot)
            return True
        m = fork.search(line)
        if m:
            child, parent = int(m.group(1)), int(m.group(2))
            if child != parent:
                maps[child] = list(maps.get(parent, []))
            return True
        # An exec keeps the mappings (perf's machine only flushes its
        # unwinder): the new image's replace what they overlap.
        return "PERF_RECORD_" in line

    return event, find


def check_faults(path, session):
    lines = script(path, "-F", "comm,pid,tid,time,event,addr,ip,sym,dso",
                   "--show-mmap-events", "--show-task-events")
    imp(path, session)
    event, find = replay_maps(lines)
    # "ADDR SYM (DSO) IP SYM (DSO)": the dso perf places each address in.
    sample = re.compile(r"^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+(\d+)\.(\d{9}):\s+(\S+):\s+"
                        r"([0-9a-f]+) .*?\((.*?)\)\s+([0-9a-f]+) .*?\((.*?)\)\s*$")
    want = []
    perf_dsos = []
    for line in lines:
        if event(line):
            continue
        m = sample.match(line)
        if not m:
            fail("perf script line not understood: %r" % line)
        comm, pid, tid, sec, frac, name, addr, addr_dso, ip, ip_dso = m.groups()
        perf_dsos.append((addr_dso, ip_dso))
        addr, ip, pid = int(addr, 16), int(ip, 16), int(pid)
        name = name.rstrip(":")
        mod, off = None, None
        hit = find(pid, addr)
        if hit:
            s, e, p, pa, pr = hit
            if pa != "//anon":
                mod = pa
            off = addr - s + (p if pa.startswith("/") and pa != "//anon" else 0)
        ipmod = None
        hit = find(pid, ip)
        if hit and hit[3] != "//anon":
            ipmod = hit[3]
        hard = {"major-faults": "1", "minor-faults": "0"}.get(name, "")
        want.append([str(ns(sec, frac)), str(pid), tid, name, str(addr), str(ip), hard,
                     mod or "", "" if off is None else str(off), ipmod or ""])
    if len(want) < 50:
        fail("only %d faults recorded" % len(want))
    rows = sql(session, "SELECT ts, pid, tid, name, address, ip, hard, module, module_offset, ip_module FROM page_fault ORDER BY id")
    rows = [r[:4] + [u64(r[4]), u64(r[5])] + r[6:] for r in rows]
    if len(rows) != len(want):
        fail("%d page_fault rows, perf printed %d faults" % (len(rows), len(want)))
    placed = 0
    for i, (a, b) in enumerate(zip(rows, want)):
        if a != b:
            fail("fault %d: %s, perf + its mmap lines: %s" % (i, a, b))
        placed += b[8] != ""
        # The module is the file perf itself places the address in
        # ("[unknown]" and anonymous memory: none).
        for mine, theirs in ((a[7], perf_dsos[i][0]), (a[9], perf_dsos[i][1])):
            theirs = "" if theirs in ("[unknown]", "//anon") else theirs
            if mine != theirs:
                fail("fault %d: module %r, perf script's dso %r" % (i, mine, theirs))
    print("ok: %d faults equal perf script's, %d placed in a mapping as its mmap lines place them" % (len(want), placed))


def perf_samples(path, with_stack):
    fields = "comm,pid,tid,cpu,time,event,ip,period"
    lines = script(path, "-F", fields)
    head = re.compile(r"^\s*(.*?)\s+(-?\d+)/(-?\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\d+)\s+(\S+):\s*([0-9a-f]*)\s*$")
    samples = []
    for line in lines:
        if line.startswith("\t") or (samples and line.startswith(" ") and not head.match(line)):
            samples[-1]["stack"].append(int(line.split()[0], 16))
            continue
        if not line.strip():
            continue
        m = head.match(line)
        if not m:
            fail("perf script line not understood: %r" % line)
        comm, pid, tid, cpu, sec, frac, period, name, ip = m.groups()
        samples.append(dict(pid=int(pid), tid=int(tid), cpu=int(cpu), ts=ns(sec, frac),
                            period=int(period), name=name.rstrip(":"),
                            ip=int(ip, 16) if ip else None, comm=comm, stack=[]))
    return samples


def check_samples(path, session, with_stack):
    samples = perf_samples(path, with_stack)
    if len(samples) < 20:
        fail("only %d samples recorded" % len(samples))
    imp(path, session)
    rows = sql(session, "SELECT ts, pid, tid, cpu, name, period, ip, stack_id, comm FROM sample ORDER BY id")
    if len(rows) != len(samples):
        fail("%d sample rows, perf printed %d" % (len(rows), len(samples)))
    stacks, frames = {}, {}
    if with_stack:
        stacks = {int(r[0]): (opt(r[1]), int(r[2])) for r in sql(session, "SELECT id, parent_id, frame_id FROM stack")}
        frames = {int(r[0]): (int(u64(r[1])), opt(r[2]), r[3]) for r in sql(session, "SELECT id, ip, module_offset, module FROM frame")}
    frames_checked = 0
    for i, (row, s) in enumerate(zip(rows, samples)):
        ts, pid, tid, cpu, name, period, ip, stack_id, comm = row
        mine = (int(ts), opt(pid), opt(tid), int(cpu), name, int(period))
        pid_p = None if s["pid"] == -1 else s["pid"]
        tid_p = None if s["tid"] == -1 else s["tid"]
        theirs = (s["ts"], pid_p, tid_p, s["cpu"], s["name"], s["period"])
        if mine != theirs:
            fail("sample %d: %s, perf: %s" % (i, mine, theirs))
        if not with_stack and s["ip"] is not None and int(u64(ip)) != s["ip"]:
            fail("sample %d ip %s, perf %x" % (i, ip, s["ip"]))
        if not s["comm"].startswith(":") and comm != s["comm"]:
            fail("sample %d comm %r, perf %r" % (i, comm, s["comm"]))
        if with_stack:
            chain = []
            node = opt(stack_id)
            while node is not None:
                parent, frame = stacks[node]
                fip, off, module = frames[frame]
                # perf prints a frame's map-relative address (map__map_ip:
                # address - start + pgoff) when a mapping holds it, the
                # address for anonymous memory; [stack] and [heap] have the
                # kernel's pgoff, their start, so that is the address too,
                # and [vdso]'s pgoff is 0.
                relative = module.startswith("/") or module == "[vdso]"
                chain.append(off if relative and off is not None else fip)
                node = parent
            if chain != s["stack"]:
                fail("sample %d stack %s, perf %s" % (i, [hex(x) for x in chain], [hex(x) for x in s["stack"]]))
            frames_checked += len(chain)
    print("ok: %d samples equal perf script's%s" % (
        len(samples), ", %d frames of their stacks too" % frames_checked if with_stack else ""))


def check_report(path, session):
    """sample_self's top entries against perf report --no-children."""
    r = run(["perf", "report", "-i", path, "--stdio", "--no-children",
             "--sort", "comm,dso,sym", "-g", "none", "--percent-limit", "0"])
    if r.returncode != 0:
        fail("perf report: " + r.stderr[-300:])
    theirs = []
    for line in r.stdout.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        # "  16.44%  sh  libc.so.6  [.] __strchr_evex": columns two or more
        # blanks apart (a dso may hold single blanks: "x (deleted)").
        m = re.match(r"^\s+([\d.]+)%\s+(.*)$", line)
        parts = re.split(r"\s{2,}", m.group(2).strip()) if m else []
        if len(parts) < 3 or not re.match(r"\[[.k]\] ", parts[-1]):
            fail("perf report line not understood: %r" % line)
        theirs.append((float(m.group(1)), parts[0], "  ".join(parts[1:-1]),
                       parts[-1][1] == "k", parts[-1][4:]))
    imp(path, session)
    ours = {}
    for comm, module, symbol, kernel, overhead in sql(session, "SELECT comm, module, symbol, kernel, overhead FROM sample_self"):
        dso = os.path.basename(module) if module else "[unknown]"
        ours[(comm, dso, symbol)] = (float(overhead), kernel == "1")
    top = theirs[:20]
    if len(top) < 10:
        fail("perf report has only %d entries" % len(top))
    for pct, comm, dso, kernel, sym in top:
        mine = ours.get((comm, dso, sym))
        if mine is None:
            fail("perf report's %.2f%% %s %s %s: no such row in sample_self" % (pct, comm, dso, sym))
        if abs(round(mine[0], 2) - pct) > 0.0051 or mine[1] != kernel:
            fail("%s %s %s: %.4f%% (kernel %s), perf report %.2f%%" % (comm, dso, sym, mine[0], mine[1], pct))
    print("ok: perf report's top %d entries (%s ... %s) equal sample_self's" % (
        len(top), top[0][4], top[-1][4]))


def check_header(path, session):
    """The header facts against perf report --header-only; the session's
    host is the recording's."""
    r = run(["perf", "report", "-i", path, "--header-only"])
    facts = dict(re.findall(r"^# ([a-z ]+?)\s*: (.*)$", r.stdout, re.M))
    imp(path, session)
    meta = {}
    for name, iv, sv in sql(session, "SELECT name, int_value, str_value FROM metadata"):
        meta.setdefault(name, []).append(sv if sv != "" else iv)
    want = {
        "perf.hostname": facts["hostname"],
        "perf.os_release": facts["os release"],
        "perf.version": facts["perf version"],
        "perf.arch": facts["arch"],
        "perf.nr_cpus_online": facts["nrcpus online"],
        "perf.nr_cpus_available": facts["nrcpus avail"],
        "perf.cpu_desc": facts["cpudesc"],
        "perf.total_mem_kb": facts["total memory"].split()[0],
        "perf.cmdline": facts["cmdline"].strip(),
    }
    for name, value in want.items():
        if meta.get(name) != [value]:
            fail("%s: %s, perf report --header-only: %r" % (name, meta.get(name), value))
    events = re.findall(r"^# event : name = ([^,]+),", r.stdout, re.M)
    if meta.get("perf.event") != events:
        fail("perf.event: %s, perf: %s" % (meta.get("perf.event"), events))
    info = run([TS, "info", "--json", session])
    doc = json.loads(info.stdout)
    if doc["host"] != facts["hostname"] or doc["kernel"] != facts["os release"] or doc["boot_id"] is not None:
        fail("session host %s %s %s, recorded on %s %s" % (doc["host"], doc["kernel"], doc["boot_id"],
                                                           facts["hostname"], facts["os release"]))
    print("ok: %d header facts and %d events equal perf report --header-only's; the session's host is the recording's" % (len(want), len(events)))


def check_lost(path, session):
    lines = script(path, "--show-lost-events", "-F", "time")
    lost = sum(int(m.group(1)) for m in (re.search(r"PERF_RECORD_LOST lost (\d+)", l) for l in lines) if m)
    n = sum(1 for l in lines if "PERF_RECORD_LOST" not in l)
    stats = run(["perf", "report", "-i", path, "--stats"]).stdout
    # The per-event section (after "... stats:") sums LOST_SAMPLES' counts.
    per_event = stats[stats.rfind(" stats:\n"):] if " stats:\n" in stats else ""
    m = re.search(r"LOST_SAMPLES events:\s+(\d+)", per_event)
    lost_samples = int(m.group(1)) if m else 0
    if lost == 0 and lost_samples == 0:
        skip("perf lost nothing with -m 1 here")
    imp(path, session)
    dropped = sql(session, "SELECT dropped FROM store_info WHERE name = 'ftrace_event'")[0][0]
    if int(dropped) != max(lost, lost_samples):
        fail("dropped %s; perf's LOST records say %d, LOST_SAMPLES %d" % (dropped, lost, lost_samples))
    events = int(sql(session, "SELECT count(*) FROM event")[0][0])
    if n != events:
        fail("%d events, perf script printed %d" % (events, n))
    print("ok: dropped %s = max(LOST %d, LOST_SAMPLES %d) as perf counts them; %d events" % (dropped, lost, lost_samples, n))


def records(data):
    """(offset, type, size) of each record of a perf.data file's data section."""
    data_off, data_size = struct.unpack_from("<QQ", data, 40)
    out, off = [], data_off
    while off + 8 <= data_off + data_size:
        typ, misc, size = struct.unpack_from("<IHH", data, off)
        out.append((off, typ, size))
        off += size
    return data_off, data_off + data_size, out


def check_damaged(path, session):
    data = open(path, "rb").read()
    start, end, recs = records(data)
    total = sum(1 for _, t, _ in recs if t == 9)
    cut = os.path.join(WORK, "cut.data")
    cases = []
    boundaries = [off for off, _, _ in recs]
    step = max(1, len(boundaries) // 60)
    for off in boundaries[::step] + [end - 3]:
        cases.append(("cut at %d" % off, data[:off], off))
    for off, typ, size in recs[::max(1, len(recs) // 30)]:
        cases.append(("cut inside record at %d" % off, data[:off + size // 2], off))
    # A record whose size is zero, or runs past the file: an error at it.
    for off, typ, size in recs[len(recs) // 2: len(recs) // 2 + 1]:
        b = bytearray(data)
        struct.pack_into("<H", b, off + 6, 0)
        cases.append(("zero-size record at %d" % off, bytes(b), off))
        b = bytearray(data)
        struct.pack_into("<H", b, off + 6, 0xfff8)
        cases.append(("oversized record at %d" % off, bytes(b), off))
    for name, content, damage in cases:
        with open(cut, "wb") as f:
            f.write(content)
        r = imp(cut, session, expect_ok=False)
        whole = sum(1 for off, t, size in recs if t == 9 and off + size <= damage)
        if damage >= end - 3 and len(content) >= end:
            whole = total
        if r.returncode != 1 or "byte offset" not in r.stderr:
            if not (r.returncode == 0 and whole == total):
                fail("%s: exit %d, %r" % (name, r.returncode, r.stderr))
        got = int(sql(session, "SELECT count(*) FROM page_fault")[0][0])
        if got != whole:
            fail("%s: %d faults kept, %d samples lie whole before it" % (name, got, whole))
    # Header damage: the magic, the attr size, a sample_type bit perf never writes.
    for name, at, value, fmt in [("bad magic", 0, 0x1234, "<Q"),
                                 ("attr size 8", 16, 8, "<Q"),
                                 ("data offset past the end", 40, len(data) + 100, "<Q"),
                                 ("unknown sample_type bit", struct.unpack_from("<Q", data, 24)[0] + 24,
                                  struct.unpack_from("<Q", data, struct.unpack_from("<Q", data, 24)[0] + 24)[0] | (1 << 40), "<Q")]:
        b = bytearray(data)
        struct.pack_into(fmt, b, at, value)
        with open(cut, "wb") as f:
            f.write(b)
        r = imp(cut, session, expect_ok=False)
        if r.returncode != 1 or (name != "bad magic" and "byte offset" not in r.stderr):
            fail("%s: exit %d, %r" % (name, r.returncode, r.stderr))
    print("ok: %d damaged files: exit 1 with the byte offset, the samples before the damage kept" % (len(cases) + 4))


def main():
    if os.geteuid() != 0:
        skip("perf record needs root here")
    if shutil.which("perf") is None:
        skip("perf is not installed (linux-perf)")
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    session = os.path.join(WORK, "s.trace")
    tps = ["-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch,exceptions:page_fault_user"]
    if CASE == "tracepoints":
        check_tracepoints(record("tp", ["-a"] + tps, SYSTEM_LOAD), session)
    elif CASE == "zstd":
        check_tracepoints(record("zstd", ["-a", "-z"] + tps, SYSTEM_LOAD), session)
    elif CASE == "zstd_callgraph":
        check_samples(record("zcg", ["-a", "-z", "-g", "-e", "cpu-clock", "-F", "2000"], SPIN),
                      session, True)
    elif CASE == "pipe":
        path = os.path.join(WORK, "pipe.data")
        with open(path, "wb") as out:
            r = subprocess.run(["perf", "record", "-q", "-o", "-", "-a"] + tps +
                               ["--", "sh", "-c", SYSTEM_LOAD], stdout=out, stderr=subprocess.PIPE)
        if r.returncode != 0:
            skip("perf record -o - failed: %s" % r.stderr.decode()[-300:])
        check_tracepoints(path, session)
    elif CASE == "faults":
        check_faults(record("faults", ["-c", "1", "-e", "major-faults,minor-faults", "-d"], SYSTEM_LOAD), session)
    elif CASE == "callgraph":
        check_samples(record("cg", ["-a", "-g", "-e", "cpu-clock", "-F", "2000"], SPIN), session, True)
    elif CASE == "report":
        check_report(record("report", ["-a", "-g", "-e", "cpu-clock", "-F", "4000"],
                            SYSTEM_LOAD + "; " + SPIN), session)
    elif CASE == "dwarf":
        check_samples(record("dwarf", ["-a", "--call-graph", "dwarf,4096", "-e", "cpu-clock", "-F", "1000"], SPIN), session, False)
    elif CASE == "count1":
        check_samples(record("c1", ["-a", "-c", "1", "-e", "context-switches"],
                             "for i in $(seq 100); do /bin/true; done"), session, False)
    elif CASE == "header":
        check_header(record("header", tps, "true"), session)
    elif CASE == "lost":
        check_lost(record("lost", ["-a", "-m", "1", "-e", "raw_syscalls:sys_enter"],
                          "dd if=/dev/zero of=/dev/null bs=1 count=200000 2>/dev/null"), session)
    elif CASE == "damaged":
        check_damaged(record("faults", ["-c", "1", "-e", "major-faults,minor-faults", "-d"], "ls /usr/bin > /dev/null"), session)
    else:
        fail("unknown case " + CASE)


main()
