/*++

Module Name:

    UftraceScan.c

Abstract:

    The first pass over the tasks, before the import: each task is read
    once for the exits without an entry (the recording began inside those
    calls), which the span builder opens first, at the trace's first ts.

    fork and exec: a forked process runs on its parent's image (named with
    the parent's session); its records begin with the exit of fork(), an
    exit without an entry like any other, and the calls it was made inside
    (its parent's) are not its spans, as `uftrace replay` and `uftrace dump
    --chrome` show it.  When a task starts a new session (exec), the calls
    still open are cut at the new session's start (flags 2), and the new
    program's calls start at depth 0, as `uftrace replay` shows them.

    The scan stops quietly at bad data: the import pass reaches the same
    data and reports it.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by Uftrace.c;
    calls UftraceRecording.c, UftraceSymbols.c, UftraceRecords.c,
    UftracePerf.c and TraceImport.h's span scan.

--*/

#include "UftraceRecording.h"

//
// ---------------------------------------------------------------------------
// fork and exec
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
ScanCut(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    ULONG Entered
    )
/*++

Routine Description:

    For the scan: the Entered calls the task began in its program and
    never left end at Time (an exec).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;
    BOOL Unmatched;
    ULONG Count;

    UftraceFillContext(Reader, Task, Time, &Context);

    for (Count = 0; Count < Entered; Count++) {
        Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Unmatched) {
            TraceImportSpanScanUnmatched(Import, Reader->UnknownNameId,
                                         TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        }
    }
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The scan
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
ScanUnmatchedExit(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    An exit the scan found no entry for: the span builder will open it
    first, named by the exit's address and with its return value.

--*/
{
    RTL_STATUS Status;
    ULONG NameId;
    ULONG ArgsId;

    Status = UftraceInternRecord(Reader, Task, "retval", &NameId, &ArgsId);
    if (RTL_SUCCESS(Status)) {
        TraceImportSpanScanUnmatched(Reader->Import, NameId,
                                     TRACE_NULL_ULONG, ArgsId);
    }
    return Status;
}

static
RTL_STATUS
ScanTask(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    The first pass over one task: exits without an entry, the time span,
    and the calls an exec cuts.  It stops quietly at bad data, which the
    import pass reports.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL Unmatched;
    ULONG Entered = 0;
    LONGLONG Last = 0;

    Task->Program = 0;

    for (;;) {
        ULONG Session;

        Status = UftraceNextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status) || Task->Done) {
            break;
        }

        Session = UftraceFindSession(Reader, Task, Task->Time);
        if (UftraceStartsProgram(Reader, Task, Session)) {
            LONGLONG Cut = Reader->Sessions[Session].Timestamp;

            Status = ScanCut(Reader, Task, Cut > Last ? Cut : Last, Entered);
            if (!RTL_SUCCESS(Status)) {
                break;
            }
            Entered = 0;
        }
        Task->Program = Session + 1;
        Last = Task->Time;

        UftraceFillContext(Reader, Task, Task->Time, &Context);
        if (Task->Type == UFTRACE_ENTRY) {
            Status = TraceImportSpanScanBegin(Import, &Context);
            Entered++;
        } else if (Task->Type == UFTRACE_EXIT) {
            Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
            if (RTL_SUCCESS(Status) && !Unmatched && Entered != 0) {
                Entered--;
            }
            if (RTL_SUCCESS(Status) && Unmatched) {
                Status = ScanUnmatchedExit(Reader, Task);
            }
        } else {
            TraceImportSpanScanTime(Import, Task->Time);
        }
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }

    Task->Offset = 0;
    Task->Discarded = 0;
    Task->Done = FALSE;
    Task->Time = 0;
    Task->Depth = 0;
    Task->Program = 0;
    return Status;
}

VOID
UftraceScanTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Scans every task.  Errors stop a task's scan quietly; the import
    reports them.

--*/
{
    ULONG Number;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Data.Data != NULL) {
            ScanTask(Reader, Task);
        }
    }

    UftraceScanPerfEnd(Reader);
}
