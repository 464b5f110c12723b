# record_full.sh TS TOUCHPAGES SQLITE3 EXT W
#
# `tracestore record` of an endless page-toucher into a session on a 1 MB
# tmpfs.  When the file system is full the recorder must stop by itself:
# exit 1 (not a signal), one error naming the store file and the lack of
# space, its tracefs instance removed, the command ended.  The session
# stays readable and holds the N events the recorder says it kept: page
# faults of the command only (the oracle: the pid the command printed).
# Exit 77 (CTest skip) without root or tracefs.
TS=$1 TP=$2 SQ3=$3 EXT=$4 W=$5
. "$(dirname "$0")/../Record/record_lib.sh"
. "$(dirname "$0")/diskfull_lib.sh"

M=$W/mnt S=$W/mnt/s
mount_fs tmpfs 1024 "$M"
rc=0
timeout 50 "$TS" record -e exceptions:page_fault_user -o "$S" \
  -- "$TP" 256 100000000 0 > "$W/record.out" 2> "$W/record.err" || rc=$?
cat "$W/record.err"
[ $rc != 124 ] || fail "the recorder did not stop on the full disk"
check_exit $rc "$W/record.err" "tracestore record"
[ "$(grep -c "$S/page_fault\.store: no space left on device" \
     "$W/record.err")" = 1 ] ||
  fail "not one error naming the store file and the lack of space"
check_instances
pid=$(head -n 1 "$W/record.out")
kill -0 "$pid" 2>/dev/null && fail "the command ($pid) still runs"

kept=$(sed -n 's/.*kept \([0-9]*\) events recorded before the error.*/\1/p' \
       "$W/record.err")
[ -n "$kept" ] && [ "$kept" -gt 0 ] || fail "kept '$kept' events"
"$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt"; fail "info failed"; }
printf '.load %s\n.output /dev/null\nSELECT tracestore_attach(%s);\n.output stdout\n%s\n' \
  "${EXT%.so}" "'$S'" "SELECT count(*), sum(name = 'page_fault_user'),
   sum(tid = $pid), (SELECT sum(records) FROM store_info WHERE name IN
   ('ftrace_event', 'sched_switch', 'kvm_exit')) FROM page_fault;" |
  "$SQ3" -batch -bail :memory: > "$W/counts.txt" 2>&1 ||
  { cat "$W/counts.txt"; fail "the session cannot be read"; }
[ "$(cat "$W/counts.txt")" = "$kept|$kept|$kept|0" ] || {
  cat "$W/counts.txt"
  fail "wanted $kept page faults, all of the command ($pid), nothing else"; }
echo "$kept page faults kept, all of the command"
echo "PASS"
