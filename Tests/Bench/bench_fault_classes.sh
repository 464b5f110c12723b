#!/bin/sh
#
# bench_fault_classes.sh TRACESTORE TOUCHPAGES [WORKDIR]
#
# What classifying page faults hard or soft costs the live recorder (issue
# 15), as root with tracefs.  `tracestore record -e exceptions:page_fault_user
# -- TouchPages PAGES ROUNDS 0` (fresh anonymous and file pages as fast as
# the workload can fault them), alternately with the classification (the
# default: perf's minor-faults/major-faults sampled next to the events)
# and without it (TRACESTORE_NO_FAULT_COUNTS=1), REPS times each.  Per run:
# the faults recorded, the rate (faults / recording seconds, the
# recorder's own summary), lost events (the summary), rows left without
# hard, the recorder's CPU time and the workload's (user + sys,
# /usr/bin/time around each; the recorder's without its child).  A run
# counts as zero-loss when nothing was lost and, classified, every row
# has hard.  Environment: PAGES (2000), ROUNDS (400), REPS (3).
# Exit 77 (skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; W=${3:-${TMPDIR:-/tmp}/tracer-bench-fault-classes}
PAGES=${PAGES:-2000}; ROUNDS=${ROUNDS:-400}; REPS=${REPS:-3}
T=/sys/kernel/tracing
skip(){ echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for tracefs"
[ -d $T/instances ] || skip "no tracefs"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
rm -rf "$W"; mkdir -p "$W"

echo "| run | classified | faults | faults/s | lost | without hard | recorder CPU s | workload CPU s |"
echo "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
r=0
while [ $r -lt "$REPS" ]; do
  r=$((r + 1))
  for mode in yes no; do
    rm -rf "$W/s"
    if [ $mode = no ]; then
      env TRACESTORE_NO_FAULT_COUNTS=1 /usr/bin/time -f "cpu %U %S" \
        -o "$W/cpu" "$TS" record -e exceptions:page_fault_user -o "$W/s" \
        -- /usr/bin/time -f "cpu %U %S" -o "$W/wcpu" \
        "$TP" "$PAGES" "$ROUNDS" 0 > /dev/null 2> "$W/rec.err"
    else
      /usr/bin/time -f "cpu %U %S" -o "$W/cpu" "$TS" record \
        -e exceptions:page_fault_user -o "$W/s" \
        -- /usr/bin/time -f "cpu %U %S" -o "$W/wcpu" \
        "$TP" "$PAGES" "$ROUNDS" 0 > /dev/null 2> "$W/rec.err"
    fi || { cat "$W/rec.err"; exit 1; }
    line=$(grep "exited after" "$W/rec.err")
    secs=$(echo "$line" | sed -n 's/.*after \([0-9.]*\) s.*/\1/p')
    lost=$(echo "$line" | sed -n 's/.* \([0-9]*\) lost.*/\1/p')
    set -- $("$TS" sql --csv "$W/s" "SELECT count(*), count(*) - count(hard)
              FROM page_fault" | tail -1 | tr , ' ')
    # the outer time counts its children: the recorder's own is the rest
    wcpu=$(awk '/^cpu / {printf "%.2f", $2 + $3}' "$W/wcpu")
    cpu=$(awk -v w="$wcpu" '/^cpu / {printf "%.2f", $2 + $3 - w}' "$W/cpu")
    echo "| $r | $mode | $1 | $(awk -v n="$1" -v s="$secs" 'BEGIN {printf "%.0f", n / s}') | $lost | $2 | $cpu | $wcpu |"
  done
done
