/*++

Module Name:

    PerfStat.c

Abstract:

    PLACEHOLDER: the perf stat interval output reader is being written (issue 3).  Until then
    detection never matches and --format PerfStat reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
PerfStatDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
PerfStatImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the perf stat interval output reader is not built yet",
                       Import->Path);
}
