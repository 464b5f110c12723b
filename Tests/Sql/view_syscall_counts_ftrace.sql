-- syscall-counts over tracefs text of the syscalls:sys_enter_NAME events
-- (tracefs prints them as "sys_NAME(args)"; exits "sys_NAME -> ret" are
-- not counted), and the events as they are stored.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT id, name, count FROM syscall_counts ORDER BY name;
SELECT count(*), count(DISTINCT name) FROM ftrace_event
WHERE name GLOB 'sys_exit_*';
SELECT tracestore_arg(args, 'dfd') FROM ftrace_event
WHERE name = 'sys_enter_openat' ORDER BY id LIMIT 1;
