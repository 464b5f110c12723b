/*++

Module Name:

    TraceSession.c

Abstract:

    This module implements sessions: a directory holding `session.tracer`
    (the session header, and the file whose OFD lock marks the one writer)
    and one NAME.store file per store.  Writers open stores on first use by
    schema; readers open every NAME.store they find, so a reader needs no
    list of record types to show a session.

Environment:

    Core: no C runtime; the OS only through PRTL (directories, the
    header file and its lock, pages for the name list).  Called by the
    readers' import context, the CLI, the extension and the recorder;
    calls the store API (TraceStoreWriter.c, TraceStoreReader.c,
    TraceStoreClose.c), the string store (TraceString.c), TraceHash.c and
    the string schemas (TraceSchema.h).

--*/

#include "TraceStoreInternal.h"
#include "TraceSchema.h"
#include "TraceRollup.h"

static
BOOL
EndsWith(
    PCSZ String,
    PCSZ Suffix,
    PSIZE_T StemLength
    )
{
    SIZE_T Length = RtlStringLength(String);
    SIZE_T SuffixLength = RtlStringLength(Suffix);
    SIZE_T Index;

    if (Length <= SuffixLength) {
        return FALSE;
    }

    for (Index = 0; Index < SuffixLength; Index++) {
        if (String[Length - SuffixLength + Index] != Suffix[Index]) {
            return FALSE;
        }
    }

    *StemLength = Length - SuffixLength;
    return TRUE;
}

static
ULONGLONG
SessionHeaderChecksum(
    PRTL Rtl,
    const TRACE_SESSION_HEADER *Header
    )
{
    return Rtl->Hash64(Header, FIELD_OFFSET(TRACE_SESSION_HEADER, Checksum));
}

static
RTL_STATUS
ReadSessionHeader(
    PTRACE_SESSION Session,
    PCSZ HeaderPath,
    PRTL_ERROR Error
    )
{
    PRTL Rtl = Session->Rtl;
    RTL_STATUS Status;
    SIZE_T BytesRead;
    ULONGLONG FileSize;
    PTRACE_SESSION_HEADER Header = &Session->Header;

    //
    // A FIFO would block the read (a directory fails it): refuse anything
    // but a regular file first.
    //

    Status = Rtl->GetFileSize(Rtl, Session->HeaderHandle, &FileSize);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", HeaderPath,
                           RtlStatusText(Status));
    }

    Status = Rtl->ReadFile(Rtl, Session->HeaderHandle, 0, Header,
                           sizeof(*Header), &BytesRead);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", HeaderPath,
                           RtlStatusText(Status));
    }

    if (BytesRead < sizeof(*Header)) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, BytesRead,
                           "%s: truncated session header (%llu bytes, a "
                           "header is %u)", HeaderPath,
                           (ULONGLONG)BytesRead,
                           (ULONG)sizeof(*Header));
    }

    if (Header->Magic != TRACE_SESSION_MAGIC) {
        return RtlSetError(Error, RTL_STATUS_NOT_SESSION, 0, 0,
                           "%s: not a tracestore session header (bad magic)",
                           HeaderPath);
    }

    if (Header->Version != TRACE_SESSION_VERSION ||
        Header->StoreVersion != TRACE_STORE_VERSION) {
        return RtlSetError(Error, RTL_STATUS_BAD_VERSION, 0, 8,
                           "%s: session format version %u (stores %u), this "
                           "build reads version %u (stores %u)", HeaderPath,
                           Header->Version, Header->StoreVersion,
                           TRACE_SESSION_VERSION, TRACE_STORE_VERSION);
    }

    if (SessionHeaderChecksum(Rtl, Header) != Header->Checksum ||
        Header->ClockName[TRACE_NAME_SIZE - 1] != '\0' ||
        Header->Host.HostName[TRACE_HOST_NAME_SIZE - 1] != '\0' ||
        Header->Host.BootId[TRACE_BOOT_ID_SIZE - 1] != '\0' ||
        Header->Host.KernelRelease[TRACE_KERNEL_RELEASE_SIZE - 1] != '\0') {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 0,
                           "%s: corrupt session header (checksum mismatch)",
                           HeaderPath);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
WriteSessionHeader(
    PTRACE_SESSION Session
    )
{
    PRTL Rtl = Session->Rtl;

    Session->Header.Checksum = SessionHeaderChecksum(Rtl, &Session->Header);
    return Rtl->WriteFile(Rtl, Session->HeaderHandle, 0, &Session->Header,
                          sizeof(Session->Header));
}

static
BOOL
CountEntry(
    PVOID Context,
    PCSZ Name
    )
{
    (*(PULONG)Context)++;
    return TRUE;
}

static
VOID
InitializeSession(
    PRTL Rtl,
    PCSZ Path,
    PTRACE_SESSION Session
    )
{
    ULONG Index;
    SIZE_T Length;

    Rtl->FillMemory(Session, sizeof(*Session), 0);
    Session->Rtl = Rtl;
    Session->HeaderHandle = INVALID_HANDLE_VALUE;
    Session->Strings.Rtl = Rtl;
    Session->Strings.Index.FileHandle = INVALID_HANDLE_VALUE;
    Session->Strings.Data.FileHandle = INVALID_HANDLE_VALUE;
    for (Index = 0; Index < TRACE_SESSION_MAX_STORES; Index++) {
        Session->Stores[Index].FileHandle = INVALID_HANDLE_VALUE;
    }

    RtlFormat(Session->Path, sizeof(Session->Path), "%s", Path);

    //
    // "run.trace/" and "run.trace" name the same session.
    //

    Length = RtlStringLength(Session->Path);
    while (Length > 1 && Session->Path[Length - 1] == '/') {
        Session->Path[--Length] = '\0';
    }
}

static
RTL_STATUS
OpenWriterHeader(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Creates the session directory if needed and opens its header file,
    creating it only in an empty directory; takes the writer's lock,
    writes a fresh header into an empty file, and reads the header back.

Arguments:

    Session - Supplies the session, initialized, with its Path.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_LOCKED if another writer has the session,
    RTL_STATUS_NOT_SESSION for a directory that is neither empty nor a
    session, or another error; the header file may be open either way
    (the caller closes the session on failure).

--*/
{
    PRTL Rtl = Session->Rtl;
    PCSZ Path = Session->Path;
    RTL_STATUS Status;
    CHAR HeaderPath[TRACE_PATH_SIZE];
    ULONG Entries = 0;
    ULONGLONG HeaderSize = 0;

    Status = Rtl->CreateDirectory(Rtl, Path);
    if (!RTL_SUCCESS(Status) && Status != RTL_STATUS_EXISTS) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot create session "
                           "directory: %s", Path, RtlStatusText(Status));
    }

    TraceJoinPath(HeaderPath, sizeof(HeaderPath), Path, TRACE_SESSION_FILE,
                  "");

    Status = Rtl->OpenFile(Rtl, HeaderPath, RtlOpenReadWrite,
                           &Session->HeaderHandle);

    if (Status == RTL_STATUS_NOT_FOUND) {

        Status = Rtl->EnumerateDirectory(Rtl, Path, CountEntry, &Entries);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                               RtlStatusText(Status));
        }
        if (Entries != 0) {
            return RtlSetError(Error, RTL_STATUS_NOT_SESSION, 0, 0,
                               "%s: exists and is not a tracestore session "
                               "(no %s); refusing to write into it", Path,
                               TRACE_SESSION_FILE);
        }

        Status = Rtl->OpenFile(Rtl, HeaderPath, RtlOpenCreateNew,
                               &Session->HeaderHandle);
    }

    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", HeaderPath,
                           RtlStatusText(Status));
    }

    //
    // The lock comes before the header is written: an empty header file
    // whose lock we get is then one whose creator died before writing it
    // (SIGKILL between the create and the write), not one being written.
    //

    Status = Rtl->LockFile(Rtl, Session->HeaderHandle, TRUE);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                           Status == RTL_STATUS_LOCKED ?
                           "another process is writing this session" :
                           RtlStatusText(Status));
    }

    Status = Rtl->GetFileSize(Rtl, Session->HeaderHandle, &HeaderSize);
    if (RTL_SUCCESS(Status) && HeaderSize == 0) {
        Session->Header.Magic = TRACE_SESSION_MAGIC;
        Session->Header.Version = TRACE_SESSION_VERSION;
        Session->Header.StoreVersion = TRACE_STORE_VERSION;
        Session->Header.CreatedRealtimeNs =
            Rtl->QueryTime(Rtl, RtlClockRealtime);
        RtlFormat(Session->Header.ClockName,
                  sizeof(Session->Header.ClockName), "unknown");
        Status = WriteSessionHeader(Session);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", HeaderPath,
                           RtlStatusText(Status));
    }

    return ReadSessionHeader(Session, HeaderPath, Error);
}

static
RTL_STATUS
OpenWriterStrings(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens both string stores for writing, rebuilds the interning table
    from the strings already committed, and makes sure id 0 is the empty
    string.

Arguments:

    Session - Supplies the session, its header open and locked.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK or an error; what was opened stays for the caller to
    close with the session.

--*/
{
    PRTL Rtl = Session->Rtl;
    PCSZ Path = Session->Path;
    RTL_STATUS Status;
    CHAR StorePath[TRACE_PATH_SIZE];
    ULONGLONG Id;
    ULONG EmptyId;

    Status = TraceHashInitialize(Rtl, &Session->Strings.Table);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                           RtlStatusText(Status));
    }

    TraceJoinPath(StorePath, sizeof(StorePath), Path,
                  TraceStringDataSchema.Name, TRACE_STORE_FILE_SUFFIX);
    Status = TraceStoreOpenWriter(Rtl, StorePath, &TraceStringDataSchema,
                                  &Session->Strings.Data, Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    TraceJoinPath(StorePath, sizeof(StorePath), Path,
                  TraceStringSchema.Name, TRACE_STORE_FILE_SUFFIX);
    Status = TraceStoreOpenWriter(Rtl, StorePath, &TraceStringSchema,
                                  &Session->Strings.Index, Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Id = 0; Id < Session->Strings.Index.CommittedCount; Id++) {
        PCSZ Text;
        ULONG Length;

        Status = TraceStringLookup(&Session->Strings, (ULONG)Id, &Text,
                                   &Length);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(Error, Status, 0,
                               Id * sizeof(TRACE_STRING_RECORD),
                               "%s: corrupt string %llu", StorePath, Id);
        }

        if (Id >= TRACE_STRING_INTERN_LIMIT) {
            continue;
        }

        Status = TraceHashInsert(&Session->Strings.Table,
                                 Rtl->Hash64(Text, Length), Id);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                               RtlStatusText(Status));
        }
    }

    //
    // Id 0 is the empty string.
    //

    Status = TraceStringIntern(&Session->Strings, "", 0, &EmptyId);
    if (RTL_SUCCESS(Status)) {
        Status = TraceStringCommit(&Session->Strings);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: cannot add the empty "
                           "string (%s, %s): %s", Path,
                           Session->Strings.Data.Path,
                           Session->Strings.Index.Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceSessionOpenWriter(
    PRTL Rtl,
    PCSZ Path,
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens a session for writing, creating the directory and its header if
    needed.  An existing directory that is neither empty nor a session is
    refused, so an import never scatters stores into an unrelated folder.

Arguments:

    Rtl - Supplies the RTL.

    Path - Supplies the session directory.

    Session - Receives the open session.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_LOCKED if another writer has the session, or
    another error; on failure nothing needs closing.

--*/
{
    RTL_STATUS Status;

    if (RtlStringLength(Path) + 64 > TRACE_PATH_SIZE) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: path too long", Path);
    }

    InitializeSession(Rtl, Path, Session);
    Session->Writable = TRUE;
    Session->Strings.Writable = TRUE;

    Status = OpenWriterHeader(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = TraceDurableOpenWriter(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = OpenWriterStrings(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    //
    // What is there is durable before anything is added; from here on a
    // power cut leaves a session that opens (docs/durability.md).
    //

    Status = TraceSessionSync(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }
    Session->HasDurable = TRUE;

    return RTL_STATUS_OK;

Error:
    TraceSessionClose(Session);
    return Status;
}

RTL_STATUS
TraceSessionSetClock(
    PTRACE_SESSION Session,
    PCSZ ClockName
    )
{
    if (!Session->Writable) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    RtlFormat(Session->Header.ClockName, sizeof(Session->Header.ClockName),
              "%s", ClockName);

    return WriteSessionHeader(Session);
}

RTL_STATUS
TraceSessionSetHost(
    PTRACE_SESSION Session,
    PCTRACE_SESSION_HOST Host
    )
{
    PTRACE_SESSION_HOST Mine = &Session->Header.Host;

    if (!Session->Writable) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Mine->HostName[0] != '\0' || Mine->BootId[0] != '\0' ||
        Mine->KernelRelease[0] != '\0') {
        return RTL_STATUS_OK;
    }

    RtlFormat(Mine->HostName, sizeof(Mine->HostName), "%s", Host->HostName);
    RtlFormat(Mine->BootId, sizeof(Mine->BootId), "%s", Host->BootId);
    RtlFormat(Mine->KernelRelease, sizeof(Mine->KernelRelease), "%s",
              Host->KernelRelease);

    return WriteSessionHeader(Session);
}

static
BOOL
CollectStoreName(
    PVOID Context,
    PCSZ Name
    )
{
    PTRACE_STORE_NAMES Enumerate = (PTRACE_STORE_NAMES)Context;
    SIZE_T Stem;
    SIZE_T Index;

    if (!EndsWith(Name, TRACE_STORE_FILE_SUFFIX, &Stem) ||
        Stem >= TRACE_NAME_SIZE) {
        return TRUE;
    }

    if (Enumerate->Count >= ARRAYSIZE(Enumerate->Names)) {
        Enumerate->Overflow = TRUE;
        return FALSE;
    }

    for (Index = 0; Index < Stem; Index++) {
        Enumerate->Names[Enumerate->Count][Index] = Name[Index];
    }
    Enumerate->Names[Enumerate->Count][Stem] = '\0';
    Enumerate->Count++;

    return TRUE;
}

static
RTL_STATUS
OpenReaderHeader(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens and validates a session's header read-only, telling a missing
    directory from one that is not a session.

Arguments:

    Session - Supplies the session, initialized, with its Path.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK or an error; the header file may be open either way
    (the caller closes the session on failure).

--*/
{
    PRTL Rtl = Session->Rtl;
    PCSZ Path = Session->Path;
    RTL_STATUS Status;
    CHAR FilePath[TRACE_PATH_SIZE];

    TraceJoinPath(FilePath, sizeof(FilePath), Path, TRACE_SESSION_FILE, "");

    Status = Rtl->OpenFile(Rtl, FilePath, RtlOpenReadOnly,
                           &Session->HeaderHandle);
    if (Status == RTL_STATUS_NOT_FOUND || Status == RTL_STATUS_NOT_DIRECTORY) {
        ULONG Entries = 0;
        RTL_STATUS DirStatus;

        DirStatus = Rtl->EnumerateDirectory(Rtl, Path, CountEntry, &Entries);
        if (DirStatus == RTL_STATUS_NOT_FOUND) {
            RtlSetError(Error, DirStatus, 0, 0, "%s: no such session "
                        "(the directory does not exist)", Path);
        } else {
            Status = RTL_STATUS_NOT_SESSION;
            RtlSetError(Error, Status, 0, 0, "%s: not a tracestore session "
                        "(no %s)", Path, TRACE_SESSION_FILE);
        }
        return Status;
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", FilePath,
                           RtlStatusText(Status));
    }

    return ReadSessionHeader(Session, FilePath, Error);
}

RTL_STATUS
TraceSessionListStores(
    PTRACE_SESSION Session,
    PTRACE_STORE_NAMES Enumerate,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Collects the name of every NAME.store in the session's directory into
    Enumerate, in name order, so that every reader lists the stores the
    same way.

Arguments:

    Session - Supplies the session.

    Enumerate - Supplies a zeroed context; receives the names.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_TOO_LARGE for more stores than a session
    holds, or the error from reading the directory.

--*/
{
    PRTL Rtl = Session->Rtl;
    PCSZ Path = Session->Path;
    RTL_STATUS Status;
    ULONG Index;
    ULONG Other;

    Status = Rtl->EnumerateDirectory(Rtl, Path, CollectStoreName, Enumerate);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                           RtlStatusText(Status));
    }
    if (Enumerate->Overflow) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: more than %u stores", Path,
                           TRACE_SESSION_MAX_STORES);
    }

    for (Index = 1; Index < Enumerate->Count; Index++) {
        for (Other = Index; Other > 0 &&
             RtlCompareString(Enumerate->Names[Other - 1],
                          Enumerate->Names[Other]) > 0; Other--) {
            CHAR Swap[TRACE_NAME_SIZE];
            Rtl->CopyMemory(Swap, Enumerate->Names[Other], TRACE_NAME_SIZE);
            Rtl->CopyMemory(Enumerate->Names[Other],
                            Enumerate->Names[Other - 1], TRACE_NAME_SIZE);
            Rtl->CopyMemory(Enumerate->Names[Other - 1], Swap,
                            TRACE_NAME_SIZE);
        }
    }

    return RTL_STATUS_OK;
}

static
BOOL
ShownRecords(
    PTRACE_SESSION Session,
    PCSZ Name,
    PULONGLONG Limit
    )
/*++

Routine Description:

    How many records of a store a reader shows: all that are committed,
    unless the machine went down since the last sync (TraceDurable.c):
    then those the sync made durable, and none of a store it does not
    list (FALSE: the file is not opened).

--*/
{
    PTRACE_DURABLE_ENTRY Entry;

    *Limit = TRACE_COMMIT_ALL;
    if (!Session->PowerCut) {
        return TRUE;
    }

    Entry = TraceDurableEntry(&Session->Durable, Name, FALSE);
    if (Entry == NULL) {
        return FALSE;
    }

    *Limit = Entry->RecordCount;
    return TRUE;
}

static
RTL_STATUS
OpenListedStores(
    PTRACE_SESSION Session,
    PTRACE_STORE_NAMES Enumerate,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens every store Enumerate names for reading: the string index first,
    then the string data (see TraceString.c for the order), then the rest
    in name order.  Each store's header must name the store its file does.

Arguments:

    Session - Supplies the session.

    Enumerate - Supplies the store names, sorted.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_CORRUPT for a session without both string
    stores or a store named wrongly, or the first store's error; what was
    opened stays for the caller to close with the session.

--*/
{
    PRTL Rtl = Session->Rtl;
    PCSZ Path = Session->Path;
    RTL_STATUS Status;
    CHAR FilePath[TRACE_PATH_SIZE];
    ULONG Index;
    ULONGLONG Limit;
    BOOL HaveIndex = FALSE;
    BOOL HaveData = FALSE;

    for (Index = 0; Index < Enumerate->Count; Index++) {
        PCSZ Name = Enumerate->Names[Index];
        PTRACE_STORE Store;

        if (RtlStringEqual(Name, TraceStringSchema.Name) &&
            ShownRecords(Session, Name, &Limit)) {
            Store = &Session->Strings.Index;
            HaveIndex = TRUE;
        } else {
            continue;
        }

        TraceJoinPath(FilePath, sizeof(FilePath), Path, Name,
                      TRACE_STORE_FILE_SUFFIX);
        Status = TraceStoreOpenReaderUpTo(Rtl, FilePath, Limit, Store, Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    for (Index = 0; Index < Enumerate->Count; Index++) {
        PCSZ Name = Enumerate->Names[Index];
        PTRACE_STORE Store;

        if (RtlStringEqual(Name, TraceStringSchema.Name)) {
            continue;
        }

        if (!ShownRecords(Session, Name, &Limit)) {
            Session->SkippedStores++;
            continue;
        }

        if (RtlStringEqual(Name, TraceStringDataSchema.Name)) {
            Store = &Session->Strings.Data;
            HaveData = TRUE;
        } else {
            if (Session->NumberOfStores >= TRACE_SESSION_MAX_STORES) {
                return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                                   "%s: more than %u stores", Path,
                                   TRACE_SESSION_MAX_STORES);
            }
            Store = &Session->Stores[Session->NumberOfStores];
        }

        TraceJoinPath(FilePath, sizeof(FilePath), Path, Name,
                      TRACE_STORE_FILE_SUFFIX);
        Status = TraceStoreOpenReaderUpTo(Rtl, FilePath, Limit, Store, Error);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        if (!RtlStringEqual(Store->Name, Name)) {
            Status = RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 32,
                                 "%s: store header names '%s', not '%s'",
                                 FilePath, Store->Name, Name);
            TraceStoreClose(Store);
            return Status;
        }

        if (Store != &Session->Strings.Data) {
            Session->NumberOfStores++;
        }
    }

    if (!HaveIndex || !HaveData) {
        return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, 0,
                           "%s: session has no string store", Path);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
CheckStringLayouts(
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    TraceString.c reads the string stores with their layout compiled in
    (16-byte records, bytes), not through their descriptors: a header
    that says anything else would send it past the records.  Refuses
    such a header, naming the first field that differs.

Arguments:

    Session - Supplies the session, both string stores open.

    Error - Receives the reason on failure.

Return Value:

    RTL_STATUS_OK or RTL_STATUS_CORRUPT.

--*/
{
    PRTL Rtl = Session->Rtl;
    ULONG Index;

    for (Index = 0; Index < 2; Index++) {
        PTRACE_STORE Store = Index == 0 ? &Session->Strings.Index :
                                          &Session->Strings.Data;
        PCTRACE_STORE_SCHEMA Schema = Index == 0 ? &TraceStringSchema :
                                                   &TraceStringDataSchema;

        if (!TraceStoreSchemaMatches(Store->Header, Schema)) {
            const TRACE_STORE_HEADER *Header = Store->Header;
            ULONG Offset = FIELD_OFFSET(TRACE_STORE_HEADER, RecordSize);
            ULONG Column;

            if (Header->RecordSize == Schema->RecordSize) {
                Offset = FIELD_OFFSET(TRACE_STORE_HEADER, NumberOfColumns);
            }
            if (Header->RecordSize == Schema->RecordSize &&
                Header->NumberOfColumns == Schema->NumberOfColumns) {
                for (Column = 0; Column + 1 < Schema->NumberOfColumns &&
                     Rtl->CompareMemory(&Header->Columns[Column],
                                        &Schema->Columns[Column],
                                        FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR,
                                                     Description)) == 0;
                     Column++) {
                }
                Offset = FIELD_OFFSET(TRACE_STORE_HEADER, Columns) +
                         Column * sizeof(TRACE_COLUMN_DESCRIPTOR);
            }
            return RtlSetError(Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s: byte offset %u: not the layout of the "
                               "%s store (record size %u, %u columns; "
                               "this build reads %u, %u)", Store->Path,
                               Offset, Schema->Name, Header->RecordSize,
                               Header->NumberOfColumns, Schema->RecordSize,
                               Schema->NumberOfColumns);
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceSessionOpenReader(
    PRTL Rtl,
    PCSZ Path,
    PTRACE_SESSION Session,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Opens a session read-only: validates session.tracer and opens every
    NAME.store in the directory (in name order), never taking a lock.

Arguments:

    Rtl - Supplies the RTL.

    Path - Supplies the session directory.

    Session - Receives the open session.

    Error - Receives the reason on failure: a missing path, a directory
        that is not a session, or the first store that fails validation.

Return Value:

    RTL_STATUS_OK or an error; on failure nothing needs closing.

--*/
{
    RTL_STATUS Status;
    PTRACE_STORE_NAMES Enumerate = NULL;

    if (RtlStringLength(Path) + 64 > TRACE_PATH_SIZE) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: path too long", Path);
    }

    InitializeSession(Rtl, Path, Session);

    Status = OpenReaderHeader(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = Rtl->AllocatePages(Rtl, sizeof(*Enumerate),
                                (PPVOID)&Enumerate);
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(Error, Status, 0, 0, "%s: %s", Session->Path,
                    RtlStatusText(Status));
        goto Error;
    }

    Status = TraceDurableOpenReader(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = TraceSessionListStores(Session, Enumerate, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = OpenListedStores(Session, Enumerate, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Status = CheckStringLayouts(Session, Error);
    if (!RTL_SUCCESS(Status)) {
        goto Error;
    }

    Rtl->Unmap(Rtl, Enumerate, sizeof(*Enumerate));
    return RTL_STATUS_OK;

Error:
    if (Enumerate != NULL) {
        Rtl->Unmap(Rtl, Enumerate, sizeof(*Enumerate));
    }
    TraceSessionClose(Session);
    return Status;
}

PTRACE_STORE
TraceSessionFindStore(
    PTRACE_SESSION Session,
    PCSZ Name
    )
{
    ULONG Index;

    if (RtlStringEqual(Name, TraceStringSchema.Name)) {
        return &Session->Strings.Index;
    }
    if (RtlStringEqual(Name, TraceStringDataSchema.Name)) {
        return &Session->Strings.Data;
    }

    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        if (RtlStringEqual(Session->Stores[Index].Name, Name)) {
            return &Session->Stores[Index];
        }
    }

    return NULL;
}

RTL_STATUS
TraceSessionOpenStore(
    PTRACE_SESSION Session,
    PCTRACE_STORE_SCHEMA Schema,
    PTRACE_STORE *Store,
    PRTL_ERROR Error
    )
{
    RTL_STATUS Status;
    CHAR FilePath[TRACE_PATH_SIZE];
    PTRACE_STORE Found;

    Found = TraceSessionFindStore(Session, Schema->Name);
    if (Found != NULL) {
        *Store = Found;
        return RTL_STATUS_OK;
    }

    if (!Session->Writable ||
        Session->NumberOfStores >= TRACE_SESSION_MAX_STORES) {
        return RtlSetError(Error, RTL_STATUS_INVALID_PARAMETER, 0, 0,
                           "%s: cannot add store '%s'", Session->Path,
                           Schema->Name);
    }

    if (!TraceJoinPath(FilePath, sizeof(FilePath), Session->Path,
                       Schema->Name, TRACE_STORE_FILE_SUFFIX)) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: path too long", Session->Path);
    }

    Found = &Session->Stores[Session->NumberOfStores];
    Status = TraceStoreOpenWriter(Session->Rtl, FilePath, Schema, Found,
                                  Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // Its rollup, brought up to the committed records.  A store works
    // without one (readers then fold its records themselves), so a
    // failure here fails nothing else.
    //

    {
        RTL_ERROR RollupError;

        RollupError.Message[0] = '\0';
        Session->Rollups[Session->NumberOfStores] = NULL;
        TraceRollupOpenWriter(Session->Rtl, Session->Path, Found,
                              &Session->Strings,
                              &Session->Rollups[Session->NumberOfStores],
                              &RollupError);
    }

    __atomic_store_n(&Session->NumberOfStores, Session->NumberOfStores + 1,
                     __ATOMIC_RELEASE);
    *Store = Found;
    return RTL_STATUS_OK;
}

static
VOID
UpdateRollups(
    PTRACE_SESSION Session,
    ULONG Flags
    )
{
    ULONG Count = __atomic_load_n(&Session->NumberOfStores, __ATOMIC_ACQUIRE);
    ULONG Index;
    PTRACE_ROLLUP Rollup;

    for (Index = 0; Index < Count; Index++) {
        Rollup = Session->Rollups[Index];
        if (Rollup == NULL) {
            continue;
        }

        //
        // Another thread than the writer's may not read the store's header
        // (it moves when the file outgrows its mapping): the fold reads
        // the count through its own mapping.
        //

        if (!RTL_SUCCESS(TraceRollupUpdate(
                Rollup, (Flags & TRACE_ROLLUP_ELSEWHERE) ? TRACE_COMMIT_ALL :
                        Session->Stores[Index].CommittedCount, Flags))) {
            Session->Rollups[Index] = NULL;
            TraceRollupClose(Rollup);
        }
    }
}

VOID
TraceSessionUpdateRollups(
    PTRACE_SESSION Session,
    BOOL Publish
    )
{
    UpdateRollups(Session, TRACE_ROLLUP_ELSEWHERE |
                           (Publish ? TRACE_ROLLUP_PUBLISH : 0));
}

RTL_STATUS
TraceSessionCommit(
    PTRACE_SESSION Session
    )
{
    RTL_STATUS Status;
    ULONG Index;

    Status = TraceStringCommit(&Session->Strings);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        Status = TraceStoreCommit(&Session->Stores[Index], TRACE_COMMIT_ALL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    if (!Session->RollupsElsewhere) {
        UpdateRollups(Session, 0);
    }

    return RTL_STATUS_OK;
}

static
LONG
CloseCounted(
    PTRACE_SESSION Session,
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Closes a store; a writer's final count goes into its durable table
    first.  Returns non-zero if the close's flush failed.

--*/
{
    PTRACE_DURABLE_ENTRY Entry;

    if (Session->Writable && Session->HasDurable &&
        Store->FileHandle != INVALID_HANDLE_VALUE) {
        Entry = TraceDurableEntry(&Session->Durable, Store->Name, TRUE);
        if (Entry != NULL) {
            Entry->RecordCount = Store->CommittedCount;
        } else {
            Session->HasDurable = FALSE;
        }
    }

    return RTL_SUCCESS(TraceStoreClose(Store)) ? 0 : 1;
}

VOID
TraceSessionClose(
    PTRACE_SESSION Session
    )
/*++

Routine Description:

    Closes every store (dependents first, strings last) and the session
    header, which releases the writer lock.  Uncommitted records are
    discarded: commit first.

--*/
{
    PRTL Rtl = Session->Rtl;
    ULONG Index;
    LONG Status = 0;

    //
    // A writer's rollups take in the last commit and are published for
    // good, while the stores are still mapped.
    //

    if (Session->Writable) {
        UpdateRollups(Session, TRACE_ROLLUP_PUBLISH);
        for (Index = 0; Index < Session->NumberOfStores; Index++) {
            TraceRollupClose(Session->Rollups[Index]);
            Session->Rollups[Index] = NULL;
        }
    }

    //
    // Trim every store (freeing disk blocks, which the device would
    // otherwise queue behind the writes), then unmap each and start its
    // write-back, so that the device works on all of them while each
    // flush waits.
    //

    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        TraceStoreTrim(&Session->Stores[Index]);
    }
    TraceStoreTrim(&Session->Strings.Index);
    TraceStoreTrim(&Session->Strings.Data);
    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        TraceStoreStartClose(&Session->Stores[Index]);
    }
    TraceStoreStartClose(&Session->Strings.Index);
    TraceStoreStartClose(&Session->Strings.Data);

    for (Index = 0; Index < Session->NumberOfStores; Index++) {
        Status |= CloseCounted(Session, &Session->Stores[Index]);
    }
    Session->NumberOfStores = 0;

    Status |= CloseCounted(Session, &Session->Strings.Index);
    Status |= CloseCounted(Session, &Session->Strings.Data);
    TraceHashDestroy(&Session->Strings.Table);

    //
    // A writer that opened fully records the final counts as durable,
    // once every store's flush succeeded (else the last sync's stand).
    //

    if (Session->Writable && Session->HasDurable && Status == 0 &&
        RTL_SUCCESS(Rtl->FlushFile(Rtl, Session->HeaderHandle))) {
        RTL_ERROR Ignored;
        TraceDurableWrite(Session, TRACE_DURABLE_CLOSED, &Ignored);
    }
    Session->HasDurable = FALSE;

    if (Session->HeaderHandle != INVALID_HANDLE_VALUE) {
        Rtl->CloseFile(Rtl, Session->HeaderHandle);
        Session->HeaderHandle = INVALID_HANDLE_VALUE;
    }
}
