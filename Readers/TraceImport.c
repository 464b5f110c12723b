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

--*/

#include "TraceImport.h"

#define DEFAULT_COMMIT_EVERY 4096

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
    Import->FirstTs = 0x7fffffffffffffffLL;
    Import->LastTs = (LONGLONG)0x8000000000000000ULL;
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
                           "bytes: %s", Import->Path, Import->Lines, Length,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
AppendRecord(
    PTRACE_IMPORT Import,
    PTRACE_STORE Store,
    PCVOID Record,
    PULONGLONG Index
    )
{
    RTL_STATUS Status = TraceStoreAppend(Store, Record, Index);

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

    if (Event->Pid != TRACE_NULL_ULONG) {
        Cursor = 0;
        if (!TraceHashFind(&Import->Processes, (ULONGLONG)Event->Pid + 1,
                           &Cursor, &Value)) {
            return TraceImportProcessExec(Import, Event->Timestamp,
                                          Event->Pid, Event->CommId,
                                          TRACE_NULL_ULONG);
        }
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
    // NULL dur; this one replaces it as the pending exit.
    //

    if (TraceHashRemove(&Import->PendingExits, Key)) {
        Import->UnpairedExits++;
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
    ULONGLONG Cursor = 0;
    ULONGLONG Index;
    PKVM_EXIT_RECORD Record;

    *Paired = FALSE;

    if (!TraceHashFind(&Import->PendingExits, Key, &Cursor, &Index)) {
        Import->UnpairedEntries++;
        return RTL_STATUS_OK;
    }

    TraceHashRemove(&Import->PendingExits, Key);

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
RTL_STATUS
Commit(
    PTRACE_IMPORT Import
    )
{
    RTL_STATUS Status;

    SetKvmCommitLimit(Import);

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
TraceImportEnd(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Finishes an import, successful or not: exits still waiting for an
    entry are released with a NULL dur, the `source` row is written, and
    everything is committed.  Import->Error is only overwritten if it held
    no error yet.

--*/
{
    PRTL Rtl = Import->Rtl;
    RTL_STATUS Status;
    RTL_STATUS CommitStatus;
    SOURCE_RECORD Source;
    RTL_ERROR Saved = Import->Error;
    BOOL HadError = (Import->Error.Status != RTL_STATUS_OK);

    Import->UnpairedExits += Import->PendingExits.Count;
    TraceHashDestroy(&Import->PendingExits);
    TraceHashDestroy(&Import->Threads);
    TraceHashDestroy(&Import->Processes);

    if (Import->KvmExit != NULL) {
        Import->KvmExit->CommitLimit = TRACE_COMMIT_ALL;
    }

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
