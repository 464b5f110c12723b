/*++

Module Name:

    UftraceArgsInternal.h

Abstract:

    What the files of the argument module (UftraceArgSpec.c,
    UftracePattern.c, UftraceArgFormat.c) share and the uftrace reader
    does not need: the C library's character classes and strtol as
    uftrace calls them (the C locale).

Environment:

    Core: no C runtime, no OS service.  Included by the argument module's
    files only; the reader includes UftraceArgs.h.

--*/

#ifndef _TRACER_UFTRACE_ARGS_INTERNAL_H_
#define _TRACER_UFTRACE_ARGS_INTERNAL_H_

#include "UftraceArgs.h"

//
// isalpha, isspace, ispunct and tolower of the C locale (isdigit is
// TextParse.h's TextIsDigit).
//

static inline
BOOL
IsAlpha(
    CHAR C
    )
{
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
}

static inline
BOOL
IsPunct(
    CHAR C
    )
{
    return (C >= '!' && C <= '/') || (C >= ':' && C <= '@') ||
           (C >= '[' && C <= '`') || (C >= '{' && C <= '~');
}

static inline
CHAR
ToLower(
    CHAR C
    )
{
    return (C >= 'A' && C <= 'Z') ? (CHAR)(C + 32) : C;
}

//
// strtol(..., Base): optional sign, then digits of Base (0: 0x hex, 0
// octal, else decimal).  Returns where it stopped (Start if no digits).
//

PCSZ UftraceParseLong(PCSZ Start, PCSZ End, ULONG Base, PLONGLONG Value);

#endif // _TRACER_UFTRACE_ARGS_INTERNAL_H_
