/*++

Module Name:

    ChromeJson.c

Abstract:

    PLACEHOLDER: the Chrome trace-event JSON reader is being written (issue 3).  Until then
    detection never matches and --format ChromeJson reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
ChromeJsonDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
ChromeJsonImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the Chrome trace-event JSON reader is not built yet",
                       Import->Path);
}
