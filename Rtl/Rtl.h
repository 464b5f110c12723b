/*++

Module Name:

    Rtl.h

Abstract:

    This is the public header of the Rtl component: the fixed-width NT-style
    base types used by every on-disk structure, and the RTL structure, a
    table of function pointers through which the core (Rtl, TraceStore and
    the reader decoders) reaches every operating system service.

    The core is compiled freestanding and links no C runtime.  A platform
    back end (Rtl/Linux/RtlLinux.c: raw x86-64 system calls) fills in the
    table once per process with InitializeRtl(); hosted edges (the
    tracestore command, the SQLite extension) may then override the
    optional members, e.g. PrefaultMemoryAsync, with threaded versions.

    Only the compiler's freestanding headers (stddef.h, stdint.h, stdarg.h)
    are included here.

Environment:

    Core: freestanding.  Included by every file of the core and of the
    hosted edges; includes only the compiler's stddef.h, stdint.h and
    stdarg.h.  Its routines are defined by RtlString.c and RtlMemory.c
    (portable) and its table filled in by a back end (Rtl/Linux).

--*/

#ifndef _TRACER_RTL_H_
#define _TRACER_RTL_H_

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#ifdef __cplusplus
extern "C" {
#endif

//
// Fixed-width base types.  ULONG is 32 bits everywhere (LP64 unsigned long
// never reaches anything written to disk).
//

typedef void VOID, *PVOID, **PPVOID;
typedef const void *PCVOID;
typedef char CHAR, *PCHAR, **PPCHAR;
typedef const char *PCSZ, *PCCHAR;
typedef CHAR *PSZ;
typedef uint8_t BYTE, UCHAR, BOOLEAN, *PBYTE, *PUCHAR, *PBOOLEAN;
typedef int16_t SHORT, *PSHORT;
typedef uint16_t USHORT, *PUSHORT;
typedef int32_t LONG, *PLONG;
typedef uint32_t ULONG, *PULONG;
typedef int64_t LONGLONG, *PLONGLONG;
typedef uint64_t ULONGLONG, *PULONGLONG;
typedef uintptr_t ULONG_PTR, SIZE_T, *PULONG_PTR, *PSIZE_T;
typedef intptr_t LONG_PTR, SSIZE_T;
typedef int32_t BOOL, *PBOOL;
typedef double DOUBLE, *PDOUBLE;
typedef LONG_PTR HANDLE, *PHANDLE;

#ifndef TRUE
#define TRUE 1
#define FALSE 0
#endif

#ifndef NULL
#define NULL ((void *)0)
#endif

#define INVALID_HANDLE_VALUE ((HANDLE)-1)

#define C_ASSERT(Expression) _Static_assert(Expression, #Expression)
#define FIELD_OFFSET(Type, Field) offsetof(Type, Field)
#define ARRAYSIZE(Array) (sizeof(Array) / sizeof((Array)[0]))
#define ALIGN_UP(Value, Alignment) \
    (((Value) + ((Alignment) - 1)) & ~((ULONGLONG)(Alignment) - 1))
#define ALIGN_DOWN(Value, Alignment) \
    ((Value) & ~((ULONGLONG)(Alignment) - 1))

#define RTL_PAGE_SIZE 4096

//
// Status codes.  Zero is success; negative values are the platform's error
// numbers negated (Linux errno); values at or below RTL_STATUS_FORMAT_BASE
// are the core's own.
//

typedef LONG RTL_STATUS;

#define RTL_SUCCESS(Status) ((Status) >= 0)

#define RTL_STATUS_OK                   0
#define RTL_STATUS_NOT_FOUND           (-2)      // ENOENT
#define RTL_STATUS_NO_MEMORY           (-12)     // ENOMEM
#define RTL_STATUS_EXISTS              (-17)     // EEXIST
#define RTL_STATUS_NOT_DIRECTORY       (-20)     // ENOTDIR
#define RTL_STATUS_INVALID_PARAMETER   (-22)     // EINVAL
#define RTL_STATUS_NO_SPACE            (-28)     // ENOSPC
#define RTL_STATUS_LOCKED              (-11)     // EAGAIN on a held lock
#define RTL_STATUS_FORMAT_BASE         (-100000)
#define RTL_STATUS_BAD_FORMAT          (-100001) // input or file malformed
#define RTL_STATUS_BAD_VERSION         (-100002) // unsupported version
#define RTL_STATUS_CORRUPT             (-100003) // store failed validation
#define RTL_STATUS_TOO_LARGE           (-100004) // a field exceeds a limit
#define RTL_STATUS_NOT_SESSION         (-100005) // directory is no session
#define RTL_STATUS_NOT_REGULAR_FILE    (-100006) // a FIFO, socket or device

//
// Error context.  Routines that can fail on bad input fill one of these so
// that the hosted edge can print "file:line: message" without the core
// needing stdio.
//

#define RTL_ERROR_MESSAGE_SIZE 512

typedef struct _RTL_ERROR {

    //
    // Status code of the failure (RTL_STATUS_*).
    //

    RTL_STATUS Status;

    //
    // One-based line number in the input, or zero if not applicable.
    //

    ULONG Line;

    //
    // Byte offset in the input or file the error refers to, or ~0.
    //

    ULONGLONG Offset;

    //
    // Human readable message, NUL-terminated; it names the file.
    //

    CHAR Message[RTL_ERROR_MESSAGE_SIZE];

} RTL_ERROR, *PRTL_ERROR;

//
// File open dispositions and mapping protections.
//

typedef enum _RTL_OPEN_MODE {
    RtlOpenReadOnly = 0,        // existing file, read only
    RtlOpenReadWrite = 1,       // existing file, read write
    RtlOpenCreateNew = 2,       // create, fail if it exists (read write)
    RtlOpenAlways = 3,          // create if missing (read write)
} RTL_OPEN_MODE;

typedef enum _RTL_CLOCK {
    RtlClockMonotonic = 0,
    RtlClockRealtime = 1,
} RTL_CLOCK;

typedef struct _RTL RTL, *PRTL;

//
// File and directory services.
//

typedef RTL_STATUS (RTL_OPEN_FILE)(PRTL Rtl, PCSZ Path, RTL_OPEN_MODE Mode,
                                   PHANDLE Handle);
typedef RTL_OPEN_FILE *PRTL_OPEN_FILE;

typedef RTL_STATUS (RTL_CLOSE_FILE)(PRTL Rtl, HANDLE Handle);
typedef RTL_CLOSE_FILE *PRTL_CLOSE_FILE;

typedef RTL_STATUS (RTL_GET_FILE_SIZE)(PRTL Rtl, HANDLE Handle,
                                       PULONGLONG Size);
typedef RTL_GET_FILE_SIZE *PRTL_GET_FILE_SIZE;

//
// Reserves disk blocks for [0, NewSize) so that writes through a mapping
// can never fault for lack of space (fallocate on Linux).
//

typedef RTL_STATUS (RTL_GROW_FILE)(PRTL Rtl, HANDLE Handle, ULONGLONG NewSize);
typedef RTL_GROW_FILE *PRTL_GROW_FILE;

typedef RTL_STATUS (RTL_TRUNCATE_FILE)(PRTL Rtl, HANDLE Handle,
                                       ULONGLONG NewSize);
typedef RTL_TRUNCATE_FILE *PRTL_TRUNCATE_FILE;

typedef RTL_STATUS (RTL_WRITE_FILE)(PRTL Rtl, HANDLE Handle, ULONGLONG Offset,
                                    PCVOID Buffer, SIZE_T Length);
typedef RTL_WRITE_FILE *PRTL_WRITE_FILE;

typedef RTL_STATUS (RTL_READ_FILE)(PRTL Rtl, HANDLE Handle, ULONGLONG Offset,
                                   PVOID Buffer, SIZE_T Length,
                                   PSIZE_T BytesRead);
typedef RTL_READ_FILE *PRTL_READ_FILE;

//
// Flushes file data (and then metadata needed to read it) to the device.
//

typedef RTL_STATUS (RTL_FLUSH_FILE)(PRTL Rtl, HANDLE Handle);
typedef RTL_FLUSH_FILE *PRTL_FLUSH_FILE;

//
// Takes (Exclusive) or releases an open-file-description lock on the whole
// file without waiting.  Returns RTL_STATUS_LOCKED if another open file
// description holds it.  The kernel drops the lock when the holder dies.
//

typedef RTL_STATUS (RTL_LOCK_FILE)(PRTL Rtl, HANDLE Handle, BOOL Exclusive);
typedef RTL_LOCK_FILE *PRTL_LOCK_FILE;

typedef RTL_STATUS (RTL_UNLOCK_FILE)(PRTL Rtl, HANDLE Handle);
typedef RTL_UNLOCK_FILE *PRTL_UNLOCK_FILE;

typedef RTL_STATUS (RTL_CREATE_DIRECTORY)(PRTL Rtl, PCSZ Path);
typedef RTL_CREATE_DIRECTORY *PRTL_CREATE_DIRECTORY;

typedef RTL_STATUS (RTL_RENAME_FILE)(PRTL Rtl, PCSZ From, PCSZ To);
typedef RTL_RENAME_FILE *PRTL_RENAME_FILE;

typedef RTL_STATUS (RTL_DELETE_FILE)(PRTL Rtl, PCSZ Path);
typedef RTL_DELETE_FILE *PRTL_DELETE_FILE;

//
// Makes a directory's entries durable: the files created, renamed or
// removed in it survive a power cut once this returns (Linux: fsync of the
// directory; Windows: nothing to do, NTFS journals its metadata).
//

typedef RTL_STATUS (RTL_FLUSH_DIRECTORY)(PRTL Rtl, PCSZ Path);
typedef RTL_FLUSH_DIRECTORY *PRTL_FLUSH_DIRECTORY;

//
// Calls Callback once per directory entry name (excluding "." and "..").
// Enumeration stops early if the callback returns FALSE.
//

typedef BOOL (RTL_DIRECTORY_CALLBACK)(PVOID Context, PCSZ Name);
typedef RTL_DIRECTORY_CALLBACK *PRTL_DIRECTORY_CALLBACK;

typedef RTL_STATUS (RTL_ENUMERATE_DIRECTORY)(PRTL Rtl, PCSZ Path,
                                             PRTL_DIRECTORY_CALLBACK Callback,
                                             PVOID Context);
typedef RTL_ENUMERATE_DIRECTORY *PRTL_ENUMERATE_DIRECTORY;

//
// Memory mapping.  MapFile maps [Offset, Offset + Size) of a file shared;
// if FixedAddress is non-NULL the mapping replaces what is at that address
// (which must be inside a region from ReserveAddressSpace).
//

typedef RTL_STATUS (RTL_MAP_FILE)(PRTL Rtl, HANDLE Handle, ULONGLONG Offset,
                                  SIZE_T Size, BOOL Writable,
                                  PVOID FixedAddress, PPVOID Address);
typedef RTL_MAP_FILE *PRTL_MAP_FILE;

typedef RTL_STATUS (RTL_UNMAP)(PRTL Rtl, PVOID Address, SIZE_T Size);
typedef RTL_UNMAP *PRTL_UNMAP;

//
// Reserves inaccessible address space, to be filled by MapFile with
// FixedAddress.  Released with Unmap.
//

typedef RTL_STATUS (RTL_RESERVE_ADDRESS_SPACE)(PRTL Rtl, SIZE_T Size,
                                               PPVOID Address);
typedef RTL_RESERVE_ADDRESS_SPACE *PRTL_RESERVE_ADDRESS_SPACE;

//
// Anonymous, zero-filled, read-write pages (the core's only heap).
//

typedef RTL_STATUS (RTL_ALLOCATE_PAGES)(PRTL Rtl, SIZE_T Size, PPVOID Address);
typedef RTL_ALLOCATE_PAGES *PRTL_ALLOCATE_PAGES;

//
// Makes the writes through a mapping part of its file, so that FlushFile
// then makes them durable (FlushViewOfFile on Windows; nothing on Linux,
// where a shared mapping writes the page cache directly).  Durability
// always takes FlushFile after it.
//

typedef RTL_STATUS (RTL_FLUSH_MAPPING)(PRTL Rtl, PVOID Address, SIZE_T Size);
typedef RTL_FLUSH_MAPPING *PRTL_FLUSH_MAPPING;

//
// Faults in [Address, Address + Size) writable without touching the data,
// so that later stores by the writer take no page fault.  Both are hints:
// failure is harmless.
//
// PrefaultMemoryAsync may return before the work is done.  The back end's
// default does nothing (faulting ahead on the writer's own thread saves
// nothing); a hosted edge points it at a worker thread that calls
// PrefaultMemory.  The range may be unmapped (the store moved its mapping)
// before the worker gets to it, so an implementation must only ever use
// PrefaultMemory, which tolerates that, and never touch the memory itself.
//

typedef VOID (RTL_PREFAULT_MEMORY)(PRTL Rtl, PVOID Address, SIZE_T Size);
typedef RTL_PREFAULT_MEMORY *PRTL_PREFAULT_MEMORY;

//
// DiscardMemory drops the process's page-table references to a range of a
// file mapping that will not be needed soon, so that it stops counting
// against the process's resident set.  The contents are unchanged: a read
// mapping faults the file back in on the next access, and the dirty pages
// of a shared mapping stay in the page cache until written back.  Only a
// hint; Address is rounded up and Address + Size down to pages.
//

typedef VOID (RTL_DISCARD_MEMORY)(PRTL Rtl, PCVOID Address, SIZE_T Size);
typedef RTL_DISCARD_MEMORY *PRTL_DISCARD_MEMORY;

//
// PreferLargePages asks that a writable file mapping be backed by large
// page-cache pages (Linux: MADV_HUGEPAGE, which ext4 and others honour
// with 2 MB folios where the range is aligned and inside the file).  Only
// a hint, and not always a good one: faulting in a store's pages costs a
// third as much, but writing pages back while a writer still fills their
// large page makes it wait (see TRACE_STORE.LargePages).
//

typedef VOID (RTL_PREFER_LARGE_PAGES)(PRTL Rtl, PVOID Address, SIZE_T Size);
typedef RTL_PREFER_LARGE_PAGES *PRTL_PREFER_LARGE_PAGES;

//
// WriteBack starts writing the dirty pages of [Offset, Offset + Length) of
// a file to disk without waiting for them, so that the flush at close
// finds less to do.  Only a hint: durability still comes from FlushMapping
// and FlushFile.  WriteBackAsync may return before the work is started;
// the back end's default does nothing, and a hosted edge points it at a
// worker thread that calls WriteBack.  The handle may be closed (and its
// number reused) before the worker gets to it, which is harmless: writing
// back dirty pages early never changes what a file holds.
//

typedef VOID (RTL_WRITE_BACK)(PRTL Rtl, HANDLE Handle, ULONGLONG Offset,
                              ULONGLONG Length);
typedef RTL_WRITE_BACK *PRTL_WRITE_BACK;

//
// Clock, process and thread.
//

typedef LONGLONG (RTL_QUERY_TIME)(PRTL Rtl, RTL_CLOCK Clock);
typedef RTL_QUERY_TIME *PRTL_QUERY_TIME;

typedef ULONG (RTL_GET_ID)(PRTL Rtl);
typedef RTL_GET_ID *PRTL_GET_ID;

//
// Writes the running kernel's boot id, NUL-terminated, into Buffer: a text
// that differs after every boot (Linux: /proc/sys/kernel/random/boot_id).
// RTL_STATUS_NOT_FOUND where the platform has none; then nothing can tell
// that the machine went down since a file was written.
//

typedef RTL_STATUS (RTL_GET_BOOT_ID)(PRTL Rtl, PCHAR Buffer, ULONG Size);
typedef RTL_GET_BOOT_ID *PRTL_GET_BOOT_ID;

//
// Memory routines.  CompareMemory returns <0, 0 or >0 like memcmp.
//

typedef VOID (RTL_COPY_MEMORY)(PVOID Destination, PCVOID Source, SIZE_T Size);
typedef RTL_COPY_MEMORY *PRTL_COPY_MEMORY;

typedef VOID (RTL_FILL_MEMORY)(PVOID Destination, SIZE_T Size, BYTE Fill);
typedef RTL_FILL_MEMORY *PRTL_FILL_MEMORY;

typedef LONG (RTL_COMPARE_MEMORY)(PCVOID Left, PCVOID Right, SIZE_T Size);
typedef RTL_COMPARE_MEMORY *PRTL_COMPARE_MEMORY;

//
// XXH3-64 of a buffer (seed 0).
//

typedef ULONGLONG (RTL_HASH64)(PCVOID Buffer, SIZE_T Size);
typedef RTL_HASH64 *PRTL_HASH64;

//
// The RTL structure.  Every member is non-NULL after InitializeRtl().
//

#define RTL_SIZE_OF_STRUCT ((ULONG)sizeof(RTL))

typedef struct _RTL {
    ULONG SizeOfStruct;
    ULONG PageSize;

    PRTL_OPEN_FILE OpenFile;
    PRTL_CLOSE_FILE CloseFile;
    PRTL_GET_FILE_SIZE GetFileSize;
    PRTL_GROW_FILE GrowFile;
    PRTL_TRUNCATE_FILE TruncateFile;
    PRTL_READ_FILE ReadFile;
    PRTL_WRITE_FILE WriteFile;
    PRTL_FLUSH_FILE FlushFile;
    PRTL_LOCK_FILE LockFile;
    PRTL_UNLOCK_FILE UnlockFile;
    PRTL_CREATE_DIRECTORY CreateDirectory;
    PRTL_RENAME_FILE RenameFile;
    PRTL_DELETE_FILE DeleteFile;
    PRTL_ENUMERATE_DIRECTORY EnumerateDirectory;
    PRTL_FLUSH_DIRECTORY FlushDirectory;

    PRTL_MAP_FILE MapFile;
    PRTL_UNMAP Unmap;
    PRTL_RESERVE_ADDRESS_SPACE ReserveAddressSpace;
    PRTL_ALLOCATE_PAGES AllocatePages;
    PRTL_FLUSH_MAPPING FlushMapping;
    PRTL_PREFAULT_MEMORY PrefaultMemory;
    PRTL_PREFAULT_MEMORY PrefaultMemoryAsync;
    PRTL_DISCARD_MEMORY DiscardMemory;
    PRTL_PREFER_LARGE_PAGES PreferLargePages;
    PRTL_WRITE_BACK WriteBack;
    PRTL_WRITE_BACK WriteBackAsync;

    PRTL_QUERY_TIME QueryTime;
    PRTL_GET_ID GetProcessId;
    PRTL_GET_ID GetThreadId;
    PRTL_GET_BOOT_ID GetBootId;

    PRTL_COPY_MEMORY CopyMemory;
    PRTL_FILL_MEMORY FillMemory;
    PRTL_COMPARE_MEMORY CompareMemory;
    PRTL_HASH64 Hash64;

} RTL;

//
// Platform entry point: fills in Rtl.  Implemented by the back end.
//

typedef RTL_STATUS (INITIALIZE_RTL)(PRTL Rtl);
typedef INITIALIZE_RTL *PINITIALIZE_RTL;
INITIALIZE_RTL InitializeRtl;

//
// Little-endian integers read where they lie in a file's bytes (nothing
// aligned), for the readers of binary formats.
//

static inline
ULONGLONG
RtlReadUInt64(
    const BYTE *Data
    )
{
    ULONGLONG Value;

    __builtin_memcpy(&Value, Data, 8);
    return Value;
}

static inline
ULONG
RtlReadUInt32(
    const BYTE *Data
    )
{
    ULONG Value;

    __builtin_memcpy(&Value, Data, 4);
    return Value;
}

static inline
USHORT
RtlReadUInt16(
    const BYTE *Data
    )
{
    USHORT Value;

    __builtin_memcpy(&Value, Data, 2);
    return Value;
}

//
// Portable helpers implemented once in Rtl/RtlString.c (no OS access).
//

SIZE_T RtlStringLength(PCSZ String);

//
// Byte-wise comparison of NUL-terminated strings: <0, 0 or >0 like strcmp.
//

LONG RtlCompareString(PCSZ Left, PCSZ Right);

#define RtlStringEqual(Left, Right) (RtlCompareString((Left), (Right)) == 0)

//
// Appends to a NUL-terminated buffer of BufferSize bytes, truncating.
// Supports %s, %.*s, %c, %d, %u, %x, %lld, %llu, %llx, %%, and a 0/width
// prefix for the numeric forms.  Returns the length written.
//

SIZE_T RtlFormat(PCHAR Buffer, SIZE_T BufferSize, PCSZ Format, ...);
SIZE_T RtlFormatV(PCHAR Buffer, SIZE_T BufferSize, PCSZ Format, va_list Args);

//
// Fills Error (Status, Line, Offset, Message) and returns Status, so that a
// failure path reads: return RtlSetError(Error, Status, Line, Offset, ...).
//

RTL_STATUS RtlSetError(
    PRTL_ERROR Error,
    RTL_STATUS Status,
    ULONG Line,
    ULONGLONG Offset,
    PCSZ Format,
    ...
    );

PCSZ RtlStatusText(RTL_STATUS Status);

//
// Memory routines used by the RTL table (rep movsb / stosb on x86-64).
//

RTL_COPY_MEMORY RtlCopyMemory;
RTL_FILL_MEMORY RtlFillMemory;
RTL_COMPARE_MEMORY RtlCompareMemory;
RTL_HASH64 RtlHash64;

//
// Grows *Array, pages from Rtl->AllocatePages of *Bytes bytes (NULL and
// 0 at first), to hold at least Needed bytes: the size doubles from
// First bytes, the contents are copied and the old pages released.
// Nothing changes when it already does, or on failure (no memory).
//

RTL_STATUS RtlGrowPages(PRTL Rtl, PVOID *Array, PSIZE_T Bytes, SIZE_T Needed,
                        SIZE_T First);

//
// What every back end's InitializeRtl does first: Rtl zeroed, its size and
// page size, and the portable members (memory routines and hash).
//

VOID RtlInitializeCommon(PRTL Rtl);

#ifdef __cplusplus
}
#endif

#endif // _TRACER_RTL_H_
