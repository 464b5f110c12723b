/*++

Module Name:

    BenchAppend.c

Abstract:

    How close does appending to a store come to writing pre-faulted mapped
    memory?  In one run, in one directory, for SIZE bytes of 32-byte
    records, best of REPEAT runs each (interleaved, so that the page cache
    and writeback affect every case alike):

        (a) reference: a file fallocated to SIZE, mapped MAP_SHARED |
            MAP_POPULATE and write-touched once per page beforehand; time
            to write the records sequentially.
        (c) context: the same file mapped MAP_SHARED without pre-faulting,
            so every page takes its fault during the timed writes.
        (b) the store: TraceStoreOpenWriter on a new file, then Reserve /
            fill / Commit every RECORDS_PER_COMMIT records until SIZE bytes
            are committed (close excluded):
            p  preallocated: TraceStorePreallocate faults the file in
               before the clock starts, as the reference's populate does;
               ts tracked while filling (TraceStoreCommitTracked).  This
               is the append path itself, the comparison the 80% target
               is about.
            s  the same, committing with TraceStoreCommit, which reads
               every new record's ts back.
            w  growing from empty, with PrefaultMemoryAsync on a worker
               thread (as the tracestore command runs): includes the
               kernel allocating and zeroing every page-cache page.
            l  the same with TRACE_STORE.LargePages (as the Python
               tracer's span store): 2 MB page-cache pages.
            n  growing, with the RTL as InitializeRtl leaves it (no
               prefault ahead; the writer takes its own page faults).

    Every case writes records with the same four 8-byte stores per record.
    The store's records are verified after each run (untimed).  Prints a
    table of GB/s and (b)/(a); exits non-zero only on errors.

    Usage: BenchAppend [--size BYTES[K|M|G]] [--records-per-commit N]
                       [--repeat N] [--only acpswln] [DIR]

    --only picks cases by letter; the ratios need a.

--*/

#include "../Store/StoreTest.h"

#include <pthread.h>

static RTL Rtl;

//
// ---------------------------------------------------------------------------
// The record writer shared by every case.
// ---------------------------------------------------------------------------
//

#define BENCH_RECORD_SIZE 32

static inline void
WriteRecord(PULONGLONG Record, ULONGLONG Sequence)
{
    ULONGLONG Payload = Sequence * 0x9e3779b97f4a7c15ULL;

    Record[0] = Sequence;                               // ts
    Record[1] = Sequence;                               // seq
    Record[2] = Payload;                                // payload
    Record[3] = Sequence ^ Payload ^ 0x5bd1e995ULL;     // checksum
}

__attribute__((noinline)) static void
FillBatch(PBYTE Destination, ULONGLONG First, ULONG Count)
{
    PULONGLONG Record = (PULONGLONG)Destination;
    ULONGLONG Sequence = First;
    ULONG Index;

    for (Index = 0; Index < Count; Index++, Sequence++, Record += 4) {
        WriteRecord(Record, Sequence);
    }
}

//
// The same records, with each ts tracked as it is written (what a writer
// that commits with TraceStoreCommitTracked does).
//

__attribute__((noinline)) static void
FillBatchTracked(PBYTE Destination, ULONGLONG First, ULONG Count,
                 PTRACE_TS_TRACKER Tracker)
{
    PULONGLONG Record = (PULONGLONG)Destination;
    ULONGLONG Sequence = First;
    ULONG Index;
    TRACE_TS_TRACKER Local = *Tracker;

    for (Index = 0; Index < Count; Index++, Sequence++, Record += 4) {
        WriteRecord(Record, Sequence);
        TraceStoreTrackTs(&Local, (LONGLONG)Sequence);
    }
    *Tracker = Local;
}

static BOOL
CheckBatch(const BYTE *Source, ULONGLONG First, ULONGLONG Count)
{
    const ULONGLONG *Record = (const ULONGLONG *)Source;
    ULONGLONG Sequence = First;
    ULONGLONG Index;

    for (Index = 0; Index < Count; Index++, Sequence++, Record += 4) {
        ULONGLONG Payload = Sequence * 0x9e3779b97f4a7c15ULL;
        if (Record[0] != Sequence || Record[1] != Sequence ||
            Record[2] != Payload ||
            Record[3] != (Sequence ^ Payload ^ 0x5bd1e995ULL)) {
            fprintf(stderr, "record %llu is wrong\n",
                    (unsigned long long)Sequence);
            return FALSE;
        }
    }
    return TRUE;
}

static const TRACE_COLUMN_DESCRIPTOR BenchColumns[] = {
    { "ts", TraceColumnInt64, 0, 8, TRACE_COLUMN_TIMESTAMP, "ns" },
    { "seq", TraceColumnUInt64, 8, 8, 0, "index" },
    { "payload", TraceColumnUInt64, 16, 8, 0, "seq * golden ratio" },
    { "checksum", TraceColumnUInt64, 24, 8, 0, "seq ^ payload ^ k" },
};

static const TRACE_STORE_SCHEMA BenchSchema = {
    "bench_record", BENCH_RECORD_SIZE, 4, BenchColumns,
    "32-byte benchmark records",
};

//
// ---------------------------------------------------------------------------
// PrefaultMemoryAsync on a worker thread.
// ---------------------------------------------------------------------------
//

#define PREFAULT_QUEUE_SIZE 64

typedef struct _PREFAULT_REQUEST {
    PVOID Address;
    SIZE_T Size;
} PREFAULT_REQUEST;

static struct {
    pthread_mutex_t Lock;
    pthread_cond_t Work;
    pthread_cond_t Idle;
    pthread_t Thread;
    PREFAULT_REQUEST Queue[PREFAULT_QUEUE_SIZE];
    ULONG Head;
    ULONG Tail;
    BOOL Busy;
    BOOL Stop;
    BOOL Started;
    PRTL_PREFAULT_MEMORY Prefault;
    ULONGLONG Requests;
    ULONGLONG Dropped;
    ULONGLONG Bytes;
} Worker = {
    .Lock = PTHREAD_MUTEX_INITIALIZER,
    .Work = PTHREAD_COND_INITIALIZER,
    .Idle = PTHREAD_COND_INITIALIZER,
};

static void *
PrefaultWorker(void *Argument)
{
    PRTL WorkerRtl = (PRTL)Argument;
    PREFAULT_REQUEST Request;

    pthread_mutex_lock(&Worker.Lock);
    for (;;) {
        while (Worker.Head == Worker.Tail && !Worker.Stop) {
            pthread_cond_wait(&Worker.Work, &Worker.Lock);
        }
        if (Worker.Head == Worker.Tail) {
            break;
        }
        Request = Worker.Queue[Worker.Head % PREFAULT_QUEUE_SIZE];
        Worker.Head++;
        Worker.Busy = TRUE;
        pthread_mutex_unlock(&Worker.Lock);

        Worker.Prefault(WorkerRtl, Request.Address, Request.Size);

        pthread_mutex_lock(&Worker.Lock);
        Worker.Busy = FALSE;
        pthread_cond_broadcast(&Worker.Idle);
    }
    pthread_mutex_unlock(&Worker.Lock);
    return NULL;
}

//
// RTL_PREFAULT_MEMORY: queue the range; a full queue drops it (a hint).
//

static VOID
PrefaultMemoryOnWorker(PRTL CallerRtl, PVOID Address, SIZE_T Size)
{
    (void)CallerRtl;
    pthread_mutex_lock(&Worker.Lock);
    Worker.Requests++;
    if (Worker.Tail - Worker.Head < PREFAULT_QUEUE_SIZE) {
        Worker.Queue[Worker.Tail % PREFAULT_QUEUE_SIZE].Address = Address;
        Worker.Queue[Worker.Tail % PREFAULT_QUEUE_SIZE].Size = Size;
        Worker.Tail++;
        Worker.Bytes += Size;
        pthread_cond_signal(&Worker.Work);
    } else {
        Worker.Dropped++;
    }
    pthread_mutex_unlock(&Worker.Lock);
}

static void
StartWorker(PRTL WorkerRtl)
{
    Worker.Prefault = WorkerRtl->PrefaultMemory;
    CHECK(pthread_create(&Worker.Thread, NULL, PrefaultWorker, WorkerRtl) ==
          0, "pthread_create");
    Worker.Started = TRUE;
}

//
// Waits until every queued range is done (before a store unmaps them).
//

static void
DrainWorker(void)
{
    pthread_mutex_lock(&Worker.Lock);
    while (Worker.Head != Worker.Tail || Worker.Busy) {
        pthread_cond_wait(&Worker.Idle, &Worker.Lock);
    }
    pthread_mutex_unlock(&Worker.Lock);
}

static void
StopWorker(void)
{
    if (!Worker.Started) {
        return;
    }
    pthread_mutex_lock(&Worker.Lock);
    Worker.Stop = TRUE;
    pthread_cond_signal(&Worker.Work);
    pthread_mutex_unlock(&Worker.Lock);
    pthread_join(Worker.Thread, NULL);
}

//
// ---------------------------------------------------------------------------
// The cases.  Each returns seconds, or a negative value on error.
// ---------------------------------------------------------------------------
//

static ULONGLONG SizeBytes = 1ULL << 30;
static ULONG RecordsPerCommit = 4096;
static const char *Directory = ".";

static int
CreateFallocated(const char *Path)
{
    int Fd;

    unlink(Path);
    Fd = open(Path, O_RDWR | O_CREAT | O_EXCL, 0644);
    CHECK(Fd >= 0, "create %s: %s", Path, strerror(errno));
    CHECK(fallocate(Fd, 0, 0, (off_t)SizeBytes) == 0, "fallocate %s: %s",
          Path, strerror(errno));
    return Fd;
}

static double
WriteMapping(PBYTE Base)
{
    ULONGLONG Records = SizeBytes / BENCH_RECORD_SIZE;
    ULONGLONG Done = 0;
    double Start = TestNow();

    while (Done < Records) {
        ULONG Count = RecordsPerCommit;
        if (Records - Done < Count) {
            Count = (ULONG)(Records - Done);
        }
        FillBatch(Base + Done * BENCH_RECORD_SIZE, Done, Count);
        Done += Count;
    }
    return TestNow() - Start;
}

static double
RunReference(BOOL Prefault)
{
    char Path[1024];
    int Fd;
    PBYTE Base;
    double Seconds;
    ULONGLONG Offset;

    TestJoin(Path, sizeof(Path), Directory, "bench-reference.dat");
    Fd = CreateFallocated(Path);
    Base = mmap(NULL, SizeBytes, PROT_READ | PROT_WRITE,
                MAP_SHARED | (Prefault ? MAP_POPULATE : 0), Fd, 0);
    CHECK(Base != MAP_FAILED, "mmap %s: %s", Path, strerror(errno));
    if (Prefault) {
        //
        // MAP_POPULATE maps the pages for reading; the first write to a
        // shared file page still faults (to mark it dirty).  Take those
        // faults now, so that the timed loop takes none.
        //
#ifdef MADV_POPULATE_WRITE
        if (madvise(Base, SizeBytes, MADV_POPULATE_WRITE) != 0)
#endif
        {
            for (Offset = 0; Offset < SizeBytes; Offset += 4096) {
                ((volatile BYTE *)Base)[Offset] = 0;
            }
        }
    }
    Seconds = WriteMapping(Base);
    if (!CheckBatch(Base, 0, SizeBytes / BENCH_RECORD_SIZE)) {
        Seconds = -1;
    }
    munmap(Base, SizeBytes);
    close(Fd);
    unlink(Path);
    return Seconds;
}

static double
RunStore(PRTL StoreRtl, BOOL Preallocate, BOOL Track, BOOL LargePages,
         ULONGLONG *Growths)
{
    TRACE_TS_TRACKER Tracker = TRACE_TS_TRACKER_INIT;
    char Path[1024];
    TRACE_STORE Store;
    RTL_ERROR Error;
    ULONGLONG Records = SizeBytes / BENCH_RECORD_SIZE;
    ULONGLONG Done = 0;
    ULONGLONG Index;
    ULONGLONG Capacity = 0;
    RTL_STATUS Status;
    double Start;
    double Seconds;
    TRACE_STORE_SNAPSHOT Snap;

    TestJoin(Path, sizeof(Path), Directory, "bench-append.store");
    unlink(Path);
    memset(&Store, 0, sizeof(Store));
    memset(&Error, 0, sizeof(Error));
    *Growths = 0;

    Start = TestNow();
    Status = TraceStoreOpenWriter(StoreRtl, Path, &BenchSchema, &Store,
                                  &Error);
    if (!RTL_SUCCESS(Status)) {
        fprintf(stderr, "TraceStoreOpenWriter: %s\n", Error.Message);
        return -1;
    }
    Store.LargePages = LargePages;

    //
    // Like the reference, the preallocated case has its pages faulted in
    // before the clock starts: what is timed is the append path itself.
    //

    if (Preallocate) {
        Status = TraceStorePreallocate(&Store, Records);
        if (!RTL_SUCCESS(Status)) {
            fprintf(stderr, "TraceStorePreallocate: %s\n",
                    RtlStatusText(Status));
            TraceStoreClose(&Store);
            return -1;
        }
        Start = TestNow();
    }
    while (Done < Records) {
        ULONG Count = RecordsPerCommit;
        if (Records - Done < Count) {
            Count = (ULONG)(Records - Done);
        }
        Status = TraceStoreReserve(&Store, Count, &Index);
        if (!RTL_SUCCESS(Status) || Index != Done) {
            fprintf(stderr, "TraceStoreReserve: %d (%s), index %llu\n",
                    (int)Status, RtlStatusText(Status),
                    (unsigned long long)Index);
            TraceStoreClose(&Store);
            return -1;
        }
        if (Track) {
            FillBatchTracked(Store.Base + Index * BENCH_RECORD_SIZE, Index,
                             Count, &Tracker);
            Status = TraceStoreCommitTracked(&Store, &Tracker);
        } else {
            FillBatch(Store.Base + Index * BENCH_RECORD_SIZE, Index, Count);
            Status = TraceStoreCommit(&Store, TRACE_COMMIT_ALL);
        }
        if (!RTL_SUCCESS(Status)) {
            fprintf(stderr, "TraceStoreCommit: %d\n", (int)Status);
            TraceStoreClose(&Store);
            return -1;
        }
        if (Store.Capacity != Capacity) {
            *Growths += 1;
            Capacity = Store.Capacity;
        }
        Done += Count;
    }
    Seconds = TestNow() - Start;

    if (Worker.Started) {
        DrainWorker();
    }
    TraceStoreClose(&Store);

    //
    // Untimed: a reader sees every record intact.
    //

    memset(&Store, 0, sizeof(Store));
    Status = TraceStoreOpenReader(&Rtl, Path, &Store, &Error);
    if (!RTL_SUCCESS(Status)) {
        fprintf(stderr, "TraceStoreOpenReader: %s\n", Error.Message);
        return -1;
    }
    Status = TraceStoreTakeSnapshot(&Store, &Snap, &Error);
    if (!RTL_SUCCESS(Status) || Snap.RecordCount != Records ||
        !CheckBatch(Store.Base, 0, Records)) {
        fprintf(stderr, "the store holds %llu records, expected %llu, or "
                "some are wrong\n", (unsigned long long)Snap.RecordCount,
                (unsigned long long)Records);
        Seconds = -1;
    }
    TraceStoreClose(&Store);
    unlink(Path);
    return Seconds;
}

//
// ---------------------------------------------------------------------------
// Driver.
// ---------------------------------------------------------------------------
//

static ULONGLONG
ParseSize(const char *Text)
{
    char *End;
    ULONGLONG Value = strtoull(Text, &End, 0);

    switch (*End) {
    case 'k': case 'K': Value <<= 10; break;
    case 'm': case 'M': Value <<= 20; break;
    case 'g': case 'G': Value <<= 30; break;
    case '\0': break;
    default:
        fprintf(stderr, "bad size '%s'\n", Text);
        exit(2);
    }
    return Value;
}

static void
Usage(const char *Program)
{
    fprintf(stderr, "usage: %s [--size BYTES[K|M|G]] [--records-per-commit "
            "N] [--repeat N] [--only acpswln] [DIR]\n", Program);
    exit(2);
}

enum { CaseReference, CasePlain, CaseStorePreallocated, CaseStoreScan,
       CaseStoreAsync, CaseStoreLarge, CaseStoreDefault, CaseCount };

static const char CaseLetters[CaseCount] = { 'a', 'c', 'p', 's', 'w', 'l',
                                             'n' };

static const char *CaseNames[CaseCount] = {
    "(a) reference: fallocate + populate + pre-touched",
    "(c) plain MAP_SHARED of a fallocated file",
    "(b) store, preallocated, ts tracked while filling",
    "(b) store, preallocated, commit reads ts back",
    "(b) store growing, prefault on a worker",
    "(b) store growing, prefault on a worker, large pages",
    "(b) store growing, RTL as initialized",
};

//
// The same cases as they appear in docs/benchmarks-history.md.
//

static const char *CaseDescriptions[CaseCount] = {
    "(a) **reference**: fallocated file, `MAP_SHARED|MAP_POPULATE` + "
        "`MADV_POPULATE_WRITE` before the clock, then write the records",
    "(c) for context: a plain un-prefaulted `MAP_SHARED` mapping of a "
        "fallocated file",
    "(b) **store, append path**: `TraceStorePreallocate` before the clock "
        "(as the reference's populate), then Reserve / fill / "
        "`TraceStoreCommitTracked`",
    "(b) same, committing with `TraceStoreCommit` (reads each new record's "
        "ts back)",
    "(b) store growing from empty, next chunk prefaulted by a worker thread "
        "(as `tracestore` runs)",
    "(b) the same with `LargePages` (2 MB page-cache pages, as the Python "
        "tracer's span store)",
    "(b) store growing from empty, no prefault ahead (the core alone)",
};

static const ULONG TableOrder[CaseCount] = {
    CaseReference, CaseStorePreallocated, CaseStoreScan, CaseStoreAsync,
    CaseStoreLarge, CaseStoreDefault, CasePlain
};

int
main(int argc, char **argv)
{
    RTL AsyncRtl;
    ULONG Repeat = 3;
    const char *Only = "acpswln";
    ULONG Round;
    ULONG Case;
    int Index;
    double Best[CaseCount];
    double Seconds;
    ULONGLONG Growths[CaseCount] = { 0 };
    ULONGLONG Records;

    for (Index = 1; Index < argc; Index++) {
        const char *Arg = argv[Index];
        const char *Value = NULL;
        if (strncmp(Arg, "--", 2) == 0) {
            const char *Equals = strchr(Arg, '=');
            if (Equals) {
                Value = Equals + 1;
            } else if (Index + 1 < argc) {
                Value = argv[++Index];
            } else {
                Usage(argv[0]);
            }
            if (strncmp(Arg, "--size", 6) == 0) {
                SizeBytes = ParseSize(Value);
            } else if (strncmp(Arg, "--records-per-commit", 20) == 0) {
                RecordsPerCommit = (ULONG)strtoul(Value, NULL, 0);
            } else if (strncmp(Arg, "--repeat", 8) == 0) {
                Repeat = (ULONG)strtoul(Value, NULL, 0);
            } else if (strncmp(Arg, "--only", 6) == 0) {
                Only = Value;
            } else {
                Usage(argv[0]);
            }
        } else {
            Directory = Arg;
        }
    }
    SizeBytes -= SizeBytes % 4096;
    if (SizeBytes == 0 || RecordsPerCommit == 0 || Repeat == 0) {
        Usage(argv[0]);
    }
    Records = SizeBytes / BENCH_RECORD_SIZE;

    CHECK(RTL_SUCCESS(InitializeRtl(&Rtl)), "InitializeRtl");
    AsyncRtl = Rtl;
    AsyncRtl.PrefaultMemoryAsync = PrefaultMemoryOnWorker;
    StartWorker(&AsyncRtl);

    printf("BenchAppend: %.2f GiB = %llu records of %u bytes, %u records per "
           "commit, in %s, best of %u\n", SizeBytes / 1073741824.0,
           (unsigned long long)Records, BENCH_RECORD_SIZE, RecordsPerCommit,
           Directory, Repeat);
    fflush(stdout);

    for (Case = 0; Case < CaseCount; Case++) {
        Best[Case] = 1e30;
    }
    for (Round = 0; Round < Repeat; Round++) {
        for (Case = 0; Case < CaseCount; Case++) {
            ULONGLONG CaseGrowths = 0;
            if (!strchr(Only, CaseLetters[Case])) {
                continue;
            }

            //
            // Start every run with no dirty pages of earlier runs still
            // being written back (untimed).
            //

            sync();
            switch (Case) {
            case CaseReference:
                Seconds = RunReference(TRUE);
                break;
            case CasePlain:
                Seconds = RunReference(FALSE);
                break;
            case CaseStorePreallocated:
                Seconds = RunStore(&Rtl, TRUE, TRUE, FALSE, &CaseGrowths);
                break;
            case CaseStoreScan:
                Seconds = RunStore(&Rtl, TRUE, FALSE, FALSE, &CaseGrowths);
                break;
            case CaseStoreAsync:
                Seconds = RunStore(&AsyncRtl, FALSE, TRUE, FALSE, &CaseGrowths);
                break;
            case CaseStoreLarge:
                Seconds = RunStore(&AsyncRtl, FALSE, TRUE, TRUE, &CaseGrowths);
                break;
            default:
                Seconds = RunStore(&Rtl, FALSE, TRUE, FALSE, &CaseGrowths);
                break;
            }
            if (Seconds < 0) {
                fprintf(stderr, "%s: failed\n", CaseNames[Case]);
                StopWorker();
                return 1;
            }
            Growths[Case] = CaseGrowths;
            printf("  run %u %-50s %7.3f s %6.2f GB/s\n", Round + 1,
                   CaseNames[Case], Seconds, SizeBytes / Seconds / 1e9);
            fflush(stdout);
            if (Seconds < Best[Case]) {
                Best[Case] = Seconds;
            }
        }
    }
    StopWorker();

    printf("\n%-50s %8s %9s %8s\n", "case (best of runs)", "GB/s",
           "Mrec/s", "vs (a)");
    for (Case = 0; Case < CaseCount; Case++) {
        if (Best[Case] > 1e29) {
            continue;
        }
        printf("%-50s %8.2f %9.1f %8.3f\n", CaseNames[Case],
               SizeBytes / Best[Case] / 1e9, Records / Best[Case] / 1e6,
               Best[CaseReference] / Best[Case]);
    }
    printf("\nstore capacity changes per run: %llu (default), %llu (async); "
           "async prefault requests %llu (%.1f MiB, %llu dropped)\n",
           (unsigned long long)Growths[CaseStoreDefault],
           (unsigned long long)Growths[CaseStoreAsync],
           (unsigned long long)Worker.Requests, Worker.Bytes / 1048576.0,
           (unsigned long long)Worker.Dropped);

    //
    // Result lines for docs/benchmarks-history.md (Tests/Bench/bench_lib.sh describes
    // the format).
    //

    printf("@bench\tappend\thead\tcase\tGB/s\tM records/s\tvs reference\n");
    for (Round = 0; Round < CaseCount; Round++) {
        Case = TableOrder[Round];
        if (Best[Case] > 1e29) {
            continue;
        }
        printf("@bench\tappend\trow\t%s\t%.2f\t%.1f\t%.3f\n",
               CaseDescriptions[Case], SizeBytes / Best[Case] / 1e9,
               Records / Best[Case] / 1e6,
               Best[CaseReference] < 1e29 ? Best[CaseReference] / Best[Case] : 0);
    }
    printf("@bench\tappend\tnote\t%.2f GiB (%.1f M records of %u bytes), "
           "commit every %u records, best of %u runs each, cases "
           "interleaved.\n", SizeBytes / 1073741824.0, Records / 1e6,
           BENCH_RECORD_SIZE, RecordsPerCommit, Repeat);
    if (Best[CaseReference] < 1e29) {
        printf("ratio (b)/(a): %.3f preallocated (the append path), %.3f "
               "growing with the prefault worker (includes the kernel "
               "allocating and zeroing every page)\n",
               Best[CaseReference] / Best[CaseStorePreallocated],
               Best[CaseReference] / Best[CaseStoreAsync]);
    }
    return 0;
}
