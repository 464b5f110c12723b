"""trace-python --lines against line_profiler.

    python_kernprof_test.py TRACESTORE EXT PYTHON WORKDIR

Runs Tests/Python/programs/kernprof_prog.py under `kernprof -l` (Debian's
python3-line-profiler: its @profile functions are loops, a generator,
exceptions, with, match and a coroutine) and under `tracestore
trace-python --lines __main__`; output and exit status of both runs equal
the program's alone.  For every function line_profiler profiled, the Hits
of each of its lines (line_profiler.load_stats) equal what the rows of
`line` of that function (name __main__.FUNCTION) give by line_profiler's
own rule.

That rule is not "line events" in line_profiler 4.0 (Debian 12's 4.0.2):
its trace callback counts a line when the next line event (or the return)
of the frame comes, in a table per next line, and get_stats keeps, of a
line's entries, the one with the most hits (its source says so: "v4.x may
produce more than one entry per line ... only keep the last entry").  So
its Hits of a line is the number of times it was followed by its most
frequent successor: `if x:` run 50 times, followed 17 times by its body
and 33 times by else:, shows 33.  Here each line row's successor is the
next row of its frame (span_id), or its own line at the frame's return;
Hits(line) = max over successors.  The line events themselves are checked
against sys.settrace by python.lines.*; this test checks that they are the
events line_profiler sees, one for one.

Exit 77 (skip) when PYTHON does not exist or has no line_profiler (Debian
packages it for its python3 only).
"""
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          **kw)


def main():
    tracestore, ext, python, work = sys.argv[1:5]
    if not os.path.exists(python) or run(
            [python, '-c', 'import line_profiler, kernprof']).returncode:
        print('skip: no line_profiler for', python)
        return 77
    program = os.path.join(HERE, 'programs', 'kernprof_prog.py')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ)
    env.pop('PYTHONPATH', None)
    fails = []
    alone = run([python, program], env=env)
    lprof = os.path.join(work, 'prog.lprof')
    kp = run([python, '-m', 'kernprof', '-l', '-o', lprof, program], env=env)
    if kp.returncode != alone.returncode or \
            not kp.stdout.startswith(alone.stdout):
        print('kernprof run: exit %d\n%s%s' % (kp.returncode, kp.stdout,
                                                kp.stderr))
        return 1
    dumped = run([python, '-c', 'import json, sys, line_profiler\n'
                  's = line_profiler.load_stats(sys.argv[1])\n'
                  'print(json.dumps([[k[2], [[l, h] for l, h, t in v]] '
                  'for k, v in s.timings.items()]))', lprof])
    theirs = {fn: collections.Counter(dict((l, h) for l, h in lines))
              for fn, lines in json.loads(dumped.stdout)}
    session = os.path.join(work, 'ours.trace')
    ours = run([tracestore, 'trace-python', '--python', python, '-o',
                session, '--lines', '__main__', '--', program], env=env)
    for what in ('returncode', 'stdout', 'stderr'):
        if getattr(ours, what) != getattr(alone, what):
            fails.append('traced: %s differs: %r, alone %r'
                         % (what, getattr(ours, what), getattr(alone, what)))
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    if len(theirs) != 6:
        fails.append('line_profiler profiled %d functions, not 6: %s'
                     % (len(theirs), sorted(theirs)))
    events = 0
    for fn, want in sorted(theirs.items()):
        frames = collections.defaultdict(list)
        for span_id, line in conn.execute(
                'SELECT span_id, lineno FROM line WHERE name = ? ORDER BY id',
                ('__main__.' + fn,)):
            frames[span_id].append(line)
        followed = collections.defaultdict(collections.Counter)
        for lines in frames.values():
            for a, b in zip(lines, lines[1:] + lines[-1:]):
                followed[a][b] += 1
        got = collections.Counter({a: max(c.values())
                                   for a, c in followed.items()})
        events += sum(len(lines) for lines in frames.values())
        for line in sorted(set(got) | set(want)):
            if got[line] != want[line]:
                fails.append('%s line %d: %d hits, line_profiler %d'
                             % (fn, line, got[line], want[line]))
    print('%d functions, %d line events, Hits as line_profiler\'s'
          % (len(theirs), events))
    for f in fails:
        print('FAIL:', f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
