/*++

Module Name:

    UftracePerf.c

Abstract:

    perf-cpuN.dat, the perf_event records of the recording, one file per
    CPU: its context switches (PERF_RECORD_SWITCH) become spans.  A task
    switched out inside a user call spends the time off the CPU in a
    "linux:schedule" span in that call, or "linux:schedule (pre-empted)"
    when it was still runnable, as uftrace report names them; switches
    outside calls are not shown.  Other records are skipped by their
    size.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by Uftrace.c
    (mapping, the merge) and UftraceScan.c (the end of the trace); calls
    UftraceRecording.c, UftraceRecords.c and TraceImport.h's spans.

--*/

#include "UftraceRecording.h"

//
// perf_event records in perf-cpuN.dat (context switches only).
//

#define PERF_HEADER_SIZE        8
#define PERF_RECORD_SWITCH      14
#define PERF_MISC_SWITCH_OUT    0x2000
#define PERF_MISC_SWITCH_PREEMPT 0x4000     // switched out while runnable

typedef struct _PERF_LISTING {
    PUFTRACE_READER Reader;
    ULONG Count;
    ULONG Capacity;
} PERF_LISTING, *PPERF_LISTING;

static
BOOL
ListPerfFile(
    PVOID Context,
    PCSZ Name
    )
/*++

Routine Description:

    Directory callback: counts "perf-cpuN.dat" files, or (with room)
    records their N.

--*/
{
    PPERF_LISTING Listing = (PPERF_LISTING)Context;
    PCSZ End = Name + RtlStringLength(Name);
    ULONGLONG Cpu;
    PCSZ After;

    if (!TextStartsWith(Name, End, "perf-cpu")) {
        return TRUE;
    }
    After = TextParseUnsigned(Name + 8, End, FALSE, &Cpu);
    if (After == NULL || !TextEquals(After, (SIZE_T)(End - After), ".dat") ||
        Cpu >= 0x10000) {
        return TRUE;
    }

    if (Listing->Count < Listing->Capacity) {
        Listing->Reader->Perf[Listing->Count].Cpu = (ULONG)Cpu;
    }
    Listing->Count++;
    return TRUE;
}

RTL_STATUS
UftraceMapPerfFiles(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    PERF_LISTING Listing;
    RTL_STATUS Status;
    PVOID Address;
    ULONG Number;
    ULONG Other;

    Listing.Reader = Reader;
    Listing.Count = 0;
    Listing.Capacity = 0;
    Status = Rtl->EnumerateDirectory(Rtl, Import->Path, ListPerfFile,
                                     &Listing);
    if (!RTL_SUCCESS(Status) || Listing.Count == 0) {
        return RTL_STATUS_OK;       // no perf data is fine
    }

    Reader->PerfSize = (SIZE_T)ALIGN_UP(Listing.Count * sizeof(UFTRACE_PERF),
                                        RTL_PAGE_SIZE);
    Status = Rtl->AllocatePages(Rtl, Reader->PerfSize, &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Perf = (PUFTRACE_PERF)Address;

    Listing.Capacity = Listing.Count;
    Listing.Count = 0;
    Status = Rtl->EnumerateDirectory(Rtl, Import->Path, ListPerfFile,
                                     &Listing);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    if (Listing.Count > Listing.Capacity) {
        Listing.Count = Listing.Capacity;
    }

    //
    // By CPU number (the order the files have no bearing on the result
    // but ties of equal times).
    //

    for (Number = 1; Number < Listing.Count; Number++) {
        for (Other = Number; Other > 0 &&
             Reader->Perf[Other - 1].Cpu > Reader->Perf[Other].Cpu; Other--) {
            ULONG Swap = Reader->Perf[Other].Cpu;

            Reader->Perf[Other].Cpu = Reader->Perf[Other - 1].Cpu;
            Reader->Perf[Other - 1].Cpu = Swap;
        }
    }

    for (Number = 0; Number < Listing.Count; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];
        CHAR Name[32];
        ULONG NameLength;

        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "perf-cpu%u.dat",
                                      Perf->Cpu);
        Status = UftraceMapFile(Reader, Name, NameLength, &Perf->Data);
        if (Status == RTL_STATUS_NOT_FOUND) {
            Perf->Done = TRUE;
            continue;
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Import->Length += Perf->Data.Length;
        Reader->PerfCount = Number + 1;
    }
    Reader->PerfCount = Listing.Count;

    return RTL_STATUS_OK;
}

RTL_STATUS
UftraceNextPerfRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_PERF Perf
    )
/*++

Routine Description:

    Reads the file's next context switch (PERF_RECORD_SWITCH, whose
    sample_id is pid, tid, time); other records are skipped by their
    size.  Perf->Done at the end.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Data = Perf->Data.Data;
    SIZE_T Length = Perf->Data.Length;

    while (!Perf->Done) {
        SIZE_T Offset = Perf->Offset;
        ULONG Type;
        ULONG Misc;
        ULONG Size;
        LONGLONG Time;

        if (Offset == Length || Data == NULL) {
            Perf->Done = TRUE;
            break;
        }
        if (Length - Offset < PERF_HEADER_SIZE) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: truncated "
                               "perf record (file cut off?)", Import->Path,
                               Perf->Cpu, (ULONGLONG)Offset);
        }
        Type = (ULONG)Data[Offset] | ((ULONG)Data[Offset + 1] << 8) |
               ((ULONG)Data[Offset + 2] << 16) |
               ((ULONG)Data[Offset + 3] << 24);
        Misc = (ULONG)Data[Offset + 4] | ((ULONG)Data[Offset + 5] << 8);
        Size = (ULONG)Data[Offset + 6] | ((ULONG)Data[Offset + 7] << 8);
        if (Size < PERF_HEADER_SIZE || Length - Offset < Size) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: perf record "
                               "of %u bytes does not fit the file",
                               Import->Path, Perf->Cpu, (ULONGLONG)Offset,
                               Size);
        }
        Perf->Offset = Offset + Size;
        Reader->BytesRead += Size;

        if (Perf->Offset >= Perf->Discarded + 2 * TRACE_DISCARD_BEHIND) {
            Reader->Rtl->DiscardMemory(Reader->Rtl, Data + Perf->Discarded,
                                       Perf->Offset - TRACE_DISCARD_BEHIND -
                                       Perf->Discarded);
            Perf->Discarded = Perf->Offset - TRACE_DISCARD_BEHIND;
        }

        if (Type != PERF_RECORD_SWITCH || Size < PERF_HEADER_SIZE + 16) {
            continue;
        }
        Time = (LONGLONG)Load64(Data + Offset + 16);
        if (Time < 0) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: time out of "
                               "range", Import->Path, Perf->Cpu,
                               (ULONGLONG)Offset);
        }
        Perf->Tid = (ULONG)Data[Offset + 12] |
                    ((ULONG)Data[Offset + 13] << 8) |
                    ((ULONG)Data[Offset + 14] << 16) |
                    ((ULONG)Data[Offset + 15] << 24);
        Perf->Time = Time;
        Perf->Out = (Misc & PERF_MISC_SWITCH_OUT) != 0;
        Perf->Preempted = (Misc & PERF_MISC_SWITCH_PREEMPT) != 0;
        return RTL_STATUS_OK;
    }

    return RTL_STATUS_OK;
}

static
PUFTRACE_TASK
PerfTask(
    PUFTRACE_READER Reader,
    ULONG Tid
    )
/*++

Routine Description:

    The recorded task of a context switch (uftrace ignores the others, and
    the tasks without records).

--*/
{
    ULONGLONG Probe = 0;
    ULONGLONG Index;

    if (!TraceHashFind(&Reader->TaskIndex, (ULONGLONG)Tid + 1, &Probe,
                       &Index) ||
        Reader->Tasks[Index].Data.Data == NULL) {
        return NULL;
    }
    return &Reader->Tasks[Index];
}

VOID
UftraceScanPerfEnd(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Extends the scan's last time to the context switches after it, which
    become (or end) linux:schedule spans, so that calls closed at the end
    of the trace end after everything inside them.  The files are read
    again from the start by the import.

--*/
{
    ULONG Number;

    for (Number = 0; Number < Reader->PerfCount; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];

        while (RTL_SUCCESS(UftraceNextPerfRecord(Reader, Perf)) &&
               !Perf->Done) {
            if (Perf->Time > Reader->Import->Spans.ScanLastTs &&
                PerfTask(Reader, Perf->Tid) != NULL) {
                TraceImportSpanScanTime(Reader->Import, Perf->Time);
            }
        }
        Perf->Offset = 0;
        Perf->Discarded = 0;
        Perf->Done = (Perf->Data.Data == NULL);
    }
}

RTL_STATUS
UftraceImportSwitch(
    PUFTRACE_READER Reader,
    PUFTRACE_PERF Perf
    )
/*++

Routine Description:

    A context switch: switched out inside a user call, the task's time off
    the CPU is a "linux:schedule" span in that call, or "linux:schedule
    (pre-empted)" when it was still runnable, as uftrace report names them
    (and subtracts them from the call's self time); switches outside calls
    are not shown.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_TASK Task = PerfTask(Reader, Perf->Tid);
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;

    if (Task == NULL) {
        return RTL_STATUS_OK;
    }

    Import->EventOffset = Perf->Offset;
    UftraceFillContext(Reader, Task, Perf->Time, &Context);

    if (Perf->Out) {
        if (Task->UserDepth == 0) {
            return RTL_STATUS_OK;
        }
        Status = TraceImportSpanBegin(Import, &Context,
                                      Perf->Preempted ?
                                          Reader->PreemptedNameId :
                                          Reader->ScheduleNameId,
                                      TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        Task->SchedDepth++;
    } else {
        if (Task->SchedDepth == 0) {
            return RTL_STATUS_OK;
        }
        Status = TraceImportSpanEnd(Import, &Context, Reader->ScheduleNameId,
                                    TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        Task->SchedDepth--;
    }

    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)Reader->BytesRead);
    }
    return Status;
}
