/*++

Module Name:

    KvmtraceFloat.c

Abstract:

    The exact decimal digits of a double, and Python's float formatting
    (see KvmtraceFloat.h).  The digits are computed from the double's
    binary value with big integers (m * 5^k in 2880 bits): repr is dtoa's
    mode 0 (the fewest digits that read back, the nearest of those), %e
    and %g its mode 2 (significant digits), %f its mode 3 (digits after
    the point), rounded half to even as David Gay's dtoa does for
    CPython; then the digits are laid out as CPython's
    format_float_short does.

Environment:

    Core: no C runtime, no OS service.  Called by KvmtraceFormat.c (the
    renderer); calls nothing.

--*/

#include "KvmtraceFloat.h"

#define FLOAT_DIGITS    800     // exact digits of any double
#define BIG_LIMBS       90      // 2880 bits: m * 5^1078 fits

typedef struct _BIG {
    ULONG Count;
    ULONG Limb[BIG_LIMBS];      // little endian, base 2^32
} BIG, *PBIG;

static
VOID
BigSet(
    PBIG Big,
    ULONGLONG Value
    )
{
    Big->Count = 0;
    while (Value != 0) {
        Big->Limb[Big->Count++] = (ULONG)Value;
        Value >>= 32;
    }
}

static
VOID
BigMultiply(
    PBIG Big,
    ULONG Factor
    )
{
    ULONGLONG Carry = 0;
    ULONG Index;

    for (Index = 0; Index < Big->Count; Index++) {
        Carry += (ULONGLONG)Big->Limb[Index] * Factor;
        Big->Limb[Index] = (ULONG)Carry;
        Carry >>= 32;
    }
    if (Carry != 0 && Big->Count < BIG_LIMBS) {
        Big->Limb[Big->Count++] = (ULONG)Carry;
    }
}

static
ULONG
BigToDecimal(
    PBIG Big,
    PCHAR Digits
    )
/*++

Routine Description:

    Writes the decimal digits of Big (destroyed), most significant first,
    without leading zeros ("0" for zero).  Returns the count.

--*/
{
    CHAR Reversed[FLOAT_DIGITS + 16];
    ULONG Count = 0;
    ULONG Index;
    ULONG Chunk;
    ULONG Step;

    while (Big->Count != 0) {
        ULONGLONG Remainder = 0;

        for (Index = Big->Count; Index-- > 0;) {
            Remainder = (Remainder << 32) | Big->Limb[Index];
            Big->Limb[Index] = (ULONG)(Remainder / 1000000000u);
            Remainder %= 1000000000u;
        }
        while (Big->Count != 0 && Big->Limb[Big->Count - 1] == 0) {
            Big->Count--;
        }

        Chunk = (ULONG)Remainder;
        for (Step = 0; Step < 9; Step++) {
            if (Big->Count == 0 && Chunk == 0 && Step != 0) {
                break;
            }
            Reversed[Count++] = (CHAR)('0' + Chunk % 10);
            Chunk /= 10;
        }
    }

    while (Count > 1 && Reversed[Count - 1] == '0') {
        Count--;
    }
    if (Count == 0) {
        Reversed[Count++] = '0';
    }

    for (Index = 0; Index < Count; Index++) {
        Digits[Index] = Reversed[Count - 1 - Index];
    }

    return Count;
}

static
ULONG
ScaledDecimal(
    ULONGLONG Mantissa,
    LONG Exponent,
    PCHAR Digits,
    PLONG Scale
    )
/*++

Routine Description:

    The exact decimal digits of Mantissa * 2^Exponent: Digits * 10^Scale.

--*/
{
    BIG Big;
    LONG Index;

    BigSet(&Big, Mantissa);
    if (Exponent >= 0) {
        for (Index = 0; Index < Exponent; Index++) {
            BigMultiply(&Big, 2);
        }
        *Scale = 0;
    } else {
        for (Index = 0; Index < -Exponent; Index++) {
            BigMultiply(&Big, 5);
        }
        *Scale = Exponent;
    }

    return BigToDecimal(&Big, Digits);
}

static
LONG
CompareDecimal(
    PCSZ Left,
    ULONG LeftLength,
    ULONG LeftZeros,
    PCSZ Right,
    ULONG RightLength
    )
/*++

Routine Description:

    Compares Left followed by LeftZeros zeros with Right (both without
    leading zeros).

--*/
{
    ULONG Index;

    if (LeftLength + LeftZeros != RightLength) {
        return LeftLength + LeftZeros < RightLength ? -1 : 1;
    }
    for (Index = 0; Index < LeftLength; Index++) {
        if (Left[Index] != Right[Index]) {
            return Left[Index] < Right[Index] ? -1 : 1;
        }
    }
    for (; Index < RightLength; Index++) {
        if (Right[Index] != '0') {
            return -1;
        }
    }
    return 0;
}

static
ULONG
Increment(
    PCSZ Digits,
    ULONG Count,
    PCHAR Result
    )
/*++

Routine Description:

    Result = Digits + 1, one digit longer on a carry out of the first
    digit.  Returns its length.

--*/
{
    ULONG Index = Count;

    while (Index > 0 && Digits[Index - 1] == '9') {
        Index--;
        Result[Index] = '0';
    }
    if (Index == 0) {
        Result[0] = '1';
        for (Index = 1; Index <= Count; Index++) {
            Result[Index] = '0';
        }
        return Count + 1;
    }

    Result[Index - 1] = (CHAR)(Digits[Index - 1] + 1);
    while (--Index > 0) {
        Result[Index - 1] = Digits[Index - 1];
    }
    return Count;
}

static
VOID
StripZeros(
    PCSZ Digits,
    PULONG Count
    )
{
    while (*Count > 1 && Digits[*Count - 1] == '0') {
        (*Count)--;
    }
}

static
ULONG
ShortestDigits(
    ULONGLONG Mantissa,
    LONG Exponent,
    BOOL LowerCloser,
    PCHAR Digits,
    PLONG DecimalPoint
    )
/*++

Routine Description:

    Python's repr digits (dtoa mode 0): the fewest significant digits that
    read back as the same double, and of those the nearest to it.  The
    double is Mantissa * 2^Exponent; numbers strictly between the
    midpoints to its neighbours (and on them when Mantissa is even, by
    round-half-even) read back as it.  All three are computed exactly, in
    decimal, at a common scale.

Return Value:

    The digit count; *DecimalPoint is where the point goes (value =
    0.DIGITS * 10^DecimalPoint).

--*/
{
    CHAR Value[FLOAT_DIGITS + 16];
    CHAR Low[FLOAT_DIGITS + 16];
    CHAR High[FLOAT_DIGITS + 16];
    CHAR Up[FLOAT_DIGITS + 16];
    ULONG ValueCount;
    ULONG LowCount;
    ULONG HighCount;
    ULONG UpCount;
    ULONG Count;
    ULONG Zeros;
    ULONG Index;
    LONG Scale;
    LONG Compare;
    BOOL Inclusive = (Mantissa & 1) == 0;
    BOOL DownOk;
    BOOL UpOk;
    BOOL TakeUp;

    ValueCount = ScaledDecimal(4 * Mantissa, Exponent - 2, Value, &Scale);
    LowCount = ScaledDecimal(LowerCloser ? 4 * Mantissa - 1 :
                             4 * Mantissa - 2, Exponent - 2, Low, &Scale);
    HighCount = ScaledDecimal(4 * Mantissa + 2, Exponent - 2, High, &Scale);

    for (Count = 1; Count <= ValueCount; Count++) {
        Zeros = ValueCount - Count;

        Compare = CompareDecimal(Value, Count, Zeros, Low, LowCount);
        DownOk = Compare > 0 || (Compare == 0 && Inclusive);
        UpCount = Increment(Value, Count, Up);
        Compare = CompareDecimal(Up, UpCount, Zeros, High, HighCount);
        UpOk = Compare < 0 || (Compare == 0 && Inclusive);

        if (!DownOk && !UpOk) {
            continue;
        }

        TakeUp = !DownOk;
        if (DownOk && UpOk && Zeros != 0) {

            //
            // Both read back: take the nearer, the even one on a tie.
            //

            Compare = Value[Count] < '5' ? -1 : Value[Count] > '5' ? 1 : 0;
            for (Index = Count + 1; Compare == 0 && Index < ValueCount;
                 Index++) {
                if (Value[Index] != '0') {
                    Compare = 1;
                }
            }
            TakeUp = Compare > 0 ||
                     (Compare == 0 && ((Value[Count - 1] - '0') & 1));
        }

        if (TakeUp) {
            for (Index = 0; Index < UpCount; Index++) {
                Digits[Index] = Up[Index];
            }
            *DecimalPoint = (LONG)(UpCount + Zeros) + Scale;
            Count = UpCount;
        } else {
            for (Index = 0; Index < Count; Index++) {
                Digits[Index] = Value[Index];
            }
            *DecimalPoint = (LONG)(Count + Zeros) + Scale;
        }
        StripZeros(Digits, &Count);
        return Count;
    }

    //
    // Not reached: all of Value's digits always read back.
    //

    for (Index = 0; Index < ValueCount; Index++) {
        Digits[Index] = Value[Index];
    }
    *DecimalPoint = (LONG)ValueCount + Scale;
    StripZeros(Digits, &ValueCount);
    return ValueCount;
}

static
ULONG
RoundDigits(
    PCHAR Digits,
    ULONG Count,
    LONG Keep,
    PLONG DecimalPoint
    )
/*++

Routine Description:

    Rounds exact digits to their first Keep digits, half to even, as
    David Gay's dtoa does for Python.  Keep may be 0 or negative (dtoa
    mode 3 asked for fewer digits than the number has before its first
    significant one): the result is then "1" one place up, or no digits
    (zero).

Return Value:

    The digit count, trailing zeros stripped (0 for zero).

--*/
{
    LONG Compare;
    ULONG Index;

    if (Keep >= (LONG)Count) {
        StripZeros(Digits, &Count);
        return Count;
    }
    if (Keep < 0) {
        return 0;
    }

    Compare = Digits[Keep] < '5' ? -1 : Digits[Keep] > '5' ? 1 : 0;
    for (Index = (ULONG)Keep + 1; Compare == 0 && Index < Count; Index++) {
        if (Digits[Index] != '0') {
            Compare = 1;
        }
    }

    if (Keep == 0) {
        if (Compare > 0) {
            Digits[0] = '1';
            (*DecimalPoint)++;
            return 1;
        }
        return 0;
    }

    Count = (ULONG)Keep;
    if (Compare > 0 || (Compare == 0 && ((Digits[Keep - 1] - '0') & 1))) {
        Index = Count;
        while (Index > 0 && Digits[Index - 1] == '9') {
            Digits[--Index] = '0';
        }
        if (Index == 0) {
            Digits[0] = '1';
            Count = 1;
            (*DecimalPoint)++;
        } else {
            Digits[Index - 1]++;
        }
    }

    StripZeros(Digits, &Count);
    return Count;
}

static
ULONG
DoubleDigits(
    DOUBLE Value,
    ULONG Mode,
    LONG Wanted,
    PCHAR Digits,
    PLONG DecimalPoint,
    PBOOL Negative
    )
/*++

Routine Description:

    The digits of a finite double as Python's _Py_dg_dtoa gives them:
    mode 0 shortest round-trip, mode 2 Wanted significant digits, mode 3
    Wanted digits after the point; all correctly rounded from the exact
    binary value.  Returns the count (0 when mode 3 rounds to zero, with
    *DecimalPoint = -Wanted).

--*/
{
    ULONGLONG Bits;
    ULONGLONG Mantissa;
    ULONG Field;
    LONG Exponent;
    LONG Scale;
    ULONG Count;

    __builtin_memcpy(&Bits, &Value, sizeof(Bits));
    *Negative = (Bits >> 63) != 0;
    Field = (ULONG)(Bits >> 52) & 0x7ff;
    Mantissa = Bits & ((1ULL << 52) - 1);

    if (Field == 0 && Mantissa == 0) {
        Digits[0] = '0';
        *DecimalPoint = 1;
        return 1;
    }

    if (Field == 0) {
        Exponent = -1074;
    } else {
        Mantissa |= 1ULL << 52;
        Exponent = (LONG)Field - 1075;
    }

    if (Mode == 0) {
        return ShortestDigits(Mantissa, Exponent,
                              (Bits & ((1ULL << 52) - 1)) == 0 && Field > 1,
                              Digits, DecimalPoint);
    }

    Count = ScaledDecimal(Mantissa, Exponent, Digits, &Scale);
    *DecimalPoint = (LONG)Count + Scale;
    Count = RoundDigits(Digits, Count,
                        Mode == 2 ? Wanted : *DecimalPoint + Wanted,
                        DecimalPoint);
    if (Count == 0) {
        *DecimalPoint = -Wanted;
    }

    return Count;
}

static
PCHAR
PutZeros(
    PCHAR Out,
    LONGLONG Count
    )
{
    while (Count-- > 0) {
        *Out++ = '0';
    }
    return Out;
}

static
PCHAR
PutExponent(
    PCHAR Out,
    CHAR Type,
    LONG Exponent
    )
/*++

Routine Description:

    "e+XX": the letter in the case of Type, the sign, at least two digits.

--*/
{
    CHAR Buffer[8];
    ULONG Length = 0;

    *Out++ = (Type >= 'A' && Type <= 'Z') ? 'E' : 'e';
    *Out++ = Exponent < 0 ? '-' : '+';
    if (Exponent < 0) {
        Exponent = -Exponent;
    }
    do {
        Buffer[Length++] = (CHAR)('0' + Exponent % 10);
        Exponent /= 10;
    } while (Exponent != 0);
    if (Length < 2) {
        Buffer[Length++] = '0';
    }
    while (Length > 0) {
        *Out++ = Buffer[--Length];
    }
    return Out;
}

ULONG
KvmtraceFormatFloat(
    DOUBLE Value,
    CHAR Type,
    LONG Precision,
    BOOL Alternate,
    BOOL AddDotZero,
    PCHAR Output
    )
/*++

Routine Description:

    CPython's PyOS_double_to_string / format_float_short for a finite
    value: Type is e E f F g G, or r for repr (Precision unused).

--*/
{
    CHAR Digits[FLOAT_DIGITS + 16];
    CHAR Lower = Type | 0x20;
    ULONG Mode;
    ULONG Count;
    LONG DecimalPoint;
    LONG Exponent = 0;
    LONG VirtualStart;
    LONG VirtualEnd;
    BOOL Negative;
    BOOL UseExponent = FALSE;
    PCHAR Out = Output;

    switch (Lower) {
    case 'e':
        Mode = 2;
        Precision++;
        break;
    case 'f':
        Mode = 3;
        break;
    case 'g':
        Mode = 2;
        if (Precision == 0) {
            Precision = 1;
        }
        break;
    default:
        Mode = 0;
        Precision = 0;
        break;
    }

    Count = DoubleDigits(Value, Mode, Precision, Digits, &DecimalPoint,
                         &Negative);

    VirtualEnd = (LONG)Count;
    switch (Lower) {
    case 'e':
        UseExponent = TRUE;
        VirtualEnd = Precision;
        break;
    case 'f':
        VirtualEnd = DecimalPoint + Precision;
        break;
    case 'g':
        if (DecimalPoint <= -4 ||
            DecimalPoint > (AddDotZero ? Precision - 1 : Precision)) {
            UseExponent = TRUE;
        }
        if (Alternate) {
            VirtualEnd = Precision;
        }
        break;
    default:
        if (DecimalPoint <= -4 || DecimalPoint > 16) {
            UseExponent = TRUE;
        }
        break;
    }

    if (UseExponent) {
        Exponent = DecimalPoint - 1;
        DecimalPoint = 1;
    }

    VirtualStart = DecimalPoint <= 0 ? DecimalPoint - 1 : 0;
    if (!UseExponent && AddDotZero) {
        VirtualEnd = VirtualEnd > DecimalPoint ? VirtualEnd :
                     DecimalPoint + 1;
    } else {
        VirtualEnd = VirtualEnd > DecimalPoint ? VirtualEnd : DecimalPoint;
    }

    if (Negative) {
        *Out++ = '-';
    }

    if (DecimalPoint <= 0) {
        Out = PutZeros(Out, DecimalPoint - VirtualStart);
        *Out++ = '.';
        Out = PutZeros(Out, -DecimalPoint);
    } else {
        Out = PutZeros(Out, -VirtualStart);
    }

    if (DecimalPoint > 0 && DecimalPoint <= (LONG)Count) {
        ULONG Index;

        for (Index = 0; Index < (ULONG)DecimalPoint; Index++) {
            *Out++ = Digits[Index];
        }
        *Out++ = '.';
        for (; Index < Count; Index++) {
            *Out++ = Digits[Index];
        }
    } else {
        ULONG Index;

        for (Index = 0; Index < Count; Index++) {
            *Out++ = Digits[Index];
        }
    }

    if ((LONG)Count < DecimalPoint) {
        Out = PutZeros(Out, DecimalPoint - (LONG)Count);
        *Out++ = '.';
        Out = PutZeros(Out, VirtualEnd - DecimalPoint);
    } else {
        Out = PutZeros(Out, VirtualEnd - (LONG)Count);
    }

    if (Out[-1] == '.' && !Alternate) {
        Out--;
    }

    if (UseExponent) {
        Out = PutExponent(Out, Type, Exponent);
    }

    return (ULONG)(Out - Output);
}
