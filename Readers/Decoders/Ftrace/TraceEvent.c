/*++

Module Name:

    TraceEvent.c

Abstract:

    This module implements the container-independent half of the ftrace
    event model (see TraceEvent.h): the arena, header_page and
    header_event, ring-buffer pages, `format` files, field decoding, and
    kallsyms / printk lookups.  The print-fmt interpreter is in
    TraceEventPrint.c and the store sink in TraceEventImport.c.

    Every routine bounds its reads by the lengths it is given: event
    descriptions and records come from files that may be damaged.

--*/

#include "TraceEvent.h"

#define ARENA_BLOCK_SIZE (256 * 1024)
#define ARENA_MAX_BLOCK_SIZE (4 * 1024 * 1024)
#define ARENA_HEADER     16
#define ARENA_LIMIT      (1ULL << 30)

//
// Arena.
//

RTL_STATUS
TraceArenaAllocate(
    PTRACE_ARENA Arena,
    SIZE_T Size,
    PVOID *Address
    )
/*++

Routine Description:

    Returns Size zeroed bytes, 8-byte aligned, valid until the arena is
    released.  Each block's first word points to the previous block.
    Blocks grow with the arena (as large as all before them, 256 KB to
    4 MB), so that the few megabytes a trace's event formats take are a
    handful of mappings to create and release, not dozens.

--*/
{
    PRTL Rtl = Arena->Rtl;
    RTL_STATUS Status;
    SIZE_T BlockSize;
    PBYTE Block;

    Size = (Size + 7) & ~(SIZE_T)7;

    if (Arena->Block == NULL || Arena->Size - Arena->Used < Size) {
        BlockSize = ARENA_BLOCK_SIZE;
        if (Arena->TotalBytes > BlockSize) {
            BlockSize = Arena->TotalBytes < ARENA_MAX_BLOCK_SIZE ?
                        (SIZE_T)Arena->TotalBytes : ARENA_MAX_BLOCK_SIZE;
        }
        if (Size + ARENA_HEADER > BlockSize) {
            BlockSize = (SIZE_T)ALIGN_UP(Size + ARENA_HEADER, RTL_PAGE_SIZE);
        }
        if (Arena->TotalBytes + BlockSize > ARENA_LIMIT) {
            *Address = NULL;
            return RTL_STATUS_TOO_LARGE;
        }

        Status = Rtl->AllocatePages(Rtl, BlockSize, (PVOID *)&Block);
        if (!RTL_SUCCESS(Status)) {
            *Address = NULL;
            return Status;
        }

        ((PVOID *)Block)[0] = Arena->Block;
        ((SIZE_T *)Block)[1] = BlockSize;
        Arena->Block = Block;
        Arena->Size = BlockSize;
        Arena->Used = ARENA_HEADER;
        Arena->TotalBytes += BlockSize;
    }

    *Address = Arena->Block + Arena->Used;
    Arena->Used += Size;
    return RTL_STATUS_OK;
}

VOID
TraceArenaRelease(
    PTRACE_ARENA Arena
    )
{
    PBYTE Block = Arena->Block;

    while (Block != NULL) {
        PBYTE Previous = (PBYTE)((PVOID *)Block)[0];
        SIZE_T Size = ((SIZE_T *)Block)[1];

        Arena->Rtl->Unmap(Arena->Rtl, Block, Size);
        Block = Previous;
    }

    Arena->Block = NULL;
    Arena->Used = 0;
    Arena->Size = 0;
    Arena->TotalBytes = 0;
}

//
// Small text helpers over (Cursor, End) ranges.
//

static
BOOL
IsIdentChar(
    CHAR Char
    )
{
    return (Char >= 'a' && Char <= 'z') || (Char >= 'A' && Char <= 'Z') ||
           (Char >= '0' && Char <= '9') || Char == '_';
}

static
PCSZ
SkipBlanks(
    PCSZ Cursor,
    PCSZ End
    )
{
    while (Cursor < End && (*Cursor == ' ' || *Cursor == '\t')) {
        Cursor++;
    }
    return Cursor;
}

//
// Callers pass a literal: inlined, its length is a constant and the
// comparison a few loads.
//

static inline __attribute__((always_inline))
BOOL
HasPrefix(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Literal
    )
{
    SIZE_T Length = __builtin_strlen(Literal);

    return (SIZE_T)(End - Cursor) >= Length &&
           __builtin_memcmp(Cursor, Literal, Length) == 0;
}

static
BOOL
SpanContains(
    PCSZ Start,
    PCSZ End,
    PCSZ Needle
    )
{
    SIZE_T Length = RtlStringLength(Needle);

    return TextFindString(Start, End, Needle, (ULONG)Length) != NULL;
}

//
// Parses a decimal number at Cursor (leading blanks skipped); NULL if
// none or it does not fit 32 bits.
//

static
PCSZ
ParseDecimal32(
    PCSZ Cursor,
    PCSZ End,
    PULONG Value,
    PBOOL Negative
    )
{
    ULONGLONG Number = 0;
    PCSZ Start;

    Cursor = SkipBlanks(Cursor, End);
    *Negative = FALSE;
    if (Cursor < End && *Cursor == '-') {
        *Negative = TRUE;
        Cursor++;
    }
    Start = Cursor;
    while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
        Number = Number * 10 + (ULONG)(*Cursor - '0');
        if (Number > 0xffffffffULL) {
            return NULL;
        }
        Cursor++;
    }
    if (Cursor == Start) {
        return NULL;
    }

    *Value = (ULONG)Number;
    return Cursor;
}

static
PCSZ
LineEnd(
    PCSZ Cursor,
    PCSZ End
    )
{
    return TextFindChar(Cursor, End, '\n');
}

//
// One "field:DECL;\toffset:N;\tsize:N;\tsigned:N;" line.
//

typedef struct _FIELD_LINE {
    PCSZ Declaration;
    PCSZ DeclarationEnd;
    ULONG Offset;
    ULONG Size;
    BOOL HasSigned;
    BOOL Signed;
} FIELD_LINE, *PFIELD_LINE;

static inline __attribute__((always_inline))
PCSZ
FindKey(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Key,
    ULONG KeyLength
    )
/*++

Routine Description:

    The position after "KEY" in ";\tKEY" at Cursor (the usual layout of
    a field line), else wherever it is after Cursor; NULL if absent.
    Inlined with a literal Key, the usual case is a few compares.

--*/
{
    PCSZ Found;

    while (Cursor < End && (*Cursor == ';' || *Cursor == ' ' ||
                            *Cursor == '\t')) {
        Cursor++;
    }
    if ((SIZE_T)(End - Cursor) >= KeyLength &&
        __builtin_memcmp(Cursor, Key, KeyLength) == 0) {
        return Cursor + KeyLength;
    }
    Found = TextFindString(Cursor, End, Key, KeyLength);
    return Found != NULL ? Found + KeyLength : NULL;
}

static
BOOL
ParseFieldLine(
    PCSZ Cursor,
    PCSZ End,
    PFIELD_LINE Line
    )
{
    PCSZ Semicolon;
    PCSZ Value;
    ULONG Number;
    BOOL Negative;

    Cursor = SkipBlanks(Cursor, End);
    if (!HasPrefix(Cursor, End, "field:")) {
        return FALSE;
    }
    Cursor += 6;
    Semicolon = TextFindChar(Cursor, End, ';');
    if (Semicolon == End) {
        return FALSE;
    }
    Line->Declaration = SkipBlanks(Cursor, Semicolon);
    Line->DeclarationEnd = TextTrimEnd(Line->Declaration, Semicolon);

    Value = FindKey(Semicolon, End, "offset:", 7);
    if (Value == NULL ||
        (Value = ParseDecimal32(Value, End, &Line->Offset, &Negative)) ==
            NULL || Negative) {
        return FALSE;
    }
    Value = FindKey(Value, End, "size:", 5);
    if (Value == NULL ||
        (Value = ParseDecimal32(Value, End, &Line->Size, &Negative)) ==
            NULL || Negative) {
        return FALSE;
    }
    Line->HasSigned = FALSE;
    Line->Signed = FALSE;
    Value = FindKey(Value, End, "signed:", 7);
    if (Value != NULL && ParseDecimal32(Value, End, &Number, &Negative) !=
                         NULL) {
        Line->HasSigned = TRUE;
        Line->Signed = (Number != 0);
    }

    return TRUE;
}

//
// Finds "NAME" as the last word of a declaration ("u64 timestamp",
// "char data", "__data_loc char[] name").
//

static
VOID
SplitDeclaration(
    PCSZ Start,
    PCSZ End,
    PCSZ *Type,
    PCSZ *TypeEnd,
    PCSZ *Name,
    PCSZ *NameEnd,
    PCSZ *Array,
    PCSZ *ArrayEnd
    )
{
    PCSZ Cursor;

    *Array = NULL;
    *ArrayEnd = NULL;

    //
    // "TYPE NAME[N]": the array part is at the end.
    //

    if (End > Start && End[-1] == ']') {
        Cursor = End - 1;
        while (Cursor > Start && *Cursor != '[') {
            Cursor--;
        }
        if (*Cursor == '[') {
            *Array = Cursor;
            *ArrayEnd = End;
            End = TextTrimEnd(Start, Cursor);
        }
    }

    Cursor = End;
    while (Cursor > Start && (IsIdentChar(Cursor[-1]) || Cursor[-1] == '.')) {
        Cursor--;
    }
    *Name = Cursor;
    *NameEnd = End;
    *Type = Start;
    *TypeEnd = TextTrimEnd(Start, Cursor);
}

RTL_STATUS
TraceEventParseHeaderPage(
    PCSZ Text,
    SIZE_T Length,
    PTRACE_PAGE_LAYOUT Layout,
    PCSZ *Reason
    )
{
    PCSZ Cursor = Text;
    PCSZ End = Text + Length;
    BOOL HaveTimestamp = FALSE;
    BOOL HaveCommit = FALSE;
    BOOL HaveData = FALSE;

    while (Cursor < End) {
        PCSZ Next = LineEnd(Cursor, End);
        FIELD_LINE Line;

        if (ParseFieldLine(Cursor, Next, &Line)) {
            PCSZ Type, TypeEnd, Name, NameEnd, Array, ArrayEnd;

            SplitDeclaration(Line.Declaration, Line.DeclarationEnd, &Type,
                             &TypeEnd, &Name, &NameEnd, &Array, &ArrayEnd);

            if (TextEquals(Name, NameEnd - Name, "timestamp")) {
                Layout->TimestampOffset = Line.Offset;
                Layout->TimestampSize = Line.Size;
                HaveTimestamp = TRUE;
            } else if (TextEquals(Name, NameEnd - Name, "commit")) {
                Layout->CommitOffset = Line.Offset;
                Layout->CommitSize = Line.Size;
                HaveCommit = TRUE;
            } else if (TextEquals(Name, NameEnd - Name, "data")) {
                Layout->DataOffset = Line.Offset;
                Layout->DataSize = Line.Size;
                HaveData = TRUE;
            }
        }

        Cursor = Next + (Next < End);
    }

    if (!HaveTimestamp || !HaveCommit || !HaveData) {
        *Reason = "header_page lacks the timestamp, commit or data field";
        return RTL_STATUS_BAD_FORMAT;
    }

    if (Layout->TimestampSize != 8 ||
        (Layout->CommitSize != 4 && Layout->CommitSize != 8) ||
        Layout->TimestampOffset > 64 || Layout->CommitOffset > 64 ||
        Layout->DataOffset < Layout->CommitOffset + Layout->CommitSize ||
        Layout->DataOffset > 64 || Layout->DataSize == 0 ||
        Layout->DataSize > (1U << 27)) {
        *Reason = "header_page describes an unsupported page layout";
        return RTL_STATUS_BAD_VERSION;
    }

    return RTL_STATUS_OK;
}

static
BOOL
FindKeyNumber(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    PCSZ After,
    PULONG Value
    )
/*++

Routine Description:

    Finds "KEY", then After ("" for right away), and parses the number
    that follows it.

--*/
{
    PCSZ Found = TextFindString(Start, End, Key, (ULONG)RtlStringLength(Key));
    PCSZ LineStop;
    BOOL Negative;

    if (Found == NULL) {
        return FALSE;
    }
    LineStop = LineEnd(Found, End);
    Found = TextFindString(Found, LineStop, After,
                           (ULONG)RtlStringLength(After));
    if (Found == NULL) {
        return FALSE;
    }
    Found += RtlStringLength(After);
    while (Found < LineStop && !(*Found >= '0' && *Found <= '9')) {
        Found++;
    }
    return ParseDecimal32(Found, LineStop, Value, &Negative) != NULL &&
           !Negative;
}

RTL_STATUS
TraceEventParseHeaderEvent(
    PCSZ Text,
    SIZE_T Length,
    PCSZ *Reason
    )
{
    PCSZ End = Text + Length;
    ULONG TypeLenBits, DeltaBits, Padding, Extend, Stamp;

    if (!FindKeyNumber(Text, End, "type_len", ":", &TypeLenBits) ||
        !FindKeyNumber(Text, End, "time_delta", ":", &DeltaBits)) {
        *Reason = "header_event does not describe type_len/time_delta "
                  "(a ring buffer older than Linux 2.6.31)";
        return RTL_STATUS_BAD_VERSION;
    }

    if (!FindKeyNumber(Text, End, "padding", "==", &Padding)) {
        Padding = TRACE_RING_TYPE_PADDING;
    }
    if (!FindKeyNumber(Text, End, "time_extend", "==", &Extend)) {
        Extend = TRACE_RING_TYPE_TIME_EXTEND;
    }
    if (!FindKeyNumber(Text, End, "time_stamp", "==", &Stamp)) {
        Stamp = TRACE_RING_TYPE_TIME_STAMP;
    }

    if (TypeLenBits != 5 || DeltaBits != 27 ||
        Padding != TRACE_RING_TYPE_PADDING ||
        Extend != TRACE_RING_TYPE_TIME_EXTEND ||
        Stamp != TRACE_RING_TYPE_TIME_STAMP) {
        *Reason = "header_event describes an unsupported event header";
        return RTL_STATUS_BAD_VERSION;
    }

    return RTL_STATUS_OK;
}

//
// Ring-buffer pages.
//

RTL_STATUS
TraceRingPageBegin(
    PTRACE_RING_PAGE Page,
    PCTRACE_PAGE_LAYOUT Layout,
    const BYTE *PageStart,
    SIZE_T PageLength,
    PCSZ *Reason
    )
{
    ULONGLONG Commit;
    ULONGLONG Size;
    SIZE_T Capacity;

    if (PageLength < Layout->DataOffset ||
        PageLength < Layout->CommitOffset + Layout->CommitSize ||
        PageLength < Layout->TimestampOffset + 8) {
        *Reason = "page shorter than its header";
        return RTL_STATUS_BAD_FORMAT;
    }

    //
    // The page itself bounds the data (a sub-buffer may be larger than
    // the page header_page was written for).
    //

    Capacity = PageLength - Layout->DataOffset;

    Page->Timestamp = TraceEventReadNumber(PageStart + Layout->TimestampOffset,
                                           8);
    Commit = TraceEventReadNumber(PageStart + Layout->CommitOffset,
                                  Layout->CommitSize);
    Size = Commit & TRACE_RING_COMMIT_MASK;

    if (Size > Capacity) {
        *Reason = "page commit size larger than the page";
        return RTL_STATUS_CORRUPT;
    }

    Page->Data = PageStart + Layout->DataOffset;
    Page->Size = (ULONG)Size;
    Page->Offset = 0;
    Page->LostEvents = 0;

    if (Commit & TRACE_RING_MISSED_EVENTS) {
        Page->LostEvents = -1;

        //
        // The count, when stored, follows the committed data.
        //

        if ((Commit & TRACE_RING_MISSED_STORED) &&
            Size + Layout->CommitSize <= Capacity) {
            Page->LostEvents = (LONGLONG)TraceEventReadNumber(
                Page->Data + Size, Layout->CommitSize);
            if (Page->LostEvents < 0) {
                Page->LostEvents = -1;
            }
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceRingPageNext(
    PTRACE_RING_PAGE Page,
    PTRACE_RING_EVENT Event,
    PBOOL Found,
    PCSZ *Reason
    )
{
    const BYTE *Data = Page->Data;
    ULONG Size = Page->Size;

    *Found = FALSE;

    while (Page->Offset < Size) {
        ULONG Offset = Page->Offset;
        ULONG Header;
        ULONG TypeLen;
        ULONG Delta;
        ULONG Array;
        ULONG Length;

        if (Size - Offset < 4) {
            *Reason = "event header cut off by the page's commit size";
            return RTL_STATUS_CORRUPT;
        }

        Header = (ULONG)TraceEventReadNumber(Data + Offset, 4);
        TypeLen = Header & 0x1f;
        Delta = Header >> 5;

        switch (TypeLen) {
        case TRACE_RING_TYPE_PADDING:

            //
            // Padding (a discarded event): its length is in array[0].  A
            // null padding ends the page.
            //

            if (Size - Offset < 8) {
                Page->Offset = Size;
                return RTL_STATUS_OK;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            if (Delta == 0 && Array > Size - Offset - 4) {
                Page->Offset = Size;
                return RTL_STATUS_OK;
            }
            if (Array > Size - Offset - 4) {
                *Reason = "padding record runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Page->Timestamp += Delta;
            Page->Offset = Offset + 4 + ((Array + 3) & ~3U);
            if (Page->Offset <= Offset) {
                Page->Offset = Size;
            }
            continue;

        case TRACE_RING_TYPE_TIME_EXTEND:
        case TRACE_RING_TYPE_TIME_STAMP: {
            ULONGLONG Extend;

            if (Size - Offset < 8) {
                *Reason = "time extend record cut off by the commit size";
                return RTL_STATUS_CORRUPT;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            Extend = ((ULONGLONG)Array << TRACE_RING_TS_SHIFT) + Delta;
            if (TypeLen == TRACE_RING_TYPE_TIME_STAMP) {

                //
                // An absolute time stamp lacks the top five bits: keep
                // those of the running time.
                //

                Page->Timestamp = Extend |
                                  (Page->Timestamp & (0xf8ULL << 56));
            } else {
                Page->Timestamp += Extend;
            }
            Page->Offset = Offset + 8;
            continue;
        }

        case 0:
            if (Size - Offset < 8) {
                *Reason = "event length cut off by the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Array = (ULONG)TraceEventReadNumber(Data + Offset + 4, 4);
            if (Array < 4) {
                *Reason = "event with a length shorter than its header";
                return RTL_STATUS_CORRUPT;
            }
            Length = ((Array - 4) + 3) & ~3U;
            if (Length > Size - Offset - 8) {
                *Reason = "event runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Event->Data = Data + Offset + 8;
            Page->Offset = Offset + 8 + Length;
            break;

        default:
            Length = TypeLen * 4;
            if (Length > Size - Offset - 4) {
                *Reason = "event runs past the page's commit size";
                return RTL_STATUS_CORRUPT;
            }
            Event->Data = Data + Offset + 4;
            Page->Offset = Offset + 4 + Length;
            break;
        }

        Page->Timestamp += Delta;
        Event->Timestamp = Page->Timestamp;
        Event->Size = Length;
        Event->Offset = Offset;
        *Found = TRUE;
        return RTL_STATUS_OK;
    }

    return RTL_STATUS_OK;
}

//
// The event table.
//

RTL_STATUS
TraceEventTableInitialize(
    PRTL Rtl,
    ULONG LongSize,
    PTRACE_EVENT_TABLE Table
    )
{
    RTL_STATUS Status;

    Rtl->FillMemory(Table, sizeof(*Table), 0);
    Table->Rtl = Rtl;
    Table->Arena.Rtl = Rtl;
    Table->LongSize = LongSize;

    Status = TraceArenaAllocate(&Table->Arena,
                                sizeof(PTRACE_EVENT_FORMAT) *
                                (TRACE_EVENT_MAX_ID + 1),
                                (PVOID *)&Table->ById);
    return Status;
}

VOID
TraceEventTableRelease(
    PTRACE_EVENT_TABLE Table
    )
{
    PRTL Rtl = Table->Rtl;
    ULONG Index;

    if (Rtl == NULL) {
        return;
    }

    if (Table->SymbolTextOwned != NULL) {
        Rtl->Unmap(Rtl, Table->SymbolTextOwned, Table->SymbolTextOwnedSize);
        Table->SymbolTextOwned = NULL;
    }
    if (Table->Symbols != NULL) {
        Rtl->Unmap(Rtl, Table->Symbols, Table->SymbolBytes);
        Table->Symbols = NULL;
    }
    if (Table->Printks != NULL) {
        Rtl->Unmap(Rtl, Table->Printks, Table->PrintkBytes);
        Table->Printks = NULL;
    }
    for (Index = 0; Index < ARRAYSIZE(Table->KeptText); Index++) {
        if (Table->KeptText[Index] != NULL) {
            Rtl->Unmap(Rtl, Table->KeptText[Index],
                       Table->KeptTextSize[Index]);
            Table->KeptText[Index] = NULL;
        }
    }

    TraceArenaRelease(&Table->Arena);
    Table->ById = NULL;
}

static
RTL_STATUS
CopyString(
    PTRACE_EVENT_TABLE Table,
    PCSZ Start,
    SIZE_T Length,
    PCSZ *Copy
    )
{
    RTL_STATUS Status;
    PCHAR Buffer;

    Status = TraceArenaAllocate(&Table->Arena, Length + 1, (PVOID *)&Buffer);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Table->Rtl->CopyMemory(Buffer, Start, Length);
    Buffer[Length] = '\0';
    *Copy = Buffer;
    return RTL_STATUS_OK;
}

static
ULONG
TypeElementSize(
    PCSZ Type,
    PCSZ TypeEnd,
    ULONG LongSize
    )
{
    if (SpanContains(Type, TypeEnd, "char") ||
        SpanContains(Type, TypeEnd, "u8") ||
        SpanContains(Type, TypeEnd, "s8") ||
        SpanContains(Type, TypeEnd, "bool")) {
        return 1;
    }
    if (SpanContains(Type, TypeEnd, "short") ||
        SpanContains(Type, TypeEnd, "16")) {
        return 2;
    }
    if (SpanContains(Type, TypeEnd, "long long") ||
        SpanContains(Type, TypeEnd, "64")) {
        return 8;
    }
    if (SpanContains(Type, TypeEnd, "long") ||
        SpanContains(Type, TypeEnd, "*")) {
        return LongSize;
    }
    return 4;
}

static
RTL_STATUS
ParseField(
    PTRACE_EVENT_TABLE Table,
    PFIELD_LINE Line,
    PTRACE_EVENT_FIELD Field,
    PCSZ *Reason
    )
{
    PCSZ Type, TypeEnd, Name, NameEnd, Array, ArrayEnd;
    PCSZ Dynamic;
    ULONG ArrayLength = 0;
    RTL_STATUS Status;

    SplitDeclaration(Line->Declaration, Line->DeclarationEnd, &Type,
                     &TypeEnd, &Name, &NameEnd, &Array, &ArrayEnd);

    if (NameEnd == Name) {
        *Reason = "event format field without a name";
        return RTL_STATUS_BAD_FORMAT;
    }

    Field->Offset = Line->Offset;
    Field->Size = Line->Size;
    Field->Flags = 0;

    if (Line->Signed) {
        Field->Flags |= TRACE_FIELD_SIGNED;
    }

    Dynamic = TextFindString(Type, TypeEnd, "__data_loc", 10);
    if (Dynamic != NULL) {
        Field->Flags |= TRACE_FIELD_DYNAMIC | TRACE_FIELD_ARRAY;
        Type = SkipBlanks(Dynamic + 10, TypeEnd);
    } else {
        Dynamic = TextFindString(Type, TypeEnd, "__rel_loc", 9);
        if (Dynamic != NULL) {
            Field->Flags |= TRACE_FIELD_DYNAMIC | TRACE_FIELD_RELATIVE |
                            TRACE_FIELD_ARRAY;
            Type = SkipBlanks(Dynamic + 9, TypeEnd);
        }
    }

    if (Array != NULL) {
        BOOL Negative;

        Field->Flags |= TRACE_FIELD_ARRAY;
        if (ParseDecimal32(Array + 1, ArrayEnd, &ArrayLength,
                           &Negative) == NULL || Negative) {
            ArrayLength = 0;
        }
    }

    //
    // One pass over the type for '*', "long", "char", "u8" and "s8".
    //

    {
        PCSZ Cursor;
        BOOL Char = FALSE;

        for (Cursor = Type; Cursor < TypeEnd; Cursor++) {
            SIZE_T Left = (SIZE_T)(TypeEnd - Cursor);

            if (*Cursor == '*') {
                Field->Flags |= TRACE_FIELD_POINTER;
            } else if (Left >= 4 && __builtin_memcmp(Cursor, "long", 4) == 0) {
                Field->Flags |= TRACE_FIELD_LONG;
            } else if ((Left >= 4 && __builtin_memcmp(Cursor, "char", 4) == 0) ||
                       (Left >= 2 && (Cursor[0] == 'u' || Cursor[0] == 's') &&
                        Cursor[1] == '8')) {
                Char = TRUE;
            }
        }
        if ((Field->Flags & TRACE_FIELD_ARRAY) && Char) {
            Field->Flags |= TRACE_FIELD_STRING;
        }
    }
    if (NameEnd - Name > 7 && HasPrefix(Name, NameEnd, "common_")) {
        Field->Flags |= TRACE_FIELD_COMMON;
    }

    if (Field->Flags & TRACE_FIELD_ARRAY) {
        if (ArrayLength != 0 && !(Field->Flags & TRACE_FIELD_DYNAMIC)) {
            Field->ElementSize = Field->Size / ArrayLength;
        } else {
            Field->ElementSize = TypeElementSize(Type, TypeEnd,
                                                 Table->LongSize);
        }
        if (Field->ElementSize == 0) {
            Field->ElementSize = 1;
        }
    } else {
        Field->ElementSize = Field->Size;
    }

    if ((Field->Flags & TRACE_FIELD_DYNAMIC) &&
        Field->Size != 2 && Field->Size != 4) {
        *Reason = "__data_loc field that is not 2 or 4 bytes";
        return RTL_STATUS_BAD_FORMAT;
    }

    Status = CopyString(Table, Name, NameEnd - Name, &Field->Name);
    if (RTL_SUCCESS(Status)) {
        Status = CopyString(Table, Line->Declaration,
                            TypeEnd - Line->Declaration, &Field->Type);
    }
    return Status;
}

static
RTL_STATUS
CheckField(
    PFIELD_LINE Line,
    PCSZ *Reason
    )
/*++

Routine Description:

    Fails exactly where ParseField would (its checks, in its order), for a
    deferred format, without building the field.

--*/
{
    PCSZ Type, TypeEnd, Name, NameEnd, Array, ArrayEnd;

    SplitDeclaration(Line->Declaration, Line->DeclarationEnd, &Type,
                     &TypeEnd, &Name, &NameEnd, &Array, &ArrayEnd);

    if (NameEnd == Name) {
        *Reason = "event format field without a name";
        return RTL_STATUS_BAD_FORMAT;
    }

    if (Line->Size != 2 && Line->Size != 4 &&
        (TextFindString(Type, TypeEnd, "__data_loc", 10) != NULL ||
         TextFindString(Type, TypeEnd, "__rel_loc", 9) != NULL)) {
        *Reason = "__data_loc field that is not 2 or 4 bytes";
        return RTL_STATUS_BAD_FORMAT;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseFields(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    PCSZ Text,
    PCSZ End,
    ULONG FieldCount,
    PCSZ *Reason
    )
/*++

Routine Description:

    The second pass over a format's text: its FieldCount field lines into
    Format->Fields, or, with Format NULL, only checked (CheckField).

--*/
{
    PCSZ Cursor = Text;
    ULONG Index = 0;
    RTL_STATUS Status;

    while (Cursor < End && Index < FieldCount) {
        PCSZ Next = LineEnd(Cursor, End);
        PCSZ Content = SkipBlanks(Cursor, Next);

        if (HasPrefix(Content, Next, "print fmt:")) {
            break;
        }
        if (HasPrefix(Content, Next, "field:")) {
            FIELD_LINE Line;

            if (!ParseFieldLine(Content, Next, &Line)) {
                *Reason = "malformed field line in an event format";
                return RTL_STATUS_BAD_FORMAT;
            }
            if (Format != NULL) {
                Status = ParseField(Table, &Line, &Format->Fields[Index],
                                    Reason);
            } else {
                Status = CheckField(&Line, Reason);
            }
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Index++;
        }
        Cursor = Next + (Next < End);
    }
    if (Format != NULL) {
        Format->NumberOfFields = Index;
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
TraceEventCompleteFormat(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    PCSZ *Reason
    )
{
    PTRACE_EVENT_FIELD Fields;
    RTL_STATUS Status;

    if (Format->Text == NULL) {
        return RTL_STATUS_OK;
    }

    Status = TraceArenaAllocate(&Table->Arena,
                                sizeof(TRACE_EVENT_FIELD) * Format->FieldCount,
                                (PVOID *)&Fields);
    if (RTL_SUCCESS(Status) && Format->PrintText != NULL) {
        Status = CopyString(Table, Format->PrintText,
                            Format->PrintTextEnd - Format->PrintText,
                            &Format->PrintFmt);
        Format->PrintFmtLength = (ULONG)(Format->PrintTextEnd -
                                         Format->PrintText);
    }
    if (!RTL_SUCCESS(Status)) {
        *Reason = "out of memory for event formats";
        return Status;
    }

    Format->Fields = Fields;
    Status = ParseFields(Table, Format, Format->Text, Format->TextEnd,
                         Format->FieldCount, Reason);
    if (RTL_SUCCESS(Status)) {
        Format->Text = NULL;
    }
    return Status;
}

static
RTL_STATUS
AddFormat(
    PTRACE_EVENT_TABLE Table,
    PCSZ System,
    ULONG SystemLength,
    PCSZ Text,
    SIZE_T Length,
    BOOL Defer,
    PCSZ *Reason
    )
{
    PCSZ Cursor = Text;
    PCSZ End = Text + Length;
    PCSZ Name = NULL;
    PCSZ NameEnd = NULL;
    PCSZ Print = NULL;
    PCSZ PrintEnd = NULL;
    ULONG Id = 0;
    BOOL HaveId = FALSE;
    ULONG FieldCount = 0;
    PTRACE_EVENT_FORMAT Format;
    RTL_STATUS Status;

    //
    // First pass: name, id, the number of fields and the print fmt.
    //

    while (Cursor < End) {
        PCSZ Next = LineEnd(Cursor, End);
        PCSZ Content = SkipBlanks(Cursor, Next);

        if (HasPrefix(Content, Next, "name:")) {
            Name = SkipBlanks(Content + 5, Next);
            NameEnd = TextTrimEnd(Name, Next);
        } else if (HasPrefix(Content, Next, "ID:")) {
            BOOL Negative;
            if (ParseDecimal32(Content + 3, Next, &Id, &Negative) != NULL &&
                !Negative) {
                HaveId = TRUE;
            }
        } else if (HasPrefix(Content, Next, "field:")) {
            FieldCount++;
        } else if (HasPrefix(Content, Next, "print fmt:")) {
            Print = Content + 10;
            if (Print < End && *Print == ' ') {
                Print++;
            }
            PrintEnd = TextTrimEnd(Print, End);
            break;
        }

        Cursor = Next + (Next < End);
    }

    if (Name == NULL || NameEnd == Name || !HaveId) {
        *Reason = "event format without a name or ID";
        return RTL_STATUS_BAD_FORMAT;
    }
    for (Cursor = Name; Cursor < NameEnd; Cursor++) {
        if (!IsIdentChar(*Cursor) && *Cursor != '-' && *Cursor != '.') {
            *Reason = "event format with a malformed name";
            return RTL_STATUS_BAD_FORMAT;
        }
    }
    if (Id > TRACE_EVENT_MAX_ID) {
        *Reason = "event format with an ID above 65535";
        return RTL_STATUS_BAD_FORMAT;
    }
    if (FieldCount == 0 || FieldCount > 4096) {
        *Reason = "event format without fields";
        return RTL_STATUS_BAD_FORMAT;
    }

    //
    // The common fields' places come from the first format that has them:
    // until then formats are added in full.
    //

    if (Table->TypeSize == 0) {
        Defer = FALSE;
    }

    Status = TraceArenaAllocate(&Table->Arena, sizeof(*Format),
                                (PVOID *)&Format);
    if (RTL_SUCCESS(Status) && !Defer) {
        Status = TraceArenaAllocate(&Table->Arena,
                                    sizeof(TRACE_EVENT_FIELD) * FieldCount,
                                    (PVOID *)&Format->Fields);
    }
    if (RTL_SUCCESS(Status)) {
        Status = CopyString(Table, Name, NameEnd - Name, &Format->Name);
    }
    if (RTL_SUCCESS(Status)) {
        Status = CopyString(Table, System, SystemLength, &Format->System);
    }
    if (RTL_SUCCESS(Status) && Print != NULL && !Defer) {
        Status = CopyString(Table, Print, PrintEnd - Print,
                            &Format->PrintFmt);
        Format->PrintFmtLength = (ULONG)(PrintEnd - Print);
    }
    if (!RTL_SUCCESS(Status)) {
        *Reason = "out of memory for event formats";
        return Status;
    }

    Format->Id = Id;
    Format->NameId = TRACE_NULL_ULONG;
    if (Print == NULL) {
        Format->PrintState = TRACE_PRINT_STATE_FAILED;
    }

    //
    // Second pass: the fields (deferred: only checked, so that a format
    // fails here as it would in full).
    //

    Status = ParseFields(Table, Defer ? NULL : Format, Text, End,
                         FieldCount, Reason);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Defer) {
        Format->Text = Text;
        Format->TextEnd = End;
        Format->PrintText = Print;
        Format->PrintTextEnd = PrintEnd;
        Format->FieldCount = FieldCount;
    }

    //
    // The common fields are the same for every event; take their place
    // from the first format that has them.
    //

    if (Table->TypeSize == 0) {
        PCTRACE_EVENT_FIELD Type = TraceEventFindField(Format, "common_type");
        PCTRACE_EVENT_FIELD Pid = TraceEventFindField(Format, "common_pid");

        if (Type != NULL && Pid != NULL &&
            (Type->Size == 1 || Type->Size == 2 || Type->Size == 4) &&
            (Pid->Size == 2 || Pid->Size == 4) &&
            Type->Offset < 64 && Pid->Offset < 64) {
            Table->TypeOffset = Type->Offset;
            Table->TypeSize = Type->Size;
            Table->PidOffset = Pid->Offset;
            Table->PidSize = Pid->Size;
        }
    }

    if (Table->ById[Id] == NULL) {
        Table->NumberOfEvents++;
    }
    Table->ById[Id] = Format;
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceEventTableAddFormat(
    PTRACE_EVENT_TABLE Table,
    PCSZ System,
    ULONG SystemLength,
    PCSZ Text,
    SIZE_T Length,
    PCSZ *Reason
    )
{
    return AddFormat(Table, System, SystemLength, Text, Length, FALSE,
                     Reason);
}

RTL_STATUS
TraceEventTableAddFormatDeferred(
    PTRACE_EVENT_TABLE Table,
    PCSZ System,
    ULONG SystemLength,
    PCSZ Text,
    SIZE_T Length,
    PCSZ *Reason
    )
{
    return AddFormat(Table, System, SystemLength, Text, Length, TRUE,
                     Reason);
}

BOOL
TraceEventTableCanKeepText(
    PTRACE_EVENT_TABLE Table
    )
{
    return Table->KeptText[ARRAYSIZE(Table->KeptText) - 1] == NULL;
}

VOID
TraceEventTableKeepText(
    PTRACE_EVENT_TABLE Table,
    PVOID Pages,
    SIZE_T Size
    )
{
    ULONG Index;

    for (Index = 0; Index < ARRAYSIZE(Table->KeptText); Index++) {
        if (Table->KeptText[Index] == NULL) {
            Table->KeptText[Index] = Pages;
            Table->KeptTextSize[Index] = Size;
            return;
        }
    }
}

PCTRACE_EVENT_FIELD
TraceEventFindField(
    PTRACE_EVENT_FORMAT Format,
    PCSZ Name
    )
{
    ULONG Index;

    //
    // Common fields first, as libtraceevent looks them up.
    //

    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        if ((Format->Fields[Index].Flags & TRACE_FIELD_COMMON) &&
            RtlStringEqual(Format->Fields[Index].Name, Name)) {
            return &Format->Fields[Index];
        }
    }
    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        if (RtlStringEqual(Format->Fields[Index].Name, Name)) {
            return &Format->Fields[Index];
        }
    }

    return NULL;
}

BOOL
TraceEventFieldNumber(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PULONGLONG Value
    )
{
    ULONG Width = Field->Size;

    if ((Width != 1 && Width != 2 && Width != 4 && Width != 8) ||
        Field->Offset > Size || Size - Field->Offset < Width) {
        *Value = 0;
        return FALSE;
    }

    *Value = TraceEventReadNumber(Data + Field->Offset, Width);
    return TRUE;
}

BOOL
TraceEventFieldString(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PCSZ *Text,
    PULONG Length
    )
{
    ULONG Start;
    ULONG Limit;
    ULONG Index;

    *Text = "";
    *Length = 0;

    if (Field->Offset > Size || Size - Field->Offset < Field->Size) {
        return FALSE;
    }

    if (Field->Flags & TRACE_FIELD_DYNAMIC) {
        ULONGLONG Location = TraceEventReadNumber(Data + Field->Offset,
                                                  Field->Size);

        Start = (ULONG)(Location & 0xffff);
        Limit = (Field->Size == 2) ? Size : (ULONG)(Location >> 16);
        if (Field->Flags & TRACE_FIELD_RELATIVE) {
            Start += Field->Offset + Field->Size;
        }
        if (Field->Size == 2) {
            Limit = Start <= Size ? Size - Start : 0;
        }
        if (Start > Size || Limit > Size - Start) {
            return FALSE;
        }
    } else {
        Start = Field->Offset;
        Limit = Field->Size != 0 ? Field->Size : Size - Field->Offset;
    }

    Index = 0;
    while (Index < Limit && Data[Start + Index] != 0) {
        Index++;
    }

    *Text = (PCSZ)Data + Start;
    *Length = Index;
    return TRUE;
}

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
        if (Digits == 16) {
            return FALSE;
        }
        Number = (Number << 4) | Digit;
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
        PCSZ Parse = SkipBlanks(Cursor, Next);
        ULONGLONG Address;

        if (ParseHex64(&Parse, Next, &Address)) {
            PCSZ Colon = TextFindChar(Parse, Next, ':');
            if (Colon != Next) {
                PCSZ Value = SkipBlanks(Colon + 1, Next);
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
