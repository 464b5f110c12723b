/*
** TraceZstd.h: the zstd decompressor the core's trace.dat reader calls for
** compressed sections (the core links no compression library).
**
** Zone: hosted (Host/, the process's services): libzstd.  Implemented by
** TraceZstd.c, which owns the zstd contexts and calls libzstd only; fills
** in a TRACE_DECOMPRESSOR (Readers/Import/TraceImport.h).  Used by
** CmdImport.c and by the test and fuzz programs that import as it does.
*/
#ifndef TRACER_TRACE_ZSTD_H
#define TRACER_TRACE_ZSTD_H

#include "Readers/Import/TraceImport.h"

/* The decompressor (its contexts made on first use: one for the reader's
** thread, one for a job on a worker), or NULL: no memory. */
PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void);

#endif
