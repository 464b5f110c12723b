#!/bin/sh
# Chrome trace-event JSON import speed, next to `wc -l` and `grep -c` over
# the same file in the same run (the file is in the page cache for all).
# usage: bench_chrome.sh TRACESTORE [MB] [WORKDIR]
# The input is generated: 8 threads of one process, each in turn writing a
# call tree four deep as B/E pairs (uftrace's layout), a complete (X) event,
# an instant and a two-series counter; one event per line.  Arguments as
# Chrome writes them: the outermost B carries a frame id (512 distinct), the
# X a source location (256 distinct), and every 64th event a unique id, so
# the string store both reuses and adds strings, about MB megabytes.
set -eu
ts=$1; mb=${2:-1000}; work=${3:-${TMPDIR:-/tmp}/tracer-bench-chrome}
mkdir -p "$work"; in=$work/big.json
if [ ! -s "$in" ] || [ "$(cat "$work/mb" 2>/dev/null)" != "$mb" ]; then
  awk -v target=$((mb * 1000000)) '
  function emit(e) { bytes += length(e) + 2; print (first ? "" : ",") e; first = 0; count++ }
  function uniq() { return (count % 64 == 0) ? sprintf(",\"args\":{\"id\":%d}", count) : "" }
  BEGIN {
    printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
    n = split("ParseHTML Layout Paint CompositeLayers v8.run MinorGC RunTask DoWork", names, " ")
    t = 1000000.0; first = 1
    while (bytes < target) {
      for (tid = 1; tid <= 8 && bytes < target; tid++) {
        for (d = 1; d <= 4; d++) {
          a = (d == 1) ? sprintf(",\"args\":{\"frame\":\"0x%x\"}", 4096 + count % 512) : uniq()
          emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"B\",\"cat\":\"blink\",\"name\":\"%s\"%s}", tid, t, names[(d + tid) % n + 1], a))
          t += 0.731
        }
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"X\",\"dur\":%.3f,\"cat\":\"v8\",\"name\":\"%s\",\"args\":{\"src\":\"file%d.cc\",\"line\":%d}}", tid, t, 0.25, names[tid % n + 1], count % 16, count % 256))
        t += 0.5
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\"%s}", tid, t, uniq()))
        t += 0.125
        emit(sprintf("{\"pid\":4242,\"ts\":%.3f,\"ph\":\"C\",\"name\":\"heap\",\"args\":{\"used\":%d,\"total\":%d}}", t, (count * 7) % 100000, 100000))
        for (d = 4; d >= 1; d--) {
          emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"E\",\"cat\":\"blink\",\"name\":\"%s\"}", tid, t, names[(d + tid) % n + 1]))
          t += 0.333
        }
      }
    }
    printf "],\"metadata\":{\"generator\":\"bench_chrome.sh\"}}\n" }' > "$in"
  echo "$mb" > "$work/mb"
fi
bytes=$(wc -c < "$in"); lines=$(wc -l < "$in")

now() { date +%s.%N; }
best() {  # best of three wall-clock runs of "$@"
  b=""; for i in 1 2 3; do
    t0=$(now); "$@" >"$work/out" 2>&1; t1=$(now)
    t=$(echo "$t1 - $t0" | bc -l); if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
  done; echo "$b"; }
import() { rm -rf "$work/session"; "$ts" import -o "$work/session" "$in"; }

cat "$in" > /dev/null
t_wc=$(best wc -l "$in")
t_grep=$(best grep -c '"ph":"B"' "$in")
t_imp=$(best import)
events=$("$ts" sql --csv "$work/session" "SELECT sum(events) FROM source" | tail -1)
spans=$("$ts" sql --csv "$work/session" "SELECT count(*) FROM span" | tail -1)
rss=0
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$work/time" "$ts" import -o "$work/session2" "$in" >/dev/null 2>&1 || true
  rss=$(tail -1 "$work/time"); rm -rf "$work/session2"
fi

mbps() { echo "scale=0; $bytes / $1 / 1000000" | bc -l; }
printf '| input | %s MB, %s lines, %s events, %s spans |\n' "$(( bytes / 1000000 ))" "$lines" "$events" "$spans"
printf '| wc -l | %s s | %s MB/s |\n' "$t_wc" "$(mbps "$t_wc")"
printf '| grep -c | %s s | %s MB/s |\n' "$t_grep" "$(mbps "$t_grep")"
printf '| tracestore import | %s s | %s MB/s, %s events/s |\n' "$t_imp" "$(mbps "$t_imp")" \
  "$(echo "scale=0; $events / $t_imp" | bc -l)"
printf '| import / grep -c | %s |\n' "$(echo "scale=2; $t_grep / $t_imp" | bc -l)"
printf '| peak RSS of the import | %s MB |\n' "$(( rss / 1024 ))"
rm -rf "$work/session"
