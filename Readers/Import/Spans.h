/*++

Module Name:

    Spans.h

Abstract:

    The span builder's state and interface (SpanBuilder.c, SpanReorder.c):
    how readers turn begins, ends, complete spans and instants into the
    `span` store.  Included by TraceImport.h, whose import context holds
    the builder; readers include TraceImport.h.  It is not named
    SpanBuilder.h on purpose: the import context's header includes it, and
    the builder uses the context, so a header that went with
    SpanBuilder.c would tie the two in a circle.

Environment:

    Core: no C runtime.  Types and prototypes only; includes nothing.

--*/

#ifndef _TRACER_SPANS_H_
#define _TRACER_SPANS_H_

typedef struct _TRACE_IMPORT TRACE_IMPORT, *PTRACE_IMPORT;

//
// The span builder (see TraceImportSpanBegin).  Per thread (pid, tid) it
// keeps a stack of the spans that contain the current time: records of the
// span store, reserved when the span began.  Memory is pages from
// Rtl->AllocatePages, bounded by threads x nesting depth, never by the
// size of the input.
//

typedef struct _TRACE_SPAN_FRAME {
    ULONGLONG Index;        // record index; TRACE_SPAN_PRELUDE bit set for
                            // a span opened before the recording
    LONGLONG End;           // end ts when known (X), else TRACE_SPAN_OPEN
    LONGLONG Begin;         // ts of the span
    ULONGLONG Written;      // input position of the event that opened it
} TRACE_SPAN_FRAME, *PTRACE_SPAN_FRAME;

typedef struct _TRACE_SPAN_MISSING {
    LONGLONG Timestamp;     // ts of an end the scan found without a begin
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    ULONG Padding;
} TRACE_SPAN_MISSING, *PTRACE_SPAN_MISSING;

typedef struct _TRACE_SPAN_THREAD {
    ULONG Pid;
    ULONG Tid;
    ULONG Depth;                    // frames in use
    ULONG Capacity;                 // frames allocated
    PTRACE_SPAN_FRAME Frames;
    LONGLONG ScanOpen;              // begins - matched ends seen by the scan
    ULONG MissingCount;
    ULONG MissingCapacity;
    PTRACE_SPAN_MISSING Missing;    // unmatched ends, in input order
} TRACE_SPAN_THREAD, *PTRACE_SPAN_THREAD;

//
// A span event as a reader hands it to TraceImportSpanEvent: what a
// Chrome B, E, X or i event says, with its strings interned.  The reorder
// window (TraceImportSpanScanOrder) holds these.
//

typedef enum _TRACE_SPAN_KIND {
    TraceSpanBegin = 1,             // TraceImportSpanBegin
    TraceSpanEnd,                   // TraceImportSpanEnd
    TraceSpanComplete,              // TraceImportSpanComplete (Duration)
    TraceSpanInstant,               // TraceImportInstant, nested
    TraceSpanInstantGlobal,         // TraceImportInstant, at depth 0
} TRACE_SPAN_KIND;

typedef struct _TRACE_SPAN_EVENT {
    LONGLONG Timestamp;
    LONGLONG Duration;              // TraceSpanComplete; else 0
    ULONGLONG Sequence;             // input order (a byte offset)
    ULONG Pid;
    ULONG Tid;
    ULONG CommId;
    ULONG NameId;
    ULONG CategoryId;
    ULONG ArgsId;
    ULONG Kind;                     // TRACE_SPAN_KIND
    ULONG Padding;
} TRACE_SPAN_EVENT, *PTRACE_SPAN_EVENT;

C_ASSERT(sizeof(TRACE_SPAN_EVENT) == 56);

//
// The reorder window (SpanReorder.c): span events held in a binary heap
// in the order of TraceSpanEventBefore until no later input can come
// before them.
//

typedef struct _TRACE_SPAN_REORDER {
    PTRACE_SPAN_EVENT Heap;         // Capacity entries, Count in use
    ULONG Count;
    ULONG Capacity;
    ULONG Limit;                    // most events held (the window)
    BOOL Active;                    // the scan found events out of order
    ULONGLONG Lateness;             // greatest lag in ts the scan found
    LONGLONG MaxTs;                 // greatest ts held or released
    BOOL Released;                  // LastReleased is set
    ULONG Padding;
    TRACE_SPAN_EVENT LastReleased;
    ULONGLONG Late;                 // events placed after their turn
    BOOL ScanSeen;                  // ScanMax is set
    BOOL ScanDisordered;            // an event came before one read earlier
    TRACE_SPAN_EVENT ScanMax;       // greatest event the scan read
    ULONGLONG ScanLateness;
} TRACE_SPAN_REORDER, *PTRACE_SPAN_REORDER;

typedef struct _TRACE_SPAN_BUILDER {
    PTRACE_SPAN_THREAD Threads;
    ULONG ThreadCount;
    ULONG ThreadCapacity;
    PULONG Slots;                   // open addressing: thread number + 1
    ULONG SlotMask;
    ULONG LastThread;               // thread number used last, + 1
    PVOID Blocks;                   // pool blocks for frames, a list
    PBYTE PoolCursor;
    PBYTE PoolEnd;
    LONGLONG ScanFirstTs;           // time span seen by the scan
    LONGLONG ScanLastTs;
    PTRACE_SPAN_MISSING LastMissing;
    ULONGLONG Repaired;             // spans closed or opened at the bounds
    TRACE_SPAN_REORDER Reorder;
} TRACE_SPAN_BUILDER, *PTRACE_SPAN_BUILDER;

//
// Spans (the `span` store, like Perfetto's slice table).  Each thread
// (Event->Pid, Event->Tid) nests its spans: a span's depth is the number
// of spans open on its thread when it begins, its parent_id the record
// index of the innermost of them.  Records are reserved in input order at
// the begin (so a time-ordered input gives a sorted store) and their dur
// filled at the end; commits of the span store stop short of the oldest
// span still open, so committed rows never change.
//
// TraceImportSpanBegin opens a span (Chrome "B", uftrace entry).
// TraceImportSpanEnd closes the innermost open span of the thread (Chrome
// "E", uftrace exit), whatever its name; NameId, CategoryId and ArgsId
// describe the span only when it has no begin.  TraceImportSpanComplete
// adds a span of known Duration (Chrome "X"): it contains the spans that
// begin before Event->Timestamp + Duration.  TraceImportInstant adds a
// span of dur 0 with SPAN_FLAG_INSTANT, nested in what is open when
// Nested, else at depth 0.
//
// At TraceImportEnd spans still open are closed at the trace's last ts
// with SPAN_FLAG_END_MISSING.  An end without a begin (the recording began
// inside the call) becomes a span opened at the trace's first ts with
// SPAN_FLAG_BEGIN_MISSING, enclosing what came before it on its thread, as
// seeds/001's fix-up does.  To place those spans first and nest the
// thread's earlier spans inside them, a reader scans its input once before
// importing it: TraceImportSpanScanBegin / ScanEnd for each begin and end
// (and ScanTime for every other timed event), naming each end ScanEnd
// reports unmatched with TraceImportSpanScanUnmatched, then
// TraceImportSpanScanDone.  Both kinds of repair are counted in the span
// store's `repaired` (store_info).
//

RTL_STATUS TraceImportSpanBegin(PTRACE_IMPORT Import,
                                PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                                ULONG CategoryId, ULONG ArgsId);

RTL_STATUS TraceImportSpanEnd(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                              ULONG CategoryId, ULONG ArgsId);

RTL_STATUS TraceImportSpanComplete(PTRACE_IMPORT Import,
                                   PTRACE_EVENT_CONTEXT Event,
                                   LONGLONG Duration, ULONG NameId,
                                   ULONG CategoryId, ULONG ArgsId);

RTL_STATUS TraceImportInstant(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event, ULONG NameId,
                              ULONG CategoryId, ULONG ArgsId, BOOL Nested);

//
// TraceImportSpanOpenArgs gives the args of the innermost open span of
// Event's thread, for a reader that completes them at the end (uftrace:
// the return value, read at the exit), or NULL when that span was not
// begun by the input.  The pointer is valid until the next span call.
// TraceImportSpanCut ends every span open on Event's thread at
// Event->Timestamp with SPAN_FLAG_END_MISSING: their ends will never come
// (uftrace: an exec replaces the program that made the calls); spans that
// began before the recording leave the stack with the end they have.
//

PULONG TraceImportSpanOpenArgs(PTRACE_IMPORT Import,
                               PTRACE_EVENT_CONTEXT Event);

RTL_STATUS TraceImportSpanCut(PTRACE_IMPORT Import,
                              PTRACE_EVENT_CONTEXT Event);

VOID TraceImportSpanScanTime(PTRACE_IMPORT Import, LONGLONG Timestamp);

RTL_STATUS TraceImportSpanScanBegin(PTRACE_IMPORT Import,
                                    PTRACE_EVENT_CONTEXT Event);

RTL_STATUS TraceImportSpanScanEnd(PTRACE_IMPORT Import,
                                  PTRACE_EVENT_CONTEXT Event,
                                  PBOOL Unmatched);

VOID TraceImportSpanScanUnmatched(PTRACE_IMPORT Import, ULONG NameId,
                                  ULONG CategoryId, ULONG ArgsId);

RTL_STATUS TraceImportSpanScanDone(PTRACE_IMPORT Import);

//
// Span events in any order (SpanReorder.c).  Nesting follows interval
// containment per (pid, tid) whatever order the input writes events in
// (clang and Node write an X event when it ends, after what it contains):
// the events are handed over in the order TraceSpanEventBefore defines,
// which is the order of time.
//
// A reader that scans its input first passes every span event to
// TraceImportSpanScanOrder as well; if some event comes before one read
// earlier, TraceImportSpanScanDone opens a reorder window: the import's
// TraceImportSpanEvent calls hold each event until no later input can come
// before it (by the greatest lag in ts the scan found), at most
// Import->ReorderWindow events.  An event that arrives after its turn
// (the window was full) is placed under the deepest open span of its thread
// that contains it, without enclosing anything, and flagged
// SPAN_FLAG_LATE.  Without a window, events are handed over as they come.
// TraceImportEnd hands over what is still held.
//

#define TRACE_REORDER_WINDOW (1u << 20)

BOOL TraceSpanEventBefore(const TRACE_SPAN_EVENT *A,
                          const TRACE_SPAN_EVENT *B);

VOID TraceImportSpanScanOrder(PTRACE_IMPORT Import,
                              const TRACE_SPAN_EVENT *Event);

RTL_STATUS TraceImportSpanEvent(PTRACE_IMPORT Import,
                                const TRACE_SPAN_EVENT *Event);

RTL_STATUS TraceImportSpanReorderDrain(PTRACE_IMPORT Import);

//
// Between the builder and the window: TraceImportSpanReorderBegin opens
// the window if the scan found disorder (TraceImportSpanScanDone calls it),
// TraceImportSpanLate places an event that came after its turn.
//

VOID TraceImportSpanReorderBegin(PTRACE_IMPORT Import);

RTL_STATUS TraceImportSpanLate(PTRACE_IMPORT Import,
                               PTRACE_EVENT_CONTEXT Event,
                               const TRACE_SPAN_EVENT *Span);

VOID TraceImportSpanReorderFree(PTRACE_IMPORT Import);

#endif // _TRACER_SPANS_H_
