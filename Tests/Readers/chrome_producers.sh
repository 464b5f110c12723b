#!/bin/sh
# Chrome trace-event JSON written by real producers, imported and compared
# row by row with what chrome_oracle.py reads from the same file.
# usage: chrome_producers.sh TRACESTORE SOURCE_DIR WORKDIR CASE
#   clang   clang -ftime-trace (granularity 0) of three of Tracer's own
#           sources: complete (X) events written when they end, after the
#           events they contain, metadata at the end, one thread per
#           "Total" summary
#   node    node --trace-event-categories ... of a script with two worker
#           threads, timers, fs calls, promises, console.count counters
#           and counters whose values are nested objects: B/E, X, I, b/e,
#           C and M events of several threads
#   cut     each of those files cut at 20 places: exit 1, FILE: offset N,
#           and every span event complete before the cut imported
set -eu
ts=$1; src=$2; work=$3; case=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"; mkdir -p "$work"

produce_clang() {
  command -v clang >/dev/null || { echo "clang not installed (Tests/install-deps.sh)"; exit 1; }
  for f in Import/TraceImport Decoders/Chrome/ChromeJson Decoders/Uftrace/Uftrace; do
    clang -ftime-trace -ftime-trace-granularity=0 -O2 -I"$src" -c "$src/Readers/$f.c" \
          -o "$work/$(basename "$f").o"
  done
}

produce_node() {
  command -v node >/dev/null || { echo "nodejs not installed (Tests/install-deps.sh)"; exit 1; }
  cat > "$work/work.js" <<'JS'
// The main thread and two workers: timers, fs calls, promises, console.count
// counters and (with --expose-internals) counters whose values are nested.
const { Worker, isMainThread } = require('worker_threads');
const fs = require('fs');
let trace = null;
try {
  const { internalBinding } = require('internal/test/binding');
  trace = internalBinding('trace_events').trace;
} catch (e) { /* a node without it: no nested counters */ }
function busy(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i); return s; }
if (isMainThread) {
  const workers = [new Worker(__filename), new Worker(__filename)];
  let done = 0;
  for (const w of workers) w.on('exit', () => { if (++done === 2) finish(); });
  for (let i = 0; i < 5; i++) {
    console.count('main-loop');
    fs.readFileSync(__filename);
    if (trace) trace(67, 'node', 'memory', 0,
                     { heap: { used: process.memoryUsage().heapUsed, total: 1 }, tick: i,
                       label: 'not a number' });
    busy(1e5);
  }
  function finish() {
    setTimeout(() => Promise.resolve().then(() => console.count('main-done')), 5);
  }
} else {
  for (let i = 0; i < 3; i++) { console.count('worker'); busy(2e5); }
}
JS
  ( cd "$work" && node --expose-internals --no-warnings \
      --trace-event-categories v8,node,node.async_hooks,node.console,node.fs.sync,node.bootstrap,node.perf,node.environment \
      work.js > /dev/null )
}

compare() {  # compare FILE
  rm -rf "$work/session"
  "$ts" import -o "$work/session" "$1"
  python3 "$here/chrome_oracle.py" "$ts" "$work/session" "$1"
}

# cut FILE: the file cut at 20 places.  The object form must be complete, so
# every cut is an error; the rows are the span events (B, X, instants) whose
# text ends before the cut.
cut() {
  size=$(wc -c < "$1")
  for i in $(seq 1 20); do
    at=$(( size * i / 21 ))
    head -c "$at" "$1" > "$work/cut.json"
    rm -rf "$work/session"
    set +e
    "$ts" import -o "$work/session" "$work/cut.json" > "$work/out" 2>&1
    rc=$?
    set -e
    [ "$rc" = 1 ] || { cat "$work/out"; echo "FAIL: $1 cut at $at: exit $rc, not 1"; exit 1; }
    grep -q "^tracestore: $work/cut.json: offset [0-9]*: " "$work/out" ||
      { cat "$work/out"; echo "FAIL: $1 cut at $at: no 'FILE: offset N:' error"; exit 1; }
    want=$(python3 - "$work/cut.json" <<'PY'
import json, sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
start = text.index("[", text.index('"traceEvents"')) + 1
decoder, n, pos = json.JSONDecoder(), 0, start
while True:
    while pos < len(text) and text[pos] in " \t\r\n,":
        pos += 1
    try:
        event, pos = decoder.raw_decode(text, pos)
    except ValueError:
        break
    n += event.get("ph") in ("B", "X", "i", "I", "R")
print(n)
PY
)
    got=$("$ts" sql --csv "$work/session" "SELECT count(*) FROM span" 2>/dev/null | tail -1)
    [ "$got" = "$want" ] || { echo "FAIL: $1 cut at $at: $got spans kept, $want complete before the cut"; exit 1; }
  done
  echo "ok: $(basename "$1") cut at 20 places: exit 1 with the offset, every complete span kept"
}

case $case in
clang)
  produce_clang
  for f in "$work"/*.json; do compare "$f"; done
  ;;
node)
  produce_node
  for f in "$work"/node_trace.*.log; do compare "$f"; done
  ;;
cut)
  produce_clang; produce_node
  cut "$work/TraceImport.json"
  for f in "$work"/node_trace.*.log; do cut "$f"; done
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
