/*++

Module Name:

    RtlLinux.c

Abstract:

    This module is the Linux x86-64 back end of the Rtl: it fills in the RTL
    structure with routines that call the kernel directly through the
    `syscall` instruction.  It links no C runtime and includes no libc
    header; the system call numbers and structure layouts it needs are
    spelled out below, with the ABI offsets asserted.

    This is the one place in the tree allowed to know about the platform
    (a Windows back end would be the other, in Rtl/Windows).

Environment:

    Back end: the platform's own zone, freestanding, no C runtime: raw
    system calls, no libc or kernel header (the numbers and layouts it
    needs are spelled out here).  InitializeRtl is called once by each
    hosted edge (the CLI, the extension) and by the tests; fills the RTL
    with its Linux* routines and RtlMemory.c's; calls RtlMemory.c.

--*/

#include "Rtl/Rtl.h"

#if !defined(__x86_64__) || !defined(__linux__)
#error "RtlLinux.c implements the x86-64 Linux system call ABI"
#endif

//
// System call numbers (arch/x86/entry/syscalls/syscall_64.tbl).
//

#define SYS_READ            0
#define SYS_CLOSE           3
#define SYS_FSTAT           5
#define SYS_MMAP            9
#define SYS_MUNMAP          11
#define SYS_PREAD64         17
#define SYS_PWRITE64        18
#define SYS_MADVISE         28
#define SYS_GETPID          39
#define SYS_FCNTL           72
#define SYS_FSYNC           74
#define SYS_FDATASYNC       75
#define SYS_FTRUNCATE       77
#define SYS_GETTID          186
#define SYS_GETDENTS64      217
#define SYS_CLOCK_GETTIME   228
#define SYS_OPENAT          257
#define SYS_MKDIRAT         258
#define SYS_UNLINKAT        263
#define SYS_RENAMEAT        264
#define SYS_SYNC_FILE_RANGE 277
#define SYS_FALLOCATE       285

#define AT_FDCWD            (-100)

#define O_RDONLY            00
#define O_RDWR              02
#define O_CREAT             0100
#define O_EXCL              0200
#define O_NONBLOCK          04000
#define O_DIRECTORY         0200000
#define O_CLOEXEC           02000000

#define PROT_NONE           0
#define PROT_READ           1
#define PROT_WRITE          2
#define MAP_SHARED          0x01
#define MAP_PRIVATE         0x02
#define MAP_FIXED           0x10
#define MAP_ANONYMOUS       0x20
#define MAP_NORESERVE       0x4000

#define MADV_DONTNEED       4
#define MADV_HUGEPAGE       14
#define MADV_POPULATE_WRITE 23
#define SYNC_FILE_RANGE_WRITE 2

#define F_OFD_SETLK         37
#define F_RDLCK             0
#define F_WRLCK             1
#define F_UNLCK             2

#define EINTR               4
#define EAGAIN              11
#define EACCES              13
#define EOPNOTSUPP          95

#define CLOCK_REALTIME      0
#define CLOCK_MONOTONIC     1

//
// Kernel structures, x86-64 layout.
//

typedef struct _LINUX_TIMESPEC {
    LONGLONG Seconds;
    LONGLONG Nanoseconds;
} LINUX_TIMESPEC;

C_ASSERT(sizeof(LINUX_TIMESPEC) == 16);

typedef struct _LINUX_FLOCK {
    SHORT Type;
    SHORT Whence;
    ULONG Padding;
    LONGLONG Start;
    LONGLONG Length;
    LONG Pid;
    ULONG Padding2;
} LINUX_FLOCK;

C_ASSERT(sizeof(LINUX_FLOCK) == 32);
C_ASSERT(FIELD_OFFSET(LINUX_FLOCK, Start) == 8);
C_ASSERT(FIELD_OFFSET(LINUX_FLOCK, Pid) == 24);

//
// struct stat is 144 bytes on x86-64; st_mode is at 24, st_size at 48.
//

#define LINUX_STAT_SIZE         144
#define LINUX_STAT_MODE_OFFSET  24
#define LINUX_STAT_SIZE_OFFSET  48

typedef struct _LINUX_DIRENT64 {
    ULONGLONG Inode;
    LONGLONG Offset;
    USHORT RecordLength;
    BYTE Type;
    CHAR Name[1];
} LINUX_DIRENT64;

C_ASSERT(FIELD_OFFSET(LINUX_DIRENT64, RecordLength) == 16);
C_ASSERT(FIELD_OFFSET(LINUX_DIRENT64, Name) == 19);

//
// The system call primitive.
//

static inline
LONG_PTR
Syscall6(
    LONG_PTR Number,
    LONG_PTR A1,
    LONG_PTR A2,
    LONG_PTR A3,
    LONG_PTR A4,
    LONG_PTR A5,
    LONG_PTR A6
    )
{
    LONG_PTR Result;
    register LONG_PTR R10 __asm__("r10") = A4;
    register LONG_PTR R8 __asm__("r8") = A5;
    register LONG_PTR R9 __asm__("r9") = A6;

    __asm__ volatile("syscall"
                     : "=a"(Result)
                     : "a"(Number), "D"(A1), "S"(A2), "d"(A3),
                       "r"(R10), "r"(R8), "r"(R9)
                     : "rcx", "r11", "memory");

    return Result;
}

#define Syscall0(N) Syscall6((N), 0, 0, 0, 0, 0, 0)
#define Syscall1(N, A) Syscall6((N), (LONG_PTR)(A), 0, 0, 0, 0, 0)
#define Syscall2(N, A, B) Syscall6((N), (LONG_PTR)(A), (LONG_PTR)(B), \
                                   0, 0, 0, 0)
#define Syscall3(N, A, B, C) Syscall6((N), (LONG_PTR)(A), (LONG_PTR)(B), \
                                      (LONG_PTR)(C), 0, 0, 0)
#define Syscall4(N, A, B, C, D) Syscall6((N), (LONG_PTR)(A), \
                                         (LONG_PTR)(B), (LONG_PTR)(C), \
                                         (LONG_PTR)(D), 0, 0)

//
// A raw return in [-4095, -1] is a negated errno.
//

#define IS_ERROR(Result) ((ULONG_PTR)(Result) >= (ULONG_PTR)-4095)

static
RTL_STATUS
LinuxOpenFile(
    PRTL Rtl,
    PCSZ Path,
    RTL_OPEN_MODE Mode,
    PHANDLE Handle
    )
{
    LONG_PTR Result;
    LONG Flags = O_CLOEXEC;

    switch (Mode) {
        case RtlOpenReadOnly:

            //
            // Opening a FIFO for reading waits for a writer; without
            // O_NONBLOCK a FIFO named like a store would hang its reader.
            // Regular files ignore the flag; GetFileSize refuses the rest.
            //

            Flags |= O_RDONLY | O_NONBLOCK;
            break;
        case RtlOpenReadWrite:
            Flags |= O_RDWR;
            break;
        case RtlOpenCreateNew:
            Flags |= O_RDWR | O_CREAT | O_EXCL;
            break;
        case RtlOpenAlways:
            Flags |= O_RDWR | O_CREAT;
            break;
        default:
            return RTL_STATUS_INVALID_PARAMETER;
    }

    do {
        Result = Syscall4(SYS_OPENAT, AT_FDCWD, Path, Flags, 0644);
    } while (Result == -EINTR);

    if (IS_ERROR(Result)) {
        *Handle = INVALID_HANDLE_VALUE;
        return (RTL_STATUS)Result;
    }

    *Handle = (HANDLE)Result;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxCloseFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    LONG_PTR Result = Syscall1(SYS_CLOSE, Handle);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxGetFileSize(
    PRTL Rtl,
    HANDLE Handle,
    PULONGLONG Size
    )
{
    ULONGLONG Stat[LINUX_STAT_SIZE / sizeof(ULONGLONG)];
    LONG_PTR Result = Syscall2(SYS_FSTAT, Handle, Stat);
    ULONG Mode;

    if (IS_ERROR(Result)) {
        return (RTL_STATUS)Result;
    }

    //
    // A directory has no size worth mapping; say so.
    //

    __builtin_memcpy(&Mode, (PBYTE)Stat + LINUX_STAT_MODE_OFFSET, 4);
    if ((Mode & 0170000) == 0040000) {
        return -21;
    }

    //
    // Nor has a FIFO, socket or device: their size is 0 or meaningless,
    // and they cannot be mapped.
    //

    if ((Mode & 0170000) != 0100000) {
        return RTL_STATUS_NOT_REGULAR_FILE;
    }

    *Size = Stat[LINUX_STAT_SIZE_OFFSET / sizeof(ULONGLONG)];
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxGrowFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG NewSize
    )
{
    LONG_PTR Result;

    do {
        Result = Syscall4(SYS_FALLOCATE, Handle, 0, 0, NewSize);
    } while (Result == -EINTR);

    //
    // A file system without fallocate (some network and FUSE file systems)
    // gets a plain size change.  Writes into it can then fail at page-out
    // time rather than here; there is no better option on such a system.
    //

    if (Result == -EOPNOTSUPP) {
        Result = Syscall2(SYS_FTRUNCATE, Handle, NewSize);
    }

    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxTruncateFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG NewSize
    )
{
    LONG_PTR Result;

    do {
        Result = Syscall2(SYS_FTRUNCATE, Handle, NewSize);
    } while (Result == -EINTR);

    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxReadFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    PVOID Buffer,
    SIZE_T Length,
    PSIZE_T BytesRead
    )
{
    SIZE_T Done = 0;

    while (Done < Length) {
        LONG_PTR Result = Syscall4(SYS_PREAD64, Handle, (PBYTE)Buffer + Done,
                                   Length - Done, Offset + Done);
        if (Result == -EINTR) {
            continue;
        }
        if (IS_ERROR(Result)) {
            *BytesRead = Done;
            return (RTL_STATUS)Result;
        }
        if (Result == 0) {
            break;
        }
        Done += (SIZE_T)Result;
    }

    *BytesRead = Done;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxWriteFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    PCVOID Buffer,
    SIZE_T Length
    )
{
    SIZE_T Done = 0;

    while (Done < Length) {
        LONG_PTR Result = Syscall4(SYS_PWRITE64, Handle,
                                   (const BYTE *)Buffer + Done,
                                   Length - Done, Offset + Done);
        if (Result == -EINTR) {
            continue;
        }
        if (IS_ERROR(Result)) {
            return (RTL_STATUS)Result;
        }
        if (Result == 0) {
            return -5;
        }
        Done += (SIZE_T)Result;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxFlushFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    LONG_PTR Result = Syscall1(SYS_FDATASYNC, Handle);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxSetLock(
    HANDLE Handle,
    SHORT Type
    )
{
    LINUX_FLOCK Lock;
    LONG_PTR Result;

    __builtin_memset(&Lock, 0, sizeof(Lock));
    Lock.Type = Type;
    Lock.Whence = 0;
    Lock.Start = 0;
    Lock.Length = 0;

    Result = Syscall3(SYS_FCNTL, Handle, F_OFD_SETLK, &Lock);

    if (Result == -EAGAIN || Result == -EACCES) {
        return RTL_STATUS_LOCKED;
    }

    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxLockFile(
    PRTL Rtl,
    HANDLE Handle,
    BOOL Exclusive
    )
{
    return LinuxSetLock(Handle, Exclusive ? F_WRLCK : F_RDLCK);
}

static
RTL_STATUS
LinuxUnlockFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    return LinuxSetLock(Handle, F_UNLCK);
}

static
RTL_STATUS
LinuxCreateDirectory(
    PRTL Rtl,
    PCSZ Path
    )
{
    LONG_PTR Result = Syscall3(SYS_MKDIRAT, AT_FDCWD, Path, 0755);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxRenameFile(
    PRTL Rtl,
    PCSZ From,
    PCSZ To
    )
{
    LONG_PTR Result = Syscall4(SYS_RENAMEAT, AT_FDCWD, From, AT_FDCWD, To);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxDeleteFile(
    PRTL Rtl,
    PCSZ Path
    )
{
    LONG_PTR Result = Syscall3(SYS_UNLINKAT, AT_FDCWD, Path, 0);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxEnumerateDirectory(
    PRTL Rtl,
    PCSZ Path,
    PRTL_DIRECTORY_CALLBACK Callback,
    PVOID Context
    )
{
    LONG_PTR Fd;
    LONG_PTR Result;
    RTL_STATUS Status = RTL_STATUS_OK;
    ULONGLONG Buffer[512];

    Fd = Syscall4(SYS_OPENAT, AT_FDCWD, Path,
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (IS_ERROR(Fd)) {
        return (RTL_STATUS)Fd;
    }

    for (;;) {
        LONG_PTR Position = 0;

        Result = Syscall3(SYS_GETDENTS64, Fd, Buffer, sizeof(Buffer));
        if (IS_ERROR(Result)) {
            Status = (RTL_STATUS)Result;
            goto End;
        }
        if (Result == 0) {
            goto End;
        }

        while (Position < Result) {
            const LINUX_DIRENT64 *Entry;
            Entry = (const LINUX_DIRENT64 *)((PBYTE)Buffer + Position);
            Position += Entry->RecordLength;

            if (Entry->Name[0] == '.' &&
                (Entry->Name[1] == '\0' ||
                 (Entry->Name[1] == '.' && Entry->Name[2] == '\0'))) {
                continue;
            }

            if (!Callback(Context, Entry->Name)) {
                goto End;
            }
        }
    }

End:
    Syscall1(SYS_CLOSE, Fd);
    return Status;
}

static
RTL_STATUS
LinuxFlushDirectory(
    PRTL Rtl,
    PCSZ Path
    )
{
    LONG_PTR Fd;
    LONG_PTR Result;

    Fd = Syscall4(SYS_OPENAT, AT_FDCWD, Path,
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (IS_ERROR(Fd)) {
        return (RTL_STATUS)Fd;
    }

    Result = Syscall1(SYS_FSYNC, Fd);
    Syscall1(SYS_CLOSE, Fd);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxMapFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    SIZE_T Size,
    BOOL Writable,
    PVOID FixedAddress,
    PPVOID Address
    )
{
    LONG_PTR Result;
    LONG Protection = PROT_READ | (Writable ? PROT_WRITE : 0);
    LONG Flags = MAP_SHARED | (FixedAddress != NULL ? MAP_FIXED : 0);

    Result = Syscall6(SYS_MMAP, (LONG_PTR)FixedAddress, (LONG_PTR)Size,
                      Protection, Flags, Handle, (LONG_PTR)Offset);
    if (IS_ERROR(Result)) {
        *Address = NULL;
        return (RTL_STATUS)Result;
    }

    *Address = (PVOID)Result;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxUnmap(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
{
    LONG_PTR Result = Syscall2(SYS_MUNMAP, Address, Size);
    return IS_ERROR(Result) ? (RTL_STATUS)Result : RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxReserveAddressSpace(
    PRTL Rtl,
    SIZE_T Size,
    PPVOID Address
    )
{
    LONG_PTR Result = Syscall6(SYS_MMAP, 0, (LONG_PTR)Size, PROT_NONE,
                               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                               -1, 0);
    if (IS_ERROR(Result)) {
        *Address = NULL;
        return (RTL_STATUS)Result;
    }

    *Address = (PVOID)Result;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxAllocatePages(
    PRTL Rtl,
    SIZE_T Size,
    PPVOID Address
    )
{
    LONG_PTR Result = Syscall6(SYS_MMAP, 0, (LONG_PTR)Size,
                               PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (IS_ERROR(Result)) {
        *Address = NULL;
        return (RTL_STATUS)Result;
    }

    *Address = (PVOID)Result;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LinuxFlushMapping(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    Nothing to do on Linux: a shared file mapping writes the page cache
    itself, so its dirty pages are already the file's, and FlushFile
    (fdatasync) writes them to disk with the rest.  msync(MS_SYNC) here
    would be a second fdatasync of the range: the data written and the
    device's cache flushed twice per store at every close (measured: about
    0.1 ms per store, and the whole write-back of a large store waited
    for in msync before fdatasync found nothing left).

--*/
{
    return RTL_STATUS_OK;
}

static
VOID
LinuxPrefaultMemory(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    Faults a writable shared mapping in without changing its contents
    (MADV_POPULATE_WRITE, Linux 5.14+).  On older kernels, and for a range
    that is no longer mapped, it does nothing: it is only a hint.

--*/
{
    Syscall3(SYS_MADVISE, Address, Size, MADV_POPULATE_WRITE);
}

static
VOID
LinuxDiscardMemory(
    PRTL Rtl,
    PCVOID Address,
    SIZE_T Size
    )
{
    ULONG_PTR Page = Rtl->PageSize;
    ULONG_PTR Start = ((ULONG_PTR)Address + Page - 1) & ~(Page - 1);
    ULONG_PTR End = ((ULONG_PTR)Address + Size) & ~(Page - 1);

    if (End > Start) {
        Syscall3(SYS_MADVISE, Start, End - Start, MADV_DONTNEED);
    }
}

static
VOID
LinuxPreferLargePages(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    MADV_HUGEPAGE on a file mapping: the page cache then allocates 2 MB
    folios where the file and the mapping allow (a file system with large
    folios, a 2 MB-aligned range inside the file, THP "madvise" or
    "always").  Otherwise, and on kernels without it, nothing happens.

--*/
{
    Syscall3(SYS_MADVISE, Address, Size, MADV_HUGEPAGE);
}

static
VOID
LinuxWriteBack(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    ULONGLONG Length
    )
{
    Syscall4(SYS_SYNC_FILE_RANGE, Handle, Offset, Length,
             SYNC_FILE_RANGE_WRITE);
}

static
VOID
LinuxWriteBackNothing(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    ULONGLONG Length
    )
/*++

Routine Description:

    The default WriteBackAsync: without a worker thread the writer would
    pay for the write-back itself, and the flush at close does it anyway.

--*/
{
    return;
}

static
VOID
LinuxPrefaultNothing(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    The default PrefaultMemoryAsync.  Without a worker thread, faulting a
    chunk in ahead of time on the writer's own thread costs the writer what
    it saves it, so the core leaves the pages to be faulted on first write.

--*/
{
    return;
}

static
LONGLONG
LinuxQueryTime(
    PRTL Rtl,
    RTL_CLOCK Clock
    )
{
    LINUX_TIMESPEC Time;
    LONG Id = (Clock == RtlClockRealtime) ? CLOCK_REALTIME : CLOCK_MONOTONIC;

    if (IS_ERROR(Syscall2(SYS_CLOCK_GETTIME, Id, &Time))) {
        return 0;
    }

    return Time.Seconds * 1000000000LL + Time.Nanoseconds;
}

static
ULONG
LinuxGetProcessId(
    PRTL Rtl
    )
{
    return (ULONG)Syscall0(SYS_GETPID);
}

static
ULONG
LinuxGetThreadId(
    PRTL Rtl
    )
{
    return (ULONG)Syscall0(SYS_GETTID);
}

static
RTL_STATUS
LinuxGetBootId(
    PRTL Rtl,
    PCHAR Buffer,
    ULONG Size
    )
{
    HANDLE Handle;
    RTL_STATUS Status;
    SIZE_T Read = 0;

    if (Size < 2) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    Status = LinuxOpenFile(Rtl, "/proc/sys/kernel/random/boot_id",
                           RtlOpenReadOnly, &Handle);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = LinuxReadFile(Rtl, Handle, 0, Buffer, Size - 1, &Read);
    LinuxCloseFile(Rtl, Handle);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    while (Read > 0 && (Buffer[Read - 1] == '\n' || Buffer[Read - 1] == ' ')) {
        Read--;
    }
    Buffer[Read] = '\0';
    return Read != 0 ? RTL_STATUS_OK : RTL_STATUS_NOT_FOUND;
}

RTL_STATUS
InitializeRtl(
    PRTL Rtl
    )
/*++

Routine Description:

    Fills in an RTL structure with the Linux implementations.

Arguments:

    Rtl - Supplies the structure to initialize.

Return Value:

    RTL_STATUS_OK.

--*/
{
    RtlInitializeCommon(Rtl);

    Rtl->OpenFile = LinuxOpenFile;
    Rtl->CloseFile = LinuxCloseFile;
    Rtl->GetFileSize = LinuxGetFileSize;
    Rtl->GrowFile = LinuxGrowFile;
    Rtl->TruncateFile = LinuxTruncateFile;
    Rtl->ReadFile = LinuxReadFile;
    Rtl->WriteFile = LinuxWriteFile;
    Rtl->FlushFile = LinuxFlushFile;
    Rtl->LockFile = LinuxLockFile;
    Rtl->UnlockFile = LinuxUnlockFile;
    Rtl->CreateDirectory = LinuxCreateDirectory;
    Rtl->RenameFile = LinuxRenameFile;
    Rtl->DeleteFile = LinuxDeleteFile;
    Rtl->EnumerateDirectory = LinuxEnumerateDirectory;
    Rtl->FlushDirectory = LinuxFlushDirectory;

    Rtl->MapFile = LinuxMapFile;
    Rtl->Unmap = LinuxUnmap;
    Rtl->ReserveAddressSpace = LinuxReserveAddressSpace;
    Rtl->AllocatePages = LinuxAllocatePages;
    Rtl->FlushMapping = LinuxFlushMapping;
    Rtl->PrefaultMemory = LinuxPrefaultMemory;
    Rtl->DiscardMemory = LinuxDiscardMemory;
    Rtl->PreferLargePages = LinuxPreferLargePages;
    Rtl->PrefaultMemoryAsync = LinuxPrefaultNothing;
    Rtl->WriteBack = LinuxWriteBack;
    Rtl->WriteBackAsync = LinuxWriteBackNothing;

    Rtl->QueryTime = LinuxQueryTime;
    Rtl->GetProcessId = LinuxGetProcessId;
    Rtl->GetThreadId = LinuxGetThreadId;
    Rtl->GetBootId = LinuxGetBootId;

    return RTL_STATUS_OK;
}
