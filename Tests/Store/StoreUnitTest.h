/*++

Module Name:

    StoreUnitTest.h

Abstract:

    What the TraceStore unit-test programs (TestStore.c, TestStrings.c,
    TestStoreCorrupt.c) share on top of StoreTest.h: the program's RTL and
    scratch base, opening stores and checking their files, a child process
    for a writer that must die, and the case driver (one case by name, as
    CTest runs them, "all", or "list").  Static, as StoreTest.h is: each
    program stays one translation unit.

--*/

#ifndef _TRACER_STORE_UNIT_TEST_H_
#define _TRACER_STORE_UNIT_TEST_H_

#include "StoreTest.h"

static RTL Rtl;
static const char *ScratchBase;

//
// ---------------------------------------------------------------------------
// Small helpers.
// ---------------------------------------------------------------------------
//

static void
Snapshot(PTRACE_STORE Store, PTRACE_STORE_SNAPSHOT Snap)
{
    RTL_ERROR Error;

    memset(&Error, 0, sizeof(Error));
    memset(Snap, 0, sizeof(*Snap));
    CHECK_STATUS(TraceStoreTakeSnapshot(Store, Snap, &Error), &Error);
    CHECK(Snap->RecordCount <= Snap->Capacity,
          "snapshot count %llu > capacity %llu",
          (unsigned long long)Snap->RecordCount,
          (unsigned long long)Snap->Capacity);
}

static void
OpenWriter(const char *Path, PTRACE_STORE Store)
{
    RTL_ERROR Error;

    memset(Store, 0, sizeof(*Store));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenWriter(&Rtl, Path, &TestRecordSchema, Store,
                                      &Error), &Error);
    CHECK(Store->Writable, "writer store not marked writable");
    CHECK(Store->RecordSize == sizeof(TEST_RECORD), "RecordSize %u",
          Store->RecordSize);
}

static void
OpenReader(const char *Path, PTRACE_STORE Store)
{
    RTL_ERROR Error;

    memset(Store, 0, sizeof(*Store));
    memset(&Error, 0, sizeof(Error));
    CHECK_STATUS(TraceStoreOpenReader(&Rtl, Path, Store, &Error), &Error);
    CHECK(!Store->Writable, "reader store marked writable");
}

//
// Opens Path read-only, checks it holds exactly Count valid records (with
// Salt, or ~0 for any) and returns the snapshot.
//

static void
VerifyStoreFile(
    const char *Path,
    ULONGLONG Count,
    ULONGLONG Salt,
    PTRACE_STORE_SNAPSHOT SnapOut
    )
{
    TRACE_STORE Reader;
    TRACE_STORE_SNAPSHOT Snap;

    OpenReader(Path, &Reader);
    Snapshot(&Reader, &Snap);
    CHECK(Snap.RecordCount == Count, "%s: reader sees %llu records, "
          "expected %llu", Path, (unsigned long long)Snap.RecordCount,
          (unsigned long long)Count);
    TestVerifyRange(&Reader, 0, Count, Salt, Path);
    if (Count != 0) {
        CHECK(Snap.FirstTs == TestTimestamp(0), "FirstTs %lld",
              (long long)Snap.FirstTs);
        CHECK(Snap.LastTs == TestTimestamp(Count - 1), "LastTs %lld, "
              "expected %lld", (long long)Snap.LastTs,
              (long long)TestTimestamp(Count - 1));
        CHECK(Snap.Flags & TRACE_SLOT_SORTED, "sorted flag missing");
    }
    if (SnapOut) {
        *SnapOut = Snap;
    }
    TraceStoreClose(&Reader);
}


static void
StorePath(char *Buffer, size_t Size, const char *Dir, const char *Name)
{
    TestJoin(Buffer, Size, Dir, Name);
}

//
// Forks; the child runs Body(Context) and exits with its return value.
// Returns the child's exit status (or 128 + signal).
//

static int
RunInChild(int (*Body)(void *Context), void *Context)
{
    pid_t Pid;
    int Status;

    fflush(stdout);
    fflush(stderr);
    Pid = fork();
    CHECK(Pid >= 0, "fork: %s", strerror(errno));
    if (Pid == 0) {
        _exit(Body(Context));
    }
    CHECK(waitpid(Pid, &Status, 0) == Pid, "waitpid: %s", strerror(errno));
    if (WIFEXITED(Status)) {
        return WEXITSTATUS(Status);
    }
    if (WIFSIGNALED(Status)) {
        return 128 + WTERMSIG(Status);
    }
    return 255;
}

//
// The unit-test programs' driver: one case by name (CTest runs each as its
// own entry), "all", or "list".  Each case runs in a fresh scratch
// directory named Prefix-CASE under ScratchBase (argv[2] if given).
//

typedef struct _TEST_CASE {
    const char *Name;
    void (*Run)(const char *Dir);
} TEST_CASE;

static void
TestRunCase(const TEST_CASE *Case, const char *Prefix, const char *Base)
{
    char Tag[64];
    const char *Dir;
    double Start = TestNow();

    snprintf(Tag, sizeof(Tag), "%s-%s", Prefix, Case->Name);
    Dir = TestMakeScratch(Base, Tag);
    Case->Run(Dir);
    TestRemoveScratch();
    TestLog("PASS %s (%.2f s)\n", Case->Name, TestNow() - Start);
}

static int
TestRunCases(
    int argc,
    char **argv,
    const TEST_CASE *Cases,
    ULONG Count,
    const char *Prefix
    )
{
    ULONG Index;
    RTL_STATUS Status;

    if (argc < 2) {
        fprintf(stderr, "usage: %s CASE|all|list [SCRATCH_BASE]\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "list") == 0) {
        for (Index = 0; Index < Count; Index++) {
            printf("%s\n", Cases[Index].Name);
        }
        return 0;
    }
    ScratchBase = argc > 2 ? argv[2] : NULL;

    Status = InitializeRtl(&Rtl);
    CHECK(RTL_SUCCESS(Status), "InitializeRtl: %d", (int)Status);

    for (Index = 0; Index < Count; Index++) {
        if (strcmp(argv[1], "all") == 0 ||
            strcmp(argv[1], Cases[Index].Name) == 0) {
            TestRunCase(&Cases[Index], Prefix, ScratchBase);
            if (strcmp(argv[1], "all") != 0) {
                return 0;
            }
        }
    }
    if (strcmp(argv[1], "all") == 0) {
        return 0;
    }
    fprintf(stderr, "unknown case '%s'\n", argv[1]);
    return 2;
}

#endif // _TRACER_STORE_UNIT_TEST_H_
