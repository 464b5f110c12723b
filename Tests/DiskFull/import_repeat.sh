# import_repeat.sh TS SQLITE3 EXT SRC W
#
# Imports the ftrace text SRC into the same session on a 1.5 MB tmpfs
# again and again until the file system is full: each import reopens the
# session (recovery, growth from the last commit).  Every import that
# succeeds adds all of SRC; the one that fails exits 1, not a signal, and
# keeps the events of the first N lines of SRC it says it kept.  The
# session must then hold exactly SRC repeated, then those N lines (the
# oracle: awk over that text).
TS=$1 SQ3=$2 EXT=$3 SRC=$4 W=$5
. "$(dirname "$0")/diskfull_lib.sh"

M=$W/mnt S=$W/mnt/s
mount_fs tmpfs 1536 "$M"
: > "$W/expected.txt"
i=0 ok=0
while [ $i -lt 100 ]; do
  i=$((i + 1))
  rc=0
  "$TS" import -o "$S" "$SRC" > "$W/import.out" 2> "$W/import.err" || rc=$?
  if [ $rc = 0 ]; then
    cat "$SRC" >> "$W/expected.txt"
    ok=$((ok + 1))
    continue
  fi
  cat "$W/import.err"
  check_exit $rc "$W/import.err" "import $i"
  grep -Eq "$S/[a-z_]+\.(store|tracer).*no space left on device" \
    "$W/import.err" || fail "the error does not name the store and the lack of space"
  kept=$(sed -n 's/.*kept \([0-9]*\) events read before the error.*/\1/p' \
         "$W/import.err")
  [ -n "$kept" ] || fail "the importer did not say how many events it kept"
  head -n "$kept" "$SRC" >> "$W/expected.txt"
  break
done
[ $ok -ge 2 ] && [ $ok -lt $i ] ||
  fail "$ok of $i imports succeeded: wanted at least 2, then a full disk"
echo "$ok imports succeeded, import $i kept $kept of $(wc -l < "$SRC") events"

check_session(){
"$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt"; fail "info failed"; }
ftrace_oracle "$W/expected.txt" > "$W/oracle.txt"
for st in page_fault sched_switch ftrace_event; do
  grep "^$st|" "$W/oracle.txt" > "$W/expected.$st"
  session_rows "$SQ3" "$EXT" "$S" $st > "$W/rows.$st" 2> "$W/rows.err" ||
    { cat "$W/rows.err"; fail "reading $st failed"; }
  cmp -s "$W/expected.$st" "$W/rows.$st" || {
    diff "$W/expected.$st" "$W/rows.$st" | head -5
    fail "$st: the rows differ from the imported text"; }
  echo "$st: $(wc -l < "$W/rows.$st") records, as imported"
done
}
check_session

# More imports onto the full disk fail the same way and add what fits of
# the start of SRC, if anything.  What the failed growth left free may
# still hold a whole SRC (it depends on the record sizes): such an import
# succeeds and adds all of SRC; one of the next few must fail.
j=0 rc=0
while [ $j -lt 10 ]; do
  j=$((j + 1))
  rc=0
  "$TS" import -o "$S" "$SRC" > "$W/import.out" 2> "$W/import.err" || rc=$?
  [ $rc = 0 ] || break
  cat "$SRC" >> "$W/expected.txt"
done
cat "$W/import.err"
check_exit $rc "$W/import.err" "the import onto the full disk"
kept=$(sed -n 's/.*kept \([0-9]*\) events read before the error.*/\1/p' \
       "$W/import.err")
[ -n "$kept" ] || fail "the importer did not say how many events it kept"
head -n "$kept" "$SRC" >> "$W/expected.txt"
check_session
echo "PASS"
