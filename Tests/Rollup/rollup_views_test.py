#!/usr/bin/env python3
"""The views read from the rollups equal the views computed from the rows.

For each session given, attaches it twice in one connection: as usual
(the views read the rollup tables) and with tracestore_attach's 'scan'
mode (the views run their SQL over every row: the full-scan oracle, the
SQL that the view tests check against uftrace, perf, awk and the kernel's
syscall table).  Every view both make must give the same rows in the same
order: equal values, but for kvm_exit_reasons' percentiles, which must be
within the histogram's stated error (docs/schema.md: below 1/256 of the exact
nearest-rank value, exact below 512 ns), and avg_dur, a REAL, within
1e-12 relative.

  rollup_views_test.py EXTENSION SESSION...   exit 0 if all agree
"""
import sqlite3
import sys

VIEWS = ["syscall_counts", "kvm_exit_reasons", "page_fault_summary",
         "page_fault_traffic", "span_self_time", "span_running", "line_time",
         "line_hot"]
PERCENTILES = {"p50_dur", "p90_dur", "p99_dur"}


def views_of(db):
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_temp_master WHERE type = 'view'")]


def answers(db, session, mode):
    db.execute("SELECT tracestore_detach()")   # (the session before)
    db.execute("SELECT tracestore_attach(?, 'temp', ?)", (session, mode))
    made = set(views_of(db))
    out = {}
    for v in VIEWS:
        if v in made:
            cur = db.execute("SELECT * FROM %s" % v)
            out[v] = ([d[0] for d in cur.description], cur.fetchall())
    rollups = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_temp_master WHERE type = 'table' "
        "AND name GLOB 'rollup_*'")]
    return out, rollups


def close(a, b, column):
    if a is None or b is None:
        return a is b
    if column in PERCENTILES:
        if abs(b) < 512:
            return a == b
        return abs(a - b) < abs(b) / 256.0
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def compare(session, view, got, want):
    cols_g, rows_g = got
    cols_w, rows_w = want
    if cols_g != cols_w:
        return "%s %s: columns %s, scan has %s" % (session, view, cols_g,
                                                   cols_w)
    if len(rows_g) != len(rows_w):
        return "%s %s: %d rows, scan has %d" % (session, view, len(rows_g),
                                                 len(rows_w))
    for i, (g, w) in enumerate(zip(rows_g, rows_w)):
        for c, a, b in zip(cols_g, g, w):
            if not close(a, b, c):
                return "%s %s row %d column %s: %r, scan has %r\n  %r\n  %r" % (
                    session, view, i, c, a, b, g, w)
    return None


def event_oracles(db, session):
    """event_counts and event_rate computed here from every row of the
    event view (attached in 'scan' mode), in the views' order."""
    db.execute("SELECT tracestore_detach()")
    db.execute("SELECT tracestore_attach(?, 'temp', 'scan')", (session,))
    counts = {}
    events = []
    for store, name, ts in db.execute("SELECT store, name, ts FROM event"):
        counts[(store, name)] = counts.get((store, name), 0) + 1
        events.append((store, name, ts))
    return counts, events


def check_events(db, session):
    """Differences of event_counts and event_rate from event_oracles."""
    db.execute("SELECT tracestore_attach(?)", (session,))
    got_counts = db.execute("SELECT store, name, count FROM event_counts"
                            ).fetchall()
    got_rates = db.execute("SELECT store, name, ts, dur, count, per_second "
                           "FROM event_rate").fetchall()
    counts, events = event_oracles(db, session)
    want = sorted(((s, n, c) for (s, n), c in counts.items()),
                  key=lambda r: (-r[2], r[0], "" if r[1] is None else r[1]))
    if got_counts != want:
        return "%s event_counts: %s\n  oracle %s" % (session, got_counts[:8],
                                                     want[:8])
    widths = {}
    for s, n, ts, dur, c, ps in got_rates:
        widths.setdefault(s, dur)
        if widths[s] != dur or ts % dur != 0 or ps != c * 1e9 / dur:
            return "%s event_rate: bucket %r" % (session, (s, n, ts, dur, c))
    rate = {}
    for s, n, ts in events:
        if s not in widths:
            return "%s event_rate: no buckets of store %s" % (session, s)
        w = widths[s]
        key = (s, None if s == "span" else n, ts // w * w)
        rate[key] = rate.get(key, 0) + 1
    want = sorted(((s, n, t, widths[s], c) for (s, n, t), c in rate.items()),
                  key=lambda r: (r[0], "" if r[1] is None else r[1], r[2]))
    got = [r[:5] for r in got_rates]
    if got != want:
        return "%s event_rate: %d buckets %s\n  oracle %d %s" % (
            session, len(got), got[:6], len(want), want[:6])
    return None


def main():
    ext, sessions = sys.argv[1], sys.argv[2:]
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(ext)
    failed = 0
    checked = 0
    for s in sessions:
        rolled, rollups = answers(db, s, "")
        scanned, none = answers(db, s, "scan")
        if none:
            print("%s: 'scan' left rollup tables %s" % (s, none))
            failed += 1
        if set(rolled) != set(scanned):
            print("%s: views %s, scan made %s" % (s, sorted(rolled),
                                                   sorted(scanned)))
            failed += 1
        if "line_time" in rolled and "rollup_line" not in rollups:
            print("%s: a line store without rollup_line: the line views "
                  "compared would both be the scan" % s)
            failed += 1
        for v in sorted(set(rolled) & set(scanned)):
            why = compare(s, v, rolled[v], scanned[v])
            checked += 1
            if why:
                print(why)
                failed += 1
        if "rollup_event_count" in rollups:
            why = check_events(db, s)
            checked += 2
            if why:
                print(why)
                failed += 1
        print("%s: %d views, rollup tables %s" % (s, len(rolled),
                                                   " ".join(sorted(rollups))))
    print("%d view answers compared, %d differ" % (checked, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
