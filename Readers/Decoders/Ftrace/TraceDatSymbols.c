/*++

Module Name:

    TraceDatSymbols.c

Abstract:

    kallsyms indexed on the hosted edge's worker while the reader parses
    the event formats (see the DAT_SYMBOL_JOB comment in
    TraceDatInternal.h), and v7 CPU data decompressed ahead while the
    reader waits for that job.

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns DAT_SYMBOL_JOB and
    the prefetch buffer.  Calls the import's worker (Import->Worker), the
    symbol index of the event model (TraceEvent.h) and
    TraceDatSection.c's readers.

--*/

#include "TraceDatInternal.h"

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

    Starts SymbolJobRoutine on the worker for the job DatStartSymbolJobV6 or
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

VOID
DatWaitSymbolJob(
    PTRACE_DAT Dat
    )
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

    if (Job->Handle != NULL) {
        Dat->Import->Worker->Wait(Job->Handle);
        Job->Handle = NULL;
    }
}

VOID
DatReleaseSymbolJob(
    PTRACE_DAT Dat
    )
{
    PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

    DatWaitSymbolJob(Dat);
    if (Job->Output != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Job->Output, Job->OutputBytes);
        Job->Output = NULL;
    }
    TraceEventReleaseSymbolIndex(Dat->Rtl, &Job->Index);
}

VOID
DatStartSymbolJobV6(
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

VOID
DatStartSymbolJobV7(
    PTRACE_DAT Dat
    )
/*++

Routine Description:

    Starts the job on the kallsyms section the options point to, with the
    checks DatOpenSection and ParseKallsyms make, quietly: if one fails, no
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

VOID
DatPrefetchChunks(
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
    // DatOpenCpu sets these again from the file.
    //

    for (Index = 0; Index < Dat->CpuCount; Index++) {
        Dat->Cpus[Index].NextChunk = 0;
        Dat->Cpus[Index].ChunksLeft = 0;
        Dat->Cpus[Index].DataEnd = 0;
    }
}
