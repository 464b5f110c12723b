#!/bin/sh
# Bad perf script / perf stat input must give an error naming the file and
# line, a non-zero exit (not a crash), and keep every event read before the
# bad line.
# usage: perf_bad_input.sh TRACESTORE SAMPLE WORKDIR FORMAT CASE
#   CASE: truncated  line 9 cut in the middle (no newline at the end)
#         garbage    binary junk inserted as line 7
#         orphan     (perf-script) a call-chain frame with no sample before
#                    it, as line 1
#         columns    (perf-stat) line 6 with one column fewer than the
#                    first counter line
#         flipped    (perf-script) two bytes of line 1's time flipped: the
#                    format is not recognized (exit 1 naming the file), and
#                    the session still opens with an import's tables, empty
#                    (no "no such table: source"); with --format the error
#                    names line 1 and `source` has the file's row
set -eu
ts=$1; sample=$2; work=$3; format=$4; case=$5
rm -rf "$work"; mkdir -p "$work"
in=$work/$case.txt
session=$work/session

# Event lines among the first N lines of the sample (the oracle for "kept").
events_in() {
  head -n "$1" "$sample" | grep -cvE '^[[:space:]]*($|#|rdtsc )' || true
}

case $case in
truncated)
  head -n 8 "$sample" > "$in"; sed -n 9p "$sample" | head -c 30 >> "$in"
  line=9; kept=$(events_in 8); want="truncated line" ;;
garbage)
  head -n 6 "$sample" > "$in"; printf '\001\377\376 garbage \033[31m\n' >> "$in"
  tail -n +7 "$sample" >> "$in"; line=7; kept=$(events_in 6); want="not a perf" ;;
orphan)
  printf '\tffffffff8175016a elf_load+0x28a ([kernel.kallsyms])\n' > "$in"
  cat "$sample" >> "$in"; line=1; kept=0; want="call-chain frame without a sample" ;;
columns)
  head -n 5 "$sample" > "$in"
  sed -n 6p "$sample" | awk -v FS='#' -v OFS='#' '{ $5 = ""; sub(/##/, "#"); print }' >> "$in"
  tail -n +7 "$sample" >> "$in"; line=6; kept=$(events_in 5); want="separator and columns of the first" ;;
flipped)
  python3 - "$sample" "$in" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
at = data.index(b": ") - 2          # the time's last digits, line 1
data[at] ^= 0xff; data[at + 1] ^= 0xff
open(sys.argv[2], "wb").write(data)
PY
  for forced in "" "--format $format"; do
    rm -rf "$session"
    set +e
    "$ts" import $forced -o "$session" "$in" 2> "$work/stderr"
    rc=$?
    set -e
    cat "$work/stderr"
    [ $rc = 1 ] || { echo "FAIL: ${forced:-detected}: exit status $rc, not 1"; exit 1; }
    grep -qF "$in" "$work/stderr" || { echo "FAIL: the message does not name $in"; exit 1; }
    "$ts" info "$session" > "$work/info" 2>&1 || { cat "$work/info"; echo "FAIL: the session does not open"; exit 1; }
    got=$("$ts" sql --csv "$session" "SELECT (SELECT count(*) FROM source) || ' ' ||
          ((SELECT count(*) FROM ftrace_event) + (SELECT count(*) FROM page_fault) +
           (SELECT count(*) FROM sched_switch) + (SELECT count(*) FROM kvm_exit))" | tail -1)
    want="0 0"; [ -n "$forced" ] && want="1 0"
    [ "$got" = "$want" ] || { echo "FAIL: ${forced:-detected}: source rows and events '$got', not '$want'"; exit 1; }
  done
  grep -qF "$in:1:" "$work/stderr" || { echo "FAIL: --format: the message does not name $in:1"; exit 1; }
  echo "ok: flipped: exit 1 naming the file, the session opens with its tables (source: 0 rows; 1 with --format)"
  exit 0 ;;
*) echo "unknown case"; exit 2 ;;
esac

set +e
"$ts" import --format "$format" -o "$session" "$in" 2> "$work/stderr"
rc=$?
set -e
cat "$work/stderr"
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
[ $rc -lt 128 ] || { echo "FAIL: killed by signal $((rc - 128))"; exit 1; }
grep -qF "$in:$line:" "$work/stderr" || { echo "FAIL: message does not name $in:$line"; exit 1; }
grep -q "byte offset" "$work/stderr" || { echo "FAIL: message does not give the byte offset"; exit 1; }
grep -q "$want" "$work/stderr" || { echo "FAIL: message does not say '$want'"; exit 1; }

if [ "$format" = perf-stat ]; then
  got=$("$ts" sql --csv "$session" "SELECT count(*) FROM counter" | tail -1)
else
  got=$("$ts" sql --csv "$session" "SELECT (SELECT count(*) FROM ftrace_event) +
        (SELECT count(*) FROM page_fault) + (SELECT count(*) FROM sched_switch) +
        (SELECT count(*) FROM kvm_exit)" | tail -1)
fi
[ "$got" = "$kept" ] || { echo "FAIL: $got events kept, expected the $kept before the bad line"; exit 1; }
echo "ok: $case: exit $rc, error names $in:$line, $kept earlier events kept"
