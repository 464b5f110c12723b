/*++

Module Name:

    TraceEvent.c

Abstract:

    This module implements the event table of the ftrace event model
    (see TraceEvent.h): the arena its descriptions live in, the table's
    creation and release, and finding and decoding a field of an event
    record.  The parts the table is filled from are in TraceEventFormat.c
    (`format` files) and TraceEventSymbols.c (kallsyms, printk formats);
    the ring-buffer page decoder is TraceEventRing.c, the print-fmt
    interpreter TraceEventPrint*.c and the store sink TraceEventImport.c.

    Every routine bounds its reads by the lengths it is given: event
    descriptions and records come from files that may be damaged.

Environment:

    Core: no C runtime; the OS only through PRTL (Rtl->AllocatePages for
    the arena, Rtl->Unmap for what the table holds).  Owns TRACE_ARENA
    and TRACE_EVENT_TABLE's lifetime (its symbol and printk indexes
    included).  Calls only PRTL and Rtl/ string routines.

--*/

#include "TraceEventInternal.h"

#define ARENA_BLOCK_SIZE (256 * 1024)
#define ARENA_MAX_BLOCK_SIZE (4 * 1024 * 1024)
#define ARENA_HEADER     16
#define ARENA_LIMIT      (1ULL << 30)

//
// Arena.
//

RTL_STATUS
TraceArenaAllocate(
    PTRACE_ARENA Arena,
    SIZE_T Size,
    PVOID *Address
    )
/*++

Routine Description:

    Returns Size zeroed bytes, 8-byte aligned, valid until the arena is
    released.  Each block's first word points to the previous block.
    Blocks grow with the arena (as large as all before them, 256 KB to
    4 MB), so that the few megabytes a trace's event formats take are a
    handful of mappings to create and release, not dozens.

--*/
{
    PRTL Rtl = Arena->Rtl;
    RTL_STATUS Status;
    SIZE_T BlockSize;
    PBYTE Block;

    Size = (Size + 7) & ~(SIZE_T)7;

    if (Arena->Block == NULL || Arena->Size - Arena->Used < Size) {
        BlockSize = ARENA_BLOCK_SIZE;
        if (Arena->TotalBytes > BlockSize) {
            BlockSize = Arena->TotalBytes < ARENA_MAX_BLOCK_SIZE ?
                        (SIZE_T)Arena->TotalBytes : ARENA_MAX_BLOCK_SIZE;
        }
        if (Size + ARENA_HEADER > BlockSize) {
            BlockSize = (SIZE_T)ALIGN_UP(Size + ARENA_HEADER, RTL_PAGE_SIZE);
        }
        if (Arena->TotalBytes + BlockSize > ARENA_LIMIT) {
            *Address = NULL;
            return RTL_STATUS_TOO_LARGE;
        }

        Status = Rtl->AllocatePages(Rtl, BlockSize, (PVOID *)&Block);
        if (!RTL_SUCCESS(Status)) {
            *Address = NULL;
            return Status;
        }

        ((PVOID *)Block)[0] = Arena->Block;
        ((SIZE_T *)Block)[1] = BlockSize;
        Arena->Block = Block;
        Arena->Size = BlockSize;
        Arena->Used = ARENA_HEADER;
        Arena->TotalBytes += BlockSize;
    }

    *Address = Arena->Block + Arena->Used;
    Arena->Used += Size;
    return RTL_STATUS_OK;
}

VOID
TraceArenaRelease(
    PTRACE_ARENA Arena
    )
{
    PBYTE Block = Arena->Block;

    while (Block != NULL) {
        PBYTE Previous = (PBYTE)((PVOID *)Block)[0];
        SIZE_T Size = ((SIZE_T *)Block)[1];

        Arena->Rtl->Unmap(Arena->Rtl, Block, Size);
        Block = Previous;
    }

    Arena->Block = NULL;
    Arena->Used = 0;
    Arena->Size = 0;
    Arena->TotalBytes = 0;
}

//
// The event table.
//

RTL_STATUS
TraceEventTableInitialize(
    PRTL Rtl,
    ULONG LongSize,
    PTRACE_EVENT_TABLE Table
    )
{
    RTL_STATUS Status;

    Rtl->FillMemory(Table, sizeof(*Table), 0);
    Table->Rtl = Rtl;
    Table->Arena.Rtl = Rtl;
    Table->LongSize = LongSize;

    Status = TraceArenaAllocate(&Table->Arena,
                                sizeof(PTRACE_EVENT_FORMAT) *
                                (TRACE_EVENT_MAX_ID + 1),
                                (PVOID *)&Table->ById);
    return Status;
}

VOID
TraceEventTableRelease(
    PTRACE_EVENT_TABLE Table
    )
{
    PRTL Rtl = Table->Rtl;
    ULONG Index;

    if (Rtl == NULL) {
        return;
    }

    if (Table->SymbolTextOwned != NULL) {
        Rtl->Unmap(Rtl, Table->SymbolTextOwned, Table->SymbolTextOwnedSize);
        Table->SymbolTextOwned = NULL;
    }
    if (Table->Symbols != NULL) {
        Rtl->Unmap(Rtl, Table->Symbols, Table->SymbolBytes);
        Table->Symbols = NULL;
    }
    if (Table->Printks != NULL) {
        Rtl->Unmap(Rtl, Table->Printks, Table->PrintkBytes);
        Table->Printks = NULL;
    }
    for (Index = 0; Index < ARRAYSIZE(Table->KeptText); Index++) {
        if (Table->KeptText[Index] != NULL) {
            Rtl->Unmap(Rtl, Table->KeptText[Index],
                       Table->KeptTextSize[Index]);
            Table->KeptText[Index] = NULL;
        }
    }

    TraceArenaRelease(&Table->Arena);
    Table->ById = NULL;
}


BOOL
TraceEventTableCanKeepText(
    PTRACE_EVENT_TABLE Table
    )
{
    return Table->KeptText[ARRAYSIZE(Table->KeptText) - 1] == NULL;
}

VOID
TraceEventTableKeepText(
    PTRACE_EVENT_TABLE Table,
    PVOID Pages,
    SIZE_T Size
    )
{
    ULONG Index;

    for (Index = 0; Index < ARRAYSIZE(Table->KeptText); Index++) {
        if (Table->KeptText[Index] == NULL) {
            Table->KeptText[Index] = Pages;
            Table->KeptTextSize[Index] = Size;
            return;
        }
    }
}

PCTRACE_EVENT_FIELD
TraceEventFindField(
    PTRACE_EVENT_FORMAT Format,
    PCSZ Name
    )
{
    ULONG Index;

    //
    // Common fields first, as libtraceevent looks them up.
    //

    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        if ((Format->Fields[Index].Flags & TRACE_FIELD_COMMON) &&
            RtlStringEqual(Format->Fields[Index].Name, Name)) {
            return &Format->Fields[Index];
        }
    }
    for (Index = 0; Index < Format->NumberOfFields; Index++) {
        if (RtlStringEqual(Format->Fields[Index].Name, Name)) {
            return &Format->Fields[Index];
        }
    }

    return NULL;
}

BOOL
TraceEventFieldNumber(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PULONGLONG Value
    )
{
    ULONG Width = Field->Size;

    if ((Width != 1 && Width != 2 && Width != 4 && Width != 8) ||
        Field->Offset > Size || Size - Field->Offset < Width) {
        *Value = 0;
        return FALSE;
    }

    *Value = TraceEventReadNumber(Data + Field->Offset, Width);
    return TRUE;
}

BOOL
TraceEventFieldString(
    PCTRACE_EVENT_FIELD Field,
    const BYTE *Data,
    ULONG Size,
    PCSZ *Text,
    PULONG Length
    )
{
    ULONG Start;
    ULONG Limit;
    ULONG Index;

    *Text = "";
    *Length = 0;

    if (Field->Offset > Size || Size - Field->Offset < Field->Size) {
        return FALSE;
    }

    if (Field->Flags & TRACE_FIELD_DYNAMIC) {
        ULONGLONG Location = TraceEventReadNumber(Data + Field->Offset,
                                                  Field->Size);

        Start = (ULONG)(Location & 0xffff);
        Limit = (Field->Size == 2) ? Size : (ULONG)(Location >> 16);
        if (Field->Flags & TRACE_FIELD_RELATIVE) {
            Start += Field->Offset + Field->Size;
        }
        if (Field->Size == 2) {
            Limit = Start <= Size ? Size - Start : 0;
        }
        if (Start > Size || Limit > Size - Start) {
            return FALSE;
        }
    } else {
        Start = Field->Offset;
        Limit = Field->Size != 0 ? Field->Size : Size - Field->Offset;
    }

    Index = 0;
    while (Index < Limit && Data[Start + Index] != 0) {
        Index++;
    }

    *Text = (PCSZ)Data + Start;
    *Length = Index;
    return TRUE;
}
