/*++

Module Name:

    TraceDatSection.c

Abstract:

    Reading trace.dat's bytes: a bounded reader over the mapped file or
    over one decompressed section, errors that name the file and the byte
    offset, zstd decompression through the hosted edge's decompressor,
    and opening a v7 section (header checks, decompression).

Environment:

    Core: no C runtime; the OS only through PRTL (pages for decompressed
    sections).  Owns DAT_READER and the error text.  Calls the import's
    decompressor (TRACE_DECOMPRESSOR) and TraceDatSymbols.c (a section
    read while the kallsyms job runs waits for it).

--*/

#include "TraceDatInternal.h"

RTL_STATUS
DatAllocate(
    PTRACE_IMPORT Import,
    PTRACE_DAT *Result
    )
/*++

Routine Description:

    A reader's state over the mapped input, zeroed (pages, released with
    Rtl->Unmap(Dat, Dat->AllocationSize)); on failure Import->Error says
    so.

--*/
{
    PRTL Rtl = Import->Rtl;
    SIZE_T Bytes = (SIZE_T)ALIGN_UP(sizeof(TRACE_DAT), RTL_PAGE_SIZE);
    PTRACE_DAT Dat;
    RTL_STATUS Status;

    *Result = NULL;
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
    *Result = Dat;
    return RTL_STATUS_OK;
}

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

RTL_STATUS
DatReaderError(
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

RTL_STATUS
DatReadBytes(
    PDAT_READER Reader,
    ULONGLONG Count,
    const BYTE **Bytes,
    PCSZ What
    )
{
    *Bytes = Reader->Data;
    if (Count > Reader->Length - Reader->Position) {
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "truncated: %s needs %llu bytes, %llu remain",
                              What, Count,
                              (ULONGLONG)(Reader->Length - Reader->Position));
    }
    *Bytes = Reader->Data + Reader->Position;
    Reader->Position += (SIZE_T)Count;
    return RTL_STATUS_OK;
}

RTL_STATUS
DatReadNumber(
    PDAT_READER Reader,
    ULONG Size,
    PULONGLONG Value,
    PCSZ What
    )
{
    const BYTE *Bytes;
    RTL_STATUS Status;

    *Value = 0;
    Status = DatReadBytes(Reader, Size, &Bytes, What);
    if (RTL_SUCCESS(Status)) {
        *Value = TraceEventReadNumber(Bytes, Size);
    }
    return Status;
}

RTL_STATUS
DatReadString(
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
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "%s is not a string of at most %u bytes", What,
                              Limit);
    }
    return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                          "truncated: %s has no terminating NUL", What);
}

RTL_STATUS
DatExpectString(
    PDAT_READER Reader,
    PCSZ Expected,
    PCSZ What
    )
{
    PCSZ String;
    ULONG Length;
    SIZE_T Start = Reader->Position;
    RTL_STATUS Status;

    Status = DatReadString(Reader, 64, &String, &Length, What);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (!RtlStringEqual(String, Expected)) {
        Reader->Position = Start;
        return DatReaderError(Reader, RTL_STATUS_BAD_FORMAT,
                              "expected \"%s\" (%s)", Expected, What);
    }
    return RTL_STATUS_OK;
}

VOID
DatReleaseReader(
    PDAT_READER Reader
    )
{
    if (Reader->Owned != NULL) {
        Reader->Dat->Rtl->Unmap(Reader->Dat->Rtl, Reader->Owned,
                                Reader->OwnedSize);
        Reader->Owned = NULL;
    }
}

VOID
DatFileReader(
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

RTL_STATUS
DatNeedDecompressor(
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

RTL_STATUS
DatDecompress(
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

    Status = DatNeedDecompressor(Dat, Offset);
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

RTL_STATUS
DatOpenSection(
    PTRACE_DAT Dat,
    ULONGLONG Offset,
    ULONG ExpectedId,
    PCSZ What,
    PDAT_READER Reader
    )
/*++

Routine Description:

    Opens the v7 section at Offset: checks its header, and decompresses it
    if it is compressed.  Release the reader with DatReleaseReader.

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

    DatFileReader(Dat, Offset, Dat->Length - Offset, &Header);
    Status = DatReadNumber(&Header, 2, &Id, "section id");
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(&Header, 2, &Flags, "section flags");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(&Header, 4, &StringId, "section description");
    }
    if (RTL_SUCCESS(Status)) {
        Status = DatReadNumber(&Header, 8, &Size, "section size");
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

    DatFileReader(Dat, Offset + 16, Size, Reader);

    if (Flags & SECTION_FLAG_COMPRESSED) {
        ULONGLONG Compressed, Uncompressed;
        const BYTE *Input;
        SIZE_T Bytes;
        PBYTE Output;

        Status = DatReadNumber(Reader, 4, &Compressed, "compressed size");
        if (RTL_SUCCESS(Status)) {
            Status = DatReadNumber(Reader, 4, &Uncompressed,
                                   "uncompressed size");
        }
        if (RTL_SUCCESS(Status)) {
            Status = DatReadBytes(Reader, Compressed, &Input,
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
            // its result is checked as DatDecompress checks its own.
            //

            PDAT_SYMBOL_JOB Job = &Dat->SymbolJob;

            DatPrefetchChunks(Dat);
            DatWaitSymbolJob(Dat);
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

            Status = DatDecompress(Dat, Offset + 24, Input, (SIZE_T)Compressed,
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
