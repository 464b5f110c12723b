/*++

Module Name:

    TraceEventPrintScan.c

Abstract:

    This module reads an event's text back into the record it was printed
    from: the print-fmt interpreter run backwards.  Text imports (tracefs
    `trace`, trace-cmd report, perf script) keep only what was printed;
    given the event's format, the fields the text shows are put back at
    their offsets, so that what decodes binary records (perf's scripts
    through `tracestore script`, ftrace_event.raw in SQL) decodes these
    events too.

    The print fmt's items are matched in order: literal text as written;
    a number conversion by its base; a string up to the literal after it;
    __print_symbolic and __print_flags by their tables' names; a ternary
    by either branch (where both match, each is tried with the rest of
    the text), its condition giving a field back when it is "FIELD & BIT",
    "FIELD == VALUE" or "FIELD".  An argument gives its value back when it
    is a field, a cast or mask of one (only the mask's bits), an element
    of an array field, or __get_str of one; other expressions are matched
    but give nothing.

    Text that does not follow the print fmt -- tracefs's own form for the
    syscalls events ("fd: 0x3, buf: 0x7ff..."; "0x4" for an exit), and
    the "field=value" lists printed for events whose print fmt cannot be
    interpreted -- is read as name/value pairs, when it names every field;
    else, for the sched events trace-cmd report prints in its plugin's
    compact form, as that form.  The other plugins' forms (kvm, kmem,
    futex, hrtimer in trace-cmd report) are not read back.

    What the text does not show is 0, and the record is padded to 4
    bytes, as the ring buffer's are.

Environment:

    Core: no C runtime, no OS service.  Included in the print-fmt
    interpreter (TraceEventPrintInternal.h); called by the text path
    (EventText.c).

--*/

#include "TraceEventPrintInternal.h"

typedef struct _SCAN {
    PTRACE_EVENT_TABLE Table;
    PTRACE_EVENT_FORMAT Format;
    PBYTE Record;
    ULONG Capacity;
    ULONG Length;           // the fixed part, then strings appended
    PCSZ Cursor;
    PCSZ End;
} SCAN, *PSCAN;

static
BOOL
IsSpace(
    CHAR Char
    )
{
    return Char == ' ' || Char == '\t';
}

static
BOOL
StartsWith(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Text,
    ULONG Length
    )
{
    ULONG Index;

    if ((ULONG)(End - Cursor) < Length) {
        return FALSE;
    }
    for (Index = 0; Index < Length; Index++) {
        if (Cursor[Index] != Text[Index]) {
            return FALSE;
        }
    }
    return TRUE;
}

static
PCSZ
Find(
    PCSZ Cursor,
    PCSZ End,
    PCSZ Text,
    ULONG Length
    )
{
    for (; Cursor + Length <= End; Cursor++) {
        if (StartsWith(Cursor, End, Text, Length)) {
            return Cursor;
        }
    }
    return NULL;
}

static
VOID
StoreNumber(
    PSCAN Scan,
    PCTRACE_EVENT_FIELD Field,
    ULONG Index,
    ULONGLONG Value
    )
{
    ULONG Size = (Field->Flags & TRACE_FIELD_ARRAY) ? Field->ElementSize :
                                                      Field->Size;
    ULONGLONG At = Field->Offset + (ULONGLONG)Index * Size;
    ULONG Byte;

    if ((Field->Flags & (TRACE_FIELD_DYNAMIC | TRACE_FIELD_STRING)) != 0 ||
        Size == 0 || Size > 8 || At + Size > Scan->Length) {
        return;
    }
    for (Byte = 0; Byte < Size; Byte++) {
        Scan->Record[At + Byte] = (BYTE)(Value >> (8 * Byte));
    }
}

static
VOID
StoreString(
    PSCAN Scan,
    PCTRACE_EVENT_FIELD Field,
    PCSZ Text,
    ULONG Length
    )
/*++

Routine Description:

    A char array's text, NUL-terminated when it fits; a __data_loc or
    __rel_loc string's text appended to the record, with its NUL, and its
    location (offset | length << 16) in the field.

--*/
{
    ULONG Index;

    if (Field->Flags & TRACE_FIELD_DYNAMIC) {
        ULONG At = Scan->Length;
        ULONG Location;

        if (Field->Size != 4 || Length + 1 > 0xffff ||
            Length + 1 > Scan->Capacity - At) {
            return;
        }
        for (Index = 0; Index < Length; Index++) {
            Scan->Record[At + Index] = (BYTE)Text[Index];
        }
        Scan->Record[At + Length] = 0;
        Scan->Length += Length + 1;
        Location = At;
        if (Field->Flags & TRACE_FIELD_RELATIVE) {
            Location -= Field->Offset + Field->Size;
        }
        Location |= (Length + 1) << 16;
        for (Index = 0; Index < 4; Index++) {
            Scan->Record[Field->Offset + Index] = (BYTE)(Location >> (8 * Index));
        }
    } else if (Field->Flags & TRACE_FIELD_ARRAY) {
        for (Index = 0; Index < Length && Index < Field->Size; Index++) {
            Scan->Record[Field->Offset + Index] = (BYTE)Text[Index];
        }
    }
}

static
PCTRACE_EVENT_FIELD
TargetOf(
    PPRINT_ARG Arg,
    PULONG Index
    )
/*++

Routine Description:

    The field an argument shows, if it shows one plainly: the field, a
    cast or a mask of it, an element of an array field (*Index), its
    __get_str.

--*/
{
    *Index = 0;
    while (Arg != NULL) {
        switch (Arg->Type) {
        case ArgField:
        case ArgGetStr:
            return Arg->Field;

        case ArgCast:
            Arg = Arg->A;
            break;

        case ArgOp:
            if (Arg->Op != OpAnd || Arg->A == NULL) {
                return NULL;
            }
            Arg = (Arg->A->Type == ArgAtom) ? Arg->B : Arg->A;
            break;

        case ArgIndex:
            if (Arg->A == NULL || Arg->A->Type != ArgField ||
                Arg->B == NULL || Arg->B->Type != ArgAtom ||
                (Arg->B->Flags & ATOM_NUMERIC) == 0) {
                return NULL;
            }
            *Index = (ULONG)PrintLenientNumber(Arg->B->Text, Arg->B->Length);
            return Arg->A->Field;

        default:
            return NULL;
        }
    }
    return NULL;
}

static
BOOL
IsConstant(
    PPRINT_ARG Arg
    );

static
VOID
StoreArg(
    PSCAN Scan,
    PPRINT_ARG Arg,
    ULONGLONG Value
    )
/*++

Routine Description:

    The field Arg shows (TargetOf) takes Value in the bits Arg's masks
    keep ("FIELD & 0xffff" and "FIELD & ~0xffff" print two parts of one
    field: kvm_exit's reason and its flags); its other bits stay.

--*/
{
    ULONG Index;
    ULONG Size;
    ULONGLONG Mask = ~0ULL;
    PCTRACE_EVENT_FIELD Field = TargetOf(Arg, &Index);
    PPRINT_ARG Walk;

    if (Field == NULL) {
        return;
    }
    for (Walk = Arg; Walk != NULL && Walk->Type != ArgField &&
                     Walk->Type != ArgIndex; ) {
        if (Walk->Type == ArgOp && Walk->Op == OpAnd) {
            PPRINT_ARG Constant = IsConstant(Walk->B) ? Walk->B :
                                  IsConstant(Walk->A) ? Walk->A : NULL;

            if (Constant != NULL) {
                Mask &= PrintEvaluate(Constant, Scan->Table, Scan->Record,
                                      Scan->Length);
            }
            Walk = Constant == Walk->A ? Walk->B : Walk->A;
        } else {
            Walk = Walk->A;
        }
    }
    Size = (Field->Flags & TRACE_FIELD_ARRAY) ? Field->ElementSize :
                                                Field->Size;
    if (Mask != ~0ULL && Size != 0 && Size <= 8 &&
        Field->Offset + (ULONGLONG)Index * Size + Size <= Scan->Length) {
        Value = (Value & Mask) |
                (TraceEventReadNumber(Scan->Record + Field->Offset +
                                      Index * Size, Size) & ~Mask);
    }
    StoreNumber(Scan, Field, Index, Value);
}

static
BOOL
IsConstant(
    PPRINT_ARG Arg
    )
{
    if (Arg == NULL) {
        return TRUE;
    }
    switch (Arg->Type) {
    case ArgAtom:
        return (Arg->Flags & ATOM_NUMERIC) != 0;
    case ArgCast:
        return IsConstant(Arg->A);
    case ArgOp:
        return IsConstant(Arg->A) && IsConstant(Arg->B);
    default:
        return FALSE;
    }
}

static
VOID
SetCondition(
    PSCAN Scan,
    PPRINT_ARG Condition
    )
/*++

Routine Description:

    A ternary printed its true branch, and its condition says what a
    field holds: "FIELD & BIT" (sched_switch's "+" of a preempted task)
    sets the bit, beside what other items put there (a mask of several
    bits does not say which); "FIELD == VALUE" (kvm_exit's isa) stores
    the value.

--*/
{
    PPRINT_ARG Mask;
    PCTRACE_EVENT_FIELD Field;
    ULONG Index;
    ULONG Size;
    ULONGLONG Bit;

    if (Condition != NULL && (Condition->Type == ArgField ||
                              Condition->Type == ArgCast)) {

        //
        // "FIELD ? ..." (kvm_entry's immediate_exit): not 0; 1 for a bool.
        //

        Field = TargetOf(Condition, &Index);
        if (Field != NULL) {
            StoreNumber(Scan, Field, Index, 1);
        }
        return;
    }
    if (Condition == NULL || Condition->Type != ArgOp ||
        (Condition->Op != OpAnd && Condition->Op != OpEq) ||
        Condition->A == NULL) {
        return;
    }
    Mask = IsConstant(Condition->B) ? Condition->B :
           IsConstant(Condition->A) ? Condition->A : NULL;
    if (Mask == NULL) {
        return;
    }
    Field = TargetOf(Mask == Condition->B ? Condition->A : Condition->B,
                     &Index);
    Size = Field == NULL ? 0 : (Field->Flags & TRACE_FIELD_ARRAY) ?
                               Field->ElementSize : Field->Size;
    if (Size == 0 || Size > 8 ||
        Field->Offset + (ULONGLONG)Index * Size + Size > Scan->Length) {
        return;
    }
    Bit = PrintEvaluate(Mask, Scan->Table, Scan->Record, Scan->Length);
    if (Condition->Op == OpEq) {
        StoreNumber(Scan, Field, Index, Bit);
        return;
    }
    if (Bit == 0 || (Bit & (Bit - 1)) != 0) {
        return;
    }
    StoreNumber(Scan, Field, Index,
                TraceEventReadNumber(Scan->Record + Field->Offset +
                                     Index * Size, Size) | Bit);
}

static
BOOL
ScanUnsigned(
    PCSZ *Cursor,
    PCSZ End,
    ULONG Base,
    PULONGLONG Value
    )
{
    PCSZ At = *Cursor;
    PCSZ Digits;
    ULONGLONG Result = 0;

    if (Base == 16 && End - At > 2 && At[0] == '0' &&
        (At[1] == 'x' || At[1] == 'X')) {
        At += 2;
    }
    Digits = At;
    while (At < End) {
        CHAR Char = *At;
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
        Result = Result * Base + Digit;
        At++;
    }
    if (At == Digits) {
        return FALSE;
    }
    *Cursor = At;
    *Value = Result;
    return TRUE;
}

static
BOOL
ScanNumber(
    PSCAN Scan,
    CHAR Conversion,
    PULONGLONG Value
    )
/*++

Routine Description:

    A number as the conversion prints it (after any width's spaces).

--*/
{
    BOOL Negative = FALSE;

    while (Scan->Cursor < Scan->End && IsSpace(*Scan->Cursor)) {
        Scan->Cursor++;
    }
    if (Conversion == 'c') {
        if (Scan->Cursor == Scan->End) {
            return FALSE;
        }
        *Value = (BYTE)*Scan->Cursor++;
        return TRUE;
    }
    if (Scan->Cursor < Scan->End &&
        (*Scan->Cursor == '-' || *Scan->Cursor == '+')) {
        Negative = (*Scan->Cursor == '-');
        Scan->Cursor++;
    }
    if (!ScanUnsigned(&Scan->Cursor, Scan->End,
                      (Conversion == 'x' || Conversion == 'X' ||
                       Conversion == 'p') ? 16 :
                      (Conversion == 'o') ? 8 : 10, Value)) {
        return FALSE;
    }
    if (Negative) {
        *Value = (ULONGLONG)0 - *Value;
    }
    return TRUE;
}

static
ULONG
MatchName(
    PSCAN Scan,
    PPRINT_ARG Arg,
    PLONGLONG Value
    )
/*++

Routine Description:

    The longest of a __print_symbolic / __print_flags table's names at the
    cursor (its length, 0 if none): the value it stands for.

--*/
{
    ULONG Best = 0;
    ULONG Index;

    for (Index = 0; Index < Arg->SymbolCount; Index++) {
        PPRINT_SYMBOL Symbol = &Arg->Symbols[Index];

        if (Symbol->Length > Best &&
            StartsWith(Scan->Cursor, Scan->End, Symbol->Text,
                       Symbol->Length)) {
            Best = Symbol->Length;
            *Value = Symbol->Value;
        }
    }
    return Best;
}

static
BOOL
ScanString(
    PSCAN Scan,
    PPRINT_ARG Arg,
    PCSZ Stop
    )
/*++

Routine Description:

    Matches what a %s item printed of Arg at the cursor; Stop is where
    the literal after the item starts (the end of the text if none).

--*/
{
    PCSZ Start = Scan->Cursor;
    LONGLONG Value = 0;
    ULONGLONG Number;
    ULONG Length;

    switch (Arg->Type) {
    case ArgAtom:
        if (!StartsWith(Scan->Cursor, Scan->End, Arg->Text, Arg->Length)) {
            return FALSE;
        }
        Scan->Cursor += Arg->Length;
        return TRUE;

    case ArgSymbolic:
        Length = MatchName(Scan, Arg, &Value);
        if (Length != 0) {
            Scan->Cursor += Length;
        } else if (ScanUnsigned(&Scan->Cursor, Scan->End, 16, &Number)) {
            Value = (LONGLONG)Number;
        } else {
            return FALSE;
        }
        StoreArg(Scan, Arg->A, (ULONGLONG)Value);
        return TRUE;

    case ArgFlags: {
        ULONGLONG Flags = 0;

        for (;;) {
            Length = MatchName(Scan, Arg, &Value);
            if (Length != 0) {
                Scan->Cursor += Length;
                Flags |= Value > 0 ? (ULONGLONG)Value : 0;
            } else if (ScanUnsigned(&Scan->Cursor, Scan->End, 16, &Number)) {
                Flags |= Number;
            } else {
                break;
            }
            if (Arg->Length == 0 || !StartsWith(Scan->Cursor, Scan->End,
                                                Arg->Text, Arg->Length)) {
                break;
            }
            Scan->Cursor += Arg->Length;
        }
        StoreArg(Scan, Arg->A, Flags);
        return TRUE;
    }

    case ArgTernary: {

        //
        // Either branch; the longer match when both do (one may be "").
        //

        PCSZ AfterB = NULL;

        if (ScanString(Scan, Arg->B, Stop)) {
            AfterB = Scan->Cursor;
        }
        Scan->Cursor = Start;
        if (ScanString(Scan, Arg->C, Stop) &&
            (AfterB == NULL || Scan->Cursor >= AfterB)) {
            return TRUE;
        }
        if (AfterB == NULL) {
            return FALSE;
        }
        Scan->Cursor = Start;
        if (!ScanString(Scan, Arg->B, Stop)) {
            return FALSE;
        }
        SetCondition(Scan, Arg->A);
        return TRUE;
    }

    default: {
        ULONG Index;
        PCTRACE_EVENT_FIELD Field = TargetOf(Arg, &Index);

        if (Stop < Scan->Cursor) {
            return FALSE;
        }
        if (Field != NULL && Arg->Type != ArgCast && Arg->Type != ArgOp) {
            StoreString(Scan, Field, Scan->Cursor,
                        (ULONG)(Stop - Scan->Cursor));
        }
        Scan->Cursor = Stop;
        return TRUE;
    }
    }
}

static
PCSZ
StopOf(
    PSCAN Scan,
    PTRACE_PRINT Print,
    ULONG Index
    )
/*++

Routine Description:

    Where the text of item Index ends: at the first occurrence of the
    literal after it, or at the end of the text when it is the last item
    or another conversion follows.

--*/
{
    PPRINT_ITEM Next;
    PCSZ At;

    if (Index + 1 >= Print->Count) {
        return Scan->End;
    }
    Next = &Print->Items[Index + 1];
    if (Next->Kind != ItemLiteral || Next->Literal == NULL ||
        Next->LiteralLength == 0) {
        return Scan->End;
    }
    At = Find(Scan->Cursor, Scan->End, Next->Literal, Next->LiteralLength);
    return At != NULL ? At : Scan->End;
}

#define SCAN_CHOICES 4

static
BOOL
ScanItems(
    PSCAN Scan,
    ULONG First,
    ULONG Choices
    );

static
BOOL
ScanChoice(
    PSCAN Scan,
    ULONG Index,
    ULONG Choices
    )
/*++

Routine Description:

    A %s item of a ternary whose branches both match here (kvm_exit's
    " " : ""): each branch with the items after it, the longer first; the
    record is put back between tries.

--*/
{
    PPRINT_ARG Arg = Scan->Format->Print->Items[Index].Arg;
    PCSZ Start = Scan->Cursor;
    PCSZ Stop = StopOf(Scan, Scan->Format->Print, Index);
    ULONG Length = Scan->Length;
    BYTE Saved[TRACE_EVENT_TEXT_RECORD_MAX];
    PPRINT_ARG Branches[2];
    PCSZ Ends[2];
    ULONG Try;

    for (Try = 0; Try < 2; Try++) {
        Branches[Try] = Try == 0 ? Arg->B : Arg->C;
        Scan->Cursor = Start;
        Ends[Try] = ScanString(Scan, Branches[Try], Stop) ? Scan->Cursor :
                                                             NULL;
    }
    if (Ends[0] != NULL && Ends[1] != NULL && Ends[0] < Ends[1]) {
        PPRINT_ARG Other = Branches[0];

        Branches[0] = Branches[1];
        Branches[1] = Other;
    }
    Scan->Table->Rtl->CopyMemory(Saved, Scan->Record, Length);
    for (Try = 0; Try < 2; Try++) {
        Scan->Cursor = Start;
        Scan->Length = Length;
        Scan->Table->Rtl->CopyMemory(Scan->Record, Saved, Length);
        if (ScanString(Scan, Branches[Try], Stop)) {
            if (Branches[Try] == Arg->B) {
                SetCondition(Scan, Arg->A);
            }
            if (ScanItems(Scan, Index + 1, Choices + 1)) {
                return TRUE;
            }
        }
    }
    return FALSE;
}

static
BOOL
ScanItems(
    PSCAN Scan,
    ULONG First,
    ULONG Choices
    )
{
    PTRACE_PRINT Print = Scan->Format->Print;
    ULONG Index;
    ULONGLONG Value;

    for (Index = First; Index < Print->Count; Index++) {
        PPRINT_ITEM Item = &Print->Items[Index];
        PCSZ Stop;

        if (Item->HasStar) {
            return FALSE;
        }
        switch (Item->Kind) {
        case ItemLiteral:
            if (Item->Literal == NULL ||
                !StartsWith(Scan->Cursor, Scan->End, Item->Literal,
                            Item->LiteralLength)) {
                return FALSE;
            }
            Scan->Cursor += Item->LiteralLength;
            break;

        case ItemNumber:
            if (!ScanNumber(Scan, Item->Parsed.Conversion, &Value)) {
                return FALSE;
            }
            StoreArg(Scan, Item->Arg, Value);
            break;

        case ItemString:
            if (Item->Arg->Type == ArgTernary && Choices < SCAN_CHOICES &&
                Scan->Length <= TRACE_EVENT_TEXT_RECORD_MAX) {
                return ScanChoice(Scan, Index, Choices);
            }
            Stop = StopOf(Scan, Print, Index);
            if (!ScanString(Scan, Item->Arg, Stop)) {
                return FALSE;
            }
            if (Item->Parsed.Left) {
                while (Scan->Cursor < Stop && IsSpace(*Scan->Cursor)) {
                    Scan->Cursor++;
                }
            }
            break;

        case ItemPointer:
            if (Item->PointerKind == 0 &&
                StartsWith(Scan->Cursor, Scan->End, "(nil)", 5)) {
                Scan->Cursor += 5;
            } else if (Item->PointerKind == 0 &&
                       ScanNumber(Scan, 'x', &Value)) {
                StoreArg(Scan, Item->Arg, Value);
            } else {

                //
                // A symbol (%ps, %pS), a MAC: what it stands for is not
                // kept here; the text up to the next literal is its.
                //

                Scan->Cursor = StopOf(Scan, Print, Index);
            }
            break;
        }
    }
    while (Scan->Cursor < Scan->End && IsSpace(*Scan->Cursor)) {
        Scan->Cursor++;
    }
    return Scan->Cursor == Scan->End;
}

static
CHAR
BaseOf(
    PSCAN Scan
    )
{
    return (Scan->End - Scan->Cursor > 1 && Scan->Cursor[0] == '0' &&
            Scan->Cursor[1] == 'x') ? 'x' : 'd';
}

static
BOOL
ScanPairs(
    PSCAN Scan
    )
/*++

Routine Description:

    The event's fields as "NAME=VALUE" or "NAME: VALUE" pairs (each after
    the start, a space, a comma or a parenthesis); a value is a number,
    or, for a string field, the text to the next space or comma.  TRUE if
    every field but the common ones and __syscall_nr is named.  A text
    that is one number and an event of one such field (a syscall's exit:
    "0x4") is that field's value.

--*/
{
    PTRACE_EVENT_FORMAT Format = Scan->Format;
    PCTRACE_EVENT_FIELD Only = NULL;
    ULONG Fields = 0;
    ULONG Found = 0;
    ULONG Index;
    ULONGLONG Value;

    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        PCTRACE_EVENT_FIELD Field = &Format->Fields[Index];
        ULONG NameLength = (ULONG)RtlStringLength(Field->Name);
        PCSZ At = Scan->Cursor;

        if ((Field->Flags & TRACE_FIELD_COMMON) != 0 ||
            RtlStringEqual(Field->Name, "__syscall_nr")) {
            continue;
        }
        Fields++;
        Only = Field;
        for (;;) {
            PCSZ Value0;

            At = Find(At, Scan->End, Field->Name, NameLength);
            if (At == NULL) {
                break;
            }
            Value0 = At + NameLength;
            if ((At == Scan->Cursor || At[-1] == ' ' || At[-1] == ',' ||
                 At[-1] == '(') && Value0 < Scan->End &&
                (*Value0 == '=' || (*Value0 == ':' && Value0 + 1 < Scan->End &&
                                    Value0[1] == ' '))) {
                PCSZ Start = Scan->Cursor;

                Scan->Cursor = Value0 + (*Value0 == '=' ? 1 : 2);
                if (Field->Flags & (TRACE_FIELD_STRING | TRACE_FIELD_DYNAMIC)) {
                    PCSZ Stop = Scan->Cursor;

                    while (Stop < Scan->End && *Stop != ' ' && *Stop != ',') {
                        Stop++;
                    }
                    StoreString(Scan, Field, Scan->Cursor,
                                (ULONG)(Stop - Scan->Cursor));
                    Found++;
                } else if (ScanNumber(Scan, BaseOf(Scan), &Value)) {
                    StoreNumber(Scan, Field, 0, Value);
                    Found++;
                }
                Scan->Cursor = Start;
                break;
            }
            At++;
        }
    }

    if (Found == 0 && Fields == 1) {
        PCSZ Start = Scan->Cursor;

        if (ScanNumber(Scan, BaseOf(Scan), &Value) &&
            Scan->Cursor == Scan->End) {
            StoreNumber(Scan, Only, 0, Value);
            return TRUE;
        }
        Scan->Cursor = Start;
    }
    return Fields != 0 && Found == Fields;
}

static
BOOL
ScanTask(
    PSCAN Scan,
    PCSZ Prefix,
    PCSZ Stop
    )
/*++

Routine Description:

    "COMM:PID [PRIO]" before Stop, as libtraceevent's sched plugin prints
    a task, into the fields PREFIXcomm, PREFIXpid and PREFIXprio (the comm
    may hold ':'; the pid follows the last one).

--*/
{
    static const PCSZ Names[] = { "comm", "pid", "prio" };
    PCTRACE_EVENT_FIELD Fields[3];
    CHAR Name[32];
    PCSZ Open = Find(Scan->Cursor, Stop, " [", 2);
    PCSZ Colon;
    ULONGLONG Pid, Prio;
    ULONG Index, Length;

    for (Index = 0; Index < 3; Index++) {
        Length = 0;
        while (Prefix[Length] != '\0') {
            Name[Length] = Prefix[Length];
            Length++;
        }
        RtlFormat(Name + Length, sizeof(Name) - Length, "%s", Names[Index]);
        Fields[Index] = TraceEventFindField(Scan->Format, Name);
        if (Fields[Index] == NULL) {
            return FALSE;
        }
    }
    if (Open == NULL) {
        return FALSE;
    }
    for (Colon = Open - 1; Colon > Scan->Cursor && *Colon != ':'; Colon--) {
    }
    if (Colon <= Scan->Cursor) {
        return FALSE;
    }
    StoreString(Scan, Fields[0], Scan->Cursor, (ULONG)(Colon - Scan->Cursor));
    Scan->Cursor = Colon + 1;
    if (!ScanNumber(Scan, 'd', &Pid) || Scan->Cursor != Open) {
        return FALSE;
    }
    Scan->Cursor += 2;
    if (!ScanNumber(Scan, 'd', &Prio) || Scan->Cursor >= Stop ||
        *Scan->Cursor != ']') {
        return FALSE;
    }
    Scan->Cursor++;
    StoreNumber(Scan, Fields[1], 0, Pid);
    StoreNumber(Scan, Fields[2], 0, Prio);
    return TRUE;
}

static
BOOL
ScanLabeledNumber(
    PSCAN Scan,
    PCSZ Label,
    PCSZ FieldName
    )
/*++

Routine Description:

    An optional "LABEL NUMBER" at the cursor into the field FieldName:
    TRUE if it is absent or read, FALSE if the event has no such field or
    no number follows.

--*/
{
    ULONG Length = (ULONG)RtlStringLength(Label);
    PCTRACE_EVENT_FIELD Field;
    ULONGLONG Value;

    if (!StartsWith(Scan->Cursor, Scan->End, Label, Length)) {
        return TRUE;
    }
    Field = TraceEventFindField(Scan->Format, FieldName);
    Scan->Cursor += Length;
    if (Field == NULL || !ScanNumber(Scan, 'd', &Value)) {
        return FALSE;
    }
    StoreNumber(Scan, Field, 0, Value);
    return TRUE;
}

static
BOOL
ScanSchedPlugin(
    PSCAN Scan
    )
/*++

Routine Description:

    The forms trace-cmd report prints sched_switch and the wakeups in
    (libtraceevent's sched plugin; TraceEventImport.c writes the same):
    "A:1 [120] S|D ==> B:2 [120]", with the state letters "SDTtZXxW" of
    bits 0-7 or R for none; "A:1 [120] [success=1] CPU:002".

--*/
{
    static const CHAR States[] = "SDTtZXxW";
    PCSZ Arrow = Find(Scan->Cursor, Scan->End, " ==> ", 5);

    if (Arrow != NULL) {
        PCTRACE_EVENT_FIELD State = TraceEventFindField(Scan->Format,
                                                        "prev_state");
        ULONGLONG Bits = 0;

        if (State == NULL || !ScanTask(Scan, "prev_", Arrow) ||
            Scan->Cursor == Arrow || *Scan->Cursor++ != ' ') {
            return FALSE;
        }
        while (Scan->Cursor < Arrow) {
            ULONG Bit;

            for (Bit = 0; Bit < 8 && States[Bit] != *Scan->Cursor; Bit++) {
            }
            if (Bit < 8) {
                Bits |= 1ULL << Bit;
            } else if (*Scan->Cursor != 'R' && *Scan->Cursor != '|') {
                return FALSE;
            }
            Scan->Cursor++;
        }
        StoreNumber(Scan, State, 0, Bits);
        Scan->Cursor = Arrow + 5;
        return ScanTask(Scan, "next_", Scan->End) &&
               Scan->Cursor == Scan->End;
    }

    if (!ScanTask(Scan, "", Scan->End)) {
        return FALSE;
    }
    return ScanLabeledNumber(Scan, " success=", "success") &&
           ScanLabeledNumber(Scan, " CPU:", "target_cpu") &&
           Scan->Cursor == Scan->End;
}

BOOL
TraceEventScanText(
    PTRACE_EVENT_TABLE Table,
    PTRACE_EVENT_FORMAT Format,
    PCSZ Text,
    ULONG Length,
    ULONG Pid,
    PBYTE Record,
    ULONG Capacity,
    PULONG RecordLength
    )
{
    SCAN Scan;
    ULONG Fixed = Format->TextRecordSize;
    ULONG Index;
    PCTRACE_EVENT_FIELD Field;

    if (Fixed == 0) {
        for (Index = 0; Index < Format->NumberOfFields; Index++) {
            Field = &Format->Fields[Index];
            if (Field->Offset + Field->Size > Fixed) {
                Fixed = Field->Offset + Field->Size;
            }
        }
        Format->TextRecordSize = Fixed;
        Format->TextFlags = TraceEventFindField(Format, "common_flags");
        Format->TextPreempt = TraceEventFindField(Format,
                                                  "common_preempt_count");
    }
    if (Fixed > Capacity || Fixed < Table->TypeOffset + Table->TypeSize ||
        Fixed < Table->PidOffset + Table->PidSize) {
        return FALSE;
    }

    Scan.Table = Table;
    Scan.Format = Format;
    Scan.Record = Record;
    Scan.Capacity = Capacity;

    for (Index = 0; Index < 3; Index++) {
        Scan.Length = Fixed;
        Scan.Cursor = Text;
        Scan.End = Text + Length;
        Table->Rtl->FillMemory(Record, Fixed, 0);
        if (Index == 0) {
            if (Format->PrintState == TRACE_PRINT_STATE_NEW) {
                PrintCompile(Table, Format);
            }
            if (Format->PrintState == TRACE_PRINT_STATE_READY &&
                ScanItems(&Scan, 0, 0)) {
                break;
            }
        } else if (Index == 1 ? ScanPairs(&Scan) : ScanSchedPlugin(&Scan)) {
            break;
        }
    }
    if (Index == 3) {
        return FALSE;
    }

    for (Index = 0; Index < Table->TypeSize && Index < 8; Index++) {
        Record[Table->TypeOffset + Index] = (BYTE)(Format->Id >> (8 * Index));
    }
    for (Index = 0; Index < Table->PidSize && Index < 8; Index++) {
        Record[Table->PidOffset + Index] = (BYTE)(Pid >> (8 * Index));
    }

    //
    // The ring buffer's records are a multiple of 4 bytes long.
    //

    while ((Scan.Length & 3) != 0 && Scan.Length < Capacity) {
        Record[Scan.Length++] = 0;
    }
    *RecordLength = Scan.Length;
    return TRUE;
}
