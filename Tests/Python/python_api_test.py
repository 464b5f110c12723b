"""tracestore.start()/stop() inside a program (programs/api_prog.py).

    python_api_test.py EXT PYTHON MODULE_DIR WORKDIR

Expected rows, from the program's text: deep(10) under max_depth=3 gives
exactly three deep rows, depths 0, 1, 2, each the parent of the next; no
row of a json module (exclude=["json"]); the thread running before
start() has its before_helper call at depth 0; the fork child's
child_work is absent and every row has the parent's pid; every call
returned (flags 0); stop() returned the number of rows; marker() (a
10 ms sleep) lies within the time.monotonic_ns() readings the program
took around it: the tracer's ts are CLOCK_MONOTONIC.  Also: start()
twice is an error; a bad include type is a TypeError.

lines=: three sessions in turn in one process (the code objects keep what
an earlier session set on them): lines=["lines_api"] traces tiny(5) of
the module lines_api (hits 1, 6, 5, 1 by hand: the for line once more
than its body) and no line of __main__; a session without lines= has no
line store; lines=["__main__"] traces __main__'s lines only, none of
lines_api's though it ran again; stats()["lines"] is the row count; a str
is a TypeError.
Exit 77 (skip) when PYTHON does not exist.
"""
import os
import shutil
import sqlite3
import subprocess
import sys


LINES_API = """
def tiny(n):
    s = 0
    for i in range(n):
        s += i
    return s
"""

LINES_PROG = """
import sys, tracestore
import lines_api
def main_work():
    x = lines_api.tiny(5)
    return x + 1
out = sys.argv[1]
tracestore.start(out + "/l1.trace", lines=["lines_api"])
main_work()
print(tracestore.stats()["lines"])
tracestore.stop()
tracestore.start(out + "/l2.trace")
main_work()
tracestore.stop()
tracestore.start(out + "/l3.trace", lines=["__main__"])
main_work()
print(tracestore.stats()["lines"])
tracestore.stop()
try:
    tracestore.start(out + "/l4.trace", lines="lines_api")
except TypeError as x:
    print("type:", x)
"""


def lines_check(ext, python, env, work, fails):
    with open(os.path.join(work, 'lines_api.py'), 'w') as f:
        f.write(LINES_API)
    prog = os.path.join(work, 'lines_prog.py')
    with open(prog, 'w') as f:
        f.write(LINES_PROG)
    run = subprocess.run([python, prog, work], env=env, capture_output=True,
                         text=True, timeout=60)
    out = run.stdout.split('\n')
    if run.returncode != 0 or len(out) < 3 \
            or not out[2].startswith('type: lines: a list'):
        fails.append('lines program: %r %r' % (run.stdout, run.stderr))
        return
    lib = os.path.join(work, 'lines_api.py')
    def lines(name):
        conn = sqlite3.connect(':memory:')
        conn.enable_load_extension(True)
        conn.load_extension(ext)
        conn.execute('SELECT tracestore_attach(?)',
                     (os.path.join(work, name),))
        rows = conn.execute('SELECT file, lineno, count(*) FROM line '
                            'GROUP BY 1, 2 ORDER BY 1, 2').fetchall()
        conn.close()
        return rows
    l1 = lines('l1.trace')
    if l1 != [(lib, 3, 1), (lib, 4, 6), (lib, 5, 5), (lib, 6, 1)] \
            or int(out[0]) != 13:
        fails.append('lines=["lines_api"]: %r, stats %s' % (l1, out[0]))
    if os.path.exists(os.path.join(work, 'l2.trace', 'line.store')):
        fails.append('a session without lines= has a line store')
    l3 = lines('l3.trace')
    if [(n, c) for p, n, c in l3] != [(5, 1), (6, 1)] \
            or {p for p, n, c in l3} != {prog} or int(out[1]) != 2:
        fails.append('lines=["__main__"]: %r, stats %s' % (l3, out[1]))


def main():
    ext, python, module_dir, work = sys.argv[1:5]
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    session = os.path.join(work, 'api.trace')
    program = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           'programs', 'api_prog.py')
    env = dict(os.environ, PYTHONPATH=module_dir)
    run = subprocess.run([python, program, session], env=env,
                         capture_output=True, text=True, timeout=60)
    fails = []
    if run.returncode != 0:
        print(run.stderr)
        return 1
    pid, returned, before, after = map(int, run.stdout.split())
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    rows = conn.execute('SELECT id, name, depth, parent_id, tid, pid, flags '
                        'FROM span ORDER BY id').fetchall()
    deep = [r for r in rows if r[1] == '__main__.deep']
    if [r[2] for r in deep] != [0, 1, 2] or deep[1][3] != deep[0][0] \
            or deep[2][3] != deep[1][0]:
        fails.append('deep rows under max_depth=3: %r' % deep)
    if any(r[2] >= 3 for r in rows):
        fails.append('rows deeper than max_depth: %r'
                     % [r for r in rows if r[2] >= 3])
    if any(r[1].startswith('json.') for r in rows):
        fails.append('json rows despite exclude')
    helper = [r for r in rows if r[1] == '__main__.before_helper']
    if len(helper) != 1 or helper[0][2] != 0 or helper[0][4] == pid:
        fails.append('the thread started before start(): %r' % helper)
    if any(r[1] == '__main__.child_work' or r[5] != pid for r in rows):
        fails.append('rows of the fork child')
    mark = conn.execute("SELECT ts, dur FROM span WHERE name = "
                        "'__main__.marker'").fetchall()
    if len(mark) != 1 or not before <= mark[0][0] <= mark[0][0] + \
            mark[0][1] <= after or mark[0][1] < 10 * 1000 * 1000:
        fails.append('marker() at %r, not within time.monotonic_ns() %d..%d'
                     % (mark, before, after))
    if any(r[6] != 0 for r in rows):
        fails.append('calls flagged running after stop()')
    if returned != len(rows):
        fails.append('stop() returned %d, span has %d rows'
                     % (returned, len(rows)))
    check = subprocess.run([python, '-c', '''
import sys, tracestore
tracestore.start(sys.argv[1] + "/a.trace")
try:
    tracestore.start(sys.argv[1] + "/b.trace")
except RuntimeError as x:
    print("again:", x)
tracestore.stop()
try:
    tracestore.start(sys.argv[1] + "/c.trace", include="json")
except TypeError as x:
    print("type:", x)
print(tracestore.stop())
''', work], env=env, capture_output=True, text=True, timeout=60)
    if 'again: tracestore.start: already tracing' not in check.stdout \
            or 'type: include: a list' not in check.stdout \
            or not check.stdout.endswith('None\n'):
        fails.append('errors: %r %r' % (check.stdout, check.stderr))
    lines_check(ext, python, env, work, fails)
    for f in fails:
        print('FAIL:', f)
    if not fails:
        print('ok: %d rows as the program says' % len(rows))
    return 1 if fails else 0


sys.exit(main())
