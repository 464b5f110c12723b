#!/bin/sh
# trace.dat import speed next to `trace-cmd report > /dev/null` on the same
# file, in the same run (the file is in the page cache for both).
# usage: bench_tracedat.sh TRACESTORE TEMPLATE.dat [COPIES] [WORKDIR]
# The inputs:
#   big-v6.dat       the template's events (capture-1/trace-v6.dat: 2241
#                    events of a KVM guest, a page-touching program and ls)
#                    replicated COPIES times (default 450: just over a
#                    million events) by gen_tracedat.py;
#   big-v7zstd.dat   the same converted to v7 with zstd by trace-cmd;
#   random-v6.dat    a million synthetic events with random field values,
#                    so that nearly every event's text is new (context:
#                    the cost of storing a million distinct strings);
#                    COPIES / 450 million of them.
# Prints result lines for the table `tracedat` (see bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; template=$2; copies=${3:-450}; work=${4:-${TMPDIR:-/tmp}/tracer-bench-tracedat}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"; in=$work/big-v6.dat; inz=$work/big-v7zstd.dat
if [ ! -s "$in" ] || [ "$(cat "$work/copies" 2>/dev/null)" != "$copies" ]; then
  python3 "$here/../Readers/gen_tracedat.py" replicate "$template" "$in" "$copies"
  trace-cmd convert -i "$in" -o "$inz" --file-version 7 --compression zstd >/dev/null 2>&1
  echo "$copies" > "$work/copies"
fi
inr=$work/random-v6.dat; synthetic=$(( copies * 1000000 / 450 ))
if [ ! -s "$inr" ] || [ "$(cat "$work/synthetic" 2>/dev/null)" != "$synthetic" ]; then
  python3 "$here/../Readers/gen_tracedat.py" synthetic "$template" "$inr" "$synthetic" 5
  echo "$synthetic" > "$work/synthetic"
fi

report() { trace-cmd report -i "$1" > /dev/null; }

cat "$in" "$inz" "$inr" > /dev/null
bench_head tracedat input '`trace-cmd report`' '`tracestore import`' 'import vs report'
for f in "$in" "$inz" "$inr"; do
  t_rep=$(best 2 report "$f")
  t_imp=$(best 5 "$ts" import -o "$work/session" "$f")
  n=$(events "$work/session")
  case $f in
  "$in") what="template replicated x$copies, v6" ;;
  "$inz") what="the same, v7 zstd (trace-cmd convert)" ;;
  *) what="synthetic events with random fields, v6" ;;
  esac
  bench_row tracedat "$what, $(mb "$f") MB, $n events" \
    "$t_rep s ($(calc %.0f "$n / $t_rep / 1e3") k events/s)" \
    "$t_imp s ($(calc %.2f "$n / $t_imp / 1e6") M events/s)" "**$(calc %.1f "$t_rep / $t_imp")x**"
done
bench_note tracedat "Template $(basename "$template"); best of 2 \`trace-cmd report\` and of 5 imports per input, files in the page cache; $(trace-cmd --version 2>&1 | grep -o 'trace-cmd version [^ ]*' | head -1)."
rm -rf "$work/session"
