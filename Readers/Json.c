/*++

Module Name:

    Json.c

Abstract:

    This module implements the streaming JSON tokenizer (see Json.h).
    Strings are scanned sixteen bytes at a time for the three bytes that
    end the fast path (quote, backslash, control character); containers
    are skipped with a bit stack of their kinds, so nesting costs no
    memory beyond JSON_MAX_DEPTH bits.

--*/

#include "Json.h"

typedef char V16 __attribute__((vector_size(16), aligned(1)));

static
BOOL
Fail(
    PJSON_ERROR Error,
    PCSZ At,
    PCSZ Reason
    )
{
    Error->At = At;
    Error->Reason = Reason;
    return FALSE;
}

static
LONG
HexDigit(
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

static
PCSZ
FindStringStop(
    PCSZ Cursor,
    PCSZ End
    )
/*++

Routine Description:

    Returns the first quote, backslash or control character (below 0x20)
    in [Cursor, End), or End.

--*/
{
#if defined(__x86_64__)
    const V16 Quote = {'"', '"', '"', '"', '"', '"', '"', '"',
                       '"', '"', '"', '"', '"', '"', '"', '"'};
    const V16 Backslash = {'\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\',
                           '\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\'};
    const V16 Flip = {-128, -128, -128, -128, -128, -128, -128, -128,
                      -128, -128, -128, -128, -128, -128, -128, -128};
    const V16 Limit = {-96, -96, -96, -96, -96, -96, -96, -96,
                       -96, -96, -96, -96, -96, -96, -96, -96};

    while (End - Cursor >= 16) {
        V16 Chunk;
        V16 Stop;
        int Mask;

        __builtin_memcpy(&Chunk, Cursor, 16);

        //
        // Unsigned "below 0x20" as a signed compare of the bytes with
        // their top bit flipped: 0x00..0x1f become -128..-97.
        //

        Stop = (V16)(Chunk == Quote) | (V16)(Chunk == Backslash) |
               (V16)((Chunk ^ Flip) < Limit);
        Mask = __builtin_ia32_pmovmskb128(Stop);
        if (Mask != 0) {
            return Cursor + __builtin_ctz((unsigned)Mask);
        }
        Cursor += 16;
    }
#endif

    while (Cursor < End && *Cursor != '"' && *Cursor != '\\' &&
           (BYTE)*Cursor >= 0x20) {
        Cursor++;
    }
    return Cursor;
}

PCSZ
JsonScanString(
    PCSZ Cursor,
    PCSZ End,
    PJSON_STRING String,
    PJSON_ERROR Error
    )
{
    PCSZ Open = Cursor;

    if (Cursor >= End || *Cursor != '"') {
        Fail(Error, Cursor, "expected a string");
        return NULL;
    }

    Cursor++;
    String->Start = Cursor;
    String->Escaped = FALSE;
    String->Padding = 0;

    for (;;) {
        Cursor = FindStringStop(Cursor, End);
        if (Cursor == End) {
            Fail(Error, Open, "unterminated string");
            return NULL;
        }

        if (*Cursor == '"') {
            String->End = Cursor;
            return Cursor + 1;
        }

        if (*Cursor != '\\') {
            Fail(Error, Cursor, "control character in a string");
            return NULL;
        }

        String->Escaped = TRUE;
        if (End - Cursor < 2) {
            Fail(Error, Open, "unterminated string");
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
            if (End - Cursor < 6 || HexDigit(Cursor[2]) < 0 ||
                HexDigit(Cursor[3]) < 0 || HexDigit(Cursor[4]) < 0 ||
                HexDigit(Cursor[5]) < 0) {
                Fail(Error, Cursor, "bad \\u escape in a string");
                return NULL;
            }
            Cursor += 6;
            break;

        default:
            Fail(Error, Cursor, "bad escape in a string");
            return NULL;
        }
    }
}

static
ULONG
ReadHex4(
    PCSZ Digits
    )
{
    return ((ULONG)HexDigit(Digits[0]) << 12) |
           ((ULONG)HexDigit(Digits[1]) << 8) |
           ((ULONG)HexDigit(Digits[2]) << 4) |
           (ULONG)HexDigit(Digits[3]);
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

        if (Code < 0x80) {
            Bytes[0] = (BYTE)Code;
            Count = 1;
        } else if (Code < 0x800) {
            Bytes[0] = (BYTE)(0xC0 | (Code >> 6));
            Bytes[1] = (BYTE)(0x80 | (Code & 0x3F));
            Count = 2;
        } else if (Code < 0x10000) {
            Bytes[0] = (BYTE)(0xE0 | (Code >> 12));
            Bytes[1] = (BYTE)(0x80 | ((Code >> 6) & 0x3F));
            Bytes[2] = (BYTE)(0x80 | (Code & 0x3F));
            Count = 3;
        } else {
            Bytes[0] = (BYTE)(0xF0 | (Code >> 18));
            Bytes[1] = (BYTE)(0x80 | ((Code >> 12) & 0x3F));
            Bytes[2] = (BYTE)(0x80 | ((Code >> 6) & 0x3F));
            Bytes[3] = (BYTE)(0x80 | (Code & 0x3F));
            Count = 4;
        }

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
BOOL
IsDigit(
    CHAR Char
    )
{
    return Char >= '0' && Char <= '9';
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

    if (Cursor >= End || !IsDigit(*Cursor)) {
        Fail(Error, Start, "expected a number");
        return NULL;
    }

    if (*Cursor == '0') {
        Cursor++;
    } else {
        while (Cursor < End && IsDigit(*Cursor)) {
            Cursor++;
        }
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor++;
        if (Cursor >= End || !IsDigit(*Cursor)) {
            Fail(Error, Start, "malformed number");
            return NULL;
        }
        while (Cursor < End && IsDigit(*Cursor)) {
            Cursor++;
        }
    }

    if (Cursor < End && (*Cursor == 'e' || *Cursor == 'E')) {
        Cursor++;
        if (Cursor < End && (*Cursor == '+' || *Cursor == '-')) {
            Cursor++;
        }
        if (Cursor >= End || !IsDigit(*Cursor)) {
            Fail(Error, Start, "malformed number");
            return NULL;
        }
        while (Cursor < End && IsDigit(*Cursor)) {
            Cursor++;
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
        if (!IsDigit(*Cursor)) {
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

    ReadDecimal(Number, &Decimal);
    Result = Decimal.Digits;
    Exponent = Decimal.Exponent + (LONG)Scale;

    if (Result == 0) {
        *Value = 0;
        return TRUE;
    }

    while (Exponent < 0) {
        Result /= 10;
        Exponent++;
        if (Result == 0) {
            *Value = 0;
            return TRUE;
        }
    }

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

BOOL
JsonNumberToDouble(
    PJSON_NUMBER Number,
    PDOUBLE Value
    )
{
    static const DOUBLE Powers[] = {
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    };
    DECIMAL Decimal;
    DOUBLE Result;
    LONG Exponent;

    ReadDecimal(Number, &Decimal);
    Result = (DOUBLE)Decimal.Digits;
    Exponent = Decimal.Exponent;

    if (Decimal.Digits == 0) {
        Exponent = 0;
    }

    while (Exponent > 22) {
        Result *= 1e22;
        Exponent -= 22;
        if (Result > 1.7976931348623157e308) {
            return FALSE;
        }
    }
    while (Exponent < -22) {
        Result /= 1e22;
        Exponent += 22;
    }

    if (Exponent >= 0) {
        Result *= Powers[Exponent];
    } else {
        Result /= Powers[-Exponent];
    }

    if (Result > 1.7976931348623157e308) {
        return FALSE;
    }

    *Value = Decimal.Negative ? -Result : Result;
    return TRUE;
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
        Fail(Error, Cursor, "unexpected end of input");
        return NULL;
    }
    for (Index = 0; Index < Length; Index++) {
        if (Cursor[Index] != Literal[Index]) {
            Fail(Error, Cursor, "unexpected character");
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
        Fail(Error, Cursor, "unexpected end of input");
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
        if (*Cursor == '-' || IsDigit(*Cursor)) {
            return JsonScanNumber(Cursor, End, &Number, Error);
        }
        Fail(Error, Cursor, "unexpected character");
        return NULL;
    }
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
            Fail(Error, Cursor, "unexpected end of input");
            return NULL;
        }

        if (ExpectValue) {
            if (*Cursor == '{' || *Cursor == '[') {
                BOOL Object = (*Cursor == '{');

                if (Depth == JSON_MAX_DEPTH) {
                    Fail(Error, Cursor, "nested deeper than 512 levels");
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
                    JSON_STRING Key;

                    Cursor = JsonScanString(Cursor, End, &Key, Error);
                    if (Cursor == NULL) {
                        return NULL;
                    }
                    Cursor = JsonSkipSpace(Cursor, End);
                    if (Cursor >= End || *Cursor != ':') {
                        Fail(Error, Cursor, "expected ':' after a key");
                        return NULL;
                    }
                    Cursor++;
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
                    JSON_STRING Key;

                    Cursor = JsonScanString(Cursor, End, &Key, Error);
                    if (Cursor == NULL) {
                        return NULL;
                    }
                    Cursor = JsonSkipSpace(Cursor, End);
                    if (Cursor >= End || *Cursor != ':') {
                        Fail(Error, Cursor, "expected ':' after a key");
                        return NULL;
                    }
                    Cursor++;
                }
                ExpectValue = TRUE;
            } else if (*Cursor == (Object ? '}' : ']')) {
                Cursor++;
                Depth--;
            } else {
                Fail(Error, Cursor, Object ? "expected ',' or '}'" :
                                             "expected ',' or ']'");
                return NULL;
            }
        }

        if (!ExpectValue && Depth == 0) {
            return Cursor;
        }
    }
}

JSON_STEP
JsonObjectNext(
    PCSZ *Cursor,
    PCSZ End,
    PBOOL First,
    PJSON_STRING Key,
    PJSON_ERROR Error
    )
{
    PCSZ Position = JsonSkipSpace(*Cursor, End);

    if (Position >= End) {
        Fail(Error, Position, "unexpected end of input");
        return JsonStepEndOfInput;
    }

    if (*Position == '}') {
        *Cursor = Position + 1;
        return JsonStepDone;
    }

    if (!*First) {
        if (*Position != ',') {
            Fail(Error, Position, "expected ',' or '}'");
            return JsonStepError;
        }
        Position = JsonSkipSpace(Position + 1, End);
    }
    *First = FALSE;

    Position = JsonScanString(Position, End, Key, Error);
    if (Position == NULL) {
        return JsonStepError;
    }

    Position = JsonSkipSpace(Position, End);
    if (Position >= End || *Position != ':') {
        Fail(Error, Position, "expected ':' after a key");
        return JsonStepError;
    }

    Position = JsonSkipSpace(Position + 1, End);
    if (Position >= End) {
        Fail(Error, Position, "unexpected end of input");
        return JsonStepError;
    }

    *Cursor = Position;
    return JsonStepItem;
}

JSON_STEP
JsonArrayNext(
    PCSZ *Cursor,
    PCSZ End,
    PBOOL First,
    PJSON_ERROR Error
    )
{
    PCSZ Position = JsonSkipSpace(*Cursor, End);

    if (Position >= End) {
        Fail(Error, Position, "unexpected end of input");
        return JsonStepEndOfInput;
    }

    if (*Position == ']') {
        *Cursor = Position + 1;
        return JsonStepDone;
    }

    if (!*First) {
        if (*Position != ',') {
            Fail(Error, Position, "expected ',' or ']'");
            return JsonStepError;
        }
        Position = JsonSkipSpace(Position + 1, End);
        if (Position >= End) {
            Fail(Error, Position, "unexpected end of input");
            return JsonStepEndOfInput;
        }
        if (*Position == ']') {
            Fail(Error, Position, "trailing ',' before ']'");
            return JsonStepError;
        }
    }
    *First = FALSE;

    *Cursor = Position;
    return JsonStepItem;
}
