#!/bin/sh
# Damaged uftrace directories: a copy of the sample with its largest task
# file cut at several offsets or with bytes changed, and with a bad info
# header, task.txt or symbol file.  Each import must end with exit 0, or
# exit 1 and an error naming the damaged file and the byte offset (or
# line); never a crash (a signal, a sanitizer report).  A cut that is not
# on a record boundary must be reported; so must a cut map, debug-info or
# perf file, and argument data that no spec of the recording covers.
# usage: uftrace_damage.sh TRACESTORE UFTRACE_DIR WORKDIR [FLIPS]
set -eu
ts=$1; dir=$2; work=$3; flips=${4:-200}
rm -rf "$work"; mkdir -p "$work"
copy=$work/damaged.data
cases=0

fresh() { rm -rf "$copy" "$work/session"; cp -r "$dir" "$copy"; chmod -R u+w "$copy"; }

# cut_in_line SRC DST: the first half of text file SRC, ending inside a
# line (one byte further when half ends just after a newline: the content,
# paths of the build included, moves where half falls).
cut_in_line() {
  python3 - "$1" "$2" <<'EOF3'
import sys
data = open(sys.argv[1], "rb").read()
n = len(data) // 2
while n < len(data) and n > 0 and data[n - 1:n] == b"\n":
    n += 1
open(sys.argv[2], "wb").write(data[:n])
EOF3
}

# run WANT FILE: import the damaged copy; WANT is "error" (exit 1 required)
# or "any" (exit 0, or 1 with a proper message).
run() {
  want=$1; file=$2; cases=$((cases + 1))
  set +e
  rm -rf "$work/session"
  "$ts" import --format uftrace -o "$work/session" "$copy" > "$work/out" 2>&1
  rc=$?
  set -e
  if [ $rc -ge 2 ] || { [ $rc -eq 0 ] && [ "$want" = error ]; }; then
    cat "$work/out"; echo "FAIL ($what): exit status $rc"; exit 1
  fi
  if grep -q -i 'sanitizer\|runtime error' "$work/out"; then
    cat "$work/out"; echo "FAIL ($what): sanitizer report"; exit 1
  fi
  if [ $rc -eq 1 ]; then
    grep -q "$copy/[^ ]*: \(offset\|line\) [0-9]" "$work/out" || {
      cat "$work/out"; echo "FAIL ($what): message names no file and offset"; exit 1; }
    [ -z "$file" ] || grep -q "$copy/$file: " "$work/out" || {
      cat "$work/out"; echo "FAIL ($what): message does not name $file"; exit 1; }
  fi
}

dat=$(cd "$dir" && ls -S *.dat | grep -v perf-cpu | head -1)
size=$(wc -c < "$dir/$dat")

# Cuts: inside the first record, at record boundaries, just before the end.
for cut in 1 8 15 16 17 24 40 48 100 $((size / 2)) $((size - 16)) $((size - 9)) $((size - 1)); do
  fresh; truncate -s "$cut" "$copy/$dat"; what="$dat cut at $cut"
  # A cut inside a record (not on a multiple of 8) always leaves a partial
  # record: an error.  On a boundary the file is just shorter.
  if [ $((cut % 8)) -ne 0 ]; then run error "$dat"; else run any "$dat"; fi
done

# Changed bytes in the task file (a fixed seed, so failures repeat).
mkdir -p "$work/flips"
python3 - "$dir/$dat" "$work/flips" "$flips" <<'EOF'
import random, sys
src, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, "rb").read()
rng = random.Random(1234)
for i in range(n):
    copy = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        copy[rng.randrange(len(copy))] = rng.randrange(256)
    open("%s/%04d.dat" % (out, i), "wb").write(copy)
EOF
fresh
for flipped in "$work/flips"/*.dat; do
  cp "$flipped" "$copy/$dat"; what="$dat changed as in $flipped"
  run any ""
done

# info: a version this reader does not read, a bad magic, a short file.
fresh; printf '\011' | dd of="$copy/info" bs=1 seek=8 conv=notrunc 2>/dev/null
what="info version 9"; run error info
grep -q "info: offset 8: uftrace data version 9" "$work/out" || { cat "$work/out"; echo "FAIL: $what"; exit 1; }
fresh; printf 'Xtrace!' | dd of="$copy/info" bs=1 seek=0 conv=notrunc 2>/dev/null
what="info magic"; run error info
fresh; truncate -s 20 "$copy/info"; what="info cut at 20"; run error info

# task.txt: a line that is none of SESS, TASK, FORK, DLOP; a SESS without pid.
fresh; echo "GARBAGE line" >> "$copy/task.txt"; what="task.txt garbage"; run error task.txt
fresh; sed -i 's/ pid=[0-9]*//' "$copy/task.txt"; what="task.txt without pid"; run error task.txt
fresh; head -c $(( $(wc -c < "$dir/task.txt") - 2 )) "$dir/task.txt" > "$copy/task.txt"; what="task.txt cut"; run error task.txt

# A symbol file out of order, and one cut in the middle of a line.
sym=$(cd "$dir" && ls *.sym | head -1)
fresh; sort -r "$dir/$sym" | grep -v '^#' > "$copy/$sym"; what="$sym unsorted"; run error "$sym"
fresh; cut_in_line "$dir/$sym" "$copy/$sym"; what="$sym cut"; run error "$sym"

# A map file cut in the middle of a line, like a symbol file.
map=$(cd "$dir" && ls sid-*.map | head -1)
fresh; cut_in_line "$dir/$map" "$copy/$map"; what="$map cut"; run error "$map"

# Debug info with argument specs (a recording with -a), cut in a line.
dbg=$(cd "$dir" && grep -l '^A: ' *.dbg 2>/dev/null | head -1 || true)
if [ -n "$dbg" ]; then
  fresh; cut_in_line "$dir/$dbg" "$copy/$dbg"; what="$dbg cut"; run error "$dbg"
fi

# Context switches: a perf file cut inside a record.
perf=$(cd "$dir" && ls -S perf-cpu*.dat 2>/dev/null | head -1 || true)
if [ -n "$perf" ] && [ "$(wc -c < "$dir/$perf")" -gt 40 ]; then
  fresh; truncate -s $(( $(wc -c < "$dir/$perf") - 5 )) "$copy/$perf"; what="$perf cut"; run error "$perf"
fi

# Arguments recorded for functions the recording's specs no longer name
# (argspec and retspec of the info file emptied).
if grep -aq '^argspec:[^l]\|^retspec:' "$dir/info"; then
  fresh
  python3 - "$copy/info" <<'EOF2'
import re, sys
path = sys.argv[1]
data = open(path, "rb").read()
data = re.sub(rb"\n(argspec:(?!lines=)|retspec:)[^\n]*", rb"\n\1no_such_function", data)
open(path, "wb").write(data)
EOF2
  what="argument specs removed"; run error ""
  grep -q "no argument spec" "$work/out" || { cat "$work/out"; echo "FAIL: $what"; exit 1; }
fi

echo "ok: $cases damaged copies of $dir, each imported or rejected with the file and offset named"
