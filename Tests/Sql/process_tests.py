#!/usr/bin/env python3
"""process_tests.py: the extension in other processes -- Python's sqlite3
module and the sqlite3 shell -- while a capture appends.

Usage:

    process_tests.py OPTIONS CASE

    --ext PATH          tracestore.so (load_extension takes the path)
    --writer PATH       Tests/Sql/LiveWriter (the capture that appends)
    --tracestore PATH   the tracestore command (imports the sample)
    --sqlite3 PATH      the sqlite3 shell
    --ftrace FILE       the ftrace text capture (the oracles' input)
    --work DIR          scratch directory (emptied first)

Cases (one CTest entry each; SqlLiveTests.cmake):

    python_load_counts    load the extension by path, attach the imported
                          capture, compare counts and rows with grep -c and
                          a parse of the text; pandas too if installed
    python_load_by_name   load_extension("tracestore"), found by dlopen
                          (LD_LIBRARY_PATH from CTest, or the installed copy)
    python_snapshots      statement snapshots seen through the sqlite3 module,
                          with a writer appending on command between steps
    live_python_reader    a writer commits in a loop while Python runs
                          SELECT count(*), max(ts) ... over and over
    live_shell_reader     the same, with the sqlite3 shell as the reader
    live_long_query       a slow scan and a CPU-heavy query hold their
                          snapshots while the writer goes on; its progress
                          is measured from its own log

Every expected value comes from the capture text (grep, a regular
expression) or from the writer's arithmetic: LiveWriter's record i has
ts = 1000 + 10*i in both of its stores, and commits whole batches, so a
snapshot of n records has max(ts) = 1000 + 10*(n-1) and n a multiple of the
batch size.
"""

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time

ARGS = None


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def child_env():
    """The environment for programs we start: without the ASan preload,
    which only this interpreter needs (instrumented programs link it)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def connect(ext=None):
    """An in-memory connection with the extension loaded, the way the
    README shows it."""
    conn = sqlite3.connect(":memory:")
    if not hasattr(conn, "enable_load_extension"):
        raise TestFailure(
            "%s: this Python's sqlite3 module cannot load extensions "
            "(Debian's python3 can)" % sys.executable)
    conn.enable_load_extension(True)
    conn.load_extension(ext or ARGS.ext)
    conn.enable_load_extension(False)
    return conn


def ts_of(i):
    return 1000 + 10 * i


def check_count_max(count, max_ts, batch, what):
    """A snapshot of `count` records of LiveWriter's stores."""
    if count == 0:
        check(max_ts is None, "%s: empty, yet max(ts) = %r" % (what, max_ts))
        return
    check(max_ts == ts_of(count - 1),
          "%s: count %d and max(ts) %r disagree (want %d)"
          % (what, count, max_ts, ts_of(count - 1)))
    check(count % batch == 0,
          "%s: count %d is not a whole number of commits of %d"
          % (what, count, batch))


# ---------------------------------------------------------------------------
# The writer.

class StepWriter:
    """LiveWriter in step mode: appends and commits when told to."""

    def __init__(self, session):
        self.proc = subprocess.Popen(
            [ARGS.writer, session, "step"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, env=child_env())
        self.total = self._reply()
        self.batches = []              # (first id, last id + 1, commit no.)

    def _reply(self):
        line = self.proc.stdout.readline()
        check(line.startswith("committed "), "writer said %r" % line)
        return int(line.split()[1])

    def append(self, n):
        self.proc.stdin.write("append %d\n" % n)
        self.proc.stdin.flush()
        first = self.total
        self.total = self._reply()
        check(self.total == first + n, "writer committed %d" % self.total)
        self.batches.append((first, self.total, len(self.batches) + 1))
        return self.total

    def comm_of(self, i):
        for first, end, number in self.batches:
            if first <= i < end:
                return "batch%d" % number
        raise TestFailure("no batch holds record %d" % i)

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        check(self.proc.wait(timeout=30) == 0, "writer failed")


class LoopWriter:
    """LiveWriter in loop mode: commits BATCH records per store, pausing
    PAUSE_US between commits, for SECONDS; logs "commit TOTAL T"."""

    def __init__(self, session, seconds, batch, pause_us):
        self.batch = batch
        self.log_path = session + ".log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [ARGS.writer, session, "loop", str(seconds), str(batch),
             str(pause_us)], stdout=self.log, env=child_env())
        deadline = time.monotonic() + 10
        while not os.path.exists(os.path.join(session, "page_fault.store")):
            check(time.monotonic() < deadline, "writer did not start")
            check(self.proc.poll() is None, "writer exited early")
            time.sleep(0.01)

    def running(self):
        return self.proc.poll() is None

    def finish(self):
        """Waits for the writer; returns [(total, monotonic time)]."""
        check(self.proc.wait(timeout=60) == 0, "writer failed")
        self.log.close()
        commits = []
        with open(self.log_path) as f:
            for line in f:
                word, total, when = line.split()
                check(word == "commit", "writer log: %r" % line)
                commits.append((int(total), float(when)))
        check(commits, "the writer committed nothing")
        return commits


def attach(conn, session):
    n = conn.execute("SELECT tracestore_attach(?)", (session,)).fetchone()[0]
    check(n >= 1, "tracestore_attach returned %r" % n)
    return n


# ---------------------------------------------------------------------------
# Python loads the extension and reads the sample capture.

def grep_count(pattern):
    out = subprocess.run(["grep", "-c", "--", pattern, ARGS.ftrace],
                         capture_output=True, text=True, env=child_env())
    return int(out.stdout.strip() or "0")


def import_sample():
    session = os.path.join(ARGS.work, "capture.trace")
    subprocess.run([ARGS.tracestore, "import", "-o", session, ARGS.ftrace],
                   check=True, capture_output=True, env=child_env())
    return session


LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): "
                  r"(\w+): (.*)$")


def parse_page_faults():
    """(ts in ns, address, comm, tid) of each page fault line, in order."""
    rows = []
    with open(ARGS.ftrace, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            m = LINE.match(line)
            if not m or not m.group(6).startswith("page_fault_"):
                continue
            frac = m.group(5)
            ts = int(m.group(4)) * 10**9 + int(frac) * 10**(9 - len(frac))
            address = int(re.search(r"address=(0x[0-9a-f]+)",
                                    m.group(7)).group(1), 16)
            rows.append((ts, address, m.group(1).strip(), int(m.group(2))))
    return rows


def check_sample_counts(conn):
    check(conn.execute("SELECT count(*) FROM page_fault").fetchone()[0]
          == grep_count(" page_fault_"), "page_fault count != grep -c")
    check(conn.execute("SELECT count(*) FROM sched_switch").fetchone()[0]
          == grep_count(" sched_switch: "), "sched_switch count != grep -c")
    names = conn.execute("SELECT name, count(*) FROM ftrace_event "
                         "GROUP BY name").fetchall()
    check(names, "ftrace_event is empty")
    for name, count in names:
        want = grep_count(" %s: " % name)
        check(count == want, "ftrace_event %s: %d rows, grep -c %d"
              % (name, count, want))
    total = conn.execute("SELECT (SELECT count(*) FROM page_fault)"
                         " + (SELECT count(*) FROM sched_switch)"
                         " + (SELECT count(*) FROM ftrace_event)"
                         " + (SELECT count(*) FROM kvm_exit)").fetchone()[0]
    lines = subprocess.run(["grep", "-vc", "^#", ARGS.ftrace],
                           capture_output=True, text=True).stdout.strip()
    check(total == int(lines), "%d rows for %s event lines" % (total, lines))


def case_python_load_counts():
    session = import_sample()
    # Both forms of the path load: with and without the .so suffix.
    conn = connect(re.sub(r"\.so$", "", ARGS.ext))
    stores = [f for f in os.listdir(session) if f.endswith(".store")
              and not f.startswith("string")]
    check(attach(conn, session) == len(stores) + 1,
          "tracestore_attach did not count one table per store + store_info")
    check_sample_counts(conn)

    # Rows as they come out of a cursor, against the text.
    want = parse_page_faults()
    got = [(ts, address & (2**64 - 1), comm, tid) for ts, address, comm, tid
           in conn.execute("SELECT ts, address, comm, tid FROM page_fault "
                           "ORDER BY id")]
    check(got == want, "page_fault rows differ from the text (first: %r, %r)"
          % (next((g for g, w in zip(got, want) if g != w), None),
             next((w for g, w in zip(got, want) if g != w), None)))

    # pandas is optional: used if installed, never required.
    try:
        import pandas as pd
    except ImportError:
        print("pandas not installed: pd.read_sql_query not tried")
    else:
        frame = pd.read_sql_query("SELECT comm, count(*) AS faults FROM "
                                  "page_fault GROUP BY comm", conn)
        check(int(frame["faults"].sum()) == len(want),
              "pandas: faults do not add up")
        print("pandas: read_sql_query agrees")
    conn.close()


def case_python_load_by_name():
    session = import_sample()
    conn = connect("tracestore")
    # dlopen found a tracestore.so by name: the one under test when CTest
    # put its directory on LD_LIBRARY_PATH (not an older installed copy).
    with open("/proc/self/maps") as f:
        loaded = {line.split()[-1] for line in f
                  if line.rstrip().endswith("/tracestore.so")}
    print("loaded %s" % ", ".join(sorted(loaded)))
    check(loaded == {os.path.realpath(ARGS.ext)},
          "load_extension('tracestore') loaded %r, not %s"
          % (loaded, ARGS.ext))
    attach(conn, session)
    check_sample_counts(conn)
    conn.close()


# ---------------------------------------------------------------------------
# Snapshots through the sqlite3 module.

def count_max(conn, table="page_fault"):
    return tuple(conn.execute("SELECT count(*), max(ts) FROM %s" % table)
                 .fetchone())


def check_row(writer, row):
    i, ts, address, name, comm = row
    check(ts == ts_of(i) and address == i and name == "fault_%d" % (i % 3)
          and comm == writer.comm_of(i), "row %r is not what was written"
          % (row,))


def wal_pins_like_sqlite():
    """What SQLite does with its own tables (WAL, autocommit): does a
    statement see commits made while another statement of the same
    connection is unfinished?  Returns (count seen then, count after)."""
    path = os.path.join(ARGS.work, "wal.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE t(x)")
    writer.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(10)])
    reader = sqlite3.connect(path, isolation_level=None)
    open_cursor = reader.execute("SELECT x FROM t")
    open_cursor.fetchone()
    writer.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(5)])
    during = reader.execute("SELECT count(*) FROM t").fetchone()[0]
    open_cursor.close()
    after = reader.execute("SELECT count(*) FROM t").fetchone()[0]
    reader.close()
    writer.close()
    return during, after


def case_python_snapshots():
    session = os.path.join(ARGS.work, "live.trace")
    writer = StepWriter(session)
    writer.append(100)
    conn = connect()
    attach(conn, session)

    # The next statement sees what was committed since the last one.
    check(count_max(conn) == (100, ts_of(99)), "first count")
    writer.append(50)
    check(count_max(conn) == (150, ts_of(149)),
          "the next statement did not see the commit")
    # The same text again (Python reuses its cached prepared statement).
    writer.append(10)
    check(count_max(conn) == (160, ts_of(159)), "cached statement is stale")

    # A scan keeps its snapshot while the store grows (and is remapped)
    # under it; its rows are exactly what was written.
    cursor = conn.execute("SELECT id, ts, address, name, comm FROM page_fault")
    rows = cursor.fetchmany(10)
    writer.append(30000)
    rows += cursor.fetchall()
    check([r[0] for r in rows] == list(range(160)),
          "the scan saw %d rows, not the 160 of its snapshot" % len(rows))
    for row in rows:
        check_row(writer, row)
    check(count_max(conn) == (30160, ts_of(30159)), "after the scan")

    # One statement, one snapshot of each store, however many cursors it
    # opens on them and whenever it opens them: appends between rows.
    n0 = writer.total
    cursor = conn.execute(
        "SELECT a.id,"
        "       (SELECT count(*) FROM page_fault AS b"
        "         WHERE b.id >= a.id - a.id),"
        "       (SELECT max(ts) FROM page_fault AS c WHERE c.id >= a.id * 0),"
        "       (SELECT count(*) FROM sched_switch AS s"
        "         WHERE s.id >= a.id - a.id),"
        "       (SELECT max(ts) FROM sched_switch AS t"
        "         WHERE t.id >= a.id * 0)"
        "  FROM page_fault AS a WHERE a.id % 5000 = 0")
    seen = 0
    for row in cursor:
        check(row[1:] == (n0, ts_of(n0 - 1), n0, ts_of(n0 - 1)),
              "row %r of one statement does not match its snapshot (%d)"
              % (row, n0))
        seen += 1
        writer.append(3000)
    check(seen == (n0 + 4999) // 5000, "rows of the one-snapshot statement")
    check(count_max(conn) == (writer.total, ts_of(writer.total - 1)),
          "after the one-snapshot statement")
    check(count_max(conn, "sched_switch")
          == (writer.total, ts_of(writer.total - 1)), "sched_switch after")

    # The common idiom conn.execute(...).fetchone() on a many-row result:
    # the temporary cursor is reset when Python drops it, so it does not
    # hold its snapshot for the statements after it.
    check(conn.execute("SELECT ts FROM page_fault").fetchone() == (1000,),
          "first ts")
    writer.append(7)
    check(count_max(conn) == (writer.total, ts_of(writer.total - 1)),
          "a dropped cursor kept its snapshot")

    # An unfinished cursor that is still referenced: statements on the
    # same connection that read the same store while it is open see its
    # snapshot, as SQLite's own tables do in WAL mode (checked here on a
    # real WAL database); other stores are not held.  Closing (or
    # finishing) the cursor lets the next statement see the commits.
    wal_during, wal_after = wal_pins_like_sqlite()
    n0 = writer.total
    held = conn.execute("SELECT ts FROM page_fault")
    held.fetchone()
    writer.append(11)
    during = count_max(conn)[0]
    check(count_max(conn, "sched_switch")[0] == writer.total,
          "an open cursor on page_fault held sched_switch's snapshot")
    held.close()
    after = count_max(conn)[0]
    print("unfinished cursor: later statement saw %d of %d records "
          "(SQLite WAL table: %d of %d)" % (during, writer.total,
                                            wal_during, wal_after))
    check(after == writer.total, "closing the cursor did not release it")
    check((during == n0) == (wal_during == 10),
          "an unfinished cursor does not hold the snapshot as SQLite's own "
          "tables do (saw %d, WAL saw %d)" % (during, wal_during))

    writer.close()
    check(count_max(conn) == (writer.total, ts_of(writer.total - 1)),
          "after the writer closed")
    conn.close()


# ---------------------------------------------------------------------------
# A writer in a loop, readers in other processes.

TWO_STORES = ("SELECT (SELECT count(*) FROM page_fault),"
              " (SELECT max(ts) FROM page_fault),"
              " (SELECT count(*) FROM sched_switch),"
              " (SELECT max(ts) FROM sched_switch)")
ROWID_JOIN = ("SELECT count(*), max(p.ts), max(s.ts),"
              " (SELECT count(*) FROM page_fault),"
              " (SELECT count(*) FROM sched_switch)"
              " FROM page_fault AS p JOIN sched_switch AS s ON s.id = p.id")
SELF = ("SELECT count(*), max(ts), (SELECT count(*) FROM page_fault AS b),"
        " (SELECT max(ts) FROM page_fault AS c) FROM page_fault AS a")


def check_results(kind, row, batch, what):
    if kind == "count_max":
        check_count_max(row[0], row[1], batch, what)
    elif kind == "two_stores":
        check_count_max(row[0], row[1], batch, what + " (page_fault)")
        check_count_max(row[2], row[3], batch, what + " (sched_switch)")
    elif kind == "rowid_join":
        joined, pmax, smax, np, ns = row
        check(np % batch == 0 and ns % batch == 0, "%s: %d and %d records "
              "are not whole commits" % (what, np, ns))
        check(joined == min(np, ns), "%s: the join of %d and %d records "
              "has %d rows" % (what, np, ns, joined))
        check(pmax == smax == (ts_of(joined - 1) if joined else None),
              "%s: max(ts) %r and %r after joining %d rows"
              % (what, pmax, smax, joined))
    elif kind == "self":
        check(row[0] == row[2] and row[1] == row[3], "%s: cursors of one "
              "statement saw different snapshots: %r" % (what, row))
        check_count_max(row[0], row[1], batch, what)


def check_progression(counts, final, minimum_distinct, what):
    for a, b in zip(counts, counts[1:]):
        check(b >= a, "%s: count went back from %d to %d" % (what, a, b))
    distinct = len(set(counts))
    print("%s: %d queries, %d distinct counts, last %d of %d"
          % (what, len(counts), distinct, counts[-1], final))
    check(distinct >= minimum_distinct, "%s: only %d distinct counts seen"
          % (what, distinct))


def case_live_python_reader():
    batch = 7
    session = os.path.join(ARGS.work, "live.trace")
    writer = LoopWriter(session, 4, batch, 300)
    conn = connect()
    attach(conn, session)
    counts = []
    k = 0
    while writer.running():
        k += 1
        row = conn.execute("SELECT count(*), max(ts) FROM page_fault") \
                  .fetchone()
        check_results("count_max", row, batch, "query %d" % k)
        counts.append(row[0])
        if k % 10 == 0:
            for kind, sql in (("two_stores", TWO_STORES),
                              ("rowid_join", ROWID_JOIN), ("self", SELF)):
                check_results(kind, conn.execute(sql).fetchone(), batch,
                              "query %d (%s)" % (k, kind))
    commits = writer.finish()
    final = commits[-1][0]
    check(count_max(conn) == (final, ts_of(final - 1)),
          "the last statement did not see the last commit")
    check_progression(counts, final, 20, "python reader")
    conn.close()


def case_live_shell_reader():
    batch = 5
    session = os.path.join(ARGS.work, "live.trace")
    writer = LoopWriter(session, 5, batch, 500)
    ext = re.sub(r"\.so$", "", ARGS.ext)
    script = [".load '%s'" % ext.replace("'", "''"),
              ".output /dev/null",
              "SELECT tracestore_attach('%s');" % session.replace("'", "''"),
              ".output stdout", ".mode list"]
    kinds = []
    for k in range(1, 2001):
        script.append("SELECT 'count_max', count(*), max(ts) FROM "
                      "page_fault;")
        kinds.append("count_max")
        if k % 20 == 0:
            for kind, sql in (("two_stores", TWO_STORES),
                              ("rowid_join", ROWID_JOIN), ("self", SELF)):
                script.append(sql.replace("SELECT ", "SELECT '%s', " % kind,
                                          1) + ";")
                kinds.append(kind)
    time.sleep(0.2)
    shell = subprocess.run([ARGS.sqlite3, "-batch", "-bail", ":memory:"],
                           input="\n".join(script) + "\n",
                           capture_output=True, text=True, timeout=120)
    commits = writer.finish()
    check(shell.returncode == 0, "sqlite3 failed: %s" % shell.stderr)
    lines = shell.stdout.splitlines()
    check(len(lines) == len(kinds), "sqlite3 printed %d lines for %d "
          "queries" % (len(lines), len(kinds)))
    counts = []
    for n, line in enumerate(lines):
        fields = line.split("|")
        check(fields[0] == kinds[n], "line %d: %r" % (n + 1, line))
        row = tuple(int(v) if v != "" else None for v in fields[1:])
        check_results(fields[0], row, batch, "sqlite3 line %d" % (n + 1))
        if fields[0] == "count_max":
            counts.append(row[0])
    check_progression(counts, commits[-1][0], 20, "sqlite3 shell reader")


def progress(commits, start, end):
    """Commits and the longest pause between commits in [start, end]."""
    times = [t for _, t in commits if start <= t <= end]
    gaps = [b - a for a, b in zip([start] + times, times + [end])]
    return len(times), max(gaps)


def case_live_long_query():
    batch = 5
    session = os.path.join(ARGS.work, "live.trace")
    writer = LoopWriter(session, 9, batch, 1000)
    conn = connect()
    other = connect()
    attach(conn, session)
    attach(other, session)
    time.sleep(1.5)

    # A slow scan: a cursor read a little at a time for about 2.5 s.
    t0 = time.monotonic()
    cursor = conn.execute("SELECT id, ts, address FROM page_fault")
    first = cursor.fetchone()
    check(first == (0, 1000, 0), "first row %r" % (first,))
    rows = 1
    seen_by_other = []
    chunk = max(1, count_max(other)[0] // 50)
    while True:
        got = cursor.fetchmany(chunk)
        for i, ts, address in got:
            check(i == rows and ts == ts_of(i) and address == i,
                  "slow scan row %r" % ((i, ts, address),))
            rows += 1
        if not got:
            break
        # Another connection meanwhile sees the writer's new commits.
        n, m = count_max(other)
        check_count_max(n, m, batch, "second connection during the scan")
        seen_by_other.append(n)
        time.sleep(0.05)
    t1 = time.monotonic()
    check(rows % batch == 0, "the slow scan saw %d rows: not whole commits"
          % rows)
    check(seen_by_other[-1] > rows, "the writer added nothing during a %.1f s"
          " scan" % (t1 - t0))

    # A CPU-heavy statement over the store (a self-join of the first k
    # records) while the writer goes on.
    k = min(6000, rows)
    t2 = time.monotonic()
    pairs = conn.execute("SELECT count(*), (SELECT count(*) FROM page_fault)"
                         " FROM page_fault AS a JOIN page_fault AS b"
                         " ON b.id < %d WHERE a.id < %d" % (k, k)).fetchone()
    t3 = time.monotonic()
    check(pairs[0] == min(k, pairs[1]) ** 2, "self-join counted %r" % (pairs,))

    commits = writer.finish()
    before, _ = progress(commits, commits[0][1], t0)
    rate = before / (t0 - commits[0][1])
    for what, start, end in (("slow scan", t0, t1),
                             ("heavy query", t2, t3)):
        n, gap = progress(commits, start, end)
        print("%s: %.2f s, writer made %d commits (%.0f/s; %.0f/s before "
              "the query), longest pause %.3f s"
              % (what, end - start, n, n / (end - start), rate, gap))
        check(n >= 0.25 * rate * (end - start),
              "%s: the writer slowed to %d commits in %.2f s (%.0f/s before)"
              % (what, n, end - start, rate))
        check(gap < max(0.5, 0.4 * (end - start)),
              "%s: the writer paused %.3f s" % (what, gap))
    final = commits[-1][0]
    check(count_max(conn) == (final, ts_of(final - 1)), "after the writer")
    conn.close()
    other.close()


CASES = {
    "python_load_counts": case_python_load_counts,
    "python_load_by_name": case_python_load_by_name,
    "python_snapshots": case_python_snapshots,
    "live_python_reader": case_live_python_reader,
    "live_shell_reader": case_live_shell_reader,
    "live_long_query": case_live_long_query,
}


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    for option in ("ext", "writer", "tracestore", "sqlite3", "ftrace",
                   "work"):
        parser.add_argument("--" + option, required=True)
    parser.add_argument("case", choices=sorted(CASES))
    ARGS = parser.parse_args()
    ARGS.work = os.path.abspath(ARGS.work)
    shutil.rmtree(ARGS.work, ignore_errors=True)
    os.makedirs(ARGS.work)
    try:
        CASES[ARGS.case]()
    except TestFailure as e:
        print("FAIL: %s: %s" % (ARGS.case, e), file=sys.stderr)
        return 1
    print("PASS: %s" % ARGS.case)
    return 0


if __name__ == "__main__":
    sys.exit(main())
