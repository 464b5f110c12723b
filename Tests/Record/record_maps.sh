#!/bin/sh
#
# record_maps.sh TRACESTORE TOUCHPAGES WORKDIR
#
# Records the page-toucher's page faults, and checks that its memory maps
# reached the module store: for its pid, an executable mapping of the
# program (realpath of TOUCHPAGES) and of the libc that ldd resolves for
# it, and its [stack]; every mapping's end above its start.  Faults by ip:
# at least 300 x 20 (the workload's write loop over fresh anonymous pages,
# one fault a page) in the program's text, and at least 99% of all its
# faults in some executable mapping recorded for it.
#
# Faults by address, against the workload's own account of each round (its
# mono-clock start and end and the ranges mmap gave it, which the recorder
# never sees): a fault of round R inside its anonymous range must have
# module '//anon', one inside its mapping of a data file the file's path;
# at least 99% of each, and 300 x 20 faults in the anonymous ranges (one
# per page written).  Each round maps and unmaps both within a few
# hundred microseconds and the next round gets the same addresses back, so
# only mmap records applied in event time get this right.  Those faults
# must also carry the workload's pid and command name.  Exit 77 (CTest
# skip) without root or tracefs.
#
set -u
TS=$1; TP=$2; W=$3
. "$(dirname "$0")/record_lib.sh"
command -v ldd >/dev/null || skip "no ldd"

# A data file of 256 pages, not the program itself, so that the file's
# faults are told apart from the program's own.
DATA=$W/data.bin
head -c 1048576 /dev/urandom > "$DATA"
"$TS" record -e exceptions:page_fault_user -e sched:sched_process_exec \
     -o "$S" -- "$TP" 300 20 5 "$DATA" > "$W/workload.out" 2> "$W/record.err" \
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
n_prog=$(q "SELECT count(*) FROM module WHERE pid=$PID AND perms LIKE '__x_'
            AND path='$(sqlq "$prog")'")
n_libc=$(q "SELECT count(*) FROM module WHERE pid=$PID AND perms LIKE '__x_'
            AND path='$(sqlq "$libc")'")
n_stack=$(q "SELECT count(*) FROM module WHERE pid=$PID AND path='[stack]'")
n_bad=$(q "SELECT count(*) FROM module WHERE \"end\"<=start")
# Faults whose ip lies in the program's text, in the mapping set recorded
# for the pid (one row per recording of the maps, so count distinct ids).
n_pf=$(q "SELECT count(*) FROM page_fault WHERE tid=$PID")
n_in=$(q "SELECT count(DISTINCT f.id) FROM page_fault f JOIN module m
          ON m.pid=f.tid AND f.ip>=m.start AND f.ip<m.\"end\"
          AND m.path='$(sqlq "$prog")' AND m.perms LIKE '__x_'
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

# Faults by address: the workload's rounds against the module column.
data=$(realpath "$DATA")
"$TS" sql --csv "$S" "SELECT ts, address, ifnull(module, ''), comm, pid
                      FROM page_fault WHERE tid=$PID ORDER BY ts" > "$W/faults.csv"
set -- $(awk -F, -v data="$data" '
  FNR == NR { if ($1 == "round") { n++; t0[n] = $3; t1[n] = $4;
                a0[n] = $5; a1[n] = $6; f0[n] = $7; f1[n] = $8 }
              next }
  FNR == 1 { next }                       # the CSV header
  { ts = $1 + 0; ad = $2 + 0; m = $3
    for (r = 1; r <= n; r++) if (ts >= t0[r] && ts <= t1[r]) break
    if (r > n) next
    nt++; if ($4 == comm && $5 == pid) okt++
    if (ad >= a0[r] && ad < a1[r]) { na++; if (m == "//anon") oka++ }
    else if (ad >= f0[r] && ad < f1[r]) { nf++; if (m == data) okf++ } }
  END { print n + 0, na + 0, oka + 0, nf + 0, okf + 0, nt + 0, okt + 0 }
' comm="$(basename "$TP" | cut -c1-15)" pid="$PID" \
  FS=' ' "$W/workload.out" FS=, "$W/faults.csv")
rounds=$1 n_anon=$2 ok_anon=$3 n_file=$4 ok_file=$5 n_round=$6 ok_task=$7
echo "by address: $n_anon faults in the $rounds rounds' anonymous ranges," \
     "$ok_anon of them with module //anon; $n_file in the data file's," \
     "$ok_file with module $data"
[ "$rounds" = 20 ] || fail "the workload reported $rounds rounds, not 20"
[ "$n_anon" -ge 6000 ] || fail "fewer than 300 x 20 faults in the anonymous ranges"
[ "$n_file" -ge 20 ] || fail "fewer than one fault a round in the data file"
[ $((ok_anon * 100)) -ge $((n_anon * 99)) ] ||
  fail "fewer than 99% of the anonymous faults have module //anon"
[ $((ok_file * 100)) -ge $((n_file * 99)) ] ||
  fail "fewer than 99% of the data file's faults have module $data"
# The rounds run after the exec: the program's name (as the kernel cuts
# it, 15 bytes) and the process id, which tracefs events do not carry.
echo "$ok_task of the rounds' $n_round faults name $PID and $(basename "$TP")"
[ "$ok_task" = "$n_round" ] || fail "faults in the rounds with another comm or pid"
echo PASS
