/*++

Module Name:

    TraceEventPrint.c

Abstract:

    This module implements the print-fmt interpreter of the event model
    (see TraceEvent.h).  An event's `print fmt: "FORMAT", ARGS` line is
    compiled, on the event's first use, into a list of items: literal
    text, and conversions (%d %u %x %s %p %c, with flags, width,
    precision, length and '*') each with an argument expression.
    Rendering walks the list over one event record.

    The semantics are libtraceevent's, the library `trace-cmd report`
    prints with, so that the text matches what it prints:

      - fields are read as stored, unsigned, and cast by the conversion's
        length (so a negative int prints through %d, as a large number
        through %ld);
      - arithmetic and comparisons are unsigned 64-bit; a cast masks to
        u8/u16/u32/char/short/int and leaves everything else;
      - __print_flags / __print_symbolic tables are evaluated once, with
        the library's rules for unresolved enum names (-1, or 0 inside an
        expression);
      - %s of a string applies the conversion to each flag name; unmatched
        values print as 0x...; %ps prints the kallsyms function, or the
        address in hex; %p prints like glibc.

    A print fmt using anything else (another function, %pI4, ...) is not
    compiled, and the event prints as "field=value ...", like trace-cmd
    prints an event it cannot parse.

--*/

#include "TraceEvent.h"

#define MAX_DEPTH 48
#define MAX_ITEMS 256

typedef enum _PRINT_ARG_TYPE {
    ArgAtom = 1,        // a number, name or string: Text (Flags say which)
    ArgField,           // Field
    ArgOp,              // A Op B; A is NULL for a unary operator
    ArgTernary,         // A ? B : C
    ArgCast,            // (type) A; Value is the mask, 0 for none
    ArgIndex,           // A[B], A a field or a dynamic array
    ArgDynArray,        // __get_dynamic_array(Field)
    ArgDynArrayLen,     // __get_dynamic_array_len(Field)
    ArgGetStr,          // __get_str(Field)
    ArgFlags,           // __print_flags(A, Text, Symbols)
    ArgSymbolic,        // __print_symbolic(A, Symbols)
    ArgHex,             // __print_hex(A, B)
    ArgHexStr,          // __print_hex_str(A, B)
    ArgIntArray,        // __print_array(A, B count, C element size)
    ArgBitmask,         // __get_bitmask(Field)
    ArgCpumask,         // __get_cpumask(Field)
    ArgFunction,        // a plugin's helper (Value: FUNCTION_*) of A
} PRINT_ARG_TYPE;

//
// The helpers libtraceevent's jbd2 plugin registers.
//

#define FUNCTION_JIFFIES_TO_MSECS   1   // A itself (the plugin's is identity)
#define FUNCTION_JBD2_DEV_TO_NAME   2   // "MAJOR:MINOR" of A; 0 as a number

typedef enum _PRINT_OP {
    OpNone = 0,
    OpMul, OpDiv, OpMod, OpAdd, OpSub, OpShl, OpShr,
    OpLt, OpGt, OpLe, OpGe, OpEq, OpNe,
    OpAnd, OpXor, OpOr, OpLogicalAnd, OpLogicalOr,
    OpNot, OpBitNot,
} PRINT_OP;

#define ATOM_NUMERIC    0x1     // starts with a digit
#define ATOM_RESOLVED   0x2     // a name looked up in kallsyms: Value

typedef struct _PRINT_SYMBOL {
    LONGLONG Value;
    PCSZ Text;
    ULONG Length;
    ULONG Padding;
} PRINT_SYMBOL, *PPRINT_SYMBOL;

typedef struct _PRINT_ARG {
    PRINT_ARG_TYPE Type;
    PRINT_OP Op;
    LONG Priority;          // of an operator node, as libtraceevent sets it
    ULONG Flags;            // ATOM_*
    ULONGLONG Value;        // a cast's mask (0: none), a resolved name
    PCTRACE_EVENT_FIELD Field;
    PCSZ Text;
    ULONG Length;
    ULONG SymbolCount;
    PPRINT_SYMBOL Symbols;
    struct _PRINT_ARG *A;
    struct _PRINT_ARG *B;
    struct _PRINT_ARG *C;
} PRINT_ARG, *PPRINT_ARG;

//
// One printf conversion.
//

typedef struct _PRINT_SPEC {
    BOOL Left;
    BOOL Plus;
    BOOL Space;
    BOOL Alternate;
    BOOL Zero;
    LONG Width;             // -1 for none
    LONG Precision;         // -1 for none
    ULONG Bits;             // 8, 16, 32 or 64 from h, hh, l, ll
    CHAR Conversion;
} PRINT_SPEC, *PPRINT_SPEC;

typedef enum _PRINT_ITEM_KIND {
    ItemLiteral = 1,
    ItemNumber,
    ItemString,
    ItemPointer,
} PRINT_ITEM_KIND;

typedef struct _PRINT_ITEM {
    PRINT_ITEM_KIND Kind;
    ULONG SpecLength;
    CHAR Spec[32];          // the conversion as written, "%-08lx"
    CHAR PointerKind;       // after %p: 's', 'S', 'f', 'F', 'M', 'm', 0
    CHAR PointerSuffix;     // 'R' or 'F' after %pM / %pm
    BOOLEAN HasStar;
    BOOLEAN Padding;
    PCSZ Literal;
    ULONG LiteralLength;
    ULONG Padding2;
    PPRINT_ARG Arg;
    PPRINT_ARG StarArg;
    PRINT_SPEC Parsed;      // Spec, parsed once (unless it has a '*')
} PRINT_ITEM, *PPRINT_ITEM;

struct _TRACE_PRINT {
    ULONG Count;
    ULONG Padding;
    PRINT_ITEM Items[1];
};

//
// Text output.
//

VOID
TraceTextAppend(
    PTRACE_TEXT Text,
    PCSZ Bytes,
    SIZE_T Length
    )
{
    SIZE_T Room = Text->Capacity - Text->Length;
    SIZE_T Index;

    if (Length > Room) {
        Length = Room;
    }
    for (Index = 0; Index < Length; Index++) {
        Text->Buffer[Text->Length + Index] = Bytes[Index];
    }
    Text->Length += (ULONG)Length;
}

VOID
TraceTextAppendChar(
    PTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Text->Length < Text->Capacity) {
        Text->Buffer[Text->Length++] = Char;
    }
}

static
VOID
AppendRepeat(
    PTRACE_TEXT Text,
    CHAR Char,
    LONG Count
    )
{
    while (Count-- > 0) {
        TraceTextAppendChar(Text, Char);
    }
}

static
VOID
AppendString(
    PTRACE_TEXT Text,
    PCSZ String
    )
{
    TraceTextAppend(Text, String, RtlStringLength(String));
}

static
VOID
AppendHex(
    PTRACE_TEXT Text,
    ULONGLONG Value,
    BOOL Prefix
    )
{
    CHAR Digits[20];
    ULONG Count = 0;

    if (Prefix) {
        TraceTextAppend(Text, "0x", 2);
    }
    do {
        Digits[Count++] = "0123456789abcdef"[Value & 0xf];
        Value >>= 4;
    } while (Value != 0);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
}

static
VOID
AppendDecimal(
    PTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    CHAR Digits[24];
    ULONG Count = 0;

    do {
        Digits[Count++] = (CHAR)('0' + Value % 10);
        Value /= 10;
    } while (Value != 0);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
}


static
VOID
ParseSpec(
    PCSZ Spec,
    ULONG Length,
    LONG Star,
    PPRINT_SPEC Out
    )
{
    PCSZ Cursor = Spec;
    PCSZ End = Spec + Length;
    LONG LengthCount = 0;

    Out->Left = FALSE;
    Out->Plus = FALSE;
    Out->Space = FALSE;
    Out->Alternate = FALSE;
    Out->Zero = FALSE;
    Out->Width = -1;
    Out->Precision = -1;
    Out->Bits = 32;
    Out->Conversion = 'd';

    if (Cursor < End && *Cursor == '%') {
        Cursor++;
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor == '-') {
            Out->Left = TRUE;
        } else if (*Cursor == '+') {
            Out->Plus = TRUE;
        } else if (*Cursor == ' ') {
            Out->Space = TRUE;
        } else if (*Cursor == '#') {
            Out->Alternate = TRUE;
        } else if (*Cursor == '0') {
            Out->Zero = TRUE;
        } else {
            break;
        }
    }

    if (Cursor < End && *Cursor == '*') {
        Out->Width = Star;
        if (Star < 0) {
            Out->Left = TRUE;
            Out->Width = -Star;
        }
        Cursor++;
    } else {
        while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
            if (Out->Width < 0) {
                Out->Width = 0;
            }
            if (Out->Width < 100000) {
                Out->Width = Out->Width * 10 + (*Cursor - '0');
            }
            Cursor++;
        }
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor++;
        Out->Precision = 0;
        if (Cursor < End && *Cursor == '*') {
            Out->Precision = Star < 0 ? -1 : Star;
            Cursor++;
        } else {
            while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
                if (Out->Precision < 100000) {
                    Out->Precision = Out->Precision * 10 + (*Cursor - '0');
                }
                Cursor++;
            }
        }
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor == 'h') {
            LengthCount--;
        } else if (*Cursor == 'l') {
            LengthCount++;
        } else if (*Cursor == 'L' || *Cursor == 'q' || *Cursor == 'j') {
            LengthCount = 2;
        } else if (*Cursor == 'z' || *Cursor == 'Z' || *Cursor == 't') {
            LengthCount = 1;
        } else {
            break;
        }
    }

    if (Cursor < End) {
        Out->Conversion = *Cursor;
    }

    if (LengthCount <= -2) {
        Out->Bits = 8;
    } else if (LengthCount == -1) {
        Out->Bits = 16;
    } else if (LengthCount == 0) {
        Out->Bits = 32;
    } else {
        Out->Bits = 64;
    }

    if (Out->Width > 65536) {
        Out->Width = 65536;
    }
    if (Out->Precision > 65536) {
        Out->Precision = 65536;
    }
}

static
VOID
FormatStringWithSpec(
    PTRACE_TEXT Text,
    PPRINT_SPEC Spec,
    PCSZ String,
    ULONG Length
    )
{
    PRINT_SPEC Parsed = *Spec;
    LONG Pad;

    if (Parsed.Precision >= 0 && (ULONG)Parsed.Precision < Length) {
        Length = (ULONG)Parsed.Precision;
    }
    Pad = Parsed.Width > (LONG)Length ? Parsed.Width - (LONG)Length : 0;
    if (!Parsed.Left) {
        AppendRepeat(Text, ' ', Pad);
    }
    TraceTextAppend(Text, String, Length);
    if (Parsed.Left) {
        AppendRepeat(Text, ' ', Pad);
    }
}

static
VOID
FormatNumberWithSpec(
    PTRACE_TEXT Text,
    PPRINT_SPEC Parsed,
    ULONGLONG Value
    )
/*++

Routine Description:

    Formats Value as the C library's printf would with the conversion
    Parsed (Value is first cast to the conversion's length).

--*/
{
    PRINT_SPEC Spec = *Parsed;
    CHAR Digits[72];
    ULONG Count = 0;
    PCSZ Prefix = "";
    ULONG PrefixLength = 0;
    ULONG Base = 10;
    BOOL Upper = FALSE;
    ULONGLONG Magnitude;
    LONG ZeroCount = 0;
    LONG Total;
    ULONGLONG Mask;

    Mask = Spec.Bits == 64 ? ~0ULL : ((1ULL << Spec.Bits) - 1);
    Value &= Mask;

    switch (Spec.Conversion) {
    case 'c': {
        CHAR Char = (CHAR)(Value & 0xff);
        LONG Pad = Spec.Width > 1 ? Spec.Width - 1 : 0;

        if (!Spec.Left) {
            AppendRepeat(Text, ' ', Pad);
        }
        TraceTextAppendChar(Text, Char);
        if (Spec.Left) {
            AppendRepeat(Text, ' ', Pad);
        }
        return;
    }

    case 'd':
    case 'i':
        if (Spec.Bits < 64 && (Value & (1ULL << (Spec.Bits - 1)))) {
            Value |= ~Mask;
        }
        if ((LONGLONG)Value < 0) {
            Magnitude = 0 - Value;
            Prefix = "-";
            PrefixLength = 1;
        } else {
            Magnitude = Value;
            if (Spec.Plus) {
                Prefix = "+";
                PrefixLength = 1;
            } else if (Spec.Space) {
                Prefix = " ";
                PrefixLength = 1;
            }
        }
        break;

    case 'o':
        Base = 8;
        Magnitude = Value;
        break;

    case 'x':
        Base = 16;
        Magnitude = Value;
        if (Spec.Alternate && Value != 0) {
            Prefix = "0x";
            PrefixLength = 2;
        }
        break;

    case 'X':
        Base = 16;
        Upper = TRUE;
        Magnitude = Value;
        if (Spec.Alternate && Value != 0) {
            Prefix = "0X";
            PrefixLength = 2;
        }
        break;

    default:
        Magnitude = Value;
        break;
    }

    //
    // Digits, least significant first (constant divisors: no division
    // instructions).
    //

    if (!(Spec.Precision == 0 && Magnitude == 0)) {
        if (Base == 16) {
            PCSZ Hex = Upper ? "0123456789ABCDEF" : "0123456789abcdef";
            do {
                Digits[Count++] = Hex[Magnitude & 0xf];
                Magnitude >>= 4;
            } while (Magnitude != 0);
        } else if (Base == 8) {
            do {
                Digits[Count++] = (CHAR)('0' + (Magnitude & 7));
                Magnitude >>= 3;
            } while (Magnitude != 0);
        } else {
            do {
                Digits[Count++] = (CHAR)('0' + Magnitude % 10);
                Magnitude /= 10;
            } while (Magnitude != 0);
        }
    }

    if (Spec.Conversion == 'o' && Spec.Alternate &&
        (Count == 0 || Digits[Count - 1] != '0')) {
        Digits[Count++] = '0';
    }

    if (Spec.Precision > (LONG)Count) {
        ZeroCount = Spec.Precision - (LONG)Count;
    }

    Total = (LONG)(PrefixLength + Count) + ZeroCount;
    if (Spec.Zero && !Spec.Left && Spec.Precision < 0 &&
        Spec.Width > Total) {
        ZeroCount += Spec.Width - Total;
        Total = Spec.Width;
    }

    if (!Spec.Left && Spec.Width > Total) {
        AppendRepeat(Text, ' ', Spec.Width - Total);
    }
    TraceTextAppend(Text, Prefix, PrefixLength);
    AppendRepeat(Text, '0', ZeroCount);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
    if (Spec.Left && Spec.Width > Total) {
        AppendRepeat(Text, ' ', Spec.Width - Total);
    }
}

VOID
TraceTextFormatNumber(
    PTRACE_TEXT Text,
    PCSZ Conversion,
    ULONG ConversionLength,
    LONG StarWidth,
    LONG StarPrecision,
    ULONGLONG Value
    )
{
    PRINT_SPEC Spec;

    ParseSpec(Conversion, ConversionLength,
              StarWidth != -1 ? StarWidth : StarPrecision, &Spec);
    FormatNumberWithSpec(Text, &Spec, Value);
}

VOID
TraceTextAppendHex(
    PTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    AppendHex(Text, Value, FALSE);
}

VOID
TraceTextAppendDecimal(
    PTRACE_TEXT Text,
    ULONGLONG Value,
    BOOL Signed
    )
{
    if (Signed && (LONGLONG)Value < 0) {
        TraceTextAppendChar(Text, '-');
        Value = 0 - Value;
    }
    AppendDecimal(Text, Value);
}

//
// Compilation: a tokenizer and a recursive-descent parser over the text
// after "print fmt: ".
//

typedef enum _TOKEN_TYPE {
    TokenEnd = 0,
    TokenNumber,
    TokenString,
    TokenIdent,
    TokenPunct,
    TokenError,
} TOKEN_TYPE;

typedef struct _TOKEN {
    TOKEN_TYPE Type;
    PCSZ Start;
    PCSZ End;
    ULONGLONG Value;
} TOKEN, *PTOKEN;

typedef struct _PARSER {
    PTRACE_EVENT_TABLE Table;
    PTRACE_EVENT_FORMAT Format;
    PCSZ Cursor;
    PCSZ End;
    TOKEN Token;            // the current token
    ULONG Depth;
    BOOL Failed;
} PARSER, *PPARSER;

static
BOOL
IsIdentStart(
    CHAR Char
    )
{
    return (Char >= 'a' && Char <= 'z') || (Char >= 'A' && Char <= 'Z') ||
           Char == '_';
}

static
BOOL
IsIdentPart(
    CHAR Char
    )
{
    return IsIdentStart(Char) || (Char >= '0' && Char <= '9');
}

static
BOOL
ParseCNumber(
    PCSZ Start,
    PCSZ End,
    PULONGLONG Value
    )
/*++

Routine Description:

    Parses a C integer literal (decimal, 0x hex, 0 octal) with optional
    u/l suffixes.

--*/
{
    ULONGLONG Number = 0;
    ULONG Base = 10;
    PCSZ Cursor = Start;

    if (End - Cursor >= 2 && Cursor[0] == '0' &&
        (Cursor[1] == 'x' || Cursor[1] == 'X')) {
        Base = 16;
        Cursor += 2;
        if (Cursor == End) {
            return FALSE;
        }
    } else if (End - Cursor >= 2 && Cursor[0] == '0') {
        Base = 8;
        Cursor++;
    }

    for (; Cursor < End; Cursor++) {
        CHAR Char = *Cursor;
        ULONG Digit;

        if (Char >= '0' && Char <= '9') {
            Digit = (ULONG)(Char - '0');
        } else if (Base == 16 && Char >= 'a' && Char <= 'f') {
            Digit = (ULONG)(Char - 'a' + 10);
        } else if (Base == 16 && Char >= 'A' && Char <= 'F') {
            Digit = (ULONG)(Char - 'A' + 10);
        } else {
            break;
        }
        if (Digit >= Base) {
            return FALSE;
        }
        Number = Number * Base + Digit;
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor != 'u' && *Cursor != 'U' && *Cursor != 'l' &&
            *Cursor != 'L') {
            return FALSE;
        }
    }

    *Value = Number;
    return TRUE;
}

static
VOID
NextToken(
    PPARSER Parser
    )
{
    PCSZ Cursor = Parser->Cursor;
    PCSZ End = Parser->End;
    PTOKEN Token = &Parser->Token;

    while (Cursor < End && (*Cursor == ' ' || *Cursor == '\t' ||
                            *Cursor == '\n' || *Cursor == '\r')) {
        Cursor++;
    }

    Token->Start = Cursor;
    Token->Value = 0;

    if (Cursor >= End) {
        Token->Type = TokenEnd;
        Token->End = Cursor;
        Parser->Cursor = Cursor;
        return;
    }

    if (*Cursor == '"') {
        Cursor++;
        while (Cursor < End && *Cursor != '"') {
            if (*Cursor == '\\' && Cursor + 1 < End) {
                Cursor++;
            }
            Cursor++;
        }
        if (Cursor >= End) {
            Token->Type = TokenError;
        } else {
            Token->Type = TokenString;
            Cursor++;
        }
    } else if (*Cursor == '\'') {
        Cursor++;
        if (Cursor < End && *Cursor == '\\' && Cursor + 1 < End) {
            Cursor++;
            switch (*Cursor) {
            case 'n': Token->Value = '\n'; break;
            case 't': Token->Value = '\t'; break;
            case 'r': Token->Value = '\r'; break;
            case '0': Token->Value = 0; break;
            default: Token->Value = (BYTE)*Cursor; break;
            }
            Cursor++;
        } else if (Cursor < End) {
            Token->Value = (BYTE)*Cursor;
            Cursor++;
        }
        if (Cursor < End && *Cursor == '\'') {
            Token->Type = TokenNumber;
            Cursor++;
        } else {
            Token->Type = TokenError;
        }
    } else if (*Cursor >= '0' && *Cursor <= '9') {
        while (Cursor < End && IsIdentPart(*Cursor)) {
            Cursor++;
        }
        Token->Type = ParseCNumber(Token->Start, Cursor, &Token->Value) ?
                      TokenNumber : TokenError;
    } else if (IsIdentStart(*Cursor)) {
        while (Cursor < End && IsIdentPart(*Cursor)) {
            Cursor++;
        }
        Token->Type = TokenIdent;
    } else {
        static const char *const TwoChar[] = {
            "->", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
        };
        ULONG Index;

        Token->Type = TokenPunct;
        Cursor++;
        if (Cursor < End) {
            for (Index = 0; Index < ARRAYSIZE(TwoChar); Index++) {
                if (Token->Start[0] == TwoChar[Index][0] &&
                    Cursor[0] == TwoChar[Index][1]) {
                    Cursor++;
                    break;
                }
            }
        }
    }

    Token->End = Cursor;
    Parser->Cursor = Cursor;
}

static
BOOL
TokenIs(
    PPARSER Parser,
    PCSZ Literal
    )
{
    PTOKEN Token = &Parser->Token;
    SIZE_T Length = (SIZE_T)(Token->End - Token->Start);
    SIZE_T Index;

    if (Token->Type != TokenPunct && Token->Type != TokenIdent) {
        return FALSE;
    }
    for (Index = 0; Index < Length; Index++) {
        if (Literal[Index] != Token->Start[Index]) {
            return FALSE;
        }
    }
    return Literal[Length] == '\0';
}

static
BOOL
Expect(
    PPARSER Parser,
    PCSZ Literal
    )
{
    if (!TokenIs(Parser, Literal)) {
        Parser->Failed = TRUE;
        return FALSE;
    }
    NextToken(Parser);
    return TRUE;
}

static
PPRINT_ARG
NewArg(
    PPARSER Parser,
    PRINT_ARG_TYPE Type
    )
{
    PPRINT_ARG Arg;

    if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena, sizeof(*Arg),
                                        (PVOID *)&Arg))) {
        Parser->Failed = TRUE;
        return NULL;
    }
    Arg->Type = Type;
    return Arg;
}

static
BOOL
Unescape(
    PPARSER Parser,
    PCSZ Start,
    PCSZ End,
    PCSZ *Text,
    PULONG Length
    )
/*++

Routine Description:

    Copies the raw contents of one or more adjacent string literals
    (Start..End spans the quotes) with C escapes resolved.

--*/
{
    PCHAR Buffer;
    ULONG Out = 0;
    PCSZ Cursor = Start;

    if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena,
                                        (SIZE_T)(End - Start) + 1,
                                        (PVOID *)&Buffer))) {
        return FALSE;
    }

    while (Cursor < End) {
        if (*Cursor != '"') {
            Cursor++;
            continue;
        }
        Cursor++;
        while (Cursor < End && *Cursor != '"') {
            CHAR Char = *Cursor++;

            if (Char == '\\' && Cursor < End) {
                Char = *Cursor++;
                switch (Char) {
                case 'n': Char = '\n'; break;
                case 't': Char = '\t'; break;
                case 'r': Char = '\r'; break;
                default: break;
                }
            }
            Buffer[Out++] = Char;
        }
        Cursor++;
    }

    Buffer[Out] = '\0';
    *Text = Buffer;
    *Length = Out;
    return TRUE;
}

static BOOL ParseArgToken(PPARSER Parser, PPRINT_ARG Arg);
static BOOL ParseOp(PPARSER Parser, PPRINT_ARG Arg);

//
// Operators.  libtraceevent's priorities: a smaller number binds tighter.
//

static
LONG
OpPriority(
    PRINT_OP Op
    )
{
    switch (Op) {
    case OpNot:
    case OpBitNot:
        return 4;
    case OpMul:
    case OpDiv:
    case OpMod:
        return 6;
    case OpAdd:
    case OpSub:
        return 7;
    case OpShl:
    case OpShr:
        return 8;
    case OpLt:
    case OpGt:
    case OpLe:
    case OpGe:
        return 9;
    case OpEq:
    case OpNe:
        return 10;
    case OpAnd:
        return 11;
    case OpXor:
        return 12;
    case OpOr:
        return 13;
    case OpLogicalAnd:
        return 14;
    case OpLogicalOr:
        return 15;
    default:
        return -1;
    }
}

static
PRINT_OP
TokenOp(
    PPARSER Parser
    )
{
    static const struct {
        PCSZ Text;
        PRINT_OP Op;
    } Ops[] = {
        { "*", OpMul }, { "/", OpDiv }, { "%", OpMod }, { "+", OpAdd },
        { "-", OpSub }, { "<<", OpShl }, { ">>", OpShr }, { "<", OpLt },
        { ">", OpGt }, { "<=", OpLe }, { ">=", OpGe }, { "==", OpEq },
        { "!=", OpNe }, { "&", OpAnd }, { "^", OpXor }, { "|", OpOr },
        { "&&", OpLogicalAnd }, { "||", OpLogicalOr }, { "!", OpNot },
        { "~", OpBitNot },
    };
    ULONG Index;

    if (Parser->Token.Type != TokenPunct) {
        return OpNone;
    }
    for (Index = 0; Index < ARRAYSIZE(Ops); Index++) {
        if (TokenIs(Parser, Ops[Index].Text)) {
            return Ops[Index].Op;
        }
    }
    return OpNone;
}

static
BOOL
IsOperatorToken(
    PPARSER Parser
    )
/*++

Routine Description:

    Whether the current token is what libtraceevent's tokenizer calls an
    operator: punctuation other than the delimiters ( ) and ,.

--*/
{
    return Parser->Token.Type == TokenPunct && !TokenIs(Parser, "(") &&
           !TokenIs(Parser, ")") && !TokenIs(Parser, ",");
}

static
LONG
TokenPriority(
    PPARSER Parser
    )
{
    if (TokenIs(Parser, "?")) {
        return 16;
    }
    return OpPriority(TokenOp(Parser));
}

static
BOOL
IsOpNode(
    PPRINT_ARG Arg
    )
{
    return Arg->Type == ArgOp || Arg->Type == ArgTernary ||
           Arg->Type == ArgIndex;
}

static
LONG
NodePriority(
    PPRINT_ARG Arg
    )
{
    if (Arg->Type == ArgTernary) {
        return 16;
    }
    if (Arg->Type == ArgIndex) {
        return -1;
    }
    return OpPriority(Arg->Op);
}

static
LONGLONG
LenientNumber(
    PCSZ Text,
    ULONG Length
    )
/*++

Routine Description:

    strtoull(Text, NULL, 0): as many digits as there are, suffixes
    ignored.

--*/
{
    ULONGLONG Value = 0;
    ULONG Base = 10;
    ULONG Index = 0;

    if (Length >= 2 && Text[0] == '0' && (Text[1] == 'x' || Text[1] == 'X')) {
        Base = 16;
        Index = 2;
    } else if (Length >= 1 && Text[0] == '0') {
        Base = 8;
    }

    for (; Index < Length; Index++) {
        CHAR Char = Text[Index];
        ULONG Digit;

        if (Char >= '0' && Char <= '9') {
            Digit = (ULONG)(Char - '0');
        } else if (Char >= 'a' && Char <= 'f') {
            Digit = (ULONG)(Char - 'a' + 10);
        } else if (Char >= 'A' && Char <= 'F') {
            Digit = (ULONG)(Char - 'A' + 10);
        } else {
            break;
        }
        if (Digit >= Base) {
            break;
        }
        Value = Value * Base + Digit;
    }

    return (LONGLONG)Value;
}

static
PPRINT_ARG
CopyArg(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
{
    PPRINT_ARG Copy = NewArg(Parser, ArgAtom);

    if (Copy != NULL) {
        *Copy = *Arg;
    }
    return Copy;
}

//
// Constant evaluation of __print_flags / __print_symbolic table values,
// as libtraceevent does it: the value's text, or an expression computed
// in signed 64 bits with a few operators and printed; then a text that
// starts with a digit is that number, a few softirq and hrtimer names
// are known, and anything else (an unresolved enum name, a negative
// number) is -1.
//

static
BOOL
ConstantValue(
    PPRINT_ARG Arg,
    PLONGLONG Value
    )
{
    LONGLONG Left = 0;
    LONGLONG Right = 0;

    if (Arg == NULL) {
        return FALSE;
    }

    switch (Arg->Type) {
    case ArgAtom:
        *Value = (Arg->Flags & ATOM_NUMERIC) ?
                 LenientNumber(Arg->Text, Arg->Length) : 0;
        return TRUE;

    case ArgCast:
        if (!ConstantValue(Arg->A, Value)) {
            return FALSE;
        }
        if (Arg->Value != 0) {
            *Value = (LONGLONG)((ULONGLONG)*Value & Arg->Value);
        }
        return TRUE;

    case ArgOp:
        if ((Arg->Op == OpSub || Arg->Op == OpAdd) && Arg->A == NULL) {
            Left = 0;
        } else if (Arg->Op != OpBitNot && !ConstantValue(Arg->A, &Left)) {
            return FALSE;
        }
        if (!ConstantValue(Arg->B, &Right)) {
            return FALSE;
        }
        switch (Arg->Op) {
        case OpOr: *Value = Left | Right; return TRUE;
        case OpLogicalOr: *Value = Left || Right; return TRUE;
        case OpAnd: *Value = Left & Right; return TRUE;
        case OpLogicalAnd: *Value = Left && Right; return TRUE;
        case OpLt: *Value = Left < Right; return TRUE;
        case OpShl: *Value = (LONGLONG)((ULONGLONG)Left << (Right & 63));
                    return TRUE;
        case OpLe: *Value = Left <= Right; return TRUE;
        case OpGt: *Value = Left > Right; return TRUE;
        case OpShr: *Value = Left >> (Right & 63); return TRUE;
        case OpGe: *Value = Left >= Right; return TRUE;
        case OpEq: *Value = Left == Right; return TRUE;
        case OpNe: *Value = Left != Right; return TRUE;
        case OpSub: *Value = (LONGLONG)((ULONGLONG)Left - (ULONGLONG)Right);
                    return TRUE;
        case OpAdd: *Value = (LONGLONG)((ULONGLONG)Left + (ULONGLONG)Right);
                    return TRUE;
        case OpBitNot: *Value = ~Right; return TRUE;
        default: return FALSE;
        }

    default:
        return FALSE;
    }
}

static
BOOL
TableValue(
    PPRINT_ARG Arg,
    PLONGLONG Value
    )
{
    static const struct {
        PCSZ Name;
        LONGLONG Value;
    } Known[] = {
        { "HI_SOFTIRQ", 0 }, { "TIMER_SOFTIRQ", 1 }, { "NET_TX_SOFTIRQ", 2 },
        { "NET_RX_SOFTIRQ", 3 }, { "BLOCK_SOFTIRQ", 4 },
        { "IRQ_POLL_SOFTIRQ", 5 }, { "TASKLET_SOFTIRQ", 6 },
        { "SCHED_SOFTIRQ", 7 }, { "HRTIMER_SOFTIRQ", 8 },
        { "RCU_SOFTIRQ", 9 }, { "HRTIMER_NORESTART", 0 },
        { "HRTIMER_RESTART", 1 },
    };
    ULONG Index;

    while (Arg->Type == ArgCast) {
        Arg = Arg->A;
    }

    if (Arg->Type == ArgAtom) {
        if (Arg->Flags & ATOM_NUMERIC) {
            *Value = LenientNumber(Arg->Text, Arg->Length);
            return TRUE;
        }
        for (Index = 0; Index < ARRAYSIZE(Known); Index++) {
            if (TextEquals(Arg->Text, Arg->Length, Known[Index].Name)) {
                *Value = Known[Index].Value;
                return TRUE;
            }
        }
        *Value = -1;
        return TRUE;
    }

    if (Arg->Type != ArgOp || !ConstantValue(Arg, Value)) {
        return FALSE;
    }
    if (*Value < 0) {
        *Value = -1;
    }
    return TRUE;
}

static
BOOL
TableText(
    PPARSER Parser,
    PPRINT_ARG Arg,
    PCSZ *Text,
    PULONG Length
    )
/*++

Routine Description:

    The name of a table entry: its text, or an expression's value.

--*/
{
    LONGLONG Value;
    TRACE_TEXT Out;
    PCHAR Buffer;

    while (Arg->Type == ArgCast) {
        Arg = Arg->A;
    }
    if (Arg->Type == ArgAtom) {
        *Text = Arg->Text;
        *Length = Arg->Length;
        return TRUE;
    }
    if (Arg->Type != ArgOp || !ConstantValue(Arg, &Value) ||
        !RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena, 24,
                                        (PVOID *)&Buffer))) {
        return FALSE;
    }
    Out.Buffer = Buffer;
    Out.Length = 0;
    Out.Capacity = 23;
    TraceTextFormatNumber(&Out, "%lld", 4, -1, -1, (ULONGLONG)Value);
    *Text = Buffer;
    *Length = Out.Length;
    return TRUE;
}

//
// Types, for casts and sizeof.
//

static
BOOL
StartsWithText(
    PCSZ Text,
    PCSZ Prefix
    )
{
    while (*Prefix != '\0') {
        if (*Text++ != *Prefix++) {
            return FALSE;
        }
    }
    return TRUE;
}

static
ULONGLONG
CastMask(
    PCSZ Type,
    ULONG Length
    )
/*++

Routine Description:

    The mask libtraceevent applies for a cast to Type: u8/u16/u32,
    s8/s16/s32, [unsigned] char/short/int; nothing for other types and
    pointers.

--*/
{
    if (Length == 0 || Type[Length - 1] == '*' ||
        (Length >= 6 && StartsWithText(Type, "struct"))) {
        return 0;
    }
    if (TextEquals(Type, Length, "u8") ||
        TextEquals(Type, Length, "s8")) {
        return 0xff;
    }
    if (TextEquals(Type, Length, "u16") ||
        TextEquals(Type, Length, "s16")) {
        return 0xffff;
    }
    if (TextEquals(Type, Length, "u32") ||
        TextEquals(Type, Length, "s32")) {
        return 0xffffffffULL;
    }
    if (Length > 9 && StartsWithText(Type, "unsigned ")) {
        Type += 9;
        Length -= 9;
    }
    if (TextEquals(Type, Length, "char")) {
        return 0xff;
    }
    if (TextEquals(Type, Length, "short")) {
        return 0xffff;
    }
    if (TextEquals(Type, Length, "int")) {
        return 0xffffffffULL;
    }
    return 0;
}

static
ULONG
TypeSize(
    PCSZ Type,
    ULONG Length,
    ULONG LongSize
    )
{
    static const struct {
        PCSZ Name;
        ULONG Size;
    } Sizes[] = {
        { "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
        { "u8", 1 }, { "s8", 1 }, { "__u8", 1 }, { "__s8", 1 },
        { "bool", 1 }, { "short", 2 }, { "unsigned short", 2 },
        { "u16", 2 }, { "s16", 2 }, { "__u16", 2 }, { "__s16", 2 },
        { "int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
        { "u32", 4 }, { "s32", 4 }, { "__u32", 4 }, { "__s32", 4 },
        { "pid_t", 4 }, { "long long", 8 }, { "unsigned long long", 8 },
        { "u64", 8 }, { "s64", 8 }, { "__u64", 8 }, { "__s64", 8 },
        { "long", 0 }, { "unsigned long", 0 }, { "size_t", 0 },
    };
    ULONG Index;

    if (Length != 0 && Type[Length - 1] == '*') {
        return LongSize;
    }
    for (Index = 0; Index < ARRAYSIZE(Sizes); Index++) {
        if (TextEquals(Type, Length, Sizes[Index].Name)) {
            return Sizes[Index].Size != 0 ? Sizes[Index].Size : LongSize;
        }
    }
    return 0;
}

//
// The argument parser.  It builds trees the way libtraceevent does
// (process_arg / process_op), quirks included, because the tree decides
// what trace-cmd prints:
//
//   - a binary operator's right operand is one primary; when that primary
//     is itself an operator node of lower priority (a parenthesized
//     "a | b", say) the two are rotated: "x & (a | b)" is "(x & a) | b";
//   - a following operator of the same or higher priority applies to the
//     right operand, so "a - b - c" is "a - (b - c)";
//   - a ternary's false branch is one primary, and an operator after it
//     applies to the whole ternary.
//

static
BOOL
ParseFieldName(
    PPARSER Parser,
    PCTRACE_EVENT_FIELD *Field
    )
{
    CHAR Name[128];
    SIZE_T Length;

    if (TokenIs(Parser, "REC")) {
        NextToken(Parser);
        if (!Expect(Parser, "->")) {
            return FALSE;
        }
    }
    if (Parser->Token.Type != TokenIdent) {
        return FALSE;
    }

    Length = (SIZE_T)(Parser->Token.End - Parser->Token.Start);
    if (Length >= sizeof(Name)) {
        return FALSE;
    }
    Parser->Table->Rtl->CopyMemory(Name, Parser->Token.Start, Length);
    Name[Length] = '\0';

    *Field = TraceEventFindField(Parser->Format, Name);
    if (*Field == NULL) {
        return FALSE;
    }
    NextToken(Parser);
    return TRUE;
}

static
BOOL
ParseArgWithOps(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
{
    if (!ParseArgToken(Parser, Arg)) {
        return FALSE;
    }
    while (IsOperatorToken(Parser) && !TokenIs(Parser, ":") &&
           !TokenIs(Parser, "}") && !TokenIs(Parser, "]")) {
        if (!ParseOp(Parser, Arg)) {
            return FALSE;
        }
    }
    return TRUE;
}

static
BOOL
ParseFields(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    Parses "{ VALUE, NAME }, ..." of __print_flags / __print_symbolic.

--*/
{
    PRINT_SYMBOL Symbols[512];
    ULONG Count = 0;

    for (;;) {
        PPRINT_ARG Value = NewArg(Parser, ArgAtom);
        PPRINT_ARG Name = NewArg(Parser, ArgAtom);

        if (Value == NULL || Name == NULL || Count == ARRAYSIZE(Symbols) ||
            !Expect(Parser, "{") || !ParseArgWithOps(Parser, Value) ||
            !Expect(Parser, ",") || !TableValue(Value, &Symbols[Count].Value) ||
            !ParseArgToken(Parser, Name) || !Expect(Parser, "}") ||
            !TableText(Parser, Name, &Symbols[Count].Text,
                       &Symbols[Count].Length)) {
            return FALSE;
        }
        Count++;
        if (!TokenIs(Parser, ",")) {
            break;
        }
        NextToken(Parser);
    }

    if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena,
                                        sizeof(PRINT_SYMBOL) * (Count + 1),
                                        (PVOID *)&Arg->Symbols))) {
        return FALSE;
    }
    Parser->Table->Rtl->CopyMemory(Arg->Symbols, Symbols,
                                   sizeof(PRINT_SYMBOL) * Count);
    Arg->SymbolCount = Count;
    return TRUE;
}

static
BOOL
ParseFunction(
    PPARSER Parser,
    PPRINT_ARG Arg,
    PCSZ Name,
    ULONG NameLength
    )
/*++

Routine Description:

    The helpers print fmts call (libtraceevent's own, and the jbd2
    plugin's); the current token is the "(".  Any other function fails the
    compilation (trace-cmd knows some through other plugins).

--*/
{
    if (!Expect(Parser, "(")) {
        return FALSE;
    }

    if (TextEquals(Name, NameLength, "__get_str") ||
        TextEquals(Name, NameLength, "__get_rel_str") ||
        TextEquals(Name, NameLength, "__get_dynamic_array") ||
        TextEquals(Name, NameLength, "__get_rel_dynamic_array") ||
        TextEquals(Name, NameLength, "__get_dynamic_array_len") ||
        TextEquals(Name, NameLength, "__get_rel_dynamic_array_len") ||
        TextEquals(Name, NameLength, "__get_bitmask") ||
        TextEquals(Name, NameLength, "__get_rel_bitmask") ||
        TextEquals(Name, NameLength, "__get_cpumask") ||
        TextEquals(Name, NameLength, "__get_rel_cpumask")) {

        PCTRACE_EVENT_FIELD Field;

        if (!ParseFieldName(Parser, &Field)) {
            return FALSE;
        }
        if (TextEquals(Name, NameLength, "__get_str") ||
            TextEquals(Name, NameLength, "__get_rel_str")) {
            Arg->Type = (Field->Flags & TRACE_FIELD_DYNAMIC) ? ArgGetStr :
                        ArgField;
        } else if (StartsWithText(Name + NameLength - 4, "_len")) {
            Arg->Type = ArgDynArrayLen;
        } else if (StartsWithText(Name + NameLength - 7, "bitmask")) {
            Arg->Type = ArgBitmask;
        } else if (StartsWithText(Name + NameLength - 7, "cpumask")) {
            Arg->Type = ArgCpumask;
        } else {
            Arg->Type = ArgDynArray;
        }
        if (Arg->Type != ArgField && !(Field->Flags & TRACE_FIELD_DYNAMIC)) {
            return FALSE;
        }
        Arg->Field = Field;

    } else if (TextEquals(Name, NameLength, "__print_flags") ||
               TextEquals(Name, NameLength, "__print_flags_u64")) {

        Arg->Type = ArgFlags;
        Arg->A = NewArg(Parser, ArgAtom);
        if (Arg->A == NULL || !ParseArgWithOps(Parser, Arg->A) ||
            !Expect(Parser, ",")) {
            return FALSE;
        }
        if (Parser->Token.Type == TokenString) {
            PCSZ Start = Parser->Token.Start;
            PCSZ End = Parser->Token.End;

            NextToken(Parser);
            while (Parser->Token.Type == TokenString) {
                End = Parser->Token.End;
                NextToken(Parser);
            }
            if (!Unescape(Parser, Start, End, &Arg->Text, &Arg->Length)) {
                return FALSE;
            }
        } else if (Parser->Token.Type == TokenIdent ||
                   Parser->Token.Type == TokenNumber) {
            Arg->Text = Parser->Token.Start;
            Arg->Length = (ULONG)(Parser->Token.End - Parser->Token.Start);
            NextToken(Parser);
        }
        if (!Expect(Parser, ",") || !ParseFields(Parser, Arg)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "__print_symbolic") ||
               TextEquals(Name, NameLength, "__print_symbolic_u64")) {

        Arg->Type = ArgSymbolic;
        Arg->A = NewArg(Parser, ArgAtom);
        if (Arg->A == NULL || !ParseArgWithOps(Parser, Arg->A) ||
            !Expect(Parser, ",") || !ParseFields(Parser, Arg)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "__print_hex") ||
               TextEquals(Name, NameLength, "__print_hex_str") ||
               TextEquals(Name, NameLength, "__print_array")) {

        BOOL Array = TextEquals(Name, NameLength, "__print_array");

        Arg->Type = Array ? ArgIntArray :
                    (NameLength == 15 ? ArgHexStr : ArgHex);
        Arg->A = NewArg(Parser, ArgAtom);
        Arg->B = NewArg(Parser, ArgAtom);
        if (Arg->A == NULL || Arg->B == NULL ||
            !ParseArgToken(Parser, Arg->A) || !Expect(Parser, ",") ||
            !ParseArgToken(Parser, Arg->B)) {
            return FALSE;
        }
        if (Array) {
            Arg->C = NewArg(Parser, ArgAtom);
            if (Arg->C == NULL || !Expect(Parser, ",") ||
                !ParseArgToken(Parser, Arg->C)) {
                return FALSE;
            }
        }
        if (Arg->A->Type != ArgField && Arg->A->Type != ArgDynArray) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "jiffies_to_msecs") ||
               TextEquals(Name, NameLength, "jbd2_dev_to_name")) {

        Arg->Type = ArgFunction;
        Arg->Value = (Name[0] == 'j' && Name[1] == 'i') ?
                     FUNCTION_JIFFIES_TO_MSECS : FUNCTION_JBD2_DEV_TO_NAME;
        Arg->A = NewArg(Parser, ArgAtom);
        if (Arg->A == NULL || !ParseArgToken(Parser, Arg->A)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "sizeof")) {

        PCSZ Start = Parser->Token.Start;
        PCSZ End = Start;
        CHAR Type[64];
        ULONG Length = 0;
        ULONG Size;

        while (Parser->Token.Type == TokenIdent || TokenIs(Parser, "*")) {
            SIZE_T Part = (SIZE_T)(Parser->Token.End - Parser->Token.Start);

            if (Length + Part + 2 >= sizeof(Type)) {
                return FALSE;
            }
            if (Length != 0) {
                Type[Length++] = ' ';
            }
            Parser->Table->Rtl->CopyMemory(Type + Length, Parser->Token.Start,
                                           Part);
            Length += (ULONG)Part;
            End = Parser->Token.End;
            NextToken(Parser);
        }
        Size = TypeSize(Type, Length, Parser->Table->LongSize);
        if (Size == 0 || End == Start) {
            return FALSE;
        }
        Arg->Type = ArgAtom;
        Arg->Flags = ATOM_NUMERIC;
        Arg->Text = Size == 1 ? "1" : Size == 2 ? "2" : Size == 4 ? "4" : "8";
        Arg->Length = 1;

    } else {
        return FALSE;
    }

    return Expect(Parser, ")");
}

static
BOOL
ParseParen(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    "( ... )": a parenthesized argument, or a cast when an atom in
    parentheses is followed by an operand.  Nothing marks the
    parentheses: the node is what is inside.

--*/
{
    PPRINT_ARG Item = NewArg(Parser, ArgAtom);

    NextToken(Parser);
    if (Item == NULL || !ParseArgToken(Parser, Item)) {
        return FALSE;
    }
    if (IsOperatorToken(Parser) && !ParseOp(Parser, Item)) {
        return FALSE;
    }
    if (!Expect(Parser, ")")) {
        return FALSE;
    }

    if (Parser->Token.Type == TokenIdent ||
        Parser->Token.Type == TokenNumber ||
        Parser->Token.Type == TokenString || TokenIs(Parser, "(")) {

        PPRINT_ARG Operand;

        if (Item->Type != ArgAtom) {
            return FALSE;
        }
        Operand = NewArg(Parser, ArgAtom);
        if (Operand == NULL || !ParseArgToken(Parser, Operand)) {
            return FALSE;
        }
        Arg->Type = ArgCast;
        Arg->Text = Item->Text;
        Arg->Length = Item->Length;
        Arg->Value = CastMask(Item->Text, Item->Length);
        Arg->A = Operand;
        return TRUE;
    }

    *Arg = *Item;
    return TRUE;
}

static
BOOL
ParseArgToken(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    One argument from the current token on (libtraceevent's
    process_arg_token): REC->field, a function, an atom (names, numbers
    and strings; consecutive names are one atom, "unsigned int"), a
    parenthesis or cast, or a unary operator with its operand.

--*/
{
    PTOKEN Token = &Parser->Token;
    BOOL Result = FALSE;

    if (++Parser->Depth > MAX_DEPTH) {
        return FALSE;
    }

    if (TokenIs(Parser, "REC")) {
        PCTRACE_EVENT_FIELD Field;

        if (ParseFieldName(Parser, &Field)) {
            Arg->Type = ArgField;
            Arg->Field = Field;
            Result = TRUE;
        }

    } else if (Token->Type == TokenIdent || Token->Type == TokenNumber) {
        PCSZ Start = Token->Start;
        PCSZ End = Token->End;
        BOOL Numeric = (Token->Type == TokenNumber);

        NextToken(Parser);
        if (!Numeric && TokenIs(Parser, "(")) {
            Result = ParseFunction(Parser, Arg, Start, (ULONG)(End - Start));
        } else {
            PCHAR Text;
            ULONG Length = 0;

            if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena,
                                                (SIZE_T)(Parser->End - Start) +
                                                1, (PVOID *)&Text))) {
                goto End;
            }
            Parser->Table->Rtl->CopyMemory(Text, Start, End - Start);
            Length = (ULONG)(End - Start);
            while (Token->Type == TokenIdent || Token->Type == TokenNumber) {
                Text[Length++] = ' ';
                Parser->Table->Rtl->CopyMemory(Text + Length, Token->Start,
                                               Token->End - Token->Start);
                Length += (ULONG)(Token->End - Token->Start);
                NextToken(Parser);
            }
            Text[Length] = '\0';
            Arg->Type = ArgAtom;
            Arg->Text = Text;
            Arg->Length = Length;
            Arg->Flags = Numeric ? ATOM_NUMERIC : 0;
            Result = TRUE;
        }

    } else if (Token->Type == TokenString) {
        PCSZ Start = Token->Start;
        PCSZ End = Token->End;

        NextToken(Parser);
        while (Token->Type == TokenString) {
            End = Token->End;
            NextToken(Parser);
        }
        Arg->Type = ArgAtom;
        Arg->Flags = 0;
        Result = Unescape(Parser, Start, End, &Arg->Text, &Arg->Length);

    } else if (TokenIs(Parser, "(")) {
        Result = ParseParen(Parser, Arg);

    } else if (TokenIs(Parser, "-") || TokenIs(Parser, "+") ||
               TokenIs(Parser, "!") || TokenIs(Parser, "~")) {

        //
        // A unary operator: a node with no left side, then its operand
        // and whatever operators follow.
        //

        Arg->Type = ArgOp;
        Arg->Op = TokenOp(Parser);
        Arg->Priority = 0;
        Arg->A = NULL;
        Arg->B = NULL;
        Result = ParseOp(Parser, Arg);
    }

End:
    Parser->Depth--;
    return Result;
}

static
BOOL
ParseOp(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    libtraceevent's process_op: Arg is what was parsed so far, the current
    token an operator.  Arg becomes the operator node (its old contents
    move to the left side), then operators that follow are attached by
    priority.

--*/
{
    PPRINT_ARG Right = NULL;
    PPRINT_ARG Left;

    if (++Parser->Depth > MAX_DEPTH) {
        return FALSE;
    }

    if (Arg->Type == ArgOp && Arg->A == NULL && Arg->B == NULL) {

        //
        // The operand of a unary operator.
        //

        NextToken(Parser);
        Right = NewArg(Parser, ArgAtom);
        if (Right == NULL || !ParseArgToken(Parser, Right)) {
            return FALSE;
        }
        Arg->B = Right;

    } else if (TokenIs(Parser, "?")) {
        PPRINT_ARG True;
        PPRINT_ARG False;

        Left = CopyArg(Parser, Arg);
        True = NewArg(Parser, ArgAtom);
        False = NewArg(Parser, ArgAtom);
        if (Left == NULL || True == NULL || False == NULL) {
            return FALSE;
        }
        Arg->Type = ArgTernary;
        Arg->Priority = 0;
        Arg->A = Left;
        Arg->B = True;
        Arg->C = False;

        NextToken(Parser);
        if (!ParseArgToken(Parser, True)) {
            return FALSE;
        }
        while (IsOperatorToken(Parser) && !TokenIs(Parser, ":")) {
            if (!ParseOp(Parser, True)) {
                return FALSE;
            }
        }
        if (!Expect(Parser, ":") || !ParseArgToken(Parser, False)) {
            return FALSE;
        }

    } else if (TokenIs(Parser, "[")) {
        PPRINT_ARG Index;
        PPRINT_ARG Base;

        Left = CopyArg(Parser, Arg);
        Index = NewArg(Parser, ArgAtom);
        if (Left == NULL || Index == NULL) {
            return FALSE;
        }
        Arg->Type = ArgIndex;
        Arg->Priority = 0;
        Arg->A = Left;
        Arg->B = Index;

        NextToken(Parser);
        if (!ParseArgToken(Parser, Index) || !Expect(Parser, "]")) {
            return FALSE;
        }
        Base = Left;
        while (Base->Type == ArgCast) {
            Base = Base->A;
        }
        if ((Base->Type != ArgField || !(Base->Field->Flags &
                                          TRACE_FIELD_ARRAY)) &&
            Base->Type != ArgDynArray) {
            return FALSE;
        }

    } else {
        PRINT_OP Op = TokenOp(Parser);

        if (Op == OpNone || Op == OpNot || Op == OpBitNot) {
            return FALSE;
        }

        Left = CopyArg(Parser, Arg);
        if (Left == NULL) {
            return FALSE;
        }
        Arg->Type = ArgOp;
        Arg->Op = Op;
        Arg->Priority = OpPriority(Op);
        Arg->A = Left;
        Arg->B = NULL;

        NextToken(Parser);

        //
        // "(type *)": the '*' belongs to the type.
        //

        if (Op == OpMul && TokenIs(Parser, ")")) {
            PCHAR Text;

            if (Left->Type != ArgAtom ||
                !RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena,
                                                Left->Length + 3,
                                                (PVOID *)&Text))) {
                return FALSE;
            }
            Parser->Table->Rtl->CopyMemory(Text, Left->Text, Left->Length);
            Text[Left->Length] = ' ';
            Text[Left->Length + 1] = '*';
            Text[Left->Length + 2] = '\0';
            *Arg = *Left;
            Arg->Text = Text;
            Arg->Length += 2;
            Parser->Depth--;
            return TRUE;
        }

        Right = NewArg(Parser, ArgAtom);
        if (Right == NULL || !ParseArgToken(Parser, Right)) {
            return FALSE;
        }

        if (IsOpNode(Right) && OpPriority(Op) < NodePriority(Right)) {
            PRINT_ARG Swap;

            Arg->B = Right->A;
            Swap = *Arg;
            *Arg = *Right;
            *Right = Swap;
            Arg->A = Right;
        } else {
            Arg->B = Right;
        }
    }

    Parser->Depth--;

    if (IsOperatorToken(Parser) && !TokenIs(Parser, ":")) {
        if (TokenPriority(Parser) > Arg->Priority) {
            return ParseOp(Parser, Arg);
        }
        if (Right == NULL) {
            return FALSE;
        }
        return ParseOp(Parser, Right);
    }

    return TRUE;
}

//
// The format string.
//

static
ULONG
PointerExtension(
    PCSZ Cursor,
    PCSZ End,
    PBOOL Supported
    )
/*++

Routine Description:

    How many characters after "%p" belong to the conversion, as
    libtraceevent counts them.  *Supported is FALSE for the kinds this
    interpreter does not print (IP addresses, UUIDs, hex buffers).

--*/
{
    CHAR Next = (Cursor + 1 < End) ? Cursor[1] : '\0';

    *Supported = TRUE;
    if (Cursor >= End) {
        return 0;
    }

    switch (*Cursor) {
    case 'F':
    case 'S':
    case 'f':
    case 's':
        return 1;
    case 'M':
    case 'm':
        return (Next == 'R' || Next == 'F') ? 2 : 1;
    case 'I':
    case 'i':
    case 'U':
    case 'h':
        *Supported = FALSE;
        return 1;
    default:
        return 0;
    }
}

static
BOOL
AddItem(
    PPRINT_ITEM Items,
    PULONG Count,
    PRINT_ITEM_KIND Kind,
    PPRINT_ITEM *Item
    )
{
    if (*Count == MAX_ITEMS) {
        return FALSE;
    }
    *Item = &Items[(*Count)++];
    (*Item)->Kind = Kind;
    (*Item)->SpecLength = 0;
    (*Item)->Spec[0] = '\0';
    (*Item)->PointerKind = 0;
    (*Item)->PointerSuffix = 0;
    (*Item)->HasStar = FALSE;
    (*Item)->Literal = NULL;
    (*Item)->LiteralLength = 0;
    (*Item)->Arg = NULL;
    (*Item)->StarArg = NULL;
    return TRUE;
}

static
BOOL
CompileFormat(
    PPARSER Parser,
    PCSZ Format,
    PCSZ End,
    PPRINT_ARG *Args,
    ULONG ArgCount,
    PTRACE_PRINT *Result
    )
/*++

Routine Description:

    Splits the raw format string (escapes not yet resolved) into literal
    and conversion items, pairing conversions with Args in order.

--*/
{
    PRINT_ITEM Items[MAX_ITEMS];
    ULONG Count = 0;
    ULONG NextArg = 0;
    PCSZ Cursor = Format;
    PTRACE_PRINT Print;
    PPRINT_ITEM Item;
    SIZE_T Bytes;

    while (Cursor < End) {
        if (*Cursor == '%' && (Cursor + 1 >= End || Cursor[1] != '%')) {
            PCSZ Start = Cursor;
            PPRINT_ARG StarArg = NULL;
            PRINT_ITEM_KIND Kind = 0;
            CHAR PointerKind = 0;
            CHAR PointerSuffix = 0;

            for (Cursor++; Cursor < End; Cursor++) {
                CHAR Char = *Cursor;

                if (Char == '#' || Char == 'h' || Char == 'l' || Char == 'L' ||
                    Char == 'z' || Char == 'Z' || Char == '.' || Char == '-' ||
                    Char == '+' || (Char >= '0' && Char <= '9')) {
                    continue;
                }
                if (Char == '*') {
                    if (NextArg == ArgCount || StarArg != NULL) {
                        return FALSE;
                    }
                    StarArg = Args[NextArg++];
                    continue;
                }
                if (Char == 'p') {
                    BOOL Supported;
                    ULONG Extra = PointerExtension(Cursor + 1, End,
                                                   &Supported);
                    if (!Supported) {
                        return FALSE;
                    }
                    if (Extra != 0) {
                        PointerKind = Cursor[1];
                        if (Extra == 2) {
                            PointerSuffix = Cursor[2];
                        }
                    }
                    Cursor += Extra;
                    Kind = ItemPointer;
                } else if (Char == 'c' || Char == 'd' || Char == 'u' ||
                           Char == 'i' || Char == 'x' || Char == 'X' ||
                           Char == 'o') {
                    Kind = ItemNumber;
                } else if (Char == 's') {
                    Kind = ItemString;
                } else {

                    //
                    // libtraceevent prints an unknown conversion as ">C<".
                    //

                    if (!AddItem(Items, &Count, ItemLiteral, &Item)) {
                        return FALSE;
                    }
                    Item->Spec[0] = '>';
                    Item->Spec[1] = Char;
                    Item->Spec[2] = '<';
                    Item->SpecLength = 3;
                    Cursor++;
                    Kind = 0;
                    break;
                }

                if (NextArg == ArgCount ||
                    (SIZE_T)(Cursor + 1 - Start) >= sizeof(Item->Spec) ||
                    !AddItem(Items, &Count, Kind, &Item)) {
                    return FALSE;
                }
                Parser->Table->Rtl->CopyMemory(Item->Spec, Start,
                                               Cursor + 1 - Start);
                Item->SpecLength = (ULONG)(Cursor + 1 - Start);
                Item->Spec[Item->SpecLength] = '\0';
                Item->PointerKind = PointerKind;
                Item->PointerSuffix = PointerSuffix;
                Item->HasStar = (StarArg != NULL);
                Item->StarArg = StarArg;
                Item->Arg = Args[NextArg++];
                ParseSpec(Item->Spec, Item->SpecLength, 0, &Item->Parsed);
                Cursor++;
                break;
            }
            continue;
        }

        //
        // A literal run: escapes resolved, "%%" is '%'.
        //

        {
            PCHAR Buffer;
            ULONG Length = 0;

            if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena,
                                                (SIZE_T)(End - Cursor) + 1,
                                                (PVOID *)&Buffer)) ||
                !AddItem(Items, &Count, ItemLiteral, &Item)) {
                return FALSE;
            }

            while (Cursor < End) {
                CHAR Char = *Cursor;

                if (Char == '\\' && Cursor + 1 < End) {
                    Cursor++;
                    switch (*Cursor) {
                    case 'n': Char = '\n'; break;
                    case 't': Char = '\t'; break;
                    case 'r': Char = '\r'; break;
                    default: Char = *Cursor; break;
                    }
                } else if (Char == '%') {
                    if (Cursor + 1 < End && Cursor[1] == '%') {
                        Cursor++;
                    } else {
                        break;
                    }
                }
                Buffer[Length++] = Char;
                Cursor++;
            }
            Buffer[Length] = '\0';
            Item->Literal = Buffer;
            Item->LiteralLength = Length;
        }
    }

    Bytes = FIELD_OFFSET(TRACE_PRINT, Items) + sizeof(PRINT_ITEM) * (Count + 1);
    if (!RTL_SUCCESS(TraceArenaAllocate(&Parser->Table->Arena, Bytes,
                                        (PVOID *)&Print))) {
        return FALSE;
    }
    Print->Count = Count;
    Parser->Table->Rtl->CopyMemory(Print->Items, Items,
                                   sizeof(PRINT_ITEM) * Count);
    *Result = Print;
    return TRUE;
}

static
BOOL
Compile(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format
    )
/*++

Routine Description:

    Compiles the event's print fmt: the (possibly concatenated) format
    string, then the comma-separated arguments.

--*/
{
    PARSER Parser;
    PPRINT_ARG Args[64];
    ULONG ArgCount = 0;
    PCSZ FormatStart;
    PCSZ FormatEnd;
    PCHAR Raw;
    ULONG RawLength = 0;
    PCSZ Cursor;

    Format->PrintState = TRACE_PRINT_STATE_FAILED;
    if (Format->PrintFmt == NULL) {
        return FALSE;
    }

    Parser.Table = Table;
    Parser.Format = Format;
    Parser.Cursor = Format->PrintFmt;
    Parser.End = Format->PrintFmt + Format->PrintFmtLength;
    Parser.Depth = 0;
    Parser.Failed = FALSE;
    NextToken(&Parser);

    if (Parser.Token.Type != TokenString) {
        return FALSE;
    }
    FormatStart = Parser.Token.Start;
    FormatEnd = Parser.Token.End;
    NextToken(&Parser);
    while (Parser.Token.Type == TokenString) {
        FormatEnd = Parser.Token.End;
        NextToken(&Parser);
    }

    //
    // The raw contents of the literals, escapes kept (resolved per item).
    //

    if (!RTL_SUCCESS(TraceArenaAllocate(&Table->Arena,
                                        (SIZE_T)(FormatEnd - FormatStart) + 1,
                                        (PVOID *)&Raw))) {
        return FALSE;
    }
    for (Cursor = FormatStart; Cursor < FormatEnd; ) {
        if (*Cursor != '"') {
            Cursor++;
            continue;
        }
        Cursor++;
        while (Cursor < FormatEnd && *Cursor != '"') {
            if (*Cursor == '\\' && Cursor + 1 < FormatEnd) {
                Raw[RawLength++] = *Cursor++;
            }
            Raw[RawLength++] = *Cursor++;
        }
        Cursor++;
    }
    Raw[RawLength] = '\0';

    while (TokenIs(&Parser, ",")) {
        NextToken(&Parser);
        if (ArgCount == ARRAYSIZE(Args)) {
            return FALSE;
        }
        Args[ArgCount] = NewArg(&Parser, ArgAtom);
        if (Args[ArgCount] == NULL ||
            !ParseArgToken(&Parser, Args[ArgCount])) {
            return FALSE;
        }
        if (IsOperatorToken(&Parser) && !ParseOp(&Parser, Args[ArgCount])) {
            return FALSE;
        }
        ArgCount++;
    }
    if (Parser.Token.Type != TokenEnd) {
        return FALSE;
    }

    if (!CompileFormat(&Parser, Raw, Raw + RawLength, Args, ArgCount,
                       &Format->Print)) {
        return FALSE;
    }

    Format->PrintState = TRACE_PRINT_STATE_READY;
    return TRUE;
}

//
// Evaluation.
//

static
VOID
DynamicLocation(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PULONG Offset,
    PULONG Length
    )
/*++

Routine Description:

    Where a __data_loc / __rel_loc field's data is, checked as
    libtraceevent checks it (an offset past the record gives 0, a length
    past it gives 0).

--*/
{
    ULONGLONG Location;
    ULONG Start;
    ULONG Count;

    *Offset = 0;
    *Length = 0;

    if (Field->Offset > Size || Size - Field->Offset < Field->Size) {
        return;
    }

    Location = TraceEventReadNumber(Data + Field->Offset, Field->Size);
    Start = (ULONG)(Location & 0xffff);
    Count = (Field->Size == 2) ? Size - (Start <= Size ? Start : Size) :
            (ULONG)((Location >> 16) & 0xffff);

    *Offset = Start > Size ? 0 : Start;
    *Length = (ULONGLONG)Start + Count > Size ? 0 : Count;
    if (Field->Flags & TRACE_FIELD_RELATIVE) {
        *Offset += Field->Offset + Field->Size;
    }
}

static
ULONGLONG
Evaluate(
    PPRINT_ARG Arg,
    PTRACE_EVENT_TABLE Table,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Left;
    ULONGLONG Right;

    if (Arg == NULL) {

        //
        // The missing left side of a unary operator.
        //

        return 0;
    }

    switch (Arg->Type) {
    case ArgAtom:
        if (Arg->Flags & ATOM_NUMERIC) {
            return (ULONGLONG)LenientNumber(Arg->Text, Arg->Length);
        }

        //
        // A name: libtraceevent takes the address of a kallsyms symbol of
        // that name, else 0.
        //

        if (!(Arg->Flags & ATOM_RESOLVED)) {
            ULONGLONG Address = 0;

            TraceEventFindSymbolByName(Table, Arg->Text, Arg->Length,
                                       &Address);
            Arg->Value = Address;
            Arg->Flags |= ATOM_RESOLVED;
        }
        return Arg->Value;

    case ArgField: {
        PCTRACE_EVENT_FIELD Field = Arg->Field;

        if (Field->Offset > Size || Size - Field->Offset < Field->Size) {
            return 0;
        }
        return TraceEventReadNumber(Data + Field->Offset, Field->Size);
    }

    case ArgOp:
        Left = Evaluate(Arg->A, Table, Data, Size);
        Right = Evaluate(Arg->B, Table, Data, Size);
        switch (Arg->Op) {
        case OpNot: return !Right;
        case OpBitNot: return ~Right;
        case OpMul: return Left * Right;
        case OpDiv: return Right != 0 ? Left / Right : 0;
        case OpMod: return Right != 0 ? Left % Right : 0;
        case OpAdd: return Left + Right;
        case OpSub: return Left - Right;
        case OpShl: return Left << (Right & 63);
        case OpShr: return Left >> (Right & 63);
        case OpLt: return Left < Right;
        case OpGt: return Left > Right;
        case OpLe: return Left <= Right;
        case OpGe: return Left >= Right;
        case OpEq: return Left == Right;
        case OpNe: return Left != Right;
        case OpAnd: return Left & Right;
        case OpOr: return Left | Right;
        case OpLogicalAnd: return Left && Right;
        case OpLogicalOr: return Left || Right;

        //
        // libtraceevent has no '^': it evaluates to 0.
        //

        default: return 0;
        }

    case ArgTernary:
        return Evaluate(Arg->A, Table, Data, Size) ?
               Evaluate(Arg->B, Table, Data, Size) :
               Evaluate(Arg->C, Table, Data, Size);

    case ArgCast:
        Left = Evaluate(Arg->A, Table, Data, Size);
        return Arg->Value != 0 ? (Left & Arg->Value) : Left;

    case ArgIndex: {
        ULONGLONG Index = Evaluate(Arg->B, Table, Data, Size);
        ULONGLONG Offset;
        ULONGLONG Value;
        ULONG Width;
        PPRINT_ARG Base = Arg->A;
        PPRINT_ARG Cast = NULL;

        while (Base->Type == ArgCast) {
            if (Cast == NULL) {
                Cast = Base;
            }
            Base = Base->A;
        }

        if (Base->Type == ArgDynArray) {
            ULONG Start;
            ULONG Length;

            DynamicLocation(Base->Field, Data, Size, &Start, &Length);
            Offset = Start + Index;
            Width = Base->Field->ElementSize != 0 ?
                    Base->Field->ElementSize : Table->LongSize;
        } else {
            Width = Base->Field->ElementSize;
            Offset = Base->Field->Offset + Index * Width;
        }
        if (Index > Size || Offset > Size || Size - Offset < Width) {
            return 0;
        }
        Value = TraceEventReadNumber(Data + Offset, Width);

        //
        // A cast of the array is taken as a cast of the element, for
        // pointer types ("(u8 *)x" reads u8).
        //

        if (Cast != NULL && Cast->Length > 2 &&
            Cast->Text[Cast->Length - 1] == '*') {
            ULONGLONG Mask = CastMask(Cast->Text, Cast->Length - 2);
            if (Mask != 0) {
                Value &= Mask;
            }
        }
        return Value;
    }

    case ArgDynArrayLen: {
        ULONG Start;
        ULONG Length;

        DynamicLocation(Arg->Field, Data, Size, &Start, &Length);
        return Length;
    }

    case ArgFunction:
        Left = Evaluate(Arg->A, Table, Data, Size);
        return Arg->Value == FUNCTION_JIFFIES_TO_MSECS ? Left : 0;

    default:
        return 0;
    }
}

//
// %s of an argument.
//

static
VOID
PrintPiece(
    PTRACE_TEXT Text,
    PPRINT_ITEM Item,
    LONG Star,
    PCSZ String,
    ULONG Length
    )
{
    PRINT_SPEC Spec;

    if (Item->SpecLength == 2) {
        TraceTextAppend(Text, String, Length);
        return;
    }
    if (Item->HasStar) {
        ParseSpec(Item->Spec, Item->SpecLength, Star, &Spec);
        FormatStringWithSpec(Text, &Spec, String, Length);
        return;
    }
    FormatStringWithSpec(Text, &Item->Parsed, String, Length);
}

static
ULONG
BoundedLength(
    PCSZ String,
    ULONG Limit
    )
{
    ULONG Length = 0;

    while (Length < Limit && String[Length] != '\0') {
        Length++;
    }
    return Length;
}

static
VOID
PrintBitmask(
    PTRACE_TEXT Text,
    PPRINT_ITEM Item,
    LONG Star,
    const BYTE *Mask,
    ULONG Size
    )
/*++

Routine Description:

    Prints a bitmask as libtraceevent does: hex, most significant byte
    first, a comma every 32 bits.

--*/
{
    CHAR Buffer[512];
    ULONG Out = 0;
    ULONG Index;

    if (Size > 128) {
        Size = 128;
    }
    for (Index = Size; Index > 0; Index--) {
        BYTE Byte = Mask[Index - 1];

        Buffer[Out++] = "0123456789abcdef"[Byte >> 4];
        Buffer[Out++] = "0123456789abcdef"[Byte & 0xf];
        if (Index > 1 && ((Index - 1) & 3) == 0) {
            Buffer[Out++] = ',';
        }
    }
    PrintPiece(Text, Item, Star, Buffer, Out);
}

static
VOID
PrintCpumask(
    PTRACE_TEXT Text,
    PPRINT_ITEM Item,
    LONG Star,
    const BYTE *Mask,
    ULONG Size
    )
/*++

Routine Description:

    Prints a cpumask as a list of CPU ranges ("0-3,8").

--*/
{
    CHAR Buffer[1024];
    TRACE_TEXT List;
    ULONG Bits = Size * 8;
    ULONG Bit = 0;
    BOOL First = TRUE;

    List.Buffer = Buffer;
    List.Length = 0;
    List.Capacity = sizeof(Buffer);

    while (Bit < Bits) {
        ULONG Start;

        if (!(Mask[Bit / 8] & (1 << (Bit % 8)))) {
            Bit++;
            continue;
        }
        Start = Bit;
        while (Bit < Bits && (Mask[Bit / 8] & (1 << (Bit % 8)))) {
            Bit++;
        }
        if (!First) {
            TraceTextAppendChar(&List, ',');
        }
        First = FALSE;
        AppendDecimal(&List, Start);
        if (Bit - 1 > Start) {
            TraceTextAppendChar(&List, '-');
            AppendDecimal(&List, Bit - 1);
        }
    }
    PrintPiece(Text, Item, Star, Buffer, List.Length);
}

static
VOID
PrintStringArg(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PPRINT_ITEM Item,
    LONG Star,
    PPRINT_ARG Arg,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONG Index;

    switch (Arg->Type) {
    case ArgAtom:
        PrintPiece(Text, Item, Star, Arg->Text, Arg->Length);
        return;

    case ArgField: {
        PCTRACE_EVENT_FIELD Field = Arg->Field;
        ULONG Length;

        //
        // A long that is not an array is a pointer: to a trace_printk
        // string if the kernel listed one there.
        //

        if (!(Field->Flags & TRACE_FIELD_ARRAY) &&
            Field->Size == Table->LongSize) {
            ULONGLONG Address = 0;
            PCSZ String;
            ULONG StringLength;

            if (Field->Offset <= Size && Size - Field->Offset >= Field->Size) {
                Address = TraceEventReadNumber(Data + Field->Offset,
                                               Field->Size);
            }
            if (TraceEventFindPrintk(Table, Address, &String,
                                     &StringLength)) {
                TraceTextAppend(Text, String, StringLength);
            } else {
                AppendHex(Text, Address, FALSE);
            }
            return;
        }

        if (Field->Offset > Size) {
            return;
        }
        Length = Field->Size != 0 ? Field->Size : Size - Field->Offset;
        if (Length > Size - Field->Offset) {
            Length = Size - Field->Offset;
        }
        PrintPiece(Text, Item, Star, (PCSZ)Data + Field->Offset,
                   BoundedLength((PCSZ)Data + Field->Offset, Length));
        return;
    }

    case ArgGetStr: {
        ULONG Offset;
        ULONG Length;

        DynamicLocation(Arg->Field, Data, Size, &Offset, &Length);
        if (Length == 0 || Offset >= Size) {
            return;
        }
        PrintPiece(Text, Item, Star, (PCSZ)Data + Offset,
                   BoundedLength((PCSZ)Data + Offset, Size - Offset));
        return;
    }

    case ArgFlags: {
        LONGLONG Value = (LONGLONG)Evaluate(Arg->A, Table, Data, Size);
        BOOL Printed = FALSE;

        for (Index = 0; Index < Arg->SymbolCount; Index++) {
            LONGLONG Flag = Arg->Symbols[Index].Value;

            if (Value == 0 && Flag < 0) {
                PrintPiece(Text, Item, Star, Arg->Symbols[Index].Text,
                           Arg->Symbols[Index].Length);
                break;
            }
            if (Flag > 0 && (Value & Flag) == Flag) {
                if (Printed && Arg->Length != 0) {
                    TraceTextAppend(Text, Arg->Text, Arg->Length);
                }
                PrintPiece(Text, Item, Star, Arg->Symbols[Index].Text,
                           Arg->Symbols[Index].Length);
                Printed = TRUE;
                Value &= ~Flag;
            }
        }
        if (Value != 0) {
            if (Printed && Arg->Length != 0) {
                TraceTextAppend(Text, Arg->Text, Arg->Length);
            }
            AppendHex(Text, (ULONGLONG)Value, TRUE);
        }
        return;
    }

    case ArgSymbolic: {
        LONGLONG Value = (LONGLONG)Evaluate(Arg->A, Table, Data, Size);

        for (Index = 0; Index < Arg->SymbolCount; Index++) {
            if (Arg->Symbols[Index].Value == Value) {
                PrintPiece(Text, Item, Star, Arg->Symbols[Index].Text,
                           Arg->Symbols[Index].Length);
                return;
            }
        }
        AppendHex(Text, (ULONGLONG)Value, TRUE);
        return;
    }

    case ArgHex:
    case ArgHexStr:
    case ArgIntArray: {
        ULONG Offset;
        ULONG Available;
        ULONGLONG Count = Evaluate(Arg->B, Table, Data, Size);

        if (Arg->A->Type == ArgDynArray) {
            ULONG Length;
            DynamicLocation(Arg->A->Field, Data, Size, &Offset, &Length);
        } else {
            Offset = Arg->A->Field->Offset;
        }
        Available = Offset <= Size ? Size - Offset : 0;

        if (Arg->Type != ArgIntArray) {
            for (Index = 0; Index < Count && Index < Available; Index++) {
                BYTE Byte = Data[Offset + Index];

                if (Index != 0 && Arg->Type == ArgHex) {
                    TraceTextAppendChar(Text, ' ');
                }
                TraceTextAppendChar(Text, "0123456789abcdef"[Byte >> 4]);
                TraceTextAppendChar(Text, "0123456789abcdef"[Byte & 0xf]);
            }
            return;
        }

        {
            ULONGLONG ElementSize = Evaluate(Arg->C, Table, Data, Size);
            ULONG Consumed = 0;

            TraceTextAppendChar(Text, '{');
            for (Index = 0; Index < Count; Index++) {
                ULONG Width = (ElementSize == 1 || ElementSize == 2 ||
                               ElementSize == 4 || ElementSize == 8) ?
                              (ULONG)ElementSize : 1;

                if (Available - Consumed < Width ||
                    Text->Length >= Text->Capacity) {
                    break;
                }
                if (Index != 0) {
                    TraceTextAppendChar(Text, ',');
                }
                if (Width != ElementSize) {
                    AppendString(Text, "BAD SIZE:");
                    AppendDecimal(Text, ElementSize);
                    TraceTextAppendChar(Text, ' ');
                }
                AppendHex(Text, TraceEventReadNumber(Data + Offset + Consumed,
                                                     Width), TRUE);
                Consumed += Width;
            }
            TraceTextAppendChar(Text, '}');
        }
        return;
    }

    case ArgBitmask:
    case ArgCpumask: {
        ULONG Offset;
        ULONG Length;

        DynamicLocation(Arg->Field, Data, Size, &Offset, &Length);
        if (Offset > Size || Length > Size - Offset) {
            Length = 0;
        }
        if (Arg->Type == ArgBitmask) {
            PrintBitmask(Text, Item, Star, Data + Offset, Length);
        } else {
            PrintCpumask(Text, Item, Star, Data + Offset, Length);
        }
        return;
    }

    case ArgTernary:
        PrintStringArg(Text, Table, Item, Star,
                       Evaluate(Arg->A, Table, Data, Size) ? Arg->B : Arg->C,
                       Data, Size);
        return;

    case ArgFunction: {
        ULONGLONG Value = Evaluate(Arg->A, Table, Data, Size);

        //
        // What the helper prints, whatever the conversion's width.
        //

        if (Arg->Value == FUNCTION_JIFFIES_TO_MSECS) {
            TraceTextAppendDecimal(Text, Value, TRUE);
        } else {
            AppendDecimal(Text, (ULONG)Value >> 20);
            TraceTextAppendChar(Text, ':');
            AppendDecimal(Text, (ULONG)Value & 0xfffff);
        }
        return;
    }

    default:

        //
        // Casts, arithmetic, dynamic arrays: libtraceevent prints nothing.
        //

        return;
    }
}

static
VOID
PrintPointer(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PPRINT_ITEM Item,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Value;
    PCSZ Name;
    ULONG NameLength;
    ULONGLONG Start;

    switch (Item->PointerKind) {
    case 'F':
    case 'f':
    case 'S':
    case 's':
        Value = Evaluate(Item->Arg, Table, Data, Size);
        if (Table->LongSize == 4) {
            Value &= 0xffffffffULL;
        }
        if (TraceEventFindSymbol(Table, Value, &Name, &NameLength, &Start)) {
            TraceTextAppend(Text, Name, NameLength);
            if (Item->PointerKind == 'F' || Item->PointerKind == 'S') {
                TraceTextAppend(Text, "+0x", 3);
                AppendHex(Text, Value - Start, FALSE);
            }
        } else {
            AppendHex(Text, Value, TRUE);
        }
        return;

    case 'M':
    case 'm': {
        PPRINT_ARG Arg = Item->Arg;
        const BYTE *Mac;
        CHAR Separator = (Item->PointerKind == 'm') ? 0 :
                         (Item->PointerSuffix == 'F') ? '-' : ':';
        BOOL Reverse = (Item->PointerSuffix == 'R');
        ULONG Index;

        while (Arg->Type == ArgCast) {
            Arg = Arg->A;
        }
        if (Arg->Type != ArgField || Arg->Field->Size != 6 ||
            Arg->Field->Offset > Size || Size - Arg->Field->Offset < 6) {
            AppendString(Text, "INVALIDMAC");
            return;
        }
        Mac = Data + Arg->Field->Offset;
        for (Index = 0; Index < 6; Index++) {
            BYTE Byte = Mac[Reverse ? 5 - Index : Index];

            if (Index != 0 && Separator != 0) {
                TraceTextAppendChar(Text, Separator);
            }
            TraceTextAppendChar(Text, "0123456789abcdef"[Byte >> 4]);
            TraceTextAppendChar(Text, "0123456789abcdef"[Byte & 0xf]);
        }
        return;
    }

    default:

        //
        // Plain %p, as glibc prints it.
        //

        Value = Evaluate(Item->Arg, Table, Data, Size);
        if (Value == 0) {
            AppendString(Text, "(nil)");
        } else {
            AppendHex(Text, Value, TRUE);
        }
        return;
    }
}

static
VOID
RenderItems(
    PTRACE_EVENT_TABLE Table,
    PTRACE_PRINT Print,
    const BYTE *Data,
    ULONG Size,
    ULONG First,
    ULONG End,
    PTRACE_TEXT Text
    )
{
    ULONG Index;

    for (Index = First; Index < End && Index < Print->Count; Index++) {
        PPRINT_ITEM Item = &Print->Items[Index];
        LONG Star = -1;

        if (Item->StarArg != NULL) {
            Star = (LONG)Evaluate(Item->StarArg, Table, Data, Size);
        }

        switch (Item->Kind) {
        case ItemLiteral:
            if (Item->Literal != NULL) {
                TraceTextAppend(Text, Item->Literal, Item->LiteralLength);
            } else {
                TraceTextAppend(Text, Item->Spec, Item->SpecLength);
            }
            break;

        case ItemNumber:
            if (Item->HasStar) {
                TraceTextFormatNumber(Text, Item->Spec, Item->SpecLength,
                                      Star, Star,
                                      Evaluate(Item->Arg, Table, Data, Size));
            } else {
                FormatNumberWithSpec(Text, &Item->Parsed,
                                     Evaluate(Item->Arg, Table, Data, Size));
            }
            break;

        case ItemString:
            PrintStringArg(Text, Table, Item, Star, Item->Arg, Data, Size);
            break;

        case ItemPointer:
            PrintPointer(Text, Table, Item, Data, Size);
            break;
        }
    }
}

static
BOOL
EnsureCompiled(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format
    )
{
    if (Format->PrintState == TRACE_PRINT_STATE_NEW) {
        Compile(Table, Format);
    }
    return Format->PrintState == TRACE_PRINT_STATE_READY;
}

BOOL
TraceEventRender(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    if (!EnsureCompiled(Table, Format)) {
        TraceEventRenderFields(Table, Format, Data, Size, Text);
        return FALSE;
    }

    RenderItems(Table, Format->Print, Data, Size, 0, Format->Print->Count,
                Text);
    return TRUE;
}

BOOL
TraceEventRenderItems(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    ULONG First,
    ULONG End,
    PTRACE_TEXT Text
    )
{
    if (!EnsureCompiled(Table, Format)) {
        return FALSE;
    }

    RenderItems(Table, Format->Print, Data, Size, First, End, Text);
    return TRUE;
}

BOOL
TraceEventFindPrintItems(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    PCSZ Label,
    PULONG First,
    PULONG End
    )
{
    PTRACE_PRINT Print;
    ULONG LabelLength = (ULONG)RtlStringLength(Label);
    ULONG Index;

    if (!EnsureCompiled(Table, Format)) {
        return FALSE;
    }

    Print = Format->Print;
    for (Index = 0; Index < Print->Count; Index++) {
        PPRINT_ITEM Item = &Print->Items[Index];
        ULONG Stop;

        if (Item->Kind != ItemLiteral || Item->Literal == NULL ||
            Item->LiteralLength < LabelLength ||
            Table->Rtl->CompareMemory(Item->Literal + Item->LiteralLength -
                                      LabelLength, Label, LabelLength) != 0 ||
            (Item->LiteralLength > LabelLength &&
             Item->Literal[Item->LiteralLength - LabelLength - 1] != ' ')) {
            continue;
        }

        for (Stop = Index + 1; Stop < Print->Count; Stop++) {
            PPRINT_ITEM Next = &Print->Items[Stop];

            if (Next->Kind == ItemLiteral && Next->Literal != NULL &&
                TextFindChar(Next->Literal, Next->Literal +
                             Next->LiteralLength, ' ') !=
                Next->Literal + Next->LiteralLength) {
                break;
            }
        }
        *First = Index + 1;
        *End = Stop;
        return Stop > Index + 1;
    }

    return FALSE;
}

//
// trace_printk: the bprint event.  Its record holds the address of a
// format in printk_formats and the arguments vbin_printf stored; trace-cmd
// report reads the arguments with one walk over the format
// (make_bprint_args) and prints with another (parse_args), which do not
// agree on every conversion.  Both walks are reproduced here.
//

#define BPRINT_MAX_ARGS 128

typedef struct _BPRINT_ARG {
    ULONGLONG Value;
    PCSZ String;            // a string argument; NULL for a number
    ULONG Length;
    ULONG Padding;
} BPRINT_ARG, *PBPRINT_ARG;

static
BOOL
IsAlphaNumeric(
    CHAR Char
    )
{
    return (Char >= 'a' && Char <= 'z') || (Char >= 'A' && Char <= 'Z') ||
           (Char >= '0' && Char <= '9');
}

static
ULONG
ReadBprintArgs(
    PTRACE_EVENT_TABLE Table,
    PCSZ Cursor,
    PCSZ End,
    const BYTE *Data,
    ULONG Size,
    ULONG Offset,
    PBPRINT_ARG Args,
    ULONG Count
    )
/*++

Routine Description:

    libtraceevent's make_bprint_args over the format after "%ps: ": a
    conversion of d, u, i, x, X, o (or a '*') reads a 32-bit word, or a
    long with l/z/p, or 64 bits with ll/L, from the next 4-byte boundary;
    %s reads a NUL-terminated string.  It knows no 'h', '-', ' ' or 'c':
    such a conversion reads nothing.  %p followed by a letter other than
    s, S, f, F, x reads a string when the next byte is printable.  Words
    past the record read as zero.  Returns the number of Args filled, from
    Count.

--*/
{
    while (Offset < Size && Cursor < End && Count < BPRINT_MAX_ARGS) {
        LONG Ls = 0;
        BOOL Number = FALSE;
        BOOL String = FALSE;

        if (*Cursor != '%') {
            Cursor++;
            continue;
        }

        for (;;) {
            CHAR Char;

            Cursor++;
            Char = Cursor < End ? *Cursor : '\0';

            if (Char == 'l') {
                Ls++;
                continue;
            }
            if (Char == 'L') {
                Ls = 2;
                continue;
            }
            if ((Char >= '0' && Char <= '9') || Char == '.' || Char == '#' ||
                Char == '+') {
                continue;
            }
            if (Char == 'z' || Char == 'Z') {
                Ls = 1;
                continue;
            }
            if (Char == 'p') {
                CHAR Next = Cursor + 1 < End ? Cursor[1] : '\0';

                Ls = 1;
                Number = TRUE;
                if (IsAlphaNumeric(Next)) {
                    CHAR After = Cursor + 2 < End ? Cursor[2] : '\0';

                    Cursor++;
                    if (!(Next == 's' || Next == 'S' || Next == 'x' ||
                          ((Next == 'f' || Next == 'F') && After != 'w')) &&
                        Offset < Size && Data[Offset] >= 0x20 &&
                        Data[Offset] < 0x7f) {
                        Number = FALSE;
                        String = TRUE;
                    }
                }
            } else if (Char == 'd' || Char == 'u' || Char == 'i' ||
                       Char == 'x' || Char == 'X' || Char == 'o' ||
                       Char == '*') {
                Number = TRUE;
            } else if (Char == 's') {
                String = TRUE;
            }

            if (Number) {
                ULONG Width = (Char == '*') ? 4 :
                              (Ls == 0) ? 4 :
                              (Ls == 1) ? Table->LongSize :
                              (Ls == 2) ? 8 : (ULONG)Ls;
                BYTE Bytes[8] = { 0 };
                ULONG Index;

                Offset = (Offset + 3) & ~3U;
                for (Index = 0; Index < Width && Index < 8 &&
                                Offset + Index < Size; Index++) {
                    Bytes[Index] = Data[Offset + Index];
                }
                Args[Count].Value = TraceEventReadNumber(Bytes, Width);
                Args[Count].String = NULL;
                Args[Count].Length = 0;
                Count++;
                Offset += Width;
                Number = FALSE;
                if (Char == '*' && Count < BPRINT_MAX_ARGS) {
                    continue;
                }
            } else if (String) {
                ULONG Length = 0;

                if (Offset < Size) {
                    Length = BoundedLength((PCSZ)Data + Offset,
                                           Size - Offset);
                }
                Args[Count].Value = 0;
                Args[Count].String = (PCSZ)Data + (Offset < Size ? Offset :
                                                   Size);
                Args[Count].Length = Length;
                Count++;
                Offset += Length + 1;
            }
            break;
        }

        if (Cursor < End) {
            Cursor++;
        }
    }

    return Count;
}

static
VOID
PrintBprintSymbol(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    ULONGLONG Value,
    BOOL Offset
    )
{
    PCSZ Name;
    ULONG NameLength;
    ULONGLONG Start;

    if (TraceEventFindSymbol(Table, Value, &Name, &NameLength, &Start)) {
        TraceTextAppend(Text, Name, NameLength);
        if (Offset) {
            TraceTextAppend(Text, "+0x", 3);
            AppendHex(Text, Value - Start, FALSE);
        }
    } else {
        AppendHex(Text, Value, TRUE);
    }
}

static
VOID
PrintBprintItem(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    CHAR Kind,
    PCSZ Spec,
    ULONG SpecLength,
    LONG Ls,
    PBPRINT_ARG Arg,
    PBPRINT_ARG StarArg
    )
/*++

Routine Description:

    Prints one conversion of a bprint format with its argument, as
    libtraceevent's print_arg_number / print_arg_pointer /
    print_arg_string do.  A number where a string is expected prints its
    decimal text; a string where a number is expected is 0.

--*/
{
    LONG Star = StarArg != NULL ? (LONG)(ULONG)StarArg->Value : 0;
    PRINT_SPEC Parsed;

    ParseSpec(Spec, SpecLength, Star, &Parsed);

    if (Kind == 'd') {
        if (Ls < -2 || Ls > 2) {
            return;
        }
        FormatNumberWithSpec(Text, &Parsed,
                             Arg->String != NULL ? 0 : Arg->Value);
        return;
    }

    if (Kind == 's') {
        if (Arg->String != NULL) {
            FormatStringWithSpec(Text, &Parsed, Arg->String, Arg->Length);
        } else {
            CHAR Buffer[24];
            TRACE_TEXT Decimal;

            Decimal.Buffer = Buffer;
            Decimal.Length = 0;
            Decimal.Capacity = sizeof(Buffer);
            TraceTextAppendDecimal(&Decimal, Arg->Value, TRUE);
            FormatStringWithSpec(Text, &Parsed, Buffer, Decimal.Length);
        }
        return;
    }

    //
    // %p: the letter after the 'p' picks the printer.
    //

    if (Arg->String != NULL) {
        TraceTextAppend(Text, Arg->String, Arg->Length);
        return;
    }
    {
        PCSZ After = Spec;
        PCSZ End = Spec + SpecLength;
        CHAR Letter;
        CHAR Next;

        while (After < End && *After != 'p') {
            After++;
        }
        After++;
        Letter = After < End ? After[0] : '\0';
        Next = After + 1 < End ? After[1] : '\0';

        switch (Letter) {
        case 'F':
        case 'f':
        case 'S':
        case 's':
            PrintBprintSymbol(Text, Table, Arg->Value,
                              Letter == 'F' || Letter == 'S');
            return;
        case 'I':
        case 'i':
            if (Next != '4' && Next != '6' && Next != 'S') {
                return;
            }
            AppendString(Text, "ARG TYPE NOT FIELD BUT 1");
            return;
        case 'M':
        case 'm':
        case 'U':
        case 'h':
            AppendString(Text, "ARG TYPE NOT FIELD BUT 1");
            return;
        default:
            if (Arg->Value == 0) {
                AppendString(Text, "(nil)");
            } else {
                AppendHex(Text, Arg->Value, TRUE);
            }
            return;
        }
    }
}

static
ULONG
PointerExtensionLength(
    PCSZ Cursor,
    PCSZ End
    )
/*++

Routine Description:

    libtraceevent's parse_arg_format_pointer: how many characters after
    "%p" it takes as part of the conversion.

--*/
{
    CHAR First = Cursor < End ? Cursor[0] : '\0';
    CHAR Second = Cursor + 1 < End ? Cursor[1] : '\0';
    ULONG Length = 0;
    ULONG Index;

    switch (First) {
    case 'F':
    case 'S':
    case 'f':
    case 's':
        return 1;
    case 'M':
    case 'm':
        return (Second == 'R' || Second == 'F') ? 2 : 1;
    case 'I':
    case 'i':
        Index = 2;
        if (Second == 'S') {
            while (Cursor + Index < End &&
                   (Cursor[Index] == 'p' || Cursor[Index] == 'f' ||
                    Cursor[Index] == 's')) {
                Length++;
                Index++;
            }
        }
        if (Second == 'S' || Second == '4') {
            CHAR Order = Cursor + Index < End ? Cursor[Index] : '\0';

            if (Order == 'h' || Order == 'n' || Order == 'l' ||
                Order == 'b') {
                Length++;
                Index++;
            }
            if (Second == '4') {
                return Length + 2;
            }
        }
        if (Second == 'S' || Second == '6') {
            if (Cursor + Index < End && Cursor[Index] == 'c') {
                Length++;
            }
            Length++;
        }
        return Length + 1;
    case 'U':
        return (Second == 'L' || Second == 'l' || Second == 'B' ||
                Second == 'b') ? 2 : 1;
    case 'h':
        return (Second == 'C' || Second == 'D' || Second == 'N') ? 2 : 1;
    default:
        return 0;
    }
}

static
BOOL
PrintBprintFormat(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PCSZ Cursor,
    PCSZ End,
    PBPRINT_ARG Args,
    ULONG ArgCount
    )
/*++

Routine Description:

    libtraceevent's parse_args and printing over a bprint format: literal
    runs with their escapes (\n \t \r \\, any other escaped character as
    itself) and "%%", and conversions paired with Args in order.  A
    conversion letter it does not know prints as ">C<" and takes no
    argument.  A conversion with no argument left stops there (the rest
    prints as literal text) and FALSE is returned: the event's format is
    then marked failed.

--*/
{
    ULONG NextArg = 0;
    BOOL Ok = TRUE;

    while (Cursor < End) {
        if (*Cursor == '%' && !(Cursor + 1 < End && Cursor[1] == '%')) {
            PCSZ Start = Cursor;
            PBPRINT_ARG StarArg = NULL;
            LONG Ls = 0;

            for (Cursor++; Cursor < End; Cursor++) {
                CHAR Char = *Cursor;
                CHAR Kind = 0;

                if (Char == '#' || Char == '.' || Char == '-' ||
                    (Char >= '0' && Char <= '9')) {
                    continue;
                }
                if (Char == 'h') {
                    Ls--;
                    continue;
                }
                if (Char == 'l') {
                    Ls++;
                    continue;
                }
                if (Char == 'L') {
                    Ls = 2;
                    continue;
                }
                if (Char == 'z' || Char == 'Z') {
                    Ls = 1;
                    continue;
                }
                if (Char == '*') {
                    if (NextArg == ArgCount || StarArg != NULL) {
                        Ok = FALSE;
                        break;
                    }
                    StarArg = &Args[NextArg++];
                    continue;
                }

                if (Char == 'p') {
                    Kind = 'p';
                } else if (Char == 'd' || Char == 'u' || Char == 'i' ||
                           Char == 'x' || Char == 'X' || Char == 'o') {
                    Kind = 'd';
                } else if (Char == 's') {
                    Kind = 's';
                } else {
                    TraceTextAppendChar(Text, '>');
                    TraceTextAppendChar(Text, Char);
                    TraceTextAppendChar(Text, '<');
                    Cursor++;
                    break;
                }

                if (NextArg == ArgCount) {
                    Ok = FALSE;
                    break;
                }
                if (Kind == 'p') {
                    Cursor += PointerExtensionLength(Cursor + 1, End);
                }
                if (Cursor + 1 - Start > 30 || (Kind == 'd' &&
                                                (Ls < -2 || Ls > 2))) {
                    Ok = FALSE;
                }
                if (Cursor + 1 - Start > 31) {
                    Start = Cursor + 1 - 31;
                }
                PrintBprintItem(Text, Table, Kind, Start,
                                (ULONG)(Cursor + 1 - Start), Ls,
                                &Args[NextArg++], StarArg);
                Cursor++;
                break;
            }
            continue;
        }

        //
        // A literal run.
        //

        while (Cursor < End) {
            CHAR Char = *Cursor;

            if (Char == '\\' && Cursor + 1 < End) {
                Cursor++;
                switch (*Cursor) {
                case 'n': Char = '\n'; break;
                case 't': Char = '\t'; break;
                case 'r': Char = '\r'; break;
                default: Char = *Cursor; break;
                }
            } else if (Char == '%') {
                if (Cursor + 1 < End && Cursor[1] == '%') {
                    Cursor++;
                } else {
                    break;
                }
            }
            TraceTextAppendChar(Text, Char);
            Cursor++;
        }
    }

    return Ok;
}

VOID
TraceEventRenderBprint(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
{
    PCTRACE_EVENT_FIELD IpField = TraceEventFindField(Format, "ip");
    PCTRACE_EVENT_FIELD FmtField = TraceEventFindField(Format, "fmt");
    PCTRACE_EVENT_FIELD BufField = TraceEventFindField(Format, "buf");
    BPRINT_ARG Args[BPRINT_MAX_ARGS];
    ULONG Count;
    ULONGLONG FmtAddress = 0;
    PCSZ Printk;
    ULONG PrintkLength;
    CHAR Missing[64];
    TRACE_TEXT MissingText;

    if (Format->BprintFailed) {
        AppendString(Text, "[FAILED TO PARSE]");
        TraceEventRenderFields(Table, Format, Data, Size, Text);
        return;
    }
    if (IpField == NULL || FmtField == NULL || BufField == NULL ||
        (IpField->Flags & TRACE_FIELD_ARRAY) ||
        (FmtField->Flags & TRACE_FIELD_ARRAY)) {
        TraceEventRender(Table, Format, Data, Size, Text);
        return;
    }

    //
    // The format: "%ps: " and the printk_formats text, or a note that the
    // file lacks it.
    //

    Args[0].Value = 0;
    Args[0].String = NULL;
    Args[0].Length = 0;
    TraceEventFieldNumber(IpField, Data, Size, &Args[0].Value);
    TraceEventFieldNumber(FmtField, Data, Size, &FmtAddress);

    if (!TraceEventFindPrintk(Table, FmtAddress, &Printk, &PrintkLength)) {
        MissingText.Buffer = Missing;
        MissingText.Length = 0;
        MissingText.Capacity = sizeof(Missing);
        AppendString(&MissingText, "(NO FORMAT FOUND at ");
        AppendHex(&MissingText, FmtAddress, FALSE);
        AppendString(&MissingText, ")\\n");
        Printk = Missing;
        PrintkLength = MissingText.Length;
    }

    Count = ReadBprintArgs(Table, Printk, Printk + PrintkLength, Data, Size,
                           BufField->Offset, Args, 1);

    PrintBprintSymbol(Text, Table, Args[0].Value, FALSE);
    TraceTextAppend(Text, ": ", 2);
    if (!PrintBprintFormat(Text, Table, Printk, Printk + PrintkLength,
                           Args + 1, Count - 1)) {
        Format->BprintFailed = TRUE;
    }
}

static
BOOL
IsPrintable(
    const BYTE *Bytes,
    ULONG Length
    )
{
    ULONG Index;

    for (Index = 0; Index < Length && Bytes[Index] != 0; Index++) {
        BYTE Byte = Bytes[Index];

        if (!((Byte >= 0x20 && Byte < 0x7f) ||
              (Byte >= '\t' && Byte <= '\r'))) {
            return FALSE;
        }
    }
    return TRUE;
}

VOID
TraceEventRenderFields(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    const BYTE *Data,
    ULONG Size,
    PTRACE_TEXT Text
    )
/*++

Routine Description:

    Prints " name=value" for every non-common field the way libtraceevent
    prints raw fields: strings as text, other arrays as ARRAY[xx, yy],
    pointers and longs in hex, signed numbers in decimal.

--*/
{
    ULONG Index;

    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        PCTRACE_EVENT_FIELD Field = &Format->Fields[Index];
        ULONGLONG Value;

        if (Field->Flags & TRACE_FIELD_COMMON) {
            continue;
        }

        TraceTextAppendChar(Text, ' ');
        AppendString(Text, Field->Name);
        TraceTextAppendChar(Text, '=');

        if (Field->Flags & TRACE_FIELD_ARRAY) {
            ULONG Offset;
            ULONG Length;
            ULONG Byte;

            if (Field->Flags & TRACE_FIELD_DYNAMIC) {
                DynamicLocation(Field, Data, Size, &Offset, &Length);
            } else {
                Offset = Field->Offset;
                Length = Field->Size;
            }
            if (Offset > Size) {
                Offset = Size;
            }
            if (Length > Size - Offset) {
                Length = Size - Offset;
            }

            if ((Field->Flags & TRACE_FIELD_STRING) &&
                IsPrintable(Data + Offset, Length)) {
                TraceTextAppend(Text, (PCSZ)Data + Offset,
                                BoundedLength((PCSZ)Data + Offset, Length));
                continue;
            }

            AppendString(Text, "ARRAY[");
            for (Byte = 0; Byte < Length; Byte++) {
                if (Byte != 0) {
                    TraceTextAppend(Text, ", ", 2);
                }
                TraceTextAppendChar(Text,
                                    "0123456789abcdef"[Data[Offset + Byte] >> 4]);
                TraceTextAppendChar(Text,
                                    "0123456789abcdef"[Data[Offset + Byte] & 0xf]);
            }
            TraceTextAppendChar(Text, ']');
            continue;
        }

        TraceEventFieldNumber(Field, Data, Size, &Value);

        if (Field->Flags & TRACE_FIELD_POINTER) {
            AppendHex(Text, Value, TRUE);
        } else if (Field->Flags & TRACE_FIELD_SIGNED) {
            switch (Field->Size) {
            case 4:
                if (Field->Flags & TRACE_FIELD_LONG) {
                    TraceTextFormatNumber(Text, "0x%x", 4, -1, -1, Value);
                } else {
                    TraceTextFormatNumber(Text, "%d", 2, -1, -1, Value);
                }
                break;
            case 2:
                TraceTextFormatNumber(Text, "%2hd", 4, -1, -1, Value);
                break;
            case 1:
                TraceTextFormatNumber(Text, "%1hhd", 5, -1, -1, Value);
                break;
            default:
                TraceTextFormatNumber(Text, "%lld", 4, -1, -1, Value);
                break;
            }
        } else if (Field->Flags & TRACE_FIELD_LONG) {
            AppendHex(Text, Value, TRUE);
        } else {
            TraceTextFormatNumber(Text, "%llu", 4, -1, -1, Value);
        }
    }
}
