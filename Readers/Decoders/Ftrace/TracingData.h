/*++

Module Name:

    TracingData.h

Abstract:

    The ftrace metadata other containers carry in trace.dat's layout:
    perf.data's TRACING_DATA (tools/perf/util/trace-event-read.c: the
    magic, version "0.5" or "0.6", endianness, long and page size, then
    header_page, header_event, the ftrace and event formats, kallsyms,
    printk formats and, from 0.6, saved cmdlines) is trace.dat v6's
    metadata under another version string.  The trace.dat reader's own
    routines parse it (TraceDatHeader.c) into an event table and a sink
    that store raw tracepoint records exactly as a trace.dat import
    stores them.

Environment:

    Core: no C runtime; the OS only through PRTL.  Implemented in
    TraceDatHeader.c; used by the perf.data reader (Readers/Decoders/Perf).

--*/

#ifndef _TRACER_TRACING_DATA_H_
#define _TRACER_TRACING_DATA_H_

#include "TraceEvent.h"

typedef struct _TRACE_DAT *PTRACING_DATA;

//
// Parses the Length bytes of tracing data at byte Offset of the mapped
// input (Import->Buffer, which must stay mapped until TracingDataClose:
// event formats are read from it when first used).  On failure
// Import->Error names the file offset and *Data is NULL.
//

RTL_STATUS TracingDataOpen(PTRACE_IMPORT Import, ULONGLONG Offset,
                           ULONGLONG Length, PTRACING_DATA *Data);

//
// The sink that stores raw records by these formats
// (TraceEventSinkRecord), and its table.
//

PTRACE_EVENT_SINK TracingDataSink(PTRACING_DATA Data);

VOID TracingDataClose(PTRACING_DATA Data);

#endif // _TRACER_TRACING_DATA_H_
