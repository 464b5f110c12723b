#!/bin/sh
#
# bench_record.sh TRACESTORE SYSCALLLOOP BENCHRECORDLATENCY [WORKDIR]
#
# Live recording benchmarks (issue 5), as root on a machine with tracefs.
#
# A. Throughput without loss.  The workload (Tests/Workloads/SyscallLoop)
#    calls getppid() at RATE calls/s for SECONDS s (RATE 0: full speed),
#    stopped (SIGSTOP) until the recorder is attached to its pid.  Each
#    recorder records raw_syscalls:sys_enter of that pid, filtered in the
#    kernel to getppid's number, into a ring buffer of BUF KB per CPU (for
#    each BUF in BUFKB):
#
#      tracestore  tracestore record -e raw_syscalls:sys_enter -f 'id==NR'
#                    -p PID -b BUF -o SESSION   (stops when PID exits)
#      perf        perf record -e raw_syscalls:sys_enter --filter 'id == NR'
#                    -p PID -m BUF K -o perf.data (stops when PID exits)
#      trace-cmd   trace-cmd record -d --no-filter -B INSTANCE -b BUF
#                    -e raw_syscalls:sys_enter -f 'common_pid==PID && id==NR'
#                    -o trace.dat   (Ctrl-C after PID exits)
#
#    trace-cmd record needs -d and --no-filter on kernels where the
#    function-tracer files (set_ftrace_pid, set_ftrace_filter) refuse to
#    be opened (EPERM): without them it dies or segfaults before
#    recording; even so it fails (exit 1) resetting set_ftrace_filter
#    after writing trace.dat, and leaves its instance, which this script
#    removes.  A run is "all recorded" when the distinct events the
#    tool's own reader finds for PID (by CPU and ns timestamp: perf 6.1
#    was seen to write a sample twice now and then; copies are counted
#    apart) equal the workload's count and the tool reports nothing lost:
#      tracestore  `tracestore sql` count(*) of ftrace_event for the tid;
#                  lost = sum of store_info dropped (`tracestore info --json`)
#      perf        `perf script -F pid` lines of PID; lost = LOST /
#                  LOST_SAMPLES records in `perf report --stats`
#      trace-cmd   `trace-cmd report` lines of PID; lost = overrun +
#                  commit overrun + dropped events in `trace-cmd report --stat`
#    CPU time (user+sys) of each recorder, its children included, is from
#    /usr/bin/time.  Output: one line per run, then a table.
#
# B. Latency from event to SQL.  The workload calls getppid every 2 ms
#    (LAT_RATE=500/s for LAT_SECONDS=4 s); `tracestore record` records it;
#    BenchRecordLatency polls SELECT id, ts FROM ftrace_event WHERE id > ?
#    (in a tight loop, then sleeping 1 ms between polls) and takes
#    CLOCK_MONOTONIC - ts for each new row (the recorder's trace clock is
#    mono).
#
# Environment: RATES (default "100000 200000 400000 0"), SECONDS_PER_RUN
# (5), BUFKB (a list: "4096 256"), REPS (2), TOOLS ("tracestore perf
# trace-cmd"), LAT_RATE (500), LAT_SECONDS (4), LAT_REPS (2), LAT_POLL_US
# (reader's sleep between polls, a list: "0 1000"), PARTS ("A B").  The
# defaults take about 13 minutes (a run takes about 15 s with its readers);
# the issue-5 schedule was RATES="50000 100000 200000 400000 800000 0"
# REPS=3 LAT_REPS=3 (about 25 minutes).  Prints result lines for the
# tables record, record-max and record-latency (see bench_lib.sh).
# Exit 77 (skip) without root or tracefs.
#
set -u
TS=$1; LOOP=$2; LAT=$3; W=${4:-${TMPDIR:-/tmp}/tracer-bench-record}
RATES=${RATES:-100000 200000 400000 0}
SECS=${SECONDS_PER_RUN:-5}
BUFKB=${BUFKB:-4096 256}
REPS=${REPS:-2}
TOOLS=${TOOLS:-tracestore perf trace-cmd}
LAT_RATE=${LAT_RATE:-500}; LAT_SECONDS=${LAT_SECONDS:-4}
LAT_REPS=${LAT_REPS:-2}; LAT_POLL_US=${LAT_POLL_US:-0 1000}
PARTS=${PARTS:-A B}
T=/sys/kernel/tracing
. "$(dirname "$0")/bench_lib.sh"

skip(){ echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root for tracefs"
[ -d $T/instances ] || mount -t tracefs nodev $T 2>/dev/null || skip "no tracefs"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
rm -rf "$W"; mkdir -p "$W"; W=$(cd "$W" && pwd)  # trace-cmd runs in $W

# wait_for SECONDS COMMAND...: until COMMAND succeeds (0) or time is up (1);
# COMMAND's stderr is dropped (files it looks at may not exist yet).
wait_for(){
  n=$(($1 * 100)); shift
  while [ $n -gt 0 ]; do "$@" 2>/dev/null && return 0; sleep 0.01; n=$((n - 1)); done
  return 1
}
has_line(){ [ -s "$1" ] && [ "$(wc -l < "$1")" -ge "$2" ]; }

# start_workload RATE SECONDS: the stopped workload; sets WPID, NR, WJOB.
start_workload(){
  rm -f "$W/loop.out" "$W/loop.err"
  "$LOOP" -s "$1" "$2" > "$W/loop.out" 2> "$W/loop.err" &
  WJOB=$!
  wait_for 10 has_line "$W/loop.out" 1 || { echo "the workload did not start"; exit 1; }
  read WPID NR < "$W/loop.out"
  wait_for 10 sh -c "grep -q '^State:.*T' /proc/$WPID/status" ||
    { echo "the workload did not stop"; exit 1; }
}

# finish_workload: waits for it; sets EXPECTED and ACHIEVED (calls/s).
finish_workload(){
  wait "$WJOB"
  EXPECTED=$(sed -n 2p "$W/loop.out")
  ACHIEVED=$(sed -n 's/.*(\([0-9]*\)\/s).*/\1/p' "$W/loop.err")
}

cpu_of(){ awk '/^cpu / {printf "%.2f", $2 + $3}' "$1"; }

# One run of tool $1 at rate $2; prints a result line.
run_one(){
  tool=$1; rate=$2
  rm -rf "$W/session" "$W/perf.data" "$W"/trace.dat* "$W"/rec.* "$W/events.txt"
  start_workload "$rate" "$SECS"
  case $tool in
  tracestore)
    /usr/bin/time -f "cpu %U %S" -o "$W/cpu" "$TS" record \
      -e raw_syscalls:sys_enter -f "id==$NR" -p "$WPID" -b "$BUF" \
      -o "$W/session" > /dev/null 2> "$W/rec.err" &
    RJOB=$!
    wait_for 10 grep -q " on [0-9]* CPUs" "$W/rec.err" || { cat "$W/rec.err"; exit 1; }
    kill -CONT "$WPID"; finish_workload; wait "$RJOB"
    "$TS" sql --csv "$W/session" "SELECT count(DISTINCT ts), count(*)
      FROM ftrace_event WHERE tid=$WPID AND name='sys_enter'" | tail -1 |
      tr , ' ' > "$W/count"
    read got all < "$W/count"; dup=$((all - got))
    lost=$("$TS" info --json "$W/session" | tr -d ' \n' |
      grep -o '"dropped":[0-9]*' | awk -F: '{s+=$2} END {print s+0}')
    ;;
  perf)
    /usr/bin/time -f "cpu %U %S" -o "$W/cpu" perf record \
      -e raw_syscalls:sys_enter --filter "id == $NR" -p "$WPID" \
      -m "${BUF}K" -o "$W/perf.data" > /dev/null 2> "$W/rec.err" &
    RJOB=$!
    sleep 1    # perf says nothing when it is attached
    kill -CONT "$WPID"; finish_workload; wait "$RJOB"
    perf script -i "$W/perf.data" -F pid,cpu,time --ns 2>/dev/null |
      awk -v p="$WPID" '$1 == p' > "$W/events.txt"
    got=$(sort -u "$W/events.txt" | wc -l); dup=$(($(wc -l < "$W/events.txt") - got))
    lost=$(perf report -i "$W/perf.data" --stats 2>/dev/null |
      sed -n 's/.*LOST[A-Z_]* events: *\([0-9]*\).*/\1/p' | awk '{s+=$1} END {print s+0}')
    grep -Eq 'lost [1-9][0-9]* chunks' "$W/rec.err" && lost=$((lost + 1))
    ;;
  trace-cmd)
    inst=tracer-bench-$$
    (cd "$W" && exec /usr/bin/time -f "cpu %U %S" -o "$W/cpu" trace-cmd record \
      -d --no-filter -B "$inst" -b "$BUF" -e raw_syscalls:sys_enter \
      -f "common_pid==$WPID && id==$NR" -o "$W/trace.dat") \
      > "$W/rec.out" 2> "$W/rec.err" &
    RJOB=$!
    wait_for 10 grep -q 1 $T/instances/$inst/tracing_on 2>/dev/null ||
      { cat "$W/rec.err"; exit 1; }
    sleep 0.2  # its per-CPU readers start after tracing_on
    kill -CONT "$WPID"; finish_workload
    tcpid=$(ps -o pid= --ppid "$RJOB" | tr -d ' ')
    kill -INT "$tcpid"; wait "$RJOB"
    if [ -d $T/instances/$inst ]; then
      echo 0 > $T/instances/$inst/tracing_on
      echo 0 > $T/instances/$inst/events/enable
      rmdir $T/instances/$inst
    fi
    trace-cmd report -t -i "$W/trace.dat" 2>/dev/null |
      awk -v p="$WPID" '
        match($0, /-[0-9]+ +\[[0-9]+\]/) {   # COMM-PID [CPU], PID padded
          q = substr($0, RSTART + 1, RLENGTH - 1); sub(/ .*/, "", q)
          if (q == p && sub(/ sys_enter: .*/, "")) print }' \
      > "$W/events.txt"
    got=$(sort -u "$W/events.txt" | wc -l); dup=$(($(wc -l < "$W/events.txt") - got))
    lost=$(trace-cmd report --stat -i "$W/trace.dat" 2>/dev/null |
      awk -F: '/^overrun:|^commit overrun:|^dropped events:/ {s+=$2} END {print s+0}')
    ;;
  esac
  ok=no; [ "$got" = "$EXPECTED" ] && [ "$lost" = 0 ] && ok=yes
  if [ $ok = no ]; then   # kept for a look: the recorder's messages
    cat "$W/rec.err" "$W/rec.out" > "$W/failed-$tool-$BUF-$rate.txt" 2>/dev/null
  fi
  printf 'run tool %s buf %s rate %s expected %s achieved %s recorded %s dup %s lost %s cpu %s all %s\n' \
    "$tool" "$BUF" "$rate" "$EXPECTED" "$ACHIEVED" "$got" "$dup" "$lost" \
    "$(cpu_of "$W/cpu")" "$ok"
}

case " $PARTS " in *" A "*)
  echo "A. raw_syscalls:sys_enter of one pid, $SECS s per run, ring buffer of $BUFKB KB per CPU"
  echo "   ($(nproc) CPUs, $(uname -r), $(perf --version), trace-cmd $(trace-cmd --version 2>&1 | sed -n 's/.*trace-cmd version \([^ ]*\).*/\1/p' | head -1))"
  for rep in $(seq "$REPS"); do
    for BUF in $BUFKB; do
      for rate in $RATES; do
        for tool in $TOOLS; do
          run_one "$tool" "$rate" > "$W/run.out"; cat "$W/run.out"
          grep '^run ' "$W/run.out" >> "$W/runs.txt"    # the summaries' input
        done
      done
    done
  done
  # Each run line is "run" and then KEY VALUE pairs.
  kv='{ for (i = 2; i < NF; i += 2) v[$i] = $(i + 1) }'
  echo
  bench_head record "buffer KB/CPU" "target rate" tool "runs with all recorded" \
    "events/s (min-max)" "lost (max)" "duplicates (max)" "recorder CPU s (min-max)"
  awk "$kv"'{ k = v["buf"] " " (v["rate"] == 0 ? 1e12 : v["rate"]) " " v["tool"]
         if (!(k in n)) { order[++m] = k; amin[k] = amax[k] = v["achieved"]
                          cmin[k] = cmax[k] = v["cpu"] }
         n[k]++; if (v["all"] == "yes") ok[k]++
         if (v["achieved"] < amin[k]) amin[k] = v["achieved"]
         if (v["achieved"] > amax[k]) amax[k] = v["achieved"]
         if (v["cpu"] < cmin[k]) cmin[k] = v["cpu"]
         if (v["cpu"] > cmax[k]) cmax[k] = v["cpu"]
         if (v["lost"] > lost[k]) lost[k] = v["lost"]
         if (v["dup"] > dup[k]) dup[k] = v["dup"] }
       END { for (i = 1; i <= m; i++) { k = order[i]; split(k, a, " ")
               printf "@bench\trecord\trow\t%s\t%s\t%s\t%d/%d\t%d-%d\t%d\t%d\t%.2f-%.2f\n",
                 a[1], a[2] == 1e12 ? "full speed" : a[2], a[3], ok[k], n[k],
                 amin[k], amax[k], lost[k], dup[k], cmin[k], cmax[k] } }' "$W/runs.txt"
  echo
  bench_note record "$SECS s per run, $REPS run(s) of each case, target rates $RATES (0: full speed); $(nproc) CPUs, $(uname -r), $(perf --version), trace-cmd $(trace-cmd --version 2>&1 | sed -n 's/.*trace-cmd version \([^ ]*\).*/\1/p' | head -1)."
  # Highest events/s recorded with nothing lost (every run at that step and
  # below; 0: none), as a ratio to tracestore's.
  bench_head record-max "buffer KB/CPU" tool "highest events/s, all recorded" "vs tracestore"
  awk "$kv"'{ k = v["buf"] " " v["tool"]; bufs[v["buf"]] = 1; tools[v["tool"]] = 1
         r = v["rate"] == 0 ? 1e12 : v["rate"]; s = k " " r
         if (v["all"] != "yes" && (!(k in fail) || r < fail[k])) fail[k] = r
         if (!(s in lo) || v["achieved"] < lo[s]) lo[s] = v["achieved"]; rates[s] = r }
       END { for (s in lo) { split(s, a, " "); k = a[1] " " a[2]
               if ((k in fail) && rates[s] >= fail[k]) continue
               if (lo[s] > best[k]) best[k] = lo[s] }
             for (b in bufs) for (t in tools) {
               base = best[b " tracestore"]; x = best[b " " t] + 0
               printf "@bench\trecord-max\trow\t%s\t%s\t%d\t%s\n", b, t, x,
                 (base > 0 ? sprintf("**%.2fx**", x / base) : "-") } }' "$W/runs.txt" |
    sort -t "$(printf '\t')" -k4,4nr -k5,5
;; esac

case " $PARTS " in *" B "*)
  echo
  echo "B. Event to SQL: getppid every $((1000 / LAT_RATE)) ms for $LAT_SECONDS s, polled by BenchRecordLatency"
  bench_head record-latency reader events median p90 p99 max "median / 20 ms target"
  bench_note record-latency "One row per run: getppid every $((1000 / LAT_RATE)) ms for $LAT_SECONDS s, recorded by \`tracestore record\`."
  for poll in $LAT_POLL_US; do
  echo "  sleeping $poll us between polls:"
  for rep in $(seq "$LAT_REPS"); do
    rm -rf "$W/session" "$W/lat.out"
    start_workload "$LAT_RATE" "$LAT_SECONDS"
    "$TS" record -e raw_syscalls:sys_enter -f "id==$NR" -p "$WPID" \
      -o "$W/session" > /dev/null 2> "$W/rec.err" &
    RJOB=$!
    wait_for 10 grep -q " on [0-9]* CPUs" "$W/rec.err" || { cat "$W/rec.err"; exit 1; }
    "$LAT" --poll-us "$poll" --idle 1 --dump "$W/latency-$poll-$rep.txt" \
      "$W/session" > "$W/lat.out" &
    LJOB=$!
    wait_for 10 grep -q attached "$W/lat.out" || { echo "the reader did not attach"; exit 1; }
    kill -CONT "$WPID"; finish_workload; wait "$RJOB"; wait "$LJOB"
    grep '^@bench' "$W/lat.out"; echo "    (workload: $EXPECTED events)"
  done
  done
;; esac
[ -n "${KEEP:-}" ] || rm -rf "$W/session" "$W/perf.data" "$W"/trace.dat* "$W/events.txt"
