#!/bin/sh
# Every text sample is detected as its real format and as no other: each
# reader's Detect routine is asked about every file (TestDetect prints all
# that claim it), and `tracestore import` must report the same format.
# usage: detect_samples.sh TESTDETECT TRACESTORE WORKDIR DIR...
set -eu
detect=$1; ts=$2; work=$3; shift 3
rm -rf "$work"; mkdir -p "$work"
n=0
for dir in "$@"; do
  for f in "$dir"/*.txt; do
    # The real format, from what each sample is (see the data READMEs).
    case $(basename "$f") in
      perf-stat*)                 want=perf-stat ;;
      perf-*)                     want=perf-script ;;
      trace-cmd-report*)          want=trace-cmd-report ;;
      ftrace*|kvm-exit-entry.txt) want=ftrace ;;
      *) echo "skip: $f (not a known trace sample)"; continue ;;
    esac
    got=$("$detect" "$f" | tr '\n' ' ' | sed 's/ $//')
    [ "$got" = "$want" ] || { echo "FAIL: $f: claimed by '$got', expected only '$want'"; exit 1; }
    rm -rf "$work/session"
    "$ts" import -o "$work/session" "$f" 2> "$work/err" || { cat "$work/err"; exit 1; }
    grep -q "($want)" "$work/err" || { cat "$work/err"; echo "FAIL: $f: import did not use $want"; exit 1; }
    echo "ok: $(basename "$f"): $want"
    n=$((n + 1))
  done
done
[ $n -gt 0 ] || { echo "FAIL: no samples"; exit 1; }
echo "ok: $n samples detected as their own format only"
