/*++

Module Name:

    ChromeJson.c

Abstract:

    This module decodes Chrome trace-event JSON (the Trace Event Format of
    chrome://tracing and Perfetto; `uftrace dump --chrome` writes it): the
    object form {"traceEvents": [...], other keys} and the bare array form
    [...], which may be cut off after any complete event (Chrome's viewer
    accepts such a file, since tracers write the array as they go; the
    object form must be complete).

    Events, by phase ("ph"):

        B, E        a span begins / the innermost open span of the thread
                    ends (span store, through the shared span builder)
        X           a span with its duration ("dur")
        i, I, R     an instant: a span of dur 0 flagged instant; thread
                    scope ("s":"t", the default) nests it in what is open,
                    "g" and "p" put it at depth 0
        C           counters: each member of "args" is one sample in the
                    counter store, named as Perfetto names them:
                    "NAME KEY", or "NAME id: ID KEY" when the event has an
                    "id"
        M           process_name / thread_name: names for the process and
                    thread rows (other metadata is ignored)
        others      (async, flow, object events) kept in ftrace_event, with
                    the whole event's JSON as args, so that nothing read is
                    dropped

    "ts" and "dur" are microseconds, possibly fractional; they become
    nanoseconds exactly (the decimal digits are shifted, never rounded
    through a double).  "displayTimeUnit" does not change them (it is a
    display hint, and Perfetto ignores it too).  A missing "tid" is the
    "pid" (as in Perfetto); a missing "pid" is NULL.

    The input is read twice through the streaming tokenizer (Json.h), in
    constant memory: a first pass finds, per thread, the ends without a
    begin (a recording that started inside calls) so that the span builder
    can open those spans first, at the trace's first ts, and nest the
    thread's earlier spans inside them; the second pass imports.  Nesting
    follows the file's order: events of one thread are expected in begin
    order, as uftrace and most tracers write them.

    The syntax of the input is ChromeJsonParse.c's, the counters
    ChromeJsonCounters.c's; this module holds the two passes and what each
    event becomes.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called through the
    format table (TraceFormats.c: ChromeJsonDetect, ChromeJsonImport);
    calls ChromeJsonParse.c, ChromeJsonCounters.c, Json.h and
    TraceImport.h's span builder and stores.

--*/

#include "ChromeJsonReader.h"
#include "Readers/Decoders/Decoders.h"

static
ULONGLONG
ThreadKey(
    ULONG Pid,
    ULONG Tid
    )
{
    return (((ULONGLONG)Pid << 32) | Tid) ^ 0x8000000000000000ULL;
}

//
// ---------------------------------------------------------------------------
// Strings and context
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
InternText(
    PCHROME_READER Reader,
    PCSZ Start,
    PCSZ End,
    PULONG Id
    )
/*++

Routine Description:

    Interns text of the input (a name, the JSON of args or of a whole
    event), with an error naming its offset when it exceeds what the
    string store holds.

--*/
{
    if ((SIZE_T)(End - Start) > TRACE_STRING_MAX_LENGTH) {
        return ChromeError(Reader, RTL_STATUS_TOO_LARGE, Start,
                           "string longer than the 1 MB a string may hold");
    }
    return TraceImportIntern(Reader->Import, Start, (ULONG)(End - Start), Id);
}

static
RTL_STATUS
InternString(
    PCHROME_READER Reader,
    PJSON_STRING String,
    PULONG Id
    )
{
    ULONG Length;

    if (!String->Escaped) {
        return InternText(Reader, String->Start, String->End, Id);
    }

    Length = JsonDecodeString(String, Reader->Buffer, CHROME_BUFFER_SIZE);
    if (Length == ~0u) {
        return ChromeError(Reader, RTL_STATUS_TOO_LARGE, String->Start - 1,
                           "escaped string longer than 65536 bytes");
    }
    return TraceImportIntern(Reader->Import, Reader->Buffer, Length, Id);
}

static
RTL_STATUS
InternSpanStrings(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PULONG NameId,
    PULONG CategoryId,
    PULONG ArgsId
    )
{
    RTL_STATUS Status = RTL_STATUS_OK;

    *NameId = TRACE_NULL_ULONG;
    *CategoryId = TRACE_NULL_ULONG;
    *ArgsId = TRACE_NULL_ULONG;

    if (Event->Fields & FIELD_NAME) {
        Status = InternString(Reader, &Event->Name, NameId);
    }
    if (RTL_SUCCESS(Status) && (Event->Fields & FIELD_CAT)) {
        Status = InternString(Reader, &Event->Category, CategoryId);
    }
    if (RTL_SUCCESS(Status) && (Event->Fields & FIELD_ARGS)) {

        //
        // Arguments are kept as the JSON text the producer wrote.
        //

        Status = InternText(Reader, Event->ArgsStart, Event->ArgsEnd, ArgsId);
    }

    return Status;
}

static
VOID
FillContext(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    ULONGLONG Key;

    //
    // The import's clock alignment (a TSC-clocked trace converts its
    // durations too: an X span ends where its aligned end is).
    //

    Context->Timestamp = TraceImportAlignTs(Reader->Import, Event->Ts);
    if (Reader->Import->Align.Convert && (Event->Fields & FIELD_DUR)) {
        Event->Dur = TraceImportAlignTs(Reader->Import, Event->Ts + Event->Dur)
                     - Context->Timestamp;
    }
    Context->Pid = (Event->Fields & FIELD_PID) ? Event->Pid : TRACE_NULL_ULONG;
    Context->Tid = (Event->Fields & FIELD_TID) ? Event->Tid :
                   (Event->Fields & FIELD_PID) ? Event->Pid : 0;
    Context->Cpu = TRACE_NULL_ULONG;
    Context->CommId = TRACE_NULL_ULONG;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;

    Key = ThreadKey(Context->Pid, Context->Tid);
    if (!Reader->Scanning && Key != 0 && Reader->ThreadNames.Count != 0 &&
        TraceHashFind(&Reader->ThreadNames, Key, &Cursor, &Value)) {
        Context->CommId = (ULONG)Value;
    }
}

//
// ---------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------
//

static
BOOL
MetadataName(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PJSON_STRING Name
    )
/*++

Routine Description:

    The "name" member of a metadata event's "args", if it is a string.

--*/
{
    PCSZ Cursor = Event->ArgsStart;
    BOOL First = TRUE;
    JSON_STRING Key;
    JSON_ERROR Error;

    if (!(Event->Fields & FIELD_ARGS) || *Cursor != '{') {
        return FALSE;
    }

    Cursor++;
    while (JsonObjectNext(&Cursor, Event->ArgsEnd, &First, &Key, &Error) ==
           JsonStepItem) {
        if (JsonStringIs(&Key, "name", 4) && *Cursor == '"') {
            return JsonScanString(Cursor, Event->ArgsEnd, Name, &Error) !=
                   NULL;
        }
        Cursor = JsonSkipValue(Cursor, Event->ArgsEnd, &Error);
        if (Cursor == NULL) {
            break;
        }
    }

    return FALSE;
}

static
BOOL
IsNamingMetadata(
    PCHROME_EVENT Event,
    PBOOL Process
    )
{
    if (!(Event->Fields & FIELD_NAME)) {
        return FALSE;
    }
    *Process = JsonStringIs(&Event->Name, "process_name", 12);
    return *Process || JsonStringIs(&Event->Name, "thread_name", 11);
}

static
RTL_STATUS
NoteMetadata(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An "M" event seen by the scan.  process_name and thread_name name the
    process and thread rows of the whole input, wherever they are written
    (the last one of a process or thread wins, as in Perfetto).  Other
    metadata is imported as it comes (ChromeImportEvent).

--*/
{
    BOOL Process;
    JSON_STRING Name;
    RTL_STATUS Status;
    ULONG NameId;
    ULONGLONG Key;

    if (!IsNamingMetadata(Event, &Process) ||
        !MetadataName(Reader, Event, &Name)) {
        return RTL_STATUS_OK;
    }

    if (Process) {
        if (Context->Pid == TRACE_NULL_ULONG) {
            return RTL_STATUS_OK;
        }
        Key = (ULONGLONG)Context->Pid + 1;
    } else {
        Key = ThreadKey(Context->Pid, Context->Tid);
        if (Key == 0) {
            return RTL_STATUS_OK;
        }
    }

    Status = InternString(Reader, &Name, &NameId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashSet(Process ? &Reader->Import->ProcessNames :
                                        &Reader->ThreadNames, Key, NameId);
        if (!RTL_SUCCESS(Status)) {
            Status = ChromeError(Reader, Status, Event->Start,
                                 "out of memory for names");
        }
    }

    return Status;
}

static
BOOL
MetadataConsumed(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Whether an "M" event is one NoteMetadata took as a name (it is not
    imported again); other metadata goes to ftrace_event.

--*/
{
    BOOL Process;
    JSON_STRING Name;

    return IsNamingMetadata(Event, &Process) &&
           MetadataName(Reader, Event, &Name) &&
           (Process ? Context->Pid != TRACE_NULL_ULONG :
                      ThreadKey(Context->Pid, Context->Tid) != 0);
}

//
// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------
//

static
BOOL
SpanKind(
    PCHROME_EVENT Event,
    PULONG Kind
    )
/*++

Routine Description:

    The span builder's kind of a B, E, X or instant event.

--*/
{
    if (!Event->PhaseIsOneChar) {
        return FALSE;
    }

    switch (Event->Phase) {
    case 'B':
        *Kind = TraceSpanBegin;
        return TRUE;
    case 'E':
        *Kind = TraceSpanEnd;
        return TRUE;
    case 'X':
        *Kind = TraceSpanComplete;
        return TRUE;
    case 'i':
    case 'I':
    case 'R':
        *Kind = TraceSpanInstant;
        if ((Event->Fields & FIELD_SCOPE) &&
            (JsonStringIs(&Event->Scope, "g", 1) ||
             JsonStringIs(&Event->Scope, "p", 1))) {
            *Kind = TraceSpanInstantGlobal;
        }
        return TRUE;
    }

    return FALSE;
}

static
RTL_STATUS
CheckEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PBOOL Skip
    )
/*++

Routine Description:

    What both passes require of an event: B, E, X, C and instants have a
    "ts", and X a "dur" of zero or more.  *Skip is TRUE for an event to
    leave out: {} (writers end the array with one so that every event can
    be followed by a comma), one without "ph" (counted as dropped), one of
    another phase without "ts" (dropped).  Metadata needs no ts.

--*/
{
    CHAR Phase = Event->PhaseIsOneChar ? Event->Phase : 0;

    *Skip = FALSE;

    if (!(Event->Fields & FIELD_PH)) {
        *Skip = TRUE;
        if (Event->Members != 0 && !Reader->Scanning) {
            Reader->Import->LostEvents++;
        }
        return RTL_STATUS_OK;
    }

    if (Phase == 'M') {
        return RTL_STATUS_OK;
    }

    if (!(Event->Fields & FIELD_TS)) {
        if (Phase == 'B' || Phase == 'E' || Phase == 'X' || Phase == 'C' ||
            Phase == 'i' || Phase == 'I' || Phase == 'R') {
            return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                               "event without \"ts\"");
        }
        *Skip = TRUE;
        if (!Reader->Scanning) {
            Reader->Import->LostEvents++;
        }
        return RTL_STATUS_OK;
    }

    if (Phase == 'X' && (!(Event->Fields & FIELD_DUR) || Event->Dur < 0)) {
        return ChromeError(Reader, RTL_STATUS_BAD_FORMAT, Event->Start,
                           "complete event (X) without a \"dur\" of zero or "
                           "more");
    }

    return RTL_STATUS_OK;
}

static
VOID
FillSpanEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context,
    ULONG Kind,
    PTRACE_SPAN_EVENT Span
    )
{
    Span->Timestamp = Context->Timestamp;
    Span->Duration = (Kind == TraceSpanComplete) ? Event->Dur : 0;
    Span->Sequence = (ULONGLONG)(Event->Start - Reader->Start);
    Span->Pid = Context->Pid;
    Span->Tid = Context->Tid;
    Span->CommId = Context->CommId;
    Span->NameId = TRACE_NULL_ULONG;
    Span->CategoryId = TRACE_NULL_ULONG;
    Span->ArgsId = TRACE_NULL_ULONG;
    Span->Kind = Kind;
    Span->Padding = 0;
}

static
RTL_STATUS
ImportOther(
    PCHROME_READER Reader,
    PCHROME_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An event kept whole in ftrace_event, with its JSON as args: async,
    flow, object and sample events, and metadata other than names.

--*/
{
    RTL_STATUS Status = RTL_STATUS_OK;
    ULONG NameId = TRACE_NULL_ULONG;
    ULONG ArgsId;

    if (Event->Fields & FIELD_NAME) {
        Status = InternString(Reader, &Event->Name, &NameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternText(Reader, Event->Start, Event->End, &ArgsId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportGenericEvent(Reader->Import, Context, NameId,
                                         ArgsId, TRACE_STRING_NULL);
    }
    return Status;
}

static
RTL_STATUS
ChromeImportEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    TRACE_SPAN_EVENT Span;
    RTL_STATUS Status;
    ULONG Kind;
    BOOL Skip;

    Status = CheckEvent(Reader, Event, &Skip);
    if (!RTL_SUCCESS(Status) || Skip) {
        return Status;
    }

    FillContext(Reader, Event, &Context);

    if (Event->PhaseIsOneChar && Event->Phase == 'M') {
        if (MetadataConsumed(Reader, Event, &Context)) {
            return RTL_STATUS_OK;
        }

        //
        // Metadata is not an event in time: it is placed at the trace's
        // first ts (its own "ts" is often 0 or absent).
        //

        if (Import->Spans.ScanFirstTs != 0x7fffffffffffffffLL) {
            Context.Timestamp = Import->Spans.ScanFirstTs;
        } else if (!(Event->Fields & FIELD_TS)) {
            Context.Timestamp = 0;
        }
        return ImportOther(Reader, Event, &Context);
    }

    if (Event->PhaseIsOneChar && Event->Phase == 'C') {
        return ChromeImportCounters(Reader, Event, &Context);
    }

    if (!SpanKind(Event, &Kind)) {
        return ImportOther(Reader, Event, &Context);
    }

    FillSpanEvent(Reader, Event, &Context, Kind, &Span);
    Status = InternSpanStrings(Reader, Event, &Span.NameId, &Span.CategoryId,
                               &Span.ArgsId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanEvent(Import, &Span);
    }

    return Status;
}

static
RTL_STATUS
ChromeScanEvent(
    PCHROME_READER Reader,
    PCHROME_EVENT Event
    )
/*++

Routine Description:

    The first pass: names from metadata, begins and ends per thread, the
    order of span events, and the time span.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    TRACE_SPAN_EVENT Span;
    RTL_STATUS Status;
    BOOL Unmatched;
    BOOL Skip;
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    ULONG Kind;

    //
    // Stop where the import will stop, so that the scan finds no end the
    // import does not reach.
    //

    Status = CheckEvent(Reader, Event, &Skip);
    if (!RTL_SUCCESS(Status) || Skip) {
        return Status;
    }

    FillContext(Reader, Event, &Context);

    if (Event->Phase == 'M' && Event->PhaseIsOneChar) {
        return NoteMetadata(Reader, Event, &Context);
    }

    TraceImportSpanScanTime(Import, Context.Timestamp);
    if (!SpanKind(Event, &Kind)) {
        return RTL_STATUS_OK;
    }

    FillSpanEvent(Reader, Event, &Context, Kind, &Span);
    TraceImportSpanScanOrder(Import, &Span);

    if (Kind == TraceSpanBegin) {
        return TraceImportSpanScanBegin(Import, &Context);
    }

    if (Kind == TraceSpanEnd) {
        Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
        if (RTL_SUCCESS(Status) && Unmatched) {
            Status = InternSpanStrings(Reader, Event, &NameId, &CategoryId,
                                       &ArgsId);
            if (RTL_SUCCESS(Status)) {
                TraceImportSpanScanUnmatched(Import, NameId, CategoryId,
                                             ArgsId);
            }
        }
        return Status;
    }

    if (Kind == TraceSpanComplete) {
        TraceImportSpanScanTime(Import, Context.Timestamp + Event->Dur);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ChromePass(
    PCHROME_READER Reader,
    BOOL Scanning
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    CHROME_EVENT Event;
    RTL_STATUS Status;
    PCSZ At = NULL;

    Reader->Scanning = Scanning;
    Status = ChromeStart(Reader);

    while (RTL_SUCCESS(Status)) {
        Status = ChromeNextEvent(Reader, &At);
        if (!RTL_SUCCESS(Status) || At == NULL) {
            break;
        }

        Status = ChromeParseEvent(Reader, At, &Event);
        if (!RTL_SUCCESS(Status)) {
            break;
        }
        Reader->Cursor = Event.End;

        if (Scanning) {
            Status = ChromeScanEvent(Reader, &Event);

            //
            // Keep the resident set small during the scan too: what lies
            // well behind is dropped (and read again by the import).
            //

            if ((SIZE_T)(Event.End - Reader->Start) >=
                Reader->ScanDiscarded + 2 * TRACE_DISCARD_BEHIND) {
                SIZE_T Upto = (SIZE_T)(Event.End - Reader->Start) -
                              TRACE_DISCARD_BEHIND;

                Import->Rtl->DiscardMemory(Import->Rtl,
                                           Reader->Start +
                                               Reader->ScanDiscarded,
                                           Upto - Reader->ScanDiscarded);
                Reader->ScanDiscarded = Upto;
            }
        } else {
            Status = ChromeImportEvent(Reader, &Event);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportEventDone(Import,
                                              (SIZE_T)(Event.End -
                                                       Reader->Start));
            }
        }
    }

    return Status;
}

BOOL
ChromeJsonDetect(
    PTRACE_IMPORT Import
    )
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End;

    if (Import->IsDirectory || Cursor == NULL) {
        return FALSE;
    }
    End = Cursor + (Import->Length < 65536 ? Import->Length : 65536);

    if (End - Cursor >= 3 && (BYTE)Cursor[0] == 0xEF &&
        (BYTE)Cursor[1] == 0xBB && (BYTE)Cursor[2] == 0xBF) {
        Cursor += 3;
    }
    Cursor = JsonSkipSpace(Cursor, End);
    if (Cursor >= End) {
        return FALSE;
    }

    if (*Cursor == '{') {
        return TextFindString(Cursor, End, "\"traceEvents\"", 13) != NULL;
    }

    if (*Cursor == '[') {
        Cursor = JsonSkipSpace(Cursor + 1, End);
        if (Cursor < End && *Cursor == ']') {
            return TRUE;
        }
        if (Cursor < End && *Cursor == '{') {
            PCSZ Limit = (End - Cursor > 4096) ? Cursor + 4096 : End;
            PCSZ Close = TextFindChar(Cursor, Limit, '}');

            return TextFindString(Cursor, Close, "\"ph\"", 4) != NULL;
        }
    }

    return FALSE;
}

RTL_STATUS
ChromeJsonImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports Chrome trace-event JSON: a scan for ends without begins, then
    the import (a TRACE_FORMAT_IMPORT: TraceImport.h says what every one
    does).

--*/
{
    PRTL Rtl = Import->Rtl;
    CHROME_READER Reader;
    RTL_STATUS Status;
    PVOID Buffer;

    Rtl->FillMemory(&Reader, sizeof(Reader), 0);
    Reader.Import = Import;
    Reader.Start = (PCSZ)Import->Buffer;
    Reader.End = Reader.Start + Import->Length;

    Status = Rtl->AllocatePages(Rtl, CHROME_BUFFER_SIZE, &Buffer);
    if (RTL_SUCCESS(Status)) {
        Reader.Buffer = (PCHAR)Buffer;
        Status = TraceHashInitialize(Rtl, &Reader.ThreadNames);
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    //
    // The scan stops at the first error without reporting it: the import
    // pass meets the same error at the same event and reports it, after
    // importing everything before it.
    //

    ChromePass(&Reader, TRUE);
    Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);

    Status = TraceImportSpanScanDone(Import);
    if (RTL_SUCCESS(Status)) {
        Status = ChromePass(&Reader, FALSE);
    }

End:
    if (Reader.Buffer != NULL) {
        Rtl->Unmap(Rtl, Reader.Buffer, CHROME_BUFFER_SIZE);
    }
    TraceHashDestroy(&Reader.ThreadNames);

    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT ChromeJsonDecoder = {
    "chrome-json",
    "Chrome trace-event JSON (object or bare array form)",
    TRACE_FORMAT_TSC_CLOCK,
    ChromeJsonDetect,
    ChromeJsonImport
};
