#!/bin/sh
# Derives perf script and perf stat variants from samples with sed, so that
# every layout the readers accept is checked against the same oracles.
# usage: perf_derive.sh KIND INPUT OUTPUT [SEP]
#   script-default    ftrace text -> perf script's default layout
#                     "COMM TID [CPU] SECONDS.USECS: sys:event: fields"
#   script-pidtid-ns  -> "COMM PID/TID [CPU] SECONDS.NSECS: sys:event: ..."
#                     (perf script -F comm,pid,tid,cpu,time,event,trace --ns)
#   script-time-ns    -> "SECONDS.NSECS: sys:event: fields"
#                     (perf script -F time,event,trace --ns)
#   stat-sep SEP      perf stat -x '#' -> -x SEP
#   stat-rdtsc SEP    the same with seeds/001's "rdtsc N" first line
#   stat-notcounted   context-switches rows <not counted>, task-clock rows
#                     <not supported> (values emptied as perf does)
#   stat-percpu       an -A CPU column ("CPU1") before the value
set -eu
kind=$1; in=$2; out=$3; sep=${4:-}
[ "$sep" = semicolon ] && sep=";"   # CMake cannot pass a bare ;

# tracefs "COMM-PID [CPU] FLAGS SECONDS.USECS: EVENT: FIELDS" split into
# \1 comm, \2 pid, \3 cpu, \4 seconds, \5 usecs, \6 event, \7 fields; the
# subsystem comes from the event's name.
split='s/^ *(.+)-([0-9]+) +\[([0-9]+)\] [^ ]+ +([0-9]+)\.([0-9]+): ([a-z_]+): ?(.*)$'
subsys='s/ SYS:(page_fault_)/ exceptions:\1/; s/ SYS:(sched_)/ sched:\1/; s/ SYS:(kvm_)/ kvm:\1/'

case $kind in
script-default)   sed -E -e '/^#/d' -e "$split/\1 \2 [\3] \4.\5: SYS:\6: \7/" -e "$subsys" "$in" > "$out" ;;
script-pidtid-ns) sed -E -e '/^#/d' -e "$split/\1 \2\/\2 [\3] \4.\5000: SYS:\6: \7/" -e "$subsys" "$in" > "$out" ;;
script-time-ns)   sed -E -e '/^#/d' -e "$split/   \4.\5000: SYS:\6: \7/" -e "$subsys" "$in" > "$out" ;;
stat-sep)         sed -e "/^ *[0-9]/s/#/$sep/g" "$in" > "$out" ;;
stat-rdtsc)       { echo "rdtsc 4159316478"; sed -e "/^ *[0-9]/s/#/$sep/g" "$in"; } > "$out" ;;
stat-notcounted)  sed -E -e 's/^( *[0-9.]+)#[0-9.]+#(#context-switches#)[0-9]+#/\1#<not counted>#\20#/' \
                         -e 's/^( *[0-9.]+)#[0-9.]+#(msec#task-clock#)[0-9]+#([0-9.]+)#[^#]*#.*$/\1#<not supported>#\20#\3##/' \
                         "$in" > "$out" ;;
stat-percpu)      sed -E -e 's/^( *[0-9]+\.[0-9]+)#/\1#CPU1#/' "$in" > "$out" ;;
*) echo "unknown kind $kind"; exit 2 ;;
esac
[ -s "$out" ] || { echo "nothing derived"; exit 1; }
