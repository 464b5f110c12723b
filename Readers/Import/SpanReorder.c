/*++

Module Name:

    SpanReorder.c

Abstract:

    This module hands span events to the span builder (SpanBuilder.c) in
    the order of time, whatever order the input wrote them in.

    The builder nests by a stack per thread, which is right only when the
    events of a thread come in order of their begin.  Producers that write a
    complete event (Chrome "X") when it ends - clang -ftime-trace, Node.js -
    write a parent after everything it contains.  A reader that scans its
    input first tells this module about every span event
    (TraceImportSpanScanOrder); the scan finds whether any event comes
    before one written earlier, and by how much time at most (the lateness,
    L).  If none does, the import hands events straight through.  If some
    do, the import holds events in a binary heap and releases the first
    one as soon as the greatest ts seen exceeds its ts by more than L: any
    event still to come is at most L before the greatest ts seen when it
    comes, so it is later than the one released.  The order is therefore
    exact, and memory is what the input's disorder needs - capped at the
    window (Import->ReorderWindow events, 56 bytes each).  When the window
    is full the first event is released early; an event that then arrives
    after its turn is placed under the deepest open span that contains it
    and flagged SPAN_FLAG_LATE (TraceImportSpanLate).

    The order (TraceSpanEventBefore): by ts; at the same ts, begins, ends
    and instants first, in input order (a zero-length B/E pair stays a
    pair), then complete events, longer first (a parent before what it
    contains), and among complete events of the same interval the one
    written later first (written at its end, the later one is the outer),
    but for zero-duration ones, which contain nothing: in input order.

Environment:

    Core: no C runtime; memory only through PRTL.  Called by the readers
    that hand over span events (Chrome JSON) and by ImportRun.c (drain and
    free at the end); calls SpanBuilder.c.  The window is opened by
    SpanBuilder.c at the end of the scan (TraceImportSpanReorderBegin).

--*/

#include "TraceImport.h"

BOOL
TraceSpanEventBefore(
    const TRACE_SPAN_EVENT *A,
    const TRACE_SPAN_EVENT *B
    )
{
    BOOL CompleteA = (A->Kind == TraceSpanComplete);
    BOOL CompleteB = (B->Kind == TraceSpanComplete);

    if (A->Timestamp != B->Timestamp) {
        return A->Timestamp < B->Timestamp;
    }
    if (CompleteA != CompleteB) {
        return CompleteB;
    }
    if (!CompleteA) {
        return A->Sequence < B->Sequence;
    }
    if (A->Duration != B->Duration) {
        return A->Duration > B->Duration;
    }
    if (A->Duration == 0) {
        return A->Sequence < B->Sequence;
    }
    return A->Sequence > B->Sequence;
}

VOID
TraceImportSpanScanOrder(
    PTRACE_IMPORT Import,
    const TRACE_SPAN_EVENT *Event
    )
/*++

Routine Description:

    Notes one span event of the scan: whether it comes before the greatest
    event read so far, and by how much time.

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;
    ULONGLONG Lag;

    if (Reorder->ScanSeen && TraceSpanEventBefore(Event, &Reorder->ScanMax)) {

        //
        // ScanMax.Timestamp >= Event->Timestamp: the difference as an
        // unsigned number is exact.
        //

        Lag = (ULONGLONG)Reorder->ScanMax.Timestamp -
              (ULONGLONG)Event->Timestamp;
        Reorder->ScanDisordered = TRUE;
        if (Lag > Reorder->ScanLateness) {
            Reorder->ScanLateness = Lag;
        }
        return;
    }

    Reorder->ScanMax = *Event;
    Reorder->ScanSeen = TRUE;
}

static
RTL_STATUS
Dispatch(
    PTRACE_IMPORT Import,
    const TRACE_SPAN_EVENT *Span,
    BOOL Late
    )
{
    TRACE_EVENT_CONTEXT Event;

    Event.Timestamp = Span->Timestamp;
    Event.Tid = Span->Tid;
    Event.Pid = Span->Pid;
    Event.Cpu = TRACE_NULL_ULONG;
    Event.CommId = Span->CommId;
    Event.FlagsId = TRACE_NULL_ULONG;
    Event.Padding = 0;
    Import->EventOffset = Span->Sequence;

    if (Late) {
        return TraceImportSpanLate(Import, &Event, Span);
    }

    switch (Span->Kind) {
    case TraceSpanBegin:
        return TraceImportSpanBegin(Import, &Event, Span->NameId,
                                    Span->CategoryId, Span->ArgsId);
    case TraceSpanEnd:
        return TraceImportSpanEnd(Import, &Event, Span->NameId,
                                  Span->CategoryId, Span->ArgsId);
    case TraceSpanComplete:
        return TraceImportSpanComplete(Import, &Event, Span->Duration,
                                       Span->NameId, Span->CategoryId,
                                       Span->ArgsId);
    default:
        return TraceImportInstant(Import, &Event, Span->NameId,
                                  Span->CategoryId, Span->ArgsId,
                                  Span->Kind == TraceSpanInstant);
    }
}

static
VOID
SiftDown(
    PTRACE_SPAN_REORDER Reorder,
    ULONG Index
    )
{
    PTRACE_SPAN_EVENT Heap = Reorder->Heap;
    TRACE_SPAN_EVENT Moving = Heap[Index];

    for (;;) {
        ULONG Child = 2 * Index + 1;

        if (Child >= Reorder->Count) {
            break;
        }
        if (Child + 1 < Reorder->Count &&
            TraceSpanEventBefore(&Heap[Child + 1], &Heap[Child])) {
            Child++;
        }
        if (!TraceSpanEventBefore(&Heap[Child], &Moving)) {
            break;
        }
        Heap[Index] = Heap[Child];
        Index = Child;
    }
    Heap[Index] = Moving;
}

static
VOID
SiftUp(
    PTRACE_SPAN_REORDER Reorder,
    ULONG Index
    )
{
    PTRACE_SPAN_EVENT Heap = Reorder->Heap;
    TRACE_SPAN_EVENT Moving = Heap[Index];

    while (Index != 0) {
        ULONG Parent = (Index - 1) / 2;

        if (!TraceSpanEventBefore(&Moving, &Heap[Parent])) {
            break;
        }
        Heap[Index] = Heap[Parent];
        Index = Parent;
    }
    Heap[Index] = Moving;
}

static
RTL_STATUS
ReleaseFirst(
    PTRACE_IMPORT Import
    )
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;

    Reorder->LastReleased = Reorder->Heap[0];
    Reorder->Released = TRUE;
    Reorder->Count--;
    if (Reorder->Count != 0) {
        Reorder->Heap[0] = Reorder->Heap[Reorder->Count];
        SiftDown(Reorder, 0);
    }

    return Dispatch(Import, &Reorder->LastReleased, FALSE);
}

static
BOOL
Grow(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Doubles the heap, up to the window.  FALSE when it is at the window or
    out of memory: the caller releases an event instead.

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;
    PRTL Rtl = Import->Rtl;
    ULONG Capacity;
    PVOID Heap;

    if (Reorder->Capacity >= Reorder->Limit) {
        return FALSE;
    }
    Capacity = Reorder->Capacity ? Reorder->Capacity * 2 : 1024;
    if (Capacity > Reorder->Limit) {
        Capacity = Reorder->Limit;
    }
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, (SIZE_T)Capacity *
                                        sizeof(TRACE_SPAN_EVENT), &Heap))) {
        return FALSE;
    }
    if (Reorder->Heap != NULL) {
        Rtl->CopyMemory(Heap, Reorder->Heap,
                        (SIZE_T)Reorder->Count * sizeof(TRACE_SPAN_EVENT));
        Rtl->Unmap(Rtl, Reorder->Heap,
                   (SIZE_T)Reorder->Capacity * sizeof(TRACE_SPAN_EVENT));
    }
    Reorder->Heap = (PTRACE_SPAN_EVENT)Heap;
    Reorder->Capacity = Capacity;
    return TRUE;
}

RTL_STATUS
TraceImportSpanEvent(
    PTRACE_IMPORT Import,
    const TRACE_SPAN_EVENT *Event
    )
/*++

Routine Description:

    Hands a span event to the builder, through the window when the scan
    opened one.

Return Value:

    RTL_STATUS_OK, or the error of a span the builder could not add (in
    Import->Error); the events released before it were added.

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;
    RTL_STATUS Status;

    if (!Reorder->Active) {
        return Dispatch(Import, Event, FALSE);
    }

    if (Reorder->Released &&
        TraceSpanEventBefore(Event, &Reorder->LastReleased)) {
        Reorder->Late++;
        return Dispatch(Import, Event, TRUE);
    }

    if (Reorder->Count == Reorder->Capacity && !Grow(Import)) {
        Status = ReleaseFirst(Import);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (TraceSpanEventBefore(Event, &Reorder->LastReleased)) {
            Reorder->Late++;
            return Dispatch(Import, Event, TRUE);
        }
    }

    Reorder->Heap[Reorder->Count] = *Event;
    SiftUp(Reorder, Reorder->Count);
    Reorder->Count++;
    if (Event->Timestamp > Reorder->MaxTs) {
        Reorder->MaxTs = Event->Timestamp;
    }

    //
    // Release what nothing still to come can precede.  MaxTs is at least
    // the ts of every event held, so the difference is exact unsigned.
    //

    while (Reorder->Count != 0 &&
           (ULONGLONG)Reorder->MaxTs - (ULONGLONG)Reorder->Heap[0].Timestamp >
               Reorder->Lateness) {
        Status = ReleaseFirst(Import);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceImportSpanReorderDrain(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Hands over every event still held, in order (at the end of an input,
    or when the reader stops at an error).

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;
    RTL_STATUS Status;

    while (Reorder->Count != 0) {
        Status = ReleaseFirst(Import);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return RTL_STATUS_OK;
}

VOID
TraceImportSpanReorderFree(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Releases the window's memory.  Late and Limit stay, for the caller's
    report.

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;

    if (Reorder->Heap != NULL) {
        Import->Rtl->Unmap(Import->Rtl, Reorder->Heap,
                           (SIZE_T)Reorder->Capacity *
                               sizeof(TRACE_SPAN_EVENT));
    }
    Reorder->Heap = NULL;
    Reorder->Count = 0;
    Reorder->Capacity = 0;
    Reorder->Active = FALSE;
}
