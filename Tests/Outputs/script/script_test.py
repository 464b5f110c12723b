#!/usr/bin/env python3
"""`tracestore script` (Outputs/Script/) against perf script -s.

Each case records with the real `perf record` here, imports the file, and
runs the same Python script twice: by `perf script -s SCRIPT -i FILE` (the
oracle: perf's own Python engine) and by `tracestore script -s SCRIPT
SESSION`; the two outputs must be equal, byte for byte.

  syscalls  perf's own syscall-counts.py, syscall-counts-by-pid.py (with
            and without its comm argument) and failed-syscalls-by-pid.py
            over -a raw_syscalls:sys_enter/sys_exit while a shell runs
            commands, some of which fail.
  fields    a script of this test that prints every argument perf passes
            (repr), for handlers with and without perf_sample_dict and for
            trace_unhandled's dict, with common_pc/common_flags/
            common_lock_depth from perf_trace_context: raw_syscalls,
            sched_wakeup, sched_process_exec (a __data_loc string),
            sched_process_fork (char arrays); every event, in order.
  futex     perf's futex-contention.py over syscalls:sys_enter_futex and
            sys_exit_futex while Python threads hand the GIL around.
  stackcollapse  perf's stackcollapse.py (process_event: each sample's
            call chain, symbolized) over a -g cpu-clock profile of a shell
            loop, recorded from 200 ms on (-D: the loader's first frames,
            which perf's Python callchains leave unresolved, are not in
            it); and with --include-pid --kernel.
  faults    a script of this test printing exceptions:page_fault_user's
            arguments and page_fault_kernel's through trace_unhandled:
            events the session keeps as page_fault rows.
  samples   perf's event_analyzing_sample.py (process_event's attr, comm,
            dso and symbol into an SQLite database, then grouped) and a
            script of this test printing each sample's param_dict, over a
            cpu-clock profile without -g: each sample placed by its ip.
  text      one tracefs capture (raw_syscalls, sched_switch, sched_wakeup,
            sched_process_exec: a __data_loc string, sched_process_fork:
            char arrays, softirq_entry) read three ways: the `trace` file's text and
            `trace-cmd report`'s, imported with --formats, and the
            trace.dat `trace-cmd extract` wrote.  Each text row's record
            bytes, rebuilt from its text, equal the trace.dat's (the
            kernel's own records), but for what the text does not print
            (trace-cmd report has no latency column: common_flags and
            common_preempt_count; the stale bytes that pad a record after
            a __data_loc string); perf's syscall-counts.py,
            syscall-counts-by-pid.py, failed-syscalls-by-pid.py and
            check-perf-trace.py print the same over the three (times in
            us: the text has no ns).
  etw       the ETW sample's page faults (../shared/data/etw), which the
            reader gives a format (PageFault:HardFault, ...): a script's
            handler and trace_unhandled see each page_fault row once, with
            its address and ip (counts and sums against a full scan).
  kvm       kvm_exit rows hold two events, the exit and the entry that
            ended it: over Tests/Data/kvm-exit-entry-formats.txt (tracefs
            text in this kernel's kvm formats, imported with --formats),
            a script's kvm__kvm_exit and kvm__kvm_entry see every exit and
            entry, paired or not, in ts order, with the fields the text
            printed (expected values written out by hand below).
  skeleton  `tracestore script -g python` writes perf-script.py; run
            unchanged, it calls each handler as many times as perf script
            prints events of that name.
  follow    a script under --follow while `tracestore record` writes the
            session: it sees every sys_enter the session holds at the end
            exactly once, in the session's order, which is ts order but for
            events record reports late (a loaded machine).
  errors    a syntax error, a handler that raises, a handler with the
            wrong signature: Python's traceback on stderr, exit 1; a
            missing session and a missing script: a message, exit 1.

The scripts import Util.syscall_name, which asks the audit package as
perf's does (Debian: python3-audit; without it perf prints numbers and a
warning, and so do we); so both run on Debian's python3, which perf
embeds.  Exit 77 when perf cannot record here.
usage: script_test.py TRACESTORE WORKDIR CASE [SHARED]
"""
import glob
import os
import re
import shutil
import subprocess
import sys

TS, WORK, CASE = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
SHARED = sys.argv[4] if len(sys.argv) > 4 else "../shared"
PYTHON = "/usr/bin/python3"
PERF_SCRIPTS = "/usr/lib/perf-core/scripts/python"
LOAD = ("ls -R /usr/share/doc > /dev/null; cat /etc/hostname > /dev/null; "
        "ls /no/such/dir 2> /dev/null; cat /no/such/file 2> /dev/null; "
        "true")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def skip(msg):
    print("SKIP:", msg)
    sys.exit(77)


def run(cmd, **kw):
    env = dict(os.environ)
    # perf embeds Debian's libpython, which finds its prefix through PATH:
    # under `pyenv exec` (a python3 shim ran this test) that is pyenv's,
    # without Debian's dist-packages (audit).
    env["PATH"] = ":".join(p for p in env.get("PATH", "").split(":")
                           if "/.pyenv/" not in p)
    preload = os.environ.get("SCRIPT_PY_PRELOAD")
    if preload and cmd[0] == TS:
        env["LD_PRELOAD"] = preload
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    return subprocess.run(cmd, capture_output=True, text=True, env=env, **kw)


def record(name, events, command):
    path = os.path.join(WORK, name + ".data")
    args = ["perf", "record", "-q", "-a", "-o", path]
    for e in events:
        args += ["-e", e]
    r = run(args + ["--", "sh", "-c", command])
    if r.returncode != 0 or not os.path.exists(path):
        skip("perf record %s: %s" % (" ".join(events), r.stderr.strip()[-300:]))
    session = os.path.join(WORK, name + ".trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session, path])
    if r.returncode != 0:
        fail("import %s: %s" % (path, r.stderr))
    return path, session


def both(script, data, session, args=(), before=None):
    """The script's stdout from perf and from tracestore; each must exit 0.
    before(), if given, runs before each of the two."""
    if before:
        before()
    p = run(["perf", "script", "-i", data, "-s", script]
            + (["--"] + list(args) if args else []))
    if p.returncode != 0:
        fail("perf script -s %s: exit %d: %s" % (script, p.returncode,
                                                 p.stderr[-500:]))
    if before:
        before()
    t = run([TS, "script", "--python", PYTHON, "-s", script, session]
            + list(args))
    if t.returncode != 0:
        fail("tracestore script -s %s: exit %d: %s" % (script, t.returncode,
                                                       t.stderr[-2000:]))
    return p.stdout, t.stdout


def untie(text, key):
    """text with each run of consecutive lines of equal key(line) (not
    None) sorted: events of one ns on two CPUs have no order by time, and
    perf's (the order it read them in) is not kept in a session."""
    out, run, run_key = [], [], None
    for line in text.splitlines(True):
        k = key(line)
        if run and (k is None or k != run_key):
            out += sorted(run)
            run = []
        if k is None:
            out.append(line)
        else:
            run.append(line)
            run_key = k
    return "".join(out + sorted(run))


def same(what, script, data, session, args=(), before=None, tie=None):
    want, got = both(script, data, session, args, before)
    if tie is not None:
        want, got = untie(want, tie), untie(got, tie)
    if want != got:
        w, g = want.splitlines(), got.splitlines()
        for i in range(max(len(w), len(g))):
            a = w[i] if i < len(w) else "<end>"
            b = g[i] if i < len(g) else "<end>"
            if a != b:
                fail("%s: line %d differs:\n  perf:       %r\n  tracestore: %r"
                     % (what, i + 1, a, b))
    lines = want.count("\n")
    if lines < 3:
        fail("%s: perf printed only %d lines: nothing compared" % (what, lines))
    print("%s: %d lines equal" % (what, lines))
    return want


def perf_script(name):
    path = os.path.join(PERF_SCRIPTS, name)
    if not os.path.exists(path):
        skip("perf's %s is not installed (Debian: linux-perf)" % name)
    return path


FIELDS_SCRIPT = r'''
import os, sys
sys.path.append(os.environ['PERF_EXEC_PATH'] + \
    '/scripts/python/Perf-Trace-Util/lib/Perf/Trace')
from perf_trace_context import *
from Core import *

def show(*a):
    print(" ".join(repr(x) for x in a))

def trace_begin():
    print("begin")

def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, id, args,
        perf_sample_dict):
    d = perf_sample_dict
    s = d["sample"]
    show(event_name, common_cpu, common_secs, common_nsecs, common_pid,
         common_comm, common_callchain, id, args, d["ev_name"], d["comm"],
         s["pid"], s["tid"], s["cpu"], s["time"], d["raw_buf"].hex(),
         d["callchain"])

def raw_syscalls__sys_exit(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, id, ret):
    show(event_name, common_cpu, common_secs, common_nsecs, common_pid,
         common_comm, id, ret, common_pc(context), common_flags(context),
         trace_flag_str(common_flags(context)))

def sched__sched_switch(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, prev_comm,
        prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio):
    show(event_name, common_cpu, common_secs, common_nsecs, common_pid,
         common_comm, prev_comm, prev_pid, prev_prio, prev_state,
         flag_str("sched__sched_switch", "prev_state", prev_state),
         next_comm, next_pid, next_prio)

def trace_unhandled(event_name, context, event_fields_dict):
    show(event_name, sorted(event_fields_dict.items()))

def trace_end():
    print("end")
'''


FAULTS_SCRIPT = r'''
def exceptions__page_fault_user(event_name, context, common_cpu,
        common_secs, common_nsecs, common_pid, common_comm, common_callchain,
        address, ip, error_code, perf_sample_dict):
    s = perf_sample_dict["sample"]
    print(event_name, common_cpu, common_secs, common_nsecs, common_pid,
          common_comm, hex(address), hex(ip), error_code,
          perf_sample_dict["ev_name"], s["pid"], s["tid"], s["time"])

def trace_unhandled(event_name, context, event_fields_dict):
    print(event_name, sorted(event_fields_dict.items()))
'''


def case_syscalls():
    data, session = record("syscalls", ["raw_syscalls:sys_enter",
                                        "raw_syscalls:sys_exit"], LOAD)
    same("syscall-counts.py", perf_script("syscall-counts.py"), data, session)
    same("syscall-counts-by-pid.py",
         perf_script("syscall-counts-by-pid.py"), data, session)
    same("syscall-counts-by-pid.py ls",
         perf_script("syscall-counts-by-pid.py"), data, session, ["ls"])
    same("failed-syscalls-by-pid.py",
         perf_script("failed-syscalls-by-pid.py"), data, session)


def case_fields():
    data, session = record(
        "fields", ["raw_syscalls:sys_enter", "raw_syscalls:sys_exit",
                   "sched:sched_wakeup", "sched:sched_process_exec",
                   "sched:sched_process_fork", "sched:sched_switch"],
        "for i in 1 2 3; do /bin/true; done; " + LOAD)
    script = os.path.join(WORK, "fields.py")
    with open(script, "w") as f:
        f.write(FIELDS_SCRIPT)
    # (the handlers print NAME CPU SECS NSECS first)
    ts = re.compile(r"^'\w+' \d+ (\d+) (\d+) ")

    def ts_of(line):
        m = ts.match(line)
        return m.groups() if m else None
    out = same("fields.py", script, data, session, tie=ts_of)
    for name in ("raw_syscalls__sys_enter", "raw_syscalls__sys_exit",
                 "sched__sched_wakeup", "sched__sched_process_exec",
                 "sched__sched_process_fork", "sched__sched_switch"):
        if ("'%s'" % name) not in out:
            fail("fields.py: no %s event was recorded: nothing compared"
                 % name)


def case_tracedat():
    # A capture can fail the comparison for a reason outside both readers:
    # a producer lost events, or trace-cmd named a pid by another comm (it
    # names every event of a pid by the comm the kernel's saved_cmdlines
    # holds for it when `trace-cmd extract` runs, and other processes can
    # take a pid's entry or reuse the pid).  Each is tried again, three
    # captures in all; three differing captures fail the test.
    why = None
    for attempt in range(3):
        why = capture_tracedat()
        if why is True:
            return
        print("attempt %d: %s; again" % (attempt + 1, why or
                                        "a producer lost events"))
    if why:
        fail(why)
    skip("perf or the ring buffer lost events three times")


def capture_tracedat():
    # The top instance: trace.dat import reads the top buffer, and trace-cmd
    # extract of an instance writes an empty one beside it.  The test runs
    # serially; what it changes is put back.
    top = "/sys/kernel/tracing"
    if not os.path.exists(top + "/events/raw_syscalls/enable"):
        skip("no tracefs raw_syscalls")
    if shutil.which("trace-cmd") is None:
        skip("no trace-cmd")
    data = os.path.join(WORK, "both.data")
    dat = os.path.join(WORK, "both.dat")

    def read(path):
        with open(os.path.join(top, path)) as f:
            return f.read().strip()

    def write(path, text):
        with open(os.path.join(top, path), "w") as f:
            f.write(text)

    saved = {p: read(p) for p in ("buffer_size_kb", "tracing_on")}
    try:
        write("tracing_on", "0")
        write("buffer_size_kb", "16384")
        write("trace", "")
        write("events/raw_syscalls/enable", "1")
        write("tracing_on", "1")
        r = run(["perf", "record", "-q", "-a", "-o", data,
                 "-e", "raw_syscalls:sys_enter", "-e", "raw_syscalls:sys_exit",
                 "--", "sh", "-c", "ls /usr/share/doc > /dev/null; "
                 "ls -l /etc > /dev/null; ls -R /usr/share/man/man1 > /dev/null"])
        write("tracing_on", "0")
        if r.returncode != 0:
            skip("perf record: %s" % r.stderr.strip()[-300:])
        r = run(["trace-cmd", "extract", "-o", dat])
        if r.returncode != 0 or not os.path.exists(dat):
            fail("trace-cmd extract: %s" % r.stderr[-500:])
    finally:
        write("events/raw_syscalls/enable", "0")
        write("trace", "")
        for p, v in saved.items():
            write(p, v)
    sessions = {}
    for path in (data, dat):
        session = path + ".trace"
        shutil.rmtree(session, ignore_errors=True)
        r = run([TS, "import", "-o", session, path])
        if r.returncode != 0:
            fail("import %s: %s" % (path, r.stderr))
        sessions[path] = session
        r = run([TS, "sql", "--csv", session,
                 "SELECT sum(dropped) FROM store_info"])
        lost = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        if lost not in ("", "0"):
            # a busy machine: one producer lost events the other has
            return False
    script = perf_script("syscall-counts-by-pid.py")
    want = same("syscall-counts-by-pid.py ls (perf.data)", script, data,
                sessions[data], ["ls"])
    r = run([TS, "script", "--python", PYTHON, "-s", script, sessions[dat],
             "ls"])
    if r.returncode != 0:
        fail("over the trace.dat: exit %d: %s" % (r.returncode, r.stderr))
    # One difference, explained: perf names a task by its comm at the time
    # (the forked shell is "sh" until its exec), trace-cmd by the comm its
    # saved_cmdlines keep for the pid ("ls"), and the trace.dat import
    # follows trace-cmd report.  So over the trace.dat, each ls counts the
    # system calls its pid made before the exec, which perf script lists
    # under another comm for that pid.
    want_counts = per_pid_counts(want)
    r2 = run(["perf", "script", "-i", data, "-F", "comm,pid,event,trace"])
    early = []
    for line in r2.stdout.splitlines():
        f = line.split()
        if len(f) >= 5 and f[2] == "raw_syscalls:sys_enter:" and \
           f[0] != "ls" and int(f[1]) in want_counts:
            early.append((int(f[1]), int(f[4])))
    # the names perf's Util.syscall_name prints: the audit package's, in
    # Debian's python3 (this test may run on another)
    names = run([PYTHON, "-c", "import audit, sys\n"
                 "for nr in sys.argv[1:]: print(audit.audit_syscall_to_name("
                 "int(nr), audit.MACH_86_64))"] +
                [str(nr) for _, nr in early]).stdout.split()
    if len(names) != len(early):
        fail("no syscall names from the audit package (python3-audit)")
    for (pid, _), name in zip(early, names):
        c = want_counts[pid]
        c[name] = c.get(name, 0) + 1
    got_counts = per_pid_counts(r.stdout)
    if got_counts != want_counts or len(want_counts) < 3:
        diffs = ["pid %d %s: trace.dat %s, perf %s" % (pid, k,
                 got_counts.get(pid, {}).get(k), want_counts.get(pid, {}).get(k))
                 for pid in sorted(set(got_counts) | set(want_counts))
                 for k in sorted(set(got_counts.get(pid, {})) |
                                 set(want_counts.get(pid, {})))
                 if got_counts.get(pid, {}).get(k) !=
                    want_counts.get(pid, {}).get(k)]
        return ("over the trace.dat, counts differ from perf's (with the "
                "pre-exec calls): %s" % "; ".join(diffs[:20]))
    print("syscall-counts-by-pid.py ls over the trace.dat: %d processes, "
          "the same counts (with their pre-exec calls)" % len(want_counts))
    return True


def per_pid_counts(text):
    """{pid: {syscall: count}} of syscall-counts-by-pid.py's output."""
    counts, pid = {}, None
    for line in text.splitlines():
        if line.startswith("ls ["):
            pid = int(line.split("[")[1].rstrip("]"))
            counts[pid] = {}
        elif pid is not None and line.startswith("  ") and line.split():
            name, n = line.split()
            counts[pid][name] = int(n)
    return counts


def case_faults():
    # page_fault rows: the tracepoint's fields are the row's columns
    data, session = record("faults", ["exceptions:page_fault_user",
                                      "exceptions:page_fault_kernel"],
                           LOAD)
    script = os.path.join(WORK, "faults.py")
    with open(script, "w") as f:
        f.write(FAULTS_SCRIPT)
    out = same("faults.py", script, data, session)
    for name in ("exceptions__page_fault_user", "page_fault_kernel"):
        if name not in out:
            fail("faults.py: no %s event was recorded: nothing compared"
                 % name)


def case_check():
    data, session = record("check", ["irq:softirq_entry",
                                     "sched:sched_switch",
                                     "sched:sched_wakeup"],
                           LOAD + "; sleep 0.2")
    out = same("check-perf-trace.py", perf_script("check-perf-trace.py"),
               data, session)
    if "irq__softirq_entry" not in out or "vec=" not in out:
        fail("check-perf-trace.py: no softirq_entry was recorded")


def case_futex():
    # Threads handing the GIL to each other every 10 us: FUTEX_WAIT on
    # the GIL's condition variables, contended on two CPUs.
    workload = (PYTHON + " -c 'import sys, threading\n"
                "sys.setswitchinterval(0.00001)\n"
                "def f():\n"
                "    x = 0\n"
                "    for i in range(300000): x += i\n"
                "ts = [threading.Thread(target=f) for i in range(4)]\n"
                "[t.start() for t in ts]; [t.join() for t in ts]'")
    data, session = record("futex", ["syscalls:sys_enter_futex",
                                     "syscalls:sys_exit_futex"], workload)
    same("futex-contention.py", perf_script("futex-contention.py"), data,
         session)


def case_stackcollapse():
    data = os.path.join(WORK, "profile.data")
    r = run(["perf", "record", "-q", "-g", "-D", "200", "-c", "100000",
             "-e", "cpu-clock", "-o", data, "--", "sh", "-c",
             "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done"])
    if r.returncode != 0 or not os.path.exists(data):
        skip("perf record -g: %s" % r.stderr.strip()[-300:])
    session = os.path.join(WORK, "profile.trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session, data])
    if r.returncode != 0:
        fail("import: %s" % r.stderr)
    script = perf_script("stackcollapse.py")
    same("stackcollapse.py", script, data, session)
    same("stackcollapse.py --include-pid --kernel", script, data, session,
         ["--include-pid", "--kernel"])


SAMPLES_SCRIPT = r'''
def process_event(d):
    s = d["sample"]
    print(d["ev_name"], d["comm"], d["attr"].hex(), d.get("dso"),
          d.get("symbol"), [(k, s[k]) for k in
                            ("pid", "tid", "cpu", "ip", "time", "period")])
'''


def case_samples():
    # No -g: perf places each sample by its ip alone (user and kernel).
    data = os.path.join(WORK, "samples.data")
    r = run(["perf", "record", "-q", "-c", "100000", "-e", "cpu-clock",
             "-o", data, "--", "sh", "-c", LOAD + "; i=0; while "
             "[ $i -lt 200000 ]; do i=$((i+1)); done"])
    if r.returncode != 0 or not os.path.exists(data):
        skip("perf record: %s" % r.stderr.strip()[-300:])
    session = os.path.join(WORK, "samples.trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session, data])
    if r.returncode != 0:
        fail("import: %s" % r.stderr)
    script = os.path.join(WORK, "samples.py")
    with open(script, "w") as f:
        f.write(SAMPLES_SCRIPT)
    out = same("each sample's param_dict", script, data, session)
    if "[kernel.kallsyms]" not in out or "/bin/" not in out:
        fail("the profile has no kernel or no user samples to compare")
    # event_analyzing_sample.py keeps its rows in /dev/shm/perf.db, adding
    # to what is there: each run starts without one.
    db = "/dev/shm/perf.db"

    def fresh():
        if os.path.exists(db):
            os.remove(db)
    same("event_analyzing_sample.py", perf_script("event_analyzing_sample.py"),
         data, session, before=fresh)
    fresh()


def case_text():
    top = "/sys/kernel/tracing"
    events = ["raw_syscalls", "sched/sched_switch", "sched/sched_wakeup",
              "sched/sched_process_exec", "sched/sched_process_fork",
              "irq/softirq_entry"]
    if not os.path.exists(top + "/events/raw_syscalls/enable"):
        skip("no tracefs raw_syscalls")
    if shutil.which("trace-cmd") is None:
        skip("no trace-cmd")
    text = os.path.join(WORK, "capture.txt")
    report = os.path.join(WORK, "report.txt")
    dat = os.path.join(WORK, "capture.dat")

    def read(path):
        with open(os.path.join(top, path)) as f:
            return f.read().strip()

    def write(path, value):
        with open(os.path.join(top, path), "w") as f:
            f.write(value)

    saved = {p: read(p) for p in ("buffer_size_kb", "tracing_on")}
    try:
        write("tracing_on", "0")
        write("buffer_size_kb", "16384")
        write("trace", "")
        for e in events:
            write("events/%s/enable" % e, "1")
        write("tracing_on", "1")
        r = run(["sh", "-c", LOAD + "; ls -R /usr/share/man/man1 > /dev/null"
                 "; for i in 1 2 3 4 5; do sleep 0.01; done"])
        write("tracing_on", "0")
        with open(os.path.join(top, "trace")) as f, open(text, "w") as out:
            shutil.copyfileobj(f, out)
        r = run(["trace-cmd", "extract", "-o", dat])
        if r.returncode != 0 or not os.path.exists(dat):
            fail("trace-cmd extract: %s" % r.stderr[-500:])
    finally:
        for e in events:
            write("events/%s/enable" % e, "0")
        write("trace", "")
        for p, v in saved.items():
            write(p, v)
    r = run(["trace-cmd", "report", "-i", dat])
    if r.returncode != 0:
        fail("trace-cmd report: %s" % r.stderr[-500:])
    with open(report, "w") as f:
        f.write(r.stdout)

    sessions = {}
    for name, path, extra in (("dat", dat, []),
                              ("text", text, ["--formats", top + "/events"]),
                              ("report", report, ["--formats", top])):
        session = os.path.join(WORK, name + ".trace")
        shutil.rmtree(session, ignore_errors=True)
        r = run([TS, "import", "-o", session] + extra + [path])
        if r.returncode != 0:
            fail("import %s: %s" % (path, r.stderr))
        sessions[name] = session

    def rows(name, sql):
        r = run([TS, "sql", "--csv", sessions[name], sql])
        if r.returncode != 0:
            fail("sql over %s: %s" % (name, r.stderr))
        got = [line.split(",", 3) for line in r.stdout.splitlines()[1:]]
        # each CPU's events in the order it wrote them (the text's ts
        # are in us: equal ones keep their order)
        got.sort(key=lambda row: (int(row[0]), int(row[1])))
        return got

    # The record bytes: each row against the kernel's.  The ftrace text
    # prints the latency flags; trace-cmd report does not (bytes 2-3), and
    # its sched plugin prints only the low 8 bits of prev_state ("R" for a
    # preempted task's 0x100).
    with open(top + "/events/sched/sched_switch/format") as f:
        m = re.search(r"prev_state;\s*offset:(\d+);\s*size:(\d+);", f.read())
    if not m:
        fail("sched_switch's format has no prev_state")
    state_at, state_size = int(m.group(1)), int(m.group(2))

    def unprinted(hexbytes, store):
        b = bytearray.fromhex(hexbytes)
        b[2:4] = b"\0\0"
        if store == "sched_switch":
            b[state_at + 1:state_at + state_size] = bytes(state_size - 1)
        return b.hex().upper()

    # The ring buffer pads a record to 4 bytes; after a __data_loc string
    # (sched_process_exec's filename) the pad holds whatever the buffer
    # held before, which no text prints: compared as zeros.
    data_locs = {}
    for fmt in glob.glob(top + "/events/*/*/format"):
        with open(fmt) as f:
            locs = [int(o) for o in re.findall(
                r"__data_loc[^;]*;\s*offset:(\d+);", f.read())]
        if locs:
            data_locs[os.path.basename(os.path.dirname(fmt))] = locs

    def unpadded(hexbytes, name):
        b = bytearray.fromhex(hexbytes)
        end = 0
        for at in data_locs.get(name, []):
            if at + 4 <= len(b):
                loc = int.from_bytes(b[at:at + 4], "little")
                end = max(end, (loc & 0xffff) + (loc >> 16))
        if end and end < len(b):
            b[end:] = bytes(len(b) - end)
        return b.hex().upper()
    for store, sql in (
            ("ftrace_event", "SELECT cpu, ts / 1000, name, hex(raw) "
                             "FROM ftrace_event"),
            ("sched_switch", "SELECT cpu, ts / 1000, 'sched_switch', "
                             "hex(raw) FROM sched_switch")):
        want = rows("dat", sql)
        if len(want) < 20:
            fail("%s: only %d events captured" % (store, len(want)))
        for name in ("text", "report"):
            got = rows(name, sql)
            if len(got) != len(want):
                fail("%s over the %s: %d rows, the trace.dat %d"
                     % (store, name, len(got), len(want)))
            for w, g in zip(want, got):
                wb, gb = unpadded(w[3], w[2]), unpadded(g[3], g[2])
                if name == "report":
                    wb, gb = unprinted(wb, store), unprinted(gb, store)
                if not gb or (w[0], w[2]) != (g[0], g[2]) or wb != gb:
                    fail("%s over the %s: cpu %s %s at %s us: record %s, the "
                         "trace.dat's %s" % (store, name, g[0], g[2], g[1],
                                             g[3] or "NULL", w[3]))
            print("%s: %d records rebuilt from the %s equal the trace.dat's"
                  % (store, len(got), name))

    def script_out(script, name):
        r = run([TS, "script", "--python", PYTHON, "-s", script,
                 sessions[name]])
        if r.returncode != 0:
            fail("%s over the %s: exit %d: %s" % (script, name, r.returncode,
                                                  r.stderr[-2000:]))
        return r.stdout

    for script in ("syscall-counts.py", "syscall-counts-by-pid.py",
                   "failed-syscalls-by-pid.py", "check-perf-trace.py"):
        path = perf_script(script)
        want = script_out(path, "dat")
        if script == "check-perf-trace.py":
            # the times to the us the text has (tracefs rounds: ns2usecs)
            def us(m):
                ns = (int(m.group(1)) * 10**9 + int(m.group(2)) + 500) \
                    // 1000 * 1000
                # the seconds as wide as printed (%05u below 10^4 s)
                return "%0*d.%09d" % ((len(m.group(1)),) +
                                      divmod(ns, 10**9))
            want = re.sub(r"(\d+)\.(\d{9})", us, want)
        for name in ("text", "report"):
            got, w = script_out(path, name), want
            if script == "check-perf-trace.py" and name == "report":
                # the latency flags trace-cmd report does not print
                def no_latency(t):
                    t = re.sub(r"common_flags=[\w |]*,", "common_flags=,", t)
                    return re.sub(r"common_preempt_count=\d+",
                                  "common_preempt_count=", t)
                w, got = no_latency(w), no_latency(got)
            if got != w or w.count("\n") < 10:
                fail("%s over the %s differs from over the trace.dat:\n%s"
                     % (script, name, "\n".join(
                         "  %r\n  %r" % (a, b) for a, b in
                         zip(w.splitlines(), got.splitlines()) if a != b)[:2000]))
            print("%s over the %s: %d lines, as over the trace.dat"
                  % (script, name, w.count("\n")))


ETW_SCRIPT = r'''
import collections
n, total = collections.Counter(), collections.Counter()

def PageFault__HardFault(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, address, ip):
    n["HardFault"] += 1
    total["HardFault"] += address + ip

def trace_unhandled(event_name, context, fields):
    name = event_name.split("__")[-1]
    n[name] += 1
    total[name] += fields.get("address", 0) + fields.get("ip", 0)

def trace_end():
    for name in sorted(n):
        print(name, n[name], total[name] % 2**64)
'''


def case_etw():
    import zipfile
    sample = os.path.join(SHARED, "data", "etw", "net.4.5.2.x64.etl.zip")
    if not os.path.exists(sample):
        skip("no %s" % sample)
    with zipfile.ZipFile(sample) as z:
        inner = next(n for n in z.namelist() if n.lower().endswith(".etl"))
        etl = z.extract(inner, WORK)
    session = os.path.join(WORK, "etw.trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "-o", session, etl])
    if r.returncode != 0:
        fail("import: %s" % r.stderr)
    script = os.path.join(WORK, "etw.py")
    with open(script, "w") as f:
        f.write(ETW_SCRIPT)
    r = run([TS, "script", "--python", PYTHON, "-s", script, session])
    if r.returncode != 0:
        fail("script: exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    q = run([TS, "sql", "--csv", session,
             "SELECT name, count(*), sum(address), sum(coalesce(ip, 0)) "
             "FROM page_fault GROUP BY name ORDER BY name"])
    want = ""
    for line in q.stdout.splitlines()[1:]:
        name, count, a, b = line.split(",")
        want += "%s %s %d\n" % (name, count, (int(a) + int(b)) % 2**64)
    if r.stdout != want or not want:
        fail("handlers saw %r; the page_fault store holds %r"
             % (r.stdout, want))
    print("page faults handed to the script: %s" % want.strip())


KVM_SCRIPT = r'''
def kvm__kvm_exit(event_name, context, common_cpu, common_secs, common_nsecs,
        common_pid, common_comm, common_callchain, exit_reason, guest_rip,
        isa, info1, info2, intr_info, error_code, vcpu_id, requests):
    print(event_name, common_cpu, common_secs, common_nsecs, common_pid,
          exit_reason, hex(guest_rip), isa, hex(info1), hex(info2),
          hex(intr_info), error_code, vcpu_id, hex(requests))

def kvm__kvm_entry(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, vcpu_id,
        rip, immediate_exit, intr_info, error_code):
    print(event_name, common_cpu, common_secs, common_nsecs, common_pid,
          vcpu_id, hex(rip), immediate_exit, intr_info, error_code)
'''

# The sample's lines, field by field: reasons by the VMX table of the
# kvm_exit print fmt (EXTERNAL_INTERRUPT 1, HLT 12, EPT_VIOLATION 48; isa
# 1, VMX, is what picks that table).  The first entry has no exit before
# it and the last exit no entry after it: each is still an event.
KVM_EXPECTED = """\
kvm__kvm_entry 0 100 50000 1000 0 0xffffffff81000000 0 0 0
kvm__kvm_exit 0 100 100000 1000 1 0xffffffff81000000 1 0x0 0x0 0x800000ec 0 0 0x0
kvm__kvm_exit 1 100 150000 1001 12 0xffffffff81000010 1 0x0 0x0 0x0 0 1 0x0
kvm__kvm_entry 0 100 300000 1000 0 0xffffffff81000002 0 0 0
kvm__kvm_entry 1 100 1150000 1001 1 0xffffffff81000011 1 0 0
kvm__kvm_exit 0 100 2000000 1000 48 0xffffffff81000020 1 0x181 0x0 0x0 0 0 0x400
"""


def case_kvm():
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "Data")
    session = os.path.join(WORK, "kvm.trace")
    shutil.rmtree(session, ignore_errors=True)
    r = run([TS, "import", "--formats", os.path.join(data, "tracefs-events"),
             "-o", session, os.path.join(data, "kvm-exit-entry-formats.txt")])
    if r.returncode != 0:
        fail("import: %s" % r.stderr)
    script = os.path.join(WORK, "kvm.py")
    with open(script, "w") as f:
        f.write(KVM_SCRIPT)
    r = run([TS, "script", "--python", PYTHON, "-s", script, session])
    if r.returncode != 0:
        fail("script: exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    if r.stdout != KVM_EXPECTED:
        fail("the handlers printed\n%s\nexpected\n%s" % (r.stdout,
                                                          KVM_EXPECTED))
    print("kvm_exit and kvm_entry: %d events as written out"
          % KVM_EXPECTED.count("\n"))


def event_counts(data):
    """Events per name, from perf script's own listing."""
    r = run(["perf", "script", "-i", data, "-F", "event"])
    counts = {}
    for line in r.stdout.splitlines():
        name = line.strip().rstrip(":")
        if name:
            counts[name] = counts.get(name, 0) + 1
    return counts


def case_skeleton():
    data, session = record("skeleton", ["raw_syscalls:sys_enter",
                                        "raw_syscalls:sys_exit",
                                        "sched:sched_wakeup"], LOAD)
    r = run([TS, "script", "--python", PYTHON, "-g", "python", session],
            cwd=WORK)
    skeleton = os.path.join(WORK, "perf-script.py")
    if r.returncode != 0 or not os.path.exists(skeleton):
        fail("script -g python: exit %d: %s" % (r.returncode, r.stderr))
    r = run([TS, "script", "--python", PYTHON, "-s", skeleton, session])
    if r.returncode != 0:
        fail("the skeleton: exit %d: %s" % (r.returncode, r.stderr[-2000:]))
    calls = {}
    for line in r.stdout.splitlines():
        word = line.split(" ", 1)[0]
        if "__" in word:
            system, name = word.split("__", 1)
            key = system + ":" + name
            calls[key] = calls.get(key, 0) + 1
    want = event_counts(data)
    if calls != want:
        fail("handler calls %r, perf script's events %r" % (calls, want))
    if not r.stdout.startswith("in trace_begin") or \
       not r.stdout.rstrip().endswith("in trace_end"):
        fail("trace_begin/trace_end not called first and last")
    print("skeleton: %s calls, as perf's event counts" % calls)


COUNTER_SCRIPT = r'''
import sys
seen = []
def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, id, args):
    seen.append(common_secs * 1000000000 + common_nsecs)
def trace_end():
    print("\n".join(str(ts) for ts in seen))
'''


def case_follow():
    import time
    session = os.path.join(WORK, "follow.trace")
    shutil.rmtree(session, ignore_errors=True)
    script = os.path.join(WORK, "counter.py")
    with open(script, "w") as f:
        f.write(COUNTER_SCRIPT)
    env = dict(os.environ)
    writer = subprocess.Popen(
        [TS, "record", "-e", "raw_syscalls:sys_enter", "-o", session, "--",
         "sh", "-c", "for i in 1 2 3 4 5 6; do %s; sleep 0.3; done" % LOAD],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 30
    while not os.path.exists(os.path.join(session, "ftrace_event.store")):
        if writer.poll() is not None or time.time() > deadline:
            _, err = writer.communicate()
            skip("record did not start: %s" % err.decode()[-300:])
        time.sleep(0.05)
    reader = run([TS, "script", "--follow", "--python", PYTHON, "-s",
                  script, session], timeout=120)
    writer_err = writer.communicate(timeout=60)[1].decode(errors="replace")
    if writer.returncode != 0:
        fail("record: exit %d" % writer.returncode)
    if reader.returncode != 0:
        fail("script --follow: exit %d: %s" % (reader.returncode,
                                               reader.stderr[-2000:]))
    # What the session holds at the end, in its order: each event once,
    # and in ts order where the writer committed in ts order.  Under load
    # `record` may commit an event after later ones (it says how many were
    # "late"): those come in the store's order, as without --follow.
    r = run([TS, "sql", "--csv", session,
             "SELECT ts FROM ftrace_event WHERE name = 'sys_enter' "
             "ORDER BY id"])
    want = r.stdout.split()[1:]
    got = reader.stdout.split()
    if len(want) < 100 or got != want:
        diff = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                    min(len(got), len(want)))
        fail("script --follow saw %d events, the session holds %d; first "
             "difference at event %d" % (len(got), len(want), diff))
    late = "arrived after later ones" in writer_err
    inverted = sum(1 for a, b in zip(want, want[1:]) if int(b) < int(a))
    if inverted and not late:
        fail("%d events out of ts order, and record reported none late"
             % inverted)
    print("follow: %d events, each once, in the session's order (%d late "
          "ones out of ts order)" % (len(want), inverted))


def case_errors():
    data, session = record("errors", ["raw_syscalls:sys_enter"], "true")
    scripts = {
        "syntax": ("def trace_begin(:\n    pass\n", "SyntaxError"),
        "raises": ("def raw_syscalls__sys_enter(*a):\n"
                   "    raise ValueError('handler failed')\n",
                   "ValueError: handler failed"),
        "signature": ("def raw_syscalls__sys_enter(event_name):\n"
                      "    pass\n", "TypeError"),
    }
    for name, (text, want) in scripts.items():
        path = os.path.join(WORK, name + ".py")
        with open(path, "w") as f:
            f.write(text)
        r = run([TS, "script", "--python", PYTHON, "-s", path, session])
        if r.returncode != 1 or want not in r.stderr or \
           "Traceback" not in r.stderr and name != "syntax":
            fail("%s: exit %d, stderr %r" % (name, r.returncode, r.stderr))
        print("%s: exit 1 with %s" % (name, want))
    r = run([TS, "script", "-s", path, os.path.join(WORK, "no-such.trace")])
    if r.returncode != 1 or "no-such.trace" not in r.stderr:
        fail("missing session: exit %d, %r" % (r.returncode, r.stderr))
    r = run([TS, "script", "--python", PYTHON, "-s",
             os.path.join(WORK, "no-such.py"), session])
    if r.returncode != 1 or "no-such.py" not in r.stderr:
        fail("missing script: exit %d, %r" % (r.returncode, r.stderr))
    print("missing session, missing script: exit 1, named")

    # A damaged session: raw ids beyond the string store, and the format
    # texts overwritten with garbage.  A clear error or a run; never a
    # crash (a signal) or a Python error other than the OSError it raises.
    script = os.path.join(WORK, "count.py")
    with open(script, "w") as f:
        f.write("n = 0\n"
                "def trace_unhandled(event_name, context, fields):\n"
                "    global n\n    n += 1\n"
                "def trace_end():\n    print(n)\n")
    damaged = os.path.join(WORK, "damaged.trace")
    for what in ("raw ids", "formats"):
        shutil.rmtree(damaged, ignore_errors=True)
        shutil.copytree(session, damaged)
        if what == "raw ids":
            path = os.path.join(damaged, "ftrace_event.store")
            with open(path, "r+b") as f:
                data = bytearray(f.read())
                # the raw column (offset 36 of each 40-byte record, after
                # the 4096-byte header) of every record
                for off in range(4096, len(data) - 39, 40):
                    data[off + 36:off + 40] = b"\xfe\xff\xff\x7f"
                f.seek(0)
                f.write(data)
        else:
            path = os.path.join(damaged, "string_data.store")
            with open(path, "r+b") as f:
                data = bytearray(f.read())
                for i in range(4096, len(data), 7):
                    if data[i] in b"0123456789:;":
                        data[i] = 0x41 + i % 26
                f.seek(0)
                f.write(data)
        r = run([TS, "script", "--python", PYTHON, "-s", script, damaged])
        if r.returncode not in (0, 1) or "Segmentation" in r.stderr or \
           (r.returncode == 1 and "OSError" not in r.stderr):
            fail("damaged %s: exit %d, %r" % (what, r.returncode,
                                              r.stderr[-500:]))
        print("damaged %s: exit %d %s" % (what, r.returncode,
                                           r.stderr.strip()[-120:]))


if os.geteuid() != 0:
    skip("perf record -a needs root")
if shutil.which("perf") is None:
    skip("no perf (Debian: linux-perf)")
if not os.path.exists(PYTHON):
    skip("no " + PYTHON)
os.makedirs(WORK, exist_ok=True)
{"syscalls": case_syscalls, "fields": case_fields, "futex": case_futex,
 "check": case_check, "tracedat": case_tracedat,
 "stackcollapse": case_stackcollapse, "samples": case_samples,
 "text": case_text, "faults": case_faults, "etw": case_etw,
 "kvm": case_kvm,
 "skeleton": case_skeleton,
 "follow": case_follow, "errors": case_errors}[CASE]()
print("PASS")
