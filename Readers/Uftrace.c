/*++

Module Name:

    Uftrace.c

Abstract:

    PLACEHOLDER: the uftrace record directory reader is being written (issue 3).  Until then
    detection never matches and --format Uftrace reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
UftraceDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
UftraceImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the uftrace record directory reader is not built yet",
                       Import->Path);
}
