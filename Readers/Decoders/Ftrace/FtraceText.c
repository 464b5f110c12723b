/*++

Module Name:

    FtraceText.c

Abstract:

    This module decodes ftrace text: the tracefs `trace` / `trace_pipe`
    layout and the `trace-cmd report` layout.  Both print one event per
    line as

        COMM-PID [(TGID)] [CPU] [FLAGS] SECONDS.FRACTION: EVENT: FIELDS

    and differ in details this decoder accepts either way: tracefs has a
    latency-flags column ("d..2.") and pads "COMM-PID" to the left, while
    trace-cmd report has no flags column, starts with a `cpus=N` line,
    pads the event name, and prints some events (sched_switch, kvm_*) in
    its own compact form.  tracefs prints the syscalls events without
    "EVENT:" ("sys_openat(dfd: 0x3, ...)", "sys_openat -> 0x4"); they are
    read as sys_enter_openat and sys_exit_openat.

    Every event line becomes a record: page faults, KVM exits (paired with
    their entries) and context switches in their own stores, everything
    else in `ftrace_event`.  Lines that are not events (comments, `cpus=`,
    CPU-buffer markers) are counted and skipped; `[LOST N EVENTS]` markers
    add to the dropped count.  Anything else is an error naming the file,
    line and byte offset, and the import stops there with every earlier
    line committed.

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns the layout of an
    ftrace text line (task, cpu, flags, time, event name).  Calls the
    import context (Readers/Import/TraceImport.h: the line loop,
    interning, TraceImportTextEvent for the fields, errors) and TextParse.

--*/

#include "Readers/Import/TraceImport.h"
#include "Readers/Decoders/Decoders.h"
#include "Readers/Decoders/Ftrace/FtraceRecord.h"

typedef struct _FTRACE_LINE {
    TRACE_EVENT_CONTEXT Event;
    TEXT_SPAN Comm;
    TEXT_SPAN Flags;        // Start is NULL when there is no flags column
    TEXT_SPAN Name;
    TEXT_SPAN Args;
    CHAR SyscallName[64];   // Name, for the syscalls events (see below)
} FTRACE_LINE, *PFTRACE_LINE;

static
BOOL
SplitSyscallEvent(
    PFTRACE_LINE Line,
    PCSZ Cursor,
    PCSZ End
    )
/*++

Routine Description:

    tracefs prints the syscalls:sys_enter_NAME and sys_exit_NAME events
    in a form of their own (kernel/trace/trace_syscalls.c), without
    "EVENT:": "sys_NAME(ARG: VALUE, ...)" and "sys_NAME -> 0xRESULT".
    They become events sys_enter_NAME with args "ARG: VALUE, ..." and
    sys_exit_NAME with args "0xRESULT", as trace-cmd report and perf
    script print them.

Arguments:

    Line - Supplies Name (the sys_NAME read so far); receives Name (in
        SyscallName) and Args.

    Cursor - Supplies the position after sys_NAME.

    End - Supplies the end of the line.

Return Value:

    TRUE if the line is one of these events.

--*/
{
    PCSZ Base = Line->Name.Start + 4;
    ULONG BaseLength = (ULONG)(Line->Name.End - Base);
    PCSZ Prefix;
    ULONG PrefixLength;
    ULONG Index;

    End = TextTrimEnd(Cursor, End);
    if (TEXT_SPAN_LENGTH(Line->Name) <= 4 ||
        !TextStartsWith(Line->Name.Start, Line->Name.End, "sys_") ||
        BaseLength + 10 >= sizeof(Line->SyscallName)) {
        return FALSE;
    }

    if (Cursor < End && *Cursor == '(' && End[-1] == ')') {
        Prefix = "sys_enter_";
        PrefixLength = 10;
        Line->Args.Start = Cursor + 1;
        Line->Args.End = End - 1;
    } else if (TextStartsWith(Cursor, End, " -> ")) {
        Prefix = "sys_exit_";
        PrefixLength = 9;
        Line->Args.Start = Cursor + 4;
        Line->Args.End = End;
    } else {
        return FALSE;
    }

    for (Index = 0; Index < PrefixLength; Index++) {
        Line->SyscallName[Index] = Prefix[Index];
    }
    for (Index = 0; Index < BaseLength; Index++) {
        Line->SyscallName[PrefixLength + Index] = Base[Index];
    }
    Line->Name.Start = Line->SyscallName;
    Line->Name.End = Line->SyscallName + PrefixLength + BaseLength;

    return TRUE;
}

static
BOOL
IsNameChar(
    CHAR Char
    )
{
    return (Char >= 'a' && Char <= 'z') || (Char >= 'A' && Char <= 'Z') ||
           (Char >= '0' && Char <= '9') || Char == '_';
}

static
BOOL
IsMarkerLine(
    PTRACE_IMPORT Import,
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    Recognizes the non-event lines ftrace and trace-cmd print, adding lost
    event counts ("CPU:1 [LOST 120 EVENTS]") to the import's total.

--*/
{
    PCSZ Lost;
    ULONGLONG Count;

    if (TextStartsWith(Start, End, "cpus=") ||
        TextStartsWith(Start, End, "#####") ||
        (TextStartsWith(Start, End, "CPU ") &&
         TextFindString(Start, End, " is empty", 9) != NULL)) {
        return TRUE;
    }

    if (TextStartsWith(Start, End, "CPU:") || TextStartsWith(Start, End, "CPU ")) {
        Lost = TextFindString(Start, End, "[LOST ", 6);
        if (Lost != NULL &&
            TextParseUnsigned(Lost + 6, End, FALSE, &Count) != NULL) {
            Import->LostEvents += Count;
            return TRUE;
        }
    }

    return FALSE;
}

static
BOOL
SplitLine(
    PCSZ Start,
    PCSZ End,
    PFTRACE_LINE Line,
    PCSZ *Reason
    )
/*++

Routine Description:

    Splits an event line into task, CPU, flags, timestamp, event name and
    fields.  The CPU column is the first " [digits]"; everything before it
    is "COMM-PID" with an optional "(TGID)", so a comm may hold spaces and
    dashes (the pid is after the last dash).

Arguments:

    Start, End - Supply the line, without its newline.

    Line - Receives the parts (Event.CommId and FlagsId are not set).

    Reason - Receives what is wrong when the line is not an event line.

Return Value:

    TRUE if the line is an event line.

--*/
{
    PCSZ Search = Start;
    PCSZ Bracket;
    PCSZ Cursor;
    PCSZ Task;
    PCSZ TaskEnd;
    PCSZ Dash;
    PCSZ AfterTs;
    ULONGLONG Value;

    for (;;) {
        PCSZ AfterCpu;

        //
        // Look for '[' (rare) rather than " [" (the padding is spaces).
        //

        Bracket = TextFindChar(Search, End, '[');
        if (Bracket == End) {
            *Reason = "not an ftrace event line (no [CPU] column)";
            return FALSE;
        }
        if (Bracket == Start || Bracket[-1] != ' ') {
            Search = Bracket + 1;
            continue;
        }
        Bracket--;

        AfterCpu = TextParseUnsigned(Bracket + 2, End, FALSE, &Value);
        if (AfterCpu != NULL && AfterCpu < End && *AfterCpu == ']' &&
            Value < 0x100000) {
            Line->Event.Cpu = (ULONG)Value;
            Cursor = TextSkipSpaces(AfterCpu + 1, End);
            break;
        }

        Search = Bracket + 2;
    }

    //
    // Task: "COMM-PID", then maybe "(TGID)" ("(-----)" when unknown).
    //

    Task = TextSkipSpaces(Start, Bracket);
    TaskEnd = TextTrimEnd(Task, Bracket);
    Line->Event.Pid = TRACE_NULL_ULONG;

    if (TaskEnd > Task && TaskEnd[-1] == ')') {
        PCSZ Open = TaskEnd - 1;
        while (Open > Task && *Open != '(') {
            Open--;
        }
        if (*Open == '(') {
            PCSZ Number = TextSkipSpaces(Open + 1, TaskEnd - 1);
            if (TextParseUnsigned(Number, TaskEnd - 1, FALSE, &Value) ==
                TaskEnd - 1 && Value <= 0xfffffffe) {
                Line->Event.Pid = (ULONG)Value;
            }
            TaskEnd = TextTrimEnd(Task, Open);
        }
    }

    Dash = TaskEnd;
    while (Dash > Task && Dash[-1] != '-') {
        Dash--;
    }
    if (Dash == Task ||
        TextParseUnsigned(Dash, TaskEnd, FALSE, &Value) != TaskEnd ||
        Value > 0xfffffffe) {
        *Reason = "not an ftrace event line (no COMM-PID before [CPU])";
        return FALSE;
    }
    Line->Event.Tid = (ULONG)Value;
    Line->Comm.Start = Task;
    Line->Comm.End = Dash - 1;

    //
    // Optional flags column, then "SECONDS.FRACTION:".
    //

    Line->Flags.Start = NULL;
    Line->Flags.End = NULL;

    AfterTs = TextParseSeconds(Cursor, End, &Line->Event.Timestamp);
    if (AfterTs == NULL || AfterTs >= End || *AfterTs != ':') {
        Line->Flags.Start = Cursor;
        Line->Flags.End = TextFindChar(Cursor, End, ' ');
        Cursor = TextSkipSpaces(Line->Flags.End, End);
        AfterTs = TextParseSeconds(Cursor, End, &Line->Event.Timestamp);
        if (AfterTs == NULL || AfterTs >= End || *AfterTs != ':') {
            *Reason = "not an ftrace event line (no timestamp)";
            return FALSE;
        }
    }

    //
    // "EVENT:" and the fields (trace-cmd pads after the colon).
    //

    Cursor = TextSkipSpaces(AfterTs + 1, End);
    Line->Name.Start = Cursor;
    while (Cursor < End && IsNameChar(*Cursor)) {
        Cursor++;
    }
    Line->Name.End = Cursor;

    if (Line->Name.End == Line->Name.Start || Cursor >= End ||
        *Cursor != ':') {
        if (SplitSyscallEvent(Line, Cursor, End)) {
            return TRUE;
        }
        *Reason = "not an ftrace event line (no EVENT: after the timestamp)";
        return FALSE;
    }

    Line->Args.Start = TextSkipSpaces(Cursor + 1, End);
    Line->Args.End = TextTrimEnd(Line->Args.Start, End);

    return TRUE;
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
    FTRACE_LINE Line;
    PCSZ Reason;
    PCSZ Content;
    RTL_STATUS Status;

    (VOID)Context;

    Content = TextSkipSpaces(Start, End);
    if (Content == TextTrimEnd(Content, End) || *Content == '#' ||
        IsMarkerLine(Import, Content, End)) {
        return RTL_STATUS_OK;
    }

    if (!SplitLine(Start, End, &Line, &Reason)) {
        return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Start, End,
                                    Reason);
    }
    Line.Event.Timestamp = TraceImportAlignTs(Import, Line.Event.Timestamp);

    Status = TraceImportIntern(Import, Line.Comm.Start,
                               TEXT_SPAN_LENGTH(Line.Comm),
                               &Line.Event.CommId);
    Line.Event.FlagsId = TRACE_NULL_ULONG;
    if (RTL_SUCCESS(Status) && Line.Flags.Start != NULL) {
        Status = TraceImportIntern(Import, Line.Flags.Start,
                                   TEXT_SPAN_LENGTH(Line.Flags),
                                   &Line.Event.FlagsId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportTextEvent(Import, &Line.Event, Line.Name,
                                      Line.Args, Line.Flags);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)(End -
                                                (PCSZ)Import->Buffer));
    }

    return Status;
}

static
BOOL
EndsWithDashPid(
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    TRUE if the task column [Start, End) ends in "-PID", maybe followed by
    "(TGID)".  perf script prints "COMM PID [CPU]" instead, which must not
    be taken for trace-cmd report.

--*/
{
    PCSZ Digits;

    End = TextTrimEnd(Start, End);
    if (End > Start && End[-1] == ')') {
        while (End > Start && End[-1] != '(') {
            End--;
        }
        if (End == Start) {
            return FALSE;
        }
        End = TextTrimEnd(Start, End - 1);
    }

    Digits = End;
    while (Digits > Start && TextIsDigit(Digits[-1])) {
        Digits--;
    }

    return Digits < End && Digits > Start && Digits[-1] == '-';
}

//
// The two layouts of ftrace text DetectLayout tells apart.
//

typedef enum _FTRACE_TEXT_LAYOUT {
    FtraceLayoutUnknown = 0,
    FtraceLayoutTracefs,            // tracefs trace / trace_pipe
    FtraceLayoutTraceCmdReport,     // trace-cmd report
} FTRACE_TEXT_LAYOUT;

static
FTRACE_TEXT_LAYOUT
DetectLayout(
    const BYTE *Buffer,
    SIZE_T Length
    )
/*++

Routine Description:

    Recognizes a format from the first lines of the input: `cpus=N` first
    means trace-cmd report; an event line ("COMM-PID [CPU]") whose CPU
    column is followed by a latency-flags column means tracefs text; an
    event line without one is trace-cmd report too (the two share the rest
    of the layout).

--*/
{
    PCSZ Cursor = (PCSZ)Buffer;
    PCSZ End = Cursor + (Length < 65536 ? Length : 65536);
    ULONG LinesSeen = 0;

    while (Cursor < End && LinesSeen < 64) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        PCSZ Bracket;
        PCSZ After;
        ULONGLONG Cpu;
        LONGLONG Ns;

        LinesSeen++;

        if (LineEnd - Cursor >= 5 && Cursor[0] == 'c' && Cursor[1] == 'p' &&
            Cursor[2] == 'u' && Cursor[3] == 's' && Cursor[4] == '=') {
            return FtraceLayoutTraceCmdReport;
        }

        if (Cursor < LineEnd && Cursor[0] == '#') {
            Cursor = LineEnd + 1;
            continue;
        }

        Bracket = TextFindString(Cursor, LineEnd, " [", 2);
        if (Bracket != NULL && EndsWithDashPid(Cursor, Bracket)) {
            After = TextParseUnsigned(Bracket + 2, LineEnd, FALSE, &Cpu);
            if (After != NULL && After < LineEnd && *After == ']') {
                After = TextSkipSpaces(After + 1, LineEnd);
                if (TextParseSeconds(After, LineEnd, &Ns) != NULL) {
                    return FtraceLayoutTraceCmdReport;
                }
                return FtraceLayoutTracefs;
            }
        }

        Cursor = LineEnd + 1;
    }

    return FtraceLayoutUnknown;
}

BOOL
FtraceTextDetect(
    PTRACE_IMPORT Import
    )
{
    return DetectLayout(Import->Buffer, Import->Length) ==
           FtraceLayoutTracefs;
}

BOOL
TraceCmdReportDetect(
    PTRACE_IMPORT Import
    )
{
    return DetectLayout(Import->Buffer, Import->Length) ==
           FtraceLayoutTraceCmdReport;
}

RTL_STATUS
FtraceTextImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports ftrace text, in the tracefs or the trace-cmd report layout
    (a TRACE_FORMAT_IMPORT: TraceImport.h says what every one does).

--*/
{
    return TraceImportForEachLine(Import, ImportLine, NULL);
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT FtraceTextDecoder = {
    "ftrace",
    "tracefs trace / trace_pipe text",
    0,
    FtraceTextDetect,
    FtraceTextImport
};

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT TraceCmdReportDecoder = {
    "trace-cmd-report",
    "the text `trace-cmd report` prints",
    0,
    TraceCmdReportDetect,
    FtraceTextImport
};
