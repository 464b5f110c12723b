#!/bin/sh
# ftrace text import speed next to wc -l and grep -c over the same file, in
# the same run (the file is in the page cache for all three).
# usage: bench_import.sh TRACESTORE [MB] [WORKDIR]
# The input is the bundled capture repeated until it is about MB megabytes,
# each copy shifted by one second so timestamps stay in order.
# Then what --formats costs (records rebuilt from the text): a capture of
# this kernel's events (Tests/Data/ftrace-formats.txt) repeated to MB,
# imported without and with the events' formats (Tests/Data/tracefs-events).
# Prints result lines for the tables `ftrace` and `ftrace_formats` (see
# bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; mb=${2:-200}; work=${3:-${TMPDIR:-/tmp}/tracer-bench-import}
mkdir -p "$work"; in=$work/big-ftrace.txt
gen_ftrace "$(dirname "$0")/../Data/ftrace-capture-1.txt" "$mb" "$in"
bytes=$(wc -c < "$in"); lines=$(wc -l < "$in")

cat "$in" > /dev/null
t_wc=$(best 3 wc -l "$in")
t_grep=$(best 3 grep -c ' page_fault_user: ' "$in")
t_imp=$(best 3 "$ts" import -o "$work/session" "$in")
n=$(events "$work/session")

mbps() { calc %.0f "$bytes / $1 / 1e6"; }
bench_head ftrace command time throughput "speed vs tracestore import"
bench_row ftrace 'wc -l' "$t_wc s" "$(mbps "$t_wc") MB/s" "$(calc %.1f "$t_imp / $t_wc")x"
bench_row ftrace "grep -c ' page_fault_user: '" "$t_grep s" "$(mbps "$t_grep") MB/s" "$(calc %.1f "$t_imp / $t_grep")x"
bench_row ftrace '**tracestore import**' "$t_imp s" \
  "**$(mbps "$t_imp") MB/s**, $(calc %.2f "$n / $t_imp / 1e6") M events/s" 1
bench_note ftrace "Input: the bundled capture repeated, $((bytes / 1000000)) MB, $lines lines, $n events; best of 3 runs each, file in the page cache."

# --formats: the same text, records rebuilt or not.
data=$(dirname "$0")/../Data
fin=$work/big-ftrace-formats.txt
reps=$(( mb * 1000000 / $(wc -c < "$data/ftrace-formats.txt") + 1 ))
if [ ! -s "$fin" ] || [ "$(cat "$fin.reps" 2>/dev/null)" != "$reps" ]; then
  awk -v reps="$reps" '{ line[NR] = $0 } END {
    for (r = 0; r < reps; r++) for (i = 1; i <= NR; i++) {
      l = line[i]
      if (match(l, / [0-9]+\.[0-9]+: /)) {
        s = substr(l, RSTART + 1, RLENGTH - 1); d = index(s, ".")
        l = substr(l, 1, RSTART) (substr(s, 1, d - 1) + r) substr(s, d) substr(l, RSTART + RLENGTH)
      }
      print l } }' "$data/ftrace-formats.txt" > "$fin"
  echo "$reps" > "$fin.reps"
fi
fbytes=$(wc -c < "$fin")
cat "$fin" > /dev/null
t_plain=$(best 3 "$ts" import -o "$work/session" "$fin")
t_fmt=$(best 3 "$ts" import --formats "$data/tracefs-events" -o "$work/session" "$fin")
nf=$(events "$work/session")
raw=$("$ts" sql --csv "$work/session" "SELECT (SELECT count(raw) FROM ftrace_event) + (SELECT count(raw) FROM sched_switch)" | tail -1)
bench_head ftrace_formats import time throughput "with --formats / without"
bench_row ftrace_formats 'tracestore import' "$t_plain s" "$(calc %.0f "$fbytes / $t_plain / 1e6") MB/s" 1
bench_row ftrace_formats '**tracestore import --formats**' "$t_fmt s" \
  "$(calc %.0f "$fbytes / $t_fmt / 1e6") MB/s" "**$(calc %.2f "$t_fmt / $t_plain")x**"
bench_note ftrace_formats "Input: Tests/Data/ftrace-formats.txt (this kernel's raw_syscalls, sched_switch, sched_wakeup, softirq_entry, syscalls futex) repeated, $((fbytes / 1000000)) MB, $nf events, $raw of them with their record rebuilt; best of 3 runs each, file in the page cache."
rm -rf "$work/session"
