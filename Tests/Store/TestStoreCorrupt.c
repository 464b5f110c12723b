/*++

Module Name:

    TestStoreCorrupt.c

Abstract:

    Unit tests of how TraceStore refuses corrupt and foreign store files
    (empty, cut headers, bad magic, version, checksum, record size,
    columns, a count beyond the file, random bytes) and falls back to the
    other commit slot when one is torn.  Same driver and rules as
    TestStore.c.

    Usage: TestStoreCorrupt CASE|all|list [SCRATCH_BASE]

    Every expected value comes from the test's own model of the data (the
    records are a function of their index) or from an independent reading
    of the file (pread + XXH3 from xxhash.h), never from the core's output.

--*/

#include "StoreUnitTest.h"

//
// ---------------------------------------------------------------------------
// Corrupt and foreign files.
// ---------------------------------------------------------------------------
//

//
// Writes the target of a corruption: a store whose two slots hold 60 and
// 100 records (the writer dies without closing, so nothing rewrites them).
//

static int
WriteCorruptTarget(void *Context)
{
    const char *Path = (const char *)Context;
    TRACE_STORE Writer;

    OpenWriter(Path, &Writer);
    TestAppend(&Writer, 60, 71);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TestAppend(&Writer, 40, 71);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    return 0;
}

static void
MakeCorruptTarget(
    const char *Dir,
    const char *Name,
    char *Path,
    size_t PathSize,
    PTRACE_STORE_HEADER Header
    )
{
    StorePath(Path, PathSize, Dir, Name);
    CHECK(RunInChild(WriteCorruptTarget, Path) == 0, "writing %s", Path);
    TestReadHeader(Path, Header);
    CHECK(TestSlotValid(&Header->Slots[0]) && TestSlotValid(&Header->Slots[1]),
          "after two commits both slots should be valid: seq %llu/%llu "
          "count %llu/%llu", (unsigned long long)Header->Slots[0].Sequence,
          (unsigned long long)Header->Slots[1].Sequence,
          (unsigned long long)Header->Slots[0].RecordCount,
          (unsigned long long)Header->Slots[1].RecordCount);
    CHECK(Header->Slots[TestExpectedSlot(Header)].RecordCount == 100,
          "newest slot holds %llu records",
          (unsigned long long)Header->Slots[TestExpectedSlot(Header)]
          .RecordCount);
    CHECK(Header->Slots[1 - TestExpectedSlot(Header)].RecordCount == 60,
          "older slot holds %llu records",
          (unsigned long long)Header->Slots[1 - TestExpectedSlot(Header)]
          .RecordCount);
}

//
// Both the reader and the writer must refuse Path with one of the format
// errors (or exactly Expected, if non-zero), with a message naming the
// file, without crashing and without changing the file.
//

static void
ExpectRefused(const char *Path, const char *What, RTL_STATUS Expected)
{
    TRACE_STORE Store;
    TRACE_STORE_SNAPSHOT Snap;
    RTL_ERROR Error;
    RTL_STATUS Status;
    struct stat Before;
    struct stat After;
    void *BytesBefore;
    void *BytesAfter;
    int Fd;
    size_t Length;
    const char *Where = "TraceStoreOpenReader";

    CHECK(stat(Path, &Before) == 0, "stat");
    Length = (size_t)Before.st_size;
    if (Length > 65536) {
        Length = 65536;
    }
    BytesBefore = calloc(1, Length + 1);
    BytesAfter = calloc(1, Length + 1);
    Fd = open(Path, O_RDONLY);
    CHECK(Fd >= 0 && pread(Fd, BytesBefore, Length, 0) == (ssize_t)Length,
          "read %s", Path);
    close(Fd);

    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenReader(&Rtl, Path, &Store, &Error);
    if (RTL_SUCCESS(Status)) {
        Where = "TraceStoreTakeSnapshot";
        memset(&Error, 0, sizeof(Error));
        Status = TraceStoreTakeSnapshot(&Store, &Snap, &Error);
        TraceStoreClose(&Store);
        CHECK(!RTL_SUCCESS(Status), "%s: the reader accepted the store "
              "(snapshot of %llu records)", What,
              (unsigned long long)Snap.RecordCount);
    }
    if (Expected != 0) {
        CHECK(Status == Expected, "%s: %s returned %s (%d), expected %s",
              What, Where, TestStatusName(Status), (int)Status,
              TestStatusName(Expected));
    } else {
        CHECK(Status == RTL_STATUS_CORRUPT || Status == RTL_STATUS_BAD_FORMAT ||
              Status == RTL_STATUS_BAD_VERSION, "%s: %s returned %s (%d): %s",
              What, Where, TestStatusName(Status), (int)Status,
              Error.Message);
    }
    CHECK(Error.Status == Status, "%s: Error.Status %d != %d", What,
          (int)Error.Status, (int)Status);
    CHECK(TestMessageNamesFile(Error.Message, Path),
          "%s: message does not name the file: '%s'", What, Error.Message);
    TestLog("%s: reader -> %s: %s\n", What, TestStatusName(Status),
            Error.Message);

    //
    // The writer refuses too, and does not "repair" the file.
    //

    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Store,
                                  &Error);
    if (RTL_SUCCESS(Status)) {
        TraceStoreClose(&Store);
        TestFail(__FILE__, __LINE__, "%s: the writer opened the store", What);
    }
    CHECK(TestMessageNamesFile(Error.Message, Path),
          "%s: writer message does not name the file: '%s'", What,
          Error.Message);
    TestLog("%s: writer -> %s: %s\n", What, TestStatusName(Status),
            Error.Message);

    CHECK(stat(Path, &After) == 0, "stat");
    CHECK(After.st_size == Before.st_size, "%s: the refused writer changed "
          "the size from %lld to %lld", What, (long long)Before.st_size,
          (long long)After.st_size);
    Fd = open(Path, O_RDONLY);
    CHECK(Fd >= 0 && pread(Fd, BytesAfter, Length, 0) == (ssize_t)Length,
          "read %s", Path);
    close(Fd);
    CHECK(memcmp(BytesBefore, BytesAfter, Length) == 0,
          "%s: the refused writer changed the file", What);
    free(BytesBefore);
    free(BytesAfter);
}

static void
CaseCorruptEmptyFile(const char *Dir)
{
    char Path[1024];
    int Fd;

    StorePath(Path, sizeof(Path), Dir, "empty_file.store");
    Fd = open(Path, O_CREAT | O_WRONLY, 0644);
    CHECK(Fd >= 0, "create");
    close(Fd);
    ExpectRefused(Path, "zero-length file", 0);
}

static void
CaseCorruptTruncatedHeader(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;
    static const ULONGLONG Sizes[] = { 8, 100, 200, 4095 };
    ULONG Index;

    for (Index = 0; Index < ARRAYSIZE(Sizes); Index++) {
        char What[64];
        char Name[64];
        snprintf(Name, sizeof(Name), "truncated%u.store", Index);
        MakeCorruptTarget(Dir, Name, Path, sizeof(Path), &Header);
        CHECK(truncate(Path, (off_t)Sizes[Index]) == 0, "truncate");
        snprintf(What, sizeof(What), "file of %llu bytes",
                 (unsigned long long)Sizes[Index]);
        ExpectRefused(Path, What, 0);
    }
}

static void
CaseCorruptMagic(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "magic.store", Path, sizeof(Path), &Header);
    Header.Magic ^= 0x20;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "wrong magic", 0);
}

static void
CaseCorruptVersion(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "version.store", Path, sizeof(Path), &Header);
    Header.Version = TRACE_STORE_VERSION + 1;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "newer version (re-signed)", RTL_STATUS_BAD_VERSION);
}

static void
CaseCorruptHeaderChecksum(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "hdrsum.store", Path, sizeof(Path), &Header);
    Header.CreatedRealtimeNs ^= 1;
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "header bit flip (checksum mismatch)", 0);

    MakeCorruptTarget(Dir, "hdrsum2.store", Path, sizeof(Path), &Header);
    Header.Columns[2].Description[5] ^= 0x40;
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "column descriptor bit flip", 0);
}

//
// The record size disagrees with the descriptors, the header checksum
// re-signed so that only the consistency checks can catch it.
//

static void
CaseCorruptRecordSize(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "recsize.store", Path, sizeof(Path), &Header);
    Header.RecordSize = 16;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "record size 16 with columns up to 32", 0);

    MakeCorruptTarget(Dir, "recsize0.store", Path, sizeof(Path), &Header);
    Header.RecordSize = 0;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "record size 0", 0);

    MakeCorruptTarget(Dir, "recsizebig.store", Path, sizeof(Path), &Header);
    Header.RecordSize = 0x80000000u;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "record size 2^31", 0);
}

static void
CaseCorruptColumns(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "col1.store", Path, sizeof(Path), &Header);
    Header.Columns[3].Offset = 0xfffffff8u;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "column offset 0xfffffff8 (overflows)", 0);

    MakeCorruptTarget(Dir, "col2.store", Path, sizeof(Path), &Header);
    Header.NumberOfColumns = 1000;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "1000 columns", 0);

    MakeCorruptTarget(Dir, "col3.store", Path, sizeof(Path), &Header);
    memset(Header.Columns[1].Name, 'x', sizeof(Header.Columns[1].Name));
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "column name without NUL", 0);

    MakeCorruptTarget(Dir, "col4.store", Path, sizeof(Path), &Header);
    Header.TimestampColumn = 17;
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "timestamp column index 17 of 4", 0);

    MakeCorruptTarget(Dir, "col5.store", Path, sizeof(Path), &Header);
    memset(Header.Name, 'n', sizeof(Header.Name));
    Header.HeaderChecksum = TestHeaderChecksum(&Header);
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "store name without NUL", 0);
}

//
// The committed count says more than the file holds.
//

static void
CaseCorruptCountBeyondFile(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;
    ULONG Slot;

    //
    // The file lost its tail (both slots: 60 and 100 > 50 records).
    //

    MakeCorruptTarget(Dir, "short.store", Path, sizeof(Path), &Header);
    CHECK(truncate(Path, 4096 + 50 * 32) == 0, "truncate");
    ExpectRefused(Path, "file truncated below both slots' counts", 0);

    //
    // Both slots validly signed, with counts past the file; one of them so
    // large that Count * RecordSize overflows 64 bits.
    //

    MakeCorruptTarget(Dir, "huge.store", Path, sizeof(Path), &Header);
    for (Slot = 0; Slot < 2; Slot++) {
        Header.Slots[Slot].RecordCount = Slot == 0 ? (1ULL << 40) :
                                                     (1ULL << 59) + 3;
        Header.Slots[Slot].Capacity = Header.Slots[Slot].RecordCount;
        TestResignSlot(&Header.Slots[Slot]);
    }
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "signed slots with counts 2^40 and 2^59+3", 0);

    //
    // Count beyond capacity (but within the file).
    //

    MakeCorruptTarget(Dir, "overcap.store", Path, sizeof(Path), &Header);
    for (Slot = 0; Slot < 2; Slot++) {
        Header.Slots[Slot].Capacity = 10;
        TestResignSlot(&Header.Slots[Slot]);
    }
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "count above capacity in both slots", 0);
}

static void
CaseCorruptBothSlots(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;

    MakeCorruptTarget(Dir, "slots.store", Path, sizeof(Path), &Header);
    Header.Slots[0].RecordCount ^= 1;
    Header.Slots[1].Checksum ^= 0x100;
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "both slot checksums bad", RTL_STATUS_CORRUPT);

    //
    // A reader that opened the store while it was good: its next snapshot
    // fails instead of returning either slot.
    //

    MakeCorruptTarget(Dir, "slotslive.store", Path, sizeof(Path), &Header);
    {
        TRACE_STORE Reader;
        TRACE_STORE_SNAPSHOT Snap;
        RTL_ERROR Error;
        RTL_STATUS Status;

        OpenReader(Path, &Reader);
        Snapshot(&Reader, &Snap);
        CHECK(Snap.RecordCount == 100, "count %llu",
              (unsigned long long)Snap.RecordCount);
        Header.Slots[0].Checksum ^= 1;
        Header.Slots[1].Checksum ^= 1;
        TestWriteHeader(Path, &Header);
        memset(&Error, 0, sizeof(Error));
        Status = TraceStoreTakeSnapshot(&Reader, &Snap, &Error);
        CHECK(Status == RTL_STATUS_CORRUPT, "snapshot of a store whose slots "
              "went bad: %s (%d)", TestStatusName(Status), (int)Status);
        CHECK(TestMessageNamesFile(Error.Message, Path), "message '%s'",
              Error.Message);
        TestLog("both slots bad under a live reader: %s\n", Error.Message);
        TraceStoreClose(&Reader);
    }

    MakeCorruptTarget(Dir, "slots0.store", Path, sizeof(Path), &Header);
    memset(Header.Slots, 0, sizeof(Header.Slots));
    Header.Slots[0].RecordCount = 100;
    TestWriteHeader(Path, &Header);
    ExpectRefused(Path, "both slot sequences zero, count 100 in one", 0);
}

//
// One bad slot: the reader and a writer use the other one.
//

static void
ExpectFallback(
    const char *Path,
    const TRACE_STORE_HEADER *Header,
    int GoodSlot,
    const char *What
    )
{
    TRACE_STORE_SNAPSHOT Snap;
    TRACE_STORE Writer;
    ULONGLONG Expected = Header->Slots[GoodSlot].RecordCount;
    ULONGLONG Index;

    VerifyStoreFile(Path, Expected, 71, &Snap);
    CHECK(Snap.Sequence == Header->Slots[GoodSlot].Sequence,
          "%s: snapshot sequence %llu, expected %llu", What,
          (unsigned long long)Snap.Sequence,
          (unsigned long long)Header->Slots[GoodSlot].Sequence);
    TestLog("%s: reader fell back to slot %d: %llu records\n", What, GoodSlot,
            (unsigned long long)Expected);

    OpenWriter(Path, &Writer);
    CHECK(Writer.CommittedCount == Expected, "%s: writer recovered %llu, "
          "expected %llu", What, (unsigned long long)Writer.CommittedCount,
          (unsigned long long)Expected);
    Index = TestAppend(&Writer, 7, 71);
    CHECK(Index == Expected, "index %llu", (unsigned long long)Index);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, Expected + 7, 71, NULL);
}

static void
CaseSlot1Fallback(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;
    TRACE_STORE_HEADER Written;

    MakeCorruptTarget(Dir, "slot1.store", Path, sizeof(Path), &Header);
    Written = Header;
    Written.Slots[1].RecordCount += 5;
    TestWriteHeader(Path, &Written);
    ExpectFallback(Path, &Header, 0, "slot 1 bad, slot 0 good");
}

static void
CaseNewerSlotFallback(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;
    TRACE_STORE_HEADER Written;
    int Newer;

    //
    // A torn commit: the newer slot's sequence is stored but its fields do
    // not match the checksum.
    //

    MakeCorruptTarget(Dir, "newer.store", Path, sizeof(Path), &Header);
    Newer = TestExpectedSlot(&Header);
    Written = Header;
    Written.Slots[Newer].LastTs ^= 0x10;
    TestWriteHeader(Path, &Written);
    ExpectFallback(Path, &Header, 1 - Newer, "newer slot torn");

    //
    // A commit in progress: the newer slot's sequence is still zero.
    //

    MakeCorruptTarget(Dir, "inprogress.store", Path, sizeof(Path), &Header);
    Newer = TestExpectedSlot(&Header);
    Written = Header;
    Written.Slots[Newer].Sequence = 0;
    Written.Slots[Newer].RecordCount = 1000;
    TestWriteHeader(Path, &Written);
    ExpectFallback(Path, &Header, 1 - Newer, "newer slot being written");
}

static void
CaseCorruptGarbage(const char *Dir)
{
    char Path[1024];
    unsigned char Bytes[3 * 4096];
    ULONGLONG State = TestSeed();
    ULONG Index;
    ULONG Trial;
    int Fd;

    for (Trial = 0; Trial < 20; Trial++) {
        char Name[64];
        snprintf(Name, sizeof(Name), "garbage%u.store", Trial);
        StorePath(Path, sizeof(Path), Dir, Name);
        for (Index = 0; Index < sizeof(Bytes); Index++) {
            Bytes[Index] = (unsigned char)TestRandom(&State);
        }
        if (Trial & 1) {
            //
            // Right magic and version, garbage after them.
            //
            ULONGLONG Magic = TRACE_STORE_MAGIC;
            ULONG Version = TRACE_STORE_VERSION;
            memcpy(Bytes, &Magic, 8);
            memcpy(Bytes + 8, &Version, 4);
        }
        Fd = open(Path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        CHECK(Fd >= 0 && write(Fd, Bytes, sizeof(Bytes)) ==
              (ssize_t)sizeof(Bytes), "write %s", Path);
        close(Fd);
        TestQuiet = Trial > 1;
        ExpectRefused(Path, "random bytes", 0);
        TestQuiet = 0;
    }
}

//
// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------
//

static const TEST_CASE Cases[] = {
    { "corrupt_empty_file", CaseCorruptEmptyFile },
    { "corrupt_truncated_header", CaseCorruptTruncatedHeader },
    { "corrupt_magic", CaseCorruptMagic },
    { "corrupt_version", CaseCorruptVersion },
    { "corrupt_header_checksum", CaseCorruptHeaderChecksum },
    { "corrupt_record_size", CaseCorruptRecordSize },
    { "corrupt_columns", CaseCorruptColumns },
    { "corrupt_count_beyond_file", CaseCorruptCountBeyondFile },
    { "corrupt_both_slots", CaseCorruptBothSlots },
    { "slot1_fallback", CaseSlot1Fallback },
    { "newer_slot_fallback", CaseNewerSlotFallback },
    { "corrupt_garbage", CaseCorruptGarbage },
};

int
main(int argc, char **argv)
{
    return TestRunCases(argc, argv, Cases, ARRAYSIZE(Cases), "store");
}
