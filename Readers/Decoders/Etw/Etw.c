/*++

Module Name:

    Etw.c

Abstract:

    This module imports a Windows kernel event trace log (.etl; seeds/000
    read its page faults with the `etw` Python module) into a session.  It
    walks the file's buffers in order, decompresses the XPRESS ones into
    one scratch buffer, frames their events (EtwFrame.c) and hands each to
    EtwKernel.c, which turns PageFault, Image, Process and Thread events
    into page_fault, module, process and thread rows and every other event
    into an ftrace_event row.

    Time.  The first event of the file is the log file header
    (TRACE_LOGFILE_HEADER): its ReservedFlags name the clock of every
    timestamp (1 QueryPerformanceCounter at PerfFreq, 2 FILETIME, 3 CPU
    cycles at CpuSpeedInMHz), StartTime the wall-clock time (FILETIME) of
    the header event's own timestamp.  A ts is
    StartTime + (raw - header raw) * 10^9 / frequency, in ns since the
    Unix epoch (FILETIME clocks: the raw FILETIME itself, converted), the
    division truncated toward zero; the clock is named "realtime".

    Memory.  The input is mapped and read front to back (what lies well
    behind is unmapped, TraceImportEventDone); one buffer is decompressed
    at a time into a scratch area the size of the largest buffer seen.

    Errors.  A zero-filled tail (a preallocated log) ends the log.  A cut
    or damaged buffer or event stops the import with the file, the byte
    offset (for a compressed buffer: the buffer's, and the
    offset inside its decompressed events) and what is wrong; every event
    before it is kept.

Environment:

    Core: no C runtime; the OS only through PRTL (pages for the reader and
    its scratch buffer).  Called through the format table (TraceFormats.c:
    EtwDetect, EtwImport); calls EtwFrame.c, EtwXpress.c, EtwKernel.c and
    TraceImport.h.

--*/

#include "EtwReader.h"
#include "Readers/Decoders/Decoders.h"

BOOL
EtwDetect(
    PTRACE_IMPORT Import
    )
{
    if (Import->IsDirectory) {
        return FALSE;
    }

    return EtwLooksLikeLog(Import->Buffer, Import->Length);
}

static
RTL_STATUS
FileError(
    PETW_READER Reader,
    SIZE_T Offset,
    PCSZ Reason,
    ULONGLONG Value
    )
{
    return TraceImportByteError(Reader->Import, (ULONGLONG)Offset, "%s %llu",
                                Reason, Value);
}

RTL_STATUS
EtwEventError(
    PETW_READER Reader,
    ULONG Offset,
    PCSZ Reason
    )
{
    if (Reader->Compressed) {
        return TraceImportByteError(Reader->Import,
                                    (ULONGLONG)Reader->BufferOffset,
                                    "compressed buffer, event at offset %u "
                                    "of its decompressed events: %s",
                                    Offset, Reason);
    }

    return TraceImportByteError(Reader->Import,
                                (ULONGLONG)Reader->BufferOffset +
                                ETW_BUFFER_HEADER_SIZE + Offset, "%s",
                                Reason);
}

static
BOOL
ToNs(
    PETW_READER Reader,
    LONGLONG Raw,
    PLONGLONG Ns
    )
/*++

Routine Description:

    Converts a raw timestamp to ns since the Unix epoch; FALSE if the
    result does not fit in 63 bits.

--*/
{
    LONGLONG Delta;
    LONGLONG Frequency = (LONGLONG)Reader->Frequency;
    LONGLONG Whole;
    LONGLONG Part;
    LONGLONG Sum;

    if (__builtin_sub_overflow(Raw, Reader->SyncRaw, &Delta) ||
        __builtin_mul_overflow(Delta / Frequency, 1000000000LL, &Whole)) {
        return FALSE;
    }

    Part = (Delta % Frequency) * 1000000000LL / Frequency;
    if (__builtin_add_overflow(Whole, Part, &Sum) ||
        __builtin_add_overflow(Sum, Reader->SyncNs, Ns)) {
        return FALSE;
    }

    return TRUE;
}

static
RTL_STATUS
SetUpClock(
    PETW_READER Reader,
    PETW_EVENT Header
    )
/*++

Routine Description:

    Reads the clock from the log file header event (the first event of the
    file) and names the import's clock.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Payload = Header->Payload;
    ULONG Shift = Header->Is64 ? 0 : ETW_LOGFILE_POINTERS32_SHIFT;
    ULONG Clock;
    LONGLONG StartTime;
    ULONGLONG Frequency;

    if (Header->PayloadLength < ETW_LOGFILE_MINIMUM_SIZE - Shift) {
        return EtwEventError(Reader, Header->Offset, "the log file header "
                             "event is too short for TRACE_LOGFILE_HEADER");
    }

    Clock = EtwLoad32(Payload + ETW_LOGFILE_RESERVED_FLAGS - Shift);
    StartTime = (LONGLONG)EtwLoad64(Payload + ETW_LOGFILE_START_TIME - Shift);

    switch (Clock) {
    case ETW_CLOCK_SYSTEM_TIME:
        Reader->Frequency = 10000000;
        Reader->SyncRaw = ETW_FILETIME_UNIX_EPOCH;
        Reader->SyncNs = 0;
        goto Name;

    case ETW_CLOCK_CPU_CYCLE:
        Frequency = (ULONGLONG)EtwLoad32(Payload + ETW_LOGFILE_CPU_MHZ) *
                    1000000;
        break;

    case ETW_CLOCK_QPC:
    default:

        //
        // 0 (older loggers) is QPC too.
        //

        Frequency = EtwLoad64(Payload + ETW_LOGFILE_PERF_FREQ - Shift);
        break;
    }

    //
    // Frequencies above 9 GHz would overflow the conversion (and no clock
    // runs that fast).
    //

    if (Frequency == 0 || Frequency > 9000000000ULL) {
        return EtwEventError(Reader, Header->Offset, "the log file header "
                             "gives no usable clock frequency");
    }
    //
    // 2^56 * 100 ns (to the year 2198) keeps StartTime in ns below 2^63.
    //

    if (StartTime < ETW_FILETIME_UNIX_EPOCH ||
        StartTime > ETW_FILETIME_UNIX_EPOCH + (1LL << 56)) {
        return EtwEventError(Reader, Header->Offset, "the log file header's "
                             "StartTime is not a date after 1970");
    }

    Reader->Frequency = Frequency;
    Reader->SyncRaw = Header->RawTime;
    Reader->SyncNs = (StartTime - ETW_FILETIME_UNIX_EPOCH) * 100;

Name:
    return TraceImportSetClock(Import, "realtime", 8);
}

static
RTL_STATUS
BufferPayload(
    PETW_READER Reader,
    SIZE_T Offset,
    const BYTE **Payload,
    PULONG PayloadLength,
    PULONG BufferSize
    )
/*++

Routine Description:

    Checks the buffer at Offset and returns its events: in the file, or
    decompressed into the scratch buffer.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Import->Rtl;
    const BYTE *Header = Import->Buffer + Offset;
    SIZE_T Left = Import->Length - Offset;
    ULONG Size;
    ULONG Saved;
    SIZE_T ErrorOffset;
    PCSZ Reason;
    RTL_STATUS Status;

    if (Left < ETW_BUFFER_HEADER_SIZE) {
        return FileError(Reader, Offset, "truncated buffer: the file ends "
                         "inside its 72-byte header; bytes left:", Left);
    }

    Size = EtwLoad32(Header);
    Saved = EtwLoad32(Header + 4);
    Reader->BufferOffset = Offset;
    Reader->Compressed = (EtwLoad16(Header + 52) &
                          ETW_BUFFER_FLAG_COMPRESSED) != 0;

    if (Size < ETW_BUFFER_HEADER_SIZE || Size > ETW_MAX_BUFFER_SIZE) {
        return FileError(Reader, Offset, "not a buffer header: BufferSize",
                         Size);
    }
    if (Size > Left) {
        return FileError(Reader, Offset, "truncated buffer: the file ends "
                         "inside it; its BufferSize is", Size);
    }
    if (Saved < ETW_BUFFER_HEADER_SIZE || Saved > ETW_MAX_BUFFER_SIZE ||
        (!Reader->Compressed && Saved > Size)) {
        return FileError(Reader, Offset, "not a buffer header: SavedOffset",
                         Saved);
    }

    *BufferSize = Size;
    *PayloadLength = Saved - ETW_BUFFER_HEADER_SIZE;

    if (!Reader->Compressed) {
        *Payload = Header + ETW_BUFFER_HEADER_SIZE;
        return RTL_STATUS_OK;
    }

    if (*PayloadLength > Reader->ScratchSize) {
        if (Reader->Scratch != NULL) {
            Rtl->Unmap(Rtl, Reader->Scratch, Reader->ScratchSize);
            Reader->Scratch = NULL;
            Reader->ScratchSize = 0;
        }
        Status = Rtl->AllocatePages(Rtl, *PayloadLength,
                                    (PPVOID)&Reader->Scratch);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(&Import->Error, Status, 0, Offset,
                               "%s: %s", Import->Path, RtlStatusText(Status));
        }
        Reader->ScratchSize = *PayloadLength;
    }

    Status = EtwXpressDecompress(Header + ETW_BUFFER_HEADER_SIZE,
                                 Size - ETW_BUFFER_HEADER_SIZE,
                                 Reader->Scratch, *PayloadLength,
                                 &ErrorOffset, &Reason);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportByteError(Import, Offset, "compressed buffer: %s "
                                    "(at byte offset %llu)", Reason,
                                    (ULONGLONG)(Offset +
                                                ETW_BUFFER_HEADER_SIZE +
                                                ErrorOffset));
    }

    Reader->CompressedBuffers++;
    Reader->DecompressedBytes += *PayloadLength;
    *Payload = Reader->Scratch;
    return RTL_STATUS_OK;
}

static
BOOL
ZeroTail(
    const BYTE *Bytes,
    SIZE_T Length
    )
/*++

Routine Description:

    A log preallocated on disk (EVENT_TRACE_FILE_MODE_PREALLOCATE) ends in
    zeros where no buffer was written: a buffer header of zeros, and only
    zeros after it, ends the log.

--*/
{
    SIZE_T Index;

    if (Length < 8 || EtwLoad64(Bytes) != 0) {
        return FALSE;
    }

    for (Index = 8; Index < Length; Index++) {
        if (Bytes[Index] != 0) {
            return FALSE;
        }
    }

    return TRUE;
}

static
RTL_STATUS
ImportBuffers(
    PETW_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    ETW_EVENT Event;
    SIZE_T Offset = 0;
    const BYTE *Payload = NULL;
    ULONG PayloadLength = 0;
    ULONG BufferSize = 0;
    ULONG At;
    ULONG Next;
    LONGLONG Ns;
    PCSZ Reason;
    RTL_STATUS Status;

    Context.Cpu = TRACE_NULL_ULONG;
    Context.FlagsId = TRACE_NULL_ULONG;
    Context.Padding = 0;

    while (Offset < Import->Length) {
        if (ZeroTail(Import->Buffer + Offset, Import->Length - Offset)) {
            break;
        }
        Status = BufferPayload(Reader, Offset, &Payload, &PayloadLength,
                               &BufferSize);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Reader->Buffers++;

        for (At = 0; At < PayloadLength; At = Next) {
            Import->EventOffset = Reader->Compressed ?
                                  Offset :
                                  Offset + ETW_BUFFER_HEADER_SIZE + At;

            Status = EtwFrameEvent(Payload, PayloadLength, At, &Event, &Next,
                                   &Reason);
            if (!RTL_SUCCESS(Status)) {
                return EtwEventError(Reader, At, Reason);
            }

            if (Reader->Frequency == 0) {
                if (Event.Kind != EtwEventClassic ||
                    Event.Group != ETW_GROUP_HEADER || Event.Type != 0) {
                    return EtwEventError(Reader, At, "the first event is "
                                         "not the log file header");
                }
                Status = SetUpClock(Reader, &Event);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }

            if (!ToNs(Reader, Event.RawTime, &Ns)) {
                return EtwEventError(Reader, At, "a timestamp too far from "
                                     "the log's start to convert to ns");
            }
            Context.Timestamp = TraceImportAlignTs(Import, Ns);
            Context.Cpu = EtwLoad16(Import->Buffer + Offset + 40);

            Status = EtwImportEvent(Reader, &Event, &Context);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }

            Status = TraceImportEventDone(Import, Offset);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        Offset += BufferSize;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
EtwImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports every event of the mapped .etl input.  A cut or damaged buffer
    or event is an error naming its byte offset; every event before it is
    kept.

--*/
{
    PRTL Rtl = Import->Rtl;
    PETW_READER Reader;
    RTL_STATUS Status;

    Status = Rtl->AllocatePages(Rtl, sizeof(ETW_READER), (PPVOID)&Reader);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Import = Import;

    Status = EtwBeginKernel(Reader);
    if (RTL_SUCCESS(Status)) {
        Status = ImportBuffers(Reader);
    }

    EtwEndKernel(Reader);
    if (Reader->Scratch != NULL) {
        Rtl->Unmap(Rtl, Reader->Scratch, Reader->ScratchSize);
    }
    Rtl->Unmap(Rtl, Reader, sizeof(ETW_READER));
    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT EtwDecoder = {
    "etw",
    "Windows kernel ETW log (.etl): page faults, images, processes, "
    "threads; XPRESS-compressed buffers too",
    0,
    EtwDetect,
    EtwImport
};
