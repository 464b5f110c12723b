#!/bin/sh
# The views read from the rollups equal the full scan on every sample: each
# input of Tests/Data and ../shared/data, and each fuzz regression, imported
# into a session of its own,
# the capture's files imported one after another into one session (each
# import continues the rollups the one before published), and a session
# whose rollup files were removed and that an import then continues (the
# writer rebuilds them from the stores).
#   rollup_samples.sh TRACESTORE EXTENSION PYTHON DATA SHARED WORKDIR
set -eu
TS=$1 EXT=$2 PY=$3 DATA=$4 SHARED=$5 W=$6
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W"
mkdir -p "$W"
fail(){ echo "FAIL: $*"; exit 1; }
n=0
for f in "$DATA"/*.txt "$DATA"/uftrace-mt.data "$DATA"/chrome/*.json \
         "$DATA"/etw/*.etl "$SHARED"/data/capture-1/* "$SHARED"/data/etw/* \
         "$SHARED"/data/kvmtrace/sample.bin; do
  n=$((n+1))
  fmt=""
  case $f in *.bin) fmt="--format kvmtrace" ;; esac
  # Inputs that are not traces (expected outputs, formats files) fail to
  # import: they have no session to compare.
  if ! "$TS" import $fmt -o "$W/s$n" "$f" > "$W/s$n.log" 2>&1; then
    rm -rf "$W/s$n"
    continue
  fi
  echo "s$n $f" >> "$W/list"
done
[ "$(wc -l < "$W/list")" -ge 25 ] || fail "too few samples imported"

# The fuzz regressions (Tests/Data/fuzz-regressions/TARGET/*), each put in
# the file of the uftrace recording its target replaces, as the fuzz
# target does.  They fail to import, most after keeping the events read
# before the error: those sessions are compared too.
for r in "$DATA"/fuzz-regressions/uftrace_task/* \
         "$DATA"/fuzz-regressions/uftrace_map/*; do
  n=$((n+1))
  rm -rf "$W/r$n.data"
  cp -r "$DATA/uftrace-mt.data" "$W/r$n.data"
  case $r in
  */uftrace_task/*) cp "$r" "$W/r$n.data/task.txt" ;;
  *) cp "$r" "$W/r$n.data/sid-0fd32bf6c55db5bb.map" ;;
  esac
  "$TS" import -o "$W/s$n" "$W/r$n.data" > "$W/s$n.log" 2>&1 || true
  if [ -f "$W/s$n/session.tracer" ]; then
    echo "s$n $r" >> "$W/list"
  fi
done
grep -q fuzz-regressions "$W/list" || fail "no fuzz regression left a session"

# Several imports into one session.
C=$SHARED/data/capture-1
"$TS" import -o "$W/many" "$C/trace.dat" > /dev/null
"$TS" import -o "$W/many" "$C/uftrace.data" > /dev/null
"$TS" import -o "$W/many" "$C/perf-pagefaults.txt" "$C/perf-kvm.txt" \
  "$DATA/kvm-exit-codes.txt" "$DATA/ftrace-syscalls.txt" > /dev/null
"$TS" import -o "$W/many" "$DATA/uftrace-mt.data" "$DATA/chrome/events.json" \
  > /dev/null

# Rollups removed, then rebuilt by the next writer.
"$TS" import -o "$W/rebuilt" "$C/ftrace.txt" "$C/uftrace.data" > /dev/null
rm "$W/rebuilt"/*.rollup
"$TS" info "$W/rebuilt" | grep -q "page_fault:  *missing:" ||
  fail "info does not say the page_fault rollup is missing"
"$PY" "$here/rollup_views_test.py" "$EXT" "$W/rebuilt"
"$TS" import -o "$W/rebuilt" "$DATA/perf-sched-faults.txt" > /dev/null
"$TS" info "$W/rebuilt" > "$W/rebuilt.info"
grep -q "page_fault:  *file, \([0-9]*\) of \1 records" "$W/rebuilt.info" ||
  { cat "$W/rebuilt.info"; fail "the writer did not rebuild the rollup"; }

"$PY" "$here/rollup_views_test.py" "$EXT" $(awk -v w="$W" '{ print w "/" $1 }' "$W/list") \
  "$W/many" "$W/rebuilt"
