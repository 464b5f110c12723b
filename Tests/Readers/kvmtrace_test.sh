#!/bin/sh
# kvmtrace: `tracestore kvmtrace-format` and `tracestore import` against
# independent oracles: the seed's expected text files, the seed's rules as a
# Python 3 reference decoder (run here on generated inputs), grep -c and awk
# over the reference's text.
#
# usage: kvmtrace_test.sh TRACESTORE SHARED_DIR WORKDIR CASE [ARGS...]
#   format_sample                 both sample files, byte for byte (file, pipe)
#   format_generated N SEED       gen_kvmtrace.py N SEED vs the reference
#                                 (mapped file, pipe, and a pipe fed in drips)
#   format_errors                 bad rules, a failing rule, empty input
#   truncated                     a cut final record: format and import
#   import N SEED [MHZ]           store rows vs the reference's text (N=0: the
#                                 sample); with MHZ, ts vs exact TSC->ns
#   detect                        the sample is detected; text and JSON are not
#   damaged                       a TSC with its top bit set: error, offset
set -eu
ts=$1; shared=$2; work=$3; case=$4; shift 4
ref=$shared/tools/kvmtrace_format_reference.py
gen=$shared/tools/gen_kvmtrace.py
data=$shared/data/kvmtrace
formats=$data/formats
export LC_ALL=C.UTF-8
rm -rf "$work"; mkdir -p "$work"

fail() { echo "FAIL: $*"; exit 1; }

# The reference decoder's text for a binary input (the oracle).
reference() { python3 "$ref" "$@"; }

case $case in
format_sample)
  "$ts" kvmtrace-format "$formats" < "$data/sample.bin" > "$work/out.txt"
  cmp "$work/out.txt" "$data/sample.expected.txt" || fail "differs from sample.expected.txt"
  "$ts" kvmtrace-format "$formats" -c 2400 < "$data/sample.bin" > "$work/out.txt"
  cmp "$work/out.txt" "$data/sample.c2400.expected.txt" || fail "differs from sample.c2400.expected.txt"
  cat "$data/sample.bin" | "$ts" kvmtrace-format "$formats" -c2400 > "$work/out.txt"
  cmp "$work/out.txt" "$data/sample.c2400.expected.txt" || fail "differs through a pipe"
  echo "ok: both sample expected files, byte for byte (mapped and piped)" ;;

format_generated)
  n=$1; seed=$2
  python3 "$gen" "$n" "$seed" > "$work/in.bin"
  reference "$formats" < "$work/in.bin" > "$work/want.txt"
  reference -c 2893 "$formats" < "$work/in.bin" > "$work/want-c.txt"
  unknown=$(grep -c ' unknown (0x' "$work/want.txt" || true)
  [ "$unknown" -gt 0 ] || fail "the input has no unknown event ids (rule 0 untested)"
  "$ts" kvmtrace-format "$formats" < "$work/in.bin" > "$work/got.txt"
  cmp "$work/got.txt" "$work/want.txt" || fail "mapped input differs from the reference"
  "$ts" kvmtrace-format "$formats" -c 2893 < "$work/in.bin" > "$work/got.txt"
  cmp "$work/got.txt" "$work/want-c.txt" || fail "-c 2893 differs from the reference"
  cat "$work/in.bin" | "$ts" kvmtrace-format "$formats" > "$work/got.txt"
  cmp "$work/got.txt" "$work/want.txt" || fail "piped input differs from the reference"
  # Small random writes: records straddle the pieces the command reads.
  head -c 200000 "$work/in.bin" | python3 -c '
import os, random, sys, time
rng = random.Random(1); data = sys.stdin.buffer.read(); i = 0
while i < len(data):
    k = rng.randrange(1, 97); os.write(1, data[i:i + k]); i += k
    if rng.random() < 0.05: time.sleep(0.001)
' | "$ts" kvmtrace-format "$formats" > "$work/got.txt" 2> "$work/err.txt" || true
  head -c 200000 "$work/in.bin" | reference "$formats" > "$work/want.txt" 2>/dev/null || true
  cmp "$work/got.txt" "$work/want.txt" || fail "drip-fed pipe differs from the reference"
  echo "ok: $(wc -l < "$work/want-c.txt") lines ($unknown via rule 0) identical to the reference, mapped, piped, drip-fed, with and without -c" ;;

format_errors)
  # A line that is not a rule: the reference dies before any output.
  printf '0x00010002 ok %%(1)d\n  0x1 leading blank\n' > "$work/bad.formats"
  set +e
  "$ts" kvmtrace-format "$work/bad.formats" < "$data/sample.bin" > "$work/got.txt" 2> "$work/err.txt"
  rc=$?; set -e
  [ $rc -eq 1 ] || fail "bad rules: exit $rc, expected 1"
  [ ! -s "$work/got.txt" ] || fail "bad rules: printed output"
  grep -q "bad.formats:2:" "$work/err.txt" || fail "bad rules: message does not name line 2: $(cat "$work/err.txt")"
  # A rule that raises (unknown key) when the first VMEXIT reaches it: the
  # lines before it are printed, then exit 1.
  { grep -v '^0x00010002' "$formats"; echo '0x00010002 %(tsc)d %(nokey)d'; } > "$work/raise.formats"
  set +e
  reference "$work/raise.formats" < "$data/sample.bin" > "$work/want.txt" 2>/dev/null
  "$ts" kvmtrace-format "$work/raise.formats" < "$data/sample.bin" > "$work/got.txt" 2> "$work/err.txt"
  rc=$?; set -e
  [ $rc -eq 1 ] || fail "raising rule: exit $rc, expected 1"
  cmp "$work/got.txt" "$work/want.txt" || fail "raising rule: output differs from the reference's"
  grep -q "KeyError: 'nokey'" "$work/err.txt" || fail "raising rule: $(cat "$work/err.txt")"
  before=$(wc -l < "$work/got.txt")
  [ "$before" -gt 0 ] || fail "raising rule: no lines before the first VMEXIT"
  # Empty input: nothing, success (as the reference).
  "$ts" kvmtrace-format "$formats" < /dev/null > "$work/got.txt" || fail "empty input failed"
  [ ! -s "$work/got.txt" ] || fail "empty input printed something"
  echo "ok: bad rules (exit 1, line named), a raising rule ($before lines first, as the reference), empty input" ;;

truncated)
  size=$(wc -c < "$data/sample.bin")
  head -c $((size - 5)) "$data/sample.bin" > "$work/cut.bin"
  # Oracle for the offset: walk the record headers.
  last=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read(); o = 0; last = 0
while o + 12 <= len(b):
    h = struct.unpack_from("<I", b, o)[0]; last = o
    o += 12 + 8 * (h >> 31) + 4 * (h >> 28 & 7)
print(last)' "$work/cut.bin")
  set +e
  reference "$formats" < "$work/cut.bin" > "$work/want.txt" 2>/dev/null
  "$ts" kvmtrace-format "$formats" < "$work/cut.bin" > "$work/got.txt" 2> "$work/err.txt"
  rc=$?
  cat "$work/cut.bin" | "$ts" kvmtrace-format "$formats" > "$work/got-pipe.txt" 2> "$work/err-pipe.txt"
  rc_pipe=$?; set -e
  cat "$work/err.txt"
  [ $rc -eq 1 ] && [ $rc_pipe -eq 1 ] || fail "exit $rc / $rc_pipe, expected 1"
  cmp "$work/got.txt" "$work/want.txt" || fail "complete records differ from the reference's"
  cmp "$work/got-pipe.txt" "$work/want.txt" || fail "piped: complete records differ"
  [ "$(wc -l < "$work/got.txt")" -eq 1999 ] || fail "expected the 1999 complete records"
  grep -q "byte offset $last: truncated record" "$work/err.txt" || fail "no offset $last in the message"
  grep -q "byte offset $last: truncated record" "$work/err-pipe.txt" || fail "piped: no offset $last"
  set +e
  "$ts" import -o "$work/s" "$work/cut.bin" 2> "$work/err.txt"
  rc=$?; set -e
  cat "$work/err.txt"
  [ $rc -eq 1 ] || fail "import: exit $rc, expected 1"
  grep -q "cut.bin: byte offset $last: truncated record" "$work/err.txt" || fail "import: message lacks file and offset"
  exits=$(head -n 1999 "$data/sample.expected.txt" | grep -c ' VMEXIT ')
  got=$("$ts" sql --csv "$work/s" "SELECT count(*) FROM kvm_exit" | tail -1)
  [ "$got" = "$exits" ] || fail "import kept $got exits, expected the $exits before the cut"
  got=$("$ts" sql --csv "$work/s" "SELECT events FROM source" | tail -1)
  [ "$got" = 1999 ] || fail "import counted $got events, expected 1999"
  echo "ok: cut record at byte offset $last reported by both commands, the 1999 records before it kept" ;;

import)
  n=$1; seed=$2; mhz=${3:-}
  if [ "$n" = 0 ]; then   # the sample: its expected text is the oracle
    cp "$data/sample.bin" "$work/in.bin"; cp "$data/sample.expected.txt" "$work/text.txt"
  else
    python3 "$gen" "$n" "$seed" > "$work/in.bin"; reference "$formats" < "$work/in.bin" > "$work/text.txt"
  fi
  "$ts" import ${mhz:+--tsc-mhz $mhz} -o "$work/s" "$work/in.bin"
  q() { "$ts" sql --csv "$work/s" "$1" | tail -n +2; }
  # Counts by grep -c.
  [ "$(q 'SELECT count(*) FROM kvm_exit')" = "$(grep -c ' VMEXIT ' "$work/text.txt")" ] || fail "kvm_exit count"
  [ "$(q 'SELECT count(*) FROM page_fault')" = "$(grep -c ' PAGE_FAULT ' "$work/text.txt")" ] || fail "page_fault count"
  # The text through awk: a record's ts is its TSC, or the last TSC
  # printed before it when it has none (the text shows 0); exits pair with
  # the next entry of the same (vcpu, pid).  TSCs stay strings (exact).
  awk -v exits="$work/exits.want" -v faults="$work/faults.want" -v events="$work/events.want" '
    { if ($1 != "0") last = $1; t = (last == "" ? "0" : last)
      rest = $0; sub(/^[^)]*\) /, "", rest); split(rest, f, " "); key = f[4] " " f[7] }
    f[1] == "VMEXIT" {
      n++; ts[n] = t; dur[n] = ""; if (key in pend) delete pend[key]; pend[key] = n
      code = f[11]; sub(/,$/, "", code)
      line[n] = t "," ($1 == "0" ? "" : $1) "," code "," f[14] "," f[4] "," f[7]; next }
    f[1] == "VMENTRY" && (key in pend) {
      dur[pend[key]] = sprintf("%.0f", t - ts[pend[key]]); delete pend[key]; next }
    f[1] == "PAGE_FAULT" { ec = f[11]; sub(/,$/, "", ec); print t "," ec "," f[14] > faults; next }
    { print t "," rest > events }
    END { for (i = 1; i <= n; i++) print line[i] "," dur[i] > exits }' "$work/text.txt"
  if [ -z "$mhz" ]; then
    q "SELECT ts, coalesce(tsc, ''), printf('0x%08x', exit_code), printf('0x%08x', rip & 4294967295),
         printf('0x%08x', vcpu), printf('0x%08x', tid), coalesce(dur, '') FROM kvm_exit ORDER BY id" > "$work/exits.got"
    q "SELECT ts, printf('0x%08x', error_code), printf('0x%08x', address) FROM page_fault ORDER BY id" > "$work/faults.got"
    q "SELECT ts, name || ' ' || args FROM ftrace_event ORDER BY id" |
      sed 's/^\([0-9]*\),"\(.*\)"$/\1,\2/; s/""/"/g' > "$work/events.got"
    for t in exits faults events; do
      diff "$work/$t.want" "$work/$t.got" > "$work/$t.diff" || { head "$work/$t.diff"; fail "$t rows differ from the reference's text"; }
    done
    echo "ok: $(wc -l < "$work/exits.got") kvm_exit (ts, tsc, exit code, rip, vcpu, tid, dur), $(wc -l < "$work/faults.got") page_fault, $(wc -l < "$work/events.got") ftrace_event (ts, name, args) rows equal the reference's text"
  else
    # ts = floor(tsc * 1000 / MHZ) exactly, MHZ as the double the CLI parses.
    q "SELECT ts, tsc FROM kvm_exit WHERE tsc IS NOT NULL" | python3 -c '
import sys
from fractions import Fraction
rate = Fraction(float(sys.argv[1])); bad = n = 0
for line in sys.stdin:
    ts, tsc = map(int, line.split(",")); n += 1
    if ts != (tsc * 1000 * rate.denominator) // rate.numerator: bad += 1
if bad or not n: sys.exit("%d of %d ts values are not floor(tsc * 1000 / MHZ)" % (bad, n))
print("ok: %d exits: ts = floor(tsc * 1000 / %s) exactly" % (n, sys.argv[1]))' "$mhz"
    [ "$(q "SELECT clock = 'tsc' AND tsc_mhz = $mhz FROM source")" = 1 ] ||
      fail "source row (clock, tsc_mhz): $(q 'SELECT clock, tsc_mhz FROM source')"
    [ "$(q 'SELECT count(*) FROM kvm_exit')" = "$(grep -c ' VMEXIT ' "$work/text.txt")" ] || fail "kvm_exit count"
  fi ;;

detect)
  "$ts" import -o "$work/s" "$data/sample.bin" 2> "$work/err.txt"
  grep -q "(kvmtrace)" "$work/err.txt" || fail "sample.bin not detected: $(cat "$work/err.txt")"
  printf '{"traceEvents":[{"name":"a","ph":"B","ts":1,"pid":1,"tid":1}]}\n' > "$work/a.json"
  printf '[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1}]\n' > "$work/b.json"
  printf '\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n' > "$work/newlines.txt"
  head -c 4096 /dev/zero > "$work/zeros.bin"
  claimed=0
  for f in "$work/a.json" "$work/b.json" "$work/newlines.txt" "$work/zeros.bin" \
           "$shared"/data/capture-1/*.txt "$shared"/data/capture-1/*.json \
           "$shared"/data/capture-1/*.dat "$(dirname "$0")"/../Data/*.txt; do
    rm -rf "$work/t"
    "$ts" import -o "$work/t" "$f" > /dev/null 2> "$work/err.txt" || true
    if grep -q "(kvmtrace)" "$work/err.txt" ||
       { [ -d "$work/t" ] && [ "$("$ts" sql --csv "$work/t" "SELECT count(*) FROM source WHERE format = 'kvmtrace'" 2>/dev/null | tail -1)" != 0 ] &&
         [ -n "$("$ts" sql --csv "$work/t" "SELECT 1 FROM source" 2>/dev/null | tail -1)" ]; }; then
      echo "claimed as kvmtrace: $f"; claimed=1
    fi
  done
  [ $claimed = 0 ] || fail "kvmtrace detection claimed other formats"
  echo "ok: sample.bin detected as kvmtrace; text, JSON, trace.dat and zeros are not" ;;

damaged)
  # Set the top bit of the TSC of the first record after the tenth that has
  # one (no TSC has it): an error at that record's offset, the ones before
  # it kept.
  where=$(python3 -c '
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read()); o = 0; n = 0
while True:
    h = struct.unpack_from("<I", b, o)[0]
    if n >= 10 and h >> 31: break
    o += 12 + 8 * (h >> 31) + 4 * (h >> 28 & 7); n += 1
b[o + 19] |= 0x80
open(sys.argv[2], "wb").write(b); print(o, n)' "$data/sample.bin" "$work/bad.bin")
  offset=${where% *}; kept=${where#* }
  set +e
  "$ts" import --format kvmtrace -o "$work/s" "$work/bad.bin" 2> "$work/err.txt"
  rc=$?; set -e
  cat "$work/err.txt"
  [ $rc -eq 1 ] || fail "exit $rc, expected 1"
  grep -q "bad.bin: byte offset $offset: TSC above 2^63" "$work/err.txt" || fail "message lacks file, offset $offset and reason"
  got=$("$ts" sql --csv "$work/s" "SELECT events FROM source" | tail -1)
  [ "$got" = "$kept" ] || fail "kept $got events, expected the $kept before the bad record"
  echo "ok: a TSC with the top bit set at byte offset $offset: exit 1, file and offset named, $kept earlier records kept" ;;

*) echo "unknown case $case"; exit 2 ;;
esac
