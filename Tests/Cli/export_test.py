#!/usr/bin/env python3
"""export_test.py: `tracestore export` against seeds/001's merge.py.

Usage: export_test.py TRACESTORE SHARED_DIR DATA_DIR WORKDIR CASE
                      [LIVEWRITER [FAULTPAIR]]

The oracle is ../shared/tools/merge_reference.py (seeds/001's merge.py made
runnable; merge_reference.md), run here on ../shared/data/capture-1, and
the producers' own reports (trace-cmd report).  Expected values are never
taken from tracestore's output.

Deliberate differences from merge.py, each checked as a correspondence:
  - real pids/tids: merge.py puts every trace-cmd event on pid 77 / tid 77
    and leaves uftrace events without tid; tracestore uses the event's own
    task (compared here by name and ts only).
  - ns: ts are µs on a 2^-14 µs grid, each the nearest to its ns (read
    here as that ns, as `tracestore import` does); merge.py's floats (raw/1000.0)
    are compared within 1 ns.
  - uftrace calls are X slices (ts, dur) where merge.py copies uftrace's
    B/E pairs; a B/E pair is matched to an X by name and (begin, end).
  - trace-cmd events are instants (I, the phase Chrome writes and DevTools'
    trace engine reads; it drops "i") with their fields as args, not
    0.3 µs X slices with no args; page faults are instants with address,
    ip, error code; sched_switch is per-CPU B/E slices of the task switched
    to (none for the idle task): merge.py's "sched_switch" X at each switch
    corresponds to a B or E at that ts.
  - merge.py drops every trace-cmd line before the first one containing
    "kvm_" (the "header"); tracestore keeps them: the extra events are
    exactly the report's lines before that one.
  - M events: tracestore names every process and thread by its comm
    ("fib"), merge.py copies uftrace's "[11576] fib"; -F drops merge.py's
    M events (ts 0), --window kvm keeps tracestore's.
  - counters: merge.py places perf stat samples at (fts - 50000) + t*1e6
    and upscales by the running percentage; tracestore keeps t (the
    interval's end, ns since perf started) and the count: compared as
    ts_ref - (fts - 50000) == t and value == count/(pct/100) (100% here).
    Counter args are {"value": V} rather than {NAME: V}.
"""
import collections
import decimal
import json
import os
import re
import shutil
import subprocess
import sys

TS, SHARED, DATA, WORK, CASE = sys.argv[1:6]
LIVEWRITER = sys.argv[6] if len(sys.argv) > 6 else None
FAULTPAIR = sys.argv[7] if len(sys.argv) > 7 else None
CAP = os.path.join(SHARED, "data", "capture-1")
REF = os.path.join(SHARED, "tools", "merge_reference.py")
UF = os.path.join(CAP, "uftrace.data")
DAT = os.path.join(CAP, "trace.dat")
TOL = 0.0011      # µs: merge.py's float ts against exact ns


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, ok=True, **kw):
    p = subprocess.run(args, capture_output=True, **kw)
    if ok and p.returncode != 0:
        fail("%s exited %d: %s" % (args, p.returncode,
                                   p.stderr.decode(errors="replace")))
    return p


def fresh(name):
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    return d


def floats(v):
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, dict):
        return {k: floats(x) for k, x in v.items()}
    if isinstance(v, list):
        return [floats(x) for x in v]
    return v


def to_ns_us(v):
    """A ts or dur of the file (us on a 2^-14 us grid, the nearest to its
    ns) as the exact us of that ns, as `tracestore import` reads it back."""
    v = decimal.Decimal(v)
    return (v * 1000).to_integral_value(decimal.ROUND_HALF_UP) / 1000


def load(path):
    """The export with ts made absolute again (exactly: ts, as the ns it
    stands for, + origin_ns in decimal, then the nearest double, as the
    absolute text would parse); dur as its ns.  Checks on the way what
    every viewer needs: ts count from the first event (0), and every B and
    E event has a name."""
    with open(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")          # strict: the file must be UTF-8
    doc = json.loads(text, parse_float=decimal.Decimal)
    other = doc.get("otherData", {}) if isinstance(doc, dict) else {}
    origin = decimal.Decimal(other.get("origin_ns", 0)) / 1000
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    stamped = [e["ts"] for e in events if "ts" in e and e.get("ph") != "M"]
    if "origin_ns" in other and stamped and (
            min(stamped) < 0 or ("from_ns" not in other and min(stamped) != 0)):
        fail("%s: the first event's ts is %s, not 0" % (path, min(stamped)))
    unnamed = [e for e in events if e.get("ph") in ("B", "E") and "name" not in e]
    if unnamed:
        fail("%s: %d B/E events without a name, e.g. %s" % (path, len(unnamed), unnamed[0]))
    for e in events:
        if "ts" in e:
            e["ts"] = to_ns_us(e["ts"]) + origin
        if isinstance(e.get("dur"), (int, decimal.Decimal)):
            e["dur"] = to_ns_us(e["dur"])
    return floats(doc)


def perf_stat_filtered():
    """perf-stat.txt without task-clock (merge_reference.md, note 7)."""
    out = os.path.join(WORK, "perf-stat-no-task-clock.txt")
    with open(os.path.join(CAP, "perf-stat.txt")) as f:
        lines = [l for l in f if "task-clock" not in l]
    with open(out, "w") as f:
        f.writelines(lines)
    return out


def reference(name, *opts):
    out = os.path.join(WORK, name + ".json")
    if os.path.exists(out):
        os.unlink(out)
    p = run([sys.executable, REF, UF, out] + list(opts), cwd=WORK)
    return load(out), p.stdout.decode()


def export(session, name, *opts):
    """Exports to WORK/NAME.json; the file gets the mode any new file
    gets (0666 less the umask), as a shell redirection would make it."""
    out = os.path.join(WORK, name + ".json")
    run([TS, "export", "-o", out] + list(opts) + [session])
    mask = os.umask(0)
    os.umask(mask)
    mode = os.stat(out).st_mode & 0o777
    if mode != 0o666 & ~mask:
        fail("%s has mode %o, not %o" % (out, mode, 0o666 & ~mask))
    return load(out)


def import_capture(name, *files):
    s = fresh(name)
    run([TS, "import", "-o", s] + list(files))
    return s


def report_lines():
    """trace-cmd report with raw ns timestamps: (ts_us, name, line)."""
    p = run(["trace-cmd", "report", "-q", "--raw-ts", "-i", DAT])
    out = []
    for line in p.stdout.decode().splitlines():
        m = re.search(r"\[\d{3}\]\s*(\d+): ([^ :]+):", line)
        if m:
            out.append((int(m.group(1)) / 1000.0, m.group(2), line))
    return out


def ref_slices(events):
    """merge.py's uftrace B/E as {name: [(b, e)]}, matched per stack."""
    stacks = collections.defaultdict(list)
    out = collections.defaultdict(list)
    for e in events:
        if e["ph"] == "B":
            stacks[(e["pid"], e.get("tid"))].append(e)
        elif e["ph"] == "E":
            b = stacks[(e["pid"], e.get("tid"))].pop()
            if b["name"] != e["name"]:
                fail("reference B/E misaligned at %s" % e)
            out[b["name"]].append((b["ts"], e["ts"]))
    return out


def close(a, b):
    if len(a) != len(b):
        return False
    return all(abs(x - y) <= TOL for x, y in zip(sorted(a), sorted(b)))


def by_name(events, ph):
    out = collections.defaultdict(list)
    for e in events:
        if e["ph"] == ph:
            out[e["name"]].append(e["ts"])
    return out


def sched_ts(events):
    """ts of tracestore's per-CPU slice edges made by a switch."""
    ts = set()
    for e in events:
        if e.get("cat") == "sched" and e["ph"] == "X":
            ts.add(e["ts"])
            if "end_state" in e.get("args", {}):     # not the window's end
                ts.add(e["ts"] + e["dur"])
    return ts


def check_kv(ours, ref, lo):
    """The trace-cmd part: every merge.py X (name, ts) at or after lo."""
    kv = collections.defaultdict(list)
    for e in ref:
        if e["ph"] == "X" and e.get("pid") == 77:
            kv[e["name"]].append(e["ts"])
    inst = by_name([e for e in ours if e["ts"] >= lo - TOL], "I")
    for name, tss in kv.items():
        if name == "sched_switch":
            continue
        if not close(inst.get(name, []), tss):
            fail("%s: %d instants, reference %d X (or ts differ)" % (
                name, len(inst.get(name, [])), len(tss)))
    extra = set(inst) - set(kv)
    if extra:
        fail("instants the reference has not: %s" % sorted(extra))
    # sched_switch: a B or E at each switch merge.py lists, none elsewhere.
    want = kv.get("sched_switch", [])
    got = sorted(t for t in sched_ts(ours) if t >= lo - TOL)
    for t in got:
        if not any(abs(t - w) <= TOL for w in want):
            fail("sched slice edge at %s is no sched_switch" % t)
    return kv


def case_oracle_full():
    """Run B (-k trace.dat -O 0) against a full export."""
    s = import_capture("full", UF, DAT)
    ours = export(s, "full")["traceEvents"]
    ref, _ = reference("B", "-k", DAT, "-O", "0")
    ref = ref["traceEvents"]
    # uftrace calls: X (ts, ts+dur) == B/E pairs.
    rs = ref_slices(ref)
    xs = collections.defaultdict(list)
    for e in ours:
        if e["ph"] == "X" and e.get("cat") != "sched":
            xs[e["name"]].append((e["ts"], e["ts"] + e["dur"]))
    if set(xs) != set(rs):
        fail("slice names %s != reference %s" % (sorted(xs), sorted(rs)))
    for name in rs:
        if len(xs[name]) != len(rs[name]):
            fail("%s: %d slices, reference %d" % (name, len(xs[name]),
                                                  len(rs[name])))
        for (b, e), (rb, re_) in zip(sorted(xs[name]), sorted(rs[name])):
            if abs(b - rb) > TOL or abs(e - re_) > TOL:
                fail("%s: slice (%s, %s) != reference (%s, %s)" % (
                    name, b, e, rb, re_))
    fts = min(e["ts"] for e in ref if e.get("pid") == 77)
    kv = check_kv(ours, ref, fts)
    # The header merge.py cuts: the report's lines before the first kvm_.
    rep = report_lines()
    first = next(i for i, r in enumerate(rep) if "kvm_" in r[2])
    head = collections.Counter(r[1] for r in rep[:first])
    ours_head = collections.Counter(
        e["name"] for e in ours if e["ph"] == "I" and e["ts"] < fts - TOL)
    head_sched = head.pop("sched_switch", 0)
    if ours_head != head:
        fail("events before the first kvm_ line: %s, report %s" % (
            dict(ours_head), dict(head)))
    # Switches to a task other than the idle one open a slice (report).
    nb = sum(1 for e in ours if e.get("cat") == "sched" and e["ph"] == "X")
    want_b = sum(1 for r in rep if r[1] == "sched_switch"
                 and not re.search(r"next_pid=0 |==> swapper/\d+:0 ", r[2]))
    if nb != want_b:
        fail("%d sched slices, report has %d switches to a task" % (nb,
                                                                    want_b))
    print("ok: %d events; %d uftrace slice names, %d trace-cmd names, "
          "%d header events, %d sched slices" % (
              len(ours), len(rs), len(kv), sum(head.values()) + head_sched,
              nb))


def case_window_kvm():
    """Run D (-O 0 -F) against --window kvm: the same cut."""
    s = import_capture("window", UF, DAT)
    ours = export(s, "window", "--window", "kvm")["traceEvents"]
    ref, _ = reference("D", "-k", DAT, "-O", "0", "-F")
    ref = ref["traceEvents"]
    lo = min(e["ts"] for e in ref)
    hi = max(e["ts"] for e in ref)
    timed = [e for e in ours if e["ph"] != "M"]
    if min(e["ts"] for e in timed) < lo - TOL:
        fail("--window kvm starts before -F's first event %s" % lo)
    if max(e["ts"] for e in timed) > hi + TOL:
        fail("--window kvm ends after -F's last event %s" % hi)
    if any(e["ph"] in ("X", "C") and e.get("cat") != "sched" for e in ours):
        fail("spans or counters inside the kvm window (-F has none)")
    check_kv(ours, ref, lo)
    n_ref = collections.Counter(e["name"] for e in ref)
    n_inst = sum(1 for e in ours if e["ph"] == "I")
    if n_inst != sum(n_ref.values()) - n_ref["sched_switch"]:
        fail("%d instants, -F has %d non-sched events" % (
            n_inst, sum(n_ref.values()) - n_ref["sched_switch"]))
    print("ok: window [%s, %s] µs, %d instants" % (lo, hi, n_inst))


def case_counters():
    """Run W6 (-O 0 -f 2400000 -p) for the perf stat counter tracks."""
    pstat = perf_stat_filtered()
    s = import_capture("counters", UF, DAT, pstat)
    ours = export(s, "counters", "--store", "counter")["traceEvents"]
    ref, _ = reference("W6", "-k", DAT, "-O", "0", "-f", "2400000",
                       "-p", pstat)
    ref = ref["traceEvents"]
    # merge.py's fts: its first trace-cmd event, converted by -f.
    fts = min(e["ts"] for e in ref if e.get("pid") == 77)
    rc = collections.defaultdict(list)
    for e in ref:
        if e["ph"] == "C":
            rc[e["name"]].append((e["ts"] - (fts - 50000),
                                  e["args"][e["name"]]))
    oc = collections.defaultdict(list)
    for e in ours:
        if e["ph"] == "C":
            oc[e["name"]].append((e["ts"], e["args"]["value"]))
    if set(oc) != set(rc):
        fail("counter tracks %s != reference %s" % (sorted(oc), sorted(rc)))
    for name in rc:
        a, b = sorted(oc[name]), sorted(rc[name])
        if len(a) != len(b):
            fail("%s: %d samples, reference %d" % (name, len(a), len(b)))
        for (t, v), (rt, rv) in zip(a, b):
            if abs(t - rt) > 0.01 or abs(v - rv) > 1e-9:
                fail("%s: (%s, %s) != reference (%s, %s)" % (name, t, v,
                                                             rt, rv))
    print("ok: %d counter tracks, %d samples" % (
        len(rc), sum(len(v) for v in rc.values())))


def samples():
    """Every input sample of the tests, and the fuzz regression inputs."""
    out = [os.path.join(CAP, f) for f in sorted(os.listdir(CAP))]
    for f in sorted(os.listdir(DATA)):
        p = os.path.join(DATA, f)
        if f.endswith((".txt", ".data")):
            out.append(p)
    for f in sorted(os.listdir(os.path.join(DATA, "chrome"))):
        if f.endswith(".json"):
            out.append(os.path.join(DATA, "chrome", f))
    fz = os.path.join(DATA, "fuzz-regressions")
    for d in sorted(os.listdir(fz)):
        for f in sorted(os.listdir(os.path.join(fz, d))):
            out.append(os.path.join(fz, d, f))
    return out


def check_strings(v):
    """Every string is text (json already rejected bad escapes)."""
    if isinstance(v, dict):
        for k, x in v.items():
            check_strings(k)
            check_strings(x)
    elif isinstance(v, list):
        for x in v:
            check_strings(x)
    elif isinstance(v, str):
        if any(0xd800 <= ord(c) <= 0xdfff for c in v):
            fail("lone surrogate in %r" % v)


def case_json_samples():
    n = 0
    for i, path in enumerate(samples()):
        s = fresh("sample-%d" % i)
        p = run([TS, "import", "-o", s, path], ok=False)
        if not os.path.exists(os.path.join(s, "session.tracer")):
            continue        # not an input tracestore reads at all
        out = os.path.join(WORK, "sample-%d.json" % i)
        run([TS, "export", "-o", out, s])
        d = load(out)
        check_strings(d)
        if not isinstance(d.get("traceEvents"), list):
            fail("%s: no traceEvents" % path)
        n += 1
    if n < 10:
        fail("only %d samples exported" % n)
    print("ok: %d samples parse" % n)


HOSTILE = (b'{"traceEvents":['
           b'{"ph":"X","name":"quote\\" back\\\\slash","pid":1,"tid":1,'
           b'"ts":1.5,"dur":2,"args":{"k":"v"}},'
           b'{"ph":"X","name":"ctl\\u0001\\n\\t","pid":1,"tid":1,"ts":2,'
           b'"dur":0.5},'
           b'{"ph":"i","name":"bytes \xff\xfe \xc3\xa9","pid":1,"tid":1,'
           b'"ts":3,"args":{"a":"\x80"}},'
           b'{"ph":"M","name":"thread_name","pid":1,"tid":1,'
           b'"args":{"name":"t\\"\\u0001"}}'
           b']}')


def case_escaping():
    src = os.path.join(WORK, "hostile.json")
    with open(src, "wb") as f:
        f.write(HOSTILE)
    s = fresh("hostile")
    run([TS, "import", "-o", s, src])
    d = export(s, "hostile-out")
    check_strings(d)
    names = {e["name"] for e in d["traceEvents"]}
    for want in ('quote" back\\slash', "ctl\x01\n\t",
                 "bytes \ufffd\ufffd \u00e9"):
        if want not in names:
            fail("name %r not in %r" % (want, names))
    print("ok: quotes, control bytes and non-UTF-8 bytes escaped")


def counts(events):
    """Per (ph, name): slices, instants, counters, with their ts.  A B/E
    pair (the per-CPU sched slices) is a slice: it comes back as X."""
    out = collections.defaultdict(list)
    open_ = {}
    for e in events:
        if e["ph"] == "B":
            open_[(e["pid"], e["tid"])] = e
        elif e["ph"] == "E":
            b = open_.pop((e["pid"], e["tid"]))
            out[("X", b["name"])].append((b["ts"], round(e["ts"] - b["ts"],
                                                         3)))
        elif e["ph"] in ("X", "I"):
            out[(e["ph"], e["name"])].append((e["ts"], e.get("dur")))
        elif e["ph"] == "C":
            for k, v in e["args"].items():
                out[("C", e["name"])].append((e["ts"], v))
    return out


def case_round_trip():
    """Import of an export gives the same spans, instants, counters.
    tracestore's Chrome reader names a counter sample "NAME KEY" (as
    Perfetto does), so "page-faults" comes back as "page-faults value";
    args come back as the exported JSON (the ftrace fields under "args")."""
    inputs = [[UF, DAT, perf_stat_filtered()]] + [[p] for p in samples()]
    n = 0
    for i, files in enumerate(inputs):
        s = fresh("rt-%d" % i)
        run([TS, "import", "-o", s] + files, ok=False)
        if not os.path.exists(os.path.join(s, "session.tracer")):
            continue
        n += 1
        first = export(s, "rt-%d-a" % i)
        s2 = fresh("rt-%d-b" % i)
        run([TS, "import", "-o", s2, os.path.join(WORK, "rt-%d-a.json" % i)])
        second = export(s2, "rt-%d-b" % i)
        a = counts(first["traceEvents"])
        b = counts(second["traceEvents"])
        a = {(k[0], k[1] + " value" if k[0] == "C" else k[1]): sorted(v)
             for k, v in a.items()}
        b = {k: sorted(v) for k, v in b.items()}
        if a != b:
            diff = {k: (len(a.get(k, [])), len(b.get(k, [])))
                    for k in set(a) | set(b) if a.get(k) != b.get(k)}
            fail("%s: round trip differs: %s" % (files, diff))
        print("ok: %s: %d kinds of events round-trip" % (
            [os.path.basename(f) for f in files], len(a)))
    if n < 10:
        fail("only %d samples round-tripped" % n)


def case_bad_input():
    s = import_capture("bad", UF, DAT)
    out = os.path.join(WORK, "bad.json")
    if os.path.exists(out):
        os.unlink(out)
    p = run([TS, "export", "--store", "nosuch", "-o", out, s], ok=False)
    err = p.stderr.decode()
    if p.returncode != 1 or "unknown store 'nosuch'" not in err:
        fail("unknown store: exit %d, %r" % (p.returncode, err))
    if os.path.exists(out):
        fail("unknown store left %s" % out)
    # A window without events: a valid trace with no timed events.
    d = export(s, "empty", "--from", "1s", "--to", "2s")
    if any(e["ph"] != "M" for e in d["traceEvents"]):
        fail("empty window has events")
    d = export(s, "empty2", "--from", "5", "--to", "4")
    if d["traceEvents"]:
        fail("from > to has events")
    # Unwritable output: a clear message, exit 1, nothing left behind.
    ro = os.path.join(WORK, "ro")
    shutil.rmtree(ro, ignore_errors=True)
    os.mkdir(ro)
    os.chmod(ro, 0o555)
    target = os.path.join(ro, "x.json")
    p = run([TS, "export", "-o", target, s], ok=False)
    err = p.stderr.decode()
    left = os.listdir(ro)
    os.chmod(ro, 0o755)
    if os.geteuid() != 0:
        if p.returncode != 1 or "cannot create" not in err or left:
            fail("read-only dir: exit %d, %r, left %s" % (p.returncode, err,
                                                          left))
    p = run([TS, "export", "-o", "/nonexistent-dir/x.json", s], ok=False)
    if p.returncode != 1 or "/nonexistent-dir/x.json" not in p.stderr.decode():
        fail("missing dir: exit %d, %r" % (p.returncode, p.stderr))
    # A full device behind standard output: exit 1, with the reason.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "wb") as full:
            p = subprocess.run([TS, "export", s], stdout=full,
                               stderr=subprocess.PIPE)
        if p.returncode != 1 or b"writing" not in p.stderr:
            fail("/dev/full: exit %d, %r" % (p.returncode, p.stderr))
    p = run([TS, "export", "-o", out, "/nonexistent-session"], ok=False)
    if p.returncode != 1 or os.path.exists(out):
        fail("missing session: exit %d" % p.returncode)
    p = run([TS, "export", "--from", "1.5", s], ok=False)
    if p.returncode != 2 or "not a time" not in p.stderr.decode():
        fail("bad time: exit %d" % p.returncode)
    print("ok: unknown store, empty window, unwritable output, bad session")


GUEST_HOST = b"""# tracer: nop
#
            qemu-1234    [000] .....   100.000000: kvm_write_tsc_offset: vcpu=0 prev=0 next=18446744073709051616
            qemu-1234    [000] .....   100.000100: kvm_pio: pio_write at 0x3f8 size 1 count 1 val 0x61
"""

GUEST_JSON = b"""{"traceEvents":[
{"ph":"X","name":"guest_fn","pid":5,"tid":6,"ts":1000.000,"dur":2.000},
{"ph":"i","name":"guest_mark","pid":5,"tid":6,"ts":1001.001}
]}
"""


def case_guest_tsc():
    """A guest's Chrome trace in TSC counts (ts field = ticks / 1000) and
    the host's kvm_write_tsc_offset, aligned at import.  By hand:
      offset: next = 2^64 - 500000, as signed 64-bit = -500000 ticks
      TSC at 2000 MHz: ns = floor(ticks / 2)
      guest_fn  ticks 1000000 .. 1002000; host = guest - offset
                = 1500000 .. 1502000 -> 750000 .. 751000 ns, + 7 ns
                = ts 750.007 µs, dur 1.000 µs
      guest_mark ticks 1001001 -> 1501001 -> floor 750500.5 = 750500,
                + 7 = 750.507 µs
    """
    host = os.path.join(WORK, "host.txt")
    guest = os.path.join(WORK, "guest-in.json")
    with open(host, "wb") as f:
        f.write(GUEST_HOST)
    with open(guest, "wb") as f:
        f.write(GUEST_JSON)
    s = fresh("guest")
    run([TS, "import", "-o", s, host, "--tsc-mhz", "2000", "--tsc-offset",
         "auto", "--clock-offset", "7", guest])
    ev = {e["name"]: e for e in export(s, "guest")["traceEvents"]}
    fn, mark = ev.get("guest_fn"), ev.get("guest_mark")
    if fn is None or mark is None:
        fail("guest events missing: %s" % sorted(ev))
    if (fn["ph"], fn["ts"], fn["dur"]) != ("X", 750.007, 1.0):
        fail("guest_fn %s, by hand X 750.007 dur 1.000" % fn)
    if (mark["ph"], mark["ts"]) != ("I", 750.507):
        fail("guest_mark %s, by hand I 750.507" % mark)
    # The host trace itself is not moved: kvm_pio at 100.000100 s.
    if ev["kvm_pio"]["ts"] != 100000100.0:
        fail("host event moved: %s" % ev["kvm_pio"])
    # --tsc-khz is the same rate; an explicit offset the same offset.
    s2 = fresh("guest2")
    run([TS, "import", "-o", s2, "--tsc-khz", "2000000", "--tsc-offset",
         "18446744073709051616", "--clock-offset", "7", guest])
    ev2 = {e["name"]: e for e in export(s2, "guest2")["traceEvents"]}
    if ev2["guest_fn"] != fn or ev2["guest_mark"] != mark:
        fail("--tsc-khz/--tsc-offset N differ: %s" % ev2)
    # info shows what was applied to each source.
    info = json.loads(run([TS, "info", "--json", s]).stdout)
    src = {os.path.basename(x["path"]): x for x in info["sources"]}
    want = {"tsc_mhz": 2000, "tsc_offset": -500000, "clock_offset": 7}
    got = {k: src["guest-in.json"][k] for k in want}
    if got != want or src["host.txt"]["tsc_offset"] is not None:
        fail("info sources %s" % src)
    # auto without a host trace: a clear error, exit 1.
    s3 = fresh("guest3")
    p = run([TS, "import", "-o", s3, "--tsc-offset", "auto", guest], ok=False)
    if p.returncode != 1 or b"kvm_write_tsc_offset" not in p.stderr:
        fail("auto without host: exit %d %r" % (p.returncode, p.stderr))
    print("ok: guest TSC aligned as derived by hand")


def check_session_rows_aligned(s, offset):
    """The uftrace session's process and module rows move with its calls:
    their ts is task.txt's SESS timestamp (s.ns, by hand) minus the TSC
    offset merge.py printed (run A: no rate, ticks are ns)."""
    with open(os.path.join(UF, "task.txt"), "rb") as f:
        sess = re.findall(rb"^SESS timestamp=(\d+)\.(\d{9}) pid=(\d+)",
                          f.read(), re.M)
    want = {int(p): int(a) * 10**9 + int(b) - offset for a, b, p in sess}
    for table, ts in (("process", "start_ts"), ("module", "ts")):
        rows = run([TS, "sql", "-c", s, "SELECT DISTINCT pid, %s FROM %s "
                    "WHERE pid IN (%s)" % (ts, table,
                                           ",".join(map(str, want)))]
                   ).stdout.decode().split()[1:]     # after the header
        got = {int(p): int(t) for p, t in (r.split(",") for r in rows)}
        if got != want:
            fail("%s rows at %s, task.txt's SESS minus offset %s" % (
                table, got, want))


def case_oracle_tsc():
    """merge.py's offset and -f against --tsc-offset auto / --tsc-khz on
    the uftrace part.  merge.py prints the offset it determines; run A
    subtracts it from uftrace's ts (µs: offset / 1000), run E then scales
    every ts by 1e6 / kHz.  (merge.py also scales the trace-cmd events,
    which are in ns here; tracestore converts only the input the rate is
    given for, so only the uftrace slices are compared.)"""
    out = {}
    for run_name, opts, clock in (("A", [], []),
                                  ("E", ["-f", "2400000"],
                                   ["--tsc-khz", "2400000"])):
        ref, log = reference(run_name, "-k", DAT, *opts)
        m = re.search(r"Determined offset as \d+ == (-?\d+)", log)
        if not m:
            fail("merge.py printed no offset: %s" % log[:300])
        s = fresh("tsc-" + run_name)
        run([TS, "import", "-o", s, DAT, "--tsc-offset", "auto"] + clock +
            [UF])
        info = json.loads(run([TS, "info", "--json", s]).stdout)
        got = [x["tsc_offset"] for x in info["sources"]
               if x["format"] == "uftrace"]
        if got != [int(m.group(1))]:
            fail("auto offset %s, merge.py %s" % (got, m.group(1)))
        if run_name == "A":
            check_session_rows_aligned(s, int(m.group(1)))
        ours = export(s, "tsc-" + run_name, "--store", "span")["traceEvents"]
        rs = ref_slices(ref["traceEvents"])
        xs = collections.defaultdict(list)
        for e in ours:
            if e["ph"] == "X":
                xs[e["name"]].append((e["ts"], e["ts"] + e["dur"]))
        for name in rs:
            a, b = sorted(xs[name]), sorted(rs[name])
            if len(a) != len(b):
                fail("%s %s: %d slices, reference %d" % (run_name, name,
                                                         len(a), len(b)))
            for (x0, x1), (r0, r1) in zip(a, b):
                if abs(x0 - r0) > TOL or abs(x1 - r1) > TOL:
                    fail("%s %s: (%s, %s) != reference (%s, %s)" % (
                        run_name, name, x0, x1, r0, r1))
        out[run_name] = sum(len(v) for v in rs.values())
    print("ok: offset %s; uftrace slices equal in runs A and E (%s)" % (
        m.group(1), out))


def check_live_export(d, committed=None):
    """LiveWriter's page_fault rows (Tests/Sql/LiveWriter.c): record i has
    ts 1000 + 10*i ns and address i; a snapshot is a prefix 0..N-1."""
    faults = [e for e in d["traceEvents"] if e.get("cat") == "page_fault"]
    n = len(faults)
    for i, e in enumerate(sorted(faults, key=lambda e: e["ts"])):
        want_ts = (1000 + 10 * i) / 1000.0
        if abs(e["ts"] - want_ts) > 1e-9 or e["args"]["address"] != hex(i):
            fail("row %d of %d: %s, by arithmetic ts %s address %s" % (
                i, n, e, want_ts, hex(i)))
    if committed is not None and n != committed:
        fail("%d page faults exported, the writer committed %d" % (
            n, committed))
    return n


def case_snapshot():
    """A session being written exports a consistent snapshot: every store
    a prefix of what was committed when export opened it."""
    if LIVEWRITER is None:
        fail("no LiveWriter given")
    s = fresh("live")
    w = subprocess.Popen([LIVEWRITER, s, "step"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    try:
        w.stdout.readline()             # "committed 0": the session is open
        total = 0
        for batch in (1000, 500):
            w.stdin.write("append %d\n" % batch)
            w.stdin.flush()
            line = w.stdout.readline().split()
            total = int(line[1])
            d = export(s, "live-%d" % total)
            check_live_export(d, total)
        w.stdin.write("quit\n")
        w.stdin.flush()
        w.wait(timeout=30)
    finally:
        if w.poll() is None:
            w.kill()
    # Racing a writer that commits every millisecond.
    s = fresh("live-loop")
    log = open(os.path.join(WORK, "live-loop.log"), "w")
    w = subprocess.Popen([LIVEWRITER, s, "loop", "4", "97", "2000"],
                         stdout=log)
    seen = []
    try:
        import time
        time.sleep(0.3)
        while w.poll() is None and len(seen) < 20:
            out = os.path.join(WORK, "live-loop.json")
            p = run([TS, "export", "-o", out, s], ok=False)
            if p.returncode != 0:
                fail("export while writing: exit %d %r" % (p.returncode,
                                                           p.stderr))
            n = check_live_export(load(out))
            if n % 97:
                fail("%d rows exported: not whole commits of 97" % n)
            seen.append(n)
    finally:
        if w.poll() is None:
            w.terminate()
        w.wait(timeout=30)
    if len(seen) < 2 or seen != sorted(seen):
        fail("snapshots while writing: %s" % seen)
    print("ok: snapshots of a live session: %s" % seen[:8])


def case_kvm_exits():
    """kvm_exit rows as "kvm exited" slices on their vcpu thread.  Oracle:
    the hand-derived rows of Tests/Data/kvm-exit-entry.expected (ts, dur,
    reason, vcpu, tid); an exit without an entry (dur empty) runs to the
    trace's last event, read here from the text file's timestamps.
    (merge.py pairs kvm_exit/kvm_entry with one flag for the whole trace;
    tracestore pairs them per vcpu thread, as the kvm_exit store does.)"""
    src = os.path.join(DATA, "kvm-exit-entry.txt")
    s = import_capture("kvm", src)
    ours = [e for e in export(s, "kvm")["traceEvents"]
            if e["name"] == "kvm exited"]
    last = 0
    with open(src) as f:
        for line in f:
            m = re.search(r"\]\s+\S*\s*(\d+)\.(\d{6}): ", line)
            if m and not line.startswith("#"):
                last = max(last, int(m.group(1)) * 10**9 +
                           int(m.group(2)) * 1000)
    want = []
    with open(os.path.join(DATA, "kvm-exit-entry.expected")) as f:
        for line in f:
            ts, dur, reason, vcpu, tid = line.strip().split(",")[:5]
            end = int(ts) + int(dur) if dur else last
            want.append((int(tid), int(ts) / 1000.0,
                         round((end - int(ts)) / 1000.0, 3), reason))
    got = [(e["tid"], e["ts"], e["dur"], e["args"]["reason"]) for e in ours]
    if sorted(got) != sorted(want):
        fail("kvm exited slices %s, by hand %s" % (sorted(got),
                                                   sorted(want)))
    if any(e["ph"] != "X" for e in ours):
        fail("kvm exited not X")
    print("ok: %d kvm exited slices as derived by hand" % len(got))


def case_hard_column():
    """Page faults carry hard/soft: a real `perf record -e major-faults,
    minor-faults -d` of FaultPair (major faults where the kernel reads a
    dropped file page, minor ones elsewhere), printed by `perf script`,
    imported and exported.  Oracle: the event name of each `perf script`
    line (major-faults -> "hard", minor-faults -> "soft"), counted per
    (pid, kind); the export's instants must carry the same counts."""
    if FAULTPAIR is None:
        fail("no FaultPair given")
    if shutil.which("perf") is None:
        print("SKIP: perf is not installed (linux-perf)")
        sys.exit(77)
    w = fresh("hard")
    os.makedirs(w)
    data = os.path.join(w, "data.bin")
    with open(data, "wb") as f:
        f.write(os.urandom(32 * 65536))
    child = os.path.join(w, "fault-child")
    os.symlink(os.path.abspath(FAULTPAIR), child)
    perf_data = os.path.join(w, "perf.data")
    # A major fault needs the kernel to have dropped the file's page, which
    # a loaded machine sometimes does not: up to three recordings, then a
    # skip that says so (never a pass without one).
    for attempt in range(3):
        p = run(["perf", "record", "-q", "-c", "1", "-e",
                 "major-faults,minor-faults", "-d", "-o", perf_data, "--",
                 FAULTPAIR, data, child], ok=False)
        if p.returncode != 0:
            print(p.stderr.decode(errors="replace"))
            print("SKIP: perf record of software events failed here")
            sys.exit(77)
        text = run(["perf", "script", "-i", perf_data, "-F",
                    "comm,pid,tid,time,event,addr,ip,sym,dso"]).stdout.decode()
        want = collections.Counter()
        for line in text.splitlines():
            m = re.search(r"\s(\d+)/\d+\s.*\s(major|minor)-faults:", line)
            if m:
                want[(int(m.group(1)),
                      "hard" if m.group(2) == "major" else "soft")] += 1
        if any(k == "hard" for _, k in want):
            break
        print("recording %d has no major fault (the page stayed cached)" % (attempt + 1))
    else:
        print("SKIP: three recordings without a major fault: the case would test nothing")
        sys.exit(77)
    script = os.path.join(w, "script.txt")
    with open(script, "w") as f:
        f.write(text)
    s = fresh("hard.trace")
    run([TS, "import", "-o", s, script])
    got = collections.Counter(
        (e["pid"], e["args"].get("fault"))
        for e in export(s, "hard")["traceEvents"]
        if e.get("cat") == "page_fault")
    if got != want:
        fail("fault kinds %s, perf script's event names %s" % (
            sorted(got.items()), sorted(want.items())))
    print("ok: hard/soft per pid as perf script names them: %s"
          % sorted(want.items()))


def case_unsorted():
    """Stores not in ts order are exported in ts order: the same capture
    imported twice, the second time 1 s earlier (--clock-offset), so the
    event stores' later rows come first in time.  Oracle: the timestamps
    of the text file's event lines, once as they are and once 1 s
    earlier; every instant's ts must come out in order."""
    src = os.path.join(DATA, "ftrace-capture-1.txt")
    s = fresh("unsorted")
    run([TS, "import", "-o", s, src])
    run([TS, "import", "-o", s, "--clock-offset", "-1000000000", src])
    info = json.loads(run([TS, "info", "--json", s]).stdout)
    if all(x["sorted"] is not False for x in info["stores"]):
        fail("no store is unsorted: the case tests nothing")
    ours = [e for e in export(s, "unsorted")["traceEvents"]
            if e["ph"] == "I"]
    want = []
    with open(src) as f:
        for line in f:
            m = re.search(r"\]\s+\S*\s*(\d+)\.(\d{6}): (\w+):", line)
            if m and m.group(3) != "sched_switch":
                us = int(m.group(1)) * 10**6 + int(m.group(2))
                want += [us, us - 10**6]
    got = [round(e["ts"]) for e in ours]
    if got != sorted(got):
        fail("instants out of ts order")
    if sorted(got) != sorted(want):
        fail("%d instants, the text gives %d" % (len(got), len(want)))
    print("ok: %d instants from unsorted stores, in ts order" % len(got))


CASES = {
    "oracle_full": case_oracle_full,
    "window_kvm": case_window_kvm,
    "counters": case_counters,
    "json_samples": case_json_samples,
    "escaping": case_escaping,
    "round_trip": case_round_trip,
    "bad_input": case_bad_input,
    "guest_tsc": case_guest_tsc,
    "oracle_tsc": case_oracle_tsc,
    "snapshot": case_snapshot,
    "kvm_exits": case_kvm_exits,
    "hard_column": case_hard_column,
    "unsorted": case_unsorted,
}

if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    if CASE in ("oracle_full", "window_kvm", "counters", "oracle_tsc"):
        for tool in ("uftrace", "trace-cmd"):
            if shutil.which(tool) is None:
                print("skip: %s not installed" % tool)
                sys.exit(77)
    CASES[CASE]()
