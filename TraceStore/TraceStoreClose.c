/*++

Module Name:

    TraceStoreClose.c

Abstract:

    This module implements the end of a store: flushing, trimming a
    writer's file to its committed records (publishing the smaller
    capacity first), unmapping it and starting its write-back, and
    closing, which releases the writer's lock.  Sessions call the three
    steps over all their stores in turn, so the device has every store's
    writes before the first flush waits.

Environment:

    Core: no C runtime; the OS only through PRTL (flush, truncate, unmap,
    write-back, close).  Called by sessions and by any store user through
    the store API; calls TraceStorePublishSlot (TraceStoreCommit.c).

--*/

#include "TraceStore/TraceStoreInternal.h"

RTL_STATUS
TraceStoreFlush(
    PTRACE_STORE Store
    )
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;

    if (!Store->Writable) {
        return RTL_STATUS_OK;
    }

    Status = Rtl->FlushMapping(Rtl, Store->Mapping, Store->MappedFileBytes);
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->FlushFile(Rtl, Store->FileHandle);
    }

    return Status;
}

VOID
TraceStoreTrim(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Trims a writer's file to the committed records, page-rounded,
    publishing the smaller capacity first so that no reader trusts a size
    the file no longer has.  Done once; nothing may be committed after.

--*/
{
    PRTL Rtl = Store->Rtl;
    ULONGLONG Size;

    if (Store->FileHandle == INVALID_HANDLE_VALUE || !Store->Writable ||
        Store->Header == NULL || Store->Trimmed) {
        return;
    }

    Size = ALIGN_UP(TRACE_STORE_HEADER_SIZE +
                    Store->CommittedCount * Store->RecordSize,
                    RTL_PAGE_SIZE);
    if (Size < Store->MappedFileBytes) {
        Store->Capacity = (Size - TRACE_STORE_HEADER_SIZE) /
                          Store->RecordSize;
        TraceStorePublishSlot(Store, Store->CommittedCount, Store->Capacity);
        Rtl->FlushMapping(Rtl, Store->Mapping, (SIZE_T)Size);
        Rtl->TruncateFile(Rtl, Store->FileHandle, Size);
        Store->MappedFileBytes = (SIZE_T)Size;
    } else {
        Rtl->FlushMapping(Rtl, Store->Mapping, Store->MappedFileBytes);
    }
    Store->Trimmed = TRUE;
}

VOID
TraceStoreStartClose(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Trims a writer's file (TraceStoreTrim), unmaps it (so that writing
    back needs no write-protecting of mapped pages) and starts writing it
    back; TraceStoreClose waits for it.

--*/
{
    PRTL Rtl = Store->Rtl;
    SIZE_T Size;

    if (Store->FileHandle == INVALID_HANDLE_VALUE || !Store->Writable ||
        Store->Mapping == NULL) {
        return;
    }

    TraceStoreTrim(Store);
    Size = Store->MappedFileBytes;

    Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
    Store->Mapping = NULL;
    Store->Header = NULL;
    Store->Base = NULL;

    Rtl->WriteBack(Rtl, Store->FileHandle, 0, Size);
}

RTL_STATUS
TraceStoreClose(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Closes a store.  The writer trims the file to the committed records
    (TraceStoreStartClose, if not done yet), flushes, and releases its
    lock by closing.

Return Value:

    RTL_STATUS_OK, or the writer's flush error: its committed records are
    then not known to be on the device.

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Store->FileHandle == INVALID_HANDLE_VALUE) {
        return RTL_STATUS_OK;
    }

    if (Store->Writable && (Store->Mapping != NULL || Store->Trimmed)) {
        TraceStoreStartClose(Store);
        Status = Rtl->FlushFile(Rtl, Store->FileHandle);
    }

    TraceStoreReleaseFile(Store);
    Store->Base = NULL;
    Store->Trimmed = FALSE;
    return Status;
}

VOID
TraceStoreReleaseFile(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Unmaps the store's view and closes its file: the end of a close, and
    the way out of an open that failed part way.

--*/
{
    PRTL Rtl = Store->Rtl;

    if (Store->Mapping != NULL) {
        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
        Store->Mapping = NULL;
    }
    Rtl->CloseFile(Rtl, Store->FileHandle);
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->Header = NULL;
}
