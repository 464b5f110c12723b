/*++

Module Name:

    RtlCompilerSupport.c

Abstract:

    The four routines a freestanding compiler may emit calls to (structure
    copies and zeroing): memcpy, memmove, memset and memcmp, over the RTL's
    own memory routines.

Environment:

    Core: no C runtime.  Linked only into programs that have no C
    runtime (the freestanding link test, a CRT-free Windows build); a
    hosted program or shared object that links the core uses its C
    library's routines instead, which are faster and which its other code
    expects (test core.hosted_keeps_libc_memory).  Calls RtlMemory.c.

--*/

#include "Rtl.h"

void *
memcpy(void *Destination, const void *Source, size_t Size)
{
    RtlCopyMemory(Destination, Source, Size);
    return Destination;
}

void *
memmove(void *Destination, const void *Source, size_t Size)
{
    RtlCopyMemory(Destination, Source, Size);
    return Destination;
}

void *
memset(void *Destination, int Fill, size_t Size)
{
    RtlFillMemory(Destination, Size, (BYTE)Fill);
    return Destination;
}

int
memcmp(const void *Left, const void *Right, size_t Size)
{
    return (int)RtlCompareMemory(Left, Right, Size);
}
