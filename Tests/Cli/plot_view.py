#!/usr/bin/env python3
"""What tracestore plot shows a reader: labels, legend, filters, --data-start.

usage: plot_view.py TRACESTORE SHARED_DIR WORKDIR CASE

Cases (each fails on the plot before issue 26's fixes):
  labels      a session of 1000 faults, 4 of them hard (perf script text
              written here): the bars' labels "hard (4)" and "soft (996)"
              lie inside the figure: no text pixel in its outermost rows
              and columns of the PNG (before, "hard (4)" ran off the
              bottom edge and read "hard").
  volume      -c process over a session where the process that faults
              first faults least: --summary lists the categories by fault
              count, most first (counts derived here from what was
              written), and the legend's order is that order.
  no_match    -p that matches no process: exit 1, a message naming the
              filters, and OUT neither written nor, if it existed, removed.
  data_start  the PerfView ETW log (shared/data/etw), -c module: --summary
              names clr.dll by its full path; --data-start clr.dll,0x800000
              (a base name, where the log has \\Device\\...\\clr.dll paths)
              moves clr.dll's faults at offsets from 0x800000 to data: as
              many as a full scan of page_fault finds; a --data-start that
              names no module warns.
  mmap        Tests/Data/perf-faults-mmap.txt (perf script --show-mmap-events
              --show-task-events of FaultPair's two processes): every
              fault's module and module_offset equal a replay of the
              text's MMAP2, exec and fork lines written here, and the
              picture places at least 90% of the faults (the README demo's
              picture on a machine without tracefs).
"""
import os
import re
import shutil
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_files import fail, png_rows, run  # noqa: E402


def perf_text(path, faults):
    """perf script text of (comm, pid, event) faults, 1 us apart."""
    lines, t = [], 100.0
    for comm, pid, ev in faults:
        t += 0.000001
        lines.append("%16s %5d/%-5d %12.6f: %s: %16x [unknown] (/tmp/f.bin) "
                     "%16x main (/usr/bin/app)\n"
                     % (comm, pid, pid, t, ev, 0x7f0000000000 + len(lines) * 4096,
                        0x55aa00001000))
    open(path, "w").write("".join(lines))


def replay_mmap(path):
    """Each fault's (module, offset) from the text alone: a process's
    mappings from its MMAP/MMAP2 lines (a new one replaces what it
    overlaps), dropped at its exec, copied at a fork; the fault's data
    address in them: offset = address - start + file offset (0 for
    anonymous memory, as /proc/PID/maps has it); the module is the dso
    perf printed after the address, else the mapping's file."""
    maps, out = {}, []
    mm = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) "
                    r"@ (0x[0-9a-f]+|0)[^\]]*\]: (\S+) (.*)$")
    flt = re.compile(r"^\s*\S.*? (\d+)/\d+ +[\d.]+: +(?:major|minor)-faults: +([0-9a-f]+) "
                     r"(.*)$")
    for line in open(path):
        line = line.rstrip("\n")
        m = mm.search(line)
        if m:
            pid = int(m.group(1))
            start, size = int(m.group(2), 16), int(m.group(3), 16)
            name = m.group(6)
            off = int(m.group(4), 16) if name.startswith("/") and name != "//anon" else 0
            cur = maps.setdefault(pid, [])
            new = []
            for (s0, e0, o0, n0) in cur:
                if e0 <= start or s0 >= start + size:
                    new.append((s0, e0, o0, n0))
                    continue
                if s0 < start:
                    new.append((s0, start, o0, n0))
                if e0 > start + size:
                    new.append((start + size, e0, o0 + (start + size - s0), n0))
            new.append((start, start + size, off, None if name == "//anon" else name))
            maps[pid] = new
            continue
        m = re.search(r"PERF_RECORD_COMM exec: .*:(\d+)/\d+$", line)
        if m:
            maps.pop(int(m.group(1)), None)
            continue
        m = re.search(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)", line)
        if m:
            child, parent = int(m.group(1)), int(m.group(2))
            if child != parent:
                maps[child] = list(maps.get(parent, []))
            continue
        m = flt.match(line)
        if m:
            pid, addr, rest = int(m.group(1)), int(m.group(2), 16), m.group(3)
            dso = re.match(r"\S+ \(([^)]*)\)", rest)
            hit = [x for x in maps.get(pid, []) + maps.get(-1, []) if x[0] <= addr < x[1]]
            module = dso.group(1) if dso and dso.group(1) != "[unknown]" else (
                hit[0][3] if hit and hit[0][3] else "")
            out.append([module, str(addr - hit[0][0] + hit[0][2]) if hit else ""])
    return out


def summary(ts, args):
    out = run([ts, "plot", "--summary"] + args).stdout.splitlines()
    return [line.split("\t") for line in out[1:]]


def main():
    ts, shared, work, case = sys.argv[1:5]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    s = os.path.join(work, "s.trace")
    png = os.path.join(work, "out.png")

    if case == "labels":
        perf_text(os.path.join(work, "f.txt"),
                  [("app", 500, "major-faults" if i % 333 == 0 else "minor-faults")
                   for i in range(1000)])
        run([ts, "import", "-o", s, os.path.join(work, "f.txt")])
        rows = summary(ts, ["-o", png, s])
        if rows[-1][:4] != ["4", "0", "996", "0"]:
            fail("summary %s, written: 4 hard, 996 soft" % rows[-1])
        w, h, bpp, data = png_rows(png)
        edge = [data[0], data[1], data[h - 2], data[h - 1]]
        cols = [b"".join(r[x * bpp:(x + 1) * bpp] for r in data for x in (0, 1, w - 2, w - 1))]
        for row in edge + cols:
            for i in range(0, len(row) - 2, bpp):
                if max(row[i:i + 3]) < 128:
                    fail("a dark pixel at the figure's edge: a label runs off it")
        # The bars are the seed's axes [0.85, 0.1, 0.05, 0.8]: above and
        # below them, in their columns, nothing is drawn (before, the
        # label of a short part hung below the bar, its other half hidden
        # under the next part).
        x0, x1 = int(0.85 * w) + 3, int(0.90 * w) - 3
        for y in list(range(0, int(0.1 * h) - 3)) + list(range(int(0.9 * h) + 3, h)):
            for x in range(x0, x1):
                if max(data[y][x * bpp:x * bpp + 3]) < 128:
                    fail("a dark pixel at (%d, %d), outside the bars in their "
                         "columns: a bar's label hangs off it" % (x, y))
        print("ok: no label crosses the figure's edge or hangs off a bar")

    elif case == "volume":
        # A faults first, 10 times; B next, 30 times; C last, 20 times.
        faults = ([("A", 101, "minor-faults")] * 10 + [("B", 102, "minor-faults")] * 30
                  + [("C", 103, "minor-faults")] * 20)
        perf_text(os.path.join(work, "f.txt"), faults)
        run([ts, "import", "-o", s, os.path.join(work, "f.txt")])
        rows = summary(ts, ["-c", "process", "-o", png, s])
        got = [(r[6], int(r[2]) + int(r[3])) for r in rows[:-1]]
        if got != [("102 B", 30), ("103 C", 20), ("101 A", 10)]:
            fail("categories %s; written: B 30, C 20, A 10, most first" % got)
        print("ok: categories by fault count: %s" % got)

    elif case == "no_match":
        perf_text(os.path.join(work, "f.txt"), [("app", 500, "minor-faults")] * 10)
        run([ts, "import", "-o", s, os.path.join(work, "f.txt")])
        p = run([ts, "plot", "-p", "^nosuch$", "-o", png, s], 1)
        if "none of the 10 faults passes" not in p.stderr or os.path.exists(png):
            fail("no match: %r, %s written" % (p.stderr, png))
        open(png, "w").write("old")
        run([ts, "plot", "-p", "^nosuch$", "-o", png, s], 1)
        if open(png).read() != "old":
            fail("an earlier %s was overwritten" % png)
        print("ok: exit 1, %s" % p.stderr.strip())

    elif case == "data_start":
        with zipfile.ZipFile(os.path.join(shared, "data", "etw",
                                          "net.4.5.2.x64.etl.zip")) as z:
            inner = next(n for n in z.namelist() if n.lower().endswith(".etl"))
            etl = os.path.join(work, "net.etl")
            open(etl, "wb").write(z.read(inner))
        run([ts, "import", "-o", s, etl])
        scan = run([ts, "sql", "--csv", s,
                    "SELECT module, count(*), sum(module_offset >= 8388608) FROM page_fault "
                    "WHERE module LIKE '%\\clr.dll' GROUP BY module"]).stdout.splitlines()
        path, total, data = scan[1].rsplit(",", 2)
        if not int(data):
            fail("no clr.dll fault at 0x800000 or above: the case tests nothing")
        rows = {r[6]: r for r in summary(ts, ["-c", "module", "-o", png, s])}
        if path not in rows:
            fail("--summary does not name %s: %s" % (path, sorted(rows)))
        p = subprocess.run([ts, "plot", "--summary", "-c", "module", "--data-start",
                            "clr.dll,0x800000", "--data-start", "nosuch.dll,0x10",
                            "-o", png, s], capture_output=True, text=True)
        if p.returncode != 0:
            fail("plot --data-start: exit %d: %s" % (p.returncode, p.stderr))
        r = {l.split("\t")[6]: l.split("\t") for l in p.stdout.splitlines()[1:]}[path]
        hard_code, hard_data = int(r[0]), int(r[1])
        if (hard_code, hard_data) != (int(total) - int(data), int(data)):
            fail("clr.dll: %d code, %d data; the scan: %d at 0x800000 or above of %s"
                 % (hard_code, hard_data, int(data), total))
        if "nosuch.dll matches no module" not in p.stderr:
            fail("no warning for a --data-start that names no module: %r" % p.stderr)
        print("ok: clr.dll by base name: %d code, %d data; the unknown one warned"
              % (hard_code, hard_data))

    elif case == "mmap":
        sample = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Data",
                              "perf-faults-mmap.txt")
        want = replay_mmap(sample)
        run([ts, "import", "-o", s, sample])
        got = [[r[0], r[1]] for r in (l.split(",") for l in run(
            [ts, "sql", "--csv", s, "SELECT coalesce(module, ''), coalesce(module_offset, '') "
             "FROM page_fault ORDER BY id"]).stdout.splitlines()[1:])]
        if len(got) != len(want):
            fail("%d faults, the text has %d" % (len(got), len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            if g != w:
                fail("fault %d: module, offset %s; the replay: %s" % (i, g, w))
        total = summary(ts, ["-o", png, s])[-1]
        counted = sum(int(x) for x in total[:4])
        if int(total[5]) * 10 > counted:
            fail("%s of %d faults have no offset: more than 10%%" % (total[5], counted))
        print("ok: %d faults placed as the replay places them; %s of %d without an "
              "offset" % (len(got), total[5], counted))

    else:
        fail("unknown case " + case)


main()
