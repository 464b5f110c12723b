/*++

Module Name:

    TraceDatInternal.h

Abstract:

    What the files of the trace.dat reader share: the reader's state (one
    TRACE_DAT per import, one TRACE_DAT_CPU cursor per CPU, the kallsyms
    job), the bounded reader over the file or a decompressed section, and
    the routines one file of the reader calls in another.

        TraceDat.c          entry points, the merge of the CPUs by time
        TraceDatSection.c   bounded reads, errors, zstd, v7 sections
        TraceDatHeader.c    the file layouts (v6, v7), metadata, options
        TraceDatSymbols.c   kallsyms indexed on the worker; prefetch
        TraceDatCpu.c       per-CPU cursors over the ring-buffer pages

Environment:

    Core: no C runtime; the OS only through PRTL.  Included only by the
    TraceDat*.c files.

--*/

#ifndef _TRACER_TRACE_DAT_INTERNAL_H_
#define _TRACER_TRACE_DAT_INTERNAL_H_

#include "TraceEvent.h"
#include "Readers/Import/TimeMerge.h"

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
    // kallsyms job (see DatPrefetchChunks).
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

//
// TraceDatSection.c
//

RTL_STATUS DatAllocate(PTRACE_IMPORT Import, PTRACE_DAT *Dat);
RTL_STATUS DatErrorV(PTRACE_DAT Dat, RTL_STATUS Status, ULONGLONG Offset,
                     PCSZ Format, va_list Arguments);

RTL_STATUS DatError(PTRACE_DAT Dat, RTL_STATUS Status, ULONGLONG Offset,
                    PCSZ Format, ...);

RTL_STATUS DatReaderError(PDAT_READER Reader, RTL_STATUS Status, PCSZ Format,
                          ...);

RTL_STATUS DatReadBytes(PDAT_READER Reader, ULONGLONG Count,
                        const BYTE **Bytes, PCSZ What);

RTL_STATUS DatReadNumber(PDAT_READER Reader, ULONG Size, PULONGLONG Value,
                         PCSZ What);

RTL_STATUS DatReadString(PDAT_READER Reader, ULONG Limit, PCSZ *String,
                         PULONG Length, PCSZ What);

RTL_STATUS DatExpectString(PDAT_READER Reader, PCSZ Expected, PCSZ What);

VOID DatReleaseReader(PDAT_READER Reader);

VOID DatFileReader(PTRACE_DAT Dat, ULONGLONG Offset, ULONGLONG Length,
                   PDAT_READER Reader);

RTL_STATUS DatNeedDecompressor(PTRACE_DAT Dat, ULONGLONG Offset);

RTL_STATUS DatDecompress(PTRACE_DAT Dat, ULONGLONG Offset, const BYTE *Input,
                         SIZE_T InputLength, PBYTE Output,
                         SIZE_T OutputLength);

RTL_STATUS DatOpenSection(PTRACE_DAT Dat, ULONGLONG Offset, ULONG ExpectedId,
                          PCSZ What, PDAT_READER Reader);


//
// TraceDatSymbols.c
//

VOID DatWaitSymbolJob(PTRACE_DAT Dat);

VOID DatReleaseSymbolJob(PTRACE_DAT Dat);

VOID DatStartSymbolJobV6(PTRACE_DAT Dat, SIZE_T Position);

VOID DatStartSymbolJobV7(PTRACE_DAT Dat);

VOID DatPrefetchChunks(PTRACE_DAT Dat);


//
// TraceDatHeader.c
//

RTL_STATUS DatParseInitialFormat(PTRACE_DAT Dat, PDAT_READER Reader);

RTL_STATUS DatParseVersion6(PTRACE_DAT Dat, PDAT_READER Reader);

RTL_STATUS DatParseVersion7(PTRACE_DAT Dat, PDAT_READER Reader);


//
// TraceDatCpu.c
//

VOID DatUpdateLowestPosition(PTRACE_DAT Dat);

RTL_STATUS DatAdvance(PTRACE_DAT Dat, PTRACE_DAT_CPU Cpu);

RTL_STATUS DatOpenCpu(PTRACE_DAT Dat, PTRACE_DAT_CPU Cpu);

VOID DatCloseCpu(PTRACE_DAT Dat, PTRACE_DAT_CPU Cpu);

#endif // _TRACER_TRACE_DAT_INTERNAL_H_
