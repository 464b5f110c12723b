# readonly.sh TS SQLITE3 EXT SRC W
#
# Read-only file systems.  An import whose output is on one, and an import
# into an existing session on one, fail with exit 1 and an error that
# names the session and says why; the existing session is left as it was.
# Reading a session on one works (readers never write): `tracestore info`,
# `tracestore sql` and the sqlite3 extension return the rows of SRC (the
# oracle: awk over SRC).
TS=$1 SQ3=$2 EXT=$3 SRC=$4 W=$5
. "$(dirname "$0")/diskfull_lib.sh"

# 1. The output directory does not exist yet, on a read-only file system.
mount_fs tmpfs 4096 "$W/empty"
remount_ro "$W/empty"
rc=0
"$TS" import -o "$W/empty/s" "$SRC" > /dev/null 2> "$W/import1.err" || rc=$?
cat "$W/import1.err"
check_exit $rc "$W/import1.err" "import onto a read-only file system"
grep -q "$W/empty/s.*read-only file system" "$W/import1.err" ||
  fail "the error does not name the session and the read-only file system"
[ ! -e "$W/empty/s" ] || fail "something was created"

# 2. An existing session, now on a read-only file system.
M=$W/ro S=$W/ro/s
mount_fs tmpfs 4096 "$M"
"$TS" import -o "$S" "$SRC" > /dev/null || fail "the first import failed"
remount_ro "$M"
( cd "$S" && ls -l --time-style=+%s ) > "$W/before.txt"
rc=0
"$TS" import -o "$S" "$SRC" > /dev/null 2> "$W/import2.err" || rc=$?
cat "$W/import2.err"
check_exit $rc "$W/import2.err" "import into a session on a read-only file system"
grep -q "$S.*read-only file system" "$W/import2.err" ||
  fail "the error does not name the session and the read-only file system"
( cd "$S" && ls -l --time-style=+%s ) > "$W/after.txt"
cmp -s "$W/before.txt" "$W/after.txt" || fail "the session's files changed"

# 3. Reading it.
"$TS" info "$S" > "$W/info.txt" 2>&1 || { cat "$W/info.txt"; fail "info failed"; }
ftrace_oracle "$SRC" > "$W/oracle.txt"
for st in page_fault sched_switch ftrace_event; do
  grep "^$st|" "$W/oracle.txt" > "$W/expected.$st"
  session_rows "$SQ3" "$EXT" "$S" $st > "$W/rows.$st" 2> "$W/rows.err" ||
    { cat "$W/rows.err"; fail "reading $st on a read-only file system failed"; }
  cmp -s "$W/expected.$st" "$W/rows.$st" || fail "$st: rows differ from $SRC"
  n=$("$TS" sql --csv "$S" "SELECT count(*) FROM $st" 2>&1 | tail -n 1)
  [ "$n" = "$(wc -l < "$W/expected.$st")" ] ||
    fail "tracestore sql counts $n $st records"
  echo "$st: $n records read on a read-only file system"
done
echo "PASS"
