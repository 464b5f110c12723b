/*++

Module Name:

    UftraceRecords.c

Abstract:

    A task's record stream, TID.dat: 16-byte records,

        u64 time (ns)
        u64 type:2 more:1 magic:3 depth:10 addr:48

    type 0 entry, 1 exit, 2 lost, 3 event; magic 5.  With `more`, data
    follows: for an event a u16 length and the bytes, padded to 8; for an
    entry the arguments, for an exit the return value, laid out by the
    function's argument specs (UftraceSpecs.c), padded to 8.

    Also the text of that data as `uftrace replay` prints it, and the span
    args it becomes: the JSON uftrace's own Chrome export writes,
    {"arguments":"(1, \"x\")","retval":"3"}.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by Uftrace.c
    (the import), UftraceScan.c and UftracePerf.c; calls
    UftraceRecording.c, UftraceSymbols.c, UftraceSpecs.c, UftraceArgs.h
    and TraceImportIntern.

--*/

#include "UftraceRecording.h"

static
RTL_STATUS
RecordError(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    SIZE_T Offset,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                       "%s/%u.dat: offset %llu: %s", Import->Path, Task->Tid,
                       (ULONGLONG)Offset, Reason);
}

static
RTL_STATUS
ArgumentError(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PUFTRACE_SPEC Spec,
    SIZE_T Offset,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    CHAR Unknown[UFTRACE_NAME_SIZE];
    PCSZ Name = Spec->Name;
    ULONG Length = (ULONG)(Spec->NameEnd - Spec->Name);

    if (Name == NULL) {
        Length = (ULONG)RtlFormat(Unknown, sizeof(Unknown), "<%llx>",
                                  Task->Address);
        Name = Unknown;
    }

    return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                       "%s/%u.dat: offset %llu: %s of %.*s: %s",
                       Import->Path, Task->Tid, (ULONGLONG)Offset,
                       Task->Type == UFTRACE_EXIT ? "return value" :
                                                    "arguments",
                       (int)Length, Name, Reason);
}

static
BOOL
SpecHasKind(
    PUFTRACE_SPEC Spec,
    BOOL Retval
    )
{
    ULONG Index;

    for (Index = 0; Index < Spec->Count; Index++) {
        if ((Spec->Args[Index].Index == 0) == (Retval != FALSE)) {
            return TRUE;
        }
    }
    return FALSE;
}

RTL_STATUS
UftraceNextRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    Reads the task's next record into Task (Task->Done at the end of its
    file), and finds the data that follows a record with `more` set: an
    event's data says its size (a u16 before it); arguments and return
    values take what the function's specs say (see UftraceGetSpec), and must be
    followed by a record or the end of the file.

--*/
{
    const BYTE *Data = Task->Data.Data;
    SIZE_T Length = Task->Data.Length;
    SIZE_T Offset = Task->Offset;
    ULONGLONG Word;
    LONGLONG Time;
    RTL_STATUS Status;

    Task->Spec = NULL;
    Task->DataLength = 0;

    if (Offset == Length) {
        Task->Done = TRUE;
        return RTL_STATUS_OK;
    }
    if (Length - Offset < UFTRACE_RECORD_SIZE) {
        return RecordError(Reader, Task, Offset,
                           "truncated record (file cut off?)");
    }

    Word = Load64(Data + Offset + 8);
    if (((Word >> 3) & 7) != UFTRACE_RECORD_MAGIC) {
        return RecordError(Reader, Task, Offset,
                           "bad record magic (not a uftrace record)");
    }

    Task->RecordOffset = Offset;
    Time = (LONGLONG)Load64(Data + Offset);
    Task->Type = (ULONG)(Word & 3);
    Task->More = (BOOL)((Word >> 2) & 1);
    Task->Depth = (ULONG)((Word >> 6) & 0x3ff);
    Task->Address = Word >> 16;
    Offset += UFTRACE_RECORD_SIZE;
    Reader->BytesRead += UFTRACE_RECORD_SIZE;

    if (Time < 0) {
        return RecordError(Reader, Task, Task->RecordOffset,
                           "record time out of range");
    }

    //
    // A lost record has no time of its own (libmcount writes 0): it takes
    // the time of the record before it, so the merge keeps it in place.
    //

    if (Task->Type == UFTRACE_LOST && Time < Task->Time) {
        Time = Task->Time;
    }
    Task->Time = Time;

    if (Task->More) {
        SIZE_T Skip;

        if (Task->Type == UFTRACE_EVENT) {
            if (Length - Offset < 2) {
                return RecordError(Reader, Task, Offset,
                                   "truncated event data");
            }
            Skip = (SIZE_T)ALIGN_UP((SIZE_T)Data[Offset] +
                                    ((SIZE_T)Data[Offset + 1] << 8) + 2, 8);
            if (Length - Offset < Skip) {
                return RecordError(Reader, Task, Offset,
                                   "event data runs past the end of the "
                                   "file");
            }
        } else if (Task->Type == UFTRACE_LOST) {
            return RecordError(Reader, Task, Task->RecordOffset,
                               "lost record with data");
        } else {
            BOOL Retval = (Task->Type == UFTRACE_EXIT);
            PUFTRACE_SPEC Spec;

            Status = UftraceGetSpec(Reader, Task, &Spec);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            if (Reader->Is32Bit) {
                return ArgumentError(Reader, Task, Spec, Task->RecordOffset,
                                     "arguments of 32-bit recordings are "
                                     "not read");
            }
            if (!SpecHasKind(Spec, Retval)) {
                return ArgumentError(Reader, Task, Spec, Task->RecordOffset,
                                     "recorded, but no argument spec of "
                                     "the recording (info: argspec, "
                                     "retspec, auto-args) covers the "
                                     "function");
            }
            if (!UftraceArgDataSize(Spec->Args, Spec->Count, Retval,
                                    Data + Offset, Length - Offset, &Skip)) {
                return ArgumentError(Reader, Task, Spec, Offset,
                                     "data runs past the end of the file "
                                     "(file cut off?)");
            }
            if (Length - Offset - Skip >= UFTRACE_RECORD_SIZE &&
                ((Load64(Data + Offset + Skip + 8) >> 3) & 7) !=
                    UFTRACE_RECORD_MAGIC) {
                return ArgumentError(Reader, Task, Spec, Offset,
                                     "data does not fit the recording's "
                                     "argument specs (no record after it)");
            }
            Task->Spec = Spec;
            Task->DataOffset = Offset;
            Task->DataLength = Skip;
        }

        Offset += Skip;
        Reader->BytesRead += Skip;
    }

    Task->Offset = Offset;

    //
    // The file is read front to back: drop the mapping well behind, so
    // that the resident set does not grow with the trace.
    //

    if (Offset >= Task->Discarded + 2 * TRACE_DISCARD_BEHIND) {
        Reader->Rtl->DiscardMemory(Reader->Rtl, Data + Task->Discarded,
                                   Offset - TRACE_DISCARD_BEHIND -
                                   Task->Discarded);
        Task->Discarded = Offset - TRACE_DISCARD_BEHIND;
    }

    return RTL_STATUS_OK;
}

VOID
UftraceFillContext(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    PTRACE_EVENT_CONTEXT Context
    )
{
    ULONG Session = UftraceFindSession(Reader, Task, Time);

    Context->Timestamp = TraceImportAlignTs(Reader->Import, Time);
    Context->Tid = Task->Tid;
    Context->Pid = Task->Pid;
    Context->Cpu = TRACE_NULL_ULONG;
    Context->CommId = Reader->Sessions[Session].NameId;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;
}

//
// ---------------------------------------------------------------------------
// Argument text
// ---------------------------------------------------------------------------
//

typedef struct _UFTRACE_FORMAT_CONTEXT {
    PUFTRACE_READER Reader;
    ULONG Session;
    ULONG Module;               // the function's module + 1, or 0
} UFTRACE_FORMAT_CONTEXT, *PUFTRACE_FORMAT_CONTEXT;

static
BOOL
FormatSymbolAt(
    PVOID Context,
    ULONGLONG Address,
    PCSZ *Name,
    PCSZ *NameEnd
    )
{
    PUFTRACE_FORMAT_CONTEXT Format = (PUFTRACE_FORMAT_CONTEXT)Context;
    PUFTRACE_READER Reader = Format->Reader;
    PUFTRACE_MODULE Module;
    ULONG Number;

    Module = UftraceFindModule(Reader, NULL, Format->Session, Address,
                               &Number);
    return Module != NULL &&
           UftraceFindSymbolCovering(Module,
                                     UftraceModuleRelative(Reader, Module,
                                                           Address),
                                     Name, NameEnd);
}

static
BOOL
FormatFindEnum(
    PVOID Context,
    PCSZ Name,
    ULONG NameLength,
    PCSZ *Definition,
    PCSZ *DefinitionEnd
    )
/*++

Routine Description:

    An enum definition: the function's module's debug info first, then
    the recording's auto-args enums.

--*/
{
    PUFTRACE_FORMAT_CONTEXT Format = (PUFTRACE_FORMAT_CONTEXT)Context;
    PUFTRACE_READER Reader = Format->Reader;
    PUFTRACE_MODULE Module = &Reader->Modules[Format->Module - 1];
    ULONG Index;

    for (Index = 0; Index < Module->EnumCount; Index++) {
        PCSZ Start = (PCSZ)Module->Debug.Data;
        PCSZ Line = Start + Module->Enums[Index] + 3;
        PCSZ LineEnd = TextFindChar(Line, Start + Module->Debug.Length, '\n');

        if (UftraceFindEnumInList(Line, LineEnd, Name, NameLength,
                                  Definition, DefinitionEnd)) {
            return TRUE;
        }
    }

    return (Reader->Features & UFTRACE_FEAT_AUTO_ARGS) &&
           Reader->EnumAuto != NULL &&
           UftraceFindEnumInList(Reader->EnumAuto, Reader->EnumAutoEnd,
                                 Name, NameLength, Definition,
                                 DefinitionEnd);
}

RTL_STATUS
UftraceFormatRecordArgs(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PUFTRACE_TEXT Text
    )
/*++

Routine Description:

    The text `uftrace replay` prints for the current record's arguments
    ("(1, 2)") or return value ("3").

--*/
{
    PUFTRACE_SPEC Spec = Task->Spec;
    UFTRACE_FORMAT_CONTEXT Context;
    UFTRACE_FORMAT Format;
    RTL_STATUS Status;

    Text->Buffer = Reader->Text;
    Text->Capacity = sizeof(Reader->Text);
    Text->Length = 0;

    Context.Reader = Reader;
    Context.Session = UftraceFindSession(Reader, Task, Task->Time);
    Context.Module = Spec->Module;

    Format.Context = &Context;
    Format.SymbolAt = FormatSymbolAt;
    Format.FindEnum = NULL;
    if (Spec->Module != 0 && !Reader->Modules[Spec->Module - 1].Skip) {
        Status = UftraceLoadDebugInfo(Reader,
                                      &Reader->Modules[Spec->Module - 1]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Format.FindEnum = FormatFindEnum;
    }

    UftraceFormatArgs(&Format, Spec->Args, Spec->Count,
                      Task->Type == UFTRACE_EXIT,
                      Task->Data.Data + Task->DataOffset, Task->DataLength,
                      Text);
    return RTL_STATUS_OK;
}

RTL_STATUS
UftraceInternArgs(
    PUFTRACE_READER Reader,
    PCSZ Existing,
    ULONG ExistingLength,
    PCSZ Key,
    PUFTRACE_TEXT Value,
    PULONG Id
    )
/*++

Routine Description:

    Interns {"KEY":"VALUE"}, or Existing (such an object) with "KEY":
    "VALUE" added last.

--*/
{
    UFTRACE_TEXT Json;

    Json.Buffer = Reader->Json;
    Json.Capacity = sizeof(Reader->Json);
    Json.Length = 0;

    if (Existing != NULL && ExistingLength >= 2 &&
        Existing[ExistingLength - 1] == '}') {
        UftraceTextAppend(&Json, Existing, ExistingLength - 1);
        UftraceTextPut(&Json, ',');
    } else {
        UftraceTextPut(&Json, '{');
    }
    UftraceTextPut(&Json, '"');
    UftraceTextAppend(&Json, Key, RtlStringLength(Key));
    UftraceTextAppend(&Json, "\":\"", 3);
    UftraceJsonEscape(&Json, Value->Buffer, Value->Length);
    UftraceTextAppend(&Json, "\"}", 2);

    return TraceImportIntern(Reader->Import, Json.Buffer, Json.Length, Id);
}

RTL_STATUS
UftraceInternRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PCSZ Key,
    PULONG NameId,
    PULONG ArgsId
    )
/*++

Routine Description:

    Interns the name of the current record's function and, when the
    record has argument data, its args {"KEY":"TEXT"} (Key "arguments"
    for an entry, "retval" for an exit); *ArgsId is TRACE_NULL_ULONG when
    it has none.

--*/
{
    UFTRACE_TEXT Text;
    RTL_STATUS Status;

    *ArgsId = TRACE_NULL_ULONG;
    Status = UftraceSymbolName(Reader, Task, Task->Time, Task->Address,
                               NameId);
    if (RTL_SUCCESS(Status) && Task->Spec != NULL) {
        Status = UftraceFormatRecordArgs(Reader, Task, &Text);
        if (RTL_SUCCESS(Status)) {
            Status = UftraceInternArgs(Reader, NULL, 0, Key, &Text, ArgsId);
        }
    }
    return Status;
}
