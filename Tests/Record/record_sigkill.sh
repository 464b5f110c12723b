#!/bin/sh
#
# record_sigkill.sh TRACESTORE TOUCHPAGES WORKDIR
#
# SIGKILLs `tracestore record` while it records the page-toucher, then:
#   - the session opens (`tracestore info`, SQL), and holds at least the
#     records a reader counted just before the kill (they were committed);
#   - every record reads back whole: each is a page_fault_user of the
#     workload's pid (set_event_pid lets nothing else in), with an address,
#     a CPU and the x86 user bit (4) in its error code, and `info` counts
#     as many records as SQL does;
#   - the dead recorder's instances/tracestore-PID is still there, and the
#     next `tracestore record` removes it.
# The workload, orphaned by the kill, is killed by its pid (its first line
# of output).  Exit 77 (CTest skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; W=$3
. "$(dirname "$0")/record_lib.sh"

q(){ "$TS" sql --csv "$S" "$1" 2>> "$W/sql.err" | tail -1; }

"$TS" record -e exceptions:page_fault_user -o "$S" \
     -- "$TP" 300 2000 10 > "$W/workload.out" 2> "$W/record.err" &
RPID=$!
WPID=
cleanup(){
  kill -KILL $RPID 2>/dev/null
  [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null
}
trap cleanup EXIT

# Wait until the workload runs and some faults are committed.
i=0
while :; do
  WPID=$(head -1 "$W/workload.out" 2>/dev/null)
  case "$WPID" in ''|*[!0-9]*) WPID=;; esac
  c=$(q "SELECT count(*) FROM page_fault")
  case "$c" in ''|*[!0-9]*) c=0;; esac
  [ -n "$WPID" ] && [ "$c" -ge 20000 ] && break
  kill -0 $RPID 2>/dev/null || { cat "$W/record.err";
    fail "the recorder ended early"; }
  i=$((i + 1)); [ $i -le 300 ] || fail "no committed faults after 15 s"
  sleep 0.05
done
before=$(q "SELECT count(*) FROM page_fault")
kill -KILL $RPID
wait $RPID
[ -d /proc/$RPID ] && fail "recorder $RPID still exists after SIGKILL"
kill -KILL "$WPID" 2>/dev/null
i=0
while [ -d /proc/$WPID ] && ! grep -q '^State:.*Z' /proc/$WPID/status \
        2>/dev/null; do
  i=$((i + 1)); [ $i -le 100 ] || fail "workload $WPID does not die"
  sleep 0.05
done
[ -d $T/instances/tracestore-$RPID ] ||
  fail "no instance tracestore-$RPID left to clean up (test is moot)"

: > "$W/sql.err"
"$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt";
  fail "tracestore info cannot open the killed session"; }
cat "$W/info.txt"
n_info=$(awk '$1 == "page_fault" { print $2 }' "$W/info.txt")
n=$(q "SELECT count(*) FROM page_fault")
good=$(q "SELECT count(*) FROM page_fault WHERE tid=$WPID AND
          name='page_fault_user' AND address IS NOT NULL AND
          cpu IS NOT NULL AND (error_code & 4)=4")
echo "before kill $before, after: info $n_info, sql $n, whole $good"
[ -s "$W/sql.err" ] && { cat "$W/sql.err"; fail "SQL on the session failed"; }
[ "$n" -ge "$before" ] || fail "committed records were lost ($before -> $n)"
[ "$n_info" = "$n" ] || fail "info and SQL disagree ($n_info, $n)"
[ "$good" = "$n" ] || fail "$((n - good)) records do not read back whole"

"$TS" record -e exceptions:page_fault_user -o "$W/session2" -- true \
  2> "$W/record2.err" || { cat "$W/record2.err"; fail "the next run failed"; }
cat "$W/record2.err"
[ -d $T/instances/tracestore-$RPID ] &&
  fail "the next run left the stale instance tracestore-$RPID"
grep -q "removed the instance of recorder $RPID" "$W/record2.err" ||
  fail "the next run did not say it removed tracestore-$RPID"
echo PASS
