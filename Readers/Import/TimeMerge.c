/*++

Module Name:

    TimeMerge.c

Abstract:

    The k-way merge by time of TimeMerge.h: a binary min-heap of (time,
    source) keys, ordered by time, then by source number.

Environment:

    Core: no C runtime, no OS service.  Owns the heap of (time, source)
    keys.  Called by the readers that merge sorted streams (Uftrace.c,
    see TimeMerge.h); calls nothing.

--*/

#include "TimeMerge.h"

static inline
BOOL
EntryBefore(
    const TIME_MERGE_ENTRY *Left,
    const TIME_MERGE_ENTRY *Right
    )
{
    return Left->Time < Right->Time ||
           (Left->Time == Right->Time && Left->Source < Right->Source);
}

static
VOID
SiftDown(
    PTIME_MERGE Merge,
    ULONG Position
    )
{
    PTIME_MERGE_ENTRY Heap = Merge->Heap;
    ULONG Count = Merge->Count;
    TIME_MERGE_ENTRY Moving = Heap[Position];

    for (;;) {
        ULONG Child = 2 * Position + 1;

        if (Child >= Count) {
            break;
        }
        if (Child + 1 < Count && EntryBefore(&Heap[Child + 1], &Heap[Child])) {
            Child++;
        }
        if (!EntryBefore(&Heap[Child], &Moving)) {
            break;
        }
        Heap[Position] = Heap[Child];
        Position = Child;
    }
    Heap[Position] = Moving;
}

VOID
TimeMergeInitialize(
    PTIME_MERGE Merge,
    PVOID Memory
    )
{
    Merge->Heap = (PTIME_MERGE_ENTRY)Memory;
    Merge->Count = 0;
    Merge->Padding = 0;
}

VOID
TimeMergeInsert(
    PTIME_MERGE Merge,
    ULONG Source,
    ULONGLONG Time
    )
{
    PTIME_MERGE_ENTRY Heap = Merge->Heap;
    ULONG Position = Merge->Count++;
    TIME_MERGE_ENTRY Entry;

    Entry.Time = Time;
    Entry.Source = Source;
    Entry.Padding = 0;

    while (Position != 0) {
        ULONG Parent = (Position - 1) / 2;

        if (!EntryBefore(&Entry, &Heap[Parent])) {
            break;
        }
        Heap[Position] = Heap[Parent];
        Position = Parent;
    }
    Heap[Position] = Entry;
}

VOID
TimeMergeUpdateFirst(
    PTIME_MERGE Merge,
    ULONGLONG Time
    )
{
    Merge->Heap[0].Time = Time;
    SiftDown(Merge, 0);
}

VOID
TimeMergeRemoveFirst(
    PTIME_MERGE Merge
    )
{
    if (--Merge->Count != 0) {
        Merge->Heap[0] = Merge->Heap[Merge->Count];
        SiftDown(Merge, 0);
    }
}
