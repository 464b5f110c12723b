"""One clock with the kernel: `tracestore record -e
syscalls:sys_enter_getppid -- tracestore trace-python -- getppid_prog.py`
records each getppid system call the program makes inside marker(); in
the kernel's session, the program thread's sys_enter_getppid events that
fall in the program's span of time are exactly five, and each lies inside
its own marker() row of the Python session, at least the 2 ms marker()
sleeps before and after it from either end (the ftrace clock "mono" and
the tracer's TSC-read CLOCK_MONOTONIC agree).

    python_clock_test.py TRACESTORE EXT PYTHON WORKDIR

Exit 77 (skip) without root, tracefs or PYTHON.
"""
import os
import shutil
import sqlite3
import subprocess
import sys


def rows(ext, session, sql):
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    return conn.execute(sql).fetchall()


def main():
    tracestore, ext, python, work = sys.argv[1:5]
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    if os.geteuid() != 0 or not os.path.isdir('/sys/kernel/tracing/instances'):
        print('skip: needs root and tracefs')
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    kernel = os.path.join(work, 'kernel.trace')
    py = os.path.join(work, 'python.trace')
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'programs', 'getppid_prog.py')
    rec = subprocess.run([tracestore, 'record', '-e',
                          'syscalls:sys_enter_getppid', '-o', kernel, '--',
                          tracestore, 'trace-python', '--python', python,
                          '-o', py, '--', program],
                         capture_output=True, text=True, timeout=120)
    if rec.returncode != 0 or 'getppid ok' not in rec.stdout:
        print('FAIL: record: %r %r' % (rec.returncode, rec.stderr[-2000:]))
        return 1
    marks = rows(ext, py, "SELECT ts, ts + dur, tid FROM span WHERE name = "
                          "'__main__.marker' ORDER BY ts")
    if len(marks) != 5:
        print('FAIL: %d marker rows' % len(marks))
        return 1
    tid = marks[0][2]
    first, last = marks[0][0], marks[-1][1]
    events = [ts for (ts,) in rows(ext, kernel,
              "SELECT ts FROM ftrace_event WHERE name = 'sys_enter_getppid' "
              "AND tid = %d AND ts BETWEEN %d AND %d ORDER BY ts"
              % (tid, first, last))]
    fails = []
    if len(events) != 5:
        fails.append('%d getppid events in the markers\' time, want 5: %r'
                     % (len(events), events))
    for (begin, end, _), ts in zip(marks, events):
        # marker() sleeps 2 ms before and after the call: at least that.
        if not begin + 2000000 <= ts <= end - 2000000:
            fails.append('getppid at %d not 2 ms inside its marker() %d..%d'
                         % (ts, begin, end))
    for f in fails:
        print('FAIL:', f)
    if not fails:
        print('ok: 5 kernel getppid events, each inside its marker() row; '
              'offsets into the call: %s us' % ', '.join(
                  '%.0f' % ((ts - b) / 1000) for (b, e, _), ts in
                  zip(marks, events)))
    return 1 if fails else 0


sys.exit(main())
