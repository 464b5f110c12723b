#!/bin/sh
# kvmtrace speed: `tracestore import` and `tracestore kvmtrace-format` against
# the seed's rules as a Python 3 reference decoder, in the same run.
# usage: bench_kvmtrace.sh TRACESTORE SHARED_DIR [MB] [WORKDIR]
# The input is gen_kvmtrace.py's stream of about MB megabytes (seed 1, kept
# in WORKDIR between runs).  The reference decodes about 5 MB/s, so it runs
# on a 5 MB input from the same generator (seed 2), and so does tracestore,
# for a ratio on the same input; the large input gives tracestore's
# throughput.  Prints result lines for the table `kvmtrace` (bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; shared=$2; mb=${3:-200}; work=${4:-${TMPDIR:-/tmp}/tracer-bench-kvmtrace}
gen=$shared/tools/gen_kvmtrace.py
ref=$shared/tools/kvmtrace_format_reference.py
formats=$shared/data/kvmtrace/formats
mkdir -p "$work"
big=$work/big.bin; small=$work/small.bin
records=$(( mb * 40000 ))            # ~25 bytes per record
if [ ! -s "$big" ] || [ "$(cat "$work/records" 2>/dev/null)" != "$records" ]; then
  python3 "$gen" "$records" 1 > "$big"
  echo "$records" > "$work/records"
fi
[ -s "$small" ] || python3 "$gen" 200000 2 > "$small"
bytes=$(wc -c < "$big"); sbytes=$(wc -c < "$small")
cat "$big" "$small" > /dev/null

t_imp=$(best 3 "$ts" import -o "$work/session" "$big")
n=$(events "$work/session")
rm -rf "$work/session"; sync
rss=$(peak_rss "$ts" import -o "$work/session" "$big")
stdin=$big; t_fmt=$(best 3 "$ts" kvmtrace-format "$formats")
stdin=$small; t_fmt_small=$(best 3 "$ts" kvmtrace-format "$formats")
t_ref=$(best 1 python3 "$ref" "$formats")
stdin=/dev/null; t_imp_small=$(best 3 "$ts" import -o "$work/session" "$small")

ref_mbps=$(calc %.4f "$sbytes / $t_ref / 1e6")
row() {  # row COMMAND BYTES SECONDS [EXTRA]
  bench_row kvmtrace "$1" "$(($2 / 1000000)) MB" "$(calc %.3f "$3") s" \
    "$(calc %.1f "$2 / $3 / 1e6") MB/s${4:-}" "$(calc %.1f "$2 / $3 / 1e6 / $ref_mbps")x"
}
bench_head kvmtrace command input time throughput "throughput vs the reference"
row 'reference `kvmtrace_format_reference.py`' "$sbytes" "$t_ref"
row '`tracestore kvmtrace-format > /dev/null`' "$sbytes" "$t_fmt_small"
row '`tracestore kvmtrace-format > /dev/null`' "$bytes" "$t_fmt"
row '`tracestore import`' "$sbytes" "$t_imp_small"
row '**`tracestore import`**' "$bytes" "$t_imp" \
  ", $(calc %.1f "$n / $t_imp / 1e6") M records/s, peak RSS $rss MB"
bench_note kvmtrace "Inputs: gen_kvmtrace.py, $n records (seed 1) and 200000 (seed 2); tracestore best of 3 runs, the reference one run."
rm -rf "$work/session"
