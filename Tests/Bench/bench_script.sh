#!/bin/sh
# `tracestore script` against `perf script -s` on the same perf.data, in
# the same run (issue 28).
# usage: bench_script.sh TRACESTORE [WORKDIR] [SCALES]
#
# The input, recorded here with perf record (root): -a raw_syscalls
# sys_enter/sys_exit and sched_switch while dd makes ~0.6 M system calls
# (1.5-2 M events), imported once.  For each script: perf script -s (best
# of 2) and tracestore script (best of 3), output to /dev/null, both on
# Debian's python3 (which perf embeds); the ratio.  The scripts: perf's
# syscall-counts.py and failed-syscalls-by-pid.py (a handler per system
# call), and one with a handler for sched_switch only (a rare event: the
# others are passed over without being decoded).  The import's own time is
# printed too: import + script is what a first question costs.  Then the
# recording made 10^7 and 10^8 events long (SCALES, default "6 60": copies
# of its data section, perf_data_repeat.py), imported, and syscall-counts.py
# run by both (perf script only up to 10^7: minutes beyond) and by
# `tracestore script` with its peak RSS.
# Prints result lines for the tables `script` and `script_scale`.
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; work=${2:-${TMPDIR:-/tmp}/tracer-bench-script}; scales=${3-6 60}
[ "$(id -u)" = 0 ] || { echo "SKIP: perf record needs root"; exit 77; }
command -v perf > /dev/null || { echo "SKIP: no perf"; exit 77; }
S=/usr/lib/perf-core/scripts/python
[ -f $S/syscall-counts.py ] || { echo "SKIP: no perf scripts"; exit 77; }
# perf's libpython finds its prefix through PATH; not pyenv's.
PATH=$(echo "$PATH" | tr ':' '\n' | grep -v '/\.pyenv/' | paste -sd:)
mkdir -p "$work"
data=$work/tracepoints.data; session=$work/tracepoints.trace

[ -s "$data" ] || perf record -q -a -m 8192 -o "$data" \
  -e raw_syscalls:sys_enter,raw_syscalls:sys_exit,sched:sched_switch \
  -- dd if=/dev/zero of=/dev/null bs=1 count=300000 2> /dev/null
cat > "$work/rare.py" <<'PY'
count = 0
def sched__sched_switch(event_name, context, common_cpu, common_secs,
        common_nsecs, common_pid, common_comm, common_callchain, prev_comm,
        prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio):
    global count
    count += 1
def trace_end():
    print("sched_switch events:", count)
PY
rm -rf "$session"
t0=$(now); "$ts" import -o "$session" "$data" > /dev/null; t1=$(now)
t_imp=$(calc %.3f "$t1 - $t0")
events=$(events "$session")
echo "$events events, imported in $t_imp s"

bench_head script "script" "events" "perf script -s s" "tracestore script s" \
  "ratio" "import + script s" "ratio with the import"
for sc in $S/syscall-counts.py $S/failed-syscalls-by-pid.py $work/rare.py; do
  name=$(basename "$sc")
  t_perf=$(best 2 sh -c "perf script -i '$data' -s '$sc' > /dev/null 2>&1")
  # best() removes $work/session before each run: the session lives
  # elsewhere, so it is kept.
  t_ts=$(best 3 "$ts" script --python /usr/bin/python3 -s "$sc" "$session")
  echo "$name: perf script $t_perf s, tracestore script $t_ts s"
  bench_row script "$name" "$events" "$t_perf" "$t_ts" \
    "$(calc %.1f "$t_perf / $t_ts")" "$(calc %.3f "$t_imp + $t_ts")" \
    "$(calc %.1f "$t_perf / ($t_imp + $t_ts)")"
done
bench_note script "ratio = perf script -s time / tracestore script time, same file, same run (best of 2 and 3), output to a file, both on Debian's python3; the import ($t_imp s) is done once before"

# Larger files: syscall-counts.py as the recording grows.
sc=$S/syscall-counts.py
bench_head script_scale "events" "perf script -s s" "tracestore script s" \
  "ratio" "ns/event" "script peak RSS MB"
for k in 1 $scales; do
  big=$work/tracepoints-x$k.data; big_session=$work/tracepoints-x$k.trace
  if [ "$k" = 1 ]; then big=$data; big_session=$session; else
    python3 "$(dirname "$0")/perf_data_repeat.py" "$data" "$big" "$k"
    rm -rf "$big_session"
    "$ts" import -o "$big_session" "$big" > /dev/null
  fi
  n=$(events "$big_session")
  t0=$(now); "$ts" script --python /usr/bin/python3 -s "$sc" "$big_session" > /dev/null; t1=$(now)
  t_ts=$(calc %.3f "$t1 - $t0")
  peak=$(peak_rss "$ts" script --python /usr/bin/python3 -s "$sc" "$big_session")
  if [ "$k" -le 6 ]; then
    t0=$(now); perf script -i "$big" -s "$sc" > /dev/null 2>&1; t1=$(now)
    t_perf=$(calc %.3f "$t1 - $t0"); ratio=$(calc %.1f "$t_perf / $t_ts")
  else
    t_perf="-"; ratio="-"
  fi
  echo "x$k: $n events, perf script $t_perf s, tracestore script $t_ts s, peak RSS $peak MB"
  bench_row script_scale "$n" "$t_perf" "$t_ts" "$ratio" \
    "$(calc %.1f "$t_ts * 1e9 / $n")" "$peak"
  [ "$k" = 1 ] || rm -rf "$big" "$big_session"
done
bench_note script_scale "syscall-counts.py once each (perf script only up to 10^7 events); peak RSS of tracestore script (the interpreter's and the mapped stores' pages included)"
