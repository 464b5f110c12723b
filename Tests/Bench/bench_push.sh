#!/bin/sh
# bench_push.sh: `tracestore push` of an N-row page_fault session into a
# fresh clickhouse-server, next to clickhouse-client inserting the same rows
# from a TabSeparated file made beforehand (the engine's own bulk path), in
# the same run; then one fleet query in ClickHouse and in SQLite.
#
# usage: bench_push.sh TRACESTORE EXT BENCHPLOTSESSION N DIR
#
# Zone: benchmark script.  Needs clickhouse-server, clickhouse-client and
# sqlite3 (exit 77 without them).
set -eu
TS=$1 EXT=$2 GEN=$3 N=$4 DIR=$5
HERE=$(cd "$(dirname "$0")/../Fleet" && pwd)
command -v clickhouse-server >/dev/null && command -v clickhouse-client >/dev/null \
  && command -v sqlite3 >/dev/null || { echo "SKIP: clickhouse or sqlite3 missing"; exit 77; }
rm -rf "$DIR"; mkdir -p "$DIR"
"$GEN" "$DIR/s" "$N" "$DIR/points" >/dev/null
rm -f "$DIR/points"
HTTP=$(python3 "$HERE/chserver.py" start "$DIR/ch")
trap 'python3 "$HERE/chserver.py" stop "$DIR/ch"' EXIT
TCP=$(sed -n 's|.*<tcp_port>\([0-9]*\)</tcp_port>.*|\1|p' "$DIR/ch/config.xml")
now() { python3 -c 'import time; print(time.time())'; }

t0=$(now)
python3 "$(dirname "$0")/peak_rss.py" "$TS" push "$DIR/s" \
  "http://127.0.0.1:$HTTP/?database=tracer" 2>"$DIR/push.log" >"$DIR/push.rss"
t1=$(now)
RSS=$(sed -n 's/^peak_rss_mb //p' "$DIR/push.rss")
BYTES=$(curl -sS "http://127.0.0.1:$HTTP/" --data-binary \
  "SELECT sum(data_uncompressed_bytes) FROM system.parts WHERE database = 'tracer' AND table = 'page_fault' AND active")

# The same rows as TSV (host, session, id, then the store's columns), made
# beforehand from the pushed table so that both load identical rows.
curl -sS "http://127.0.0.1:$HTTP/" --data-binary \
  "SELECT * FROM tracer.page_fault FORMAT TabSeparated" >"$DIR/rows.tsv"
curl -sS "http://127.0.0.1:$HTTP/" --data-binary \
  "CREATE TABLE tracer.page_fault_tsv AS tracer.page_fault"
t2=$(now)
clickhouse-client --port "$TCP" --query "INSERT INTO tracer.page_fault_tsv FORMAT TabSeparated" <"$DIR/rows.tsv"
t3=$(now)
TSVB=$(stat -c %s "$DIR/rows.tsv")
N2=$(curl -sS "http://127.0.0.1:$HTTP/" --data-binary "SELECT count() FROM tracer.page_fault_tsv")
[ "$N2" = "$N" ] || { echo "TSV load holds $N2 rows, want $N"; exit 1; }

# A fleet query: faults per host and module, hard ones.
Q="SELECT host, module, count() AS n FROM tracer.page_fault WHERE hard = 1 GROUP BY host, module ORDER BY n DESC"
t4=$(now)
curl -sS "http://127.0.0.1:$HTTP/" --data-binary "$Q" >"$DIR/q.ch"
t5=$(now)
sqlite3 -cmd ".load $EXT" :memory: "SELECT tracestore_attach_sessions('$DIR/s');" \
  "SELECT host, module, count(*) AS n FROM page_fault WHERE hard = 1 GROUP BY host, module ORDER BY n DESC;" >"$DIR/q.sqlite"
t6=$(now)

rm -f "$DIR/rows.tsv"
python3 - "$N" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" "$t6" "$BYTES" "$TSVB" "$RSS" <<'PY'
import sys
n = int(sys.argv[1]); t = [float(x) for x in sys.argv[2:9]]
mem, tsv, rss = int(sys.argv[9]), int(sys.argv[10]), sys.argv[11]
push, load = t[1] - t[0], t[3] - t[2]
print("| what | seconds | rows/s | MB/s | ratio |")
print("| --- | ---: | ---: | ---: | ---: |")
print("| tracestore push (Native over HTTP) | %.2f | %.0f | %.1f | %.2fx |"
      % (push, n / push, mem / 1e6 / push, load / push))
print("| clickhouse-client INSERT from TSV (%.0f MB file) | %.2f | %.0f | %.1f | 1.00x |"
      % (tsv / 1e6, load, n / load, mem / 1e6 / load))
print("| fleet query in ClickHouse | %.2f | %.0f | | %.1fx |"
      % (t[5] - t[4], n / (t[5] - t[4]), (t[6] - t[5]) / (t[5] - t[4])))
print("| same query in SQLite (tracestore_attach_sessions) | %.2f | %.0f | | 1.00x |"
      % (t[6] - t[5], n / (t[6] - t[5])))
print("push peak RSS: %s MB" % rss)
print("MB/s: uncompressed bytes of the rows in ClickHouse (system.parts) per second; "
      "ratio: TSV load time / push time, SQLite time / ClickHouse time.")
PY
