"""Per-line cost of trace-python --lines, next to line_profiler, in one run.

    PYTHON bench_python_lines.py WORKDIR [--long LINES]

Run by the interpreter under test with the tracestore module on its path
(ctest -L bench -R python_lines; BENCHMARKS.md, "Python line tracing").

Lines: work(N) runs 4N+3 line events (a loop of three statements).  31
rounds, each running every mode once in turn; a mode's cost per line is
the median over the rounds of (its time - none's time in that round) /
(4N+3), time being the CPU time of the program's thread
(time.thread_time_ns()).  The machine is shared: the same loop alone runs
in 24 or in 44 ms for seconds at a time, so only runs close in time are
compared.  The modes:
  none        work() alone;
  calls       tracestore.start(session) without lines=: every call traced;
  lines       tracestore.start(session, lines=["__main__"]);
  kernprof    line_profiler.LineProfiler(work) enabled (where installed:
              Debian packages line_profiler 4.0.2 for its python3 only);
  floor       tracestore_floor.settrace(True): a C trace function that
              only reads the TSC, installed with PyEval_SetTrace as
              line_profiler 4.0 installs its own: what it pays at least
              per line (on 3.11; from 3.13 a C trace function gets no line
              events of frames without f_trace);
  monfloor    3.12+: sys.monitoring LINE events on work()'s code only
              (set_local_events) to a C callback that only reads the TSC:
              what any sys.monitoring line profiler pays at least.
Printed: ns per line of each; the same of the whole process for calls
and lines, from before start() to after stop() (what the committer thread
adds: commits, pre-faulting, the rollup's fold of every row, the last
fold and publication at stop()); and
lines / kernprof (the issue's bound: <= 1 on 3.11, <= 0.5 on 3.12+, where
Debian has no line_profiler to run) and lines / floor, lines / monfloor.

No match: a call-heavy program (fib(20) and a json round-trip loop) under
lines=["no_such_module"] against the same under calls: the median over 31
rounds of the ratio of the thread's CPU time, the cost of --lines for
code it does not trace (the issue's bound: within 5%).

--long LINES: work() until LINES line rows are written, printing the
resident set size added (VmRSS) every ~10 M lines: the line store is
unmapped behind its writer, so it stays bounded.  It fails (exit 1) if
the RSS added ever passes 64 MB (5 MB here at 10^8 lines; the store is
56 bytes a line: 5.6 GB).
"""
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
try:
    import line_profiler
except ImportError:
    line_profiler = None


def work(n):
    s = 0
    for i in range(n):
        s += i
        s ^= 7
        s -= 1
    return s


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def calls_program(n):
    total = fib(20)
    for i in range(n):
        doc = {"id": i, "tags": ["a", "b"], "v": {"x": i * 0.5}}
        total += len(json.loads(json.dumps(doc)))
    return total


def timed(fn, arg, mode, session):
    """The CPU time of the program's thread running fn(arg) under mode, and
    the rows of line; for 'none' and the tracer's modes, also the CPU time
    of the whole process from before start() to after stop() (the
    committer thread's commits and rollup folds, the last fold and
    publication at stop()) in PROCESS[mode]."""
    if mode in ('calls', 'lines', 'nomatch'):
        shutil.rmtree(session, ignore_errors=True)
        lines = {'calls': None, 'lines': ['__main__'],
                 'nomatch': ['no_such_module']}[mode]
        p0 = time.process_time_ns()
        tracestore.start(session, lines=lines)
        t0 = time.thread_time_ns()
        fn(arg)
        t1 = time.thread_time_ns()
        n = tracestore.stats()['lines']
        tracestore.stop()
        PROCESS[mode] = time.process_time_ns() - p0
        return t1 - t0, n
    if mode == 'kernprof':
        lp = line_profiler.LineProfiler(fn)
        lp.enable_by_count()
        t0 = time.thread_time_ns()
        fn(arg)
        t1 = time.thread_time_ns()
        lp.disable_by_count()
        return t1 - t0, None
    if mode == 'monfloor':
        mon = sys.monitoring
        tool = next(t for t in (5, 3, 1) if mon.get_tool(t) is None)
        mon.use_tool_id(tool, 'floor')
        mon.register_callback(tool, mon.events.LINE, tracestore_floor.on_event)
        mon.set_local_events(tool, fn.__code__, mon.events.LINE)
        t0 = time.thread_time_ns()
        fn(arg)
        t1 = time.thread_time_ns()
        mon.set_local_events(tool, fn.__code__, 0)
        mon.register_callback(tool, mon.events.LINE, None)
        mon.free_tool_id(tool)
        return t1 - t0, None
    if mode == 'floor':
        tracestore_floor.settrace(True)
        t0 = time.thread_time_ns()
        fn(arg)
        t1 = time.thread_time_ns()
        tracestore_floor.settrace(False)
        return t1 - t0, None
    p0 = time.process_time_ns()
    t0 = time.thread_time_ns()
    fn(arg)
    t1 = time.thread_time_ns()
    PROCESS[mode] = time.process_time_ns() - p0
    return t1 - t0, None


PROCESS = {}


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def rss_kb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


def long_run(work_dir, want):
    session = os.path.join(work_dir, 'long.trace')
    shutil.rmtree(session, ignore_errors=True)
    base = rss_kb()
    tracestore.start(session, lines=['__main__'])
    t0 = time.perf_counter()
    done = 0
    step = 10 * 1000 * 1000
    next_report = step
    while done < want:
        work(250000)                 # 1,000,003 lines
        done = tracestore.stats()['lines']
        if done >= next_report:
            added = rss_kb() - base
            print('@bench python_lines_long lines=%d rss_added_kb=%d '
                  'seconds=%.1f' % (done, added, time.perf_counter() - t0))
            sys.stdout.flush()
            next_report += step
            if added > 64 * 1024:
                tracestore.stop()
                print('FAIL: %d KB more resident after %d lines' % (added, done))
                return 1
    tracestore.stop()
    print('@bench python_lines_long_end lines=%d rss_added_kb=%d '
          'store_bytes=%d' % (done, rss_kb() - base, os.path.getsize(
              os.path.join(session, 'line.store'))))
    shutil.rmtree(session, ignore_errors=True)
    return 0


def main():
    work_dir = sys.argv[1]
    os.makedirs(work_dir, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == '--long':
        return long_run(work_dir, int(sys.argv[3]))
    version = '%d.%d' % sys.version_info[:2]
    session = os.path.join(work_dir, 'bench.trace')
    n = 50000
    events = 4 * n + 3
    modes = ['none', 'calls', 'lines']
    if line_profiler is not None:
        modes.append('kernprof')
    if tracestore_floor is not None:
        modes.append('floor')
        if hasattr(sys, 'monitoring'):
            modes.append('monfloor')
    per = {m: [] for m in modes[1:]}
    process = {'calls': [], 'lines': []}
    for _ in range(31):
        took = {}
        for mode in modes:
            took[mode], got = timed(work, n, mode, session)
            if mode == 'lines' and got != events:
                print('FAIL: %d line rows, work() runs %d line events'
                      % (got, events))
                return 1
        for m in modes[1:]:
            per[m].append((took[m] - took['none']) / events)
        for m in process:
            process[m].append((PROCESS[m] - PROCESS['none']) / events)
    per = {m: median(v) for m, v in per.items()}
    process = {m: median(v) for m, v in process.items()}
    print('@bench python_lines version=%s lines=%d %s' % (
        version, events, ' '.join('%s_ns_per_line=%.1f' % (m, per[m])
                                  for m in modes[1:])))
    print('@bench python_lines_process version=%s %s' % (
        version, ' '.join('%s_ns_per_line=%.1f' % (m, process[m])
                          for m in process)))
    for ref in ('kernprof', 'floor', 'monfloor'):
        if ref in per:
            print('@bench python_lines_ratio version=%s lines_over_%s=%.3f'
                  % (version, ref, per['lines'] / per[ref]))
    ratios, took = [], {'calls': [], 'nomatch': []}
    for _ in range(31):
        for mode in ('calls', 'nomatch'):
            ns, got = timed(calls_program, 1000, mode, session)
            took[mode].append(ns)
            if got:
                print('FAIL: %d line rows with a prefix that matches nothing'
                      % got)
                return 1
        ratios.append(took['nomatch'][-1] / took['calls'][-1])
    print('@bench python_lines_nomatch version=%s calls_ms=%.1f '
          'nomatch_ms=%.1f ratio=%.3f' % (
              version, median(took['calls']) / 1e6,
              median(took['nomatch']) / 1e6, median(ratios)))
    shutil.rmtree(session, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
