/*++

Module Name:

    KvmtraceRules.c

Abstract:

    The kvmtrace `formats` file (seeds/004) made into rules, exactly as the
    seed's Python reads it:

        defs[str(int(ID, 0))] = FORMAT          for each `ID FORMAT` line

    - File: read as UTF-8 text with universal newlines (\n, \r\n and \r end
      a line); blank lines (Python's Unicode whitespace) and lines starting
      with '#' are skipped; any other line must match (\S+)\s+(\S.*) and
      its ID must be an int(ID, 0) literal (0x/0o/0b prefixes, underscores,
      a sign).  A line that does not is an error before any output, as the
      seed's traceback is.  The last rule of an id wins, as in a dict.
    - Each FORMAT, a Python %-format applied to the dict of a record, is
      compiled into ops following CPython's unicode_format_arg_parse: %% ;
      %(KEY) with balanced parentheses; flags - + space # 0; a width; a
      precision; one ignored h, l or L; the conversions d i u o x X e E f
      F g G c s r a.  A first specifier without a key formats the whole
      dict; any later one, and any '*', raises "not enough arguments".
      Python evaluates a format lazily, so a rule that no record uses never
      raises: where Python would raise (unknown key, unsupported
      character, incomplete format, type errors) the rule gets a FAIL op,
      raised when a record reaches it (KvmtraceFormat.c).

    Also the lookup of a record's rule: its event id's, else rule 0.

Environment:

    Core: no C runtime; the OS only through PRTL (the rules' memory).
    Called by the kvmtrace reader (Kvmtrace.c), the formatter
    (KvmtraceFormatter.c) and `tracestore kvmtrace-format`; calls
    KvmtracePython.c (UTF-8, whitespace, int(ID, 0)) and KvmtraceFormat.c's
    key names.

--*/

#include "KvmtraceFormat.h"
#include "KvmtraceOps.h"
#include "KvmtracePython.h"

//
// ---------------------------------------------------------------------------
// Compiling a rule's format into ops.
// ---------------------------------------------------------------------------
//

static
ULONGLONG
ConversionBound(
    PKVMTRACE_OP Op
    )
/*++

Routine Description:

    An upper bound on the bytes one conversion renders.  Values are at
    most 65 bits (reltsc is a difference of two 64-bit TSCs) and floats
    are below 2^65 in magnitude, so integer parts have at most 22 digits.

--*/
{
    ULONGLONG Precision = Op->Precision < 0 ? 6 : (ULONGLONG)Op->Precision;
    ULONGLONG Body;

    switch (Op->Type) {
    case 'c':
        Body = 4;
        break;
    case 's':
    case 'r':
    case 'a':
        Body = Op->Key == KEY_MAPPING ? DICT_REPR_BOUND : 32;
        break;
    case 'e':
    case 'E':
        Body = Precision + 12;
        break;
    case 'f':
    case 'F':
    case 'g':
    case 'G':
        Body = Precision + 32;
        break;
    default:
        Body = (Op->Precision > 22 ? (ULONGLONG)Op->Precision : 22) + 4;
        break;
    }

    return (Op->Width > 0 ? (ULONGLONG)Op->Width : 0) + Body;
}

//
// Where each key's value is in KVMTRACE_VALUES (the fast renderer reads
// it from there; CONVERT ops of Fast rules keep it in Offset).
//

static const ULONG KeyValueOffset[KEY_COUNT] = {
    FIELD_OFFSET(KVMTRACE_VALUES, Tsc),
    FIELD_OFFSET(KVMTRACE_VALUES, Event),
    FIELD_OFFSET(KVMTRACE_VALUES, RelTsc),
    FIELD_OFFSET(KVMTRACE_VALUES, Pid),
    FIELD_OFFSET(KVMTRACE_VALUES, Vcpu),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[0]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[1]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[2]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[3]),
    FIELD_OFFSET(KVMTRACE_VALUES, Data[4]),
};

#define FAST_MAX_WIDTH  16

static
VOID
ClassifyRule(
    PKVMTRACE_RULES Rules,
    PKVMTRACE_RULE Rule
    )
/*++

Routine Description:

    Sets Rule->Keys, and Rule->Fast when every op is a literal or a %d,
    %x or %X of an integer with at most the '0' flag, a width of at most
    16 and no precision: the shapes KvmtraceRender draws without the full
    emulation (the digits, padded on the left).  A %(tsc) printed as a
    float (-c) and the dict itself are not integers; a negative reltsc is
    sent to the emulation when it occurs.

--*/
{
    PKVMTRACE_OP Op = &Rules->Ops[Rule->FirstOp];
    PKVMTRACE_OP End = Op + Rule->OpCount;
    BOOL Fast = TRUE;

    Rule->Keys = 0;

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
    Fast = FALSE;           // the hex digits are built in a little-endian word
#endif

    for (; Op < End; Op++) {
        if (Op->Kind == OP_LITERAL) {
            continue;
        }
        if (Op->Kind != OP_CONVERT) {
            Fast = FALSE;
            continue;
        }
        if (Op->Key == KEY_MAPPING) {
            Rule->Keys |= (1u << KEY_COUNT) - 1;
            Fast = FALSE;
            continue;
        }
        Rule->Keys |= 1u << Op->Key;
        if ((Op->Type != 'd' && Op->Type != 'x' && Op->Type != 'X') ||
            (Op->Flags & ~FLAG_ZERO) != 0 || Op->Precision >= 0 ||
            Op->Width > FAST_MAX_WIDTH ||
            (Op->Key == KEY_TSC && Rules->Mhz != 0)) {
            Fast = FALSE;
            continue;
        }
        Op->Offset = KeyValueOffset[Op->Key];
    }

    Rule->Fast = Fast;
}

typedef struct _COMPILER {
    PKVMTRACE_RULES Rules;
    PKVMTRACE_OP Ops;
    ULONG OpCount;
    ULONG OpCapacity;
} COMPILER, *PCOMPILER;

static
PKVMTRACE_OP
NewOp(
    PCOMPILER Compiler,
    UCHAR Kind
    )
{
    PKVMTRACE_OP Op = &Compiler->Ops[Compiler->OpCount++];

    Op->Kind = Kind;
    Op->Key = 0;
    Op->Type = 0;
    Op->Flags = 0;
    Op->Width = -1;
    Op->Precision = -1;
    Op->Offset = 0;
    Op->Length = 0;
    Op->Reason = 0;
    Op->CodePoint = 0;
    Op->Index = 0;
    return Op;
}

static
PKVMTRACE_OP
FailOp(
    PCOMPILER Compiler,
    ULONG Reason
    )
/*++

Routine Description:

    The op where Python would raise: the rule ends there.

--*/
{
    PKVMTRACE_OP Op = NewOp(Compiler, OP_FAIL);

    Op->Reason = Reason;
    return Op;
}

static
BOOL
CompileKey(
    PCOMPILER Compiler,
    PCSZ *Cursor,
    PCSZ End,
    PULONG Key
    )
/*++

Routine Description:

    "(KEY)" at *Cursor: balanced parentheses, looked up at once, as Python
    does.  FALSE after a FAIL op (an incomplete or unknown key).

--*/
{
    PCSZ Text = Compiler->Rules->Text;
    PCSZ KeyStart = *Cursor + 1;
    PCSZ At = KeyStart;
    ULONG Depth = 1;
    ULONG Index;
    PKVMTRACE_OP Op;

    while (At < End) {
        if (*At == ')') {
            if (--Depth == 0) {
                break;
            }
        } else if (*At == '(') {
            Depth++;
        }
        At++;
    }
    if (At >= End) {
        FailOp(Compiler, FailIncompleteKey);
        return FALSE;
    }

    for (Index = 0; Index < KEY_COUNT; Index++) {
        PCSZ Name = KvmtraceKeyNames[Index];
        SIZE_T Length = RtlStringLength(Name);

        if ((SIZE_T)(At - KeyStart) == Length &&
            Compiler->Rules->Rtl->CompareMemory(KeyStart, Name,
                                                Length) == 0) {
            break;
        }
    }
    if (Index == KEY_COUNT) {
        Op = FailOp(Compiler, FailKey);
        Op->Offset = (ULONG)(KeyStart - Text);
        Op->Length = (ULONG)(At - KeyStart);
        return FALSE;
    }

    *Key = Index;
    *Cursor = At + 1;
    return TRUE;
}

static
ULONG
ParseFieldSpec(
    PCSZ *Cursor,
    PCSZ End,
    BOOL Positional,
    PUCHAR Flags,
    PLONGLONG Width,
    PLONGLONG Precision
    )
/*++

Routine Description:

    Flags, width, precision and length modifier, up to the conversion
    character.  Running off the end anywhere here is "incomplete format".

Return Value:

    0, or the FAIL_REASON Python raises.

--*/
{
    PCSZ At = *Cursor;
    CHAR Char;

    *Flags = 0;
    *Width = -1;
    *Precision = -1;

    for (; At < End; At++) {
        Char = *At;
        if (Char == '-') {
            *Flags |= FLAG_LJUST;
        } else if (Char == '+') {
            *Flags |= FLAG_SIGN;
        } else if (Char == ' ') {
            *Flags |= FLAG_BLANK;
        } else if (Char == '#') {
            *Flags |= FLAG_ALT;
        } else if (Char == '0') {
            *Flags |= FLAG_ZERO;
        } else {
            break;
        }
    }

    if (At < End && *At == '*') {
        return Positional ? FailStar : FailNotEnoughArguments;
    }
    if (At < End && *At >= '0' && *At <= '9') {
        *Width = 0;
        while (At < End && *At >= '0' && *At <= '9') {
            if (*Width <= MAX_FIELD) {
                *Width = *Width * 10 + (*At - '0');
            }
            At++;
        }
    }
    if (At < End && *At == '.') {
        At++;
        *Precision = 0;
        if (At < End && *At == '*') {
            return Positional ? FailStar : FailNotEnoughArguments;
        }
        while (At < End && *At >= '0' && *At <= '9') {
            if (*Precision <= MAX_FIELD) {
                *Precision = *Precision * 10 + (*At - '0');
            }
            At++;
        }
    }
    if (At < End && (*At == 'h' || *At == 'l' || *At == 'L')) {
        At++;
    }
    if (At >= End) {
        return FailIncomplete;
    }

    *Cursor = At;
    return 0;
}

static
ULONG
CheckConversion(
    PCHAR Char,
    ULONG Key,
    LONGLONG Mhz
    )
/*++

Routine Description:

    Whether the conversion *Char takes the value of Key (the dict itself
    for KEY_MAPPING; a float for %(tsc) with -c), as Python checks it
    after taking the argument; d i u become d, s r a become s.

Return Value:

    0, or the FAIL_REASON Python raises (FailUnsupported for a character
    that is no conversion).

--*/
{
    switch (*Char) {
    case 'd':
    case 'i':
    case 'u':
        if (Key == KEY_MAPPING) {
            return FailRealRequired;
        }
        *Char = 'd';
        return 0;
    case 'o':
    case 'x':
    case 'X':
        if (Key == KEY_MAPPING || (Key == KEY_TSC && Mhz != 0)) {
            return FailIntegerRequired;
        }
        return 0;
    case 'e':
    case 'E':
    case 'f':
    case 'F':
    case 'g':
    case 'G':
        return (Key == KEY_MAPPING) ? FailMustBeReal : 0;
    case 'c':
        if (Key == KEY_MAPPING || (Key == KEY_TSC && Mhz != 0)) {
            return FailCharRequired;
        }
        return 0;
    case 's':
    case 'r':
    case 'a':
        *Char = 's';
        return 0;
    default:
        return FailUnsupported;
    }
}

static
BOOL
CompileSpecifier(
    PCOMPILER Compiler,
    PCSZ Start,
    PCSZ *Cursor,
    PCSZ End,
    PBOOL Positional,
    PULONGLONG Bound
    )
/*++

Routine Description:

    The specifier at *Cursor (a '%'), following CPython's
    unicode_format_arg_parse/_format: "%%", or [(KEY)] flags width
    precision length conversion.  The conversion takes the next argument
    first (a keyed value, or the dict once), then checks its type.

Arguments:

    Start - The rule's format (an unsupported character's index counts
        from it).

    Positional - Whether the dict is still there to be consumed.

    Bound - Adds the bytes the specifier can render.

Return Value:

    TRUE, *Cursor past the specifier; FALSE after a FAIL op.

--*/
{
    PCSZ Text = Compiler->Rules->Text;
    PCSZ At = *Cursor + 1;
    PCSZ Counted;
    PKVMTRACE_OP Op;
    ULONG Key = KEY_MAPPING;
    ULONG Reason;
    ULONG CodePoint;
    UCHAR Flags;
    LONGLONG Width;
    LONGLONG Precision;
    CHAR Char;

    if (At >= End) {
        FailOp(Compiler, FailIncomplete);
        return FALSE;
    }
    if (*At == '%') {
        Op = NewOp(Compiler, OP_LITERAL);
        Op->Offset = (ULONG)(At - Text);
        Op->Length = 1;
        *Bound += 1;
        *Cursor = At + 1;
        return TRUE;
    }

    if (*At == '(') {
        if (!CompileKey(Compiler, &At, End, &Key)) {
            return FALSE;
        }
        *Positional = TRUE;         // args = the value, argidx = -2
    }

    Reason = ParseFieldSpec(&At, End, *Positional, &Flags, &Width,
                            &Precision);
    if (Reason != 0) {
        FailOp(Compiler, Reason);
        return FALSE;
    }

    Char = *At;
    if (!*Positional) {
        FailOp(Compiler, FailNotEnoughArguments);
        return FALSE;
    }
    *Positional = FALSE;

    Reason = CheckConversion(&Char, Key, Compiler->Rules->Mhz);
    if (Reason == FailUnsupported) {
        Op = FailOp(Compiler, FailUnsupported);
        KvmtraceUtf8Decode(At, End, &CodePoint);
        Op->CodePoint = CodePoint;
        Op->Index = 0;
        for (Counted = Start; Counted < At; Counted++) {
            Op->Index += ((BYTE)*Counted & 0xc0) != 0x80;
        }
        return FALSE;
    }
    if (Reason != 0) {
        FailOp(Compiler, Reason);
        return FALSE;
    }

    if (Width > MAX_FIELD || Precision > MAX_FIELD) {
        FailOp(Compiler, FailTooWide);
        return FALSE;
    }

    Op = NewOp(Compiler, OP_CONVERT);
    Op->Key = (UCHAR)Key;
    Op->Type = (UCHAR)Char;
    Op->Flags = Flags;
    Op->Width = (LONG)Width;
    Op->Precision = (LONG)Precision;
    *Bound += ConversionBound(Op);
    *Cursor = At + 1;

    if (*Bound > MAX_RULE_LENGTH) {
        FailOp(Compiler, FailTooLong);
        return FALSE;
    }
    return TRUE;
}

static
VOID
CompileFormat(
    PCOMPILER Compiler,
    PKVMTRACE_RULE Rule,
    PCSZ Start,
    PCSZ End
    )
/*++

Routine Description:

    Translates a rule's format into ops: literal text, and each specifier
    (CompileSpecifier).  Compilation stops at the first point where Python
    would raise, with a FAIL op there.

--*/
{
    PCSZ Text = Compiler->Rules->Text;
    PCSZ Cursor = Start;
    PCSZ Literal;
    PKVMTRACE_OP Op;
    BOOL Positional = TRUE;     // the dict is still there to be consumed
    ULONGLONG Bound = 0;

    Rule->FirstOp = Compiler->OpCount;

    while (Cursor < End) {
        if (*Cursor != '%') {
            Literal = Cursor;
            while (Cursor < End && *Cursor != '%') {
                Cursor++;
            }
            Op = NewOp(Compiler, OP_LITERAL);
            Op->Offset = (ULONG)(Literal - Text);
            Op->Length = (ULONG)(Cursor - Literal);
            Bound += Op->Length;
            continue;
        }

        if (!CompileSpecifier(Compiler, Start, &Cursor, End, &Positional,
                              &Bound)) {
            break;
        }
    }

    Rule->OpCount = Compiler->OpCount - Rule->FirstOp;
    if (Bound > MAX_RULE_LENGTH) {
        Bound = MAX_RULE_LENGTH;
    }
    Rule->MaxLength = (ULONG)Bound + 1 + KVMTRACE_RENDER_SLACK;
    ClassifyRule(Compiler->Rules, Rule);
}

//
// ---------------------------------------------------------------------------
// Parsing the rules file.
// ---------------------------------------------------------------------------
//

static
PCSZ
LineEnd(
    PCSZ Start,
    PCSZ End
    )
{
    while (Start < End && *Start != '\n' && *Start != '\r') {
        Start++;
    }
    return Start;
}

static
PCSZ
NextLine(
    PCSZ LineEndPosition,
    PCSZ End
    )
{
    if (LineEndPosition < End && *LineEndPosition == '\r') {
        LineEndPosition++;
        if (LineEndPosition < End && *LineEndPosition == '\n') {
            LineEndPosition++;
        }
    } else if (LineEndPosition < End) {
        LineEndPosition++;
    }
    return LineEndPosition;
}

static inline
BOOL
LookupBefore(
    const KVMTRACE_LOOKUP *A,
    const KVMTRACE_LOOKUP *B
    )
{
    return A->Event < B->Event || (A->Event == B->Event && A->Rule < B->Rule);
}

static
VOID
SiftLookup(
    PKVMTRACE_LOOKUP Lookup,
    ULONG Root,
    ULONG Count
    )
/*++

Routine Description:

    Moves Lookup[Root] down the max-heap Lookup[0..Count) to its place.

--*/
{
    ULONG Child;
    KVMTRACE_LOOKUP Swap;

    for (; (Child = 2 * Root + 1) < Count; Root = Child) {
        if (Child + 1 < Count && LookupBefore(&Lookup[Child],
                                              &Lookup[Child + 1])) {
            Child++;
        }
        if (!LookupBefore(&Lookup[Root], &Lookup[Child])) {
            break;
        }
        Swap = Lookup[Root];
        Lookup[Root] = Lookup[Child];
        Lookup[Child] = Swap;
    }
}

static
VOID
SortLookup(
    PKVMTRACE_LOOKUP Lookup,
    ULONG Count
    )
/*++

Routine Description:

    Heap sort by (Event, Rule), so that the last rule of an id sorts last.

--*/
{
    ULONG Start;
    ULONG Last;
    KVMTRACE_LOOKUP Swap;

    if (Count < 2) {
        return;
    }

    for (Start = Count / 2; Start-- > 0;) {
        SiftLookup(Lookup, Start, Count);
    }

    for (Last = Count - 1; Last > 0; Last--) {
        Swap = Lookup[0];
        Lookup[0] = Lookup[Last];
        Lookup[Last] = Swap;
        SiftLookup(Lookup, 0, Last);
    }
}

static
RTL_STATUS
MeasureText(
    PKVMTRACE_RULES Rules,
    PULONG Lines,
    PULONG Percents,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Checks that the file is UTF-8 text, as Python reads it (anything else
    raises before a rule is used), and counts its lines and its '%'
    characters, which bound the rules and ops.

--*/
{
    PCSZ Text = Rules->Text;
    PCSZ End = Text + Rules->TextLength;
    PCSZ Line;
    SIZE_T Offset;
    ULONG Length;

    *Lines = 0;
    *Percents = 0;

    for (Offset = 0; Offset < Rules->TextLength; Offset += Length) {
        Length = KvmtraceUtf8Length((const BYTE *)Text + Offset,
                                    Rules->TextLength - Offset);
        if (Length == 0) {
            return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, 0, Offset,
                               "%s: byte offset %llu: not UTF-8 text "
                               "(the seed reads the rules as UTF-8)",
                               Rules->Path, (ULONGLONG)Offset);
        }
        if (Text[Offset] == '%') {
            (*Percents)++;
        }
    }

    for (Line = Text; Line < End; Line = NextLine(LineEnd(Line, End), End)) {
        (*Lines)++;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
AllocateRules(
    PKVMTRACE_RULES Rules,
    PCOMPILER Compiler,
    ULONG Lines,
    ULONG Percents,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    One block: rules, ops (at most two per '%' plus one per line), the
    lookup table, and the copy of the text the fast renderer reads.

--*/
{
    PRTL Rtl = Rules->Rtl;
    RTL_STATUS Status;
    PBYTE Memory;
    SIZE_T Size;

    Compiler->Rules = Rules;
    Compiler->OpCount = 0;
    Compiler->OpCapacity = 2 * Percents + Lines + 1;
    Size = (SIZE_T)(Lines + 1) * sizeof(KVMTRACE_RULE) +
           (SIZE_T)Compiler->OpCapacity * sizeof(KVMTRACE_OP) +
           (SIZE_T)(Lines + 1) * sizeof(KVMTRACE_LOOKUP) +
           Rules->TextLength + 32;
    Size = (SIZE_T)ALIGN_UP(Size, RTL_PAGE_SIZE);

    Status = Rtl->AllocatePages(Rtl, Size, (PPVOID)&Memory);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(Error, Status, 0, 0, "%s: %s", Rules->Path,
                           RtlStatusText(Status));
    }
    Rules->Memory = Memory;
    Rules->MemorySize = Size;
    Rules->Rules = (PKVMTRACE_RULE)Memory;
    Compiler->Ops = (PKVMTRACE_OP)(Memory + (SIZE_T)(Lines + 1) *
                                   sizeof(KVMTRACE_RULE));
    Rules->Ops = Compiler->Ops;
    Rules->Lookup = (PKVMTRACE_LOOKUP)((PBYTE)Compiler->Ops +
                                       (SIZE_T)Compiler->OpCapacity *
                                       sizeof(KVMTRACE_OP));
    Rules->Literals = (PCSZ)(Rules->Lookup + Lines + 1);
    Rtl->CopyMemory((PVOID)Rules->Literals, Rules->Text, Rules->TextLength);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ParseRuleLine(
    PKVMTRACE_RULES Rules,
    PCOMPILER Compiler,
    PCSZ Line,
    PCSZ Stop,
    ULONG LineNumber,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    One line of the file: nothing for a blank line or a '#' comment, else
    a rule.  The line must match (\S+)\s+(\S.*): the id, whitespace, then
    at least one more character that is not whitespace; the format runs
    to the end of the line, trailing whitespace included.  A rule whose
    id no record can have is kept but not compiled.

--*/
{
    PKVMTRACE_RULE Rule;
    PCSZ Key;
    PCSZ KeyEnd;
    PCSZ Format;
    ULONG Event;
    BOOL Matchable;

    if (KvmtraceSkipSpace(Line, Stop, TRUE) == Stop || *Line == '#') {
        return RTL_STATUS_OK;
    }

    Key = Line;
    KeyEnd = KvmtraceSkipSpace(Key, Stop, FALSE);
    Format = KvmtraceSkipSpace(KeyEnd, Stop, TRUE);
    if (KeyEnd == Key || Format == KeyEnd || Format == Stop) {
        return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, LineNumber,
                           (ULONGLONG)(Line - Rules->Text),
                           "%s:%u: not a rule (expected EVENT_ID "
                           "FORMAT)", Rules->Path, LineNumber);
    }

    if (!KvmtraceParseEventId(Key, KeyEnd, &Event, &Matchable)) {
        return RtlSetError(Error, RTL_STATUS_BAD_FORMAT, LineNumber,
                           (ULONGLONG)(Line - Rules->Text),
                           "%s:%u: event id '%.*s' is not an integer "
                           "(decimal, 0x, 0o or 0b)", Rules->Path,
                           LineNumber,
                           (int)(KeyEnd - Key > 40 ? 40 : KeyEnd - Key),
                           Key);
    }

    Rule = &Rules->Rules[Rules->RuleCount];
    Rule->Event = Event;
    Rule->Line = LineNumber;
    Rule->FirstOp = Compiler->OpCount;
    Rule->OpCount = 0;
    Rule->MaxLength = 1 + KVMTRACE_RENDER_SLACK;
    Rule->Fast = FALSE;
    Rule->Keys = 0;
    Rule->Padding = 0;

    if (Matchable) {
        CompileFormat(Compiler, Rule, Format, Stop);
        if (Rule->MaxLength > Rules->MaxLength) {
            Rules->MaxLength = Rule->MaxLength;
        }
        Rules->Lookup[Rules->LookupCount].Event = Event;
        Rules->Lookup[Rules->LookupCount].Rule = Rules->RuleCount;
        Rules->LookupCount++;
    }
    Rules->RuleCount++;
    return RTL_STATUS_OK;
}

static
VOID
KeepLastRules(
    PKVMTRACE_RULES Rules
    )
/*++

Routine Description:

    Sorts the lookup by id and keeps the last rule of each id (a later
    line replaces an earlier one in the seed's dict); rule 0, if any, is
    the fallback.

--*/
{
    ULONG Index;
    ULONG Kept;

    SortLookup(Rules->Lookup, Rules->LookupCount);
    for (Index = 0, Kept = 0; Index < Rules->LookupCount; Index++) {
        if (Index + 1 < Rules->LookupCount &&
            Rules->Lookup[Index + 1].Event == Rules->Lookup[Index].Event) {
            continue;
        }
        Rules->Lookup[Kept++] = Rules->Lookup[Index];
    }
    Rules->LookupCount = Kept;

    if (Kept != 0 && Rules->Lookup[0].Event == 0) {
        Rules->FallbackRule = Rules->Lookup[0].Rule;
    }
}

RTL_STATUS
KvmtraceRulesParse(
    PRTL Rtl,
    PCSZ Path,
    PCSZ Text,
    SIZE_T TextLength,
    LONGLONG Mhz,
    PKVMTRACE_RULES Rules,
    PRTL_ERROR Error
    )
/*++

Routine Description:

    Parses a formats file as the seed's read_defs: one rule per line, the
    last rule of an id winning.  The rules refer to Text, which must stay
    valid while they are used.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_BAD_FORMAT (Error names the file and line),
    RTL_STATUS_TOO_LARGE for a file of 1 GB or more, or an allocation
    failure.

--*/
{
    PCSZ End = Text + TextLength;
    PCSZ Line;
    PCSZ Stop;
    ULONG LineNumber;
    ULONG Lines;
    ULONG Percents;
    ULONG Index;
    COMPILER Compiler;
    RTL_STATUS Status;

    Rtl->FillMemory(Rules, sizeof(*Rules), 0);
    Rtl->FillMemory(&Compiler, sizeof(Compiler), 0);
    Rules->Rtl = Rtl;
    Rules->Path = Path;
    Rules->Text = Text;
    Rules->TextLength = TextLength;
    Rules->Mhz = Mhz;
    Rules->TscDivisor = (DOUBLE)Mhz * 1000000.0;
    Rules->FallbackRule = KVMTRACE_NO_RULE;
    for (Index = 0; Index < KVMTRACE_RECENT_EVENTS; Index++) {
        Rules->Recent[Index].Event = 0;
        Rules->Recent[Index].Rule = KVMTRACE_NO_RULE - 1;   // empty
    }

    if (TextLength >= (1u << 30)) {
        return RtlSetError(Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: a formats file of %llu bytes is too large",
                           Path, (ULONGLONG)TextLength);
    }

    Status = MeasureText(Rules, &Lines, &Percents, Error);
    if (RTL_SUCCESS(Status)) {
        Status = AllocateRules(Rules, &Compiler, Lines, Percents, Error);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    LineNumber = 0;
    for (Line = Text; Line < End; Line = NextLine(Stop, End)) {
        LineNumber++;
        Stop = LineEnd(Line, End);

        Status = ParseRuleLine(Rules, &Compiler, Line, Stop, LineNumber,
                               Error);
        if (!RTL_SUCCESS(Status)) {
            KvmtraceRulesFree(Rules);
            return Status;
        }
    }

    Rules->OpCount = Compiler.OpCount;
    KeepLastRules(Rules);
    return RTL_STATUS_OK;
}

VOID
KvmtraceRulesFree(
    PKVMTRACE_RULES Rules
    )
{
    if (Rules->Memory != NULL) {
        Rules->Rtl->Unmap(Rules->Rtl, Rules->Memory, Rules->MemorySize);
        Rules->Memory = NULL;
    }
}

ULONG
KvmtraceRulesFind(
    PKVMTRACE_RULES Rules,
    ULONG Event
    )
/*++

Routine Description:

    A binary search of the sorted ids, behind a direct-mapped cache of
    recent ids (a trace has few).

--*/
{
    PKVMTRACE_LOOKUP Recent;
    ULONG Low = 0;
    ULONG High = Rules->LookupCount;
    ULONG Middle;
    ULONG Rule;

    Recent = &Rules->Recent[(Event ^ (Event >> 16)) %
                            KVMTRACE_RECENT_EVENTS];
    if (Recent->Event == Event && Recent->Rule != KVMTRACE_NO_RULE - 1) {
        return Recent->Rule;
    }

    while (Low < High) {
        Middle = (Low + High) / 2;
        if (Rules->Lookup[Middle].Event < Event) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }

    Rule = Rules->FallbackRule;
    if (Low < Rules->LookupCount && Rules->Lookup[Low].Event == Event) {
        Rule = Rules->Lookup[Low].Rule;
    }

    Recent->Event = Event;
    Recent->Rule = Rule;
    return Rule;
}
