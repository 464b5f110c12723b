/*++

Module Name:

    TraceStoreWriter.c

Abstract:

    This module implements a store's writer up to the commit: creating the
    file, opening it for appending (with recovery to the last commit),
    growing and mapping it, and the append path (TraceStoreReserve,
    TraceStoreAppend, TraceStorePreallocate).  A store is one file of
    fixed-size records with a self-describing header, appended by one
    writer and read concurrently by any number of readers in other
    processes (see TraceStore.h for the file layout and the commit
    protocol, TraceStoreCommit.c for the commit, TraceStoreReader.c for
    readers, TraceStoreClose.c for the trim and close).

    Writer address space.  The writer reserves a large inaccessible region
    and maps the file at its start, chunk by chunk, with MAP_FIXED; records
    therefore stay contiguous and Base only moves when the file outgrows
    the reservation (then everything is remapped into one twice as large).
    Each chunk is reserved on disk with fallocate before it is mapped, so a
    write through the mapping never meets a hole (no SIGBUS on a full disk:
    the failure surfaces as an error from TraceStoreReserve instead).

    Pre-faulting.  When the writer enters the last chunk of the file, the
    next chunk is allocated and mapped.  The pages up to two windows (an
    eighth of the records so far, 64 KB to 4 MB) ahead of the writer are
    handed to Rtl->PrefaultMemoryAsync, a window at a time, so that by the
    time the writer reaches them they are present and writable: the
    append hot path takes no page faults and no system calls.  Only pages
    the writer is about to fill are faulted in: the rest of a chunk that
    the store never fills costs no page-cache pages to zero, to drop again
    when close trims the file, or to unmap.

    Write-back.  Pages are written to disk early only once the writer has
    unmapped them (DiscardBehind, at a commit: TraceStoreCommit.c), and at
    close after the whole mapping is gone: writing back a page that is
    still mapped makes the kernel write-protect it in the writer's page
    tables (a TLB shootdown on the writer's CPU, and a fault when the
    writer touches the page again), which cost a million-event import more
    than it saved at close.

Environment:

    Core: no C runtime; the OS only through PRTL (files, locks, address
    space, mapping, pre-faulting).  Called by sessions and by any writer
    through the store API; calls the header and commit-slot routines of
    TraceStoreInternal.h.

--*/

#include "TraceStore/TraceStoreInternal.h"

#define MIN_CHUNK_BYTES      (64ULL * 1024)
#define MAX_CHUNK_BYTES      (64ULL * 1024 * 1024)
#define MIN_RESERVATION      (1ULL << 30)
#define STORE_WINDOW         (64ULL * 1024)
#define MAX_STORE_WINDOW     (4ULL * 1024 * 1024)

static
RTL_STATUS
CreateStoreFile(
    PRTL Rtl,
    PCSZ Path,
    PCTRACE_STORE_SCHEMA Schema,
    PHANDLE FileHandle,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Writes a new, empty store file for Schema under a temporary name and
    renames it to Path, so that readers never see a partial header.  On
    success *FileHandle is the file, open for reading and writing (the
    caller goes on with it rather than opening Path again).

--*/
{
    RTL_STATUS Status;
    HANDLE Handle = INVALID_HANDLE_VALUE;
    TRACE_STORE_HEADER HeaderBuffer;
    PTRACE_STORE_HEADER Header = &HeaderBuffer;
    TRACE_STORE_COMMIT_SLOT Slot;
    CHAR TempPath[TRACE_PATH_SIZE + 32];
    ULONG Index;
    BOOL NameFits;
    RTL_ERROR Invalid;

    if (Schema->NumberOfColumns == 0 ||
        Schema->NumberOfColumns > TRACE_STORE_MAX_COLUMNS ||
        Schema->RecordSize == 0 ||
        Schema->RecordSize > TRACE_STORE_MAX_RECORD_SIZE) {
        return RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                           "%s: invalid schema", Path);
    }

    *FileHandle = INVALID_HANDLE_VALUE;
    Rtl->FillMemory(Header, sizeof(*Header), 0);

    Header->Magic = TRACE_STORE_MAGIC;
    Header->Version = TRACE_STORE_VERSION;
    Header->HeaderSize = TRACE_STORE_HEADER_SIZE;
    Header->RecordSize = Schema->RecordSize;
    Header->NumberOfColumns = Schema->NumberOfColumns;
    Header->TimestampColumn = TRACE_NO_COLUMN;
    NameFits = TraceStoreCopyName(Header->Name, sizeof(Header->Name), Schema->Name);
    Header->CreatedRealtimeNs = Rtl->QueryTime(Rtl, RtlClockRealtime);

    for (Index = 0; Index < Schema->NumberOfColumns; Index++) {
        Header->Columns[Index] = Schema->Columns[Index];
        if ((Schema->Columns[Index].Flags & TRACE_COLUMN_TIMESTAMP) &&
            Header->TimestampColumn == TRACE_NO_COLUMN) {
            Header->TimestampColumn = Index;
        }
    }

    Header->HeaderChecksum = TraceStoreHeaderChecksum(Rtl, Header);

    //
    // Refuse a schema that would make a file no reader accepts, before the
    // file exists.
    //

    if (!NameFits || Header->Name[0] == '\0') {
        Status = RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                             "%s: store name must be 1 to %u bytes", Path,
                             TRACE_NAME_SIZE - 1);
        goto End;
    }

    Status = TraceStoreValidateHeader(Rtl, Path, Header,
                                      TRACE_STORE_HEADER_SIZE, &Invalid);
    if (!RTL_SUCCESS(Status)) {
        Status = RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                             "invalid schema: %s", Invalid.Message);
        goto End;
    }

    //
    // The initial commit: sequence 1 lives in slot 1 (slot = sequence & 1).
    //

    Rtl->FillMemory(&Slot, sizeof(Slot), 0);
    Slot.Sequence = 1;
    Slot.FirstTs = 0;
    Slot.LastTs = 0;
    Slot.Flags = TRACE_SLOT_SORTED;
    Slot.Checksum = Rtl->Hash64(&Slot, TRACE_SLOT_CHECKSUMMED_BYTES);
    Header->Slots[1] = Slot;

    RtlFormat(TempPath, sizeof(TempPath), "%s.tmp.%u", Path,
              Rtl->GetProcessId(Rtl));

    Status = Rtl->OpenFile(Rtl, TempPath, RtlOpenAlways, &Handle);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot create: %s", TempPath,
                    RtlStatusText(Status));
        goto End;
    }

    Status = Rtl->TruncateFile(Rtl, Handle, 0);
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->WriteFile(Rtl, Handle, 0, Header, sizeof(*Header));
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot write header: %s",
                    TempPath, RtlStatusText(Status));
        Rtl->DeleteFile(Rtl, TempPath);
        goto End;
    }

    Status = Rtl->RenameFile(Rtl, TempPath, Path);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot rename into place: %s",
                    Path, RtlStatusText(Status));
        Rtl->DeleteFile(Rtl, TempPath);
        goto End;
    }

    *FileHandle = Handle;
    Handle = INVALID_HANDLE_VALUE;

End:
    if (Handle != INVALID_HANDLE_VALUE) {
        Rtl->CloseFile(Rtl, Handle);
    }

    return Status;
}

static
RTL_STATUS
MapForWriter(
    PTRACE_STORE Store,
    PCSZ Path,
    ULONGLONG FileSize,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Reserves address space for the whole file and then some, and maps the
    file at its start.  The file size is always a page multiple, since
    the writer only ever sets it to one.

Arguments:

    Store - Supplies the writer's store, its file open and locked.

    Path - Supplies the file name, for messages.

    FileSize - Supplies the size of the file.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK or the error; on failure Store->Mapping may hold the
    reservation (the caller unmaps it).

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    SIZE_T Reservation;
    PVOID Address;

    Reservation = (SIZE_T)ALIGN_UP(FileSize * 2, MIN_RESERVATION);
    Status = Rtl->ReserveAddressSpace(Rtl, Reservation, &Store->Mapping);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot reserve "
                           "address space: %s", Path, RtlStatusText(Status));
    }
    Store->MappingSize = Reservation;

    Status = Rtl->MapFile(Rtl, Store->FileHandle, 0, (SIZE_T)FileSize, TRUE,
                          Store->Mapping, &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot map: %s", Path,
                           RtlStatusText(Status));
    }
    Store->MappedFileBytes = (SIZE_T)FileSize;
    Store->Header = (PTRACE_STORE_HEADER)Store->Mapping;

    return RTL_STATUS_OK;
}

static
VOID
ResumeAfterSlot(
    PTRACE_STORE Store,
    const TRACE_STORE_COMMIT_SLOT *Latest,
    ULONGLONG FileSize
    )
/*++

Routine Description:

    Sets a writer's counts and ts state from the latest valid commit: the
    writer goes on after the committed records (recovery: everything past
    them is discarded) with the next generation.

--*/
{
    Store->RecordSize = Store->Header->RecordSize;
    Store->Base = (PBYTE)Store->Mapping + Store->Header->HeaderSize;
    TraceStoreSetTimestampOffset(Store);

    //
    // Recovery: everything past the committed count is discarded.
    //

    Store->Capacity = (FileSize - Store->Header->HeaderSize) /
                      Store->RecordSize;
    Store->GrowAtRecords = 0;
    Store->ChunkAtRecords = 0;
    Store->PrefaultedBytes = ALIGN_DOWN(TRACE_STORE_HEADER_SIZE +
                                        Latest->RecordCount *
                                        Store->RecordSize, RTL_PAGE_SIZE);
    Store->ReservedCount = Latest->RecordCount;
    Store->CommittedCount = Latest->RecordCount;
    Store->Sequence = Latest->Sequence;
    Store->Generation = Latest->Generation + 1;
    Store->FirstTs = Latest->FirstTs;
    Store->LastTs = Latest->LastTs;
    Store->SlotFlags = Latest->Flags;
    Store->Dropped = Latest->Dropped;
    Store->Repaired = Latest->Repaired;
}

static
RTL_STATUS
OpenForAppending(
    PRTL Rtl,
    PCSZ Path,
    PCTRACE_STORE_SCHEMA Schema,
    ULONGLONG Limit,
    PULONGLONG Dropped,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens a store file for appending and resumes after its latest commit,
    which it does not yet publish again: TraceStoreOpenWriter, and
    TraceStoreSettle with no Schema (an existing file of any layout).
    Of the committed records at most Limit are kept; the others are added
    to *Dropped.

--*/
{
    RTL_STATUS Status;
    ULONGLONG FileSize;
    TRACE_STORE_COMMIT_SLOT Latest;

    TraceStoreInitialize(Rtl, Path, Store);
    Store->Writable = TRUE;

    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadWrite, &Store->FileHandle);
    if (Status == RTL_STATUS_NOT_FOUND && Schema != NULL) {
        Status = CreateStoreFile(Rtl, Path, Schema, &Store->FileHandle,
                                 Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot open: %s", Path,
                           RtlStatusText(Status));
    }

    Status = Rtl->LockFile(Rtl, Store->FileHandle, TRUE);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                    Status == RTL_STATUS_LOCKED ?
                    "another process is writing this store" :
                    RtlStatusText(Status));
        goto Error;
    }

    Status = TraceStoreCheckFileSize(Store, Path, &FileSize, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = MapForWriter(Store, Path, FileSize, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = TraceStoreValidateHeader(Rtl, Path, Store->Header, FileSize,
                                      Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    if (Schema != NULL && !TraceStoreSchemaMatches(Store->Header, Schema)) {
        Status = RtlSetError(Error, RTL_STATUS_BAD_VERSION, 0, 16,
                             "%s: the store's record layout differs from "
                             "this build's '%s' (written by another "
                             "version?)", Path, Schema->Name);
        goto Error;
    }

    if (!TraceStoreReadLatestSlot(Rtl, Store->Header, &Latest)) {
        Status = RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 128,
                             "%s: byte offset 128: no valid commit slot "
                             "(sequence, parity or checksum)", Path);
        goto Error;
    }

    //
    // After a power cut (TraceStoreSettle) the slot can count records the
    // disk never got, even past the end of the file (its growth had not
    // reached the file system's journal): they are not checked, only
    // dropped.
    //

    if (Latest.RecordCount > Limit) {
        *Dropped += Latest.RecordCount - Limit;
        Latest.RecordCount = Limit;
    }

    Status = TraceStoreValidateSlot(Path, Store->Header, &Latest, FileSize, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    TraceStoreCopyName(Store->Name, sizeof(Store->Name),
                       Schema != NULL ? Schema->Name : Store->Header->Name);
    ResumeAfterSlot(Store, &Latest, FileSize);
    return RTL_STATUS_OK;

Error:
    TraceStoreReleaseFile(Store);
    return Status;
}

RTL_STATUS
TraceStoreOpenWriter(
    PRTL Rtl,
    PCSZ Path,
    PCTRACE_STORE_SCHEMA Schema,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens (creating if needed) a store for appending.  See TraceStore.h.

Arguments:

    Rtl - Supplies the RTL.

    Path - Supplies the store file path.

    Schema - Supplies the record type; an existing file must match it.

    Store - Receives the open store.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_LOCKED if another writer holds the store, or
    another error; on failure Store holds nothing that needs closing.

--*/
{
    RTL_STATUS Status;
    ULONGLONG Dropped = 0;

    Status = OpenForAppending(Rtl, Path, Schema, TRACE_COMMIT_ALL, &Dropped,
                              Store, Error);
    if (RTL_SUCCESS(Status)) {
        TraceStorePublishSlot(Store, Store->CommittedCount, Store->Capacity);
    }

    return Status;
}

RTL_STATUS
TraceStoreSettle(
    PRTL Rtl,
    PCSZ Path,
    ULONGLONG Limit,
    PULONGLONG RecordCount,
    PULONGLONG Dropped,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    See TraceStore.h.  Used when a session writer opens (TraceDurable.c):
    after a power cut, the records past the last sync are rolled back for
    good; in any case the file is flushed, so that the count it returns
    is durable.  The new last ts is the last kept record's when the store
    is sorted; otherwise the slot keeps its wider bounds.

Return Value:

    RTL_STATUS_OK, or the error opening or flushing the file.

--*/
{
    RTL_STATUS Status;
    TRACE_STORE Store;
    ULONGLONG Before = *Dropped;

    Status = OpenForAppending(Rtl, Path, NULL, Limit, Dropped, &Store, Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (*Dropped != Before) {
        if (Limit == 0) {
            Store.FirstTs = 0;
            Store.LastTs = 0;
        } else if (Store.TimestampOffset != TRACE_NO_COLUMN &&
                   (Store.SlotFlags & TRACE_SLOT_SORTED)) {
            Rtl->CopyMemory(&Store.LastTs, Store.Base + (Limit - 1) *
                            Store.RecordSize + Store.TimestampOffset,
                            sizeof(Store.LastTs));
        }

        //
        // Only a store rolled back is published again: every writer open
        // settles every store, most of them unchanged.
        //

        TraceStorePublishSlot(&Store, Store.CommittedCount, Store.Capacity);
    }

    *RecordCount = Store.CommittedCount;

    Status = TraceStoreClose(&Store);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot flush: %s", Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
GrowStore(
    PTRACE_STORE Store,
    ULONGLONG NeededRecords
    )
/*++

Routine Description:

    Extends the file so that it holds at least NeededRecords plus one
    chunk, reserves the disk blocks, maps the new part, and pre-faults it
    (asynchronously when the hosted edge provides a worker).  Chunks double
    from 64 KB up to 64 MB.  If the disk has no room for the growth, half
    as much is tried, down to only the pages NeededRecords need.

Arguments:

    Store - Supplies the writer's store.

    NeededRecords - Supplies the number of records that must fit.

Return Value:

    RTL_STATUS_OK, or the error from the file system (for example
    RTL_STATUS_NO_SPACE); on failure the store is unchanged.

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    ULONGLONG OldSize = Store->MappedFileBytes;
    ULONGLONG NewSize = OldSize;
    ULONGLONG Chunk;
    ULONGLONG Needed;
    ULONGLONG Minimum;
    ULONGLONG Smaller;
    PVOID Address;

    if (NeededRecords > MAX_RECORD_COUNT) {
        return RTL_STATUS_TOO_LARGE;
    }

    Chunk = OldSize;
    if (Chunk < MIN_CHUNK_BYTES) {
        Chunk = MIN_CHUNK_BYTES;
    }
    if (Chunk > MAX_CHUNK_BYTES) {
        Chunk = MAX_CHUNK_BYTES;
    }
    if (Store->DiscardBehind && Chunk > TRACE_DISCARD_BEHIND) {
        Chunk = TRACE_DISCARD_BEHIND;
    }
    if (Store->LargePages && Chunk < TRACE_LARGE_PAGE) {
        Chunk = TRACE_LARGE_PAGE;
    }

    Needed = TRACE_STORE_HEADER_SIZE + NeededRecords * Store->RecordSize;
    while (NewSize < Needed + Chunk) {
        NewSize += Chunk;
    }
    NewSize = ALIGN_UP(NewSize, Store->LargePages ? TRACE_LARGE_PAGE
                                                  : RTL_PAGE_SIZE);

    //
    // Outgrew the reservation: move the whole file to a new one twice the
    // size.  Base changes; callers address records by index.
    //

    if (NewSize > Store->MappingSize) {
        SIZE_T Reservation = (SIZE_T)ALIGN_UP(NewSize * 2, MIN_RESERVATION);
        PVOID NewMapping;

        Status = Rtl->ReserveAddressSpace(Rtl, Reservation, &NewMapping);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Status = Rtl->MapFile(Rtl, Store->FileHandle, 0, (SIZE_T)OldSize,
                              TRUE, NewMapping, &Address);
        if (!RTL_SUCCESS(Status)) {
            Rtl->Unmap(Rtl, NewMapping, Reservation);
            return Status;
        }

        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
        Store->Mapping = NewMapping;
        Store->MappingSize = Reservation;
        Store->Header = (PTRACE_STORE_HEADER)NewMapping;
        Store->Base = (PBYTE)NewMapping + TRACE_STORE_HEADER_SIZE;

        //
        // The pages the writer has yet to fill are in the page cache but
        // not in the new page tables: fault them in again from the
        // writer's position.
        //

        Store->PrefaultedBytes = ALIGN_DOWN(TRACE_STORE_HEADER_SIZE +
                                            Store->ReservedCount *
                                            Store->RecordSize,
                                            RTL_PAGE_SIZE);
    }

    Status = Rtl->GrowFile(Rtl, Store->FileHandle, NewSize);

    //
    // The disk has no room for that: try half the growth, and half again,
    // down to the pages the records asked for need, so that a disk fills
    // to its last page before the writer reports it full.  Growth found
    // this way is all used before the next try (Chunk 0: no growing
    // ahead), so a nearly full disk costs a few calls per halving of its
    // free space, never one per reservation.
    //

    Minimum = ALIGN_UP(Needed, RTL_PAGE_SIZE);
    while (Status == RTL_STATUS_NO_SPACE) {
        Smaller = OldSize + (((NewSize - OldSize) / 2) &
                             ~(ULONGLONG)(RTL_PAGE_SIZE - 1));
        if (Smaller < Minimum) {
            Smaller = Minimum;
        }
        if (Smaller >= NewSize || Smaller <= OldSize) {
            break;
        }
        NewSize = Smaller;
        Chunk = 0;
        Status = Rtl->GrowFile(Rtl, Store->FileHandle, NewSize);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Status = Rtl->MapFile(Rtl, Store->FileHandle, OldSize,
                          (SIZE_T)(NewSize - OldSize), TRUE,
                          (PBYTE)Store->Mapping + OldSize, &Address);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Store->MappedFileBytes = (SIZE_T)NewSize;
    Store->Capacity = (NewSize - TRACE_STORE_HEADER_SIZE) / Store->RecordSize;

    //
    // The whole mapping, so that the first chunks, mapped before the
    // writer asked, and a moved reservation get the hint too.
    //

    if (Store->LargePages) {
        Rtl->PreferLargePages(Rtl, Store->Mapping, (SIZE_T)NewSize);
    }

    //
    // Grow again when the writer enters the last chunk.  NewSize is at
    // least Needed + Chunk, so this is never below what was just asked for.
    // (AdvanceWriter pre-faults the new pages as the writer nears them.)
    //

    Store->ChunkAtRecords = (NewSize - Chunk - TRACE_STORE_HEADER_SIZE) /
                            Store->RecordSize;

    return RTL_STATUS_OK;
}

static
VOID
AdvanceWriter(
    PTRACE_STORE Store,
    ULONGLONG Needed
    )
/*++

Routine Description:

    Keeps the pages up to two windows ahead of a writer that will have
    reserved Needed records pre-faulted, and sets GrowAtRecords to the
    next reservation that needs this or a new chunk.  The requests are
    hints to the hosted edge's worker (nothing happens without one).

    A window is an eighth of what the writer has filled, from 64 KB up to
    4 MB, so that a fast writer of a large store makes few requests, and
    a store that stops soon after a growth has little pre-faulted that
    close must trim.  A store that unmaps behind its writer keeps no more
    than TRACE_DISCARD_BEHIND pre-faulted ahead (its chunks' size), so its
    resident set stays as bounded as before.

--*/
{
    PRTL Rtl = Store->Rtl;
    ULONGLONG Position = TRACE_STORE_HEADER_SIZE +
                         Needed * Store->RecordSize;
    ULONGLONG Window = Position / 8;
    ULONGLONG Ahead;
    ULONGLONG Next;

    if (Window < STORE_WINDOW) {
        Window = STORE_WINDOW;
    }
    if (Window > MAX_STORE_WINDOW) {
        Window = MAX_STORE_WINDOW;
    }
    if (Store->DiscardBehind && Window > TRACE_DISCARD_BEHIND / 2) {
        Window = TRACE_DISCARD_BEHIND / 2;
    }
    Window = ALIGN_UP(Window, RTL_PAGE_SIZE);

    Ahead = ALIGN_UP(Position + 2 * Window, RTL_PAGE_SIZE);
    if (Ahead > Store->MappedFileBytes) {
        Ahead = Store->MappedFileBytes;
    }
    if (Ahead > Store->PrefaultedBytes) {
        Rtl->PrefaultMemoryAsync(Rtl, (PBYTE)Store->Mapping +
                                      Store->PrefaultedBytes,
                                 (SIZE_T)(Ahead - Store->PrefaultedBytes));
        Store->PrefaultedBytes = Ahead;
    }

    //
    // Come back when the writer enters the last pre-faulted window, or at
    // the last chunk.  The pre-faulted end is at least two windows past
    // Position unless it is the end of the mapping, so this is not below
    // Needed.
    //

    Next = Store->ChunkAtRecords;
    if (Store->PrefaultedBytes < Store->MappedFileBytes) {
        ULONGLONG AtWindow = (Store->PrefaultedBytes - Window -
                              TRACE_STORE_HEADER_SIZE) / Store->RecordSize;
        if (AtWindow < Next) {
            Next = AtWindow;
        }
    }
    Store->GrowAtRecords = Next;
}

RTL_STATUS
TraceStoreReserve(
    PTRACE_STORE Store,
    ULONG Count,
    PULONGLONG Index
    )
/*++

Routine Description:

    Hands out Count records at the end of the store.  The hot path is a
    comparison and an addition; the file grows a chunk ahead of the writer
    (when it enters the last chunk), so the records handed out are already
    mapped and, with an asynchronous prefault worker, already faulted in.

Arguments:

    Store - Supplies the writer's store.

    Count - Supplies the number of records wanted.

    Index - Receives the index of the first.

Return Value:

    RTL_STATUS_OK, or the error from growing the file (nothing reserved).

--*/
{
    RTL_STATUS Status;
    ULONGLONG Needed = Store->ReservedCount + Count;

    if (Needed > Store->GrowAtRecords) {
        if (Needed > Store->ChunkAtRecords) {
            Status = GrowStore(Store, Needed);
            if (!RTL_SUCCESS(Status)) {
                if (Needed > Store->Capacity) {
                    return Status;
                }

                //
                // Failing to grow *ahead* is not yet an error: the records
                // asked for fit.  Try again when they no longer do (not at
                // every reservation: a full disk would cost a system call
                // per record), and report it then.
                //

                Store->ChunkAtRecords = Store->Capacity;
            }
        }
        AdvanceWriter(Store, Needed);
    }

    *Index = Store->ReservedCount;
    Store->ReservedCount = Needed;

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStorePreallocate(
    PTRACE_STORE Store,
    ULONGLONG Records
    )
/*++

Routine Description:

    Makes room for Records more records beyond those reserved: reserves the
    disk blocks, maps them, and faults them in now, on the caller's thread.
    A writer that knows how much is coming (a recorder with a buffer size,
    a benchmark) calls this before it starts, so that appending takes no
    page faults at all.

Arguments:

    Store - Supplies the writer's store.

    Records - Supplies the number of records to make room for.

Return Value:

    RTL_STATUS_OK, or the error from growing the file (for example
    RTL_STATUS_NO_SPACE); nothing is reserved either way.

--*/
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;
    SIZE_T OldSize = Store->MappedFileBytes;
    ULONGLONG Needed = Store->ReservedCount + Records;

    if (!Store->Writable || Records > MAX_RECORD_COUNT) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Needed > Store->Capacity) {
        Status = GrowStore(Store, Needed);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    //
    // Fault in everything from the writer's position to the end, whether
    // it was just added or was there already.
    //

    if (OldSize > TRACE_STORE_HEADER_SIZE +
                  Store->ReservedCount * Store->RecordSize) {
        OldSize = (SIZE_T)(TRACE_STORE_HEADER_SIZE +
                           Store->ReservedCount * Store->RecordSize);
    }
    OldSize &= ~(SIZE_T)(RTL_PAGE_SIZE - 1);
    Rtl->PrefaultMemory(Rtl, (PBYTE)Store->Mapping + OldSize,
                        Store->MappedFileBytes - OldSize);
    Store->PrefaultedBytes = Store->MappedFileBytes;
    AdvanceWriter(Store, Store->ReservedCount);

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStoreAppend(
    PTRACE_STORE Store,
    PCVOID Record,
    PULONGLONG Index
    )
{
    RTL_STATUS Status;
    ULONGLONG First;

    Status = TraceStoreReserve(Store, 1, &First);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // Records are small: copying them by words beats a call to the RTL's
    // rep movsb, whose start-up cost is that of the whole copy.
    //

    if ((Store->RecordSize & 7) == 0 && Store->RecordSize <= 128) {
        PBYTE Target = Store->Base + First * Store->RecordSize;
        const BYTE *Source = (const BYTE *)Record;
        ULONG Offset;

        for (Offset = 0; Offset < Store->RecordSize; Offset += 8) {
            __builtin_memcpy(Target + Offset, Source + Offset, 8);
        }
    } else {
        Store->Rtl->CopyMemory(Store->Base + First * Store->RecordSize,
                               Record, Store->RecordSize);
    }
    if (Index != NULL) {
        *Index = First;
    }

    return RTL_STATUS_OK;
}
