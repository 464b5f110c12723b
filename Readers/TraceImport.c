/*++

Module Name:

    TraceImport.c

Abstract:

    This module implements the import context shared by every reader (see
    TraceImport.h): mapping the input, format detection, the stores of one
    import, task bookkeeping, KVM exit/entry pairing, periodic commits and
    the `source` row.

    KVM pairing.  A kvm_exit record is reserved (in time order) when the
    exit is read, with a NULL dur, and its index is remembered per task.
    The entry that follows on that task fills in dur.  Commits of the
    kvm_exit store stop short of the oldest exit still waiting for its
    entry (Store->CommitLimit), so readers never see a record change; at the
    end of the input, exits without an entry are committed with dur NULL.

    Spans.  The span builder keeps a stack of open spans per thread (see
    TraceImport.h); span records are reserved at the begin and their dur
    filled at the end, with the same commit limit as KVM exits.  Spans
    whose end lies after the recording are closed at the end of the
    import; ends without a begin, found by the reader's scan before the
    import, become spans opened at the trace's first ts.

--*/

#include "TraceImport.h"

#define DEFAULT_COMMIT_EVERY 4096
#define NO_PENDING_EXIT      TRACE_COMMIT_ALL

RTL_STATUS
TraceImportMapInput(
    PTRACE_IMPORT Import
    )
{
    PRTL Rtl = Import->Rtl;
    RTL_STATUS Status;
    HANDLE Handle;
    ULONGLONG Size;
    PVOID Address;
    CHAR InfoPath[4096];

    //
    // A directory with an `info` file is a uftrace record directory; its
    // reader opens the files inside itself.
    //

    if (RtlFormat(InfoPath, sizeof(InfoPath), "%s/info", Import->Path) <
            sizeof(InfoPath) &&
        RTL_SUCCESS(Rtl->OpenFile(Rtl, InfoPath, RtlOpenReadOnly, &Handle))) {
        Rtl->CloseFile(Rtl, Handle);
        Import->IsDirectory = TRUE;
        Import->Buffer = NULL;
        Import->Length = 0;
        return RTL_STATUS_OK;
    }

    Status = Rtl->OpenFile(Rtl, Import->Path, RtlOpenReadOnly, &Handle);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: cannot open: %s",
                           Import->Path, RtlStatusText(Status));
    }

    Status = Rtl->GetFileSize(Rtl, Handle, &Size);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    if (Size == 0) {
        Status = RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                             "%s: empty file", Import->Path);
        goto End;
    }

    Status = Rtl->MapFile(Rtl, Handle, 0, (SIZE_T)Size, FALSE, NULL,
                          &Address);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: cannot map: %s",
                    Import->Path, RtlStatusText(Status));
        goto End;
    }

    Import->Buffer = (const BYTE *)Address;
    Import->Length = (SIZE_T)Size;

End:
    Rtl->CloseFile(Rtl, Handle);
    return Status;
}

VOID
TraceImportUnmapInput(
    PTRACE_IMPORT Import
    )
{
    if (Import->Buffer != NULL) {
        Import->Rtl->Unmap(Import->Rtl, (PVOID)Import->Buffer, Import->Length);
        Import->Buffer = NULL;
    }
}

RTL_STATUS
TraceImportBegin(
    PTRACE_IMPORT Import
    )
{
    PRTL Rtl = Import->Rtl;
    PTRACE_SESSION Session = Import->Session;
    PRTL_ERROR Error = &Import->Error;
    RTL_STATUS Status;
    ULONG Index;

    Import->ImportedRealtimeNs = Rtl->QueryTime(Rtl, RtlClockRealtime);
    Rtl->FillMemory(Import->InternCache, sizeof(Import->InternCache), 0xff);
    Rtl->FillMemory(Import->RecentThreads, sizeof(Import->RecentThreads), 0);
    Import->FirstTs = 0x7fffffffffffffffLL;
    Import->LastTs = (LONGLONG)0x8000000000000000ULL;
    Import->LastPid = TRACE_NULL_ULONG;
    Import->Spans.ScanFirstTs = Import->FirstTs;
    Import->Spans.ScanLastTs = Import->LastTs;
    if (Import->CommitEvery == 0) {
        Import->CommitEvery = DEFAULT_COMMIT_EVERY;
    }

    Status = TraceSessionOpenStore(Session, &TraceSourceSchema,
                                   &Import->Source, Error);
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TraceProcessSchema,
                                       &Import->Process, Error);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TraceThreadSchema,
                                       &Import->Thread, Error);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TracePageFaultSchema,
                                       &Import->PageFault, Error);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TraceKvmExitSchema,
                                       &Import->KvmExit, Error);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TraceSchedSwitchSchema,
                                       &Import->SchedSwitch, Error);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceSessionOpenStore(Session, &TraceFtraceEventSchema,
                                       &Import->FtraceEvent, Error);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // An import only appends: its resident set stays bounded if the
    // committed part of every store is unmapped behind it.
    //

    Session->Strings.Index.DiscardBehind = TRUE;
    Session->Strings.Data.DiscardBehind = TRUE;
    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        Session->Stores[Index].DiscardBehind = TRUE;
    }

    Import->ClockId = TRACE_NULL_ULONG;

    Status = TraceHashInitialize(Rtl, &Import->Threads);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Import->Processes);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Import->ProcessNames);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Import->PendingExits);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Import->Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
StoreError(
    PTRACE_IMPORT Import,
    PTRACE_STORE Store,
    RTL_STATUS Status
    )
{
    return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines, ~0ULL,
                       "%s: cannot append to %s: %s", Import->Path,
                       Store->Path, RtlStatusText(Status));
}

RTL_STATUS
TraceImportIntern(
    PTRACE_IMPORT Import,
    PCSZ Text,
    ULONG Length,
    PULONG Id
    )
{
    RTL_STATUS Status;
    PTRACE_INTERN_CACHE_ENTRY Entry = NULL;

    if (Length <= TRACE_INTERN_CACHE_BYTES) {
        ULONG Slot = Length;

        if (Length != 0) {
            Slot += (ULONG)(BYTE)Text[0] * 7 +
                    (ULONG)(BYTE)Text[Length / 2] * 13 +
                    (ULONG)(BYTE)Text[Length - 1] * 31;
        }
        Entry = &Import->InternCache[Slot % TRACE_INTERN_CACHE_ENTRIES];

        if (Entry->Length == Length &&
            Import->Rtl->CompareMemory(Entry->Bytes, Text, Length) == 0) {
            *Id = Entry->Id;
            return RTL_STATUS_OK;
        }
    }

    Status = TraceStringIntern(&Import->Session->Strings, Text, Length, Id);
    if (RTL_SUCCESS(Status) && Entry != NULL) {
        Entry->Length = Length;
        Entry->Id = *Id;
        Import->Rtl->CopyMemory(Entry->Bytes, Text, Length);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines, ~0ULL,
                           "%s: line %llu: cannot store a string of %u "
                           "bytes (%s, %s): %s", Import->Path,
                           Import->Lines, Length,
                           Import->Session->Strings.Data.Path,
                           Import->Session->Strings.Index.Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

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
        return StoreError(Import, Store, Status);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
NoteTask(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
/*++

Routine Description:

    Adds a thread row the first time a (tid, comm) pair is seen, and a
    process row the first time a known pid is seen; keeps the import's
    time span.

--*/
{
    RTL_STATUS Status;
    ULONGLONG Key;
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    PULONGLONG Recent;

    if (Event->Timestamp < Import->FirstTs) {
        Import->FirstTs = Event->Timestamp;
    }
    if (Event->Timestamp > Import->LastTs) {
        Import->LastTs = Event->Timestamp;
    }

    //
    // An input without tasks (perf script -F time,event) has no thread.
    //

    if (Event->Tid == TRACE_NULL_ULONG) {
        return RTL_STATUS_OK;
    }

    Key = (((ULONGLONG)Event->Tid << 32) | Event->CommId) ^
          0x8000000000000000ULL;

    //
    // Tasks alternate (vcpu threads, a ping-pong): a few recent keys are
    // checked before the table.
    //

    Recent = &Import->RecentThreads[(Event->Tid ^ (Event->Tid >> 3) ^
                                     Event->CommId) %
                                    TRACE_RECENT_THREADS];
    if (Key == *Recent && Key != 0) {
        goto Process;
    }

    if (Key != Import->LastThreadKey &&
        !TraceHashFind(&Import->Threads, Key, &Cursor, &Value)) {
        THREAD_RECORD Thread;

        Thread.StartTs = Event->Timestamp;
        Thread.Tid = Event->Tid;
        Thread.Pid = Event->Pid;
        Thread.CommId = Event->CommId;
        Thread.Padding = 0;

        Status = AppendRecord(Import, Import->Thread, &Thread, NULL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Status = TraceHashInsert(&Import->Threads, Key, 1);
        if (!RTL_SUCCESS(Status)) {
            return StoreError(Import, Import->Thread, Status);
        }
    }
    Import->LastThreadKey = Key;
    *Recent = Key;

Process:
    if (Event->Pid != TRACE_NULL_ULONG && Event->Pid != Import->LastPid) {
        Cursor = 0;
        if (!TraceHashFind(&Import->Processes, (ULONGLONG)Event->Pid + 1,
                           &Cursor, &Value)) {
            ULONG NameId = Event->CommId;

            Cursor = 0;
            if (Import->ProcessNames.Count != 0 &&
                TraceHashFind(&Import->ProcessNames,
                              (ULONGLONG)Event->Pid + 1, &Cursor, &Value)) {
                NameId = (ULONG)Value;
            }
            Status = TraceImportProcessExec(Import, Event->Timestamp,
                                            Event->Pid, NameId,
                                            TRACE_NULL_ULONG);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Import->LastPid = Event->Pid;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportProcessExec(
    PTRACE_IMPORT Import,
    LONGLONG Timestamp,
    ULONG Pid,
    ULONG NameId,
    ULONG FileNameId
    )
{
    RTL_STATUS Status;
    PROCESS_RECORD Process;

    Process.StartTs = Timestamp;
    Process.Pid = Pid;
    Process.NameId = NameId;
    Process.FileNameId = FileNameId;
    Process.Padding = 0;

    Status = AppendRecord(Import, Import->Process, &Process, NULL);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = TraceHashSet(&Import->Processes, (ULONGLONG)Pid + 1, NameId);
    if (!RTL_SUCCESS(Status)) {
        return StoreError(Import, Import->Process, Status);
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportPageFault(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PPAGE_FAULT_RECORD Record
    )
{
    RTL_STATUS Status;

    Status = NoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->CommId = Event->CommId;
    Record->Cpu = Event->Cpu;
    Record->Padding = 0;

    return AppendRecord(Import, Import->PageFault, Record, NULL);
}

static
VOID
SetKvmCommitLimit(
    PTRACE_IMPORT Import
    )
{
    PTRACE_HASH_TABLE Pending = &Import->PendingExits;
    ULONGLONG Limit = TRACE_COMMIT_ALL;
    ULONGLONG Index;

    //
    // An import whose begin failed (a full disk) has no kvm_exit store.
    //

    if (Import->KvmExit == NULL) {
        return;
    }

    //
    // NO_PENDING_EXIT is TRACE_COMMIT_ALL: it never lowers the limit.
    //

    if (Pending->Count != 0) {
        for (Index = 0; Index <= Pending->Mask; Index++) {
            if (Pending->Entries[Index].Key != 0 &&
                Pending->Entries[Index].Value < Limit) {
                Limit = Pending->Entries[Index].Value;
            }
        }
    }

    Import->KvmExit->CommitLimit = Limit;
}

RTL_STATUS
TraceImportKvmExit(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PKVM_EXIT_RECORD Record
    )
{
    return TraceImportKvmExitKeyed(Import, Event, (ULONGLONG)Event->Tid + 1,
                                   Record);
}

RTL_STATUS
TraceImportKvmExitKeyed(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONGLONG Key,
    PKVM_EXIT_RECORD Record
    )
{
    RTL_STATUS Status;
    ULONGLONG Index;
    PTRACE_HASH_ENTRY Pending;

    Status = NoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Duration = TRACE_NULL_LONGLONG;
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->Cpu = Event->Cpu;
    Record->CommId = Event->CommId;

    Status = AppendRecord(Import, Import->KvmExit, Record, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // An earlier exit of this task that never saw its entry stays with a
    // NULL dur; this one replaces it as the pending exit.  A key stays in
    // the table once seen (a task has one entry; NO_PENDING_EXIT when
    // nothing waits), so an exit and an entry cost one probe each.
    //

    Pending = TraceHashLookup(&Import->PendingExits, Key);
    if (Pending != NULL) {
        if (Pending->Value != NO_PENDING_EXIT) {
            Import->UnpairedExits++;
        }
        Pending->Value = Index;
        return RTL_STATUS_OK;
    }

    Status = TraceHashInsert(&Import->PendingExits, Key, Index);
    if (!RTL_SUCCESS(Status)) {
        return StoreError(Import, Import->KvmExit, Status);
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportKvmEntry(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PBOOL Paired
    )
{
    return TraceImportKvmEntryKeyed(Import, Event, (ULONGLONG)Event->Tid + 1,
                                    Paired);
}

RTL_STATUS
TraceImportKvmEntryKeyed(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONGLONG Key,
    PBOOL Paired
    )
{
    PTRACE_HASH_ENTRY Pending;
    ULONGLONG Index;
    PKVM_EXIT_RECORD Record;

    *Paired = FALSE;

    Pending = TraceHashLookup(&Import->PendingExits, Key);
    if (Pending == NULL || Pending->Value == NO_PENDING_EXIT) {
        Import->UnpairedEntries++;
        return RTL_STATUS_OK;
    }

    Index = Pending->Value;
    Pending->Value = NO_PENDING_EXIT;

    //
    // The record is reserved but not yet committed: it may still change.
    //

    Record = (PKVM_EXIT_RECORD)(Import->KvmExit->Base +
                                Index * Import->KvmExit->RecordSize);
    Record->Duration = Event->Timestamp - Record->Timestamp;
    *Paired = TRUE;

    return NoteTask(Import, Event);
}

RTL_STATUS
TraceImportSchedSwitch(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PSCHED_SWITCH_RECORD Record
    )
{
    RTL_STATUS Status;

    Status = NoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Cpu = Event->Cpu;

    return AppendRecord(Import, Import->SchedSwitch, Record, NULL);
}

RTL_STATUS
TraceImportGenericEvent(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG ArgsId
    )
{
    RTL_STATUS Status;
    FTRACE_EVENT_RECORD Record;

    Status = NoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record.Timestamp = Event->Timestamp;
    Record.NameId = NameId;
    Record.CommId = Event->CommId;
    Record.Tid = Event->Tid;
    Record.Pid = Event->Pid;
    Record.Cpu = Event->Cpu;
    Record.FlagsId = Event->FlagsId;
    Record.ArgsId = ArgsId;
    Record.Padding = 0;

    return AppendRecord(Import, Import->FtraceEvent, &Record, NULL);
}

RTL_STATUS
TraceImportSetClock(
    PTRACE_IMPORT Import,
    PCSZ Name,
    ULONG Length
    )
{
    PTRACE_SESSION Session = Import->Session;
    CHAR Clock[TRACE_NAME_SIZE];
    RTL_STATUS Status;

    Status = TraceImportIntern(Import, Name, Length, &Import->ClockId);
    if (!RTL_SUCCESS(Status) || Length == 0 || Length >= sizeof(Clock) ||
        !RtlStringEqual(Session->Header.ClockName, "unknown")) {
        return Status;
    }

    Import->Rtl->CopyMemory(Clock, Name, Length);
    Clock[Length] = '\0';

    Status = TraceSessionSetClock(Session, Clock);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0,
                           "%s: cannot record the clock in the session: %s",
                           Import->Path, RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportOpenStore(
    PTRACE_IMPORT Import,
    PCTRACE_STORE_SCHEMA Schema,
    PTRACE_STORE *Store
    )
{
    RTL_STATUS Status;

    if (*Store != NULL) {
        return RTL_STATUS_OK;
    }

    Status = TraceSessionOpenStore(Import->Session, Schema, Store,
                                   &Import->Error);
    if (RTL_SUCCESS(Status)) {
        (*Store)->DiscardBehind = TRUE;
    }

    return Status;
}

RTL_STATUS
TraceImportCounter(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PCOUNTER_RECORD Record
    )
{
    RTL_STATUS Status;

    Status = TraceImportOpenStore(Import, &TraceCounterSchema,
                                  &Import->Counter);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Event->Timestamp < Import->FirstTs) {
        Import->FirstTs = Event->Timestamp;
    }
    if (Event->Timestamp > Import->LastTs) {
        Import->LastTs = Event->Timestamp;
    }

    Record->Timestamp = Event->Timestamp;

    return AppendRecord(Import, Import->Counter, Record, NULL);
}

static
PCSZ
NextWord(
    PCSZ Cursor,
    PCSZ End,
    PTEXT_SPAN Word
    )
{
    Word->Start = TextSkipSpaces(Cursor, End);
    Word->End = Word->Start;
    while (Word->End < End && *Word->End != ' ' && *Word->End != '\t') {
        Word->End++;
    }
    return Word->End;
}

RTL_STATUS
TraceImportModuleLine(
    PTRACE_IMPORT Import,
    LONGLONG Timestamp,
    ULONG Pid,
    PCSZ Line,
    PCSZ LineEnd,
    PBOOL Parsed,
    PMODULE_RECORD Appended
    )
/*++

Routine Description:

    Parses one /proc/PID/maps line (see TraceImport.h) and appends it to
    the module store, which is opened on first use.

Arguments:

    Timestamp - When the mapping was seen.

    Pid - Its process, or TRACE_NULL_ULONG.

    Line, LineEnd - The line, without its newline.

    Parsed - Receives FALSE if the line is not a mapping line.

    Appended - Optional; receives the row appended.

Return Value:

    RTL_STATUS_OK (also for a line that is not parsed), or a store error in
    Import->Error.

--*/
{
    MODULE_RECORD Record;
    TEXT_SPAN Word;
    TEXT_SPAN Path;
    TEXT_SPAN BuildId;
    PCSZ Cursor;
    PCSZ Tail;
    ULONG Field;
    RTL_STATUS Status;

    *Parsed = FALSE;
    LineEnd = TextTrimEnd(Line, LineEnd);

    //
    // START-END: both hex, END not below START.
    //

    Cursor = TextParseUnsigned(Line, LineEnd, TRUE, &Record.Start);
    if (Cursor == NULL || Cursor >= LineEnd || *Cursor != '-') {
        return RTL_STATUS_OK;
    }
    Cursor = TextParseUnsigned(Cursor + 1, LineEnd, TRUE, &Record.End);
    if (Cursor == NULL || Record.End < Record.Start ||
        (Cursor < LineEnd && *Cursor != ' ' && *Cursor != '\t')) {
        return RTL_STATUS_OK;
    }

    //
    // PERMS (four characters), OFFSET (hex), DEV, INODE.
    //

    Cursor = NextWord(Cursor, LineEnd, &Word);
    if (TEXT_SPAN_LENGTH(Word) != 4) {
        return RTL_STATUS_OK;
    }
    Status = TraceImportIntern(Import, Word.Start, 4, &Record.PermsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Cursor = NextWord(Cursor, LineEnd, &Word);
    if (Word.Start == Word.End ||
        TextParseUnsigned(Word.Start, Word.End, TRUE, &Record.Offset) !=
            Word.End) {
        return RTL_STATUS_OK;
    }
    for (Field = 0; Field < 2; Field++) {
        Cursor = NextWord(Cursor, LineEnd, &Word);
        if (Word.Start == Word.End) {
            return RTL_STATUS_OK;
        }
    }

    //
    // PATH: the rest, without uftrace's " build-id:HEX" at its end.
    //

    Path.Start = TextSkipSpaces(Cursor, LineEnd);
    Path.End = LineEnd;
    BuildId.Start = BuildId.End = NULL;
    for (Tail = Path.End; Tail > Path.Start && Tail[-1] != ' ' &&
                          Tail[-1] != '\t'; Tail--) {
    }
    if (TextStartsWith(Tail, Path.End, "build-id:")) {
        BuildId.Start = Tail + 9;
        BuildId.End = Path.End;
        Path.End = TextTrimEnd(Path.Start, Tail);
    }

    Record.PathId = TRACE_NULL_ULONG;
    if (Path.End > Path.Start) {
        Status = TraceImportIntern(Import, Path.Start,
                                   TEXT_SPAN_LENGTH(Path), &Record.PathId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    Record.BuildIdId = TRACE_NULL_ULONG;
    if (BuildId.End > BuildId.Start) {
        Status = TraceImportIntern(Import, BuildId.Start,
                                   TEXT_SPAN_LENGTH(BuildId),
                                   &Record.BuildIdId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    Record.Timestamp = Timestamp;
    Record.Pid = Pid;
    *Parsed = TRUE;
    if (Appended != NULL) {
        *Appended = Record;
    }

    return TraceImportModule(Import, &Record);
}

RTL_STATUS
TraceImportModule(
    PTRACE_IMPORT Import,
    PMODULE_RECORD Record
    )
/*++

Routine Description:

    Appends a `module` row, opening the store on first use.

--*/
{
    RTL_STATUS Status;

    Status = TraceImportOpenStore(Import, &TraceModuleSchema, &Import->Module);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return AppendRecord(Import, Import->Module, Record, NULL);
}

//
// ---------------------------------------------------------------------------
// Spans
// ---------------------------------------------------------------------------
//

#define TRACE_SPAN_OPEN         ((LONGLONG)0x8000000000000000ULL)
#define TRACE_SPAN_PRELUDE      0x8000000000000000ULL
#define TRACE_SPAN_MAX_DEPTH    65536
#define TRACE_SPAN_MAX_THREADS  (1u << 20)
#define TRACE_SPAN_POOL_BLOCK   (256 * 1024)
#define TRACE_SPAN_FIRST_FRAMES 8

typedef struct _TRACE_SPAN_BLOCK {
    struct _TRACE_SPAN_BLOCK *Next;
    SIZE_T Size;
} TRACE_SPAN_BLOCK, *PTRACE_SPAN_BLOCK;

static
RTL_STATUS
SpanError(
    PTRACE_IMPORT Import,
    RTL_STATUS Status,
    PCSZ What,
    ULONG Tid
    )
{
    return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines,
                       Import->EventOffset,
                       "%s: offset %llu: thread %u: %s", Import->Path,
                       Import->EventOffset, Tid, What);
}

static
PVOID
SpanAllocate(
    PTRACE_IMPORT Import,
    SIZE_T Bytes
    )
/*++

Routine Description:

    Carves Bytes (a multiple of 16) from the builder's pool of pages.  The
    pool only grows; everything is released at the end of the import.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    PTRACE_SPAN_BLOCK Block;
    SIZE_T Size;
    PVOID Address;

    if ((SIZE_T)(Builder->PoolEnd - Builder->PoolCursor) < Bytes) {
        Size = TRACE_SPAN_POOL_BLOCK;
        if (Bytes + sizeof(TRACE_SPAN_BLOCK) > Size) {
            Size = (SIZE_T)ALIGN_UP(Bytes + sizeof(TRACE_SPAN_BLOCK),
                                    RTL_PAGE_SIZE);
        }
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Size, &Address))) {
            return NULL;
        }
        Block = (PTRACE_SPAN_BLOCK)Address;
        Block->Next = (PTRACE_SPAN_BLOCK)Builder->Blocks;
        Block->Size = Size;
        Builder->Blocks = Block;
        Builder->PoolCursor = (PBYTE)(Block + 1);
        Builder->PoolEnd = (PBYTE)Address + Size;
    }

    Address = Builder->PoolCursor;
    Builder->PoolCursor += Bytes;
    return Address;
}

static
ULONG
SpanHash(
    ULONG Pid,
    ULONG Tid
    )
{
    ULONGLONG Key = ((ULONGLONG)Pid << 32) | Tid;

    Key ^= Key >> 31;
    Key *= 0x9E3779B97F4A7C15ULL;
    return (ULONG)(Key >> 32);
}

static
RTL_STATUS
SpanGrowThreads(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Doubles the thread array and rebuilds the open-addressing slots (twice
    as many slots as threads).

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    ULONG Capacity = Builder->ThreadCapacity ? Builder->ThreadCapacity * 2 : 64;
    ULONG SlotCount = Capacity * 2;
    PVOID Threads;
    PVOID Slots;
    ULONG Number;

    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Capacity *
                                        sizeof(TRACE_SPAN_THREAD), &Threads))) {
        return RTL_STATUS_NO_MEMORY;
    }
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, SlotCount * sizeof(ULONG),
                                        &Slots))) {
        Rtl->Unmap(Rtl, Threads, Capacity * sizeof(TRACE_SPAN_THREAD));
        return RTL_STATUS_NO_MEMORY;
    }

    if (Builder->Threads != NULL) {
        Rtl->CopyMemory(Threads, Builder->Threads,
                        Builder->ThreadCount * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Threads,
                   Builder->ThreadCapacity * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Slots,
                   (Builder->SlotMask + 1) * sizeof(ULONG));
    }

    Builder->Threads = (PTRACE_SPAN_THREAD)Threads;
    Builder->ThreadCapacity = Capacity;
    Builder->Slots = (PULONG)Slots;
    Builder->SlotMask = SlotCount - 1;

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];
        ULONG Slot = SpanHash(Thread->Pid, Thread->Tid) & Builder->SlotMask;

        while (Builder->Slots[Slot] != 0) {
            Slot = (Slot + 1) & Builder->SlotMask;
        }
        Builder->Slots[Slot] = Number + 1;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
SpanFindThread(
    PTRACE_IMPORT Import,
    ULONG Pid,
    ULONG Tid,
    PTRACE_SPAN_THREAD *Result
    )
/*++

Routine Description:

    Returns the builder's state for thread (Pid, Tid), adding it if new.
    The pointer is valid until the next call (the array may move).

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PTRACE_SPAN_THREAD Thread;
    ULONG Slot;
    RTL_STATUS Status;

    if (Builder->LastThread != 0) {
        Thread = &Builder->Threads[Builder->LastThread - 1];
        if (Thread->Pid == Pid && Thread->Tid == Tid) {
            *Result = Thread;
            return RTL_STATUS_OK;
        }
    }

    if (Builder->Slots != NULL) {
        Slot = SpanHash(Pid, Tid) & Builder->SlotMask;
        while (Builder->Slots[Slot] != 0) {
            Thread = &Builder->Threads[Builder->Slots[Slot] - 1];
            if (Thread->Pid == Pid && Thread->Tid == Tid) {
                Builder->LastThread = Builder->Slots[Slot];
                *Result = Thread;
                return RTL_STATUS_OK;
            }
            Slot = (Slot + 1) & Builder->SlotMask;
        }
    }

    if (Builder->ThreadCount == TRACE_SPAN_MAX_THREADS) {
        return SpanError(Import, RTL_STATUS_TOO_LARGE,
                         "more than 1048576 threads with spans", Tid);
    }

    if (Builder->ThreadCount == Builder->ThreadCapacity) {
        Status = SpanGrowThreads(Import);
        if (!RTL_SUCCESS(Status)) {
            return SpanError(Import, Status, "out of memory for spans", Tid);
        }
    }

    Thread = &Builder->Threads[Builder->ThreadCount];
    Import->Rtl->FillMemory(Thread, sizeof(*Thread), 0);
    Thread->Pid = Pid;
    Thread->Tid = Tid;

    Slot = SpanHash(Pid, Tid) & Builder->SlotMask;
    while (Builder->Slots[Slot] != 0) {
        Slot = (Slot + 1) & Builder->SlotMask;
    }
    Builder->ThreadCount++;
    Builder->Slots[Slot] = Builder->ThreadCount;
    Builder->LastThread = Builder->ThreadCount;

    *Result = Thread;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
SpanPush(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    ULONGLONG Index,
    LONGLONG End
    )
{
    PTRACE_SPAN_FRAME Frames;
    ULONG Capacity;

    if (Thread->Depth == Thread->Capacity) {
        if (Thread->Capacity >= TRACE_SPAN_MAX_DEPTH) {
            return SpanError(Import, RTL_STATUS_TOO_LARGE,
                             "spans nested deeper than 65536", Thread->Tid);
        }

        //
        // The old frames stay in the pool: the waste is less than what is
        // in use, since the stack doubles.
        //

        Capacity = Thread->Capacity ? Thread->Capacity * 2 :
                                      TRACE_SPAN_FIRST_FRAMES;
        Frames = (PTRACE_SPAN_FRAME)SpanAllocate(
            Import, Capacity * sizeof(TRACE_SPAN_FRAME));
        if (Frames == NULL) {
            return SpanError(Import, RTL_STATUS_NO_MEMORY,
                             "out of memory for spans", Thread->Tid);
        }
        if (Thread->Depth != 0) {
            Import->Rtl->CopyMemory(Frames, Thread->Frames,
                                    Thread->Depth * sizeof(TRACE_SPAN_FRAME));
        }
        Thread->Frames = Frames;
        Thread->Capacity = Capacity;
    }

    Thread->Frames[Thread->Depth].Index = Index;
    Thread->Frames[Thread->Depth].End = End;
    Thread->Depth++;
    return RTL_STATUS_OK;
}

static
VOID
SpanPopEnded(
    PTRACE_SPAN_THREAD Thread,
    LONGLONG Timestamp
    )
/*++

Routine Description:

    Pops the spans of known end (Chrome X) that ended by Timestamp: an
    event at or after a span's end is not inside it.

--*/
{
    while (Thread->Depth != 0) {
        PTRACE_SPAN_FRAME Top = &Thread->Frames[Thread->Depth - 1];

        if (Top->End == TRACE_SPAN_OPEN || (Top->Index & TRACE_SPAN_PRELUDE) ||
            Top->End > Timestamp) {
            break;
        }
        Thread->Depth--;
    }
}

static
PSPAN_RECORD
SpanRecord(
    PTRACE_IMPORT Import,
    ULONGLONG Index
    )
{
    return (PSPAN_RECORD)(Import->Span->Base +
                          Index * Import->Span->RecordSize);
}

static
RTL_STATUS
SpanAppend(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    PTRACE_EVENT_CONTEXT Event,
    PSPAN_RECORD Record,
    PULONGLONG Index
    )
/*++

Routine Description:

    Fills the nesting and task fields of Record from the thread's stack and
    Event, and appends it to the span store (opened on first use).

--*/
{
    RTL_STATUS Status;

    Status = TraceImportOpenStore(Import, &TraceSpanSchema, &Import->Span);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Depth = Thread->Depth;
    Record->ParentId = TRACE_NULL_LONGLONG;
    if (Thread->Depth != 0) {
        Record->ParentId = (LONGLONG)(Thread->Frames[Thread->Depth - 1].Index &
                                      ~TRACE_SPAN_PRELUDE);
    }
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->Padding = 0;

    return AppendRecord(Import, Import->Span, Record, Index);
}

RTL_STATUS
TraceImportSpanBegin(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONGLONG Index;

    Status = NoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    SpanPopEnded(Thread, Event->Timestamp);

    Record.Timestamp = Event->Timestamp;
    Record.Duration = TRACE_NULL_LONGLONG;  // filled in at the end
    Record.NameId = NameId;
    Record.CategoryId = CategoryId;
    Record.ArgsId = ArgsId;
    Record.Flags = 0;

    Status = SpanAppend(Import, Thread, Event, &Record, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return SpanPush(Import, Thread, Index, TRACE_SPAN_OPEN);
}

RTL_STATUS
TraceImportSpanEnd(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONG Depth;

    Status = NoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    SpanPopEnded(Thread, Event->Timestamp);

    //
    // The innermost span with an end to wait for.  Complete spans above
    // it are mis-nested (they outlast the span that contains them): they
    // end here too as far as nesting goes.
    //

    for (Depth = Thread->Depth; Depth != 0; Depth--) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];

        if (Frame->End == TRACE_SPAN_OPEN) {
            PSPAN_RECORD Open = SpanRecord(Import, Frame->Index);

            Open->Duration = Event->Timestamp - Open->Timestamp;
            Thread->Depth = Depth - 1;
            return RTL_STATUS_OK;
        }

        if (Frame->Index & TRACE_SPAN_PRELUDE) {

            //
            // A span opened before the recording, written whole by
            // TraceImportSpanScanDone: this is its end.
            //

            Thread->Depth = Depth - 1;
            return RTL_STATUS_OK;
        }
    }

    //
    // An end that the reader's scan did not announce: it began before the
    // recording.  Without the scan its enclosing of earlier spans is lost;
    // it still gets its row.
    //

    Record.Timestamp = Import->FirstTs < Event->Timestamp ? Import->FirstTs :
                                                            Event->Timestamp;
    Record.Duration = Event->Timestamp - Record.Timestamp;
    Record.NameId = NameId;
    Record.CategoryId = CategoryId;
    Record.ArgsId = ArgsId;
    Record.Flags = SPAN_FLAG_BEGIN_MISSING;

    Depth = Thread->Depth;
    Thread->Depth = 0;
    Status = SpanAppend(Import, Thread, Event, &Record, NULL);
    Thread->Depth = Depth;
    if (RTL_SUCCESS(Status)) {
        Import->Spans.Repaired++;
        TraceStoreAddRepaired(Import->Span, 1);
    }

    return Status;
}

RTL_STATUS
TraceImportSpanComplete(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    LONGLONG Duration,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONGLONG Index;
    LONGLONG End = Event->Timestamp + Duration;

    Status = NoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (End > Import->LastTs) {
        Import->LastTs = End;
    }

    SpanPopEnded(Thread, Event->Timestamp);

    Record.Timestamp = Event->Timestamp;
    Record.Duration = Duration;
    Record.NameId = NameId;
    Record.CategoryId = CategoryId;
    Record.ArgsId = ArgsId;
    Record.Flags = 0;

    Status = SpanAppend(Import, Thread, Event, &Record, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return SpanPush(Import, Thread, Index, End);
}

RTL_STATUS
TraceImportInstant(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId,
    BOOL Nested
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONG Depth;

    Status = NoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    SpanPopEnded(Thread, Event->Timestamp);

    Record.Timestamp = Event->Timestamp;
    Record.Duration = 0;
    Record.NameId = NameId;
    Record.CategoryId = CategoryId;
    Record.ArgsId = ArgsId;
    Record.Flags = SPAN_FLAG_INSTANT;

    Depth = Thread->Depth;
    if (!Nested) {
        Thread->Depth = 0;
    }
    Status = SpanAppend(Import, Thread, Event, &Record, NULL);
    Thread->Depth = Depth;

    return Status;
}

RTL_STATUS
TraceImportSpanLate(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    const TRACE_SPAN_EVENT *Span
    )
/*++

Routine Description:

    Adds a span event that came after its turn (the reorder window was
    full, SpanReorder.c).  An end closes the innermost open span as
    always.  A begin opens its span on top of the thread's stack.  A
    complete span or instant is nested under the deepest span on the stack
    that contains it (none: depth 0) and does not go on the stack: what it
    contains was already placed.  The rows are flagged SPAN_FLAG_LATE.

--*/
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONGLONG Index;
    LONGLONG End = Event->Timestamp + Span->Duration;
    ULONG Depth;
    ULONG Saved;

    if (Span->Kind == TraceSpanEnd) {
        return TraceImportSpanEnd(Import, Event, Span->NameId,
                                  Span->CategoryId, Span->ArgsId);
    }

    Status = NoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (End > Import->LastTs) {
        Import->LastTs = End;
    }

    Record.Timestamp = Event->Timestamp;
    Record.Duration = Span->Duration;
    Record.NameId = Span->NameId;
    Record.CategoryId = Span->CategoryId;
    Record.ArgsId = Span->ArgsId;
    Record.Flags = SPAN_FLAG_LATE;

    if (Span->Kind == TraceSpanBegin) {
        Record.Duration = TRACE_NULL_LONGLONG;
        Status = SpanAppend(Import, Thread, Event, &Record, &Index);
        if (RTL_SUCCESS(Status)) {
            Status = SpanPush(Import, Thread, Index, TRACE_SPAN_OPEN);
        }
        return Status;
    }

    if (Span->Kind != TraceSpanComplete) {
        Record.Duration = 0;
        Record.Flags |= SPAN_FLAG_INSTANT;
    }

    Depth = 0;
    if (Span->Kind != TraceSpanInstantGlobal) {
        for (Depth = Thread->Depth; Depth != 0; Depth--) {
            PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];
            PSPAN_RECORD Outer = SpanRecord(Import,
                                            Frame->Index & ~TRACE_SPAN_PRELUDE);

            if (Outer->Timestamp <= Event->Timestamp &&
                (Frame->End == TRACE_SPAN_OPEN ||
                 (End <= Frame->End && Event->Timestamp < Frame->End))) {
                break;
            }
        }
    }

    Saved = Thread->Depth;
    Thread->Depth = Depth;
    Status = SpanAppend(Import, Thread, Event, &Record, NULL);
    Thread->Depth = Saved;

    return Status;
}

PULONG
TraceImportSpanOpenArgs(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    ULONG Depth;

    if (Import->Span == NULL ||
        !RTL_SUCCESS(SpanFindThread(Import, Event->Pid, Event->Tid,
                                    &Thread))) {
        return NULL;
    }

    //
    // The span TraceImportSpanEnd would close.
    //

    for (Depth = Thread->Depth; Depth != 0; Depth--) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];

        if (Frame->Index & TRACE_SPAN_PRELUDE) {
            return NULL;
        }
        if (Frame->End == TRACE_SPAN_OPEN) {
            return &SpanRecord(Import, Frame->Index)->ArgsId;
        }
    }
    return NULL;
}

RTL_STATUS
TraceImportSpanCut(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    RTL_STATUS Status;
    ULONG Depth;
    ULONG Closed = 0;

    if (Import->Span == NULL) {
        return RTL_STATUS_OK;
    }
    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Depth = 0; Depth < Thread->Depth; Depth++) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth];

        if (Frame->End == TRACE_SPAN_OPEN &&
            !(Frame->Index & TRACE_SPAN_PRELUDE)) {
            PSPAN_RECORD Record = SpanRecord(Import, Frame->Index);

            Record->Duration = Event->Timestamp > Record->Timestamp ?
                               Event->Timestamp - Record->Timestamp : 0;
            Record->Flags |= SPAN_FLAG_END_MISSING;
            Closed++;
        }
    }
    Thread->Depth = 0;

    if (Closed != 0) {
        Import->Spans.Repaired += Closed;
        TraceStoreAddRepaired(Import->Span, Closed);
    }
    return RTL_STATUS_OK;
}

VOID
TraceImportSpanScanTime(
    PTRACE_IMPORT Import,
    LONGLONG Timestamp
    )
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;

    if (Timestamp < Builder->ScanFirstTs) {
        Builder->ScanFirstTs = Timestamp;
    }
    if (Timestamp > Builder->ScanLastTs) {
        Builder->ScanLastTs = Timestamp;
    }
}

RTL_STATUS
TraceImportSpanScanBegin(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    RTL_STATUS Status;

    TraceImportSpanScanTime(Import, Event->Timestamp);

    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (RTL_SUCCESS(Status)) {
        Thread->ScanOpen++;
    }
    return Status;
}

RTL_STATUS
TraceImportSpanScanEnd(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PBOOL Unmatched
    )
/*++

Routine Description:

    Counts an end in the scan.  An end when no begin of the thread is open
    belongs to a span that began before the recording: it is remembered
    (*Unmatched is TRUE, and the reader names it with
    TraceImportSpanScanUnmatched).

--*/
{
    PTRACE_SPAN_THREAD Thread;
    PTRACE_SPAN_MISSING Missing;
    RTL_STATUS Status;
    ULONG Capacity;

    *Unmatched = FALSE;
    Import->Spans.LastMissing = NULL;
    TraceImportSpanScanTime(Import, Event->Timestamp);

    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Thread->ScanOpen != 0) {
        Thread->ScanOpen--;
        return RTL_STATUS_OK;
    }

    if (Thread->MissingCount == Thread->MissingCapacity) {
        if (Thread->MissingCapacity >= TRACE_SPAN_MAX_DEPTH) {
            return SpanError(Import, RTL_STATUS_TOO_LARGE,
                             "more than 65536 span ends without a begin",
                             Thread->Tid);
        }
        Capacity = Thread->MissingCapacity ? Thread->MissingCapacity * 2 : 4;
        Missing = (PTRACE_SPAN_MISSING)SpanAllocate(
            Import, Capacity * sizeof(TRACE_SPAN_MISSING));
        if (Missing == NULL) {
            return SpanError(Import, RTL_STATUS_NO_MEMORY,
                             "out of memory for spans", Thread->Tid);
        }
        if (Thread->MissingCount != 0) {
            Import->Rtl->CopyMemory(Missing, Thread->Missing,
                                    Thread->MissingCount *
                                        sizeof(TRACE_SPAN_MISSING));
        }
        Thread->Missing = Missing;
        Thread->MissingCapacity = Capacity;
    }

    Missing = &Thread->Missing[Thread->MissingCount++];
    Missing->Timestamp = Event->Timestamp;
    Missing->NameId = 0;
    Missing->CategoryId = TRACE_NULL_ULONG;
    Missing->ArgsId = TRACE_NULL_ULONG;
    Missing->Padding = 0;
    Import->Spans.LastMissing = Missing;
    *Unmatched = TRUE;

    return RTL_STATUS_OK;
}

VOID
TraceImportSpanScanUnmatched(
    PTRACE_IMPORT Import,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    PTRACE_SPAN_MISSING Missing = Import->Spans.LastMissing;

    if (Missing != NULL) {
        Missing->NameId = NameId;
        Missing->CategoryId = CategoryId;
        Missing->ArgsId = ArgsId;
    }
}

RTL_STATUS
TraceImportSpanScanDone(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Ends the scan: for each thread, the ends it found without a begin
    become spans that begin at the trace's first ts, the last of them
    outermost (depth 0), each enclosing the next, flagged
    SPAN_FLAG_BEGIN_MISSING.  They are written whole now, first in the
    store, and stay on the thread's stack until the import reaches their
    ends.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    ULONG Number;
    ULONG Created = 0;
    RTL_STATUS Status = RTL_STATUS_OK;

    Builder->LastMissing = NULL;
    TraceImportSpanReorderBegin(Import);

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];
        ULONG Count = Thread->MissingCount;
        TRACE_EVENT_CONTEXT Event;

        Thread->ScanOpen = 0;
        Import->Rtl->FillMemory(&Event, sizeof(Event), 0);
        Event.Pid = Thread->Pid;
        Event.Tid = Thread->Tid;

        while (Count != 0) {
            PTRACE_SPAN_MISSING Missing = &Thread->Missing[--Count];
            SPAN_RECORD Record;
            ULONGLONG Index;

            Record.Timestamp = Builder->ScanFirstTs;
            Record.Duration = Missing->Timestamp - Builder->ScanFirstTs;
            Record.NameId = Missing->NameId;
            Record.CategoryId = Missing->CategoryId;
            Record.ArgsId = Missing->ArgsId;
            Record.Flags = SPAN_FLAG_BEGIN_MISSING;

            Status = SpanAppend(Import, Thread, &Event, &Record, &Index);
            if (RTL_SUCCESS(Status)) {
                Status = SpanPush(Import, Thread, Index | TRACE_SPAN_PRELUDE,
                                  Missing->Timestamp);
            }
            if (!RTL_SUCCESS(Status)) {
                goto End;
            }
            Created++;
        }

        Thread->MissingCount = 0;
    }

End:
    if (Created != 0) {
        Builder->Repaired += Created;
        TraceStoreAddRepaired(Import->Span, Created);
    }

    return Status;
}

static
VOID
SetSpanCommitLimit(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Holds back the span store's commits at the oldest span still waiting
    for its end: on each thread, the bottom-most open frame.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    ULONGLONG Limit = TRACE_COMMIT_ALL;
    ULONG Number;
    ULONG Depth;

    if (Import->Span == NULL) {
        return;
    }

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];

        for (Depth = 0; Depth < Thread->Depth; Depth++) {
            if (Thread->Frames[Depth].End == TRACE_SPAN_OPEN) {
                if (Thread->Frames[Depth].Index < Limit) {
                    Limit = Thread->Frames[Depth].Index;
                }
                break;
            }
        }
    }

    Import->Span->CommitLimit = Limit;
}

static
VOID
SpanFinish(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Closes the spans still open at the trace's last ts, flagged
    SPAN_FLAG_END_MISSING, and releases the builder's memory.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    PTRACE_SPAN_BLOCK Block;
    ULONG Number;
    ULONG Depth;
    ULONG Closed = 0;

    if (Import->Span != NULL) {
        for (Number = 0; Number < Builder->ThreadCount; Number++) {
            PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];

            for (Depth = 0; Depth < Thread->Depth; Depth++) {
                if (Thread->Frames[Depth].End == TRACE_SPAN_OPEN) {
                    PSPAN_RECORD Record =
                        SpanRecord(Import, Thread->Frames[Depth].Index);
                    LONGLONG End = Import->LastTs;

                    if (End < Record->Timestamp) {
                        End = Record->Timestamp;
                    }
                    Record->Duration = End - Record->Timestamp;
                    Record->Flags |= SPAN_FLAG_END_MISSING;
                    Closed++;
                }
            }
            Thread->Depth = 0;
        }

        if (Closed != 0) {
            Builder->Repaired += Closed;
            TraceStoreAddRepaired(Import->Span, Closed);
        }
        Import->Span->CommitLimit = TRACE_COMMIT_ALL;
    }

    while (Builder->Blocks != NULL) {
        Block = (PTRACE_SPAN_BLOCK)Builder->Blocks;
        Builder->Blocks = Block->Next;
        Rtl->Unmap(Rtl, Block, Block->Size);
    }
    if (Builder->Threads != NULL) {
        Rtl->Unmap(Rtl, Builder->Threads,
                   Builder->ThreadCapacity * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Slots,
                   (Builder->SlotMask + 1) * sizeof(ULONG));
    }
    Builder->Threads = NULL;
    Builder->Slots = NULL;
    Builder->ThreadCount = 0;
    Builder->ThreadCapacity = 0;
    Builder->LastThread = 0;
    Builder->PoolCursor = NULL;
    Builder->PoolEnd = NULL;
}

static
RTL_STATUS
Commit(
    PTRACE_IMPORT Import
    )
{
    RTL_STATUS Status;

    SetKvmCommitLimit(Import);
    SetSpanCommitLimit(Import);

    Status = TraceSessionCommit(Import->Session);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines,
                           ~0ULL, "%s: commit failed: %s", Import->Path,
                           RtlStatusText(Status));
    }

    Import->SinceCommit = 0;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportEventDone(
    PTRACE_IMPORT Import,
    SIZE_T BytesDone
    )
{
    Import->Events++;

    if (++Import->SinceCommit < Import->CommitEvery) {
        return RTL_STATUS_OK;
    }

    if (Import->Progress != NULL) {
        Import->Progress(Import->ProgressContext, BytesDone, Import->Length,
                         Import->Events);
    }

    //
    // The input is read front to back: unmap what lies well behind.
    //

    if (Import->Buffer != NULL &&
        BytesDone >= Import->DiscardedBytes + 2 * TRACE_DISCARD_BEHIND) {
        Import->Rtl->DiscardMemory(Import->Rtl,
                                   Import->Buffer + Import->DiscardedBytes,
                                   BytesDone - TRACE_DISCARD_BEHIND -
                                   Import->DiscardedBytes);
        Import->DiscardedBytes = BytesDone - TRACE_DISCARD_BEHIND;
    }

    return Commit(Import);
}

RTL_STATUS
TraceImportCommit(
    PTRACE_IMPORT Import
    )
{
    return Commit(Import);
}

RTL_STATUS
TraceImportEnd(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Finishes an import, successful or not: exits still waiting for an
    entry are released with a NULL dur, spans still open are closed at the
    trace's last ts, the `source` row is written, and everything is
    committed.  Import->Error is only overwritten if it held
    no error yet.

--*/
{
    PRTL Rtl = Import->Rtl;
    RTL_STATUS Status;
    RTL_STATUS CommitStatus;
    SOURCE_RECORD Source;
    RTL_ERROR Saved = Import->Error;
    BOOL HadError = (Import->Error.Status != RTL_STATUS_OK);

    //
    // Span events still held in the reorder window come before the end of
    // the input (or the error that stopped it).
    //

    if (!RTL_SUCCESS(TraceImportSpanReorderDrain(Import)) && !HadError) {
        Saved = Import->Error;
        HadError = TRUE;
    }
    TraceImportSpanReorderFree(Import);

    if (Import->PendingExits.Entries != NULL) {
        ULONGLONG Index;

        for (Index = 0; Index <= Import->PendingExits.Mask; Index++) {
            if (Import->PendingExits.Entries[Index].Key != 0 &&
                Import->PendingExits.Entries[Index].Value !=
                    NO_PENDING_EXIT) {
                Import->UnpairedExits++;
            }
        }
    }
    TraceHashDestroy(&Import->PendingExits);
    TraceHashDestroy(&Import->Threads);
    TraceHashDestroy(&Import->Processes);
    TraceHashDestroy(&Import->ProcessNames);

    if (Import->KvmExit != NULL) {
        Import->KvmExit->CommitLimit = TRACE_COMMIT_ALL;
    }

    SpanFinish(Import);

    if (Import->FtraceEvent != NULL && Import->LostEvents != 0) {
        TraceStoreAddDropped(Import->FtraceEvent,
                             (ULONG)Import->LostEvents);
    }

    Status = RTL_STATUS_OK;

    if (Import->Source != NULL) {
        Source.ImportedRealtimeNs = Import->ImportedRealtimeNs;
        Source.FirstTs = TRACE_NULL_LONGLONG;
        Source.LastTs = TRACE_NULL_LONGLONG;
        if (Import->Events != 0) {
            Source.FirstTs = Import->FirstTs;
            Source.LastTs = Import->LastTs;
        }
        Source.Bytes = Import->Length;
        Source.Lines = Import->Lines;
        Source.Events = Import->Events;
        Source.ClockId = Import->ClockId;
        Source.Padding = 0;
        Source.TscMhz = 0;
        if (Import->TscMhz > 0) {
            Source.TscMhz = Import->TscMhz;
        } else {
            Rtl->FillMemory(&Source.TscMhz, sizeof(Source.TscMhz), 0xff);
        }

        Status = TraceImportIntern(Import, Import->Path,
                                   (ULONG)RtlStringLength(Import->Path),
                                   &Source.PathId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportIntern(Import, Import->FormatName,
                                       (ULONG)RtlStringLength(
                                           Import->FormatName),
                                       &Source.FormatId);
        }
        if (RTL_SUCCESS(Status)) {
            Status = AppendRecord(Import, Import->Source, &Source, NULL);
        }
    }

    CommitStatus = Commit(Import);
    if (RTL_SUCCESS(Status)) {
        Status = CommitStatus;
    }

    if (HadError) {
        Import->Error = Saved;
        return Saved.Status;
    }

    return Status;
}

#define SNIPPET_LENGTH 60

RTL_STATUS
TraceImportLineError(
    PTRACE_IMPORT Import,
    RTL_STATUS Status,
    PCSZ LineStart,
    PCSZ LineEnd,
    PCSZ Reason
    )
{
    CHAR Snippet[SNIPPET_LENGTH + 4];
    ULONG Index;
    ULONG Length = (ULONG)(LineEnd - LineStart);
    ULONGLONG Offset = (ULONGLONG)(LineStart - (PCSZ)Import->Buffer);

    if (LineEnd - LineStart > SNIPPET_LENGTH) {
        Length = SNIPPET_LENGTH;
    }

    //
    // Quote the start of the line with anything unprintable replaced, so
    // that garbage input cannot garble the terminal.
    //

    for (Index = 0; Index < Length; Index++) {
        CHAR Char = LineStart[Index];
        Snippet[Index] = (Char >= 0x20 && Char < 0x7f) ? Char : '?';
    }
    if (LineEnd - LineStart > SNIPPET_LENGTH) {
        Snippet[Index++] = '.';
        Snippet[Index++] = '.';
        Snippet[Index++] = '.';
    }
    Snippet[Index] = '\0';

    return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines, Offset,
                       "%s:%llu: %s (byte offset %llu): \"%s\"",
                       Import->Path, Import->Lines, Reason, Offset, Snippet);
}

RTL_STATUS
TraceImportForEachLine(
    PTRACE_IMPORT Import,
    PTRACE_IMPORT_LINE Line,
    PVOID Context
    )
/*++

Routine Description:

    Walks the lines of a mapped text input in order, in constant memory.

Arguments:

    Import - Supplies the import context (Buffer, Length; Lines counts).

    Line - Supplies the routine called for each line.

    Context - Supplies the reader's state, passed to Line.

Return Value:

    RTL_STATUS_OK, or the first error (from the limits here or from Line).

--*/
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End = Cursor + Import->Length;
    RTL_STATUS Status;

    while (Cursor < End) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        Import->Lines++;

        if (LineEnd - Cursor > TRACE_MAX_LINE_LENGTH) {
            return TraceImportLineError(Import, RTL_STATUS_TOO_LARGE, Cursor,
                                        LineEnd, "line longer than 65536 "
                                        "bytes");
        }

        if (LineEnd == End) {

            //
            // The last line has no newline: the input was cut off (a copy
            // interrupted, a capture still being written).
            //

            if (TextSkipSpaces(Cursor, End) != End) {
                return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT,
                                            Cursor, LineEnd,
                                            "truncated line (no newline at "
                                            "the end of the file)");
            }
            break;
        }

        if (TextFindChar(Cursor, LineEnd, '\0') != LineEnd) {
            return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Cursor,
                                        LineEnd, "NUL byte in line");
        }

        Status = Line(Import, Context, Cursor, LineEnd);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}
