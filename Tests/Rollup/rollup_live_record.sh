#!/bin/sh
# rollup_live.py with `tracestore record` as the writer: page faults,
# system calls and context switches of a shell listing /usr/share eight
# times.  Skipped (77) without root or tracefs (record_lib.sh).
#   rollup_live_record.sh TRACESTORE EXTENSION PYTHON WORKDIR
TS=$1 EXT=$2 PY=$3 W=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../Record/record_lib.sh"
exec "$PY" "$here/rollup_live.py" "$EXT" "$S" -- "$TS" record \
  -e exceptions:page_fault_user -e raw_syscalls:sys_enter \
  -e sched:sched_switch -o "$S" -- \
  sh -c 'for i in 1 2 3 4 5 6 7 8; do ls -R /usr/share >/dev/null; sleep 0.2; done'
