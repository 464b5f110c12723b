/*++

Module Name:

    TraceStoreReader.c

Abstract:

    This module implements a store's readers: opening a store read-only
    (no lock), taking a snapshot of its latest commit, and remapping.
    Readers map the whole file read-only and remap when a snapshot's count
    passes their mapping; every snapshot checks the file's size first, so
    a file another program cut shorter than its committed records is
    refused with an error instead of faulting (SIGBUS) on a read.

Environment:

    Core: no C runtime; the OS only through PRTL (open, size, map).
    Called by sessions, the extension and the CLI through the store API;
    calls the header and commit-slot routines of TraceStoreInternal.h.

--*/

#include "TraceStore/TraceStoreInternal.h"

static
RTL_STATUS
MapForReader(
    PTRACE_STORE Store,
    ULONGLONG FileSize
    )
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    PVOID Address;

    Status = Rtl->MapFile(Rtl, Store->FileHandle, 0, (SIZE_T)FileSize, FALSE,
                          NULL, &Address);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Store->Mapping != NULL) {
        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
    }

    Store->Mapping = Address;
    Store->MappingSize = (SIZE_T)FileSize;
    Store->MappedFileBytes = (SIZE_T)FileSize;
    Store->Header = (PTRACE_STORE_HEADER)Address;
    Store->Base = (PBYTE)Address + TRACE_STORE_HEADER_SIZE;

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStoreOpenReader(
    PRTL Rtl,
    PCSZ Path,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
{
    return TraceStoreOpenReaderUpTo(Rtl, Path, TRACE_COMMIT_ALL, Store,
                                    Error);
}

RTL_STATUS
TraceStoreOpenReaderUpTo(
    PRTL Rtl,
    PCSZ Path,
    ULONGLONG Limit,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
{
    RTL_STATUS Status;
    ULONGLONG FileSize;
    TRACE_STORE_SNAPSHOT Snapshot;

    TraceStoreInitialize(Rtl, Path, Store);
    Store->DurableLimit = Limit;

    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Store->FileHandle);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot open: %s", Path,
                           RtlStatusText(Status));
    }

    Status = TraceStoreCheckFileSize(Store, Path, &FileSize, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = MapForReader(Store, FileSize);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot map: %s", Path,
                    RtlStatusText(Status));
        goto Error;
    }

    Status = TraceStoreValidateHeader(Rtl, Path, Store->Header, FileSize,
                                      Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Store->RecordSize = Store->Header->RecordSize;
    TraceStoreCopyName(Store->Name, sizeof(Store->Name), Store->Header->Name);
    TraceStoreSetTimestampOffset(Store);

    Status = TraceStoreTakeSnapshot(Store, &Snapshot, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    return RTL_STATUS_OK;

Error:
    TraceStoreReleaseFile(Store);
    return Status;
}

RTL_STATUS
TraceStoreRemap(
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Maps a reader's file anew, whole, in place of its current mapping
    (which a hosted edge may have had to patch with zero pages after the
    file was cut underneath it).  The next snapshot checks the file as
    usual.

Arguments:

    Store - Supplies a store open for reading.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, or the error; on failure the old mapping stays.

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    ULONGLONG FileSize;

    if (Store->Writable || Store->Header == NULL) {
        return RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                           "%s: not open for reading", Store->Path);
    }

    Status = Rtl->GetFileSize(Rtl, Store->FileHandle, &FileSize);
    if (RTL_SUCCESS(Status) && FileSize < TRACE_STORE_HEADER_SIZE) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                           "%s: the file is now %llu bytes, shorter than its "
                           "header page: cut by another program?",
                           Store->Path, FileSize);
    }
    if (RTL_SUCCESS(Status)) {
        Status = MapForReader(Store, FileSize);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot map: %s",
                           Store->Path, RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStoreTakeSnapshot(
    PTRACE_STORE Store,
    PTRACE_STORE_SNAPSHOT Snapshot,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Reads the latest valid commit and makes sure the committed records are
    mapped and inside the file (a reader is refused, with an error, a file
    that another program cut shorter than its committed records).  For the
    writer, returns what it last published.

Arguments:

    Store - Supplies the store.

    Snapshot - Receives the commit.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK or RTL_STATUS_CORRUPT; on failure the previous snapshot
    and mapping stay usable.

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    TRACE_STORE_COMMIT_SLOT Latest;
    ULONGLONG Needed;
    ULONGLONG FileSize;

    if (Store->Writable) {
        *Snapshot = Store->Snapshot;
        return RTL_STATUS_OK;
    }

    //
    // Our mapping may reach past the end of the file: another program can
    // cut the file (truncate, a copy written over it), and reading a
    // mapped page beyond the end raises SIGBUS.  So the size is checked
    // before the header is read, and again (below) against the committed
    // records before any of them is.
    //

    Status = Rtl->GetFileSize(Rtl, Store->FileHandle, &FileSize);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Store->Path,
                           RtlStatusText(Status));
    }

    if (FileSize < TRACE_STORE_HEADER_SIZE) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                           "%s: the file is now %llu bytes, shorter than its "
                           "header page: cut by another program?",
                           Store->Path, FileSize);
    }

    if (!TraceStoreReadLatestSlot(Rtl, Store->Header, &Latest)) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 128,
                           "%s: byte offset 128: no valid commit slot "
                           "(sequence, parity or checksum)", Store->Path);
    }

    //
    // After a power cut, only what the last sync made durable: the pages
    // past it may hold zeros or older bytes, whatever the slot claims.
    //

    Store->Unsynced = 0;
    if (Latest.RecordCount > Store->DurableLimit) {
        Store->Unsynced = Latest.RecordCount - Store->DurableLimit;
        Latest.RecordCount = Store->DurableLimit;
    }

    if (Latest.RecordCount > MAX_RECORD_COUNT ||
        Latest.RecordCount > Latest.Capacity) {
        return TraceStoreValidateSlot(Store->Path, Store->Header, &Latest,
                            Store->MappedFileBytes, Error);
    }

    Needed = TRACE_STORE_HEADER_SIZE + Latest.RecordCount * Store->RecordSize;

    if (Needed > FileSize) {

        //
        // The writer may have grown the file and committed into it after
        // our look at the size: it grows the file before it commits, so a
        // second look, after the slot, sees the growth.
        //

        Status = Rtl->GetFileSize(Rtl, Store->FileHandle, &FileSize);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(Error, Status, 0, 0, "%s: %s", Store->Path,
                               RtlStatusText(Status));
        }

        if (Needed > FileSize) {
            return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                               "%s: record count %llu needs %llu bytes, "
                               "beyond the end of the file (now %llu bytes: "
                               "cut by another program?)", Store->Path,
                               Latest.RecordCount, Needed, FileSize);
        }
    }

    if (Needed > Store->MappedFileBytes) {

        //
        // The writer grew the file past our mapping: remap it whole.
        //

        Status = TraceStoreValidateSlot(Store->Path, Store->Header, &Latest, FileSize,
                              Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Status = MapForReader(Store, FileSize);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(Error, Status, 0, 0, "%s: cannot map: %s",
                               Store->Path, RtlStatusText(Status));
        }
    }

    Snapshot->Sequence = Latest.Sequence;
    Snapshot->RecordCount = Latest.RecordCount;
    Snapshot->Capacity = Latest.Capacity;
    Snapshot->Generation = Latest.Generation;
    Snapshot->FirstTs = Latest.FirstTs;
    Snapshot->LastTs = Latest.LastTs;
    Snapshot->Flags = Latest.Flags;
    Snapshot->Dropped = Latest.Dropped;
    Snapshot->Repaired = Latest.Repaired;
    Store->Snapshot = *Snapshot;

    return RTL_STATUS_OK;
}
