/*++

Module Name:

    TraceEventPrintLex.c

Abstract:

    The tokenizer of print fmt arguments (C numbers, names, strings,
    operators), libtraceevent's operator priorities, and copies of
    argument trees.

Environment:

    Core: no C runtime, no OS service (memory from the event table's
    arena).  Owns the
    PARSER's token.  Calls the event table's arena (TraceEvent.h).

--*/

#include "TraceEventPrintInternal.h"

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

VOID
PrintNextToken(
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

BOOL
PrintTokenIs(
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

BOOL
PrintExpect(
    PPARSER Parser,
    PCSZ Literal
    )
{
    if (!PrintTokenIs(Parser, Literal)) {
        Parser->Failed = TRUE;
        return FALSE;
    }
    PrintNextToken(Parser);
    return TRUE;
}

PPRINT_ARG
PrintNewArg(
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

BOOL
PrintUnescape(
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

//
// Operators.  libtraceevent's priorities: a smaller number binds tighter.
//

LONG
PrintOpPriority(
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

PRINT_OP
PrintTokenOp(
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
        if (PrintTokenIs(Parser, Ops[Index].Text)) {
            return Ops[Index].Op;
        }
    }
    return OpNone;
}

BOOL
PrintIsOperatorToken(
    PPARSER Parser
    )
/*++

Routine Description:

    Whether the current token is what libtraceevent's tokenizer calls an
    operator: punctuation other than the delimiters ( ) and ,.

--*/
{
    return Parser->Token.Type == TokenPunct && !PrintTokenIs(Parser, "(") &&
           !PrintTokenIs(Parser, ")") && !PrintTokenIs(Parser, ",");
}

LONG
PrintTokenPriority(
    PPARSER Parser
    )
{
    if (PrintTokenIs(Parser, "?")) {
        return 16;
    }
    return PrintOpPriority(PrintTokenOp(Parser));
}

BOOL
PrintIsOpNode(
    PPRINT_ARG Arg
    )
{
    return Arg->Type == ArgOp || Arg->Type == ArgTernary ||
           Arg->Type == ArgIndex;
}

LONG
PrintNodePriority(
    PPRINT_ARG Arg
    )
{
    if (Arg->Type == ArgTernary) {
        return 16;
    }
    if (Arg->Type == ArgIndex) {
        return -1;
    }
    return PrintOpPriority(Arg->Op);
}

LONGLONG
PrintLenientNumber(
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
        LONG Digit = TextHexValue(Char);

        if (Digit < 0) {
            break;
        }
        if ((ULONG)Digit >= Base) {
            break;
        }
        Value = Value * Base + (ULONG)Digit;
    }

    return (LONGLONG)Value;
}

PPRINT_ARG
PrintCopyArg(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
{
    PPRINT_ARG Copy = PrintNewArg(Parser, ArgAtom);

    if (Copy != NULL) {
        *Copy = *Arg;
    }
    return Copy;
}
