/*++

Module Name:

    UftraceScan.c

Abstract:

    The first pass over the tasks, before the import: each task is read
    once for the exits without an entry (the recording began inside those
    calls), which the span builder opens first, at the trace's first ts.

    fork and exec: a forked process runs on its parent's image (named with
    the parent's session) and starts inside the calls its parent was in
    when it forked; those become spans begun before the recording, named
    from the parent's records, so that depths are uftrace's.  When a task
    starts a new session (exec), the calls still open are cut at the new
    session's start (flags 2), and the new program's calls start at
    depth 0, as `uftrace replay` shows them.

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

RTL_STATUS
UftraceSetupForks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Finds each forked process's main task and its first record.  A child
    whose first record is an exit (of fork(), at depth D) starts inside
    D + 1 calls of its parent; their names come from the parent's records
    during the scan (see NameInheritedCalls), into a pool sized here.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Number;
    SIZE_T Names = 0;
    RTL_STATUS Status;
    PVOID Address;

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];
        ULONGLONG Probe = 0;
        ULONGLONG Index;
        PUFTRACE_TASK Task;
        ULONGLONG Word;

        if (!TraceHashFind(&Reader->TaskIndex, (ULONGLONG)Fork->Pid + 1,
                           &Probe, &Index)) {
            continue;
        }
        Task = &Reader->Tasks[Index];
        if (Task->Pid != Fork->Pid || Task->Fork != 0) {
            continue;
        }
        Task->Fork = Number + 1;
        Fork->Task = (ULONG)Index + 1;

        if (Task->Data.Length < UFTRACE_RECORD_SIZE) {
            continue;
        }
        Word = Load64(Task->Data.Data + 8);
        if (((Word >> 3) & 7) != UFTRACE_RECORD_MAGIC ||
            (Word & 3) != UFTRACE_EXIT) {
            continue;
        }
        Fork->Depth = (ULONG)((Word >> 6) & 0x3ff);
        Fork->Address = Word >> 16;
        Fork->Inherited = Fork->Depth + 1;
        Fork->Names = (ULONG)Names;
        Names += Fork->Inherited;
    }

    if (Names == 0) {
        return RTL_STATUS_OK;
    }

    Reader->NamePoolSize = (SIZE_T)ALIGN_UP(Names * sizeof(ULONG),
                                            RTL_PAGE_SIZE);
    Status = Reader->Rtl->AllocatePages(Reader->Rtl, Reader->NamePoolSize,
                                        &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->NamePool = (PULONG)Address;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
NameInheritedCalls(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    At an entry of a task whose process forked: the entry of the fork call
    that made a child (same address and depth as the child's first exit,
    the latest before the FORK line) names the calls the child starts
    inside: the task's open calls below it, and the call itself.

--*/
{
    ULONG Number;
    ULONG Level;
    RTL_STATUS Status;

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];

        if (Fork->ParentPid != Task->Pid || Fork->Inherited == 0 ||
            Fork->Address != Task->Address || Fork->Depth != Task->Depth ||
            Task->Time >= Fork->Timestamp || Task->Time < Fork->NamedAt) {
            continue;
        }

        for (Level = 0; Level < Fork->Inherited; Level++) {
            Status = UftraceSymbolName(Reader, Task, Task->Time,
                                       Reader->Stack[Level],
                                       &Reader->NamePool[Fork->Names + Level]);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Fork->NamedAt = Task->Time;
        Fork->Named = TRUE;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ScanCut(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    ULONG Entered,
    ULONG Inherited
    )
/*++

Routine Description:

    For the scan: the task's open calls end at Time (an exec, or the end
    of a forked child that never returned from its parent's calls): the
    Entered calls it began, then the bottom Inherited calls it began in
    (in its parent, before the fork), which become spans begun before the
    recording, named from the parent.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_FORK Fork = Task->Fork ? &Reader->Forks[Task->Fork - 1] : NULL;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;
    BOOL Unmatched;
    ULONG Count;

    UftraceFillContext(Reader, Task, Time, &Context);

    for (Count = 0; Count < Entered + Inherited; Count++) {
        ULONG NameId = Reader->UnknownNameId;

        Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Unmatched) {
            if (Count >= Entered && Fork != NULL && Fork->Named) {
                NameId = Reader->NamePool[Fork->Names + Entered + Inherited -
                                          1 - Count];
            }
            TraceImportSpanScanUnmatched(Import, NameId, TRACE_NULL_ULONG,
                                         TRACE_NULL_ULONG);
        }
    }
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The scan
// ---------------------------------------------------------------------------
//

//
// The addresses of the fork calls a process's children came from, so that
// the scan passes over other entries at once.
//

#define FORK_CALLS_KEPT 8

typedef struct _FORK_CALLS {
    ULONGLONG Addresses[FORK_CALLS_KEPT];
    ULONG Count;
    BOOL Many;                  // more than kept: any entry may be one
} FORK_CALLS, *PFORK_CALLS;

static
VOID
FindForkCalls(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PFORK_CALLS Calls
    )
{
    ULONG Number;

    Calls->Count = 0;
    Calls->Many = FALSE;

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Child = &Reader->Forks[Number];
        ULONG Index;

        if (Child->ParentPid != Task->Pid || Child->Inherited == 0) {
            continue;
        }
        for (Index = 0; Index < Calls->Count; Index++) {
            if (Calls->Addresses[Index] == Child->Address) {
                break;
            }
        }
        if (Index == Calls->Count) {
            if (Calls->Count == FORK_CALLS_KEPT) {
                Calls->Many = TRUE;
            } else {
                Calls->Addresses[Calls->Count++] = Child->Address;
            }
        }
    }
}

static
BOOL
IsForkCall(
    PFORK_CALLS Calls,
    ULONGLONG Address
    )
{
    ULONG Index;

    for (Index = 0; !Calls->Many && Index < Calls->Count; Index++) {
        if (Calls->Addresses[Index] == Address) {
            return TRUE;
        }
    }
    return Calls->Many;
}

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
    the names of the calls its forked children start inside, and the
    calls an exec cuts.  It stops quietly at bad data, which the import
    pass reports.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_FORK Fork = Task->Fork ? &Reader->Forks[Task->Fork - 1] : NULL;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL Unmatched;
    ULONG Entered = 0;
    ULONG Inherited;
    LONGLONG Last = 0;
    FORK_CALLS Calls;

    FindForkCalls(Reader, Task, &Calls);
    Inherited = (Fork != NULL && Fork->Named) ? Fork->Inherited : 0;
    Task->Program = 0;
    Task->Scanned = TRUE;
    Reader->Rtl->FillMemory(Reader->Stack,
                            UFTRACE_MAX_DEPTH * sizeof(ULONGLONG), 0);

    for (;;) {
        ULONG Session;

        Status = UftraceNextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status) || Task->Done) {
            break;
        }

        Session = UftraceFindSession(Reader, Task, Task->Time);
        if (UftraceStartsProgram(Reader, Task, Session)) {
            LONGLONG Cut = Reader->Sessions[Session].Timestamp;

            Status = ScanCut(Reader, Task, Cut > Last ? Cut : Last, Entered,
                             Inherited);
            if (!RTL_SUCCESS(Status)) {
                break;
            }
            Entered = 0;
            Inherited = 0;
        }
        Task->Program = Session + 1;
        Last = Task->Time;

        UftraceFillContext(Reader, Task, Task->Time, &Context);
        if (Task->Type == UFTRACE_ENTRY) {
            Status = TraceImportSpanScanBegin(Import, &Context);
            if (Task->Depth < UFTRACE_MAX_DEPTH) {
                Reader->Stack[Task->Depth] = Task->Address;
            }
            if (RTL_SUCCESS(Status) && IsForkCall(&Calls, Task->Address)) {
                Status = NameInheritedCalls(Reader, Task);
            }
            Entered++;
            if (Task->Depth < Inherited) {
                Inherited = Task->Depth;
            }
        } else if (Task->Type == UFTRACE_EXIT) {
            Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
            if (RTL_SUCCESS(Status) && !Unmatched && Entered != 0) {
                Entered--;
            }
            if (RTL_SUCCESS(Status) && Unmatched) {
                Status = ScanUnmatchedExit(Reader, Task);
            }
            if (Task->Depth < Inherited) {
                Inherited = Task->Depth;
            }
        } else {
            TraceImportSpanScanTime(Import, Task->Time);
        }
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }

    //
    // A forked child still inside its parent's calls at its end: they are
    // closed with the trace (after every task is scanned, see
    // ScanInheritedEnds).
    //

    Task->Entered = Entered;
    Task->Inherited = Inherited;

    Task->Offset = 0;
    Task->Discarded = 0;
    Task->Done = FALSE;
    Task->Time = 0;
    Task->Depth = 0;
    Task->Program = 0;
    return Status;
}

static
RTL_STATUS
ScanInheritedEnds(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Forked children that never returned from the calls they inherited
    (they called _exit, were killed, or are still running): those calls
    end with the trace, so that the child's own calls keep uftrace's
    depths inside them.

--*/
{
    ULONG Number;
    RTL_STATUS Status;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Inherited != 0) {
            Status = ScanCut(Reader, Task, Reader->Import->Spans.ScanLastTs,
                             Task->Entered, Task->Inherited);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Task->Entered = 0;
        Task->Inherited = 0;
    }
    return RTL_STATUS_OK;
}

VOID
UftraceScanTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Scans every task, a forked process's main task after its parent's
    tasks (whose fork calls name the calls it starts inside): first the
    tasks no fork made, then the forked ones in FORK order.  Errors stop
    a task's scan quietly; the import reports them.

--*/
{
    ULONG Number;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Fork == 0 && Task->Data.Data != NULL) {
            ScanTask(Reader, Task);
        }
    }
    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];
        PUFTRACE_TASK Task = Fork->Task ? &Reader->Tasks[Fork->Task - 1] :
                                          NULL;

        if (Task != NULL && !Task->Scanned && Task->Data.Data != NULL) {
            ScanTask(Reader, Task);
        }
    }

    UftraceScanPerfEnd(Reader);
    ScanInheritedEnds(Reader);
}
