#!/bin/sh
#
# record_vs_toplevel.sh TRACESTORE TOUCHPAGES KVMGUEST WORKDIR
#
# Records one run of the page-toucher and then the KVM guest (an sh -c
# wrapper runs both) with `tracestore record` (its own tracefs instance)
# while the same events are enabled in the top-level buffer; the top-level
# capture, read by `trace-cmd extract` + `trace-cmd report`, is the oracle.
# Counted on both sides: the page-toucher's page_fault_user events and the
# sched_switch events in or out of it, after its sched_process_exec (the
# recorder starts following the command just before the exec, the
# top-level buffer sees it from its fork); and every kvm event of the
# guest, per event name, and its text: the args column against what
# trace-cmd report prints (with its default plugins).  Both sides must
# report zero lost events.  Exit 77 (CTest skip) without root, tracefs or
# trace-cmd; without /dev/kvm only the kvm part is left out.
#
set -u
TS=$1; TP=$2; KG=$3; W=$4
. "$(dirname "$0")/record_lib.sh"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"

EVENTS="exceptions:page_fault_user sched:sched_switch sched:sched_process_exec"
if [ -c /dev/kvm ]; then
  EVENTS="$EVENTS kvm"
else
  echo "no /dev/kvm: the kvm events are not compared"; KG=
fi

# Top level: save, clear, enable the same events on the mono clock.
old_on=$(cat $T/tracing_on); old_kb=$(cat $T/buffer_size_kb)
old_clock=$(sed 's/.*\[\(.*\)\].*/\1/' $T/trace_clock)
restore(){
  echo 0 > $T/tracing_on
  for e in $EVENTS; do
    echo 0 > $T/events/$(echo $e | tr : /)/enable
  done
  echo > $T/trace
  echo "$old_kb" > $T/buffer_size_kb
  echo "$old_clock" > $T/trace_clock
  echo "$old_on" > $T/tracing_on
}
trap restore EXIT
echo 0 > $T/tracing_on
echo 8192 > $T/buffer_size_kb
echo mono > $T/trace_clock
echo > $T/trace
for e in $EVENTS; do echo 1 > $T/events/$(echo $e | tr : /)/enable; done
echo 1 > $T/tracing_on

"$TS" record $(for e in $EVENTS; do printf -- '-e %s ' $e; done) -o "$W/session" \
     -- sh -c '"$0" 300 20 5 && { [ -z "$1" ] || "$1" 2000 100 10 > "$2"; }' \
        "$TP" "$KG" "$W/kvm.out" > "$W/workload.out" 2> "$W/record.err" \
  || { cat "$W/record.err"; fail "tracestore record failed"; }
echo 0 > $T/tracing_on
cat "$W/record.err"

PID=$(head -1 "$W/workload.out")
case "$PID" in ''|*[!0-9]*) fail "no pid from the workload";; esac

lost_top=0
for s in $T/per_cpu/cpu*/stats; do
  n=$(awk -F: '/^overrun|^commit overrun|^dropped events/ {s+=$2} END {print s+0}' $s)
  lost_top=$((lost_top + n))
done
(cd "$W" && trace-cmd extract -o top.dat > extract.log 2>&1) \
  || { cat "$W/extract.log"; fail "trace-cmd extract failed"; }
trace-cmd report -i "$W/top.dat" > "$W/top.txt" 2> "$W/report.err" \
  || fail "trace-cmd report failed"

# Oracle: events of PID after its exec, from the top-level report.
# A line is "COMM-PID [CPU] TS: EVENT: ..."; sched_switch names its tasks
# as COMM:PID or prev_pid=PID / next_pid=PID depending on the plugin.
awk -v pid="$PID" '
  { if (match($0, /-[0-9]+ +\[[0-9]+\]/) == 0) next
    p = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", p) }
  / sched_process_exec: / && p == pid { exec = 1 }
  !exec { next }
  / page_fault_user: / && p == pid { pf++ }
  / sched_switch: / {
    if ($0 ~ (":" pid " \\[") || $0 ~ ("prev_pid=" pid " ") ||
        $0 ~ ("next_pid=" pid "( |$)")) sw++ }
  END { printf "%d %d %d\n", exec, pf, sw }' "$W/top.txt" > "$W/oracle.txt"
read o_exec o_pf o_sw < "$W/oracle.txt"
[ "$o_exec" = 1 ] || fail "the top-level capture has no exec of $PID"

q(){ "$TS" sql --csv "$W/session" "$1" | tail -1; }
EXEC_TS="(SELECT min(ts) FROM ftrace_event WHERE name='sched_process_exec' AND tid=$PID)"
s_pf=$(q "SELECT count(*) FROM page_fault WHERE tid=$PID AND ts>=$EXEC_TS")
s_sw=$(q "SELECT count(*) FROM sched_switch WHERE (prev_pid=$PID OR next_pid=$PID) AND ts>=$EXEC_TS")
s_lost=$("$TS" info --json "$W/session" | tr -d ' \n' | grep -o '"dropped":[0-9]*' | awk -F: '{s+=$2} END {print s+0}')

echo "page_fault_user: session $s_pf, top-level $o_pf"
echo "sched_switch:    session $s_sw, top-level $o_sw"
echo "lost:            session $s_lost, top-level $lost_top"
[ "$lost_top" = 0 ] || fail "the top-level buffer lost events"
[ "$s_lost" = 0 ] || fail "the session lost events"
[ "$o_pf" -ge 6000 ] || fail "the workload made too few faults ($o_pf)"
[ "$s_pf" = "$o_pf" ] || fail "page_fault_user counts differ"
[ "$s_sw" = "$o_sw" ] || fail "sched_switch counts differ"

# kvm: every event of the guest's pid (the first line of its output), in
# order, as "NAME<tab>ARGS" with the args' outer blanks trimmed (trace-cmd
# pads them), from the report and from the session.
if [ -n "$KG" ]; then
  KPID=$(head -1 "$W/kvm.out")
  case "$KPID" in ''|*[!0-9]*) fail "no pid from the KVM guest";; esac
  tail -1 "$W/kvm.out" | grep -q "^exits: io 2000 " ||
    fail "the KVM guest did not finish: $(tail -1 "$W/kvm.out")"
  TAB=$(printf '\t')
  sed -n -E "s/^.*-$KPID +\[[0-9]+\] +[0-9]+\.[0-9]+: +(kvm[a-z0-9_]*): ?(.*)\$/\1$TAB\2/p" \
      "$W/top.txt" | sed -E "s/[ $TAB]+\$//; s/$TAB[ $TAB]+/$TAB/" > "$W/kvm_top.txt"
  # One CSV column: a field with a comma or quote is quoted, "" inside.
  "$TS" sql --csv "$W/session" "SELECT name || char(9) || coalesce(args, '')
      FROM ftrace_event WHERE tid=$KPID AND name LIKE 'kvm%' ORDER BY id" |
    sed 1d | sed -E '/^"/{s/^"//; s/"$//; s/""/"/g}' |
    sed -E "s/[ $TAB]+\$//; s/$TAB[ $TAB]+/$TAB/" > "$W/kvm_session.txt"
  cut -f1 "$W/kvm_top.txt" | sort | uniq -c > "$W/kvm_top_counts.txt"
  cut -f1 "$W/kvm_session.txt" | sort | uniq -c > "$W/kvm_session_counts.txt"
  echo "kvm events of the guest (top-level counts):"
  cat "$W/kvm_top_counts.txt"
  grep -q " kvm_pio$" "$W/kvm_top_counts.txt" ||
    fail "the top-level capture has no kvm_pio of $KPID"
  diff "$W/kvm_top_counts.txt" "$W/kvm_session_counts.txt" ||
    fail "kvm event counts differ (< top-level, > session)"
  diff "$W/kvm_top.txt" "$W/kvm_session.txt" | head -20
  cmp -s "$W/kvm_top.txt" "$W/kvm_session.txt" ||
    fail "kvm event texts differ (< trace-cmd report, > session)"
  echo "kvm args: $(wc -l < "$W/kvm_top.txt") events print as trace-cmd report prints them"
fi
check_instances
echo PASS
