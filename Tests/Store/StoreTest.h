/*++

Module Name:

    StoreTest.h

Abstract:

    Shared helpers of the store test programs (TestStore, TestLive,
    TestCrash) and the append benchmark.  These are hosted programs: libc is
    fine here.  Everything is static so that each program stays one
    translation unit.

    Provides:

        - CHECK / CHECK_STATUS: print file:line and the failing expression
          (with the core's error message) and exit non-zero.
        - A 32-byte test record {ts, seq, payload, checksum} and its schema,
          whose content is verifiable from its index alone.
        - Scratch directories (mkdtemp under $TMPDIR or /tmp), removed
          recursively at the end.
        - An independent reader of the on-disk header (pread + XXH3), used
          as the oracle for the commit slots.

--*/

#ifndef _TRACER_STORE_TEST_H_
#define _TRACER_STORE_TEST_H_

#define _GNU_SOURCE 1

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"

#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

//
// Each program uses a different subset of these helpers.
//

#pragma GCC diagnostic ignored "-Wunused-function"

//
// Exit code CTest treats as "skipped" (SKIP_RETURN_CODE).
//

#define TEST_SKIP_EXIT_CODE 77

static int TestQuiet;

//
// The scratch directory of this test, and the process that made it (the
// only one that removes it; forked children inherit both).
//

static char TestScratchPath[1024];
static pid_t TestScratchOwner;

static void TestRemoveScratch(void);

static void
TestFail(
    const char *File,
    int Line,
    const char *Format,
    ...
    ) __attribute__((noreturn, format(printf, 3, 4)));

static void
TestFail(
    const char *File,
    int Line,
    const char *Format,
    ...
    )
{
    va_list Args;

    fflush(stdout);
    fprintf(stderr, "%s:%d: FAILED: ", File, Line);
    va_start(Args, Format);
    vfprintf(stderr, Format, Args);
    va_end(Args);
    fputc('\n', stderr);
    if (TestScratchOwner == getpid()) {
        if (getenv("TRACER_TEST_KEEP")) {
            fprintf(stderr, "scratch kept: %s\n", TestScratchPath);
        }
        TestRemoveScratch();
    }
    fflush(stderr);
    _exit(1);
}

#define CHECK(Condition, ...)                                               \
    do {                                                                    \
        if (!(Condition)) {                                                 \
            TestFail(__FILE__, __LINE__, "(" #Condition ") " __VA_ARGS__);  \
        }                                                                   \
    } while (0)

//
// Evaluates an RTL_STATUS expression; on failure prints the status text and
// the message the core put in Error (pass NULL if the routine takes none).
//

#define CHECK_STATUS(Expression, Error)                                     \
    do {                                                                    \
        RTL_STATUS Status_ = (Expression);                                  \
        if (!RTL_SUCCESS(Status_)) {                                        \
            const RTL_ERROR *Error_ = (Error);                              \
            TestFail(__FILE__, __LINE__, "%s -> %d (%s)%s%s",               \
                     #Expression, (int)Status_, RtlStatusText(Status_),     \
                     Error_ ? ": " : "",                                    \
                     Error_ ? Error_->Message : "");                        \
        }                                                                   \
    } while (0)

static void
TestLog(const char *Format, ...) __attribute__((format(printf, 1, 2)));

static void
TestLog(const char *Format, ...)
{
    va_list Args;

    if (TestQuiet) {
        return;
    }
    va_start(Args, Format);
    vprintf(Format, Args);
    va_end(Args);
    fflush(stdout);
}

//
// Monotonic time in seconds.
//

static double
TestNow(void)
{
    struct timespec Ts;

    clock_gettime(CLOCK_MONOTONIC, &Ts);
    return (double)Ts.tv_sec + (double)Ts.tv_nsec * 1e-9;
}

//
// A cheap, well-mixing 64-bit function (splitmix64's finalizer).
//

static inline ULONGLONG
TestMix(ULONGLONG Value)
{
    Value ^= Value >> 30;
    Value *= 0xbf58476d1ce4e5b9ULL;
    Value ^= Value >> 27;
    Value *= 0x94d049bb133111ebULL;
    Value ^= Value >> 31;
    return Value;
}

//
// xorshift64* generator for random delays and samples.
//

static inline ULONGLONG
TestRandom(ULONGLONG *State)
{
    ULONGLONG X = *State;

    X ^= X >> 12;
    X ^= X << 25;
    X ^= X >> 27;
    *State = X;
    return X * 0x2545F4914F6CDD1DULL;
}

static ULONGLONG
TestSeed(void)
{
    ULONGLONG Seed;
    const char *Env = getenv("TRACER_TEST_SEED");

    if (Env && *Env) {
        Seed = strtoull(Env, NULL, 0);
    } else {
        Seed = (ULONGLONG)time(NULL) ^ ((ULONGLONG)getpid() << 32);
    }
    if (Seed == 0) {
        Seed = 1;
    }
    return Seed;
}

//
// One byte through a pipe: how a test's processes say "ready" and "go".
//

static inline void
TestWaitByte(int Fd, char Expected, int TimeoutMs, const char *What)
{
    struct pollfd Poll = { Fd, POLLIN, 0 };
    char Byte = 0;

    CHECK(poll(&Poll, 1, TimeoutMs) == 1, "timed out waiting for %s", What);
    CHECK(read(Fd, &Byte, 1) == 1 && Byte == Expected, "bad signal for %s",
          What);
}

static inline void
TestSendByte(int Fd, char Byte)
{
    CHECK(write(Fd, &Byte, 1) == 1, "write to pipe: %s", strerror(errno));
}

//
// Waits for a child process: its exit status, or 128 + the signal that
// ended it; either is reported on stderr unless it is 0.
//

static inline int
TestWaitChild(pid_t Pid, const char *What)
{
    int Status;

    CHECK(waitpid(Pid, &Status, 0) == Pid, "waitpid");
    if (WIFEXITED(Status)) {
        if (WEXITSTATUS(Status) != 0) {
            fprintf(stderr, "%s exited with %d\n", What, WEXITSTATUS(Status));
        }
        return WEXITSTATUS(Status);
    }
    fprintf(stderr, "%s died of signal %d\n", What, WTERMSIG(Status));
    return 128 + WTERMSIG(Status);
}

//
// ---------------------------------------------------------------------------
// The 32-byte test record.
// ---------------------------------------------------------------------------
//

typedef struct _TEST_RECORD {
    LONGLONG Timestamp;     // TestTimestamp(Sequence)
    ULONGLONG Sequence;     // the record's index in the store
    ULONGLONG Payload;      // TestMix(Sequence ^ Salt)
    ULONGLONG Checksum;     // TestRecordChecksum(...)
} TEST_RECORD, *PTEST_RECORD;

C_ASSERT(sizeof(TEST_RECORD) == 32);
C_ASSERT(FIELD_OFFSET(TEST_RECORD, Sequence) == 8);
C_ASSERT(FIELD_OFFSET(TEST_RECORD, Payload) == 16);
C_ASSERT(FIELD_OFFSET(TEST_RECORD, Checksum) == 24);

static const TRACE_COLUMN_DESCRIPTOR TestRecordColumns[] = {
    { "ts", TraceColumnInt64, 0, 8, TRACE_COLUMN_TIMESTAMP,
      "time, ns (1000 + 10 * seq)" },
    { "seq", TraceColumnUInt64, 8, 8, 0,
      "index of the record" },
    { "payload", TraceColumnUInt64, 16, 8, 0,
      "mix(seq ^ salt)" },
    { "checksum", TraceColumnUInt64, 24, 8, 0,
      "mix of the three fields above" },
};

static const TRACE_STORE_SCHEMA TestRecordSchema = {
    "test_record",
    (ULONG)sizeof(TEST_RECORD),
    (ULONG)ARRAYSIZE(TestRecordColumns),
    TestRecordColumns,
    "32-byte records whose content follows from their index",
};

static inline LONGLONG
TestTimestamp(ULONGLONG Sequence)
{
    return (LONGLONG)(1000 + 10 * Sequence);
}

static inline ULONGLONG
TestRecordChecksum(LONGLONG Timestamp, ULONGLONG Sequence, ULONGLONG Payload)
{
    return TestMix((ULONGLONG)Timestamp ^ TestMix(Sequence ^
                   TestMix(Payload + 0x9e3779b97f4a7c15ULL)));
}

static inline void
TestFillRecord(PVOID Destination, ULONGLONG Sequence, ULONGLONG Salt)
{
    PTEST_RECORD Record = (PTEST_RECORD)Destination;
    LONGLONG Timestamp = TestTimestamp(Sequence);
    ULONGLONG Payload = TestMix(Sequence ^ Salt);

    Record->Timestamp = Timestamp;
    Record->Sequence = Sequence;
    Record->Payload = Payload;
    Record->Checksum = TestRecordChecksum(Timestamp, Sequence, Payload);
}

//
// TRUE if the record at Index is complete and belongs at Index.  If Salt is
// not ~0, the payload must also have been written with that salt.
//

static inline BOOL
TestRecordValid(const void *Source, ULONGLONG Index, ULONGLONG Salt)
{
    TEST_RECORD Record;

    memcpy(&Record, Source, sizeof(Record));
    if (Record.Sequence != Index ||
        Record.Timestamp != TestTimestamp(Index) ||
        Record.Checksum != TestRecordChecksum(Record.Timestamp,
                                              Record.Sequence,
                                              Record.Payload)) {
        return FALSE;
    }
    if (Salt != ~0ULL && Record.Payload != TestMix(Index ^ Salt)) {
        return FALSE;
    }
    return TRUE;
}

static void
TestDescribeRecord(const void *Source, char *Buffer, size_t Size)
{
    TEST_RECORD Record;

    memcpy(&Record, Source, sizeof(Record));
    snprintf(Buffer, Size,
             "{ts=%lld seq=%llu payload=%#llx checksum=%#llx}",
             (long long)Record.Timestamp,
             (unsigned long long)Record.Sequence,
             (unsigned long long)Record.Payload,
             (unsigned long long)Record.Checksum);
}

static inline PBYTE
TestRecordAddress(PTRACE_STORE Store, ULONGLONG Index)
{
    return Store->Base + Index * Store->RecordSize;
}

//
// Reserves Count records, fills them in sequence with Salt, returns the
// first index.
//

static ULONGLONG
TestAppend(PTRACE_STORE Store, ULONG Count, ULONGLONG Salt)
{
    ULONGLONG Index = ~0ULL;
    ULONG Offset;

    CHECK_STATUS(TraceStoreReserve(Store, Count, &Index), NULL);
    for (Offset = 0; Offset < Count; Offset++) {
        TestFillRecord(TestRecordAddress(Store, Index + Offset),
                       Index + Offset, Salt);
    }
    return Index;
}

//
// Verifies records [First, Last) of a store mapping.
//

static void
TestVerifyRange(
    PTRACE_STORE Store,
    ULONGLONG First,
    ULONGLONG Last,
    ULONGLONG Salt,
    const char *What
    )
{
    ULONGLONG Index;
    char Description[160];

    for (Index = First; Index < Last; Index++) {
        const void *Record = TestRecordAddress(Store, Index);
        if (!TestRecordValid(Record, Index, Salt)) {
            TestDescribeRecord(Record, Description, sizeof(Description));
            TestFail(__FILE__, __LINE__,
                     "%s: record %llu of [%llu, %llu) is wrong: %s",
                     What, (unsigned long long)Index,
                     (unsigned long long)First, (unsigned long long)Last,
                     Description);
        }
    }
}

//
// ---------------------------------------------------------------------------
// Scratch directories.
// ---------------------------------------------------------------------------
//

static int
TestRemoveEntry(
    const char *Path,
    const struct stat *Stat,
    int Flag,
    struct FTW *Ftw
    )
{
    (void)Stat;
    (void)Flag;
    (void)Ftw;
    return remove(Path);
}

static void
TestRemoveTree(const char *Path)
{
    nftw(Path, TestRemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

static void
TestRemoveScratch(void)
{
    if (TestScratchPath[0] && TestScratchOwner == getpid() &&
        !getenv("TRACER_TEST_KEEP")) {
        TestRemoveTree(TestScratchPath);
    }
}

//
// Creates a fresh directory for this process: under Base if given, else
// $TMPDIR, else /tmp.  Removed when the creating process exits or fails a
// CHECK (set TRACER_TEST_KEEP=1 to keep it).
//

static const char *
TestMakeScratch(const char *Base, const char *Tag)
{

    if (!Base || !*Base) {
        Base = getenv("TMPDIR");
    }
    if (!Base || !*Base) {
        Base = "/tmp";
    }
    snprintf(TestScratchPath, sizeof(TestScratchPath),
             "%s/tracer-%s-XXXXXX", Base, Tag);
    CHECK(mkdtemp(TestScratchPath) != NULL, "mkdtemp %s: %s",
          TestScratchPath, strerror(errno));
    if (TestScratchOwner == 0) {
        TestScratchOwner = getpid();
        atexit(TestRemoveScratch);
    }
    return TestScratchPath;
}

static void
TestJoin(char *Buffer, size_t Size, const char *Directory, const char *Name)
{
    int Length = snprintf(Buffer, Size, "%s/%s", Directory, Name);

    CHECK(Length > 0 && (size_t)Length < Size, "path too long");
}

static ULONGLONG
TestFileSize(const char *Path)
{
    struct stat St;

    CHECK(stat(Path, &St) == 0, "stat %s: %s", Path, strerror(errno));
    return (ULONGLONG)St.st_size;
}

static ULONGLONG
TestFileAllocated(const char *Path)
{
    struct stat St;

    CHECK(stat(Path, &St) == 0, "stat %s: %s", Path, strerror(errno));
    return (ULONGLONG)St.st_blocks * 512;
}

//
// ---------------------------------------------------------------------------
// Independent view of the on-disk header: read with pread, slots validated
// with XXH3-64 from xxhash.h (not through the core).
// ---------------------------------------------------------------------------
//

static void
TestReadHeader(const char *Path, PTRACE_STORE_HEADER Header)
{
    int Fd = open(Path, O_RDONLY);
    ssize_t Got;

    CHECK(Fd >= 0, "open %s: %s", Path, strerror(errno));
    Got = pread(Fd, Header, sizeof(*Header), 0);
    CHECK(Got == (ssize_t)sizeof(*Header), "pread header of %s: %zd", Path,
          Got);
    close(Fd);
}

static void
TestWriteBytes(const char *Path, ULONGLONG Offset, const void *Bytes,
               size_t Length)
{
    int Fd = open(Path, O_WRONLY);
    ssize_t Put;

    CHECK(Fd >= 0, "open %s: %s", Path, strerror(errno));
    Put = pwrite(Fd, Bytes, Length, (off_t)Offset);
    CHECK(Put == (ssize_t)Length, "pwrite %s: %s", Path, strerror(errno));
    close(Fd);
}

static void
TestWriteHeader(const char *Path, const TRACE_STORE_HEADER *Header)
{
    TestWriteBytes(Path, 0, Header, sizeof(*Header));
}

static ULONGLONG
TestSlotChecksum(const TRACE_STORE_COMMIT_SLOT *Slot)
{
    return XXH3_64bits(Slot, TRACE_SLOT_CHECKSUMMED_BYTES);
}

static BOOL
TestSlotValid(const TRACE_STORE_COMMIT_SLOT *Slot)
{
    return Slot->Sequence != 0 && Slot->Checksum == TestSlotChecksum(Slot);
}

static void
TestResignSlot(PTRACE_STORE_COMMIT_SLOT Slot)
{
    Slot->Checksum = TestSlotChecksum(Slot);
}

//
// Index (0 or 1) of the slot a correct reader must choose, or -1.
//

static int
TestExpectedSlot(const TRACE_STORE_HEADER *Header)
{
    BOOL Valid0 = TestSlotValid(&Header->Slots[0]);
    BOOL Valid1 = TestSlotValid(&Header->Slots[1]);

    if (Valid0 && Valid1) {
        return Header->Slots[1].Sequence > Header->Slots[0].Sequence ? 1 : 0;
    }
    if (Valid0) {
        return 0;
    }
    if (Valid1) {
        return 1;
    }
    return -1;
}

//
// The header checksum as TraceStore.h documents it: XXH3-64 of the whole
// 4096-byte header page with HeaderChecksum and both Slots zeroed.
// Computed here with libxxhash, independently of the core, so that a test
// can check what the core wrote and re-sign a header it modified (to reach
// the validation behind the checksum).
//

static ULONGLONG
TestHeaderChecksum(const TRACE_STORE_HEADER *Header)
{
    TRACE_STORE_HEADER Copy;

    memcpy(&Copy, Header, sizeof(Copy));
    Copy.HeaderChecksum = 0;
    memset(Copy.Slots, 0, sizeof(Copy.Slots));
    return XXH3_64bits(&Copy, sizeof(Copy));
}

//
// TRUE if Message names the file Path (full path or its last component).
//

static BOOL
TestMessageNamesFile(const char *Message, const char *Path)
{
    const char *Slash = strrchr(Path, '/');
    const char *Base = Slash ? Slash + 1 : Path;

    return strstr(Message, Path) != NULL || strstr(Message, Base) != NULL;
}

static const char *
TestStatusName(RTL_STATUS Status)
{
    switch (Status) {
    case RTL_STATUS_OK: return "OK";
    case RTL_STATUS_NOT_FOUND: return "NOT_FOUND";
    case RTL_STATUS_NO_MEMORY: return "NO_MEMORY";
    case RTL_STATUS_EXISTS: return "EXISTS";
    case RTL_STATUS_NOT_DIRECTORY: return "NOT_DIRECTORY";
    case RTL_STATUS_INVALID_PARAMETER: return "INVALID_PARAMETER";
    case RTL_STATUS_NO_SPACE: return "NO_SPACE";
    case RTL_STATUS_LOCKED: return "LOCKED";
    case RTL_STATUS_BAD_FORMAT: return "BAD_FORMAT";
    case RTL_STATUS_BAD_VERSION: return "BAD_VERSION";
    case RTL_STATUS_CORRUPT: return "CORRUPT";
    case RTL_STATUS_TOO_LARGE: return "TOO_LARGE";
    case RTL_STATUS_NOT_SESSION: return "NOT_SESSION";
    default: return "other";
    }
}

//
// Sessions are large; the header asks for page allocations.
//

static PTRACE_SESSION
TestAllocateSession(PRTL Rtl)
{
    PVOID Address = NULL;

    CHECK_STATUS(Rtl->AllocatePages(Rtl, sizeof(TRACE_SESSION), &Address),
                 NULL);
    memset(Address, 0, sizeof(TRACE_SESSION));
    return (PTRACE_SESSION)Address;
}

static void
TestFreeSession(PRTL Rtl, PTRACE_SESSION Session)
{
    Rtl->Unmap(Rtl, Session, sizeof(TRACE_SESSION));
}

#endif // _TRACER_STORE_TEST_H_
