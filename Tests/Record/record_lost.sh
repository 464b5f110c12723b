#!/bin/sh
#
# record_lost.sh TRACESTORE WORKDIR
#
# Lost events are counted, and counted exactly: `dd bs=1 count=200000`
# makes 200000 read and 200000 write system calls (plus its start-up,
# under 1000), recorded as raw_syscalls:sys_enter into an 8 KB ring buffer
# per CPU, far too small to keep up, so most are overwritten.  The events
# stored plus the lost ones the recorder reports (its summary, and the
# ftrace_event store's `dropped` in store_info, which must agree) make
# 400000 to 401000; the summary names the CPUs that lost them.  Exit 77
# (CTest skip) without root or tracefs.
#
set -u
TS=$1; W=$2
. "$(dirname "$0")/record_lib.sh"

"$TS" record -e raw_syscalls:sys_enter -b 8 -o "$S" \
     -- dd if=/dev/zero of=/dev/null bs=1 count=200000 2> "$W/record.err" ||
  { cat "$W/record.err"; fail "tracestore record failed"; }
cat "$W/record.err"
said=$(sed -n 's/.* \([0-9][0-9]*\) lost.*/\1/p' "$W/record.err" | head -1)
[ -n "$said" ] || fail "the summary does not say how many events were lost"
set -- $("$TS" sql --csv "$S" "SELECT (SELECT count(*) FROM ftrace_event
          WHERE name='sys_enter'), (SELECT dropped FROM store_info
          WHERE name='ftrace_event')" | tail -1 | tr ',' ' ')
stored=$1 dropped=$2
echo "stored $stored, dropped (store_info) $dropped, lost (summary) $said"
[ "$dropped" = "$said" ] || fail "store_info says $dropped lost, the summary $said"
total=$((stored + dropped))
[ "$total" -ge 400000 ] && [ "$total" -le 401000 ] ||
  fail "stored + lost = $total, not 400000..401000"
if [ "$dropped" -gt 0 ]; then
  grep -q 'lost per CPU: .*cpu[0-9]' "$W/record.err" ||
    fail "the summary does not name the CPUs that lost events"
fi
echo PASS
