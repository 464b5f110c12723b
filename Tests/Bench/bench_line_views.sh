#!/bin/sh
# The line views (trace-python --lines) at 10^6, 10^7, 10^8 rows, from the
# line rollup and from the rows, against a full scan of the line store in
# the same run.
#
#   sh Tests/Bench/bench_line_views.sh BUILD DIR ["1000000 10000000 100000000"]
#
# BUILD/Tests/GenSession writes N line rows (200 functions, 20 lines each,
# as trace-python --lines writes them; its writer folds the rollup at each
# commit) into DIR/lines-N; then sqlite3 with the extension times, best of
# 3 (1 of the views over the rows from 10^8 rows: minutes each; wall, the
# machine is shared):
#   scan        SELECT count(*), sum(dur) FROM line    (the reference)
#   line_time   SELECT count(*) FROM line_time         (kernprof's table)
#   line_hot    SELECT * FROM line_hot LIMIT 10        (hottest lines)
# each as attached (from the rollup: O(lines of the program)) and in
# tracestore_attach's 'scan' mode (the SQL over every row: one GROUP BY,
# O(rows log rows)), and prints each over the scan.
set -eu
BUILD=$1 DIR=$2 SIZES=${3:-"1000000 10000000 100000000"}
mkdir -p "$DIR"
now() { date +%s.%N; }
best() {    # best of $REPEAT wall seconds: session $1, attach mode $2, SQL $3
  b=
  for k in $(seq "$REPEAT"); do
    t0=$(now)
    sqlite3 :memory: -cmd ".load $BUILD/tracestore" \
      "SELECT tracestore_attach('$1', 'temp', '$2');" "$3" > /dev/null
    t=$(echo "$(now) - $t0" | bc)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
for n in $SIZES; do
  s=$DIR/lines-$n
  rm -rf "$s"
  "$BUILD/Tests/GenSession" --lines "$n" --commit-every 65536 "$s"
  REPEAT=3
  scan=$(best "$s" "" "SELECT count(*), sum(dur) FROM line;")
  lt=$(best "$s" "" "SELECT count(*) FROM line_time;")
  hot=$(best "$s" "" "SELECT * FROM line_hot LIMIT 10;")
  [ "$n" -ge 100000000 ] && REPEAT=1
  lts=$(best "$s" scan "SELECT count(*) FROM line_time;")
  hots=$(best "$s" scan "SELECT * FROM line_hot LIMIT 10;")
  printf '@bench line_views rows=%s scan_s=%.3f line_time_s=%.3f line_hot_s=%.3f line_time_rows_s=%.3f line_hot_rows_s=%.3f line_time_over_scan=%.4f line_hot_over_scan=%.4f line_time_rows_over_scan=%.2f\n' \
    "$n" "$scan" "$lt" "$hot" "$lts" "$hots" "$(echo "$lt / $scan" | bc -l)" \
    "$(echo "$hot / $scan" | bc -l)" "$(echo "$lts / $scan" | bc -l)"
  rm -rf "$s"
done
