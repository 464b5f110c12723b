/*++

Module Name:

    TraceDatHeader.c

Abstract:

    trace.dat's layouts: the initial format (magic, version, endianness,
    long and page size), v6's fixed sequence of parts and v7's options
    and sections, and the metadata parts both share (header_page,
    formats, kallsyms, printk formats, cmdlines, options, the clock).

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns the TRACE_DAT
    fields the metadata fills (layout, versions, time corrections, CPU
    list, section offsets).  Calls TraceDatSection.c, TraceDatSymbols.c,
    the event table (TraceEvent.h) and the import context.

--*/

#include "TraceDatInternal.h"
#include "Readers/Decoders/Decoders.h"
#include "TracingData.h"

//
// The metadata parts, the same in v6 and in v7's sections.
//

static
RTL_STATUS
ParseHeaderInfo(
    PDAT_READER Reader
    )
{
    PTRACE_DAT Dat = Reader->Dat;
    ULONGLONG Size;
    const BYTE *Text;
    SIZE_T Start;
    PCSZ Reason;
    RTL_STATUS Status;

    Status = DatExpectString(Reader, "header_page", "page header description");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 8, &Size, "header_page size");
    }
    Start = Reader->Position;
    if (RTL_SUCCESS(Status)) {
        Status = DatReadBytes(Reader, Size, &Text, "header_page");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Status = TraceEventParseHeaderPage((PCSZ)Text, (SIZE_T)Size, &Dat->Layout,
                                       &Reason);
    if (!RTL_SUCCESS(Status)) {
        Reader->Position = Start;
        return DatReaderError(Reader, Status, "%s", Reason);
    }

    Status = DatExpectString(Reader, "header_event",
                             "event header description");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 8, &Size, "header_event size");
    }
    Start = Reader->Position;
    if (RTL_SUCCESS(Status)) {
        Status = DatReadBytes(Reader, Size, &Text, "header_event");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Status = TraceEventParseHeaderEvent((PCSZ)Text, (SIZE_T)Size, &Reason);
    if (!RTL_SUCCESS(Status)) {
        Reader->Position = Start;
        return DatReaderError(Reader, Status, "%s", Reason);
    }

    Dat->HaveLayout = TRUE;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseFormats(
    PDAT_READER Reader,
    PCSZ System,
    ULONG SystemLength
    )
/*++

Routine Description:

    Reads a count and that many (size, format file) pairs of one system.

--*/
{
    PTRACE_DAT Dat = Reader->Dat;
    ULONGLONG Count;
    ULONGLONG Index;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 4, &Count, "event format count");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Count > MAX_FORMATS) {
        Reader->Position -= 4;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "absurd event format count %llu", Count);
    }

    for (Index = 0; Index < Count; Index++) {
        ULONGLONG Size;
        const BYTE *Text;
        SIZE_T Start;
        PCSZ Reason;

        Status = DatReadNumber(Reader, 8, &Size, "event format size");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Size > MAX_FORMAT_BYTES) {
            Reader->Position -= 8;
            return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                                  "absurd event format size %llu", Size);
        }
        Start = Reader->Position;
        Status = DatReadBytes(Reader, Size, &Text, "event format");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Dat->DeferFormats) {
            Status = TraceEventTableAddFormatDeferred(&Dat->Table, System,
                                                      SystemLength,
                                                      (PCSZ)Text,
                                                      (SIZE_T)Size, &Reason);
        } else {
            Status = TraceEventTableAddFormat(&Dat->Table, System,
                                              SystemLength, (PCSZ)Text,
                                              (SIZE_T)Size, &Reason);
        }
        if (!RTL_SUCCESS(Status)) {
            Reader->Position = Start;
            return DatReaderError(Reader, Status, "%s (format %llu of system "
                                  "%s)", Reason, Index + 1, System);
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseEventSystems(
    PDAT_READER Reader
    )
{
    ULONGLONG Systems;
    ULONGLONG Index;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 4, &Systems, "event system count");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Systems > MAX_SYSTEMS) {
        Reader->Position -= 4;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "absurd event system count %llu", Systems);
    }

    for (Index = 0; Index < Systems; Index++) {
        PCSZ System;
        ULONG Length;

        Status = DatReadString(Reader, 255, &System, &Length,
                               "event system name");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = ParseFormats(Reader, System, Length);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseKallsyms(
    PDAT_READER Reader
    )
/*++

Routine Description:

    Hands the kallsyms text to the event table; a decompressed section's
    pages go with it.

--*/
{
    PTRACE_DAT Dat = Reader->Dat;
    ULONGLONG Size;
    const BYTE *Text;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 4, &Size, "kallsyms size");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadBytes(Reader, Size, &Text, "kallsyms");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Dat->Table.SymbolTextOwned != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Dat->Table.SymbolTextOwned,
                        Dat->Table.SymbolTextOwnedSize);
    }
    TraceEventTableSetSymbols(&Dat->Table, (PCSZ)Text, (SIZE_T)Size,
                              Reader->Owned, Reader->OwnedSize);
    Reader->Owned = NULL;

    //
    // The worker's index, if it indexed this very text.
    //

    DatWaitSymbolJob(Dat);
    if (Dat->SymbolJob.IndexedText == (PCSZ)Text &&
        Dat->SymbolJob.IndexedLength == (SIZE_T)Size) {
        TraceEventTableSetSymbolIndex(&Dat->Table, &Dat->SymbolJob.Index);
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParsePrintk(
    PDAT_READER Reader
    )
{
    PTRACE_DAT Dat = Reader->Dat;
    ULONGLONG Size;
    const BYTE *Text;
    PCHAR Copy;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 4, &Size, "printk formats size");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadBytes(Reader, Size, &Text, "printk formats");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena, (SIZE_T)Size + 1,
                                (PVOID *)&Copy);
    if (!RTL_SUCCESS(Status)) {
        return DatReaderError(Reader, Status,
                              "cannot keep the printk formats");
    }
    Dat->Rtl->CopyMemory(Copy, Text, (SIZE_T)Size);
    TraceEventTableSetPrintk(&Dat->Table, Copy, (SIZE_T)Size);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseCmdlines(
    PDAT_READER Reader
    )
{
    PTRACE_DAT Dat = Reader->Dat;
    ULONGLONG Size;
    const BYTE *Text;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 8, &Size, "saved cmdlines size");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadBytes(Reader, Size, &Text, "saved cmdlines");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceEventSinkAddCmdlines(&Dat->Sink, (PCSZ)Text, (SIZE_T)Size);
}

static
VOID
SetClock(
    PCHAR Clock,
    ULONG ClockSize,
    PCSZ Text,
    SIZE_T Length
    )
/*++

Routine Description:

    Takes the clock name from trace_clock's content ("[local] global
    ..." names the one in brackets) or from a bare name.

--*/
{
    PCSZ Start = Text;
    PCSZ End = Text + Length;
    PCSZ Open = TextFindChar(Start, End, '[');
    ULONG Index = 0;

    if (Open != End) {
        PCSZ Close = TextFindChar(Open, End, ']');
        if (Close != End) {
            Start = Open + 1;
            End = Close;
        }
    }
    while (Start < End && (*Start == ' ' || *Start == '\n' || *Start == 0)) {
        Start++;
    }
    while (Start < End && (*Start > ' ' && *Start < 0x7f) &&
           Index + 1 < ClockSize) {
        Clock[Index++] = *Start++;
    }
    Clock[Index] = '\0';
}

static
BOOL
ParseSignedAnyBase(
    PCSZ Text,
    SIZE_T Length,
    PLONGLONG Value
    )
/*++

Routine Description:

    strtoll(Text, NULL, 0) for the OFFSET and DATE options.

--*/
{
    PCSZ Cursor = Text;
    PCSZ End = Text + Length;
    BOOL Negative = FALSE;
    ULONGLONG Number;

    while (Cursor < End && *Cursor == ' ') {
        Cursor++;
    }
    if (Cursor < End && (*Cursor == '-' || *Cursor == '+')) {
        Negative = (*Cursor == '-');
        Cursor++;
    }
    if (TextParseUnsigned(Cursor, End, FALSE, &Number) == NULL) {
        return FALSE;
    }
    *Value = Negative ? -(LONGLONG)Number : (LONGLONG)Number;
    return TRUE;
}

static
RTL_STATUS
ParseBufferOption(
    PTRACE_DAT Dat,
    PDAT_READER Reader
    )
/*++

Routine Description:

    A v7 BUFFER option: the instance's flyrecord section, clock, page size
    and its CPUs' data.  The top instance ("") is kept; otherwise the
    first.

--*/
{
    ULONGLONG Offset, PageSize, Count, Index;
    PCSZ Name, Clock;
    ULONG NameLength, ClockLength;
    RTL_STATUS Status;
    PTRACE_DAT_CPU Cpus;

    Status = DatReadNumber(Reader, 8, &Offset, "buffer section offset");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadString(Reader, 4096, &Name, &NameLength,
                               "buffer name");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadString(Reader, 256, &Clock, &ClockLength,
                               "buffer clock");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 4, &PageSize, "buffer page size");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 4, &Count, "buffer CPU count");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Dat->HaveBuffer && (Dat->TopInstance || NameLength != 0)) {
        return RTL_STATUS_OK;
    }

    if (Count > MAX_CPUS) {
        Reader->Position -= 4;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "absurd CPU count %llu", Count);
    }
    if (PageSize < 1024 || PageSize > (1 << 24) ||
        (PageSize & (PageSize - 1)) != 0) {
        Reader->Position -= 8;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "absurd buffer page size %llu", PageSize);
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena,
                                sizeof(TRACE_DAT_CPU) * (SIZE_T)(Count + 1),
                                (PVOID *)&Cpus);
    if (!RTL_SUCCESS(Status)) {
        return DatReaderError(Reader, Status, "cannot allocate CPU cursors");
    }

    for (Index = 0; Index < Count; Index++) {
        ULONGLONG Cpu, CpuOffset, CpuSize;

        Status = DatReadNumber(Reader, 4, &Cpu, "CPU id");
        if (RTL_SUCCESS(Status)) {
            Status = DatReadNumber(Reader, 8, &CpuOffset, "CPU data offset");
        }
        if (RTL_SUCCESS(Status)) {
            Status = DatReadNumber(Reader, 8, &CpuSize, "CPU data size");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Cpus[Index].Cpu = (ULONG)Cpu;
        Cpus[Index].Index = (ULONG)Index;
        Cpus[Index].Offset = CpuOffset;
        Cpus[Index].Size = CpuSize;
    }

    Dat->Cpus = Cpus;
    Dat->CpuCount = (ULONG)Count;
    Dat->BufferSectionOffset = Offset;
    Dat->CpuPageSize = (ULONG)PageSize;
    Dat->HaveBuffer = TRUE;
    Dat->TopInstance = (NameLength == 0);
    SetClock(Dat->Clock, sizeof(Dat->Clock), Clock, ClockLength);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseOption(
    PTRACE_DAT Dat,
    ULONG Id,
    PDAT_READER Option
    )
/*++

Routine Description:

    Interprets one option (its data in Option).  Unknown options are
    skipped.

--*/
{
    ULONGLONG Value = 0;
    ULONGLONG *Target = NULL;
    LONGLONG Signed;
    RTL_STATUS Status = RTL_STATUS_OK;

    switch (Id) {
    case OPTION_HEADER_INFO: Target = &Dat->HeaderInfoOffset; break;
    case OPTION_FTRACE_EVENTS: Target = &Dat->FtraceEventsOffset; break;
    case OPTION_EVENT_FORMATS: Target = &Dat->EventFormatsOffset; break;
    case OPTION_KALLSYMS: Target = &Dat->KallsymsOffset; break;
    case OPTION_PRINTK: Target = &Dat->PrintkOffset; break;
    case OPTION_CMDLINES: Target = &Dat->CmdlinesOffset; break;

    case OPTION_BUFFER:
        if (Dat->Version >= 7) {
            Status = ParseBufferOption(Dat, Option);
        }
        break;

    case OPTION_TRACECLOCK:
        SetClock(Dat->ClockOption, sizeof(Dat->ClockOption),
                 (PCSZ)Option->Data, Option->Length);
        break;

    case OPTION_DATE:
    case OPTION_OFFSET:
        if (ParseSignedAnyBase((PCSZ)Option->Data, Option->Length, &Signed)) {
            Dat->TsOffset += Signed;
        }
        break;

    case OPTION_TSC2NSEC:
        if (Option->Length >= 16) {
            Dat->TscMult = (ULONG)TraceEventReadNumber(Option->Data, 4);
            Dat->TscShift = (ULONG)TraceEventReadNumber(Option->Data + 4, 4);
            Dat->TscOffset = (LONGLONG)TraceEventReadNumber(Option->Data + 8,
                                                           8);
            if (Dat->TscShift > 63) {
                Dat->TscMult = 0;
            }
        }
        break;

    default:
        break;
    }

    if (Target != NULL) {
        Status = DatReadNumber(Option, 8, &Value, "section offset option");
        if (RTL_SUCCESS(Status)) {
            *Target = Value;
        }
    }

    return Status;
}

static
RTL_STATUS
ParseOptionList(
    PTRACE_DAT Dat,
    PDAT_READER Reader,
    PULONGLONG NextSection
    )
/*++

Routine Description:

    Reads options (id, size, data) up to DONE.  In v7 DONE carries the
    offset of the next options section; in v6 it is a bare zero id.

--*/
{
    RTL_STATUS Status;

    *NextSection = 0;

    for (;;) {
        ULONGLONG Id, Size;
        const BYTE *Data;
        DAT_READER Option;
        SIZE_T Start;

        Status = DatReadNumber(Reader, 2, &Id, "option id");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Id == OPTION_DONE && Dat->Version < 7) {
            return RTL_STATUS_OK;
        }
        Status = DatReadNumber(Reader, 4, &Size, "option size");
        Start = Reader->Position;
        if (RTL_SUCCESS(Status)) {
            Status = DatReadBytes(Reader, Size, &Data, "option data");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Option = *Reader;
        Option.Data = Data;
        Option.Length = (SIZE_T)Size;
        Option.Position = 0;
        Option.Owned = NULL;
        if (!Option.Decompressed) {
            Option.BaseOffset = Reader->BaseOffset + Start;
        }

        if (Id == OPTION_DONE) {
            if (Size >= 8) {
                *NextSection = TraceEventReadNumber(Data, 8);
            }
            return RTL_STATUS_OK;
        }

        Status = ParseOption(Dat, (ULONG)Id, &Option);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
}

//
// The file layouts.
//

BOOL
TraceDatDetect(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    TRUE when the input starts with trace.dat's magic (the format table
    asks, and the initial format checks it again).

--*/
{
    static const BYTE Magic[TRACE_DAT_MAGIC_LENGTH] = {
        0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
    };

    return Import->Buffer != NULL &&
           Import->Length >= TRACE_DAT_MAGIC_LENGTH &&
           Import->Rtl->CompareMemory(Import->Buffer, Magic,
                                      TRACE_DAT_MAGIC_LENGTH) == 0;
}

RTL_STATUS
DatParseInitialFormat(
    PTRACE_DAT Dat,
    PDAT_READER Reader
    )
{
    const BYTE *Magic;
    PCSZ Version;
    ULONG VersionLength;
    ULONGLONG Endian, LongSize, PageSize;
    ULONGLONG Number;
    RTL_STATUS Status;

    Status = DatReadBytes(Reader, TRACE_DAT_MAGIC_LENGTH, &Magic, "magic");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (!TraceDatDetect(Dat->Import)) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, 0,
                        "not a trace-cmd trace.dat file (bad magic)");
    }

    Status = DatReadString(Reader, 15, &Version, &VersionLength,
                           "file version");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (TextParseUnsigned(Version, Version + VersionLength, FALSE, &Number) !=
        Version + VersionLength || (Number != 6 && Number != 7)) {
        return DatError(Dat, RTL_STATUS_BAD_VERSION, TRACE_DAT_MAGIC_LENGTH,
                        "trace.dat file format version \"%s\" is not "
                        "supported (versions 6 and 7 are)", Version);
    }
    Dat->Version = (ULONG)Number;

    Status = DatReadNumber(Reader, 1, &Endian, "endianness");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 1, &LongSize, "long size");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 4, &PageSize, "page size");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Endian != 0) {
        return DatError(Dat, RTL_STATUS_BAD_VERSION, Reader->Position - 6,
                        "big-endian trace.dat files are not supported");
    }
    if (LongSize != 4 && LongSize != 8) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Reader->Position - 5,
                        "long size %llu (expected 4 or 8)", LongSize);
    }
    if (PageSize < 1024 || PageSize > (1 << 20) ||
        (PageSize & (PageSize - 1)) != 0) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Reader->Position - 4,
                        "absurd page size %llu", PageSize);
    }

    Dat->LongSize = (ULONG)LongSize;
    Dat->PageSize = (ULONG)PageSize;

    if (Dat->Version >= 7) {
        PCSZ Name, NameVersion;
        ULONG NameLength, NameVersionLength;
        SIZE_T Start = Reader->Position;

        Status = DatReadString(Reader, 64, &Name, &NameLength,
                               "compression algorithm");
        if (RTL_SUCCESS(Status)) {
            Status = DatReadString(Reader, 64, &NameVersion,
                                   &NameVersionLength,
                                   "compression version");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (RtlStringEqual(Name, "zstd")) {
            Dat->Compressed = TRUE;
            Status = DatNeedDecompressor(Dat, Start);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        } else if (!RtlStringEqual(Name, "none") && NameLength != 0) {
            return DatError(Dat, RTL_STATUS_BAD_VERSION, Start,
                            "compression \"%s\" is not supported (zstd and "
                            "none are)", Name);
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
DatParseVersion6(
    PTRACE_DAT Dat,
    PDAT_READER Reader
    )
{
    ULONGLONG Cpus, Index, Offset, Size;
    const BYTE *Tag;
    PTRACE_DAT_CPU CpuArray;
    ULONGLONG Next;
    RTL_STATUS Status;

    Status = ParseHeaderInfo(Reader);
    if (RTL_SUCCESS(Status)) {
        DatStartSymbolJobV6(Dat, Reader->Position);
        Dat->DeferFormats = TRUE;
        Status = ParseFormats(Reader, "ftrace", 6);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParseEventSystems(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParseKallsyms(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParsePrintk(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParseCmdlines(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(Reader, 4, &Cpus, "CPU count");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Cpus > MAX_CPUS) {
        Reader->Position -= 4;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "absurd CPU count %llu", Cpus);
    }

    for (;;) {
        Status = DatReadBytes(Reader, 10, &Tag, "data type (\"options\", "
                              "\"latency\" or \"flyrecord\")");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Dat->Rtl->CompareMemory(Tag, "options  ", 10) == 0) {
            Status = ParseOptionList(Dat, Reader, &Next);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            continue;
        }
        if (Dat->Rtl->CompareMemory(Tag, "latency  ", 10) == 0) {
            Reader->Position -= 10;
            return DatReaderError(Reader, RTL_STATUS_BAD_VERSION,
                                  "latency-tracer text data is not supported "
                                  "(only flyrecord event data is)");
        }
        if (Dat->Rtl->CompareMemory(Tag, "flyrecord", 10) == 0) {
            break;
        }
        Reader->Position -= 10;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "expected \"options\", \"latency\" or "
                              "\"flyrecord\"");
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena,
                                sizeof(TRACE_DAT_CPU) * (SIZE_T)(Cpus + 1),
                                (PVOID *)&CpuArray);
    if (!RTL_SUCCESS(Status)) {
        return DatReaderError(Reader, Status, "cannot allocate CPU cursors");
    }

    for (Index = 0; Index < Cpus; Index++) {
        Status = DatReadNumber(Reader, 8, &Offset, "CPU data offset");
        if (RTL_SUCCESS(Status)) {
            Status = DatReadNumber(Reader, 8, &Size, "CPU data size");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        CpuArray[Index].Cpu = (ULONG)Index;
        CpuArray[Index].Index = (ULONG)Index;
        CpuArray[Index].Offset = Offset;
        CpuArray[Index].Size = Size;
    }
    Dat->Cpus = CpuArray;
    Dat->CpuCount = (ULONG)Cpus;
    Dat->CpuPageSize = Dat->PageSize;
    Dat->HaveBuffer = TRUE;

    //
    // The trace clock follows the CPU list (files before trace-cmd 2.x
    // have none).
    //

    if (Reader->Length - Reader->Position >= 8) {
        const BYTE *Text;
        SIZE_T Start = Reader->Position;

        Status = DatReadNumber(Reader, 8, &Size, "trace clock size");
        if (RTL_SUCCESS(Status) && Size <= 4096 &&
            RTL_SUCCESS(DatReadBytes(Reader, Size, &Text, "trace clock"))) {
            SetClock(Dat->Clock, sizeof(Dat->Clock), (PCSZ)Text,
                     (SIZE_T)Size);
        } else {
            Reader->Position = Start;
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
DatParseVersion7(
    PTRACE_DAT Dat,
    PDAT_READER Reader
    )
{
    ULONGLONG OptionsOffset;
    ULONGLONG Next;
    ULONG Sections = 0;
    DAT_READER Section;
    DAT_READER Header;
    ULONGLONG Id, Flags;
    RTL_STATUS Status;

    Status = DatReadNumber(Reader, 8, &OptionsOffset, "options offset");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Next = OptionsOffset; Next != 0; ) {
        ULONGLONG This = Next;

        if (++Sections > MAX_OPTION_SECTIONS) {
            return DatError(Dat, RTL_STATUS_BAD_FORMAT, This,
                            "more than %u options sections (a loop?)",
                            MAX_OPTION_SECTIONS);
        }
        Status = DatOpenSection(Dat, This, 0, "options", &Section);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = ParseOptionList(Dat, &Section, &Next);
        DatReleaseReader(&Section);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    if (Dat->HeaderInfoOffset == 0) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, OptionsOffset,
                        "no HEADER_INFO option: the page header is not "
                        "described");
    }

    DatStartSymbolJobV7(Dat);

    //
    // The sections the options point to.
    //

    {
        static const struct {
            SIZE_T Field;
            ULONG Id;
            PCSZ Name;
        } Parts[] = {
            { FIELD_OFFSET(TRACE_DAT, HeaderInfoOffset), OPTION_HEADER_INFO,
              "header info" },
            { FIELD_OFFSET(TRACE_DAT, FtraceEventsOffset),
              OPTION_FTRACE_EVENTS, "ftrace event formats" },
            { FIELD_OFFSET(TRACE_DAT, EventFormatsOffset),
              OPTION_EVENT_FORMATS, "event formats" },
            { FIELD_OFFSET(TRACE_DAT, KallsymsOffset), OPTION_KALLSYMS,
              "kallsyms" },
            { FIELD_OFFSET(TRACE_DAT, PrintkOffset), OPTION_PRINTK,
              "printk formats" },
            { FIELD_OFFSET(TRACE_DAT, CmdlinesOffset), OPTION_CMDLINES,
              "saved cmdlines" },
        };
        ULONG Index;

        for (Index = 0; Index < ARRAYSIZE(Parts); Index++) {
            ULONGLONG Offset = *(PULONGLONG)((PBYTE)Dat + Parts[Index].Field);

            if (Offset == 0) {
                continue;
            }
            Status = DatOpenSection(Dat, Offset, Parts[Index].Id,
                                    Parts[Index].Name, &Section);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Dat->DeferFormats = Section.Owned == NULL ||
                                TraceEventTableCanKeepText(&Dat->Table);
            switch (Parts[Index].Id) {
            case OPTION_HEADER_INFO:
                Status = ParseHeaderInfo(&Section);
                break;
            case OPTION_FTRACE_EVENTS:
                Status = ParseFormats(&Section, "ftrace", 6);
                break;
            case OPTION_EVENT_FORMATS:
                Status = ParseEventSystems(&Section);
                break;
            case OPTION_KALLSYMS:
                Status = ParseKallsyms(&Section);
                break;
            case OPTION_PRINTK:
                Status = ParsePrintk(&Section);
                break;
            default:
                Status = ParseCmdlines(&Section);
                break;
            }
            if ((Parts[Index].Id == OPTION_FTRACE_EVENTS ||
                 Parts[Index].Id == OPTION_EVENT_FORMATS) &&
                Dat->DeferFormats && Section.Owned != NULL) {
                TraceEventTableKeepText(&Dat->Table, Section.Owned,
                                        Section.OwnedSize);
                Section.Owned = NULL;
            }
            DatReleaseReader(&Section);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
    }

    if (!Dat->HaveBuffer) {
        return RTL_STATUS_OK;
    }

    //
    // The flyrecord section's header says whether the CPU data is
    // compressed.
    //

    if (Dat->BufferSectionOffset > Dat->Length ||
        Dat->Length - Dat->BufferSectionOffset < 16) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Dat->Length,
                        "the flyrecord section at offset %llu is past the "
                        "end of the file (truncated?)",
                        Dat->BufferSectionOffset);
    }
    DatFileReader(Dat, Dat->BufferSectionOffset, 16, &Header);
    DatReadNumber(&Header, 2, &Id, "section id");
    DatReadNumber(&Header, 2, &Flags, "section flags");
    if (Id != OPTION_BUFFER) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Dat->BufferSectionOffset,
                        "expected the flyrecord section (id 3), found id %llu",
                        Id);
    }
    Dat->CpuDataCompressed = (Flags & SECTION_FLAG_COMPRESSED) != 0;
    if (Dat->CpuDataCompressed && !Dat->Compressed) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Dat->BufferSectionOffset,
                        "compressed CPU data in a file without compression");
    }

    return RTL_STATUS_OK;
}

//
// perf.data's TRACING_DATA (TracingData.h): the v6 metadata under perf's
// version string.
//

RTL_STATUS
TracingDataOpen(
    PTRACE_IMPORT Import,
    ULONGLONG Offset,
    ULONGLONG Length,
    PTRACING_DATA *Data
    )
{
    static const BYTE Magic[TRACE_DAT_MAGIC_LENGTH] = {
        0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
    };
    PRTL Rtl = Import->Rtl;
    PTRACE_DAT Dat = NULL;
    DAT_READER Reader;
    const BYTE *Bytes10;
    PCSZ Version;
    ULONG VersionLength;
    ULONGLONG Endian, LongSize, PageSize;
    BOOL HaveCmdlines;
    RTL_STATUS Status;

    *Data = NULL;
    if (Offset > Import->Length || Length > Import->Length - Offset) {
        return TraceImportByteError(Import, Offset, "the tracing data "
                                    "(%llu bytes) runs past the end of the "
                                    "file", Length);
    }
    Status = DatAllocate(Import, &Dat);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    DatFileReader(Dat, Offset, Length, &Reader);

    Status = DatReadBytes(&Reader, TRACE_DAT_MAGIC_LENGTH, &Bytes10,
                          "tracing data magic");
    if (RTL_SUCCESS(Status) &&
        Rtl->CompareMemory(Bytes10, Magic, TRACE_DAT_MAGIC_LENGTH) != 0) {
        Reader.Position = 0;
        Status = DatReaderError(&Reader, RTL_STATUS_BAD_FORMAT,
                                "the tracing data does not start with its "
                                "magic");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadString(&Reader, 15, &Version, &VersionLength,
                               "tracing data version");
    }
    if (!RTL_SUCCESS(Status)) {
        goto Failed;
    }
    if (!RtlStringEqual(Version, "0.5") && !RtlStringEqual(Version, "0.6")) {
        Reader.Position = TRACE_DAT_MAGIC_LENGTH;
        Status = DatReaderError(&Reader, RTL_STATUS_BAD_VERSION,
                                "tracing data version \"%s\" is not "
                                "supported (0.5 and 0.6 are)", Version);
        goto Failed;
    }
    HaveCmdlines = RtlStringEqual(Version, "0.6");

    Status = DatReadNumber(&Reader, 1, &Endian, "endianness");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(&Reader, 1, &LongSize, "long size");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(&Reader, 4, &PageSize, "page size");
    }
    if (!RTL_SUCCESS(Status)) {
        goto Failed;
    }
    if (Endian != 0) {
        Reader.Position -= 6;
        Status = DatReaderError(&Reader, RTL_STATUS_BAD_VERSION,
                                "big-endian tracing data is not supported");
        goto Failed;
    }
    if (LongSize != 4 && LongSize != 8) {
        Reader.Position -= 5;
        Status = DatReaderError(&Reader, RTL_STATUS_BAD_FORMAT,
                                "long size %llu (expected 4 or 8)", LongSize);
        goto Failed;
    }
    Dat->LongSize = (ULONG)LongSize;
    Dat->PageSize = (ULONG)PageSize;

    Status = TraceEventTableInitialize(Rtl, Dat->LongSize, &Dat->Table);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        Rtl->Unmap(Rtl, Dat, Dat->AllocationSize);
        return Status;
    }
    Status = TraceEventSinkInitialize(&Dat->Sink, Import, &Dat->Table);
    if (!RTL_SUCCESS(Status)) {
        TraceEventTableRelease(&Dat->Table);
        Rtl->Unmap(Rtl, Dat, Dat->AllocationSize);
        return Status;
    }

    Status = ParseHeaderInfo(&Reader);
    if (RTL_SUCCESS(Status)) {
        DatStartSymbolJobV6(Dat, (SIZE_T)(Reader.BaseOffset +
                                          Reader.Position));
        Dat->DeferFormats = TRUE;
        Status = ParseFormats(&Reader, "ftrace", 6);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParseEventSystems(&Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParseKallsyms(&Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ParsePrintk(&Reader);
    }
    if (RTL_SUCCESS(Status) && HaveCmdlines) {
        Status = ParseCmdlines(&Reader);
    }
    if (!RTL_SUCCESS(Status)) {
        TracingDataClose(Dat);
        return Status;
    }

    *Data = Dat;
    return RTL_STATUS_OK;

Failed:
    Rtl->Unmap(Rtl, Dat, Dat->AllocationSize);
    return Status;
}

PTRACE_EVENT_SINK
TracingDataSink(
    PTRACING_DATA Data
    )
{
    return &Data->Sink;
}

VOID
TracingDataClose(
    PTRACING_DATA Data
    )
{
    PRTL Rtl = Data->Rtl;

    DatReleaseSymbolJob(Data);
    TraceEventSinkRelease(&Data->Sink);
    TraceEventTableRelease(&Data->Table);
    Rtl->Unmap(Rtl, Data, Data->AllocationSize);
}
