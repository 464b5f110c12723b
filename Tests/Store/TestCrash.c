/*++

Module Name:

    TestCrash.c

Abstract:

    Writers killed with SIGKILL at random moments lose at most their
    uncommitted tail, and never leave a record or a string id that does not
    check out.

    One session directory lives through all trials.  In each trial a child
    process opens the session for writing (recovering whatever the previous
    writer left), then appends records in batches of random size, interning
    a string for every record and committing the session (strings first)
    after each batch; after every commit it publishes its committed count in
    shared anonymous memory.  The parent kills it a random 1-50 ms after
    the fork (even trials) or after its first commit (odd trials), then:

        1. reopens the session for writing: the store's committed count is
           at least what the child last reported (and at most one batch
           more), and at least what the previous trial left; the generation
           went up;
        2. checks every record: sequence == index, checksum, and its string
           id resolves to the text the record's index determines;
        3. appends 1000 more records, commits, closes;
        4. opens the session read-only and checks every record again.

    Usage: TestCrash [TRIALS [SCRATCH_BASE]]     (TRACER_TEST_SEED=N to
                                                   repeat a run)

--*/

#include "StoreTest.h"

static RTL Rtl;

#define MAX_BATCH 5000
#define NAME_GROUP 50

//
// A record that refers to a string.
//

typedef struct _CRASH_RECORD {
    LONGLONG Timestamp;     // TestTimestamp(Sequence)
    ULONGLONG Sequence;     // index of the record
    ULONG NameId;           // id of CrashName(Sequence)
    ULONG Writer;           // trial that wrote it (1000 + trial: the parent)
    ULONGLONG Checksum;     // CrashChecksum(...)
} CRASH_RECORD, *PCRASH_RECORD;

C_ASSERT(sizeof(CRASH_RECORD) == 32);

static const TRACE_COLUMN_DESCRIPTOR CrashColumns[] = {
    { "ts", TraceColumnInt64, 0, 8, TRACE_COLUMN_TIMESTAMP, "time, ns" },
    { "seq", TraceColumnUInt64, 8, 8, 0, "index" },
    { "name", TraceColumnUInt32, 16, 4, TRACE_COLUMN_STRING_ID,
      "a name that follows from seq" },
    { "writer", TraceColumnUInt32, 20, 4, 0, "trial that wrote it" },
    { "checksum", TraceColumnUInt64, 24, 8, 0, "mix of the fields above" },
};

static const TRACE_STORE_SCHEMA CrashSchema = {
    "crash_record",
    (ULONG)sizeof(CRASH_RECORD),
    (ULONG)ARRAYSIZE(CrashColumns),
    CrashColumns,
    "records written by writers that get killed",
};

//
// Shared with the child: its committed count after each commit.
//

typedef struct _CRASH_SHARED {
    volatile ULONGLONG Committed;   // ~0 until the first report
    volatile ULONGLONG Commits;
    volatile ULONGLONG Opened;      // 1 once the session is open
} CRASH_SHARED, *PCRASH_SHARED;

static ULONGLONG
CrashChecksum(const CRASH_RECORD *Record)
{
    return TestMix((ULONGLONG)Record->Timestamp ^
                   TestMix(Record->Sequence ^
                           TestMix((((ULONGLONG)Record->NameId << 32) |
                                    Record->Writer) + 0x9e3779b97f4a7c15ULL)));
}

//
// The name of record Sequence: one per group of 50 records; every third
// group reuses an older group's name (hash hits); lengths vary.
//

static ULONGLONG
CrashNameKey(ULONGLONG Sequence)
{
    ULONGLONG Group = Sequence / NAME_GROUP;

    return Group % 3 == 2 ? Group / 7 : Group;
}

static size_t
CrashName(char *Buffer, size_t Size, ULONGLONG Sequence)
{
    ULONGLONG Group = CrashNameKey(Sequence);
    ULONGLONG Pad;
    size_t Length;
    Length = (size_t)snprintf(Buffer, Size, "name-%llu-",
                              (unsigned long long)Group);
    for (Pad = TestMix(Group) % 40; Pad != 0 && Length + 1 < Size; Pad--) {
        Buffer[Length++] = (char)('a' + (Pad % 26));
    }
    Buffer[Length] = '\0';
    return Length;
}

static PTRACE_SESSION
AllocateAndOpen(const char *Path, BOOL Writer)
{
    PTRACE_SESSION Session = TestAllocateSession(&Rtl);
    RTL_ERROR Error;

    memset(&Error, 0, sizeof(Error));
    if (Writer) {
        CHECK_STATUS(TraceSessionOpenWriter(&Rtl, Path, Session, &Error),
                     &Error);
    } else {
        CHECK_STATUS(TraceSessionOpenReader(&Rtl, Path, Session, &Error),
                     &Error);
    }
    return Session;
}

static PTRACE_STORE
OpenCrashStore(PTRACE_SESSION Session)
{
    PTRACE_STORE Store = NULL;
    RTL_ERROR Error;

    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceSessionOpenStore(Session, &CrashSchema, &Store, &Error),
                 &Error);
    CHECK(Store != NULL, "no store");
    return Store;
}

//
// Appends Count records at the end of Store, interning each one's name.
//

static void
AppendCrashRecords(
    PTRACE_SESSION Session,
    PTRACE_STORE Store,
    ULONG Count,
    ULONG WriterTag
    )
{
    char Name[128];
    size_t Length;
    ULONGLONG Index;
    ULONG Offset;
    ULONG NameId;
    PCRASH_RECORD Record;

    CHECK_STATUS(TraceStoreReserve(Store, Count, &Index), NULL);
    for (Offset = 0; Offset < Count; Offset++) {
        Length = CrashName(Name, sizeof(Name), Index + Offset);
        NameId = 0;
        CHECK_STATUS(TraceStringIntern(&Session->Strings, Name,
                                       (ULONG)Length, &NameId), NULL);

        //
        // Interning touches other stores only; the record address is
        // recomputed in case anything moved.
        //

        Record = (PCRASH_RECORD)(Store->Base + (Index + Offset) *
                                 Store->RecordSize);
        Record->Timestamp = TestTimestamp(Index + Offset);
        Record->Sequence = Index + Offset;
        Record->NameId = NameId;
        Record->Writer = WriterTag;
        Record->Checksum = CrashChecksum(Record);
    }
}

static int
RunChild(const char *Path, PCRASH_SHARED Shared, ULONG Trial,
         ULONGLONG Seed)
{
    PTRACE_SESSION Session;
    PTRACE_STORE Store;
    ULONGLONG State = Seed;
    double Start = TestNow();

    Session = AllocateAndOpen(Path, TRUE);
    Store = OpenCrashStore(Session);
    Shared->Opened = 1;
    __atomic_store_n(&Shared->Committed, Store->CommittedCount,
                     __ATOMIC_RELEASE);

    //
    // Until killed (at most 50 ms away; give up after 20 s).
    //

    while (TestNow() - Start < 20.0) {
        ULONG Count = (ULONG)(1 + TestRandom(&State) % MAX_BATCH);
        AppendCrashRecords(Session, Store, Count, Trial);
        CHECK_STATUS(TraceSessionCommit(Session), NULL);
        __atomic_store_n(&Shared->Committed, Store->CommittedCount,
                         __ATOMIC_RELEASE);
        Shared->Commits++;
    }
    return 3;
}

//
// Checks records [0, Count) of Store; names are resolved through Strings.
//

static void
VerifyCrashStore(
    PTRACE_STORE Store,
    PTRACE_STRING_TABLE Strings,
    ULONGLONG Count,
    const char *What
    )
{
    ULONGLONG Index;
    ULONG LastId = TRACE_STRING_NULL;
    ULONGLONG LastGroup = ~0ULL;
    char Expected[128];
    size_t ExpectedLength;
    PCSZ Text;
    ULONG TextLength;
    PULONG IdOfKey;
    ULONGLONG Key;

    //
    // Interning is deduplicated across writers: one text, one id, however
    // many times a killed writer's successor interned it again.
    //

    IdOfKey = malloc((Count / NAME_GROUP + 1) * sizeof(ULONG));
    CHECK(IdOfKey != NULL, "malloc");
    memset(IdOfKey, 0xff, (Count / NAME_GROUP + 1) * sizeof(ULONG));

    for (Index = 0; Index < Count; Index++) {
        CRASH_RECORD Record;

        memcpy(&Record, Store->Base + Index * Store->RecordSize,
               sizeof(Record));
        CHECK(Record.Sequence == Index && Record.Timestamp ==
              TestTimestamp(Index) && Record.Checksum ==
              CrashChecksum(&Record), "%s: record %llu of %llu is damaged: "
              "seq %llu ts %lld name %u writer %u checksum %#llx", What,
              (unsigned long long)Index, (unsigned long long)Count,
              (unsigned long long)Record.Sequence,
              (long long)Record.Timestamp, Record.NameId, Record.Writer,
              (unsigned long long)Record.Checksum);

        //
        // One lookup per group of records sharing a name; within a group
        // every record must carry the same id.
        //

        if (Index / NAME_GROUP == LastGroup) {
            CHECK(Record.NameId == LastId, "%s: record %llu has name id %u, "
                  "its group has %u", What, (unsigned long long)Index,
                  Record.NameId, LastId);
            continue;
        }
        ExpectedLength = CrashName(Expected, sizeof(Expected), Index);
        Text = NULL;
        TextLength = 0;
        {
            RTL_STATUS Status = TraceStringLookup(Strings, Record.NameId,
                                                  &Text, &TextLength);
            CHECK(RTL_SUCCESS(Status), "%s: record %llu refers to string id "
                  "%u, which does not resolve (%s)", What,
                  (unsigned long long)Index, Record.NameId,
                  RtlStatusText(Status));
        }
        CHECK(TextLength == ExpectedLength &&
              memcmp(Text, Expected, ExpectedLength) == 0,
              "%s: record %llu name id %u resolves to '%.*s', expected '%s'",
              What, (unsigned long long)Index, Record.NameId,
              (int)(TextLength > 100 ? 100 : TextLength), Text, Expected);
        Key = CrashNameKey(Index);
        if (IdOfKey[Key] == TRACE_STRING_NULL) {
            IdOfKey[Key] = Record.NameId;
        }
        CHECK(IdOfKey[Key] == Record.NameId, "%s: '%s' has two ids, %u and "
              "%u (record %llu): interning did not find the committed "
              "string", What, Expected, IdOfKey[Key], Record.NameId,
              (unsigned long long)Index);
        LastGroup = Index / NAME_GROUP;
        LastId = Record.NameId;
    }
    free(IdOfKey);
}

int
main(int argc, char **argv)
{
    ULONG Trials = argc > 1 ? (ULONG)strtoul(argv[1], NULL, 0) : 20;
    const char *Base = argc > 2 ? argv[2] : NULL;
    const char *Dir;
    char Path[1024];
    PCRASH_SHARED Shared;
    ULONGLONG Seed = TestSeed();
    ULONGLONG State;
    ULONGLONG Total = 0;
    ULONGLONG LastGeneration = 0;
    ULONGLONG KilledMidBatch = 0;
    ULONGLONG KilledBeforeOpen = 0;
    ULONGLONG MaxRecovered = 0;
    ULONG Trial;
    double Start = TestNow();

    CHECK(Trials >= 1, "usage: %s [TRIALS [SCRATCH_BASE]]", argv[0]);
    CHECK(RTL_SUCCESS(InitializeRtl(&Rtl)), "InitializeRtl");
    printf("seed %llu (TRACER_TEST_SEED to repeat)\n",
           (unsigned long long)Seed);
    State = Seed;
    Dir = TestMakeScratch(Base, "crash");
    TestJoin(Path, sizeof(Path), Dir, "crash.trace");

    Shared = mmap(NULL, sizeof(CRASH_SHARED), PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(Shared != MAP_FAILED, "mmap");

    for (Trial = 0; Trial < Trials; Trial++) {
        PTRACE_SESSION Session;
        PTRACE_STORE Store;
        TRACE_STORE_SNAPSHOT Snap;
        RTL_ERROR Error;
        struct timespec Delay;
        ULONGLONG DelayUs = 1000 + TestRandom(&State) % 49001;
        ULONGLONG ChildSeed = TestRandom(&State) | 1;
        ULONGLONG Reported;
        ULONGLONG Lower;
        ULONGLONG Recovered;
        pid_t Child;
        int Status;

        Shared->Committed = ~0ULL;
        Shared->Commits = 0;
        Shared->Opened = 0;

        fflush(stdout);
        Child = fork();
        CHECK(Child >= 0, "fork");
        if (Child == 0) {
            _exit(RunChild(Path, Shared, Trial, ChildSeed));
        }
        //
        // Even trials count the delay from the fork, so that some kills land
        // in the open, the recovery or the first growth (the first reserve
        // after an open pre-faults a whole chunk, which takes tens of ms);
        // odd trials count it from the child's first commit, so that the
        // kill lands among appends and commits.
        //

        if (Trial & 1) {
            double Deadline = TestNow() + 20.0;
            while (Shared->Commits == 0 && TestNow() < Deadline) {
                usleep(100);
            }
            CHECK(Shared->Commits != 0, "trial %u: the child made no commit "
                  "in 20 s", Trial);
        }
        Delay.tv_sec = 0;
        Delay.tv_nsec = (long)(DelayUs * 1000);
        nanosleep(&Delay, NULL);
        kill(Child, SIGKILL);
        CHECK(waitpid(Child, &Status, 0) == Child, "waitpid");
        CHECK(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGKILL,
              "trial %u: the child ended on its own (status %#x): it failed "
              "before being killed", Trial, Status);

        Reported = __atomic_load_n(&Shared->Committed, __ATOMIC_ACQUIRE);
        if (!Shared->Opened) {
            KilledBeforeOpen++;
        }
        Lower = Total;
        if (Reported != ~0ULL) {
            CHECK(Reported >= Total, "trial %u: the child opened the store "
                  "with %llu records, the last trial left %llu", Trial,
                  (unsigned long long)Reported, (unsigned long long)Total);
            Lower = Reported;
        }

        //
        // 1. Recover.
        //

        Session = AllocateAndOpen(Path, TRUE);
        Store = OpenCrashStore(Session);
        Recovered = Store->CommittedCount;
        CHECK(Recovered >= Lower, "trial %u: recovered %llu records, the "
              "child had committed %llu", Trial,
              (unsigned long long)Recovered, (unsigned long long)Lower);
        CHECK(Recovered <= Lower + MAX_BATCH, "trial %u: recovered %llu "
              "records, more than one batch past the %llu reported", Trial,
              (unsigned long long)Recovered, (unsigned long long)Lower);
        CHECK(Store->Generation > LastGeneration, "trial %u: generation %llu "
              "after %llu", Trial, (unsigned long long)Store->Generation,
              (unsigned long long)LastGeneration);
        LastGeneration = Store->Generation;
        if (Recovered > Lower) {
            KilledMidBatch++;   // committed, killed before reporting
        }
        if (Recovered - Total > MaxRecovered) {
            MaxRecovered = Recovered - Total;
        }

        //
        // 2. Every record intact, every name resolves.
        //

        VerifyCrashStore(Store, &Session->Strings, Recovered,
                         "after recovery");

        //
        // 3. Append more and commit.
        //

        AppendCrashRecords(Session, Store, 1000, 1000 + Trial);
        CHECK_STATUS(TraceSessionCommit(Session), NULL);
        Total = Recovered + 1000;
        CHECK(Store->CommittedCount == Total, "committed %llu",
              (unsigned long long)Store->CommittedCount);
        TraceSessionClose(Session);
        TestFreeSession(&Rtl, Session);

        //
        // 4. Read-only, again.
        //

        Session = AllocateAndOpen(Path, FALSE);
        Store = TraceSessionFindStore(Session, "crash_record");
        CHECK(Store != NULL, "trial %u: the reader did not find crash_record",
              Trial);
        memset(&Error, 0, sizeof(Error));
        CHECK_STATUS(TraceStoreTakeSnapshot(Store, &Snap, &Error), &Error);
        CHECK(Snap.RecordCount == Total, "trial %u: reader sees %llu, "
              "expected %llu", Trial, (unsigned long long)Snap.RecordCount,
              (unsigned long long)Total);
        CHECK(Snap.Generation == LastGeneration, "trial %u: reader "
              "generation %llu, writer had %llu", Trial,
              (unsigned long long)Snap.Generation,
              (unsigned long long)LastGeneration);
        VerifyCrashStore(Store, &Session->Strings, Total, "read-only");
        TraceSessionClose(Session);
        TestFreeSession(&Rtl, Session);

        printf("trial %2u: killed %5.1f ms after %s, %llu commits, reported "
               "%s%llu, recovered %llu, total now %llu, generation %llu\n",
               Trial, DelayUs / 1000.0,
               (Trial & 1) ? "its first commit" : "the fork",
               (unsigned long long)Shared->Commits,
               Reported == ~0ULL ? "(none) " : "",
               (unsigned long long)(Reported == ~0ULL ? 0 : Reported),
               (unsigned long long)Recovered, (unsigned long long)Total,
               (unsigned long long)LastGeneration);
    }

    //
    // What the killed writers left in the directory besides the stores.
    //

    {
        DIR *Handle = opendir(Path);
        struct dirent *Entry;
        CHECK(Handle != NULL, "opendir %s", Path);
        while ((Entry = readdir(Handle)) != NULL) {
            size_t Length = strlen(Entry->d_name);
            if (Entry->d_name[0] == '.' ||
                strcmp(Entry->d_name, TRACE_SESSION_FILE) == 0 ||
                (Length > 6 && strcmp(Entry->d_name + Length - 6,
                                      TRACE_STORE_FILE_SUFFIX) == 0)) {
                continue;
            }
            printf("note: left in the session directory: %s\n",
                   Entry->d_name);
        }
        closedir(Handle);
    }

    printf("PASS: %u trials, %llu records, %llu kills before the session "
           "was open, %llu kills between a commit and its report, %.1f s\n",
           Trials, (unsigned long long)Total,
           (unsigned long long)KilledBeforeOpen,
           (unsigned long long)KilledMidBatch, TestNow() - Start);
    (void)MaxRecovered;
    return 0;
}
