#!/bin/sh
# After `cmake --install`, the extension loads by name, with no path:
# `.load tracestore` in the sqlite3 shell and load_extension("tracestore")
# in Python's sqlite3 module (Debian's python3) both count what grep counts.
set -eu
ts=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
sample=$(dirname "$0")/Data/ftrace-capture-1.txt
"$ts" import -o "$work/s" "$sample" 2>/dev/null
want=$(grep -c ' page_fault_' "$sample")
got=$(cd "$work" && sqlite3 :memory: -cmd ".load tracestore" \
      "SELECT tracestore_attach('s');" "SELECT count(*) FROM page_fault;" | tail -1)
[ "$got" = "$want" ] || { echo "FAIL: .load tracestore counted $got page faults, grep $want"; exit 1; }
echo "ok: .load tracestore after install: $got page faults (grep: $want)"
python=python3; [ -x /usr/bin/python3 ] && python=/usr/bin/python3
got=$(cd "$work" && "$python" -c '
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("tracestore")
conn.execute("SELECT tracestore_attach(?)", ("s",))
print(conn.execute("SELECT count(*) FROM page_fault").fetchone()[0])')
[ "$got" = "$want" ] || { echo "FAIL: Python load_extension(\"tracestore\") counted $got page faults, grep $want"; exit 1; }
echo "ok: Python load_extension(\"tracestore\") after install: $got page faults (grep: $want)"
# The Python tracer module, installed where Debian's python3 finds it.
got=$(cd "$work" && "$python" -c '
import tracestore
tracestore.start("py.trace")
def f(): return 1
f(); f()
tracestore.stop()
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("tracestore")
conn.execute("SELECT tracestore_attach(?)", ("py.trace",))
print(conn.execute("SELECT count(*) FROM span WHERE name = ?", ("__main__.f",)).fetchone()[0])')
[ "$got" = 2 ] || { echo "FAIL: import tracestore after install: $got calls of f, want 2"; exit 1; }
echo "ok: import tracestore after install: 2 calls of f recorded"
