/*++

Module Name:

    Decoders.h

Abstract:

    What each decoder exports: its Detect and Import routines and the
    TRACE_FORMAT that hands them to the import engine (name, description,
    flags), defined next to them in the decoder's own folder.  The format
    table above the decoders (Readers/TraceFormats.c) lists these in
    detection order; nothing below them names a decoder.

Environment:

    Core: no C runtime.  Included by the decoders (each defines its own
    entries) and by Readers/TraceFormats.c; includes only the engine's
    header, Readers/Import/TraceImport.h.

--*/

#ifndef _TRACER_DECODERS_H_
#define _TRACER_DECODERS_H_

#include "Readers/Import/TraceImport.h"

// Ftrace/: tracefs text and trace-cmd report (FtraceText.c), trace.dat
// (TraceDat.c, detected in TraceDatHeader.c).

TRACE_FORMAT_DETECT FtraceTextDetect;
TRACE_FORMAT_DETECT TraceCmdReportDetect;
TRACE_FORMAT_IMPORT FtraceTextImport;
TRACE_FORMAT_DETECT TraceDatDetect;
TRACE_FORMAT_IMPORT TraceDatImport;
extern const TRACE_FORMAT FtraceTextDecoder;
extern const TRACE_FORMAT TraceCmdReportDecoder;
extern const TRACE_FORMAT TraceDatDecoder;

// Perf/: perf.data (PerfData.c), perf script text (PerfScript.c), perf stat
// intervals (PerfStat.c).

TRACE_FORMAT_DETECT PerfDataDetect;
TRACE_FORMAT_IMPORT PerfDataImport;
extern const TRACE_FORMAT PerfDataDecoder;
TRACE_FORMAT_DETECT PerfScriptDetect;
TRACE_FORMAT_IMPORT PerfScriptImport;
TRACE_FORMAT_DETECT PerfStatDetect;
TRACE_FORMAT_IMPORT PerfStatImport;
extern const TRACE_FORMAT PerfScriptDecoder;
extern const TRACE_FORMAT PerfStatDecoder;

// Uftrace/ (Uftrace.c), Chrome/ (ChromeJson.c), Kvmtrace/ (Kvmtrace.c),
// Etw/ (Etw.c).

TRACE_FORMAT_DETECT UftraceDetect;
TRACE_FORMAT_IMPORT UftraceImport;
TRACE_FORMAT_DETECT ChromeJsonDetect;
TRACE_FORMAT_IMPORT ChromeJsonImport;
TRACE_FORMAT_DETECT KvmtraceDetect;
TRACE_FORMAT_IMPORT KvmtraceImport;
TRACE_FORMAT_DETECT EtwDetect;
TRACE_FORMAT_IMPORT EtwImport;
extern const TRACE_FORMAT UftraceDecoder;
extern const TRACE_FORMAT ChromeJsonDecoder;
extern const TRACE_FORMAT KvmtraceDecoder;
extern const TRACE_FORMAT EtwDecoder;

#endif // _TRACER_DECODERS_H_
