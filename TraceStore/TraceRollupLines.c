/*++

Module Name:

    TraceRollupLines.c

Abstract:

    This module implements the line part of a rollup's fold: per
    (function, file, line number) of the line store (trace-python --lines),
    the rows, and the sums of their dur and self_dur: what line_time and
    line_hot group by and add up.

    A line row is written when its line event comes, with
    SPAN_FLAG_END_MISSING, and finished at the next event of its frame, so
    the rows of the last moment are not final when a fold reaches them.
    Such a row adds its hit when folded and its dur and self_dur when it
    turns final; until then it waits in the open-line table (at most one a
    running frame), which every fold looks at again first.  A reader adds
    the dur of the rows still waiting as it reads them, as the views' SQL
    over the rows does.

Environment:

    Core: no C runtime; the OS only through PRTL (memory).  Called by
    TraceRollupFold.c (RollupFold) and TraceRollupAnswer.c (a reader's last
    step); calls TraceRollupTable.c.

--*/

#include "TraceStore/TraceRollupInternal.h"

static inline
VOID
ReadLine(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Row,
    PLINE_RECORD Line
    )
/*++

Routine Description:

    Copies what the fold needs of a line row.  Its dur and self_dur are
    read as the Python tracer writes them (both, then flags with release):
    a row whose flags say it is final has its final durations.

--*/
{
    PLINE_RECORD Record = (PLINE_RECORD)RecordAt(Rollup, Row);

    Line->Flags = __atomic_load_n(&Record->Flags, __ATOMIC_ACQUIRE);
    Line->Duration = __atomic_load_n(&Record->Duration, __ATOMIC_RELAXED);
    Line->SelfDuration = __atomic_load_n(&Record->SelfDuration,
                                         __ATOMIC_RELAXED);
    Line->FileId = Record->FileId;
    Line->LineNo = Record->LineNo;
    Line->NameId = Record->NameId;
}

static inline
VOID
AddLineDurations(
    PROLLUP_LINE_ENTRY Entry,
    PLINE_RECORD Line
    )
{
    AddChecked(&Entry->SumDur, Line->Duration, &Entry->Flags);
    AddChecked(&Entry->SumSelfDur, Line->SelfDuration, &Entry->Flags);
}

static
RTL_STATUS
AddWaitingLine(
    PTRACE_ROLLUP Rollup,
    PROLLUP_LINE_OPEN_ENTRY Waiting,
    PLINE_RECORD Line
    )
/*++

Routine Description:

    Adds an open row's durations, as Line holds them, to its group (which
    its fold made; a loaded image's open rows were checked to have one).

--*/
{
    PROLLUP_LINE_ENTRY Entry;
    BOOL Added;

    Entry = RollupTableInsert(Rollup->Rtl, &Rollup->Tables[TraceRollupLines],
                              Waiting->NameFile, Waiting->LineNo, &Added);
    if (Entry == NULL) {
        return RTL_STATUS_NO_MEMORY;
    }
    if (Added) {
        Entry->FirstRow = Waiting->Row;
    }

    AddLineDurations(Entry, Line);
    return RTL_STATUS_OK;
}

RTL_STATUS
RollupRecheckOpenLines(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    Looks again at the rows that were not final: a line that has ended
    adds its durations and leaves the table, which stays in row order.

--*/
{
    PRTL Rtl = Rollup->Rtl;
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupLineOpen];
    PROLLUP_LINE_OPEN_ENTRY Waiting;
    LINE_RECORD Line;
    ULONGLONG Index;
    ULONGLONG Kept = 0;
    RTL_STATUS Status;

    for (Index = 0; Index < Open->Count; Index++) {
        Waiting = RollupTableEntry(Open, Index);
        ReadLine(Rollup, Waiting->Row, &Line);

        if ((Line.Flags & SPAN_FLAG_END_MISSING) == 0) {
            Status = AddWaitingLine(Rollup, Waiting, &Line);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            continue;
        }

        if (Kept != Index) {
            Rtl->CopyMemory(RollupTableEntry(Open, Kept), Waiting,
                            sizeof(*Waiting));
        }
        Kept++;
    }

    Open->Count = Kept;
    return RTL_STATUS_OK;
}

RTL_STATUS
RollupFoldLines(
    PTRACE_ROLLUP Rollup,
    ULONGLONG From,
    ULONGLONG To
    )
{
    PROLLUP_TABLE Lines = &Rollup->Tables[TraceRollupLines];
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupLineOpen];
    PROLLUP_LINE_ENTRY Entry;
    PROLLUP_LINE_OPEN_ENTRY Waiting;
    LINE_RECORD Line;
    ULONGLONG NameFile;
    ULONGLONG Row;
    BOOL Added;

    for (Row = From; Row < To; Row++) {
        ReadLine(Rollup, Row, &Line);

        //
        // Loops run the same few lines: the memo of recent groups finds
        // most rows' group without a probe.
        //

        NameFile = (ULONGLONG)Line.NameId | ((ULONGLONG)Line.FileId << 32);
        Entry = RecentGroup(Rollup, Lines, NameFile, Line.LineNo, &Added);
        if (Entry == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        if (Added) {
            Entry->FirstRow = Row;
        }
        Entry->Hits++;

        if ((Line.Flags & SPAN_FLAG_END_MISSING) == 0) {
            AddLineDurations(Entry, &Line);
            continue;
        }

        Waiting = RollupTableAppend(Rollup->Rtl, Open);
        if (Waiting == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Waiting->Row = Row;
        Waiting->Flags = ROLLUP_OPEN_DUR;
        Waiting->NameFile = NameFile;
        Waiting->LineNo = Line.LineNo;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
RollupSettleOpenLines(
    PTRACE_ROLLUP Rollup
    )
/*++

Routine Description:

    A reader's last step: every row still open adds its durations as they
    are now, and is marked ROLLUP_OPEN_RUNNING while its line runs.

--*/
{
    PROLLUP_TABLE Open = &Rollup->Tables[TraceRollupLineOpen];
    PROLLUP_LINE_OPEN_ENTRY Waiting;
    LINE_RECORD Line;
    ULONGLONG Index;
    RTL_STATUS Status;

    for (Index = 0; Index < Open->Count; Index++) {
        Waiting = RollupTableEntry(Open, Index);
        ReadLine(Rollup, Waiting->Row, &Line);

        Status = AddWaitingLine(Rollup, Waiting, &Line);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Waiting->Flags = (Line.Flags & SPAN_FLAG_END_MISSING) != 0 ?
                         ROLLUP_OPEN_RUNNING : 0;
    }

    return RTL_STATUS_OK;
}
