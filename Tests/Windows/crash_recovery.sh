#!/bin/sh
#
# crash_recovery.sh WINCORETEST STORE
#
# A writer (WinCoreTest write) killed with SIGKILL under wine once its
# store passes 8 MB, then WinCoreTest recover: the dead process's
# LockFileEx lock is gone, the committed records are intact, a new writer
# appends after them.  Oracle: the records' contents follow from their
# index; the kill must land before the writer finishes.
#
set -u
exe=$1; store=$2
rm -f "$store"
wine "$exe" write "$store" 100000000 4096 > "$store.log" 2>&1 &
writer=$!
i=0
while [ "$(stat -c %s "$store" 2>/dev/null || echo 0)" -lt 8000000 ]; do
  i=$((i + 1))
  [ $i -lt 600 ] || { echo "the writer never reached 8 MB"; kill -9 $writer; exit 1; }
  sleep 0.05
done
kill -9 $writer
wait $writer 2>/dev/null
if grep -q committed "$store.log"; then
  echo "the writer finished before the kill"; exit 1
fi
echo "writer killed at $(stat -c %s "$store") bytes"
wine "$exe" recover "$store"
