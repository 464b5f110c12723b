/*++

Module Name:

    RtlWindowsApi.h

Abstract:

    The kernel32 services the Windows back end calls, declared here rather
    than taken from <windows.h>: the SDK header redefines the base types of
    Rtl.h (HANDLE, BOOL, CHAR...) and pulls C runtime headers in.  Only the
    routines, structures and constants RtlWindows.c and the CRT-free
    Windows test program use are spelled out; the layouts are the x64
    ones, asserted where a field offset matters.

    A Win32 handle is a pointer; the RTL's HANDLE is a LONG_PTR of the same
    width, so the two convert by a cast (INVALID_HANDLE_VALUE is -1 in
    both).

Environment:

    Back end: the platform's own zone, freestanding, no C runtime.
    Included by Rtl/Windows/RtlWindows.c and by the Windows test programs
    (Tests/Windows); includes Rtl/Rtl.h.

--*/

#ifndef _TRACER_RTL_WINDOWS_API_H_
#define _TRACER_RTL_WINDOWS_API_H_

#include "Rtl/Rtl.h"

#if !defined(_WIN64)
#error "RtlWindowsApi.h declares the x64 Windows ABI"
#endif

#define WINAPI_IMPORT __declspec(dllimport)

typedef PVOID WIN_HANDLE;
typedef ULONG DWORD;
typedef USHORT WCHAR, *PWCHAR;
typedef const WCHAR *PCWSTR;

typedef struct _WIN_OVERLAPPED {
    ULONG_PTR Internal;
    ULONG_PTR InternalHigh;
    DWORD Offset;
    DWORD OffsetHigh;
    WIN_HANDLE Event;
} WIN_OVERLAPPED, *PWIN_OVERLAPPED;

C_ASSERT(sizeof(WIN_OVERLAPPED) == 32);

typedef struct _WIN_FILETIME {
    DWORD Low;
    DWORD High;
} WIN_FILETIME, *PWIN_FILETIME;

typedef struct _WIN_FILE_INFORMATION {
    DWORD FileAttributes;
    WIN_FILETIME CreationTime;
    WIN_FILETIME LastAccessTime;
    WIN_FILETIME LastWriteTime;
    DWORD VolumeSerialNumber;
    DWORD FileSizeHigh;
    DWORD FileSizeLow;
    DWORD NumberOfLinks;
    DWORD FileIndexHigh;
    DWORD FileIndexLow;
} WIN_FILE_INFORMATION, *PWIN_FILE_INFORMATION;

C_ASSERT(sizeof(WIN_FILE_INFORMATION) == 52);

typedef struct _WIN_FIND_DATA {
    DWORD FileAttributes;
    WIN_FILETIME CreationTime;
    WIN_FILETIME LastAccessTime;
    WIN_FILETIME LastWriteTime;
    DWORD FileSizeHigh;
    DWORD FileSizeLow;
    DWORD Reserved0;
    DWORD Reserved1;
    WCHAR FileName[260];
    WCHAR AlternateFileName[14];
} WIN_FIND_DATA, *PWIN_FIND_DATA;

C_ASSERT(FIELD_OFFSET(WIN_FIND_DATA, FileName) == 44);
C_ASSERT(sizeof(WIN_FIND_DATA) == 592);

typedef struct _WIN_MEMORY_BASIC_INFORMATION {
    PVOID BaseAddress;
    PVOID AllocationBase;
    DWORD AllocationProtect;
    USHORT PartitionId;
    SIZE_T RegionSize;
    DWORD State;
    DWORD Protect;
    DWORD Type;
} WIN_MEMORY_BASIC_INFORMATION, *PWIN_MEMORY_BASIC_INFORMATION;

C_ASSERT(FIELD_OFFSET(WIN_MEMORY_BASIC_INFORMATION, RegionSize) == 24);
C_ASSERT(sizeof(WIN_MEMORY_BASIC_INFORMATION) == 48);

#define WIN_GENERIC_READ            0x80000000u
#define WIN_GENERIC_WRITE           0x40000000u
#define WIN_FILE_SHARE_ALL          0x00000007u
#define WIN_CREATE_NEW              1
#define WIN_OPEN_EXISTING           3
#define WIN_OPEN_ALWAYS             4
#define WIN_FILE_ATTRIBUTE_NORMAL   0x00000080u
#define WIN_FILE_ATTRIBUTE_DIRECTORY 0x00000010u
#define WIN_FILE_FLAG_BACKUP_SEMANTICS 0x02000000u
#define WIN_FILE_TYPE_DISK          1
#define WIN_FILE_ALLOCATION_INFO    5
#define WIN_FILE_END_OF_FILE_INFO   6

#define WIN_LOCKFILE_FAIL_IMMEDIATELY 0x1
#define WIN_LOCKFILE_EXCLUSIVE_LOCK   0x2

#define WIN_MOVEFILE_REPLACE_EXISTING 0x1

#define WIN_PAGE_NOACCESS           0x01
#define WIN_PAGE_READONLY           0x02
#define WIN_PAGE_READWRITE          0x04
#define WIN_MEM_COMMIT              0x00001000u
#define WIN_MEM_RESERVE             0x00002000u
#define WIN_MEM_DECOMMIT            0x00004000u
#define WIN_MEM_RELEASE             0x00008000u
#define WIN_MEM_PRIVATE             0x00020000u
#define WIN_MEM_MAPPED              0x00040000u
#define WIN_FILE_MAP_WRITE          0x0002
#define WIN_FILE_MAP_READ           0x0004

#define WIN_CP_UTF8                 65001
#define WIN_STD_ERROR_HANDLE        ((DWORD)-12)
#define WIN_STD_OUTPUT_HANDLE       ((DWORD)-11)
#define WIN_INFINITE                0xFFFFFFFFu

//
// Win32 error codes the back end translates (winerror.h).
//

#define WIN_ERROR_FILE_NOT_FOUND    2
#define WIN_ERROR_PATH_NOT_FOUND    3
#define WIN_ERROR_TOO_MANY_OPEN_FILES 4
#define WIN_ERROR_ACCESS_DENIED     5
#define WIN_ERROR_INVALID_HANDLE    6
#define WIN_ERROR_NOT_ENOUGH_MEMORY 8
#define WIN_ERROR_OUTOFMEMORY       14
#define WIN_ERROR_WRITE_PROTECT     19
#define WIN_ERROR_SHARING_VIOLATION 32
#define WIN_ERROR_LOCK_VIOLATION    33
#define WIN_ERROR_HANDLE_EOF        38
#define WIN_ERROR_HANDLE_DISK_FULL  39
#define WIN_ERROR_FILE_EXISTS       80
#define WIN_ERROR_INVALID_PARAMETER 87
#define WIN_ERROR_DISK_FULL         112
#define WIN_ERROR_NOT_LOCKED        158
#define WIN_ERROR_ALREADY_EXISTS    183
#define WIN_ERROR_FILENAME_EXCED_RANGE 206
#define WIN_ERROR_DIRECTORY         267
#define WIN_ERROR_IO_PENDING        997
#define WIN_ERROR_USER_MAPPED_FILE  1224
#define WIN_ERROR_COMMITMENT_LIMIT  1455

WINAPI_IMPORT WIN_HANDLE CreateFileW(PCWSTR, DWORD, DWORD, PVOID, DWORD, DWORD,
                                     WIN_HANDLE);
WINAPI_IMPORT BOOL CloseHandle(WIN_HANDLE);
WINAPI_IMPORT BOOL GetFileInformationByHandle(WIN_HANDLE,
                                              PWIN_FILE_INFORMATION);
WINAPI_IMPORT DWORD GetFileType(WIN_HANDLE);
WINAPI_IMPORT BOOL SetFileInformationByHandle(WIN_HANDLE, LONG, PVOID, DWORD);
WINAPI_IMPORT BOOL ReadFile(WIN_HANDLE, PVOID, DWORD, PULONG,
                            PWIN_OVERLAPPED);
WINAPI_IMPORT BOOL WriteFile(WIN_HANDLE, PCVOID, DWORD, PULONG,
                             PWIN_OVERLAPPED);
WINAPI_IMPORT BOOL FlushFileBuffers(WIN_HANDLE);
WINAPI_IMPORT BOOL LockFileEx(WIN_HANDLE, DWORD, DWORD, DWORD, DWORD,
                              PWIN_OVERLAPPED);
WINAPI_IMPORT BOOL UnlockFileEx(WIN_HANDLE, DWORD, DWORD, DWORD,
                                PWIN_OVERLAPPED);
WINAPI_IMPORT BOOL CreateDirectoryW(PCWSTR, PVOID);
WINAPI_IMPORT BOOL MoveFileExW(PCWSTR, PCWSTR, DWORD);
WINAPI_IMPORT BOOL DeleteFileW(PCWSTR);
WINAPI_IMPORT WIN_HANDLE FindFirstFileW(PCWSTR, PWIN_FIND_DATA);
WINAPI_IMPORT BOOL FindNextFileW(WIN_HANDLE, PWIN_FIND_DATA);
WINAPI_IMPORT BOOL FindClose(WIN_HANDLE);
WINAPI_IMPORT WIN_HANDLE CreateFileMappingW(WIN_HANDLE, PVOID, DWORD, DWORD,
                                            DWORD, PCWSTR);
WINAPI_IMPORT PVOID MapViewOfFileEx(WIN_HANDLE, DWORD, DWORD, DWORD, SIZE_T,
                                    PVOID);
WINAPI_IMPORT BOOL UnmapViewOfFile(PCVOID);
WINAPI_IMPORT BOOL FlushViewOfFile(PCVOID, SIZE_T);
WINAPI_IMPORT PVOID VirtualAlloc(PVOID, SIZE_T, DWORD, DWORD);
WINAPI_IMPORT BOOL VirtualFree(PVOID, SIZE_T, DWORD);
WINAPI_IMPORT SIZE_T VirtualQuery(PCVOID, PWIN_MEMORY_BASIC_INFORMATION,
                                  SIZE_T);
WINAPI_IMPORT BOOL VirtualUnlock(PVOID, SIZE_T);
WINAPI_IMPORT BOOL QueryPerformanceCounter(PLONGLONG);
WINAPI_IMPORT BOOL QueryPerformanceFrequency(PLONGLONG);
WINAPI_IMPORT VOID GetSystemTimePreciseAsFileTime(PWIN_FILETIME);
WINAPI_IMPORT DWORD GetCurrentProcessId(VOID);
WINAPI_IMPORT DWORD GetCurrentThreadId(VOID);
WINAPI_IMPORT DWORD GetLastError(VOID);
WINAPI_IMPORT LONG MultiByteToWideChar(ULONG, DWORD, PCSZ, LONG, PWCHAR,
                                       LONG);
WINAPI_IMPORT LONG WideCharToMultiByte(ULONG, DWORD, PCWSTR, LONG, PCHAR,
                                       LONG, PCSZ, PBOOL);
WINAPI_IMPORT VOID AcquireSRWLockExclusive(PVOID *);
WINAPI_IMPORT VOID ReleaseSRWLockExclusive(PVOID *);

//
// Used by the CRT-free test programs only.
//

WINAPI_IMPORT WIN_HANDLE GetStdHandle(DWORD);
WINAPI_IMPORT PCSZ GetCommandLineA(VOID);
WINAPI_IMPORT __attribute__((noreturn)) VOID ExitProcess(ULONG);
WINAPI_IMPORT VOID Sleep(DWORD);

#endif // _TRACER_RTL_WINDOWS_API_H_
