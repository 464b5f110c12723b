#!/bin/sh
# Records the two system call captures of the syscall_counts tests (root,
# tracefs, perf):
#
#   perf-raw-syscalls.txt   perf script of raw_syscalls:sys_enter ("NR n (...)")
#   ftrace-syscalls.txt     tracefs text of every syscalls:sys_enter_NAME and
#                           sys_exit_NAME event ("sys_NAME(...)", "sys_NAME -> R"),
#                           recorded in a tracing instance of its own, for one
#                           shell and its children
#
# Usage: record-syscalls.sh OUTDIR
set -eu
out=${1:?usage: record-syscalls.sh OUTDIR}
work=$(mktemp -d)
perf record -q -e raw_syscalls:sys_enter -o "$work/sys.data" -- ls /usr/share/doc/sqlite3 >/dev/null
perf script -i "$work/sys.data" > "$out/perf-raw-syscalls.txt" 2>/dev/null
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T
I=$T/instances/tracer-syscalls
mkdir -p $I
sh -c '
I=$1
echo 0 > $I/tracing_on
echo > $I/trace
echo 1 > $I/options/event-fork
echo $$ > $I/set_event_pid
for e in $I/events/syscalls/sys_enter_* $I/events/syscalls/sys_exit_*; do echo 1 > $e/enable 2>/dev/null || true; done
echo 1 > $I/tracing_on
ls /usr/share/doc/sqlite3 > /dev/null
cat /etc/hostname > /dev/null
echo 0 > $I/tracing_on
' sh $I
grep -v '^#' $I/trace > "$out/ftrace-syscalls.txt"
for e in $I/events/syscalls/sys_*; do echo 0 > $e/enable 2>/dev/null || true; done
echo > $I/set_event_pid
rmdir $I
rm -rf "$work"
