-- Page faults per process and module for perf page-fault samples: no
-- error code (unknown access), code when the address is the ip.
.output /dev/null
SELECT tracestore_attach('@WORK@/s.trace');
.output
SELECT pid, comm, module, faults, code, data, reads, writes, execs,
       unknown_access
FROM page_fault_summary ORDER BY pid, comm, module;
