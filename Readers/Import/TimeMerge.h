/*++

Module Name:

    TimeMerge.h

Abstract:

    A k-way merge by time: a reader whose input is several streams sorted
    by time each (a uftrace recording's per-task files and perf-cpuN.dat
    files) takes the next record from the stream whose current record is
    earliest, so that the stores it fills are sorted by ts.

    The caller numbers its streams (sources) 0..N-1 and tells the merge
    each one's current time; the merge is a binary min-heap of (time,
    source) pairs, ties to the lower source number, so that the order is
    fully determined whatever order the sources were inserted in.  The
    heap holds the keys itself: no call back into the reader to compare.

        TimeMergeInitialize(&Merge, Memory);    // TIME_MERGE_SIZE(sources)
        for each source with a record: TimeMergeInsert(&Merge, Source, Ts);
        while (TimeMergeFirst(&Merge, &Source)) {
            consume the current record of Source, advance it;
            if it has another: TimeMergeUpdateFirst(&Merge, NextTs);
            else: TimeMergeRemoveFirst(&Merge);
        }

Environment:

    Core: no C runtime, no OS service (the caller provides the memory).
    Called by the uftrace reader (per-thread .dat files), the trace.dat
    reader (per-CPU buffers) and the ETW reader (per-CPU buffers); calls
    nothing.

--*/

#ifndef _TRACER_TIME_MERGE_H_
#define _TRACER_TIME_MERGE_H_

#include "Rtl/Rtl.h"

typedef struct _TIME_MERGE_ENTRY {
    ULONGLONG Time;             // the source's current record
    ULONG Source;
    ULONG Padding;
} TIME_MERGE_ENTRY, *PTIME_MERGE_ENTRY;

C_ASSERT(sizeof(TIME_MERGE_ENTRY) == 16);

typedef struct _TIME_MERGE {
    PTIME_MERGE_ENTRY Heap;     // Heap[0] is the earliest
    ULONG Count;
    ULONG Padding;
} TIME_MERGE, *PTIME_MERGE;

//
// The bytes of memory a merge of Sources sources needs (the caller
// allocates it, and frees it after the merge).
//

#define TIME_MERGE_SIZE(Sources) \
    ((SIZE_T)(Sources) * sizeof(TIME_MERGE_ENTRY))

VOID TimeMergeInitialize(PTIME_MERGE Merge, PVOID Memory);

//
// Adds a source whose current record is at Time: each source once, at
// most as many as the memory was sized for.
//

VOID TimeMergeInsert(PTIME_MERGE Merge, ULONG Source, ULONGLONG Time);

//
// The source whose record comes next: FALSE when every source is done.
//

static inline
BOOL
TimeMergeFirst(
    PTIME_MERGE Merge,
    PULONG Source
    )
{
    if (Merge->Count == 0) {
        return FALSE;
    }
    *Source = Merge->Heap[0].Source;
    return TRUE;
}

//
// The first source moved on to a record at Time (any time: a record
// earlier than the one it replaces is still the first).
//

VOID TimeMergeUpdateFirst(PTIME_MERGE Merge, ULONGLONG Time);

//
// The first source has no record left.
//

VOID TimeMergeRemoveFirst(PTIME_MERGE Merge);

#endif // _TRACER_TIME_MERGE_H_
