#!/usr/bin/env python3
"""tracestore top: what it prints is what the views answer; the live
screen in a real terminal (tmux), while a writer writes.

    rollup_top_test.py TRACESTORE EXTENSION GENSESSION WORKDIR once|batch|tmux

once:  `top --once` of a generated session: each section's rows, read
       back from the text, equal the view's rows formatted as top formats
       them (ns as ms or us with three decimals, module base names), as a
       set; `top --once --json` equals SELECT * FROM each view, row for
       row, read with Python's sqlite3.
batch: `top --batch -n 3 --interval 0.3` while GenSession writes: three
       frames; the first has no rates ("-"), a later one has some; the
       store counts in the header never go back.
tmux:  `top` in an 80x24 tmux pane while GenSession writes: the header
       says the writer runs, the keys switch views (2 functions, 6
       running, Tab), s changes the sort column, the screen fits 80
       columns; after a resize to 120x40 it fits that; q exits with status
       0, as Ctrl-C does in a second run.  Skipped (77) without tmux.
"""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time


class Failure(Exception):
    pass


def connect(ext, session):
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    db.execute("SELECT tracestore_attach(?)", (session,))
    return db


def fit(s, width, value=None):
    """A cell as top fits it into its column (CmdTop.c, topFit)."""
    if len(s) <= width:
        return s
    if value is not None:
        for p in range(width, 0, -1):
            t = "%.*g" % (p, value)
            if len(t) <= width:
                return t
    return s[:width]


def ms(v):
    return "-" if v is None else "%.3f" % (v / 1e6)


def us(v):
    return "-" if v is None else "%.3f" % (v / 1e3)


def text(v):
    return "NULL" if v is None else str(v)


def base(v):
    if v is None:
        return "NULL"
    tail = v.rsplit("/", 1)[-1]
    return tail if tail else v


# Per section: the view's SQL, giving (key..., values...) as top prints
# them, and the columns of top's table they are in.
SECTIONS = {
    "overview": ("SELECT store, name, count FROM event_counts",
                 lambda r: (text(r[0]), text(r[1]), str(r[2])),
                 ["STORE", "NAME", "COUNT"]),
    "functions": ("SELECT name, calls, self_dur, total_dur, avg_dur "
                  "FROM span_self_time",
                  lambda r: (text(r[0]), str(r[1]), ms(r[2]), ms(r[3]),
                             us(r[4])),
                  ["NAME", "CALLS", "SELF ms", "TOTAL ms", "AVG us"]),
    "faults": ("SELECT pid, comm, module, faults, hard, soft, hard_code, "
               "hard_data FROM page_fault_traffic",
               lambda r: ("-" if r[0] is None else str(r[0]), text(r[1]),
                          base(r[2]), str(r[3]), str(r[4]), str(r[5]),
                          str(r[6]), str(r[7])),
               ["PID", "COMM", "MODULE", "FAULTS", "HARD", "SOFT", "H.CODE",
                "H.DATA"]),
    "kvm": ("SELECT reason, exit_code, count, avg_dur, p50_dur, p99_dur, "
            "max_dur FROM kvm_exit_reasons",
            lambda r: (text(r[0]), "-" if r[1] is None else str(r[1]),
                       str(r[2]), us(r[3]), us(r[4]), us(r[5]), us(r[6])),
            ["REASON", "CODE", "COUNT", "AVG us", "P50 us", "P99 us",
             "MAX us"]),
    "syscalls": ("SELECT name, id, count FROM syscall_counts",
                 lambda r: (text(r[0]), "-" if r[1] is None else
                            fit(str(r[1]), 6, r[1]), fit(str(r[2]), 12, r[2])),
                 ["NAME", "NR", "COUNT"]),
}


def parse_sections(out):
    """{section: (header line, [row lines])} of top's plain text."""
    sections = {}
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^\d (\w+): .*, (\d+) rows$", lines[i])
        if m:
            name, n = m.group(1), int(m.group(2))
            sections[name] = (lines[i + 1], lines[i + 2:i + 2 + n])
            i += 2 + n
        else:
            i += 1
    return sections


def split_row(header, line):
    """The cells of a row: each column but the last is right-aligned and
    ends where its header ends (the header may carry the sort mark v or
    ^); the last takes the rest of the line."""
    ends = []
    for m in re.finditer(r"[A-Z0-9/%.]+(?: (?:ms|us))?[v^]?", header):
        ends.append((m.group(0).rstrip("v^"), m.start(), m.end()))
    cells, pos = {}, 0
    for k, (name, start, end) in enumerate(ends):
        if k == len(ends) - 1:
            cells[name] = line[start:]
        else:
            cells[name] = line[pos:end].strip()
            pos = end + (1 if header[end:end + 1] == " " else 0)
    return cells


def check_once(args):
    work = args.work
    session = os.path.join(work, "s")
    subprocess.run([args.gen, "--spans", "5000", "--faults", "5000", "--kvm",
                    "5000", "--events", "5000", session], check=True)
    out = subprocess.run([args.ts, "top", "--once", session],
                         stdout=subprocess.PIPE, universal_newlines=True,
                         check=True).stdout
    got = parse_sections(out)
    db = connect(args.ext, session)
    for name, (sql, fmt, cols) in SECTIONS.items():
        if name not in got:
            raise Failure("top --once has no section %s:\n%s" % (name, out))
        header, lines = got[name]
        want = sorted(fmt(r) for r in db.execute(sql))
        have = sorted(tuple(split_row(header, line)[c].strip() for c in cols)
                      for line in lines)
        if have != want:
            diff = [h for h in have if h not in want][:3]
            raise Failure("top --once %s: %d rows, the view %d; e.g. %s "
                          "not in the view (%s)" % (name, len(have),
                                                    len(want), diff,
                                                    [w for w in want
                                                     if w not in have][:3]))
    js = json.loads(subprocess.run([args.ts, "top", "--once", "--json",
                                    session], stdout=subprocess.PIPE,
                                   universal_newlines=True,
                                   check=True).stdout)
    for view, rows in js["views"].items():
        cur = db.execute("SELECT * FROM %s" % view)
        cols = [d[0] for d in cur.description]
        want = [dict(zip(cols, r)) for r in cur.fetchall()]
        if rows != want:
            raise Failure("top --once --json %s differs from the view" % view)
    print("once: %d sections and %d views equal the views" %
          (len(SECTIONS), len(js["views"])))


def start_writer(args, session):
    return subprocess.Popen([args.gen, "--python", "3000000", "--faults",
                             "3000000", "--commit-every", "2000", "--slow",
                             "4000", "--leave-open", "--fold-thread",
                             session],
                            stdout=subprocess.DEVNULL)


def wait_session(session):
    for _ in range(500):
        if os.path.exists(os.path.join(session, "span.store")):
            return
        time.sleep(0.01)
    raise Failure("the writer made no session")


def check_batch(args):
    session = os.path.join(args.work, "b")
    writer = start_writer(args, session)
    try:
        wait_session(session)
        time.sleep(0.3)
        out = subprocess.run([args.ts, "top", "--batch", "-n", "3",
                              "--interval", "0.3", "--limit", "5", session],
                             stdout=subprocess.PIPE, universal_newlines=True,
                             check=True, timeout=60).stdout
    finally:
        writer.kill()
        writer.wait()
    frames = out.split("tracestore top - ")[1:]
    if len(frames) != 3:
        raise Failure("%d frames, not 3:\n%s" % (len(frames), out))
    if " +" in frames[0].splitlines()[1]:
        raise Failure("the first frame has rates:\n%s" % frames[0])
    if not re.search(r"span \S+ \+\S+/s", frames[2]):
        raise Failure("the last frame has no record rate:\n%s" % frames[2])
    counts = []
    for f in frames:
        m = re.search(r"span ([0-9.]+)([kMG]?)", f.splitlines()[1])
        counts.append(float(m.group(1)) * {"": 1, "k": 1e3, "M": 1e6,
                                            "G": 1e9}[m.group(2)])
    if counts != sorted(counts):
        raise Failure("the span count went back: %s" % counts)
    rated = [l for l in frames[2].splitlines()
             if re.match(r"^ +[0-9.]+ +[0-9.]+ +[0-9.]+ ", l)]
    if not rated:
        raise Failure("no row of the last frame has a rate:\n%s" % frames[2])
    print("batch: 3 frames, span count %s" % counts)


def tmux(*a):
    return subprocess.run(["tmux", "-L", "tracertop"] + list(a),
                          stdout=subprocess.PIPE, universal_newlines=True)


def screen():
    return tmux("capture-pane", "-t", "top", "-p").stdout


def wait_screen(pred, what, timeout=10):
    end = time.monotonic() + timeout
    s = ""
    while time.monotonic() < end:
        s = screen()
        if pred(s):
            return s
        time.sleep(0.1)
    raise Failure("the screen never showed %s:\n%s" % (what, s))


def check_tmux(args):
    if shutil.which("tmux") is None:
        print("no tmux")
        return 77
    # A path longer than the pane: the header gives the path's head away,
    # never the writer's state.
    session = os.path.join(args.work, "a-session-whose-path-is-wider-than-"
                           "the-terminal-" + "x" * 40)
    status = os.path.join(args.work, "status")
    writer = start_writer(args, session)
    tmux("kill-server")
    try:
        wait_session(session)
        for quit_key in ("q", "C-c"):
            if os.path.exists(status):
                os.remove(status)
            cmd = "%s top --interval 0.3 %s; echo $? > %s" % (args.ts,
                                                             session, status)
            tmux("new-session", "-d", "-s", "top", "-x", "80", "-y", "24",
                 cmd)
            s = wait_screen(lambda s: "writer running" in s and
                            "[1 overview]" in s, "the overview")
            if any(len(l) > 80 for l in s.splitlines()):
                raise Failure("a line is wider than 80 columns:\n%s" % s)
            if not s.startswith("tracestore top - ...x") or \
               "x - writer running - " not in s.splitlines()[0]:
                raise Failure("the header did not shorten the path from "
                              "its head:\n%s" % s)
            tmux("send-keys", "-t", "top", "2")
            s = wait_screen(lambda s: "[2 functions]" in s and
                            re.search(r"\d+\.\d+ +fn_\d+", s),
                            "the functions view")
            tmux("send-keys", "-t", "top", "s")
            wait_screen(lambda s: "SELF msv" in s or "SELF ms^" in s or
                        "TOTAL msv" in s, "the next sort column")
            tmux("send-keys", "-t", "top", "6")
            wait_screen(lambda s: "[6 running]" in s and "fn_" in s,
                        "the running calls")
            tmux("send-keys", "-t", "top", "Tab")
            wait_screen(lambda s: "[1 overview]" in s, "Tab back to 1")
            tmux("resize-window", "-t", "top", "-x", "120", "-y", "40")
            s = wait_screen(lambda s: len(s.splitlines()) >= 39 and
                            "q quit" in s.splitlines()[-1], "40 lines")
            tmux("send-keys", "-t", "top", quit_key)
            end = time.monotonic() + 10
            while not os.path.exists(status) and time.monotonic() < end:
                time.sleep(0.05)
            if not os.path.exists(status):
                raise Failure("top did not exit on %s" % quit_key)
            with open(status) as f:
                rc = f.read().strip()
            if rc != "0":
                raise Failure("top exited %s on %s" % (rc, quit_key))
            tmux("kill-session", "-t", "top")
    finally:
        tmux("kill-server")
        writer.kill()
        writer.wait()
    print("tmux: views, sort, resize, q and Ctrl-C")
    return 0


class Args:
    pass


def main():
    args = Args()
    args.ts, args.ext, args.gen, args.work, mode = sys.argv[1:6]
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    try:
        if mode == "once":
            check_once(args)
        elif mode == "batch":
            check_batch(args)
        elif mode == "tmux":
            return check_tmux(args)
        else:
            raise Failure("unknown mode " + mode)
    except Failure as e:
        print("FAIL: %s" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
