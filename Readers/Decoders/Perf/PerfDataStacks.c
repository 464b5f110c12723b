/*++

Module Name:

    PerfDataStacks.c

Abstract:

    A perf.data sample's call chain as `stack` and `frame` rows (the
    engine's stack table, Readers/Import/ImportStacks.c): the chain's
    entries leaf first, context markers saying kernel or user, each
    address placed in its process's mappings and named by
    PerfDataSymbols.c.  Two shortcuts, because profiles repeat
    themselves: a chain met recently under the same maps reuses its
    callsite (PERF_CHAIN_CACHE), and a thread's new chain reuses the
    callsites of the outer frames it shares with its last one
    (PERF_LAST_STACKS).

Environment:

    Core: no C runtime; memory through PRTL.  Called by
    PerfDataRecords.c.

--*/

#include "PerfData.h"

RTL_STATUS
PerfStoreStack(
    PPERF_DATA Perf,
    PPERF_SAMPLE Sample,
    PLONGLONG StackId
    )
/*++

Routine Description:

    The callsite of a sample's call chain: its entries leaf first, each
    context marker (PERF_CONTEXT_KERNEL, _USER, and the guest ones) saying
    whose addresses follow; interned from the outermost frame in.  An
    address before any marker is the kernel's if it is in the upper half.
    A sample without a call chain is placed by its ip alone, as perf
    script places it: a callsite of one frame, the kernel's if the
    sample's cpumode says so.

--*/
{
    ULONGLONG Ips[PERF_MAX_FRAMES];
    BYTE Kernel[PERF_MAX_FRAMES];
    ULONG Count = 0;
    ULONGLONG Index;
    LONG Context = -1;
    LONGLONG Parent = TRACE_NULL_LONGLONG;
    PPERF_CHAIN_ENTRY Chain = NULL;
    PPERF_LAST_STACK Last;
    ULONG Depth = 0;
    RTL_STATUS Status;

    *StackId = TRACE_NULL_LONGLONG;
    if (Sample->CallchainLength == 0 && Sample->Ip == TRACE_NULL_ULONGLONG) {
        return RTL_STATUS_OK;
    }
    if (!Perf->StacksReady) {
        Status = TraceStackTableInitialize(Perf->Import, &Perf->Stacks);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Status = Perf->Rtl->AllocatePages(Perf->Rtl, PERF_CHAIN_CACHE *
                                          sizeof(PERF_CHAIN_ENTRY),
                                          (PVOID *)&Perf->Chains);
        if (RTL_SUCCESS(Status)) {
            Status = Perf->Rtl->AllocatePages(Perf->Rtl, PERF_LAST_STACKS *
                                              sizeof(PERF_LAST_STACK),
                                              (PVOID *)&Perf->LastStacks);
            if (!RTL_SUCCESS(Status)) {
                Perf->Rtl->Unmap(Perf->Rtl, Perf->Chains, PERF_CHAIN_CACHE *
                                 sizeof(PERF_CHAIN_ENTRY));
            }
        }
        if (!RTL_SUCCESS(Status)) {
            TraceStackTableRelease(&Perf->Stacks);
            return RtlSetError(&Perf->Import->Error, Status, 0, 0, "%s: no "
                               "memory for the call stacks",
                               Perf->Import->Path);
        }
        Perf->StacksReady = TRUE;
    }

    if (Sample->CallchainLength == 0) {
        Ips[0] = Sample->Ip;
        Kernel[0] = (BYTE)Sample->Kernel;
        Count = 1;
    } else {
        //
        // A chain met recently, under the same maps: its callsite.
        //

        if (Sample->CallchainLength <= PERF_CHAIN_MAX) {
            ULONG Bytes = (ULONG)Sample->CallchainLength * 8;
            ULONGLONG Hash = Perf->Rtl->Hash64(Sample->Callchain, Bytes) ^
                             ((ULONGLONG)Sample->Pid * 0x9e3779b97f4a7c15ULL);

            Chain = &Perf->Chains[Hash & (PERF_CHAIN_CACHE - 1)];
            if (Chain->Length == Sample->CallchainLength &&
                Chain->Pid == Sample->Pid &&
                Chain->Generation == Perf->MapsGeneration &&
                Perf->Rtl->CompareMemory(Chain->Ips, Sample->Callchain,
                                         Bytes) == 0) {
                *StackId = Chain->StackId;
                return RTL_STATUS_OK;
            }
        }

        for (Index = 0; Index < Sample->CallchainLength &&
                        Count < PERF_MAX_FRAMES; Index++) {
            ULONGLONG Ip = RtlReadUInt64(Sample->Callchain + Index * 8);

            if (Ip >= PERF_CONTEXT_MAX) {
                if (Ip == PERF_CONTEXT_KERNEL ||
                    Ip == PERF_CONTEXT_GUEST_KERNEL) {
                    Context = 1;
                } else if (Ip == PERF_CONTEXT_USER ||
                           Ip == PERF_CONTEXT_GUEST_USER) {
                    Context = 0;
                }
                continue;
            }
            Ips[Count] = Ip;
            Kernel[Count] = (BYTE)(Context >= 0 ? (ULONG)Context :
                                                  (ULONG)(Ip >> 63));
            Count++;
        }
    }
    if (Count == 0) {
        if (Chain != NULL) {
            Chain->Length = 0;
        }
        return RTL_STATUS_OK;
    }

    //
    // The outer frames this thread's last stack shares: their callsites.
    //

    Last = &Perf->LastStacks[Sample->Tid % PERF_LAST_STACKS];
    if (Last->Tid == Sample->Tid && Last->Pid == Sample->Pid &&
        Last->Generation == Perf->MapsGeneration) {
        while (Depth < Last->Count && Depth < Count &&
               Last->Ips[Depth] == Ips[Count - 1 - Depth] &&
               Last->Kernel[Depth] == Kernel[Count - 1 - Depth]) {
            Parent = Last->Callsites[Depth];
            Depth++;
        }
    }
    Last->Tid = Sample->Tid;
    Last->Pid = Sample->Pid;
    Last->Generation = Perf->MapsGeneration;
    Last->Count = Depth;
    Count -= Depth;

    while (Count-- > 0) {
        const PERF_MAPPING *Mapping;
        FRAME_RECORD Frame;
        ULONGLONG FrameId;

        Frame.Ip = Ips[Count];
        Frame.ModuleId = TRACE_STRING_NULL;
        Frame.ModuleOffset = TRACE_NULL_ULONGLONG;
        Frame.Kernel = Kernel[Count];
        Mapping = PerfMapsFind(&Perf->Maps, Frame.Kernel ? PERF_MAPS_KERNEL :
                               Sample->Pid, Frame.Ip);
        if (Mapping != NULL) {
            Frame.ModuleId = Mapping->PathId;
            Frame.ModuleOffset = Frame.Ip - Mapping->Start + Mapping->Offset;
        }
        Status = TraceStackFrame(&Perf->Stacks, &Frame, PerfSymbolize, Perf,
                                 &FrameId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceStackCallsite(&Perf->Stacks, Parent, FrameId,
                                        Depth, &Parent);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Last->Ips[Depth] = Frame.Ip;
        Last->Kernel[Depth] = (BYTE)Frame.Kernel;
        Last->Callsites[Depth] = Parent;
        Last->Count = Depth + 1;
        Depth++;
    }
    *StackId = Parent;
    if (Chain != NULL) {
        Chain->Length = (ULONG)Sample->CallchainLength;
        Chain->Pid = Sample->Pid;
        Chain->Generation = Perf->MapsGeneration;
        Chain->StackId = Parent;
        Perf->Rtl->CopyMemory(Chain->Ips, Sample->Callchain,
                              (SIZE_T)Sample->CallchainLength * 8);
    }
    return RTL_STATUS_OK;
}

VOID
PerfReleaseStacks(
    PPERF_DATA Perf
    )
{
    if (Perf->StacksReady) {
        TraceStackTableRelease(&Perf->Stacks);
        Perf->Rtl->Unmap(Perf->Rtl, Perf->Chains,
                         PERF_CHAIN_CACHE * sizeof(PERF_CHAIN_ENTRY));
        Perf->Rtl->Unmap(Perf->Rtl, Perf->LastStacks,
                         PERF_LAST_STACKS * sizeof(PERF_LAST_STACK));
        Perf->Chains = NULL;
        Perf->LastStacks = NULL;
        Perf->StacksReady = FALSE;
    }
}
