"""Two builds of the tracestore Python module, side by side in one process.

    PYTHON Tests/Bench/python_ab.py OLD.so NEW.so [N] [ROUNDS]

Loads both module files (each keeps its own C state), then runs fib(N)
(default 24) ROUNDS times (default 15) untraced, under OLD and under NEW,
interleaved, each traced run in a fresh session, and prints the per-call
overhead of each build: best and median, of the program's thread, of the
process (with the committer thread) and in wall time.  Interleaving in one
process is what makes a few-ns difference visible on a shared machine,
where two separate runs differ by more (docs/benchmarks-history.md, "Python tracer").
Copy a build's module somewhere before rebuilding to keep it as OLD.
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import time


def load(path):
    spec = importlib.util.spec_from_file_location('tracestore', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def calls_of(n):
    return 1 if n < 2 else 1 + calls_of(n - 1) + calls_of(n - 2)


def run(module, n, session):
    if module:
        shutil.rmtree(session, ignore_errors=True)
        module.start(session)
    t0 = (time.thread_time_ns(), time.process_time_ns(), time.perf_counter_ns())
    fib(n)
    t1 = (time.thread_time_ns(), time.process_time_ns(), time.perf_counter_ns())
    if module:
        module.stop()
    return [b - a for a, b in zip(t0, t1)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    builds = {'OLD': load(sys.argv[1]), 'NEW': load(sys.argv[2])}
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 24
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    calls = calls_of(n)
    work = tempfile.mkdtemp(prefix='python_ab.')
    session = os.path.join(work, 'ab.trace')
    times = {k: [] for k in ('none', 'OLD', 'NEW')}
    for _ in range(rounds):
        for k in times:
            times[k].append(run(builds.get(k), n, session))
    shutil.rmtree(work, ignore_errors=True)
    print('fib(%d), %d calls, %d rounds; ns per call above untraced' % (
        n, calls, rounds))
    for j, which in enumerate(('thread', 'process', 'wall')):
        base = min(t[j] for t in times['none'])
        cells = []
        for k in ('OLD', 'NEW'):
            v = sorted(t[j] for t in times[k])
            cells.append('%s best %.1f median %.1f' % (
                k, (v[0] - base) / calls, (v[len(v) // 2] - base) / calls))
        print('%-8s %s' % (which, ' | '.join(cells)))


main()
