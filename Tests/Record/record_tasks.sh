#!/bin/sh
#
# record_tasks.sh TRACESTORE TOUCHPAGES WORKDIR
#
# The command's children, born and exec'd during the recording (after
# saved_cmdlines was read), are named and placed: `sh -c` runs the
# page-toucher twice, each run printing its pid (the oracle).  Each pid's
# faults carry that pid and, from its exec on, the name TouchPages (no
# `<...>`); its 64 writes to fresh anonymous pages (one fault each) have
# module //anon.  The process store names each process, at its latest
# row, by what it exec'd: TouchPages for the two runs, sh for the command
# itself (the recorder's child, first seen as "tracestore" before its
# exec; sh prints its own pid).  Exit 77 (CTest skip) without root or
# tracefs.
#
set -u
TS=$1; TP=$2; W=$3
. "$(dirname "$0")/record_lib.sh"

"$TS" record -e exceptions:page_fault_user -o "$S" -- sh -c \
  "echo \$\$ > '$W/sh.pid' && '$TP' 64 1 0 > '$W/a.out' && '$TP' 64 1 0 > '$W/b.out'" 2> "$W/record.err" ||
  { cat "$W/record.err"; fail "tracestore record failed"; }
cat "$W/record.err"
q(){ "$TS" sql --csv "$S" "$1" | tail -1; }
for f in a b; do
  pid=$(head -1 "$W/$f.out")
  case "$pid" in ''|*[!0-9]*) fail "no pid from run $f";; esac
  n=$(q "SELECT count(*) FROM page_fault WHERE tid=$pid")
  n_pid=$(q "SELECT count(*) FROM page_fault WHERE tid=$pid AND pid=$pid")
  n_name=$(q "SELECT count(*) FROM page_fault WHERE tid=$pid
              AND comm='TouchPages'")
  n_unknown=$(q "SELECT count(*) FROM page_fault WHERE tid=$pid
                 AND (comm IS NULL OR comm='<...>')")
  n_anon=$(q "SELECT count(*) FROM page_fault WHERE tid=$pid
              AND comm='TouchPages' AND module='//anon'")
  echo "run $f, pid $pid: $n faults, $n_pid with its pid, $n_name named" \
       "TouchPages, $n_unknown unnamed, $n_anon in anonymous memory"
  [ "$n" -ge 64 ] || fail "run $f: fewer than 64 faults"
  [ "$n_pid" = "$n" ] || fail "run $f: faults without the process id"
  [ "$n_unknown" = 0 ] || fail "run $f: faults of an unnamed task"
  [ "$n_name" -ge 64 ] || fail "run $f: fewer than 64 faults named TouchPages"
  [ "$n_anon" -ge 64 ] || fail "run $f: fewer than 64 faults in //anon"
done
latest(){ q "SELECT name FROM process WHERE pid=$1 ORDER BY start_ts DESC
             LIMIT 1"; }
for f in a b; do
  pid=$(head -1 "$W/$f.out"); name=$(latest "$pid")
  echo "process $pid: $name"
  [ "$name" = TouchPages ] || fail "process $pid named '$name', not TouchPages"
done
pid=$(cat "$W/sh.pid"); name=$(latest "$pid")
echo "process $pid (the command): $name"
[ "$name" = sh ] || fail "the command's process $pid named '$name', not sh"
echo PASS
