#!/usr/bin/env python3
"""Two builds of tracestore importing the same files, interleaved.

    python3 Tests/Bench/import_ab.py OLD_TRACESTORE NEW_TRACESTORE [--runs 9] FILE...

For each FILE, runs `OLD import -o S FILE` and `NEW import -o S FILE` in
turn, RUNS times each (a fresh session every time, the input in the page
cache), and prints the best wall time and the least CPU time (user + sys,
every thread) of each build and NEW / OLD, with an @bench line per file for the table "rollup_writers" (docs/benchmarks-history.md,
"Rollups").  Interleaving is what makes a few per cent visible on a shared
machine, where two runs minutes apart differ by more.  OLD is a build of
another commit, e.g.

    git worktree add /tmp/base 8261bf0 && cmake -S /tmp/base -B /tmp/base/build \\
        -DCMAKE_BUILD_TYPE=Release && cmake --build /tmp/base/build
"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="import-ab-")
    session = os.path.join(work, "s")
    print("@bench\trollup_writers\thead\tinput\tevents\twall before\twall with"
          "\twith / before\tCPU before\tCPU with\twith / before")
    try:
        for path in args.files:
            with open(path, "rb") as f:
                while f.read(1 << 24):
                    pass
            wall, cpu = {}, {}
            for _ in range(args.runs):
                for build in (args.old, args.new):
                    shutil.rmtree(session, ignore_errors=True)
                    os.sync()
                    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    t = time.perf_counter()
                    subprocess.run([build, "import", "-o", session, path],
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, check=True)
                    t = time.perf_counter() - t
                    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                    c = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
                    wall[build] = min(wall.get(build, t), t)
                    cpu[build] = min(cpu.get(build, c), c)
            info = subprocess.run([args.new, "info", "--json", session],
                                  stdout=subprocess.PIPE, check=True,
                                  universal_newlines=True).stdout
            # Events: the rows of the stores with timestamps.
            events = sum(int(s["records"]) for s in json.loads(info)["stores"]
                         if s.get("first_ts") is not None)
            print("@bench\trollup_writers\trow\t%s\t%d\t%.3f s\t%.3f s\t%.3fx"
                  "\t%.3f s\t%.3f s\t%.3fx"
                  % (os.path.basename(path), events,
                     wall[args.old], wall[args.new], wall[args.new] / wall[args.old],
                     cpu[args.old], cpu[args.new], cpu[args.new] / cpu[args.old]))
            sys.stdout.flush()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
