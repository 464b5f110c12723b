#!/usr/bin/env python3
"""same_imports.py OLD_TRACESTORE NEW_TRACESTORE SHARED_DATA TESTS_DATA

Imports every sample with two builds of `tracestore` and compares the
sessions byte for byte: the check that a change which should not change
behaviour (a move of files, a shared helper replacing copies) writes the
same stores.  Every file of each session is compared; the only bytes left
out are those that hold the wall-clock time of creation and the checksums
over them, at the offsets TraceStore/TraceStore.h and TraceRollup.h fix
with C_ASSERTs:

  *.store    CreatedRealtimeNs 64..72, HeaderChecksum 120..128
  *.rollup   StoreCreatedRealtimeNs 56..64, StoreHeaderChecksum 64..72,
             HeaderChecksum 120..128
  session.tracer  CreatedRealtimeNs 16..24, Checksum 504..512
  source.store    each record's imported_at (its first 8 bytes; the
                  header's HeaderSize at 12 and RecordSize at 16 place it)

The two runs' exit statuses and messages are compared too (the time an
import took, as it reports it, left out).  Prints one line per sample and
exits 1 if any file differs (naming the
file and its first differing byte offset), 0 if all are the same.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

MASKS = {
    ".store": [(64, 72), (120, 128)],
    ".rollup": [(56, 64), (64, 72), (120, 128)],
    "session.tracer": [(16, 24), (504, 512)],
}


def samples(shared, data):
    c1 = os.path.join(shared, "capture-1")
    out = [os.path.join(c1, f) for f in sorted(os.listdir(c1))]
    out.append(os.path.join(shared, "kvmtrace", "sample.bin"))
    out.append(os.path.join(shared, "etw", "ShutdownPerfDiagLogger.etl"))
    for root, dirs, files in os.walk(data):
        dirs.sort()
        if root.endswith(".data") or "fuzz-regressions" in root:
            dirs[:] = []
            continue
        for d in dirs:
            if d.endswith(".data"):
                out.append(os.path.join(root, d))
        for f in sorted(files):
            if f.endswith((".txt", ".dat", ".json", ".etl", ".bin")) and \
               "expected" not in f:
                out.append(os.path.join(root, f))
    return out


def masked(path):
    with open(path, "rb") as f:
        b = bytearray(f.read())
    name = os.path.basename(path)
    if name == "source.store" and len(b) >= 20:
        first = int.from_bytes(b[12:16], "little")
        size = int.from_bytes(b[16:20], "little")
        for at in range(first, len(b) - size + 1, max(size, 1)):
            b[at:at + 8] = bytes(8)
    for suffix, spans in MASKS.items():
        if name.endswith(suffix):
            for lo, hi in spans:
                b[lo:hi] = bytes(hi - lo)
    return bytes(b)


def quiet(err, session):
    """stderr with the session's path and the import's duration blanked."""
    return re.sub(r" in [0-9.]+ s", " in T s", err.replace(session, "S"))


def run(ts, sample, session):
    args = [ts, "import"]
    if sample.endswith("kvmtrace/sample.bin"):
        args += ["--format", "kvmtrace"]
    args += [sample, "-o", session]
    p = subprocess.run(args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stderr


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    old, new, shared, data = sys.argv[1:]
    work = tempfile.mkdtemp(prefix="same-imports.")
    bad = 0
    n = 0
    try:
        for i, sample in enumerate(samples(shared, data)):
            a = os.path.join(work, "a%d" % i)
            b = os.path.join(work, "b%d" % i)
            ra, ea = run(old, sample, a)
            rb, eb = run(new, sample, b)
            n += 1
            why = []
            if ra != rb:
                why.append("exit %d vs %d" % (ra, rb))
            if quiet(ea, a) != quiet(eb, b):
                why.append("stderr differs")
            fa = sorted(os.listdir(a)) if os.path.isdir(a) else []
            fb = sorted(os.listdir(b)) if os.path.isdir(b) else []
            if fa != fb:
                why.append("files %s vs %s" % (fa, fb))
            for f in fa:
                if f not in fb:
                    continue
                x, y = masked(os.path.join(a, f)), masked(os.path.join(b, f))
                if x != y:
                    at = next((k for k in range(min(len(x), len(y)))
                               if x[k] != y[k]), min(len(x), len(y)))
                    why.append("%s differs at byte %d" % (f, at))
            print("%s %s (%d files)" % ("DIFF" if why else "same", sample,
                                        len(fa)))
            for w in why:
                print("    " + w)
            bad += bool(why)
    finally:
        shutil.rmtree(work)
    print("%d samples, %d differ" % (n, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
