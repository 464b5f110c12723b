# Core.py: the helpers perf's Python scripts import ("from Core import *"),
# Tracer's own implementation for `tracestore script` (docs/script.md).
# The names and results are those perf script's scripts rely on
# (seeds/003, "Core.py Module"): autodict, flag_str and symbol_str over the
# tables define_* fill from each event's print fmt, trace_flag_str,
# taskState, EventHeaders.

from collections import defaultdict


def autodict():
    """A dict whose missing keys hold new autodicts (Perl's hashes)."""
    return defaultdict(autodict)


flag_fields = autodict()
symbolic_fields = autodict()


def define_flag_field(event_name, field_name, delim):
    flag_fields[event_name][field_name]['delim'] = delim


def define_flag_value(event_name, field_name, value, field_str):
    flag_fields[event_name][field_name]['values'][value] = field_str


def define_symbolic_field(event_name, field_name):
    pass


def define_symbolic_value(event_name, field_name, value, field_str):
    symbolic_fields[event_name][field_name]['values'][value] = field_str


def flag_str(event_name, field_name, value):
    """The names of the flags set in value, by increasing flag value,
    joined by the field's delimiter; the name of 0 when value is 0."""
    field = flag_fields[event_name][field_name]
    if not field:
        return ""
    names = field['values']
    delim = field['delim']
    out = []
    for flag in sorted(names):
        if flag == 0:
            if not value:
                out.append(names[flag])
                break
            continue
        if value & flag == flag:
            out.append(names[flag])
            value &= ~flag
    if delim and len(out) > 1:
        return (" %s " % delim).join(out)
    return "".join(out)


def symbol_str(event_name, field_name, value):
    """The name the field's print fmt gives value, or ""."""
    field = symbolic_fields[event_name][field_name]
    if not field:
        return ""
    return field['values'].get(value, "")


trace_flags = {0x00: "NONE", 0x01: "IRQS_OFF", 0x02: "IRQS_NOSUPPORT",
               0x04: "NEED_RESCHED", 0x08: "HARDIRQ", 0x10: "SOFTIRQ"}


def trace_flag_str(value):
    """common_flags as names joined by " | "."""
    if not value:
        return "NONE"
    out = []
    for flag, name in trace_flags.items():
        if flag and value & flag == flag:
            out.append(name)
            value &= ~flag
    return " | ".join(out)


def taskState(state):
    return {0: "R", 1: "S", 2: "D", 64: "DEAD"}.get(state, "Unknown")


class EventHeaders:
    def __init__(self, common_cpu, common_secs, common_nsecs,
                 common_pid, common_comm, common_callchain):
        self.cpu = common_cpu
        self.secs = common_secs
        self.nsecs = common_nsecs
        self.pid = common_pid
        self.comm = common_comm
        self.callchain = common_callchain

    def ts(self):
        return self.secs * 1000000000 + self.nsecs

    def ts_format(self):
        return "%d.%d" % (self.secs, int(self.nsecs / 1000))
