/*++

Module Name:

    ClockAlign.h

Abstract:

    Clocks of imported traces brought onto the session's: TSC counts to ns
    at a given rate, exactly (the kvmtrace reader's conversion, shared),
    and the alignment `tracestore import` applies per input file, as
    seeds/001's merge.py does: a guest TSC offset (kvm_write_tsc_offset's
    "next", a signed 64-bit value) subtracted from the raw value, the TSC
    conversion, then a fixed shift in ns:

        ns = ToNs(raw - TscOffset) + ClockOffset

    where ToNs is the identity for inputs already in ns.

Environment:

    Core: no C runtime, no OS service.  Included by TraceImport.h (the
    import context holds a TRACE_CLOCK_ALIGN) and the kvmtrace reader;
    defined by ClockAlign.c, which calls nothing.

--*/

#ifndef _TRACER_CLOCK_ALIGN_H_
#define _TRACER_CLOCK_ALIGN_H_

#include "Rtl/Rtl.h"

//
// TSC to ns: ns = floor(Tsc * Numerator / Denominator) with the rate
// MHZ = Denominator / Numerator * 1000 exactly (MHZ as a double is
// M * 2^E: Numerator = 1000 * 2^-E and Denominator = M, or 1000 and
// M * 2^E).  A double estimate is corrected with the exact remainder,
// which fits 64 bits while ns < 2^61.
//

typedef struct _TSC_CLOCK {
    BOOL Convert;
    ULONG Padding;
    ULONGLONG Numerator;
    ULONGLONG Denominator;
    DOUBLE Ratio;
} TSC_CLOCK, *PTSC_CLOCK;

#define TSC_CLOCK_MAX_TSC   (1ULL << 63)
#define TSC_CLOCK_MAX_NS    (1ULL << 61)

//
// Sets Clock up for Mhz (Convert FALSE when Mhz is 0).  FALSE if the rate
// is below 1 MHz or at or above 1 THz.
//

BOOL TscClockSetUp(PTSC_CLOCK Clock, DOUBLE Mhz);

//
// Tsc in ns (Tsc itself when the clock does not convert).  FALSE if the
// result is 2^61 ns or more.
//

BOOL TscClockToNs(PTSC_CLOCK Clock, ULONGLONG Tsc, PLONGLONG Timestamp);

typedef struct _TRACE_CLOCK_ALIGN {
    BOOL Active;                // anything to do at all
    BOOL Convert;               // TSC -> ns with Clock
    LONGLONG TscOffset;         // subtracted from the raw value first
    LONGLONG ClockOffset;       // ns added last
    TSC_CLOCK Clock;
} TRACE_CLOCK_ALIGN, *PTRACE_CLOCK_ALIGN;
typedef const TRACE_CLOCK_ALIGN *PCTRACE_CLOCK_ALIGN;

//
// The aligned ns of a raw ts.  The offsets wrap as 64-bit two's
// complement (a guest offset near 2^64 is a negative shift); a result the
// conversion cannot give (2^61 ns or more) saturates.
//

LONGLONG TraceClockAlign(PCTRACE_CLOCK_ALIGN Align, LONGLONG Raw);

#endif // _TRACER_CLOCK_ALIGN_H_
