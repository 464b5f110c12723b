/*++

Module Name:

    TraceRollupFile.c

Abstract:

    This module implements the rollup file, NAME.rollup (TraceRollup.h
    describes its layout): creating it for a store, publishing a fold's
    state as an image, loading the latest valid image with every check a
    reader needs, and the writer's side of a rollup (open, update, close).

    A writer publishes a new image where it overlaps neither publication
    a reader may be reading: below the latest image if it fits there,
    else past it.  The new image then takes the slot of the older
    publication, whose image it may have overwritten; a reader that was
    reading that one fails its checksum and reads the latest instead.

Environment:

    Core: no C runtime; the OS only through PRTL (files, memory, the
    monotonic clock, hashing).  Called by TraceSession.c (writers) and
    TraceRollupAnswer.c (readers); calls TraceRollupFold.c,
    TraceRollupTable.c and the RTL.

--*/

#include "TraceStore/TraceRollupInternal.h"

#define PUBLISH_INTERVAL_NS     (250LL * 1000 * 1000)
#define PUBLISH_RECORDS         (1ULL << 18)
#define MAX_IMAGE_SIZE          (1ULL << 32)
#define LOAD_TRIES              4

BOOL
RollupFilePath(
    PCHAR Buffer,
    SIZE_T Size,
    PCSZ SessionPath,
    PTRACE_STORE Store
    )
{
    return TraceJoinPath(Buffer, Size, SessionPath, Store->Header->Name,
                         TRACE_ROLLUP_FILE_SUFFIX);
}

static
ULONGLONG
SlotChecksum(
    PRTL Rtl,
    const TRACE_ROLLUP_SLOT *Slot
    )
{
    return Rtl->Hash64(Slot, TRACE_ROLLUP_SLOT_CHECKSUMMED_BYTES);
}

//
// ---------------------------------------------------------------------------
// Loading.
// ---------------------------------------------------------------------------
//

static
VOID
SetStatus(
    PTRACE_ROLLUP_STATUS Status,
    TRACE_ROLLUP_SOURCE Source,
    PCSZ Path,
    PCSZ Why
    )
{
    Status->Source = Source;
    Status->Detail[0] = '\0';
    if (Why != NULL) {
        RtlFormat(Status->Detail, sizeof(Status->Detail), "%s: %s", Path,
                  Why);
    }
}

static
BOOL
LoadTable(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Table,
    PCVOID Entries,
    ULONGLONG Count
    )
/*++

Routine Description:

    Fills Table with Count entries copied from an image and indexes them;
    FALSE without memory or if two entries share a key.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    SIZE_T Bytes;
    PVOID Memory;

    RollupTableFree(Rtl, Table);
    if (Count == 0) {
        return TRUE;
    }

    Bytes = (SIZE_T)ALIGN_UP(Count * Table->EntrySize, RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Memory))) {
        return FALSE;
    }

    Rtl->CopyMemory(Memory, Entries, (SIZE_T)(Count * Table->EntrySize));
    Table->Entries = Memory;
    Table->EntriesBytes = Bytes;
    Table->Capacity = Bytes / Table->EntrySize;
    Table->Count = Count;
    return RollupTableReindex(Rtl, Table);
}

static
PCSZ
CheckTables(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    The checks of an image's contents that a reader's fold relies on (a
    checksum guards against damage, these against a file made to mislead
    the code): references between tables in range, open rows below the
    watermark and in order.  Returns why the image is refused, or NULL.

--*/
{
    PROLLUP_TABLE Kvm = &Rollup->Tables[TraceRollupKvm];
    PROLLUP_TABLE Buckets = &Rollup->Tables[TraceRollupKvmBuckets];
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupSpanOpen];
    PROLLUP_TABLE Names = &Rollup->Tables[TraceRollupSpanNames];
    PROLLUP_TABLE Lines = &Rollup->Tables[TraceRollupLines];
    PROLLUP_TABLE OpenLines = &Rollup->Tables[TraceRollupLineOpen];
    PROLLUP_BUCKET_ENTRY Bucket;
    PROLLUP_SPAN_OPEN_ENTRY Entry;
    PROLLUP_LINE_OPEN_ENTRY Line;
    ULONGLONG Index;
    ULONGLONG Previous = 0;

    for (Index = 0; Index < Buckets->Count; Index++) {
        Bucket = RollupTableEntry(Buckets, Index);
        if (Bucket->Group >= Kvm->Count || Bucket->Count == 0) {
            return "a histogram bucket refers to no exit reason";
        }
    }

    for (Index = 0; Index < Open->Count; Index++) {
        Entry = RollupTableEntry(Open, Index);
        if (Entry->Row >= Rollup->Watermark ||
            (Index > 0 && Entry->Row <= Previous)) {
            return "an open span row lies outside the rows it covers";
        }
        Previous = Entry->Row;
    }

    for (Index = 0; Index < OpenLines->Count; Index++) {
        Line = RollupTableEntry(OpenLines, Index);
        if (Line->Row >= Rollup->Watermark ||
            (Index > 0 && Line->Row <= Previous) ||
            RollupTableFind(Lines, Line->NameFile, Line->LineNo) == NULL) {
            return "an open line row lies outside the rows it covers, or "
                   "in no line's group";
        }
        Previous = Line->Row;
    }

    if (Rollup->Tables[TraceRollupRates].Count >
        TRACE_ROLLUP_MAX_RATE_ENTRIES) {
        return "more rate buckets than a rollup keeps";
    }

    for (Index = 0; Index < Names->Count; Index++) {
        PROLLUP_SPAN_NAME_ENTRY Name = RollupTableEntry(Names, Index);
        PROLLUP_SPAN_NAME_ENTRY First = RollupTableFind(Names,
                                                        Name->Canonical, 0);

        if (First == NULL || First->Canonical != First->NameId ||
            First->TextHash != Name->TextHash) {
            return "a span name mapped to no name of its text";
        }
    }

    return NULL;
}

static
PCSZ
DecodeImage(
    PTRACE_ROLLUP Rollup,
    PBYTE Image,
    ULONGLONG Size
    )
/*++

Routine Description:

    Loads an image (its checksum already checked) into Rollup's tables.
    Returns why it was refused, or NULL.

--*/
{
    PTRACE_ROLLUP_IMAGE Header = (PTRACE_ROLLUP_IMAGE)Image;
    PTRACE_ROLLUP_IMAGE_TABLE Table;
    LONGLONG Width;
    ULONG Index;
    PCSZ Why;

    if (Size < sizeof(*Header) || Header->Magic != TRACE_ROLLUP_IMAGE_MAGIC) {
        return "an image without its magic";
    }
    if (Header->Version != TRACE_ROLLUP_VERSION ||
        Header->Kind != (ULONG)Rollup->Kind ||
        Header->NumberOfTables != TraceRollupTableMaximum ||
        (Header->Flags & ~TRACE_ROLLUP_FLAG_KIND) != 0) {
        return "an image of another kind or version";
    }
    if ((Header->Flags & TRACE_ROLLUP_FLAG_KIND) !=
        (Rollup->Flags & TRACE_ROLLUP_FLAG_KIND)) {
        return "an image of another store layout";
    }

    for (Width = TRACE_ROLLUP_FIRST_BUCKET_NS;
         Width < Header->BucketNs && Width <= 0x3fffffffffffffffLL;
         Width *= 2) {
    }
    if (Width != Header->BucketNs) {
        return "a rate bucket width that is not a second times a power of "
               "two";
    }

    for (Index = 0; Index < TraceRollupTableMaximum; Index++) {
        Table = &Header->Tables[Index];
        if (Table->EntrySize != RollupEntrySize(Index) ||
            (Table->Offset & 7) != 0 || Table->Offset > Size ||
            Table->Count > (Size - Table->Offset) / Table->EntrySize) {
            return "a table outside its image";
        }
    }

    Rollup->Watermark = Header->Watermark;
    Rollup->BucketNs = Header->BucketNs;
    RollupForgetRecent(Rollup);

    for (Index = 0; Index < TraceRollupTableMaximum; Index++) {
        Table = &Header->Tables[Index];
        if (!LoadTable(Rollup, &Rollup->Tables[Index], Image + Table->Offset,
                       Table->Count)) {
            return "a table that cannot be loaded (two entries with one "
                   "key, or no memory)";
        }
    }

    Why = CheckTables(Rollup);
    if (Why == NULL && !RTL_SUCCESS(RollupLoadSpanTexts(Rollup))) {
        Why = "no memory for its span names";
    }
    return Why;
}

static
BOOL
ReadSlots(
    PTRACE_ROLLUP Rollup,
    HANDLE Handle,
    TRACE_ROLLUP_SLOT Slots[2]
    )
{
    PRTL Rtl = Rollup->Rtl;
    SIZE_T BytesRead;

    return RTL_SUCCESS(Rtl->ReadFile(Rtl, Handle,
                                     FIELD_OFFSET(TRACE_ROLLUP_HEADER, Slots),
                                     Slots, 2 * sizeof(TRACE_ROLLUP_SLOT),
                                     &BytesRead)) &&
           BytesRead == 2 * sizeof(TRACE_ROLLUP_SLOT);
}

static
BOOL
SlotValid(
    PRTL Rtl,
    const TRACE_ROLLUP_SLOT *Slot,
    ULONG Index,
    ULONGLONG FileSize
    )
{
    return Slot->Sequence != 0 && (Slot->Sequence & 1) == Index &&
           SlotChecksum(Rtl, Slot) == Slot->Checksum &&
           Slot->ImageOffset >= TRACE_ROLLUP_HEADER_SIZE &&
           Slot->ImageSize >= sizeof(TRACE_ROLLUP_IMAGE) &&
           Slot->ImageSize <= MAX_IMAGE_SIZE &&
           Slot->ImageOffset <= FileSize &&
           Slot->ImageSize <= FileSize - Slot->ImageOffset;
}

static
PCSZ
LoadSlot(
    PTRACE_ROLLUP Rollup,
    HANDLE Handle,
    const TRACE_ROLLUP_SLOT *Slot
    )
/*++

Routine Description:

    Reads the image of Slot and loads it.  Returns why it could not, or
    NULL.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    SIZE_T Bytes = (SIZE_T)ALIGN_UP(Slot->ImageSize, RTL_PAGE_SIZE);
    SIZE_T BytesRead;
    PVOID Image;
    PCSZ Why = NULL;

    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Image))) {
        return "no memory for its image";
    }

    if (!RTL_SUCCESS(Rtl->ReadFile(Rtl, Handle, Slot->ImageOffset, Image,
                                   (SIZE_T)Slot->ImageSize, &BytesRead)) ||
        BytesRead != Slot->ImageSize) {
        Why = "its image cannot be read";
    } else if (Rtl->Hash64(Image, (SIZE_T)Slot->ImageSize) !=
               Slot->ImageChecksum) {
        Why = "its image fails its checksum";
    } else {
        Why = DecodeImage(Rollup, Image, Slot->ImageSize);
        if (Why == NULL &&
            ((PTRACE_ROLLUP_IMAGE)Image)->Watermark != Slot->Watermark) {
            Why = "its image covers other records than its slot says";
        }
    }

    Rtl->Unmap(Rtl, Image, Bytes);
    return Why;
}

RTL_STATUS
RollupLoadFile(
    PTRACE_ROLLUP Rollup,
    PCSZ Path,
    PTRACE_ROLLUP_STATUS Status,
    BOOL KeepOpen
    )
/*++

Routine Description:

    Loads the latest valid publication of the rollup file at Path into
    Rollup's (empty) tables, after checking that the file is a rollup of
    this version, of this very store (name, kind, layout, creation) and
    undamaged.  A publication whose image changes while it is read (the
    writer reused its room) is given up for the other, and both are read
    again a few times before the file is called damaged.

Arguments:

    Rollup - Supplies an initialized fold of the store.

    Path - Supplies the rollup file's path.

    Status - Receives the source (TraceRollupFromFile if loaded, else why
        not, with a detail for a person) and the watermark.

    KeepOpen - Supplies TRUE to keep the file open, read-write, for a
        writer (Rollup->FileHandle, its slots and sequence); only then
        with a loaded publication.

Return Value:

    RTL_STATUS_OK (Status says whether anything was loaded), or
    RTL_STATUS_NO_MEMORY.  On anything but a load, the tables are empty.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PTRACE_STORE Store = Rollup->Store;
    TRACE_ROLLUP_HEADER *Header = &Rollup->Header;
    TRACE_ROLLUP_SLOT Slots[2] = { { 0 }, { 0 } };
    HANDLE Handle = INVALID_HANDLE_VALUE;
    ULONGLONG FileSize;
    SIZE_T BytesRead;
    RTL_STATUS Result;
    ULONG Try;
    ULONG First;
    ULONG Index;
    PCSZ Why = NULL;

    Status->Watermark = 0;
    Result = Rtl->OpenFile(Rtl, Path,
                           KeepOpen ? RtlOpenReadWrite : RtlOpenReadOnly,
                           &Handle);
    if (Result == RTL_STATUS_NOT_FOUND) {
        SetStatus(Status, TraceRollupMissing, Path, NULL);
        return RTL_STATUS_OK;
    }
    if (!RTL_SUCCESS(Result)) {
        SetStatus(Status, TraceRollupDamaged, Path, RtlStatusText(Result));
        return RTL_STATUS_OK;
    }

    if (!RTL_SUCCESS(Rtl->GetFileSize(Rtl, Handle, &FileSize)) ||
        FileSize < TRACE_ROLLUP_HEADER_SIZE ||
        !RTL_SUCCESS(Rtl->ReadFile(Rtl, Handle, 0, Header, sizeof(*Header),
                                   &BytesRead)) ||
        BytesRead != sizeof(*Header)) {
        SetStatus(Status, TraceRollupDamaged, Path,
                  "shorter than its header");
        goto Done;
    }

    if (Header->Magic != TRACE_ROLLUP_MAGIC ||
        Rtl->Hash64(Header, TRACE_ROLLUP_HEADER_CHECKSUMMED_BYTES) !=
        Header->HeaderChecksum) {
        SetStatus(Status, TraceRollupDamaged, Path,
                  "not a rollup file, or its header fails its checksum");
        goto Done;
    }

    if (Header->Version != TRACE_ROLLUP_VERSION ||
        Header->HeaderSize != TRACE_ROLLUP_HEADER_SIZE) {
        SetStatus(Status, TraceRollupOtherVersion, Path,
                  "written by another version of Tracer");
        goto Done;
    }

    if (Header->StoreName[TRACE_NAME_SIZE - 1] != '\0' ||
        !RtlStringEqual(Header->StoreName, Store->Header->Name) ||
        Header->Kind != (ULONG)Rollup->Kind ||
        Header->RecordSize != Store->RecordSize ||
        Header->StoreCreatedRealtimeNs != Store->Header->CreatedRealtimeNs ||
        Header->StoreHeaderChecksum != Store->Header->HeaderChecksum) {
        SetStatus(Status, TraceRollupOtherStore, Path,
                  "made for an earlier store of that name");
        goto Done;
    }

    for (Try = 0; Try < LOAD_TRIES; Try++) {
        Why = NULL;
        if (!ReadSlots(Rollup, Handle, Slots)) {
            Why = "its slots cannot be read";
            break;
        }

        First = (Slots[1].Sequence > Slots[0].Sequence) ? 1 : 0;
        for (Index = 0; Index < 2; Index++) {
            ULONG Slot = First ^ Index;

            if (!SlotValid(Rtl, &Slots[Slot], Slot, FileSize)) {
                Why = Why ? Why : "no valid publication";
                continue;
            }
            Why = LoadSlot(Rollup, Handle, &Slots[Slot]);
            if (Why == NULL) {
                Status->Watermark = Rollup->Watermark;
                SetStatus(Status, TraceRollupFromFile, Path, NULL);
                if (KeepOpen) {
                    Rollup->FileHandle = Handle;
                    Handle = INVALID_HANDLE_VALUE;
                    Rollup->Sequence = Slots[Slot].Sequence;
                    Rollup->Latest = Slots[Slot];
                    Rollup->Previous = Slots[Slot ^ 1];
                    Rollup->PublishedWatermark = Rollup->Watermark;
                }
                goto Done;
            }
            RollupResetTables(Rollup);
        }

        Rtl->GetFileSize(Rtl, Handle, &FileSize);
    }

    if (Slots[0].Sequence == 0 && Slots[1].Sequence == 0) {
        SetStatus(Status, TraceRollupMissing, Path, "no publication yet");
    } else {
        SetStatus(Status, TraceRollupDamaged, Path, Why);
    }

Done:
    if (Handle != INVALID_HANDLE_VALUE) {
        Rtl->CloseFile(Rtl, Handle);
    }
    if (Status->Source != TraceRollupFromFile) {
        RollupResetTables(Rollup);
    }
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The writer.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
CreateRollupFile(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Makes the rollup file anew, empty of publications, for this store: a
    temporary file with the header, renamed over whatever was there, so
    that a reader sees either the old file or a whole header.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PTRACE_STORE Store = Rollup->Store;
    TRACE_ROLLUP_HEADER *Header = &Rollup->Header;
    CHAR TemporaryPath[TRACE_PATH_SIZE];
    HANDLE Handle = INVALID_HANDLE_VALUE;
    RTL_STATUS Status;

    if (RtlFormat(TemporaryPath, sizeof(TemporaryPath), "%s.tmp",
                  Rollup->Path) >= sizeof(TemporaryPath) - 1) {
        return RTL_STATUS_TOO_LARGE;
    }

    Rtl->FillMemory(Header, sizeof(*Header), 0);
    Header->Magic = TRACE_ROLLUP_MAGIC;
    Header->Version = TRACE_ROLLUP_VERSION;
    Header->HeaderSize = TRACE_ROLLUP_HEADER_SIZE;
    Rtl->CopyMemory(Header->StoreName, Store->Header->Name, TRACE_NAME_SIZE);
    Header->StoreName[TRACE_NAME_SIZE - 1] = '\0';
    Header->Kind = (ULONG)Rollup->Kind;
    Header->RecordSize = Store->RecordSize;
    Header->StoreCreatedRealtimeNs = Store->Header->CreatedRealtimeNs;
    Header->StoreHeaderChecksum = Store->Header->HeaderChecksum;
    Header->HeaderChecksum = Rtl->Hash64(Header,
                                         TRACE_ROLLUP_HEADER_CHECKSUMMED_BYTES);

    Rtl->DeleteFile(Rtl, TemporaryPath);
    Status = Rtl->OpenFile(Rtl, TemporaryPath, RtlOpenCreateNew, &Handle);
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->WriteFile(Rtl, Handle, 0, Header, sizeof(*Header));
    }
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->RenameFile(Rtl, TemporaryPath, Rollup->Path);
    }
    if (!RTL_SUCCESS(Status)) {
        if (Handle != INVALID_HANDLE_VALUE) {
            Rtl->CloseFile(Rtl, Handle);
        }
        Rtl->DeleteFile(Rtl, TemporaryPath);
        return Status;
    }

    Rollup->FileHandle = Handle;
    Rollup->Sequence = 0;
    Rtl->FillMemory(&Rollup->Latest, sizeof(Rollup->Latest), 0);
    Rtl->FillMemory(&Rollup->Previous, sizeof(Rollup->Previous), 0);
    Rollup->PublishedWatermark = 0;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
BuildImage(
    PTRACE_ROLLUP Rollup,
    PULONGLONG ImageSize
    )
/*++

Routine Description:

    Lays the fold's tables out as an image in Rollup->Image.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PTRACE_ROLLUP_IMAGE Header;
    ULONGLONG Size = ALIGN_UP(sizeof(TRACE_ROLLUP_IMAGE), 8);
    ULONGLONG Offsets[TraceRollupTableMaximum];
    SIZE_T Bytes;
    PVOID Memory;
    ULONG Index;

    for (Index = 0; Index < TraceRollupTableMaximum; Index++) {
        Offsets[Index] = Size;
        Size += ALIGN_UP(Rollup->Tables[Index].Count *
                         Rollup->Tables[Index].EntrySize, 8);
    }

    if (Size > MAX_IMAGE_SIZE) {
        return RTL_STATUS_TOO_LARGE;
    }

    if (Size > Rollup->ImageBytes) {
        Bytes = (SIZE_T)ALIGN_UP(Size + Size / 4, RTL_PAGE_SIZE);
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Memory))) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Rollup->Image != NULL) {
            Rtl->Unmap(Rtl, Rollup->Image, Rollup->ImageBytes);
        }
        Rollup->Image = Memory;
        Rollup->ImageBytes = Bytes;
    }

    Header = (PTRACE_ROLLUP_IMAGE)Rollup->Image;
    Rtl->FillMemory(Header, ALIGN_UP(sizeof(TRACE_ROLLUP_IMAGE), 8), 0);
    Header->Magic = TRACE_ROLLUP_IMAGE_MAGIC;
    Header->Version = TRACE_ROLLUP_VERSION;
    Header->Kind = (ULONG)Rollup->Kind;
    Header->Watermark = Rollup->Watermark;
    Header->BucketNs = Rollup->BucketNs;
    Header->Flags = Rollup->Flags & TRACE_ROLLUP_FLAG_KIND;
    Header->NumberOfTables = TraceRollupTableMaximum;

    for (Index = 0; Index < TraceRollupTableMaximum; Index++) {
        PROLLUP_TABLE Table = &Rollup->Tables[Index];
        SIZE_T Length = (SIZE_T)(Table->Count * Table->EntrySize);

        Header->Tables[Index].EntrySize = Table->EntrySize;
        Header->Tables[Index].Count = Table->Count;
        Header->Tables[Index].Offset = Offsets[Index];
        if (Length != 0) {
            Rtl->CopyMemory(Rollup->Image + Offsets[Index], Table->Entries,
                            Length);
        }
    }

    *ImageSize = Size;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
Publish(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Writes the fold's state as an image and then the slot that makes it
    the latest publication (see the abstract for where the image goes).
    On failure the file's latest publication is unchanged.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    TRACE_ROLLUP_SLOT Slot;
    ULONGLONG ImageSize;
    ULONGLONG Offset;
    RTL_STATUS Status;

    Status = BuildImage(Rollup, &ImageSize);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Offset = TRACE_ROLLUP_HEADER_SIZE;
    if (Rollup->Sequence != 0 &&
        Offset + ImageSize > Rollup->Latest.ImageOffset) {
        Offset = ALIGN_UP(Rollup->Latest.ImageOffset +
                          Rollup->Latest.ImageSize, RTL_PAGE_SIZE);
    }

    Status = Rtl->WriteFile(Rtl, Rollup->FileHandle, Offset, Rollup->Image,
                            (SIZE_T)ImageSize);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Rtl->FillMemory(&Slot, sizeof(Slot), 0);
    Slot.Sequence = Rollup->Sequence + 1;
    Slot.Watermark = Rollup->Watermark;
    Slot.ImageOffset = Offset;
    Slot.ImageSize = ImageSize;
    Slot.ImageChecksum = Rtl->Hash64(Rollup->Image, (SIZE_T)ImageSize);
    Slot.StoreGeneration = (ULONG)Rollup->Store->Generation;
    Slot.Checksum = SlotChecksum(Rtl, &Slot);

    Status = Rtl->WriteFile(Rtl, Rollup->FileHandle,
                            FIELD_OFFSET(TRACE_ROLLUP_HEADER, Slots) +
                            (Slot.Sequence & 1) * sizeof(Slot),
                            &Slot, sizeof(Slot));
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Rollup->Sequence = Slot.Sequence;
    Rollup->Previous = Rollup->Latest;
    Rollup->Latest = Slot;
    Rollup->PublishedWatermark = Rollup->Watermark;
    Rollup->PublishedAtNs = Rtl->QueryTime(Rtl, RtlClockMonotonic);
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceRollupOpenWriter(
    PRTL Rtl,
    PCSZ SessionPath,
    PTRACE_STORE Store,
    PTRACE_STRING_TABLE Strings,
    PTRACE_ROLLUP *Result,
    PRTL_ERROR Error
    )
{
    PTRACE_ROLLUP Rollup = NULL;
    TRACE_ROLLUP_STATUS Loaded;
    RTL_STATUS Status;

    *Result = NULL;

    Status = Rtl->AllocatePages(Rtl, sizeof(*Rollup), (PPVOID)&Rollup);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: no memory for the "
                           "rollup of %s", SessionPath, Store->Path);
    }

    RollupInitialize(Rollup, Rtl, Store, Strings);
    Rollup->Writable = TRUE;
    Rollup->Error = Error;
    if (Rollup->Kind == TraceRecordKindMaximum) {
        Rtl->Unmap(Rtl, Rollup, sizeof(*Rollup));
        return RTL_STATUS_OK;
    }

    if (!RollupFilePath(Rollup->Path, sizeof(Rollup->Path), SessionPath,
                        Store)) {
        Status = RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                             "%s: path too long", SessionPath);
        goto Error;
    }

    //
    // Continue from the file's last publication if it is this store's and
    // covers no more than the store has kept; else fold every record.
    //

    Status = RollupLoadFile(Rollup, Rollup->Path, &Loaded, TRUE);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    if (Loaded.Source == TraceRollupFromFile &&
        Rollup->Watermark > Store->CommittedCount) {
        Rtl->CloseFile(Rtl, Rollup->FileHandle);
        Rollup->FileHandle = INVALID_HANDLE_VALUE;
        RollupResetTables(Rollup);
        Loaded.Source = TraceRollupAhead;
    }

    if (Loaded.Source != TraceRollupFromFile) {
        Status = CreateRollupFile(Rollup);
        if (!RTL_SUCCESS(Status)) {
            Status = RtlSetError(Error, Status, 0, 0, "%s: cannot create "
                                 "it: %s", Rollup->Path,
                                 RtlStatusText(Status));
            goto Error;
        }
    }

    Rollup->Rebuilding = TRUE;
    Status = TraceRollupUpdate(Rollup, Store->CommittedCount,
                               Rollup->Watermark !=
                               Rollup->PublishedWatermark ?
                               TRACE_ROLLUP_PUBLISH : 0);
    Rollup->Rebuilding = FALSE;
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    *Result = Rollup;
    return RTL_STATUS_OK;

Error:
    TraceRollupClose(Rollup);
    return Status;
}

static
RTL_STATUS
OpenOwnMappings(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Opens the store and the session's string stores read-only, as a
    reader does, for a fold on another thread than the writer's
    (TRACE_ROLLUP_ELSEWHERE), and folds through them from then on.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PTRACE_STRING_TABLE Strings = &Rollup->OwnStrings;
    RTL_ERROR Error;
    RTL_STATUS Status;

    Error.Message[0] = '\0';
    Status = TraceStoreOpenReader(Rtl, Rollup->Store->Path, &Rollup->OwnStore,
                                  &Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Strings->Rtl = Rtl;
    Strings->Writable = FALSE;
    Status = TraceStoreOpenReader(Rtl, Rollup->Strings->Index.Path,
                                  &Strings->Index, &Error);
    if (RTL_SUCCESS(Status)) {
        Status = TraceStoreOpenReader(Rtl, Rollup->Strings->Data.Path,
                                      &Strings->Data, &Error);
        if (!RTL_SUCCESS(Status)) {
            TraceStoreClose(&Strings->Index);
        }
    }
    if (!RTL_SUCCESS(Status)) {
        TraceStoreClose(&Rollup->OwnStore);
        return Status;
    }

    Rollup->OwnOpen = TRUE;
    Rollup->Source = &Rollup->OwnStore;
    Rollup->Strings = Strings;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceRollupUpdate(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Committed,
    ULONG Flags
    )
{
    PRTL Rtl = Rollup->Rtl;
    BOOL PublishNow = (Flags & TRACE_ROLLUP_PUBLISH) != 0;
    TRACE_STORE_SNAPSHOT Snapshot;
    RTL_ERROR Error;
    RTL_STATUS Status;
    LONGLONG Now;

    if (Rollup->FileHandle == INVALID_HANDLE_VALUE) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if ((Flags & TRACE_ROLLUP_ELSEWHERE) != 0 && !Rollup->OwnOpen) {
        Status = OpenOwnMappings(Rollup);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    //
    // Its own mappings cover what the writer committed once their
    // snapshots are taken again (Committed TRACE_COMMIT_ALL: all of it;
    // another thread may not read the writer's header, which moves).
    //

    if (Rollup->OwnOpen) {
        Error.Message[0] = '\0';
        Status = TraceStoreTakeSnapshot(&Rollup->OwnStore, &Snapshot, &Error);
        if (RTL_SUCCESS(Status)) {
            Status = TraceStringRefresh(&Rollup->OwnStrings, &Error);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Committed > Snapshot.RecordCount) {
            Committed = Snapshot.RecordCount;
        }
    }

    if (Committed == TRACE_COMMIT_ALL) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Committed > Rollup->Watermark ||
        Rollup->Tables[TraceRollupSpanOpen].Count != 0 ||
        Rollup->Tables[TraceRollupLineOpen].Count != 0) {
        Status = RollupFold(Rollup, Committed);
        if (!RTL_SUCCESS(Status)) {

            //
            // A partial fold must never be published: stop here.  Readers
            // fold from the last publication on.
            //

            Rtl->CloseFile(Rtl, Rollup->FileHandle);
            Rollup->FileHandle = INVALID_HANDLE_VALUE;
            return Status;
        }
    }

    if (Rollup->Watermark == Rollup->PublishedWatermark &&
        Rollup->Sequence != 0 && !PublishNow) {
        return RTL_STATUS_OK;
    }

    if (!PublishNow &&
        Rollup->Watermark - Rollup->PublishedWatermark < PUBLISH_RECORDS) {
        Now = Rtl->QueryTime(Rtl, RtlClockMonotonic);
        if (Now - Rollup->PublishedAtNs < PUBLISH_INTERVAL_NS) {
            return RTL_STATUS_OK;
        }
    }

    return Publish(Rollup);
}

VOID
TraceRollupClose(
    PTRACE_ROLLUP Rollup
    )
{
    PRTL Rtl;

    if (Rollup == NULL) {
        return;
    }

    //
    // Not flushed: a rollup lost or torn with the machine is a file the
    // next reader does not trust (checksums, a watermark past the store)
    // and the next writer rebuilds; the stores' own flush is what keeps
    // records.
    //

    Rtl = Rollup->Rtl;
    if (Rollup->FileHandle != INVALID_HANDLE_VALUE) {
        Rtl->CloseFile(Rtl, Rollup->FileHandle);
    }

    if (Rollup->Image != NULL) {
        Rtl->Unmap(Rtl, Rollup->Image, Rollup->ImageBytes);
    }

    if (Rollup->OwnOpen) {
        TraceStoreClose(&Rollup->OwnStore);
        TraceStoreClose(&Rollup->OwnStrings.Index);
        TraceStoreClose(&Rollup->OwnStrings.Data);
    }

    RollupFreeTables(Rollup);
    Rtl->Unmap(Rtl, Rollup, sizeof(*Rollup));
}
