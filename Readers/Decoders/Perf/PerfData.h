/*++

Module Name:

    PerfData.h

Abstract:

    What the files of the perf.data reader share: the file's layout (from
    the kernel's include/uapi/linux/perf_event.h and perf's
    tools/perf/util/header.h, event.h; perf.data-file-format.txt), the
    reader's state, and the routines one file calls in the other.

        PerfData.c          detection, the file and pipe headers, attrs
                            and their ids, the feature sections
        PerfDataRecords.c   the records: time order by rounds, samples
                            decoded by their attr's sample_type, the
                            side band (mmaps, comms, forks,
                            lost), perf record -z's compressed records
        PerfDataStacks.c    a sample's call chain as stack and frame rows
        PerfDataSymbols.c   names for the stacks' frames (kallsyms, the
                            mapped files' ELF symbols)

Environment:

    Core: no C runtime; the OS only through PRTL.  Included only by the
    PerfData*.c files.

--*/

#ifndef _TRACER_PERF_DATA_H_
#define _TRACER_PERF_DATA_H_

#include "Readers/Import/TraceImport.h"
#include "Readers/Decoders/Ftrace/TracingData.h"
#include "Readers/Symbols/ElfSymbols.h"
#include "PerfMaps.h"

#define PERF_MAGIC2             0x32454c4946524550ULL   // "PERFILE2"
#define PERF_FILE_HEADER_SIZE   104
#define PERF_PIPE_HEADER_SIZE   16
#define PERF_ATTR_SIZE_VER0     64
#define PERF_MAX_ATTRS          4096
#define PERF_MAX_IDS            (1u << 20)
#define PERF_NAME_SIZE          96
#define PERF_ATTR_BYTES         256

//
// perf_event_attr.type, and the software and hardware configs perf names.
//

#define PERF_TYPE_HARDWARE      0
#define PERF_TYPE_SOFTWARE      1
#define PERF_TYPE_TRACEPOINT    2

#define PERF_COUNT_SW_PAGE_FAULTS       2
#define PERF_COUNT_SW_PAGE_FAULTS_MIN   5
#define PERF_COUNT_SW_PAGE_FAULTS_MAJ   6

//
// perf_event_attr's flag word (the bit fields after read_format).
//

#define PERF_ATTR_FLAG_SAMPLE_ID_ALL    (1ULL << 18)

//
// sample_type.
//

#define PERF_SAMPLE_IP              (1ULL << 0)
#define PERF_SAMPLE_TID             (1ULL << 1)
#define PERF_SAMPLE_TIME            (1ULL << 2)
#define PERF_SAMPLE_ADDR            (1ULL << 3)
#define PERF_SAMPLE_READ            (1ULL << 4)
#define PERF_SAMPLE_CALLCHAIN       (1ULL << 5)
#define PERF_SAMPLE_ID              (1ULL << 6)
#define PERF_SAMPLE_CPU             (1ULL << 7)
#define PERF_SAMPLE_PERIOD          (1ULL << 8)
#define PERF_SAMPLE_STREAM_ID       (1ULL << 9)
#define PERF_SAMPLE_RAW             (1ULL << 10)
#define PERF_SAMPLE_BRANCH_STACK    (1ULL << 11)
#define PERF_SAMPLE_REGS_USER       (1ULL << 12)
#define PERF_SAMPLE_STACK_USER      (1ULL << 13)
#define PERF_SAMPLE_WEIGHT          (1ULL << 14)
#define PERF_SAMPLE_DATA_SRC        (1ULL << 15)
#define PERF_SAMPLE_IDENTIFIER      (1ULL << 16)
#define PERF_SAMPLE_TRANSACTION     (1ULL << 17)
#define PERF_SAMPLE_REGS_INTR       (1ULL << 18)
#define PERF_SAMPLE_PHYS_ADDR       (1ULL << 19)
#define PERF_SAMPLE_AUX             (1ULL << 20)
#define PERF_SAMPLE_CGROUP          (1ULL << 21)
#define PERF_SAMPLE_DATA_PAGE_SIZE  (1ULL << 22)
#define PERF_SAMPLE_CODE_PAGE_SIZE  (1ULL << 23)
#define PERF_SAMPLE_WEIGHT_STRUCT   (1ULL << 24)
#define PERF_SAMPLE_KNOWN           ((1ULL << 25) - 1)

#define PERF_FORMAT_TOTAL_TIME_ENABLED  (1ULL << 0)
#define PERF_FORMAT_TOTAL_TIME_RUNNING  (1ULL << 1)
#define PERF_FORMAT_ID                  (1ULL << 2)
#define PERF_FORMAT_GROUP               (1ULL << 3)
#define PERF_FORMAT_LOST                (1ULL << 4)

#define PERF_SAMPLE_BRANCH_HW_INDEX     (1ULL << 17)
#define PERF_SAMPLE_BRANCH_COUNTERS     (1ULL << 19)

//
// Call-chain context markers (PERF_CONTEXT_*): entries at or above
// PERF_CONTEXT_MAX say whose frames follow.
//

#define PERF_CONTEXT_KERNEL         ((ULONGLONG)-128)
#define PERF_CONTEXT_USER           ((ULONGLONG)-512)
#define PERF_CONTEXT_GUEST_KERNEL   ((ULONGLONG)-2176)
#define PERF_CONTEXT_GUEST_USER     ((ULONGLONG)-2560)
#define PERF_CONTEXT_MAX            ((ULONGLONG)-4095)
#define PERF_MAX_FRAMES             1024    // deeper stacks keep the
                                            // frames nearest the leaf

//
// Record types: the kernel's, then perf's own (>= 64).
//

#define PERF_RECORD_MMAP                1
#define PERF_RECORD_LOST                2
#define PERF_RECORD_COMM                3
#define PERF_RECORD_EXIT                4
#define PERF_RECORD_THROTTLE            5
#define PERF_RECORD_UNTHROTTLE          6
#define PERF_RECORD_FORK                7
#define PERF_RECORD_READ                8
#define PERF_RECORD_SAMPLE              9
#define PERF_RECORD_MMAP2               10
#define PERF_RECORD_AUX                 11
#define PERF_RECORD_ITRACE_START        12
#define PERF_RECORD_LOST_SAMPLES        13
#define PERF_RECORD_SWITCH              14
#define PERF_RECORD_SWITCH_CPU_WIDE     15
#define PERF_RECORD_NAMESPACES          16
#define PERF_RECORD_KSYMBOL             17
#define PERF_RECORD_BPF_EVENT           18
#define PERF_RECORD_CGROUP              19
#define PERF_RECORD_TEXT_POKE           20
#define PERF_RECORD_AUX_OUTPUT_HW_ID    21
#define PERF_RECORD_KERNEL_MAX          22

#define PERF_RECORD_HEADER_ATTR         64
#define PERF_RECORD_HEADER_EVENT_TYPE   65
#define PERF_RECORD_HEADER_TRACING_DATA 66
#define PERF_RECORD_HEADER_BUILD_ID     67
#define PERF_RECORD_FINISHED_ROUND      68
#define PERF_RECORD_ID_INDEX            69
#define PERF_RECORD_EVENT_UPDATE        78
#define PERF_RECORD_TIME_CONV           79
#define PERF_RECORD_HEADER_FEATURE      80
#define PERF_RECORD_COMPRESSED          81
#define PERF_RECORD_FINISHED_INIT       82
#define PERF_RECORD_COMPRESSED2         83

#define PERF_RECORD_MISC_CPUMODE_MASK   7
#define PERF_RECORD_MISC_KERNEL         1
#define PERF_RECORD_MISC_GUEST_KERNEL   4
#define PERF_RECORD_MISC_COMM_EXEC      (1 << 13)
#define PERF_RECORD_MISC_SWITCH_OUT     (1 << 13)
#define PERF_RECORD_MISC_MMAP_BUILD_ID  (1 << 14)

#define PERF_EVENT_UPDATE_NAME          2

//
// Feature bits (HEADER_*) of the file header's bitmap, in the order
// their sections follow the data.
//

#define PERF_FEATURE_TRACING_DATA   1
#define PERF_FEATURE_BUILD_ID       2
#define PERF_FEATURE_HOSTNAME       3
#define PERF_FEATURE_OSRELEASE      4
#define PERF_FEATURE_VERSION        5
#define PERF_FEATURE_ARCH           6
#define PERF_FEATURE_NRCPUS         7
#define PERF_FEATURE_CPUDESC        8
#define PERF_FEATURE_CPUID          9
#define PERF_FEATURE_TOTAL_MEM      10
#define PERF_FEATURE_CMDLINE        11
#define PERF_FEATURE_EVENT_DESC     12
#define PERF_FEATURE_SAMPLE_TIME    21
#define PERF_FEATURE_CLOCKID        23
#define PERF_FEATURE_COMPRESSED     27
#define PERF_FEATURE_CLOCK_DATA     29
#define PERF_FEATURE_BITS           256

//
// What the reader does with an attr's samples.
//

typedef enum _PERF_EVENT_KIND {
    PerfEventSample = 0,        // counted: ip, period (cpu-clock, cycles)
    PerfEventTracepoint,        // RAW decoded by the tracing data's formats
    PerfEventPageFault,         // page-faults, minor-faults, major-faults
} PERF_EVENT_KIND;

typedef struct _PERF_ATTR {
    ULONGLONG Config;
    ULONGLONG SamplePeriod;     // a sample's period when it has none
    ULONGLONG SampleType;
    ULONGLONG ReadFormat;
    ULONGLONG Flags;
    ULONGLONG BranchSampleType;
    ULONG Type;
    ULONG RegsUser;             // registers per REGS_USER sample
    ULONG RegsIntr;
    PERF_EVENT_KIND Kind;
    ULONG Hard;                 // page faults: 1, 0, or TRACE_NULL_ULONG
    ULONG NameId;               // interned at the first sample, or NULL
    CHAR Name[PERF_NAME_SIZE];
    ULONG ByteCount;            // of the attr as the file has it, at most
    BYTE Bytes[PERF_ATTR_BYTES];    // PERF_ATTR_BYTES (perf.attr.NAME)
} PERF_ATTR, *PPERF_ATTR;

typedef struct _PERF_ID {
    ULONGLONG Id;
    ULONG Attr;
    ULONG Padding;
} PERF_ID, *PPERF_ID;

//
// A record waiting for its round: its time, and where it is.
//

typedef struct _PERF_HELD {
    ULONGLONG Time;
    ULONGLONG Offset;
} PERF_HELD, *PPERF_HELD;

#define PERF_DECOMPRESSED   (1ULL << 63)
#define PERF_DECOMP_MAX     (1ULL << 30)
#define PERF_HELD_MAX   (1u << 20)      // then half is flushed, as perf
                                        // does at its queue's limit

//
// A SAMPLE record's fields, as its attr's sample_type lays them out.
//

typedef struct _PERF_SAMPLE {
    PPERF_ATTR Attr;
    ULONGLONG Id;
    ULONGLONG Ip;               // TRACE_NULL_ULONGLONG when absent
    ULONGLONG Time;
    ULONGLONG Addr;             // TRACE_NULL_ULONGLONG when absent
    ULONGLONG Period;           // TRACE_NULL_ULONGLONG when absent
    ULONG Pid;                  // TRACE_NULL_ULONG when absent or -1
    ULONG Tid;
    ULONG Cpu;                  // TRACE_NULL_ULONG when absent
    ULONG RawSize;
    const BYTE *Raw;            // NULL when absent
    const BYTE *Callchain;      // u64 entries, unaligned; NULL if none
    ULONGLONG CallchainLength;
    BOOL HasTime;
    ULONG Kernel;               // the header's cpumode is a kernel's
} PERF_SAMPLE, *PPERF_SAMPLE;

//
// A mapped file whose code the samples' stacks reach: its symbols are
// loaded from this machine at the first frame that needs them.
//

#define PERF_MODULE_NEW     0
#define PERF_MODULE_LOADED  1
#define PERF_MODULE_FAILED  2

typedef struct _PERF_MODULE {
    ULONG PathId;
    ULONG State;                // PERF_MODULE_*
    PCSZ Path;                  // NUL-terminated, in the mapped input
    ULONG BuildIdLength;        // 0: the recording gives none
    BYTE BuildId[ELF_BUILD_ID_MAX];
    ELF_SYMBOLS Elf;
} PERF_MODULE, *PPERF_MODULE;

//
// Recent call chains and the callsite each became: a profile repeats its
// stacks, and a chain met again skips the walk over its frames.  Valid
// while the processes' mappings do not change (MapsGeneration).
//

#define PERF_CHAIN_CACHE    8192
#define PERF_CHAIN_MAX      64

typedef struct _PERF_CHAIN_ENTRY {
    ULONG Pid;
    ULONG Length;               // entries (markers included); 0: empty
    ULONGLONG Generation;
    LONGLONG StackId;
    ULONGLONG Ips[PERF_CHAIN_MAX];
} PERF_CHAIN_ENTRY, *PPERF_CHAIN_ENTRY;

//
// The last stack built for a thread (a few threads, by tid), root first:
// a new chain of the thread reuses the callsites of the outer frames it
// shares with it, so only its differing inner frames are looked up.
//

#define PERF_LAST_STACKS    16

typedef struct _PERF_LAST_STACK {
    ULONG Tid;
    ULONG Pid;
    ULONG Count;                // frames below, root first
    ULONG Padding;
    ULONGLONG Generation;
    ULONGLONG Ips[PERF_MAX_FRAMES];
    BYTE Kernel[PERF_MAX_FRAMES];
    LONGLONG Callsites[PERF_MAX_FRAMES];
} PERF_LAST_STACK, *PPERF_LAST_STACK;

typedef struct _PERF_DATA {
    PTRACE_IMPORT Import;
    PRTL Rtl;
    const BYTE *Buffer;
    SIZE_T Length;
    BOOL Pipe;
    BOOL SameLayout;            // every attr has the first's sample_type
    BOOL Truncated;             // the file ends inside its data section
    ULONG Padding4;
    ULONGLONG DataSize;         // as the header says
    ULONGLONG DataOffset;
    ULONGLONG DataEnd;

    PPERF_ATTR Attrs;
    ULONG AttrCount;
    ULONG AttrCapacity;
    SIZE_T AttrBytes;
    PPERF_ID Ids;
    ULONG IdCount;
    ULONG IdCapacity;
    SIZE_T IdBytes;
    BOOL IdsSorted;
    ULONG Padding;

    PTRACING_DATA Tracing;      // NULL without TRACING_DATA
    TRACE_EVENT_RESOLVER Resolver;
    PERF_MAPS Maps;
    TRACE_HASH_TABLE Tasks;     // tid + 1 -> comm id << 32 | pid
    ULONGLONG LastTaskKey;      // the last tid + 1 looked up (0: none)
    ULONGLONG LastTaskValue;    // and what Tasks holds for it
    TRACE_STACK_TABLE Stacks;   // the samples' call stacks
    BOOL StacksReady;
    ULONG Padding3;
    PPERF_CHAIN_ENTRY Chains;   // PERF_CHAIN_CACHE entries, with Stacks
    PPERF_LAST_STACK LastStacks;    // PERF_LAST_STACKS, with Stacks
    ULONGLONG MapsGeneration;   // bumped at every change of the maps

    //
    // Symbols (PerfDataSymbols.c): the mapped files, the BUILD_ID
    // feature's section, and this machine's kallsyms when the recording
    // has none.
    //

    PPERF_MODULE Modules;
    ULONG ModuleCount;
    ULONG HostKallsymsState;    // PERF_MODULE_*
    SIZE_T ModuleBytes;
    TRACE_HASH_TABLE ModuleIndex;   // path id + 1 -> module index
    const BYTE *BuildIds;
    ULONGLONG BuildIdsSize;
    TRACE_EVENT_TABLE HostKallsyms;

    //
    // The sample being stored, for the resolver.
    //

    ULONG CurrentTid;
    ULONG CurrentPid;

    //
    // Records waiting for their round (file order within equal times).
    //

    PPERF_HELD Held;
    PPERF_HELD Scratch;
    ULONG HeldCount;
    ULONG Padding2;
    SIZE_T HeldBytes;
    ULONGLONG NextFlush;
    ULONGLONG MaxTime;

    //
    // perf record -z: the records decompressed from COMPRESSED records
    // (one zstd stream), kept until delivered; a held offset with
    // PERF_DECOMPRESSED set is into Decomp.  DecompDone is where the
    // record not yet whole starts.
    //

    PBYTE Decomp;
    SIZE_T DecompCapacity;
    SIZE_T DecompUsed;
    SIZE_T DecompDone;
    ULONGLONG CompressedOffset; // the COMPRESSED record last read
    ULONGLONG ReadOffset;       // the file's record being read

    //
    // Counts.
    //

    ULONGLONG Skipped;          // records of types not stored
    ULONGLONG LostRecords;      // sum of LOST records' counts
    ULONGLONG LostSamples;      // sum of LOST_SAMPLES records' counts
    ULONG ClockId;              // attr.clockid, when use_clockid
    BOOL UseClockId;

} PERF_DATA, *PPERF_DATA;

//
// A record by its offset: in the mapped file, or (PERF_DECOMPRESSED) in
// the decompressed records; and the file offset an error about it names
// (the COMPRESSED record it came from).
//

static inline
const BYTE *
PerfRecordAt(
    const PERF_DATA *Perf,
    ULONGLONG Offset
    )
{
    return (Offset & PERF_DECOMPRESSED) != 0 ?
           Perf->Decomp + (Offset & ~PERF_DECOMPRESSED) :
           Perf->Buffer + Offset;
}

static inline
ULONGLONG
PerfFileOffset(
    const PERF_DATA *Perf,
    ULONGLONG Offset
    )
{
    return (Offset & PERF_DECOMPRESSED) != 0 ? Perf->CompressedOffset :
                                                Offset;
}

//
// Bits set in Mask (the core links no libgcc, whose __popcountdi2 the
// builtin would call).
//

static inline
ULONG
PerfCountBits(
    ULONGLONG Mask
    )
{
    ULONG Count = 0;

    while (Mask != 0) {
        Mask &= Mask - 1;
        Count++;
    }
    return Count;
}

//
// What Tasks holds for thread Tid (FALSE: nothing), the last one looked
// up remembered: samples come in runs of one thread.
//

static inline
BOOL
PerfFindTask(
    PPERF_DATA Perf,
    ULONG Tid,
    PULONGLONG Value
    )
{
    ULONGLONG Key = (ULONGLONG)Tid + 1;
    ULONGLONG Cursor = 0;

    if (Key == Perf->LastTaskKey) {
        *Value = Perf->LastTaskValue;
        return TRUE;
    }
    if (!TraceHashFind(&Perf->Tasks, Key, &Cursor, Value)) {
        return FALSE;
    }
    Perf->LastTaskKey = Key;
    Perf->LastTaskValue = *Value;
    return TRUE;
}

//
// PerfData.c
//

PPERF_ATTR PerfFindAttr(PPERF_DATA Perf, ULONGLONG Id);
RTL_STATUS PerfAddAttr(PPERF_DATA Perf, ULONGLONG Offset, const BYTE *Attr,
                       ULONG Size, const BYTE *Ids, ULONGLONG IdCount);
RTL_STATUS PerfFeature(PPERF_DATA Perf, ULONG Bit, ULONGLONG Offset,
                       ULONGLONG Size);
RTL_STATUS PerfSetName(PPERF_DATA Perf, ULONGLONG Id, PCSZ Name,
                       SIZE_T Length);

//
// PerfDataSymbols.c
//

RTL_STATUS PerfSymbolsInitialize(PPERF_DATA Perf);
RTL_STATUS PerfNoteModule(PPERF_DATA Perf, ULONG PathId, PCSZ Path,
                          const BYTE *BuildId, ULONG BuildIdLength);
TRACE_SYMBOLIZE PerfSymbolize;
VOID PerfReleaseSymbols(PPERF_DATA Perf);

//
// PerfDataStacks.c: the callsite of a sample's call chain (NULL without
// one), and the release of what that keeps.
//

RTL_STATUS PerfStoreStack(PPERF_DATA Perf, PPERF_SAMPLE Sample,
                          PLONGLONG StackId);
VOID PerfReleaseStacks(PPERF_DATA Perf);

//
// PerfDataRecords.c
//

RTL_STATUS PerfReadRecords(PPERF_DATA Perf, ULONGLONG Offset,
                           ULONGLONG End);
VOID PerfReleaseRecords(PPERF_DATA Perf);

#endif // _TRACER_PERF_DATA_H_
