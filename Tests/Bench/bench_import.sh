#!/bin/sh
# ftrace text import speed next to wc -l and grep -c over the same file, in
# the same run (the file is in the page cache for all three).
# usage: bench_import.sh TRACESTORE [MB] [WORKDIR]
# The input is the bundled capture repeated until it is about MB megabytes,
# each copy shifted by one second so timestamps stay in order.
set -eu
ts=$1; mb=${2:-200}; work=${3:-${TMPDIR:-/tmp}/tracer-bench-import}
sample=$(dirname "$0")/../Data/ftrace-capture-1.txt
mkdir -p "$work"; in=$work/big-ftrace.txt
reps=$(( mb * 1000000 / $(wc -c < "$sample") + 1 ))
if [ ! -s "$in" ] || [ "$(cat "$work/reps" 2>/dev/null)" != "$reps" ]; then
  awk -v reps="$reps" '{ line[NR] = $0 } END {
    for (r = 0; r < reps; r++) for (i = 1; i <= NR; i++) {
      l = line[i]; p = index(l, " 697."); if (p) l = substr(l, 1, p) (697 + r) substr(l, p + 4)
      print l } }' "$sample" > "$in"
  echo "$reps" > "$work/reps"
fi
bytes=$(wc -c < "$in"); lines=$(wc -l < "$in")

now() { date +%s.%N; }
best() {  # best of three wall-clock runs of "$@"
  b=""; for i in 1 2 3; do
    t0=$(now); "$@" >"$work/out" 2>&1; t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l); if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done; echo "$b"; }
import() { rm -rf "$work/session"; "$ts" import -o "$work/session" "$in"; }

cat "$in" > /dev/null
t_wc=$(best wc -l "$in")
t_grep=$(best grep -c ' page_fault_user: ' "$in")
t_imp=$(best import)
events=$("$ts" sql --csv "$work/session" "SELECT sum(events) FROM source" | tail -1)

mbps() { echo "scale=0; $bytes / $1 / 1000000" | bc -l; }
printf '| input | %s MB, %s lines, %s events |\n' "$(( bytes / 1000000 ))" "$lines" "$events"
printf '| wc -l | %s s | %s MB/s |\n' "$t_wc" "$(mbps "$t_wc")"
printf '| grep -c | %s s | %s MB/s |\n' "$t_grep" "$(mbps "$t_grep")"
printf '| tracestore import | %s s | %s MB/s, %s events/s |\n' "$t_imp" "$(mbps "$t_imp")" \
  "$(echo "scale=0; $events / $t_imp" | bc -l)"
printf '| import / wc -l | %s |\n' "$(echo "scale=2; $t_wc / $t_imp" | bc -l)"
printf '| import / grep -c | %s |\n' "$(echo "scale=2; $t_grep / $t_imp" | bc -l)"
rm -rf "$work/session"
