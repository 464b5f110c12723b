/*++

Module Name:

    TraceEventPrintBprint.c

Abstract:

    trace_printk's bprint event: the format found in printk_formats, the
    arguments vbin_printf stored read the way trace-cmd report reads
    them, and the text printed the way it prints it.

Environment:

    Core: no C runtime, no OS service (the caller's text buffer).  Owns the
    bprint argument walk.  Calls TraceEventPrintText.c and the event
    model (printk formats, kallsyms).

--*/

#include "TraceEventPrintInternal.h"

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
                    Length = PrintBoundedLength((PCSZ)Data + Offset,
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
            PrintAppendHex(Text, Value - Start, FALSE);
        }
    } else {
        PrintAppendHex(Text, Value, TRUE);
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

    PrintParseSpec(Spec, SpecLength, Star, &Parsed);

    if (Kind == 'd') {
        if (Ls < -2 || Ls > 2) {
            return;
        }
        PrintFormatNumberWithSpec(Text, &Parsed,
                                  Arg->String != NULL ? 0 : Arg->Value);
        return;
    }

    if (Kind == 's') {
        if (Arg->String != NULL) {
            PrintFormatStringWithSpec(Text, &Parsed, Arg->String, Arg->Length);
        } else {
            CHAR Buffer[24];
            TRACE_TEXT Decimal;

            Decimal.Buffer = Buffer;
            Decimal.Length = 0;
            Decimal.Capacity = sizeof(Buffer);
            TraceTextAppendDecimal(&Decimal, Arg->Value, TRUE);
            PrintFormatStringWithSpec(Text, &Parsed, Buffer, Decimal.Length);
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
            PrintAppendString(Text, "ARG TYPE NOT FIELD BUT 1");
            return;
        case 'M':
        case 'm':
        case 'U':
        case 'h':
            PrintAppendString(Text, "ARG TYPE NOT FIELD BUT 1");
            return;
        default:
            if (Arg->Value == 0) {
                PrintAppendString(Text, "(nil)");
            } else {
                PrintAppendHex(Text, Arg->Value, TRUE);
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
            CHAR Char;

            if (!PrintLiteralChar(&Cursor, End, &Char)) {
                break;
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
        PrintAppendString(Text, "[FAILED TO PARSE]");
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
        PrintAppendString(&MissingText, "(NO FORMAT FOUND at ");
        PrintAppendHex(&MissingText, FmtAddress, FALSE);
        PrintAppendString(&MissingText, ")\\n");
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
