#!/usr/bin/env python3
"""A damaged rollup file never gives a wrong answer.

Each case writes a session with GenSession, damages the rollup files of
its stores one way, and checks that
  - every view still equals the full scan (rollup_views_test.py): the
    reader refused the file and folded the records itself, or used the
    older publication the damage spared, and folded the rest;
  - `tracestore info --json` says what it found (damaged, other_version,
    other_store, ahead, missing) for each damaged store;
  - `tracestore top --once` runs;
  - the next writer (GenSession appending) rebuilds the file: info says
    it covers every record, and the views still equal the scan.

  rollup_damaged.py TRACESTORE EXTENSION GENSESSION TAMPER WORKDIR CASE
"""
import json
import os
import random
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STORES = ["span", "page_fault", "kvm_exit", "ftrace_event", "sched_switch"]
SLOTS = 128     # TRACE_ROLLUP_HEADER.Slots
SLOT_SIZE = 64


class Failure(Exception):
    pass


def run(argv, **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, **kw)
    if p.returncode != 0:
        raise Failure("%s exited %d:\n%s%s" % (" ".join(argv), p.returncode,
                                               p.stdout, p.stderr))
    return p.stdout


def generate(gen, session, seed, extra=()):
    run([gen, "--spans", "6000", "--python", "2000", "--faults", "6000",
         "--kvm", "6000", "--events", "6000", "--commit-every", "700",
         "--seed", str(seed)] + list(extra) + [session])


def slots(path):
    """(sequence, watermark, offset, size) of both slots."""
    with open(path, "rb") as f:
        f.seek(SLOTS)
        raw = f.read(2 * SLOT_SIZE)
    return [struct.unpack_from("<QQQQ", raw, i * SLOT_SIZE) for i in (0, 1)]


def flip(path, offset):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x5a]))


def rollups(tracestore, session):
    info = json.loads(run([tracestore, "info", "--json", session]))
    return {r["store"]: r for r in info["rollups"]}


def damage(case, session, args):
    """Damages the rollup files; returns {store: expected source}."""
    rng = random.Random(7)
    want = {}
    for store in STORES:
        path = os.path.join(session, store + ".rollup")
        size = os.path.getsize(path)
        if case == "flip_latest":
            s = max(slots(path), key=lambda x: x[0])
            flip(path, s[2] + s[3] // 2)
            want[store] = ("file", "damaged")   # the older one, or none
        elif case == "flip_both":
            for s in slots(path):
                if s[0]:
                    flip(path, s[2] + s[3] // 2)
            want[store] = ("damaged",)
        elif case == "flip_slots":
            flip(path, SLOTS + 8)
            flip(path, SLOTS + SLOT_SIZE + 8)
            want[store] = ("damaged",)
        elif case == "flip_header":
            flip(path, 20)
            want[store] = ("damaged",)
        elif case == "truncated":
            os.truncate(path, 100)
            want[store] = ("damaged",)
        elif case == "truncated_image":
            os.truncate(path, size - 8)
            want[store] = ("file", "damaged")
        elif case == "empty":
            os.truncate(path, 0)
            want[store] = ("damaged",)
        elif case == "garbage":
            with open(path, "wb") as f:
                f.write(bytes(rng.getrandbits(8) for _ in range(size)))
            want[store] = ("damaged",)
        elif case == "version":
            run([args.tamper, path, "version", "99"])
            want[store] = ("other_version",)
        elif case == "missing":
            os.remove(path)
            want[store] = ("missing",)
        elif case == "directory":
            os.remove(path)
            os.mkdir(path)
            want[store] = ("damaged",)
        elif case == "other_store":
            shutil.copy(os.path.join(args.other, store + ".rollup"), path)
            want[store] = ("other_store",)
        elif case == "ahead":
            shutil.copy(os.path.join(args.later, store + ".rollup"), path)
            want[store] = ("ahead",)
        else:
            raise Failure("unknown case " + case)
    return want


class Args:
    pass


def main():
    args = Args()
    (args.tracestore, args.ext, args.gen, args.tamper, work,
     case) = sys.argv[1:7]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    session = os.path.join(work, "session")
    generate(args.gen, session, 1)
    if case == "other_store":
        args.other = os.path.join(work, "other")
        generate(args.gen, args.other, 2)
    if case == "ahead":
        # The same stores, later: a copy taken now, the session written on.
        args.later = session
        session = os.path.join(work, "early")
        shutil.copytree(args.later, session)
        generate(args.gen, args.later, 3)
    want = damage(case, session, args)

    views = [sys.executable, os.path.join(HERE, "rollup_views_test.py"),
             args.ext]
    print(run(views + [session]).splitlines()[-1])
    found = rollups(args.tracestore, session)
    for store, sources in want.items():
        got = found.get(store, {}).get("source")
        if got not in sources:
            raise Failure("info says %s's rollup is %r, not %s (%s)" % (
                store, got, " or ".join(sources), found.get(store)))
        if got != "file" and got != "missing" and not found[store]["detail"]:
            raise Failure("info does not say why %s's rollup is %s" %
                          (store, got))
    run([args.tracestore, "top", "--once", session])

    if case == "directory":
        for store in STORES:
            os.rmdir(os.path.join(session, store + ".rollup"))
    generate(args.gen, session, 4)
    found = rollups(args.tracestore, session)
    for store in want:
        r = found[store]
        if r["source"] != "file" or r["covers"] != r["records"]:
            raise Failure("the next writer did not rebuild %s's rollup: %s" %
                          (store, r))
    print(run(views + [session]).splitlines()[-1])
    print("ok: %s" % case)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
