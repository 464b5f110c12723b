# import_sweep.sh TS DATA W
#
# Every sample format imported onto tmpfs file systems from 24 KB to
# 408 KB, in 48 KB steps, so that the disk fills at a different point of
# each reader and of the session's creation: each import exits 0 or 1,
# never by a signal or a sanitizer report, a failure says "no space left
# on device", and the session reads back (`tracestore info`).
TS=$1 DATA=$2 W=$3
. "$(dirname "$0")/diskfull_lib.sh"

M=$W/mnt
n=0 full=0
for f in capture-1/ftrace.txt capture-1/trace.dat capture-1/trace-v6.dat \
         capture-1/trace-cmd-report.txt capture-1/perf-kvm.txt \
         capture-1/perf-pagefaults.txt capture-1/perf-stat.txt \
         capture-1/uftrace.data capture-1/uftrace-chrome.json \
         kvmtrace/sample.bin; do
  size=24
  while [ $size -le 408 ]; do
    mount_fs tmpfs $size "$M"
    rc=0
    "$TS" import -o "$M/s" "$DATA/$f" > /dev/null 2> "$W/err" || rc=$?
    if [ $rc != 0 ]; then
      check_exit $rc "$W/err" "import of $f onto $size KB"
      grep -q "no space left on device" "$W/err" ||
        { cat "$W/err"; fail "$f onto $size KB: not a disk-full error"; }
      full=$((full + 1))
    fi
    "$TS" info "$M/s" > "$W/info" 2>&1 ||
      { cat "$W/err" "$W/info"; fail "$f onto $size KB: the session cannot be read"; }
    umount "$M"; MOUNTS=""
    n=$((n + 1))
    size=$((size + 48))
  done
done
echo "$n imports, $full stopped by the full disk, every session readable"
echo "PASS"
