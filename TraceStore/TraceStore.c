/*++

Module Name:

    TraceStore.c

Abstract:

    This module implements a store: one file of fixed-size records with a
    self-describing header, appended by one writer and read concurrently by
    any number of readers in other processes (see TraceStore.h for the file
    layout and the commit protocol).

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
    unmapped them (DiscardBehind), and at close after the whole mapping
    is gone: writing back a page that is still mapped makes the kernel
    write-protect it in the writer's page tables (a TLB shootdown on the
    writer's CPU, and a fault when the writer touches the page again),
    which cost a million-event import more than it saved at close.

    Readers map the whole file read-only and remap when a snapshot's count
    passes their mapping.

--*/

#include "TraceStore.h"

#define MIN_CHUNK_BYTES      (64ULL * 1024)
#define MAX_CHUNK_BYTES      (64ULL * 1024 * 1024)
#define MIN_RESERVATION      (1ULL << 30)
#define STORE_DISCARD_LAG    (512ULL * 1024)
#define STORE_WINDOW         (64ULL * 1024)
#define MAX_STORE_WINDOW     (4ULL * 1024 * 1024)
#define SLOT_READ_RETRIES    1000
#define SNAPSHOT_RETRIES     1000
#define MAX_RECORD_COUNT     (1ULL << 48)

static const BYTE ColumnTypeWidth[TraceColumnTypeMaximum] = {
    0,  // Invalid
    4,  // Int32
    4,  // UInt32
    8,  // Int64
    8,  // UInt64
    2,  // UInt16
    1,  // UInt8
    8,  // Double
};

static
BOOL
CopyName(
    PCHAR Destination,
    SIZE_T Size,
    PCSZ Source
    )
{
    SIZE_T Index;

    for (Index = 0; Index + 1 < Size && Source[Index] != '\0'; Index++) {
        Destination[Index] = Source[Index];
    }
    Destination[Index] = '\0';

    return Source[Index] == '\0';
}

BOOL
TraceJoinPath(
    PCHAR Buffer,
    SIZE_T BufferSize,
    PCSZ Directory,
    PCSZ Name,
    PCSZ Suffix
    )
{
    SIZE_T Length;

    Length = RtlFormat(Buffer, BufferSize, "%s/%s%s", Directory, Name,
                       Suffix);

    return Length + 1 < BufferSize;
}

static
ULONGLONG
ComputeHeaderChecksum(
    PRTL Rtl,
    const TRACE_STORE_HEADER *Header
    )
/*++

Routine Description:

    Returns the XXH3-64 of the header page with HeaderChecksum and the two
    commit slots zeroed: everything that is fixed at creation.

--*/
{
    TRACE_STORE_HEADER Copy;

    Rtl->CopyMemory(&Copy, Header, sizeof(Copy));
    Copy.HeaderChecksum = 0;
    Rtl->FillMemory(Copy.Slots, sizeof(Copy.Slots), 0);

    return Rtl->Hash64(&Copy, sizeof(Copy));
}

BOOL
TraceStoreReadSlot(
    PRTL Rtl,
    const volatile TRACE_STORE_COMMIT_SLOT *Slot,
    PTRACE_STORE_COMMIT_SLOT Copy
    )
/*++

Routine Description:

    Reads a commit slot with the sequence-retry protocol: the slot is
    valid if its Sequence is non-zero and unchanged across the copy
    (acquire ordering on the first load and a fence before the second), and
    the checksum of the copy matches.

Arguments:

    Rtl - Supplies the RTL.

    Slot - Supplies the slot in the mapped header.

    Copy - Receives the slot's contents.

Return Value:

    TRUE if the copy is a valid, complete commit.

--*/
{
    ULONG Try;

    for (Try = 0; Try < SLOT_READ_RETRIES; Try++) {
        ULONGLONG First;
        ULONGLONG Second;

        First = __atomic_load_n(&Slot->Sequence, __ATOMIC_ACQUIRE);
        if (First == 0) {
            return FALSE;
        }

        Copy->Sequence = First;
        Copy->RecordCount = Slot->RecordCount;
        Copy->Capacity = Slot->Capacity;
        Copy->Generation = Slot->Generation;
        Copy->Repaired = Slot->Repaired;
        Copy->FirstTs = Slot->FirstTs;
        Copy->LastTs = Slot->LastTs;
        Copy->Flags = Slot->Flags;
        Copy->Dropped = Slot->Dropped;
        Copy->Checksum = Slot->Checksum;

        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        Second = __atomic_load_n(&Slot->Sequence, __ATOMIC_RELAXED);

        if (First != Second) {
            continue;
        }

        return Rtl->Hash64(Copy, TRACE_SLOT_CHECKSUMMED_BYTES) ==
               Copy->Checksum;
    }

    return FALSE;
}

static
BOOL
ReadLatestSlot(
    PRTL Rtl,
    const volatile TRACE_STORE_HEADER *Header,
    PTRACE_STORE_COMMIT_SLOT Latest
    )
{
    ULONG Try;

    for (Try = 0; Try < SNAPSHOT_RETRIES; Try++) {
        TRACE_STORE_COMMIT_SLOT Slot0;
        TRACE_STORE_COMMIT_SLOT Slot1;
        BOOL Valid0;
        BOOL Valid1;

        Valid0 = TraceStoreReadSlot(Rtl, &Header->Slots[0], &Slot0) &&
                 (Slot0.Sequence & 1) == 0;
        Valid1 = TraceStoreReadSlot(Rtl, &Header->Slots[1], &Slot1) &&
                 (Slot1.Sequence & 1) == 1;

        if (Valid0 && (!Valid1 || Slot0.Sequence > Slot1.Sequence)) {
            *Latest = Slot0;
            return TRUE;
        }

        if (Valid1) {
            *Latest = Slot1;
            return TRUE;
        }
    }

    return FALSE;
}

RTL_STATUS
TraceStoreValidateHeader(
    PRTL Rtl,
    PCSZ Path,
    const TRACE_STORE_HEADER *Header,
    ULONGLONG FileSize,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Checks everything in a header page that is fixed at creation, so that
    no later access through a descriptor can leave the record.

Arguments:

    Rtl - Supplies the RTL.

    Path - Supplies the file name, for messages.

    Header - Supplies the header page image.

    FileSize - Supplies the size of the file.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, or RTL_STATUS_CORRUPT / BAD_FORMAT / BAD_VERSION.

--*/
{
    ULONG Index;

    if (FileSize < TRACE_STORE_HEADER_SIZE) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                           "%s: truncated store header (%llu bytes, a "
                           "header is %u)", Path, FileSize,
                           TRACE_STORE_HEADER_SIZE);
    }

    if (Header->Magic != TRACE_STORE_MAGIC) {
        return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: byte offset 0: not a tracestore store (bad "
                           "magic)", Path);
    }

    if (Header->Version != TRACE_STORE_VERSION) {
        return RtlSetError(Error, RTL_STATUS_BAD_VERSION, 0, 8,
                           "%s: byte offset 8: store format version %u, "
                           "this build reads version %u", Path,
                           Header->Version,
                           TRACE_STORE_VERSION);
    }

    if (ComputeHeaderChecksum(Rtl, Header) != Header->HeaderChecksum) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 120,
                           "%s: byte offset 120: corrupt store header "
                           "(checksum mismatch)", Path);
    }

    if (Header->HeaderSize != TRACE_STORE_HEADER_SIZE ||
        Header->RecordSize == 0 ||
        Header->RecordSize > TRACE_STORE_MAX_RECORD_SIZE ||
        Header->NumberOfColumns == 0 ||
        Header->NumberOfColumns > TRACE_STORE_MAX_COLUMNS ||
        Header->Name[TRACE_NAME_SIZE - 1] != '\0' ||
        Header->Name[0] == '\0') {
        ULONG Offset = FIELD_OFFSET(TRACE_STORE_HEADER, Name);

        if (Header->HeaderSize != TRACE_STORE_HEADER_SIZE) {
            Offset = FIELD_OFFSET(TRACE_STORE_HEADER, HeaderSize);
        } else if (Header->RecordSize == 0 ||
                   Header->RecordSize > TRACE_STORE_MAX_RECORD_SIZE) {
            Offset = FIELD_OFFSET(TRACE_STORE_HEADER, RecordSize);
        } else if (Header->NumberOfColumns == 0 ||
                   Header->NumberOfColumns > TRACE_STORE_MAX_COLUMNS) {
            Offset = FIELD_OFFSET(TRACE_STORE_HEADER, NumberOfColumns);
        }
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Offset,
                           "%s: byte offset %u: corrupt store header "
                           "(header size %u, record size %u, %u columns%s)",
                           Path, Offset, Header->HeaderSize,
                           Header->RecordSize, Header->NumberOfColumns,
                           Offset == FIELD_OFFSET(TRACE_STORE_HEADER, Name) ?
                           ", bad store name" : "");
    }

    for (Index = 0; Index < Header->NumberOfColumns; Index++) {
        const TRACE_COLUMN_DESCRIPTOR *Column = &Header->Columns[Index];
        ULONGLONG End = (ULONGLONG)Column->Offset + Column->Width;
        ULONG Offset = FIELD_OFFSET(TRACE_STORE_HEADER, Columns) +
                       Index * sizeof(*Column);

        if (Column->Name[TRACE_NAME_SIZE - 1] != '\0' ||
            Column->Name[0] == '\0' ||
            Column->Description[TRACE_DESCRIPTION_SIZE - 1] != '\0' ||
            Column->Type == TraceColumnInvalid ||
            Column->Type >= TraceColumnTypeMaximum ||
            Column->Width != ColumnTypeWidth[Column->Type] ||
            (Column->Flags & ~TRACE_COLUMN_VALID_FLAGS) != 0 ||
            ((Column->Flags & TRACE_COLUMN_STRING_ID) &&
             Column->Type != TraceColumnUInt32) ||
            ((Column->Flags & TRACE_COLUMN_TIMESTAMP) &&
             Column->Type != TraceColumnInt64)) {
            return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s: byte offset %u: corrupt column "
                               "descriptor %u", Path, Offset, Index);
        }

        if (End > Header->RecordSize) {
            return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s: byte offset %u: record size mismatch: "
                               "column '%s' ends at byte %llu of a %u-byte "
                               "record", Path, Offset, Column->Name, End,
                               Header->RecordSize);
        }
    }

    if (Header->TimestampColumn != TRACE_NO_COLUMN &&
        (Header->TimestampColumn >= Header->NumberOfColumns ||
         !(Header->Columns[Header->TimestampColumn].Flags &
           TRACE_COLUMN_TIMESTAMP))) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 28,
                           "%s: byte offset 28: corrupt store header "
                           "(timestamp column %u)", Path,
                           Header->TimestampColumn);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ValidateSlot(
    PCSZ Path,
    const TRACE_STORE_HEADER *Header,
    const TRACE_STORE_COMMIT_SLOT *Slot,
    ULONGLONG FileSize,
    PRTL_ERROR Error
    )
{
    ULONGLONG Needed;

    if (Slot->RecordCount > MAX_RECORD_COUNT ||
        Slot->RecordCount > Slot->Capacity) {
        ULONG Offset = FIELD_OFFSET(TRACE_STORE_HEADER, Slots) +
                       (ULONG)(Slot->Sequence & 1) * sizeof(*Slot) +
                       FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, RecordCount);
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Offset,
                           "%s: byte offset %u: corrupt commit slot (count "
                           "%llu, capacity %llu)", Path, Offset,
                           Slot->RecordCount, Slot->Capacity);
    }

    Needed = Header->HeaderSize + Slot->RecordCount * Header->RecordSize;
    if (Needed > FileSize) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                           "%s: record count %llu needs %llu bytes, beyond "
                           "the end of the file (%llu bytes)", Path,
                           Slot->RecordCount, Needed, FileSize);
    }

    return RTL_STATUS_OK;
}

static
VOID
PublishSlot(
    PTRACE_STORE Store,
    ULONGLONG RecordCount,
    ULONGLONG Capacity
    )
/*++

Routine Description:

    Writes the next commit into the slot that does not hold the latest one,
    with the ordering readers rely on:

        1. Sequence = 0 (the slot is being written), then a release fence so
           that this store is visible before any of the fields change.
        2. The fields and their checksum.
        3. Sequence = N with release ordering, which also orders every
           record written before this call ahead of the new count.

--*/
{
    PRTL Rtl = Store->Rtl;
    TRACE_STORE_COMMIT_SLOT New;
    volatile TRACE_STORE_COMMIT_SLOT *Slot;
    ULONGLONG Sequence = Store->Sequence + 1;

    New.Sequence = Sequence;
    New.RecordCount = RecordCount;
    New.Capacity = Capacity;
    New.Generation = (ULONG)Store->Generation;
    New.Repaired = Store->Repaired;
    New.FirstTs = Store->FirstTs;
    New.LastTs = Store->LastTs;
    New.Flags = Store->SlotFlags;
    New.Dropped = Store->Dropped;
    New.Checksum = Rtl->Hash64(&New, TRACE_SLOT_CHECKSUMMED_BYTES);

    Slot = &Store->Header->Slots[Sequence & 1];

    __atomic_store_n(&Slot->Sequence, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);

    Slot->RecordCount = New.RecordCount;
    Slot->Capacity = New.Capacity;
    Slot->Generation = New.Generation;
    Slot->Repaired = New.Repaired;
    Slot->FirstTs = New.FirstTs;
    Slot->LastTs = New.LastTs;
    Slot->Flags = New.Flags;
    Slot->Dropped = New.Dropped;
    Slot->Checksum = New.Checksum;

    __atomic_store_n(&Slot->Sequence, Sequence, __ATOMIC_RELEASE);

    Store->Sequence = Sequence;
    Store->Snapshot.Sequence = Sequence;
    Store->Snapshot.RecordCount = RecordCount;
    Store->Snapshot.Capacity = Capacity;
    Store->Snapshot.Generation = Store->Generation;
    Store->Snapshot.FirstTs = Store->FirstTs;
    Store->Snapshot.LastTs = Store->LastTs;
    Store->Snapshot.Flags = Store->SlotFlags;
    Store->Snapshot.Dropped = Store->Dropped;
    Store->Snapshot.Repaired = Store->Repaired;
}

static
VOID
DiscardBehind(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Drops the mapping of records that lie more than STORE_DISCARD_LAG
    bytes behind the last reserved one, in steps of at least half of
    TRACE_DISCARD_BEHIND, if the store asks for it, and starts writing
    them back.  The records stay in the file and the page cache, so this
    includes reserved records that are not committed yet (a KVM exit or a
    span waiting for its end): a later write to one faults its page back
    in from the page cache.

    The lag is short (512 KB) so that most of a store of a few megabytes
    (a fresh capture's) is written back during the import, unmapped, and
    close waits for little; the steps are long so that a large import
    makes few such calls.

--*/
{
    ULONGLONG Reserved = Store->ReservedCount * Store->RecordSize;

    if (!Store->DiscardBehind ||
        Reserved < Store->DiscardedBytes + STORE_DISCARD_LAG +
                   TRACE_DISCARD_BEHIND / 2) {
        return;
    }

    Store->Rtl->DiscardMemory(Store->Rtl, Store->Base + Store->DiscardedBytes,
                              (SIZE_T)(Reserved - STORE_DISCARD_LAG -
                                       Store->DiscardedBytes));

    //
    // Start writing them to disk now (on a worker, if the edge has one)
    // rather than all at close: unmapped, they need no write-protecting.
    // A record still open (not committed) is simply written again when it
    // changes.
    //

    Store->Rtl->WriteBackAsync(Store->Rtl, Store->FileHandle,
                               TRACE_STORE_HEADER_SIZE +
                               Store->DiscardedBytes,
                               Reserved - STORE_DISCARD_LAG -
                               Store->DiscardedBytes);
    Store->DiscardedBytes = Reserved - STORE_DISCARD_LAG;
}

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
    NameFits = CopyName(Header->Name, sizeof(Header->Name), Schema->Name);
    Header->CreatedRealtimeNs = Rtl->QueryTime(Rtl, RtlClockRealtime);

    for (Index = 0; Index < Schema->NumberOfColumns; Index++) {
        Header->Columns[Index] = Schema->Columns[Index];
        if ((Schema->Columns[Index].Flags & TRACE_COLUMN_TIMESTAMP) &&
            Header->TimestampColumn == TRACE_NO_COLUMN) {
            Header->TimestampColumn = Index;
        }
    }

    Header->HeaderChecksum = ComputeHeaderChecksum(Rtl, Header);

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

BOOL
TraceStoreSchemaMatches(
    const TRACE_STORE_HEADER *Header,
    PCTRACE_STORE_SCHEMA Schema
    )
{
    ULONG Index;

    if (Header->RecordSize != Schema->RecordSize ||
        Header->NumberOfColumns != Schema->NumberOfColumns) {
        return FALSE;
    }

    for (Index = 0; Index < Schema->NumberOfColumns; Index++) {
        const TRACE_COLUMN_DESCRIPTOR *Left = &Header->Columns[Index];
        const TRACE_COLUMN_DESCRIPTOR *Right = &Schema->Columns[Index];
        if (!RtlStringEqual(Left->Name, Right->Name) ||
            Left->Type != Right->Type ||
            Left->Offset != Right->Offset ||
            Left->Width != Right->Width ||
            Left->Flags != Right->Flags) {
            return FALSE;
        }
    }

    return TRUE;
}

static
VOID
SetTimestampOffset(
    PTRACE_STORE Store
    )
{
    const TRACE_STORE_HEADER *Header = Store->Header;

    Store->TimestampOffset = TRACE_NO_COLUMN;
    if (Header->TimestampColumn != TRACE_NO_COLUMN) {
        Store->TimestampOffset =
            Header->Columns[Header->TimestampColumn].Offset;
    }
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
    ULONGLONG FileSize;
    TRACE_STORE_COMMIT_SLOT Latest;
    SIZE_T Reservation;
    PVOID Address;

    Rtl->FillMemory(Store, sizeof(*Store), 0);
    Store->Rtl = Rtl;
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->Writable = TRUE;
    Store->CommitLimit = TRACE_COMMIT_ALL;
    CopyName(Store->Path, sizeof(Store->Path), Path);
    CopyName(Store->Name, sizeof(Store->Name), Schema->Name);

    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadWrite, &Store->FileHandle);
    if (Status == RTL_STATUS_NOT_FOUND) {
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

    Status = Rtl->GetFileSize(Rtl, Store->FileHandle, &FileSize);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                    RtlStatusText(Status));
        goto Error;
    }

    if (FileSize < TRACE_STORE_HEADER_SIZE) {
        Status = RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                             "%s: truncated store header (%llu bytes, a "
                             "header is %u)", Path, FileSize,
                             TRACE_STORE_HEADER_SIZE);
        goto Error;
    }

    //
    // Reserve address space for the whole file and then some, and map the
    // file at its start.  The file size is always a page multiple, since
    // the writer only ever sets it to one.
    //

    Reservation = (SIZE_T)ALIGN_UP(FileSize * 2, MIN_RESERVATION);
    Status = Rtl->ReserveAddressSpace(Rtl, Reservation, &Store->Mapping);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot reserve address "
                    "space: %s", Path, RtlStatusText(Status));
        goto Error;
    }
    Store->MappingSize = Reservation;

    Status = Rtl->MapFile(Rtl, Store->FileHandle, 0, (SIZE_T)FileSize, TRUE,
                          Store->Mapping, &Address);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: cannot map: %s", Path,
                    RtlStatusText(Status));
        goto Error;
    }
    Store->MappedFileBytes = (SIZE_T)FileSize;
    Store->Header = (PTRACE_STORE_HEADER)Store->Mapping;

    Status = TraceStoreValidateHeader(Rtl, Path, Store->Header, FileSize,
                                      Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    if (!TraceStoreSchemaMatches(Store->Header, Schema)) {
        Status = RtlSetError(Error, RTL_STATUS_BAD_VERSION, 0, 16,
                             "%s: the store's record layout differs from "
                             "this build's '%s' (written by another "
                             "version?)", Path, Schema->Name);
        goto Error;
    }

    if (!ReadLatestSlot(Rtl, Store->Header, &Latest)) {
        Status = RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 128,
                             "%s: byte offset 128: no valid commit slot "
                             "(sequence, parity or checksum)", Path);
        goto Error;
    }

    Status = ValidateSlot(Path, Store->Header, &Latest, FileSize, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Store->RecordSize = Store->Header->RecordSize;
    Store->Base = (PBYTE)Store->Mapping + Store->Header->HeaderSize;
    SetTimestampOffset(Store);

    //
    // Recovery: everything past the committed count is discarded.
    //

    Store->Capacity = (FileSize - Store->Header->HeaderSize) /
                      Store->RecordSize;
    Store->GrowAtRecords = 0;
    Store->ChunkAtRecords = 0;
    Store->PrefaultedBytes = ALIGN_DOWN(TRACE_STORE_HEADER_SIZE +
                                        Latest.RecordCount *
                                        Store->RecordSize, RTL_PAGE_SIZE);
    Store->ReservedCount = Latest.RecordCount;
    Store->CommittedCount = Latest.RecordCount;
    Store->Sequence = Latest.Sequence;
    Store->Generation = Latest.Generation + 1;
    Store->FirstTs = Latest.FirstTs;
    Store->LastTs = Latest.LastTs;
    Store->SlotFlags = Latest.Flags;
    Store->Dropped = Latest.Dropped;
    Store->Repaired = Latest.Repaired;

    PublishSlot(Store, Store->CommittedCount, Store->Capacity);

    return RTL_STATUS_OK;

Error:
    if (Store->Mapping != NULL) {
        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
        Store->Mapping = NULL;
    }
    Rtl->CloseFile(Rtl, Store->FileHandle);
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->Header = NULL;
    return Status;
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

    Needed = TRACE_STORE_HEADER_SIZE + NeededRecords * Store->RecordSize;
    while (NewSize < Needed + Chunk) {
        NewSize += Chunk;
    }
    NewSize = ALIGN_UP(NewSize, RTL_PAGE_SIZE);

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

static
VOID
ScanTimestamps(
    PTRACE_STORE Store,
    const BYTE *Field,
    ULONGLONG Index,
    ULONGLONG Stop,
    PBOOL Sorted,
    PLONGLONG Previous,
    PLONGLONG Minimum,
    PLONGLONG Maximum
    )
/*++

Routine Description:

    Folds the ts of records [Index, Stop) into the sorted flag and the
    minimum and maximum.  Sorted means every ts is at least the one before
    it (the last committed record's, across commits).  Each iteration's
    compares are independent of the previous iteration's results, so the
    loads of a just-written batch overlap instead of forming one
    dependency chain through a running maximum.

--*/
{
    ULONG Size = Store->RecordSize;
    LONGLONG Last = *Previous;
    LONGLONG Low = *Minimum;
    LONGLONG High = *Maximum;
    ULONGLONG Descents = 0;
    ULONGLONG Start = Index;

    //
    // Fast path while the store is sorted: one load and one compare per
    // record; the last ts is then the maximum.
    //

    if (*Sorted) {
        for (; Index < Stop; Index++) {
            LONGLONG Ts;
            __builtin_memcpy(&Ts, Field + Index * Size, sizeof(Ts));
            Descents |= (ULONGLONG)(Ts < Last);
            Last = Ts;
        }

        if (Descents == 0) {
            *Previous = Last;
            *Maximum = (Last > High) ? Last : High;
            return;
        }

        Index = Start;
        Last = *Previous;
        *Sorted = FALSE;
    }

    for (; Index < Stop; Index++) {
        LONGLONG Ts;
        __builtin_memcpy(&Ts, Field + Index * Size, sizeof(Ts));
        Low = (Ts < Low) ? Ts : Low;
        High = (Ts > High) ? Ts : High;
        Last = Ts;
    }

    *Previous = Last;
    *Minimum = Low;
    *Maximum = High;
}

RTL_STATUS
TraceStoreCommit(
    PTRACE_STORE Store,
    ULONGLONG Count
    )
/*++

Routine Description:

    Publishes the first Count reserved records.  Updates the first/last ts
    and the sorted flag from the newly committed records, then writes the
    commit slot (PublishSlot).

Arguments:

    Store - Supplies the writer's store.

    Count - Supplies the number of records to commit, or TRACE_COMMIT_ALL
        for every reserved record below CommitLimit.

Return Value:

    RTL_STATUS_OK, or RTL_STATUS_INVALID_PARAMETER if Count exceeds what
    was reserved.

--*/
{
    ULONGLONG Index;

    if (!Store->Writable) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Count == TRACE_COMMIT_ALL) {
        Count = Store->ReservedCount;
        if (Count > Store->CommitLimit) {
            Count = Store->CommitLimit;
        }
    }

    if (Count > Store->ReservedCount) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Count < Store->CommittedCount) {
        Count = Store->CommittedCount;
    }

    DiscardBehind(Store);

    if (Count == Store->Snapshot.RecordCount &&
        Store->Capacity == Store->Snapshot.Capacity &&
        Store->Dropped == Store->Snapshot.Dropped &&
        Store->Repaired == Store->Snapshot.Repaired) {
        return RTL_STATUS_OK;
    }

    if (Store->TimestampOffset != TRACE_NO_COLUMN &&
        Count > Store->CommittedCount) {
        const BYTE *Field = Store->Base + Store->TimestampOffset;
        ULONGLONG Window = ~0ULL;
        ULONGLONG Stop;
        LONGLONG Previous;
        LONGLONG Minimum;
        LONGLONG Maximum;
        BOOL Sorted = (Store->SlotFlags & TRACE_SLOT_SORTED) != 0;

        Index = Store->CommittedCount;
        __builtin_memcpy(&Previous,
                         Field + (Index ? Index - 1 : 0) * Store->RecordSize,
                         sizeof(Previous));
        Minimum = Index ? Store->FirstTs : Previous;
        Maximum = Index ? Store->LastTs : Previous;

        //
        // A store that unmaps behind its writer is scanned a window at a
        // time, and each window that lies in the unmapped part is unmapped
        // again after the scan faulted it in (records held back for a long
        // time, e.g. spans that stayed open, commit in one large batch).
        //

        if (Store->DiscardBehind) {
            Window = TRACE_DISCARD_BEHIND / Store->RecordSize + 1;
        }

        for (; Index < Count; Index = Stop) {
            Stop = (Count - Index > Window) ? Index + Window : Count;
            ScanTimestamps(Store, Field, Index, Stop, &Sorted, &Previous,
                           &Minimum, &Maximum);
            if (Stop * Store->RecordSize <= Store->DiscardedBytes) {
                Store->Rtl->DiscardMemory(Store->Rtl,
                                          Store->Base +
                                          Index * Store->RecordSize,
                                          (SIZE_T)((Stop - Index) *
                                                   Store->RecordSize));
            }
        }

        if (!Sorted) {
            Store->SlotFlags &= ~TRACE_SLOT_SORTED;
        }
        Store->FirstTs = Minimum;
        Store->LastTs = Maximum;
    }

    Store->CommittedCount = Count;
    PublishSlot(Store, Count, Store->Capacity);

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStoreCommitTracked(
    PTRACE_STORE Store,
    PTRACE_TS_TRACKER Tracker
    )
/*++

Routine Description:

    Commits the records a TRACE_TS_TRACKER describes, taking the first/last
    ts and order from the tracker instead of reading the records back.

Arguments:

    Store - Supplies the writer's store.

    Tracker - Supplies the tracker filled while writing the records; it is
        reset on return.

Return Value:

    As TraceStoreCommit.

--*/
{
    ULONGLONG Count = Store->CommittedCount + Tracker->Count;
    TRACE_TS_TRACKER Empty = TRACE_TS_TRACKER_INIT;

    if (!Store->Writable || Store->TimestampOffset == TRACE_NO_COLUMN ||
        Tracker->Count == 0 || Count != Store->ReservedCount ||
        Count > Store->CommitLimit) {
        *Tracker = Empty;
        return TraceStoreCommit(Store, TRACE_COMMIT_ALL);
    }

    if (Store->CommittedCount == 0) {
        Store->FirstTs = Tracker->MinimumTs;
        Store->LastTs = Tracker->MaximumTs;
    } else {
        //
        // The batch continues the order if it is in order itself and its
        // smallest (that is, first) ts is not below the largest so far.
        //

        if (Tracker->MinimumTs < Store->LastTs) {
            Store->SlotFlags &= ~TRACE_SLOT_SORTED;
        }
        if (Tracker->MinimumTs < Store->FirstTs) {
            Store->FirstTs = Tracker->MinimumTs;
        }
        if (Tracker->MaximumTs > Store->LastTs) {
            Store->LastTs = Tracker->MaximumTs;
        }
    }

    if (Tracker->Descents != 0) {
        Store->SlotFlags &= ~TRACE_SLOT_SORTED;
    }

    *Tracker = Empty;
    Store->CommittedCount = Count;
    PublishSlot(Store, Count, Store->Capacity);
    DiscardBehind(Store);

    return RTL_STATUS_OK;
}

VOID
TraceStoreAddDropped(
    PTRACE_STORE Store,
    ULONG Count
    )
{
    Store->Dropped += Count;
}

VOID
TraceStoreAddRepaired(
    PTRACE_STORE Store,
    ULONG Count
    )
{
    Store->Repaired += Count;
}

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
    RTL_STATUS Status;
    ULONGLONG FileSize;
    TRACE_STORE_SNAPSHOT Snapshot;

    Rtl->FillMemory(Store, sizeof(*Store), 0);
    Store->Rtl = Rtl;
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->CommitLimit = TRACE_COMMIT_ALL;
    CopyName(Store->Path, sizeof(Store->Path), Path);

    Status = Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Store->FileHandle);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot open: %s", Path,
                           RtlStatusText(Status));
    }

    Status = Rtl->GetFileSize(Rtl, Store->FileHandle, &FileSize);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                    RtlStatusText(Status));
        goto Error;
    }

    if (FileSize < TRACE_STORE_HEADER_SIZE) {
        Status = RtlSetError(Error, RTL_STATUS_CORRUPT, 0, FileSize,
                             "%s: truncated store header (%llu bytes, a "
                             "header is %u)", Path, FileSize,
                             TRACE_STORE_HEADER_SIZE);
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
    CopyName(Store->Name, sizeof(Store->Name), Store->Header->Name);
    SetTimestampOffset(Store);

    Status = TraceStoreTakeSnapshot(Store, &Snapshot, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    return RTL_STATUS_OK;

Error:
    if (Store->Mapping != NULL) {
        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
        Store->Mapping = NULL;
    }
    Rtl->CloseFile(Rtl, Store->FileHandle);
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->Header = NULL;
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

    if (!ReadLatestSlot(Rtl, Store->Header, &Latest)) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 128,
                           "%s: byte offset 128: no valid commit slot "
                           "(sequence, parity or checksum)", Store->Path);
    }

    if (Latest.RecordCount > MAX_RECORD_COUNT ||
        Latest.RecordCount > Latest.Capacity) {
        return ValidateSlot(Store->Path, Store->Header, &Latest,
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

        Status = ValidateSlot(Store->Path, Store->Header, &Latest, FileSize,
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
        PublishSlot(Store, Store->CommittedCount, Store->Capacity);
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

VOID
TraceStoreClose(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Closes a store.  The writer trims the file to the committed records
    (TraceStoreStartClose, if not done yet), flushes, and releases its
    lock by closing.

--*/
{
    PRTL Rtl = Store->Rtl;

    if (Store->FileHandle == INVALID_HANDLE_VALUE) {
        return;
    }

    if (Store->Writable && (Store->Mapping != NULL || Store->Trimmed)) {
        TraceStoreStartClose(Store);
        Rtl->FlushFile(Rtl, Store->FileHandle);
    }

    if (Store->Mapping != NULL) {
        Rtl->Unmap(Rtl, Store->Mapping, Store->MappingSize);
    }

    Rtl->CloseFile(Rtl, Store->FileHandle);
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->Mapping = NULL;
    Store->Header = NULL;
    Store->Base = NULL;
    Store->Trimmed = FALSE;
}

PCTRACE_COLUMN_DESCRIPTOR
TraceStoreFindColumn(
    const TRACE_STORE_HEADER *Header,
    PCSZ Name
    )
{
    ULONG Index;

    for (Index = 0; Index < Header->NumberOfColumns; Index++) {
        if (RtlStringEqual(Header->Columns[Index].Name, Name)) {
            return &Header->Columns[Index];
        }
    }

    return NULL;
}

BOOL
TraceStoreReadColumn(
    PTRACE_STORE Store,
    ULONGLONG Index,
    PCTRACE_COLUMN_DESCRIPTOR Column,
    PLONGLONG Value
    )
{
    const BYTE *Field = Store->Base + Index * Store->RecordSize +
                        Column->Offset;
    LONGLONG Result = 0;
    BOOL IsNull = FALSE;

    switch (Column->Type) {

        case TraceColumnInt32: {
            LONG V;
            __builtin_memcpy(&V, Field, 4);
            Result = V;
            IsNull = (V == -1);
            break;
        }

        case TraceColumnUInt32: {
            ULONG V;
            __builtin_memcpy(&V, Field, 4);
            Result = V;
            IsNull = (V == 0xffffffffu);
            break;
        }

        case TraceColumnInt64:
        case TraceColumnUInt64:
        case TraceColumnDouble: {
            ULONGLONG V;
            __builtin_memcpy(&V, Field, 8);
            Result = (LONGLONG)V;
            IsNull = (V == ~0ULL);
            break;
        }

        case TraceColumnUInt16: {
            USHORT V;
            __builtin_memcpy(&V, Field, 2);
            Result = V;
            IsNull = (V == 0xffff);
            break;
        }

        case TraceColumnUInt8:
            Result = *Field;
            IsNull = (*Field == 0xff);
            break;

        default:
            IsNull = TRUE;
            break;
    }

    *Value = Result;

    if ((Column->Flags & TRACE_COLUMN_NULLABLE) && IsNull) {
        return FALSE;
    }

    return TRUE;
}
