#!/bin/sh
# ETW (.etl) import speed next to the ETW oracle's in the same run.
# usage: bench_etw.sh TRACESTORE SHARED_DIR [WORKDIR] [COPIES]
# Inputs: PerfView's net.4.5.2.x64.etl (shared/data/etw, unzipped here; 4.9 MB,
# 359 XPRESS buffers that decompress to 23 MB) for the ratio to the oracle
# (etw_pagefaults.py under Debian's /usr/bin/python3, one run: it takes about
# 20 s), and a larger log made of its header buffer and COPIES (default 40)
# copies of its other buffers, for throughput.  "Decompressed" is the sum of
# SavedOffset - 72 over the compressed buffers, read from their headers.
# The copies repeat the same timestamps, so the import's merge by time
# interleaves all of them; a third log, for memory, is TIMED (default 10)
# copies whose timestamps go on where the previous copy's ended, its
# buffers decompressed (shared/tools/etw-oracle/xpress_lz77.py) and stored
# plain, as a long recording would have them.
# Prints result lines for the table `etw` (bench_lib.sh).
set -eu
. "$(dirname "$0")/bench_lib.sh"
ts=$1; shared=$2; work=${3:-${TMPDIR:-/tmp}/tracer-bench-etw}; copies=${4:-40}; timed=${5:-10}
mkdir -p "$work"
small=$work/net.etl; big=$work/net-x$copies.etl; long=$work/net-timed-x$timed.etl
python3 - "$shared/data/etw/net.4.5.2.x64.etl.zip" "$small" "$big" "$copies" <<'PY'
import os, struct, sys, zipfile
src, small, big, copies = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
if not os.path.exists(small):
    with zipfile.ZipFile(src) as z:
        open(small, 'wb').write(z.read(next(n for n in z.namelist() if n.endswith('.etl'))))
d = open(small, 'rb').read()
first = struct.unpack_from('<I', d, 0)[0]
if not os.path.exists(big):
    with open(big, 'wb') as f:
        f.write(d[:first])
        for _ in range(copies):
            f.write(d[first:])
for path in (small, big):
    d = open(path, 'rb').read(); off = 0; n = 0
    while off + 72 <= len(d):
        bs, so = struct.unpack_from('<II', d, off)
        if struct.unpack_from('<H', d, off + 52)[0] & 0x40:
            n += so - 72
        off += bs
    open(path + '.decompressed', 'w').write('%d\n' % n)
PY
[ -e "$long" ] || python3 - "$shared/tools/etw-oracle" "$small" "$long" "$timed" <<'PY'
import struct, sys
sys.path.insert(0, sys.argv[1])
from xpress_lz77 import decompress
small, long, timed = sys.argv[2], sys.argv[3], int(sys.argv[4])
d = open(small, 'rb').read()
first = struct.unpack_from('<I', d, 0)[0]
bufs, off, lo, hi = [], first, None, None
while off + 72 <= len(d):           # each buffer: header, plain events, ts positions
    bs, so = struct.unpack_from('<II', d, off)
    hdr = bytearray(d[off:off + 72])
    flag = struct.unpack_from('<H', hdr, 52)[0]
    body = bytearray(decompress(d[off + 72:off + bs]) if flag & 0x40 else d[off + 72:off + so])
    struct.pack_into('<II', hdr, 0, so, so); struct.pack_into('<H', hdr, 52, flag & ~0x40)
    at, a = [], 0
    while a + 4 <= len(body):
        h = body[a + 2]
        size = struct.unpack_from('<H', body, a if h >= 0x12 or h == 0x0a else a + 4)[0]
        pos = a + (8 if h in (0x10, 0x11) else 16)
        at.append(pos); v = struct.unpack_from('<q', body, pos)[0]
        lo = v if lo is None else min(lo, v); hi = v if hi is None else max(hi, v)
        a += (size + 7) & ~7
    bufs.append((hdr, body, at)); off += bs
span = hi - lo + 1
with open(long, 'wb') as f:
    f.write(d[:first])
    for k in range(timed):
        for hdr, body, at in bufs:
            b = bytearray(body)
            for pos in at:
                struct.pack_into('<q', b, pos, struct.unpack_from('<q', body, pos)[0] + k * span)
            f.write(hdr + b)
PY
bytes=$(wc -c < "$small"); bbytes=$(wc -c < "$big")
dec=$(cat "$small.decompressed"); bdec=$(cat "$big.decompressed")
cat "$small" "$big" > /dev/null

t_small=$(best 3 "$ts" import -o "$work/session" "$small")
n_small=$(events "$work/session")
t_big=$(best 3 "$ts" import -o "$work/session" "$big")
n_big=$(events "$work/session")
rm -rf "$work/session"; sync
rss=$(peak_rss "$ts" import -o "$work/session" "$big")
lbytes=$(wc -c < "$long"); cat "$long" > /dev/null
t_long=$(best 3 "$ts" import -o "$work/session" "$long")
n_long=$(events "$work/session")
rm -rf "$work/session"; sync
lrss=$(peak_rss "$ts" import -o "$work/session" "$long")
t_ref=$(best 1 /usr/bin/python3 "$shared/tools/etw-oracle/etw_pagefaults.py" "$small")

row() {  # row COMMAND BYTES DECOMPRESSED EVENTS SECONDS [EXTRA]
  bench_row etw "$1" "$(calc %.1f "$2 / 1e6") MB ($(calc %.0f "$3 / 1e6") MB decompressed)" \
    "$(calc %.3f "$5") s" \
    "$(calc %.1f "$2 / $5 / 1e6") MB/s, $(calc %.1f "$3 / $5 / 1e6") MB/s decompressed, $(calc %.3f "$4 / $5 / 1e6") M events/s${6:-}" \
    "$(calc %.0f "$t_ref / $5 * $4 / $n_small")x"
}
bench_head etw command input time throughput "vs the oracle"
row 'oracle `etw_pagefaults.py`' "$bytes" "$dec" "$n_small" "$t_ref"
row '`tracestore import`' "$bytes" "$dec" "$n_small" "$t_small"
row "**\`tracestore import\`** ($copies copies)" "$bbytes" "$bdec" "$n_big" "$t_big" ", peak RSS $rss MB"
row "\`tracestore import\` ($timed timed copies, plain)" "$lbytes" 0 "$n_long" "$t_long" ", peak RSS $lrss MB"
bench_note etw "Inputs: net.4.5.2.x64.etl ($n_small events), $copies copies of its buffers ($n_big events; the same timestamps again, so the merge by time interleaves every copy and keeps the whole log mapped) and $timed copies with time going on ($n_long events, buffers plain: nothing decompressed); tracestore best of 3 runs, the oracle one run; the last column is events a second over the oracle's."
rm -rf "$work/session"
