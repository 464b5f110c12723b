#!/usr/bin/env python3
"""perfetto_test.py: `tracestore export --format perfetto` read back by
protoc and compared with the session it came from.

Usage: perfetto_test.py TRACESTORE SHARED_DIR DATA_DIR WORKDIR CASE

The file is decoded by protoc (Debian protobuf-compiler) against Perfetto's
own schema, ../shared/reference/perfetto/perfetto_trace.proto: a field the
schema does not have, a wrong wire type or a cut message fails there.  The
decoded packets are then replayed here the way trace_processor reads a
sequence (docs: "Interning", "Track event", "Clock sync"):

  - the first packet clears the incremental state and holds the clock
    snapshot; every later timestamp is on the packet defaults' clock (an
    incremental one: the ns since the packet before) unless the packet
    names its own;
  - every iid used was defined earlier on the sequence, once;
  - every track event's track was described earlier;
  - SLICE_END closes the latest open SLICE_BEGIN of its track; nothing is
    left open at the end.

What the replay yields (slices with ts, dur and name on a thread track,
instants, counter values, thread names) is compared with the session read
through SQL (`tracestore sql`: the stores themselves), the per-CPU sched
slices derived here from the sched_switch rows.  Nothing expected is taken
from the export's own output.

Cases: capture (trace.dat, uftrace and perf stat in one session), etw,
kvmtrace, nesting (a Chrome file whose parent and child begin at the same
ts, child first), window (--from/--to cut slices), formats (choice by file
name, errors).
"""
import collections
import json
import os
import re
import resource
import shutil
import stat
import subprocess
import sys
import threading

TS, SHARED, DATA, WORK, CASE = sys.argv[1:6]
PROTO_DIR = os.path.join(SHARED, "reference", "perfetto")
CPU_PID = 2147483000            # Outputs/Export/Export.h: EXPORT_CPU_PID


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, ok=True, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if ok and p.returncode != 0:
        fail("%s exited %d: %s" % (args, p.returncode,
                                   p.stderr.decode(errors="replace")))
    return p


def sql(session, q):
    out = run([TS, "sql", "--json", session, q]).stdout.decode()
    return json.loads(out) if out.strip() else []


# --------------------------------------------------------------------------
# protoc's text format, parsed into nested dicts of lists.
# --------------------------------------------------------------------------
TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*)\s*(:)?\s*|(\{)|(\}))')
VALUE = re.compile(r'"((?:[^"\\]|\\.)*)"|([^\s]+)')


def unescape(s):
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        n = s[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in "01234567":
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
            continue
        out += {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'",
                "\\": b"\\"}.get(n, n.encode())
        i += 2
    return out.decode("utf-8", errors="replace")


def parse_text(text):
    stack = [collections.defaultdict(list)]
    pos = 0
    n = len(text)
    while pos < n:
        m = TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            if text[pos:].strip() == "":
                break
            fail("protoc text: cannot read at %d: %r" % (pos, text[pos:pos + 40]))
        pos = m.end()
        if m.group(4):
            stack.pop()
            continue
        name = m.group(1)
        if m.group(2):
            v = VALUE.match(text, pos)
            pos = v.end()
            if v.group(1) is not None:
                val = unescape(v.group(1))
            else:
                raw = v.group(2)
                if re.fullmatch(r"-?\d+", raw):
                    val = int(raw)
                elif re.fullmatch(r"-?[\d.]+(e[-+]?\d+)?|-?inf|nan", raw):
                    val = float(raw)
                elif raw in ("true", "false"):
                    val = raw == "true"
                else:
                    val = raw                    # an enum's name
            stack[-1][name].append(val)
        else:
            m2 = re.compile(r"\s*\{").match(text, pos)
            if m2 is None:
                fail("protoc text: no '{' after %s" % name)
            pos = m2.end()
            child = collections.defaultdict(list)
            stack[-1][name].append(child)
            stack.append(child)
    return stack[0]


def one(msg, field, default=None):
    v = msg.get(field, [])
    return v[0] if v else default


# --------------------------------------------------------------------------
# The replay.
# --------------------------------------------------------------------------
class Replay:
    def __init__(self, trace):
        self.slices = []        # (track uuid, name, cat, ts, dur, args)
        self.instants = []      # (track uuid, name, cat, ts, args)
        self.counters = []      # (track uuid, ts, value)
        self.tracks = {}        # uuid -> descriptor dict
        interned = {k: {} for k in ("event_names", "event_categories",
                                    "debug_annotation_names",
                                    "debug_annotation_string_values")}
        open_ = collections.defaultdict(list)
        packets = trace.get("packet", [])
        if not packets:
            fail("no packets")
        first = packets[0]
        if one(first, "sequence_flags") != 1 or not one(first, "first_packet_on_sequence"):
            fail("the first packet does not clear the incremental state")
        snap = one(first, "clock_snapshot")
        clocks = {one(c, "clock_id"): c for c in snap.get("clocks", [])}
        defaults = one(first, "trace_packet_defaults")
        clock = one(defaults, "timestamp_clock_id")
        if clock not in clocks or not one(clocks[clock], "is_incremental"):
            fail("the default clock %s is not an incremental clock of the snapshot" % clock)
        if one(clocks.get(6, {}), "timestamp") != one(clocks[clock], "timestamp"):
            fail("the incremental clock is not tied to BOOTTIME at its start")
        now = one(clocks[clock], "timestamp")
        self.origin = now
        last_abs = now
        for k, pkt in enumerate(packets[1:], 1):
            seq = one(pkt, "trusted_packet_sequence_id")
            if seq != 1:
                fail("packet %d: sequence %s" % (k, seq))
            ts = None
            if "timestamp" in pkt:
                if one(pkt, "timestamp_clock_id") == 6:
                    ts = one(pkt, "timestamp")
                else:
                    now += one(pkt, "timestamp")
                    ts = now
            for idata in pkt.get("interned_data", []):
                for kind, table in interned.items():
                    for e in idata.get(kind, []):
                        iid = one(e, "iid")
                        val = one(e, "name", one(e, "str"))
                        if iid in table:
                            fail("packet %d: %s iid %d defined twice" % (k, kind, iid))
                        table[iid] = val
            for td in pkt.get("track_descriptor", []):
                uuid = one(td, "uuid")
                if uuid in self.tracks:
                    fail("packet %d: track %d described twice" % (k, uuid))
                self.tracks[uuid] = td
            for te in pkt.get("track_event", []):
                if ts is None:
                    fail("packet %d: a track event without a timestamp" % k)
                if ts < last_abs:
                    fail("packet %d: ts %d before %d" % (k, ts, last_abs))
                last_abs = ts
                uuid = one(te, "track_uuid")
                if uuid not in self.tracks:
                    fail("packet %d: track %s not described before" % (k, uuid))

                def lookup(kind, iid):
                    if iid not in interned[kind]:
                        fail("packet %d: %s iid %s used before it is defined" % (k, kind, iid))
                    return interned[kind][iid]
                name = lookup("event_names", one(te, "name_iid")) if "name_iid" in te else one(te, "name")
                cats = [lookup("event_categories", c) for c in te.get("category_iids", [])]
                args = {}
                for da in te.get("debug_annotations", []):
                    key = lookup("debug_annotation_names", one(da, "name_iid"))
                    if "string_value_iid" in da:
                        val = lookup("debug_annotation_string_values", one(da, "string_value_iid"))
                    else:
                        val = None
                        for f in ("int_value", "uint_value", "pointer_value",
                                  "double_value", "string_value", "legacy_json_value"):
                            if f in da:
                                val = one(da, f)
                    args[key] = val
                typ = one(te, "type")
                cat = cats[0] if cats else None
                if typ == "TYPE_SLICE_BEGIN":
                    open_[uuid].append((name, cat, ts, args))
                elif typ == "TYPE_SLICE_END":
                    if not open_[uuid]:
                        fail("packet %d: SLICE_END on track %d with nothing open" % (k, uuid))
                    n0, c0, t0, a0 = open_[uuid].pop()
                    a0 = dict(a0)
                    a0.update(args)
                    self.slices.append((uuid, n0, c0, t0, ts - t0, a0))
                elif typ == "TYPE_INSTANT":
                    self.instants.append((uuid, name, cat, ts, args))
                elif typ == "TYPE_COUNTER":
                    self.counters.append((uuid, ts, one(te, "double_counter_value")))
                else:
                    fail("packet %d: track event type %s" % (k, typ))
        left = {u: s for u, s in open_.items() if s}
        if left:
            fail("slices left open at the end: %s" % {u: len(s) for u, s in left.items()})

    def thread(self, uuid):
        td = self.tracks[uuid]
        th = one(td, "thread")
        if th is None:
            fail("track %d is not a thread's" % uuid)
        return one(th, "pid"), one(th, "tid")

    def thread_names(self):
        out = {}
        for td in self.tracks.values():
            th = one(td, "thread")
            if th is not None:
                out[(one(th, "pid"), one(th, "tid"))] = one(th, "thread_name")
        return out


def export(session, out, *extra):
    p = run([TS, "export", "--format", "perfetto", "-o", out] + list(extra) + [session])
    return p.stderr.decode()


def decode(path):
    with open(path, "rb") as f:
        p = subprocess.run(["protoc", "--decode=perfetto.protos.Trace",
                            "perfetto_trace.proto"], stdin=f,
                           capture_output=True, cwd=PROTO_DIR)
    if p.returncode != 0:
        fail("protoc --decode failed on %s: %s" % (path, p.stderr.decode()[:400]))
    return Replay(parse_text(p.stdout.decode()))


def compare(what, got, want):
    got_c, want_c = collections.Counter(got), collections.Counter(want)
    if got_c != want_c:
        extra = list((got_c - want_c).items())[:5]
        missing = list((want_c - got_c).items())[:5]
        fail("%s: %d in the file, %d in the session; only in the file: %s; "
             "only in the session: %s" % (what, len(got), len(want), extra, missing))
    print("  %s: %d, the same" % (what, len(got)))


# --------------------------------------------------------------------------
# The session's side, through SQL.
# --------------------------------------------------------------------------
def tables(session):
    info = json.loads(run([TS, "info", "--json", session]).stdout)
    return {s["name"]: s.get("records", s.get("rows", 0)) for s in info["stores"]}


def check_session(session, r, lo=None, hi=None):
    """Every store's rows in the window against the replay."""
    have = tables(session)
    lo_sql = "" if lo is None else " AND ts >= %d" % lo
    hi_sql = "" if hi is None else " AND ts <= %d" % hi
    by_thread = [(r.thread(u)[1], n, t, d) for (u, n, c, t, d, a) in r.slices
                 if r.thread(u)[0] != CPU_PID and n != "kvm exited"]
    if "span" in have:
        want = []
        for row in sql(session, "SELECT tid, name, ts, dur, flags FROM span WHERE flags & 4 = 0"):
            ts, end = row["ts"], row["ts"] + max(row["dur"] or 0, 0)
            if lo is not None:
                if end < lo:
                    continue
                ts = max(ts, lo)
            if hi is not None:
                if row["ts"] > hi:
                    continue
                end = min(end, hi)
            want.append((row["tid"], row["name"] or "", ts, end - ts))
        compare("spans (tid, name, ts, dur)", by_thread, want)
    inst = [(r.thread(u)[1], n, t) for (u, n, c, t, a) in r.instants]
    want = []
    # (A row without a tid is on thread 0, as the export writes it.)
    if "ftrace_event" in have:
        want += [(x["tid"] or 0, x["name"] or "", x["ts"]) for x in
                 sql(session, "SELECT tid, name, ts FROM ftrace_event WHERE 1" + lo_sql + hi_sql)]
    if "page_fault" in have:
        want += [(x["tid"], x["name"], x["ts"]) for x in
                 sql(session, "SELECT tid, coalesce(name, 'page_fault') AS name, ts "
                              "FROM page_fault WHERE 1" + lo_sql + hi_sql)]
    if "span" in have:
        want += [(x["tid"], x["name"] or "", x["ts"]) for x in
                 sql(session, "SELECT tid, name, ts FROM span WHERE flags & 4" + lo_sql + hi_sql)]
    compare("instants (tid, name, ts)", inst, want)
    if "page_fault" in have:
        got = sorted((t, a.get("address")) for (u, n, c, t, a) in r.instants
                     if c == "page_fault")
        want = sorted((x["ts"], x["address"]) for x in
                      sql(session, "SELECT ts, address FROM page_fault WHERE 1" + lo_sql + hi_sql))
        compare("page faults' addresses (pointer_value)", got, want)
    last = None
    for t in ("span", "ftrace_event", "page_fault", "kvm_exit", "counter",
              "sched_switch"):
        if have.get(t):
            m = sql(session, "SELECT max(ts) AS m FROM %s" % t)[0]["m"]
            if m is not None:
                last = m if last is None else max(last, m)
    if hi is not None and last is not None:
        last = min(last, hi)
    if have.get("kvm_exit"):
        # On the vcpu's thread, or where a thread has exits of several
        # vcpus (kvmtrace), on a thread per vcpu "vcpu N (tid T)"; one
        # without an entry lasts until its vcpu's next exit, or the end.
        rows = sql(session, "SELECT tid, vcpu, ts, dur, reason FROM kvm_exit "
                            "WHERE 1" + lo_sql + hi_sql + " ORDER BY ts, id")
        vcpus = collections.defaultdict(set)
        for x in sql(session, "SELECT tid, vcpu FROM kvm_exit"):
            vcpus[x["tid"]].add(x["vcpu"])
        nxt, want = {}, []
        for x in reversed(rows):
            lane = (x["tid"], x["vcpu"])
            end = x["ts"] + x["dur"] if x["dur"] is not None else nxt.get(lane, last)
            if hi is not None:
                end = min(end, hi)
            where = ("vcpu %d (tid %d)" % (x["vcpu"], x["tid"])
                     if len(vcpus[x["tid"]]) > 1 else x["tid"])
            want.append((where, x["ts"], end - x["ts"], x["reason"]))
            nxt[lane] = x["ts"]
        names = r.thread_names()
        got = []
        for (u, n, c, t, d, a) in r.slices:
            if n != "kvm exited":
                continue
            pid, tid = r.thread(u)
            name = names.get((pid, tid)) or ""
            where = name if re.fullmatch(r"vcpu \d+ \(tid \d+\)", name) else tid
            got.append((where, t, d, a.get("reason")))
        compare("kvm exits (thread or vcpu thread, ts, dur, reason)", got, want)
    if "counter" in have:
        names = {}
        for u, td in r.tracks.items():
            if one(td, "counter") is not None:
                names[u] = one(td, "name")
        got = [(names[u], t, v) for (u, t, v) in r.counters]
        want = []
        for x in sql(session, "SELECT name, cpu, ts, value FROM counter WHERE 1" + lo_sql + hi_sql):
            n = x["name"] if x["cpu"] is None else "%s cpu%d" % (x["name"], x["cpu"])
            want.append((n, x["ts"], float(x["value"])))
        compare("counter values (track, ts, value)", got, want)
    if have.get("sched_switch"):
        # Per CPU: the task switched to runs until the next switch on that
        # CPU (or the last ts of the exported stores, or the window's end);
        # pid 0 has none, nor a task switched to outside the window.
        rows = sql(session, "SELECT cpu, ts, next_pid, next_comm, prev_state "
                            "FROM sched_switch WHERE 1" + lo_sql + hi_sql +
                            " ORDER BY ts, id")
        openc, want = {}, []
        for x in rows:
            c = x["cpu"]
            if c in openc:
                s = openc.pop(c)
                want.append((c, s[1], s[0], x["ts"] - s[0], x["prev_state"]))
            if x["next_pid"]:
                openc[c] = (x["ts"], x["next_comm"] or "tid %d" % x["next_pid"])
        for c, s in openc.items():
            want.append((c, s[1], s[0], last - s[0], None))
        got = []
        for (u, n, c, t, d, a) in r.slices:
            pid, tid = r.thread(u)
            if pid == CPU_PID:
                got.append((CPU_PID - 1 - tid, n, t, d, a.get("end_state")))
        compare("CPU slices (cpu, task, ts, dur, end_state)", got, want)
    names = r.thread_names()
    if "thread" in have:
        want = {}
        for x in sql(session, "SELECT tid, comm FROM thread ORDER BY id"):
            if x["comm"] is not None:
                want[x["tid"]] = x["comm"]
        bad = [(tid, n, want[tid]) for (pid, tid), n in names.items()
               if tid in want and pid != CPU_PID and n != want[tid]]
        if bad:
            fail("thread names differ from the thread store: %s" % bad[:5])
        print("  thread names: %d tracks, as the thread store names them" % len(names))


def session_of(name, *files):
    s = os.path.join(WORK, name)
    shutil.rmtree(s, ignore_errors=True)
    run([TS, "import", "-o", s] + list(files))
    return s


def size_of_json(session):
    j = os.path.join(WORK, "same.json")
    run([TS, "export", "-o", j, session])
    return os.path.getsize(j)


def main():
    if shutil.which("protoc") is None:
        print("protoc is not installed (Debian protobuf-compiler)")
        sys.exit(77)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    cap = os.path.join(SHARED, "data", "capture-1")
    out = os.path.join(WORK, "out.pftrace")
    if CASE == "capture":
        s = session_of("capture", os.path.join(cap, "trace.dat"),
                       os.path.join(cap, "uftrace.data"),
                       os.path.join(cap, "perf-stat.txt"))
        export(s, out)
        check_session(s, decode(out))
        pb, js = os.path.getsize(out), size_of_json(s)
        print("  %d bytes, the JSON export %d: %.1fx smaller" % (pb, js, js / pb))
        if js < 2.5 * pb:
            fail("the protobuf is not much smaller than the JSON (%d vs %d)" % (pb, js))
    elif CASE == "etw":
        s = session_of("etw", os.path.join(SHARED, "data", "etw", "ShutdownPerfDiagLogger.etl"))
        export(s, out)
        check_session(s, decode(out))
    elif CASE == "kvmtrace":
        # Its string columns hold NULL ids: the export once kept a bit per
        # possible id up to them (527 MB).  Bound: 200 MB, ASan included.
        s = session_of("kvmtrace", os.path.join(SHARED, "data", "kvmtrace", "sample.bin"))
        export(s, out)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
        if rss > 200:
            fail("the export's peak RSS is %d MB" % rss)
        print("  peak RSS of the processes so far: %d MB" % rss)
        check_session(s, decode(out))
    elif CASE == "nesting":
        # Written child first: at one ts the file must open the parent
        # first, or SLICE_END pairs the wrong begins; of two equal ends
        # (parent and tail) the inner one must close first.
        events = [
            {"ph": "X", "name": "child", "ts": 10, "dur": 5, "pid": 7, "tid": 8},
            {"ph": "X", "name": "parent", "ts": 10, "dur": 20, "pid": 7, "tid": 8,
             "args": {"n": 1, "s": "x"}},
            {"ph": "X", "name": "zero", "ts": 30, "dur": 0, "pid": 7, "tid": 8},
            {"ph": "X", "name": "next", "ts": 30, "dur": 4, "pid": 7, "tid": 8},
            {"ph": "X", "name": "grandchild", "ts": 10, "dur": 1, "pid": 7, "tid": 8},
            {"ph": "X", "name": "tail", "ts": 25, "dur": 5, "pid": 7, "tid": 8},
            {"ph": "X", "name": "other", "ts": 12, "dur": 30, "pid": 7, "tid": 9},
            {"ph": "i", "name": "mark", "ts": 15, "pid": 7, "tid": 8, "s": "t"},
            {"ph": "C", "name": "mem", "ts": 11, "pid": 7, "args": {"value": 2.5}},
            {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": "main"}},
        ]
        src = os.path.join(WORK, "nesting.json")
        with open(src, "w") as f:
            json.dump({"traceEvents": events}, f)
        s = session_of("nesting", src)
        export(s, out)
        r = decode(out)
        check_session(s, r)
        args = [a for (u, n, c, t, d, a) in r.slices if n == "parent"][0]
        if json.loads(args.get("args", "null")) != {"n": 1, "s": "x"}:
            fail("the parent's args: %r" % args)
        print("  parent's args: legacy_json_value %s" % args["args"])
    elif CASE == "window":
        # Two windows of one session: the middle third of the longest
        # uftrace span (the spans crossing it cut to it), and the tenth to
        # the half of the sched_switch rows' span (CPU slices open at its
        # end cut there).
        s = session_of("window", os.path.join(cap, "trace.dat"),
                       os.path.join(cap, "uftrace.data"))
        sp = sql(s, "SELECT ts, dur FROM span ORDER BY dur DESC LIMIT 1")[0]
        ev = sql(s, "SELECT min(ts) AS a, max(ts) AS b FROM sched_switch")[0]
        for a, b, f, g in ((sp["ts"], sp["ts"] + sp["dur"], 3, 3 / 2),
                           (ev["a"], ev["b"], 10, 2)):
            lo, hi = a + (b - a) // f, a + int((b - a) // g)
            cut = sql(s, "SELECT count(*) AS n FROM span WHERE ts < %d AND ts + dur > %d"
                         % (lo, lo))[0]["n"]
            cut += sql(s, "SELECT count(*) AS n FROM sched_switch WHERE ts BETWEEN %d AND %d"
                          % (lo, hi))[0]["n"]
            if cut == 0:
                fail("nothing crosses the window [%d, %d]: the case tests nothing" % (lo, hi))
            export(s, out, "--from", str(lo), "--to", str(hi))
            print(" [%d, %d]:" % (lo, hi))
            check_session(s, decode(out), lo, hi)
    elif CASE == "formats":
        s = session_of("formats", os.path.join(DATA, "kvm-exit-entry.txt"))
        for name in ("a.pftrace", "a.perfetto-trace"):
            p = run([TS, "export", "-o", os.path.join(WORK, name), s])
            if "bytes of protobuf" not in p.stderr.decode():
                fail("-o %s: not written as protobuf: %s" % (name, p.stderr.decode()))
            decode(os.path.join(WORK, name))
        p = run([TS, "export", "-o", os.path.join(WORK, "a.json"), s])
        json.load(open(os.path.join(WORK, "a.json")))
        p = run([TS, "export", "--format", "proto", "-o", out, s], ok=False)
        if p.returncode == 0 or "unknown format 'proto'" not in p.stderr.decode():
            fail("--format proto: exit %d, %s" % (p.returncode, p.stderr.decode()))
        p = run([TS, "export", "--format", "perfetto", "-o",
                 os.path.join(WORK, "no", "such", "dir", "x.pftrace"), s], ok=False)
        if p.returncode == 0 or "cannot create" not in p.stderr.decode():
            fail("an output that cannot be created: exit %d, %s" % (p.returncode, p.stderr.decode()))
        # A FIFO (as /dev/null, not a regular file) is written in place:
        # a temporary file renamed over it would replace it.
        fifo = os.path.join(WORK, "pipe.pftrace")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()),
                                  daemon=True)
        reader.start()
        run([TS, "export", "-o", fifo, s], timeout=60)
        reader.join(60)
        if not stat.S_ISFIFO(os.stat(fifo).st_mode) or not got or not got[0]:
            fail("-o FIFO: replaced, or nothing came through it")
        with open(out, "wb") as f:
            f.write(got[0])
        decode(out)
        print("  -o *.pftrace and *.perfetto-trace write protobuf; a FIFO stays one; errors named")
    else:
        fail("unknown case " + CASE)
    print("PASS", CASE)


main()
