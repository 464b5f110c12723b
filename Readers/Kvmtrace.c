/*++

Module Name:

    Kvmtrace.c

Abstract:

    PLACEHOLDER: the kvmtrace binary stream reader is being written (issue 3).  Until then
    detection never matches and --format Kvmtrace reports that the reader is
    missing.

--*/

#include "TraceImport.h"

BOOL
KvmtraceDetect(
    PTRACE_IMPORT Import
    )
{
    return FALSE;
}

RTL_STATUS
KvmtraceImport(
    PTRACE_IMPORT Import
    )
{
    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                       "%s: the kvmtrace binary stream reader is not built yet",
                       Import->Path);
}
