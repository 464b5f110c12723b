#!/bin/sh
#
# linux_only.sh TRACESTORE_EXE ZSTD_TRACE_DAT SCRATCH
#
# What the Windows build does not have says so: `tracestore --help` marks
# record as Linux only, `record` and `plot` fail with exit 1 naming the
# reason, and a zstd-compressed trace.dat is refused with exit 1, the
# file, the byte offset and the word zstd.
#
set -u
exe=$1; dat=$2; scratch=$3
rm -rf "$scratch"; mkdir -p "$scratch"
fail() { echo "FAIL: $*"; exit 1; }
wine "$exe" --help | tr -d '\r' | grep -A2 '^  record' | grep -q 'Linux only' ||
  fail "--help does not say record is Linux only"
wine "$exe" record -o "$scratch/r" 2>"$scratch/err"; rc=$?
[ $rc = 1 ] && grep -q 'Linux' "$scratch/err" || fail "record: exit $rc: $(cat "$scratch/err")"
wine "$exe" plot -o "$scratch/p.png" "$scratch/r" 2>"$scratch/err"; rc=$?
[ $rc = 1 ] && grep -q 'cairo' "$scratch/err" || fail "plot: exit $rc: $(cat "$scratch/err")"
wine "$exe" import -o "$scratch/z" "$dat" 2>"$scratch/err"; rc=$?
[ $rc = 1 ] && grep -q "$dat: offset [0-9]*: .*zstd" "$scratch/err" ||
  fail "zstd trace.dat: exit $rc: $(cat "$scratch/err")"
cat "$scratch/err"
echo "record, plot and zstd say they are not in the Windows build"
