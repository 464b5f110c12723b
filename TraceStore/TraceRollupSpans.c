/*++

Module Name:

    TraceRollupSpans.c

Abstract:

    This module implements the span part of a rollup's fold: per name, the
    calls, the dur sum and max, the dur of the rows whose parent has the
    name and the dur of the outermost rows; per (pid, tid, name) the end of
    the latest row, for the recursion test.  Names are merged by their
    text, so that ids interned twice count as one name.

    Span rows that are not final (SPAN_FLAG_END_MISSING: the call runs) add
    their count and depth when folded and their dur when they turn final;
    until then they wait in the open-row table, which every fold looks at
    again first.  A row is outermost when no earlier row of its (pid, tid,
    name) is open and it begins at or after the end of every earlier one:
    an open row is one that has not ended (docs/rollups.md).

Environment:

    Core: no C runtime; the OS only through PRTL (memory).  Called by
    TraceRollupFold.c (RollupFold) and TraceRollupAnswer.c (a reader's last
    step); calls TraceRollupTable.c, the string table and the RTL.

--*/

#include "TraceStore/TraceRollupInternal.h"

static
RTL_STATUS
SpanTextAdd(
    PTRACE_ROLLUP Rollup,
    ULONGLONG TextHash,
    ULONGLONG Canonical,
    PCSZ Text,
    ULONG Length,
    ULONGLONG Row,
    PULONGLONG Found
    )
/*++

Routine Description:

    Finds the canonical id of a text by its hash among SpanTexts, or
    enters Canonical for it.  Text NULL: enter without comparing (loading
    a published table, whose texts are distinct).

--*/
{
    PROLLUP_CLASS_ENTRY Entry;
    ULONGLONG Probe;
    PCSZ Other;
    ULONG OtherLength;
    BOOL Added;
    RTL_STATUS Status;

    for (Probe = 0;; Probe++) {
        Entry = RollupTableInsert(Rollup->Rtl, &Rollup->SpanTexts, TextHash,
                                  Probe, &Added);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Entry->Class = Canonical;
            *Found = Canonical;
            return RTL_STATUS_OK;
        }
        if (Text == NULL) {
            continue;
        }
        Status = RollupText(Rollup, (ULONG)Entry->Class, Row, "name",
                            FIELD_OFFSET(SPAN_RECORD, NameId), &Other,
                            &OtherLength);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (OtherLength == Length &&
            Rollup->Rtl->CompareMemory(Other, Text, Length) == 0) {
            *Found = Entry->Class;
            return RTL_STATUS_OK;
        }
    }
}

RTL_STATUS
RollupLoadSpanTexts(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Rebuilds SpanTexts from a loaded SpanNames table, in its order (the
    order the fold met the texts), from the hashes it keeps.

--*/
{
    PROLLUP_TABLE Names = &Rollup->Tables[TraceRollupSpanNames];
    PROLLUP_SPAN_NAME_ENTRY Entry;
    ULONGLONG Index;
    ULONGLONG Found;
    RTL_STATUS Status;

    RollupTableReset(&Rollup->SpanTexts);
    for (Index = 0; Index < Names->Count; Index++) {
        Entry = RollupTableEntry(Names, Index);
        if (Entry->Canonical != Entry->NameId) {
            continue;
        }
        Status = SpanTextAdd(Rollup, Entry->TextHash, Entry->Canonical, NULL,
                             0, 0, &Found);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
SpanCanonical(
    PTRACE_ROLLUP Rollup,
    ULONG NameId,
    ULONGLONG Row,
    PULONGLONG Canonical
    )
/*++

Routine Description:

    The first id of NameId's text the fold has met (SpanNames), for the
    recursion test, which compares names by their text.

--*/
{
    PROLLUP_SPAN_NAME_ENTRY Entry;
    PCSZ Text;
    ULONG Length;
    BOOL Added;
    RTL_STATUS Status;

    if (NameId == TRACE_STRING_NULL) {
        *Canonical = TRACE_STRING_NULL;
        return RTL_STATUS_OK;
    }

    Entry = RollupTableFind(&Rollup->Tables[TraceRollupSpanNames], NameId, 0);
    if (Entry != NULL) {
        *Canonical = Entry->Canonical;
        return RTL_STATUS_OK;
    }

    Status = RollupText(Rollup, NameId, Row, "name",
                        FIELD_OFFSET(SPAN_RECORD, NameId), &Text, &Length);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    {
        ULONGLONG Hash = Rollup->Rtl->Hash64(Text, Length);

        Status = SpanTextAdd(Rollup, Hash, NameId, Text, Length, Row,
                             Canonical);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Entry = RollupTableInsert(Rollup->Rtl,
                                  &Rollup->Tables[TraceRollupSpanNames],
                                  NameId, 0, &Added);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Entry->Canonical = *Canonical;
        Entry->TextHash = Hash;
    }

    return RTL_STATUS_OK;
}

static inline
VOID
ReadSpan(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Row,
    PSPAN_RECORD Span
    )
/*++

Routine Description:

    Copies a span row.  Its dur and flags are read as the Python tracer
    writes them (dur, then flags with release): a row whose flags say it
    is final has its final dur.

--*/
{
    PSPAN_RECORD Record = (PSPAN_RECORD)RecordAt(Rollup, Row);

    Span->Flags = __atomic_load_n(&Record->Flags, __ATOMIC_ACQUIRE);
    Span->Duration = __atomic_load_n(&Record->Duration, __ATOMIC_RELAXED);
    Span->Timestamp = Record->Timestamp;
    Span->ParentId = Record->ParentId;
    Span->NameId = Record->NameId;
    Span->Depth = Record->Depth;
    Span->Tid = Record->Tid;
    Span->Pid = Record->Pid;
}

static
PROLLUP_SPAN_ENTRY
SpanEntry(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Spans,
    ULONGLONG NameId,
    ULONGLONG Row
    )
/*++

Routine Description:

    The entry of span name NameId in the fold's span table, added if new,
    through the memo of recent names.

--*/
{
    PROLLUP_RECENT_NAME Recent = RecentName(Rollup, (ULONG)NameId);
    PROLLUP_SPAN_ENTRY Entry;
    BOOL Added;

    if (Recent->Span != ROLLUP_NO_ENTRY) {
        return RollupTableEntry(Spans, Recent->Span);
    }

    Entry = RollupTableInsert(Rollup->Rtl, Spans, NameId, 0, &Added);
    if (Entry != NULL) {
        if (Added) {
            Entry->FirstRow = Row;
        }
        Recent->Span = EntryIndex(Spans, Entry);
    }
    return Entry;
}

//
// The parent's name of a row: NULL parent (none), a row folded or at
// least committed (UpTo) and so readable, or one not committed yet
// (pending: crafted stores only; every writer writes parents first).
//

typedef enum _PARENT_STATE {
    ParentNone = 0,
    ParentKnown,
    ParentPending,
} PARENT_STATE;

static inline
PARENT_STATE
SpanParent(
    PTRACE_ROLLUP Rollup,
    LONGLONG ParentId,
    ULONGLONG UpTo,
    PULONGLONG ParentNameId
    )
{
    PSPAN_RECORD Parent;

    if (ParentId < 0) {
        return ParentNone;
    }
    if ((ULONGLONG)ParentId >= UpTo) {
        return ParentPending;
    }

    Parent = (PSPAN_RECORD)RecordAt(Rollup, (ULONGLONG)ParentId);
    *ParentNameId = Parent->NameId;
    return ParentKnown;
}

static inline
VOID
AddFinalDuration(
    PROLLUP_SPAN_ENTRY Entry,
    LONGLONG Duration,
    BOOL Outermost
    )
{
    if (Entry->Final == 0 || Duration > Entry->MaxDur) {
        Entry->MaxDur = Duration;
    }
    Entry->Final++;
    AddChecked(&Entry->SumDur, Duration, &Entry->Flags);
    if (Outermost) {
        Entry->Outermost++;
        AddChecked(&Entry->OutermostDur, Duration, &Entry->Flags);
    }
}

RTL_STATUS
RollupAddSpanDuration(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Spans,
    ULONGLONG NameId,
    LONGLONG Duration,
    BOOL Outermost,
    ULONGLONG Row
    )
/*++

Routine Description:

    Adds a final row's dur to its name's entry.

--*/
{
    PROLLUP_SPAN_ENTRY Entry = SpanEntry(Rollup, Spans, NameId, Row);

    if (Entry == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    AddFinalDuration(Entry, Duration, Outermost);
    return RTL_STATUS_OK;
}

RTL_STATUS
RollupAddChildDuration(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Spans,
    ULONGLONG ParentNameId,
    LONGLONG Duration,
    ULONGLONG Row
    )
{
    PROLLUP_SPAN_ENTRY Entry = SpanEntry(Rollup, Spans, ParentNameId, Row);

    if (Entry == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }

    Entry->Children++;
    AddChecked(&Entry->ChildDur, Duration, &Entry->Flags);
    return RTL_STATUS_OK;
}

RTL_STATUS
RollupRecheckOpenSpans(
    PTRACE_ROLLUP Rollup,
    ULONGLONG UpTo
    )
/*++

Routine Description:

    Looks again at the rows that were not final: a call that has returned
    adds its dur and ends for the recursion test of its key; a parent that
    is committed now gets its child's dur.  Rows with nothing left to add
    leave the table, which stays in row order.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupSpanOpen];
    PROLLUP_TABLE Spans = &Rollup->Tables[TraceRollupSpans];
    PROLLUP_TABLE Keys = &Rollup->Tables[TraceRollupSpanKeys];
    PROLLUP_SPAN_OPEN_ENTRY Entry;
    PROLLUP_SPAN_KEY_ENTRY Key;
    SPAN_RECORD Span;
    ULONGLONG Index;
    ULONGLONG Kept = 0;
    RTL_STATUS Status;

    for (Index = 0; Index < Open->Count; Index++) {
        Entry = RollupTableEntry(Open, Index);
        ReadSpan(Rollup, Entry->Row, &Span);

        if ((Entry->Flags & ROLLUP_OPEN_PARENT_PENDING) != 0 &&
            SpanParent(Rollup, Span.ParentId, UpTo,
                       &Entry->ParentNameId) == ParentKnown) {
            Entry->Flags &= ~ROLLUP_OPEN_PARENT_PENDING;
        }

        if ((Entry->Flags & ROLLUP_OPEN_DUR) != 0 &&
            (Span.Flags & SPAN_FLAG_END_MISSING) == 0) {
            Status = RollupAddSpanDuration(Rollup, Spans, Entry->NameId,
                                           Span.Duration,
                                           (Entry->Flags &
                                            ROLLUP_OPEN_OUTERMOST) != 0,
                                           Entry->Row);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            if ((Entry->Flags & ROLLUP_OPEN_KEY) != 0) {
                ULONGLONG Canonical;

                Status = SpanCanonical(Rollup, (ULONG)Entry->NameId,
                                       Entry->Row, &Canonical);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
                Key = RollupTableFind(Keys, (ULONGLONG)Span.Pid |
                                      ((ULONGLONG)Span.Tid << 32),
                                      Canonical);
                if (Key != NULL) {
                    Key->Open--;
                    Key->MaxEnd = Key->MaxEnd > SaturatingAdd(Span.Timestamp,
                                                              Span.Duration) ?
                                  Key->MaxEnd :
                                  SaturatingAdd(Span.Timestamp,
                                                Span.Duration);
                }
            }
            Entry->Flags &= ~(ROLLUP_OPEN_DUR | ROLLUP_OPEN_KEY);
        }

        if ((Entry->Flags & (ROLLUP_OPEN_PARENT | ROLLUP_OPEN_DUR |
                             ROLLUP_OPEN_PARENT_PENDING)) ==
            ROLLUP_OPEN_PARENT) {
            Status = RollupAddChildDuration(Rollup, Spans,
                                            Entry->ParentNameId,
                                            Span.Duration, Entry->Row);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Entry->Flags &= ~ROLLUP_OPEN_PARENT;
        }

        if ((Entry->Flags & (ROLLUP_OPEN_DUR | ROLLUP_OPEN_PARENT)) != 0) {
            if (Kept != Index) {
                Rtl->CopyMemory(RollupTableEntry(Open, Kept), Entry,
                                sizeof(*Entry));
            }
            Kept++;
        }
    }

    Open->Count = Kept;
    return RTL_STATUS_OK;
}

RTL_STATUS
RollupFoldSpans(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To,
    ULONGLONG UpTo
    )
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Spans = &Rollup->Tables[TraceRollupSpans];
    PROLLUP_TABLE Keys = &Rollup->Tables[TraceRollupSpanKeys];
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupSpanOpen];
    PROLLUP_SPAN_ENTRY Entry;
    PROLLUP_SPAN_KEY_ENTRY Key;
    PROLLUP_SPAN_OPEN_ENTRY Waiting;
    PROLLUP_RECENT_NAME Recent;
    SPAN_RECORD Span;
    PARENT_STATE Parent;
    ULONGLONG ParentNameId = 0;
    ULONGLONG PidTid;
    ULONGLONG Row;
    LONGLONG End;
    BOOL Outermost;
    BOOL Added;
    RTL_STATUS Status;

    for (Row = From; Row < To; Row++) {
        ReadSpan(Rollup, Row, &Span);

        Entry = SpanEntry(Rollup, Spans, Span.NameId, Row);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Entry->Calls == 0) {
            Entry->FirstRow = Row;
        }
        if (Entry->Calls == 0 || Span.Depth < Entry->MinDepth) {
            Entry->MinDepth = Span.Depth;
        }
        if (Entry->Calls == 0 || Span.Depth > Entry->MaxDepth) {
            Entry->MaxDepth = Span.Depth;
        }
        Entry->Calls++;

        Recent = RecentName(Rollup, Span.NameId);
        if (Recent->Canonical == ROLLUP_NO_ENTRY) {
            Status = SpanCanonical(Rollup, Span.NameId, Row,
                                   &Recent->Canonical);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        PidTid = (ULONGLONG)Span.Pid | ((ULONGLONG)Span.Tid << 32);
        Key = RecentGroup(Rollup, Keys, PidTid, Recent->Canonical, &Added);
        if (Key == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Key->MaxEnd = INT64_MINIMUM;
        }
        Outermost = (Key->Open == 0 && Span.Timestamp >= Key->MaxEnd);

        Parent = SpanParent(Rollup, Span.ParentId, UpTo, &ParentNameId);

        if ((Span.Flags & SPAN_FLAG_END_MISSING) == 0) {
            End = SaturatingAdd(Span.Timestamp, Span.Duration);
            if (End > Key->MaxEnd) {
                Key->MaxEnd = End;
            }

            //
            // Entry still addresses the row's entry: nothing was added to
            // the span table since (the parent's may be, next).
            //

            AddFinalDuration(Entry, Span.Duration, Outermost);
            if (Parent == ParentKnown) {
                Status = RollupAddChildDuration(Rollup, Spans, ParentNameId,
                                                Span.Duration, Row);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }
            if (Parent != ParentPending) {
                continue;
            }
        } else {
            Key->Open++;
        }

        Waiting = RollupTableAppend(Rtl, Open);
        if (Waiting == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Waiting->Row = Row;
        Waiting->NameId = Span.NameId;
        Waiting->ParentNameId = ParentNameId;
        if (Parent != ParentNone) {
            Waiting->Flags |= ROLLUP_OPEN_PARENT;
        }
        if (Parent == ParentPending) {
            Waiting->Flags |= ROLLUP_OPEN_PARENT_PENDING;
        }
        if ((Span.Flags & SPAN_FLAG_END_MISSING) != 0) {
            Waiting->Flags |= ROLLUP_OPEN_DUR | ROLLUP_OPEN_KEY;
            if (Outermost) {
                Waiting->Flags |= ROLLUP_OPEN_OUTERMOST;
            }
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
RollupSettleOpenSpans(
    PTRACE_ROLLUP Rollup,
    ULONGLONG UpTo
    )
{
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupSpanOpen];
    PROLLUP_TABLE Spans = &Rollup->Tables[TraceRollupSpans];
    PROLLUP_SPAN_OPEN_ENTRY Entry;
    SPAN_RECORD Span;
    ULONGLONG Index;
    BOOL Parent;
    RTL_STATUS Status;

    for (Index = 0; Index < Open->Count; Index++) {
        Entry = RollupTableEntry(Open, Index);
        ReadSpan(Rollup, Entry->Row, &Span);

        Parent = (Entry->Flags & ROLLUP_OPEN_PARENT) != 0;
        if ((Entry->Flags & ROLLUP_OPEN_PARENT_PENDING) != 0) {
            Parent = SpanParent(Rollup, Span.ParentId, UpTo,
                                &Entry->ParentNameId) == ParentKnown;
        }

        if ((Entry->Flags & ROLLUP_OPEN_DUR) != 0) {
            Status = RollupAddSpanDuration(Rollup, Spans, Entry->NameId,
                                           Span.Duration,
                                           (Entry->Flags &
                                            ROLLUP_OPEN_OUTERMOST) != 0,
                                           Entry->Row);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        if (Parent) {
            Status = RollupAddChildDuration(Rollup, Spans,
                                            Entry->ParentNameId,
                                            Span.Duration, Entry->Row);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }

        Entry->Flags = ((Entry->Flags & ROLLUP_OPEN_DUR) != 0 &&
                        (Span.Flags & SPAN_FLAG_END_MISSING) != 0) ?
                       ROLLUP_OPEN_RUNNING : 0;
    }

    return RTL_STATUS_OK;
}
