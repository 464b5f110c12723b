/*++

Module Name:

    ImportStacks.c

Abstract:

    Call stacks as Perfetto stores them: a `frame` row per code address
    (placed in its mapped file, symbolized once), a `stack` row per
    callsite (a frame called from a parent callsite), so that a sample
    keeps one id for its whole stack and equal stacks share their rows.

    Frames are told apart by (mapped file, offset in it, kernel) when the
    file is known, else by (address, kernel): two processes running one
    library share its frames.  The hash of that key finds candidates; the
    keys kept per frame (the row as appended) decide, so no two keys ever
    share a frame.  Callsites are keyed exactly by (parent + 1, frame).

Environment:

    Core: no C runtime; memory through PRTL.  Part of the import engine
    (TraceImport.h); used by readers whose samples have stacks (perf.data).

--*/

#include "ImportInternal.h"

#define MAX_STACK_IDS 0x7fffffffULL

RTL_STATUS
TraceStackTableInitialize(
    PTRACE_IMPORT Import,
    PTRACE_STACK_TABLE Table
    )
{
    RTL_STATUS Status;

    Table->Import = Import;
    Table->Known = NULL;
    Table->KnownBytes = 0;
    Table->FrameCount = 0;
    Table->CallsiteCount = 0;
    Status = TraceHashInitialize(Import->Rtl, &Table->Frames);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Import->Rtl, &Table->Callsites);
        if (!RTL_SUCCESS(Status)) {
            TraceHashDestroy(&Table->Frames);
        }
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: no memory for "
                           "the call stacks", Import->Path);
    }
    return RTL_STATUS_OK;
}

VOID
TraceStackTableRelease(
    PTRACE_STACK_TABLE Table
    )
{
    PRTL Rtl = Table->Import->Rtl;

    TraceHashDestroy(&Table->Frames);
    TraceHashDestroy(&Table->Callsites);
    if (Table->Known != NULL) {
        Rtl->Unmap(Rtl, Table->Known, Table->KnownBytes);
        Table->Known = NULL;
    }
}

static
BOOL
SameFrame(
    const FRAME_RECORD *Left,
    const FRAME_RECORD *Right
    )
{
    if (Left->ModuleId != Right->ModuleId || Left->Kernel != Right->Kernel) {
        return FALSE;
    }
    return Left->ModuleId != TRACE_STRING_NULL ?
           Left->ModuleOffset == Right->ModuleOffset :
           Left->Ip == Right->Ip;
}

RTL_STATUS
TraceStackFrame(
    PTRACE_STACK_TABLE Table,
    PFRAME_RECORD Frame,
    PTRACE_SYMBOLIZE Symbolize,
    PVOID Context,
    PULONGLONG FrameId
    )
{
    PTRACE_IMPORT Import = Table->Import;
    PRTL Rtl = Import->Rtl;
    struct {
        ULONGLONG Where;
        ULONG ModuleId;
        ULONG Kernel;
    } Key;
    ULONGLONG Hash;
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    RTL_STATUS Status;

    Key.Where = Frame->ModuleId != TRACE_STRING_NULL ? Frame->ModuleOffset :
                                                       Frame->Ip;
    Key.ModuleId = Frame->ModuleId;
    Key.Kernel = Frame->Kernel;
    Hash = Rtl->Hash64(&Key, sizeof(Key));
    Hash = Hash != 0 ? Hash : 1;
    while (TraceHashFind(&Table->Frames, Hash, &Cursor, &Value)) {
        if (SameFrame(&Table->Known[Value], Frame)) {
            *FrameId = Value;
            return RTL_STATUS_OK;
        }
    }

    if (Table->FrameCount >= MAX_STACK_IDS) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: more than %llu frames", Import->Path,
                           MAX_STACK_IDS);
    }
    Status = RtlGrowPages(Rtl, (PVOID *)&Table->Known, &Table->KnownBytes,
                          (SIZE_T)(Table->FrameCount + 1) *
                          sizeof(FRAME_RECORD), 64 * 1024);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: no memory for "
                           "the call stacks' frames", Import->Path);
    }

    Frame->SymbolId = TRACE_STRING_NULL;
    Frame->Padding = 0;
    if (Symbolize != NULL) {
        Status = Symbolize(Context, Frame);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }
    Status = TraceImportAppendRecord(Import, TraceRecordFrame, Frame,
                                     FrameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Table->Known[Table->FrameCount] = *Frame;
    Table->FrameCount++;
    Status = TraceHashInsert(&Table->Frames, Hash, *FrameId);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: no memory for "
                           "the call stacks' frames", Import->Path);
    }
    return RTL_STATUS_OK;
}

RTL_STATUS
TraceStackCallsite(
    PTRACE_STACK_TABLE Table,
    LONGLONG ParentId,
    ULONGLONG FrameId,
    ULONG Depth,
    PLONGLONG CallsiteId
    )
{
    PTRACE_IMPORT Import = Table->Import;
    ULONGLONG Key = ((ULONGLONG)(ParentId + 1) << 32) | (FrameId + 1);
    ULONGLONG Cursor = 0;
    ULONGLONG Value;
    STACK_RECORD Record;
    ULONGLONG Index;
    RTL_STATUS Status;

    if (TraceHashFind(&Table->Callsites, Key, &Cursor, &Value)) {
        *CallsiteId = (LONGLONG)Value;
        return RTL_STATUS_OK;
    }
    if (Table->CallsiteCount >= MAX_STACK_IDS) {
        return RtlSetError(&Import->Error, RTL_STATUS_BAD_FORMAT, 0, 0,
                           "%s: more than %llu callsites", Import->Path,
                           MAX_STACK_IDS);
    }
    Record.ParentId = ParentId;
    Record.FrameId = FrameId;
    Record.Depth = Depth;
    Record.Padding = 0;
    Status = TraceImportAppendRecord(Import, TraceRecordStack, &Record,
                                     &Index);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    Table->CallsiteCount++;
    Status = TraceHashInsert(&Table->Callsites, Key, Index);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: no memory for "
                           "the callsites", Import->Path);
    }
    *CallsiteId = (LONGLONG)Index;
    return RTL_STATUS_OK;
}
