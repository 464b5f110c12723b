"""`tracestore trace-python`: how it runs programs, and its errors.

    python_cli_test.py TRACESTORE PYTHON WORKDIR

  - `-m json.tool` with stdin: the same output and status as PYTHON -m
    json.tool; json.tool's main is recorded as __main__.main (run as
    __main__, as python -m does), at depth 1 under <module>.
  - a script's sys.argv, __name__, __file__ and sys.path[0] are what
    PYTHON SCRIPT gives it (the script prints them).
  - errors, exit status 1 and a message naming the culprit, nothing else
    written: a directory that is not a session, a missing script; status 2
    for a bad --max-depth and for --lines without a module name; 127 and the name for a missing interpreter;
    Python 3.10 (pyenv's, when present) told it needs 3.11; a binary where
    the script goes named as not a script.
  - `-- PYTHON SCRIPT` and `-- PYTHON -m MODULE` (the interpreter first, as
    perf record -- users type it): the same as --python PYTHON; an
    interpreter option after it refused (status 2).
  - names: the thread store names each thread as threading does (the
    program prints its threads' native_id and name), the process store the
    process "python3.X SCRIPT" (the program prints sys.executable), and
    `tracestore export` uses them (no "pid N"/"tid N").
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys


def main():
    tracestore, python, work = sys.argv[1:4]
    tracestore = os.path.abspath(tracestore)
    work = os.path.abspath(work)
    if not os.path.exists(python):
        print('skip: no', python)
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    fails = []

    def run(args, **kw):
        return subprocess.run([tracestore, 'trace-python', '--python', python]
                              + args, capture_output=True, text=True,
                              timeout=60, cwd=work, **kw)

    doc = '{"b": [1, 2], "a": null}'
    want = subprocess.run([python, '-m', 'json.tool', '--sort-keys'],
                          input=doc, capture_output=True, text=True)
    got = run(['-o', 'm.trace', '--', '-m', 'json.tool', '--sort-keys'],
              input=doc)
    if (got.returncode, got.stdout, got.stderr) != (want.returncode,
                                                    want.stdout, want.stderr):
        fails.append('-m json.tool: %r, alone %r' % (got, want))
    out = subprocess.run([tracestore, 'sql', '--csv', os.path.join(work, 'm.trace'),
                          "SELECT depth, args LIKE '%/json/tool.py:%' AS t FROM span "
                          "WHERE name = '__main__.main'"],
                         capture_output=True, text=True)
    if out.stdout.split()[1:] != ['1,1']:
        fails.append('json.tool main not __main__.main at depth 1: %r'
                     % out.stdout)

    script = os.path.join(work, 'show.py')
    with open(script, 'w') as f:
        f.write('import sys\nprint(sys.argv, __name__, __file__, sys.path[0])\n')
    want = subprocess.run([python, script, 'a b', '-c'], capture_output=True,
                          text=True, cwd=work)
    got = run(['-o', 's.trace', '--', script, 'a b', '-c'])
    if got.stdout != want.stdout or got.returncode != 0:
        fails.append('script view: %r, alone %r' % (got.stdout, want.stdout))

    os.makedirs(os.path.join(work, 'notsession'))
    with open(os.path.join(work, 'notsession', 'keep'), 'w') as f:
        f.write('x')
    got = run(['-o', 'notsession', '--', script])
    if got.returncode != 1 or 'notsession' not in got.stderr or got.stdout \
            or os.listdir(os.path.join(work, 'notsession')) != ['keep']:
        fails.append('not a session: %r' % got)
    got = run(['-o', 'x.trace', '--', 'missing.py'])
    if got.returncode != 1 or 'missing.py' not in got.stderr:
        fails.append('missing script: %r' % got)
    got = run(['-o', 'x.trace', '--max-depth', '0', '--', script])
    if got.returncode != 2 or '--max-depth' not in got.stderr:
        fails.append('bad --max-depth: %r' % got)
    got = run(['-o', 'x.trace', '--lines', ',', '--', script])
    if got.returncode != 2 or '--lines' not in got.stderr:
        fails.append('--lines without a module: %r' % got)
    got = subprocess.run([tracestore, 'trace-python', '--python',
                          '/nonexistent/python', '--', script],
                         capture_output=True, text=True, cwd=work)
    if got.returncode != 127 or '/nonexistent/python' not in got.stderr:
        fails.append('missing interpreter: %r' % got)
    old = os.path.expanduser('~/.pyenv/versions')
    olds = [os.path.join(old, v, 'bin', 'python3.10') for v in
            (os.listdir(old) if os.path.isdir(old) else []) if v.startswith('3.10')]
    if olds:
        got = subprocess.run([tracestore, 'trace-python', '--python', olds[0],
                              '-o', 'old.trace', '--', script],
                             capture_output=True, text=True, cwd=work)
        if got.returncode != 1 or 'needs Python 3.11 or newer' not in got.stderr:
            fails.append('3.10: %r' % got)
        got = subprocess.run([tracestore, 'trace-python', '-o', 'old2.trace', '--',
                              olds[0], script], capture_output=True, text=True, cwd=work)
        if got.returncode != 1 or 'needs Python 3.11 or newer' not in got.stderr:
            fails.append('-- python3.10 SCRIPT: %r' % got)

    # The interpreter first after --, as `perf record --` users type it:
    # the same view and the same rows as --python; -m too.
    got = subprocess.run([tracestore, 'trace-python', '-o', 'first.trace', '--',
                          python, script, 'a b', '-c'],
                         capture_output=True, text=True, cwd=work, timeout=60)
    if got.stdout != want.stdout or got.returncode != 0:
        fails.append('-- PYTHON SCRIPT: %r, alone %r' % (got, want.stdout))
    got = subprocess.run([tracestore, 'trace-python', '-o', 'first-m.trace', '--',
                          python, '-m', 'json.tool', '--sort-keys'], input=doc,
                         capture_output=True, text=True, cwd=work, timeout=60)
    rows = subprocess.run([tracestore, 'sql', '--csv', os.path.join(work, 'first-m.trace'),
                           "SELECT count(*) FROM span WHERE name = '__main__.main'"],
                          capture_output=True, text=True).stdout.split()
    if got.returncode != 0 or rows[1:] != ['1']:
        fails.append('-- PYTHON -m json.tool: %r, rows %r' % (got, rows))
    got = subprocess.run([tracestore, 'trace-python', '-o', 'opt.trace', '--',
                          python, '-u', script], capture_output=True, text=True, cwd=work)
    if got.returncode != 2 or '-u' not in got.stderr:
        fails.append('-- PYTHON -u: %r' % got)
    # A binary where the script goes (the interpreter given as --python
    # and again after --, or any program): named, not a SyntaxError.
    got = run(['-o', 'bin.trace', '--', '/bin/ls'])
    if got.returncode != 1 or 'not a Python script' not in got.stderr \
            or 'SyntaxError' in got.stderr:
        fails.append('a binary as the script: %r' % got)
    # Names: the program's own view of its threads is the oracle.
    names = os.path.join(work, 'names.py')
    with open(names, 'w') as f:
        f.write('import os, sys, threading\n'
                'seen = {}\n'
                'def work():\n'
                '    t = threading.current_thread()\n'
                '    seen[t.native_id] = t.name\n'
                'ts = [threading.Thread(target=work, name="worker-%d" % i)\n'
                '      for i in range(3)] + [threading.Thread(target=work)]\n'
                'for t in ts: t.start()\n'
                'for t in ts: t.join()\n'
                'work()\n'
                'print(os.path.basename(sys.executable), os.getpid())\n'
                'for k in sorted(seen): print(k, seen[k])\n')
    got = run(['-o', 'names.trace', '--', names])
    lines = got.stdout.split('\n')
    exe, pid = lines[0].split()
    want_threads = sorted(tuple(l.split(' ', 1)) for l in lines[1:] if l)
    db = os.path.join(work, 'names.trace')
    rows = subprocess.run([tracestore, 'sql', '--json', db,
                           'SELECT tid, comm FROM thread ORDER BY tid'],
                          capture_output=True, text=True).stdout
    got_threads = sorted((str(r['tid']), r['comm']) for r in json.loads(rows))
    if got.returncode != 0 or got_threads != want_threads:
        fails.append('thread names: %r, the program says %r (%r)'
                     % (got_threads, want_threads, got.stderr))
    rows = subprocess.run([tracestore, 'sql', '--json', db,
                           'SELECT pid, name FROM process'],
                          capture_output=True, text=True).stdout
    if json.loads(rows) != [{'pid': int(pid), 'name': exe + ' names.py'}]:
        fails.append('process name: %r, want %s names.py' % (rows, exe))
    out = subprocess.run([tracestore, 'export', '-o', '-', db],
                         capture_output=True, text=True).stdout
    meta = {(e['name'], e['tid']): e['args']['name']
            for e in json.loads(out)['traceEvents'] if e['ph'] == 'M'}
    want = {('thread_name', int(k)): v for k, v in want_threads}
    want[('process_name', int(pid))] = exe + ' names.py'
    if meta != want:
        fails.append('export names: %r, want %r' % (meta, want))

    for f in fails:
        print('FAIL:', f)
    if not fails:
        print('ok: -m, the script\'s view, errors, names')
    return 1 if fails else 0


sys.exit(main())
