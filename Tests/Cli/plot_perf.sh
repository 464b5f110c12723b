#!/bin/sh
# tracestore plot --summary against awk over the perf script text of the
# same run (Tests/Cli/plot_oracle.awk): perf record -e major-faults,
# minor-faults -d -c 1 (every fault a sample) of FaultPair, two processes
# (Tests/Workloads/FaultPair.c) that read a file dropped from the page
# cache and write anonymous memory; the text imported with tracestore
# import, then plotted with one CASE's options:
#
#   process, thread, module     -c alone
#   filter_p                    -c process -p (the child's name)
#   filter_m                    -c module -m (two modules)
#   filter_pm                   -c thread -p (the parent) -m (anon memory)
#   window                      -c module --from/--to (a middle slice)
#   colors                      tracestore record of the same workload (it
#                               knows the mappings, so faults have module
#                               offsets): its PNG shows two hues
#   data_start                  the same session, --data-start data.bin,
#                               0x100000: code below, data above (SQL over
#                               the rows evaluates the rule)
#
# Per category the hard, soft and all faults must match the oracle's.  Exit 77 (skipped) when perf (or, for
# colors, tracestore record) cannot record here.
# usage: plot_perf.sh TRACESTORE FAULTPAIR ORACLE PYTHON WORKDIR CASE
set -u
ts=$1; oracle=$3; python=$4; work=$5; case=$6
workload=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")  # the symlink needs it whole
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v perf >/dev/null || skip "perf is not installed (linux-perf)"
rm -rf "$work"; mkdir -p "$work"
# A file on the work directory's file system (not tmpfs: its pages must be
# droppable from the page cache for major faults), and the child's name.
dd if=/dev/urandom of="$work/data.bin" bs=64k count=32 status=none || fail "dd"
ln -s "$workload" "$work/fault-child"
perf record -q -c 1 -e major-faults,minor-faults -d -o "$work/perf.data" \
  -- "$workload" "$work/data.bin" "$work/fault-child" > "$work/record.log" 2>&1 ||
  { cat "$work/record.log"; skip "perf record of software events failed here"; }
perf script -i "$work/perf.data" -F comm,pid,tid,time,event,addr,ip,sym,dso \
  > "$work/script.txt" 2> "$work/script.err" ||
  { cat "$work/script.err"; fail "perf script failed"; }
"$ts" import -o "$work/s.trace" "$work/script.txt" > "$work/import.log" 2>&1 ||
  { cat "$work/import.log"; fail "tracestore import failed"; }

# tracestore record of the same workload: it knows the mappings, so its
# faults have module offsets (perf text has none).
record_live() {
  [ -d /sys/kernel/tracing/events/exceptions ] || skip "no tracefs exceptions events"
  "$ts" record -e exceptions:page_fault_user -o "$work/rec.trace" -- \
    "$workload" "$work/data.bin" "$work/fault-child" > "$work/rec.log" 2>&1 ||
    { cat "$work/rec.log"; skip "tracestore record failed here"; }
}

by=process; p=""; m=""; from=""; to=""
case $case in
  process|thread|module) by=$case ;;
  filter_p) by=process; p='fault-child' ;;
  filter_m) by=module; m='data\.bin|libc\.so' ;;
  filter_pm) by=thread; p='^FaultPair$'; m='^//anon' ;;
  window) by=module; from=0.0012345; to=0.0123456 ;;
  colors)
    record_live
    "$ts" plot -c process -p 'FaultPair|fault-child' -o "$work/two.png" \
      "$work/rec.trace" || fail "plot failed"
    exec "$python" "$(dirname "$0")/plot_files.py" hues "$work/two.png" 2
    ;;
  data_start)
    # The rule, evaluated by SQLite over the recorded rows: in data.bin,
    # offsets below 0x100000 (half the file) are code, the rest data.
    record_live
    "$ts" plot -c module --data-start data.bin,0x100000 --summary \
      -o "$work/ds.png" "$work/rec.trace" > "$work/summary.tsv" || fail "plot failed"
    want=$("$ts" sql --csv "$work/rec.trace" "SELECT
        sum(hard = 1 AND module_offset < 1048576), sum(hard = 1 AND module_offset >= 1048576),
        sum(hard = 0 AND module_offset < 1048576), sum(hard = 0 AND module_offset >= 1048576)
      FROM page_fault WHERE module LIKE '%/data.bin'" | tail -1 | tr ',' '\t')
    got=$(awk -F '\t' '$7 ~ /\/data\.bin$/ { print $1 "\t" $2 "\t" $3 "\t" $4 }' "$work/summary.tsv")
    echo "data.bin: want $want, got $got"
    [ -n "$got" ] && [ "$got" = "$want" ] || fail "--data-start counts differ"
    exit 0
    ;;
  *) fail "unknown case $case" ;;
esac

set -- -c "$by"
[ -n "$p" ] && set -- "$@" -p "$p"
[ -n "$m" ] && set -- "$@" -m "$m"
[ -n "$from" ] && set -- "$@" --from "$from" --to "$to"
"$ts" plot --summary "$@" -o "$work/out.png" "$work/s.trace" \
  > "$work/summary.tsv" 2> "$work/plot.err" ||
  { cat "$work/plot.err"; fail "tracestore plot $* failed"; }
awk -v by="$by" -v p="$p" -v m="$m" -v from="$from" -v to="$to" -f "$oracle" \
  "$work/script.txt" "$work/script.txt" > "$work/expected.tsv"
# The summary as KEY, hard, soft, faults (KEY: a pid or tid is the label's
# first word; a module is the whole label).
awk -F '\t' -v by="$by" 'NR > 1 && $7 != "total" {
    key = $7; if (by != "module") sub(/ .*/, "", key)
    printf "%s\t%d\t%d\t%d\n", key, $1 + $2, $3 + $4, $1 + $2 + $3 + $4 }' \
  "$work/summary.tsv" | LC_ALL=C sort > "$work/actual.tsv"
awk -F '\t' '$7 == "total" { printf "total\t%d\t%d\t%d\n", $1 + $2, $3 + $4, $1 + $2 + $3 + $4 }' \
  "$work/summary.tsv" >> "$work/actual.tsv"
[ "$(wc -l < "$work/expected.tsv")" -gt 1 ] || fail "the oracle counted no fault"
diff "$work/expected.tsv" "$work/actual.tsv" || fail "summary differs from the oracle"
echo "ok: $case: $(wc -l < "$work/expected.tsv") lines equal the oracle's"
