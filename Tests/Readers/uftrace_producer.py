#!/usr/bin/env python3
"""The uftrace reader against uftrace's own output, row by row.

usage: uftrace_producer.py TRACESTORE SESSION UFTRACE_DIR CHECK[,CHECK...]

  spans   every span row (tid, ts, dur, name, depth, parent's ts, flags)
          equals what `uftrace replay --flat` gives (ns times, record
          depths, context switches; its records must be `uftrace dump`'s
          where dump works): entries and exits paired per
          task, depth the record's depth; context switches inside calls
          as "linux:schedule" spans (uftrace's report and chrome export
          do the same); the repairs of docs/reader-spans.md ("uftrace record
          directories"): exits without an entry begin at the trace's first
          ts (flags 1), a forked child's exit of fork() among them (the
          calls of its parent it never leaves are no spans of its own, as
          replay and dump --chrome show it: its calls nest that many levels
          above their record depth until an exec); an exec cuts the calls
          still open at the new session's start (flags 2).
  args    every span's args: "arguments" and "retval" are the text
          `uftrace replay --no-merge` prints for the call (present only
          when the record carries them: uftrace prints "()" without).
  report  span_self_time (calls, total_dur, self_dur), printed the way
          `uftrace report` prints times, equals `uftrace report` line by
          line (recordings without fork or exec).
"""
import re
import subprocess
import sys

EXEC_NAMES = {b"execl", b"execlp", b"execle", b"execv", b"execve",
              b"execvp", b"execvpe"}
SCHED_IN = 200001
SCHED_OUT = {200002, 200007}

failures = []


def fail(message):
    failures.append(message)


def run(command):
    return subprocess.run(command, check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE).stdout


def ns(seconds):
    whole, frac = seconds.split(b".")
    return int(whole) * 1000000000 + int(frac.ljust(9, b"0")[:9])


def parse_tasks(path):
    sessions, tasks, forks = [], {}, []
    for line in open(path, "rb").read().splitlines():
        fields = dict(re.findall(rb"(\w+)=(\S+)", line))
        if line.startswith(b"SESS "):
            sessions.append((ns(fields[b"timestamp"]), int(fields[b"pid"])))
        elif line.startswith(b"TASK "):
            tasks.setdefault(int(fields[b"tid"]), int(fields[b"pid"]))
        elif line.startswith(b"FORK "):
            forks.append((ns(fields[b"timestamp"]), int(fields[b"pid"]),
                          int(fields[b"ppid"])))
    return sessions, tasks, forks


lost = [0]


def parse_flat(text):
    """Records per tid [(ts, kind, name, depth)] and the context switches
    [(ts, tid, span name or None for switch-in)] `uftrace replay --flat` prints (in ns; uftrace
    dump would do too, but 0.13's dump aborts on an f80 argument)."""
    records, switches = {}, []
    for line in text.splitlines():
        if line.startswith(b"uftrace stopped tracing"):
            break               # the list of calls never returned follows
        m = re.match(rb"^\[\d+\] (==>|<==) (\d+)/(\d+): ip \((.*)\), "
                     rb"time \((\d+)(?::\d+)?\)$", line)
        if m:
            kind = "entry" if m.group(1) == b"==>" else "exit"
            records.setdefault(int(m.group(2)), []).append(
                (int(m.group(5)), kind, m.group(4), int(m.group(3))))
            continue
        m = re.match(rb"^\[\d+\] !!! (\d+): (.*) time \((\d+)\)$", line)
        if m:
            event = m.group(2)
            if event.startswith(b"linux:sched-out"):
                # uftrace report: "linux:schedule (pre-empted)" for one
                # switched out while runnable
                name = b"linux:schedule" + event[len(b"linux:sched-out"):]
                switches.append((int(m.group(3)), int(m.group(1)), name))
            elif event == b"linux:sched-in":
                switches.append((int(m.group(3)), int(m.group(1)), None))
            continue
        m = re.match(rb"^\[\d+\] XXX \d+: lost (\d+) records$", line)
        if m:
            lost[0] += int(m.group(1))
            continue
        if line.strip():
            fail("unexpected replay --flat line: %r" % line)
    return records, switches


def check_dump(data, records):
    """`uftrace dump`'s entry and exit records (ns times, names, record
    depths) must be the ones replay --flat gave.  uftrace 0.13's dump
    aborts on an f80 argument: then there is nothing to compare."""
    result = subprocess.run(["uftrace", "dump", "-d", data],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        print("note: uftrace dump failed (%d); records from replay --flat only"
              % result.returncode)
        return
    dumped, tid = {}, None
    for line in result.stdout.splitlines():
        m = re.match(rb"^reading (\d+)\.dat", line)
        if m:
            tid = int(m.group(1))
            continue
        if line.startswith(b"reading "):
            tid = None
            continue
        m = re.match(rb"^\s*(\d+\.\d+)\s+(\d+): \[(entry|exit )\] "
                     rb"(.*)\([0-9a-f]+\) depth: (\d+)$", line)
        if m and tid is not None:
            kind = "entry" if m.group(3) == b"entry" else "exit"
            dumped.setdefault(tid, []).append((ns(m.group(1)), kind,
                                               m.group(4), int(m.group(5))))
    if dumped != records:
        fail("uftrace dump and uftrace replay --flat give other records")
    else:
        print("ok: uftrace dump gives the same %d records" %
              sum(len(r) for r in records.values()))


def parse_replay(text):
    """Per tid: the argument text of each entry and the return value text
    (or None) of each exit, in order (`replay --no-merge -f tid`)."""
    entries, exits = {}, {}
    for line in text.splitlines()[1:]:
        m = re.match(rb"^ \[\s*(\d+)\] \| (.*)$", line)
        if not m:
            fail("unexpected replay line: %r" % line)
            continue
        tid, content = int(m.group(1)), m.group(2).lstrip(b" ")
        if content.startswith(b"/*"):
            continue
        if content.startswith(b"}"):
            rest = content[1:]
            cut = rest.rfind(b" /* ")
            value = rest[:cut]
            if value:
                if not (value.startswith(b" = ") and value.endswith(b";")):
                    fail("bad exit line: %r" % line)
                value = value[3:-1]
            exits.setdefault(tid, []).append(value or None)
        elif content.endswith(b" {"):
            body = content[:-2]
            entries.setdefault(tid, []).append(body[body.index(b"("):])
        else:
            fail("unexpected replay line: %r" % line)
    return entries, exits


def session_of(sessions, forks, pid, ts):
    """(session index) uftrace's reader uses at ts: the latest of the
    process begun by then, else its parent's (fork), else its first."""
    for _ in range(64):
        own = [i for i, (t, p) in enumerate(sessions) if p == pid]
        begun = [i for i in own if sessions[i][0] <= ts]
        if begun:
            return max(begun, key=lambda i: (sessions[i][0], i))
        parent = [pp for (_, p, pp) in forks if p == pid]
        if parent:
            pid = parent[0]
            continue
        return min(own, key=lambda i: sessions[i][0]) if own else None
    return None


def expected_spans(data):
    sessions, tasks, forks = parse_tasks(data + "/task.txt")
    records, switches = parse_flat(run(["uftrace", "replay", "--flat",
                                        "-d", data]))
    check_dump(data, records)
    entries, exits = parse_replay(run(["uftrace", "replay", "--no-merge",
                                       "-f", "tid", "-d", data]))
    first_ts = min(r[0] for rs in records.values() for r in rs)
    last_ts = max(r[0] for rs in records.values() for r in rs)

    # Every context switch of a recorded task, and the end of the trace.
    by_tid = {}
    for (ts, tid, out) in switches:
        if tid in records:
            by_tid.setdefault(tid, []).append((ts, out))
            last_ts = max(last_ts, ts)

    spans = []
    for tid, rs in records.items():
        pid = tasks[tid]
        entry_text = iter(entries.get(tid, []))
        exit_text = iter(exits.get(tid, []))
        texts = []
        for r in rs:
            if r[1] == "entry":
                texts.append(next(entry_text, b"?"))
            elif r[1] == "exit":
                texts.append(next(exit_text, b"?"))
            else:
                texts.append(None)

        # The scan: exits without entries, in order (the last one is
        # outermost), and per program the depth of the calls it never
        # leaves (a forked child's parent's): the least record depth.
        missing, shifts = [], []
        entered, program = 0, None
        for (r, text) in zip(rs, texts):
            ts, kind, name, depth = r
            s = session_of(sessions, forks, pid, ts)
            if program is None or (s != program and sessions[s][1] == pid):
                shifts.append(depth)
                entered = 0
            program = s
            shifts[-1] = min(shifts[-1], depth)
            if kind == "entry":
                entered += 1
            elif kind == "exit":
                if entered:
                    entered -= 1
                else:
                    missing.append((ts, name, text))

        # The import: records and this task's switches in time order.
        stack = []
        for (end, name, retval) in reversed(missing):
            frame = dict(ts=first_ts, name=name, depth=len(stack),
                         parent=stack[-1]["ts"] if stack else None, flags=1,
                         args=None, retval=retval, end=end, prelude=True)
            stack.append(frame)
            spans.append((tid, frame))
        events = [(r[0], 0, i) for i, r in enumerate(rs)]
        events += [(ts, 1, out) for (ts, out) in by_tid.get(tid, [])]
        events.sort(key=lambda e: (e[0], e[1]))
        user, sched, program, last, segment = 0, 0, None, 0, -1
        for (ts, source, value) in events:
            if source == 1:
                if value and user > 0:
                    frame = dict(ts=ts, name=value, depth=len(stack),
                                 parent=stack[-1]["ts"] if stack else None,
                                 flags=0, args=None, retval=None, end=None,
                                 prelude=False)
                    stack.append(frame)
                    spans.append((tid, frame))
                    sched += 1
                elif not value and sched > 0:
                    stack.pop()["end"] = ts
                    sched -= 1
                continue
            r, text = rs[value], texts[value]
            _, kind, name, depth = r
            s = session_of(sessions, forks, pid, ts)
            if program is None or (s != program and sessions[s][1] == pid):
                segment += 1
            if program is not None and s != program and sessions[s][1] == pid:
                cut = max(sessions[s][0], last)
                for frame in stack:
                    if not frame["prelude"]:
                        frame["end"], frame["flags"] = cut, 2
                stack, user, sched = [], 0, 0
            program, last = s, ts
            if kind == "entry":
                if depth - shifts[segment] != len(stack):
                    fail("tid %d: %s at depth %d in uftrace (%d levels above "
                         "it not its own), nesting %d" %
                         (tid, name.decode(), depth, shifts[segment],
                          len(stack)))
                # "()": no argument data (uftrace prints the parentheses
                # whether or not the record has arguments).
                frame = dict(ts=ts, name=name, depth=len(stack),
                             parent=stack[-1]["ts"] if stack else None,
                             flags=0, args=None if text == b"()" else text,
                             retval=None, end=None, prelude=False)
                stack.append(frame)
                spans.append((tid, frame))
                user = 0 if name in EXEC_NAMES else user + 1
            elif kind == "exit":
                if stack:
                    frame = stack.pop()
                    if not frame["prelude"]:
                        frame["end"] = ts
                        frame["retval"] = text
                user = max(user - 1, 0)
        for frame in stack:
            if not frame["prelude"]:
                frame["end"], frame["flags"] = last_ts, 2

    rows = []
    for tid, f in spans:
        rows.append((tid, f["ts"], f["end"] - f["ts"], f["name"], f["depth"],
                     f["parent"], f["flags"], f["args"], f["retval"]))
    return rows


def actual_spans(tracestore, session):
    out = run([tracestore, "sql", "--csv", session,
               "SELECT s.tid, s.ts, s.dur, hex(s.name), s.depth, p.ts, s.flags,"
               " json_extract(s.args, '$.arguments') IS NOT NULL,"
               " hex(json_extract(s.args, '$.arguments')),"
               " json_extract(s.args, '$.retval') IS NOT NULL,"
               " hex(json_extract(s.args, '$.retval')),"
               " s.args IS NULL OR json_valid(s.args)"
               " FROM span AS s LEFT JOIN span AS p ON p.id = s.parent_id"])
    rows = []
    for line in out.splitlines()[1:]:
        f = line.decode().split(",")
        if f[11] != "1":
            fail("span args are not JSON: %s" % line)
        rows.append((int(f[0]), int(f[1]), int(f[2]), bytes.fromhex(f[3]),
                     int(f[4]), int(f[5]) if f[5] else None, int(f[6]),
                     bytes.fromhex(f[8]) if f[7] == "1" else None,
                     bytes.fromhex(f[10]) if f[9] == "1" else None))
    return rows


def time_unit(value):
    """uftrace's print_time_unit: truncated to 3 decimals of us/ms/s."""
    if value == 0:
        return "%7s %2s" % ("", "")
    units = ["us", "ms", " s", " m", " h"]
    limits = [1000, 1000, 1000, 60, 24, 2 ** 31 - 1]
    small = 0
    for index in range(len(units)):
        small = value % limits[index]
        value //= limits[index]
        if value < limits[index + 1]:
            break
    if value > 999:
        value = small = 999
    return "%3d.%03d %s" % (value, small, units[index])


def check_report(tracestore, session, data):
    out = run(["uftrace", "report", "-d", data]).decode()
    expected = sorted(line for line in out.splitlines()[2:] if line.strip())
    rows = run([tracestore, "sql", "--csv", session,
                "SELECT hex(name), calls, total_dur, self_dur "
                "FROM span_self_time"]).decode().splitlines()[1:]
    actual = []
    for row in rows:
        name, calls, total, self_ = row.split(",")
        actual.append("  %s  %s  %10d  %s" % (time_unit(int(total)),
                                              time_unit(int(self_)), int(calls),
                                              bytes.fromhex(name).decode()))
    actual.sort()
    if expected != actual:
        for line in sorted(set(expected) ^ set(actual))[:20]:
            print(("uftrace: " if line in expected else "ours:    ") + line)
        fail("span_self_time differs from uftrace report")
    else:
        print("ok: %d functions as uftrace report prints them" % len(actual))


def main():
    tracestore, session, data, checks = sys.argv[1:5]
    checks = checks.split(",")
    if "spans" in checks or "args" in checks:
        expected = sorted(expected_spans(data), key=repr)
        actual = sorted(actual_spans(tracestore, session), key=repr)
        if "spans" not in checks:
            expected = [e[:1] + e[7:] for e in expected]
            actual = [a[:1] + a[7:] for a in actual]
        elif "args" not in checks:
            expected = [e[:7] for e in expected]
            actual = [a[:7] for a in actual]
        if expected != actual:
            missing = [e for e in expected if e not in actual]
            extra = [a for a in actual if a not in expected]
            for e in missing[:10]:
                print("uftrace: %r" % (e,))
            for a in extra[:10]:
                print("ours:    %r" % (a,))
            fail("%d spans differ from uftrace's output" %
                 (len(missing) + len(extra)))
        else:
            args = sum(1 for e in expected if e[-1] is not None or e[-2] is not None)
            print("ok: %d spans (%d with arguments or a return value) as "
                  "uftrace replay gives them" % (len(actual), args))
    if "spans" in checks:
        out = run([tracestore, "sql", "--csv", session,
                   "SELECT dropped, repaired FROM store_info "
                   "WHERE name = 'span'"]).decode().splitlines()[1].split(",")
        repaired = sum(1 for e in expected if e[6] != 0)
        if [int(out[0]), int(out[1])] != [lost[0], repaired]:
            fail("store_info dropped, repaired: %s, not %d lost records "
                 "(replay) and %d repaired spans" % (out, lost[0], repaired))
        else:
            print("ok: dropped %d (uftrace's lost records), repaired %d"
                  % (lost[0], repaired))
    if "report" in checks:
        check_report(tracestore, session, data)
    for message in failures:
        print("FAIL: " + message)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
