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
#   cut       fork + exec, the forked child's task file cut at 30%, 60%
#             and 90%: the child's spans are exactly the entries `uftrace
#             dump` shows of the cut file, and its exit of fork() (before
#             issue 30, also the parent's calls it was made inside: 2 more)
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
cut)
  uftrace record -d data ./args fork
  # The forked child: the task whose process task.txt names in a FORK line.
  child=$(sed -n 's/^FORK .* pid=\([0-9]*\) .*/\1/p' data/task.txt | head -1)
  [ -n "$child" ] && [ -s "data/$child.dat" ] || { echo "FAIL: no forked child"; exit 1; }
  size=$(wc -c < "data/$child.dat")
  for pct in 30 60 90; do
    rm -rf cut session; cp -r data cut
    head -c $((size * pct / 100)) "data/$child.dat" > "cut/$child.dat"
    want=$(uftrace dump -d cut 2>/dev/null | grep -c " $child: \[entry\]" || true)
    set +e; "$ts" import -o session cut > out 2>&1; set -e
    got=$("$ts" sql --csv session "SELECT count(*) FROM span WHERE tid = $child
          AND name NOT LIKE 'linux:%' AND flags & 1 = 0" | tail -1)
    fork=$("$ts" sql --csv session "SELECT group_concat(name) FROM span
           WHERE tid = $child AND flags & 1 = 1" | tail -1)
    [ "$got" = "$want" ] && [ "$fork" = fork ] ||
      { cat out; echo "FAIL: cut at $pct%: $got spans from entries (uftrace dump: $want), exits without entry '$fork' (want 'fork')"; exit 1; }
    echo "ok: the child's file cut at $pct%: $got spans, as uftrace dump's entries, and its exit of fork()"
  done
  exit 0 ;;
*) echo "unknown case $case"; exit 2 ;;
esac

"$ts" import -o session data
python3 "$here/uftrace_producer.py" "$ts" session data "$checks"
