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
*) echo "unknown case $case"; exit 2 ;;
esac
echo "ok: $case"
