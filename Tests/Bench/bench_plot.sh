#!/bin/sh
# tracestore plot of an N-fault session (Tests/Bench/BenchPlotSession.c:
# 4 processes, 8 modules, module offsets, 10 % hard): wall seconds and
# peak RSS; then, in the same run on the same points, matplotlib's scatter
# (python3-matplotlib, one scatter call per category and class, the seed's
# markers) and the seed's own way, one plot call per point, for SEED
# points (default 100000).  Each drawing is a 16 x 9 inch PNG at 80 dpi.
# usage: bench_plot.sh TRACESTORE BENCHPLOTSESSION N DIR [SEED]
set -eu
ts=$1; gen=$2; n=$3; work=$4; nseed=${5:-100000}
here=$(dirname "$0")
. "$here/bench_lib.sh"
python=python3; [ -x /usr/bin/python3 ] && python=/usr/bin/python3
rm -rf "$work"; mkdir -p "$work"
"$gen" "$work/session" "$n" "$work/points.bin"
echo "session: $(du -sh "$work/session" | cut -f1), $n faults"
# Warm: the page cache holds the store for every contender alike.
cat "$work/session"/*.store "$work/points.bin" > /dev/null

rss() { awk '/^peak_rss_mb/ { print $2 }' "$1"; }
t0=$(now)
"$python" "$here/peak_rss.py" "$ts" plot -o "$work/plot.png" "$work/session" > "$work/plot.log" 2>&1
t1=$(now)
t_plot=$(calc %.2f "$t1 - $t0"); m_plot=$(rss "$work/plot.log")
echo "tracestore plot: $t_plot s, $m_plot MB"

t0=$(now)
"$python" "$here/peak_rss.py" "$python" "$here/plot_matplotlib.py" scatter \
  "$work/points.bin" "$n" "$work/mpl.png" > "$work/mpl.log" 2>&1
t1=$(now)
t_mpl=$(calc %.2f "$t1 - $t0"); m_mpl=$(rss "$work/mpl.log")
echo "matplotlib scatter: $t_mpl s, $m_mpl MB"

t0=$(now)
"$python" "$here/plot_matplotlib.py" per-point "$work/points.bin" "$nseed" \
  "$work/seed.png" > "$work/seed.log" 2>&1
t1=$(now)
t_seed=$(calc %.2f "$t1 - $t0")
echo "seed's way (one plot call per point), $nseed points: $t_seed s"

bench_head plot "drawing" "points" "seconds" "peak RSS (MB)" "vs tracestore plot"
bench_row plot "tracestore plot" "$n" "$t_plot" "$m_plot" "1.0x"
bench_row plot "matplotlib scatter" "$n" "$t_mpl" "$m_mpl" "$(calc %.1fx "$t_mpl / $t_plot") slower"
bench_row plot "seed (one plot call per point)" "$nseed" "$t_seed" "-" "$(calc %.0fx "($t_seed / $nseed) / ($t_plot / $n)") slower per point"
