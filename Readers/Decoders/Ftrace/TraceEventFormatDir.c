/*++

Module Name:

    TraceEventFormatDir.c

Abstract:

    This module adds the events of a tracefs `events` directory to an
    event table: the `format` file of each SYSTEM/EVENT under it (a tracefs
    mount point, whose events/ holds them, is taken too).  Text imports
    are given these (tracestore import --formats) to rebuild each event's
    record from its text.

    tracefs reports its files as empty; each is read to its end.

Environment:

    Core: no C runtime; the file system through PRTL.

--*/

#include "TraceEvent.h"

#define FORMAT_FILE_BYTES (256 * 1024)
#define FORMAT_PATH_BYTES 1024

typedef struct _FORMAT_WALK {
    PTRACE_EVENT_TABLE Table;
    PRTL_ERROR Error;
    PCHAR Buffer;                   // FORMAT_FILE_BYTES
    CHAR Events[FORMAT_PATH_BYTES]; // the events directory
    PCSZ System;                    // the system being walked
    ULONG Added;
    RTL_STATUS Status;
} FORMAT_WALK, *PFORMAT_WALK;

static
RTL_STATUS
ReadFormat(
    PFORMAT_WALK Walk,
    PCSZ Path,
    PSIZE_T Length
    )
/*++

Routine Description:

    The file at Path, to its end, in Walk->Buffer.  RTL_STATUS_NOT_FOUND
    when there is none (an event directory's other files: enable, ...).

--*/
{
    PRTL Rtl = Walk->Table->Rtl;
    HANDLE Handle;
    SIZE_T Read;
    RTL_STATUS Status;

    *Length = 0;
    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Handle);
    if (!RTL_SUCCESS(Status)) {
        return RTL_STATUS_NOT_FOUND;
    }
    do {
        Status = Rtl->ReadFile(Rtl, Handle, *Length, Walk->Buffer + *Length,
                               FORMAT_FILE_BYTES - *Length, &Read);
        *Length += RTL_SUCCESS(Status) ? Read : 0;
    } while (RTL_SUCCESS(Status) && Read != 0 && *Length < FORMAT_FILE_BYTES);
    Rtl->CloseFile(Rtl, Handle);
    if (RTL_SUCCESS(Status) && *Length == FORMAT_FILE_BYTES) {
        return RtlSetError(Walk->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: longer than %u bytes", Path,
                           FORMAT_FILE_BYTES);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Walk->Error, Status, 0, 0, "%s: cannot read it",
                           Path);
    }
    return RTL_STATUS_OK;
}

static
BOOL
AddEvent(
    PVOID Context,
    PCSZ Name
    )
{
    PFORMAT_WALK Walk = Context;
    CHAR Path[FORMAT_PATH_BYTES];
    SIZE_T Length;
    PCSZ Reason = NULL;
    RTL_STATUS Status;

    if (RtlFormat(Path, sizeof(Path), "%s/%s/%s/format", Walk->Events,
                  Walk->System, Name) >= sizeof(Path) - 1) {
        return TRUE;
    }
    Status = ReadFormat(Walk, Path, &Length);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return TRUE;
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceEventTableAddFormat(Walk->Table, Walk->System,
                                          (ULONG)RtlStringLength(Walk->System),
                                          Walk->Buffer, Length, &Reason);
        if (!RTL_SUCCESS(Status)) {
            RtlSetError(Walk->Error, Status, 0, 0, "%s: %s", Path,
                        Reason != NULL ? Reason : "not a format file");
        }
    }
    if (!RTL_SUCCESS(Status)) {
        Walk->Status = Status;
        return FALSE;
    }
    Walk->Added++;
    return TRUE;
}

static
BOOL
AddSystem(
    PVOID Context,
    PCSZ Name
    )
{
    PFORMAT_WALK Walk = Context;
    PRTL Rtl = Walk->Table->Rtl;
    CHAR Path[FORMAT_PATH_BYTES];

    if (RtlFormat(Path, sizeof(Path), "%s/%s", Walk->Events, Name) >=
        sizeof(Path) - 1) {
        return TRUE;
    }
    Walk->System = Name;

    //
    // A file (header_page, enable, ...) lists nothing.
    //

    Rtl->EnumerateDirectory(Rtl, Path, AddEvent, Walk);
    return RTL_SUCCESS(Walk->Status);
}

RTL_STATUS
TraceEventTableAddDirectory(
    PTRACE_EVENT_TABLE Table,
    PCSZ Path,
    PRTL_ERROR Error
    )
{
    PRTL Rtl = Table->Rtl;
    FORMAT_WALK Walk;
    CHAR Probe[FORMAT_PATH_BYTES];
    HANDLE Handle;
    RTL_STATUS Status;

    Rtl->FillMemory(&Walk, sizeof(Walk), 0);
    Walk.Table = Table;
    Walk.Error = Error;
    RtlFormat(Probe, sizeof(Probe), "%s/events/header_page", Path);
    if (RTL_SUCCESS(Rtl->OpenFile(Rtl, Probe, RtlOpenReadOnly, &Handle))) {
        Rtl->CloseFile(Rtl, Handle);
        RtlFormat(Walk.Events, sizeof(Walk.Events), "%s/events", Path);
    } else {
        RtlFormat(Walk.Events, sizeof(Walk.Events), "%s", Path);
    }

    Status = Rtl->AllocatePages(Rtl, FORMAT_FILE_BYTES, (PVOID *)&Walk.Buffer);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: no memory to read its "
                           "format files", Path);
    }
    Status = Rtl->EnumerateDirectory(Rtl, Walk.Events, AddSystem, &Walk);
    Rtl->Unmap(Rtl, Walk.Buffer, FORMAT_FILE_BYTES);
    if (!RTL_SUCCESS(Walk.Status)) {
        return Walk.Status;
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot list it",
                           Walk.Events);
    }
    if (Walk.Added == 0) {
        return RtlSetError(Error, RTL_STATUS_NOT_FOUND, 0, 0, "%s: no "
                           "SYSTEM/EVENT/format file under it", Walk.Events);
    }
    return RTL_STATUS_OK;
}
