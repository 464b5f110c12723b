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
record_watched "$SQLITE3" "$EXT" "SELECT count(*) FROM ftrace_event" \
  -e kvm -o "$S" -- "$KG" $EXITS 1000
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
check_growing "$final"
[ "$s_exits" = "$g_exits" ] || fail "kvm_userspace_exit count differs"
[ "$s_pio" = $EXITS ] || fail "kvm_pio count differs"
[ "$s_lost" = 0 ] || fail "the session lost events"
check_instances
echo PASS
