#!/bin/sh
#
# Tests/Bench/run-all.sh [--quick] [--write | --no-write] [--only NAME] [BUILD_DIR]
#
# Runs every benchmark of docs/benchmarks-history.md, each next to its reference measured
# in the same run, and rewrites the generated tables there (between the
# markers <!-- bench:NAME begin --> and <!-- bench:NAME end -->).
#
#   BUILD_DIR    a release build (default: build); inputs and scratch go to
#                BUILD_DIR/bench (about 50 GB in the full mode, mostly the
#                rollup benchmark's 10^8-row session and the SQL
#                benchmark's 10 GB store and its copy).
#   --quick      small inputs and single runs: a few minutes, for checking
#                the suite; writes BUILD_DIR/bench/benchmarks-history.md only.
#   --write      rewrite docs/benchmarks-history.md in the source tree (the default in
#                the full mode); --no-write: only BUILD_DIR/bench/benchmarks-history.md.
#   --only NAME  only the steps whose command contains NAME (e.g. tracedat):
#                their tables are rewritten, each saying it was a run of
#                that step alone, and the machine summary of the last full
#                run is left as it was.
#
# Inputs are generated from the samples (Tests/Data, ../shared/data) with
# fixed seeds, and kept in BUILD_DIR/bench between runs.  The live
# recording benchmark needs root and tracefs; without them its tables are
# left as they are and the summary says why.  Everything printed goes to
# BUILD_DIR/bench/results.txt; its @bench lines are the figures.
#
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
quick=0; write=; only=
while [ $# -gt 0 ]; do
  case $1 in
  --quick) quick=1 ;;
  --write) write=1 ;;
  --no-write) write=0 ;;
  --only) only=$2; shift ;;
  -*) sed -n '3,25p' "$0"; exit 2 ;;
  *) break ;;
  esac
  shift
done
[ -n "$write" ] || write=$((1 - quick))
cd "$src"
b=${1:-build}
[ -x "$b/tracestore" ] && [ -x "$b/Tests/BenchSql" ] ||
  { echo "run-all.sh: no release build in $b (cmake --build $b first)"; exit 2; }
shared=${TRACER_SHARED_DIR:-../shared}   # from $src
work=$b/bench; mkdir -p "$work/append"
out=$work/results.txt; : > "$out"
ts=$b/tracestore
# A python3 whose sqlite3 loads extensions (Debian's; pyenv's may not).
py=$(sed -n 's/^TRACER_PYTHON3:[^=]*=//p' "$b/CMakeCache.txt"); py=${py:-python3}

meta() { printf '@bench\t-\t%s' "$1" >> "$out"; shift; printf '\t%s' "$@" >> "$out"; echo >> "$out"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

# step COMMAND...: one benchmark, its output shown and kept in $out, with
# the load average and the wall time around it.
step() {
  case "$*" in *"$only"*) ;; *) return 0 ;; esac
  echo "== $*"
  meta step "$*" "$(load)"
  t0=$(date +%s)
  { "$@" 2>&1; echo $? > "$work/rc"; } | tee -a "$out"
  rc=$(cat "$work/rc")
  meta done "$(load)" "$(( $(date +%s) - t0 ))" "$rc"
  [ "$rc" = 0 ] || [ "$rc" = 77 ] || failed=$((failed + 1))
}
failed=0
# record [VAR=VALUE...]: the live recording benchmark, with its schedule.
record() {
  case bench_record.sh in *"$only"*) ;; *) return 0 ;; esac
  if [ "$(id -u)" != 0 ]; then
    meta skip "bench_record.sh" "not root (tracefs)"
  elif [ ! -d /sys/kernel/tracing/instances ] &&
       ! mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; then
    meta skip "bench_record.sh" "no tracefs"
  else
    step env "$@" sh Tests/Bench/bench_record.sh "$ts" "$b/Tests/SyscallLoop" \
      "$b/Tests/BenchRecordLatency" "$work/record"
  fi
}

meta info mode "$([ $quick = 1 ] && echo quick || echo full)"
meta info command "Tests/Bench/run-all.sh $([ $quick = 1 ] && echo '--quick ')$([ -n "$only" ] && echo "--only $only ")$b"
[ -z "$only" ] || meta info only "$only"
meta info date "$(date -u '+%Y-%m-%d %H:%M UTC')"
meta info cpu "$(nproc) x $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
meta info memory "$(awk '/^MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
meta info kernel "$(uname -sr)"
meta info filesystem "$(df -T "$work" | awk 'NR == 2 { print $2 }')"
meta info build "$(sed -n 's/^CMAKE_BUILD_TYPE:[^=]*=//p' "$b/CMakeCache.txt"), $(sed -n 's/^CMAKE_C_COMPILER:[^=]*=//p' "$b/CMakeCache.txt" | xargs basename) $("$(sed -n 's/^CMAKE_C_COMPILER:[^=]*=//p' "$b/CMakeCache.txt")" -dumpversion)"
meta info commit "$(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD 2>/dev/null || echo ' (with local changes)')"
meta info load-start "$(load)"
start=$(date +%s)

if [ $quick = 1 ]; then
  step "$b/Tests/BenchAppend" --size 256M --repeat 1 "$work/append"
  step sh Tests/Bench/bench_import.sh "$ts" 20 "$work/import"
  step sh Tests/Bench/bench_rss.sh "$ts" 200 "$work/rss"
  step sh Tests/Bench/bench_kvmtrace.sh "$ts" "$shared" 20 "$work/kvmtrace"
  step sh Tests/Bench/bench_etw.sh "$ts" "$shared" "$work/etw" 10
  step sh Tests/Bench/bench_chrome.sh "$ts" 100 "$work/chrome"
  step sh Tests/Bench/bench_export.sh "$ts" "$shared" 100 1 "$work/export"
  step sh Tests/Bench/bench_export_perfetto.sh "$ts" "$b/Tests/GenSession" "100000 1000000" "$work/perfetto"
  step sh Tests/Bench/bench_tracedat.sh "$ts" "$shared/data/capture-1/trace-v6.dat" 45 "$work/tracedat" "$shared/tools/capture.sh"
  step sh Tests/Bench/bench_perf_data.sh "$ts" "$work/perf-data" ""
  step sh Tests/Bench/bench_script.sh "$ts" "$work/script" ""
  step sh Tests/Bench/bench_sync.sh "$ts" "$work/sync" "100000 1000000"
  step "$b/Tests/BenchSql" --window-rows 10000000 --scan-rows 1000000 --big-gb 0.5 "$work/sql"
  step sh Tests/Bench/bench_plot.sh "$ts" "$b/Tests/BenchPlotSession" 1000000 "$work/plot" 10000
  step "$py" Tests/Bench/bench_rollup.py "$b" "$work/rollup" --sizes 1e5,1e6 --scan-up-to 1e5
  record "RATES=200000 0" REPS=1 BUFKB=4096 LAT_REPS=1 LAT_POLL_US=0
else
  step "$b/Tests/BenchAppend" --size 1G --records-per-commit 4096 --repeat 3 "$work/append"
  step sh Tests/Bench/bench_import.sh "$ts" 200 "$work/import"
  step sh Tests/Bench/bench_rss.sh "$ts" 2000 "$work/rss"
  step sh Tests/Bench/bench_kvmtrace.sh "$ts" "$shared" 200 "$work/kvmtrace"
  step sh Tests/Bench/bench_etw.sh "$ts" "$shared" "$work/etw" 40
  step sh Tests/Bench/bench_chrome.sh "$ts" 1000 "$work/chrome"
  step sh Tests/Bench/bench_export.sh "$ts" "$shared" 1000 10 "$work/export"
  step sh Tests/Bench/bench_export_perfetto.sh "$ts" "$b/Tests/GenSession" "1000000 10000000 100000000" "$work/perfetto"
  step sh Tests/Bench/bench_tracedat.sh "$ts" "$shared/data/capture-1/trace-v6.dat" 450 "$work/tracedat" "$shared/tools/capture.sh"
  step sh Tests/Bench/bench_perf_data.sh "$ts" "$work/perf-data" "6 60"
  step sh Tests/Bench/bench_script.sh "$ts" "$work/script" "6 60"
  step sh Tests/Bench/bench_sync.sh "$ts" "$work/sync"
  step "$b/Tests/BenchSql" "$work/sql"
  step sh Tests/Bench/bench_plot.sh "$ts" "$b/Tests/BenchPlotSession" 10000000 "$work/plot"
  step "$py" Tests/Bench/bench_rollup.py "$b" "$work/rollup"
  record
fi

meta info load-end "$(load)"
meta info duration "$(( ($(date +%s) - start + 30) / 60 )) min"
python3 Tests/Bench/bench_tables.py "$out" docs/benchmarks-history.md "$work/benchmarks-history.md"
if [ "$write" = 1 ]; then cp "$work/benchmarks-history.md" docs/benchmarks-history.md && echo "docs/benchmarks-history.md rewritten"; fi
echo "results: $out; tables: $work/benchmarks-history.md; $failed benchmark(s) failed"
[ $failed = 0 ]
