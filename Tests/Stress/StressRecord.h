/*++

Module Name:

    StressRecord.h

Abstract:

    The records of the concurrency stress test (TestStress.c): three stores
    of one session whose every field follows from the record's index, so
    that a reader checks what it reads with arithmetic alone, and the
    writer's helpers.  Builds on the 32-byte test record of StoreTest.h
    (TestMix, TestRecordChecksum): the same checksum, over more fields.

        store      ts of record i                  ref             sorted
        stress_a   1000 + 10 i                     i / 2 (itself)  yes
        stress_b   1003 + 10 i                     i - i/8 (a)     yes
        stress_c   1007 + 10 perm(i)               i - i/8 (b)     no

    perm(i) = i ^ (mix(i >> 4) & 15) swaps records within each aligned
    group of 16, so stress_c is unsorted but every group of 16 holds the
    same ts as in a sorted store.  perm is its own inverse.

    name (a string id) is "a17" (letter of the store, i % 4099) for most
    records and "a-u1023" (unique, i) for every 1024th, so strings are
    interned both as repeats and as new text all along.

    payload = mix(i ^ salt of the store), checksum = TestRecordChecksum(
    ts, i, payload ^ ref).

--*/

#ifndef _TRACER_STRESS_RECORD_H_
#define _TRACER_STRESS_RECORD_H_

#include "StoreTest.h"

#define STRESS_STORES       3
#define STRESS_NAME_REPEAT  4099
#define STRESS_UNIQUE_EVERY 1024
#define STRESS_NAME_SIZE    32

typedef struct _STRESS_RECORD {
    LONGLONG Timestamp;     // StressTs(Store, Sequence)
    ULONGLONG Sequence;     // index of the record in its store
    ULONGLONG Payload;      // TestMix(Sequence ^ salt)
    ULONGLONG Checksum;     // TestRecordChecksum(ts, seq, payload ^ ref)
    ULONGLONG Reference;    // StressRef(Store, Sequence)
    ULONG NameId;           // string id of StressName(Store, Sequence)
    ULONG Reserved;         // zero
} STRESS_RECORD, *PSTRESS_RECORD;

C_ASSERT(sizeof(STRESS_RECORD) == 48);
C_ASSERT(FIELD_OFFSET(STRESS_RECORD, Reference) == 32);
C_ASSERT(FIELD_OFFSET(STRESS_RECORD, NameId) == 40);

static const TRACE_COLUMN_DESCRIPTOR StressColumns[] = {
    { "ts", TraceColumnInt64, 0, 8, TRACE_COLUMN_TIMESTAMP,
      "time, ns: a function of seq (StressRecord.h)" },
    { "seq", TraceColumnUInt64, 8, 8, 0, "index of the record" },
    { "payload", TraceColumnUInt64, 16, 8, 0, "mix(seq ^ salt)" },
    { "checksum", TraceColumnUInt64, 24, 8, 0,
      "mix of ts, seq, payload and ref" },
    { "ref", TraceColumnUInt64, 32, 8, 0,
      "seq of a record of the store this one refers to" },
    { "name", TraceColumnUInt32, 40, 4, TRACE_COLUMN_STRING_ID,
      "text from seq" },
};

static const TRACE_STORE_SCHEMA StressSchemas[STRESS_STORES] = {
    { "stress_a", (ULONG)sizeof(STRESS_RECORD), (ULONG)ARRAYSIZE(StressColumns),
      StressColumns, "stress test: sorted, refers to itself" },
    { "stress_b", (ULONG)sizeof(STRESS_RECORD), (ULONG)ARRAYSIZE(StressColumns),
      StressColumns, "stress test: sorted, refers to stress_a" },
    { "stress_c", (ULONG)sizeof(STRESS_RECORD), (ULONG)ARRAYSIZE(StressColumns),
      StressColumns, "stress test: unsorted, refers to stress_b" },
};

//
// The store each store's ref points into.
//

static const int StressRefStore[STRESS_STORES] = { 0, 0, 1 };

static inline BOOL
StressSorted(int Store)
{
    return Store != 2;
}

static inline ULONGLONG
StressPerm(int Store, ULONGLONG Sequence)
{
    if (StressSorted(Store)) {
        return Sequence;
    }
    return Sequence ^ (TestMix(Sequence >> 4) & 15);
}

//
// The ts of the record whose perm is Key (for sorted stores Key = seq).
//

static inline LONGLONG
StressKeyTs(int Store, ULONGLONG Key)
{
    static const LONGLONG Offsets[STRESS_STORES] = { 0, 3, 7 };

    return (LONGLONG)(1000 + 10 * Key) + Offsets[Store];
}

static inline LONGLONG
StressTs(int Store, ULONGLONG Sequence)
{
    return StressKeyTs(Store, StressPerm(Store, Sequence));
}

static inline ULONGLONG
StressRef(int Store, ULONGLONG Sequence)
{
    return Store == 0 ? Sequence / 2 : Sequence - Sequence / 8;
}

static inline ULONGLONG
StressPayload(int Store, ULONGLONG Sequence)
{
    static const ULONGLONG Salts[STRESS_STORES] = {
        0xa11ce, 0xb0b, 0xc0ffee
    };

    return TestMix(Sequence ^ Salts[Store]);
}

static inline ULONGLONG
StressChecksum(int Store, ULONGLONG Sequence)
{
    return TestRecordChecksum(StressTs(Store, Sequence), Sequence,
                              StressPayload(Store, Sequence) ^
                              StressRef(Store, Sequence));
}

static inline BOOL
StressUnique(ULONGLONG Sequence)
{
    return Sequence % STRESS_UNIQUE_EVERY == STRESS_UNIQUE_EVERY - 1;
}

//
// Writes the name of record Sequence into Buffer (STRESS_NAME_SIZE bytes)
// and returns its length.
//

static int
StressName(int Store, ULONGLONG Sequence, char *Buffer)
{
    if (StressUnique(Sequence)) {
        return snprintf(Buffer, STRESS_NAME_SIZE, "%c-u%llu", 'a' + Store,
                        (unsigned long long)Sequence);
    }
    return snprintf(Buffer, STRESS_NAME_SIZE, "%c%llu", 'a' + Store,
                    (unsigned long long)(Sequence % STRESS_NAME_REPEAT));
}

//
// Fills every field but NameId.
//

static inline void
StressFill(PSTRESS_RECORD Record, int Store, ULONGLONG Sequence)
{
    Record->Timestamp = StressTs(Store, Sequence);
    Record->Sequence = Sequence;
    Record->Payload = StressPayload(Store, Sequence);
    Record->Reference = StressRef(Store, Sequence);
    Record->Checksum = StressChecksum(Store, Sequence);
    Record->NameId = TRACE_NULL_ULONG;
    Record->Reserved = 0;
}

#endif // _TRACER_STRESS_RECORD_H_
