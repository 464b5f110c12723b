/*
** TraceZstd.c: the zstd decompressor the core's trace.dat reader calls for
** compressed sections (the core links no compression library).  Hosted:
** libzstd.  Used by the tracestore command and by the test and fuzz
** programs that import as it does.
*/
#ifndef TRACER_TRACE_ZSTD_H
#define TRACER_TRACE_ZSTD_H

#include "Readers/Shared/TraceImport.h"

/* The decompressor (its contexts made on first use: one for the reader's
** thread, one for a job on a worker), or NULL: no memory. */
PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void);

#endif
