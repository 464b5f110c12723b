/*++

Module Name:

    EtwFormat.h

Abstract:

    The on-disk layout of a Windows kernel event trace log (.etl) as the
    ETW reader reads it, and the routines that frame it: buffers, XPRESS
    decompression, and the event headers inside a buffer.

    An .etl file is a sequence of buffers.  Each starts with a 72-byte
    WMI_BUFFER_HEADER; its events follow, each 8-byte aligned, up to
    SavedOffset.  A compressed buffer (BufferFlag 0x40, as PerfView's
    relogger and Windows 8+ compressed sessions write them) holds
    BufferSize - 72 bytes of MS-XCA plain LZ77 ("XPRESS",
    COMPRESSION_FORMAT_XPRESS) that decompress to SavedOffset - 72 bytes
    of events.  Byte 2 of an event says its header:

        0x01 / 0x02   SYSTEM_TRACE_HEADER, 32 / 64-bit pointers, 32 bytes
        0x03 / 0x04   compact system header, 24 bytes (no CPU times)
        0x10 / 0x11   PERFINFO_TRACE_HEADER, 16 bytes (no thread, process)
        0x12 / 0x13   EVENT_HEADER (manifest providers), 80 bytes
        0x0A / 0x14   EVENT_TRACE_HEADER (classic providers), 48 bytes

    Layouts from airbus-cert/etl-parser (etl/wmi.py, system.py, perf.py,
    event.py, trace.py), Geoff Chappell's notes on WMI_BUFFER_HEADER and
    the trace headers, and Microsoft's TRACE_LOGFILE_HEADER documentation.

Environment:

    Core: no C runtime, no OS service.  Shared by EtwFrame.c (framing),
    EtwXpress.c (the decompressor) and Etw.c / EtwKernel.c (the import,
    through EtwReader.h).

--*/

#ifndef _TRACER_ETW_FORMAT_H_
#define _TRACER_ETW_FORMAT_H_

#include "Readers/Import/TraceImport.h"

//
// WMI_BUFFER_HEADER: the start of every buffer of the file.
//

typedef struct _ETW_BUFFER_HEADER {
    ULONG BufferSize;       // bytes of this buffer in the file
    ULONG SavedOffset;      // bytes of header + events (decompressed)
    ULONG CurrentOffset;    // writer's offset when flushed
    LONG ReferenceCount;
    ULONGLONG TimeStamp;    // when the buffer was flushed
    ULONGLONG SequenceNumber;
    ULONGLONG Clock;        // clock type (3 bits) and frequency
    USHORT ProcessorIndex;  // CPU the buffer belongs to
    USHORT LoggerId;
    ULONG State;
    ULONG Offset;
    USHORT BufferFlag;      // ETW_BUFFER_FLAG_*
    USHORT BufferType;      // ETW_BUFFER_TYPE_*
    BYTE Padding[16];
} ETW_BUFFER_HEADER, *PETW_BUFFER_HEADER;

C_ASSERT(sizeof(ETW_BUFFER_HEADER) == 72);
C_ASSERT(FIELD_OFFSET(ETW_BUFFER_HEADER, SavedOffset) == 4);
C_ASSERT(FIELD_OFFSET(ETW_BUFFER_HEADER, TimeStamp) == 16);
C_ASSERT(FIELD_OFFSET(ETW_BUFFER_HEADER, ProcessorIndex) == 40);
C_ASSERT(FIELD_OFFSET(ETW_BUFFER_HEADER, BufferFlag) == 52);
C_ASSERT(FIELD_OFFSET(ETW_BUFFER_HEADER, BufferType) == 54);

#define ETW_BUFFER_HEADER_SIZE      72
#define ETW_BUFFER_FLAG_COMPRESSED  0x40

//
// A buffer larger than this is taken for damage (Windows' largest is
// 16 MB; PerfView writes 64 KB).
//

#define ETW_MAX_BUFFER_SIZE         (64u << 20)

//
// Header types (byte 2 of an event).
//

#define ETW_HEADER_SYSTEM32     0x01
#define ETW_HEADER_SYSTEM64     0x02
#define ETW_HEADER_COMPACT32    0x03
#define ETW_HEADER_COMPACT64    0x04
#define ETW_HEADER_FULL32       0x0A
#define ETW_HEADER_PERFINFO32   0x10
#define ETW_HEADER_PERFINFO64   0x11
#define ETW_HEADER_EVENT32      0x12
#define ETW_HEADER_EVENT64      0x13
#define ETW_HEADER_FULL64       0x14

#define ETW_HEADER_MARKER_FLAGS 0xC0    // byte 3: the top two bits set

#define ETW_SYSTEM_HEADER_SIZE      32
#define ETW_COMPACT_HEADER_SIZE     24
#define ETW_PERFINFO_HEADER_SIZE    16
#define ETW_EVENT_HEADER_SIZE       80
#define ETW_FULL_HEADER_SIZE        48

//
// SYSTEM_TRACE_HEADER (the compact one stops after SystemTime, the
// PERFINFO one has SystemTime at offset 8 and nothing else).
//

typedef struct _ETW_SYSTEM_HEADER {
    USHORT Version;         // of the event's payload layout
    UCHAR HeaderType;       // ETW_HEADER_*
    UCHAR MarkerFlags;      // ETW_HEADER_MARKER_FLAGS
    USHORT Size;            // header + payload
    UCHAR Type;             // event type within the group
    UCHAR Group;            // EVENT_TRACE_GROUP_*
    ULONG ThreadId;
    ULONG ProcessId;
    LONGLONG SystemTime;    // raw timestamp in the log's clock
    ULONG KernelTime;
    ULONG UserTime;
} ETW_SYSTEM_HEADER, *PETW_SYSTEM_HEADER;

C_ASSERT(sizeof(ETW_SYSTEM_HEADER) == ETW_SYSTEM_HEADER_SIZE);
C_ASSERT(FIELD_OFFSET(ETW_SYSTEM_HEADER, Size) == 4);
C_ASSERT(FIELD_OFFSET(ETW_SYSTEM_HEADER, ThreadId) == 8);
C_ASSERT(FIELD_OFFSET(ETW_SYSTEM_HEADER, SystemTime) == 16);

//
// EVENT_HEADER (manifest-based and TraceLogging providers).
//

typedef struct _ETW_EVENT_HEADER {
    USHORT Size;
    UCHAR HeaderType;
    UCHAR MarkerFlags;
    USHORT Flags;           // EVENT_HEADER_FLAG_*
    USHORT EventProperty;
    ULONG ThreadId;
    ULONG ProcessId;
    LONGLONG TimeStamp;
    BYTE ProviderId[16];    // GUID
    USHORT Id;              // EVENT_DESCRIPTOR
    UCHAR Version;
    UCHAR Channel;
    UCHAR Level;
    UCHAR Opcode;
    USHORT Task;
    ULONGLONG Keyword;
    ULONGLONG ProcessorTime;
    BYTE ActivityId[16];
} ETW_EVENT_HEADER, *PETW_EVENT_HEADER;

C_ASSERT(sizeof(ETW_EVENT_HEADER) == ETW_EVENT_HEADER_SIZE);
C_ASSERT(FIELD_OFFSET(ETW_EVENT_HEADER, TimeStamp) == 16);
C_ASSERT(FIELD_OFFSET(ETW_EVENT_HEADER, ProviderId) == 24);
C_ASSERT(FIELD_OFFSET(ETW_EVENT_HEADER, Id) == 40);
C_ASSERT(FIELD_OFFSET(ETW_EVENT_HEADER, ActivityId) == 64);

//
// EVENT_TRACE_HEADER (classic providers: TraceEvent with a GUID).
//

typedef struct _ETW_FULL_HEADER {
    USHORT Size;
    UCHAR HeaderType;
    UCHAR MarkerFlags;
    UCHAR Type;             // EVENT_TRACE_HEADER.Class
    UCHAR Level;
    USHORT Version;
    ULONG ThreadId;
    ULONG ProcessId;
    LONGLONG TimeStamp;
    BYTE Guid[16];
    ULONGLONG ProcessorTime;
} ETW_FULL_HEADER, *PETW_FULL_HEADER;

C_ASSERT(sizeof(ETW_FULL_HEADER) == ETW_FULL_HEADER_SIZE);
C_ASSERT(FIELD_OFFSET(ETW_FULL_HEADER, TimeStamp) == 16);
C_ASSERT(FIELD_OFFSET(ETW_FULL_HEADER, Guid) == 24);

//
// TRACE_LOGFILE_HEADER, the payload of the first event of the file (group
// 0, type 0), as a 64-bit logger writes it; a 32-bit logger's two string
// pointers are 4 bytes each, which moves everything from TimeZone on by
// -8 (ETW_LOGFILE_POINTERS32_SHIFT).
//

#define ETW_LOGFILE_BUFFER_SIZE         0
#define ETW_LOGFILE_POINTER_SIZE        44
#define ETW_LOGFILE_CPU_MHZ             52
#define ETW_LOGFILE_PERF_FREQ           256
#define ETW_LOGFILE_START_TIME          264
#define ETW_LOGFILE_RESERVED_FLAGS      272
#define ETW_LOGFILE_MINIMUM_SIZE        276
#define ETW_LOGFILE_POINTERS32_SHIFT    8

//
// ReservedFlags: the clock of every timestamp in the file.
//

#define ETW_CLOCK_QPC           1       // QueryPerformanceCounter, PerfFreq
#define ETW_CLOCK_SYSTEM_TIME   2       // FILETIME, 100 ns
#define ETW_CLOCK_CPU_CYCLE     3       // cycle counter, CpuSpeedInMHz

//
// 100-ns intervals from 1601-01-01 to 1970-01-01.
//

#define ETW_FILETIME_UNIX_EPOCH 116444736000000000LL

//
// Groups (hook id = group << 8 | type) and the events the import reads.
//

#define ETW_GROUP_HEADER    0x00
#define ETW_GROUP_MEMORY    0x02
#define ETW_GROUP_PROCESS   0x03
#define ETW_GROUP_THREAD    0x05
#define ETW_GROUP_IMAGE     0x14

#define ETW_TYPE_TRANSITION_FAULT   10  // PageFault_TypeGroup1
#define ETW_TYPE_ACCESS_VIOLATION   15
#define ETW_TYPE_HARD_FAULT         32  // PageFault_HardFault
#define ETW_TYPE_LOAD               10  // Image load (group Process)
#define ETW_TYPE_START              1
#define ETW_TYPE_END                2
#define ETW_TYPE_DC_START           3
#define ETW_TYPE_DC_END             4

//
// One framed event.
//

typedef enum _ETW_EVENT_KIND {
    EtwEventClassic = 0,    // system, compact or perfinfo header
    EtwEventManifest,       // EVENT_HEADER
    EtwEventTrace,          // EVENT_TRACE_HEADER
} ETW_EVENT_KIND;

typedef struct _ETW_EVENT {
    ETW_EVENT_KIND Kind;
    ULONG HeaderType;       // ETW_HEADER_*
    BOOL Is64;              // the logger's pointers are 8 bytes
    USHORT Version;         // classic: payload version; EVENT_HEADER: the
                            // descriptor's; EVENT_TRACE_HEADER: Version
    UCHAR Group;            // classic only
    UCHAR Type;             // classic: type; EVENT_TRACE_HEADER: Class
                            // type; EVENT_HEADER: Opcode
    USHORT Id;              // EVENT_HEADER: descriptor Id
    USHORT Padding;
    ULONG ThreadId;         // TRACE_NULL_ULONG for perfinfo headers
    ULONG ProcessId;        // likewise
    LONGLONG RawTime;       // in the log's clock
    const BYTE *Guid;       // provider (non-classic), else NULL
    const BYTE *Payload;
    ULONG PayloadLength;
    ULONG Offset;           // of the event in its buffer's payload
} ETW_EVENT, *PETW_EVENT;

//
// Little-endian loads from unaligned bytes.
//

static inline
ULONG
EtwLoad16(
    const BYTE *Bytes
    )
{
    return (ULONG)Bytes[0] | ((ULONG)Bytes[1] << 8);
}

static inline
ULONG
EtwLoad32(
    const BYTE *Bytes
    )
{
    ULONG Value;

    __builtin_memcpy(&Value, Bytes, sizeof(Value));
    return Value;
}

static inline
ULONGLONG
EtwLoad64(
    const BYTE *Bytes
    )
{
    ULONGLONG Value;

    __builtin_memcpy(&Value, Bytes, sizeof(Value));
    return Value;
}

//
// A pointer-sized field: 8 bytes in a 64-bit log, 4 in a 32-bit one.
//

static inline
ULONGLONG
EtwLoadPointer(
    const BYTE *Bytes,
    BOOL Is64
    )
{
    return Is64 ? EtwLoad64(Bytes) : EtwLoad32(Bytes);
}

//
// MS-XCA plain LZ77 (EtwXpress.c): decompresses Input into exactly
// OutputLength bytes.  Returns RTL_STATUS_OK, or RTL_STATUS_BAD_FORMAT
// with *ErrorOffset the input offset of the damage and *Reason what it is
// (a match before the start of the output, input ending early, output
// longer or shorter than OutputLength).
//

RTL_STATUS EtwXpressDecompress(const BYTE *Input, SIZE_T InputLength,
                               PBYTE Output, SIZE_T OutputLength,
                               PSIZE_T ErrorOffset, PCSZ *Reason);

//
// Frames the event at Payload + Offset (Length bytes in all).  Returns
// RTL_STATUS_OK with *Event filled and *Next the offset of the next event
// (8-byte aligned, at most Length), or RTL_STATUS_BAD_FORMAT with *Reason.
//

RTL_STATUS EtwFrameEvent(const BYTE *Payload, ULONG Length, ULONG Offset,
                         PETW_EVENT Event, PULONG Next, PCSZ *Reason);

//
// Whether Buffer (Length bytes) starts like an .etl file: a buffer header
// whose first event is the log file header (group 0, type 0).
//

BOOL EtwLooksLikeLog(const BYTE *Buffer, SIZE_T Length);

#endif // _TRACER_ETW_FORMAT_H_
