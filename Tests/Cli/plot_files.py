#!/usr/bin/env python3
"""tracestore plot's files and errors, checked by readers that are not ours.

usage: plot_files.py TRACESTORE FTRACE_SAMPLE PERF_STAT_SAMPLE WORKDIR CASE
       plot_files.py hues PNG N      (the PNG shows at least N hues)

Cases:
  png, svg, pdf   --width 8 --height 5 --dpi 100 of the ftrace sample: the
                  PNG's IHDR says 800 x 500 and zlib inflates its IDAT
                  chunks to that many rows; the SVG parses (xml) with width
                  576pt, height 360pt; pdfinfo (poppler) says 576 x 360 pts
                  and pdftoppm renders it.
  atomic          drawing over an existing file leaves no temporary file.
  no_store        a session without page faults: error, exit 1.
  empty           a session whose page_fault store is empty (perf stat
                  import): error, exit 1.
  unwritable      -o in a directory that does not exist: error, exit 1.
  bad_regex       -p '(' and -m '[': error naming the regex, exit 1.
  bad_extension   -o x.gif: error, exit 1.
  many_threads    perf script text written here, 100 threads of one
                  process, thread i with i + 1 major and 2 i minor faults:
                  -c thread --summary lists each with those counts (more
                  categories than plot draws in colors of their own).
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def run(args, expect_rc=0):
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != expect_rc:
        fail("%s: exit %d (wanted %d)\n%s%s" % (" ".join(args), p.returncode,
                                               expect_rc, p.stdout, p.stderr))
    return p


def png_rows(path):
    """(width, height, rows of RGB(A) bytes) from a PNG, by the spec."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s: not a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or ctype not in (2, 6):
        fail("%s: unexpected PNG depth %d type %d" % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        fail("%s: %d bytes of pixels for %d x %d" % (path, len(raw), w, h))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def hues(path, want):
    """Distinct saturated hues (12 sectors) among the pixels of the faults
    panel (the seed's axes [0.1, 0.2, 0.75, 0.7]: not the legend above it,
    nor the cumulative panel below)."""
    import colorsys
    w, h, bpp, rows = png_rows(path)
    count = {}
    for row in rows[int(0.1 * h) + 2:int(0.8 * h) - 2]:
        for x in range(int(0.1 * w) * bpp + 2 * bpp, int(0.85 * w) * bpp - 2 * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            hh, ss, vv = colorsys.rgb_to_hsv(r / 255, g / 255, b / 255)
            # Saturation from 0.2: data faults are drawn whitened
            # (the seed's alpha: 0.5, soft data 0.65), which leaves the
            # palette's colors (Okabe-Ito, saturation 1) at 0.27-0.5.
            if ss > 0.2 and vv > 0.3:
                k = int(hh * 12 + 0.5) % 12
                count[k] = count.get(k, 0) + 1
    seen = set(count)
    # The yellow of the process-start lines is one hue of the picture's own.
    seen.discard(2)
    if len(seen) < want:
        fail("%s: %d hue(s) %s, wanted %d" % (path, len(seen), sorted(seen), want))
    print("ok: %s shows %d hues %s" % (path, len(seen), sorted(seen)))


def many_threads(ts, work, session):
    lines, t = [], 100.0
    for i in range(100):
        for ev, n in (("major-faults", i + 1), ("minor-faults", 2 * i)):
            for _ in range(n):
                t += 0.000001
                lines.append("%16s %5d/%-5d %12.6f: %s: %16x [unknown] (/tmp/f.bin) "
                             "%16x main (/usr/bin/app)\n"
                             % ("app", 500, 1000 + i, t, ev, 0x7f0000000000 + i * 4096,
                                0x55aa00001000))
    text = os.path.join(work, "script.txt")
    open(text, "w").write("".join(lines))
    run([ts, "import", "-o", session, text])
    out = run([ts, "plot", "-c", "thread", "--summary", "-o",
               os.path.join(work, "x.png"), session]).stdout.splitlines()
    got = {}
    for line in out[1:]:
        f = line.split("\t")
        got[f[6].split(" ")[0]] = (int(f[0]) + int(f[1]), int(f[2]) + int(f[3]))
    want = {str(1000 + i): (i + 1, 2 * i) for i in range(100)}
    want["total"] = (sum(i + 1 for i in range(100)), sum(2 * i for i in range(100)))
    if got != want:
        fail("summary: %s" % sorted(set(got.items()) ^ set(want.items()))[:6])


def main():
    if sys.argv[1] == "hues":
        hues(sys.argv[2], int(sys.argv[3]))
        return
    ts, ftrace, stat, work, case = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    session = os.path.join(work, "s.trace")
    if case not in ("no_store", "empty", "many_threads"):
        run([ts, "import", "-o", session, ftrace])
    size = ["--width", "8", "--height", "5", "--dpi", "100"]
    if case == "png":
        out = os.path.join(work, "out.png")
        run([ts, "plot"] + size + ["-o", out, session])
        w, h, _, rows = png_rows(out)
        if (w, h) != (800, 500) or len(rows) != 500:
            fail("PNG is %d x %d" % (w, h))
    elif case == "svg":
        out = os.path.join(work, "out.svg")
        run([ts, "plot"] + size + ["-o", out, session])
        root = ET.parse(out).getroot()
        if (root.get("width"), root.get("height")) != ("576pt", "360pt"):
            fail("SVG is %s x %s" % (root.get("width"), root.get("height")))
    elif case == "pdf":
        out = os.path.join(work, "out.pdf")
        run([ts, "plot"] + size + ["-o", out, session])
        info = run(["pdfinfo", out]).stdout
        if not re.search(r"^Page size:\s+576 x 360 pts", info, re.M):
            fail("pdfinfo says:\n" + info)
        run(["pdftoppm", "-r", "10", "-png", out, os.path.join(work, "page")])
    elif case == "atomic":
        out = os.path.join(work, "out.png")
        open(out, "w").write("old")
        run([ts, "plot", "-o", out, session])
        png_rows(out)
        if sorted(os.listdir(work)) != ["out.png", "s.trace"]:
            fail("left behind: %s" % os.listdir(work))
    elif case == "no_store":
        # A session of strings only: importing a counter sample, then
        # removing its stores but the session header and strings.
        run([ts, "import", "-o", session, stat])
        for f in os.listdir(session):
            if f not in ("session.tracer", "string.store", "string_data.store"):
                os.remove(os.path.join(session, f))
        p = run([ts, "plot", "-o", os.path.join(work, "x.png"), session], 1)
        if "no page_fault store" not in p.stderr:
            fail("stderr: " + p.stderr)
    elif case == "empty":
        run([ts, "import", "-o", session, stat])
        p = run([ts, "plot", "-o", os.path.join(work, "x.png"), session], 1)
        if "holds no fault" not in p.stderr:
            fail("stderr: " + p.stderr)
    elif case == "unwritable":
        p = run([ts, "plot", "-o", os.path.join(work, "no", "x.png"), session], 1)
        if "cannot write" not in p.stderr or "x.png" not in p.stderr:
            fail("stderr: " + p.stderr)
    elif case == "bad_regex":
        for opt, rx in (("-p", "("), ("-m", "[")):
            p = run([ts, "plot", opt, rx, "-o", os.path.join(work, "x.png"), session], 1)
            if "bad %s regular expression '%s'" % (opt, rx) not in p.stderr:
                fail("stderr: " + p.stderr)
    elif case == "bad_extension":
        p = run([ts, "plot", "-o", os.path.join(work, "x.gif"), session], 1)
        if ".png, .svg or .pdf" not in p.stderr:
            fail("stderr: " + p.stderr)
    elif case == "many_threads":
        many_threads(ts, work, session)
    else:
        fail("unknown case " + case)
    print("ok:", case)


if __name__ == "__main__":
    main()
