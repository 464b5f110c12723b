/*++

Module Name:

    TraceEventFormat.c

Abstract:

    The kernel's event descriptions parsed into the event table:
    events/header_page (the ring-buffer page layout), events/header_event
    (the event header this decoder knows), and each event's `format` file
    (its name, id, fields and print fmt), added in full or deferred to
    its first use; and the size of a kernel C type, which fields and
    print fmt's sizeof share.

Environment:

    Core: no C runtime, no OS service (memory from the table's arena).
    Owns the parsing of the description text and TRACE_EVENT_FORMAT /
    TRACE_EVENT_FIELD contents.  Calls the arena (TraceEvent.c), the text
    helpers of TraceEventInternal.h and TextParse.h (Readers/Text).

--*/

#include "TraceEventInternal.h"

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

    Cursor = TextSkipSpaces(Cursor, End);
    if (!HasPrefix(Cursor, End, "field:")) {
        return FALSE;
    }
    Cursor += 6;
    Semicolon = TextFindChar(Cursor, End, ';');
    if (Semicolon == End) {
        return FALSE;
    }
    Line->Declaration = TextSkipSpaces(Cursor, Semicolon);
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

ULONG
TraceEventTypeSize(
    PCSZ Type,
    SIZE_T Length,
    ULONG LongSize,
    BOOL Guess
    )
/*++

Routine Description:

    The size of a kernel C type in a recording whose long is LongSize
    bytes: the one place the event model knows it, for a field's element
    size and for print fmt's sizeof.  A pointer, long and size_t are
    LongSize; the fixed-width types and char, short, int, long long are
    their sizes.

Arguments:

    Type - the type as written, blanks and one trailing "[...]" allowed
        ("unsigned long", "char[]", "u32 *").

    Guess - for a name not in the table (a typedef, a struct): FALSE
        gives 0; TRUE guesses from the words in it, as libtraceevent's
        users expect of a dynamic array's element: char/u8/s8/bool 1,
        short/16 2, long long/64 8, long or '*' LongSize, else 4.

Return Value:

    The size in bytes, or 0 for an unknown type when Guess is FALSE.

--*/
{
    static const struct {
        PCSZ Name;
        ULONG Size;             // 0: the recording's long
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
    PCSZ End = TextTrimEnd(Type, Type + Length);
    ULONG Index;

    Type = TextSkipSpaces(Type, End);
    if (End > Type && End[-1] == ']') {
        PCSZ Bracket = End - 1;

        while (Bracket > Type && *Bracket != '[') {
            Bracket--;
        }
        End = TextTrimEnd(Type, Bracket);
    }

    if (End > Type && End[-1] == '*') {
        return LongSize;
    }
    for (Index = 0; Index < ARRAYSIZE(Sizes); Index++) {
        if (TextEquals(Type, (SIZE_T)(End - Type), Sizes[Index].Name)) {
            return Sizes[Index].Size != 0 ? Sizes[Index].Size : LongSize;
        }
    }
    if (!Guess) {
        return 0;
    }

    if (SpanContains(Type, End, "char") ||
        SpanContains(Type, End, "u8") ||
        SpanContains(Type, End, "s8") ||
        SpanContains(Type, End, "bool")) {
        return 1;
    }
    if (SpanContains(Type, End, "short") ||
        SpanContains(Type, End, "16")) {
        return 2;
    }
    if (SpanContains(Type, End, "long long") ||
        SpanContains(Type, End, "64")) {
        return 8;
    }
    if (SpanContains(Type, End, "long")) {
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
        Type = TextSkipSpaces(Dynamic + 10, TypeEnd);
    } else {
        Dynamic = TextFindString(Type, TypeEnd, "__rel_loc", 9);
        if (Dynamic != NULL) {
            Field->Flags |= TRACE_FIELD_DYNAMIC | TRACE_FIELD_RELATIVE |
                            TRACE_FIELD_ARRAY;
            Type = TextSkipSpaces(Dynamic + 9, TypeEnd);
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
            Field->ElementSize = TraceEventTypeSize(Type,
                                                    (SIZE_T)(TypeEnd - Type),
                                                    Table->LongSize, TRUE);
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
        PCSZ Content = TextSkipSpaces(Cursor, Next);

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
        PCSZ Content = TextSkipSpaces(Cursor, Next);

        if (HasPrefix(Content, Next, "name:")) {
            Name = TextSkipSpaces(Content + 5, Next);
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
    Format->Source = Text;
    Format->SourceLength = (ULONG)Length;
    if (RTL_SUCCESS(Status) && !Defer) {
        Status = CopyString(Table, Text, Length, &Format->Source);
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

PTRACE_EVENT_FORMAT
TraceEventFindByName(
    PTRACE_EVENT_TABLE Table,
    PCSZ Name,
    ULONG Length
    )
{
    ULONG Id;
    ULONG Seen = 0;

    for (Id = 0; Id <= TRACE_EVENT_MAX_ID && Seen < Table->NumberOfEvents;
         Id++) {
        PTRACE_EVENT_FORMAT Format = Table->ById[Id];

        if (Format != NULL) {
            Seen++;
            if (Format->Name != NULL &&
                TextEquals(Name, Length, Format->Name)) {
                return Format;
            }
        }
    }
    return NULL;
}
