/*++

Module Name:

    TraceDat.c

Abstract:

    PLACEHOLDER: the trace.dat reader is being written (issue 3).  Until then
    detection never matches and --format TraceDat reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
TraceDatDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
TraceDatImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the trace.dat reader is not built yet",
                       Import->Path);
}
