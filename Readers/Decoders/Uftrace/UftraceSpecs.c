/*++

Module Name:

    UftraceSpecs.c

Abstract:

    The argument specs of a function, found as uftrace finds them when it
    reads a recording back: the recording's argspec/retspec patterns, and
    with auto-args the debug info of the function's module or uftrace's
    table of libc functions.

        NAME.dbg        a module's debug info: "F: ADDRESS NAME" per
                        function, followed by its "A: @SPEC" (arguments)
                        and "R: @SPEC" (return value) for -a, and "E:"
                        enum definitions

    A .dbg file is mapped and indexed when a spec first needs it.  The
    specs of a function are computed once per (session, address) and kept
    in an arena for the import.  The spec language itself, and the
    patterns, are UftraceArgs.h's.

Environment:

    Core: no C runtime; the OS only through PRTL.  Called by
    UftraceRecords.c (the size and text of a record's arguments); calls
    UftraceRecording.c, UftraceSymbols.c, UftraceArgs.h and TraceHash.

--*/

#include "UftraceRecording.h"

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
// Debug info (NAME.dbg)
// ---------------------------------------------------------------------------
//

static
RTL_STATUS
IndexDebugLines(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module,
    PCSZ Name,
    ULONG NameLength,
    BOOL Fill,
    PULONG FunctionCount,
    PULONG EnumCount
    )
/*++

Routine Description:

    One pass over the module's mapped .dbg: counts (and with Fill, also
    records) the functions that have "A:"/"R:" lines after their "F:
    ADDRESS NAME" and the "E:" lines.  Lines are "K: TEXT"; '#' lines are
    comments; another kind of line is an error.

--*/
{
    PCSZ Start = (PCSZ)Module->Debug.Data;
    PCSZ End = Start + Module->Debug.Length;
    PCSZ Cursor;
    PUFTRACE_DEBUG_FUNCTION Function = NULL;
    ULONG Functions = 0;
    ULONG Enums = 0;
    BOOL Open = FALSE;
    ULONGLONG Address = 0;

    for (Cursor = Start; Cursor < End; ) {
        PCSZ LineEnd = TextFindChar(Cursor, End, '\n');
        CHAR Kind = *Cursor;

        if (Kind == '#') {
            Cursor = LineEnd + 1;
            continue;
        }
        if (LineEnd - Cursor < 3 || Cursor[1] != ':' || Cursor[2] != ' ') {
            return UftraceFileError(Reader, Name, NameLength,
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
            if (TextParseUnsigned(Text, LineEnd, TRUE, &Address) == NULL) {
                return UftraceFileError(Reader, Name, NameLength,
                                        (SIZE_T)(Cursor - Start),
                                        "not an \"F: ADDRESS NAME\" line");
            }
            Open = FALSE;
            break;
        }

        case 'A':
        case 'R':
            if (!Open) {
                if (Fill) {
                    Function = &Module->Functions[Functions];
                    Function->Address = Address;
                    Function->Arguments = ~0u;
                    Function->Returns = ~0u;
                    if (Functions != 0 && Function[-1].Address > Address) {
                        Module->DebugSorted = FALSE;
                    }
                }
                Functions++;
                Open = TRUE;
            }
            if (Fill) {
                ULONG Offset = (ULONG)(Cursor - Start);

                if (Kind == 'A') {
                    Function->Arguments = Offset;
                } else {
                    Function->Returns = Offset;
                }
            }
            break;

        case 'E':
            if (Fill) {
                Module->Enums[Enums] = (ULONG)(Cursor - Start);
            }
            Enums++;
            break;

        default:
            break;          // L: (source lines) and the like
        }

        Cursor = LineEnd + 1;
    }

    *FunctionCount = Functions;
    *EnumCount = Enums;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
IndexDebugInfo(
    PUFTRACE_READER Reader,
    PUFTRACE_MODULE Module
    )
/*++

Routine Description:

    Maps the module's BASENAME.dbg (once) and indexes the functions that
    have argument specs and the enum definitions: a pass to count them,
    and after one allocation, a pass to record where they are.  A cut
    file (no final newline) or another kind of line is an error.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Reader->Rtl;
    CHAR Name[UFTRACE_PATH_SIZE];
    ULONG NameLength;
    ULONG Functions = 0;
    ULONG Enums = 0;
    RTL_STATUS Status;
    PVOID Arrays;
    SIZE_T Size;

    if (Module->DebugLoaded) {
        return RTL_STATUS_OK;
    }
    Module->DebugLoaded = TRUE;
    Module->DebugSorted = TRUE;

    Status = UftraceMapModuleFile(Reader, Module, "dbg", &Module->Debug,
                                  Name, &NameLength);
    if (!RTL_SUCCESS(Status) || Module->Debug.Data == NULL) {
        return Status;
    }

    Status = IndexDebugLines(Reader, Module, Name, NameLength, FALSE,
                             &Functions, &Enums);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (Functions == 0 && Enums == 0) {
        return RTL_STATUS_OK;
    }
    if (Module->Debug.Length >= 0xffffffffULL) {
        return UftraceFileError(Reader, Name, NameLength, 0,
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

    Status = IndexDebugLines(Reader, Module, Name, NameLength, TRUE,
                             &Functions, &Enums);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Module->FunctionCount = Functions;
    Module->EnumCount = Enums;
    Module->HasArgSpec = (Functions != 0);
    return RTL_STATUS_OK;
}

RTL_STATUS
UftraceLoadDebugInfo(
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
        UftraceUnmapFile(Reader, &Module->Debug);
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

//
// ---------------------------------------------------------------------------
// The specs of a function
// ---------------------------------------------------------------------------
//

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
            !RTL_SUCCESS(UftraceLoadDebugInfo(Reader, Module))) {

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
        (WordEnd - Word == 6 && TextEquals(Word, 6, "kernel"))) {
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

RTL_STATUS
UftraceGetSpec(
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
    ULONG SessionNumber = UftraceFindSession(Reader, Task, Task->Time);
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
    Module = UftraceFindModule(Reader, Task, SessionNumber, Task->Address,
                               &Function.Module);

    List->Count = 0;
    if (Module != NULL &&
        UftraceFindSymbol(Module,
                          UftraceModuleRelative(Reader, Module, Task->Address),
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
