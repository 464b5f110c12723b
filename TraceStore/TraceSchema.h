/*++

Module Name:

    TraceSchema.h

Abstract:

    This module declares the record types Tracer stores and their schemas.
    Each record is a fixed-size structure with C_ASSERTs on its layout; its
    schema (TraceSchema.c) names every column, and is copied into the store
    header so that the SQLite extension builds each virtual table from the
    file alone.  Adding a record type is one structure here, one kind in
    TRACE_RECORD_KIND, and its columns and TraceRecordTypes entry in
    TraceSchema.c (docs/adding.md).

    Conventions shared by every record:

        ts      int64 ns in the session's clock domain.
        tid     kernel task id (what ftrace prints as "pid").
        pid     thread group id (process) when the source tells it, else
                NULL (all ones).
        *Id     32-bit ids into the string store.

Environment:

    Core: no C runtime, no OS access (declarations and constant tables).
    Included by the store, the readers, the SQLite extension and the tests.

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
    ULONG FaultKindId;      // "demand_zero", "file", ... or NULL
    ULONGLONG ModuleOffset; // address - mapping start + file offset, or NULL
    ULONGLONG IpModuleOffset; // the same for the ip, or NULL
    ULONG Hard;             // 1 major, 0 minor, or NULL
    ULONG Code;             // 1 the address's mapping executes, 0 not, NULL
} PAGE_FAULT_RECORD, *PPAGE_FAULT_RECORD;

C_ASSERT(sizeof(PAGE_FAULT_RECORD) == 88);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Address) == 8);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Ip) == 16);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Tid) == 24);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, ErrorCode) == 32);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, IpSymbolId) == 44);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Cpu) == 48);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, FaultKindId) == 60);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, ModuleOffset) == 64);
C_ASSERT(FIELD_OFFSET(PAGE_FAULT_RECORD, Hard) == 80);

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
    ULONG RawId;            // the exit event's record bytes, or NULL
    ULONG EntryRawId;       // the entry event's, or NULL
} KVM_EXIT_RECORD, *PKVM_EXIT_RECORD;

C_ASSERT(sizeof(KVM_EXIT_RECORD) == 72);
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
    ULONG RawId;            // the record's bytes (a string), or NULL
    ULONG Padding;
} SCHED_SWITCH_RECORD, *PSCHED_SWITCH_RECORD;

C_ASSERT(sizeof(SCHED_SWITCH_RECORD) == 48);
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
    ULONG RawId;            // the record's bytes (a string), or NULL
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
    LONGLONG ClockOffset;        // ns added to every ts (--clock-offset),
                                 // or NULL
    LONGLONG TscOffset;          // guest TSC offset subtracted from every
                                 // raw ts (--tsc-offset), or NULL
} SOURCE_RECORD, *PSOURCE_RECORD;

C_ASSERT(sizeof(SOURCE_RECORD) == 88);
C_ASSERT(FIELD_OFFSET(SOURCE_RECORD, ClockOffset) == 72);
C_ASSERT(FIELD_OFFSET(SOURCE_RECORD, TscOffset) == 80);
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
// line: a source line a Python program executed (trace-python --lines):
// one row per line event of a traced code object, as sys.settrace and
// line_profiler count them.  A row lasts until the next line event of its
// frame or the frame's end (return, yield, exception): time spent in the
// calls the line makes is in its dur, as line_profiler's Time counts it;
// self_dur leaves out the time spent in traced lines deeper down (every ns
// inside traced code counts once, at its innermost traced line).
//

typedef struct _LINE_RECORD {
    LONGLONG Timestamp;     // ts of the line event
    LONGLONG Duration;      // until the frame's next line event or its end
    LONGLONG SelfDuration;  // dur - time in traced frames it called
    LONGLONG SpanId;        // span row of the enclosing call, or NULL
    ULONG FileId;           // source file (co_filename)
    ULONG LineNo;           // line number, 1-based
    ULONG NameId;           // function, "module.qualname" (span.name)
    ULONG Tid;
    ULONG Flags;            // SPAN_FLAG_END_MISSING while it runs
    ULONG Padding;
} LINE_RECORD, *PLINE_RECORD;

C_ASSERT(sizeof(LINE_RECORD) == 56);
C_ASSERT(FIELD_OFFSET(LINE_RECORD, FileId) == 32);

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
// sample: one row per sample of a sampling event (cpu-clock, task-clock,
// cycles: perf record), with its call stack (Perfetto's perf_sample).
//

typedef struct _SAMPLE_RECORD {
    LONGLONG Timestamp;     // ts
    ULONGLONG Ip;           // sampled instruction pointer, or NULL
    ULONGLONG Period;       // events the sample stands for, or NULL
    LONGLONG StackId;       // the leaf callsite (`stack` row), or NULL
    ULONG NameId;           // event name
    ULONG Tid;              // or NULL
    ULONG Pid;              // or NULL
    ULONG Cpu;              // or NULL
    ULONG CommId;           // or NULL
    ULONG Padding;
} SAMPLE_RECORD, *PSAMPLE_RECORD;

C_ASSERT(sizeof(SAMPLE_RECORD) == 56);
C_ASSERT(FIELD_OFFSET(SAMPLE_RECORD, StackId) == 24);
C_ASSERT(FIELD_OFFSET(SAMPLE_RECORD, NameId) == 32);

//
// stack: the callsites of the samples' stacks, each stored once
// (Perfetto's stack_profile_callsite): a frame called from its parent
// callsite.
//

typedef struct _STACK_RECORD {
    LONGLONG ParentId;      // the caller's callsite, or NULL at the root
    ULONGLONG FrameId;      // `frame` row
    ULONG Depth;            // 0 at the root
    ULONG Padding;
} STACK_RECORD, *PSTACK_RECORD;

C_ASSERT(sizeof(STACK_RECORD) == 24);

//
// frame: a code address of the stacks, placed in its mapped file and
// named by the symbol holding it (Perfetto's stack_profile_frame).
//

typedef struct _FRAME_RECORD {
    ULONGLONG Ip;           // the address (as first sampled)
    ULONGLONG ModuleOffset; // address - mapping start + file offset, or NULL
    ULONG ModuleId;         // mapped file, or NULL
    ULONG SymbolId;         // function, or NULL
    ULONG Kernel;           // 1 kernel, 0 user
    ULONG Padding;
} FRAME_RECORD, *PFRAME_RECORD;

C_ASSERT(sizeof(FRAME_RECORD) == 32);

//
// metadata: facts an input states about itself, one row each, by name
// (the recording's host, command line, CPUs, clock: Perfetto's metadata).
//

typedef struct _METADATA_RECORD {
    ULONGLONG SourceId;     // the source row of the input that states it
    LONGLONG IntValue;      // or NULL
    ULONG NameId;           // "perf.hostname", ...
    ULONG StrValueId;       // or NULL
} METADATA_RECORD, *PMETADATA_RECORD;

C_ASSERT(sizeof(METADATA_RECORD) == 24);

//
// event_format: the description of an event that a binary source's
// records follow (the tracefs `format` file), one row per event per
// source, written when the event is first met: what decodes the raw
// bytes of its rows (ftrace_event.raw) field by field.
//

typedef struct _EVENT_FORMAT_RECORD {
    ULONGLONG SourceId;     // the source row of the input
    ULONG SystemId;         // "raw_syscalls"
    ULONG NameId;           // "sys_enter"
    ULONG Id;               // the event's id in that source (common_type)
    ULONG FormatId;         // the format file's text
} EVENT_FORMAT_RECORD, *PEVENT_FORMAT_RECORD;

C_ASSERT(sizeof(EVENT_FORMAT_RECORD) == 24);

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
extern const TRACE_STORE_SCHEMA TraceSampleSchema;
extern const TRACE_STORE_SCHEMA TraceStackSchema;
extern const TRACE_STORE_SCHEMA TraceFrameSchema;
extern const TRACE_STORE_SCHEMA TraceMetadataSchema;
extern const TRACE_STORE_SCHEMA TraceEventFormatSchema;
extern const TRACE_STORE_SCHEMA TraceLineSchema;
extern const TRACE_STORE_SCHEMA TraceStringSchema;
extern const TRACE_STORE_SCHEMA TraceStringDataSchema;

//
// Record types: every store of an import (all but the string stores),
// each one entry of TraceRecordTypes (TraceSchema.c), from which the rest
// of Tracer derives what it does with the type: the import context's
// store (TRACE_IMPORT.Stores[Kind]), the `event` view's arm and the
// extension's store masks (Sqlite3Ext/tracestore_views.c), docs/schema.md
// (tracestore_schema.c), and the ftrace events routed to the store by
// both ftrace paths (Readers/Decoders/Ftrace/FtraceRecord.c).  The kinds are in the order the
// stores are opened and committed (the stores events depend on first) and
// the `event` view's arms are in this order too.
//

typedef enum _TRACE_RECORD_KIND {
    TraceRecordSource = 0,
    TraceRecordProcess,
    TraceRecordThread,
    TraceRecordFtraceEvent,
    TraceRecordPageFault,
    TraceRecordKvmExit,
    TraceRecordSchedSwitch,
    TraceRecordSpan,
    TraceRecordCounter,
    TraceRecordModule,
    TraceRecordFrame,
    TraceRecordStack,
    TraceRecordSample,
    TraceRecordMetadata,
    TraceRecordEventFormat,
    TraceRecordLine,
    TraceRecordKindMaximum
} TRACE_RECORD_KIND;

//
// TRACE_RECORD_TYPE.Flags.
//

#define TRACE_RECORD_OPEN_AT_BEGIN  0x1 // every import creates the store;
                                        // others are made on first use
#define TRACE_RECORD_EVENT          0x2 // a row of the `event` view
#define TRACE_RECORD_ROLLUP         0x4 // keeps a rollup (NAME.rollup,
                                        // TraceStore/TraceRollup.h) though
                                        // not an event store, which all do

//
// How the `event` view reads a row of an event store: the column holding
// (name, pid, tid, cpu); NULL for Name means the store's name, NULL for
// the others a NULL integer.  ts and id are the store's own.
//

typedef struct _TRACE_EVENT_VIEW {
    PCSZ Name;
    PCSZ Pid;
    PCSZ Tid;
    PCSZ Cpu;
} TRACE_EVENT_VIEW, *PTRACE_EVENT_VIEW;
typedef const TRACE_EVENT_VIEW *PCTRACE_EVENT_VIEW;

//
// The ftrace events a record type takes, and the tracepoint field behind
// each of its columns.  Both ftrace paths read them through this map (the
// text one from the event's printed `name=value` text, the binary one
// from the event's format; Readers/Decoders/Ftrace/FtraceRecord.h).  Conversion
// says how a field's value becomes the column:
//

typedef enum _TRACE_FTRACE_CONVERSION {
    TraceFtraceNumber = 0,      // an integer field, in the column's width
    TraceFtraceOptionalNumber,  // the same; the column is NULL without it
    TraceFtraceString,          // a string (char array, __string): its id;
                                // printed, it runs to the next field
    TraceFtraceStateLetters,    // a task state as sched_switch prints it
                                // ("S", "R+", "D|W"): its id
    TraceFtraceSymbol,          // an address; the kernel symbol at it in
                                // the second column (printed: a number,
                                // or the symbol instead)
    TraceFtraceExitReason,      // a KVM exit reason: the name the print
                                // format gives it (its id), and the
                                // number in the second column
    TraceFtraceEventName,       // no field: the event's name
    TraceFtraceEventArgs,       // no field: the event's text, as printed
    TraceFtraceEventRaw,        // no field: the event record's bytes, from
                                // a binary source (else NULL)
    TraceFtraceNull,            // no field: NULL
} TRACE_FTRACE_CONVERSION;

typedef struct _TRACE_FTRACE_FIELD {
    PCSZ Field;                 // the tracepoint's field name, or NULL
    PCSZ TextKey;               // what precedes the value in the printed
                                // text ("address=", "reason ")
    USHORT Conversion;          // TRACE_FTRACE_CONVERSION
    USHORT Signed;              // the column is signed
    USHORT Offset;              // the column in the record
    USHORT Size;
    USHORT Offset2;             // the second column, or Size2 0
    USHORT Size2;
} TRACE_FTRACE_FIELD, *PTRACE_FTRACE_FIELD;
typedef const TRACE_FTRACE_FIELD *PCTRACE_FTRACE_FIELD;

#define TRACE_FTRACE_MAX_FIELDS 8

//
// TRACE_FTRACE_MAP.Flags.
//

#define TRACE_FTRACE_ALSO_GENERIC 0x1   // the event is an ftrace_event row
                                        // too (an exec: its process row
                                        // and the event)

typedef struct _TRACE_FTRACE_MAP {
    PCSZ System;                // "sched"
    PCSZ Events[3];             // event names (NULL after the last)
    PCSZ EndEvent;              // an event that completes the task's last
                                // record (kvm_entry: the exit's dur), or
                                // NULL; kept as ftrace_event when none
                                // waits
    ULONG Flags;                // TRACE_FTRACE_*
    ULONG NumberOfFields;       // at most TRACE_FTRACE_MAX_FIELDS
    PCTRACE_FTRACE_FIELD Fields;
} TRACE_FTRACE_MAP, *PTRACE_FTRACE_MAP;
typedef const TRACE_FTRACE_MAP *PCTRACE_FTRACE_MAP;

typedef struct _TRACE_RECORD_TYPE {
    PCTRACE_STORE_SCHEMA Schema;
    TRACE_RECORD_KIND Kind;
    ULONG Flags;                // TRACE_RECORD_*
    TRACE_EVENT_VIEW EventView; // with TRACE_RECORD_EVENT
    PCTRACE_FTRACE_MAP Ftrace;  // or NULL
} TRACE_RECORD_TYPE, *PTRACE_RECORD_TYPE;
typedef const TRACE_RECORD_TYPE *PCTRACE_RECORD_TYPE;

extern const TRACE_RECORD_TYPE TraceRecordTypes[TraceRecordKindMaximum];

//
// The descriptor of column Name of Schema, or NULL.
//

PCTRACE_COLUMN_DESCRIPTOR TraceSchemaFindColumn(PCTRACE_STORE_SCHEMA Schema,
                                                PCSZ Name);

#endif // _TRACER_TRACE_SCHEMA_H_
