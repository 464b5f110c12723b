/*++

Module Name:

    PerfDataSymbols.c

Abstract:

    Names for the frames of a perf.data file's call stacks, found as perf
    report finds them:

      - a kernel address by kallsyms: the recording's own (its tracing
        data), else this machine's /proc/kallsyms;
      - a user address by the function symbols of the mapped file
        (Readers/Symbols/ElfSymbols.h) at its offset in that file, the
        file read from this machine when the recording's build id for it
        (BUILD_ID feature, or an MMAP2 record's) matches the file's, or
        the recording gives none.

    Only with TRACE_IMPORT.HostSymbols (the command line sets it; fuzzing
    does not): without it frames keep their module and offset and no
    symbol.

Environment:

    Core: no C runtime; this machine's files through PRTL.  Called by
    PerfData.c and PerfDataRecords.c.

--*/

#include "PerfData.h"

#define PERF_RECORD_MISC_BUILD_ID_SIZE  (1 << 15)
#define MAX_KALLSYMS_BYTES              (256ULL << 20)

RTL_STATUS
PerfSymbolsInitialize(
    PPERF_DATA Perf
    )
{
    return TraceHashInitialize(Perf->Rtl, &Perf->ModuleIndex);
}

static
VOID
FindBuildId(
    PPERF_DATA Perf,
    PCSZ Path,
    PPERF_MODULE Module
    )
/*++

Routine Description:

    The build id the BUILD_ID feature records for Path: a list of
    {header, pid, build id (20 bytes, its size, 3 reserved), file name}.

--*/
{
    const BYTE *Data = Perf->BuildIds;
    ULONGLONG Position = 0;

    while (Data != NULL && Perf->BuildIdsSize - Position >= 36) {
        ULONG Misc = RtlReadUInt16(Data + Position + 4);
        ULONG Size = RtlReadUInt16(Data + Position + 6);
        const BYTE *Name = Data + Position + 36;
        ULONG Index;

        if (Size < 36 || Size > Perf->BuildIdsSize - Position) {
            return;
        }
        for (Index = 0; Index < Size - 36 && Path[Index] != '\0' &&
                        Name[Index] == (BYTE)Path[Index]; Index++) {
        }
        if (Index < Size - 36 && Path[Index] == '\0' && Name[Index] == 0) {
            ULONG Length = (Misc & PERF_RECORD_MISC_BUILD_ID_SIZE) != 0 ?
                           Data[Position + 32] : ELF_BUILD_ID_MAX;

            Module->BuildIdLength = Length < ELF_BUILD_ID_MAX ?
                                    Length : ELF_BUILD_ID_MAX;
            for (Index = 0; Index < Module->BuildIdLength; Index++) {
                Module->BuildId[Index] = Data[Position + 12 + Index];
            }
            return;
        }
        Position += Size;
    }
}

RTL_STATUS
PerfNoteModule(
    PPERF_DATA Perf,
    ULONG PathId,
    PCSZ Path,
    const BYTE *BuildId,
    ULONG BuildIdLength
    )
/*++

Routine Description:

    A file a mapping maps (its path NUL-terminated in the mapped input),
    known from then on by its string id; its symbols are read when a frame
    first needs them.

--*/
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    PPERF_MODULE Module;
    RTL_STATUS Status;
    ULONG Index;

    if (TraceHashFind(&Perf->ModuleIndex, (ULONGLONG)PathId + 1, &Cursor,
                      &Value)) {
        Module = &Perf->Modules[Value];
        if (Module->BuildIdLength == 0 && BuildIdLength != 0) {
            goto SetBuildId;
        }
        return RTL_STATUS_OK;
    }
    Status = RtlGrowPages(Perf->Rtl, (PVOID *)&Perf->Modules,
                          &Perf->ModuleBytes, (Perf->ModuleCount + 1) *
                          sizeof(PERF_MODULE), 64 * 1024);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Perf->Import->Error, Status, 0, 0, "%s: no "
                           "memory for the mapped files", Perf->Import->Path);
    }
    Module = &Perf->Modules[Perf->ModuleCount];
    Perf->Rtl->FillMemory(Module, sizeof(*Module), 0);
    Module->PathId = PathId;
    Module->Path = Path;
    Module->State = PERF_MODULE_NEW;
    Status = TraceHashInsert(&Perf->ModuleIndex, (ULONGLONG)PathId + 1,
                             Perf->ModuleCount);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Perf->Import->Error, Status, 0, 0, "%s: no "
                           "memory for the mapped files", Perf->Import->Path);
    }
    Perf->ModuleCount++;
    if (BuildIdLength == 0) {
        FindBuildId(Perf, Path, Module);
        return RTL_STATUS_OK;
    }

SetBuildId:
    Module->BuildIdLength = BuildIdLength < ELF_BUILD_ID_MAX ?
                            BuildIdLength : ELF_BUILD_ID_MAX;
    for (Index = 0; Index < Module->BuildIdLength; Index++) {
        Module->BuildId[Index] = BuildId[Index];
    }
    return RTL_STATUS_OK;
}

static
PTRACE_EVENT_TABLE
Kallsyms(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    The kallsyms to name kernel addresses by: the recording's, else (once,
    with HostSymbols) this machine's /proc/kallsyms, read whole (its size
    is not known before: procfs says 0).

--*/
{
    PRTL Rtl = Perf->Rtl;
    HANDLE Handle;
    PBYTE Text = NULL;
    SIZE_T Capacity = 0;
    SIZE_T Used = 0;
    RTL_STATUS Status;

    if (Perf->Tracing != NULL &&
        TracingDataSink(Perf->Tracing)->Table->SymbolTextLength != 0) {
        return TracingDataSink(Perf->Tracing)->Table;
    }
    if (Perf->HostKallsymsState != PERF_MODULE_NEW) {
        return Perf->HostKallsymsState == PERF_MODULE_LOADED ?
               &Perf->HostKallsyms : NULL;
    }
    Perf->HostKallsymsState = PERF_MODULE_FAILED;
    if (!Perf->Import->HostSymbols ||
        !RTL_SUCCESS(Rtl->OpenFile(Rtl, "/proc/kallsyms", RtlOpenReadOnly,
                                   &Handle))) {
        return NULL;
    }
    for (;;) {
        SIZE_T Read = 0;

        if (Used + 65536 > MAX_KALLSYMS_BYTES ||
            !RTL_SUCCESS(RtlGrowPages(Rtl, (PVOID *)&Text, &Capacity,
                                      Used + 65536, 4 << 20))) {
            break;
        }
        Status = Rtl->ReadFile(Rtl, Handle, Used, Text + Used,
                               Capacity - Used, &Read);
        if (!RTL_SUCCESS(Status) || Read == 0) {
            break;
        }
        Used += Read;
    }
    Rtl->CloseFile(Rtl, Handle);
    if (Text == NULL) {
        return NULL;
    }
    if (Used == 0 ||
        !RTL_SUCCESS(TraceEventTableInitialize(Rtl, 8, &Perf->HostKallsyms))) {
        Rtl->Unmap(Rtl, Text, Capacity);
        return NULL;
    }
    TraceEventTableSetSymbols(&Perf->HostKallsyms, (PCSZ)Text, Used, Text,
                              Capacity);
    Perf->HostKallsymsState = PERF_MODULE_LOADED;
    return &Perf->HostKallsyms;
}

RTL_STATUS
PerfSymbolize(
    PVOID Context,
    PFRAME_RECORD Frame
    )
/*++

Routine Description:

    Names a new frame (a TRACE_SYMBOLIZE for the stack table).  A file
    that cannot be read, is not ELF, or has another build id leaves its
    frames unnamed.

--*/
{
    PPERF_DATA Perf = Context;
    PCSZ Name;
    ULONG Length;
    ULONGLONG Start;
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    PPERF_MODULE Module;
    const ELF_SYMBOL *Symbol;

    if (Frame->Kernel) {
        PTRACE_EVENT_TABLE Table = Kallsyms(Perf);

        if (Table != NULL &&
            TraceEventFindSymbolLastListed(Table, Frame->Ip, &Name, &Length,
                                           &Start)) {
            return TraceImportIntern(Perf->Import, Name, Length,
                                     &Frame->SymbolId);
        }
        return RTL_STATUS_OK;
    }

    if (Frame->ModuleId == TRACE_STRING_NULL ||
        Frame->ModuleOffset == TRACE_NULL_ULONGLONG ||
        !TraceHashFind(&Perf->ModuleIndex, (ULONGLONG)Frame->ModuleId + 1,
                       &Cursor, &Value)) {
        return RTL_STATUS_OK;
    }
    Module = &Perf->Modules[Value];
    if (Module->State == PERF_MODULE_NEW) {
        Module->State = PERF_MODULE_FAILED;
        if (Perf->Import->HostSymbols &&
            RTL_SUCCESS(ElfSymbolsLoad(Perf->Rtl, Module->Path,
                                       Module->BuildIdLength != 0 ?
                                       Module->BuildId : NULL,
                                       Module->BuildIdLength,
                                       &Module->Elf))) {
            Module->State = PERF_MODULE_LOADED;
        }
    }
    if (Module->State != PERF_MODULE_LOADED) {
        return RTL_STATUS_OK;
    }
    Symbol = ElfSymbolsFind(&Module->Elf, Frame->ModuleOffset);
    if (Symbol == NULL) {
        return RTL_STATUS_OK;
    }
    if ((Symbol->Binding & ELF_SYMBOL_PLT) != 0) {
        CHAR Plt[256];
        ULONG PltLength = Symbol->Length < sizeof(Plt) - 5 ?
                          Symbol->Length : (ULONG)sizeof(Plt) - 5;

        Perf->Rtl->CopyMemory(Plt, Symbol->Name, PltLength);
        Perf->Rtl->CopyMemory(Plt + PltLength, "@plt", 4);
        return TraceImportIntern(Perf->Import, Plt, PltLength + 4,
                                 &Frame->SymbolId);
    }
    return TraceImportIntern(Perf->Import, Symbol->Name, Symbol->Length,
                             &Frame->SymbolId);
}

VOID
PerfReleaseSymbols(
    PPERF_DATA Perf
    )
{
    ULONG Index;

    for (Index = 0; Index < Perf->ModuleCount; Index++) {
        if (Perf->Modules[Index].State == PERF_MODULE_LOADED) {
            ElfSymbolsRelease(&Perf->Modules[Index].Elf);
        }
    }
    if (Perf->Modules != NULL) {
        Perf->Rtl->Unmap(Perf->Rtl, Perf->Modules, Perf->ModuleBytes);
        Perf->Modules = NULL;
    }
    if (Perf->HostKallsymsState == PERF_MODULE_LOADED) {
        TraceEventTableRelease(&Perf->HostKallsyms);
    }
    TraceHashDestroy(&Perf->ModuleIndex);
}
