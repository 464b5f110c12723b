#!/bin/sh
# tracestore export --format perfetto against the JSON export of the same
# session, in the same run (issue 26): rows a second, bytes, peak RSS, at
# each size.
# usage: bench_export_perfetto.sh TRACESTORE GENSESSION [SIZES] [WORKDIR]
# SIZES: row counts (default "1000000 10000000 100000000").  For each N,
# GenSession writes a session (kept between runs) of N span rows (200
# names, call trees 7 deep, 8 threads), N page faults (instants with 12
# args) and N/10 ftrace events.  Each session is exported to /dev/null
# (-o -: the writers, not the disk) as JSON and as protobuf, interleaved,
# best of 3; then the protobuf is written to a file once for its size.
# Prints result lines for the table `export_perfetto` (see bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; gen=$2; sizes=${3:-"1000000 10000000 100000000"}
work=${4:-${TMPDIR:-/tmp}/tracer-bench-perfetto}
mkdir -p "$work"

bench_head export_perfetto "session" "rows" "JSON -o -" "perfetto -o -" \
  "perfetto / JSON time" "JSON bytes" "protobuf bytes" "JSON / protobuf size" \
  "peak RSS (perfetto)"
for n in $sizes; do
  sess=$work/gen-$n
  if [ "$(cat "$sess.n" 2>/dev/null)" != "$n" ]; then
    rm -rf "$sess"
    "$gen" --spans "$n" --faults "$n" --events $((n / 10)) \
      --commit-every 65536 "$sess" >/dev/null
    echo "$n" > "$sess.n"
  fi
  rows=$("$ts" info --json "$sess" | python3 -c 'import json, sys
print(sum(s["records"] for s in json.load(sys.stdin)["stores"] if s["name"] in
      ("span", "kvm_exit", "ftrace_event", "page_fault", "sched_switch",
       "counter")))')
  tj=""; tp=""
  for i in 1 2 3; do
    a=$(best 1 sh -c "\"$ts\" export --format chrome -o - \"$sess\" > /dev/null")
    b=$(best 1 sh -c "\"$ts\" export --format perfetto -o - \"$sess\" > /dev/null")
    if [ -z "$tj" ] || [ "$(calc %d "$a < $tj")" = 1 ]; then tj=$a; fi
    if [ -z "$tp" ] || [ "$(calc %d "$b < $tp")" = 1 ]; then tp=$b; fi
  done
  jb=$("$ts" export --format chrome -o - "$sess" 2>/dev/null | wc -c)
  pb=$("$ts" export --format perfetto -o - "$sess" 2>/dev/null | wc -c)
  rss=$(peak_rss sh -c "\"$ts\" export --format perfetto -o - \"$sess\" > /dev/null")
  bench_row export_perfetto "$(calc %.0e "$n") spans + faults" "$rows" \
    "$tj s, $(calc %.1f "$rows / $tj / 1e6") M rows/s" \
    "$tp s, **$(calc %.1f "$rows / $tp / 1e6") M rows/s**" \
    "$(calc %.2f "$tp / $tj")" "$(calc %.0f "$jb / 1e6") MB" \
    "$(calc %.0f "$pb / 1e6") MB" "**$(calc %.1fx "$jb / $pb")**" "$rss MB"
done
