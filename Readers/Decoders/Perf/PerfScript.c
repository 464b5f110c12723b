/*++

Module Name:

    PerfScript.c

Abstract:

    This module decodes the text `perf script` prints, one sample per line:

        [COMM] [PID[/TID]] [[CPU]] SECONDS.FRACTION: [PERIOD] EVENT: REST

    The default layout ("kvmguest 11561 [001]   699.381537:  kvm:kvm_fpu:
    load") puts a right-aligned comm (which may hold spaces) before the
    thread id, `-F ...,pid,tid` prints "PID/TID", the CPU column is there
    only when the samples carry one, and `-F trace:time,event --ns`
    (seeds/001) prints only the time and the event.  Times are seconds with
    six digits (microseconds) or nine (--ns).

    Tracepoints ("sys:name") are recorded under their bare name, through
    the same field decoding as ftrace text (TraceImportTextEvent): page
    faults, KVM exit/entry pairs, context switches, execs, and everything
    else in ftrace_event with the fields as printed.  Software page-fault
    samples ("page-faults", "minor-faults", ...) print their data address
    and instruction pointer as

        ADDR [SYM] [(DSO)] IP [SYM] [(DSO)]

    each number right-aligned in 16 columns; they become page_fault rows
    with the data address's dso as `module` and the ip's symbol and dso as
    `ip_sym` and `ip_module`.  With only one location it is the ip (what
    plain `perf script` prints).  Other sample events go to ftrace_event.

    Call chains (tab-indented frames after a sample, `perf record -g`) are
    skipped, except that a page-fault sample printed without an ip takes
    the first frame's.  `#` comments and blank lines are skipped.  Any
    other line is an error naming the file, line and byte offset.

Environment:

    Core: no C runtime; the OS only through PRTL (through the import
    context).  Called through the format table (TraceFormats.c:
    PerfScriptDetect, PerfScriptImport); calls TraceImport.h (the line
    loop, interning, page faults, ftrace-style events through
    TraceImportTextEvent) and TextParse.h.

--*/

#include "Readers/Import/TraceImport.h"
#include "Readers/Decoders/Decoders.h"
#include "PerfMaps.h"
#include "Readers/Decoders/Ftrace/FtraceRecord.h"

typedef struct _PERF_LINE {
    TRACE_EVENT_CONTEXT Event;
    TEXT_SPAN Comm;         // Start is NULL when the layout has no comm
    TEXT_SPAN Name;         // the event as printed, without its colon
    TEXT_SPAN Rest;         // what follows "EVENT:", trimmed
} PERF_LINE, *PPERF_LINE;

//
// One "ADDR [SYM] [(DSO)]" location of a sample.
//

typedef struct _PERF_LOCATION {
    ULONGLONG Address;
    TEXT_SPAN Symbol;       // empty when not printed
    TEXT_SPAN Dso;          // empty when not printed
} PERF_LOCATION, *PPERF_LOCATION;

typedef struct _PERF_SCRIPT_STATE {
    BOOL InCallchain;       // the previous line was a sample or a frame
    ULONG Padding;
    PERF_MAPS Maps;         // from --show-mmap-events, -task-events lines
} PERF_SCRIPT_STATE, *PPERF_SCRIPT_STATE;

#define WIDTH_ADDRESS 16

static
PCSZ
TokenEnd(
    PCSZ Start,
    PCSZ End
    )
{
    while (Start < End && !TextIsBlank(*Start)) {
        Start++;
    }
    return Start;
}

static
BOOL
IsTimeToken(
    PCSZ Start,
    PCSZ End,
    PLONGLONG Timestamp
    )
/*++

Routine Description:

    TRUE for "SECONDS.FRACTION:" (the whole token).

--*/
{
    PCSZ After = TextParseSeconds(Start, End, Timestamp);

    return After != NULL && After + 1 == End && *After == ':' &&
           TextFindChar(Start, After, '.') != After;
}

static
BOOL
ParseTaskId(
    PCSZ Start,
    PCSZ End,
    PULONG Id
    )
/*++

Routine Description:

    A pid or tid as perf prints it: a number, or -1 for a task that had
    exited when the sample was taken (perf record -a sees the last context
    switch of a thread after its exit): NULL.

--*/
{
    ULONGLONG Value;

    if (End - Start == 2 && Start[0] == '-' && Start[1] == '1') {
        *Id = TRACE_NULL_ULONG;
        return TRUE;
    }
    if (!TextIsDecimal(Start, End) ||
        TextParseUnsigned(Start, End, FALSE, &Value) == NULL ||
        Value >= 0xffffffff) {
        return FALSE;
    }
    *Id = (ULONG)Value;
    return TRUE;
}

static
BOOL
IsCommPlaceholder(
    TEXT_SPAN Comm,
    PCSZ Tid,
    PCSZ TidEnd
    )
/*++

Routine Description:

    TRUE for ":TID", what perf prints for the comm of a thread it has no
    comm for.

--*/
{
    if (Comm.Start[0] != ':' || Comm.End - Comm.Start - 1 != TidEnd - Tid) {
        return FALSE;
    }
    for (Comm.Start++; Tid < TidEnd; Tid++, Comm.Start++) {
        if (*Comm.Start != *Tid) {
            return FALSE;
        }
    }
    return TRUE;
}

static
BOOL
ParseTask(
    PCSZ Start,
    PCSZ End,
    PPERF_LINE Line
    )
/*++

Routine Description:

    Parses what precedes the time: nothing, or "[COMM] PID[/TID] [[CPU]]".
    The comm is everything before the last number, so it may hold spaces.
    A comm that is ":" and the thread id is perf's placeholder for a
    thread whose comm it does not know (":-1" for an exited one): NULL.

--*/
{
    PCSZ Cursor = TextTrimEnd(Start, End);
    PCSZ Token;
    PCSZ Slash;
    PCSZ TidStart;
    ULONGLONG Value;

    Line->Event.Tid = TRACE_NULL_ULONG;
    Line->Event.Pid = TRACE_NULL_ULONG;
    Line->Event.Cpu = TRACE_NULL_ULONG;
    Line->Comm.Start = NULL;
    Line->Comm.End = NULL;

    if (TextSkipSpaces(Start, Cursor) == Cursor) {
        return TRUE;
    }

    //
    // "[CPU]"
    //

    if (Cursor[-1] == ']') {
        Token = Cursor - 1;
        while (Token > Start && Token[-1] != '[') {
            Token--;
        }
        if (Token == Start || !TextIsDecimal(Token, Cursor - 1) ||
            TextParseUnsigned(Token, Cursor - 1, FALSE, &Value) == NULL ||
            Value >= 0xffffffff) {
            return FALSE;
        }
        Line->Event.Cpu = (ULONG)Value;
        Cursor = TextTrimEnd(Start, Token - 1);
    }

    //
    // "PID" (a thread id, as perf prints by default) or "PID/TID".
    //

    Token = Cursor;
    while (Token > Start && !TextIsBlank(Token[-1])) {
        Token--;
    }
    if (Token == Cursor) {
        return FALSE;
    }

    Slash = TextFindChar(Token, Cursor, '/');
    if (Slash != Cursor) {
        if (!ParseTaskId(Token, Slash, &Line->Event.Pid) ||
            !ParseTaskId(Slash + 1, Cursor, &Line->Event.Tid)) {
            return FALSE;
        }
        TidStart = Slash + 1;
    } else {
        if (!ParseTaskId(Token, Cursor, &Line->Event.Tid)) {
            return FALSE;
        }
        TidStart = Token;
    }

    Line->Comm.Start = TextSkipSpaces(Start, Token);
    Line->Comm.End = TextTrimEnd(Line->Comm.Start, Token);
    if (Line->Comm.Start == Line->Comm.End ||
        IsCommPlaceholder(Line->Comm, TidStart, Cursor)) {
        Line->Comm.Start = NULL;
        Line->Comm.End = NULL;
    }

    return TRUE;
}

static
BOOL
SplitLine(
    PCSZ Start,
    PCSZ End,
    PPERF_LINE Line,
    PCSZ *Reason
    )
/*++

Routine Description:

    Splits a sample line into task, CPU, time, event and the rest.  The
    time is the first "SECONDS.FRACTION:" token; the event is the next
    token ending in a colon, after an optional period (a plain number).

Arguments:

    Start, End - Supply the line, without its newline.

    Line - Receives the parts (Event.CommId and FlagsId are not set).

    Reason - Receives what is wrong when the line is not a sample line.

Return Value:

    TRUE if the line is a sample line.

--*/
{
    PCSZ Cursor = Start;
    PCSZ Token;
    PCSZ TokenStop;
    ULONGLONG Period;

    for (;;) {
        Token = TextSkipSpaces(Cursor, End);
        if (Token == End) {
            *Reason = "not a perf script sample line (no SECONDS.FRACTION: "
                      "time)";
            return FALSE;
        }
        TokenStop = TokenEnd(Token, End);
        if (IsTimeToken(Token, TokenStop, &Line->Event.Timestamp)) {
            break;
        }
        Cursor = TokenStop;
    }

    if (!ParseTask(Start, Token, Line)) {
        *Reason = "not a perf script sample line (no COMM PID [CPU] before "
                  "the time)";
        return FALSE;
    }

    //
    // Optional period, then "EVENT:".
    //

    Token = TextSkipSpaces(TokenStop, End);
    TokenStop = TokenEnd(Token, End);
    if (TextIsDecimal(Token, TokenStop) &&
        TextParseUnsigned(Token, TokenStop, FALSE, &Period) != NULL) {
        Token = TextSkipSpaces(TokenStop, End);
        TokenStop = TokenEnd(Token, End);
    }

    if (TokenStop - Token >= 2 && TokenStop[-1] == ':') {
        Line->Name.Start = Token;
        Line->Name.End = TokenStop - 1;
    } else if (TextStartsWith(Token, TokenStop, "PERF_RECORD_")) {

        //
        // Side-band records (--show-task-events, --show-mmap-events):
        // "PERF_RECORD_MMAP2 28594/28594: [...]".
        //

        Line->Name.Start = Token;
        Line->Name.End = Token + 12;
        while (Line->Name.End < TokenStop &&
               ((*Line->Name.End >= 'A' && *Line->Name.End <= 'Z') ||
                TextIsDigit(*Line->Name.End) || *Line->Name.End == '_')) {
            Line->Name.End++;
        }
        TokenStop = Line->Name.End;
        if (TokenStop < End && *TokenStop == ':') {
            TokenStop++;
        }
    } else {
        *Reason = "not a perf script sample line (no EVENT: after the time)";
        return FALSE;
    }

    Line->Rest.Start = TextSkipSpaces(TokenStop, End);
    Line->Rest.End = TextTrimEnd(Line->Rest.Start, End);
    return TRUE;
}

static
BOOL
IsModifier(
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    TRUE for an event modifier ("u", "k", "ppp", "G", ...): "cycles:u" is
    an event with a modifier, "kvm:kvm_exit" a tracepoint.

--*/
{
    if (Start == End) {
        return FALSE;
    }

    for (; Start < End; Start++) {
        switch (*Start) {
        case 'u': case 'k': case 'h': case 'I': case 'G': case 'H':
        case 'p': case 'P': case 'S': case 'D': case 'W': case 'e':
        case 'b':
            break;
        default:
            return FALSE;
        }
    }

    return TRUE;
}

static
BOOL
IsPageFaultEvent(
    TEXT_SPAN Name
    )
{
    TEXT_SPAN Base = Name;

    Base.End = TextFindChar(Name.Start, Name.End, ':');

    return TextSpanEquals(Base, "page-faults") ||
           TextSpanEquals(Base, "faults") ||
           TextSpanEquals(Base, "minor-faults") ||
           TextSpanEquals(Base, "major-faults");
}

static
ULONG
PageFaultHardness(
    TEXT_SPAN Name
    )
/*++

Routine Description:

    The kernel emits major-faults and minor-faults where it counts the
    fault as major or minor for getrusage (mm_account_fault): the event's
    name says which.  page-faults (faults) counts both: NULL.

--*/
{
    TEXT_SPAN Base = Name;

    Base.End = TextFindChar(Name.Start, Name.End, ':');

    if (TextSpanEquals(Base, "major-faults")) {
        return 1;
    }
    if (TextSpanEquals(Base, "minor-faults")) {
        return 0;
    }
    return TRACE_NULL_ULONG;
}

static
PCSZ
FindNextLocation(
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    Finds where the second location starts: a space, then an address
    right-aligned in 16 columns (padding spaces, hex digits), then a space
    or the end.  A symbol made of hex digits is not mistaken for it unless
    it is exactly 16 characters long.

--*/
{
    PCSZ Cursor;

    for (Cursor = Start; End - Cursor > WIDTH_ADDRESS; Cursor++) {
        PCSZ Field = Cursor + 1;
        PCSZ FieldEnd = Field + WIDTH_ADDRESS;
        PCSZ Digit;

        if (*Cursor != ' ' || (FieldEnd < End && *FieldEnd != ' ')) {
            continue;
        }

        Digit = Field;
        while (Digit < FieldEnd && *Digit == ' ') {
            Digit++;
        }
        if (Digit == FieldEnd) {
            continue;
        }
        while (Digit < FieldEnd && TextHexValue(*Digit) >= 0) {
            Digit++;
        }
        if (Digit == FieldEnd) {
            return Cursor;
        }
    }

    return NULL;
}

static
BOOL
ParseLocation(
    PCSZ Start,
    PCSZ End,
    PPERF_LOCATION Location
    )
/*++

Routine Description:

    Parses "ADDR [SYM] [(DSO)]".  The dso is a final parenthesized group
    opened after a space, so a C++ symbol's "(int)" stays in the symbol.

--*/
{
    PCSZ Cursor = TextSkipSpaces(Start, End);
    PCSZ After;
    PCSZ Open;
    LONG Depth;

    End = TextTrimEnd(Cursor, End);
    After = TokenEnd(Cursor, End);
    if (After == Cursor ||
        TextParseUnsigned(Cursor, After, TRUE, &Location->Address) !=
            After) {
        return FALSE;
    }

    Cursor = TextSkipSpaces(After, End);
    Location->Symbol.Start = Cursor;
    Location->Symbol.End = End;
    Location->Dso.Start = End;
    Location->Dso.End = End;

    if (Cursor < End && End[-1] == ')') {
        Depth = 0;
        for (Open = End - 1; Open >= Cursor; Open--) {
            Depth += (*Open == ')') - (*Open == '(');
            if (Depth == 0) {
                break;
            }
        }
        if (Open >= Cursor && (Open == Cursor || Open[-1] == ' ')) {
            Location->Dso.Start = Open + 1;
            Location->Dso.End = End - 1;
            Location->Symbol.End = TextTrimEnd(Cursor, Open);
        }
    }

    return TRUE;
}

static
RTL_STATUS
InternOptional(
    PTRACE_IMPORT Import,
    TEXT_SPAN Span,
    PULONG Id
    )
{
    if (Span.Start == NULL || Span.Start == Span.End) {
        *Id = TRACE_NULL_ULONG;
        return RTL_STATUS_OK;
    }

    return TraceImportIntern(Import, Span.Start, TEXT_SPAN_LENGTH(Span), Id);
}

static
BOOL
NextLineIsFrame(
    PTRACE_IMPORT Import,
    PCSZ LineEnd,
    PTEXT_SPAN Frame
    )
/*++

Routine Description:

    Looks at the line after the current one (LineEnd is at its newline):
    TRUE if it is a complete call-chain frame ("\tADDR SYM (DSO)").

--*/
{
    PCSZ End = (PCSZ)Import->Buffer + Import->Length;
    PCSZ Next = LineEnd + 1;
    PCSZ NextEnd;

    if (Next >= End || *Next != '\t') {
        return FALSE;
    }

    NextEnd = TextFindChar(Next, End, '\n');
    if (NextEnd == End || NextEnd - Next > TRACE_MAX_LINE_LENGTH) {
        return FALSE;
    }

    Frame->Start = Next;
    Frame->End = NextEnd;
    return TRUE;
}

static
RTL_STATUS
ImportPageFaultSample(
    PTRACE_IMPORT Import,
    PPERF_SCRIPT_STATE State,
    PPERF_LINE Line,
    PCSZ LineStart,
    PCSZ LineEnd,
    PBOOL Handled
    )
{
    PERF_LOCATION Data;
    PERF_LOCATION Code;
    PAGE_FAULT_RECORD Record;
    TEXT_SPAN Frame;
    PCSZ Split;
    RTL_STATUS Status;

    *Handled = FALSE;

    Split = FindNextLocation(Line->Rest.Start, Line->Rest.End);

    if (Split != NULL) {
        if (!ParseLocation(Line->Rest.Start, Split, &Data) ||
            !ParseLocation(Split, Line->Rest.End, &Code)) {
            return RTL_STATUS_OK;
        }
    } else {
        Data.Address = TRACE_NULL_ULONGLONG;
        Data.Dso.Start = NULL;
        Data.Dso.End = NULL;

        if (Line->Rest.Start != Line->Rest.End) {
            if (!ParseLocation(Line->Rest.Start, Line->Rest.End, &Code)) {
                return RTL_STATUS_OK;
            }
        } else if (NextLineIsFrame(Import, LineEnd, &Frame)) {
            if (!ParseLocation(Frame.Start, Frame.End, &Code)) {
                return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT,
                                            LineStart, LineEnd,
                                            "the call chain after this "
                                            "sample does not start with an "
                                            "address");
            }
        } else {
            Code.Address = TRACE_NULL_ULONGLONG;
            Code.Symbol.Start = NULL;
            Code.Symbol.End = NULL;
            Code.Dso.Start = NULL;
            Code.Dso.End = NULL;
        }
    }

    Status = TraceImportIntern(Import, Line->Name.Start,
                               TEXT_SPAN_LENGTH(Line->Name), &Record.NameId);
    if (RTL_SUCCESS(Status)) {
        Status = InternOptional(Import, Code.Symbol, &Record.IpSymbolId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternOptional(Import, Data.Dso, &Record.ModuleId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternOptional(Import, Code.Dso, &Record.IpModuleId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    *Handled = TRUE;
    Record.Address = Data.Address;
    Record.Ip = Code.Address;
    Record.ErrorCode = TRACE_NULL_ULONG;
    TraceImportPageFaultUnclassified(&Record);
    Record.Hard = PageFaultHardness(Line->Name);
    PerfMapsPlace(&State->Maps, Line->Event.Pid, Record.Address,
                  &Record.ModuleId, &Record.ModuleOffset, &Record.Code);
    PerfMapsPlace(&State->Maps, Line->Event.Pid, Record.Ip,
                  &Record.IpModuleId, &Record.IpModuleOffset, NULL);

    return TraceImportPageFault(Import, &Line->Event, &Record);
}

static
PCSZ
ParsePid(
    PCSZ Cursor,
    PCSZ End,
    PULONG Pid
    )
/*++

Routine Description:

    A pid as perf prints it: decimal, or -1 (the kernel: PERF_MAPS_KERNEL).

--*/
{
    ULONGLONG Value;

    if (Cursor < End && *Cursor == '-') {
        Cursor = TextParseUnsigned(Cursor + 1, End, FALSE, &Value);
        *Pid = PERF_MAPS_KERNEL;
        return (Cursor != NULL && Value == 1) ? Cursor : NULL;
    }
    Cursor = TextParseUnsigned(Cursor, End, FALSE, &Value);
    if (Cursor == NULL || Value >= PERF_MAPS_KERNEL) {
        return NULL;
    }
    *Pid = (ULONG)Value;
    return Cursor;
}

static
RTL_STATUS
ImportMmap(
    PTRACE_IMPORT Import,
    PPERF_SCRIPT_STATE State,
    PPERF_LINE Line,
    PBOOL Parsed
    )
/*++

Routine Description:

    "PID/TID: [START(LENGTH) @ PGOFF[ MAJ:MIN INODE GEN]]: PROT PATH", the
    rest of a PERF_RECORD_MMAP or MMAP2 line: a mapping of the process
    (and a `module` row, as /proc/PID/maps gives the live recorder).  The
    file offset of anonymous memory ("//anon", "[stack]", ...) is 0, as
    /proc/PID/maps shows it (perf prints the page offset the kernel keeps
    for it, the address).

--*/
{
    PCSZ Cursor = Line->Rest.Start;
    PCSZ End = Line->Rest.End;
    PCSZ Prot;
    PCSZ ProtEnd;
    ULONGLONG Length;
    PERF_MAPPING Mapping;
    MODULE_RECORD Module;
    RTL_STATUS Status;

    *Parsed = FALSE;
    Cursor = ParsePid(Cursor, End, &Mapping.Pid);
    if (Cursor == NULL || (Cursor = TextFindChar(Cursor, End, '[')) == End) {
        return RTL_STATUS_OK;
    }
    Cursor = TextParseUnsigned(Cursor + 1, End, FALSE, &Mapping.Start);
    if (Cursor == NULL || Cursor == End || *Cursor != '(') {
        return RTL_STATUS_OK;
    }
    Cursor = TextParseUnsigned(Cursor + 1, End, FALSE, &Length);
    if (Cursor == NULL || !TextStartsWith(Cursor, End, ") @ ")) {
        return RTL_STATUS_OK;
    }
    Cursor = TextParseUnsigned(Cursor + 4, End, FALSE, &Mapping.Offset);
    if (Cursor == NULL || (Cursor = TextFindChar(Cursor, End, ']')) == End ||
        !TextStartsWith(Cursor, End, "]: ") ||
        __builtin_add_overflow(Mapping.Start, Length, &Mapping.End)) {
        return RTL_STATUS_OK;
    }
    Prot = TextSkipSpaces(Cursor + 3, End);
    ProtEnd = Prot;
    while (ProtEnd < End && *ProtEnd != ' ') {
        ProtEnd++;
    }
    Cursor = TextSkipSpaces(ProtEnd, End);
    *Parsed = TRUE;

    Mapping.Exec = TextFindChar(Prot, ProtEnd, 'x') != ProtEnd;
    Mapping.Padding = 0;
    Mapping.PathId = TRACE_STRING_NULL;
    if (Cursor < End && !TextStartsWith(Cursor, End, "//anon")) {
        Status = TraceImportIntern(Import, Cursor, (ULONG)(End - Cursor),
                                   &Mapping.PathId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    if (Cursor >= End || *Cursor != '/' || Mapping.PathId == TRACE_STRING_NULL) {
        Mapping.Offset = 0;
    }

    Status = PerfMapsAdd(&State->Maps, &Mapping);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportLineError(Import, Status, Line->Rest.Start, End,
                                    "no memory for the processes' maps");
    }

    PerfMapsModuleRow(&Mapping, Line->Event.Timestamp, &Module);
    Status = TraceImportIntern(Import, Prot, (ULONG)(ProtEnd - Prot),
                               &Module.PermsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return TraceImportModule(Import, &Module);
}

static
RTL_STATUS
ImportSideBand(
    PTRACE_IMPORT Import,
    PPERF_SCRIPT_STATE State,
    PPERF_LINE Line
    )
/*++

Routine Description:

    What a side-band line changes in the processes' maps: MMAP and MMAP2
    add a mapping; "PERF_RECORD_COMM exec: COMM:PID/TID" drops the
    process's; "PERF_RECORD_FORK(PID:TID):(PPID:PTID)" copies its
    parent's.  Each line is an ftrace_event row besides (as before).

--*/
{
    PCSZ Cursor = Line->Rest.Start;
    PCSZ End = Line->Rest.End;
    ULONG Pid;
    ULONG Parent;
    BOOL Parsed;

    if (TextSpanEquals(Line->Name, "PERF_RECORD_MMAP") ||
        TextSpanEquals(Line->Name, "PERF_RECORD_MMAP2")) {
        return ImportMmap(Import, State, Line, &Parsed);
    }

    if (TextSpanEquals(Line->Name, "PERF_RECORD_COMM") &&
        TextStartsWith(Cursor, End, "exec:")) {
        Cursor = TextFindChar(Cursor, End, '/');
        while (Cursor > Line->Rest.Start && TextIsDigit(Cursor[-1])) {
            Cursor--;
        }
        if (ParsePid(Cursor, End, &Pid) != NULL) {
            PerfMapsDropPid(&State->Maps, Pid);
        }
        return RTL_STATUS_OK;
    }

    if (TextSpanEquals(Line->Name, "PERF_RECORD_FORK") &&
        Cursor < End && *Cursor == '(' &&
        (Cursor = ParsePid(Cursor + 1, End, &Pid)) != NULL &&
        (Cursor = TextFindChar(Cursor, End, '(')) != End &&
        ParsePid(Cursor + 1, End, &Parent) != NULL &&
        PerfMapsCopyPid(&State->Maps, Parent, Pid) != RTL_STATUS_OK) {
        return TraceImportLineError(Import, RTL_STATUS_NO_MEMORY,
                                    Line->Rest.Start, End,
                                    "no memory for the processes' maps");
    }
    return RTL_STATUS_OK;
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
    PPERF_SCRIPT_STATE State = (PPERF_SCRIPT_STATE)Context;
    PERF_LINE Line;
    TEXT_SPAN Name;
    PCSZ Reason;
    PCSZ Content;
    PCSZ Colon;
    BOOL Handled = FALSE;
    RTL_STATUS Status;

    Content = TextSkipSpaces(Start, End);
    if (Content == TextTrimEnd(Content, End)) {
        State->InCallchain = FALSE;
        return RTL_STATUS_OK;
    }
    if (*Content == '#') {
        return RTL_STATUS_OK;
    }

    if (*Start == '\t') {
        if (!State->InCallchain) {
            return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Start,
                                        End, "call-chain frame without a "
                                        "sample before it");
        }
        return RTL_STATUS_OK;
    }

    if (!SplitLine(Start, End, &Line, &Reason)) {
        return TraceImportLineError(Import, RTL_STATUS_BAD_FORMAT, Start, End,
                                    Reason);
    }
    Line.Event.Timestamp = TraceImportAlignTs(Import, Line.Event.Timestamp);
    State->InCallchain = TRUE;

    Line.Event.FlagsId = TRACE_NULL_ULONG;
    Status = InternOptional(Import, Line.Comm, &Line.Event.CommId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // "sys:name" is a tracepoint, recorded under its bare name; "cycles:u"
    // is an event with modifiers.
    //

    Name = Line.Name;
    Colon = TextFindChar(Name.Start, Name.End, ':');
    if (Colon != Name.End && !IsModifier(Colon + 1, Name.End)) {
        Name.Start = Colon + 1;
    } else if (IsPageFaultEvent(Line.Name)) {
        Status = ImportPageFaultSample(Import, State, &Line, Start, End,
                                       &Handled);
    } else if (TextStartsWith(Name.Start, Name.End, "PERF_RECORD_")) {
        Status = ImportSideBand(Import, State, &Line);
    }

    if (RTL_SUCCESS(Status) && !Handled) {
        TEXT_SPAN NoLatency = { NULL, NULL };

        Status = TraceImportTextEvent(Import, &Line.Event, Name, Line.Rest,
                                      NoLatency);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)(End -
                                                (PCSZ)Import->Buffer));
    }

    return Status;
}

BOOL
PerfScriptDetect(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Recognizes perf script text: the first lines that are not comments,
    blank lines or call-chain frames (up to eight) all split as sample
    lines.  ftrace text does not ("COMM-PID" has no separate PID token, and
    tracefs puts flags between the CPU and the time), nor does perf stat.

--*/
{
    PCSZ Cursor = (PCSZ)Import->Buffer;
    PCSZ End = Cursor + (Import->Length < 65536 ? Import->Length : 65536);
    ULONG Samples = 0;
    ULONG LinesSeen = 0;

    if (Import->Buffer == NULL) {
        return FALSE;
    }

    while (Cursor < End && Samples < 8 && LinesSeen < 256) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        PCSZ Content = TextSkipSpaces(Cursor, LineEnd);
        PERF_LINE Line;
        PCSZ Reason;

        LinesSeen++;

        if (LineEnd == End && LineEnd != (PCSZ)Import->Buffer +
                                          Import->Length) {
            break;                              // cut by the 64 KB window
        }

        if (Content != TextTrimEnd(Content, LineEnd) && *Content != '#' &&
            *Cursor != '\t') {
            if (!SplitLine(Cursor, LineEnd, &Line, &Reason)) {
                return FALSE;
            }
            Samples++;
        }

        Cursor = LineEnd + 1;
    }

    return Samples != 0;
}

RTL_STATUS
PerfScriptImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports perf script text (a TRACE_FORMAT_IMPORT: TraceImport.h says
    what every one does).

--*/
{
    PERF_SCRIPT_STATE State;
    RTL_STATUS Status;

    State.InCallchain = FALSE;
    State.Padding = 0;
    PerfMapsInitialize(&State.Maps, Import->Rtl);

    Status = TraceImportForEachLine(Import, ImportLine, &State);
    PerfMapsFree(&State.Maps);
    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT PerfScriptDecoder = {
    "perf-script",
    "perf script text (default, -F trace:time,event, page-fault samples)",
    0,
    PerfScriptDetect,
    PerfScriptImport
};
