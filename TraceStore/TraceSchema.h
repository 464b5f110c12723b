/*++

Module Name:

    TraceSchema.h

Abstract:

    This module declares the record types Tracer stores and their schemas.
    Each record is a fixed-size structure with C_ASSERTs on its layout; its
    schema (TraceSchema.c) names every column, and is copied into the store
    header so that the SQLite extension builds each virtual table from the
    file alone.  Adding a record type is one structure here and one schema
    table in TraceSchema.c.

    Conventions shared by every record:

        ts      int64 ns in the session's clock domain.
        tid     kernel task id (what ftrace prints as "pid").
        pid     thread group id (process) when the source tells it, else
                NULL (all ones).
        *Id     32-bit ids into the string store.

--*/

#ifndef _TRACER_TRACE_SCHEMA_H_
#define _TRACER_TRACE_SCHEMA_H_

#include "TraceStore.h"

#define TRACE_NULL_ULONG     0xffffffffu
#define TRACE_NULL_ULONGLONG 0xffffffffffffffffull
#define TRACE_NULL_LONGLONG  ((LONGLONG)-1)

//
// page_fault: one row per page fault event.
//

typedef struct _PAGE_FAULT_RECORD {
    LONGLONG Timestamp;     // ts
    ULONGLONG Address;      // faulting data address
    ULONGLONG Ip;           // instruction pointer; NULL if only a symbol
    ULONG Tid;              // faulting task
    ULONG Pid;              // its process, or NULL
    ULONG ErrorCode;        // x86 page fault error code
    ULONG NameId;           // event name (page_fault_user, ...)
    ULONG CommId;           // task command name
    ULONG IpSymbolId;       // symbol of the ip, or NULL
    ULONG Cpu;              // CPU the event was recorded on
    ULONG ModuleId;         // mapping (dso) of the address, or NULL
    ULONG IpModuleId;       // mapping (dso) of the ip, or NULL
    ULONG Padding;
} PAGE_FAULT_RECORD, *PPAGE_FAULT_RECORD;

C_ASSERT(sizeof(PAGE_FAULT_RECORD) == 64);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Address) == 8);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Ip) == 16);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Tid) == 24);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, ErrorCode) == 32);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, IpSymbolId) == 44);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Cpu) == 48);

//
// kvm_exit: a VM exit and the entry that ends it, as one row.
//

typedef struct _KVM_EXIT_RECORD {
    LONGLONG Timestamp;     // ts of the exit
    LONGLONG Duration;      // entry ts - exit ts; NULL if no entry seen
    ULONGLONG Rip;          // guest rip at exit, or NULL
    ULONG ReasonId;         // exit reason as the source names it
    ULONG Vcpu;             // vcpu id, or NULL
    ULONG Tid;              // vcpu thread
    ULONG Pid;              // its process, or NULL
    ULONG Cpu;              // host CPU of the exit
    ULONG CommId;           // vcpu thread command name
    ULONG ArgsId;           // the exit event's full field text
    ULONG ExitCode;         // numeric exit code, or NULL
    ULONGLONG Tsc;          // raw TSC of the exit (kvmtrace), or NULL
} KVM_EXIT_RECORD, *PKVM_EXIT_RECORD;

C_ASSERT(sizeof(KVM_EXIT_RECORD) == 64);
C_ASSERT(FIELD_OFFSET(KVM_EXIT_RECORD, Duration) == 8);
C_ASSERT(FIELD_OFFSET(KVM_EXIT_RECORD, Rip) == 16);
C_ASSERT(FIELD_OFFSET(KVM_EXIT_RECORD, ReasonId) == 24);
C_ASSERT(FIELD_OFFSET(KVM_EXIT_RECORD, ArgsId) == 48);

//
// sched_switch: field names as the kernel's tracepoint.
//

typedef struct _SCHED_SWITCH_RECORD {
    LONGLONG Timestamp;     // ts
    ULONG Cpu;
    ULONG PrevPid;          // prev_pid (a tid)
    ULONG PrevCommId;
    LONG PrevPrio;
    ULONG PrevStateId;      // "R", "S", "D", "R+", ...
    ULONG NextPid;
    ULONG NextCommId;
    LONG NextPrio;
} SCHED_SWITCH_RECORD, *PSCHED_SWITCH_RECORD;

C_ASSERT(sizeof(SCHED_SWITCH_RECORD) == 40);
C_ASSERT(FIELD_OFFSET(SCHED_SWITCH_RECORD, Cpu) == 8);
C_ASSERT(FIELD_OFFSET(SCHED_SWITCH_RECORD, PrevStateId) == 24);
C_ASSERT(FIELD_OFFSET(SCHED_SWITCH_RECORD, NextPrio) == 36);

//
// ftrace_event: every event without a dedicated store.
//

typedef struct _FTRACE_EVENT_RECORD {
    LONGLONG Timestamp;     // ts
    ULONG NameId;           // event name
    ULONG CommId;           // task command name
    ULONG Tid;
    ULONG Pid;              // or NULL
    ULONG Cpu;
    ULONG FlagsId;          // latency flags column ("d..2."), or NULL
    ULONG ArgsId;           // the event's field text, as printed
    ULONG Padding;
} FTRACE_EVENT_RECORD, *PFTRACE_EVENT_RECORD;

C_ASSERT(sizeof(FTRACE_EVENT_RECORD) == 40);
C_ASSERT(FIELD_OFFSET(FTRACE_EVENT_RECORD, NameId) == 8);
C_ASSERT(FIELD_OFFSET(FTRACE_EVENT_RECORD, Cpu) == 24);
C_ASSERT(FIELD_OFFSET(FTRACE_EVENT_RECORD, ArgsId) == 32);

//
// thread: one row per distinct (tid, comm) seen.
//

typedef struct _THREAD_RECORD {
    LONGLONG StartTs;       // first ts the thread was seen with this comm
    ULONG Tid;
    ULONG Pid;              // or NULL
    ULONG CommId;
    ULONG Padding;
} THREAD_RECORD, *PTHREAD_RECORD;

C_ASSERT(sizeof(THREAD_RECORD) == 24);
C_ASSERT(FIELD_OFFSET(THREAD_RECORD, Tid) == 8);
C_ASSERT(FIELD_OFFSET(THREAD_RECORD, CommId) == 16);

//
// process: one row per process start (exec) or distinct known pid.
//

typedef struct _PROCESS_RECORD {
    LONGLONG StartTs;       // ts of the exec, or first seen
    ULONG Pid;
    ULONG NameId;           // command name
    ULONG FileNameId;       // executable path from the exec, or NULL
    ULONG Padding;
} PROCESS_RECORD, *PPROCESS_RECORD;

C_ASSERT(sizeof(PROCESS_RECORD) == 24);
C_ASSERT(FIELD_OFFSET(PROCESS_RECORD, Pid) == 8);
C_ASSERT(FIELD_OFFSET(PROCESS_RECORD, FileNameId) == 16);

//
// source: one row per imported input.
//

typedef struct _SOURCE_RECORD {
    LONGLONG ImportedRealtimeNs; // wall clock at the start of the import
    LONGLONG FirstTs;            // or NULL if no events
    LONGLONG LastTs;             // or NULL if no events
    ULONGLONG Bytes;             // bytes read
    ULONGLONG Lines;             // lines (text formats)
    ULONGLONG Events;            // events read
    ULONG PathId;
    ULONG FormatId;
    ULONG ClockId;               // the trace's clock ("local", "tsc", ...)
    ULONG Padding;
    DOUBLE TscMhz;               // TSC rate used to convert to ns, or NULL
} SOURCE_RECORD, *PSOURCE_RECORD;

C_ASSERT(sizeof(SOURCE_RECORD) == 72);
C_ASSERT(FIELD_OFFSET(SOURCE_RECORD, Bytes) == 24);
C_ASSERT(FIELD_OFFSET(SOURCE_RECORD, PathId) == 48);

//
// span: a function call or any other interval with a begin and an end on
// one thread (uftrace entry/exit, Chrome trace B/E and X), like Perfetto's
// `slice`.  Spans nest per thread: depth 0 has no parent.  Instants are
// spans of dur 0.
//

#define SPAN_FLAG_BEGIN_MISSING 0x1 // began before the recording; ts is
                                    // the trace's first ts
#define SPAN_FLAG_END_MISSING   0x2 // ended after the recording; dur runs
                                    // to the trace's last ts
#define SPAN_FLAG_INSTANT       0x4 // an instant event (dur 0)
#define SPAN_FLAG_LATE          0x8 // came after its turn (the reader's
                                    // reorder window was full): nested
                                    // under the deepest open span that
                                    // contains it, enclosing nothing

typedef struct _SPAN_RECORD {
    LONGLONG Timestamp;     // ts of the begin
    LONGLONG Duration;      // end ts - begin ts
    LONGLONG ParentId;      // id (row number) of the enclosing span, or NULL
    ULONG NameId;
    ULONG Depth;            // 0 for a span without parent
    ULONG Tid;
    ULONG Pid;              // or NULL
    ULONG CategoryId;       // category (Chrome "cat"), or NULL
    ULONG ArgsId;           // arguments as text, or NULL
    ULONG Flags;            // SPAN_FLAG_*
    ULONG Padding;
} SPAN_RECORD, *PSPAN_RECORD;

C_ASSERT(sizeof(SPAN_RECORD) == 56);
C_ASSERT(FIELD_OFFSET(SPAN_RECORD, NameId) == 24);

//
// counter: one sample of a named counter (perf stat intervals, Chrome "C"
// events).
//

typedef struct _COUNTER_RECORD {
    LONGLONG Timestamp;     // ts of the sample (end of the interval)
    DOUBLE Value;           // NULL (all ones) when not counted
    DOUBLE RunningPercent;  // share of the interval the counter ran, or NULL
    ULONG NameId;           // counter (event) name
    ULONG UnitId;           // unit, or NULL
    ULONG Pid;              // or NULL
    ULONG Cpu;              // or NULL
} COUNTER_RECORD, *PCOUNTER_RECORD;

C_ASSERT(sizeof(COUNTER_RECORD) == 40);
C_ASSERT(FIELD_OFFSET(COUNTER_RECORD, NameId) == 24);

//
// module: one row per mapping of a process's address space, as
// /proc/PID/maps lists it (uftrace's sid-SID.map files are copies), so that
// an address can be attributed to the file mapped there.
//

typedef struct _MODULE_RECORD {
    LONGLONG Timestamp;     // ts when the mapping was seen
    ULONGLONG Start;        // first address of the mapping
    ULONGLONG End;          // first address after it
    ULONGLONG Offset;       // file offset mapped at Start
    ULONG Pid;              // process, or NULL
    ULONG PathId;           // mapped file or [stack]/[heap]/...; NULL if anonymous
    ULONG PermsId;          // "r-xp": read, write, exec, private/shared
    ULONG BuildIdId;        // GNU build id in hex, when the source gives it
} MODULE_RECORD, *PMODULE_RECORD;

C_ASSERT(sizeof(MODULE_RECORD) == 48);
C_ASSERT(FIELD_OFFSET(MODULE_RECORD, Start) == 8);
C_ASSERT(FIELD_OFFSET(MODULE_RECORD, Offset) == 24);
C_ASSERT(FIELD_OFFSET(MODULE_RECORD, Pid) == 32);
C_ASSERT(FIELD_OFFSET(MODULE_RECORD, BuildIdId) == 44);

//
// Schemas.
//

extern const TRACE_STORE_SCHEMA TracePageFaultSchema;
extern const TRACE_STORE_SCHEMA TraceKvmExitSchema;
extern const TRACE_STORE_SCHEMA TraceSchedSwitchSchema;
extern const TRACE_STORE_SCHEMA TraceFtraceEventSchema;
extern const TRACE_STORE_SCHEMA TraceThreadSchema;
extern const TRACE_STORE_SCHEMA TraceProcessSchema;
extern const TRACE_STORE_SCHEMA TraceSourceSchema;
extern const TRACE_STORE_SCHEMA TraceSpanSchema;
extern const TRACE_STORE_SCHEMA TraceCounterSchema;
extern const TRACE_STORE_SCHEMA TraceModuleSchema;
extern const TRACE_STORE_SCHEMA TraceStringSchema;
extern const TRACE_STORE_SCHEMA TraceStringDataSchema;

//
// Every schema, in commit order (dependencies first), NULL-terminated.
//

extern const PCTRACE_STORE_SCHEMA TraceAllSchemas[];

#endif // _TRACER_TRACE_SCHEMA_H_
