#!/bin/sh
#
# record_live_count.sh TRACESTORE TOUCHPAGES SQLITE3 EXT WORKDIR
#
# While `tracestore record` records the page-toucher's page faults (about
# four seconds), one long-lived sqlite3 shell, with the extension loaded as
# a user loads it, runs SELECT count(*) FROM page_fault every 50 ms.  The
# counts must never decrease, and at least 3 distinct non-zero values must
# be below the final count: a value below it was read before the final
# commit, so while the recording ran.  The workload makes at least
# 300 x 300 anonymous faults, the lower bound for the final count.  Exit 77
# (CTest skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; SQLITE3=$3; EXT=$4; W=$5
. "$(dirname "$0")/record_lib.sh"

record_watched "$SQLITE3" "$EXT" "SELECT count(*) FROM page_fault" \
  -e exceptions:page_fault_user -o "$S" -- "$TP" 300 300 10

final=$("$TS" sql --csv "$S" "SELECT count(*) FROM page_fault" | tail -1)
echo "final count $final; counts read while recording:"
tr '\n' ' ' < "$W/counts.txt"; echo
[ "$final" -ge 90000 ] || fail "final count $final < 300 x 300 faults"
check_growing "$final"
check_instances
echo PASS
