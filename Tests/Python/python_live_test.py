"""The Python tracer seen live from another process, and after SIGKILL.

    python_live_test.py TRACESTORE EXT PYTHON WORKDIR live|lines_live|kill

live: `tracestore trace-python --include __main__ --include json` runs
programs/json_loop.py for 1.5 s while this process (a second process)
asks the session for count(*) and max(ts) of span every 20 ms through the
extension: they never go back, grow at least 10 times while the program
runs, and some answer is less than 50 ms behind CLOCK_MONOTONIC (the
tracer's clock).  Every name is in __main__ or json (the filter); the
program's output and exit status are its own.

lines_live: the same with --lines __main__, asking line's count(*) and
max(ts), and line_hot once in a while: the same rules, and every line row
is of __main__'s file.

kill: the same program without end (with --lines __main__), SIGKILLed once the session holds
calls; then the session opens and every committed row is intact: names
resolve, parent rows exist one level up on the same thread and begin no
later; rows are final (flags 0) or were running at the kill (flags 2, one
chain per thread from depth 0, the program's <module> and main among
them); a final row ends within its final parent; round_trip rows are no
more than the rounds the program reported plus one.  Lines: a row still
running (flags 2) is in a running call, at most one per call; the others
are final (flags 0), 0 <= self_dur <= dur.

Exit 77 (skip) when PYTHON does not exist.
"""
import collections
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time


def connect(ext, session):
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    return conn


def wait_for_store(session, proc, timeout=20, store='span'):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(os.path.join(session, store + '.store')):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.01)
    return False


def live(tracestore, ext, python, program, work, fails, store='span'):
    session = os.path.join(work, 'live.trace')
    lines = ['--lines', '__main__'] if store == 'line' else []
    proc = subprocess.Popen([tracestore, 'trace-python', '--python', python,
                             '--include', '__main__', '--include', 'json',
                             '-o', session] + lines + ['--', program, '1.5'],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    if not wait_for_store(session, proc, store=store):
        fails.append('no %s store appeared' % store)
    seen = []
    conn = None
    while proc.poll() is None:
        try:
            if conn is None:
                conn = connect(ext, session)
            before = time.monotonic_ns()
            count, max_ts = conn.execute(
                'SELECT count(*), max(ts) FROM %s' % store).fetchone()
            seen.append((count, max_ts or 0, before))
            if store == 'line' and len(seen) % 10 == 0:
                conn.execute('SELECT * FROM line_hot').fetchall()
        except sqlite3.Error as x:
            fails.append('query failed while running: %s' % x)
            break
        time.sleep(0.02)
    out, err = proc.communicate()
    if proc.returncode != 0 or 'json_loop ok' not in out or err:
        fails.append('program: exit %d, %r %r' % (proc.returncode, out, err))
    grows = 0
    for (c0, t0, _), (c1, t1, _) in zip(seen, seen[1:]):
        if c1 < c0 or t1 < t0:
            fails.append('went back: count %d -> %d, max(ts) %d -> %d'
                         % (c0, c1, t0, t1))
        grows += c1 > c0
    lags = sorted((now - ts) / 1e6 for c, ts, now in seen if c)
    if grows < 10:
        fails.append('count(*) grew %d times in %d queries' % (grows, len(seen)))
    if not lags or lags[0] > 50:
        fails.append('max(ts) never within 50 ms of now: %r' % lags[:5])
    if conn is None:
        conn = connect(ext, session)
    bad = conn.execute("SELECT count(*) FROM span WHERE name NOT LIKE "
                       "'\\_\\_main\\_\\_.%' ESCAPE '\\' AND name NOT LIKE "
                       "'json.%'").fetchone()[0]
    if bad:
        fails.append('%d rows outside --include __main__ json' % bad)
    if store == 'line':
        files = conn.execute('SELECT DISTINCT file FROM line').fetchall()
        if files != [(program,)]:
            fails.append('line rows of %r, not only %s' % (files, program))
    if lags:
        print('live: %d queries, count grew %d times, lag behind now: '
              'min %.1f ms, median %.1f ms' % (len(seen), grows, lags[0],
                                               lags[len(lags) // 2]))


def kill(tracestore, ext, python, program, work, fails):
    session = os.path.join(work, 'kill.trace')
    progress = os.path.join(work, 'progress')
    proc = subprocess.Popen([tracestore, 'trace-python', '--python', python,
                             '-o', session, '--lines', '__main__', '--',
                             program, '0', progress],
                            stdout=subprocess.DEVNULL)
    if not wait_for_store(session, proc):
        fails.append('no span store appeared')
    end = time.monotonic() + 20
    conn = None
    while time.monotonic() < end:
        try:
            conn = conn or connect(ext, session)
            if conn.execute("SELECT count(*) FROM span WHERE name = "
                            "'__main__.round_trip'").fetchone()[0] > 500:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with open(progress) as f:
        rounds = int(f.read().strip() or 0)
    conn = connect(ext, session)
    rows = conn.execute('SELECT id, ts, dur, parent_id, name, depth, tid, '
                        'flags FROM span ORDER BY id').fetchall()
    by_id = {r[0]: r for r in rows}
    open_by_tid = {}
    for rid, ts, dur, parent, name, depth, tid, flags in rows:
        if name is None:
            fails.append('row %d: name does not resolve' % rid)
        if flags not in (0, 2) or dur < 0:
            fails.append('row %d: flags %d dur %d' % (rid, flags, dur))
        if parent is None:
            if depth != 0:
                fails.append('row %d: no parent at depth %d' % (rid, depth))
        else:
            p = by_id.get(parent)
            if p is None or p[5] != depth - 1 or p[6] != tid or p[1] > ts:
                fails.append('row %d: parent %r does not hold it' % (rid, p))
            elif flags == 0 and p[7] == 0 and ts + dur > p[1] + p[2]:
                fails.append('row %d ends after its parent' % rid)
            elif flags == 2 and p[7] != 2:
                fails.append('row %d runs, its parent %d does not' % (rid, parent))
        if flags == 2:
            open_by_tid.setdefault(tid, []).append((depth, name))
    for tid, chain in open_by_tid.items():
        if [d for d, n in chain] != list(range(len(chain))):
            fails.append('thread %d: running calls are not one chain: %r'
                         % (tid, chain))
    running = [n for c in open_by_tid.values() for d, n in c]
    if '__main__.<module>' not in running or '__main__.main' not in running:
        fails.append('<module> and main not flagged running: %r' % running)
    trips = sum(1 for r in rows if r[4] == '__main__.round_trip')
    if not 0 < trips <= rounds + 1:
        fails.append('%d round_trip rows, the program reported %d rounds'
                     % (trips, rounds))
    spans = {r[0]: r[7] for r in rows}
    lines = conn.execute('SELECT span_id, flags, dur, self_dur FROM line'
                         ).fetchall()
    running_lines = collections.Counter()
    for span_id, flags, dur, self_dur in lines:
        if flags == 2:
            running_lines[span_id] += 1
            if spans.get(span_id) != 2:
                fails.append('a running line in span %r, not running'
                             % span_id)
        elif flags != 0 or not 0 <= self_dur <= dur:
            fails.append('line of span %r: flags %d dur %d self_dur %d'
                         % (span_id, flags, dur, self_dur))
    if not lines or any(n > 1 for n in running_lines.values()):
        fails.append('%d lines, running per call: %r'
                     % (len(lines), running_lines))
    print('kill: %d rows intact after SIGKILL, %d running (flags 2), '
          '%d round trips of %d reported' % (len(rows), len(running), trips,
                                              rounds))


def main():
    tracestore, ext, python, work, mode = sys.argv[1:6]
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'programs', 'json_loop.py')
    fails = []
    if mode == 'kill':
        kill(tracestore, ext, python, program, work, fails)
    else:
        live(tracestore, ext, python, program, work, fails,
             'line' if mode == 'lines_live' else 'span')
    for f in fails[:20]:
        print('FAIL:', f)
    return 1 if fails else 0


sys.exit(main())
