/*++

Module Name:

    TraceEventPrintText.c

Abstract:

    Text output of the event model (TRACE_TEXT: a bounded buffer that
    truncates) and one printf conversion (flags, width, precision,
    length) applied to a number or a string, as libtraceevent's printf
    prints it.

Environment:

    Core: no C runtime, no OS service (the caller's buffer).  Owns
    TRACE_TEXT's routines and PRINT_SPEC parsing.  Calls nothing outside
    the event model.

--*/

#include "TraceEventPrintInternal.h"

//
// Text output.
//

VOID
TraceTextAppend(
    PTRACE_TEXT Text,
    PCSZ Bytes,
    SIZE_T Length
    )
{
    SIZE_T Room = Text->Capacity - Text->Length;
    SIZE_T Index;

    if (Length > Room) {
        Length = Room;
    }
    for (Index = 0; Index < Length; Index++) {
        Text->Buffer[Text->Length + Index] = Bytes[Index];
    }
    Text->Length += (ULONG)Length;
}

VOID
TraceTextAppendString(
    PTRACE_TEXT Text,
    PCSZ String
    )
{
    TraceTextAppend(Text, String, RtlStringLength(String));
}

VOID
TraceTextAppendChar(
    PTRACE_TEXT Text,
    CHAR Char
    )
{
    if (Text->Length < Text->Capacity) {
        Text->Buffer[Text->Length++] = Char;
    }
}

static
VOID
AppendRepeat(
    PTRACE_TEXT Text,
    CHAR Char,
    LONG Count
    )
{
    while (Count-- > 0) {
        TraceTextAppendChar(Text, Char);
    }
}

VOID
PrintAppendString(
    PTRACE_TEXT Text,
    PCSZ String
    )
{
    TraceTextAppend(Text, String, RtlStringLength(String));
}

VOID
PrintAppendHex(
    PTRACE_TEXT Text,
    ULONGLONG Value,
    BOOL Prefix
    )
{
    CHAR Digits[20];
    ULONG Count = 0;

    if (Prefix) {
        TraceTextAppend(Text, "0x", 2);
    }
    do {
        Digits[Count++] = "0123456789abcdef"[Value & 0xf];
        Value >>= 4;
    } while (Value != 0);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
}

VOID
PrintAppendDecimal(
    PTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    CHAR Digits[24];
    ULONG Count = 0;

    do {
        Digits[Count++] = (CHAR)('0' + Value % 10);
        Value /= 10;
    } while (Value != 0);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
}


VOID
PrintParseSpec(
    PCSZ Spec,
    ULONG Length,
    LONG Star,
    PPRINT_SPEC Out
    )
{
    PCSZ Cursor = Spec;
    PCSZ End = Spec + Length;
    LONG LengthCount = 0;

    Out->Left = FALSE;
    Out->Plus = FALSE;
    Out->Space = FALSE;
    Out->Alternate = FALSE;
    Out->Zero = FALSE;
    Out->Width = -1;
    Out->Precision = -1;
    Out->Bits = 32;
    Out->Conversion = 'd';

    if (Cursor < End && *Cursor == '%') {
        Cursor++;
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor == '-') {
            Out->Left = TRUE;
        } else if (*Cursor == '+') {
            Out->Plus = TRUE;
        } else if (*Cursor == ' ') {
            Out->Space = TRUE;
        } else if (*Cursor == '#') {
            Out->Alternate = TRUE;
        } else if (*Cursor == '0') {
            Out->Zero = TRUE;
        } else {
            break;
        }
    }

    if (Cursor < End && *Cursor == '*') {
        Out->Width = Star;
        if (Star < 0) {
            Out->Left = TRUE;
            Out->Width = -Star;
        }
        Cursor++;
    } else {
        while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
            if (Out->Width < 0) {
                Out->Width = 0;
            }
            if (Out->Width < 100000) {
                Out->Width = Out->Width * 10 + (*Cursor - '0');
            }
            Cursor++;
        }
    }

    if (Cursor < End && *Cursor == '.') {
        Cursor++;
        Out->Precision = 0;
        if (Cursor < End && *Cursor == '*') {
            Out->Precision = Star < 0 ? -1 : Star;
            Cursor++;
        } else {
            while (Cursor < End && *Cursor >= '0' && *Cursor <= '9') {
                if (Out->Precision < 100000) {
                    Out->Precision = Out->Precision * 10 + (*Cursor - '0');
                }
                Cursor++;
            }
        }
    }

    for (; Cursor < End; Cursor++) {
        if (*Cursor == 'h') {
            LengthCount--;
        } else if (*Cursor == 'l') {
            LengthCount++;
        } else if (*Cursor == 'L' || *Cursor == 'q' || *Cursor == 'j') {
            LengthCount = 2;
        } else if (*Cursor == 'z' || *Cursor == 'Z' || *Cursor == 't') {
            LengthCount = 1;
        } else {
            break;
        }
    }

    if (Cursor < End) {
        Out->Conversion = *Cursor;
    }

    if (LengthCount <= -2) {
        Out->Bits = 8;
    } else if (LengthCount == -1) {
        Out->Bits = 16;
    } else if (LengthCount == 0) {
        Out->Bits = 32;
    } else {
        Out->Bits = 64;
    }

    if (Out->Width > 65536) {
        Out->Width = 65536;
    }
    if (Out->Precision > 65536) {
        Out->Precision = 65536;
    }
}

VOID
PrintFormatStringWithSpec(
    PTRACE_TEXT Text,
    PPRINT_SPEC Spec,
    PCSZ String,
    ULONG Length
    )
{
    PRINT_SPEC Parsed = *Spec;
    LONG Pad;

    if (Parsed.Precision >= 0 && (ULONG)Parsed.Precision < Length) {
        Length = (ULONG)Parsed.Precision;
    }
    Pad = Parsed.Width > (LONG)Length ? Parsed.Width - (LONG)Length : 0;
    if (!Parsed.Left) {
        AppendRepeat(Text, ' ', Pad);
    }
    TraceTextAppend(Text, String, Length);
    if (Parsed.Left) {
        AppendRepeat(Text, ' ', Pad);
    }
}

VOID
PrintFormatNumberWithSpec(
    PTRACE_TEXT Text,
    PPRINT_SPEC Parsed,
    ULONGLONG Value
    )
/*++

Routine Description:

    Formats Value as the C library's printf would with the conversion
    Parsed (Value is first cast to the conversion's length).

--*/
{
    PRINT_SPEC Spec = *Parsed;
    CHAR Digits[72];
    ULONG Count = 0;
    PCSZ Prefix = "";
    ULONG PrefixLength = 0;
    ULONG Base = 10;
    BOOL Upper = FALSE;
    ULONGLONG Magnitude;
    LONG ZeroCount = 0;
    LONG Total;
    ULONGLONG Mask;

    Mask = Spec.Bits == 64 ? ~0ULL : ((1ULL << Spec.Bits) - 1);
    Value &= Mask;

    switch (Spec.Conversion) {
    case 'c': {
        CHAR Char = (CHAR)(Value & 0xff);
        LONG Pad = Spec.Width > 1 ? Spec.Width - 1 : 0;

        if (!Spec.Left) {
            AppendRepeat(Text, ' ', Pad);
        }
        TraceTextAppendChar(Text, Char);
        if (Spec.Left) {
            AppendRepeat(Text, ' ', Pad);
        }
        return;
    }

    case 'd':
    case 'i':
        if (Spec.Bits < 64 && (Value & (1ULL << (Spec.Bits - 1)))) {
            Value |= ~Mask;
        }
        if ((LONGLONG)Value < 0) {
            Magnitude = 0 - Value;
            Prefix = "-";
            PrefixLength = 1;
        } else {
            Magnitude = Value;
            if (Spec.Plus) {
                Prefix = "+";
                PrefixLength = 1;
            } else if (Spec.Space) {
                Prefix = " ";
                PrefixLength = 1;
            }
        }
        break;

    case 'o':
        Base = 8;
        Magnitude = Value;
        break;

    case 'x':
        Base = 16;
        Magnitude = Value;
        if (Spec.Alternate && Value != 0) {
            Prefix = "0x";
            PrefixLength = 2;
        }
        break;

    case 'X':
        Base = 16;
        Upper = TRUE;
        Magnitude = Value;
        if (Spec.Alternate && Value != 0) {
            Prefix = "0X";
            PrefixLength = 2;
        }
        break;

    default:
        Magnitude = Value;
        break;
    }

    //
    // Digits, least significant first (constant divisors: no division
    // instructions).
    //

    if (!(Spec.Precision == 0 && Magnitude == 0)) {
        if (Base == 16) {
            PCSZ Hex = Upper ? "0123456789ABCDEF" : "0123456789abcdef";
            do {
                Digits[Count++] = Hex[Magnitude & 0xf];
                Magnitude >>= 4;
            } while (Magnitude != 0);
        } else if (Base == 8) {
            do {
                Digits[Count++] = (CHAR)('0' + (Magnitude & 7));
                Magnitude >>= 3;
            } while (Magnitude != 0);
        } else {
            do {
                Digits[Count++] = (CHAR)('0' + Magnitude % 10);
                Magnitude /= 10;
            } while (Magnitude != 0);
        }
    }

    if (Spec.Conversion == 'o' && Spec.Alternate &&
        (Count == 0 || Digits[Count - 1] != '0')) {
        Digits[Count++] = '0';
    }

    if (Spec.Precision > (LONG)Count) {
        ZeroCount = Spec.Precision - (LONG)Count;
    }

    Total = (LONG)(PrefixLength + Count) + ZeroCount;
    if (Spec.Zero && !Spec.Left && Spec.Precision < 0 &&
        Spec.Width > Total) {
        ZeroCount += Spec.Width - Total;
        Total = Spec.Width;
    }

    if (!Spec.Left && Spec.Width > Total) {
        AppendRepeat(Text, ' ', Spec.Width - Total);
    }
    TraceTextAppend(Text, Prefix, PrefixLength);
    AppendRepeat(Text, '0', ZeroCount);
    while (Count != 0) {
        TraceTextAppendChar(Text, Digits[--Count]);
    }
    if (Spec.Left && Spec.Width > Total) {
        AppendRepeat(Text, ' ', Spec.Width - Total);
    }
}

VOID
TraceTextFormatNumber(
    PTRACE_TEXT Text,
    PCSZ Conversion,
    ULONG ConversionLength,
    LONG StarWidth,
    LONG StarPrecision,
    ULONGLONG Value
    )
{
    PRINT_SPEC Spec;

    PrintParseSpec(Conversion, ConversionLength,
                   StarWidth != -1 ? StarWidth : StarPrecision, &Spec);
    PrintFormatNumberWithSpec(Text, &Spec, Value);
}

VOID
TraceTextAppendHex(
    PTRACE_TEXT Text,
    ULONGLONG Value
    )
{
    PrintAppendHex(Text, Value, FALSE);
}

VOID
TraceTextAppendDecimal(
    PTRACE_TEXT Text,
    ULONGLONG Value,
    BOOL Signed
    )
{
    if (Signed && (LONGLONG)Value < 0) {
        TraceTextAppendChar(Text, '-');
        Value = 0 - Value;
    }
    PrintAppendDecimal(Text, Value);
}
