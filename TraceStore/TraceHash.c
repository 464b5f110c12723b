/*++

Module Name:

    TraceHash.c

Abstract:

    This module implements a small open-addressing hash table of 64-bit
    keys to 64-bit values, with linear probing and backward-shift deletion
    (no tombstones).  Its memory comes from Rtl->AllocatePages.  Key 0 marks
    an empty slot; callers never insert it (TraceHashInsert maps it to 1,
    which is safe for the uses here: hashes confirmed by comparing bytes,
    and small integer keys offset by one).

Environment:

    Core: no C runtime; the OS only through PRTL (AllocatePages, Unmap
    for the table).  Called by the string store, sessions and the readers
    (their own lookup tables); calls nothing else.

--*/

#include "TraceStore.h"

#define INITIAL_ENTRIES 1024

static
ULONGLONG
NormalizeKey(
    ULONGLONG Key
    )
{
    return (Key == 0) ? 1 : Key;
}

static
ULONGLONG
HomeSlot(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key
    )
{
    //
    // Fibonacci hashing spreads small integer keys; hash keys are already
    // uniform and pass through unharmed.
    //

    return ((Key * 0x9E3779B97F4A7C15ULL) >> 17) & Table->Mask;
}

RTL_STATUS
TraceHashInitialize(
    PRTL Rtl,
    PTRACE_HASH_TABLE Table
    )
{
    RTL_STATUS Status;

    Table->Rtl = Rtl;
    Table->Count = 0;
    Table->Mask = INITIAL_ENTRIES - 1;

    Status = Rtl->AllocatePages(Rtl, INITIAL_ENTRIES * sizeof(TRACE_HASH_ENTRY),
                                (PPVOID)&Table->Entries);
    if (!RTL_SUCCESS(Status)) {
        Table->Entries = NULL;
    }

    return Status;
}

VOID
TraceHashDestroy(
    PTRACE_HASH_TABLE Table
    )
{
    if (Table->Entries != NULL) {
        Table->Rtl->Unmap(Table->Rtl, Table->Entries,
                          (Table->Mask + 1) * sizeof(TRACE_HASH_ENTRY));
        Table->Entries = NULL;
    }
    Table->Count = 0;
}

BOOL
TraceHashFind(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    PULONGLONG Cursor,
    PULONGLONG Value
    )
/*++

Routine Description:

    Finds the next entry for Key.  *Cursor counts probes from the key's
    home slot; start at zero and pass the same cursor back to continue
    with the next duplicate.

--*/
{
    ULONGLONG Probe;

    if (Table->Entries == NULL) {
        return FALSE;
    }

    Key = NormalizeKey(Key);

    for (Probe = *Cursor; Probe <= Table->Mask; Probe++) {
        PTRACE_HASH_ENTRY Entry;
        Entry = &Table->Entries[(HomeSlot(Table, Key) + Probe) & Table->Mask];
        if (Entry->Key == 0) {
            break;
        }
        if (Entry->Key == Key) {
            *Cursor = Probe + 1;
            *Value = Entry->Value;
            return TRUE;
        }
    }

    *Cursor = Table->Mask + 1;
    return FALSE;
}

PTRACE_HASH_ENTRY
TraceHashLookup(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key
    )
{
    ULONGLONG Slot;

    if (Table->Entries == NULL) {
        return NULL;
    }

    Key = NormalizeKey(Key);
    Slot = HomeSlot(Table, Key);

    //
    // The table is never full (load factor at most one half), so the probe
    // run ends at an empty slot.
    //

    while (Table->Entries[Slot].Key != 0) {
        if (Table->Entries[Slot].Key == Key) {
            return &Table->Entries[Slot];
        }
        Slot = (Slot + 1) & Table->Mask;
    }

    return NULL;
}

static
VOID
InsertNoGrow(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    ULONGLONG Value
    )
{
    ULONGLONG Slot = HomeSlot(Table, Key);

    while (Table->Entries[Slot].Key != 0) {
        Slot = (Slot + 1) & Table->Mask;
    }

    Table->Entries[Slot].Key = Key;
    Table->Entries[Slot].Value = Value;
    Table->Count++;
}

RTL_STATUS
TraceHashInsert(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    ULONGLONG Value
    )
{
    PRTL Rtl = Table->Rtl;
    RTL_STATUS Status;

    if (Table->Entries == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    //
    // Keep the load factor at or below one half.
    //

    if ((Table->Count + 1) * 2 > Table->Mask + 1) {
        TRACE_HASH_TABLE Larger;
        ULONGLONG Entries = (Table->Mask + 1) * 2;
        ULONGLONG Index;

        Larger.Rtl = Rtl;
        Larger.Count = 0;
        Larger.Mask = Entries - 1;
        Status = Rtl->AllocatePages(Rtl, Entries * sizeof(TRACE_HASH_ENTRY),
                                    (PPVOID)&Larger.Entries);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        for (Index = 0; Index <= Table->Mask; Index++) {
            if (Table->Entries[Index].Key != 0) {
                InsertNoGrow(&Larger, Table->Entries[Index].Key,
                             Table->Entries[Index].Value);
            }
        }

        TraceHashDestroy(Table);
        *Table = Larger;
    }

    InsertNoGrow(Table, NormalizeKey(Key), Value);

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceHashSet(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    ULONGLONG Value
    )
{
    ULONGLONG Probe;

    if (Table->Entries == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    Key = NormalizeKey(Key);

    for (Probe = 0; Probe <= Table->Mask; Probe++) {
        PTRACE_HASH_ENTRY Entry;
        Entry = &Table->Entries[(HomeSlot(Table, Key) + Probe) & Table->Mask];
        if (Entry->Key == 0) {
            break;
        }
        if (Entry->Key == Key) {
            Entry->Value = Value;
            return RTL_STATUS_OK;
        }
    }

    return TraceHashInsert(Table, Key, Value);
}

BOOL
TraceHashRemove(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key
    )
/*++

Routine Description:

    Removes the first entry for Key, then shifts later entries of the
    probe run back so that no lookup stops early at the hole.

--*/
{
    ULONGLONG Hole;
    ULONGLONG Next;
    ULONGLONG Probe;

    if (Table->Entries == NULL) {
        return FALSE;
    }

    Key = NormalizeKey(Key);

    for (Probe = 0; Probe <= Table->Mask; Probe++) {
        Hole = (HomeSlot(Table, Key) + Probe) & Table->Mask;
        if (Table->Entries[Hole].Key == 0) {
            return FALSE;
        }
        if (Table->Entries[Hole].Key == Key) {
            goto Found;
        }
    }

    return FALSE;

Found:
    Next = Hole;
    for (;;) {
        ULONGLONG Home;

        Next = (Next + 1) & Table->Mask;
        if (Table->Entries[Next].Key == 0) {
            break;
        }

        //
        // The entry at Next may move into the hole only if its home slot is
        // not cyclically within (Hole, Next].
        //

        Home = HomeSlot(Table, Table->Entries[Next].Key);
        if (((Next - Home) & Table->Mask) >= ((Next - Hole) & Table->Mask)) {
            Table->Entries[Hole] = Table->Entries[Next];
            Hole = Next;
        }
    }

    Table->Entries[Hole].Key = 0;
    Table->Entries[Hole].Value = 0;
    Table->Count--;

    return TRUE;
}
