#!/bin/sh
# After `cmake --install`, `.load tracestore` (by name, no path) works in
# the sqlite3 shell and counts what grep counts.
set -eu
ts=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sample=$(dirname "$0")/Data/ftrace-capture-1.txt
"$ts" import -o "$work/s" "$sample" 2>/dev/null
got=$(cd "$work" && sqlite3 :memory: -cmd ".load tracestore" \
      "SELECT tracestore_attach('s');" "SELECT count(*) FROM page_fault;" | tail -1)
want=$(grep -c ' page_fault_' "$sample")
[ "$got" = "$want" ] || { echo "FAIL: .load tracestore counted $got page faults, grep $want"; exit 1; }
echo "ok: .load tracestore after install: $got page faults (grep: $want)"
