/*++

Module Name:

    EventFields.c

Abstract:

    The parser of an event's fields (EventFields.h): the matching of
    brackets and quotes, then the fields one at a time.

Environment:

    Core: no C runtime, no state, no OS service.

--*/

#include "Kernel/EventFields.h"

static
BOOL
IsBlank(
    CHAR C
    )
{
    return C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
           C == '\v';
}

static
BOOL
IsAlnum(
    CHAR C
    )
{
    return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') ||
           (C >= '0' && C <= '9');
}

//
// TRUE if a quote at K starts a quoted string: at the start of a word or
// of a value, or just inside a bracket.
//

static
BOOL
QuoteStarts(
    PCSZ Text,
    LONG K
    )
{
    CHAR Previous;

    if (K == 0) {
        return TRUE;
    }
    Previous = Text[K - 1];
    return IsBlank(Previous) || Previous == '=' || Previous == '(' ||
           Previous == '[' || Previous == '{' || Previous == ',';
}

//
// Fills Match: one pass with a stack of open brackets; a quoted string is
// skipped whole.  A closer that does not close the innermost open bracket
// is an ordinary byte, and so is an opener that is never closed.  If no
// closing quote follows a quote, none follows any later quote of that
// kind either, so the search for it is not repeated: the pass stays
// linear.
//

static
VOID
MatchBrackets(
    PEVENT_FIELDS Fields
    )
{
    PCSZ Text = Fields->Text;
    LONG Length = Fields->Length;
    LONG Depth = 0;
    BOOL NoQuote[2] = { FALSE, FALSE };
    LONG K;
    LONG J;

    for (K = 0; K < Length; K++) {
        Fields->Match[K] = -1;
    }

    for (K = 0; K < Length; K++) {
        CHAR C = Text[K];

        if ((C == '"' || C == '\'') && !NoQuote[C == '\''] &&
            QuoteStarts(Text, K)) {

            for (J = K + 1; J < Length && Text[J] != C; J++) {
                if (Text[J] == '\\') {
                    J++;
                }
            }
            if (J < Length) {
                Fields->Match[K] = J;
                K = J;
            } else {
                NoQuote[C == '\''] = TRUE;
            }

        } else if (C == '(' || C == '[' || C == '{') {

            Fields->Stack[Depth++] = K;

        } else if ((C == ')' || C == ']' || C == '}') && Depth > 0) {

            CHAR Open = Text[Fields->Stack[Depth - 1]];

            if ((C == ')' && Open == '(') || (C == ']' && Open == '[') ||
                (C == '}' && Open == '{')) {
                Fields->Match[Fields->Stack[--Depth]] = K;
            }
        }
    }
}

VOID
EventFieldsStart(
    PEVENT_FIELDS Fields,
    PCSZ Text,
    LONG Length,
    PLONG Scratch
    )
{
    Fields->Text = Text;
    Fields->Length = Length;
    Fields->Next = 0;
    Fields->Match = Scratch;
    Fields->Stack = Scratch + Length;
    MatchBrackets(Fields);
}

//
// The end of the word that starts at I (brackets and quotes whole).
//

static
LONG
WordEnd(
    PEVENT_FIELDS Fields,
    LONG I
    )
{
    while (I < Fields->Length && !IsBlank(Fields->Text[I])) {
        I = Fields->Match[I] >= 0 ? Fields->Match[I] + 1 : I + 1;
    }
    return I;
}

static
LONG
SkipBlanks(
    PEVENT_FIELDS Fields,
    LONG I
    )
{
    while (I < Fields->Length && IsBlank(Fields->Text[I])) {
        I++;
    }
    return I;
}

//
// If the word [I, End) starts a field, returns the length of its key and
// sets *Form to '=' (KEY=VALUE) or ':' (a word "KEY:"); else returns 0.
//

static
LONG
FieldKey(
    PEVENT_FIELDS Fields,
    LONG I,
    LONG End,
    PCHAR Form
    )
{
    PCSZ Text = Fields->Text;
    LONG K = I;
    CHAR C = Text[K];

    if (!((C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_')) {
        return 0;
    }
    for (K++; K < End; K++) {
        C = Text[K];
        if (!(IsAlnum(C) || C == '_' || C == '.' || C == '-' || C == '[' ||
              C == ']')) {
            break;
        }
    }
    if (K < End && Text[K] == '=') {
        *Form = '=';
        return K - I;
    }
    if (K == End - 1 && Text[K] == ':') {
        *Form = ':';
        return K - I;
    }
    return 0;
}

BOOL
EventFieldsNext(
    PEVENT_FIELDS Fields,
    PEVENT_FIELD Field
    )
{
    PCSZ Text = Fields->Text;
    LONG I = Fields->Next;
    LONG End;
    LONG KeyLength;
    LONG Value;
    LONG ValueEnd;
    LONG J;
    LONG NextEnd;
    LONG K;
    CHAR Form;
    CHAR NextForm;
    LONGLONG Ignored;

    for (;;) {
        I = SkipBlanks(Fields, I);
        if (I >= Fields->Length) {
            Fields->Next = I;
            return FALSE;
        }
        End = WordEnd(Fields, I);
        KeyLength = FieldKey(Fields, I, End, &Form);
        if (KeyLength > 0) {
            break;
        }
        I = End;
    }
    Field->Key = Text + I;
    Field->KeyLength = KeyLength;

    if (Form == '=') {
        Value = I + KeyLength + 1;
        ValueEnd = End;
    } else {

        //
        // "KEY:" and the next word, unless that one is a field itself.
        //

        Value = ValueEnd = End;
        J = SkipBlanks(Fields, End);
        if (J < Fields->Length) {
            NextEnd = WordEnd(Fields, J);
            if (FieldKey(Fields, J, NextEnd, &NextForm) == 0) {
                Value = J;
                ValueEnd = NextEnd;
            }
        }
    }

    //
    // A quoted value, closed at its end (or before a final comma).
    //

    Field->Quoted = FALSE;
    if (ValueEnd > Value && Fields->Match[Value] >= 0 &&
        (Text[Value] == '"' || Text[Value] == '\'') &&
        (Fields->Match[Value] == ValueEnd - 1 ||
         (Fields->Match[Value] == ValueEnd - 2 &&
          Text[ValueEnd - 1] == ','))) {
        Field->Quoted = TRUE;
    }

    //
    // The value runs on over the following words (see EventFields.h).
    //

    while (ValueEnd > Value && !Field->Quoted && Text[ValueEnd - 1] != ',' &&
           !EventFieldInteger(Text + Value, ValueEnd - Value, &Ignored)) {
        J = SkipBlanks(Fields, ValueEnd);
        if (J >= Fields->Length) {
            break;
        }
        NextEnd = WordEnd(Fields, J);
        if (FieldKey(Fields, J, NextEnd, &NextForm) > 0) {
            break;
        }
        for (K = J; K < NextEnd && !IsAlnum(Text[K]); K++) {
        }
        if (K == NextEnd) {
            break;
        }
        ValueEnd = NextEnd;
    }

    Fields->Next = ValueEnd;
    if (ValueEnd > Value && Text[ValueEnd - 1] == ',') {
        ValueEnd--;
    }
    Field->Value = Text + Value;
    Field->ValueLength = ValueEnd - Value;
    return TRUE;
}

//
// A decimal integer (a '-' and digits within int64, or digits within
// uint64) or "0x" and 1 to 16 hex digits; uint64 values as the same bits.
//

BOOL
EventFieldInteger(
    PCSZ Text,
    LONG Length,
    PLONGLONG Value
    )
{
    ULONGLONG U = 0;
    ULONGLONG Digit;
    LONG I = 0;
    BOOL Negative = FALSE;

    if (Length > 2 && Text[0] == '0' && (Text[1] == 'x' || Text[1] == 'X')) {
        if (Length > 18) {
            return FALSE;
        }
        for (I = 2; I < Length; I++) {
            CHAR C = Text[I];
            if (C >= '0' && C <= '9') {
                Digit = (ULONGLONG)(C - '0');
            } else if (C >= 'a' && C <= 'f') {
                Digit = (ULONGLONG)(C - 'a' + 10);
            } else if (C >= 'A' && C <= 'F') {
                Digit = (ULONGLONG)(C - 'A' + 10);
            } else {
                return FALSE;
            }
            U = U * 16 + Digit;
        }
        *Value = (LONGLONG)U;
        return TRUE;
    }

    if (Length > 0 && Text[0] == '-') {
        Negative = TRUE;
        I = 1;
    }
    if (I >= Length) {
        return FALSE;
    }
    for (; I < Length; I++) {
        if (Text[I] < '0' || Text[I] > '9') {
            return FALSE;
        }
        Digit = (ULONGLONG)(Text[I] - '0');
        if (U > (0xffffffffffffffffULL - Digit) / 10) {
            return FALSE;
        }
        U = U * 10 + Digit;
    }
    if (Negative) {
        if (U > 0x8000000000000000ULL) {
            return FALSE;
        }
        *Value = (LONGLONG)(0 - U);
    } else {
        *Value = (LONGLONG)U;
    }
    return TRUE;
}
