/*++

Module Name:

    KvmtraceFormat.c

Abstract:

    This module implements the kvmtrace `formats` rules (seeds/004): the
    rule file parser, the rendering of one record by its rule, and a
    streaming formatter that prints what the seed's kvmtrace_format prints.

    The seed is Python, and a rule is a Python %-format applied to a dict:

        defs[str(int(ID, 0))] = FORMAT          for each `ID FORMAT` line
        print(defs[str(event)] % args)          or defs['0'] for other ids

    so "byte for byte" means emulating Python 3's str % dict.  What is
    emulated (KvmtraceFormat tests check each against the reference):

    - File: read as UTF-8 text with universal newlines (\n, \r\n and \r end
      a line); blank lines (Python's Unicode whitespace) and lines starting
      with '#' are skipped; any other line must match (\S+)\s+(\S.*) and
      its ID must be an int(ID, 0) literal (0x/0o/0b prefixes, underscores,
      a sign).  A line that does not is an error before any output, as the
      seed's traceback is.
    - Specifiers: %% ; %(KEY) with balanced parentheses; flags - + space
      # 0; a width; a precision; one ignored h, l or L; the conversions
      d i u o x X e E f F g G c s r a, with Python's sign, zero-fill,
      alternate-form and precision rules (precision pads integers with
      zeros and truncates %s).  With -c, %(tsc) is a float: %d truncates
      it, %s/%r print its shortest repr, %e/%f/%g round it correctly (half
      to even, from its exact binary value), and %x/%o/%c raise.
    - The mapping as the positional argument: a first specifier without a
      key formats the whole dict (%s prints its repr); any later one, and
      any '*', raises "not enough arguments".
    - Errors: where Python raises (unknown key, unsupported character,
      incomplete format, type errors, %c out of range or an unencodable
      surrogate) the rule's line is not printed and the formatter stops
      with an error: the seed dies with a traceback at that record, after
      printing every earlier line.  Python evaluates a format lazily, so a
      rule that no record uses never raises: errors are compiled into the
      rule as a FAIL op, raised when a record reaches it.

    Limits (documented in NOTES.md): widths and precisions above 2^20, and
    rules whose rendering could exceed 16 MB, raise instead of printing;
    %c of U+DC80..U+DCFF
    prints the escaped byte, as Python's stdout does in the C.UTF-8 locale
    (surrogateescape), and other surrogates raise.

--*/

#include "KvmtraceFormat.h"

#define MAX_FIELD            (1u << 20)     // width, precision
#define MAX_RULE_LENGTH      (16u << 20)    // bytes one rule may render
#define MIN_OUTPUT_BUFFER    (1u << 20)
#define DICT_REPR_BOUND      256            // repr of the args dict
#define FLOAT_DIGITS         800            // exact digits of any double

//
// Keys of the args dict, in the seed's insertion order (its repr).
//

#define KEY_TSC         0
#define KEY_EVENT       1
#define KEY_RELTSC      2
#define KEY_PID         3
#define KEY_VCPU        4
#define KEY_DATA1       5
#define KEY_COUNT       10
#define KEY_MAPPING     10      // a positional conversion: the dict itself

static const PCSZ KeyNames[KEY_COUNT] = {
    "tsc", "event", "reltsc", "pid", "vcpu", "1", "2", "3", "4", "5"
};

//
// Ops.
//

#define OP_LITERAL      0
#define OP_CONVERT      1
#define OP_FAIL         2

#define FLAG_LJUST      0x01
#define FLAG_SIGN       0x02
#define FLAG_BLANK      0x04
#define FLAG_ALT        0x08
#define FLAG_ZERO       0x10

typedef enum _FAIL_REASON {
    FailIncompleteKey = 1,      // ValueError: incomplete format key
    FailKey,                    // KeyError
    FailIncomplete,             // ValueError: incomplete format
    FailNotEnoughArguments,     // TypeError
    FailStar,                   // TypeError: * wants int
    FailUnsupported,            // ValueError: unsupported format character
    FailIntegerRequired,        // TypeError: %x format: an integer is required
    FailRealRequired,           // TypeError: %d format: a real number is ...
    FailMustBeReal,             // TypeError: must be real number, not dict
    FailCharRequired,           // TypeError: %c requires int or char
    FailTooWide,                // our limit on width and precision
    FailTooLong,                // our limit on a rendered rule
} FAIL_REASON;

struct _KVMTRACE_OP {
    UCHAR Kind;
    UCHAR Key;                  // CONVERT: KEY_*
    UCHAR Type;                 // CONVERT: the conversion character
    UCHAR Flags;                // CONVERT: FLAG_*
    LONG Width;                 // -1 when absent
    LONG Precision;             // -1 when absent
    ULONG Offset;               // LITERAL: bytes in the text; FAIL: key
    ULONG Length;
    ULONG Reason;               // FAIL: FAIL_REASON
    ULONG CodePoint;            // FAIL: the offending character
    ULONG Index;                // FAIL: its index (characters) in the rule
};

PCSZ
KvmtraceDecodeText(
    KVMTRACE_DECODE Decode
    )
{
    switch (Decode) {
    case KvmtraceDecodeCutHeader:
        return "header";
    case KvmtraceDecodeCutTsc:
        return "TSC";
    case KvmtraceDecodeCutData:
        return "data words";
    default:
        return "record";
    }
}

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
                PCSZ Name = KeyNames[Index];
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

VOID
KvmtraceSetValues(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_TSC_STATE State,
    PKVMTRACE_RECORD Record,
    PKVMTRACE_VALUES Values
    )
{
    ULONG Index;

    Values->Tsc = Record->Tsc;
    Values->RelTsc = 0;
    Values->RelTscNegative = FALSE;

    if (Record->TscPresent) {
        if (State->LastTsc > 0) {
            if (Record->Tsc >= State->LastTsc) {
                Values->RelTsc = Record->Tsc - State->LastTsc;
            } else {
                Values->RelTsc = State->LastTsc - Record->Tsc;
                Values->RelTscNegative = TRUE;
            }
        }
        State->LastTsc = Record->Tsc;
    }

    if (Rules != NULL && Rules->Mhz != 0) {
        Values->TscSeconds = (DOUBLE)Record->Tsc / Rules->TscDivisor;
    }

    Values->Event = Record->Event;
    Values->Pid = Record->Pid;
    Values->Vcpu = Record->Vcpu;
    for (Index = 0; Index < KVMTRACE_RULE_DATA; Index++) {
        Values->Data[Index] = Record->Data[Index];
    }
}

//
// ---------------------------------------------------------------------------
// Exact decimal digits of a double, and Python's float formatting.
// ---------------------------------------------------------------------------
//

#define BIG_LIMBS 90            // 2880 bits: m * 5^1078 fits

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
ULONG
FormatFloat(
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
    CHAR Buffer[8];
    ULONG Length;

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
        *Out++ = (Type >= 'A' && Type <= 'Z') ? 'E' : 'e';
        *Out++ = Exponent < 0 ? '-' : '+';
        if (Exponent < 0) {
            Exponent = -Exponent;
        }
        Length = 0;
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
    }

    return (ULONG)(Out - Output);
}

//
// ---------------------------------------------------------------------------
// Rendering.
// ---------------------------------------------------------------------------
//

static const CHAR DigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";

static
ULONG
UnsignedDigits(
    ULONGLONG Value,
    ULONG Base,
    BOOL Upper,
    PCHAR Output
    )
/*++

Routine Description:

    Writes Value in base 8, 10 or 16 (no prefix); returns the digit count.
    The bases are spelled out so that no digit costs a division
    instruction (decimal goes two digits per multiply-shift).

--*/
{
    static const CHAR LowerDigits[] = "0123456789abcdef";
    static const CHAR UpperDigits[] = "0123456789ABCDEF";
    PCSZ Table = Upper ? UpperDigits : LowerDigits;
    CHAR Reversed[24];
    PCHAR Cursor;
    ULONG Count;
    ULONG Index;
    ULONG Bits;

    if (Base == 10) {
        Cursor = Reversed + sizeof(Reversed);
        while (Value >= 100) {
            ULONG Pair = (ULONG)(Value % 100);

            Value /= 100;
            Cursor -= 2;
            Cursor[0] = DigitPairs[2 * Pair];
            Cursor[1] = DigitPairs[2 * Pair + 1];
        }
        if (Value >= 10) {
            Cursor -= 2;
            Cursor[0] = DigitPairs[2 * Value];
            Cursor[1] = DigitPairs[2 * Value + 1];
        } else {
            *--Cursor = (CHAR)('0' + Value);
        }
        Count = (ULONG)(Reversed + sizeof(Reversed) - Cursor);
        for (Index = 0; Index < Count; Index++) {
            Output[Index] = Cursor[Index];
        }
        return Count;
    }

    Bits = Value == 0 ? 1 : 64 - (ULONG)__builtin_clzll(Value);
    if (Base == 16) {
        Count = (Bits + 3) / 4;
        for (Index = Count; Index-- > 0; Value >>= 4) {
            Output[Index] = Table[Value & 15];
        }
    } else {
        Count = (Bits + 2) / 3;
        for (Index = Count; Index-- > 0; Value >>= 3) {
            Output[Index] = (CHAR)('0' + (Value & 7));
        }
    }

    return Count;
}

static
PCHAR
PutBytes(
    PCHAR Out,
    PCSZ Bytes,
    ULONG Length
    )
{
    while (Length >= 8) {
        __builtin_memcpy(Out, Bytes, 8);
        Out += 8;
        Bytes += 8;
        Length -= 8;
    }
    while (Length-- > 0) {
        *Out++ = *Bytes++;
    }
    return Out;
}

static
PCHAR
PutFill(
    PCHAR Out,
    CHAR Fill,
    LONGLONG Count
    )
{
    while (Count-- > 0) {
        *Out++ = Fill;
    }
    return Out;
}

static
VOID
MoveRight(
    PCHAR Start,
    ULONG Length,
    ULONG Distance
    )
{
    while (Length-- > 0) {
        Start[Length + Distance] = Start[Length];
    }
}

typedef struct _VALUE {
    ULONGLONG Magnitude;
    DOUBLE Float;
    BOOL Negative;
    BOOL IsFloat;
} VALUE, *PVALUE;

static
VOID
GetValue(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_VALUES Values,
    ULONG Key,
    PVALUE Value
    )
{
    Value->Negative = FALSE;
    Value->IsFloat = FALSE;
    Value->Float = 0;

    switch (Key) {
    case KEY_TSC:
        Value->Magnitude = Values->Tsc;
        if (Rules->Mhz != 0) {
            Value->IsFloat = TRUE;
            Value->Float = Values->TscSeconds;
        }
        break;
    case KEY_EVENT:
        Value->Magnitude = Values->Event;
        break;
    case KEY_RELTSC:
        Value->Magnitude = Values->RelTsc;
        Value->Negative = Values->RelTscNegative;
        break;
    case KEY_PID:
        Value->Magnitude = Values->Pid;
        break;
    case KEY_VCPU:
        Value->Magnitude = Values->Vcpu;
        break;
    default:
        Value->Magnitude = Values->Data[Key - KEY_DATA1];
        break;
    }
}

static
ULONG
ValueText(
    PVALUE Value,
    PCHAR Output
    )
/*++

Routine Description:

    str() of a value: decimal for an int, repr for a float.

--*/
{
    ULONG Length = 0;

    if (Value->IsFloat) {
        return FormatFloat(Value->Float, 'r', 0, FALSE, TRUE, Output);
    }

    if (Value->Negative && Value->Magnitude != 0) {
        Output[Length++] = '-';
    }

    return Length + UnsignedDigits(Value->Magnitude, 10, FALSE,
                                   Output + Length);
}

static
ULONG
MappingText(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_VALUES Values,
    PCHAR Output
    )
/*++

Routine Description:

    repr() of the seed's args dict, keys in its insertion order.

--*/
{
    PCHAR Out = Output;
    ULONG Key;
    VALUE Value;

    *Out++ = '{';
    for (Key = 0; Key < KEY_COUNT; Key++) {
        if (Key != 0) {
            *Out++ = ',';
            *Out++ = ' ';
        }
        *Out++ = '\'';
        Out = PutBytes(Out, KeyNames[Key],
                       (ULONG)RtlStringLength(KeyNames[Key]));
        *Out++ = '\'';
        *Out++ = ':';
        *Out++ = ' ';
        GetValue(Rules, Values, Key, &Value);
        Out += ValueText(&Value, Out);
    }
    *Out++ = '}';

    return (ULONG)(Out - Output);
}

static
PCHAR
PutPadded(
    PCHAR Out,
    PCSZ Text,
    ULONG Length,
    ULONG Characters,
    PKVMTRACE_OP Op
    )
/*++

Routine Description:

    Text (Characters wide) padded with spaces to the op's width, on the
    left unless '-' was given: %s, %r, %a and %c.

--*/
{
    LONGLONG Pad = (LONGLONG)Op->Width - Characters;

    if (!(Op->Flags & FLAG_LJUST)) {
        Out = PutFill(Out, ' ', Pad);
    }
    Out = PutBytes(Out, Text, Length);
    if (Op->Flags & FLAG_LJUST) {
        Out = PutFill(Out, ' ', Pad);
    }

    return Out;
}

static
CHAR
SignOf(
    BOOL Negative,
    UCHAR Flags
    )
{
    if (Negative) {
        return '-';
    }
    if (Flags & FLAG_SIGN) {
        return '+';
    }
    if (Flags & FLAG_BLANK) {
        return ' ';
    }
    return 0;
}

static
PCHAR
ConvertInteger(
    PKVMTRACE_OP Op,
    PVALUE Value,
    PCHAR Out
    )
/*++

Routine Description:

    %d %i %u %o %x %X: Python's _PyUnicode_FormatLong (sign, "0x"/"0X"/
    "0o" with '#', precision as a minimum digit count) and then the
    padding of unicode_format_arg_output: zeros go between the sign and
    prefix and the digits with '0', spaces go before everything, or after
    everything with '-'.

--*/
{
    CHAR Digits[24];
    ULONG Count;
    ULONG Base = 10;
    ULONG PrefixLength = 0;
    LONGLONG Zeros;
    LONGLONG Pad;
    ULONGLONG Magnitude = Value->Magnitude;
    BOOL Negative = Value->Negative && Magnitude != 0;
    CHAR Sign;

    //
    // The common shapes (%d, %8d, %08x, %x) of a non-negative integer:
    // the digits, padded on the left.
    //

    if (!Negative && !Value->IsFloat && Op->Precision < 0 &&
        (Op->Flags & ~FLAG_ZERO) == 0 && Op->Type != 'o') {
        Count = UnsignedDigits(Magnitude, Op->Type == 'd' ? 10 : 16,
                               Op->Type == 'X', Digits);
        Pad = (LONGLONG)Op->Width - Count;
        Out = PutFill(Out, (Op->Flags & FLAG_ZERO) ? '0' : ' ', Pad);
        return PutBytes(Out, Digits, Count);
    }

    if (Value->IsFloat) {
        LONGLONG Truncated = (LONGLONG)Value->Float;

        Negative = Truncated < 0;
        Magnitude = Negative ? (ULONGLONG)0 - (ULONGLONG)Truncated :
                               (ULONGLONG)Truncated;
    }

    if (Op->Type == 'o') {
        Base = 8;
    } else if (Op->Type == 'x' || Op->Type == 'X') {
        Base = 16;
    }
    if (Base != 10 && (Op->Flags & FLAG_ALT)) {
        PrefixLength = 2;
    }

    Count = UnsignedDigits(Magnitude, Base, Op->Type == 'X', Digits);
    Zeros = (LONGLONG)Op->Precision - Count;
    if (Zeros < 0) {
        Zeros = 0;
    }

    Sign = SignOf(Negative, Op->Flags);
    Pad = (LONGLONG)Op->Width - ((Sign != 0) + PrefixLength + Zeros + Count);

    if (!(Op->Flags & (FLAG_LJUST | FLAG_ZERO))) {
        Out = PutFill(Out, ' ', Pad);
    }
    if (Sign != 0) {
        *Out++ = Sign;
    }
    if (PrefixLength != 0) {
        *Out++ = '0';
        *Out++ = (CHAR)Op->Type;
    }
    if ((Op->Flags & (FLAG_LJUST | FLAG_ZERO)) == FLAG_ZERO) {
        Out = PutZeros(Out, Pad);
    }
    Out = PutZeros(Out, Zeros);
    Out = PutBytes(Out, Digits, Count);
    if (Op->Flags & FLAG_LJUST) {
        Out = PutFill(Out, ' ', Pad);
    }

    return Out;
}

static
PCHAR
ConvertFloat(
    PKVMTRACE_OP Op,
    PVALUE Value,
    PCHAR Out
    )
/*++

Routine Description:

    %e %E %f %F %g %G: the digits are written first, then moved right to
    make room for the sign and padding.

--*/
{
    DOUBLE Number = Value->Float;
    ULONG Length;
    ULONG Body;
    ULONG Start;
    LONGLONG Pad;
    BOOL Minus;
    CHAR Sign;

    if (!Value->IsFloat) {
        Number = (DOUBLE)Value->Magnitude;
        if (Value->Negative) {
            Number = -Number;
        }
    }

    Length = FormatFloat(Number, (CHAR)Op->Type,
                         Op->Precision < 0 ? 6 : Op->Precision,
                         (Op->Flags & FLAG_ALT) != 0, FALSE, Out);

    Minus = Out[0] == '-';
    Sign = SignOf(Minus, Op->Flags);
    Body = Length - Minus;
    Pad = (LONGLONG)Op->Width - ((Sign != 0) + Body);
    if (Pad < 0) {
        Pad = 0;
    }

    //
    // Final layout: [spaces][sign][body], [sign][zeros][body] or
    // [sign][body][spaces].
    //

    Start = (Sign != 0);
    if (!(Op->Flags & FLAG_LJUST)) {
        Start += (ULONG)Pad;
    }
    MoveRight(Out + Minus, Body, Start - Minus);

    if (Op->Flags & FLAG_LJUST) {
        if (Sign != 0) {
            Out[0] = Sign;
        }
        return PutFill(Out + Start + Body, ' ', Pad);
    }

    if (Op->Flags & FLAG_ZERO) {
        if (Sign != 0) {
            *Out++ = Sign;
        }
        PutZeros(Out, Pad);
        return Out + Pad + Body;
    }

    Out = PutFill(Out, ' ', Pad);
    if (Sign != 0) {
        *Out++ = Sign;
    }
    return Out + Body;
}

static
RTL_STATUS
RenderError(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_RULE Rule,
    PKVMTRACE_OP Op,
    ULONG Reason,
    ULONG CodePoint,
    PRTL_ERROR Error
    )
{
    CHAR What[160];
    ULONG Index;

    switch (Reason) {
    case FailIncompleteKey:
        RtlFormat(What, sizeof(What), "ValueError: incomplete format key");
        break;
    case FailKey:
        RtlFormat(What, sizeof(What), "KeyError: '%.*s'",
                  (int)(Op->Length > 40 ? 40 : Op->Length),
                  Rules->Text + Op->Offset);
        for (Index = 0; What[Index] != '\0'; Index++) {
            if ((BYTE)What[Index] < 0x20 || (BYTE)What[Index] >= 0x7f) {
                What[Index] = '?';
            }
        }
        break;
    case FailIncomplete:
        RtlFormat(What, sizeof(What), "ValueError: incomplete format");
        break;
    case FailNotEnoughArguments:
        RtlFormat(What, sizeof(What),
                  "TypeError: not enough arguments for format string");
        break;
    case FailStar:
        RtlFormat(What, sizeof(What), "TypeError: * wants int");
        break;
    case FailUnsupported:
        RtlFormat(What, sizeof(What), "ValueError: unsupported format "
                  "character '%c' (0x%x) at index %u",
                  (Op->CodePoint >= 31 && Op->CodePoint <= 126) ?
                  (int)Op->CodePoint : '?', Op->CodePoint, Op->Index);
        break;
    case FailIntegerRequired:
        RtlFormat(What, sizeof(What), "TypeError: an integer is required "
                  "for %%o, %%x and %%X, not %s",
                  Rules->Mhz != 0 ? "float (%(tsc) with -c)" : "dict");
        break;
    case FailRealRequired:
        RtlFormat(What, sizeof(What), "TypeError: %%d format: a real "
                  "number is required, not dict");
        break;
    case FailMustBeReal:
        RtlFormat(What, sizeof(What),
                  "TypeError: must be real number, not dict");
        break;
    case FailCharRequired:
        RtlFormat(What, sizeof(What), "TypeError: %%c requires int or char");
        break;
    case FailTooWide:
        RtlFormat(What, sizeof(What), "a width or precision above %u "
                  "(a limit of tracestore, not of the seed)", MAX_FIELD);
        break;
    case FailTooLong:
        RtlFormat(What, sizeof(What), "the rule could print more than %u "
                  "bytes (a limit of tracestore, not of the seed)",
                  MAX_RULE_LENGTH);
        break;
    case 100:
        RtlFormat(What, sizeof(What),
                  "OverflowError: %%c arg not in range(0x110000)");
        break;
    default:
        RtlFormat(What, sizeof(What), "UnicodeEncodeError: %%c of U+%x, a "
                  "surrogate, cannot be written as UTF-8", CodePoint);
        break;
    }

    return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, Rule->Line, ~0ULL,
                       "%s:%u: the rule for event 0x%08x fails: %s",
                       Rules->Path, Rule->Line, Rule->Event, What);
}

//
// ---------------------------------------------------------------------------
// The fast path: literals and plain %d/%x/%X of non-negative integers.
// Each piece is stored as whole words, so up to KVMTRACE_RENDER_SLACK
// bytes past it are overwritten (the next piece overwrites them again).
// ---------------------------------------------------------------------------
//

static inline
PCHAR
FastLiteral(
    PCHAR Out,
    PCSZ Bytes,
    ULONG Length
    )
{
    ULONG Index;

    for (Index = 0; Index < Length; Index += 16) {
        __builtin_memcpy(Out + Index, Bytes + Index, 16);
    }

    return Out + Length;
}

static inline
ULONGLONG
HexWord(
    ULONG Value,
    ULONGLONG Letters
    )
/*++

Routine Description:

    The eight hex digits of Value, most significant first in memory (on a
    little-endian machine): each nibble spread to a byte, '0' added, and
    Letters ('a' - '0' - 10, or 'A' - '0' - 10) more for nibbles above 9.

--*/
{
    ULONGLONG Nibbles = Value;
    ULONGLONG Above9;

    Nibbles = (Nibbles | (Nibbles << 16)) & 0x0000ffff0000ffffULL;
    Nibbles = (Nibbles | (Nibbles << 8)) & 0x00ff00ff00ff00ffULL;
    Nibbles = (Nibbles | (Nibbles << 4)) & 0x0f0f0f0f0f0f0f0fULL;
    Above9 = ((Nibbles + 0x0606060606060606ULL) >> 4) & 0x0101010101010101ULL;
    Nibbles += 0x3030303030303030ULL + Above9 * Letters;

    return __builtin_bswap64(Nibbles);
}

static inline
PCHAR
FastHex(
    PCHAR Out,
    ULONGLONG Value,
    ULONG Width,
    CHAR Fill,
    ULONGLONG Letters
    )
{
    ULONG Digits = Value == 0 ? 1 : (67 - (ULONG)__builtin_clzll(Value)) / 4;
    ULONG Total = Digits > Width ? Digits : Width;     // at most 16
    ULONGLONG Word;
    ULONG Index;

    if (Total <= 8) {
        Word = HexWord((ULONG)Value, Letters) >> (8 * (8 - Total));
        __builtin_memcpy(Out, &Word, 8);
    } else {
        Word = HexWord((ULONG)(Value >> 32), Letters) >> (8 * (16 - Total));
        __builtin_memcpy(Out, &Word, 8);
        Word = HexWord((ULONG)Value, Letters);
        __builtin_memcpy(Out + Total - 8, &Word, 8);
    }

    if (Fill != '0') {
        for (Index = 0; Index < Total - Digits; Index++) {
            Out[Index] = Fill;
        }
    }

    return Out + Total;
}

static inline
PCHAR
FastDecimal(
    PCHAR Out,
    ULONGLONG Value,
    ULONG Width,
    CHAR Fill
    )
{
    CHAR Buffer[48];
    PCHAR Cursor = Buffer + 24;
    ULONG Count;
    ULONG Pad;
    ULONG Index;

    __builtin_memset(Buffer + 24, 0, 8);    // copied (past the digits)

    while (Value >= 100) {
        ULONG Pair = (ULONG)(Value % 100);

        Value /= 100;
        Cursor -= 2;
        __builtin_memcpy(Cursor, &DigitPairs[2 * Pair], 2);
    }
    if (Value >= 10) {
        Cursor -= 2;
        __builtin_memcpy(Cursor, &DigitPairs[2 * Value], 2);
    } else {
        *--Cursor = (CHAR)('0' + Value);
    }
    Count = (ULONG)(Buffer + 24 - Cursor);

    Pad = 0;
    if (Width > Count) {
        Pad = Width - Count;                // below 16
        for (Index = 0; Index < Pad; Index++) {
            Out[Index] = Fill;
        }
    }
    for (Index = 0; Index < Count; Index += 8) {
        __builtin_memcpy(Out + Pad + Index, Cursor + Index, 8);
    }

    return Out + Pad + Count;
}

static
ULONG
RenderFast(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_RULE Rule,
    PKVMTRACE_VALUES Values,
    PCHAR Output
    )
{
    PKVMTRACE_OP Op = &Rules->Ops[Rule->FirstOp];
    PKVMTRACE_OP End = Op + Rule->OpCount;
    PCHAR Out = Output;
    ULONGLONG Value;
    ULONG Width;
    CHAR Fill;

    for (; Op < End; Op++) {
        if (Op->Kind == OP_LITERAL) {
            Out = FastLiteral(Out, Rules->Literals + Op->Offset, Op->Length);
            continue;
        }

        __builtin_memcpy(&Value, (const BYTE *)Values + Op->Offset,
                         sizeof(Value));
        Width = Op->Width < 0 ? 0 : (ULONG)Op->Width;
        Fill = (Op->Flags & FLAG_ZERO) ? '0' : ' ';
        if (Op->Type == 'd') {
            Out = FastDecimal(Out, Value, Width, Fill);
        } else {
            Out = FastHex(Out, Value, Width, Fill,
                          Op->Type == 'X' ? 'A' - '0' - 10 : 'a' - '0' - 10);
        }
    }

    return (ULONG)(Out - Output);
}

RTL_STATUS
KvmtraceRender(
    PKVMTRACE_RULES Rules,
    ULONG RuleIndex,
    PKVMTRACE_VALUES Values,
    PCHAR Output,
    PULONG Length,
    PRTL_ERROR Error
    )
{
    PKVMTRACE_RULE Rule = &Rules->Rules[RuleIndex];

    if (Rule->Fast &&
        !(Values->RelTscNegative && (Rule->Keys & KVMTRACE_KEY_BIT_RELTSC))) {
        *Length = RenderFast(Rules, Rule, Values, Output);
        return RTL_STATUS_OK;
    }

    return KvmtraceRenderGeneric(Rules, RuleIndex, Values, Output, Length,
                                 Error);
}

RTL_STATUS
KvmtraceRenderGeneric(
    PKVMTRACE_RULES Rules,
    ULONG RuleIndex,
    PKVMTRACE_VALUES Values,
    PCHAR Output,
    PULONG Length,
    PRTL_ERROR Error
    )
{
    PKVMTRACE_RULE Rule = &Rules->Rules[RuleIndex];
    PKVMTRACE_OP Op = &Rules->Ops[Rule->FirstOp];
    PKVMTRACE_OP End = Op + Rule->OpCount;
    PCHAR Out = Output;
    CHAR Text[DICT_REPR_BOUND + 64];
    ULONG TextLength;
    VALUE Value;

    for (; Op < End; Op++) {

        if (Op->Kind == OP_LITERAL) {
            Out = PutBytes(Out, Rules->Text + Op->Offset, Op->Length);
            continue;
        }

        if (Op->Kind == OP_FAIL) {
            return RenderError(Rules, Rule, Op, Op->Reason, 0, Error);
        }

        if (Op->Key == KEY_MAPPING) {
            TextLength = MappingText(Rules, Values, Text);
            if (Op->Precision >= 0 && TextLength > (ULONG)Op->Precision) {
                TextLength = (ULONG)Op->Precision;
            }
            Out = PutPadded(Out, Text, TextLength, TextLength, Op);
            continue;
        }

        GetValue(Rules, Values, Op->Key, &Value);

        switch (Op->Type) {
        case 'd':
        case 'o':
        case 'x':
        case 'X':
            Out = ConvertInteger(Op, &Value, Out);
            break;

        case 's':
            TextLength = ValueText(&Value, Text);
            if (Op->Precision >= 0 && TextLength > (ULONG)Op->Precision) {
                TextLength = (ULONG)Op->Precision;
            }
            Out = PutPadded(Out, Text, TextLength, TextLength, Op);
            break;

        case 'c': {
            ULONGLONG CodePoint = Value.Magnitude;

            if ((Value.Negative && CodePoint != 0) || CodePoint > 0x10ffff) {
                return RenderError(Rules, Rule, Op, 100, 0, Error);
            }

            //
            // Python's stdout in the C.UTF-8 locale escapes U+DC80..U+DCFF
            // as the bytes 0x80..0xff (surrogateescape); other surrogates
            // cannot be encoded.
            //

            if (CodePoint >= 0xdc80 && CodePoint <= 0xdcff) {
                Text[0] = (CHAR)(CodePoint - 0xdc00);
                TextLength = 1;
            } else if (CodePoint >= 0xd800 && CodePoint <= 0xdfff) {
                return RenderError(Rules, Rule, Op, 101, (ULONG)CodePoint,
                                   Error);
            } else if (CodePoint < 0x80) {
                Text[0] = (CHAR)CodePoint;
                TextLength = 1;
            } else if (CodePoint < 0x800) {
                Text[0] = (CHAR)(0xc0 | (CodePoint >> 6));
                Text[1] = (CHAR)(0x80 | (CodePoint & 0x3f));
                TextLength = 2;
            } else if (CodePoint < 0x10000) {
                Text[0] = (CHAR)(0xe0 | (CodePoint >> 12));
                Text[1] = (CHAR)(0x80 | ((CodePoint >> 6) & 0x3f));
                Text[2] = (CHAR)(0x80 | (CodePoint & 0x3f));
                TextLength = 3;
            } else {
                Text[0] = (CHAR)(0xf0 | (CodePoint >> 18));
                Text[1] = (CHAR)(0x80 | ((CodePoint >> 12) & 0x3f));
                Text[2] = (CHAR)(0x80 | ((CodePoint >> 6) & 0x3f));
                Text[3] = (CHAR)(0x80 | (CodePoint & 0x3f));
                TextLength = 4;
            }
            Out = PutPadded(Out, Text, TextLength, 1, Op);
            break;
        }

        default:
            Out = ConvertFloat(Op, &Value, Out);
            break;
        }
    }

    *Length = (ULONG)(Out - Output);
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// The formatter.
// ---------------------------------------------------------------------------
//

RTL_STATUS
KvmtraceFormatterInitialize(
    PKVMTRACE_FORMATTER Formatter
    )
{
    PRTL Rtl = Formatter->Rules->Rtl;
    SIZE_T Size = MIN_OUTPUT_BUFFER;
    RTL_STATUS Status;

    if (2 * (SIZE_T)Formatter->Rules->MaxLength > Size) {
        Size = (SIZE_T)ALIGN_UP(2 * (SIZE_T)Formatter->Rules->MaxLength,
                                RTL_PAGE_SIZE);
    }

    Formatter->OutputUsed = 0;
    Formatter->Offset = 0;
    Formatter->Records = 0;
    Formatter->Tsc.LastTsc = 0;
    Rtl->FillMemory(&Formatter->Error, sizeof(Formatter->Error), 0);

    Status = Rtl->AllocatePages(Rtl, Size, (PPVOID)&Formatter->Output);
    if (!RTL_SUCCESS(Status)) {
        Formatter->Output = NULL;
        return RtlSetError(&Formatter->Error, Status, 0, 0,
                           "%s: cannot allocate an output buffer: %s",
                           Formatter->InputName, RtlStatusText(Status));
    }
    Formatter->OutputSize = Size;

    return RTL_STATUS_OK;
}

static
RTL_STATUS
Flush(
    PKVMTRACE_FORMATTER Formatter
    )
{
    if (Formatter->OutputUsed != 0 &&
        !Formatter->Write(Formatter->WriteContext, Formatter->Output,
                          Formatter->OutputUsed)) {
        return RtlSetError(&Formatter->Error, RTL_STATUS_INVALID_PARAMETER,
                           0, ~0ULL, "cannot write the output");
    }

    Formatter->OutputUsed = 0;
    return RTL_STATUS_OK;
}

RTL_STATUS
KvmtraceFormatFeed(
    PKVMTRACE_FORMATTER Formatter,
    const BYTE *Input,
    SIZE_T Length,
    BOOL EndOfInput,
    PSIZE_T Consumed
    )
{
    PKVMTRACE_RULES Rules = Formatter->Rules;
    KVMTRACE_RECORD Record;
    KVMTRACE_VALUES Values;
    KVMTRACE_DECODE Decode;
    SIZE_T Position = 0;
    RTL_STATUS Status;
    ULONG RuleIndex;
    ULONG Written;

    *Consumed = 0;
    if (Formatter->Error.Status != RTL_STATUS_OK) {
        return Formatter->Error.Status;
    }

    for (;;) {
        Decode = KvmtraceDecode(Input + Position, Length - Position, &Record);
        if (Decode != KvmtraceDecodeComplete) {
            break;
        }

        KvmtraceSetValues(Rules, &Formatter->Tsc, &Record, &Values);
        RuleIndex = KvmtraceRulesFind(Rules, Record.Event);

        if (RuleIndex != KVMTRACE_NO_RULE) {
            if (Formatter->OutputUsed + Rules->Rules[RuleIndex].MaxLength >
                Formatter->OutputSize) {
                Status = Flush(Formatter);
                if (!RTL_SUCCESS(Status)) {
                    break;
                }
            }

            Status = KvmtraceRender(Rules, RuleIndex, &Values,
                                    Formatter->Output + Formatter->OutputUsed,
                                    &Written, &Formatter->Error);
            if (!RTL_SUCCESS(Status)) {
                SIZE_T Used = RtlStringLength(Formatter->Error.Message);

                RtlFormat(Formatter->Error.Message + Used,
                          sizeof(Formatter->Error.Message) - Used,
                          " (the record at byte offset %llu of %s)",
                          Formatter->Offset, Formatter->InputName);
                Formatter->Error.Offset = Formatter->Offset;
                break;
            }
            Formatter->Output[Formatter->OutputUsed + Written] = '\n';
            Formatter->OutputUsed += Written + 1;
        }

        Position += Record.Size;
        Formatter->Offset += Record.Size;
        Formatter->Records++;
    }

    *Consumed = Position;

    if (Formatter->Error.Status == RTL_STATUS_OK && EndOfInput &&
        Decode != KvmtraceDecodeEnd) {
        ULONGLONG Left = Length - Position;
        ULONG Header;
        ULONG Size;

        if (Decode == KvmtraceDecodeCutHeader) {
            RtlSetError(&Formatter->Error, RTL_STATUS_BAD_FORMAT, 0,
                        Formatter->Offset, "%s: byte offset %llu: truncated "
                        "record: the input ends inside its 12-byte header "
                        "(%llu bytes left)", Formatter->InputName,
                        Formatter->Offset, Left);
        } else {
            Header = KvmtraceLoad32(Input + Position);
            Size = KVMTRACE_HEADER_SIZE + ((Header >> 31) ? 8 : 0) +
                   4 * ((Header >> 28) & 7);
            RtlSetError(&Formatter->Error, RTL_STATUS_BAD_FORMAT, 0,
                        Formatter->Offset, "%s: byte offset %llu: truncated "
                        "record: the input ends inside its %s (%llu of %u "
                        "bytes)", Formatter->InputName, Formatter->Offset,
                        KvmtraceDecodeText(Decode), Left, Size);
        }
    }

    return Formatter->Error.Status;
}

RTL_STATUS
KvmtraceFormatterFinish(
    PKVMTRACE_FORMATTER Formatter
    )
{
    RTL_STATUS Status = Formatter->Error.Status;
    RTL_ERROR Saved = Formatter->Error;

    if (Formatter->Output != NULL) {
        if (RTL_SUCCESS(Flush(Formatter)) &&
            Status != RTL_STATUS_OK) {
            Formatter->Error = Saved;
        }
        Formatter->Rules->Rtl->Unmap(Formatter->Rules->Rtl,
                                     Formatter->Output,
                                     Formatter->OutputSize);
        Formatter->Output = NULL;
    }

    return Formatter->Error.Status;
}
