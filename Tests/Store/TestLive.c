/*++

Module Name:

    TestLive.c

Abstract:

    A writer process and a reader process on one store at the same time.

    The writer appends RECORDS (default 10,000,000) 32-byte records whose
    content follows from their index (ts, seq, payload, checksum), and
    commits every RECORDS_PER_COMMIT (default 4096).  The reader, another
    process, loops on TraceStoreTakeSnapshot and checks that:

        - the committed count never decreases, the sequence never goes
          back, the generation never changes;
        - every record it can see is complete: all records new since its
          last snapshot, plus a random sample of older ones (committed
          records never change);
        - the slot's capacity covers the count and its first/last ts are
          those of records 0 and count - 1;
        - a store opened afresh while the writer runs agrees.

    It must observe several distinct counts.  Exit status is non-zero on
    any inconsistency.

    Usage: TestLive [RECORDS [RECORDS_PER_COMMIT [SCRATCH_BASE]]]

--*/

#include "StoreTest.h"



static RTL Rtl;

typedef struct _LIVE_RESULT {
    ULONGLONG Snapshots;
    ULONGLONG DistinctCounts;
    ULONGLONG RecordsVerified;
    ULONGLONG SamplesVerified;
    ULONGLONG FreshOpens;
    ULONGLONG LargestStep;
    double Seconds;
} LIVE_RESULT;

static int
RunWriter(
    const char *Path,
    ULONGLONG Records,
    ULONG PerCommit,
    int ReadyFd,
    int GoFd
    )
{
    TRACE_STORE Writer;
    RTL_ERROR Error;
    ULONGLONG Total = 0;
    ULONGLONG Index;
    ULONGLONG Commits = 0;
    ULONG Count;
    ULONG Offset;
    double Start;
    double Seconds;

    memset(&Writer, 0, sizeof(Writer));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Writer,
                                      &Error), &Error);
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    TestSendByte(ReadyFd, 'R');
    TestWaitByte(GoFd, 'G', 60000, "the reader");

    Start = TestNow();
    while (Total < Records) {
        Count = PerCommit;
        if (Records - Total < Count) {
            Count = (ULONG)(Records - Total);
        }
        CHECK_STATUS(TraceStoreReserve(&Writer, Count, &Index), NULL);
        CHECK(Index == Total, "reserve returned %llu, expected %llu",
              (unsigned long long)Index, (unsigned long long)Total);
        for (Offset = 0; Offset < Count; Offset++) {
            TestFillRecord(TestRecordAddress(&Writer, Index + Offset),
                           Index + Offset, 0x11fe);
        }
        Total += Count;
        CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
        Commits++;
    }
    Seconds = TestNow() - Start;
    TraceStoreClose(&Writer);
    printf("writer: %llu records in %llu commits, %.3f s, %.2f M records/s, "
           "%.3f GB/s\n", (unsigned long long)Total,
           (unsigned long long)Commits, Seconds, Total / Seconds / 1e6,
           Total * 32.0 / Seconds / 1e9);
    fflush(stdout);
    return 0;
}

static void
CheckSnapshotFields(
    PTRACE_STORE Store,
    const TRACE_STORE_SNAPSHOT *Snap,
    const char *What
    )
{
    CHECK(Snap->Capacity >= Snap->RecordCount, "%s: capacity %llu < count "
          "%llu", What, (unsigned long long)Snap->Capacity,
          (unsigned long long)Snap->RecordCount);
    if (Snap->RecordCount != 0) {
        CHECK(Snap->FirstTs == TestTimestamp(0), "%s: FirstTs %lld", What,
              (long long)Snap->FirstTs);
        CHECK(Snap->LastTs == TestTimestamp(Snap->RecordCount - 1),
              "%s: LastTs %lld for count %llu (torn slot?)", What,
              (long long)Snap->LastTs,
              (unsigned long long)Snap->RecordCount);
        CHECK(Snap->Flags & TRACE_SLOT_SORTED, "%s: not sorted", What);
        CHECK(TestRecordValid(TestRecordAddress(Store,
                                                Snap->RecordCount - 1),
                              Snap->RecordCount - 1, 0x11fe),
              "%s: last committed record %llu incomplete", What,
              (unsigned long long)Snap->RecordCount - 1);
    }
}

static int
RunReader(
    const char *Path,
    ULONGLONG Records,
    int GoFd,
    int ResultFd
    )
{
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;
    RTL_ERROR Error;
    LIVE_RESULT Result;
    ULONGLONG Last = 0;
    ULONGLONG LastSequence = 0;
    ULONGLONG Generation;
    ULONGLONG State = TestSeed();
    ULONGLONG Sample;
    ULONG Index;
    double Start;
    double LastProgress;

    memset(&Result, 0, sizeof(Result));
    memset(&Reader, 0, sizeof(Reader));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenReader(&Rtl, Path, &Reader, &Error), &Error);
    Generation = Reader.Snapshot.Generation;
    TestSendByte(GoFd, 'G');

    Start = TestNow();
    LastProgress = Start;
    while (Last < Records) {
        memset(&Error, 0, sizeof(Error));
        CHECK_STATUS(TraceStoreTakeSnapshot(&Reader, &Snap, &Error), &Error);
        Result.Snapshots++;

        CHECK(Snap.RecordCount >= Last, "count went back from %llu to %llu",
              (unsigned long long)Last,
              (unsigned long long)Snap.RecordCount);
        CHECK(Snap.Sequence >= LastSequence, "sequence went back from %llu "
              "to %llu", (unsigned long long)LastSequence,
              (unsigned long long)Snap.Sequence);
        CHECK(Snap.Generation == Generation, "generation changed from %llu "
              "to %llu", (unsigned long long)Generation,
              (unsigned long long)Snap.Generation);
        CHECK(Snap.RecordCount <= Records, "count %llu beyond what the "
              "writer writes", (unsigned long long)Snap.RecordCount);
        LastSequence = Snap.Sequence;

        if (Snap.RecordCount > Last) {
            CheckSnapshotFields(&Reader, &Snap, "live snapshot");
            TestVerifyRange(&Reader, Last, Snap.RecordCount, 0x11fe,
                            "new records");
            Result.RecordsVerified += Snap.RecordCount - Last;
            if (Snap.RecordCount - Last > Result.LargestStep) {
                Result.LargestStep = Snap.RecordCount - Last;
            }
            Result.DistinctCounts++;
            Last = Snap.RecordCount;
            LastProgress = TestNow();
        } else {
            CHECK(TestNow() - LastProgress < 60.0, "no progress for 60 s at "
                  "%llu records", (unsigned long long)Last);
        }

        //
        // Committed records never change: a random sample of old ones.
        //

        for (Index = 0; Last != 0 && Index < 32; Index++) {
            Sample = TestRandom(&State) % Last;
            CHECK(TestRecordValid(TestRecordAddress(&Reader, Sample), Sample,
                                  0x11fe),
                  "old record %llu changed (count %llu)",
                  (unsigned long long)Sample, (unsigned long long)Last);
            Result.SamplesVerified++;
        }

        //
        // Now and then, a store opened afresh agrees.
        //

        if (Result.Snapshots % 256 == 0) {
            TRACE_STORE Fresh;
            TRACE_STORE_SNAPSHOT FreshSnap;

            memset(&Fresh, 0, sizeof(Fresh));
            memset(&Error, 0, sizeof(Error));
            CHECK_STATUS(TraceStoreOpenReader(&Rtl, Path, &Fresh, &Error),
                         &Error);
            CHECK_STATUS(TraceStoreTakeSnapshot(&Fresh, &FreshSnap, &Error),
                         &Error);
            CHECK(FreshSnap.RecordCount >= Last, "a fresh reader sees %llu "
                  "< %llu", (unsigned long long)FreshSnap.RecordCount,
                  (unsigned long long)Last);
            CheckSnapshotFields(&Fresh, &FreshSnap, "fresh reader");
            for (Index = 0; FreshSnap.RecordCount != 0 && Index < 64;
                 Index++) {
                Sample = TestRandom(&State) % FreshSnap.RecordCount;
                CHECK(TestRecordValid(TestRecordAddress(&Fresh, Sample),
                                      Sample, 0x11fe),
                      "fresh reader: record %llu",
                      (unsigned long long)Sample);
            }
            TraceStoreClose(&Fresh);
            Result.FreshOpens++;
        }
    }
    Result.Seconds = TestNow() - Start;
    TraceStoreClose(&Reader);
    CHECK(write(ResultFd, &Result, sizeof(Result)) == sizeof(Result),
          "write result");
    return 0;
}

int
main(int argc, char **argv)
{
    ULONGLONG Records = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
    ULONG PerCommit = argc > 2 ? (ULONG)strtoul(argv[2], NULL, 0) : 4096;
    const char *Base = argc > 3 ? argv[3] : NULL;
    const char *Dir;
    char Path[1024];
    int ReadyPipe[2];
    int GoPipe[2];
    int ResultPipe[2];
    pid_t Writer;
    pid_t Reader;
    LIVE_RESULT Result;
    TRACE_STORE Store;
    TRACE_STORE_SNAPSHOT Snap;
    RTL_ERROR Error;
    int Failed = 0;
    char Byte;

    CHECK(Records >= 1 && PerCommit >= 1, "usage: %s [RECORDS "
          "[RECORDS_PER_COMMIT [SCRATCH_BASE]]]", argv[0]);
    CHECK(RTL_SUCCESS(InitializeRtl(&Rtl)), "InitializeRtl");
    Dir = TestMakeScratch(Base, "live");
    TestJoin(Path, sizeof(Path), Dir, "live.store");
    CHECK(pipe(ReadyPipe) == 0 && pipe(GoPipe) == 0 && pipe(ResultPipe) == 0,
          "pipe");

    fflush(stdout);
    Writer = fork();
    CHECK(Writer >= 0, "fork");
    if (Writer == 0) {
        _exit(RunWriter(Path, Records, PerCommit, ReadyPipe[1], GoPipe[0]));
    }

    //
    // The reader starts once the store exists; the writer starts appending
    // once the reader has opened it.
    //

    {
        struct pollfd Poll = { ReadyPipe[0], POLLIN, 0 };
        if (poll(&Poll, 1, 60000) != 1 || read(ReadyPipe[0], &Byte, 1) != 1) {
            kill(Writer, SIGKILL);
            TestWaitChild(Writer, "writer");
            TestFail(__FILE__, __LINE__, "the writer did not start");
        }
    }
    Reader = fork();
    CHECK(Reader >= 0, "fork");
    if (Reader == 0) {
        _exit(RunReader(Path, Records, GoPipe[1], ResultPipe[1]));
    }
    close(ResultPipe[1]);

    Failed |= TestWaitChild(Writer, "writer") != 0;
    if (Failed) {
        kill(Reader, SIGKILL);
    }
    Failed |= TestWaitChild(Reader, "reader") != 0;
    if (Failed) {
        return 1;
    }
    CHECK(read(ResultPipe[0], &Result, sizeof(Result)) == sizeof(Result),
          "no result from the reader");

    printf("reader: %llu snapshots, %llu distinct counts, %llu records "
           "verified as they appeared, %llu old records re-checked, %llu "
           "fresh opens, largest step %llu records, %.3f s\n",
           (unsigned long long)Result.Snapshots,
           (unsigned long long)Result.DistinctCounts,
           (unsigned long long)Result.RecordsVerified,
           (unsigned long long)Result.SamplesVerified,
           (unsigned long long)Result.FreshOpens,
           (unsigned long long)Result.LargestStep, Result.Seconds);
    CHECK(Result.RecordsVerified == Records, "verified %llu of %llu",
          (unsigned long long)Result.RecordsVerified,
          (unsigned long long)Records);
    CHECK(Result.Snapshots > 1, "only one snapshot");
    CHECK(Result.DistinctCounts >= 3 || Records <= 2ULL * PerCommit,
          "only %llu distinct counts seen: the reader did not run alongside "
          "the writer", (unsigned long long)Result.DistinctCounts);

    //
    // After both: the whole store, once more.
    //

    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenReader(&Rtl, Path, &Store, &Error), &Error);
    CHECK_STATUS(TraceStoreTakeSnapshot(&Store, &Snap, &Error), &Error);
    CHECK(Snap.RecordCount == Records, "final count %llu",
          (unsigned long long)Snap.RecordCount);
    TestVerifyRange(&Store, 0, Records, 0x11fe, "final");
    TraceStoreClose(&Store);
    printf("PASS: %llu records, %llu snapshots, %llu distinct counts\n",
           (unsigned long long)Records,
           (unsigned long long)Result.Snapshots,
           (unsigned long long)Result.DistinctCounts);
    return 0;
}
