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
if [ ! -s "$in" ] || [ ! -s "$inx" ] || [ "$(cat "$work/mb" 2>/dev/null)" != "$mb" ]; then
  gen_chrome be "$mb" "$in"; gen_chrome x "$mb" "$inx"
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
