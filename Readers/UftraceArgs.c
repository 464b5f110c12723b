/*++

Module Name:

    UftraceArgs.c

Abstract:

    uftrace's argument specs and argument text (see UftraceArgs.h), learned
    from uftrace's utils/argspec.c, utils/filter.c, utils/auto-args.c,
    libmcount/record.c and cmds/replay.c, written again:

        entry       PATTERN[@ACTION[,ACTION...]]    (';' between entries)
        action      argN[/FMT][%LOC]  fpargN[/BITS][%LOC]  retval[/FMT]
                    or a module name (other actions are ignored here)
        FMT         d i u x [BITS]  s S c p f[BITS]  e:ENUM  tSIZE[:NAME]
        LOC         %REGISTER  %stack+N

    A record with arguments is followed by each value of the function's
    specs in order, each padded to 4 bytes: a string as a u16 length and
    its bytes (no NUL), anything else in its size; the whole is padded to
    8 bytes.

    Values print as `uftrace replay` prints them: integers in decimal, or
    in hex beyond +-100000 (d, u); hex (x); pointers as &SYMBOL, 0x... or
    0; strings quoted with \0 \b \n escaped (a string with a byte >= 0x80
    prints raw), "NULL"; chars quoted; floats as printf's "%#f" (exactly,
    from the binary value); enums by name, OR-ed flags or number; structs
    as NAME{...}.

    Patterns: a pattern without any of ".?*+-^$|()[]{}" matches by name;
    otherwise it is a POSIX extended regex searched in the name (a small
    Thompson NFA here), or a glob when the recording says pattern_type
    glob.  A regex that does not compile matches by name, as uftrace's
    fallback does.

--*/

#include "UftraceArgs.h"

#define UFTRACE_REGEX_CHARS ".?*+-^$|()[]{}"

//
// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------
//

VOID
UftraceTextPut(
    PUFTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Text->Length + 1 < Text->Capacity) {
        Text->Buffer[Text->Length++] = Char;
    }
}

VOID
UftraceTextAppend(
    PUFTRACE_TEXT Text,
    PCSZ String,
    SIZE_T Length
    )
{
    SIZE_T Room = (Text->Length + 1 < Text->Capacity) ?
                  Text->Capacity - 1 - Text->Length : 0;

    if (Length > Room) {
        Length = Room;
    }
    __builtin_memcpy(Text->Buffer + Text->Length, String, Length);
    Text->Length += (ULONG)Length;
}

static
VOID
TextPutString(
    PUFTRACE_TEXT Text,
    PCSZ String
    )
{
    while (*String != '\0') {
        UftraceTextPut(Text, *String++);
    }
}

static
VOID
TextPutUnsigned(
    PUFTRACE_TEXT Text,
    ULONGLONG Value,
    ULONG Base,
    ULONG MinimumDigits
    )
{
    CHAR Digits[24];
    ULONG Count = 0;

    do {
        ULONG Digit = (ULONG)(Value % Base);

        Digits[Count++] = (CHAR)(Digit < 10 ? '0' + Digit : 'a' + Digit - 10);
        Value /= Base;
    } while (Value != 0);

    while (Count < MinimumDigits && Count < sizeof(Digits)) {
        Digits[Count++] = '0';
    }
    while (Count != 0) {
        UftraceTextPut(Text, Digits[--Count]);
    }
}

static
VOID
TextPutSigned(
    PUFTRACE_TEXT Text,
    LONGLONG Value
    )
{
    if (Value < 0) {
        UftraceTextPut(Text, '-');
        TextPutUnsigned(Text, (ULONGLONG)0 - (ULONGLONG)Value, 10, 1);
    } else {
        TextPutUnsigned(Text, (ULONGLONG)Value, 10, 1);
    }
}

//
// printf's "%#x": hex with 0x, except for zero.
//

static
VOID
TextPutHex(
    PUFTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    if (Value != 0) {
        UftraceTextPut(Text, '0');
        UftraceTextPut(Text, 'x');
    }
    TextPutUnsigned(Text, Value, 16, 1);
}

VOID
UftraceJsonEscape(
    PUFTRACE_TEXT Text,
    PCSZ String,
    SIZE_T Length
    )
{
    static const CHAR Hex[] = "0123456789abcdef";
    SIZE_T Index;
    SIZE_T Plain = 0;

    for (Index = 0; Index < Length; Index++) {
        UCHAR Char = (UCHAR)String[Index];

        //
        // Runs of characters that need no escape go in one copy.
        //

        if (Char >= 0x20 && Char != '"' && Char != '\\' && Char != 0x7f) {
            continue;
        }
        UftraceTextAppend(Text, String + Plain, Index - Plain);
        Plain = Index + 1;

        switch (Char) {
        case '"':
            TextPutString(Text, "\\\"");
            break;
        case '\\':
            TextPutString(Text, "\\\\");
            break;
        case '\n':
            TextPutString(Text, "\\n");
            break;
        case '\t':
            TextPutString(Text, "\\t");
            break;
        case '\r':
            TextPutString(Text, "\\r");
            break;
        case '\b':
            TextPutString(Text, "\\b");
            break;
        case '\f':
            TextPutString(Text, "\\f");
            break;
        default:
            TextPutString(Text, "\\u00");
            UftraceTextPut(Text, Hex[Char >> 4]);
            UftraceTextPut(Text, Hex[Char & 15]);
            break;
        }
    }
    UftraceTextAppend(Text, String + Plain, Length - Plain);
}

//
// ---------------------------------------------------------------------------
// Character helpers (the C locale's)
// ---------------------------------------------------------------------------
//

static BOOL IsDigit(CHAR C) { return C >= '0' && C <= '9'; }
static BOOL IsAlpha(CHAR C) { return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z'); }
static BOOL IsSpace(CHAR C) { return C == ' ' || (C >= '\t' && C <= '\r'); }
static BOOL IsPunct(CHAR C)
{
    return (C >= '!' && C <= '/') || (C >= ':' && C <= '@') ||
           (C >= '[' && C <= '`') || (C >= '{' && C <= '~');
}
static CHAR ToLower(CHAR C) { return (C >= 'A' && C <= 'Z') ? (CHAR)(C + 32) : C; }

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

static
BOOL
SpanEquals(
    PCSZ Start,
    PCSZ End,
    PCSZ Literal
    )
{
    while (Start < End && *Literal != '\0' && *Start == *Literal) {
        Start++;
        Literal++;
    }
    return Start == End && *Literal == '\0';
}

//
// strtol(..., base): optional sign, then digits of Base (0: 0x hex, 0
// octal, else decimal).  Returns where it stopped (Start if no digits).
//

static
PCSZ
ParseLong(
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
    while (Cursor < End && IsSpace(*Cursor)) {
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

//
// ---------------------------------------------------------------------------
// POSIX extended regular expressions (search, no sub-matches)
// ---------------------------------------------------------------------------
//
// The pattern is parsed into a small tree, compiled into a Thompson NFA
// (repetitions expanded) and run over the name with a set of states, in
// time linear in the name.  Limits keep the work bounded; a pattern over
// them, like one that does not parse, "fails to compile".
//

#define RX_MAX_NODES    256
#define RX_MAX_STATES   2048
#define RX_MAX_CLASSES  32
#define RX_MAX_REPEAT   255

#define RX_CHAR     1
#define RX_ANY      2
#define RX_CLASS    3
#define RX_BOL      4
#define RX_EOL      5
#define RX_CAT      6
#define RX_ALT      7
#define RX_REPEAT   8
#define RX_EMPTY    9
#define RX_SPLIT    10
#define RX_JUMP     11
#define RX_MATCH    12

typedef struct _RX_NODE {
    UCHAR Kind;
    UCHAR Char;
    USHORT Class;
    USHORT Left;
    USHORT Right;
    USHORT Minimum;
    USHORT Maximum;         // RX_MAX_REPEAT + 1: no bound
} RX_NODE;

typedef struct _RX_STATE {
    UCHAR Kind;
    UCHAR Char;
    USHORT Class;
    USHORT Out;
    USHORT Out1;
} RX_STATE;

typedef struct _RX {
    PCSZ Cursor;
    PCSZ End;
    BOOL Failed;
    ULONG NodeCount;
    ULONG StateCount;
    ULONG ClassCount;
    RX_NODE Nodes[RX_MAX_NODES];
    RX_STATE States[RX_MAX_STATES];
    UCHAR Classes[RX_MAX_CLASSES][32];
    USHORT ListA[RX_MAX_STATES];
    USHORT ListB[RX_MAX_STATES];
    ULONG Mark[RX_MAX_STATES];
} RX, *PRX;

static
USHORT
RxNode(
    PRX Rx,
    UCHAR Kind
    )
{
    RX_NODE *Node;

    if (Rx->NodeCount >= RX_MAX_NODES) {
        Rx->Failed = TRUE;
        return 0;
    }
    Node = &Rx->Nodes[Rx->NodeCount];
    Node->Kind = Kind;
    Node->Char = 0;
    Node->Class = 0;
    Node->Left = 0;
    Node->Right = 0;
    Node->Minimum = 0;
    Node->Maximum = 0;
    return (USHORT)Rx->NodeCount++;
}

static
BOOL
RxClassName(
    PCSZ Name,
    ULONG Length,
    UCHAR Char
    )
/*++

Routine Description:

    Whether Char is in the POSIX class [:Name:] (C locale).  Sets nothing
    for an unknown name (the caller rejects it).

--*/
{
    CHAR C = (CHAR)Char;

#define RX_IS(Literal) (Length == sizeof(Literal) - 1 && \
                        SpanEquals(Name, Name + Length, Literal))

    if (RX_IS("alpha")) return IsAlpha(C);
    if (RX_IS("digit")) return IsDigit(C);
    if (RX_IS("alnum")) return IsAlpha(C) || IsDigit(C);
    if (RX_IS("upper")) return C >= 'A' && C <= 'Z';
    if (RX_IS("lower")) return C >= 'a' && C <= 'z';
    if (RX_IS("space")) return IsSpace(C);
    if (RX_IS("blank")) return C == ' ' || C == '\t';
    if (RX_IS("punct")) return IsPunct(C);
    if (RX_IS("print")) return Char >= 0x20 && Char < 0x7f;
    if (RX_IS("graph")) return Char > 0x20 && Char < 0x7f;
    if (RX_IS("cntrl")) return Char < 0x20 || Char == 0x7f;
    if (RX_IS("xdigit")) return TextHexValue(C) >= 0;
    return FALSE;

#undef RX_IS
}

static
BOOL
RxKnownClass(
    PCSZ Name,
    ULONG Length
    )
{
    static const PCSZ Names[] = {
        "alpha", "digit", "alnum", "upper", "lower", "space", "blank",
        "punct", "print", "graph", "cntrl", "xdigit",
    };
    ULONG Index;

    for (Index = 0; Index < sizeof(Names) / sizeof(Names[0]); Index++) {
        if (SpanEquals(Name, Name + Length, Names[Index])) {
            return TRUE;
        }
    }
    return FALSE;
}

static
VOID
RxSetBit(
    UCHAR *Class,
    UCHAR Char
    )
{
    Class[Char >> 3] |= (UCHAR)(1u << (Char & 7));
}

static
BOOL
ParseBracket(
    PCSZ *Cursor,
    PCSZ End,
    UCHAR *Class
    )
/*++

Routine Description:

    Parses a bracket expression after its '[' (for the regex and the glob
    alike: Negate is '^' for a regex, '!' or '^' for a glob, handled by the
    caller) up to its ']', into the 256-bit Class.  FALSE when it is not
    closed or malformed.

--*/
{
    PCSZ Start = *Cursor;
    PCSZ At = Start;
    ULONG Index;

    for (Index = 0; Index < 32; Index++) {
        Class[Index] = 0;
    }

    while (At < End) {
        UCHAR First;
        UCHAR Last;

        if (*At == ']' && At != Start) {
            *Cursor = At + 1;
            return TRUE;
        }

        if (*At == '[' && At + 1 < End &&
            (At[1] == ':' || At[1] == '.' || At[1] == '=')) {
            CHAR Kind = At[1];
            PCSZ Name = At + 2;
            PCSZ NameEnd = Name;

            while (NameEnd + 1 < End &&
                   !(NameEnd[0] == Kind && NameEnd[1] == ']')) {
                NameEnd++;
            }
            if (NameEnd + 1 >= End) {
                return FALSE;
            }
            if (Kind == ':') {
                ULONG Char;

                if (!RxKnownClass(Name, (ULONG)(NameEnd - Name))) {
                    return FALSE;
                }
                for (Char = 0; Char < 256; Char++) {
                    if (RxClassName(Name, (ULONG)(NameEnd - Name),
                                    (UCHAR)Char)) {
                        RxSetBit(Class, (UCHAR)Char);
                    }
                }
                At = NameEnd + 2;
                continue;
            }

            //
            // [.c.] and [=c=]: a single character only.
            //

            if (NameEnd - Name != 1) {
                return FALSE;
            }
            First = (UCHAR)*Name;
            At = NameEnd + 2;
        } else {
            First = (UCHAR)*At++;
        }

        Last = First;
        if (At + 1 < End && *At == '-' && At[1] != ']') {
            Last = (UCHAR)At[1];
            At += 2;
            if (Last < First) {
                return FALSE;
            }
        }
        for (Index = First; Index <= Last; Index++) {
            RxSetBit(Class, (UCHAR)Index);
        }
    }

    return FALSE;
}

static USHORT RxParseAlternation(PRX Rx, ULONG Level);

static
USHORT
RxParseAtom(
    PRX Rx,
    ULONG Level
    )
{
    CHAR C = *Rx->Cursor;
    USHORT Node;

    switch (C) {
    case '(':
        Rx->Cursor++;
        Node = RxParseAlternation(Rx, Level + 1);
        if (Rx->Cursor >= Rx->End || *Rx->Cursor != ')') {
            Rx->Failed = TRUE;
            return 0;
        }
        Rx->Cursor++;
        return Node;

    case '.':
        Rx->Cursor++;
        return RxNode(Rx, RX_ANY);

    case '^':
        Rx->Cursor++;
        return RxNode(Rx, RX_BOL);

    case '$':
        Rx->Cursor++;
        return RxNode(Rx, RX_EOL);

    case '[': {
        BOOL Negate = FALSE;
        ULONG Index;

        Rx->Cursor++;
        if (Rx->Cursor < Rx->End && *Rx->Cursor == '^') {
            Negate = TRUE;
            Rx->Cursor++;
        }
        if (Rx->ClassCount >= RX_MAX_CLASSES ||
            !ParseBracket(&Rx->Cursor, Rx->End,
                          Rx->Classes[Rx->ClassCount])) {
            Rx->Failed = TRUE;
            return 0;
        }
        if (Negate) {
            for (Index = 0; Index < 32; Index++) {
                Rx->Classes[Rx->ClassCount][Index] ^= 0xff;
            }
        }
        Node = RxNode(Rx, RX_CLASS);
        Rx->Nodes[Node].Class = (USHORT)Rx->ClassCount++;
        return Node;
    }

    case '\\':
        if (Rx->Cursor + 1 >= Rx->End) {
            Rx->Failed = TRUE;
            return 0;
        }
        Rx->Cursor++;
        C = *Rx->Cursor;
        break;

    case '*':
    case '+':
    case '?':
    case '{':
        Rx->Failed = TRUE;          // nothing to repeat (REG_BADRPT)
        return 0;

    case ')':
        if (Level > 0) {
            Rx->Failed = TRUE;
            return 0;
        }
        break;                      // unmatched: an ordinary character

    default:
        break;
    }

    Rx->Cursor++;
    Node = RxNode(Rx, RX_CHAR);
    Rx->Nodes[Node].Char = (UCHAR)C;
    return Node;
}

static
USHORT
RxParseRepeat(
    PRX Rx,
    ULONG Level
    )
{
    CHAR First = *Rx->Cursor;
    USHORT Node = RxParseAtom(Rx, Level);

    //
    // A bare anchor takes no repetition: what follows it starts a new
    // atom (so "^*" does not compile, as with glibc's regcomp; "(^)*"
    // does).
    //

    if (First == '^' || First == '$') {
        return Node;
    }

    while (!Rx->Failed && Rx->Cursor < Rx->End) {
        CHAR C = *Rx->Cursor;
        LONGLONG Minimum;
        LONGLONG Maximum;
        USHORT Repeat;

        if (C == '*') {
            Minimum = 0;
            Maximum = RX_MAX_REPEAT + 1;
            Rx->Cursor++;
        } else if (C == '+') {
            Minimum = 1;
            Maximum = RX_MAX_REPEAT + 1;
            Rx->Cursor++;
        } else if (C == '?') {
            Minimum = 0;
            Maximum = 1;
            Rx->Cursor++;
        } else if (C == '{') {
            PCSZ After = Rx->Cursor + 1;

            //
            // {N}, {N,}, {N,M}, and glibc's {,M} (from 0).
            //

            Minimum = 0;
            if (After < Rx->End && IsDigit(*After)) {
                After = ParseLong(After, Rx->End, 10, &Minimum);
            } else if (After >= Rx->End || *After != ',') {
                Rx->Failed = TRUE;
                return 0;
            }
            Maximum = Minimum;
            if (After < Rx->End && *After == ',') {
                After++;
                if (After < Rx->End && IsDigit(*After)) {
                    After = ParseLong(After, Rx->End, 10, &Maximum);
                } else {
                    Maximum = RX_MAX_REPEAT + 1;
                }
            }
            if (After >= Rx->End || *After != '}' || Maximum < Minimum ||
                Minimum > RX_MAX_REPEAT ||
                (Maximum > RX_MAX_REPEAT && Maximum != RX_MAX_REPEAT + 1)) {
                Rx->Failed = TRUE;
                return 0;
            }
            Rx->Cursor = After + 1;
        } else {
            break;
        }

        Repeat = RxNode(Rx, RX_REPEAT);
        Rx->Nodes[Repeat].Left = Node;
        Rx->Nodes[Repeat].Minimum = (USHORT)Minimum;
        Rx->Nodes[Repeat].Maximum = (USHORT)Maximum;
        Node = Repeat;
    }

    return Node;
}

static
USHORT
RxParseConcatenation(
    PRX Rx,
    ULONG Level
    )
{
    USHORT Node = 0;
    BOOL Any = FALSE;

    while (!Rx->Failed && Rx->Cursor < Rx->End && *Rx->Cursor != '|' &&
           !(*Rx->Cursor == ')' && Level > 0)) {
        USHORT Next = RxParseRepeat(Rx, Level);

        if (!Any) {
            Node = Next;
            Any = TRUE;
        } else {
            USHORT Cat = RxNode(Rx, RX_CAT);

            Rx->Nodes[Cat].Left = Node;
            Rx->Nodes[Cat].Right = Next;
            Node = Cat;
        }
    }

    if (!Any) {
        Node = RxNode(Rx, RX_EMPTY);
    }
    return Node;
}

static
USHORT
RxParseAlternation(
    PRX Rx,
    ULONG Level
    )
{
    USHORT Node;

    if (Level > 32) {
        Rx->Failed = TRUE;
        return 0;
    }

    Node = RxParseConcatenation(Rx, Level);
    while (!Rx->Failed && Rx->Cursor < Rx->End && *Rx->Cursor == '|') {
        USHORT Alt;
        USHORT Right;

        Rx->Cursor++;
        Right = RxParseConcatenation(Rx, Level);
        Alt = RxNode(Rx, RX_ALT);
        Rx->Nodes[Alt].Left = Node;
        Rx->Nodes[Alt].Right = Right;
        Node = Alt;
    }
    return Node;
}

static
USHORT
RxState(
    PRX Rx,
    UCHAR Kind,
    USHORT Out,
    USHORT Out1
    )
{
    RX_STATE *State;

    if (Rx->StateCount >= RX_MAX_STATES) {
        Rx->Failed = TRUE;
        return 0;
    }
    State = &Rx->States[Rx->StateCount];
    State->Kind = Kind;
    State->Char = 0;
    State->Class = 0;
    State->Out = Out;
    State->Out1 = Out1;
    return (USHORT)Rx->StateCount++;
}

static
USHORT
RxCompile(
    PRX Rx,
    USHORT NodeIndex,
    USHORT Next,
    ULONG Level
    )
/*++

Routine Description:

    Compiles the tree at NodeIndex into states that continue at Next, and
    returns its first state (right to left, so nothing needs patching).
    A repetition compiles its operand once per copy.

--*/
{
    RX_NODE *Node = &Rx->Nodes[NodeIndex];
    USHORT State;
    ULONG Copy;

    if (Rx->Failed || Level > 64) {
        Rx->Failed = TRUE;
        return 0;
    }

    switch (Node->Kind) {
    case RX_CHAR:
    case RX_ANY:
    case RX_CLASS:
    case RX_BOL:
    case RX_EOL:
        State = RxState(Rx, Node->Kind, Next, 0);
        if (!Rx->Failed) {
            Rx->States[State].Char = Node->Char;
            Rx->States[State].Class = Node->Class;
        }
        return State;

    case RX_EMPTY:
        return Next;

    case RX_CAT:
        return RxCompile(Rx, Node->Left,
                         RxCompile(Rx, Node->Right, Next, Level + 1),
                         Level + 1);

    case RX_ALT: {
        USHORT Left = RxCompile(Rx, Node->Left, Next, Level + 1);
        USHORT Right = RxCompile(Rx, Node->Right, Next, Level + 1);

        return RxState(Rx, RX_SPLIT, Left, Right);
    }

    case RX_REPEAT:
        State = Next;
        if (Node->Maximum == RX_MAX_REPEAT + 1) {

            //
            // X*: a split that loops back through X.
            //

            USHORT Split = RxState(Rx, RX_SPLIT, 0, Next);

            if (!Rx->Failed) {
                Rx->States[Split].Out = RxCompile(Rx, Node->Left, Split,
                                                  Level + 1);
            }
            State = Split;
        } else {
            for (Copy = Node->Minimum; Copy < Node->Maximum; Copy++) {
                USHORT Optional = RxCompile(Rx, Node->Left, State, Level + 1);

                State = RxState(Rx, RX_SPLIT, Optional, Next);
            }
        }
        for (Copy = 0; Copy < Node->Minimum && !Rx->Failed; Copy++) {
            State = RxCompile(Rx, Node->Left, State, Level + 1);
        }
        return State;

    default:
        Rx->Failed = TRUE;
        return 0;
    }
}

static
VOID
RxAdd(
    PRX Rx,
    USHORT *List,
    PULONG Count,
    USHORT State,
    ULONG Generation,
    BOOL AtStart,
    BOOL AtEnd
    )
/*++

Routine Description:

    Adds State and what it reaches without reading a character (splits,
    jumps and the anchors that hold here) to List, once per Generation.
    An explicit stack, bounded by the state count.

--*/
{
    USHORT Stack[2 * RX_MAX_STATES + 2];
    ULONG Depth = 0;

    Stack[Depth++] = State;
    while (Depth != 0) {
        RX_STATE *S;

        State = Stack[--Depth];
        if (Rx->Mark[State] == Generation) {
            continue;
        }
        Rx->Mark[State] = Generation;
        S = &Rx->States[State];

        switch (S->Kind) {
        case RX_SPLIT:
            Stack[Depth++] = S->Out1;
            Stack[Depth++] = S->Out;
            break;
        case RX_JUMP:
            Stack[Depth++] = S->Out;
            break;
        case RX_BOL:
            if (AtStart) {
                Stack[Depth++] = S->Out;
            }
            break;
        case RX_EOL:
            if (AtEnd) {
                Stack[Depth++] = S->Out;
            }
            break;
        default:
            List[(*Count)++] = State;
            break;
        }
    }
}

static
BOOL
RegexSearch(
    PRX Rx,
    PCSZ Pattern,
    PCSZ PatternEnd,
    PCSZ Name,
    PCSZ NameEnd,
    PBOOL Compiled
    )
/*++

Routine Description:

    Whether the extended regex Pattern matches somewhere in Name.
    *Compiled is FALSE when the pattern does not compile.

--*/
{
    USHORT Root;
    USHORT Start;
    USHORT Match;
    USHORT *Current = Rx->ListA;
    USHORT *Next = Rx->ListB;
    ULONG CurrentCount = 0;
    ULONG Generation = 0;
    ULONG Index;
    PCSZ At;

    Rx->Cursor = Pattern;
    Rx->End = PatternEnd;
    Rx->Failed = FALSE;
    Rx->NodeCount = 0;
    Rx->StateCount = 0;
    Rx->ClassCount = 0;

    Root = RxParseAlternation(Rx, 0);
    if (!Rx->Failed && Rx->Cursor != Rx->End) {
        Rx->Failed = TRUE;          // a ')' without its '('
    }
    Match = RxState(Rx, RX_MATCH, 0, 0);
    Start = RxCompile(Rx, Root, Match, 0);

    *Compiled = !Rx->Failed;
    if (Rx->Failed) {
        return FALSE;
    }

    for (Index = 0; Index < Rx->StateCount; Index++) {
        Rx->Mark[Index] = 0;
    }

    for (At = Name; ; At++) {
        ULONG NextCount = 0;
        USHORT *Swap;

        //
        // A search: a match may start at every position.
        //

        Generation++;
        for (Index = 0; Index < CurrentCount; Index++) {
            Rx->Mark[Current[Index]] = Generation;
        }
        RxAdd(Rx, Current, &CurrentCount, Start, Generation, At == Name,
              At == NameEnd);

        for (Index = 0; Index < CurrentCount; Index++) {
            if (Rx->States[Current[Index]].Kind == RX_MATCH) {
                return TRUE;
            }
        }
        if (At == NameEnd) {
            return FALSE;
        }

        Generation++;
        for (Index = 0; Index < CurrentCount; Index++) {
            RX_STATE *S = &Rx->States[Current[Index]];
            UCHAR Char = (UCHAR)*At;
            BOOL Step;

            switch (S->Kind) {
            case RX_CHAR:
                Step = (S->Char == Char);
                break;
            case RX_ANY:
                Step = TRUE;
                break;
            case RX_CLASS:
                Step = (Rx->Classes[S->Class][Char >> 3] >> (Char & 7)) & 1;
                break;
            default:
                Step = FALSE;
                break;
            }
            if (Step) {
                RxAdd(Rx, Next, &NextCount, S->Out, Generation, FALSE,
                      At + 1 == NameEnd);
            }
        }

        Swap = Current;
        Current = Next;
        Next = Swap;
        CurrentCount = NextCount;
    }
}

//
// ---------------------------------------------------------------------------
// Glob (fnmatch with no flags)
// ---------------------------------------------------------------------------
//

static
BOOL
GlobMatch(
    PCSZ Pattern,
    PCSZ PatternEnd,
    PCSZ Name,
    PCSZ NameEnd
    )
{
    PCSZ StarPattern = NULL;
    PCSZ StarName = NULL;

    for (;;) {
        if (Pattern < PatternEnd) {
            CHAR C = *Pattern;

            if (C == '*') {
                while (Pattern < PatternEnd && *Pattern == '*') {
                    Pattern++;
                }
                StarPattern = Pattern;
                StarName = Name;
                continue;
            }

            if (Name < NameEnd) {
                BOOL Match = FALSE;
                PCSZ After = Pattern + 1;

                if (C == '?') {
                    Match = TRUE;
                } else if (C == '[') {
                    UCHAR Class[32];
                    PCSZ Cursor = Pattern + 1;
                    BOOL Negate = FALSE;

                    if (Cursor < PatternEnd && (*Cursor == '!' ||
                                                *Cursor == '^')) {
                        Negate = TRUE;
                        Cursor++;
                    }
                    if (ParseBracket(&Cursor, PatternEnd, Class)) {
                        UCHAR N = (UCHAR)*Name;

                        Match = ((Class[N >> 3] >> (N & 7)) & 1) != Negate;
                        After = Cursor;
                    } else {
                        Match = (*Name == '[');
                    }
                } else if (C == '\\' && Pattern + 1 < PatternEnd) {
                    Match = (*Name == Pattern[1]);
                    After = Pattern + 2;
                } else {
                    Match = (*Name == C);
                }

                if (Match) {
                    Pattern = After;
                    Name++;
                    continue;
                }
            }
        } else if (Name == NameEnd) {
            return TRUE;
        }

        //
        // A mismatch: let the last '*' take one more character.
        //

        if (StarPattern == NULL || StarName >= NameEnd) {
            return FALSE;
        }
        StarName++;
        Pattern = StarPattern;
        Name = StarName;
    }
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
    if (End - Suffix >= 5 && SpanEquals(Suffix, Suffix + 5, "stack")) {
        ParseLong(Suffix + 5, End, 0, &Offset);
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
    LONGLONG Bits;

    Arg->Format = UFTRACE_FMT_AUTO;
    Arg->Type = UFTRACE_LOC_INDEX;
    Arg->Size = 8;
    Arg->Location = 0;
    Arg->Exact = 0;
    Arg->Padding = 0;
    Arg->TypeName = NULL;
    Arg->TypeNameLength = 0;
    Arg->Padding2 = 0;

    if (End - Start >= 4 && SpanEquals(Start, Start + 3, "arg") &&
        IsDigit(Start[3])) {
        Suffix = ParseLong(Start + 3, End, 0, &Value);
        Arg->Index = (LONG)Value;
    } else if (End - Start >= 6 && SpanEquals(Start, Start + 6, "retval")) {
        Arg->Index = 0;
        Suffix = Start + 6;
    } else if (End - Start >= 6 && SpanEquals(Start, Start + 5, "fparg") &&
               IsDigit(Start[5])) {
        Suffix = ParseLong(Start + 5, End, 0, &Value);
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

    case 'e': {
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

    case 't': {
        PCSZ After = ParseLong(Suffix + 1, End, 0, &Value);

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
            if (End - After >= 7 && SpanEquals(After, After + 7, "%stack+")) {
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

    default:
        if (Arg->Format == UFTRACE_FMT_FLOAT && IsDigit(*Suffix)) {
            goto Size;
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

Size:
    {
        PCSZ After = ParseLong(Suffix, End, 10, &Bits);

        if (After == Suffix) {
            Bits = 0;
        }
        Suffix = After;
    }
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
                (ActionEnd - Action < 4 || !IsDigit(Action[3]))) {
                return FALSE;
            }
            if (Known->Kind == ACTION_FPARG &&
                (ActionEnd - Action < 6 || !IsDigit(Action[5]))) {
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
        SpanEquals(Entry->Pattern, Entry->Pattern + 9, "operator ")) {
        Entry->PatternType = UFTRACE_PATTERN_SIMPLE;
    }

    return TRUE;
}

ULONG
UftracePatternWorkspaceSize(
    VOID
    )
{
    return (ULONG)sizeof(RX);
}

BOOL
UftracePatternMatch(
    PUFTRACE_SPEC_ENTRY Entry,
    PVOID Workspace,
    PCSZ Name,
    PCSZ NameEnd
    )
{
    PRX Rx = (PRX)Workspace;
    BOOL Compiled;
    BOOL Match;
    SIZE_T Length = (SIZE_T)(Entry->PatternEnd - Entry->Pattern);

    switch (Entry->PatternType) {
    case UFTRACE_PATTERN_REGEX:
        Match = RegexSearch(Rx, Entry->Pattern, Entry->PatternEnd, Name,
                            NameEnd, &Compiled);
        if (Compiled) {
            return Match;
        }

        //
        // regcomp() failed: uftrace compares the pattern as a name.
        //

        Entry->PatternType = UFTRACE_PATTERN_SIMPLE;
        break;

    case UFTRACE_PATTERN_GLOB:
        return GlobMatch(Entry->Pattern, Entry->PatternEnd, Name, NameEnd);

    default:
        break;
    }

    return (SIZE_T)(NameEnd - Name) == Length &&
           __builtin_memcmp(Name, Entry->Pattern, Length) == 0;
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

//
// ---------------------------------------------------------------------------
// Floating point, as printf's "%#f" prints it: the exact binary value
// rounded to 6 decimals, ties to even.
// ---------------------------------------------------------------------------
//

#define BIG_LIMBS 520               // 32-bit limbs: 2^16384 and a margin

static
VOID
PutBigInteger(
    PUFTRACE_TEXT Text,
    ULONGLONG Mantissa,
    ULONG Shift
    )
/*++

Routine Description:

    Prints Mantissa << Shift in decimal (Shift up to about 16400).

--*/
{
    ULONG Limbs[BIG_LIMBS];
    ULONG Chunks[BIG_LIMBS * 10 / 9 + 4];
    ULONG Count;
    ULONG ChunkCount = 0;
    ULONG Index;
    ULONG WordShift = Shift / 32;
    ULONG BitShift = Shift % 32;

    if (WordShift + 4 > BIG_LIMBS) {
        TextPutString(Text, "inf");     // beyond any binary float
        return;
    }

    for (Index = 0; Index < BIG_LIMBS; Index++) {
        Limbs[Index] = 0;
    }
    {
        ULONGLONG Low = Mantissa << BitShift;
        ULONGLONG High = BitShift ? Mantissa >> (64 - BitShift) : 0;

        Limbs[WordShift] = (ULONG)Low;
        Limbs[WordShift + 1] = (ULONG)(Low >> 32);
        Limbs[WordShift + 2] = (ULONG)High;
    }
    Count = WordShift + 3;
    while (Count > 1 && Limbs[Count - 1] == 0) {
        Count--;
    }

    //
    // Divide by 10^9 until zero; the remainders are the decimal chunks,
    // least significant first.
    //

    do {
        ULONGLONG Remainder = 0;

        for (Index = Count; Index-- != 0; ) {
            ULONGLONG Value = (Remainder << 32) | Limbs[Index];

            Limbs[Index] = (ULONG)(Value / 1000000000u);
            Remainder = Value % 1000000000u;
        }
        Chunks[ChunkCount++] = (ULONG)Remainder;
        while (Count > 1 && Limbs[Count - 1] == 0) {
            Count--;
        }
    } while (Count > 1 || Limbs[0] != 0);

    TextPutUnsigned(Text, Chunks[--ChunkCount], 10, 1);
    while (ChunkCount != 0) {
        TextPutUnsigned(Text, Chunks[--ChunkCount], 10, 9);
    }
}

static
VOID
PutFixed(
    PUFTRACE_TEXT Text,
    BOOL Negative,
    ULONGLONG Mantissa,
    LONG Exponent
    )
/*++

Routine Description:

    Prints Mantissa * 2^Exponent with 6 decimals.

--*/
{
    ULONGLONG Integer;
    ULONGLONG Fraction;
    ULONG Shift;
    ULONGLONG Decimals = 0;

    if (Negative) {
        UftraceTextPut(Text, '-');
    }

    if (Mantissa != 0 && Exponent >= 0) {
        PutBigInteger(Text, Mantissa, (ULONG)Exponent);
        TextPutString(Text, ".000000");
        return;
    }

    Shift = (ULONG)(-Exponent);
    if (Mantissa == 0) {
        Integer = 0;
        Fraction = 0;
    } else if (Shift < 64) {
        Integer = Mantissa >> Shift;
        Fraction = Mantissa & ((1ULL << Shift) - 1);
    } else {
        Integer = 0;
        Fraction = Mantissa;
    }

    //
    // Decimals = round(Fraction * 10^6 / 2^Shift).  Fraction < 2^64, so
    // the product fits in 128 bits (two 64-bit halves here); beyond a
    // shift of 85 it is below half a unit of the last decimal.
    //

    if (Fraction != 0 && Shift <= 85) {
        ULONGLONG Low = (Fraction & 0xffffffffULL) * 1000000u;
        ULONGLONG Middle = (Fraction >> 32) * 1000000u;
        ULONGLONG ScaledLow = Low + (Middle << 32);
        ULONGLONG ScaledHigh = (Middle >> 32) + (ScaledLow < Low ? 1 : 0);
        ULONGLONG RestLow;
        ULONGLONG RestHigh;
        ULONGLONG HalfLow;
        ULONGLONG HalfHigh;
        LONG Compare;

        //
        // Decimals = Scaled >> Shift (it is below 10^6 + 1), Rest the
        // bits shifted out, Half = 2^(Shift - 1).
        //

        if (Shift >= 64) {
            Decimals = ScaledHigh >> (Shift - 64);
            RestHigh = (Shift == 64) ? 0 :
                       ScaledHigh & ((1ULL << (Shift - 64)) - 1);
            RestLow = ScaledLow;
            HalfHigh = (Shift == 64) ? 0 : 1ULL << (Shift - 65);
            HalfLow = (Shift == 64) ? (1ULL << 63) : 0;
        } else {
            Decimals = (ScaledLow >> Shift) | (ScaledHigh << (64 - Shift));
            RestHigh = 0;
            RestLow = ScaledLow & ((1ULL << Shift) - 1);
            HalfHigh = 0;
            HalfLow = 1ULL << (Shift - 1);
        }

        Compare = (RestHigh != HalfHigh) ? (RestHigh > HalfHigh ? 1 : -1) :
                  (RestLow != HalfLow) ? (RestLow > HalfLow ? 1 : -1) : 0;
        if (Compare > 0 || (Compare == 0 && (Decimals & 1))) {
            Decimals++;
        }
        if (Decimals == 1000000) {
            Decimals = 0;
            Integer++;
        }
    }

    TextPutUnsigned(Text, Integer, 10, 1);
    UftraceTextPut(Text, '.');
    TextPutUnsigned(Text, Decimals, 10, 6);
}

static
VOID
PutFloat(
    PUFTRACE_TEXT Text,
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Mantissa;
    LONG Exponent;
    BOOL Negative;
    BOOL Special = FALSE;
    BOOL NotANumber = FALSE;

    if (Size == 4) {
        ULONG Bits;

        __builtin_memcpy(&Bits, Data, 4);
        Negative = (Bits >> 31) != 0;
        Exponent = (LONG)((Bits >> 23) & 0xff);
        Mantissa = Bits & 0x7fffff;
        if (Exponent == 0xff) {
            Special = TRUE;
            NotANumber = (Mantissa != 0);
        } else if (Exponent == 0) {
            Exponent = -149;
        } else {
            Mantissa |= 1u << 23;
            Exponent -= 150;
        }
    } else if (Size == 8) {
        ULONGLONG Bits;

        __builtin_memcpy(&Bits, Data, 8);
        Negative = (Bits >> 63) != 0;
        Exponent = (LONG)((Bits >> 52) & 0x7ff);
        Mantissa = Bits & ((1ULL << 52) - 1);
        if (Exponent == 0x7ff) {
            Special = TRUE;
            NotANumber = (Mantissa != 0);
        } else if (Exponent == 0) {
            Exponent = -1074;
        } else {
            Mantissa |= 1ULL << 52;
            Exponent -= 1075;
        }
    } else if (Size == 10) {
        USHORT SignExponent;

        __builtin_memcpy(&Mantissa, Data, 8);
        __builtin_memcpy(&SignExponent, Data + 8, 2);
        Negative = (SignExponent >> 15) != 0;
        Exponent = SignExponent & 0x7fff;
        if (Exponent == 0x7fff) {
            Special = TRUE;
            NotANumber = (Mantissa & ((1ULL << 63) - 1)) != 0;
        } else if (Exponent == 0) {
            Exponent = 1 - 16383 - 63;
        } else {
            Exponent -= 16383 + 63;
        }
    } else {
        return;                 // uftrace prints nothing for other sizes
    }

    if (Special) {
        if (Negative) {
            UftraceTextPut(Text, '-');
        }
        TextPutString(Text, NotANumber ? "nan" : "inf");
        return;
    }

    PutFixed(Text, Negative, Mantissa, Exponent);
}

//
// ---------------------------------------------------------------------------
// Enums (uftrace's parse_enum_string and convert_enum_val)
// ---------------------------------------------------------------------------
//

#define ENUM_MAX_VALUES 512

typedef struct _ENUM_VALUE {
    PCSZ Name;
    ULONG NameLength;
    ULONG Padding;
    LONGLONG Value;
} ENUM_VALUE;

#define TOKEN_NONE      0
#define TOKEN_STRING    1
#define TOKEN_SIGN      2
#define TOKEN_NUMBER    3
#define TOKEN_INVALID   4

static
ULONG
EnumToken(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ *Token,
    PCSZ *TokenEnd
    )
{
    PCSZ At = *Cursor;
    ULONG Kind;

    while (At < End && IsSpace(*At)) {
        At++;
    }
    if (At >= End) {
        *Cursor = End;
        return TOKEN_NONE;
    }

    *Token = At;
    if (IsPunct(*At) && *At != '_') {
        *TokenEnd = At + 1;
        *Cursor = At + 1;
        return TOKEN_SIGN;
    }
    if (IsAlpha(*At) || *At == '_') {
        Kind = TOKEN_STRING;
    } else if (IsDigit(*At)) {
        Kind = TOKEN_NUMBER;
    } else {
        return TOKEN_INVALID;
    }

    while (At < End && *At != ' ' && *At != '\n' && *At != '\t' &&
           *At != '=' && *At != ',' && *At != '{' && *At != '}') {
        At++;
    }
    *TokenEnd = At;
    *Cursor = At;
    return Kind;
}

static
BOOL
EnumHeader(
    PCSZ *Cursor,
    PCSZ End,
    PCSZ *Name,
    PCSZ *NameEnd
    )
/*++

Routine Description:

    "enum NAME {" at *Cursor; leaves *Cursor after the brace.

--*/
{
    PCSZ Token;
    PCSZ TokenEnd;

    if (EnumToken(Cursor, End, &Token, &TokenEnd) != TOKEN_STRING ||
        !SpanEquals(Token, TokenEnd, "enum") ||
        EnumToken(Cursor, End, Name, NameEnd) != TOKEN_STRING ||
        EnumToken(Cursor, End, &Token, &TokenEnd) != TOKEN_SIGN ||
        *Token != '{') {
        return FALSE;
    }
    return TRUE;
}

static
ULONG
EnumParseValues(
    PCSZ Cursor,
    PCSZ End,
    ENUM_VALUE *Values
    )
/*++

Routine Description:

    The values after "enum NAME {", kept sorted by value, largest first
    (a value goes before the first one it is not below, as uftrace's list
    insertion does).  Returns the count; 0 for a malformed definition.

--*/
{
    PCSZ Token;
    PCSZ TokenEnd;
    ULONG Kind;
    ULONG Count = 0;
    LONGLONG Value = 0;

    Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
    while (Kind != TOKEN_NONE && !(Kind == TOKEN_SIGN && *Token == '}')) {
        PCSZ Name = Token;
        PCSZ NameEnd = TokenEnd;
        ULONG Position;
        ULONG Move;

        Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
        if (Kind != TOKEN_SIGN) {
            return 0;
        }
        if (*Token == '=') {
            Cursor = ParseLong(Cursor, End, 0, &Value);
            Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
            if (Kind != TOKEN_SIGN) {
                return 0;
            }
        }

        if (Count < ENUM_MAX_VALUES) {
            for (Position = 0; Position < Count; Position++) {
                if (Values[Position].Value <= Value) {
                    break;
                }
            }
            for (Move = Count; Move > Position; Move--) {
                Values[Move] = Values[Move - 1];
            }
            Values[Position].Name = Name;
            Values[Position].NameLength = (ULONG)(NameEnd - Name);
            Values[Position].Padding = 0;
            Values[Position].Value = Value;
            Count++;
        }
        Value++;

        if (*Token == ',') {
            Kind = EnumToken(&Cursor, End, &Token, &TokenEnd);
        }
    }

    return (Kind == TOKEN_SIGN && *Token == '}') ? Count : 0;
}

static
VOID
PutEnum(
    PUFTRACE_FORMAT Format,
    PCUFTRACE_ARG Arg,
    LONGLONG Value,
    PUFTRACE_TEXT Text
    )
{
    ENUM_VALUE Values[ENUM_MAX_VALUES];
    PCSZ Definition;
    PCSZ DefinitionEnd;
    ULONG Count = 0;
    ULONG Index;
    BOOL Any = FALSE;

    if (Format->FindEnum == NULL) {
        TextPutString(Text, "<ENUM?> ");
        TextPutUnsigned(Text, (ULONG)Value, 16, 1);
        return;
    }

    if (Format->FindEnum(Format->Context, Arg->TypeName, Arg->TypeNameLength,
                         &Definition, &DefinitionEnd)) {
        Count = EnumParseValues(Definition, DefinitionEnd, Values);
    }
    if (Count == 0) {
        TextPutSigned(Text, Value);
        return;
    }

    for (Index = 0; Index < Count; Index++) {
        if (Values[Index].Value == Value) {
            UftraceTextAppend(Text, Values[Index].Name,
                              Values[Index].NameLength);
            return;
        }
    }

    //
    // OR-ed flags: take each value not above what is left, largest first.
    //

    for (Index = 0; Index < Count; Index++) {
        if (Values[Index].Value <= Value) {
            Value -= Values[Index].Value;
            if (Any) {
                UftraceTextPut(Text, '|');
            }
            UftraceTextAppend(Text, Values[Index].Name,
                              Values[Index].NameLength);
            Any = TRUE;
        }
        if (Value == 0) {
            break;
        }
    }

    if (Any && Value != 0) {
        UftraceTextPut(Text, '+');
        TextPutHex(Text, (ULONGLONG)Value);
    } else if (!Any) {
        if (Value > 100000 || Value < -100000) {
            TextPutHex(Text, (ULONGLONG)Value);
        } else {
            TextPutSigned(Text, Value);
        }
    }
}

BOOL
UftraceFindEnumInList(
    PCSZ Start,
    PCSZ End,
    PCSZ Name,
    ULONG NameLength,
    PCSZ *Definition,
    PCSZ *DefinitionEnd
    )
/*++

Routine Description:

    Finds "enum NAME {...}" in a ';'-separated list of definitions (the
    info file's enumauto, or one "E:" line of a .dbg file).  The first
    definition of a name is the one uftrace keeps.

--*/
{
    PCSZ Cursor = Start;
    PCSZ EntryStart;
    PCSZ EntryEnd;

    while (UftraceNextSpecEntry(&Cursor, End, &EntryStart, &EntryEnd)) {
        PCSZ At = EntryStart;
        PCSZ EnumName;
        PCSZ EnumNameEnd;

        if (EnumHeader(&At, EntryEnd, &EnumName, &EnumNameEnd) &&
            (ULONG)(EnumNameEnd - EnumName) == NameLength &&
            __builtin_memcmp(EnumName, Name, NameLength) == 0) {
            *Definition = At;
            *DefinitionEnd = EntryEnd;
            return TRUE;
        }
    }
    return FALSE;
}

//
// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------
//

static
VOID
PutEscapedChar(
    PUFTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Char == '\0') {
        TextPutString(Text, "\\0");
    } else if (Char == '\b') {
        TextPutString(Text, "\\b");
    } else if (Char == '\n') {
        TextPutString(Text, "\\n");
    } else {
        UftraceTextPut(Text, Char);
    }
}

static
VOID
PutInteger(
    PCUFTRACE_ARG Arg,
    ULONGLONG Value,
    PUFTRACE_TEXT Text
    )
/*++

Routine Description:

    An integer as uftrace prints it: "%#<len><fmt>" with the length
    modifier of its size (hh, h, none, ll), where d/u beyond +-100000
    become x, and a d of 0xffff0001..0xffffffff prints as a negative int.

--*/
{
    CHAR Conversion;
    ULONG Width;            // bytes printf reads
    LONGLONG Signed = (LONGLONG)Value;

    switch (Arg->Format) {
    case UFTRACE_FMT_SIGNED:
        Conversion = 'i';
        break;
    case UFTRACE_FMT_UNSIGNED:
        Conversion = (Value > 100000) ? 'x' : 'u';
        break;
    case UFTRACE_FMT_HEX:
        Conversion = 'x';
        break;
    default:
        Conversion = 'd';
        if (Signed > 100000 || Signed < -100000) {
            Conversion = 'x';
            if (Value > 0xffff0000ULL && Value <= 0xffffffffULL) {
                Conversion = 'd';
                Width = 4;
                goto Print;
            }
        }
        break;
    }

    switch (Arg->Size) {
    case 1:
        Width = 1;
        break;
    case 2:
        Width = 2;
        break;
    case 8:
        Width = 8;
        break;
    default:
        Width = 4;
        break;
    }

Print:
    if (Width < 8) {
        Value &= (1ULL << (Width * 8)) - 1;
    }

    if (Conversion == 'x') {
        TextPutHex(Text, Value);
    } else if (Conversion == 'u') {
        TextPutUnsigned(Text, Value, 10, 1);
    } else {
        if (Width < 8 && (Value >> (Width * 8 - 1)) != 0) {
            Value |= ~((1ULL << (Width * 8)) - 1);      // sign-extend
        }
        TextPutSigned(Text, (LONGLONG)Value);
    }
}

static
VOID
PutString(
    PCUFTRACE_ARG Arg,
    const BYTE *Bytes,
    ULONG Length,
    PUFTRACE_TEXT Text
    )
{
    ULONG End = 0;
    ULONG Index;
    BOOL Wide = FALSE;

    //
    // uftrace 0.13 writes a NULL pointer as the 4 bytes "NULL", which then
    // prints quoted; its check for -1 is for older data.
    //

    if (Length == 4 && Bytes[0] == 0xff && Bytes[1] == 0xff &&
        Bytes[2] == 0xff && Bytes[3] == 0xff) {
        TextPutString(Text, "NULL");
        return;
    }

    //
    // The string is printed up to its first NUL, raw if it has a byte >=
    // 0x80 (UTF-8) that is not its last, else with \0 \b \n escaped
    // (uftrace looks at the byte after the first such byte).
    //

    while (End < Length && Bytes[End] != 0) {
        End++;
    }
    for (Index = 0; Index < End; Index++) {
        if (Bytes[Index] & 0x80) {
            Wide = (Index + 1 < End);
            break;
        }
    }

    UftraceTextPut(Text, '"');
    for (Index = 0; Index < End; Index++) {
        if (Wide) {
            UftraceTextPut(Text, (CHAR)Bytes[Index]);
        } else {
            PutEscapedChar(Text, (CHAR)Bytes[Index]);
        }
    }
    UftraceTextPut(Text, '"');

    if (Arg->Format == UFTRACE_FMT_STD_STRING) {
        UftraceTextPut(Text, 's');
    }
}

VOID
UftraceFormatArgs(
    PUFTRACE_FORMAT Format,
    PCUFTRACE_ARG Args,
    ULONG Count,
    BOOL Retval,
    const BYTE *Data,
    SIZE_T Length,
    PUFTRACE_TEXT Text
    )
{
    SIZE_T Offset = 0;
    ULONG Printed = 0;
    ULONG Index;

    if (!Retval) {
        UftraceTextPut(Text, '(');
    }

    for (Index = 0; Index < Count; Index++) {
        PCUFTRACE_ARG Arg = &Args[Index];
        SIZE_T Size = Arg->Size;
        const BYTE *Value = Data + Offset;
        ULONGLONG Raw = 0;

        if (Retval != (Arg->Index == 0)) {
            continue;
        }

        //
        // UftraceArgDataSize checked that the values fit; a string's
        // length is checked again against what is left.
        //

        if (Printed > 0) {
            TextPutString(Text, ", ");
        }

        if (Size != 0 && Size <= 8 && Offset + Size <= Length) {
            __builtin_memcpy(&Raw, Value, Size);
        }

        switch (Arg->Format) {
        case UFTRACE_FMT_STRING:
        case UFTRACE_FMT_STD_STRING: {
            ULONG StringLength = 0;

            if (Offset + 2 <= Length) {
                StringLength = (ULONG)Value[0] | ((ULONG)Value[1] << 8);
            }
            if (Offset + 2 + StringLength > Length) {
                StringLength = (ULONG)(Length - Offset) >= 2 ?
                               (ULONG)(Length - Offset) - 2 : 0;
            }
            PutString(Arg, Value + 2, StringLength, Text);
            Size = StringLength + 2;
            break;
        }

        case UFTRACE_FMT_CHAR:
            UftraceTextPut(Text, '\'');
            PutEscapedChar(Text, (CHAR)Raw);
            UftraceTextPut(Text, '\'');
            Size = 1;
            break;

        case UFTRACE_FMT_FLOAT:
            if (Offset + Size <= Length) {
                PutFloat(Text, Value, Arg->Size);
            }
            break;

        case UFTRACE_FMT_POINTER: {
            PCSZ Name;
            PCSZ NameEnd;

            if (Format->SymbolAt != NULL &&
                Format->SymbolAt(Format->Context, Raw, &Name, &NameEnd)) {
                UftraceTextPut(Text, '&');
                UftraceTextAppend(Text, Name, (SIZE_T)(NameEnd - Name));
            } else if (Raw != 0) {
                TextPutHex(Text, Raw);
            } else {
                UftraceTextPut(Text, '0');
            }
            break;
        }

        case UFTRACE_FMT_ENUM:
            PutEnum(Format, Arg, (LONGLONG)Raw, Text);
            break;

        case UFTRACE_FMT_STRUCT:
            if (Arg->TypeName != NULL &&
                !SpanEquals(Arg->TypeName,
                            Arg->TypeName + Arg->TypeNameLength, "<lambda")) {
                UftraceTextAppend(Text, Arg->TypeName, Arg->TypeNameLength);
            }
            TextPutString(Text, Arg->Size != 0 ? "{...}" : "{}");
            break;

        default:
            PutInteger(Arg, Raw, Text);
            break;
        }

        Printed++;
        Offset += (SIZE_T)ALIGN_UP(Size, 4);
        if (Offset > Length) {
            Offset = Length;
        }

        //
        // Only the first return value spec is printed.
        //

        if (Retval) {
            break;
        }
    }

    if (!Retval) {
        UftraceTextPut(Text, ')');
    }
}
