#!/bin/sh
# The views read from the rollups equal the full scan on sessions that
# GenSession writes every way Tracer's writers write (see its header):
#   rollup_generated.sh GENSESSION EXTENSION PYTHON WORKDIR CASE
set -eu
GEN=$1 EXT=$2 PY=$3 W=$4 CASE=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W"
mkdir -p "$W"
S=$W/session
all="--spans 20000 --faults 20000 --kvm 20000 --events 20000"
case $CASE in
  import)       "$GEN" $all --commit-every 1000 "$S" ;;
  python)       "$GEN" --python 30000 --commit-every 97 --threads 4 "$S" ;;
  python_open)  "$GEN" --python 8000 --leave-open --commit-every 50 \
                  --threads 3 --depth 12 "$S" ;;
  dup_names)    "$GEN" $all --dup-names --names 20 --commit-every 333 "$S" ;;
  fold_thread)  "$GEN" $all --fold-thread --commit-every 500 "$S"
                "$GEN" --python 5000 --fold-thread --leave-open \
                  --commit-every 10 --seed 3 "$S" ;;
  appended)     "$GEN" $all --seed 1 "$S"
                "$GEN" $all --seed 2 --commit-every 77 "$S"
                "$GEN" --python 3000 --leave-open --seed 3 "$S"
                "$GEN" --python 3000 --seed 4 "$S" ;;
  coarse)       "$GEN" --events 100000 --kvm 50000 --rate 20 "$S" ;;
  lines)        "$GEN" --lines 60000 --threads 4 --names 40 --commit-every 97 "$S" ;;
  lines_open)   "$GEN" --lines 20000 --leave-open --dup-names --threads 3 \
                  --depth 12 --commit-every 50 "$S" ;;
  lines_thread) "$GEN" --lines 30000 --fold-thread --leave-open \
                  --commit-every 10 --seed 5 "$S"
                "$GEN" --lines 10000 --python 3000 --fold-thread --seed 6 "$S" ;;
  recursion)    "$GEN" --spans 30000 --names 3 --depth 30 --threads 2 "$S"
                "$GEN" --python 30000 --names 3 --depth 30 --threads 2 \
                  --leave-open --seed 9 "$S" ;;
  *) echo "unknown case $CASE"; exit 2 ;;
esac
"$PY" "$here/rollup_views_test.py" "$EXT" "$S"
