#!/bin/sh
# A fresh trace.dat of the events trace-cmd report prints through
# libtraceevent's plugins, recorded here with tracefs and `trace-cmd
# extract`, and checked event by event (name, time, CPU, task, text)
# against `trace-cmd report` of the same file (tracedat_oracle.py):
#   kmem:*                 the allocations of the workload below
#   tlb:tlb_flush          FutexOps' mprotect/munmap of pages two threads used
#   ftrace:kernel_stack    a stacktrace trigger on tlb_flush
#   syscalls:sys_enter_futex, sys_exit_futex
#                          FutexOps: every futex command, contended mutexes
#   jbd2:*                 writes and fsyncs on ext4 with a journal: a
#                          loop-mounted image, else /tmp's file system if it
#                          has a journal, else not checked (said so)
#   ftrace:print, raw_data FutexOps' trace_marker and trace_marker_raw writes
#   ftrace:function        the function tracer on a few functions, when the
#                          kernel lets current_tracer and set_ftrace_filter be
#                          written (said so when not: gen_tracedat.py plugins
#                          covers it, and trace_printk's bprint/bputs)
#   sched, hrtimer         as a typical capture has them
# The top-level buffer's settings are restored on exit.  Exit 77 (skipped)
# only without root, tracefs or trace-cmd.
# usage: tracedat_plugins.sh TRACESTORE FUTEXOPS ORACLE.py WORKDIR
set -u
ts=$1; futexops=$2; oracle=$3; work=$4
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for tracefs"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T 2>/dev/null || skip "tracefs cannot be mounted"
[ -e $T/trace ] || skip "no tracefs at $T"
command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"

rm -rf "$work"; mkdir -p "$work/mnt"
old_kb=$(cat $T/buffer_size_kb)
old_on=$(cat $T/tracing_on)
old_events=$(cat $T/set_event)
old_tracer=$(cat $T/current_tracer)
trigger=$T/events/tlb/tlb_flush/trigger
mounted=
function=
restore() {
  echo 0 > $T/tracing_on
  [ -w "$trigger" ] && echo '!stacktrace' > "$trigger" 2>/dev/null
  if [ -n "$function" ]; then
    echo nop > $T/current_tracer
    echo > $T/set_ftrace_filter
    echo "$old_tracer" > $T/current_tracer
  fi
  echo > $T/set_event
  for e in $old_events; do echo "$e" >> $T/set_event; done
  echo > $T/trace
  echo "$old_kb" > $T/buffer_size_kb
  echo "$old_on" > $T/tracing_on
  [ -n "$mounted" ] && umount "$work/mnt"
  rm -f "$work/ext4.img"
}
trap restore EXIT
trap 'exit 1' INT TERM

# An ext4 file system with a journal, for jbd2.
fs=
if command -v mkfs.ext4 >/dev/null && truncate -s 64M "$work/ext4.img" &&
   mkfs.ext4 -q -F "$work/ext4.img" >/dev/null 2>&1 &&
   mount -o loop "$work/ext4.img" "$work/mnt" 2>/dev/null; then
  mounted=1; fs=$work/mnt
else
  dev=$(findmnt -no SOURCE -T "$work" 2>/dev/null)
  if [ "$(findmnt -no FSTYPE -T "$work" 2>/dev/null)" = ext4 ] &&
     dumpe2fs -h "$dev" 2>/dev/null | grep -q has_journal; then
    fs=$work
  else
    echo "note: no ext4 file system with a journal here (no loop mount, $work on a file system without one): jbd2 not checked"
  fi
fi

echo 0 > $T/tracing_on
echo > $T/set_event
echo > $T/trace
echo 4096 > $T/buffer_size_kb
for e in kmem tlb syscalls/sys_enter_futex syscalls/sys_exit_futex jbd2 \
         sched/sched_switch sched/sched_wakeup timer/hrtimer_start \
         timer/hrtimer_expire_entry; do
  echo 1 > $T/events/$e/enable || { echo "FAIL: cannot enable $e"; exit 1; }
done

# The function tracer on a few functions, if this kernel allows it.
if echo 'do_fsync vfs_fsync_range __x64_sys_futex' > $T/set_ftrace_filter 2>/dev/null &&
   echo function > $T/current_tracer 2>/dev/null; then
  function=function
else
  echo > $T/set_ftrace_filter 2>/dev/null
  echo "note: this kernel refuses set_ftrace_filter or current_tracer=function: the function tracer is not recorded here (the synthetic plugins.dat tests check it)"
fi

echo 1 > $T/tracing_on
echo 'stacktrace:30' > "$trigger" || { echo "FAIL: cannot set a stacktrace trigger"; exit 1; }
"$futexops" $T/trace_marker 20 || { echo "FAIL: FutexOps"; exit 1; }
if [ -n "$fs" ]; then
  for i in 1 2 3; do
    dd if=/dev/urandom of="$fs/f$i" bs=64k count=4 conv=fsync status=none
  done
  rm -f "$fs/f1"; sync -f "$fs/f2"; rm -f "$fs/f2" "$fs/f3"
fi
echo 0 > $T/tracing_on
echo '!stacktrace' > "$trigger"

( cd "$work" && trace-cmd extract -o "$work/trace.dat" > "$work/extract.log" 2>&1 ) ||
  { cat "$work/extract.log"; echo "FAIL: trace-cmd extract"; exit 1; }

expect=kmalloc,kfree,kmem_cache_alloc,kmem_cache_free,mm_page_alloc,tlb_flush,kernel_stack
expect=$expect,sys_enter_futex,sys_exit_futex,print,raw_data,sched_switch
[ -n "$fs" ] && expect=$expect,jbd2_start_commit,jbd2_run_stats
[ -n "$function" ] && expect=$expect,function
python3 "$oracle" "$ts" "$work/trace.dat" "$work/check" counts events fields clock "expect=$expect"
