#!/usr/bin/env python3
"""Checks a trace.dat import against `trace-cmd report` on the same file.

usage: tracedat_oracle.py TRACESTORE TRACE.DAT WORKDIR CHECK...

Imports TRACE.DAT into WORKDIR/session with TRACESTORE, then compares what
the stores hold with what trace-cmd report (run here, the oracle) prints:

  counts      events per name (a paired kvm_exit row counts as its exit
              and its entry)
  events      every event's ns timestamp (`report -t`), CPU, pid and comm
  fields      every event's fields: page faults (address, ip or its
              symbol, error code), sched_switch (all eight columns with the
              state letters trace-cmd prints), kvm_exit (reason, rip, vcpu,
              exit_code from `report -R`'s raw fields, and the text),
              process exec rows, and the text of every other event
  clock       the source row's clock is the file's trace clock
  expect=A,B  the report holds at least one event of each name given

The reports are run with -O parent=1 (the function plugin then prints a
function's parent, which the reader keeps); a line of the report that is
not an event continues the text of the event before it.

Shares no code with the reader: the report is parsed with regular
expressions, the stores are read through `tracestore sql --csv`.
"""
import csv
import json
import io
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

LINE = re.compile(r'^\s*(.*?)-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+([^:\s]+):\s?(.*)$')
DROPPED = re.compile(r'^CPU:\d+ \[(\d+ )?EVENTS DROPPED\]$')

# The function plugin hides a function's parent unless asked: the reader
# keeps it, so the oracle asks.
PLUGIN_OPTIONS = ['-O', 'parent=1']


def report(path, *options):
    """Every event of `trace-cmd report`; a line that is not an event's
    continues the text of the one before (kernel_stack's lines, a
    trace_marker text with newlines)."""
    out = subprocess.run(['trace-cmd', 'report', *PLUGIN_OPTIONS, *options, '-i', path],
                         check=True, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL).stdout
    events = []
    for raw in out.decode('utf-8', 'replace').split('\n'):
        m = LINE.match(raw)
        if not m:
            if events and not DROPPED.match(raw):
                events[-1]['args'] += '\n' + raw
            continue
        comm, pid, cpu, sec, frac, name, args = m.groups()
        frac = (frac + '000000000')[:9]
        events.append({'comm': comm, 'pid': int(pid), 'cpu': int(cpu),
                       'ts': int(sec) * 1000000000 + int(frac), 'name': name,
                       'args': args})
    if events and events[-1]['args'].endswith('\n'):
        events[-1]['args'] = events[-1]['args'][:-1]     # the output's last newline
    for e in events:
        e['args'] = e['args'].strip(' \t')
    return events


def report_ns(path):
    """report -t (times in ns).  func_repeats prints a time in its text,
    which the reader writes as the default report does (in us): those
    texts come from a plain report of the same file."""
    rep = report(path, '-t')
    if any(e['name'] == 'func_repeats' for e in rep):
        plain = report(path)
        assert len(plain) == len(rep), 'report and report -t list different events'
        for e, p in zip(rep, plain):
            if e['name'] == 'func_repeats':
                e['args'] = p['args']
    return rep


def sql(ts, session, query):
    out = subprocess.run([ts, 'sql', '--csv', session, query], check=True,
                         stdout=subprocess.PIPE).stdout.decode()
    rows = list(csv.reader(io.StringIO(out)))
    return rows[1:]


def compare(what, expected, actual, failures):
    if expected == actual:
        print(f'ok: {what}: {len(expected)} equal')
        return
    e, a = Counter(expected), Counter(actual)
    missing = list((e - a).elements())[:5]
    extra = list((a - e).elements())[:5]
    failures.append(what)
    print(f'FAIL: {what}: {len(expected)} expected, {len(actual)} stored')
    for row in missing:
        print('  expected, not stored:', row)
    for row in extra:
        print('  stored, not expected:', row)


def kallsyms(path):
    out = subprocess.run(['trace-cmd', 'dump', '--kallsyms', '-i', path],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    syms = []
    for line in out.split('\n'):
        f = line.split()
        if len(f) >= 3 and re.fullmatch(r'[0-9a-f]{8,16}', f[0]) and f[1] not in 'Aa' \
                and not f[2].startswith('$'):
            syms.append((int(f[0], 16), f[2]))
    syms.sort(key=lambda x: x[0])
    return syms


def symbol(syms, address):
    """%ps: the function containing address, else the address in hex."""
    import bisect
    address &= 0xffffffffffffffff
    i = bisect.bisect_right(syms, (address, '\uffff')) - 1
    if i >= 0 and (syms[i][0] == address or
                   (i + 1 < len(syms) and address < syms[i + 1][0])):
        return syms[i][1]
    return '0x%x' % address


def state_ok(text):
    return re.fullmatch(r'[SDTtZXxWR|]+', text) is not None


def main():
    ts, path, work = sys.argv[1:4]
    checks = sys.argv[4:]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    session = os.path.join(work, 'session')
    subprocess.run([ts, 'import', '-o', session, path], check=True)

    rep = report_ns(path)
    if not rep:
        print('FAIL: trace-cmd report printed no events')
        return 1
    failures = []

    for check in checks:
        if check == 'counts':
            expected = sorted(Counter(e['name'] for e in rep).items())
            got = Counter()
            for name, n in sql(ts, session,
                               "SELECT name, count(*) FROM ftrace_event GROUP BY name "
                               "UNION ALL SELECT name, count(*) FROM page_fault GROUP BY name "
                               "UNION ALL SELECT 'sched_switch', count(*) FROM sched_switch "
                               "UNION ALL SELECT 'kvm_exit', count(*) FROM kvm_exit "
                               "UNION ALL SELECT 'kvm_entry', count(dur) FROM kvm_exit"):
                got[name] += int(n)
            actual = sorted((k, v) for k, v in got.items() if v)
            compare('per-event-name counts', expected, actual, failures)

        elif check == 'events':
            # A kvm_entry that completes a kvm_exit row keeps only its
            # time, pid and comm (the row has the exit's CPU).
            paired = {(int(r[0]), int(r[1])) for r in sql(
                ts, session, "SELECT ts + dur, tid FROM kvm_exit WHERE dur IS NOT NULL")}
            expected = []
            for e in rep:
                if e['name'] == 'sched_switch':
                    expected.append((e['ts'], e['cpu'], e['pid'], '', e['name']))
                elif e['name'] == 'kvm_entry' and (e['ts'], e['pid']) in paired:
                    expected.append((e['ts'], None, e['pid'], e['comm'], e['name']))
                else:
                    expected.append((e['ts'], e['cpu'], e['pid'], e['comm'], e['name']))
            actual = []
            for r in sql(ts, session,
                         "SELECT ts, cpu, tid, comm, name, pid IS NULL FROM ftrace_event "
                         "UNION ALL SELECT ts, cpu, tid, comm, name, pid IS NULL FROM page_fault "
                         "UNION ALL SELECT ts, cpu, tid, comm, 'kvm_exit', pid IS NULL FROM kvm_exit"):
                if r[5] != '1':
                    print('FAIL: pid is not NULL (trace.dat saves no tgids):', r)
                    failures.append('pid')
                    break
                actual.append((int(r[0]), int(r[1]), int(r[2]), r[3], r[4]))
            for r in sql(ts, session, "SELECT ts + dur, tid, comm FROM kvm_exit "
                                      "WHERE dur IS NOT NULL"):
                actual.append((int(r[0]), None, int(r[1]), r[2], 'kvm_entry'))
            for r in sql(ts, session, "SELECT ts, cpu, prev_pid FROM sched_switch"):
                actual.append((int(r[0]), int(r[1]), int(r[2]), '', 'sched_switch'))
            key = lambda t: tuple('' if x is None else str(x) for x in t)
            compare('timestamps (ns), CPUs, pids and comms of every event',
                    sorted(expected, key=key), sorted(actual, key=key), failures)

        elif check == 'fields':
            # Page faults: "address=%ps ip=%ps error_code=0x%lx".  An
            # address trace-cmd prints as a symbol is checked against the
            # file's kallsyms here.
            syms = kallsyms(path)
            expected = []
            for e in rep:
                if e['name'].startswith('page_fault_'):
                    kv = dict(x.split('=', 1) for x in e['args'].split())
                    expected.append((e['ts'], e['name'], kv['address'], kv['ip'],
                                     kv['error_code']))
            actual = []
            for r in sql(ts, session,
                         "SELECT ts, name, address, coalesce(ip_sym, printf('0x%x', ip)), "
                         "printf('0x%x', error_code) FROM page_fault"):
                actual.append((int(r[0]), r[1], symbol(syms, int(r[2])), r[3], r[4]))
            if expected or actual:
                compare('page_fault address, ip (symbol), error_code',
                        sorted(expected), sorted(actual), failures)

            # sched_switch, as the sched_switch plugin prints it.
            pat = re.compile(r'^(.*):(\d+) \[(-?\d+)\] (\S+) ==> (.*):(\d+) \[(-?\d+)\]$')
            expected = []
            for e in rep:
                if e['name'] == 'sched_switch':
                    m = pat.match(e['args'])
                    if not m or not state_ok(m.group(4)):
                        print('FAIL: cannot parse report sched_switch:', e['args'])
                        failures.append('sched_switch parse')
                        continue
                    g = m.groups()
                    expected.append((e['ts'], e['cpu'], g[0], int(g[1]), int(g[2]), g[3],
                                     g[4], int(g[5]), int(g[6])))
            actual = [(int(r[0]), int(r[1]), r[2], int(r[3]), int(r[4]), r[5], r[6],
                       int(r[7]), int(r[8])) for r in sql(
                ts, session,
                "SELECT ts, cpu, prev_comm, prev_pid, prev_prio, prev_state, next_comm, "
                "next_pid, next_prio FROM sched_switch")]
            if expected or actual:
                compare('sched_switch fields', sorted(expected), sorted(actual), failures)

            # kvm_exit: the text trace-cmd prints (its kvm plugin's), the
            # reason as the kernel's print fmt names it (report -N: no
            # plugins), and the raw fields (report -R).
            raw, kernel = {}, {}
            for e in report(path, '-t', '-R'):
                if e['name'] == 'kvm_exit':
                    raw.setdefault((e['ts'], e['pid'], e['cpu']), []).append(dict(
                        x.split('=', 1) for x in e['args'].split() if '=' in x))
            for e in report(path, '-t', '-N'):
                if e['name'] == 'kvm_exit':
                    m = re.search(r'(?:^| )reason (\S+)', e['args'])
                    kernel.setdefault((e['ts'], e['pid'], e['cpu']), []).append(
                        m.group(1) if m else '?')
            expected = []
            for e in rep:
                if e['name'] != 'kvm_exit':
                    continue
                key = (e['ts'], e['pid'], e['cpu'])
                f = raw[key].pop(0) if raw.get(key) else {}
                expected.append((e['ts'], kernel[key].pop(0) if kernel.get(key) else '?',
                                 f.get('guest_rip', '?'), int(f.get('vcpu_id', -1)),
                                 int(f.get('exit_reason', -1)), e['args']))
            actual = [(int(r[0]), r[1], r[2], int(r[3]), int(r[4]), r[5]) for r in sql(
                ts, session,
                "SELECT ts, reason, printf('0x%x', rip), coalesce(vcpu, -1), exit_code, args "
                "FROM kvm_exit")]
            if expected or actual:
                compare('kvm_exit reason, rip, vcpu, exit_code and text',
                        sorted(expected), sorted(actual), failures)

            # Process exec rows: pid and filename from the event's text.
            expected = []
            for e in rep:
                if e['name'] == 'sched_process_exec':
                    m = re.match(r'^filename=(.*) pid=(\d+) old_pid=', e['args'])
                    expected.append((e['ts'], int(m.group(2)), m.group(1), e['comm']))
            actual = [(int(r[0]), int(r[1]), r[2], r[3]) for r in sql(
                ts, session, "SELECT start_ts, pid, filename, name FROM process "
                             "WHERE filename IS NOT NULL")]
            if expected or actual:
                compare('process exec rows', sorted(expected), sorted(actual), failures)

            # Every other event: its text exactly as printed.
            paired = {(int(r[0]), int(r[1])) for r in sql(
                ts, session, "SELECT ts + dur, tid FROM kvm_exit WHERE dur IS NOT NULL")}
            expected = [(e['ts'], e['cpu'], e['name'], e['args']) for e in rep
                        if not e['name'].startswith('page_fault_')
                        and e['name'] not in ('sched_switch', 'kvm_exit')
                        and not (e['name'] == 'kvm_entry' and (e['ts'], e['pid']) in paired)]
            actual = [(int(r[0]), int(r[1]), r[2], r[3]) for r in sql(
                ts, session, "SELECT ts, cpu, name, args FROM ftrace_event")]
            by_name = Counter(x[2] for x in expected)
            compare('text of every other event (%s)' % ', '.join(
                f'{k} {v}' for k, v in sorted(by_name.items())),
                sorted(expected), sorted(actual), failures)
            wrong = Counter(x[2] for x in (Counter(expected) - Counter(actual)).elements())
            if wrong:
                print('  events whose text differs, by name: ' + ', '.join(
                    f'{k} {v}/{by_name[k]}' for k, v in sorted(wrong.items())))

        elif check.startswith('expect='):
            # The capture holds these events (else the test proves nothing).
            names = Counter(e['name'] for e in rep)
            missing = [n for n in check[7:].split(',') if not names[n]]
            if missing:
                print('FAIL: the capture has no ' + ', '.join(missing))
                failures.append('expect')
            else:
                print('ok: the capture has ' + ', '.join(
                    f'{n} {names[n]}' for n in check[7:].split(',')))

        elif check == 'lost':
            out = subprocess.run(['trace-cmd', 'report', '-i', path], check=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
            lost = sum(int(n) for n in re.findall(r'^CPU:\d+ \[(\d+) EVENTS DROPPED\]', out, re.M))
            actual = [tuple(r) for r in sql(ts, session,
                                            "SELECT dropped FROM store_info WHERE name = 'ftrace_event'")]
            compare('events the pages say were lost', [(str(lost),)], actual, failures)

        elif check == 'clock':
            out = subprocess.run(['trace-cmd', 'dump', '--clock', '-i', path],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
            m = re.search(r'\[([a-z0-9_-]+)\]', out.split('Tracing clock')[-1]) or \
                re.search(r'\[([a-z0-9_-]+)\]', out)
            expected = [(m.group(1),)] if m else [('?',)]
            actual = [tuple(r) for r in sql(ts, session, "SELECT clock FROM source")]
            compare('trace clock', expected, actual, failures)
            info = json.loads(subprocess.run([ts, 'info', '--json', session], check=True,
                                             stdout=subprocess.PIPE).stdout.decode())
            compare('session clock', expected, [(info.get('clock'),)], failures)

        else:
            print('unknown check', check)
            return 2

    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
