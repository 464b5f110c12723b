#!/usr/bin/env python3
"""viewers_test.py: every sample, exported, loaded into two real viewers.

Usage: viewers_test.py TRACESTORE SHARED_DIR DATA_DIR WORKDIR NPM_DIR

Each sample is imported as Tests/Cli/export_test.py imports it (its
samples() list: every file of SHARED_DIR/data/capture-1, DATA_DIR's *.txt
and *.data, DATA_DIR/chrome/*.json, DATA_DIR/fuzz-regressions/*/*; its
capture import uftrace.data + trace.dat + perf-stat (without task-clock,
as its round_trip case does)), plus the ETW logs (SHARED_DIR/data/etw/*.etl,
the .etl.zip unzipped into WORKDIR, DATA_DIR/etw/*.etl), the kvmtrace
stream (SHARED_DIR/data/kvmtrace/sample.bin) and a `tracestore
trace-python` session of a small threaded program written into WORKDIR.
Each session is exported (`tracestore export`; a session of more than CAP
event rows through an --from/--to window of its first CAP rows, found by
SQL) and the file is given to Tests/Outputs/viewers/load_trace.mjs, which
runs the Chrome DevTools trace engine (@paulirish/trace_engine 0.0.65)
and speedscope's importer (speedscope 1.25.0) on it under Node.

Expected values come from the exported file itself, parsed here with
Python's json module (numbers as exact decimals: what the file holds,
not what a double makes of it), and, for unwindowed exports and the
instant stores of windowed ones, from the session by SQL full scan
(rows per thread).  Nothing is taken from tracestore's own messages.

Checks, per export (each failure printed as "FAIL: <sample>: <what>"):
  - both viewers load it without throwing, and neither prints a warning;
  - trace_engine's threads are the (pid, tid) pairs with X or I events in
    the file, named by the file's thread_name M events; per thread,
    `events` = its X + I events and `depth` = their nesting (rules below);
  - speedscope makes one profile per thread with X events, named from the
    M events; per profile `calls` = its X events of positive duration and
    `depth` = their nesting;
  - otherData.origin_ns is present and the first non-M event has ts 0.

Viewer rules encoded here (read from the installed packages):
  trace_engine, models/trace/handlers/RendererHandler.js handleEvent():
    an entry per ph "X" or "I" event (Types.Events.isComplete/isInstant:
    ph === 'X' / ph === 'I'; "i" is not an instant there), zero-duration X
    kept; threadsInTrace() (handlers/Threads.js) drops a thread whose tree
    has no roots, i.e. one without entries.  Thread name
    (assignThreadName): the last thread_name M event's args.name, the tid
    as text when that M event has no name, null without one.
  trace_engine, helpers/TreeHelpers.js treify() over the entries sorted by
    helpers/Trace.js eventTimeComparator (ts ascending, then end
    descending, stable): instants are nodes (dur 0) too; an entry starting
    at or after the top's end pops it (so nothing nests in a zero-length
    entry, nor starts at a slice's end inside it); one starting inside the
    top but ending after its end is left out of the tree (not a node, but
    still counted in `events`); maxDepth = deepest stack.
  speedscope, dist/release/speedscope-*.js, the Trace Event importer
    (functions Dl / jy / rf / Ey / Iy in the 1.25.0 bundle, from
    src/import/trace-event.ts): one profile per pid:tid with B/E/X events;
    each X becomes a B at ts and an E at ts+dur; the call tree is built by
    CallTreeProfileBuilder (class Ie: enterFrame/_leaveFrame push a sample
    only when `value - lastValue > 0`), and Profile.forEachCall walks
    those samples, so an X of zero duration (with only zero-length
    descendants) never appears: calls = X events with dur > 0, except
    that at equal ts a B goes before an E of the same frame key (name and
    args; function my), so two back-to-back X with equal name and args are
    one call (speedscope_calls below).  Profile name (function lf):
    "PROC (pid P), THREAD (tid T)", "PROC (pid P, tid T)", "THREAD (pid P,
    tid T)" or "pid P, tid T" from the last process_name / thread_name M
    event with a non-empty args.name.
  speedscope detection (function _a): a traceEvents array that is empty
    is not a trace-event file: an export with no event at all is expected
    to be "Unrecognized format"; with events but no X, zero profiles, for
    which load_trace.mjs adds the warning "speedscope made no profile".

Exit status: 0 all ok, 1 a failure, 77 skip (no node, or NPM_DIR lacks
the packages or holds other versions than the rules above were read from).
"""
import collections
import concurrent.futures
import decimal
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile

CAP = 20000                 # event rows exported per session at most
NODE_TIMEOUT = 240
VERSIONS = {"@paulirish/trace_engine": "0.0.65", "speedscope": "1.25.0"}
HERE = os.path.dirname(os.path.abspath(__file__))
LOADER = os.path.join(HERE, "load_trace.mjs")
EVENT_STORES = ("span", "kvm_exit", "ftrace_event", "page_fault",
                "sched_switch", "counter")
INSTANT_STORES = ("ftrace_event", "page_fault")
CPU_PROCESS = "CPUs (sched_switch)"     # the exporter's per-CPU process

PYPROG = '''\
import threading


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def work(k):
    total = 0
    for _ in range(3):
        total += fib(7 + k)
    return total


def main():
    threads = [threading.Thread(target=work, args=(k,), name="worker-%d" % k)
               for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return work(0)


main()
'''

failures = []


def fail(sample, what):
    failures.append((sample, what))
    print("FAIL: %s: %s" % (sample, what), flush=True)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, **kw)


def find_modules(npm):
    for d in (os.path.join(npm, "node_modules"), npm):
        if all(os.path.exists(os.path.join(d, p, "package.json"))
               for p in VERSIONS):
            return d
    return None


# ------------------------------------------------------------- the inputs

def sample_inputs(shared, data, work):
    """[(label, [import args])]: export_test.py's samples(), its capture
    import, the ETW logs, kvmtrace; trace-python is added apart."""
    cap = os.path.join(shared, "data", "capture-1")
    out = []
    for f in sorted(os.listdir(cap)):
        out.append(("capture-1/" + f, [os.path.join(cap, f)]))
    for f in sorted(os.listdir(data)):
        if f.endswith((".txt", ".data")):
            out.append(("Data/" + f, [os.path.join(data, f)]))
    chrome = os.path.join(data, "chrome")
    for f in sorted(os.listdir(chrome)):
        if f.endswith(".json"):
            out.append(("Data/chrome/" + f, [os.path.join(chrome, f)]))
    fz = os.path.join(data, "fuzz-regressions")
    for d in sorted(os.listdir(fz)):
        for f in sorted(os.listdir(os.path.join(fz, d))):
            out.append(("Data/fuzz-regressions/%s/%s" % (d, f),
                        [os.path.join(fz, d, f)]))
    # The capture as export_test.py imports it: perf-stat.txt without
    # task-clock (its perf_stat_filtered()).
    pstat = os.path.join(work, "perf-stat-no-task-clock.txt")
    with open(os.path.join(cap, "perf-stat.txt")) as f:
        lines = [l for l in f if "task-clock" not in l]
    with open(pstat, "w") as f:
        f.writelines(lines)
    out.append(("capture-1/uftrace.data+trace.dat+perf-stat",
                [os.path.join(cap, "uftrace.data"),
                 os.path.join(cap, "trace.dat"), pstat]))
    etw = os.path.join(shared, "data", "etw")
    for f in sorted(os.listdir(etw)):
        p = os.path.join(etw, f)
        if f.endswith(".etl"):
            out.append(("etw/" + f, [p]))
        elif f.endswith(".etl.zip"):
            dest = os.path.join(work, "etw-unzipped")
            with zipfile.ZipFile(p) as z:
                for m in z.namelist():
                    if m.endswith(".etl"):
                        z.extract(m, dest)
                        out.append(("etw/%s:%s" % (f, m),
                                    [os.path.join(dest, m)]))
    detw = os.path.join(data, "etw")
    for f in sorted(os.listdir(detw)):
        if f.endswith(".etl"):
            out.append(("Data/etw/" + f, [os.path.join(detw, f)]))
    kt = os.path.join(shared, "data", "kvmtrace", "sample.bin")
    out.append(("kvmtrace/sample.bin", [kt]))
    return out


def sql(ts, session, query):
    p = run([ts, "sql", "--csv", session, query])
    if p.returncode != 0:
        raise RuntimeError("sql %r: %s" % (query, p.stderr.decode(
            errors="replace").strip()))
    lines = p.stdout.decode().splitlines()
    return [l.split(",") for l in lines[1:]]


def store_records(ts, session):
    return {r[0]: int(r[1]) for r in sql(ts, session,
                                         "SELECT name, records FROM store_info")}


def window_for(ts, session, records):
    """None, or (from_ns, to_ns) keeping the first CAP event rows (to is
    just before the (CAP+1)-th row's ts, so no row sits on the edge)."""
    present = [s for s in EVENT_STORES if records.get(s, 0) > 0]
    if sum(records[s] for s in present) <= CAP:
        return None
    union = " UNION ALL ".join("SELECT ts FROM %s" % s for s in present)
    row = sql(ts, session, "WITH u AS (%s) SELECT (SELECT min(ts) FROM u), "
              "(SELECT ts FROM u ORDER BY ts LIMIT 1 OFFSET %d)" % (union, CAP))
    return int(row[0][0]), int(row[0][1]) - 1


def session_rows_per_thread(ts, session, records, window):
    """From the session (SQL full scan): rows per tid of the stores the
    exporter writes as X/I on the row's own thread, and switches to a
    task (next_pid != 0) per CPU.  None when a window cuts spans (the
    exporter cuts spans crossing it; not modelled here)."""
    per_tid = collections.Counter()
    per_cpu = collections.Counter()
    stores = [s for s in ("span", "kvm_exit", "ftrace_event", "page_fault")
              if records.get(s, 0) > 0]
    if window and any(s not in INSTANT_STORES for s in stores):
        return None
    if window and records.get("sched_switch", 0) > 0:
        return None
    where = ("WHERE ts BETWEEN %d AND %d" % window) if window else ""
    for s in stores:
        for tid, n in sql(ts, session, "SELECT coalesce(tid, 0), count(*) "
                          "FROM %s %s GROUP BY 1" % (s, where)):
            per_tid[int(tid)] += int(n)
    if records.get("sched_switch", 0) > 0:
        for cpu, n in sql(ts, session, "SELECT cpu, count(*) FROM sched_switch "
                          "WHERE next_pid != 0 GROUP BY cpu"):
            per_cpu[int(cpu)] += int(n)
    return per_tid, per_cpu


# ------------------------------------------------------ what the file holds

def max_depth(entries):
    """Nesting of (ts, end, index) entries, the rule of trace_engine's
    treify() (TreeHelpers.js) over eventTimeComparator's order (Trace.js):
    sorted by ts, then end descending, stable; an entry at or after the
    top's end pops it; one ending after the top's end is left out.
    Returns (max depth, entries left out)."""
    order = sorted(entries, key=lambda e: (e[0], -e[1], e[2]))
    stack, depth, left_out = [], 0, []
    for e in order:
        while stack and e[0] >= stack[-1][1]:
            stack.pop()
        if stack and e[1] > stack[-1][1]:
            left_out.append((e, stack[-1]))
            continue
        stack.append(e)
        depth = max(depth, len(stack))
    return depth, left_out


def js_key(e):
    """speedscope's frame key of an event (function Rl in the bundle):
    name (or "(unnamed)"), then " " + JSON.stringify(args) when args is
    truthy.  Numbers as JS prints them: an integral value without ".0"."""
    def norm(v):
        if isinstance(v, decimal.Decimal):
            f = float(v)
            return int(f) if f.is_integer() and abs(f) < 1e21 else f
        if isinstance(v, dict):
            return {k: norm(x) for k, x in v.items()}
        if isinstance(v, list):
            return [norm(x) for x in v]
        return v
    key = e.get("name") or "(unnamed)"
    args = e.get("args")
    if args or isinstance(args, (dict, list)):  # {} and [] are truthy in JS
        key += " " + json.dumps(norm(args), separators=(",", ":"),
                                ensure_ascii=False)
    return key


def speedscope_calls(xs):
    """The calls speedscope makes of a thread's X events of positive
    duration, as (ts, end, index).  Its importer (function Ey; the queue
    choice in function my: `r<A?"B":A<r?"E":Rl(n)===Rl(a)?"B":"E"`) takes,
    at equal ts, a B before the pending E when both have the same frame
    key; so X [a,b] and X [b,c] with equal name and args make one call
    [a,c] (the second opens inside the first, the first's E closes it at
    zero length, the second's E then closes the first)."""
    calls, open_at = [], {}
    for ts, end, n, e in sorted(xs, key=lambda x: (x[0], -x[1], x[2])):
        k = js_key(e)
        i = open_at.pop((k, ts), None)
        if i is None:
            calls.append((ts, end, n))
            i = len(calls) - 1
        else:
            calls[i] = (calls[i][0], end, calls[i][2])
        open_at[(k, end)] = i
    return calls


def expected(doc):
    """What each viewer should show, from the file alone."""
    events = doc["traceEvents"]
    other = doc.get("otherData", {})
    thread_m, process_m = {}, {}
    per = collections.defaultdict(lambda: {"x": [], "i": []})
    odd_phases = collections.Counter()
    for n, e in enumerate(events):
        ph = e.get("ph")
        key = (e.get("pid"), e.get("tid"))
        if ph == "M":
            if e.get("name") == "thread_name":
                thread_m[key] = e.get("args", {}).get("name")
            elif e.get("name") == "process_name":
                process_m[e.get("pid")] = e.get("args", {}).get("name")
        elif ph == "X":
            per[key]["x"].append((e["ts"], e["ts"] + e.get("dur", 0), n, e))
        elif ph == "I":
            per[key]["i"].append((e["ts"], e["ts"], n, e))
        elif ph != "C":
            odd_phases[ph] += 1
    te = {}
    for key, v in per.items():
        entries = v["x"] + v["i"]
        depth, left_out = max_depth([x[:3] for x in entries])
        if key in thread_m:
            name = thread_m[key]
            name = str(key[1]) if name is None else name
        else:
            name = None
        te[key] = {"events": len(entries), "depth": depth, "name": name,
                   "zero_dur": sum(1 for x in v["x"] if x[1] == x[0]),
                   "left_out": left_out}
    ss = {}
    for key, v in per.items():
        if not v["x"]:
            continue
        pos = speedscope_calls([x for x in v["x"] if x[1] > x[0]])
        depth, left_out = max_depth(pos)
        pname = process_m.get(key[0]) or None
        tname = thread_m.get(key) or None
        pid, tid = key
        if pname is not None and tname is not None:
            pname = "%s (pid %s), %s (tid %s)" % (pname, pid, tname, tid)
        elif pname is not None:
            pname = "%s (pid %s, tid %s)" % (pname, pid, tid)
        elif tname is not None:
            pname = "%s (pid %s, tid %s)" % (tname, pid, tid)
        else:
            pname = "pid %s, tid %s" % (pid, tid)
        ss[pname] = {"calls": len(pos), "depth": depth, "key": key,
                     "left_out": left_out}
    return {"te": te, "ss": ss, "thread_m": thread_m, "process_m": process_m,
            "odd_phases": odd_phases, "n_events": len(events),
            "other": other}


def double_overlaps(events):
    """Diagnosis only: per thread, X slices that end at or before the next
    one's start in the file's exact decimals, but after it in the doubles
    a viewer computes: trace_engine's ts + dur (TreeHelpers.js treify),
    speedscope's (ts - thread's first ts) + dur (function Iy); and inner
    slices ending exactly with their enclosing one whose ts + dur in
    doubles ends after it (counted under trace_engine).
    {(pid, tid): (n trace_engine, n speedscope, first example)}."""
    per = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X":
            per[(e.get("pid"), e.get("tid"))].append(e)
    out = {}
    for key, xs in per.items():
        xs.sort(key=lambda e: (e["ts"], -(e["ts"] + e["dur"])))
        first = float(min(e["ts"] for e in xs))
        n_te = n_ss = 0
        ex = None
        for a, b in zip(xs, xs[1:]):
            if a["ts"] + a["dur"] > b["ts"]:
                continue            # nested or overlapping in the file
            fa, fd, fb = float(a["ts"]), float(a["dur"]), float(b["ts"])
            te = fa + fd > fb
            ss = (fa - first) + fd > fb - first
            n_te += te
            n_ss += ss
            if (te or ss) and ex is None:
                ex = "%r ts %s + dur %s = %s, next %r ts %s: doubles %r > %r" % (
                    a["name"], a["ts"], a["dur"], a["ts"] + a["dur"],
                    b["name"], b["ts"], (fa - first) + fd if ss else fa + fd,
                    fb - first if ss else fb)
        # Slices ending together (exactly): an inner one whose double end
        # passes the outer one's starts inside it and ends after it.
        by_end = collections.defaultdict(list)
        for e in xs:
            by_end[e["ts"] + e["dur"]].append(e)
        for group in by_end.values():
            outer = group[0]                # xs order: earliest ts first
            fo = float(outer["ts"]) + float(outer["dur"])
            for e in group[1:]:
                if e["ts"] > outer["ts"] and \
                        float(e["ts"]) + float(e["dur"]) > fo:
                    n_te += 1
                    if ex is None:
                        ex = "%r ts %s dur %s ends with %r ts %s dur %s at " \
                             "%s: doubles %r > %r" % (
                                 e["name"], e["ts"], e["dur"], outer["name"],
                                 outer["ts"], outer["dur"],
                                 e["ts"] + e["dur"],
                                 float(e["ts"]) + float(e["dur"]), fo)
        if n_te or n_ss:
            out[key] = (n_te, n_ss, ex)
    return out


def fmt_event(e):
    return "%s %r ts=%s dur=%s" % (e.get("ph"), e.get("name"), e.get("ts"),
                                   e.get("dur"))


def check(sample, path, summary, sess_rows):
    """Returns the ok line, or None after printing the failures."""
    n_fail = len(failures)
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"),
                         parse_float=decimal.Decimal)
    x = expected(doc)
    events = doc["traceEvents"]

    # ts: relative to otherData.origin_ns, the first event at 0.
    if "origin_ns" not in x["other"]:
        fail(sample, "otherData.origin_ns missing (otherData %s)" % x["other"])
    timed = [e for e in events if e.get("ph") != "M"]
    if timed:
        if timed[0].get("ts") != 0:
            fail(sample, "first non-M event has ts %s, not 0: %s" % (
                timed[0].get("ts"), fmt_event(timed[0])))
        low = min(timed, key=lambda e: e["ts"])
        if low["ts"] < 0:
            fail(sample, "event before the origin: %s" % fmt_event(low))
    if x["odd_phases"]:
        fail(sample, "phases this test does not model: %s" % dict(x["odd_phases"]))

    # The session's rows, per thread, against the file (SQL full scan).
    if sess_rows is not None:
        per_tid, per_cpu = sess_rows
        cpu_pids = {p for p, n in x["process_m"].items() if n == CPU_PROCESS}
        f_tid, f_cpu = collections.Counter(), collections.Counter()
        for (pid, tid), t in x["te"].items():
            if pid in cpu_pids:
                name = x["thread_m"].get((pid, tid)) or ""
                cpu = int(name[4:]) if name.startswith("CPU ") else -1
                f_cpu[cpu] += sum(1 for e in events if e.get("ph") == "X"
                                  and (e["pid"], e["tid"]) == (pid, tid))
            else:
                # A vcpu's own thread (kvmtrace's vcpus share the VM's
                # tid): its events are that tid's rows.
                name = x["thread_m"].get((pid, tid)) or ""
                m = re.fullmatch(r"vcpu \d+ \(tid (\d+)\)", name)
                f_tid[int(m.group(1)) if m else tid] += t["events"]
        if f_tid != per_tid:
            diff = {t: (f_tid.get(t, 0), per_tid.get(t, 0))
                    for t in set(f_tid) | set(per_tid)
                    if f_tid.get(t, 0) != per_tid.get(t, 0)}
            fail(sample, "X+I events per tid (file, session rows by SQL) "
                 "differ: %s" % dict(sorted(diff.items())[:8]))
        if f_cpu != per_cpu:
            fail(sample, "sched slices per CPU %s, session's switches to a "
                 "task (SQL) %s" % (dict(f_cpu), dict(per_cpu)))

    # --- trace_engine
    te = summary["trace_engine"]
    if not te["ok"]:
        fail(sample, "trace_engine threw: %s" % te["error"])
    if te["warnings"]:
        fail(sample, "trace_engine warned (%d): %s" % (
            len(te["warnings"]), " | ".join(te["warnings"][:6])))
    if te["ok"]:
        got = {(t["pid"], t["tid"]): t for t in te["threads"]}
        want = x["te"]
        if set(got) != set(want):
            fail(sample, "trace_engine threads: missing %s, extra %s" % (
                sorted(set(want) - set(got))[:8],
                sorted(set(got) - set(want))[:8]))
        for key in sorted(set(got) & set(want)):
            g, w = got[key], want[key]
            for field in ("events", "depth", "name", "zero_dur"):
                if g[field] != w[field]:
                    fail(sample, "trace_engine thread pid %s tid %s (%s): %s "
                         "%r, the file gives %r" % (key[0], key[1], w["name"],
                                                    field, g[field], w[field]))
    # --- speedscope
    ss = summary["speedscope"]
    want = x["ss"]
    if x["n_events"] == 0:
        # _a(): an empty traceEvents array is no trace-event file.
        if ss["ok"] or "did not recognize" not in (ss["error"] or ""):
            fail(sample, "speedscope on an empty trace: ok %s, error %s (its "
                 "_a() rejects an empty traceEvents)" % (ss["ok"], ss["error"]))
    else:
        if not ss["ok"]:
            fail(sample, "speedscope threw: %s" % ss["error"])
        warns = list(ss["warnings"])
        if not want and warns == ["speedscope made no profile"]:
            warns = []          # no thread has X events: none expected
        if warns:
            fail(sample, "speedscope warned (%d): %s" % (
                len(warns), " | ".join(warns[:6])))
        if ss["ok"]:
            got = collections.defaultdict(list)
            for p in ss["profiles"]:
                got[p["name"]].append(p)
            if set(got) != set(want) or any(len(v) > 1 for v in got.values()):
                fail(sample, "speedscope profiles: missing %s, extra %s, "
                     "repeated %s" % (
                         sorted(set(want) - set(got))[:6],
                         sorted(set(got) - set(want))[:6],
                         [n for n, v in got.items() if len(v) > 1][:6]))
            for name in sorted(set(got) & set(want)):
                g, w = got[name][0], want[name]
                for field in ("calls", "depth"):
                    if g[field] != w[field]:
                        fail(sample, "speedscope profile %r: %s %r, the file "
                             "gives %r" % (name, field, g[field], w[field]))
    # The file's own nesting faults, named, when a viewer disagreed.
    if len(failures) > n_fail:
        for key, (n_te, n_ss, ex) in sorted(double_overlaps(events).items(),
                                            key=lambda kv: str(kv[0])):
            print("  note: %s: thread pid %s tid %s: X slices adjacent or "
                  "ending together in the file that overlap once ts+dur is "
                  "summed in doubles: %d as "
                  "trace_engine sums (ts + dur), %d as speedscope sums "
                  "((ts - first ts) + dur), e.g. %s" % (
                      sample, key[0], key[1], n_te, n_ss, ex))
        for key, t in sorted(x["te"].items(), key=lambda kv: str(kv[0])):
            if t["left_out"]:
                (e, top) = t["left_out"][0]
                ev, tv = events[e[2]], events[top[2]]
                print("  note: %s: thread pid %s tid %s: %d events start "
                      "inside an enclosing slice and end after it, e.g. %s "
                      "in %s" % (sample, key[0], key[1], len(t["left_out"]),
                                 fmt_event(ev), fmt_event(tv)))
        return None
    n_x = sum(v["calls"] for v in want.values())
    return ("%d events; trace_engine %d threads (%d X+I, max depth %d); "
            "speedscope %d profiles (%d calls, max depth %d)" % (
                x["n_events"], len(x["te"]),
                sum(t["events"] for t in x["te"].values()),
                max([t["depth"] for t in x["te"].values()] or [0]),
                len(want), n_x,
                max([v["depth"] for v in want.values()] or [0])))


# ------------------------------------------------------------------ main

# Exports the viewers do not load as the file says yet, each with why (the
# open issue "what people see"); a listed export that passes is a failure,
# so that the list is kept true.
KNOWN = {
    "Data/chrome/boundary.json":
        "speedscope 1.25.0 turns each X into a B and an E and, at equal ts, "
        "takes the E first unless both have the same frame key (function "
        "my): a zero-duration X that shares its ts with another event is "
        "ended before it begins ('Tried to end ...'); the export writes the "
        "spans as the file's, DevTools' trace engine loads them",
}


def main():
    if len(sys.argv) != 6:
        print(__doc__.split("\n\n")[1])
        sys.exit(2)
    ts, shared, data, work, npm = [os.path.abspath(a) for a in sys.argv[1:6]]
    t0 = time.monotonic()
    node = shutil.which("node")
    if node is None:
        print("SKIP: node is not installed")
        sys.exit(77)
    modules = find_modules(npm)
    if modules is None:
        print("SKIP: %s has no node_modules with %s (npm install --prefix %s "
              "@paulirish/trace_engine@0.0.65 speedscope@1.25.0)" % (
                  npm, " and ".join(VERSIONS), npm))
        sys.exit(77)
    for pkg, ver in VERSIONS.items():
        with open(os.path.join(modules, pkg, "package.json")) as f:
            got = json.load(f).get("version")
        if got != ver:
            print("SKIP: %s is %s; this test's rules were read from %s" % (
                pkg, got, ver))
            sys.exit(77)

    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    inputs = sample_inputs(shared, data, work)

    # Import and export every sample (serially: each takes milliseconds).
    jobs = []                   # (label, json path, SQL rows or None, window)
    for i, (label, files) in enumerate(inputs):
        s = os.path.join(work, "s%02d.trace" % i)
        p = run([ts, "import", "-o", s] + files)
        if not os.path.exists(os.path.join(s, "session.tracer")):
            print("skip: %s: not an input tracestore imports (exit %d: %s)" % (
                label, p.returncode,
                p.stderr.decode(errors="replace").strip()[-200:]))
            continue
        jobs.append((label, s))
    prog = os.path.join(work, "threads.py")
    with open(prog, "w") as f:
        f.write(PYPROG)
    s = os.path.join(work, "python.trace")
    env = None
    if os.environ.get("VIEWERS_PY_PRELOAD"):       # an ASan build's module
        env = dict(os.environ, LD_PRELOAD=os.environ["VIEWERS_PY_PRELOAD"],
                   ASAN_OPTIONS="detect_leaks=0")
    p = run([ts, "trace-python", "-o", s, "--", "python3", prog], env=env)
    if p.returncode != 0 or not os.path.exists(os.path.join(s, "session.tracer")):
        fail("trace-python threads.py", "trace-python exited %d: %s" % (
            p.returncode, p.stderr.decode(errors="replace").strip()[-400:]))
    else:
        jobs.append(("trace-python threads.py", s))

    exports = []
    for label, s in jobs:
        try:
            records = store_records(ts, s)
            window = window_for(ts, s, records)
            rows = session_rows_per_thread(ts, s, records, window)
        except RuntimeError as e:
            fail(label, str(e))
            continue
        out = s[:-len(".trace")] + ".json"
        args = [ts, "export", "-o", out]
        if window:
            args += ["--from", str(window[0]), "--to", str(window[1])]
        p = run(args + [s])
        if p.returncode != 0:
            fail(label, "export exited %d: %s" % (
                p.returncode, p.stderr.decode(errors="replace").strip()))
            continue
        if window:
            label += " [--from %d --to %d: first %d rows]" % (window[0],
                                                              window[1], CAP)
        exports.append((label, out, rows))

    # Both viewers on every export; two at a time (2 cores).
    def load(path):
        p = run([node, LOADER, modules, path], timeout=NODE_TIMEOUT)
        if p.returncode != 0:
            raise RuntimeError("load_trace.mjs exited %d: %s" % (
                p.returncode, p.stderr.decode(errors="replace").strip()))
        return json.loads(p.stdout)

    n_ok = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futs = [(label, path, rows, pool.submit(load, path))
                for label, path, rows in exports]
        for label, path, rows, fut in futs:
            try:
                summary = fut.result()
            except (RuntimeError, subprocess.TimeoutExpired,
                    json.JSONDecodeError) as e:
                fail(label, "viewers not run: %s" % e)
                continue
            line = check(label, path, summary, rows)
            if line is not None:
                n_ok += 1
                print("ok: %s: %s" % (label, line), flush=True)

    bad = sorted({s for s, _ in failures})
    known = [s for s in bad if s in KNOWN]
    for s in known:
        print("known: %s: %s" % (s, KNOWN[s]))
    labels = {label for label, _, _ in exports}
    passing = sorted(s for s in KNOWN if s in labels and s not in bad)
    for s in passing:
        print("FAIL: %s: passes now: take it out of KNOWN" % s)
    new = [s for s in bad if s not in KNOWN]
    print("%d exports, %d ok, %d known to fail, %d failing%s; %.1f s" % (
        len(exports), n_ok, len(known), len(new),
        (": " + ", ".join(new)) if new else "", time.monotonic() - t0))
    sys.exit(1 if new or passing else 0)


if __name__ == "__main__":
    main()
