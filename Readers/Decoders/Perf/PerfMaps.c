/*++

Module Name:

    PerfMaps.c

Abstract:

    The processes' memory maps of a perf recording (PerfMaps.h).

Environment:

    Core: no C runtime; memory through PRTL.  Called by PerfScript.c.

--*/

#include "PerfMaps.h"

VOID
PerfMapsInitialize(
    PPERF_MAPS Maps,
    PRTL Rtl
    )
{
    Maps->Rtl = Rtl;
    Maps->Entries = NULL;
    Maps->Count = 0;
    Maps->Capacity = 0;
}

VOID
PerfMapsFree(
    PPERF_MAPS Maps
    )
{
    if (Maps->Entries != NULL) {
        Maps->Rtl->Unmap(Maps->Rtl, Maps->Entries,
                         (SIZE_T)(Maps->Capacity * sizeof(PERF_MAPPING)));
    }
    PerfMapsInitialize(Maps, Maps->Rtl);
}

static
BOOL
Before(
    const PERF_MAPPING *Entry,
    ULONG Pid,
    ULONGLONG Start
    )
{
    return Entry->Pid < Pid || (Entry->Pid == Pid && Entry->Start < Start);
}

static
ULONGLONG
LowerBound(
    const PERF_MAPS *Maps,
    ULONG Pid,
    ULONGLONG Start
    )
/*++

Routine Description:

    The index of the first entry at or after (Pid, Start).

--*/
{
    ULONGLONG Low = 0;
    ULONGLONG High = Maps->Count;

    while (Low < High) {
        ULONGLONG Middle = Low + (High - Low) / 2;

        if (Before(&Maps->Entries[Middle], Pid, Start)) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }
    return Low;
}

static
RTL_STATUS
Reserve(
    PPERF_MAPS Maps,
    ULONGLONG Extra
    )
{
    PRTL Rtl = Maps->Rtl;
    PPERF_MAPPING Entries;
    ULONGLONG Capacity;
    RTL_STATUS Status;

    if (Maps->Count + Extra <= Maps->Capacity) {
        return RTL_STATUS_OK;
    }

    Capacity = Maps->Capacity ? Maps->Capacity * 2 : 256;
    while (Capacity < Maps->Count + Extra) {
        Capacity *= 2;
    }
    Status = Rtl->AllocatePages(Rtl, (SIZE_T)(Capacity * sizeof(PERF_MAPPING)),
                                (PPVOID)&Entries);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Maps->Entries != NULL) {
        Rtl->CopyMemory(Entries, Maps->Entries,
                        (SIZE_T)(Maps->Count * sizeof(PERF_MAPPING)));
        Rtl->Unmap(Rtl, Maps->Entries,
                   (SIZE_T)(Maps->Capacity * sizeof(PERF_MAPPING)));
    }
    Maps->Entries = Entries;
    Maps->Capacity = Capacity;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
InsertAt(
    PPERF_MAPS Maps,
    ULONGLONG Index,
    const PERF_MAPPING *Mapping
    )
{
    RTL_STATUS Status = Reserve(Maps, 1);

    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Index < Maps->Count) {
        __builtin_memmove(&Maps->Entries[Index + 1], &Maps->Entries[Index],
                          (SIZE_T)((Maps->Count - Index) *
                                   sizeof(PERF_MAPPING)));
    }
    Maps->Entries[Index] = *Mapping;
    Maps->Count++;
    return RTL_STATUS_OK;
}

static
VOID
RemoveRange(
    PPERF_MAPS Maps,
    ULONGLONG First,
    ULONGLONG Count
    )
{
    if (Count == 0) {
        return;
    }
    __builtin_memmove(&Maps->Entries[First], &Maps->Entries[First + Count],
                      (SIZE_T)((Maps->Count - First - Count) *
                               sizeof(PERF_MAPPING)));
    Maps->Count -= Count;
}

RTL_STATUS
PerfMapsAdd(
    PPERF_MAPS Maps,
    const PERF_MAPPING *Mapping
    )
/*++

Routine Description:

    Adds Mapping, cutting out of its process's mappings the range it
    covers: an earlier mapping wholly inside goes, one that overlaps an
    end is trimmed (its file offset moving with its start), one that holds
    it all is split in two.

--*/
{
    ULONG Pid = Mapping->Pid;
    ULONGLONG Index;
    RTL_STATUS Status;

    if (Mapping->End <= Mapping->Start) {
        return RTL_STATUS_OK;
    }

    //
    // The mapping before the new one's start may reach into it.
    //

    Index = LowerBound(Maps, Pid, Mapping->Start);
    if (Index > 0 && Maps->Entries[Index - 1].Pid == Pid &&
        Maps->Entries[Index - 1].End > Mapping->Start) {
        PPERF_MAPPING Left = &Maps->Entries[Index - 1];

        if (Left->End > Mapping->End) {
            PERF_MAPPING Right = *Left;

            Right.Offset += Mapping->End - Left->Start;
            Right.Start = Mapping->End;
            Status = InsertAt(Maps, Index, &Right);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Left = &Maps->Entries[Index - 1];
        }
        Left->End = Mapping->Start;
    }

    //
    // Those starting inside it: gone, or trimmed at its end.
    //

    {
        ULONGLONG Last = Index;

        while (Last < Maps->Count && Maps->Entries[Last].Pid == Pid &&
               Maps->Entries[Last].Start < Mapping->End &&
               Maps->Entries[Last].End <= Mapping->End) {
            Last++;
        }
        RemoveRange(Maps, Index, Last - Index);
        if (Index < Maps->Count && Maps->Entries[Index].Pid == Pid &&
            Maps->Entries[Index].Start < Mapping->End) {
            PPERF_MAPPING Next = &Maps->Entries[Index];

            Next->Offset += Mapping->End - Next->Start;
            Next->Start = Mapping->End;
        }
    }

    return InsertAt(Maps, Index, Mapping);
}

VOID
PerfMapsDropPid(
    PPERF_MAPS Maps,
    ULONG Pid
    )
{
    ULONGLONG First = LowerBound(Maps, Pid, 0);
    ULONGLONG Last = First;

    while (Last < Maps->Count && Maps->Entries[Last].Pid == Pid) {
        Last++;
    }
    RemoveRange(Maps, First, Last - First);
}

RTL_STATUS
PerfMapsCopyPid(
    PPERF_MAPS Maps,
    ULONG Parent,
    ULONG Child
    )
/*++

Routine Description:

    A forked Child starts with Parent's mappings (its own earlier ones, a
    reused pid's, are dropped).

--*/
{
    ULONGLONG First;
    ULONGLONG Count = 0;
    ULONGLONG Index;
    RTL_STATUS Status;

    if (Parent == Child) {
        return RTL_STATUS_OK;
    }
    PerfMapsDropPid(Maps, Child);
    First = LowerBound(Maps, Parent, 0);
    while (First + Count < Maps->Count &&
           Maps->Entries[First + Count].Pid == Parent) {
        Count++;
    }
    Status = Reserve(Maps, Count);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    First = LowerBound(Maps, Parent, 0);
    for (Index = 0; Index < Count; Index++) {
        PERF_MAPPING Copy = Maps->Entries[First + Index];
        ULONGLONG At;

        Copy.Pid = Child;
        At = LowerBound(Maps, Child, Copy.Start);
        Status = InsertAt(Maps, At, &Copy);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (At <= First) {
            First++;
        }
    }
    return RTL_STATUS_OK;
}

static
const PERF_MAPPING *
FindIn(
    const PERF_MAPS *Maps,
    ULONG Pid,
    ULONGLONG Address
    )
{
    ULONGLONG Index;

    if (Address == ~0ULL) {
        return NULL;
    }
    Index = LowerBound(Maps, Pid, Address + 1);
    if (Index == 0) {
        return NULL;
    }
    Index--;
    if (Maps->Entries[Index].Pid != Pid ||
        Address >= Maps->Entries[Index].End) {
        return NULL;
    }
    return &Maps->Entries[Index];
}

const PERF_MAPPING *
PerfMapsFind(
    const PERF_MAPS *Maps,
    ULONG Pid,
    ULONGLONG Address
    )
{
    const PERF_MAPPING *Mapping = FindIn(Maps, Pid, Address);

    return (Mapping != NULL) ? Mapping :
                               FindIn(Maps, PERF_MAPS_KERNEL, Address);
}

VOID
PerfMapsPlace(
    const PERF_MAPS *Maps,
    ULONG Pid,
    ULONGLONG Address,
    PULONG ModuleId,
    PULONGLONG ModuleOffset,
    PULONG Code
    )
{
    const PERF_MAPPING *Mapping;

    if (Address == TRACE_NULL_ULONGLONG || Pid == TRACE_NULL_ULONG) {
        return;
    }
    Mapping = PerfMapsFind(Maps, Pid, Address);
    if (Mapping == NULL) {
        return;
    }
    if (*ModuleId == TRACE_STRING_NULL) {
        *ModuleId = Mapping->PathId;
    }
    *ModuleOffset = Address - Mapping->Start + Mapping->Offset;
    if (Code != NULL) {
        *Code = Mapping->Exec ? 1 : 0;
    }
}

VOID
PerfMapsModuleRow(
    const PERF_MAPPING *Mapping,
    LONGLONG Timestamp,
    PMODULE_RECORD Module
    )
{
    Module->Timestamp = Timestamp;
    Module->Start = Mapping->Start;
    Module->End = Mapping->End;
    Module->Offset = Mapping->Offset;
    Module->Pid = (Mapping->Pid == PERF_MAPS_KERNEL) ? TRACE_NULL_ULONG :
                                                       Mapping->Pid;
    Module->PathId = Mapping->PathId;
    Module->BuildIdId = TRACE_STRING_NULL;
}
