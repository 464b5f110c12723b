#!/bin/sh
# The uftrace and Chrome JSON readers against uftrace itself (the oracle).
# usage: uftrace_oracle.sh TRACESTORE UFTRACE_DIR WORKDIR CHECK [JSON]
#   replay  span count and (name, depth) of every span equal the function
#           lines of `uftrace replay` (depth = indentation / 2)
#   dump    (tid, ts, dur, name, depth, parent's ts) of every span equal
#           what awk derives from `uftrace dump`: entry/exit records paired
#           per task, depth as the record says
#   chrome  the Chrome JSON of the same run (JSON, or `uftrace dump
#           --chrome` when not given) imports to the same span table
#   lost    a lost record inserted into a task file (as libmcount writes
#           one: time 0, type 2, the count as address) leaves the spans
#           unchanged and adds its count to the span store's dropped
set -eu
ts=$1; dir=$2; work=$3; check=$4; json=${5:-}
command -v uftrace >/dev/null || { echo "uftrace not installed (Tests/install-deps.sh)"; exit 1; }
rm -rf "$work"; mkdir -p "$work"
session=$work/session

sql() { "$ts" sql --csv "$1" "$2" | tail -n +2; }

case $check in
replay)
  "$ts" import -o "$session" "$dir"
  uftrace replay -d "$dir" > "$work/replay.txt"
  awk 'NR > 1 {
         i = index($0, "| "); if (i == 0) next
         f = substr($0, i + 2); n = match(f, /[^ ]/) - 1; f = substr(f, n + 1)
         if (f ~ /^}/ || f ~ /^\/\*/) next
         name = substr(f, 1, index(f, "(") - 1)
         print name "," n / 2 }' "$work/replay.txt" | sort > "$work/expected"
  sql "$session" "SELECT name, depth FROM span" | sort > "$work/actual"
  [ -s "$work/expected" ] || { echo "FAIL: no functions in uftrace replay"; exit 1; }
  diff "$work/expected" "$work/actual" > "$work/diff" || {
    head -20 "$work/diff"; echo "FAIL: spans differ from uftrace replay"; exit 1; }
  echo "ok: $(wc -l < "$work/actual") spans, names and depths as uftrace replay prints them"
  ;;
dump)
  "$ts" import -o "$session" "$dir"
  uftrace dump -d "$dir" > "$work/dump.txt"
  awk '
    function ns(t) { sub(/\./, "", t); return t + 0 }
    $3 == "[entry]" || ($3 == "[exit" && $4 == "]") {
      t = ns($1); tid = $2; sub(/:$/, "", tid)
      f = ($3 == "[entry]") ? $4 : $5; name = substr(f, 1, index(f, "(") - 1)
      depth = $NF
      if ($3 == "[entry]") {
        n = ++sp[tid]; st[tid, n] = t; sn[tid, n] = name; sd[tid, n] = depth
      } else {
        n = sp[tid]
        if (n == 0) { print "exit without entry in uftrace dump" > "/dev/stderr"; exit 1 }
        parent = (n > 1) ? sprintf("%.0f", st[tid, n - 1]) : ""
        printf "%s,%.0f,%.0f,%s,%s,%s\n", tid, st[tid, n], t - st[tid, n], sn[tid, n], sd[tid, n], parent
        sp[tid] = n - 1
      }
    }' "$work/dump.txt" | sort > "$work/expected"
  sql "$session" "SELECT s.tid, s.ts, s.dur, s.name, s.depth, p.ts FROM span s
                  LEFT JOIN span p ON p.id = s.parent_id" | sort > "$work/actual"
  [ -s "$work/expected" ] || { echo "FAIL: no records in uftrace dump"; exit 1; }
  diff "$work/expected" "$work/actual" > "$work/diff" || {
    head -20 "$work/diff"; echo "FAIL: spans differ from uftrace dump"; exit 1; }
  echo "ok: $(wc -l < "$work/actual") spans (tid, ts, dur, name, depth, parent) as uftrace dump's records pair up"
  ;;
chrome)
  if [ -z "$json" ]; then
    json=$work/chrome.json
    uftrace dump --chrome -d "$dir" > "$json"
  fi
  "$ts" import -o "$session" "$dir"
  "$ts" import -o "$work/json" "$json"
  q="SELECT ts, dur, name, depth, tid, pid, parent_id, flags FROM span ORDER BY id"
  sql "$session" "$q" > "$work/from-dir"
  sql "$work/json" "$q" > "$work/from-json"
  [ -s "$work/from-dir" ] || { echo "FAIL: no spans"; exit 1; }
  diff "$work/from-dir" "$work/from-json" > "$work/diff" || {
    head -20 "$work/diff"; echo "FAIL: the JSON import differs from the directory's"; exit 1; }
  echo "ok: $(wc -l < "$work/from-json") spans identical from $json and $dir"
  ;;
lost)
  "$ts" import -o "$session" "$dir"
  cp -r "$dir" "$work/lost.data"; chmod -R u+w "$work/lost.data"
  dat=$(ls -S "$work/lost.data"/*.dat | grep -v perf-cpu | head -1)
  python3 - "$dat" <<'EOF'
import struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
# after the fourth record (each 16 bytes up to there in these samples)
lost = struct.pack("<QQ", 0, 2 | (5 << 3) | (7 << 16))
open(path, "wb").write(data[:64] + lost + data[64:])
EOF
  "$ts" import -o "$work/lost" "$work/lost.data"
  q="SELECT ts, dur, name, depth, tid, parent_id, flags FROM span ORDER BY id"
  sql "$session" "$q" > "$work/expected"
  sql "$work/lost" "$q" > "$work/actual"
  diff "$work/expected" "$work/actual" || { echo "FAIL: a lost record changed the spans"; exit 1; }
  dropped=$(sql "$work/lost" "SELECT dropped FROM store_info WHERE name = 'span'")
  [ "$dropped" = 7 ] || { echo "FAIL: dropped is '$dropped', not the 7 the lost record says"; exit 1; }
  uftrace dump -d "$work/lost.data" | grep -q '\[lost \]' || uftrace replay -d "$work/lost.data" | grep -qi lost ||
    { echo "FAIL: uftrace does not see the inserted lost record"; exit 1; }
  echo "ok: lost record counted (7), spans unchanged"
  ;;
*) echo "unknown check $check"; exit 2 ;;
esac
