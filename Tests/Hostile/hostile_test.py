#!/usr/bin/env python3
"""Hostile stores in SQL: crafted sessions, opened every way a user can.

Each case imports a session from committed samples (Tests/Data), damages
it in one way (a lying count, a descriptor outside the record, a string id
out of range, a cycle of parent ids, a store file that is a FIFO...), and
then opens it

  - in SQLite through the extension (HostileQuery: tracestore_attach and a
    fixed list of queries: SELECT * with LIMIT, count(*), ts ranges pushed
    down and not, ORDER BY ts, joins, every view, store_info),
  - in the sqlite3 shell (.load, attach, store_info),
  - with `tracestore info`, `tracestore info --json` and `tracestore sql`.

A case expects either an error, whose message must name the damaged file
(and the byte offset, where one field is to blame), or results.  Results
are compared with an oracle: this file reads the store format itself
(TraceStore.h's layout, nothing of the C code) and computes what each
query must return.  Queries the oracle does not model (the views built on
the args parser, the kvm and page-fault summaries) must return what they
return on the undamaged session when the damage is elsewhere, and
otherwise either succeed or fail naming a file.  In every case: no signal,
no sanitizer report, no hang (each query runs under an alarm, each
command under a timeout).

The extension and the command used are test builds whose read-only
mappings are followed by inaccessible memory (FencedMappings.c), so that a read
past the end of a store file faults instead of reading the next file.

  hostile_test.py --list                      the case names
  hostile_test.py [paths...] CASE             run one case
"""
import argparse
import glob
import json
import math
import mmap
import os
import shutil
import stat
import struct
import subprocess
import sys

# ---------------------------------------------------------------------------
# The store format (TraceStore.h), read independently of the C code.

HEADER_SIZE = 4096
STORE_MAGIC = 0x3145524F54535254
SLOT_OFFSET = 128
SLOT_SIZE = 64
COLUMN_OFFSET = 256
COLUMN_SIZE = 128
NO_COLUMN = 0xffffffff
SORTED = 1
# Column types and flags.
INT32, UINT32, INT64, UINT64, UINT16, UINT8, DOUBLE = 1, 2, 3, 4, 5, 6, 7
STRING_ID, TIMESTAMP, NULLABLE = 0x1, 0x2, 0x8
STRING_NULL = 0xffffffff
# Header field offsets.
H_VERSION, H_HEADER_SIZE, H_RECORD_SIZE, H_COLUMNS = 8, 12, 16, 20
H_TS_COLUMN, H_NAME, H_CHECKSUM = 28, 32, 120
# Slot field offsets.
S_SEQUENCE, S_COUNT, S_CAPACITY, S_FIRST, S_LAST, S_FLAGS = 0, 8, 16, 32, 40, 48
S_CHECKSUM = 56
# Descriptor field offsets.
C_TYPE, C_OFFSET, C_WIDTH, C_FLAGS, C_DESCRIPTION = 32, 36, 40, 44, 48
# Session header.
SESSION_FILE = "session.tracer"
SS_STORE_VERSION = 12

EVENT_STORES = ["ftrace_event", "page_fault", "kvm_exit", "sched_switch",
                "span", "counter"]


class BadString(Exception):
    """A record refers to a string the string store cannot give."""


def cstr(b):
    return b.split(b"\0", 1)[0].decode("latin-1")


class Column:
    def __init__(self, raw, index):
        self.index = index
        self.name = cstr(raw[0:32])
        (self.type, self.offset, self.width,
         self.flags) = struct.unpack_from("<IIII", raw, 32)


class Store:
    """One store file: header, slots, records."""

    def __init__(self, path, bad_slots=()):
        self.path = path
        with open(path, "rb") as f:
            # Mapped, not read: a case makes a 256 GiB sparse store.
            self.data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        d = self.data
        (self.magic, self.version, self.header_size, self.record_size,
         self.ncolumns, _, self.ts_column) = struct.unpack_from("<QIIIIII", d, 0)
        self.name = cstr(d[H_NAME:H_NAME + 32])
        self.columns = [Column(d[COLUMN_OFFSET + i * COLUMN_SIZE:
                                 COLUMN_OFFSET + (i + 1) * COLUMN_SIZE], i)
                        for i in range(self.ncolumns)]
        self.slots = []
        for i in range(2):
            o = SLOT_OFFSET + i * SLOT_SIZE
            seq, count, cap, gen, rep, first, last, flags, dropped = \
                struct.unpack_from("<QQQIIqqII", d, o)
            valid = seq != 0 and (seq & 1) == i and i not in bad_slots
            self.slots.append(dict(seq=seq, count=count, capacity=cap,
                                   generation=gen, repaired=rep, first=first,
                                   last=last, flags=flags, dropped=dropped,
                                   valid=valid))
        valid = [s for s in self.slots if s["valid"]]
        assert valid, "oracle: no valid slot in " + path
        self.slot = max(valid, key=lambda s: s["seq"])
        self.count = self.slot["count"]
        assert HEADER_SIZE + self.count * self.record_size <= len(d), \
            "oracle: count beyond the file"

    def column(self, name):
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def has_ts(self):
        """The extension's ts column: the header's, if int64, not NULL-able
        and not a string id."""
        if self.ts_column >= len(self.columns):
            return None
        c = self.columns[self.ts_column]
        if c.type == INT64 and not c.flags & (NULLABLE | STRING_ID):
            return c
        return None

    def raw(self, i, c):
        o = HEADER_SIZE + i * self.record_size + c.offset
        fmt = {INT32: "<i", UINT32: "<I", INT64: "<q", UINT64: "<Q",
               UINT16: "<H", UINT8: "<B", DOUBLE: "<Q"}[c.type]
        return struct.unpack_from(fmt, self.data, o)[0]

    def value(self, i, c, strings):
        v = self.raw(i, c)
        ones = {INT32: -1, UINT32: 0xffffffff, INT64: -1,
                UINT64: 0xffffffffffffffff, UINT16: 0xffff, UINT8: 0xff,
                DOUBLE: 0xffffffffffffffff}[c.type]
        if c.flags & NULLABLE and v == ones:
            return None
        if c.flags & STRING_ID:
            if v == STRING_NULL:
                return None
            return strings.text(v, self, i, c)
        if c.type == DOUBLE:
            r = struct.unpack("<d", struct.pack("<Q", v))[0]
            return None if math.isnan(r) else r
        if c.type == UINT64 and v >= 1 << 63:
            v -= 1 << 64      # the int64 with the same bits
        return v

    def ts(self, i):
        return self.raw(i, self.has_ts())


class Strings:
    def __init__(self, index, data):
        self.index = index
        self.data = data

    def text(self, sid, store=None, row=None, col=None):
        ix, dt = self.index, self.data
        where = "%s row %s" % (store.name if store else "?", row)
        if sid >= ix.count:
            raise BadString("string id %d beyond %d (%s)" % (sid, ix.count, where))
        off, length, _ = struct.unpack_from("<QII", ix.data,
                                            HEADER_SIZE + sid * 16)
        if length > 1 << 20 or off > dt.count or dt.count - off < length + 1:
            raise BadString("string %d outside string_data (%s)" % (sid, where))
        b = dt.data[HEADER_SIZE + off:HEADER_SIZE + off + length + 1]
        if b[-1:] != b"\0":
            raise BadString("string %d has no terminator (%s)" % (sid, where))
        return b[:-1].decode("latin-1")


class Session:
    def __init__(self, path, bad_slots=None):
        bad_slots = bad_slots or {}
        self.path = path
        self.stores = {}
        for f in sorted(os.listdir(path)):
            if f.endswith(".store") and 0 < len(f) - 6 < 32:
                s = Store(os.path.join(path, f), bad_slots.get(f[:-6], ()))
                self.stores[s.name] = s
        self.strings = Strings(self.stores.pop("string"),
                               self.stores.pop("string_data"))

    def tables(self):
        return sorted(self.stores)

    def row(self, store, i):
        """A row as SELECT * returns it: id first unless a column is
        called id."""
        vals = [store.value(i, c, self.strings) for c in store.columns]
        if any(c.name.lower() == "id" for c in store.columns):
            return vals
        return [i] + vals

    def store_info(self):
        rows = []
        every = dict(self.stores)
        every["string"] = self.strings.index
        every["string_data"] = self.strings.data
        for name in sorted(every):
            s = every[name]
            sl = s.slot
            has_ts = s.count > 0 and s.ts_column != NO_COLUMN
            rows.append([name, s.count, s.header_size + s.count * s.record_size,
                         s.record_size, sl["generation"],
                         sl["first"] if has_ts else None,
                         sl["last"] if has_ts else None,
                         (1 if sl["flags"] & SORTED else 0)
                         if s.ts_column != NO_COLUMN else None,
                         sl["dropped"], sl["repaired"]])
        return rows


# ---------------------------------------------------------------------------
# Queries and their oracle.  Built from the undamaged session, so that the
# damaged one runs exactly the same SQL.

class Query:
    def __init__(self, name, sql, stores, oracle=None, full_scan=(),
                 ordered=False):
        self.name = name
        self.ordered = ordered          # compare rows in order
        self.sql = sql
        self.stores = set(stores)       # stores the result depends on
        self.oracle = oracle            # f(Session) -> rows, or None
        self.full_scan = set(full_scan)  # stores it reads whole


def sum_or_none(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) if xs else None


def build_queries(base):
    q = []
    q.append(Query("store_info",
                   "SELECT name, records, bytes, record_size, generation, "
                   "first_ts, last_ts, sorted, dropped, repaired "
                   "FROM store_info ORDER BY name",
                   list(base.stores) + ["string", "string_data"],
                   lambda s: s.store_info(), ordered=True))
    for t in base.tables():
        st = base.stores[t]
        q.append(Query("limit_" + t, "SELECT * FROM %s LIMIT 5" % t, [t],
                       lambda s, t=t: [s.row(s.stores[t], i)
                                       for i in range(min(5, s.stores[t].count))],
                       ordered=True))
        q.append(Query("count_" + t, "SELECT count(*) FROM %s" % t, [t],
                       lambda s, t=t: [[s.stores[t].count]], full_scan=[t]))
        q.append(Query("last_" + t,
                       "SELECT * FROM %s ORDER BY rowid DESC LIMIT 1" % t, [t],
                       lambda s, t=t: [s.row(s.stores[t], s.stores[t].count - 1)]
                       if s.stores[t].count else []))
        tc = st.has_ts()
        if tc is None or st.count == 0:
            continue
        ts = sorted(st.ts(i) for i in range(st.count))
        lo, hi = ts[len(ts) // 4], ts[(3 * len(ts)) // 4]

        def in_range(s, t=t, lo=lo, hi=hi):
            x = s.stores[t]
            ids = [i for i in range(x.count) if lo <= x.ts(i) <= hi]
            return [[len(ids), min(ids) if ids else None,
                     max(ids) if ids else None,
                     sum(x.ts(i) for i in ids) if ids else None]]
        c = tc.name
        q.append(Query("tsrange_" + t,
                       "SELECT count(*), min(rowid), max(rowid), sum(%s) "
                       "FROM %s WHERE %s BETWEEN %d AND %d" % (c, t, c, lo, hi),
                       [t], in_range))
        q.append(Query("tsrange_nopush_" + t,
                       "SELECT count(*), min(rowid), max(rowid), sum(%s) "
                       "FROM %s WHERE +%s BETWEEN %d AND %d" % (c, t, c, lo, hi),
                       [t], in_range, full_scan=[t]))
        def by_ts(s, t=t, reverse=False):
            x = s.stores[t]
            return sorted(([i, x.ts(i)] for i in range(x.count)),
                          key=lambda r: (r[1], r[0]), reverse=reverse)[:10]
        q.append(Query("order_" + t,
                       "SELECT rowid, %s FROM %s ORDER BY %s, rowid LIMIT 10"
                       % (c, t, c), [t], by_ts, full_scan=[t], ordered=True))
        q.append(Query("order_desc_" + t,
                       "SELECT rowid, %s FROM %s ORDER BY %s DESC, rowid DESC "
                       "LIMIT 10" % (c, t, c), [t],
                       lambda s, f=by_ts: f(s, reverse=True),
                       full_scan=[t], ordered=True))

    events = [t for t in EVENT_STORES if t in base.stores]

    def event_summary(s):
        ts = [s.stores[t].ts(i) for t in events
              for i in range(s.stores[t].count)]
        return [[len(ts), min(ts) if ts else None, max(ts) if ts else None]]

    def event_first(s):
        rows = [[s.stores[t].ts(i), t, i] for t in events
                for i in range(s.stores[t].count)]
        return sorted(rows)[:10]
    q.append(Query("view_event", "SELECT count(*), min(ts), max(ts) FROM event",
                   events, event_summary, full_scan=events))
    q.append(Query("view_event_order",
                   "SELECT ts, store, id FROM event ORDER BY ts, store, id "
                   "LIMIT 10", events, event_first, full_scan=events,
                   ordered=True))
    q.append(Query("view_event_names",
                   "SELECT name, count(*) FROM event GROUP BY name "
                   "ORDER BY 2 DESC, 1 LIMIT 20", events, full_scan=events))
    if "ftrace_event" in base.stores:
        q.append(Query("view_args", "SELECT * FROM args WHERE arg_set_id < 40",
                       ["ftrace_event"]))
        q.append(Query("view_syscall_counts", "SELECT * FROM syscall_counts",
                       ["ftrace_event"], full_scan=["ftrace_event"]))
    if "kvm_exit" in base.stores:
        q.append(Query("view_kvm_exit_reasons", "SELECT * FROM kvm_exit_reasons",
                       ["kvm_exit"], full_scan=["kvm_exit"]))
    if "page_fault" in base.stores:
        q.append(Query("view_page_fault_summary",
                       "SELECT * FROM page_fault_summary", ["page_fault"],
                       full_scan=["page_fault"]))
    if "span" in base.stores:
        q.append(Query("view_span_self_time", "SELECT * FROM span_self_time",
                       ["span"], span_self_time, full_scan=["span"]))
        q.append(Query("join_span_parent",
                       "SELECT count(*), sum(p.dur) FROM span s "
                       "JOIN span p ON p.id = s.parent_id", ["span"],
                       span_parent_join, full_scan=["span"]))
        q.append(Query("recursive_span_ancestors",
                       "WITH RECURSIVE anc(start, node) AS ("
                       "SELECT id, parent_id FROM span "
                       "WHERE parent_id IS NOT NULL "
                       "UNION SELECT a.start, s.parent_id FROM anc a "
                       "JOIN span s ON s.id = a.node "
                       "WHERE s.parent_id IS NOT NULL) "
                       "SELECT count(*), count(DISTINCT start) FROM anc",
                       ["span"], span_ancestors, full_scan=["span"]))
    if "page_fault" in base.stores and "thread" in base.stores:
        q.append(Query("join_fault_thread",
                       "SELECT count(*) FROM page_fault f "
                       "JOIN thread t ON t.tid = f.tid",
                       ["page_fault", "thread"],
                       lambda s: equijoin(s, "page_fault", "tid", "thread", "tid"),
                       full_scan=["page_fault", "thread"]))
    if "kvm_exit" in base.stores and "ftrace_event" in base.stores:
        q.append(Query("join_kvm_ftrace_time",
                       "SELECT count(*) FROM kvm_exit k JOIN ftrace_event e "
                       "ON e.ts BETWEEN k.ts AND k.ts + 1000000",
                       ["kvm_exit", "ftrace_event"], kvm_ftrace_join,
                       full_scan=["kvm_exit", "ftrace_event"]))
    return q


def col_values(s, t, name):
    st = s.stores[t]
    c = st.column(name)
    return [st.value(i, c, s.strings) for i in range(st.count)]


def equijoin(s, t1, c1, t2, c2):
    right = {}
    for v in col_values(s, t2, c2):
        if v is not None:
            right[v] = right.get(v, 0) + 1
    return [[sum(right.get(v, 0) for v in col_values(s, t1, c1)
                 if v is not None)]]


def kvm_ftrace_join(s):
    k, e = s.stores["kvm_exit"], s.stores["ftrace_event"]
    ets = sorted(e.ts(i) for i in range(e.count))
    n = 0
    for i in range(k.count):
        t = k.ts(i)
        n += sum(1 for x in ets if t <= x <= t + 1000000)
    return [[n]]


def spans(s, fields=("name", "dur", "parent_id", "depth")):
    st = s.stores["span"]
    cols = {c.name: c for c in st.columns}
    out = []
    for i in range(st.count):
        out.append({k: st.value(i, cols[k], s.strings) for k in fields})
    return out


def span_parent_join(s):
    sp = spans(s, ("dur", "parent_id"))
    durs = [sp[x["parent_id"]]["dur"] for x in sp
            if x["parent_id"] is not None and 0 <= x["parent_id"] < len(sp)]
    return [[len(durs), sum_or_none(durs)]]


def span_ancestors(s):
    sp = spans(s, ("parent_id",))
    pairs = set()
    for i, x in enumerate(sp):
        node = x["parent_id"]
        seen = set()
        while node is not None and node not in seen:
            seen.add(node)
            pairs.add((i, node))
            node = sp[node]["parent_id"] if 0 <= node < len(sp) else None
    return [[len(pairs), len({p[0] for p in pairs})]]


def span_self_time(s):
    """span_self_time as docs/sql.md defines it: self = total dur of a name
    minus the dur of the direct children of its calls."""
    sp = spans(s)
    child = {}
    for x in sp:
        p = x["parent_id"]
        if p is not None:
            child.setdefault(p, []).append(x["dur"])
    by_parent = {}
    for p, durs in child.items():
        if 0 <= p < len(sp):
            by_parent.setdefault(sp[p]["name"], []).append(sum_or_none(durs))
    groups = {}
    for x in sp:
        groups.setdefault(x["name"], []).append(x)
    rows = []
    for name, xs in groups.items():
        durs = [x["dur"] for x in xs]
        total = sum_or_none(durs)
        b = sum_or_none(by_parent.get(name, []))
        nn = [d for d in durs if d is not None]
        rows.append([name, len(xs), total,
                     None if total is None else total - (b or 0),
                     sum(nn) / len(nn) if nn else None,
                     max(nn) if nn else None,
                     min(x["depth"] for x in xs), max(x["depth"] for x in xs)])
    return rows


# ---------------------------------------------------------------------------
# Damage.

def read_at(path, offset, fmt):
    with open(path, "rb") as f:
        f.seek(offset)
        return struct.unpack(fmt, f.read(struct.calcsize(fmt)))[0]


def write_at(path, offset, fmt, value):
    with open(path, "r+b") as f:
        f.seek(offset)
        if isinstance(value, (bytes, bytearray)):
            f.write(value)
        else:
            f.write(struct.pack(fmt, value))


class Damage:
    """Edits of one session directory; seal() recomputes checksums."""

    def __init__(self, ctx, session):
        self.ctx = ctx
        self.dir = session

    def path(self, store):
        return os.path.join(self.dir, store + ".store")

    def seal(self, store, *args):
        subprocess.run([self.ctx.seal] + list(args) + [self.path(store)],
                       check=True)

    def header(self, store, offset, fmt, value, seal=True):
        write_at(self.path(store), offset, fmt, value)
        if seal:
            self.seal(store, "--header")

    def slots(self, store, offset, fmt, value, which=(0, 1), seal=True):
        for i in which:
            write_at(self.path(store), SLOT_OFFSET + i * SLOT_SIZE + offset,
                     fmt, value)
            if seal:
                self.seal(store, "--slot", str(i))

    def slot_value(self, store, offset, fmt, which=0):
        return read_at(self.path(store), SLOT_OFFSET + which * SLOT_SIZE + offset,
                       fmt)

    def column_index(self, store, name):
        s = Store(self.path(store))
        return s.column(name).index

    def descriptor(self, store, name, offset, fmt, value, seal=True):
        i = self.column_index(store, name)
        self.header(store, COLUMN_OFFSET + i * COLUMN_SIZE + offset, fmt, value,
                    seal)

    def record(self, store, row, name, value):
        s = Store(self.path(store))
        c = s.column(name)
        fmt = {INT32: "<i", UINT32: "<I", INT64: "<q", UINT64: "<Q",
               UINT16: "<H", UINT8: "<B", DOUBLE: "<d"}[c.type]
        write_at(self.path(store), HEADER_SIZE + row * s.record_size + c.offset,
                 fmt, value)

    def replace(self, store, kind):
        p = self.path(store)
        os.unlink(p)
        if kind == "directory":
            os.mkdir(p)
        elif kind == "fifo":
            os.mkfifo(p)
        elif kind == "dangling":
            os.symlink("no-such-file.store", p)
        elif kind == "loop":
            os.symlink(os.path.basename(p), p)
        elif kind == "empty":
            open(p, "wb").close()

    def string_of(self, store, row, column):
        """The string id column `column` of `row` holds."""
        s = Store(self.path(store))
        return s.raw(row, s.column(column))


# ---------------------------------------------------------------------------
# Cases: name -> (damage function, expectation).  An expectation is either
# Error(file, phrases) or Ok(touched stores, strict).

class Error:
    def __init__(self, file, *phrases, sql_only=False):
        self.file = file
        self.phrases = phrases
        # Only SQL is refused (a name clash); tracestore info must work.
        self.sql_only = sql_only


class Ok:
    def __init__(self, touched=(), strict=True, skip_full_scan=(),
                 bad_slots=None, bad_strings=False, lies=False, extra=(),
                 session_name="session", note=""):
        self.touched = set(touched)
        self.extra = list(extra)        # more Query objects for this case
        self.session_name = session_name  # directory name of the session
        # The commit slot misdescribes the records (sorted flag, first or
        # last ts).  Push-down trusts the slot to find rows, and checks
        # each row it hands out: a query gives the oracle's answer, or
        # fails when a row contradicts the slot, or (when the slot hid
        # rows from the search) a sound part of the answer: rows that
        # satisfy the query, in order.  See sound_part().
        self.lies = lies
        # Records refer to strings that do not resolve: a query reading
        # them (SQLite may read columns it does not return) must fail
        # with an error naming the record's file and byte offset.
        self.bad_strings = bad_strings
        self.strict = strict            # compare with the oracle
        self.skip_full_scan = set(skip_full_scan)
        self.bad_slots = bad_slots or {}
        self.note = note


CASES = {}


def case(name, expect):
    def register(f):
        CASES[name] = (f, expect)
        return f
    return register


def slot_error(file):
    # The count field of the slot read: 128 + 64 * slot + 8.
    return Error(file, "corrupt commit slot",
                 ("byte offset 136", "byte offset 200"))


# --- Counts in the commit slots.

@case("slot_count_huge", slot_error("page_fault.store"))
def _(d):
    d.slots("page_fault", S_CAPACITY, "<Q", 2**64 - 1)
    d.slots("page_fault", S_COUNT, "<Q", 2**63)


@case("slot_count_beyond_file",
      Error("page_fault.store", "beyond the end of the file"))
def _(d):
    n = (os.path.getsize(d.path("page_fault")) - HEADER_SIZE) // 88 + 1
    d.slots("page_fault", S_CAPACITY, "<Q", n)
    d.slots("page_fault", S_COUNT, "<Q", n)


@case("slot_count_times_size_wraps", slot_error("page_fault.store"))
def _(d):
    # 2^61 records of 88 bytes: 11 * 2^64 bytes, 0 in 64-bit arithmetic.
    d.slots("page_fault", S_CAPACITY, "<Q", 2**61)
    d.slots("page_fault", S_COUNT, "<Q", 2**61)


@case("slot_string_count_wraps", slot_error("string.store"))
def _(d):
    # 2^60 strings of 16 bytes: 2^64 bytes.
    d.slots("string", S_CAPACITY, "<Q", 2**60)
    d.slots("string", S_COUNT, "<Q", 2**60)


@case("slot_capacity_huge", Ok(touched=["page_fault"]))
def _(d):
    d.slots("page_fault", S_CAPACITY, "<Q", 2**64 - 1)


@case("slot_count_zero", Ok(touched=["page_fault"]))
def _(d):
    # A store whose records are not committed yet: empty, and the views
    # over it still work.
    d.slots("page_fault", S_COUNT, "<Q", 0)


# --- Record sizes.

@case("record_size_4096", Error("page_fault.store", "beyond the end of the file"))
def _(d):
    d.header("page_fault", H_RECORD_SIZE, "<I", 4096)


@case("record_size_zero", Error("page_fault.store", "corrupt store header",
                                "record size 0", "byte offset 16"))
def _(d):
    d.header("page_fault", H_RECORD_SIZE, "<I", 0)


@case("record_size_huge", Error("page_fault.store", "corrupt store header",
                                "record size 4294967295", "byte offset 16"))
def _(d):
    d.header("page_fault", H_RECORD_SIZE, "<I", 0xffffffff)


@case("header_size_bad", Error("page_fault.store", "corrupt store header",
                               "header size 8192", "byte offset 12"))
def _(d):
    d.header("page_fault", H_HEADER_SIZE, "<I", 8192)


# --- Column descriptors.

def descriptor_error(store, index, *phrases):
    return Error(store + ".store", "byte offset %d" % (COLUMN_OFFSET +
                                                         index * COLUMN_SIZE),
                 *phrases)


@case("column_offset_outside",
      descriptor_error("page_fault", 2, "column 'ip' ends at byte 92"))
def _(d):
    # page_fault records are 88 bytes: an 8-byte column at 84 ends past.
    d.descriptor("page_fault", "ip", C_OFFSET, "<I", 84)


@case("column_offset_wraps",
      descriptor_error("page_fault", 0, "column 'ts' ends at byte 4294967300"))
def _(d):
    d.descriptor("page_fault", "ts", C_OFFSET, "<I", 0xfffffffc)


@case("column_width_wrong",
      descriptor_error("page_fault", 0, "corrupt column descriptor 0"))
def _(d):
    d.descriptor("page_fault", "ts", C_WIDTH, "<I", 16)


@case("column_type_bad",
      descriptor_error("span", 3, "corrupt column descriptor 3"))
def _(d):
    d.descriptor("span", "name", C_TYPE, "<I", 200)


@case("column_flags_bad",
      descriptor_error("span", 2, "corrupt column descriptor 2"))
def _(d):
    d.descriptor("span", "parent_id", C_FLAGS, "<I", 0x100)


@case("column_string_flag_on_int64",
      descriptor_error("span", 2, "corrupt column descriptor 2"))
def _(d):
    d.descriptor("span", "parent_id", C_FLAGS, "<I", STRING_ID)


@case("column_name_unterminated",
      descriptor_error("span", 0, "corrupt column descriptor 0"))
def _(d):
    d.descriptor("span", "ts", 0, None, b"T" * 32)


@case("columns_count_huge", Error("page_fault.store", "corrupt store header",
                                  "4294967295 columns", "byte offset 20"))
def _(d):
    d.header("page_fault", H_COLUMNS, "<I", 0xffffffff)


@case("columns_count_zero", Error("page_fault.store", "corrupt store header",
                                  "0 columns", "byte offset 20"))
def _(d):
    d.header("page_fault", H_COLUMNS, "<I", 0)


@case("timestamp_column_out_of_range",
      Error("page_fault.store", "timestamp column 29", "byte offset 28"))
def _(d):
    d.header("page_fault", H_TS_COLUMN, "<I", 29)


@case("timestamp_column_not_ts",
      Error("page_fault.store", "timestamp column 1", "byte offset 28"))
def _(d):
    d.header("page_fault", H_TS_COLUMN, "<I", 1)


@case("column_duplicate_name",
      Error("page_fault.store", "duplicate column name", "byte offset 1280",
            sql_only=True))
def _(d):
    # comm (column 8, byte 256 + 8 * 128) renamed to name, column 5's name.
    d.descriptor("page_fault", "comm", 0, None, b"name".ljust(32, b"\0"))


@case("column_extra_alias", Ok(touched=["ftrace_event"]))
def _(d):
    # One more column over bytes another one has: a schema this build does
    # not know, which is still a valid store.
    p = d.path("ftrace_event")
    s = Store(p)
    src = s.column("cpu")
    with open(p, "rb") as f:
        f.seek(COLUMN_OFFSET + src.index * COLUMN_SIZE)
        raw = bytearray(f.read(COLUMN_SIZE))
    raw[0:32] = b"cpu_again".ljust(32, b"\0")
    d.header("ftrace_event", COLUMN_OFFSET + s.ncolumns * COLUMN_SIZE, None,
             bytes(raw), seal=False)
    d.header("ftrace_event", H_COLUMNS, "<I", s.ncolumns + 1)


@case("column_named_id", Ok(touched=["thread"]))
def _(d):
    # A store column called id takes the place of the rowid column.
    d.descriptor("thread", "pid", 0, None, b"id".ljust(32, b"\0"))


@case("span_without_parent_id",
      Error("span.store", "span_self_time", "no such column: parent_id",
            sql_only=True))
def _(d):
    d.descriptor("span", "parent_id", 0, None, b"parent".ljust(32, b"\0"))


# --- Header checks.

@case("store_name_unterminated",
      Error("page_fault.store", "corrupt store header", "bad store name",
            "byte offset 32"))
def _(d):
    d.header("page_fault", H_NAME, None, b"P" * 32)


@case("store_name_mismatch", Error("page_fault.store", "names 'kvm_exit'"))
def _(d):
    d.header("page_fault", H_NAME, None, b"kvm_exit".ljust(32, b"\0"))


@case("header_checksum_bad",
      Error("page_fault.store", "checksum mismatch", "byte offset 120"))
def _(d):
    d.descriptor("page_fault", "ts", C_DESCRIPTION, None, b"X", seal=False)


@case("store_version_old", Error("page_fault.store", "version 1",
                                 "byte offset 8"))
def _(d):
    d.header("page_fault", H_VERSION, "<I", 1)


@case("store_version_new", Error("span.store", "version 3", "byte offset 8"))
def _(d):
    d.header("span", H_VERSION, "<I", 3)


@case("bad_magic", Error("counter.store", "bad magic", "byte offset 0"))
def _(d):
    d.header("counter", 0, "<Q", 0x4141414141414141)


# --- Commit slots.

@case("slots_bad_checksum",
      Error("page_fault.store", "no valid commit slot", "byte offset 128"))
def _(d):
    for i in range(2):
        c = d.slot_value("page_fault", S_CHECKSUM, "<Q", i)
        d.slots("page_fault", S_CHECKSUM, "<Q", c ^ 1, which=[i], seal=False)


@case("slots_unwritten",
      Error("span.store", "no valid commit slot", "byte offset 128"))
def _(d):
    d.slots("span", S_SEQUENCE, "<Q", 0)


@case("slots_wrong_parity",
      Error("page_fault.store", "no valid commit slot", "byte offset 128"))
def _(d):
    # Each slot holds a sequence of the other's parity.
    d.slots("page_fault", S_SEQUENCE, "<Q", 7, which=[0])
    d.slots("page_fault", S_SEQUENCE, "<Q", 8, which=[1])


def newer_slot(d, store):
    return 0 if d.slot_value(store, S_SEQUENCE, "<Q", 0) > \
        d.slot_value(store, S_SEQUENCE, "<Q", 1) else 1


@case("slot_newer_bad_checksum",
      Ok(touched=["ftrace_event"], bad_slots={"ftrace_event": "newer"}))
def _(d):
    # The older commit is used: what a reader sees while a commit is torn.
    i = newer_slot(d, "ftrace_event")
    c = d.slot_value("ftrace_event", S_CHECKSUM, "<Q", i)
    d.slots("ftrace_event", S_CHECKSUM, "<Q", c ^ 1, which=[i], seal=False)


# --- Files cut short, replaced, missing.

@case("truncated_records",
      Error("page_fault.store", "beyond the end of the file"))
def _(d):
    os.truncate(d.path("page_fault"), 8192)


@case("truncated_mid_record",
      Error("sched_switch.store", "beyond the end of the file"))
def _(d):
    os.truncate(d.path("sched_switch"), HEADER_SIZE + 10 * 40 + 7)


@case("truncated_header", Error("span.store", "truncated store header"))
def _(d):
    os.truncate(d.path("span"), HEADER_SIZE - 1)


@case("store_empty_file", Error("kvm_exit.store", "truncated store header"))
def _(d):
    d.replace("kvm_exit", "empty")


@case("store_is_directory", Error("page_fault.store", "directory"))
def _(d):
    d.replace("page_fault", "directory")


@case("store_is_fifo", Error("page_fault.store", "not a regular file"))
def _(d):
    d.replace("page_fault", "fifo")


@case("store_dangling_symlink", Error("page_fault.store", "no such file"))
def _(d):
    d.replace("page_fault", "dangling")


@case("store_symlink_loop", Error("page_fault.store", "cannot open"))
def _(d):
    d.replace("page_fault", "loop")


@case("too_many_stores", Error("more than 32 stores"))
def _(d):
    src = d.path("process")
    for i in range(40):
        name = "extra%02d" % i
        shutil.copyfile(src, d.path(name))
        d.header(name, H_NAME, None, name.encode().ljust(32, b"\0"))


@case("store_named_like_a_view",
      Error("args.store", "would take the name of the view args",
            sql_only=True))
def _(d):
    # A store whose table would take the name of a view.
    shutil.copyfile(d.path("process"), d.path("args"))
    d.header("args", H_NAME, None, b"args".ljust(32, b"\0"))


@case("store_named_store_info",
      Error("store_info.store", "would take the name of the table store_info",
            sql_only=True))
def _(d):
    shutil.copyfile(d.path("process"), d.path("store_info"))
    d.header("store_info", H_NAME, None, b"store_info".ljust(32, b"\0"))


@case("store_named_sqlite_reserved",
      Error("sqlite_stat1.store", "SQLite keeps names beginning with sqlite_",
            sql_only=True))
def _(d):
    shutil.copyfile(d.path("process"), d.path("sqlite_stat1"))
    d.header("sqlite_stat1", H_NAME, None, b"sqlite_stat1".ljust(32, b"\0"))


ODD_NAMES = ['we"ird name', "tick`s", "semi;colon", "new\nline", "caf\xe9"]


def odd_name_query(n):
    q = '"%s"' % n.replace('"', '""')
    return Query("odd_" + n.encode("unicode_escape").decode(),
                 "SELECT count(*), min(pid), max(name) FROM %s" % q, [n],
                 lambda s, n=n: [[s.stores[n].count,
                                  min(col_values(s, n, "pid")),
                                  max(col_values(s, n, "name"))]])


@case("store_names_odd", Ok(touched=ODD_NAMES,
                            extra=[odd_name_query(n) for n in ODD_NAMES]))
def _(d):
    # Store files named with quotes, a semicolon, a newline, a byte that is
    # not UTF-8: tables with those names, quoted where SQL needs it.
    for n in ODD_NAMES:
        b = n.encode("latin-1")
        p = os.path.join(d.dir, os.fsdecode(b) + ".store")
        shutil.copyfile(d.path("process"), p)
        write_at(p, H_NAME, None, b.ljust(32, b"\0"))
        subprocess.run([d.ctx.seal, p], check=True)


@case("session_path_quoted", Ok(session_name="it's a \"session\"; x"))
def _(d):
    pass            # only the directory name is unusual


@case("session_header_empty", Error("session.tracer", "truncated session header"))
def _(d):
    open(os.path.join(d.dir, SESSION_FILE), "wb").close()


@case("session_header_is_fifo", Error("session.tracer", "not a regular file"))
def _(d):
    p = os.path.join(d.dir, SESSION_FILE)
    os.unlink(p)
    os.mkfifo(p)


@case("session_header_is_directory", Error("session.tracer", "directory"))
def _(d):
    p = os.path.join(d.dir, SESSION_FILE)
    os.unlink(p)
    os.mkdir(p)


@case("session_store_version", Error("session.tracer", "stores 3"))
def _(d):
    p = os.path.join(d.dir, SESSION_FILE)
    write_at(p, SS_STORE_VERSION, "<I", 3)
    subprocess.run([d.ctx.seal, "--session", p], check=True)


# --- Strings.

@case("string_store_missing", Error("string", "no string store"))
def _(d):
    os.unlink(d.path("string"))


@case("string_data_missing", Error("string", "no string store"))
def _(d):
    os.unlink(d.path("string_data"))


@case("string_store_record_size",
      Error("string.store", "byte offset 16", "not the layout of the string store"))
def _(d):
    # 8-byte string records, one column: a header that passes every
    # generic check, in a file holding count * 8 bytes of records.
    n = d.slot_value("string", S_COUNT, "<Q")
    d.header("string", H_COLUMNS, "<I", 1, seal=False)
    d.header("string", H_RECORD_SIZE, "<I", 8)
    os.truncate(d.path("string"), HEADER_SIZE + n * 8)


@case("string_data_record_size",
      Error("string_data.store", "byte offset 16",
            "not the layout of the string_data store"))
def _(d):
    n = (os.path.getsize(d.path("string_data")) - HEADER_SIZE) // 16
    d.header("string_data", H_RECORD_SIZE, "<I", 16)
    d.slots("string_data", S_COUNT, "<Q", n)


@case("string_store_columns_swapped",
      Error("string.store", "byte offset 256", "not the layout of the string store"))
def _(d):
    # The descriptors say length comes first; the core reads a fixed layout.
    d.descriptor("string", "offset", C_OFFSET, "<I", 4, seal=False)
    d.descriptor("string", "length", C_OFFSET, "<I", 0, seal=False)
    d.descriptor("string", "offset", C_TYPE, "<I", UINT32, seal=False)
    d.descriptor("string", "offset", C_WIDTH, "<I", 4)


@case("string_id_out_of_range", Ok(touched=["page_fault", "ftrace_event"],
                                   bad_strings=True))
def _(d):
    n = d.slot_value("string", S_COUNT, "<Q")
    d.record("page_fault", 6, "comm", 0x7fffffff)
    d.record("page_fault", 7, "comm", 0xfffffffe)
    d.record("ftrace_event", 3, "name", n)        # one past the last


@case("string_bytes_out_of_range",
      Ok(touched=["page_fault", "ftrace_event", "sched_switch", "span",
                  "string", "string_data"], bad_strings=True))
def _(d):
    data_count = d.slot_value("string_data", S_COUNT, "<Q")

    def string_record(sid, offset=None, length=None):
        o = HEADER_SIZE + sid * 16
        if offset is not None:
            write_at(d.path("string"), o, "<Q", offset)
        if length is not None:
            write_at(d.path("string"), o + 8, "<I", length)
    string_record(d.string_of("page_fault", 0, "comm"), offset=2**63)
    string_record(d.string_of("ftrace_event", 0, "name"), length=(1 << 20) + 1)
    string_record(d.string_of("sched_switch", 0, "prev_state"),
                  offset=data_count - 2, length=10)
    # The NUL after a span name, overwritten.
    sid = d.string_of("span", 0, "name")
    off, length = struct.unpack_from(
        "<QI", open(d.path("string"), "rb").read(), HEADER_SIZE + sid * 16)
    write_at(d.path("string_data"), HEADER_SIZE + off + length, None, b"X")


# --- Parent ids.

@case("span_parent_cycles", Ok(touched=["span"]))
def _(d):
    d.record("span", 1, "parent_id", 2)     # 1 -> 2 -> 1
    d.record("span", 2, "parent_id", 1)
    d.record("span", 3, "parent_id", 3)     # its own parent
    d.record("span", 4, "parent_id", 10**12)  # beyond the store
    d.record("span", 5, "parent_id", -5)    # negative
    d.record("span", 6, "parent_id", 2**62)
    d.record("span", 7, "parent_id", 8)     # 7 -> 8 -> 9 -> 7
    d.record("span", 8, "parent_id", 9)
    d.record("span", 9, "parent_id", 7)


# --- Timestamps.

@case("ts_extremes", Ok(touched=["ftrace_event"]))
def _(d):
    # Honest but extreme data: the slot says what the records hold.
    p = d.path("ftrace_event")
    s = Store(p)
    for row, v in ((0, 2**63 - 1), (5, -2**63), (9, -1), (1500, 0),
                   (s.count - 1, -2**62)):
        d.record("ftrace_event", row, "ts", v)
    s = Store(p)
    ts = [s.ts(i) for i in range(s.count)]
    d.slots("ftrace_event", S_FIRST, "<q", min(ts), seal=False)
    d.slots("ftrace_event", S_LAST, "<q", max(ts), seal=False)
    d.slots("ftrace_event", S_FLAGS, "<I", 0)


@case("sorted_flag_lies", Ok(touched=["ftrace_event"], lies=True))
def _(d):
    s = Store(d.path("ftrace_event"))
    a, b = s.ts(10), s.ts(s.count - 10)
    d.record("ftrace_event", 10, "ts", b)
    d.record("ftrace_event", s.count - 10, "ts", a)


@case("first_last_ts_lie", Ok(touched=["page_fault"], lies=True))
def _(d):
    s = Store(d.path("page_fault"))
    d.slots("page_fault", S_FIRST, "<q", s.ts(100), seal=False)
    d.slots("page_fault", S_LAST, "<q", s.ts(200))


@case("huge_sparse_store", Ok(touched=["page_fault"], strict=False,
                              skip_full_scan=["page_fault"],
                              note="2^32 records, sparse"))
def _(d):
    # A count the file really holds: 2^32 records of 88 bytes, as a sparse
    # file (352 GiB, a few KiB on disk).
    n = 2**32
    os.truncate(d.path("page_fault"), HEADER_SIZE + n * 88)
    d.slots("page_fault", S_CAPACITY, "<Q", n, seal=False)
    d.slots("page_fault", S_COUNT, "<Q", n)


@case("counter_values_odd", Ok(touched=["counter"]))
def _(d):
    for row, v in ((0, float("inf")), (1, float("-inf")), (2, float("nan")),
                   (3, -0.0), (4, 5e-324), (5, 1.7976931348623157e308)):
        d.record("counter", row, "value", v)


# ---------------------------------------------------------------------------
# Running.

SANITIZER = ("AddressSanitizer", "LeakSanitizer", "runtime error:",
             "UndefinedBehaviorSanitizer")


class Failure(Exception):
    pass


def run(ctx, argv, timeout=60, input=None):
    try:
        p = subprocess.run(argv, capture_output=True, timeout=timeout,
                           input=input)
    except subprocess.TimeoutExpired:
        raise Failure("hang: %s did not finish in %d s" % (argv, timeout))
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    for s in SANITIZER:
        if s in err or s in out:
            raise Failure("sanitizer report from %s:\n%s" % (argv, err))
    if p.returncode < 0 or p.returncode >= 128:
        raise Failure("%s died with signal %d:\n%s" %
                      (argv, -p.returncode if p.returncode < 0 else
                       p.returncode - 128, err[-3000:]))
    return p.returncode, out, err


def make_base(ctx, path):
    shutil.rmtree(path, ignore_errors=True)
    for f in ("ftrace-capture-1.txt", "kvm-exit-codes.txt",
              "ftrace-syscalls.txt", "uftrace-mt.data", "perf-stat-percpu.txt"):
        rc, out, err = run(ctx, [ctx.tracestore, "import", "-o", path,
                                 os.path.join(ctx.data, f)])
        if rc != 0:
            raise Failure("import of %s failed: %s" % (f, err))


def run_queries(ctx, session, queries, qfile):
    # Latin-1: a name read from a store as bytes goes back as those bytes.
    with open(qfile, "w", encoding="latin-1") as f:
        for q in queries:
            f.write("-- %s\n%s;\n" % (q.name, q.sql))
    rc, out, err = run(ctx, [ctx.query, ctx.fenced_ext, session, qfile],
                       timeout=60 + 20 * len(queries))
    if rc != 0:
        raise Failure("HostileQuery exited %d: %s" % (rc, err))
    res = {}
    for line in out.splitlines():
        r = json.loads(line)
        res[r["q"]] = r
    return res


def same(a, b):
    """Rows equal, reals to the last bit (both sides decode the same bits)
    except averages, which SQLite sums in another order."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        if math.isinf(a) or math.isinf(b):
            return a == b
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def canonical(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))


def same_rows(q, got, want):
    if q.ordered:
        return same(got, want)
    return same(canonical(got), canonical(want))


def sound_part(q, got, want, model):
    """For a store whose slot lies: got holds only rows the query asked
    for, in its order, though maybe not all of them."""
    if q.name.startswith("order_"):
        t = q.name[len("order_desc_"):] if q.name.startswith("order_desc_") \
            else q.name[len("order_"):]
        x = model.stores[t]
        keys = [(ts, i) for i, ts in got]
        if any(not 0 <= i < x.count or x.ts(i) != ts for i, ts in got):
            return False
        return keys == sorted(keys, reverse=q.name.startswith("order_desc_"))
    if q.name.startswith("tsrange_") and "nopush" not in q.name:
        (n, lo, hi, _), (wn, wlo, whi, _) = got[0], want[0]
        return n <= wn and (n == 0 or (lo >= wlo and hi <= whi))
    if q.name.startswith("join_") and "time" in q.name:
        return got[0][0] <= want[0][0]
    return False


def string_error(msg, session):
    return "string id" in msg and "byte offset" in msg and \
        ".store" in msg and session in msg


def names_file(msg, session):
    return ".store" in msg or SESSION_FILE in msg or session in msg


def check_error_text(text, expect, where):
    """Every phrase must be in text; a tuple is alternatives."""
    missing = [p for p in (expect.file,) + expect.phrases
               if p and not any(a in text for a in
                                (p if isinstance(p, tuple) else (p,)))]
    if missing:
        raise Failure("%s: the error does not say %s:\n%s" %
                      (where, missing, text))


def check_case(ctx, name):
    damage, expect = CASES[name]
    work = os.path.join(ctx.work, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    base = os.path.join(work, "base")
    make_base(ctx, base)
    base_model = Session(base)
    queries = build_queries(base_model)
    base_res = run_queries(ctx, base, queries, os.path.join(work, "base.sql"))
    for q in queries:     # the oracle holds on the undamaged session
        r = base_res[q.name]
        if not r["ok"]:
            raise Failure("base session: %s failed: %s" % (q.name, r["error"]))
        if q.oracle and not same_rows(q, r["rows"], q.oracle(base_model)):
            raise Failure("base session: %s: got %s, oracle says %s" %
                          (q.name, r["rows"], q.oracle(base_model)))

    session = os.path.join(work, getattr(expect, "session_name", "session"))
    shutil.copytree(base, session)
    damage(Damage(ctx, session))
    # The rollups (NAME.rollup) fold what the writer committed; a store
    # changed in place afterwards is not noticed by them (the views would
    # answer what was written: Tests/Rollup covers that).  Without them
    # the views fold the damaged rows themselves, which is what is tested
    # here.
    for f in glob.glob(os.path.join(session, "*.rollup")):
        os.remove(f)

    if isinstance(expect, Error):
        check_error_case(ctx, session, expect, queries, work)
    else:
        check_ok_case(ctx, session, expect, queries, base_res, work)
    print("ok: %s" % name)
    if not ctx.keep:
        shutil.rmtree(work, ignore_errors=True)


def cli_checks(ctx, session):
    """(name, argv) of the commands every case runs."""
    sql = ctx.sqlite3.split() if ctx.sqlite3 else None
    checks = [
        ("tracestore info", [ctx.fenced_cli, "info", session]),
        ("tracestore info --json", [ctx.fenced_cli, "info", "--json", session]),
        ("tracestore sql", [ctx.fenced_cli, "sql", "--csv", session,
                            "SELECT hex(name), records FROM store_info "
                            "ORDER BY name"]),
        ("plain extension", [ctx.query, ctx.ext, session, os.devnull]),
    ]
    if sql:
        checks.append(("sqlite3 shell", sql + [
            "-bail", ":memory:", "-cmd", ".load " + ctx.fenced_ext,
            "SELECT tracestore_attach('%s');" % session.replace("'", "''"),
            "SELECT hex(name), records FROM store_info ORDER BY name;"]))
    return checks


def check_error_case(ctx, session, expect, queries, work):
    res = run_queries(ctx, session, queries, os.path.join(work, "case.sql"))
    a = res["attach"]
    if a["ok"]:
        raise Failure("tracestore_attach succeeded on a damaged session")
    check_error_text(a["error"], expect, "tracestore_attach")
    for what, argv in cli_checks(ctx, session):
        rc, out, err = run(ctx, argv)
        if what == "plain extension":
            a = json.loads(out.splitlines()[0])
            if a["ok"]:
                raise Failure("%s: attach succeeded" % what)
            check_error_text(a["error"], expect, what)
            continue
        if expect.sql_only and what.startswith("tracestore info"):
            if rc != 0:
                raise Failure("%s exited %d: %s" % (what, rc, err))
            continue
        if rc == 0:
            raise Failure("%s exited 0 on a damaged session:\n%s" % (what, out))
        check_error_text(err, expect, what)


def check_ok_case(ctx, session, expect, queries, base_res, work):
    model = Session(session, bad_slots={
        k: [newer_slot(Damage(ctx, session), k)] if v == "newer" else v
        for k, v in expect.bad_slots.items()})
    run_list = [q for q in queries + expect.extra
                if not (q.full_scan & expect.skip_full_scan)]
    res = run_queries(ctx, session, run_list, os.path.join(work, "case.sql"))
    if not res["attach"]["ok"]:
        raise Failure("tracestore_attach failed: %s" % res["attach"]["error"])
    for q in run_list:
        r = res[q.name]
        want = None
        if q.oracle and (expect.strict or "nopush" in q.name or
                         not (q.stores & expect.touched)):
            try:
                want = q.oracle(model)
            except BadString as e:
                if r["ok"]:
                    raise Failure("%s: succeeded, but the rows refer to a "
                                  "bad string (%s): %s" % (q.name, e, r["rows"]))
                if not string_error(r["error"], session):
                    raise Failure("%s: unclear error: %s" % (q.name, r["error"]))
                continue
        if not r["ok"]:
            if expect.bad_strings and q.stores & expect.touched and \
                    string_error(r["error"], session):
                continue
            if expect.lies and q.stores & expect.touched and \
                    "does not describe its records" in r["error"] and \
                    "byte offset" in r["error"] and \
                    names_file(r["error"], session):
                continue
            if want is not None or not (q.stores & expect.touched):
                raise Failure("%s failed: %s" % (q.name, r["error"]))
            if not names_file(r["error"], session):
                raise Failure("%s: the error names no file: %s" %
                              (q.name, r["error"]))
            continue
        if want is not None:
            if expect.lies and q.stores & expect.touched and \
                    not same_rows(q, r["rows"], want):
                if not sound_part(q, r["rows"], want, model):
                    raise Failure("%s: not a sound part of the answer:\n"
                                  "  got    %s\n  oracle %s" %
                                  (q.name, r["rows"], want))
            elif not same_rows(q, r["rows"], want):
                raise Failure("%s:\n  got    %s\n  oracle %s" %
                              (q.name, r["rows"], want))
        elif not (q.stores & expect.touched):
            if not same(r["rows"], base_res[q.name]["rows"]):
                raise Failure("%s changed though its stores were not "
                              "touched:\n  got  %s\n  base %s" %
                              (q.name, r["rows"], base_res[q.name]["rows"]))
    info = model.store_info()
    for what, argv in cli_checks(ctx, session):
        rc, out, err = run(ctx, argv)
        if rc != 0:
            raise Failure("%s exited %d: %s" % (what, rc, err))
        if what == "plain extension":
            a = json.loads(out.splitlines()[0])
            if not a["ok"]:
                raise Failure("%s: attach failed: %s" % (what, a["error"]))
        elif what == "tracestore info --json":
            j = json.loads(out)
            got = {s["name"]: s["records"] for s in j["stores"]}
            # JSON is UTF-8: a name that is not comes out with U+FFFD.
            if got != {r[0].encode("latin-1").decode("utf-8", "replace"): r[1]
                       for r in info}:
                raise Failure("%s: %s, oracle %s" % (what, got, info))
            firsts = [r[5] for r in info if r[5] is not None]
            lasts = [r[6] for r in info if r[6] is not None]
            span = [min(firsts), max(lasts), max(lasts) - min(firsts)] \
                if firsts else [None, None, None]
            if [j["first_ts"], j["last_ts"], j["duration_ns"]] != span:
                raise Failure("%s: time span %s, oracle %s" %
                              (what, [j["first_ts"], j["last_ts"],
                                      j["duration_ns"]], span))
        elif what in ("tracestore sql", "sqlite3 shell"):
            got = [l.replace("|", ",") for l in out.split()
                   if l not in ("hex(name),records",)]
            if what == "sqlite3 shell":
                got = got[1:]           # what tracestore_attach returned
            want = ["%s,%d" % (r[0].encode("latin-1").hex().upper(), r[1])
                    for r in info]
            if got != want:
                raise Failure("%s: %s, oracle %s" % (what, got, want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    for opt in ("tracestore", "fenced-cli", "fenced-ext", "ext", "query", "seal",
                "sqlite3", "data", "work"):
        ap.add_argument("--" + opt)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("case", nargs="*")
    ctx = ap.parse_args()
    if ctx.list:
        print("\n".join(CASES))
        return 0
    ctx.keep = ctx.keep or os.environ.get("TRACER_TEST_KEEP") == "1"
    for opt in ("tracestore", "fenced_cli", "fenced_ext", "ext", "query", "seal",
                "data", "work"):
        if getattr(ctx, opt) is None:
            ap.error("--%s is required" % opt.replace("_", "-"))
    ctx.work = os.path.abspath(ctx.work)
    failed = 0
    for name in ctx.case or list(CASES):
        try:
            check_case(ctx, name)
        except Failure as e:
            print("FAIL: %s: %s" % (name, e))
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
