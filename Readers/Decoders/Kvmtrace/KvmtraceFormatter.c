/*++

Module Name:

    KvmtraceFormatter.c

Abstract:

    The seed's kvmtrace_format over a stream fed in pieces (`tracestore
    kvmtrace-format`): each complete record is decoded, given its rule
    (KvmtraceRules.c) and rendered (KvmtraceFormat.c), one line each, into
    a large buffer written out when full.  A record cut off at the end of
    the input is an error naming its byte offset, after every complete
    record has been written, as the seed prints every line before its
    traceback.

Environment:

    Core: no C runtime; the OS only through PRTL (the output buffer);
    output through the caller's KVMTRACE_WRITE.  Called by `tracestore
    kvmtrace-format` (Cli/CmdKvmtraceFormat.c); calls
    KvmtraceRules.c and KvmtraceFormat.c.

--*/

#include "KvmtraceFormat.h"

#define MIN_OUTPUT_BUFFER    (1u << 20)

RTL_STATUS
KvmtraceFormatterInitialize(
    PKVMTRACE_FORMATTER Formatter
    )
{
    PRTL Rtl = Formatter->Rules->Rtl;
    SIZE_T Size = MIN_OUTPUT_BUFFER;
    RTL_STATUS Status;

    if (2 * (SIZE_T)Formatter->Rules->MaxLength > Size) {
        Size = (SIZE_T)ALIGN_UP(2 * (SIZE_T)Formatter->Rules->MaxLength,
                                RTL_PAGE_SIZE);
    }

    Formatter->OutputUsed = 0;
    Formatter->Offset = 0;
    Formatter->Records = 0;
    Formatter->Tsc.LastTsc = 0;
    Rtl->FillMemory(&Formatter->Error, sizeof(Formatter->Error), 0);

    Status = Rtl->AllocatePages(Rtl, Size, (PPVOID)&Formatter->Output);
    if (!RTL_SUCCESS(Status)) {
        Formatter->Output = NULL;
        return RtlSetError(&Formatter->Error, Status, 0, 0,
                           "%s: cannot allocate an output buffer: %s",
                           Formatter->InputName, RtlStatusText(Status));
    }
    Formatter->OutputSize = Size;

    return RTL_STATUS_OK;
}

static
RTL_STATUS
Flush(
    PKVMTRACE_FORMATTER Formatter
    )
{
    if (Formatter->OutputUsed != 0 &&
        !Formatter->Write(Formatter->WriteContext, Formatter->Output,
                          Formatter->OutputUsed)) {
        return RtlSetError(&Formatter->Error, RTL_STATUS_INVALID_PARAMETER,
                           0, ~0ULL, "cannot write the output");
    }

    Formatter->OutputUsed = 0;
    return RTL_STATUS_OK;
}

RTL_STATUS
KvmtraceFormatFeed(
    PKVMTRACE_FORMATTER Formatter,
    const BYTE *Input,
    SIZE_T Length,
    BOOL EndOfInput,
    PSIZE_T Consumed
    )
{
    PKVMTRACE_RULES Rules = Formatter->Rules;
    KVMTRACE_RECORD Record;
    KVMTRACE_VALUES Values;
    KVMTRACE_DECODE Decode;
    SIZE_T Position = 0;
    RTL_STATUS Status;
    ULONG RuleIndex;
    ULONG Written;

    *Consumed = 0;
    if (Formatter->Error.Status != RTL_STATUS_OK) {
        return Formatter->Error.Status;
    }

    for (;;) {
        Decode = KvmtraceDecode(Input + Position, Length - Position, &Record);
        if (Decode != KvmtraceDecodeComplete) {
            break;
        }

        KvmtraceSetValues(Rules, &Formatter->Tsc, &Record, &Values);
        RuleIndex = KvmtraceRulesFind(Rules, Record.Event);

        if (RuleIndex != KVMTRACE_NO_RULE) {
            if (Formatter->OutputUsed + Rules->Rules[RuleIndex].MaxLength >
                Formatter->OutputSize) {
                Status = Flush(Formatter);
                if (!RTL_SUCCESS(Status)) {
                    break;
                }
            }

            Status = KvmtraceRender(Rules, RuleIndex, &Values,
                                    Formatter->Output + Formatter->OutputUsed,
                                    &Written, &Formatter->Error);
            if (!RTL_SUCCESS(Status)) {
                SIZE_T Used = RtlStringLength(Formatter->Error.Message);

                RtlFormat(Formatter->Error.Message + Used,
                          sizeof(Formatter->Error.Message) - Used,
                          " (the record at byte offset %llu of %s)",
                          Formatter->Offset, Formatter->InputName);
                Formatter->Error.Offset = Formatter->Offset;
                break;
            }
            Formatter->Output[Formatter->OutputUsed + Written] = '\n';
            Formatter->OutputUsed += Written + 1;
        }

        Position += Record.Size;
        Formatter->Offset += Record.Size;
        Formatter->Records++;
    }

    *Consumed = Position;

    if (Formatter->Error.Status == RTL_STATUS_OK && EndOfInput &&
        Decode != KvmtraceDecodeEnd) {
        ULONGLONG Left = Length - Position;
        ULONG Header;
        ULONG Size;

        if (Decode == KvmtraceDecodeCutHeader) {
            RtlSetError(&Formatter->Error, RTL_STATUS_BAD_FORMAT, 0,
                        Formatter->Offset, "%s: byte offset %llu: truncated "
                        "record: the input ends inside its 12-byte header "
                        "(%llu bytes left)", Formatter->InputName,
                        Formatter->Offset, Left);
        } else {
            Header = KvmtraceLoad32(Input + Position);
            Size = KVMTRACE_HEADER_SIZE + ((Header >> 31) ? 8 : 0) +
                   4 * ((Header >> 28) & 7);
            RtlSetError(&Formatter->Error, RTL_STATUS_BAD_FORMAT, 0,
                        Formatter->Offset, "%s: byte offset %llu: truncated "
                        "record: the input ends inside its %s (%llu of %u "
                        "bytes)", Formatter->InputName, Formatter->Offset,
                        KvmtraceDecodeText(Decode), Left, Size);
        }
    }

    return Formatter->Error.Status;
}

RTL_STATUS
KvmtraceFormatterFinish(
    PKVMTRACE_FORMATTER Formatter
    )
{
    RTL_STATUS Status = Formatter->Error.Status;
    RTL_ERROR Saved = Formatter->Error;

    if (Formatter->Output != NULL) {
        if (RTL_SUCCESS(Flush(Formatter)) &&
            Status != RTL_STATUS_OK) {
            Formatter->Error = Saved;
        }
        Formatter->Rules->Rtl->Unmap(Formatter->Rules->Rtl,
                                     Formatter->Output,
                                     Formatter->OutputSize);
        Formatter->Output = NULL;
    }

    return Formatter->Error.Status;
}
