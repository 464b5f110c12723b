#!/bin/bash
#
# Power cuts: a writer runs inside a QEMU guest (TCG, Debian's cloud
# kernel, the host's root shared read-only, the session on a virtio disk
# image with cache=unsafe); the host SIGKILLs QEMU at a random instant, so
# whatever the guest had not written to its disk is lost, as with a power
# cut; then the image is mounted on the host and the session checked
# against the writer's log of what it had made durable (--sync-log).
#
#   powercut.sh WRITER TS CHECKDURABLE EXT TOUCHPAGES SHARED_DIR W [CUTS]
#
# WRITER: import (a 1.1M-event ftrace text, --sync-interval 0.5), record
# (`record -e exceptions:page_fault_user -e sched:sched_switch` of
# TouchPages) or trace-python (a program calling functions in two
# threads), these two at their default --sync-interval, 1 s.  Cuts fall
# uniformly over [0.3, 9] s after the guest starts the writer ([2.5, 14] s
# for trace-python: Python starts slowly under TCG).  The guest
# writes dirty pages back after 0.2 s, so between two syncs commit slots
# and records reach the disk in the kernel's order.  CUTS (default
# $POWERCUT_CUTS, else 3): the cuts.  POWERCUT_SEED=N repeats a run (the
# seed is printed first).
#
# After each cut (Tests/PowerLoss/CheckDurable.c is the oracle):
#   - if the log has no sync yet, the cut came before the writer had opened
#     the session: nothing was promised (counted, not checked);
#   - `tracestore info` opens the session;
#   - CheckDurable --cut: the reader knows the machine went down, each store
#     holds at least what the log says was made durable, exactly what the
#     session's last sync counted, every logged segment hashes as the
#     writer's mapping did (bit for bit; for trace-python, the span rows of
#     calls running at a sync change after it, so only their counts are
#     checked), every string id of every row resolves; for import, every
#     row (past the log too) equals the same row of an import of the same
#     input on the host (--reference);
#   - the views read from the rollups equal the full scan's
#     (Tests/Rollup/rollup_views_test.py);
#   - a new writer (an import on the host) continues the session: it rolls
#     the stores back to the last sync, info then counts exactly the records
#     the reader had not shown (and the store files it had not opened) as
#     taken by a power cut, and the log's durable records are all still there
#     (CheckDurable --no-cut), the views again equal the scan.
# Exit 0 with a summary line, 1 on the first failure, 77 where QEMU, the
# kernel, busybox, virtiofsd or root are missing.
#
set -u
WRITER=$1 TS=$2 CHECK=$3 EXT=$4 TOUCHPAGES=$5 SHARED=$6 W=$7
CUTS=${8:-${POWERCUT_CUTS:-3}}
HERE=$(cd "$(dirname "$0")" && pwd)
GUEST=$HERE/guest.sh
PY=${POWERCUT_PYTHON:-/usr/bin/python3}
fail(){ echo "FAIL: $*"; exit 1; }
skip(){ echo "SKIP: $*"; exit 77; }

# check LOG KIND: the checks above, on the session at $MNT/s (run by
# `guest.sh inspect`, which mounts a copy of the image at $MNT).
if [ "$WRITER" = check ]; then
  LOG=$8 KIND=$9 S=$MNT/s MUT= REF=
  [ "$KIND" = trace-python ] && MUT="--mutable span"
  [ "$KIND" = import ] && REF="--reference $W/ref --mutable source"
  if ! grep -q '^sync ' "$LOG"; then
    echo "early"; exit 0
  fi
  "$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt"; fail "the session does not open"; }
  "$TS" info --json "$S" > "$W/before.json" || fail "info --json"
  "$CHECK" "$S" "$LOG" --cut $MUT $REF > "$W/check.txt" || { cat "$W/check.txt"; fail "CheckDurable after the cut"; }
  if [ -x "$PY" ]; then
    "$PY" "$HERE/../Rollup/rollup_views_test.py" "$EXT" "$S" > "$W/views.txt" 2>&1 ||
      { cat "$W/views.txt"; fail "after the cut, a view read from the rollups is not the scan's"; }
  fi
  "$TS" import -o "$S" "$SHARED/data/capture-1/ftrace.txt" > "$W/continue.txt" 2>&1 ||
    { cat "$W/continue.txt"; fail "a new writer cannot continue the session"; }
  "$TS" info --json "$S" > "$W/after.json" || fail "info --json after the new writer"
  "$PY" - "$W/before.json" "$W/after.json" <<'EOF' || fail "info does not count what the cut took"
import json, sys
b = json.load(open(sys.argv[1]))["durable"]
a = json.load(open(sys.argv[2]))["durable"]
assert b["power_cut"] and not a["power_cut"], (b, a)
assert a["recoveries"] == b["recoveries"] + 1, (b, a)
for store, n in b["unsynced"].items():
    assert a["lost"].get(store, 0) == b["lost"].get(store, 0) + n, (store, b, a)
assert sum(a["lost"].values()) == sum(b["lost"].values()) + sum(b["unsynced"].values()), (b, a)
assert a["removed_stores"] == b["removed_stores"] + b["skipped_stores"], (b, a)
EOF
  "$CHECK" "$S" "$LOG" --no-cut $MUT > "$W/check2.txt" ||
    { cat "$W/check2.txt"; fail "CheckDurable after a new writer recovered the session"; }
  if [ -x "$PY" ]; then
    "$PY" "$HERE/../Rollup/rollup_views_test.py" "$EXT" "$S" > "$W/views.txt" 2>&1 ||
      { cat "$W/views.txt"; fail "after recovery, a view read from the rollups is not the scan's"; }
  fi
  "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1]))["durable"]; print("unsynced", sum(d["unsynced"].values()), "skipped", d["skipped_stores"])' "$W/before.json"
  cat "$W/check.txt"
  exit 0
fi

[ "$(id -u)" = 0 ] || skip "needs root (loop mounts, virtiofsd)"
command -v qemu-system-x86_64 > /dev/null || skip "no qemu-system-x86_64 (Debian qemu-system-x86)"
command -v busybox > /dev/null || skip "no busybox (Debian busybox-static)"
[ -x /usr/lib/qemu/virtiofsd ] || skip "no /usr/lib/qemu/virtiofsd (Debian qemu-system-common)"
ls /boot/vmlinuz-*-cloud-amd64 > /dev/null 2>&1 || skip "no /boot/vmlinuz-*-cloud-amd64 (Debian linux-image-cloud-amd64)"
KERNEL=$(ls /boot/vmlinuz-*-cloud-amd64 | sort -V | tail -1)

. "$HERE/../DiskFull/diskfull_lib.sh"   # a fresh $W, big_ftrace
SEED=${POWERCUT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "powercut $WRITER: $CUTS cuts, seed $SEED (POWERCUT_SEED=$SEED to repeat)"
R=$SEED
# rand N: R becomes a pseudo-random number in [0, N) (an LCG).
rand(){ R=$(( (R * 1103515245 + 12345) % 2147483648 )); R0=$(( R % $1 )); }

bash "$GUEST" initramfs "$W/boot" "$KERNEL" > "$W/initramfs.txt" 2>&1 ||
  { cat "$W/initramfs.txt"; fail "cannot build the guest's initramfs"; }

# The writer, as the guest runs it (cwd: the disk, /mnt/disk).
case $WRITER in
import)
  big_ftrace "$SHARED/data/capture-1/ftrace.txt" 500 "$W/big.txt"
  "$TS" import -o "$W/ref" "$W/big.txt" > "$W/ref.txt" 2>&1 ||
    { cat "$W/ref.txt"; fail "the reference import failed"; }
  cat > "$W/run.sh" <<EOF
#!/bin/sh
exec "$TS" import --sync-interval 0.5 --sync-log /dev/stdout -o /mnt/disk/s \\
  "$W/big.txt" 2> /mnt/disk/writer.err
EOF
  ;;
record)
  cat > "$W/run.sh" <<EOF
#!/bin/sh
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
exec "$TS" record --sync-log /dev/stdout \\
  -e exceptions:page_fault_user -e sched:sched_switch -o /mnt/disk/s \\
  -- "$TOUCHPAGES" 200 1000 5 2> /mnt/disk/writer.err
EOF
  ;;
trace-python)
  cat > "$W/prog.py" <<'EOF'
import threading
def leaf(i):
    return i * 3
def work(n):
    s = 0
    for i in range(n):
        s += leaf(i)
    return s
def loop():
    for k in range(100000):
        work(200)
t = threading.Thread(target=loop)
t.start()
loop()
t.join()
EOF
  cat > "$W/run.sh" <<EOF
#!/bin/sh
exec "$TS" trace-python --sync-log /dev/stdout \\
  -o /mnt/disk/s -- /usr/bin/python3 "$W/prog.py" 2> /mnt/disk/writer.err
EOF
  ;;
*) fail "unknown writer $WRITER" ;;
esac

# Cuts fall uniformly in [KILL_MIN_MS, KILL_MAX_MS] after the guest starts
# the writer: Python starts slowly under TCG.
KILL_MIN_MS=300 KILL_MAX_MS=9000
[ "$WRITER" = trace-python ] && KILL_MIN_MS=2500 KILL_MAX_MS=14000
cut=0 early=0 unsynced=0
while [ $cut -lt "$CUTS" ]; do
  rand $((KILL_MAX_MS - KILL_MIN_MS)); R0=$((KILL_MIN_MS + R0))
  kill_at=$(printf '%d.%03d' $((R0 / 1000)) $((R0 % 1000)))
  bash "$GUEST" mkimage "$W/disk.img" 256 "$W/run.sh" > "$W/mkimage.txt" 2>&1 ||
    { cat "$W/mkimage.txt"; fail "cannot make the disk image"; }
  bash "$GUEST" run "$W/disk.img" "$W/boot/vmlinuz" "$W/boot/initramfs.cpio.gz" \
    "$W/console.txt" "$kill_at" 2> "$W/run.txt" ||
    { cat "$W/run.txt"; tail -20 "$W/console.txt"; fail "the guest did not run"; }
  tr '\r' '\n' < "$W/console.txt" > "$W/log.txt"
  if grep -q '^GUEST-DONE' "$W/log.txt"; then
    grep -q '^GUEST-DONE rc=0' "$W/log.txt" || { tail -20 "$W/log.txt"; fail "the writer failed in the guest"; }
    echo "  the writer ended before the cut at ${kill_at} s: checked, not counted"
    kill_at=
  fi
  bash "$GUEST" inspect "$W/disk.img" bash "$HERE/powercut.sh" check "$TS" "$CHECK" "$EXT" \
    "$TOUCHPAGES" "$SHARED" "$W" "$W/log.txt" "$WRITER" > "$W/inspect.txt" 2>&1 ||
    { cat "$W/inspect.txt"; cp "$W/disk.img" "$W/failed.img"; cp "$W/log.txt" "$W/failed.log"
      fail "cut at ${kill_at:-the end} s (image kept: $W/failed.img, log $W/failed.log)"; }
  [ -n "$kill_at" ] || continue
  cut=$((cut + 1))
  if grep -q '^early' "$W/inspect.txt"; then
    early=$((early + 1))
    echo "  cut $cut at $kill_at s: before the writer's first sync (nothing promised)"
    continue
  fi
  u=$(awk '$1 == "unsynced" { print $2 }' "$W/inspect.txt")
  unsynced=$((unsynced + ${u:-0}))
  echo "  cut $cut at $kill_at s: $(grep '^ok:' "$W/inspect.txt")"
done
rm -f "$W/disk.img"
echo "powercut $WRITER: $cut cuts ($early before the first sync): 0 sessions that failed to open, 0 durable records lost, 0 rows never committed; $unsynced committed records past the last sync not shown, all counted by info after recovery"
