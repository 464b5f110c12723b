/*++

Module Name:

    ImportInternal.h

Abstract:

    What the files of the import context share and readers do not use:
    the append with its error text (TraceImportStoreError, TraceImport.c),
    the task bookkeeping of ImportSinks.c, the commit limits and the end of
    the span builder.

Environment:

    Core: no C runtime.  Included only by ImportSinks.c, SpanBuilder.c and
    ImportRun.c (TraceImport.c, the bottom, needs none of it).

--*/

#ifndef _TRACER_IMPORT_INTERNAL_H_
#define _TRACER_IMPORT_INTERNAL_H_

#include "TraceImport.h"

//
// The value of a pending-exit entry whose exit has been paired.
//

#define NO_PENDING_EXIT TRACE_COMMIT_ALL

//
// Fills Import->Error for a store that refused an append.
//

RTL_STATUS TraceImportStoreError(PTRACE_IMPORT Import, PTRACE_STORE Store,
                                 RTL_STATUS Status);

//
// Record is a pointer to the record type: its size is a constant, and the
// append is inline (TraceStoreAppendInline).
//

#define AppendRecord(Import, Store, Record, Index) \
    AppendSized((Import), (Store), (Record), sizeof(*(Record)), (Index))

static inline
RTL_STATUS
AppendSized(
    PTRACE_IMPORT Import,
    PTRACE_STORE Store,
    PCVOID Record,
    SIZE_T Size,
    PULONGLONG Index
    )
{
    RTL_STATUS Status = TraceStoreAppendInline(Store, Record, Size, Index);

    if (!RTL_SUCCESS(Status)) {
        return TraceImportStoreError(Import, Store, Status);
    }

    return RTL_STATUS_OK;
}

//
// Adds the thread and process rows of the task an event names, the first
// time it is seen, and keeps the import's time span (ImportSinks.c).
//

RTL_STATUS TraceImportNoteTask(PTRACE_IMPORT Import,
                               PTRACE_EVENT_CONTEXT Event);

//
// Commit limits: the kvm_exit store stops short of the oldest exit waiting
// for its entry (ImportSinks.c), the span store short of the oldest open
// span (SpanBuilder.c).
//

VOID TraceImportSetKvmCommitLimit(PTRACE_IMPORT Import);
VOID TraceImportSetSpanCommitLimit(PTRACE_IMPORT Import);

//
// Closes the spans still open at the trace's last ts and releases the
// builder (SpanBuilder.c; at the end of an import).
//

VOID TraceImportSpanFinish(PTRACE_IMPORT Import);

#endif // _TRACER_IMPORT_INTERNAL_H_
