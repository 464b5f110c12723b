"""Per-call overhead of the Python tracer, next to cProfile and a
pure-Python sys.setprofile recorder, measured in the same run.

    PYTHON bench_python.py WORKDIR [--long CALLS]

Run by the interpreter under test with the tracestore module on its path
(ctest -L bench -R python; BENCHMARKS.md, "Python tracer").  Two
call-heavy workloads: recursive fib(24) and a json.dumps/loads loop.  For
each, the best of 7 runs of: no profiler, cProfile (Profile.enable()),
the setprofile recorder (a list append per call and return), tracestore
(start() into a fresh session; the time from start() to stop(), which
create and close the session, outside the measure).  Overhead per call = (time - time without
a profiler) / calls, time being CPU time (the machine is shared, wall
time is noise): of the program's thread (what it is slowed down by when a
core is free for the rest), and of the process (all threads: the
tracer's committer thread pre-faults the store's pages), calls being tracestore's row count (equal to the
profile hook's call events).  Also: store bytes per call (the session's
files), commits and their cost.

--long CALLS: fib calls until CALLS rows are recorded, printing the
resident set size added (VmRSS, /proc/self/status) every ~10 M calls:
the bound for long runs (the span store is unmapped behind its writer).
"""
import cProfile
import json
import os
import shutil
import sys
import time

import tracestore


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def json_loop(n):
    total = 0
    for i in range(n):
        doc = {"id": i, "tags": ["a", "b"], "v": {"x": i * 0.5}}
        total += len(json.loads(json.dumps(doc)))
    return total


def setprofile_recorder():
    calls = []

    def record(frame, event, arg):
        if event == 'call':
            calls.append((frame.f_code, time.perf_counter_ns()))
        elif event == 'return':
            calls.append((None, time.perf_counter_ns()))
    return record


def clock():
    return time.thread_time_ns(), time.process_time_ns()


def minus(a, b):
    return a[0] - b[0], a[1] - b[1]


def timed(fn, arg, mode, work):
    session = os.path.join(work, 'bench.trace')
    if mode == 'tracestore':
        shutil.rmtree(session, ignore_errors=True)
    t0 = clock()
    if mode == 'cProfile':
        p = cProfile.Profile()
        p.enable()
        fn(arg)
        p.disable()
    elif mode == 'setprofile':
        sys.setprofile(setprofile_recorder())
        fn(arg)
        sys.setprofile(None)
    elif mode == 'tracestore':
        tracestore.start(session)
        t0 = clock()
        fn(arg)
        t1 = clock()
        stats = tracestore.stats()
        calls = tracestore.stop()
        size = sum(os.path.getsize(os.path.join(session, f))
                   for f in os.listdir(session))
        return minus(t1, t0), calls, size, stats
    else:
        fn(arg)
    return minus(clock(), t0), None, None, None


def rss_kb(field='VmRSS:'):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def long_run(work, want):
    session = os.path.join(work, 'long.trace')
    shutil.rmtree(session, ignore_errors=True)
    base = rss_kb()
    tracestore.start(session)
    t0 = time.perf_counter()
    done = 0
    step = 10 * 1000 * 1000
    next_report = step
    while done < want:
        fib(27)                      # 317,811 calls
        done = tracestore.stats()['calls']
        if done >= next_report:
            print('@bench python_long calls=%d rss_added_kb=%d anon_kb=%d '
                  'file_kb=%d seconds=%.1f'
                  % (done, rss_kb() - base, rss_kb('RssAnon:'),
                     rss_kb('RssFile:') + rss_kb('RssShmem:'),
                     time.perf_counter() - t0))
            sys.stdout.flush()
            next_report += step
    tracestore.stop()
    print('@bench python_long_end calls=%d rss_added_kb=%d store_bytes=%d'
          % (done, rss_kb() - base, os.path.getsize(
              os.path.join(session, 'span.store'))))
    shutil.rmtree(session, ignore_errors=True)


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == '--long':
        long_run(work, int(sys.argv[3]))
        return 0
    version = '%d.%d' % sys.version_info[:2]
    for name, fn, arg in (('fib', fib, 24), ('json', json_loop, 20000)):
        best = {}
        extra = None
        for _ in range(7):
            for mode in ('none', 'cProfile', 'setprofile', 'tracestore'):
                ns, calls, size, stats = timed(fn, arg, mode, work)
                old = best.get(mode, (1 << 62, 1 << 62))
                best[mode] = (min(old[0], ns[0]), min(old[1], ns[1]))
                if mode == 'tracestore':
                    extra = (calls, size, stats)
        calls, size, stats = extra
        for which, k in (('thread', 0), ('process', 1)):
            over = {m: (best[m][k] - best['none'][k]) / calls
                    for m in ('cProfile', 'setprofile', 'tracestore')}
            print('@bench python_%s python=%s cpu=%s mode=%s calls=%d '
                  'base_ns_per_call=%.1f cprofile_ns=%.1f setprofile_ns=%.1f '
                  'tracestore_ns=%.1f ratio_vs_cprofile=%.2f' % (
                      name, version, which, stats['mode'], calls,
                      best['none'][k] / calls, over['cProfile'],
                      over['setprofile'], over['tracestore'],
                      over['tracestore'] / over['cProfile']))
        print('@bench python_%s_store python=%s bytes_per_call=%.1f commits=%d '
              'commit_us=%.1f' % (name, version, size / calls, stats['commits'],
                                  stats['commit_ns'] / 1000
                                  / max(stats['commits'], 1)))
    return 0


sys.exit(main())
