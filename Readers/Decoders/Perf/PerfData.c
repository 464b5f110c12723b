/*++

Module Name:

    PerfData.c

Abstract:

    perf.data, as `perf record` writes it, read without perf: detection by
    the PERFILE2 magic, the file header (attrs with their ids, the data
    section, the feature bitmap and the feature sections after the data)
    and pipe mode's header (`perf record -o -`: attrs, tracing data and
    features come as records before the events).  The records themselves
    are PerfDataRecords.c's.

    Features read: TRACING_DATA (the event formats, kallsyms and printk
    formats, parsed by the trace.dat reader's code: TracingData.h),
    EVENT_DESC (the events' names), BUILD_ID (checked before a mapped
    file's symbols are used: PerfDataSymbols.c), and the facts perf
    report --header-only prints (host, kernel, command line, CPUs,
    memory, clock data), which become `metadata` rows.  Attrs without a
    name are named as perf names them: a tracepoint "system:event" from
    its format, a software or hardware event by its config.

Environment:

    Core: no C runtime; the OS only through PRTL.  Calls the import
    context (TraceImport.h), the tracing-data parser (Ftrace/TracingData.h),
    PerfDataRecords.c and PerfDataSymbols.c.

--*/

#include "PerfData.h"
#include "Readers/Decoders/Decoders.h"

static
VOID
CopyName(
    PPERF_ATTR Attr,
    PCSZ Name,
    SIZE_T Length
    )
{
    SIZE_T Index;

    if (Length >= sizeof(Attr->Name)) {
        Length = sizeof(Attr->Name) - 1;
    }
    for (Index = 0; Index < Length && Name[Index] != '\0'; Index++) {
        Attr->Name[Index] = Name[Index];
    }
    Attr->Name[Index] = '\0';
}

static
VOID
DefaultName(
    PPERF_ATTR Attr
    )
/*++

Routine Description:

    The name perf gives an event without EVENT_DESC (util/evsel.c): the
    software and hardware events by config; a tracepoint's is found from
    its format when the tracing data is read (PerfNameTracepoints).

--*/
{
    static PCSZ const Software[] = {
        "cpu-clock", "task-clock", "page-faults", "context-switches",
        "cpu-migrations", "minor-faults", "major-faults",
        "alignment-faults", "emulation-faults", "dummy", "bpf-output",
        "cgroup-switches"
    };
    static PCSZ const Hardware[] = {
        "cycles", "instructions", "cache-references", "cache-misses",
        "branches", "branch-misses", "bus-cycles", "stalled-cycles-frontend",
        "stalled-cycles-backend", "ref-cycles"
    };
    PCSZ Name = NULL;

    if (Attr->Type == PERF_TYPE_SOFTWARE &&
        Attr->Config < ARRAYSIZE(Software)) {
        Name = Software[Attr->Config];
    } else if (Attr->Type == PERF_TYPE_HARDWARE &&
               Attr->Config < ARRAYSIZE(Hardware)) {
        Name = Hardware[Attr->Config];
    }
    if (Name != NULL) {
        CopyName(Attr, Name, RtlStringLength(Name));
    } else {
        RtlFormat(Attr->Name, sizeof(Attr->Name), "raw 0x%llx:0x%llx",
                  (ULONGLONG)Attr->Type, Attr->Config);
    }
}

RTL_STATUS
PerfAddAttr(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    const BYTE *Bytes,
    ULONG Size,
    const BYTE *Ids,
    ULONGLONG IdCount
    )
/*++

Routine Description:

    Adds an event's perf_event_attr (Size bytes at file offset Offset) and
    the ids its records carry.

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    PPERF_ATTR Attr;
    ULONGLONG Index;
    RTL_STATUS Status;

    if (Size < PERF_ATTR_SIZE_VER0) {
        return TraceImportByteError(Import, Offset, "an event attr of %u "
                                    "bytes (at least %u expected)", Size,
                                    PERF_ATTR_SIZE_VER0);
    }
    if (Perf->AttrCount >= PERF_MAX_ATTRS) {
        return TraceImportByteError(Import, Offset, "more than %u event "
                                    "attrs", PERF_MAX_ATTRS);
    }
    if (IdCount > PERF_MAX_IDS - Perf->IdCount) {
        return TraceImportByteError(Import, Offset, "more than %u event "
                                    "ids", PERF_MAX_IDS);
    }
    Status = RtlGrowPages(Perf->Rtl, (PVOID *)&Perf->Attrs, &Perf->AttrBytes,
                          (Perf->AttrCount + 1) * sizeof(PERF_ATTR),
                          RTL_PAGE_SIZE);
    if (RTL_SUCCESS(Status)) {
        Status = RtlGrowPages(Perf->Rtl, (PVOID *)&Perf->Ids, &Perf->IdBytes,
                              (SIZE_T)(Perf->IdCount + IdCount) *
                              sizeof(PERF_ID), RTL_PAGE_SIZE);
    }
    if (!RTL_SUCCESS(Status)) {
        return TraceImportByteError(Import, Offset, "no memory for the "
                                    "event attrs");
    }

    Attr = &Perf->Attrs[Perf->AttrCount];
    Perf->Rtl->FillMemory(Attr, sizeof(*Attr), 0);
    Attr->Type = RtlReadUInt32(Bytes);
    Attr->Config = RtlReadUInt64(Bytes + 8);
    Attr->SamplePeriod = RtlReadUInt64(Bytes + 16);
    Attr->SampleType = RtlReadUInt64(Bytes + 24);
    Attr->ReadFormat = RtlReadUInt64(Bytes + 32);
    Attr->Flags = RtlReadUInt64(Bytes + 40);
    if (Size >= 80) {
        Attr->BranchSampleType = RtlReadUInt64(Bytes + 72);
    }
    if (Size >= 88) {
        Attr->RegsUser = PerfCountBits(RtlReadUInt64(Bytes + 80));
    }
    if (Size >= 104) {
        Attr->RegsIntr = PerfCountBits(RtlReadUInt64(Bytes + 96));
    }
    if (Size >= 96 && (Attr->Flags & (1ULL << 25)) != 0) {
        Perf->UseClockId = TRUE;
        Perf->ClockId = RtlReadUInt32(Bytes + 92);
    }
    Attr->ByteCount = Size < PERF_ATTR_BYTES ? Size : PERF_ATTR_BYTES;
    Perf->Rtl->CopyMemory(Attr->Bytes, Bytes, Attr->ByteCount);
    Attr->NameId = TRACE_STRING_NULL;
    Attr->Hard = TRACE_NULL_ULONG;
    Attr->Kind = PerfEventSample;
    if (Attr->Type == PERF_TYPE_TRACEPOINT) {
        Attr->Kind = PerfEventTracepoint;
    } else if (Attr->Type == PERF_TYPE_SOFTWARE &&
               (Attr->Config == PERF_COUNT_SW_PAGE_FAULTS ||
                Attr->Config == PERF_COUNT_SW_PAGE_FAULTS_MIN ||
                Attr->Config == PERF_COUNT_SW_PAGE_FAULTS_MAJ)) {
        Attr->Kind = PerfEventPageFault;
        Attr->Hard = Attr->Config == PERF_COUNT_SW_PAGE_FAULTS_MAJ ? 1 :
                     Attr->Config == PERF_COUNT_SW_PAGE_FAULTS_MIN ? 0 :
                     TRACE_NULL_ULONG;
    }
    if ((Attr->SampleType & ~PERF_SAMPLE_KNOWN) != 0) {
        return TraceImportByteError(Import, Offset + 24, "sample_type "
                                    "0x%llx has bits this reader does not "
                                    "know (0x%llx)", Attr->SampleType,
                                    Attr->SampleType & ~PERF_SAMPLE_KNOWN);
    }
    DefaultName(Attr);

    for (Index = 0; Index < IdCount; Index++) {
        Perf->Ids[Perf->IdCount].Id = RtlReadUInt64(Ids + Index * 8);
        Perf->Ids[Perf->IdCount].Attr = Perf->AttrCount;
        Perf->Ids[Perf->IdCount].Padding = 0;
        Perf->IdCount++;
    }
    Perf->IdsSorted = FALSE;
    Perf->AttrCount++;
    Perf->SameLayout = Perf->Attrs[0].SampleType == Attr->SampleType &&
                       (Perf->AttrCount == 1 || Perf->SameLayout);
    return RTL_STATUS_OK;
}

static
VOID
SortIds(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    Sorts the ids for binary search (insertion sort: a recording has a
    few ids per event and CPU, added in nearly sorted order).

--*/
{
    ULONG Index;

    for (Index = 1; Index < Perf->IdCount; Index++) {
        PERF_ID Entry = Perf->Ids[Index];
        ULONG Slot = Index;

        while (Slot > 0 && Perf->Ids[Slot - 1].Id > Entry.Id) {
            Perf->Ids[Slot] = Perf->Ids[Slot - 1];
            Slot--;
        }
        Perf->Ids[Slot] = Entry;
    }
    Perf->IdsSorted = TRUE;
}

PPERF_ATTR
PerfFindAttr(
    PPERF_DATA Perf,
    ULONGLONG Id
    )
/*++

Routine Description:

    The attr of the records that carry Id, or NULL.

--*/
{
    ULONG Low = 0;
    ULONG High;

    if (!Perf->IdsSorted) {
        SortIds(Perf);
    }
    High = Perf->IdCount;
    while (Low < High) {
        ULONG Middle = Low + (High - Low) / 2;

        if (Perf->Ids[Middle].Id < Id) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }
    if (Low < Perf->IdCount && Perf->Ids[Low].Id == Id) {
        return &Perf->Attrs[Perf->Ids[Low].Attr];
    }
    return NULL;
}

RTL_STATUS
PerfSetName(
    PPERF_DATA Perf,
    ULONGLONG Id,
    PCSZ Name,
    SIZE_T Length
    )
{
    PPERF_ATTR Attr = PerfFindAttr(Perf, Id);

    if (Attr != NULL && Length != 0) {
        CopyName(Attr, Name, Length);
    }
    return RTL_STATUS_OK;
}

static
VOID
NameTracepoints(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    Tracepoint attrs still named by number take "system:event" from the
    format whose id is their config, as perf names them.

--*/
{
    PTRACE_EVENT_TABLE Table;
    ULONG Index;

    if (Perf->Tracing == NULL) {
        return;
    }
    Table = TracingDataSink(Perf->Tracing)->Table;
    for (Index = 0; Index < Perf->AttrCount; Index++) {
        PPERF_ATTR Attr = &Perf->Attrs[Index];
        PTRACE_EVENT_FORMAT Format;

        if (Attr->Type != PERF_TYPE_TRACEPOINT ||
            !TextStartsWith(Attr->Name,
                            Attr->Name + RtlStringLength(Attr->Name),
                            "raw ") ||
            Attr->Config > TRACE_EVENT_MAX_ID) {
            continue;
        }
        Format = TraceEventLookup(Table, (ULONG)Attr->Config);
        if (Format != NULL) {
            RtlFormat(Attr->Name, sizeof(Attr->Name), "%s:%s",
                      Format->System, Format->Name);
        }
    }
}

static
RTL_STATUS
ReadEventDesc(
    PPERF_DATA Perf,
    ULONGLONG Offset,
    ULONGLONG Size
    )
/*++

Routine Description:

    EVENT_DESC: u32 events, u32 attr size; per event its attr, u32 id
    count, its name (u32 length, then the NUL-padded text) and its ids.
    Only the names are taken (the attrs came before).

--*/
{
    const BYTE *Data = Perf->Buffer + Offset;
    ULONGLONG Position = 8;
    ULONG Events;
    ULONG AttrSize;
    ULONG Index;

    if (Size < 8) {
        return TraceImportByteError(Perf->Import, Offset, "EVENT_DESC of "
                                    "%llu bytes", Size);
    }
    Events = RtlReadUInt32(Data);
    AttrSize = RtlReadUInt32(Data + 4);
    for (Index = 0; Index < Events; Index++) {
        ULONG IdCount;
        ULONG NameLength;
        ULONG IdIndex;
        PCSZ Name;

        if (Size - Position < (ULONGLONG)AttrSize + 8) {
            goto Truncated;
        }
        Position += AttrSize;
        IdCount = RtlReadUInt32(Data + Position);
        NameLength = RtlReadUInt32(Data + Position + 4);
        Position += 8;
        if (Size - Position < NameLength ||
            Size - Position - NameLength < (ULONGLONG)IdCount * 8) {
            goto Truncated;
        }
        Name = (PCSZ)Data + Position;
        Position += NameLength;
        for (IdIndex = 0; IdIndex < IdCount; IdIndex++) {
            PerfSetName(Perf, RtlReadUInt64(Data + Position), Name,
                        NameLength);
            Position += 8;
        }
    }
    return RTL_STATUS_OK;

Truncated:
    return TraceImportByteError(Perf->Import, Offset + Position, "EVENT_DESC "
                                "runs past its section (event %u)", Index);
}

static
BOOL
FeatureString(
    const BYTE *Data,
    ULONGLONG Size,
    PULONGLONG Position,
    PCSZ *Text,
    PULONG Length
    )
/*++

Routine Description:

    A string of a feature section: u32 length (NULs padding it to 64
    bytes included), then the text.

--*/
{
    ULONG Bytes;
    ULONG Index;

    if (Size - *Position < 4) {
        return FALSE;
    }
    Bytes = RtlReadUInt32(Data + *Position);
    if (Bytes > Size - *Position - 4) {
        return FALSE;
    }
    *Text = (PCSZ)Data + *Position + 4;
    for (Index = 0; Index < Bytes && (*Text)[Index] != '\0'; Index++) {
    }
    *Length = Index;
    *Position += 4 + (ULONGLONG)Bytes;
    return TRUE;
}

static
VOID
CopyHostField(
    PCHAR Field,
    SIZE_T FieldSize,
    PCSZ Text,
    ULONG Length
    )
{
    SIZE_T Index;

    for (Index = 0; Index + 1 < FieldSize && Index < Length; Index++) {
        Field[Index] = Text[Index];
    }
    Field[Index] = '\0';
}

static
RTL_STATUS
ReadFacts(
    PPERF_DATA Perf,
    ULONG Bit,
    ULONGLONG Offset,
    ULONGLONG Size
    )
/*++

Routine Description:

    The header facts perf report --header-only prints, as `metadata` rows
    named perf.* (docs/reader-perf-data.md lists them); HOSTNAME and
    OSRELEASE are also the recording's host.  A section too short for its
    fact is skipped (perf skips it too).

--*/
{
    static PCSZ const Strings[] = {
        NULL, NULL, NULL, "perf.hostname", "perf.os_release", "perf.version",
        "perf.arch", NULL, "perf.cpu_desc", "perf.cpu_id"
    };
    PTRACE_IMPORT Import = Perf->Import;
    const BYTE *Data = Perf->Buffer + Offset;
    ULONGLONG Position = 0;
    PCSZ Text;
    ULONG Length;
    RTL_STATUS Status = RTL_STATUS_OK;

    switch (Bit) {
    case PERF_FEATURE_HOSTNAME:
    case PERF_FEATURE_OSRELEASE:
    case PERF_FEATURE_VERSION:
    case PERF_FEATURE_ARCH:
    case PERF_FEATURE_CPUDESC:
    case PERF_FEATURE_CPUID:
        if (!FeatureString(Data, Size, &Position, &Text, &Length)) {
            return RTL_STATUS_OK;
        }
        if (Bit == PERF_FEATURE_HOSTNAME) {
            CopyHostField(Import->RecordedHost.HostName,
                          sizeof(Import->RecordedHost.HostName), Text,
                          Length);
        } else if (Bit == PERF_FEATURE_OSRELEASE) {
            CopyHostField(Import->RecordedHost.KernelRelease,
                          sizeof(Import->RecordedHost.KernelRelease), Text,
                          Length);
        }
        return TraceImportMetadata(Import, Strings[Bit], 0, Text, Length);

    case PERF_FEATURE_NRCPUS:
        if (Size >= 8) {
            Status = TraceImportMetadata(Import, "perf.nr_cpus_available",
                                         RtlReadUInt32(Data), NULL, 0);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportMetadata(Import, "perf.nr_cpus_online",
                                             RtlReadUInt32(Data + 4), NULL, 0);
            }
        }
        return Status;

    case PERF_FEATURE_TOTAL_MEM:
        return Size >= 8 ? TraceImportMetadata(Import, "perf.total_mem_kb",
                                               (LONGLONG)RtlReadUInt64(Data),
                                               NULL, 0) : RTL_STATUS_OK;

    case PERF_FEATURE_CMDLINE: {
        CHAR Line[4096];
        ULONG Used = 0;
        ULONG Count;
        ULONG Index;

        if (Size < 4) {
            return RTL_STATUS_OK;
        }
        Count = RtlReadUInt32(Data);
        Position = 4;
        for (Index = 0; Index < Count &&
                        FeatureString(Data, Size, &Position, &Text, &Length);
             Index++) {
            ULONG Copy;

            if (Index != 0 && Used < sizeof(Line)) {
                Line[Used++] = ' ';
            }
            for (Copy = 0; Copy < Length && Used < sizeof(Line); Copy++) {
                Line[Used++] = Text[Copy];
            }
        }
        return TraceImportMetadata(Import, "perf.cmdline", 0, Line, Used);
    }

    case PERF_FEATURE_SAMPLE_TIME:
        if (Size >= 16) {
            Status = TraceImportMetadata(Import, "perf.first_sample_time",
                                         (LONGLONG)RtlReadUInt64(Data),
                                         NULL, 0);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportMetadata(Import, "perf.last_sample_time",
                                             (LONGLONG)RtlReadUInt64(Data + 8),
                                             NULL, 0);
            }
        }
        return Status;

    case PERF_FEATURE_CLOCKID:
        return Size >= 8 ? TraceImportMetadata(Import, "perf.clock_res_ns",
                                               (LONGLONG)RtlReadUInt64(Data),
                                               NULL, 0) : RTL_STATUS_OK;

    case PERF_FEATURE_CLOCK_DATA:
        if (Size >= 24) {
            Status = TraceImportMetadata(Import, "perf.clock_data.clockid",
                                         RtlReadUInt32(Data + 4), NULL, 0);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportMetadata(Import,
                                             "perf.clock_data.wall_clock_ns",
                                             (LONGLONG)RtlReadUInt64(Data + 8),
                                             NULL, 0);
            }
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportMetadata(
                             Import, "perf.clock_data.clock_ns",
                             (LONGLONG)RtlReadUInt64(Data + 16), NULL, 0);
            }
        }
        return Status;

    case PERF_FEATURE_COMPRESSED:
        if (Size >= 12) {
            BOOL Zstd = RtlReadUInt32(Data + 4) == 1;

            Status = TraceImportMetadata(Import, "perf.compression", 0,
                                         Zstd ? "zstd" : "unknown",
                                         Zstd ? 4 : 7);
            if (RTL_SUCCESS(Status)) {
                Status = TraceImportMetadata(Import, "perf.compression_level",
                                             RtlReadUInt32(Data + 8), NULL, 0);
            }
        }
        return Status;

    default:
        return RTL_STATUS_OK;
    }
}

RTL_STATUS
PerfFeature(
    PPERF_DATA Perf,
    ULONG Bit,
    ULONGLONG Offset,
    ULONGLONG Size
    )
/*++

Routine Description:

    One feature section (file mode) or HEADER_FEATURE record's payload
    (pipe mode), Size bytes at file offset Offset.

--*/
{
    RTL_STATUS Status;

    if (Offset > Perf->Length || Size > Perf->Length - Offset) {
        return TraceImportByteError(Perf->Import, Offset, "feature %u "
                                    "(%llu bytes) runs past the end of the "
                                    "file", Bit, Size);
    }
    switch (Bit) {
    case PERF_FEATURE_TRACING_DATA:
        if (Perf->Tracing != NULL) {
            return RTL_STATUS_OK;
        }
        Status = TracingDataOpen(Perf->Import, Offset, Size, &Perf->Tracing);
        if (RTL_SUCCESS(Status)) {
            NameTracepoints(Perf);
        }
        return Status;
    case PERF_FEATURE_BUILD_ID:
        Perf->BuildIds = Perf->Buffer + Offset;
        Perf->BuildIdsSize = Size;
        return RTL_STATUS_OK;
    case PERF_FEATURE_EVENT_DESC:
        Status = ReadEventDesc(Perf, Offset, Size);
        return Status;
    default:
        return ReadFacts(Perf, Bit, Offset, Size);
    }
}

static
RTL_STATUS
ReadFileHeader(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    The file header: the attrs (each followed by the section of its
    ids), the data section, and the feature sections after the data (one
    {offset, size} per bit set in the bitmap, in bit order).  Features
    are read before the records: the tracing data names the events the
    samples carry.

--*/
{
    PTRACE_IMPORT Import = Perf->Import;
    const BYTE *Header = Perf->Buffer;
    ULONGLONG AttrSize, AttrsOffset, AttrsSize;
    ULONGLONG DataOffset, DataSize;
    ULONGLONG Index;
    ULONGLONG Sections;
    ULONG Bit;
    RTL_STATUS Status;

    if (Perf->Length < PERF_FILE_HEADER_SIZE ||
        RtlReadUInt64(Header + 8) < PERF_FILE_HEADER_SIZE) {
        return TraceImportByteError(Import, 8, "a perf.data file header of "
                                    "%llu bytes (%u expected)",
                                    Perf->Length < 16 ? 0ULL :
                                    RtlReadUInt64(Header + 8),
                                    PERF_FILE_HEADER_SIZE);
    }
    AttrSize = RtlReadUInt64(Header + 16);
    AttrsOffset = RtlReadUInt64(Header + 24);
    AttrsSize = RtlReadUInt64(Header + 32);
    DataOffset = RtlReadUInt64(Header + 40);
    DataSize = RtlReadUInt64(Header + 48);

    if (AttrSize < PERF_ATTR_SIZE_VER0 + 16 || AttrSize > 4096) {
        return TraceImportByteError(Import, 16, "attr size %llu", AttrSize);
    }
    if (AttrsOffset > Perf->Length || AttrsSize > Perf->Length - AttrsOffset) {
        return TraceImportByteError(Import, 24, "the attrs (%llu bytes at "
                                    "%llu) run past the end of the file",
                                    AttrsSize, AttrsOffset);
    }
    if (DataOffset > Perf->Length) {
        return TraceImportByteError(Import, 40, "the data offset %llu is "
                                    "past the end of the file", DataOffset);
    }

    for (Index = 0; Index + AttrSize <= AttrsSize; Index += AttrSize) {
        ULONGLONG At = AttrsOffset + Index;
        ULONGLONG IdsOffset = RtlReadUInt64(Perf->Buffer + At + AttrSize - 16);
        ULONGLONG IdsSize = RtlReadUInt64(Perf->Buffer + At + AttrSize - 8);

        if (IdsOffset > Perf->Length || IdsSize > Perf->Length - IdsOffset) {
            return TraceImportByteError(Import, At + AttrSize - 16, "the ids "
                                        "of attr %llu (%llu bytes at %llu) "
                                        "run past the end of the file",
                                        Index / AttrSize, IdsSize, IdsOffset);
        }
        Status = PerfAddAttr(Perf, At, Perf->Buffer + At,
                             (ULONG)(AttrSize - 16), Perf->Buffer + IdsOffset,
                             IdsSize / 8);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    if (Perf->AttrCount == 0) {
        return TraceImportByteError(Import, 24, "no event attrs");
    }

    //
    // A file perf did not finish writing (killed perf record) says data
    // size 0: its records run to the end of the file, as perf reads them.
    // A file cut short (its data runs past its end) is read up to the
    // cut, which is then the error; its feature sections are gone.
    //

    Perf->DataOffset = DataOffset;
    Perf->DataSize = DataSize;
    if (DataSize == 0 || DataSize > Perf->Length - DataOffset) {
        Perf->Truncated = DataSize != 0;
        Perf->DataEnd = Perf->Length;
        return RTL_STATUS_OK;
    }
    Perf->DataEnd = DataOffset + DataSize;

    Sections = Perf->DataEnd;
    for (Bit = 0; Bit < PERF_FEATURE_BITS; Bit++) {
        ULONGLONG Word = RtlReadUInt64(Header + 72 + (Bit / 64) * 8);

        if ((Word & (1ULL << (Bit % 64))) == 0) {
            continue;
        }
        if (Perf->Length - Sections < 16) {
            return TraceImportByteError(Import, Sections, "the feature "
                                        "sections' table ends at the end of "
                                        "the file (feature %u)", Bit);
        }
        Status = PerfFeature(Perf, Bit, RtlReadUInt64(Perf->Buffer + Sections),
                             RtlReadUInt64(Perf->Buffer + Sections + 8));
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Sections += 16;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
StateFacts(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    What the reader found: each event's name (perf.event, in attr order)
    and its perf_event_attr as the file has it, in hex (perf.attr.NAME:
    what perf's scripts get as param_dict["attr"]), the records lost and
    those of types it does not store.

--*/
{
    static const CHAR Digits[] = "0123456789abcdef";
    RTL_ERROR Error = Perf->Import->Error;
    RTL_STATUS Status = RTL_STATUS_OK;
    CHAR Key[sizeof("perf.attr.") + PERF_NAME_SIZE];
    CHAR Hex[2 * PERF_ATTR_BYTES];
    ULONG Index, Byte;

    for (Index = 0; Index < Perf->AttrCount && RTL_SUCCESS(Status);
         Index++) {
        const PERF_ATTR *Attr = &Perf->Attrs[Index];

        Status = TraceImportMetadata(Perf->Import, "perf.event", 0,
                                     Attr->Name,
                                     (ULONG)RtlStringLength(Attr->Name));
        for (Byte = 0; Byte < Attr->ByteCount; Byte++) {
            Hex[2 * Byte] = Digits[Attr->Bytes[Byte] >> 4];
            Hex[2 * Byte + 1] = Digits[Attr->Bytes[Byte] & 15];
        }
        RtlFormat(Key, sizeof(Key), "perf.attr.%s", Attr->Name);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportMetadata(Perf->Import, Key, 0, Hex,
                                         2 * Attr->ByteCount);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportMetadata(Perf->Import, "perf.lost_records",
                                     (LONGLONG)Perf->LostRecords, NULL, 0);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportMetadata(Perf->Import, "perf.lost_samples",
                                     (LONGLONG)Perf->LostSamples, NULL, 0);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportMetadata(Perf->Import, "perf.skipped_records",
                                     (LONGLONG)Perf->Skipped, NULL, 0);
    }
    if (!RTL_SUCCESS(Status) && Error.Status != RTL_STATUS_OK) {
        Perf->Import->Error = Error;
    }
    return Status;
}

BOOL
PerfDataDetect(
    PTRACE_IMPORT Import
    )
{
    return Import->Buffer != NULL && Import->Length >= 16 &&
           RtlReadUInt64(Import->Buffer) == PERF_MAGIC2;
}

static
VOID
DescribeTask(
    PVOID Context,
    ULONG Tid,
    PULONG Pid,
    PULONG CommId
    )
/*++

Routine Description:

    The resolver the tracepoint sink asks (TraceEvent.h): the sample's pid
    for its thread, and the comm perf's COMM and FORK records gave it.

--*/
{
    PPERF_DATA Perf = Context;
    ULONGLONG Value;

    *Pid = (Tid == Perf->CurrentTid) ? Perf->CurrentPid : TRACE_NULL_ULONG;
    *CommId = TRACE_NULL_ULONG;
    if (PerfFindTask(Perf, Tid, &Value)) {
        *CommId = (ULONG)(Value >> 32);
        if (*Pid == TRACE_NULL_ULONG) {
            *Pid = (ULONG)Value;
        }
    }
}

static
ULONG
ModuleOf(
    PVOID Context,
    ULONG Pid,
    ULONGLONG Address,
    PULONGLONG Offset,
    PULONG Flags
    )
{
    PPERF_DATA Perf = Context;
    const PERF_MAPPING *Mapping;

    *Flags = 0;
    if (Pid == TRACE_NULL_ULONG) {
        return TRACE_NULL_ULONG;
    }
    Mapping = PerfMapsFind(&Perf->Maps, Pid, Address);
    if (Mapping == NULL) {
        return TRACE_NULL_ULONG;
    }
    if (Offset != NULL) {
        *Offset = Address - Mapping->Start + Mapping->Offset;
    }
    *Flags = TRACE_MAPPING_KNOWN |
             (Mapping->Exec ? TRACE_MAPPING_EXEC : 0) |
             (Mapping->PathId != TRACE_STRING_NULL ? TRACE_MAPPING_FILE : 0);
    return Mapping->PathId;
}

static
PCSZ
ClockName(
    PPERF_DATA Perf
    )
/*++

Routine Description:

    The clock of the samples' time: perf's own (local_clock, named
    "perf") unless the events were opened with -k CLOCKID.

--*/
{
    if (!Perf->UseClockId) {
        return "perf";
    }
    switch (Perf->ClockId) {
    case 0:
        return "realtime";
    case 1:
        return "mono";
    case 4:
        return "mono_raw";
    case 7:
        return "boot";
    case 11:
        return "tai";
    default:
        return "unknown";
    }
}

RTL_STATUS
PerfDataImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports a perf.data file, or a pipe-mode stream saved to a file (a
    TRACE_FORMAT_IMPORT: TraceImport.h says what every one does).

--*/
{
    PRTL Rtl = Import->Rtl;
    PPERF_DATA Perf = NULL;
    SIZE_T Bytes = (SIZE_T)ALIGN_UP(sizeof(PERF_DATA), RTL_PAGE_SIZE);
    PCSZ Clock;
    ULONG SwapperId;
    RTL_STATUS Status;

    if (!PerfDataDetect(Import)) {
        return TraceImportByteError(Import, 0, "not a perf.data file (no "
                                    "PERFILE2 magic)");
    }
    Status = Rtl->AllocatePages(Rtl, Bytes, (PVOID *)&Perf);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Perf->Import = Import;
    Perf->Rtl = Rtl;
    Perf->Buffer = Import->Buffer;
    Perf->Length = Import->Length;
    Perf->Resolver.DescribeTask = DescribeTask;
    Perf->Resolver.ModuleOf = ModuleOf;
    Perf->Resolver.Context = Perf;
    Perf->CurrentTid = TRACE_NULL_ULONG;
    Perf->CurrentPid = TRACE_NULL_ULONG;
    PerfMapsInitialize(&Perf->Maps, Rtl);
    Status = TraceHashInitialize(Rtl, &Perf->Tasks);
    if (RTL_SUCCESS(Status)) {
        Status = PerfSymbolsInitialize(Perf);
        if (!RTL_SUCCESS(Status)) {
            TraceHashDestroy(&Perf->Tasks);
        }
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        Rtl->Unmap(Rtl, Perf, Bytes);
        return Status;
    }

    //
    // perf's idle task (pid 0) is "swapper" before any record names it.
    //

    Status = TraceImportIntern(Import, "swapper", 7, &SwapperId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashSet(&Perf->Tasks, 1, (ULONGLONG)SwapperId << 32);
    }
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    if (RtlReadUInt64(Import->Buffer + 8) == PERF_PIPE_HEADER_SIZE) {
        Perf->Pipe = TRUE;
        Perf->DataOffset = PERF_PIPE_HEADER_SIZE;
        Perf->DataEnd = Perf->Length;
    } else {
        Status = ReadFileHeader(Perf);
        if (!RTL_SUCCESS(Status)) {
            goto End;
        }
    }

    if (!Perf->Pipe) {
        Clock = ClockName(Perf);
        Status = TraceImportSetClock(Import, Clock,
                                     (ULONG)RtlStringLength(Clock));
        if (!RTL_SUCCESS(Status)) {
            goto End;
        }
    }

    Status = PerfReadRecords(Perf, Perf->DataOffset, Perf->DataEnd);
    {
        RTL_STATUS FactStatus = StateFacts(Perf);

        if (RTL_SUCCESS(Status)) {
            Status = FactStatus;
        }
    }
    if (RTL_SUCCESS(Status) && Perf->Truncated) {
        Status = TraceImportByteError(Import, Perf->Length, "the file ends "
                                      "inside its data section (%llu of its "
                                      "%llu bytes at %llu): it was cut short",
                                      (ULONGLONG)(Perf->Length -
                                                  Perf->DataOffset),
                                      Perf->DataSize, Perf->DataOffset);
    }

    if (RTL_SUCCESS(Status) && Perf->Pipe) {
        Clock = ClockName(Perf);
        Status = TraceImportSetClock(Import, Clock,
                                     (ULONG)RtlStringLength(Clock));
    }

End:
    PerfReleaseRecords(Perf);
    PerfReleaseSymbols(Perf);
    if (Perf->Tracing != NULL) {
        TracingDataClose(Perf->Tracing);
    }
    PerfMapsFree(&Perf->Maps);
    TraceHashDestroy(&Perf->Tasks);
    if (Perf->Attrs != NULL) {
        Rtl->Unmap(Rtl, Perf->Attrs, Perf->AttrBytes);
    }
    if (Perf->Ids != NULL) {
        Rtl->Unmap(Rtl, Perf->Ids, Perf->IdBytes);
    }
    Rtl->Unmap(Rtl, Perf, Bytes);
    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT PerfDataDecoder = {
    "perf-data",
    "perf record's perf.data, file or pipe mode",
    0,
    PerfDataDetect,
    PerfDataImport
};
