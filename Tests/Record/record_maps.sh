#!/bin/sh
#
# record_maps.sh TRACESTORE TOUCHPAGES WORKDIR
#
# Records the page-toucher's page faults and exec, and checks that its
# memory maps reached the module store: for its pid, an executable
# mapping of the program (realpath of TOUCHPAGES) and of the libc that
# ldd resolves for it, and its [stack]; every mapping's end above its
# start.  Faults by ip: at least 300 x 20 (the workload's write loop over
# fresh anonymous pages, one fault a page) in the program's text, and at
# least 99% of all its faults in some executable mapping recorded for it
# (the rest: mappings gone before the maps were read).  Exit 77 (CTest
# skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; W=$3
. "$(dirname "$0")/record_lib.sh"
command -v ldd >/dev/null || skip "no ldd"

"$TS" record -e exceptions:page_fault_user -e sched:sched_process_exec \
     -o "$S" -- "$TP" 300 20 5 > "$W/workload.out" 2> "$W/record.err" \
  || { cat "$W/record.err"; fail "tracestore record failed"; }
cat "$W/record.err"
PID=$(head -1 "$W/workload.out")
case "$PID" in ''|*[!0-9]*) fail "no pid from the workload";; esac

# Oracles: the paths the kernel shows are the resolved ones.
prog=$(realpath "$TP")
libc=$(ldd "$TP" | awk '$1 ~ /^libc\.so/ { print $3 }')
[ -n "$libc" ] || fail "ldd names no libc for $TP"
libc=$(realpath "$libc")

q(){ "$TS" sql --csv "$S" "$1" | tail -1; }
sqs(){ printf '%s' "$1" | sed "s/'/''/g"; }
n_prog=$(q "SELECT count(*) FROM module WHERE pid=$PID AND perms LIKE '__x_'
            AND path='$(sqs "$prog")'")
n_libc=$(q "SELECT count(*) FROM module WHERE pid=$PID AND perms LIKE '__x_'
            AND path='$(sqs "$libc")'")
n_stack=$(q "SELECT count(*) FROM module WHERE pid=$PID AND path='[stack]'")
n_bad=$(q "SELECT count(*) FROM module WHERE \"end\"<=start")
# Faults whose ip lies in the program's text, in the mapping set recorded
# for the pid (one row per recording of the maps, so count distinct ids).
n_pf=$(q "SELECT count(*) FROM page_fault WHERE tid=$PID")
n_in=$(q "SELECT count(DISTINCT f.id) FROM page_fault f JOIN module m
          ON m.pid=f.tid AND f.ip>=m.start AND f.ip<m.\"end\"
          AND m.path='$(sqs "$prog")' AND m.perms LIKE '__x_'
          WHERE f.tid=$PID")
n_any=$(q "SELECT count(DISTINCT f.id) FROM page_fault f JOIN module m
          ON m.pid=f.tid AND f.ip>=m.start AND f.ip<m.\"end\"
          AND m.perms LIKE '__x_' WHERE f.tid=$PID")
echo "pid $PID: $n_prog text mappings of $prog, $n_libc of $libc," \
     "$n_stack [stack]; of $n_pf faults, $n_in have their ip in $prog," \
     "$n_any in an executable mapping"
[ "$n_prog" -ge 1 ] || fail "no executable mapping of $prog"
[ "$n_libc" -ge 1 ] || fail "no executable mapping of $libc"
[ "$n_stack" -ge 1 ] || fail "no [stack] mapping"
[ "$n_bad" = 0 ] || fail "$n_bad mappings end at or below their start"
[ "$n_pf" -ge 6000 ] || fail "too few faults ($n_pf)"
[ "$n_in" -ge 6000 ] || fail "fewer than 6000 faults have their ip in $prog"
[ $((n_any * 100)) -ge $((n_pf * 99)) ] ||
  fail "fewer than 99% of the faults have their ip in a recorded mapping"
echo PASS
