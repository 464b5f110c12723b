#!/usr/bin/env python3
"""Rollups: the built-in views at 10^6, 10^7 and 10^8 rows, next to the
same views computed from every row, in one run (docs/benchmarks-history.md, "Rollups").

    bench_rollup.py BUILD WORKDIR [--sizes 1e6,1e7,1e8] [--scan-up-to 1e7]

For each size N, GenSession writes (or a previous run's session is kept)
N span rows (as the importers write them: 200 names, trees 7 deep, 8
threads), N page faults, N KVM exits and N/10 ftrace events, folding the
rollups on a second thread as import does.  Then, in one process (Debian's
python3 and the extension):

  - each view's query through the rollups: best of 5 statements;
  - the same through the views' SQL over every row (attach 'scan'), the
    reference, up to --scan-up-to rows: best of 2; past it, once, for the
    views whose scan took under 6 s at the size before;
  - the same through the rollups with the rollup files moved away (the
    reader folds every record in C: what a session written before issue
    24 costs until a writer rebuilds them): once;
  - `tracestore top --once` (every view, one frame): wall time and peak RSS;
  - live: while GenSession appends to the largest session (2 x 10^6 spans
    and faults a second, folded on its thread), the views and `top --once`
    again: best and worst of 10, and the records past the rollups' last
    publication that each answer folded itself.  The appended rows stay,
    so the next run writes that session again.

Prints @bench lines (Tests/Bench/bench_lib.sh) for the table "rollup".
"""
import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import time

# (view, its query, the full-scan query: the view's SQL in 'scan' mode,
# or for event_counts, which only the rollups make, the same from event).
VIEWS = [
    ("span_self_time", "SELECT * FROM span_self_time", None),
    ("span_running", "SELECT * FROM span_running", None),
    ("page_fault_summary", "SELECT * FROM page_fault_summary", None),
    ("page_fault_traffic", "SELECT * FROM page_fault_traffic", None),
    ("kvm_exit_reasons", "SELECT * FROM kvm_exit_reasons", None),
    ("syscall_counts", "SELECT * FROM syscall_counts", None),
    ("event_counts", "SELECT * FROM event_counts",
     "SELECT store, name, count(*) FROM event GROUP BY 1, 2 ORDER BY 3 DESC"),
]


def emit(kind, *fields):
    print("@bench\trollup\t%s\t%s" % (kind, "\t".join(str(f) for f in fields)))
    sys.stdout.flush()


def connect(ext, session, mode=""):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.execute("SELECT tracestore_attach(?, 'temp', ?)", (session, mode))
    return db


def timed(db, sql, n):
    best = None
    for _ in range(n):
        t = time.perf_counter()
        db.execute(sql).fetchall()
        t = time.perf_counter() - t
        best = t if best is None or t < best else best
    return best


def records(ts, session):
    out = subprocess.run([ts, "info", session], stdout=subprocess.PIPE,
                         universal_newlines=True).stdout
    n = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) > 2 and p[1].isdigit():
            n[p[0]] = int(p[1])
    return n


def ensure(args, n):
    session = os.path.join(args.work, "rollup-%d" % n)
    have = records(args.ts, session) if os.path.isdir(session) else {}
    if have.get("span") == n and have.get("kvm_exit") == n:
        print("keeping %s" % session)
        return session
    shutil.rmtree(session, ignore_errors=True)
    t = time.monotonic()
    subprocess.run([args.gen, "--spans", str(n), "--faults", str(n),
                    "--kvm", str(n), "--events", str(max(n // 10, 1000)),
                    "--commit-every", "65536", "--fold-thread", session],
                   check=True)
    print("wrote %s in %.0f s" % (session, time.monotonic() - t))
    return session


def top_once(args, session):
    t = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "%M", args.ts, "top", "--once",
                        session], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, universal_newlines=True)
    wall = time.perf_counter() - t
    return wall, int(p.stderr.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="1e6,1e7,1e8")
    ap.add_argument("--scan-up-to", default="1e7")
    args = ap.parse_args()
    args.ts = os.path.join(args.build, "tracestore")
    args.ext = os.path.join(args.build, "tracestore.so")
    args.gen = os.path.join(args.build, "Tests", "GenSession")
    os.makedirs(args.work, exist_ok=True)
    sizes = [int(float(x)) for x in args.sizes.split(",")]
    scan_limit = int(float(args.scan_up_to))

    emit("head", "view", "rows per store", "from the rollups",
         "full scan (SQL)", "scan / rollups", "no rollup files (C fold)")
    last = None
    scanned, prev = {}, 1
    for n in sizes:
        session = ensure(args, n)
        last = session
        db = connect(args.ext, session)
        scan = connect(args.ext, session, "scan")
        for name, sql, scan_sql in VIEWS:
            r = timed(db, sql, 5)
            # Past --scan-up-to, only the scans that took under 6 s at the
            # size before (about a minute now), once: the growth, not hours.
            if n <= scan_limit:
                s = timed(scan, scan_sql or sql, 2)
            elif scanned.get(name, 1e9) * n / prev < 60:
                s = timed(scan, scan_sql or sql, 1)
            else:
                s = None
            if s:
                scanned[name] = s
            emit("row", name, "%.0e" % n, "%.1f ms" % (r * 1e3),
                 "%.0f ms" % (s * 1e3) if s else "-",
                 "%.0fx" % (s / r) if s else "-", "")
        prev = n
        # Without rollup files: every record folded in C.
        moved = os.path.join(args.work, "moved")
        shutil.rmtree(moved, ignore_errors=True)
        os.makedirs(moved)
        for f in os.listdir(session):
            if f.endswith(".rollup"):
                os.rename(os.path.join(session, f), os.path.join(moved, f))
        bare = connect(args.ext, session)
        for name, sql, _ in VIEWS[:5:2]:
            t = timed(bare, sql, 1)
            emit("row", name + " (no rollup files)", "%.0e" % n, "", "", "",
                 "%.2f s" % t)
        bare.close()
        for f in os.listdir(moved):
            os.rename(os.path.join(moved, f), os.path.join(session, f))
        wall, rss = top_once(args, session)
        emit("row", "tracestore top --once", "%.0e" % n,
             "%.0f ms, %.1f MB RSS" % (wall * 1e3, rss / 1024.0), "", "", "")
        db.close()
        scan.close()

    # Live: a writer appending to the largest session.
    if last:
        writer = subprocess.Popen([args.gen, "--spans", "20000000",
                                   "--faults", "20000000", "--commit-every",
                                   "20000", "--slow", "10000", "--seed", "7",
                                   "--fold-thread", last],
                                  stdout=subprocess.DEVNULL)
        time.sleep(2)
        db = connect(args.ext, last)
        for name, sql, _ in VIEWS[:5]:
            times = []
            for _ in range(10):
                t = time.perf_counter()
                db.execute(sql).fetchall()
                times.append(time.perf_counter() - t)
                time.sleep(0.1)
            emit("row", name + " (live)", "%.0e + writing" % sizes[-1],
                 "%.1f-%.1f ms" % (min(times) * 1e3, max(times) * 1e3),
                 "", "", "")
        frames = [top_once(args, last) for _ in range(5)]
        emit("row", "tracestore top --once (live)",
             "%.0e + writing" % sizes[-1],
             "%.0f-%.0f ms, %.1f MB RSS" % (min(f[0] for f in frames) * 1e3,
                                           max(f[0] for f in frames) * 1e3,
                                           max(f[1] for f in frames) / 1024.0),
             "", "", "")
        out = subprocess.run([args.ts, "info", last], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        writer.kill()
        writer.wait()
        tail = [" ".join(l.split()) for l in out.splitlines()
                if "the views fold the other" in l]
        emit("note", "While the writer appended, `tracestore info` said: %s."
             % "; ".join(l.strip() for l in tail) if tail else
             "While the writer appended, every rollup was current.")
    emit("note", "GenSession sessions (spans as the importers write them: "
         "200 names, trees 7 deep, 8 threads; page faults; KVM exits; "
         "ftrace events N/10); best of 5 through the rollups, of 2 through "
         "the SQL over every row, in one process; past %.0e rows only the "
         "scans that took under 6 s at the size before, once." % scan_limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
