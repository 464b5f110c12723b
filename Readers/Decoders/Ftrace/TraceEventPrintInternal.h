/*++

Module Name:

    TraceEventPrintInternal.h

Abstract:

    This module implements the print-fmt interpreter of the event model
    (see TraceEvent.h).  An event's `print fmt: "FORMAT", ARGS` line is
    compiled, on the event's first use, into a list of items: literal
    text, and conversions (%d %u %x %s %p %c, with flags, width,
    precision, length and '*') each with an argument expression.
    Rendering walks the list over one event record.

    The semantics are libtraceevent's, the library `trace-cmd report`
    prints with, so that the text matches what it prints:

      - fields are read as stored, unsigned, and cast by the conversion's
        length (so a negative int prints through %d, as a large number
        through %ld);
      - arithmetic and comparisons are unsigned 64-bit; a cast masks to
        u8/u16/u32/char/short/int and leaves everything else;
      - __print_flags / __print_symbolic tables are evaluated once, with
        the library's rules for unresolved enum names (-1, or 0 inside an
        expression);
      - %s of a string applies the conversion to each flag name; unmatched
        values print as 0x...; %ps prints the kallsyms function, or the
        address in hex; %p prints like glibc.

    A print fmt using anything else (another function, %pI4, ...) is not
    compiled, and the event prints as "field=value ...", like trace-cmd
    prints an event it cannot parse.

    What the files of the print-fmt interpreter share: the compiled form
    (PRINT_ARG trees, PRINT_ITEM lists), the parser's state, and the
    routines one of its files calls in another.

        TraceEventPrintText.c       text output, one printf conversion
        TraceEventPrintLex.c        tokens, operators, argument copies
        TraceEventPrintParse.c      the argument parser, constant tables,
                                    casts
        TraceEventPrintCompile.c    the format string, compiling an event
        TraceEventPrintRender.c     evaluation and rendering of an event;
                                    events printed as field=value
        TraceEventPrintBprint.c     trace_printk's bprint event
        TraceEventPrintScan.c       the other way: an event's text read
                                    back into its record

Environment:

    Core: no C runtime, no OS service.  Included only by the
    TraceEventPrint*.c files.

--*/

#ifndef _TRACER_TRACE_EVENT_PRINT_INTERNAL_H_
#define _TRACER_TRACE_EVENT_PRINT_INTERNAL_H_

#include "TraceEvent.h"

#define MAX_DEPTH 48
#define MAX_ITEMS 256

typedef enum _PRINT_ARG_TYPE {
    ArgAtom = 1,        // a number, name or string: Text (Flags say which)
    ArgField,           // Field
    ArgOp,              // A Op B; A is NULL for a unary operator
    ArgTernary,         // A ? B : C
    ArgCast,            // (type) A; Value is the mask, 0 for none
    ArgIndex,           // A[B], A a field or a dynamic array
    ArgDynArray,        // __get_dynamic_array(Field)
    ArgDynArrayLen,     // __get_dynamic_array_len(Field)
    ArgGetStr,          // __get_str(Field)
    ArgFlags,           // __print_flags(A, Text, Symbols)
    ArgSymbolic,        // __print_symbolic(A, Symbols)
    ArgHex,             // __print_hex(A, B)
    ArgHexStr,          // __print_hex_str(A, B)
    ArgIntArray,        // __print_array(A, B count, C element size)
    ArgBitmask,         // __get_bitmask(Field)
    ArgCpumask,         // __get_cpumask(Field)
    ArgFunction,        // a plugin's helper (Value: FUNCTION_*) of A
} PRINT_ARG_TYPE;

//
// The helpers libtraceevent's jbd2 plugin registers.
//

#define FUNCTION_JIFFIES_TO_MSECS   1   // A itself (the plugin's is identity)
#define FUNCTION_JBD2_DEV_TO_NAME   2   // "MAJOR:MINOR" of A; 0 as a number

typedef enum _PRINT_OP {
    OpNone = 0,
    OpMul, OpDiv, OpMod, OpAdd, OpSub, OpShl, OpShr,
    OpLt, OpGt, OpLe, OpGe, OpEq, OpNe,
    OpAnd, OpXor, OpOr, OpLogicalAnd, OpLogicalOr,
    OpNot, OpBitNot,
} PRINT_OP;

#define ATOM_NUMERIC    0x1     // starts with a digit
#define ATOM_RESOLVED   0x2     // a name looked up in kallsyms: Value

typedef struct _PRINT_SYMBOL {
    LONGLONG Value;
    PCSZ Text;
    ULONG Length;
    ULONG Padding;
} PRINT_SYMBOL, *PPRINT_SYMBOL;

typedef struct _PRINT_ARG {
    PRINT_ARG_TYPE Type;
    PRINT_OP Op;
    LONG Priority;          // of an operator node, as libtraceevent sets it
    ULONG Flags;            // ATOM_*
    ULONGLONG Value;        // a cast's mask (0: none), a resolved name
    PCTRACE_EVENT_FIELD Field;
    PCSZ Text;
    ULONG Length;
    ULONG SymbolCount;
    PPRINT_SYMBOL Symbols;
    struct _PRINT_ARG *A;
    struct _PRINT_ARG *B;
    struct _PRINT_ARG *C;
} PRINT_ARG, *PPRINT_ARG;

//
// One printf conversion.
//

typedef struct _PRINT_SPEC {
    BOOL Left;
    BOOL Plus;
    BOOL Space;
    BOOL Alternate;
    BOOL Zero;
    LONG Width;             // -1 for none
    LONG Precision;         // -1 for none
    ULONG Bits;             // 8, 16, 32 or 64 from h, hh, l, ll
    CHAR Conversion;
} PRINT_SPEC, *PPRINT_SPEC;

typedef enum _PRINT_ITEM_KIND {
    ItemLiteral = 1,
    ItemNumber,
    ItemString,
    ItemPointer,
} PRINT_ITEM_KIND;

typedef struct _PRINT_ITEM {
    PRINT_ITEM_KIND Kind;
    ULONG SpecLength;
    CHAR Spec[32];          // the conversion as written, "%-08lx"
    CHAR PointerKind;       // after %p: 's', 'S', 'f', 'F', 'M', 'm', 0
    CHAR PointerSuffix;     // 'R' or 'F' after %pM / %pm
    BOOLEAN HasStar;
    BOOLEAN Padding;
    PCSZ Literal;
    ULONG LiteralLength;
    ULONG Padding2;
    PPRINT_ARG Arg;
    PPRINT_ARG StarArg;
    PRINT_SPEC Parsed;      // Spec, parsed once (unless it has a '*')
} PRINT_ITEM, *PPRINT_ITEM;

struct _TRACE_PRINT {
    ULONG Count;
    ULONG Padding;
    PRINT_ITEM Items[1];
};

//
// Compilation: a tokenizer and a recursive-descent parser over the text
// after "print fmt: ".
//

typedef enum _TOKEN_TYPE {
    TokenEnd = 0,
    TokenNumber,
    TokenString,
    TokenIdent,
    TokenPunct,
    TokenError,
} TOKEN_TYPE;

typedef struct _TOKEN {
    TOKEN_TYPE Type;
    PCSZ Start;
    PCSZ End;
    ULONGLONG Value;
} TOKEN, *PTOKEN;

typedef struct _PARSER {
    PTRACE_EVENT_TABLE Table;
    PTRACE_EVENT_FORMAT Format;
    PCSZ Cursor;
    PCSZ End;
    TOKEN Token;            // the current token
    ULONG Depth;
    BOOL Failed;
} PARSER, *PPARSER;

//
// The next character of a format string's literal text at *Cursor
// (before End): \n \t \r resolved, another escaped character as
// itself, "%%" as '%'.  FALSE at a conversion's '%', *Cursor left on it;
// else *Cursor is on the character's last byte (the caller steps past).
//

static inline
BOOL
PrintLiteralChar(
    PCSZ *Cursor,
    PCSZ End,
    PCHAR Char
    )
{
    PCSZ At = *Cursor;

    *Char = *At;
    if (*Char == '\\' && At + 1 < End) {
        At++;
        switch (*At) {
        case 'n': *Char = '\n'; break;
        case 't': *Char = '\t'; break;
        case 'r': *Char = '\r'; break;
        default: *Char = *At; break;
        }
    } else if (*Char == '%') {
        if (At + 1 < End && At[1] == '%') {
            At++;
        } else {
            return FALSE;
        }
    }
    *Cursor = At;
    return TRUE;
}

//
// TraceEventPrintText.c
//

VOID PrintAppendString(PTRACE_TEXT Text, PCSZ String);

VOID PrintAppendHex(PTRACE_TEXT Text, ULONGLONG Value, BOOL Prefix);

VOID PrintAppendDecimal(PTRACE_TEXT Text, ULONGLONG Value);

VOID PrintParseSpec(PCSZ Spec, ULONG Length, LONG Star, PPRINT_SPEC Out);

VOID PrintFormatStringWithSpec(PTRACE_TEXT Text, PPRINT_SPEC Spec, PCSZ String,
                               ULONG Length);

VOID PrintFormatNumberWithSpec(PTRACE_TEXT Text, PPRINT_SPEC Parsed,
                               ULONGLONG Value);


//
// TraceEventPrintLex.c
//

VOID PrintNextToken(PPARSER Parser);

BOOL PrintTokenIs(PPARSER Parser, PCSZ Literal);

BOOL PrintExpect(PPARSER Parser, PCSZ Literal);

PPRINT_ARG PrintNewArg(PPARSER Parser, PRINT_ARG_TYPE Type);

BOOL PrintUnescape(PPARSER Parser, PCSZ Start, PCSZ End, PCSZ *Text,
                   PULONG Length);

LONG PrintOpPriority(PRINT_OP Op);

PRINT_OP PrintTokenOp(PPARSER Parser);

BOOL PrintIsOperatorToken(PPARSER Parser);

LONG PrintTokenPriority(PPARSER Parser);

BOOL PrintIsOpNode(PPRINT_ARG Arg);

LONG PrintNodePriority(PPRINT_ARG Arg);

LONGLONG PrintLenientNumber(PCSZ Text, ULONG Length);

PPRINT_ARG PrintCopyArg(PPARSER Parser, PPRINT_ARG Arg);


//
// TraceEventPrintParse.c
//

ULONGLONG PrintCastMask(PCSZ Type, ULONG Length);

BOOL PrintParseArgToken(PPARSER Parser, PPRINT_ARG Arg);

BOOL PrintParseOp(PPARSER Parser, PPRINT_ARG Arg);


//
// TraceEventPrintCompile.c
//

BOOL PrintCompile(PTRACE_EVENT_TABLE Table, PTRACE_EVENT_FORMAT Format);


//
// TraceEventPrintRender.c
//

ULONG PrintBoundedLength(PCSZ String, ULONG Limit);

ULONGLONG PrintEvaluate(PPRINT_ARG Arg, PTRACE_EVENT_TABLE Table,
                        const BYTE *Data, ULONG Size);

#endif // _TRACER_TRACE_EVENT_PRINT_INTERNAL_H_
