#!/bin/sh
# Peak resident set of `tracestore import` on two large inputs:
#   - the bundled ftrace capture repeated (each copy shifted by one second);
#   - Chrome trace-event JSON with one span open from the first event to the
#     last around millions of short ones, so every span row is held back
#     (uncommitted) until the end and then committed in one batch.
# The issue's bound is 100 MB; the input and the stores are memory-mapped,
# so this checks that both are unmapped behind the reader (DiscardBehind).
# usage: bench_rss.sh TRACESTORE [MB] [WORKDIR]
# Prints result lines for the table `rss` (see bench_lib.sh); exit 1 if a
# peak is over the bound.
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; mb=${2:-2000}; work=${3:-${TMPDIR:-/tmp}/tracer-bench-rss}
mkdir -p "$work"; in=$work/big-ftrace.txt
gen_ftrace "$(dirname "$0")/../Data/ftrace-capture-1.txt" "$mb" "$in"
json=$work/open-span.json
if [ ! -s "$json" ] || [ "$(cat "$work/json-mb" 2>/dev/null)" != "$mb" ]; then
  awk -v target=$((mb * 1000000)) 'BEGIN {
    printf "[{\"pid\":1,\"tid\":1,\"ts\":0,\"ph\":\"B\",\"name\":\"main\"}"
    t = 1; bytes = 0
    while (bytes < target) {
      l = sprintf(",\n{\"pid\":1,\"tid\":1,\"ts\":%d,\"ph\":\"B\",\"name\":\"f%d\"},\n{\"pid\":1,\"tid\":1,\"ts\":%d.5,\"ph\":\"E\"}", t, t % 50, t)
      printf "%s", l; bytes += length(l); t++
    }
    printf ",\n{\"pid\":1,\"tid\":1,\"ts\":%d,\"ph\":\"E\"}]\n", t }' > "$json"
  echo "$mb" > "$work/json-mb"
fi

status=0
bench_head rss input size "peak RSS" "of the 100 MB bound"
measure() {  # measure LABEL FILE
  rm -rf "$work/session"
  rss=$(peak_rss "$ts" import -o "$work/session" "$2")
  bench_row rss "$1" "$(mb "$2") MB" "**$rss MB**" "$(calc %.2f "$rss / 100")"
  rm -rf "$work/session"
  [ "$(calc %d "$rss < 100")" = 1 ] || { echo "FAIL: peak RSS $rss MB >= 100 MB"; status=1; }
}
measure "ftrace text, the bundled capture repeated" "$in"
measure "Chrome JSON, one span open throughout" "$json"
exit $status
