#!/usr/bin/env python3
"""Writes valid trace-cmd trace.dat (version 6) files for tests and benchmarks.

usage:
  gen_tracedat.py synthetic TEMPLATE.dat OUT.dat [EVENTS [SEED]]
  gen_tracedat.py replicate TEMPLATE.dat OUT.dat COPIES
  gen_tracedat.py plugins TEMPLATE.dat OUT.dat [SEED]

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
plugins    the events trace-cmd prints through libtraceevent's plugins and
           its bprint code, in the cases a live capture cannot make here
           (the function tracer and trace_printk are refused or absent on
           the test machine) or rarely makes: ftrace function (known and
           unknown ip and parent), func_repeats, kernel_stack, raw_data,
           bprint (every conversion trace_printk stores, escapes, a
           format missing from printk_formats), bputs, print with and
           without newlines; kmem call sites kallsyms cannot name,
           tlb_flush with every reason, sys_enter_futex with every
           command and flag, jbd2 with jiffies_to_msecs and an older
           format's jbd2_dev_to_name.
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


def write_v6(out, t, systems, kallsyms, cmdlines, cpu_data, clock=b'[local]', printk=None):
    b = bytearray(b'\x17\x08Dtracing6\0' + bytes([0, 8]) + u32(PAGE))
    b += b'header_page\0' + u64(len(t['header_page'])) + t['header_page']
    b += b'header_event\0' + u64(len(t['header_event'])) + t['header_event']
    b += u32(len(t['ftrace'])) + b''.join(u64(len(f)) + f for f in t['ftrace'])
    b += u32(len(systems))
    for name, fmts in systems:
        b += name + b'\0' + u32(len(fmts)) + b''.join(u64(len(f)) + f for f in fmts)
    b += u32(len(kallsyms)) + kallsyms
    printk = t['printk'] if printk is None else printk
    b += u32(len(printk)) + printk
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


# An older kernel's jbd2 format: the device through jbd2_dev_to_name().
JBD2_OLD_FORMAT = b"""name: jbd2_old_commit
ID: 30000
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;
\tfield:char sync_commit;\toffset:12;\tsize:1;\tsigned:1;
\tfield:int transaction;\toffset:16;\tsize:4;\tsigned:1;

print fmt: "dev %s transaction %d sync %d", jbd2_dev_to_name(REC->dev), REC->transaction, REC->sync_commit
"""

PLUGIN_EVENTS = {
    b'kmem': ['kmalloc', 'kfree', 'kmem_cache_alloc', 'kmem_cache_free', 'mm_page_alloc'],
    b'tlb': ['tlb_flush'],
    b'syscalls': ['sys_enter_futex', 'sys_exit_futex'],
    b'jbd2': ['jbd2_run_stats', 'jbd2_checkpoint_stats', 'jbd2_start_commit'],
}


def vbin(args):
    """trace_printk's binary arguments: 32-bit words, 64-bit values as two
    words (4-byte aligned), strings copied with their NUL and the next
    argument aligned to 4."""
    b = bytearray()
    for kind, value in args:
        b += b'\0' * (-len(b) % 4)
        if kind == 'i':
            b += u32(value)
        elif kind == 'l':
            b += u64(value)
        else:
            b += value + b'\0'
    return bytes(b + b'\0' * (-len(b) % 4))


def plugins(t, out, seed):
    rnd = random.Random(seed)
    systems, formats = [], {}
    for f in t['ftrace']:
        p = parse_format(f)
        formats[p['name']] = p
    for name, fmts in t['systems']:
        keep = []
        for f in fmts:
            p = parse_format(f)
            if p['name'] in PLUGIN_EVENTS.get(name, []):
                keep.append(f)
                formats[p['name']] = p
        if name == b'jbd2':
            keep.append(JBD2_OLD_FORMAT)
            formats['jbd2_old_commit'] = parse_format(JBD2_OLD_FORMAT)
        if keep:
            systems.append((name, keep))

    syms = [(0xffffffff81000000, 'T', '_stext'), (0xffffffff81100000, 'T', 'do_syscall_64'),
            (0xffffffff81100400, 't', 'ksys_write'), (0xffffffff81100800, 'T', 'vfs_write'),
            (0xffffffff81200000, 'T', 'schedule'), (0xffffffff81200100, 't', '__schedule'),
            (0xffffffff81300000, 'T', 'kmalloc_trace'), (0xffffffff81300200, 'T', 'alloc_fdtable'),
            (0xffffffff81400000, 'T', 'rcu_core'), (0xffffffff81400040, 'T', 'trace_printk_caller'),
            (0xffffffff81600000, 'T', '_etext')]
    kallsyms = ''.join(f'{a:016x} {k} {n}\n' for a, k, n in syms).encode()
    known = [a for a, _, _ in syms[1:-1]]

    # printk_formats as the kernel writes it: tabs, newlines and quotes
    # escaped, a backslash as itself.
    fmts = {
        0xffffffff82000000: b'value %d and %u\\n',
        0xffffffff82000020: b'long %ld %lu %lx %llx %lld\\n',
        0xffffffff82000040: b'str [%s] [%10s] [%.3s] [%5.2s]\\n',
        0xffffffff82000060: b'sym %ps %pS %pF %pf\\n',
        0xffffffff82000080: b'ptr %p %px|\\n',
        0xffffffff820000a0: b'char %c%c%c and %+d %d, % d|%d\\n',
        0xffffffff820000c0: b'width %5d|%05d|%x|%#x|%X|%8.3x|%#o\\n',
        0xffffffff820000e0: b'star %*d|%.*s|%*u|\\n',
        0xffffffff82000100: b'percent 100%% done %d\\n',
        0xffffffff82000120: b'escapes tab\\there \\"quoted\\" back\\ slash end\\n',
        0xffffffff82000140: b'no newline %i %o',
        0xffffffff82000160: b'size %zu %zd %Lu %llu\\n',
        0xffffffff82000180: b'bputs text\\n',
        0xffffffff820001a0: b'bputs tab\\there',
        0xffffffff820001c0: b'only text\\n',
        0xffffffff820001e0: b'mac %pM ip %pI4 uuid %pU hex %ph addr %pK end\\n',
        0xffffffff82000200: b'minus [%-5d|%d]\\n',
        0xffffffff82000220: b'two lines\\nsecond %d\\n',
        0xffffffff82000240: b'%s\\n',
    }
    printk = t['printk'] + b''.join(b'0x%x : "%s"\n' % (a, f) for a, f in fmts.items())

    tasks = {700: b'workload', 701: b'worker-thread', 702: b'jbd2/loop0-8'}
    cmdlines = b''.join(b'%d %s\n' % (p, c) for p, c in tasks.items())
    B = Builder(formats)
    ncpu = 2
    pages = [Pages() for _ in range(ncpu)]
    ts = [2000000000, 2000000500]

    def emit(cpu, rec):
        ts[cpu] += rnd.choice([1, 40, 900, 20000])
        pages[cpu].event(ts[cpu], rec)

    def fixed(name, pid, values, tail=b''):
        return B.record(name, pid, values) + tail

    def sym_or_not():
        return rnd.choice(known + [a + 0x13 for a in known] +
                          [0x1000, 0xffffffff80000000, 0xffffffff81600000, 0xffffffff81700000])

    records = []

    # The function tracer: ip and parent known, unknown, at a symbol's start.
    for i in range(120):
        records.append(('function', 700 + i % 2, {'ip': sym_or_not(), 'parent_ip': sym_or_not()}, b''))
    for count, top, bottom in ((3, 0, 1500), (1, 0, 0), (65535, 1, 7), (2, 0, 999500)):
        records.append(('func_repeats', 700, {'ip': known[0], 'parent_ip': rnd.choice([known[1], 0x1234]),
                                              'count': count, 'top_delta_ts': top,
                                              'bottom_delta_ts': bottom}, b''))

    # Stacks: ending in ULONG_MAX, in a value whose low half is -1, by the
    # record's end, longer than caller[8].
    stacks = [[known[0], known[1] + 5, 0x1000, 0xffffffffffffffff],
              [known[2], 0x12345678ffffffff, known[3]],
              [known[4] + 1, known[5], known[6], known[7], known[0], known[1], known[2], known[3]],
              [sym_or_not() for _ in range(13)] + [0xffffffffffffffff]]
    for st in stacks:
        rec = B.record('kernel_stack', 701, {'size': len(st)})[:16] + b''.join(u64(a) for a in st)
        records.append((None, 701, rec, b''))

    # trace_marker_raw: an id and bytes (the record keeps the padding).
    for raw in (b'abcdefg', b'\x00\x01\x02\x03', b'x' * 21, b''):
        rec = B.record('raw_data', 700, {'id': 0x1234 + len(raw)})[:12] + raw
        records.append((None, 700, rec, b''))

    # trace_marker: with and without the newline the kernel adds.
    for text in (b'hello marker\n', b'no newline', b'two newlines\n\n', b'  leading blanks\n',
                 b'tab\there\n', b'multi\nline\n'):
        rec = B.record('print', 700, {'ip': 0xffffffff81100800})[:16] + text + b'\0'
        records.append((None, 700, rec, b''))

    # trace_printk: bprint and bputs.
    A = list(fmts)
    bprints = [
        (A[0], [('i', -5), ('i', 7)]),
        (A[0], [('i', 0x7fffffff), ('i', 0xffffffff)]),
        (A[1], [('l', -1), ('l', 1 << 63), ('l', 0xdead), ('l', 0x123456789), ('l', -42)]),
        (A[2], [('s', b'hello'), ('s', b'right'), ('s', b'abcdef'), ('s', b'xyz')]),
        (A[2], [('s', b''), ('s', b'a-very-long-string'), ('s', b'x'), ('s', b'')]),
        (A[3], [('l', known[0]), ('l', known[1] + 0x21), ('l', known[2] + 3), ('l', 0x1000)]),
        (A[4], [('l', 0), ('l', 0xffff888000001000)]),
        (A[4], [('l', 0xdeadbeef), ('l', 0)]),
        (A[5], [('i', 5), ('i', 6), ('i', 7)]),
        (A[6], [('i', 42), ('i', 42), ('i', 255), ('i', 255), ('i', 0xabc), ('i', 5), ('i', 8)]),
        (A[7], [('i', 6), ('i', 42), ('i', 3), ('s', b'abcdef'), ('i', 4), ('i', 9)]),
        (A[8], [('i', 1)]),
        (A[9], []),
        (A[10], [('i', -3), ('i', 8)]),
        (A[11], [('l', 123), ('l', -123), ('l', 77), ('l', 1 << 40)]),
        (A[14], []),
        (A[15], [('l', 0xffff888000001001), ('l', 0x0100007f), ('s', b'uuid-text'),
                 ('l', 0x1234), ('l', 0xffffffff81100000)]),
        (A[17], [('i', 2)]),
        (A[18], [('s', b'only a string')]),
        (A[18], [('s', b'')]),
        (0xffffffff82fff000, [('l', 0xfeedface12345678)]),     # not in printk_formats
        # libtraceevent reads no argument for "%-5d" but prints one: the
        # format runs out of arguments, and every later bprint prints as
        # "[FAILED TO PARSE]" with its fields.
        (A[16], [('i', 1), ('i', 2)]),
        (A[0], [('i', 3), ('i', 4)]),
        (A[8], [('i', 9)]),
        (A[0], [('i', 1)]),                                     # buffer too short
    ]
    ordered = []
    for fmt, args in bprints:
        rec = B.record('bprint', 700, {'ip': rnd.choice(known + [0x1000]), 'fmt': fmt})[:24]
        ordered.append(rec + vbin(args))
    for text in (A[12], A[13], 0xffffffff82fff100, 0):
        records.append(('bputs', 700, {'ip': known[8] + 0x40, 'str': text}, b''))

    # kmem call sites: named, unnamed, zero.
    sites = [known[6] + 0x3b, known[7], 0, 0x1000, 0xffffffff81700000]
    for site in sites:
        records.append(('kmalloc', 700, {'call_site': site, 'ptr': 0xffff888100000000,
                                         'bytes_req': 11, 'bytes_alloc': 16, 'gfp_flags': 0xcc0,
                                         'node': 0xffffffff}, b''))
        records.append(('kfree', 700, {'call_site': site, 'ptr': rnd.choice([0, 0xffff888100000000])}, b''))
        rec = B.record('kmem_cache_free', 700, {'call_site': site, 'ptr': 0xffff888100000040},
                       {'name': b'filp'})
        records.append((None, 700, rec, b''))
    records.append(('mm_page_alloc', 700, {'pfn': 0x1234, 'order': 0, 'gfp_flags': 0xcc0,
                                           'migratetype': 1}, b''))

    # tlb_flush: every reason the plugin names, the two it does not, one beyond.
    for reason in range(8):
        records.append(('tlb_flush', 701, {'reason': reason, 'pages': rnd.choice([0xffffffffffffffff, 0, 5])}, b''))

    # futex: every command with every flag, and operations beyond the table.
    for op in list(range(16)) + [0x80 | 9, 0x100 | 9, 0x180 | 9, 0x81, 0x10000000b, 0xffffffff]:
        for flags in ((0, 0x80, 0x100, 0x180) if op < 16 else (0,)):
            records.append(('sys_enter_futex', 700, {
                '__syscall_nr': 202, 'uaddr': 0x7f0012345678, 'op': op | flags,
                'val': rnd.choice([0, 1, 0x2a, 0xffffffff]), 'utime': rnd.choice([0, 5, 0x7ffc8a9fe2f0]),
                'uaddr2': rnd.choice([0, 0x7f0012345680]), 'val3': rnd.choice([0, 0xffffffff, 0x11000001])}, b''))
            records.append(('sys_exit_futex', 700, {'__syscall_nr': 202,
                                                    'ret': rnd.choice([0, 1, 0xfffffffffffffff5])}, b''))

    # jbd2: jiffies_to_msecs() and (an older format) jbd2_dev_to_name().
    for dev in (7 << 20, (259 << 20) | 3, 0xffffffff):
        records.append(('jbd2_run_stats', 702, {'dev': dev, 'tid': 5, 'wait': 1, 'request_delay': 0,
                                                'running': 5000, 'locked': 0xffffffffffffffff,
                                                'flushing': 2, 'logging': 3, 'handle_count': 4,
                                                'blocks': 5, 'blocks_logged': 6}, b''))
        records.append(('jbd2_checkpoint_stats', 702, {'dev': dev, 'tid': 5, 'chp_time': 250,
                                                       'forced_to_close': 0, 'written': 1, 'dropped': 2}, b''))
        records.append(('jbd2_start_commit', 702, {'dev': dev, 'sync_commit': 1, 'transaction': 9}, b''))
        records.append(('jbd2_old_commit', 702, {'dev': dev, 'sync_commit': 0xff, 'transaction': 10}, b''))

    rnd.shuffle(records)
    for name, pid, values, tail in records:
        rec = values if name is None else fixed(name, pid, values, tail)
        emit(rnd.randrange(ncpu), rec)
    for rec in ordered:            # in this order: the last ones fail
        emit(0, rec)

    write_v6(out, t, systems, kallsyms, cmdlines, [p.data() for p in pages], printk=printk)



def main():
    mode, template, out = sys.argv[1:4]
    t = read_template(template)
    if mode == 'synthetic':
        count = int(sys.argv[4]) if len(sys.argv) > 4 else 3000
        seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
        synthetic(t, out, count, seed)
    elif mode == 'plugins':
        plugins(t, out, int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    elif mode == 'replicate':
        replicate(t, out, int(sys.argv[4]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())
