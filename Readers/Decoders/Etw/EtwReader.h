/*++

Module Name:

    EtwReader.h

Abstract:

    The state of one .etl import, shared by Etw.c (the file: buffers,
    decompression, the clock, the event loop) and EtwKernel.c (what the
    kernel events become: page faults, modules, processes, threads, and
    an ftrace_event row for every other event).

Environment:

    Core: no C runtime; the OS only through PRTL.

--*/

#ifndef _TRACER_ETW_READER_H_
#define _TRACER_ETW_READER_H_

#include "EtwFormat.h"

//
// An image loaded in a process (or in the kernel, Pid
// ETW_KERNEL_PID), for attributing fault addresses.  Images are found
// through ImageChunks: one key per 64 KB of the image (Windows maps
// images at 64 KB-aligned bases, so a chunk holds at most one image of a
// process at a time).
//

#define ETW_KERNEL_PID      0xfffffffeu
#define ETW_CHUNK_SHIFT     16
#define ETW_MAX_IMAGE_SIZE  (1ull << 32)    // PE SizeOfImage is 32-bit
#define ETW_MAX_CHUNKS      (1ull << 22)    // keys in ImageChunks at most

typedef struct _ETW_IMAGE {
    ULONGLONG Start;
    ULONGLONG End;
    ULONG Pid;              // process, or ETW_KERNEL_PID
    ULONG PathId;           // file name, or NULL
} ETW_IMAGE, *PETW_IMAGE;

//
// Names of the events that have no store of their own ("Thread/36",
// "{GUID}/ID"), cached by what identifies them.
//

#define ETW_NAME_CACHE_ENTRIES 256

typedef struct _ETW_NAME_CACHE_ENTRY {
    BYTE Guid[16];          // zero for classic events
    ULONG Key;              // kind << 24 | group << 16 | type or id
    ULONG NameId;           // TRACE_NULL_ULONG when empty
} ETW_NAME_CACHE_ENTRY, *PETW_NAME_CACHE_ENTRY;

//
// The page_fault names, by event type (10..15, then 32).
//

#define ETW_FAULT_NAMES     7

//
// Room for a UTF-16 string of an event (at most 32768 units, 3 UTF-8
// bytes each) in UTF-8, after a short prefix.
//

typedef struct _ETW_TEXT {
    CHAR Bytes[3 * 32768 + 256];
} ETW_TEXT, *PETW_TEXT;

//
// One CPU's buffers, read in file order (their events are in time order),
// with its current event; the import merges the streams by time.
//

#define ETW_MAX_STREAMS     65536           // ProcessorIndex is 16-bit

typedef struct _ETW_STREAM {
    SIZE_T Offset;                      // the current buffer's
    USHORT Cpu;
    BOOLEAN Compressed;
    BOOLEAN Padding;
    const BYTE *Payload;                // its events
    ULONG PayloadLength;
    ULONG At;                           // the current event's offset
    ULONG Next;                         // the next event's
    ULONG Padding2;
    PBYTE Scratch;                      // the stream's decompressed buffer
    SIZE_T ScratchSize;
    ETW_EVENT Event;                    // the current event, framed
} ETW_STREAM, *PETW_STREAM;

typedef struct _ETW_READER {
    PTRACE_IMPORT Import;

    //
    // The clock: ns = SyncNs + (raw - SyncRaw) * 10^9 / Frequency.
    //

    ULONGLONG Frequency;
    LONGLONG SyncRaw;
    LONGLONG SyncNs;

    //
    // Where the event being read is, for error messages: the buffer's
    // file offset, and whether its events were decompressed.
    //

    SIZE_T BufferOffset;
    BOOL Compressed;
    ULONG Padding;

    //
    // The first pass's decompressed buffer, one at a time.
    //

    PBYTE Scratch;
    SIZE_T ScratchSize;

    //
    // The log as the first pass found it: its buffers end at Limit (the
    // end, a zero tail, or the first buffer that cannot be read), and
    // each CPU's buffers form a stream, the streams numbered in the
    // order of their first buffer in the file.
    //

    SIZE_T Limit;
    PETW_STREAM Streams;                // ETW_MAX_STREAMS, touched as used
    ULONG StreamCount;
    ULONG StreamOfCpu[ETW_MAX_STREAMS]; // stream + 1, 0 for none

    //
    // Tasks and images.
    //

    TRACE_HASH_TABLE ThreadProcess;     // tid + 1 -> pid
    TRACE_HASH_TABLE ProcessNames;      // pid + 1 -> name id
    TRACE_HASH_TABLE ImageChunks;       // chunk key -> index in Images
    PETW_IMAGE Images;
    SIZE_T ImageCount;
    SIZE_T ImageCapacity;
    ULONGLONG Chunks;                   // keys inserted, for the limit
    ULONGLONG UnindexedImages;          // too large, or past the limit

    PETW_TEXT Text;
    ULONG FaultNameIds[ETW_FAULT_NAMES];
    ULONG FaultFormats;                 // bit i: event_format row written
    ULONG ImagePermsId;
    ETW_NAME_CACHE_ENTRY Names[ETW_NAME_CACHE_ENTRIES];

} ETW_READER, *PETW_READER;

//
// EtwKernel.c: sets up and releases the reader's tables; imports one
// framed event (its ts already converted into Event); the error for an
// event at an offset of the current buffer.
//

RTL_STATUS EtwBeginKernel(PETW_READER Reader);
VOID EtwEndKernel(PETW_READER Reader);
RTL_STATUS EtwImportEvent(PETW_READER Reader, PETW_EVENT Event,
                          PTRACE_EVENT_CONTEXT Context);

//
// Etw.c: an error about the event at Offset of the current buffer's
// payload.
//

RTL_STATUS EtwEventError(PETW_READER Reader, ULONG Offset, PCSZ Reason);

#endif // _TRACER_ETW_READER_H_
