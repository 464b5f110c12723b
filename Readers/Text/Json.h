/*++

Module Name:

    Json.h

Abstract:

    A streaming JSON tokenizer over a mapped input: no tree is built and no
    byte of the input is copied unless a caller asks for a string to be
    decoded (escapes resolved) into its own buffer.  A reader walks
    objects and arrays with JsonObjectNext / JsonArrayNext, looks at the
    values it wants (JsonScanString, JsonScanNumber) and skips the rest
    (JsonSkipValue), in memory that does not depend on the input: nesting
    is tracked in a fixed bit stack (JSON_MAX_DEPTH levels).

    Every routine works on [Cursor, End) and never reads at or past End.
    The grammar is RFC 8259's, strictly: no comments, no trailing commas,
    no control characters inside strings.  On failure a routine returns
    NULL (or JsonStepError) and fills a JSON_ERROR with the position and a
    reason for the message.

Environment:

    Core: no C runtime, no OS service.  Implemented by Json.c (and the
    inline routines below); used by the Chrome JSON reader.

--*/

#ifndef _TRACER_JSON_H_
#define _TRACER_JSON_H_

#include "Rtl/Rtl.h"

#define JSON_MAX_DEPTH 512

typedef struct _JSON_ERROR {
    PCSZ At;                // where the input is wrong
    PCSZ Reason;            // e.g. "unterminated string"
} JSON_ERROR, *PJSON_ERROR;

//
// A string as it appears in the input, without its quotes.  Escaped is
// TRUE when it holds backslash escapes (decode it with JsonDecodeString);
// otherwise [Start, End) are its bytes.
//

typedef struct _JSON_STRING {
    PCSZ Start;
    PCSZ End;
    BOOL Escaped;
    ULONG Padding;
} JSON_STRING, *PJSON_STRING;

//
// A number's text, validated against the JSON grammar.
//

typedef struct _JSON_NUMBER {
    PCSZ Start;
    PCSZ End;
} JSON_NUMBER, *PJSON_NUMBER;

typedef enum _JSON_STEP {
    JsonStepItem = 0,       // a member or element follows at the cursor
    JsonStepDone = 1,       // the container ended; cursor is past it
    JsonStepError = 2,      // see the JSON_ERROR
    JsonStepEndOfInput = 3, // the input ended where an item could follow
} JSON_STEP;

static inline __attribute__((always_inline))
PCSZ
JsonSkipSpace(
    PCSZ Cursor,
    PCSZ End
    )
{
    while (Cursor < End &&
           (*Cursor == ' ' || *Cursor == '\n' || *Cursor == '\r' ||
            *Cursor == '\t')) {
        Cursor++;
    }
    return Cursor;
}

//
// Cursor is at the opening quote.  Returns the position after the closing
// quote.  (Inline, below.)
//

//
// Decodes String (escapes resolved, \uXXXX and surrogate pairs to UTF-8; a
// lone surrogate becomes U+FFFD) into Buffer.  Returns the length, or ~0
// if it does not fit in Size bytes.
//

ULONG JsonDecodeString(PJSON_STRING String, PCHAR Buffer, ULONG Size);

//
// Cursor is at the first character of a number.  Returns the position
// after it.
//

PCSZ JsonScanNumber(PCSZ Cursor, PCSZ End, PJSON_NUMBER Number,
                    PJSON_ERROR Error);

//
// Converts a number to an integer scaled by 10^Scale, exactly: the
// decimal digits are shifted, never converted through a double, and
// digits below the unit round it to the nearest (half away from zero: a
// writer that prints doubles writes 1.2339999999999999 for 1.234).  With
// Scale 3, microseconds become nanoseconds: 704184098.491 -> 704184098491.
// FALSE if the result does not fit in 63 bits.
//

BOOL JsonNumberToScaled(PJSON_NUMBER Number, ULONG Scale, PLONGLONG Value);

//
// Scans a number at Cursor and converts it as JsonNumberToScaled does, in
// one pass for the common forms (an optional '-', up to 18 integer digits,
// a fraction, no exponent), falling back to JsonScanNumber and
// JsonNumberToScaled otherwise.  Returns the position after the number, or
// NULL (Error says why; Error->Reason is "number out of range" when the
// number is valid but does not fit).
//

PCSZ JsonScanScaled(PCSZ Cursor, PCSZ End, ULONG Scale, PLONGLONG Value,
                    PJSON_ERROR Error);

//
// Skips one value of any kind starting at Cursor (no leading space).
// Returns the position after it.
//

PCSZ JsonSkipValue(PCSZ Cursor, PCSZ End, PJSON_ERROR Error);

//
// Object and array walking.  Start with *Cursor just past the '{' (or
// '[') and *First TRUE.  Each JsonStepItem leaves *Cursor at the value
// (for objects, Key receives the member name); the caller must move
// *Cursor past the value before the next call.  (Inline, below.)
//

//
// TRUE if the undecoded string equals Literal (Length bytes).
//

static inline __attribute__((always_inline))
BOOL
JsonStringIs(
    PJSON_STRING String,
    PCSZ Literal,
    ULONG Length
    )
{
    ULONG Index;

    if (String->Escaped || (ULONG)(String->End - String->Start) != Length) {
        return FALSE;
    }
    for (Index = 0; Index < Length; Index++) {
        if (String->Start[Index] != Literal[Index]) {
            return FALSE;
        }
    }
    return TRUE;
}

//
// ---------------------------------------------------------------------------
// The hot paths, inline so that a reader's loop over the members of its
// events compiles into one function.
// ---------------------------------------------------------------------------
//

BOOL JsonFail(PJSON_ERROR Error, PCSZ At, PCSZ Reason);

//
// The Reason of every error where the input ends before the value does,
// so that a caller can tell a cut file (RtlStringEqual) from a bad one.
//

#define JSON_END_OF_INPUT "unexpected end of input"

//
// The rest of a string from the first backslash or control character:
// escapes validated, Escaped set.  Returns the position after the closing
// quote, or NULL.
//

PCSZ JsonScanStringRest(PCSZ Open, PCSZ Cursor, PCSZ End, PJSON_STRING String,
                        PJSON_ERROR Error);

typedef char JSON_V16 __attribute__((vector_size(16), aligned(1)));

static inline __attribute__((always_inline))
PCSZ
JsonFindStringStop(
    PCSZ Cursor,
    PCSZ End
    )
/*++

Routine Description:

    Returns the first quote, backslash or control character (below 0x20)
    in [Cursor, End), or End.  Sixteen bytes at a time while a whole
    vector lies before End.

--*/
{
#if defined(__x86_64__)
    const JSON_V16 Quote = {'"', '"', '"', '"', '"', '"', '"', '"',
                            '"', '"', '"', '"', '"', '"', '"', '"'};
    const JSON_V16 Backslash = {'\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\',
                                '\\', '\\', '\\', '\\', '\\', '\\', '\\', '\\'};
    const JSON_V16 Flip = {-128, -128, -128, -128, -128, -128, -128, -128,
                           -128, -128, -128, -128, -128, -128, -128, -128};
    const JSON_V16 Limit = {-96, -96, -96, -96, -96, -96, -96, -96,
                            -96, -96, -96, -96, -96, -96, -96, -96};

    while (End - Cursor >= 16) {
        JSON_V16 Chunk;
        JSON_V16 Stop;
        int Mask;

        __builtin_memcpy(&Chunk, Cursor, 16);

        //
        // Unsigned "below 0x20" as a signed compare of the bytes with
        // their top bit flipped: 0x00..0x1f become -128..-97.
        //

        Stop = (JSON_V16)(Chunk == Quote) | (JSON_V16)(Chunk == Backslash) |
               (JSON_V16)((Chunk ^ Flip) < Limit);
        Mask = __builtin_ia32_pmovmskb128(Stop);
        if (Mask != 0) {
            return Cursor + __builtin_ctz((unsigned)Mask);
        }
        Cursor += 16;
    }
#endif

    while (Cursor < End && *Cursor != '"' && *Cursor != '\\' &&
           (BYTE)*Cursor >= 0x20) {
        Cursor++;
    }
    return Cursor;
}

static inline __attribute__((always_inline))
PCSZ
JsonScanString(
    PCSZ Cursor,
    PCSZ End,
    PJSON_STRING String,
    PJSON_ERROR Error
    )
{
    PCSZ Open = Cursor;

    if (Cursor >= End || *Cursor != '"') {
        JsonFail(Error, Cursor, Cursor >= End ? JSON_END_OF_INPUT :
                                                "expected a string");
        return NULL;
    }

    String->Start = ++Cursor;
    String->Escaped = FALSE;
    String->Padding = 0;

    Cursor = JsonFindStringStop(Cursor, End);
    if (Cursor < End && *Cursor == '"') {
        String->End = Cursor;
        return Cursor + 1;
    }

    return JsonScanStringRest(Open, Cursor, End, String, Error);
}

static inline __attribute__((always_inline))
JSON_STEP
JsonObjectNext(
    PCSZ *Cursor,
    PCSZ End,
    PBOOL First,
    PJSON_STRING Key,
    PJSON_ERROR Error
    )
{
    PCSZ Position = JsonSkipSpace(*Cursor, End);

    if (Position >= End) {
        JsonFail(Error, Position, JSON_END_OF_INPUT);
        return JsonStepEndOfInput;
    }

    if (*Position == '}') {
        *Cursor = Position + 1;
        return JsonStepDone;
    }

    if (!*First) {
        if (*Position != ',') {
            JsonFail(Error, Position, "expected ',' or '}'");
            return JsonStepError;
        }
        Position = JsonSkipSpace(Position + 1, End);
    }
    *First = FALSE;

    Position = JsonScanString(Position, End, Key, Error);
    if (Position == NULL) {
        return JsonStepError;
    }

    if (Position < End && *Position == ':') {
        Position++;
    } else {
        Position = JsonSkipSpace(Position, End);
        if (Position >= End || *Position != ':') {
            JsonFail(Error, Position, Position >= End ?
                                          JSON_END_OF_INPUT :
                                          "expected ':' after a key");
            return JsonStepError;
        }
        Position++;
    }

    Position = JsonSkipSpace(Position, End);
    if (Position >= End) {
        JsonFail(Error, Position, JSON_END_OF_INPUT);
        return JsonStepError;
    }

    *Cursor = Position;
    return JsonStepItem;
}

static inline __attribute__((always_inline))
JSON_STEP
JsonArrayNext(
    PCSZ *Cursor,
    PCSZ End,
    PBOOL First,
    PJSON_ERROR Error
    )
{
    PCSZ Position = JsonSkipSpace(*Cursor, End);

    if (Position >= End) {
        JsonFail(Error, Position, JSON_END_OF_INPUT);
        return JsonStepEndOfInput;
    }

    if (*Position == ']') {
        *Cursor = Position + 1;
        return JsonStepDone;
    }

    if (!*First) {
        if (*Position != ',') {
            JsonFail(Error, Position, "expected ',' or ']'");
            return JsonStepError;
        }
        Position = JsonSkipSpace(Position + 1, End);
        if (Position >= End) {
            JsonFail(Error, Position, JSON_END_OF_INPUT);
            return JsonStepEndOfInput;
        }
        if (*Position == ']') {
            JsonFail(Error, Position, "trailing ',' before ']'");
            return JsonStepError;
        }
    }
    *First = FALSE;

    *Cursor = Position;
    return JsonStepItem;
}

#endif // _TRACER_JSON_H_
