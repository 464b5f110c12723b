#!/bin/sh
# wine_run.sh PROGRAM.exe ARGS...: PROGRAM under wine, its output and exit
# status its own; run once more when wine itself failed to reach its
# wineserver ("wine client error", seen once on a loaded machine, the
# program never started).  For the read-only commands of the corrupt-store
# cases (WindowsTests.cmake).
out=$(mktemp) err=$(mktemp)
wine "$@" > "$out" 2> "$err"; rc=$?
if grep -q "^wine client error" "$err"; then
  wine "$@" > "$out" 2> "$err"; rc=$?
fi
cat "$out"; cat "$err" >&2
rm -f "$out" "$err"
exit $rc
