/*++

Module Name:

    ImportSinks.c

Abstract:

    This module turns decoded events into records of the dedicated stores
    (see TraceImport.h, "Event sinks"): thread and process rows for the
    tasks events name, page faults, KVM exit/entry pairs, context switches,
    generic events, counter samples and memory mappings, and any other
    record type's records (TraceImportAppendEvent).

    KVM pairing.  A kvm_exit record is reserved (in time order) when the
    exit is read, with a NULL dur, and its index is remembered per task.
    The entry that follows on that task fills in dur.  Commits of the
    kvm_exit store stop short of the oldest exit still waiting for its
    entry (Store->CommitLimit), so readers never see a record change; at the
    end of the input, exits without an entry are committed with dur NULL.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by the readers,
    EventText.c, SpanBuilder.c (the tasks of spans) and ImportRun.c (the
    kvm_exit commit limit); calls TraceImport.c (interning, opening
    stores) and the store API through ImportInternal.h.

--*/

#include "TraceImport.h"
#include "ImportInternal.h"

RTL_STATUS
TraceImportNoteTask(
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

        Status = AppendRecord(Import, Import->Stores[TraceRecordThread],
                              &Thread, NULL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Status = TraceHashInsert(&Import->Threads, Key, 1);
        if (!RTL_SUCCESS(Status)) {
            return TraceImportStoreError(Import,
                                         Import->Stores[TraceRecordThread],
                                         Status);
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

    Status = AppendRecord(Import, Import->Stores[TraceRecordProcess],
                          &Process, NULL);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = TraceHashSet(&Import->Processes, (ULONGLONG)Pid + 1, NameId);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportStoreError(Import,
                                     Import->Stores[TraceRecordProcess],
                                     Status);
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
    return TraceImportPageFaultIndexed(Import, Event, Record, NULL);
}

RTL_STATUS
TraceImportPageFaultIndexed(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PPAGE_FAULT_RECORD Record,
    PULONGLONG Index
    )
{
    RTL_STATUS Status;

    Status = TraceImportNoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->CommId = Event->CommId;
    Record->Cpu = Event->Cpu;

    return AppendRecord(Import, Import->Stores[TraceRecordPageFault],
                        Record, Index);
}

VOID
TraceImportSetKvmCommitLimit(
    PTRACE_IMPORT Import
    )
{
    PTRACE_HASH_TABLE Pending = &Import->PendingExits;
    ULONGLONG Limit = TRACE_COMMIT_ALL;
    ULONGLONG Index;

    //
    // An import whose begin failed (a full disk) has no kvm_exit store.
    //

    if (Import->Stores[TraceRecordKvmExit] == NULL) {
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

    Import->Stores[TraceRecordKvmExit]->CommitLimit = Limit;
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

    Status = TraceImportNoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Duration = TRACE_NULL_LONGLONG;
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->Cpu = Event->Cpu;
    Record->CommId = Event->CommId;
    Record->EntryRawId = TRACE_STRING_NULL;

    Status = AppendRecord(Import, Import->Stores[TraceRecordKvmExit], Record,
                          &Index);
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
        return TraceImportStoreError(Import,
                                     Import->Stores[TraceRecordKvmExit],
                                     Status);
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportKvmEntry(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG RawId,
    PBOOL Paired
    )
{
    return TraceImportKvmEntryKeyed(Import, Event, (ULONGLONG)Event->Tid + 1,
                                    RawId, Paired);
}

RTL_STATUS
TraceImportKvmEntryKeyed(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONGLONG Key,
    ULONG RawId,
    PBOOL Paired
    )
{
    PTRACE_HASH_ENTRY Pending;
    ULONGLONG Index;
    PKVM_EXIT_RECORD Record;
    PTRACE_STORE Store = Import->Stores[TraceRecordKvmExit];

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

    Record = (PKVM_EXIT_RECORD)(Store->Base + Index * Store->RecordSize);
    Record->Duration = Event->Timestamp - Record->Timestamp;
    Record->EntryRawId = RawId;
    *Paired = TRUE;

    return TraceImportNoteTask(Import, Event);
}

RTL_STATUS
TraceImportSchedSwitch(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PSCHED_SWITCH_RECORD Record
    )
{
    RTL_STATUS Status;

    Status = TraceImportNoteTask(Import, Event);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Timestamp = Event->Timestamp;
    Record->Cpu = Event->Cpu;

    return AppendRecord(Import, Import->Stores[TraceRecordSchedSwitch],
                        Record, NULL);
}

RTL_STATUS
TraceImportGenericEvent(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG ArgsId,
    ULONG RawId
    )
{
    RTL_STATUS Status;
    FTRACE_EVENT_RECORD Record;

    Status = TraceImportNoteTask(Import, Event);
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
    Record.RawId = RawId;

    return AppendRecord(Import, Import->Stores[TraceRecordFtraceEvent],
                        &Record, NULL);
}

RTL_STATUS
TraceImportCounter(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PCOUNTER_RECORD Record
    )
{
    RTL_STATUS Status;
    PTRACE_STORE Store;

    Status = TraceImportOpenStore(Import, TraceRecordCounter, &Store);
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

    return AppendRecord(Import, Store, Record, NULL);
}

static
VOID
FillTaskColumn(
    PCTRACE_COLUMN_DESCRIPTOR Column,
    ULONGLONG Value,
    PBYTE Record
    )
{
    if (Column == NULL) {
        return;
    }
    if (Column->Width == 8) {
        *(PULONGLONG)(Record + Column->Offset) = Value;
    } else if (Column->Width == 4) {
        *(PULONG)(Record + Column->Offset) = (ULONG)Value;
    }
}

RTL_STATUS
TraceImportAppendEvent(
    PTRACE_IMPORT Import,
    TRACE_RECORD_KIND Kind,
    PTRACE_EVENT_CONTEXT Event,
    PVOID Record
    )
{
    static PCSZ const Names[TRACE_TASK_COLUMNS] = {
        "ts", "tid", "pid", "cpu", "comm"
    };
    PCTRACE_STORE_SCHEMA Schema = TraceRecordTypes[Kind].Schema;
    PCTRACE_COLUMN_DESCRIPTOR *Columns = Import->TaskColumns[Kind];
    PTRACE_STORE Store;
    ULONG Index;
    RTL_STATUS Status;

    Status = TraceImportOpenStore(Import, Kind, &Store);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportNoteTask(Import, Event);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // The type's task columns, found by name once per import.
    //

    if (!Import->TaskColumnsKnown[Kind]) {
        for (Index = 0; Index < TRACE_TASK_COLUMNS; Index++) {
            Columns[Index] = TraceSchemaFindColumn(Schema, Names[Index]);
        }
        Import->TaskColumnsKnown[Kind] = TRUE;
    }
    FillTaskColumn(Columns[0], (ULONGLONG)Event->Timestamp, Record);
    FillTaskColumn(Columns[1], Event->Tid, Record);
    FillTaskColumn(Columns[2], Event->Pid, Record);
    FillTaskColumn(Columns[3], Event->Cpu, Record);
    FillTaskColumn(Columns[4], Event->CommId, Record);

    return AppendSized(Import, Store, Record, Schema->RecordSize, NULL);
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
    return TraceImportAppendRecord(Import, TraceRecordModule, Record, NULL);
}

RTL_STATUS
TraceImportMetadata(
    PTRACE_IMPORT Import,
    PCSZ Name,
    LONGLONG Value,
    PCSZ Text,
    ULONG Length
    )
/*++

Routine Description:

    Appends a `metadata` row.  Its source row is the one TraceImportEnd
    will append: the source store's next index.

--*/
{
    METADATA_RECORD Record;
    RTL_STATUS Status;

    Record.SourceId = Import->Stores[TraceRecordSource]->ReservedCount;
    Record.IntValue = Text == NULL ? Value : TRACE_NULL_LONGLONG;
    Record.StrValueId = TRACE_STRING_NULL;
    Status = TraceImportIntern(Import, Name, (ULONG)RtlStringLength(Name),
                               &Record.NameId);
    if (RTL_SUCCESS(Status) && Text != NULL) {
        Status = TraceImportIntern(Import, Text, Length, &Record.StrValueId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return TraceImportAppendRecord(Import, TraceRecordMetadata, &Record,
                                   NULL);
}

RTL_STATUS
TraceImportEventFormat(
    PTRACE_IMPORT Import,
    PCSZ System,
    PCSZ Name,
    ULONG Id,
    PCSZ Text,
    ULONG Length
    )
/*++

Routine Description:

    Appends an `event_format` row of the source TraceImportEnd will append
    (as TraceImportMetadata does).

--*/
{
    EVENT_FORMAT_RECORD Record;
    RTL_STATUS Status;

    Record.SourceId = Import->Stores[TraceRecordSource]->ReservedCount;
    Record.Id = Id;
    Status = TraceImportIntern(Import, System, (ULONG)RtlStringLength(System),
                               &Record.SystemId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, Name, (ULONG)RtlStringLength(Name),
                                   &Record.NameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, Text, Length, &Record.FormatId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return TraceImportAppendRecord(Import, TraceRecordEventFormat, &Record,
                                   NULL);
}

RTL_STATUS
TraceImportAppendRecord(
    PTRACE_IMPORT Import,
    TRACE_RECORD_KIND Kind,
    PCVOID Record,
    PULONGLONG Index
    )
{
    RTL_STATUS Status;
    PTRACE_STORE Store;

    Status = TraceImportOpenStore(Import, Kind, &Store);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return AppendSized(Import, Store, Record,
                       TraceRecordTypes[Kind].Schema->RecordSize, Index);
}
