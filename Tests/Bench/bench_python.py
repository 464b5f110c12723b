"""Per-call overhead of the Python tracer, next to cProfile, a pure-Python
sys.setprofile recorder and the floor, measured in the same run.

    PYTHON bench_python.py WORKDIR [--long CALLS]

Run by the interpreter under test with the tracestore module on its path
(ctest -L bench -R python; docs/benchmarks-history.md, "Python tracer").  Two
call-heavy workloads: recursive fib(24) and a json.dumps/loads loop.  For
each, the best of 7 runs of: no profiler, cProfile (Profile.enable()),
the setprofile recorder (a list append per call and return), tracestore
(start() into a fresh session; the time from start() to stop(), which
create and close the session, outside the measure), and the floor when
the tracestore_floor module is on the path (Tests/Bench/PyHookFloor.c:
hooks that only read the TSC, installed the way the tracer installs its
own: the profile hook on 3.11, sys.monitoring callbacks on the same events
on 3.12+).  Overhead per call = (time - time without a profiler) / calls, time being CPU time (the machine is shared, wall
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

try:
    import tracestore_floor
except ImportError:
    tracestore_floor = None

# The events the tracer's sys.monitoring callbacks take
# (Live/Python/PyTraceHooks.c).
FLOOR_EVENTS = ('PY_START', 'PY_RESUME', 'PY_THROW', 'PY_RETURN', 'PY_YIELD',
                'PY_UNWIND')


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


def floor_start():
    """The floor hooks, as the tracer would install its own."""
    if not hasattr(sys, 'monitoring'):
        tracestore_floor.profile(True)
        return None
    mon = sys.monitoring
    tool = next(t for t in (5, 3, 1) if mon.get_tool(t) is None)
    mon.use_tool_id(tool, 'floor')
    mask = 0
    for name in FLOOR_EVENTS:
        event = getattr(mon.events, name)
        mon.register_callback(tool, event, tracestore_floor.on_event)
        mask |= event
    mon.set_events(tool, mask)
    return tool


def floor_stop(tool):
    if tool is None:
        tracestore_floor.profile(False)
        return
    mon = sys.monitoring
    mon.set_events(tool, 0)
    for name in FLOOR_EVENTS:
        mon.register_callback(tool, getattr(mon.events, name), None)
    mon.free_tool_id(tool)


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
    elif mode == 'floor':
        tool = floor_start()
        t0 = clock()
        fn(arg)
        t1 = clock()
        floor_stop(tool)
        return minus(t1, t0), None, None, None
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
        modes = ['none', 'cProfile', 'setprofile', 'tracestore']
        if tracestore_floor is not None:
            modes.append('floor')
        for _ in range(7):
            for mode in modes:
                ns, calls, size, stats = timed(fn, arg, mode, work)
                old = best.get(mode, (1 << 62, 1 << 62))
                best[mode] = (min(old[0], ns[0]), min(old[1], ns[1]))
                if mode == 'tracestore':
                    extra = (calls, size, stats)
        calls, size, stats = extra
        for which, k in (('thread', 0), ('process', 1)):
            over = {m: (best[m][k] - best['none'][k]) / calls
                    for m in modes[1:]}
            floor = (' floor_ns=%.1f' % over['floor']) if 'floor' in over else ''
            print('@bench python_%s python=%s cpu=%s mode=%s calls=%d '
                  'base_ns_per_call=%.1f cprofile_ns=%.1f setprofile_ns=%.1f '
                  'tracestore_ns=%.1f ratio_vs_cprofile=%.2f%s' % (
                      name, version, which, stats['mode'], calls,
                      best['none'][k] / calls, over['cProfile'],
                      over['setprofile'], over['tracestore'],
                      over['tracestore'] / over['cProfile'], floor))
        print('@bench python_%s_store python=%s bytes_per_call=%.1f commits=%d '
              'commit_us=%.1f' % (name, version, size / calls, stats['commits'],
                                  stats['commit_ns'] / 1000
                                  / max(stats['commits'], 1)))
    return 0


sys.exit(main())
