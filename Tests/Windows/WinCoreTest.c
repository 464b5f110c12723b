/*++

Module Name:

    WinCoreTest.c

Abstract:

    The core on Windows, with no C runtime: this program is made of the
    core (Rtl with its Windows back end, TraceStore, the reader decoders)
    and this file, linked with -nostdlib against kernel32 (and libgcc for
    ___chkstk_ms).  Building it is the CRT-free proof on Windows, and
    Tests/Windows/check_imports.sh then lists its imports.  Run under wine
    by Tests/Windows/run-wine.sh:

        WinCoreTest import INPUT SESSION EXPECTED_EVENTS
            NoCrtImportMain (Tests/Core/NoCrtImport.c): ftrace text into a
            session, read back, the event lines counted.

        WinCoreTest grow STORE RECORDS
            a writer appends RECORDS records (the file grows chunk by
            chunk: the back end swaps its view), commits every 4096,
            closes (trim); a reader checks every record; the writer
            reopens and appends 1000 more (recovery path); checked again,
            and the file trimmed to the records, page-rounded.

        WinCoreTest write STORE RECORDS PER_COMMIT
        WinCoreTest follow STORE RECORDS
            two processes: the writer appends and commits; the follower
            waits for the store, checks that a second writer is refused
            (LockFileEx) while the first runs, and follows the snapshots
            until RECORDS are committed, checking every new record and
            that counts never go back.

        WinCoreTest recover STORE
            after a writer was killed: the lock is free, the committed
            records intact, appending resumes after them.

        WinCoreTest bench STORE RECORDS
            times appending RECORDS records to a new store (benchmark).

        WinCoreTest plain FILE RECORDS
            the same records written through one view of a file grown
            beforehand (the benchmark's reference).

    Records are 32 bytes whose fields follow from their index.  Exit status
    0 on success, 1 on a failed check, 2 on bad usage.

Environment:

    Test program, freestanding, no C runtime; Windows x64 only.  Calls
    the core (TraceStore.h) and kernel32 (RtlWindowsApi.h).

--*/

#include "Rtl/Windows/RtlWindowsApi.h"
#include "TraceStore/TraceStore.h"

extern RTL Rtl;
extern HANDLE NoCrtErrorHandle;
int NoCrtImportMain(LONG_PTR ArgumentCount, PCSZ *Arguments);

#define MAX_ARGUMENTS 16
#define SALT 0x5eedULL

typedef struct _WIN_TEST_RECORD {
    LONGLONG Timestamp;
    ULONGLONG Sequence;
    ULONGLONG Payload;
    ULONGLONG Check;
} WIN_TEST_RECORD, *PWIN_TEST_RECORD;

C_ASSERT(sizeof(WIN_TEST_RECORD) == 32);

static const TRACE_COLUMN_DESCRIPTOR WinTestColumns[] = {
    { "ts", TraceColumnInt64, 0, 8, TRACE_COLUMN_TIMESTAMP, "1000 + 10*seq" },
    { "seq", TraceColumnUInt64, 8, 8, 0, "index of the record" },
    { "payload", TraceColumnUInt64, 16, 8, 0, "seq * golden ratio ^ salt" },
    { "check", TraceColumnUInt64, 24, 8, 0, "ts ^ seq ^ payload" },
};

static const TRACE_STORE_SCHEMA WinTestSchema = {
    "win_test_record",
    (ULONG)sizeof(WIN_TEST_RECORD),
    (ULONG)ARRAYSIZE(WinTestColumns),
    WinTestColumns,
    "32-byte records whose content follows from their index",
};

static CHAR ArgumentText[4096];

static
VOID
Say(
    PCSZ Format,
    ...
    )
{
    CHAR Buffer[1024];
    va_list Args;
    SIZE_T Length;

    va_start(Args, Format);
    Length = RtlFormatV(Buffer, sizeof(Buffer), Format, Args);
    va_end(Args);

    Rtl.WriteFile(&Rtl, NoCrtErrorHandle, 0, Buffer, Length);
}

#define CHECK(Condition, ...)                                               \
    do {                                                                    \
        if (!(Condition)) {                                                 \
            Say("WinCoreTest: line %d: ", __LINE__);                        \
            Say(__VA_ARGS__);                                               \
            Say("\n");                                                      \
            return 1;                                                       \
        }                                                                   \
    } while (0)

static
VOID
FillRecord(
    PTRACE_STORE Store,
    ULONGLONG Index
    )
{
    PWIN_TEST_RECORD Record;

    Record = (PWIN_TEST_RECORD)(Store->Base + Index * Store->RecordSize);
    Record->Timestamp = (LONGLONG)(1000 + 10 * Index);
    Record->Sequence = Index;
    Record->Payload = (Index * 0x9e3779b97f4a7c15ULL) ^ SALT;
    Record->Check = (ULONGLONG)Record->Timestamp ^ Index ^ Record->Payload;
}

static
BOOL
RecordValid(
    PTRACE_STORE Store,
    ULONGLONG Index
    )
{
    const WIN_TEST_RECORD *Record;

    Record = (const WIN_TEST_RECORD *)(Store->Base +
                                       Index * Store->RecordSize);
    return Record->Timestamp == (LONGLONG)(1000 + 10 * Index) &&
           Record->Sequence == Index &&
           Record->Payload == ((Index * 0x9e3779b97f4a7c15ULL) ^ SALT) &&
           Record->Check == ((ULONGLONG)Record->Timestamp ^ Index ^
                             Record->Payload);
}

static
RTL_STATUS
Append(
    PTRACE_STORE Store,
    ULONGLONG Records,
    ULONGLONG PerCommit
    )
{
    ULONGLONG Done = 0;
    ULONGLONG Index;
    ULONGLONG Offset;
    RTL_STATUS Status;

    while (Done < Records) {
        ULONGLONG Count = Records - Done < PerCommit ? Records - Done :
                          PerCommit;
        Status = TraceStoreReserve(Store, Count, &Index);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        for (Offset = 0; Offset < Count; Offset++) {
            FillRecord(Store, Index + Offset);
        }
        Status = TraceStoreCommit(Store, TRACE_COMMIT_ALL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Done += Count;
    }

    return RTL_STATUS_OK;
}

static
int
VerifyStore(
    PCSZ Path,
    ULONGLONG Expected
    )
{
    TRACE_STORE Store;
    TRACE_STORE_SNAPSHOT Snapshot;
    RTL_ERROR Error;
    ULONGLONG Index;

    RtlFillMemory(&Store, sizeof(Store), 0);
    CHECK(RTL_SUCCESS(TraceStoreOpenReader(&Rtl, Path, &Store, &Error)),
          "%s", Error.Message);
    CHECK(RTL_SUCCESS(TraceStoreTakeSnapshot(&Store, &Snapshot, &Error)),
          "%s", Error.Message);
    CHECK(Snapshot.RecordCount == Expected, "%s: %llu records, expected "
          "%llu", Path, Snapshot.RecordCount, Expected);
    CHECK(Expected == 0 || Snapshot.LastTs == (LONGLONG)(1000 + 10 *
                                                        (Expected - 1)),
          "%s: last ts %lld", Path, Snapshot.LastTs);
    for (Index = 0; Index < Expected; Index++) {
        CHECK(RecordValid(&Store, Index), "%s: record %llu wrong", Path,
              Index);
    }
    TraceStoreClose(&Store);
    return 0;
}

static
int
CheckTrimmed(
    PCSZ Path,
    ULONGLONG Records
    )
/*++

Routine Description:

    The closed writer's file holds the committed records, page-rounded:
    the trim, put off while the file was mapped, was done at unmap.

--*/
{
    HANDLE Handle;
    ULONGLONG Size = 0;
    ULONGLONG Expected = ALIGN_UP(TRACE_STORE_HEADER_SIZE + Records *
                                  sizeof(WIN_TEST_RECORD), RTL_PAGE_SIZE);

    CHECK(RTL_SUCCESS(Rtl.OpenFile(&Rtl, Path, RtlOpenReadOnly, &Handle)),
          "%s: cannot open", Path);
    Rtl.GetFileSize(&Rtl, Handle, &Size);
    Rtl.CloseFile(&Rtl, Handle);
    CHECK(Size == Expected, "%s: %llu bytes after close, expected %llu",
          Path, Size, Expected);
    return 0;
}

static
int
Grow(
    PCSZ Path,
    ULONGLONG Records
    )
{
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;
    int Result;

    RtlFillMemory(&Store, sizeof(Store), 0);
    CHECK(RTL_SUCCESS(TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema,
                                           &Store, &Error)),
          "%s", Error.Message);
    Status = Append(&Store, Records, 4096);
    CHECK(RTL_SUCCESS(Status), "append: %s", RtlStatusText(Status));
    TraceStoreClose(&Store);

    Result = VerifyStore(Path, Records);
    if (Result != 0) {
        return Result;
    }

    RtlFillMemory(&Store, sizeof(Store), 0);
    CHECK(RTL_SUCCESS(TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema,
                                           &Store, &Error)),
          "reopen: %s", Error.Message);
    CHECK(Store.CommittedCount == Records, "reopened at %llu",
          Store.CommittedCount);
    Status = Append(&Store, 1000, 100);
    CHECK(RTL_SUCCESS(Status), "append after reopen: %s",
          RtlStatusText(Status));
    TraceStoreClose(&Store);

    Result = VerifyStore(Path, Records + 1000);
    if (Result == 0) {
        Result = CheckTrimmed(Path, Records + 1000);
    }
    if (Result == 0) {
        Say("grow: %llu records written, reopened, appended, verified\n",
            Records + 1000);
    }
    return Result;
}

static
int
Write(
    PCSZ Path,
    ULONGLONG Records,
    ULONGLONG PerCommit
    )
{
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;

    RtlFillMemory(&Store, sizeof(Store), 0);
    CHECK(RTL_SUCCESS(TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema,
                                           &Store, &Error)),
          "%s", Error.Message);
    Status = TraceStoreCommit(&Store, TRACE_COMMIT_ALL);
    CHECK(RTL_SUCCESS(Status), "commit: %s", RtlStatusText(Status));

    //
    // Give the follower time to open the store and try the lock.
    //

    Sleep(300);
    Status = Append(&Store, Records, PerCommit);
    CHECK(RTL_SUCCESS(Status), "append: %s", RtlStatusText(Status));
    TraceStoreClose(&Store);
    Say("write: %llu records committed\n", Records);
    return 0;
}

static
int
Follow(
    PCSZ Path,
    ULONGLONG Records
    )
{
    TRACE_STORE Store;
    TRACE_STORE Second;
    TRACE_STORE_SNAPSHOT Snapshot;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONGLONG Last = 0;
    ULONGLONG Distinct = 0;
    ULONGLONG Index;
    ULONG Tries;

    RtlFillMemory(&Store, sizeof(Store), 0);
    for (Tries = 0;; Tries++) {
        Status = TraceStoreOpenReader(&Rtl, Path, &Store, &Error);
        if (RTL_SUCCESS(Status)) {
            break;
        }
        CHECK(Tries < 600, "the writer's store never appeared: %s",
              Error.Message);
        Sleep(50);
    }

    RtlFillMemory(&Second, sizeof(Second), 0);
    Status = TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema, &Second,
                                  &Error);
    CHECK(Status == RTL_STATUS_LOCKED, "a second writer was not refused: "
          "%s", RTL_SUCCESS(Status) ? "opened" : Error.Message);

    for (Tries = 0; Last < Records; Tries++) {
        Status = TraceStoreTakeSnapshot(&Store, &Snapshot, &Error);
        CHECK(RTL_SUCCESS(Status), "%s", Error.Message);
        CHECK(Snapshot.RecordCount >= Last, "count went back from %llu to "
              "%llu", Last, Snapshot.RecordCount);
        CHECK(Snapshot.RecordCount <= Records, "count %llu past the end",
              Snapshot.RecordCount);
        for (Index = Last; Index < Snapshot.RecordCount; Index++) {
            CHECK(RecordValid(&Store, Index), "record %llu incomplete "
                  "(count %llu)", Index, Snapshot.RecordCount);
        }
        if (Snapshot.RecordCount > Last) {
            Distinct++;
            Last = Snapshot.RecordCount;
        } else {
            CHECK(Tries < 2000000, "no progress at %llu records", Last);
        }
    }
    TraceStoreClose(&Store);

    CHECK(Distinct >= 2, "saw only %llu distinct counts", Distinct);
    Say("follow: %llu records seen in %llu steps, second writer refused\n",
        Last, Distinct);
    return 0;
}

static
int
Bench(
    PCSZ Path,
    ULONGLONG Records
    )
/*++

Routine Description:

    Times appending Records records to a new store growing from empty,
    committing every 4096 (open and close off the clock), and prints the
    seconds and rates (Tests/Windows/bench_wine.sh).

--*/
{
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;
    LONGLONG Start;
    LONGLONG Elapsed;

    RtlFillMemory(&Store, sizeof(Store), 0);
    CHECK(RTL_SUCCESS(TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema,
                                           &Store, &Error)),
          "%s", Error.Message);
    Start = Rtl.QueryTime(&Rtl, RtlClockMonotonic);
    Status = Append(&Store, Records, 4096);
    Elapsed = Rtl.QueryTime(&Rtl, RtlClockMonotonic) - Start;
    CHECK(RTL_SUCCESS(Status), "append: %s", RtlStatusText(Status));
    TraceStoreClose(&Store);
    CHECK(Elapsed > 0, "no time passed");

    Say("bench: %llu records in %llu us: %llu MB/s, %llu k records/s\n",
        Records, (ULONGLONG)Elapsed / 1000,
        Records * 32 * 1000 / (ULONGLONG)Elapsed,
        Records * 1000000 / (ULONGLONG)Elapsed);
    return 0;
}

static
int
Plain(
    PCSZ Path,
    ULONGLONG Records
    )
/*++

Routine Description:

    The benchmark's reference: the same records written through one view of
    a file grown to its final size beforehand (GrowFile, MapFile; no store,
    no view swaps), timed from the first write to the last.

--*/
{
    HANDLE Handle;
    PVOID Address;
    SIZE_T Size = (SIZE_T)ALIGN_UP(Records * sizeof(WIN_TEST_RECORD),
                                   RTL_PAGE_SIZE);
    TRACE_STORE Fake;
    LONGLONG Start;
    LONGLONG Elapsed;
    ULONGLONG Index;

    CHECK(RTL_SUCCESS(Rtl.OpenFile(&Rtl, Path, RtlOpenAlways, &Handle)),
          "%s: cannot create", Path);
    CHECK(RTL_SUCCESS(Rtl.GrowFile(&Rtl, Handle, Size)), "grow");
    CHECK(RTL_SUCCESS(Rtl.MapFile(&Rtl, Handle, 0, Size, TRUE, NULL,
                                  &Address)), "map");
    RtlFillMemory(&Fake, sizeof(Fake), 0);
    Fake.Base = Address;
    Fake.RecordSize = sizeof(WIN_TEST_RECORD);

    Start = Rtl.QueryTime(&Rtl, RtlClockMonotonic);
    for (Index = 0; Index < Records; Index++) {
        FillRecord(&Fake, Index);
    }
    Elapsed = Rtl.QueryTime(&Rtl, RtlClockMonotonic) - Start;
    Rtl.Unmap(&Rtl, Address, Size);
    Rtl.CloseFile(&Rtl, Handle);
    CHECK(Elapsed > 0, "no time passed");

    Say("plain: %llu records in %llu us: %llu MB/s\n", Records,
        (ULONGLONG)Elapsed / 1000, Records * 32 * 1000 / (ULONGLONG)Elapsed);
    return 0;
}

static
int
Recover(
    PCSZ Path
    )
/*++

Routine Description:

    After a writer process was killed (SIGKILL under wine): a new writer
    must get the lock (the system dropped the dead holder's), resume after
    the last commit with every committed record intact, and append.

--*/
{
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONGLONG Committed;
    ULONGLONG Index;
    int Result;

    RtlFillMemory(&Store, sizeof(Store), 0);
    Status = TraceStoreOpenWriter(&Rtl, Path, &WinTestSchema, &Store, &Error);
    CHECK(RTL_SUCCESS(Status), "the killed writer's store does not reopen "
          "for writing: %s", Error.Message);
    Committed = Store.CommittedCount;
    CHECK(Committed != 0, "nothing was committed before the kill");
    for (Index = 0; Index < Committed; Index++) {
        CHECK(RecordValid(&Store, Index), "committed record %llu damaged",
              Index);
    }
    Status = Append(&Store, 1000, 100);
    CHECK(RTL_SUCCESS(Status), "append after recovery: %s",
          RtlStatusText(Status));
    TraceStoreClose(&Store);

    Result = VerifyStore(Path, Committed + 1000);
    if (Result == 0) {
        Say("recover: %llu committed records kept, lock free, 1000 "
            "appended\n", Committed);
    }
    return Result;
}

static
LONG
SplitCommandLine(
    PCSZ *Arguments
    )
/*++

Routine Description:

    Splits GetCommandLineA at blanks, honouring double quotes (no
    backslash escapes: test paths have none).

--*/
{
    PCSZ Source = GetCommandLineA();
    PCHAR Out = ArgumentText;
    PCHAR End = ArgumentText + sizeof(ArgumentText) - 1;
    LONG Count = 0;

    while (*Source != '\0' && Count < MAX_ARGUMENTS) {
        BOOL Quoted = FALSE;

        while (*Source == ' ' || *Source == '\t') {
            Source++;
        }
        if (*Source == '\0') {
            break;
        }
        Arguments[Count++] = Out;
        while (*Source != '\0' && (Quoted ||
                                   (*Source != ' ' && *Source != '\t'))) {
            if (*Source == '"') {
                Quoted = !Quoted;
            } else if (Out < End) {
                *Out++ = *Source;
            }
            Source++;
        }
        if (Out < End) {
            *Out++ = '\0';
        }
    }
    *End = '\0';

    return Count;
}

static
BOOL
Number(
    PCSZ Text,
    PULONGLONG Value
    )
{
    *Value = 0;
    if (*Text == '\0') {
        return FALSE;
    }
    for (; *Text != '\0'; Text++) {
        if (*Text < '0' || *Text > '9') {
            return FALSE;
        }
        *Value = *Value * 10 + (ULONGLONG)(*Text - '0');
    }
    return TRUE;
}

static
int
WinCoreTestMain(
    LONG Count,
    PCSZ *Arguments
    )
{
    ULONGLONG First = 0;
    ULONGLONG Second = 0;

    if (Count >= 2 && RtlStringEqual(Arguments[1], "import")) {
        return NoCrtImportMain(Count - 1, Arguments + 1);
    }
    if (Count == 4 && RtlStringEqual(Arguments[1], "grow") &&
        Number(Arguments[3], &First)) {
        return Grow(Arguments[2], First);
    }
    if (Count == 4 && RtlStringEqual(Arguments[1], "plain") &&
        Number(Arguments[3], &First)) {
        return Plain(Arguments[2], First);
    }
    if (Count == 3 && RtlStringEqual(Arguments[1], "recover")) {
        return Recover(Arguments[2]);
    }
    if (Count == 4 && RtlStringEqual(Arguments[1], "bench") &&
        Number(Arguments[3], &First)) {
        return Bench(Arguments[2], First);
    }
    if (Count == 5 && RtlStringEqual(Arguments[1], "write") &&
        Number(Arguments[3], &First) && Number(Arguments[4], &Second) &&
        Second != 0) {
        return Write(Arguments[2], First, Second);
    }
    if (Count == 4 && RtlStringEqual(Arguments[1], "follow") &&
        Number(Arguments[3], &First)) {
        return Follow(Arguments[2], First);
    }

    Say("usage: WinCoreTest import INPUT SESSION EXPECTED_EVENTS\n"
        "       WinCoreTest grow STORE RECORDS\n"
        "       WinCoreTest write STORE RECORDS PER_COMMIT\n"
        "       WinCoreTest follow STORE RECORDS\n"
        "       WinCoreTest bench STORE RECORDS\n"
        "       WinCoreTest recover STORE\n"
        "       WinCoreTest plain FILE RECORDS\n");
    return 2;
}

VOID
WinCoreTestStart(
    VOID
    )
/*++

Routine Description:

    The entry point (-e WinCoreTestStart): no C runtime start-up runs.

--*/
{
    PCSZ Arguments[MAX_ARGUMENTS];
    LONG Count;

    InitializeRtl(&Rtl);
    NoCrtErrorHandle = (HANDLE)GetStdHandle(WIN_STD_ERROR_HANDLE);
    Count = SplitCommandLine(Arguments);
    ExitProcess((ULONG)WinCoreTestMain(Count, Arguments));
}
