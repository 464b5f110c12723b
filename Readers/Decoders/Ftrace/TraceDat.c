/*++

Module Name:

    TraceDat.c

Abstract:

    This module reads trace-cmd's trace.dat, file format version 6 and 7
    (trace-cmd.dat.v6(5), trace-cmd.dat.v7(5)), uncompressed or with its
    sections and per-CPU data compressed with zstd.

        "\x17\x08\x44tracing" VERSION\0 ENDIAN LONGSIZE PAGESIZE
        v6: header_page, header_event, ftrace formats, event formats,
            kallsyms, printk formats, saved cmdlines, CPU count, options,
            "flyrecord" (offset, size per CPU), trace clock
        v7: COMPRESSION\0 VERSION\0, offset of the first options section;
            then sections (16-byte header: id, flags, string id, size),
            located by the options (HEADER_INFO, FTRACE_EVENTS,
            EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES, BUFFER).  A
            compressed section is one frame; compressed CPU data is a
            count of chunks, each one frame of whole pages.

    The event descriptions go to the event model (TraceEvent.h), whose
    sink stores each event.  The per-CPU buffers are merged in time order
    (ties to the earlier CPU in the file, as trace-cmd does) with one
    cursor per CPU: a page of the mapped file, or one decompressed chunk
    in a buffer of its size, so memory does not grow with the trace.

    Only the top instance's buffer is read (the first one if there is no
    top instance).  Errors name the file and the byte offset.

    This file holds the entry points and the merge; the rest of the
    reader is listed in TraceDatInternal.h.

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns detection, the
    import's order of steps and the merge of the CPUs by time.  Calls the
    other TraceDat*.c files, TimeMerge (Readers/Import), the event model
    (TraceEvent.h) and the import context (TraceImport.h).

--*/

#include "TraceDatInternal.h"
#include "Readers/Decoders/Decoders.h"

static
ULONGLONG
CorrectTime(
    PTRACE_DAT Dat,
    ULONGLONG Timestamp
    )
/*++

Routine Description:

    trace-cmd report's corrections: TSC to ns when the file says how, then
    the fixed offset.

--*/
{
    if (Dat->TscMult != 0) {
        unsigned __int128 Product = (unsigned __int128)Timestamp *
                                    Dat->TscMult;
        Timestamp = (ULONGLONG)(Product >> Dat->TscShift) +
                    (ULONGLONG)Dat->TscOffset;
    }
    return Timestamp + (ULONGLONG)Dat->TsOffset;
}

static
RTL_STATUS
MergeCpus(
    PTRACE_DAT Dat
    )
{
    PTRACE_IMPORT Import = Dat->Import;
    RTL_STATUS Status;
    ULONG Index;
    SIZE_T Bytes;
    PVOID Memory;

    //
    // Sources are the CPUs' indices in the file's list, so that equal
    // times go to the CPU listed first, as trace-cmd report does.  The
    // keys are the raw times, as before the corrections.
    //

    Bytes = TIME_MERGE_SIZE(Dat->CpuCount + 1);
    Status = TraceArenaAllocate(&Dat->Table.Arena, Bytes, &Memory);
    if (!RTL_SUCCESS(Status)) {
        return DatError(Dat, Status, 0, "cannot allocate the CPU merge");
    }
    TimeMergeInitialize(&Dat->Merge, Memory);

    for (Index = 0; Index < Dat->CpuCount; Index++) {
        Dat->Cpus[Index].Done = TRUE;
    }
    for (Index = 0; Index < Dat->CpuCount; Index++) {
        Status = DatOpenCpu(Dat, &Dat->Cpus[Index]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Dat->Cpus[Index].HasEvent) {
            TimeMergeInsert(&Dat->Merge, Index,
                            Dat->Cpus[Index].Event.Timestamp);
        }
    }
    DatUpdateLowestPosition(Dat);

    while (TimeMergeFirst(&Dat->Merge, &Index)) {
        PTRACE_DAT_CPU Cpu = &Dat->Cpus[Index];
        PCSZ Reason = NULL;

        Status = TraceEventSinkRecord(&Dat->Sink, Cpu->Cpu,
                                      CorrectTime(Dat, Cpu->Event.Timestamp),
                                      Cpu->Event.Data, Cpu->Event.Size,
                                      Dat->LowestPosition, &Reason);
        if (!RTL_SUCCESS(Status)) {
            if (Import->Error.Status != RTL_STATUS_OK || Reason == NULL) {
                return Status;
            }
            if (Dat->CpuDataCompressed) {
                return DatError(Dat, Status, Cpu->ChunkOffset,
                                "CPU %u, byte %llu of the decompressed "
                                "chunk: %s", Cpu->Cpu,
                                Cpu->PageOffset + Dat->Layout.DataOffset +
                                Cpu->Event.Offset, Reason);
            }
            return DatError(Dat, Status, Cpu->PageOffset +
                            Dat->Layout.DataOffset + Cpu->Event.Offset,
                            "CPU %u: %s", Cpu->Cpu, Reason);
        }

        Status = DatAdvance(Dat, Cpu);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Cpu->HasEvent) {
            TimeMergeUpdateFirst(&Dat->Merge, Cpu->Event.Timestamp);
        } else {
            TimeMergeRemoveFirst(&Dat->Merge);
        }
    }

    if (Dat->TruncatedStatus != RTL_STATUS_OK) {
        Import->Error = Dat->TruncatedError;
        return Dat->TruncatedStatus;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceDatImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports a trace.dat (a TRACE_FORMAT_IMPORT: TraceImport.h says what
    every one does).

--*/
{
    PRTL Rtl = Import->Rtl;
    PTRACE_DAT Dat = NULL;
    DAT_READER Reader;
    RTL_STATUS Status;
    BOOL SinkReady = FALSE;
    ULONG Index;

    if (Import->Buffer == NULL || Import->Length < TRACE_DAT_MAGIC_LENGTH) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: offset 0: not a trace-cmd trace.dat file "
                           "(too short)", Import->Path);
    }

    Status = DatAllocate(Import, &Dat);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    DatFileReader(Dat, 0, Dat->Length, &Reader);
    Status = DatParseInitialFormat(Dat, &Reader);
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    Status = TraceEventTableInitialize(Rtl, Dat->LongSize, &Dat->Table);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }
    Status = TraceEventSinkInitialize(&Dat->Sink, Import, &Dat->Table);
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }
    SinkReady = TRUE;

    if (Dat->Version == 6) {
        Status = DatParseVersion6(Dat, &Reader);
    } else {
        Status = DatParseVersion7(Dat, &Reader);
    }
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    if (!Dat->HaveLayout) {
        Status = DatError(Dat, RTL_STATUS_BAD_FORMAT, 0,
                          "no header_page: the ring-buffer pages are not "
                          "described");
        goto End;
    }
    if (Dat->Table.TypeSize == 0 && Dat->CpuCount != 0) {
        Status = DatError(Dat, RTL_STATUS_BAD_FORMAT, 0,
                          "no event format describes common_type and "
                          "common_pid");
        goto End;
    }

    //
    // The clock: the buffer's (v7) or the one after the CPU list (v6),
    // else the TRACECLOCK option.
    //

    if (Dat->Clock[0] == '\0') {
        for (Index = 0; Index < sizeof(Dat->Clock); Index++) {
            Dat->Clock[Index] = Dat->ClockOption[Index];
        }
    }
    if (Dat->Clock[0] != '\0') {
        Status = TraceImportSetClock(Import, Dat->Clock,
                                     (ULONG)RtlStringLength(Dat->Clock));
        if (!RTL_SUCCESS(Status)) {
            goto End;
        }
    }

    if (Dat->HaveBuffer) {
        Status = MergeCpus(Dat);
    }

End:
    DatReleaseSymbolJob(Dat);
    if (Dat->Prefetch.Buffer != NULL) {
        Rtl->Unmap(Rtl, Dat->Prefetch.Buffer, PREFETCH_BYTES);
        Dat->Prefetch.Buffer = NULL;
    }
    if (Dat->Cpus != NULL) {
        for (Index = 0; Index < Dat->CpuCount; Index++) {
            DatCloseCpu(Dat, &Dat->Cpus[Index]);
        }
    }
    if (SinkReady) {
        TraceEventSinkRelease(&Dat->Sink);
    }
    TraceEventTableRelease(&Dat->Table);
    Rtl->Unmap(Rtl, Dat, Dat->AllocationSize);
    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT TraceDatDecoder = {
    "trace-dat",
    "trace-cmd trace.dat, file format v6 or v7 (zstd or uncompressed)",
    0,
    TraceDatDetect,
    TraceDatImport
};
