/*++

Module Name:

    KvmtraceRules.c

Abstract:

    The kvmtrace `formats` file (seeds/004) made into rules, exactly as the
    seed's Python reads it:

        defs[str(int(ID, 0))] = FORMAT          for each `ID FORMAT` line

    - File: read as UTF-8 text with universal newlines (\n, \r\n and \r end
      a line); blank lines (Python's Unicode whitespace) and lines starting
      with '#' are skipped; any other line must match (\S+)\s+(\S.*) and
      its ID must be an int(ID, 0) literal (0x/0o/0b prefixes, underscores,
      a sign).  A line that does not is an error before any output, as the
      seed's traceback is.  The last rule of an id wins, as in a dict.
    - Each FORMAT, a Python %-format applied to the dict of a record, is
      compiled into ops following CPython's unicode_format_arg_parse: %% ;
      %(KEY) with balanced parentheses; flags - + space # 0; a width; a
      precision; one ignored h, l or L; the conversions d i u o x X e E f
      F g G c s r a.  A first specifier without a key formats the whole
      dict; any later one, and any '*', raises "not enough arguments".
      Python evaluates a format lazily, so a rule that no record uses never
      raises: where Python would raise (unknown key, unsupported
      character, incomplete format, type errors) the rule gets a FAIL op,
      raised when a record reaches it (KvmtraceFormat.c).

    Also the lookup of a record's rule: its event id's, else rule 0.

Environment:

    Core: no C runtime; the OS only through PRTL (the rules' memory).
    Called by the kvmtrace reader (Kvmtrace.c), the formatter
    (KvmtraceFormatter.c) and `tracestore kvmtrace-format`; calls nothing
    of the other kvmtrace files but KvmtraceFormat.c's key names.

--*/

#include "KvmtraceFormat.h"
#include "KvmtraceOps.h"

//
// ---------------------------------------------------------------------------
// UTF-8 and Python's notion of whitespace.
// ---------------------------------------------------------------------------
//

static
ULONG
Utf8Length(
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

static
ULONG
Utf8Decode(
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
    ULONG Length = Utf8Length(Bytes, (SIZE_T)(End - Text));

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

static
PCSZ
SkipSpace(
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
        Length = Utf8Decode(Text, End, &CodePoint);
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

    *Cursor += Utf8Decode(*Cursor, End, &CodePoint);
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

static
BOOL
ParseEventId(
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

//
// ---------------------------------------------------------------------------
// Compiling a rule's format into ops.
// ---------------------------------------------------------------------------
//

static
ULONGLONG
ConversionBound(
    PKVMTRACE_OP Op
    )
/*++

Routine Description:

    An upper bound on the bytes one conversion renders.  Values are at
    most 65 bits (reltsc is a difference of two 64-bit TSCs) and floats
    are below 2^65 in magnitude, so integer parts have at most 22 digits.

--*/
{
    ULONGLONG Precision = Op->Precision < 0 ? 6 : (ULONGLONG)Op->Precision;
    ULONGLONG Body;

    switch (Op->Type) {
    case 'c':
        Body = 4;
        break;
    case 's':
    case 'r':
    case 'a':
        Body = Op->Key == KEY_MAPPING ? DICT_REPR_BOUND : 32;
        break;
    case 'e':
    case 'E':
        Body = Precision + 12;
        break;
    case 'f':
    case 'F':
    case 'g':
    case 'G':
        Body = Precision + 32;
        break;
    default:
        Body = (Op->Precision > 22 ? (ULONGLONG)Op->Precision : 22) + 4;
        break;
    }

    return (Op->Width > 0 ? (ULONGLONG)Op->Width : 0) + Body;
}

//
// Where each key's value is in KVMTRACE_VALUES (the fast renderer reads
// it from there; CONVERT ops of Fast rules keep it in Offset).
//

static const ULONG KeyValueOffset[KEY_COUNT] = {
    FIELD_OFFSET(KVMTRACE_VALUES, Tsc),
    FIELD_OFFSET(KVMTRACE_VALUES, Event),
    FIELD_OFFSET(KVMTRACE_VALUES, RelTsc),
    FIELD_OFFSET(KVMTRACE_VALUES, Pid),
    FIELD_OFFSET(KVMTRACE_VALUES, Vcpu),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[0]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[1]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[2]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[3]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[4]),
};

#define FAST_MAX_WIDTH  16

static
VOID
ClassifyRule(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_RULE Rule
    )
/*++

Routine Description:

    Sets Rule->Keys, and Rule->Fast when every op is a literal or a %d,
    %x or %X of an integer with at most the '0' flag, a width of at most
    16 and no precision: the shapes KvmtraceRender draws without the full
    emulation (the digits, padded on the left).  A %(tsc) printed as a
    float (-c) and the dict itself are not integers; a negative reltsc is
    sent to the emulation when it occurs.

--*/
{
    PKVMTRACE_OP Op = &Rules->Ops[Rule->FirstOp];
    PKVMTRACE_OP End = Op + Rule->OpCount;
    BOOL Fast = TRUE;

    Rule->Keys = 0;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    Fast = FALSE;           // the hex digits are built in a little-endian word
#endif

    for (; Op < End; Op++) {
        if (Op->Kind == OP_LITERAL) {
            continue;
        }
        if (Op->Kind != OP_CONVERT) {
            Fast = FALSE;
            continue;
        }
        if (Op->Key == KEY_MAPPING) {
            Rule->Keys |= (1u << KEY_COUNT) - 1;
            Fast = FALSE;
            continue;
        }
        Rule->Keys |= 1u << Op->Key;
        if ((Op->Type != 'd' && Op->Type != 'x' && Op->Type != 'X') ||
            (Op->Flags & ~FLAG_ZERO) != 0 || Op->Precision >= 0 ||
            Op->Width > FAST_MAX_WIDTH ||
            (Op->Key == KEY_TSC && Rules->Mhz != 0)) {
            Fast = FALSE;
            continue;
        }
        Op->Offset = KeyValueOffset[Op->Key];
    }

    Rule->Fast = Fast;
}

typedef struct _COMPILER {
    PKVMTRACE_RULES Rules;
    PKVMTRACE_OP Ops;
    ULONG OpCount;
    ULONG OpCapacity;
} COMPILER, *PCOMPILER;

static
PKVMTRACE_OP
NewOp(
    PCOMPILER Compiler,
    UCHAR Kind
    )
{
    PKVMTRACE_OP Op = &Compiler->Ops[Compiler->OpCount++];

    Op->Kind = Kind;
    Op->Key = 0;
    Op->Type = 0;
    Op->Flags = 0;
    Op->Width = -1;
    Op->Precision = -1;
    Op->Offset = 0;
    Op->Length = 0;
    Op->Reason = 0;
    Op->CodePoint = 0;
    Op->Index = 0;
    return Op;
}

static
VOID
CompileFormat(
    PCOMPILER Compiler,
    PKVMTRACE_RULE Rule,
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    Translates a rule's format into ops, following CPython's
    unicode_format_arg_parse/_format step by step.  Compilation stops at
    the first point where Python would raise, with a FAIL op there.

--*/
{
    PCSZ Text = Compiler->Rules->Text;
    PCSZ Cursor = Start;
    PCSZ Spec;
    PKVMTRACE_OP Op;
    BOOL Positional = TRUE;     // the dict is still there to be consumed
    ULONGLONG Bound = 0;
    ULONG Key;
    ULONG CodePoint;
    UCHAR Flags;
    LONGLONG Width;
    LONGLONG Precision;
    CHAR Char;

    Rule->FirstOp = Compiler->OpCount;

#define FAIL_HERE(ReasonValue) do {                                         \
        Op = NewOp(Compiler, OP_FAIL);                                      \
        Op->Reason = (ReasonValue);                                         \
        goto Done;                                                          \
    } while (0)

    while (Cursor < End) {

        //
        // Literal text up to the next '%'.
        //

        if (*Cursor != '%') {
            Spec = Cursor;
            while (Cursor < End && *Cursor != '%') {
                Cursor++;
            }
            Op = NewOp(Compiler, OP_LITERAL);
            Op->Offset = (ULONG)(Spec - Text);
            Op->Length = (ULONG)(Cursor - Spec);
            Bound += Op->Length;
            continue;
        }

        Spec = Cursor++;
        if (Cursor >= End) {
            FAIL_HERE(FailIncomplete);
        }
        if (*Cursor == '%') {
            Op = NewOp(Compiler, OP_LITERAL);
            Op->Offset = (ULONG)(Cursor - Text);
            Op->Length = 1;
            Bound += 1;
            Cursor++;
            continue;
        }

        //
        // %(key): balanced parentheses; looked up at once, as Python does.
        //

        Key = KEY_MAPPING;
        if (*Cursor == '(') {
            PCSZ KeyStart = ++Cursor;
            ULONG Depth = 1;
            ULONG Index;

            while (Cursor < End) {
                if (*Cursor == ')') {
                    if (--Depth == 0) {
                        break;
                    }
                } else if (*Cursor == '(') {
                    Depth++;
                }
                Cursor++;
            }
            if (Cursor >= End) {
                FAIL_HERE(FailIncompleteKey);
            }

            for (Index = 0; Index < KEY_COUNT; Index++) {
                PCSZ Name = KvmtraceKeyNames[Index];
                SIZE_T Length = RtlStringLength(Name);

                if ((SIZE_T)(Cursor - KeyStart) == Length &&
                    Compiler->Rules->Rtl->CompareMemory(KeyStart, Name,
                                                        Length) == 0) {
                    break;
                }
            }
            if (Index == KEY_COUNT) {
                Op = NewOp(Compiler, OP_FAIL);
                Op->Reason = FailKey;
                Op->Offset = (ULONG)(KeyStart - Text);
                Op->Length = (ULONG)(Cursor - KeyStart);
                goto Done;
            }

            Key = Index;
            Positional = TRUE;      // args = the value, argidx = -2
            Cursor++;
        }

        //
        // Flags, width, precision, length modifier.  Running off the end
        // anywhere here is "incomplete format".
        //

        Flags = 0;
        Width = -1;
        Precision = -1;

        for (; Cursor < End; Cursor++) {
            Char = *Cursor;
            if (Char == '-') {
                Flags |= FLAG_LJUST;
            } else if (Char == '+') {
                Flags |= FLAG_SIGN;
            } else if (Char == ' ') {
                Flags |= FLAG_BLANK;
            } else if (Char == '#') {
                Flags |= FLAG_ALT;
            } else if (Char == '0') {
                Flags |= FLAG_ZERO;
            } else {
                break;
            }
        }

        if (Cursor < End && *Cursor == '*') {
            FAIL_HERE(Positional ? FailStar : FailNotEnoughArguments);
        }
        if (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
            Width = 0;
            while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
                if (Width <= MAX_FIELD) {
                    Width = Width * 10 + (*Cursor - '0');
                }
                Cursor++;
            }
        }
        if (Cursor < End && *Cursor == '.') {
            Cursor++;
            Precision = 0;
            if (Cursor < End && *Cursor == '*') {
                FAIL_HERE(Positional ? FailStar : FailNotEnoughArguments);
            }
            while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
                if (Precision <= MAX_FIELD) {
                    Precision = Precision * 10 + (*Cursor - '0');
                }
                Cursor++;
            }
        }
        if (Cursor < End &&
            (*Cursor == 'h' || *Cursor == 'l' || *Cursor == 'L')) {
            Cursor++;
        }
        if (Cursor >= End) {
            FAIL_HERE(FailIncomplete);
        }

        //
        // The conversion takes the next argument first (a keyed value, or
        // the dict once), then checks its type.
        //

        Char = *Cursor;
        if (!Positional) {
            FAIL_HERE(FailNotEnoughArguments);
        }
        Positional = FALSE;

        switch (Char) {
        case 'd':
        case 'i':
        case 'u':
            if (Key == KEY_MAPPING) {
                FAIL_HERE(FailRealRequired);
            }
            Char = 'd';
            break;
        case 'o':
        case 'x':
        case 'X':
            if (Key == KEY_MAPPING) {
                FAIL_HERE(FailIntegerRequired);
            }
            if (Key == KEY_TSC && Compiler->Rules->Mhz != 0) {
                FAIL_HERE(FailIntegerRequired);
            }
            break;
        case 'e':
        case 'E':
        case 'f':
        case 'F':
        case 'g':
        case 'G':
            if (Key == KEY_MAPPING) {
                FAIL_HERE(FailMustBeReal);
            }
            break;
        case 'c':
            if (Key == KEY_MAPPING ||
                (Key == KEY_TSC && Compiler->Rules->Mhz != 0)) {
                FAIL_HERE(FailCharRequired);
            }
            break;
        case 's':
        case 'r':
        case 'a':
            Char = 's';
            break;
        default:
            Op = NewOp(Compiler, OP_FAIL);
            Op->Reason = FailUnsupported;
            Utf8Decode(Cursor, End, &CodePoint);
            Op->CodePoint = CodePoint;
            Op->Index = 0;
            for (Spec = Start; Spec < Cursor; Spec++) {
                Op->Index += ((BYTE)*Spec & 0xc0) != 0x80;
            }
            goto Done;
        }

        if (Width > MAX_FIELD || Precision > MAX_FIELD) {
            FAIL_HERE(FailTooWide);
        }

        Op = NewOp(Compiler, OP_CONVERT);
        Op->Key = (UCHAR)Key;
        Op->Type = (UCHAR)Char;
        Op->Flags = Flags;
        Op->Width = (LONG)Width;
        Op->Precision = (LONG)Precision;
        Bound += ConversionBound(Op);
        Cursor++;

        if (Bound > MAX_RULE_LENGTH) {
            FAIL_HERE(FailTooLong);
        }
    }

Done:
#undef FAIL_HERE
    Rule->OpCount = Compiler->OpCount - Rule->FirstOp;
    if (Bound > MAX_RULE_LENGTH) {
        Bound = MAX_RULE_LENGTH;
    }
    Rule->MaxLength = (ULONG)Bound + 1 + KVMTRACE_RENDER_SLACK;
    ClassifyRule(Compiler->Rules, Rule);
}

//
// ---------------------------------------------------------------------------
// Parsing the rules file.
// ---------------------------------------------------------------------------
//

static
PCSZ
LineEnd(
    PCSZ Start,
    PCSZ End
    )
{
    while (Start < End && *Start != '\n' && *Start != '\r') {
        Start++;
    }
    return Start;
}

static
PCSZ
NextLine(
    PCSZ LineEndPosition,
    PCSZ End
    )
{
    if (LineEndPosition < End && *LineEndPosition == '\r') {
        LineEndPosition++;
        if (LineEndPosition < End && *LineEndPosition == '\n') {
            LineEndPosition++;
        }
    } else if (LineEndPosition < End) {
        LineEndPosition++;
    }
    return LineEndPosition;
}

static
VOID
SortLookup(
    PKVMTRACE_LOOKUP Lookup,
    ULONG Count
    )
/*++

Routine Description:

    Heap sort by (Event, Rule), so that the last rule of an id sorts last.

--*/
{
    ULONG Start;
    ULONG Last;
    ULONG Root;
    ULONG Child;
    KVMTRACE_LOOKUP Swap;

#define LESS(A, B) ((A).Event < (B).Event ||                                \
                    ((A).Event == (B).Event && (A).Rule < (B).Rule))

    if (Count < 2) {
        return;
    }

    for (Start = Count / 2; Start-- > 0;) {
        for (Root = Start; (Child = 2 * Root + 1) < Count; Root = Child) {
            if (Child + 1 < Count && LESS(Lookup[Child], Lookup[Child + 1])) {
                Child++;
            }
            if (!LESS(Lookup[Root], Lookup[Child])) {
                break;
            }
            Swap = Lookup[Root];
            Lookup[Root] = Lookup[Child];
            Lookup[Child] = Swap;
        }
    }

    for (Last = Count - 1; Last > 0; Last--) {
        Swap = Lookup[0];
        Lookup[0] = Lookup[Last];
        Lookup[Last] = Swap;
        for (Root = 0; (Child = 2 * Root + 1) < Last; Root = Child) {
            if (Child + 1 < Last && LESS(Lookup[Child], Lookup[Child + 1])) {
                Child++;
            }
            if (!LESS(Lookup[Root], Lookup[Child])) {
                break;
            }
            Swap = Lookup[Root];
            Lookup[Root] = Lookup[Child];
            Lookup[Child] = Swap;
        }
    }

#undef LESS
}

RTL_STATUS
KvmtraceRulesParse(
    PRTL Rtl,
    PCSZ Path,
    PCSZ Text,
    SIZE_T TextLength,
    LONGLONG Mhz,
    PKVMTRACE_RULES Rules,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Parses a formats file as the seed's read_defs: one rule per line, the
    last rule of an id winning.  The rules refer to Text, which must stay
    valid while they are used.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_BAD_FORMAT (Error names the file and line),
    RTL_STATUS_TOO_LARGE for a file of 1 GB or more, or an allocation
    failure.

--*/
{
    PCSZ End = Text + TextLength;
    PCSZ Line;
    PCSZ Stop;
    PCSZ Key;
    PCSZ KeyEnd;
    PCSZ Format;
    SIZE_T Offset;
    SIZE_T Size;
    ULONG LineNumber;
    ULONG Lines = 0;
    ULONG Percents = 0;
    ULONG RuleCount = 0;
    ULONG Index;
    ULONG Event;
    ULONG Length;
    BOOL Matchable;
    COMPILER Compiler;
    RTL_STATUS Status;
    PBYTE Memory;

    Rtl->FillMemory(Rules, sizeof(*Rules), 0);
    Rules->Rtl = Rtl;
    Rules->Path = Path;
    Rules->Text = Text;
    Rules->TextLength = TextLength;
    Rules->Mhz = Mhz;
    Rules->TscDivisor = (DOUBLE)Mhz * 1000000.0;
    Rules->FallbackRule = KVMTRACE_NO_RULE;
    for (Index = 0; Index < KVMTRACE_RECENT_EVENTS; Index++) {
        Rules->Recent[Index].Event = 0;
        Rules->Recent[Index].Rule = KVMTRACE_NO_RULE - 1;   // empty
    }

    if (TextLength >= (1u << 30)) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: a formats file of %llu bytes is too large",
                           Path, (ULONGLONG)TextLength);
    }

    //
    // Python reads the file as UTF-8 text: anything else raises before a
    // rule is used.
    //

    for (Offset = 0; Offset < TextLength; Offset += Length) {
        Length = Utf8Length((const BYTE *)Text + Offset, TextLength - Offset);
        if (Length == 0) {
            return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, 0, Offset,
                               "%s: byte offset %llu: not UTF-8 text "
                               "(the seed reads the rules as UTF-8)",
                               Path, (ULONGLONG)Offset);
        }
        if (Text[Offset] == '%') {
            Percents++;
        }
    }

    for (Line = Text; Line < End; Line = NextLine(LineEnd(Line, End), End)) {
        Lines++;
    }

    //
    // One block: rules, ops (at most two per '%' plus one per line), and
    // the lookup table.
    //

    Compiler.Rules = Rules;
    Compiler.OpCount = 0;
    Compiler.OpCapacity = 2 * Percents + Lines + 1;
    Size = (SIZE_T)(Lines + 1) * sizeof(KVMTRACE_RULE) +
           (SIZE_T)Compiler.OpCapacity * sizeof(KVMTRACE_OP) +
           (SIZE_T)(Lines + 1) * sizeof(KVMTRACE_LOOKUP) +
           TextLength + 32;
    Size = (SIZE_T)ALIGN_UP(Size, RTL_PAGE_SIZE);

    Status = Rtl->AllocatePages(Rtl, Size, (PPVOID)&Memory);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Path,
                           RtlStatusText(Status));
    }
    Rules->Memory = Memory;
    Rules->MemorySize = Size;
    Rules->Rules = (PKVMTRACE_RULE)Memory;
    Compiler.Ops = (PKVMTRACE_OP)(Memory + (SIZE_T)(Lines + 1) *
                                  sizeof(KVMTRACE_RULE));
    Rules->Ops = Compiler.Ops;
    Rules->Lookup = (PKVMTRACE_LOOKUP)((PBYTE)Compiler.Ops +
                                       (SIZE_T)Compiler.OpCapacity *
                                       sizeof(KVMTRACE_OP));
    Rules->Literals = (PCSZ)(Rules->Lookup + Lines + 1);
    Rtl->CopyMemory((PVOID)Rules->Literals, Text, TextLength);

    LineNumber = 0;
    for (Line = Text; Line < End; Line = NextLine(Stop, End)) {
        PKVMTRACE_RULE Rule;

        LineNumber++;
        Stop = LineEnd(Line, End);

        if (SkipSpace(Line, Stop, TRUE) == Stop || *Line == '#') {
            continue;
        }

        //
        // (\S+)\s+(\S.*): the id, whitespace, then at least one more
        // character that is not whitespace; the format runs to the end
        // of the line, trailing whitespace included.
        //

        Key = Line;
        KeyEnd = SkipSpace(Key, Stop, FALSE);
        Format = SkipSpace(KeyEnd, Stop, TRUE);
        if (KeyEnd == Key || Format == KeyEnd || Format == Stop) {
            KvmtraceRulesFree(Rules);
            return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, LineNumber,
                               (ULONGLONG)(Line - Text),
                               "%s:%u: not a rule (expected EVENT_ID "
                               "FORMAT)", Path, LineNumber);
        }

        if (!ParseEventId(Key, KeyEnd, &Event, &Matchable)) {
            KvmtraceRulesFree(Rules);
            return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, LineNumber,
                               (ULONGLONG)(Line - Text),
                               "%s:%u: event id '%.*s' is not an integer "
                               "(decimal, 0x, 0o or 0b)", Path, LineNumber,
                               (int)(KeyEnd - Key > 40 ? 40 : KeyEnd - Key),
                               Key);
        }

        Rule = &Rules->Rules[RuleCount];
        Rule->Event = Event;
        Rule->Line = LineNumber;
        Rule->FirstOp = Compiler.OpCount;
        Rule->OpCount = 0;
        Rule->MaxLength = 1 + KVMTRACE_RENDER_SLACK;
        Rule->Fast = FALSE;
        Rule->Keys = 0;
        Rule->Padding = 0;

        if (Matchable) {
            CompileFormat(&Compiler, Rule, Format, Stop);
            if (Rule->MaxLength > Rules->MaxLength) {
                Rules->MaxLength = Rule->MaxLength;
            }
            Rules->Lookup[Rules->LookupCount].Event = Event;
            Rules->Lookup[Rules->LookupCount].Rule = RuleCount;
            Rules->LookupCount++;
        }
        RuleCount++;
    }

    Rules->RuleCount = RuleCount;
    Rules->OpCount = Compiler.OpCount;

    //
    // Sort, then keep the last rule of each id.
    //

    SortLookup(Rules->Lookup, Rules->LookupCount);
    for (Index = 0, Length = 0; Index < Rules->LookupCount; Index++) {
        if (Index + 1 < Rules->LookupCount &&
            Rules->Lookup[Index + 1].Event == Rules->Lookup[Index].Event) {
            continue;
        }
        Rules->Lookup[Length++] = Rules->Lookup[Index];
    }
    Rules->LookupCount = Length;

    if (Length != 0 && Rules->Lookup[0].Event == 0) {
        Rules->FallbackRule = Rules->Lookup[0].Rule;
    }

    return RTL_STATUS_OK;
}

VOID
KvmtraceRulesFree(
    PKVMTRACE_RULES Rules
    )
{
    if (Rules->Memory != NULL) {
        Rules->Rtl->Unmap(Rules->Rtl, Rules->Memory, Rules->MemorySize);
        Rules->Memory = NULL;
    }
}

ULONG
KvmtraceRulesFind(
    PKVMTRACE_RULES Rules,
    ULONG Event
    )
/*++

Routine Description:

    A binary search of the sorted ids, behind a direct-mapped cache of
    recent ids (a trace has few).

--*/
{
    PKVMTRACE_LOOKUP Recent;
    ULONG Low = 0;
    ULONG High = Rules->LookupCount;
    ULONG Middle;
    ULONG Rule;

    Recent = &Rules->Recent[(Event ^ (Event >> 16)) %
                            KVMTRACE_RECENT_EVENTS];
    if (Recent->Event == Event && Recent->Rule != KVMTRACE_NO_RULE - 1) {
        return Recent->Rule;
    }

    while (Low < High) {
        Middle = (Low + High) / 2;
        if (Rules->Lookup[Middle].Event < Event) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }

    Rule = Rules->FallbackRule;
    if (Low < Rules->LookupCount && Rules->Lookup[Low].Event == Event) {
        Rule = Rules->Lookup[Low].Rule;
    }

    Recent->Event = Event;
    Recent->Rule = Rule;
    return Rule;
}
