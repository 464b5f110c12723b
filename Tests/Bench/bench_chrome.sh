#!/bin/sh
# Chrome trace-event JSON import speed, next to `wc -l` and `grep -c` over
# the same file in the same run (the file is in the page cache for all), and
# of the same calls written as clang and Node write them (each an X event
# written when it ends, after the calls it contains).
# usage: bench_chrome.sh TRACESTORE [MB] [WORKDIR]
# The input is generated: 8 threads of one process, each in turn writing a
# call tree four deep as B/E pairs (uftrace's layout), a complete (X) event,
# an instant and a two-series counter; one event per line.  Arguments as
# Chrome writes them: the outermost B carries a frame id (512 distinct), the
# X a source location (256 distinct), and every 64th event a unique id, so
# the string store both reuses and adds strings, about MB megabytes.
# Prints result lines for the table `chrome` (see bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; mb=${2:-1000}; work=${3:-${TMPDIR:-/tmp}/tracer-bench-chrome}
mkdir -p "$work"; in=$work/big.json; inx=$work/big-x.json
# gen MODE OUT: MODE be writes each call as a B/E pair, as it happens; MODE
# x writes it as one X event when it ends (children before their parent).
gen() {
  awk -v target=$((mb * 1000000)) -v mode="$1" '
  function emit(e) { bytes += length(e) + 2; print (first ? "" : ",") e; first = 0; count++ }
  function uniq() { return (count % 64 == 0) ? sprintf(",\"args\":{\"id\":%d}", count) : "" }
  BEGIN {
    printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
    n = split("ParseHTML Layout Paint CompositeLayers v8.run MinorGC RunTask DoWork", names, " ")
    t = 1000000.0; first = 1
    while (bytes < target) {
      for (tid = 1; tid <= 8 && bytes < target; tid++) {
        for (d = 1; d <= 4; d++) {
          a[d] = (d == 1) ? sprintf(",\"args\":{\"frame\":\"0x%x\"}", 4096 + count % 512) : uniq()
          begin[d] = t
          if (mode == "be")
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"B\",\"cat\":\"blink\",\"name\":\"%s\"%s}", tid, t, names[(d + tid) % n + 1], a[d]))
          else
            count++
          t += 0.731
        }
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"X\",\"dur\":%.3f,\"cat\":\"v8\",\"name\":\"%s\",\"args\":{\"src\":\"file%d.cc\",\"line\":%d}}", tid, t, 0.25, names[tid % n + 1], count % 16, count % 256))
        t += 0.5
        emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"i\",\"s\":\"t\",\"name\":\"mark\"%s}", tid, t, uniq()))
        t += 0.125
        emit(sprintf("{\"pid\":4242,\"ts\":%.3f,\"ph\":\"C\",\"name\":\"heap\",\"args\":{\"used\":%d,\"total\":%d}}", t, (count * 7) % 100000, 100000))
        for (d = 4; d >= 1; d--) {
          if (mode == "be")
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"E\",\"cat\":\"blink\",\"name\":\"%s\"}", tid, t, names[(d + tid) % n + 1]))
          else
            emit(sprintf("{\"pid\":4242,\"tid\":%d,\"ts\":%.3f,\"ph\":\"X\",\"dur\":%.3f,\"cat\":\"blink\",\"name\":\"%s\"%s}", tid, begin[d], t - begin[d], names[(d + tid) % n + 1], a[d]))
          t += 0.333
        }
      }
    }
    printf "],\"metadata\":{\"generator\":\"bench_chrome.sh\"}}\n" }' > "$2"
}
if [ ! -s "$in" ] || [ ! -s "$inx" ] || [ "$(cat "$work/mb" 2>/dev/null)" != "$mb" ]; then
  gen be "$in"; gen x "$inx"
  echo "$mb" > "$work/mb"
fi
bytes=$(wc -c < "$in"); lines=$(wc -l < "$in")

cat "$in" > /dev/null
t_wc=$(best 3 wc -l "$in")
t_grep=$(best 3 grep -c '"ph":"B"' "$in")
t_imp=$(best 3 "$ts" import -o "$work/session" "$in")
n=$(events "$work/session")
spans=$("$ts" sql --csv "$work/session" "SELECT count(*) FROM span" | tail -1)
cat "$inx" > /dev/null
bytesx=$(wc -c < "$inx")
t_impx=$(best 3 "$ts" import -o "$work/session" "$inx")
nx=$(events "$work/session")
rm -rf "$work/session"
rss=$(peak_rss "$ts" import -o "$work/session" "$in")

mbps() { calc %.0f "$bytes / $1 / 1e6"; }
bench_head chrome command time throughput "speed vs tracestore import"
bench_row chrome 'wc -l' "$t_wc s" "$(mbps "$t_wc") MB/s" "$(calc %.1f "$t_imp / $t_wc")x"
bench_row chrome "grep -c '\"ph\":\"B\"'" "$t_grep s" "$(mbps "$t_grep") MB/s" "$(calc %.1f "$t_imp / $t_grep")x"
bench_row chrome '**tracestore import**' "$t_imp s" \
  "**$(mbps "$t_imp") MB/s**, $(calc %.2f "$n / $t_imp / 1e6") M events/s" 1
bench_row chrome 'peak RSS of the import' '' "$rss MB" ''
bench_row chrome '**tracestore import**, the same calls as X events written at their end (clang, Node)' "$t_impx s" \
  "**$(calc %.0f "$bytesx / $t_impx / 1e6") MB/s**, $(calc %.2f "$nx / $t_impx / 1e6") M events/s" \
  "$(calc %.2f "($bytesx / $t_impx) / ($bytes / $t_imp)")x (MB/s, X vs B/E)"
bench_note chrome "Input: $((bytes / 1000000)) MB, $lines lines, $n events, $spans spans; the X layout $((bytesx / 1000000)) MB, $nx events; best of 3 runs each, file in the page cache."
rm -rf "$work/session"
