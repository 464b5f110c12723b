/*++

Module Name:

    TraceStoreCommit.c

Abstract:

    This module implements the commit protocol of a store (TraceStore.h
    describes it): reading a commit slot with the sequence-retry protocol
    and choosing the latest, publishing the next commit with the barriers
    readers rely on, and the commits themselves (TraceStoreCommit,
    TraceStoreCommitTracked), which keep the first/last ts and the sorted
    flag and unmap what lies far behind a discarding writer.

Environment:

    Core: no C runtime; the OS only through PRTL (hashing, DiscardMemory,
    WriteBackAsync).  Called by writers through the store API and by the
    other store files (TraceStoreInternal.h); calls nothing outside the
    store but the RTL.

--*/

#include "TraceStore/TraceStoreInternal.h"

#define SLOT_READ_RETRIES    1000
#define SNAPSHOT_RETRIES     1000
#define STORE_DISCARD_LAG    (512ULL * 1024)

BOOL
TraceStoreReadSlot(
    PRTL Rtl,
    const volatile TRACE_STORE_COMMIT_SLOT *Slot,
    PTRACE_STORE_COMMIT_SLOT Copy
    )
/*++

Routine Description:

    Reads a commit slot with the sequence-retry protocol: the slot is
    valid if its Sequence is non-zero and unchanged across the copy
    (acquire ordering on the first load and a fence before the second), and
    the checksum of the copy matches.

Arguments:

    Rtl - Supplies the RTL.

    Slot - Supplies the slot in the mapped header.

    Copy - Receives the slot's contents.

Return Value:

    TRUE if the copy is a valid, complete commit.

--*/
{
    ULONG Try;

    for (Try = 0; Try < SLOT_READ_RETRIES; Try++) {
        ULONGLONG First;
        ULONGLONG Second;

        First = __atomic_load_n(&Slot->Sequence, __ATOMIC_ACQUIRE);
        if (First == 0) {
            return FALSE;
        }

        Copy->Sequence = First;
        Copy->RecordCount = Slot->RecordCount;
        Copy->Capacity = Slot->Capacity;
        Copy->Generation = Slot->Generation;
        Copy->Repaired = Slot->Repaired;
        Copy->FirstTs = Slot->FirstTs;
        Copy->LastTs = Slot->LastTs;
        Copy->Flags = Slot->Flags;
        Copy->Dropped = Slot->Dropped;
        Copy->Checksum = Slot->Checksum;

        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        Second = __atomic_load_n(&Slot->Sequence, __ATOMIC_RELAXED);

        if (First != Second) {
            continue;
        }

        return Rtl->Hash64(Copy, TRACE_SLOT_CHECKSUMMED_BYTES) ==
               Copy->Checksum;
    }

    return FALSE;
}

BOOL
TraceStoreReadLatestSlot(
    PRTL Rtl,
    const volatile TRACE_STORE_HEADER *Header,
    PTRACE_STORE_COMMIT_SLOT Latest
    )
{
    ULONG Try;

    for (Try = 0; Try < SNAPSHOT_RETRIES; Try++) {
        TRACE_STORE_COMMIT_SLOT Slot0;
        TRACE_STORE_COMMIT_SLOT Slot1;
        BOOL Valid0;
        BOOL Valid1;

        Valid0 = TraceStoreReadSlot(Rtl, &Header->Slots[0], &Slot0) &&
                 (Slot0.Sequence & 1) == 0;
        Valid1 = TraceStoreReadSlot(Rtl, &Header->Slots[1], &Slot1) &&
                 (Slot1.Sequence & 1) == 1;

        if (Valid0 && (!Valid1 || Slot0.Sequence > Slot1.Sequence)) {
            *Latest = Slot0;
            return TRUE;
        }

        if (Valid1) {
            *Latest = Slot1;
            return TRUE;
        }
    }

    return FALSE;
}

VOID
TraceStorePublishSlot(
    PTRACE_STORE Store,
    ULONGLONG RecordCount,
    ULONGLONG Capacity
    )
/*++

Routine Description:

    Writes the next commit into the slot that does not hold the latest one,
    with the ordering readers rely on:

        1. Sequence = 0 (the slot is being written), then a release fence so
           that this store is visible before any of the fields change.
        2. The fields and their checksum.
        3. Sequence = N with release ordering, which also orders every
           record written before this call ahead of the new count.

--*/
{
    PRTL Rtl = Store->Rtl;
    TRACE_STORE_COMMIT_SLOT New;
    volatile TRACE_STORE_COMMIT_SLOT *Slot;
    ULONGLONG Sequence = Store->Sequence + 1;

    New.Sequence = Sequence;
    New.RecordCount = RecordCount;
    New.Capacity = Capacity;
    New.Generation = (ULONG)Store->Generation;
    New.Repaired = Store->Repaired;
    New.FirstTs = Store->FirstTs;
    New.LastTs = Store->LastTs;
    New.Flags = Store->SlotFlags;
    New.Dropped = Store->Dropped;
    New.Checksum = Rtl->Hash64(&New, TRACE_SLOT_CHECKSUMMED_BYTES);

    Slot = &Store->Header->Slots[Sequence & 1];

    __atomic_store_n(&Slot->Sequence, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);

    Slot->RecordCount = New.RecordCount;
    Slot->Capacity = New.Capacity;
    Slot->Generation = New.Generation;
    Slot->Repaired = New.Repaired;
    Slot->FirstTs = New.FirstTs;
    Slot->LastTs = New.LastTs;
    Slot->Flags = New.Flags;
    Slot->Dropped = New.Dropped;
    Slot->Checksum = New.Checksum;

    __atomic_store_n(&Slot->Sequence, Sequence, __ATOMIC_RELEASE);

    Store->Sequence = Sequence;
    Store->Snapshot.Sequence = Sequence;
    Store->Snapshot.RecordCount = RecordCount;
    Store->Snapshot.Capacity = Capacity;
    Store->Snapshot.Generation = Store->Generation;
    Store->Snapshot.FirstTs = Store->FirstTs;
    Store->Snapshot.LastTs = Store->LastTs;
    Store->Snapshot.Flags = Store->SlotFlags;
    Store->Snapshot.Dropped = Store->Dropped;
    Store->Snapshot.Repaired = Store->Repaired;
}

static
VOID
DiscardBehind(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    Drops the mapping of records that lie more than STORE_DISCARD_LAG
    bytes behind the last reserved one, in steps of at least half of
    TRACE_DISCARD_BEHIND, if the store asks for it, and starts writing
    them back.  The records stay in the file and the page cache, so this
    includes reserved records that are not committed yet (a KVM exit or a
    span waiting for its end): a later write to one faults its page back
    in from the page cache.

    The lag is short (512 KB) so that most of a store of a few megabytes
    (a fresh capture's) is written back during the import, unmapped, and
    close waits for little; the steps are long so that a large import
    makes few such calls.

--*/
{
    ULONGLONG Reserved = Store->ReservedCount * Store->RecordSize;
    ULONGLONG Until;

    if (!Store->DiscardBehind ||
        Reserved < Store->DiscardedBytes + STORE_DISCARD_LAG +
                   TRACE_DISCARD_BEHIND / 2) {
        return;
    }

    //
    // With LargePages, whole large pages only: the kernel maps a large
    // page of a file whole where it can (one PMD), and unmapping part of
    // it unmaps all of it, the pages the writer is filling too, which it
    // then faults in again, a large page at a time.
    //

    Until = Reserved - STORE_DISCARD_LAG;
    if (Store->LargePages) {
        ULONGLONG End = ALIGN_DOWN(TRACE_STORE_HEADER_SIZE + Until,
                                   TRACE_LARGE_PAGE);
        if (End <= TRACE_STORE_HEADER_SIZE + Store->DiscardedBytes) {
            return;
        }
        Until = End - TRACE_STORE_HEADER_SIZE;
    }

    Store->Rtl->DiscardMemory(Store->Rtl, Store->Base + Store->DiscardedBytes,
                              (SIZE_T)(Until - Store->DiscardedBytes));

    //
    // Start writing them to disk now (on a worker, if the edge has one)
    // rather than all at close: unmapped, they need no write-protecting.
    // A record still open (not committed) is simply written again when it
    // changes.
    //

    Store->Rtl->WriteBackAsync(Store->Rtl, Store->FileHandle,
                               TRACE_STORE_HEADER_SIZE +
                               Store->DiscardedBytes,
                               Until - Store->DiscardedBytes);
    Store->DiscardedBytes = Until;
}

static
VOID
ScanTimestamps(
    PTRACE_STORE Store,
    const BYTE *Field,
    ULONGLONG Index,
    ULONGLONG Stop,
    PBOOL Sorted,
    PLONGLONG Previous,
    PLONGLONG Minimum,
    PLONGLONG Maximum
    )
/*++

Routine Description:

    Folds the ts of records [Index, Stop) into the sorted flag and the
    minimum and maximum.  Sorted means every ts is at least the one before
    it (the last committed record's, across commits).  Each iteration's
    compares are independent of the previous iteration's results, so the
    loads of a just-written batch overlap instead of forming one
    dependency chain through a running maximum.

--*/
{
    ULONG Size = Store->RecordSize;
    LONGLONG Last = *Previous;
    LONGLONG Low = *Minimum;
    LONGLONG High = *Maximum;
    ULONGLONG Descents = 0;
    ULONGLONG Start = Index;

    //
    // Fast path while the store is sorted: one load and one compare per
    // record; the last ts is then the maximum.
    //

    if (*Sorted) {
        for (; Index < Stop; Index++) {
            LONGLONG Ts;
            __builtin_memcpy(&Ts, Field + Index * Size, sizeof(Ts));
            Descents |= (ULONGLONG)(Ts < Last);
            Last = Ts;
        }

        if (Descents == 0) {
            *Previous = Last;
            *Maximum = (Last > High) ? Last : High;
            return;
        }

        Index = Start;
        Last = *Previous;
        *Sorted = FALSE;
    }

    for (; Index < Stop; Index++) {
        LONGLONG Ts;
        __builtin_memcpy(&Ts, Field + Index * Size, sizeof(Ts));
        Low = (Ts < Low) ? Ts : Low;
        High = (Ts > High) ? Ts : High;
        Last = Ts;
    }

    *Previous = Last;
    *Minimum = Low;
    *Maximum = High;
}

RTL_STATUS
TraceStoreCommit(
    PTRACE_STORE Store,
    ULONGLONG Count
    )
/*++

Routine Description:

    Publishes the first Count reserved records.  Updates the first/last ts
    and the sorted flag from the newly committed records, then writes the
    commit slot (TraceStorePublishSlot).

Arguments:

    Store - Supplies the writer's store.

    Count - Supplies the number of records to commit, or TRACE_COMMIT_ALL
        for every reserved record below CommitLimit.

Return Value:

    RTL_STATUS_OK, or RTL_STATUS_INVALID_PARAMETER if Count exceeds what
    was reserved.

--*/
{
    ULONGLONG Index;

    if (!Store->Writable) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Count == TRACE_COMMIT_ALL) {
        Count = Store->ReservedCount;
        if (Count > Store->CommitLimit) {
            Count = Store->CommitLimit;
        }
    }

    if (Count > Store->ReservedCount) {
        return RTL_STATUS_INVALID_PARAMETER;
    }

    if (Count < Store->CommittedCount) {
        Count = Store->CommittedCount;
    }

    DiscardBehind(Store);

    if (Count == Store->Snapshot.RecordCount &&
        Store->Capacity == Store->Snapshot.Capacity &&
        Store->Dropped == Store->Snapshot.Dropped &&
        Store->Repaired == Store->Snapshot.Repaired) {
        return RTL_STATUS_OK;
    }

    if (Store->TimestampOffset != TRACE_NO_COLUMN &&
        Count > Store->CommittedCount) {
        const BYTE *Field = Store->Base + Store->TimestampOffset;
        ULONGLONG Window = ~0ULL;
        ULONGLONG Stop;
        LONGLONG Previous;
        LONGLONG Minimum;
        LONGLONG Maximum;
        BOOL Sorted = (Store->SlotFlags & TRACE_SLOT_SORTED) != 0;

        Index = Store->CommittedCount;
        __builtin_memcpy(&Previous,
                         Field + (Index ? Index - 1 : 0) * Store->RecordSize,
                         sizeof(Previous));
        Minimum = Index ? Store->FirstTs : Previous;
        Maximum = Index ? Store->LastTs : Previous;

        //
        // A store that unmaps behind its writer is scanned a window at a
        // time, and each window that lies in the unmapped part is unmapped
        // again after the scan faulted it in (records held back for a long
        // time, e.g. spans that stayed open, commit in one large batch).
        //

        if (Store->DiscardBehind) {
            Window = TRACE_DISCARD_BEHIND / Store->RecordSize + 1;
        }

        for (; Index < Count; Index = Stop) {
            Stop = (Count - Index > Window) ? Index + Window : Count;
            ScanTimestamps(Store, Field, Index, Stop, &Sorted, &Previous,
                           &Minimum, &Maximum);
            if (Stop * Store->RecordSize <= Store->DiscardedBytes) {
                Store->Rtl->DiscardMemory(Store->Rtl,
                                          Store->Base +
                                          Index * Store->RecordSize,
                                          (SIZE_T)((Stop - Index) *
                                                   Store->RecordSize));
            }
        }

        if (!Sorted) {
            Store->SlotFlags &= ~TRACE_SLOT_SORTED;
        }
        Store->FirstTs = Minimum;
        Store->LastTs = Maximum;
    }

    Store->CommittedCount = Count;
    TraceStorePublishSlot(Store, Count, Store->Capacity);

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStoreCommitTracked(
    PTRACE_STORE Store,
    PTRACE_TS_TRACKER Tracker
    )
/*++

Routine Description:

    Commits the records a TRACE_TS_TRACKER describes, taking the first/last
    ts and order from the tracker instead of reading the records back.

Arguments:

    Store - Supplies the writer's store.

    Tracker - Supplies the tracker filled while writing the records; it is
        reset on return.

Return Value:

    As TraceStoreCommit.

--*/
{
    ULONGLONG Count = Store->CommittedCount + Tracker->Count;
    TRACE_TS_TRACKER Empty = TRACE_TS_TRACKER_INIT;

    if (!Store->Writable || Store->TimestampOffset == TRACE_NO_COLUMN ||
        Tracker->Count == 0 || Count != Store->ReservedCount ||
        Count > Store->CommitLimit) {
        *Tracker = Empty;
        return TraceStoreCommit(Store, TRACE_COMMIT_ALL);
    }

    if (Store->CommittedCount == 0) {
        Store->FirstTs = Tracker->MinimumTs;
        Store->LastTs = Tracker->MaximumTs;
    } else {
        //
        // The batch continues the order if it is in order itself and its
        // smallest (that is, first) ts is not below the largest so far.
        //

        if (Tracker->MinimumTs < Store->LastTs) {
            Store->SlotFlags &= ~TRACE_SLOT_SORTED;
        }
        if (Tracker->MinimumTs < Store->FirstTs) {
            Store->FirstTs = Tracker->MinimumTs;
        }
        if (Tracker->MaximumTs > Store->LastTs) {
            Store->LastTs = Tracker->MaximumTs;
        }
    }

    if (Tracker->Descents != 0) {
        Store->SlotFlags &= ~TRACE_SLOT_SORTED;
    }

    *Tracker = Empty;
    Store->CommittedCount = Count;
    TraceStorePublishSlot(Store, Count, Store->Capacity);
    DiscardBehind(Store);

    return RTL_STATUS_OK;
}

VOID
TraceStoreAddDropped(
    PTRACE_STORE Store,
    ULONG Count
    )
{
    Store->Dropped += Count;
}

VOID
TraceStoreAddRepaired(
    PTRACE_STORE Store,
    ULONG Count
    )
{
    Store->Repaired += Count;
}
