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
