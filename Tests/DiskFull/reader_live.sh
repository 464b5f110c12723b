# reader_live.sh CASE TS SQLITE3 EXT SRC W
#
# A sqlite3 shell has a session (SRC imported) attached and has read it;
# then the session's files are changed underneath it, and it queries
# again.  The shell must never crash (a read past the end of a mapped
# file would be SIGBUS); each query answers as before or fails with an
# error naming the file.  CASE:
#   unlinked            every file of the session deleted: the open files
#                       stay readable, the answers are unchanged
#   truncated           page_fault.store cut to 3 of its records
#   truncated_header    page_fault.store cut to 0 bytes
#   truncated_strings   string_data.store cut to its header page
# In the truncated cases the query of the cut store (or of the strings)
# fails naming the file, and stores not cut still answer as before.
CASE=$1 TS=$2 SQ3=$3 EXT=$4 SRC=$5 W=$6
. "$(dirname "$0")/diskfull_lib.sh"

S=$W/s
"$TS" import -o "$S" "$SRC" > /dev/null 2>&1 || fail "import failed"

mkfifo "$W/in" || fail "mkfifo"
"$SQ3" -batch :memory: < "$W/in" > "$W/out" 2> "$W/err" &
pid=$!
exec 3> "$W/in"
n=0
# ask SQL: sends one statement (or dot command) and waits for it to finish.
ask(){
  n=$((n + 1))
  printf '%s\n.print @@%d\n' "$1" $n >&3
  _i=0
  until grep -q "^@@$n\$" "$W/out"; do
    kill -0 $pid 2>/dev/null || { cat "$W/err"; fail "sqlite3 died at: $1"; }
    _i=$((_i + 1)); [ $_i -le 200 ] || fail "no answer in 10 s to: $1"
    sleep 0.05
  done
  # The answer: what came after the previous marker.
  sed -n "/^@@$((n - 1))\$/,/^@@$n\$/p" "$W/out" | grep -v '^@@' > "$W/answer"
}
Q_PF="SELECT 'pf', count(*), sum(ts), sum(length(comm)) FROM page_fault;"
Q_SS="SELECT 'ss', count(*), sum(ts), sum(length(prev_comm)) FROM sched_switch;"
Q_FE="SELECT 'fe', count(*), sum(ts), sum(length(name) + length(args)) FROM ftrace_event;"

printf '.print @@0\n' >&3
ask ".load ${EXT%.so}"
ask "SELECT tracestore_attach('$S');"
for q in "$Q_PF" "$Q_SS" "$Q_FE"; do
  ask "$q"; cat "$W/answer" >> "$W/before"
done
# The oracle for the counts: awk over the input.
ftrace_oracle "$SRC" | cut -d'|' -f1 | sort | uniq -c > "$W/oracle"
grep -q "^ *$(sed -n 's/^pf|\([0-9]*\)|.*/\1/p' "$W/before") page_fault\$" \
  "$W/oracle" || { cat "$W/before" "$W/oracle"; fail "counts before the change"; }
cat "$W/before"

case "$CASE" in
  unlinked) rm -r "$S";;
  truncated) truncate -s $((4096 + 3 * 88)) "$S/page_fault.store";;
  truncated_header) truncate -s 0 "$S/page_fault.store";;
  truncated_strings) truncate -s 4096 "$S/string_data.store";;
  *) fail "unknown case $CASE";;
esac

: > "$W/err"
for q in "$Q_PF" "$Q_SS" "$Q_FE"; do
  ask "$q"; cat "$W/answer" >> "$W/after"
done
ask "SELECT 'attach', tracestore_attach('$S');"
ask ".print alive"
grep -q '^alive$' "$W/answer" || fail "the shell does not answer"
exec 3>&-
rc=0; wait $pid || rc=$?
[ $rc -lt 128 ] || fail "sqlite3 died of signal $((rc - 128))"
if grep -q 'Sanitizer\|DEADLYSIGNAL' "$W/err"; then cat "$W/err"; fail "fault"; fi
echo "after:"; cat "$W/after" "$W/err"

# Which answers must be as before, which must be errors naming the file.
# (A new attach of the deleted session says it is gone.)
case "$CASE" in
  unlinked) same="pf ss fe" errs="$S: no such session";;
  truncated|truncated_header) same="ss fe" errs="$S/page_fault.store";;
  truncated_strings) same="" errs="$S/string_data.store";;
esac
for k in $same; do
  grep "^$k|" "$W/before" > "$W/b.$k"
  grep -q -x -F -f "$W/b.$k" "$W/after" || fail "the $k answer changed"
done
grep -q -F "$errs" "$W/err" || fail "no error says: $errs"
[ "$(grep -c . "$W/err")" -le 4 ] || fail "more errors than queries"
echo "PASS"
