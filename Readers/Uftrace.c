/*++

Module Name:

    Uftrace.c

Abstract:

    This module decodes a uftrace record directory (`uftrace record`):

        info            "Ftrace!\0", version (3 or 4), header size,
                        endianness, class, feature and info masks, then
                        the info text (not needed here)
        task.txt        SESS lines (a process image: pid, session id,
                        executable) and TASK lines (tid, pid)
        TID.dat         the task's records, 16 bytes each:
                            u64 time (ns)
                            u64 type:2 more:1 magic:3 depth:10 addr:48
                        type 0 entry, 1 exit, 2 lost, 3 event; magic 5.
                        With `more`, data follows: for an event a u16
                        length and the bytes, padded to 8; for an entry
                        (arguments) or exit (return value) data whose size
                        only the record-time argument specs imply, padded
                        to 8 (see NextRecord)
        sid-SID.map     the session's modules (/proc/PID/maps lines), also
                        imported into the `module` store
        NAME.sym        a module's symbols, "ADDRESS TYPE NAME" sorted by
                        address, relative to the module's start when the
                        SYM_REL_ADDR feature is set

    Entries and exits become spans (the shared span builder nests them per
    thread), named by the symbol that contains the address, or <ADDRESS>
    like uftrace when there is none.  The tasks' files are merged in time
    order (a heap of one cursor per task), so a directory gives a sorted
    span store.  Before the import, each task is scanned once for exits
    without an entry (the recording began inside those calls), which the
    span builder opens first, at the trace's first ts.

    Not imported: event records (read triggers, SDT), perf-cpu*.dat
    (uftrace's schedule events) and the kernel/ directory.  Lost records
    add their count to the span store's dropped count.

    Every file is mapped through the RTL, so memory does not grow with the
    trace: per task a cursor, per module a mapped symbol table searched in
    place (binary search over its sorted lines), and a fixed cache of
    recently named addresses.

--*/

#include "TraceImport.h"

#define UFTRACE_MAGIC_LENGTH    8
#define UFTRACE_HEADER_MINIMUM  40
#define UFTRACE_RECORD_SIZE     16
#define UFTRACE_RECORD_MAGIC    5

#define UFTRACE_ENTRY           0
#define UFTRACE_EXIT            1
#define UFTRACE_LOST            2
#define UFTRACE_EVENT           3

#define UFTRACE_FEAT_SYM_REL_ADDR (1ULL << 5)

//
// libmcount saves at most ARGBUF_SIZE (1024) bytes of arguments per call;
// the reader looks this far for the record that follows them.
//

#define UFTRACE_ARGUMENTS_LIMIT 4096

#define UFTRACE_SYMBOL_CACHE    4096
#define UFTRACE_PATH_SIZE       4096
#define UFTRACE_NAME_SIZE       64
#define UFTRACE_MAX_FORK_DEPTH  64

typedef struct _UFTRACE_FILE {
    const BYTE *Data;
    SIZE_T Length;
} UFTRACE_FILE, *PUFTRACE_FILE;

typedef struct _UFTRACE_MODULE {
    ULONGLONG Start;
    ULONGLONG End;
    UFTRACE_FILE Symbols;       // NAME.sym, or no data
    SIZE_T FirstSymbol;         // offset of the first symbol line
} UFTRACE_MODULE, *PUFTRACE_MODULE;

typedef struct _UFTRACE_SESSION {
    LONGLONG Timestamp;
    ULONG Pid;
    ULONG NameId;               // basename of the executable
    ULONG FileNameId;           // the executable's path
    ULONG FirstModule;
    ULONG ModuleCount;
    ULONG Padding;
    CHAR Sid[20];
    UFTRACE_FILE Map;
} UFTRACE_SESSION, *PUFTRACE_SESSION;

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

    //
    // The session of the last record, valid for times in [From, Until).
    //

    ULONG Session;
    ULONG Module;               // last module found + 1, or 0
    LONGLONG SessionFrom;
    LONGLONG SessionUntil;
} UFTRACE_TASK, *PUFTRACE_TASK;

typedef struct _UFTRACE_FORK {
    ULONG Pid;
    ULONG ParentPid;
} UFTRACE_FORK, *PUFTRACE_FORK;

typedef struct _UFTRACE_SYMBOL_CACHE_ENTRY {
    ULONGLONG Address;          // + 1, 0 when empty
    ULONG Session;
    ULONG NameId;
} UFTRACE_SYMBOL_CACHE_ENTRY, *PUFTRACE_SYMBOL_CACHE_ENTRY;

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
    ULONG Padding2;
    PUFTRACE_FORK Forks;
    PULONG Heap;
    ULONG HeapCount;
    ULONG Padding;
    PUFTRACE_SYMBOL_CACHE_ENTRY Cache;
    SIZE_T ArraysSize;          // bytes of the one allocation above
    PVOID Arrays;
    TRACE_HASH_TABLE TaskIndex;     // tid + 1 -> task number
    ULONGLONG BytesRead;
    CHAR Path[UFTRACE_PATH_SIZE];
} UFTRACE_READER, *PUFTRACE_READER;

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

//
// ---------------------------------------------------------------------------
// info and task.txt
// ---------------------------------------------------------------------------
//

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

    Reader->Features = Load64(Data + 16);
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
           Tasks * sizeof(ULONG) +
           UFTRACE_SYMBOL_CACHE * sizeof(UFTRACE_SYMBOL_CACHE_ENTRY) + 64;
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
    Reader->Sessions = (PUFTRACE_SESSION)Arrays;
    Arrays += Sessions * sizeof(UFTRACE_SESSION);
    Reader->Tasks = (PUFTRACE_TASK)Arrays;
    Arrays += Tasks * sizeof(UFTRACE_TASK);
    Reader->Forks = (PUFTRACE_FORK)Arrays;
    Arrays += Forks * sizeof(UFTRACE_FORK);
    Reader->Heap = (PULONG)Arrays;

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

            Session->Timestamp = Timestamp;
            Session->Pid = (ULONG)Pid;
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
            Fork->Pid = (ULONG)Pid;
            Fork->ParentPid = (ULONG)Value;
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
    Modules of all sessions live in one array, each session a slice.

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
                Rtl->FillMemory(Module, sizeof(*Module), 0);
                Module->Start = First;
                Module->End = Last;
                Reader->ModuleCount++;
                Session->ModuleCount++;

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
FindSession(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    LONGLONG Time
    )
/*++

Routine Description:

    The session (process image) of a task at Time: the latest session of
    its process begun by Time (an exec starts a new one), else its
    process's first; a forked process without its own session uses its
    parent's.  Remembered per task for the times it stays valid.

--*/
{
    ULONG Pid = Task->Pid;
    ULONG Depth;
    ULONG Number;

    if (Task->SessionUntil != 0 && Time >= Task->SessionFrom &&
        Time < Task->SessionUntil) {
        return Task->Session;
    }

    for (Depth = 0; Depth < UFTRACE_MAX_FORK_DEPTH; Depth++) {
        ULONG Best = ~0u;
        ULONG Earliest = ~0u;
        LONGLONG Until = 0x7fffffffffffffffLL;
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

        if (Best == ~0u) {
            Best = Earliest;
        } else {
            From = Reader->Sessions[Best].Timestamp;
        }

        if (Best != ~0u) {
            Task->Session = Best;
            Task->SessionFrom = From;
            Task->SessionUntil = Until;
            Task->Module = 0;
            return Best;
        }

        for (Number = 0; Number < Reader->ForkCount; Number++) {
            if (Reader->Forks[Number].Pid == Pid) {
                break;
            }
        }
        if (Number == Reader->ForkCount) {
            break;
        }
        Pid = Reader->Forks[Number].ParentPid;
    }

    Task->Session = 0;
    Task->SessionFrom = (LONGLONG)0x8000000000000000ULL;
    Task->SessionUntil = 0x7fffffffffffffffLL;
    Task->Module = 0;
    return 0;
}

static
BOOL
FindSymbol(
    PUFTRACE_MODULE Module,
    ULONGLONG Address,
    PCSZ *Name,
    PCSZ *NameEnd
    )
/*++

Routine Description:

    Bisects the module's sorted symbol lines for the last symbol at or
    below Address.  FALSE when there is none, or it is one of uftrace's
    end markers (type '?': past the functions).

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
        return FALSE;
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

    if (Found == NULL) {
        return FALSE;
    }

    {
        PCSZ LineEnd = TextFindChar(Found, Start + Module->Symbols.Length,
                                    '\n');
        ULONGLONG LineAddress;
        CHAR Type;
        PCSZ Text = ParseSymbolLine(Found, LineEnd, &LineAddress, &Type);

        if (Text == NULL || Type == '?') {
            return FALSE;
        }
        *Name = Text;
        *NameEnd = TextTrimEnd(Text, LineEnd);
        return *NameEnd > Text;
    }
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
    PUFTRACE_SESSION Session = &Reader->Sessions[SessionNumber];
    PUFTRACE_SYMBOL_CACHE_ENTRY Entry;
    PUFTRACE_MODULE Module = NULL;
    PCSZ Name;
    PCSZ NameEnd;
    CHAR Unknown[UFTRACE_NAME_SIZE];
    ULONG Slot;
    ULONG Number;
    RTL_STATUS Status;

    Slot = (ULONG)((Address ^ (Address >> 12) ^ (SessionNumber * 0x9E37u)) %
                   UFTRACE_SYMBOL_CACHE);
    Entry = &Reader->Cache[Slot];
    if (Entry->Address == Address + 1 && Entry->Session == SessionNumber) {
        *NameId = Entry->NameId;
        return RTL_STATUS_OK;
    }

    if (Task->Module != 0) {
        Module = &Reader->Modules[Task->Module - 1];
        if (Address < Module->Start || Address >= Module->End) {
            Module = NULL;
        }
    }
    for (Number = 0; Module == NULL && Number < Session->ModuleCount;
         Number++) {
        PUFTRACE_MODULE Candidate =
            &Reader->Modules[Session->FirstModule + Number];

        if (Address >= Candidate->Start && Address < Candidate->End) {
            Module = Candidate;
            Task->Module = Session->FirstModule + Number + 1;
        }
    }

    if (Module != NULL &&
        FindSymbol(Module,
                   (Reader->Features & UFTRACE_FEAT_SYM_REL_ADDR) ?
                       Address - Module->Start : Address,
                   &Name, &NameEnd)) {
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
BOOL
InModule(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    ULONGLONG Address
    )
{
    PUFTRACE_SESSION Session = &Reader->Sessions[Task->Session];
    ULONG Number;

    if (Session->ModuleCount == 0) {
        return TRUE;
    }
    for (Number = 0; Number < Session->ModuleCount; Number++) {
        PUFTRACE_MODULE Module = &Reader->Modules[Session->FirstModule +
                                                  Number];

        if (Address >= Module->Start && Address < Module->End) {
            return TRUE;
        }
    }
    return FALSE;
}

static
BOOL
ContinuesAfterArguments(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task,
    const BYTE *Candidate
    )
/*++

Routine Description:

    Whether the 16 bytes at Candidate can be the record that follows the
    current one (which carries arguments or a return value): the record
    magic, a time not before the current record's, a call depth next to
    its depth, and for entries and exits an address in a module of the
    task's process.

--*/
{
    ULONGLONG Time = Load64(Candidate);
    ULONGLONG Word = Load64(Candidate + 8);
    ULONG Type = (ULONG)(Word & 3);
    ULONG Depth = (ULONG)((Word >> 6) & 0x3ff);
    BOOL More = (BOOL)((Word >> 2) & 1);

    if (((Word >> 3) & 7) != UFTRACE_RECORD_MAGIC) {
        return FALSE;
    }

    switch (Type) {
    case UFTRACE_ENTRY:
    case UFTRACE_EXIT:
        if ((LONGLONG)Time < Task->Time ||
            Depth + 1 < Task->Depth || Depth > Task->Depth + 1) {
            return FALSE;
        }
        return InModule(Reader, Task, Word >> 16);

    case UFTRACE_LOST:

        //
        // libmcount writes a lost record with time 0, no data, and the
        // number of records lost as its address.
        //

        return !More && (Time == 0 || (LONGLONG)Time >= Task->Time) &&
               (Word >> 16) <= 0xffffffffULL;

    default:

        //
        // Events have depth 0 and an event id as their address.
        //

        return (LONGLONG)Time >= Task->Time && Depth == 0 &&
               (Word >> 16) <= 0xffffffffULL;
    }
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
    file), skipping the data that follows a record with `more` set.

    An event's data says its size (a u16 before it).  Arguments and return
    values do not: their size follows from the argument specs given to
    `uftrace record` (patterns over function names, and the debug info for
    -a), which this reader does not evaluate.  Their data is padded to 8
    bytes and at most libmcount's argument buffer long, so the next record
    is the first 8-byte-aligned position within that bound whose bytes
    continue the task's stream (see ContinuesAfterArguments); arguments at
    the end of the file simply end it.

--*/
{
    const BYTE *Data = Task->Data.Data;
    SIZE_T Length = Task->Data.Length;
    SIZE_T Offset = Task->Offset;
    ULONGLONG Word;
    LONGLONG Time;

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
            FindSession(Reader, Task, Task->Time);
            for (Skip = 0; ; Skip += 8) {
                if (Length - Offset - Skip < UFTRACE_RECORD_SIZE) {
                    Skip = Length - Offset;
                    if (Skip > UFTRACE_ARGUMENTS_LIMIT || (Skip & 7) != 0) {
                        return RecordError(Reader, Task, Offset,
                                           "truncated argument data");
                    }
                    break;
                }
                if (Skip > UFTRACE_ARGUMENTS_LIMIT) {
                    return RecordError(Reader, Task, Offset,
                                       "no record after the argument data "
                                       "within 4096 bytes");
                }
                if (ContinuesAfterArguments(Reader, Task,
                                            Data + Offset + Skip)) {
                    break;
                }
            }
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
    PTRACE_EVENT_CONTEXT Context
    )
{
    ULONG Session = FindSession(Reader, Task, Task->Time);

    Context->Timestamp = Task->Time;
    Context->Tid = Task->Tid;
    Context->Pid = Task->Pid;
    Context->Cpu = TRACE_NULL_ULONG;
    Context->CommId = Reader->Sessions[Session].NameId;
    Context->FlagsId = TRACE_NULL_ULONG;
    Context->Padding = 0;
}

static
RTL_STATUS
ScanTask(
    PUFTRACE_READER Reader,
    PUFTRACE_TASK Task
    )
/*++

Routine Description:

    The first pass over one task: exits without an entry, and the time
    span.  It stops quietly at bad data, which the import pass reports.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    TRACE_EVENT_CONTEXT Context;
    RTL_STATUS Status = RTL_STATUS_OK;
    BOOL Unmatched;
    ULONG NameId;

    for (;;) {
        Status = NextRecord(Reader, Task);
        if (!RTL_SUCCESS(Status) || Task->Done) {
            break;
        }

        FillContext(Reader, Task, &Context);
        if (Task->Type == UFTRACE_ENTRY) {
            Status = TraceImportSpanScanBegin(Import, &Context);
        } else if (Task->Type == UFTRACE_EXIT) {
            Status = TraceImportSpanScanEnd(Import, &Context, &Unmatched);
            if (RTL_SUCCESS(Status) && Unmatched) {
                Status = SymbolName(Reader, Task, Task->Time, Task->Address,
                                    &NameId);
                if (RTL_SUCCESS(Status)) {
                    TraceImportSpanScanUnmatched(Import, NameId,
                                                 TRACE_NULL_ULONG,
                                                 TRACE_NULL_ULONG);
                }
            }
        } else {
            TraceImportSpanScanTime(Import, Task->Time);
        }
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }

    Task->Offset = 0;
    Task->Discarded = 0;
    Task->Done = FALSE;
    Task->Time = 0;
    Task->Depth = 0;
    return Status;
}

//
// ---------------------------------------------------------------------------
// The merge
// ---------------------------------------------------------------------------
//

static
BOOL
HeapBefore(
    PUFTRACE_READER Reader,
    ULONG Left,
    ULONG Right
    )
{
    PUFTRACE_TASK A = &Reader->Tasks[Left];
    PUFTRACE_TASK B = &Reader->Tasks[Right];

    return A->Time < B->Time || (A->Time == B->Time && Left < Right);
}

static
VOID
HeapSiftDown(
    PUFTRACE_READER Reader,
    ULONG Position
    )
{
    PULONG Heap = Reader->Heap;

    for (;;) {
        ULONG Smallest = Position;
        ULONG Left = 2 * Position + 1;
        ULONG Right = Left + 1;
        ULONG Swap;

        if (Left < Reader->HeapCount &&
            HeapBefore(Reader, Heap[Left], Heap[Smallest])) {
            Smallest = Left;
        }
        if (Right < Reader->HeapCount &&
            HeapBefore(Reader, Heap[Right], Heap[Smallest])) {
            Smallest = Right;
        }
        if (Smallest == Position) {
            return;
        }
        Swap = Heap[Position];
        Heap[Position] = Heap[Smallest];
        Heap[Smallest] = Swap;
        Position = Smallest;
    }
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
    ULONG NameId;

    Import->EventOffset = Task->RecordOffset;
    FillContext(Reader, Task, &Context);

    switch (Task->Type) {
    case UFTRACE_ENTRY:
        Status = SymbolName(Reader, Task, Task->Time, Task->Address, &NameId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportSpanBegin(Import, &Context, NameId,
                                          TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        }
        break;

    case UFTRACE_EXIT:
        Status = SymbolName(Reader, Task, Task->Time, Task->Address, &NameId);
        if (RTL_SUCCESS(Status)) {
            Status = TraceImportSpanEnd(Import, &Context, NameId,
                                        TRACE_NULL_ULONG, TRACE_NULL_ULONG);
        }
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
MergeTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Imports every task's records in time order: a binary heap of the tasks
    keyed by the time of their current record (ties in task.txt order).

--*/
{
    RTL_STATUS Status;
    ULONG Number;

    Reader->HeapCount = 0;
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
            Reader->Heap[Reader->HeapCount++] = Number;
        }
    }

    for (Number = Reader->HeapCount / 2; Number-- != 0; ) {
        HeapSiftDown(Reader, Number);
    }

    while (Reader->HeapCount != 0) {
        PUFTRACE_TASK Task = &Reader->Tasks[Reader->Heap[0]];

        Status = ImportRecord(Reader, Task);
        if (RTL_SUCCESS(Status)) {
            Status = NextRecord(Reader, Task);
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        if (Task->Done) {
            Reader->Heap[0] = Reader->Heap[--Reader->HeapCount];
        }
        HeapSiftDown(Reader, 0);
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
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    //
    // The scan: exits without entries, per task.  It stops quietly at bad
    // data, which the import pass reaches and reports.
    //

    for (Number = 0; Number < Reader->TaskCount; Number++) {
        if (Reader->Tasks[Number].Data.Data != NULL) {
            ScanTask(Reader, &Reader->Tasks[Number]);
        }
    }
    Rtl->FillMemory(&Import->Error, sizeof(Import->Error), 0);
    Reader->BytesRead = 0;

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
    for (Number = 0; Number < Reader->ModuleCount; Number++) {
        UnmapFile(Reader, &Reader->Modules[Number].Symbols);
    }
    for (Number = 0; Number < Reader->SessionCount; Number++) {
        UnmapFile(Reader, &Reader->Sessions[Number].Map);
    }
    if (Reader->Modules != NULL) {
        Rtl->Unmap(Rtl, Reader->Modules,
                   Reader->ModuleCapacity * sizeof(UFTRACE_MODULE));
    }
    UnmapFile(Reader, &Reader->TaskText);
    UnmapFile(Reader, &Reader->Info);
    TraceHashDestroy(&Reader->TaskIndex);
    if (Reader->Arrays != NULL) {
        Rtl->Unmap(Rtl, Reader->Arrays, Reader->ArraysSize);
    }
    Rtl->Unmap(Rtl, Reader, sizeof(UFTRACE_READER));

    return Status;
}
