#!/bin/sh
# The main job on the bundled sample: build, import a real ftrace capture
# (KVM guest, page faults, scheduler), and ask it questions in SQL.
set -eu
cd "$(dirname "$0")/.."
Tests/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
rm -rf demo.trace
set -x
build/tracestore import -o demo.trace Tests/Data/ftrace-capture-1.txt
build/tracestore info demo.trace
build/tracestore sql demo.trace "SELECT comm, count(*) AS faults FROM page_fault GROUP BY comm ORDER BY faults DESC"
build/tracestore sql demo.trace "SELECT name, count(*) AS n FROM ftrace_event WHERE name LIKE 'kvm%' GROUP BY name ORDER BY n DESC"
sqlite3 :memory: -cmd ".load build/tracestore" -cmd ".mode box" \
  "SELECT tracestore_attach('demo.trace');" \
  "SELECT prev_comm, next_comm, count(*) AS switches FROM sched_switch GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 5;"
# The README's picture: seeds/000's page-fault traffic.  Recorded live when
# tracestore record can (root, tracefs): FaultPair, two processes that read
# a file dropped from the page cache (hard faults) and write anonymous
# memory; else the bundled perf recording of the same workload, whose
# MMAP lines place every fault in its module (Tests/Data/perf-faults-mmap.txt).
rm -rf demo-faults.trace
if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/exceptions ] &&
   dd if=/dev/urandom of=build/demo-faults.bin bs=1M count=4 status=none &&
   ln -sf FaultPair build/Tests/fault-child &&
   build/tracestore record -e exceptions:page_fault_user -o demo-faults.trace -- \
     build/Tests/FaultPair build/demo-faults.bin build/Tests/fault-child; then
  build/tracestore plot --summary -o Tests/demo-faults.png demo-faults.trace
else
  build/tracestore import -o demo-faults.trace Tests/Data/perf-faults-mmap.txt
  build/tracestore plot --summary -o Tests/demo-faults.png demo-faults.trace
fi
build/tracestore sql --json demo.trace "SELECT comm, count(*) AS faults FROM page_fault GROUP BY comm ORDER BY faults DESC LIMIT 2"
# The README's timeline (seeds/001): host KVM trace, uftrace, perf stat.
D=../shared/data/capture-1
if [ -d "$D" ]; then
  rm -rf run.trace
  build/tracestore import -o run.trace $D/trace.dat $D/uftrace.data \
    --clock-offset 697406010804 $D/perf-stat.txt
  build/tracestore export -o run.json run.trace
fi
# The README's Python example (Debian's python3 loads extensions).
python=python3; [ -x /usr/bin/python3 ] && python=/usr/bin/python3
"$python" - <<'PY'
import sqlite3
conn = sqlite3.connect(":memory:")
conn.enable_load_extension(True)
conn.load_extension("build/tracestore")
conn.execute("SELECT tracestore_attach(?)", ("demo.trace",))
for comm, faults in conn.execute(
        "SELECT comm, count(*) FROM page_fault GROUP BY comm ORDER BY 2 DESC LIMIT 3"):
    print(comm, faults)
PY
# The README's Python walk-through (seeds/002): a json workload traced
# into py.trace while a second process asks what runs now and where the
# time goes (the interpreter is Debian's python3; the module the build's).
rm -rf py.trace
build/tracestore trace-python --python "$python" -o py.trace -- \
  Tests/Python/programs/json_loop.py 2 &
i=0; until [ -f py.trace/span.store ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i+1)); done
sleep 0.5
build/tracestore sql py.trace "SELECT tid, depth, name, dur/1000000 AS ms FROM span_running"
build/tracestore top --once --limit 3 py.trace
wait
build/tracestore sql py.trace "SELECT name, calls, self_dur/1000000 AS self_ms FROM span_self_time LIMIT 2"

# The README's fleet recipe (two ClickHouse shards on loopback), when
# clickhouse-server is installed; hostB is a fresh recording as root, else
# another sample.
if command -v clickhouse-server >/dev/null && [ -d ../shared/data/capture-1 ]; then
  rm -rf a.trace b.trace ch
  build/tracestore import --host hostA -o a.trace ../shared/data/capture-1/trace.dat
  if [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing/events/exceptions ]; then
    build/tracestore record --host hostB -e exceptions:page_fault_user --duration 2 -o b.trace
  else
    build/tracestore import --host hostB -o b.trace Tests/Data/ftrace-capture-1.txt
  fi
  sqlite3 :memory: -cmd ".load build/tracestore" "SELECT tracestore_attach_sessions('a.trace', 'b.trace');" \
    "SELECT host, count(*) AS faults FROM page_fault GROUP BY host"
  read H0 H1 <<EOF
$(python3 Tests/Fleet/chserver.py fleet ch)
EOF
  trap 'python3 Tests/Fleet/chserver.py stop ch' EXIT
  build/tracestore push a.trace http://127.0.0.1:$H0/ && build/tracestore push b.trace http://127.0.0.1:$H1/
  for H in $H0 $H1; do curl -sS 127.0.0.1:$H --data-binary "CREATE TABLE tracer.page_fault_all
    AS tracer.page_fault ENGINE = Distributed(fleet, tracer, page_fault)"; done
  curl -sS 127.0.0.1:$H0 --data-binary "SELECT host, count() AS faults FROM tracer.page_fault_all GROUP BY host"
fi
