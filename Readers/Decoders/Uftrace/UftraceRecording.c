/*++

Module Name:

    UftraceRecording.c

Abstract:

    The files of a uftrace record directory that describe the recording
    (see Uftrace.c for the directory's layout):

        info            "Ftrace!\0", version (3 or 4), header size,
                        endianness, class, feature and info masks, then
                        the info text: argspec/retspec (the -A/-R specs),
                        argauto/retauto/enumauto (the auto-args tables),
                        auto-args, pattern_type
        task.txt        SESS lines (a process image: pid, session id,
                        executable), TASK lines (tid, pid), FORK lines

    and the session (process image) each task runs at a given time: exec
    starts a new session of the same process, and a forked process runs
    its parent's image until it has one of its own.  Also the mapping of
    any file of the directory, for the reader's other files.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by the other
    Uftrace*.c files (UftraceReader.h); calls TextParse.h, TraceHash and
    TraceImportIntern.

--*/

#include "UftraceRecording.h"

RTL_STATUS
UftraceMapFile(
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

VOID
UftraceUnmapFile(
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

RTL_STATUS
UftraceFileError(
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

//
// ---------------------------------------------------------------------------
// info
// ---------------------------------------------------------------------------
//

static
BOOL
LineStartsWithKey(
    PCSZ Start,
    PCSZ End,
    PCSZ Key,
    PTEXT_SPAN Value
    )
{
    if (!TextStartsWith(Start, End, Key)) {
        return FALSE;
    }
    Value->Start = Start + RtlStringLength(Key);
    Value->End = End;
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
        TEXT_SPAN Value;

#define INFO_KEY(Key) (LineStartsWithKey(Cursor, LineEnd, Key, &Value))

        if (INFO_KEY("argspec:")) {
            if (!TextStartsWith(Value.Start, LineEnd, "lines=")) {
                Reader->ArgSpec = Value.Start;
                Reader->ArgSpecEnd = LineEnd;
            }
        } else if (INFO_KEY("retspec:")) {
            Reader->RetSpec = Value.Start;
            Reader->RetSpecEnd = LineEnd;
        } else if (INFO_KEY("argauto:")) {
            Reader->ArgAuto = Value.Start;
            Reader->ArgAutoEnd = LineEnd;
        } else if (INFO_KEY("retauto:")) {
            Reader->RetAuto = Value.Start;
            Reader->RetAutoEnd = LineEnd;
        } else if (INFO_KEY("enumauto:")) {
            Reader->EnumAuto = Value.Start;
            Reader->EnumAutoEnd = LineEnd;
        } else if (INFO_KEY("auto-args:")) {
            Reader->AutoArgs = TextSpanEquals(Value, "1");
        } else if (INFO_KEY("pattern_type:")) {
            if (TextSpanEquals(Value, "glob")) {
                Reader->PatternType = UFTRACE_PATTERN_GLOB;
            } else if (TextSpanEquals(Value, "simple")) {
                Reader->PatternType = UFTRACE_PATTERN_SIMPLE;
            }
        }

#undef INFO_KEY

        Cursor = LineEnd + 1;
    }
}

RTL_STATUS
UftraceReadInfo(
    PUFTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Data;
    ULONG Version;
    ULONG HeaderSize;
    RTL_STATUS Status;

    Status = UftraceMapFile(Reader, "info", 4, &Reader->Info);
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

//
// ---------------------------------------------------------------------------
// task.txt
// ---------------------------------------------------------------------------
//

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
AllocateArrays(
    PUFTRACE_READER Reader,
    ULONG Sessions,
    ULONG Tasks,
    ULONG Forks
    )
/*++

Routine Description:

    One allocation for the arrays whose sizes task.txt gives: sessions,
    tasks, forks, and the fixed symbol cache.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    RTL_STATUS Status;
    PBYTE Arrays;
    SIZE_T Size;

    Size = Sessions * sizeof(UFTRACE_SESSION) +
           Tasks * sizeof(UFTRACE_TASK) + Forks * sizeof(UFTRACE_FORK) +
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
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReadSessionLine(
    PUFTRACE_READER Reader,
    ULONG Line,
    PCSZ Cursor,
    PCSZ LineEnd
    )
/*++

Routine Description:

    "SESS timestamp=S.NS pid=P sid=SID exename="PATH"": a process image.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    PUFTRACE_SESSION Session = &Reader->Sessions[Reader->SessionCount];
    TEXT_SPAN Sid;
    PCSZ Exe;
    PCSZ ExeEnd;
    ULONGLONG Pid;
    LONGLONG Timestamp;
    RTL_STATUS Status;

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

        Status = TraceImportIntern(Import, Base, (ULONG)(ExeEnd - Base),
                                   &Session->NameId);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Reader->SessionCount++;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReadTaskLine(
    PUFTRACE_READER Reader,
    ULONG Line,
    PCSZ Cursor,
    PCSZ LineEnd
    )
/*++

Routine Description:

    "TASK timestamp=S.NS tid=T pid=P": a thread, once per tid.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PUFTRACE_TASK Task = &Reader->Tasks[Reader->TaskCount];
    ULONGLONG Probe = 0;
    ULONGLONG Number;
    ULONGLONG Tid;
    ULONGLONG Pid;
    LONGLONG Timestamp;
    RTL_STATUS Status;

    if (!FieldTime(Cursor, LineEnd, &Timestamp) ||
        !FieldNumber(Cursor, LineEnd, "tid=", FALSE, &Tid) ||
        !FieldNumber(Cursor, LineEnd, "pid=", FALSE, &Pid) ||
        Tid >= TRACE_NULL_ULONG || Pid >= TRACE_NULL_ULONG) {
        return TaskLineError(Reader, Line, Cursor,
                             "TASK line without timestamp=, tid= "
                             "and pid=");
    }

    //
    // A task that execs is listed again (in its new session); its
    // records stay in one file.
    //

    if (!TraceHashFind(&Reader->TaskIndex, Tid + 1, &Probe, &Number)) {
        Status = TraceHashInsert(&Reader->TaskIndex, Tid + 1,
                                 Reader->TaskCount);
        if (!RTL_SUCCESS(Status)) {
            return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                               Import->Path, RtlStatusText(Status));
        }
        Reader->Rtl->FillMemory(Task, sizeof(*Task), 0);
        Task->Tid = (ULONG)Tid;
        Task->Pid = (ULONG)Pid;
        Reader->TaskCount++;
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReadForkLine(
    PUFTRACE_READER Reader,
    ULONG Line,
    PCSZ Cursor,
    PCSZ LineEnd
    )
/*++

Routine Description:

    "FORK timestamp=S.NS pid=P ppid=PP": a process made by fork.

--*/
{
    PUFTRACE_FORK Fork = &Reader->Forks[Reader->ForkCount];
    ULONGLONG Pid;
    ULONGLONG ParentPid;

    if (!FieldNumber(Cursor, LineEnd, "pid=", FALSE, &Pid) ||
        !FieldNumber(Cursor, LineEnd, "ppid=", FALSE, &ParentPid)) {
        return TaskLineError(Reader, Line, Cursor,
                             "FORK line without pid= and ppid=");
    }
    Reader->Rtl->FillMemory(Fork, sizeof(*Fork), 0);
    if (!FieldTime(Cursor, LineEnd, &Fork->Timestamp)) {
        Fork->Timestamp = 0;
    }
    Fork->Pid = (ULONG)Pid;
    Fork->ParentPid = (ULONG)ParentPid;
    Reader->ForkCount++;
    return RTL_STATUS_OK;
}

RTL_STATUS
UftraceReadTasks(
    PUFTRACE_READER Reader
    )
/*++

Routine Description:

    Reads task.txt twice: to count its lines, then (after one allocation
    for every array of the reader) to fill sessions, tasks and forks.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PCSZ Start;
    PCSZ End;
    PCSZ Cursor;
    ULONG Line;
    ULONG Sessions = 0;
    ULONG Tasks = 0;
    ULONG Forks = 0;
    RTL_STATUS Status;

    Status = UftraceMapFile(Reader, "task.txt", 8, &Reader->TaskText);
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

        if (TextStartsWith(Cursor, LineEnd, "SESS ")) {
            Sessions++;
        } else if (TextStartsWith(Cursor, LineEnd, "TASK ")) {
            Tasks++;
        } else if (TextStartsWith(Cursor, LineEnd, "FORK ")) {
            Forks++;
        }
        Cursor = LineEnd + 1;
    }

    if (Sessions == 0) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s/task.txt: no SESS line", Import->Path);
    }

    Status = AllocateArrays(Reader, Sessions, Tasks, Forks);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Line = 0;
    for (Cursor = Start; Cursor < End; ) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');

        Line++;
        if (TextStartsWith(Cursor, LineEnd, "SESS ")) {
            Status = ReadSessionLine(Reader, Line, Cursor, LineEnd);
        } else if (TextStartsWith(Cursor, LineEnd, "TASK ")) {
            Status = ReadTaskLine(Reader, Line, Cursor, LineEnd);
        } else if (TextStartsWith(Cursor, LineEnd, "FORK ")) {
            Status = ReadForkLine(Reader, Line, Cursor, LineEnd);
        } else if (Cursor < LineEnd &&
                   !TextStartsWith(Cursor, LineEnd, "DLOP ")) {
            Status = TaskLineError(Reader, Line, Cursor,
                                   "not a SESS, TASK, FORK or DLOP line");
        }
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }

        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
}

//
// ---------------------------------------------------------------------------
// Sessions
// ---------------------------------------------------------------------------
//

ULONG
UftraceFindSessionSlow(
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
