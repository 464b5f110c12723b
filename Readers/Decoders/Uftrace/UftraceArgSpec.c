/*++

Module Name:

    UftraceArgSpec.c

Abstract:

    uftrace's argument spec language (see UftraceArgs.h), learned from
    uftrace's utils/argspec.c, utils/filter.c, utils/auto-args.c and
    libmcount/record.c, written again:

        entry       PATTERN[@ACTION[,ACTION...]]    (';' between entries)
        action      argN[/FMT][%LOC]  fpargN[/BITS][%LOC]  retval[/FMT]
                    or a module name (other actions are ignored here)
        FMT         d i u x [BITS]  s S c p f[BITS]  e:ENUM  tSIZE[:NAME]
        LOC         %REGISTER  %stack+N

    The specs of one function merge as uftrace merges them (a spec for
    the same argument replaces the old one).  A record with arguments is
    followed by each value of the function's specs in order, each padded
    to 4 bytes: a string as a u16 length and its bytes (no NUL), anything
    else in its size; the whole is padded to 8 bytes.

Environment:

    Core: no C runtime, no OS service.  Called by the uftrace reader
    (UftraceSpecs.c, UftraceRecords.c), UftracePattern.c and
    UftraceArgFormat.c; calls TextParse.h.

--*/

#include "UftraceArgsInternal.h"

#define UFTRACE_REGEX_CHARS ".?*+-^$|()[]{}"

//
// ---------------------------------------------------------------------------
// strtol, and the actions' case-insensitive prefixes
// ---------------------------------------------------------------------------
//

PCSZ
UftraceParseLong(
    PCSZ Start,
    PCSZ End,
    ULONG Base,
    PLONGLONG Value
    )
{
    PCSZ Cursor = Start;
    BOOL Negative = FALSE;
    ULONGLONG Result = 0;
    PCSZ Digits;

    *Value = 0;
    while (Cursor < End && TextIsSpace(*Cursor)) {
        Cursor++;
    }
    if (Cursor < End && (*Cursor == '+' || *Cursor == '-')) {
        Negative = (*Cursor == '-');
        Cursor++;
    }
    if ((Base == 0 || Base == 16) && End - Cursor >= 3 && Cursor[0] == '0' &&
        (Cursor[1] == 'x' || Cursor[1] == 'X') &&
        TextHexValue(Cursor[2]) >= 0) {
        Base = 16;
        Cursor += 2;
    } else if (Base == 0) {
        Base = (Cursor < End && *Cursor == '0') ? 8 : 10;
    }

    Digits = Cursor;
    while (Cursor < End) {
        LONG Digit = TextHexValue(*Cursor);

        if (Digit < 0 || (ULONG)Digit >= Base) {
            break;
        }
        Result = Result * Base + (ULONG)Digit;
        Cursor++;
    }
    if (Cursor == Digits) {
        return Start;
    }

    *Value = Negative ? (LONGLONG)(0 - Result) : (LONGLONG)Result;
    return Cursor;
}

static
BOOL
PrefixNoCase(
    PCSZ Start,
    PCSZ End,
    PCSZ Prefix
    )
{
    while (*Prefix != '\0') {
        if (Start >= End || ToLower(*Start) != ToLower(*Prefix)) {
            return FALSE;
        }
        Start++;
        Prefix++;
    }
    return TRUE;
}

//
// ---------------------------------------------------------------------------
// Specs
// ---------------------------------------------------------------------------
//

BOOL
UftraceNextSpecEntry(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ *EntryStart,
    PCSZ *EntryEnd
    )
{
    PCSZ At = *Cursor;

    //
    // strv_split drops the empty pieces.
    //

    while (At < End && *At == ';') {
        At++;
    }
    if (At >= End) {
        *Cursor = End;
        return FALSE;
    }

    *EntryStart = At;
    while (At < End && *At != ';') {
        At++;
    }
    *EntryEnd = At;
    *Cursor = At;
    return TRUE;
}

static
LONG
RegisterNumber(
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    The x86-64 registers an argument spec may name (uftrace's
    arch_register_number): integer argument registers, then xmm0-7.
    -1 when unknown.

--*/
{
    static const PCSZ Names[] = {
        "rdi", "rsi", "rdx", "rcx", "r8", "r9",
        "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
    };
    ULONG Index;

    for (Index = 0; Index < sizeof(Names) / sizeof(Names[0]); Index++) {
        PCSZ Name = Names[Index];
        PCSZ At = Start;

        while (At < End && *Name != '\0' && ToLower(*At) == *Name) {
            At++;
            Name++;
        }
        if (At == End && *Name == '\0') {
            return (LONG)Index;
        }
    }
    return -1;
}

static
BOOL
ParseLocation(
    PCSZ Suffix,
    PCSZ End,
    PUFTRACE_ARG Arg
    )
/*++

Routine Description:

    "%stack+N" or "%REGISTER" at Suffix (which is '%').

--*/
{
    LONGLONG Offset;
    LONG Register;

    Suffix++;
    if (End - Suffix >= 5 && TextEquals(Suffix, 5, "stack")) {
        UftraceParseLong(Suffix + 5, End, 0, &Offset);
        Arg->Location = (LONG)Offset;
        Arg->Type = UFTRACE_LOC_STACK;
        return TRUE;
    }

    Register = RegisterNumber(Suffix, End);
    if (Register < 0) {
        return FALSE;
    }
    Arg->Location = Register;
    Arg->Type = UFTRACE_LOC_REGISTER;
    return TRUE;
}

static
BOOL
ParseEnumFormat(
    PCSZ Suffix,
    PCSZ End,
    PUFTRACE_ARG Arg
    )
/*++

Routine Description:

    "e:NAME[%LOC]" at Suffix: an enum type.

--*/
{
    PCSZ Name = Suffix + 2;
    PCSZ NameEnd = Name;

    if (End - Suffix < 3 || Suffix[1] != ':' ||
        (!IsAlpha(Suffix[2]) && Suffix[2] != '_')) {
        return FALSE;
    }
    while (NameEnd < End && *NameEnd != '%') {
        NameEnd++;
    }
    Arg->Format = UFTRACE_FMT_ENUM;
    Arg->TypeName = Name;
    Arg->TypeNameLength = (ULONG)(NameEnd - Name);
    if (NameEnd < End) {
        return ParseLocation(NameEnd, End, Arg);
    }
    return TRUE;
}

static
BOOL
ParseStructFormat(
    PCSZ Suffix,
    PCSZ End,
    PUFTRACE_ARG Arg
    )
/*++

Routine Description:

    "tSIZE[:NAME][%LOC]" at Suffix: a struct passed by value.

--*/
{
    LONGLONG Value;
    PCSZ After = UftraceParseLong(Suffix + 1, End, 0, &Value);

    if (Value < 0 || Value > 0xffff) {
        return FALSE;
    }
    Arg->Format = UFTRACE_FMT_STRUCT;
    Arg->Size = (ULONG)Value;
    if (After < End && *After == ':') {
        PCSZ Name = After + 1;

        After = Name;
        while (After < End && *After != '%') {
            After++;
        }
        Arg->TypeName = Name;
        Arg->TypeNameLength = (ULONG)(After - Name);
    }
    if (After < End && *After == '%') {
        if (End - After >= 7 && TextEquals(After, 7, "%stack+")) {
            return ParseLocation(After, End, Arg);
        }

        //
        // %REG+REG...: the last register that uftrace knows is the
        // one it compares (an unknown one is skipped).
        //

        while (After < End) {
            PCSZ Next = After + 1;
            LONG Register;

            while (Next < End && *Next != '+') {
                Next++;
            }
            Register = RegisterNumber(After + 1, Next);
            if (Register >= 0) {
                Arg->Location = Register;
                Arg->Type = UFTRACE_LOC_REGISTER;
            }
            After = Next;
        }
    }
    return TRUE;
}

static
BOOL
ParseSize(
    PCSZ Suffix,
    PCSZ End,
    PUFTRACE_ARG Arg
    )
/*++

Routine Description:

    "BITS[%LOC]" at Suffix (after a format letter, or for fparg after the
    '/'): 8, 16, 32 or 64, or 80 for a float (long double).

--*/
{
    LONGLONG Bits;
    PCSZ After = UftraceParseLong(Suffix, End, 10, &Bits);

    if (After == Suffix) {
        Bits = 0;
    }
    Suffix = After;

    switch (Bits) {
    case 8:
    case 16:
    case 32:
    case 64:
        Arg->Size = (ULONG)(Bits / 8);
        break;
    case 80:
        if (Arg->Format == UFTRACE_FMT_FLOAT) {
            Arg->Size = 10;
            break;
        }
        return FALSE;
    default:
        return FALSE;
    }

    if (Suffix < End) {
        if (*Suffix != '%') {
            return FALSE;
        }
        return ParseLocation(Suffix, End, Arg);
    }
    return TRUE;
}

static
BOOL
ParseArgSpec(
    PCSZ Start,
    PCSZ End,
    PUFTRACE_ARG Arg
    )
/*++

Routine Description:

    One "argN/FMT%LOC", "fpargN/BITS", "retval/FMT" (uftrace's
    parse_argspec, LP64).  FALSE for what uftrace rejects.

--*/
{
    PCSZ Suffix;
    LONGLONG Value;

    Arg->Format = UFTRACE_FMT_AUTO;
    Arg->Type = UFTRACE_LOC_INDEX;
    Arg->Size = 8;
    Arg->Location = 0;
    Arg->Exact = 0;
    Arg->Padding = 0;
    Arg->TypeName = NULL;
    Arg->TypeNameLength = 0;
    Arg->Padding2 = 0;

    if (End - Start >= 4 && TextEquals(Start, 3, "arg") &&
        TextIsDigit(Start[3])) {
        Suffix = UftraceParseLong(Start + 3, End, 0, &Value);
        Arg->Index = (LONG)Value;
    } else if (End - Start >= 6 && TextEquals(Start, 6, "retval")) {
        Arg->Index = 0;
        Suffix = Start + 6;
    } else if (End - Start >= 6 && TextEquals(Start, 5, "fparg") &&
               TextIsDigit(Start[5])) {
        Suffix = UftraceParseLong(Start + 5, End, 0, &Value);
        Arg->Index = (LONG)Value;
        Arg->Format = UFTRACE_FMT_FLOAT;
        Arg->Type = UFTRACE_LOC_FLOAT;
    } else {
        return FALSE;
    }

    if (Suffix >= End) {
        return TRUE;
    }
    if (*Suffix == '%') {
        return ParseLocation(Suffix, End, Arg);
    }
    if (*Suffix != '/' || Suffix + 1 >= End) {
        return FALSE;
    }

    Suffix++;
    switch (*Suffix) {
    case 'd':
        Arg->Format = UFTRACE_FMT_AUTO;
        break;
    case 'i':
        Arg->Format = UFTRACE_FMT_SIGNED;
        break;
    case 'u':
        Arg->Format = UFTRACE_FMT_UNSIGNED;
        break;
    case 'x':
        Arg->Format = UFTRACE_FMT_HEX;
        break;
    case 's':
        Arg->Format = UFTRACE_FMT_STRING;
        break;
    case 'c':
        Arg->Format = UFTRACE_FMT_CHAR;
        Arg->Size = 1;
        break;
    case 'f':
        Arg->Format = UFTRACE_FMT_FLOAT;
        Arg->Type = UFTRACE_LOC_FLOAT;
        Arg->Size = 8;
        break;
    case 'S':
        Arg->Format = UFTRACE_FMT_STD_STRING;
        break;
    case 'p':
        Arg->Format = UFTRACE_FMT_POINTER;
        break;
    case 'e':
        return ParseEnumFormat(Suffix, End, Arg);
    case 't':
        return ParseStructFormat(Suffix, End, Arg);
    default:

        //
        // fpargN/BITS: the size right after the '/'.
        //

        if (Arg->Format == UFTRACE_FMT_FLOAT && TextIsDigit(*Suffix)) {
            return ParseSize(Suffix, End, Arg);
        }
        return FALSE;
    }

    Suffix++;
    if (Suffix >= End) {
        return TRUE;
    }
    if (*Suffix == '%') {
        return ParseLocation(Suffix, End, Arg);
    }
    return ParseSize(Suffix, End, Arg);
}

//
// uftrace's trigger actions, in the order it tries them (prefixes,
// case-insensitive), with the flags that decide whether a spec source
// takes them.
//

typedef struct _SPEC_ACTION {
    PCSZ Name;
    ULONG Flags;
    ULONG Kind;
} SPEC_ACTION;

#define ACTION_ARG      1
#define ACTION_FPARG    2
#define ACTION_RETVAL   3
#define ACTION_OTHER    4

#define ACTION_FILTER   0x100       // not an argument flag
#define ACTION_SIGNAL   0x200

static const SPEC_ACTION Actions[] = {
    { "arg", UFTRACE_TRIGGER_ARGUMENT, ACTION_ARG },
    { "fparg", UFTRACE_TRIGGER_ARGUMENT, ACTION_FPARG },
    { "retval", UFTRACE_TRIGGER_RETVAL, ACTION_RETVAL },
    { "filter", ACTION_FILTER, ACTION_OTHER },
    { "notrace", ACTION_FILTER, ACTION_OTHER },
    { "depth=", ACTION_FILTER, ACTION_OTHER },
    { "time=", ACTION_FILTER, ACTION_OTHER },
    { "caller", ACTION_FILTER, ACTION_OTHER },
    { "hide", ACTION_FILTER, ACTION_OTHER },
    { "trace", ACTION_SIGNAL, ACTION_OTHER },
    { "finish", ACTION_SIGNAL, ACTION_OTHER },
    { "read=", 0, ACTION_OTHER },
    { "color=", 0, ACTION_OTHER },
    { "backtrace", 0, ACTION_OTHER },
    { "recover", 0, ACTION_OTHER },
    { "auto-args", 0, ACTION_OTHER },
};

static
VOID
AppendOwnArg(
    PUFTRACE_ARG_LIST List,
    PCUFTRACE_ARG Arg
    )
{
    if (List->Count == UFTRACE_MAX_ARGS) {
        List->Overflow = TRUE;
        return;
    }
    List->Args[List->Count++] = *Arg;
}

static
BOOL
ParseActionList(
    PCSZ Start,
    PCSZ End,
    ULONG SourceFlags,
    PUFTRACE_ARG_LIST Args,
    PULONG Flags,
    PCSZ *Module,
    PCSZ *ModuleEnd
    )
/*++

Routine Description:

    The ','-separated actions Start..End (uftrace's setup_trigger_action
    after the '@').  FALSE when an action the source takes is malformed
    (uftrace then skips the whole entry).

--*/
{
    PCSZ Cursor = Start;

    while (Cursor <= End) {
        PCSZ Action = Cursor;
        PCSZ ActionEnd = Cursor;
        ULONG Index;

        while (ActionEnd < End && *ActionEnd != ',') {
            ActionEnd++;
        }
        Cursor = ActionEnd + 1;

        for (Index = 0; Index < sizeof(Actions) / sizeof(Actions[0]);
             Index++) {
            const SPEC_ACTION *Known = &Actions[Index];
            UFTRACE_ARG Arg;

            if (!PrefixNoCase(Action, ActionEnd, Known->Name)) {
                continue;
            }
            if (SourceFlags != 0 && (SourceFlags & Known->Flags) == 0) {
                break;              // an action this source ignores
            }

            if (Known->Kind == ACTION_ARG &&
                (ActionEnd - Action < 4 || !TextIsDigit(Action[3]))) {
                return FALSE;
            }
            if (Known->Kind == ACTION_FPARG &&
                (ActionEnd - Action < 6 || !TextIsDigit(Action[5]))) {
                return FALSE;
            }
            if (Known->Kind != ACTION_OTHER) {
                if (!ParseArgSpec(Action, ActionEnd, &Arg)) {
                    return FALSE;
                }
                *Flags |= Known->Flags;
                AppendOwnArg(Args, &Arg);
            }
            break;
        }

        if (Index == sizeof(Actions) / sizeof(Actions[0]) &&
            Module != NULL && *Module == NULL) {
            *Module = Action;
            *ModuleEnd = ActionEnd;
        }
    }

    return TRUE;
}

VOID
UftraceParseActions(
    PCSZ Start,
    PCSZ End,
    ULONG SourceFlags,
    PUFTRACE_ARG_LIST Args
    )
{
    ULONG Flags = 0;

    Args->Count = 0;
    Args->Flags = 0;
    Args->Exists = FALSE;
    Args->Overflow = FALSE;

    if (!ParseActionList(Start, End, SourceFlags, Args, &Flags, NULL,
                         NULL)) {
        Args->Count = 0;
    }
    Args->Flags = Flags;
}

BOOL
UftraceParseSpecEntry(
    PCSZ Start,
    PCSZ End,
    ULONG SourceFlags,
    ULONG DefaultPattern,
    PUFTRACE_SPEC_ENTRY Entry
    )
{
    PCSZ At = Start;
    PCSZ Special;

    Entry->Module = NULL;
    Entry->ModuleEnd = NULL;
    Entry->Flags = SourceFlags;
    Entry->Args.Count = 0;
    Entry->Args.Flags = 0;
    Entry->Args.Exists = FALSE;
    Entry->Args.Overflow = FALSE;

    while (At < End && *At != '@') {
        At++;
    }
    Entry->Pattern = Start;
    Entry->PatternEnd = At;

    if (At < End) {
        if (!ParseActionList(At + 1, End, SourceFlags, &Entry->Args,
                             &Entry->Flags, &Entry->Module,
                             &Entry->ModuleEnd)) {
            return FALSE;
        }
    }

    //
    // A pattern without regex characters is a plain name; so is one that
    // starts with "operator " (C++ operators, for the regex type).
    //

    Entry->PatternType = UFTRACE_PATTERN_SIMPLE;
    for (At = Entry->Pattern; At < Entry->PatternEnd; At++) {
        for (Special = UFTRACE_REGEX_CHARS; *Special != '\0'; Special++) {
            if (*At == *Special) {
                Entry->PatternType = DefaultPattern;
            }
        }
    }
    if (Entry->PatternType == UFTRACE_PATTERN_REGEX &&
        Entry->PatternEnd - Entry->Pattern >= 9 &&
        TextEquals(Entry->Pattern, 9, "operator ")) {
        Entry->PatternType = UFTRACE_PATTERN_SIMPLE;
    }

    return TRUE;
}

VOID
UftraceAddArg(
    PUFTRACE_ARG_LIST List,
    PCUFTRACE_ARG Arg,
    BOOL Exact
    )
{
    ULONG Index;

    for (Index = 0; Index < List->Count; Index++) {
        PUFTRACE_ARG Old = &List->Args[Index];
        BOOL Same;

        if (Old->Type != Arg->Type) {
            continue;
        }
        switch (Arg->Type) {
        case UFTRACE_LOC_INDEX:
        case UFTRACE_LOC_FLOAT:
            Same = (Old->Index == Arg->Index);
            break;
        default:
            Same = (Old->Location == Arg->Location);
            break;
        }
        if (!Same) {
            continue;
        }

        //
        // A spec from a plain name is not replaced by one from a pattern.
        // The index stays the old one (uftrace keeps it too).
        //

        if (Exact || !Old->Exact) {
            Old->Format = Arg->Format;
            Old->Size = Arg->Size;
            Old->Exact = (UCHAR)(Exact != FALSE);
            Old->Type = Arg->Type;
            Old->Location = Arg->Location;
            Old->TypeName = Arg->TypeName;
            Old->TypeNameLength = Arg->TypeNameLength;
        }
        return;
    }

    if (List->Count == UFTRACE_MAX_ARGS) {
        List->Overflow = TRUE;
        return;
    }
    List->Args[List->Count] = *Arg;
    List->Args[List->Count].Exact = (UCHAR)(Exact != FALSE);
    List->Count++;
}

VOID
UftraceMergeArgs(
    PUFTRACE_ARG_LIST List,
    const UFTRACE_ARG_LIST *Source,
    BOOL Exact
    )
{
    ULONG Index;

    List->Flags |= Source->Flags;
    if (Source->Flags & (UFTRACE_TRIGGER_ARGUMENT | UFTRACE_TRIGGER_RETVAL)) {
        for (Index = 0; Index < Source->Count; Index++) {
            UftraceAddArg(List, &Source->Args[Index], Exact);
        }
    }
    if (Source->Overflow) {
        List->Overflow = TRUE;
    }
}

static
BOOL
IsStringFormat(
    UCHAR Format
    )
{
    return Format == UFTRACE_FMT_STRING || Format == UFTRACE_FMT_STD_STRING;
}

BOOL
UftraceArgDataSize(
    PCUFTRACE_ARG Args,
    ULONG Count,
    BOOL Retval,
    const BYTE *Data,
    SIZE_T Length,
    PSIZE_T Size
    )
{
    SIZE_T Used = 0;
    ULONG Index;

    for (Index = 0; Index < Count; Index++) {
        PCUFTRACE_ARG Arg = &Args[Index];
        SIZE_T Value = Arg->Size;

        if (Retval != (Arg->Index == 0) || Arg->Size == 0) {
            continue;
        }
        if (IsStringFormat(Arg->Format)) {
            if (Length - Used < 2) {
                return FALSE;
            }
            Value = (SIZE_T)Data[Used] | ((SIZE_T)Data[Used + 1] << 8);
            Used += 2;
        }
        Value = (SIZE_T)ALIGN_UP(Used + Value, 4) - Used;
        if (Length - Used < Value) {
            return FALSE;
        }
        Used += Value;
    }

    Used = (SIZE_T)ALIGN_UP(Used, 8);
    if (Used > Length) {
        return FALSE;
    }
    *Size = Used;
    return TRUE;
}
