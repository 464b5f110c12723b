/*++

Module Name:

    TraceImport.c

Abstract:

    This module implements the import context shared by every reader (see
    TraceImport.h) at its lowest level: beginning an import (the stores
    and tables every import has), mapping the input, interning strings
    (with a cache of recent ones), opening a store on first use, the error
    text of a store that refused an append, the session's clock, and the
    line loop and error text of the text readers.  The records themselves
    are built above it by ImportSinks.c (tasks, faults, KVM pairs,
    switches, counters, modules) and SpanBuilder.c (spans); committing and
    ending an import is ImportRun.c.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by the readers,
    the sinks, the span builder and ImportRun.c; calls only the store API
    (TraceStore/) and TextParse.c, so that the arrows among the import's
    files run one way: ImportRun.c -> SpanReorder.c -> SpanBuilder.c ->
    ImportSinks.c -> TraceImport.c.  TraceImport.h, which defines the
    context all of them use, goes with this file, so this file is the
    bottom.

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
    Rtl->FillMemory(Import->RecentThreads, sizeof(Import->RecentThreads), 0);
    Rtl->FillMemory(Import->TaskColumnsKnown,
                    sizeof(Import->TaskColumnsKnown), 0);
    Rtl->FillMemory(Import->TextEventTypes, sizeof(Import->TextEventTypes),
                    0);
    Rtl->FillMemory(Import->TextFormatNames, sizeof(Import->TextFormatNames),
                    0);
    Import->FirstTs = 0x7fffffffffffffffLL;
    Import->LastTs = (LONGLONG)0x8000000000000000ULL;
    Import->LastPid = TRACE_NULL_ULONG;
    Import->Spans.ScanFirstTs = Import->FirstTs;
    Import->Spans.ScanLastTs = Import->LastTs;
    if (Import->CommitEvery == 0) {
        Import->CommitEvery = DEFAULT_COMMIT_EVERY;
    }

    for (Index = 0; Index < TraceRecordKindMaximum; Index++) {
        if (!(TraceRecordTypes[Index].Flags & TRACE_RECORD_OPEN_AT_BEGIN)) {
            continue;
        }
        Status = TraceSessionOpenStore(Session,
                                       TraceRecordTypes[Index].Schema,
                                       &Import->Stores[Index], Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
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
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Import->PendingFaults);
    }
    for (Index = 0; Index < TraceFaultKindMaximum; Index++) {
        Import->FaultKindIds[Index] = TRACE_NULL_ULONG;
    }
    Import->LastFaultCountTs = 0;
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Import->Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportStoreError(
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
    TRACE_RECORD_KIND Kind,
    PTRACE_STORE *Store
    )
{
    PTRACE_STORE *Slot = &Import->Stores[Kind];
    RTL_STATUS Status = RTL_STATUS_OK;

    if (*Slot == NULL) {
        Status = TraceSessionOpenStore(Import->Session,
                                       TraceRecordTypes[Kind].Schema, Slot,
                                       &Import->Error);
        if (RTL_SUCCESS(Status)) {
            (*Slot)->DiscardBehind = TRUE;
        }
    }
    if (Store != NULL) {
        *Store = *Slot;
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
TraceImportByteError(
    PTRACE_IMPORT Import,
    ULONGLONG Offset,
    PCSZ Format,
    ...
    )
{
    PRTL_ERROR Error = &Import->Error;
    SIZE_T Length;
    va_list Args;

    RtlSetError(Error, RTL_STATUS_BAD_FORMAT, 0, Offset,
                "%s: byte offset %llu: ", Import->Path, Offset);
    Length = RtlStringLength(Error->Message);
    va_start(Args, Format);
    RtlFormatV(Error->Message + Length, sizeof(Error->Message) - Length,
               Format, Args);
    va_end(Args);

    return RTL_STATUS_BAD_FORMAT;
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
