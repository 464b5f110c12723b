/*++

Module Name:

    FtraceRecord.c

Abstract:

    This module implements the one builder of the dedicated ftrace stores
    (see FtraceRecord.h).  A record is filled in two passes over its
    type's ftrace map: every field is read first (nothing is interned for
    an event that turns out to lack one), then each column is written, the
    strings interned in the map's order.  What is not a field copy stays
    code here, one routine per record kind: the KVM exit/entry pairing and
    the exec's process row (through the sinks), the mappings of a fault's
    addresses and the comms a switch teaches (through the source, when it
    knows them).  A type without such code is appended as it is, its task
    columns filled from the event (TraceImportAppendEvent).

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by EventText.c
    (text path) and Decoders/Ftrace/TraceEventImport.c (binary path);
    calls the sinks (ImportSinks.c) and TraceImportIntern.

--*/

#include "FtraceRecord.h"

//
// The largest record a map fills (SOURCE_RECORD is not one).
//

#define FTRACE_RECORD_BYTES 88

C_ASSERT(sizeof(PAGE_FAULT_RECORD) <= FTRACE_RECORD_BYTES);
C_ASSERT(sizeof(KVM_EXIT_RECORD) <= FTRACE_RECORD_BYTES);
C_ASSERT(sizeof(SCHED_SWITCH_RECORD) <= FTRACE_RECORD_BYTES);
C_ASSERT(sizeof(PROCESS_RECORD) <= FTRACE_RECORD_BYTES);

static
BOOL
NameEquals(
    PCSZ Literal,
    PCSZ Name,
    ULONG Length
    )
{
    ULONG Index;

    for (Index = 0; Index < Length; Index++) {
        if (Literal[Index] != Name[Index]) {
            return FALSE;
        }
    }
    return Literal[Length] == '\0';
}

PCTRACE_RECORD_TYPE
TraceFtraceFindType(
    PCSZ System,
    PCSZ Name,
    ULONG NameLength,
    PBOOL IsEnd
    )
{
    ULONG Kind;
    ULONG Index;

    for (Kind = 0; Kind < TraceRecordKindMaximum; Kind++) {
        PCTRACE_FTRACE_MAP Map = TraceRecordTypes[Kind].Ftrace;

        if (Map == NULL ||
            (System != NULL && !RtlStringEqual(System, Map->System))) {
            continue;
        }
        for (Index = 0; Index < ARRAYSIZE(Map->Events) &&
                        Map->Events[Index] != NULL; Index++) {
            if (NameEquals(Map->Events[Index], Name, NameLength)) {
                *IsEnd = FALSE;
                return &TraceRecordTypes[Kind];
            }
        }
        if (Map->EndEvent != NULL &&
            NameEquals(Map->EndEvent, Name, NameLength)) {
            *IsEnd = TRUE;
            return &TraceRecordTypes[Kind];
        }
    }

    return NULL;
}

static
VOID
Store(
    PBYTE Record,
    ULONG Offset,
    ULONG Size,
    ULONGLONG Value
    )
{
    if (Size == 8) {
        *(PULONGLONG)(Record + Offset) = Value;
    } else {
        *(PULONG)(Record + Offset) = (ULONG)Value;
    }
}

static
ULONGLONG
NullOf(
    ULONG Size
    )
{
    return Size == 8 ? TRACE_NULL_ULONGLONG : TRACE_NULL_ULONG;
}

static
RTL_STATUS
StoreText(
    PTRACE_IMPORT Import,
    PBYTE Record,
    ULONG Offset,
    PCTRACE_FIELD_VALUE Value
    )
/*++

Routine Description:

    Interns Value's text into the string id at Offset (NULL without text).

--*/
{
    ULONG Id = TRACE_NULL_ULONG;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Value->Text != NULL) {
        Status = TraceImportIntern(Import, Value->Text, Value->Length, &Id);
    }
    *(PULONG)(Record + Offset) = Id;
    return Status;
}

static
RTL_STATUS
FillRecord(
    PTRACE_IMPORT Import,
    PCTRACE_FTRACE_MAP Map,
    PTRACE_FIELD_SOURCE Source,
    ULONG NameId,
    PBYTE Record,
    PBOOL Complete
    )
/*++

Routine Description:

    Fills the columns of Map from the event: reads every field (writing the
    numbers), then interns the texts in the map's order.  *Complete is
    FALSE, and nothing is interned, when a field that is not optional
    cannot be read.

--*/
{
    TRACE_FIELD_VALUE Values[TRACE_FTRACE_MAX_FIELDS];
    PCTRACE_FTRACE_FIELD Field;
    PTRACE_FIELD_VALUE Value;
    ULONG Index;
    ULONG Texts = 0;
    ULONG Id;
    RTL_STATUS Status;

    *Complete = FALSE;

    //
    // Numbers are written as they are read; what has text to intern waits
    // until every field has been read.
    //

    for (Index = 0; Index < Map->NumberOfFields; Index++) {
        Field = &Map->Fields[Index];
        Value = &Values[Index];

        switch (Field->Conversion) {
        case TraceFtraceEventName:
            Store(Record, Field->Offset, Field->Size, NameId);
            continue;
        case TraceFtraceNull:
            Store(Record, Field->Offset, Field->Size, NullOf(Field->Size));
            continue;
        case TraceFtraceEventArgs:
        case TraceFtraceEventRaw:
            Texts |= 1u << Index;
            continue;
        default:
            break;
        }

        if (!Source->Read(Source, Map, Index, Value)) {
            if (Field->Conversion != TraceFtraceOptionalNumber) {
                return RTL_STATUS_OK;
            }
            Value->Number = NullOf(Field->Size);
        }

        switch (Field->Conversion) {
        case TraceFtraceNumber:
        case TraceFtraceOptionalNumber:
            Store(Record, Field->Offset, Field->Size, Value->Number);
            break;
        case TraceFtraceSymbol:
            Store(Record, Field->Offset, Field->Size, Value->Number);
            Texts |= 1u << Index;
            break;
        case TraceFtraceExitReason:
            Store(Record, Field->Offset2, Field->Size2, Value->Number);
            Texts |= 1u << Index;
            break;
        default:
            Texts |= 1u << Index;
            break;
        }
    }

    for (Index = 0; Texts != 0; Index++, Texts >>= 1) {
        if (!(Texts & 1)) {
            continue;
        }
        Field = &Map->Fields[Index];
        if (Field->Conversion == TraceFtraceEventArgs) {
            Status = Source->ArgsId(Source, &Id);
            Store(Record, Field->Offset, Field->Size, Id);
        } else if (Field->Conversion == TraceFtraceEventRaw) {
            Id = TRACE_STRING_NULL;
            Status = Source->RawId != NULL ? Source->RawId(Source, &Id) :
                                             RTL_STATUS_OK;
            Store(Record, Field->Offset, Field->Size, Id);
        } else if (Field->Conversion == TraceFtraceSymbol) {
            Status = StoreText(Import, Record, Field->Offset2, &Values[Index]);
        } else {
            Status = StoreText(Import, Record, Field->Offset, &Values[Index]);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    *Complete = TRUE;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
BuildPageFault(
    PTRACE_IMPORT Import,
    PTRACE_FIELD_SOURCE Source,
    PTRACE_EVENT_CONTEXT Event,
    PPAGE_FAULT_RECORD Record
    )
/*++

Routine Description:

    A fault with a source that knows the process's mappings (the live
    recorder) gets its modules, module offsets and code/data from them,
    and waits for its count when the import classifies faults.

--*/
{
    ULONG Flags = 0;
    ULONG IpFlags;

    TraceImportPageFaultUnclassified(Record);
    if (Source->ModuleOf != NULL && Event->Pid != TRACE_NULL_ULONG) {
        Record->ModuleId = Source->ModuleOf(Source, Event->Pid,
                                            Record->Address,
                                            &Record->ModuleOffset, &Flags);
        Record->IpModuleId = Source->ModuleOf(Source, Event->Pid,
                                              Record->Ip,
                                              &Record->IpModuleOffset,
                                              &IpFlags);
        if (Flags & TRACE_MAPPING_KNOWN) {
            Record->Code = (Flags & TRACE_MAPPING_EXEC) ? 1 : 0;
        }
    }
    if (Import->ClassifyFaults) {
        return TraceImportPageFaultPending(Import, Event, Record, Flags);
    }
    return TraceImportPageFault(Import, Event, Record);
}

static
RTL_STATUS
BuildSchedSwitch(
    PTRACE_IMPORT Import,
    PTRACE_FIELD_SOURCE Source,
    PTRACE_EVENT_CONTEXT Event,
    PSCHED_SWITCH_RECORD Record
    )
/*++

Routine Description:

    A switch names two tasks with their comms: a source that tracks comms
    (the binary path names later events by them) learns both.

--*/
{
    RTL_STATUS Status;

    if (Source->LearnComm != NULL) {
        Status = Source->LearnComm(Source, Record->PrevPid,
                                   Record->PrevCommId);
        if (RTL_SUCCESS(Status)) {
            Status = Source->LearnComm(Source, Record->NextPid,
                                       Record->NextCommId);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    return TraceImportSchedSwitch(Import, Event, Record);
}

RTL_STATUS
TraceFtraceBuild(
    PTRACE_IMPORT Import,
    PCTRACE_RECORD_TYPE Type,
    PTRACE_FIELD_SOURCE Source,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    PBOOL Handled
    )
/*++

Routine Description:

    Builds the record of Type from an event its ftrace map takes, and hands
    it to the type's sink.

Arguments:

    Import - Supplies the import context.

    Type - Supplies the record type (TraceFtraceFindType).

    Source - Supplies the path's way of reading the event's fields.

    Event - Supplies the event's time and task.

    NameId - Supplies the event's name.

    Handled - Receives FALSE when the event is to be an ftrace_event row
        (a field is missing, or the map keeps such events there too).

Return Value:

    RTL_STATUS_OK, or a store error described in Import->Error.

--*/
{
    ULONGLONG Buffer[FTRACE_RECORD_BYTES / sizeof(ULONGLONG)];
    PBYTE Record = (PBYTE)Buffer;
    BOOL Complete;
    ULONG Index;
    RTL_STATUS Status;

    *Handled = FALSE;
    for (Index = 0; Index < ARRAYSIZE(Buffer); Index++) {
        Buffer[Index] = 0;
    }

    Status = FillRecord(Import, Type->Ftrace, Source, NameId, Record,
                        &Complete);
    if (!RTL_SUCCESS(Status) || !Complete) {
        return Status;
    }

    *Handled = !(Type->Ftrace->Flags & TRACE_FTRACE_ALSO_GENERIC);

    switch (Type->Kind) {
    case TraceRecordPageFault:
        return BuildPageFault(Import, Source, Event,
                              (PPAGE_FAULT_RECORD)Record);

    case TraceRecordKvmExit:
        return TraceImportKvmExit(Import, Event, (PKVM_EXIT_RECORD)Record);

    case TraceRecordSchedSwitch:
        return BuildSchedSwitch(Import, Source, Event,
                                (PSCHED_SWITCH_RECORD)Record);

    case TraceRecordProcess:

        //
        // An exec: the process row of the new program, named after the
        // task that ran it.
        //

        return TraceImportProcessExec(Import, Event->Timestamp,
                                      ((PPROCESS_RECORD)Record)->Pid,
                                      Event->CommId,
                                      ((PPROCESS_RECORD)Record)->FileNameId);

    default:

        //
        // A type without code of its own: its task columns from the event.
        //

        return TraceImportAppendEvent(Import, Type->Kind, Event, Record);
    }
}

RTL_STATUS
TraceFtraceEnd(
    PTRACE_IMPORT Import,
    PCTRACE_RECORD_TYPE Type,
    PTRACE_EVENT_CONTEXT Event,
    ULONG RawId,
    PBOOL Handled
    )
{
    *Handled = FALSE;

    if (Type->Kind == TraceRecordKvmExit) {
        return TraceImportKvmEntry(Import, Event, RawId, Handled);
    }
    return RTL_STATUS_OK;
}
