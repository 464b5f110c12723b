/*++

Module Name:

    SpanBuilder.c

Abstract:

    This module builds the `span` store (like Perfetto's slice table) from
    begins, ends, complete spans and instants, nesting them per thread with
    a stack of open spans (see TraceImport.h, "Spans").  Span records are
    reserved at the begin and their dur filled at the end; commits of the
    span store stop short of the oldest span still open, so committed rows
    never change.  Spans whose end lies after the recording are closed at
    the end of the import; ends without a begin, found by the reader's scan
    before the import, become spans opened at the trace's first ts.  Events
    that the input writes out of time order reach the builder through
    SpanReorder.c; the end of the scan opens that window here
    (TraceImportSpanReorderBegin only sets its state), so that the builder
    never calls up into it.

Environment:

    Core: no C runtime; the OS (memory) only through PRTL.  Called by the
    readers (Chrome JSON, uftrace), SpanReorder.c and ImportRun.c (commit
    limit, closing open spans at the end); calls ImportSinks.c for tasks,
    TraceImport.c to open the span store, and the store API.

--*/

#include "TraceImport.h"
#include "ImportInternal.h"

#define TRACE_SPAN_OPEN         ((LONGLONG)0x8000000000000000ULL)
#define TRACE_SPAN_PRELUDE      0x8000000000000000ULL
#define TRACE_SPAN_MAX_DEPTH    65536
#define TRACE_SPAN_MAX_THREADS  (1u << 20)
#define TRACE_SPAN_POOL_BLOCK   (256 * 1024)
#define TRACE_SPAN_FIRST_FRAMES 8

typedef struct _TRACE_SPAN_BLOCK {
    struct _TRACE_SPAN_BLOCK *Next;
    SIZE_T Size;
} TRACE_SPAN_BLOCK, *PTRACE_SPAN_BLOCK;

static
RTL_STATUS
SpanError(
    PTRACE_IMPORT Import,
    RTL_STATUS Status,
    PCSZ What,
    ULONG Tid
    )
{
    return RtlSetError(&Import->Error, Status, (ULONG)Import->Lines,
                       Import->EventOffset,
                       "%s: offset %llu: thread %u: %s", Import->Path,
                       Import->EventOffset, Tid, What);
}

static
PVOID
SpanAllocate(
    PTRACE_IMPORT Import,
    SIZE_T Bytes
    )
/*++

Routine Description:

    Carves Bytes (a multiple of 16) from the builder's pool of pages.  The
    pool only grows; everything is released at the end of the import.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    PTRACE_SPAN_BLOCK Block;
    SIZE_T Size;
    PVOID Address;

    if ((SIZE_T)(Builder->PoolEnd - Builder->PoolCursor) < Bytes) {
        Size = TRACE_SPAN_POOL_BLOCK;
        if (Bytes + sizeof(TRACE_SPAN_BLOCK) > Size) {
            Size = (SIZE_T)ALIGN_UP(Bytes + sizeof(TRACE_SPAN_BLOCK),
                                    RTL_PAGE_SIZE);
        }
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Size, &Address))) {
            return NULL;
        }
        Block = (PTRACE_SPAN_BLOCK)Address;
        Block->Next = (PTRACE_SPAN_BLOCK)Builder->Blocks;
        Block->Size = Size;
        Builder->Blocks = Block;
        Builder->PoolCursor = (PBYTE)(Block + 1);
        Builder->PoolEnd = (PBYTE)Address + Size;
    }

    Address = Builder->PoolCursor;
    Builder->PoolCursor += Bytes;
    return Address;
}

static
ULONG
SpanHash(
    ULONG Pid,
    ULONG Tid
    )
{
    ULONGLONG Key = ((ULONGLONG)Pid << 32) | Tid;

    Key ^= Key >> 31;
    Key *= 0x9E3779B97F4A7C15ULL;
    return (ULONG)(Key >> 32);
}

static
RTL_STATUS
SpanGrowThreads(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Doubles the thread array and rebuilds the open-addressing slots (twice
    as many slots as threads).

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    ULONG Capacity = Builder->ThreadCapacity ? Builder->ThreadCapacity * 2 : 64;
    ULONG SlotCount = Capacity * 2;
    PVOID Threads;
    PVOID Slots;
    ULONG Number;

    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Capacity *
                                        sizeof(TRACE_SPAN_THREAD), &Threads))) {
        return RTL_STATUS_NO_MEMORY;
    }
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, SlotCount * sizeof(ULONG),
                                        &Slots))) {
        Rtl->Unmap(Rtl, Threads, Capacity * sizeof(TRACE_SPAN_THREAD));
        return RTL_STATUS_NO_MEMORY;
    }

    if (Builder->Threads != NULL) {
        Rtl->CopyMemory(Threads, Builder->Threads,
                        Builder->ThreadCount * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Threads,
                   Builder->ThreadCapacity * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Slots,
                   (Builder->SlotMask + 1) * sizeof(ULONG));
    }

    Builder->Threads = (PTRACE_SPAN_THREAD)Threads;
    Builder->ThreadCapacity = Capacity;
    Builder->Slots = (PULONG)Slots;
    Builder->SlotMask = SlotCount - 1;

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];
        ULONG Slot = SpanHash(Thread->Pid, Thread->Tid) & Builder->SlotMask;

        while (Builder->Slots[Slot] != 0) {
            Slot = (Slot + 1) & Builder->SlotMask;
        }
        Builder->Slots[Slot] = Number + 1;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
SpanFindThread(
    PTRACE_IMPORT Import,
    ULONG Pid,
    ULONG Tid,
    PTRACE_SPAN_THREAD *Result
    )
/*++

Routine Description:

    Returns the builder's state for thread (Pid, Tid), adding it if new.
    The pointer is valid until the next call (the array may move).

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PTRACE_SPAN_THREAD Thread;
    ULONG Slot;
    RTL_STATUS Status;

    if (Builder->LastThread != 0) {
        Thread = &Builder->Threads[Builder->LastThread - 1];
        if (Thread->Pid == Pid && Thread->Tid == Tid) {
            *Result = Thread;
            return RTL_STATUS_OK;
        }
    }

    if (Builder->Slots != NULL) {
        Slot = SpanHash(Pid, Tid) & Builder->SlotMask;
        while (Builder->Slots[Slot] != 0) {
            Thread = &Builder->Threads[Builder->Slots[Slot] - 1];
            if (Thread->Pid == Pid && Thread->Tid == Tid) {
                Builder->LastThread = Builder->Slots[Slot];
                *Result = Thread;
                return RTL_STATUS_OK;
            }
            Slot = (Slot + 1) & Builder->SlotMask;
        }
    }

    if (Builder->ThreadCount == TRACE_SPAN_MAX_THREADS) {
        return SpanError(Import, RTL_STATUS_TOO_LARGE,
                         "more than 1048576 threads with spans", Tid);
    }

    if (Builder->ThreadCount == Builder->ThreadCapacity) {
        Status = SpanGrowThreads(Import);
        if (!RTL_SUCCESS(Status)) {
            return SpanError(Import, Status, "out of memory for spans", Tid);
        }
    }

    Thread = &Builder->Threads[Builder->ThreadCount];
    Import->Rtl->FillMemory(Thread, sizeof(*Thread), 0);
    Thread->Pid = Pid;
    Thread->Tid = Tid;

    Slot = SpanHash(Pid, Tid) & Builder->SlotMask;
    while (Builder->Slots[Slot] != 0) {
        Slot = (Slot + 1) & Builder->SlotMask;
    }
    Builder->ThreadCount++;
    Builder->Slots[Slot] = Builder->ThreadCount;
    Builder->LastThread = Builder->ThreadCount;

    *Result = Thread;
    return RTL_STATUS_OK;
}

static
PVOID
SpanGrow(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    PVOID Old,
    ULONG Count,
    ULONG Capacity,
    SIZE_T Size
    )
/*++

Routine Description:

    A thread's array (Count elements of Size bytes at Old) moved to a new
    one of Capacity elements from the pool; the old one stays in the pool
    (the waste is less than what is in use, since the arrays double).
    NULL, with the error set, when the pool has no room.

--*/
{
    PVOID New = SpanAllocate(Import, Capacity * Size);

    if (New == NULL) {
        SpanError(Import, RTL_STATUS_NO_MEMORY, "out of memory for spans",
                  Thread->Tid);
        return NULL;
    }
    if (Count != 0) {
        Import->Rtl->CopyMemory(New, Old, Count * Size);
    }

    return New;
}

static
PSPAN_RECORD
SpanRecord(
    PTRACE_IMPORT Import,
    ULONGLONG Index
    );

static
RTL_STATUS
SpanPush(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    ULONGLONG Index,
    LONGLONG End
    )
{
    PTRACE_SPAN_FRAME Frames;
    ULONG Capacity;

    if (Thread->Depth == Thread->Capacity) {
        if (Thread->Capacity >= TRACE_SPAN_MAX_DEPTH) {
            return SpanError(Import, RTL_STATUS_TOO_LARGE,
                             "spans nested deeper than 65536", Thread->Tid);
        }
        Capacity = Thread->Capacity ? Thread->Capacity * 2 :
                                      TRACE_SPAN_FIRST_FRAMES;
        Frames = (PTRACE_SPAN_FRAME)SpanGrow(Import, Thread, Thread->Frames,
                                             Thread->Depth, Capacity,
                                             sizeof(TRACE_SPAN_FRAME));
        if (Frames == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Thread->Frames = Frames;
        Thread->Capacity = Capacity;
    }

    Thread->Frames[Thread->Depth].Index = Index;
    Thread->Frames[Thread->Depth].End = End;
    Thread->Frames[Thread->Depth].Begin = SpanRecord(Import, Index &
                                                     ~TRACE_SPAN_PRELUDE)->Timestamp;
    Thread->Frames[Thread->Depth].Written = Import->EventOffset;
    Thread->Depth++;
    return RTL_STATUS_OK;
}

static
VOID
SpanPopEnded(
    PTRACE_SPAN_THREAD Thread,
    LONGLONG Timestamp,
    ULONGLONG ZeroWritten
    )
/*++

Routine Description:

    Pops the spans of known end (Chrome X) that ended by Timestamp: an
    event at or after a span's end is not inside it, but for a
    zero-duration X event at the end of a longer one that was written
    before it (ZeroWritten, its input position; ~0 for any other event):
    X events are written when they end (clang -ftime-trace), so it ended
    first, inside the span, as its last callee, in the microsecond the
    span ended.

--*/
{
    while (Thread->Depth != 0) {
        PTRACE_SPAN_FRAME Top = &Thread->Frames[Thread->Depth - 1];

        if (Top->End == TRACE_SPAN_OPEN || (Top->Index & TRACE_SPAN_PRELUDE) ||
            Top->End > Timestamp ||
            (Top->End == Timestamp && Top->Begin < Timestamp &&
             ZeroWritten < Top->Written)) {
            break;
        }
        Thread->Depth--;
    }
}

static
RTL_STATUS
SpanEnter(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    LONGLONG End,
    BOOL PopEnded,
    PTRACE_SPAN_THREAD *Thread
    )
/*++

Routine Description:

    What every span event does first: the thread and process rows of its
    task, the builder's state for its thread, the trace's last ts moved to
    End (where the span is known to end, else the event's ts) and, when
    PopEnded, the complete spans that ended by the event's ts left.

--*/
{
    RTL_STATUS Status;

    Status = TraceImportNoteTask(Import, Event);
    if (RTL_SUCCESS(Status)) {
        Status = SpanFindThread(Import, Event->Pid, Event->Tid, Thread);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (End > Import->LastTs) {
        Import->LastTs = End;
    }
    if (PopEnded) {
        SpanPopEnded(*Thread, Event->Timestamp, ~0ULL);
    }

    return RTL_STATUS_OK;
}

static
PSPAN_RECORD
SpanRecord(
    PTRACE_IMPORT Import,
    ULONGLONG Index
    )
{
    PTRACE_STORE Store = Import->Stores[TraceRecordSpan];

    return (PSPAN_RECORD)(Store->Base + Index * Store->RecordSize);
}

static
RTL_STATUS
SpanAppend(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    PTRACE_EVENT_CONTEXT Event,
    PSPAN_RECORD Record,
    PULONGLONG Index
    )
/*++

Routine Description:

    Fills the nesting and task fields of Record from the thread's stack and
    Event, and appends it to the span store (opened on first use).

--*/
{
    RTL_STATUS Status;

    Status = TraceImportOpenStore(Import, TraceRecordSpan, NULL);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Record->Depth = Thread->Depth;
    Record->ParentId = TRACE_NULL_LONGLONG;
    if (Thread->Depth != 0) {
        Record->ParentId = (LONGLONG)(Thread->Frames[Thread->Depth - 1].Index &
                                      ~TRACE_SPAN_PRELUDE);
    }
    Record->Tid = Event->Tid;
    Record->Pid = Event->Pid;
    Record->Padding = 0;

    return AppendRecord(Import, Import->Stores[TraceRecordSpan], Record,
                        Index);
}

static
RTL_STATUS
SpanAppendAt(
    PTRACE_IMPORT Import,
    PTRACE_SPAN_THREAD Thread,
    PTRACE_EVENT_CONTEXT Event,
    PSPAN_RECORD Record,
    ULONG Depth
    )
/*++

Routine Description:

    SpanAppend as if the thread's stack were Depth deep (0: a row of its
    own, outside every open span); the stack itself does not change.

--*/
{
    ULONG Saved = Thread->Depth;
    RTL_STATUS Status;

    Thread->Depth = Depth;
    Status = SpanAppend(Import, Thread, Event, Record, NULL);
    Thread->Depth = Saved;

    return Status;
}

static inline
VOID
SpanFill(
    PSPAN_RECORD Record,
    LONGLONG Timestamp,
    LONGLONG Duration,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId,
    ULONG Flags
    )
{
    Record->Timestamp = Timestamp;
    Record->Duration = Duration;
    Record->NameId = NameId;
    Record->CategoryId = CategoryId;
    Record->ArgsId = ArgsId;
    Record->Flags = Flags;
}

static
RTL_STATUS
SpanStart(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    LONGLONG Duration,
    LONGLONG End,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
/*++

Routine Description:

    Appends a span that begins at the event and pushes it on its thread's
    stack: of known Duration, ending at End (Chrome X), or open (Duration
    NULL, End TRACE_SPAN_OPEN) until an end fills in its dur.

--*/
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONGLONG Index;

    Status = SpanEnter(Import, Event,
                       End == TRACE_SPAN_OPEN ? Event->Timestamp : End, FALSE,
                       &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    SpanPopEnded(Thread, Event->Timestamp,
                 End == Event->Timestamp ? Import->EventOffset : ~0ULL);

    SpanFill(&Record, Event->Timestamp, Duration, NameId, CategoryId, ArgsId,
             0);

    Status = SpanAppend(Import, Thread, Event, &Record, &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return SpanPush(Import, Thread, Index, End);
}

RTL_STATUS
TraceImportSpanBegin(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    return SpanStart(Import, Event, TRACE_NULL_LONGLONG, TRACE_SPAN_OPEN,
                     NameId, CategoryId, ArgsId);
}

RTL_STATUS
TraceImportSpanEnd(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONG Depth;
    LONGLONG Begin;

    Status = SpanEnter(Import, Event, Event->Timestamp, TRUE, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // The innermost span with an end to wait for.  Complete spans above
    // it are mis-nested (they outlast the span that contains them): they
    // end here too as far as nesting goes.
    //

    for (Depth = Thread->Depth; Depth != 0; Depth--) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];

        if (Frame->End == TRACE_SPAN_OPEN) {
            PSPAN_RECORD Open = SpanRecord(Import, Frame->Index);

            Open->Duration = Event->Timestamp - Open->Timestamp;
            Thread->Depth = Depth - 1;
            return RTL_STATUS_OK;
        }

        if (Frame->Index & TRACE_SPAN_PRELUDE) {

            //
            // A span opened before the recording, written whole by
            // TraceImportSpanScanDone: this is its end.
            //

            Thread->Depth = Depth - 1;
            return RTL_STATUS_OK;
        }
    }

    //
    // An end that the reader's scan did not announce: it began before the
    // recording.  Without the scan its enclosing of earlier spans is lost;
    // it still gets its row.
    //

    Begin = Import->FirstTs < Event->Timestamp ? Import->FirstTs :
                                                 Event->Timestamp;
    SpanFill(&Record, Begin, Event->Timestamp - Begin, NameId, CategoryId,
             ArgsId, SPAN_FLAG_BEGIN_MISSING);
    Status = SpanAppendAt(Import, Thread, Event, &Record, 0);
    if (RTL_SUCCESS(Status)) {
        Import->Spans.Repaired++;
        TraceStoreAddRepaired(Import->Stores[TraceRecordSpan], 1);
    }

    return Status;
}

RTL_STATUS
TraceImportSpanComplete(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    LONGLONG Duration,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    return SpanStart(Import, Event, Duration, Event->Timestamp + Duration,
                     NameId, CategoryId, ArgsId);
}

RTL_STATUS
TraceImportInstant(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId,
    BOOL Nested
    )
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;

    Status = SpanEnter(Import, Event, Event->Timestamp, TRUE, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    SpanFill(&Record, Event->Timestamp, 0, NameId, CategoryId, ArgsId,
             SPAN_FLAG_INSTANT);

    return SpanAppendAt(Import, Thread, Event, &Record,
                        Nested ? Thread->Depth : 0);
}

RTL_STATUS
TraceImportSpanLate(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    const TRACE_SPAN_EVENT *Span
    )
/*++

Routine Description:

    Adds a span event that came after its turn (the reorder window was
    full, SpanReorder.c).  An end closes the innermost open span as
    always.  A begin opens its span on top of the thread's stack.  A
    complete span or instant is nested under the deepest span on the stack
    that contains it (none: depth 0) and does not go on the stack: what it
    contains was already placed.  The rows are flagged SPAN_FLAG_LATE.

--*/
{
    RTL_STATUS Status;
    PTRACE_SPAN_THREAD Thread;
    SPAN_RECORD Record;
    ULONGLONG Index;
    LONGLONG End = Event->Timestamp + Span->Duration;
    ULONG Depth;

    if (Span->Kind == TraceSpanEnd) {
        return TraceImportSpanEnd(Import, Event, Span->NameId,
                                  Span->CategoryId, Span->ArgsId);
    }

    Status = SpanEnter(Import, Event, End, FALSE, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    SpanFill(&Record, Event->Timestamp, Span->Duration, Span->NameId,
             Span->CategoryId, Span->ArgsId, SPAN_FLAG_LATE);

    if (Span->Kind == TraceSpanBegin) {
        Record.Duration = TRACE_NULL_LONGLONG;
        Status = SpanAppend(Import, Thread, Event, &Record, &Index);
        if (RTL_SUCCESS(Status)) {
            Status = SpanPush(Import, Thread, Index, TRACE_SPAN_OPEN);
        }
        return Status;
    }

    if (Span->Kind != TraceSpanComplete) {
        Record.Duration = 0;
        Record.Flags |= SPAN_FLAG_INSTANT;
    }

    Depth = 0;
    if (Span->Kind != TraceSpanInstantGlobal) {
        for (Depth = Thread->Depth; Depth != 0; Depth--) {
            PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];
            PSPAN_RECORD Outer = SpanRecord(Import,
                                            Frame->Index & ~TRACE_SPAN_PRELUDE);

            if (Outer->Timestamp <= Event->Timestamp &&
                (Frame->End == TRACE_SPAN_OPEN ||
                 (End <= Frame->End && Event->Timestamp < Frame->End))) {
                break;
            }
        }
    }

    return SpanAppendAt(Import, Thread, Event, &Record, Depth);
}

PULONG
TraceImportSpanOpenArgs(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    ULONG Depth;

    if (Import->Stores[TraceRecordSpan] == NULL ||
        !RTL_SUCCESS(SpanFindThread(Import, Event->Pid, Event->Tid,
                                    &Thread))) {
        return NULL;
    }

    //
    // The span TraceImportSpanEnd would close.
    //

    for (Depth = Thread->Depth; Depth != 0; Depth--) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth - 1];

        if (Frame->Index & TRACE_SPAN_PRELUDE) {
            return NULL;
        }
        if (Frame->End == TRACE_SPAN_OPEN) {
            return &SpanRecord(Import, Frame->Index)->ArgsId;
        }
    }
    return NULL;
}

RTL_STATUS
TraceImportSpanCut(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    RTL_STATUS Status;
    ULONG Depth;
    ULONG Closed = 0;

    if (Import->Stores[TraceRecordSpan] == NULL) {
        return RTL_STATUS_OK;
    }
    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Depth = 0; Depth < Thread->Depth; Depth++) {
        PTRACE_SPAN_FRAME Frame = &Thread->Frames[Depth];

        if (Frame->End == TRACE_SPAN_OPEN &&
            !(Frame->Index & TRACE_SPAN_PRELUDE)) {
            PSPAN_RECORD Record = SpanRecord(Import, Frame->Index);

            Record->Duration = Event->Timestamp > Record->Timestamp ?
                               Event->Timestamp - Record->Timestamp : 0;
            Record->Flags |= SPAN_FLAG_END_MISSING;
            Closed++;
        }
    }
    Thread->Depth = 0;

    if (Closed != 0) {
        Import->Spans.Repaired += Closed;
        TraceStoreAddRepaired(Import->Stores[TraceRecordSpan], Closed);
    }
    return RTL_STATUS_OK;
}

VOID
TraceImportSpanScanTime(
    PTRACE_IMPORT Import,
    LONGLONG Timestamp
    )
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;

    if (Timestamp < Builder->ScanFirstTs) {
        Builder->ScanFirstTs = Timestamp;
    }
    if (Timestamp > Builder->ScanLastTs) {
        Builder->ScanLastTs = Timestamp;
    }
}

RTL_STATUS
TraceImportSpanScanBegin(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_SPAN_THREAD Thread;
    RTL_STATUS Status;

    TraceImportSpanScanTime(Import, Event->Timestamp);

    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (RTL_SUCCESS(Status)) {
        Thread->ScanOpen++;
    }
    return Status;
}

RTL_STATUS
TraceImportSpanScanEnd(
    PTRACE_IMPORT Import,
    PTRACE_EVENT_CONTEXT Event,
    PBOOL Unmatched
    )
/*++

Routine Description:

    Counts an end in the scan.  An end when no begin of the thread is open
    belongs to a span that began before the recording: it is remembered
    (*Unmatched is TRUE, and the reader names it with
    TraceImportSpanScanUnmatched).

--*/
{
    PTRACE_SPAN_THREAD Thread;
    PTRACE_SPAN_MISSING Missing;
    RTL_STATUS Status;
    ULONG Capacity;

    *Unmatched = FALSE;
    Import->Spans.LastMissing = NULL;
    TraceImportSpanScanTime(Import, Event->Timestamp);

    Status = SpanFindThread(Import, Event->Pid, Event->Tid, &Thread);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Thread->ScanOpen != 0) {
        Thread->ScanOpen--;
        return RTL_STATUS_OK;
    }

    if (Thread->MissingCount == Thread->MissingCapacity) {
        if (Thread->MissingCapacity >= TRACE_SPAN_MAX_DEPTH) {
            return SpanError(Import, RTL_STATUS_TOO_LARGE,
                             "more than 65536 span ends without a begin",
                             Thread->Tid);
        }
        Capacity = Thread->MissingCapacity ? Thread->MissingCapacity * 2 : 4;
        Missing = (PTRACE_SPAN_MISSING)SpanGrow(Import, Thread,
                                                Thread->Missing,
                                                Thread->MissingCount,
                                                Capacity,
                                                sizeof(TRACE_SPAN_MISSING));
        if (Missing == NULL) {
            return RTL_STATUS_NO_MEMORY;
        }
        Thread->Missing = Missing;
        Thread->MissingCapacity = Capacity;
    }

    Missing = &Thread->Missing[Thread->MissingCount++];
    Missing->Timestamp = Event->Timestamp;
    Missing->NameId = 0;
    Missing->CategoryId = TRACE_NULL_ULONG;
    Missing->ArgsId = TRACE_NULL_ULONG;
    Missing->Padding = 0;
    Import->Spans.LastMissing = Missing;
    *Unmatched = TRUE;

    return RTL_STATUS_OK;
}

VOID
TraceImportSpanScanUnmatched(
    PTRACE_IMPORT Import,
    ULONG NameId,
    ULONG CategoryId,
    ULONG ArgsId
    )
{
    PTRACE_SPAN_MISSING Missing = Import->Spans.LastMissing;

    if (Missing != NULL) {
        Missing->NameId = NameId;
        Missing->CategoryId = CategoryId;
        Missing->ArgsId = ArgsId;
    }
}

VOID
TraceImportSpanReorderBegin(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Called at the end of the scan: opens the window if the scan found
    events out of order.

--*/
{
    PTRACE_SPAN_REORDER Reorder = &Import->Spans.Reorder;

    if (Reorder->ScanDisordered) {
        Reorder->Active = TRUE;
        Reorder->Lateness = Reorder->ScanLateness;
        Reorder->Limit = Import->ReorderWindow != 0 ? Import->ReorderWindow :
                                                      TRACE_REORDER_WINDOW;
        Reorder->MaxTs = (LONGLONG)0x8000000000000000ULL;
    }
}

RTL_STATUS
TraceImportSpanScanDone(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Ends the scan: for each thread, the ends it found without a begin
    become spans that begin at the trace's first ts, the last of them
    outermost (depth 0), each enclosing the next, flagged
    SPAN_FLAG_BEGIN_MISSING.  They are written whole now, first in the
    store, and stay on the thread's stack until the import reaches their
    ends.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    ULONG Number;
    ULONG Created = 0;
    RTL_STATUS Status = RTL_STATUS_OK;

    Builder->LastMissing = NULL;
    TraceImportSpanReorderBegin(Import);

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];
        ULONG Count = Thread->MissingCount;
        TRACE_EVENT_CONTEXT Event;

        Thread->ScanOpen = 0;
        Import->Rtl->FillMemory(&Event, sizeof(Event), 0);
        Event.Pid = Thread->Pid;
        Event.Tid = Thread->Tid;

        while (Count != 0) {
            PTRACE_SPAN_MISSING Missing = &Thread->Missing[--Count];
            SPAN_RECORD Record;
            ULONGLONG Index;

            SpanFill(&Record, Builder->ScanFirstTs,
                     Missing->Timestamp - Builder->ScanFirstTs,
                     Missing->NameId, Missing->CategoryId, Missing->ArgsId,
                     SPAN_FLAG_BEGIN_MISSING);

            Status = SpanAppend(Import, Thread, &Event, &Record, &Index);
            if (RTL_SUCCESS(Status)) {
                Status = SpanPush(Import, Thread, Index | TRACE_SPAN_PRELUDE,
                                  Missing->Timestamp);
            }
            if (!RTL_SUCCESS(Status)) {
                goto End;
            }
            Created++;
        }

        Thread->MissingCount = 0;
    }

End:
    if (Created != 0) {
        Builder->Repaired += Created;
        TraceStoreAddRepaired(Import->Stores[TraceRecordSpan], Created);
    }

    return Status;
}

VOID
TraceImportSetSpanCommitLimit(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Holds back the span store's commits at the oldest span still waiting
    for its end: on each thread, the bottom-most open frame.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    ULONGLONG Limit = TRACE_COMMIT_ALL;
    ULONG Number;
    ULONG Depth;

    if (Import->Stores[TraceRecordSpan] == NULL) {
        return;
    }

    for (Number = 0; Number < Builder->ThreadCount; Number++) {
        PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];

        for (Depth = 0; Depth < Thread->Depth; Depth++) {
            if (Thread->Frames[Depth].End == TRACE_SPAN_OPEN) {
                if (Thread->Frames[Depth].Index < Limit) {
                    Limit = Thread->Frames[Depth].Index;
                }
                break;
            }
        }
    }

    Import->Stores[TraceRecordSpan]->CommitLimit = Limit;
}

VOID
TraceImportSpanFinish(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Closes the spans still open at the trace's last ts, flagged
    SPAN_FLAG_END_MISSING, and releases the builder's memory.

--*/
{
    PTRACE_SPAN_BUILDER Builder = &Import->Spans;
    PRTL Rtl = Import->Rtl;
    PTRACE_SPAN_BLOCK Block;
    ULONG Number;
    ULONG Depth;
    ULONG Closed = 0;

    if (Import->Stores[TraceRecordSpan] != NULL) {
        for (Number = 0; Number < Builder->ThreadCount; Number++) {
            PTRACE_SPAN_THREAD Thread = &Builder->Threads[Number];

            for (Depth = 0; Depth < Thread->Depth; Depth++) {
                if (Thread->Frames[Depth].End == TRACE_SPAN_OPEN) {
                    PSPAN_RECORD Record =
                        SpanRecord(Import, Thread->Frames[Depth].Index);
                    LONGLONG End = Import->LastTs;

                    if (End < Record->Timestamp) {
                        End = Record->Timestamp;
                    }
                    Record->Duration = End - Record->Timestamp;
                    Record->Flags |= SPAN_FLAG_END_MISSING;
                    Closed++;
                }
            }
            Thread->Depth = 0;
        }

        if (Closed != 0) {
            Builder->Repaired += Closed;
            TraceStoreAddRepaired(Import->Stores[TraceRecordSpan], Closed);
        }
        Import->Stores[TraceRecordSpan]->CommitLimit = TRACE_COMMIT_ALL;
    }

    while (Builder->Blocks != NULL) {
        Block = (PTRACE_SPAN_BLOCK)Builder->Blocks;
        Builder->Blocks = Block->Next;
        Rtl->Unmap(Rtl, Block, Block->Size);
    }
    if (Builder->Threads != NULL) {
        Rtl->Unmap(Rtl, Builder->Threads,
                   Builder->ThreadCapacity * sizeof(TRACE_SPAN_THREAD));
        Rtl->Unmap(Rtl, Builder->Slots,
                   (Builder->SlotMask + 1) * sizeof(ULONG));
    }
    Builder->Threads = NULL;
    Builder->Slots = NULL;
    Builder->ThreadCount = 0;
    Builder->ThreadCapacity = 0;
    Builder->LastThread = 0;
    Builder->PoolCursor = NULL;
    Builder->PoolEnd = NULL;
}
