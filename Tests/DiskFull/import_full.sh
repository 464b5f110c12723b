# import_full.sh KIND SIZE_KB TS SQLITE3 EXT SRC W
#
# `tracestore import` of a large ftrace text (SRC repeated, made here) into
# a session on a KIND file system (tmpfs, ext4 on a loop device) of SIZE_KB
# that fills up before the end.  The import must fail cleanly: exit 1 (not
# a signal: the store grows with fallocate before any page is touched),
# an error naming the store file and the lack of space, and the session
# must hold exactly the events of the first N input lines, N being the
# count the importer says it kept (0 if the session could not even be
# opened), each row as the input line says (the
# oracle: awk over the input).  On tmpfs the file system is then enlarged
# and a new import must continue the same session.
KIND=$1 SIZE=$2 TS=$3 SQ3=$4 EXT=$5 SRC=$6 W=$7
. "$(dirname "$0")/diskfull_lib.sh"

M=$W/mnt S=$W/mnt/s
mount_fs "$KIND" "$SIZE" "$M"
big_ftrace "$SRC" $((SIZE / 100 + 8)) "$W/big.txt"
total=$(wc -l < "$W/big.txt")

"$TS" import -o "$S" "$W/big.txt" > "$W/import.out" 2> "$W/import.err"
rc=$?
cat "$W/import.err"
check_exit $rc "$W/import.err" "tracestore import"
grep -Eq "$S/[a-z_]+\.(store|tracer).*no space left on device" "$W/import.err" ||
  fail "the error does not name the store file and the lack of space"
kept=$(sed -n 's/.*kept \([0-9]*\) events read before the error.*/\1/p' \
       "$W/import.err")
if [ -z "$kept" ]; then
  # Too small for the session's first chunks: it failed opening.
  grep -q "^tracestore: $S: " "$W/import.err" ||
    fail "the importer did not say how many events it kept"
  kept=0
fi
[ "$kept" -lt "$total" ] ||
  fail "kept $kept of $total events: the file system did not fill"

# The session reads back, and holds exactly the first $kept events.
"$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt"; fail "info failed"; }
head -n "$kept" "$W/big.txt" > "$W/kept.txt"
ftrace_oracle "$W/kept.txt" > "$W/oracle.txt"
check_rows(){
  for st in page_fault sched_switch ftrace_event; do
    grep "^$st|" "$W/oracle.txt" > "$W/expected.$st"
    if [ ! -s "$W/expected.$st" ] && [ ! -f "$S/$st.store" ]; then
      echo "$st: no store, no records"; continue
    fi
    session_rows "$SQ3" "$EXT" "$S" $st > "$W/rows.$st" 2> "$W/rows.err" ||
      { cat "$W/rows.err"; fail "reading $st failed"; }
    cmp -s "$W/expected.$st" "$W/rows.$st" || {
      diff "$W/expected.$st" "$W/rows.$st" | head -5
      fail "$st: the rows differ from the first $kept input lines"; }
    n=$(wc -l < "$W/rows.$st")
    c=$("$TS" sql --csv "$S" "SELECT records FROM store_info WHERE name='$st'" | tail -n 1)
    [ "$c" = "$n" ] || fail "$st: store_info says $c records, $n read back"
    echo "$st: $n records, as in the input"
  done
}
check_rows

[ "$KIND" = tmpfs ] || exit 0

# Room again: a new writer continues the session after the last commit.
mount -o remount,size=$((SIZE * 30 + 8192))k "$M" || fail "cannot enlarge $M"
"$TS" import -o "$S" "$W/big.txt" > "$W/import2.out" 2> "$W/import2.err" || {
  cat "$W/import2.err"; fail "the import after the disk-full one failed"; }
cat "$W/kept.txt" "$W/big.txt" > "$W/both.txt"
kept=$((kept + total))
ftrace_oracle "$W/both.txt" > "$W/oracle.txt"
check_rows
echo "PASS"
