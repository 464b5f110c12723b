#!/bin/sh
# ftrace text import speed next to wc -l and grep -c over the same file, in
# the same run (the file is in the page cache for all three).
# usage: bench_import.sh TRACESTORE [MB] [WORKDIR]
# The input is the bundled capture repeated until it is about MB megabytes,
# each copy shifted by one second so timestamps stay in order.
# Prints result lines for the table `ftrace` (see bench_lib.sh).
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
rm -rf "$work/session"
