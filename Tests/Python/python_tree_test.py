"""A Python program traced by `tracestore trace-python` against oracles.

    python_tree_test.py TRACESTORE EXT PYTHON PROGRAM WORKDIR [c-calls]

  1. Output and exit status: the traced program's stdout, stderr and exit
     status equal those of PYTHON PROGRAM run alone.
  2. Call trees: per thread, the span rows in id order as (name, depth,
     index of the parent in that thread's list) equal what the pure-Python
     sys.setprofile recorder setprofile_oracle.py records of the same
     program (threads compared as a multiset: their ids differ between
     runs).  Every call has returned (flags 0).  threads.py: the trees of
     the program's own functions (threading's calls in Thread.start()
     depend on which thread runs first).
  3. Counts: per function of PROGRAM's own file (cProfile's key: file,
     first line, co_name, the last part of the qualified name), the rows
     of the threads cProfile sees (the main thread up to 3.11, all from
     3.12, where it uses sys.monitoring)
     equal cProfile's ncalls (PYTHON -m cProfile, read back with pstats).

With c-calls: `--c-calls` for the tracer and C calls in the oracle (its
c_call .. c_return / c_exception), the tree compared with the C functions'
names; callbacks.py's sorted() and min() counted by hand (4 and 1).

Exit 77 (skip) when PYTHON does not exist.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def spans(ext, session):
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    rows = conn.execute('SELECT id, name, depth, parent_id, tid, pid, flags, '
                        'args FROM span ORDER BY id').fetchall()
    conn.close()
    return rows


def project(calls, keep):
    """The tree of the calls that keep() holds: each under its nearest
    kept ancestor, depth counted in kept ancestors."""
    out, new_index = [], {}
    for i, (name, depth, parent, path) in enumerate(calls):
        while parent >= 0 and parent not in new_index:
            parent = calls[parent][2]
        if keep(path):
            new_index[i] = len(out)
            p = new_index[parent] if parent >= 0 else -1
            out.append((name, out[p][1] + 1 if p >= 0 else 0, p, path))
    return out


def main():
    tracestore, ext, python, program, work = sys.argv[1:6]
    c_calls = sys.argv[6:7] == ['c-calls']
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    program = os.path.abspath(program)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, PYTHONHASHSEED='0')
    env.pop('PYTHONPATH', None)
    fails = []

    alone = run([python, program], env=env)
    session = os.path.join(work, 'ours.trace')
    ours = run([tracestore, 'trace-python', '--python', python, '-o', session]
               + (['--c-calls'] if c_calls else []) + ['--', program], env=env)
    for what in ('returncode', 'stdout', 'stderr'):
        if getattr(ours, what) != getattr(alone, what):
            fails.append('%s differs: traced %r, alone %r'
                         % (what, getattr(ours, what), getattr(alone, what)))
    oracle_json = os.path.join(work, 'oracle.json')
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, 'setprofile_oracle.py')) as f:
        oracle_code = f.read()
    orc = run([python, '-c', oracle_code, oracle_json, program],
              env=dict(env, ORACLE_C_CALLS='1' if c_calls else '0'))
    if orc.returncode != alone.returncode or orc.stdout != alone.stdout:
        fails.append('oracle run differs from the program alone: %r %r'
                     % (orc.returncode, orc.stderr[-2000:]))

    rows = spans(ext, session)
    per_thread = {}
    index = {}
    for rid, name, depth, parent, tid, pid, flags, args in rows:
        calls = per_thread.setdefault(tid, [])
        index[rid] = len(calls)
        calls.append((name, depth, -1 if parent is None else index[parent],
                      args.rpartition(':')[0] if args else ''))
        if flags != 0:
            fails.append('row %d (%s) flags %d: a call that returned' %
                         (rid, name, flags))
    with open(oracle_json) as f:
        expected = [list(map(tuple, t)) for t in json.load(f) if t]
    got = list(per_thread.values())
    if program.endswith('threads.py'):
        # Thread.start() waits on an Event that the new thread may have
        # set already: threading's own calls differ between runs.  The
        # program's calls do not.
        expected = [project(t, lambda p: p == program) for t in expected]
        got = [project(t, lambda p: p == program) for t in got]
    expected = sorted(tuple(t) for t in expected if t)
    got = sorted(tuple(t) for t in got if t)
    if got != expected:
        fails.append('call trees differ: %d threads / %d calls traced, '
                     'oracle %d threads / %d calls'
                     % (len(got), sum(map(len, got)), len(expected),
                        sum(map(len, expected))))
        for g, e in zip(got, expected):
            for i, (a, b) in enumerate(zip(g, e)):
                if a != b:
                    fails.append('  first difference at call %d: traced %r, '
                                 'oracle %r' % (i, a, b))
                    break
            else:
                if len(g) != len(e):
                    fails.append('  lengths %d vs %d' % (len(g), len(e)))

    prof = os.path.join(work, 'cprofile.out')
    cp = run([python, '-m', 'cProfile', '-o', prof, program], env=env)
    if not os.path.exists(prof):
        fails.append('cProfile wrote nothing: %s' % cp.stderr[-2000:])
    dumped = run([python, '-c', 'import json, pstats, sys; print(json.dumps('
                  '[[k[0], k[1], k[2], v[1]] for k, v in '
                  'pstats.Stats(sys.argv[1]).stats.items()]))', prof])
    ncalls = {(f, line, fn): n for f, line, fn, n in json.loads(dumped.stdout)
              if f == program}
    # cProfile: sys.setprofile on the main thread up to 3.11,
    # sys.monitoring (every thread) from 3.12.
    version = run([python, '-c', 'import sys; print(sys.version_info[1])'])
    all_threads = int(version.stdout) >= 12
    main_tid = [tid for rid, n, d, p, tid, pid, fl, a in rows if tid == pid]
    counts = {}
    for rid, name, depth, parent, tid, pid, flags, args in rows:
        if args is None:
            continue
        f, _, line = args.rpartition(':')
        key = (f, int(line), name.rpartition('.')[2])
        if (tid == pid or all_threads) and f == program:
            counts[key] = counts.get(key, 0) + 1
    if not main_tid or counts != ncalls:
        fails.append('counts differ from cProfile ncalls: traced %r, '
                     'cProfile %r' % (sorted(counts.items()),
                                      sorted(ncalls.items())))
    if c_calls and program.endswith('callbacks.py'):
        by_hand = {'builtins.sorted': 4, 'builtins.min': 1}
        for name, want in by_hand.items():
            n = sum(1 for r in rows if r[1] == name and r[4] == r[5])
            if n != want:
                fails.append('%s: %d rows, the program calls it %d times'
                             % (name, n, want))
    for f in fails:
        print('FAIL:', f)
    if not fails:
        print('ok: %d calls in %d threads equal the setprofile oracle; %d '
              'functions\' counts equal cProfile\'s' %
              (len(rows), len(got), len(ncalls)))
    return 1 if fails else 0


sys.exit(main())
