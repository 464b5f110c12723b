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

--*/

#include "TraceEvent.h"
#include "Readers/Shared/TimeMerge.h"

#define TRACE_DAT_MAGIC_LENGTH      10
#define MAX_CPUS                    4096
#define MAX_SECTION_BYTES           (512ULL << 20)
#define MAX_CHUNK_BYTES             (64ULL << 20)
#define MAX_FORMAT_BYTES            (1ULL << 20)
#define MAX_FORMATS                 200000
#define MAX_SYSTEMS                 20000
#define MAX_OPTION_SECTIONS         256

#define OPTION_DONE                 0
#define OPTION_DATE                 1
#define OPTION_BUFFER               3
#define OPTION_TRACECLOCK           4
#define OPTION_OFFSET               7
#define OPTION_TSC2NSEC             14
#define OPTION_HEADER_INFO          16
#define OPTION_FTRACE_EVENTS        17
#define OPTION_EVENT_FORMATS        18
#define OPTION_KALLSYMS             19
#define OPTION_PRINTK               20
#define OPTION_CMDLINES             21
#define OPTION_BUFFER_TEXT          22

#define SECTION_FLAG_COMPRESSED     0x1
#define CPU_DISCARD_STEP            (1ULL << 20)
#define PREFETCH_BYTES              (8ULL << 20)
#define PREFETCH_CHUNKS             1024

typedef struct _TRACE_DAT_CPU {
    ULONG Cpu;
    ULONG Index;                // in the file's CPU list
    ULONGLONG Offset;           // of the CPU's data in the file
    ULONGLONG Size;

    //
    // Where the next page comes from.
    //

    ULONGLONG NextPage;         // file offset (uncompressed)
    ULONGLONG DataEnd;          // end of the CPU's data in the file
    ULONG ChunksLeft;           // compressed: chunks not yet read
    ULONG Padding;
    ULONGLONG NextChunk;        // file offset of the next chunk header
    ULONGLONG ChunkOffset;      // file offset of the current chunk
    PBYTE Buffer;               // the CPU's own chunk buffer
    SIZE_T BufferCapacity;
    const BYTE *Chunk;          // the decompressed chunk: Buffer, or one
                                // decompressed ahead (Dat->Prefetch)
    SIZE_T BufferLength;
    SIZE_T BufferNextPage;
    ULONG PrefetchNext;         // where to look in Dat->Prefetch.Chunks
    ULONG Padding2;

    //
    // The page being read and its next event.
    //

    ULONGLONG PageOffset;       // file offset, or offset in the chunk
    ULONGLONG Discarded;        // input unmapped up to here (file offset)
    TRACE_RING_PAGE Page;
    TRACE_RING_EVENT Event;
    BOOL HasEvent;
    BOOL Done;
} TRACE_DAT_CPU, *PTRACE_DAT_CPU;

//
// A CPU whose data the file ends inside is read up to there; the others
// go on, and the import fails at the end with the first such error.
//

//
// kallsyms indexed on the hosted edge's worker (Import->Worker) while the
// reader parses the event formats: the symbol index takes as long as the
// formats (v7: decompressing the section, too), and neither needs the
// other.  The job is started only when the kallsyms section is found
// where the file says without a complaint; the reader then parses the
// file in its usual order, waits where it reaches kallsyms, and reports
// what it finds there as before (the decompression's result included),
// so errors and their order do not change.  The index is installed only
// if it was built from the very text the reader hands the event table.
//

typedef struct _DAT_SYMBOL_JOB {
    PVOID Handle;               // the worker's job; NULL when none runs
    PRTL Rtl;
    PCTRACE_DECOMPRESSOR Zstd;
    ULONGLONG SectionOffset;    // v7: the kallsyms section, else 0
    const BYTE *Input;          // v7 compressed: the zstd frame
    SIZE_T InputLength;
    PBYTE Output;               // v7 compressed: the section, decompressed
    SIZE_T OutputLength;
    SIZE_T OutputBytes;         // pages of Output
    const BYTE *Text;           // uncompressed: the kallsyms text
    SIZE_T TextLength;
    RTL_STATUS Status;          // of the decompression
    SIZE_T Produced;
    PCSZ IndexedText;           // what Index was built from, or NULL
    SIZE_T IndexedLength;
    TRACE_SYMBOL_INDEX Index;
} DAT_SYMBOL_JOB, *PDAT_SYMBOL_JOB;

typedef struct _TRACE_DAT {
    PTRACE_IMPORT Import;
    PRTL Rtl;
    const BYTE *Buffer;
    SIZE_T Length;
    SIZE_T AllocationSize;

    ULONG Version;
    ULONG LongSize;
    ULONG PageSize;
    ULONG CpuPageSize;          // the buffer's sub-buffer size (v7)
    ULONG Padding;
    BOOL Compressed;            // the file names a compression algorithm
    BOOL CpuDataCompressed;
    BOOL HaveLayout;
    BOOL HaveBuffer;
    BOOL TopInstance;
    TRACE_PAGE_LAYOUT Layout;

    //
    // Time: trace-cmd's corrections, in its order.
    //

    ULONG TscMult;
    ULONG TscShift;
    LONGLONG TscOffset;
    LONGLONG TsOffset;

    //
    // v7 section offsets, from the options.
    //

    ULONGLONG HeaderInfoOffset;
    ULONGLONG FtraceEventsOffset;
    ULONGLONG EventFormatsOffset;
    ULONGLONG KallsymsOffset;
    ULONGLONG PrintkOffset;
    ULONGLONG CmdlinesOffset;
    ULONGLONG BufferSectionOffset;

    ULONG CpuCount;
    RTL_STATUS TruncatedStatus;     // the first CPU cut off by the file end
    RTL_ERROR TruncatedError;
    PTRACE_DAT_CPU Cpus;
    TIME_MERGE Merge;           // the CPUs with an event, by its time
    SIZE_T LowestPosition;

    CHAR Clock[64];
    CHAR ClockOption[64];

    DAT_SYMBOL_JOB SymbolJob;

    //
    // v7 CPU data decompressed ahead while the reader waits for the
    // kallsyms job (see PrefetchChunks).
    //

    struct {
        PBYTE Buffer;               // PREFETCH_BYTES of pages, or NULL
        SIZE_T Used;
        ULONG Count;
        ULONG Padding;
        struct {
            ULONGLONG Offset;       // of the chunk header in the file
            const BYTE *Data;
            SIZE_T Length;
        } Chunks[PREFETCH_CHUNKS];
    } Prefetch;

    //
    // Formats are added deferred (checked, their fields parsed at the
    // first event that uses them: a trace uses a few dozen of the
    // thousands it describes) while the text they are read from lives as
    // long as the table: the mapped file, or a section the table keeps.
    //

    BOOL DeferFormats;
    TRACE_EVENT_TABLE Table;
    TRACE_EVENT_SINK Sink;

} TRACE_DAT, *PTRACE_DAT;

//
// A bounded reader over the mapped file, or over one decompressed
// section (errors then name the section's file offset).
//

typedef struct _DAT_READER {
    PTRACE_DAT Dat;
    const BYTE *Data;
    SIZE_T Length;
    SIZE_T Position;
    ULONGLONG BaseOffset;       // file offset of Data, or of the section
    BOOL Decompressed;
    PVOID Owned;                // pages holding Data when decompressed
    SIZE_T OwnedSize;
} DAT_READER, *PDAT_READER;

static
RTL_STATUS
DatErrorV(
    PTRACE_DAT Dat,
    RTL_STATUS Status,
    ULONGLONG Offset,
    PCSZ Format,
    va_list Arguments
    )
{
    CHAR Reason[400];

    RtlFormatV(Reason, sizeof(Reason), Format, Arguments);
    return RtlSetError(&Dat->Import->Error, Status, 0, Offset,
                       "%s: offset %llu: %s", Dat->Import->Path, Offset,
                       Reason);
}

static
RTL_STATUS
DatError(
    PTRACE_DAT Dat,
    RTL_STATUS Status,
    ULONGLONG Offset,
    PCSZ Format,
    ...
    )
{
    va_list Arguments;
    RTL_STATUS Result;

    va_start(Arguments, Format);
    Result = DatErrorV(Dat, Status, Offset, Format, Arguments);
    va_end(Arguments);
    return Result;
}

static
RTL_STATUS
ReaderError(
    PDAT_READER Reader,
    RTL_STATUS Status,
    PCSZ Format,
    ...
    )
{
    CHAR Reason[300];
    va_list Arguments;

    va_start(Arguments, Format);
    RtlFormatV(Reason, sizeof(Reason), Format, Arguments);
    va_end(Arguments);

    if (Reader->Decompressed) {
        return DatError(Reader->Dat, Status, Reader->BaseOffset,
                        "%s (at byte %llu of the decompressed section)",
                        Reason, (ULONGLONG)Reader->Position);
    }

    return DatError(Reader->Dat, Status,
                    Reader->BaseOffset + Reader->Position, "%s", Reason);
}

static
RTL_STATUS
ReadBytes(
    PDAT_READER Reader,
    ULONGLONG Count,
    const BYTE **Bytes,
    PCSZ What
    )
{
    *Bytes = Reader->Data;
    if (Count > Reader->Length - Reader->Position) {
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "truncated: %s needs %llu bytes, %llu remain",
                           What, Count,
                           (ULONGLONG)(Reader->Length - Reader->Position));
    }
    *Bytes = Reader->Data + Reader->Position;
    Reader->Position += (SIZE_T)Count;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReadNumber(
    PDAT_READER Reader,
    ULONG Size,
    PULONGLONG Value,
    PCSZ What
    )
{
    const BYTE *Bytes;
    RTL_STATUS Status;

    *Value = 0;
    Status = ReadBytes(Reader, Size, &Bytes, What);
    if (RTL_SUCCESS(Status)) {
        *Value = TraceEventReadNumber(Bytes, Size);
    }
    return Status;
}

static
RTL_STATUS
ReadString(
    PDAT_READER Reader,
    ULONG Limit,
    PCSZ *String,
    PULONG Length,
    PCSZ What
    )
/*++

Routine Description:

    Reads a NUL-terminated string of at most Limit bytes.

--*/
{
    SIZE_T Remaining = Reader->Length - Reader->Position;
    const BYTE *Start = Reader->Data + Reader->Position;
    SIZE_T Index;

    *String = "";
    *Length = 0;

    for (Index = 0; Index < Remaining && Index <= Limit; Index++) {
        if (Start[Index] == 0) {
            *String = (PCSZ)Start;
            *Length = (ULONG)Index;
            Reader->Position += Index + 1;
            return RTL_STATUS_OK;
        }
    }

    if (Index > Limit) {
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "%s is not a string of at most %u bytes", What,
                           Limit);
    }
    return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                       "truncated: %s has no terminating NUL", What);
}

static
RTL_STATUS
ExpectString(
    PDAT_READER Reader,
    PCSZ Expected,
    PCSZ What
    )
{
    PCSZ String;
    ULONG Length;
    SIZE_T Start = Reader->Position;
    RTL_STATUS Status;

    Status = ReadString(Reader, 64, &String, &Length, What);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (!RtlStringEqual(String, Expected)) {
        Reader->Position = Start;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "expected \"%s\" (%s)", Expected, What);
    }
    return RTL_STATUS_OK;
}

static
VOID
ReleaseReader(
    PDAT_READER Reader
    )
{
    if (Reader->Owned != NULL) {
        Reader->Dat->Rtl->Unmap(Reader->Dat->Rtl, Reader->Owned,
                                Reader->OwnedSize);
        Reader->Owned = NULL;
    }
}

static
VOID
FileReader(
    PTRACE_DAT Dat,
    ULONGLONG Offset,
    ULONGLONG Length,
    PDAT_READER Reader
    )
{
    Reader->Dat = Dat;
    Reader->Data = Dat->Buffer + Offset;
    Reader->Length = (SIZE_T)Length;
    Reader->Position = 0;
    Reader->BaseOffset = Offset;
    Reader->Decompressed = FALSE;
    Reader->Owned = NULL;
    Reader->OwnedSize = 0;
}

static
RTL_STATUS
NeedDecompressor(
    PTRACE_DAT Dat,
    ULONGLONG Offset
    )
{
    if (Dat->Import->Zstd == NULL) {
        return DatError(Dat, RTL_STATUS_BAD_VERSION, Offset,
                        "the file is compressed with zstd and this build of "
                        "the reader has no zstd decompressor");
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Decompress(
    PTRACE_DAT Dat,
    ULONGLONG Offset,
    const BYTE *Input,
    SIZE_T InputLength,
    PBYTE Output,
    SIZE_T OutputLength
    )
{
    PCTRACE_DECOMPRESSOR Zstd = Dat->Import->Zstd;
    SIZE_T Produced = 0;
    RTL_STATUS Status;

    Status = NeedDecompressor(Dat, Offset);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = Zstd->Decompress(Zstd->Context, Input, InputLength, Output,
                              OutputLength, &Produced);
    if (!RTL_SUCCESS(Status) || Produced != OutputLength) {
        return DatError(Dat, RTL_STATUS_CORRUPT, Offset,
                        "zstd data of %llu bytes does not decompress to the "
                        "%llu bytes its header says", (ULONGLONG)InputLength,
                        (ULONGLONG)OutputLength);
    }
    return RTL_STATUS_OK;
}

static
VOID
SymbolJobRoutine(
    PVOID Context
    )
/*++

Routine Description:

    Runs on the worker: decompresses the kallsyms section if it is
    compressed (with the decompressor's second context), then builds the
    symbol index of the text in it.  Touches only the job.

--*/
{
    PDAT_SYMBOL_JOB Job = (PDAT_SYMBOL_JOB)Context;
    const BYTE *Text = Job->Text;
    SIZE_T Length = Job->TextLength;

    if (Job->Input != NULL) {
        ULONGLONG Size;

        //
        // Fault the output in with one call rather than page by page as
        // the decompressor first writes each one.
        //

        Job->Rtl->PrefaultMemory(Job->Rtl, Job->Output, Job->OutputBytes);
        Job->Status = Job->Zstd->Decompress(Job->Zstd->WorkerContext,
                                            Job->Input, Job->InputLength,
                                            Job->Output, Job->OutputLength,
                                            &Job->Produced);
        if (!RTL_SUCCESS(Job->Status) ||
            Job->Produced != Job->OutputLength || Job->OutputLength < 4) {
            return;
        }

        //
        // As ParseKallsyms reads it: a 4-byte size, then the text.
        //

        Size = TraceEventReadNumber(Job->Output, 4);
        if (Size > Job->OutputLength - 4) {
            return;
        }
        Text = Job->Output + 4;
        Length = (SIZE_T)Size;
    }

    TraceEventBuildSymbolIndex(Job->Rtl, (PCSZ)Text, Length, &Job->Index);
    Job->IndexedText = (PCSZ)Text;
    Job->IndexedLength = Length;
}

static
VOID
StartSymbolJob(
    PTRACE_DAT Dat
    )
/*++

Routine Description:

    Starts SymbolJobRoutine on the worker for the job StartSymbolJobV6 or
    V7 filled in; without a worker nothing runs (the first lookup builds
    the index as before).

--*/
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;
    PCTRACE_WORKER Worker = Dat->Import->Worker;

    Job->Rtl = Dat->Rtl;
    Job->Zstd = Dat->Import->Zstd;
    Job->Handle = Worker->Start(SymbolJobRoutine, Job);
    if (Job->Handle == NULL && Job->Output != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Job->Output, Job->OutputBytes);
        Job->Output = NULL;
    }
}

static
VOID
WaitSymbolJob(
    PTRACE_DAT Dat
    )
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

    if (Job->Handle != NULL) {
        Dat->Import->Worker->Wait(Job->Handle);
        Job->Handle = NULL;
    }
}

static
VOID
ReleaseSymbolJob(
    PTRACE_DAT Dat
    )
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

    WaitSymbolJob(Dat);
    if (Job->Output != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Job->Output, Job->OutputBytes);
        Job->Output = NULL;
    }
    TraceEventReleaseSymbolIndex(Dat->Rtl, &Job->Index);
}

static
VOID
StartSymbolJobV6(
    PTRACE_DAT Dat,
    SIZE_T Position
    )
/*++

Routine Description:

    Finds the kallsyms text of a v6 file from Position (just after the
    header info) by skipping the format files by their sizes, and starts
    the job on it.  Quietly does nothing if anything is out of place: the
    reader's own pass reports it.

--*/
{
    const BYTE *Buffer = Dat->Buffer;
    SIZE_T Length = Dat->Length;
    ULONGLONG Systems = 1;
    ULONGLONG System;
    ULONGLONG Size;

    if (Dat->Import->Worker == NULL) {
        return;
    }

    //
    // The ftrace formats (no name before their count), then each system's
    // NUL-terminated name and formats.
    //

    for (System = 0; System <= Systems; System++) {
        ULONGLONG Count;
        ULONGLONG Index;

        if (System == 1) {
            if (Length - Position < 4) {
                return;
            }
            Systems = TraceEventReadNumber(Buffer + Position, 4);
            Position += 4;
            if (Systems > MAX_SYSTEMS) {
                return;
            }
            if (Systems == 0) {
                break;
            }
        }
        if (System >= 1) {
            SIZE_T NameLength;

            for (NameLength = 0; NameLength < 256; NameLength++) {
                if (Position + NameLength >= Length) {
                    return;
                }
                if (Buffer[Position + NameLength] == 0) {
                    break;
                }
            }
            if (NameLength == 256) {
                return;
            }
            Position += NameLength + 1;
        }

        if (Length - Position < 4) {
            return;
        }
        Count = TraceEventReadNumber(Buffer + Position, 4);
        Position += 4;
        if (Count > MAX_FORMATS) {
            return;
        }
        for (Index = 0; Index < Count; Index++) {
            if (Length - Position < 8) {
                return;
            }
            Size = TraceEventReadNumber(Buffer + Position, 8);
            Position += 8;
            if (Size > MAX_FORMAT_BYTES || Size > Length - Position) {
                return;
            }
            Position += (SIZE_T)Size;
        }
    }

    if (Length - Position < 4) {
        return;
    }
    Size = TraceEventReadNumber(Buffer + Position, 4);
    Position += 4;
    if (Size > Length - Position) {
        return;
    }

    Dat->SymbolJob.Text = Buffer + Position;
    Dat->SymbolJob.TextLength = (SIZE_T)Size;
    StartSymbolJob(Dat);
}

static
VOID
StartSymbolJobV7(
    PTRACE_DAT Dat
    )
/*++

Routine Description:

    Starts the job on the kallsyms section the options point to, with the
    checks OpenSection and ParseKallsyms make, quietly: if one fails, no
    job runs and the reader reports it when it gets there.

--*/
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;
    PCTRACE_DECOMPRESSOR Zstd = Dat->Import->Zstd;
    ULONGLONG Offset = Dat->KallsymsOffset;
    const BYTE *Header;
    ULONGLONG Flags;
    ULONGLONG Size;

    if (Dat->Import->Worker == NULL || Offset == 0 ||
        Offset > Dat->Length || Dat->Length - Offset < 16) {
        return;
    }
    Header = Dat->Buffer + Offset;
    Flags = TraceEventReadNumber(Header + 2, 2);
    Size = TraceEventReadNumber(Header + 8, 8);
    if (TraceEventReadNumber(Header, 2) != OPTION_KALLSYMS ||
        Size > Dat->Length - Offset - 16) {
        return;
    }

    if (Flags & SECTION_FLAG_COMPRESSED) {
        ULONGLONG Compressed;
        ULONGLONG Uncompressed;
        SIZE_T Bytes;

        if (!Dat->Compressed || Zstd == NULL || Zstd->WorkerContext == NULL ||
            Size < 8) {
            return;
        }
        Compressed = TraceEventReadNumber(Header + 16, 4);
        Uncompressed = TraceEventReadNumber(Header + 20, 4);
        if (Compressed > Size - 8 || Uncompressed > MAX_SECTION_BYTES) {
            return;
        }
        Bytes = (SIZE_T)ALIGN_UP(Uncompressed + 1, RTL_PAGE_SIZE);
        if (!RTL_SUCCESS(Dat->Rtl->AllocatePages(Dat->Rtl, Bytes,
                                                 (PVOID *)&Job->Output))) {
            Job->Output = NULL;
            return;
        }
        Job->OutputBytes = Bytes;
        Job->OutputLength = (SIZE_T)Uncompressed;
        Job->Input = Header + 24;
        Job->InputLength = (SIZE_T)Compressed;
    } else {
        ULONGLONG TextLength;

        if (Size < 4) {
            return;
        }
        TextLength = TraceEventReadNumber(Header + 16, 4);
        if (TextLength > Size - 4) {
            return;
        }
        Job->Text = Header + 20;
        Job->TextLength = (SIZE_T)TextLength;
    }

    Job->SectionOffset = Offset;
    StartSymbolJob(Dat);
}

static
VOID
PrefetchChunks(
    PTRACE_DAT Dat
    )
/*++

Routine Description:

    Decompresses the first chunks of the CPUs' data, a chunk of each CPU
    in turn, for as long as the kallsyms job runs on the worker (up to
    PREFETCH_BYTES): the reader would otherwise wait idle there, and
    decompress the same chunks later.  Quietly stops a CPU at anything
    out of place; LoadChunk checks every chunk as before and decompresses
    any it does not find here, so errors are reported where they were.

--*/
{
    PCTRACE_DECOMPRESSOR Zstd = Dat->Import->Zstd;
    const BYTE *Header;
    ULONG Index;

    if (Dat->Prefetch.Buffer != NULL || !Dat->HaveBuffer ||
        !Dat->Compressed || Zstd == NULL || Dat->CpuCount == 0 ||
        Dat->BufferSectionOffset > Dat->Length ||
        Dat->Length - Dat->BufferSectionOffset < 16) {
        return;
    }
    Header = Dat->Buffer + Dat->BufferSectionOffset;
    if (TraceEventReadNumber(Header, 2) != OPTION_BUFFER ||
        !(TraceEventReadNumber(Header + 2, 2) & SECTION_FLAG_COMPRESSED)) {
        return;
    }

    if (!RTL_SUCCESS(Dat->Rtl->AllocatePages(Dat->Rtl, PREFETCH_BYTES,
                                             (PVOID *)&Dat->Prefetch.Buffer))) {
        Dat->Prefetch.Buffer = NULL;
        return;
    }

    //
    // Where each CPU's next chunk is (Next), or 0 once it stopped.
    //

    for (Index = 0; Index < Dat->CpuCount; Index++) {
        PTRACE_DAT_CPU Cpu = &Dat->Cpus[Index];
        ULONGLONG DataEnd = Cpu->Offset + 4 + Cpu->Size;

        Cpu->NextChunk = 0;
        Cpu->ChunksLeft = 0;
        if (Cpu->Size == 0 || Cpu->Offset >= Dat->Length) {
            continue;
        }
        if (DataEnd > Dat->Length || DataEnd < Cpu->Offset) {
            DataEnd = Dat->Length;
        }
        if (DataEnd - Cpu->Offset < 4) {
            continue;
        }
        Cpu->DataEnd = DataEnd;
        Cpu->ChunksLeft = (ULONG)TraceEventReadNumber(Dat->Buffer +
                                                      Cpu->Offset, 4);
        Cpu->NextChunk = Cpu->Offset + 4;
    }

    //
    // A chunk of each CPU in turn, while the job runs.  A CPU's chunks
    // are consecutive in Chunks only if it is the only one still going,
    // so each chunk records its file offset and LoadChunk looks it up.
    //

    for (;;) {
        BOOL Any = FALSE;

        for (Index = 0; Index < Dat->CpuCount; Index++) {
            PTRACE_DAT_CPU Cpu = &Dat->Cpus[Index];
            ULONGLONG Offset = Cpu->NextChunk;
            ULONGLONG Compressed, Uncompressed;
            SIZE_T Produced = 0;
            PBYTE Output;

            if (Offset == 0 || Cpu->ChunksLeft == 0 ||
                Dat->Prefetch.Count == PREFETCH_CHUNKS ||
                Dat->SymbolJob.Handle == NULL ||
                Dat->Import->Worker->Done(Dat->SymbolJob.Handle)) {
                continue;
            }
            Cpu->NextChunk = 0;
            if (Offset > Cpu->DataEnd || Cpu->DataEnd - Offset < 8) {
                continue;
            }
            Compressed = TraceEventReadNumber(Dat->Buffer + Offset, 4);
            Uncompressed = TraceEventReadNumber(Dat->Buffer + Offset + 4, 4);
            if (Compressed > Cpu->DataEnd - Offset - 8 || Uncompressed == 0 ||
                Uncompressed > MAX_CHUNK_BYTES ||
                Uncompressed > PREFETCH_BYTES - Dat->Prefetch.Used) {
                continue;
            }
            Output = Dat->Prefetch.Buffer + Dat->Prefetch.Used;
            if (!RTL_SUCCESS(Zstd->Decompress(Zstd->Context,
                                              Dat->Buffer + Offset + 8,
                                              (SIZE_T)Compressed, Output,
                                              (SIZE_T)Uncompressed,
                                              &Produced)) ||
                Produced != Uncompressed) {
                continue;
            }

            Dat->Prefetch.Chunks[Dat->Prefetch.Count].Offset = Offset;
            Dat->Prefetch.Chunks[Dat->Prefetch.Count].Data = Output;
            Dat->Prefetch.Chunks[Dat->Prefetch.Count].Length =
                (SIZE_T)Uncompressed;
            Dat->Prefetch.Count++;
            Dat->Prefetch.Used += (SIZE_T)ALIGN_UP(Uncompressed, 64);
            Cpu->NextChunk = Offset + 8 + Compressed;
            Cpu->ChunksLeft--;
            Any = TRUE;
        }
        if (!Any) {
            break;
        }
    }

    //
    // OpenCpu sets these again from the file.
    //

    for (Index = 0; Index < Dat->CpuCount; Index++) {
        Dat->Cpus[Index].NextChunk = 0;
        Dat->Cpus[Index].ChunksLeft = 0;
        Dat->Cpus[Index].DataEnd = 0;
    }
}

static
RTL_STATUS
OpenSection(
    PTRACE_DAT Dat,
    ULONGLONG Offset,
    ULONG ExpectedId,
    PCSZ What,
    PDAT_READER Reader
    )
/*++

Routine Description:

    Opens the v7 section at Offset: checks its header, and decompresses it
    if it is compressed.  Release the reader with ReleaseReader.

--*/
{
    DAT_READER Header;
    ULONGLONG Id, Flags, StringId, Size;
    RTL_STATUS Status;

    if (Offset > Dat->Length) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Dat->Length,
                        "the %s section is at offset %llu, past the end of "
                        "the file (%llu bytes; truncated?)", What, Offset,
                        (ULONGLONG)Dat->Length);
    }

    FileReader(Dat, Offset, Dat->Length - Offset, &Header);
    Status = ReadNumber(&Header, 2, &Id, "section id");
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(&Header, 2, &Flags, "section flags");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(&Header, 4, &StringId, "section description");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(&Header, 8, &Size, "section size");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Id != ExpectedId) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Offset,
                        "expected the %s section (id %u), found id %llu",
                        What, ExpectedId, Id);
    }
    if (Size > Dat->Length - Offset - 16) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Offset + 8,
                        "the %s section's size %llu runs past the end of the "
                        "file (%llu bytes; truncated?)", What, Size,
                        (ULONGLONG)Dat->Length);
    }

    FileReader(Dat, Offset + 16, Size, Reader);

    if (Flags & SECTION_FLAG_COMPRESSED) {
        ULONGLONG Compressed, Uncompressed;
        const BYTE *Input;
        SIZE_T Bytes;
        PBYTE Output;

        Status = ReadNumber(Reader, 4, &Compressed, "compressed size");
        if (RTL_SUCCESS(Status)) {
            Status = ReadNumber(Reader, 4, &Uncompressed,
                                "uncompressed size");
        }
        if (RTL_SUCCESS(Status)) {
            Status = ReadBytes(Reader, Compressed, &Input,
                               "compressed section data");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Dat->Compressed) {
            return DatError(Dat, RTL_STATUS_BAD_FORMAT, Offset,
                            "the %s section is marked compressed in a file "
                            "without compression", What);
        }
        if (Uncompressed > MAX_SECTION_BYTES) {
            return DatError(Dat, RTL_STATUS_TOO_LARGE, Offset + 20,
                            "the %s section decompresses to %llu bytes "
                            "(more than %llu)", What, Uncompressed,
                            MAX_SECTION_BYTES);
        }

        Bytes = (SIZE_T)ALIGN_UP(Uncompressed + 1, RTL_PAGE_SIZE);
        if (Dat->SymbolJob.Output != NULL &&
            Dat->SymbolJob.SectionOffset == Offset) {

            //
            // The worker decompressed it (same header, so same sizes):
            // its result is checked as Decompress checks its own.
            //

            PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

            PrefetchChunks(Dat);
            WaitSymbolJob(Dat);
            Output = Job->Output;
            Job->Output = NULL;
            if (!RTL_SUCCESS(Job->Status) ||
                Job->Produced != (SIZE_T)Uncompressed) {
                Dat->Rtl->Unmap(Dat->Rtl, Output, Bytes);
                return DatError(Dat, RTL_STATUS_CORRUPT, Offset + 24,
                                "zstd data of %llu bytes does not "
                                "decompress to the %llu bytes its header "
                                "says", Compressed, Uncompressed);
            }
        } else {
            Status = Dat->Rtl->AllocatePages(Dat->Rtl, Bytes,
                                             (PVOID *)&Output);
            if (!RTL_SUCCESS(Status)) {
                return DatError(Dat, Status, Offset, "cannot allocate %llu "
                                "bytes for the %s section", (ULONGLONG)Bytes,
                                What);
            }

            Status = Decompress(Dat, Offset + 24, Input, (SIZE_T)Compressed,
                                Output, (SIZE_T)Uncompressed);
            if (!RTL_SUCCESS(Status)) {
                Dat->Rtl->Unmap(Dat->Rtl, Output, Bytes);
                return Status;
            }
        }

        Reader->Data = Output;
        Reader->Length = (SIZE_T)Uncompressed;
        Reader->Position = 0;
        Reader->BaseOffset = Offset;
        Reader->Decompressed = TRUE;
        Reader->Owned = Output;
        Reader->OwnedSize = Bytes;
    }

    return RTL_STATUS_OK;
}

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

    Status = ExpectString(Reader, "header_page", "page header description");
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 8, &Size, "header_page size");
    }
    Start = Reader->Position;
    if (RTL_SUCCESS(Status)) {
        Status = ReadBytes(Reader, Size, &Text, "header_page");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Status = TraceEventParseHeaderPage((PCSZ)Text, (SIZE_T)Size, &Dat->Layout,
                                       &Reason);
    if (!RTL_SUCCESS(Status)) {
        Reader->Position = Start;
        return ReaderError(Reader, Status, "%s", Reason);
    }

    Status = ExpectString(Reader, "header_event", "event header description");
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 8, &Size, "header_event size");
    }
    Start = Reader->Position;
    if (RTL_SUCCESS(Status)) {
        Status = ReadBytes(Reader, Size, &Text, "header_event");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Status = TraceEventParseHeaderEvent((PCSZ)Text, (SIZE_T)Size, &Reason);
    if (!RTL_SUCCESS(Status)) {
        Reader->Position = Start;
        return ReaderError(Reader, Status, "%s", Reason);
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

    Status = ReadNumber(Reader, 4, &Count, "event format count");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Count > MAX_FORMATS) {
        Reader->Position -= 4;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "absurd event format count %llu", Count);
    }

    for (Index = 0; Index < Count; Index++) {
        ULONGLONG Size;
        const BYTE *Text;
        SIZE_T Start;
        PCSZ Reason;

        Status = ReadNumber(Reader, 8, &Size, "event format size");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Size > MAX_FORMAT_BYTES) {
            Reader->Position -= 8;
            return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                               "absurd event format size %llu", Size);
        }
        Start = Reader->Position;
        Status = ReadBytes(Reader, Size, &Text, "event format");
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
            return ReaderError(Reader, Status, "%s (format %llu of system "
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

    Status = ReadNumber(Reader, 4, &Systems, "event system count");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Systems > MAX_SYSTEMS) {
        Reader->Position -= 4;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "absurd event system count %llu", Systems);
    }

    for (Index = 0; Index < Systems; Index++) {
        PCSZ System;
        ULONG Length;

        Status = ReadString(Reader, 255, &System, &Length,
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

    Status = ReadNumber(Reader, 4, &Size, "kallsyms size");
    if (RTL_SUCCESS(Status)) {
        Status = ReadBytes(Reader, Size, &Text, "kallsyms");
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

    WaitSymbolJob(Dat);
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

    Status = ReadNumber(Reader, 4, &Size, "printk formats size");
    if (RTL_SUCCESS(Status)) {
        Status = ReadBytes(Reader, Size, &Text, "printk formats");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena, (SIZE_T)Size + 1,
                                (PVOID *)&Copy);
    if (!RTL_SUCCESS(Status)) {
        return ReaderError(Reader, Status, "cannot keep the printk formats");
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

    Status = ReadNumber(Reader, 8, &Size, "saved cmdlines size");
    if (RTL_SUCCESS(Status)) {
        Status = ReadBytes(Reader, Size, &Text, "saved cmdlines");
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

    Status = ReadNumber(Reader, 8, &Offset, "buffer section offset");
    if (RTL_SUCCESS(Status)) {
        Status = ReadString(Reader, 4096, &Name, &NameLength, "buffer name");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadString(Reader, 256, &Clock, &ClockLength,
                            "buffer clock");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 4, &PageSize, "buffer page size");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 4, &Count, "buffer CPU count");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Dat->HaveBuffer && (Dat->TopInstance || NameLength != 0)) {
        return RTL_STATUS_OK;
    }

    if (Count > MAX_CPUS) {
        Reader->Position -= 4;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "absurd CPU count %llu", Count);
    }
    if (PageSize < 1024 || PageSize > (1 << 24) ||
        (PageSize & (PageSize - 1)) != 0) {
        Reader->Position -= 8;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "absurd buffer page size %llu", PageSize);
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena,
                                sizeof(TRACE_DAT_CPU) * (SIZE_T)(Count + 1),
                                (PVOID *)&Cpus);
    if (!RTL_SUCCESS(Status)) {
        return ReaderError(Reader, Status, "cannot allocate CPU cursors");
    }

    for (Index = 0; Index < Count; Index++) {
        ULONGLONG Cpu, CpuOffset, CpuSize;

        Status = ReadNumber(Reader, 4, &Cpu, "CPU id");
        if (RTL_SUCCESS(Status)) {
            Status = ReadNumber(Reader, 8, &CpuOffset, "CPU data offset");
        }
        if (RTL_SUCCESS(Status)) {
            Status = ReadNumber(Reader, 8, &CpuSize, "CPU data size");
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
        Status = ReadNumber(Option, 8, &Value, "section offset option");
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

        Status = ReadNumber(Reader, 2, &Id, "option id");
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Id == OPTION_DONE && Dat->Version < 7) {
            return RTL_STATUS_OK;
        }
        Status = ReadNumber(Reader, 4, &Size, "option size");
        Start = Reader->Position;
        if (RTL_SUCCESS(Status)) {
            Status = ReadBytes(Reader, Size, &Data, "option data");
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

static
RTL_STATUS
ParseInitialFormat(
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

    Status = ReadBytes(Reader, TRACE_DAT_MAGIC_LENGTH, &Magic, "magic");
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (!TraceDatDetect(Dat->Import)) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, 0,
                        "not a trace-cmd trace.dat file (bad magic)");
    }

    Status = ReadString(Reader, 15, &Version, &VersionLength,
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

    Status = ReadNumber(Reader, 1, &Endian, "endianness");
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 1, &LongSize, "long size");
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadNumber(Reader, 4, &PageSize, "page size");
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

        Status = ReadString(Reader, 64, &Name, &NameLength,
                            "compression algorithm");
        if (RTL_SUCCESS(Status)) {
            Status = ReadString(Reader, 64, &NameVersion, &NameVersionLength,
                                "compression version");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (RtlStringEqual(Name, "zstd")) {
            Dat->Compressed = TRUE;
            Status = NeedDecompressor(Dat, Start);
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

static
RTL_STATUS
ParseVersion6(
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
        StartSymbolJobV6(Dat, Reader->Position);
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
        Status = ReadNumber(Reader, 4, &Cpus, "CPU count");
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Cpus > MAX_CPUS) {
        Reader->Position -= 4;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "absurd CPU count %llu", Cpus);
    }

    for (;;) {
        Status = ReadBytes(Reader, 10, &Tag, "data type (\"options\", "
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
            return ReaderError(Reader, RTL_STATUS_BAD_VERSION,
                               "latency-tracer text data is not supported "
                               "(only flyrecord event data is)");
        }
        if (Dat->Rtl->CompareMemory(Tag, "flyrecord", 10) == 0) {
            break;
        }
        Reader->Position -= 10;
        return ReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                           "expected \"options\", \"latency\" or "
                           "\"flyrecord\"");
    }

    Status = TraceArenaAllocate(&Dat->Table.Arena,
                                sizeof(TRACE_DAT_CPU) * (SIZE_T)(Cpus + 1),
                                (PVOID *)&CpuArray);
    if (!RTL_SUCCESS(Status)) {
        return ReaderError(Reader, Status, "cannot allocate CPU cursors");
    }

    for (Index = 0; Index < Cpus; Index++) {
        Status = ReadNumber(Reader, 8, &Offset, "CPU data offset");
        if (RTL_SUCCESS(Status)) {
            Status = ReadNumber(Reader, 8, &Size, "CPU data size");
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

        Status = ReadNumber(Reader, 8, &Size, "trace clock size");
        if (RTL_SUCCESS(Status) && Size <= 4096 &&
            RTL_SUCCESS(ReadBytes(Reader, Size, &Text, "trace clock"))) {
            SetClock(Dat->Clock, sizeof(Dat->Clock), (PCSZ)Text,
                     (SIZE_T)Size);
        } else {
            Reader->Position = Start;
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseVersion7(
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

    Status = ReadNumber(Reader, 8, &OptionsOffset, "options offset");
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
        Status = OpenSection(Dat, This, 0, "options", &Section);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = ParseOptionList(Dat, &Section, &Next);
        ReleaseReader(&Section);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    if (Dat->HeaderInfoOffset == 0) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, OptionsOffset,
                        "no HEADER_INFO option: the page header is not "
                        "described");
    }

    StartSymbolJobV7(Dat);

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
            Status = OpenSection(Dat, Offset, Parts[Index].Id,
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
            ReleaseReader(&Section);
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
    FileReader(Dat, Dat->BufferSectionOffset, 16, &Header);
    ReadNumber(&Header, 2, &Id, "section id");
    ReadNumber(&Header, 2, &Flags, "section flags");
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
// Per-CPU cursors.
//

static
RTL_STATUS
CpuTruncated(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu,
    ULONGLONG Offset,
    PCSZ Format,
    ...
    )
/*++

Routine Description:

    Records that the file ends inside the CPU's data (the first time) and
    ends the CPU.  Returns success: the other CPUs are read on.

--*/
{
    va_list Arguments;

    if (Dat->TruncatedStatus == RTL_STATUS_OK) {
        RTL_ERROR Saved = Dat->Import->Error;

        va_start(Arguments, Format);
        Dat->TruncatedStatus = DatErrorV(Dat, RTL_STATUS_BAD_FORMAT, Offset,
                                         Format, Arguments);
        va_end(Arguments);
        Dat->TruncatedError = Dat->Import->Error;
        Dat->Import->Error = Saved;
    }

    Cpu->ChunksLeft = 0;
    Cpu->NextPage = Cpu->Offset + Cpu->Size;
    Cpu->BufferNextPage = Cpu->BufferLength;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LoadChunk(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
/*++

Routine Description:

    Decompresses the CPU's next chunk into its buffer (grown to the
    chunk's size when needed).

--*/
{
    PRTL Rtl = Dat->Rtl;
    ULONGLONG Offset = Cpu->NextChunk;
    ULONGLONG Compressed, Uncompressed;
    RTL_STATUS Status;
    ULONG Index;

    if (Offset > Cpu->DataEnd || Cpu->DataEnd - Offset < 8) {
        return CpuTruncated(Dat, Cpu, Offset < Dat->Length ? Offset :
                            Dat->Length, "truncated: CPU %u's next chunk "
                            "header is past the end of its data", Cpu->Cpu);
    }

    Compressed = TraceEventReadNumber(Dat->Buffer + Offset, 4);
    Uncompressed = TraceEventReadNumber(Dat->Buffer + Offset + 4, 4);

    if (Compressed > Cpu->DataEnd - Offset - 8) {
        return CpuTruncated(Dat, Cpu, Offset, "truncated: CPU %u's chunk of "
                            "%llu compressed bytes runs past the end of its "
                            "data (file of %llu bytes)", Cpu->Cpu,
                            Compressed, (ULONGLONG)Dat->Length);
    }
    if (Uncompressed == 0 || Uncompressed > MAX_CHUNK_BYTES) {
        return DatError(Dat, RTL_STATUS_BAD_FORMAT, Offset + 4,
                        "absurd uncompressed chunk size %llu", Uncompressed);
    }

    while (Cpu->PrefetchNext < Dat->Prefetch.Count &&
           Dat->Prefetch.Chunks[Cpu->PrefetchNext].Offset < Offset) {
        Cpu->PrefetchNext++;
    }
    for (Index = Cpu->PrefetchNext; Index < Dat->Prefetch.Count; Index++) {
        if (Dat->Prefetch.Chunks[Index].Offset == Offset &&
            Dat->Prefetch.Chunks[Index].Length == Uncompressed) {

            //
            // Decompressed ahead (and checked as Decompress checks it).
            //

            Cpu->Chunk = Dat->Prefetch.Chunks[Index].Data;
            Cpu->PrefetchNext = Index + 1;
            goto Loaded;
        }
        if (Index > Cpu->PrefetchNext + 2 * Dat->CpuCount) {
            break;
        }
    }

    if (Uncompressed > Cpu->BufferCapacity) {
        SIZE_T Bytes = (SIZE_T)ALIGN_UP(Uncompressed, RTL_PAGE_SIZE);
        PBYTE Buffer;

        Status = Rtl->AllocatePages(Rtl, Bytes, (PVOID *)&Buffer);
        if (!RTL_SUCCESS(Status)) {
            return DatError(Dat, Status, Offset, "cannot allocate %llu bytes "
                            "for a chunk", (ULONGLONG)Bytes);
        }
        if (Cpu->Buffer != NULL) {
            Rtl->Unmap(Rtl, Cpu->Buffer, Cpu->BufferCapacity);
        }
        Cpu->Buffer = Buffer;
        Cpu->BufferCapacity = Bytes;
    }

    Status = Decompress(Dat, Offset, Dat->Buffer + Offset + 8,
                        (SIZE_T)Compressed, Cpu->Buffer,
                        (SIZE_T)Uncompressed);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Cpu->Chunk = Cpu->Buffer;

Loaded:
    Cpu->ChunkOffset = Offset;
    Cpu->BufferLength = (SIZE_T)Uncompressed;
    Cpu->BufferNextPage = 0;
    Cpu->NextChunk = Offset + 8 + Compressed;
    Cpu->ChunksLeft--;
    return RTL_STATUS_OK;
}

static
VOID
UpdateLowestPosition(
    PTRACE_DAT Dat
    )
{
    SIZE_T Lowest = Dat->Length;
    ULONG Index;

    for (Index = 0; Index < Dat->CpuCount; Index++) {
        PTRACE_DAT_CPU Cpu = &Dat->Cpus[Index];
        ULONGLONG Position;

        if (Cpu->Done) {
            continue;
        }
        Position = Dat->CpuDataCompressed ? Cpu->ChunkOffset : Cpu->PageOffset;
        if (Position < Lowest) {
            Lowest = (SIZE_T)Position;
        }
    }
    Dat->LowestPosition = Lowest;
}

static
VOID
DiscardBehindCpu(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
/*++

Routine Description:

    Each CPU's data is a separate region of the file, read front to back
    by its own cursor: unmap what lies more than a megabyte behind it, so
    the resident input stays bounded however many CPUs and however large
    the file (the import's own discard only follows the lowest cursor).

--*/
{
    ULONGLONG Position;

    Position = Dat->CpuDataCompressed ? Cpu->ChunkOffset : Cpu->PageOffset;
    if (Cpu->Discarded < Cpu->Offset) {
        Cpu->Discarded = Cpu->Offset;
    }
    if (Position < Cpu->Discarded + 2 * CPU_DISCARD_STEP ||
        Position > Dat->Length) {
        return;
    }

    Dat->Import->Rtl->DiscardMemory(Dat->Import->Rtl,
                                    Dat->Buffer + Cpu->Discarded,
                                    (SIZE_T)(Position - CPU_DISCARD_STEP -
                                             Cpu->Discarded));
    Cpu->Discarded = Position - CPU_DISCARD_STEP;
}

static
RTL_STATUS
NextPage(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu,
    PBOOL Loaded
    )
/*++

Routine Description:

    Starts the CPU's next page.  *Loaded is FALSE when the CPU's data is
    exhausted.

--*/
{
    const BYTE *Page;
    SIZE_T Length;
    PCSZ Reason;
    RTL_STATUS Status;

    *Loaded = FALSE;

    if (Dat->CpuDataCompressed) {
        while (Cpu->BufferNextPage >= Cpu->BufferLength) {
            if (Cpu->ChunksLeft == 0) {
                return RTL_STATUS_OK;
            }
            Status = LoadChunk(Dat, Cpu);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            if (Cpu->ChunksLeft == 0 &&
                Cpu->BufferNextPage >= Cpu->BufferLength) {
                return RTL_STATUS_OK;
            }
        }
        Page = Cpu->Chunk + Cpu->BufferNextPage;
        Length = Cpu->BufferLength - Cpu->BufferNextPage;
        if (Length > Dat->CpuPageSize) {
            Length = Dat->CpuPageSize;
        }
        Cpu->PageOffset = Cpu->BufferNextPage;
        Cpu->BufferNextPage += Length;
    } else {
        if (Cpu->NextPage >= Cpu->Offset + Cpu->Size) {
            return RTL_STATUS_OK;
        }
        if (Cpu->NextPage >= Cpu->DataEnd) {
            return CpuTruncated(Dat, Cpu, Cpu->DataEnd, "truncated: the file "
                                "ends inside CPU %u's data (which runs to "
                                "offset %llu)", Cpu->Cpu,
                                Cpu->Offset + Cpu->Size);
        }
        Page = Dat->Buffer + Cpu->NextPage;
        Length = (SIZE_T)(Cpu->Offset + Cpu->Size - Cpu->NextPage);
        if (Length > Dat->CpuPageSize) {
            Length = Dat->CpuPageSize;
        }
        if (Cpu->NextPage + Length > Cpu->DataEnd) {
            return CpuTruncated(Dat, Cpu, Cpu->DataEnd, "truncated: the file "
                                "ends inside a page of CPU %u's data (page "
                                "at offset %llu)", Cpu->Cpu, Cpu->NextPage);
        }
        Cpu->PageOffset = Cpu->NextPage;
        Cpu->NextPage += Length;
    }

    DiscardBehindCpu(Dat, Cpu);

    Status = TraceRingPageBegin(&Cpu->Page, &Dat->Layout, Page, Length,
                                &Reason);
    if (!RTL_SUCCESS(Status)) {
        if (Dat->CpuDataCompressed) {
            return DatError(Dat, Status, Cpu->ChunkOffset,
                            "CPU %u, page at byte %llu of the decompressed "
                            "chunk: %s", Cpu->Cpu, Cpu->PageOffset, Reason);
        }
        return DatError(Dat, Status, Cpu->PageOffset, "CPU %u's page: %s",
                        Cpu->Cpu, Reason);
    }

    if (Cpu->Page.LostEvents != 0) {
        Dat->Import->LostEvents += Cpu->Page.LostEvents > 0 ?
                                   (ULONGLONG)Cpu->Page.LostEvents : 1;
    }

    *Loaded = TRUE;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Advance(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
/*++

Routine Description:

    Moves the CPU's cursor to its next event, through as many pages as
    needed; sets Done at the end of its data.

--*/
{
    RTL_STATUS Status;
    BOOL Found;
    BOOL Loaded;
    PCSZ Reason;

    Cpu->HasEvent = FALSE;

    for (;;) {
        if (Cpu->Page.Data != NULL) {
            Status = TraceRingPageNext(&Cpu->Page, &Cpu->Event, &Found,
                                       &Reason);
            if (!RTL_SUCCESS(Status)) {
                ULONG Within = Dat->Layout.DataOffset + Cpu->Page.Offset;

                if (Dat->CpuDataCompressed) {
                    return DatError(Dat, Status, Cpu->ChunkOffset,
                                    "CPU %u, byte %llu of the decompressed "
                                    "chunk: %s", Cpu->Cpu,
                                    Cpu->PageOffset + Within, Reason);
                }
                return DatError(Dat, Status, Cpu->PageOffset + Within,
                                "CPU %u: %s", Cpu->Cpu, Reason);
            }
            if (Found) {
                Cpu->HasEvent = TRUE;
                return RTL_STATUS_OK;
            }
        }

        Status = NextPage(Dat, Cpu, &Loaded);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Loaded) {
            Cpu->Done = TRUE;
            Cpu->Page.Data = NULL;
            UpdateLowestPosition(Dat);
            return RTL_STATUS_OK;
        }
        UpdateLowestPosition(Dat);
    }
}

static
RTL_STATUS
OpenCpu(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
{
    Cpu->Page.Data = NULL;
    Cpu->Buffer = NULL;
    Cpu->Chunk = NULL;
    Cpu->BufferCapacity = 0;
    Cpu->BufferLength = 0;
    Cpu->BufferNextPage = 0;
    Cpu->HasEvent = FALSE;
    Cpu->Done = FALSE;
    Cpu->PageOffset = Cpu->Offset;
    Cpu->ChunkOffset = Cpu->Offset;

    if (Cpu->Size == 0) {
        Cpu->Done = TRUE;
        return RTL_STATUS_OK;
    }

    if (Cpu->Offset >= Dat->Length) {
        Cpu->Done = TRUE;
        return CpuTruncated(Dat, Cpu, Dat->Length, "truncated: CPU %u's data "
                            "at offset %llu is past the end of the file",
                            Cpu->Cpu, Cpu->Offset);
    }

    if (Dat->CpuDataCompressed) {
        ULONGLONG Count;

        //
        // The size counts the chunks after the chunk count.
        //

        Cpu->DataEnd = Cpu->Offset + 4 + Cpu->Size;
        if (Cpu->DataEnd > Dat->Length || Cpu->DataEnd < Cpu->Offset) {
            Cpu->DataEnd = Dat->Length;
        }
        if (Cpu->DataEnd - Cpu->Offset < 4) {
            Cpu->Done = TRUE;
            return CpuTruncated(Dat, Cpu, Dat->Length, "truncated: CPU %u's "
                                "chunk count is past the end of the file",
                                Cpu->Cpu);
        }
        Count = TraceEventReadNumber(Dat->Buffer + Cpu->Offset, 4);
        if (Count > (Cpu->DataEnd - Cpu->Offset) / 8) {
            return DatError(Dat, RTL_STATUS_BAD_FORMAT, Cpu->Offset,
                            "absurd chunk count %llu for CPU %u", Count,
                            Cpu->Cpu);
        }
        Cpu->ChunksLeft = (ULONG)Count;
        Cpu->NextChunk = Cpu->Offset + 4;
    } else {
        Cpu->DataEnd = Cpu->Offset + Cpu->Size;
        if (Cpu->DataEnd > Dat->Length || Cpu->DataEnd < Cpu->Offset) {
            Cpu->DataEnd = Dat->Length;
        }
        Cpu->NextPage = Cpu->Offset;
    }

    return Advance(Dat, Cpu);
}

static
VOID
CloseCpu(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
{
    if (Cpu->Buffer != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Cpu->Buffer, Cpu->BufferCapacity);
        Cpu->Buffer = NULL;
    }
}

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
        Status = OpenCpu(Dat, &Dat->Cpus[Index]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Dat->Cpus[Index].HasEvent) {
            TimeMergeInsert(&Dat->Merge, Index,
                            Dat->Cpus[Index].Event.Timestamp);
        }
    }
    UpdateLowestPosition(Dat);

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

        Status = Advance(Dat, Cpu);
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

BOOL
TraceDatDetect(
    PTRACE_IMPORT Import
    )
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
TraceDatImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports a trace.dat from Import->Buffer.  Call between
    TraceImportBegin and TraceImportEnd.

Return Value:

    RTL_STATUS_OK, or an error described in Import->Error (file and byte
    offset); the events before the error have been imported.

--*/
{
    PRTL Rtl = Import->Rtl;
    PTRACE_DAT Dat = NULL;
    SIZE_T Bytes = (SIZE_T)ALIGN_UP(sizeof(TRACE_DAT), RTL_PAGE_SIZE);
    DAT_READER Reader;
    RTL_STATUS Status;
    BOOL SinkReady = FALSE;
    ULONG Index;

    if (Import->Buffer == NULL || Import->Length < TRACE_DAT_MAGIC_LENGTH) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: offset 0: not a trace-cmd trace.dat file "
                           "(too short)", Import->Path);
    }

    Status = Rtl->AllocatePages(Rtl, Bytes, (PVOID *)&Dat);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Dat->Import = Import;
    Dat->Rtl = Rtl;
    Dat->Buffer = Import->Buffer;
    Dat->Length = Import->Length;
    Dat->AllocationSize = Bytes;

    FileReader(Dat, 0, Dat->Length, &Reader);
    Status = ParseInitialFormat(Dat, &Reader);
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
        Status = ParseVersion6(Dat, &Reader);
    } else {
        Status = ParseVersion7(Dat, &Reader);
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
    ReleaseSymbolJob(Dat);
    if (Dat->Prefetch.Buffer != NULL) {
        Rtl->Unmap(Rtl, Dat->Prefetch.Buffer, PREFETCH_BYTES);
        Dat->Prefetch.Buffer = NULL;
    }
    if (Dat->Cpus != NULL) {
        for (Index = 0; Index < Dat->CpuCount; Index++) {
            CloseCpu(Dat, &Dat->Cpus[Index]);
        }
    }
    if (SinkReady) {
        TraceEventSinkRelease(&Dat->Sink);
    }
    TraceEventTableRelease(&Dat->Table);
    Rtl->Unmap(Rtl, Dat, Bytes);
    return Status;
}
