#!/bin/sh
#
# Crash torture: a writer SIGKILLed at uniformly random instants, then every
# store of the session checked, and a new writer made to continue it.
#
#   torture.sh store  TESTSTORECRASH W
#   torture.sh import TS SQLITE3 EXT SHARED_DATA_DIR TESTS_DATA_DIR W
#   torture.sh record TS SQLITE3 EXT TOUCHPAGES W
#   torture.sh all    BUILD_DIR W       (the three, paths taken from BUILD_DIR)
#
# TORTURE_TRIALS=N trials per writer (default 20, the CI mode; the long mode
# is 200); TORTURE_SEED=N repeats a run (the seed is printed first).
#
# store:  Tests/Store/TestCrash.c (checksummed records and strings, written
#         through the store API) with N trials.
# import: `tracestore import` of a generated input, the ftrace sample (even
#         trials) or perf script samples (odd trials) repeated with their
#         timestamps moved on, killed at an instant uniform over the first
#         90% of the time an uninterrupted import takes (an import that
#         ends before its kill is checked, but not counted as a trial, and
#         the range shrinks by a quarter: see ended_early).
#         Oracle: per store, the same-index rows of an uninterrupted import
#         of the same input (the reference; for ftrace it is first checked
#         against awk over the input lines, the disk-full tests' oracle).
#         Checked after each kill:
#           - `tracestore info` opens the session (every header valid), and
#             each store holds at least what a reader counted just before
#             the kill (committed records are never lost);
#           - through the SQL extension, every row of every store equals the
#             reference's row of the same index (strings resolved: a string
#             id that does not resolve is an SQL error);
#           - a new import of the unrepeated sample continues the session:
#             each store then holds its committed rows followed by the rows
#             of an import of that sample alone (ids continuing).
# record: `tracestore record -e exceptions:page_fault_user` of TouchPages
#         (300 pages, 25 rounds 10 ms apart), killed at an instant uniform
#         over the first 90% of an uninterrupted recording.  Checked: info
#         opens the session; counts at least what a reader saw before the
#         kill; every store reads back in SQL; every page fault is the
#         workload's or a task's it started (its comm, or tracestore's
#         before the exec; a user fault), each CPU's in strictly increasing ts, and all of
#         them in order unless the sorted flag says not; then a new recorder
#         records into the same session: it removes the dead recorder's
#         tracefs instance, and the earlier rows are unchanged.
#         Skipped (exit 77) without root or tracefs.
# import and record: after each kill and after each continuing writer,
#         every view read from the rollups equals the full scan
#         (Tests/Rollup/rollup_views_test.py, with Debian's python3;
#         TORTURE_PRELOAD: the ASan runtime it needs under sanitizers).
#
set -u
MODE=$1; shift
fail(){ echo "FAIL: $*"; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${TORTURE_PYTHON:-/usr/bin/python3}

# views SESSION WHAT: the views read from the rollups equal the full scan.
views(){
  [ -x "$PY" ] || return 0
  env ${TORTURE_PRELOAD:+LD_PRELOAD=$TORTURE_PRELOAD ASAN_OPTIONS=detect_leaks=0} \
    "$PY" "$HERE/../Rollup/rollup_views_test.py" "$EXT" "$1" \
    > "$W/views.out" 2>&1 || { cat "$W/views.out"
    fail "$2: a view read from the rollups is not the full scan's"; }
}
TRIALS=${TORTURE_TRIALS:-20}
SEED=${TORTURE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "torture $MODE: $TRIALS trials, seed $SEED (TORTURE_SEED=$SEED to repeat)"

# rand N: sets R to a pseudo-random number in [0, N).
R=0
rand(){
  SEED=$(( (SEED * 6364136223846793005 + 1442695040888963407) & 0x7fffffffffffffff ))
  R=$(( (SEED >> 16) % $1 ))
}
now_us(){ echo $(( $(date +%s%N) / 1000 )); }
usleep_(){ sleep "$(printf '%d.%06d' $(($1 / 1000000)) $(($1 % 1000000)))"; }

# counts SESSION: "store records" per line, from `tracestore info`.
counts(){
  "$TS" info "$1" 2>/dev/null |
    awk 'f && $2 ~ /^[0-9]+$/ { print $1, $2 } /^store / { f = 1 }'
}

# dump SESSION OUT STORES...: each store's rows, in id order, as CSV in
# OUT.STORE, read through the extension in one sqlite3 shell (-bail: an
# unresolvable string id or a bad record fails it).  `source` leaves out
# imported_at, the one column that differs between two imports.
dump(){
  _s=$1 _o=$2; shift 2
  { echo ".load '${EXT%.so}'"
    echo ".output /dev/null"
    echo "SELECT tracestore_attach('$(printf %s "$_s" | sed "s/'/''/g")');"
    echo ".mode csv"
    for _t in "$@"; do
      echo ".output $_o.$_t"
      if [ "$_t" = source ]; then
        echo "SELECT id, path, format, first_ts, last_ts, bytes, lines, events,"
        echo "  clock, tsc_mhz FROM source ORDER BY id;"
      else
        echo "SELECT * FROM $_t ORDER BY id;"
      fi
    done
  } | "$SQ3" -batch -bail :memory: > "$_o.err" 2>&1 || {
    cat "$_o.err"; fail "reading $_s through the extension failed"; }
}

# kill_at PID US: SIGKILLs PID US us after T0.  Just before, a reader
# counts the session's records into $W/before (what it sees is committed);
# it starts READER_US (its measured run time) early, and is left out when
# US is shorter than that.  Sets RC to PID's exit status (137: killed) and
# KILLED_US to the kill instant.
READER_US=0
kill_at(){
  if [ "$2" -gt "$READER_US" ]; then
    usleep_ $(($2 - READER_US))
    counts "$S" > "$W/before"
  else
    usleep_ "$2"
    : > "$W/before"
  fi
  KILLED_US=$(( $(now_us) - T0 ))
  kill -KILL "$1" 2>/dev/null
  wait "$1" 2>/dev/null; RC=$?
}

# ended_early VAR WHAT: a writer ended before its kill (not a trial; it is
# checked all the same).  The machine runs it faster than when VAR, the
# run time the kill instants are drawn from, was measured (the load of a
# shared machine changes): VAR shrinks by a quarter, so that kills land
# inside runs again.  Far more of these than trials means a writer that
# does not really run.
ended_early(){
  DONE=$((DONE + 1))
  eval "$1=\$(( $1 * 3 / 4 ))"
  [ $DONE -le $((TRIALS * 5)) ] || fail "$DONE runs of $2 ended before the kill"
}

# after_kill VAR WHAT ERRFILE: what follows every kill_at: the writer was
# killed, or ended first (ended_early VAR), or failed (its ERRFILE shown);
# then the counts are checked (check_counts), unless the kill came while
# the session was being created (counted in EARLY).
after_kill(){
  case $RC in
    137) ;;
    0) ended_early "$1" "$2";;
    *) cat "$3"; fail "trial $trial: $2 exited $RC";;
  esac
  if created; then
    check_counts $trial
  else
    EARLY=$((EARLY + 1)); : > "$W/after"   # killed while creating it
  fi
}

# created: whether the killed writer got as far as a session.  A writer
# creates session.tracer (locked before it is written: an empty one is
# completed by the next writer), then string_data.store and string.store
# (each written under a temporary name and renamed); a kill in between
# leaves a directory that readers refuse ("truncated session header",
# "session has no string store") and the next writer continues.  Anything
# else there then is an error.
created(){
  [ -f "$S/string.store" ] && return 0
  [ -d "$S" ] || return 1
  for _f in $(ls "$S"); do
    case $_f in session.tracer|string_data.store|string*.store.tmp.*) ;;
      *) fail "trial $trial: $_f in a session that has no string.store";;
    esac
  done
  "$TS" info "$S" > "$W/info.txt" 2>&1 && [ -f "$S/session.tracer" ] &&
    fail "trial $trial: info reads a session without string.store"
  return 1
}

# check_counts: after the kill, info opens the session and no store holds
# fewer records than counted before the kill.  Leaves "store n" in
# $W/after.
check_counts(){
  "$TS" info "$S" > "$W/info.txt" 2>&1 || {
    cat "$W/info.txt"; fail "trial $1: tracestore info cannot open the session"; }
  counts "$S" > "$W/after"
  while read -r _t _n; do
    _a=$(awk -v t="$_t" '$1 == t { print $2 }' "$W/after")
    [ "${_a:-0}" -ge "$_n" ] || fail "trial $1: $_t had $_n committed " \
      "records before the kill, ${_a:-0} after"
  done < "$W/before"
}

# instants: the distribution of kill instants, in tenths of the range they
# are drawn from ($W/instants holds "fraction-permille" lines).
instants(){
  echo "reader before each kill: $((READER_US / 1000)) ms"
  awk '{ b = int($1 / 100); if (b > 9) b = 9; n[b]++ }
       END { s = "kill instants by tenth of the run:";
             for (i = 0; i < 10; i++) s = s " " n[i] + 0; print s }' "$W/instants"
}

case $MODE in
store)
  TC=$1 W=$2
  rm -rf "$W"; mkdir -p "$W"
  TRACER_TEST_SEED=$SEED "$TC" "$TRIALS" "$W" > "$W/out.txt" 2>&1
  rc=$?
  tail -n 3 "$W/out.txt"
  [ $rc = 0 ] && grep -q '^PASS' "$W/out.txt" || fail "TestStoreCrash failed"
  rm -rf "$W"
  ;;

import)
  TS=$1 SQ3=$2 EXT=$3 SHARED=$4 DATA=$5 W=$6
  . "$(dirname "$0")/../DiskFull/diskfull_lib.sh"   # big_ftrace, oracles
  START=$(now_us)
  # Inputs: ftrace (fmt 0) and perf script (fmt 1), each as a big input
  # and the unrepeated sample the continuation imports.
  cp "$SHARED/data/capture-1/ftrace.txt" "$W/small.0"
  big_ftrace "$W/small.0" 100 "$W/big.0"
  grep -hv '^#' "$DATA/perf-sched-faults.txt" "$DATA/perf-kvm-exits.txt" \
    "$DATA/perf-raw-syscalls.txt" > "$W/small.1"
  awk -v n=300 '{ line[NR] = $0 }
    END { for (k = 0; k < n; k++) for (i = 1; i <= NR; i++) {
        l = line[i]
        if (k > 0 && match(l, / [0-9]+\.[0-9]+: /)) {
          ts = substr(l, RSTART + 1, RLENGTH - 3); split(ts, p, ".")
          l = substr(l, 1, RSTART) (p[1] + k) "." p[2] \
              substr(l, RSTART + RLENGTH - 2)
        }
        print l } }' "$W/small.1" > "$W/big.1"

  # References: uninterrupted imports, timed; their stores and rows.
  for f in 0 1; do
    for k in big small; do
      rm -rf "$W/ref.$k.$f"
      T0=$(now_us)
      "$TS" import -o "$W/ref.$k.$f" "$W/$k.$f" > /dev/null 2> "$W/ref.err" ||
        { cat "$W/ref.err"; fail "the reference import of $k.$f failed"; }
      # Kills land in the first 90% of that time (runs vary).
      [ $k = big ] && eval "DUR$f=\$(( (\$(now_us) - T0) * 9 / 10 ))"
      counts "$W/ref.$k.$f" | awk '$1 !~ /^string/ { print $1 }' > "$W/stores.$k.$f"
      dump "$W/ref.$k.$f" "$W/ref.$k.$f" $(cat "$W/stores.$k.$f")
    done
  done
  # The ftrace reference against awk over the input lines.
  ftrace_oracle "$W/big.0" > "$W/oracle.txt"
  for st in page_fault sched_switch ftrace_event; do
    grep "^$st|" "$W/oracle.txt" > "$W/expected"
    session_rows "$SQ3" "$EXT" "$W/ref.big.0" $st > "$W/rows" ||
      fail "reading the reference failed"
    cmp -s "$W/expected" "$W/rows" ||
      fail "the reference import's $st differs from the input lines"
  done
  echo "setup $(( ($(now_us) - START) / 1000 )) ms"
  echo "references: ftrace $(wc -l < "$W/big.0") lines, import $((DUR0 / 1000)) ms;" \
       "perf script $(wc -l < "$W/big.1") lines, import $((DUR1 / 1000)) ms;" \
       "ftrace reference = awk oracle"
  T0=$(now_us); counts "$W/ref.big.0" > /dev/null; READER_US=$(( $(now_us) - T0 ))
  : > "$W/instants"
  S=$W/s RECORDS=0 STRINGS=0 LOST=0 DONE=0 EARLY=0
  trial=0
  while [ $trial -lt "$TRIALS" ]; do
    f=$((trial % 2))
    eval "dur=\$DUR$f"
    rand "$dur"; at=$R
    rm -rf "$S"
    T0=$(now_us)
    "$TS" import -o "$S" "$W/big.$f" > /dev/null 2> "$W/import.err" &
    kill_at $! "$at"
    [ $RC = 0 ] || echo $((KILLED_US * 1000 / dur)) >> "$W/instants"
    after_kill DUR$f import "$W/import.err"
    stores=$(awk '$1 !~ /^string/ { print $1 }' "$W/after")
    for st in $stores; do
      grep -qx "$st" "$W/stores.big.$f" ||
        fail "trial $trial: store $st is not in the reference"
    done
    [ -z "$stores" ] || dump "$S" "$W/k" $stores
    for st in $stores; do
      n=$(wc -l < "$W/k.$st")
      c=$(awk -v t="$st" '$1 == t { print $2 }' "$W/after")
      [ "$n" = "$c" ] || fail "trial $trial: $st: info says $c, SQL read $n"
      head -n "$n" "$W/ref.big.$f.$st" | cmp -s - "$W/k.$st" || {
        head -n "$n" "$W/ref.big.$f.$st" | diff - "$W/k.$st" | head -5
        fail "trial $trial: $st: the committed rows differ from the reference"; }
      RECORDS=$((RECORDS + n))
    done
    STRINGS=$((STRINGS + $(awk '$1 == "string" { print $2 }' "$W/after" | grep . || echo 0)))
    [ -z "$stores" ] || views "$S" "trial $trial, after the kill"

    # A new writer continues the session.
    "$TS" import -o "$S" "$W/small.$f" > /dev/null 2> "$W/import2.err" || {
      cat "$W/import2.err"; fail "trial $trial: the import after the kill failed"; }
    views "$S" "trial $trial, after the continuing import"
    all=$( (echo "$stores"; cat "$W/stores.small.$f") | sort -u | grep .)
    dump "$S" "$W/c" $all
    for st in $all; do
      : > "$W/expected"
      [ -f "$W/k.$st" ] && cat "$W/k.$st" >> "$W/expected"
      [ -f "$W/ref.small.$f.$st" ] && cat "$W/ref.small.$f.$st" >> "$W/expected"
      sed -i 's/^[0-9]*,//' "$W/expected"
      sed 's/^[0-9]*,//' "$W/c.$st" | cmp -s - "$W/expected" || {
        sed 's/^[0-9]*,//' "$W/c.$st" | diff "$W/expected" - | head -5
        fail "trial $trial: $st after the continuing import is not the" \
             "committed rows followed by the sample's"; }
      awk -F, '$1 != NR - 1 { exit 1 }' "$W/c.$st" ||
        fail "trial $trial: $st: ids do not run 0..n-1 after continuing"
    done
    rm -f "$W"/k.* "$W"/c.*
    [ $RC = 0 ] || trial=$((trial + 1))
  done
  instants
  echo "PASS: $TRIALS kills ($EARLY while creating the session; $DONE more" \
       "imports ended before their kill, checked too), $RECORDS committed records checked, 0 lost," \
       "$STRINGS strings checked, $((TRIALS + DONE)) continuations checked," \
       "$(( ($(now_us) - START) / 1000000 )) s"
  rm -rf "$W"
  ;;

record)
  TS=$1 SQ3=$2 EXT=$3 TP=$4 W=$5
  . "$(dirname "$0")/../Record/record_lib.sh"     # skips without tracefs
  START=$(now_us)
  q(){ "$TS" sql --csv "$S" "$1" | tail -n 1; }
  rec(){ "$TS" record -e exceptions:page_fault_user -o "$S" -- "$TP" "$@"; }
  # An uninterrupted recording, timed: the range of the kill instants.
  T0=$(now_us)
  rec 300 25 10 > /dev/null 2> "$W/record.err" || {
    cat "$W/record.err"; fail "the uninterrupted recording failed"; }
  DUR=$(( ($(now_us) - T0) * 9 / 10 ))   # kills: first 90% of it
  T0=$(now_us); counts "$S" > /dev/null; READER_US=$(( $(now_us) - T0 ))
  echo "uninterrupted recording: $((DUR / 1000)) ms"
  : > "$W/instants"
  RECORDS=0 STRINGS=0 DONE=0 EARLY=0 LATE=0 WPID= RPID=
  trap '[ -n "$RPID" ] && kill -KILL $RPID 2>/dev/null
        [ -n "$WPID" ] && kill -KILL $WPID 2>/dev/null' EXIT
  trial=0
  while [ $trial -lt "$TRIALS" ]; do
    rand "$DUR"; at=$R
    rm -rf "$S"
    T0=$(now_us)
    "$TS" record -e exceptions:page_fault_user -o "$S" -- "$TP" 300 25 10 \
      > "$W/workload.out" 2> "$W/record.err" &
    RPID=$!
    kill_at $RPID "$at"
    [ $RC = 0 ] || echo $((KILLED_US * 1000 / DUR)) >> "$W/instants"
    # The workload, orphaned by the kill, is killed by its pid.
    WPID=$(head -n 1 "$W/workload.out" 2>/dev/null)
    case "$WPID" in ''|*[!0-9]*) WPID=;; esac
    [ -n "$WPID" ] && kill -KILL "$WPID" 2>/dev/null
    after_kill DUR record "$W/record.err"
    stores=$(awk '$1 !~ /^string/ { print $1 }' "$W/after")
    [ -z "$stores" ] || dump "$S" "$W/k" $stores
    n=0
    if [ -f "$W/k.page_fault" ]; then
      n=$(wc -l < "$W/k.page_fault")
      [ -n "$WPID" ] || [ "$n" = 0 ] ||
        fail "trial $trial: $n faults recorded, no workload pid"
      # The workload, or a task it started that the recorder followed
      # (under ASan, LeakSanitizer's tracer task at exit).
      bad=$(q "SELECT count(*) FROM page_fault WHERE NOT ((tid = ${WPID:-0}
               OR tid IN (SELECT tid FROM thread WHERE tid != 0)) AND
               pid = tid AND comm IN ('$(basename "$TP")',
               'tracestore') AND
               name = 'page_fault_user' AND (error_code & 4) = 4 AND
               address IS NOT NULL AND cpu IS NOT NULL)")
      [ "$bad" = 0 ] || fail "trial $trial: $bad of $n faults are not" \
        "the workload's user faults"
      # Each CPU's faults in strictly increasing ts; across CPUs, an event
      # read more than 5 ms late is stored out of order (docs/live.md: record),
      # which the store's sorted flag must then say.
      bad=$(q "SELECT count(*) FROM (SELECT ts - lag(ts) OVER (PARTITION BY
               cpu ORDER BY id) AS d FROM page_fault) WHERE d <= 0")
      [ "$bad" = 0 ] || fail "trial $trial: a CPU's ts not strictly" \
        "increasing ($bad times)"
      late=$(q "SELECT count(*) FROM (SELECT ts - lag(ts) OVER (ORDER BY id)
                AS d FROM page_fault) WHERE d < 0")
      [ "$late" = 0 ] || ! grep -q '^page_fault .* yes ' "$W/info.txt" ||
        fail "trial $trial: $late faults out of order, sorted flag says yes"
      LATE=$((LATE + late))
    fi
    for st in $stores; do RECORDS=$((RECORDS + $(wc -l < "$W/k.$st"))); done
    STRINGS=$((STRINGS + $(awk '$1 == "string" { print $2 }' "$W/after" | grep . || echo 0)))
    [ -z "$stores" ] || views "$S" "trial $trial, after the kill"

    had=; [ -d $T/instances/tracestore-$RPID ] && had=1
    # A new recorder continues the same session and removes the dead
    # one's tracefs instance.
    rec 50 5 0 > "$W/workload2.out" 2> "$W/record2.err" || {
      cat "$W/record2.err"; fail "trial $trial: the recording after the kill failed"; }
    WPID2=$(head -n 1 "$W/workload2.out")
    [ -d $T/instances/tracestore-$RPID ] &&
      fail "trial $trial: the next run left instance tracestore-$RPID"
    [ -z "$had" ] || grep -q "removed the instance of recorder $RPID" \
      "$W/record2.err" || { ls $T/instances
      fail "trial $trial: the next run did not remove tracestore-$RPID"; }
    dump "$S" "$W/c" $stores
    for st in $stores; do
      head -n "$(wc -l < "$W/k.$st")" "$W/c.$st" | cmp -s - "$W/k.$st" ||
        fail "trial $trial: $st: committed rows changed by the next recorder"
    done
    views "$S" "trial $trial, after the next recorder"
    # New rows: the new workload's, or of tasks it started (in the thread
    # rows the new recorder added).
    th=$(awk '$1 == "thread" { print $2 }' "$W/after"); th=${th:-0}
    m=$(q "SELECT count(*) FROM page_fault WHERE id >= $n AND tid = $WPID2")
    o=$(q "SELECT count(*) FROM page_fault WHERE id >= $n AND tid != $WPID2
           AND tid NOT IN (SELECT tid FROM thread WHERE id >= $th)")
    c=$(q "SELECT count(*) FROM page_fault")
    [ "$m" -gt 0 ] && [ "$o" = 0 ] && [ "$c" -ge $((n + m)) ] ||
      fail "trial $trial: after $n faults, $c rows, $m of the new" \
        "workload, $o of tasks the new recorder did not follow"
    rm -f "$W"/k.* "$W"/c.*
    [ $RC = 0 ] || trial=$((trial + 1))
  done
  check_instances
  instants
  echo "PASS: $TRIALS kills ($EARLY while creating the session; $DONE more" \
       "recordings ended before their kill, checked too; $LATE late faults), $RECORDS committed records checked, 0 lost," \
       "$STRINGS strings checked, $((TRIALS + DONE)) continuations checked," \
       "$(( ($(now_us) - START) / 1000000 )) s"
  rm -rf "$W"
  ;;

all)
  B=$1 W=$2
  SQ3=sqlite3; [ -x "$B/Tests/sqlite3-asan" ] && SQ3=$B/Tests/sqlite3-asan
  D=$(cd "$(dirname "$0")/.." && pwd)
  export TORTURE_TRIALS=$TRIALS TORTURE_SEED=$SEED
  sh "$0" store "$B/Tests/TestStoreCrash" "$W/store" || exit 1
  sh "$0" import "$B/tracestore" "$SQ3" "$B/tracestore.so" "$D/../../shared" \
    "$D/Data" "$W/import" || exit 1
  sh "$0" record "$B/tracestore" "$SQ3" "$B/tracestore.so" \
    "$B/Tests/TouchPages" "$W/record"
  rc=$?; [ $rc = 0 ] || [ $rc = 77 ] || exit 1
  ;;

*) fail "unknown writer $MODE (store, import, record, all)";;
esac
