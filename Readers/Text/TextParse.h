/*++

Module Name:

    TextParse.h

Abstract:

    Shared parsing helpers for every reader that reads text: ftrace and
    trace-cmd report text, perf script and perf stat, the ftrace event
    formats and print fmt (Decoders/Ftrace), uftrace's text files and
    argument specs, Chrome JSON's numbers (through Json.c), and the
    import context's line loop and text events: field splitting, numbers,
    timestamps, and `key=value` fields.  Every routine works on a (Start,
    End) byte range and never reads at or past End, so an input placed
    flush against an unmapped page is safe.

Environment:

    Core: no C runtime, no OS service.  Implemented by TextParse.c; the
    bottom of the readers (Readers/Text/): it calls nothing.

--*/

#ifndef _TRACER_TEXT_PARSE_H_
#define _TRACER_TEXT_PARSE_H_

#include "Rtl/Rtl.h"

typedef struct _TEXT_SPAN {
    PCSZ Start;
    PCSZ End;
} TEXT_SPAN, *PTEXT_SPAN;

#define TEXT_SPAN_LENGTH(Span) ((ULONG)((Span).End - (Span).Start))

//
// Returns the first position of Char in [Start, End), or End.
//

PCSZ TextFindChar(PCSZ Start, PCSZ End, CHAR Char);

//
// Returns the first byte in [Start, End) at or below ' ' (a blank, tab,
// CR, newline or other control character), or End.
//

PCSZ TextFindBlank(PCSZ Start, PCSZ End);

//
// Returns the first occurrence of Needle (NeedleLength bytes) in
// [Start, End), or NULL.
//

PCSZ TextFindString(PCSZ Start, PCSZ End, PCSZ Needle, ULONG NeedleLength);

//
// A space or a tab: what the text formats put between fields
// (TextIsBlank); C's isspace in the C locale, space and \t \n \v \f \r
// (TextIsSpace).  TextSkipSpaces skips blanks.
//

static inline
BOOL
TextIsBlank(
    CHAR Char
    )
{
    return Char == ' ' || Char == '\t';
}

static inline
BOOL
TextIsSpace(
    CHAR Char
    )
{
    return Char == ' ' || (Char >= '\t' && Char <= '\r');
}

PCSZ TextSkipSpaces(PCSZ Start, PCSZ End);

//
// Trims trailing spaces, tabs and carriage returns.
//

PCSZ TextTrimEnd(PCSZ Start, PCSZ End);

static inline
BOOL
TextIsDigit(
    CHAR Char
    )
{
    return Char >= '0' && Char <= '9';
}

//
// TRUE if [Start, End) is one or more decimal digits and nothing else
// (TextParseUnsigned also takes "0x..." as hex).
//

BOOL TextIsDecimal(PCSZ Start, PCSZ End);

//
// The value of a hex digit (either case), or -1.
//

LONG TextHexValue(CHAR Char);

//
// Parses an unsigned integer: decimal, or hex with a 0x prefix (or always
// hex when ForceHex).  Returns the position after it, or NULL if there is
// no number or it overflows 64 bits.
//

PCSZ TextParseUnsigned(PCSZ Start, PCSZ End, BOOL ForceHex,
                       PULONGLONG Value);

//
// Parses an optionally negative decimal integer.
//

PCSZ TextParseSigned(PCSZ Start, PCSZ End, PLONGLONG Value);

//
// Parses "SECONDS[.FRACTION]" into nanoseconds (fractions beyond nine
// digits are rejected).  Returns the position after it, or NULL.
//

PCSZ TextParseSeconds(PCSZ Start, PCSZ End, PLONGLONG Nanoseconds);

//
// Finds `Key` (e.g. "address=") at a word start in [Start, End) and
// returns its value: up to the next space.  FALSE if absent.
//

BOOL TextFindField(PCSZ Start, PCSZ End, PCSZ Key, PTEXT_SPAN Value);

//
// Same, parsing the value as an unsigned number (0x prefix for hex).
//

BOOL TextFindNumber(PCSZ Start, PCSZ End, PCSZ Key, PULONGLONG Value);

BOOL TextSpanEquals(TEXT_SPAN Span, PCSZ Literal);

//
// TRUE if the Length bytes at Start are exactly the NUL-terminated Literal.
//

BOOL TextEquals(PCSZ Start, SIZE_T Length, PCSZ Literal);

//
// TRUE if [Start, End) begins with Literal.
//

BOOL TextStartsWith(PCSZ Start, PCSZ End, PCSZ Literal);

//
// Splits delimiter-separated text (perf stat -x SEP, CSV without quoting):
// returns the field at *Cursor, up to the next Separator (SeparatorLength
// bytes, one or more) or End, and moves *Cursor past that separator.
// *Cursor becomes NULL after the last field; FALSE once it is NULL.
//

BOOL TextNextField(PCSZ *Cursor, PCSZ End, PCSZ Separator,
                   ULONG SeparatorLength, PTEXT_SPAN Field);

//
// Parses a decimal number "[-]DIGITS[.DIGITS][e[+-]DIGITS]" into a double.
// Up to 19 significant digits with a power of ten within 10^22 convert
// exactly rounded (every value perf prints); longer ones within an ulp or
// two.  Returns the position after it, or NULL.
//

PCSZ TextParseDouble(PCSZ Start, PCSZ End, PDOUBLE Value);

//
// Writes code point Code (at most 0x10FFFF) as UTF-8 at Out, which has
// room for 4 bytes, and returns how many it wrote (1 to 4).  Surrogates
// (0xD800-0xDFFF) are the caller's to refuse or replace first.
//

ULONG TextEncodeUtf8(ULONG Code, PCHAR Out);

#endif // _TRACER_TEXT_PARSE_H_
