#!/bin/sh
#
# record_stops.sh TRACESTORE TOUCHPAGES WORKDIR
#
# The ways a recording stops other than its command's exit, each with the
# command still running:
#   --duration 1 over `sleep 30`: stops after about a second (well before
#     the sleep would end), says why, and ends the command (no sleep left).
#   --max-size 1M over an endless page-toucher: stops once the session
#     holds 1 MiB (the stores' record bytes, summed by awk over
#     `tracestore info --json`), says why, exits 0, and ends the command.
#   SIGTERM to the recorder alone (not its command's process group):
#     stops, removes its tracefs instance, ends the command.
# Exit 77 (CTest skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; W=$3
. "$(dirname "$0")/record_lib.sh"

alive(){ kill -0 "$1" 2>/dev/null; }

# --duration
t0=$(date +%s)
"$TS" record -e sched:sched_process_exit -o "$S.d" --duration 1 \
     -- sh -c 'echo $$; exec sleep 30' > "$W/d.out" 2> "$W/d.err" ||
  { cat "$W/d.err"; fail "--duration: exit status $?"; }
t1=$(date +%s)
cat "$W/d.err"
grep -q -- '--duration reached' "$W/d.err" || fail "--duration: no reason given"
[ $((t1 - t0)) -le 10 ] || fail "--duration 1 took $((t1 - t0)) s"
pid=$(head -1 "$W/d.out")
alive "$pid" && fail "--duration: the command ($pid) still runs"

# --max-size
"$TS" record -e exceptions:page_fault_user -o "$S.m" --max-size 1M \
     -- "$TP" 256 100000000 0 > "$W/m.out" 2> "$W/m.err" ||
  { cat "$W/m.err"; fail "--max-size: exit status $?"; }
cat "$W/m.err"
grep -q -- '--max-size reached' "$W/m.err" || fail "--max-size: no reason given"
pid=$(head -1 "$W/m.out")
alive "$pid" && fail "--max-size: the command ($pid) still runs"
"$TS" info --json "$S.m" > "$W/m.json" || fail "info --json failed"
stored=$(tr ',{}' '\n\n\n' < "$W/m.json" |
         awk -F: '/"records"/ { r = $2 } /"record_size"/ { s += r * $2 }
                  END { printf "%d", s }')
echo "stored: $stored bytes of records"
[ "$stored" -ge 1048576 ] || fail "--max-size 1M stopped at $stored bytes"

# SIGTERM to the recorder only
"$TS" record -e exceptions:page_fault_user -o "$S.t" \
     -- "$TP" 256 100000000 1 > "$W/t.out" 2> "$W/t.err" &
rec=$!
i=0
while [ $i -lt 100 ] && ! [ -s "$W/t.out" ]; do sleep 0.1; i=$((i + 1)); done
pid=$(head -1 "$W/t.out")
[ -n "$pid" ] || fail "SIGTERM: the workload did not start"
sleep 0.5
kill -TERM $rec
wait $rec || { cat "$W/t.err"; fail "SIGTERM: exit status $?"; }
cat "$W/t.err"
grep -q 'interrupted' "$W/t.err" || fail "SIGTERM: no reason given"
alive "$pid" && fail "SIGTERM: the command ($pid) still runs"
[ -d "$T/instances/tracestore-$rec" ] && fail "SIGTERM: instance left behind"
echo PASS
