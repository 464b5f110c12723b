#!/bin/sh
# The uftrace reader on recordings the real producer makes here: a program
# written for the test (Tests/Data/uftrace-args.c, gcc -pg) is recorded
# with uftrace, imported, and every span row compared with uftrace's own
# output by uftrace_producer.py (dump: ts, dur, depth, parent, names;
# replay: arguments and return values; report: span_self_time).
# usage: uftrace_producer.sh TRACESTORE PROGRAM.c WORKDIR CASE
#   specs     -A/-R specs: exact names, a regex, every format, a libc
#             function by name (its auto-args spec), fork + exec
#   auto      -a: specs from the debug info, libc functions from uftrace's
#             auto-args table, fork + exec
#   glob      --match glob patterns; uftrace report
#   sched     default recording (context switches); uftrace report
#   nosched   --no-sched; uftrace report
#   damage    the -a recording damaged in every way uftrace_damage.sh knows
set -eu
ts=$1; src=$2; work=$3; case=$4
here=$(cd "$(dirname "$0")" && pwd)
command -v uftrace >/dev/null || { echo "uftrace not installed (Tests/install-deps.sh)"; exit 1; }
command -v gcc >/dev/null || { echo "gcc not installed"; exit 1; }
rm -rf "$work"; mkdir -p "$work"; cd "$work"
gcc -pg -g -O0 -o args "$src" -lpthread

case $case in
specs)
  uftrace record -d data \
    -A 'add@arg1,arg2' -R 'add@retval' -A 'mul@arg1/i32,arg2/x' -R 'mul@retval/x' \
    -A 'big@arg1/u' -R 'big@retval/u' -A 'shrt@arg1/i16' -R 'shrt@retval/d16' \
    -A '^gr.*t$@arg1/s' -R 'greet@retval/s' -A 'half@fparg1' -R 'half@retval/f' \
    -A 'halff@fparg1/32' -R 'halff@retval/f32' -A 'upper@arg1/c' -R 'upper@retval/c' \
    -A 'paint@arg1/e:color' -A 'ident@arg1/p' -R 'ident@retval/p' \
    -A 'sum_point@arg1/t8:point' -A 'fib@arg1' -R 'fi.@retval' \
    -A 'malloc' -R 'malloc' -A 'execl@arg1/s' ./args fork
  checks=spans,args ;;
auto)
  uftrace record -d data -a ./args fork
  checks=spans,args ;;
glob)
  uftrace record -d data --match glob -A 'ad?@arg1,arg2' -R '*ib@retval' -A 'n*p@arg1' ./args
  checks=spans,args,report ;;
sched)
  uftrace record -d data ./args
  checks=spans,args,report ;;
nosched)
  uftrace record -d data --no-sched ./args
  checks=spans,args,report ;;
damage)
  uftrace record -d data -a ./args fork
  exec "$here/uftrace_damage.sh" "$ts" "$work/data" "$work/damage" 300 ;;
*) echo "unknown case $case"; exit 2 ;;
esac

"$ts" import -o session data
python3 "$here/uftrace_producer.py" "$ts" session data "$checks"
