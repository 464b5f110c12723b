/*++

Module Name:

    TraceString.c

Abstract:

    This module implements the string store: interning text once (keyed by
    XXH3-64, a hash hit always confirmed by comparing the bytes) into the
    `string_data` byte store, with one TRACE_STRING_RECORD per string in the
    `string` store, whose record index is the string id.

    Commit order: string_data, then string, so that an id a reader can see
    always points at committed bytes.  Readers snapshot in the opposite
    order (string, then string_data) for the same reason.

Environment:

    Core: no C runtime; the OS only through PRTL (hashing, copies).
    Called by sessions, the import context, the readers and the extension
    (lookups); calls the store API on its two stores and TraceHash.c.

--*/

#include "TraceStore.h"

static
ULONGLONG
VisibleCount(
    PTRACE_STORE Store
    )
{
    return Store->Writable ? Store->ReservedCount :
                             Store->Snapshot.RecordCount;
}

static
RTL_STATUS
Resolve(
    PTRACE_STRING_TABLE Strings,
    ULONG Id,
    PCSZ *Text,
    PULONG Length
    )
{
    TRACE_STRING_RECORD Record;
    ULONGLONG DataCount = VisibleCount(&Strings->Data);

    if ((ULONGLONG)Id >= VisibleCount(&Strings->Index)) {
        return RTL_STATUS_CORRUPT;
    }

    __builtin_memcpy(&Record,
                     Strings->Index.Base + (ULONGLONG)Id * sizeof(Record),
                     sizeof(Record));

    if (Record.Length > TRACE_STRING_MAX_LENGTH ||
        Record.Offset > DataCount ||
        DataCount - Record.Offset < (ULONGLONG)Record.Length + 1) {
        return RTL_STATUS_CORRUPT;
    }

    *Text = (PCSZ)(Strings->Data.Base + Record.Offset);
    *Length = Record.Length;

    //
    // The terminator is part of the committed bytes; a missing one means
    // the data was altered.
    //

    if ((*Text)[Record.Length] != '\0') {
        return RTL_STATUS_CORRUPT;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStringRefresh(
    PTRACE_STRING_TABLE Strings,
    PRTL_ERROR Error
    )
{
    RTL_STATUS Status;
    TRACE_STORE_SNAPSHOT Snapshot;

    if (Strings->Writable || Strings->Index.Header == NULL ||
        Strings->Data.Header == NULL) {
        return RTL_STATUS_OK;
    }

    //
    // The index first: every string it holds has its bytes committed in
    // string_data before it.
    //

    Status = TraceStoreTakeSnapshot(&Strings->Index, &Snapshot, Error);
    if (RTL_SUCCESS(Status)) {
        Status = TraceStoreTakeSnapshot(&Strings->Data, &Snapshot, Error);
    }

    return Status;
}

RTL_STATUS
TraceStringLookup(
    PTRACE_STRING_TABLE Strings,
    ULONG Id,
    PCSZ *Text,
    PULONG Length
    )
{
    RTL_STATUS Status;
    RTL_ERROR Error;

    if (!Strings->Writable &&
        (ULONGLONG)Id >= Strings->Index.Snapshot.RecordCount) {

        //
        // A record committed after our last look refers to a newer string.
        //

        Status = TraceStringRefresh(Strings, &Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return Resolve(Strings, Id, Text, Length);
}

static
RTL_STATUS
AppendString(
    PTRACE_STRING_TABLE Strings,
    PCSZ Text,
    ULONG Length,
    ULONGLONG Hash,
    PULONGLONG Index
    )
/*++

Routine Description:

    Adds the bytes and the string record of a new string (not the intern
    table entry).  On failure nothing is added.

--*/
{
    RTL_STATUS Status;
    ULONGLONG Offset;
    TRACE_STRING_RECORD Record;
    PBYTE Bytes;

    if (Length > TRACE_STRING_MAX_LENGTH) {
        return RTL_STATUS_TOO_LARGE;
    }

    if (Strings->Index.ReservedCount >= TRACE_STRING_NULL) {
        return RTL_STATUS_TOO_LARGE;
    }

    Status = TraceStoreReserve(&Strings->Data, Length + 1, &Offset);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Bytes = Strings->Data.Base + Offset;
    Strings->Rtl->CopyMemory(Bytes, Text, Length);
    Bytes[Length] = '\0';

    Record.Offset = Offset;
    Record.Length = Length;
    Record.Hash = (ULONG)Hash;

    Status = TraceStoreAppend(&Strings->Index, &Record, Index);
    if (!RTL_SUCCESS(Status)) {
        Strings->Data.ReservedCount = Offset;
        return Status;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStringIntern(
    PTRACE_STRING_TABLE Strings,
    PCSZ Text,
    ULONG Length,
    PULONG Id
    )
/*++

Routine Description:

    Returns the id of Text, adding it to the string store if it is new.

Arguments:

    Strings - Supplies the writer's string table.

    Text - Supplies the bytes (need not be NUL-terminated).

    Length - Supplies the number of bytes.

    Id - Receives the string id.

Return Value:

    RTL_STATUS_OK; RTL_STATUS_TOO_LARGE for text over 1 MB; or the error
    from growing a store (nothing is added then).

--*/
{
    PRTL Rtl = Strings->Rtl;
    RTL_STATUS Status;
    ULONGLONG Hash;
    ULONGLONG Cursor = 0;
    ULONGLONG Candidate;
    ULONGLONG Index;

    if (Length > TRACE_STRING_MAX_LENGTH) {
        return RTL_STATUS_TOO_LARGE;
    }

    Hash = Rtl->Hash64(Text, Length);

    while (TraceHashFind(&Strings->Table, Hash, &Cursor, &Candidate)) {
        PCSZ Existing;
        ULONG ExistingLength;

        if (!RTL_SUCCESS(Resolve(Strings, (ULONG)Candidate, &Existing,
                                 &ExistingLength))) {
            continue;
        }
        if (ExistingLength == Length &&
            Rtl->CompareMemory(Existing, Text, Length) == 0) {
            *Id = (ULONG)Candidate;
            return RTL_STATUS_OK;
        }
    }

    Status = AppendString(Strings, Text, Length, Hash, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Strings->Table.Count < TRACE_STRING_INTERN_LIMIT) {
        Status = TraceHashInsert(&Strings->Table, Hash, Index);
        if (!RTL_SUCCESS(Status)) {
            Strings->Index.ReservedCount = Index;
            Strings->Data.ReservedCount -= Length + 1;
            return Status;
        }
    }

    *Id = (ULONG)Index;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStringAppend(
    PTRACE_STRING_TABLE Strings,
    PCSZ Text,
    ULONG Length,
    ULONGLONG Hash,
    PULONG Id
    )
/*++

Routine Description:

    Adds Text as a new string without entering it in the intern table.
    For text that is nearly always different (a field value per event),
    whose table entries would make the writer's memory grow with the
    input.  The same text may then have several ids.

Arguments:

    Hash - Supplies Rtl->Hash64 of the bytes (the caller has it).

--*/
{
    RTL_STATUS Status;
    ULONGLONG Index;

    Status = AppendString(Strings, Text, Length, Hash, &Index);
    if (RTL_SUCCESS(Status)) {
        *Id = (ULONG)Index;
    }

    return Status;
}

RTL_STATUS
TraceStringReserveText(
    PTRACE_STRING_TABLE Strings,
    ULONG MaxLength,
    PCHAR *Text
    )
/*++

Routine Description:

    Reserves MaxLength bytes at the end of `string_data` for a string the
    caller writes in place (see TraceStringAppendReserved).

Return Value:

    RTL_STATUS_OK; RTL_STATUS_TOO_LARGE past the string limits; or the
    error from growing the store (nothing is reserved then).

--*/
{
    RTL_STATUS Status;
    ULONGLONG Offset;

    if (MaxLength == 0 || MaxLength - 1 > TRACE_STRING_MAX_LENGTH ||
        Strings->Index.ReservedCount >= TRACE_STRING_NULL) {
        return RTL_STATUS_TOO_LARGE;
    }

    Status = TraceStoreReserve(&Strings->Data, MaxLength, &Offset);
    if (RTL_SUCCESS(Status)) {
        *Text = (PCHAR)(Strings->Data.Base + Offset);
    }

    return Status;
}

RTL_STATUS
TraceStringAppendReserved(
    PTRACE_STRING_TABLE Strings,
    PCHAR Text,
    ULONG Length,
    ULONGLONG Hash,
    PULONG Id
    )
/*++

Routine Description:

    Adds the Length bytes at Text (from TraceStringReserveText, Length
    below its MaxLength) as a new string, not interned, as
    TraceStringAppend does; the rest of the reservation is given back.
    On failure the whole reservation is given back.

--*/
{
    RTL_STATUS Status;
    ULONGLONG Offset = (ULONGLONG)((PBYTE)Text - Strings->Data.Base);
    ULONGLONG Index;
    TRACE_STRING_RECORD Record;

    Text[Length] = '\0';
    Strings->Data.ReservedCount = Offset + Length + 1;

    Record.Offset = Offset;
    Record.Length = Length;
    Record.Hash = (ULONG)Hash;

    Status = TraceStoreAppendInline(&Strings->Index, &Record, sizeof(Record),
                                    &Index);
    if (!RTL_SUCCESS(Status)) {
        Strings->Data.ReservedCount = Offset;
        return Status;
    }

    *Id = (ULONG)Index;
    return RTL_STATUS_OK;
}

VOID
TraceStringCancelReserved(
    PTRACE_STRING_TABLE Strings,
    PCHAR Text
    )
{
    Strings->Data.ReservedCount = (ULONGLONG)((PBYTE)Text -
                                              Strings->Data.Base);
}

RTL_STATUS
TraceStringCommit(
    PTRACE_STRING_TABLE Strings
    )
{
    RTL_STATUS Status;

    Status = TraceStoreCommit(&Strings->Data, TRACE_COMMIT_ALL);
    if (RTL_SUCCESS(Status)) {
        Status = TraceStoreCommit(&Strings->Index, TRACE_COMMIT_ALL);
    }

    return Status;
}
