/*++

Module Name:

    TextParse.c

Abstract:

    This module implements the parsing helpers shared by the text readers
    (see TextParse.h).  No routine reads at or past the End it is given.

Environment:

    Core: no C runtime, no OS service.  Called by the readers and the
    rest of the readers (see TextParse.h); calls nothing.

--*/

#include "TextParse.h"

typedef char V16 __attribute__((vector_size(16), aligned(1)));

PCSZ
TextFindChar(
    PCSZ Start,
    PCSZ End,
    CHAR Char
    )
{
    PCSZ Cursor = Start;

#if defined(__x86_64__)

    //
    // Sixteen bytes at a time (SSE2 is part of x86-64), only while a whole
    // vector lies before End.
    //

    V16 Pattern = {Char, Char, Char, Char, Char, Char, Char, Char,
                   Char, Char, Char, Char, Char, Char, Char, Char};

    while (End - Cursor >= 16) {
        V16 Chunk;
        V16 Equal;
        int Mask;

        __builtin_memcpy(&Chunk, Cursor, 16);
        Equal = (V16)(Chunk == Pattern);
        Mask = __builtin_ia32_pmovmskb128(Equal);
        if (Mask != 0) {
            return Cursor + __builtin_ctz((unsigned)Mask);
        }
        Cursor += 16;
    }
#endif

    while (Cursor < End && *Cursor != Char) {
        Cursor++;
    }

    return Cursor;
}

PCSZ
TextFindBlank(
    PCSZ Start,
    PCSZ End
    )
{
    PCSZ Cursor = Start;

#if defined(__x86_64__)

    //
    // Sixteen bytes at a time: a byte is at or below ' ' when the unsigned
    // minimum of it and ' ' is itself.
    //

    typedef unsigned char U16 __attribute__((vector_size(16), aligned(1)));
    U16 Space = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' ',
                 ' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};

    while (End - Cursor >= 16) {
        U16 Chunk;
        int Mask;

        __builtin_memcpy(&Chunk, Cursor, 16);
        Mask = __builtin_ia32_pmovmskb128((V16)(Chunk <= Space));
        if (Mask != 0) {
            return Cursor + __builtin_ctz((unsigned)Mask);
        }
        Cursor += 16;
    }
#endif

    while (Cursor < End && (unsigned char)*Cursor > ' ') {
        Cursor++;
    }

    return Cursor;
}

PCSZ
TextFindString(
    PCSZ Start,
    PCSZ End,
    PCSZ Needle,
    ULONG NeedleLength
    )
{
    PCSZ Cursor = Start;

    if (NeedleLength == 0) {
        return Start;
    }

    while ((SIZE_T)(End - Cursor) >= NeedleLength) {
        ULONG Index;

        Cursor = TextFindChar(Cursor, End - NeedleLength + 1, Needle[0]);
        if ((SIZE_T)(End - Cursor) < NeedleLength) {
            break;
        }

        for (Index = 1; Index < NeedleLength; Index++) {
            if (Cursor[Index] != Needle[Index]) {
                break;
            }
        }
        if (Index == NeedleLength) {
            return Cursor;
        }
        Cursor++;
    }

    return NULL;
}

PCSZ
TextSkipSpaces(
    PCSZ Start,
    PCSZ End
    )
{
    while (Start < End && TextIsBlank(*Start)) {
        Start++;
    }
    return Start;
}

PCSZ
TextTrimEnd(
    PCSZ Start,
    PCSZ End
    )
{
    while (End > Start &&
           (End[-1] == ' ' || End[-1] == '\t' || End[-1] == '\r')) {
        End--;
    }
    return End;
}

BOOL
TextIsDecimal(
    PCSZ Start,
    PCSZ End
    )
{
    if (Start >= End) {
        return FALSE;
    }

    for (; Start < End; Start++) {
        if (!TextIsDigit(*Start)) {
            return FALSE;
        }
    }

    return TRUE;
}

LONG
TextHexValue(
    CHAR Char
    )
{
    if (Char >= '0' && Char <= '9') {
        return Char - '0';
    }
    if (Char >= 'a' && Char <= 'f') {
        return Char - 'a' + 10;
    }
    if (Char >= 'A' && Char <= 'F') {
        return Char - 'A' + 10;
    }
    return -1;
}

PCSZ
TextParseUnsigned(
    PCSZ Start,
    PCSZ End,
    BOOL ForceHex,
    PULONGLONG Value
    )
{
    PCSZ Cursor = Start;
    ULONGLONG Result = 0;
    BOOL Hex = ForceHex;

    if (End - Cursor >= 3 && Cursor[0] == '0' &&
        (Cursor[1] == 'x' || Cursor[1] == 'X') &&
        TextHexValue(Cursor[2]) >= 0) {
        Hex = TRUE;
        Cursor += 2;
    }

    Start = Cursor;

    if (Hex) {
        while (Cursor < End && TextHexValue(*Cursor) >= 0) {
            if (Result >> 60) {
                return NULL;
            }
            Result = (Result << 4) | (ULONGLONG)TextHexValue(*Cursor);
            Cursor++;
        }
    } else {
        while (Cursor < End && TextIsDigit(*Cursor)) {
            ULONGLONG Digit = (ULONGLONG)(*Cursor - '0');
            if (Result > (~0ULL - Digit) / 10) {
                return NULL;
            }
            Result = Result * 10 + Digit;
            Cursor++;
        }
    }

    if (Cursor == Start) {
        return NULL;
    }

    *Value = Result;
    return Cursor;
}

PCSZ
TextParseSigned(
    PCSZ Start,
    PCSZ End,
    PLONGLONG Value
    )
{
    BOOL Negative = FALSE;
    ULONGLONG Magnitude;
    PCSZ Cursor = Start;

    if (Cursor < End && *Cursor == '-') {
        Negative = TRUE;
        Cursor++;
    }

    Cursor = TextParseUnsigned(Cursor, End, FALSE, &Magnitude);
    if (Cursor == NULL || Magnitude > (ULONGLONG)0x7fffffffffffffffULL) {
        return NULL;
    }

    *Value = Negative ? -(LONGLONG)Magnitude : (LONGLONG)Magnitude;
    return Cursor;
}

PCSZ
TextParseSeconds(
    PCSZ Start,
    PCSZ End,
    PLONGLONG Nanoseconds
    )
{
    ULONGLONG Seconds = 0;
    ULONGLONG Fraction = 0;
    ULONG Digits = 0;
    PCSZ Cursor = Start;

    while (Cursor < End && TextIsDigit(*Cursor)) {
        Seconds = Seconds * 10 + (ULONGLONG)(*Cursor - '0');
        if (Seconds > 9000000000ULL) {
            return NULL;
        }
        Cursor++;
    }

    if (Cursor == Start) {
        return NULL;
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor++;
        while (Cursor < End && TextIsDigit(*Cursor)) {
            if (Digits == 9) {
                return NULL;
            }
            Fraction = Fraction * 10 + (ULONGLONG)(*Cursor - '0');
            Digits++;
            Cursor++;
        }
        if (Digits == 0) {
            return NULL;
        }
        while (Digits < 9) {
            Fraction *= 10;
            Digits++;
        }
    }

    *Nanoseconds = (LONGLONG)(Seconds * 1000000000ULL + Fraction);
    return Cursor;
}

BOOL
TextFindField(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    PTEXT_SPAN Value
    )
{
    ULONG KeyLength = (ULONG)RtlStringLength(Key);
    PCSZ Cursor = Start;

    for (;;) {
        PCSZ Found = TextFindString(Cursor, End, Key, KeyLength);
        if (Found == NULL) {
            return FALSE;
        }
        if (Found == Start || Found[-1] == ' ' || Found[-1] == ',') {
            Value->Start = Found + KeyLength;
            Value->End = TextFindChar(Value->Start, End, ' ');
            return TRUE;
        }
        Cursor = Found + 1;
    }
}

BOOL
TextFindNumber(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    PULONGLONG Value
    )
{
    TEXT_SPAN Span;
    PCSZ After;

    if (!TextFindField(Start, End, Key, &Span)) {
        return FALSE;
    }

    //
    // A trailing comma ("vcpu 0, rip ...") ends the number too.
    //

    After = TextParseUnsigned(Span.Start, Span.End, FALSE, Value);
    return After != NULL && (After == Span.End || *After == ',');
}

BOOL
TextSpanEquals(
    TEXT_SPAN Span,
    PCSZ Literal
    )
{
    PCSZ Cursor = Span.Start;

    while (Cursor < Span.End && *Literal != '\0' && *Cursor == *Literal) {
        Cursor++;
        Literal++;
    }

    return Cursor == Span.End && *Literal == '\0';
}

BOOL
TextEquals(
    PCSZ Start,
    SIZE_T Length,
    PCSZ Literal
    )
{
    TEXT_SPAN Span;

    Span.Start = Start;
    Span.End = Start + Length;
    return TextSpanEquals(Span, Literal);
}

BOOL
TextStartsWith(
    PCSZ Start,
    PCSZ End,
    PCSZ Literal
    )
{
    while (*Literal != '\0') {
        if (Start >= End || *Start != *Literal) {
            return FALSE;
        }
        Start++;
        Literal++;
    }
    return TRUE;
}

BOOL
TextNextField(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ Separator,
    ULONG SeparatorLength,
    PTEXT_SPAN Field
    )
{
    PCSZ Start = *Cursor;
    PCSZ Found;

    if (Start == NULL) {
        return FALSE;
    }

    Found = (SeparatorLength == 1) ?
            TextFindChar(Start, End, Separator[0]) :
            TextFindString(Start, End, Separator, SeparatorLength);
    if (Found == NULL) {
        Found = End;
    }

    Field->Start = Start;
    Field->End = Found;
    *Cursor = (Found == End) ? NULL : Found + SeparatorLength;
    return TRUE;
}

PCSZ
TextParseDouble(
    PCSZ Start,
    PCSZ End,
    PDOUBLE Value
    )
/*++

Routine Description:

    Converts decimal text to the nearest double without a C runtime.  A
    mantissa of at most 2^53 scaled by an exact power of ten (up to 10^22)
    is one correctly rounded IEEE multiplication or division (Clinger's
    fast path), which covers every counter value, percentage and time perf
    prints.  Anything else is scaled step by step and may be off by an ulp.

--*/
{
    static const DOUBLE Powers[] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    PCSZ Cursor = Start;
    BOOL Negative = FALSE;
    ULONGLONG Mantissa = 0;
    ULONG Significant = 0;
    ULONG Digits = 0;
    LONG Exponent = 0;
    DOUBLE Result;

    if (Cursor < End && (*Cursor == '-' || *Cursor == '+')) {
        Negative = (*Cursor == '-');
        Cursor++;
    }

    for (; Cursor < End && TextIsDigit(*Cursor); Cursor++, Digits++) {
        if (Significant < 19) {
            Mantissa = Mantissa * 10 + (ULONGLONG)(*Cursor - '0');
            Significant += (Mantissa != 0);
        } else {
            Exponent++;
        }
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor++;
        for (; Cursor < End && TextIsDigit(*Cursor); Cursor++, Digits++) {
            if (Significant < 19) {
                Mantissa = Mantissa * 10 + (ULONGLONG)(*Cursor - '0');
                Significant += (Mantissa != 0);
                Exponent--;
            }
        }
    }

    if (Digits == 0) {
        return NULL;
    }

    if (Cursor < End && (*Cursor == 'e' || *Cursor == 'E')) {
        PCSZ After;
        LONGLONG Power;

        After = TextParseSigned(Cursor + 1 +
                                    (Cursor + 1 < End && Cursor[1] == '+'),
                                End, &Power);
        if (After == NULL || Power > 100000 || Power < -100000) {
            return NULL;
        }
        Exponent += (LONG)Power;
        Cursor = After;
    }

    Result = (DOUBLE)Mantissa;

    if (Mantissa == 0) {
        Result = 0;
    } else if (Mantissa <= (1ULL << 53) && Exponent >= -22 &&
               Exponent <= 22) {
        Result = (Exponent < 0) ? Result / Powers[-Exponent] :
                                  Result * Powers[Exponent];
    } else if (Exponent > 330) {
        Result = Result * 1e300 * 1e300;            // infinity
    } else if (Exponent < -360) {
        Result = 0;
    } else {
        while (Exponent > 22) {
            Result *= 1e22;
            Exponent -= 22;
        }
        while (Exponent < -22) {
            Result /= 1e22;
            Exponent += 22;
        }
        Result = (Exponent < 0) ? Result / Powers[-Exponent] :
                                  Result * Powers[Exponent];
    }

    *Value = Negative ? -Result : Result;
    return Cursor;
}

ULONG
TextEncodeUtf8(
    ULONG Code,
    PCHAR Out
    )
{
    if (Code < 0x80) {
        Out[0] = (CHAR)Code;
        return 1;
    }
    if (Code < 0x800) {
        Out[0] = (CHAR)(0xC0 | (Code >> 6));
        Out[1] = (CHAR)(0x80 | (Code & 0x3F));
        return 2;
    }
    if (Code < 0x10000) {
        Out[0] = (CHAR)(0xE0 | (Code >> 12));
        Out[1] = (CHAR)(0x80 | ((Code >> 6) & 0x3F));
        Out[2] = (CHAR)(0x80 | (Code & 0x3F));
        return 3;
    }
    Out[0] = (CHAR)(0xF0 | (Code >> 18));
    Out[1] = (CHAR)(0x80 | ((Code >> 12) & 0x3F));
    Out[2] = (CHAR)(0x80 | ((Code >> 6) & 0x3F));
    Out[3] = (CHAR)(0x80 | (Code & 0x3F));
    return 4;
}
