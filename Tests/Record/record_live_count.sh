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

EXT=${EXT%.so}
sq(){ printf '%s' "$1" | sed "s/'/''/g"; }

( "$TS" record -e exceptions:page_fault_user -o "$S" \
     -- "$TP" 300 300 10 > "$W/workload.out" 2> "$W/record.err"
  echo $? > "$W/record.rc" ) &

# The reader starts once the session has a page_fault store.
i=0
until "$TS" sql --csv "$S" "SELECT count(*) FROM page_fault" \
        > /dev/null 2>&1; do
  [ -f "$W/record.rc" ] && { cat "$W/record.err"; fail "the recording "\
"ended before the session could be read"; }
  i=$((i + 1)); [ $i -le 200 ] || fail "no readable session after 10 s"
  sleep 0.05
done

{ echo ".load '$(sq "$EXT")'"
  echo ".output /dev/null"
  echo "SELECT tracestore_attach('$(sq "$S")');"
  echo ".output stdout"
  while [ ! -f "$W/record.rc" ]; do
    echo "SELECT count(*) FROM page_fault;"
    sleep 0.05
  done
} | "$SQLITE3" -batch -bail :memory: > "$W/counts.txt" 2> "$W/sqlite3.err" \
  || { cat "$W/sqlite3.err"; fail "the sqlite3 shell failed"; }
wait
cat "$W/record.err"
[ "$(cat "$W/record.rc")" = 0 ] || fail "tracestore record failed"

final=$("$TS" sql --csv "$S" "SELECT count(*) FROM page_fault" | tail -1)
echo "final count $final; counts read while recording:"
tr '\n' ' ' < "$W/counts.txt"; echo
[ "$final" -ge 90000 ] || fail "final count $final < 300 x 300 faults"
awk -v final="$final" '
  $0 !~ /^[0-9]+$/ { print "not a count: " $0; bad = 1; exit }
  NR > 1 && $1 + 0 < prev { print "decrease: " prev " -> " $1; bad = 1 }
  { prev = $1 + 0 }
  $1 > 0 && $1 < final && !seen[$1]++ { n++ }
  END { if (bad) exit 1
        if (n < 3) { print n " distinct values while recording"; exit 1 }
        print n " distinct values while recording" }' "$W/counts.txt" \
  || fail "the counts did not grow as required"
for i in $(ls $T/instances); do
  case "$i" in tracestore-*) [ -d /proc/${i#tracestore-} ] ||
    fail "instance $i left behind";; esac
done
echo PASS
