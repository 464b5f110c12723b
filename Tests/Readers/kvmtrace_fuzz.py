#!/usr/bin/env python3
"""Differential test of `tracestore kvmtrace-format` against the seed's rules
as a Python 3 reference decoder (the oracle): random formats files (random
%-specifiers, keys, flags, widths, precisions, conversions, literal text in
several scripts, and file-level oddities: CRLF and lone CR line ends, comments,
blank lines, Unicode whitespace, every int(ID, 0) spelling, bad lines) over
random record streams (missing TSCs, decreasing TSCs, n_data 0..7, unknown
ids, truncated tails), each with and without -c.  Every case must give the
same stdout bytes and the same success or failure as the reference.

usage: kvmtrace_fuzz.py TRACESTORE REFERENCE WORKDIR SEED CASES [MODE]
  MODE: specs (random specifiers, the default) | files (file-level oddities)
        | floats (only valid conversions, many records: float formatting)
"""
import os, random, struct, subprocess, sys

ts, ref, work, seed, cases = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
mode = sys.argv[6] if len(sys.argv) > 6 else 'specs'
rng = random.Random(seed)
os.makedirs(work, exist_ok=True)
env = dict(os.environ, LC_ALL='C.UTF-8', PYTHONIOENCODING='')
env.pop('PYTHONIOENCODING')

KNOWN = [0x00010001, 0x00010002, 0x00020001, 0x00020002, 0x00020004, 0x0002000C]
KEYS = ['tsc', 'reltsc', 'event', 'pid', 'vcpu', '1', '2', '3', '4', '5']

def records(n):
    out = bytearray()
    tsc = rng.randrange(0, 1 << rng.choice([8, 20, 40, 63, 64]))
    for _ in range(n):
        ev = rng.choice(KNOWN + [0, 0x00030007, rng.randrange(1 << 28)])
        nd = rng.choice([0, 1, 2, 3, 5, rng.randrange(8)])
        tsc_in = 0 if rng.random() < 0.15 else 1
        r = rng.random()
        if r < 0.1:
            tsc = rng.randrange(1 << 64)          # jumps, also backwards
        elif r < 0.15:
            tsc = 0
        else:
            tsc = min(tsc + rng.randrange(0, 50000), (1 << 64) - 1)
        out += struct.pack('<III', ev | (nd << 28) | (tsc_in << 31),
                           rng.choice([4242, 0, (1 << 32) - 1, rng.randrange(1 << 32)]),
                           rng.choice([0, 1, 3, rng.randrange(1 << 32)]))
        if tsc_in:
            out += struct.pack('<Q', tsc)
        for _ in range(nd):
            out += struct.pack('<I', rng.choice([0, 7, 65, 0x20ac, 0xdc85, 0x1f600,
                                                 rng.randrange(1 << 16), rng.randrange(1 << 32)]))
    if rng.random() < 0.2:
        out = out[:len(out) - rng.randrange(1, 20)] if len(out) > 20 else out
    return bytes(out)

LITERALS = ['', ' ', 'x', ' = ', '[ ', ' ]', '%%', 'é', '中文', '\U0001F600', '\t', '(', ')', '0x', '#']

def spec():
    s = '%'
    r = rng.random()
    if r < 0.93:
        key = rng.choice(KEYS)
    elif r < 0.96:
        key = None
    else:
        key = rng.choice(['zz', 'a(b)', '', 'TSC', '(tsc'])
    if key is not None:
        s += '(' + key + ')'
    s += ''.join(rng.choice('-+ #0') for _ in range(rng.choice([0, 0, 1, 2, 3])))
    if rng.random() < 0.5:
        s += str(rng.choice([1, 2, 5, 8, 12, 20, 25]))
    if rng.random() < 0.4:
        s += '.' + rng.choice(['', '0', '1', '3', '6', '12', '17', '20', '30', '60'])
    if rng.random() < 0.05:
        s += rng.choice('hlL')
    if rng.random() < 0.02:
        s += '*'
    conv = rng.choice('diuoxXeEfFgGsrasdxd')
    if key in ('vcpu',) or (key and rng.random() < 0.05):
        conv = rng.choice(conv + 'c')
    if rng.random() < 0.02:
        conv = rng.choice(['q', '%', 'é', 'lld', ''])
    return s + conv

def rule_text():
    parts = []
    for _ in range(rng.randrange(1, 6)):
        parts.append(rng.choice(LITERALS))
        parts.append(spec())
    parts.append(rng.choice(LITERALS))
    text = ''.join(parts)
    if not text or text[0].isspace():
        text = 'R' + text
    return text

def formats_specs():
    lines = []
    ids = KNOWN + [0] + [rng.randrange(1 << 28) for _ in range(2)]
    for ev in ids:
        if rng.random() < 0.85:
            lines.append('0x%08x %s' % (ev, rule_text()))
    rng.shuffle(lines)
    return ('\n'.join(lines) + '\n').encode('utf-8')

IDS_OK = ['0', '00', '0x0', '-0', '+0', '0_0', '0b0', '0o0', '0X10001', '0x1_0001', '0x_10001',
          '65537', '6_5537', '+65537', '0o200001', '0b10000000000000001', '0x00010002', '131073',
          '-65537', '99999999999999999999999', '0x10000001', '٣', '0x\uff11\uff10', '1' * 4300,
          '0x' + 'f' * 3571, hex(10**4300 - 1), '0b' + bin(10**4300 - 1)[2:], '0x' + '0' * 5000 + '1']
IDS_BAD = ['0x', '08', '1__0', '_1', '1_', '0b2', '0x1g', '1.0', '0x-1', '0' * 4301, 'x٣', hex(10**4300), '0x' + 'f' * 3572, '1' * 4301]
SPACES = [' ', '\t', '  ', '\x0b', '\x0c', '\x1c', '\x1f', '\u00a0', '\u3000', '\u2028', '\x85']

def formats_files():
    lines = []
    for _ in range(rng.randrange(1, 10)):
        r = rng.random()
        if r < 0.1:
            lines.append('')
        elif r < 0.15:
            lines.append(rng.choice(SPACES) * 2)
        elif r < 0.2:
            lines.append('# ' + rule_text())
        elif r < 0.23:
            lines.append(rng.choice(SPACES) + '0x0 x')        # leading blank: error
        elif r < 0.26:
            lines.append(rng.choice(IDS_OK))                  # no format: error
        elif r < 0.29:
            lines.append(rng.choice(IDS_BAD) + ' bad %(1)d')
        else:
            lines.append(rng.choice(IDS_OK) + ''.join(rng.choice(SPACES) for _ in range(rng.randrange(1, 3)))
                         + 'E%(event)x:%(1)d' + rng.choice(['', ' ', '\t', '\u00a0', ' %(pid)s']))
    text = ''
    for line in lines:
        text += line + rng.choice(['\n', '\n', '\r\n', '\r'])
    if rng.random() < 0.3:
        text = text.rstrip('\r\n')
    data = text.encode('utf-8')
    if rng.random() < 0.05:
        data = b'\xef\xbb\xbf' + data
    if rng.random() < 0.05:
        data += b'\xff\n'
    return data

def float_spec():
    key = rng.choice(['tsc', 'tsc', 'tsc', 'reltsc', '1', '2', 'event'])
    conv = rng.choice('eEfFgGsrdi' if key == 'tsc' else 'eEfFgGsrdixXo')
    s = '%(' + key + ')' + ''.join(rng.choice('-+ #0') for _ in range(rng.choice([0, 1, 2])))
    if rng.random() < 0.4:
        s += str(rng.randrange(1, 30))
    if rng.random() < 0.6:
        s += '.' + str(rng.choice([0, 1, 2, 5, 6, 10, 16, 17, 18, 25, 40, 70]))
    return s + conv

def formats_floats():
    lines = ['0x%08x ' % ev + ' '.join('[' + float_spec() + ']' for _ in range(rng.randrange(1, 8)))
             for ev in KNOWN + [0]]
    return ('\n'.join(lines) + '\n').encode('utf-8')

failures = 0
for case in range(cases):
    fmt = os.path.join(work, 'formats')
    binp = os.path.join(work, 'input.bin')
    with open(fmt, 'wb') as f:
        f.write({'specs': formats_specs, 'files': formats_files, 'floats': formats_floats}[mode]())
    with open(binp, 'wb') as f:
        f.write(records(rng.randrange(0, 400 if mode == 'floats' else 40)))
    for mhz in ([], ['-c', str(rng.choice([1, 3, 2400, 2893, -7, 10**15, 0, 3 * 10**18]))]):
        with open(binp, 'rb') as inp:
            want = subprocess.run([sys.executable, ref] + mhz + [fmt], stdin=inp,
                                  capture_output=True, env=env)
        with open(binp, 'rb') as inp:
            got = subprocess.run([ts, 'kvmtrace-format', fmt] + mhz, stdin=inp,
                                 capture_output=True, env=env)
        if got.returncode >= 128 or got.returncode < 0:
            print('case %d %s: tracestore died (status %d)' % (case, mhz, got.returncode))
            failures += 1
        elif want.stdout != got.stdout or (want.returncode == 0) != (got.returncode == 0):
            failures += 1
            print('case %d %s: differs (reference exit %d, tracestore exit %d)'
                  % (case, mhz, want.returncode, got.returncode))
            keep = os.path.join(work, 'fail-%d' % case)
            os.makedirs(keep, exist_ok=True)
            for name, data in (('formats', open(fmt, 'rb').read()), ('input.bin', open(binp, 'rb').read()),
                               ('want', want.stdout), ('got', got.stdout),
                               ('want.err', want.stderr), ('got.err', got.stderr)):
                open(os.path.join(keep, name), 'wb').write(data)
            print('  kept in', keep, '; args', mhz)
            if failures >= 5:
                sys.exit(1)
if failures:
    sys.exit(1)
print('ok: %d cases x 2 (with and without -c) identical to the reference' % cases)
