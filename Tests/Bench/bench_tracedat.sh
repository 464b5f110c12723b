#!/bin/sh
# trace.dat import speed next to `trace-cmd report > /dev/null` on the same
# file, in the same run (the file is in the page cache for both).
# usage: bench_tracedat.sh TRACESTORE TEMPLATE.dat [COPIES] [WORKDIR] [FRESH]
#   FRESH: a capture directory (capture.sh's output, holding trace.dat and
#   trace-v6.dat), or ../shared/tools/capture.sh itself, which is then run
#   (scale 50: ~90 k events of kvm, faults and sched) into WORKDIR/capture
#   when there are root, tracefs and /dev/kvm; without either, the fresh
#   rows are left out with a note.
# The inputs:
#   big-v6.dat       the template's events (capture-1/trace-v6.dat: 2241
#                    events of a KVM guest, a page-touching program and ls)
#                    replicated COPIES times (default 450: just over a
#                    million events) by gen_tracedat.py;
#   big-v7zstd.dat   the same converted to v7 with zstd by trace-cmd;
#   random-v6.dat    a million synthetic events with random field values,
#                    so that nearly every event's text is new (context:
#                    the cost of storing a million distinct strings);
#                    COPIES / 450 million of them;
#   capture/trace.dat a fresh capture as trace-cmd extract writes it (v7,
#                    zstd), and capture/trace-v6.dat, the same as v6: the
#                    size a person records, where the fixed costs (event
#                    formats, kallsyms, creating and flushing the stores)
#                    weigh as much as the events.
# Prints result lines for the table `tracedat` (see bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; template=$2; copies=${3:-450}; work=${4:-${TMPDIR:-/tmp}/tracer-bench-tracedat}
fresh=${5:-}
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

# The fresh capture: a directory given, or capture.sh run here.
capdir=; capnote=
if [ -n "$fresh" ] && [ -d "$fresh" ]; then
  capdir=$fresh; capnote="capture directory $fresh"
elif [ -n "$fresh" ] && [ -f "$fresh" ]; then
  if [ "$(id -u)" != 0 ]; then capnote="no fresh capture: capture.sh needs root"
  elif [ ! -e /sys/kernel/tracing/trace ]; then capnote="no fresh capture: no tracefs"
  elif [ ! -c /dev/kvm ]; then capnote="no fresh capture: no /dev/kvm"
  else
    rm -rf "$work/capture"
    if bash "$fresh" "$work/capture" 50 > "$work/capture.log" 2>&1 || [ -s "$work/capture/trace.dat" ]; then
      capdir=$work/capture; capnote="recorded by \`capture.sh DIR 50\` in this run"
    else
      capnote="no fresh capture: capture.sh failed (see $work/capture.log)"
    fi
  fi
fi
capin=
if [ -n "$capdir" ]; then
  for f in "$capdir/trace.dat" "$capdir/trace-v6.dat"; do
    [ -s "$f" ] && capin="$capin $f"
  done
fi

report() { trace-cmd report -i "$1" > /dev/null; }

cat "$in" "$inz" "$inr" $capin > /dev/null
bench_head tracedat input '`trace-cmd report`' '`tracestore import`' 'import vs report'
for f in $capin "$in" "$inz" "$inr"; do
  case $f in
  "$in"|"$inz"|"$inr") nrep=2; nimp=5 ;;
  *) nrep=5; nimp=11 ;;       # the fresh capture: tens of milliseconds each
  esac
  t_rep=$(best $nrep report "$f")
  t_imp=$(best $nimp "$ts" import -o "$work/session" "$f")
  n=$(events "$work/session")
  case $f in
  "$in") what="template replicated x$copies, v6" ;;
  "$inz") what="the same, v7 zstd (trace-cmd convert)" ;;
  "$inr") what="synthetic events with random fields, v6" ;;
  */trace.dat) what="**fresh capture**, v7 zstd as recorded" ;;
  *) what="the fresh capture as v6 (trace-cmd convert)" ;;
  esac
  bench_row tracedat "$what, $(calc %.1f "$(wc -c < "$f") / 1e6") MB, $n events" \
    "$t_rep s ($(calc %.0f "$n / $t_rep / 1e3") k events/s)" \
    "$t_imp s ($(calc %.2f "$n / $t_imp / 1e6") M events/s)" "**$(calc %.1f "$t_rep / $t_imp")x**"
done
bench_note tracedat "Template $(basename "$template"); fresh capture: ${capnote:-none asked for}; best of 2 \`trace-cmd report\` and of 5 imports per input (fresh capture: 5 and 11), files in the page cache; $(trace-cmd --version 2>&1 | grep -o 'trace-cmd version [^ ]*' | head -1)."
rm -rf "$work/session"
