/*++

Module Name:

    PerfMaps.h

Abstract:

    The memory maps of the processes of a perf recording, as its MMAP and
    MMAP2 records (perf script --show-mmap-events) build them, for placing
    an address in its mapped file: the module and the offset in it that
    seeds/000's picture plots.  A mapping replaces what it overlaps of its
    process's earlier ones (as mmap does); an exec drops the process's
    mappings, a fork copies its parent's.  Pid PERF_MAPS_KERNEL holds the
    kernel's (perf's pid -1), looked up for addresses no process maps.

    One array sorted by (pid, start): a lookup is a binary search; an
    insertion moves the entries after it (a recording has thousands of
    mappings, not millions).

Environment:

    Core: no C runtime; memory through PRTL.  Used by PerfScript.c and the perf.data
    reader (PerfData*.c).

--*/

#ifndef _TRACER_PERF_MAPS_H_
#define _TRACER_PERF_MAPS_H_

#include "TraceStore/TraceSchema.h"

#define PERF_MAPS_KERNEL 0xffffffffu

typedef struct _PERF_MAPPING {
    ULONG Pid;
    ULONG PathId;           // the file, or TRACE_STRING_NULL (anonymous)
    ULONGLONG Start;
    ULONGLONG End;          // first address after it
    ULONGLONG Offset;       // file offset mapped at Start
    ULONG Exec;             // mapped executable
    ULONG Padding;
} PERF_MAPPING, *PPERF_MAPPING;

typedef struct _PERF_MAPS {
    PRTL Rtl;
    PPERF_MAPPING Entries;
    ULONGLONG Count;
    ULONGLONG Capacity;
} PERF_MAPS, *PPERF_MAPS;

VOID PerfMapsInitialize(PPERF_MAPS Maps, PRTL Rtl);
VOID PerfMapsFree(PPERF_MAPS Maps);
RTL_STATUS PerfMapsAdd(PPERF_MAPS Maps, const PERF_MAPPING *Mapping);
VOID PerfMapsDropPid(PPERF_MAPS Maps, ULONG Pid);
RTL_STATUS PerfMapsCopyPid(PPERF_MAPS Maps, ULONG Parent, ULONG Child);

//
// The mapping of Pid that holds Address (then the kernel's), or NULL.
//

const PERF_MAPPING *PerfMapsFind(const PERF_MAPS *Maps, ULONG Pid,
                                 ULONGLONG Address);

//
// The `module` row of Mapping, seen at Timestamp: the kernel's (pid -1) has
// a NULL pid; PermsId and BuildIdId are the caller's (BuildIdId NULL here).
//

VOID PerfMapsModuleRow(const PERF_MAPPING *Mapping, LONGLONG Timestamp,
                       PMODULE_RECORD Module);

//
// Places Address of process Pid (both may be NULL: nothing is done) in
// its mapping: *ModuleId becomes the mapping's file if it is
// TRACE_STRING_NULL, *ModuleOffset Address - start + file offset, and
// *Code (optional) 1 if the mapping executes, else 0.  Nothing changes
// when no mapping holds it.
//

VOID PerfMapsPlace(const PERF_MAPS *Maps, ULONG Pid, ULONGLONG Address,
                   PULONG ModuleId, PULONGLONG ModuleOffset, PULONG Code);

#endif // _TRACER_PERF_MAPS_H_
