-- seeds/003's syscall-counts over perf script text of
-- raw_syscalls:sys_enter ("NR n (args)").
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT id, name, count FROM syscall_counts ORDER BY id;
