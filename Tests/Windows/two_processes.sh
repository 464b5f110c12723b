#!/bin/sh
#
# two_processes.sh WINCORETEST STORE RECORDS
#
# A writer and a reader process on one store at once, under wine: the
# writer (WinCoreTest write) appends RECORDS records, committing every
# 4096; the reader (WinCoreTest follow) waits for the store, checks that a
# second writer is refused while the first holds LockFileEx, and follows
# the commits, checking every record it can see.  Both must succeed.
#
set -u
exe=$1; store=$2; records=$3
rm -f "$store"
wine "$exe" write "$store" "$records" 4096 &
writer=$!
wine "$exe" follow "$store" "$records"
reader=$?
wait $writer
writer=$?
echo "writer exit $writer, reader exit $reader"
[ $writer = 0 ] && [ $reader = 0 ]
