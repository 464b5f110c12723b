/*++

Module Name:

    PerfScript.c

Abstract:

    PLACEHOLDER: the perf script text reader is being written (issue 3).  Until then
    detection never matches and --format PerfScript reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
PerfScriptDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
PerfScriptImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the perf script text reader is not built yet",
                       Import->Path);
}
