#!/bin/sh
# The line views (trace-python --lines) at 10^6, 10^7, 10^8 rows, each
# against a full scan of the line store in the same run.
#
#   sh Tests/Bench/bench_line_views.sh BUILD DIR ["1000000 10000000 100000000"]
#
# BUILD/Tests/GenSession writes N line rows (200 functions, 20 lines each,
# the rows trace-python --lines writes) into DIR/lines-N; then sqlite3 with
# the extension times, best of 3 (1 from 10^8 rows: minutes each; wall,
# the machine is shared):
#   scan       SELECT count(*), sum(dur) FROM line      (the reference)
#   line_time  SELECT count(*) FROM line_time           (kernprof's table)
#   line_hot   SELECT * FROM line_hot LIMIT 10          (hottest lines)
# and prints each view's time over the scan's.  Both views are one GROUP BY
# pass over line (no rollup): they grow with the rows as the scan does.
set -eu
BUILD=$1 DIR=$2 SIZES=${3:-"1000000 10000000 100000000"}
mkdir -p "$DIR"
now() { date +%s.%N; }
best() {    # best of $REPEAT wall seconds of sqlite3 running $2 on session $1
  b=
  for k in $(seq "$REPEAT"); do
    t0=$(now)
    sqlite3 :memory: -cmd ".load $BUILD/tracestore" \
      "SELECT tracestore_attach('$1');" "$2" > /dev/null
    t=$(echo "$(now) - $t0" | bc)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
for n in $SIZES; do
  s=$DIR/lines-$n
  rm -rf "$s"
  "$BUILD/Tests/GenSession" --lines "$n" "$s"
  REPEAT=3; [ "$n" -ge 100000000 ] && REPEAT=1
  scan=$(best "$s" "SELECT count(*), sum(dur) FROM line;")
  lt=$(best "$s" "SELECT count(*) FROM line_time;")
  hot=$(best "$s" "SELECT * FROM line_hot LIMIT 10;")
  printf '@bench line_views rows=%s scan_s=%.3f line_time_s=%.3f line_hot_s=%.3f line_time_over_scan=%.2f line_hot_over_scan=%.2f\n' \
    "$n" "$scan" "$lt" "$hot" "$(echo "$lt / $scan" | bc -l)" "$(echo "$hot / $scan" | bc -l)"
  rm -rf "$s"
done
