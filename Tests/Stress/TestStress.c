/*++

Module Name:

    TestStress.c

Abstract:

    Concurrency stress: one writer per store, reader processes running
    random SQL through the extension, every result checked.

    The writer is one process holding the session (its lock and its string
    stores, as `tracestore record` does) with one thread per store
    (StressRecord.h: stress_a, stress_b sorted, stress_c unsorted).  A
    session's string stores have one writer, so the store threads intern
    and commit strings under one mutex, strings before the records that
    use them.  stress_b refers to stress_a and stress_c to stress_b: a
    thread commits a record only after the store it refers to committed
    the record referred to.  Every field follows from the record's index.

    READERS reader processes (default 8) each open an in-memory database
    with the extension, attach the session and, until they have seen every
    record committed, run random queries:

        count    count(*); the tail past the last count (min/max id, ts);
                 store_info's records and sorted flag
        scan     every row of a store, ORDER BY ts on the unsorted one
        range    a pushed-down ts range (BETWEEN, >= <=, DESC, open-ended
                 with LIMIT)
        compare  one statement: the pushed-down range and the same filter
                 on `+ts` (a full scan), count and sum(id)
        rowid    rowid IN (8 ids)
        string   rowid window AND name = 'text'
        join     b -> a (rowid and ts), c -> b -> a, a -> a, c (ts range)
                 -> b (ts)

    Invariants (a broken one is a violation, counted and the first ones
    printed; a statement error is one too):

        - per store, counts never decrease from one statement to the next,
          and never exceed what the writer writes;
        - every row read is the record its id says (ts, seq, payload,
          checksum, ref and the text of name, from arithmetic);
        - rows of a sorted store come in ts order, rows of ORDER BY ts in
          ts order (DESC: reversed), full scans return ids 0..n-1;
        - a ts range or rowid window below the count seen in an earlier
          statement returns exactly the records arithmetic says, with
          push-down and without; committed records never change, so any
          later snapshot must give the same answer;
        - joins of rows below an earlier count find every record referred
          to (the writer committed those first).

    Usage: TestStress [--records N] [--readers R] [--pace SECONDS]
                      [--dir BASE]

    N records in all (a third per store, rounded up; default 3,000,000); the writers
    spread them over at least SECONDS (default 15; 0: as fast as they
    can).  TRACER_TEST_SEED=N repeats the random choices.
    TRACER_STRESS_BREAK=ts|ref|name|corrupt|count breaks one invariant on
    purpose (the run must then fail).

--*/

#include "StressRecord.h"

#include <limits.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sqlite3.h>

#include "Sqlite3Ext/tracestore.h"

static RTL Rtl;

//
// ---------------------------------------------------------------------------
// Options.
// ---------------------------------------------------------------------------
//

static ULONGLONG PerStore = 1000000;
static int NumberOfReaders = 8;
static double PaceSeconds = 15.0;
static const char *Break = "";

//
// ---------------------------------------------------------------------------
// The writer process.
// ---------------------------------------------------------------------------
//

typedef struct _WRITER_THREAD {
    pthread_t Thread;
    PTRACE_SESSION Session;
    PTRACE_STORE Store;
    int Index;
    ULONGLONG Seed;
    ULONGLONG Commits;
    ULONGLONG StringCommits;
    double WaitSeconds;
    double Seconds;
    ULONG NameIds[STRESS_NAME_REPEAT];
} WRITER_THREAD, *PWRITER_THREAD;

static pthread_mutex_t StringLock = PTHREAD_MUTEX_INITIALIZER;
static ULONGLONG Published[STRESS_STORES];

static void
SleepSeconds(double Seconds)
{
    struct timespec Ts;

    Ts.tv_sec = (time_t)Seconds;
    Ts.tv_nsec = (long)((Seconds - (double)Ts.tv_sec) * 1e9);
    nanosleep(&Ts, NULL);
}

static void *
WriterThread(void *Context)
{
    PWRITER_THREAD W = (PWRITER_THREAD)Context;
    PTRACE_STORE Store = W->Store;
    PSTRESS_RECORD Record;
    ULONGLONG Done = 0;
    ULONGLONG First;
    ULONGLONG State = W->Seed;
    ULONGLONG Count;
    ULONGLONG Offset;
    ULONGLONG Needed;
    ULONGLONG Sequence;
    ULONGLONG Key;
    ULONG Id;
    double Start = TestNow();
    double Now;
    double Target;
    double WaitStart;
    BOOL Missing;
    BOOL Stalled = FALSE;
    char Name[STRESS_NAME_SIZE];
    int Length;

    memset(W->NameIds, 0xff, sizeof(W->NameIds));
    while (Done < PerStore) {

        //
        // Mostly small commits, now and then a large one (the file grows
        // past the readers' mappings).
        //

        Count = 1 + TestRandom(&State) %
                    (TestRandom(&State) % 64 == 0 ? 65536 : 1024);
        if (Count > PerStore - Done) {
            Count = PerStore - Done;
        }
        if (PaceSeconds > 0) {
            Target = Start + PaceSeconds * (double)Done / (double)PerStore;
            Now = TestNow();
            if (Now < Target) {
                SleepSeconds(Target - Now);
            }
        }
        if (strcmp(Break, "ref") == 0 && W->Index == 0 && !Stalled &&
            Done >= PerStore / 2) {
            Stalled = TRUE;
            SleepSeconds(3.0);
        }

        //
        // The records referred to are committed first.
        //

        if (W->Index != 0 && strcmp(Break, "ref") != 0) {
            Needed = StressRef(W->Index, Done + Count - 1);
            WaitStart = TestNow();
            while (__atomic_load_n(&Published[StressRefStore[W->Index]],
                                   __ATOMIC_ACQUIRE) <= Needed) {
                CHECK(TestNow() - WaitStart < 300.0, "store %d waited 300 s "
                      "for record %llu of store %d", W->Index,
                      (unsigned long long)Needed, StressRefStore[W->Index]);
                SleepSeconds(0.0002);
            }
            W->WaitSeconds += TestNow() - WaitStart;
        }

        CHECK_STATUS(TraceStoreReserve(Store, (ULONG)Count, &First), NULL);
        CHECK(First == Done, "reserve gave %llu, expected %llu",
              (unsigned long long)First, (unsigned long long)Done);
        Missing = FALSE;
        for (Offset = 0; Offset < Count; Offset++) {
            Sequence = First + Offset;
            Record = (PSTRESS_RECORD)(Store->Base +
                                      Sequence * Store->RecordSize);
            StressFill(Record, W->Index, Sequence);
            if (!StressUnique(Sequence)) {
                Record->NameId = W->NameIds[Sequence % STRESS_NAME_REPEAT];
            }
            Missing |= Record->NameId == TRACE_NULL_ULONG;
        }

        //
        // New strings: interned and committed before the records.
        //

        if (Missing) {
            pthread_mutex_lock(&StringLock);
            for (Offset = 0; Offset < Count; Offset++) {
                Sequence = First + Offset;
                Record = (PSTRESS_RECORD)(Store->Base +
                                          Sequence * Store->RecordSize);
                if (Record->NameId != TRACE_NULL_ULONG) {
                    continue;
                }
                Length = StressName(W->Index, Sequence, Name);
                CHECK_STATUS(TraceStringIntern(&W->Session->Strings, Name,
                                               (ULONG)Length, &Id), NULL);
                Record->NameId = Id;
                if (!StressUnique(Sequence)) {
                    W->NameIds[Sequence % STRESS_NAME_REPEAT] = Id;
                }
            }
            CHECK_STATUS(TraceStringCommit(&W->Session->Strings), NULL);
            W->StringCommits++;
            pthread_mutex_unlock(&StringLock);
        }

        //
        // Broken on purpose (the run must fail).
        //

        Key = PerStore / 2;
        if (Key >= First && Key < First + Count) {
            Record = (PSTRESS_RECORD)(Store->Base + Key * Store->RecordSize);
            if (strcmp(Break, "ts") == 0 && W->Index == 0) {
                Record->Timestamp -= 15;
            }
            if (strcmp(Break, "name") == 0 && W->Index == 2) {
                Record->NameId = W->NameIds[(Key + 1) % STRESS_NAME_REPEAT];
            }
        }

        CHECK_STATUS(TraceStoreCommit(Store, TRACE_COMMIT_ALL), NULL);
        Done += Count;
        __atomic_store_n(&Published[W->Index], Done, __ATOMIC_RELEASE);
        W->Commits++;
    }
    W->Seconds = TestNow() - Start;
    return NULL;
}

static int
RunWriter(const char *Path, ULONGLONG Seed, int ReadyFd, int GoFd)
{
    PTRACE_SESSION Session = TestAllocateSession(&Rtl);
    WRITER_THREAD *Threads;
    RTL_ERROR Error;
    ULONGLONG Commits = 0;
    ULONGLONG StringCommits = 0;
    double Start;
    double Seconds;
    int Index;

    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenWriter(&Rtl, Path, Session, &Error),
                 &Error);
    Threads = calloc(STRESS_STORES, sizeof(*Threads));
    CHECK(Threads != NULL, "out of memory");
    for (Index = 0; Index < STRESS_STORES; Index++) {
        Threads[Index].Session = Session;
        Threads[Index].Index = Index;
        Threads[Index].Seed = TestMix(Seed + (ULONGLONG)Index + 1);
        CHECK_STATUS(TraceSessionOpenStore(Session, &StressSchemas[Index],
                                           &Threads[Index].Store, &Error),
                     &Error);
    }
    CHECK_STATUS(TraceSessionCommit(Session), NULL);
    TestSendByte(ReadyFd, 'R');
    TestWaitByte(GoFd, 'G', 120000, "the readers");

    Start = TestNow();
    for (Index = 0; Index < STRESS_STORES; Index++) {
        CHECK(pthread_create(&Threads[Index].Thread, NULL, WriterThread,
                             &Threads[Index]) == 0, "pthread_create");
    }
    for (Index = 0; Index < STRESS_STORES; Index++) {
        CHECK(pthread_join(Threads[Index].Thread, NULL) == 0, "join");
        Commits += Threads[Index].Commits;
        StringCommits += Threads[Index].StringCommits;
    }
    Seconds = TestNow() - Start;
    printf("writer: %llu records (%d stores x %llu) in %llu commits (%llu "
           "string commits), %.2f s, %.2f M records/s while read\n",
           (unsigned long long)(PerStore * STRESS_STORES), STRESS_STORES,
           (unsigned long long)PerStore, (unsigned long long)Commits,
           (unsigned long long)StringCommits, Seconds,
           (double)(PerStore * STRESS_STORES) / Seconds / 1e6);
    for (Index = 0; Index < STRESS_STORES; Index++) {
        printf("writer: %s: %.2f s, waited %.2f s for the store it refers "
               "to\n", StressSchemas[Index].Name, Threads[Index].Seconds,
               Threads[Index].WaitSeconds);
    }
    fflush(stdout);
    TraceSessionClose(Session);
    TestFreeSession(&Rtl, Session);
    free(Threads);
    return 0;
}

//
// ---------------------------------------------------------------------------
// The reader processes.
// ---------------------------------------------------------------------------
//

enum {
    KindCount,
    KindScan,
    KindRange,
    KindCompare,
    KindRowid,
    KindString,
    KindJoin,
    KindMaximum
};

static const char *KindNames[KindMaximum] = {
    "count", "scan", "range", "compare", "rowid", "string", "join"
};

//
// Relative frequencies of the kinds.
//

static const int KindWeights[KindMaximum] = { 20, 2, 27, 4, 12, 10, 25 };

typedef struct _READER_RESULT {
    ULONGLONG Queries[KindMaximum];
    ULONGLONG Rows[KindMaximum];
    ULONGLONG Violations[KindMaximum];
    double KindSeconds[KindMaximum];
    double LongestStatement[KindMaximum];
    ULONGLONG DistinctCounts[STRESS_STORES];
    ULONGLONG Statements;
    double Seconds;
} READER_RESULT, *PREADER_RESULT;

#define READER_STATEMENTS 64

typedef struct _READER {
    int Number;
    sqlite3 *Db;
    ULONGLONG State;
    ULONGLONG Prev[STRESS_STORES];      // count seen by an earlier statement
    READER_RESULT Result;
    int Printed;
    ULONGLONG CountQueries;             // QueryCount calls so far
    struct {
        char *Sql;
        sqlite3_stmt *Stmt;
    } Cache[READER_STATEMENTS];
    int Cached;
} READER, *PREADER;

static void
Violation(PREADER R, int Kind, const char *Format, ...)
    __attribute__((format(printf, 3, 4)));

static void
Violation(PREADER R, int Kind, const char *Format, ...)
{
    va_list Args;

    R->Result.Violations[Kind]++;
    if (R->Printed++ < 10) {
        fprintf(stderr, "reader %d: %s: ", R->Number, KindNames[Kind]);
        va_start(Args, Format);
        vfprintf(stderr, Format, Args);
        va_end(Args);
        fputc('\n', stderr);
    }
}

//
// A prepared statement for Sql (kept for the next use).
//

static sqlite3_stmt *
Statement(PREADER R, const char *Sql)
{
    int Index;
    sqlite3_stmt *Stmt = NULL;

    for (Index = 0; Index < R->Cached; Index++) {
        if (strcmp(R->Cache[Index].Sql, Sql) == 0) {
            return R->Cache[Index].Stmt;
        }
    }
    CHECK(sqlite3_prepare_v2(R->Db, Sql, -1, &Stmt, NULL) == SQLITE_OK,
          "prepare %s: %s", Sql, sqlite3_errmsg(R->Db));
    CHECK(R->Cached < READER_STATEMENTS, "statement cache full");
    R->Cache[R->Cached].Sql = strdup(Sql);
    R->Cache[R->Cached].Stmt = Stmt;
    R->Cached++;
    return Stmt;
}

//
// Steps; on an error counts a violation and returns FALSE.
//

static BOOL
Step(PREADER R, int Kind, sqlite3_stmt *Stmt, BOOL *Row)
{
    int Rc = sqlite3_step(Stmt);

    if (Rc == SQLITE_ROW) {
        *Row = TRUE;
        return TRUE;
    }
    *Row = FALSE;
    if (Rc == SQLITE_DONE) {
        return TRUE;
    }
    Violation(R, Kind, "%s: %s", sqlite3_sql(Stmt), sqlite3_errmsg(R->Db));
    return FALSE;
}

static void
Finish(PREADER R, sqlite3_stmt *Stmt)
{
    sqlite3_reset(Stmt);
    sqlite3_clear_bindings(Stmt);
    R->Result.Statements++;
}

static ULONGLONG
Random(PREADER R, ULONGLONG Bound)
{
    return Bound == 0 ? 0 : TestRandom(&R->State) % Bound;
}

#define ROW_COLUMNS 7
#define ROW_SELECT(T) T ".id, " T ".ts, " T ".seq, " T ".payload, " \
                      T ".checksum, " T ".ref, " T ".name"

//
// Checks the 7 columns (id, ts, seq, payload, checksum, ref, name) at
// Column against the record of store Store they name.  Returns the id,
// or ~0 (and counts a violation) if anything is wrong.
//

static ULONGLONG
VerifyRow(PREADER R, int Kind, int Store, sqlite3_stmt *Stmt, int Column)
{
    ULONGLONG Id;
    const char *Text;
    char Name[STRESS_NAME_SIZE];

    if (sqlite3_column_type(Stmt, Column) != SQLITE_INTEGER) {
        Violation(R, Kind, "%s: id is NULL (no such record)",
                  StressSchemas[Store].Name);
        return ~0ULL;
    }
    Id = (ULONGLONG)sqlite3_column_int64(Stmt, Column);
    StressName(Store, Id, Name);
    Text = (const char *)sqlite3_column_text(Stmt, Column + 6);
    if ((ULONGLONG)sqlite3_column_int64(Stmt, Column + 2) != Id ||
        sqlite3_column_int64(Stmt, Column + 1) != StressTs(Store, Id) ||
        (ULONGLONG)sqlite3_column_int64(Stmt, Column + 3) !=
            StressPayload(Store, Id) ||
        (ULONGLONG)sqlite3_column_int64(Stmt, Column + 4) !=
            StressChecksum(Store, Id) ||
        (ULONGLONG)sqlite3_column_int64(Stmt, Column + 5) !=
            StressRef(Store, Id) ||
        Text == NULL || strcmp(Text, Name) != 0) {
        Violation(R, Kind, "%s: row %llu is {ts=%lld seq=%llu payload=%#llx "
                  "checksum=%#llx ref=%llu name=%s}, expected {ts=%lld "
                  "payload=%#llx checksum=%#llx ref=%llu name=%s}",
                  StressSchemas[Store].Name, (unsigned long long)Id,
                  (long long)sqlite3_column_int64(Stmt, Column + 1),
                  (unsigned long long)sqlite3_column_int64(Stmt, Column + 2),
                  (unsigned long long)sqlite3_column_int64(Stmt, Column + 3),
                  (unsigned long long)sqlite3_column_int64(Stmt, Column + 4),
                  (unsigned long long)sqlite3_column_int64(Stmt, Column + 5),
                  Text ? Text : "NULL", (long long)StressTs(Store, Id),
                  (unsigned long long)StressPayload(Store, Id),
                  (unsigned long long)StressChecksum(Store, Id),
                  (unsigned long long)StressRef(Store, Id), Name);
        return ~0ULL;
    }
    return Id;
}

//
// A new count of Store seen by a finished statement.
//

static void
SeeCount(PREADER R, int Kind, int Store, ULONGLONG Count, const char *What)
{
    if (Count < R->Prev[Store]) {
        Violation(R, Kind, "%s: %s %llu after %llu (count went back)",
                  StressSchemas[Store].Name, What,
                  (unsigned long long)Count,
                  (unsigned long long)R->Prev[Store]);
        return;
    }
    if (Count > PerStore) {
        Violation(R, Kind, "%s: %s %llu, but the writer writes %llu",
                  StressSchemas[Store].Name, What,
                  (unsigned long long)Count, (unsigned long long)PerStore);
        return;
    }
    if (Count > R->Prev[Store]) {
        R->Result.DistinctCounts[Store]++;
        R->Prev[Store] = Count;
    }
}

//
// The expected answer for keys [Low, High] of a store: ids are the keys
// (rowid windows, sorted stores) or perm(key) (ts windows of stress_c).
//

typedef struct _EXPECTED {
    ULONGLONG Count;
    ULONGLONG Sum;
    ULONGLONG Mix;
} EXPECTED;

//
// Adds record Id to a tally: the expected and the found rows are compared
// by count, sum and an order-independent mix of their ids.
//

static inline void
Tally(EXPECTED *E, ULONGLONG Id)
{
    E->Count++;
    E->Sum += Id;
    E->Mix ^= TestMix(Id);
}

static EXPECTED
Expect(int Store, ULONGLONG Low, ULONGLONG High, BOOL ByTs)
{
    EXPECTED E = { 0, 0, 0 };
    ULONGLONG Key;
    ULONGLONG Id;

    for (Key = Low; Key <= High; Key++) {
        Id = ByTs ? StressPerm(Store, Key) : Key;
        Tally(&E, Id);
    }
    return E;
}

static void
CompareExpected(PREADER R, int Kind, const char *What, EXPECTED Got,
                EXPECTED Want)
{
    if (Got.Count != Want.Count || Got.Sum != Want.Sum ||
        Got.Mix != Want.Mix) {
        Violation(R, Kind, "%s: %llu rows (sum of ids %llu), expected %llu "
                  "(sum %llu)%s", What, (unsigned long long)Got.Count,
                  (unsigned long long)Got.Sum,
                  (unsigned long long)Want.Count,
                  (unsigned long long)Want.Sum,
                  Got.Count == Want.Count ? ", other ids" : "");
    }
}

//
// A random window [*Low, *High] of keys below Bound (Bound > 0).  Long
// windows are rare: the length is log-uniform up to 65536.
//

static void
Window(PREADER R, ULONGLONG Bound, ULONGLONG *Low, ULONGLONG *High)
{
    ULONGLONG Length = 1 + Random(R, 1ULL << Random(R, 17));

    if (Length > Bound) {
        Length = Bound;
    }
    *Low = Random(R, Bound - Length + 1);
    *High = *Low + Length - 1;
}

//
// Keys a ts window may use: for stress_c only whole groups of 16 below
// the count (perm moves records within their group).
//

static ULONGLONG
TsBound(PREADER R, int Store)
{
    return StressSorted(Store) ? R->Prev[Store] : R->Prev[Store] & ~15ULL;
}

#define TAIL_WINDOW (1 << 20)

static void
QueryCount(PREADER R, int Store)
{
    const char *T = StressSchemas[Store].Name;
    sqlite3_stmt *Stmt;
    char Sql[512];
    ULONGLONG From;
    ULONGLONG Count;
    ULONGLONG Min;
    ULONGLONG Max;
    BOOL Row;

    R->CountQueries++;
    snprintf(Sql, sizeof(Sql), "SELECT count(*) FROM %s", T);
    Stmt = Statement(R, Sql);
    if (Step(R, KindCount, Stmt, &Row) && Row) {
        Count = (ULONGLONG)sqlite3_column_int64(Stmt, 0);
        Finish(R, Stmt);
        SeeCount(R, KindCount, Store, Count, "count(*)");
    } else {
        Finish(R, Stmt);
    }

    //
    // The tail: ids From.. are contiguous up to the new count (or, if the
    // store grew by more than the window since, through the window).
    //

    From = R->Prev[Store] > 64 ? R->Prev[Store] - 64 : 0;
    snprintf(Sql, sizeof(Sql), "SELECT count(*), min(id), max(id), max(ts) "
             "FROM %s WHERE rowid BETWEEN ?1 AND ?1 + %d", T, TAIL_WINDOW);
    Stmt = Statement(R, Sql);
    sqlite3_bind_int64(Stmt, 1, (sqlite3_int64)From);
    if (Step(R, KindCount, Stmt, &Row) && Row) {
        Count = (ULONGLONG)sqlite3_column_int64(Stmt, 0);
        Min = (ULONGLONG)sqlite3_column_int64(Stmt, 1);
        Max = (ULONGLONG)sqlite3_column_int64(Stmt, 2);
        R->Result.Rows[KindCount] += Count;
        if (Count == 0) {
            if (R->Prev[Store] != 0) {
                Violation(R, KindCount, "%s: no rows from %llu (count "
                          "went back below %llu)", T,
                          (unsigned long long)From,
                          (unsigned long long)R->Prev[Store]);
            }
        } else if (Min != From || Max - Min + 1 != Count ||
                   (StressSorted(Store) && sqlite3_column_int64(Stmt, 3) !=
                                           StressTs(Store, Max))) {
            Violation(R, KindCount, "%s: from %llu: count %llu, ids %llu.."
                      "%llu, max(ts) %lld", T, (unsigned long long)From,
                      (unsigned long long)Count, (unsigned long long)Min,
                      (unsigned long long)Max,
                      (long long)sqlite3_column_int64(Stmt, 3));
        } else {
            Finish(R, Stmt);
            if (Count <= TAIL_WINDOW) {
                SeeCount(R, KindCount, Store, Max + 1, "max(id) + 1");
            }
            Stmt = NULL;
        }
    }
    if (Stmt) {
        Finish(R, Stmt);
    }

    Stmt = Statement(R, "SELECT records, sorted FROM store_info "
                        "WHERE name = ?1");
    sqlite3_bind_text(Stmt, 1, T, -1, SQLITE_STATIC);
    if (Step(R, KindCount, Stmt, &Row)) {
        if (!Row) {
            Violation(R, KindCount, "store_info has no row %s", T);
            Finish(R, Stmt);
            return;
        }
        Count = (ULONGLONG)sqlite3_column_int64(Stmt, 0);
        if (Count != 0 && StressSorted(Store) &&
            sqlite3_column_int64(Stmt, 1) != 1) {
            Violation(R, KindCount, "store_info: %s not sorted", T);
        }
        if (Count >= 4096 && !StressSorted(Store) &&
            sqlite3_column_int64(Stmt, 1) != 0) {
            Violation(R, KindCount, "store_info: %s sorted", T);
        }
        Finish(R, Stmt);
        SeeCount(R, KindCount, Store, Count, "store_info.records");
        return;
    }
    Finish(R, Stmt);
}

static void
QueryScan(PREADER R, int Store)
{
    const char *T = StressSchemas[Store].Name;
    BOOL ByTs = !StressSorted(Store) && Random(R, 2) == 0;
    sqlite3_stmt *Stmt;
    char Sql[512];
    ULONGLONG Rows = 0;
    ULONGLONG Id;
    ULONGLONG Sum = 0;
    LONGLONG Ts;
    LONGLONG LastTs = LLONG_MIN;
    BOOL Row;
    BOOL Ordered = TRUE;
    BOOL Contiguous = TRUE;

    snprintf(Sql, sizeof(Sql), "SELECT " ROW_SELECT("%s") " FROM %s%s", T, T,
             T, T, T, T, T, T, ByTs ? " ORDER BY ts" : "");
    Stmt = Statement(R, Sql);
    while (Step(R, KindScan, Stmt, &Row) && Row) {
        Id = VerifyRow(R, KindScan, Store, Stmt, 0);
        Ts = sqlite3_column_int64(Stmt, 1);
        if (Ts <= LastTs && (ByTs || StressSorted(Store))) {
            Ordered = FALSE;
        }
        if (!ByTs && Id != Rows) {
            Contiguous = FALSE;
        }
        LastTs = Ts;
        Sum += Id;
        Rows++;
    }
    Finish(R, Stmt);
    R->Result.Rows[KindScan] += Rows;
    if (!Ordered) {
        Violation(R, KindScan, "%s: rows out of ts order", T);
    }
    if (!Contiguous || (ByTs && Sum != Rows * (Rows - 1) / 2)) {
        Violation(R, KindScan, "%s: the %llu rows are not ids 0..%llu", T,
                  (unsigned long long)Rows, (unsigned long long)Rows - 1);
    }
    SeeCount(R, KindScan, Store, Rows, "rows of a full scan");
}

static void
QueryRange(PREADER R, int Store)
{
    static const char *Shapes[] = {
        "ts BETWEEN ?1 AND ?2",
        "ts >= ?1 AND ts <= ?2 ORDER BY ts",
        "ts > ?1 - 1 AND ts < ?2 + 1 ORDER BY ts DESC",
        "ts >= ?1 LIMIT 65536",
    };
    const char *T = StressSchemas[Store].Name;
    ULONGLONG Bound = TsBound(R, Store);
    int Shape = (int)Random(R, ARRAYSIZE(Shapes));
    sqlite3_stmt *Stmt;
    char Sql[512];
    ULONGLONG Low;
    ULONGLONG High;
    ULONGLONG Id;
    ULONGLONG Key;
    EXPECTED Got = { 0, 0, 0 };
    LONGLONG TsLow;
    LONGLONG TsHigh;
    LONGLONG Ts;
    LONGLONG LastTs = 0;
    BOOL Row;
    BOOL Ordered = TRUE;
    BOOL Inside = TRUE;

    if (Bound == 0) {
        return;
    }
    Window(R, Bound, &Low, &High);
    TsLow = StressKeyTs(Store, Low) - (LONGLONG)Random(R, 10);
    TsHigh = StressKeyTs(Store, High) + (LONGLONG)Random(R, 10);
    snprintf(Sql, sizeof(Sql), "SELECT " ROW_SELECT("%s") " FROM %s WHERE %s",
             T, T, T, T, T, T, T, T, Shapes[Shape]);
    Stmt = Statement(R, Sql);
    sqlite3_bind_int64(Stmt, 1, TsLow);
    sqlite3_bind_int64(Stmt, 2, TsHigh);
    while (Step(R, KindRange, Stmt, &Row) && Row) {
        Id = VerifyRow(R, KindRange, Store, Stmt, 0);
        Ts = sqlite3_column_int64(Stmt, 1);
        if (Got.Count != 0 &&
            (Shape == 2 ? Ts >= LastTs :
             (Shape == 1 || StressSorted(Store)) && Ts <= LastTs)) {
            Ordered = FALSE;
        }
        if (Ts < TsLow || (Shape != 3 && Ts > TsHigh)) {
            Inside = FALSE;
        }
        LastTs = Ts;
        Tally(&Got, Id);
    }
    Finish(R, Stmt);
    R->Result.Rows[KindRange] += Got.Count;
    if (!Ordered) {
        Violation(R, KindRange, "%s WHERE %s: rows out of ts order", T,
                  Shapes[Shape]);
    }
    if (!Inside) {
        Violation(R, KindRange, "%s WHERE %s: a row outside [%lld, %lld]", T,
                  Shapes[Shape], (long long)TsLow, (long long)TsHigh);
    }
    if (Shape != 3) {
        CompareExpected(R, KindRange, Shapes[Shape], Got,
                        Expect(Store, Low, High, TRUE));
        return;
    }

    //
    // Open-ended (with a LIMIT, pushed down too): at least the keys Low..
    // below the earlier count, up to the limit; a sorted store's rows are
    // exactly Low.. of this snapshot, up to its count or the limit.
    //

    Key = Bound - Low < 65536 ? Bound - Low : 65536;
    if (Got.Count < Key || Got.Count > 65536) {
        Violation(R, KindRange, "%s WHERE ts >= %lld LIMIT 65536: %llu rows, "
                  "expected at least %llu", T, (long long)TsLow,
                  (unsigned long long)Got.Count, (unsigned long long)Key);
    } else if (StressSorted(Store)) {
        Key = Low + Got.Count - 1;
        if (Got.Sum != (Low + Key) * Got.Count / 2) {
            Violation(R, KindRange, "%s WHERE ts >= %lld: ids are not %llu.."
                      "%llu", T, (long long)TsLow, (unsigned long long)Low,
                      (unsigned long long)Key);
        } else if (Got.Count < 65536) {
            SeeCount(R, KindRange, Store, Key + 1, "last id + 1");
        }
    }
}

static void
QueryCompare(PREADER R, int Store)
{
    const char *T = StressSchemas[Store].Name;
    ULONGLONG Bound = TsBound(R, Store);
    sqlite3_stmt *Stmt;
    char Sql[1024];
    ULONGLONG Low;
    ULONGLONG High;
    EXPECTED Want;
    EXPECTED Pushed = { 0, 0, 0 };
    EXPECTED Scanned = { 0, 0, 0 };
    BOOL Row;

    if (Bound == 0) {
        return;
    }
    Window(R, Bound, &Low, &High);
    snprintf(Sql, sizeof(Sql),
             "SELECT (SELECT count(*) FROM %s WHERE ts BETWEEN ?1 AND ?2),"
             " (SELECT sum(id) FROM %s WHERE ts BETWEEN ?1 AND ?2),"
             " (SELECT count(*) FROM %s WHERE +ts BETWEEN ?1 AND ?2),"
             " (SELECT sum(id) FROM %s WHERE +ts BETWEEN ?1 AND ?2),"
             " (SELECT count(*) FROM %s)", T, T, T, T, T);
    Stmt = Statement(R, Sql);
    sqlite3_bind_int64(Stmt, 1, StressKeyTs(Store, Low) -
                                (LONGLONG)Random(R, 10));
    sqlite3_bind_int64(Stmt, 2, StressKeyTs(Store, High) +
                                (LONGLONG)Random(R, 10));
    if (Step(R, KindCompare, Stmt, &Row) && Row) {
        Want = Expect(Store, Low, High, TRUE);
        Want.Mix = 0;
        Pushed.Count = (ULONGLONG)sqlite3_column_int64(Stmt, 0);
        Pushed.Sum = (ULONGLONG)sqlite3_column_int64(Stmt, 1);
        Scanned.Count = (ULONGLONG)sqlite3_column_int64(Stmt, 2);
        Scanned.Sum = (ULONGLONG)sqlite3_column_int64(Stmt, 3);
        R->Result.Rows[KindCompare] +=
            Pushed.Count + (ULONGLONG)sqlite3_column_int64(Stmt, 4);
        CompareExpected(R, KindCompare, "pushed-down ts range", Pushed, Want);
        CompareExpected(R, KindCompare, "+ts range (scan)", Scanned, Want);
    }
    Finish(R, Stmt);
}

static void
QueryRowid(PREADER R, int Store)
{
    const char *T = StressSchemas[Store].Name;
    ULONGLONG Ids[8];
    sqlite3_stmt *Stmt;
    char Sql[512];
    EXPECTED Got = { 0, 0, 0 };
    EXPECTED Want = { 0, 0, 0 };
    ULONGLONG Id;
    ULONGLONG Last = 0;
    int Index;
    int Other;
    BOOL Row;
    BOOL Ordered = TRUE;

    if (R->Prev[Store] == 0) {
        return;
    }
    for (Index = 0; Index < 8; Index++) {
        Ids[Index] = Random(R, R->Prev[Store]);
        for (Other = 0; Other < Index && Ids[Other] != Ids[Index]; Other++) {
        }
        if (Other == Index) {
            Tally(&Want, Ids[Index]);
        }
    }
    snprintf(Sql, sizeof(Sql), "SELECT " ROW_SELECT("%s") " FROM %s WHERE "
             "rowid IN (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)", T, T, T, T, T, T, T,
             T);
    Stmt = Statement(R, Sql);
    for (Index = 0; Index < 8; Index++) {
        sqlite3_bind_int64(Stmt, Index + 1, (sqlite3_int64)Ids[Index]);
    }
    while (Step(R, KindRowid, Stmt, &Row) && Row) {
        Id = VerifyRow(R, KindRowid, Store, Stmt, 0);
        if (Got.Count != 0 && Id <= Last) {
            Ordered = FALSE;
        }
        Last = Id;
        Tally(&Got, Id);
    }
    Finish(R, Stmt);
    R->Result.Rows[KindRowid] += Got.Count;
    if (!Ordered) {
        Violation(R, KindRowid, "%s: rowid IN rows not in rowid order", T);
    }
    CompareExpected(R, KindRowid, "rowid IN", Got, Want);
}

static void
QueryString(PREADER R, int Store)
{
    const char *T = StressSchemas[Store].Name;
    sqlite3_stmt *Stmt;
    char Sql[512];
    char Name[STRESS_NAME_SIZE];
    char Other[STRESS_NAME_SIZE];
    ULONGLONG Low;
    ULONGLONG High;
    ULONGLONG Id;
    EXPECTED Want = { 0, 0, 0 };
    BOOL Row;

    if (R->Prev[Store] == 0) {
        return;
    }
    Window(R, R->Prev[Store], &Low, &High);
    StressName(Store, Low + Random(R, High - Low + 1), Name);
    for (Id = Low; Id <= High; Id++) {
        StressName(Store, Id, Other);
        if (strcmp(Name, Other) == 0) {
            Want.Count++;
            Want.Sum += Id;
        }
    }
    snprintf(Sql, sizeof(Sql), "SELECT count(*), sum(id) FROM %s WHERE "
             "rowid BETWEEN ?1 AND ?2 AND name = ?3", T);
    Stmt = Statement(R, Sql);
    sqlite3_bind_int64(Stmt, 1, (sqlite3_int64)Low);
    sqlite3_bind_int64(Stmt, 2, (sqlite3_int64)High);
    sqlite3_bind_text(Stmt, 3, Name, -1, SQLITE_TRANSIENT);
    if (Step(R, KindString, Stmt, &Row) && Row) {
        EXPECTED Got = { 0, 0, 0 };

        Got.Count = (ULONGLONG)sqlite3_column_int64(Stmt, 0);
        Got.Sum = (ULONGLONG)sqlite3_column_int64(Stmt, 1);
        R->Result.Rows[KindString] += High - Low + 1;
        snprintf(Sql, sizeof(Sql), "name = '%s'", Name);
        CompareExpected(R, KindString, Sql, Got, Want);
    }
    Finish(R, Stmt);
}

//
// Joins: the rows of the first table are a window below an earlier count
// (by rowid or by ts), each joined to the record it refers to, and that
// one to the one it refers to.
//

typedef struct _JOIN_SHAPE {
    int Stores[3];
    int Tables;
    BOOL ByTs;
    const char *Sql;
} JOIN_SHAPE;

static const JOIN_SHAPE JoinShapes[] = {
    { { 1, 0, 0 }, 2, FALSE,
      "SELECT " ROW_SELECT("b") ", " ROW_SELECT("a") " FROM stress_b AS b "
      "JOIN stress_a AS a ON a.rowid = b.ref "
      "WHERE b.rowid BETWEEN ?1 AND ?2" },
    { { 1, 0, 0 }, 2, FALSE,
      "SELECT " ROW_SELECT("b") ", " ROW_SELECT("a") " FROM stress_b AS b "
      "JOIN stress_a AS a ON a.ts = 1000 + 10 * b.ref "
      "WHERE b.rowid BETWEEN ?1 AND ?2" },
    { { 2, 1, 0 }, 3, FALSE,
      "SELECT " ROW_SELECT("c") ", " ROW_SELECT("b") ", " ROW_SELECT("a")
      " FROM stress_c AS c JOIN stress_b AS b ON b.rowid = c.ref "
      "JOIN stress_a AS a ON a.rowid = b.ref "
      "WHERE c.rowid BETWEEN ?1 AND ?2" },
    { { 0, 0, 0 }, 2, FALSE,
      "SELECT " ROW_SELECT("x") ", " ROW_SELECT("y") " FROM stress_a AS x "
      "JOIN stress_a AS y ON y.rowid = x.ref "
      "WHERE x.rowid BETWEEN ?1 AND ?2" },
    { { 2, 1, 0 }, 2, TRUE,
      "SELECT " ROW_SELECT("c") ", " ROW_SELECT("b") " FROM stress_c AS c "
      "JOIN stress_b AS b ON b.ts = 1003 + 10 * c.ref "
      "WHERE c.ts BETWEEN ?1 AND ?2" },
};

static void
QueryJoin(PREADER R)
{
    const JOIN_SHAPE *Shape = &JoinShapes[Random(R, ARRAYSIZE(JoinShapes))];
    int Outer = Shape->Stores[0];
    ULONGLONG Bound = Shape->ByTs ? TsBound(R, Outer) : R->Prev[Outer];
    sqlite3_stmt *Stmt;
    ULONGLONG Low;
    ULONGLONG High;
    ULONGLONG Ids[3];
    EXPECTED Got = { 0, 0, 0 };
    int Table;
    BOOL Row;

    if (Bound == 0) {
        return;
    }
    Window(R, Bound, &Low, &High);
    if (High - Low > 8192) {
        High = Low + 8192;
    }
    Stmt = Statement(R, Shape->Sql);
    if (Shape->ByTs) {
        sqlite3_bind_int64(Stmt, 1, StressKeyTs(Outer, Low));
        sqlite3_bind_int64(Stmt, 2, StressKeyTs(Outer, High));
    } else {
        sqlite3_bind_int64(Stmt, 1, (sqlite3_int64)Low);
        sqlite3_bind_int64(Stmt, 2, (sqlite3_int64)High);
    }
    while (Step(R, KindJoin, Stmt, &Row) && Row) {
        for (Table = 0; Table < Shape->Tables; Table++) {
            Ids[Table] = VerifyRow(R, KindJoin, Shape->Stores[Table], Stmt,
                                   Table * ROW_COLUMNS);
            if (Table != 0 && Ids[Table - 1] != ~0ULL &&
                Ids[Table] != StressRef(Shape->Stores[Table - 1],
                                        Ids[Table - 1])) {
                Violation(R, KindJoin, "%s row %llu joined to %s row %llu",
                          StressSchemas[Shape->Stores[Table - 1]].Name,
                          (unsigned long long)Ids[Table - 1],
                          StressSchemas[Shape->Stores[Table]].Name,
                          (unsigned long long)Ids[Table]);
            }
        }
        Tally(&Got, Ids[0]);
    }
    Finish(R, Stmt);
    R->Result.Rows[KindJoin] += Got.Count * (ULONGLONG)Shape->Tables;
    CompareExpected(R, KindJoin, Shape->Sql, Got,
                    Expect(Outer, Low, High, Shape->ByTs));
}

//
// Once at the start: the range queries are pushed down, the +ts ones not.
//

static void
CheckPlans(PREADER R)
{
    sqlite3_stmt *Stmt;
    const char *Detail;
    BOOL Row;
    int Store;
    char Sql[256];

    for (Store = 0; Store < STRESS_STORES; Store++) {
        snprintf(Sql, sizeof(Sql), "EXPLAIN QUERY PLAN SELECT id FROM %s "
                 "WHERE ts BETWEEN 1 AND 2", StressSchemas[Store].Name);
        Stmt = Statement(R, Sql);
        if (Step(R, KindRange, Stmt, &Row) && Row) {
            Detail = (const char *)sqlite3_column_text(Stmt, 3);
            if (!Detail || !strstr(Detail, "ts>=?") ||
                !strstr(Detail, "ts<=?")) {
                Violation(R, KindRange, "ts range not pushed down: %s",
                          Detail ? Detail : "NULL");
            }
        }
        Finish(R, Stmt);
    }
}

static int
RunReader(int Number, const char *Path, ULONGLONG Seed, int AttachedFd,
          int ResultFd)
{
    READER *R = calloc(1, sizeof(READER));
    READER_RESULT Result;
    sqlite3_stmt *Stmt;
    char *Message = NULL;
    double Start;
    double LastProgress;
    double QueryStart;
    ULONGLONG Seen = 0;
    ULONGLONG ProgressCounts = 0;
    ULONGLONG Sum;
    int Store;
    int Kind;
    int Pick;
    BOOL Final = FALSE;

    CHECK(R != NULL, "out of memory");
    R->Number = Number;
    R->State = TestMix(Seed ^ (0x5eed0000ULL + (ULONGLONG)Number));
    CHECK(sqlite3_open(":memory:", &R->Db) == SQLITE_OK, "sqlite3_open");
    CHECK(sqlite3_tracestore_init(R->Db, &Message, NULL) == SQLITE_OK,
          "init: %s", Message);
    Stmt = Statement(R, "SELECT tracestore_attach(?1)");
    sqlite3_bind_text(Stmt, 1, Path, -1, SQLITE_STATIC);
    CHECK(sqlite3_step(Stmt) == SQLITE_ROW, "attach %s: %s", Path,
          sqlite3_errmsg(R->Db));
    Finish(R, Stmt);
    CheckPlans(R);
    TestSendByte(AttachedFd, 'A');

    Start = TestNow();
    LastProgress = Start;
    for (;;) {

        //
        // Done once every record was seen: then the final checks.
        //

        for (Store = 0, Sum = 0; Store < STRESS_STORES; Store++) {
            Sum += R->Prev[Store];
        }
        //
        // Stuck: no new record for 120 s over at least 100 counts (a slow
        // statement on a busy machine alone is not).
        //

        if (Sum > Seen) {
            Seen = Sum;
            LastProgress = TestNow();
            ProgressCounts = R->CountQueries;
        } else if (TestNow() - LastProgress > 120.0 &&
                   R->CountQueries - ProgressCounts >= 100) {
            Violation(R, KindCount, "no new records for 120 s and %llu "
                      "counts (seen %llu)",
                      (unsigned long long)(R->CountQueries - ProgressCounts),
                      (unsigned long long)Seen);
            break;
        }
        if (Seen == PerStore * STRESS_STORES) {
            if (Final) {
                break;
            }
            Final = TRUE;
        }

        Pick = (int)Random(R, 100);
        for (Kind = 0; Pick >= KindWeights[Kind]; Kind++) {
            Pick -= KindWeights[Kind];
        }
        Store = (int)Random(R, STRESS_STORES);
        R->Result.Queries[Kind]++;
        QueryStart = TestNow();
        switch (Kind) {
        case KindCount: QueryCount(R, Store); break;
        case KindScan: QueryScan(R, Store); break;
        case KindRange: QueryRange(R, Store); break;
        case KindCompare: QueryCompare(R, Store); break;
        case KindRowid: QueryRowid(R, Store); break;
        case KindString: QueryString(R, Store); break;
        default: QueryJoin(R); break;
        }
        QueryStart = TestNow() - QueryStart;
        R->Result.KindSeconds[Kind] += QueryStart;
        if (QueryStart > R->Result.LongestStatement[Kind]) {
            R->Result.LongestStatement[Kind] = QueryStart;
        }

        //
        // Counts are looked at often enough to keep up with the writer.
        //

        if (Kind != KindCount && Random(R, 4) == 0) {
            R->Result.Queries[KindCount]++;
            QueryCount(R, (int)Random(R, STRESS_STORES));
        }
    }

    //
    // At the end, every record once more: reader 0 scans every store, the
    // others count.
    //

    for (Store = 0; Store < STRESS_STORES; Store++) {
        if (Number == 0) {
            R->Result.Queries[KindScan]++;
            QueryScan(R, Store);
        }
        R->Result.Queries[KindCount]++;
        QueryCount(R, Store);
        if (R->Prev[Store] != PerStore) {
            Violation(R, KindCount, "%s: %llu records at the end, the writer "
                      "wrote %llu", StressSchemas[Store].Name,
                      (unsigned long long)R->Prev[Store],
                      (unsigned long long)PerStore);
        }
    }
    R->Result.Seconds = TestNow() - Start;
    for (Pick = 0; Pick < R->Cached; Pick++) {
        sqlite3_finalize(R->Cache[Pick].Stmt);
        free(R->Cache[Pick].Sql);
    }
    sqlite3_close(R->Db);
    Result = R->Result;
    free(R);
    CHECK(write(ResultFd, &Result, sizeof(Result)) == (ssize_t)sizeof(Result),
          "write result");
    return 0;
}

//
// ---------------------------------------------------------------------------
// Broken on purpose from outside the writer (TRACER_STRESS_BREAK).
// ---------------------------------------------------------------------------
//

//
// Waits until store 0 has committed at least Count records.
//

static void
WaitForRecords(const char *Path, ULONGLONG Count)
{
    TRACE_STORE_HEADER Header;
    int Slot;

    for (;;) {
        TestReadHeader(Path, &Header);
        Slot = TestExpectedSlot(&Header);
        if (Slot >= 0 && Header.Slots[Slot].RecordCount >= Count) {
            return;
        }
        SleepSeconds(0.01);
    }
}

static void
BreakFromOutside(const char *Dir)
{
    char Path[1024];
    TRACE_STORE_HEADER Header;
    TRACE_STORE_COMMIT_SLOT Slot;
    ULONGLONG Bad = 0x0badc0de0badc0deULL;
    int Index;

    TestJoin(Path, sizeof(Path), Dir, "stress_a.store");
    if (strcmp(Break, "corrupt") == 0) {

        //
        // One committed record's payload overwritten in the file.
        //

        WaitForRecords(Path, PerStore / 4 + 1);
        TestWriteBytes(Path, TRACE_STORE_HEADER_SIZE +
                       (PerStore / 8) * sizeof(STRESS_RECORD) +
                       FIELD_OFFSET(STRESS_RECORD, Payload), &Bad,
                       sizeof(Bad));
        printf("broke: stress_a record %llu overwritten\n",
               (unsigned long long)(PerStore / 8));
    } else if (strcmp(Break, "count") == 0) {

        //
        // The newest slot says 100 records fewer (re-signed): readers that
        // saw more must notice.
        //

        WaitForRecords(Path, PerStore / 2);
        TestReadHeader(Path, &Header);
        Index = TestExpectedSlot(&Header);
        CHECK(Index >= 0, "no valid slot");
        Slot = Header.Slots[Index];
        Slot.RecordCount -= 100;
        Slot.LastTs = StressTs(0, Slot.RecordCount - 1);
        TestResignSlot(&Slot);
        TestWriteBytes(Path, FIELD_OFFSET(TRACE_STORE_HEADER, Slots) +
                       Index * sizeof(Slot), &Slot, sizeof(Slot));
        printf("broke: stress_a's newest slot says %llu records\n",
               (unsigned long long)Slot.RecordCount);
    }
    fflush(stdout);
}

//
// ---------------------------------------------------------------------------
// Main.
// ---------------------------------------------------------------------------
//

int
main(int argc, char **argv)
{
    const char *Base = NULL;
    const char *Dir;
    char Path[1024];
    char What[32];
    ULONGLONG Records = 3000000;
    ULONGLONG Seed = TestSeed();
    ULONGLONG Total[KindMaximum][3];
    double KindSeconds[KindMaximum];
    double Longest[KindMaximum];
    ULONGLONG Violations = 0;
    ULONGLONG Statements = 0;
    ULONGLONG MinDistinct = ~0ULL;
    ULONGLONG MaxDistinct = 0;
    ULONGLONG MinReaderDistinct = ~0ULL;
    ULONGLONG Sum;
    READER_RESULT *Results;
    pid_t Writer;
    pid_t *Readers;
    int ReadyPipe[2];
    int GoPipe[2];
    int AttachedPipe[2];
    int *ResultPipes;
    int Failed = 0;
    int Index;
    int Kind;
    int Store;
    int Arg;
    double Start;
    double Seconds;
    char Byte;

    for (Arg = 1; Arg < argc; Arg++) {
        if (strcmp(argv[Arg], "--records") == 0 && Arg + 1 < argc) {
            Records = strtoull(argv[++Arg], NULL, 0);
        } else if (strcmp(argv[Arg], "--readers") == 0 && Arg + 1 < argc) {
            NumberOfReaders = atoi(argv[++Arg]);
        } else if (strcmp(argv[Arg], "--pace") == 0 && Arg + 1 < argc) {
            PaceSeconds = atof(argv[++Arg]);
        } else if (strcmp(argv[Arg], "--dir") == 0 && Arg + 1 < argc) {
            Base = argv[++Arg];
        } else {
            fprintf(stderr, "usage: %s [--records N] [--readers R] "
                    "[--pace SECONDS] [--dir BASE]\n", argv[0]);
            return 2;
        }
    }
    PerStore = (Records + STRESS_STORES - 1) / STRESS_STORES;
    CHECK(PerStore >= 1024 && NumberOfReaders >= 1, "need at least 3072 "
          "records and one reader");
    if (getenv("TRACER_STRESS_BREAK")) {
        Break = getenv("TRACER_STRESS_BREAK");
    }
    CHECK(RTL_SUCCESS(InitializeRtl(&Rtl)), "InitializeRtl");
    Dir = TestMakeScratch(Base, "stress");
    TestJoin(Path, sizeof(Path), Dir, "stress.trace");
    printf("stress: %llu records (%d stores), %d readers, pace %.0f s, seed "
           "%#llx, session %s%s%s\n",
           (unsigned long long)(PerStore * STRESS_STORES), STRESS_STORES,
           NumberOfReaders, PaceSeconds, (unsigned long long)Seed, Path,
           *Break ? ", broken on purpose: " : "", Break);
    fflush(stdout);

    Readers = calloc((size_t)NumberOfReaders, sizeof(*Readers));
    ResultPipes = calloc((size_t)NumberOfReaders * 2, sizeof(int));
    Results = calloc((size_t)NumberOfReaders, sizeof(*Results));
    CHECK(Readers && ResultPipes && Results, "out of memory");
    CHECK(pipe(ReadyPipe) == 0 && pipe(GoPipe) == 0 &&
          pipe(AttachedPipe) == 0, "pipe");

    Writer = fork();
    CHECK(Writer >= 0, "fork");
    if (Writer == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        _exit(RunWriter(Path, Seed, ReadyPipe[1], GoPipe[0]));
    }
    {
        struct pollfd Poll = { ReadyPipe[0], POLLIN, 0 };
        if (poll(&Poll, 1, 60000) != 1 || read(ReadyPipe[0], &Byte, 1) != 1) {
            kill(Writer, SIGKILL);
            TestWaitChild(Writer, "writer");
            TestFail(__FILE__, __LINE__, "the writer did not start");
        }
    }
    for (Index = 0; Index < NumberOfReaders; Index++) {
        CHECK(pipe(&ResultPipes[2 * Index]) == 0, "pipe");
        Readers[Index] = fork();
        CHECK(Readers[Index] >= 0, "fork");
        if (Readers[Index] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            _exit(RunReader(Index, Path, Seed, AttachedPipe[1],
                            ResultPipes[2 * Index + 1]));
        }
        close(ResultPipes[2 * Index + 1]);
    }
    for (Index = 0; Index < NumberOfReaders; Index++) {
        struct pollfd Poll = { AttachedPipe[0], POLLIN, 0 };
        if (poll(&Poll, 1, 60000) != 1 ||
            read(AttachedPipe[0], &Byte, 1) != 1) {
            fprintf(stderr, "reader did not attach\n");
            Failed = 1;
            break;
        }
    }
    Start = TestNow();
    TestSendByte(GoPipe[1], 'G');
    if (!Failed && *Break) {
        BreakFromOutside(Path);
    }

    Failed |= TestWaitChild(Writer, "writer") != 0;
    for (Index = 0; Index < NumberOfReaders; Index++) {
        if (Failed) {
            kill(Readers[Index], SIGKILL);
        }
        snprintf(What, sizeof(What), "reader %d", Index);
        if (TestWaitChild(Readers[Index], What) != 0 ||
            read(ResultPipes[2 * Index], &Results[Index],
                 sizeof(Results[Index])) != (ssize_t)sizeof(Results[Index])) {
            Failed = 1;
        }
    }
    Seconds = TestNow() - Start;
    free(Readers);
    free(ResultPipes);
    if (Failed) {
        free(Results);
        fprintf(stderr, "FAILED: a process failed\n");
        return 1;
    }

    memset(Total, 0, sizeof(Total));
    memset(KindSeconds, 0, sizeof(KindSeconds));
    memset(Longest, 0, sizeof(Longest));
    for (Index = 0; Index < NumberOfReaders; Index++) {
        for (Kind = 0; Kind < KindMaximum; Kind++) {
            Total[Kind][0] += Results[Index].Queries[Kind];
            Total[Kind][1] += Results[Index].Rows[Kind];
            Total[Kind][2] += Results[Index].Violations[Kind];
            Violations += Results[Index].Violations[Kind];
            KindSeconds[Kind] += Results[Index].KindSeconds[Kind];
            if (Results[Index].LongestStatement[Kind] > Longest[Kind]) {
                Longest[Kind] = Results[Index].LongestStatement[Kind];
            }
        }
        Sum = 0;
        for (Store = 0; Store < STRESS_STORES; Store++) {
            Sum += Results[Index].DistinctCounts[Store];
            if (Results[Index].DistinctCounts[Store] < MinDistinct) {
                MinDistinct = Results[Index].DistinctCounts[Store];
            }
            if (Results[Index].DistinctCounts[Store] > MaxDistinct) {
                MaxDistinct = Results[Index].DistinctCounts[Store];
            }
        }
        if (Sum < MinReaderDistinct) {
            MinReaderDistinct = Sum;
        }
        Statements += Results[Index].Statements;
    }
    free(Results);
    printf("%-8s %10s %14s %10s %10s %10s\n", "kind", "queries",
           "rows checked", "violations", "seconds", "longest");
    for (Kind = 0; Kind < KindMaximum; Kind++) {
        printf("%-8s %10llu %14llu %10llu %10.1f %10.3f\n", KindNames[Kind],
               (unsigned long long)Total[Kind][0],
               (unsigned long long)Total[Kind][1],
               (unsigned long long)Total[Kind][2], KindSeconds[Kind],
               Longest[Kind]);
    }
    printf("readers: %llu statements, distinct counts seen per reader and "
           "store %llu..%llu, per reader at least %llu, %.1f s\n",
           (unsigned long long)Statements, (unsigned long long)MinDistinct,
           (unsigned long long)MaxDistinct,
           (unsigned long long)MinReaderDistinct, Seconds);
    CHECK(Violations == 0, "%llu inconsistent results",
          (unsigned long long)Violations);
    CHECK(MinReaderDistinct >= 3, "a reader saw only %llu counts: it did "
          "not run alongside the writers",
          (unsigned long long)MinReaderDistinct);
    printf("PASS: %llu records, %d readers, %llu statements, 0 inconsistent "
           "results\n", (unsigned long long)(PerStore * STRESS_STORES),
           NumberOfReaders, (unsigned long long)Statements);
    return 0;
}
