/*++

Module Name:

    UftraceSymbols.c

Abstract:

    The modules of each session and their symbols:

        sid-SID.map     the session's modules (/proc/PID/maps lines), also
                        imported into the `module` store
        NAME.sym        a module's symbols, "ADDRESS TYPE NAME" sorted by
                        address, relative to the module's start when the
                        SYM_REL_ADDR feature is set

    A symbol file stays mapped and is searched in place (a binary search
    over its sorted lines); a fixed cache keeps the names of the addresses
    named last.  An address no symbol covers is named <ADDRESS>, as
    uftrace names it.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by Uftrace.c,
    UftraceSpecs.c, UftraceRecords.c and UftraceScan.c (UftraceReader.h); calls
    UftraceRecording.c (files, sessions), TextParse.h and TraceImport.h's
    interning and module lines.

--*/

#include "UftraceRecording.h"

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

RTL_STATUS
UftraceMapModuleFile(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module,
    PCSZ Extension,
    PUFTRACE_FILE File,
    PCHAR Name,
    PULONG NameLength
    )
/*++

Routine Description:

    Maps BASENAME.Extension of a module ("sym", "dbg"), if the directory
    has it, and checks that it was not cut (its last line ends).

Arguments:

    File - Receives the mapping; no data when there is no such file, or
        it is empty.

    Name - Receives the file's name (UFTRACE_PATH_SIZE bytes), for
        messages, and NameLength its length.

--*/
{
    PCSZ PathEnd = Module->Path + Module->PathLength;
    PCSZ Base = BaseName(Module->Path, PathEnd);
    RTL_STATUS Status;

    *NameLength = (ULONG)RtlFormat(Name, UFTRACE_PATH_SIZE, "%.*s.%s",
                                   (int)(PathEnd - Base), Base, Extension);
    Status = UftraceMapFile(Reader, Name, *NameLength, File);
    if (Status == RTL_STATUS_NOT_FOUND) {
        return RTL_STATUS_OK;
    }
    if (!RTL_SUCCESS(Status) || File->Data == NULL) {
        return Status;
    }

    if (File->Data[File->Length - 1] != '\n') {
        return UftraceFileError(Reader, Name, *NameLength, File->Length,
                                "last line has no newline (file cut off?)");
    }
    return RTL_STATUS_OK;
}

static
RTL_STATUS
LoadSymbols(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module
    )
/*++

Routine Description:

    Maps BASENAME.sym for a module, if the directory has it, and checks in
    one pass that its lines parse and are sorted by address, so that the
    lookups can bisect it in place.

--*/
{
    CHAR Name[UFTRACE_PATH_SIZE];
    ULONG NameLength;
    PCSZ Start;
    PCSZ End;
    PCSZ Cursor;
    ULONGLONG Previous = 0;
    RTL_STATUS Status;

    Status = UftraceMapModuleFile(Reader, Module, "sym", &Module->Symbols,
                                  Name, &NameLength);
    if (!RTL_SUCCESS(Status) || Module->Symbols.Data == NULL) {
        return Status;
    }

    Start = (PCSZ)Module->Symbols.Data;
    End = Start + Module->Symbols.Length;

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
            return UftraceFileError(Reader, Name, NameLength,
                                    (SIZE_T)(Cursor - Start),
                                    "not an \"ADDRESS TYPE NAME\" line");
        }
        if (Address < Previous) {
            return UftraceFileError(Reader, Name, NameLength,
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
ReadMapLine(
    PUFTRACE_READER Reader,
    PUFTRACE_SESSION Session,
    PCSZ Line,
    PCSZ LineEnd
    )
/*++

Routine Description:

    One line of sid-SID.map, "START-END PERMS OFFSET DEV INODE PATH
    [build-id:...]": a module of the session, with its symbols, unless
    the path is empty or a [name] (the stack, vdso).

--*/
{
    PRTL Rtl = Reader->Rtl;
    PUFTRACE_MODULE Module = &Reader->Modules[Reader->ModuleCount];
    PCSZ Start = (PCSZ)Session->Map.Data;
    ULONGLONG First;
    ULONGLONG Last;
    PCSZ After;
    PCSZ Path;
    PCSZ PathEnd;
    ULONG Field;
    CHAR Name[64];
    ULONG NameLength;

    After = TextParseUnsigned(Line, LineEnd, TRUE, &First);
    if (After != NULL && After < LineEnd && *After == '-') {
        After = TextParseUnsigned(After + 1, LineEnd, TRUE, &Last);
    } else {
        After = NULL;
    }
    if (After == NULL || Last < First) {
        NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "sid-%s.map",
                                      Session->Sid);
        return UftraceFileError(Reader, Name, NameLength,
                                (SIZE_T)(Line - Start),
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

    if (PathEnd == Path || *Path == '[') {
        return RTL_STATUS_OK;
    }

    Rtl->FillMemory(Module, sizeof(*Module), 0);
    Module->Start = First;
    Module->End = Last;
    Module->Path = Path;
    Module->PathLength = (ULONG)(PathEnd - Path);
    Module->Skip = TextStartsWith(BaseName(Path, PathEnd), PathEnd,
                                  "libmcount");
    Reader->ModuleCount++;
    Session->ModuleCount++;

    if (Session->ExecModule == 0 &&
        Module->PathLength == Session->ExeNameLength &&
        Rtl->CompareMemory(Path, Session->ExeName, Module->PathLength) == 0) {
        Session->ExecModule = Reader->ModuleCount;
    }

    return LoadSymbols(Reader, Module);
}

RTL_STATUS
UftraceReadModules(
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
        Status = UftraceMapFile(Reader, Name, NameLength, &Session->Map);
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
            return UftraceFileError(Reader, Name, NameLength,
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

            Status = ReadMapLine(Reader, Session, Cursor, LineEnd);
            if (!RTL_SUCCESS(Status)) {
                return Status;
            }
            Cursor = LineEnd + 1;
        }
    }

    return RTL_STATUS_OK;
}

RTL_STATUS
UftraceImportModules(
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

        Status = TraceImportModuleLine(Reader->Import,
                                       TraceImportAlignTs(Reader->Import,
                                                          Session->Timestamp),
                                       Session->Pid, Cursor, LineEnd,
                                       &Parsed, NULL);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        if (!Parsed && TextSkipSpaces(Cursor, LineEnd) < LineEnd) {
            NameLength = (ULONG)RtlFormat(Name, sizeof(Name), "sid-%s.map",
                                          Session->Sid);
            return UftraceFileError(Reader, Name, NameLength,
                                    (SIZE_T)(Cursor - Start),
                                    "not a /proc/PID/maps line");
        }
        Cursor = LineEnd + 1;
    }

    return RTL_STATUS_OK;
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

BOOL
UftraceFindSymbol(
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
    PCSZ End;
    PCSZ Found = FindSymbolLine(Module, Address);
    PCSZ LineEnd;
    PCSZ Text;
    ULONGLONG LineAddress;
    CHAR Type;

    //
    // FindSymbolLine is NULL whenever the module has no symbol text, so
    // the text's end is computed only once a line was found.
    //

    if (Found == NULL) {
        return FALSE;
    }

    End = (PCSZ)Module->Symbols.Data + Module->Symbols.Length;
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

BOOL
UftraceFindSymbolCovering(
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
    PCSZ End;
    PCSZ First;
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

    End = Start + Module->Symbols.Length;
    First = Start + Module->FirstSymbol;

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

PUFTRACE_MODULE
UftraceFindModule(
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

ULONGLONG
UftraceModuleRelative(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module,
    ULONGLONG Address
    )
{
    return (Reader->Features & UFTRACE_FEAT_SYM_REL_ADDR) ?
               Address - Module->Start : Address;
}

RTL_STATUS
UftraceSymbolName(
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
    ULONG SessionNumber = UftraceFindSession(Reader, Task, Time);
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

    Module = UftraceFindModule(Reader, Task, SessionNumber, Address,
                               &ModuleNumber);
    if (Module != NULL &&
        UftraceFindSymbol(Module,
                          UftraceModuleRelative(Reader, Module, Address),
                          &Name, &NameEnd, NULL, NULL)) {
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
