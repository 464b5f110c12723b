#!/bin/sh
# What durability costs (docs/durability.md): the same work with the
# session synced only when opened and closed (--sync-interval 0, the
# reference) and every second and every 0.1 s, in one run.
#   import        the ftrace sample repeated to 10^6 and 10^7 events
#   trace-python  a program making 10^6 and 10^7 calls (the syncs run on
#                 the tracer's committer thread; the program's thread pays
#                 what they take from it)
# The three settings run in turn, 5 rounds, each figure the best of its 5
# (the machine is shared: turns spread its noise over all three); the
# ratio is against the reference of the same size.  (10^8 events would be a 10 GB text input; the cost per sync
# is a flush of what was written since the last, so it follows the write
# rate, not the size: see the note.)
# usage: bench_sync.sh TRACESTORE [WORKDIR [SIZES]]   (SIZES: default
#        "1000000 10000000", the events and the calls)
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; work=${2:-${TMPDIR:-/tmp}/tracer-bench-sync}
sizes=${3:-1000000 10000000}
mkdir -p "$work"
sample=$(dirname "$0")/../Data/ftrace-capture-1.txt
per_mb=$(awk 'END { print NR }' "$sample")    # events per copy of the sample
sample_mb=$(calc %.6f "$(wc -c < "$sample") / 1e6")

# turns CMD...: runs CMD --sync-interval I ... for I in 0, 1 and 0.1, in
# turn, 5 rounds (the session removed and written back off the clock);
# sets T0, T1 and T2 to the best of each.  CMD's "@" stands for the option.
turns() {
  T0=""; T1=""; T2=""; round=0
  while [ $round -lt 5 ]; do
    for i in 0 1 2; do
      case $i in 0) iv=0 ;; 1) iv=1 ;; 2) iv=0.1 ;; esac
      t=$(best 1 "$@" --sync-interval "$iv" -o "$work/session" $TAIL)
      eval "b=\$T$i"
      if [ -z "$b" ] || [ "$(calc %d "$t < $b")" = 1 ]; then eval "T$i=$t"; fi
    done
    round=$((round + 1))
  done
}

bench_head sync input size "sync-interval 0 (open, close)" "1 s" "0.1 s"
for n in $sizes; do
  mb=$(calc %d "$n / $per_mb * $sample_mb + 1")
  gen_ftrace "$sample" "$mb" "$work/in-$n.txt"
  cat "$work/in-$n.txt" > /dev/null
  TAIL="$work/in-$n.txt" turns "$ts" import
  t0=$T0 t1=$T1 t2=$T2
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
for n in $sizes; do
  TAIL="-- $work/calls.py $n" turns "$ts" trace-python
  t0=$T0 t1=$T1 t2=$T2
  bench_row sync "tracestore trace-python" "$n calls" "$t0 s" \
    "$t1 s ($(calc %.2f "$t1 / $t0")x)" "$t2 s ($(calc %.2f "$t2 / $t0")x)"
done
bench_note sync "A sync flushes every store file (fdatasync) and replaces session.durable (write, fdatasync, rename, fsync of the directory): its cost is the device's, for what was written since the last sync."
rm -rf "$work/session"
