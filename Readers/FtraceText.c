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
    its own compact form.

    Every event line becomes a record: page faults, KVM exits (paired with
    their entries) and context switches in their own stores, everything
    else in `ftrace_event`.  Lines that are not events (comments, `cpus=`,
    CPU-buffer markers) are counted and skipped; `[LOST N EVENTS]` markers
    add to the dropped count.  Anything else is an error naming the file,
    line and byte offset, and the import stops there with every earlier
    line committed.

--*/

#include "TraceImport.h"

#define MAX_LINE_LENGTH 65536
#define SNIPPET_LENGTH 60

typedef struct _FTRACE_LINE {
    TRACE_EVENT_CONTEXT Event;
    TEXT_SPAN Comm;
    TEXT_SPAN Flags;        // Start is NULL when there is no flags column
    TEXT_SPAN Name;
    TEXT_SPAN Args;
} FTRACE_LINE, *PFTRACE_LINE;

static
RTL_STATUS
LineError(
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

    if (Length > SNIPPET_LENGTH) {
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
    if ((ULONG)(LineEnd - LineStart) > SNIPPET_LENGTH) {
        Snippet[Index++] = '.';
        Snippet[Index++] = '.';
        Snippet[Index++] = '.';
    }
    Snippet[Index] = '\0';

    return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines,
                       (ULONGLONG)(LineStart - (PCSZ)Import->Buffer),
                       "%s:%llu: %s (byte offset %llu): \"%s\"",
                       Import->Path, Import->Lines, Reason,
                       (ULONGLONG)(LineStart - (PCSZ)Import->Buffer),
                       Snippet);
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
StartsWith(
    PCSZ Start,
    PCSZ End,
    PCSZ Literal
    )
{
    while (*Literal != '\0') {
        if (Start >= End || *Start != *Literal) {
            return FALSE;
        }
        Start++;
        Literal++;
    }
    return TRUE;
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

    if (StartsWith(Start, End, "cpus=") ||
        StartsWith(Start, End, "#####") ||
        (StartsWith(Start, End, "CPU ") &&
         TextFindString(Start, End, " is empty", 9) != NULL)) {
        return TRUE;
    }

    if (StartsWith(Start, End, "CPU:") || StartsWith(Start, End, "CPU ")) {
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
        *Reason = "not an ftrace event line (no EVENT: after the timestamp)";
        return FALSE;
    }

    Line->Args.Start = TextSkipSpaces(Cursor + 1, End);
    Line->Args.End = TextTrimEnd(Line->Args.Start, End);

    return TRUE;
}

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

    Parses trace-cmd report's "COMM:PID [PRIO]" (the comm may hold ':').

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
RTL_STATUS
ImportSchedSwitch(
    PTRACE_IMPORT Import,
    PFTRACE_LINE Line,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes sched_switch in either layout:

        tracefs:   prev_comm=A prev_pid=1 prev_prio=120 prev_state=S ==>
                   next_comm=B next_pid=2 next_prio=120
        trace-cmd: A:1 [120] S ==> B:2 [120]

--*/
{
    PCSZ Start = Line->Args.Start;
    PCSZ End = Line->Args.End;
    PCSZ Arrow = TextFindString(Start, End, " ==> ", 5);
    SCHED_SWITCH_RECORD Record;
    TEXT_SPAN PrevComm;
    TEXT_SPAN NextComm;
    TEXT_SPAN State;
    ULONGLONG Value;
    LONGLONG Signed;
    RTL_STATUS Status;

    *Handled = FALSE;

    if (Arrow == NULL) {
        return RTL_STATUS_OK;
    }

    if (StartsWith(Start, End, "prev_comm=")) {
        PCSZ PrevPid = TextFindString(Start, Arrow, " prev_pid=", 10);
        PCSZ NextStart = Arrow + 5;
        PCSZ NextPid = TextFindString(NextStart, End, " next_pid=", 10);
        TEXT_SPAN Field;

        if (PrevPid == NULL || NextPid == NULL ||
            !StartsWith(NextStart, End, "next_comm=")) {
            return RTL_STATUS_OK;
        }

        PrevComm.Start = Start + 10;
        PrevComm.End = PrevPid;
        NextComm.Start = NextStart + 10;
        NextComm.End = NextPid;

        if (TextParseUnsigned(PrevPid + 10, Arrow, FALSE, &Value) == NULL) {
            return RTL_STATUS_OK;
        }
        Record.PrevPid = (ULONG)Value;

        if (!TextFindField(PrevPid, Arrow, "prev_prio=", &Field) ||
            TextParseSigned(Field.Start, Field.End, &Signed) != Field.End) {
            return RTL_STATUS_OK;
        }
        Record.PrevPrio = (LONG)Signed;

        if (!TextFindField(PrevPid, Arrow, "prev_state=", &State)) {
            return RTL_STATUS_OK;
        }
        State.End = Arrow < State.End ? Arrow : State.End;

        if (TextParseUnsigned(NextPid + 10, End, FALSE, &Value) == NULL) {
            return RTL_STATUS_OK;
        }
        Record.NextPid = (ULONG)Value;

        if (!TextFindField(NextPid, End, "next_prio=", &Field) ||
            TextParseSigned(Field.Start, Field.End, &Signed) != Field.End) {
            return RTL_STATUS_OK;
        }
        Record.NextPrio = (LONG)Signed;

    } else {
        PCSZ After;

        if (!ParseCommPidPrio(Start, Arrow, &PrevComm, &Record.PrevPid,
                              &Record.PrevPrio, &After)) {
            return RTL_STATUS_OK;
        }
        State.Start = TextSkipSpaces(After, Arrow);
        State.End = TextTrimEnd(State.Start, Arrow);

        if (!ParseCommPidPrio(Arrow + 5, End, &NextComm, &Record.NextPid,
                              &Record.NextPrio, &After) ||
            TextSkipSpaces(After, End) != End) {
            return RTL_STATUS_OK;
        }
    }

    Status = TraceImportIntern(Import, PrevComm.Start,
                               TEXT_SPAN_LENGTH(PrevComm),
                               &Record.PrevCommId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, NextComm.Start,
                                   TEXT_SPAN_LENGTH(NextComm),
                                   &Record.NextCommId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, State.Start,
                                   TEXT_SPAN_LENGTH(State),
                                   &Record.PrevStateId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    *Handled = TRUE;
    return TraceImportSchedSwitch(Import, &Line->Event, &Record);
}

static
RTL_STATUS
ImportPageFault(
    PTRACE_IMPORT Import,
    PFTRACE_LINE Line,
    ULONG NameId,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes "address=0x... ip=0x... error_code=0x...".  Kernel faults may
    print the ip as a symbol ("ip=__put_user_4"), kept in ip_sym.

--*/
{
    PCSZ Start = Line->Args.Start;
    PCSZ End = Line->Args.End;
    ULONGLONG Address;
    ULONGLONG ErrorCode;
    ULONGLONG Ip = TRACE_NULL_ULONGLONG;
    ULONG IpSymbolId = TRACE_NULL_ULONG;
    PAGE_FAULT_RECORD Record;
    TEXT_SPAN IpText;
    RTL_STATUS Status;

    *Handled = FALSE;

    if (!TextFindNumber(Start, End, "address=", &Address) ||
        !TextFindNumber(Start, End, "error_code=", &ErrorCode) ||
        ErrorCode > 0xffffffff ||
        !TextFindField(Start, End, "ip=", &IpText)) {
        return RTL_STATUS_OK;
    }

    if (TextParseUnsigned(IpText.Start, IpText.End, FALSE, &Ip) !=
        IpText.End) {
        Ip = TRACE_NULL_ULONGLONG;
        Status = TraceImportIntern(Import, IpText.Start,
                                   TEXT_SPAN_LENGTH(IpText), &IpSymbolId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    *Handled = TRUE;
    Record.Address = Address;
    Record.Ip = Ip;
    Record.ErrorCode = (ULONG)ErrorCode;
    Record.NameId = NameId;
    Record.IpSymbolId = IpSymbolId;
    Record.ModuleId = TRACE_NULL_ULONG;
    Record.IpModuleId = TRACE_NULL_ULONG;

    return TraceImportPageFault(Import, &Line->Event, &Record);
}

static
RTL_STATUS
ImportKvmExit(
    PTRACE_IMPORT Import,
    PFTRACE_LINE Line,
    ULONG ArgsId,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes "[vcpu N ]reason NAME rip 0x... ..." (the reason may carry a
    suffix in parentheses on some kernels; it ends at the next space).

--*/
{
    PCSZ Start = Line->Args.Start;
    PCSZ End = Line->Args.End;
    TEXT_SPAN Reason;
    ULONGLONG Rip = TRACE_NULL_ULONGLONG;
    ULONGLONG Vcpu;
    ULONG VcpuId = TRACE_NULL_ULONG;
    ULONG ReasonId;
    RTL_STATUS Status;
    KVM_EXIT_RECORD Record;

    *Handled = FALSE;

    if (!TextFindField(Start, End, "reason ", &Reason) ||
        Reason.Start == Reason.End) {
        return RTL_STATUS_OK;
    }

    if (!TextFindNumber(Start, End, "rip ", &Rip)) {
        Rip = TRACE_NULL_ULONGLONG;
    }
    if (TextFindNumber(Start, End, "vcpu ", &Vcpu) && Vcpu < 0xffffffff) {
        VcpuId = (ULONG)Vcpu;
    }

    Status = TraceImportIntern(Import, Reason.Start,
                               TEXT_SPAN_LENGTH(Reason), &ReasonId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    *Handled = TRUE;
    Record.ReasonId = ReasonId;
    Record.Rip = Rip;
    Record.Vcpu = VcpuId;
    Record.ArgsId = ArgsId;
    Record.ExitCode = TRACE_NULL_ULONG;
    Record.Tsc = TRACE_NULL_ULONGLONG;

    return TraceImportKvmExit(Import, &Line->Event, &Record);
}

static
RTL_STATUS
ImportProcessExec(
    PTRACE_IMPORT Import,
    PFTRACE_LINE Line
    )
{
    PCSZ Start = Line->Args.Start;
    PCSZ End = Line->Args.End;
    PCSZ PidField = TextFindString(Start, End, " pid=", 5);
    ULONGLONG Pid;
    ULONG FileNameId;
    RTL_STATUS Status;

    if (!StartsWith(Start, End, "filename=") || PidField == NULL ||
        TextParseUnsigned(PidField + 5, End, FALSE, &Pid) == NULL ||
        Pid > 0xfffffffe) {
        return RTL_STATUS_OK;
    }

    Status = TraceImportIntern(Import, Start + 9,
                               (ULONG)(PidField - (Start + 9)), &FileNameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportProcessExec(Import, Line->Event.Timestamp, (ULONG)Pid,
                                  Line->Event.CommId, FileNameId);
}

static
RTL_STATUS
ImportLine(
    PTRACE_IMPORT Import,
    PCSZ Start,
    PCSZ End
    )
{
    FTRACE_LINE Line;
    PCSZ Reason;
    PCSZ Content;
    ULONG NameId;
    ULONG ArgsId;
    BOOL Handled = FALSE;
    RTL_STATUS Status;

    Content = TextSkipSpaces(Start, End);
    if (Content == TextTrimEnd(Content, End) || *Content == '#' ||
        IsMarkerLine(Import, Content, End)) {
        return RTL_STATUS_OK;
    }

    if (TextFindChar(Start, End, '\0') != End) {
        return LineError(Import, RTL_STATUS_BAD_FORMAT, Start, End,
                         "NUL byte in line");
    }

    if (!SplitLine(Start, End, &Line, &Reason)) {
        return LineError(Import, RTL_STATUS_BAD_FORMAT, Start, End, Reason);
    }

    Status = TraceImportIntern(Import, Line.Comm.Start,
                               TEXT_SPAN_LENGTH(Line.Comm),
                               &Line.Event.CommId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, Line.Name.Start,
                                   TEXT_SPAN_LENGTH(Line.Name), &NameId);
    }
    if (RTL_SUCCESS(Status) && Line.Flags.Start != NULL) {
        Status = TraceImportIntern(Import, Line.Flags.Start,
                                   TEXT_SPAN_LENGTH(Line.Flags),
                                   &Line.Event.FlagsId);
    } else {
        Line.Event.FlagsId = TRACE_NULL_ULONG;
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (TextSpanEquals(Line.Name, "page_fault_user") ||
        TextSpanEquals(Line.Name, "page_fault_kernel")) {
        Status = ImportPageFault(Import, &Line, NameId, &Handled);
    } else if (TextSpanEquals(Line.Name, "sched_switch")) {
        Status = ImportSchedSwitch(Import, &Line, &Handled);
    } else if (TextSpanEquals(Line.Name, "kvm_entry")) {
        Status = TraceImportKvmEntry(Import, &Line.Event, &Handled);
    } else if (TextSpanEquals(Line.Name, "sched_process_exec")) {
        Status = ImportProcessExec(Import, &Line);
    }

    if (!RTL_SUCCESS(Status) || Handled) {
        goto End;
    }

    Status = TraceImportIntern(Import, Line.Args.Start,
                               TEXT_SPAN_LENGTH(Line.Args), &ArgsId);
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    if (TextSpanEquals(Line.Name, "kvm_exit")) {
        Status = ImportKvmExit(Import, &Line, ArgsId, &Handled);
        if (!RTL_SUCCESS(Status) || Handled) {
            goto End;
        }
    }

    Status = TraceImportGenericEvent(Import, &Line.Event, NameId, ArgsId);

End:
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)(End -
                                                (PCSZ)Import->Buffer));
    }

    return Status;
}

static
TRACE_INPUT_FORMAT
DetectLayout(
    const BYTE *Buffer,
    SIZE_T Length
    )
/*++

Routine Description:

    Recognizes a format from the first lines of the input: `cpus=N` first
    means trace-cmd report; an event line whose CPU column is followed by a
    latency-flags column means tracefs text; an event line without one is
    trace-cmd report too (the two share the rest of the layout).

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
            return TraceFormatTraceCmdReport;
        }

        if (Cursor < LineEnd && Cursor[0] == '#') {
            Cursor = LineEnd + 1;
            continue;
        }

        Bracket = TextFindString(Cursor, LineEnd, " [", 2);
        if (Bracket != NULL) {
            After = TextParseUnsigned(Bracket + 2, LineEnd, FALSE, &Cpu);
            if (After != NULL && After < LineEnd && *After == ']') {
                After = TextSkipSpaces(After + 1, LineEnd);
                if (TextParseSeconds(After, LineEnd, &Ns) != NULL) {
                    return TraceFormatTraceCmdReport;
                }
                return TraceFormatFtraceText;
            }
        }

        Cursor = LineEnd + 1;
    }

    return TraceFormatUnknown;
}

BOOL
FtraceTextDetect(
    PTRACE_IMPORT Import
    )
{
    return DetectLayout(Import->Buffer, Import->Length) ==
           TraceFormatFtraceText;
}

BOOL
TraceCmdReportDetect(
    PTRACE_IMPORT Import
    )
{
    return DetectLayout(Import->Buffer, Import->Length) ==
           TraceFormatTraceCmdReport;
}

RTL_STATUS
FtraceTextImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports ftrace text from Import->Buffer (tracefs or trace-cmd report
    layout).  Call between TraceImportBegin and TraceImportEnd.

Arguments:

    Import - Supplies the import context.

Return Value:

    RTL_STATUS_OK, or an error described in Import->Error (file, line and
    byte offset); the lines before the error have been imported.

--*/
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End = Cursor + Import->Length;
    RTL_STATUS Status = RTL_STATUS_OK;

    while (Cursor < End) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        Import->Lines++;

        if (LineEnd - Cursor > MAX_LINE_LENGTH) {
            return LineError(Import, RTL_STATUS_TOO_LARGE, Cursor,
                             LineEnd, "line longer than 65536 bytes");
        }

        if (LineEnd == End) {

            //
            // The last line has no newline: the input was cut off (a copy
            // interrupted, a capture still being written).
            //

            if (TextSkipSpaces(Cursor, End) != End) {
                return LineError(Import, RTL_STATUS_BAD_FORMAT, Cursor,
                                 LineEnd, "truncated line (no newline at "
                                 "the end of the file)");
            }
            break;
        }

        Status = ImportLine(Import, Cursor, LineEnd);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}
