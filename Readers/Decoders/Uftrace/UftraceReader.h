/*++

Module Name:

    UftraceReader.h

Abstract:

    What the files of the uftrace reader share: the reader's state (the
    recording's sessions, tasks, forks, modules and perf files, and the
    caches of one import) and the routines one file offers the others.

        Uftrace.c           the import: detection, the order of the work,
                            the merge of the tasks' records in time order
                            and the spans they become
        UftraceRecording.c  the recording's files: info, task.txt
                            (sessions, tasks, forks), which session a task
                            runs in
        UftraceSymbols.c    modules (sid-SID.map) and their symbols (.sym)
        UftraceSpecs.c      debug info (.dbg) and the argument specs of a
                            function
        UftraceRecords.c    a task's record stream (TID.dat) and the text
                            of a record's arguments
        UftraceScan.c       the first pass: exits without an entry, fork
                            and exec
        UftracePerf.c       perf-cpuN.dat: context switches, as
                            linux:schedule spans

    The argument spec language, the patterns and the value formatter are
    a module of their own (UftraceArgs.h).  UftraceRecording.c, which every
    other file calls for each record (the session a task runs in), has its
    own header, UftraceRecording.h, with that lookup's fast path inline;
    the others' routines are declared here.

Environment:

    Core: no C runtime; the OS only through PRTL.  Included by the
    Uftrace*.c files only; the reader's entry points (UftraceDetect,
    UftraceImport) are declared in Readers/Decoders/Decoders.h.

--*/

#ifndef _TRACER_UFTRACE_READER_H_
#define _TRACER_UFTRACE_READER_H_

#include "Readers/Import/TraceImport.h"
#include "UftraceArgs.h"
#include "Readers/Import/TimeMerge.h"

#define UFTRACE_MAGIC_LENGTH    8
#define UFTRACE_HEADER_MINIMUM  40
#define UFTRACE_RECORD_SIZE     16
#define UFTRACE_RECORD_MAGIC    5

#define UFTRACE_ENTRY           0
#define UFTRACE_EXIT            1
#define UFTRACE_LOST            2
#define UFTRACE_EVENT           3

#define UFTRACE_FEAT_SYM_REL_ADDR (1ULL << 5)
#define UFTRACE_FEAT_AUTO_ARGS    (1ULL << 9)
#define UFTRACE_FEAT_DEBUG_INFO   (1ULL << 10)

#define UFTRACE_SYMBOL_CACHE    4096
#define UFTRACE_PATH_SIZE       4096
#define UFTRACE_NAME_SIZE       64
#define UFTRACE_MAX_FORK_DEPTH  64

#define UFTRACE_TEXT_SIZE       (32 * 1024)
#define UFTRACE_JSON_SIZE       (200 * 1024)
#define UFTRACE_ARENA_CHUNK     (64 * 1024)

typedef struct _UFTRACE_FILE {
    const BYTE *Data;
    SIZE_T Length;
} UFTRACE_FILE, *PUFTRACE_FILE;

//
// A function of a module's debug info that has argument specs: where its
// "A:" and "R:" lines start in the mapped .dbg file.
//

typedef struct _UFTRACE_DEBUG_FUNCTION {
    ULONGLONG Address;          // module-relative, as in its "F:" line
    ULONG Arguments;            // offset of the "A:" line, or ~0
    ULONG Returns;              // offset of the "R:" line, or ~0
} UFTRACE_DEBUG_FUNCTION, *PUFTRACE_DEBUG_FUNCTION;

typedef struct _UFTRACE_MODULE {
    ULONGLONG Start;
    ULONGLONG End;
    UFTRACE_FILE Symbols;       // NAME.sym, or no data
    SIZE_T FirstSymbol;         // offset of the first symbol line
    PCSZ Path;                  // in the session's map file
    ULONG PathLength;
    BOOL Skip;                  // libmcount: no symbols for specs

    //
    // NAME.dbg, loaded when a spec first needs it.
    //

    BOOL DebugLoaded;
    BOOL HasArgSpec;            // some function has "A:" or "R:"
    BOOL DebugSorted;
    UFTRACE_FILE Debug;
    PUFTRACE_DEBUG_FUNCTION Functions;
    ULONG FunctionCount;
    ULONG EnumCount;
    PULONG Enums;               // offsets of the "E:" lines
    SIZE_T DebugArraySize;
} UFTRACE_MODULE, *PUFTRACE_MODULE;

typedef struct _UFTRACE_SESSION {
    LONGLONG Timestamp;
    ULONG Pid;
    ULONG NameId;               // basename of the executable
    ULONG FileNameId;           // the executable's path
    ULONG FirstModule;
    ULONG ModuleCount;
    ULONG ExecModule;           // the executable's module + 1, or 0
    CHAR Sid[20];
    PCSZ ExeName;               // in task.txt
    ULONG ExeNameLength;
    ULONG Padding;
    UFTRACE_FILE Map;
} UFTRACE_SESSION, *PUFTRACE_SESSION;

//
// The argument specs of one function of one session, as computed once.
//

typedef struct _UFTRACE_SPEC {
    ULONG Count;
    ULONG Module;               // the function's module + 1, or 0
    PCSZ Name;                  // its symbol (in the .sym file), or NULL
    PCSZ NameEnd;
    UFTRACE_ARG Args[1];        // Count
} UFTRACE_SPEC, *PUFTRACE_SPEC;

typedef struct _UFTRACE_TASK {
    ULONG Tid;
    ULONG Pid;
    UFTRACE_FILE Data;
    SIZE_T Offset;              // of the next record
    SIZE_T RecordOffset;        // of the current record
    SIZE_T Discarded;           // mapping dropped behind the cursor
    BOOL Done;                  // no current record

    //
    // The current record.
    //

    ULONG Type;
    ULONG Depth;
    BOOL More;
    LONGLONG Time;
    ULONGLONG Address;
    SIZE_T DataOffset;          // its argument data (entries and exits)
    SIZE_T DataLength;
    PUFTRACE_SPEC Spec;

    //
    // The session of the last record, valid for times in [From, Until).
    //

    ULONG Session;
    ULONG Module;               // last module found + 1, or 0
    LONGLONG SessionFrom;
    LONGLONG SessionUntil;

    //
    // Calls and programs: uftrace's count of user functions (what decides
    // whether a context switch shows), the session of the program
    // running, and open linux:schedule spans.
    //

    ULONG UserDepth;
    ULONG Program;              // session of the last record + 1
    ULONG SchedDepth;
    ULONG Padding;
    LONGLONG CutTime;           // import: the latest record's time
} UFTRACE_TASK, *PUFTRACE_TASK;

typedef struct _UFTRACE_FORK {
    ULONG Pid;
    ULONG ParentPid;
    LONGLONG Timestamp;
} UFTRACE_FORK, *PUFTRACE_FORK;

typedef struct _UFTRACE_PERF {
    UFTRACE_FILE Data;
    SIZE_T Offset;              // of the next record
    SIZE_T Discarded;
    BOOL Done;
    BOOL Out;                   // current record: switch out, else in
    BOOL Preempted;             // switched out while runnable
    ULONG Cpu;
    ULONG Tid;
    LONGLONG Time;
} UFTRACE_PERF, *PUFTRACE_PERF;

typedef struct _UFTRACE_SYMBOL_CACHE_ENTRY {
    ULONGLONG Address;          // + 1, 0 when empty
    ULONG Session;
    ULONG NameId;
} UFTRACE_SYMBOL_CACHE_ENTRY, *PUFTRACE_SYMBOL_CACHE_ENTRY;

typedef struct _UFTRACE_ARENA_BLOCK {
    struct _UFTRACE_ARENA_BLOCK *Next;
    SIZE_T Size;
} UFTRACE_ARENA_BLOCK, *PUFTRACE_ARENA_BLOCK;

typedef struct _UFTRACE_READER {
    PTRACE_IMPORT Import;
    PRTL Rtl;
    ULONGLONG Features;
    UFTRACE_FILE Info;
    UFTRACE_FILE TaskText;
    PUFTRACE_SESSION Sessions;
    ULONG SessionCount;
    ULONG TaskCount;
    PUFTRACE_TASK Tasks;
    PUFTRACE_MODULE Modules;
    ULONG ModuleCount;
    ULONG ModuleCapacity;
    ULONG ForkCount;
    ULONG PerfCount;
    PUFTRACE_FORK Forks;
    PUFTRACE_PERF Perf;
    SIZE_T PerfSize;
    TIME_MERGE Merge;               // tasks, then perf files
    PVOID MergeMemory;
    SIZE_T MergeMemorySize;
    PUFTRACE_SYMBOL_CACHE_ENTRY Cache;
    SIZE_T ArraysSize;          // bytes of the one allocation above
    PVOID Arrays;
    TRACE_HASH_TABLE TaskIndex;     // tid + 1 -> task number
    ULONGLONG BytesRead;

    //
    // The specs of the recording (in the mapped info file).
    //

    PCSZ ArgSpec;
    PCSZ ArgSpecEnd;
    PCSZ RetSpec;
    PCSZ RetSpecEnd;
    PCSZ ArgAuto;
    PCSZ ArgAutoEnd;
    PCSZ RetAuto;
    PCSZ RetAutoEnd;
    PCSZ EnumAuto;
    PCSZ EnumAutoEnd;
    BOOL AutoArgs;
    ULONG PatternType;
    BOOL Is32Bit;
    ULONG Padding3;

    //
    // Specs computed per function, kept in an arena.
    //

    TRACE_HASH_TABLE SpecIndex;     // (session, address) -> PUFTRACE_SPEC
    PUFTRACE_ARENA_BLOCK Arena;
    PBYTE ArenaCursor;
    PBYTE ArenaEnd;
    PVOID PatternWorkspace;
    SIZE_T PatternWorkspaceSize;

    ULONG ExecNameIds[7];
    ULONG ScheduleNameId;
    ULONG PreemptedNameId;
    ULONG UnknownNameId;

    UFTRACE_SPEC_ENTRY Entry;
    UFTRACE_ARG_LIST Found;
    UFTRACE_ARG_LIST AutoArgSpecs;
    UFTRACE_ARG_LIST AutoRetSpecs;
    UFTRACE_ARG_LIST AutoScratch;
    CHAR Path[UFTRACE_PATH_SIZE];
    CHAR Text[UFTRACE_TEXT_SIZE];
    CHAR Json[UFTRACE_JSON_SIZE];
} UFTRACE_READER, *PUFTRACE_READER;

//
// The function a record belongs to.
//

typedef struct _UFTRACE_FUNCTION {
    ULONG Session;
    ULONG Module;               // + 1, or 0
    PCSZ Name;
    PCSZ NameEnd;
    ULONGLONG Address;          // its symbol's address as the .sym has it
    CHAR Type;
} UFTRACE_FUNCTION, *PUFTRACE_FUNCTION;

//
// ---------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------
//

static inline
ULONGLONG
Load64(
    const BYTE *Bytes
    )
{
    ULONGLONG Value;

    __builtin_memcpy(&Value, Bytes, sizeof(Value));
    return Value;
}

static inline
PCSZ
BaseName(
    PCSZ Start,
    PCSZ End
    )
{
    PCSZ Cursor = End;

    while (Cursor > Start && Cursor[-1] != '/') {
        Cursor--;
    }
    return Cursor;
}

//
// ---------------------------------------------------------------------------
// UftraceSymbols.c: modules and symbols
// ---------------------------------------------------------------------------
//

RTL_STATUS UftraceReadModules(PUFTRACE_READER Reader);

//
// Maps BASENAME.Extension of a module (a missing file maps to no data),
// refusing a cut one; Name (UFTRACE_PATH_SIZE bytes) receives its name.
//

RTL_STATUS UftraceMapModuleFile(PUFTRACE_READER Reader, PUFTRACE_MODULE Module,
                                PCSZ Extension, PUFTRACE_FILE File, PCHAR Name,
                                PULONG NameLength);

RTL_STATUS UftraceImportModules(PUFTRACE_READER Reader,
                                PUFTRACE_SESSION Session);

PUFTRACE_MODULE UftraceFindModule(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                                  ULONG SessionNumber, ULONGLONG Address,
                                  PULONG ModuleNumber);

ULONGLONG UftraceModuleRelative(PUFTRACE_READER Reader, PUFTRACE_MODULE Module,
                                ULONGLONG Address);

BOOL UftraceFindSymbol(PUFTRACE_MODULE Module, ULONGLONG Address, PCSZ *Name,
                       PCSZ *NameEnd, PULONGLONG SymbolAddress,
                       PCHAR SymbolType);

BOOL UftraceFindSymbolCovering(PUFTRACE_MODULE Module, ULONGLONG Address,
                               PCSZ *Name, PCSZ *NameEnd);

RTL_STATUS UftraceSymbolName(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                             LONGLONG Time, ULONGLONG Address, PULONG NameId);

//
// ---------------------------------------------------------------------------
// UftraceSpecs.c: debug info and argument specs
// ---------------------------------------------------------------------------
//

RTL_STATUS UftraceLoadDebugInfo(PUFTRACE_READER Reader,
                                PUFTRACE_MODULE Module);

RTL_STATUS UftraceGetSpec(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                          PUFTRACE_SPEC *Result);

//
// ---------------------------------------------------------------------------
// UftraceRecords.c: a task's records and their arguments' text
// ---------------------------------------------------------------------------
//

RTL_STATUS UftraceNextRecord(PUFTRACE_READER Reader, PUFTRACE_TASK Task);

VOID UftraceFillContext(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                        LONGLONG Time, PTRACE_EVENT_CONTEXT Context);

RTL_STATUS UftraceFormatRecordArgs(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                                   PUFTRACE_TEXT Text);

RTL_STATUS UftraceInternArgs(PUFTRACE_READER Reader, PCSZ Existing,
                             ULONG ExistingLength, PCSZ Key,
                             PUFTRACE_TEXT Value, PULONG Id);

RTL_STATUS UftraceInternRecord(PUFTRACE_READER Reader, PUFTRACE_TASK Task,
                               PCSZ Key, PULONG NameId, PULONG ArgsId);

//
// ---------------------------------------------------------------------------
// UftraceScan.c: the first pass, fork and exec
// ---------------------------------------------------------------------------
//


VOID UftraceScanTasks(PUFTRACE_READER Reader);

//
// ---------------------------------------------------------------------------
// UftracePerf.c: context switches from perf-cpuN.dat
// ---------------------------------------------------------------------------
//

RTL_STATUS UftraceMapPerfFiles(PUFTRACE_READER Reader);

RTL_STATUS UftraceNextPerfRecord(PUFTRACE_READER Reader, PUFTRACE_PERF Perf);

VOID UftraceScanPerfEnd(PUFTRACE_READER Reader);

RTL_STATUS UftraceImportSwitch(PUFTRACE_READER Reader, PUFTRACE_PERF Perf);

#endif // _TRACER_UFTRACE_READER_H_
