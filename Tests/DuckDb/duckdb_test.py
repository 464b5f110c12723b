#!/usr/bin/env python3
"""The DuckDB extension (DuckDbExt/, issue 29's first slice) against the
SQLite extension, on sessions imported from real captures.

For each input (../shared/data and Tests/Data: trace.dat, ftrace text with
the events' formats, perf.data with and without call chains, perf script
text, the ETW sample, kvmtrace, Chrome JSON and uftrace spans; with
TRACER_GENSESSION, spans as the Python tracer leaves them, calls still
running), the input is imported, and every store
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

Each built-in view the SQLite extension makes for the session is read in
DuckDB after tracestore_attach() and must hold the same rows (floats to 9
significant digits; ties of the ORDER BY in any order): DuckDB answers
from the rollups where SQLite does, and the SQL over the rows of each view
that has both (tracestore_VIEW_rows) must hold the same rows too.  Each store's ts
windows (from_ts/to_ts) must count and sum the ids SQLite's WHERE on ts
does.  With every session of the work directory attached at once
(tracestore_attach_sessions in both), each table's per-session count and
id sum, and each view's rows, must equal SQLite's.  `tracestore sql
--engine duckdb` must print SQLite's rows, and
without libduckdb.so say how to get it.  The extension with a footer
asking for C API v1.99.0 must be refused by DuckDB with a message naming
that version.

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
FUTURE = os.path.join(os.path.dirname(EXT), "Tests",
                      "tracestore_future.duckdb_extension")
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


def duckdb(sql, expect_error=False, before=(), ext=None):
    r = run([HOST, "LOAD '%s'" % (ext or EXT)] + list(before) + [sql])
    if expect_error:
        if r.returncode == 0 or r.returncode < 0:
            fail("DuckDB: %r gave exit %d, not an error: %s"
                 % (sql, r.returncode, r.stdout.decode()[-300:]))
        return r.stderr.decode()
    if r.returncode != 0:
        fail("DuckDB: %r: exit %d: %s" % (sql, r.returncode,
                                           r.stderr.decode()[-500:]))
    out = rows(r.stdout)[2:]        # after the LOAD's result and the header
    for _ in before:                # and each earlier statement's result
        out = out[out.index([]) + 1:] if [] in out else out[1:]
    return out


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
        ("spans", [os.path.join(DATA, "chrome", "events.json"),
                   os.path.join(DATA, "uftrace-mt.data")]),
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


def number(v):
    """A value as both engines print it, floats to 9 significant digits."""
    try:
        f = float(v)
    except ValueError:
        return v
    if f == int(f) and abs(f) < 2**63 and "e" not in v.lower():
        return str(int(f))
    return "%.9g" % f


# The views DuckDB answers from the rollups that also have SQL over the
# rows (tracestore_VIEW_rows), used where the rollups do not apply.
ROWS_TOO = ("kvm_exit_reasons", "page_fault_summary", "page_fault_traffic",
            "span_self_time", "syscall_counts", "line_time", "line_hot")


def compare_views(session):
    """Each built-in view SQLite makes for the session, in DuckDB."""
    have = [r[0] for r in sqlite(
        session, "SELECT name FROM temp.sqlite_master WHERE type = 'view'")[1:]]
    checked = []
    for view in have:
        want = sqlite(session, "SELECT * FROM %s" % view)
        got = duckdb("SELECT * FROM %s" % view,
                     before=["SELECT count(*) FROM tracestore_attach('%s')"
                             % session])
        if got[:1] != want[:1]:
            fail("view %s of %s: columns %r in DuckDB, %r in SQLite"
                 % (view, session, got[:1], want[:1]))
        w = sorted([number(v) for v in r] for r in want[1:])
        versions = [("", got)]
        if view in ROWS_TOO:            # the SQL over the rows as well
            versions.append(("_rows", duckdb(
                "SELECT * FROM tracestore_%s_rows('%s')" % (view, session),
                before=["SELECT count(*) FROM tracestore_attach('%s')"
                        % session])))
        for suffix, got in versions:
            g = sorted([number(v) for v in r] for r in got[1:])
            if w != g:
                i = next((i for i, (a, b) in enumerate(zip(w, g)) if a != b),
                         min(len(w), len(g)))
                fail("view %s%s of %s: %d rows in SQLite, %d in DuckDB; row "
                     "%d: %r / %r" % (view, suffix, session, len(w), len(g), i,
                                      w[i] if i < len(w) else None,
                                      g[i] if i < len(g) else None))
        checked.append("%s (%d)" % (view, len(w)))
    return checked


def compare_windows(session, stores):
    """from_ts/to_ts against SQLite's WHERE on ts, for each store with ts."""
    n = 0
    for store in stores:
        cols = [r[0] for r in sqlite(
            session, "SELECT name FROM pragma_table_info('%s')" % store)[1:]]
        if "ts" not in cols:
            continue
        lo, hi = sqlite(session, "SELECT min(ts), max(ts) FROM %s" % store)[1]
        if lo == "":
            continue
        lo, hi = int(lo), int(hi)
        for a, b in ((lo + (hi - lo) // 4, lo + (hi - lo) // 2),
                     (lo, hi), (hi, hi + 1), (hi + 1, hi + 2)):
            want = sqlite(session, "SELECT count(*), coalesce(sum(id), 0) "
                          "FROM %s WHERE ts >= %d AND ts < %d"
                          % (store, a, b))[1]
            got = duckdb("SELECT count(*), coalesce(sum(id), 0) FROM "
                         "tracestore_scan('%s', '%s', from_ts := %d, "
                         "to_ts := %d)" % (session, store, a, b))[0]
            if got != want:
                fail("%s of %s, ts in [%d, %d): %r in DuckDB, %r in SQLite"
                     % (store, session, a, b, got, want))
            n += 1
    return n


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
    views = compare_views(session)
    print("%s: views equal: %s" % (name, ", ".join(views) or "none"))
    stores = [r[0] for r in sqlite(session, "SELECT name FROM store_info")[1:]
              if r[0] not in ("string", "string_data")]
    print("%s: %d ts windows equal" % (name, compare_windows(session, stores)))

# Spans as the Python tracer leaves them when the program is stopped:
# calls still running (span_running), nested (span_self_time).
GEN = os.environ.get("TRACER_GENSESSION")
if GEN:
    session = os.path.join(WORK, "python.trace")
    shutil.rmtree(session, ignore_errors=True)
    subprocess.run([GEN, "--python", "20000", "--lines", "20000",
                    "--leave-open", session],
                   check=True, stdout=subprocess.DEVNULL)
    n, total = compare(session)
    views = compare_views(session)
    if not any(v.startswith("span_running") for v in views):
        fail("python: span_running not compared: %r" % views)
    print("python (GenSession --python --lines --leave-open): %d tables, "
          "%d rows; views equal: %s" % (n, total, ", ".join(views)))

# Lines as trace-python --lines records them, of a real program (loops,
# generators, exceptions, threads, asyncio): line_time and line_hot with
# their source text (source_line) in both engines.
session = os.path.join(WORK, "lines.trace")
shutil.rmtree(session, ignore_errors=True)
r = run([TS, "trace-python", "--lines", "__main__,lines_lib", "-o", session,
         "--", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "Python", "programs", "lines_prog.py")])
if r.returncode != 3:
    fail("trace-python --lines: exit %d: %s" % (r.returncode,
                                                r.stderr.decode()[-500:]))
n, total = compare(session)
views = compare_views(session)
if not any(v.startswith("line_time") for v in views) or \
        not any(v.startswith("line_hot") for v in views):
    fail("lines: line_time and line_hot not compared: %r" % views)
texts = duckdb("SELECT count(*) FROM line_time WHERE line_contents LIKE "
               "'%for %'", before=["SELECT count(*) FROM "
                                   "tracestore_attach('%s')" % session])
if int(texts[1][0]) == 0:
    fail("lines: no line_contents of a for loop in DuckDB's line_time")
print("lines (trace-python --lines): %d tables, %d rows; views equal: %s"
      % (n, total, ", ".join(views)))

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
# Several sessions at once: tracestore_attach_sessions(DIR) in both.
def sqlite_fleet(sql):
    r = run([TS, "sql", "--csv", session, "SELECT tracestore_attach_sessions"
             "('%s'); %s" % (WORK, sql)])
    if r.returncode != 0:
        fail("sqlite fleet: %s" % r.stderr.decode()[-500:])
    return rows(r.stdout)[2:]      # after the attach's header and count


fleet_attach = "SELECT count(*) FROM tracestore_attach_sessions('%s')" % WORK
names = [r[0] for r in sqlite_fleet(
    "SELECT name FROM temp.sqlite_master WHERE type = 'view' "
    "AND sql LIKE '%tracestore sessions%' ORDER BY name")[1:]]
checked = []
for name in names:
    if name == "store_info":
        continue
    cols = [r[0] for r in sqlite_fleet(
        "SELECT name FROM pragma_table_info('%s')" % name)[1:]]
    if "id" in cols and name != "sample_flame":
        sql = ("SELECT session, host, count(*) AS n, coalesce(sum(id), 0) "
               "AS ids FROM %s GROUP BY 1, 2 ORDER BY 1" % name)
    else:
        sql = "SELECT * FROM %s" % name
    want = sqlite_fleet(sql)
    got = duckdb(sql, before=[fleet_attach])
    w = sorted([number(v) for v in r] for r in want[1:])
    g = sorted([number(v) for v in r] for r in got[1:])
    if got[:1] != want[:1] or w != g:
        fail("fleet %s: SQLite %r... DuckDB %r..." % (name, want[:3], got[:3]))
    checked.append(name)
if len(checked) < 10:
    fail("fleet: only %r compared" % checked)
print("several sessions: %d tables and views equal SQLite's "
      "tracestore_attach_sessions: %s" % (len(checked), ", ".join(checked)))

# tracestore sql --engine duckdb: the same answers as the SQLite engine.
for sql in ("SELECT name, count(*) AS n, sum(id) AS ids FROM ftrace_event "
            "GROUP BY name ORDER BY n DESC, name",
            "SELECT * FROM page_fault_summary ORDER BY faults DESC, comm"):
    want = sqlite(session, sql)
    r = run([TS, "sql", "--engine", "duckdb", "--csv", session, sql])
    if r.returncode != 0 or rows(r.stdout) != want:
        fail("sql --engine duckdb %r: exit %d, %r / SQLite %r"
             % (sql, r.returncode, rows(r.stdout)[:3], want[:3]))
# Without libduckdb.so: the command alone, elsewhere, says how to get it.
alone = os.path.join(WORK, "tracestore-alone")
shutil.copy(TS, alone)
r = subprocess.run([alone, "sql", "--engine", "duckdb", session, "SELECT 1"],
                   capture_output=True,
                   env=dict(os.environ, TRACER_LIBDUCKDB="/nonexistent.so"))
if r.returncode != 1 or b"npm pack" not in r.stderr:
    fail("sql --engine duckdb without libduckdb.so: exit %d, %r"
         % (r.returncode, r.stderr[-300:]))
print("sql --engine duckdb: SQLite's answers; without libduckdb.so: %s"
      % r.stderr.decode().strip()[:90])

err = duckdb("SELECT 1", expect_error=True, ext=FUTURE)
if "v1.99.0" not in err or "C API" not in err:
    fail("an extension needing C API v1.99.0: DuckDB said %r" % err[-300:])
print("refusal: %s" % err.strip().splitlines()[0][-160:])
print("Node's DuckDB: %s" % ("every table's counts as SQLite's" if NODE
                             else "not installed: not run"))
print("PASS")
