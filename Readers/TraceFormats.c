/*++

Module Name:

    TraceFormats.c

Abstract:

    This module lists the input formats `tracestore import` reads, in the
    order they are tried when detecting a format from the content: binary
    formats with a magic number first, then the text formats whose first
    lines are most distinctive.  Each decoder's Detect routine looks only
    at the start of the input.  Adding a reader is a folder under
    Readers/Decoders/, its entry in Decoders.h, and a line here.

Environment:

    Core: no C runtime, no OS service.  Owns the format table; read by the
    command line (detection and --format NAME) through TraceFormats.h.
    Names each decoder's TRACE_FORMAT (Readers/Decoders/<Format>/) and
    calls nothing itself.

--*/

#include "Readers/TraceFormats.h"
#include "Readers/Decoders/Decoders.h"

const PCTRACE_FORMAT TraceFormats[] = {
    &TraceDatDecoder,
    &PerfDataDecoder,
    &EtwDecoder,
    &UftraceDecoder,
    &KvmtraceDecoder,
    &ChromeJsonDecoder,
    &PerfStatDecoder,
    &PerfScriptDecoder,
    &TraceCmdReportDecoder,
    &FtraceTextDecoder,
    NULL,
};

PCTRACE_FORMAT
TraceFormatFromName(
    PCSZ Name
    )
{
    const PCTRACE_FORMAT *Format;

    for (Format = TraceFormats; *Format != NULL; Format++) {
        if (RtlStringEqual((*Format)->Name, Name)) {
            return *Format;
        }
    }

    return NULL;
}
