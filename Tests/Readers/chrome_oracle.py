#!/usr/bin/env python3
"""The rows a Chrome trace-event JSON file should give, computed here from
the JSON with Python's own parser, against what `tracestore import` made.

usage: chrome_oracle.py TRACESTORE SESSION FILE.json

The rules (docs/reader-spans.md, "Chrome trace-event JSON"), written independently of
the reader:
  - ts and dur are microseconds, converted to ns exactly (digits below the
    ns dropped);
  - spans nest per (pid, tid) by interval containment whatever the order
    the file writes them in: a B..E pair contains what happens on its
    thread between them (at the same ts, B, E and instants keep the
    file's order), an X [ts, ts+dur) contains an event that begins inside
    it and ends by its end, and a zero-duration X at its end that the file
    writes before it (X events are written when they end, clang's are: it
    ended first, so inside); at the same ts X events come after B/E/instant
    events, longer first, and of two X events with the same interval the
    one written later is the outer (zero-duration ones, which contain
    nothing, in the file's order); instants with scope g or p are at
    depth 0;
  - process_name / thread_name metadata anywhere in the file name the
    process and thread (the last one wins); no name is NULL;
  - C events: one counter per number in args, named "NAME KEY" (with
    " id: ID" after NAME when the event has an id), nested objects by
    their path "NAME KEY.SUBKEY"; anything else is counted as dropped;
  - other phases, and metadata other than names, are ftrace_event rows
    whose args are the whole event (metadata at the trace's first ts).

The file must have no end without a begin and no begin without an end
(the hand-written cases in chrome_cases.sh cover those repairs).
"""
import decimal
import json
import re
import subprocess
import sys

tracestore, session, path = sys.argv[1:4]

D = decimal.Decimal


def ns(value):
    """Microseconds (a number or a string holding one) to integer ns."""
    d = D(str(value))
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_DOWN))


def sql(query):
    out = subprocess.run([tracestore, "sql", "--json", session, query],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip() else []


with open(path, "rb") as f:
    doc = json.loads(f.read().decode("utf-8"), parse_float=D, parse_int=D)
events = doc["traceEvents"] if isinstance(doc, dict) else doc

failures = []


def check(what, expected, actual):
    if expected != actual:
        missing = [r for r in expected if r not in actual][:5]
        extra = [r for r in actual if r not in expected][:5]
        failures.append(f"{what}: {len(expected)} expected, {len(actual)} imported;"
                        f"\n  expected, not imported: {missing}"
                        f"\n  imported, not expected: {extra}")


def task(e):
    pid = int(e["pid"]) if "pid" in e else None
    tid = int(e["tid"]) if "tid" in e else pid
    return pid, (tid if tid is not None else 0)


# Names from metadata, wherever they are.
thread_names, process_names = {}, {}
for e in events:
    if e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name"):
        name = e.get("args", {}).get("name") if isinstance(e.get("args"), dict) else None
        if not isinstance(name, str):
            continue
        pid, tid = task(e)
        if e["name"] == "process_name" and pid is not None:
            process_names[pid] = name
        elif e["name"] == "thread_name":
            thread_names[(pid, tid)] = name

timed = [e for e in events if e.get("ph") not in (None, "M") and "ts" in e]
first_ts = min(ns(e["ts"]) for e in timed) if timed else None

# ---- spans ------------------------------------------------------------
CLASS_BE, CLASS_X = 0, 1
spans = []          # dicts: key, ts, end, name, args, pid, tid, kind
for seq, e in enumerate(events):
    ph = e.get("ph")
    if ph not in ("B", "E", "X", "i", "I", "R"):
        continue
    pid, tid = task(e)
    ts = ns(e["ts"])
    if ph == "X":
        dur = ns(e["dur"])
        key = (ts, CLASS_X, -dur, -seq if dur else seq)
    else:
        dur = None
        key = (ts, CLASS_BE, 0, seq)
    spans.append(dict(ph=ph, key=key, seq=seq, ts=ts, dur=dur, pid=pid, tid=tid,
                      name=e.get("name"), cat=e.get("cat"),
                      args=e.get("args"), scope=e.get("s", "t")))

# Pair B and E per thread in processing order; an E closes the innermost
# open B of its thread.
order = sorted(spans, key=lambda s: s["key"])
open_b = {}
for s in order:
    t = (s["pid"], s["tid"])
    if s["ph"] == "B":
        open_b.setdefault(t, []).append(s)
    elif s["ph"] == "E":
        if not open_b.get(t):
            sys.exit(f"oracle: an end without a begin on thread {t} (not modelled)")
        b = open_b[t].pop()
        b["dur"] = s["ts"] - b["ts"]
        b["end_key"] = s["key"]
for t, stack in open_b.items():
    if stack:
        sys.exit(f"oracle: a begin without an end on thread {t} (not modelled)")

rows = [s for s in order if s["ph"] != "E"]


def contains(p, c):
    """Does span p contain event c (both on one thread, p before c)?"""
    if p["key"] >= c["key"]:
        return False
    if p["ph"] == "B":              # a B..E pair: what comes between them
        return c["key"] < p["end_key"] and (c["ph"] != "B" or c["end_key"] < p["end_key"])
    if p["ph"] != "X":              # instants contain nothing
        return False
    p_end = p["ts"] + p["dur"]
    c_end = c["ts"] + (c["dur"] or 0)
    if (c["ph"] == "X" and c["dur"] == 0 and c["ts"] == p_end and p["dur"] > 0
            and c["seq"] < p["seq"]):
        return True                 # written first, so it ended first: inside
    return c["ts"] < p_end and c_end <= p_end


by_thread = {}
for s in rows:
    by_thread.setdefault((s["pid"], s["tid"]), []).append(s)
for thread_rows in by_thread.values():
    for i, c in enumerate(thread_rows):
        c["parent"] = None
        if c["ph"] in ("i", "I", "R") and c["scope"] in ("g", "p"):
            continue
        # The innermost container: the last one before c in processing order.
        for p in reversed(thread_rows[:i]):
            if contains(p, c):
                c["parent"] = p
                break
for s in rows:
    depth, p = 0, s["parent"]
    while p is not None:
        depth, p = depth + 1, p["parent"]
    s["depth"] = depth


def span_row(s):
    p = s["parent"]
    instant = s["ph"] in ("i", "I", "R")
    return [s["tid"], s["pid"], s["ts"], 0 if instant else s["dur"], s["name"], s["depth"],
            None if p is None else [p["ts"], p["dur"], p["name"]],
            s["args"], s["cat"], 4 if instant else 0]


expected = [span_row(s) for s in rows]
actual = []
for r in sql("SELECT s.tid, s.pid, s.ts, s.dur, s.name, s.depth, p.ts AS pts, p.dur AS pdur,"
             " p.name AS pname, s.args, s.cat, s.flags FROM span s"
             " LEFT JOIN span p ON p.id = s.parent_id"):
    args = json.loads(r["args"], parse_float=D, parse_int=D) if r["args"] is not None else None
    actual.append([r["tid"], r["pid"], r["ts"], r["dur"], r["name"], r["depth"],
                   None if r["pts"] is None else [r["pts"], r["pdur"], r["pname"]],
                   args, r["cat"], r["flags"]])


def norm(x):
    """A comparable form: decimals as their text, rows sorted."""
    return json.loads(json.dumps(x, default=str))


def rows_of(x):
    return sorted(norm(x), key=json.dumps)


check("span rows (tid, pid, ts, dur, name, depth, parent, args, cat, flags)",
      rows_of(expected), rows_of(actual))

# ---- counters ---------------------------------------------------------
exp_counters, dropped = [], 0


JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


def counter_value(v):
    """A number, or a string holding exactly one; else None (dropped)."""
    if isinstance(v, D):
        return float(v)
    if isinstance(v, str) and JSON_NUMBER.fullmatch(v):
        return float(v)
    return None


def flatten(prefix, obj):
    global dropped
    for k, v in obj.items():
        name = prefix + k
        if isinstance(v, dict):
            flatten(name + ".", v)
        else:
            value = counter_value(v)
            if value is None:
                dropped += 1
            else:
                exp_counters.append([ns(e["ts"]), name, value, task(e)[0]])


for e in events:
    if e.get("ph") != "C":
        continue
    args = e.get("args")
    if not isinstance(args, dict):
        dropped += 1
        continue
    prefix = (e.get("name") or "") + (f" id: {e['id']}" if "id" in e else "") + " "
    flatten(prefix, args)
act_counters = [[r["ts"], r["name"], r["value"], r["pid"]]
                for r in sql("SELECT ts, name, value, pid FROM counter")] \
    if exp_counters or dropped else []
check("counter rows (ts, name, value, pid)", rows_of(exp_counters), rows_of(act_counters))
if exp_counters or dropped:
    got = sql("SELECT dropped FROM store_info WHERE name = 'counter'")
    check("counter store's dropped", [dropped], [got[0]["dropped"]] if got else [0])

# ---- other events, metadata that is not a name -------------------------
exp_other = []
for e in events:
    ph = e.get("ph")
    if ph is None or ph in ("B", "E", "X", "i", "I", "R", "C"):
        continue
    if ph == "M":
        named = (e.get("name") in ("process_name", "thread_name") and
                 isinstance(e.get("args"), dict) and isinstance(e["args"].get("name"), str))
        if named:
            continue
        ts = first_ts if first_ts is not None else ns(e.get("ts", 0))
    elif "ts" not in e:
        continue
    else:
        ts = ns(e["ts"])
    pid, tid = task(e)
    exp_other.append([ts, e.get("name"), tid, pid, norm(e)])
act_other = [[r["ts"], r["name"], r["tid"], r["pid"],
              norm(json.loads(r["args"], parse_float=D, parse_int=D))]
             for r in sql("SELECT ts, name, tid, pid, args FROM ftrace_event")]
check("ftrace_event rows (ts, name, tid, pid, the event)", rows_of(exp_other), rows_of(act_other))

# ---- names ------------------------------------------------------------
exp_threads = sorted({(s["tid"], s["pid"], thread_names.get((s["pid"], s["tid"])))
                      for s in rows} |
                     {(o[2], o[3], thread_names.get((o[3], o[2]))) for o in exp_other},
                     key=str)
act_threads = sorted({(r["tid"], r["pid"], r["comm"])
                      for r in sql("SELECT tid, pid, comm FROM thread")}, key=str)
check("threads (tid, pid, comm)", [list(t) for t in exp_threads], [list(t) for t in act_threads])
exp_procs = sorted({(p, process_names.get(p)) for (_, p, _) in exp_threads if p is not None
                    and p in process_names}, key=str)
act_procs = sorted({(r["pid"], r["name"]) for r in sql("SELECT pid, name FROM process")
                    if r["pid"] in process_names}, key=str)
check("named processes (pid, name)", [list(p) for p in exp_procs], [list(p) for p in act_procs])

if failures:
    print("\n".join("FAIL: " + f for f in failures))
    sys.exit(1)
print(f"ok: {len(expected)} spans (depth up to {max([s['depth'] for s in rows], default=0)}),"
      f" {len(exp_counters)} counter samples ({dropped} dropped), {len(exp_other)} other"
      f" events, {len(exp_threads)} threads match {path}")
