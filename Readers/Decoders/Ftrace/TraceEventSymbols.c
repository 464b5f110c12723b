/*++

Module Name:

    TraceEventSymbols.c

Abstract:

    kallsyms and printk formats for the event table: the kallsyms text
    indexed (sorted by address, on a worker when the reader asks) and
    searched by address or by name, and trace_printk's format strings
    found by the address the kernel stores.

Environment:

    Core: no C runtime; the OS only through PRTL (pages for the symbol
    and printk indexes).  Owns TRACE_SYMBOL_INDEX and the printk index.
    Calls the text helpers of TraceEventInternal.h.

--*/

#include "TraceEventInternal.h"

//
// kallsyms and printk formats.
//

static
BOOL
SymbolBefore(
    PTRACE_SYMBOL Left,
    PTRACE_SYMBOL Right
    )
/*++

Routine Description:

    trace-cmd's order: by address, and at one address the symbol listed
    later in kallsyms first (it registers them in reverse order and sorts
    with glibc's stable merge sort).  NameOffset grows with the line.

--*/
{
    if (Left->Address != Right->Address) {
        return Left->Address < Right->Address;
    }
    return Left->NameOffset > Right->NameOffset;
}

static
VOID
SortSymbols(
    PTRACE_SYMBOL Symbols,
    PTRACE_SYMBOL Scratch,
    ULONG Count
    )
/*++

Routine Description:

    Sorts by SymbolBefore.  kallsyms is mostly in address order already:
    symbols at one address are turned around, and if that leaves the list
    sorted nothing else is done; otherwise a bottom-up merge sort.

--*/
{
    ULONG Width;
    ULONG Index;
    PTRACE_SYMBOL From = Symbols;
    PTRACE_SYMBOL To = Scratch;
    BOOL Sorted = TRUE;

    for (Index = 0; Index < Count; ) {
        ULONG Stop = Index + 1;

        while (Stop < Count && Symbols[Stop].Address == Symbols[Index].Address) {
            Stop++;
        }
        if (Stop - Index > 1) {
            ULONG Low = Index;
            ULONG High = Stop - 1;

            while (Low < High) {
                TRACE_SYMBOL Swap = Symbols[Low];
                Symbols[Low++] = Symbols[High];
                Symbols[High--] = Swap;
            }
        }
        if (Index != 0 && !SymbolBefore(&Symbols[Index - 1], &Symbols[Index])) {
            Sorted = FALSE;
        }
        Index = Stop;
    }

    if (Sorted) {
        return;
    }

    for (Width = 1; Width < Count; Width *= 2) {
        ULONG Start;

        for (Start = 0; Start < Count; Start += 2 * Width) {
            ULONG Middle = Start + Width < Count ? Start + Width : Count;
            ULONG Stop = Start + 2 * Width < Count ? Start + 2 * Width : Count;
            ULONG Left = Start;
            ULONG Right = Middle;
            ULONG Out = Start;

            while (Left < Middle && Right < Stop) {
                if (SymbolBefore(&From[Right], &From[Left])) {
                    To[Out++] = From[Right++];
                } else {
                    To[Out++] = From[Left++];
                }
            }
            while (Left < Middle) {
                To[Out++] = From[Left++];
            }
            while (Right < Stop) {
                To[Out++] = From[Right++];
            }
        }

        {
            PTRACE_SYMBOL Swap = From;
            From = To;
            To = Swap;
        }
    }

    if (From != Symbols) {
        for (Index = 0; Index < Count; Index++) {
            Symbols[Index] = From[Index];
        }
    }
}

static
BOOL
ParseHex64(
    PCSZ *CursorPointer,
    PCSZ End,
    PULONGLONG Value
    )
{
    PCSZ Cursor = *CursorPointer;
    ULONGLONG Number = 0;
    ULONG Digits = 0;

    if (End - Cursor >= 2 && Cursor[0] == '0' &&
        (Cursor[1] == 'x' || Cursor[1] == 'X')) {
        Cursor += 2;
    }
    while (Cursor < End) {
        CHAR Char = *Cursor;
        LONG Digit = TextHexValue(Char);

        if (Digit < 0) {
            break;
        }
        if (Digits == 16) {
            return FALSE;
        }
        Number = (Number << 4) | (ULONG)Digit;
        Digits++;
        Cursor++;
    }

    if (Digits == 0) {
        return FALSE;
    }
    *Value = Number;
    *CursorPointer = Cursor;
    return TRUE;
}

VOID
TraceEventTableSetSymbols(
    PTRACE_EVENT_TABLE Table,
    PCSZ Text,
    SIZE_T Length,
    PVOID Owned,
    SIZE_T OwnedSize
    )
{
    Table->SymbolText = Text;
    Table->SymbolTextLength = Length;
    Table->SymbolTextOwned = Owned;
    Table->SymbolTextOwnedSize = OwnedSize;
}

VOID
TraceEventTableSetPrintk(
    PTRACE_EVENT_TABLE Table,
    PCSZ Text,
    SIZE_T Length
    )
{
    Table->PrintkText = Text;
    Table->PrintkTextLength = Length;
}

static
BOOL
ParseHex16(
    PCSZ Text,
    PULONGLONG Address
    )
/*++

Routine Description:

    Reads exactly 16 hex digits (either case) at Text, eight bytes at a
    time in a 64-bit word.  Checks: no byte has its top bit set (so the
    per-byte additions below cannot carry into the next byte), and each is
    in '0'..'9' or, with 0x20 or'ed in, in 'a'..'f' (x >= Low sets bit 7
    of x + 0x80 - Low; x <= High keeps it clear in x + 0x7f - High).
    Value: each byte's low nibble, plus 9 for a letter (bit 6 set), then
    the nibbles gathered pairwise into bytes, bytes into 16-bit halves
    and halves into the 32-bit value.  FALSE if any of the 16 bytes is
    not a hex digit.

--*/
{
#if defined(__x86_64__)

    //
    // The same with SSE2 (part of x86-64), all 16 digits at once: the
    // digit values, then pairs of nibbles gathered in 16-bit lanes and
    // packed to the 8 bytes of the value, most significant first.
    //

    typedef unsigned char U8X16 __attribute__((vector_size(16)));
    typedef unsigned short U16X8 __attribute__((vector_size(16)));
    typedef char I8X16 __attribute__((vector_size(16)));
    typedef short I16X8 __attribute__((vector_size(16)));
    U8X16 Chars;
    U8X16 Digit;
    U8X16 Letter;
    U8X16 IsDigit;
    U8X16 Nibble;
    U16X8 Lanes;
    U8X16 Packed;
    ULONGLONG Value;

    __builtin_memcpy(&Chars, Text, 16);
    Digit = Chars - (U8X16)(I8X16){'0', '0', '0', '0', '0', '0', '0', '0',
                                   '0', '0', '0', '0', '0', '0', '0', '0'};
    Letter = (Chars | 0x20) - (U8X16)(I8X16){'a', 'a', 'a', 'a', 'a', 'a',
                                             'a', 'a', 'a', 'a', 'a', 'a',
                                             'a', 'a', 'a', 'a'};
    IsDigit = (U8X16)(Digit < 10);
    if (__builtin_ia32_pmovmskb128((I8X16)(IsDigit | (U8X16)(Letter < 6)))
        != 0xffff) {
        return FALSE;
    }
    Nibble = (Digit & IsDigit) | ((Letter + 10) & ~IsDigit);
    Lanes = (U16X8)Nibble;
    Lanes = ((Lanes << 4) & 0xf0) | (Lanes >> 8);
    Packed = (U8X16)__builtin_ia32_packuswb128((I16X8)Lanes, (I16X8)Lanes);
    __builtin_memcpy(&Value, &Packed, 8);
    *Address = __builtin_bswap64(Value);
    return TRUE;

#else

    const ULONGLONG Ones = 0x0101010101010101ULL;
    const ULONGLONG High = 0x8080808080808080ULL;
    ULONGLONG Half[2];
    ULONG Part;

    for (Part = 0; Part < 2; Part++) {
        ULONGLONG Word;
        ULONGLONG Lower;
        ULONGLONG Digit;
        ULONGLONG Letter;

        __builtin_memcpy(&Word, Text + 8 * Part, 8);
        if ((Word & High) != 0) {
            return FALSE;
        }
        Lower = Word | (0x20 * Ones);
        Digit = (Word + (0x80 - '0') * Ones) & ~(Word + (0x7f - '9') * Ones);
        Letter = (Lower + (0x80 - 'a') * Ones) &
                 ~(Lower + (0x7f - 'f') * Ones);
        if (((Digit | Letter) & High) != High) {
            return FALSE;
        }

        Word = (Word & 0x0F0F0F0F0F0F0F0FULL) +
               9 * ((Word >> 6) & 0x0101010101010101ULL);
        Word = ((Word & 0x0F000F000F000F00ULL) >> 8) |
               ((Word & 0x000F000F000F000FULL) << 4);
        Word = ((Word & 0x00FF000000FF0000ULL) >> 16) |
               ((Word & 0x000000FF000000FFULL) << 8);
        Word = ((Word & 0x0000FFFF00000000ULL) >> 32) |
               ((Word & 0x000000000000FFFFULL) << 16);
        Half[Part] = Word;
    }

    *Address = (Half[0] << 32) | Half[1];
    return TRUE;

#endif
}

typedef struct _SYMBOL_ORDER {
    ULONG RunStart;         // first symbol at the newest address
    BOOL Ordered;           // no address below the one before it so far
} SYMBOL_ORDER, *PSYMBOL_ORDER;

static inline
VOID
AddSymbol(
    PTRACE_SYMBOL Symbols,
    ULONG Index,
    PSYMBOL_ORDER Order,
    ULONGLONG Address,
    ULONG NameOffset,
    ULONG NameLength
    )
/*++

Routine Description:

    Appends a symbol in trace-cmd's order as long as kallsyms is in
    address order (it usually is): a symbol at the same address as the
    one before goes to the front of that address's run.  Order->Ordered
    says whether that held throughout; if not, SortSymbols puts the array
    in order (its order is total, so where the runs stand does not
    matter).

--*/
{
    if (Index != 0 && Address == Symbols[Index - 1].Address) {
        ULONG Move;

        for (Move = Index; Move > Order->RunStart; Move--) {
            Symbols[Move] = Symbols[Move - 1];
        }
        Index = Order->RunStart;
    } else {
        if (Index != 0 && Address < Symbols[Index - 1].Address) {
            Order->Ordered = FALSE;
        }
        Order->RunStart = Index;
    }

    Symbols[Index].Address = Address;
    Symbols[Index].NameOffset = NameOffset;
    Symbols[Index].NameLength = NameLength;
}

VOID
TraceEventBuildSymbolIndex(
    PRTL Rtl,
    PCSZ Text,
    SIZE_T Length,
    PTRACE_SYMBOL_INDEX SymbolIndex
    )
/*++

Routine Description:

    Builds the sorted symbol array from kallsyms ("ADDR TYPE NAME [MOD]"
    lines), as trace-cmd does: absolute symbols ('A', 'a') and names
    starting with '$' are left out; symbols are registered in reverse
    order and sorted stably.  On any failure the index is empty (addresses
    print as numbers).  Reads only Text and writes only *SymbolIndex and
    the pages it allocates.

--*/
{
    PCSZ End = Text + Length;
    PCSZ Cursor;
    ULONG Count = 0;
    ULONG Index;
    SIZE_T Bytes;
    PTRACE_SYMBOL Symbols;
    SYMBOL_ORDER Order = { 0, TRUE };

    SymbolIndex->Symbols = NULL;
    SymbolIndex->NumberOfSymbols = 0;
    SymbolIndex->Bytes = 0;

    if (Text == NULL || Length >= 0xffffffffULL || Length < 4) {
        return;
    }

    //
    // A line is at least "0 t x\n": an upper bound on the symbols, without
    // a pass to count lines (untouched pages cost nothing).
    //

    Count = (ULONG)(Length / 6) + 1;
    Bytes = (SIZE_T)ALIGN_UP((SIZE_T)Count * sizeof(TRACE_SYMBOL) * 2,
                             RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, (PVOID *)&Symbols))) {
        return;
    }

    //
    // Fault in, with one call, the part a usual kallsyms fills (lines of
    // 32 bytes or more) instead of page by page.
    //

    {
        SIZE_T Likely = (SIZE_T)ALIGN_UP((Length / 32 + 1) *
                                         sizeof(TRACE_SYMBOL),
                                         RTL_PAGE_SIZE);

        Rtl->PrefaultMemory(Rtl, Symbols, Likely < Bytes ? Likely : Bytes);
    }

    //
    // "ADDRESS TYPE NAME[\t[MODULE]]" lines.
    //

    Index = 0;
    for (Cursor = Text; Cursor < End; ) {
        ULONGLONG Address = 0;
        ULONG Digits = 0;
        PCSZ Name;
        PCSZ NameEnd;
        CHAR Type;

        //
        // The usual line of a 64-bit kernel, "%016lx %c NAME\n" or with
        // "\t[MODULE]" after the name, in one pass; anything else (a
        // shorter address, blanks in or after the name, the last line
        // without a newline) takes the general path below, which gives
        // the same result for these lines too.
        //

        if (End - Cursor >= 20 && Cursor[16] == ' ' && Cursor[18] == ' ' &&
            ParseHex16(Cursor, &Address)) {
            PCSZ Stop;

            Name = Cursor + 19;
            Stop = TextFindBlank(Name, End);
            if (Stop < End && (*Stop == '\n' || *Stop == '\t')) {
                Type = Cursor[17];
                NameEnd = Stop;
                Cursor = (*Stop == '\n') ? Stop + 1 :
                                            LineEnd(Stop, End) + 1;
                if (NameEnd == Name || Name[0] == '$' || Type == 'A' ||
                    Type == 'a' || Index == Count) {
                    continue;
                }
                AddSymbol(Symbols, Index, &Order, Address,
                          (ULONG)(Name - Text), (ULONG)(NameEnd - Name));
                Index++;
                continue;
            }
            Address = 0;
        }

        for (; Cursor < End; Cursor++) {
            ULONG Digit = (ULONG)(BYTE)*Cursor - '0';

            if (Digit >= 10) {
                Digit = ((ULONG)(BYTE)*Cursor | 0x20) - 'a';
                if (Digit >= 6) {
                    break;
                }
                Digit += 10;
            }
            Address = (Address << 4) | Digit;
            Digits++;
        }

        if (Digits == 0 || Digits > 16 || End - Cursor < 4 ||
            Cursor[0] != ' ' || Cursor[2] != ' ') {
            Cursor = LineEnd(Cursor, End) + 1;
            continue;
        }

        //
        // The name runs to the line end or to the tab before "[module]".
        //

        Type = Cursor[1];
        Name = Cursor + 3;
        Cursor = LineEnd(Name, End);
        NameEnd = TextTrimEnd(Name, TextFindChar(Name, Cursor, '\t'));
        Cursor++;
        if (TextFindChar(Name, NameEnd, ' ') != NameEnd) {
            continue;
        }

        if (NameEnd == Name || Name[0] == '$' || Type == 'A' ||
            Type == 'a' || Index == Count) {
            continue;
        }

        AddSymbol(Symbols, Index, &Order, Address, (ULONG)(Name - Text),
                  (ULONG)(NameEnd - Name));
        Index++;
    }

    if (!Order.Ordered) {
        SortSymbols(Symbols, Symbols + Index, Index);
    }

    SymbolIndex->Symbols = Symbols;
    SymbolIndex->Bytes = Bytes;
    SymbolIndex->NumberOfSymbols = Index;
}

VOID
TraceEventReleaseSymbolIndex(
    PRTL Rtl,
    PTRACE_SYMBOL_INDEX SymbolIndex
    )
{
    if (SymbolIndex->Symbols != NULL) {
        Rtl->Unmap(Rtl, SymbolIndex->Symbols, SymbolIndex->Bytes);
    }
    SymbolIndex->Symbols = NULL;
    SymbolIndex->NumberOfSymbols = 0;
    SymbolIndex->Bytes = 0;
}

VOID
TraceEventTableSetSymbolIndex(
    PTRACE_EVENT_TABLE Table,
    PTRACE_SYMBOL_INDEX SymbolIndex
    )
{
    if (Table->Symbols != NULL) {
        Table->Rtl->Unmap(Table->Rtl, Table->Symbols, Table->SymbolBytes);
    }
    Table->Symbols = SymbolIndex->Symbols;
    Table->SymbolBytes = SymbolIndex->Bytes;
    Table->NumberOfSymbols = SymbolIndex->NumberOfSymbols;
    Table->SymbolsIndexed = TRUE;
    SymbolIndex->Symbols = NULL;
    SymbolIndex->NumberOfSymbols = 0;
    SymbolIndex->Bytes = 0;
}

static
VOID
IndexSymbols(
    PTRACE_EVENT_TABLE Table
    )
{
    TRACE_SYMBOL_INDEX SymbolIndex;

    TraceEventBuildSymbolIndex(Table->Rtl, Table->SymbolText,
                               Table->SymbolTextLength, &SymbolIndex);
    TraceEventTableSetSymbolIndex(Table, &SymbolIndex);
}

BOOL
TraceEventFindSymbol(
    PTRACE_EVENT_TABLE Table,
    ULONGLONG Address,
    PCSZ *Name,
    PULONG NameLength,
    PULONGLONG Start
    )
/*++

Routine Description:

    Looks Address up the way libtraceevent's bsearch does over the sorted
    symbols: a symbol matches if its address equals Address, or if Address
    lies between it and the next symbol's address (the last symbol only
    matches exactly).  The same bisection is followed, so that among
    symbols sharing an address the same one is found.

--*/
{
    PTRACE_SYMBOL Symbols;
    ULONG Low = 0;
    ULONG High;

    if (!Table->SymbolsIndexed) {
        IndexSymbols(Table);
    }

    Symbols = Table->Symbols;
    High = Table->NumberOfSymbols;
    if (Symbols == NULL || High == 0 || Address < Symbols[0].Address) {
        return FALSE;
    }

    while (Low < High) {
        ULONG Middle = (Low + High) / 2;
        ULONGLONG Here = Symbols[Middle].Address;
        ULONGLONG Next = (Middle + 1 < Table->NumberOfSymbols) ?
                         Symbols[Middle + 1].Address : 0;

        if (Address == Here || (Address > Here && Address < Next)) {
            *Name = Table->SymbolText + Symbols[Middle].NameOffset;
            *NameLength = Symbols[Middle].NameLength;
            *Start = Here;
            return TRUE;
        }
        if (Address < Here) {
            High = Middle;
        } else {
            Low = Middle + 1;
        }
    }

    return FALSE;
}

BOOL
TraceEventFindSymbolLastListed(
    PTRACE_EVENT_TABLE Table,
    ULONGLONG Address,
    PCSZ *Name,
    PULONG NameLength,
    PULONGLONG Start
    )
/*++

Routine Description:

    The function containing Address as perf names it: of the symbols at
    the address TraceEventFindSymbol finds, the one listed last in
    kallsyms (the largest offset into the text; `memset`, `__memset` and
    `__pi_memset` share an address, and perf reports `__pi_memset`).

--*/
{
    PTRACE_SYMBOL Symbols;
    ULONG Low = 0;
    ULONG High;
    ULONG Index;
    ULONG Best;

    if (!TraceEventFindSymbol(Table, Address, Name, NameLength, Start)) {
        return FALSE;
    }

    //
    // The first symbol at *Start, then the last listed of those at it.
    //

    Symbols = Table->Symbols;
    High = Table->NumberOfSymbols;
    while (Low < High) {
        ULONG Middle = (Low + High) / 2;
        if (Symbols[Middle].Address < *Start) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }
    Best = Low;
    for (Index = Low; Index < Table->NumberOfSymbols &&
                      Symbols[Index].Address == *Start; Index++) {
        if (Symbols[Index].NameOffset > Symbols[Best].NameOffset) {
            Best = Index;
        }
    }
    *Name = Table->SymbolText + Symbols[Best].NameOffset;
    *NameLength = Symbols[Best].NameLength;
    return TRUE;
}

BOOL
TraceEventFindSymbolByName(
    PTRACE_EVENT_TABLE Table,
    PCSZ Name,
    ULONG NameLength,
    PULONGLONG Address
    )
/*++

Routine Description:

    A linear search, as libtraceevent's; callers cache the result.

--*/
{
    ULONG Index;

    *Address = 0;
    if (!Table->SymbolsIndexed) {
        IndexSymbols(Table);
    }
    if (NameLength == 0 || (Name[0] >= '0' && Name[0] <= '9')) {
        return FALSE;
    }

    for (Index = 0; Index < Table->NumberOfSymbols; Index++) {
        PTRACE_SYMBOL Symbol = &Table->Symbols[Index];

        if (Symbol->NameLength == NameLength &&
            Table->Rtl->CompareMemory(Table->SymbolText + Symbol->NameOffset,
                                      Name, NameLength) == 0) {
            *Address = Symbol->Address;
            return TRUE;
        }
    }

    return FALSE;
}

static
VOID
IndexPrintks(
    PTRACE_EVENT_TABLE Table
    )
/*++

Routine Description:

    Indexes printk_formats ("0xADDR : \"TEXT\"" lines) by address.

--*/
{
    PRTL Rtl = Table->Rtl;
    PCSZ Text = Table->PrintkText;
    PCSZ End = Text + Table->PrintkTextLength;
    PCSZ Cursor;
    ULONG Count = 0;
    ULONG Index = 0;
    SIZE_T Bytes;
    PTRACE_PRINTK Printks;

    Table->PrintksIndexed = TRUE;
    if (Text == NULL || Table->PrintkTextLength >= 0xffffffffULL) {
        return;
    }

    for (Cursor = Text; Cursor < End; ) {
        Count++;
        Cursor = LineEnd(Cursor, End) + 1;
    }
    if (Count == 0) {
        return;
    }

    Bytes = (SIZE_T)ALIGN_UP((SIZE_T)Count * sizeof(TRACE_PRINTK) + 1,
                             RTL_PAGE_SIZE);
    if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, Bytes, (PVOID *)&Printks))) {
        return;
    }

    for (Cursor = Text; Cursor < End; ) {
        PCSZ Next = LineEnd(Cursor, End);
        PCSZ Parse = TextSkipSpaces(Cursor, Next);
        ULONGLONG Address;

        if (ParseHex64(&Parse, Next, &Address)) {
            PCSZ Colon = TextFindChar(Parse, Next, ':');
            if (Colon != Next) {
                PCSZ Value = TextSkipSpaces(Colon + 1, Next);
                PCSZ ValueEnd = TextTrimEnd(Value, Next);

                if (ValueEnd - Value >= 2 && *Value == '"' &&
                    ValueEnd[-1] == '"') {
                    Value++;
                    ValueEnd--;
                }

                //
                // The kernel writes a newline as "\n"; libtraceevent drops
                // one at the end (trace_printk formats end in one).
                //

                if (ValueEnd - Value >= 2 && ValueEnd[-2] == '\\' &&
                    ValueEnd[-1] == 'n') {
                    ValueEnd -= 2;
                }
                Printks[Index].Address = Address;
                Printks[Index].TextOffset = (ULONG)(Value - Text);
                Printks[Index].TextLength = (ULONG)(ValueEnd - Value);
                Index++;
            }
        }
        Cursor = Next + 1;
    }

    //
    // Sort by address (insertion into place: printk lists are short).
    //

    {
        ULONG Outer;
        for (Outer = 1; Outer < Index; Outer++) {
            TRACE_PRINTK Item = Printks[Outer];
            ULONG Inner = Outer;
            while (Inner > 0 && Printks[Inner - 1].Address > Item.Address) {
                Printks[Inner] = Printks[Inner - 1];
                Inner--;
            }
            Printks[Inner] = Item;
        }
    }

    Table->Printks = Printks;
    Table->PrintkBytes = Bytes;
    Table->NumberOfPrintks = Index;
}

BOOL
TraceEventFindPrintk(
    PTRACE_EVENT_TABLE Table,
    ULONGLONG Address,
    PCSZ *Text,
    PULONG Length
    )
{
    ULONG Low = 0;
    ULONG High;

    if (!Table->PrintksIndexed) {
        IndexPrintks(Table);
    }

    High = Table->NumberOfPrintks;
    while (Low < High) {
        ULONG Middle = (Low + High) / 2;

        if (Table->Printks[Middle].Address == Address) {
            *Text = Table->PrintkText + Table->Printks[Middle].TextOffset;
            *Length = Table->Printks[Middle].TextLength;
            return TRUE;
        }
        if (Address < Table->Printks[Middle].Address) {
            High = Middle;
        } else {
            Low = Middle + 1;
        }
    }

    return FALSE;
}
