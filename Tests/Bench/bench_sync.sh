#!/bin/sh
# What durability costs (docs/durability.md): the same work with the
# session synced only when opened and closed (--sync-interval 0, the
# reference) and every second and every 0.1 s, in one run.
#   import        the ftrace sample repeated to 10^6 and 10^7 events
#   trace-python  a program making 10^6 and 10^7 calls (the syncs run on
#                 the tracer's committer thread; the program's thread pays
#                 what they take from it)
# Each figure is the best of 3; the ratio is against the reference of the
# same size.  (10^8 events would be a 10 GB text input; the cost per sync
# is a flush of what was written since the last, so it follows the write
# rate, not the size: see the note.)
# usage: bench_sync.sh TRACESTORE [WORKDIR]
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; work=${2:-${TMPDIR:-/tmp}/tracer-bench-sync}
mkdir -p "$work"
sample=$(dirname "$0")/../Data/ftrace-capture-1.txt
per_mb=$(awk 'END { print NR }' "$sample")    # events per copy of the sample
sample_mb=$(calc %.6f "$(wc -c < "$sample") / 1e6")

bench_head sync input size "sync-interval 0 (open, close)" "1 s" "0.1 s"
for n in 1000000 10000000; do
  mb=$(calc %d "$n / $per_mb * $sample_mb + 1")
  gen_ftrace "$sample" "$mb" "$work/in-$n.txt"
  cat "$work/in-$n.txt" > /dev/null
  t0=$(best 3 "$ts" import --sync-interval 0 -o "$work/session" "$work/in-$n.txt")
  t1=$(best 3 "$ts" import --sync-interval 1 -o "$work/session" "$work/in-$n.txt")
  t2=$(best 3 "$ts" import --sync-interval 0.1 -o "$work/session" "$work/in-$n.txt")
  e=$(awk 'END { print NR }' "$work/in-$n.txt")
  bench_row sync "tracestore import" "$e events" "$t0 s" \
    "$t1 s ($(calc %.2f "$t1 / $t0")x)" "$t2 s ($(calc %.2f "$t2 / $t0")x)"
done

cat > "$work/calls.py" <<'PY'
import sys
def leaf(i):
    return i
def main(n):
    s = 0
    for i in range(n // 2):
        s += leaf(i)
    return s
main(int(sys.argv[1]))
PY
for n in 1000000 10000000; do
  t0=$(best 3 "$ts" trace-python --sync-interval 0 -o "$work/session" -- "$work/calls.py" "$n")
  t1=$(best 3 "$ts" trace-python --sync-interval 1 -o "$work/session" -- "$work/calls.py" "$n")
  t2=$(best 3 "$ts" trace-python --sync-interval 0.1 -o "$work/session" -- "$work/calls.py" "$n")
  bench_row sync "tracestore trace-python" "$n calls" "$t0 s" \
    "$t1 s ($(calc %.2f "$t1 / $t0")x)" "$t2 s ($(calc %.2f "$t2 / $t0")x)"
done
bench_note sync "A sync flushes every store file (fdatasync) and replaces session.durable (write, fdatasync, rename, fsync of the directory): its cost is the device's, for what was written since the last sync."
rm -rf "$work/session"
