"""trace-python --lines against its oracle, sys.settrace.

    python_lines_test.py TRACESTORE EXT PYTHON WORKDIR

Runs Tests/Python/programs/lines_prog.py (its constructs are in
lines_lib.py: loops, comprehensions, generators with send/throw/yield
from, exceptions, with, match, threads, asyncio; lines_other.py is not
traced and calls back into lines_prog.py) four ways: alone, under
trace-python without --lines, with --lines lines_lib,__main__ and with
--lines lines_lib.  Checks:

  1. Output and exit status: the traced runs' equal the program's alone.
  2. Hits: per (file, line), the rows of `line` equal the line events the
     pure-Python sys.settrace counter settrace_lines_oracle.py sees for the
     same module prefixes, and so do line_time's hits.
  3. Prefixes: --lines lines_lib gives rows of lines_lib.py only; no run
     gives rows of lines_other.py or of any other module.
  4. Calls unchanged: per function of the programs' files, the span rows
     of the --lines runs equal those of the run without --lines.
  5. Rows: every line finished (flags 0), 0 <= self_dur <= dur, inside its
     span (span_id) and named as it; the lines of one span do not overlap.
  6. Time, by hand: timed() runs nap(0.05) (a traced function that sleeps)
     then time.sleep(0.05): the first line's dur is >= 50 ms and its
     self_dur < 10 ms (the time is nap's lines'); the second's self_dur
     is >= 50 ms (C code is the line's own).
  7. line_time: pct_time adds up to 100 per function; line_contents is the
     file's text of that line (read here); `tracestore sql` prints it.

Exit 77 (skip) when PYTHON does not exist.
"""
import collections
import json
import os
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, 'programs')


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          **kw)


def connect(ext, session):
    conn = sqlite3.connect(':memory:')
    conn.enable_load_extension(True)
    conn.load_extension(ext)
    conn.execute('SELECT tracestore_attach(?)', (session,))
    return conn


def own_calls(conn):
    """Span rows per function of the programs' files."""
    return collections.Counter(dict(conn.execute(
        "SELECT name, count(*) FROM span WHERE args LIKE ? GROUP BY name",
        (PROGRAMS + '/%',)).fetchall()))


def main():
    tracestore, ext, python, work = sys.argv[1:5]
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    program = os.path.join(PROGRAMS, 'lines_prog.py')
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, PYTHONHASHSEED='0')
    env.pop('PYTHONPATH', None)
    fails = []

    alone = run([python, program], env=env)
    if alone.returncode != 3:
        print('the program alone: exit %d\n%s' % (alone.returncode,
                                                   alone.stderr))
        return 1
    sessions = {}
    for key, lines in (('calls', None), ('both', 'lines_lib,__main__'),
                       ('lib', 'lines_lib')):
        session = sessions[key] = os.path.join(work, key + '.trace')
        ours = run([tracestore, 'trace-python', '--python', python,
                    '-o', session] + (['--lines', lines] if lines else [])
                   + ['--', program], env=env)
        for what in ('returncode', 'stdout', 'stderr'):
            if getattr(ours, what) != getattr(alone, what):
                fails.append('%s: %s differs: traced %r, alone %r'
                             % (key, what, getattr(ours, what),
                                getattr(alone, what)))

    # 2. Hits against sys.settrace.
    with open(os.path.join(HERE, 'settrace_lines_oracle.py')) as f:
        oracle_code = f.read()
    for key, prefixes in (('both', 'lines_lib,__main__'), ('lib', 'lines_lib')):
        oracle_json = os.path.join(work, key + '-oracle.json')
        orc = run([python, '-c', oracle_code, oracle_json, prefixes, program],
                  env=env)
        if orc.returncode != alone.returncode or orc.stdout != alone.stdout:
            fails.append('%s: the oracle run differs from the program alone: '
                         'exit %d\n%s' % (key, orc.returncode, orc.stderr))
            continue
        with open(oracle_json) as f:
            theirs = collections.Counter({(p, n): h for p, n, h in json.load(f)})
        conn = connect(ext, sessions[key])
        ours = collections.Counter(dict(
            ((p, n), h) for p, n, h in conn.execute(
                'SELECT file, lineno, count(*) FROM line GROUP BY 1, 2')))
        view = collections.Counter()
        for p, n, h in conn.execute('SELECT file, lineno, hits FROM line_time'):
            view[(p, n)] += h
        for what, got in (('line', ours), ('line_time', view)):
            wrong = sorted(k for k in set(got) | set(theirs)
                           if got[k] != theirs[k])
            for k in wrong[:20]:
                fails.append('%s: %s %s:%d: %d hits, sys.settrace %d'
                             % (key, what, os.path.basename(k[0]), k[1],
                                got[k], theirs[k]))
        print('%s: %d lines, %d line events, as sys.settrace'
              % (key, len(theirs), sum(theirs.values())))
        # 3. Prefixes.
        allowed = {os.path.join(PROGRAMS, 'lines_lib.py')}
        if key == 'both':
            allowed.add(program)
        files = {p for p, in conn.execute('SELECT DISTINCT file FROM line')}
        if files - allowed:
            fails.append('%s: rows of files outside the prefixes: %s'
                         % (key, sorted(files - allowed)))
        conn.close()

    # 4. Calls unchanged.
    base = own_calls(connect(ext, sessions['calls']))
    for key in ('both', 'lib'):
        got = own_calls(connect(ext, sessions[key]))
        if got != base:
            fails.append('%s: span rows differ from the run without --lines: '
                         '%s' % (key, sorted((got - base) + (base - got))))

    # 5. Rows.
    conn = connect(ext, sessions['both'])
    bad = conn.execute(
        'SELECT count(*) FROM line AS l JOIN span AS s ON s.id = l.span_id '
        'WHERE l.flags != 0 OR l.self_dur < 0 OR l.self_dur > l.dur '
        'OR l.name != s.name OR l.ts < s.ts '
        'OR l.ts + l.dur > s.ts + s.dur').fetchone()[0]
    orphans = conn.execute('SELECT count(*) FROM line WHERE span_id IS NULL '
                           'OR span_id NOT IN (SELECT id FROM span)'
                           ).fetchone()[0]
    overlaps = conn.execute(
        'SELECT count(*) FROM (SELECT ts, dur, lead(ts) OVER (PARTITION BY '
        'span_id ORDER BY ts, id) AS next FROM line) '
        'WHERE next < ts + dur').fetchone()[0]
    if bad or orphans or overlaps:
        fails.append('rows: %d wrong, %d without their span, %d overlapping'
                     % (bad, orphans, overlaps))

    # 6. Time.
    lib = os.path.join(PROGRAMS, 'lines_lib.py')
    with open(lib) as f:
        text = f.read().split('\n')
    nap_line = text.index('    nap(0.05)') + 1
    sleep_line = text.index('    time.sleep(0.05)') + 1
    (d1, s1), = conn.execute('SELECT dur, self_dur FROM line WHERE file = ? '
                             'AND lineno = ?', (lib, nap_line)).fetchall()
    (d2, s2), = conn.execute('SELECT dur, self_dur FROM line WHERE file = ? '
                             'AND lineno = ?', (lib, sleep_line)).fetchall()
    if not (d1 >= 50e6 and s1 < 10e6 and s2 >= 50e6 and d2 >= s2):
        fails.append('timed(): nap line dur %d self %d, sleep line dur %d '
                     'self %d' % (d1, s1, d2, s2))

    # 7. line_time.
    for fn, total in conn.execute('SELECT function, sum(pct_time) FROM '
                                  'line_time GROUP BY function'):
        if total is not None and abs(total - 100) > 0.1 * 20:
            fails.append('line_time: %s pct_time adds up to %.1f' % (fn, total))
    sources = {}
    for p, n, contents in conn.execute(
            'SELECT file, lineno, line_contents FROM line_time'):
        if p not in sources:
            with open(p) as f:
                sources[p] = f.read().split('\n')
        if contents != sources[p][n - 1]:
            fails.append('line_time: %s:%d shows %r, the file has %r'
                         % (os.path.basename(p), n, contents,
                            sources[p][n - 1]))
    conn.close()
    cli = run([tracestore, 'sql', sessions['both'],
               "SELECT lineno, hits, pct_time, line_contents FROM line_time "
               "WHERE function = 'lines_lib.timed'"])
    if cli.returncode != 0 or '    time.sleep(0.05)' not in cli.stdout:
        fails.append('tracestore sql line_time: exit %d, no source text:\n%s%s'
                     % (cli.returncode, cli.stdout, cli.stderr))

    for f in fails:
        print('FAIL:', f)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
