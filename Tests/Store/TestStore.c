/*++

Module Name:

    TestStore.c

Abstract:

    Unit tests of the TraceStore component's stores: create, append,
    commit, reopen, growth, recovery, the writer lock, live snapshots, and
    the validation of corrupt or foreign files.  The string table, the hash
    table and sessions are TestStrings.c's, the corrupt and foreign files
    TestStoreCorrupt.c's.

    Usage: TestStore CASE [SCRATCH_BASE]     run one case (CTest runs each
                                             case as its own entry)
           TestStore all                     run every case
           TestStore list                    print the case names

    Every expected value comes from the test's own model of the data (the
    records are a function of their index) or from an independent reading
    of the file (pread + XXH3 from xxhash.h), never from the core's output.

--*/

#include "StoreUnitTest.h"

//
// ---------------------------------------------------------------------------
// Stores.
// ---------------------------------------------------------------------------
//

//
// Create, append (both Append and Reserve), commit, read back in the same
// process while the writer is open, close, reopen read-only and for write.
//

static void
CaseCreateReopen(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;
    TRACE_STORE_HEADER Header;
    TEST_RECORD Record;
    ULONGLONG Index;
    ULONGLONG FirstGeneration;
    ULONGLONG Size;
    ULONG Column;
    PCTRACE_COLUMN_DESCRIPTOR Ts;
    LONGLONG Value;

    StorePath(Path, sizeof(Path), Dir, "create" TRACE_STORE_FILE_SUFFIX);
    OpenWriter(Path, &Writer);

    //
    // The header the core wrote, read independently.
    //

    TestReadHeader(Path, &Header);
    CHECK(Header.Magic == TRACE_STORE_MAGIC, "magic %#llx",
          (unsigned long long)Header.Magic);
    CHECK(Header.Version == TRACE_STORE_VERSION, "version %u",
          Header.Version);
    CHECK(Header.HeaderSize == TRACE_STORE_HEADER_SIZE, "header size %u",
          Header.HeaderSize);
    CHECK(Header.RecordSize == 32, "record size %u", Header.RecordSize);
    CHECK(Header.NumberOfColumns == 4, "columns %u", Header.NumberOfColumns);
    CHECK(Header.TimestampColumn == 0, "ts column %u",
          Header.TimestampColumn);
    CHECK(strcmp(Header.Name, "test_record") == 0, "name '%.32s'",
          Header.Name);
    for (Column = 0; Column < 4; Column++) {
        CHECK(memcmp(&Header.Columns[Column], &TestRecordColumns[Column],
                     sizeof(TRACE_COLUMN_DESCRIPTOR)) == 0,
              "column %u differs from the schema", Column);
    }
    CHECK(TestHeaderChecksum(&Header) == Header.HeaderChecksum,
          "header checksum %#llx is not the documented XXH3-64 of the page "
          "with the checksum and slots zeroed (%#llx)",
          (unsigned long long)Header.HeaderChecksum,
          (unsigned long long)TestHeaderChecksum(&Header));
    CHECK(Writer.TimestampOffset == 0, "TimestampOffset %u",
          Writer.TimestampOffset);

    //
    // 1000 records through Append, 3000 through one Reserve.
    //

    for (Index = 0; Index < 1000; Index++) {
        ULONGLONG Got = ~0ULL;
        TestFillRecord(&Record, Index, 7);
        CHECK_STATUS(TraceStoreAppend(&Writer, &Record, &Got), NULL);
        CHECK(Got == Index, "Append returned index %llu, expected %llu",
              (unsigned long long)Got, (unsigned long long)Index);
    }
    Index = TestAppend(&Writer, 3000, 7);
    CHECK(Index == 1000, "Reserve returned %llu", (unsigned long long)Index);

    //
    // Nothing is visible before the commit.
    //

    OpenReader(Path, &Reader);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 0, "reader sees %llu uncommitted records",
          (unsigned long long)Snap.RecordCount);
    FirstGeneration = Snap.Generation;
    CHECK(FirstGeneration >= 1, "generation %llu after the first open",
          (unsigned long long)FirstGeneration);

    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    CHECK(Writer.CommittedCount == 4000, "CommittedCount %llu",
          (unsigned long long)Writer.CommittedCount);

    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 4000, "reader sees %llu records",
          (unsigned long long)Snap.RecordCount);
    CHECK(Snap.Generation == FirstGeneration, "generation changed");
    CHECK(Snap.FirstTs == TestTimestamp(0) && Snap.LastTs ==
          TestTimestamp(3999), "FirstTs %lld LastTs %lld",
          (long long)Snap.FirstTs, (long long)Snap.LastTs);
    CHECK(Snap.Flags & TRACE_SLOT_SORTED, "sorted flag missing");
    TestVerifyRange(&Reader, 0, 4000, 7, "live reader");

    //
    // Column access through the descriptor table.
    //

    Ts = TraceStoreFindColumn(Reader.Header, "ts");
    CHECK(Ts != NULL, "no ts column");
    CHECK(TraceStoreFindColumn(Reader.Header, "nonexistent") == NULL,
          "found a nonexistent column");
    CHECK(TraceStoreReadColumn(&Reader, 1234, Ts, &Value), "ts is NULL");
    CHECK(Value == TestTimestamp(1234), "ts of 1234 = %lld",
          (long long)Value);
    CHECK(TraceStoreReadColumn(&Reader, 77,
                               TraceStoreFindColumn(Reader.Header, "seq"),
                               &Value) && Value == 77, "seq of 77 = %lld",
          (long long)Value);
    TraceStoreClose(&Reader);

    CHECK_STATUS(TraceStoreFlush(&Writer), NULL);
    TraceStoreClose(&Writer);

    //
    // Closed: trimmed to the committed records.
    //

    Size = TestFileSize(Path);
    CHECK(Size >= 4096 + 4000 * 32 && Size <= ALIGN_UP(4096 + 4000 * 32,
          65536), "file size %llu after close, expected about %u",
          (unsigned long long)Size, 4096 + 4000 * 32);
    VerifyStoreFile(Path, 4000, 7, &Snap);
    CHECK(Snap.Generation == FirstGeneration, "generation %llu after close",
          (unsigned long long)Snap.Generation);

    //
    // Reopen for write: count recovered, generation bumped, appends follow.
    //

    OpenWriter(Path, &Writer);
    CHECK(Writer.CommittedCount == 4000, "recovered %llu",
          (unsigned long long)Writer.CommittedCount);
    Index = TestAppend(&Writer, 500, 7);
    CHECK(Index == 4000, "first index after reopen %llu",
          (unsigned long long)Index);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, 4500, 7, &Snap);
    CHECK(Snap.Generation == FirstGeneration + 1, "generation %llu after a "
          "second writer open, expected %llu",
          (unsigned long long)Snap.Generation,
          (unsigned long long)FirstGeneration + 1);
    TestLog("create_reopen: 4500 records, generation %llu -> %llu, "
            "file %llu bytes\n", (unsigned long long)FirstGeneration,
            (unsigned long long)Snap.Generation,
            (unsigned long long)TestFileSize(Path));
}

//
// A store that was created and never committed reads as empty (and the
// reader does not spin on the "no valid slot yet" state).
//

static void
CaseEmptyStore(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;

    StorePath(Path, sizeof(Path), Dir, "empty.store");
    OpenWriter(Path, &Writer);
    OpenReader(Path, &Reader);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 0, "count %llu",
          (unsigned long long)Snap.RecordCount);
    TraceStoreClose(&Reader);

    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, 0, ~0ULL, NULL);
    CHECK(TestFileSize(Path) >= 4096, "file shorter than its header");

    //
    // Reopen for write and close with no commit at all.
    //

    OpenWriter(Path, &Writer);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, 0, ~0ULL, NULL);
}

//
// First/last ts are the minimum and maximum, and the sorted flag is
// cleared once a record goes back in time (and stays cleared).
//

static void
CaseSortedFlag(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE_SNAPSHOT Snap;
    TRACE_STORE Reader;
    PTEST_RECORD Record;
    ULONGLONG Index;

    StorePath(Path, sizeof(Path), Dir, "sorted.store");
    OpenWriter(Path, &Writer);
    TestAppend(&Writer, 100, 1);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    CHECK(Writer.Snapshot.Flags & TRACE_SLOT_SORTED, "sorted flag missing");

    //
    // One record earlier than all others, then one later.
    //

    CHECK_STATUS(TraceStoreReserve(&Writer, 2, &Index), NULL);
    Record = (PTEST_RECORD)TestRecordAddress(&Writer, Index);
    Record[0].Timestamp = -5;
    Record[0].Sequence = Index;
    Record[1].Timestamp = 1000000;
    Record[1].Sequence = Index + 1;
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);

    OpenReader(Path, &Reader);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 102, "count %llu",
          (unsigned long long)Snap.RecordCount);
    CHECK(!(Snap.Flags & TRACE_SLOT_SORTED), "sorted flag still set");
    CHECK(Snap.FirstTs == -5, "FirstTs %lld", (long long)Snap.FirstTs);
    CHECK(Snap.LastTs == 1000000, "LastTs %lld", (long long)Snap.LastTs);

    TestAppend(&Writer, 10, 1);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    Snapshot(&Reader, &Snap);
    CHECK(!(Snap.Flags & TRACE_SLOT_SORTED), "sorted flag came back");
    TraceStoreClose(&Reader);
    TraceStoreClose(&Writer);

    //
    // ... and across a reopen.
    //

    OpenWriter(Path, &Writer);
    TestAppend(&Writer, 1, 1);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);
    OpenReader(Path, &Reader);
    Snapshot(&Reader, &Snap);
    CHECK(!(Snap.Flags & TRACE_SLOT_SORTED), "sorted flag set after reopen");
    CHECK(Snap.FirstTs == -5 && Snap.LastTs == 1000000,
          "first/last ts lost on reopen: %lld %lld", (long long)Snap.FirstTs,
          (long long)Snap.LastTs);
    TraceStoreClose(&Reader);
}

//
// TraceStoreCommitTracked publishes the same first/last ts and sorted flag
// as TraceStoreCommit reading the records back, for the same records:
// in-order batches, a batch starting below the previous maximum, a batch
// out of order within itself, equal timestamps, and a tracker that does
// not cover the reserved records (falls back to the scan).
//

static void
CaseCommitTracked(const char *Dir)
{
    static const struct {
        ULONG Count;
        LONG Step;          // ts of record i = Start + i * Step
        LONGLONG Start;
        ULONG SwapAt;       // if non-zero, swap the ts of records SwapAt-1, SwapAt
    } Batches[] = {
        { 100, 10, 1000, 0 },       // in order
        { 50, 0, 1990, 0 },         // equal ts, continuing: still sorted
        { 5, 10, 5000, 0 },
        { 70, 10, 2000, 0 },        // starts below the maximum so far
        { 30, 7, 9000, 17 },        // out of order within the batch
        { 1, 0, -42, 0 },           // a new minimum
    };
    char PathScan[1024];
    char PathTracked[1024];
    TRACE_STORE Scan;
    TRACE_STORE Tracked;
    TRACE_TS_TRACKER Tracker = TRACE_TS_TRACKER_INIT;
    ULONG Batch;
    int Pass;

    for (Pass = 0; Pass < 2; Pass++) {
        char Name[64];
        snprintf(Name, sizeof(Name), "scan%d.store", Pass);
        StorePath(PathScan, sizeof(PathScan), Dir, Name);
        snprintf(Name, sizeof(Name), "tracked%d.store", Pass);
        StorePath(PathTracked, sizeof(PathTracked), Dir, Name);
        OpenWriter(PathScan, &Scan);
        OpenWriter(PathTracked, &Tracked);

        //
        // Pass 1 starts with the out-of-order batch.
        //

        for (Batch = 0; Batch < ARRAYSIZE(Batches); Batch++) {
            ULONG Which = (Pass == 0) ? Batch :
                          (Batch + 4) % (ULONG)ARRAYSIZE(Batches);
            ULONG Count = Batches[Which].Count;
            ULONGLONG First;
            ULONGLONG Other;
            ULONG Index;
            LONGLONG Ts[128];

            for (Index = 0; Index < Count; Index++) {
                Ts[Index] = Batches[Which].Start +
                            (LONGLONG)Index * Batches[Which].Step;
            }
            if (Batches[Which].SwapAt != 0) {
                LONGLONG Swap = Ts[Batches[Which].SwapAt];
                Ts[Batches[Which].SwapAt] = Ts[Batches[Which].SwapAt - 1];
                Ts[Batches[Which].SwapAt - 1] = Swap;
            }

            CHECK_STATUS(TraceStoreReserve(&Scan, Count, &First), NULL);
            CHECK_STATUS(TraceStoreReserve(&Tracked, Count, &Other), NULL);
            for (Index = 0; Index < Count; Index++) {
                TestFillRecord(TestRecordAddress(&Scan, First + Index),
                               First + Index, 0);
                TestFillRecord(TestRecordAddress(&Tracked, Other + Index),
                               Other + Index, 0);
                memcpy(TestRecordAddress(&Scan, First + Index), &Ts[Index], 8);
                memcpy(TestRecordAddress(&Tracked, Other + Index), &Ts[Index],
                       8);
                TraceStoreTrackTs(&Tracker, Ts[Index]);
            }

            //
            // In pass 1, batch 2's tracker misses a record: the tracked
            // commit must notice and scan instead.
            //

            if (Pass == 1 && Batch == 2) {
                Tracker.Count--;
            }

            CHECK_STATUS(TraceStoreCommit(&Scan, TRACE_COMMIT_ALL), NULL);
            CHECK_STATUS(TraceStoreCommitTracked(&Tracked, &Tracker), NULL);
            CHECK(Tracker.Count == 0, "tracker not reset");
            CHECK(Scan.Snapshot.RecordCount == Tracked.Snapshot.RecordCount &&
                  Scan.Snapshot.Flags == Tracked.Snapshot.Flags &&
                  Scan.Snapshot.FirstTs == Tracked.Snapshot.FirstTs &&
                  Scan.Snapshot.LastTs == Tracked.Snapshot.LastTs,
                  "pass %d batch %u: scan {%llu, flags %u, %lld..%lld} vs "
                  "tracked {%llu, flags %u, %lld..%lld}", Pass, Batch,
                  (unsigned long long)Scan.Snapshot.RecordCount,
                  Scan.Snapshot.Flags, (long long)Scan.Snapshot.FirstTs,
                  (long long)Scan.Snapshot.LastTs,
                  (unsigned long long)Tracked.Snapshot.RecordCount,
                  Tracked.Snapshot.Flags, (long long)Tracked.Snapshot.FirstTs,
                  (long long)Tracked.Snapshot.LastTs);
        }

        //
        // Hand-derived: over all batches the extremes are -42 and 9203
        // (9000 + 29 * 7), and the order broke.
        //

        CHECK(Tracked.Snapshot.FirstTs == -42 &&
              Tracked.Snapshot.LastTs == 9203 &&
              !(Tracked.Snapshot.Flags & TRACE_SLOT_SORTED),
              "pass %d: final %lld..%lld flags %u", Pass,
              (long long)Tracked.Snapshot.FirstTs,
              (long long)Tracked.Snapshot.LastTs, Tracked.Snapshot.Flags);
        TraceStoreClose(&Scan);
        TraceStoreClose(&Tracked);
    }
}

//
// Commit of an explicit count: only that prefix is published; a smaller
// count never takes the store backwards; dropped counts are published.
//

static void
CasePartialCommit(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;

    StorePath(Path, sizeof(Path), Dir, "partial.store");
    OpenWriter(Path, &Writer);
    OpenReader(Path, &Reader);

    TestAppend(&Writer, 100, 3);
    CHECK_STATUS(TraceStoreCommit(&Writer, 50), NULL);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 50, "count %llu after Commit(50)",
          (unsigned long long)Snap.RecordCount);

    TraceStoreCommit(&Writer, 40);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 50, "count %llu after Commit(40): went "
          "backwards", (unsigned long long)Snap.RecordCount);

    TraceStoreCommit(&Writer, 1000);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount <= 100, "count %llu after Commit(1000) with only "
          "100 reserved", (unsigned long long)Snap.RecordCount);

    TraceStoreAddDropped(&Writer, 5);
    TraceStoreAddDropped(&Writer, 2);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == 100, "count %llu",
          (unsigned long long)Snap.RecordCount);
    CHECK(Snap.Dropped == 7, "dropped %u", Snap.Dropped);
    TestVerifyRange(&Reader, 0, 100, 3, "partial");
    TraceStoreClose(&Reader);
    TraceStoreClose(&Writer);

    VerifyStoreFile(Path, 100, 3, &Snap);
    CHECK(Snap.Dropped == 7, "dropped %u after close", Snap.Dropped);
}

//
// Reserve beyond a chunk in one call, then keep appending until the file
// has grown several times.  After every growth: the capacity is backed by
// allocated disk blocks (no holes), old records are intact at the new Base,
// and a reader opened at the start follows (remaps).
//

static void
Growth(const char *Dir, BOOL UntilBaseMoves)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;
    ULONGLONG Index;
    ULONGLONG ChunkRecords;
    ULONGLONG BigCount;
    ULONGLONG LastCapacity;
    ULONGLONG Total;
    ULONGLONG Limit;
    ULONG Growths = 0;
    ULONG BaseMoves = 0;
    PBYTE LastBase;
    ULONG Batch = 4096;
    const ULONGLONG MaxBytes = 3ULL << 30;

    StorePath(Path, sizeof(Path), Dir, "growth.store");
    OpenWriter(Path, &Writer);
    OpenReader(Path, &Reader);

    Index = TestAppend(&Writer, 1, 11);
    CHECK(Index == 0, "first index %llu", (unsigned long long)Index);
    ChunkRecords = Writer.Capacity;
    CHECK(ChunkRecords >= 1, "capacity %llu after the first reserve",
          (unsigned long long)ChunkRecords);
    CHECK(TestFileSize(Path) >= 4096 + ChunkRecords * 32,
          "file %llu bytes but capacity %llu records",
          (unsigned long long)TestFileSize(Path),
          (unsigned long long)ChunkRecords);
    TestLog("growth: first chunk holds %llu records (%llu KiB)\n",
            (unsigned long long)ChunkRecords,
            (unsigned long long)ChunkRecords * 32 / 1024);

    //
    // One reservation of more than two chunks.
    //

    BigCount = 2 * ChunkRecords + 123;
    if (BigCount * 32 > (1ULL << 30)) {
        BigCount = (1ULL << 30) / 32 + 123;
    }
    Index = TestAppend(&Writer, (ULONG)BigCount, 11);
    CHECK(Index == 1, "big reserve index %llu", (unsigned long long)Index);
    CHECK(Writer.Capacity >= 1 + BigCount, "capacity %llu < %llu",
          (unsigned long long)Writer.Capacity,
          (unsigned long long)(1 + BigCount));
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    Total = 1 + BigCount;
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == Total, "reader count %llu, expected %llu",
          (unsigned long long)Snap.RecordCount, (unsigned long long)Total);
    TestVerifyRange(&Reader, 0, Total, 11, "reader after big reserve");

    //
    // Then batches until the capacity has changed at least four times.
    //

    LastCapacity = Writer.Capacity;
    LastBase = Writer.Base;
    Limit = MaxBytes / 32;
    while ((Growths < 4 || (UntilBaseMoves && BaseMoves == 0)) &&
           Total < Limit) {
        if (Growths >= 4) {
            Batch = 65536;
        }
        Index = TestAppend(&Writer, Batch, 11);
        CHECK(Index == Total, "index %llu, expected %llu",
              (unsigned long long)Index, (unsigned long long)Total);
        Total += Batch;
        CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
        if (Writer.Base != LastBase) {
            BaseMoves++;
            LastBase = Writer.Base;
        }
        if (Writer.Capacity != LastCapacity) {
            ULONGLONG Sample;
            CHECK(Writer.Capacity > LastCapacity, "capacity shrank");
            Growths++;
            LastCapacity = Writer.Capacity;
            CHECK(TestFileSize(Path) >= 4096 + LastCapacity * 32,
                  "file %llu bytes < capacity %llu records",
                  (unsigned long long)TestFileSize(Path),
                  (unsigned long long)LastCapacity);
            CHECK(TestFileAllocated(Path) >= LastCapacity * 32,
                  "only %llu bytes allocated for capacity %llu records: "
                  "the file has holes (not fallocated)",
                  (unsigned long long)TestFileAllocated(Path),
                  (unsigned long long)LastCapacity);

            //
            // Old records are intact at the (possibly new) Base.
            //

            for (Sample = 0; Sample < Total; Sample += 9973) {
                CHECK(TestRecordValid(TestRecordAddress(&Writer, Sample),
                                      Sample, 11),
                      "record %llu damaged by growth %u",
                      (unsigned long long)Sample, Growths);
            }

            //
            // The reader remaps and sees everything.
            //

            Snapshot(&Reader, &Snap);
            CHECK(Snap.RecordCount == Total, "reader count %llu, "
                  "expected %llu", (unsigned long long)Snap.RecordCount,
                  (unsigned long long)Total);
            TestVerifyRange(&Reader, Total - Batch, Total, 11,
                            "reader after growth");
        }
    }
    CHECK(Growths >= 4, "only %u growths in %llu records (capacity %llu)",
          Growths, (unsigned long long)Total,
          (unsigned long long)Writer.Capacity);
    CHECK(!UntilBaseMoves || BaseMoves != 0, "the mapping never moved in "
          "%llu MiB", (unsigned long long)(Total * 32 >> 20));

    Snapshot(&Reader, &Snap);
    TestVerifyRange(&Reader, 0, Total, 11, "reader at the end");
    TraceStoreClose(&Reader);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, Total, 11, NULL);
    TestLog("growth: %llu records (%llu MiB), %u growths after a reserve of "
            "%llu, base moved %u times\n", (unsigned long long)Total,
            (unsigned long long)(Total * 32 >> 20), Growths,
            (unsigned long long)BigCount, BaseMoves);
}

static void
CaseGrowth(const char *Dir)
{
    Growth(Dir, FALSE);
}

//
// The same, on until the file outgrows the writer's address reservation
// (1 GiB today) and the whole mapping moves: records keep their content at
// the new Base, and the reader follows.
//

static void
CaseGrowthMove(const char *Dir)
{
    Growth(Dir, TRUE);
}

//
// A writer that dies (no close) after committing 1000 records and
// reserving and filling 500 more: the next writer recovers 1000, bumps the
// generation and hands out index 1000 again; the dead records never
// become visible.
//

typedef struct _DIE_CONTEXT {
    const char *Path;
    ULONGLONG Committed;
    ULONGLONG Uncommitted;
} DIE_CONTEXT, *PDIE_CONTEXT;

static int
WriterThatDies(void *Context)
{
    PDIE_CONTEXT Die = (PDIE_CONTEXT)Context;
    TRACE_STORE Writer;

    OpenWriter(Die->Path, &Writer);
    TestAppend(&Writer, (ULONG)Die->Committed, 21);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TestAppend(&Writer, (ULONG)Die->Uncommitted, 0xdead);
    return 0;
}

static void
CaseReopenRecovers(const char *Dir)
{
    char Path[1024];
    DIE_CONTEXT Die;
    TRACE_STORE Writer;
    TRACE_STORE_SNAPSHOT Snap;
    TRACE_STORE_SNAPSHOT Before;
    ULONGLONG Index;
    ULONGLONG Generation;

    StorePath(Path, sizeof(Path), Dir, "recover.store");
    Die.Path = Path;
    Die.Committed = 1000;
    Die.Uncommitted = 500;
    CHECK(RunInChild(WriterThatDies, &Die) == 0, "child writer failed");

    VerifyStoreFile(Path, 1000, 21, &Before);
    Generation = Before.Generation;

    OpenWriter(Path, &Writer);
    CHECK(Writer.CommittedCount == 1000, "recovered %llu",
          (unsigned long long)Writer.CommittedCount);
    CHECK(Writer.Generation == Generation + 1, "writer generation %llu, "
          "expected %llu", (unsigned long long)Writer.Generation,
          (unsigned long long)Generation + 1);
    Index = TestAppend(&Writer, 10, 22);
    CHECK(Index == 1000, "first index after recovery %llu (uncommitted "
          "records were not discarded)", (unsigned long long)Index);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);

    OpenWriter(Path, &Writer);
    TraceStoreClose(&Writer);

    VerifyStoreFile(Path, 1010, ~0ULL, &Snap);
    {
        TRACE_STORE Reader;
        OpenReader(Path, &Reader);
        Snapshot(&Reader, &Snap);
        TestVerifyRange(&Reader, 0, 1000, 21, "committed by the dead writer");
        TestVerifyRange(&Reader, 1000, 1010, 22, "appended after recovery");
        TraceStoreClose(&Reader);
    }
    CHECK(Snap.Generation == Generation + 2, "generation %llu after two more "
          "opens, expected %llu", (unsigned long long)Snap.Generation,
          (unsigned long long)Generation + 2);
}

//
// Close discards what was reserved but not committed.
//

static void
CaseCloseDiscards(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    ULONGLONG Index;
    ULONGLONG Size;

    StorePath(Path, sizeof(Path), Dir, "discard.store");
    OpenWriter(Path, &Writer);
    TestAppend(&Writer, 300, 31);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TestAppend(&Writer, 200, 0xbad);
    TraceStoreClose(&Writer);

    Size = TestFileSize(Path);
    CHECK(Size >= 4096 + 300 * 32 && Size <= ALIGN_UP(4096 + 300 * 32,
          65536), "file size %llu after close with 300 committed",
          (unsigned long long)Size);
    VerifyStoreFile(Path, 300, 31, NULL);

    OpenWriter(Path, &Writer);
    CHECK(Writer.CommittedCount == 300, "recovered %llu",
          (unsigned long long)Writer.CommittedCount);
    Index = TestAppend(&Writer, 5, 31);
    CHECK(Index == 300, "index %llu", (unsigned long long)Index);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Writer);
    VerifyStoreFile(Path, 305, 31, NULL);
}

//
// One writer per store: a second writer (another open file description in
// this process, and another process) gets RTL_STATUS_LOCKED while the first
// holds the store; readers are never blocked; the lock goes with the
// writer.
//

static int
ChildTriesWriter(void *Context)
{
    const char *Path = (const char *)Context;
    TRACE_STORE Second;
    TRACE_STORE Reader;
    RTL_ERROR Error;
    RTL_STATUS Status;

    memset(&Second, 0, sizeof(Second));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Second,
                                  &Error);
    if (Status != RTL_STATUS_LOCKED) {
        fprintf(stderr, "child: second writer got %d (%s): %s\n",
                (int)Status, RtlStatusText(Status), Error.Message);
        return 1;
    }
    OpenReader(Path, &Reader);
    TestVerifyRange(&Reader, 0, Reader.Snapshot.RecordCount, 41,
                    "child reader");
    TraceStoreClose(&Reader);
    return 0;
}

static void
CaseWriterLocked(const char *Dir)
{
    char Path[1024];
    TRACE_STORE First;
    TRACE_STORE Second;
    RTL_ERROR Error;
    RTL_STATUS Status;

    StorePath(Path, sizeof(Path), Dir, "locked.store");
    OpenWriter(Path, &First);
    TestAppend(&First, 64, 41);
    CHECK_STATUS(TraceStoreCommit(&First, TRACE_COMMIT_ALL), NULL);

    memset(&Second, 0, sizeof(Second));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Second,
                                  &Error);
    CHECK(Status == RTL_STATUS_LOCKED, "second writer in the same process "
          "got %d (%s): %s", (int)Status, RtlStatusText(Status),
          Error.Message);
    CHECK(Error.Status == RTL_STATUS_LOCKED, "Error.Status %d",
          (int)Error.Status);
    CHECK(TestMessageNamesFile(Error.Message, Path),
          "message does not name the file: '%s'", Error.Message);
    TestLog("writer_locked: \"%s\"\n", Error.Message);

    CHECK(RunInChild(ChildTriesWriter, Path) == 0,
          "second writer in another process was not refused");

    //
    // The failed attempts did not disturb the first writer.
    //

    TestAppend(&First, 64, 41);
    CHECK_STATUS(TraceStoreCommit(&First, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&First);

    OpenWriter(Path, &Second);
    CHECK(Second.CommittedCount == 128, "count %llu",
          (unsigned long long)Second.CommittedCount);
    TraceStoreClose(&Second);
    VerifyStoreFile(Path, 128, 41, NULL);
}

//
// A reader in the same process follows the writer commit by commit,
// across growth, and never sees reserved-but-uncommitted records.
//

static void
CaseReaderFollows(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Writer;
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;
    ULONGLONG Total = 0;
    ULONGLONG Seen = 0;
    ULONGLONG Generation;
    ULONGLONG Sequence = 0;
    ULONGLONG Step;
    ULONGLONG State = TestSeed();
    ULONG Commits = 0;
    ULONG Growths = 0;
    ULONGLONG Capacity = 0;

    StorePath(Path, sizeof(Path), Dir, "follow.store");
    OpenWriter(Path, &Writer);
    OpenReader(Path, &Reader);
    Generation = Reader.Snapshot.Generation;

    while (Total < 6000000 || Growths < 2) {
        ULONG Count = (ULONG)(1 + TestRandom(&State) % 20000);
        TestAppend(&Writer, Count, 51);

        if ((TestRandom(&State) & 3) == 0) {
            Snapshot(&Reader, &Snap);
            CHECK(Snap.RecordCount == Total, "reader sees %llu before the "
                  "commit, expected %llu",
                  (unsigned long long)Snap.RecordCount,
                  (unsigned long long)Total);
        }
        Total += Count;
        CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
        Commits++;
        if (Writer.Capacity != Capacity) {
            Growths += Capacity != 0;
            Capacity = Writer.Capacity;
        }

        Snapshot(&Reader, &Snap);
        CHECK(Snap.RecordCount == Total, "reader sees %llu, committed %llu",
              (unsigned long long)Snap.RecordCount,
              (unsigned long long)Total);
        CHECK(Snap.Sequence > Sequence, "sequence %llu after %llu",
              (unsigned long long)Snap.Sequence,
              (unsigned long long)Sequence);
        CHECK(Snap.Generation == Generation, "generation changed");
        CHECK(Snap.LastTs == TestTimestamp(Total - 1), "LastTs %lld",
              (long long)Snap.LastTs);
        Sequence = Snap.Sequence;
        TestVerifyRange(&Reader, Seen, Total, 51, "follower");
        Seen = Total;

        Step = TestRandom(&State) % Total;
        CHECK(TestRecordValid(TestRecordAddress(&Reader, Step), Step, 51),
              "old record %llu", (unsigned long long)Step);
        CHECK(Total < (1ULL << 27), "store never grew twice");
    }
    TraceStoreClose(&Writer);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == Total, "count after the writer closed %llu",
          (unsigned long long)Snap.RecordCount);
    TestVerifyRange(&Reader, 0, Total, 51, "follower at the end");
    TraceStoreClose(&Reader);
    TestLog("reader_follows: %llu records, %u commits, %u growths\n",
            (unsigned long long)Total, Commits, Growths);
}

//
// The schema must describe its records; the file is not created if not.
//

static ULONG BadSchemaProblems;

static void
ExpectBadSchema(const char *Dir, const char *What, PCTRACE_STORE_SCHEMA Schema)
{
    char Path[1024];
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;
    struct stat St;

    StorePath(Path, sizeof(Path), Dir, "bad_schema.store");
    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, Schema, &Store, &Error);
    if (RTL_SUCCESS(Status)) {
        printf("PROBLEM: a schema with %s was accepted\n", What);
        BadSchemaProblems++;
        TraceStoreClose(&Store);
    } else {
        CHECK(Error.Message[0] != '\0', "no message for a schema with %s",
              What);
        TestLog("bad_schema: %s -> %s: %s\n", What, TestStatusName(Status),
                Error.Message);
    }
    if (stat(Path, &St) == 0) {
        printf("PROBLEM: a store file was left behind for a schema with "
               "%s\n", What);
        BadSchemaProblems++;
        unlink(Path);
    }
}

static void
CaseBadSchema(const char *Dir)
{
    TRACE_COLUMN_DESCRIPTOR Columns[TRACE_STORE_MAX_COLUMNS + 1];
    TRACE_STORE_SCHEMA Schema;
    ULONG Index;
    DIR *Handle;
    struct dirent *Entry;

    memcpy(Columns, TestRecordColumns, sizeof(TestRecordColumns));

    Schema = TestRecordSchema;
    Schema.Columns = Columns;

    Columns[3].Offset = 28;
    ExpectBadSchema(Dir, "a column past the record end", &Schema);
    Columns[3] = TestRecordColumns[3];

    Columns[1].Width = 4;
    ExpectBadSchema(Dir, "a UInt64 column of width 4", &Schema);
    Columns[1] = TestRecordColumns[1];

    Columns[2].Type = 99;
    ExpectBadSchema(Dir, "an unknown column type", &Schema);
    Columns[2] = TestRecordColumns[2];

    Columns[2].Flags = 0x8000;
    ExpectBadSchema(Dir, "an unknown column flag", &Schema);
    Columns[2] = TestRecordColumns[2];

    Columns[0].Type = TraceColumnUInt32;
    Columns[0].Width = 4;
    ExpectBadSchema(Dir, "a 32-bit timestamp column", &Schema);
    Columns[0] = TestRecordColumns[0];

    Schema.RecordSize = 0;
    ExpectBadSchema(Dir, "record size 0", &Schema);
    Schema.RecordSize = TRACE_STORE_MAX_RECORD_SIZE + 8;
    ExpectBadSchema(Dir, "record size above the maximum", &Schema);
    Schema.RecordSize = 32;

    for (Index = 0; Index < ARRAYSIZE(Columns); Index++) {
        Columns[Index] = TestRecordColumns[1];
        snprintf(Columns[Index].Name, sizeof(Columns[Index].Name), "c%u",
                 Index);
    }
    Schema.NumberOfColumns = TRACE_STORE_MAX_COLUMNS + 1;
    ExpectBadSchema(Dir, "31 columns", &Schema);
    memcpy(Columns, TestRecordColumns, sizeof(TestRecordColumns));
    Schema.NumberOfColumns = 4;

    Schema.Name = "a_store_name_that_is_longer_than_thirty_two_bytes";
    ExpectBadSchema(Dir, "a name too long", &Schema);
    Schema.Name = "";
    ExpectBadSchema(Dir, "an empty name", &Schema);

    CHECK(BadSchemaProblems == 0, "%u problems (above)", BadSchemaProblems);

    //
    // No temporary files left either.
    //

    Handle = opendir(Dir);
    CHECK(Handle != NULL, "opendir");
    while ((Entry = readdir(Handle)) != NULL) {
        CHECK(strcmp(Entry->d_name, ".") == 0 ||
              strcmp(Entry->d_name, "..") == 0,
              "left behind in the directory: %s", Entry->d_name);
    }
    closedir(Handle);
}

//
// Opening an existing store with a different schema fails and leaves the
// file as it was.
//

static void
CaseSchemaMismatch(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Store;
    TRACE_STORE_SCHEMA Other;
    TRACE_COLUMN_DESCRIPTOR Columns[4];
    TRACE_STORE_HEADER Before;
    TRACE_STORE_HEADER After;
    RTL_ERROR Error;
    RTL_STATUS Status;

    StorePath(Path, sizeof(Path), Dir, "mismatch.store");
    OpenWriter(Path, &Store);
    TestAppend(&Store, 10, 61);
    CHECK_STATUS(TraceStoreCommit(&Store, TRACE_COMMIT_ALL), NULL);
    TraceStoreClose(&Store);
    TestReadHeader(Path, &Before);

    memcpy(Columns, TestRecordColumns, sizeof(Columns));
    Other = TestRecordSchema;
    Other.Columns = Columns;
    Other.NumberOfColumns = 3;
    Other.RecordSize = 24;

    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &Other, &Store, &Error);
    CHECK(!RTL_SUCCESS(Status), "opened with a 24-byte schema");
    CHECK(TestMessageNamesFile(Error.Message, Path), "message '%s'",
          Error.Message);
    TestLog("schema_mismatch: record size -> %s: %s\n",
            TestStatusName(Status), Error.Message);

    Other.RecordSize = 32;
    Other.NumberOfColumns = 4;
    strcpy(Columns[2].Name, "renamed");
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &Other, &Store, &Error);
    CHECK(!RTL_SUCCESS(Status), "opened with a renamed column");
    TestLog("schema_mismatch: column name -> %s: %s\n",
            TestStatusName(Status), Error.Message);

    TestReadHeader(Path, &After);
    CHECK(memcmp(&Before, &After, sizeof(Before)) == 0,
          "a refused open changed the header");
    VerifyStoreFile(Path, 10, 61, NULL);
}

static void
CaseOpenMissing(const char *Dir)
{
    char Path[1024];
    TRACE_STORE Store;
    RTL_ERROR Error;
    RTL_STATUS Status;

    StorePath(Path, sizeof(Path), Dir, "missing.store");
    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenReader(&Rtl, Path, &Store, &Error);
    CHECK(Status == RTL_STATUS_NOT_FOUND, "reader of a missing file: %d (%s)",
          (int)Status, RtlStatusText(Status));
    CHECK(TestMessageNamesFile(Error.Message, Path), "message '%s'",
          Error.Message);
    TestLog("open_missing: \"%s\"\n", Error.Message);

    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenReader(&Rtl, Dir, &Store, &Error);
    CHECK(!RTL_SUCCESS(Status), "opened a directory as a store");
    TestLog("open_missing: directory -> %s: \"%s\"\n", TestStatusName(Status),
            Error.Message);

    StorePath(Path, sizeof(Path), Dir, "no/such/dir/x.store");
    memset(&Error, 0, sizeof(Error));
    Status = TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Store,
                                  &Error);
    CHECK(!RTL_SUCCESS(Status), "created a store in a missing directory");
}

//
// The pre-fault requests a writer makes (Rtl.PrefaultMemoryAsync) cover
// every page from the first one up to two windows ahead of the writer,
// with no gap: a page never asked for is faulted in by the writer itself
// (2 us here; a whole 2 MB page with LargePages).  And what a store that
// unmaps behind its writer unmaps lies behind it.  For a plain store, one
// that unmaps behind its writer (DiscardBehind) and one with LargePages
// too, as the Python tracer's is.  Records go in one at a time, as a
// tracer appends them, and commit every 64 K records, as it commits.
//

#define PREFAULT_LOG 4096

static struct {
    PBYTE Mapping;
    ULONGLONG Start[PREFAULT_LOG];
    ULONGLONG End[PREFAULT_LOG];
    ULONG Count;
} PrefaultLog;

static VOID
LogPrefault(PRTL Unused, PVOID Address, SIZE_T Size)
{
    (void)Unused;
    CHECK(PrefaultLog.Count < PREFAULT_LOG, "more than %d pre-faults",
          PREFAULT_LOG);
    PrefaultLog.Start[PrefaultLog.Count] = (PBYTE)Address -
                                           PrefaultLog.Mapping;
    PrefaultLog.End[PrefaultLog.Count] = PrefaultLog.Start[PrefaultLog.Count] +
                                         Size;
    PrefaultLog.Count++;
}

static void
PrefaultCovers(const char *Dir, const char *Name, BOOL DiscardBehind,
               BOOL LargePages)
{
    char Path[1024];
    RTL LogRtl = Rtl;
    TRACE_STORE Store;
    RTL_ERROR Error;
    ULONGLONG Index;
    ULONGLONG Records = (48ULL << 20) / sizeof(TEST_RECORD);
    ULONGLONG Covered = 0;
    ULONGLONG Writer;
    ULONG Request;

    LogRtl.PrefaultMemoryAsync = LogPrefault;
    StorePath(Path, sizeof(Path), Dir, Name);
    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenWriter(&LogRtl, Path, &TestRecordSchema,
                                      &Store, &Error), &Error);
    Store.DiscardBehind = DiscardBehind;
    Store.LargePages = LargePages;
    memset(&PrefaultLog, 0, sizeof(PrefaultLog));

    for (Index = 0; Index < Records; Index++) {
        ULONGLONG Got;
        PrefaultLog.Mapping = (PBYTE)Store.Mapping;
        CHECK_STATUS(TraceStoreReserve(&Store, 1, &Got), NULL);
        TestFillRecord(TestRecordAddress(&Store, Got), Got, 3);
        if ((Index & 0xffff) == 0xffff) {
            CHECK_STATUS(TraceStoreCommit(&Store, TRACE_COMMIT_ALL), NULL);
        }
    }

    //
    // The requests, in order, each start where the last ended; together
    // they reach past the writer.
    //

    CHECK(PrefaultLog.Count > 0, "%s: no pre-fault requests", Name);
    Covered = PrefaultLog.Start[0];
    for (Request = 0; Request < PrefaultLog.Count; Request++) {
        CHECK(PrefaultLog.Start[Request] == Covered,
              "%s: request %u starts at %llu, the last ended at %llu: "
              "%llu bytes never pre-faulted", Name, Request,
              (unsigned long long)PrefaultLog.Start[Request],
              (unsigned long long)Covered,
              (unsigned long long)(PrefaultLog.Start[Request] - Covered));
        Covered = PrefaultLog.End[Request];
    }
    Writer = TRACE_STORE_HEADER_SIZE + Records * sizeof(TEST_RECORD);
    CHECK(Covered >= Writer, "%s: pre-faulted to %llu, the writer is at %llu",
          Name, (unsigned long long)Covered, (unsigned long long)Writer);

    //
    // What it unmapped behind itself lies behind it, and with LargePages
    // ends on a large page (TraceStoreCommit.c, DiscardBehind).
    //

    CHECK(Store.DiscardedBytes <= Records * sizeof(TEST_RECORD),
          "%s: unmapped %llu bytes of records, past the writer's %llu", Name,
          (unsigned long long)Store.DiscardedBytes,
          (unsigned long long)(Records * sizeof(TEST_RECORD)));
    CHECK(DiscardBehind == (Store.DiscardedBytes != 0),
          "%s: unmapped %llu bytes behind", Name,
          (unsigned long long)Store.DiscardedBytes);
    CHECK(!LargePages || ((Store.DiscardedBytes + TRACE_STORE_HEADER_SIZE) &
                          (TRACE_LARGE_PAGE - 1)) == 0,
          "%s: unmapped up to %llu, not a large page's end", Name,
          (unsigned long long)(Store.DiscardedBytes + TRACE_STORE_HEADER_SIZE));
    TestLog("prefault_covers: %s: %u requests, %llu bytes ahead\n", Name,
            PrefaultLog.Count, (unsigned long long)(Covered - Writer));
    TraceStoreClose(&Store);
    VerifyStoreFile(Path, Records, 3, NULL);
}

static void
CasePrefaultCovers(const char *Dir)
{
    PrefaultCovers(Dir, "plain.store", FALSE, FALSE);
    PrefaultCovers(Dir, "discard.store", TRUE, FALSE);
    PrefaultCovers(Dir, "large.store", TRUE, TRUE);
}

//
// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------
//

static const TEST_CASE Cases[] = {
    { "create_reopen", CaseCreateReopen },
    { "empty_store", CaseEmptyStore },
    { "sorted_flag", CaseSortedFlag },
    { "commit_tracked", CaseCommitTracked },
    { "partial_commit", CasePartialCommit },
    { "growth", CaseGrowth },
    { "growth_move", CaseGrowthMove },
    { "prefault_covers", CasePrefaultCovers },
    { "reopen_recovers", CaseReopenRecovers },
    { "close_discards", CaseCloseDiscards },
    { "writer_locked", CaseWriterLocked },
    { "reader_follows", CaseReaderFollows },
    { "bad_schema", CaseBadSchema },
    { "schema_mismatch", CaseSchemaMismatch },
    { "open_missing", CaseOpenMissing },
};

int
main(int argc, char **argv)
{
    return TestRunCases(argc, argv, Cases, ARRAYSIZE(Cases), "store");
}
