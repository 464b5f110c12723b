/*++

Module Name:

    Json.c

Abstract:

    This module implements the streaming JSON tokenizer (see Json.h).
    Strings are scanned sixteen bytes at a time for the three bytes that
    end the fast path (quote, backslash, control character); containers
    are skipped with a bit stack of their kinds, so nesting costs no
    memory beyond JSON_MAX_DEPTH bits.

Environment:

    Core: no C runtime, no OS service.  Called by the Chrome JSON reader
    (Decoders/Chrome); calls TextParse.c (numbers).

--*/

#include "Json.h"
#include "TextParse.h"

BOOL
JsonFail(
    PJSON_ERROR Error,
    PCSZ At,
    PCSZ Reason
    )
{
    Error->At = At;
    Error->Reason = Reason;
    return FALSE;
}

PCSZ
JsonScanStringRest(
    PCSZ Open,
    PCSZ Cursor,
    PCSZ End,
    PJSON_STRING String,
    PJSON_ERROR Error
    )
/*++

Routine Description:

    Continues JsonScanString at the first byte its fast path stopped on
    that is not the closing quote: a backslash (validated escapes, then on
    to the closing quote), a control character, or the end of the input.

--*/
{
    for (;;) {
        if (Cursor >= End) {
            JsonFail(Error, Open, "unterminated string");
            return NULL;
        }

        if (*Cursor == '"') {
            String->End = Cursor;
            return Cursor + 1;
        }

        if (*Cursor != '\\') {
            JsonFail(Error, Cursor, "control character in a string");
            return NULL;
        }

        String->Escaped = TRUE;
        if (End - Cursor < 2) {
            JsonFail(Error, Open, "unterminated string");
            return NULL;
        }

        switch (Cursor[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            Cursor += 2;
            break;

        case 'u':
            if (End - Cursor < 6 || TextHexValue(Cursor[2]) < 0 ||
                TextHexValue(Cursor[3]) < 0 ||
                TextHexValue(Cursor[4]) < 0 ||
                TextHexValue(Cursor[5]) < 0) {
                JsonFail(Error, Cursor, "bad \\u escape in a string");
                return NULL;
            }
            Cursor += 6;
            break;

        default:
            JsonFail(Error, Cursor, "bad escape in a string");
            return NULL;
        }

        Cursor = JsonFindStringStop(Cursor, End);
    }
}

static
ULONG
ReadHex4(
    PCSZ Digits
    )
{
    return ((ULONG)TextHexValue(Digits[0]) << 12) |
           ((ULONG)TextHexValue(Digits[1]) << 8) |
           ((ULONG)TextHexValue(Digits[2]) << 4) |
           (ULONG)TextHexValue(Digits[3]);
}

ULONG
JsonDecodeString(
    PJSON_STRING String,
    PCHAR Buffer,
    ULONG Size
    )
{
    PCSZ Cursor = String->Start;
    PCSZ End = String->End;
    ULONG Length = 0;

    //
    // JsonScanString validated every escape, so the reads below stay
    // inside [Start, End).
    //

    while (Cursor < End) {
        ULONG Code;
        BYTE Bytes[4];
        ULONG Count;
        ULONG Index;

        if (*Cursor != '\\') {
            if (Length == Size) {
                return ~0u;
            }
            Buffer[Length++] = *Cursor++;
            continue;
        }

        switch (Cursor[1]) {
        case 'b': Code = '\b'; Cursor += 2; break;
        case 'f': Code = '\f'; Cursor += 2; break;
        case 'n': Code = '\n'; Cursor += 2; break;
        case 'r': Code = '\r'; Cursor += 2; break;
        case 't': Code = '\t'; Cursor += 2; break;
        case 'u':
            Code = ReadHex4(Cursor + 2);
            Cursor += 6;
            if (Code >= 0xD800 && Code <= 0xDBFF) {

                //
                // A high surrogate pairs with a following \uDC00-\uDFFF.
                //

                if (End - Cursor >= 6 && Cursor[0] == '\\' &&
                    Cursor[1] == 'u') {
                    ULONG Low = ReadHex4(Cursor + 2);

                    if (Low >= 0xDC00 && Low <= 0xDFFF) {
                        Code = 0x10000 + ((Code - 0xD800) << 10) +
                               (Low - 0xDC00);
                        Cursor += 6;
                        break;
                    }
                }
                Code = 0xFFFD;
            } else if (Code >= 0xDC00 && Code <= 0xDFFF) {
                Code = 0xFFFD;
            }
            break;
        default:
            Code = (BYTE)Cursor[1];     // '"', '\\', '/'
            Cursor += 2;
            break;
        }

        Count = TextEncodeUtf8(Code, (PCHAR)Bytes);

        if (Size - Length < Count) {
            return ~0u;
        }
        for (Index = 0; Index < Count; Index++) {
            Buffer[Length++] = (CHAR)Bytes[Index];
        }
    }

    return Length;
}

static
PCSZ
ScanDigits(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Start,
    PJSON_ERROR Error
    )
/*++

Routine Description:

    Skips the digits of a number's fraction or exponent, of which there
    must be one at least (else "malformed number" at Start, and NULL).

--*/
{
    if (Cursor >= End || !TextIsDigit(*Cursor)) {
        JsonFail(Error, Start, (Cursor >= End) ? JSON_END_OF_INPUT :
                                                 "malformed number");
        return NULL;
    }
    while (Cursor < End && TextIsDigit(*Cursor)) {
        Cursor++;
    }

    return Cursor;
}

PCSZ
JsonScanNumber(
    PCSZ Cursor,
    PCSZ End,
    PJSON_NUMBER Number,
    PJSON_ERROR Error
    )
{
    PCSZ Start = Cursor;

    if (Cursor < End && *Cursor == '-') {
        Cursor++;
    }

    if (Cursor >= End || !TextIsDigit(*Cursor)) {
        JsonFail(Error, Start, (Cursor >= End) ? JSON_END_OF_INPUT :
                                                 "expected a number");
        return NULL;
    }

    if (*Cursor == '0') {
        Cursor++;
    } else {
        while (Cursor < End && TextIsDigit(*Cursor)) {
            Cursor++;
        }
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor = ScanDigits(Cursor + 1, End, Start, Error);
        if (Cursor == NULL) {
            return NULL;
        }
    }

    if (Cursor < End && (*Cursor == 'e' || *Cursor == 'E')) {
        Cursor++;
        if (Cursor < End && (*Cursor == '+' || *Cursor == '-')) {
            Cursor++;
        }
        Cursor = ScanDigits(Cursor, End, Start, Error);
        if (Cursor == NULL) {
            return NULL;
        }
    }

    Number->Start = Start;
    Number->End = Cursor;
    return Cursor;
}

typedef struct _DECIMAL {
    ULONGLONG Digits;       // significant digits as an integer
    LONG Exponent;          // value = Digits * 10^Exponent
    BOOL Negative;
    BOOL Inexact;           // non-zero digits were dropped past 19
} DECIMAL, *PDECIMAL;

static
VOID
ReadDecimal(
    PJSON_NUMBER Number,
    PDECIMAL Decimal
    )
/*++

Routine Description:

    Splits a validated number into up to 19 significant digits and a
    decimal exponent.  Digits beyond 19 are dropped (and counted in the
    exponent when they are before the point).

--*/
{
    PCSZ Cursor = Number->Start;
    PCSZ End = Number->End;
    ULONG Kept = 0;
    LONG Exponent = 0;
    BOOL Fraction = FALSE;

    Decimal->Digits = 0;
    Decimal->Negative = FALSE;
    Decimal->Inexact = FALSE;

    if (*Cursor == '-') {
        Decimal->Negative = TRUE;
        Cursor++;
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor == '.') {
            Fraction = TRUE;
            continue;
        }
        if (!TextIsDigit(*Cursor)) {
            break;
        }
        if (Kept < 19) {
            if (Decimal->Digits != 0 || *Cursor != '0') {
                Kept++;
            }
            Decimal->Digits = Decimal->Digits * 10 + (ULONGLONG)(*Cursor - '0');
            if (Fraction) {
                Exponent--;
            }
        } else {
            if (*Cursor != '0') {
                Decimal->Inexact = TRUE;
            }
            if (!Fraction) {
                Exponent++;
            }
        }
    }

    if (Cursor < End) {
        LONG Sign = 1;
        LONG Value = 0;

        Cursor++;                               // 'e' or 'E'
        if (*Cursor == '-' || *Cursor == '+') {
            Sign = (*Cursor == '-') ? -1 : 1;
            Cursor++;
        }
        for (; Cursor < End; Cursor++) {
            if (Value < 100000) {
                Value = Value * 10 + (*Cursor - '0');
            }
        }
        Exponent += Sign * Value;
    }

    Decimal->Exponent = Exponent;
}

BOOL
JsonNumberToScaled(
    PJSON_NUMBER Number,
    ULONG Scale,
    PLONGLONG Value
    )
{
    DECIMAL Decimal;
    ULONGLONG Result;
    LONG Exponent;
    ULONG Dropped = 0;

    ReadDecimal(Number, &Decimal);
    Result = Decimal.Digits;
    Exponent = Decimal.Exponent + (LONG)Scale;

    if (Result == 0) {
        *Value = 0;
        return TRUE;
    }

    //
    // Digits below the unit: the last one dropped is the first below it,
    // which rounds (half away from zero).
    //

    while (Exponent < 0) {
        Dropped = (ULONG)(Result % 10);
        Result /= 10;
        Exponent++;
        if (Result == 0 && Exponent < 0) {
            *Value = 0;
            return TRUE;
        }
    }
    Result += Dropped >= 5;

    while (Exponent > 0) {
        if (Result > 0x7fffffffffffffffULL / 10) {
            return FALSE;
        }
        Result *= 10;
        Exponent--;
    }

    if (Result > 0x7fffffffffffffffULL) {
        return FALSE;
    }

    *Value = Decimal.Negative ? -(LONGLONG)Result : (LONGLONG)Result;
    return TRUE;
}

static
ULONG
LeadingDigits8(
    ULONGLONG Chunk
    )
/*++

Routine Description:

    How many of the 8 bytes of Chunk (in memory order) are decimal digits
    before the first that is not.  A byte below '0' borrows into its top
    bit when '0' is subtracted; a byte above '9' carries into it when 0x46
    is added; digit bytes before it do neither, so the first flagged byte
    is the first non-digit.

--*/
{
    ULONGLONG Flags = ((Chunk - 0x3030303030303030ULL) |
                       (Chunk + 0x4646464646464646ULL)) &
                      0x8080808080808080ULL;

    return Flags ? (ULONG)__builtin_ctzll(Flags) / 8 : 8;
}

static
ULONGLONG
DigitsValue8(
    ULONGLONG Chunk,
    ULONG Count
    )
/*++

Routine Description:

    The value of the first Count (1..8) digit bytes of Chunk: they are
    moved to the top of the word (zeros before them are leading zeros) and
    combined in pairs, fours and eights.

--*/
{
    ULONGLONG Value = (Chunk - 0x3030303030303030ULL) << (8 * (8 - Count));

    Value = (Value * 10) + (Value >> 8);
    Value = (((Value & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
             (((Value >> 16) & 0x000000FF000000FFULL) *
              (1 + (10000ULL << 32)))) >> 32;
    return Value;
}

PCSZ
JsonScanScaled(
    PCSZ Cursor,
    PCSZ End,
    ULONG Scale,
    PLONGLONG Value,
    PJSON_ERROR Error
    )
{
    static const ULONGLONG Powers10[] = {
        1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
        10000000ULL, 100000000ULL, 1000000000ULL,
    };
    PCSZ Start = Cursor;
    PCSZ Digits;
    PCSZ IntegerEnd;
    ULONGLONG Integer = 0;
    ULONGLONG Fraction = 0;
    ULONG Kept = 0;
    LONG Dropped = -1;          // the first digit below the unit, if any
    BOOL Negative = FALSE;
    JSON_NUMBER Number;

    if (Scale >= ARRAYSIZE(Powers10)) {
        goto Slow;
    }

    if (Cursor < End && *Cursor == '-') {
        Negative = TRUE;
        Cursor++;
    }

    Digits = Cursor;

    //
    // Eight bytes at a time while eight lie before End.
    //

    while (End - Cursor >= 8) {
        ULONGLONG Chunk;
        ULONG Count;

        __builtin_memcpy(&Chunk, Cursor, 8);
        Count = LeadingDigits8(Chunk);
        if (Count == 0) {
            break;
        }
        if (Cursor - Digits + Count > 18) {
            goto Slow;
        }
        Integer = Integer * Powers10[Count] + DigitsValue8(Chunk, Count);
        Cursor += Count;
        if (Count < 8) {
            break;
        }
    }
    while (Cursor < End && TextIsDigit(*Cursor)) {
        if (Cursor - Digits >= 18) {
            goto Slow;
        }
        Integer = Integer * 10 + (ULONGLONG)(*Cursor - '0');
        Cursor++;
    }

    //
    // No digits, a leading zero followed by digits, or more than 18 digits
    // (which might not fit): the careful path decides.
    //

    if (Cursor == Digits || Cursor - Digits > 18 ||
        (*Digits == '0' && Cursor - Digits > 1)) {
        goto Slow;
    }
    IntegerEnd = Cursor;

    if (Cursor < End && *Cursor == '.') {
        PCSZ FractionStart = ++Cursor;

        if (End - Cursor >= 8) {
            ULONGLONG Chunk;
            ULONG Count;

            __builtin_memcpy(&Chunk, Cursor, 8);
            Count = LeadingDigits8(Chunk);
            if (Count != 0 && Count < 8) {
                Fraction = DigitsValue8(Chunk, Count);
                Kept = Count;
                while (Kept > Scale) {
                    Dropped = (LONG)(Fraction % 10);
                    Fraction /= 10;
                    Kept--;
                }
                Cursor += Count;
            }
        }

        while (Cursor < End && TextIsDigit(*Cursor)) {
            if (Kept < Scale) {
                Fraction = Fraction * 10 + (ULONGLONG)(*Cursor - '0');
                Kept++;
            } else if (Dropped < 0) {
                Dropped = *Cursor - '0';
            }
            Cursor++;
        }
        if (Cursor == FractionStart) {
            goto Slow;
        }
    }

    if (Cursor < End && (*Cursor == 'e' || *Cursor == 'E')) {
        goto Slow;
    }

    //
    // At most 18 digits in all fit in 63 bits.
    //

    if ((ULONG)(IntegerEnd - Digits) + Scale > 18) {
        goto Slow;
    }

    Integer = Integer * Powers10[Scale] + Fraction * Powers10[Scale - Kept] +
              (Dropped >= 5);
    *Value = Negative ? -(LONGLONG)Integer : (LONGLONG)Integer;
    return Cursor;

Slow:
    Cursor = JsonScanNumber(Start, End, &Number, Error);
    if (Cursor == NULL) {
        return NULL;
    }
    if (!JsonNumberToScaled(&Number, Scale, Value)) {
        JsonFail(Error, Start, "number out of range");
        return NULL;
    }
    return Cursor;
}

static
PCSZ
ScanLiteral(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Literal,
    ULONG Length,
    PJSON_ERROR Error
    )
{
    ULONG Index;

    if ((SIZE_T)(End - Cursor) < Length) {
        JsonFail(Error, Cursor, JSON_END_OF_INPUT);
        return NULL;
    }
    for (Index = 0; Index < Length; Index++) {
        if (Cursor[Index] != Literal[Index]) {
            JsonFail(Error, Cursor, "unexpected character");
            return NULL;
        }
    }
    return Cursor + Length;
}

static
PCSZ
ScanScalar(
    PCSZ Cursor,
    PCSZ End,
    PJSON_ERROR Error
    )
{
    JSON_STRING String;
    JSON_NUMBER Number;

    if (Cursor >= End) {
        JsonFail(Error, Cursor, JSON_END_OF_INPUT);
        return NULL;
    }

    switch (*Cursor) {
    case '"':
        return JsonScanString(Cursor, End, &String, Error);
    case 't':
        return ScanLiteral(Cursor, End, "true", 4, Error);
    case 'f':
        return ScanLiteral(Cursor, End, "false", 5, Error);
    case 'n':
        return ScanLiteral(Cursor, End, "null", 4, Error);
    default:
        if (*Cursor == '-' || TextIsDigit(*Cursor)) {
            return JsonScanNumber(Cursor, End, &Number, Error);
        }
        JsonFail(Error, Cursor, "unexpected character");
        return NULL;
    }
}

static
PCSZ
ScanKey(
    PCSZ Cursor,
    PCSZ End,
    PJSON_ERROR Error
    )
/*++

Routine Description:

    Skips an object's key and the ':' after it; returns what follows, or
    NULL with Error set.

--*/
{
    JSON_STRING Key;

    Cursor = JsonScanString(Cursor, End, &Key, Error);
    if (Cursor == NULL) {
        return NULL;
    }
    Cursor = JsonSkipSpace(Cursor, End);
    if (Cursor >= End || *Cursor != ':') {
        JsonFail(Error, Cursor, "expected ':' after a key");
        return NULL;
    }

    return Cursor + 1;
}

PCSZ
JsonSkipValue(
    PCSZ Cursor,
    PCSZ End,
    PJSON_ERROR Error
    )
/*++

Routine Description:

    Skips one value.  Containers are walked without recursion: bit N of
    Kinds is 1 when the container at depth N is an object.  After a value
    inside a container, a comma or the container's closing bracket must
    follow; inside an object, each value is preceded by a key and a colon.

--*/
{
    ULONGLONG Kinds[JSON_MAX_DEPTH / 64];
    ULONG Depth = 0;
    BOOL ExpectValue = TRUE;    // else: a comma or a closing bracket

    for (;;) {
        Cursor = JsonSkipSpace(Cursor, End);
        if (Cursor >= End) {
            JsonFail(Error, Cursor, JSON_END_OF_INPUT);
            return NULL;
        }

        if (ExpectValue) {
            if (*Cursor == '{' || *Cursor == '[') {
                BOOL Object = (*Cursor == '{');

                if (Depth == JSON_MAX_DEPTH) {
                    JsonFail(Error, Cursor, "nested deeper than 512 levels");
                    return NULL;
                }
                if (Object) {
                    Kinds[Depth / 64] |= 1ULL << (Depth % 64);
                } else {
                    Kinds[Depth / 64] &= ~(1ULL << (Depth % 64));
                }
                Depth++;
                Cursor = JsonSkipSpace(Cursor + 1, End);
                if (Cursor < End && *Cursor == (Object ? '}' : ']')) {
                    Cursor++;
                    Depth--;
                    ExpectValue = FALSE;
                } else if (Object) {
                    Cursor = ScanKey(Cursor, End, Error);
                    if (Cursor == NULL) {
                        return NULL;
                    }
                    continue;
                } else {
                    continue;
                }
            } else {
                Cursor = ScanScalar(Cursor, End, Error);
                if (Cursor == NULL) {
                    return NULL;
                }
                ExpectValue = FALSE;
            }
        } else {
            BOOL Object;

            if (Depth == 0) {
                return Cursor;
            }
            Object = (Kinds[(Depth - 1) / 64] >> ((Depth - 1) % 64)) & 1;

            if (*Cursor == ',') {
                Cursor = JsonSkipSpace(Cursor + 1, End);
                if (Object) {
                    Cursor = ScanKey(Cursor, End, Error);
                    if (Cursor == NULL) {
                        return NULL;
                    }
                }
                ExpectValue = TRUE;
            } else if (*Cursor == (Object ? '}' : ']')) {
                Cursor++;
                Depth--;
            } else {
                JsonFail(Error, Cursor, Object ? "expected ',' or '}'" :
                                             "expected ',' or ']'");
                return NULL;
            }
        }

        if (!ExpectValue && Depth == 0) {
            return Cursor;
        }
    }
}
