/*
** tracestore_doc.c: the documentation of what the extension makes besides
** the store tables: the views, the rollup tables, store_info,
** tracestore_args and the SQL functions, from which docs/schema.md, the
** `tracestore schema` text and tracestore_schema() are generated
** (tracestore_schema.c; the store tables' own columns come from the
** descriptors in TraceStore/TraceSchema.c).
**
** Zone: hosted (the SQLite extension): data only, no calls.  Read by
** tracestore_schema.c through tracestoreDocObjects(), declared in
** tracestore_views.h.  The definitions it documents are in
** tracestore_views.c (views), tracestore_rollup.c (rollup tables),
** tracestore_catalog.c (store_info), tracestore_args.c, and the files of
** the functions.  The test sql_schema_columns checks every column list
** below against pragma_table_info of the real view or table, and
** view_schema_columns that each view documented is made.
*/
#include "tracestore_views.h"

static const tracestore_doc_column aEventDoc[] = {
  { "ts", "INTEGER", "time of the event, ns" },
  { "name", "TEXT", "event name: the store's name column (page_fault: "
    "page_fault_user/kernel, ftrace_event: the event, span, counter and "
    "sample: their names); 'kvm_exit' and 'sched_switch' for those "
    "stores" },
  { "pid", "INTEGER", "process id when the source says (NULL for "
    "sched_switch)" },
  { "tid", "INTEGER", "thread id (sched_switch: prev_pid, the task that "
    "was running; NULL for counter)" },
  { "cpu", "INTEGER", "CPU (NULL for span)" },
  { "store", "TEXT", "the table the row comes from" },
  { "id", "INTEGER", "the row's id in that table" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aArgsDoc[] = {
  { "arg_set_id", "INTEGER", "id of the ftrace_event row the field belongs "
    "to (WHERE arg_set_id = N reads that one row)" },
  { "key", "TEXT", "field name" },
  { "int_value", "INTEGER", "the value, if it is an integer (decimal, or "
    "0x hex; above 2^63-1 as the int64 with the same bits), else NULL" },
  { "string_value", "TEXT", "the value, if it is not an integer, without "
    "the quotes of a quoted value; else NULL" },
  { "value_type", "TEXT", "'int' or 'string'" },
  { "display_value", "TEXT", "the value as printed" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aTracestoreArgsDoc[] = {
  { "key", "TEXT", "field name" },
  { "int_value", "INTEGER", "the value, if it is an integer, else NULL" },
  { "string_value", "TEXT", "the value, if it is not an integer, else NULL" },
  { "value_type", "TEXT", "'int' or 'string'" },
  { "display_value", "TEXT", "the value as printed" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aKvmExitReasonsDoc[] = {
  { "reason", "TEXT", "exit reason as recorded (kvm_exit.reason)" },
  { "exit_code", "INTEGER", "numeric exit code, when the source gave one" },
  { "vmx_name", "TEXT", "when reason is a number or UNKNOWN (kvmtrace, "
    "codes the kernel could not name): the VMX name of exit_code" },
  { "svm_name", "TEXT", "the same, the SVM name of exit_code" },
  { "count", "INTEGER", "exits" },
  { "unpaired", "INTEGER", "exits with no entry after them (dur NULL); the "
    "dur columns cover the others" },
  { "total_dur", "INTEGER", "sum of dur, ns" },
  { "avg_dur", "REAL", "mean dur, ns" },
  { "min_dur", "INTEGER", "shortest dur, ns" },
  { "max_dur", "INTEGER", "longest dur, ns" },
  { "p50_dur", "INTEGER", "median dur by nearest rank: the smallest dur "
    "with at least 50% of the durs at or below it, ns; from the rollup's "
    "histogram, within 1/256 (0.4%) of it and exact below 512 ns (exact "
    "with tracestore_attach's 'scan' mode)" },
  { "p90_dur", "INTEGER", "the same for 90%" },
  { "p99_dur", "INTEGER", "the same for 99%" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aPageFaultSummaryDoc[] = {
  { "pid", "INTEGER", "process id (NULL when the source does not say: "
    "tracefs text without the tgid column)" },
  { "comm", "TEXT", "command name" },
  { "module", "TEXT", "mapping (dso) of the faulting address, when the "
    "source names it (perf samples)" },
  { "faults", "INTEGER", "page faults" },
  { "code", "INTEGER", "faults on code: an instruction fetch (error_code "
    "bit 4), or, with no error code, address = ip" },
  { "data", "INTEGER", "faults on data: the others with an error code, or "
    "address != ip without one (faults - code - data: neither is known)" },
  { "reads", "INTEGER", "error_code with neither bit 1 (write) nor bit 4 "
    "(fetch)" },
  { "writes", "INTEGER", "error_code bit 1 set, bit 4 clear" },
  { "execs", "INTEGER", "error_code bit 4 set (instruction fetch)" },
  { "unknown_access", "INTEGER", "no error code (perf page-fault samples)" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aPageFaultTrafficDoc[] = {
  { "pid", "INTEGER", "process id (NULL when the source does not say)" },
  { "comm", "TEXT", "command name" },
  { "module", "TEXT", "mapping of the faulting address (page_fault.module)" },
  { "faults", "INTEGER", "page faults" },
  { "hard", "INTEGER", "hard (major) faults: page_fault.hard = 1" },
  { "soft", "INTEGER", "soft (minor) faults: page_fault.hard = 0" },
  { "unclassified", "INTEGER", "faults whose source does not say hard or "
    "soft (hard NULL: ftrace text, trace.dat, page-faults samples)" },
  { "hard_code", "INTEGER", "hard faults on code: page_fault.code = 1, or, "
    "where code is NULL, as page_fault_summary's code" },
  { "hard_data", "INTEGER", "hard faults on data (code 0, or "
    "page_fault_summary's data)" },
  { "soft_code", "INTEGER", "soft faults on code" },
  { "soft_data", "INTEGER", "soft faults on data (hard or soft faults "
    "that are neither code nor data: the rest)" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aSpanSelfTimeDoc[] = {
  { "name", "TEXT", "span (function) name" },
  { "calls", "INTEGER", "spans of that name" },
  { "total_dur", "INTEGER", "sum of the dur of the outermost ones, ns: a "
    "span inside an earlier span of the same name on its thread (a "
    "recursive call: the earlier one began before it and ends after it "
    "begins, or has not ended, flags 2) is not counted again, as in "
    "uftrace report" },
  { "self_dur", "INTEGER", "sum over all the spans of dur minus the dur of "
    "their direct children (parent_id), ns; uftrace's \"linux:schedule\" "
    "spans (the thread off the CPU) are children too" },
  { "avg_dur", "REAL", "mean dur, ns" },
  { "max_dur", "INTEGER", "longest dur, ns" },
  { "min_depth", "INTEGER", "smallest nesting depth" },
  { "max_depth", "INTEGER", "largest nesting depth" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aSyscallCountsDoc[] = {
  { "id", "INTEGER", "system call number (x86-64); NULL for a "
    "sys_enter_NAME event whose NAME is not in the table" },
  { "name", "TEXT", "system call name (syscall_name(id)); NULL for a "
    "number without one (e.g. 32-bit compat calls)" },
  { "count", "INTEGER", "sys_enter events (raw_syscalls:sys_enter and "
    "syscalls:sys_enter_NAME alike)" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aSpanRunningDoc[] = {
  { "id", "INTEGER", "the span row's id" },
  { "ts", "INTEGER", "when the call began, ns" },
  { "dur", "INTEGER", "how long it has run: to the writer's last commit "
    "(a live Python program), or to the end of the recording, ns" },
  { "parent_id", "INTEGER", "id of the enclosing span, or NULL" },
  { "name", "TEXT", "function or span name" },
  { "depth", "INTEGER", "nesting depth (0: no parent)" },
  { "tid", "INTEGER", "thread id" },
  { "pid", "INTEGER", "process id, or NULL" },
  { "cat", "TEXT", "category, or NULL" },
  { "args", "TEXT", "arguments, or NULL" },
  { "flags", "INTEGER", "span flags: bit 2 is set on every row here" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aEventCountsDoc[] = {
  { "store", "TEXT", "the event store" },
  { "name", "TEXT", "the event's name as the event view gives it (the "
    "store's name for kvm_exit and sched_switch)" },
  { "count", "INTEGER", "events of that store and name" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aEventRateDoc[] = {
  { "store", "TEXT", "the event store" },
  { "name", "TEXT", "as in event_counts; NULL for span, whose buckets "
    "count every call (its names are functions: see span_self_time)" },
  { "ts", "INTEGER", "start of the bucket, ns: a multiple of dur" },
  { "dur", "INTEGER", "width of the bucket, ns: one second, or a power of "
    "two times that when one second would need more than 32768 buckets "
    "for the store" },
  { "count", "INTEGER", "events with ts in [ts, ts + dur)" },
  { "per_second", "REAL", "count * 1e9 / dur" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aSampleSelfDoc[] = {
  { "comm", "TEXT", "command name of the sampled thread" },
  { "module", "TEXT", "mapped file of the frame the sample was taken in "
    "(the leaf of its stack), or NULL" },
  { "symbol", "TEXT", "its function, else 0x and the 16 hex digits of its "
    "offset in the module (or its address), as perf report prints it" },
  { "kernel", "INTEGER", "1 a kernel frame, 0 a user one" },
  { "samples", "INTEGER", "samples taken there" },
  { "period", "INTEGER", "their periods' sum" },
  { "overhead", "REAL", "period as a percentage of all samples' period "
    "(perf report's Overhead)" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aLineTimeDoc[] = {
  { "function", "TEXT", "the function the line is in (line.name: "
    "module.qualname)" },
  { "file", "TEXT", "its source file" },
  { "lineno", "INTEGER", "kernprof's Line #" },
  { "hits", "INTEGER", "times the line ran (line events): Hits" },
  { "total_dur", "INTEGER", "sum of the line's dur, the calls it made "
    "included, ns: Time" },
  { "per_hit", "REAL", "total_dur / hits, ns: Per Hit" },
  { "pct_time", "REAL", "total_dur as a percentage of the sum of its "
    "function's lines' total_dur: % Time" },
  { "self_dur", "INTEGER", "sum of self_dur: total_dur without the time in "
    "traced lines it called, ns" },
  { "line_contents", "TEXT", "the line's text (source_line(file, lineno)), "
    "NULL when the file cannot be read" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aLineHotDoc[] = {
  { "file", "TEXT", "source file" },
  { "lineno", "INTEGER", "line number" },
  { "function", "TEXT", "the function the line is in" },
  { "hits", "INTEGER", "times the line ran" },
  { "self_dur", "INTEGER", "sum of self_dur, ns: the time spent on this "
    "line and in untraced code it called (library functions, C), not in "
    "traced lines deeper down" },
  { "total_dur", "INTEGER", "sum of dur, ns" },
  { "pct_self", "REAL", "self_dur as a percentage of all lines' self_dur: "
    "every ns inside traced code counts once, at its innermost traced line" },
  { "line_contents", "TEXT", "the line's text, or NULL" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aSampleFlameDoc[] = {
  { "id", "INTEGER", "the callsite (stack.id)" },
  { "parent_id", "INTEGER", "its caller's callsite, NULL at a root" },
  { "depth", "INTEGER", "0 at a root" },
  { "module", "TEXT", "the frame's mapped file, or NULL" },
  { "name", "TEXT", "the frame's function (else its offset or address, as "
    "in sample_self)" },
  { "kernel", "INTEGER", "1 a kernel frame, 0 a user one" },
  { "self", "INTEGER", "samples whose stack ends at this callsite" },
  { "total", "INTEGER", "samples whose stack passes through it" },
  { "self_period", "INTEGER", "the periods of the self samples" },
  { "total_period", "INTEGER", "the periods of the total samples" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupSpanOpenDoc[] = {
  { "id", "INTEGER", "id of a span row whose flags had bit 2 (not ended) "
    "when the rollup was read" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupFaultDoc[] = {
  { "pid", "INTEGER", "as in page_fault_summary" },
  { "comm", "TEXT", "as in page_fault_summary" },
  { "module", "TEXT", "as in page_fault_summary" },
  { "faults", "INTEGER", "page faults" },
  { "code", "INTEGER", "page_fault_summary's code" },
  { "data", "INTEGER", "page_fault_summary's data" },
  { "reads", "INTEGER", "page_fault_summary's reads" },
  { "writes", "INTEGER", "page_fault_summary's writes" },
  { "execs", "INTEGER", "page_fault_summary's execs" },
  { "unknown_access", "INTEGER", "page_fault_summary's unknown_access" },
  { "hard", "INTEGER", "page_fault_traffic's hard" },
  { "soft", "INTEGER", "page_fault_traffic's soft" },
  { "unclassified", "INTEGER", "page_fault_traffic's unclassified" },
  { "hard_code", "INTEGER", "page_fault_traffic's hard_code" },
  { "hard_data", "INTEGER", "page_fault_traffic's hard_data" },
  { "soft_code", "INTEGER", "page_fault_traffic's soft_code" },
  { "soft_data", "INTEGER", "page_fault_traffic's soft_data" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupKvmDoc[] = {
  { "reason", "TEXT", "as in kvm_exit_reasons" },
  { "exit_code", "INTEGER", "as in kvm_exit_reasons" },
  { "count", "INTEGER", "as in kvm_exit_reasons" },
  { "unpaired", "INTEGER", "as in kvm_exit_reasons" },
  { "total_dur", "INTEGER", "as in kvm_exit_reasons" },
  { "avg_dur", "REAL", "as in kvm_exit_reasons" },
  { "min_dur", "INTEGER", "as in kvm_exit_reasons" },
  { "max_dur", "INTEGER", "as in kvm_exit_reasons" },
  { "p50_dur", "INTEGER", "as in kvm_exit_reasons" },
  { "p90_dur", "INTEGER", "as in kvm_exit_reasons" },
  { "p99_dur", "INTEGER", "as in kvm_exit_reasons" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupSyscallDoc[] = {
  { "raw", "INTEGER", "1: sys_enter events (raw_syscalls) of number k; 0: "
    "events named sys_enter_k" },
  { "k", "", "the system call number (raw 1, INTEGER) or name (raw 0, "
    "TEXT)" },
  { "n", "INTEGER", "events" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupEventRateDoc[] = {
  { "store", "TEXT", "as in event_rate" },
  { "name", "TEXT", "as in event_rate" },
  { "ts", "INTEGER", "as in event_rate" },
  { "dur", "INTEGER", "as in event_rate" },
  { "count", "INTEGER", "as in event_rate" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aRollupLineDoc[] = {
  { "name", "TEXT", "the function (line.name)" },
  { "file", "TEXT", "its source file" },
  { "lineno", "INTEGER", "line number" },
  { "hits", "INTEGER", "rows of the line" },
  { "total_dur", "INTEGER", "sum of their dur, ns (running lines' as read)" },
  { "self_dur", "INTEGER", "sum of their self_dur, ns" },
  { 0, 0, 0 }
};

static const tracestore_doc_column aStoreInfoDoc[] = {
  { "name", "TEXT", "store name" },
  { "records", "INTEGER", "committed records" },
  { "bytes", "INTEGER", "bytes of committed data in the file: the header "
    "page plus records * record_size" },
  { "record_size", "INTEGER", "bytes per record" },
  { "generation", "INTEGER", "times a writer has opened the store" },
  { "first_ts", "INTEGER", "smallest ts over the records, ns; NULL if the "
    "store is empty or has no ts column" },
  { "last_ts", "INTEGER", "largest ts, ns; likewise" },
  { "sorted", "INTEGER", "1 if ts never decreases from one record to the "
    "next, 0 if it does, NULL for stores without a ts column" },
  { "dropped", "INTEGER", "events the source reported lost, or the reader "
    "dropped" },
  { "repaired", "INTEGER", "records the reader completed from the trace "
    "bounds (e.g. spans whose entry or exit was not recorded)" },
  { 0, 0, 0 }
};

static const tracestore_doc_object aDocObject[] = {
  { "store_info", "table", "always",
    "One row per store of the session, the string stores included.",
    "SELECT name, records, first_ts, last_ts FROM store_info;",
    aStoreInfoDoc },
  { "event", "view", "always (no rows without event stores)",
    "Every event of every event store (ftrace_event, page_fault, kvm_exit, "
    "sched_switch, span, counter, sample: those the session had when it was "
    "attached), as one table: \"what happened, in order\".  A UNION ALL, "
    "so a ts range or ORDER BY ts reaches each store's table.",
    "SELECT * FROM event WHERE ts BETWEEN 697455000000 AND 697456000000 "
    "ORDER BY ts;",
    aEventDoc },
  { "args", "view", "ftrace_event store",
    "The fields of each ftrace_event row's args, one row per field, like "
    "Perfetto's args table: ftrace_event joined with tracestore_args(args). "
    "Parsing rules: see tracestore_args.",
    "SELECT key, display_value FROM args WHERE arg_set_id = 42;",
    aArgsDoc },
  { "kvm_exit_reasons", "view", "kvm_exit store",
    "The exit-reason histogram: per recorded reason and exit code, the "
    "exits, their total time in the host and its distribution (dur: exit "
    "to the next entry).  Percentiles by nearest rank, read from a "
    "log-linear histogram of each reason (256 buckets per power of two): "
    "within 1/256 of the exact value, exact below 512 ns and wherever the "
    "value is the smallest or largest of its bucket.  Ordered by count.",
    "SELECT reason, count, total_dur, p50_dur, p99_dur FROM "
    "kvm_exit_reasons;",
    aKvmExitReasonsDoc },
  { "page_fault_summary", "view", "page_fault store",
    "Page faults per process (pid, comm) and module, split into code and "
    "data and into read, write and exec by the x86 error code (bit 1 "
    "write, bit 4 instruction fetch).  Faults without an error code (perf "
    "page-fault samples) count as unknown access, and as code when the "
    "faulting address is the instruction pointer.  (seeds/000 tells code "
    "from data by the sections of the module; the stores have no section "
    "information.)  Ordered by faults.",
    "SELECT comm, faults, code, data, writes FROM page_fault_summary;",
    aPageFaultSummaryDoc },
  { "page_fault_traffic", "view", "page_fault store (written since issue 15)",
    "Page-fault traffic per process (pid, comm) and module: hard and soft "
    "faults, each split into code and data, the numbers of seeds/000's "
    "bars (tracestore plot draws them).  Code is the mapping's exec "
    "permission (page_fault.code); where it is NULL, the error code's "
    "instruction-fetch bit, or address = ip.  Ordered by faults.",
    "SELECT comm, module, hard_code, hard_data, soft_code, soft_data FROM "
    "page_fault_traffic;",
    aPageFaultTrafficDoc },
  { "span_self_time", "view", "span store",
    "The flame-graph table: per span name, the calls, the total time and "
    "the self time (time not spent in child spans), as uftrace report "
    "computes them for a complete recording (spans repaired at the "
    "recording's edges, flags 1 or 2, count with their repaired dur).  "
    "Ordered by self time.",
    "SELECT name, calls, total_dur, self_dur FROM span_self_time LIMIT 10;",
    aSpanSelfTimeDoc },
  { "span_running", "view", "span store",
    "What each thread is doing now: the calls still running (span rows "
    "with flags bit 2: a live Python program's calls that have not "
    "returned, or those the recording ended inside), as they are in span. "
    "The span rollup lists them, so this reads O(running calls) rows, not "
    "the store.  Ordered by id, so each thread's stack reads outermost "
    "first.",
    "SELECT tid, depth, name, dur FROM span_running;", aSpanRunningDoc },
  { "sample_self", "view", "sample, stack and frame stores",
    "Where the samples were taken: per command, module and function of "
    "the leaf frame, the samples, their period and its share of all, as "
    "perf report --no-children --sort comm,dso,sym counts them.  Ordered "
    "by period.",
    "SELECT comm, module, symbol, overhead FROM sample_self LIMIT 20;",
    aSampleSelfDoc },
  { "line_time", "view", "line store",
    "Line-level time per function, in kernprof's layout (line_profiler's "
    "Line #, Hits, Time, Per Hit, % Time, Line Contents), for every "
    "function trace-python --lines traced: no function registered by "
    "hand.  Ordered by file, the function's first line, and line.",
    "SELECT lineno, hits, total_dur, per_hit, pct_time, line_contents FROM "
    "line_time WHERE function = '__main__.main';", aLineTimeDoc },
  { "line_hot", "view", "line store",
    "The hottest lines of the whole program, by self time: where the "
    "program's time went, line by line, across every traced module.  "
    "Ordered by self_dur.",
    "SELECT file, lineno, self_dur, pct_self, line_contents FROM line_hot "
    "LIMIT 10;", aLineHotDoc },
  { "sample_flame", "view", "sample, stack and frame stores",
    "The flame graph of the samples: every callsite their stacks pass "
    "through, with the samples that end there (self) and that pass "
    "through it (total).  A callsite's children are the rows whose "
    "parent_id is its id.  Ordered by total.",
    "SELECT depth, name, self, total FROM sample_flame LIMIT 20;",
    aSampleFlameDoc },
  { "event_counts", "view", "an event store",
    "Events per store and name: what SELECT store, name, count(*) FROM "
    "event GROUP BY store, name answers, from the rollups.  Ordered by "
    "count.",
    "SELECT * FROM event_counts LIMIT 10;", aEventCountsDoc },
  { "event_rate", "view", "an event store",
    "Events per store, name and time bucket (one second, coarser for long "
    "recordings), for rates over time, from the rollups.",
    "SELECT ts, per_second FROM event_rate WHERE store = 'page_fault';",
    aEventRateDoc },
  { "syscall_counts", "view", "ftrace_event store",
    "System calls per number and name, from raw_syscalls:sys_enter events "
    "(args \"NR n (...)\") and syscalls:sys_enter_NAME events: the "
    "syscall-counts script of seeds/003, in SQL.  A capture with both "
    "kinds of events counts each call twice.  Ordered by count.",
    "SELECT name, count FROM syscall_counts LIMIT 10;",
    aSyscallCountsDoc },
  { "rollup_span", "rollup table", "span store of this version's layout",
    "span_self_time's rows, unordered, from the span rollup.", 0,
    aSpanSelfTimeDoc },
  { "rollup_span_open", "rollup table", "span store of this version's "
    "layout", "The ids of the rows span_running shows.", 0,
    aRollupSpanOpenDoc },
  { "rollup_page_fault", "rollup table", "page_fault store of this "
    "version's layout",
    "page_fault_summary's and page_fault_traffic's counts in one row per "
    "(pid, comm, module), unordered, from the page_fault rollup.", 0,
    aRollupFaultDoc },
  { "rollup_kvm_exit", "rollup table", "kvm_exit store of this version's "
    "layout",
    "kvm_exit_reasons' rows without vmx_name and svm_name, unordered, "
    "from the kvm_exit rollup.", 0, aRollupKvmDoc },
  { "rollup_syscall", "rollup table", "ftrace_event store of this "
    "version's layout",
    "The sys_enter counts syscall_counts adds up: per system call number "
    "and per sys_enter_NAME event, from the ftrace_event rollup.", 0,
    aRollupSyscallDoc },
  { "rollup_line", "rollup table", "line store of this version's layout",
    "The per-line sums line_time and line_hot are made of: one row per "
    "(function, file, line), unordered, from the line rollup.", 0,
    aRollupLineDoc },
  { "rollup_event_count", "rollup table", "an event store",
    "event_counts' rows, unordered, from every event store's rollup.", 0,
    aEventCountsDoc },
  { "rollup_event_rate", "rollup table", "an event store",
    "event_rate's rows without per_second, unordered.", 0,
    aRollupEventRateDoc },
  { "tracestore_args", "table-valued function", "always",
    "tracestore_args(TEXT): one row per field of an event's text.  A field "
    "is a word KEY=VALUE, or a word KEY: followed by its value (syscall "
    "tracepoints); a KEY starts with a letter or '_' and continues with "
    "letters, digits and _ . - [ ].  Words that are not fields are "
    "skipped.  Brackets and quoted strings are one piece, blanks and all.  "
    "A value runs on over the following words (a comm such as \"CPU 0/KVM\")"
    " unless it is empty, a number or quoted, ends with ',', or the next "
    "word is a field or has no letter or digit.  A ',' ending a value is "
    "a separator.  Any text is read without an error; text without "
    "fields gives no rows.",
    "SELECT key, int_value, string_value FROM "
    "tracestore_args('comm=bash pid=42 prio=120');",
    aTracestoreArgsDoc },
  { "tracestore_attach", "function", "always",
    "tracestore_attach(PATH [, SCHEMA [, MODE]]): creates a table per "
    "store of the session at PATH, store_info, the rollup tables and (in "
    "temp, the default SCHEMA) the views above; returns the number of "
    "store tables and store_info.  MODE 'scan' makes no rollup tables: "
    "the views then compute every answer from the rows (slow on large "
    "sessions; the percentiles exact).  Attaching the same session again "
    "adds the tables of stores created since; a schema that shows another "
    "session (or temp, the sessions of tracestore_attach_sessions) is an "
    "error: tracestore_detach first.",
    "SELECT tracestore_attach('run.trace');", 0 },
  { "tracestore_detach", "function", "always",
    "tracestore_detach([SCHEMA]): drops what tracestore_attach (and, in "
    "temp, tracestore_attach_sessions) made in SCHEMA (temp if omitted): "
    "its tables and views; returns the number of tables dropped.  A table "
    "a running statement reads cannot be dropped: an error, and nothing "
    "is dropped.",
    "SELECT tracestore_detach(); SELECT tracestore_attach('other.trace');",
    0 },
  { "tracestore_attach_sessions", "function", "always",
    "tracestore_attach_sessions(PATH, ...): many sessions as one (each "
    "PATH a session or a directory of sessions).  Each session is attached "
    "in a schema named after its directory (\"a.trace\".page_fault); in "
    "temp, every table and view above becomes the UNION ALL over the "
    "sessions, with two columns first: session (the schema) and host (from "
    "the session header, NULL for sessions made before it was kept).  The "
    "views are computed per session.  Returns the number of sessions.",
    "SELECT tracestore_attach_sessions('fleet/'); "
    "SELECT host, count(*) FROM page_fault GROUP BY host;", 0 },
  { "tracestore_arg", "function", "always",
    "tracestore_arg(TEXT, KEY): the value of the first field KEY of TEXT "
    "(as tracestore_args reads it): an integer when it is one, else text; "
    "NULL if there is no such field.",
    "SELECT tracestore_arg(args, 'filename') FROM ftrace_event "
    "WHERE name = 'sched_process_exec';", 0 },
  { "kvm_exit_reason_name", "function", "always",
    "kvm_exit_reason_name(EXIT_CODE, ISA): the kernel's name of a VMX "
    "('vmx' or 1) or SVM ('svm' or 2) exit code, as the kvm_exit "
    "tracepoint prints it (VMX: of the basic reason, with FAILED_VMENTRY "
    "after it when bit 31 is set); NULL for a code without a name.",
    "SELECT kvm_exit_reason_name(48, 'vmx'), "
    "kvm_exit_reason_name(0x7b, 'svm');", 0 },
  { "source_line", "function", "always",
    "source_line(FILE, LINENO): line LINENO (from 1) of the text file "
    "FILE, without its line end; NULL when the file cannot be read (or is "
    "over 64 MB) or has no such line.  Reads the file as it is now, which "
    "may not be what ran.  Not callable from views or triggers stored in "
    "a database file.",
    "SELECT source_line('/usr/lib/python3.11/json/__init__.py', 1);", 0 },
  { "syscall_name", "function", "always",
    "syscall_name(NR): the name of x86-64 system call NR, or NULL.  The "
    "table is generated at build time from the kernel's asm/unistd_64.h.",
    "SELECT syscall_name(0);", 0 },
  { "syscall_nr", "function", "always",
    "syscall_nr(NAME): the number of x86-64 system call NAME, or NULL.",
    "SELECT syscall_nr('openat');", 0 },
  { "tracestore_schema", "function", "always",
    "tracestore_schema(['markdown']): this document (`tracestore schema "
    "[--markdown]` prints it too).",
    "SELECT tracestore_schema();", 0 },
};

const tracestore_doc_object *tracestoreDocObjects(int *pnObject){
  *pnObject = (int)(sizeof(aDocObject)/sizeof(aDocObject[0]));
  return aDocObject;
}
