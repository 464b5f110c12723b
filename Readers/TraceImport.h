/*++

Module Name:

    TraceImport.h

Abstract:

    The shared half of every reader: an import context that owns the
    session's stores for one input, and the routines that turn decoded
    events into records (page faults, KVM exit/entry pairing, scheduler
    switches, generic events, threads and processes), commit periodically,
    and write the `source` row at the end.  A format decoder (FtraceText.c,
    ...) only splits its input into events and calls these.

    Everything here is core: no C runtime, OS access through PRTL.

--*/

#ifndef _TRACER_TRACE_IMPORT_H_
#define _TRACER_TRACE_IMPORT_H_

#include "../TraceStore/TraceStore.h"
#include "../TraceStore/TraceSchema.h"
#include "TextParse.h"

typedef enum _TRACE_INPUT_FORMAT {
    TraceFormatUnknown = 0,
    TraceFormatFtraceText = 1,      // tracefs trace / trace_pipe
    TraceFormatTraceCmdReport = 2,  // trace-cmd report
} TRACE_INPUT_FORMAT;

//
// Called every few thousand events so a hosted edge can show progress.
//

typedef VOID (TRACE_IMPORT_PROGRESS)(
    PVOID Context,
    ULONGLONG BytesDone,
    ULONGLONG BytesTotal,
    ULONGLONG Events
    );
typedef TRACE_IMPORT_PROGRESS *PTRACE_IMPORT_PROGRESS;

//
// What one event line (or binary record) says about its task.
//

typedef struct _TRACE_EVENT_CONTEXT {
    LONGLONG Timestamp;
    ULONG Tid;
    ULONG Pid;              // TRACE_NULL_ULONG if unknown
    ULONG Cpu;
    ULONG CommId;
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
    PTRACE_STORE PageFault;
    PTRACE_STORE KvmExit;
    PTRACE_STORE SchedSwitch;
    PTRACE_STORE FtraceEvent;
    PTRACE_STORE Thread;
    PTRACE_STORE Process;
    PTRACE_STORE Source;
    TRACE_HASH_TABLE Threads;       // (tid, comm id) -> 1
    ULONGLONG LastThreadKey;        // the last (tid, comm) seen, or 0
    TRACE_HASH_TABLE Processes;     // pid + 1 -> name id
    TRACE_HASH_TABLE PendingExits;  // tid + 1 -> kvm_exit record index
    TRACE_INTERN_CACHE_ENTRY InternCache[TRACE_INTERN_CACHE_ENTRIES];

} TRACE_IMPORT, *PTRACE_IMPORT;

//
// Maps Path read-only into Import->Buffer/Length (an empty file is an
// error).  Unmap with TraceImportUnmapInput.
//

RTL_STATUS TraceImportMapInput(PTRACE_IMPORT Import);
VOID TraceImportUnmapInput(PTRACE_IMPORT Import);

TRACE_INPUT_FORMAT TraceDetectFormat(const BYTE *Buffer, SIZE_T Length);
PCSZ TraceFormatName(TRACE_INPUT_FORMAT Format);
TRACE_INPUT_FORMAT TraceFormatFromName(PCSZ Name);

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
// Interns Length bytes at Text; on failure fills Import->Error.
//

RTL_STATUS TraceImportIntern(PTRACE_IMPORT Import, PCSZ Text, ULONG Length,
                             PULONG Id);

//
// Event sinks.  Each one records the task (thread/process) and counts the
// event; the caller has filled Event.
//

RTL_STATUS TraceImportPageFault(PTRACE_IMPORT Import,
                                PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                                ULONGLONG Address, ULONGLONG Ip,
                                ULONG IpSymbolId, ULONG ErrorCode);

RTL_STATUS TraceImportKvmExit(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event, ULONG ReasonId,
                              ULONGLONG Rip, ULONG Vcpu, ULONG ArgsId);

//
// Pairs an entry with the pending exit of the same task.  Returns FALSE in
// *Paired when there is none (the caller records the entry as a generic
// event instead).
//

RTL_STATUS TraceImportKvmEntry(PTRACE_IMPORT Import,
                               PTRACE_EVENT_CONTEXT Event, PBOOL Paired);

RTL_STATUS TraceImportSchedSwitch(PTRACE_IMPORT Import,
                                  PTRACE_EVENT_CONTEXT Event,
                                  PSCHED_SWITCH_RECORD Record);

RTL_STATUS TraceImportGenericEvent(PTRACE_IMPORT Import,
                                   PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                                   ULONG ArgsId);

//
// Records a process start (exec) with its executable path.
//

RTL_STATUS TraceImportProcessExec(PTRACE_IMPORT Import, LONGLONG Timestamp,
                                  ULONG Pid, ULONG NameId, ULONG FileNameId);

//
// Commits when CommitEvery events have accumulated, and reports progress.
//

RTL_STATUS TraceImportEventDone(PTRACE_IMPORT Import, SIZE_T BytesDone);

//
// The decoders.
//

RTL_STATUS FtraceTextImport(PTRACE_IMPORT Import);

#endif // _TRACER_TRACE_IMPORT_H_
