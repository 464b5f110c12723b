#!/bin/sh
# A damaged trace.dat must give exit status 1 and an error naming the file
# and the byte offset, not a crash; events read before the damage stay.
# usage: tracedat_bad.sh TRACESTORE SAMPLE.dat WORKDIR CASE
#   SAMPLE is a v6 file (syn.dat; for format_field capture-1's
#   trace-v6.dat); for zstd_* a v7 zstd one.
#   CASE: truncated_data | truncated_header | version | cpu_count |
#         format_size | format_field | zstd_chunk | zstd_kallsyms
set -eu
ts=$1; sample=$2; work=$3; case=$4
rm -rf "$work"; mkdir -p "$work"
in=$work/$case.dat
session=$work/session
size=$(wc -c < "$sample")

# Offsets in the v6 layout, found with trace-cmd's own dump.
cpu0=$(trace-cmd dump --flyrecord -i "$sample" 2>/dev/null | awk '/offset, size of cpu 0/ {print $1}')
patch() {  # patch FILE OFFSET HEXBYTES
  python3 -c 'import sys; f = open(sys.argv[1], "r+b"); f.seek(int(sys.argv[2])); f.write(bytes.fromhex(sys.argv[3]))' "$@"
}

case $case in
truncated_data)     # cut two and a half pages into CPU 0's data
  cut=$((cpu0 + 10240)); head -c $cut "$sample" > "$in"
  offset=$cut; want="truncated"; kept=some ;;
truncated_header)   # cut inside the event formats
  cut=5000; head -c $cut "$sample" > "$in"
  offset=; want="truncated"; kept=0 ;;
version)            # "6" -> "9"
  cp "$sample" "$in"; patch "$in" 10 39
  offset=10; want='version "9" is not supported'; kept=0 ;;
cpu_count)          # the CPU count after the saved cmdlines -> 0xffffff00
  cp "$sample" "$in"
  at=$(( $(grep -obUaP 'options  \x00' "$in" | head -1 | cut -d: -f1) - 4 ))
  patch "$in" $at 00ffffff
  offset=$at; want="absurd CPU count"; kept=0 ;;
format_size)        # the first ftrace format's size -> 2^40
  cp "$sample" "$in"
  at=$(( $(grep -obUaP 'header_event\x00' "$in" | head -1 | cut -d: -f1) + 13 ))
  hsize=$(od -An -tu8 -j $at -N 8 "$in" | tr -d ' ')
  at=$((at + 8 + hsize + 4))
  patch "$in" $at 0000000000010000
  offset=$at; want="absurd event format size"; kept=0 ;;
format_field)       # a field line without "offset:" in the format of an
                    # event the trace never has (sys_enter_openat): the
                    # reader checks every format up front, even those whose
                    # fields it only parses at their first event, so the
                    # import fails there, naming the format's first byte
  cp "$sample" "$in"
  at=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().find(b"name: sys_enter_openat\n"))' "$in")
  [ "$at" -gt 0 ] || { echo "FAIL: no sys_enter_openat format in $sample"; exit 1; }
  field=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().find(b"\toffset:8;", int(sys.argv[2])))' "$in" "$at")
  patch "$in" $((field + 1)) 6f666673657820   # "offsex "
  offset=$at; want="malformed field line in an event format"; kept=0 ;;
zstd_chunk)         # garble the zstd frame header of CPU 0's first chunk
  cp "$sample" "$in"
  off=$(trace-cmd dump --options -i "$sample" 2>/dev/null | awk '/data offset and size/ && $1 == 0 {print $2; exit}')
  patch "$in" $((off + 12)) 5a5a5a5a5a5a5a5a
  offset=$((off + 4)); want="does not decompress"; kept=0 ;;
zstd_kallsyms)      # garble the kallsyms section's zstd frame (decompressed
                    # on the worker while the formats are parsed); the error
                    # names the frame: section offset + 16 (section header)
                    # + 8 (compressed and uncompressed sizes)
  cp "$sample" "$in"
  sec=$(trace-cmd dump --options -i "$sample" 2>/dev/null | sed -n 's/.*Option KALLSYMS.*@ *\([0-9]*\).*/\1/p' | head -1)
  patch "$in" $((sec + 28)) 5a5a5a5a5a5a5a5a
  offset=$((sec + 24)); want="does not decompress"; kept=0 ;;
*) echo "unknown case"; exit 2 ;;
esac

set +e
"$ts" import -o "$session" "$in" 2> "$work/stderr"
rc=$?
set -e
cat "$work/stderr"
[ $rc -ne 0 ] || { echo "FAIL: exit status 0"; exit 1; }
[ $rc -lt 128 ] || { echo "FAIL: killed by signal $((rc - 128))"; exit 1; }
grep -q "$in: offset ${offset:-[0-9]*}: " "$work/stderr" ||
  { echo "FAIL: message does not name $in and offset ${offset:-N}"; exit 1; }
grep -q "$want" "$work/stderr" || { echo "FAIL: message does not say '$want'"; exit 1; }
if [ -z "$offset" ]; then
  got=$(sed -n "s|.*$in: offset \([0-9]*\): .*|\1|p" "$work/stderr" | head -1)
  [ "$got" -le "$size" ] || { echo "FAIL: offset $got past the file"; exit 1; }
fi

stored=$("$ts" sql --csv "$session" "SELECT (SELECT count(*) FROM ftrace_event) +
        (SELECT count(*) FROM page_fault) + (SELECT count(*) FROM sched_switch) +
        (SELECT count(*) FROM kvm_exit)" | tail -1)
total=$(trace-cmd report -i "$sample" 2>/dev/null | grep -c ']  *[0-9]*\.[0-9]*: ')
case $kept in
0) [ "$stored" = 0 ] || { echo "FAIL: $stored rows stored from a file rejected up front"; exit 1; } ;;
some) [ "$stored" -gt 0 ] && [ "$stored" -lt "$total" ] ||
        { echo "FAIL: $stored rows kept, expected some of the $total before the cut"; exit 1; } ;;
esac
echo "ok: $case: exit $rc, the error names the file and offset, $stored rows kept"
