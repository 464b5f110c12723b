/*++

Module Name:

    TraceDurable.c

Abstract:

    This module implements what a session promises when the machine loses
    power (docs/durability.md): session.durable (TRACE_DURABLE in
    TraceStore.h), the record count of every store at the last sync, and
    the boot it was written on.

    The commit slots publish records to live readers, not to the device:
    the kernel writes a store's dirty pages back in any order, so after a
    power cut a slot on the device may count records whose pages never
    got there (zeros, or the bytes of an earlier, unfinished record).  A
    sync flushes every store and only then replaces session.durable, so
    its counts are always on the device.  A reader on the boot that wrote
    the file trusts the slots (a killed writer's pages are in the page
    cache); a reader on another boot shows each store up to its count in
    the file and leaves out the store files it does not list.  The next
    writer rolls every store back to those counts for good, removes the
    unlisted files, and counts both in the file (`tracestore info`).

    A session without the file (made before issue 30) opens as before.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by TraceSession.c
    (TraceStoreInternal.h) and by writers (TraceSessionSync).

--*/

#include "TraceStore/TraceStoreInternal.h"

#define DURABLE_TEMPORARY_SUFFIX ".tmp"

static
ULONGLONG
DurableChecksum(
    PRTL Rtl,
    const TRACE_DURABLE *Durable
    )
{
    return Rtl->Hash64(Durable, FIELD_OFFSET(TRACE_DURABLE, Checksum));
}

PTRACE_DURABLE_ENTRY
TraceDurableEntry(
    PTRACE_DURABLE Durable,
    PCSZ Name,
    BOOL Add
    )
{
    PTRACE_DURABLE_ENTRY Entry;
    ULONG Index;

    for (Index = 0; Index < Durable->NumberOfEntries; Index++) {
        if (RtlStringEqual(Durable->Entries[Index].Name, Name)) {
            return &Durable->Entries[Index];
        }
    }

    if (!Add || Durable->NumberOfEntries >= TRACE_DURABLE_MAX_ENTRIES) {
        return NULL;
    }

    Entry = &Durable->Entries[Durable->NumberOfEntries++];
    RtlFormat(Entry->Name, sizeof(Entry->Name), "%s", Name);
    Entry->RecordCount = 0;
    Entry->Lost = 0;
    return Entry;
}

static
RTL_STATUS
ReadDurable(
    PTRACE_SESSION Session,
    PTRACE_DURABLE Durable,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Reads and checks session.durable.

Return Value:

    RTL_STATUS_OK; RTL_STATUS_NOT_FOUND (no error set) for a session that
    has none; RTL_STATUS_CORRUPT, naming the file and byte, for one that
    fails its checks (it is only ever renamed into place whole, so that is
    damage, not a power cut); or the error reading it.

--*/
{
    PRTL Rtl = Session->Rtl;
    RTL_STATUS Status;
    HANDLE Handle;
    SIZE_T Read = 0;
    ULONGLONG Size = 0;
    ULONG Index;
    CHAR FilePath[TRACE_PATH_SIZE];

    TraceJoinPath(FilePath, sizeof(FilePath), Session->Path,
                  TRACE_DURABLE_FILE, "");

    Status = Rtl->OpenFile(Rtl, FilePath, RtlOpenReadOnly, &Handle);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return Status;
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", FilePath,
                           RtlStatusText(Status));
    }

    Status = Rtl->GetFileSize(Rtl, Handle, &Size);
    if (RTL_SUCCESS(Status) && Size == sizeof(*Durable)) {
        Status = Rtl->ReadFile(Rtl, Handle, 0, Durable, sizeof(*Durable),
                               &Read);
    }
    Rtl->CloseFile(Rtl, Handle);

    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", FilePath,
                           RtlStatusText(Status));
    }
    if (Size != sizeof(*Durable) || Read != sizeof(*Durable)) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Size,
                           "%s: %llu bytes, not %u: damaged", FilePath, Size,
                           (ULONG)sizeof(*Durable));
    }
    if (Durable->Magic != TRACE_DURABLE_MAGIC) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 0,
                           "%s: byte offset 0: bad magic", FilePath);
    }
    if (Durable->Version != TRACE_DURABLE_VERSION) {
        return RtlSetError(Error, RTL_STATUS_BAD_VERSION, 0, 8,
                           "%s: byte offset 8: version %u, this build reads "
                           "%u", FilePath, Durable->Version,
                           TRACE_DURABLE_VERSION);
    }
    if (Durable->Checksum != DurableChecksum(Rtl, Durable)) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0,
                           FIELD_OFFSET(TRACE_DURABLE, Checksum),
                           "%s: byte offset %u: checksum mismatch",
                           FilePath,
                           (ULONG)FIELD_OFFSET(TRACE_DURABLE, Checksum));
    }
    if (Durable->NumberOfEntries > TRACE_DURABLE_MAX_ENTRIES) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 12,
                           "%s: byte offset 12: %u stores, at most %u",
                           FilePath, Durable->NumberOfEntries,
                           TRACE_DURABLE_MAX_ENTRIES);
    }

    Durable->BootId[sizeof(Durable->BootId) - 1] = '\0';
    for (Index = 0; Index < Durable->NumberOfEntries; Index++) {
        Durable->Entries[Index].Name[TRACE_NAME_SIZE - 1] = '\0';
    }
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceDurableWrite(
    PTRACE_SESSION Session,
    ULONG Flags,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Replaces session.durable with the writer's table: written to a
    temporary file, flushed, renamed over the old one, and the directory
    flushed, so that the file on the device is always a whole one.  The
    caller has flushed every store the table counts.

--*/
{
    PRTL Rtl = Session->Rtl;
    PTRACE_DURABLE Durable = &Session->Durable;
    RTL_STATUS Status;
    HANDLE Handle;
    CHAR FilePath[TRACE_PATH_SIZE];
    CHAR TemporaryPath[TRACE_PATH_SIZE];

    TraceJoinPath(FilePath, sizeof(FilePath), Session->Path,
                  TRACE_DURABLE_FILE, "");
    TraceJoinPath(TemporaryPath, sizeof(TemporaryPath), Session->Path,
                  TRACE_DURABLE_FILE, DURABLE_TEMPORARY_SUFFIX);

    Durable->Magic = TRACE_DURABLE_MAGIC;
    Durable->Version = TRACE_DURABLE_VERSION;
    Durable->Sequence++;
    Durable->SyncedRealtimeNs = Rtl->QueryTime(Rtl, RtlClockRealtime);
    Durable->Flags = Flags;
    RtlFormat(Durable->BootId, sizeof(Durable->BootId), "%s",
              Session->BootId);
    Durable->Checksum = DurableChecksum(Rtl, Durable);

    Rtl->DeleteFile(Rtl, TemporaryPath);
    Status = Rtl->OpenFile(Rtl, TemporaryPath, RtlOpenCreateNew, &Handle);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", TemporaryPath,
                           RtlStatusText(Status));
    }

    Status = Rtl->WriteFile(Rtl, Handle, 0, Durable, sizeof(*Durable));
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->FlushFile(Rtl, Handle);
    }
    Rtl->CloseFile(Rtl, Handle);

    if (RTL_SUCCESS(Status)) {
        Status = Rtl->RenameFile(Rtl, TemporaryPath, FilePath);
    }
    if (RTL_SUCCESS(Status)) {
        Status = Rtl->FlushDirectory(Rtl, Session->Path);
    }
    if (!RTL_SUCCESS(Status)) {
        Rtl->DeleteFile(Rtl, TemporaryPath);
        return RtlSetError(Error, Status, 0, 0, "%s: %s", FilePath,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

static
BOOL
BootsDiffer(
    PCSZ Written,
    PCSZ Running
    )
{
    return Written[0] != '\0' && Running[0] != '\0' &&
           !RtlStringEqual(Written, Running);
}

static
VOID
FlushParentDirectory(
    PTRACE_SESSION Session
    )
/*++

Routine Description:

    Flushes the directory that holds the session's, so that a session
    directory just created survives a power cut with its files.

--*/
{
    PRTL Rtl = Session->Rtl;
    CHAR Parent[TRACE_PATH_SIZE];
    SIZE_T Length;

    RtlFormat(Parent, sizeof(Parent), "%s", Session->Path);
    Length = RtlStringLength(Parent);
    while (Length > 1 && (Parent[Length - 1] == '/' ||
                          Parent[Length - 1] == '\\')) {
        Length--;
    }
    while (Length > 0 && Parent[Length - 1] != '/' &&
           Parent[Length - 1] != '\\') {
        Length--;
    }
    if (Length == 0) {
        RtlFormat(Parent, sizeof(Parent), ".");
    } else {
        Parent[Length == 1 ? 1 : Length - 1] = '\0';
    }

    Rtl->FlushDirectory(Rtl, Parent);
}

RTL_STATUS
TraceDurableOpenWriter(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Brings a session whose writer lock was just taken to a durable state
    before anything is appended: after a power cut (session.durable
    written on another boot), rolls each store back to its count there and
    removes the store files it does not list; in any case flushes every
    store, and starts the writer's table with their counts.  The caller
    writes the table (TraceSessionSync) once the string stores are open.

Return Value:

    RTL_STATUS_OK, or the error of a store that cannot be settled (named).

--*/
{
    PRTL Rtl = Session->Rtl;
    PTRACE_DURABLE Durable = &Session->Durable;
    PTRACE_STORE_NAMES Names = NULL;
    TRACE_DURABLE Previous;
    RTL_STATUS Status;
    BOOL PowerCut = FALSE;
    ULONG Index;
    CHAR FilePath[TRACE_PATH_SIZE];

    if (!RTL_SUCCESS(Rtl->GetBootId(Rtl, Session->BootId,
                                    sizeof(Session->BootId)))) {
        Session->BootId[0] = '\0';
    }

    Rtl->FillMemory(&Previous, sizeof(Previous), 0);
    Status = ReadDurable(Session, &Previous, Error);
    if (RTL_SUCCESS(Status)) {
        PowerCut = BootsDiffer(Previous.BootId, Session->BootId);
    } else if (Status != RTL_STATUS_NOT_FOUND) {
        return Status;
    }

    Rtl->FillMemory(Durable, sizeof(*Durable), 0);
    Durable->Sequence = Previous.Sequence;
    Durable->Recoveries = Previous.Recoveries + (PowerCut ? 1 : 0);
    Durable->RemovedStores = Previous.RemovedStores;

    Status = Rtl->AllocatePages(Rtl, sizeof(*Names), (PPVOID)&Names);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Session->Path,
                           RtlStatusText(Status));
    }

    Status = TraceSessionListStores(Session, Names, Error);
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    for (Index = 0; Index < Names->Count; Index++) {
        PCSZ Name = Names->Names[Index];
        PTRACE_DURABLE_ENTRY Old = TraceDurableEntry(&Previous, Name, FALSE);
        PTRACE_DURABLE_ENTRY New;
        ULONGLONG Limit = TRACE_COMMIT_ALL;
        ULONGLONG Lost = Old != NULL ? Old->Lost : 0;
        ULONGLONG Count = 0;

        TraceJoinPath(FilePath, sizeof(FilePath), Session->Path, Name,
                      TRACE_STORE_FILE_SUFFIX);

        if (PowerCut) {
            if (Old == NULL) {

                //
                // Created after the last sync: nothing of it was promised,
                // and its header may not even be on the device.
                //

                Rtl->DeleteFile(Rtl, FilePath);
                Durable->RemovedStores++;
                continue;
            }
            Limit = Old->RecordCount;
        }

        Status = TraceStoreSettle(Rtl, FilePath, Limit, &Count, &Lost,
                                  Error);
        if (!RTL_SUCCESS(Status)) {
            goto End;
        }

        New = TraceDurableEntry(Durable, Name, TRUE);
        New->RecordCount = Count;
        New->Lost = Lost;
    }

    FlushParentDirectory(Session);
    Status = RTL_STATUS_OK;

End:
    Rtl->Unmap(Rtl, Names, sizeof(*Names));
    return Status;
}

RTL_STATUS
TraceDurableOpenReader(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Reads session.durable, if the session has one, and decides whether the
    machine went down since it was written (another boot id): then
    OpenListedStores limits each store to its count there.

--*/
{
    PRTL Rtl = Session->Rtl;
    RTL_STATUS Status;

    if (!RTL_SUCCESS(Rtl->GetBootId(Rtl, Session->BootId,
                                    sizeof(Session->BootId)))) {
        Session->BootId[0] = '\0';
    }

    Status = ReadDurable(Session, &Session->Durable, Error);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RTL_STATUS_OK;
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Session->HasDurable = TRUE;
    Session->PowerCut = BootsDiffer(Session->Durable.BootId,
                                    Session->BootId);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
FlushStore(
    PTRACE_SESSION Session,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    )
{
    PTRACE_DURABLE_ENTRY Entry;
    ULONGLONG Count;
    RTL_STATUS Status;

    if (Store->FileHandle == INVALID_HANDLE_VALUE) {
        return RTL_STATUS_OK;
    }

    //
    // The count is read before the flush: every record it covers is in
    // the page cache, so the flush takes it to the device.
    //

    Count = __atomic_load_n(&Store->CommittedCount, __ATOMIC_ACQUIRE);
    Status = TraceStoreFlush(Store);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot flush: %s",
                           Store->Path, RtlStatusText(Status));
    }

    Entry = TraceDurableEntry(&Session->Durable, Store->Name, TRUE);
    if (Entry == NULL) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: more than %u stores", Session->Path,
                           TRACE_DURABLE_MAX_ENTRIES);
    }
    Entry->RecordCount = Count;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceSessionSync(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
{
    PRTL Rtl = Session->Rtl;
    RTL_STATUS Status;
    ULONG Count;
    ULONG Index;

    if (!Session->Writable) {
        return RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                           "%s: not open for writing", Session->Path);
    }

    Status = Rtl->FlushFile(Rtl, Session->HeaderHandle);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s/%s: cannot flush: %s",
                           Session->Path, TRACE_SESSION_FILE,
                           RtlStatusText(Status));
    }

    Status = FlushStore(Session, &Session->Strings.Index, Error);
    if (RTL_SUCCESS(Status)) {
        Status = FlushStore(Session, &Session->Strings.Data, Error);
    }

    Count = __atomic_load_n(&Session->NumberOfStores, __ATOMIC_ACQUIRE);
    for (Index = 0; RTL_SUCCESS(Status) && Index < Count; Index++) {
        Status = FlushStore(Session, &Session->Stores[Index], Error);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // The entries of store files created since the last sync, before the
    // file that counts them.
    //

    Status = Rtl->FlushDirectory(Rtl, Session->Path);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot flush the "
                           "directory: %s", Session->Path,
                           RtlStatusText(Status));
    }

    return TraceDurableWrite(Session, 0, Error);
}
