#!/usr/bin/env python3
"""The rollups read while a writer writes: exact for the snapshot read, and
never going back.

    rollup_live.py EXTENSION SESSION [--kill-after S] -- WRITER ARGS...

(--kill-after: SIGKILL the writer once 8 rounds have seen its counts grow
3 times, or after S seconds.)

Removes SESSION, starts the writer, and while it runs asks the session, again and again
from this process, for each rollup's answer together with the records it
covers (the rollup tables' hidden column `records`), then counts the same
records' rows with SQL (WHERE id < records) and compares:

  - rollup_event_count: events per store and name = count(*) of the
    store's first `records` rows per name (the name the `event` view
    gives: the store's own for kvm_exit and sched_switch);
  - rollup_span: calls per name = count(*) of the first rows of span;
  - rollup_page_fault: faults, hard and soft per (pid, comm, module);
  - rollup_kvm_exit: count and unpaired per (reason, exit_code);
  - rollup_line: its hits in all = count(*) of line's first rows (per
    line, a GROUP BY of a million rows a round would take the rounds
    seconds each: the end's comparison of line_time and line_hot with
    the scan checks every line).

Every count of a group is at least what it was in the answer before.
Once the writer has ended (or been SIGKILLed after S seconds), every view
equals the full scan (rollup_views_test.py).  A writer that exits 77
skips the test.
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EVENT_NAME = {"ftrace_event": "name", "page_fault": "name", "span": "name",
              "counter": "name", "kvm_exit": "'kvm_exit'",
              "sched_switch": "'sched_switch'"}


# (rollup table, key columns, its rows with `records` last, the same
# counts from the store's rows below `records`, what they are).
KIND_CHECKS = [
    ("rollup_span", 1, "SELECT name, calls, records FROM rollup_span",
     "SELECT name, count(*) FROM span WHERE id < ? GROUP BY name",
     "span calls"),
    ("rollup_page_fault", 3,
     "SELECT pid, comm, module, faults, hard, soft, records "
     "FROM rollup_page_fault",
     "SELECT pid, comm, module, count(*), "
     "count(CASE WHEN hard = 1 THEN 1 END), "
     "count(CASE WHEN hard = 0 THEN 1 END) FROM page_fault "
     "WHERE id < ? GROUP BY 1, 2, 3", "page faults"),
    ("rollup_kvm_exit", 2,
     "SELECT reason, exit_code, count, unpaired, records FROM rollup_kvm_exit",
     "SELECT reason, exit_code, count(*), count(*) - count(dur) "
     "FROM kvm_exit WHERE id < ? GROUP BY 1, 2", "exit reasons"),
    ("rollup_line", 0,
     "SELECT sum(hits), max(records) FROM rollup_line HAVING count(*) > 0",
     "SELECT count(*) FROM line WHERE id < ?", "line hits"),
]


def connect(ext, session):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.execute("SELECT tracestore_attach(?)", (session,))
    return db


def tables(db):
    return {r[0] for r in db.execute(
        "SELECT name FROM sqlite_temp_master WHERE type = 'table'")}


def check_once(db, have, last, fails, missing):
    """One round of comparisons; returns the rows checked.  A store the
    rollups count but this connection has no table of yet (a writer makes
    stores on first use, after the last attach) is added to missing and
    compared once attached again."""
    checked = 0
    if "rollup_event_count" in have:
        got = {}
        records = {}
        for store, name, count, n in db.execute(
                "SELECT store, name, count, records FROM rollup_event_count"):
            got[(store, name)] = count
            records[store] = n
        for store, n in records.items():
            if store not in have:
                missing.add(store)
                continue
            want = dict(((store, k), c) for k, c in db.execute(
                "SELECT %s, count(*) FROM %s WHERE id < ? GROUP BY 1" %
                (EVENT_NAME[store], store), (n,)))
            mine = {k: v for k, v in got.items() if k[0] == store}
            if mine != want:
                fails.append("event counts of %s at %d records: %s, the "
                             "scan says %s" % (store, n, sorted(mine.items())[:5],
                                               sorted(want.items())[:5]))
            checked += len(want)
        for k, v in got.items():
            if v < last.get(("event",) + k, 0):
                fails.append("%s went back: %d -> %d" % (k, last[("event",) + k],
                                                         v))
            last[("event",) + k] = v
    for table, keys, rollup_sql, scan_sql, what in KIND_CHECKS:
        if table not in have:
            continue
        rows = db.execute(rollup_sql).fetchall()
        if not rows:
            continue
        n = rows[0][-1]
        want = {r[:keys]: r[keys:] for r in db.execute(scan_sql, (n,))}
        got = {r[:keys]: r[keys:-1] for r in rows}
        if got != want:
            fails.append("%s at %d records differ from the scan" % (what, n))
        checked += len(want)
    return checked


def main():
    ext, session = sys.argv[1], sys.argv[2]
    kill_after = None
    if sys.argv[3] == "--kill-after":
        kill_after = float(sys.argv[4])
    writer = sys.argv[sys.argv.index("--") + 1:]
    shutil.rmtree(session, ignore_errors=True)
    os.makedirs(os.path.dirname(os.path.abspath(session)), exist_ok=True)
    started = time.monotonic()
    proc = subprocess.Popen(writer, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
    fails = []
    last = {}
    rounds = checked = grew = 0
    db = None
    have = set()
    missing = set()
    previous = None
    while proc.poll() is None:
        # --kill-after: killed once the checks have seen the counts grow
        # (8 rounds, 3 of growth: a time alone left a loaded machine 4),
        # or at the latest after that many seconds.
        if kill_after is not None and (
                (rounds >= 8 and grew >= 3) or
                time.monotonic() - started > kill_after):
            proc.kill()
            proc.wait()
            break
        if db is None:
            if not os.path.exists(os.path.join(session, "session.tracer")):
                time.sleep(0.02)
                continue
            try:
                db = connect(ext, session)
            except sqlite3.Error:
                db = None               # not every store is there yet
                time.sleep(0.05)
                continue
        if len(have) < 4 or missing:
            db.execute("SELECT tracestore_attach(?)", (session,))
            have = tables(db)
            missing = set()
        try:
            checked += check_once(db, have, last, fails, missing)
        except sqlite3.Error as e:
            fails.append("a query failed while the writer ran: %s" % e)
            break
        total = sum(v for k, v in last.items() if k[0] == "event")
        grew += previous is not None and total > previous
        previous = total
        rounds += 1
        if len(fails) > 5:
            break
        time.sleep(0.01)
    out, err = proc.communicate()
    if proc.returncode == 77:
        print(out + err)
        return 77
    if proc.returncode != 0 and not (kill_after is not None and
                                     proc.returncode == -9):
        fails.append("the writer exited %d: %s%s" % (proc.returncode, out,
                                                     err))
    # (a round reads every view: under ASan on a busy 2-core machine the
    # writer's run held 4 of them)
    if rounds < 3 or grew < 2:
        fails.append("only %d rounds while the writer ran, counts grew %d "
                     "times" % (rounds, grew))
    if not fails:
        r = subprocess.run([sys.executable,
                            os.path.join(HERE, "rollup_views_test.py"), ext,
                            session], stdout=subprocess.PIPE,
                           universal_newlines=True)
        print(r.stdout.strip().splitlines()[-1])
        if r.returncode != 0:
            fails.append("after the writer: " + r.stdout)
    for f in fails:
        print("FAIL: %s" % f)
    print("%d rounds while the writer ran, %d groups compared, counts grew "
          "%d times" % (rounds, checked, grew))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
