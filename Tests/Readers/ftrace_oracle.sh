#!/bin/sh
# Imports ftrace text and compares what the stores hold with what awk reads
# off the same text (an oracle that shares no code with the reader).
# usage: ftrace_oracle.sh TRACESTORE INPUT WORKDIR CHECK
#   CHECK: counts      per-event-name counts (kvm_exit rows count as exit
#                      and, when paired, entry lines)
#          timestamps  every event timestamp, exact to the printed digits
#          pagefaults  ts, address, ip, error_code of every page fault
#          sched       every sched_switch field
set -eu
ts=$1; input=$2; work=$3; check=$4
session=$work/session
rm -rf "$work"; mkdir -p "$work"
"$ts" import -o "$session" "$input" 2>"$work/import.err"

# awk: the token after the "SECONDS.FRACTION:" field is "EVENT:".
# Timestamps become ns by string work: seconds, then the fraction padded
# to nine digits.
events() {
  awk '!/^#/ && !/^cpus=/ {
    for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
      t = $i; sub(/:$/, "", t); split(t, p, ".");
      f = p[2]; while (length(f) < 9) f = f "0";
      sec = p[1]; sub(/^0+/, "", sec);
      ns = sec f; sub(/^0+/, "", ns); if (ns == "") ns = "0";
      name = $(i+1); sub(/:$/, "", name);
      rest = ""; for (j = i + 2; j <= NF; j++) rest = rest (j > i + 2 ? " " : "") $j;
      print ns "\t" name "\t" rest; break }
  }' "$input"
}

sql() { "$ts" sql --csv "$session" "$1" | tail -n +2; }

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
  ;;
timestamps)
  events | cut -f1 | sort > "$work/expected"
  sql "SELECT ts FROM ftrace_event UNION ALL SELECT ts FROM page_fault
       UNION ALL SELECT ts FROM sched_switch UNION ALL SELECT ts FROM kvm_exit
       UNION ALL SELECT ts + dur FROM kvm_exit WHERE dur IS NOT NULL" | sort > "$work/actual"
  ;;
pagefaults)
  events | awk -F'\t' '$2 ~ /^page_fault/ {
      n = split($3, kv, " "); a = ""; ip = ""; ec = "";
      for (k = 1; k <= n; k++) { split(kv[k], x, "=");
        if (x[1] == "address") a = x[2]; if (x[1] == "ip") ip = x[2]; if (x[1] == "error_code") ec = x[2] }
      print $1 "," $2 "," a "," ip "," ec }' > "$work/expected"
  sql "SELECT ts, name, printf('0x%x', address), CASE WHEN ip IS NULL THEN ip_sym ELSE printf('0x%x', ip) END,
       printf('0x%x', error_code) FROM page_fault ORDER BY id" > "$work/actual"
  ;;
sched)
  if grep -q 'sched_switch: *prev_comm=' "$input"; then
    # tracefs layout: key=value fields.
    events | awk -F'\t' '$2 == "sched_switch" {
        line = $3; sub(/ ==> /, " ", line); n = split(line, kv, " ");
        for (k = 1; k <= n; k++) { split(kv[k], x, "="); v[x[1]] = x[2] }
        print $1 "," v["prev_comm"] "," v["prev_pid"] "," v["prev_prio"] "," v["prev_state"] "," \
              v["next_comm"] "," v["next_pid"] "," v["next_prio"] }' > "$work/expected"
  else
    # trace-cmd report layout: "A:1 [120] S ==> B:2 [120]".  (Its state
    # letters differ from tracefs' for the same capture, so each layout is
    # checked against its own text.)
    sed -nE 's/^.* ([0-9]+)\.([0-9]+): sched_switch: +(.*):([0-9]+) \[(-?[0-9]+)\] ([^ ]+) ==> (.*):([0-9]+) \[(-?[0-9]+)\] *$/\1 \2,\3,\4,\5,\6,\7,\8,\9/p' "$input" |
      awk '{ split($0, c, ","); split(c[1], t, " "); f = t[2]; while (length(f) < 9) f = f "0";
             sub(/^[^,]*/, t[1] f); print }' > "$work/expected"
  fi
  sql "SELECT ts, prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio
       FROM sched_switch ORDER BY id" > "$work/actual"
  ;;
*) echo "unknown check $check"; exit 2 ;;
esac

[ -s "$work/expected" ] || { echo "oracle produced nothing"; exit 1; }
if ! diff -u "$work/expected" "$work/actual"; then
  echo "FAIL: $check differs from the oracle"; exit 1
fi
echo "ok: $check: $(wc -l < "$work/expected") rows equal the oracle"
