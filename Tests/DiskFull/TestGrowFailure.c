/*++

Module Name:

    TestGrowFailure.c

Abstract:

    A store writer on a disk that fills up, with the disk simulated: the
    RTL's GrowFile is wrapped so that it fails with RTL_STATUS_NO_SPACE
    (as fallocate does) for any size beyond a budget, and counts its
    calls.  What must hold:

        - The writer fills the file to the budget's last page before
          TraceStoreReserve reports RTL_STATUS_NO_SPACE, one record at a
          time (fill_one) or in batches (fill_batch).
        - A full disk costs a bounded number of GrowFile calls, not one
          per record appended after a grow-ahead failed.
        - Nothing is written past the file's end (the program would die of
          SIGBUS), every committed record reads back intact in a reader,
          and once the budget is raised a new writer continues.

    Usage: TestGrowFailure CASE|all|list

--*/

#include "StoreTest.h"

static RTL Rtl;
static PRTL_GROW_FILE RealGrowFile;
static ULONGLONG Budget;
static ULONG GrowCalls;
static ULONG GrowFailures;

static RTL_STATUS
BudgetGrowFile(
    PRTL Context,
    HANDLE Handle,
    ULONGLONG NewSize
    )
{
    GrowCalls++;
    if (NewSize > Budget) {
        GrowFailures++;
        return RTL_STATUS_NO_SPACE;
    }
    return RealGrowFile(Context, Handle, NewSize);
}

//
// Appends in batches of Batch records until the store is full, committing
// every 64 batches; returns the number appended and committed.
//

static ULONGLONG
FillStore(
    const char *Path,
    ULONG Batch,
    ULONGLONG Salt,
    ULONGLONG First
    )
{
    TRACE_STORE Writer;
    RTL_ERROR Error;
    RTL_STATUS Status;
    ULONGLONG Index;
    ULONGLONG Count = First;
    ULONG Offset;
    ULONG Round = 0;

    CHECK_STATUS(TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, &Writer,
                                      &Error), &Error);
    CHECK(Writer.CommittedCount == First, "reopened with %llu records",
          (unsigned long long)Writer.CommittedCount);
    for (;;) {
        Status = TraceStoreReserve(&Writer, Batch, &Index);
        if (!RTL_SUCCESS(Status)) {
            break;
        }
        CHECK(Index == Count, "reserved at %llu", (unsigned long long)Index);
        for (Offset = 0; Offset < Batch; Offset++) {
            TestFillRecord(TestRecordAddress(&Writer, Index + Offset),
                           Index + Offset, Salt);
        }
        Count += Batch;
        if (++Round % 64 == 0) {
            CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
        }
    }
    CHECK(Status == RTL_STATUS_NO_SPACE, "reserve failed with %s",
          TestStatusName(Status));
    CHECK_STATUS(TraceStoreCommit(&Writer, TRACE_COMMIT_ALL), NULL);
    CHECK(Writer.CommittedCount == Count, "committed %llu of %llu",
          (unsigned long long)Writer.CommittedCount,
          (unsigned long long)Count);
    TraceStoreClose(&Writer);
    return Count;
}

static void
VerifyStore(
    const char *Path,
    ULONGLONG Count,
    ULONGLONG Salt,
    ULONGLONG SaltFrom
    )
{
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snapshot;
    RTL_ERROR Error;

    CHECK_STATUS(TraceStoreOpenReader(&Rtl, Path, &Reader, &Error), &Error);
    CHECK_STATUS(TraceStoreTakeSnapshot(&Reader, &Snapshot, &Error), &Error);
    CHECK(Snapshot.RecordCount == Count, "reader sees %llu of %llu records",
          (unsigned long long)Snapshot.RecordCount,
          (unsigned long long)Count);
    TestVerifyRange(&Reader, 0, SaltFrom, 41, "before the full disk");
    TestVerifyRange(&Reader, SaltFrom, Count, Salt, "after the full disk");
    TraceStoreClose(&Reader);
}

static void
Fill(
    const char *Dir,
    ULONG Batch
    )
{
    char Path[1024];
    ULONGLONG Count;
    ULONGLONG Expected;
    ULONGLONG More;

    TestJoin(Path, sizeof(Path), Dir, "full.store");

    //
    // 1 MiB and 3 pages: not a multiple of any chunk.
    //

    Budget = (1ULL << 20) + 3 * RTL_PAGE_SIZE;
    GrowCalls = 0;
    GrowFailures = 0;
    Count = FillStore(Path, Batch, 41, 0);
    Expected = (Budget - TRACE_STORE_HEADER_SIZE) / sizeof(TEST_RECORD);
    Expected -= Expected % Batch;
    TestLog("batch %u: %llu records in a budget for %llu, %u GrowFile calls "
            "(%u failed)\n", Batch, (unsigned long long)Count,
            (unsigned long long)Expected, GrowCalls, GrowFailures);
    CHECK(Count == Expected, "the store took %llu records, the disk had "
          "room for %llu", (unsigned long long)Count,
          (unsigned long long)Expected);
    //
    // A few calls per halving of the free space (about 40), where a call
    // per record appended after a failed grow-ahead was thousands.
    //

    CHECK(GrowCalls <= 64, "%u GrowFile calls to fill 1 MiB", GrowCalls);
    CHECK(TestFileSize(Path) <= Budget, "the file is larger than the disk");
    VerifyStore(Path, Count, 41, Count);

    //
    // Still full: a new writer opens, recovers, and reports the disk full.
    //

    More = FillStore(Path, Batch, 42, Count);
    CHECK(More == Count, "appended %llu records to a full disk",
          (unsigned long long)(More - Count));

    //
    // Room again: a new writer continues after the last commit.
    //

    Budget *= 2;
    More = FillStore(Path, Batch, 42, Count);
    CHECK(More > Count + Count / 2, "only %llu more records after the disk "
          "doubled", (unsigned long long)(More - Count));
    VerifyStore(Path, More, 42, Count);
}

static void
CaseFillOne(const char *Dir)
{
    Fill(Dir, 1);
}

static void
CaseFillBatch(const char *Dir)
{
    Fill(Dir, 1000);
}

typedef struct _TEST_CASE {
    const char *Name;
    void (*Run)(const char *Dir);
} TEST_CASE;

static const TEST_CASE Cases[] = {
    { "fill_one", CaseFillOne },
    { "fill_batch", CaseFillBatch },
};

int
main(int argc, char **argv)
{
    ULONG Index;

    if (argc != 2) {
        fprintf(stderr, "usage: %s CASE|all|list\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "list") == 0) {
        for (Index = 0; Index < ARRAYSIZE(Cases); Index++) {
            printf("%s\n", Cases[Index].Name);
        }
        return 0;
    }
    CHECK(RTL_SUCCESS(InitializeRtl(&Rtl)), "InitializeRtl");
    RealGrowFile = Rtl.GrowFile;
    Rtl.GrowFile = BudgetGrowFile;

    for (Index = 0; Index < ARRAYSIZE(Cases); Index++) {
        if (strcmp(argv[1], "all") == 0 ||
            strcmp(argv[1], Cases[Index].Name) == 0) {
            Cases[Index].Run(TestMakeScratch(NULL, "grow-failure"));
            TestRemoveScratch();
            printf("PASS %s\n", Cases[Index].Name);
        }
    }
    return 0;
}
