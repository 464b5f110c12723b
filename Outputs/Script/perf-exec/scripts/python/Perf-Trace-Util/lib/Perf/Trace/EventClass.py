# EventClass.py: the sample classes perf's Python scripts import ("from
# EventClass import *"), Tracer's own implementation for `tracestore
# script` (docs/script.md): create_event() makes a PerfEvent of a sample,
# or, by the size of its raw bytes, the PEBS record it holds (144 bytes:
# the registers; 176: with the load latency fields after them).

import struct

EVTYPE_GENERIC = 0
EVTYPE_PEBS = 1         # a PEBS record
EVTYPE_PEBS_LL = 2      # a PEBS record with load latency
EVTYPE_IBS = 3

_PEBS_SIZE = 144
_PEBS_LL_SIZE = 176


def create_event(name, comm, dso, symbol, raw_buf):
    if len(raw_buf) == _PEBS_SIZE:
        return PebsEvent(name, comm, dso, symbol, raw_buf)
    if len(raw_buf) == _PEBS_LL_SIZE:
        return PebsNHM(name, comm, dso, symbol, raw_buf)
    return PerfEvent(name, comm, dso, symbol, raw_buf)


class PerfEvent(object):
    event_num = 0

    def __init__(self, name, comm, dso, symbol, raw_buf,
                 ev_type=EVTYPE_GENERIC):
        self.name = name
        self.comm = comm
        self.dso = dso
        self.symbol = symbol
        self.raw_buf = raw_buf
        self.ev_type = ev_type
        PerfEvent.event_num += 1

    def show(self):
        print("PMU event: name=%12s, symbol=%24s, comm=%8s, dso=%12s" %
              (self.name, self.symbol, self.comm, self.dso))


class PebsEvent(PerfEvent):
    pebs_num = 0
    _REGS = ("flags", "ip", "ax", "bx", "cx", "dx", "si", "di", "bp", "sp")

    def __init__(self, name, comm, dso, symbol, raw_buf,
                 ev_type=EVTYPE_PEBS):
        for reg, value in zip(self._REGS, struct.unpack_from("10Q", raw_buf)):
            setattr(self, reg, value)
        PerfEvent.__init__(self, name, comm, dso, symbol, raw_buf, ev_type)
        PebsEvent.pebs_num += 1


class PebsNHM(PebsEvent):
    pebs_nhm_num = 0

    def __init__(self, name, comm, dso, symbol, raw_buf,
                 ev_type=EVTYPE_PEBS_LL):
        (self.status, self.dla, self.dse,
         self.lat) = struct.unpack_from("4Q", raw_buf, _PEBS_SIZE)
        PebsEvent.__init__(self, name, comm, dso, symbol, raw_buf, ev_type)
        PebsNHM.pebs_nhm_num += 1
