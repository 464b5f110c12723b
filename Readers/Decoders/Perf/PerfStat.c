/*++

Module Name:

    PerfStat.c

Abstract:

    This module decodes `perf stat -I MS -x SEP` interval output into the
    counter store.  Each line is one counter in one interval, its fields
    separated by SEP (any string; seeds/001 uses '#'), in the order
    perf-stat(1) documents under CSV FORMAT:

        TIME SEP [AGGREGATE SEP [NR_CPUS SEP]] VALUE SEP UNIT SEP EVENT SEP
        RUN_TIME SEP RUNNING_PCT [SEP METRIC_VALUE SEP METRIC_UNIT]

    The aggregate columns depend on the options: `-A` prints "CPU3",
    `--per-thread` "COMM-TID", `--per-socket/-die/-core/-node` an id and
    the number of CPUs aggregated ("S0-D0-C0" "2").  The separator and the
    number of aggregate columns are found from the first counter line and
    hold for the whole file.

    VALUE is a number, or `<not counted>` / `<not supported>` (stored as
    NULL).  A `-A` CPU becomes counter.cpu and a `--per-thread` thread id
    counter.pid; any other aggregate id is appended to the name in
    parentheses ("page-faults (S0-D0-C0)") so that each series keeps its
    own name.  Derived metrics (METRIC_VALUE, and the metric-only lines
    perf prints with every earlier field empty) are not stored: they are
    computed from the counters.

    `#` comments ("# started on ...") and blank lines are skipped.
    seeds/001 puts "rdtsc N" (the TSC when perf stat started) on the first
    line; with a TSC rate (tracestore import --tsc-mhz) the interval times
    are moved onto the TSC clock, N / MHz microseconds later, as the seed
    does.  Without one they stay relative to the start of perf stat.

Environment:

    Core: no C runtime; the OS only through PRTL (Rtl->CopyMemory,
    FillMemory).  Called through the format table (TraceFormats.c:
    PerfStatDetect, PerfStatImport); calls TraceImport.h (the line loop,
    interning, the counter store, the clock) and TextParse.h.

--*/

#include "Readers/Import/TraceImport.h"
#include "Readers/Decoders/Decoders.h"

#define MAX_SEPARATOR_LENGTH 8
#define MAX_FIELDS 16
#define MAX_NAME_LENGTH 1024

typedef enum _PERF_STAT_AGGREGATE {
    AggregateNone = 0,
    AggregateCpu,           // -A: "CPU3"
    AggregateThread,        // --per-thread: "COMM-TID"
    AggregateOther,         // anything else: kept in the name
} PERF_STAT_AGGREGATE;

typedef struct _PERF_STAT_LAYOUT {
    CHAR Separator[MAX_SEPARATOR_LENGTH];
    ULONG SeparatorLength;
    ULONG Leading;          // aggregate columns before the value (0..2)
    LONGLONG TimeOffset;    // added to every interval time, ns
} PERF_STAT_LAYOUT, *PPERF_STAT_LAYOUT;

typedef struct _PERF_STAT_ROW {
    LONGLONG Time;
    TEXT_SPAN Aggregate;    // Start NULL without aggregate columns
    TEXT_SPAN Value;
    TEXT_SPAN Unit;
    TEXT_SPAN Event;
    TEXT_SPAN RunningPercent;
    BOOL MetricOnly;        // a continuation line with only a metric
    ULONG Padding;
} PERF_STAT_ROW, *PPERF_STAT_ROW;

static
BOOL
IsNotCounted(
    TEXT_SPAN Value
    )
{
    return TextSpanEquals(Value, "<not counted>") ||
           TextSpanEquals(Value, "<not supported>");
}

static
BOOL
IsValue(
    TEXT_SPAN Value
    )
{
    DOUBLE Number;

    return IsNotCounted(Value) ||
           (Value.Start < Value.End &&
            TextParseDouble(Value.Start, Value.End, &Number) == Value.End);
}

static
BOOL
IsInteger(
    TEXT_SPAN Field
    )
{
    ULONGLONG Number;

    return TextIsDecimal(Field.Start, Field.End) &&
           TextParseUnsigned(Field.Start, Field.End, FALSE, &Number) != NULL;
}

static
PCSZ
ParseTime(
    PCSZ Start,
    PCSZ End,
    PLONGLONG Time
    )
/*++

Routine Description:

    Parses the interval time at the start of a line ("     0.100209798"):
    seconds with a fraction.  Returns the position after it, or NULL.

--*/
{
    PCSZ Cursor = TextSkipSpaces(Start, End);
    PCSZ After = TextParseSeconds(Cursor, End, Time);

    if (After == NULL || TextFindChar(Cursor, After, '.') == After) {
        return NULL;
    }

    return After;
}

static
BOOL
SplitRow(
    PCSZ Start,
    PCSZ End,
    PPERF_STAT_LAYOUT Layout,
    PPERF_STAT_ROW Row
    )
/*++

Routine Description:

    Splits one counter line by Layout's separator and number of aggregate
    columns.

Return Value:

    TRUE if the line has the fields a counter line has in that layout.

--*/
{
    TEXT_SPAN Fields[MAX_FIELDS];
    ULONG Count = 0;
    ULONG First = 1 + Layout->Leading;
    PCSZ Cursor;
    PCSZ After;

    After = ParseTime(Start, End, &Row->Time);
    if (After == NULL || (ULONG)(End - After) < Layout->SeparatorLength ||
        Start[0] == '#') {
        return FALSE;
    }

    Cursor = After;
    while (Count < MAX_FIELDS &&
           TextNextField(&Cursor, End, Layout->Separator,
                         Layout->SeparatorLength, &Fields[Count])) {
        Count++;
    }

    //
    // Fields[0] is the empty text between the time and the first
    // separator.
    //

    if (Fields[0].Start != Fields[0].End || Count < First + 5) {
        return FALSE;
    }

    Row->Aggregate.Start = NULL;
    Row->Aggregate.End = NULL;
    if (Layout->Leading != 0) {
        Row->Aggregate = Fields[1];
        if (Row->Aggregate.Start == Row->Aggregate.End ||
            (Layout->Leading == 2 && !IsInteger(Fields[2]))) {
            return FALSE;
        }
    }

    Row->Value = Fields[First];
    Row->Unit = Fields[First + 1];
    Row->Event = Fields[First + 2];
    Row->RunningPercent = Fields[First + 4];
    Row->MetricOnly = FALSE;

    if (Row->Value.Start == Row->Value.End &&
        Row->Event.Start == Row->Event.End) {
        Row->MetricOnly = TRUE;
        return TRUE;
    }

    if (!IsValue(Row->Value) || Row->Event.Start == Row->Event.End ||
        !IsInteger(Fields[First + 3])) {
        return FALSE;
    }

    if (Row->RunningPercent.Start != Row->RunningPercent.End) {
        DOUBLE Percent;
        if (TextParseDouble(Row->RunningPercent.Start,
                            Row->RunningPercent.End, &Percent) !=
            Row->RunningPercent.End) {
            return FALSE;
        }
    }

    return TRUE;
}

static
BOOL
FindLayout(
    PCSZ Start,
    PCSZ End,
    PPERF_STAT_LAYOUT Layout
    )
/*++

Routine Description:

    Finds the separator and the aggregate columns from the first counter
    line: the separator is the shortest string after the time (of
    characters that cannot start a field) with which the line splits into
    a counter line, trying zero, one and two aggregate columns.

--*/
{
    PERF_STAT_ROW Row;
    LONGLONG Time;
    PCSZ After = ParseTime(Start, End, &Time);
    ULONG Length;

    if (After == NULL) {
        return FALSE;
    }

    for (Length = 1; Length <= MAX_SEPARATOR_LENGTH &&
                     Length <= (ULONG)(End - After); Length++) {
        CHAR Char = After[Length - 1];

        if (TextIsDigit(Char) || (Char >= 'a' && Char <= 'z') ||
            (Char >= 'A' && Char <= 'Z') || Char == '.' || Char == '<' ||
            Char == '\r') {
            break;
        }

        Layout->Separator[Length - 1] = Char;
        Layout->SeparatorLength = Length;

        for (Layout->Leading = 0; Layout->Leading <= 2; Layout->Leading++) {
            if (SplitRow(Start, End, Layout, &Row) && !Row.MetricOnly) {
                return TRUE;
            }
        }
    }

    return FALSE;
}

static
BOOL
IsRdtscLine(
    PCSZ Start,
    PCSZ End,
    PULONGLONG Tsc
    )
{
    PCSZ Number;

    End = TextTrimEnd(Start, End);
    if (!TextStartsWith(Start, End, "rdtsc ")) {
        return FALSE;
    }

    Number = TextSkipSpaces(Start + 6, End);
    return TextIsDecimal(Number, End) &&
           TextParseUnsigned(Number, End, FALSE, Tsc) == End;
}

static
BOOL
IsSkippedLine(
    PCSZ Start,
    PCSZ End
    )
{
    PCSZ Content = TextSkipSpaces(Start, End);

    return Content == TextTrimEnd(Content, End) || *Content == '#';
}

BOOL
PerfStatDetect(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Recognizes perf stat -I -x output: after comments, blank lines and an
    optional first "rdtsc N" line, the first line yields a layout and the
    next ones (up to eight counter lines in the first 64 KB) split by it.

--*/
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End;
    PERF_STAT_LAYOUT Layout;
    PERF_STAT_ROW Row;
    ULONG Rows = 0;
    ULONG LinesSeen = 0;
    ULONGLONG Tsc;

    if (Import->Buffer == NULL) {
        return FALSE;
    }
    End = Cursor + (Import->Length < 65536 ? Import->Length : 65536);

    while (Cursor < End && Rows < 8 && LinesSeen < 256) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        if (LineEnd == End && LineEnd != (PCSZ)Import->Buffer +
                                          Import->Length) {
            break;                              // cut by the 64 KB window
        }
        LineEnd = TextTrimEnd(Cursor, LineEnd);

        if (LinesSeen++ == 0 && IsRdtscLine(Cursor, LineEnd, &Tsc)) {
            ;
        } else if (IsSkippedLine(Cursor, LineEnd)) {
            ;
        } else if (Rows == 0) {
            if (!FindLayout(Cursor, LineEnd, &Layout)) {
                return FALSE;
            }
            Rows++;
        } else {
            if (!SplitRow(Cursor, LineEnd, &Layout, &Row)) {
                return FALSE;
            }
            Rows++;
        }

        Cursor = TextFindChar(Cursor, End, '\n') + 1;
    }

    return Rows != 0;
}

typedef struct _PERF_STAT_STATE {
    PERF_STAT_LAYOUT Layout;
    BOOL HaveLayout;
    BOOL SeenContent;
    CHAR Name[MAX_NAME_LENGTH];
} PERF_STAT_STATE, *PPERF_STAT_STATE;

static
RTL_STATUS
ImportRow(
    PTRACE_IMPORT Import,
    PPERF_STAT_STATE State,
    PPERF_STAT_ROW Row,
    PCSZ LineStart,
    PCSZ LineEnd
    )
{
    TRACE_EVENT_CONTEXT Event;
    COUNTER_RECORD Record;
    TEXT_SPAN Name = Row->Event;
    TEXT_SPAN Aggregate = Row->Aggregate;
    RTL_STATUS Status;
    ULONGLONG Number;

    Import->Rtl->FillMemory(&Record, sizeof(Record), 0xff);
    Import->Rtl->FillMemory(&Event, sizeof(Event), 0xff);
    Event.Timestamp = TraceImportAlignTs(Import, Row->Time +
                                         State->Layout.TimeOffset);

    if (!IsNotCounted(Row->Value)) {
        TextParseDouble(Row->Value.Start, Row->Value.End, &Record.Value);
    }
    if (Row->RunningPercent.Start != Row->RunningPercent.End) {
        TextParseDouble(Row->RunningPercent.Start, Row->RunningPercent.End,
                        &Record.RunningPercent);
    }

    //
    // The aggregate: "CPU3" (-A), "COMM-TID" (--per-thread), or an id
    // that goes into the name.
    //

    if (Aggregate.Start != NULL) {
        PCSZ Dash = Aggregate.End;

        while (Dash > Aggregate.Start && TextIsDigit(Dash[-1])) {
            Dash--;
        }

        if (State->Layout.Leading == 1 && Dash - Aggregate.Start == 3 &&
            TextStartsWith(Aggregate.Start, Aggregate.End, "CPU") &&
            TextIsDecimal(Dash, Aggregate.End) &&
            TextParseUnsigned(Dash, Aggregate.End, FALSE, &Number) != NULL &&
            Number < 0xffffffff) {
            Record.Cpu = (ULONG)Number;
        } else if (State->Layout.Leading == 1 &&
                   TextIsDecimal(Dash, Aggregate.End) &&
                   Dash - 1 > Aggregate.Start && Dash[-1] == '-' &&
                   TextParseUnsigned(Dash, Aggregate.End, FALSE, &Number) !=
                       NULL && Number < 0xffffffff) {
            Record.Pid = (ULONG)Number;
        } else {
            ULONG EventLength = TEXT_SPAN_LENGTH(Row->Event);
            ULONG AggregateLength = TEXT_SPAN_LENGTH(Aggregate);

            if ((ULONGLONG)EventLength + AggregateLength + 3 >
                MAX_NAME_LENGTH) {
                return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT,
                                            LineStart, LineEnd,
                                            "event name longer than 1024 "
                                            "bytes");
            }
            Import->Rtl->CopyMemory(State->Name, Row->Event.Start, EventLength);
            State->Name[EventLength] = ' ';
            State->Name[EventLength + 1] = '(';
            Import->Rtl->CopyMemory(State->Name + EventLength + 2, Aggregate.Start,
                          AggregateLength);
            State->Name[EventLength + 2 + AggregateLength] = ')';
            Name.Start = State->Name;
            Name.End = State->Name + EventLength + AggregateLength + 3;
        }
    }

    Status = TraceImportIntern(Import, Name.Start, TEXT_SPAN_LENGTH(Name),
                               &Record.NameId);
    if (RTL_SUCCESS(Status) && Row->Unit.Start != Row->Unit.End) {
        Status = TraceImportIntern(Import, Row->Unit.Start,
                                   TEXT_SPAN_LENGTH(Row->Unit),
                                   &Record.UnitId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportCounter(Import, &Event, &Record);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)(LineEnd -
                                                (PCSZ)Import->Buffer));
    }

    return Status;
}

static
RTL_STATUS
ImportLine(
    PTRACE_IMPORT Import,
    PVOID Context,
    PCSZ Start,
    PCSZ End
    )
{
    PPERF_STAT_STATE State = (PPERF_STAT_STATE)Context;
    PERF_STAT_ROW Row;
    ULONGLONG Tsc;
    BOOL First = !State->SeenContent;

    End = TextTrimEnd(Start, End);
    if (IsSkippedLine(Start, End)) {
        return RTL_STATUS_OK;
    }
    State->SeenContent = TRUE;

    if (First && IsRdtscLine(Start, End, &Tsc)) {
        if (Import->TscMhz > 0) {
            State->Layout.TimeOffset = (LONGLONG)((DOUBLE)Tsc * 1000.0 /
                                                  Import->TscMhz);
            return TraceImportSetClock(Import, "x86-tsc", 7);
        }
        return RTL_STATUS_OK;
    }

    if (!State->HaveLayout) {
        if (!FindLayout(Start, End, &State->Layout)) {
            return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Start,
                                        End, "not a perf stat -I -x line "
                                        "(TIME SEP VALUE SEP UNIT SEP EVENT "
                                        "SEP RUN_TIME SEP PERCENT)");
        }
        State->HaveLayout = TRUE;
    }

    if (!SplitRow(Start, End, &State->Layout, &Row)) {
        return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Start, End,
                                    "not a perf stat -I -x line with the "
                                    "separator and columns of the first "
                                    "one");
    }

    if (Row.MetricOnly) {
        return RTL_STATUS_OK;
    }

    return ImportRow(Import, State, &Row, Start, End);
}

RTL_STATUS
PerfStatImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports perf stat interval output into the counter store (a
    TRACE_FORMAT_IMPORT: TraceImport.h says what every one does).

--*/
{
    PERF_STAT_STATE State;

    Import->Rtl->FillMemory(&State, sizeof(State), 0);

    return TraceImportForEachLine(Import, ImportLine, &State);
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT PerfStatDecoder = {
    "perf-stat",
    "perf stat -I MS -x SEP interval output",
    0,
    PerfStatDetect,
    PerfStatImport
};
