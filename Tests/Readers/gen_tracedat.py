#!/usr/bin/env python3
"""Writes valid trace-cmd trace.dat (version 6) files for tests and benchmarks.

usage:
  gen_tracedat.py synthetic TEMPLATE.dat OUT.dat [EVENTS [SEED]]
  gen_tracedat.py replicate TEMPLATE.dat OUT.dat COPIES

TEMPLATE is a real trace.dat of version 6 (capture-1/trace-v6.dat): its
header_page/header_event, event format files and kallsyms are what the
output describes its events with.

synthetic  EVENTS events (default 3000) on four CPUs, built field by field
           from the template's format files: KVM exits and entries (some
           unpaired), page faults with user and kernel ips, context
           switches between tasks the saved cmdlines do not all name,
           wakeups, execs with long file names (records longer than 112
           bytes), and events whose print fmts use casts, indexing,
           %p/%ps, __print_flags/__print_symbolic with enum names, negative
           numbers.  Pages also hold time extends, absolute time stamps,
           padding (discarded events) and a missed-events count.  Only the
           formats used are kept and kallsyms is cut down, so the file is
           small enough for every-prefix tests.
replicate  the template's CPU pages COPIES times, each copy shifted in time
           past the previous one, with all of its metadata: the real event
           mix at any size (for benchmarks).

trace-cmd report reads the output (it is the oracle the tests use); other
versions and compressions come from `trace-cmd convert`.
"""
import random
import re
import struct
import sys

PAGE = 4096
DATA = 4080            # bytes of event data per page (header_page)


def u16(v): return struct.pack('<H', v)
def u32(v): return struct.pack('<I', v & 0xffffffff)
def u64(v): return struct.pack('<Q', v & 0xffffffffffffffff)


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def take(self, n):
        b = self.d[self.p:self.p + n]
        assert len(b) == n, 'template truncated'
        self.p += n
        return b

    def u32(self): return struct.unpack('<I', self.take(4))[0]
    def u64(self): return struct.unpack('<Q', self.take(8))[0]

    def cstr(self):
        e = self.d.index(b'\0', self.p)
        s = self.d[self.p:e]
        self.p = e + 1
        return s


def read_template(path):
    d = open(path, 'rb').read()
    r = Reader(d)
    assert r.take(10) == b'\x17\x08Dtracing', 'not a trace.dat'
    assert r.cstr() == b'6', 'the template must be file format version 6'
    r.take(2)
    page = r.u32()
    assert page == PAGE
    t = {}
    assert r.cstr() == b'header_page'
    t['header_page'] = r.take(r.u64())
    assert r.cstr() == b'header_event'
    t['header_event'] = r.take(r.u64())
    t['ftrace'] = [r.take(r.u64()) for _ in range(r.u32())]
    systems = []
    for _ in range(r.u32()):
        name = r.cstr()
        systems.append((name, [r.take(r.u64()) for _ in range(r.u32())]))
    t['systems'] = systems
    t['kallsyms'] = r.take(r.u32())
    t['printk'] = r.take(r.u32())
    t['cmdlines'] = r.take(r.u64())
    cpus = r.u32()
    options = []
    tag = r.take(10)
    if tag == b'options  \0':
        while True:
            oid = struct.unpack('<H', r.take(2))[0]
            if oid == 0:
                break
            options.append((oid, r.take(r.u32())))
        tag = r.take(10)
    assert tag == b'flyrecord\0'
    t['cpus'] = []
    for _ in range(cpus):
        off, size = r.u64(), r.u64()
        t['cpus'].append(d[off:off + size])
    t['options'] = options
    return t


def parse_format(text):
    text = text.decode()
    fmt = {'name': re.search(r'^name: (\S+)', text, re.M).group(1),
           'id': int(re.search(r'^ID: (\d+)', text, re.M).group(1)), 'fields': {}}
    for m in re.finditer(r'field:(.*?);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d+);', text):
        decl, off, size, signed = m.groups()
        name = re.sub(r'\[.*\]$', '', decl).split()[-1]
        fmt['fields'][name] = (int(off), int(size), decl.startswith('__data_loc'))
    fmt['size'] = max(o + s for o, s, _ in fmt['fields'].values())
    return fmt


def write_v6(out, t, systems, kallsyms, cmdlines, cpu_data, clock=b'[local]'):
    b = bytearray(b'\x17\x08Dtracing6\0' + bytes([0, 8]) + u32(PAGE))
    b += b'header_page\0' + u64(len(t['header_page'])) + t['header_page']
    b += b'header_event\0' + u64(len(t['header_event'])) + t['header_event']
    b += u32(len(t['ftrace'])) + b''.join(u64(len(f)) + f for f in t['ftrace'])
    b += u32(len(systems))
    for name, fmts in systems:
        b += name + b'\0' + u32(len(fmts)) + b''.join(u64(len(f)) + f for f in fmts)
    b += u32(len(kallsyms)) + kallsyms
    b += u32(len(t['printk'])) + t['printk']
    b += u64(len(cmdlines)) + cmdlines
    b += u32(len(cpu_data))
    # The clock, uname and version options; not the template's CPU stats.
    b += b'options  \0' + b''.join(u16(i) + u32(len(v)) + v for i, v in t['options']
                                  if i in (4, 5, 9)) + u16(0)
    b += b'flyrecord\0'
    table = len(b)
    b += b'\0' * (16 * len(cpu_data))
    b += u64(len(clock)) + clock
    for i, data in enumerate(cpu_data):
        b += b'\0' * (-len(b) % PAGE)
        struct.pack_into('<QQ', b, table + 16 * i, len(b), len(data))
        b += data
    open(out, 'wb').write(b)


class Pages:
    """Packs ring-buffer records into pages, as the kernel lays them out."""

    def __init__(self):
        self.pages, self.cur, self.base, self.last, self.lost = [], bytearray(), 0, 0, 0

    def _flush(self):
        if self.cur or self.lost:
            commit = len(self.cur)
            extra = b''
            if self.lost:
                commit |= (1 << 31) | (1 << 30)
                extra = u64(self.lost)
                self.lost = 0
            page = u64(self.base) + u64(commit) + self.cur + extra
            self.pages.append(page + b'\0' * (PAGE - len(page)))
        self.cur = bytearray()

    def _room(self, n, ts):
        if len(self.cur) + n + 8 + 8 > DATA:   # room for a lost count too
            self._flush()
        if not self.cur:
            self.base = self.last = ts

    def event(self, ts, payload, extend=False, stamp=False, pad=False):
        payload = payload + b'\0' * (-len(payload) % 4)
        n = len(payload)
        rec = bytearray()
        self._room(n + 32, ts)
        delta = ts - self.last
        if stamp:
            rec += u32(((ts & ((1 << 27) - 1)) << 5) | 31) + u32(ts >> 27)
            delta = 0
        elif delta >= (1 << 27) or extend:
            rec += u32(((delta & ((1 << 27) - 1)) << 5) | 30) + u32(delta >> 27)
            delta = 0
        if pad:
            # A discarded event: padding that keeps a share of the delta.
            step = 1 if delta >= 1 else 0
            rec += u32((step << 5) | 29) + u32(12) + b'\xee' * 8
            delta -= step
        if 0 < n <= 112:
            rec += u32((delta << 5) | (n // 4)) + payload
        else:
            rec += u32(delta << 5) + u32(n + 4) + payload
        self.cur += rec
        self.last = ts

    def lose(self, count):
        self._flush()
        self.lost = count

    def data(self):
        self._flush()
        return b''.join(self.pages)


class Builder:
    def __init__(self, formats):
        self.f = formats

    def record(self, name, pid, values, strings=None, flags=0, pc=0):
        fmt = self.f[name]
        size = fmt['size']
        b = bytearray(size)
        struct.pack_into('<HBBi', b, 0, fmt['id'], flags, pc, pid)
        for key in list(values) + list(strings or {}):
            assert key in fmt['fields'], f'{name} has no field {key}'
        for key, (off, fsize, dyn) in fmt['fields'].items():
            if key.startswith('common_'):
                continue
            if dyn:
                s = (strings or {}).get(key, b'')
                s = s + b'\0'
                loc = len(b)
                b += s
                struct.pack_into('<I', b, off, (len(s) << 16) | loc)
                continue
            v = values.get(key, 0)
            if isinstance(v, bytes):
                v = v[:fsize]
                b[off:off + len(v)] = v
            elif fsize in (1, 2, 4, 8):
                b[off:off + fsize] = (v & ((1 << (8 * fsize)) - 1)).to_bytes(fsize, 'little')
        return bytes(b)


WANTED = {
    b'exceptions': ['page_fault_user', 'page_fault_kernel'],
    b'kvm': ['kvm_exit', 'kvm_entry', 'kvm_pio', 'kvm_fpu', 'kvm_emulate_insn',
             'kvm_userspace_exit', 'kvm_msr', 'kvm_page_fault', 'kvm_cpuid'],
    b'sched': ['sched_switch', 'sched_wakeup', 'sched_process_exec', 'sched_process_exit'],
    b'irq': ['irq_handler_entry', 'softirq_entry'],
    b'raw_syscalls': ['sys_enter'],
    b'workqueue': ['workqueue_execute_start'],
    b'signal': ['signal_generate'],
    b'timer': ['timer_start', 'hrtimer_start', 'hrtimer_expire_entry'],
    b'kmem': ['mm_page_alloc'],
    b'writeback': ['writeback_dirty_inode'],
}


def synthetic(t, out, count, seed):
    rnd = random.Random(seed)
    systems, formats = [], {}
    for name, fmts in t['systems']:
        keep = []
        for f in fmts:
            p = parse_format(f)
            if p['name'] in WANTED.get(name, []):
                keep.append(f)
                formats[p['name']] = p
        if keep:
            systems.append((name, keep))

    # A small kallsyms: some text symbols around the addresses used, with
    # two names at one address, and data symbols ('A' entries are ignored).
    syms = [(0xffffffff81000000, 'T', '_stext'), (0xffffffff81000000, 'T', '_text'),
            (0xffffffff81234000, 't', 'handle_mm_fault'), (0xffffffff81234400, 'T', 'do_user_addr_fault'),
            (0xffffffff81300000, 'T', '__put_user_4'), (0xffffffff81300040, 'T', '__put_user_8'),
            (0xffffffff81400000, 'T', 'process_one_work'), (0xffffffff81400800, 'T', 'tick_sched_timer'),
            (0xffffffff81500000, 'T', 'hrtimer_wakeup'), (0xffffffff81500100, 't', 'it_real_fn'),
            (0x0000000000001000, 'A', 'fixed_percpu_data'),
            (0xffffffff81600000, 'T', '_etext')]
    kallsyms = ''.join(f'{a:016x} {k} {n}\n' for a, k, n in syms).encode()

    tasks = {100: b'qemu-kvm', 101: b'qemu-kvm', 200: b'touchpages', 300: b'ls',
             400: b'kworker/0:1', 500: b'bash', 600: b'unnamed-task'}
    cmdlines = b''.join(b'%d %s\n' % (p, c) for p, c in tasks.items() if p not in (300, 600))

    B = Builder(formats)
    ncpu = 4
    pages = [Pages() for _ in range(ncpu)]
    ts = [1000000000 + 1000 * i for i in range(ncpu)]
    running = [0, 500, 200, 400]
    pending_exit = set()
    made = 0
    kips = [0xffffffff81300000, 0xffffffff81300040, 0xffffffff81234123, 0xffffffff81600000,
            0xffffffff81600010, 0xffffffff81000000]

    def emit(cpu, rec, **kw):
        nonlocal made
        ts[cpu] += rnd.choice([0, 1, 7, 250, 3000, 90000])
        if rnd.random() < 0.002:
            ts[cpu] += (1 << 27) + rnd.randrange(1 << 20)        # a time extend
        pages[cpu].event(ts[cpu], rec, **kw)
        made += 1

    while made < count:
        cpu = rnd.randrange(ncpu)
        pid = running[cpu]
        r = rnd.random()
        kw = {}
        if rnd.random() < 0.003:
            kw['stamp'] = True
        elif rnd.random() < 0.003:
            kw['pad'] = True
        elif rnd.random() < 0.003:
            kw['extend'] = True
        if r < 0.08:
            nxt = rnd.choice(list(tasks) + [0])
            state = rnd.choice([0, 1, 2, 0x80, 0x100, 0x101, 0x10, 0x20, 0x40, 3])
            rec = B.record('sched_switch', pid, {
                'prev_comm': tasks.get(pid, b'swapper/%d' % cpu), 'prev_pid': pid,
                'prev_prio': rnd.choice([120, 100, -51 & 0xffffffff]),
                'prev_state': state, 'next_comm': tasks.get(nxt, b'swapper/%d' % cpu),
                'next_pid': nxt, 'next_prio': 120})
            emit(cpu, rec, **kw)
            running[cpu] = nxt
        elif r < 0.40 and pid in (100, 101):
            vcpu = pid - 100
            entry = (pid in pending_exit and rnd.random() < 0.9) or \
                    (pid not in pending_exit and rnd.random() < 0.02)
            if entry:
                # An entry after an exit completes it; one without is kept
                # as an event of its own.
                pending_exit.discard(pid)
                emit(cpu, B.record('kvm_entry', pid, {
                    'vcpu_id': vcpu, 'rip': 0xfff0 + rnd.randrange(64),
                    'intr_info': 0, 'error_code': 0}), **kw)
            else:
                reason = rnd.choice([1, 12, 30, 48, 32, 10, 7, 44, 0x80000021])
                emit(cpu, B.record('kvm_exit', pid, {
                    'exit_reason': reason, 'guest_rip': 0xffffffff81000000 + rnd.randrange(1 << 20),
                    'isa': 1, 'info1': rnd.randrange(1 << 40), 'info2': rnd.choice([0, 0x800000fb]),
                    'intr_info': 0x800000ec, 'error_code': 0, 'vcpu_id': vcpu,
                    'requests': 0}), **kw)
                pending_exit.add(pid)
                sub = rnd.random()
                if sub < 0.3:
                    emit(cpu, B.record('kvm_pio', pid, {'rw': rnd.randrange(2), 'port': 0x3f8,
                                                       'size': 1, 'count': rnd.choice([1, 2]),
                                                       'val': rnd.randrange(256)}))
                elif sub < 0.5:
                    n = rnd.randrange(1, 16)
                    emit(cpu, B.record('kvm_emulate_insn', pid, {
                        'rip': 0x1000 + rnd.randrange(256), 'csbase': rnd.choice([0, 0xf0000]),
                        'len': n, 'insn': bytes(rnd.randrange(256) for _ in range(15)),
                        'flags': rnd.choice([0, 1, 3, 5, 9]), 'failed': rnd.random() < 0.1}))
                elif sub < 0.6:
                    emit(cpu, B.record('kvm_msr', pid, {'write': rnd.randrange(2), 'ecx': 0x10,
                                                       'data': rnd.randrange(1 << 48),
                                                       'exception': rnd.random() < 0.2}))
                elif sub < 0.7:
                    emit(cpu, B.record('kvm_page_fault', pid, {
                        'vcpu_id': vcpu, 'guest_rip': 0xffffffff81000000,
                        'fault_address': rnd.randrange(1 << 40), 'error_code': 0x181}))
                elif sub < 0.8:
                    emit(cpu, B.record('kvm_userspace_exit', pid, {
                        'reason': rnd.choice([2, 6, 99]), 'errno': rnd.choice([0, 0, -4, -22])}))
                elif sub < 0.85:
                    emit(cpu, B.record('kvm_fpu', pid, {'load': rnd.randrange(2)}))
                elif sub < 0.9:
                    emit(cpu, B.record('kvm_cpuid', pid, {
                        'function': 0xd, 'index': 1, 'rax': 0x1f, 'rbx': 0x240, 'rcx': 0,
                        'rdx': 0, 'found': rnd.randrange(2), 'used_max_basic': rnd.randrange(2)}))
        elif r < 0.62:
            user = rnd.random() < 0.8
            ip = rnd.randrange(0x400000, 1 << 47) if user else rnd.choice(kips)
            emit(cpu, B.record('page_fault_user' if user else 'page_fault_kernel', pid, {
                'address': rnd.choice([rnd.randrange(1 << 47), 0xffffffff81300004]), 'ip': ip,
                'error_code': rnd.choice([4, 6, 7, 0x14, 0x15, 2, 3, 0])}), **kw)
        elif r < 0.66:
            target = rnd.choice(list(tasks))
            emit(cpu, B.record('sched_wakeup', pid, {
                'comm': tasks[target] + (b'-x' if target == 600 else b''), 'pid': target,
                'prio': 120, 'target_cpu': rnd.randrange(ncpu)}))
        elif r < 0.67:
            name = b'/usr/lib/very/long/path/to/an/executable/that/makes/the/record/longer/than/' \
                   b'one/hundred/and/twelve/bytes/%d' % rnd.randrange(1000)
            emit(cpu, B.record('sched_process_exec', pid, {'pid': pid, 'old_pid': pid},
                               {'filename': name}))
        elif r < 0.68:
            emit(cpu, B.record('sched_process_exit', pid, {
                'comm': tasks.get(pid, b'x'), 'pid': pid, 'prio': 120,
                'group_dead': rnd.randrange(2)}))
        elif r < 0.72:
            emit(cpu, B.record('irq_handler_entry', pid, {'irq': rnd.choice([1, 11, 24])},
                               {'name': rnd.choice([b'i8042', b'virtio0-config', b''])}))
        elif r < 0.76:
            emit(cpu, B.record('softirq_entry', pid, {'vec': rnd.randrange(12)}))
        elif r < 0.80:
            emit(cpu, B.record('sys_enter', pid, {
                'id': rnd.choice([0, 1, 59, 231]),
                'args': b''.join(u64(rnd.choice([0, 1, 0xffffffffffffffff, rnd.randrange(1 << 40)]))
                                 for _ in range(6))}))
        elif r < 0.83:
            emit(cpu, B.record('workqueue_execute_start', pid, {
                'work': rnd.choice([0, 0xffff888003a1c000]),
                'function': rnd.choice([0xffffffff81400000, 0xffffffff81400123, 0xdeadbeef, 0])}))
        elif r < 0.86:
            emit(cpu, B.record('signal_generate', pid, {
                'sig': rnd.choice([9, 17]), 'errno': rnd.choice([0, -3]), 'code': rnd.choice([0, -6]),
                'comm': b'bash', 'pid': 500, 'group': rnd.randrange(2), 'result': rnd.randrange(4)}))
        elif r < 0.89:
            emit(cpu, B.record('timer_start', pid, {
                'timer': 0xffff888000123400, 'function': 0xffffffff81500100,
                'expires': 4294937000 + rnd.randrange(100), 'now': 4294937050,
                'bucket_expiry': 4294937100,
                'flags': rnd.choice([0, 0x40000, 0x1c0001, 0x8000002])}))
        elif r < 0.92:
            emit(cpu, B.record('hrtimer_start', pid, {
                'hrtimer': 0xffff888000123400, 'function': rnd.choice([0xffffffff81500000, 0xffffffff81400800]),
                'expires': 1000000000 + rnd.randrange(10 ** 6), 'softexpires': 1000000000,
                'mode': rnd.randrange(4)}))
        elif r < 0.94:
            emit(cpu, B.record('hrtimer_expire_entry', pid, {
                'hrtimer': 0xffff888000123400, 'now': ts[cpu],
                'function': rnd.choice([0xffffffff81400800, 0x12345678])}))
        elif r < 0.97:
            emit(cpu, B.record('mm_page_alloc', pid, {
                'pfn': rnd.choice([0x1234, 0xffffffffffffffff]), 'order': rnd.randrange(3),
                'gfp_flags': rnd.choice([0, 0xcc0, 0x400dc0]), 'migratetype': 1}))
        else:
            emit(cpu, B.record('writeback_dirty_inode', pid, {
                'name': b'253:0', 'ino': rnd.randrange(1 << 20), 'state': rnd.choice([0, 1, 7, 0x800]),
                'flags': rnd.choice([1, 2, 4])}))
        if rnd.random() < 0.001:
            pages[cpu].lose(rnd.randrange(1, 50))

    write_v6(out, t, systems, kallsyms, cmdlines, [p.data() for p in pages])


def replicate(t, out, copies):
    """The template's pages, COPIES times, each copy later than the last."""
    first = min(struct.unpack_from('<Q', d, 0)[0] for d in t['cpus'] if d)
    last = 0
    for d in t['cpus']:
        for off in range(0, len(d), PAGE):
            last = max(last, struct.unpack_from('<Q', d, off)[0])
    span = last - first + 10 ** 8
    cpu_data = []
    for d in t['cpus']:
        pages = [bytearray(d[o:o + PAGE]) for o in range(0, len(d), PAGE)]
        for p in pages:       # absolute time stamps would not shift: none allowed
            size = struct.unpack_from('<Q', p, 8)[0] & ((1 << 27) - 1)
            o = 16
            while o < 16 + size:
                h = struct.unpack_from('<I', p, o)[0]
                tl = h & 31
                assert tl != 31, 'template page holds an absolute time stamp'
                if tl == 0:
                    o += 8 + ((struct.unpack_from('<I', p, o + 4)[0] - 4 + 3) & ~3)
                elif tl == 29:
                    o += 4 + struct.unpack_from('<I', p, o + 4)[0]
                elif tl == 30:
                    o += 8
                else:
                    o += 4 + 4 * tl
        out_pages = bytearray()
        for c in range(copies):
            for p in pages:
                q = bytearray(p)
                struct.pack_into('<Q', q, 0, struct.unpack_from('<Q', p, 0)[0] + c * span)
                out_pages += q
        cpu_data.append(bytes(out_pages))
    write_v6(out, t, t['systems'], t['kallsyms'], t['cmdlines'], cpu_data)


def main():
    mode, template, out = sys.argv[1:4]
    t = read_template(template)
    if mode == 'synthetic':
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
        seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
        synthetic(t, out, count, seed)
    elif mode == 'replicate':
        replicate(t, out, int(sys.argv[4]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
