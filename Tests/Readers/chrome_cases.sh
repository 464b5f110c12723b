#!/bin/sh
# Hand-written Chrome trace-event JSON inputs against rows derived by hand
# (Tests/Data/chrome/*.expected, and the rows below).
# usage: chrome_cases.sh TRACESTORE DATADIR WORKDIR CASE
#   events      X nesting, instants and their scopes, counters (multi-series
#               and id), metadata names, escapes, an async event, {}
#   repair      ends without begins and begins without ends at the bounds
#   bare        the bare array form
#   truncated   a bare array cut after a complete event and its comma:
#               accepted, as Chrome accepts it
#   cut-event   a bare array cut inside an event: exit 1, the offset, and
#               the span before it kept (closed at the last ts)
#   cut-object  the object form without its closing "]}": exit 1
#   cut-anywhere events.json cut at every byte of its last 200: each exit 1
#               (or 0 where the cut leaves a complete bare-array prefix,
#               which cannot happen in the object form) with a message
#               that says the input ended, never that a field is wrong
#   order       X events written when they end (after what they contain),
#               same-interval X events, B/E with X and instants, metadata
#               written after the events it names, nested counters and
#               values that are not numbers
#   boundary    zero-duration X events at a span's ends, in clang's order
#               (each X written when it ends): one at P's end written
#               before P is inside P (it ended first); one at P's begin
#               (written before P), and one at Q's begin written after
#               it, are inside (longer first); one at P's end written
#               after P is after it
#   late        a reorder window too small for the input (--reorder-window
#               2): the span that comes after its turn is placed under its
#               open enclosing span and flagged 8; with the default window
#               the same input nests exactly
set -eu
ts=$1; data=$2; work=$3; case=$4
rm -rf "$work"; mkdir -p "$work"
session=$work/session
span="SELECT id, ts, dur, parent_id, name, depth, tid, pid, flags FROM span ORDER BY id"

sql() { "$ts" sql --csv "$session" "$1" | tail -n +2; }

# import FILE WANT_RC [MESSAGE]
import() {
  set +e
  "$ts" import -o "$session" "$data/$1" > "$work/out" 2>&1
  rc=$?
  set -e
  cat "$work/out"
  [ "$rc" = "$2" ] || { echo "FAIL: exit status $rc, not $2"; exit 1; }
  if [ -n "${3:-}" ]; then
    grep -q "$data/$1: $3" "$work/out" || { echo "FAIL: message is not '$1: $3'"; exit 1; }
  fi
}

expect() {
  printf '%s\n' "$1" > "$work/expected"
  diff "$work/expected" "$work/actual" || { echo "FAIL: rows differ from the hand-derived ones"; exit 1; }
}

case $case in
events)
  import events.json 0
  {
    sql "SELECT 'span', id, ts, dur, parent_id, replace(name, char(10), '<LF>'), depth, tid, pid,
                cat, args, flags FROM span ORDER BY id"
    sql "SELECT 'counter', ts, value, name, pid FROM counter ORDER BY id"
    sql "SELECT 'ftrace_event', ts, name, tid, pid FROM ftrace_event ORDER BY id"
    sql "SELECT 'process', start_ts, pid, name FROM process ORDER BY id"
    sql "SELECT 'thread', start_ts, tid, pid, comm FROM thread ORDER BY id"
  } > "$work/actual"
  grep -v '^#' "$data/events.expected" > "$work/expected"
  diff "$work/expected" "$work/actual" || { echo "FAIL: rows differ from events.expected"; exit 1; }
  dropped=$(sql "SELECT sum(dropped) FROM store_info")
  [ "$dropped" = 0 ] || { echo "FAIL: dropped $dropped (the trailing {} is not an event)"; exit 1; }
  ;;
repair)
  import repair.json 0
  { sql "$span"; sql "SELECT 'repaired', repaired FROM store_info WHERE name = 'span'"; } > "$work/actual"
  grep -v '^#' "$data/repair.expected" > "$work/expected"
  diff "$work/expected" "$work/actual" || { echo "FAIL: rows differ from repair.expected"; exit 1; }
  ;;
bare)
  import bare.json 0
  sql "$span" > "$work/actual"
  expect "0,1000,1000,,a,0,1,1,0"
  ;;
truncated)
  import truncated.json 0
  sql "$span" > "$work/actual"
  expect "0,1000,1000,,a,0,1,1,0"
  ;;
cut-event)
  # [{...B...},{"ph":"E","pid":1,   <- cut at byte 56, inside the second event
  import cut-event.json 1 "offset 56: unexpected end of input"
  sql "$span" > "$work/actual"
  expect "0,1000,0,,a,0,1,1,2"
  ;;
cut-object)
  import cut-object.json 1 "offset 78: unexpected end of input"
  sql "$span" > "$work/actual"
  expect "0,1000,1000,,a,0,1,1,0"
  ;;
cut-anywhere)
  size=$(($(wc -c < "$data/events.json") - 1))     # without its last newline
  n=$((size - 200)); [ "$n" -gt 0 ] || n=1
  while [ "$n" -lt "$size" ]; do
    head -c "$n" "$data/events.json" > "$work/cut.json"
    set +e
    "$ts" import -o "$work/cut-session" "$work/cut.json" > "$work/out" 2>&1
    rc=$?
    set -e
    rm -rf "$work/cut-session"
    [ "$rc" = 1 ] || { cat "$work/out"; echo "FAIL: cut at $n: exit $rc"; exit 1; }
    grep -q "end of input\|unterminated" "$work/out" ||
      { cat "$work/out"; echo "FAIL: cut at $n: the message does not say the input ended"; exit 1; }
    n=$((n + 1))
  done
  echo "ok: every cut in the last 200 bytes says the input ended"
  ;;
order)
  import order.json 0
  {
    sql "$span"
    sql "SELECT 'counter', ts, value, name, pid FROM counter ORDER BY id"
    sql "SELECT 'dropped', dropped FROM store_info WHERE name = 'counter'"
    sql "SELECT 'thread', start_ts, tid, pid, comm FROM thread ORDER BY id"
    sql "SELECT 'process', start_ts, pid, name FROM process ORDER BY id"
    sql "SELECT 'ftrace_event', ts, name, tid, pid, json_extract(args, '\$.args.sort_index')
         FROM ftrace_event ORDER BY id"
  } > "$work/actual"
  grep -v '^#' "$data/order.expected" > "$work/expected"
  diff "$work/expected" "$work/actual" || { echo "FAIL: rows differ from order.expected"; exit 1; }
  ;;
late)
  # R [0,100) written first; a, b, c at 10, 12, 14; P [9,19), which holds
  # them, written last.  With a window of two events, a is placed before P
  # comes: P goes under R (the open span that holds it), flagged 8, and a,
  # b, c stay under R.
  "$ts" import --reorder-window 2 -o "$session" "$data/late.json" > "$work/out" 2>&1
  grep -q "late.json: 1 span events came after a window of 2" "$work/out" ||
    { cat "$work/out"; echo "FAIL: no report of the late span"; exit 1; }
  sql "$span" > "$work/actual"
  expect "0,0,100000,,R,0,1,1,0
1,10000,1000,0,a,1,1,1,0
2,9000,10000,0,P,1,1,1,8
3,12000,1000,0,b,1,1,1,0
4,14000,1000,0,c,1,1,1,0"
  rm -rf "$session"
  import late.json 0
  sql "$span" > "$work/actual"
  expect "0,0,100000,,R,0,1,1,0
1,9000,10000,0,P,1,1,1,0
2,10000,1000,1,a,2,1,1,0
3,12000,1000,1,b,2,1,1,0
4,14000,1000,1,c,2,1,1,0"
  ;;
boundary)
  # R [0,100); P [10,20) holds first (10), c [12,15) and last (20, written
  # before P); next (20, written after P) follows P; Q [30,35) holds z (30,
  # written before Q: its first callee, or before it; longer first says in).
  import boundary.json 0
  sql "$span" > "$work/actual"
  expect "0,0,100000,,R,0,1,1,0
1,10000,10000,0,P,1,1,1,0
2,10000,0,1,first,2,1,1,0
3,12000,3000,1,c,2,1,1,0
4,20000,0,1,last,2,1,1,0
5,20000,0,0,next,1,1,1,0
6,30000,5000,0,Q,1,1,1,0
7,30000,0,6,z,2,1,1,0"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
echo "ok: $case"
