#!/bin/sh
# Bad input must give an error naming the file and line, a non-zero exit
# (not a crash), and keep every event read before the bad line.
# usage: bad_input.sh TRACESTORE SAMPLE WORKDIR CASE
#   CASE: truncated | garbage | hugeline | empty | nul | fifo
set -eu
ts=$1; sample=$2; work=$3; case=$4
rm -rf "$work"; mkdir -p "$work"
in=$work/$case.txt
session=$work/session

case $case in
truncated)  # cut in the middle of line 41
  head -n 40 "$sample" > "$in"; sed -n 41p "$sample" | head -c 30 >> "$in"
  line=41; kept=40; want="truncated line" ;;
garbage)    # binary junk as line 51
  head -n 50 "$sample" > "$in"; printf '\001\377\376 garbage \033[31m\n' >> "$in"
  tail -n +51 "$sample" >> "$in"; line=51; kept=50; want="not an ftrace event line" ;;
hugeline)   # a 1 MB line as line 11
  head -n 10 "$sample" > "$in"
  head -c 1048576 /dev/zero | tr '\0' 'a' >> "$in"; echo >> "$in"
  tail -n +11 "$sample" >> "$in"; line=11; kept=10; want="longer than" ;;
nul)        # a NUL byte inside the fields of line 21
  head -n 20 "$sample" > "$in"; sed -n 21p "$sample" | tr 'x' '\000' >> "$in"
  line=21; kept=20; want="NUL byte" ;;
empty)
  : > "$in"; line=; kept=0; want="empty file" ;;
fifo)       # nobody writes to it: opening it must not wait (timeout 20)
  mkfifo "$in"; line=; kept=0; want="not a regular file" ;;
*) echo "unknown case"; exit 2 ;;
esac

set +e
timeout 20 "$ts" import -o "$session" "$in" 2> "$work/stderr"
rc=$?
set -e
cat "$work/stderr"
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
[ $rc -ne 124 ] || { echo "FAIL: still waiting after 20 s"; exit 1; }
[ $rc -lt 128 ] || { echo "FAIL: killed by signal $((rc - 128))"; exit 1; }
grep -q "$in${line:+:$line:}" "$work/stderr" || { echo "FAIL: message does not name $in${line:+:$line}"; exit 1; }
grep -q "$want" "$work/stderr" || { echo "FAIL: message does not say '$want'"; exit 1; }

if [ "$kept" -gt 0 ]; then
  got=$("$ts" sql --csv "$session" "SELECT (SELECT count(*) FROM ftrace_event) +
        (SELECT count(*) FROM page_fault) + (SELECT count(*) FROM sched_switch)" | tail -1)
  [ "$got" = "$kept" ] || { echo "FAIL: $got events kept, expected the $kept before the bad line"; exit 1; }
fi
echo "ok: $case: exit $rc, error names the line, $kept earlier events kept"
