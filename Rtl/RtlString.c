/*++

Module Name:

    RtlString.c

Abstract:

    This module implements the portable string helpers of the Rtl: string
    length, a small printf-style formatter (enough for error messages and
    the kvmtrace/text writers of the core), error filling, and status text.
    No OS access and no C runtime.

Environment:

    Core: no C runtime, no OS service.  Called by everything (RtlFormat,
    RtlSetError, RtlStatusText, string compares); calls nothing.

--*/

#include "Rtl.h"

SIZE_T
RtlStringLength(
    PCSZ String
    )
{
    SIZE_T Length = 0;

    while (String[Length] != '\0') {
        Length++;
    }

    return Length;
}

LONG
RtlCompareString(
    PCSZ Left,
    PCSZ Right
    )
{
    while (*Left != '\0' && *Left == *Right) {
        Left++;
        Right++;
    }

    return (LONG)(BYTE)*Left - (LONG)(BYTE)*Right;
}

typedef struct _FORMAT_BUFFER {
    PCHAR Buffer;
    SIZE_T Size;
    SIZE_T Length;
} FORMAT_BUFFER, *PFORMAT_BUFFER;

static
VOID
FormatPutChar(
    PFORMAT_BUFFER Out,
    CHAR Char
    )
{
    if (Out->Length + 1 < Out->Size) {
        Out->Buffer[Out->Length] = Char;
    }
    Out->Length++;
}

static
VOID
FormatPutUnsigned(
    PFORMAT_BUFFER Out,
    ULONGLONG Value,
    ULONG Base,
    ULONG Width,
    CHAR Pad,
    BOOL Negative
    )
{
    CHAR Digits[24];
    ULONG Count = 0;
    static const CHAR Hex[] = "0123456789abcdef";

    do {
        Digits[Count++] = Hex[Value % Base];
        Value /= Base;
    } while (Value != 0);

    if (Negative) {
        if (Pad == '0') {
            FormatPutChar(Out, '-');
        }
        Width = (Width > 0) ? Width - 1 : 0;
    }

    while (Width > Count) {
        FormatPutChar(Out, Pad);
        Width--;
    }

    if (Negative && Pad != '0') {
        FormatPutChar(Out, '-');
    }

    while (Count != 0) {
        FormatPutChar(Out, Digits[--Count]);
    }
}

SIZE_T
RtlFormatV(
    PCHAR Buffer,
    SIZE_T BufferSize,
    PCSZ Format,
    va_list Args
    )
/*++

Routine Description:

    Formats into Buffer, always NUL-terminating when BufferSize > 0.

Arguments:

    Buffer - Supplies the output buffer.

    BufferSize - Supplies its size in bytes.

    Format - Supplies the format (see Rtl.h for the conversions).

    Args - Supplies the arguments.

Return Value:

    The number of characters written, excluding the NUL (truncated output
    stops at BufferSize - 1).

--*/
{
    FORMAT_BUFFER Out;
    PCSZ Cursor;

    Out.Buffer = Buffer;
    Out.Size = BufferSize;
    Out.Length = 0;

    for (Cursor = Format; *Cursor != '\0'; Cursor++) {
        CHAR Pad = ' ';
        ULONG Width = 0;
        ULONG LongCount = 0;
        LONG Precision = -1;

        if (*Cursor != '%') {
            FormatPutChar(&Out, *Cursor);
            continue;
        }

        Cursor++;
        if (*Cursor == '0') {
            Pad = '0';
            Cursor++;
        }
        while (*Cursor >= '0' && *Cursor <= '9') {
            Width = Width * 10 + (ULONG)(*Cursor - '0');
            Cursor++;
        }
        if (Cursor[0] == '.' && Cursor[1] == '*') {
            Precision = va_arg(Args, int);
            Cursor += 2;
        }
        while (*Cursor == 'l') {
            LongCount++;
            Cursor++;
        }
        if (*Cursor == 'z') {
            LongCount = 2;
            Cursor++;
        }

        switch (*Cursor) {

            case 's': {
                PCSZ String = va_arg(Args, PCSZ);
                LONG Index;
                if (String == NULL) {
                    String = "(null)";
                }
                for (Index = 0;
                     String[Index] != '\0' &&
                     (Precision < 0 || Index < Precision);
                     Index++) {
                    FormatPutChar(&Out, String[Index]);
                }
                break;
            }

            case 'c':
                FormatPutChar(&Out, (CHAR)va_arg(Args, int));
                break;

            case 'd': {
                LONGLONG Value;
                if (LongCount >= 1) {
                    Value = va_arg(Args, long long);
                } else {
                    Value = va_arg(Args, int);
                }
                if (Value < 0) {
                    FormatPutUnsigned(&Out,
                                      (ULONGLONG)0 - (ULONGLONG)Value,
                                      10, Width, Pad, TRUE);
                } else {
                    FormatPutUnsigned(&Out, (ULONGLONG)Value, 10, Width,
                                      Pad, FALSE);
                }
                break;
            }

            case 'u':
            case 'x': {
                ULONGLONG Value;
                if (LongCount >= 1) {
                    Value = va_arg(Args, unsigned long long);
                } else {
                    Value = va_arg(Args, unsigned int);
                }
                FormatPutUnsigned(&Out, Value, (*Cursor == 'x') ? 16 : 10,
                                  Width, Pad, FALSE);
                break;
            }

            case '%':
                FormatPutChar(&Out, '%');
                break;

            case '\0':
                Cursor--;
                break;

            default:
                FormatPutChar(&Out, '%');
                FormatPutChar(&Out, *Cursor);
                break;
        }
    }

    if (BufferSize > 0) {
        Buffer[(Out.Length < BufferSize) ? Out.Length : BufferSize - 1] = 0;
    }

    return (Out.Length < BufferSize) ? Out.Length :
           ((BufferSize > 0) ? BufferSize - 1 : 0);
}

SIZE_T
RtlFormat(
    PCHAR Buffer,
    SIZE_T BufferSize,
    PCSZ Format,
    ...
    )
{
    va_list Args;
    SIZE_T Length;

    va_start(Args, Format);
    Length = RtlFormatV(Buffer, BufferSize, Format, Args);
    va_end(Args);

    return Length;
}

RTL_STATUS
RtlSetError(
    PRTL_ERROR Error,
    RTL_STATUS Status,
    ULONG Line,
    ULONGLONG Offset,
    PCSZ Format,
    ...
    )
{
    va_list Args;

    if (Error != NULL) {
        Error->Status = Status;
        Error->Line = Line;
        Error->Offset = Offset;
        va_start(Args, Format);
        RtlFormatV(Error->Message, sizeof(Error->Message), Format, Args);
        va_end(Args);
    }

    return Status;
}

PCSZ
RtlStatusText(
    RTL_STATUS Status
    )
{
    switch (Status) {
        case RTL_STATUS_OK: return "success";
        case -1: return "operation not permitted";
        case RTL_STATUS_NOT_FOUND: return "no such file or directory";
        case -5: return "input/output error";
        case -9: return "bad file descriptor";
        case RTL_STATUS_LOCKED: return "locked by another writer";
        case RTL_STATUS_NO_MEMORY: return "out of memory";
        case -13: return "permission denied";
        case RTL_STATUS_EXISTS: return "file exists";
        case RTL_STATUS_NOT_DIRECTORY: return "not a directory";
        case -21: return "is a directory";
        case RTL_STATUS_INVALID_PARAMETER: return "invalid argument";
        case -24: return "too many open files";
        case -27: return "file too large";
        case RTL_STATUS_NO_SPACE: return "no space left on device";
        case -30: return "read-only file system";
        case -36: return "file name too long";
        case -95: return "operation not supported";
        case -122: return "disk quota exceeded";
        case RTL_STATUS_BAD_FORMAT: return "bad format";
        case RTL_STATUS_BAD_VERSION: return "unsupported version";
        case RTL_STATUS_CORRUPT: return "corrupt";
        case RTL_STATUS_TOO_LARGE: return "too large";
        case RTL_STATUS_NOT_SESSION: return "not a tracestore session";
        case RTL_STATUS_NOT_REGULAR_FILE: return "not a regular file";
        default: return "error";
    }
}
