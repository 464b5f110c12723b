/*++

Module Name:

    EventText.c

Abstract:

    This module turns one event printed as text by the kernel's print
    format -- the same text in tracefs `trace`, `trace-cmd report` and
    `perf script` -- into a record.  The events of the dedicated stores
    (page faults, KVM exits paired with the following entry, context
    switches, process execs: the record types' ftrace maps) are built by
    the shared builder (FtraceRecord.c) from a text field source: a field
    is the value after its key ("address=", "reason "), a string runs to
    the next field's key, and sched_switch may also come in the compact
    "A:1 [120] S ==> B:2 [120]" form libtraceevent's plugin prints.  Every
    other event is a generic row with its fields as printed.  The text
    readers split their lines and call TraceImportTextEvent; none of them
    decodes fields itself.

    An event whose fields do not have the expected shape is kept as a
    generic row rather than dropped.

    When the import has the events' formats (tracestore import --formats),
    each event's record is rebuilt from its text (TraceEventScanText) and
    kept as its row's raw bytes, and the event's format in event_format,
    as the binary path keeps them: what decodes a trace.dat's records
    (perf's scripts, through `tracestore script`) then decodes the text's.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by the text
    readers (Decoders/Ftrace/FtraceText.c, Decoders/Perf/PerfScript.c)
    through TraceImportTextEvent; calls FtraceRecord.c (the record
    builders), the sinks (ImportSinks.c), interning (TraceImport.c) and
    TextParse.c.

--*/

#include "Readers/Import/TraceImport.h"
#include "FtraceRecord.h"
#include "TraceEvent.h"

//
// The text field source: the event's printed fields.  Compact is set when
// sched_switch came in the plugin's compact form, parsed into Spans (by
// map field; a NULL Start: absent).
//

typedef struct _TEXT_FIELDS {
    TRACE_FIELD_SOURCE Source;
    PTRACE_IMPORT Import;
    TEXT_SPAN Args;
    ULONG ArgsId;
    ULONG RawId;            // the record rebuilt from the text, or NULL
    BOOL Compact;
    TEXT_SPAN Spans[TRACE_FTRACE_MAX_FIELDS];
} TEXT_FIELDS, *PTEXT_FIELDS;

static
BOOL
ParseCommPidPrio(
    PCSZ Start,
    PCSZ End,
    PTEXT_SPAN Comm,
    PULONG Pid,
    PLONG Prio,
    PCSZ *After
    )
/*++

Routine Description:

    Parses the compact "COMM:PID [PRIO]" (the comm may hold ':').

--*/
{
    PCSZ Open = TextFindString(Start, End, " [", 2);
    PCSZ Colon;
    PCSZ Close;
    ULONGLONG Value;
    LONGLONG Priority;

    if (Open == NULL) {
        return FALSE;
    }

    Colon = Open;
    while (Colon > Start && Colon[-1] != ':') {
        Colon--;
    }
    if (Colon == Start ||
        TextParseUnsigned(Colon, Open, FALSE, &Value) != Open ||
        Value > 0xfffffffe) {
        return FALSE;
    }

    Close = TextParseSigned(Open + 2, End, &Priority);
    if (Close == NULL || Close >= End || *Close != ']') {
        return FALSE;
    }

    Comm->Start = Start;
    Comm->End = Colon - 1;
    *Pid = (ULONG)Value;
    *Prio = (LONG)Priority;
    *After = Close + 1;
    return TRUE;
}

static
BOOL
ParseCompactSwitch(
    PTEXT_FIELDS Fields,
    PCTRACE_FTRACE_MAP Map,
    PCSZ Arrow
    )
/*++

Routine Description:

    Parses sched_switch's compact form, "A:1 [120] S ==> B:2 [120]", into
    the spans of the map's fields of those names (the fields stay absent
    if it does not parse).  FALSE if the map has none of them.

--*/
{
    static const PCSZ Names[] = {
        "prev_comm", "prev_pid", "prev_prio", "prev_state",
        "next_comm", "next_pid", "next_prio",
    };
    TEXT_SPAN Parsed[ARRAYSIZE(Names)];
    PCSZ End = Fields->Args.End;
    PCSZ After;
    ULONG Pid;
    LONG Prio;
    ULONG Index;
    ULONG Name;
    BOOL Named = FALSE;

    for (Index = 0; Index < Map->NumberOfFields; Index++) {
        Fields->Spans[Index].Start = Fields->Spans[Index].End = NULL;
        for (Name = 0; Name < ARRAYSIZE(Names); Name++) {
            if (Map->Fields[Index].Field != NULL &&
                RtlStringEqual(Map->Fields[Index].Field, Names[Name])) {
                Named = TRUE;
            }
        }
    }

    if (!Named ||
        !ParseCommPidPrio(Fields->Args.Start, Arrow, &Parsed[0], &Pid, &Prio,
                          &After)) {
        return Named;
    }
    Parsed[1].Start = Parsed[0].End + 1;
    Parsed[1].End = TextFindString(Parsed[1].Start, Arrow, " [", 2);
    Parsed[2].Start = Parsed[1].End + 2;
    Parsed[2].End = After - 1;
    Parsed[3].Start = TextSkipSpaces(After, Arrow);
    Parsed[3].End = TextTrimEnd(Parsed[3].Start, Arrow);

    if (!ParseCommPidPrio(Arrow + 5, End, &Parsed[4], &Pid, &Prio,
                          &After) ||
        TextSkipSpaces(After, End) != End) {
        return TRUE;
    }
    Parsed[5].Start = Parsed[4].End + 1;
    Parsed[5].End = TextFindString(Parsed[5].Start, End, " [", 2);
    Parsed[6].Start = Parsed[5].End + 2;
    Parsed[6].End = After - 1;

    for (Index = 0; Index < Map->NumberOfFields; Index++) {
        for (Name = 0; Name < ARRAYSIZE(Names); Name++) {
            if (Map->Fields[Index].Field != NULL &&
                RtlStringEqual(Map->Fields[Index].Field, Names[Name])) {
                Fields->Spans[Index] = Parsed[Name];
            }
        }
    }
    return TRUE;
}

static
BOOL
FindValue(
    PTEXT_FIELDS Fields,
    PCTRACE_FTRACE_MAP Map,
    ULONG Index,
    PTEXT_SPAN Span
    )
/*++

Routine Description:

    Finds the printed value of field Index: the word after its key, or for
    a string everything up to the blank before the next field's key.

--*/
{
    PCTRACE_FTRACE_FIELD Field = &Map->Fields[Index];
    PCSZ End = Fields->Args.End;
    PCSZ Next;
    PCSZ Cursor;
    ULONG Length;

    if (Fields->Compact) {
        *Span = Fields->Spans[Index];
        return Span->Start != NULL;
    }

    if (!TextFindField(Fields->Args.Start, End, Field->TextKey, Span)) {
        return FALSE;
    }

    if (Field->Conversion != TraceFtraceString ||
        Index + 1 >= Map->NumberOfFields ||
        Map->Fields[Index + 1].TextKey == NULL) {
        return TRUE;
    }

    Next = Map->Fields[Index + 1].TextKey;
    Length = (ULONG)RtlStringLength(Next);
    for (Cursor = Span->Start; ; Cursor++) {
        Cursor = TextFindString(Cursor, End, Next, Length);
        if (Cursor == NULL) {
            return FALSE;
        }
        if (Cursor > Span->Start && Cursor[-1] == ' ') {
            Span->End = Cursor - 1;
            return TRUE;
        }
    }
}

static
BOOL
ReadNumber(
    PCTRACE_FTRACE_FIELD Field,
    TEXT_SPAN Span,
    PULONGLONG Number
    )
/*++

Routine Description:

    The whole value as a number (an unsigned one may end at a comma, "vcpu
    0, rip ..."); a 32-bit unsigned column takes up to 0xfffffffe (all ones
    is its NULL).

--*/
{
    PCSZ After;
    LONGLONG Signed;

    if (Field->Signed) {
        if (TextParseSigned(Span.Start, Span.End, &Signed) != Span.End) {
            return FALSE;
        }
        *Number = (ULONGLONG)Signed;
        return TRUE;
    }

    After = TextParseUnsigned(Span.Start, Span.End, FALSE, Number);
    if (After == NULL || (After != Span.End && *After != ',')) {
        return FALSE;
    }
    return Field->Size == 8 || *Number <= 0xfffffffe;
}

static
BOOL
TextRead(
    PTRACE_FIELD_SOURCE Source,
    PCTRACE_FTRACE_MAP Map,
    ULONG Index,
    PTRACE_FIELD_VALUE Value
    )
{
    PTEXT_FIELDS Fields = (PTEXT_FIELDS)Source;
    PCTRACE_FTRACE_FIELD Field = &Map->Fields[Index];
    PCSZ End = Fields->Args.End;
    TEXT_SPAN Span;
    ULONGLONG Code;
    PCSZ Close;

    if (!FindValue(Fields, Map, Index, &Span)) {
        return FALSE;
    }

    Value->Text = Span.Start;
    Value->Length = TEXT_SPAN_LENGTH(Span);

    switch (Field->Conversion) {
    case TraceFtraceNumber:
    case TraceFtraceOptionalNumber:
        return ReadNumber(Field, Span, &Value->Number);

    case TraceFtraceSymbol:

        //
        // Kernel faults may print the ip as a symbol ("ip=__put_user_4").
        //

        if (TextParseUnsigned(Span.Start, Span.End, FALSE, &Value->Number) ==
            Span.End) {
            Value->Text = NULL;
        } else {
            Value->Number = TRACE_NULL_ULONGLONG;
        }
        return TRUE;

    case TraceFtraceExitReason:

        //
        // "reason NAME": the name ends at the next blank.  A reason the
        // kernel could not name is printed as a number ("0x3c"), and
        // libtraceevent's kvm plugin prints "reason UNKNOWN (60)".
        //

        if (Span.Start == Span.End) {
            return FALSE;
        }
        Value->Number = TRACE_NULL_ULONG;
        if (TextParseUnsigned(Span.Start, Span.End, FALSE, &Code) ==
                Span.End && Code < 0xffffffff) {
            Value->Number = Code;
        } else if (Span.End + 2 < End && Span.End[1] == '(') {
            Close = TextParseUnsigned(Span.End + 2, End, FALSE, &Code);
            if (Close != NULL && Close < End && *Close == ')' &&
                Code < 0xffffffff) {
                Value->Number = Code;
            }
        }
        return TRUE;

    default:
        return TRUE;
    }
}

static
RTL_STATUS
TextArgsId(
    PTRACE_FIELD_SOURCE Source,
    PULONG Id
    )
{
    PTEXT_FIELDS Fields = (PTEXT_FIELDS)Source;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Fields->ArgsId == TRACE_NULL_ULONG) {
        Status = TraceImportIntern(Fields->Import, Fields->Args.Start,
                                   TEXT_SPAN_LENGTH(Fields->Args),
                                   &Fields->ArgsId);
    }
    *Id = Fields->ArgsId;
    return Status;
}

static
RTL_STATUS
TextRawId(
    PTRACE_FIELD_SOURCE Source,
    PULONG Id
    )
{
    *Id = ((PTEXT_FIELDS)Source)->RawId;
    return RTL_STATUS_OK;
}

static
VOID
SetLatency(
    PTRACE_EVENT_FORMAT Format,
    TEXT_SPAN Latency,
    PBYTE Record,
    ULONG Length
    )
/*++

Routine Description:

    common_flags and common_preempt_count (found by TraceEventScanText)
    from the latency column, read as the kernel prints it
    (trace_print_lat_fmt): irqs off 'd' (or bh
    off 'b', or 'X': no irq flags); need-resched 'N' 'n' 'p' (and the lazy
    'L' 'l' 'B' 'b'); 'Z' 'z' 'H' 'h' 's' for nmi, hardirq and softirq;
    then the preempt depth and the migrate-disable depth in hex, '.' for
    0.

--*/
{
    PCTRACE_EVENT_FIELD FlagsField = Format->TextFlags;
    PCTRACE_EVENT_FIELD PreemptField = Format->TextPreempt;
    ULONG Flags = 0;
    ULONG Preempt = 0;
    ULONG Count = TEXT_SPAN_LENGTH(Latency);
    ULONG Index;

    if (Latency.Start == NULL || Count < 4) {
        return;
    }
    switch (Latency.Start[0]) {
    case 'd': Flags |= 0x01; break;         // TRACE_FLAG_IRQS_OFF
    case 'X': Flags |= 0x02; break;         // TRACE_FLAG_IRQS_NOSUPPORT
    case 'b': Flags |= 0x80; break;         // TRACE_FLAG_BH_OFF
    }
    switch (Latency.Start[1]) {
    case 'B': Flags |= 0x04 | 0x02 | 0x20; break;
    case 'N': Flags |= 0x04 | 0x20; break;  // NEED_RESCHED, PREEMPT_RESCHED
    case 'L': Flags |= 0x02 | 0x20; break;  // NEED_RESCHED_LAZY
    case 'b': Flags |= 0x04 | 0x02; break;
    case 'n': Flags |= 0x04; break;
    case 'p': Flags |= 0x20; break;
    case 'l': Flags |= 0x02; break;
    }
    switch (Latency.Start[2]) {
    case 'Z': Flags |= 0x40 | 0x08; break;  // NMI, HARDIRQ
    case 'z': Flags |= 0x40; break;
    case 'H': Flags |= 0x08 | 0x10; break;  // HARDIRQ, SOFTIRQ
    case 'h': Flags |= 0x08; break;
    case 's': Flags |= 0x10; break;
    }
    for (Index = 3; Index < 5 && Index < Count; Index++) {
        CHAR Digit = Latency.Start[Index];
        ULONG Value = (Digit >= '0' && Digit <= '9') ? (ULONG)(Digit - '0') :
                      (Digit >= 'a' && Digit <= 'f') ?
                      (ULONG)(Digit - 'a' + 10) : 0;

        Preempt |= Value << (4 * (Index - 3));
    }
    if (FlagsField != NULL && FlagsField->Size == 1 &&
        FlagsField->Offset < Length) {
        Record[FlagsField->Offset] = (BYTE)Flags;
    }
    if (PreemptField != NULL && PreemptField->Size == 1 &&
        PreemptField->Offset < Length) {
        Record[PreemptField->Offset] = (BYTE)Preempt;
    }
}

static
RTL_STATUS
RebuildRecord(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Name,
    ULONG NameId,
    TEXT_SPAN Args,
    TEXT_SPAN Latency,
    PULONG RawId
    )
/*++

Routine Description:

    The record the event was printed from, as its text and format give it
    back, interned (*RawId; NULL when the import has no format of that
    name or the text does not read back); the event's format row, the
    first time the source meets it.

--*/
{
    ULONG Slot = NameId % TRACE_TEXT_EVENT_TYPES;
    PTRACE_EVENT_FORMAT Format;
    BYTE Record[TRACE_EVENT_TEXT_RECORD_MAX];
    ULONG Length;
    ULONGLONG SourceId;
    RTL_STATUS Status;

    *RawId = TRACE_NULL_ULONG;
    if (Import->TextFormatNames[Slot] == NameId + 1) {
        Format = Import->TextFormats[Slot];
    } else {
        Format = TraceEventFindByName(Import->EventFormats, Name.Start,
                                      TEXT_SPAN_LENGTH(Name));
        Import->TextFormatNames[Slot] = NameId + 1;
        Import->TextFormats[Slot] = Format;
    }
    if (Format == NULL) {
        return RTL_STATUS_OK;
    }

    SourceId = Import->Stores[TraceRecordSource]->ReservedCount;
    if (Format->TextSourceId != SourceId + 1) {
        Status = TraceImportEventFormat(Import, Format->System, Format->Name,
                                        Format->Id, Format->Source,
                                        Format->SourceLength);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Format->TextSourceId = SourceId + 1;
    }

    if (!TraceEventScanText(Import->EventFormats, Format, Args.Start,
                            TEXT_SPAN_LENGTH(Args), Event->Tid, Record,
                            sizeof(Record), &Length)) {
        return RTL_STATUS_OK;
    }
    SetLatency(Format, Latency, Record, Length);
    return TraceImportIntern(Import, (PCSZ)Record, Length, RawId);
}

static
PCTRACE_RECORD_TYPE
TypeOf(
    PTRACE_IMPORT Import,
    TEXT_SPAN Name,
    ULONG NameId,
    PBOOL IsEnd
    )
/*++

Routine Description:

    TraceFtraceFindType, through the import's cache of recent names (most
    lines name one of a few events).

--*/
{
    PULONGLONG Slot = &Import->TextEventTypes[NameId %
                                              TRACE_TEXT_EVENT_TYPES];
    PCTRACE_RECORD_TYPE Type;
    ULONG Kind;

    if ((ULONG)(*Slot >> 32) == NameId + 1) {
        Kind = (ULONG)*Slot >> 1;
        *IsEnd = (BOOL)(*Slot & 1);
        return Kind < TraceRecordKindMaximum ? &TraceRecordTypes[Kind] : NULL;
    }

    Type = TraceFtraceFindType(NULL, Name.Start, TEXT_SPAN_LENGTH(Name),
                               IsEnd);
    Kind = Type != NULL ? (ULONG)Type->Kind : TraceRecordKindMaximum;
    *Slot = ((ULONGLONG)(NameId + 1) << 32) | (Kind << 1) |
            (Type != NULL && *IsEnd);
    return Type;
}

static
BOOL
TakesArgs(
    PCTRACE_FTRACE_MAP Map
    )
{
    ULONG Index;

    for (Index = 0; Index < Map->NumberOfFields; Index++) {
        if (Map->Fields[Index].Conversion == TraceFtraceEventArgs) {
            return TRUE;
        }
    }
    return FALSE;
}

RTL_STATUS
TraceImportTextEvent(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Name,
    TEXT_SPAN Args,
    TEXT_SPAN Latency
    )
/*++

Routine Description:

    Records one text event in the store its name calls for.

Arguments:

    Import - Supplies the import context.

    Event - Supplies the event's time and task (CommId and FlagsId set).

    Name - Supplies the bare event name ("kvm_exit", not "kvm:kvm_exit").

    Args - Supplies the fields as printed, trimmed.

    Latency - Supplies the latency-flags column, Start NULL if none.

Return Value:

    RTL_STATUS_OK, or a store error described in Import->Error.

--*/
{
    PCTRACE_RECORD_TYPE Type;
    TEXT_FIELDS Fields;
    ULONG NameId;
    BOOL Handled = FALSE;
    BOOL IsEnd;
    PCSZ Arrow;
    RTL_STATUS Status;

    Status = TraceImportIntern(Import, Name.Start, TEXT_SPAN_LENGTH(Name),
                               &NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Fields.ArgsId = TRACE_NULL_ULONG;
    Fields.RawId = TRACE_NULL_ULONG;
    Fields.Import = Import;
    Fields.Args = Args;
    if (Import->EventFormats != NULL) {
        Status = RebuildRecord(Import, Event, Name, NameId, Args, Latency,
                               &Fields.RawId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    Type = TypeOf(Import, Name, NameId, &IsEnd);
    if (Type != NULL && IsEnd) {
        Status = TraceFtraceEnd(Import, Type, Event, Fields.RawId, &Handled);

    } else if (Type != NULL) {
        PCTRACE_FTRACE_MAP Map = Type->Ftrace;

        //
        // The event's text is interned before its fields (it is the
        // generic row's too, should a field be missing).
        //

        if (TakesArgs(Map)) {
            Status = TextArgsId(&Fields.Source, &Fields.ArgsId);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        Fields.Source.Read = TextRead;
        Fields.Source.ArgsId = TextArgsId;
        Fields.Source.RawId = TextRawId;
        Fields.Source.ModuleOf = NULL;
        Fields.Source.LearnComm = NULL;
        Fields.Compact = FALSE;
        Arrow = TextFindString(Args.Start, Args.End, " ==> ", 5);
        if (Arrow != NULL && Map->Fields[0].TextKey != NULL &&
            !TextStartsWith(Args.Start, Args.End, Map->Fields[0].TextKey)) {
            Fields.Compact = ParseCompactSwitch(&Fields, Map, Arrow);
        }

        Status = TraceFtraceBuild(Import, Type, &Fields.Source, Event, NameId,
                                  &Handled);
    }

    if (!RTL_SUCCESS(Status) || Handled) {
        return Status;
    }

    Status = TextArgsId(&Fields.Source, &Fields.ArgsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportGenericEvent(Import, Event, NameId, Fields.ArgsId,
                                   Fields.RawId);
}
