/*++

Module Name:

    RtlMemory.c

Abstract:

    This module implements the memory routines of the RTL (copy, fill,
    compare) and XXH3-64 hashing, with no C runtime.

    The memcpy, memmove, memset and memcmp a compiler may emit calls to
    are not here but in RtlCompilerSupport.c, linked only into programs
    that have no C runtime: a hosted program keeps its C library's.

Environment:

    Core: no C runtime, no OS service.  Called through the RTL table
    (CopyMemory, FillMemory, CompareMemory, Hash64, which the back end
    points here) and by RtlCompilerSupport.c; calls nothing.  The only
    core file with headers beyond the compiler's own: xxhash.h (header
    only, as CMakeLists.txt allows) and, for it, the declarations of
    stdlib.h and string.h; no C library symbol is linked (tests
    core.nocrt_no_libc_symbols and core.archives_self_contained; the
    check_zones.py exception names these three lines).

--*/

#include "Rtl.h"

//
// xxhash.h is used header-only, for XXH3_64bits alone.  Two adjustments
// while it is included:
//
//  - Its streaming-state allocators call malloc and free (xxhash 0.8.1,
//    Debian 12, has no XXH_NO_STDLIB) and survive in unoptimized builds;
//    the core never creates a state, so they become inert.
//
//  - Its unaligned loads are memcpy calls that must be inlined (the core
//    is built -ffreestanding, which turns the builtin off).
//

#include <stdlib.h>
#include <string.h>
#define XXH_NO_STDLIB
#define XXH_INLINE_ALL
#define XXH_STATIC_LINKING_ONLY
#define malloc(Size) ((void)(Size), (void *)0)
#define free(Pointer) ((void)(Pointer))
#define memcpy __builtin_memcpy
#include <xxhash.h>
#undef memcpy
#undef free
#undef malloc

VOID
RtlCopyMemory(
    PVOID Destination,
    PCVOID Source,
    SIZE_T Size
    )
/*++

Routine Description:

    Copies Size bytes; the ranges may overlap.

Arguments:

    Destination - Supplies the destination address.

    Source - Supplies the source address.

    Size - Supplies the number of bytes to copy.

Return Value:

    None.

--*/
{
    PBYTE Dest = (PBYTE)Destination;
    const BYTE *Src = (const BYTE *)Source;

    if (Dest == Src || Size == 0) {
        return;
    }

    if (Dest < Src || Dest >= Src + Size) {

        //
        // Forward copy.  Records and short strings are a few words: copy
        // those directly, since rep movsb has a start-up cost of tens of
        // cycles.  Beyond that rep movsb is the fastest general copy on
        // CPUs with ERMSB and needs no alignment handling.
        //

        if (Size <= 64) {
            while (Size >= 8) {
                ULONGLONG Word;
                __builtin_memcpy(&Word, Src, 8);
                __builtin_memcpy(Dest, &Word, 8);
                Dest += 8;
                Src += 8;
                Size -= 8;
            }
            while (Size != 0) {
                *Dest++ = *Src++;
                Size--;
            }
            return;
        }

#if defined(__x86_64__)
        __asm__ volatile("rep movsb"
                         : "+D"(Dest), "+S"(Src), "+c"(Size)
                         :
                         : "memory");
#else
        while (Size--) {
            *Dest++ = *Src++;
        }
#endif
        return;
    }

    //
    // Overlapping with the destination above the source: copy backwards.
    //

    while (Size != 0) {
        Size--;
        Dest[Size] = Src[Size];
    }
}

VOID
RtlFillMemory(
    PVOID Destination,
    SIZE_T Size,
    BYTE Fill
    )
{
    PBYTE Dest = (PBYTE)Destination;

#if defined(__x86_64__)
    __asm__ volatile("rep stosb"
                     : "+D"(Dest), "+c"(Size)
                     : "a"(Fill)
                     : "memory");
#else
    while (Size--) {
        *Dest++ = Fill;
    }
#endif
}

LONG
RtlCompareMemory(
    PCVOID Left,
    PCVOID Right,
    SIZE_T Size
    )
{
    const BYTE *L = (const BYTE *)Left;
    const BYTE *R = (const BYTE *)Right;
    SIZE_T Index;

    //
    // Compare eight bytes at a time until a difference, then bytewise.
    //

    for (Index = 0; Index + 8 <= Size; Index += 8) {
        ULONGLONG A;
        ULONGLONG B;
        __builtin_memcpy(&A, L + Index, 8);
        __builtin_memcpy(&B, R + Index, 8);
        if (A != B) {
            break;
        }
    }

    for (; Index < Size; Index++) {
        if (L[Index] != R[Index]) {
            return (LONG)L[Index] - (LONG)R[Index];
        }
    }

    return 0;
}

ULONGLONG
RtlHash64(
    PCVOID Buffer,
    SIZE_T Size
    )
{
    return XXH3_64bits(Buffer, Size);
}

RTL_STATUS
RtlGrowPages(
    PRTL Rtl,
    PVOID *Array,
    PSIZE_T Bytes,
    SIZE_T Needed,
    SIZE_T First
    )
{
    SIZE_T NewBytes = *Bytes != 0 ? *Bytes : First;
    PVOID NewArray;
    RTL_STATUS Status;

    if (Needed <= *Bytes) {
        return RTL_STATUS_OK;
    }
    while (NewBytes < Needed) {
        if (NewBytes > (SIZE_T)-1 / 2) {
            return RTL_STATUS_NO_MEMORY;
        }
        NewBytes *= 2;
    }
    Status = Rtl->AllocatePages(Rtl, NewBytes, &NewArray);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (*Array != NULL) {
        Rtl->CopyMemory(NewArray, *Array, *Bytes);
        Rtl->Unmap(Rtl, *Array, *Bytes);
    }
    *Array = NewArray;
    *Bytes = NewBytes;
    return RTL_STATUS_OK;
}

VOID
RtlInitializeCommon(
    PRTL Rtl
    )
{
    RtlFillMemory(Rtl, sizeof(*Rtl), 0);

    Rtl->SizeOfStruct = RTL_SIZE_OF_STRUCT;
    Rtl->PageSize = RTL_PAGE_SIZE;

    Rtl->CopyMemory = RtlCopyMemory;
    Rtl->FillMemory = RtlFillMemory;
    Rtl->CompareMemory = RtlCompareMemory;
    Rtl->Hash64 = RtlHash64;
}
