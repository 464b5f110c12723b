#!/usr/bin/env python3
"""The DuckDB extension (DuckDbExt/, issue 29's first slice) against the
SQLite extension, on sessions imported from real captures.

For each input (../shared/data and Tests/Data: trace.dat, ftrace text with
the events' formats, perf.data with and without call chains, perf script
text, the ETW sample, kvmtrace), the input is imported, and every store
table is read twice: by SQLite through the tracestore extension
(`tracestore sql --csv SESSION "SELECT ... FROM STORE ORDER BY id"`: the
oracle, tested against the producers elsewhere) and by DuckDB, an
unmodified libduckdb (Tests/DuckDb/duckdb_host.c) that LOADs
tracestore.duckdb_extension (`SELECT ... FROM tracestore_scan(SESSION,
STORE) ORDER BY id`).  Every row and column must be equal: integers,
text, NULLs, and BLOB columns compared as hex().  Then the cases a user
meets first: a missing session, a missing store, the string stores (not
tables) give DuckDB errors, not a crash.

In Node's DuckDB too (@duckdb/node-api, Tests/DuckDb/node_host.mjs, when
NODE_MODULES holds it): each table's row count, sum of ids and count of
non-NULL values per column, against SQLite's.

usage: duckdb_test.py TRACESTORE DUCKDB_HOST EXTENSION SHARED DATA WORKDIR
                      [NODE_MODULES]
"""
import json
import csv
import io
import os
import shutil
import subprocess
import sys
import zipfile

TS, HOST, EXT, SHARED, DATA, WORK = sys.argv[1:7]
NODE_MODULES = sys.argv[7] if len(sys.argv) > 7 else ""
NODE_HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "node_host.mjs")
NODE = shutil.which("node") if os.path.isdir(
    os.path.join(NODE_MODULES, "@duckdb", "node-api")) else None


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(cmd):
    return subprocess.run(cmd, capture_output=True)


def rows(out):
    return list(csv.reader(io.StringIO(out.decode("utf-8", "replace"))))


def sqlite(session, sql):
    r = run([TS, "sql", "--csv", session, sql])
    if r.returncode != 0:
        fail("sqlite over %s: %s" % (session, r.stderr.decode()[-500:]))
    return rows(r.stdout)


def duckdb(sql, expect_error=False):
    r = run([HOST, "LOAD '%s'" % EXT, sql])
    if expect_error:
        if r.returncode == 0 or r.returncode < 0:
            fail("DuckDB: %r gave exit %d, not an error: %s"
                 % (sql, r.returncode, r.stdout.decode()[-300:]))
        return r.stderr.decode()
    if r.returncode != 0:
        fail("DuckDB: %r: exit %d: %s" % (sql, r.returncode,
                                           r.stderr.decode()[-500:]))
    return rows(r.stdout)[2:]       # after the LOAD's result and the header


def inputs():
    cap = os.path.join(SHARED, "data", "capture-1")
    etl = os.path.join(WORK, "net.etl")
    with zipfile.ZipFile(os.path.join(SHARED, "data", "etw",
                                      "net.4.5.2.x64.etl.zip")) as z:
        inner = next(n for n in z.namelist() if n.lower().endswith(".etl"))
        with z.open(inner) as f, open(etl, "wb") as out:
            shutil.copyfileobj(f, out)
    pd = os.path.join(DATA, "perf-data")
    return [
        ("tracedat", [os.path.join(cap, "trace.dat")]),
        ("ftrace", ["--formats", os.path.join(DATA, "tracefs-events"),
                    os.path.join(DATA, "ftrace-formats.txt"),
                    os.path.join(DATA, "kvm-exit-entry-formats.txt")]),
        ("perfdata", [os.path.join(pd, "tracepoints.data"),
                      os.path.join(pd, "callgraph.data"),
                      os.path.join(pd, "faults.data")]),
        ("perfscript", [os.path.join(cap, "perf-pagefaults.txt")]),
        ("etw", [etl]),
        ("kvmtrace", [os.path.join(SHARED, "data", "kvmtrace", "sample.bin")]),
    ]


def compare(session):
    stores = [r[0] for r in sqlite(session, "SELECT name FROM store_info")[1:]
              if r[0] not in ("string", "string_data")]
    total = 0
    for store in stores:
        info = sqlite(session, "SELECT name, type FROM pragma_table_info('%s')"
                      % store)[1:]
        cols = ", ".join('hex("%s") AS "%s"' % (n, n) if t.upper() == "BLOB"
                         else '"%s"' % n for n, t in info)
        want = sqlite(session, "SELECT %s FROM %s ORDER BY id" % (cols, store))
        got = duckdb("SELECT %s FROM tracestore_scan('%s', '%s') ORDER BY id"
                     % (cols, session, store))
        if want[0] != [n for n, _ in info]:
            fail("%s: SQLite's columns %r" % (store, want[0]))
        want = want[1:]
        if got != want:
            i = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b),
                     min(len(want), len(got)))
            fail("%s of %s: %d rows in SQLite, %d in DuckDB; row %d: %r / %r"
                 % (store, session, len(want), len(got), i,
                    want[i] if i < len(want) else None,
                    got[i] if i < len(got) else None))
        total += len(want)
        if NODE:
            node(session, store, info)
    return len(stores), total


def node(session, store, info):
    """The table's shape in Node's DuckDB against SQLite's."""
    counts = ", ".join('count("%s")' % n for n, _ in info)
    sql = "SELECT count(*), coalesce(sum(id), 0), %s FROM %%s" % counts
    want = sqlite(session, sql % store)[1]
    r = subprocess.run(["node", NODE_HOST, EXT, sql % (
        "tracestore_scan('%s', '%s')" % (session, store))],
        capture_output=True, env=dict(os.environ, NODE_PATH=NODE_MODULES))
    if r.returncode != 0:
        fail("node: %s of %s: %s" % (store, session, r.stderr.decode()[-500:]))
    got = json.loads(r.stdout.decode().splitlines()[0])
    if got != want:
        fail("node: %s of %s: %r, SQLite %r" % (store, session, got, want))


os.makedirs(WORK, exist_ok=True)
for name, args in inputs():
    session = os.path.join(WORK, name + ".trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session] + args)
    if r.returncode != 0:
        fail("import %s: %s" % (name, r.stderr.decode()[-500:]))
    n, total = compare(session)
    if total == 0:
        fail("%s: no rows compared" % name)
    print("%s: %d tables, %d rows equal in SQLite and DuckDB" % (name, n, total))

session = os.path.join(WORK, "tracedat.trace")
for sql, what in (
        ("SELECT * FROM tracestore_scan('%s', 'no_such')" % session,
         "no store no_such"),
        ("SELECT * FROM tracestore_scan('%s', 'string')" % session,
         "no store string"),
        ("SELECT * FROM tracestore_scan('%s/missing', 'sample')" % WORK,
         "missing")):
    err = duckdb(sql, expect_error=True)
    if what not in err:
        fail("%s: DuckDB said %r" % (sql, err[-300:]))
print("errors: a missing store or session is a DuckDB error naming it")
print("Node's DuckDB: %s" % ("every table's counts as SQLite's" if NODE
                             else "not installed: not run"))
print("PASS")
