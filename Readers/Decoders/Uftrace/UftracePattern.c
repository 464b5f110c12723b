/*++

Module Name:

    UftracePattern.c

Abstract:

    The patterns that pick the functions a spec entry applies to, as
    uftrace matches them: a pattern without any of ".?*+-^$|()[]{}"
    matches by name; otherwise it is a POSIX extended regex searched in
    the name (glibc's regcomp/regexec, here a small Thompson NFA), or a
    glob when the recording says pattern_type glob (fnmatch with no
    flags).  A regex that does not compile matches by name, as uftrace's
    fallback does.

Environment:

    Core: no C runtime, no OS service (the caller gives the regex machine
    its workspace).  Called by the uftrace reader (UftraceSpecs.c matches;
    Uftrace.c sizes the workspace); calls UftraceArgSpec.c
    (UftraceParseLong) and TextParse.h.

--*/

#include "UftraceArgsInternal.h"

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
                        TextEquals(Name, Length, Literal))

    if (RX_IS("alpha")) return IsAlpha(C);
    if (RX_IS("digit")) return TextIsDigit(C);
    if (RX_IS("alnum")) return IsAlpha(C) || TextIsDigit(C);
    if (RX_IS("upper")) return C >= 'A' && C <= 'Z';
    if (RX_IS("lower")) return C >= 'a' && C <= 'z';
    if (RX_IS("space")) return TextIsSpace(C);
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
        if (TextEquals(Name, Length, Names[Index])) {
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
            if (After < Rx->End && TextIsDigit(*After)) {
                After = UftraceParseLong(After, Rx->End, 10, &Minimum);
            } else if (After >= Rx->End || *After != ',') {
                Rx->Failed = TRUE;
                return 0;
            }
            Maximum = Minimum;
            if (After < Rx->End && *After == ',') {
                After++;
                if (After < Rx->End && TextIsDigit(*After)) {
                    After = UftraceParseLong(After, Rx->End, 10, &Maximum);
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
// The match
// ---------------------------------------------------------------------------
//

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
