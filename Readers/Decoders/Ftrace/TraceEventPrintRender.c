/*++

Module Name:

    TraceEventPrintRender.c

Abstract:

    Rendering one event record: argument trees evaluated over the record
    (unsigned 64-bit, libtraceevent's rules), %s of every kind of
    argument, pointers, and the "field=value" text of an event whose
    print fmt is not compiled.

Environment:

    Core: no C runtime, no OS service (the caller's text buffer).  Owns
    nothing beyond one call.  Calls TraceEventPrintCompile.c,
    TraceEventPrintText.c and the event model (fields, kallsyms).

--*/

#include "TraceEventPrintInternal.h"

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

ULONGLONG
PrintEvaluate(
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
            return (ULONGLONG)PrintLenientNumber(Arg->Text, Arg->Length);
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
        Left = PrintEvaluate(Arg->A, Table, Data, Size);
        Right = PrintEvaluate(Arg->B, Table, Data, Size);
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
        return PrintEvaluate(Arg->A, Table, Data, Size) ?
               PrintEvaluate(Arg->B, Table, Data, Size) :
               PrintEvaluate(Arg->C, Table, Data, Size);

    case ArgCast:
        Left = PrintEvaluate(Arg->A, Table, Data, Size);
        return Arg->Value != 0 ? (Left & Arg->Value) : Left;

    case ArgIndex: {
        ULONGLONG Index = PrintEvaluate(Arg->B, Table, Data, Size);
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
            ULONGLONG Mask = PrintCastMask(Cast->Text, Cast->Length - 2);
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
        Left = PrintEvaluate(Arg->A, Table, Data, Size);
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
        PrintParseSpec(Item->Spec, Item->SpecLength, Star, &Spec);
        PrintFormatStringWithSpec(Text, &Spec, String, Length);
        return;
    }
    PrintFormatStringWithSpec(Text, &Item->Parsed, String, Length);
}

ULONG
PrintBoundedLength(
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
        PrintAppendDecimal(&List, Start);
        if (Bit - 1 > Start) {
            TraceTextAppendChar(&List, '-');
            PrintAppendDecimal(&List, Bit - 1);
        }
    }
    PrintPiece(Text, Item, Star, Buffer, List.Length);
}

static
VOID
PrintFieldString(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PPRINT_ITEM Item,
    LONG Star,
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size
    )
/*++

Routine Description:

    %s of a field: the characters of an array, or the trace_printk string
    (else the address in hex) a long-sized field points to.

--*/
{
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
            PrintAppendHex(Text, Address, FALSE);
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
               PrintBoundedLength((PCSZ)Data + Field->Offset, Length));
}

static
VOID
PrintFlags(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PPRINT_ITEM Item,
    LONG Star,
    PPRINT_ARG Arg,
    const BYTE *Data,
    ULONG Size
    )
/*++

Routine Description:

    __print_flags: the names of the flags set, in table order, separated
    by the delimiter, then what no flag covers in hex.  A value of 0 is
    named by the first flag of negative value (an unresolved enum name).

--*/
{
    ULONG Index;
    LONGLONG Value = (LONGLONG)PrintEvaluate(Arg->A, Table, Data, Size);
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
        PrintAppendHex(Text, (ULONGLONG)Value, TRUE);
    }
}

static
VOID
PrintHexOrArray(
    PTRACE_TEXT Text,
    PTRACE_EVENT_TABLE Table,
    PPRINT_ARG Arg,
    const BYTE *Data,
    ULONG Size
    )
/*++

Routine Description:

    __print_hex (bytes separated by blanks), __print_hex_str (bytes run
    together) and __print_array ({0x..,0x..} of 1, 2, 4 or 8-byte
    elements) of a field or a dynamic array.

--*/
{
    ULONG Index;
    ULONG Offset;
    ULONG Available;
    ULONGLONG Count = PrintEvaluate(Arg->B, Table, Data, Size);

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
        ULONGLONG ElementSize = PrintEvaluate(Arg->C, Table, Data, Size);
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
                PrintAppendString(Text, "BAD SIZE:");
                PrintAppendDecimal(Text, ElementSize);
                TraceTextAppendChar(Text, ' ');
            }
            PrintAppendHex(Text,
                           TraceEventReadNumber(Data + Offset + Consumed,
                                                Width), TRUE);
            Consumed += Width;
        }
        TraceTextAppendChar(Text, '}');
    }
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

    case ArgField:
        PrintFieldString(Text, Table, Item, Star, Arg->Field, Data, Size);
        return;

    case ArgGetStr: {
        ULONG Offset;
        ULONG Length;

        DynamicLocation(Arg->Field, Data, Size, &Offset, &Length);
        if (Length == 0 || Offset >= Size) {
            return;
        }
        PrintPiece(Text, Item, Star, (PCSZ)Data + Offset,
                   PrintBoundedLength((PCSZ)Data + Offset, Size - Offset));
        return;
    }

    case ArgFlags:
        PrintFlags(Text, Table, Item, Star, Arg, Data, Size);
        return;

    case ArgSymbolic: {
        LONGLONG Value = (LONGLONG)PrintEvaluate(Arg->A, Table, Data, Size);

        for (Index = 0; Index < Arg->SymbolCount; Index++) {
            if (Arg->Symbols[Index].Value == Value) {
                PrintPiece(Text, Item, Star, Arg->Symbols[Index].Text,
                           Arg->Symbols[Index].Length);
                return;
            }
        }
        PrintAppendHex(Text, (ULONGLONG)Value, TRUE);
        return;
    }

    case ArgHex:
    case ArgHexStr:
    case ArgIntArray:
        PrintHexOrArray(Text, Table, Arg, Data, Size);
        return;

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
                       PrintEvaluate(Arg->A, Table, Data, Size) ? Arg->B : Arg->C,
                       Data, Size);
        return;

    case ArgFunction: {
        ULONGLONG Value = PrintEvaluate(Arg->A, Table, Data, Size);

        //
        // What the helper prints, whatever the conversion's width.
        //

        if (Arg->Value == FUNCTION_JIFFIES_TO_MSECS) {
            TraceTextAppendDecimal(Text, Value, TRUE);
        } else {
            PrintAppendDecimal(Text, (ULONG)Value >> 20);
            TraceTextAppendChar(Text, ':');
            PrintAppendDecimal(Text, (ULONG)Value & 0xfffff);
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
        Value = PrintEvaluate(Item->Arg, Table, Data, Size);
        if (Table->LongSize == 4) {
            Value &= 0xffffffffULL;
        }
        if (TraceEventFindSymbol(Table, Value, &Name, &NameLength, &Start)) {
            TraceTextAppend(Text, Name, NameLength);
            if (Item->PointerKind == 'F' || Item->PointerKind == 'S') {
                TraceTextAppend(Text, "+0x", 3);
                PrintAppendHex(Text, Value - Start, FALSE);
            }
        } else {
            PrintAppendHex(Text, Value, TRUE);
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
            PrintAppendString(Text, "INVALIDMAC");
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

        Value = PrintEvaluate(Item->Arg, Table, Data, Size);
        if (Value == 0) {
            PrintAppendString(Text, "(nil)");
        } else {
            PrintAppendHex(Text, Value, TRUE);
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
            Star = (LONG)PrintEvaluate(Item->StarArg, Table, Data, Size);
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
                                      PrintEvaluate(Item->Arg, Table, Data, Size));
            } else {
                PrintFormatNumberWithSpec(Text, &Item->Parsed,
                                          PrintEvaluate(Item->Arg, Table, Data,
                                                   Size));
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
        PrintCompile(Table, Format);
    }
    return Format->PrintState == TRACE_PRINT_STATE_READY;
}

//
// The tables of __print_flags and __print_symbolic, as perf's scripting
// engine walks an event's print args to define them for flag_str and
// symbol_str (trace-event-python.c, define_event_symbols): the field last
// met names the table; an atom met defines the name of flag value 0 (so
// sched_switch's prev_state 0 is "R"); a dynamic array, a function, a
// bitmask or a cpumask ends the walk of the list it is in.
//

typedef struct _PRINT_DEFINE_WALK {
    PTRACE_PRINT_DEFINE_ROUTINE Define;
    PVOID Context;
    PCSZ Field;
} PRINT_DEFINE_WALK, *PPRINT_DEFINE_WALK;

static
BOOL
DefineTables(
    PPRINT_DEFINE_WALK Walk,
    const PRINT_ARG *Arg,
    ULONG Depth
    )
/*++

Return Value:

    FALSE where perf's walk stops (the rest of the list is not walked).

--*/
{
    ULONG Index;
    BOOL Flags;

    if (Arg == NULL || Depth > MAX_DEPTH) {
        return TRUE;
    }
    switch (Arg->Type) {
    case ArgAtom:
        if (Walk->Field != NULL) {
            Walk->Define(Walk->Context, TracePrintFlagValue, Walk->Field,
                         Arg->Text, Arg->Length, 0);
        }
        return TRUE;
    case ArgField:
        Walk->Field = Arg->Field != NULL ? Arg->Field->Name : NULL;
        return TRUE;
    case ArgFlags:
    case ArgSymbolic:
        Flags = Arg->Type == ArgFlags;
        DefineTables(Walk, Arg->A, Depth + 1);
        if (Walk->Field == NULL) {
            return TRUE;
        }
        Walk->Define(Walk->Context,
                     Flags ? TracePrintFlagField : TracePrintSymbolicField,
                     Walk->Field, Flags ? Arg->Text : NULL,
                     Flags ? Arg->Length : 0, 0);
        for (Index = 0; Index < Arg->SymbolCount; Index++) {
            Walk->Define(Walk->Context,
                         Flags ? TracePrintFlagValue : TracePrintSymbolicValue,
                         Walk->Field, Arg->Symbols[Index].Text,
                         Arg->Symbols[Index].Length,
                         Arg->Symbols[Index].Value);
        }
        return TRUE;
    case ArgHex:
    case ArgHexStr:
    case ArgIntArray:
    case ArgOp:
    case ArgTernary:
    case ArgCast:
    case ArgIndex:
        DefineTables(Walk, Arg->A, Depth + 1);
        DefineTables(Walk, Arg->B, Depth + 1);
        DefineTables(Walk, Arg->C, Depth + 1);
        return TRUE;
    case ArgGetStr:
        return TRUE;
    default:
        return FALSE;
    }
}

BOOL
TraceEventPrintTables(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    PTRACE_PRINT_DEFINE_ROUTINE Define,
    PVOID Context
    )
{
    PRINT_DEFINE_WALK Walk;
    ULONG Index;

    if (!EnsureCompiled(Table, Format)) {
        return FALSE;
    }
    Walk.Define = Define;
    Walk.Context = Context;
    Walk.Field = NULL;
    for (Index = 0; Index < Format->Print->Count; Index++) {
        const PRINT_ITEM *Item = &Format->Print->Items[Index];

        if (Item->Kind == ItemLiteral) {
            continue;
        }
        if (!DefineTables(&Walk, Item->StarArg, 0) ||
            !DefineTables(&Walk, Item->Arg, 0)) {
            break;
        }
    }
    return TRUE;
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
        PrintAppendString(Text, Field->Name);
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
                                PrintBoundedLength((PCSZ)Data + Offset,
                                                   Length));
                continue;
            }

            PrintAppendString(Text, "ARRAY[");
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
            PrintAppendHex(Text, Value, TRUE);
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
            PrintAppendHex(Text, Value, TRUE);
        } else {
            TraceTextFormatNumber(Text, "%llu", 4, -1, -1, Value);
        }
    }
}
