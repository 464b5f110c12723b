#!/bin/sh
# kvmtrace speed: `tracestore import` and `tracestore kvmtrace-format` against
# the seed's rules as a Python 3 reference decoder, in the same run.
# usage: bench_kvmtrace.sh TRACESTORE SHARED_DIR [MB] [WORKDIR]
# The input is gen_kvmtrace.py's stream of about MB megabytes (kept in
# WORKDIR between runs).  The reference decodes about 5 MB/s, so it runs on
# a 5 MB input from the same generator, and so does tracestore, for a ratio
# on the same input; the large input gives tracestore's throughput.
set -eu
ts=$1; shared=$2; mb=${3:-200}; work=${4:-${TMPDIR:-/tmp}/tracer-bench-kvmtrace}
gen=$shared/tools/gen_kvmtrace.py
ref=$shared/tools/kvmtrace_format_reference.py
formats=$shared/data/kvmtrace/formats
mkdir -p "$work"
big=$work/big.bin; small=$work/small.bin
records=$(( mb * 40000 ))            # ~25 bytes per record
if [ ! -s "$big" ] || [ "$(cat "$work/records" 2>/dev/null)" != "$records" ]; then
  python3 "$gen" "$records" 1 > "$big"
  echo "$records" > "$work/records"
fi
[ -s "$small" ] || python3 "$gen" 200000 2 > "$small"

now() { date +%s.%N; }
best() {  # best of three wall-clock runs of "$@" (stdin from $in); the
          # previous session is removed and written back before the clock
  b=""; for i in 1 2 3; do
    rm -rf "$work/session"; sync
    t0=$(now); "$@" < "$in" > /dev/null 2>&1; t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l); if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done; echo "$b"; }
import() { "$ts" import -o "$work/session" "$1"; }
mbps() { echo "scale=1; $1 / $2 / 1000000" | bc -l; }

bytes=$(wc -c < "$big"); sbytes=$(wc -c < "$small")
cat "$big" "$small" > /dev/null

in=/dev/null
t_imp=$(best import "$big")
events=$("$ts" sql --csv "$work/session" "SELECT sum(events) FROM source" | tail -1)
rm -rf "$work/session"; sync
rss=$(python3 "$(dirname "$0")/peak_rss.py" "$ts" import -o "$work/session" "$big" 2>&1 |
      awk '/^peak_rss_mb/ { print $2 }')
in=$big; t_fmt=$(best "$ts" kvmtrace-format "$formats")
in=$small; t_fmt_small=$(best "$ts" kvmtrace-format "$formats")
in=/dev/null; t_imp_small=$(best import "$small")
t0=$(now); python3 "$ref" "$formats" < "$small" > /dev/null; t1=$(now)
t_ref=$(echo "$t1 - $t0" | bc -l)

printf '| input | %s MB, %s records (gen_kvmtrace.py) |\n' "$(( bytes / 1000000 ))" "$events"
printf '| tracestore import | %.3f s | %s MB/s, %s records/s | peak RSS %s MB |\n' "$t_imp" \
  "$(mbps "$bytes" "$t_imp")" "$(echo "scale=0; $events / $t_imp" | bc -l)" "$rss"
printf '| tracestore kvmtrace-format > /dev/null | %.3f s | %s MB/s |\n' "$t_fmt" "$(mbps "$bytes" "$t_fmt")"
printf '| reference (Python), %s MB input | %.3f s | %s MB/s |\n' "$(( sbytes / 1000000 ))" "$t_ref" "$(mbps "$sbytes" "$t_ref")"
printf '| tracestore kvmtrace-format, same %s MB | %.3f s | %s MB/s | %s x the reference |\n' \
  "$(( sbytes / 1000000 ))" "$t_fmt_small" "$(mbps "$sbytes" "$t_fmt_small")" "$(echo "scale=0; $t_ref / $t_fmt_small" | bc -l)"
printf '| tracestore import, same %s MB | %.3f s | %s MB/s | %s x the reference |\n' \
  "$(( sbytes / 1000000 ))" "$t_imp_small" "$(mbps "$sbytes" "$t_imp_small")" "$(echo "scale=0; $t_ref / $t_imp_small" | bc -l)"
printf '| import throughput / reference throughput | %s x |\n' \
  "$(echo "scale=0; ($bytes / $t_imp) / ($sbytes / $t_ref)" | bc -l)"
printf '| kvmtrace-format throughput / reference throughput | %s x |\n' \
  "$(echo "scale=0; ($bytes / $t_fmt) / ($sbytes / $t_ref)" | bc -l)"
if [ "$(echo "$bytes / $t_imp >= 1000000000" | bc -l)" = 1 ]; then
  echo "import: at or above the 1 GB/s target"
else
  echo "import: below the 1 GB/s target (see BENCHMARKS.md)"
fi
rm -rf "$work/session"
