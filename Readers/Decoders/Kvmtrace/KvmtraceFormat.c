/*++

Module Name:

    KvmtraceFormat.c

Abstract:

    This module renders one kvmtrace record by its rule (compiled by
    KvmtraceRules.c) byte for byte as the seed's Python prints it:

        print(defs[str(event)] % args)          or defs['0'] for other ids

    that is, Python 3's str % dict over the args {tsc, event, reltsc, pid,
    vcpu, 1..5}: the conversions d i u o x X e E f F g G c s r a with
    Python's sign, zero-fill, alternate-form and precision rules
    (precision pads integers with zeros and truncates %s).  With -c,
    %(tsc) is a float: %d truncates it, %s/%r print its shortest repr,
    %e/%f/%g round it correctly (KvmtraceFloat.c), and %x/%o/%c raise.
    Where Python raises (a FAIL op of the rule, %c out of range or an
    unencodable surrogate) the line is not printed and the error names
    the formats file's line.

    Limits (documented in docs/reader-kvm.md): widths and precisions above 2^20, and
    rules whose rendering could exceed 16 MB, raise instead of printing;
    %c of U+DC80..U+DCFF prints the escaped byte, as Python's stdout does
    in the C.UTF-8 locale (surrogateescape), and other surrogates raise.

    Rules of only literals and plain %d/%x/%X of non-negative integers
    take a fast path, which the tests hold to the full emulation.  Also
    the values a record gives its rule (reltsc: the difference to the
    previous TSC).

Environment:

    Core: no C runtime, no OS service.  Called by the kvmtrace reader
    (Kvmtrace.c) and the formatter (KvmtraceFormatter.c); calls
    KvmtraceFloat.c.

--*/

#include "KvmtraceFormat.h"
#include "KvmtraceOps.h"
#include "KvmtraceFloat.h"
#include "Readers/Text/TextParse.h"

//
// The keys' names (KvmtraceOps.h), in the seed's insertion order.
//

const PCSZ KvmtraceKeyNames[KEY_COUNT] = {
    "tsc", "event", "reltsc", "pid", "vcpu", "1", "2", "3", "4", "5"
};

//
// ---------------------------------------------------------------------------
// A record and its values.
// ---------------------------------------------------------------------------
//

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
        return KvmtraceFormatFloat(Value->Float, 'r', 0, FALSE, TRUE, Output);
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
        Out = PutBytes(Out, KvmtraceKeyNames[Key],
                       (ULONG)RtlStringLength(KvmtraceKeyNames[Key]));
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
        Out = PutFill(Out, '0', Pad);
    }
    Out = PutFill(Out, '0', Zeros);
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

    Length = KvmtraceFormatFloat(Number, (CHAR)Op->Type,
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
        PutFill(Out, '0', Pad);
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
            } else {
                TextLength = TextEncodeUtf8((ULONG)CodePoint, Text);
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
