/*++

Module Name:

    KvmtraceFloat.h

Abstract:

    Python's formatting of a float, byte for byte: repr() (the shortest
    digits that read back as the same double) and the %e %E %f %F %g %G
    conversions of the % operator, all correctly rounded from the
    double's exact binary value.

Environment:

    Core: no C runtime, no OS service.  Called by the kvmtrace renderer
    (KvmtraceFormat.c); calls nothing.

--*/

#ifndef _TRACER_KVMTRACE_FLOAT_H_
#define _TRACER_KVMTRACE_FLOAT_H_

#include "Rtl/Rtl.h"

//
// Writes a finite Value as CPython's PyOS_double_to_string would: Type
// is one of e E f F g G with Precision digits, or r for repr (Precision
// unused).  Alternate is the '#' flag; AddDotZero appends ".0" to an
// integral repr, as str() of a float does.  Returns the length (no NUL).
// Output must hold what the conversion can print: the integer part of
// the value (below 2^65 here), Precision digits and a few bytes more.
//

ULONG KvmtraceFormatFloat(DOUBLE Value, CHAR Type, LONG Precision,
                          BOOL Alternate, BOOL AddDotZero, PCHAR Output);

#endif // _TRACER_KVMTRACE_FLOAT_H_
