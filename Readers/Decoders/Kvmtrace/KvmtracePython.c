/*++

Module Name:

    KvmtracePython.c

Abstract:

    Python's reading of the kvmtrace `formats` text (see
    KvmtracePython.h), as CPython 3.11 does it: UTF-8 decoded strictly,
    Python's Unicode whitespace, and int(ID, 0) with its prefixes,
    underscores, Unicode decimal digits and the 4300-digit limit of its
    str() conversion (the seed keys its rules by str(int(ID, 0))).

Environment:

    Core: no C runtime, no OS service.  Called by KvmtraceRules.c; calls
    nothing.

--*/

#include "KvmtraceFormat.h"
#include "KvmtracePython.h"

//
// ---------------------------------------------------------------------------
// UTF-8 and Python's notion of whitespace.
// ---------------------------------------------------------------------------
//

ULONG
KvmtraceUtf8Length(
    const BYTE *Bytes,
    SIZE_T Available
    )
/*++

Routine Description:

    Returns the length of the well-formed UTF-8 sequence at Bytes, or 0 if
    it is not one (Python's strict decoder: no overlong forms, no
    surrogates, nothing above U+10FFFF).

--*/
{
    BYTE Lead = Bytes[0];
    BYTE Low = 0x80;
    BYTE High = 0xbf;
    ULONG Length;
    ULONG Index;

    if (Lead < 0x80) {
        return 1;
    } else if (Lead >= 0xc2 && Lead <= 0xdf) {
        Length = 2;
    } else if (Lead >= 0xe0 && Lead <= 0xef) {
        Length = 3;
        if (Lead == 0xe0) {
            Low = 0xa0;
        } else if (Lead == 0xed) {
            High = 0x9f;
        }
    } else if (Lead >= 0xf0 && Lead <= 0xf4) {
        Length = 4;
        if (Lead == 0xf0) {
            Low = 0x90;
        } else if (Lead == 0xf4) {
            High = 0x8f;
        }
    } else {
        return 0;
    }

    if (Available < Length || Bytes[1] < Low || Bytes[1] > High) {
        return 0;
    }
    for (Index = 2; Index < Length; Index++) {
        if ((Bytes[Index] & 0xc0) != 0x80) {
            return 0;
        }
    }

    return Length;
}

ULONG
KvmtraceUtf8Decode(
    PCSZ Text,
    PCSZ End,
    PULONG CodePoint
    )
/*++

Routine Description:

    Decodes one character of validated UTF-8 text; returns its length.

--*/
{
    const BYTE *Bytes = (const BYTE *)Text;
    ULONG Length = KvmtraceUtf8Length(Bytes, (SIZE_T)(End - Text));

    switch (Length) {
    case 2:
        *CodePoint = ((ULONG)(Bytes[0] & 0x1f) << 6) | (Bytes[1] & 0x3f);
        break;
    case 3:
        *CodePoint = ((ULONG)(Bytes[0] & 0x0f) << 12) |
                     ((ULONG)(Bytes[1] & 0x3f) << 6) | (Bytes[2] & 0x3f);
        break;
    case 4:
        *CodePoint = ((ULONG)(Bytes[0] & 0x07) << 18) |
                     ((ULONG)(Bytes[1] & 0x3f) << 12) |
                     ((ULONG)(Bytes[2] & 0x3f) << 6) | (Bytes[3] & 0x3f);
        break;
    default:
        *CodePoint = Bytes[0];
        Length = 1;
        break;
    }

    return Length;
}

static
BOOL
IsPythonSpace(
    ULONG CodePoint
    )
/*++

Routine Description:

    str.isspace() and the re module's \s for str patterns (the same set).

--*/
{
    if (CodePoint < 0x80) {
        return (CodePoint >= 0x09 && CodePoint <= 0x0d) ||
               (CodePoint >= 0x1c && CodePoint <= 0x20);
    }

    return CodePoint == 0x85 || CodePoint == 0xa0 || CodePoint == 0x1680 ||
           (CodePoint >= 0x2000 && CodePoint <= 0x200a) ||
           CodePoint == 0x2028 || CodePoint == 0x2029 ||
           CodePoint == 0x202f || CodePoint == 0x205f || CodePoint == 0x3000;
}

PCSZ
KvmtraceSkipSpace(
    PCSZ Text,
    PCSZ End,
    BOOL Space
    )
/*++

Routine Description:

    Skips characters that are whitespace (Space TRUE) or that are not.

--*/
{
    ULONG CodePoint;
    ULONG Length;

    while (Text < End) {
        Length = KvmtraceUtf8Decode(Text, End, &CodePoint);
        if (IsPythonSpace(CodePoint) != Space) {
            break;
        }
        Text += Length;
    }

    return Text;
}

//
// ---------------------------------------------------------------------------
// Event ids: Python's int(ID, 0).
// ---------------------------------------------------------------------------
//

//
// The first code point of each run of ten Unicode decimal digits (category
// Nd, Unicode 14 as in Python 3.11): int() reads them as 0..9.
//

static const ULONG DecimalRuns[] = {
    0x30, 0x660, 0x6f0, 0x7c0, 0x966, 0x9e6, 0xa66, 0xae6, 0xb66, 0xbe6,
    0xc66, 0xce6, 0xd66, 0xde6, 0xe50, 0xed0, 0xf20, 0x1040, 0x1090, 0x17e0,
    0x1810, 0x1946, 0x19d0, 0x1a80, 0x1a90, 0x1b50, 0x1bb0, 0x1c40, 0x1c50,
    0xa620, 0xa8d0, 0xa900, 0xa9d0, 0xa9f0, 0xaa50, 0xabf0, 0xff10, 0x104a0,
    0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450, 0x114d0,
    0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0,
    0x16a60, 0x16ac0, 0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6,
    0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0
};

//
// The seed keys its rules by str(int(ID, 0)), and Python 3.11 refuses to
// convert integers of more than 4300 decimal digits either way (its
// int_max_str_digits default): a longer decimal ID, or a 0x/0o/0b ID whose
// value is 10^4300 or more, raises.  10^4300 has 14285 bits.
//

#define MAX_DECIMAL_DIGITS      4300
#define MAX_STR_BITS            14285
#define STR_LIMBS               ((MAX_STR_BITS + 31) / 32)

static
CHAR
NextIdChar(
    PCSZ *Cursor,
    PCSZ End
    )
/*++

Routine Description:

    The next character of an id as int() sees it: ASCII as is, a Unicode
    decimal digit as its ASCII digit, anything else as '?' (invalid).

--*/
{
    ULONG CodePoint;
    ULONG Index;

    *Cursor += KvmtraceUtf8Decode(*Cursor, End, &CodePoint);
    if (CodePoint < 0x80) {
        return (CHAR)CodePoint;
    }
    for (Index = 0; Index < ARRAYSIZE(DecimalRuns); Index++) {
        if (CodePoint >= DecimalRuns[Index] &&
            CodePoint < DecimalRuns[Index] + 10) {
            return (CHAR)('0' + (CodePoint - DecimalRuns[Index]));
        }
    }
    return '?';
}

static
ULONG
DigitValue(
    CHAR Char
    )
{
    if (Char >= '0' && Char <= '9') {
        return (ULONG)(Char - '0');
    }
    if (Char >= 'a' && Char <= 'z') {
        return (ULONG)(Char - 'a' + 10);
    }
    if (Char >= 'A' && Char <= 'Z') {
        return (ULONG)(Char - 'A' + 10);
    }
    return 99;
}

static
BOOL
BelowStrLimit(
    PCSZ Start,
    PCSZ End,
    ULONG Shift
    )
/*++

Routine Description:

    For a 0x/0o/0b literal of exactly MAX_STR_BITS bits: is its value
    below 10^4300?  Start is its first digit, Shift the bits per digit.

--*/
{
    ULONG Value[STR_LIMBS];
    ULONG Limit[STR_LIMBS];
    PCSZ Cursor = Start;
    ULONG Index;
    ULONGLONG Carry;
    CHAR Char;

    for (Index = 0; Index < STR_LIMBS; Index++) {
        Value[Index] = 0;
        Limit[Index] = 0;
    }

    while (Cursor < End) {
        Char = NextIdChar(&Cursor, End);
        if (Char == '_') {
            continue;
        }
        Carry = DigitValue(Char);
        for (Index = 0; Index < STR_LIMBS; Index++) {
            Carry |= (ULONGLONG)Value[Index] << Shift;
            Value[Index] = (ULONG)Carry;
            Carry >>= 32;
        }
    }

    Limit[0] = 1;
    for (Carry = 0; Carry < MAX_DECIMAL_DIGITS; Carry++) {
        ULONGLONG Product = 0;

        for (Index = 0; Index < STR_LIMBS; Index++) {
            Product += (ULONGLONG)Limit[Index] * 10;
            Limit[Index] = (ULONG)Product;
            Product >>= 32;
        }
    }

    for (Index = STR_LIMBS; Index-- > 0;) {
        if (Value[Index] != Limit[Index]) {
            return Value[Index] < Limit[Index];
        }
    }
    return FALSE;
}

BOOL
KvmtraceParseEventId(
    PCSZ Start,
    PCSZ End,
    PULONG Event,
    PBOOL Matchable
    )
/*++

Routine Description:

    Parses an int(ID, 0) literal: [+-] then 0x/0o/0b and digits, or
    decimal without a leading zero (unless all zeros) and of at most 4300
    digits; single underscores between digits (and after a base prefix);
    Unicode decimal digits count as digits.

Arguments:

    Event - Receives the value when it can be an event id (0..2^28-1).

    Matchable - Receives FALSE for a valid literal no event id equals
        (negative, or too large).

Return Value:

    FALSE if Python's int() would raise.

--*/
{
    PCSZ Cursor = Start;
    PCSZ Saved;
    BOOL Negative = FALSE;
    ULONG Base = 10;
    ULONGLONG Value = 0;
    ULONGLONG Digits = 0;
    BOOL Overflow = FALSE;
    BOOL NeedDigit = TRUE;      // after the start, a prefix, or '_'
    BOOL AllowUnderscore = FALSE;
    BOOL LeadingZero = FALSE;
    BOOL NonZero = FALSE;
    PCSZ FirstDigit = NULL;
    PCSZ CharStart = Start;
    ULONGLONG Bits = 0;
    ULONG Shift = 0;
    ULONG Digit;
    CHAR Char;

    if (Cursor >= End) {
        return FALSE;
    }
    Char = NextIdChar(&Cursor, End);
    if (Char == '+' || Char == '-') {
        Negative = (Char == '-');
        if (Cursor >= End) {
            return FALSE;
        }
        CharStart = Cursor;
        Char = NextIdChar(&Cursor, End);
    }

    if (Char == '0' && Cursor < End) {
        CHAR Prefix;

        Saved = Cursor;
        Prefix = NextIdChar(&Cursor, End) | 0x20;
        if (Prefix == 'x' || Prefix == 'o' || Prefix == 'b') {
            Base = (Prefix == 'x') ? 16 : (Prefix == 'o') ? 8 : 2;
            Shift = (Prefix == 'x') ? 4 : (Prefix == 'o') ? 3 : 1;
            AllowUnderscore = TRUE;
            if (Cursor >= End) {
                return FALSE;
            }
            CharStart = Cursor;
            Char = NextIdChar(&Cursor, End);
        } else {
            Cursor = Saved;
        }
    }
    if (Base == 10 && Char == '0') {
        LeadingZero = TRUE;
    }

    for (;;) {
        if (Char == '_') {
            if (!AllowUnderscore) {
                return FALSE;
            }
            AllowUnderscore = FALSE;
            NeedDigit = TRUE;
        } else {
            Digit = DigitValue(Char);
            if (Digit >= Base) {
                return FALSE;
            }
            if (NonZero) {
                Bits += Shift;
            } else if (Digit != 0) {
                NonZero = TRUE;
                FirstDigit = CharStart;
                while ((Digit >> Bits) != 0) {
                    Bits++;
                }
            }
            Digits++;
            if (Value > (~0ULL - Digit) / Base) {
                Overflow = TRUE;
            } else {
                Value = Value * Base + Digit;
            }
            NeedDigit = FALSE;
            AllowUnderscore = TRUE;
        }
        if (Cursor >= End) {
            break;
        }
        CharStart = Cursor;
        Char = NextIdChar(&Cursor, End);
    }

    if (NeedDigit || (LeadingZero && NonZero) ||
        (Base == 10 && Digits > MAX_DECIMAL_DIGITS)) {
        return FALSE;
    }
    if (Base != 10 && NonZero) {
        if (Bits > MAX_STR_BITS ||
            (Bits == MAX_STR_BITS && !BelowStrLimit(FirstDigit, End, Shift))) {
            return FALSE;
        }
    }

    *Matchable = !Overflow && Value <= KVMTRACE_EVENT_MASK &&
                 (!Negative || Value == 0);
    *Event = (ULONG)Value;
    return TRUE;
}
