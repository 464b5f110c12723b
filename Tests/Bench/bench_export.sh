#!/bin/sh
# tracestore export speed and memory (issue 16), next to seeds/001's
# merge.py (../shared/tools/merge_reference.py) where it can read the input.
# usage: bench_export.sh TRACESTORE SHARED_DIR [CHROME_MB] [FTRACE_MEVENTS] [WORKDIR]
# Sessions: bench_chrome.sh's Chrome input of CHROME_MB megabytes (default
# 1000) imported, and Tests/Data/ftrace-capture-1.txt repeated to about
# FTRACE_MEVENTS million events (default 10).  Each is exported to
# /dev/null (-o -: the writer, not the disk) and once to a file (-o FILE:
# temp file, fsync, rename), best of 3; peak RSS of the export.  merge.py
# reads uftrace + trace.dat + perf stat only, so it is timed on capture-1
# against an export of the same inputs.  Prints result lines for the
# table `export` (see bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; shared=$2; cmb=${3:-1000}; mev=${4:-10}
work=${5:-${TMPDIR:-/tmp}/tracer-bench-export}
mkdir -p "$work"
data=$(dirname "$0")/../Data
cap=$shared/data/capture-1

# The sessions, kept between runs.
if [ ! -d "$work/chrome.trace" ] || [ "$(cat "$work/chrome.mb" 2>/dev/null)" != "$cmb" ]; then
  gen_chrome be "$cmb" "$work/chrome.json"
  rm -rf "$work/chrome.trace"
  "$ts" import -o "$work/chrome.trace" "$work/chrome.json" 2>/dev/null
  rm -f "$work/chrome.json"; echo "$cmb" > "$work/chrome.mb"
fi
fmb=$(( mev * 1000000 / 2241 * $(wc -c < "$data/ftrace-capture-1.txt") / 1000000 ))
if [ ! -d "$work/ftrace.trace" ] || [ "$(cat "$work/ftrace.mev" 2>/dev/null)" != "$mev" ]; then
  gen_ftrace "$data/ftrace-capture-1.txt" "$fmb" "$work/ftrace.txt"
  rm -rf "$work/ftrace.trace"
  "$ts" import -o "$work/ftrace.trace" "$work/ftrace.txt" 2>/dev/null
  rm -f "$work/ftrace.txt" "$work/ftrace.txt.reps"; echo "$mev" > "$work/ftrace.mev"
fi
grep -v task-clock "$cap/perf-stat.txt" > "$work/perf-stat.txt"
rm -rf "$work/cap.trace"
"$ts" import -o "$work/cap.trace" "$cap/uftrace.data" "$cap/trace.dat" \
  "$work/perf-stat.txt" 2>/dev/null

bench_head export session events "export -o - (to /dev/null)" "export -o FILE" \
  "JSON" "peak RSS"
for s in chrome ftrace cap; do
  sess=$work/$s.trace
  n=$("$ts" info --json "$sess" | python3 -c 'import json, sys
print(sum(s["records"] for s in json.load(sys.stdin)["stores"] if s["name"] in
      ("span", "kvm_exit", "ftrace_event", "page_fault", "sched_switch",
       "counter")))')
  t_null=$(best 3 sh -c "\"$ts\" export -o - \"$sess\" > /dev/null")
  t_file=$(best 3 "$ts" export -o "$work/out.json" "$sess")
  bytes=$(wc -c < "$work/out.json")
  rss=$(peak_rss sh -c "\"$ts\" export -o - \"$sess\" > /dev/null")
  rm -f "$work/out.json"
  bench_row export "$s ($(calc %.1f "$n / 1e6") M rows)" "$n" \
    "$t_null s, **$(calc %.2f "$n / $t_null / 1e6") M events/s**, $(calc %.0f "$bytes / $t_null / 1e6") MB/s" \
    "$t_file s, $(calc %.0f "$bytes / $t_file / 1e6") MB/s" \
    "$(calc %.0f "$bytes / 1e6") MB" "$rss MB"
  eval "t_$s=$t_null; n_$s=$n"
done

# merge.py on the inputs it reads (run W6 of merge_reference.md), from
# the original files, against import + export of the same files.
t_ref=$(cd "$work" && best 3 python3 "$shared/tools/merge_reference.py" \
  "$cap/uftrace.data" "$work/ref.json" -k "$cap/trace.dat" -O 0 -f 2400000 \
  -p "$work/perf-stat.txt")
t_ts=$(best 3 sh -c "rm -rf \"$work/s2\" && \"$ts\" import -o \"$work/s2\" \
  \"$cap/uftrace.data\" \"$cap/trace.dat\" \"$work/perf-stat.txt\" 2>/dev/null && \
  \"$ts\" export -o \"$work/ts.json\" \"$work/s2\" 2>/dev/null")
bench_row export "capture-1: merge.py (W6)" "" "$t_ref s" "" "" ""
bench_row export "capture-1: tracestore import + export" "" "$t_ts s" \
  "$(calc %.0fx "$t_ref / $t_ts") faster" "" ""
bench_note export "capture-1's export alone: $t_cap s for $n_cap rows; merge.py's time is mostly trace-cmd report and uftrace dump, which it runs."

# An input merge.py reads, large enough that starting processes does not
# decide: a uftrace recording of fib(27) (635 621 calls; Tests/Workloads/
# Fib.c, gcc -pg), with capture-1's trace.dat, merge.py's run B options
# (-k trace.dat -O 0).  Both write their JSON to a file.
if command -v uftrace >/dev/null; then
  fib=$work/fib
  if [ ! -d "$fib/uftrace.data" ]; then
    mkdir -p "$fib"
    gcc -pg -O0 -o "$fib/fib" "$(dirname "$0")/../Workloads/Fib.c"
    (cd "$fib" && uftrace record ./fib 27 >/dev/null)
  fi
  t_ref=$(cd "$work" && best 3 python3 "$shared/tools/merge_reference.py" \
    "$fib/uftrace.data" "$work/ref.json" -k "$cap/trace.dat" -O 0)
  rm -rf "$work/fib.trace"
  "$ts" import -o "$work/fib.trace" "$fib/uftrace.data" "$cap/trace.dat" \
    2>/dev/null
  t_exp=$(best 3 "$ts" export -o "$work/ts.json" "$work/fib.trace")
  n=$("$ts" export -o - "$work/fib.trace" 2>&1 >/dev/null |
      sed -n 's/^export: \([0-9]*\) events.*/\1/p')
  t_ts=$(best 3 sh -c "rm -rf \"$work/s2\" && \"$ts\" import -o \"$work/s2\" \
    \"$fib/uftrace.data\" \"$cap/trace.dat\" 2>/dev/null && \
    \"$ts\" export -o \"$work/ts.json\" \"$work/s2\" 2>/dev/null")
  bench_row export "fib(27) + trace.dat: merge.py (B)" "" "$t_ref s" "" "" ""
  bench_row export "fib(27) + trace.dat: tracestore export -o FILE" "$n" \
    "$t_exp s" "$(calc %.0fx "$t_ref / $t_exp") faster" "" ""
  bench_row export "fib(27) + trace.dat: tracestore import + export" "" \
    "$t_ts s" "$(calc %.0fx "$t_ref / $t_ts") faster" "" ""
fi
rm -rf "$work/s2" "$work/ref.json" "$work/ts.json" "$work/cap.trace" \
  "$work/fib.trace"
