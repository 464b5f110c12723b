#!/bin/sh
#
# valgrind-samples.sh TRACESTORE SHARED_DATA TESTS_DATA
#
# valgrind memcheck of the CLI on every sample: `tracestore import` of each
# input, then `tracestore info` and a `tracestore sql` query over every
# store of the session (which loads the extension).  Any memcheck error,
# or a definitely/indirectly lost block, fails (--error-exitcode); a
# non-zero exit of tracestore itself fails too.  Run by .ci/run on the
# release build (valgrind does not run under ASan).
#
set -u
TS=$1; SHARED=$2; DATA=$3
command -v valgrind >/dev/null || { echo "SKIP: no valgrind"; exit 77; }
W=${TMPDIR:-/tmp}/tracer-valgrind.$$
rm -rf "$W"; mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
VG="valgrind -q --error-exitcode=99 --leak-check=full
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect"
n=0; bad=0
run(){
  if ! $VG "$@" > "$W/out" 2> "$W/err"; then
    echo "FAIL: $*"; sed -n 1,40p "$W/err"; bad=$((bad + 1))
  fi
}
for f in "$SHARED"/capture-1/ftrace.txt "$SHARED"/capture-1/perf-kvm.txt \
         "$SHARED"/capture-1/perf-kvm-time-event.txt \
         "$SHARED"/capture-1/perf-pagefaults.txt "$SHARED"/capture-1/perf-stat.txt \
         "$SHARED"/capture-1/trace-cmd-report.txt "$SHARED"/capture-1/trace.dat \
         "$SHARED"/capture-1/trace-v6.dat "$SHARED"/capture-1/uftrace-chrome.json \
         "$SHARED"/capture-1/uftrace.data "$SHARED"/kvmtrace/sample.bin \
         "$SHARED"/etw/ShutdownPerfDiagLogger.etl "$DATA"/etw/net-slice.etl \
         "$DATA"/*.txt "$DATA"/uftrace-mt.data; do
  [ -e "$f" ] || continue
  n=$((n + 1))
  s=$W/s$n
  extra=""
  case "$f" in *kvmtrace/sample.bin) extra="--format kvmtrace";; esac
  echo "valgrind: $f"
  run "$TS" import $extra "$f" -o "$s"
  run "$TS" info "$s"
  run "$TS" sql "$s" "SELECT name, records FROM store_info;
                      SELECT count(*) FROM event; SELECT * FROM event LIMIT 5"
done
echo "$n samples, $bad failures"
[ "$bad" = 0 ]
