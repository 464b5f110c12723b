#!/bin/sh
# Makes the synthetic trace.dat inputs of the trace.dat tests in OUTDIR:
#   syn.dat    3000 events on 4 CPUs (file format v6), and its v7 versions
#              converted by trace-cmd (syn-v7zstd.dat, syn-v7none.dat)
#   small.dat  200 events (64 KB), small enough to be cut at every byte, and its
#              v7 versions (small-v7zstd.dat, small-v7none.dat)
#   plugins.dat the events trace-cmd prints through libtraceevent's plugins
#              and its trace_printk code (gen_tracedat.py plugins), and its v7
#              zstd version (plugins-v7zstd.dat)
# usage: tracedat_data.sh OUTDIR TEMPLATE.dat
set -eu
out=$1; template=$2
gen=$(dirname "$0")/gen_tracedat.py
mkdir -p "$out"
python3 "$gen" synthetic "$template" "$out/syn.dat" 3000 1
python3 "$gen" synthetic "$template" "$out/small.dat" 200 2
python3 "$gen" plugins "$template" "$out/plugins.dat" 1
for f in syn small; do
  trace-cmd convert -i "$out/$f.dat" -o "$out/$f-v7zstd.dat" --file-version 7 --compression zstd >/dev/null 2>&1
  trace-cmd convert -i "$out/$f.dat" -o "$out/$f-v7none.dat" --file-version 7 --compression none >/dev/null 2>&1
done
trace-cmd convert -i "$out/plugins.dat" -o "$out/plugins-v7zstd.dat" --file-version 7 --compression zstd >/dev/null 2>&1
ls -l "$out"
