/*++

Module Name:

    TraceEventPlugins.c

Abstract:

    This module implements the texts of the events `trace-cmd report`
    prints through the plugins libtraceevent loads by default, for the
    event sink (TraceEventImport.c), beyond those the sink prints itself
    (sched_switch/wakeup, kvm, hrtimer):

        kmem:kfree, kmalloc, kmalloc_node,      "(FUNC+0xOFF) " before the
          kmem_cache_alloc, _alloc_node, _free  print fmt's text
        tlb:tlb_flush                           "pages=N reason=NAME (N)"
        syscalls:sys_enter_futex                "op=FUTEX_... uaddr=..."
        ftrace:function                         "FUNC <-- PARENT"
        ftrace:func_repeats                     the same, then the count
                                                and the first call's time
        ftrace:kernel_stack                     "<stack trace >" and a
                                                "=> FUNC (ADDR)" line per
                                                return address
        ftrace:raw_data                         "# ID" and the bytes
        ftrace:bprint                           trace_printk's text
                                                (TraceEventPrintBprint.c)

    The jbd2 plugin's helpers (jiffies_to_msecs, jbd2_dev_to_name) are
    known to the print-fmt interpreter.  What each plugin prints is
    libtraceevent 1.7's, missing-field complaints included; a plugin that
    gives up prints the print fmt's text after what it wrote, as
    libtraceevent does when a handler returns non-zero.

    Two choices differ from the plugins' defaults, both to keep what the
    record holds: the function events name their parent (trace-cmd report
    -O parent=1; the default hides it), and the function plugin's indent
    (a guess at the call depth made of leading blanks) is not kept, like
    every event's leading blanks.

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns the plugin texts
    above.  Called by the binary event sink (TraceEventImport.c) when an
    event's format is classified as one of them; calls the field readers
    and the print-fmt renderer (TraceEvent.h) and TextParse.

--*/

#include "TraceEvent.h"

//
// Field slots of TRACE_EVENT_FORMAT.Special, by kind.
//

#define KM_CALL_SITE    0

#define TLB_PAGES       0
#define TLB_REASON      1

#define FX_UADDR        0
#define FX_OP           1
#define FX_VAL          2
#define FX_UTIME        3
#define FX_UADDR2       4
#define FX_VAL3         5

#define FN_IP           0
#define FN_PARENT       1
#define FN_COUNT        2
#define FN_TOP_DELTA    3
#define FN_BOTTOM_DELTA 4

#define KS_CALLER       0

#define RD_ID           0
#define RD_BUF          1

static
VOID
AppendNumber(
    PTRACE_TEXT Text,
    PCSZ Format,
    ULONGLONG Value
    )
/*++

Routine Description:

    printf of Format with one integer conversion and literal text around
    it (" (%lld)").

--*/
{
    PCSZ Percent = Format;
    PCSZ After;

    while (*Percent != '\0' && *Percent != '%') {
        Percent++;
    }
    TraceTextAppend(Text, Format, (SIZE_T)(Percent - Format));
    if (*Percent == '\0') {
        return;
    }
    After = Percent + 1;
    while (*After != '\0' && *After != 'd' && *After != 'u' &&
           *After != 'x' && *After != 'X' && *After != 'o') {
        After++;
    }
    if (*After == '\0') {
        return;
    }
    TraceTextFormatNumber(Text, Percent, (ULONG)(After + 1 - Percent), -1,
                          -1, Value);
    TraceTextAppendString(Text, After + 1);
}

static
PCTRACE_EVENT_FIELD
FindField(
    PTRACE_EVENT_FORMAT Format,
    PCSZ Name,
    BOOL AnyField
    )
/*++

Routine Description:

    libtraceevent's tep_find_field (the event's own fields) or, with
    AnyField, tep_find_any_field (the common fields too).

--*/
{
    PCTRACE_EVENT_FIELD Field = TraceEventFindField(Format, Name);

    if (Field != NULL && !AnyField && (Field->Flags & TRACE_FIELD_COMMON)) {
        return NULL;
    }
    return Field;
}

static
BOOL
ReadField(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PULONGLONG Value
    )
/*++

Routine Description:

    tep_read_number_field: a field of 1, 2, 4 or 8 bytes, as stored.

--*/
{
    *Value = 0;
    if (Field == NULL ||
        !(Field->Size == 1 || Field->Size == 2 || Field->Size == 4 ||
          Field->Size == 8)) {
        return FALSE;
    }
    TraceEventFieldNumber(Field, Data, Size, Value);
    return TRUE;
}

static
BOOL
GetFieldValue(
    PCTRACE_EVENT_FIELD Field,
    PCSZ Name,
    const BYTE *Data,
    ULONG Size,
    PULONGLONG Value,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    tep_get_field_val with its complaints: a missing field prints
    "<CANT FIND FIELD name>", one that is not a number " name=INVALID".

--*/
{
    if (Field == NULL) {
        *Value = 0;
        TraceTextAppendString(Text, "<CANT FIND FIELD ");
        TraceTextAppendString(Text, Name);
        TraceTextAppendString(Text, ">");
        return FALSE;
    }
    if (!ReadField(Field, Data, Size, Value)) {
        TraceTextAppendString(Text, " ");
        TraceTextAppendString(Text, Name);
        TraceTextAppendString(Text, "=INVALID");
        return FALSE;
    }
    return TRUE;
}

//
// Which events, and the fields they read.
//

TRACE_EVENT_KIND
TraceEventPluginClassify(
    PTRACE_EVENT_FORMAT Format
    )
{
    PCTRACE_EVENT_FIELD *Special = Format->Special;

    if (RtlStringEqual(Format->System, "kmem")) {
        if (TraceEventFormatIs(Format, "kmem", "kfree") ||
            TraceEventFormatIs(Format, "kmem", "kmalloc") ||
            TraceEventFormatIs(Format, "kmem", "kmalloc_node") ||
            TraceEventFormatIs(Format, "kmem", "kmem_cache_alloc") ||
            TraceEventFormatIs(Format, "kmem", "kmem_cache_alloc_node") ||
            TraceEventFormatIs(Format, "kmem", "kmem_cache_free")) {
            Special[KM_CALL_SITE] = FindField(Format, "call_site", FALSE);
            return TraceEventKindKmemCallSite;
        }

    } else if (TraceEventFormatIs(Format, "tlb", "tlb_flush")) {
        Special[TLB_PAGES] = FindField(Format, "pages", FALSE);
        Special[TLB_REASON] = FindField(Format, "reason", FALSE);
        return TraceEventKindTlbFlush;

    } else if (TraceEventFormatIs(Format, "syscalls", "sys_enter_futex")) {
        Special[FX_UADDR] = FindField(Format, "uaddr", FALSE);
        Special[FX_OP] = FindField(Format, "op", FALSE);
        Special[FX_VAL] = FindField(Format, "val", FALSE);
        Special[FX_UTIME] = FindField(Format, "utime", FALSE);
        Special[FX_UADDR2] = FindField(Format, "uaddr2", FALSE);
        Special[FX_VAL3] = FindField(Format, "val3", FALSE);
        return TraceEventKindFutex;

    } else if (RtlStringEqual(Format->System, "ftrace")) {
        if (TraceEventFormatIs(Format, "ftrace", "function") ||
            TraceEventFormatIs(Format, "ftrace", "func_repeats")) {
            Special[FN_IP] = FindField(Format, "ip", FALSE);
            Special[FN_PARENT] = FindField(Format, "parent_ip", FALSE);
            if (RtlStringEqual(Format->Name, "function")) {
                return TraceEventKindFunction;
            }
            Special[FN_COUNT] = FindField(Format, "count", FALSE);
            Special[FN_TOP_DELTA] = FindField(Format, "top_delta_ts", FALSE);
            Special[FN_BOTTOM_DELTA] = FindField(Format, "bottom_delta_ts",
                                                 FALSE);
            return TraceEventKindFuncRepeats;
        }
        if (TraceEventFormatIs(Format, "ftrace", "kernel_stack")) {
            Special[KS_CALLER] = FindField(Format, "caller", TRUE);
            return TraceEventKindKernelStack;
        }
        if (TraceEventFormatIs(Format, "ftrace", "raw_data")) {
            Special[RD_ID] = FindField(Format, "id", FALSE);
            Special[RD_BUF] = FindField(Format, "buf", TRUE);
            return TraceEventKindRawData;
        }
        if (TraceEventFormatIs(Format, "ftrace", "bprint")) {
            return TraceEventKindBprint;
        }
    }

    return TraceEventKindGeneric;
}

//
// kmem.
//

static
BOOL
PrintCallSite(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The kmem plugin: "(FUNC+0xOFF) " for a call site kallsyms names (the
    offset as a 32-bit int in hex), nothing otherwise; the print fmt's
    text follows either way.

--*/
{
    ULONGLONG Value;
    PCSZ Name;
    ULONG NameLength;
    ULONGLONG Start;

    if (ReadField(Format->Special[KM_CALL_SITE], Data, Size, &Value) &&
        TraceEventFindSymbol(Table, Value, &Name, &NameLength, &Start)) {
        TraceTextAppendChar(Text, '(');
        TraceTextAppend(Text, Name, NameLength);
        AppendNumber(Text, "+0x%x) ", Value - Start);
    }
    return TRUE;
}

//
// tlb.
//

static
BOOL
PrintTlbFlush(
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The tlb plugin: the four reasons it knows by name (its own spelling,
    "local mm shootdown"), an empty name for the others.

--*/
{
    static const PCSZ Reasons[] = {
        "flush on task switch",
        "remote shootdown",
        "local shootdown",
        "local mm shootdown",
    };
    ULONGLONG Value;

    TraceTextAppendString(Text, "pages=");
    if (ReadField(Format->Special[TLB_PAGES], Data, Size, &Value)) {
        AppendNumber(Text, "%ld", Value);
    } else {
        TraceTextAppendString(Text, "CAN'T FIND FIELD \"pages\"");
    }

    if (!GetFieldValue(Format->Special[TLB_REASON], "reason", Data, Size,
                       &Value, Text)) {
        return TRUE;
    }
    TraceTextAppendString(Text, " reason=");
    if (Value < ARRAYSIZE(Reasons)) {
        TraceTextAppendString(Text, Reasons[Value]);
    }
    AppendNumber(Text, " (%lld)", Value);
    return FALSE;
}

//
// futex.
//

#define FX_SHOW_VAL_HEX     0x01
#define FX_SHOW_VAL         0x02
#define FX_SHOW_UTIME       0x04
#define FX_SHOW_VAL2        0x08
#define FX_SHOW_UADDR2      0x10
#define FX_SHOW_VAL3        0x20

typedef struct _FUTEX_COMMAND {
    PCSZ Name;
    ULONG Show;
} FUTEX_COMMAND;

static const FUTEX_COMMAND FutexCommands[] = {
    { "FUTEX_WAIT",            FX_SHOW_VAL_HEX | FX_SHOW_UTIME },
    { "FUTEX_WAKE",            FX_SHOW_VAL },
    { "FUTEX_FD",              FX_SHOW_VAL },
    { "FUTEX_REQUEUE",         FX_SHOW_VAL | FX_SHOW_VAL2 | FX_SHOW_UADDR2 },
    { "FUTEX_CMP_REQUEUE",     FX_SHOW_VAL | FX_SHOW_VAL2 | FX_SHOW_UADDR2 |
                               FX_SHOW_VAL3 },
    { "FUTEX_WAKE_OP",         FX_SHOW_VAL | FX_SHOW_VAL2 | FX_SHOW_UADDR2 |
                               FX_SHOW_VAL3 },
    { "FUTEX_LOCK_PI",         FX_SHOW_UTIME },
    { "FUTEX_UNLOCK_PI",       0 },
    { "FUTEX_TRYLOCK_PI",      0 },
    { "FUTEX_WAIT_BITSET",     FX_SHOW_VAL_HEX | FX_SHOW_UTIME | FX_SHOW_VAL3 },
    { "FUTEX_WAKE_BITSET",     FX_SHOW_VAL | FX_SHOW_VAL3 },
    { "FUTEX_WAIT_REQUEUE_PI", FX_SHOW_VAL_HEX | FX_SHOW_UTIME |
                               FX_SHOW_UADDR2 | FX_SHOW_VAL3 },
    { "FUTEX_CMP_REQUEUE_PI",  FX_SHOW_VAL | FX_SHOW_VAL2 | FX_SHOW_UADDR2 |
                               FX_SHOW_VAL3 },
};

#define FUTEX_PRIVATE_FLAG      128ULL
#define FUTEX_CLOCK_REALTIME    256ULL

static
BOOL
PrintFutex(
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The futex plugin: the command by name with its flags, then the
    arguments that command uses.  A command past its table (FUTEX_LOCK_PI2
    and later) leaves the event to its print fmt.

--*/
{
    static const PCSZ Names[] = { "uaddr", "op", "val", "utime", "uaddr2",
                                  "val3" };
    ULONGLONG Values[6];
    ULONGLONG Command;
    const FUTEX_COMMAND *Entry;
    ULONG Index;

    for (Index = 0; Index < ARRAYSIZE(Names); Index++) {
        if (!GetFieldValue(Format->Special[FX_UADDR + Index], Names[Index],
                           Data, Size, &Values[Index], Text)) {
            return TRUE;
        }
    }

    Command = Values[FX_OP] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    if (Command >= ARRAYSIZE(FutexCommands)) {
        return TRUE;
    }
    Entry = &FutexCommands[Command];

    TraceTextAppendString(Text, "op=");
    TraceTextAppendString(Text, Entry->Name);
    if (Values[FX_OP] & FUTEX_PRIVATE_FLAG) {
        TraceTextAppendString(Text, "|FUTEX_PRIVATE_FLAG");
    }
    if (Values[FX_OP] & FUTEX_CLOCK_REALTIME) {
        TraceTextAppendString(Text, "|FUTEX_CLOCK_REALTIME");
    }

    AppendNumber(Text, " uaddr=0x%08llx", Values[FX_UADDR]);
    if (Entry->Show & FX_SHOW_VAL_HEX) {
        AppendNumber(Text, " val=0x%08llx", Values[FX_VAL]);
    }
    if (Entry->Show & FX_SHOW_VAL) {
        AppendNumber(Text, " val=%llu", Values[FX_VAL]);
    }
    if (Entry->Show & FX_SHOW_UTIME) {
        AppendNumber(Text, " utime=0x%08llx", Values[FX_UTIME]);
    }
    if (Entry->Show & FX_SHOW_VAL2) {
        AppendNumber(Text, " val2=%llu", Values[FX_UTIME]);
    }
    if (Entry->Show & FX_SHOW_UADDR2) {
        AppendNumber(Text, " uaddr2=0x%08llx", Values[FX_UADDR2]);
    }
    if (Entry->Show & FX_SHOW_VAL3) {
        AppendNumber(Text, " val3=0x%08llx", Values[FX_VAL3]);
    }
    return FALSE;
}

//
// The function tracer's events.
//

static
VOID
PrintFunctionName(
    PTRACE_EVENT_TABLE Table,
    ULONGLONG Address,
    PTRACE_TEXT Text
    )
{
    PCSZ Name;
    ULONG NameLength;
    ULONGLONG Start;

    if (TraceEventFindSymbol(Table, Address, &Name, &NameLength, &Start)) {
        TraceTextAppend(Text, Name, NameLength);
    } else {
        AppendNumber(Text, "0x%llx", Address);
    }
}

static
BOOL
PrintFunction(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The function plugin: "FUNC <-- PARENT", each named by kallsyms or
    printed as an address.  A missing field prints its complaint and '!'.

--*/
{
    ULONGLONG Ip;
    ULONGLONG Parent;

    if (!GetFieldValue(Format->Special[FN_IP], "ip", Data, Size, &Ip, Text) ||
        !GetFieldValue(Format->Special[FN_PARENT], "parent_ip", Data, Size,
                       &Parent, Text)) {
        TraceTextAppendChar(Text, '!');
        return TRUE;
    }

    PrintFunctionName(Table, Ip, Text);
    TraceTextAppendString(Text, " <-- ");
    PrintFunctionName(Table, Parent, Text);
    return FALSE;
}

static
BOOL
PrintFuncRepeats(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    ULONGLONG Timestamp,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The function plugin's func_repeats: the function, then how many calls
    and the time of the first, which is the record's time less the delta
    it stores, printed as trace-cmd report prints times (seconds and
    microseconds, rounded).

--*/
{
    ULONGLONG Count;
    ULONGLONG Top;
    ULONGLONG Bottom;
    ULONGLONG Micro;

    PrintFunction(Table, Format, Data, Size, Text);

    if (!GetFieldValue(Format->Special[FN_COUNT], "count", Data, Size,
                       &Count, Text) ||
        !GetFieldValue(Format->Special[FN_TOP_DELTA], "top_delta_ts", Data,
                       Size, &Top, Text) ||
        !GetFieldValue(Format->Special[FN_BOTTOM_DELTA], "bottom_delta_ts",
                       Data, Size, &Bottom, Text)) {
        TraceTextAppendChar(Text, '!');
        return TRUE;
    }

    AppendNumber(Text, " (count: %lld  last_ts: ", Count);
    Micro = (Timestamp - ((Top << 32) | Bottom) + 500) / 1000;
    AppendNumber(Text, "%5llu", Micro / 1000000);
    AppendNumber(Text, ".%06llu", Micro % 1000000);
    TraceTextAppendChar(Text, ')');
    return FALSE;
}

static
ULONGLONG
ReadLong(
    const BYTE *Data,
    ULONG Offset,
    ULONG Size,
    ULONG LongSize
    )
/*++

Routine Description:

    A long at Offset; bytes past the record read as zero.

--*/
{
    BYTE Bytes[8] = { 0 };
    ULONG Index;

    for (Index = 0; Index < LongSize && Offset + Index < Size; Index++) {
        Bytes[Index] = Data[Offset + Index];
    }
    return TraceEventReadNumber(Bytes, LongSize);
}

static
VOID
PrintKernelStack(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The function plugin's kernel_stack: a line per return address from
    the caller field to the end of the record, up to one whose low 32
    bits are all ones (ULONG_MAX ends the kernel's list).

--*/
{
    PCTRACE_EVENT_FIELD Caller = Format->Special[KS_CALLER];
    ULONG LongSize = Table->LongSize;
    ULONG Offset;

    if (Caller == NULL) {
        TraceTextAppendString(Text, "<CANT FIND FIELD caller>");
        return;
    }

    TraceTextAppendString(Text, "<stack trace >\n");
    for (Offset = Caller->Offset; Offset < Size; Offset += LongSize) {
        ULONGLONG Address = ReadLong(Data, Offset, Size, LongSize);
        PCSZ Name;
        ULONG NameLength;
        ULONGLONG Start;

        if ((LongSize == 8 && Address == ~0ULL) ||
            (ULONG)Address == 0xffffffffU) {
            break;
        }
        TraceTextAppendString(Text, "=> ");
        if (TraceEventFindSymbol(Table, Address, &Name, &NameLength,
                                 &Start)) {
            TraceTextAppend(Text, Name, NameLength);
            AppendNumber(Text, " (%llx)\n", Address);
        } else {
            AppendNumber(Text, "%llx\n", Address);
        }
    }
}

static
BOOL
PrintRawData(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    The function plugin's raw_data (trace_marker_raw): the id in hex, then
    every byte from buf to the end of the record.

--*/
{
    PCTRACE_EVENT_FIELD Buffer = Format->Special[RD_BUF];
    ULONGLONG Id;
    ULONG Offset;

    (VOID)Table;
    if (!GetFieldValue(Format->Special[RD_ID], "id", Data, Size, &Id, Text)) {
        TraceTextAppendChar(Text, '!');
        return TRUE;
    }
    AppendNumber(Text, "# %llx", Id);

    if (Buffer == NULL) {
        TraceTextAppendString(Text, "<CANT FIND FIELD buf>");
        return FALSE;
    }
    for (Offset = Buffer->Offset; Offset < Size; Offset++) {
        AppendNumber(Text, " %02x", Data[Offset]);
    }
    return FALSE;
}

VOID
TraceEventPluginRender(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    ULONGLONG Timestamp,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    Appends the text of a record whose format TraceEventPluginClassify
    gave a plugin kind.  When the plugin gives up (returns non-zero to
    libtraceevent), the print fmt's text follows what it wrote.

--*/
{
    BOOL PrintFmtToo = FALSE;

    switch (Format->Kind) {
    case TraceEventKindKmemCallSite:
        PrintFmtToo = PrintCallSite(Table, Format, Data, Size, Text);
        break;
    case TraceEventKindTlbFlush:
        PrintFmtToo = PrintTlbFlush(Format, Data, Size, Text);
        break;
    case TraceEventKindFutex:
        PrintFmtToo = PrintFutex(Format, Data, Size, Text);
        break;
    case TraceEventKindFunction:
        PrintFmtToo = PrintFunction(Table, Format, Data, Size, Text);
        break;
    case TraceEventKindFuncRepeats:
        PrintFmtToo = PrintFuncRepeats(Table, Format, Data, Size, Timestamp,
                                       Text);
        break;
    case TraceEventKindKernelStack:
        PrintKernelStack(Table, Format, Data, Size, Text);
        break;
    case TraceEventKindRawData:
        PrintFmtToo = PrintRawData(Table, Format, Data, Size, Text);
        break;
    case TraceEventKindBprint:
        TraceEventRenderBprint(Table, Format, Data, Size, Text);
        break;
    default:
        PrintFmtToo = TRUE;
        break;
    }

    if (PrintFmtToo) {
        TraceEventRender(Table, Format, Data, Size, Text);
    }
}
