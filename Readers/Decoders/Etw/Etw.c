/*++

Module Name:

    Etw.c

Abstract:

    This module imports a Windows kernel event trace log (.etl; seeds/000
    read its page faults with the `etw` Python module) into a session, in
    time order.  A first pass walks the file's buffers and numbers each
    CPU's stream; a second merges the streams by time (TimeMerge.h), one
    current buffer per CPU (the XPRESS ones decompressed into a scratch
    area of the stream's), frames their events (EtwFrame.c) and hands each
    to EtwKernel.c, which turns PageFault, Image, Process and Thread
    events into page_fault, module, process and thread rows and every
    other event into an ftrace_event row.  So a thread or image start in
    a later buffer than the faults it explains still explains them.

    Time.  The first event of the file is the log file header
    (TRACE_LOGFILE_HEADER): its ReservedFlags name the clock of every
    timestamp (1 QueryPerformanceCounter at PerfFreq, 2 FILETIME, 3 CPU
    cycles at CpuSpeedInMHz), StartTime the wall-clock time (FILETIME) of
    the header event's own timestamp.  A ts is
    StartTime + (raw - header raw) * 10^9 / frequency, in ns since the
    Unix epoch (FILETIME clocks: the raw FILETIME itself, converted), the
    division truncated toward zero; the clock is named "realtime".

    Memory.  The input is mapped; what lies before every stream's current
    buffer is unmapped (TraceImportEventDone), and the first pass unmaps
    behind itself.  One decompressed buffer per CPU.  No list of buffers:
    a stream finds its CPU's next buffer by walking the headers.

    Errors.  A zero-filled tail (a preallocated log) ends the log.  A cut
    or damaged buffer or event stops the import with the file, the byte
    offset (for a compressed buffer: the buffer's, and the
    offset inside its decompressed events) and what is wrong.  The first
    pass finds cut logs and damaged plain buffers: every event of the
    buffers before is kept.  A compressed buffer is checked when the
    merge decompresses it: every event merged before is kept.

Environment:

    Core: no C runtime; the OS only through PRTL (pages for the reader and
    its scratch buffers).  Called through the format table (TraceFormats.c:
    EtwDetect, EtwImport); calls EtwFrame.c, EtwXpress.c, EtwKernel.c,
    TimeMerge.h and TraceImport.h.

--*/

#include "EtwReader.h"
#include "Readers/Import/TimeMerge.h"
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
EventNs(
    PETW_READER Reader,
    PETW_EVENT Event,
    PLONGLONG Ns
    )
{
    if (!ToNs(Reader, Event->RawTime, Ns)) {
        return EtwEventError(Reader, Event->Offset, "a timestamp too far "
                             "from the log's start to convert to ns");
    }
    return RTL_STATUS_OK;
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
    PBYTE *Scratch,
    PSIZE_T ScratchSize,
    const BYTE **Payload,
    PULONG PayloadLength,
    PULONG BufferSize
    )
/*++

Routine Description:

    Checks the buffer at Offset and returns its events: in the file, or
    decompressed into *Scratch (grown to fit; *ScratchSize bytes).  With
    Scratch NULL, a compressed buffer is not decompressed (*Payload NULL).

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

    if (Scratch == NULL) {
        *Payload = NULL;
        return RTL_STATUS_OK;
    }

    if (*PayloadLength > *ScratchSize) {
        if (*Scratch != NULL) {
            Rtl->Unmap(Rtl, *Scratch, *ScratchSize);
            *Scratch = NULL;
            *ScratchSize = 0;
        }
        Status = Rtl->AllocatePages(Rtl, *PayloadLength, (PPVOID)Scratch);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(&Import->Error, Status, 0, Offset,
                               "%s: %s", Import->Path, RtlStatusText(Status));
        }
        *ScratchSize = *PayloadLength;
    }

    *Payload = *Scratch;
    Status = EtwXpressDecompress(Header + ETW_BUFFER_HEADER_SIZE,
                                 Size - ETW_BUFFER_HEADER_SIZE,
                                 *Scratch, *PayloadLength,
                                 &ErrorOffset, &Reason);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportByteError(Import, Offset, "compressed buffer: %s "
                                    "(at byte offset %llu)", Reason,
                                    (ULONGLONG)(Offset +
                                                ETW_BUFFER_HEADER_SIZE +
                                                ErrorOffset));
    }

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
ScanBuffers(
    PETW_READER Reader
    )
/*++

Routine Description:

    The first pass: checks every buffer's header and the events of every
    plain buffer, front to back, so that a cut log or a damaged plain
    buffer is found before any event is imported; sets up the clock from
    the first event; numbers the CPUs' streams.  Reader->Limit is where
    the readable log ends.  Compressed buffers are decompressed (and
    checked) once, by the merge: decompressing costs most of an import.

Return Value:

    RTL_STATUS_OK, or the error of the first buffer or event that cannot
    be read (Import->Error names it); the buffers before it are readable.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Import->Rtl;
    PETW_STREAM Stream;
    ETW_EVENT Event;
    SIZE_T Offset = 0;
    SIZE_T Discarded = 0;
    const BYTE *Payload = NULL;
    ULONG PayloadLength = 0;
    ULONG BufferSize = 0;
    ULONG Cpu;
    ULONG At;
    ULONG Next;
    LONGLONG Ns;
    PCSZ Reason;
    RTL_STATUS Status = RTL_STATUS_OK;

    while (Offset < Import->Length) {
        Reader->Limit = Offset;
        if (ZeroTail(Import->Buffer + Offset, Import->Length - Offset)) {
            return RTL_STATUS_OK;
        }
        Status = BufferPayload(Reader, Offset,
                               (Reader->Frequency == 0) ? &Reader->Scratch :
                                                          NULL,
                               &Reader->ScratchSize, &Payload,
                               &PayloadLength, &BufferSize);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        for (At = 0; Payload != NULL && At < PayloadLength; At = Next) {
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

            Status = EventNs(Reader, &Event, &Ns);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        Cpu = EtwLoad16(Import->Buffer + Offset +
                        FIELD_OFFSET(ETW_BUFFER_HEADER, ProcessorIndex));
        if (Reader->StreamOfCpu[Cpu] == 0) {
            Stream = &Reader->Streams[Reader->StreamCount++];
            Stream->Offset = Offset;
            Stream->Cpu = (USHORT)Cpu;
            Reader->StreamOfCpu[Cpu] = Reader->StreamCount;
        }

        Offset += BufferSize;

        //
        // What the pass has read is not needed mapped until the merge
        // comes back to it.
        //

        if (Offset - Discarded >= 2 * TRACE_DISCARD_BEHIND) {
            Rtl->DiscardMemory(Rtl, Import->Buffer + Discarded,
                               Offset - TRACE_DISCARD_BEHIND - Discarded);
            Discarded = Offset - TRACE_DISCARD_BEHIND;
        }
    }

    Reader->Limit = Offset;
    return RTL_STATUS_OK;
}

static
BOOL
NextBufferOfCpu(
    PETW_READER Reader,
    PETW_STREAM Stream
    )
/*++

Routine Description:

    Moves Stream past its buffer to its CPU's next one, walking the
    headers in between (no list of buffers is kept, so memory does not
    grow with the log); FALSE when there is none before Reader->Limit.

--*/
{
    const BYTE *Buffer = Reader->Import->Buffer;

    do {
        Stream->Offset += EtwLoad32(Buffer + Stream->Offset);
    } while (Stream->Offset < Reader->Limit &&
             EtwLoad16(Buffer + Stream->Offset +
                       FIELD_OFFSET(ETW_BUFFER_HEADER, ProcessorIndex)) !=
             Stream->Cpu);

    return Stream->Offset < Reader->Limit;
}

static
RTL_STATUS
StreamLoad(
    PETW_READER Reader,
    PETW_STREAM Stream,
    PBOOL Done
    )
/*++

Routine Description:

    Moves Stream to the first event of its buffer at Stream->Offset, or of
    the CPU's first buffer after it with events; *Done when there is none.
    The first pass checked these buffers.

--*/
{
    ULONG BufferSize;
    PCSZ Reason;
    RTL_STATUS Status;

    do {
        Status = BufferPayload(Reader, Stream->Offset, &Stream->Scratch,
                               &Stream->ScratchSize, &Stream->Payload,
                               &Stream->PayloadLength, &BufferSize);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Stream->Compressed = (BOOLEAN)Reader->Compressed;

        if (Stream->PayloadLength != 0) {
            Stream->At = 0;
            Status = EtwFrameEvent(Stream->Payload, Stream->PayloadLength, 0,
                                   &Stream->Event, &Stream->Next, &Reason);
            if (!RTL_SUCCESS(Status)) {
                return EtwEventError(Reader, 0, Reason);
            }
            *Done = FALSE;
            return RTL_STATUS_OK;
        }
    } while (NextBufferOfCpu(Reader, Stream));

    *Done = TRUE;
    return RTL_STATUS_OK;
}

static
ULONGLONG
MergeKey(
    LONGLONG RawTime
    )
{
    return (ULONGLONG)RawTime ^ (1ULL << 63);
}

static
SIZE_T
LowestOffset(
    PETW_READER Reader,
    PTIME_MERGE Merge
    )
/*++

Routine Description:

    The offset of the earliest buffer a stream still reads: everything
    before it is done with.

--*/
{
    SIZE_T Lowest = Reader->Limit;
    ULONG Index;

    for (Index = 0; Index < Merge->Count; Index++) {
        PETW_STREAM Stream = &Reader->Streams[Merge->Heap[Index].Source];

        if (Stream->Offset < Lowest) {
            Lowest = Stream->Offset;
        }
    }
    return Lowest;
}

static
RTL_STATUS
MergeStreams(
    PETW_READER Reader,
    PTIME_MERGE Merge
    )
/*++

Routine Description:

    The second pass: imports the events of the buffers before
    Reader->Limit in time order, taking the next event from the CPU
    stream whose current event is earliest (equal timestamps: the stream
    whose first buffer comes first in the file).  Each CPU's events are
    in time order in the file; the CPUs' buffers are interleaved as they
    filled, so a process's or thread's start may sit in a buffer after
    the events it explains.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    PETW_STREAM Stream;
    SIZE_T Done;
    ULONG Source;
    LONGLONG Ns = 0;
    BOOL Finished;
    PCSZ Reason;
    RTL_STATUS Status;

    Context.FlagsId = TRACE_NULL_ULONG;
    Context.Padding = 0;

    for (Source = 0; Source < Reader->StreamCount; Source++) {
        Stream = &Reader->Streams[Source];
        Status = StreamLoad(Reader, Stream, &Finished);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Finished) {
            TimeMergeInsert(Merge, Source, MergeKey(Stream->Event.RawTime));
        }
    }
    Done = LowestOffset(Reader, Merge);

    while (TimeMergeFirst(Merge, &Source)) {
        Stream = &Reader->Streams[Source];
        Reader->BufferOffset = Stream->Offset;
        Reader->Compressed = Stream->Compressed;
        Import->EventOffset = Stream->Compressed ?
                              Stream->Offset :
                              Stream->Offset + ETW_BUFFER_HEADER_SIZE +
                              Stream->At;

        Status = EventNs(Reader, &Stream->Event, &Ns);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Context.Timestamp = TraceImportAlignTs(Import, Ns);
        Context.Cpu = Stream->Cpu;

        Status = EtwImportEvent(Reader, &Stream->Event, &Context);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportEventDone(Import, Done);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        //
        // The stream's next event: in its buffer, or its CPU's next.
        //

        Stream->At = Stream->Next;
        if (Stream->At < Stream->PayloadLength) {
            Status = EtwFrameEvent(Stream->Payload, Stream->PayloadLength,
                                   Stream->At, &Stream->Event, &Stream->Next,
                                   &Reason);
            if (!RTL_SUCCESS(Status)) {
                return EtwEventError(Reader, Stream->At, Reason);
            }
            TimeMergeUpdateFirst(Merge, MergeKey(Stream->Event.RawTime));
        } else {
            Finished = TRUE;
            if (NextBufferOfCpu(Reader, Stream)) {
                Status = StreamLoad(Reader, Stream, &Finished);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }
            if (Finished) {
                TimeMergeRemoveFirst(Merge);
            } else {
                TimeMergeUpdateFirst(Merge,
                                     MergeKey(Stream->Event.RawTime));
            }
            Done = LowestOffset(Reader, Merge);
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
Allocate(
    PETW_READER Reader,
    SIZE_T Size,
    PPVOID Memory
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;

    Status = Import->Rtl->AllocatePages(Import->Rtl, Size, Memory);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    return RTL_STATUS_OK;
}

RTL_STATUS
EtwImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports every event of the mapped .etl input, in time order: a first
    pass checks the buffers, a second merges the CPUs' streams.  A cut or
    damaged buffer or event is an error naming its byte offset; every
    event of the buffers before it is kept.

--*/
{
    PRTL Rtl = Import->Rtl;
    PETW_READER Reader;
    TIME_MERGE Merge;
    PVOID MergeMemory = NULL;
    ULONG Index;
    RTL_STATUS Status;
    RTL_STATUS ScanStatus = RTL_STATUS_OK;

    Status = Rtl->AllocatePages(Rtl, sizeof(ETW_READER), (PPVOID)&Reader);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Import = Import;

    Status = EtwBeginKernel(Reader);
    if (RTL_SUCCESS(Status)) {
        Status = Allocate(Reader, ETW_MAX_STREAMS * sizeof(ETW_STREAM),
                          (PPVOID)&Reader->Streams);
    }
    if (RTL_SUCCESS(Status)) {
        ScanStatus = ScanBuffers(Reader);
        if (Reader->StreamCount != 0) {
            Status = Allocate(Reader, TIME_MERGE_SIZE(Reader->StreamCount),
                              &MergeMemory);
        }
        if (RTL_SUCCESS(Status) && MergeMemory != NULL) {
            TimeMergeInitialize(&Merge, MergeMemory);
            Status = MergeStreams(Reader, &Merge);
        }
        if (RTL_SUCCESS(Status)) {
            Status = ScanStatus;
        }
    }

    EtwEndKernel(Reader);
    if (MergeMemory != NULL) {
        Rtl->Unmap(Rtl, MergeMemory, TIME_MERGE_SIZE(Reader->StreamCount));
    }
    if (Reader->Streams != NULL) {
        for (Index = 0; Index < Reader->StreamCount; Index++) {
            if (Reader->Streams[Index].Scratch != NULL) {
                Rtl->Unmap(Rtl, Reader->Streams[Index].Scratch,
                           Reader->Streams[Index].ScratchSize);
            }
        }
        Rtl->Unmap(Rtl, Reader->Streams,
                   ETW_MAX_STREAMS * sizeof(ETW_STREAM));
    }
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
