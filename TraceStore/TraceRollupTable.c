/*++

Module Name:

    TraceRollupTable.c

Abstract:

    This module implements the keyed tables of a rollup
    (TraceRollupInternal.h): arrays of fixed-size entries in the order
    they were added, each keyed by its first 16 bytes, with an open-
    addressing index, over pages from Rtl->AllocatePages; and a radix
    sort of key/value pairs for ordering answers.

Environment:

    Core: no C runtime; memory only through PRTL.  Called by the other
    rollup files; calls nothing but the RTL.

--*/

#include "TraceStore/TraceRollupInternal.h"

#define INITIAL_ENTRIES 64

static inline
ULONGLONG
RollupHash(
    ULONGLONG Key0,
    ULONGLONG Key1
    )
{
    ULONGLONG Hash;

    Hash = Key0 * 0x9E3779B97F4A7C15ULL;
    Hash ^= (Key1 + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    Hash ^= Hash >> 31;
    Hash *= 0xD6E8FEB86659FD93ULL;
    Hash ^= Hash >> 32;
    return Hash;
}

VOID
RollupTableInitialize(
    PROLLUP_TABLE Table,
    ULONG EntrySize,
    BOOL Indexed
    )
{
    Table->EntrySize = EntrySize;
    Table->Indexed = Indexed;
    Table->Count = 0;
    Table->Capacity = 0;
    Table->Entries = NULL;
    Table->EntriesBytes = 0;
    Table->Slots = NULL;
    Table->SlotMask = 0;
    Table->SlotsBytes = 0;
}

VOID
RollupTableFree(
    PRTL Rtl,
    PROLLUP_TABLE Table
    )
{
    if (Table->Entries != NULL) {
        Rtl->Unmap(Rtl, Table->Entries, Table->EntriesBytes);
    }
    if (Table->Slots != NULL) {
        Rtl->Unmap(Rtl, Table->Slots, Table->SlotsBytes);
    }
    RollupTableInitialize(Table, Table->EntrySize, Table->Indexed);
}

VOID
RollupTableReset(
    PROLLUP_TABLE Table
    )
/*++

Routine Description:

    Empties the table, keeping its memory.

--*/
{
    ULONGLONG Slot;

    Table->Count = 0;
    if (Table->Slots != NULL) {
        for (Slot = 0; Slot <= Table->SlotMask; Slot++) {
            Table->Slots[Slot] = 0;
        }
    }
}

static
BOOL
GrowEntries(
    PRTL Rtl,
    PROLLUP_TABLE Table
    )
{
    ULONGLONG Capacity;
    SIZE_T Bytes;
    PVOID Entries;

    Capacity = Table->Capacity ? Table->Capacity * 2 : INITIAL_ENTRIES;
    if (Capacity >= 0xffffffffULL) {
        return FALSE;
    }

    Bytes = (SIZE_T)ALIGN_UP(Capacity * Table->EntrySize, RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Entries))) {
        return FALSE;
    }

    if (Table->Entries != NULL) {
        Rtl->CopyMemory(Entries, Table->Entries,
                        (SIZE_T)(Table->Count * Table->EntrySize));
        Rtl->Unmap(Rtl, Table->Entries, Table->EntriesBytes);
    }

    Table->Entries = Entries;
    Table->EntriesBytes = Bytes;
    Table->Capacity = Bytes / Table->EntrySize;
    return TRUE;
}

static
VOID
IndexEntry(
    PROLLUP_TABLE Table,
    ULONGLONG Index
    )
{
    PROLLUP_KEY Key = (PROLLUP_KEY)RollupTableEntry(Table, Index);
    ULONGLONG Slot = RollupHash(Key->Key0, Key->Key1) & Table->SlotMask;

    while (Table->Slots[Slot] != 0) {
        Slot = (Slot + 1) & Table->SlotMask;
    }
    Table->Slots[Slot] = (ULONG)(Index + 1);
}

static
BOOL
ResizeSlots(
    PRTL Rtl,
    PROLLUP_TABLE Table,
    ULONGLONG Needed
    )
/*++

Routine Description:

    Gives the table an empty index with room for Needed entries at a load
    of at most one half.  The caller indexes the entries.

--*/
{
    ULONGLONG Slots = 16;
    SIZE_T Bytes;
    PVOID Memory;

    while (Slots < Needed * 2) {
        Slots *= 2;
    }

    Bytes = (SIZE_T)ALIGN_UP(Slots * sizeof(ULONG), RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Memory))) {
        return FALSE;
    }

    if (Table->Slots != NULL) {
        Rtl->Unmap(Rtl, Table->Slots, Table->SlotsBytes);
    }

    Table->Slots = Memory;
    Table->SlotsBytes = Bytes;
    Table->SlotMask = Bytes / sizeof(ULONG) - 1;
    return TRUE;
}

PVOID
RollupTableFind(
    PROLLUP_TABLE Table,
    ULONGLONG Key0,
    ULONGLONG Key1
    )
{
    ULONGLONG Slot;
    ULONG Value;
    PROLLUP_KEY Key;

    if (Table->Slots == NULL) {
        return NULL;
    }

    Slot = RollupHash(Key0, Key1) & Table->SlotMask;
    for (;;) {
        Value = Table->Slots[Slot];
        if (Value == 0) {
            return NULL;
        }
        Key = (PROLLUP_KEY)RollupTableEntry(Table, Value - 1);
        if (Key->Key0 == Key0 && Key->Key1 == Key1) {
            return Key;
        }
        Slot = (Slot + 1) & Table->SlotMask;
    }
}

PVOID
RollupTableAppend(
    PRTL Rtl,
    PROLLUP_TABLE Table
    )
{
    PVOID Entry;

    if (Table->Count == Table->Capacity && !GrowEntries(Rtl, Table)) {
        return NULL;
    }

    Entry = RollupTableEntry(Table, Table->Count);
    Rtl->FillMemory(Entry, Table->EntrySize, 0);
    Table->Count++;
    return Entry;
}

PVOID
RollupTableInsert(
    PRTL Rtl,
    PROLLUP_TABLE Table,
    ULONGLONG Key0,
    ULONGLONG Key1,
    PBOOL Added
    )
{
    PROLLUP_KEY Key;

    Key = RollupTableFind(Table, Key0, Key1);
    if (Key != NULL) {
        *Added = FALSE;
        return Key;
    }

    if (Table->Slots == NULL || (Table->Count + 1) * 2 > Table->SlotMask + 1) {
        ULONGLONG Index;

        if (!ResizeSlots(Rtl, Table, Table->Count + 1)) {
            return NULL;
        }
        for (Index = 0; Index < Table->Count; Index++) {
            IndexEntry(Table, Index);
        }
    }

    Key = RollupTableAppend(Rtl, Table);
    if (Key == NULL) {
        return NULL;
    }

    Key->Key0 = Key0;
    Key->Key1 = Key1;
    IndexEntry(Table, Table->Count - 1);
    *Added = TRUE;
    return Key;
}

BOOL
RollupTableReindex(
    PRTL Rtl,
    PROLLUP_TABLE Table
    )
{
    ULONGLONG Index;
    PROLLUP_KEY Key;

    if (!Table->Indexed) {
        return TRUE;
    }

    if (Table->Slots == NULL || Table->Count * 2 > Table->SlotMask + 1) {
        if (!ResizeSlots(Rtl, Table, Table->Count)) {
            return FALSE;
        }
    } else {
        for (Index = 0; Index <= Table->SlotMask; Index++) {
            Table->Slots[Index] = 0;
        }
    }

    for (Index = 0; Index < Table->Count; Index++) {
        Key = (PROLLUP_KEY)RollupTableEntry(Table, Index);
        if (RollupTableFind(Table, Key->Key0, Key->Key1) != NULL) {
            return FALSE;
        }
        IndexEntry(Table, Index);
    }

    return TRUE;
}

BOOL
RollupSortPairs(
    PRTL Rtl,
    PULONGLONG Keys,
    PULONGLONG Values,
    ULONGLONG Count
    )
/*++

Routine Description:

    Sorts Count keys, and the values beside them, by key: a least-
    significant-digit radix sort, a byte at a time, skipping the bytes in
    which every key agrees (the histogram's keys differ in three or four
    of them).  Stable.

Return Value:

    FALSE without memory for the second buffers (nothing is sorted).

--*/
{
    ULONGLONG Counts[256];
    PULONGLONG OtherKeys;
    PULONGLONG OtherValues;
    PULONGLONG FromKeys = Keys;
    PULONGLONG FromValues = Values;
    ULONGLONG Index;
    ULONGLONG Total;
    ULONGLONG Differ = 0;
    SIZE_T Bytes;
    ULONG Shift;
    ULONG Digit;

    if (Count < 2) {
        return TRUE;
    }

    for (Index = 1; Index < Count; Index++) {
        Differ |= Keys[Index] ^ Keys[0];
    }
    if (Differ == 0) {
        return TRUE;
    }

    Bytes = (SIZE_T)ALIGN_UP(Count * sizeof(ULONGLONG) * 2, RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, (PPVOID)&OtherKeys))) {
        return FALSE;
    }
    OtherValues = OtherKeys + Count;

    for (Shift = 0; Shift < 64; Shift += 8) {
        PULONGLONG ToKeys;
        PULONGLONG ToValues;

        if (((Differ >> Shift) & 0xff) == 0) {
            continue;
        }

        for (Digit = 0; Digit < 256; Digit++) {
            Counts[Digit] = 0;
        }
        for (Index = 0; Index < Count; Index++) {
            Counts[(FromKeys[Index] >> Shift) & 0xff]++;
        }
        for (Digit = 0, Total = 0; Digit < 256; Digit++) {
            ULONGLONG Here = Counts[Digit];

            Counts[Digit] = Total;
            Total += Here;
        }

        ToKeys = (FromKeys == Keys) ? OtherKeys : Keys;
        ToValues = (FromKeys == Keys) ? OtherValues : Values;
        for (Index = 0; Index < Count; Index++) {
            ULONGLONG Slot = Counts[(FromKeys[Index] >> Shift) & 0xff]++;

            ToKeys[Slot] = FromKeys[Index];
            ToValues[Slot] = FromValues[Index];
        }
        FromKeys = ToKeys;
        FromValues = ToValues;
    }

    if (FromKeys != Keys) {
        Rtl->CopyMemory(Keys, FromKeys, (SIZE_T)(Count * sizeof(ULONGLONG)));
        Rtl->CopyMemory(Values, FromValues,
                        (SIZE_T)(Count * sizeof(ULONGLONG)));
    }

    Rtl->Unmap(Rtl, OtherKeys, Bytes);
    return TRUE;
}
