/*++

Module Name:

    PerfDataRecords.c

Abstract:

    The records of a perf.data file's data section (or of a pipe-mode
    stream after its 16-byte header), in the order perf itself delivers
    them (util/ordered-events.c): records with a time wait; at each
    FINISHED_ROUND those up to the largest time seen before the previous
    round are delivered, sorted by time (equal times in file order); a
    record without a time (time 0: perf's synthesized side band, or an
    attr without sample_id_all) is delivered at once.  At most
    PERF_HELD_MAX records wait: then the older half of the waiting time
    span is delivered, as perf does at its queue's memory limit.

    A SAMPLE is split by its attr's sample_type, every field checked
    against the record's size (its call stack: PerfDataStacks.c).  Tracepoint samples' RAW data goes to the
    trace.dat reader's sink (TracingData.h), so each event becomes exactly
    the row a trace.dat import makes of it; page-fault samples
    (page-faults, minor-faults, major-faults) become page_fault rows whose
    data address and ip are placed in the process's mappings.

    The side band: MMAP and MMAP2 add a mapping (and a `module` row), a
    COMM names a thread (an exec also adds a process row, and keeps the
    mappings, as perf does), a FORK gives the child its parent's name and,
    for a new process, a copy of its mappings; LOST and LOST_SAMPLES add
    to the source's dropped count.  Other record types are skipped by
    their size and counted.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by PerfData.c;
    calls the import context (TraceImport.h), the tracepoint sink
    (TraceEvent.h) and the processes' maps (PerfMaps.h).

--*/

#include "PerfData.h"

//
// Records.
//

static
ULONG
SampleIdSize(
    ULONGLONG SampleType
    )
/*++

Routine Description:

    Bytes of the sample_id a non-sample record ends with (sample_id_all):
    one u64 for each of TID, TIME, ID, STREAM_ID, CPU and IDENTIFIER.

--*/
{
    ULONGLONG Bits = SampleType & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                   PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                   PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);

    return 8 * PerfCountBits(Bits);
}

typedef struct _PERF_RECORD_ID {
    PPERF_ATTR Attr;
    ULONGLONG Time;
    BOOL HasTime;
    ULONG Pid;
    ULONG Tid;
    ULONG Cpu;
} PERF_RECORD_ID, *PPERF_RECORD_ID;

static
VOID
ReadSampleId(
    PPERF_DATA Perf,
    const BYTE *Record,
    ULONG Size,
    PPERF_RECORD_ID Id
    )
/*++

Routine Description:

    The sample_id at the end of a non-sample record: the attr (by
    IDENTIFIER when the attrs' layouts differ), time, task and CPU.
    Nothing is known when the attr has no sample_id_all or the record is
    too short to hold one after its header.

--*/
{
    PPERF_ATTR Attr = &Perf->Attrs[0];
    const BYTE *Cursor;
    ULONG IdSize;
    ULONGLONG Type;

    Id->Attr = Attr;
    Id->HasTime = FALSE;
    Id->Time = 0;
    Id->Pid = TRACE_NULL_ULONG;
    Id->Tid = TRACE_NULL_ULONG;
    Id->Cpu = TRACE_NULL_ULONG;

    if (!Perf->SameLayout &&
        (Attr->SampleType & PERF_SAMPLE_IDENTIFIER) != 0 && Size >= 16) {
        PPERF_ATTR Found = PerfFindAttr(Perf,
                                        RtlReadUInt64(Record + Size - 8));

        if (Found != NULL) {
            Attr = Found;
            Id->Attr = Found;
        }
    }
    if ((Attr->Flags & PERF_ATTR_FLAG_SAMPLE_ID_ALL) == 0) {
        return;
    }
    Type = Attr->SampleType;
    IdSize = SampleIdSize(Type);
    if (Size - 8 < IdSize) {
        return;
    }
    Cursor = Record + Size - IdSize;
    if ((Type & PERF_SAMPLE_TID) != 0) {
        Id->Pid = RtlReadUInt32(Cursor);
        Id->Tid = RtlReadUInt32(Cursor + 4);
        Cursor += 8;
    }
    if ((Type & PERF_SAMPLE_TIME) != 0) {
        Id->Time = RtlReadUInt64(Cursor);
        Id->HasTime = TRUE;
        Cursor += 8;
    }
    if ((Type & PERF_SAMPLE_ID) != 0) {
        Cursor += 8;
    }
    if ((Type & PERF_SAMPLE_STREAM_ID) != 0) {
        Cursor += 8;
    }
    if ((Type & PERF_SAMPLE_CPU) != 0) {
        Id->Cpu = RtlReadUInt32(Cursor);
    }
}

static
PPERF_ATTR
SampleAttr(
    PPERF_DATA Perf,
    const BYTE *Record,
    ULONG Size
    )
/*++

Routine Description:

    The attr of a SAMPLE: by its IDENTIFIER (first u64) or its ID (where
    the first attr's layout puts it), else the only layout there is.

--*/
{
    ULONGLONG Type = Perf->Attrs[0].SampleType;
    ULONG Position;

    if (Perf->AttrCount == 1) {
        return &Perf->Attrs[0];
    }
    if ((Type & PERF_SAMPLE_IDENTIFIER) != 0) {
        return Size >= 16 ? PerfFindAttr(Perf, RtlReadUInt64(Record + 8)) :
                            NULL;
    }
    if ((Type & PERF_SAMPLE_ID) == 0) {
        return Perf->SameLayout ? &Perf->Attrs[0] : NULL;
    }
    Position = 8 + 8 * PerfCountBits(
                   Type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                           PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
    if (Size < Position + 8) {
        return NULL;
    }
    return PerfFindAttr(Perf, RtlReadUInt64(Record + Position));
}

static
ULONG
ReadValuesSize(
    ULONGLONG ReadFormat,
    const BYTE *Cursor,
    ULONG Left,
    PBOOL Fits
    )
/*++

Routine Description:

    Bytes of a read_format block (PERF_SAMPLE_READ): one value with its
    optional times, id and lost count, or with PERF_FORMAT_GROUP a count,
    the times, and per member its value, id and lost count.

--*/
{
    ULONG Each = 8 + ((ReadFormat & PERF_FORMAT_ID) != 0 ? 8 : 0) +
                 ((ReadFormat & PERF_FORMAT_LOST) != 0 ? 8 : 0);
    ULONG Times =
        ((ReadFormat & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0 ? 8 : 0) +
        ((ReadFormat & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0 ? 8 : 0);
    ULONGLONG Members;

    *Fits = FALSE;
    if ((ReadFormat & PERF_FORMAT_GROUP) == 0) {
        *Fits = Left >= Each + Times;
        return Each + Times;
    }
    if (Left < 8) {
        return 8;
    }
    Members = RtlReadUInt64(Cursor);
    if (Members > (Left - 8 - (Times < Left - 8 ? Times : 0)) / Each) {
        return Left + 1;
    }
    *Fits = 8 + Times + Members * Each <= Left;
    return (ULONG)(8 + Times + Members * Each);
}

static
PCSZ
ParseSample(
    PPERF_DATA Perf,
    const BYTE *Record,
    ULONG Size,
    PPERF_SAMPLE Sample,
    PULONG FieldOffset
    )
/*++

Routine Description:

    Splits a SAMPLE by its attr's sample_type (perf_event.h's order).
    Returns NULL, or what does not fit (*FieldOffset: where in the
    record), checked against the record's size field by field.

--*/
{
    PPERF_ATTR Attr = SampleAttr(Perf, Record, Size);
    ULONGLONG Type;
    ULONG Position = 8;
    ULONG CpuMode;
    ULONGLONG Count;
    BOOL Fits;

#define NEED(Bytes, What)                                               \
    do {                                                                \
        if ((ULONGLONG)(Bytes) > (ULONGLONG)(Size - Position)) {        \
            *FieldOffset = Position;                                    \
            return What " runs past the end of the record";             \
        }                                                               \
    } while (0)

    *FieldOffset = 8;
    if (Attr == NULL) {
        return "no event attr has this sample's id";
    }
    Type = Attr->SampleType;
    Sample->Attr = Attr;
    Sample->Id = 0;
    Sample->Ip = TRACE_NULL_ULONGLONG;
    Sample->Time = 0;
    Sample->HasTime = FALSE;
    Sample->Addr = TRACE_NULL_ULONGLONG;
    Sample->Period = Attr->SamplePeriod;    // perf's default (-c N)
    Sample->Pid = TRACE_NULL_ULONG;
    Sample->Tid = TRACE_NULL_ULONG;
    Sample->Cpu = TRACE_NULL_ULONG;
    Sample->Raw = NULL;
    Sample->RawSize = 0;
    Sample->Callchain = NULL;
    Sample->CallchainLength = 0;
    CpuMode = RtlReadUInt16(Record + 4) & PERF_RECORD_MISC_CPUMODE_MASK;
    Sample->Kernel = CpuMode == PERF_RECORD_MISC_KERNEL ||
                     CpuMode == PERF_RECORD_MISC_GUEST_KERNEL;

    if ((Type & PERF_SAMPLE_IDENTIFIER) != 0) {
        NEED(8, "IDENTIFIER");
        Sample->Id = RtlReadUInt64(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_IP) != 0) {
        NEED(8, "IP");
        Sample->Ip = RtlReadUInt64(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_TID) != 0) {
        NEED(8, "TID");
        Sample->Pid = RtlReadUInt32(Record + Position);
        Sample->Tid = RtlReadUInt32(Record + Position + 4);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_TIME) != 0) {
        NEED(8, "TIME");
        Sample->Time = RtlReadUInt64(Record + Position);
        Sample->HasTime = TRUE;
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_ADDR) != 0) {
        NEED(8, "ADDR");
        Sample->Addr = RtlReadUInt64(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_ID) != 0) {
        NEED(8, "ID");
        Sample->Id = RtlReadUInt64(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_STREAM_ID) != 0) {
        NEED(8, "STREAM_ID");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_CPU) != 0) {
        NEED(8, "CPU");
        Sample->Cpu = RtlReadUInt32(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_PERIOD) != 0) {
        NEED(8, "PERIOD");
        Sample->Period = RtlReadUInt64(Record + Position);
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_READ) != 0) {
        ULONG Bytes = ReadValuesSize(Attr->ReadFormat, Record + Position,
                                     Size - Position, &Fits);

        if (!Fits) {
            *FieldOffset = Position;
            return "READ values run past the end of the record";
        }
        Position += Bytes;
    }
    if ((Type & PERF_SAMPLE_CALLCHAIN) != 0) {
        NEED(8, "CALLCHAIN");
        Count = RtlReadUInt64(Record + Position);
        Position += 8;
        NEED(Count * 8, "CALLCHAIN");
        Sample->Callchain = Record + Position;
        Sample->CallchainLength = Count;
        Position += (ULONG)Count * 8;
    }
    if ((Type & PERF_SAMPLE_RAW) != 0) {
        NEED(4, "RAW");
        Sample->RawSize = RtlReadUInt32(Record + Position);
        Position += 4;
        NEED(Sample->RawSize, "RAW");
        Sample->Raw = Record + Position;
        Position += Sample->RawSize;
    }
    if ((Type & PERF_SAMPLE_BRANCH_STACK) != 0) {
        ULONGLONG Each = 24;

        NEED(8, "BRANCH_STACK");
        Count = RtlReadUInt64(Record + Position);
        Position += 8;
        if ((Attr->BranchSampleType & PERF_SAMPLE_BRANCH_HW_INDEX) != 0) {
            NEED(8, "BRANCH_STACK");
            Position += 8;
        }
        if ((Attr->BranchSampleType & PERF_SAMPLE_BRANCH_COUNTERS) != 0) {
            Each += 8;
        }
        if (Count > Size) {
            *FieldOffset = Position;
            return "BRANCH_STACK runs past the end of the record";
        }
        NEED(Count * Each, "BRANCH_STACK");
        Position += (ULONG)(Count * Each);
    }
    if ((Type & PERF_SAMPLE_REGS_USER) != 0) {
        NEED(8, "REGS_USER");
        Count = RtlReadUInt64(Record + Position);      // the ABI; 0: none
        Position += 8;
        if (Count != 0) {
            NEED(8 * Attr->RegsUser, "REGS_USER");
            Position += 8 * Attr->RegsUser;
        }
    }
    if ((Type & PERF_SAMPLE_STACK_USER) != 0) {
        NEED(8, "STACK_USER");
        Count = RtlReadUInt64(Record + Position);
        Position += 8;
        if (Count != 0) {
            NEED(Count, "STACK_USER");
            Position += (ULONG)Count;
            NEED(8, "STACK_USER dyn_size");
            Position += 8;
        }
    }
    if ((Type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) != 0) {
        NEED(8, "WEIGHT");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_DATA_SRC) != 0) {
        NEED(8, "DATA_SRC");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_TRANSACTION) != 0) {
        NEED(8, "TRANSACTION");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_REGS_INTR) != 0) {
        NEED(8, "REGS_INTR");
        Count = RtlReadUInt64(Record + Position);
        Position += 8;
        if (Count != 0) {
            NEED(8 * Attr->RegsIntr, "REGS_INTR");
            Position += 8 * Attr->RegsIntr;
        }
    }
    if ((Type & PERF_SAMPLE_PHYS_ADDR) != 0) {
        NEED(8, "PHYS_ADDR");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_AUX) != 0) {
        NEED(8, "AUX");
        Count = RtlReadUInt64(Record + Position);
        Position += 8;
        NEED(Count, "AUX");
        Position += (ULONG)Count;
    }
    if ((Type & PERF_SAMPLE_CGROUP) != 0) {
        NEED(8, "CGROUP");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_DATA_PAGE_SIZE) != 0) {
        NEED(8, "DATA_PAGE_SIZE");
        Position += 8;
    }
    if ((Type & PERF_SAMPLE_CODE_PAGE_SIZE) != 0) {
        NEED(8, "CODE_PAGE_SIZE");
        Position += 8;
    }
#undef NEED

    if (Sample->Pid == 0xffffffffu) {
        Sample->Pid = TRACE_NULL_ULONG;
    }
    return NULL;
}

static
ULONG
CommOf(
    PPERF_DATA Perf,
    ULONG Tid
    )
{
    ULONGLONG Value;

    if (Tid != TRACE_NULL_ULONG && PerfFindTask(Perf, Tid, &Value)) {
        return (ULONG)(Value >> 32);
    }
    return TRACE_NULL_ULONG;
}

static
RTL_STATUS
NameOf(
    PPERF_DATA Perf,
    PPERF_ATTR Attr,
    PULONG NameId
    )
{
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Attr->NameId == TRACE_STRING_NULL) {
        Status = TraceImportIntern(Perf->Import, Attr->Name,
                                   (ULONG)RtlStringLength(Attr->Name),
                                   &Attr->NameId);
    }
    *NameId = Attr->NameId;
    return Status;
}

static
RTL_STATUS
StoreSample(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    const BYTE *Record,
    ULONG Size,
    SIZE_T BytesDone
    )
{
    PTRACE_IMPORT Import = Perf->Import;
    PERF_SAMPLE Sample;
    TRACE_EVENT_CONTEXT Event;
    PCSZ Reason;
    ULONG FieldOffset;
    ULONG NameId;
    RTL_STATUS Status;

    Reason = ParseSample(Perf, Record, Size, &Sample, &FieldOffset);
    if (Reason != NULL) {
        return TraceImportByteError(Import, Offset + FieldOffset, "SAMPLE "
                                    "record of %u bytes: %s", Size, Reason);
    }

    Event.Timestamp = TraceImportAlignTs(Import, (LONGLONG)Sample.Time);
    Event.Tid = Sample.Tid;         // -1 (an exited thread) is NULL
    Event.Pid = Sample.Pid;
    Event.Cpu = Sample.Cpu;
    Event.CommId = Sample.Attr->Kind == PerfEventTracepoint ?
                   TRACE_NULL_ULONG : CommOf(Perf, Event.Tid);
    Event.FlagsId = TRACE_NULL_ULONG;
    Event.Padding = 0;
    Import->EventOffset = Offset;

    switch (Sample.Attr->Kind) {
    case PerfEventTracepoint:
        if (Perf->Tracing != NULL && Sample.Raw != NULL) {
            PTRACE_EVENT_SINK Sink = TracingDataSink(Perf->Tracing);

            Sink->Resolver = &Perf->Resolver;
            Perf->CurrentTid = Event.Tid;
            Perf->CurrentPid = Event.Pid;
            Reason = NULL;
            Status = TraceEventSinkRecord(Sink, Event.Cpu, Sample.Time,
                                          Sample.Raw, Sample.RawSize,
                                          BytesDone, &Reason);
            if (!RTL_SUCCESS(Status) && Reason != NULL &&
                Import->Error.Status == RTL_STATUS_OK) {
                return TraceImportByteError(Import, Offset, "the "
                                            "tracepoint data of a %s sample: "
                                            "%s", Sample.Attr->Name, Reason);
            }
            return Status;
        }
        Event.CommId = CommOf(Perf, Event.Tid);
        Status = NameOf(Perf, Sample.Attr, &NameId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportGenericEvent(Import, &Event, NameId,
                                             TRACE_STRING_NULL,
                                             TRACE_STRING_NULL);
        }
        break;

    case PerfEventPageFault: {
        PAGE_FAULT_RECORD Fault;

        Status = NameOf(Perf, Sample.Attr, &Fault.NameId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Fault.Address = Sample.Addr;
        Fault.Ip = Sample.Ip;
        Fault.ErrorCode = TRACE_NULL_ULONG;
        Fault.IpSymbolId = TRACE_STRING_NULL;
        Fault.ModuleId = TRACE_STRING_NULL;
        Fault.IpModuleId = TRACE_STRING_NULL;
        TraceImportPageFaultUnclassified(&Fault);
        Fault.Hard = Sample.Attr->Hard;
        PerfMapsPlace(&Perf->Maps, Event.Pid, Fault.Address, &Fault.ModuleId,
                      &Fault.ModuleOffset, &Fault.Code);
        PerfMapsPlace(&Perf->Maps, Event.Pid, Fault.Ip, &Fault.IpModuleId,
                      &Fault.IpModuleOffset, NULL);
        Status = TraceImportPageFault(Import, &Event, &Fault);
        break;
    }

    default: {
        SAMPLE_RECORD Row;

        Status = NameOf(Perf, Sample.Attr, &Row.NameId);
        if (RTL_SUCCESS(Status)) {
            Status = PerfStoreStack(Perf, &Sample, &Row.StackId);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Row.Ip = Sample.Ip;
        Row.Period = Sample.Period;
        Row.Padding = 0;
        Status = TraceImportAppendEvent(Import, TraceRecordSample, &Event,
                                        &Row);
        break;
    }
    }

    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return TraceImportEventDone(Import, BytesDone);
}

static
RTL_STATUS
ReadPath(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    const BYTE *Record,
    ULONG Size,
    ULONG At,
    PCSZ What,
    PCSZ *Text,
    PULONG Length
    )
/*++

Routine Description:

    A NUL-terminated string from byte At of a record, which must end
    inside it.

--*/
{
    ULONG Index;

    *Text = "";
    *Length = 0;
    for (Index = At; Index < Size; Index++) {
        if (Record[Index] == 0) {
            *Text = (PCSZ)Record + At;
            *Length = Index - At;
            return RTL_STATUS_OK;
        }
    }
    return TraceImportByteError(Perf->Import, Offset + At, "the %s runs past "
                                "the end of its record", What);
}

static
RTL_STATUS
StoreMmap(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    const BYTE *Record,
    ULONG Type,
    ULONG Misc,
    ULONG Size,
    LONGLONG Timestamp
    )
/*++

Routine Description:

    MMAP {pid, tid, addr, len, pgoff, filename} and MMAP2 (the same with
    the device and inode or a build id, prot and flags before the
    filename): a mapping of the process and a `module` row.  As in
    PerfScript.c, anonymous memory's file offset is 0 (perf keeps the
    kernel's page offset, the address), and "[kernel.kallsyms]_text" is
    the kernel's "[kernel.kallsyms]".

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    ULONG PathAt = (Type == PERF_RECORD_MMAP2) ? 72 : 40;
    PERF_MAPPING Mapping;
    MODULE_RECORD Module;
    PCSZ Path;
    ULONG PathLength;
    CHAR Perms[5];
    RTL_STATUS Status;

    if (Size < PathAt + 1) {
        return TraceImportByteError(Import, Offset, "a %s record of %u bytes",
                                    Type == PERF_RECORD_MMAP2 ? "MMAP2" :
                                    "MMAP", Size);
    }
    Status = ReadPath(Perf, Offset, Record, Size, PathAt, "mapped file name",
                      &Path, &PathLength);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Mapping.Pid = RtlReadUInt32(Record + 8);
    Mapping.Start = RtlReadUInt64(Record + 16);
    Mapping.Offset = RtlReadUInt64(Record + 32);
    if (__builtin_add_overflow(Mapping.Start, RtlReadUInt64(Record + 24),
                               &Mapping.End)) {
        return TraceImportByteError(Import, Offset + 24, "a mapping of %llu "
                                    "bytes at 0x%llx wraps around",
                                    RtlReadUInt64(Record + 24), Mapping.Start);
    }
    if (Type == PERF_RECORD_MMAP2) {
        ULONG Prot = RtlReadUInt32(Record + 64);
        ULONG Flags = RtlReadUInt32(Record + 68);

        Perms[0] = (Prot & 1) ? 'r' : '-';
        Perms[1] = (Prot & 2) ? 'w' : '-';
        Perms[2] = (Prot & 4) ? 'x' : '-';
        Perms[3] = (Flags & 1) ? 's' : 'p';
    } else {
        BOOL Data = (Misc & PERF_RECORD_MISC_COMM_EXEC) != 0;   // MMAP_DATA

        Perms[0] = 'r';
        Perms[1] = Data ? 'w' : '-';
        Perms[2] = Data ? '-' : 'x';
        Perms[3] = 'p';
    }
    Perms[4] = '\0';
    Mapping.Exec = Perms[2] == 'x';
    Mapping.Padding = 0;
    Mapping.PathId = TRACE_STRING_NULL;
    if (PathLength >= 17 &&
        Perf->Rtl->CompareMemory(Path, "[kernel.kallsyms]", 17) == 0) {
        PathLength = 17;
    }
    if (PathLength != 0 && !(PathLength == 6 &&
        Perf->Rtl->CompareMemory(Path, "//anon", 6) == 0)) {
        Status = TraceImportIntern(Import, Path, PathLength, &Mapping.PathId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    if (PathLength == 0 || Path[0] != '/' ||
        Mapping.PathId == TRACE_STRING_NULL) {
        Mapping.Offset = 0;
    }
    Status = PerfMapsAdd(&Perf->Maps, &Mapping);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportByteError(Import, Offset, "no memory for the "
                                    "processes' maps");
    }
    Perf->MapsGeneration++;

    PerfMapsModuleRow(&Mapping, Timestamp, &Module);
    if (Mapping.PathId != TRACE_STRING_NULL && Path[0] == '/') {
        BOOL HasBuildId = Type == PERF_RECORD_MMAP2 &&
                          (Misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0;

        Status = PerfNoteModule(Perf, Mapping.PathId, Path,
                                HasBuildId ? Record + 44 : NULL,
                                HasBuildId ? Record[40] : 0);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    if (Type == PERF_RECORD_MMAP2 &&
        (Misc & PERF_RECORD_MISC_MMAP_BUILD_ID) != 0) {
        static const CHAR Hex[] = "0123456789abcdef";
        CHAR Text[40];
        ULONG Bytes = Record[40];
        ULONG Index;

        if (Bytes > 20) {
            Bytes = 20;
        }
        for (Index = 0; Index < Bytes; Index++) {
            Text[2 * Index] = Hex[Record[44 + Index] >> 4];
            Text[2 * Index + 1] = Hex[Record[44 + Index] & 15];
        }
        if (Bytes != 0) {
            Status = TraceImportIntern(Import, Text, 2 * Bytes,
                                       &Module.BuildIdId);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
    }
    Status = TraceImportIntern(Import, Perms, 4, &Module.PermsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    return TraceImportModule(Import, &Module);
}

static
RTL_STATUS
SetTask(
    PPERF_DATA Perf,
    ULONG Tid,
    ULONG Pid,
    ULONG CommId
    )
{
    RTL_STATUS Status;

    Perf->LastTaskKey = 0;
    Status = TraceHashSet(&Perf->Tasks, (ULONGLONG)Tid + 1,
                          ((ULONGLONG)CommId << 32) | Pid);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Perf->Import->Error, Status, 0, 0, "%s: no "
                           "memory for the threads", Perf->Import->Path);
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Deliver(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONGLONG Time,
    SIZE_T BytesDone
    )
/*++

Routine Description:

    Stores one kernel record (its size was checked when it was read).

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    const BYTE *Record = PerfRecordAt(Perf, Offset);
    ULONG Type = RtlReadUInt32(Record);
    ULONG Misc = RtlReadUInt16(Record + 4);
    ULONG Size = RtlReadUInt16(Record + 6);
    LONGLONG Timestamp = TraceImportAlignTs(Import, (LONGLONG)Time);
    RTL_STATUS Status;

    Offset = PerfFileOffset(Perf, Offset);
    switch (Type) {
    case PERF_RECORD_SAMPLE:
        return StoreSample(Perf, Offset, Record, Size, BytesDone);

    case PERF_RECORD_MMAP:
    case PERF_RECORD_MMAP2:
        return StoreMmap(Perf, Offset, Record, Type, Misc, Size, Timestamp);

    case PERF_RECORD_COMM: {
        PCSZ Comm;
        ULONG Length;
        ULONG CommId;
        ULONG Pid;
        ULONG Tid;

        if (Size < 16) {
            return TraceImportByteError(Import, Offset, "a COMM record of "
                                        "%u bytes", Size);
        }
        Status = ReadPath(Perf, Offset, Record, Size, 16, "command name",
                          &Comm, &Length);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportIntern(Import, Comm, Length, &CommId);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Pid = RtlReadUInt32(Record + 8);
        Tid = RtlReadUInt32(Record + 12);
        Status = SetTask(Perf, Tid, Pid, CommId);
        //
        // An exec keeps the process's mappings, as perf's machine does
        // (thread__set_comm only flushes the unwinder): the new image's
        // MMAPs replace what they overlap, and a sample taken inside
        // execve still finds the old image's code.
        //

        if (RTL_SUCCESS(Status) && (Misc & PERF_RECORD_MISC_COMM_EXEC) != 0) {
            Status = TraceImportProcessExec(Import, Timestamp, Pid, CommId,
                                            TRACE_STRING_NULL);
        }
        return Status;
    }

    case PERF_RECORD_FORK: {
        ULONG Pid, ParentPid, Tid, ParentTid;
        ULONG CommId;

        if (Size < 32) {
            return TraceImportByteError(Import, Offset, "a FORK record of "
                                        "%u bytes", Size);
        }
        Pid = RtlReadUInt32(Record + 8);
        ParentPid = RtlReadUInt32(Record + 12);
        Tid = RtlReadUInt32(Record + 16);
        ParentTid = RtlReadUInt32(Record + 20);
        CommId = CommOf(Perf, ParentTid);
        if (CommId != TRACE_NULL_ULONG) {
            Status = SetTask(Perf, Tid, Pid, CommId);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        if (Pid != ParentPid) {
            Perf->MapsGeneration++;
            if (!RTL_SUCCESS(PerfMapsCopyPid(&Perf->Maps, ParentPid, Pid))) {
                return TraceImportByteError(Import, Offset, "no memory for "
                                            "the processes' maps");
            }
        }
        return RTL_STATUS_OK;
    }

    case PERF_RECORD_LOST:
        if (Size < 24) {
            return TraceImportByteError(Import, Offset, "a LOST record of "
                                        "%u bytes", Size);
        }
        Perf->LostRecords += RtlReadUInt64(Record + 16);
        return RTL_STATUS_OK;

    case PERF_RECORD_LOST_SAMPLES:
        if (Size < 16) {
            return TraceImportByteError(Import, Offset, "a LOST_SAMPLES "
                                        "record of %u bytes", Size);
        }
        Perf->LostSamples += RtlReadUInt64(Record + 8);
        return RTL_STATUS_OK;

    default:
        Perf->Skipped++;
        return RTL_STATUS_OK;
    }
}

static
VOID
CountLost(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    The source's dropped count.  LOST records count what the kernel could
    not write to a full buffer; the LOST_SAMPLES records perf adds at the
    end (from each event's read_format LOST counter) count the same
    samples again, per event.  Dropped is the larger of the two sums, so
    a loss is counted once whichever of them a file has.

--*/
{
    Perf->Import->LostEvents += Perf->LostRecords > Perf->LostSamples ?
                                Perf->LostRecords : Perf->LostSamples;
}

//
// Time order.
//

static
BOOL
HeldBefore(
    const PERF_HELD *Left,
    const PERF_HELD *Right
    )
{
    return Left->Time < Right->Time ||
           (Left->Time == Right->Time && Left->Offset < Right->Offset);
}

static
VOID
SortHeld(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    Sorts the waiting records by (time, file offset): a natural merge
    sort, which merges the runs already in order (each CPU's buffer is
    one, and what the last round left another), so a round of a few CPUs
    costs a few passes, not log2(records).

--*/
{
    PPERF_HELD From = Perf->Held;
    PPERF_HELD To = Perf->Scratch;
    ULONG Count = Perf->HeldCount;

    for (;;) {
        ULONG Start = 0;
        ULONG Runs = 0;

        while (Start < Count) {
            ULONG Middle = Start + 1;
            ULONG End;
            ULONG Left = Start;
            ULONG Right;
            ULONG Out = Start;

            while (Middle < Count &&
                   !HeldBefore(&From[Middle], &From[Middle - 1])) {
                Middle++;
            }
            End = Middle;
            if (End < Count) {
                End++;
                while (End < Count &&
                       !HeldBefore(&From[End], &From[End - 1])) {
                    End++;
                }
            }
            Right = Middle;
            while (Left < Middle && Right < End) {
                To[Out++] = HeldBefore(&From[Right], &From[Left]) ?
                            From[Right++] : From[Left++];
            }
            while (Left < Middle) {
                To[Out++] = From[Left++];
            }
            while (Right < End) {
                To[Out++] = From[Right++];
            }
            Runs++;
            Start = End;
        }
        {
            PPERF_HELD Swap = From;

            From = To;
            To = Swap;
        }
        if (Runs <= 1) {
            break;
        }
    }
    if (From != Perf->Held) {
        Perf->Rtl->CopyMemory(Perf->Held, From, Count * sizeof(PERF_HELD));
    }
}

static
RTL_STATUS
Flush(
    PPERF_DATA Perf,
    ULONGLONG Limit
    )
/*++

Routine Description:

    Delivers the waiting records with a time up to Limit, in time order.

--*/
{
    ULONGLONG Lowest = ~0ULL;
    ULONG Index;
    ULONG Kept;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Perf->HeldCount == 0) {
        return RTL_STATUS_OK;
    }
    Lowest = Perf->ReadOffset;
    for (Index = 0; Index < Perf->HeldCount; Index++) {
        if (Perf->Held[Index].Offset < Lowest) {
            Lowest = Perf->Held[Index].Offset;
        }
    }
    SortHeld(Perf);
    for (Index = 0; Index < Perf->HeldCount; Index++) {
        if (Perf->Held[Index].Time > Limit) {
            break;
        }
        Status = Deliver(Perf, Perf->Held[Index].Offset,
                         Perf->Held[Index].Time, (SIZE_T)Lowest);
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }
    if (!RTL_SUCCESS(Status)) {
        Index++;
    }
    Kept = Perf->HeldCount - Index;
    if (Index != 0 && Kept != 0) {
        ULONG Slot;

        for (Slot = 0; Slot < Kept; Slot++) {
            Perf->Held[Slot] = Perf->Held[Index + Slot];
        }
    }
    Perf->HeldCount = Kept;
    return Status;
}

static
RTL_STATUS
Hold(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONGLONG Time
    )
{
    RTL_STATUS Status;

    if (Perf->Held == NULL) {
        Perf->HeldBytes = PERF_HELD_MAX * sizeof(PERF_HELD);
        Status = Perf->Rtl->AllocatePages(Perf->Rtl, 2 * Perf->HeldBytes,
                                          (PVOID *)&Perf->Held);
        if (!RTL_SUCCESS(Status)) {
            Perf->Held = NULL;
            return TraceImportByteError(Perf->Import, Offset, "no memory to "
                                        "order the records");
        }
        Perf->Scratch = Perf->Held + PERF_HELD_MAX;
    }
    if (Perf->HeldCount == PERF_HELD_MAX) {
        ULONGLONG First = ~0ULL;
        ULONG Index;

        for (Index = 0; Index < Perf->HeldCount; Index++) {
            if (Perf->Held[Index].Time < First) {
                First = Perf->Held[Index].Time;
            }
        }
        Status = Flush(Perf, First + (Perf->MaxTime - First) / 2);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Perf->HeldCount == PERF_HELD_MAX) {
            Status = Flush(Perf, ~0ULL);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
    }
    Perf->Held[Perf->HeldCount].Time = Time;
    Perf->Held[Perf->HeldCount].Offset = Offset;
    Perf->HeldCount++;
    if (Time > Perf->MaxTime) {
        Perf->MaxTime = Time;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Queue(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONG Type,
    ULONG Size
    )
/*++

Routine Description:

    A kernel record: held for its round when it has a time, else
    delivered now (perf's ordered_events refuses times 0 and ~0 the
    same way).

--*/
{
    const BYTE *Record = PerfRecordAt(Perf, Offset);
    ULONGLONG Time = 0;
    BOOL HasTime;

    if (Type == PERF_RECORD_SAMPLE) {
        PPERF_ATTR Attr = SampleAttr(Perf, Record, Size);
        ULONG Position;

        //
        // The time is the field after IDENTIFIER, IP and TID.  A sample
        // without an attr or too short for its time is delivered now, to
        // fail there with the whole parse's reason.
        //

        HasTime = Attr != NULL &&
                  (Attr->SampleType & PERF_SAMPLE_TIME) != 0;
        if (HasTime) {
            Position = 8 + 8 * PerfCountBits(Attr->SampleType &
                                             (PERF_SAMPLE_IDENTIFIER |
                                              PERF_SAMPLE_IP |
                                              PERF_SAMPLE_TID));
            HasTime = Size >= Position + 8;
            if (HasTime) {
                Time = RtlReadUInt64(Record + Position);
            }
        }
    } else {
        PERF_RECORD_ID Id;

        ReadSampleId(Perf, Record, Size, &Id);
        HasTime = Id.HasTime;
        Time = Id.Time;
    }
    if (!HasTime || Time == 0 || Time == ~0ULL) {
        return Deliver(Perf, Offset, Time, (SIZE_T)Perf->ReadOffset);
    }
    return Hold(Perf, Offset, Time);
}

static
RTL_STATUS
MakeRoom(
    PPERF_DATA Perf,
    ULONGLONG Offset
    )
/*++

Routine Description:

    Room for at least 256 KB more decompressed bytes: first by moving out
    what was delivered (everything before the lowest record still held or
    not yet whole), then by doubling the buffer, up to PERF_DECOMP_MAX.

--*/
{
    PRTL Rtl = Perf->Rtl;
    SIZE_T Keep = Perf->DecompDone;
    ULONG Index;

    if (Perf->DecompCapacity - Perf->DecompUsed >= (256 << 10)) {
        return RTL_STATUS_OK;
    }
    for (Index = 0; Index < Perf->HeldCount; Index++) {
        ULONGLONG Held = Perf->Held[Index].Offset;

        if ((Held & PERF_DECOMPRESSED) != 0 &&
            (Held & ~PERF_DECOMPRESSED) < Keep) {
            Keep = (SIZE_T)(Held & ~PERF_DECOMPRESSED);
        }
    }
    if (Keep != 0) {
        Rtl->CopyMemory(Perf->Decomp, Perf->Decomp + Keep,
                        Perf->DecompUsed - Keep);
        for (Index = 0; Index < Perf->HeldCount; Index++) {
            if ((Perf->Held[Index].Offset & PERF_DECOMPRESSED) != 0) {
                Perf->Held[Index].Offset -= Keep;
            }
        }
        Perf->DecompUsed -= Keep;
        Perf->DecompDone -= Keep;
    }
    if (Perf->DecompCapacity - Perf->DecompUsed >= (256 << 10)) {
        return RTL_STATUS_OK;
    }
    if (Perf->DecompUsed + (256 << 10) > PERF_DECOMP_MAX ||
        !RTL_SUCCESS(RtlGrowPages(Rtl, (PVOID *)&Perf->Decomp,
                                  &Perf->DecompCapacity,
                                  Perf->DecompUsed + (256 << 10),
                                  4 << 20))) {
        return TraceImportByteError(Perf->Import, Offset, "the decompressed "
                                    "records waiting for their round need "
                                    "more than %llu bytes",
                                    (ULONGLONG)Perf->DecompCapacity);
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Decompress(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    const BYTE *Data,
    ULONG Length
    )
/*++

Routine Description:

    A COMPRESSED record: the next piece of the zstd stream perf record -z
    writes (util/zstd.c flushes it, never ends it), decompressed after
    what came before; the records it completes are queued as the file's
    are.  A record may continue in the next COMPRESSED record.

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    PCTRACE_DECOMPRESSOR Zstd = Import->Zstd;
    RTL_STATUS Status;

    if (Zstd == NULL || Zstd->DecompressStream == NULL ||
        Zstd->StreamContext == NULL) {
        return TraceImportByteError(Import, Offset, "a COMPRESSED record "
                                    "(perf record -z), and no zstd "
                                    "decompressor here");
    }
    if (Perf->Decomp == NULL) {
        Zstd->ResetStream(Zstd->StreamContext);
    }
    Perf->CompressedOffset = Offset;

    while (Length != 0) {
        SIZE_T Consumed = 0;
        SIZE_T Produced = 0;

        Status = MakeRoom(Perf, Offset);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = Zstd->DecompressStream(Zstd->StreamContext, Data, Length,
                                        &Consumed,
                                        Perf->Decomp + Perf->DecompUsed,
                                        Perf->DecompCapacity -
                                        Perf->DecompUsed, &Produced);
        if (!RTL_SUCCESS(Status) || (Consumed == 0 && Produced == 0)) {
            return TraceImportByteError(Import, Offset, "the zstd data of a "
                                        "COMPRESSED record does not "
                                        "decompress");
        }
        Data += Consumed;
        Length -= (ULONG)Consumed;
        Perf->DecompUsed += Produced;
    }

    while (Perf->DecompUsed - Perf->DecompDone >= 8) {
        const BYTE *Record = Perf->Decomp + Perf->DecompDone;
        ULONG Type = RtlReadUInt32(Record);
        ULONG Size = RtlReadUInt16(Record + 6);

        if (Size < 8) {
            return TraceImportByteError(Import, Offset, "a decompressed "
                                        "record of %u bytes (type %u)", Size,
                                        Type);
        }
        if (Size > Perf->DecompUsed - Perf->DecompDone) {
            break;
        }
        if (Type == 0 || Type >= PERF_RECORD_KERNEL_MAX) {
            Perf->Skipped++;
        } else {
            Status = Queue(Perf, PERF_DECOMPRESSED | Perf->DecompDone, Type,
                           Size);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Perf->DecompDone += Size;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
UserRecord(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONG Type,
    ULONG Size,
    PULONGLONG Next
    )
/*++

Routine Description:

    perf's own records: the rounds, and pipe mode's header records
    (attrs, tracing data, features, event names).  The others perf writes
    (build ids, id index, time conversion, thread and CPU maps, stat) say
    nothing the stores keep.

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    const BYTE *Record = Perf->Buffer + Offset;
    RTL_STATUS Status;

    switch (Type) {
    case PERF_RECORD_FINISHED_ROUND:
        Status = Flush(Perf, Perf->NextFlush);
        Perf->NextFlush = Perf->MaxTime;
        return Status;

    case PERF_RECORD_HEADER_ATTR: {
        ULONG AttrSize;

        if (Size < 8 + PERF_ATTR_SIZE_VER0) {
            return TraceImportByteError(Import, Offset, "a HEADER_ATTR "
                                        "record of %u bytes", Size);
        }
        AttrSize = RtlReadUInt32(Record + 12);
        if (AttrSize < PERF_ATTR_SIZE_VER0 || AttrSize > Size - 8) {
            return TraceImportByteError(Import, Offset + 12, "an attr of %u "
                                        "bytes in a record of %u", AttrSize,
                                        Size);
        }
        return PerfAddAttr(Perf, Offset + 8, Record + 8, AttrSize,
                           Record + 8 + AttrSize,
                           (Size - 8 - AttrSize) / 8);
    }

    case PERF_RECORD_HEADER_TRACING_DATA: {
        ULONGLONG DataSize;

        if (Size < 12) {
            return TraceImportByteError(Import, Offset, "a TRACING_DATA "
                                        "record of %u bytes", Size);
        }
        DataSize = RtlReadUInt32(Record + 8);
        if (DataSize > Perf->DataEnd - Offset - Size) {
            return TraceImportByteError(Import, Offset + 8, "tracing data of "
                                        "%llu bytes runs past the end of the "
                                        "file", DataSize);
        }
        *Next = Offset + Size + ALIGN_UP(DataSize, 8);
        if (*Next > Perf->DataEnd) {
            *Next = Perf->DataEnd;
        }
        return PerfFeature(Perf, PERF_FEATURE_TRACING_DATA, Offset + Size,
                           DataSize);
    }

    case PERF_RECORD_HEADER_FEATURE:
        if (Size < 16) {
            return TraceImportByteError(Import, Offset, "a HEADER_FEATURE "
                                        "record of %u bytes", Size);
        }
        if (RtlReadUInt64(Record + 8) >= PERF_FEATURE_BITS) {
            return RTL_STATUS_OK;
        }
        return PerfFeature(Perf, (ULONG)RtlReadUInt64(Record + 8), Offset + 16,
                           Size - 16);

    case PERF_RECORD_EVENT_UPDATE:
        if (Size >= 24 &&
            RtlReadUInt64(Record + 8) == PERF_EVENT_UPDATE_NAME) {
            ULONG Length = 0;

            while (24 + Length < Size && Record[24 + Length] != 0) {
                Length++;
            }
            return PerfSetName(Perf, RtlReadUInt64(Record + 16),
                               (PCSZ)Record + 24, Length);
        }
        return RTL_STATUS_OK;

    case PERF_RECORD_COMPRESSED:
        return Decompress(Perf, Offset, Record + 8, Size - 8);

    case PERF_RECORD_COMPRESSED2:
        if (Size < 16 || RtlReadUInt64(Record + 8) > Size - 16) {
            return TraceImportByteError(Import, Offset, "a COMPRESSED2 "
                                        "record of %u bytes says %llu bytes "
                                        "of data", Size,
                                        Size < 16 ? 0 :
                                        RtlReadUInt64(Record + 8));
        }
        return Decompress(Perf, Offset, Record + 16,
                          (ULONG)RtlReadUInt64(Record + 8));

    default:
        Perf->Skipped++;
        return RTL_STATUS_OK;
    }
}

RTL_STATUS
PerfReadRecords(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONGLONG End
    )
/*++

Routine Description:

    Reads the records from Offset to End.  A record that does not fit, or
    a malformed one, ends the import with its byte offset; every record
    before it is stored, those still waiting for their round included.

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    RTL_STATUS Status = RTL_STATUS_OK;
    RTL_ERROR Error;

    while (Offset < End) {
        const BYTE *Record = Perf->Buffer + Offset;
        ULONG Type;
        ULONG Size;
        ULONGLONG Next;

        if (End - Offset < 8) {
            Status = TraceImportByteError(Import, Offset, "the file ends "
                                          "inside a record header (%llu of "
                                          "8 bytes)", End - Offset);
            break;
        }
        Type = RtlReadUInt32(Record);
        Size = RtlReadUInt16(Record + 6);
        if (Size < 8) {
            Status = TraceImportByteError(Import, Offset, "a record of %u "
                                          "bytes (type %u)", Size, Type);
            break;
        }
        if (Size > End - Offset) {
            Status = TraceImportByteError(Import, Offset, "the file ends "
                                          "inside a record of type %u (%llu "
                                          "of its %u bytes)", Type,
                                          End - Offset, Size);
            break;
        }
        Next = Offset + Size;
        Perf->ReadOffset = Offset;

        if (Type >= PERF_RECORD_HEADER_ATTR) {
            Status = UserRecord(Perf, Offset, Type, Size, &Next);
        } else if (Perf->AttrCount == 0) {
            Status = TraceImportByteError(Import, Offset, "an event record "
                                          "before any event attr");
        } else if (Type == 0 || Type >= PERF_RECORD_KERNEL_MAX) {
            Perf->Skipped++;
        } else {
            Status = Queue(Perf, Offset, Type, Size);
        }
        if (!RTL_SUCCESS(Status)) {
            break;
        }
        Offset = Next;
    }

    if (RTL_SUCCESS(Status) && Perf->DecompDone != Perf->DecompUsed) {
        Status = TraceImportByteError(Import, Perf->CompressedOffset, "the "
                                      "compressed records end inside a "
                                      "record (%llu bytes of it)",
                                      (ULONGLONG)(Perf->DecompUsed -
                                                  Perf->DecompDone));
    }

    //
    // What waits is stored, also after an error (which is kept).
    //

    if (!RTL_SUCCESS(Status)) {
        Error = Import->Error;
        Flush(Perf, ~0ULL);
        Import->Error = Error;
        CountLost(Perf);
        return Status;
    }
    CountLost(Perf);
    return Flush(Perf, ~0ULL);
}

VOID
PerfReleaseRecords(
    PPERF_DATA Perf
    )
{
    PerfReleaseStacks(Perf);
    if (Perf->Decomp != NULL) {
        Perf->Rtl->Unmap(Perf->Rtl, Perf->Decomp, Perf->DecompCapacity);
        Perf->Decomp = NULL;
    }
    if (Perf->Held != NULL) {
        Perf->Rtl->Unmap(Perf->Rtl, Perf->Held, 2 * Perf->HeldBytes);
        Perf->Held = NULL;
    }
}
