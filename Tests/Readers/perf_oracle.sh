#!/bin/sh
# Imports perf script or perf stat text and compares what the stores hold
# with what grep/awk read off the same text (oracles that share no code with
# the readers).
# usage: perf_oracle.sh TRACESTORE INPUT WORKDIR CHECK [SEP LEADING]
#   perf script:
#     counts      per-event counts (awk), each also equal to grep -c on the
#                 text; tracepoints count under their bare name
#     timestamps  every event's time in ns, exact to the printed digits
#     tasks       comm, tid, pid, cpu of every event (NULL where the layout
#                 has none)
#     samples     page-fault samples: address, ip, ip_sym, module (the data
#                 address's dso) and ip_module, for "ADDR SYM (DSO) IP SYM
#                 (DSO)" lines
#     frames      page-fault samples with a call chain: ip, ip_sym and
#                 ip_module from the first frame
#     tpfaults    exceptions:page_fault_* tracepoints: address, ip,
#                 error_code
#     sched       every sched_switch field
#     exec        a process row per sched_process_exec: ts, the pid= field,
#                 comm and filename
#   perf stat -I -x SEP (LEADING aggregate columns before the value):
#     stat        one counter per data line; every ts, name, value (NULL for
#                 <not counted>/<not supported>), unit and running % equal
#                 the text's; CPUn aggregates give cpu
set -eu
ts=$1; input=$2; work=$3; check=$4; sep=${5:-}; leading=${6:-0}
[ "$sep" = semicolon ] && sep=";"   # CMake cannot pass a bare ;
session=$work/session
rm -rf "$session"; mkdir -p "$work"
"$ts" import -o "$session" "$input" 2>"$work/import.err" > "$work/import.out"

sql() { "$ts" sql --csv "$session" "$1" | tail -n +2; }

# awk: one line per perf script event: ns, bare name, comm, tid, pid, cpu,
# rest.  The time is the first "SECONDS.FRACTION:" token; the event the
# next token ending in ':' (after an optional period).  Tracepoints
# ("sys:name") count under the bare name; "cycles:u" keeps its modifier.
events() {
  awk '!/^#/ && !/^\t/ && NF {
    for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break;
    if (i > NF) next;
    t = $i; sub(/:$/, "", t); split(t, p, ".");
    f = p[2]; while (length(f) < 9) f = f "0";
    ns = p[1] f; sub(/^0+/, "", ns); if (ns == "") ns = "0";
    e = i + 1; if ($e ~ /^[0-9]+$/) e++;
    name = $e; sub(/:$/, "", name);
    if (index(name, ":") > 0) { rest = substr(name, index(name, ":") + 1);
      if (rest !~ /^[ukhIGHpPSDWeb]+$/) name = rest }
    cpu = "NULL"; tid = "NULL"; pid = "NULL"; comm = "NULL"; k = i - 1;
    if (k >= 1 && $k ~ /^\[[0-9]+\]$/) { cpu = substr($k, 2, length($k) - 2) + 0; k-- }
    if (k >= 1) {
      if ($k ~ /\//) { split($k, q, "/"); pid = q[1]; tid = q[2] } else tid = $k;
      c = ""; for (j = 1; j < k; j++) c = c (j > 1 ? " " : "") $j; if (c != "") comm = c
      # perf prints ":TID" for a comm it does not know, -1 for the ids of a
      # thread that had exited (perf record -a): NULL.
      if (comm == ":" tid) comm = "NULL"; if (tid == "-1") tid = "NULL"; if (pid == "-1") pid = "NULL" }
    args = ""; for (j = e + 1; j <= NF; j++) args = args (j > e + 1 ? " " : "") $j;
    print ns "\t" name "\t" comm "\t" tid "\t" pid "\t" cpu "\t" args }' "$input"
}

case $check in
counts)
  events | cut -f2 | sort | uniq -c | awk '{print $2 "," $1}' > "$work/expected"
  sql "SELECT name, sum(n) FROM (
         SELECT name, count(*) n FROM ftrace_event GROUP BY name
         UNION ALL SELECT name, count(*) FROM page_fault GROUP BY name
         UNION ALL SELECT 'sched_switch', count(*) FROM sched_switch
         UNION ALL SELECT 'kvm_exit', count(*) FROM kvm_exit
         UNION ALL SELECT 'kvm_entry', count(dur) FROM kvm_exit)
       WHERE n > 0 GROUP BY name ORDER BY name" > "$work/actual"
  # grep -c: the event after the time (and period), with or without its
  # subsystem, must be counted the same.
  while IFS=, read -r name n; do
    g=$(grep -cE "[0-9]\.[0-9]+: +([0-9]+ +)?([A-Za-z0-9_-]+:)?$name: ?" "$input" || true)
    [ "$g" = "$n" ] || { echo "FAIL: grep -c counts $g '$name' lines, awk $n"; exit 1; }
  done < "$work/expected"
  ;;
timestamps)
  events | cut -f1 | sort > "$work/expected"
  sql "SELECT ts FROM ftrace_event UNION ALL SELECT ts FROM page_fault
       UNION ALL SELECT ts FROM sched_switch UNION ALL SELECT ts FROM kvm_exit
       UNION ALL SELECT ts + dur FROM kvm_exit WHERE dur IS NOT NULL" | sort > "$work/actual"
  ;;
tasks)
  # (sched_switch rows have no task columns; "sched" checks their cpu.)
  events | awk -F'\t' '$2 != "sched_switch" {print $1 "," $3 "," $4 "," $5 "," $6}' | sort > "$work/expected"
  sql "SELECT ts, ifnull(comm, 'NULL'), ifnull(tid, 'NULL'), ifnull(pid, 'NULL'), ifnull(cpu, 'NULL')
       FROM (SELECT ts, comm, tid, pid, cpu FROM ftrace_event
             UNION ALL SELECT ts, comm, tid, pid, cpu FROM page_fault
             UNION ALL SELECT ts, comm, tid, pid, cpu FROM kvm_exit
             UNION ALL SELECT ts + dur, comm, tid, pid, cpu FROM kvm_exit WHERE dur IS NOT NULL)" |
    sort > "$work/actual"
  ;;
samples)
  # "ADDR SYM (DSO) IP SYM (DSO)" after the event: six tokens.
  events | awk -F'\t' '$2 ~ /faults$/ {
      n = split($7, w, " ");
      if (n != 6) { print "oracle: not six tokens: " $7 > "/dev/stderr"; exit 1 }
      gsub(/[()]/, "", w[3]); gsub(/[()]/, "", w[6]);
      print $1 "," $2 "," w[1] "," w[4] "," w[5] "," w[3] "," w[6] "," $4 "," $5 "," $3 "," $6 }' > "$work/expected"
  sql "SELECT ts, name, printf('%x', address), printf('%x', ip), ip_sym, module, ip_module,
              tid, pid, comm, cpu FROM page_fault ORDER BY id" > "$work/actual"
  ;;
frames)
  # perf record -g: a sample printed without an ip takes its call chain's
  # first frame ("\tADDR SYM (DSO)") as ip, ip_sym, ip_module.
  awk '/^\t/ { if (want) { split(substr($0, 2), w, " "); gsub(/[()]/, "", w[3]);
                             print ts "," w[1] "," w[2] "," w[3]; want = 0 } next }
       NF { want = 0; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break;
            if (i > NF) next;
            t = $i; sub(/:$/, "", t); split(t, p, "."); f = p[2]; while (length(f) < 9) f = f "0";
            ts = p[1] f; want = ($NF ~ /faults:$/) }' "$input" > "$work/expected"
  sql "SELECT ts, printf('%x', ip), ip_sym, ip_module FROM page_fault ORDER BY id" > "$work/actual"
  ;;
tpfaults)
  events | awk -F'\t' '$2 ~ /^page_fault_/ {
      n = split($7, kv, " "); a = ""; ip = ""; ec = "";
      for (k = 1; k <= n; k++) { split(kv[k], x, "=");
        if (x[1] == "address") a = x[2]; if (x[1] == "ip") ip = x[2]; if (x[1] == "error_code") ec = x[2] }
      print $1 "," $2 "," a "," ip "," ec }' > "$work/expected"
  sql "SELECT ts, name, printf('0x%x', address), CASE WHEN ip IS NULL THEN ip_sym ELSE printf('0x%x', ip) END,
       printf('0x%x', error_code) FROM page_fault ORDER BY id" > "$work/actual"
  ;;
sched)
  events | awk -F'\t' '$2 == "sched_switch" {
      line = $7; sub(/ ==> /, " ", line); n = split(line, kv, " ");
      for (k = 1; k <= n; k++) { split(kv[k], x, "="); v[x[1]] = x[2] }
      print $1 "," $6 "," v["prev_comm"] "," v["prev_pid"] "," v["prev_prio"] "," v["prev_state"] "," \
            v["next_comm"] "," v["next_pid"] "," v["next_prio"] }' > "$work/expected"
  sql "SELECT ts, ifnull(cpu, 'NULL'), prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio
       FROM sched_switch ORDER BY id" > "$work/actual"
  ;;
exec)
  events | awk -F'\t' '$2 == "sched_process_exec" {
      n = split($7, kv, " "); f = ""; p = "";
      for (k = 1; k <= n; k++) { split(kv[k], x, "=");
        if (x[1] == "filename") f = x[2]; if (x[1] == "pid") p = x[2] }
      print $1 "," p "," $3 "," f }' > "$work/expected"
  sql "SELECT start_ts, pid, ifnull(name, 'NULL'), filename FROM process
       WHERE filename IS NOT NULL ORDER BY id" > "$work/actual"
  ;;
stat)
  # Data lines: not blank, not a comment, not the rdtsc line.  Fields split
  # by SEP (awk index(), so any string works); LEADING aggregate columns.
  awk -v sep="$sep" -v lead="$leading" '
    function q(s) { gsub(/\047/, "\047\047", s); return "\047" s "\047" }
    !/^[ \t]*$/ && !/^[ \t]*#/ && !/^rdtsc / {
      n = 0; line = $0;
      while ((k = index(line, sep)) > 0) { f[++n] = substr(line, 1, k - 1); line = substr(line, k + length(sep)) }
      f[++n] = line;
      t = f[1]; gsub(/ /, "", t); split(t, p, "."); fr = p[2]; while (length(fr) < 9) fr = fr "0";
      ns = p[1] fr; sub(/^0+/, "", ns);
      cpu = "NULL"; if (lead == 1 && f[2] ~ /^CPU[0-9]+$/) cpu = substr(f[2], 4) + 0;
      v = f[2 + lead]; if (v ~ /^</) v = "NULL";
      unit = f[3 + lead] == "" ? "NULL" : q(f[3 + lead]);
      name = f[4 + lead]; if (lead == 2 || (lead == 1 && cpu == "NULL" && f[2] !~ /-[0-9]+$/)) name = name " (" f[2] ")";
      pct = f[6 + lead] == "" ? "NULL" : f[6 + lead];
      printf "%s(%d,%s,%s,%s,%s,%s,%s)", (rows++ ? "," : ""), rows - 1, ns, q(name), v, unit, pct, cpu }
    END { if (rows == 0) exit 1; printf "\n" }' "$input" > "$work/values"
  rows=$(grep -vcE '^[[:space:]]*($|#|rdtsc )' "$input")
  echo "$rows" > "$work/expected"
  {
    sql "SELECT count(*) FROM counter"
    # Every row equal to the text's, or printed below as a difference.
    sql "SELECT v.column1, v.column2, v.column3, v.column4, v.column5, v.column6, v.column7, '!=',
                c.ts, c.name, c.value, c.unit, c.running_pct, c.cpu
         FROM (VALUES $(cat "$work/values")) v LEFT JOIN counter c ON c.id = v.column1
         WHERE c.ts IS NOT v.column2 OR c.name IS NOT v.column3 OR c.value IS NOT v.column4
            OR c.unit IS NOT v.column5 OR c.running_pct IS NOT v.column6 OR c.cpu IS NOT v.column7"
  } > "$work/actual"
  ;;
*) echo "unknown check $check"; exit 2 ;;
esac

[ -s "$work/expected" ] || { echo "oracle produced nothing"; exit 1; }
if ! diff -u "$work/expected" "$work/actual"; then
  echo "FAIL: $check of $input differs from the oracle"; exit 1
fi
echo "ok: $check: $([ "$check" = stat ] && cat "$work/expected" || wc -l < "$work/expected") rows equal the oracle ($(tail -n 1 "$work/import.err"))"
