/*++

Module Name:

    UftraceArgFormat.c

Abstract:

    Argument values as `uftrace replay` prints them (uftrace's
    utils/argspec.c and cmds/replay.c, written again): integers in
    decimal, or in hex beyond +-100000 (d, u); hex (x); pointers as
    &SYMBOL, 0x... or 0; strings quoted with \0 \b \n escaped (a string
    with a byte >= 0x80 prints raw), "NULL"; chars quoted; floats as
    printf's "%#f" (exactly, from the binary value); enums by name, OR-ed
    flags or number; structs as NAME{...}.

    Also the text buffer the values are written into, and the JSON
    escaping of that text for the span args.

Environment:

    Core: no C runtime, no OS service.  Called by the uftrace reader
    (UftraceRecords.c); calls back into it through UFTRACE_FORMAT (symbols,
    enum definitions), and UftraceArgSpec.c (UftraceNextSpecEntry,
    UftraceParseLong).

--*/

#include "UftraceArgsInternal.h"

//
// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------
//

VOID
UftraceTextPut(
    PUFTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Text->Length + 1 < Text->Capacity) {
        Text->Buffer[Text->Length++] = Char;
    }
}

VOID
UftraceTextAppend(
    PUFTRACE_TEXT Text,
    PCSZ String,
    SIZE_T Length
    )
{
    SIZE_T Room = (Text->Length + 1 < Text->Capacity) ?
                  Text->Capacity - 1 - Text->Length : 0;

    if (Length > Room) {
        Length = Room;
    }
    __builtin_memcpy(Text->Buffer + Text->Length, String, Length);
    Text->Length += (ULONG)Length;
}

static
VOID
TextPutString(
    PUFTRACE_TEXT Text,
    PCSZ String
    )
{
    while (*String != '\0') {
        UftraceTextPut(Text, *String++);
    }
}

static
VOID
TextPutUnsigned(
    PUFTRACE_TEXT Text,
    ULONGLONG Value,
    ULONG Base,
    ULONG MinimumDigits
    )
{
    CHAR Digits[24];
    ULONG Count = 0;

    do {
        ULONG Digit = (ULONG)(Value % Base);

        Digits[Count++] = (CHAR)(Digit < 10 ? '0' + Digit : 'a' + Digit - 10);
        Value /= Base;
    } while (Value != 0);

    while (Count < MinimumDigits && Count < sizeof(Digits)) {
        Digits[Count++] = '0';
    }
    while (Count != 0) {
        UftraceTextPut(Text, Digits[--Count]);
    }
}

static
VOID
TextPutSigned(
    PUFTRACE_TEXT Text,
    LONGLONG Value
    )
{
    if (Value < 0) {
        UftraceTextPut(Text, '-');
        TextPutUnsigned(Text, (ULONGLONG)0 - (ULONGLONG)Value, 10, 1);
    } else {
        TextPutUnsigned(Text, (ULONGLONG)Value, 10, 1);
    }
}

//
// printf's "%#x": hex with 0x, except for zero.
//

static
VOID
TextPutHex(
    PUFTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    if (Value != 0) {
        UftraceTextPut(Text, '0');
        UftraceTextPut(Text, 'x');
    }
    TextPutUnsigned(Text, Value, 16, 1);
}

VOID
UftraceJsonEscape(
    PUFTRACE_TEXT Text,
    PCSZ String,
    SIZE_T Length
    )
{
    static const CHAR Hex[] = "0123456789abcdef";
    SIZE_T Index;
    SIZE_T Plain = 0;

    for (Index = 0; Index < Length; Index++) {
        UCHAR Char = (UCHAR)String[Index];

        //
        // Runs of characters that need no escape go in one copy.
        //

        if (Char >= 0x20 && Char != '"' && Char != '\\' && Char != 0x7f) {
            continue;
        }
        UftraceTextAppend(Text, String + Plain, Index - Plain);
        Plain = Index + 1;

        switch (Char) {
        case '"':
            TextPutString(Text, "\\\"");
            break;
        case '\\':
            TextPutString(Text, "\\\\");
            break;
        case '\n':
            TextPutString(Text, "\\n");
            break;
        case '\t':
            TextPutString(Text, "\\t");
            break;
        case '\r':
            TextPutString(Text, "\\r");
            break;
        case '\b':
            TextPutString(Text, "\\b");
            break;
        case '\f':
            TextPutString(Text, "\\f");
            break;
        default:
            TextPutString(Text, "\\u00");
            UftraceTextPut(Text, Hex[Char >> 4]);
            UftraceTextPut(Text, Hex[Char & 15]);
            break;
        }
    }
    UftraceTextAppend(Text, String + Plain, Length - Plain);
}

//
// ---------------------------------------------------------------------------
// Floating point, as printf's "%#f" prints it: the exact binary value
// rounded to 6 decimals, ties to even.
// ---------------------------------------------------------------------------
//

#define BIG_LIMBS 520               // 32-bit limbs: 2^16384 and a margin

static
VOID
PutBigInteger(
    PUFTRACE_TEXT Text,
    ULONGLONG Mantissa,
    ULONG Shift
    )
/*++

Routine Description:

    Prints Mantissa << Shift in decimal (Shift up to about 16400).

--*/
{
    ULONG Limbs[BIG_LIMBS];
    ULONG Chunks[BIG_LIMBS * 10 / 9 + 4];
    ULONG Count;
    ULONG ChunkCount = 0;
    ULONG Index;
    ULONG WordShift = Shift / 32;
    ULONG BitShift = Shift % 32;

    if (WordShift + 4 > BIG_LIMBS) {
        TextPutString(Text, "inf");     // beyond any binary float
        return;
    }

    for (Index = 0; Index < BIG_LIMBS; Index++) {
        Limbs[Index] = 0;
    }
    {
        ULONGLONG Low = Mantissa << BitShift;
        ULONGLONG High = BitShift ? Mantissa >> (64 - BitShift) : 0;

        Limbs[WordShift] = (ULONG)Low;
        Limbs[WordShift + 1] = (ULONG)(Low >> 32);
        Limbs[WordShift + 2] = (ULONG)High;
    }
    Count = WordShift + 3;
    while (Count > 1 && Limbs[Count - 1] == 0) {
        Count--;
    }

    //
    // Divide by 10^9 until zero; the remainders are the decimal chunks,
    // least significant first.
    //

    do {
        ULONGLONG Remainder = 0;

        for (Index = Count; Index-- != 0; ) {
            ULONGLONG Value = (Remainder << 32) | Limbs[Index];

            Limbs[Index] = (ULONG)(Value / 1000000000u);
            Remainder = Value % 1000000000u;
        }
        Chunks[ChunkCount++] = (ULONG)Remainder;
        while (Count > 1 && Limbs[Count - 1] == 0) {
            Count--;
        }
    } while (Count > 1 || Limbs[0] != 0);

    TextPutUnsigned(Text, Chunks[--ChunkCount], 10, 1);
    while (ChunkCount != 0) {
        TextPutUnsigned(Text, Chunks[--ChunkCount], 10, 9);
    }
}

static
VOID
PutFixed(
    PUFTRACE_TEXT Text,
    BOOL Negative,
    ULONGLONG Mantissa,
    LONG Exponent
    )
/*++

Routine Description:

    Prints Mantissa * 2^Exponent with 6 decimals.

--*/
{
    ULONGLONG Integer;
    ULONGLONG Fraction;
    ULONG Shift;
    ULONGLONG Decimals = 0;

    if (Negative) {
        UftraceTextPut(Text, '-');
    }

    if (Mantissa != 0 && Exponent >= 0) {
        PutBigInteger(Text, Mantissa, (ULONG)Exponent);
        TextPutString(Text, ".000000");
        return;
    }

    Shift = (ULONG)(-Exponent);
    if (Mantissa == 0) {
        Integer = 0;
        Fraction = 0;
    } else if (Shift < 64) {
        Integer = Mantissa >> Shift;
        Fraction = Mantissa & ((1ULL << Shift) - 1);
    } else {
        Integer = 0;
        Fraction = Mantissa;
    }

    //
    // Decimals = round(Fraction * 10^6 / 2^Shift).  Fraction < 2^64, so
    // the product fits in 128 bits (two 64-bit halves here); beyond a
    // shift of 85 it is below half a unit of the last decimal.
    //

    if (Fraction != 0 && Shift <= 85) {
        ULONGLONG Low = (Fraction & 0xffffffffULL) * 1000000u;
        ULONGLONG Middle = (Fraction >> 32) * 1000000u;
        ULONGLONG ScaledLow = Low + (Middle << 32);
        ULONGLONG ScaledHigh = (Middle >> 32) + (ScaledLow < Low ? 1 : 0);
        ULONGLONG RestLow;
        ULONGLONG RestHigh;
        ULONGLONG HalfLow;
        ULONGLONG HalfHigh;
        LONG Compare;

        //
        // Decimals = Scaled >> Shift (it is below 10^6 + 1), Rest the
        // bits shifted out, Half = 2^(Shift - 1).
        //

        if (Shift >= 64) {
            Decimals = ScaledHigh >> (Shift - 64);
            RestHigh = (Shift == 64) ? 0 :
                       ScaledHigh & ((1ULL << (Shift - 64)) - 1);
            RestLow = ScaledLow;
            HalfHigh = (Shift == 64) ? 0 : 1ULL << (Shift - 65);
            HalfLow = (Shift == 64) ? (1ULL << 63) : 0;
        } else {
            Decimals = (ScaledLow >> Shift) | (ScaledHigh << (64 - Shift));
            RestHigh = 0;
            RestLow = ScaledLow & ((1ULL << Shift) - 1);
            HalfHigh = 0;
            HalfLow = 1ULL << (Shift - 1);
        }

        Compare = (RestHigh != HalfHigh) ? (RestHigh > HalfHigh ? 1 : -1) :
                  (RestLow != HalfLow) ? (RestLow > HalfLow ? 1 : -1) : 0;
        if (Compare > 0 || (Compare == 0 && (Decimals & 1))) {
            Decimals++;
        }
        if (Decimals == 1000000) {
            Decimals = 0;
            Integer++;
        }
    }

    TextPutUnsigned(Text, Integer, 10, 1);
    UftraceTextPut(Text, '.');
    TextPutUnsigned(Text, Decimals, 10, 6);
}

static
VOID
PutFloat(
    PUFTRACE_TEXT Text,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Mantissa;
    LONG Exponent;
    BOOL Negative;
    BOOL Special = FALSE;
    BOOL NotANumber = FALSE;

    if (Size == 4) {
        ULONG Bits;

        __builtin_memcpy(&Bits, Data, 4);
        Negative = (Bits >> 31) != 0;
        Exponent = (LONG)((Bits >> 23) & 0xff);
        Mantissa = Bits & 0x7fffff;
        if (Exponent == 0xff) {
            Special = TRUE;
            NotANumber = (Mantissa != 0);
        } else if (Exponent == 0) {
            Exponent = -149;
        } else {
            Mantissa |= 1u << 23;
            Exponent -= 150;
        }
    } else if (Size == 8) {
        ULONGLONG Bits;

        __builtin_memcpy(&Bits, Data, 8);
        Negative = (Bits >> 63) != 0;
        Exponent = (LONG)((Bits >> 52) & 0x7ff);
        Mantissa = Bits & ((1ULL << 52) - 1);
        if (Exponent == 0x7ff) {
            Special = TRUE;
            NotANumber = (Mantissa != 0);
        } else if (Exponent == 0) {
            Exponent = -1074;
        } else {
            Mantissa |= 1ULL << 52;
            Exponent -= 1075;
        }
    } else if (Size == 10) {
        USHORT SignExponent;

        __builtin_memcpy(&Mantissa, Data, 8);
        __builtin_memcpy(&SignExponent, Data + 8, 2);
        Negative = (SignExponent >> 15) != 0;
        Exponent = SignExponent & 0x7fff;
        if (Exponent == 0x7fff) {
            Special = TRUE;
            NotANumber = (Mantissa & ((1ULL << 63) - 1)) != 0;
        } else if (Exponent == 0) {
            Exponent = 1 - 16383 - 63;
        } else {
            Exponent -= 16383 + 63;
        }
    } else {
        return;                 // uftrace prints nothing for other sizes
    }

    if (Special) {
        if (Negative) {
            UftraceTextPut(Text, '-');
        }
        TextPutString(Text, NotANumber ? "nan" : "inf");
        return;
    }

    PutFixed(Text, Negative, Mantissa, Exponent);
}

//
// ---------------------------------------------------------------------------
// Enums (uftrace's parse_enum_string and convert_enum_val)
// ---------------------------------------------------------------------------
//

#define ENUM_MAX_VALUES 512

typedef struct _ENUM_VALUE {
    PCSZ Name;
    ULONG NameLength;
    ULONG Padding;
    LONGLONG Value;
} ENUM_VALUE;

#define TOKEN_NONE      0
#define TOKEN_STRING    1
#define TOKEN_SIGN      2
#define TOKEN_NUMBER    3
#define TOKEN_INVALID   4

static
ULONG
EnumToken(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ *Token,
    PCSZ *TokenEnd
    )
{
    PCSZ At = *Cursor;
    ULONG Kind;

    while (At < End && TextIsSpace(*At)) {
        At++;
    }
    if (At >= End) {
        *Cursor = End;
        return TOKEN_NONE;
    }

    *Token = At;
    if (IsPunct(*At) && *At != '_') {
        *TokenEnd = At + 1;
        *Cursor = At + 1;
        return TOKEN_SIGN;
    }
    if (IsAlpha(*At) || *At == '_') {
        Kind = TOKEN_STRING;
    } else if (TextIsDigit(*At)) {
        Kind = TOKEN_NUMBER;
    } else {
        return TOKEN_INVALID;
    }

    while (At < End && *At != ' ' && *At != '\n' && *At != '\t' &&
           *At != '=' && *At != ',' && *At != '{' && *At != '}') {
        At++;
    }
    *TokenEnd = At;
    *Cursor = At;
    return Kind;
}

static
BOOL
EnumHeader(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ *Name,
    PCSZ *NameEnd
    )
/*++

Routine Description:

    "enum NAME {" at *Cursor; leaves *Cursor after the brace.

--*/
{
    PCSZ Token;
    PCSZ TokenEnd;

    if (EnumToken(Cursor, End, &Token, &TokenEnd) != TOKEN_STRING ||
        !TextEquals(Token, (SIZE_T)(TokenEnd - Token), "enum") ||
        EnumToken(Cursor, End, Name, NameEnd) != TOKEN_STRING ||
        EnumToken(Cursor, End, &Token, &TokenEnd) != TOKEN_SIGN ||
        *Token != '{') {
        return FALSE;
    }
    return TRUE;
}

static
ULONG
EnumParseValues(
    PCSZ Cursor,
    PCSZ End,
    ENUM_VALUE *Values
    )
/*++

Routine Description:

    The values after "enum NAME {", kept sorted by value, largest first
    (a value goes before the first one it is not below, as uftrace's list
    insertion does).  Returns the count; 0 for a malformed definition.

--*/
{
    PCSZ Token;
    PCSZ TokenEnd;
    ULONG Kind;
    ULONG Count = 0;
    LONGLONG Value = 0;

    Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
    while (Kind != TOKEN_NONE && !(Kind == TOKEN_SIGN && *Token == '}')) {
        PCSZ Name = Token;
        PCSZ NameEnd = TokenEnd;
        ULONG Position;
        ULONG Move;

        Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
        if (Kind != TOKEN_SIGN) {
            return 0;
        }
        if (*Token == '=') {
            Cursor = UftraceParseLong(Cursor, End, 0, &Value);
            Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
            if (Kind != TOKEN_SIGN) {
                return 0;
            }
        }

        if (Count < ENUM_MAX_VALUES) {
            for (Position = 0; Position < Count; Position++) {
                if (Values[Position].Value <= Value) {
                    break;
                }
            }
            for (Move = Count; Move > Position; Move--) {
                Values[Move] = Values[Move - 1];
            }
            Values[Position].Name = Name;
            Values[Position].NameLength = (ULONG)(NameEnd - Name);
            Values[Position].Padding = 0;
            Values[Position].Value = Value;
            Count++;
        }
        Value++;

        if (*Token == ',') {
            Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
        }
    }

    return (Kind == TOKEN_SIGN && *Token == '}') ? Count : 0;
}

static
VOID
PutEnum(
    PUFTRACE_FORMAT Format,
    PCUFTRACE_ARG Arg,
    LONGLONG Value,
    PUFTRACE_TEXT Text
    )
{
    ENUM_VALUE Values[ENUM_MAX_VALUES];
    PCSZ Definition;
    PCSZ DefinitionEnd;
    ULONG Count = 0;
    ULONG Index;
    BOOL Any = FALSE;

    if (Format->FindEnum == NULL) {
        TextPutString(Text, "<ENUM?> ");
        TextPutUnsigned(Text, (ULONG)Value, 16, 1);
        return;
    }

    if (Format->FindEnum(Format->Context, Arg->TypeName, Arg->TypeNameLength,
                         &Definition, &DefinitionEnd)) {
        Count = EnumParseValues(Definition, DefinitionEnd, Values);
    }
    if (Count == 0) {
        TextPutSigned(Text, Value);
        return;
    }

    for (Index = 0; Index < Count; Index++) {
        if (Values[Index].Value == Value) {
            UftraceTextAppend(Text, Values[Index].Name,
                              Values[Index].NameLength);
            return;
        }
    }

    //
    // OR-ed flags: take each value not above what is left, largest first.
    //

    for (Index = 0; Index < Count; Index++) {
        if (Values[Index].Value <= Value) {
            Value -= Values[Index].Value;
            if (Any) {
                UftraceTextPut(Text, '|');
            }
            UftraceTextAppend(Text, Values[Index].Name,
                              Values[Index].NameLength);
            Any = TRUE;
        }
        if (Value == 0) {
            break;
        }
    }

    if (Any && Value != 0) {
        UftraceTextPut(Text, '+');
        TextPutHex(Text, (ULONGLONG)Value);
    } else if (!Any) {
        if (Value > 100000 || Value < -100000) {
            TextPutHex(Text, (ULONGLONG)Value);
        } else {
            TextPutSigned(Text, Value);
        }
    }
}

BOOL
UftraceFindEnumInList(
    PCSZ Start,
    PCSZ End,
    PCSZ Name,
    ULONG NameLength,
    PCSZ *Definition,
    PCSZ *DefinitionEnd
    )
/*++

Routine Description:

    Finds "enum NAME {...}" in a ';'-separated list of definitions (the
    info file's enumauto, or one "E:" line of a .dbg file).  The first
    definition of a name is the one uftrace keeps.

--*/
{
    PCSZ Cursor = Start;
    PCSZ EntryStart;
    PCSZ EntryEnd;

    while (UftraceNextSpecEntry(&Cursor, End, &EntryStart, &EntryEnd)) {
        PCSZ At = EntryStart;
        PCSZ EnumName;
        PCSZ EnumNameEnd;

        if (EnumHeader(&At, EntryEnd, &EnumName, &EnumNameEnd) &&
            (ULONG)(EnumNameEnd - EnumName) == NameLength &&
            __builtin_memcmp(EnumName, Name, NameLength) == 0) {
            *Definition = At;
            *DefinitionEnd = EntryEnd;
            return TRUE;
        }
    }
    return FALSE;
}

//
// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------
//

static
VOID
PutEscapedChar(
    PUFTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Char == '\0') {
        TextPutString(Text, "\\0");
    } else if (Char == '\b') {
        TextPutString(Text, "\\b");
    } else if (Char == '\n') {
        TextPutString(Text, "\\n");
    } else {
        UftraceTextPut(Text, Char);
    }
}

static
VOID
PutInteger(
    PCUFTRACE_ARG Arg,
    ULONGLONG Value,
    PUFTRACE_TEXT Text
    )
/*++

Routine Description:

    An integer as uftrace prints it: "%#<len><fmt>" with the length
    modifier of its size (hh, h, none, ll), where d/u beyond +-100000
    become x, and a d of 0xffff0001..0xffffffff prints as a negative int.

--*/
{
    CHAR Conversion;
    ULONG Width;            // bytes printf reads
    LONGLONG Signed = (LONGLONG)Value;

    switch (Arg->Format) {
    case UFTRACE_FMT_SIGNED:
        Conversion = 'i';
        break;
    case UFTRACE_FMT_UNSIGNED:
        Conversion = (Value > 100000) ? 'x' : 'u';
        break;
    case UFTRACE_FMT_HEX:
        Conversion = 'x';
        break;
    default:
        Conversion = 'd';
        if (Signed > 100000 || Signed < -100000) {
            Conversion = 'x';
            if (Value > 0xffff0000ULL && Value <= 0xffffffffULL) {
                Conversion = 'd';
                Width = 4;
                goto Print;
            }
        }
        break;
    }

    switch (Arg->Size) {
    case 1:
        Width = 1;
        break;
    case 2:
        Width = 2;
        break;
    case 8:
        Width = 8;
        break;
    default:
        Width = 4;
        break;
    }

Print:
    if (Width < 8) {
        Value &= (1ULL << (Width * 8)) - 1;
    }

    if (Conversion == 'x') {
        TextPutHex(Text, Value);
    } else if (Conversion == 'u') {
        TextPutUnsigned(Text, Value, 10, 1);
    } else {
        if (Width < 8 && (Value >> (Width * 8 - 1)) != 0) {
            Value |= ~((1ULL << (Width * 8)) - 1);      // sign-extend
        }
        TextPutSigned(Text, (LONGLONG)Value);
    }
}

static
VOID
PutString(
    PCUFTRACE_ARG Arg,
    const BYTE *Bytes,
    ULONG Length,
    PUFTRACE_TEXT Text
    )
{
    ULONG End = 0;
    ULONG Index;
    BOOL Wide = FALSE;

    //
    // uftrace 0.13 writes a NULL pointer as the 4 bytes "NULL", which then
    // prints quoted; its check for -1 is for older data.
    //

    if (Length == 4 && Bytes[0] == 0xff && Bytes[1] == 0xff &&
        Bytes[2] == 0xff && Bytes[3] == 0xff) {
        TextPutString(Text, "NULL");
        return;
    }

    //
    // The string is printed up to its first NUL, raw if it has a byte >=
    // 0x80 (UTF-8) that is not its last, else with \0 \b \n escaped
    // (uftrace looks at the byte after the first such byte).
    //

    while (End < Length && Bytes[End] != 0) {
        End++;
    }
    for (Index = 0; Index < End; Index++) {
        if (Bytes[Index] & 0x80) {
            Wide = (Index + 1 < End);
            break;
        }
    }

    UftraceTextPut(Text, '"');
    for (Index = 0; Index < End; Index++) {
        if (Wide) {
            UftraceTextPut(Text, (CHAR)Bytes[Index]);
        } else {
            PutEscapedChar(Text, (CHAR)Bytes[Index]);
        }
    }
    UftraceTextPut(Text, '"');

    if (Arg->Format == UFTRACE_FMT_STD_STRING) {
        UftraceTextPut(Text, 's');
    }
}

VOID
UftraceFormatArgs(
    PUFTRACE_FORMAT Format,
    PCUFTRACE_ARG Args,
    ULONG Count,
    BOOL Retval,
    const BYTE *Data,
    SIZE_T Length,
    PUFTRACE_TEXT Text
    )
{
    SIZE_T Offset = 0;
    ULONG Printed = 0;
    ULONG Index;

    if (!Retval) {
        UftraceTextPut(Text, '(');
    }

    for (Index = 0; Index < Count; Index++) {
        PCUFTRACE_ARG Arg = &Args[Index];
        SIZE_T Size = Arg->Size;
        const BYTE *Value = Data + Offset;
        ULONGLONG Raw = 0;

        if (Retval != (Arg->Index == 0)) {
            continue;
        }

        //
        // UftraceArgDataSize checked that the values fit; a string's
        // length is checked again against what is left.
        //

        if (Printed > 0) {
            TextPutString(Text, ", ");
        }

        if (Size != 0 && Size <= 8 && Offset + Size <= Length) {
            __builtin_memcpy(&Raw, Value, Size);
        }

        switch (Arg->Format) {
        case UFTRACE_FMT_STRING:
        case UFTRACE_FMT_STD_STRING: {
            ULONG StringLength = 0;

            if (Offset + 2 <= Length) {
                StringLength = (ULONG)Value[0] | ((ULONG)Value[1] << 8);
            }
            if (Offset + 2 + StringLength > Length) {
                StringLength = (ULONG)(Length - Offset) >= 2 ?
                               (ULONG)(Length - Offset) - 2 : 0;
            }
            PutString(Arg, Value + 2, StringLength, Text);
            Size = StringLength + 2;
            break;
        }

        case UFTRACE_FMT_CHAR:
            UftraceTextPut(Text, '\'');
            PutEscapedChar(Text, (CHAR)Raw);
            UftraceTextPut(Text, '\'');
            Size = 1;
            break;

        case UFTRACE_FMT_FLOAT:
            if (Offset + Size <= Length) {
                PutFloat(Text, Value, Arg->Size);
            }
            break;

        case UFTRACE_FMT_POINTER: {
            PCSZ Name;
            PCSZ NameEnd;

            if (Format->SymbolAt != NULL &&
                Format->SymbolAt(Format->Context, Raw, &Name, &NameEnd)) {
                UftraceTextPut(Text, '&');
                UftraceTextAppend(Text, Name, (SIZE_T)(NameEnd - Name));
            } else if (Raw != 0) {
                TextPutHex(Text, Raw);
            } else {
                UftraceTextPut(Text, '0');
            }
            break;
        }

        case UFTRACE_FMT_ENUM:
            PutEnum(Format, Arg, (LONGLONG)Raw, Text);
            break;

        case UFTRACE_FMT_STRUCT:
            if (Arg->TypeName != NULL &&
                !TextEquals(Arg->TypeName, Arg->TypeNameLength,
                            "<lambda")) {
                UftraceTextAppend(Text, Arg->TypeName, Arg->TypeNameLength);
            }
            TextPutString(Text, Arg->Size != 0 ? "{...}" : "{}");
            break;

        default:
            PutInteger(Arg, Raw, Text);
            break;
        }

        Printed++;
        Offset += (SIZE_T)ALIGN_UP(Size, 4);
        if (Offset > Length) {
            Offset = Length;
        }

        //
        // Only the first return value spec is printed.
        //

        if (Retval) {
            break;
        }
    }

    if (!Retval) {
        UftraceTextPut(Text, ')');
    }
}
