/*++

Module Name:

    TraceEventPrintParse.c

Abstract:

    The argument parser of print fmt: expressions built into PRINT_ARG
    trees the way libtraceevent builds them, the helper functions
    (__print_flags, __get_str, ...), casts and sizeof, and the constant
    evaluation of __print_flags / __print_symbolic tables.

Environment:

    Core: no C runtime, no OS service (memory from the event table's
    arena).  Owns the
    tree of one argument.  Calls TraceEventPrintLex.c and the event model
    (fields, kallsyms, type sizes).

--*/

#include "TraceEventPrintInternal.h"

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
                 PrintLenientNumber(Arg->Text, Arg->Length) : 0;
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
            *Value = PrintLenientNumber(Arg->Text, Arg->Length);
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

ULONGLONG
PrintCastMask(
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

    if (PrintTokenIs(Parser, "REC")) {
        PrintNextToken(Parser);
        if (!PrintExpect(Parser, "->")) {
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
    PrintNextToken(Parser);
    return TRUE;
}

static
BOOL
ParseArgWithOps(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
{
    if (!PrintParseArgToken(Parser, Arg)) {
        return FALSE;
    }
    while (PrintIsOperatorToken(Parser) && !PrintTokenIs(Parser, ":") &&
           !PrintTokenIs(Parser, "}") && !PrintTokenIs(Parser, "]")) {
        if (!PrintParseOp(Parser, Arg)) {
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
        PPRINT_ARG Value = PrintNewArg(Parser, ArgAtom);
        PPRINT_ARG Name = PrintNewArg(Parser, ArgAtom);

        if (Value == NULL || Name == NULL || Count == ARRAYSIZE(Symbols) ||
            !PrintExpect(Parser, "{") || !ParseArgWithOps(Parser, Value) ||
            !PrintExpect(Parser, ",") ||
            !TableValue(Value, &Symbols[Count].Value) ||
            !PrintParseArgToken(Parser, Name) || !PrintExpect(Parser, "}") ||
            !TableText(Parser, Name, &Symbols[Count].Text,
                       &Symbols[Count].Length)) {
            return FALSE;
        }
        Count++;
        if (!PrintTokenIs(Parser, ",")) {
            break;
        }
        PrintNextToken(Parser);
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
ParseDynamicHelper(
    PPARSER Parser,
    PPRINT_ARG Arg,
    PCSZ Name,
    ULONG NameLength
    )
/*++

Routine Description:

    __get_str(field), __get_dynamic_array(field) and their _len, bitmask,
    cpumask and __rel_ forms: the argument is a field of the event.

--*/
{
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
    return TRUE;
}

static
BOOL
ParsePrintFlags(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    __print_flags(value, "delimiter", { flag, "name" }, ...): the
    delimiter may be several adjacent strings, a name or a number.

--*/
{
    Arg->Type = ArgFlags;
    Arg->A = PrintNewArg(Parser, ArgAtom);
    if (Arg->A == NULL || !ParseArgWithOps(Parser, Arg->A) ||
        !PrintExpect(Parser, ",")) {
        return FALSE;
    }
    if (Parser->Token.Type == TokenString) {
        PCSZ Start = Parser->Token.Start;
        PCSZ End = Parser->Token.End;

        PrintNextToken(Parser);
        while (Parser->Token.Type == TokenString) {
            End = Parser->Token.End;
            PrintNextToken(Parser);
        }
        if (!PrintUnescape(Parser, Start, End, &Arg->Text, &Arg->Length)) {
            return FALSE;
        }
    } else if (Parser->Token.Type == TokenIdent ||
               Parser->Token.Type == TokenNumber) {
        Arg->Text = Parser->Token.Start;
        Arg->Length = (ULONG)(Parser->Token.End - Parser->Token.Start);
        PrintNextToken(Parser);
    }
    return PrintExpect(Parser, ",") && ParseFields(Parser, Arg);
}

static
BOOL
ParseSizeof(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    sizeof(type): a number atom, the type's size in the recording
    (TraceEventTypeSize); an unknown type fails the compilation.

--*/
{
    PCSZ Start = Parser->Token.Start;
    PCSZ End = Start;
    CHAR Type[64];
    ULONG Length = 0;
    ULONG Size;

    while (Parser->Token.Type == TokenIdent || PrintTokenIs(Parser, "*")) {
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
        PrintNextToken(Parser);
    }
    Size = TraceEventTypeSize(Type, Length, Parser->Table->LongSize, FALSE);
    if (Size == 0 || End == Start) {
        return FALSE;
    }
    Arg->Type = ArgAtom;
    Arg->Flags = ATOM_NUMERIC;
    Arg->Text = Size == 1 ? "1" : Size == 2 ? "2" : Size == 4 ? "4" : "8";
    Arg->Length = 1;
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
    if (!PrintExpect(Parser, "(")) {
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

        if (!ParseDynamicHelper(Parser, Arg, Name, NameLength)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "__print_flags") ||
               TextEquals(Name, NameLength, "__print_flags_u64")) {

        if (!ParsePrintFlags(Parser, Arg)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "__print_symbolic") ||
               TextEquals(Name, NameLength, "__print_symbolic_u64")) {

        Arg->Type = ArgSymbolic;
        Arg->A = PrintNewArg(Parser, ArgAtom);
        if (Arg->A == NULL || !ParseArgWithOps(Parser, Arg->A) ||
            !PrintExpect(Parser, ",") || !ParseFields(Parser, Arg)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "__print_hex") ||
               TextEquals(Name, NameLength, "__print_hex_str") ||
               TextEquals(Name, NameLength, "__print_array")) {

        BOOL Array = TextEquals(Name, NameLength, "__print_array");

        Arg->Type = Array ? ArgIntArray :
                    (NameLength == 15 ? ArgHexStr : ArgHex);
        Arg->A = PrintNewArg(Parser, ArgAtom);
        Arg->B = PrintNewArg(Parser, ArgAtom);
        if (Arg->A == NULL || Arg->B == NULL ||
            !PrintParseArgToken(Parser, Arg->A) || !PrintExpect(Parser, ",") ||
            !PrintParseArgToken(Parser, Arg->B)) {
            return FALSE;
        }
        if (Array) {
            Arg->C = PrintNewArg(Parser, ArgAtom);
            if (Arg->C == NULL || !PrintExpect(Parser, ",") ||
                !PrintParseArgToken(Parser, Arg->C)) {
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
        Arg->A = PrintNewArg(Parser, ArgAtom);
        if (Arg->A == NULL || !PrintParseArgToken(Parser, Arg->A)) {
            return FALSE;
        }

    } else if (TextEquals(Name, NameLength, "sizeof")) {

        if (!ParseSizeof(Parser, Arg)) {
            return FALSE;
        }

    } else {
        return FALSE;
    }

    return PrintExpect(Parser, ")");
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
    PPRINT_ARG Item = PrintNewArg(Parser, ArgAtom);

    PrintNextToken(Parser);
    if (Item == NULL || !PrintParseArgToken(Parser, Item)) {
        return FALSE;
    }
    if (PrintIsOperatorToken(Parser) && !PrintParseOp(Parser, Item)) {
        return FALSE;
    }
    if (!PrintExpect(Parser, ")")) {
        return FALSE;
    }

    if (Parser->Token.Type == TokenIdent ||
        Parser->Token.Type == TokenNumber ||
        Parser->Token.Type == TokenString || PrintTokenIs(Parser, "(")) {

        PPRINT_ARG Operand;

        if (Item->Type != ArgAtom) {
            return FALSE;
        }
        Operand = PrintNewArg(Parser, ArgAtom);
        if (Operand == NULL || !PrintParseArgToken(Parser, Operand)) {
            return FALSE;
        }
        Arg->Type = ArgCast;
        Arg->Text = Item->Text;
        Arg->Length = Item->Length;
        Arg->Value = PrintCastMask(Item->Text, Item->Length);
        Arg->A = Operand;
        return TRUE;
    }

    *Arg = *Item;
    return TRUE;
}

BOOL
PrintParseArgToken(
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

    if (PrintTokenIs(Parser, "REC")) {
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

        PrintNextToken(Parser);
        if (!Numeric && PrintTokenIs(Parser, "(")) {
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
                PrintNextToken(Parser);
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

        PrintNextToken(Parser);
        while (Token->Type == TokenString) {
            End = Token->End;
            PrintNextToken(Parser);
        }
        Arg->Type = ArgAtom;
        Arg->Flags = 0;
        Result = PrintUnescape(Parser, Start, End, &Arg->Text, &Arg->Length);

    } else if (PrintTokenIs(Parser, "(")) {
        Result = ParseParen(Parser, Arg);

    } else if (PrintTokenIs(Parser, "-") || PrintTokenIs(Parser, "+") ||
               PrintTokenIs(Parser, "!") || PrintTokenIs(Parser, "~")) {

        //
        // A unary operator: a node with no left side, then its operand
        // and whatever operators follow.
        //

        Arg->Type = ArgOp;
        Arg->Op = PrintTokenOp(Parser);
        Arg->Priority = 0;
        Arg->A = NULL;
        Arg->B = NULL;
        Result = PrintParseOp(Parser, Arg);
    }

End:
    Parser->Depth--;
    return Result;
}

static
BOOL
ParseTernary(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    PrintParseOp at a '?': Arg becomes the ternary, its condition what
    was parsed so far; the true branch takes operators up to the ':', the
    false branch is one primary.

--*/
{
    PPRINT_ARG Left;
    PPRINT_ARG True;
    PPRINT_ARG False;

    Left = PrintCopyArg(Parser, Arg);
    True = PrintNewArg(Parser, ArgAtom);
    False = PrintNewArg(Parser, ArgAtom);
    if (Left == NULL || True == NULL || False == NULL) {
        return FALSE;
    }
    Arg->Type = ArgTernary;
    Arg->Priority = 0;
    Arg->A = Left;
    Arg->B = True;
    Arg->C = False;

    PrintNextToken(Parser);
    if (!PrintParseArgToken(Parser, True)) {
        return FALSE;
    }
    while (PrintIsOperatorToken(Parser) && !PrintTokenIs(Parser, ":")) {
        if (!PrintParseOp(Parser, True)) {
            return FALSE;
        }
    }
    return PrintExpect(Parser, ":") && PrintParseArgToken(Parser, False);
}

static
BOOL
ParseIndex(
    PPARSER Parser,
    PPRINT_ARG Arg
    )
/*++

Routine Description:

    PrintParseOp at a '[': Arg becomes the index of an array field or a
    dynamic array (through casts) by one primary.

--*/
{
    PPRINT_ARG Left;
    PPRINT_ARG Index;
    PPRINT_ARG Base;

    Left = PrintCopyArg(Parser, Arg);
    Index = PrintNewArg(Parser, ArgAtom);
    if (Left == NULL || Index == NULL) {
        return FALSE;
    }
    Arg->Type = ArgIndex;
    Arg->Priority = 0;
    Arg->A = Left;
    Arg->B = Index;

    PrintNextToken(Parser);
    if (!PrintParseArgToken(Parser, Index) || !PrintExpect(Parser, "]")) {
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
    return TRUE;
}

static
BOOL
JoinPointerType(
    PPARSER Parser,
    PPRINT_ARG Arg,
    PPRINT_ARG Left
    )
/*++

Routine Description:

    "(type *)": the '*' parsed as a multiplication belongs to the type;
    Arg becomes the atom "type *".

--*/
{
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
    return TRUE;
}

BOOL
PrintParseOp(
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

        PrintNextToken(Parser);
        Right = PrintNewArg(Parser, ArgAtom);
        if (Right == NULL || !PrintParseArgToken(Parser, Right)) {
            return FALSE;
        }
        Arg->B = Right;

    } else if (PrintTokenIs(Parser, "?")) {
        if (!ParseTernary(Parser, Arg)) {
            return FALSE;
        }

    } else if (PrintTokenIs(Parser, "[")) {
        if (!ParseIndex(Parser, Arg)) {
            return FALSE;
        }

    } else {
        PRINT_OP Op = PrintTokenOp(Parser);

        if (Op == OpNone || Op == OpNot || Op == OpBitNot) {
            return FALSE;
        }

        Left = PrintCopyArg(Parser, Arg);
        if (Left == NULL) {
            return FALSE;
        }
        Arg->Type = ArgOp;
        Arg->Op = Op;
        Arg->Priority = PrintOpPriority(Op);
        Arg->A = Left;
        Arg->B = NULL;

        PrintNextToken(Parser);

        //
        // "(type *)": the '*' belongs to the type.
        //

        if (Op == OpMul && PrintTokenIs(Parser, ")")) {
            if (!JoinPointerType(Parser, Arg, Left)) {
                return FALSE;
            }
            Parser->Depth--;
            return TRUE;
        }

        Right = PrintNewArg(Parser, ArgAtom);
        if (Right == NULL || !PrintParseArgToken(Parser, Right)) {
            return FALSE;
        }

        if (PrintIsOpNode(Right) &&
            PrintOpPriority(Op) < PrintNodePriority(Right)) {
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

    if (PrintIsOperatorToken(Parser) && !PrintTokenIs(Parser, ":")) {
        if (PrintTokenPriority(Parser) > Arg->Priority) {
            return PrintParseOp(Parser, Arg);
        }
        if (Right == NULL) {
            return FALSE;
        }
        return PrintParseOp(Parser, Right);
    }

    return TRUE;
}
