#!/usr/bin/env python3
"""Writers SIGKILLed at random instants leave rollups that answer exactly.

    rollup_kill.py TRACESTORE EXTENSION GENSESSION WORKDIR STYLE TRIALS SEED

STYLE is GenSession's way of writing: import (rows final when committed,
the rollups folded at each commit), python (rows committed while their
calls run, their dur growing), thread (the rollups folded on a second
thread, as import and record do).  Each trial starts a writer on a
session, kills it after a random 5-150 ms (or after its first commit, in
every fourth trial), then checks that

  - `tracestore info` opens the session, and no store holds fewer records
    than the writer's last report of what it had committed;
  - every view equals the full scan (rollup_views_test.py);
  - a writer continuing the session (GenSession appending) ends with
    rollups covering every record and views equal to the scan again.

The session is kept from trial to trial, so later trials kill writers of a
session whose rollups earlier kills interrupted.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def run(argv):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return p.returncode, p.stdout + p.stderr


def main():
    tracestore, ext, gen, work, style, trials, seed = sys.argv[1:8]
    rng = random.Random(int(seed))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    session = os.path.join(work, "session")
    report = os.path.join(work, "report")
    views = [sys.executable, os.path.join(HERE, "rollup_views_test.py"), ext,
             session]
    kinds = {"import": ["--spans", "60000", "--faults", "60000", "--kvm",
                        "60000", "--events", "60000"],
             "python": ["--python", "250000", "--threads", "6"],
             "thread": ["--spans", "50000", "--python", "50000",
                        "--faults", "50000", "--events", "50000",
                        "--fold-thread"]}[style]
    killed = 0
    for trial in range(int(trials)):
        if os.path.exists(report):
            os.remove(report)
        argv = [gen] + kinds + ["--commit-every", str(rng.choice([97, 1000,
                                                                    4096])),
                                "--seed", str(trial + 1), "--report", report,
                                session]
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        if trial % 4 == 3:
            end = time.monotonic() + 10
            while not os.path.exists(report) and time.monotonic() < end \
                    and proc.poll() is None:
                time.sleep(0.001)
        else:
            time.sleep(rng.uniform(0.005, 0.15))
        before = {}
        if os.path.exists(report):
            with open(report) as f:
                before = dict((l.split()[0], int(l.split()[1])) for l in f)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed += proc.returncode == -signal.SIGKILL
        rc, out = run([tracestore, "info", session])
        if rc != 0:
            print("FAIL: trial %d: info cannot open the session:\n%s" %
                  (trial, out))
            return 1
        for line in out.splitlines():
            parts = line.split()
            if len(parts) > 1 and parts[0] in before and parts[1].isdigit() \
                    and int(parts[1]) < before[parts[0]]:
                print("FAIL: trial %d: %s has %s records, the writer had "
                      "committed %d" % (trial, parts[0], parts[1],
                                        before[parts[0]]))
                return 1
        rc, out = run(views)
        if rc != 0:
            print("FAIL: trial %d, after the kill:\n%s" % (trial, out))
            return 1
    rc, out = run([gen, "--spans", "2000", "--python", "2000", "--faults",
                   "2000", "--kvm", "2000", "--events", "2000", "--seed",
                   "99", session])
    if rc != 0:
        print("FAIL: the writer after the kills: %s" % out)
        return 1
    rc, out = run([tracestore, "info", session])
    for line in out.splitlines():
        if ": " in line and (" missing" in line or " damaged" in line or
                             "the views fold" in line):
            print("FAIL: after a writer closed the session, a rollup does "
                  "not cover its store: %s" % line)
            return 1
    rc, out2 = run(views)
    if rc != 0:
        print("FAIL: after the last writer:\n%s" % out2)
        return 1
    print("%d trials, %d writers killed; %s" % (int(trials), killed,
                                                out2.strip().splitlines()[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
