/*++

Module Name:

    TraceRollupFold.c

Abstract:

    This module implements the fold of a rollup: what each committed record
    of an event store adds to its tables (TraceRollupInternal.h), in record
    order.  Every table answers one of the built-in views, with the rules
    of the view's SQL (Sqlite3Ext/tracestore_views.c keeps that SQL for
    stores without a rollup, and the tests compare the two):

        every event store   events per name id, and per name id and time
                            bucket (per store only for span: its names are
                            functions, counted in the span table)
        page_fault          per (pid, comm, module): faults, code/data,
                            read/write/exec, hard/soft and their products
        kvm_exit            per (reason, exit_code): count, paired, sum,
                            min and max of dur, and a log-linear histogram
        span                per name (TraceRollupSpans.c)
        ftrace_event        raw_syscalls sys_enter per system call number
        line                per (function, file, line number): hits, dur
                            and self_dur sums (TraceRollupLines.c; not an
                            event store, so no names or rates)

Environment:

    Core: no C runtime; the OS only through PRTL (memory, discarding what
    a writer unmapped).  Called by TraceRollupFile.c (the writer's updates)
    and TraceRollupAnswer.c (a reader's tail); calls TraceRollupSpans.c,
    TraceRollupLines.c, TraceRollupTable.c, the string table (TraceString.c) and the RTL.

--*/

#include "TraceStore/TraceRollupInternal.h"

//
// Folds in windows, so that a writer that unmaps behind itself
// (DiscardBehind) can unmap again what a fold faulted back in.
//

#define FOLD_WINDOW_BYTES (1ULL << 20)

static const ULONG RollupEntrySizes[TraceRollupTableMaximum] = {
    [TraceRollupNames] = sizeof(ROLLUP_NAME_ENTRY),
    [TraceRollupRates] = sizeof(ROLLUP_RATE_ENTRY),
    [TraceRollupFaults] = sizeof(ROLLUP_FAULT_ENTRY),
    [TraceRollupKvm] = sizeof(ROLLUP_KVM_ENTRY),
    [TraceRollupKvmBuckets] = sizeof(ROLLUP_BUCKET_ENTRY),
    [TraceRollupSpans] = sizeof(ROLLUP_SPAN_ENTRY),
    [TraceRollupSpanKeys] = sizeof(ROLLUP_SPAN_KEY_ENTRY),
    [TraceRollupSpanOpen] = sizeof(ROLLUP_SPAN_OPEN_ENTRY),
    [TraceRollupSyscalls] = sizeof(ROLLUP_SYSCALL_ENTRY),
    [TraceRollupSpanNames] = sizeof(ROLLUP_SPAN_NAME_ENTRY),
    [TraceRollupLines] = sizeof(ROLLUP_LINE_ENTRY),
    [TraceRollupLineOpen] = sizeof(ROLLUP_LINE_OPEN_ENTRY),
};

ULONG
RollupEntrySize(
    TRACE_ROLLUP_TABLE_ID Table
    )
{
    return RollupEntrySizes[Table];
}

static
TRACE_RECORD_KIND
RollupKindOf(
    PTRACE_STORE Store
    )
/*++

Routine Description:

    The kind of a store that keeps a rollup (every event store, and those
    with TRACE_RECORD_ROLLUP), or TraceRecordKindMaximum.

--*/
{
    ULONG Kind;

    for (Kind = 0; Kind < TraceRecordKindMaximum; Kind++) {
        if ((TraceRecordTypes[Kind].Flags &
             (TRACE_RECORD_EVENT | TRACE_RECORD_ROLLUP)) != 0 &&
            RtlStringEqual(TraceRecordTypes[Kind].Schema->Name,
                           Store->Header->Name)) {
            return (TRACE_RECORD_KIND)Kind;
        }
    }

    return TraceRecordKindMaximum;
}

VOID
RollupInitialize(
    PTRACE_ROLLUP Rollup,
    PRTL Rtl,
    PTRACE_STORE Store,
    PTRACE_STRING_TABLE Strings
    )
/*++

Routine Description:

    Sets up an empty fold of Store: its kind (TraceRecordKindMaximum for a
    store that keeps no rollup), whether its layout is this
    version's (the kind's own tables need it; names and rates read the
    ts and name columns wherever the header puts them), and its tables.

--*/
{
    PCTRACE_COLUMN_DESCRIPTOR Name;
    ULONG Table;

    Rtl->FillMemory(Rollup, sizeof(*Rollup), 0);
    Rollup->Rtl = Rtl;
    Rollup->Store = Store;
    Rollup->Source = Store;
    Rollup->Strings = Strings;
    Rollup->Kind = RollupKindOf(Store);
    Rollup->RecordSize = Store->RecordSize;
    Rollup->TimestampOffset = Store->TimestampOffset;
    Rollup->NameOffset = TRACE_NO_COLUMN;
    Rollup->BucketNs = TRACE_ROLLUP_FIRST_BUCKET_NS;
    Rollup->FileHandle = INVALID_HANDLE_VALUE;

    if (Rollup->Kind != TraceRecordKindMaximum) {
        PCTRACE_RECORD_TYPE Type = &TraceRecordTypes[Rollup->Kind];

        Rollup->Events = (Type->Flags & TRACE_RECORD_EVENT) != 0;
        if (TraceStoreSchemaMatches(Store->Header, Type->Schema)) {
            Rollup->Flags |= TRACE_ROLLUP_FLAG_KIND;
        }
        if (Type->EventView.Name != NULL) {
            Name = TraceStoreFindColumn(Store->Header, Type->EventView.Name);
            if (Name != NULL && Name->Type == TraceColumnUInt32 &&
                (Name->Flags & TRACE_COLUMN_STRING_ID) != 0) {
                Rollup->NameOffset = Name->Offset;
            }
        }
        Rollup->RatesPerStore = (Rollup->Kind == TraceRecordSpan);

        //
        // A span store counts its events per name in its span table
        // (calls): no second count.
        //

        Rollup->NamesFromSpans = Rollup->Kind == TraceRecordSpan &&
                                 (Rollup->Flags & TRACE_ROLLUP_FLAG_KIND) != 0;
    }

    for (Table = 0; Table < TraceRollupTableMaximum; Table++) {
        BOOL Indexed = (Table != TraceRollupSpanOpen &&
                        Table != TraceRollupLineOpen);

        RollupTableInitialize(&Rollup->Tables[Table], RollupEntrySizes[Table],
                              Indexed);
        RollupTableInitialize(&Rollup->Answer[Table], RollupEntrySizes[Table],
                              Indexed);
    }
    RollupTableInitialize(&Rollup->Classes, sizeof(ROLLUP_CLASS_ENTRY), TRUE);
    RollupTableInitialize(&Rollup->SpanTexts, sizeof(ROLLUP_CLASS_ENTRY),
                          TRUE);
    RollupTableInitialize(&Rollup->Canonical, sizeof(ROLLUP_CLASS_ENTRY),
                          TRUE);
    RollupTableInitialize(&Rollup->Texts, sizeof(ROLLUP_CLASS_ENTRY), TRUE);
    RollupForgetRecent(Rollup);
}

VOID
RollupForgetRecent(
    PTRACE_ROLLUP Rollup
    )
{
    ULONG Slot;

    for (Slot = 0; Slot < ROLLUP_RECENT_SLOTS; Slot++) {
        Rollup->RecentNames[Slot].NameId = ROLLUP_NO_ENTRY;
        Rollup->RecentGroups[Slot].Entry = ROLLUP_NO_ENTRY;
    }
    Rollup->StoreRate.NameId = TRACE_STRING_NULL;
    Rollup->StoreRate.Rate = ROLLUP_NO_ENTRY;
}

VOID
RollupResetTables(
    PTRACE_ROLLUP Rollup
    )
{
    ULONG Table;

    for (Table = 0; Table < TraceRollupTableMaximum; Table++) {
        RollupTableReset(&Rollup->Tables[Table]);
    }
    RollupTableReset(&Rollup->SpanTexts);
    Rollup->Watermark = 0;
    Rollup->BucketNs = TRACE_ROLLUP_FIRST_BUCKET_NS;
    RollupForgetRecent(Rollup);
}

VOID
RollupFreeTables(
    PTRACE_ROLLUP Rollup
    )
{
    PRTL Rtl = Rollup->Rtl;
    ULONG Table;

    for (Table = 0; Table < TraceRollupTableMaximum; Table++) {
        RollupTableFree(Rtl, &Rollup->Tables[Table]);
        RollupTableFree(Rtl, &Rollup->Answer[Table]);
    }
    RollupTableFree(Rtl, &Rollup->Classes);
    RollupTableFree(Rtl, &Rollup->SpanTexts);
    RollupTableFree(Rtl, &Rollup->Canonical);
    RollupTableFree(Rtl, &Rollup->Texts);
}

//
// ---------------------------------------------------------------------------
// Arithmetic as SQL does it.
// ---------------------------------------------------------------------------
//

static inline
LONGLONG
FloorDivide(
    LONGLONG Value,
    LONGLONG Divisor
    )
{
    LONGLONG Quotient = Value / Divisor;

    if ((Value % Divisor) < 0) {
        Quotient--;
    }
    return Quotient;
}

//
// ts + dur, which SQLite computes as a REAL when it leaves the int64
// range; as an end to compare a ts with, the nearest int64 does the same.
//

LONGLONG
RollupHistogramBucket(
    LONGLONG Value
    )
/*++

Routine Description:

    The histogram bucket of a duration: the value itself below
    2^(BITS+1), then 2^BITS buckets per power of two; negative values
    mirror the positive ones below -1, so the bucket grows with the value.

--*/
{
    ULONGLONG Magnitude;
    ULONG Exponent;
    LONGLONG Bucket;

    Magnitude = (Value < 0) ? (ULONGLONG)0 - (ULONGLONG)Value :
                              (ULONGLONG)Value;

    if (Magnitude < (2ULL << TRACE_ROLLUP_HISTOGRAM_BITS)) {
        Bucket = (LONGLONG)Magnitude;
    } else {
        Exponent = 63 - (ULONG)__builtin_clzll(Magnitude);
        Bucket = (LONGLONG)((2ULL << TRACE_ROLLUP_HISTOGRAM_BITS) +
                            ((ULONGLONG)(Exponent - TRACE_ROLLUP_HISTOGRAM_BITS
                                         - 1) << TRACE_ROLLUP_HISTOGRAM_BITS) +
                            ((Magnitude >> (Exponent -
                                            TRACE_ROLLUP_HISTOGRAM_BITS)) &
                             ((1ULL << TRACE_ROLLUP_HISTOGRAM_BITS) - 1)));
    }

    return (Value < 0) ? -Bucket - 1 : Bucket;
}

LONGLONG
RollupSqlInteger(
    PCSZ Text,
    SIZE_T Length
    )
/*++

Routine Description:

    SQLite's CAST(Text AS INTEGER): leading blanks, a sign, then the
    longest run of digits, the rest ignored; 0 without digits; a value
    past the int64 range is the nearest end of it.

--*/
{
    PCSZ End = Text + Length;
    ULONGLONG Value = 0;
    BOOL Negative = FALSE;
    BOOL Overflow = FALSE;

    while (Text < End && (*Text == ' ' || (*Text >= '\t' && *Text <= '\r'))) {
        Text++;
    }

    if (Text < End && (*Text == '-' || *Text == '+')) {
        Negative = (*Text == '-');
        Text++;
    }

    while (Text < End && *Text >= '0' && *Text <= '9') {
        ULONGLONG Digit = (ULONGLONG)(*Text - '0');

        if (Value > (0xffffffffffffffffULL - Digit) / 10) {
            Overflow = TRUE;
        } else {
            Value = Value * 10 + Digit;
        }
        Text++;
    }

    if (Overflow || Value > 0x8000000000000000ULL ||
        (Value == 0x8000000000000000ULL && !Negative)) {
        return Negative ? INT64_MINIMUM : INT64_MAXIMUM;
    }

    return Negative ? (LONGLONG)(0 - Value) : (LONGLONG)Value;
}

//
// ---------------------------------------------------------------------------
// Errors.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
RowError(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Row,
    PCSZ Column,
    ULONG Offset,
    ULONG Id
    )
/*++

Routine Description:

    The error of a record whose string id cannot be resolved, naming the
    store file and the byte offset of the field, as the store tables do.

--*/
{
    PTRACE_STORE Store = Rollup->Source;

    if (Rollup->Error == NULL) {
        return RTL_STATUS_CORRUPT;
    }

    return RtlSetError(Rollup->Error, RTL_STATUS_CORRUPT, 0,
                       TRACE_STORE_HEADER_SIZE + Row * Store->RecordSize +
                       Offset,
                       "%s: byte offset %llu: column \"%s\" of %s row %llu "
                       "holds string id %u, beyond the strings of %s or "
                       "pointing outside %s (corrupt)", Store->Path,
                       TRACE_STORE_HEADER_SIZE + Row * Store->RecordSize +
                       Offset, Column, Store->Header->Name, Row, Id,
                       Rollup->Strings->Index.Path,
                       Rollup->Strings->Data.Path);
}

RTL_STATUS
RollupText(
    PTRACE_ROLLUP Rollup,
    ULONG Id,
    ULONGLONG Row,
    PCSZ Column,
    ULONG Offset,
    PCSZ *Text,
    PULONG Length
    )
/*++

Routine Description:

    The text of string Id (NULL for TRACE_STRING_NULL), or the error that
    names the row holding it.

--*/
{
    RTL_STATUS Status;

    if (Id == TRACE_STRING_NULL) {
        *Text = NULL;
        *Length = 0;
        return RTL_STATUS_OK;
    }

    Status = TraceStringLookup(Rollup->Strings, Id, Text, Length);
    if (!RTL_SUCCESS(Status)) {
        return RowError(Rollup, Row, Column, Offset, Id);
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// Recent groups.
// ---------------------------------------------------------------------------
//

//
// ---------------------------------------------------------------------------
// Names and rates: every event store.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
CoarsenRates(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Doubles the width of the rate buckets, merging each even bucket with
    the odd one after it, until the table holds at most
    TRACE_ROLLUP_MAX_RATE_ENTRIES.  The width a fold ends with is then the
    narrowest that fits every record, whatever the order they came in.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Rates = &Rollup->Tables[TraceRollupRates];
    ROLLUP_TABLE Merged;
    PROLLUP_RATE_ENTRY Old;
    PROLLUP_RATE_ENTRY New;
    ULONGLONG Index;
    BOOL Added;

    while (Rates->Count > TRACE_ROLLUP_MAX_RATE_ENTRIES) {
        if (Rollup->BucketNs > INT64_MAXIMUM / 2) {
            break;
        }

        RollupTableInitialize(&Merged, sizeof(ROLLUP_RATE_ENTRY), TRUE);
        for (Index = 0; Index < Rates->Count; Index++) {
            Old = RollupTableEntry(Rates, Index);
            New = RollupTableInsert(Rtl, &Merged, Old->NameId,
                                    (ULONGLONG)(Old->Bucket >> 1), &Added);
            if (New == NULL) {
                RollupTableFree(Rtl, &Merged);
                return RTL_STATUS_NO_MEMORY;
            }
            if (Added || Old->FirstRow < New->FirstRow) {
                New->FirstRow = Old->FirstRow;
            }
            New->Count += Old->Count;
        }

        RollupTableFree(Rtl, Rates);
        *Rates = Merged;
        Rollup->BucketNs *= 2;
        for (Index = 0; Index < ROLLUP_RECENT_SLOTS; Index++) {
            Rollup->RecentNames[Index].Rate = ROLLUP_NO_ENTRY;
        }
        Rollup->StoreRate.Rate = ROLLUP_NO_ENTRY;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
RateEntry(
    PTRACE_ROLLUP Rollup,
    ULONGLONG NameId,
    LONGLONG Ts,
    ULONGLONG Row,
    PROLLUP_RECENT_NAME Recent
    )
/*++

Routine Description:

    Finds (adding it if new) the rate entry of NameId at Ts into
    Recent->Rate, and its bucket's ts range, coarsening the buckets when
    the table outgrows its limit.

--*/
{
    PROLLUP_TABLE Rates = &Rollup->Tables[TraceRollupRates];
    PROLLUP_RATE_ENTRY Rate;
    LONGLONG Bucket;
    BOOL Added;
    RTL_STATUS Status;

    for (;;) {
        Bucket = FloorDivide(Ts, Rollup->BucketNs);
        Rate = RollupTableInsert(Rollup->Rtl, Rates, NameId,
                                 (ULONGLONG)Bucket, &Added);
        if (Rate == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Rate->FirstRow = Row;
        }
        if (!Added || Rates->Count <= TRACE_ROLLUP_MAX_RATE_ENTRIES) {
            break;
        }
        Status = CoarsenRates(Rollup);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    //
    // The bucket's ts range, saturated at the ends of the int64 range (a
    // ts there only finds its bucket the slow way).
    //

    if (__builtin_mul_overflow(Bucket, Rollup->BucketNs, &Recent->Start)) {
        Recent->Start = INT64_MINIMUM;
        Recent->End = INT64_MINIMUM;
    } else {
        Recent->End = SaturatingAdd(Recent->Start, Rollup->BucketNs);
    }
    Recent->Rate = EntryIndex(Rates, Rate);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
FoldEvents(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To
    )
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Names = &Rollup->Tables[TraceRollupNames];
    PROLLUP_TABLE Rates = &Rollup->Tables[TraceRollupRates];
    PROLLUP_RECENT_NAME Recent;
    PROLLUP_NAME_ENTRY Name;
    ULONGLONG Row;
    ULONG NameId;
    LONGLONG Ts;
    PBYTE Record;
    BOOL Added;
    RTL_STATUS Status;

    for (Row = From; Row < To; Row++) {
        Record = RecordAt(Rollup, Row);
        NameId = TRACE_STRING_NULL;
        if (Rollup->NameOffset != TRACE_NO_COLUMN) {
            __builtin_memcpy(&NameId, Record + Rollup->NameOffset,
                             sizeof(NameId));
        }
        Recent = RecentName(Rollup, NameId);

        if (Rollup->NameOffset != TRACE_NO_COLUMN && !Rollup->NamesFromSpans) {
            if (Recent->Name == ROLLUP_NO_ENTRY) {
                Name = RollupTableInsert(Rtl, Names, NameId, 0, &Added);
                if (Name == NULL) {
                    return RTL_STATUS_NO_MEMORY;
                }
                if (Added) {
                    Name->FirstRow = Row;
                }
                Recent->Name = EntryIndex(Names, Name);
            }
            ((PROLLUP_NAME_ENTRY)RollupTableEntry(Names, Recent->Name))->
                Count++;
        }

        if (Rollup->TimestampOffset != TRACE_NO_COLUMN) {
            __builtin_memcpy(&Ts, Record + Rollup->TimestampOffset,
                             sizeof(Ts));

            //
            // The span store's rates are per store: its names are
            // functions.  Its memo is then a slot of its own.
            //

            if (Rollup->RatesPerStore) {
                Recent = &Rollup->StoreRate;
            }
            if (Recent->Rate == ROLLUP_NO_ENTRY || Ts < Recent->Start ||
                Ts >= Recent->End) {
                Status = RateEntry(Rollup, Rollup->RatesPerStore ?
                                   TRACE_STRING_NULL : NameId, Ts, Row,
                                   Recent);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }
            ((PROLLUP_RATE_ENTRY)RollupTableEntry(Rates, Recent->Rate))->
                Count++;
        }
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// page_fault.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
FoldPageFaults(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To
    )
{
    PROLLUP_TABLE Faults = &Rollup->Tables[TraceRollupFaults];
    PROLLUP_FAULT_ENTRY Entry;
    PPAGE_FAULT_RECORD Fault;
    ULONGLONG Row;
    ULONGLONG IsCode;
    BOOL CodeKnown;
    BOOL Added;

    for (Row = From; Row < To; Row++) {
        Fault = (PPAGE_FAULT_RECORD)RecordAt(Rollup, Row);
        Entry = RecentGroup(Rollup, Faults, (ULONGLONG)Fault->Pid |
                            ((ULONGLONG)Fault->CommId << 32),
                            Fault->ModuleId, &Added);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Entry->FirstRow = Row;
        }

        Entry->Counts[TraceFaultCountAll]++;

        //
        // page_fault_summary: the access by the error code, and code or
        // data by its fetch bit, else by address = ip.
        //

        if (Fault->ErrorCode == TRACE_NULL_ULONG) {
            Entry->Counts[TraceFaultCountUnknownAccess]++;
            if (Fault->Address != TRACE_NULL_ULONGLONG &&
                Fault->Ip != TRACE_NULL_ULONGLONG) {
                Entry->Counts[Fault->Address == Fault->Ip ?
                              TraceFaultCountCode : TraceFaultCountData]++;
            }
        } else {
            if (Fault->ErrorCode & 16) {
                Entry->Counts[TraceFaultCountExecs]++;
                Entry->Counts[TraceFaultCountCode]++;
            } else {
                Entry->Counts[(Fault->ErrorCode & 2) ? TraceFaultCountWrites :
                              TraceFaultCountReads]++;
                Entry->Counts[TraceFaultCountData]++;
            }
        }

        //
        // page_fault_traffic: hard or soft, and code by the mapping's exec
        // permission, else as above.
        //

        CodeKnown = TRUE;
        if (Fault->Code != TRACE_NULL_ULONG) {
            IsCode = Fault->Code;
        } else if (Fault->ErrorCode != TRACE_NULL_ULONG) {
            IsCode = (Fault->ErrorCode & 16) != 0;
        } else if (Fault->Address == TRACE_NULL_ULONGLONG ||
                   Fault->Ip == TRACE_NULL_ULONGLONG) {
            IsCode = 2;
            CodeKnown = FALSE;
        } else {
            IsCode = (Fault->Address == Fault->Ip);
        }

        if (Fault->Hard == 1) {
            Entry->Counts[TraceFaultCountHard]++;
            if (CodeKnown && IsCode == 1) {
                Entry->Counts[TraceFaultCountHardCode]++;
            } else if (CodeKnown && IsCode == 0) {
                Entry->Counts[TraceFaultCountHardData]++;
            }
        } else if (Fault->Hard == 0) {
            Entry->Counts[TraceFaultCountSoft]++;
            if (CodeKnown && IsCode == 1) {
                Entry->Counts[TraceFaultCountSoftCode]++;
            } else if (CodeKnown && IsCode == 0) {
                Entry->Counts[TraceFaultCountSoftData]++;
            }
        } else if (Fault->Hard == TRACE_NULL_ULONG) {
            Entry->Counts[TraceFaultCountUnclassified]++;
        }
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// kvm_exit.
// ---------------------------------------------------------------------------
//

RTL_STATUS
RollupAddDuration(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Kvm,
    PROLLUP_TABLE Buckets,
    ULONGLONG Group,
    LONGLONG Duration
    )
/*++

Routine Description:

    Adds one dur to the kvm group at index Group of Kvm and to its
    histogram in Buckets.

--*/
{
    PROLLUP_KVM_ENTRY Entry = RollupTableEntry(Kvm, Group);
    PROLLUP_BUCKET_ENTRY Bucket;
    BOOL Added;

    if (Entry->Paired == 0 || Duration < Entry->MinDur) {
        Entry->MinDur = Duration;
    }
    if (Entry->Paired == 0 || Duration > Entry->MaxDur) {
        Entry->MaxDur = Duration;
    }
    Entry->Paired++;
    AddChecked(&Entry->SumDur, Duration, &Entry->Flags);

    Bucket = RollupTableInsert(Rollup->Rtl, Buckets, Group,
                               (ULONGLONG)RollupHistogramBucket(Duration),
                               &Added);
    if (Bucket == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }
    if (Added || Duration < Bucket->Minimum) {
        Bucket->Minimum = Duration;
    }
    if (Added || Duration > Bucket->Maximum) {
        Bucket->Maximum = Duration;
    }
    Bucket->Count++;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
FoldKvmExits(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To
    )
{
    PROLLUP_TABLE Kvm = &Rollup->Tables[TraceRollupKvm];
    PROLLUP_TABLE Buckets = &Rollup->Tables[TraceRollupKvmBuckets];
    PROLLUP_KVM_ENTRY Entry;
    PKVM_EXIT_RECORD Exit;
    ULONGLONG Row;
    BOOL Added;
    RTL_STATUS Status;

    for (Row = From; Row < To; Row++) {
        Exit = (PKVM_EXIT_RECORD)RecordAt(Rollup, Row);
        Entry = RecentGroup(Rollup, Kvm, Exit->ReasonId, Exit->ExitCode,
                            &Added);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Entry->FirstRow = Row;
        }
        Entry->Count++;

        if (Exit->Duration == TRACE_NULL_LONGLONG) {
            continue;
        }

        Status = RollupAddDuration(Rollup, Kvm, Buckets,
                                   EntryIndex(Kvm, Entry), Exit->Duration);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// ftrace_event: system calls.
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
NameClass(
    PTRACE_ROLLUP Rollup,
    ULONG NameId,
    ULONGLONG Row,
    PULONGLONG Class
    )
{
    PROLLUP_CLASS_ENTRY Entry;
    PCSZ Text;
    ULONG Length;
    BOOL Added;
    RTL_STATUS Status;

    Entry = RollupTableInsert(Rollup->Rtl, &Rollup->Classes, NameId, 0,
                              &Added);
    if (Entry == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    if (Added) {
        Status = RollupText(Rollup, NameId, Row, "name",
                            FIELD_OFFSET(FTRACE_EVENT_RECORD, NameId), &Text,
                            &Length);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Entry->Class = (Text != NULL && Length == 9 &&
                        Rollup->Rtl->CompareMemory(Text, "sys_enter",
                                                   9) == 0) ?
                       ROLLUP_NAME_SYS_ENTER : ROLLUP_NAME_OTHER;
    }

    *Class = Entry->Class;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
FoldSyscalls(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To
    )
/*++

Routine Description:

    Counts raw_syscalls:sys_enter events per system call number, as
    syscall_counts reads them: name 'sys_enter', args GLOB 'NR [0-9-]*',
    the number CAST(substr(args, 4) AS INTEGER).  (sys_enter_NAME events
    are counted per name by FoldEvents.)

--*/
{
    PROLLUP_TABLE Syscalls = &Rollup->Tables[TraceRollupSyscalls];
    PROLLUP_SYSCALL_ENTRY Entry;
    PROLLUP_RECENT_NAME Recent;
    PROLLUP_RECENT_GROUP RecentArgs;
    PFTRACE_EVENT_RECORD Event;
    ULONGLONG Row;
    PCSZ Args;
    ULONG Length;
    LONGLONG Nr;
    BOOL Added;
    RTL_STATUS Status;

    for (Row = From; Row < To; Row++) {
        Event = (PFTRACE_EVENT_RECORD)RecordAt(Rollup, Row);
        Recent = RecentName(Rollup, Event->NameId);
        if (Recent->Class == 0) {
            Status = NameClass(Rollup, Event->NameId, Row, &Recent->Class);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        if (Recent->Class != ROLLUP_NAME_SYS_ENTER) {
            continue;
        }

        //
        // The same args text (one string id) is the same system call: its
        // entry, or that it is none, is remembered by the id.
        //

        RecentArgs = &Rollup->RecentGroups[(Event->ArgsId * 0x9E3779B1u) >>
                                           (32 - ROLLUP_RECENT_BITS)];
        if (RecentArgs->Entry == ROLLUP_NO_ENTRY ||
            RecentArgs->Key0 != Event->ArgsId) {
            Status = RollupText(Rollup, Event->ArgsId, Row, "args",
                                FIELD_OFFSET(FTRACE_EVENT_RECORD, ArgsId),
                                &Args, &Length);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            RecentArgs->Key0 = Event->ArgsId;
            RecentArgs->Entry = ROLLUP_NOT_COUNTED;
            if (Args == NULL || Length < 4 || Args[0] != 'N' ||
                Args[1] != 'R' || Args[2] != ' ' ||
                !((Args[3] >= '0' && Args[3] <= '9') || Args[3] == '-')) {
                continue;
            }

            Nr = RollupSqlInteger(Args + 3, Length - 3);
            Entry = RollupTableInsert(Rollup->Rtl, Syscalls, (ULONGLONG)Nr,
                                      0, &Added);
            if (Entry == NULL) {
                RecentArgs->Entry = ROLLUP_NO_ENTRY;
                return RTL_STATUS_NO_MEMORY;
            }
            if (Added) {
                Entry->FirstRow = Row;
            }
            RecentArgs->Entry = EntryIndex(Syscalls, Entry);
        } else if (RecentArgs->Entry == ROLLUP_NOT_COUNTED) {
            continue;
        }
        ((PROLLUP_SYSCALL_ENTRY)RollupTableEntry(Syscalls,
                                                 RecentArgs->Entry))->Count++;
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The fold.
// ---------------------------------------------------------------------------
//

RTL_STATUS
RollupFold(
    PTRACE_ROLLUP Rollup,
    ULONGLONG UpTo
    )
/*++

Routine Description:

    Folds records [Rollup->Watermark, UpTo) of the store, after looking
    again at the open span or line rows.  A window at a time: a writer's store
    that unmaps behind the writer gets back to unmapped what the fold read
    of that part.

Return Value:

    RTL_STATUS_OK; RTL_STATUS_NO_MEMORY; RTL_STATUS_CORRUPT for a record
    whose strings cannot be read (Rollup->Error names it).  On failure the
    fold is partial: the caller discards it.

--*/
{
    PTRACE_STORE Source = Rollup->Source;
    ULONGLONG Window;
    ULONGLONG From;
    ULONGLONG To;
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL KindTables;

    if (Rollup->Kind == TraceRecordKindMaximum) {
        Rollup->Watermark = UpTo;
        return RTL_STATUS_OK;
    }

    KindTables = (Rollup->Flags & TRACE_ROLLUP_FLAG_KIND) != 0;

    if (KindTables && Rollup->Kind == TraceRecordSpan) {
        Status = RollupRecheckOpenSpans(Rollup, UpTo);
    } else if (KindTables && Rollup->Kind == TraceRecordLine) {
        Status = RollupRecheckOpenLines(Rollup);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Window = FOLD_WINDOW_BYTES / Rollup->RecordSize + 1;

    for (From = Rollup->Watermark; From < UpTo; From = To) {
        To = (UpTo - From > Window) ? From + Window : UpTo;

        if (Rollup->Events) {
            Status = FoldEvents(Rollup, From, To);
        }
        if (RTL_SUCCESS(Status) && KindTables) {
            switch (Rollup->Kind) {
            case TraceRecordPageFault:
                Status = FoldPageFaults(Rollup, From, To);
                break;
            case TraceRecordKvmExit:
                Status = FoldKvmExits(Rollup, From, To);
                break;
            case TraceRecordSpan:
                Status = RollupFoldSpans(Rollup, From, To, UpTo);
                break;
            case TraceRecordFtraceEvent:
                Status = FoldSyscalls(Rollup, From, To);
                break;
            case TraceRecordLine:
                Status = RollupFoldLines(Rollup, From, To);
                break;
            default:
                break;
            }
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Rollup->Watermark = To;

        //
        // What the fold read through a mapping of its own (a reader's, or
        // the fold's on another thread than the writer's), or through
        // the writer's at a rebuild, is not needed mapped: whole windows
        // are unmapped (a fold of every record of a large store would
        // otherwise keep all of it resident).  The writer unmaps behind
        // itself what it wrote.
        //

        if ((!Source->Writable || Rollup->Rebuilding) &&
            To - From == Window) {
            Rollup->Rtl->DiscardMemory(Rollup->Rtl, RecordAt(Rollup, From),
                                       (SIZE_T)((To - From) *
                                                Rollup->RecordSize));
        }
    }

    return RTL_STATUS_OK;
}
