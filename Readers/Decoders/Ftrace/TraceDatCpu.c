/*++

Module Name:

    TraceDatCpu.c

Abstract:

    The per-CPU cursors: each CPU's data read page by page, from the
    mapped file or from decompressed chunks, to its next event; what lies
    behind a cursor is unmapped; a CPU the file ends inside stops there.

Environment:

    Core: no C runtime; the OS only through PRTL.  Owns TRACE_DAT_CPU's
    cursor fields.  Calls the ring-buffer page decoder (TraceEvent.h) and
    TraceDatSection.c (errors, decompression).

--*/

#include "TraceDatInternal.h"

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
            // Decompressed ahead (and checked as DatDecompress checks it).
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

    Status = DatDecompress(Dat, Offset, Dat->Buffer + Offset + 8,
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

VOID
DatUpdateLowestPosition(
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

RTL_STATUS
DatAdvance(
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
            DatUpdateLowestPosition(Dat);
            return RTL_STATUS_OK;
        }
        DatUpdateLowestPosition(Dat);
    }
}

RTL_STATUS
DatOpenCpu(
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

    return DatAdvance(Dat, Cpu);
}

VOID
DatCloseCpu(
    PTRACE_DAT Dat,
    PTRACE_DAT_CPU Cpu
    )
{
    if (Cpu->Buffer != NULL) {
        Dat->Rtl->Unmap(Dat->Rtl, Cpu->Buffer, Cpu->BufferCapacity);
        Cpu->Buffer = NULL;
    }
}
