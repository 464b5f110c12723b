/*++

Module Name:

    TraceRollupAnswer.c

Abstract:

    This module implements a reader's answer from a rollup: the latest
    publication of the store's rollup file (or nothing, when it cannot be
    trusted), the records the reader's snapshot holds past it folded on
    top, the open span and line rows added with the dur they have now,
    and the groups merged by the text of their string ids (a string may
    have been stored under several ids: TRACE_STRING_INTERN_LIMIT).  The result is
    a set of row arrays (TRACE_ROLLUP_*_ROW) whose values follow the rules
    of the built-in views' SQL, percentiles included.

Environment:

    Core: no C runtime; the OS only through PRTL (memory, hashing).
    Called by the hosted edges (the SQLite extension's rollup tables, the
    CLI's info and top); calls TraceRollupFile.c, TraceRollupFold.c,
    TraceRollupTable.c, the store's snapshot and the string table.

--*/

#include "TraceStore/TraceRollupInternal.h"

static const ULONG RowSizes[TraceRollupTableMaximum] = {
    [TraceRollupNames] = sizeof(TRACE_ROLLUP_NAME_ROW),
    [TraceRollupRates] = sizeof(TRACE_ROLLUP_RATE_ROW),
    [TraceRollupFaults] = sizeof(TRACE_ROLLUP_FAULT_ROW),
    [TraceRollupKvm] = sizeof(TRACE_ROLLUP_KVM_ROW),
    [TraceRollupKvmBuckets] = 0,
    [TraceRollupSpans] = sizeof(TRACE_ROLLUP_SPAN_ROW),
    [TraceRollupSpanKeys] = 0,
    [TraceRollupSpanOpen] = sizeof(ULONGLONG),
    [TraceRollupSyscalls] = sizeof(TRACE_ROLLUP_SYSCALL_ROW),
    [TraceRollupLines] = sizeof(TRACE_ROLLUP_LINE_ROW),
};

static
PVOID
AllocateRows(
    PTRACE_ROLLUP Rollup,
    TRACE_ROLLUP_TABLE_ID Table,
    ULONGLONG Count
    )
{
    PRTL Rtl = Rollup->Rtl;
    SIZE_T Bytes;
    PVOID Rows;

    if (Count == 0) {
        Rollup->RowCounts[Table] = 0;
        return (PVOID)Rollup;       // any non-NULL address: nothing is read
    }

    Bytes = (SIZE_T)ALIGN_UP(Count * RowSizes[Table], RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, &Rows))) {
        return NULL;
    }

    Rollup->Rows[Table] = Rows;
    Rollup->RowBytes[Table] = Bytes;
    Rollup->RowCounts[Table] = Count;
    return Rows;
}

//
// ---------------------------------------------------------------------------
// One id per text.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
CanonicalId(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Id,
    ULONGLONG Row,
    PCSZ Column,
    ULONG Offset,
    PULONGLONG Canonical
    )
/*++

Routine Description:

    The smallest-numbered id whose text was met first among the ids of
    Id's text: the one id the answer's groups are keyed by.  Fails with an
    error naming Row's field when Id has no text.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_CLASS_ENTRY Known;
    PROLLUP_CLASS_ENTRY Text;
    PCSZ Bytes;
    PCSZ Other;
    ULONG Length;
    ULONG OtherLength;
    ULONGLONG Hash;
    ULONGLONG Probe;
    BOOL Added;
    RTL_STATUS Status;

    if (Id == TRACE_STRING_NULL) {
        *Canonical = TRACE_STRING_NULL;
        return RTL_STATUS_OK;
    }

    Known = RollupTableInsert(Rtl, &Rollup->Canonical, Id, 0, &Added);
    if (Known == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }
    if (!Added) {
        *Canonical = Known->Class;
        return RTL_STATUS_OK;
    }

    Status = RollupText(Rollup, (ULONG)Id, Row, Column, Offset, &Bytes,
                        &Length);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Hash = Rtl->Hash64(Bytes, Length);
    for (Probe = 0;; Probe++) {
        Text = RollupTableInsert(Rtl, &Rollup->Texts, Hash, Probe, &Added);
        if (Text == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Text->Class = Id;
            break;
        }
        Status = RollupText(Rollup, (ULONG)Text->Class, Row, Column, Offset,
                            &Other, &OtherLength);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (OtherLength == Length &&
            Rtl->CompareMemory(Other, Bytes, Length) == 0) {
            break;
        }
    }

    //
    // The table may have moved while the texts were entered.
    //

    Known = RollupTableFind(&Rollup->Canonical, Id, 0);
    Known->Class = Text->Class;
    *Canonical = Text->Class;
    return RTL_STATUS_OK;
}

static inline
VOID
MergeFirstRow(
    PULONGLONG Target,
    ULONGLONG Row,
    BOOL Added
    )
{
    if (Added || Row < *Target) {
        *Target = Row;
    }
}

//
// Names and rates key the same entry: a name id, a second key (zero, or
// the time bucket), a count and the first row.
//

C_ASSERT(sizeof(ROLLUP_NAME_ENTRY) == sizeof(ROLLUP_RATE_ENTRY));
C_ASSERT(FIELD_OFFSET(ROLLUP_NAME_ENTRY, Count) ==
         FIELD_OFFSET(ROLLUP_RATE_ENTRY, Count));
C_ASSERT(FIELD_OFFSET(ROLLUP_NAME_ENTRY, FirstRow) ==
         FIELD_OFFSET(ROLLUP_RATE_ENTRY, FirstRow));

static
RTL_STATUS
MergeNameCounts(
    PTRACE_ROLLUP Rollup,
    TRACE_ROLLUP_TABLE_ID Table
    )
/*++

Routine Description:

    Merges the entries of TraceRollupNames or TraceRollupRates whose
    names have one text.

--*/
{
    PROLLUP_TABLE Source = &Rollup->Tables[Table];
    PROLLUP_TABLE Target = &Rollup->Answer[Table];
    PROLLUP_RATE_ENTRY From;
    PROLLUP_RATE_ENTRY To;
    ULONGLONG Canonical;
    ULONGLONG Index;
    BOOL Added;
    RTL_STATUS Status;

    for (Index = 0; Index < Source->Count; Index++) {
        From = RollupTableEntry(Source, Index);
        Status = CanonicalId(Rollup, From->NameId, From->FirstRow, "name",
                             Rollup->NameOffset, &Canonical);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        To = RollupTableInsert(Rollup->Rtl, Target, Canonical,
                               (ULONGLONG)From->Bucket, &Added);
        if (To == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        MergeFirstRow(&To->FirstRow, From->FirstRow, Added);
        To->Count += From->Count;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
MergeFaults(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Source = &Rollup->Tables[TraceRollupFaults];
    PROLLUP_TABLE Target = &Rollup->Answer[TraceRollupFaults];
    PROLLUP_FAULT_ENTRY From;
    PROLLUP_FAULT_ENTRY To;
    ULONGLONG Comm;
    ULONGLONG Module;
    ULONGLONG Index;
    ULONG Count;
    BOOL Added;
    RTL_STATUS Status;

    for (Index = 0; Index < Source->Count; Index++) {
        From = RollupTableEntry(Source, Index);
        Status = CanonicalId(Rollup, From->PidComm >> 32, From->FirstRow,
                             "comm", FIELD_OFFSET(PAGE_FAULT_RECORD, CommId),
                             &Comm);
        if (RTL_SUCCESS(Status)) {
            Status = CanonicalId(Rollup, From->ModuleId, From->FirstRow,
                                 "module",
                                 FIELD_OFFSET(PAGE_FAULT_RECORD, ModuleId),
                                 &Module);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        To = RollupTableInsert(Rollup->Rtl, Target,
                               (From->PidComm & 0xffffffffULL) | (Comm << 32),
                               Module, &Added);
        if (To == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        MergeFirstRow(&To->FirstRow, From->FirstRow, Added);
        for (Count = 0; Count < TraceFaultCountMaximum; Count++) {
            To->Counts[Count] += From->Counts[Count];
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
MergeKvm(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Merges the exit reasons of one text, and their histograms.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Source = &Rollup->Tables[TraceRollupKvm];
    PROLLUP_TABLE Target = &Rollup->Answer[TraceRollupKvm];
    PROLLUP_TABLE Buckets = &Rollup->Tables[TraceRollupKvmBuckets];
    PROLLUP_TABLE MergedBuckets = &Rollup->Answer[TraceRollupKvmBuckets];
    PROLLUP_KVM_ENTRY From;
    PROLLUP_KVM_ENTRY To;
    PROLLUP_BUCKET_ENTRY Bucket;
    PROLLUP_BUCKET_ENTRY Merged;
    PULONGLONG Groups = NULL;
    SIZE_T GroupsBytes = 0;
    ULONGLONG Reason;
    ULONGLONG Index;
    BOOL Added;
    BOOL Moved = TRUE;
    RTL_STATUS Status = RTL_STATUS_OK;

    if (Source->Count != 0) {
        GroupsBytes = (SIZE_T)ALIGN_UP(Source->Count * sizeof(ULONGLONG),
                                       RTL_PAGE_SIZE);
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, GroupsBytes,
                                            (PPVOID)&Groups))) {
            return RTL_STATUS_NO_MEMORY;
        }
    }

    for (Index = 0; Index < Source->Count; Index++) {
        From = RollupTableEntry(Source, Index);
        Status = CanonicalId(Rollup, From->ReasonId, From->FirstRow,
                             "reason",
                             FIELD_OFFSET(KVM_EXIT_RECORD, ReasonId),
                             &Reason);
        if (!RTL_SUCCESS(Status)) {
            goto End;
        }
        To = RollupTableInsert(Rtl, Target, Reason, From->ExitCode, &Added);
        if (To == NULL) {
            Status = RTL_STATUS_NO_MEMORY;
            goto End;
        }
        MergeFirstRow(&To->FirstRow, From->FirstRow, Added);
        if (From->Paired != 0) {
            if (To->Paired == 0 || From->MinDur < To->MinDur) {
                To->MinDur = From->MinDur;
            }
            if (To->Paired == 0 || From->MaxDur > To->MaxDur) {
                To->MaxDur = From->MaxDur;
            }
        }
        To->Count += From->Count;
        To->Paired += From->Paired;
        To->Flags |= From->Flags;
        AddChecked(&To->SumDur, From->SumDur, &To->Flags);
        Groups[Index] = (ULONGLONG)(((PBYTE)To - Target->Entries) /
                                    sizeof(*To));
        Moved &= (Groups[Index] == Index);
    }

    //
    // No two reasons merged (the usual case): the histograms are the
    // answer's as they are, tens of thousands of buckets not copied.
    //

    if (Moved) {
        RollupTableFree(Rtl, MergedBuckets);
        *MergedBuckets = *Buckets;
        RollupTableInitialize(Buckets, Buckets->EntrySize, Buckets->Indexed);
        goto End;
    }

    for (Index = 0; Index < Buckets->Count; Index++) {
        Bucket = RollupTableEntry(Buckets, Index);
        Merged = RollupTableInsert(Rtl, MergedBuckets, Groups[Bucket->Group],
                                   (ULONGLONG)Bucket->Bucket, &Added);
        if (Merged == NULL) {
            Status = RTL_STATUS_NO_MEMORY;
            goto End;
        }
        if (Added || Bucket->Minimum < Merged->Minimum) {
            Merged->Minimum = Bucket->Minimum;
        }
        if (Added || Bucket->Maximum > Merged->Maximum) {
            Merged->Maximum = Bucket->Maximum;
        }
        Merged->Count += Bucket->Count;
    }

End:
    if (Groups != NULL) {
        Rtl->Unmap(Rtl, Groups, GroupsBytes);
    }
    return Status;
}

static
RTL_STATUS
MergeSpans(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Source = &Rollup->Tables[TraceRollupSpans];
    PROLLUP_TABLE Target = &Rollup->Answer[TraceRollupSpans];
    PROLLUP_SPAN_ENTRY From;
    PROLLUP_SPAN_ENTRY To;
    ULONGLONG Name;
    ULONGLONG Index;
    BOOL Added;
    RTL_STATUS Status;

    for (Index = 0; Index < Source->Count; Index++) {
        From = RollupTableEntry(Source, Index);
        Status = CanonicalId(Rollup, From->NameId, From->FirstRow, "name",
                             FIELD_OFFSET(SPAN_RECORD, NameId), &Name);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        To = RollupTableInsert(Rollup->Rtl, Target, Name, 0, &Added);
        if (To == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        MergeFirstRow(&To->FirstRow, From->FirstRow, Added);
        if (From->Calls != 0) {
            if (To->Calls == 0 || From->MinDepth < To->MinDepth) {
                To->MinDepth = From->MinDepth;
            }
            if (To->Calls == 0 || From->MaxDepth > To->MaxDepth) {
                To->MaxDepth = From->MaxDepth;
            }
        }
        if (From->Final != 0 &&
            (To->Final == 0 || From->MaxDur > To->MaxDur)) {
            To->MaxDur = From->MaxDur;
        }
        To->Calls += From->Calls;
        To->Final += From->Final;
        To->Children += From->Children;
        To->Outermost += From->Outermost;
        To->Flags |= From->Flags;
        AddChecked(&To->SumDur, From->SumDur, &To->Flags);
        AddChecked(&To->ChildDur, From->ChildDur, &To->Flags);
        AddChecked(&To->OutermostDur, From->OutermostDur, &To->Flags);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
MergeLines(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Merges the line groups whose functions and files have one text.

--*/
{
    PROLLUP_TABLE Source = &Rollup->Tables[TraceRollupLines];
    PROLLUP_TABLE Target = &Rollup->Answer[TraceRollupLines];
    PROLLUP_LINE_ENTRY From;
    PROLLUP_LINE_ENTRY To;
    ULONGLONG Name;
    ULONGLONG File;
    ULONGLONG Index;
    BOOL Added;
    RTL_STATUS Status;

    for (Index = 0; Index < Source->Count; Index++) {
        From = RollupTableEntry(Source, Index);
        Status = CanonicalId(Rollup, From->NameFile & 0xffffffffULL,
                             From->FirstRow, "name",
                             FIELD_OFFSET(LINE_RECORD, NameId), &Name);
        if (RTL_SUCCESS(Status)) {
            Status = CanonicalId(Rollup, From->NameFile >> 32, From->FirstRow,
                                 "file", FIELD_OFFSET(LINE_RECORD, FileId),
                                 &File);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        To = RollupTableInsert(Rollup->Rtl, Target, Name | (File << 32),
                               From->LineNo, &Added);
        if (To == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        MergeFirstRow(&To->FirstRow, From->FirstRow, Added);
        To->Hits += From->Hits;
        To->Flags |= From->Flags;
        AddChecked(&To->SumDur, From->SumDur, &To->Flags);
        AddChecked(&To->SumSelfDur, From->SumSelfDur, &To->Flags);
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// Rows.
// ---------------------------------------------------------------------------
//

static
LONGLONG
Percentile(
    PROLLUP_TABLE Buckets,
    PULONGLONG Order,
    ULONGLONG First,
    ULONGLONG Count,
    ULONGLONG Paired,
    ULONG Percent
    )
/*++

Routine Description:

    The nearest-rank percentile of one group, from its buckets (indices
    Order[First .. First + Count) into Buckets, in value order): the k-th
    smallest dur, k = ceil(Percent * Paired / 100), taken as the bucket's
    smallest value if it is the bucket's first, its largest if its last,
    and in proportion between them otherwise.

--*/
{
    PROLLUP_BUCKET_ENTRY Bucket = NULL;
    ULONGLONG Rank = ((ULONGLONG)Percent * Paired + 99) / 100;
    ULONGLONG Before = 0;
    ULONGLONG Index;
    ULONGLONG Span;
    DOUBLE Share;

    if (Rank == 0) {
        Rank = 1;
    }

    for (Index = 0; Index < Count; Index++) {
        Bucket = RollupTableEntry(Buckets, Order[First + Index]);
        if (Before + Bucket->Count >= Rank) {
            break;
        }
        Before += Bucket->Count;
    }

    if (Bucket == NULL) {
        return 0;
    }
    if (Rank == Before + 1) {
        return Bucket->Minimum;
    }
    if (Rank >= Before + Bucket->Count) {
        return Bucket->Maximum;
    }

    Span = (ULONGLONG)Bucket->Maximum - (ULONGLONG)Bucket->Minimum;
    Share = (DOUBLE)(Rank - Before - 1) / (DOUBLE)(Bucket->Count - 1);
    return (LONGLONG)((ULONGLONG)Bucket->Minimum +
                      (ULONGLONG)((DOUBLE)Span * Share));
}

static
RTL_STATUS
KvmRows(
    PTRACE_ROLLUP Rollup
    )
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Kvm = &Rollup->Answer[TraceRollupKvm];
    PROLLUP_TABLE Buckets = &Rollup->Answer[TraceRollupKvmBuckets];
    PTRACE_ROLLUP_KVM_ROW Rows;
    PROLLUP_KVM_ENTRY Entry;
    PROLLUP_BUCKET_ENTRY Bucket;
    PULONGLONG Keys = NULL;
    PULONGLONG Order = NULL;
    SIZE_T Bytes = 0;
    ULONGLONG Index;
    ULONGLONG First = 0;
    ULONGLONG Group;

    Rows = AllocateRows(Rollup, TraceRollupKvm, Kvm->Count);
    if (Rows == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    //
    // The buckets in (group, value) order: a bucket number fits in 16 bits
    // (TRACE_ROLLUP_HISTOGRAM_BITS 8: |bucket| < 2^14).
    //

    if (Buckets->Count != 0) {
        Bytes = (SIZE_T)ALIGN_UP(Buckets->Count * sizeof(ULONGLONG),
                                 RTL_PAGE_SIZE);
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, (PPVOID)&Keys)) ||
            !RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, (PPVOID)&Order))) {
            if (Keys != NULL) {
                Rtl->Unmap(Rtl, Keys, Bytes);
            }
            return RTL_STATUS_NO_MEMORY;
        }
        for (Index = 0; Index < Buckets->Count; Index++) {
            Bucket = RollupTableEntry(Buckets, Index);
            Keys[Index] = (Bucket->Group << 16) |
                          (ULONGLONG)(Bucket->Bucket + 32768);
            Order[Index] = Index;
        }
        if (!RollupSortPairs(Rtl, Keys, Order, Buckets->Count)) {
            Rtl->Unmap(Rtl, Keys, Bytes);
            Rtl->Unmap(Rtl, Order, Bytes);
            return RTL_STATUS_NO_MEMORY;
        }
    }

    for (Group = 0; Group < Kvm->Count; Group++) {
        PTRACE_ROLLUP_KVM_ROW Row = &Rows[Group];
        ULONGLONG Last = First;

        Entry = RollupTableEntry(Kvm, Group);
        while (Last < Buckets->Count && (Keys[Last] >> 16) == Group) {
            Last++;
        }

        Row->ReasonId = (ULONG)Entry->ReasonId;
        Row->ExitCode = (ULONG)Entry->ExitCode;
        Row->Flags = (Entry->Flags & ROLLUP_ENTRY_OVERFLOW) ?
                     TRACE_ROLLUP_ROW_OVERFLOW : 0;
        Row->Count = Entry->Count;
        Row->Paired = Entry->Paired;
        Row->SumDur = Entry->SumDur;
        Row->MinDur = Entry->MinDur;
        Row->MaxDur = Entry->MaxDur;
        Row->HasPercentiles = Entry->Paired != 0 &&
                              Entry->ReasonId != TRACE_STRING_NULL;
        if (Row->HasPercentiles) {
            Row->P50Dur = Percentile(Buckets, Order, First, Last - First,
                                     Entry->Paired, 50);
            Row->P90Dur = Percentile(Buckets, Order, First, Last - First,
                                     Entry->Paired, 90);
            Row->P99Dur = Percentile(Buckets, Order, First, Last - First,
                                     Entry->Paired, 99);
        }
        First = Last;
    }

    if (Keys != NULL) {
        Rtl->Unmap(Rtl, Keys, Bytes);
        Rtl->Unmap(Rtl, Order, Bytes);
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
SpanRows(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Spans = &Rollup->Answer[TraceRollupSpans];
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupSpanOpen];
    PTRACE_ROLLUP_SPAN_ROW Rows;
    PULONGLONG Running;
    PROLLUP_SPAN_ENTRY Entry;
    PROLLUP_SPAN_OPEN_ENTRY Waiting;
    ULONGLONG Index;
    ULONGLONG Count = 0;

    for (Index = 0; Index < Spans->Count; Index++) {
        Entry = RollupTableEntry(Spans, Index);
        Count += (Entry->Calls != 0);
    }

    Rows = AllocateRows(Rollup, TraceRollupSpans, Count);
    if (Rows == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    Count = 0;
    for (Index = 0; Index < Spans->Count; Index++) {
        PTRACE_ROLLUP_SPAN_ROW Row;
        BOOL Named;

        Entry = RollupTableEntry(Spans, Index);
        if (Entry->Calls == 0) {
            continue;
        }

        //
        // The view joins the children's and the outermost sums to the
        // totals by name, which no NULL name matches.
        //

        Named = (Entry->NameId != TRACE_STRING_NULL);
        Row = &Rows[Count++];
        Row->NameId = (ULONG)Entry->NameId;
        Row->Flags = (Entry->Flags & ROLLUP_ENTRY_OVERFLOW) ?
                     TRACE_ROLLUP_ROW_OVERFLOW : 0;
        Row->MinDepth = Entry->MinDepth;
        Row->MaxDepth = Entry->MaxDepth;
        Row->Calls = Entry->Calls;
        Row->AllDur = Entry->SumDur;
        Row->MaxDur = Entry->MaxDur;
        Row->HasChild = Named && Entry->Children != 0;
        Row->ChildDur = Row->HasChild ? Entry->ChildDur : 0;
        Row->HasTotal = Named && Entry->Outermost != 0;
        Row->TotalDur = Row->HasTotal ? Entry->OutermostDur : 0;
    }

    Count = 0;
    for (Index = 0; Index < Open->Count; Index++) {
        Waiting = RollupTableEntry(Open, Index);
        Count += (Waiting->Flags & ROLLUP_OPEN_RUNNING) != 0;
    }

    Running = AllocateRows(Rollup, TraceRollupSpanOpen, Count);
    if (Running == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    Count = 0;
    for (Index = 0; Index < Open->Count; Index++) {
        Waiting = RollupTableEntry(Open, Index);
        if ((Waiting->Flags & ROLLUP_OPEN_RUNNING) != 0) {
            Running[Count++] = Waiting->Row;
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
LineRows(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Lines = &Rollup->Answer[TraceRollupLines];
    PTRACE_ROLLUP_LINE_ROW Rows;
    PROLLUP_LINE_ENTRY Entry;
    ULONGLONG Index;

    Rows = AllocateRows(Rollup, TraceRollupLines, Lines->Count);
    if (Rows == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    for (Index = 0; Index < Lines->Count; Index++) {
        Entry = RollupTableEntry(Lines, Index);
        Rows[Index].NameId = (ULONG)(Entry->NameFile & 0xffffffffULL);
        Rows[Index].FileId = (ULONG)(Entry->NameFile >> 32);
        Rows[Index].LineNo = (ULONG)Entry->LineNo;
        Rows[Index].Flags = (Entry->Flags & ROLLUP_ENTRY_OVERFLOW) ?
                            TRACE_ROLLUP_ROW_OVERFLOW : 0;
        Rows[Index].Hits = Entry->Hits;
        Rows[Index].TotalDur = Entry->SumDur;
        Rows[Index].SelfDur = Entry->SumSelfDur;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
SyscallRows(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    syscall_counts' inner rows: sys_enter per number, and the events named
    sys_enter_NAME (GLOB 'sys_enter_?*': a character at least after the
    prefix) per name.

--*/
{
    PROLLUP_TABLE Syscalls = &Rollup->Tables[TraceRollupSyscalls];
    PROLLUP_TABLE Names = &Rollup->Answer[TraceRollupNames];
    PTRACE_ROLLUP_SYSCALL_ROW Rows;
    PROLLUP_SYSCALL_ENTRY Entry;
    PROLLUP_NAME_ENTRY Name;
    ULONGLONG Index;
    ULONGLONG Count = Syscalls->Count;
    ULONG Pass;
    PCSZ Text;
    ULONG Length;
    RTL_STATUS Status;

    Rows = NULL;
    for (Pass = 0; Pass < 2; Pass++) {
        ULONGLONG Named = 0;

        for (Index = 0; Index < Names->Count; Index++) {
            Name = RollupTableEntry(Names, Index);
            Status = RollupText(Rollup, (ULONG)Name->NameId, Name->FirstRow,
                                "name", Rollup->NameOffset, &Text, &Length);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            if (Text == NULL || Length <= 10 ||
                Rollup->Rtl->CompareMemory(Text, "sys_enter_", 10) != 0) {
                continue;
            }
            if (Pass == 1) {
                Rows[Syscalls->Count + Named].Raw = FALSE;
                Rows[Syscalls->Count + Named].NameId = (ULONG)Name->NameId;
                Rows[Syscalls->Count + Named].Count = Name->Count;
            }
            Named++;
        }

        if (Pass == 0) {
            Count += Named;
            Rows = AllocateRows(Rollup, TraceRollupSyscalls, Count);
            if (Rows == NULL) {
                return RTL_STATUS_NO_MEMORY;
            }
        }
    }

    for (Index = 0; Index < Syscalls->Count; Index++) {
        Entry = RollupTableEntry(Syscalls, Index);
        Rows[Index].Raw = TRUE;
        Rows[Index].NameId = TRACE_STRING_NULL;
        Rows[Index].Nr = Entry->Nr;
        Rows[Index].Count = Entry->Count;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
EventRows(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Names = &Rollup->Answer[TraceRollupNames];
    PROLLUP_TABLE Rates = &Rollup->Answer[TraceRollupRates];
    PTRACE_ROLLUP_NAME_ROW NameRows;
    PTRACE_ROLLUP_RATE_ROW RateRows;
    PROLLUP_NAME_ENTRY Name;
    PROLLUP_RATE_ENTRY Rate;
    ULONGLONG Index;
    LONGLONG Start;

    if (Rollup->NamesFromSpans) {

        //
        // The span table's calls per name (merged by text by now).
        //

        PROLLUP_TABLE Spans = &Rollup->Answer[TraceRollupSpans];
        ULONGLONG Count = 0;

        for (Index = 0; Index < Spans->Count; Index++) {
            Count += ((PROLLUP_SPAN_ENTRY)RollupTableEntry(Spans,
                                                           Index))->Calls != 0;
        }
        NameRows = AllocateRows(Rollup, TraceRollupNames, Count);
        if (NameRows == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Count = 0;
        for (Index = 0; Index < Spans->Count; Index++) {
            PROLLUP_SPAN_ENTRY Span = RollupTableEntry(Spans, Index);

            if (Span->Calls != 0) {
                NameRows[Count].NameId = (ULONG)Span->NameId;
                NameRows[Count].Count = Span->Calls;
                Count++;
            }
        }
    } else {
        NameRows = AllocateRows(Rollup, TraceRollupNames, Names->Count);
        if (NameRows == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        for (Index = 0; Index < Names->Count; Index++) {
            Name = RollupTableEntry(Names, Index);
            NameRows[Index].NameId = (ULONG)Name->NameId;
            NameRows[Index].Count = Name->Count;
        }
    }

    RateRows = AllocateRows(Rollup, TraceRollupRates, Rates->Count);
    if (RateRows == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    for (Index = 0; Index < Rates->Count; Index++) {
        Rate = RollupTableEntry(Rates, Index);
        if (__builtin_mul_overflow(Rate->Bucket, Rollup->BucketNs, &Start)) {
            Start = (Rate->Bucket < 0) ? INT64_MINIMUM : INT64_MAXIMUM;
        }
        RateRows[Index].NameId = (ULONG)Rate->NameId;
        RateRows[Index].Start = Start;
        RateRows[Index].Width = Rollup->BucketNs;
        RateRows[Index].Count = Rate->Count;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
FaultRows(
    PTRACE_ROLLUP Rollup
    )
{
    PROLLUP_TABLE Faults = &Rollup->Answer[TraceRollupFaults];
    PTRACE_ROLLUP_FAULT_ROW Rows;
    PROLLUP_FAULT_ENTRY Entry;
    ULONGLONG Index;
    ULONG Count;

    Rows = AllocateRows(Rollup, TraceRollupFaults, Faults->Count);
    if (Rows == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    for (Index = 0; Index < Faults->Count; Index++) {
        Entry = RollupTableEntry(Faults, Index);
        Rows[Index].Pid = (ULONG)(Entry->PidComm & 0xffffffffULL);
        Rows[Index].CommId = (ULONG)(Entry->PidComm >> 32);
        Rows[Index].ModuleId = (ULONG)Entry->ModuleId;
        for (Count = 0; Count < TraceFaultCountMaximum; Count++) {
            Rows[Index].Counts[Count] = Entry->Counts[Count];
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
Finish(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Records
    )
/*++

Routine Description:

    Turns the fold into the answer's rows (see the abstract).

--*/
{
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL Kind = (Rollup->Flags & TRACE_ROLLUP_FLAG_KIND) != 0;

    if (Kind && Rollup->Kind == TraceRecordSpan) {
        Status = RollupSettleOpenSpans(Rollup, Records);
    } else if (Kind && Rollup->Kind == TraceRecordLine) {
        Status = RollupSettleOpenLines(Rollup);
    }

    if (RTL_SUCCESS(Status)) {
        Status = MergeNameCounts(Rollup, TraceRollupNames);
    }
    if (RTL_SUCCESS(Status)) {
        Status = MergeNameCounts(Rollup, TraceRollupRates);
    }

    if (RTL_SUCCESS(Status) && Kind) {
        switch (Rollup->Kind) {
        case TraceRecordPageFault:
            Status = MergeFaults(Rollup);
            if (RTL_SUCCESS(Status)) {
                Status = FaultRows(Rollup);
            }
            break;
        case TraceRecordKvmExit:
            Status = MergeKvm(Rollup);
            if (RTL_SUCCESS(Status)) {
                Status = KvmRows(Rollup);
            }
            break;
        case TraceRecordSpan:
            Status = MergeSpans(Rollup);
            if (RTL_SUCCESS(Status)) {
                Status = SpanRows(Rollup);
            }
            break;
        case TraceRecordFtraceEvent:
            Status = SyscallRows(Rollup);
            break;
        case TraceRecordLine:
            Status = MergeLines(Rollup);
            if (RTL_SUCCESS(Status)) {
                Status = LineRows(Rollup);
            }
            break;
        default:
            break;
        }
    }

    //
    // Last: a span store's events per name are its merged span table's.
    //

    if (RTL_SUCCESS(Status)) {
        Status = EventRows(Rollup);
    }

    Rollup->Finished = TRUE;
    return Status;
}

//
// ---------------------------------------------------------------------------
// The reader's API.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
NewRollup(
    PRTL Rtl,
    PTRACE_STORE Store,
    PTRACE_STRING_TABLE Strings,
    PTRACE_ROLLUP *Result
    )
{
    PTRACE_ROLLUP Rollup;
    RTL_STATUS Status;

    Status = Rtl->AllocatePages(Rtl, sizeof(*Rollup), (PPVOID)&Rollup);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    RollupInitialize(Rollup, Rtl, Store, Strings);
    *Result = Rollup;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceRollupInspect(
    PRTL Rtl,
    PCSZ SessionPath,
    PTRACE_STORE Store,
    PTRACE_ROLLUP_STATUS Status
    )
{
    PTRACE_ROLLUP Rollup;
    RTL_STATUS Result;

    Rtl->FillMemory(Status, sizeof(*Status), 0);
    Status->Records = Store->Snapshot.RecordCount;

    Result = NewRollup(Rtl, Store, NULL, &Rollup);
    if (!RTL_SUCCESS(Result)) {
        return Result;
    }

    if (Rollup->Kind == TraceRecordKindMaximum) {
        Status->Source = TraceRollupNotKept;
    } else if (!RollupFilePath(Rollup->Path, sizeof(Rollup->Path),
                               SessionPath, Store)) {
        Status->Source = TraceRollupMissing;
    } else {
        Result = RollupLoadFile(Rollup, Rollup->Path, Status, FALSE);
        if (Status->Source == TraceRollupFromFile &&
            Status->Watermark > Status->Records) {
            Status->Source = TraceRollupAhead;
            RtlFormat(Status->Detail, sizeof(Status->Detail),
                      "%s: covers %llu records, the store has %llu",
                      Rollup->Path, Status->Watermark, Status->Records);
        }
        Status->Flags = Rollup->Flags;
    }

    TraceRollupFree(Rollup);
    return Result;
}

RTL_STATUS
TraceRollupRead(
    PRTL Rtl,
    PTRACE_SESSION Session,
    PTRACE_STORE Store,
    PTRACE_ROLLUP *Result,
    PTRACE_ROLLUP_STATUS Status,
    PRTL_ERROR Error
    )
{
    PTRACE_ROLLUP Rollup = NULL;
    TRACE_STORE_SNAPSHOT Snapshot;
    RTL_STATUS Result2;

    *Result = NULL;
    Rtl->FillMemory(Status, sizeof(*Status), 0);
    Error->Message[0] = '\0';

    Result2 = NewRollup(Rtl, Store, &Session->Strings, &Rollup);
    if (!RTL_SUCCESS(Result2)) {
        return RtlSetError(Error, Result2, 0, 0, "%s: no memory for its "
                           "rollup", Store->Path);
    }
    Rollup->Error = Error;
    Status->Flags = Rollup->Flags;

    //
    // The file first, then the snapshot: a publication covers only
    // committed records, so the snapshot holds at least as many.
    //

    if (Rollup->Kind == TraceRecordKindMaximum) {
        Status->Source = TraceRollupNotKept;
    } else if (!RollupFilePath(Rollup->Path, sizeof(Rollup->Path),
                               Session->Path, Store)) {
        Status->Source = TraceRollupMissing;
    } else {
        Result2 = RollupLoadFile(Rollup, Rollup->Path, Status, FALSE);
        if (!RTL_SUCCESS(Result2)) {
            RtlSetError(Error, Result2, 0, 0, "%s: %s", Rollup->Path,
                        RtlStatusText(Result2));
            goto Error;
        }
    }

    Result2 = TraceStoreTakeSnapshot(Store, &Snapshot, Error);
    if (!RTL_SUCCESS(Result2)) {
        goto Error;
    }
    Status->Records = Snapshot.RecordCount;

    if (Status->Source == TraceRollupFromFile &&
        Rollup->Watermark > Snapshot.RecordCount) {
        RollupResetTables(Rollup);
        Status->Source = TraceRollupAhead;
        RtlFormat(Status->Detail, sizeof(Status->Detail), "%s: covers %llu "
                  "records, the store has %llu", Rollup->Path,
                  Status->Watermark, Snapshot.RecordCount);
    }

    Result2 = TraceStringRefresh(&Session->Strings, Error);
    if (!RTL_SUCCESS(Result2)) {
        goto Error;
    }

    Result2 = RollupFold(Rollup, Snapshot.RecordCount);
    if (RTL_SUCCESS(Result2)) {
        Result2 = Finish(Rollup, Snapshot.RecordCount);
    }
    if (!RTL_SUCCESS(Result2)) {
        if (Result2 == RTL_STATUS_NO_MEMORY) {
            RtlSetError(Error, Result2, 0, 0, "%s: no memory to fold it",
                        Store->Path);
        } else if (Error->Message[0] == '\0') {
            RtlSetError(Error, Result2, 0, 0, "%s: %s", Store->Path,
                        RtlStatusText(Result2));
        }
        goto Error;
    }

    *Result = Rollup;
    return RTL_STATUS_OK;

Error:
    TraceRollupFree(Rollup);
    return Result2;
}

VOID
TraceRollupFree(
    PTRACE_ROLLUP Rollup
    )
{
    PRTL Rtl;
    ULONG Table;

    if (Rollup == NULL) {
        return;
    }

    Rtl = Rollup->Rtl;
    for (Table = 0; Table < TraceRollupTableMaximum; Table++) {
        if (Rollup->Rows[Table] != NULL) {
            Rtl->Unmap(Rtl, Rollup->Rows[Table], Rollup->RowBytes[Table]);
        }
    }
    TraceRollupClose(Rollup);
}

ULONGLONG
TraceRollupRowCount(
    PTRACE_ROLLUP Rollup,
    TRACE_ROLLUP_TABLE_ID Table
    )
{
    if ((ULONG)Table >= TraceRollupTableMaximum || !Rollup->Finished) {
        return 0;
    }
    return Rollup->RowCounts[Table];
}

BOOL
TraceRollupGetRow(
    PTRACE_ROLLUP Rollup,
    TRACE_ROLLUP_TABLE_ID Table,
    ULONGLONG Index,
    PVOID Row,
    SIZE_T RowSize
    )
{
    if (Index >= TraceRollupRowCount(Rollup, Table) ||
        RowSize != RowSizes[Table]) {
        return FALSE;
    }

    Rollup->Rtl->CopyMemory(Row, (PBYTE)Rollup->Rows[Table] +
                            Index * RowSizes[Table], RowSize);
    return TRUE;
}
