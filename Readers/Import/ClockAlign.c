/*++

Module Name:

    ClockAlign.c

Abstract:

    TSC to ns conversion and per-input clock alignment (ClockAlign.h).

Environment:

    Core: no C runtime, no OS service.  Owns the exact TSC conversion and
    the alignment formula.  Called by the kvmtrace reader and, through
    TraceImportAlignTs (TraceImport.h), by every reader where it makes a
    ts; calls nothing.

--*/

#include "ClockAlign.h"

BOOL
TscClockSetUp(
    PTSC_CLOCK Clock,
    DOUBLE Mhz
    )
{
    ULONGLONG Bits;
    ULONGLONG Mantissa;
    LONG Exponent;

    Clock->Convert = FALSE;
    if (!(Mhz > 0)) {
        return TRUE;
    }

    if (!(Mhz >= 1 && Mhz < 1e9)) {
        return FALSE;
    }

    __builtin_memcpy(&Bits, &Mhz, sizeof(Bits));
    Mantissa = (Bits & ((1ULL << 52) - 1)) | (1ULL << 52);
    Exponent = (LONG)((Bits >> 52) & 0x7ff) - 1075;
    while ((Mantissa & 1) == 0 && Exponent < 0) {
        Mantissa >>= 1;
        Exponent++;
    }

    if (Exponent < 0) {
        Clock->Numerator = 1000ULL << -Exponent;
        Clock->Denominator = Mantissa;
    } else {
        Clock->Numerator = 1000;
        Clock->Denominator = Mantissa << Exponent;
    }
    Clock->Ratio = (DOUBLE)Clock->Numerator / (DOUBLE)Clock->Denominator;
    Clock->Convert = TRUE;
    return TRUE;
}

BOOL
TscClockToNs(
    PTSC_CLOCK Clock,
    ULONGLONG Tsc,
    PLONGLONG Timestamp
    )
{
    DOUBLE Estimate;
    ULONGLONG Quotient;
    LONGLONG Remainder;
    LONGLONG Denominator;

    if (!Clock->Convert) {
        *Timestamp = (LONGLONG)Tsc;
        return TRUE;
    }

    Estimate = (DOUBLE)Tsc * Clock->Ratio;
    if (!(Estimate < (DOUBLE)TSC_CLOCK_MAX_NS)) {
        return FALSE;
    }

    //
    // The exact remainder Tsc * N - Q * D is small, so it can be computed
    // modulo 2^64.
    //

    Quotient = (ULONGLONG)Estimate;
    Denominator = (LONGLONG)Clock->Denominator;
    Remainder = (LONGLONG)(Tsc * Clock->Numerator -
                           Quotient * Clock->Denominator);
    if (Remainder < -4 * Denominator || Remainder >= 4 * Denominator) {
        LONGLONG Steps = Remainder / Denominator;

        Quotient += (ULONGLONG)Steps;
        Remainder -= Steps * Denominator;
    }
    while (Remainder < 0) {
        Quotient--;
        Remainder += Denominator;
    }
    while (Remainder >= Denominator) {
        Quotient++;
        Remainder -= Denominator;
    }

    *Timestamp = (LONGLONG)Quotient;
    return TRUE;
}

LONGLONG
TraceClockAlign(
    PCTRACE_CLOCK_ALIGN Align,
    LONGLONG Raw
    )
{
    LONGLONG Ticks;
    LONGLONG Ns;
    BOOL Negative;

    if (!Align->Active) {
        return Raw;
    }

    Ticks = (LONGLONG)((ULONGLONG)Raw - (ULONGLONG)Align->TscOffset);
    Ns = Ticks;
    if (Align->Convert) {

        //
        // floor for counts at or after 0; a count before 0 (a guest
        // offset larger than the count) converts by its magnitude.
        //

        Negative = Ticks < 0;
        if (!TscClockToNs((PTSC_CLOCK)&Align->Clock,
                          Negative ? 0ULL - (ULONGLONG)Ticks
                                   : (ULONGLONG)Ticks, &Ns)) {
            Ns = (LONGLONG)TSC_CLOCK_MAX_NS;
        }
        if (Negative) {
            Ns = -Ns;
        }
    }

    return (LONGLONG)((ULONGLONG)Ns + (ULONGLONG)Align->ClockOffset);
}
