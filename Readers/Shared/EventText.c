/*++

Module Name:

    EventText.c

Abstract:

    This module turns one event printed as text by the kernel's print
    format -- the same text in tracefs `trace`, `trace-cmd report` and
    `perf script` -- into a record: page faults (address=, ip=,
    error_code=), KVM exits (paired with the following entry), context
    switches (both the tracefs key=value form and the compact
    "A:1 [120] S ==> B:2 [120]" form libtraceevent's plugin prints),
    process execs, and every other event as a generic row with its fields
    as printed.  The text readers split their lines and call
    TraceImportTextEvent; none of them decodes fields itself.

    An event whose fields do not have the expected shape is kept as a
    generic row rather than dropped.

Environment:

    Core: no C runtime, no OS service.  Called by the text readers
    (Decoders/Ftrace/FtraceText.c, Decoders/Perf/PerfScript.c) through
    TraceImportTextEvent; calls the sinks (ImportSinks.c), interning
    (TraceImport.c) and TextParse.c.

--*/

#include "TraceImport.h"

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
RTL_STATUS
ImportSchedSwitch(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Args,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes sched_switch in either form:

        tracefs:   prev_comm=A prev_pid=1 prev_prio=120 prev_state=S ==>
                   next_comm=B next_pid=2 next_prio=120
        compact:   A:1 [120] S ==> B:2 [120]

--*/
{
    PCSZ Start = Args.Start;
    PCSZ End = Args.End;
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

    if (TextStartsWith(Start, End, "prev_comm=")) {
        PCSZ PrevPid = TextFindString(Start, Arrow, " prev_pid=", 10);
        PCSZ NextStart = Arrow + 5;
        PCSZ NextPid = TextFindString(NextStart, End, " next_pid=", 10);
        TEXT_SPAN Field;

        if (PrevPid == NULL || NextPid == NULL ||
            !TextStartsWith(NextStart, End, "next_comm=")) {
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
    return TraceImportSchedSwitch(Import, Event, &Record);
}

static
RTL_STATUS
ImportPageFault(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Args,
    ULONG NameId,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes "address=0x... ip=0x... error_code=0x...".  Kernel faults may
    print the ip as a symbol ("ip=__put_user_4"), kept in ip_sym.

--*/
{
    PCSZ Start = Args.Start;
    PCSZ End = Args.End;
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
        ErrorCode > 0xfffffffe ||
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

    return TraceImportPageFault(Import, Event, &Record);
}

static
RTL_STATUS
ImportKvmExit(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Args,
    ULONG ArgsId,
    PBOOL Handled
    )
/*++

Routine Description:

    Decodes "[vcpu N ]reason NAME rip 0x... ..." (the reason ends at the
    next space).  The numeric exit code is kept when the text has one: a
    reason the kernel could not name is printed as a number ("0x3c"), and
    libtraceevent's kvm plugin prints "reason UNKNOWN (60)".

--*/
{
    PCSZ Start = Args.Start;
    PCSZ End = Args.End;
    TEXT_SPAN Reason;
    ULONGLONG Rip = TRACE_NULL_ULONGLONG;
    ULONGLONG Vcpu;
    ULONGLONG Code;
    ULONG VcpuId = TRACE_NULL_ULONG;
    ULONG ExitCode = TRACE_NULL_ULONG;
    ULONG ReasonId;
    RTL_STATUS Status;
    KVM_EXIT_RECORD Record;

    *Handled = FALSE;

    if (!TextFindField(Start, End, "reason ", &Reason) ||
        Reason.Start == Reason.End) {
        return RTL_STATUS_OK;
    }

    if (TextParseUnsigned(Reason.Start, Reason.End, FALSE, &Code) ==
            Reason.End && Code < 0xffffffff) {
        ExitCode = (ULONG)Code;
    } else if (Reason.End + 2 < End && Reason.End[1] == '(') {
        PCSZ Close = TextParseUnsigned(Reason.End + 2, End, FALSE, &Code);
        if (Close != NULL && Close < End && *Close == ')' &&
            Code < 0xffffffff) {
            ExitCode = (ULONG)Code;
        }
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
    Record.ExitCode = ExitCode;
    Record.Tsc = TRACE_NULL_ULONGLONG;

    return TraceImportKvmExit(Import, Event, &Record);
}

static
RTL_STATUS
ImportProcessExec(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Args
    )
{
    PCSZ Start = Args.Start;
    PCSZ End = Args.End;
    PCSZ PidField = TextFindString(Start, End, " pid=", 5);
    ULONGLONG Pid;
    ULONG FileNameId;
    RTL_STATUS Status;

    if (!TextStartsWith(Start, End, "filename=") || PidField == NULL ||
        TextParseUnsigned(PidField + 5, End, FALSE, &Pid) == NULL ||
        Pid > 0xfffffffe) {
        return RTL_STATUS_OK;
    }

    Status = TraceImportIntern(Import, Start + 9,
                               (ULONG)(PidField - (Start + 9)), &FileNameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportProcessExec(Import, Event->Timestamp, (ULONG)Pid,
                                  Event->CommId, FileNameId);
}

RTL_STATUS
TraceImportTextEvent(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    TEXT_SPAN Name,
    TEXT_SPAN Args
    )
/*++

Routine Description:

    Records one text event in the store its name calls for.

Arguments:

    Import - Supplies the import context.

    Event - Supplies the event's time and task (CommId and FlagsId set).

    Name - Supplies the bare event name ("kvm_exit", not "kvm:kvm_exit").

    Args - Supplies the fields as printed, trimmed.

Return Value:

    RTL_STATUS_OK, or a store error described in Import->Error.

--*/
{
    ULONG NameId;
    ULONG ArgsId;
    BOOL Handled = FALSE;
    RTL_STATUS Status;

    Status = TraceImportIntern(Import, Name.Start, TEXT_SPAN_LENGTH(Name),
                               &NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (TextSpanEquals(Name, "page_fault_user") ||
        TextSpanEquals(Name, "page_fault_kernel")) {
        Status = ImportPageFault(Import, Event, Args, NameId, &Handled);
    } else if (TextSpanEquals(Name, "sched_switch")) {
        Status = ImportSchedSwitch(Import, Event, Args, &Handled);
    } else if (TextSpanEquals(Name, "kvm_entry")) {
        Status = TraceImportKvmEntry(Import, Event, &Handled);
    } else if (TextSpanEquals(Name, "sched_process_exec")) {
        Status = ImportProcessExec(Import, Event, Args);
    }

    if (!RTL_SUCCESS(Status) || Handled) {
        return Status;
    }

    Status = TraceImportIntern(Import, Args.Start, TEXT_SPAN_LENGTH(Args),
                               &ArgsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (TextSpanEquals(Name, "kvm_exit")) {
        Status = ImportKvmExit(Import, Event, Args, ArgsId, &Handled);
        if (!RTL_SUCCESS(Status) || Handled) {
            return Status;
        }
    }

    return TraceImportGenericEvent(Import, Event, NameId, ArgsId);
}
