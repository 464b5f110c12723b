/*++

Module Name:

    Uftrace.c

Abstract:

    This module decodes a uftrace record directory (`uftrace record`):

        info            "Ftrace!\0", version (3 or 4), header size,
                        endianness, class, feature and info masks, then
                        the info text: argspec/retspec (the -A/-R specs),
                        argauto/retauto/enumauto (the auto-args tables),
                        auto-args, pattern_type
        task.txt        SESS lines (a process image: pid, session id,
                        executable), TASK lines (tid, pid), FORK lines
        TID.dat         the task's records, 16 bytes each:
                            u64 time (ns)
                            u64 type:2 more:1 magic:3 depth:10 addr:48
                        type 0 entry, 1 exit, 2 lost, 3 event; magic 5.
                        With `more`, data follows: for an event a u16
                        length and the bytes, padded to 8; for an entry
                        the arguments, for an exit the return value, laid
                        out by the function's argument specs (see
                        UftraceArgs.c), padded to 8
        sid-SID.map     the session's modules (/proc/PID/maps lines), also
                        imported into the `module` store
        NAME.sym        a module's symbols, "ADDRESS TYPE NAME" sorted by
                        address, relative to the module's start when the
                        SYM_REL_ADDR feature is set
        NAME.dbg        a module's debug info: "F: ADDRESS NAME" per
                        function, followed by its "A: @SPEC" (arguments)
                        and "R: @SPEC" (return value) for -a, and "E:"
                        enum definitions
        perf-cpuN.dat   perf_event records of the recording: context
                        switches become "linux:schedule" spans

    Entries and exits become spans (the shared span builder nests them per
    thread), named by the symbol that contains the address, or <ADDRESS>
    like uftrace when there is none.  Arguments and return values become
    the span's args, the JSON uftrace's own Chrome export writes:
    {"arguments":"(1, \"x\")","retval":"3"}, each text as `uftrace replay`
    prints it.  The size of a record's argument data comes from the specs
    that uftrace would apply to its function (found and cached once per
    function): the recording's argspec/retspec patterns, and with
    auto-args the debug info or uftrace's table of libc functions.

    The tasks' files (and the perf files) are merged in time order (a heap
    of one cursor each), so a directory gives a sorted span store.  Before
    the import each task is scanned once for exits without an entry (the
    recording began inside those calls), which the span builder opens
    first, at the trace's first ts.

    fork and exec: a forked process runs on its parent's image (named with
    the parent's session) and starts inside the calls its parent was in
    when it forked; those become spans begun before the recording, named
    from the parent's records, so that depths are uftrace's.  When a task
    starts a new session (exec), the calls still open are cut at the new
    session's start (flags 2), and the new program's calls start at
    depth 0, as `uftrace replay` shows them.

    Not imported: event records (read triggers, SDT) and the kernel/
    directory.  Lost records add their count to the span store's dropped
    count.

    Every file is mapped through the RTL, so memory does not grow with the
    trace: per task a cursor, per module a mapped symbol table searched in
    place (binary search over its sorted lines), a fixed cache of recently
    named addresses, and the argument specs of the functions seen.

--*/

#include "TraceImport.h"
#include "UftraceArgs.h"
#include "TimeMerge.h"

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
#define UFTRACE_MAX_DEPTH       1024        // the record's depth is 10 bits

#define UFTRACE_TEXT_SIZE       (32 * 1024)
#define UFTRACE_JSON_SIZE       (200 * 1024)
#define UFTRACE_ARENA_CHUNK     (64 * 1024)

//
// perf_event records in perf-cpuN.dat (context switches only).
//

#define PERF_HEADER_SIZE        8
#define PERF_RECORD_SWITCH      14
#define PERF_MISC_SWITCH_OUT    0x2000
#define PERF_MISC_SWITCH_PREEMPT 0x4000     // switched out while runnable

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
    // Calls and programs: the depth the records imply, uftrace's count of
    // user functions (what decides whether a context switch shows), the
    // frames inherited from the parent that have not returned, the
    // session of the program running, and open linux:schedule spans.
    //

    ULONG Entered;              // scan: calls begun in this program, open
    ULONG UserDepth;
    ULONG Inherited;
    ULONG Fork;                 // the FORK line that made it + 1, or 0
    ULONG Program;              // session of the last record + 1
    ULONG SchedDepth;
    BOOL Scanned;
    ULONG Padding;
    LONGLONG CutTime;           // import: the latest record's time
} UFTRACE_TASK, *PUFTRACE_TASK;

typedef struct _UFTRACE_FORK {
    ULONG Pid;
    ULONG ParentPid;
    LONGLONG Timestamp;
    ULONG Task;                 // the child's main task + 1, or 0
    ULONG Depth;                // of the child's first record (an exit)
    ULONGLONG Address;          // of that record: the fork call
    ULONG Inherited;            // calls the child starts inside, 0: none
    ULONG Names;                // offset of their names in the pool
    BOOL Named;                 // the parent's fork call was found
    ULONG Padding;
    LONGLONG NamedAt;           // its time
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

    //
    // fork: names of the calls forked children start inside.
    //

    PULONG NamePool;
    SIZE_T NamePoolSize;
    ULONGLONG *Stack;               // a scanned task's call addresses

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
// Files
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
MapDirectoryFile(
    PUFTRACE_READER Reader,
    PCSZ Name,
    ULONG NameLength,
    PUFTRACE_FILE File
    )
/*++

Routine Description:

    Maps DIRECTORY/NAME read-only.  An empty file maps to no data.

Return Value:

    RTL_STATUS_OK, RTL_STATUS_NOT_FOUND (no error recorded: the caller
    decides), or another error recorded in Import->Error.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    RTL_STATUS Status;
    HANDLE Handle;
    ULONGLONG Size;
    PVOID Address;

    File->Data = NULL;
    File->Length = 0;

    if (RtlFormat(Reader->Path, sizeof(Reader->Path), "%s/%.*s",
                  Import->Path, (int)NameLength, Name) >=
        sizeof(Reader->Path) - 1) {
        return RtlSetError(&Import->Error, RTL_STATUS_TOO_LARGE, 0, 0,
                           "%s: path too long", Import->Path);
    }

    Status = Rtl->OpenFile(Rtl, Reader->Path, RtlOpenReadOnly, &Handle);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return Status;
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0,
                           "%s: cannot open: %s", Reader->Path,
                           RtlStatusText(Status));
    }

    Status = Rtl->GetFileSize(Rtl, Handle, &Size);
    if (RTL_SUCCESS(Status) && Size != 0) {
        Status = Rtl->MapFile(Rtl, Handle, 0, (SIZE_T)Size, FALSE, NULL,
                              &Address);
        if (RTL_SUCCESS(Status)) {
            File->Data = (const BYTE *)Address;
            File->Length = (SIZE_T)Size;
        }
    }
    Rtl->CloseFile(Rtl, Handle);

    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0,
                           "%s: cannot map: %s", Reader->Path,
                           RtlStatusText(Status));
    }

    return RTL_STATUS_OK;
}

static
VOID
UnmapFile(
    PUFTRACE_READER Reader,
    PUFTRACE_FILE File
    )
{
    if (File->Data != NULL) {
        Reader->Rtl->Unmap(Reader->Rtl, (PVOID)File->Data, File->Length);
        File->Data = NULL;
        File->Length = 0;
    }
}

static
ULONGLONG
Load64(
    const BYTE *Bytes
    )
{
    ULONGLONG Value;

    __builtin_memcpy(&Value, Bytes, sizeof(Value));
    return Value;
}

static
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

static
BOOL
SpanIs(
    PCSZ Start,
    PCSZ End,
    PCSZ Literal
    )
{
    while (Start < End && *Literal != '\0' && *Start == *Literal) {
        Start++;
        Literal++;
    }
    return Start == End && *Literal == '\0';
}

static
BOOL
SpanContains(
    PCSZ Start,
    PCSZ End,
    PCSZ Literal
    )
{
    SIZE_T Length = RtlStringLength(Literal);

    return Start != NULL && (SIZE_T)(End - Start) >= Length &&
           TextFindString(Start, End, Literal, (ULONG)Length) != NULL;
}

static
PVOID
ArenaAllocate(
    PUFTRACE_READER Reader,
    SIZE_T Size
    )
/*++

Routine Description:

    Memory that lives until the end of the import (8-byte aligned), from
    blocks of pages.  NULL when out of memory.

--*/
{
    PRTL Rtl = Reader->Rtl;
    PUFTRACE_ARENA_BLOCK Block;
    PVOID Address;
    PVOID Result;
    SIZE_T BlockSize;

    Size = (SIZE_T)ALIGN_UP(Size, 8);
    if (Reader->ArenaCursor == NULL ||
        (SIZE_T)(Reader->ArenaEnd - Reader->ArenaCursor) < Size) {
        BlockSize = (SIZE_T)ALIGN_UP(Size + sizeof(UFTRACE_ARENA_BLOCK),
                                     UFTRACE_ARENA_CHUNK);
        if (!RTL_SUCCESS(Rtl->AllocatePages(Rtl, BlockSize, &Address))) {
            return NULL;
        }
        Block = (PUFTRACE_ARENA_BLOCK)Address;
        Block->Next = Reader->Arena;
        Block->Size = BlockSize;
        Reader->Arena = Block;
        Reader->ArenaCursor = (PBYTE)(Block + 1);
        Reader->ArenaEnd = (PBYTE)Block + BlockSize;
    }

    Result = Reader->ArenaCursor;
    Reader->ArenaCursor += Size;
    return Result;
}

//
// ---------------------------------------------------------------------------
// info and task.txt
// ---------------------------------------------------------------------------
//

static
BOOL
LineStartsWithKey(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    PCSZ *Value
    )
{
    if (!TextStartsWith(Start, End, Key)) {
        return FALSE;
    }
    *Value = Start + RtlStringLength(Key);
    return TRUE;
}

static
VOID
ReadInfoText(
    PUFTRACE_READER Reader,
    ULONG HeaderSize
    )
/*++

Routine Description:

    Picks the argument specs and the pattern type out of the info text
    ("KEY:VALUE" lines after the header).  Absent keys stay NULL.

--*/
{
    PCSZ Start = (PCSZ)Reader->Info.Data + HeaderSize;
    PCSZ End = (PCSZ)Reader->Info.Data + Reader->Info.Length;
    PCSZ Cursor;

    Reader->PatternType = UFTRACE_PATTERN_REGEX;

    for (Cursor = Start; Cursor < End; ) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        PCSZ Value;

#define INFO_KEY(Key) (LineStartsWithKey(Cursor, LineEnd, Key, &Value))

        if (INFO_KEY("argspec:")) {
            if (!TextStartsWith(Value, LineEnd, "lines=")) {
                Reader->ArgSpec = Value;
                Reader->ArgSpecEnd = LineEnd;
            }
        } else if (INFO_KEY("retspec:")) {
            Reader->RetSpec = Value;
            Reader->RetSpecEnd = LineEnd;
        } else if (INFO_KEY("argauto:")) {
            Reader->ArgAuto = Value;
            Reader->ArgAutoEnd = LineEnd;
        } else if (INFO_KEY("retauto:")) {
            Reader->RetAuto = Value;
            Reader->RetAutoEnd = LineEnd;
        } else if (INFO_KEY("enumauto:")) {
            Reader->EnumAuto = Value;
            Reader->EnumAutoEnd = LineEnd;
        } else if (INFO_KEY("auto-args:")) {
            Reader->AutoArgs = SpanIs(Value, LineEnd, "1");
        } else if (INFO_KEY("pattern_type:")) {
            if (SpanIs(Value, LineEnd, "glob")) {
                Reader->PatternType = UFTRACE_PATTERN_GLOB;
            } else if (SpanIs(Value, LineEnd, "simple")) {
                Reader->PatternType = UFTRACE_PATTERN_SIMPLE;
            }
        }

#undef INFO_KEY

        Cursor = LineEnd + 1;
    }
}

static
RTL_STATUS
ReadInfo(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Data;
    ULONG Version;
    ULONG HeaderSize;
    RTL_STATUS Status;

    Status = MapDirectoryFile(Reader, "info", 4, &Reader->Info);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RtlSetError(&Import->Error, Status, 0, 0,
                           "%s/info: no such file", Import->Path);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Data = Reader->Info.Data;
    if (Reader->Info.Length < UFTRACE_HEADER_MINIMUM ||
        Import->Rtl->CompareMemory(Data, "Ftrace!\0",
                                   UFTRACE_MAGIC_LENGTH) != 0) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s/info: offset 0: not a uftrace info file "
                           "(no \"Ftrace!\" header of 40 bytes)",
                           Import->Path);
    }

    Version = (ULONG)Data[8] | ((ULONG)Data[9] << 8) |
              ((ULONG)Data[10] << 16) | ((ULONG)Data[11] << 24);
    HeaderSize = (ULONG)Data[12] | ((ULONG)Data[13] << 8);

    if (Version < 3 || Version > 4) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_VERSION, 0, 8,
                           "%s/info: offset 8: uftrace data version %u "
                           "(this reader reads versions 3 and 4)",
                           Import->Path, Version);
    }
    if (HeaderSize < UFTRACE_HEADER_MINIMUM ||
        HeaderSize > Reader->Info.Length) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 12,
                           "%s/info: offset 12: header size %u is not "
                           "between 40 and the file size", Import->Path,
                           HeaderSize);
    }
    if (Data[14] != 1) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 14,
                           "%s/info: offset 14: endianness %u: only "
                           "little-endian data (1) is read", Import->Path,
                           (ULONG)Data[14]);
    }
    if (Data[15] != 1 && Data[15] != 2) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 15,
                           "%s/info: offset 15: class %u is neither 32-bit "
                           "(1) nor 64-bit (2)", Import->Path,
                           (ULONG)Data[15]);
    }

    Reader->Is32Bit = (Data[15] == 1);
    Reader->Features = Load64(Data + 16);
    ReadInfoText(Reader, HeaderSize);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
TaskLineError(
    PUFTRACE_READER Reader,
    ULONG Line,
    PCSZ At,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONGLONG Offset = (ULONGLONG)(At - (PCSZ)Reader->TaskText.Data);

    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, Line, Offset,
                       "%s/task.txt: line %u: %s", Import->Path, Line,
                       Reason);
}

static
BOOL
LineStartsWith(
    PCSZ Start,
    PCSZ End,
    PCSZ Word
    )
{
    while (*Word != '\0') {
        if (Start >= End || *Start != *Word) {
            return FALSE;
        }
        Start++;
        Word++;
    }
    return TRUE;
}

static
BOOL
FieldNumber(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    BOOL Hex,
    PULONGLONG Value
    )
{
    TEXT_SPAN Span;
    PCSZ After;

    if (!TextFindField(Start, End, Key, &Span)) {
        return FALSE;
    }
    After = TextParseUnsigned(Span.Start, Span.End, Hex, Value);
    return After != NULL && After == Span.End;
}

static
BOOL
FieldTime(
    PCSZ Start,
    PCSZ End,
    PLONGLONG Value
    )
{
    TEXT_SPAN Span;

    return TextFindField(Start, End, "timestamp=", &Span) &&
           TextParseSeconds(Span.Start, Span.End, Value) == Span.End;
}

static
RTL_STATUS
ReadTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Reads task.txt twice: to count its lines, then (after one allocation
    for every array of the reader) to fill sessions, tasks and forks.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    PCSZ Start;
    PCSZ End;
    PCSZ Cursor;
    ULONG Line;
    ULONG Sessions = 0;
    ULONG Tasks = 0;
    ULONG Forks = 0;
    SIZE_T Size;
    RTL_STATUS Status;
    PBYTE Arrays;

    Status = MapDirectoryFile(Reader, "task.txt", 8, &Reader->TaskText);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_VERSION, 0, 0,
                           "%s/task.txt: no such file (data of uftrace "
                           "before v0.6 is not read)", Import->Path);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    //
    // An empty file maps to no data (NULL): say so rather than do
    // arithmetic on it.
    //

    if (Reader->TaskText.Length == 0) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s/task.txt: empty file (no SESS line)",
                           Import->Path);
    }

    Start = (PCSZ)Reader->TaskText.Data;
    End = Start + Reader->TaskText.Length;

    //
    // uftrace ends every line: a last line without its newline was cut,
    // and its last number may be short.
    //

    if (End[-1] != '\n') {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0,
                           Reader->TaskText.Length,
                           "%s/task.txt: offset %llu: last line has no "
                           "newline (file cut off?)", Import->Path,
                           (ULONGLONG)Reader->TaskText.Length);
    }

    for (Cursor = Start; Cursor < End; ) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        if (LineStartsWith(Cursor, LineEnd, "SESS ")) {
            Sessions++;
        } else if (LineStartsWith(Cursor, LineEnd, "TASK ")) {
            Tasks++;
        } else if (LineStartsWith(Cursor, LineEnd, "FORK ")) {
            Forks++;
        }
        Cursor = LineEnd + 1;
    }

    if (Sessions == 0) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s/task.txt: no SESS line", Import->Path);
    }

    Size = Sessions * sizeof(UFTRACE_SESSION) +
           Tasks * sizeof(UFTRACE_TASK) + Forks * sizeof(UFTRACE_FORK) +
           UFTRACE_SYMBOL_CACHE * sizeof(UFTRACE_SYMBOL_CACHE_ENTRY) +
           UFTRACE_MAX_DEPTH * sizeof(ULONGLONG) + 64;
    Size = (SIZE_T)ALIGN_UP(Size, RTL_PAGE_SIZE);

    Status = Rtl->AllocatePages(Rtl, Size, &Reader->Arrays);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->ArraysSize = Size;

    Arrays = (PBYTE)Reader->Arrays;
    Reader->Cache = (PUFTRACE_SYMBOL_CACHE_ENTRY)Arrays;
    Arrays += UFTRACE_SYMBOL_CACHE * sizeof(UFTRACE_SYMBOL_CACHE_ENTRY);
    Reader->Stack = (ULONGLONG *)Arrays;
    Arrays += UFTRACE_MAX_DEPTH * sizeof(ULONGLONG);
    Reader->Sessions = (PUFTRACE_SESSION)Arrays;
    Arrays += Sessions * sizeof(UFTRACE_SESSION);
    Reader->Tasks = (PUFTRACE_TASK)Arrays;
    Arrays += Tasks * sizeof(UFTRACE_TASK);
    Reader->Forks = (PUFTRACE_FORK)Arrays;

    Line = 0;
    for (Cursor = Start; Cursor < End; ) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        ULONGLONG Value;
        ULONGLONG Pid;
        LONGLONG Timestamp;

        Line++;

        if (LineStartsWith(Cursor, LineEnd, "SESS ")) {
            PUFTRACE_SESSION Session = &Reader->Sessions[Reader->SessionCount];
            TEXT_SPAN Sid;
            PCSZ Exe;
            PCSZ ExeEnd;

            if (!FieldTime(Cursor, LineEnd, &Timestamp) ||
                !FieldNumber(Cursor, LineEnd, "pid=", FALSE, &Pid) ||
                Pid >= TRACE_NULL_ULONG ||
                !TextFindField(Cursor, LineEnd, "sid=", &Sid) ||
                TEXT_SPAN_LENGTH(Sid) == 0 ||
                TEXT_SPAN_LENGTH(Sid) >= sizeof(Session->Sid)) {
                return TaskLineError(Reader, Line, Cursor,
                                     "SESS line without timestamp=, pid= "
                                     "and sid=");
            }

            Exe = TextFindString(Cursor, LineEnd, "exename=\"", 9);
            ExeEnd = LineEnd;
            while (ExeEnd > Cursor && ExeEnd[-1] != '"') {
                ExeEnd--;
            }
            if (Exe == NULL || ExeEnd <= Exe + 9) {
                return TaskLineError(Reader, Line, Cursor,
                                     "SESS line without exename=\"...\"");
            }
            Exe += 9;
            ExeEnd--;

            Rtl->FillMemory(Session, sizeof(*Session), 0);
            Session->Timestamp = Timestamp;
            Session->Pid = (ULONG)Pid;
            Session->ExeName = Exe;
            Session->ExeNameLength = (ULONG)(ExeEnd - Exe);
            Rtl->CopyMemory(Session->Sid, Sid.Start, TEXT_SPAN_LENGTH(Sid));
            Session->Sid[TEXT_SPAN_LENGTH(Sid)] = '\0';

            Status = TraceImportIntern(Import, Exe, (ULONG)(ExeEnd - Exe),
                                       &Session->FileNameId);
            if (RTL_SUCCESS(Status)) {
                PCSZ Base = BaseName(Exe, ExeEnd);

                Status = TraceImportIntern(Import, Base,
                                           (ULONG)(ExeEnd - Base),
                                           &Session->NameId);
            }
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Reader->SessionCount++;

        } else if (LineStartsWith(Cursor, LineEnd, "TASK ")) {
            PUFTRACE_TASK Task = &Reader->Tasks[Reader->TaskCount];
            ULONGLONG Probe = 0;
            ULONGLONG Number;

            if (!FieldTime(Cursor, LineEnd, &Timestamp) ||
                !FieldNumber(Cursor, LineEnd, "tid=", FALSE, &Value) ||
                !FieldNumber(Cursor, LineEnd, "pid=", FALSE, &Pid) ||
                Value >= TRACE_NULL_ULONG || Pid >= TRACE_NULL_ULONG) {
                return TaskLineError(Reader, Line, Cursor,
                                     "TASK line without timestamp=, tid= "
                                     "and pid=");
            }

            //
            // A task that execs is listed again (in its new session); its
            // records stay in one file.
            //

            if (!TraceHashFind(&Reader->TaskIndex, Value + 1, &Probe,
                               &Number)) {
                Status = TraceHashInsert(&Reader->TaskIndex, Value + 1,
                                         Reader->TaskCount);
                if (!RTL_SUCCESS(Status)) {
                    return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                                       Import->Path, RtlStatusText(Status));
                }
                Rtl->FillMemory(Task, sizeof(*Task), 0);
                Task->Tid = (ULONG)Value;
                Task->Pid = (ULONG)Pid;
                Reader->TaskCount++;
            }

        } else if (LineStartsWith(Cursor, LineEnd, "FORK ")) {
            PUFTRACE_FORK Fork = &Reader->Forks[Reader->ForkCount];

            if (!FieldNumber(Cursor, LineEnd, "pid=", FALSE, &Pid) ||
                !FieldNumber(Cursor, LineEnd, "ppid=", FALSE, &Value)) {
                return TaskLineError(Reader, Line, Cursor,
                                     "FORK line without pid= and ppid=");
            }
            Rtl->FillMemory(Fork, sizeof(*Fork), 0);
            if (!FieldTime(Cursor, LineEnd, &Fork->Timestamp)) {
                Fork->Timestamp = 0;
            }
            Fork->Pid = (ULONG)Pid;
            Fork->ParentPid = (ULONG)Value;
            Fork->Names = ~0u;
            Reader->ForkCount++;

        } else if (Cursor < LineEnd && !LineStartsWith(Cursor, LineEnd,
                                                       "DLOP ")) {
            return TaskLineError(Reader, Line, Cursor,
                                 "not a SESS, TASK, FORK or DLOP line");
        }

        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// Modules and symbols
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
SymbolLineError(
    PUFTRACE_READER Reader,
    PCSZ Name,
    ULONG NameLength,
    SIZE_T Offset,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, Offset,
                       "%s/%.*s: offset %llu: %s", Import->Path,
                       (int)NameLength, Name, (ULONGLONG)Offset, Reason);
}

static
PCSZ
ParseSymbolLine(
    PCSZ Line,
    PCSZ End,
    PULONGLONG Address,
    PCHAR Type
    )
/*++

Routine Description:

    Parses "ADDRESS TYPE NAME" up to the name.  Returns the name's start,
    or NULL.

--*/
{
    PCSZ Cursor = TextParseUnsigned(Line, End, TRUE, Address);

    if (Cursor == NULL || End - Cursor < 4 || Cursor[0] != ' ' ||
        Cursor[2] != ' ') {
        return NULL;
    }
    *Type = Cursor[1];
    return Cursor + 3;
}

static
RTL_STATUS
LoadSymbols(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module,
    PCSZ ModulePath,
    PCSZ ModulePathEnd
    )
/*++

Routine Description:

    Maps BASENAME.sym for a module, if the directory has it, and checks in
    one pass that its lines parse and are sorted by address, so that the
    lookups can bisect it in place.

--*/
{
    PCSZ Base = BaseName(ModulePath, ModulePathEnd);
    CHAR Name[UFTRACE_PATH_SIZE];
    ULONG NameLength;
    PCSZ Start;
    PCSZ End;
    PCSZ Cursor;
    ULONGLONG Previous = 0;
    RTL_STATUS Status;

    NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "%.*s.sym",
                                  (int)(ModulePathEnd - Base), Base);
    Status = MapDirectoryFile(Reader, Name, NameLength, &Module->Symbols);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RTL_STATUS_OK;
    }
    if (!RTL_SUCCESS(Status) || Module->Symbols.Data == NULL) {
        return Status;
    }

    Start = (PCSZ)Module->Symbols.Data;
    End = Start + Module->Symbols.Length;
    if (End[-1] != '\n') {
        return SymbolLineError(Reader, Name, NameLength,
                               Module->Symbols.Length,
                               "last line has no newline (file cut off?)");
    }

    Cursor = Start;
    while (Cursor < End && *Cursor == '#') {
        Cursor = TextFindChar(Cursor, End, '\n') + 1;
    }
    Module->FirstSymbol = (SIZE_T)(Cursor - Start);

    while (Cursor < End) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        ULONGLONG Address;
        CHAR Type;

        if (ParseSymbolLine(Cursor, LineEnd, &Address, &Type) == NULL) {
            return SymbolLineError(Reader, Name, NameLength,
                                   (SIZE_T)(Cursor - Start),
                                   "not an \"ADDRESS TYPE NAME\" line");
        }
        if (Address < Previous) {
            return SymbolLineError(Reader, Name, NameLength,
                                   (SIZE_T)(Cursor - Start),
                                   "symbols not sorted by address");
        }
        Previous = Address;
        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReadModules(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Reads each session's sid-SID.map (executable mappings, one per module
    after uftrace merged their segments) and loads the modules' symbols.
    Modules of all sessions live in one array, each session a slice.  A
    map file whose last line has no newline was cut: it is refused, as a
    cut symbol file is.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    ULONG Number;
    ULONG Count = 0;
    RTL_STATUS Status;
    PVOID Address;
    CHAR Name[64];
    ULONG NameLength;

    for (Number = 0; Number < Reader->SessionCount; Number++) {
        PUFTRACE_SESSION Session = &Reader->Sessions[Number];
        PCSZ Cursor;
        PCSZ End;

        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "sid-%s.map",
                                      Session->Sid);
        Status = MapDirectoryFile(Reader, Name, NameLength, &Session->Map);
        if (Status == RTL_STATUS_NOT_FOUND) {
            continue;
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        if (Session->Map.Length == 0) {
            continue;           // empty: no data mapped, no modules
        }

        Cursor = (PCSZ)Session->Map.Data;
        End = Cursor + Session->Map.Length;
        if (End[-1] != '\n') {
            return SymbolLineError(Reader, Name, NameLength,
                                   Session->Map.Length,
                                   "last line has no newline (file cut "
                                   "off?)");
        }
        while (Cursor < End) {
            Cursor = TextFindChar(Cursor, End, '\n') + 1;
            Count++;
        }
    }

    if (Count == 0) {
        return RTL_STATUS_OK;
    }

    Status = Rtl->AllocatePages(Rtl, Count * sizeof(UFTRACE_MODULE),
                                &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Modules = (PUFTRACE_MODULE)Address;
    Reader->ModuleCapacity = Count;

    for (Number = 0; Number < Reader->SessionCount; Number++) {
        PUFTRACE_SESSION Session = &Reader->Sessions[Number];
        PCSZ Start = (PCSZ)Session->Map.Data;
        PCSZ End = (Start != NULL) ? Start + Session->Map.Length : Start;
        PCSZ Cursor = Start;

        Session->FirstModule = Reader->ModuleCount;

        while (Cursor < End) {
            PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
            PUFTRACE_MODULE Module = &Reader->Modules[Reader->ModuleCount];
            ULONGLONG First;
            ULONGLONG Last;
            PCSZ After;
            PCSZ Path;
            PCSZ PathEnd;
            ULONG Field;

            //
            // START-END PERMS OFFSET DEV INODE PATH [build-id:...]
            //

            After = TextParseUnsigned(Cursor, LineEnd, TRUE, &First);
            if (After != NULL && After < LineEnd && *After == '-') {
                After = TextParseUnsigned(After + 1, LineEnd, TRUE, &Last);
            } else {
                After = NULL;
            }
            if (After == NULL || Last < First) {
                NameLength = (ULONG)RtlFormat(Name, sizeof(Name),
                                              "sid-%s.map", Session->Sid);
                return SymbolLineError(Reader, Name, NameLength,
                                       (SIZE_T)(Cursor - Start),
                                       "not a START-END mapping line");
            }

            Path = After;
            for (Field = 0; Field < 4 && Path < LineEnd; Field++) {
                Path = TextSkipSpaces(Path, LineEnd);
                while (Path < LineEnd && *Path != ' ') {
                    Path++;
                }
            }
            Path = TextSkipSpaces(Path, LineEnd);
            PathEnd = Path;
            while (PathEnd < LineEnd && *PathEnd != ' ') {
                PathEnd++;
            }

            if (PathEnd > Path && *Path != '[') {
                PCSZ Base = BaseName(Path, PathEnd);

                Rtl->FillMemory(Module, sizeof(*Module), 0);
                Module->Start = First;
                Module->End = Last;
                Module->Path = Path;
                Module->PathLength = (ULONG)(PathEnd - Path);
                Module->Skip = TextStartsWith(Base, PathEnd, "libmcount");
                Reader->ModuleCount++;
                Session->ModuleCount++;

                if (Session->ExecModule == 0 &&
                    Module->PathLength == Session->ExeNameLength &&
                    Rtl->CompareMemory(Path, Session->ExeName,
                                       Module->PathLength) == 0) {
                    Session->ExecModule = Reader->ModuleCount;
                }

                Status = LoadSymbols(Reader, Module, Path, PathEnd);
                if (!RTL_SUCCESS(Status)) {
                    return Status;
                }
            }

            Cursor = LineEnd + 1;
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ImportModules(
    PUFTRACE_READER Reader,
    PUFTRACE_SESSION Session
    )
/*++

Routine Description:

    Appends every line of the session's sid-SID.map to the `module` store,
    seen at the session's start.

--*/
{
    PCSZ Start = (PCSZ)Session->Map.Data;
    PCSZ End = (Start != NULL) ? Start + Session->Map.Length : Start;
    PCSZ Cursor = Start;
    RTL_STATUS Status;
    BOOL Parsed;
    CHAR Name[64];
    ULONG NameLength;

    while (Cursor < End) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        Status = TraceImportModuleLine(Reader->Import, Session->Timestamp,
                                       Session->Pid, Cursor, LineEnd,
                                       &Parsed, NULL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Parsed && TextSkipSpaces(Cursor, LineEnd) < LineEnd) {
            NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "sid-%s.map",
                                          Session->Sid);
            return SymbolLineError(Reader, Name, NameLength,
                                   (SIZE_T)(Cursor - Start),
                                   "not a /proc/PID/maps line");
        }
        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}

static
ULONG
FindSessionSlow(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time
    )
/*++

Routine Description:

    The session (process image) of a task at Time: the latest session of
    its process begun by Time (an exec starts a new one); before its first
    one, a forked process runs its parent's image (FORK), else its first
    one.  Remembered per task for the times it stays valid.

--*/
{
    ULONG Pid = Task->Pid;
    ULONG Depth;
    ULONG Number;
    LONGLONG Until = 0x7fffffffffffffffLL;

    for (Depth = 0; Depth < UFTRACE_MAX_FORK_DEPTH; Depth++) {
        ULONG Best = ~0u;
        ULONG Earliest = ~0u;
        LONGLONG From = (LONGLONG)0x8000000000000000ULL;

        for (Number = 0; Number < Reader->SessionCount; Number++) {
            PUFTRACE_SESSION Session = &Reader->Sessions[Number];

            if (Session->Pid != Pid) {
                continue;
            }
            if (Earliest == ~0u ||
                Session->Timestamp < Reader->Sessions[Earliest].Timestamp) {
                Earliest = Number;
            }
            if (Session->Timestamp <= Time) {
                if (Best == ~0u ||
                    Session->Timestamp >= Reader->Sessions[Best].Timestamp) {
                    Best = Number;
                }
            } else if (Session->Timestamp < Until) {
                Until = Session->Timestamp;
            }
        }

        if (Best != ~0u) {
            From = Reader->Sessions[Best].Timestamp;
        } else {

            //
            // Nothing of this process yet: a forked process is still its
            // parent's image.
            //

            for (Number = 0; Number < Reader->ForkCount; Number++) {
                if (Reader->Forks[Number].Pid == Pid) {
                    break;
                }
            }
            if (Number < Reader->ForkCount) {
                Pid = Reader->Forks[Number].ParentPid;
                continue;
            }
            Best = Earliest;
        }

        if (Best != ~0u) {
            Task->Session = Best;
            Task->SessionFrom = From;
            Task->SessionUntil = Until;
            Task->Module = 0;
            return Best;
        }
        break;
    }

    Task->Session = 0;
    Task->SessionFrom = (LONGLONG)0x8000000000000000ULL;
    Task->SessionUntil = 0x7fffffffffffffffLL;
    Task->Module = 0;
    return 0;
}

static inline
ULONG
FindSession(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time
    )
{
    if (Task->SessionUntil != 0 && Time >= Task->SessionFrom &&
        Time < Task->SessionUntil) {
        return Task->Session;
    }
    return FindSessionSlow(Reader, Task, Time);
}

static
PCSZ
FindSymbolLine(
    PUFTRACE_MODULE Module,
    ULONGLONG Address
    )
/*++

Routine Description:

    Bisects the module's sorted symbol lines for the last line at or
    below Address, or NULL.

--*/
{
    PCSZ Start = (PCSZ)Module->Symbols.Data;
    PCSZ Low;
    PCSZ High;
    PCSZ Found = NULL;

    //
    // No symbol file (or an empty one) maps to NULL: test it before any
    // arithmetic on it.
    //

    if (Start == NULL) {
        return NULL;
    }

    Low = Start + Module->FirstSymbol;
    High = Start + Module->Symbols.Length;

    //
    // Invariant: lines starting before Low are at or below Address (the
    // last such is Found); lines starting at or after High are above it.
    //

    while (Low < High) {
        PCSZ Middle = Low + (High - Low) / 2;
        PCSZ Line = Middle;
        PCSZ LineEnd;
        ULONGLONG LineAddress;
        CHAR Type;

        while (Line > Low && Line[-1] != '\n') {
            Line--;
        }
        LineEnd = TextFindChar(Line, Start + Module->Symbols.Length, '\n');
        ParseSymbolLine(Line, LineEnd, &LineAddress, &Type);

        if (LineAddress <= Address) {
            Found = Line;
            Low = LineEnd + 1;
        } else {
            High = Line;
        }
    }

    return Found;
}

static
BOOL
FindSymbol(
    PUFTRACE_MODULE Module,
    ULONGLONG Address,
    PCSZ *Name,
    PCSZ *NameEnd,
    PULONGLONG SymbolAddress,
    PCHAR SymbolType
    )
/*++

Routine Description:

    The last symbol at or below Address.  FALSE when there is none, or it
    is one of uftrace's end markers (type '?': past the functions).

--*/
{
    PCSZ End = (PCSZ)Module->Symbols.Data + Module->Symbols.Length;
    PCSZ Found = FindSymbolLine(Module, Address);
    PCSZ LineEnd;
    PCSZ Text;
    ULONGLONG LineAddress;
    CHAR Type;

    if (Found == NULL) {
        return FALSE;
    }

    LineEnd = TextFindChar(Found, End, '\n');
    Text = ParseSymbolLine(Found, LineEnd, &LineAddress, &Type);
    if (Text == NULL || Type == '?') {
        return FALSE;
    }
    *Name = Text;
    *NameEnd = TextTrimEnd(Text, LineEnd);
    if (SymbolAddress != NULL) {
        *SymbolAddress = LineAddress;
        *SymbolType = Type;
    }
    return *NameEnd > Text;
}

static
BOOL
SymbolTypeKept(
    CHAR Type
    )
{
    PCSZ Kept = "?TtwPKDdvu";       // what uftrace loads from a .sym file

    while (*Kept != '\0') {
        if (*Kept++ == Type) {
            return TRUE;
        }
    }
    return FALSE;
}

static
BOOL
FindSymbolCovering(
    PUFTRACE_MODULE Module,
    ULONGLONG Address,
    PCSZ *Name,
    PCSZ *NameEnd
    )
/*++

Routine Description:

    The symbol whose extent covers Address as uftrace sizes symbols from a
    .sym file: a symbol of a kept type ends where the next kept one (or
    an end marker) starts; the last one has no extent.  For pointer
    values, which point anywhere (code, data, nothing).

--*/
{
    PCSZ Start = (PCSZ)Module->Symbols.Data;
    PCSZ End = Start + Module->Symbols.Length;
    PCSZ First = Start + Module->FirstSymbol;
    PCSZ Line = FindSymbolLine(Module, Address);
    PCSZ Next;
    ULONGLONG LineAddress;
    ULONGLONG NextAddress;
    CHAR Type;
    CHAR NextType;
    PCSZ Text;

    if (Line == NULL) {
        return FALSE;
    }

    //
    // Back to a kept type, and to the first of equal (address, type).
    //

    for (;;) {
        PCSZ LineEnd = TextFindChar(Line, End, '\n');

        Text = ParseSymbolLine(Line, LineEnd, &LineAddress, &Type);
        if (Text != NULL && SymbolTypeKept(Type)) {
            PCSZ Previous;
            ULONGLONG PreviousAddress;
            CHAR PreviousType;

            if (Line == First) {
                break;
            }
            Previous = Line - 1;
            while (Previous > First && Previous[-1] != '\n') {
                Previous--;
            }
            if (ParseSymbolLine(Previous, Line - 1, &PreviousAddress,
                                &PreviousType) == NULL ||
                PreviousAddress != LineAddress || PreviousType != Type) {
                break;
            }
            Line = Previous;
            continue;
        }
        if (Line == First) {
            return FALSE;
        }
        Line--;
        while (Line > First && Line[-1] != '\n') {
            Line--;
        }
    }

    if (Type == '?') {
        return FALSE;
    }

    //
    // The next kept symbol at another address ends it.
    //

    Next = TextFindChar(Line, End, '\n') + 1;
    for (;;) {
        PCSZ NextEnd;

        if (Next >= End) {
            return FALSE;
        }
        NextEnd = TextFindChar(Next, End, '\n');
        if (ParseSymbolLine(Next, NextEnd, &NextAddress, &NextType) != NULL &&
            SymbolTypeKept(NextType) &&
            !(NextAddress == LineAddress && NextType == Type)) {
            break;
        }
        Next = NextEnd + 1;
    }

    if (Address >= NextAddress) {
        return FALSE;
    }

    *Name = Text;
    *NameEnd = TextTrimEnd(Text, TextFindChar(Line, End, '\n'));
    return *NameEnd > Text;
}

static
PUFTRACE_MODULE
FindModule(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    ULONG SessionNumber,
    ULONGLONG Address,
    PULONG ModuleNumber
    )
/*++

Routine Description:

    The module of the session that maps Address, or NULL.  Task (may be
    NULL) remembers the last one found.

--*/
{
    PUFTRACE_SESSION Session = &Reader->Sessions[SessionNumber];
    ULONG Number;

    if (Task != NULL && Task->Module != 0) {
        PUFTRACE_MODULE Module = &Reader->Modules[Task->Module - 1];

        if (Address >= Module->Start && Address < Module->End &&
            Task->Module - 1 >= Session->FirstModule &&
            Task->Module - 1 < Session->FirstModule + Session->ModuleCount) {
            *ModuleNumber = Task->Module;
            return Module;
        }
    }
    for (Number = 0; Number < Session->ModuleCount; Number++) {
        PUFTRACE_MODULE Candidate =
            &Reader->Modules[Session->FirstModule + Number];

        if (Address >= Candidate->Start && Address < Candidate->End) {
            *ModuleNumber = Session->FirstModule + Number + 1;
            if (Task != NULL) {
                Task->Module = *ModuleNumber;
            }
            return Candidate;
        }
    }
    *ModuleNumber = 0;
    return NULL;
}

static
ULONGLONG
ModuleRelative(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module,
    ULONGLONG Address
    )
{
    return (Reader->Features & UFTRACE_FEAT_SYM_REL_ADDR) ?
               Address - Module->Start : Address;
}

static
RTL_STATUS
SymbolName(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    ULONGLONG Address,
    PULONG NameId
    )
/*++

Routine Description:

    Names an entry/exit address: the symbol of the module that maps it
    (relative to the module's start with SYM_REL_ADDR), or "<ADDRESS>" in
    hex when no symbol covers it, as uftrace prints it.

--*/
{
    ULONG SessionNumber = FindSession(Reader, Task, Time);
    PUFTRACE_SYMBOL_CACHE_ENTRY Entry;
    PUFTRACE_MODULE Module;
    PCSZ Name;
    PCSZ NameEnd;
    CHAR Unknown[UFTRACE_NAME_SIZE];
    ULONG Slot;
    ULONG ModuleNumber;
    RTL_STATUS Status;

    Slot = (ULONG)((Address ^ (Address >> 12) ^ (SessionNumber * 0x9E37u)) %
                   UFTRACE_SYMBOL_CACHE);
    Entry = &Reader->Cache[Slot];
    if (Entry->Address == Address + 1 && Entry->Session == SessionNumber) {
        *NameId = Entry->NameId;
        return RTL_STATUS_OK;
    }

    Module = FindModule(Reader, Task, SessionNumber, Address, &ModuleNumber);
    if (Module != NULL &&
        FindSymbol(Module, ModuleRelative(Reader, Module, Address), &Name,
                   &NameEnd, NULL, NULL)) {
        Status = TraceImportIntern(Reader->Import, Name,
                                   (ULONG)(NameEnd - Name), NameId);
    } else {
        ULONG Length = (ULONG)RtlFormat(Unknown, sizeof(Unknown), "<%llx>",
                                        Address);

        Status = TraceImportIntern(Reader->Import, Unknown, Length, NameId);
    }

    if (RTL_SUCCESS(Status)) {
        Entry->Address = Address + 1;
        Entry->Session = SessionNumber;
        Entry->NameId = *NameId;
    }
    return Status;
}

//
// ---------------------------------------------------------------------------
// Debug info (NAME.dbg) and argument specs
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
IndexDebugInfo(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module
    )
/*++

Routine Description:

    Maps the module's BASENAME.dbg (once) and indexes the functions that
    have argument specs ("A:"/"R:" after their "F: ADDRESS NAME") and the
    enum definitions ("E:").  Lines are "K: TEXT"; '#' lines are comments.
    A cut file (no final newline) or another kind of line is an error.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    PCSZ Base;
    PCSZ PathEnd;
    CHAR Name[UFTRACE_PATH_SIZE];
    ULONG NameLength;
    PCSZ Start;
    PCSZ End;
    PCSZ Cursor;
    ULONG Functions = 0;
    ULONG Enums = 0;
    ULONG Pass;
    BOOL Open;
    ULONGLONG Address = 0;
    RTL_STATUS Status;
    PVOID Arrays;

    if (Module->DebugLoaded) {
        return RTL_STATUS_OK;
    }
    Module->DebugLoaded = TRUE;
    Module->DebugSorted = TRUE;

    PathEnd = Module->Path + Module->PathLength;
    Base = BaseName(Module->Path, PathEnd);
    NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "%.*s.dbg",
                                  (int)(PathEnd - Base), Base);
    Status = MapDirectoryFile(Reader, Name, NameLength, &Module->Debug);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RTL_STATUS_OK;
    }
    if (!RTL_SUCCESS(Status) || Module->Debug.Data == NULL) {
        return Status;
    }

    Start = (PCSZ)Module->Debug.Data;
    End = Start + Module->Debug.Length;
    if (End[-1] != '\n') {
        return SymbolLineError(Reader, Name, NameLength, Module->Debug.Length,
                               "last line has no newline (file cut off?)");
    }

    //
    // Pass 0 counts and checks, pass 1 fills the arrays.
    //

    for (Pass = 0; Pass < 2; Pass++) {
        PUFTRACE_DEBUG_FUNCTION Function = NULL;

        Open = FALSE;
        Functions = 0;
        Enums = 0;

        for (Cursor = Start; Cursor < End; ) {
            PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
            CHAR Kind = *Cursor;

            if (Kind == '#') {
                Cursor = LineEnd + 1;
                continue;
            }
            if (LineEnd - Cursor < 3 || Cursor[1] != ':' || Cursor[2] != ' ') {
                return SymbolLineError(Reader, Name, NameLength,
                                       (SIZE_T)(Cursor - Start),
                                       "not a \"KIND: TEXT\" line");
            }

            switch (Kind) {
            case 'F': {
                PCSZ Text = Cursor + 3;

                if (LineEnd - Text >= 2 && Text[0] == '0' &&
                    (Text[1] == 'x' || Text[1] == 'X')) {
                    Text += 2;
                }
                if (TextParseUnsigned(Text, LineEnd, TRUE, &Address) ==
                    NULL) {
                    return SymbolLineError(Reader, Name, NameLength,
                                           (SIZE_T)(Cursor - Start),
                                           "not an \"F: ADDRESS NAME\" "
                                           "line");
                }
                Open = FALSE;
                break;
            }

            case 'A':
            case 'R':
                if (!Open) {
                    if (Pass == 1) {
                        Function = &Module->Functions[Functions];
                        Function->Address = Address;
                        Function->Arguments = ~0u;
                        Function->Returns = ~0u;
                        if (Functions != 0 &&
                            Function[-1].Address > Address) {
                            Module->DebugSorted = FALSE;
                        }
                    }
                    Functions++;
                    Open = TRUE;
                }
                if (Pass == 1) {
                    ULONG Offset = (ULONG)(Cursor - Start);

                    if (Kind == 'A') {
                        Function->Arguments = Offset;
                    } else {
                        Function->Returns = Offset;
                    }
                }
                break;

            case 'E':
                if (Pass == 1) {
                    Module->Enums[Enums] = (ULONG)(Cursor - Start);
                }
                Enums++;
                break;

            default:
                break;          // L: (source lines) and the like
            }

            Cursor = LineEnd + 1;
        }

        if (Pass == 0) {
            SIZE_T Size;

            if (Functions == 0 && Enums == 0) {
                return RTL_STATUS_OK;
            }
            if (Module->Debug.Length >= 0xffffffffULL) {
                return SymbolLineError(Reader, Name, NameLength, 0,
                                       "debug info larger than 4 GB");
            }
            Size = Functions * sizeof(UFTRACE_DEBUG_FUNCTION) +
                   Enums * sizeof(ULONG) + 8;
            Size = (SIZE_T)ALIGN_UP(Size, RTL_PAGE_SIZE);
            Status = Rtl->AllocatePages(Rtl, Size, &Arrays);
            if (!RTL_SUCCESS(Status)) {
                return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                                   Import->Path, RtlStatusText(Status));
            }
            Module->DebugArraySize = Size;
            Module->Functions = (PUFTRACE_DEBUG_FUNCTION)Arrays;
            Module->Enums = (PULONG)(Module->Functions + Functions);
        }
    }

    Module->FunctionCount = Functions;
    Module->EnumCount = Enums;
    Module->HasArgSpec = (Functions != 0);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LoadDebugInfo(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module
    )
/*++

Routine Description:

    IndexDebugInfo, undone on failure so that every later use reports the
    error again (the scan stops quietly at it; the import must not).

--*/
{
    RTL_STATUS Status = IndexDebugInfo(Reader, Module);

    if (!RTL_SUCCESS(Status)) {
        if (Module->Functions != NULL) {
            Reader->Rtl->Unmap(Reader->Rtl, Module->Functions,
                               Module->DebugArraySize);
        }
        Module->Functions = NULL;
        Module->Enums = NULL;
        Module->FunctionCount = 0;
        Module->EnumCount = 0;
        Module->HasArgSpec = FALSE;
        UnmapFile(Reader, &Module->Debug);
        Module->DebugLoaded = FALSE;
    }
    return Status;
}

static
PUFTRACE_DEBUG_FUNCTION
FindDebugFunction(
    PUFTRACE_MODULE Module,
    ULONGLONG Address
    )
{
    ULONG Low = 0;
    ULONG High = Module->FunctionCount;
    ULONG Index;

    if (!Module->DebugSorted) {
        for (Index = 0; Index < Module->FunctionCount; Index++) {
            if (Module->Functions[Index].Address == Address) {
                return &Module->Functions[Index];
            }
        }
        return NULL;
    }

    while (Low < High) {
        ULONG Middle = Low + (High - Low) / 2;

        if (Module->Functions[Middle].Address < Address) {
            Low = Middle + 1;
        } else {
            High = Middle;
        }
    }
    if (Low < Module->FunctionCount &&
        Module->Functions[Low].Address == Address) {
        return &Module->Functions[Low];
    }
    return NULL;
}

static
BOOL
FindAutoSpec(
    PUFTRACE_READER Reader,
    PUFTRACE_FUNCTION Function,
    BOOL Retval,
    PUFTRACE_ARG_LIST List
    )
/*++

Routine Description:

    The spec uftrace finds for a function named without one (auto-args,
    or "-A NAME"): from the debug info of its module when it has any, else
    from the recording's table of known (libc) functions by name.

--*/
{
    ULONG Flags = Retval ? UFTRACE_TRIGGER_RETVAL : UFTRACE_TRIGGER_ARGUMENT;
    PUFTRACE_MODULE Module = NULL;
    PCSZ Text;
    PCSZ TextEnd;
    PCSZ Cursor;
    PCSZ EntryStart;
    PCSZ EntryEnd;
    BOOL Found = FALSE;

    List->Count = 0;
    List->Flags = 0;
    List->Exists = FALSE;
    List->Overflow = FALSE;

    if (Function->Module != 0) {
        Module = &Reader->Modules[Function->Module - 1];
        if (!Module->DebugLoaded &&
            !RTL_SUCCESS(LoadDebugInfo(Reader, Module))) {

            //
            // The error stays in Import->Error; the record that needs
            // the spec reports it.
            //

            return FALSE;
        }
    }

    if (Module != NULL && Module->HasArgSpec) {
        PUFTRACE_DEBUG_FUNCTION Debug =
            FindDebugFunction(Module, Function->Address);
        ULONG Offset = (Debug == NULL) ? ~0u :
                       (Retval ? Debug->Returns : Debug->Arguments);

        if (Offset != ~0u) {
            PCSZ Start = (PCSZ)Module->Debug.Data;
            PCSZ End = Start + Module->Debug.Length;
            PCSZ Line = Start + Offset + 3;
            PCSZ LineEnd = TextFindChar(Line, End, '\n');
            PCSZ At = TextFindChar(Line, LineEnd, '@');

            if (At < LineEnd) {
                UftraceParseActions(At + 1, LineEnd, Flags, List);
                if (List->Count != 0) {
                    return TRUE;
                }
            }
        }
    }

    if (!(Reader->Features & UFTRACE_FEAT_AUTO_ARGS)) {
        return FALSE;
    }

    Text = Retval ? Reader->RetAuto : Reader->ArgAuto;
    TextEnd = Retval ? Reader->RetAutoEnd : Reader->ArgAutoEnd;
    if (Text == NULL) {
        return FALSE;
    }

    for (Cursor = Text;
         UftraceNextSpecEntry(&Cursor, TextEnd, &EntryStart, &EntryEnd); ) {
        PCSZ At = TextFindChar(EntryStart, EntryEnd, '@');
        PUFTRACE_ARG_LIST Scratch = &Reader->AutoScratch;

        if (At >= EntryEnd ||
            (SIZE_T)(At - EntryStart) != (SIZE_T)(Function->NameEnd -
                                                  Function->Name) ||
            Reader->Rtl->CompareMemory(EntryStart, Function->Name,
                                       (SIZE_T)(At - EntryStart)) != 0) {
            continue;
        }

        UftraceParseActions(At + 1, EntryEnd, Flags, Scratch);
        UftraceMergeArgs(List, Scratch, TRUE);
        Found = TRUE;
    }

    return Found;
}

static
BOOL
EntryCoversFunction(
    PUFTRACE_READER Reader,
    PUFTRACE_FUNCTION Function,
    PUFTRACE_SPEC_ENTRY Entry
    )
/*++

Routine Description:

    Whether the entry's module word lets it apply to the function: "PLT"
    (the executable's PLT entries), a kernel word (no user function), or
    the first module of the session whose file name starts with it.

--*/
{
    PUFTRACE_SESSION Session = &Reader->Sessions[Function->Session];
    PCSZ Word = Entry->Module;
    PCSZ WordEnd = Entry->ModuleEnd;
    ULONG Number;

    if (Function->Module == 0) {
        return FALSE;
    }
    if (Word == NULL) {
        return !Reader->Modules[Function->Module - 1].Skip;
    }

    if (WordEnd - Word == 3 &&
        (Word[0] | 0x20) == 'p' && (Word[1] | 0x20) == 'l' &&
        (Word[2] | 0x20) == 't') {
        return Function->Module == Session->ExecModule &&
               Function->Type == 'P';
    }
    if ((WordEnd - Word == 1 && (Word[0] | 0x20) == 'k') ||
        (WordEnd - Word == 6 && SpanIs(Word, WordEnd, "kernel"))) {
        return FALSE;
    }

    for (Number = 0; Number < Session->ModuleCount; Number++) {
        PUFTRACE_MODULE Module =
            &Reader->Modules[Session->FirstModule + Number];
        PCSZ Base = BaseName(Module->Path, Module->Path + Module->PathLength);

        if ((SIZE_T)(Module->Path + Module->PathLength - Base) >=
                (SIZE_T)(WordEnd - Word) &&
            Reader->Rtl->CompareMemory(Base, Word,
                                       (SIZE_T)(WordEnd - Word)) == 0) {
            return Session->FirstModule + Number + 1 == Function->Module &&
                   !Module->Skip;
        }
    }
    return FALSE;
}

static
VOID
AddFilter(
    PUFTRACE_READER Reader,
    PUFTRACE_FUNCTION Function,
    PUFTRACE_SPEC_ENTRY Entry,
    PUFTRACE_ARG_LIST List
    )
/*++

Routine Description:

    What uftrace's add_filter does for one entry that matched the
    function: an entry without specs takes the function's auto spec, an
    auto-args entry does not touch a function that already has specs of
    its kind, and the specs are merged into the function's list.

--*/
{
    ULONG Flags = Entry->Flags;
    BOOL Exact = (Entry->PatternType == UFTRACE_PATTERN_SIMPLE);
    BOOL HaveAutoArgs = FALSE;
    BOOL HaveAutoRets = FALSE;

    if ((Flags & UFTRACE_TRIGGER_ARGUMENT) && Entry->Args.Count == 0) {
        HaveAutoArgs = FindAutoSpec(Reader, Function, FALSE,
                                    &Reader->AutoArgSpecs);
        if (!HaveAutoArgs) {
            Flags &= ~UFTRACE_TRIGGER_ARGUMENT;
        }
    }
    if ((Flags & UFTRACE_TRIGGER_RETVAL) && Entry->Args.Count == 0) {
        HaveAutoRets = FindAutoSpec(Reader, Function, TRUE,
                                    &Reader->AutoRetSpecs);
        if (!HaveAutoRets) {
            Flags &= ~UFTRACE_TRIGGER_RETVAL;
        }
    }

    if (Flags == UFTRACE_TRIGGER_AUTO) {
        return;
    }

    if (List->Exists) {
        ULONG Kinds = Flags & ~UFTRACE_TRIGGER_AUTO;

        if ((Flags & UFTRACE_TRIGGER_AUTO) && (List->Flags & Kinds)) {
            return;
        }
    } else {
        List->Exists = TRUE;
        List->Flags = 0;
        List->Count = 0;
    }

    Entry->Args.Flags = Flags;
    UftraceMergeArgs(List, &Entry->Args, Exact);
    if (HaveAutoArgs) {
        UftraceMergeArgs(List, &Reader->AutoArgSpecs, Exact);
    }
    if (HaveAutoRets) {
        UftraceMergeArgs(List, &Reader->AutoRetSpecs, Exact);
    }
}

static
VOID
ApplySpecs(
    PUFTRACE_READER Reader,
    PUFTRACE_FUNCTION Function,
    PCSZ Text,
    PCSZ TextEnd,
    ULONG Flags,
    PUFTRACE_ARG_LIST List
    )
/*++

Routine Description:

    Applies each entry of a spec string (argspec, retspec, an auto-args
    table) whose pattern matches the function, in order.

--*/
{
    PUFTRACE_SPEC_ENTRY Entry = &Reader->Entry;
    PCSZ Cursor = Text;
    PCSZ EntryStart;
    PCSZ EntryEnd;

    if (Text == NULL) {
        return;
    }

    while (UftraceNextSpecEntry(&Cursor, TextEnd, &EntryStart, &EntryEnd)) {
        if (!UftraceParseSpecEntry(EntryStart, EntryEnd, Flags,
                                   Reader->PatternType, Entry) ||
            !EntryCoversFunction(Reader, Function, Entry) ||
            !UftracePatternMatch(Entry, Reader->PatternWorkspace,
                                 Function->Name, Function->NameEnd)) {
            continue;
        }
        AddFilter(Reader, Function, Entry, List);
    }
}

static
VOID
ComputeSpecs(
    PUFTRACE_READER Reader,
    PUFTRACE_FUNCTION Function,
    PUFTRACE_ARG_LIST List
    )
/*++

Routine Description:

    The specs of a function, built as uftrace builds them when it opens a
    recording: argspec, retspec (and argspec again for the return values
    of old data), then with auto-args the auto tables, or every function
    ("." or "*") when the recording saved debug info.

--*/
{
    static const CHAR Regex[] = ".";
    static const CHAR Glob[] = "*";
    ULONG Arg = UFTRACE_TRIGGER_ARGUMENT;
    ULONG Ret = UFTRACE_TRIGGER_RETVAL;
    ULONG Auto = UFTRACE_TRIGGER_AUTO;

    List->Count = 0;
    List->Flags = 0;
    List->Exists = FALSE;
    List->Overflow = FALSE;

    ApplySpecs(Reader, Function, Reader->ArgSpec, Reader->ArgSpecEnd, Arg,
               List);
    ApplySpecs(Reader, Function, Reader->RetSpec, Reader->RetSpecEnd, Ret,
               List);
    if (SpanContains(Reader->ArgSpec, Reader->ArgSpecEnd, "retval")) {
        ApplySpecs(Reader, Function, Reader->ArgSpec, Reader->ArgSpecEnd,
                   Ret, List);
    }

    if (!Reader->AutoArgs) {
        return;
    }

    if (Reader->Features & UFTRACE_FEAT_DEBUG_INFO) {
        PCSZ All = (Reader->PatternType == UFTRACE_PATTERN_GLOB) ? Glob :
                                                                   Regex;

        ApplySpecs(Reader, Function, All, All + 1, Arg | Auto, List);
        ApplySpecs(Reader, Function, All, All + 1, Ret | Auto, List);
    } else {
        ApplySpecs(Reader, Function, Reader->ArgAuto, Reader->ArgAutoEnd,
                   Arg | Auto, List);
        ApplySpecs(Reader, Function, Reader->RetAuto, Reader->RetAutoEnd,
                   Ret | Auto, List);
        if (SpanContains(Reader->ArgAuto, Reader->ArgAutoEnd, "retval")) {
            ApplySpecs(Reader, Function, Reader->ArgAuto,
                       Reader->ArgAutoEnd, Ret | Auto, List);
        }
    }
}

static
RTL_STATUS
GetSpec(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PUFTRACE_SPEC *Result
    )
/*++

Routine Description:

    The argument specs of the function of the task's current record,
    computed on first use per (session, address) and kept.  *Result is
    NULL only when memory runs out (an error is recorded).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG SessionNumber = FindSession(Reader, Task, Task->Time);
    ULONGLONG Key = 0;
    ULONGLONG Probe = 0;
    ULONGLONG Value;
    UFTRACE_FUNCTION Function;
    PUFTRACE_MODULE Module;
    PUFTRACE_SPEC Spec;
    PUFTRACE_ARG_LIST List = &Reader->Found;
    RTL_STATUS Status;

    *Result = NULL;

    if (SessionNumber < 0xffff) {
        Key = ((ULONGLONG)(SessionNumber + 1) << 48) ^ Task->Address;
        if (TraceHashFind(&Reader->SpecIndex, Key, &Probe, &Value)) {
            *Result = (PUFTRACE_SPEC)(ULONG_PTR)Value;
            return RTL_STATUS_OK;
        }
    }

    Function.Session = SessionNumber;
    Function.Name = NULL;
    Function.NameEnd = NULL;
    Function.Address = 0;
    Function.Type = 0;
    Module = FindModule(Reader, Task, SessionNumber, Task->Address,
                        &Function.Module);

    List->Count = 0;
    if (Module != NULL &&
        FindSymbol(Module, ModuleRelative(Reader, Module, Task->Address),
                   &Function.Name, &Function.NameEnd, &Function.Address,
                   &Function.Type)) {
        if (!(Reader->Features & UFTRACE_FEAT_SYM_REL_ADDR)) {
            Function.Address -= Module->Start;
        }
        ComputeSpecs(Reader, &Function, List);
        if (Import->Error.Status != RTL_STATUS_OK) {
            return Import->Error.Status;        // a .dbg file was bad
        }
    }

    Spec = (PUFTRACE_SPEC)ArenaAllocate(
        Reader, FIELD_OFFSET(UFTRACE_SPEC, Args) +
                (List->Count + 1) * sizeof(UFTRACE_ARG));
    if (Spec == NULL) {
        return RtlSetError(&Import->Error, RTL_STATUS_NO_MEMORY, 0, 0,
                           "%s: out of memory for argument specs",
                           Import->Path);
    }
    Spec->Count = List->Count;
    Spec->Module = Function.Module;
    Spec->Name = Function.Name;
    Spec->NameEnd = Function.NameEnd;
    if (List->Count != 0) {
        Reader->Rtl->CopyMemory(Spec->Args, List->Args,
                                List->Count * sizeof(UFTRACE_ARG));
    }

    if (Key != 0) {
        Status = TraceHashInsert(&Reader->SpecIndex, Key,
                                 (ULONGLONG)(ULONG_PTR)Spec);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                               Import->Path, RtlStatusText(Status));
        }
    }

    *Result = Spec;
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
RecordError(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    SIZE_T Offset,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                       "%s/%u.dat: offset %llu: %s", Import->Path, Task->Tid,
                       (ULONGLONG)Offset, Reason);
}

static
RTL_STATUS
ArgumentError(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PUFTRACE_SPEC Spec,
    SIZE_T Offset,
    PCSZ Reason
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    CHAR Unknown[UFTRACE_NAME_SIZE];
    PCSZ Name = Spec->Name;
    ULONG Length = (ULONG)(Spec->NameEnd - Spec->Name);

    if (Name == NULL) {
        Length = (ULONG)RtlFormat(Unknown, sizeof(Unknown), "<%llx>",
                                  Task->Address);
        Name = Unknown;
    }

    return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                       "%s/%u.dat: offset %llu: %s of %.*s: %s",
                       Import->Path, Task->Tid, (ULONGLONG)Offset,
                       Task->Type == UFTRACE_EXIT ? "return value" :
                                                    "arguments",
                       (int)Length, Name, Reason);
}

static
BOOL
SpecHasKind(
    PUFTRACE_SPEC Spec,
    BOOL Retval
    )
{
    ULONG Index;

    for (Index = 0; Index < Spec->Count; Index++) {
        if ((Spec->Args[Index].Index == 0) == (Retval != FALSE)) {
            return TRUE;
        }
    }
    return FALSE;
}

static
RTL_STATUS
NextRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    Reads the task's next record into Task (Task->Done at the end of its
    file), and finds the data that follows a record with `more` set: an
    event's data says its size (a u16 before it); arguments and return
    values take what the function's specs say (see GetSpec), and must be
    followed by a record or the end of the file.

--*/
{
    const BYTE *Data = Task->Data.Data;
    SIZE_T Length = Task->Data.Length;
    SIZE_T Offset = Task->Offset;
    ULONGLONG Word;
    LONGLONG Time;
    RTL_STATUS Status;

    Task->Spec = NULL;
    Task->DataLength = 0;

    if (Offset == Length) {
        Task->Done = TRUE;
        return RTL_STATUS_OK;
    }
    if (Length - Offset < UFTRACE_RECORD_SIZE) {
        return RecordError(Reader, Task, Offset,
                           "truncated record (file cut off?)");
    }

    Word = Load64(Data + Offset + 8);
    if (((Word >> 3) & 7) != UFTRACE_RECORD_MAGIC) {
        return RecordError(Reader, Task, Offset,
                           "bad record magic (not a uftrace record)");
    }

    Task->RecordOffset = Offset;
    Time = (LONGLONG)Load64(Data + Offset);
    Task->Type = (ULONG)(Word & 3);
    Task->More = (BOOL)((Word >> 2) & 1);
    Task->Depth = (ULONG)((Word >> 6) & 0x3ff);
    Task->Address = Word >> 16;
    Offset += UFTRACE_RECORD_SIZE;
    Reader->BytesRead += UFTRACE_RECORD_SIZE;

    if (Time < 0) {
        return RecordError(Reader, Task, Task->RecordOffset,
                           "record time out of range");
    }

    //
    // A lost record has no time of its own (libmcount writes 0): it takes
    // the time of the record before it, so the merge keeps it in place.
    //

    if (Task->Type == UFTRACE_LOST && Time < Task->Time) {
        Time = Task->Time;
    }
    Task->Time = Time;

    if (Task->More) {
        SIZE_T Skip;

        if (Task->Type == UFTRACE_EVENT) {
            if (Length - Offset < 2) {
                return RecordError(Reader, Task, Offset,
                                   "truncated event data");
            }
            Skip = (SIZE_T)ALIGN_UP((SIZE_T)Data[Offset] +
                                    ((SIZE_T)Data[Offset + 1] << 8) + 2, 8);
            if (Length - Offset < Skip) {
                return RecordError(Reader, Task, Offset,
                                   "event data runs past the end of the "
                                   "file");
            }
        } else if (Task->Type == UFTRACE_LOST) {
            return RecordError(Reader, Task, Task->RecordOffset,
                               "lost record with data");
        } else {
            BOOL Retval = (Task->Type == UFTRACE_EXIT);
            PUFTRACE_SPEC Spec;

            Status = GetSpec(Reader, Task, &Spec);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            if (Reader->Is32Bit) {
                return ArgumentError(Reader, Task, Spec, Task->RecordOffset,
                                     "arguments of 32-bit recordings are "
                                     "not read");
            }
            if (!SpecHasKind(Spec, Retval)) {
                return ArgumentError(Reader, Task, Spec, Task->RecordOffset,
                                     "recorded, but no argument spec of "
                                     "the recording (info: argspec, "
                                     "retspec, auto-args) covers the "
                                     "function");
            }
            if (!UftraceArgDataSize(Spec->Args, Spec->Count, Retval,
                                    Data + Offset, Length - Offset, &Skip)) {
                return ArgumentError(Reader, Task, Spec, Offset,
                                     "data runs past the end of the file "
                                     "(file cut off?)");
            }
            if (Length - Offset - Skip >= UFTRACE_RECORD_SIZE &&
                ((Load64(Data + Offset + Skip + 8) >> 3) & 7) !=
                    UFTRACE_RECORD_MAGIC) {
                return ArgumentError(Reader, Task, Spec, Offset,
                                     "data does not fit the recording's "
                                     "argument specs (no record after it)");
            }
            Task->Spec = Spec;
            Task->DataOffset = Offset;
            Task->DataLength = Skip;
        }

        Offset += Skip;
        Reader->BytesRead += Skip;
    }

    Task->Offset = Offset;

    //
    // The file is read front to back: drop the mapping well behind, so
    // that the resident set does not grow with the trace.
    //

    if (Offset >= Task->Discarded + 2 * TRACE_DISCARD_BEHIND) {
        Reader->Rtl->DiscardMemory(Reader->Rtl, Data + Task->Discarded,
                                   Offset - TRACE_DISCARD_BEHIND -
                                   Task->Discarded);
        Task->Discarded = Offset - TRACE_DISCARD_BEHIND;
    }

    return RTL_STATUS_OK;
}

static
VOID
FillContext(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    PTRACE_EVENT_CONTEXT Context
    )
{
    ULONG Session = FindSession(Reader, Task, Time);

    Context->Timestamp = Time;
    Context->Tid = Task->Tid;
    Context->Pid = Task->Pid;
    Context->Cpu = TRACE_NULL_ULONG;
    Context->CommId = Reader->Sessions[Session].NameId;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;
}

//
// ---------------------------------------------------------------------------
// Argument text
// ---------------------------------------------------------------------------
//

typedef struct _UFTRACE_FORMAT_CONTEXT {
    PUFTRACE_READER Reader;
    ULONG Session;
    ULONG Module;               // the function's module + 1, or 0
} UFTRACE_FORMAT_CONTEXT, *PUFTRACE_FORMAT_CONTEXT;

static
BOOL
FormatSymbolAt(
    PVOID Context,
    ULONGLONG Address,
    PCSZ *Name,
    PCSZ *NameEnd
    )
{
    PUFTRACE_FORMAT_CONTEXT Format = (PUFTRACE_FORMAT_CONTEXT)Context;
    PUFTRACE_READER Reader = Format->Reader;
    PUFTRACE_MODULE Module;
    ULONG Number;

    Module = FindModule(Reader, NULL, Format->Session, Address, &Number);
    return Module != NULL &&
           FindSymbolCovering(Module, ModuleRelative(Reader, Module, Address),
                              Name, NameEnd);
}

static
BOOL
FormatFindEnum(
    PVOID Context,
    PCSZ Name,
    ULONG NameLength,
    PCSZ *Definition,
    PCSZ *DefinitionEnd
    )
/*++

Routine Description:

    An enum definition: the function's module's debug info first, then
    the recording's auto-args enums.

--*/
{
    PUFTRACE_FORMAT_CONTEXT Format = (PUFTRACE_FORMAT_CONTEXT)Context;
    PUFTRACE_READER Reader = Format->Reader;
    PUFTRACE_MODULE Module = &Reader->Modules[Format->Module - 1];
    ULONG Index;

    for (Index = 0; Index < Module->EnumCount; Index++) {
        PCSZ Start = (PCSZ)Module->Debug.Data;
        PCSZ Line = Start + Module->Enums[Index] + 3;
        PCSZ LineEnd = TextFindChar(Line, Start + Module->Debug.Length, '\n');

        if (UftraceFindEnumInList(Line, LineEnd, Name, NameLength,
                                  Definition, DefinitionEnd)) {
            return TRUE;
        }
    }

    return (Reader->Features & UFTRACE_FEAT_AUTO_ARGS) &&
           Reader->EnumAuto != NULL &&
           UftraceFindEnumInList(Reader->EnumAuto, Reader->EnumAutoEnd,
                                 Name, NameLength, Definition,
                                 DefinitionEnd);
}

static
RTL_STATUS
FormatRecordArgs(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PUFTRACE_TEXT Text
    )
/*++

Routine Description:

    The text `uftrace replay` prints for the current record's arguments
    ("(1, 2)") or return value ("3").

--*/
{
    PUFTRACE_SPEC Spec = Task->Spec;
    UFTRACE_FORMAT_CONTEXT Context;
    UFTRACE_FORMAT Format;
    RTL_STATUS Status;

    Text->Buffer = Reader->Text;
    Text->Capacity = sizeof(Reader->Text);
    Text->Length = 0;

    Context.Reader = Reader;
    Context.Session = FindSession(Reader, Task, Task->Time);
    Context.Module = Spec->Module;

    Format.Context = &Context;
    Format.SymbolAt = FormatSymbolAt;
    Format.FindEnum = NULL;
    if (Spec->Module != 0 && !Reader->Modules[Spec->Module - 1].Skip) {
        Status = LoadDebugInfo(Reader, &Reader->Modules[Spec->Module - 1]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Format.FindEnum = FormatFindEnum;
    }

    UftraceFormatArgs(&Format, Spec->Args, Spec->Count,
                      Task->Type == UFTRACE_EXIT,
                      Task->Data.Data + Task->DataOffset, Task->DataLength,
                      Text);
    return RTL_STATUS_OK;
}

static
RTL_STATUS
InternArgs(
    PUFTRACE_READER Reader,
    PCSZ Existing,
    ULONG ExistingLength,
    PCSZ Key,
    PUFTRACE_TEXT Value,
    PULONG Id
    )
/*++

Routine Description:

    Interns {"KEY":"VALUE"}, or Existing (such an object) with "KEY":
    "VALUE" added last.

--*/
{
    UFTRACE_TEXT Json;

    Json.Buffer = Reader->Json;
    Json.Capacity = sizeof(Reader->Json);
    Json.Length = 0;

    if (Existing != NULL && ExistingLength >= 2 &&
        Existing[ExistingLength - 1] == '}') {
        UftraceTextAppend(&Json, Existing, ExistingLength - 1);
        UftraceTextPut(&Json, ',');
    } else {
        UftraceTextPut(&Json, '{');
    }
    UftraceTextPut(&Json, '"');
    UftraceTextAppend(&Json, Key, RtlStringLength(Key));
    UftraceTextAppend(&Json, "\":\"", 3);
    UftraceJsonEscape(&Json, Value->Buffer, Value->Length);
    UftraceTextAppend(&Json, "\"}", 2);

    return TraceImportIntern(Reader->Import, Json.Buffer, Json.Length, Id);
}

//
// ---------------------------------------------------------------------------
// fork and exec
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
SetupForks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Finds each forked process's main task and its first record.  A child
    whose first record is an exit (of fork(), at depth D) starts inside
    D + 1 calls of its parent; their names come from the parent's records
    during the scan (see NameInheritedCalls), into a pool sized here.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Number;
    SIZE_T Names = 0;
    RTL_STATUS Status;
    PVOID Address;

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];
        ULONGLONG Probe = 0;
        ULONGLONG Index;
        PUFTRACE_TASK Task;
        ULONGLONG Word;

        if (!TraceHashFind(&Reader->TaskIndex, (ULONGLONG)Fork->Pid + 1,
                           &Probe, &Index)) {
            continue;
        }
        Task = &Reader->Tasks[Index];
        if (Task->Pid != Fork->Pid || Task->Fork != 0) {
            continue;
        }
        Task->Fork = Number + 1;
        Fork->Task = (ULONG)Index + 1;

        if (Task->Data.Length < UFTRACE_RECORD_SIZE) {
            continue;
        }
        Word = Load64(Task->Data.Data + 8);
        if (((Word >> 3) & 7) != UFTRACE_RECORD_MAGIC ||
            (Word & 3) != UFTRACE_EXIT) {
            continue;
        }
        Fork->Depth = (ULONG)((Word >> 6) & 0x3ff);
        Fork->Address = Word >> 16;
        Fork->Inherited = Fork->Depth + 1;
        Fork->Names = (ULONG)Names;
        Names += Fork->Inherited;
    }

    if (Names == 0) {
        return RTL_STATUS_OK;
    }

    Reader->NamePoolSize = (SIZE_T)ALIGN_UP(Names * sizeof(ULONG),
                                            RTL_PAGE_SIZE);
    Status = Reader->Rtl->AllocatePages(Reader->Rtl, Reader->NamePoolSize,
                                        &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->NamePool = (PULONG)Address;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
NameInheritedCalls(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    At an entry of a task whose process forked: the entry of the fork call
    that made a child (same address and depth as the child's first exit,
    the latest before the FORK line) names the calls the child starts
    inside: the task's open calls below it, and the call itself.

--*/
{
    ULONG Number;
    ULONG Level;
    RTL_STATUS Status;

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];

        if (Fork->ParentPid != Task->Pid || Fork->Inherited == 0 ||
            Fork->Address != Task->Address || Fork->Depth != Task->Depth ||
            Task->Time >= Fork->Timestamp || Task->Time < Fork->NamedAt) {
            continue;
        }

        for (Level = 0; Level < Fork->Inherited; Level++) {
            Status = SymbolName(Reader, Task, Task->Time,
                                Reader->Stack[Level],
                                &Reader->NamePool[Fork->Names + Level]);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Fork->NamedAt = Task->Time;
        Fork->Named = TRUE;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ScanCut(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time,
    ULONG Entered,
    ULONG Inherited
    )
/*++

Routine Description:

    For the scan: the task's open calls end at Time (an exec, or the end
    of a forked child that never returned from its parent's calls): the
    Entered calls it began, then the bottom Inherited calls it began in
    (in its parent, before the fork), which become spans begun before the
    recording, named from the parent.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_FORK Fork = Task->Fork ? &Reader->Forks[Task->Fork - 1] : NULL;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;
    BOOL Unmatched;
    ULONG Count;

    FillContext(Reader, Task, Time, &Context);

    for (Count = 0; Count < Entered + Inherited; Count++) {
        ULONG NameId = Reader->UnknownNameId;

        Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (Unmatched) {
            if (Count >= Entered && Fork != NULL && Fork->Named) {
                NameId = Reader->NamePool[Fork->Names + Entered + Inherited -
                                          1 - Count];
            }
            TraceImportSpanScanUnmatched(Import, NameId, TRACE_NULL_ULONG,
                                         TRACE_NULL_ULONG);
        }
    }
    return RTL_STATUS_OK;
}

static
BOOL
StartsProgram(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    ULONG Session
    )
/*++

Routine Description:

    Whether the current record runs another program than the task's last
    record did: a new session of the task's own process (an exec).

--*/
{
    return Task->Program != 0 && Task->Program != Session + 1 &&
           Reader->Sessions[Session].Pid == Task->Pid;
}

//
// ---------------------------------------------------------------------------
// The scan
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
ScanTask(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    The first pass over one task: exits without an entry, the time span,
    the names of the calls its forked children start inside, and the
    calls an exec cuts.  It stops quietly at bad data, which the import
    pass reports.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_FORK Fork = Task->Fork ? &Reader->Forks[Task->Fork - 1] : NULL;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL Unmatched;
    ULONG NameId;
    ULONG Number;
    ULONG Entered = 0;
    ULONG Inherited;
    LONGLONG Last = 0;
    ULONGLONG Calls[8];         // the fork calls of this task's children
    ULONG CallCount = 0;
    BOOL ManyCalls = FALSE;

    //
    // The addresses of the fork calls its process's children came from,
    // so that other entries are passed over at once.
    //

    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Child = &Reader->Forks[Number];
        ULONG Index;

        if (Child->ParentPid != Task->Pid || Child->Inherited == 0) {
            continue;
        }
        for (Index = 0; Index < CallCount; Index++) {
            if (Calls[Index] == Child->Address) {
                break;
            }
        }
        if (Index == CallCount) {
            if (CallCount == sizeof(Calls) / sizeof(Calls[0])) {
                ManyCalls = TRUE;
            } else {
                Calls[CallCount++] = Child->Address;
            }
        }
    }

    Inherited = (Fork != NULL && Fork->Named) ? Fork->Inherited : 0;
    Task->Program = 0;
    Task->Scanned = TRUE;
    Reader->Rtl->FillMemory(Reader->Stack,
                            UFTRACE_MAX_DEPTH * sizeof(ULONGLONG), 0);

    for (;;) {
        ULONG Session;

        Status = NextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status) || Task->Done) {
            break;
        }

        Session = FindSession(Reader, Task, Task->Time);
        if (StartsProgram(Reader, Task, Session)) {
            LONGLONG Cut = Reader->Sessions[Session].Timestamp;

            Status = ScanCut(Reader, Task, Cut > Last ? Cut : Last, Entered,
                             Inherited);
            if (!RTL_SUCCESS(Status)) {
                break;
            }
            Entered = 0;
            Inherited = 0;
        }
        Task->Program = Session + 1;
        Last = Task->Time;

        FillContext(Reader, Task, Task->Time, &Context);
        if (Task->Type == UFTRACE_ENTRY) {
            Status = TraceImportSpanScanBegin(Import, &Context);
            if (Task->Depth < UFTRACE_MAX_DEPTH) {
                Reader->Stack[Task->Depth] = Task->Address;
            }
            if (RTL_SUCCESS(Status) && (CallCount != 0 || ManyCalls)) {
                BOOL Call = ManyCalls;

                for (Number = 0; !Call && Number < CallCount; Number++) {
                    Call = (Calls[Number] == Task->Address);
                }
                if (Call) {
                    Status = NameInheritedCalls(Reader, Task);
                }
            }
            Entered++;
            if (Task->Depth < Inherited) {
                Inherited = Task->Depth;
            }
        } else if (Task->Type == UFTRACE_EXIT) {
            Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
            if (RTL_SUCCESS(Status) && !Unmatched && Entered != 0) {
                Entered--;
            }
            if (RTL_SUCCESS(Status) && Unmatched) {
                ULONG ArgsId = TRACE_NULL_ULONG;

                Status = SymbolName(Reader, Task, Task->Time, Task->Address,
                                    &NameId);
                if (RTL_SUCCESS(Status) && Task->Spec != NULL) {
                    UFTRACE_TEXT Text;

                    Status = FormatRecordArgs(Reader, Task, &Text);
                    if (RTL_SUCCESS(Status)) {
                        Status = InternArgs(Reader, NULL, 0, "retval", &Text,
                                            &ArgsId);
                    }
                }
                if (RTL_SUCCESS(Status)) {
                    TraceImportSpanScanUnmatched(Import, NameId,
                                                 TRACE_NULL_ULONG, ArgsId);
                }
            }
            if (Task->Depth < Inherited) {
                Inherited = Task->Depth;
            }
        } else {
            TraceImportSpanScanTime(Import, Task->Time);
        }
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }

    //
    // A forked child still inside its parent's calls at its end: they are
    // closed with the trace (after every task is scanned, see
    // ScanInheritedEnds).
    //

    Task->Entered = Entered;
    Task->Inherited = Inherited;

    Task->Offset = 0;
    Task->Discarded = 0;
    Task->Done = FALSE;
    Task->Time = 0;
    Task->Depth = 0;
    Task->Program = 0;
    return Status;
}

static
RTL_STATUS
ScanInheritedEnds(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Forked children that never returned from the calls they inherited
    (they called _exit, were killed, or are still running): those calls
    end with the trace, so that the child's own calls keep uftrace's
    depths inside them.

--*/
{
    ULONG Number;
    RTL_STATUS Status;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Inherited != 0) {
            Status = ScanCut(Reader, Task, Reader->Import->Spans.ScanLastTs,
                             Task->Entered, Task->Inherited);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
        }
        Task->Entered = 0;
        Task->Inherited = 0;
    }
    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// perf-cpuN.dat: context switches
// ---------------------------------------------------------------------------
//

typedef struct _PERF_LISTING {
    PUFTRACE_READER Reader;
    ULONG Count;
    ULONG Capacity;
} PERF_LISTING, *PPERF_LISTING;

static
BOOL
ListPerfFile(
    PVOID Context,
    PCSZ Name
    )
/*++

Routine Description:

    Directory callback: counts "perf-cpuN.dat" files, or (with room)
    records their N.

--*/
{
    PPERF_LISTING Listing = (PPERF_LISTING)Context;
    PCSZ End = Name + RtlStringLength(Name);
    ULONGLONG Cpu;
    PCSZ After;

    if (!TextStartsWith(Name, End, "perf-cpu")) {
        return TRUE;
    }
    After = TextParseUnsigned(Name + 8, End, FALSE, &Cpu);
    if (After == NULL || !SpanIs(After, End, ".dat") || Cpu >= 0x10000) {
        return TRUE;
    }

    if (Listing->Count < Listing->Capacity) {
        Listing->Reader->Perf[Listing->Count].Cpu = (ULONG)Cpu;
    }
    Listing->Count++;
    return TRUE;
}

static
RTL_STATUS
MapPerfFiles(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    PERF_LISTING Listing;
    RTL_STATUS Status;
    PVOID Address;
    ULONG Number;
    ULONG Other;

    Listing.Reader = Reader;
    Listing.Count = 0;
    Listing.Capacity = 0;
    Status = Rtl->EnumerateDirectory(Rtl, Import->Path, ListPerfFile,
                                     &Listing);
    if (!RTL_SUCCESS(Status) || Listing.Count == 0) {
        return RTL_STATUS_OK;       // no perf data is fine
    }

    Reader->PerfSize = (SIZE_T)ALIGN_UP(Listing.Count * sizeof(UFTRACE_PERF),
                                        RTL_PAGE_SIZE);
    Status = Rtl->AllocatePages(Rtl, Reader->PerfSize, &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Perf = (PUFTRACE_PERF)Address;

    Listing.Capacity = Listing.Count;
    Listing.Count = 0;
    Status = Rtl->EnumerateDirectory(Rtl, Import->Path, ListPerfFile,
                                     &Listing);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    if (Listing.Count > Listing.Capacity) {
        Listing.Count = Listing.Capacity;
    }

    //
    // By CPU number (the order the files have no bearing on the result
    // but ties of equal times).
    //

    for (Number = 1; Number < Listing.Count; Number++) {
        for (Other = Number; Other > 0 &&
             Reader->Perf[Other - 1].Cpu > Reader->Perf[Other].Cpu; Other--) {
            ULONG Swap = Reader->Perf[Other].Cpu;

            Reader->Perf[Other].Cpu = Reader->Perf[Other - 1].Cpu;
            Reader->Perf[Other - 1].Cpu = Swap;
        }
    }

    for (Number = 0; Number < Listing.Count; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];
        CHAR Name[32];
        ULONG NameLength;

        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "perf-cpu%u.dat",
                                      Perf->Cpu);
        Status = MapDirectoryFile(Reader, Name, NameLength, &Perf->Data);
        if (Status == RTL_STATUS_NOT_FOUND) {
            Perf->Done = TRUE;
            continue;
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Import->Length += Perf->Data.Length;
        Reader->PerfCount = Number + 1;
    }
    Reader->PerfCount = Listing.Count;

    return RTL_STATUS_OK;
}

static
RTL_STATUS
NextPerfRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_PERF Perf
    )
/*++

Routine Description:

    Reads the file's next context switch (PERF_RECORD_SWITCH, whose
    sample_id is pid, tid, time); other records are skipped by their
    size.  Perf->Done at the end.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Data = Perf->Data.Data;
    SIZE_T Length = Perf->Data.Length;

    while (!Perf->Done) {
        SIZE_T Offset = Perf->Offset;
        ULONG Type;
        ULONG Misc;
        ULONG Size;
        LONGLONG Time;

        if (Offset == Length || Data == NULL) {
            Perf->Done = TRUE;
            break;
        }
        if (Length - Offset < PERF_HEADER_SIZE) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: truncated "
                               "perf record (file cut off?)", Import->Path,
                               Perf->Cpu, (ULONGLONG)Offset);
        }
        Type = (ULONG)Data[Offset] | ((ULONG)Data[Offset + 1] << 8) |
               ((ULONG)Data[Offset + 2] << 16) |
               ((ULONG)Data[Offset + 3] << 24);
        Misc = (ULONG)Data[Offset + 4] | ((ULONG)Data[Offset + 5] << 8);
        Size = (ULONG)Data[Offset + 6] | ((ULONG)Data[Offset + 7] << 8);
        if (Size < PERF_HEADER_SIZE || Length - Offset < Size) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: perf record "
                               "of %u bytes does not fit the file",
                               Import->Path, Perf->Cpu, (ULONGLONG)Offset,
                               Size);
        }
        Perf->Offset = Offset + Size;
        Reader->BytesRead += Size;

        if (Perf->Offset >= Perf->Discarded + 2 * TRACE_DISCARD_BEHIND) {
            Reader->Rtl->DiscardMemory(Reader->Rtl, Data + Perf->Discarded,
                                       Perf->Offset - TRACE_DISCARD_BEHIND -
                                       Perf->Discarded);
            Perf->Discarded = Perf->Offset - TRACE_DISCARD_BEHIND;
        }

        if (Type != PERF_RECORD_SWITCH || Size < PERF_HEADER_SIZE + 16) {
            continue;
        }
        Time = (LONGLONG)Load64(Data + Offset + 16);
        if (Time < 0) {
            return RtlSetError(&Import->Error, RTL_STATUS_CORRUPT, 0, Offset,
                               "%s/perf-cpu%u.dat: offset %llu: time out of "
                               "range", Import->Path, Perf->Cpu,
                               (ULONGLONG)Offset);
        }
        Perf->Tid = (ULONG)Data[Offset + 12] |
                    ((ULONG)Data[Offset + 13] << 8) |
                    ((ULONG)Data[Offset + 14] << 16) |
                    ((ULONG)Data[Offset + 15] << 24);
        Perf->Time = Time;
        Perf->Out = (Misc & PERF_MISC_SWITCH_OUT) != 0;
        Perf->Preempted = (Misc & PERF_MISC_SWITCH_PREEMPT) != 0;
        return RTL_STATUS_OK;
    }

    return RTL_STATUS_OK;
}

static
PUFTRACE_TASK
PerfTask(
    PUFTRACE_READER Reader,
    ULONG Tid
    )
/*++

Routine Description:

    The recorded task of a context switch (uftrace ignores the others, and
    the tasks without records).

--*/
{
    ULONGLONG Probe = 0;
    ULONGLONG Index;

    if (!TraceHashFind(&Reader->TaskIndex, (ULONGLONG)Tid + 1, &Probe,
                       &Index) ||
        Reader->Tasks[Index].Data.Data == NULL) {
        return NULL;
    }
    return &Reader->Tasks[Index];
}

static
VOID
ScanPerfEnd(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Extends the scan's last time to the context switches after it, which
    become (or end) linux:schedule spans, so that calls closed at the end
    of the trace end after everything inside them.  The files are read
    again from the start by the import.

--*/
{
    ULONG Number;

    for (Number = 0; Number < Reader->PerfCount; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];

        while (RTL_SUCCESS(NextPerfRecord(Reader, Perf)) && !Perf->Done) {
            if (Perf->Time > Reader->Import->Spans.ScanLastTs &&
                PerfTask(Reader, Perf->Tid) != NULL) {
                TraceImportSpanScanTime(Reader->Import, Perf->Time);
            }
        }
        Perf->Offset = 0;
        Perf->Discarded = 0;
        Perf->Done = (Perf->Data.Data == NULL);
    }
}

//
// ---------------------------------------------------------------------------
// The merge
// ---------------------------------------------------------------------------
//

static
BOOL
IsExecName(
    PUFTRACE_READER Reader,
    ULONG NameId
    )
{
    ULONG Index;

    for (Index = 0; Index < sizeof(Reader->ExecNameIds) / sizeof(ULONG);
         Index++) {
        if (Reader->ExecNameIds[Index] == NameId) {
            return TRUE;
        }
    }
    return FALSE;
}

static
RTL_STATUS
ImportEntry(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An entry: a span begins, with {"arguments":...} when the record has
    them.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG ArgsId = TRACE_NULL_ULONG;
    UFTRACE_TEXT Text;
    RTL_STATUS Status;
    ULONG NameId;

    Status = SymbolName(Reader, Task, Task->Time, Task->Address, &NameId);
    if (RTL_SUCCESS(Status) && Task->Spec != NULL) {
        Status = FormatRecordArgs(Reader, Task, &Text);
        if (RTL_SUCCESS(Status)) {
            Status = InternArgs(Reader, NULL, 0, "arguments", &Text, &ArgsId);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanBegin(Import, Context, NameId,
                                      TRACE_NULL_ULONG, ArgsId);
    }

    //
    // uftrace's count of user calls, which decides whether a context
    // switch shows; an exec call starts it again.
    //

    Task->UserDepth++;
    if (IsExecName(Reader, NameId)) {
        Task->UserDepth = 0;
    }
    return Status;
}

static
RTL_STATUS
ImportExit(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    An exit: the innermost span ends, its args completed with the return
    value when the record has one.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG ArgsId = TRACE_NULL_ULONG;
    UFTRACE_TEXT Text;
    RTL_STATUS Status;
    ULONG NameId;

    Status = SymbolName(Reader, Task, Task->Time, Task->Address, &NameId);
    if (RTL_SUCCESS(Status) && Task->Spec != NULL) {
        PULONG Args = TraceImportSpanOpenArgs(Import, Context);
        PCSZ Existing = NULL;
        ULONG Length = 0;
        ULONG Merged;

        Status = FormatRecordArgs(Reader, Task, &Text);

        //
        // The return value joins the arguments of the span it closes; a
        // span begun before the recording has its args from the scan.
        //

        if (RTL_SUCCESS(Status) && Args != NULL) {
            if (*Args != TRACE_NULL_ULONG) {
                Status = TraceStringLookup(&Import->Session->Strings, *Args,
                                           &Existing, &Length);
            }
            if (RTL_SUCCESS(Status)) {
                Status = InternArgs(Reader, Existing, Length, "retval", &Text,
                                    &Merged);
            }
            if (RTL_SUCCESS(Status)) {
                Args = TraceImportSpanOpenArgs(Import, Context);
                if (Args != NULL) {
                    *Args = Merged;
                }
            }
        } else if (RTL_SUCCESS(Status)) {
            Status = InternArgs(Reader, NULL, 0, "retval", &Text, &ArgsId);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportSpanEnd(Import, Context, NameId,
                                    TRACE_NULL_ULONG, ArgsId);
    }

    if (Task->UserDepth != 0) {
        Task->UserDepth--;
    }
    return Status;
}

static
RTL_STATUS
ImportRecord(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;
    ULONG Session;

    Import->EventOffset = Task->RecordOffset;

    //
    // An exec: the calls of the old program never return; they end where
    // the new program's session starts.
    //

    Session = FindSession(Reader, Task, Task->Time);
    if (StartsProgram(Reader, Task, Session)) {
        LONGLONG Cut = Reader->Sessions[Session].Timestamp;

        FillContext(Reader, Task, Cut > Task->CutTime ? Cut : Task->CutTime,
                    &Context);
        Status = TraceImportSpanCut(Import, &Context);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Task->UserDepth = 0;
        Task->SchedDepth = 0;
    }
    Task->Program = Session + 1;
    Task->CutTime = Task->Time;     // the latest record, for the next cut

    FillContext(Reader, Task, Task->Time, &Context);

    switch (Task->Type) {
    case UFTRACE_ENTRY:
        Status = ImportEntry(Reader, Task, &Context);
        break;

    case UFTRACE_EXIT:
        Status = ImportExit(Reader, Task, &Context);
        break;

    case UFTRACE_LOST:

        //
        // libmcount ran out of buffers: the address field holds how many
        // records it dropped.
        //

        Status = TraceImportOpenStore(Import, &TraceSpanSchema,
                                      &Import->Span);
        if (RTL_SUCCESS(Status)) {
            TraceStoreAddDropped(Import->Span,
                                 Task->Address > 0xffffffffULL ?
                                     0xffffffffu : (ULONG)Task->Address);
        }
        return Status;

    default:
        return RTL_STATUS_OK;
    }

    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)Reader->BytesRead);
    }
    return Status;
}

static
RTL_STATUS
ImportSwitch(
    PUFTRACE_READER Reader,
    PUFTRACE_PERF Perf
    )
/*++

Routine Description:

    A context switch: switched out inside a user call, the task's time off
    the CPU is a "linux:schedule" span in that call, or "linux:schedule
    (pre-empted)" when it was still runnable, as uftrace report names them
    (and subtracts them from the call's self time); switches outside calls
    are not shown.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_TASK Task = PerfTask(Reader, Perf->Tid);
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status;

    if (Task == NULL) {
        return RTL_STATUS_OK;
    }

    Import->EventOffset = Perf->Offset;
    FillContext(Reader, Task, Perf->Time, &Context);

    if (Perf->Out) {
        if (Task->UserDepth == 0) {
            return RTL_STATUS_OK;
        }
        Status = TraceImportSpanBegin(Import, &Context,
                                      Perf->Preempted ?
                                          Reader->PreemptedNameId :
                                          Reader->ScheduleNameId,
                                      TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        Task->SchedDepth++;
    } else {
        if (Task->SchedDepth == 0) {
            return RTL_STATUS_OK;
        }
        Status = TraceImportSpanEnd(Import, &Context, Reader->ScheduleNameId,
                                    TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        Task->SchedDepth--;
    }

    if (RTL_SUCCESS(Status)) {
        Status = TraceImportEventDone(Import, (SIZE_T)Reader->BytesRead);
    }
    return Status;
}

static
RTL_STATUS
MergeTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Imports every task's records and the context switches in time order
    (TimeMerge.h): the sources are the tasks in task.txt order, then the
    perf files, which orders ties (uftrace takes a perf event only when it
    is strictly earlier).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;
    ULONG Number;
    ULONG Source;

    Reader->MergeMemorySize = (SIZE_T)ALIGN_UP(
        TIME_MERGE_SIZE((SIZE_T)Reader->TaskCount + Reader->PerfCount + 1),
        RTL_PAGE_SIZE);
    Status = Reader->Rtl->AllocatePages(Reader->Rtl, Reader->MergeMemorySize,
                                        &Reader->MergeMemory);
    if (!RTL_SUCCESS(Status)) {
        Reader->MergeMemory = NULL;
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    TimeMergeInitialize(&Reader->Merge, Reader->MergeMemory);

    //
    // Times are never negative (NextRecord and NextPerfRecord refuse
    // them): as unsigned keys they keep their order.
    //

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Data.Data == NULL) {
            continue;
        }
        Status = NextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Task->Done) {
            TimeMergeInsert(&Reader->Merge, Number, (ULONGLONG)Task->Time);
        }
    }
    for (Number = 0; Number < Reader->PerfCount; Number++) {
        PUFTRACE_PERF Perf = &Reader->Perf[Number];

        Status = NextPerfRecord(Reader, Perf);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Perf->Done) {
            TimeMergeInsert(&Reader->Merge, Reader->TaskCount + Number,
                            (ULONGLONG)Perf->Time);
        }
    }

    while (TimeMergeFirst(&Reader->Merge, &Source)) {
        BOOL Done;
        LONGLONG Time;

        if (Source < Reader->TaskCount) {
            PUFTRACE_TASK Task = &Reader->Tasks[Source];

            Status = ImportRecord(Reader, Task);
            if (RTL_SUCCESS(Status)) {
                Status = NextRecord(Reader, Task);
            }
            Done = Task->Done;
            Time = Task->Time;
        } else {
            PUFTRACE_PERF Perf = &Reader->Perf[Source - Reader->TaskCount];

            Status = ImportSwitch(Reader, Perf);
            if (RTL_SUCCESS(Status)) {
                Status = NextPerfRecord(Reader, Perf);
            }
            Done = Perf->Done;
            Time = Perf->Time;
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        if (Done) {
            TimeMergeRemoveFirst(&Reader->Merge);
        } else {
            TimeMergeUpdateFirst(&Reader->Merge, (ULONGLONG)Time);
        }
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
MapTasks(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Number;
    RTL_STATUS Status;
    CHAR Name[32];
    ULONG NameLength;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "%u.dat",
                                      Task->Tid);
        Status = MapDirectoryFile(Reader, Name, NameLength, &Task->Data);
        if (Status == RTL_STATUS_NOT_FOUND) {
            continue;       // a task that recorded nothing
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Import->Length += Task->Data.Length;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
InternNames(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    The names the reader compares or writes: uftrace's exec functions
    (its fixup list), the schedule span, and the name of a call that
    cannot be known.

--*/
{
    static const PCSZ Exec[] = {
        "execl", "execlp", "execle", "execv", "execve", "execvp", "execvpe",
    };
    RTL_STATUS Status = RTL_STATUS_OK;
    ULONG Index;

    for (Index = 0; RTL_SUCCESS(Status) &&
                    Index < sizeof(Exec) / sizeof(Exec[0]); Index++) {
        Status = TraceImportIntern(Reader->Import, Exec[Index],
                                   (ULONG)RtlStringLength(Exec[Index]),
                                   &Reader->ExecNameIds[Index]);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import, "linux:schedule", 14,
                                   &Reader->ScheduleNameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import,
                                   "linux:schedule (pre-empted)", 27,
                                   &Reader->PreemptedNameId);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceImportIntern(Reader->Import, "<unknown>", 9,
                                   &Reader->UnknownNameId);
    }
    return Status;
}

static
VOID
ScanTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Scans every task, a forked process's main task after its parent's
    tasks (whose fork calls name the calls it starts inside): first the
    tasks no fork made, then the forked ones in FORK order.  Errors stop
    a task's scan quietly; the import reports them.

--*/
{
    ULONG Number;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        if (Task->Fork == 0 && Task->Data.Data != NULL) {
            ScanTask(Reader, Task);
        }
    }
    for (Number = 0; Number < Reader->ForkCount; Number++) {
        PUFTRACE_FORK Fork = &Reader->Forks[Number];
        PUFTRACE_TASK Task = Fork->Task ? &Reader->Tasks[Fork->Task - 1] :
                                          NULL;

        if (Task != NULL && !Task->Scanned && Task->Data.Data != NULL) {
            ScanTask(Reader, Task);
        }
    }

    ScanPerfEnd(Reader);
    ScanInheritedEnds(Reader);
}

BOOL
UftraceDetect(
    PTRACE_IMPORT Import
    )
{
    PRTL Rtl = Import->Rtl;
    CHAR Path[UFTRACE_PATH_SIZE];
    BYTE Magic[UFTRACE_MAGIC_LENGTH];
    HANDLE Handle;
    SIZE_T Read = 0;
    BOOL Match = FALSE;

    if (!Import->IsDirectory ||
        RtlFormat(Path, sizeof(Path), "%s/info", Import->Path) >=
            sizeof(Path) - 1 ||
        !RTL_SUCCESS(Rtl->OpenFile(Rtl, Path, RtlOpenReadOnly, &Handle))) {
        return FALSE;
    }

    if (RTL_SUCCESS(Rtl->ReadFile(Rtl, Handle, 0, Magic, sizeof(Magic),
                                  &Read)) &&
        Read == sizeof(Magic) &&
        Rtl->CompareMemory(Magic, "Ftrace!\0", sizeof(Magic)) == 0) {
        Match = TRUE;
    }
    Rtl->CloseFile(Rtl, Handle);

    return Match;
}

RTL_STATUS
UftraceImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports the uftrace record directory Import->Path.  Call between
    TraceImportBegin and TraceImportEnd.

Return Value:

    RTL_STATUS_OK, or an error in Import->Error naming the file and the
    line or byte offset; records before it have been imported.

--*/
{
    PRTL Rtl = Import->Rtl;
    PUFTRACE_READER Reader;
    RTL_STATUS Status;
    PVOID Address;
    ULONG Number;

    if (!Import->IsDirectory) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: not a uftrace record directory",
                           Import->Path);
    }

    Status = Rtl->AllocatePages(Rtl, sizeof(UFTRACE_READER), &Address);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader = (PUFTRACE_READER)Address;
    Reader->Import = Import;
    Reader->Rtl = Rtl;

    Status = TraceHashInitialize(Rtl, &Reader->TaskIndex);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader->SpecIndex);
    }
    if (RTL_SUCCESS(Status)) {
        Reader->PatternWorkspaceSize =
            (SIZE_T)ALIGN_UP(UftracePatternWorkspaceSize(), RTL_PAGE_SIZE);
        Status = Rtl->AllocatePages(Rtl, Reader->PatternWorkspaceSize,
                                    &Reader->PatternWorkspace);
        if (!RTL_SUCCESS(Status)) {
            Reader->PatternWorkspace = NULL;
        }
    }
    if (!RTL_SUCCESS(Status)) {
        RtlSetError(&Import->Error, Status, 0, 0, "%s: %s", Import->Path,
                    RtlStatusText(Status));
        goto End;
    }

    Status = ReadInfo(Reader);
    if (RTL_SUCCESS(Status)) {
        Status = ReadTasks(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = ReadModules(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = MapTasks(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = MapPerfFiles(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = InternNames(Reader);
    }
    if (RTL_SUCCESS(Status)) {
        Status = SetupForks(Reader);
    }
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    //
    // The scan: exits without entries, fork and exec.  It stops quietly at
    // bad data, which the import pass reaches and reports.
    //

    ScanTasks(Reader);
    Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);
    Reader->BytesRead = 0;

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        PUFTRACE_TASK Task = &Reader->Tasks[Number];

        Task->UserDepth = 0;
        Task->SchedDepth = 0;
        Task->Program = 0;
        Task->CutTime = 0;
    }

    Status = TraceImportSpanScanDone(Import);
    for (Number = 0; RTL_SUCCESS(Status) && Number < Reader->SessionCount;
         Number++) {
        PUFTRACE_SESSION Session = &Reader->Sessions[Number];

        Status = TraceImportProcessExec(Import, Session->Timestamp,
                                        Session->Pid, Session->NameId,
                                        Session->FileNameId);
        if (RTL_SUCCESS(Status)) {
            Status = ImportModules(Reader, Session);
        }
    }
    if (RTL_SUCCESS(Status)) {
        Status = MergeTasks(Reader);
    }

End:
    for (Number = 0; Number < Reader->TaskCount; Number++) {
        UnmapFile(Reader, &Reader->Tasks[Number].Data);
    }
    for (Number = 0; Number < Reader->PerfCount; Number++) {
        UnmapFile(Reader, &Reader->Perf[Number].Data);
    }
    for (Number = 0; Number < Reader->ModuleCount; Number++) {
        PUFTRACE_MODULE Module = &Reader->Modules[Number];

        UnmapFile(Reader, &Module->Symbols);
        UnmapFile(Reader, &Module->Debug);
        if (Module->Functions != NULL) {
            Rtl->Unmap(Rtl, Module->Functions, Module->DebugArraySize);
        }
    }
    for (Number = 0; Number < Reader->SessionCount; Number++) {
        UnmapFile(Reader, &Reader->Sessions[Number].Map);
    }
    if (Reader->Modules != NULL) {
        Rtl->Unmap(Rtl, Reader->Modules,
                   Reader->ModuleCapacity * sizeof(UFTRACE_MODULE));
    }
    if (Reader->Perf != NULL) {
        Rtl->Unmap(Rtl, Reader->Perf, Reader->PerfSize);
    }
    if (Reader->MergeMemory != NULL) {
        Rtl->Unmap(Rtl, Reader->MergeMemory, Reader->MergeMemorySize);
    }
    if (Reader->NamePool != NULL) {
        Rtl->Unmap(Rtl, Reader->NamePool, Reader->NamePoolSize);
    }
    while (Reader->Arena != NULL) {
        PUFTRACE_ARENA_BLOCK Block = Reader->Arena;

        Reader->Arena = Block->Next;
        Rtl->Unmap(Rtl, Block, Block->Size);
    }
    if (Reader->PatternWorkspace != NULL) {
        Rtl->Unmap(Rtl, Reader->PatternWorkspace,
                   Reader->PatternWorkspaceSize);
    }
    UnmapFile(Reader, &Reader->TaskText);
    UnmapFile(Reader, &Reader->Info);
    TraceHashDestroy(&Reader->TaskIndex);
    TraceHashDestroy(&Reader->SpecIndex);
    if (Reader->Arrays != NULL) {
        Rtl->Unmap(Rtl, Reader->Arrays, Reader->ArraysSize);
    }
    Rtl->Unmap(Rtl, Reader, sizeof(UFTRACE_READER));

    return Status;
}
