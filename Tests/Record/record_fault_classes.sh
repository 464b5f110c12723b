#!/bin/sh
#
# record_fault_classes.sh MODE TRACESTORE FILEFAULTS WORKDIR
#
# Hard and soft page faults against the kernel's own count.  FileFaults
# (Tests/Workloads) drops a file from the page cache, maps it, and in a
# window reads each of its pages (hard faults), writes some of them again
# (copy-on-write), writes fresh anonymous pages (demand-zero) and PROT_NONE
# pages that its SIGSEGV handler then makes writable (a fault the kernel
# does not count, then a demand-zero one that it counts); it
# prints its getrusage ru_majflt/ru_minflt for the window, the window's
# CLOCK_MONOTONIC bounds, its mappings and every address it touched with
# its module offset (address - mapping start + file offset).
#
# MODE record: `tracestore record -e exceptions:page_fault_user -- ...`.
#   The workload's rows in the window: hard = 1 exactly ru_majflt of them,
#   hard = 0 exactly ru_minflt, NULL only the SIGSEGVs (fault_kind
#   access_violation, one per guard page); each touch a row with the
#   workload's module, module offset, code 0, hard and fault_kind (file /
#   copy_on_write / demand_zero: docs/sql.md, "Page-fault classes"); the
#   ips in FileFaults' main, at main's file offset from nm and
#   readelf (the data file's faults); every instruction-fetch fault (x86
#   error code bit 4) code 1.
# MODE kernel: the same with exceptions:page_fault_kernel recorded too and
#   the workload read()ing 8 pages of the file into fresh anonymous memory
#   in the window (faults in kernel mode, counted by getrusage: without
#   page_fault_kernel they would have no row).
# MODE perf: `perf record -c 1 -e major-faults,minor-faults -d -k mono`,
#   `perf script` with addresses, `tracestore import`: the same counts,
#   each touch a row with hard from the event name and perf's dso, and
#   module_offset, code and fault_kind NULL (perf script names no mapping).
#
# Exit 77 (CTest skip) without root and tracefs (record) or perf (perf),
# or when the page cache cannot be dropped here (no hard fault happens).
#
set -u
MODE=$1; TS=$2; FF=$3; W=$4
. "$(dirname "$0")/record_lib.sh"

DATA=$W/data.bin
case $MODE in
  record|kernel)
    if [ $MODE = kernel ]; then ev="-e exceptions:page_fault_kernel" kp=8
    else ev= kp=0; fi
    "$TS" record -e exceptions:page_fault_user $ev -o "$S" -- \
         "$FF" "$DATA" 48 32 8 $kp 4 > "$W/workload.out" 2> "$W/record.err" \
      || { cat "$W/record.err"; fail "tracestore record failed"; }
    cat "$W/record.err"
    TASK=pid;;
  perf)
    command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
    perf record -q -c 1 -e major-faults,minor-faults -d -k mono \
         -o "$W/perf.data" -- "$FF" "$DATA" 48 32 8 0 4 > "$W/workload.out" \
         2> "$W/record.err" ||
      { cat "$W/record.err"; skip "perf record failed here"; }
    perf script -i "$W/perf.data" --ns \
         -F comm,pid,tid,time,event,addr,ip,sym,dso > "$W/script.txt" \
         2> "$W/script.err" || { cat "$W/script.err"; fail "perf script failed"; }
    "$TS" import -o "$S" "$W/script.txt" > "$W/import.log" 2>&1 ||
      { cat "$W/import.log"; fail "tracestore import failed"; }
    TASK=tid;;
  *) fail "mode $MODE";;
esac

get(){ awk -v k="$1" -v f="$2" '$1 == k { print $f; exit }' "$W/workload.out"; }
PID=$(get pid 2); T0=$(get window 2); T1=$(get window 3)
MAJ=$(get rusage 2); MIN=$(get rusage 3)
case "$PID$T0$T1$MAJ$MIN" in ''|*[!0-9]*) fail "no account from the workload";; esac
echo "workload: pid $PID, rusage majflt $MAJ minflt $MIN, $(get resident 2) pages resident"
[ "$MAJ" -gt 0 ] || skip "no hard fault: the page cache could not be dropped here"

q(){ "$TS" sql --csv "$S" "$1" | tail -n +2; }
IN="$TASK = $PID AND ts BETWEEN $T0 AND $T1"
n_hard=$(q "SELECT count(*) FROM page_fault WHERE $IN AND hard = 1")
n_soft=$(q "SELECT count(*) FROM page_fault WHERE $IN AND hard = 0")
n_null=$(q "SELECT count(*) FROM page_fault WHERE $IN AND hard IS NULL")
echo "window rows: hard $n_hard, soft $n_soft, unclassified $n_null"
[ "$n_hard" = "$MAJ" ] || fail "hard = 1: $n_hard rows, ru_majflt $MAJ"
[ "$n_soft" = "$MIN" ] || fail "hard = 0: $n_soft rows, ru_minflt $MIN"
# The guard pages' first faults: the kernel did not count them (SIGSEGV);
# perf has no event for them.
n_guard=$(grep -c '^touch guard' "$W/workload.out")
[ $MODE = perf ] && n_guard=0
[ "$n_null" = "$n_guard" ] || fail "$n_null rows of the window without hard, wanted $n_guard (the SIGSEGVs)"

# Each touch: ADDRESS|MODULE|MODULE_OFFSET|CODE|HARD|KIND.
file=$(realpath "$DATA")
awk -v file="$file" -v mode="$MODE" '
  $1 == "touch" {
    if ($2 == "file") { m = file; h = 1; k = "file" }
    else if ($2 == "cow") { m = file; h = 0; k = "copy_on_write" }
    else { m = "//anon"; h = 0; k = "demand_zero" }   # anon, kernel
    if (mode == "perf") print $3 "|" m "|||" h "|"
    else print $3 "|" m "|" $4 "|0|" h "|" k
    if ($2 == "guard" && mode != "perf") print $3 "|" m "|" $5 "|0||access_violation"
  }' "$W/workload.out" | sort > "$W/expected.txt"
q "SELECT printf('0x%x', address) || '|' || ifnull(module, '') || '|' ||
          ifnull(module_offset, '') || '|' || ifnull(code, '') || '|' ||
          ifnull(hard, '') || '|' || ifnull(fault_kind, '')
   FROM page_fault WHERE $IN" | sort > "$W/rows.txt"
missing=$(comm -23 "$W/expected.txt" "$W/rows.txt" | wc -l)
[ "$missing" = 0 ] || {
  comm -23 "$W/expected.txt" "$W/rows.txt" | head -5
  echo "rows:"; head -5 "$W/rows.txt"
  fail "$missing of $(wc -l < "$W/expected.txt") touches have no row as the workload says"; }
echo "ok: $(wc -l < "$W/expected.txt") touches, each a row with the workload's module offset and class"

# The page_fault_traffic view.
view="SELECT pid, comm, module, faults, hard, soft, unclassified, hard_code,
             hard_data, soft_code, soft_data FROM page_fault_traffic"
if [ "$MODE" = perf ]; then
  # Against awk over the perf script text: per pid, comm and the dso after
  # the data address; hard from the event name; code when address = ip.
  awk '{
      for (j = 1; j <= NF && $j !~ /^(major|minor)-faults:$/; j++) {}
      if (j > NF) next
      for (k = 1; k < j && $k !~ /^[0-9]+\/[0-9]+$/; k++) {}
      pid = $k; sub(/\/.*/, "", pid)
      comm = $1; for (i = 2; i < k; i++) comm = comm " " $i
      addr = $(j + 1)
      for (d = j + 2; d <= NF && $d !~ /^\(.*\)$/; d++) {}
      dso = $d; gsub(/^\(|\)$/, "", dso)
      ip = $(d + 1)
      g = pid "," comm "," dso; n[g]++
      c = (addr == ip) ? "code" : "data"
      if ($j ~ /^major/) { h[g]++; x[g, "hard" c]++ } else { so[g]++; x[g, "soft" c]++ }
    }
    END { for (g in n) printf "%s,%d,%d,%d,0,%d,%d,%d,%d\n", g, n[g], h[g], so[g],
            x[g, "hardcode"], x[g, "harddata"], x[g, "softcode"], x[g, "softdata"] }' \
    "$W/script.txt" | sort > "$W/traffic.expected"
  q "$view" | sort > "$W/traffic.rows"
  cmp -s "$W/traffic.expected" "$W/traffic.rows" || {
    diff "$W/traffic.expected" "$W/traffic.rows" | head -10
    fail "page_fault_traffic differs from awk over the perf script text"; }
  echo "ok: page_fault_traffic = awk over perf script ($(wc -l < "$W/traffic.rows") rows)"
  echo PASS
  exit 0
fi

# Live: the data file's row is the workload's touches of it: its reads
# hard data, its copy-on-write writes soft data, nothing else.
want=$(awk -v pid="$PID" -v file="$file" '
  $1 == "touch" && $2 == "file" { h++ } $1 == "touch" && $2 == "cow" { c++ }
  END { printf "%s,FileFaults,%s,%d,%d,%d,0,0,%d,0,%d\n", pid, file, h + c, h, c, h, c }' \
  "$W/workload.out")
got=$(q "$view WHERE pid = $PID AND module = '$(sqlq "$file")'")
[ "$got" = "$want" ] || fail "page_fault_traffic: $got, wanted $want"
echo "ok: page_fault_traffic of the data file: $got"

# The ips of the data file's faults (main's reads and writes; a sanitizer
# build faults elsewhere too, in its shadow memory): in main, at main's
# offset in the file.
if command -v nm >/dev/null && command -v readelf >/dev/null; then
  prog=$(realpath "$FF")
  range=$( { readelf -lW "$FF"; echo "--nm"; nm -S --defined-only "$FF"; } |
    awk 'function hex(x,   i, v) {
           sub(/^0x/, "", x); v = 0
           for (i = 1; i <= length(x); i++)
             v = v * 16 + index("0123456789abcdef", tolower(substr(x, i, 1))) - 1
           return v
         }
         $1 == "LOAD" { off[n] = hex($2); va[n] = hex($3); sz[n] = hex($6); n++ }
         $1 == "--nm" { nm = 1; next }
         nm && $4 == "main" {
           a = hex($1); s = hex($2)
           for (i = 0; i < n; i++) {
             v = va[i]; o = off[i]; z = sz[i]
             if (a >= v && a < v + z) { print a - v + o, a - v + o + s; exit }
           }
         }')
  set -- $range
  [ $# = 2 ] || fail "main not found in $FF (nm, readelf)"
  bad=$(q "SELECT count(*) FROM page_fault WHERE $IN
           AND module = '$(sqlq "$file")' AND NOT (
           ip_module = '$(sqlq "$prog")' AND ip_module_offset >= $1
           AND ip_module_offset < $2)")
  [ "$bad" = 0 ] || fail "$bad window rows with an ip outside main's file offsets [$1, $2)"
  echo "ok: the data file's faults' ips at main's file offsets [$1, $2)"
fi

# Code: an instruction fetch (error code bit 4) faults in executable memory.
n_fetch=$(q "SELECT count(*) FROM page_fault WHERE pid = $PID AND error_code & 16")
n_code=$(q "SELECT count(*) FROM page_fault WHERE pid = $PID AND error_code & 16 AND code = 1")
[ "$n_fetch" -gt 0 ] || fail "no instruction-fetch fault"
[ "$n_code" = "$n_fetch" ] || fail "$n_code of $n_fetch instruction fetches with code = 1"
echo "ok: $n_fetch instruction-fetch faults, all code = 1"
echo PASS
