#!/bin/sh
#
# bench_wine.sh LINUX_BUILD WINDOWS_BUILD [WORKDIR]
#
# Append and import under wine beside Linux, in the same run, on the same
# files (information: no goal).  Run it with the WINEPREFIX and
# wineserver of Tests/run-tests.sh --windows, or any prefix:
#
#   WINEPREFIX=/tmp/pfx WINEDEBUG=-all Tests/Windows/bench_wine.sh build build-windows
#
#   append   8 M records of 32 bytes into a store growing from empty,
#            commit every 4096, the core alone (no prefault ahead): Linux
#            BenchAppend --only n, Windows WinCoreTest bench; and, as the
#            reference, the same writes through one mapping of a file grown
#            beforehand (BenchAppend --only c, WinCoreTest plain); best of 3
#   import   the bundled ftrace capture repeated to 100 MB, and trace-v6.dat:
#            tracestore import and tracestore.exe import; best of 3
#
# Prints @bench lines (Tests/Bench/bench_lib.sh) for the table `windows`.
#
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../Bench/bench_lib.sh"
linux=$(cd "$1" && pwd); windows=$(cd "$2" && pwd)
work=${3:-${TMPDIR:-/tmp}/tracer-bench-wine}
mkdir -p "$work"

records=8388608
best_append() {   # the best MB/s of 3 runs of "$@" printing "N MB/s" or "GB/s"
  b=0
  for i in 1 2 3; do
    rm -rf "$work/append"; mkdir -p "$work/append"
    r=$("$@" 2>&1 | awk -v pat="$pattern" '/^(bench|plain):/ { for (i = 1; i <= NF; i++) if ($i ~ /^MB\/s,?$/) print $(i-1) }
                         $0 ~ pat { print $(NF-2) * 1000 }' | tail -1)
    if [ "$(calc %d "($r > $b)")" = 1 ]; then b=$r; fi
  done
  echo "$b"
}
pattern="@bench.*growing from empty, no prefault"
a_linux=$(best_append "$linux/Tests/BenchAppend" --size 256M --only n --repeat 1 "$work/append")
a_wine=$(best_append wine "$windows/WinCoreTest.exe" bench "$work/append/w.store" $records)
pattern="@bench.*plain un-prefaulted"
p_linux=$(best_append "$linux/Tests/BenchAppend" --size 256M --only c --repeat 1 "$work/append")
p_wine=$(best_append wine "$windows/WinCoreTest.exe" plain "$work/append/w.bin" $records)

in=$work/ftrace-100.txt
gen_ftrace "$here/../Data/ftrace-capture-1.txt" 100 "$in"
cat "$in" > /dev/null
dat=$here/../../../shared/data/capture-1/trace-v6.dat
t_lf=$(best 3 "$linux/tracestore" import -o "$work/session" "$in")
t_wf=$(best 3 wine "$windows/tracestore.exe" import -o "$work/session" "$in")
t_ld=$(best 3 "$linux/tracestore" import -o "$work/session" "$dat")
t_wd=$(best 3 wine "$windows/tracestore.exe" import -o "$work/session" "$dat")
mbps() { calc %.0f "$(wc -c < "$2") / $1 / 1e6"; }

bench_head windows case Linux "wine (Windows build)" "wine / Linux"
bench_row windows "append, store growing from empty, core alone" \
  "$a_linux MB/s" "$a_wine MB/s" "$(calc %.2f "$a_wine / $a_linux")"
bench_row windows "reference: the same writes through one mapping of a file grown beforehand" \
  "$p_linux MB/s" "$p_wine MB/s" "$(calc %.2f "$p_wine / $p_linux")"
bench_row windows "import ftrace text, $(mb "$in") MB" \
  "$t_lf s ($(mbps "$t_lf" "$in") MB/s)" "$t_wf s ($(mbps "$t_wf" "$in") MB/s)" \
  "$(calc %.2f "$t_lf / $t_wf")"
bench_row windows "import trace-v6.dat, $(mb "$dat") MB" \
  "$t_ld s ($(mbps "$t_ld" "$dat") MB/s)" "$t_wd s ($(mbps "$t_wd" "$dat") MB/s)" \
  "$(calc %.2f "$t_ld / $t_wd")"
bench_note windows "Best of 3 each, same files, same run; wine $(wine --version 2>/dev/null); ratio = wine speed / Linux speed."
rm -rf "$work/session" "$work/append"
