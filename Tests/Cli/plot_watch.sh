#!/bin/sh
# tracestore plot --watch while tracestore record writes the session: the
# picture must be there while the writer runs, plot must exit by itself
# after the writer ends, and its last --summary must count every fault the
# finished session holds (oracle: SQL count(*) over the closed session,
# SQLite's own count, not plot's code).  Exit 77 (skipped) when recording
# needs what this machine lacks (root, tracefs).
# usage: plot_watch.sh TRACESTORE WORKDIR
set -u
ts=$1; work=$2
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || skip "tracestore record needs root"
[ -d /sys/kernel/tracing/events/exceptions ] || skip "no tracefs exceptions events"
rm -rf "$work"; mkdir -p "$work"
"$ts" record -e exceptions:page_fault_user -o "$work/live.trace" -- \
  sh -c 'sleep 1; ls -R /usr/lib > /dev/null; sleep 1.5' > "$work/record.log" 2>&1 &
rec=$!
sleep 0.5
timeout 60 "$ts" plot --watch 0.2 --summary -o "$work/live.png" "$work/live.trace" \
  > "$work/summary.tsv" 2> "$work/plot.err" &
plot=$!
sleep 1.8
kill -0 "$rec" 2>/dev/null || { cat "$work/record.log"; skip "the recording ended early"; }
[ -s "$work/live.png" ] || fail "no picture while the writer runs"
wait "$rec" || { cat "$work/record.log"; skip "tracestore record failed here"; }
wait "$plot" || { cat "$work/plot.err"; fail "plot --watch did not end well"; }
want=$("$ts" sql --csv "$work/live.trace" "SELECT count(*) FROM page_fault" | tail -1)
got=$(awk -F '\t' '$7 == "total" { print $1 + $2 + $3 + $4 }' "$work/summary.tsv")
[ "$want" -gt 0 ] || fail "the recording has no fault"
[ "$got" = "$want" ] || fail "last --summary counts $got faults, the session holds $want"
ls "$work" | grep -q '\.tmp$' && fail "a temporary file was left"
echo "ok: --watch drew while recording and counted all $want faults at the end"
