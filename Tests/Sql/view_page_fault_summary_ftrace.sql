-- Page faults per process and module, split by the x86 error code, for
-- the ftrace capture (no tgid column: pid NULL; no module names).
.output /dev/null
SELECT tracestore_attach('@SESSION@');
.output
SELECT pid, comm, module, faults, code, data, reads, writes, execs,
       unknown_access
FROM page_fault_summary ORDER BY comm;
