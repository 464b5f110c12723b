/*++

Module Name:

    TraceFormats.c

Abstract:

    This module lists the input formats `tracestore import` reads, in the
    order they are tried when detecting a format from the content: binary
    formats with a magic number first, then the text formats whose first
    lines are most distinctive.  Each reader's Detect routine looks only at
    the start of the input.

Environment:

    Core: no C runtime, no OS service.  Owns the format table; read by
    ImportRun.c (TraceImportRun detects the format) and by the command
    line (--format NAME).  Names each decoder's Detect and Import routine
    (Readers/Decoders/<Format>/) and calls nothing itself.

--*/

#include "TraceImport.h"

const TRACE_FORMAT TraceFormats[] = {
    {
        TraceFormatTraceDat, "trace-dat",
        "trace-cmd trace.dat, file format v6 or v7 (zstd or uncompressed)",
        TraceDatDetect, TraceDatImport
    },
    {
        TraceFormatEtw, "etw",
        "Windows kernel ETW log (.etl): page faults, images, processes, "
        "threads; XPRESS-compressed buffers too",
        EtwDetect, EtwImport
    },
    {
        TraceFormatUftrace, "uftrace",
        "uftrace record directory (info, task.txt, *.dat, *.sym)",
        UftraceDetect, UftraceImport
    },
    {
        TraceFormatKvmtrace, "kvmtrace",
        "kvmtrace binary record stream",
        KvmtraceDetect, KvmtraceImport
    },
    {
        TraceFormatChromeJson, "chrome-json",
        "Chrome trace-event JSON (object or bare array form)",
        ChromeJsonDetect, ChromeJsonImport
    },
    {
        TraceFormatPerfStat, "perf-stat",
        "perf stat -I MS -x SEP interval output",
        PerfStatDetect, PerfStatImport
    },
    {
        TraceFormatPerfScript, "perf-script",
        "perf script text (default, -F trace:time,event, page-fault samples)",
        PerfScriptDetect, PerfScriptImport
    },
    {
        TraceFormatTraceCmdReport, "trace-cmd-report",
        "the text `trace-cmd report` prints",
        TraceCmdReportDetect, FtraceTextImport
    },
    {
        TraceFormatFtraceText, "ftrace",
        "tracefs trace / trace_pipe text",
        FtraceTextDetect, FtraceTextImport
    },
    { TraceFormatUnknown, NULL, NULL, NULL, NULL },
};

PCTRACE_FORMAT
TraceDetectFormat(
    PTRACE_IMPORT Import
    )
{
    PCTRACE_FORMAT Format;

    for (Format = TraceFormats; Format->Name != NULL; Format++) {
        if (Format->Detect(Import)) {
            return Format;
        }
    }

    return NULL;
}

PCTRACE_FORMAT
TraceFindFormat(
    TRACE_INPUT_FORMAT Id
    )
{
    PCTRACE_FORMAT Format;

    for (Format = TraceFormats; Format->Name != NULL; Format++) {
        if (Format->Format == Id) {
            return Format;
        }
    }

    return NULL;
}

PCTRACE_FORMAT
TraceFormatFromName(
    PCSZ Name
    )
{
    PCTRACE_FORMAT Format;

    for (Format = TraceFormats; Format->Name != NULL; Format++) {
        if (RtlStringEqual(Format->Name, Name)) {
            return Format;
        }
    }

    return NULL;
}
