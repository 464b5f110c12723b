#!/usr/bin/env python3
"""The DuckDB extension over sessions being written, and over damaged ones.

usage: duckdb_live_test.py live|damaged TRACESTORE DUCKDB_HOST EXTENSION
                           GENSESSION SHARED WORKDIR

live: GenSession writes spans (as the importers do, then as the Python
    tracer does: rows committed at the call, their dur rewritten until the
    return) with a pause after each commit, while one DuckDB process (the C
    host on libduckdb) runs the same statement again and again:
        SELECT count(*), sum(id), count(name), min(id), max(id) FROM span
    Every answer must be a committed snapshot: ids 0..n-1 all there (sum
    n(n-1)/2, min 0, max n-1), every row named (no row half-written), and
    n never smaller than the answer before.  Then the session, closed, is
    read by SQLite's extension (the oracle) and DuckDB: the same count,
    id sum and per-name counts.  Then the same while `tracestore
    trace-python` itself records a busy Python program for 3 seconds.

damaged: a session from capture-1's trace.dat with
    - a string id in ftrace_event.store past the string store: the query
      fails with an error naming the file and the byte offset of that id;
    - ftrace_event.store cut to half its committed records: an error
      naming the file;
    - its header's bytes overwritten: an error naming the file;
    and a 5-million-row span store cut to half while a query reads it
    (the read guard, Guard/StoreGuard.c): the query fails with an error
    naming the file, and the process ends normally.  None may crash
    DuckDB (a signal) or hang.
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import threading
import time

MODE, TS, HOST, EXT, GEN, SHARED, WORK = sys.argv[1:8]


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def duckdb(statements, timeout=300):
    r = subprocess.run([HOST, "-t", "2", "LOAD '%s'" % EXT] + statements,
                       capture_output=True, timeout=timeout)
    if r.returncode < 0:
        fail("DuckDB died of signal %d running %r" % (-r.returncode,
                                                      statements[:1]))
    return r


def results(stdout):
    """Each statement's rows (after its header), LOAD's empty result
    skipped."""
    out, cur = [], None
    for line in stdout.decode().splitlines():
        if line.startswith("count_star()") or line.startswith("name,"):
            cur = []
            out.append(cur)
        elif cur is not None and line:
            cur.append(line.split(","))
    return out


def watch(kind, session, writer, batch):
    """Queries the span store until writer exits; each answer must be a
    committed snapshot, never smaller than the one before.  Returns the
    number of answers and of distinct counts."""
    sql = ("SELECT count(*), coalesce(sum(id), 0), count(name), "
           "coalesce(min(id), 0), coalesce(max(id), -1) FROM "
           "tracestore_scan('%s', 'span')" % session)
    answers = []
    while writer.poll() is None:
        r = duckdb([sql] * batch)
        if r.returncode != 0:
            fail("%s: %s" % (kind, r.stderr.decode()[-300:]))
        answers += [rows[0] for rows in results(r.stdout)]
    if writer.returncode != 0:
        fail("%s: the writer's exit %d" % (kind, writer.returncode))
    last = 0
    for a in answers:
        count, ids, named, lo, hi = (int(v) for v in a)
        if ids != count * (count - 1) // 2 or named != count or \
           (count and (lo != 0 or hi != count - 1)) or count < last:
            fail("%s: not a committed snapshot after %d: %r"
                 % (kind, last, a))
        last = count
    distinct = len(set(int(a[0]) for a in answers))
    if distinct < 3:
        fail("%s: only %d distinct counts in %d answers: the writer was not "
             "seen writing" % (kind, distinct, len(answers)))
    return len(answers), distinct


def live(kind):
    session = os.path.join(WORK, "live-%s.trace" % kind)
    shutil.rmtree(session, ignore_errors=True)
    n = 400000
    args = [GEN, "--spans" if kind == "import" else "--python", str(n),
            "--commit-every", "2000", "--slow", "2000", session]
    writer = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    while not os.path.exists(os.path.join(session, "span.store")):
        time.sleep(0.01)
    time.sleep(0.05)
    nAnswer, growing = watch(kind, session, writer, 20)
    # Closed: SQLite's answer and DuckDB's.
    q = "SELECT name, count(*), sum(id) FROM %s GROUP BY name ORDER BY name"
    s = subprocess.run([TS, "sql", "--csv", session, q % "span"],
                       capture_output=True)
    d = duckdb([q % ("tracestore_scan('%s', 'span')" % session)])
    if s.returncode != 0 or d.returncode != 0:
        fail("%s: the closed session: %s %s" % (kind, s.stderr[-200:],
                                                 d.stderr[-200:]))
    want = s.stdout.decode().splitlines()[1:]
    got = d.stdout.decode().splitlines()[2:]
    if want != got or not want:
        fail("%s: closed session: SQLite %r, DuckDB %r" % (kind, want[:3],
                                                           got[:3]))
    print("live %s: %d answers while writing, %d distinct counts, each a "
          "committed snapshot; closed: %d names as SQLite's"
          % (kind, nAnswer, growing, len(want)))


PROGRAM = """
import sys, time
def leaf(i):
    return i * 2
def work(n):
    return sum(leaf(i) for i in range(n))
end = time.time() + float(sys.argv[1])
while time.time() < end:
    work(200)
"""


def live_python():
    """The real Python tracer writing, DuckDB reading."""
    session = os.path.join(WORK, "live-trace-python.trace")
    shutil.rmtree(session, ignore_errors=True)
    prog = os.path.join(WORK, "busy.py")
    with open(prog, "w") as f:
        f.write(PROGRAM)
    writer = subprocess.Popen([TS, "trace-python", "-o", session, "--",
                               prog, "3"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while not os.path.exists(os.path.join(session, "span.store")):
        if writer.poll() is not None or time.time() > deadline:
            fail("trace-python: no span store (%s)"
                 % writer.stderr.read().decode()[-300:])
        time.sleep(0.01)
    nAnswer, distinct = watch("trace-python", session, writer, 10)
    q = ("SELECT name, count(*) AS n FROM %s GROUP BY name "
         "ORDER BY n DESC, name")
    s = subprocess.run([TS, "sql", "--csv", session, q % "span"],
                       capture_output=True)
    d = duckdb([q % ("tracestore_scan('%s', 'span')" % session)])
    if s.stdout.decode().splitlines()[1:] != \
       d.stdout.decode().splitlines()[2:]:
        fail("trace-python: the closed session differs from SQLite's")
    print("live trace-python: %d answers while it ran, %d distinct counts, "
          "each a committed snapshot; closed: per-name counts as SQLite's"
          % (nAnswer, distinct))


def expect_error(session, statements, needles, what):
    r = duckdb(statements)
    err = r.stderr.decode()
    if r.returncode == 0:
        fail("%s: no error (%r)" % (what, r.stdout.decode()[-200:]))
    for n in needles:
        if n not in err:
            fail("%s: the error does not name %r: %r" % (what, n, err[-300:]))
    print("%s: %s" % (what, err.strip().splitlines()[0][:200]))


def header_columns(path):
    """(name, type, offset, flags) of each column of a store's header."""
    with open(path, "rb") as f:
        head = f.read(4096)
    record_size, ncol = struct.unpack_from("<II", head, 16)
    cols = []
    for i in range(ncol):
        base = 256 + 128 * i
        name = head[base:base + 32].split(b"\0")[0].decode()
        typ, off, width, flags = struct.unpack_from("<IIII", head, base + 32)
        cols.append((name, typ, off, flags))
    return record_size, cols


def damaged():
    good = os.path.join(WORK, "good.trace")
    shutil.rmtree(good, ignore_errors=True)
    r = subprocess.run([TS, "import", "-o", good, os.path.join(
        SHARED, "data", "capture-1", "trace.dat")], capture_output=True)
    if r.returncode != 0:
        fail("import: %s" % r.stderr.decode()[-300:])

    def copy(name):
        path = os.path.join(WORK, name + ".trace")
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(good, path)
        return path

    # A string id past the string store, in row 7's name.
    s = copy("bad-string")
    store = os.path.join(s, "ftrace_event.store")
    size, cols = header_columns(store)
    off = next(o for n, t, o, f in cols if n == "name")
    byte = 4096 + 7 * size + off
    with open(store, "r+b") as f:
        f.seek(byte)
        f.write(struct.pack("<I", 0x7ffffff0))
    expect_error(s, ["SELECT count(name) FROM tracestore_scan('%s', "
                     "'ftrace_event')" % s],
                 [store, "byte offset %d" % byte], "a corrupt string id")

    # Cut to half its committed records.
    s = copy("cut")
    store = os.path.join(s, "ftrace_event.store")
    with open(store, "r+b") as f:
        f.truncate(4096 + (os.path.getsize(store) - 4096) // 4)
    expect_error(s, ["SELECT count(*) FROM tracestore_scan('%s', "
                     "'ftrace_event')" % s], [store], "a store cut short")

    # The header overwritten.
    s = copy("bad-header")
    store = os.path.join(s, "sched_switch.store")
    with open(store, "r+b") as f:
        f.seek(16)
        f.write(b"\xff" * 64)
    expect_error(s, ["SELECT count(*) FROM tracestore_scan('%s', "
                     "'sched_switch')" % s], ["sched_switch.store"],
                 "a damaged header")

    # Cut while a query reads it.
    big = os.path.join(WORK, "big.trace")
    shutil.rmtree(big, ignore_errors=True)
    subprocess.run([GEN, "--spans", "5000000", big], check=True,
                   stdout=subprocess.DEVNULL)
    store = os.path.join(big, "span.store")
    full = os.path.getsize(store)
    sql = ("SELECT count(*), sum(dur), count(name) FROM "
           "tracestore_scan('%s', 'span')" % big)
    rng = random.Random(7)
    for attempt in range(8):
        with open(store, "r+b") as f:
            f.truncate(full)            # whole again (zeros past the cut)
        cutter = threading.Timer(0.05 + rng.random() * 0.4, lambda: open(
            store, "r+b").truncate(4096 + (full - 4096) // 2))
        cutter.start()
        r = duckdb([sql] * 40)
        cutter.join()
        err = r.stderr.decode()
        if r.returncode != 0 and "was cut" in err and store in err:
            print("cut while reading (attempt %d): %s"
                  % (attempt + 1, err.strip().splitlines()[0][:200]))
            break
        if r.returncode != 0 and store not in err:
            fail("cut while reading: an error not naming the file: %r"
                 % err[-300:])
    else:
        fail("cut while reading: in 8 attempts no cut landed inside a query")
    shutil.rmtree(big, ignore_errors=True)


os.makedirs(WORK, exist_ok=True)
if MODE == "live":
    live("import")
    live("python")
    live_python()
elif MODE == "damaged":
    damaged()
else:
    fail("mode is live or damaged")
print("PASS")
