/*++

Module Name:

    TraceEventInternal.h

Abstract:

    What the files of the event model's container-independent half share
    and its users do not: small text helpers over (Cursor, End) ranges,
    and the routines one of its files calls in another.

        TraceEvent.c            the arena, the event table's lifetime,
                                field lookup and decoding
        TraceEventFormat.c      header_page, header_event, `format` files,
                                kernel C type sizes
        TraceEventRing.c        ring-buffer pages
        TraceEventSymbols.c     kallsyms and printk formats

    (The print-fmt interpreter, TraceEventPrint*.c, has its own
    TraceEventPrintInternal.h; the sink is TraceEventImport.c.)

Environment:

    Core: no C runtime, no OS service.  Included only by the files above.

--*/

#ifndef _TRACER_TRACE_EVENT_INTERNAL_H_
#define _TRACER_TRACE_EVENT_INTERNAL_H_

#include "TraceEvent.h"

//
// Small text helpers over (Cursor, End) ranges.
//

static inline
BOOL
IsIdentChar(
    CHAR Char
    )
{
    return (Char >= 'a' && Char <= 'z') || (Char >= 'A' && Char <= 'Z') ||
           (Char >= '0' && Char <= '9') || Char == '_';
}

//
// Callers pass a literal: inlined, its length is a constant and the
// comparison a few loads.
//

static inline __attribute__((always_inline))
BOOL
HasPrefix(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Literal
    )
{
    SIZE_T Length = __builtin_strlen(Literal);

    return (SIZE_T)(End - Cursor) >= Length &&
           __builtin_memcmp(Cursor, Literal, Length) == 0;
}

static inline
BOOL
SpanContains(
    PCSZ Start,
    PCSZ End,
    PCSZ Needle
    )
{
    SIZE_T Length = RtlStringLength(Needle);

    return TextFindString(Start, End, Needle, (ULONG)Length) != NULL;
}

//
// Parses a decimal number at Cursor (leading blanks skipped); NULL if
// none or it does not fit 32 bits.
//

static inline
PCSZ
ParseDecimal32(
    PCSZ Cursor,
    PCSZ End,
    PULONG Value,
    PBOOL Negative
    )
{
    ULONGLONG Number = 0;
    PCSZ Start;

    Cursor = TextSkipSpaces(Cursor, End);
    *Negative = FALSE;
    if (Cursor < End && *Cursor == '-') {
        *Negative = TRUE;
        Cursor++;
    }
    Start = Cursor;
    while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
        Number = Number * 10 + (ULONG)(*Cursor - '0');
        if (Number > 0xffffffffULL) {
            return NULL;
        }
        Cursor++;
    }
    if (Cursor == Start) {
        return NULL;
    }

    *Value = (ULONG)Number;
    return Cursor;
}

static inline
PCSZ
LineEnd(
    PCSZ Cursor,
    PCSZ End
    )
{
    return TextFindChar(Cursor, End, '\n');
}

#endif // _TRACER_TRACE_EVENT_INTERNAL_H_
