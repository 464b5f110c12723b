/*++

Module Name:

    TraceImport.h

Abstract:

    The import engine, the half of every reader that is not decoding: an
    import context that owns the session's stores for one input, and the
    routines that turn decoded events into records (page faults, KVM
    exit/entry pairing, scheduler switches, generic events, threads and
    processes), commit periodically, and write the `source` row at the
    end.  A decoder (Readers/Decoders/<Format>/) only splits its input
    into events and calls these; TRACE_FORMAT below is what a decoder
    hands the engine.

    Implemented, from the bottom up (each file calls only those below
    it): TraceImport.c (beginning an import, mapping the input, interning,
    opening stores, the line loop), ImportFaults.c and ImportSinks.c (the
    records of the dedicated stores), SpanBuilder.c and SpanReorder.c
    (spans; their state and routines are in Spans.h, included here),
    ImportRun.c (commits, TraceImportRun, TraceImportEnd).

Environment:

    Core: no C runtime, OS access through PRTL.  Included by every decoder,
    by the format table above them (Readers/TraceFormats.c) and by the
    hosted edges that run an import.  Names no decoder: the one it runs
    is the one it is given.

--*/

#ifndef _TRACER_TRACE_IMPORT_H_
#define _TRACER_TRACE_IMPORT_H_

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"
#include "Readers/Text/TextParse.h"
#include "Readers/Import/ClockAlign.h"


//
// A decompressor the hosted edge provides (the core links no compression
// library).  Decompresses one whole frame of InputLength bytes into exactly
// OutputLength bytes; *Produced receives the bytes written.
//

typedef RTL_STATUS (TRACE_DECOMPRESS)(PVOID Context, const BYTE *Input,
                                      SIZE_T InputLength, PBYTE Output,
                                      SIZE_T OutputLength, PSIZE_T Produced);
typedef TRACE_DECOMPRESS *PTRACE_DECOMPRESS;

//
// Streaming (perf record -z: one zstd stream cut into records): continues
// the stream from earlier calls with InputLength bytes, of which
// *Consumed were taken, writing *Produced bytes of at most OutputLength.
// ResetStream starts a new stream.
//

typedef RTL_STATUS (TRACE_DECOMPRESS_STREAM)(PVOID Context,
                                             const BYTE *Input,
                                             SIZE_T InputLength,
                                             PSIZE_T Consumed, PBYTE Output,
                                             SIZE_T OutputLength,
                                             PSIZE_T Produced);
typedef TRACE_DECOMPRESS_STREAM *PTRACE_DECOMPRESS_STREAM;
typedef VOID (TRACE_DECOMPRESS_RESET)(PVOID Context);
typedef TRACE_DECOMPRESS_RESET *PTRACE_DECOMPRESS_RESET;

typedef struct _TRACE_DECOMPRESSOR {
    PCSZ Name;                      // "zstd"
    PVOID Context;
    PTRACE_DECOMPRESS Decompress;
    PVOID WorkerContext;            // a second context, for a job on the
                                    // worker (TRACE_WORKER); NULL if none
    PVOID StreamContext;            // the stream's, or NULL: no streaming
    PTRACE_DECOMPRESS_STREAM DecompressStream;
    PTRACE_DECOMPRESS_RESET ResetStream;
} TRACE_DECOMPRESSOR, *PTRACE_DECOMPRESSOR;
typedef const TRACE_DECOMPRESSOR *PCTRACE_DECOMPRESSOR;

//
// A thread the hosted edge lends a reader for work that overlaps its own
// (the trace.dat reader indexes kallsyms while it parses the event
// formats).  Start runs Routine(Context) on it and returns the job, or
// NULL if it cannot (the caller then does the work itself); Done says,
// without waiting, whether Routine has returned; Wait returns once it
// has, and must be called for every job started.  The routine may only
// use what Context gives it and the RTL.
//

typedef VOID (TRACE_JOB_ROUTINE)(PVOID Context);
typedef TRACE_JOB_ROUTINE *PTRACE_JOB_ROUTINE;

typedef struct _TRACE_WORKER {
    PVOID (*Start)(PTRACE_JOB_ROUTINE Routine, PVOID Context);
    BOOL (*Done)(PVOID Job);
    VOID (*Wait)(PVOID Job);
} TRACE_WORKER, *PTRACE_WORKER;
typedef const TRACE_WORKER *PCTRACE_WORKER;

//
// Called every few thousand events so a hosted edge can show progress.
//

typedef VOID (TRACE_IMPORT_PROGRESS)(PVOID Context, ULONGLONG BytesDone,
                                     ULONGLONG BytesTotal, ULONGLONG Events);
typedef TRACE_IMPORT_PROGRESS *PTRACE_IMPORT_PROGRESS;

//
// Called after each sync the import makes (SyncEveryNs), with the session
// whose Durable table the sync wrote, so a hosted edge can log it.
//

typedef VOID (TRACE_IMPORT_SYNCED)(PVOID Context, PTRACE_SESSION Session);
typedef TRACE_IMPORT_SYNCED *PTRACE_IMPORT_SYNCED;

//
// What one event line (or binary record) says about its task.
//

typedef struct _TRACE_EVENT_CONTEXT {
    LONGLONG Timestamp;
    ULONG Tid;              // TRACE_NULL_ULONG if the input has no task
    ULONG Pid;              // TRACE_NULL_ULONG if unknown
    ULONG Cpu;              // TRACE_NULL_ULONG if unknown
    ULONG CommId;           // TRACE_NULL_ULONG if the input has no task
    ULONG FlagsId;          // TRACE_NULL_ULONG if none
    ULONG Padding;
} TRACE_EVENT_CONTEXT, *PTRACE_EVENT_CONTEXT;

//
// Most strings an import interns repeat from line to line (comms, event
// names, flags).  A small direct-mapped cache of recent short strings
// saves hashing them again.
//

#define TRACE_INTERN_CACHE_ENTRIES 32
#define TRACE_INTERN_CACHE_BYTES   48

typedef struct _TRACE_INTERN_CACHE_ENTRY {
    ULONG Length;           // ~0 when empty
    ULONG Id;
    CHAR Bytes[TRACE_INTERN_CACHE_BYTES];
} TRACE_INTERN_CACHE_ENTRY, *PTRACE_INTERN_CACHE_ENTRY;

#include "Spans.h"

#define TRACE_RECENT_THREADS 8

//
// The record types of recent text event names (EventText.c): name id + 1
// in the high half, kind * 2 + is-end in the low (kind
// TraceRecordKindMaximum: none); 0 when empty.
//

#define TRACE_TEXT_EVENT_TYPES 16
#define TRACE_TASK_COLUMNS 5

//
// fault_kind values (docs/sql.md, "Page-fault classes"), and what a resolver
// says of the mapping that holds an address.
//

typedef enum _TRACE_FAULT_KIND {
    TraceFaultFile = 0,             // hard, file mapping
    TraceFaultSwap,                 // hard, anonymous
    TraceFaultPageCache,            // soft, file page already in memory
    TraceFaultDemandZero,           // soft, first touch of anonymous memory
    TraceFaultCopyOnWrite,          // soft, write to a present private page
    TraceFaultAccessViolation,      // not counted by the kernel
    TraceFaultKindMaximum
} TRACE_FAULT_KIND;

#define TRACE_MAPPING_KNOWN   0x01  // a mapping holds the address
#define TRACE_MAPPING_EXEC    0x02  // it is executable
#define TRACE_MAPPING_FILE    0x04  // it maps a file (not anon, [heap]...)
#define TRACE_MAPPING_PRIVATE 0x08  // MAP_PRIVATE

typedef struct _TRACE_IMPORT {

    //
    // Set by the caller before TraceImportBegin.
    //

    PRTL Rtl;
    PTRACE_SESSION Session;
    PCSZ Path;
    PCSZ FormatName;
    const BYTE *Buffer;
    SIZE_T Length;
    ULONG CommitEvery;
    ULONG Padding;
    PTRACE_IMPORT_PROGRESS Progress;
    PVOID ProgressContext;

    //
    // Durability (tracestore --sync-interval): at the first commit at
    // least SyncEveryNs after the last sync, TraceSessionSync, then
    // Synced.  0: the session is synced only when opened and closed.
    // LastSyncNs is the import's own (monotonic clock).
    //

    LONGLONG SyncEveryNs;
    LONGLONG LastSyncNs;
    PTRACE_IMPORT_SYNCED Synced;
    PVOID SyncedContext;

    PCTRACE_DECOMPRESSOR Zstd;      // NULL when the edge has none
    PCTRACE_WORKER Worker;          // NULL when the edge has none
    DOUBLE TscMhz;                  // TSC rate for TSC-clocked inputs, or 0
    BOOL HostSymbols;               // readers may name code addresses from
                                    // this machine's files (/proc/kallsyms,
                                    // the mapped ELF files)
    ULONG Padding5;
    ULONG ReorderWindow;            // span events held to restore time
                                    // order (0: TRACE_REORDER_WINDOW)
    ULONG Padding3;

    //
    // The events' formats (tracefs `format` files) for text inputs, or
    // NULL: the text readers then keep each event's record bytes, rebuilt
    // from its text, and each event's format (EventText.c).
    //

    struct _TRACE_EVENT_TABLE *EventFormats;

    //
    // Clock alignment (tracestore import --clock-offset, --tsc-offset):
    // every ts the reader makes becomes
    // ToNs(raw - TscOffset) + ClockOffset (ClockAlign.h), ToNs converting
    // at TscMhz for the formats that have no TSC conversion of their own
    // (uftrace, Chrome JSON), the identity otherwise.  Kept in the
    // source row.
    //

    BOOL HaveClockOffset;
    BOOL HaveTscOffset;
    LONGLONG ClockOffset;
    LONGLONG TscOffset;

    //
    // Set by TraceImportMapInput: TRUE when Path is a directory (a uftrace
    // record directory); Buffer and Length are then NULL and 0.
    //

    BOOL IsDirectory;
    ULONG ClockId;                  // string id of the trace clock, or NULL

    //
    // The machine the input was recorded on, when the input says
    // (perf.data's HOSTNAME and OSRELEASE); all zero otherwise.  The
    // command line makes it the host of a session the import creates.
    //

    TRACE_SESSION_HOST RecordedHost;

    //
    // Byte offset of the event being imported, set by readers that name
    // offsets in their errors, so that the shared sinks can too.
    //

    ULONGLONG EventOffset;

    //
    // The alignment in effect (TraceImportRun sets it up from the fields
    // above and the format).
    //

    TRACE_CLOCK_ALIGN Align;

    //
    // Results.
    //

    ULONGLONG Lines;
    ULONGLONG Events;
    LONGLONG FirstTs;
    LONGLONG LastTs;
    ULONGLONG UnpairedExits;
    ULONGLONG UnpairedEntries;
    ULONGLONG LostEvents;
    RTL_ERROR Error;

    //
    // Stores and the reader's working sets.
    //

    LONGLONG ImportedRealtimeNs;
    ULONGLONG SinceCommit;
    SIZE_T DiscardedBytes;          // input unmapped behind the reader
    PTRACE_STORE Stores[TraceRecordKindMaximum]; // by TRACE_RECORD_KIND:
                                    // those TRACE_RECORD_OPEN_AT_BEGIN by
                                    // TraceImportBegin, the others on first
                                    // use (TraceImportOpenStore); else NULL
    TRACE_SPAN_BUILDER Spans;       // open spans per thread
    TRACE_HASH_TABLE Threads;       // (tid, comm id) -> 1
    ULONGLONG LastThreadKey;        // the last (tid, comm) seen, or 0
    ULONG LastPid;                  // the last pid known to have a row
    ULONG Padding2;
    TRACE_HASH_TABLE Processes;     // pid + 1 -> name id
    TRACE_HASH_TABLE ProcessNames;  // pid + 1 -> name id: names a reader
                                    // knows before the process's first
                                    // event (Chrome process_name); a
                                    // process row is named after its first
                                    // thread otherwise
    TRACE_HASH_TABLE PendingExits;  // tid + 1 -> kvm_exit record index
                                    // (or none: keys stay once seen)

    //
    // Page-fault classification (ImportFaults.c): set ClassifyFaults
    // before the first fault when the producer reports the kernel's
    // counts (TraceImportPageFaultCounted); add to LostFaultCounts when
    // some of them were lost.
    //

    BOOL ClassifyFaults;
    ULONG Padding4;
    ULONGLONG LostFaultCounts;
    ULONGLONG UncountedFaults;      // resolved as not counted
    ULONGLONG UnresolvedFaults;     // still waiting at the end
    ULONGLONG UnmatchedFaultCounts; // counts of no recorded fault
    ULONGLONG LateFaults;           // fault events older than a count
    LONGLONG LastFaultCountTs;      // the newest count applied
    TRACE_HASH_TABLE PendingFaults; // tid + 1 -> page_fault index | flags
    ULONG FaultKindIds[TraceFaultKindMaximum]; // interned on first use
    ULONGLONG RecentThreads[TRACE_RECENT_THREADS]; // keys seen, or 0

    //
    // TraceImportAppendEvent: each type's ts, tid, pid, cpu and comm
    // columns (NULL where it has none), found on its first append.
    //

    PCTRACE_COLUMN_DESCRIPTOR TaskColumns[TraceRecordKindMaximum]
                                         [TRACE_TASK_COLUMNS];
    BOOL TaskColumnsKnown[TraceRecordKindMaximum];
    ULONGLONG TextEventTypes[TRACE_TEXT_EVENT_TYPES];
    ULONG TextFormatNames[TRACE_TEXT_EVENT_TYPES];  // name id + 1, or 0
    struct _TRACE_EVENT_FORMAT *TextFormats[TRACE_TEXT_EVENT_TYPES];
    TRACE_INTERN_CACHE_ENTRY InternCache[TRACE_INTERN_CACHE_ENTRIES];

} TRACE_IMPORT, *PTRACE_IMPORT;

//
// Maps Path read-only into Import->Buffer/Length (an empty file is an
// error).  Unmap with TraceImportUnmapInput.
//

RTL_STATUS TraceImportMapInput(PTRACE_IMPORT Import);
VOID TraceImportUnmapInput(PTRACE_IMPORT Import);

//
// A decoder, as it hands itself to the engine: a Detect routine (does the
// input look like this format?  Called on the mapped input, or on a
// directory) and an Import routine.  Readers/TraceFormats.c lists every
// decoder in detection order; the engine knows only what it is given.
//

//
// The contract of every Import routine, written once here: it is called
// between TraceImportBegin and TraceImportEnd (TraceImportRun does both),
// reads Import->Buffer (or the directory Import->Path), and returns
// RTL_STATUS_OK or an error in Import->Error naming the file and the line
// or byte offset; every event before the error has been imported.
//

typedef BOOL (TRACE_FORMAT_DETECT)(PTRACE_IMPORT Import);
typedef TRACE_FORMAT_DETECT *PTRACE_FORMAT_DETECT;
typedef RTL_STATUS (TRACE_FORMAT_IMPORT)(PTRACE_IMPORT Import);
typedef TRACE_FORMAT_IMPORT *PTRACE_FORMAT_IMPORT;

//
// TRACE_FORMAT.Flags.  TSC_CLOCK: the format's timestamps may be TSC
// counts, which the import's TscMhz (--tsc-mhz) converts to ns; the others
// have none, or convert their own.
//

#define TRACE_FORMAT_TSC_CLOCK 0x1

typedef struct _TRACE_FORMAT {
    PCSZ Name;                      // what --format takes
    PCSZ Description;
    ULONG Flags;                    // TRACE_FORMAT_*
    PTRACE_FORMAT_DETECT Detect;
    PTRACE_FORMAT_IMPORT Import;
} TRACE_FORMAT, *PTRACE_FORMAT;
typedef const TRACE_FORMAT *PCTRACE_FORMAT;

//
// The ts a reader stores for a raw ts of its input: the import's clock
// alignment applied (the raw value itself when there is none).
//

static inline
LONGLONG
TraceImportAlignTs(
    PTRACE_IMPORT Import,
    LONGLONG Raw
    )
{
    if (!Import->Align.Active) {
        return Raw;
    }
    return TraceClockAlign(&Import->Align, Raw);
}

//
// The first of Formats (a table that ends with NULL) whose Detect takes
// the mapped input (or directory); NULL if none does.
//

PCTRACE_FORMAT TraceDetectFormat(PTRACE_IMPORT Import,
                                 const PCTRACE_FORMAT *Formats);

//
// Opens the stores and working sets.  Import->Session must be open for
// writing.
//

RTL_STATUS TraceImportBegin(PTRACE_IMPORT Import);

//
// Closes what is still open (unpaired KVM exits keep a NULL dur), writes
// the `source` row and commits.  Called on success and on failure, so
// that everything read before an error is kept.
//

RTL_STATUS TraceImportEnd(PTRACE_IMPORT Import);

//
// One whole import, the sequence every caller runs: maps Import->Path,
// takes Format, or when it is NULL the first of Formats (the decoders to
// detect from, ending with NULL: Readers/TraceFormats.h) that detects the
// input, sets
// Import->FormatName, then TraceImportBegin, the reader, TraceImportEnd,
// and unmaps.  The caller has set Rtl, Session, Path and any options
// (progress, decompressor, worker, TSC rate, reorder window).  An input
// no reader recognizes fails with RTL_STATUS_BAD_FORMAT and FormatName
// NULL ("PATH: unrecognized format"); otherwise Import->Error describes a
// failure and the events read before it are committed.
//

RTL_STATUS TraceImportRun(PTRACE_IMPORT Import, PCTRACE_FORMAT Format,
                          const PCTRACE_FORMAT *Formats);

//
// Interns Length bytes at Text; on failure fills Import->Error.
//

RTL_STATUS TraceImportIntern(PTRACE_IMPORT Import, PCSZ Text, ULONG Length,
                             PULONG Id);

//
// Event sinks.  Each one records the task (thread/process) and counts the
// event; the caller has filled Event.
//

//
// The caller fills Address, Ip, ErrorCode, NameId, IpSymbolId, ModuleId,
// IpModuleId and the classification (Hard, FaultKindId, ModuleOffset,
// IpModuleOffset, Code: TraceImportPageFaultUnclassified sets them NULL);
// the task fields come from Event.
//

VOID TraceImportPageFaultUnclassified(PPAGE_FAULT_RECORD Record);
RTL_STATUS TraceImportPageFaultIndexed(PTRACE_IMPORT Import,
                                       PTRACE_EVENT_CONTEXT Event,
                                       PPAGE_FAULT_RECORD Record,
                                       PULONGLONG Index);

//
// Classification (ImportFaults.c, with Import->ClassifyFaults): a fault
// event appended to wait for its count, MappingFlags (TRACE_MAPPING_*) of
// its address; the kernel's count of a fault of thread Tid at Address
// (Major: counted as major), in time order with the fault events; the
// string id of a fault_kind (interned on first use); the end of thread
// Tid; the commit limit and the end of the import.
//

RTL_STATUS TraceImportPageFaultPending(PTRACE_IMPORT Import,
                                       PTRACE_EVENT_CONTEXT Event,
                                       PPAGE_FAULT_RECORD Record,
                                       ULONG MappingFlags);
RTL_STATUS TraceImportPageFaultCounted(PTRACE_IMPORT Import, ULONG Tid,
                                       LONGLONG Timestamp, ULONGLONG Address,
                                       ULONG Major);
RTL_STATUS TraceImportFaultKindId(PTRACE_IMPORT Import,
                                  TRACE_FAULT_KIND Kind, PULONG Id);
RTL_STATUS TraceImportPageFaultThreadEnded(PTRACE_IMPORT Import, ULONG Tid);
VOID TraceImportSetFaultCommitLimit(PTRACE_IMPORT Import);
VOID TraceImportPageFaultsEnd(PTRACE_IMPORT Import);


RTL_STATUS TraceImportPageFault(PTRACE_IMPORT Import,
                                PTRACE_EVENT_CONTEXT Event,
                                PPAGE_FAULT_RECORD Record);

//
// The caller fills ReasonId, Rip, Vcpu, ArgsId, ExitCode, Tsc and RawId;
// the exit waits (uncommitted) for the next entry of the same task.
//

RTL_STATUS TraceImportKvmExit(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event,
                              PKVM_EXIT_RECORD Record);

//
// Pairs an entry (its record bytes RawId, or NULL) with the pending exit
// of the same task.  Returns FALSE in *Paired when there is none (the
// caller records the entry as a generic event instead).
//

RTL_STATUS TraceImportKvmEntry(PTRACE_IMPORT Import,
                               PTRACE_EVENT_CONTEXT Event, ULONG RawId,
                               PBOOL Paired);

//
// The same, pairing an exit with the next entry of the same PairKey
// (non-zero) instead of the same task: kvmtrace pairs per (vcpu thread,
// vcpu).  The plain routines use Tid + 1.
//

RTL_STATUS TraceImportKvmExitKeyed(PTRACE_IMPORT Import,
                                   PTRACE_EVENT_CONTEXT Event,
                                   ULONGLONG PairKey,
                                   PKVM_EXIT_RECORD Record);

RTL_STATUS TraceImportKvmEntryKeyed(PTRACE_IMPORT Import,
                                    PTRACE_EVENT_CONTEXT Event,
                                    ULONGLONG PairKey, ULONG RawId,
                                    PBOOL Paired);

RTL_STATUS TraceImportSchedSwitch(PTRACE_IMPORT Import,
                                  PTRACE_EVENT_CONTEXT Event,
                                  PSCHED_SWITCH_RECORD Record);

//
// An `ftrace_event` row: the event's name, its text (ArgsId) and, from a
// binary source, its record's bytes (RawId, a string; else
// TRACE_STRING_NULL), which the event_format row of its event describes.
//

RTL_STATUS TraceImportGenericEvent(PTRACE_IMPORT Import,
                                   PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                                   ULONG ArgsId, ULONG RawId);

//
// Appends a counter sample.  The caller fills Value, RunningPercent,
// NameId, UnitId, Pid and Cpu; Timestamp comes from Event.  Counters are
// not tied to a task, so no thread row is added.
//

RTL_STATUS TraceImportCounter(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event,
                              PCOUNTER_RECORD Record);

//
// Appends a record of type Kind (its store opened on first use) whose
// caller filled every column but those of the event's time and task: the
// columns named ts, tid, pid, cpu and comm, where the type has them, are
// filled from Event, and the task is recorded as by the other sinks.  For
// record types without a sink of their own (the ftrace builder's default).
//

RTL_STATUS TraceImportAppendEvent(PTRACE_IMPORT Import,
                                  TRACE_RECORD_KIND Kind,
                                  PTRACE_EVENT_CONTEXT Event, PVOID Record);

//
// Call stacks (ImportStacks.c): frames and callsites stored once each, as
// Perfetto's stack_profile_frame and stack_profile_callsite.  A reader
// keeps a TRACE_STACK_TABLE for its import.
//

typedef RTL_STATUS (TRACE_SYMBOLIZE)(PVOID Context, PFRAME_RECORD Frame);
typedef TRACE_SYMBOLIZE *PTRACE_SYMBOLIZE;

typedef struct _TRACE_STACK_TABLE {
    PTRACE_IMPORT Import;
    TRACE_HASH_TABLE Frames;        // hash of a frame's key -> frame id
    TRACE_HASH_TABLE Callsites;     // (parent + 1) << 32 | frame + 1 -> id
    PFRAME_RECORD Known;            // the frames appended, by id
    SIZE_T KnownBytes;
    ULONGLONG FrameCount;
    ULONGLONG CallsiteCount;
} TRACE_STACK_TABLE, *PTRACE_STACK_TABLE;

RTL_STATUS TraceStackTableInitialize(PTRACE_IMPORT Import,
                                     PTRACE_STACK_TABLE Table);
VOID TraceStackTableRelease(PTRACE_STACK_TABLE Table);

//
// The id of the frame of Frame's key: (ModuleId, ModuleOffset, Kernel)
// when ModuleId is not NULL, else (Ip, Kernel).  A new frame is appended
// after Symbolize (optional) has set its SymbolId (NULL otherwise).
//

RTL_STATUS TraceStackFrame(PTRACE_STACK_TABLE Table, PFRAME_RECORD Frame,
                           PTRACE_SYMBOLIZE Symbolize, PVOID Context,
                           PULONGLONG FrameId);

//
// The id of the callsite of FrameId called from ParentId (-1: a root),
// Depth callsites from the root, appended the first time.
//

RTL_STATUS TraceStackCallsite(PTRACE_STACK_TABLE Table, LONGLONG ParentId,
                              ULONGLONG FrameId, ULONG Depth,
                              PLONGLONG CallsiteId);

//
// Names the clock the input's timestamps come from: the `source` row's
// `clock`, and the session's clock if the session did not know it yet.
//

RTL_STATUS TraceImportSetClock(PTRACE_IMPORT Import, PCSZ Name,
                               ULONG Length);

//
// Opens the store of a record type on first use (span, counter, module:
// stores an input may not have are not created for it) and returns it in
// *Store (optional): Import->Stores[Kind].
//

RTL_STATUS TraceImportOpenStore(PTRACE_IMPORT Import, TRACE_RECORD_KIND Kind,
                                PTRACE_STORE *Store);


//
// Records a process start (exec) with its executable path.
//

RTL_STATUS TraceImportProcessExec(PTRACE_IMPORT Import, LONGLONG Timestamp,
                                  ULONG Pid, ULONG NameId, ULONG FileNameId);

//
// Appends a `module` row from one line of /proc/PID/maps (or a uftrace
// sid-SID.map file, which copies it):
//
//     START-END PERMS OFFSET DEV INODE [PATH] [build-id:HEX]
//
// START, END and OFFSET in hex; PATH is the rest of the line (it may hold
// spaces, or end in " (deleted)"), absent for anonymous memory; uftrace's
// trailing " build-id:HEX" becomes `build_id`.  *Parsed is FALSE, and
// nothing is appended, for a line of another shape (the caller decides
// whether that is an error).  Mappings are not events: the source's
// first/last ts do not change.  Record, if not NULL, receives the row
// appended.
//

RTL_STATUS TraceImportModuleLine(PTRACE_IMPORT Import, LONGLONG Timestamp,
                                 ULONG Pid, PCSZ Line, PCSZ LineEnd,
                                 PBOOL Parsed, PMODULE_RECORD Record);

//
// Appends a `module` row the caller has filled (a live recorder's mmap).
//

RTL_STATUS TraceImportModule(PTRACE_IMPORT Import, PMODULE_RECORD Record);

//
// A fact the input states about itself: a `metadata` row of this
// import's source, Name with an integer (Text NULL) or a text value.
//

RTL_STATUS TraceImportMetadata(PTRACE_IMPORT Import, PCSZ Name,
                               LONGLONG Value, PCSZ Text, ULONG Length);

//
// The description of an event the input's records follow: an
// `event_format` row of this import's source (the format file's Text).
//

RTL_STATUS TraceImportEventFormat(PTRACE_IMPORT Import, PCSZ System,
                                  PCSZ Name, ULONG Id, PCSZ Text,
                                  ULONG Length);

//
// Appends a record of type Kind that is not an event (a module, frame or
// stack row: no task, not counted), opening its store on first use;
// *Index (optional) receives its row number.
//

RTL_STATUS TraceImportAppendRecord(PTRACE_IMPORT Import,
                                   TRACE_RECORD_KIND Kind, PCVOID Record,
                                   PULONGLONG Index);

//
// Commits when CommitEvery events have accumulated, and reports progress.
// BytesDone is how far into the input the reader is: the input more than
// TRACE_DISCARD_BEHIND bytes before it is unmapped (a reader that reads
// from several places at once passes the lowest of them).
//

RTL_STATUS TraceImportEventDone(PTRACE_IMPORT Import, SIZE_T BytesDone);

//
// Commits now (a live recorder commits by time as well as by count):
// the records held back for pairing stay uncommitted as in
// TraceImportEventDone.
//

RTL_STATUS TraceImportCommit(PTRACE_IMPORT Import);

//
// Text inputs.  TraceImportForEachLine calls Line for every line of
// Import->Buffer (without its newline), counting Import->Lines, and stops
// with an error naming the file and line for a line longer than
// TRACE_MAX_LINE_LENGTH, a NUL byte, or a last line without a newline (a
// cut-off file).  TraceImportLineError reports a bad line the same way:
// "FILE:LINE: REASON (byte offset N): "the start of the line"".
//

#define TRACE_MAX_LINE_LENGTH 65536

typedef RTL_STATUS (TRACE_IMPORT_LINE)(PTRACE_IMPORT Import, PVOID Context,
                                       PCSZ Start, PCSZ End);
typedef TRACE_IMPORT_LINE *PTRACE_IMPORT_LINE;

RTL_STATUS TraceImportForEachLine(PTRACE_IMPORT Import,
                                  PTRACE_IMPORT_LINE Line, PVOID Context);

RTL_STATUS TraceImportLineError(PTRACE_IMPORT Import, RTL_STATUS Status,
                                PCSZ LineStart, PCSZ LineEnd, PCSZ Reason);

//
// Binary inputs: a bad record at byte Offset of the input, as
// "FILE: byte offset N: " and the message Format makes; RTL_STATUS_BAD_FORMAT
// in Import->Error (Offset in its Offset), which it returns.
//

RTL_STATUS TraceImportByteError(PTRACE_IMPORT Import, ULONGLONG Offset,
                                PCSZ Format, ...);

#endif // _TRACER_TRACE_IMPORT_H_
