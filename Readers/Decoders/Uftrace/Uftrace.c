/*++

Module Name:

    Uftrace.c

Abstract:

    This module imports a uftrace record directory (`uftrace record`).

    Entries and exits become spans (the shared span builder nests them per
    thread), named by the symbol that contains the address, or <ADDRESS>
    like uftrace when there is none.  Arguments and return values become
    the span's args, the JSON uftrace's own Chrome export writes:
    {"arguments":"(1, \"x\")","retval":"3"}, each text as `uftrace replay`
    prints it.  Context switches become "linux:schedule" spans, and the
    sessions' memory maps rows of the `module` store.

    The directory, and the file of the reader that reads each part:

        info, task.txt          the recording, its sessions, tasks and
                                forks (UftraceRecording.c)
        sid-SID.map, NAME.sym   modules and symbols (UftraceSymbols.c)
        NAME.dbg                debug info: argument specs, enums
                                (UftraceSpecs.c)
        TID.dat                 a task's records (UftraceRecords.c)
        perf-cpuN.dat           context switches (UftracePerf.c)

    The import maps every file, scans each task once (UftraceScan.c: the
    exits without an entry, a forked child's exit of fork() among them,
    and the calls an exec cuts), then merges the tasks' records and the context
    switches in time order (TimeMerge.h, one source per file), so that a
    directory gives a sorted span store.  This module holds that order of
    the work and the spans each record becomes.

    Not imported: event records (read triggers, SDT) and the kernel/
    directory.  Lost records add their count to the span store's dropped
    count.

    Every file is mapped through the RTL, so memory does not grow with the
    trace: per task a cursor, per module a mapped symbol table searched in
    place (binary search over its sorted lines), a fixed cache of recently
    named addresses, and the argument specs of the functions seen.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called through the
    format table (TraceFormats.c: UftraceDetect, UftraceImport); calls
    the reader's other files (UftraceReader.h), TimeMerge.h and TraceImport.h's
    span builder and stores.

--*/

#include "UftraceRecording.h"
#include "Readers/Decoders/Decoders.h"

//
// ---------------------------------------------------------------------------
// The records, in time order
// ---------------------------------------------------------------------------
//

static
BOOL
IsExecName(
    PUFTRACE_READER Reader,
    ULONG NameId
    )
{
    ULONG Index;

    for (Index = 0; Index < sizeof(Reader->ExecNameIds) / sizeof(ULONG);
         Index++) {
        if (Reader->ExecNameIds[Index] == NameId) {
            return TRUE;
        }
    }
    return FALSE;
}

static
RTL_STATUS
ImportEntry(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An entry: a span begins, with {"arguments":...} when the record has
    them.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;
    ULONG NameId;
    ULONG ArgsId;

    Status = UftraceInternRecord(Reader, Task, "arguments", &NameId,
                                 &ArgsId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanBegin(Import, Context, NameId,
                                      TRACE_NULL_ULONG, ArgsId);
    }

    //
    // uftrace's count of user calls, which decides whether a context
    // switch shows; an exec call starts it again.
    //

    Task->UserDepth++;
    if (IsExecName(Reader, NameId)) {
        Task->UserDepth = 0;
    }
    return Status;
}

static
RTL_STATUS
ImportExit(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An exit: the innermost span ends, its args completed with the return
    value when the record has one.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG ArgsId = TRACE_NULL_ULONG;
    UFTRACE_TEXT Text;
    RTL_STATUS Status;
    ULONG NameId;

    Status = UftraceSymbolName(Reader, Task, Task->Time, Task->Address,
                               &NameId);
    if (RTL_SUCCESS(Status) && Task->Spec != NULL) {
        PULONG Args = TraceImportSpanOpenArgs(Import, Context);
        PCSZ Existing = NULL;
        ULONG Length = 0;
        ULONG Merged;

        Status = UftraceFormatRecordArgs(Reader, Task, &Text);

        //
        // The return value joins the arguments of the span it closes; a
        // span begun before the recording has its args from the scan.
        //

        if (RTL_SUCCESS(Status) && Args != NULL) {
            if (*Args != TRACE_NULL_ULONG) {
                Status = TraceStringLookup(&Import->Session->Strings, *Args,
                                           &Existing, &Length);
            }
            if (RTL_SUCCESS(Status)) {
                Status = UftraceInternArgs(Reader, Existing, Length,
                                           "retval", &Text, &Merged);
            }
            if (RTL_SUCCESS(Status)) {
                Args = TraceImportSpanOpenArgs(Import, Context);
                if (Args != NULL) {
                    *Args = Merged;
                }
            }
        } else if (RTL_SUCCESS(Status)) {
            Status = UftraceInternArgs(Reader, NULL, 0, "retval", &Text,
                                       &ArgsId);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanEnd(Import, Context, NameId,
                                    TRACE_NULL_ULONG, ArgsId);
    }

    if (Task->UserDepth != 0) {
        Task->UserDepth--;
    }
    return Status;
}

static
RTL_STATUS
ImportRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    PTRACE_STORE Store;
    RTL_STATUS Status;
    ULONG Session;

    Import->EventOffset = Task->RecordOffset;

    //
    // An exec: the calls of the old program never return; they end where
    // the new program's session starts.
    //

    Session = UftraceFindSession(Reader, Task, Task->Time);
    if (UftraceStartsProgram(Reader, Task, Session)) {
        LONGLONG Cut = Reader->Sessions[Session].Timestamp;

        UftraceFillContext(Reader, Task,
                           Cut > Task->CutTime ? Cut : Task->CutTime,
                           &Context);
        Status = TraceImportSpanCut(Import, &Context);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Task->UserDepth = 0;
        Task->SchedDepth = 0;
    }
    Task->Program = Session + 1;
    Task->CutTime = Task->Time;     // the latest record, for the next cut

    UftraceFillContext(Reader, Task, Task->Time, &Context);

    switch (Task->Type) {
    case UFTRACE_ENTRY:
        Status = ImportEntry(Reader, Task, &Context);
        break;

    case UFTRACE_EXIT:
        Status = ImportExit(Reader, Task, &Context);
        break;

    case UFTRACE_LOST:

        //
        // libmcount ran out of buffers: the address field holds how many
        // records it dropped.
        //

        Status = TraceImportOpenStore(Import, TraceRecordSpan, &Store);
        if (RTL_SUCCESS(Status)) {
            TraceStoreAddDropped(Store,
                                 Task->Address > 0xffffffffULL ?
                                     0xffffffffu : (ULONG)Task->Address);
        }
        return Status;

    default:
        return RTL_STATUS_OK;
    }

    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)Reader->BytesRead);
    }
    return Status;
}

static
RTL_STATUS
MergeTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Imports every task's records and the context switches in time order
    (TimeMerge.h): the sources are the tasks in task.txt order, then the
    perf files, which orders ties (uftrace takes a perf event only when it
    is strictly earlier).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;
    ULONG Number;
    ULONG Source;

    Reader->MergeMemorySize = (SIZE_T)ALIGN_UP(
        TIME_MERGE_SIZE((SIZE_T)Reader->TaskCount + Reader->PerfCount + 1),
        RTL_PAGE_SIZE);
    Status = Reader->Rtl->AllocatePages(Reader->Rtl, Reader->MergeMemorySize,
                                        &Reader->MergeMemory);
    if (!RTL_SUCCESS(Status)) {
        Reader->MergeMemory = NULL;
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    TimeMergeInitialize(&Reader->Merge, Reader->MergeMemory);

    //
    // Times are never negative (UftraceNextRecord and
    // UftraceNextPerfRecord refuse them): as unsigned keys they keep their
    // order.
    //

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Data.Data == NULL) {
            continue;
        }
        Status = UftraceNextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Task->Done) {
            TimeMergeInsert(&Reader->Merge, Number, (ULONGLONG)Task->Time);
        }
    }
    for (Number = 0; Number < Reader->PerfCount; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];

        Status = UftraceNextPerfRecord(Reader, Perf);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Perf->Done) {
            TimeMergeInsert(&Reader->Merge, Reader->TaskCount + Number,
                            (ULONGLONG)Perf->Time);
        }
    }

    while (TimeMergeFirst(&Reader->Merge, &Source)) {
        BOOL Done;
        LONGLONG Time;

        if (Source < Reader->TaskCount) {
            PUFTRACE_TASK Task = &Reader->Tasks[Source];

            Status = ImportRecord(Reader, Task);
            if (RTL_SUCCESS(Status)) {
                Status = UftraceNextRecord(Reader, Task);
            }
            Done = Task->Done;
            Time = Task->Time;
        } else {
            PUFTRACE_PERF Perf = &Reader->Perf[Source - Reader->TaskCount];

            Status = UftraceImportSwitch(Reader, Perf);
            if (RTL_SUCCESS(Status)) {
                Status = UftraceNextPerfRecord(Reader, Perf);
            }
            Done = Perf->Done;
            Time = Perf->Time;
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        if (Done) {
            TimeMergeRemoveFirst(&Reader->Merge);
        } else {
            TimeMergeUpdateFirst(&Reader->Merge, (ULONGLONG)Time);
        }
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The import
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
MapTasks(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Number;
    RTL_STATUS Status;
    CHAR Name[32];
    ULONG NameLength;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "%u.dat",
                                      Task->Tid);
        Status = UftraceMapFile(Reader, Name, NameLength, &Task->Data);
        if (Status == RTL_STATUS_NOT_FOUND) {
            continue;       // a task that recorded nothing
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Import->Length += Task->Data.Length;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
InternNames(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    The names the reader compares or writes: uftrace's exec functions
    (its fixup list), the schedule span, and the name of a call that
    cannot be known.

--*/
{
    static const PCSZ Exec[] = {
        "execl", "execlp", "execle", "execv", "execve", "execvp", "execvpe",
    };
    RTL_STATUS Status = RTL_STATUS_OK;
    ULONG Index;

    for (Index = 0; RTL_SUCCESS(Status) &&
                    Index < sizeof(Exec) / sizeof(Exec[0]); Index++) {
        Status = TraceImportIntern(Reader->Import, Exec[Index],
                                   (ULONG)RtlStringLength(Exec[Index]),
                                   &Reader->ExecNameIds[Index]);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import, "linux:schedule", 14,
                                   &Reader->ScheduleNameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import,
                                   "linux:schedule (pre-empted)", 27,
                                   &Reader->PreemptedNameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import, "<unknown>", 9,
                                   &Reader->UnknownNameId);
    }
    return Status;
}

static
VOID
DestroyReader(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Unmaps every file of the directory and frees what the import
    allocated, the reader last.

--*/
{
    PRTL Rtl = Reader->Rtl;
    ULONG Number;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        UftraceUnmapFile(Reader, &Reader->Tasks[Number].Data);
    }
    for (Number = 0; Number < Reader->PerfCount; Number++) {
        UftraceUnmapFile(Reader, &Reader->Perf[Number].Data);
    }
    for (Number = 0; Number < Reader->ModuleCount; Number++) {
        PUFTRACE_MODULE Module = &Reader->Modules[Number];

        UftraceUnmapFile(Reader, &Module->Symbols);
        UftraceUnmapFile(Reader, &Module->Debug);
        if (Module->Functions != NULL) {
            Rtl->Unmap(Rtl, Module->Functions, Module->DebugArraySize);
        }
    }
    for (Number = 0; Number < Reader->SessionCount; Number++) {
        UftraceUnmapFile(Reader, &Reader->Sessions[Number].Map);
    }
    if (Reader->Modules != NULL) {
        Rtl->Unmap(Rtl, Reader->Modules,
                   Reader->ModuleCapacity * sizeof(UFTRACE_MODULE));
    }
    if (Reader->Perf != NULL) {
        Rtl->Unmap(Rtl, Reader->Perf, Reader->PerfSize);
    }
    if (Reader->MergeMemory != NULL) {
        Rtl->Unmap(Rtl, Reader->MergeMemory, Reader->MergeMemorySize);
    }
    while (Reader->Arena != NULL) {
        PUFTRACE_ARENA_BLOCK Block = Reader->Arena;

        Reader->Arena = Block->Next;
        Rtl->Unmap(Rtl, Block, Block->Size);
    }
    if (Reader->PatternWorkspace != NULL) {
        Rtl->Unmap(Rtl, Reader->PatternWorkspace,
                   Reader->PatternWorkspaceSize);
    }
    UftraceUnmapFile(Reader, &Reader->TaskText);
    UftraceUnmapFile(Reader, &Reader->Info);
    TraceHashDestroy(&Reader->TaskIndex);
    TraceHashDestroy(&Reader->SpecIndex);
    if (Reader->Arrays != NULL) {
        Rtl->Unmap(Rtl, Reader->Arrays, Reader->ArraysSize);
    }
    Rtl->Unmap(Rtl, Reader, sizeof(UFTRACE_READER));
}

BOOL
UftraceDetect(
    PTRACE_IMPORT Import
    )
{
    PRTL Rtl = Import->Rtl;
    CHAR Path[UFTRACE_PATH_SIZE];
    BYTE Magic[UFTRACE_MAGIC_LENGTH];
    HANDLE Handle;
    SIZE_T Read = 0;
    BOOL Match = FALSE;

    if (!Import->IsDirectory ||
        RtlFormat(Path, sizeof(Path), "%s/info", Import->Path) >=
            sizeof(Path) - 1 ||
        !RTL_SUCCESS(Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Handle))) {
        return FALSE;
    }

    if (RTL_SUCCESS(Rtl->ReadFile(Rtl, Handle, 0, Magic, sizeof(Magic),
                                  &Read)) &&
        Read == sizeof(Magic) &&
        Rtl->CompareMemory(Magic, "Ftrace!\0", sizeof(Magic)) == 0) {
        Match = TRUE;
    }
    Rtl->CloseFile(Rtl, Handle);

    return Match;
}

RTL_STATUS
UftraceImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports the uftrace record directory Import->Path (a
    TRACE_FORMAT_IMPORT: TraceImport.h says what every one does).

--*/
{
    PRTL Rtl = Import->Rtl;
    PUFTRACE_READER Reader;
    RTL_STATUS Status;
    PVOID Address;
    ULONG Number;

    if (!Import->IsDirectory) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: not a uftrace record directory",
                           Import->Path);
    }

    Status = Rtl->AllocatePages(Rtl, sizeof(UFTRACE_READER), &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader = (PUFTRACE_READER)Address;
    Reader->Import = Import;
    Reader->Rtl = Rtl;

    Status = TraceHashInitialize(Rtl, &Reader->TaskIndex);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader->SpecIndex);
    }
    if (RTL_SUCCESS(Status)) {
        Reader->PatternWorkspaceSize =
            (SIZE_T)ALIGN_UP(UftracePatternWorkspaceSize(), RTL_PAGE_SIZE);
        Status = Rtl->AllocatePages(Rtl, Reader->PatternWorkspaceSize,
                                    &Reader->PatternWorkspace);
        if (!RTL_SUCCESS(Status)) {
            Reader->PatternWorkspace = NULL;
        }
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    Status = UftraceReadInfo(Reader);
    if (RTL_SUCCESS(Status)) {
        Status = UftraceReadTasks(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = UftraceReadModules(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = MapTasks(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = UftraceMapPerfFiles(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternNames(Reader);
    }
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    //
    // The scan: exits without entries, fork and exec.  It stops quietly at
    // bad data, which the import pass reaches and reports.
    //

    UftraceScanTasks(Reader);
    Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);
    Reader->BytesRead = 0;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        Task->UserDepth = 0;
        Task->SchedDepth = 0;
        Task->Program = 0;
        Task->CutTime = 0;
    }

    Status = TraceImportSpanScanDone(Import);
    for (Number = 0; RTL_SUCCESS(Status) && Number < Reader->SessionCount;
         Number++) {
        PUFTRACE_SESSION Session = &Reader->Sessions[Number];

        Status = TraceImportProcessExec(Import,
                                        TraceImportAlignTs(Import,
                                                           Session->Timestamp),
                                        Session->Pid, Session->NameId,
                                        Session->FileNameId);
        if (RTL_SUCCESS(Status)) {
            Status = UftraceImportModules(Reader, Session);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = MergeTasks(Reader);
    }

End:
    DestroyReader(Reader);

    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT UftraceDecoder = {
    "uftrace",
    "uftrace record directory (info, task.txt, *.dat, *.sym)",
    TRACE_FORMAT_TSC_CLOCK,
    UftraceDetect,
    UftraceImport
};
