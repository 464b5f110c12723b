#!/usr/bin/env python3
"""A perf.data of tracepoint samples made K times longer: its data section
repeated K times, each copy's sample times moved past the copy before (the
FINISHED_ROUND records kept, the feature table moved after the new data).
For the benchmarks of perf.data import and `tracestore script` at 10^7 and
10^8 events.

usage: perf_data_repeat.py IN.data OUT.data K
"""
import struct, sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = open(src, 'rb').read()
hsize, attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<QQQQQQ', d, 8)
stype = struct.unpack_from('<Q', d, attrs_off + 24)[0]
# Where a SAMPLE's time is: after IDENTIFIER, IP and TID, when present.
tpos = 8 + 8 * sum(1 for b in (16, 0, 1) if stype & (1 << b))
# One template of the samples and rounds; each copy patches the times.
body, where, times, off = bytearray(), [], [], data_off
while off < data_off + data_size:
    typ, misc, size = struct.unpack_from('<IHH', d, off)
    if typ in (9, 68):
        if typ == 9:
            where.append(len(body) + tpos)
            times.append(struct.unpack_from('<Q', d, off + tpos)[0])
        body += d[off:off + size]
    off += size
span = max(times) - min(times) + 1
feat_off = data_off + data_size
with open(dst, 'wb') as f:
    f.write(d[:data_off])
    f.write(d[data_off:data_off + data_size])
    for c in range(1, k):
        shift = c * span
        for at, t in zip(where, times):
            struct.pack_into('<Q', body, at, t + shift)
        f.write(body)
    new_size = f.tell() - data_off
    f.write(d[feat_off:])
# The data section's size, and the feature table's offsets, move.
with open(dst, 'r+b') as f:
    f.seek(48); f.write(struct.pack('<Q', new_size))
    shift = new_size - data_size
    feats = bin(int.from_bytes(d[72:104], 'little')).count('1')
    f.seek(data_off + new_size)
    table = bytearray(f.read(16 * feats))
    for i in range(feats):
        o = struct.unpack_from('<Q', table, 16 * i)[0]
        struct.pack_into('<Q', table, 16 * i, o + shift)
    f.seek(data_off + new_size); f.write(table)
