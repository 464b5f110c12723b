/*++

Module Name:

    TraceEventPrintCompile.c

Abstract:

    Compiling an event's print fmt: the format string split into literal
    text and conversions, each bound to its argument tree, on the
    event's first use.

Environment:

    Core: no C runtime, no OS service (memory from the event table's
    arena).  Owns
    PRINT_FORMAT (an event's compiled print fmt).  Calls
    TraceEventPrintParse.c and TraceEventPrintText.c.

--*/

#include "TraceEventPrintInternal.h"

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
                PrintParseSpec(Item->Spec, Item->SpecLength, 0, &Item->Parsed);
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
                CHAR Char;

                if (!PrintLiteralChar(&Cursor, End, &Char)) {
                    break;
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

BOOL
PrintCompile(
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
    PrintNextToken(&Parser);

    if (Parser.Token.Type != TokenString) {
        return FALSE;
    }
    FormatStart = Parser.Token.Start;
    FormatEnd = Parser.Token.End;
    PrintNextToken(&Parser);
    while (Parser.Token.Type == TokenString) {
        FormatEnd = Parser.Token.End;
        PrintNextToken(&Parser);
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

    while (PrintTokenIs(&Parser, ",")) {
        PrintNextToken(&Parser);
        if (ArgCount == ARRAYSIZE(Args)) {
            return FALSE;
        }
        Args[ArgCount] = PrintNewArg(&Parser, ArgAtom);
        if (Args[ArgCount] == NULL ||
            !PrintParseArgToken(&Parser, Args[ArgCount])) {
            return FALSE;
        }
        if (PrintIsOperatorToken(&Parser) &&
            !PrintParseOp(&Parser, Args[ArgCount])) {
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
