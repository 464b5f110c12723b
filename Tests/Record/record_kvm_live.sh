#!/bin/sh
#
# record_kvm_live.sh TRACESTORE KVMGUEST SQLITE3 EXT WORKDIR
#
# `tracestore record -e kvm` records the KVM guest workload, 1500 port
# writes with a 1 ms pause after each (about 1.6 s), while one long-lived
# sqlite3 shell, with the extension loaded as a user loads it, runs
# SELECT count(*) FROM ftrace_event every 50 ms (on this machine's kvm the
# guest's events are kvm_userspace_exit, kvm_pio, kvm_emulate_insn and
# kvm_fpu, all in ftrace_event).  The counts must never decrease, and at
# least 3 distinct non-zero values must be below the final count: a value
# below it was read before the final commit, so while the recording ran.
#
# Then, per event, against the workload itself (the oracle): one
# kvm_userspace_exit per return from KVM_RUN, as the guest counted them,
# and one kvm_pio per `out`, i.e. EXITS; no lost events.  Exit 77 (CTest
# skip) without root, tracefs or /dev/kvm.
#
set -u
TS=$1; KG=$2; SQLITE3=$3; EXT=$4; W=$5
. "$(dirname "$0")/record_lib.sh"
[ -c /dev/kvm ] || skip "no /dev/kvm (KVM is not available here)"

EXITS=1500
EXT=${EXT%.so}
sq(){ printf '%s' "$1" | sed "s/'/''/g"; }

( "$TS" record -e kvm -o "$S" -- "$KG" $EXITS 1000 \
     > "$W/workload.out" 2> "$W/record.err"
  echo $? > "$W/record.rc" ) &

# The reader starts once the session can be read.
i=0
until "$TS" sql --csv "$S" "SELECT count(*) FROM ftrace_event" \
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
    echo "SELECT count(*) FROM ftrace_event;"
    sleep 0.05
  done
} | "$SQLITE3" -batch -bail :memory: > "$W/counts.txt" 2> "$W/sqlite3.err" \
  || { cat "$W/sqlite3.err"; fail "the sqlite3 shell failed"; }
wait
cat "$W/record.err"
[ "$(cat "$W/record.rc")" = 0 ] || fail "tracestore record failed"
grep -q "no /dev/kvm" "$W/record.err" && skip "KvmGuest found no /dev/kvm"

# The workload's own count: "exits: io N hlt N intr N total N".
set -- $(tail -1 "$W/workload.out")
[ "${1:-}" = exits: ] && [ "$3" = $EXITS ] ||
  fail "the workload did not finish: $(tail -1 "$W/workload.out")"
g_exits=${9}

q(){ "$TS" sql --csv "$S" "$1" | tail -1; }
final=$(q "SELECT count(*) FROM ftrace_event")
s_exits=$(q "SELECT count(*) FROM ftrace_event WHERE name='kvm_userspace_exit'")
s_pio=$(q "SELECT count(*) FROM ftrace_event WHERE name='kvm_pio'")
s_lost=$("$TS" info --json "$S" | tr -d ' \n' | grep -o '"dropped":[0-9]*' |
         awk -F: '{s+=$2} END {print s+0}')

echo "final count $final; counts read while recording:"
tr '\n' ' ' < "$W/counts.txt"; echo
echo "kvm_userspace_exit: session $s_exits, workload $g_exits"
echo "kvm_pio:            session $s_pio, outs $EXITS"
echo "lost:               session $s_lost"
awk -v final="$final" '
  $0 !~ /^[0-9]+$/ { print "not a count: " $0; bad = 1; exit }
  NR > 1 && $1 + 0 < prev { print "decrease: " prev " -> " $1; bad = 1 }
  { prev = $1 + 0 }
  $1 > 0 && $1 < final && !seen[$1]++ { n++ }
  END { if (bad) exit 1
        if (n < 3) { print n " distinct values while recording"; exit 1 }
        print n " distinct values while recording" }' "$W/counts.txt" \
  || fail "the counts did not grow as required"
[ "$s_exits" = "$g_exits" ] || fail "kvm_userspace_exit count differs"
[ "$s_pio" = $EXITS ] || fail "kvm_pio count differs"
[ "$s_lost" = 0 ] || fail "the session lost events"
check_instances
echo PASS
