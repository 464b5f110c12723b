#!/bin/sh
#
# interrupted_create.sh TS SQLITE3 EXT SRC W
#
# A writer SIGKILLed between creating session.tracer and writing it leaves
# an empty session.tracer (found looking into a crash-torture kill inside
# session creation; the window is a few microseconds, so made by hand
# here).  The next writer must continue the session; before the fix it
# failed for ever with "truncated session header".  Checked:
#   - an import into a directory holding only an empty session.tracer
#     succeeds, and the session holds exactly the input's events (awk
#     oracle over the ftrace text, as in Tests/DiskFull);
#   - while another process holds the header's lock (a creator still
#     writing it), the import refuses ("another process is writing this
#     session") and leaves the empty header alone;
#   - readers still report the empty header as an error.
#
TS=$1 SQ3=$2 EXT=$3 SRC=$4 W=$5
. "$(dirname "$0")/../DiskFull/diskfull_lib.sh"   # fail, oracles; fresh $W
S=$W/s
mkdir "$S" && : > "$S/session.tracer"

"$TS" info "$S" > "$W/info.err" 2>&1 && fail "info read an empty header"
grep -q "truncated session header" "$W/info.err" || {
  cat "$W/info.err"; fail "info did not name the empty header"; }

# A live creator: holds the OFD lock on the empty header.
python3 -c '
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.fcntl(fd, fcntl.F_OFD_SETLK, struct.pack("hhqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
open(sys.argv[2], "w").close()
time.sleep(5)' "$S/session.tracer" "$W/locked" &
LOCKER=$!
i=0; while [ ! -f "$W/locked" ]; do
  i=$((i + 1)); [ $i -le 100 ] || fail "the locker did not start"; sleep 0.05
done
"$TS" import -o "$S" "$SRC" > /dev/null 2> "$W/import.err" &&
  fail "an import wrote into a session whose creator holds the lock"
grep -q "another process is writing this session" "$W/import.err" || {
  cat "$W/import.err"; fail "the import did not say the session is locked"; }
[ -s "$S/session.tracer" ] && fail "the import wrote the locked header"
kill $LOCKER; wait $LOCKER 2>/dev/null

# The creator is gone: the next writer continues.
"$TS" import -o "$S" "$SRC" > /dev/null 2> "$W/import.err" || {
  cat "$W/import.err"; fail "the import after an interrupted create failed"; }
"$TS" info "$S" > /dev/null 2>&1 || fail "info cannot open the session"
ftrace_oracle "$SRC" > "$W/oracle.txt"
for st in page_fault sched_switch ftrace_event; do
  grep "^$st|" "$W/oracle.txt" > "$W/expected"
  session_rows "$SQ3" "$EXT" "$S" $st > "$W/rows" || fail "reading $st failed"
  cmp -s "$W/expected" "$W/rows" || fail "$st differs from the input lines"
  echo "$st: $(wc -l < "$W/rows") rows as in the input"
done
echo PASS
