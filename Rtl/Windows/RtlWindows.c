/*++

Module Name:

    RtlWindows.c

Abstract:

    This module is the Windows x64 back end of the Rtl: it fills in the RTL
    structure with routines over kernel32 (files, sections and views,
    LockFileEx, QueryPerformanceCounter).  It links no C runtime; the
    services it calls are declared in RtlWindowsApi.h.

    Growing stores.  The core reserves address space for a writer's store
    (ReserveAddressSpace), maps the file at its start (MapFile with a fixed
    address) and, as the file grows, maps each new chunk right after the
    last (MapFile at Mapping + OldSize, file offset OldSize).  A Windows
    view must start on a 64 KiB allocation boundary at a 64 KiB-aligned
    file offset, and a file's size is only page-rounded, so chunks cannot
    be views of their own.  Instead the back end keeps one view per
    reservation, always of the file from offset 0, and "maps the next
    chunk" by replacing that view with a larger one of a larger section at
    the same base address: unmap the view, release the reserved tail,
    map the new view at the reservation's base, reserve the new tail.  All
    views of a file share its pages, so nothing written through the old
    view is lost, and the core's pointers (Mapping + offset) stay valid.
    The address range is briefly unreserved while the view is swapped; an
    allocation by another thread landing there makes MapFile fail (the
    store reports the error), never corrupts anything.  The swap holds a
    lock, and nothing but the writer's thread touches a writer's mapping
    (PrefaultMemory is a no-op here).

    Windows refuses to shrink a file below a mapped view.  TruncateFile on
    a mapped file (the writer trims its store before unmapping it) records
    the size, and the Unmap of the reservation applies it once its view is
    gone (before the flush at close, as on Linux); CloseFile applies what
    is still pending (a file mapped without a reservation).

Environment:

    Back end: the platform's own zone, freestanding, no C runtime: kernel32
    only (no C runtime or SDK header; the declarations are spelled out in
    RtlWindowsApi.h).  InitializeRtl is called once by each hosted edge
    and by the tests; fills the RTL with its Windows* routines and
    RtlMemory.c's; calls RtlMemory.c.

--*/

#include "Rtl/Windows/RtlWindowsApi.h"

#define ALLOCATION_GRANULARITY  0x10000
#define MAX_WIDE_PATH           4096
#define MAX_RESERVATIONS        1024
#define MAX_PENDING_TRUNCATES   256

//
// The lock byte: far past any file's end, so that the writer lock never
// blocks ReadFile of the locked file's data by another handle (Windows
// byte-range locks are mandatory for ReadFile/WriteFile).
//

#define LOCK_OFFSET_HIGH        0x40000000u

typedef struct _WINDOWS_RESERVATION {
    PBYTE Base;             // the reservation's base, NULL if the slot is free
    SIZE_T Size;            // bytes reserved from Base
    SIZE_T ViewSize;        // bytes of the file mapped at Base (0: none)
    PBYTE Tail;             // base of the reserved rest, NULL if none
    HANDLE File;            // the file of the view (0: none yet)
} WINDOWS_RESERVATION, *PWINDOWS_RESERVATION;

typedef struct _WINDOWS_PENDING_TRUNCATE {
    HANDLE Handle;          // INVALID_HANDLE_VALUE (0 after init) if free
    ULONGLONG Size;
} WINDOWS_PENDING_TRUNCATE;

static WINDOWS_RESERVATION Reservations[MAX_RESERVATIONS];
static WINDOWS_PENDING_TRUNCATE PendingTruncates[MAX_PENDING_TRUNCATES];
static PVOID TableLock;
static LONGLONG PerformanceFrequency;

static
RTL_STATUS
WindowsStatus(
    DWORD Error
    )
/*++

Routine Description:

    Translates a Win32 error into the RTL's status codes (negated Linux
    errno values, so that RtlStatusText names them the same way).

--*/
{
    switch (Error) {
        case WIN_ERROR_FILE_NOT_FOUND:
        case WIN_ERROR_PATH_NOT_FOUND:
            return RTL_STATUS_NOT_FOUND;
        case WIN_ERROR_TOO_MANY_OPEN_FILES:
            return -24;
        case WIN_ERROR_ACCESS_DENIED:
        case WIN_ERROR_SHARING_VIOLATION:
            return -13;
        case WIN_ERROR_INVALID_HANDLE:
            return -9;
        case WIN_ERROR_NOT_ENOUGH_MEMORY:
        case WIN_ERROR_OUTOFMEMORY:
        case WIN_ERROR_COMMITMENT_LIMIT:
            return RTL_STATUS_NO_MEMORY;
        case WIN_ERROR_WRITE_PROTECT:
            return -30;
        case WIN_ERROR_LOCK_VIOLATION:
        case WIN_ERROR_IO_PENDING:
            return RTL_STATUS_LOCKED;
        case WIN_ERROR_HANDLE_DISK_FULL:
        case WIN_ERROR_DISK_FULL:
            return RTL_STATUS_NO_SPACE;
        case WIN_ERROR_FILE_EXISTS:
        case WIN_ERROR_ALREADY_EXISTS:
            return RTL_STATUS_EXISTS;
        case WIN_ERROR_INVALID_PARAMETER:
            return RTL_STATUS_INVALID_PARAMETER;
        case WIN_ERROR_FILENAME_EXCED_RANGE:
            return -36;
        case WIN_ERROR_DIRECTORY:
            return RTL_STATUS_NOT_DIRECTORY;
        default:
            return -5;
    }
}

#define LAST_STATUS() WindowsStatus(GetLastError())

static
RTL_STATUS
WidePath(
    PCSZ Path,
    PWCHAR Wide,
    LONG Capacity
    )
/*++

Routine Description:

    Converts a UTF-8 path to the UTF-16 the W services take.  Forward
    slashes are left alone: Win32 accepts them as separators.

--*/
{
    LONG Length;

    Length = MultiByteToWideChar(WIN_CP_UTF8, 0, Path, -1, Wide, Capacity);
    if (Length <= 0) {
        return -36;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsOpenFile(
    PRTL Rtl,
    PCSZ Path,
    RTL_OPEN_MODE Mode,
    PHANDLE Handle
    )
{
    WCHAR Wide[MAX_WIDE_PATH];
    DWORD Access = WIN_GENERIC_READ | WIN_GENERIC_WRITE;
    DWORD Disposition;
    DWORD Flags = WIN_FILE_ATTRIBUTE_NORMAL;
    WIN_HANDLE File;
    RTL_STATUS Status;

    *Handle = INVALID_HANDLE_VALUE;

    switch (Mode) {
        case RtlOpenReadOnly:

            //
            // Backup semantics let a directory open too, so that
            // GetFileSize can say "is a directory" as on Linux.
            //

            Access = WIN_GENERIC_READ;
            Disposition = WIN_OPEN_EXISTING;
            Flags |= WIN_FILE_FLAG_BACKUP_SEMANTICS;
            break;
        case RtlOpenReadWrite:
            Disposition = WIN_OPEN_EXISTING;
            break;
        case RtlOpenCreateNew:
            Disposition = WIN_CREATE_NEW;
            break;
        case RtlOpenAlways:
            Disposition = WIN_OPEN_ALWAYS;
            break;
        default:
            return RTL_STATUS_INVALID_PARAMETER;
    }

    Status = WidePath(Path, Wide, MAX_WIDE_PATH);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // Share everything: readers open stores a writer holds, and the writer
    // renames its new header over the old one while readers have it open.
    //

    File = CreateFileW(Wide, Access, WIN_FILE_SHARE_ALL, NULL, Disposition,
                       Flags, NULL);
    if (File == (WIN_HANDLE)INVALID_HANDLE_VALUE) {
        return LAST_STATUS();
    }

    *Handle = (HANDLE)File;
    return RTL_STATUS_OK;
}

static
VOID
ApplyPendingTruncate(
    HANDLE Handle
    )
/*++

Routine Description:

    Does the trim TruncateFile had to put off, now that this process's
    view of the file is gone.  If a reader elsewhere still maps the file,
    it keeps its size, which readers tolerate (they trust the committed
    count, not the size).  The caller holds TableLock.

--*/
{
    ULONG Index;

    for (Index = 0; Index < MAX_PENDING_TRUNCATES; Index++) {
        if (PendingTruncates[Index].Handle == Handle) {
            SetFileInformationByHandle((WIN_HANDLE)Handle,
                                       WIN_FILE_END_OF_FILE_INFO,
                                       &PendingTruncates[Index].Size,
                                       sizeof(ULONGLONG));
            PendingTruncates[Index].Handle = 0;
            return;
        }
    }
}

static
RTL_STATUS
WindowsCloseFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    AcquireSRWLockExclusive(&TableLock);
    ApplyPendingTruncate(Handle);
    ReleaseSRWLockExclusive(&TableLock);

    if (!CloseHandle((WIN_HANDLE)Handle)) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsGetFileSize(
    PRTL Rtl,
    HANDLE Handle,
    PULONGLONG Size
    )
{
    WIN_FILE_INFORMATION Information;

    if (GetFileType((WIN_HANDLE)Handle) != WIN_FILE_TYPE_DISK) {
        return RTL_STATUS_NOT_REGULAR_FILE;
    }

    if (!GetFileInformationByHandle((WIN_HANDLE)Handle, &Information)) {
        return LAST_STATUS();
    }

    if (Information.FileAttributes & WIN_FILE_ATTRIBUTE_DIRECTORY) {
        return -21;
    }

    *Size = ((ULONGLONG)Information.FileSizeHigh << 32) |
            Information.FileSizeLow;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsSetEndOfFile(
    HANDLE Handle,
    ULONGLONG NewSize
    )
{
    if (!SetFileInformationByHandle((WIN_HANDLE)Handle,
                                    WIN_FILE_END_OF_FILE_INFO, &NewSize,
                                    sizeof(NewSize))) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsGrowFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG NewSize
    )
/*++

Routine Description:

    Extends the file to NewSize (never shrinks it, like fallocate): first
    its allocation (FileAllocationInfo: NTFS reserves the clusters, wine
    calls fallocate), so that a full disk fails here (ERROR_DISK_FULL) and
    not when a page is written back, and writes through the mapping find
    the blocks there; then its end.

--*/
{
    ULONGLONG Size;
    RTL_STATUS Status;

    Status = WindowsGetFileSize(Rtl, Handle, &Size);
    if (!RTL_SUCCESS(Status) || Size >= NewSize) {
        return Status;
    }

    if (!SetFileInformationByHandle((WIN_HANDLE)Handle,
                                    WIN_FILE_ALLOCATION_INFO, &NewSize,
                                    sizeof(NewSize))) {
        Status = LAST_STATUS();
        if (Status == RTL_STATUS_NO_SPACE) {
            return Status;
        }
    }

    return WindowsSetEndOfFile(Handle, NewSize);
}

static
RTL_STATUS
WindowsTruncateFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG NewSize
    )
{
    ULONG Index;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (SetFileInformationByHandle((WIN_HANDLE)Handle,
                                   WIN_FILE_END_OF_FILE_INFO, &NewSize,
                                   sizeof(NewSize))) {
        return RTL_STATUS_OK;
    }

    if (GetLastError() != WIN_ERROR_USER_MAPPED_FILE) {
        return LAST_STATUS();
    }

    //
    // Mapped: CloseFile applies it (see the module header).
    //

    AcquireSRWLockExclusive(&TableLock);
    for (Index = 0; Index < MAX_PENDING_TRUNCATES; Index++) {
        if (PendingTruncates[Index].Handle == Handle ||
            PendingTruncates[Index].Handle == 0) {
            PendingTruncates[Index].Handle = Handle;
            PendingTruncates[Index].Size = NewSize;
            break;
        }
    }
    if (Index == MAX_PENDING_TRUNCATES) {
        Status = RTL_STATUS_NO_MEMORY;
    }
    ReleaseSRWLockExclusive(&TableLock);

    return Status;
}

static
RTL_STATUS
WindowsReadFile(
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
        WIN_OVERLAPPED Overlapped;
        ULONG Chunk = (Length - Done > 0x40000000) ? 0x40000000 :
                      (ULONG)(Length - Done);
        ULONG Read = 0;

        RtlFillMemory(&Overlapped, sizeof(Overlapped), 0);
        Overlapped.Offset = (DWORD)(Offset + Done);
        Overlapped.OffsetHigh = (DWORD)((Offset + Done) >> 32);

        if (!ReadFile((WIN_HANDLE)Handle, (PBYTE)Buffer + Done, Chunk, &Read,
                      &Overlapped)) {
            DWORD Error = GetLastError();
            if (Error == WIN_ERROR_HANDLE_EOF) {
                break;
            }
            *BytesRead = Done;
            return WindowsStatus(Error);
        }
        if (Read == 0) {
            break;
        }
        Done += Read;
    }

    *BytesRead = Done;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsWriteFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    PCVOID Buffer,
    SIZE_T Length
    )
{
    SIZE_T Done = 0;

    while (Done < Length) {
        WIN_OVERLAPPED Overlapped;
        ULONG Chunk = (Length - Done > 0x40000000) ? 0x40000000 :
                      (ULONG)(Length - Done);
        ULONG Written = 0;

        RtlFillMemory(&Overlapped, sizeof(Overlapped), 0);
        Overlapped.Offset = (DWORD)(Offset + Done);
        Overlapped.OffsetHigh = (DWORD)((Offset + Done) >> 32);

        if (!WriteFile((WIN_HANDLE)Handle, (const BYTE *)Buffer + Done, Chunk,
                       &Written, &Overlapped)) {
            return LAST_STATUS();
        }
        if (Written == 0) {
            return -5;
        }
        Done += Written;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsFlushFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    if (!FlushFileBuffers((WIN_HANDLE)Handle)) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsLockFile(
    PRTL Rtl,
    HANDLE Handle,
    BOOL Exclusive
    )
/*++

Routine Description:

    Takes a byte-range lock on one byte at 2^62 without waiting.  Like an
    OFD lock it belongs to the handle (a second handle of the same file,
    even in this process, is refused) and the system drops it when the
    holder's process ends.

--*/
{
    WIN_OVERLAPPED Overlapped;
    DWORD Flags = WIN_LOCKFILE_FAIL_IMMEDIATELY;

    if (Exclusive) {
        Flags |= WIN_LOCKFILE_EXCLUSIVE_LOCK;
    }

    RtlFillMemory(&Overlapped, sizeof(Overlapped), 0);
    Overlapped.OffsetHigh = LOCK_OFFSET_HIGH;

    if (!LockFileEx((WIN_HANDLE)Handle, Flags, 0, 1, 0, &Overlapped)) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsUnlockFile(
    PRTL Rtl,
    HANDLE Handle
    )
{
    WIN_OVERLAPPED Overlapped;

    RtlFillMemory(&Overlapped, sizeof(Overlapped), 0);
    Overlapped.OffsetHigh = LOCK_OFFSET_HIGH;

    if (!UnlockFileEx((WIN_HANDLE)Handle, 0, 1, 0, &Overlapped) &&
        GetLastError() != WIN_ERROR_NOT_LOCKED) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsCreateDirectory(
    PRTL Rtl,
    PCSZ Path
    )
{
    WCHAR Wide[MAX_WIDE_PATH];
    RTL_STATUS Status = WidePath(Path, Wide, MAX_WIDE_PATH);

    if (RTL_SUCCESS(Status) && !CreateDirectoryW(Wide, NULL)) {
        Status = LAST_STATUS();
    }

    return Status;
}

static
RTL_STATUS
WindowsRenameFile(
    PRTL Rtl,
    PCSZ From,
    PCSZ To
    )
{
    WCHAR WideFrom[MAX_WIDE_PATH];
    WCHAR WideTo[MAX_WIDE_PATH];
    RTL_STATUS Status;

    Status = WidePath(From, WideFrom, MAX_WIDE_PATH);
    if (RTL_SUCCESS(Status)) {
        Status = WidePath(To, WideTo, MAX_WIDE_PATH);
    }
    if (RTL_SUCCESS(Status) &&
        !MoveFileExW(WideFrom, WideTo, WIN_MOVEFILE_REPLACE_EXISTING)) {
        Status = LAST_STATUS();
    }

    return Status;
}

static
RTL_STATUS
WindowsDeleteFile(
    PRTL Rtl,
    PCSZ Path
    )
{
    WCHAR Wide[MAX_WIDE_PATH];
    RTL_STATUS Status = WidePath(Path, Wide, MAX_WIDE_PATH);

    if (RTL_SUCCESS(Status) && !DeleteFileW(Wide)) {
        Status = LAST_STATUS();
    }

    return Status;
}

static
RTL_STATUS
WindowsEnumerateDirectory(
    PRTL Rtl,
    PCSZ Path,
    PRTL_DIRECTORY_CALLBACK Callback,
    PVOID Context
    )
{
    WCHAR Wide[MAX_WIDE_PATH];
    WIN_FIND_DATA Data;
    CHAR Name[1024];
    WIN_HANDLE Find;
    RTL_STATUS Status;
    LONG Length;

    Status = WidePath(Path, Wide, MAX_WIDE_PATH - 3);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Length = 0; Wide[Length] != 0; Length++) {
        continue;
    }
    if (Length > 0 && Wide[Length - 1] != '/' && Wide[Length - 1] != '\\') {
        Wide[Length++] = '\\';
    }
    Wide[Length++] = '*';
    Wide[Length] = 0;

    Find = FindFirstFileW(Wide, &Data);
    if (Find == (WIN_HANDLE)INVALID_HANDLE_VALUE) {
        return LAST_STATUS();
    }

    do {
        if (Data.FileName[0] == '.' &&
            (Data.FileName[1] == 0 ||
             (Data.FileName[1] == '.' && Data.FileName[2] == 0))) {
            continue;
        }
        if (WideCharToMultiByte(WIN_CP_UTF8, 0, Data.FileName, -1, Name,
                                sizeof(Name), NULL, NULL) <= 0) {
            continue;
        }
        if (!Callback(Context, Name)) {
            break;
        }
    } while (FindNextFileW(Find, &Data));

    FindClose(Find);
    return RTL_STATUS_OK;
}

static
PWINDOWS_RESERVATION
FindReservation(
    PCVOID Address,
    BOOL Inside
    )
/*++

Routine Description:

    The reservation whose base is Address, or (Inside) that holds it.  The
    caller holds TableLock.

--*/
{
    ULONG Index;

    for (Index = 0; Index < MAX_RESERVATIONS; Index++) {
        PWINDOWS_RESERVATION Entry = &Reservations[Index];
        if (Entry->Base == NULL) {
            continue;
        }
        if (Entry->Base == (const BYTE *)Address) {
            return Entry;
        }
        if (Inside && (const BYTE *)Address > Entry->Base &&
            (const BYTE *)Address < Entry->Base + Entry->Size) {
            return Entry;
        }
    }

    return NULL;
}

static
VOID
ReserveTail(
    PWINDOWS_RESERVATION Entry
    )
/*++

Routine Description:

    Reserves the part of a reservation past its view (from the next 64 KiB
    boundary: the rest of the view's last granule belongs to the view and
    no other allocation can start in it).

--*/
{
    PBYTE Tail = (PBYTE)ALIGN_UP((ULONG_PTR)Entry->Base + Entry->ViewSize,
                                 ALLOCATION_GRANULARITY);

    Entry->Tail = NULL;
    if (Tail < Entry->Base + Entry->Size) {
        Entry->Tail = VirtualAlloc(Tail, (SIZE_T)(Entry->Base + Entry->Size -
                                                  Tail),
                                   WIN_MEM_RESERVE, WIN_PAGE_NOACCESS);
    }
}

static
RTL_STATUS
MapInReservation(
    HANDLE Handle,
    ULONGLONG Offset,
    SIZE_T Size,
    BOOL Writable,
    PBYTE FixedAddress
    )
/*++

Routine Description:

    MapFile with a fixed address: replaces the reservation's view of the
    file from offset 0 by one that also covers [Offset, Offset + Size)
    (see the module header).  The address must be the reservation's base
    plus Offset, and the new range must touch the old view.

--*/
{
    PWINDOWS_RESERVATION Entry;
    WIN_HANDLE Section;
    ULONGLONG NewView;
    SIZE_T OldView;
    PVOID View;
    RTL_STATUS Status = RTL_STATUS_OK;

    AcquireSRWLockExclusive(&TableLock);

    Entry = FindReservation(FixedAddress, TRUE);
    if (Entry == NULL || (ULONGLONG)(FixedAddress - Entry->Base) != Offset ||
        Offset > Entry->ViewSize || Offset + Size > Entry->Size) {
        Status = RTL_STATUS_INVALID_PARAMETER;
        goto End;
    }

    NewView = Offset + Size;
    if (NewView < Entry->ViewSize) {
        NewView = Entry->ViewSize;
    }

    Section = CreateFileMappingW((WIN_HANDLE)Handle, NULL,
                                 Writable ? WIN_PAGE_READWRITE :
                                            WIN_PAGE_READONLY,
                                 (DWORD)(NewView >> 32), (DWORD)NewView,
                                 NULL);
    if (Section == NULL) {
        Status = LAST_STATUS();
        goto End;
    }

    OldView = Entry->ViewSize;
    if (Entry->ViewSize != 0) {
        UnmapViewOfFile(Entry->Base);
        Entry->ViewSize = 0;
    }
    if (Entry->Tail != NULL) {
        VirtualFree(Entry->Tail, 0, WIN_MEM_RELEASE);
        Entry->Tail = NULL;
    }

    View = MapViewOfFileEx(Section,
                           Writable ? WIN_FILE_MAP_WRITE : WIN_FILE_MAP_READ,
                           0, 0, (SIZE_T)NewView, Entry->Base);
    if (View == NULL) {
        Status = LAST_STATUS();

        //
        // Put the old view back (a failed mmap with MAP_FIXED leaves the
        // old mapping in place on Linux, and the store relies on that);
        // the old size is within the new section.
        //

        if (OldView != 0 &&
            MapViewOfFileEx(Section,
                            Writable ? WIN_FILE_MAP_WRITE : WIN_FILE_MAP_READ,
                            0, 0, OldView, Entry->Base) != NULL) {
            Entry->ViewSize = OldView;
        }
    } else {
        Entry->ViewSize = (SIZE_T)NewView;
        Entry->File = Handle;
    }
    CloseHandle(Section);

    ReserveTail(Entry);

End:
    ReleaseSRWLockExclusive(&TableLock);
    return Status;
}

static
RTL_STATUS
WindowsMapFile(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    SIZE_T Size,
    BOOL Writable,
    PVOID FixedAddress,
    PPVOID Address
    )
{
    WIN_HANDLE Section;
    ULONGLONG Aligned;
    ULONGLONG Maximum = 0;
    PBYTE View;
    RTL_STATUS Status;

    *Address = NULL;

    if (Size == 0) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (FixedAddress != NULL) {
        Status = MapInReservation(Handle, Offset, Size, Writable,
                                  (PBYTE)FixedAddress);
        if (RTL_SUCCESS(Status)) {
            *Address = FixedAddress;
        }
        return Status;
    }

    //
    // A view starts on a 64 KiB file offset: map from the boundary below
    // and hand out the address of Offset (Unmap finds the view's base).
    // A writable section may extend the file, as a shared mapping past the
    // end would on Linux once the file grows; a read-only one maps what is
    // there.
    //

    Aligned = ALIGN_DOWN(Offset, ALLOCATION_GRANULARITY);
    if (Writable) {
        Maximum = Offset + Size;
    }

    Section = CreateFileMappingW((WIN_HANDLE)Handle, NULL,
                                 Writable ? WIN_PAGE_READWRITE :
                                            WIN_PAGE_READONLY,
                                 (DWORD)(Maximum >> 32), (DWORD)Maximum,
                                 NULL);
    if (Section == NULL) {
        return LAST_STATUS();
    }

    //
    // Under TableLock, as every allocation of address space: a remap in a
    // reservation (MapInReservation) releases the old view and the tail
    // before mapping the new one at the same base, and a view or pages
    // placed by another thread in between would take its place.
    //

    AcquireSRWLockExclusive(&TableLock);
    View = MapViewOfFileEx(Section,
                           Writable ? WIN_FILE_MAP_WRITE : WIN_FILE_MAP_READ,
                           (DWORD)(Aligned >> 32), (DWORD)Aligned,
                           (SIZE_T)(Offset - Aligned) + Size, NULL);
    Status = (View == NULL) ? LAST_STATUS() : RTL_STATUS_OK;
    ReleaseSRWLockExclusive(&TableLock);
    CloseHandle(Section);

    if (RTL_SUCCESS(Status)) {
        *Address = View + (Offset - Aligned);
    }

    return Status;
}

static
RTL_STATUS
WindowsUnmap(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    Releases what Address is: a reservation (with its view), a view from
    MapFile, or pages from AllocatePages (released whole from their base,
    decommitted when only a part of them is given back).

--*/
{
    PWINDOWS_RESERVATION Entry;
    WIN_MEMORY_BASIC_INFORMATION Information;

    AcquireSRWLockExclusive(&TableLock);
    Entry = FindReservation(Address, FALSE);
    if (Entry != NULL) {
        if (Entry->ViewSize != 0) {
            UnmapViewOfFile(Entry->Base);
        }
        if (Entry->Tail != NULL) {
            VirtualFree(Entry->Tail, 0, WIN_MEM_RELEASE);
        }
        if (Entry->File != 0) {
            ApplyPendingTruncate(Entry->File);
        }
        RtlFillMemory(Entry, sizeof(*Entry), 0);
    }
    ReleaseSRWLockExclusive(&TableLock);

    if (Entry != NULL) {
        return RTL_STATUS_OK;
    }

    if (VirtualQuery(Address, &Information, sizeof(Information)) == 0) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Information.Type == WIN_MEM_MAPPED) {
        if (!UnmapViewOfFile(Information.AllocationBase)) {
            return LAST_STATUS();
        }
        return RTL_STATUS_OK;
    }

    if (Information.AllocationBase == Address) {
        if (!VirtualFree(Address, 0, WIN_MEM_RELEASE)) {
            return LAST_STATUS();
        }
        return RTL_STATUS_OK;
    }

    if (!VirtualFree(Address, Size, WIN_MEM_DECOMMIT)) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsReserveAddressSpace(
    PRTL Rtl,
    SIZE_T Size,
    PPVOID Address
    )
{
    PWINDOWS_RESERVATION Entry = NULL;
    PVOID Base;
    ULONG Index;

    *Address = NULL;

    AcquireSRWLockExclusive(&TableLock);       // see WindowsMapFile
    Base = VirtualAlloc(NULL, Size, WIN_MEM_RESERVE, WIN_PAGE_NOACCESS);
    if (Base == NULL) {
        ReleaseSRWLockExclusive(&TableLock);
        return LAST_STATUS();
    }

    for (Index = 0; Index < MAX_RESERVATIONS; Index++) {
        if (Reservations[Index].Base == NULL) {
            Entry = &Reservations[Index];
            Entry->Base = Base;
            Entry->Size = Size;
            Entry->ViewSize = 0;
            Entry->Tail = Base;
            Entry->File = 0;
            break;
        }
    }
    ReleaseSRWLockExclusive(&TableLock);

    if (Entry == NULL) {
        VirtualFree(Base, 0, WIN_MEM_RELEASE);
        return RTL_STATUS_NO_MEMORY;
    }

    *Address = Base;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsAllocatePages(
    PRTL Rtl,
    SIZE_T Size,
    PPVOID Address
    )
{
    RTL_STATUS Status = RTL_STATUS_OK;

    //
    // Under TableLock: see WindowsMapFile.
    //

    AcquireSRWLockExclusive(&TableLock);
    *Address = VirtualAlloc(NULL, Size, WIN_MEM_RESERVE | WIN_MEM_COMMIT,
                            WIN_PAGE_READWRITE);
    if (*Address == NULL) {
        Status = LAST_STATUS();
    }
    ReleaseSRWLockExclusive(&TableLock);

    return Status;
}

static
RTL_STATUS
WindowsFlushMapping(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    FlushViewOfFile: writes the view's dirty pages to the file (and starts
    them to the disk); FlushFile (FlushFileBuffers) then makes them and the
    file's metadata durable.  Unlike Linux, where a shared mapping is the
    page cache and this is a no-op, a Windows store is durable only after
    both.

--*/
{
    if (Size != 0 && !FlushViewOfFile(Address, Size)) {
        return LAST_STATUS();
    }

    return RTL_STATUS_OK;
}

static
VOID
WindowsNothing(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    PrefaultMemory and PrefaultMemoryAsync: hints only, and a range may be
    swapped out from under a worker by MapInReservation, so the Windows
    back end does not fault ahead (pages fault in on first write).

--*/
{
    return;
}

static
VOID
WindowsDiscardMemory(
    PRTL Rtl,
    PCVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    Takes whole pages of the range out of the working set: VirtualUnlock on
    pages that are not locked does exactly that (and fails, harmlessly).
    Dirty pages stay with the file's section.

--*/
{
    ULONG_PTR Page = Rtl->PageSize;
    ULONG_PTR Start = ((ULONG_PTR)Address + Page - 1) & ~(Page - 1);
    ULONG_PTR End = ((ULONG_PTR)Address + Size) & ~(Page - 1);

    if (End > Start) {
        VirtualUnlock((PVOID)Start, End - Start);
    }
}

static
VOID
WindowsPreferLargePages(
    PRTL Rtl,
    PVOID Address,
    SIZE_T Size
    )
/*++

Routine Description:

    Nothing: a view of a file section cannot ask for large pages (only
    SEC_LARGE_PAGES sections of the page file can, with a privilege).

--*/
{
    return;
}

static
VOID
WindowsWriteBackNothing(
    PRTL Rtl,
    HANDLE Handle,
    ULONGLONG Offset,
    ULONGLONG Length
    )
/*++

Routine Description:

    WriteBack and WriteBackAsync: Windows has no write-back hint for a file
    range without a view; the lazy writer and the flush at close do it.

--*/
{
    return;
}

static
LONGLONG
WindowsQueryTime(
    PRTL Rtl,
    RTL_CLOCK Clock
    )
/*++

Routine Description:

    Monotonic: QueryPerformanceCounter scaled to ns (whole seconds and the
    remainder apart, so that the product cannot overflow).  Realtime: the
    precise system time, 100 ns units since 1601, moved to 1970.

--*/
{
    LONGLONG Counter;
    WIN_FILETIME Time;
    LONGLONG Ticks;

    if (Clock == RtlClockRealtime) {
        GetSystemTimePreciseAsFileTime(&Time);
        Ticks = ((LONGLONG)Time.High << 32) | Time.Low;
        return (Ticks - 116444736000000000LL) * 100;
    }

    if (!QueryPerformanceCounter(&Counter) || PerformanceFrequency <= 0) {
        return 0;
    }

    return (Counter / PerformanceFrequency) * 1000000000LL +
           ((Counter % PerformanceFrequency) * 1000000000LL) /
           PerformanceFrequency;
}

static
ULONG
WindowsGetProcessId(
    PRTL Rtl
    )
{
    return GetCurrentProcessId();
}

static
ULONG
WindowsGetThreadId(
    PRTL Rtl
    )
{
    return GetCurrentThreadId();
}

static
RTL_STATUS
WindowsFlushDirectory(
    PRTL Rtl,
    PCSZ Path
    )
{
    //
    // NTFS journals its metadata: a created or renamed file's entry is
    // durable with the journal, which FlushFileBuffers of the file forces.
    //

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WindowsGetBootId(
    PRTL Rtl,
    PCHAR Buffer,
    ULONG Size
    )
{
    //
    // No boot id is read on Windows yet: readers then never assume that
    // the machine went down since a session was last synced.
    //

    return RTL_STATUS_NOT_FOUND;
}

RTL_STATUS
InitializeRtl(
    PRTL Rtl
    )
/*++

Routine Description:

    Fills in an RTL structure with the Windows implementations.

Arguments:

    Rtl - Supplies the structure to initialize.

Return Value:

    RTL_STATUS_OK.

--*/
{
    RtlInitializeCommon(Rtl);
    QueryPerformanceFrequency(&PerformanceFrequency);

    Rtl->OpenFile = WindowsOpenFile;
    Rtl->CloseFile = WindowsCloseFile;
    Rtl->GetFileSize = WindowsGetFileSize;
    Rtl->GrowFile = WindowsGrowFile;
    Rtl->TruncateFile = WindowsTruncateFile;
    Rtl->ReadFile = WindowsReadFile;
    Rtl->WriteFile = WindowsWriteFile;
    Rtl->FlushFile = WindowsFlushFile;
    Rtl->LockFile = WindowsLockFile;
    Rtl->UnlockFile = WindowsUnlockFile;
    Rtl->CreateDirectory = WindowsCreateDirectory;
    Rtl->RenameFile = WindowsRenameFile;
    Rtl->DeleteFile = WindowsDeleteFile;
    Rtl->EnumerateDirectory = WindowsEnumerateDirectory;
    Rtl->FlushDirectory = WindowsFlushDirectory;

    Rtl->MapFile = WindowsMapFile;
    Rtl->Unmap = WindowsUnmap;
    Rtl->ReserveAddressSpace = WindowsReserveAddressSpace;
    Rtl->AllocatePages = WindowsAllocatePages;
    Rtl->FlushMapping = WindowsFlushMapping;
    Rtl->PrefaultMemory = WindowsNothing;
    Rtl->DiscardMemory = WindowsDiscardMemory;
    Rtl->PreferLargePages = WindowsPreferLargePages;
    Rtl->PrefaultMemoryAsync = WindowsNothing;
    Rtl->WriteBack = WindowsWriteBackNothing;
    Rtl->WriteBackAsync = WindowsWriteBackNothing;

    Rtl->QueryTime = WindowsQueryTime;
    Rtl->GetProcessId = WindowsGetProcessId;
    Rtl->GetThreadId = WindowsGetThreadId;
    Rtl->GetBootId = WindowsGetBootId;

    return RTL_STATUS_OK;
}
