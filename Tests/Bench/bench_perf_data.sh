#!/bin/sh
# perf.data import speed next to `perf script > /dev/null` on the same file,
# in the same run (issue 27), and how it grows with size.
# usage: bench_perf_data.sh TRACESTORE [WORKDIR] [SCALES]
#
# Inputs, recorded here with perf record (root):
#   tracepoints  -a raw_syscalls:sys_enter/sys_exit + sched:sched_switch
#                while dd makes ~0.6 M system calls (1.5-2 M events);
#   profile      -a -g cpu-clock every 20 us while two shells spin.
# Each: tracestore import (best of 3) and perf script > /dev/null (best of
# 2), events/s and the ratio; peak RSS of the import (peak_rss.py: file
# pages included, so anon RSS is below it); the floor, reading the file and
# writing the session's bytes with nothing decoded, and the ratio it gives.  Then the tracepoint file made 10^7 and 10^8 events long
# (SCALES, default "6 60": copies of its data section, each copy's
# times moved past the one before), imported once each: events/s, ns per
# event and peak RSS as the file grows (a 10^7 file is ~1 GB).
# Prints result lines for the tables `perf_data` and `perf_data_scale`.
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; work=${2:-${TMPDIR:-/tmp}/tracer-bench-perf-data}; scales=${3-6 60}
[ "$(id -u)" = 0 ] || { echo "SKIP: perf record needs root"; exit 77; }
command -v perf > /dev/null || { echo "SKIP: no perf"; exit 77; }
mkdir -p "$work"
tp=$work/tracepoints.data; prof=$work/profile.data

[ -s "$tp" ] || perf record -q -a -m 8192 -o "$tp" \
  -e raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch \
  -- dd if=/dev/zero of=/dev/null bs=1 count=300000 2> /dev/null
[ -s "$prof" ] || perf record -q -a -g -m 8192 -c 20000 -e cpu-clock -o "$prof" \
  -- sh -c 'spin() { i=0; while [ $i -lt 1500000 ]; do i=$((i+1)); done; }; spin & spin; wait' \
  2> /dev/null

bench_head perf_data "input" "events" "MB" "import s" "perf script s" \
  "import events/s" "ratio" "import peak RSS MB" "floor s" "floor ratio"
for f in "$tp" "$prof"; do
  name=$(basename "$f" .data)
  cat "$f" > /dev/null
  t_imp=$(best 3 "$ts" import -o "$work/session" "$f")
  t_perf=$(best 2 sh -c "perf script -i '$f' > /dev/null 2>&1")
  rm -rf "$work/session"
  peak=$(peak_rss "$ts" import -o "$work/session" "$f")
  events=$(events "$work/session")
  mb=$(calc %.1f "$(wc -c < "$f") / 1e6")
  # The floor: reading the file and writing as many bytes as the session
  # holds, nothing decoded (best of 3 each).
  bytes=$(du -sb "$work/session" | cut -f1)
  t_read=$(best 3 sh -c "cat '$f' > /dev/null")
  t_write=$(best 3 sh -c "head -c $bytes /dev/zero > '$work/floor.bin'")
  rm -f "$work/floor.bin"
  t_floor=$(calc %.4f "$t_read + $t_write")
  echo "$name: $events events, import $t_imp s, perf script $t_perf s, floor $t_floor s"
  bench_row perf_data "$name" "$events" "$mb" "$t_imp" "$t_perf" \
    "$(calc %.0f "$events / $t_imp")" "$(calc %.1f "$t_perf / $t_imp")" \
    "$peak" "$t_floor" "$(calc %.1f "$t_perf / $t_floor")"
done
bench_note perf_data "ratio = perf script > /dev/null time / import time, same file, same run (best of 2 and 3); floor = cat FILE > /dev/null plus writing the session's bytes to a new file (head -c N /dev/zero), nothing decoded: the fastest any one-thread import could be, and floor ratio what it would reach"

# Larger files: the tracepoint recording's data section repeated.
bench_head perf_data_scale "events" "GB" "import s" "events/s" "ns/event" "peak RSS MB"
for k in 1 $scales; do
  big=$work/tracepoints-x$k.data
  if [ "$k" = 1 ]; then big=$tp; else
    python3 "$(dirname "$0")/perf_data_repeat.py" "$tp" "$big" "$k"
  fi
  rm -rf "$work/session"
  t0=$(now)
  peak=$(peak_rss "$ts" import -o "$work/session" "$big")
  t1=$(now)
  t=$(calc %.3f "$t1 - $t0")
  events=$(events "$work/session")
  gb=$(calc %.2f "$(wc -c < "$big") / 1e9")
  echo "x$k: $events events, $gb GB, $t s, peak RSS $peak MB"
  bench_row perf_data_scale "$events" "$gb" "$t" "$(calc %.0f "$events / $t")" \
    "$(calc %.1f "$t * 1e9 / $events")" "$peak"
  rm -rf "$work/session"
  [ "$k" = 1 ] || rm -f "$big"
done
bench_note perf_data_scale "the tracepoint recording's data section repeated (times moved on), imported once; peak RSS includes the mapped file's pages"
