#!/bin/sh
# A corrupt store file gives a clear error naming the file, from the CLI
# (tracestore info), from tracestore sql, and from the sqlite3 shell — a
# non-zero exit, never a crash.
# usage: corrupt_store.sh TRACESTORE STORETAMPER EXTENSION SAMPLE WORKDIR CASE
#   CASE: truncated_header | bad_magic | bad_version | record_size | count_beyond_file
set -eu
ts=$1; tamper=$2; ext=$3; sample=$4; work=$5; case=$6
rm -rf "$work"; mkdir -p "$work"; s=$work/session
"$ts" import -o "$s" "$sample" 2>/dev/null
f=$s/page_fault.store
# Offsets from TRACE_STORE_HEADER (TraceStore.h): Version 8, RecordSize 16,
# Slots at 128 (64 bytes each; RecordCount at +8).
case $case in
truncated_header)  truncate -s 100 "$f"; want="truncated store header" ;;
bad_magic)         "$tamper" "$f" 0 0x4141414141414141 8; want="bad magic" ;;
bad_version)       "$tamper" "$f" 8 99 4; want="version 99" ;;
record_size)       "$tamper" "$f" 16 8 4 reseal; want="record size mismatch" ;;
count_beyond_file) for o in 136 144 200 208; do "$tamper" "$f" $o 1000000000 8 reseal; done
                   want="beyond the end of the file" ;;
*) echo "unknown case"; exit 2 ;;
esac

check() {  # check NAME STATUS OUTPUT-FILE
  [ "$2" -ne 0 ] || { echo "FAIL: $1 exited 0"; cat "$3"; exit 1; }
  [ "$2" -lt 128 ] || { echo "FAIL: $1 killed by signal $(($2 - 128))"; exit 1; }
  grep -q "page_fault.store" "$3" || { echo "FAIL: $1 does not name the file"; cat "$3"; exit 1; }
  grep -q "$want" "$3" || { echo "FAIL: $1 does not say '$want'"; cat "$3"; exit 1; }
  echo "ok: $1: $(head -1 "$3")"
}
set +e
"$ts" info "$s" > "$work/info.out" 2>&1; check "tracestore info" $? "$work/info.out"
"$ts" sql "$s" "SELECT count(*) FROM page_fault" > "$work/sql.out" 2>&1; check "tracestore sql" $? "$work/sql.out"
"${SQLITE3:-sqlite3}" :memory: -cmd ".load $ext" "SELECT tracestore_attach('$s');" > "$work/shell.out" 2>&1
check "sqlite3 .load" $? "$work/shell.out"
