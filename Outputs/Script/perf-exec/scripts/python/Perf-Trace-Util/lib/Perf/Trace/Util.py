# Util.py: the utilities perf's Python scripts import ("from Util import
# *"), Tracer's own implementation for `tracestore script`
# (docs/script.md), with the results perf's scripts print: time helpers,
# add_stats, clear_term, syscall_name, strerror and the futex constants.
# syscall_name asks the audit package, as perf's does, so that scripts
# print what perf prints where it is installed (its names differ from the
# kernel's in a few: pread, pwrite); without it, where perf prints numbers,
# the names of the kernel's asm/unistd_64.h built into tracestore_script.

import errno
import os

import tracestore_script

try:
    import audit
    _audit_machine = {'x86_64': audit.MACH_86_64, 'i386': audit.MACH_X86,
                      'i686': audit.MACH_X86}.get(os.uname()[4])
except (ImportError, AttributeError):
    audit = None
    _audit_machine = None

FUTEX_WAIT = 0
FUTEX_WAKE = 1
FUTEX_PRIVATE_FLAG = 128
FUTEX_CLOCK_REALTIME = 256
FUTEX_CMD_MASK = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)

NSECS_PER_SEC = 1000000000


def avg(total, n):
    return total / n


def nsecs(secs, nsecs):
    return secs * NSECS_PER_SEC + nsecs


def nsecs_secs(nsecs):
    return nsecs / NSECS_PER_SEC


def nsecs_nsecs(nsecs):
    return nsecs % NSECS_PER_SEC


def nsecs_str(nsecs):
    # A one-element tuple, as perf's own returns (scripts print it so).
    return ("%5u.%09u" % (nsecs_secs(nsecs), nsecs_nsecs(nsecs)),)


def add_stats(dict, key, value):
    """dict[key] = (min, max, running average, count) with value added."""
    if key not in dict:
        dict[key] = (value, value, value, 1)
        return
    low, high, average, count = dict[key]
    dict[key] = (min(low, value), max(high, value), (average + value) / 2,
                 count + 1)


def clear_term():
    print("\x1b[H\x1b[2J")


def syscall_name(id):
    name = None
    if audit is not None and _audit_machine is not None:
        try:
            name = audit.audit_syscall_to_name(id, _audit_machine)
        except Exception:
            name = None
    if name is None:
        name = tracestore_script.syscall_name(id)
    return name if name is not None else str(id)


def strerror(nr):
    try:
        return errno.errorcode[abs(nr)]
    except (KeyError, TypeError):
        return "Unknown %d errno" % nr
