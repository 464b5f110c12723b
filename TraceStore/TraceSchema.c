/*++

Module Name:

    TraceSchema.c

Abstract:

    This module defines the column tables of every record type declared in
    TraceSchema.h.  The tables are copied into each store's header when the
    store is created; the SQLite extension reads them back from the file.
    TraceRecordTypes, at the end, says what else each type is: when an
    import opens its store, how the `event` view reads it, and which
    ftrace events fill it.

Environment:

    Core: no C runtime, no OS access (constant tables, and a look-up
    through the RTL's string routines).  Used by the store, the readers
    and the SQLite extension.

--*/

#include "TraceSchema.h"

#define COLUMN(Name, Type, Struct, Field, Flags, Description) {           \
    Name,                                                                  \
    (ULONG)(Type),                                                         \
    (ULONG)FIELD_OFFSET(Struct, Field),                                    \
    (ULONG)sizeof(((Struct *)0)->Field),                                   \
    (ULONG)(Flags),                                                        \
    Description                                                            \
}

#define I64 TraceColumnInt64
#define U64 TraceColumnUInt64
#define I32 TraceColumnInt32
#define U32 TraceColumnUInt32
#define STR (TRACE_COLUMN_STRING_ID)
#define NSTR (TRACE_COLUMN_STRING_ID | TRACE_COLUMN_NULLABLE)
#define TS (TRACE_COLUMN_TIMESTAMP)
#define NUL (TRACE_COLUMN_NULLABLE)
#define ADDR (TRACE_COLUMN_ADDRESS)
#define NBLOB (TRACE_COLUMN_STRING_ID | TRACE_COLUMN_NULLABLE | \
               TRACE_COLUMN_BLOB)

#define SCHEMA(Variable, Name, Struct, Columns, Description)              \
    const TRACE_STORE_SCHEMA Variable = {                                  \
        Name,                                                              \
        (ULONG)sizeof(Struct),                                             \
        (ULONG)ARRAYSIZE(Columns),                                         \
        Columns,                                                           \
        Description                                                        \
    }

static const TRACE_COLUMN_DESCRIPTOR PageFaultColumns[] = {
    COLUMN("ts", I64, PAGE_FAULT_RECORD, Timestamp, TS,
           "time of the fault, ns"),
    COLUMN("address", U64, PAGE_FAULT_RECORD, Address, ADDR | NUL,
           "faulting data address; NULL when the source does not say"),
    COLUMN("ip", U64, PAGE_FAULT_RECORD, Ip, ADDR | NUL,
           "instruction pointer; NULL when the source gave a symbol"),
    COLUMN("ip_sym", U32, PAGE_FAULT_RECORD, IpSymbolId, NSTR,
           "symbol of the instruction pointer, when the source gives it"),
    COLUMN("error_code", U32, PAGE_FAULT_RECORD, ErrorCode, NUL,
           "x86 error code: 1 present, 2 write, 4 user, 16 fetch; or NULL"),
    COLUMN("name", U32, PAGE_FAULT_RECORD, NameId, STR,
           "event name: page_fault_user or page_fault_kernel"),
    COLUMN("tid", U32, PAGE_FAULT_RECORD, Tid, NUL,
           "faulting thread id, NULL when the source does not say"),
    COLUMN("pid", U32, PAGE_FAULT_RECORD, Pid, NUL,
           "faulting process id, NULL when the source does not say"),
    COLUMN("comm", U32, PAGE_FAULT_RECORD, CommId, NSTR,
           "command name of the thread"),
    COLUMN("cpu", U32, PAGE_FAULT_RECORD, Cpu, NUL,
           "CPU that recorded the event, NULL when the source does not say"),
    COLUMN("module", U32, PAGE_FAULT_RECORD, ModuleId, NSTR,
           "mapping of the address if known: a file, [stack], //anon..."),
    COLUMN("ip_module", U32, PAGE_FAULT_RECORD, IpModuleId, NSTR,
           "mapping (dso) that holds the ip, when the source says "
           "(as for module)"),
    COLUMN("hard", U32, PAGE_FAULT_RECORD, Hard, NUL,
           "1 major fault (the page was read in), 0 minor; NULL: not said"),
    COLUMN("fault_kind", U32, PAGE_FAULT_RECORD, FaultKindId, NSTR,
           "file, swap, page_cache, demand_zero, copy_on_write (docs/sql.md); "
           "or NULL"),
    COLUMN("module_offset", U64, PAGE_FAULT_RECORD, ModuleOffset, ADDR | NUL,
           "address - mapping start + its file offset; NULL: no mapping"),
    COLUMN("ip_module_offset", U64, PAGE_FAULT_RECORD, IpModuleOffset,
           ADDR | NUL, "the same for the ip (its mapping: ip_module)"),
    COLUMN("code", U32, PAGE_FAULT_RECORD, Code, NUL,
           "1 the address's mapping is executable, 0 not, NULL unknown"),
};

SCHEMA(TracePageFaultSchema, "page_fault", PAGE_FAULT_RECORD,
       PageFaultColumns, "page faults (exceptions:page_fault_*, perf "
       "fault samples, ETW PageFault events)");

static const TRACE_COLUMN_DESCRIPTOR KvmExitColumns[] = {
    COLUMN("ts", I64, KVM_EXIT_RECORD, Timestamp, TS,
           "time of the VM exit, ns"),
    COLUMN("dur", I64, KVM_EXIT_RECORD, Duration,
           TRACE_COLUMN_DURATION | NUL,
           "ns until the next entry of that vcpu; NULL if none was seen"),
    COLUMN("reason", U32, KVM_EXIT_RECORD, ReasonId, STR,
           "exit reason as the source names it"),
    COLUMN("rip", U64, KVM_EXIT_RECORD, Rip, ADDR | NUL,
           "guest instruction pointer at the exit"),
    COLUMN("vcpu", U32, KVM_EXIT_RECORD, Vcpu, NUL,
           "vcpu id, when the source gives it"),
    COLUMN("tid", U32, KVM_EXIT_RECORD, Tid, NUL,
           "vcpu thread id, NULL when the source does not say"),
    COLUMN("pid", U32, KVM_EXIT_RECORD, Pid, NUL,
           "process id of the VMM, NULL when the source does not say"),
    COLUMN("comm", U32, KVM_EXIT_RECORD, CommId, NSTR,
           "command name of the vcpu thread"),
    COLUMN("cpu", U32, KVM_EXIT_RECORD, Cpu, NUL,
           "host CPU of the exit, NULL when the source does not say"),
    COLUMN("args", U32, KVM_EXIT_RECORD, ArgsId, STR,
           "the exit event's fields as printed"),
    COLUMN("exit_code", U32, KVM_EXIT_RECORD, ExitCode, NUL,
           "numeric exit reason (VMX basic exit reason or SVM exit code)"),
    COLUMN("tsc", U64, KVM_EXIT_RECORD, Tsc, NUL,
           "raw TSC of the exit, when the source records one"),
    COLUMN("raw", U32, KVM_EXIT_RECORD, RawId, NBLOB,
           "the kvm_exit event's record bytes (tracepoint sources)"),
    COLUMN("entry_raw", U32, KVM_EXIT_RECORD, EntryRawId, NBLOB,
           "the kvm_entry event's record bytes (tracepoint sources)"),
};

SCHEMA(TraceKvmExitSchema, "kvm_exit", KVM_EXIT_RECORD,
       KvmExitColumns, "VM exits paired with the following entry");

static const TRACE_COLUMN_DESCRIPTOR SchedSwitchColumns[] = {
    COLUMN("ts", I64, SCHED_SWITCH_RECORD, Timestamp, TS,
           "time of the switch, ns"),
    COLUMN("cpu", U32, SCHED_SWITCH_RECORD, Cpu, NUL,
           "CPU that switched, NULL when the source does not say"),
    COLUMN("prev_comm", U32, SCHED_SWITCH_RECORD, PrevCommId, STR,
           "command name of the task switched out"),
    COLUMN("prev_pid", U32, SCHED_SWITCH_RECORD, PrevPid, 0,
           "thread id of the task switched out"),
    COLUMN("prev_prio", I32, SCHED_SWITCH_RECORD, PrevPrio, 0,
           "kernel priority of the task switched out"),
    COLUMN("prev_state", U32, SCHED_SWITCH_RECORD, PrevStateId, STR,
           "state of the task switched out (R, S, D, R+, ...)"),
    COLUMN("next_comm", U32, SCHED_SWITCH_RECORD, NextCommId, STR,
           "command name of the task switched in"),
    COLUMN("next_pid", U32, SCHED_SWITCH_RECORD, NextPid, 0,
           "thread id of the task switched in"),
    COLUMN("next_prio", I32, SCHED_SWITCH_RECORD, NextPrio, 0,
           "kernel priority of the task switched in"),
    COLUMN("raw", U32, SCHED_SWITCH_RECORD, RawId, NBLOB,
           "the record's bytes (common_type on), as event_format lays them "
           "out, or NULL"),
};

SCHEMA(TraceSchedSwitchSchema, "sched_switch", SCHED_SWITCH_RECORD,
       SchedSwitchColumns, "context switches (sched:sched_switch)");

static const TRACE_COLUMN_DESCRIPTOR FtraceEventColumns[] = {
    COLUMN("ts", I64, FTRACE_EVENT_RECORD, Timestamp, TS,
           "time of the event, ns"),
    COLUMN("name", U32, FTRACE_EVENT_RECORD, NameId, STR,
           "event name"),
    COLUMN("tid", U32, FTRACE_EVENT_RECORD, Tid, NUL,
           "thread id, NULL when the source does not say"),
    COLUMN("pid", U32, FTRACE_EVENT_RECORD, Pid, NUL,
           "process id, NULL when the source does not say"),
    COLUMN("comm", U32, FTRACE_EVENT_RECORD, CommId, NSTR,
           "command name of the thread"),
    COLUMN("cpu", U32, FTRACE_EVENT_RECORD, Cpu, NUL,
           "CPU that recorded the event, NULL when the source does not say"),
    COLUMN("flags", U32, FTRACE_EVENT_RECORD, FlagsId, NSTR,
           "latency flags column (irqs-off, need-resched, ...), if any"),
    COLUMN("args", U32, FTRACE_EVENT_RECORD, ArgsId, STR,
           "the event's fields as printed"),
    COLUMN("raw", U32, FTRACE_EVENT_RECORD, RawId, NBLOB,
           "the record's bytes (common_type on), as event_format lays them "
           "out, or NULL"),
};

SCHEMA(TraceFtraceEventSchema, "ftrace_event", FTRACE_EVENT_RECORD,
       FtraceEventColumns, "every event without a dedicated store");

static const TRACE_COLUMN_DESCRIPTOR ThreadColumns[] = {
    COLUMN("start_ts", I64, THREAD_RECORD, StartTs, 0,
           "first time the thread was seen with this name, ns"),
    COLUMN("tid", U32, THREAD_RECORD, Tid, 0,
           "thread id"),
    COLUMN("pid", U32, THREAD_RECORD, Pid, NUL,
           "process id, NULL when the source does not say"),
    COLUMN("comm", U32, THREAD_RECORD, CommId, NSTR,
           "command name, NULL when the source does not say"),
};

SCHEMA(TraceThreadSchema, "thread", THREAD_RECORD, ThreadColumns,
       "threads: one row per distinct (tid, comm)");

static const TRACE_COLUMN_DESCRIPTOR ProcessColumns[] = {
    COLUMN("start_ts", I64, PROCESS_RECORD, StartTs, 0,
           "time of the exec, or first time seen, ns"),
    COLUMN("pid", U32, PROCESS_RECORD, Pid, 0,
           "process id"),
    COLUMN("name", U32, PROCESS_RECORD, NameId, STR,
           "command name"),
    COLUMN("filename", U32, PROCESS_RECORD, FileNameId, NSTR,
           "executable path from sched_process_exec, if seen"),
};

SCHEMA(TraceProcessSchema, "process", PROCESS_RECORD, ProcessColumns,
       "processes: execs and distinct known process ids");

static const TRACE_COLUMN_DESCRIPTOR SourceColumns[] = {
    COLUMN("imported_at", I64, SOURCE_RECORD, ImportedRealtimeNs, 0,
           "wall-clock start of the import, ns since the Unix epoch"),
    COLUMN("path", U32, SOURCE_RECORD, PathId, STR,
           "input file"),
    COLUMN("format", U32, SOURCE_RECORD, FormatId, STR,
           "input format"),
    COLUMN("first_ts", I64, SOURCE_RECORD, FirstTs, NUL,
           "first event time, ns"),
    COLUMN("last_ts", I64, SOURCE_RECORD, LastTs, NUL,
           "last event time, ns"),
    COLUMN("bytes", U64, SOURCE_RECORD, Bytes, 0,
           "bytes read"),
    COLUMN("lines", U64, SOURCE_RECORD, Lines, 0,
           "lines read"),
    COLUMN("events", U64, SOURCE_RECORD, Events, 0,
           "events read"),
    COLUMN("clock", U32, SOURCE_RECORD, ClockId, NSTR,
           "trace clock the timestamps come from, when the source says"),
    COLUMN("tsc_mhz", TraceColumnDouble, SOURCE_RECORD, TscMhz, NUL,
           "TSC rate used to convert TSC counts to ns, if any"),
    COLUMN("clock_offset", I64, SOURCE_RECORD, ClockOffset, NUL,
           "ns added to every ts of the input (import --clock-offset)"),
    COLUMN("tsc_offset", I64, SOURCE_RECORD, TscOffset, NUL,
           "guest TSC offset subtracted from every raw ts (--tsc-offset)"),
};

SCHEMA(TraceSourceSchema, "source", SOURCE_RECORD, SourceColumns,
       "imported inputs");

static const TRACE_COLUMN_DESCRIPTOR SpanColumns[] = {
    COLUMN("ts", I64, SPAN_RECORD, Timestamp, TS,
           "begin time, ns"),
    COLUMN("dur", I64, SPAN_RECORD, Duration, TRACE_COLUMN_DURATION,
           "end time - begin time, ns"),
    COLUMN("parent_id", I64, SPAN_RECORD, ParentId, NUL,
           "id of the enclosing span on the same thread; NULL at depth 0"),
    COLUMN("name", U32, SPAN_RECORD, NameId, STR,
           "function or span name"),
    COLUMN("depth", U32, SPAN_RECORD, Depth, 0,
           "nesting depth on the thread, 0 for a root span"),
    COLUMN("tid", U32, SPAN_RECORD, Tid, 0,
           "thread id"),
    COLUMN("pid", U32, SPAN_RECORD, Pid, NUL,
           "process id, NULL when the source does not say"),
    COLUMN("cat", U32, SPAN_RECORD, CategoryId, NSTR,
           "category, when the source gives one"),
    COLUMN("args", U32, SPAN_RECORD, ArgsId, NSTR,
           "arguments as text, when the source gives them"),
    COLUMN("flags", U32, SPAN_RECORD, Flags, 0,
           "1 began before the recording, 2 ended after it, 4 instant, 8 late"),
};

SCHEMA(TraceSpanSchema, "span", SPAN_RECORD, SpanColumns,
       "function calls and other nested intervals (Perfetto's slice)");

static const TRACE_COLUMN_DESCRIPTOR LineColumns[] = {
    COLUMN("ts", I64, LINE_RECORD, Timestamp, TS,
           "time of the line event, ns"),
    COLUMN("dur", I64, LINE_RECORD, Duration, TRACE_COLUMN_DURATION,
           "until the frame's next line or its end, ns; callees included"),
    COLUMN("self_dur", I64, LINE_RECORD, SelfDuration, 0,
           "dur minus the time in traced code it called, ns"),
    COLUMN("span_id", I64, LINE_RECORD, SpanId, NUL,
           "id of the span of the enclosing call, or NULL"),
    COLUMN("file", U32, LINE_RECORD, FileId, STR,
           "source file"),
    COLUMN("lineno", U32, LINE_RECORD, LineNo, 0,
           "line number"),
    COLUMN("name", U32, LINE_RECORD, NameId, STR,
           "function, module.qualname as in span.name"),
    COLUMN("tid", U32, LINE_RECORD, Tid, 0,
           "thread id"),
    COLUMN("flags", U32, LINE_RECORD, Flags, 0,
           "2 still running (or running when the recording ended)"),
};

SCHEMA(TraceLineSchema, "line", LINE_RECORD, LineColumns,
       "source lines a Python program executed (trace-python --lines)");

static const TRACE_COLUMN_DESCRIPTOR CounterColumns[] = {
    COLUMN("ts", I64, COUNTER_RECORD, Timestamp, TS,
           "time of the sample, ns"),
    COLUMN("value", TraceColumnDouble, COUNTER_RECORD, Value, NUL,
           "counter value; NULL when not counted or not supported"),
    COLUMN("name", U32, COUNTER_RECORD, NameId, STR,
           "counter name"),
    COLUMN("unit", U32, COUNTER_RECORD, UnitId, NSTR,
           "unit, when the source gives one"),
    COLUMN("running_pct", TraceColumnDouble, COUNTER_RECORD, RunningPercent,
           NUL, "percentage of the interval the counter was running"),
    COLUMN("pid", U32, COUNTER_RECORD, Pid, NUL,
           "process the counter belongs to, if any"),
    COLUMN("cpu", U32, COUNTER_RECORD, Cpu, NUL,
           "CPU the counter belongs to, if any"),
};

SCHEMA(TraceCounterSchema, "counter", COUNTER_RECORD, CounterColumns,
       "counter samples (perf stat intervals, Chrome C events)");

static const TRACE_COLUMN_DESCRIPTOR ModuleColumns[] = {
    COLUMN("ts", I64, MODULE_RECORD, Timestamp, TS,
           "time the mapping was seen (process start, or maps read), ns"),
    COLUMN("pid", U32, MODULE_RECORD, Pid, NUL,
           "process id, NULL when the source does not say"),
    COLUMN("start", U64, MODULE_RECORD, Start, ADDR,
           "first address of the mapping"),
    COLUMN("end", U64, MODULE_RECORD, End, ADDR,
           "first address after the mapping"),
    COLUMN("offset", U64, MODULE_RECORD, Offset, 0,
           "file offset mapped at start, bytes"),
    COLUMN("path", U32, MODULE_RECORD, PathId, NSTR,
           "mapped file, or [stack], [heap], ...; NULL for anonymous memory"),
    COLUMN("perms", U32, MODULE_RECORD, PermsId, STR,
           "permissions as in /proc/PID/maps: r-xp = read, exec, private"),
    COLUMN("build_id", U32, MODULE_RECORD, BuildIdId, NSTR,
           "GNU build id of the file in hex, when the source gives it"),
};

SCHEMA(TraceModuleSchema, "module", MODULE_RECORD, ModuleColumns,
       "memory mappings of processes (/proc/PID/maps, uftrace *.map, "
       "tracestore record's mmap records, ETW image events)");

static const TRACE_COLUMN_DESCRIPTOR SampleColumns[] = {
    COLUMN("ts", I64, SAMPLE_RECORD, Timestamp, TS,
           "time of the sample, ns"),
    COLUMN("name", U32, SAMPLE_RECORD, NameId, STR,
           "sampling event (cpu-clock, task-clock, cycles, ...)"),
    COLUMN("tid", U32, SAMPLE_RECORD, Tid, NUL,
           "thread id, NULL when the source does not say"),
    COLUMN("pid", U32, SAMPLE_RECORD, Pid, NUL,
           "process id, NULL when the source does not say"),
    COLUMN("comm", U32, SAMPLE_RECORD, CommId, NSTR,
           "thread command name at the time of the sample"),
    COLUMN("cpu", U32, SAMPLE_RECORD, Cpu, NUL,
           "CPU the sample was taken on, when recorded"),
    COLUMN("ip", U64, SAMPLE_RECORD, Ip, ADDR | NUL,
           "instruction pointer sampled"),
    COLUMN("period", U64, SAMPLE_RECORD, Period, NUL,
           "events the sample stands for (ns of cpu-clock, cycles, ...)"),
    COLUMN("stack_id", I64, SAMPLE_RECORD, StackId, NUL,
           "the leaf callsite of the sample's call stack (stack.id)"),
};

SCHEMA(TraceSampleSchema, "sample", SAMPLE_RECORD, SampleColumns,
       "samples of sampling events with their call stacks (perf record; "
       "Perfetto's perf_sample)");

static const TRACE_COLUMN_DESCRIPTOR StackColumns[] = {
    COLUMN("parent_id", I64, STACK_RECORD, ParentId, NUL,
           "the calling callsite (stack.id), NULL at the root"),
    COLUMN("frame_id", U64, STACK_RECORD, FrameId, 0,
           "the frame called (frame.id)"),
    COLUMN("depth", U32, STACK_RECORD, Depth, 0,
           "callsites above this one, 0 at the root"),
};

SCHEMA(TraceStackSchema, "stack", STACK_RECORD, StackColumns,
       "callsites of the samples' call stacks, each stored once "
       "(Perfetto's stack_profile_callsite)");

static const TRACE_COLUMN_DESCRIPTOR FrameColumns[] = {
    COLUMN("ip", U64, FRAME_RECORD, Ip, ADDR,
           "code address (as first sampled)"),
    COLUMN("module", U32, FRAME_RECORD, ModuleId, NSTR,
           "mapped file holding the address, when its mapping is known"),
    COLUMN("module_offset", U64, FRAME_RECORD, ModuleOffset, NUL,
           "address - mapping start + file offset, when known"),
    COLUMN("symbol", U32, FRAME_RECORD, SymbolId, NSTR,
           "function holding the address, when a symbol table says"),
    COLUMN("kernel", U32, FRAME_RECORD, Kernel, 0,
           "1 a kernel address, 0 a user one"),
};

static const TRACE_COLUMN_DESCRIPTOR MetadataColumns[] = {
    COLUMN("source_id", U64, METADATA_RECORD, SourceId, 0,
           "the input that states it (source.id)"),
    COLUMN("name", U32, METADATA_RECORD, NameId, STR,
           "the fact: perf.hostname, perf.cmdline, ... (reader-perf-data.md)"),
    COLUMN("int_value", I64, METADATA_RECORD, IntValue, NUL,
           "its value, when a number"),
    COLUMN("str_value", U32, METADATA_RECORD, StrValueId, NSTR,
           "its value, when text"),
};

SCHEMA(TraceMetadataSchema, "metadata", METADATA_RECORD, MetadataColumns,
       "facts each input states about its recording (Perfetto's "
       "metadata)");

static const TRACE_COLUMN_DESCRIPTOR EventFormatColumns[] = {
    COLUMN("source_id", U64, EVENT_FORMAT_RECORD, SourceId, 0,
           "the input whose records it describes (source.id)"),
    COLUMN("system", U32, EVENT_FORMAT_RECORD, SystemId, STR,
           "event system: sched, raw_syscalls, ..."),
    COLUMN("name", U32, EVENT_FORMAT_RECORD, NameId, STR,
           "event name"),
    COLUMN("common_type", U32, EVENT_FORMAT_RECORD, Id, 0,
           "the event's id in that input (common_type)"),
    COLUMN("format", U32, EVENT_FORMAT_RECORD, FormatId, STR,
           "the format file's text: fields with offset, size, signed; "
           "print fmt"),
};

SCHEMA(TraceEventFormatSchema, "event_format", EVENT_FORMAT_RECORD,
       EventFormatColumns, "descriptions of the events binary sources "
       "recorded (tracefs format files), one per event and source");

SCHEMA(TraceFrameSchema, "frame", FRAME_RECORD, FrameColumns,
       "code addresses of the samples' call stacks, placed and symbolized "
       "(Perfetto's stack_profile_frame)");

static const TRACE_COLUMN_DESCRIPTOR StringColumns[] = {
    COLUMN("offset", U64, TRACE_STRING_RECORD, Offset, 0,
           "offset of the bytes in string_data"),
    COLUMN("length", U32, TRACE_STRING_RECORD, Length, 0,
           "length in bytes"),
    COLUMN("hash", U32, TRACE_STRING_RECORD, Hash, 0,
           "low 32 bits of XXH3-64 of the bytes"),
};

SCHEMA(TraceStringSchema, "string", TRACE_STRING_RECORD, StringColumns,
       "interned strings; the id is the rowid");

typedef struct _TRACE_BYTE_RECORD {
    BYTE Byte;
} TRACE_BYTE_RECORD;

static const TRACE_COLUMN_DESCRIPTOR StringDataColumns[] = {
    COLUMN("byte", TraceColumnUInt8, TRACE_BYTE_RECORD, Byte, 0,
           "one byte of string text"),
};

SCHEMA(TraceStringDataSchema, "string_data", TRACE_BYTE_RECORD,
       StringDataColumns, "bytes of the interned strings");

//
// The ftrace events of the dedicated stores (TRACE_FTRACE_MAP in
// TraceSchema.h): each field names the tracepoint's field, what precedes
// its value when printed, the conversion, and the column(s) it fills.
//

#define IS_SIGNED(Struct, Member)                                          \
    ((__typeof__(((Struct *)0)->Member))-1 <                               \
     (__typeof__(((Struct *)0)->Member))1)

#define FTRACE(Field, TextKey, Conversion, Struct, Member) {              \
    Field, TextKey, (USHORT)(Conversion),                                  \
    (USHORT)IS_SIGNED(Struct, Member),                                     \
    (USHORT)FIELD_OFFSET(Struct, Member),                                  \
    (USHORT)sizeof(((Struct *)0)->Member), 0, 0                            \
}

#define FTRACE2(Field, TextKey, Conversion, Struct, Member, Member2) {    \
    Field, TextKey, (USHORT)(Conversion),                                  \
    (USHORT)IS_SIGNED(Struct, Member),                                     \
    (USHORT)FIELD_OFFSET(Struct, Member),                                  \
    (USHORT)sizeof(((Struct *)0)->Member),                                 \
    (USHORT)FIELD_OFFSET(Struct, Member2),                                 \
    (USHORT)sizeof(((Struct *)0)->Member2)                                 \
}

#define FTRACE_MAP(Variable, System, Events, EndEvent, Flags, Fields)     \
    static const TRACE_FTRACE_MAP Variable = {                             \
        System, Events, EndEvent, Flags, (ULONG)ARRAYSIZE(Fields), Fields  \
    }

#define EVENTS(...) { __VA_ARGS__, NULL }

static const TRACE_FTRACE_FIELD PageFaultFtraceFields[] = {
    FTRACE("address", "address=", TraceFtraceNumber, PAGE_FAULT_RECORD,
           Address),
    FTRACE("error_code", "error_code=", TraceFtraceNumber,
           PAGE_FAULT_RECORD, ErrorCode),
    FTRACE2("ip", "ip=", TraceFtraceSymbol, PAGE_FAULT_RECORD, Ip,
            IpSymbolId),
    FTRACE(NULL, NULL, TraceFtraceEventName, PAGE_FAULT_RECORD, NameId),
    FTRACE(NULL, NULL, TraceFtraceNull, PAGE_FAULT_RECORD, ModuleId),
    FTRACE(NULL, NULL, TraceFtraceNull, PAGE_FAULT_RECORD, IpModuleId),
};

FTRACE_MAP(PageFaultFtrace, "exceptions",
           EVENTS("page_fault_user", "page_fault_kernel"), NULL, 0,
           PageFaultFtraceFields);

static const TRACE_FTRACE_FIELD KvmExitFtraceFields[] = {
    FTRACE2("exit_reason", "reason ", TraceFtraceExitReason,
            KVM_EXIT_RECORD, ReasonId, ExitCode),
    FTRACE("guest_rip", "rip ", TraceFtraceOptionalNumber, KVM_EXIT_RECORD,
           Rip),
    FTRACE("vcpu_id", "vcpu ", TraceFtraceOptionalNumber, KVM_EXIT_RECORD,
           Vcpu),
    FTRACE(NULL, NULL, TraceFtraceEventArgs, KVM_EXIT_RECORD, ArgsId),
    FTRACE(NULL, NULL, TraceFtraceNull, KVM_EXIT_RECORD, Tsc),
    FTRACE(NULL, NULL, TraceFtraceEventRaw, KVM_EXIT_RECORD, RawId),
};

FTRACE_MAP(KvmExitFtrace, "kvm", EVENTS("kvm_exit"), "kvm_entry", 0,
           KvmExitFtraceFields);

//
// Printed, a string runs to the next field's key: prev_comm to prev_pid,
// next_comm to next_pid (a comm may hold blanks).
//

static const TRACE_FTRACE_FIELD SchedSwitchFtraceFields[] = {
    FTRACE("prev_comm", "prev_comm=", TraceFtraceString,
           SCHED_SWITCH_RECORD, PrevCommId),
    FTRACE("prev_pid", "prev_pid=", TraceFtraceNumber, SCHED_SWITCH_RECORD,
           PrevPid),
    FTRACE("prev_prio", "prev_prio=", TraceFtraceNumber,
           SCHED_SWITCH_RECORD, PrevPrio),
    FTRACE("next_comm", "next_comm=", TraceFtraceString,
           SCHED_SWITCH_RECORD, NextCommId),
    FTRACE("next_pid", "next_pid=", TraceFtraceNumber, SCHED_SWITCH_RECORD,
           NextPid),
    FTRACE("next_prio", "next_prio=", TraceFtraceNumber,
           SCHED_SWITCH_RECORD, NextPrio),
    FTRACE("prev_state", "prev_state=", TraceFtraceStateLetters,
           SCHED_SWITCH_RECORD, PrevStateId),
    FTRACE(NULL, NULL, TraceFtraceEventRaw, SCHED_SWITCH_RECORD, RawId),
};

FTRACE_MAP(SchedSwitchFtrace, "sched", EVENTS("sched_switch"), NULL, 0,
           SchedSwitchFtraceFields);

static const TRACE_FTRACE_FIELD ProcessFtraceFields[] = {
    FTRACE("filename", "filename=", TraceFtraceString, PROCESS_RECORD,
           FileNameId),
    FTRACE("pid", "pid=", TraceFtraceNumber, PROCESS_RECORD, Pid),
};

FTRACE_MAP(ProcessFtrace, "sched", EVENTS("sched_process_exec"), NULL,
           TRACE_FTRACE_ALSO_GENERIC, ProcessFtraceFields);

//
// The record types, by kind (see TraceSchema.h).  The ftrace maps are
// declared with the columns they fill, above.
//

#define RECORD(Kind, Schema, Flags, Name, Pid, Tid, Cpu, Ftrace)          \
    [Kind] = { &(Schema), (Kind), (Flags), { Name, Pid, Tid, Cpu }, Ftrace }

#define AT_BEGIN TRACE_RECORD_OPEN_AT_BEGIN
#define EVENT TRACE_RECORD_EVENT
#define ROLLUP TRACE_RECORD_ROLLUP

const TRACE_RECORD_TYPE TraceRecordTypes[TraceRecordKindMaximum] = {
    RECORD(TraceRecordSource, TraceSourceSchema, AT_BEGIN,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordProcess, TraceProcessSchema, AT_BEGIN,
           NULL, NULL, NULL, NULL, &ProcessFtrace),
    RECORD(TraceRecordThread, TraceThreadSchema, AT_BEGIN,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordFtraceEvent, TraceFtraceEventSchema, AT_BEGIN | EVENT,
           "name", "pid", "tid", "cpu", NULL),
    RECORD(TraceRecordPageFault, TracePageFaultSchema, AT_BEGIN | EVENT,
           "name", "pid", "tid", "cpu", &PageFaultFtrace),
    RECORD(TraceRecordKvmExit, TraceKvmExitSchema, AT_BEGIN | EVENT,
           NULL, "pid", "tid", "cpu", &KvmExitFtrace),
    RECORD(TraceRecordSchedSwitch, TraceSchedSwitchSchema, AT_BEGIN | EVENT,
           NULL, NULL, "prev_pid", "cpu", &SchedSwitchFtrace),
    RECORD(TraceRecordSpan, TraceSpanSchema, EVENT,
           "name", "pid", "tid", NULL, NULL),
    RECORD(TraceRecordCounter, TraceCounterSchema, EVENT,
           "name", "pid", NULL, "cpu", NULL),
    RECORD(TraceRecordModule, TraceModuleSchema, 0,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordFrame, TraceFrameSchema, 0,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordStack, TraceStackSchema, 0,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordSample, TraceSampleSchema, EVENT,
           "name", "pid", "tid", "cpu", NULL),
    RECORD(TraceRecordMetadata, TraceMetadataSchema, 0,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordEventFormat, TraceEventFormatSchema, 0,
           NULL, NULL, NULL, NULL, NULL),
    RECORD(TraceRecordLine, TraceLineSchema, ROLLUP,
           NULL, NULL, NULL, NULL, NULL),
};

PCTRACE_COLUMN_DESCRIPTOR
TraceSchemaFindColumn(
    PCTRACE_STORE_SCHEMA Schema,
    PCSZ Name
    )
{
    ULONG Index;

    for (Index = 0; Index < Schema->NumberOfColumns; Index++) {
        if (RtlStringEqual(Schema->Columns[Index].Name, Name)) {
            return &Schema->Columns[Index];
        }
    }
    return NULL;
}
