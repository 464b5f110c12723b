/*++

Module Name:

    ImportFaults.c

Abstract:

    This module classifies page faults as hard (major) or soft (minor) when
    the producer sees the kernel's own count of each fault after the fault
    event (the live recorder: perf's major-faults and minor-faults software
    events, which the kernel emits in mm_account_fault exactly where it
    counts the fault for getrusage).

    A fault event is appended with hard NULL and remembered per thread
    (a thread has at most one fault in progress); the count that follows
    on that thread, for the same page, fills in hard and fault_kind.  A
    fault whose thread faults again, exits, or reaches the end of the
    exits without a count was not counted by the kernel (a SIGSEGV or
    SIGBUS: bad address, protection, VM_FAULT_ERROR): fault_kind
    access_violation, hard NULL; unless counts were lost, when nothing is
    said (nor at the end of the recording: the fault may be in progress).  Commits of the page_fault store stop short of the oldest fault
    still waiting (Store->CommitLimit), so readers never see a record
    change.  The rule is in docs/sql.md, "Page-fault classes".

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by FtraceRecord.c
    (the fault events), the live recorder (the counts, a thread's exit)
    and ImportRun.c (commit limit, end); calls ImportSinks.c and the store
    API through ImportInternal.h.

--*/

#include "TraceImport.h"
#include "ImportInternal.h"

//
// A pending entry's value: the record index, and the mapping's
// TRACE_MAPPING_* flags in the top byte.
//

#define PENDING_INDEX_MASK  0x00ffffffffffffffull
#define PENDING_FLAGS_SHIFT 56

static const PCSZ FaultKindNames[TraceFaultKindMaximum] = {
    "file", "swap", "page_cache", "demand_zero", "copy_on_write",
    "access_violation",
};

VOID
TraceImportPageFaultUnclassified(
    PPAGE_FAULT_RECORD Record
    )
/*++

Routine Description:

    Sets the columns a source may not know (hard, fault_kind, the module
    offsets, code) to NULL; the caller then fills what it knows.

--*/
{
    Record->Hard = TRACE_NULL_ULONG;
    Record->FaultKindId = TRACE_NULL_ULONG;
    Record->ModuleOffset = TRACE_NULL_ULONGLONG;
    Record->IpModuleOffset = TRACE_NULL_ULONGLONG;
    Record->Code = TRACE_NULL_ULONG;
}

static
TRACE_FAULT_KIND
FaultKind(
    PPAGE_FAULT_RECORD Record,
    ULONG Flags,
    ULONG Hard
    )
/*++

Routine Description:

    The kind of a counted fault (docs/sql.md, "Page-fault classes"), or
    TraceFaultKindMaximum when it cannot be told.

--*/
{
    BOOL File = (Flags & TRACE_MAPPING_FILE) != 0;

    if (!(Flags & TRACE_MAPPING_KNOWN)) {
        return TraceFaultKindMaximum;
    }
    if (Hard) {
        return File ? TraceFaultFile : TraceFaultSwap;
    }
    if (Record->ErrorCode == TRACE_NULL_ULONG) {
        return TraceFaultKindMaximum;
    }

    //
    // x86 error code: bit 0 the page was present, bit 1 a write.
    //

    if ((Record->ErrorCode & 3) == 3 && (Flags & TRACE_MAPPING_PRIVATE)) {
        return TraceFaultCopyOnWrite;
    }
    if (!(Record->ErrorCode & 1)) {
        return File ? TraceFaultPageCache : TraceFaultDemandZero;
    }
    return TraceFaultKindMaximum;
}

RTL_STATUS
TraceImportFaultKindId(
    PTRACE_IMPORT Import,
    TRACE_FAULT_KIND Kind,
    PULONG Id
    )
{
    PCSZ Name;
    ULONG Length;
    RTL_STATUS Status;

    if (Import->FaultKindIds[Kind] == TRACE_NULL_ULONG) {
        Name = FaultKindNames[Kind];
        for (Length = 0; Name[Length] != '\0'; Length++) {
        }
        Status = TraceImportIntern(Import, Name, Length,
                                   &Import->FaultKindIds[Kind]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    *Id = Import->FaultKindIds[Kind];
    return RTL_STATUS_OK;
}

static
RTL_STATUS
SetKind(
    PTRACE_IMPORT Import,
    ULONGLONG Index,
    TRACE_FAULT_KIND Kind,
    ULONG Hard
    )
{
    PTRACE_STORE Store = Import->Stores[TraceRecordPageFault];
    PPAGE_FAULT_RECORD Record;
    ULONG Id;
    RTL_STATUS Status;

    if (Kind != TraceFaultKindMaximum) {
        Status = TraceImportFaultKindId(Import, Kind, &Id);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    //
    // The record is reserved but not yet committed: it may still change.
    //

    Record = (PPAGE_FAULT_RECORD)(Store->Base + Index * Store->RecordSize);
    Record->Hard = Hard;
    if (Kind != TraceFaultKindMaximum) {
        Record->FaultKindId = Id;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ResolveUncounted(
    PTRACE_IMPORT Import,
    PTRACE_HASH_ENTRY Pending
    )
/*++

Routine Description:

    The pending fault of Pending's thread got no count: access_violation,
    unless counts were lost (then it stays unclassified).

--*/
{
    ULONGLONG Index = Pending->Value & PENDING_INDEX_MASK;

    Pending->Value = NO_PENDING_EXIT;
    Import->UncountedFaults++;
    if (Import->LostFaultCounts != 0) {
        return RTL_STATUS_OK;
    }
    return SetKind(Import, Index, TraceFaultAccessViolation,
                   TRACE_NULL_ULONG);
}

RTL_STATUS
TraceImportPageFaultPending(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PPAGE_FAULT_RECORD Record,
    ULONG MappingFlags
    )
{
    PTRACE_HASH_ENTRY Pending;
    ULONGLONG Key = (ULONGLONG)Event->Tid + 1;
    ULONGLONG Index;
    ULONGLONG Value;
    RTL_STATUS Status;

    //
    // Counts are applied in time order with the events: a fault older
    // than the newest count applied arrived late (after later events), and
    // its count may have gone by.  It stays unclassified.
    //

    if (Event->Timestamp < Import->LastFaultCountTs) {
        Import->LateFaults++;
        return TraceImportPageFault(Import, Event, Record);
    }

    Status = TraceImportPageFaultIndexed(Import, Event, Record, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Value = (Index & PENDING_INDEX_MASK) |
            ((ULONGLONG)(MappingFlags & 0xff) << PENDING_FLAGS_SHIFT);

    //
    // A key stays in the table once seen (NO_PENDING_EXIT when nothing
    // waits), so a fault and its count cost one probe each.
    //

    Pending = TraceHashLookup(&Import->PendingFaults, Key);
    if (Pending != NULL) {
        if (Pending->Value != NO_PENDING_EXIT) {
            Status = ResolveUncounted(Import, Pending);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Pending->Value = Value;
        return RTL_STATUS_OK;
    }

    Status = TraceHashInsert(&Import->PendingFaults, Key, Value);
    if (!RTL_SUCCESS(Status)) {
        return TraceImportStoreError(Import,
                                     Import->Stores[TraceRecordPageFault],
                                     Status);
    }
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportPageFaultCounted(
    PTRACE_IMPORT Import,
    ULONG Tid,
    LONGLONG Timestamp,
    ULONGLONG Address,
    ULONG Major
    )
{
    PTRACE_STORE Store = Import->Stores[TraceRecordPageFault];
    PTRACE_HASH_ENTRY Pending;
    PPAGE_FAULT_RECORD Record;
    ULONGLONG Index;
    ULONG Flags;

    if (Timestamp > Import->LastFaultCountTs) {
        Import->LastFaultCountTs = Timestamp;
    }
    Pending = TraceHashLookup(&Import->PendingFaults, (ULONGLONG)Tid + 1);
    if (Pending == NULL || Pending->Value == NO_PENDING_EXIT ||
        Store == NULL) {
        Import->UnmatchedFaultCounts++;
        return RTL_STATUS_OK;
    }

    Index = Pending->Value & PENDING_INDEX_MASK;
    Flags = (ULONG)(Pending->Value >> PENDING_FLAGS_SHIFT);
    Record = (PPAGE_FAULT_RECORD)(Store->Base + Index * Store->RecordSize);

    //
    // The count of another fault (one not recorded: a kernel-mode fault
    // when only page_fault_user is traced, or an event lost) leaves the
    // pending one waiting.
    //

    if (Timestamp < Record->Timestamp ||
        (Record->Address >> 12) != (Address >> 12)) {
        Import->UnmatchedFaultCounts++;
        return RTL_STATUS_OK;
    }

    Pending->Value = NO_PENDING_EXIT;
    return SetKind(Import, Index, FaultKind(Record, Flags, Major != 0),
                   Major != 0);
}

RTL_STATUS
TraceImportPageFaultThreadEnded(
    PTRACE_IMPORT Import,
    ULONG Tid
    )
{
    PTRACE_HASH_ENTRY Pending;

    Pending = TraceHashLookup(&Import->PendingFaults, (ULONGLONG)Tid + 1);
    if (Pending == NULL || Pending->Value == NO_PENDING_EXIT) {
        return RTL_STATUS_OK;
    }
    return ResolveUncounted(Import, Pending);
}

VOID
TraceImportSetFaultCommitLimit(
    PTRACE_IMPORT Import
    )
{
    PTRACE_HASH_TABLE Pending = &Import->PendingFaults;
    ULONGLONG Limit = TRACE_COMMIT_ALL;
    ULONGLONG Index;
    ULONGLONG Value;

    if (Import->Stores[TraceRecordPageFault] == NULL ||
        Pending->Count == 0) {
        return;
    }
    for (Index = 0; Index <= Pending->Mask; Index++) {
        Value = Pending->Entries[Index].Value;
        if (Pending->Entries[Index].Key != 0 && Value != NO_PENDING_EXIT &&
            (Value & PENDING_INDEX_MASK) < Limit) {
            Limit = Value & PENDING_INDEX_MASK;
        }
    }
    Import->Stores[TraceRecordPageFault]->CommitLimit = Limit;
}

VOID
TraceImportPageFaultsEnd(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    At the end of the input: a fault still waiting may have been in
    progress when the recording stopped (a thread that ended has had its
    faults resolved), so it stays unclassified.  Lets every fault be
    committed.

--*/
{
    PTRACE_HASH_TABLE Pending = &Import->PendingFaults;
    ULONGLONG Index;

    if (Pending->Entries != NULL) {
        for (Index = 0; Index <= Pending->Mask; Index++) {
            if (Pending->Entries[Index].Key != 0 &&
                Pending->Entries[Index].Value != NO_PENDING_EXIT) {
                Import->UnresolvedFaults++;
            }
        }
    }
    TraceHashDestroy(Pending);
    if (Import->Stores[TraceRecordPageFault] != NULL) {
        Import->Stores[TraceRecordPageFault]->CommitLimit = TRACE_COMMIT_ALL;
    }
}
