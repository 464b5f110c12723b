#!/bin/sh
# perf record -a (the real producer) of short-lived threads and execs
# (Tests/Workloads/ShortThreads.c), its `perf script` text imported and
# checked with perf_oracle.sh's awk oracles: counts, times, tasks (the
# ":-1  -1" samples of exited threads: NULL comm, tid, pid), every
# sched_switch field, a process row per exec.  Then the same text with an
# exited thread's sample as its first line must still be detected as perf
# script.  Exit 77 (skipped) when perf cannot record here (not root, or the
# kernel refuses system-wide tracepoints).
# usage: perf_record.sh TRACESTORE WORKLOAD PERF_ORACLE WORKDIR
set -u
ts=$1; workload=$2; oracle=$3; work=$4
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "perf record -a needs root"
command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
rm -rf "$work"; mkdir -p "$work"
perf record -q -a -o "$work/perf.data" \
  -e sched:sched_switch,sched:sched_process_exec,sched:sched_process_exit,minor-faults \
  -- "$workload" 48 4 > "$work/record.log" 2>&1 ||
  { cat "$work/record.log"; skip "perf record -a failed here"; }
# Three layouts: the default, PID/TID with ns, a tid alone.
layout=0
for fields in "" "-F comm,pid,tid,cpu,time,event,trace --ns" "-F tid,time,event,trace"; do
  layout=$((layout + 1))
  perf script -i "$work/perf.data" $fields > "$work/script$layout.txt" 2> "$work/script.err" ||
    { cat "$work/script.err"; fail "perf script $fields failed"; }
  n=$(grep -cE '(^| |/)-1 ' "$work/script$layout.txt" || true)
  [ "$n" -gt 0 ] || fail "perf script $fields: no sample of an exited thread (-1)"
  echo "perf script $fields: $(wc -l < "$work/script$layout.txt") samples, $n of exited threads"
  for check in counts timestamps tasks sched exec; do
    sh "$oracle" "$ts" "$work/script$layout.txt" "$work/$layout-$check" $check || fail "$check"
  done
done
mv "$work/script1.txt" "$work/script.txt"

# Detection, with an exited thread's sample first.
{ grep -m1 '^ *:-1  *-1 ' "$work/script.txt"; cat "$work/script.txt"; } > "$work/first.txt"
rm -rf "$work/first"
"$ts" import -o "$work/first" "$work/first.txt" > "$work/first.log" 2>&1 ||
  { cat "$work/first.log"; fail "the text with a :-1 line first did not import"; }
format=$("$ts" sql --csv "$work/first" "SELECT format FROM source" | tail -1)
[ "$format" = perf-script ] || fail "a :-1 line first: detected as $format, not perf-script"
echo "ok: a :-1 sample as the first line is detected as perf script"
