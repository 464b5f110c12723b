/*++

Module Name:

    TraceEventImport.c

Abstract:

    This module implements the event sink of the event model (see
    TraceEvent.h): one decoded ring-buffer record at a time, routed into
    the stores of an import.

        exceptions:page_fault_user/kernel   page_fault (ip symbol from
                                            kallsyms, as %ps prints it)
        kvm:kvm_exit                        kvm_exit, reason as the print
                                            fmt's __print_symbolic names it
        kvm:kvm_entry                       completes the kvm_exit row, or
                                            ftrace_event when unpaired
        sched:sched_switch                  sched_switch
        sched:sched_process_exec            process, and ftrace_event
        everything else                     ftrace_event, with the text
                                            trace-cmd report prints

    The comm of an event is what trace-cmd report shows: "<idle>" for pid
    0, the saved cmdline of the pid, else the comm last learned from a
    sched_switch or sched_wakeup printed earlier, else "<...>".

    trace-cmd report prints a few events through the plugins libtraceevent
    loads by default rather than through their print fmt (sched_switch,
    sched_wakeup, kvm_exit, kvm_entry, kvm_emulate_insn, the nested
    vmexits, hrtimer_start, hrtimer_expire_entry, and those of
    TraceEventPlugins.c: kmem, tlb, futex, the function tracer's); their
    text here follows those plugins, so that `args` matches the report.  The kvm plugin names exit reasons from its own
    table (KvmExitReason.c); the `reason` column uses the print fmt's.

    The records of the dedicated stores are built by the shared builder
    (Readers/Decoders/Ftrace/FtraceRecord.c) from the record types' ftrace maps;
    this module is their binary field source: a field is read from the
    record by the event format's offset, a task state turned into the
    letters the sched_switch plugin prints, an address named from
    kallsyms, an exit reason named by the print fmt.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by the trace.dat
    reader and the live recorder (through TraceEventSinkRecord); calls
    TraceEvent*.c/TraceEventPrint*.c (fields, print fmt), TraceEventPlugins.c,
    FtraceRecord.c and the sinks of TraceImport.h.

--*/

#include "TraceEvent.h"
#include "Kernel/KvmExitReason.h"
#include "Readers/Decoders/Ftrace/FtraceRecord.h"

//
// Field slots of TRACE_EVENT_FORMAT.Special, by kind.
//

#define KE_REASON       0
#define KE_RIP          1
#define KE_VCPU         2
#define KE_ISA          3
#define KE_INFO1        4
#define KE_INFO2        5

#define KN_VCPU         0
#define KN_RIP          1

#define SW_PID          0
#define SW_COMM         1
#define SW_PRIO         2
#define SW_SUCCESS      3
#define SW_TARGET_CPU   4

#define EI_RIP          0
#define EI_CSBASE       1
#define EI_LEN          2
#define EI_FAILED       3
#define EI_INSN         4

static
VOID
AppendNumber(
    PTRACE_TEXT Text,
    PCSZ Conversion,
    ULONGLONG Value
    )
{
    TraceTextFormatNumber(Text, Conversion,
                          (ULONG)RtlStringLength(Conversion), -1, -1, Value);
}

static
BOOL
IsNumberField(
    PCTRACE_EVENT_FIELD Field
    )
{
    return Field != NULL && !(Field->Flags & TRACE_FIELD_ARRAY) &&
           (Field->Size == 1 || Field->Size == 2 || Field->Size == 4 ||
            Field->Size == 8);
}

static
ULONGLONG
FieldValue(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Value = 0;

    if (Field != NULL) {
        TraceEventFieldNumber(Field, Data, Size, &Value);
    }
    return Value;
}

RTL_STATUS
TraceEventSinkInitialize(
    PTRACE_EVENT_SINK Sink,
    PTRACE_IMPORT Import,
    PTRACE_EVENT_TABLE Table
    )
{
    RTL_STATUS Status;

    Sink->Import = Import;
    Sink->CachedPid = 0;
    Sink->Table = Table;
    Sink->Resolver = NULL;

    Sink->ArgsCacheBytes = (SIZE_T)ALIGN_UP(sizeof(TRACE_ARGS_CACHE_ENTRY) *
                                            TRACE_ARGS_CACHE_ENTRIES,
                                            RTL_PAGE_SIZE);
    Status = Import->Rtl->AllocatePages(Import->Rtl, Sink->ArgsCacheBytes,
                                        (PVOID *)&Sink->ArgsCache);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Import->Rtl, &Sink->Comms);
    }
    if (!RTL_SUCCESS(Status)) {
        Sink->ArgsCache = NULL;
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }

    Status = TraceImportIntern(Import, "<idle>", 6, &Sink->IdleCommId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, "<...>", 5, &Sink->UnknownCommId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Import, "unknown_event", 13,
                                   &Sink->UnknownEventNameId);
    }
    return Status;
}

VOID
TraceEventSinkRelease(
    PTRACE_EVENT_SINK Sink
    )
{
    TraceHashDestroy(&Sink->Comms);
    if (Sink->ArgsCache != NULL) {
        Sink->Import->Rtl->Unmap(Sink->Import->Rtl, Sink->ArgsCache,
                                 Sink->ArgsCacheBytes);
        Sink->ArgsCache = NULL;
    }
}

static
RTL_STATUS
RegisterCommId(
    PTRACE_EVENT_SINK Sink,
    LONG Pid,
    ULONG Id
    )
/*++

Routine Description:

    Maps Pid to the comm of string id Id unless it is 0 or already mapped
    (saved cmdlines and earlier registrations win, as in libtraceevent).

--*/
{
    ULONGLONG Key = (ULONGLONG)(ULONG)Pid + 1;
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    RTL_STATUS Status;

    if (Pid == 0 || TraceHashFind(&Sink->Comms, Key, &Cursor, &Value)) {
        return RTL_STATUS_OK;
    }

    Sink->CachedPid = 0;
    Status = TraceHashInsert(&Sink->Comms, Key, Id);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Sink->Import->Error, Status, 0, ~0ULL,
                           "%s: %s", Sink->Import->Path,
                           RtlStatusText(Status));
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
RegisterComm(
    PTRACE_EVENT_SINK Sink,
    LONG Pid,
    PCSZ Comm,
    ULONG Length
    )
/*++

Routine Description:

    RegisterCommId for a comm as text (saved cmdlines), interned only when
    Pid is new.

--*/
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    ULONG Id;
    RTL_STATUS Status;

    if (Pid == 0 || TraceHashFind(&Sink->Comms, (ULONGLONG)(ULONG)Pid + 1,
                                  &Cursor, &Value)) {
        return RTL_STATUS_OK;
    }

    Status = TraceImportIntern(Sink->Import, Comm, Length, &Id);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return RegisterCommId(Sink, Pid, Id);
}

RTL_STATUS
TraceEventSinkAddCmdlines(
    PTRACE_EVENT_SINK Sink,
    PCSZ Text,
    SIZE_T Length
    )
{
    PCSZ Cursor = Text;
    PCSZ End = Text + Length;
    RTL_STATUS Status;

    while (Cursor < End) {
        PCSZ Next = TextFindChar(Cursor, End, '\n');
        PCSZ Parse = Cursor;
        LONGLONG Pid;

        while (Parse < Next && (*Parse == ' ' || *Parse == '\t')) {
            Parse++;
        }
        Parse = TextParseSigned(Parse, Next, &Pid);
        if (Parse != NULL && Parse < Next &&
            (*Parse == ' ' || *Parse == '\t') &&
            Pid >= -0x80000000LL && Pid <= 0x7fffffffLL) {
            PCSZ Comm = Parse;

            while (Comm < Next && (*Comm == ' ' || *Comm == '\t')) {
                Comm++;
            }
            if (Comm < Next) {
                Status = RegisterComm(Sink, (LONG)Pid, Comm,
                                      (ULONG)(Next - Comm));
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }
        }

        Cursor = Next + 1;
    }

    return RTL_STATUS_OK;
}

static
ULONG
CommOf(
    PTRACE_EVENT_SINK Sink,
    ULONG Pid
    )
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;

    if (Pid == 0) {
        return Sink->IdleCommId;
    }
    if (Sink->CachedPid == Pid + 1) {
        return Sink->CachedCommId;
    }
    Value = Sink->UnknownCommId;
    TraceHashFind(&Sink->Comms, (ULONGLONG)Pid + 1, &Cursor, &Value);
    Sink->CachedPid = Pid + 1;
    Sink->CachedCommId = (ULONG)Value;
    return (ULONG)Value;
}

static
RTL_STATUS
ClassifyRecord(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format
    )
/*++

Routine Description:

    Finds the record type whose ftrace map takes the event and binds the
    map's fields to the format's; the event stays generic (RecordType
    NULL) if a field it needs is missing or not of the kind its conversion
    reads.

--*/
{
    PCTRACE_RECORD_TYPE Type;
    PCTRACE_FTRACE_MAP Map;
    PCTRACE_FTRACE_FIELD Field;
    PCTRACE_EVENT_FIELD Found;
    ULONG Index;
    BOOL IsEnd;

    Format->RecordType = NULL;
    Format->RecordEnd = FALSE;

    Type = TraceFtraceFindType(Format->System, Format->Name,
                               (ULONG)RtlStringLength(Format->Name), &IsEnd);
    if (Type == NULL) {
        return RTL_STATUS_OK;
    }
    if (IsEnd) {
        Format->RecordType = Type;
        Format->RecordEnd = TRUE;
        return RTL_STATUS_OK;
    }

    Map = Type->Ftrace;
    for (Index = 0; Index < Map->NumberOfFields; Index++) {
        Field = &Map->Fields[Index];
        Format->Mapped[Index] = NULL;
        if (Field->Field == NULL) {
            continue;
        }
        Found = TraceEventFindField(Format, Field->Field);
        Format->Mapped[Index] = Found;
        switch (Field->Conversion) {
        case TraceFtraceOptionalNumber:
            break;
        case TraceFtraceString:
            if (Found == NULL) {
                return RTL_STATUS_OK;
            }
            break;
        default:
            if (!IsNumberField(Found)) {
                return RTL_STATUS_OK;
            }
            break;
        }

        //
        // The exit reason as the print fmt names it: the value printed
        // after "reason ".
        //

        if (Field->Conversion == TraceFtraceExitReason &&
            !TraceEventFindPrintItems(Sink->Table, Format, Field->TextKey,
                                      &Format->ReasonItem,
                                      &Format->ReasonItemEnd)) {
            Format->ReasonItem = 0;
            Format->ReasonItemEnd = 0;
        }
    }

    Format->RecordType = Type;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Classify(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format
    )
/*++

Routine Description:

    Decides, on an event's first record, how its text is printed and which
    store it goes to (ClassifyRecord), and looks up the fields both need.
    An event that lacks the fields of its store is kept as a generic
    event.

--*/
{
    PCTRACE_EVENT_FIELD *Special = Format->Special;
    RTL_STATUS Status;
    ULONG Index;

    for (Index = 0; Index < ARRAYSIZE(Format->Special); Index++) {
        Special[Index] = NULL;
    }
    Format->Kind = TraceEventKindGeneric;

    Status = TraceImportIntern(Sink->Import, Format->Name,
                               (ULONG)RtlStringLength(Format->Name),
                               &Format->NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (TraceEventFormatIs(Format, "kvm", "kvm_exit")) {
        Special[KE_REASON] = TraceEventFindField(Format, "exit_reason");
        Special[KE_RIP] = TraceEventFindField(Format, "guest_rip");
        Special[KE_VCPU] = TraceEventFindField(Format, "vcpu_id");
        Special[KE_ISA] = TraceEventFindField(Format, "isa");
        Special[KE_INFO1] = TraceEventFindField(Format, "info1");
        Special[KE_INFO2] = TraceEventFindField(Format, "info2");
        if (IsNumberField(Special[KE_REASON]) &&
            IsNumberField(Special[KE_RIP])) {
            Format->Kind = TraceEventKindKvmExit;
        }

    } else if (TraceEventFormatIs(Format, "kvm", "kvm_entry")) {
        Special[KN_VCPU] = TraceEventFindField(Format, "vcpu_id");
        Special[KN_RIP] = TraceEventFindField(Format, "rip");
        Format->Kind = TraceEventKindKvmEntry;

    } else if (TraceEventFormatIs(Format, "sched", "sched_wakeup") ||
               TraceEventFormatIs(Format, "sched", "sched_wakeup_new")) {
        Special[SW_PID] = TraceEventFindField(Format, "pid");
        Special[SW_COMM] = TraceEventFindField(Format, "comm");
        Special[SW_PRIO] = TraceEventFindField(Format, "prio");
        Special[SW_SUCCESS] = TraceEventFindField(Format, "success");
        Special[SW_TARGET_CPU] = TraceEventFindField(Format, "target_cpu");
        if (IsNumberField(Special[SW_PID])) {
            Format->Kind = TraceEventKindSchedWakeup;
        }

    } else if (TraceEventFormatIs(Format, "kvm", "kvm_emulate_insn")) {
        Special[EI_RIP] = TraceEventFindField(Format, "rip");
        Special[EI_CSBASE] = TraceEventFindField(Format, "csbase");
        Special[EI_LEN] = TraceEventFindField(Format, "len");
        Special[EI_FAILED] = TraceEventFindField(Format, "failed");
        Special[EI_INSN] = TraceEventFindField(Format, "insn");
        if (IsNumberField(Special[EI_RIP]) &&
            IsNumberField(Special[EI_CSBASE]) &&
            IsNumberField(Special[EI_LEN]) &&
            IsNumberField(Special[EI_FAILED]) &&
            IsNumberField(TraceEventFindField(Format, "flags")) &&
            Special[EI_INSN] != NULL) {
            Format->Kind = TraceEventKindKvmEmulateInsn;
        }

    } else if (TraceEventFormatIs(Format, "kvm", "kvm_nested_vmexit")) {
        Special[0] = TraceEventFindField(Format, "rip");
        Special[1] = TraceEventFindField(Format, "exit_code");
        Special[2] = TraceEventFindField(Format, "isa");
        if (IsNumberField(Special[0]) && IsNumberField(Special[1])) {
            Format->Kind = TraceEventKindKvmNestedVmexit;
        }

    } else if (TraceEventFormatIs(Format, "timer", "hrtimer_start")) {
        Format->Kind = TraceEventKindHrtimerStart;

    } else if (TraceEventFormatIs(Format, "timer", "hrtimer_expire_entry")) {
        Format->Kind = TraceEventKindHrtimerExpireEntry;

    } else if (TraceEventFormatIs(Format, "kvm", "kvm_nested_vmexit_inject")) {
        Special[1] = TraceEventFindField(Format, "exit_code");
        Special[2] = TraceEventFindField(Format, "isa");
        if (IsNumberField(Special[1])) {
            Format->Kind = TraceEventKindKvmNestedVmexitInject;
        }

    } else {
        Format->Kind = TraceEventPluginClassify(Format);
    }

    return ClassifyRecord(Sink, Format);
}

//
// The plugins' texts.
//

static
VOID
PrintExitReason(
    PCTRACE_EVENT_FIELD ReasonField,
    PCTRACE_EVENT_FIELD IsaField,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    ULONGLONG Reason = FieldValue(ReasonField, Data, Size);
    ULONGLONG Isa = KVM_EXIT_ISA_VMX;
    PCSZ Name;

    if (IsaField != NULL) {
        TraceEventFieldNumber(IsaField, Data, Size, &Isa);
    }

    if (Isa != KVM_EXIT_ISA_VMX && Isa != KVM_EXIT_ISA_SVM) {
        TraceTextAppendString(Text, "reason UNKNOWN-ISA");
        return;
    }

    Name = KvmExitReasonName((ULONG)Isa, (ULONG)Reason, KvmExitNamesPlugin);
    if (Name != NULL) {
        TraceTextAppendString(Text, "reason ");
        TraceTextAppendString(Text, Name);
        return;
    }

    TraceTextAppendString(Text, "reason UNKNOWN (");
    AppendNumber(Text, "%llu", Reason);
    TraceTextAppendString(Text, ")");
}

static
PCTRACE_EVENT_FIELD
FindNonCommonField(
    PTRACE_EVENT_FORMAT Format,
    PCSZ Name
    )
{
    PCTRACE_EVENT_FIELD Field = TraceEventFindField(Format, Name);

    if (Field != NULL && (Field->Flags & TRACE_FIELD_COMMON)) {
        return NULL;
    }
    return Field;
}

static
BOOL
PrintNumField(
    PTRACE_EVENT_FORMAT Format,
    PCSZ Conversion,
    PCSZ Name,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text,
    BOOL Complain
    )
/*++

Routine Description:

    libtraceevent's tep_print_num_field: Conversion may carry literal
    text around one conversion (" info1 %llx").  A missing field prints a
    complaint when Complain is set; FALSE either way.

--*/
{
    PCTRACE_EVENT_FIELD Field = FindNonCommonField(Format, Name);
    PCSZ Percent = Conversion;
    PCSZ After;

    if (!IsNumberField(Field)) {
        if (Complain) {
            TraceTextAppendString(Text, "CAN'T FIND FIELD \"");
            TraceTextAppendString(Text, Name);
            TraceTextAppendString(Text, "\"");
        }
        return FALSE;
    }

    while (*Percent != '%') {
        Percent++;
    }
    After = Percent + 1;
    while (*After != '\0' && !(*After == 'u' || *After == 'x' ||
                               *After == 'd')) {
        After++;
    }
    TraceTextAppend(Text, Conversion, (SIZE_T)(Percent - Conversion));
    TraceTextFormatNumber(Text, Percent, (ULONG)(After + 1 - Percent), -1, -1,
                          FieldValue(Field, Data, Size));
    TraceTextAppendString(Text, After + 1);
    return TRUE;
}

static
VOID
PrintFuncField(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    PCSZ Prefix,
    PCSZ Name,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    libtraceevent's tep_print_func_field: "NAME/0xOFFSET" with the
    offset as it computes it (start minus address), or the address.

--*/
{
    PCTRACE_EVENT_FIELD Field = FindNonCommonField(Format, Name);
    ULONGLONG Value;
    PCSZ Symbol;
    ULONG Length;
    ULONGLONG Start;

    if (!IsNumberField(Field)) {
        return;
    }
    Value = FieldValue(Field, Data, Size);
    TraceTextAppendString(Text, Prefix);
    if (TraceEventFindSymbol(Sink->Table, Value, &Symbol, &Length, &Start)) {
        TraceTextAppend(Text, Symbol, Length);
        TraceTextAppendString(Text, "/0x");
        TraceTextAppendHex(Text, Start - Value);
    } else {
        TraceTextAppendString(Text, "0x");
        AppendNumber(Text, "%08llx", Value);
    }
}

static
VOID
PrintHrtimer(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    BOOL Start,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    TraceTextAppendString(Text, "hrtimer=");
    if (!PrintNumField(Format, "0x%llx", "timer", Data, Size, Text, FALSE)) {
        PrintNumField(Format, "0x%llx", "hrtimer", Data, Size, Text, TRUE);
    }
    if (Start) {
        PrintFuncField(Sink, Format, " function=", "function", Data, Size,
                       Text);
        TraceTextAppendString(Text, " expires=");
        PrintNumField(Format, "%llu", "expires", Data, Size, Text, TRUE);
        TraceTextAppendString(Text, " softexpires=");
        PrintNumField(Format, "%llu", "softexpires", Data, Size, Text, TRUE);
    } else {
        TraceTextAppendString(Text, " now=");
        PrintNumField(Format, "%llu", "now", Data, Size, Text, TRUE);
        PrintFuncField(Sink, Format, " function=", "function", Data, Size,
                       Text);
    }
}

static
VOID
PrintKvmEntry(
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    PrintNumField(Format, " vcpu %u", "vcpu_id", Data, Size, Text, TRUE);
    if (IsNumberField(Format->Special[KN_RIP])) {
        TraceTextAppendString(Text, " rip 0x");
        TraceTextAppendHex(Text,
                           FieldValue(Format->Special[KN_RIP], Data, Size));
    }
}

static
VOID
PrintKvmExit(
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    PCTRACE_EVENT_FIELD *Special = Format->Special;

    PrintExitReason(Special[KE_REASON], Special[KE_ISA], Data, Size, Text);
    TraceTextAppendString(Text, " rip 0x");
    TraceTextAppendHex(Text, FieldValue(Special[KE_RIP], Data, Size));
    if (IsNumberField(Special[KE_INFO1]) && IsNumberField(Special[KE_INFO2])) {
        TraceTextAppendString(Text, " info ");
        TraceTextAppendHex(Text,
                           FieldValue(Special[KE_INFO1], Data, Size));
        TraceTextAppendString(Text, " ");
        TraceTextAppendHex(Text,
                           FieldValue(Special[KE_INFO2], Data, Size));
    }
}

static
VOID
PrintKvmEmulateInsn(
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    PCTRACE_EVENT_FIELD *Special = Format->Special;
    PCTRACE_EVENT_FIELD Insn = Special[EI_INSN];
    ULONGLONG Length = FieldValue(Special[EI_LEN], Data, Size);
    ULONG Index;

    TraceTextAppendHex(Text, FieldValue(Special[EI_CSBASE], Data, Size));
    TraceTextAppendString(Text, ":");
    TraceTextAppendHex(Text, FieldValue(Special[EI_RIP], Data, Size));
    TraceTextAppendString(Text, ": ");

    //
    // Without a disassembler the plugin prints the instruction bytes.
    //

    if (Length > Insn->Size) {
        Length = Insn->Size;
    }
    if (Insn->Offset > Size || Length > Size - Insn->Offset) {
        Length = 0;
    }
    for (Index = 0; Index < Length; Index++) {
        BYTE Byte = Data[Insn->Offset + Index];

        if (Index != 0) {
            TraceTextAppendChar(Text, ' ');
        }
        TraceTextAppendChar(Text, "0123456789abcdef"[Byte >> 4]);
        TraceTextAppendChar(Text, "0123456789abcdef"[Byte & 0xf]);
    }
    if (FieldValue(Special[EI_FAILED], Data, Size) != 0) {
        TraceTextAppendString(Text, " FAIL");
    }
}

static
VOID
PrintNestedVmexit(
    PTRACE_EVENT_FORMAT Format,
    BOOL WithRip,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    if (WithRip) {
        TraceTextAppendString(Text, " rip ");
        TraceTextAppendHex(Text,
                           FieldValue(Format->Special[0], Data, Size));
    }
    PrintExitReason(Format->Special[1], Format->Special[2], Data, Size, Text);
    PrintNumField(Format, " info1 %llx", "exit_info1", Data, Size, Text,
                  TRUE);
    PrintNumField(Format, " info2 %llx", "exit_info2", Data, Size, Text,
                  TRUE);
    PrintNumField(Format, " int_info %llx", "exit_int_info", Data, Size, Text,
                  TRUE);
    PrintNumField(Format, " int_info_err %llx", "exit_int_info_err", Data,
                  Size, Text, TRUE);
}

static
VOID
AppendFieldString(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text,
    PCSZ *String,
    PULONG Length
    )
{
    TraceEventFieldString(Field, Data, Size, String, Length);
    TraceTextAppend(Text, *String, *Length);
}

static
RTL_STATUS
PrintSchedWakeup(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    PCTRACE_EVENT_FIELD *Special = Format->Special;
    ULONGLONG Pid = FieldValue(Special[SW_PID], Data, Size);
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Special[SW_COMM] != NULL) {
        PCSZ Comm;
        ULONG Length;

        AppendFieldString(Special[SW_COMM], Data, Size, Text, &Comm, &Length);
        Status = RegisterComm(Sink, (LONG)Pid, Comm, Length);
        TraceTextAppendChar(Text, ':');
    }
    TraceTextAppendDecimal(Text, Pid, TRUE);
    if (IsNumberField(Special[SW_PRIO])) {
        TraceTextAppendString(Text, " [");
        TraceTextAppendDecimal(Text, FieldValue(Special[SW_PRIO], Data, Size),
                               TRUE);
        TraceTextAppendString(Text, "]");
    }
    if (IsNumberField(Special[SW_SUCCESS])) {
        TraceTextAppendString(Text, " success=");
        TraceTextAppendDecimal(Text, FieldValue(Special[SW_SUCCESS], Data,
                                                Size), TRUE);
    }
    if (IsNumberField(Special[SW_TARGET_CPU])) {
        TraceTextAppendString(Text, " CPU:");
        AppendNumber(Text, "%03llu", FieldValue(Special[SW_TARGET_CPU], Data,
                                                Size));
    }
    return Status;
}

static
ULONG
StateLetters(
    ULONGLONG State,
    PCHAR Buffer
    )
/*++

Routine Description:

    prev_state as the sched_switch plugin writes it: a letter per bit of
    the low eight ("SDTtZXxW"), joined by '|', or R for none.

--*/
{
    static const CHAR States[] = "SDTtZXxW";
    ULONG Length = 0;
    ULONG Bit;

    for (Bit = 0; Bit < 8; Bit++) {
        if (!(State & (1ULL << Bit))) {
            continue;
        }
        if (Length != 0) {
            Buffer[Length++] = '|';
        }
        Buffer[Length++] = States[Bit];
    }
    if (Length == 0) {
        Buffer[Length++] = 'R';
    }
    return Length;
}

static inline
ULONGLONG
RecordHash(
    const BYTE *Data,
    ULONG Size
    )
/*++

Routine Description:

    A quick hash of a short record (a multiple of 4 bytes), for the text
    cache; entries are confirmed by comparing the bytes.

--*/
{
    ULONGLONG Hash = Size * 0x9e3779b97f4a7c15ULL;
    ULONG Offset;

    for (Offset = 0; Offset + 8 <= Size; Offset += 8) {
        ULONGLONG Word;

        __builtin_memcpy(&Word, Data + Offset, 8);
        Hash = (Hash ^ Word) * 0xff51afd7ed558ccdULL;
        Hash ^= Hash >> 29;
    }
    if (Offset < Size) {
        ULONG Word;

        __builtin_memcpy(&Word, Data + Offset, 4);
        Hash = (Hash ^ Word) * 0xc4ceb9fe1a85ec53ULL;
    }
    return Hash ^ (Hash >> 32);
}

static
RTL_STATUS
RenderArgs(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    PTRACE_EVENT_CONTEXT Event,
    const BYTE *Data,
    ULONG Size,
    PULONG Id,
    PULONG RawId
    )
/*++

Routine Description:

    The string id of an event's text (its `args`), as trace-cmd report
    prints it, and, if RawId is not NULL, of the record's bytes.

--*/
{
    PTRACE_IMPORT Import = Sink->Import;
    PTRACE_ARGS_CACHE_ENTRY Cached = NULL;
    TRACE_TEXT Text;
    PCSZ Start;
    PCSZ End;
    RTL_STATUS Status = RTL_STATUS_OK;

    //
    // The text depends only on the record's bytes (and the kallsyms and
    // printk tables, which do not change); a wakeup also teaches a comm,
    // func_repeats prints its time and bprint can fail for good, so those
    // are always printed.
    //

    if (Size <= TRACE_ARGS_CACHE_BYTES && Sink->ArgsCache != NULL &&
        Format->Kind != TraceEventKindSchedWakeup &&
        Format->Kind != TraceEventKindFuncRepeats &&
        Format->Kind != TraceEventKindBprint) {
        ULONGLONG Hash = RecordHash(Data, Size);

        Cached = &Sink->ArgsCache[Hash & (TRACE_ARGS_CACHE_ENTRIES - 1)];
        if (Cached->Size == Size &&
            Import->Rtl->CompareMemory(Cached->Record, Data, Size) == 0) {
            *Id = Cached->ArgsId;
            if (RawId == NULL) {
                return RTL_STATUS_OK;
            }
            if (Cached->RawId == TRACE_STRING_NULL) {
                Status = TraceImportIntern(Import, (PCSZ)Data, Size,
                                           &Cached->RawId);
            }
            *RawId = Cached->RawId;
            return Status;
        }
    }

    Text.Buffer = Sink->Scratch;
    Text.Length = 0;
    Text.Capacity = sizeof(Sink->Scratch) - 1;

    switch (Format->Kind) {
    case TraceEventKindKvmExit:
        PrintKvmExit(Format, Data, Size, &Text);
        break;
    case TraceEventKindKvmEntry:
        if (IsNumberField(Format->Special[KN_RIP])) {
            PrintKvmEntry(Format, Data, Size, &Text);
        } else {
            TraceEventRender(Sink->Table, Format, Data, Size, &Text);
        }
        break;
    case TraceEventKindSchedWakeup:
        Status = PrintSchedWakeup(Sink, Format, Data, Size, &Text);
        break;
    case TraceEventKindKvmEmulateInsn:
        PrintKvmEmulateInsn(Format, Data, Size, &Text);
        break;
    case TraceEventKindKvmNestedVmexit:
        PrintNestedVmexit(Format, TRUE, Data, Size, &Text);
        break;
    case TraceEventKindKvmNestedVmexitInject:
        PrintNestedVmexit(Format, FALSE, Data, Size, &Text);
        break;
    case TraceEventKindHrtimerStart:
        PrintHrtimer(Sink, Format, TRUE, Data, Size, &Text);
        break;
    case TraceEventKindHrtimerExpireEntry:
        PrintHrtimer(Sink, Format, FALSE, Data, Size, &Text);
        break;
    case TraceEventKindKmemCallSite:
    case TraceEventKindTlbFlush:
    case TraceEventKindFutex:
    case TraceEventKindFunction:
    case TraceEventKindFuncRepeats:
    case TraceEventKindKernelStack:
    case TraceEventKindRawData:
    case TraceEventKindBprint:
        TraceEventPluginRender(Sink->Table, Format, Data, Size,
                               (ULONGLONG)Event->Timestamp, &Text);
        break;
    default:
        TraceEventRender(Sink->Table, Format, Data, Size, &Text);
        break;
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // trace-cmd report drops one newline at the end of an event's line
    // (the one trace_marker adds); blanks around the text are not kept
    // (the text readers trim them too).
    //

    Start = Text.Buffer;
    End = Text.Buffer + Text.Length;
    if (End > Start && End[-1] == '\n') {
        End--;
    }
    while (Start < End && (*Start == ' ' || *Start == '\t')) {
        Start++;
    }
    End = TextTrimEnd(Start, End);

    Status = TraceImportIntern(Import, Start, (ULONG)(End - Start), Id);
    if (RTL_SUCCESS(Status) && RawId != NULL) {
        Status = TraceImportIntern(Import, (PCSZ)Data, Size, RawId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Cached != NULL && Size != 0) {
        Cached->Size = Size;
        Cached->ArgsId = *Id;
        Cached->RawId = RawId != NULL ? *RawId : TRACE_STRING_NULL;
        Import->Rtl->CopyMemory(Cached->Record, Data, Size);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ImportGeneric(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    PTRACE_EVENT_CONTEXT Event,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONG ArgsId;
    ULONG RawId;
    RTL_STATUS Status;

    Status = RenderArgs(Sink, Format, Event, Data, Size, &ArgsId, &RawId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportGenericEvent(Sink->Import, Event, Format->NameId,
                                   ArgsId, RawId);
}

//
// The binary field source (see FtraceRecord.h): one record of a format.
//

typedef struct _BINARY_FIELDS {
    TRACE_FIELD_SOURCE Source;
    PTRACE_EVENT_SINK Sink;
    PTRACE_EVENT_FORMAT Format;
    PTRACE_EVENT_CONTEXT Event;
    const BYTE *Data;
    ULONG Size;
    ULONG Padding;
} BINARY_FIELDS, *PBINARY_FIELDS;

static
VOID
ReadExitReason(
    PBINARY_FIELDS Fields,
    PTRACE_FIELD_VALUE Value
    )
/*++

Routine Description:

    The reason as the print fmt names it: the value printed after
    "reason ", up to its first blank; the number if it names none.

--*/
{
    PTRACE_EVENT_SINK Sink = Fields->Sink;
    PTRACE_EVENT_FORMAT Format = Fields->Format;
    TRACE_TEXT Text;
    ULONG Length;

    Text.Buffer = Sink->Scratch2;
    Text.Length = 0;
    Text.Capacity = sizeof(Sink->Scratch2) - 1;
    if (Format->ReasonItemEnd > Format->ReasonItem) {
        TraceEventRenderItems(Sink->Table, Format, Fields->Data, Fields->Size,
                              Format->ReasonItem, Format->ReasonItemEnd,
                              &Text);
    }
    Length = 0;
    while (Length < Text.Length && Text.Buffer[Length] != ' ') {
        Length++;
    }
    if (Length == 0) {
        Text.Length = 0;
        AppendNumber(&Text, "%u", (ULONG)Value->Number);
        Length = Text.Length;
    }
    Value->Text = Text.Buffer;
    Value->Length = Length;
}

static
BOOL
BinaryRead(
    PTRACE_FIELD_SOURCE Source,
    PCTRACE_FTRACE_MAP Map,
    ULONG Index,
    PTRACE_FIELD_VALUE Value
    )
{
    PBINARY_FIELDS Fields = (PBINARY_FIELDS)Source;
    PCTRACE_EVENT_FIELD Field = Fields->Format->Mapped[Index];
    ULONGLONG Start;

    switch (Map->Fields[Index].Conversion) {
    case TraceFtraceNumber:
        Value->Number = FieldValue(Field, Fields->Data, Fields->Size);
        return TRUE;

    case TraceFtraceOptionalNumber:
        if (!IsNumberField(Field)) {
            return FALSE;
        }
        Value->Number = FieldValue(Field, Fields->Data, Fields->Size);
        return TRUE;

    case TraceFtraceString:
        TraceEventFieldString(Field, Fields->Data, Fields->Size,
                              &Value->Text, &Value->Length);
        return TRUE;

    case TraceFtraceStateLetters:
        Value->Number = FieldValue(Field, Fields->Data, Fields->Size);
        Value->Text = Value->Buffer;
        Value->Length = StateLetters(Value->Number, Value->Buffer);
        return TRUE;

    case TraceFtraceSymbol:

        //
        // The ip is printed with %ps: the function, when kallsyms has one.
        //

        Value->Number = FieldValue(Field, Fields->Data, Fields->Size);
        if (!TraceEventFindSymbol(Fields->Sink->Table, Value->Number,
                                  &Value->Text, &Value->Length, &Start)) {
            Value->Text = NULL;
        }
        return TRUE;

    case TraceFtraceExitReason:
        Value->Number = FieldValue(Field, Fields->Data, Fields->Size);
        ReadExitReason(Fields, Value);
        return TRUE;

    default:
        return FALSE;
    }
}

static
RTL_STATUS
BinaryArgsId(
    PTRACE_FIELD_SOURCE Source,
    PULONG Id
    )
{
    PBINARY_FIELDS Fields = (PBINARY_FIELDS)Source;

    return RenderArgs(Fields->Sink, Fields->Format, Fields->Event,
                      Fields->Data, Fields->Size, Id, NULL);
}

static
RTL_STATUS
BinaryRawId(
    PTRACE_FIELD_SOURCE Source,
    PULONG Id
    )
{
    PBINARY_FIELDS Fields = (PBINARY_FIELDS)Source;

    return TraceImportIntern(Fields->Sink->Import, (PCSZ)Fields->Data,
                             Fields->Size, Id);
}

static
ULONG
BinaryModuleOf(
    PTRACE_FIELD_SOURCE Source,
    ULONG Pid,
    ULONGLONG Address,
    PULONGLONG Offset,
    PULONG Flags
    )
{
    PTRACE_EVENT_RESOLVER Resolver = ((PBINARY_FIELDS)Source)->Sink->Resolver;

    return Resolver->ModuleOf(Resolver->Context, Pid, Address, Offset,
                              Flags);
}

static
RTL_STATUS
BinaryLearnComm(
    PTRACE_FIELD_SOURCE Source,
    ULONG Tid,
    ULONG CommId
    )
{
    return RegisterCommId(((PBINARY_FIELDS)Source)->Sink, (LONG)Tid, CommId);
}

static
RTL_STATUS
ImportRecord(
    PTRACE_EVENT_SINK Sink,
    PTRACE_EVENT_FORMAT Format,
    PTRACE_EVENT_CONTEXT Event,
    const BYTE *Data,
    ULONG Size
    )
/*++

Routine Description:

    An event whose format has a record type: its end event pairs, any
    other builds the record; what neither takes is a generic event.

--*/
{
    BINARY_FIELDS Fields;
    BOOL Handled;
    RTL_STATUS Status;

    if (Format->RecordEnd) {
        ULONG RawId;

        Status = TraceImportIntern(Sink->Import, (PCSZ)Data, Size, &RawId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceFtraceEnd(Sink->Import, Format->RecordType, Event,
                                    RawId, &Handled);
        }
    } else {
        Fields.Source.Read = BinaryRead;
        Fields.Source.ArgsId = BinaryArgsId;
        Fields.Source.RawId = BinaryRawId;
        Fields.Source.ModuleOf = Sink->Resolver != NULL ? BinaryModuleOf :
                                                          NULL;
        Fields.Source.LearnComm = BinaryLearnComm;
        Fields.Sink = Sink;
        Fields.Format = Format;
        Fields.Event = Event;
        Fields.Data = Data;
        Fields.Size = Size;
        Status = TraceFtraceBuild(Sink->Import, Format->RecordType,
                                  &Fields.Source, Event, Format->NameId,
                                  &Handled);
    }

    if (RTL_SUCCESS(Status) && !Handled) {
        Status = ImportGeneric(Sink, Format, Event, Data, Size);
    }
    return Status;
}

RTL_STATUS
TraceEventSinkRecord(
    PTRACE_EVENT_SINK Sink,
    ULONG Cpu,
    ULONGLONG Timestamp,
    const BYTE *Data,
    ULONG Size,
    SIZE_T BytesDone,
    PCSZ *Reason
    )
{
    PTRACE_EVENT_TABLE Table = Sink->Table;
    PTRACE_IMPORT Import = Sink->Import;
    PTRACE_EVENT_FORMAT Format;
    TRACE_EVENT_CONTEXT Event;
    ULONG Id;
    RTL_STATUS Status;

    if (Size < Table->TypeOffset + Table->TypeSize ||
        Size < Table->PidOffset + Table->PidSize) {
        *Reason = "event record shorter than its common fields";
        return RTL_STATUS_CORRUPT;
    }

    Id = (ULONG)TraceEventReadNumber(Data + Table->TypeOffset,
                                     Table->TypeSize);
    Event.Timestamp = TraceImportAlignTs(Import, (LONGLONG)Timestamp);
    Event.Tid = (ULONG)TraceEventReadNumber(Data + Table->PidOffset,
                                            Table->PidSize);
    Event.Pid = TRACE_NULL_ULONG;
    Event.Cpu = Cpu;
    Event.CommId = TRACE_NULL_ULONG;
    if (Sink->Resolver != NULL && Event.Tid != 0) {

        //
        // The resolver's tasks (perf.data's COMM records) are all perf
        // knows of a thread: one it never named has no comm (perf script
        // prints ":TID"), whatever a sched_switch said of it.
        //

        Sink->Resolver->DescribeTask(Sink->Resolver->Context, Event.Tid,
                                     &Event.Pid, &Event.CommId);
    } else {
        Event.CommId = CommOf(Sink, Event.Tid);
    }
    Event.FlagsId = TRACE_NULL_ULONG;
    Event.Padding = 0;

    Format = TraceEventLookup(Table, Id);
    if (Format == NULL) {

        //
        // An id no format describes: kept, by number.
        //

        TRACE_TEXT Text;
        ULONG ArgsId;

        Text.Buffer = Sink->Scratch;
        Text.Length = 0;
        Text.Capacity = sizeof(Sink->Scratch) - 1;
        TraceTextAppendString(&Text, "id=");
        AppendNumber(&Text, "%u", Id);
        Status = TraceImportIntern(Import, Text.Buffer, Text.Length, &ArgsId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportGenericEvent(Import, &Event,
                                             Sink->UnknownEventNameId, ArgsId,
                                             TRACE_STRING_NULL);
        }
        goto End;
    }

    if (Format->Kind == TraceEventKindUnknown) {
        Status = TraceEventCompleteFormat(Table, Format, Reason);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = Classify(Sink, Format);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportEventFormat(Import, Format->System,
                                            Format->Name, Format->Id,
                                            Format->Source,
                                            Format->SourceLength);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    if (Format->RecordType != NULL) {
        Status = ImportRecord(Sink, Format, &Event, Data, Size);
    } else {
        Status = ImportGeneric(Sink, Format, &Event, Data, Size);
    }

End:
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportEventDone(Import, BytesDone);
}
