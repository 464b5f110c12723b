/*++

Module Name:

    TraceFormats.h

Abstract:

    The input formats `tracestore import` reads: every decoder, in the
    order detection tries them, and the lookup by --format name.  The one
    place that names every decoder; the import engine is handed an entry
    of this table, or the table to detect from (TraceImportRun).

Environment:

    Core: no C runtime.  Above the decoders (it includes
    Readers/Decoders/Decoders.h), below the hosted edges that run an import
    (Cli/CmdImport.c, the tests and fuzz targets).

--*/

#ifndef _TRACER_TRACE_FORMATS_H_
#define _TRACER_TRACE_FORMATS_H_

#include "Readers/Import/TraceImport.h"

//
// Every decoder, in detection order: binary formats with a magic number
// first, then the text formats whose first lines are most distinctive.
// Ends with NULL; TraceImportRun takes it as the formats to detect from.
//

extern const PCTRACE_FORMAT TraceFormats[];

//
// The entry whose Name is Name (what --format takes), or NULL.
//

PCTRACE_FORMAT TraceFormatFromName(PCSZ Name);

#endif // _TRACER_TRACE_FORMATS_H_
