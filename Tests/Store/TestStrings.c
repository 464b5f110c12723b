/*++

Module Name:

    TestStrings.c

Abstract:

    Unit tests of the TraceStore component's string interning (the string
    and string_data stores), the hash table under it, and sessions (open,
    reopen, a directory that is not a session).  Same driver and rules as
    TestStore.c, whose store cases these used to share a file with:

    Usage: TestStrings CASE [SCRATCH_BASE]   run one case (CTest runs each
                                             case as its own entry)
           TestStrings all                   run every case
           TestStrings list                  print the case names

    Every expected value comes from the test's own model of the data (the
    strings are a function of their index) or from an independent reading
    of the files, never from the core's output.

--*/

#include "StoreUnitTest.h"

//
// ---------------------------------------------------------------------------
// The hash table.
// ---------------------------------------------------------------------------
//

static void
CaseHashTable(const char *Dir)
{
    TRACE_HASH_TABLE Table;
    ULONGLONG Key;
    ULONGLONG Value;
    ULONGLONG Cursor;
    ULONGLONG Seen[8];
    ULONG Found;
    const ULONGLONG Count = 300000;

    (void)Dir;
    memset(&Table, 0, sizeof(Table));
    CHECK_STATUS(TraceHashInitialize(&Rtl, &Table), NULL);

    for (Key = 1; Key <= Count; Key++) {
        CHECK_STATUS(TraceHashInsert(&Table, TestMix(Key) | 1, Key * 3),
                     NULL);
    }
    CHECK(Table.Count == Count, "count %llu", (unsigned long long)Table.Count);
    for (Key = 1; Key <= Count; Key++) {
        Cursor = 0;
        CHECK(TraceHashFind(&Table, TestMix(Key) | 1, &Cursor, &Value),
              "key %llu not found", (unsigned long long)Key);
        CHECK(Value == Key * 3, "value %llu", (unsigned long long)Value);
    }
    Cursor = 0;
    CHECK(!TraceHashFind(&Table, 2, &Cursor, &Value), "found an absent key");

    //
    // Duplicates (colliding keys are the string interner's normal case).
    //

    Key = TestMix(42) | 1;
    CHECK_STATUS(TraceHashInsert(&Table, Key, 1000), NULL);
    CHECK_STATUS(TraceHashInsert(&Table, Key, 1001), NULL);
    CHECK_STATUS(TraceHashInsert(&Table, Key, 1002), NULL);
    Cursor = 0;
    Found = 0;
    while (Found < ARRAYSIZE(Seen) && TraceHashFind(&Table, Key, &Cursor,
                                                     &Value)) {
        Seen[Found++] = Value;
    }
    CHECK(Found == 4, "iterated %u duplicates, expected 4", Found);
    {
        ULONGLONG Sum = 0;
        ULONG Index;
        for (Index = 0; Index < Found; Index++) {
            Sum += Seen[Index];
        }
        CHECK(Sum == 126 + 1000 + 1001 + 1002, "duplicate values sum %llu",
              (unsigned long long)Sum);
    }

    //
    // Set replaces; Remove removes one.
    //

    Key = TestMix(7) | 1;
    CHECK_STATUS(TraceHashSet(&Table, Key, 99), NULL);
    Cursor = 0;
    CHECK(TraceHashFind(&Table, Key, &Cursor, &Value) && Value == 99,
          "Set did not replace: %llu", (unsigned long long)Value);
    CHECK(!TraceHashFind(&Table, Key, &Cursor, &Value),
          "Set added a second entry");
    CHECK_STATUS(TraceHashSet(&Table, 12345678ULL << 1, 5), NULL);
    Cursor = 0;
    CHECK(TraceHashFind(&Table, 12345678ULL << 1, &Cursor, &Value) &&
          Value == 5, "Set of a new key");

    Key = TestMix(5) | 1;
    CHECK(TraceHashRemove(&Table, Key), "remove");
    Cursor = 0;
    CHECK(!TraceHashFind(&Table, Key, &Cursor, &Value), "found after remove");
    CHECK(!TraceHashRemove(&Table, Key), "removed twice");

    //
    // Everything else is still there after the removal.
    //

    for (Key = 1; Key <= Count; Key += 7) {
        if (Key == 5 || Key == 7 || Key == 42) {
            continue;
        }
        Cursor = 0;
        CHECK(TraceHashFind(&Table, TestMix(Key) | 1, &Cursor, &Value) &&
              Value == Key * 3, "key %llu lost", (unsigned long long)Key);
    }
    TraceHashDestroy(&Table);
}

//
// ---------------------------------------------------------------------------
// Strings and sessions.
// ---------------------------------------------------------------------------
//

static PTRACE_SESSION
OpenSessionWriter(const char *Path)
{
    PTRACE_SESSION Session = TestAllocateSession(&Rtl);
    RTL_ERROR Error;

    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenWriter(&Rtl, Path, Session, &Error),
                 &Error);
    return Session;
}

static PTRACE_SESSION
OpenSessionReader(const char *Path)
{
    PTRACE_SESSION Session = TestAllocateSession(&Rtl);
    RTL_ERROR Error;

    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenReader(&Rtl, Path, Session, &Error),
                 &Error);
    return Session;
}

static void
CloseSession(PTRACE_SESSION Session)
{
    TraceSessionClose(Session);
    TestFreeSession(&Rtl, Session);
}

//
// The Nth test string: varied lengths (1 .. ~300), every byte value but
// NUL, distinct for distinct N.
//

static size_t
MakeString(char *Buffer, size_t Size, ULONGLONG N)
{
    size_t Length = (size_t)snprintf(Buffer, Size, "s%llu:",
                                     (unsigned long long)N);
    size_t Extra = (size_t)(TestMix(N) % 300);
    size_t Index;

    for (Index = 0; Index < Extra && Length + 1 < Size; Index++) {
        Buffer[Length++] = (char)(1 + (TestMix(N + Index) % 255));
    }
    Buffer[Length] = '\0';
    return Length;
}

static void
ExpectLookup(
    PTRACE_STRING_TABLE Strings,
    ULONG Id,
    const char *Text,
    size_t Length,
    const char *What
    )
{
    PCSZ Found = NULL;
    ULONG FoundLength = ~0u;

    CHECK_STATUS(TraceStringLookup(Strings, Id, &Found, &FoundLength), NULL);
    CHECK(FoundLength == Length, "%s: id %u has length %u, expected %zu",
          What, Id, FoundLength, Length);
    CHECK(memcmp(Found, Text, Length) == 0, "%s: id %u has other bytes",
          What, Id);
    CHECK(Found[Length] == '\0', "%s: id %u is not NUL-terminated", What, Id);
}

static ULONG
Intern(PTRACE_STRING_TABLE Strings, const char *Text, size_t Length)
{
    ULONG Id = 0x5a5a5a5a;

    CHECK_STATUS(TraceStringIntern(Strings, Text, (ULONG)Length, &Id), NULL);
    CHECK(Id != TRACE_STRING_NULL, "interned to the NULL id");
    return Id;
}

static int
CompareIds(const void *A, const void *B)
{
    ULONG Left = *(const ULONG *)A;
    ULONG Right = *(const ULONG *)B;

    return Left < Right ? -1 : Left > Right;
}

static void
CaseStrings(const char *Dir)
{
    char Path[1024];
    char Buffer[512];
    PTRACE_SESSION Writer;
    PTRACE_SESSION Reader;
    PTRACE_STRING_TABLE Strings;
    ULONG Hello;
    ULONG World;
    ULONG Late;
    ULONG *Ids;
    ULONGLONG N;
    size_t Length;
    PCSZ Text;
    ULONG TextLength;
    RTL_STATUS Status;
    char *Long;
    const ULONGLONG Count = 50000;

    StorePath(Path, sizeof(Path), Dir, "strings.trace");
    Writer = OpenSessionWriter(Path);
    Strings = &Writer->Strings;

    CHECK(Intern(Strings, "", 0) == 0, "\"\" is not id 0");
    Hello = Intern(Strings, "hello", 5);
    World = Intern(Strings, "world", 5);
    CHECK(Hello != World, "hello and world share id %u", Hello);
    CHECK(Hello != 0 && World != 0, "id 0 reused");
    CHECK(Intern(Strings, "hello", 5) == Hello, "hello interned twice");
    CHECK(Intern(Strings, "hello world", 5) == Hello,
          "a prefix given by length is not 'hello'");
    CHECK(Intern(Strings, "hell", 4) != Hello, "hell == hello");
    CHECK(Intern(Strings, "hello!", 6) != Hello, "hello! == hello");
    ExpectLookup(Strings, Hello, "hello", 5, "writer");
    ExpectLookup(Strings, World, "world", 5, "writer");
    ExpectLookup(Strings, 0, "", 0, "writer");

    Ids = calloc(Count, sizeof(ULONG));
    for (N = 0; N < Count; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        Ids[N] = Intern(Strings, Buffer, Length);
        CHECK(Ids[N] != Hello && Ids[N] != World && Ids[N] != 0,
              "string %llu reused a fixed id", (unsigned long long)N);
        if (N != 0) {
            CHECK(Ids[N] != Ids[N - 1], "strings %llu and %llu share id %u",
                  (unsigned long long)N - 1, (unsigned long long)N, Ids[N]);
        }
    }

    //
    // Distinct texts, distinct ids (sort a copy).
    //

    {
        ULONG *Sorted = malloc(Count * sizeof(ULONG));
        memcpy(Sorted, Ids, Count * sizeof(ULONG));
        qsort(Sorted, Count, sizeof(ULONG), CompareIds);
        for (N = 1; N < Count; N++) {
            CHECK(Sorted[N] != Sorted[N - 1], "two strings share id %u",
                  Sorted[N]);
        }
        free(Sorted);
    }

    for (N = 0; N < Count; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        CHECK(Intern(Strings, Buffer, Length) == Ids[N], "string %llu got "
              "a new id on the second intern", (unsigned long long)N);
        ExpectLookup(Strings, Ids[N], Buffer, Length, "writer");
    }

    CHECK_STATUS(TraceSessionCommit(Writer), NULL);

    //
    // Another open of the session resolves every id to the same bytes.
    //

    Reader = OpenSessionReader(Path);
    ExpectLookup(&Reader->Strings, Hello, "hello", 5, "reader");
    ExpectLookup(&Reader->Strings, World, "world", 5, "reader");
    for (N = 0; N < Count; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        ExpectLookup(&Reader->Strings, Ids[N], Buffer, Length, "reader");
    }

    //
    // Not visible before its commit; visible after.
    //

    Late = Intern(Strings, "a late string", 13);
    Status = TraceStringLookup(&Reader->Strings, Late, &Text, &TextLength);
    CHECK(!RTL_SUCCESS(Status), "an uncommitted string resolved for a "
          "reader");
    CHECK_STATUS(TraceStringCommit(Strings), NULL);
    ExpectLookup(&Reader->Strings, Late, "a late string", 13,
                 "reader after commit");

    //
    // Unknown ids are an error, not a crash.
    //

    Status = TraceStringLookup(&Reader->Strings, 0x7ffffff0, &Text,
                               &TextLength);
    CHECK(Status == RTL_STATUS_CORRUPT, "lookup of an unknown id: %d",
          (int)Status);
    Status = TraceStringLookup(&Reader->Strings, TRACE_STRING_NULL, &Text,
                               &TextLength);
    CHECK(!RTL_SUCCESS(Status), "lookup of the NULL id succeeded");

    //
    // A long string, and one over the limit.
    //

    Long = malloc(TRACE_STRING_MAX_LENGTH + 2);
    memset(Long, 'L', TRACE_STRING_MAX_LENGTH + 1);
    Long[TRACE_STRING_MAX_LENGTH + 1] = '\0';
    Late = Intern(Strings, Long, 100000);
    CHECK_STATUS(TraceStringCommit(Strings), NULL);
    ExpectLookup(&Reader->Strings, Late, Long, 100000, "100000-byte string");
    {
        ULONG Id = 0;
        Status = TraceStringIntern(Strings, Long, TRACE_STRING_MAX_LENGTH + 1,
                                   &Id);
        CHECK(!RTL_SUCCESS(Status), "a string over the limit was interned");
    }
    free(Long);

    CloseSession(Reader);
    CloseSession(Writer);
    free(Ids);
    TestLog("strings: %llu distinct strings interned and resolved\n",
            (unsigned long long)Count + 3);
}

//
// A reopened session writer finds the strings it interned before (no
// duplicates); strings a dead writer interned but never committed are gone
// and their ids are handed out again.
//

static int
StringWriterThatDies(void *Context)
{
    const char *Path = (const char *)Context;
    PTRACE_SESSION Session = OpenSessionWriter(Path);
    char Buffer[512];
    size_t Length;
    ULONGLONG N;

    for (N = 0; N < 1000; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        Intern(&Session->Strings, Buffer, Length);
    }
    CHECK_STATUS(TraceSessionCommit(Session), NULL);
    for (N = 1000; N < 1500; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        Intern(&Session->Strings, Buffer, Length);
    }
    return 0;
}

static void
CaseStringsReopen(const char *Dir)
{
    char Path[1024];
    char Buffer[512];
    PTRACE_SESSION Session;
    PTRACE_SESSION Reader;
    ULONG Ids[1500];
    ULONG Max = 0;
    ULONGLONG N;
    size_t Length;
    ULONGLONG StringsBefore;

    StorePath(Path, sizeof(Path), Dir, "reopen.trace");
    CHECK(RunInChild(StringWriterThatDies, Path) == 0, "child failed");

    Session = OpenSessionWriter(Path);
    StringsBefore = Session->Strings.Index.CommittedCount;
    for (N = 0; N < 1000; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        Ids[N] = Intern(&Session->Strings, Buffer, Length);
        if (Ids[N] > Max) {
            Max = Ids[N];
        }
    }
    CHECK(Session->Strings.Index.ReservedCount == StringsBefore,
          "re-interning 1000 committed strings added %llu records",
          (unsigned long long)(Session->Strings.Index.ReservedCount -
                               StringsBefore));
    CHECK(Max < StringsBefore, "an id %u past the committed strings", Max);

    //
    // The 500 that died uncommitted are new again, and resolve.
    //

    for (N = 1000; N < 1500; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        Ids[N] = Intern(&Session->Strings, Buffer, Length);
        CHECK(Ids[N] >= StringsBefore, "uncommitted string %llu survived "
              "as id %u", (unsigned long long)N, Ids[N]);
    }
    CHECK_STATUS(TraceSessionCommit(Session), NULL);
    CloseSession(Session);

    Reader = OpenSessionReader(Path);
    for (N = 0; N < 1500; N++) {
        Length = MakeString(Buffer, sizeof(Buffer), N);
        ExpectLookup(&Reader->Strings, Ids[N], Buffer, Length, "reopened");
    }
    CloseSession(Reader);
}

//
// Forced hash collisions: the interner is given a hash function under
// which many texts hash alike (and some hash to 0, the table's empty key).
// Every text must still get its own id, found again on re-intern.
//

static PRTL_HASH64 RealHash64;
static ULONGLONG CollisionCalls;

static ULONGLONG
CollidingHash64(PCVOID Buffer, SIZE_T Size)
{
    if (Size >= 8 && memcmp(Buffer, "collide:", 8) == 0) {
        CollisionCalls++;
        return 0xc011d3c011d3ULL;
    }
    if (Size >= 5 && memcmp(Buffer, "zero:", 5) == 0) {
        CollisionCalls++;
        return 0;
    }
    if (Size >= 5 && memcmp(Buffer, "low32", 5) == 0) {
        //
        // Same low 32 bits (the string record's Hash), different high.
        //
        CollisionCalls++;
        return ((ULONGLONG)Size << 32) | 0x1234;
    }
    return RealHash64(Buffer, Size);
}

static void
CaseStringCollision(const char *Dir)
{
    char Path[1024];
    char Buffer[64];
    PTRACE_SESSION Session;
    ULONG Ids[300];
    ULONG Index;
    ULONG Other;
    int Length;

    RealHash64 = Rtl.Hash64;
    Rtl.Hash64 = CollidingHash64;

    StorePath(Path, sizeof(Path), Dir, "collide.trace");
    Session = OpenSessionWriter(Path);
    for (Index = 0; Index < 300; Index++) {
        Length = snprintf(Buffer, sizeof(Buffer), "%s%u",
                          Index < 200 ? "collide:" :
                          Index < 250 ? "zero:" : "low32",
                          Index * 7919);
        Ids[Index] = Intern(&Session->Strings, Buffer, (size_t)Length);
    }
    if (CollisionCalls == 0) {
        CloseSession(Session);
        printf("SKIP: the interner does not hash through Rtl->Hash64, so "
               "collisions cannot be forced\n");
        exit(TEST_SKIP_EXIT_CODE);
    }
    for (Index = 0; Index < 300; Index++) {
        for (Other = 0; Other < Index; Other++) {
            CHECK(Ids[Index] != Ids[Other], "colliding strings %u and %u "
                  "share id %u", Index, Other, Ids[Index]);
        }
    }
    for (Index = 0; Index < 300; Index++) {
        Length = snprintf(Buffer, sizeof(Buffer), "%s%u",
                          Index < 200 ? "collide:" :
                          Index < 250 ? "zero:" : "low32",
                          Index * 7919);
        CHECK(Intern(&Session->Strings, Buffer, (size_t)Length) ==
              Ids[Index], "colliding string %u got a new id", Index);
        ExpectLookup(&Session->Strings, Ids[Index], Buffer, (size_t)Length,
                     "colliding");
    }
    CHECK_STATUS(TraceSessionCommit(Session), NULL);
    CloseSession(Session);

    //
    // A reopened writer rebuilds its table under the same collisions.
    //

    Session = OpenSessionWriter(Path);
    for (Index = 0; Index < 300; Index++) {
        Length = snprintf(Buffer, sizeof(Buffer), "%s%u",
                          Index < 200 ? "collide:" :
                          Index < 250 ? "zero:" : "low32",
                          Index * 7919);
        CHECK(Intern(&Session->Strings, Buffer, (size_t)Length) ==
              Ids[Index], "colliding string %u got a new id after reopen",
              Index);
    }
    CloseSession(Session);
    Rtl.Hash64 = RealHash64;
    TestLog("string_collision: 300 strings in 3 collision classes, %llu "
            "forced hashes\n", (unsigned long long)CollisionCalls);
}

//
// A session round trip: stores created through the session, committed
// strings first, found again by a reader of the directory.
//

static void
CaseSessionRoundtrip(const char *Dir)
{
    char Path[1024];
    PTRACE_SESSION Writer;
    PTRACE_SESSION Reader;
    PTRACE_SESSION Second;
    PTRACE_STORE Store;
    PTRACE_STORE Again;
    TRACE_STORE_SNAPSHOT Snap;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONG Id;

    StorePath(Path, sizeof(Path), Dir, "run.trace");
    Writer = OpenSessionWriter(Path);
    CHECK_STATUS(TraceSessionSetClock(Writer, "mono"), NULL);

    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TestRecordSchema, &Store,
                                       &Error), &Error);
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TestRecordSchema, &Again,
                                       &Error), &Error);
    CHECK(Store == Again, "the same schema opened two stores");
    CHECK(TraceSessionFindStore(Writer, "test_record") == Store,
          "FindStore");
    TestAppend(Store, 1000, 81);
    Id = Intern(&Writer->Strings, "session string", 14);
    CHECK_STATUS(TraceSessionCommit(Writer), NULL);

    //
    // One writer per session.
    //

    Second = TestAllocateSession(&Rtl);
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenWriter(&Rtl, Path, Second, &Error);
    CHECK(Status == RTL_STATUS_LOCKED, "second session writer: %d (%s): %s",
          (int)Status, RtlStatusText(Status), Error.Message);
    TestFreeSession(&Rtl, Second);

    Reader = OpenSessionReader(Path);
    CHECK(strcmp(Reader->Header.ClockName, "mono") == 0, "clock '%.32s'",
          Reader->Header.ClockName);
    Store = TraceSessionFindStore(Reader, "test_record");
    CHECK(Store != NULL, "reader did not open test_record");
    CHECK(TraceSessionFindStore(Reader, "string") != NULL ||
          Reader->Strings.Index.Header != NULL, "no string store");
    CHECK(TraceSessionFindStore(Reader, "no_such_store") == NULL,
          "found a store that does not exist");
    Snapshot(Store, &Snap);
    CHECK(Snap.RecordCount == 1000, "count %llu",
          (unsigned long long)Snap.RecordCount);
    TestVerifyRange(Store, 0, 1000, 81, "session reader");
    ExpectLookup(&Reader->Strings, Id, "session string", 14, "session");
    CloseSession(Reader);
    CloseSession(Writer);

    //
    // Reopen for write: the store continues.
    //

    Writer = OpenSessionWriter(Path);
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TestRecordSchema, &Store,
                                       &Error), &Error);
    CHECK(Store->CommittedCount == 1000, "reopened count %llu",
          (unsigned long long)Store->CommittedCount);
    TestAppend(Store, 10, 81);
    CloseSession(Writer);       // close without an explicit commit

    Reader = OpenSessionReader(Path);
    Store = TraceSessionFindStore(Reader, "test_record");
    CHECK(Store != NULL, "store gone");
    Snapshot(Store, &Snap);
    CHECK(Snap.RecordCount == 1000 || Snap.RecordCount == 1010,
          "count %llu", (unsigned long long)Snap.RecordCount);
    TestVerifyRange(Store, 0, Snap.RecordCount, 81, "after reopen");
    CloseSession(Reader);
}

static void
CaseSessionNotSession(const char *Dir)
{
    char Path[1024];
    PTRACE_SESSION Session = TestAllocateSession(&Rtl);
    RTL_ERROR Error;
    RTL_STATUS Status;
    int Fd;

    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenReader(&Rtl, Dir, Session, &Error);
    CHECK(Status == RTL_STATUS_NOT_SESSION || Status == RTL_STATUS_NOT_FOUND,
          "empty directory as a session: %d (%s)", (int)Status,
          RtlStatusText(Status));
    CHECK(Error.Message[0] != '\0', "no message");
    TestLog("not_session: empty dir -> %s: %s\n", TestStatusName(Status),
            Error.Message);

    StorePath(Path, sizeof(Path), Dir, "missing.trace");
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenReader(&Rtl, Path, Session, &Error);
    CHECK(!RTL_SUCCESS(Status), "opened a missing session");
    CHECK(TestMessageNamesFile(Error.Message, Path), "message '%s'",
          Error.Message);

    //
    // A session header of the wrong kind.
    //

    StorePath(Path, sizeof(Path), Dir, "bad.trace");
    CHECK(mkdir(Path, 0755) == 0, "mkdir");
    {
        char File[1100];
        char Junk[512];
        memset(Junk, 'j', sizeof(Junk));
        TestJoin(File, sizeof(File), Path, TRACE_SESSION_FILE);
        Fd = open(File, O_CREAT | O_WRONLY, 0644);
        CHECK(Fd >= 0 && write(Fd, Junk, sizeof(Junk)) == sizeof(Junk),
              "write");
        close(Fd);
    }
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenReader(&Rtl, Path, Session, &Error);
    CHECK(!RTL_SUCCESS(Status), "opened a session with a junk header");
    TestLog("not_session: junk header -> %s: %s\n", TestStatusName(Status),
            Error.Message);
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenWriter(&Rtl, Path, Session, &Error);
    CHECK(!RTL_SUCCESS(Status), "a writer took over a junk session header");
    TestFreeSession(&Rtl, Session);
}

//
// ---------------------------------------------------------------------------
// Power cuts (TraceStore/TraceDurable.c), simulated in process: the
// session is copied while its writer is open (the copy holds every
// committed record, as the page cache does), the records past the last
// sync are zeroed in the copy (pages the disk never got), and the copy's
// session.durable is made to name another boot.  Tests/PowerLoss/ cuts a
// real machine's power.
// ---------------------------------------------------------------------------
//

static void
RewriteDurable(const char *SessionPath, const char *BootId, ULONG Offset,
               BYTE Flip)
{
    char Path[1100];
    TRACE_DURABLE Durable;
    FILE *File;

    snprintf(Path, sizeof(Path), "%s/%s", SessionPath, TRACE_DURABLE_FILE);
    File = fopen(Path, "r+b");
    CHECK(File != NULL, "%s: cannot open", Path);
    CHECK(fread(&Durable, sizeof(Durable), 1, File) == 1, "%s: short", Path);
    if (BootId != NULL) {
        snprintf(Durable.BootId, sizeof(Durable.BootId), "%s", BootId);
        Durable.Checksum = Rtl.Hash64(&Durable,
                                      FIELD_OFFSET(TRACE_DURABLE, Checksum));
    }
    ((PBYTE)&Durable)[Offset] ^= Flip;
    rewind(File);
    CHECK(fwrite(&Durable, sizeof(Durable), 1, File) == 1, "%s: write", Path);
    fclose(File);
}

static void
ZeroRecords(const char *SessionPath, const char *Store, ULONGLONG First,
            ULONGLONG Last, ULONG RecordSize)
{
    char Path[1100];
    FILE *File;
    ULONGLONG Index;
    BYTE Zero[256];

    memset(Zero, 0, sizeof(Zero));
    snprintf(Path, sizeof(Path), "%s/%s.store", SessionPath, Store);
    File = fopen(Path, "r+b");
    CHECK(File != NULL, "%s: cannot open", Path);
    for (Index = First; Index < Last; Index++) {
        fseek(File, (long)(TRACE_STORE_HEADER_SIZE + Index * RecordSize),
              SEEK_SET);
        CHECK(fwrite(Zero, RecordSize, 1, File) == 1, "%s: write", Path);
    }
    fclose(File);
}

static void
CasePowerCut(const char *Dir)
{
    char Path[1024];
    char Copy[1024];
    char Command[2200];
    char Thread[1100];
    PTRACE_SESSION Writer;
    PTRACE_SESSION Reader;
    PTRACE_STORE Store;
    PTRACE_STORE Later;
    PTRACE_DURABLE_ENTRY Entry;
    TRACE_STORE_SNAPSHOT Snap;
    RTL_ERROR Error;
    ULONG Id;

    StorePath(Path, sizeof(Path), Dir, "run.trace");
    StorePath(Copy, sizeof(Copy), Dir, "cut.trace");

    //
    // 1000 records made durable, 500 more committed; then a store created
    // (after the sync: no reader after a cut may trust its file).
    //

    Writer = OpenSessionWriter(Path);
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TestRecordSchema, &Store,
                                       &Error), &Error);
    TestAppend(Store, 1000, 81);
    Id = Intern(&Writer->Strings, "durable string", 14);
    CHECK_STATUS(TraceSessionCommit(Writer), NULL);
    CHECK_STATUS(TraceSessionSync(Writer, &Error), &Error);
    TestAppend(Store, 500, 81);
    Intern(&Writer->Strings, "committed, not synced", 21);
    CHECK_STATUS(TraceSessionCommit(Writer), NULL);
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TraceThreadSchema, &Later,
                                       &Error), &Error);
    CHECK_STATUS(TraceSessionCommit(Writer), NULL);

    //
    // On this boot a reader trusts the commit slots (a killed writer's
    // pages are in the page cache).
    //

    Reader = OpenSessionReader(Path);
    CHECK(Reader->HasDurable && !Reader->PowerCut, "same boot seen as a cut");
    Snapshot(TraceSessionFindStore(Reader, "test_record"), &Snap);
    CHECK(Snap.RecordCount == 1500, "same boot: %llu records",
          (unsigned long long)Snap.RecordCount);
    CloseSession(Reader);

    snprintf(Command, sizeof(Command), "cp -a '%s' '%s'", Path, Copy);
    CHECK(system(Command) == 0, "%s", Command);
    CloseSession(Writer);
    ZeroRecords(Copy, "test_record", 1000, 1500, TestRecordSchema.RecordSize);
    RewriteDurable(Copy, "another-boot", 0, 0);

    //
    // The file's growth may not have reached the file system's journal
    // either: the slot then counts records past the end of the file, which
    // ends at a page (it grows in pages; a power-cut test found the next
    // writer refusing such a store).
    //

    snprintf(Thread, sizeof(Thread), "%s/test_record.store", Copy);
    CHECK(truncate(Thread, (off_t)ALIGN_UP(TRACE_STORE_HEADER_SIZE + 1000 *
                                           TestRecordSchema.RecordSize,
                                           4096)) == 0,
          "truncate %s", Thread);

    //
    // After the cut: the durable records, none past them, the later store
    // not opened.
    //

    Reader = OpenSessionReader(Copy);
    CHECK(Reader->PowerCut, "the reader did not see the cut");
    Store = TraceSessionFindStore(Reader, "test_record");
    Snapshot(Store, &Snap);
    CHECK(Snap.RecordCount == 1000 && Store->Unsynced == 500,
          "after the cut: %llu records, %llu unsynced",
          (unsigned long long)Snap.RecordCount,
          (unsigned long long)Store->Unsynced);
    TestVerifyRange(Store, 0, 1000, 81, "after the cut");
    ExpectLookup(&Reader->Strings, Id, "durable string", 14, "after the cut");
    Snapshot(&Reader->Strings.Index, &Snap);
    CHECK(Snap.RecordCount == Id + 1, "strings after the cut: %llu, not %u",
          (unsigned long long)Snap.RecordCount, Id + 1);
    CHECK(TraceSessionFindStore(Reader, "thread") == NULL &&
          Reader->SkippedStores == 1, "the store made after the sync opened");
    CloseSession(Reader);

    //
    // The next writer rolls back for good and counts it; the session then
    // continues on this boot.
    //

    Writer = OpenSessionWriter(Copy);
    CHECK(Writer->Durable.Recoveries == 1 &&
          Writer->Durable.RemovedStores == 1, "recoveries %u, removed %u",
          Writer->Durable.Recoveries, Writer->Durable.RemovedStores);
    Entry = NULL;
    for (Id = 0; Id < Writer->Durable.NumberOfEntries; Id++) {
        if (strcmp(Writer->Durable.Entries[Id].Name, "test_record") == 0) {
            Entry = &Writer->Durable.Entries[Id];
        }
    }
    CHECK(Entry != NULL && Entry->Lost == 500 && Entry->RecordCount == 1000,
          "test_record: lost %llu, count %llu",
          Entry ? (unsigned long long)Entry->Lost : 0ULL,
          Entry ? (unsigned long long)Entry->RecordCount : 0ULL);
    snprintf(Thread, sizeof(Thread), "%s/thread.store", Copy);
    CHECK(access(Thread, F_OK) != 0, "%s: not removed", Thread);
    CHECK_STATUS(TraceSessionOpenStore(Writer, &TestRecordSchema, &Store,
                                       &Error), &Error);
    CHECK(Store->CommittedCount == 1000, "the writer resumes at %llu",
          (unsigned long long)Store->CommittedCount);
    TestAppend(Store, 10, 81);
    CHECK_STATUS(TraceSessionCommit(Writer), NULL);
    CloseSession(Writer);

    Reader = OpenSessionReader(Copy);
    CHECK(!Reader->PowerCut && Reader->Durable.Recoveries == 1,
          "after recovery: cut %d, recoveries %u", Reader->PowerCut,
          Reader->Durable.Recoveries);
    Store = TraceSessionFindStore(Reader, "test_record");
    Snapshot(Store, &Snap);
    CHECK(Snap.RecordCount == 1010, "after recovery: %llu records",
          (unsigned long long)Snap.RecordCount);
    TestVerifyRange(Store, 0, 1010, 81, "after recovery");
    CloseSession(Reader);
}

static void
CaseDurableDamaged(const char *Dir)
{
    char Path[1024];
    PTRACE_SESSION Session;
    RTL_ERROR Error;
    RTL_STATUS Status;

    StorePath(Path, sizeof(Path), Dir, "run.trace");
    CloseSession(OpenSessionWriter(Path));

    //
    // session.durable is only ever renamed into place whole: a damaged one
    // is an error naming it and the byte, for the reader and the writer.
    //

    RewriteDurable(Path, NULL, 200, 0x40);
    Session = TestAllocateSession(&Rtl);
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenReader(&Rtl, Path, Session, &Error);
    CHECK(Status == RTL_STATUS_CORRUPT &&
          TestMessageNamesFile(Error.Message, TRACE_DURABLE_FILE) &&
          strstr(Error.Message, "byte offset") != NULL,
          "reader: %s: %s", TestStatusName(Status), Error.Message);
    memset(&Error, 0, sizeof(Error));
    Status = TraceSessionOpenWriter(&Rtl, Path, Session, &Error);
    CHECK(Status == RTL_STATUS_CORRUPT &&
          TestMessageNamesFile(Error.Message, TRACE_DURABLE_FILE),
          "writer: %s: %s", TestStatusName(Status), Error.Message);
    TestFreeSession(&Rtl, Session);
}

//
// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------
//

static const TEST_CASE Cases[] = {
    { "hash_table", CaseHashTable },
    { "strings", CaseStrings },
    { "strings_reopen", CaseStringsReopen },
    { "string_collision", CaseStringCollision },
    { "session_roundtrip", CaseSessionRoundtrip },
    { "session_not_session", CaseSessionNotSession },
    { "session_power_cut", CasePowerCut },
    { "session_durable_damaged", CaseDurableDamaged },
};

int
main(int argc, char **argv)
{
    return TestRunCases(argc, argv, Cases, ARRAYSIZE(Cases), "store");
}
