/*
** TraceZstd.c: the zstd decompressor the core's trace.dat reader calls for
** compressed sections (the core links no compression library).  Hosted:
** libzstd.  Used by the tracestore command and by the test and fuzz
** programs that import as it does.
*/
#ifndef TRACER_TRACE_ZSTD_H
#define TRACER_TRACE_ZSTD_H

#include "TraceImport.h"

/* The decompressor (one context, made on first use), or NULL: no memory. */
PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void);

#endif
