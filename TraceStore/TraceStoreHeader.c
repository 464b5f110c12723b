/*++

Module Name:

    TraceStoreHeader.c

Abstract:

    This module implements what a store's header page says and how it is
    checked: its checksum, the validation every open does before trusting
    a descriptor (TraceStoreValidateHeader) or a commit slot
    (TraceStoreValidateSlot), the comparison with a compiled-in schema,
    and reading one column of a record through its descriptor.  The file
    layout itself is in TraceStore.h.

Environment:

    Core: no C runtime; the OS only through PRTL (memory and hashing
    only: this file opens no file).  Called by the other store files
    (TraceStoreInternal.h), by sessions and by the hosted edges (column
    reads); calls the Rtl string and error helpers.

--*/

#include "TraceStore/TraceStoreInternal.h"

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

BOOL
TraceStoreCopyName(
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

VOID
TraceStoreInitialize(
    PRTL Rtl,
    PCSZ Path,
    PTRACE_STORE Store
    )
{
    Rtl->FillMemory(Store, sizeof(*Store), 0);
    Store->Rtl = Rtl;
    Store->FileHandle = INVALID_HANDLE_VALUE;
    Store->CommitLimit = TRACE_COMMIT_ALL;
    Store->DurableLimit = TRACE_COMMIT_ALL;
    TraceStoreCopyName(Store->Path, sizeof(Store->Path), Path);
}

RTL_STATUS
TraceStoreCheckFileSize(
    PTRACE_STORE Store,
    PCSZ Path,
    PULONGLONG FileSize,
    PRTL_ERROR Error
    )
{
    PRTL Rtl = Store->Rtl;
    RTL_STATUS Status;

    Status = Rtl->GetFileSize(Rtl, Store->FileHandle, FileSize);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                           RtlStatusText(Status));
    }

    if (*FileSize < TRACE_STORE_HEADER_SIZE) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, *FileSize,
                           "%s: truncated store header (%llu bytes, a "
                           "header is %u)", Path, *FileSize,
                           TRACE_STORE_HEADER_SIZE);
    }

    return RTL_STATUS_OK;
}

ULONGLONG
TraceStoreHeaderChecksum(
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

    if (TraceStoreHeaderChecksum(Rtl, Header) != Header->HeaderChecksum) {
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

RTL_STATUS
TraceStoreValidateSlot(
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

VOID
TraceStoreSetTimestampOffset(
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
