#!/bin/sh
# A fresh trace.dat recorded on this machine with ../shared/tools/capture.sh,
# checked against trace-cmd report like the samples.  Exit 77 (skipped)
# when the capture cannot run here: not root, no tracefs, no /dev/kvm.
# usage: tracedat_capture.sh TRACESTORE CAPTURE.SH ORACLE.py WORKDIR
set -u
ts=$1; capture=$2; oracle=$3; work=$4
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "capture.sh needs root"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs nodev $T 2>/dev/null || skip "tracefs cannot be mounted"
[ -e $T/trace ] || skip "no tracefs at $T"
[ -c /dev/kvm ] || skip "no /dev/kvm for capture.sh's KVM guest"
for tool in trace-cmd gcc; do
  command -v $tool >/dev/null || skip "$tool is not installed"
done
rm -rf "$work"; mkdir -p "$work"
# capture.sh records the trace.dat first and then perf and uftrace data; a
# failure after the trace.dat (a missing tool) does not matter here.
"$capture" "$work/capture" 1 > "$work/capture.log" 2>&1
rc=$?
[ -s "$work/capture/trace.dat" ] || { cat "$work/capture.log"; echo "FAIL: capture.sh (exit $rc) wrote no trace.dat"; exit 1; }
[ $rc = 0 ] || echo "note: capture.sh exited $rc after writing trace.dat"
exec python3 "$oracle" "$ts" "$work/capture/trace.dat" "$work/check" counts events fields clock lost
