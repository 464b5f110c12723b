/*++

Module Name:

    EtwKernel.c

Abstract:

    This module turns the framed events of an .etl log into records:

    - PageFault HardFault (group 2, type 32: InitialTime, ReadOffset,
      VirtualAddress, FileObject, TThreadId, ByteCount) and TypeGroup1
      (types 10-15: VirtualAddress, ProgramCounter) become `page_fault`
      rows: address, ip (TypeGroup1's program counter), tid and pid, the
      image that holds the address (module, module_offset; the same for
      the ip), hard and fault_kind (docs/reader-etw.md).
    - Image load (group 3 type 10, group 20 type 10), DCStart and DCEnd
      (group 20, types 3, 4) become `module` rows (base, base + size, the
      file name) and are remembered per process for the faults; an unload
      (group 20 type 2) forgets the image and is an ftrace_event row
      "Image/Unload" whose args give pid, base, size and name.
    - Process Start and DCStart (group 3, types 1, 3) become `process` rows
      (ImageFileName, CommandLine; a DCStart's start_ts is the log's start:
      the process was running); Thread events (group 5) give each
      thread its process (and so its `thread` row, named after the
      process).
    - Every other event, and the ones above that are not rows of their own
      store (process and thread ends, thread starts), is an ftrace_event row
      named "GROUP/TYPE" ("Thread/CSwitch", "PerfInfo/46") or, for
      provider events, "{GUID}/ID", with the task of its header.  Nothing
      read is dropped.

Environment:

    Core: no C runtime; the OS only through PRTL (pages, the reader's hash
    tables).  Called by Etw.c; calls TraceImport.h's sinks.

--*/

#include "EtwReader.h"
#include "Readers/Text/TextParse.h"

static const PCSZ FaultNames[ETW_FAULT_NAMES] = {
    "TransitionFault", "DemandZeroFault", "CopyOnWrite", "GuardPageFault",
    "HardPageFault", "AccessViolation", "HardFault",
};

//
// A page fault's record as `tracestore script` gives it to a handler
// PageFault__NAME (the MOF class, PageFault_V2, and the event's name): a
// tracefs-style format of the row's address and ip (0 for HardFault,
// which has none), written to event_format when the event is first met.
// ID: the group (2) and the event's type.
//

static const CHAR FaultFormat[] =
    "name: %s\nID: %u\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    "\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:unsigned long address;\toffset:8;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n\n"
    "print fmt: \"address=0x%%lx ip=0x%%lx\", REC->address, REC->ip\n";

static const PCSZ GroupNames[] = {
    "Header", "IO", "Memory", "Process", "File", "Thread", "TcpIp", "Job",
    "UdpIp", "Registry", "DbgPrint", "Config", "Spare1", "Wnf", "Pool",
    "PerfInfo", "Heap", "Object", "Power", "Modbound", "Image", "Dpc", "Gdi",
    "CritSec", "StackWalk", "Ums", "Alpc", "SplitIo", "ThreadPool",
    "Hypervisor", "HypervisorX",
};

static
ULONG
Utf16ToUtf8(
    const BYTE *Source,
    ULONG SourceLength,
    PCHAR Target
    )
/*++

Routine Description:

    Converts UTF-16LE up to its NUL (or the end of Source) into UTF-8 at
    Target, which holds at least 3 bytes per UTF-16 unit.  A lone
    surrogate becomes U+FFFD.

Return Value:

    The bytes written (no NUL is written).

--*/
{
    ULONG In = 0;
    ULONG Out = 0;
    ULONG Unit;
    ULONG Code;

    while (SourceLength - In >= 2) {
        Unit = EtwLoad16(Source + In);
        In += 2;
        if (Unit == 0) {
            break;
        }
        Code = Unit;
        if (Unit >= 0xD800 && Unit < 0xDC00 && SourceLength - In >= 2 &&
            EtwLoad16(Source + In) >= 0xDC00 &&
            EtwLoad16(Source + In) < 0xE000) {
            Code = 0x10000 + ((Unit - 0xD800) << 10) +
                   (EtwLoad16(Source + In) - 0xDC00);
            In += 2;
        } else if (Unit >= 0xD800 && Unit < 0xE000) {
            Code = 0xFFFD;
        }

        Out += TextEncodeUtf8(Code, Target + Out);
    }

    return Out;
}

static
RTL_STATUS
InternUtf16(
    PETW_READER Reader,
    PCSZ Prefix,
    const BYTE *Source,
    ULONG SourceLength,
    PULONG Id
    )
/*++

Routine Description:

    Interns Prefix (may be NULL) followed by the UTF-16 text at Source, in
    UTF-8.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PCHAR Text = Reader->Text->Bytes;
    ULONG Length = 0;

    if (Prefix != NULL) {
        while (Prefix[Length] != '\0' && Length < 256) {
            Text[Length] = Prefix[Length];
            Length++;
        }
    }

    if (SourceLength > 2 * 32768) {
        SourceLength = 2 * 32768;
    }
    Length += Utf16ToUtf8(Source, SourceLength, Text + Length);
    return TraceImportIntern(Import, Text, Length, Id);
}

RTL_STATUS
EtwBeginKernel(
    PETW_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    PRTL Rtl = Import->Rtl;
    ULONG Index;
    RTL_STATUS Status;

    for (Index = 0; Index < ETW_NAME_CACHE_ENTRIES; Index++) {
        Reader->Names[Index].NameId = TRACE_NULL_ULONG;
    }

    Status = Rtl->AllocatePages(Rtl, sizeof(ETW_TEXT),
                                (PPVOID)&Reader->Text);
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader->ThreadProcess);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader->ProcessNames);
    }
    if (RTL_SUCCESS(Status)) {
        Status = TraceHashInitialize(Rtl, &Reader->ImageChunks);
    }
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }

    for (Index = 0; Index < ETW_FAULT_NAMES; Index++) {
        Status = TraceImportIntern(Import, FaultNames[Index],
                                   (ULONG)RtlStringLength(FaultNames[Index]),
                                   &Reader->FaultNameIds[Index]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    return TraceImportIntern(Import, "r-xp", 4, &Reader->ImagePermsId);
}

VOID
EtwEndKernel(
    PETW_READER Reader
    )
{
    PRTL Rtl = Reader->Import->Rtl;

    if (Reader->ThreadProcess.Rtl != NULL) {
        TraceHashDestroy(&Reader->ThreadProcess);
    }
    if (Reader->ProcessNames.Rtl != NULL) {
        TraceHashDestroy(&Reader->ProcessNames);
    }
    if (Reader->ImageChunks.Rtl != NULL) {
        TraceHashDestroy(&Reader->ImageChunks);
    }
    if (Reader->Images != NULL) {
        Rtl->Unmap(Rtl, Reader->Images,
                   Reader->ImageCapacity * sizeof(ETW_IMAGE));
    }
    if (Reader->Text != NULL) {
        Rtl->Unmap(Rtl, Reader->Text, sizeof(ETW_TEXT));
    }
}

static
RTL_STATUS
NoMemory(
    PETW_READER Reader,
    RTL_STATUS Status
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    return RtlSetError(&Import->Error, Status, 0, Import->EventOffset,
                       "%s: %s", Import->Path, RtlStatusText(Status));
}

//
// Tasks.
//

static
ULONG
LookupTask(
    PTRACE_HASH_TABLE Table,
    ULONG Id
    )
/*++

Routine Description:

    What a table keyed by tid + 1 or pid + 1 holds for Id (a tid's pid, a
    pid's name id), or TRACE_NULL_ULONG.

--*/
{
    ULONGLONG Cursor = 0;
    ULONGLONG Value;

    if (Id == TRACE_NULL_ULONG ||
        !TraceHashFind(Table, (ULONGLONG)Id + 1, &Cursor, &Value)) {
        return TRACE_NULL_ULONG;
    }

    return (ULONG)Value;
}

#define ProcessOfThread(Reader, Tid) LookupTask(&(Reader)->ThreadProcess, (Tid))
#define ProcessName(Reader, Pid) LookupTask(&(Reader)->ProcessNames, (Pid))

static
VOID
SetTask(
    PETW_READER Reader,
    PTRACE_EVENT_CONTEXT Context,
    ULONG Tid,
    ULONG Pid
    )
{
    Context->Tid = Tid;
    Context->Pid = Pid;
    Context->CommId = ProcessName(Reader, Pid);
}

//
// Images.
//

static
BOOL
IsKernelAddress(
    ULONGLONG Address,
    BOOL Is64
    )
{
    return Is64 ? Address >= 0xFFFF800000000000ULL : Address >= 0x80000000ULL;
}

static
ULONGLONG
ChunkKey(
    ULONG Pid,
    ULONGLONG Chunk
    )
{
    if (Pid == ETW_KERNEL_PID) {
        return (1ULL << 63) | Chunk;
    }
    return ((ULONGLONG)Pid << 32) ^ Chunk;
}

static
PETW_IMAGE
FindImage(
    PETW_READER Reader,
    ULONG Pid,
    ULONGLONG Address,
    BOOL Is64
    )
/*++

Routine Description:

    The image that holds Address in process Pid (kernel addresses: in any
    process), or NULL.

--*/
{
    PTRACE_HASH_ENTRY Entry;
    PETW_IMAGE Image;

    if (IsKernelAddress(Address, Is64)) {
        Pid = ETW_KERNEL_PID;
    } else if (Pid == TRACE_NULL_ULONG) {
        return NULL;
    }

    Entry = TraceHashLookup(&Reader->ImageChunks,
                            ChunkKey(Pid, Address >> ETW_CHUNK_SHIFT));
    if (Entry == NULL || Entry->Value >= Reader->ImageCount) {
        return NULL;
    }

    Image = &Reader->Images[Entry->Value];
    if (Image->Pid != Pid || Address < Image->Start || Address >= Image->End) {
        return NULL;
    }

    return Image;
}

static
RTL_STATUS
AddImage(
    PETW_READER Reader,
    ULONG Pid,
    ULONGLONG Start,
    ULONGLONG End,
    ULONG PathId
    )
/*++

Routine Description:

    Remembers an image for the faults that follow (an image already known
    at the same place, as a DCEnd repeats a load, is kept as it is).

--*/
{
    PRTL Rtl = Reader->Import->Rtl;
    PETW_IMAGE Image;
    ULONGLONG Chunk;
    ULONGLONG Last;
    RTL_STATUS Status;

    Image = FindImage(Reader, Pid, Start, TRUE);
    if (Image != NULL && Image->Start == Start && Image->End == End) {
        return RTL_STATUS_OK;
    }

    if (End - Start > ETW_MAX_IMAGE_SIZE ||
        Reader->Chunks + ((End - Start) >> ETW_CHUNK_SHIFT) + 1 >
            ETW_MAX_CHUNKS) {
        Reader->UnindexedImages++;
        return RTL_STATUS_OK;
    }

    if (Reader->ImageCount == Reader->ImageCapacity) {
        SIZE_T Capacity = Reader->ImageCapacity ?
                          2 * Reader->ImageCapacity : 1024;
        PETW_IMAGE Images;

        Status = Rtl->AllocatePages(Rtl, Capacity * sizeof(ETW_IMAGE),
                                    (PPVOID)&Images);
        if (!RTL_SUCCESS(Status)) {
            return NoMemory(Reader, Status);
        }
        if (Reader->Images != NULL) {
            Rtl->CopyMemory(Images, Reader->Images,
                            Reader->ImageCount * sizeof(ETW_IMAGE));
            Rtl->Unmap(Rtl, Reader->Images,
                       Reader->ImageCapacity * sizeof(ETW_IMAGE));
        }
        Reader->Images = Images;
        Reader->ImageCapacity = Capacity;
    }

    Image = &Reader->Images[Reader->ImageCount];
    Image->Start = Start;
    Image->End = End;
    Image->Pid = Pid;
    Image->PathId = PathId;

    Last = (End - 1) >> ETW_CHUNK_SHIFT;
    for (Chunk = Start >> ETW_CHUNK_SHIFT; Chunk <= Last; Chunk++) {
        Status = TraceHashSet(&Reader->ImageChunks, ChunkKey(Pid, Chunk),
                              Reader->ImageCount);
        if (!RTL_SUCCESS(Status)) {
            return NoMemory(Reader, Status);
        }
        Reader->Chunks++;
    }

    Reader->ImageCount++;
    return RTL_STATUS_OK;
}

static
VOID
RemoveImage(
    PETW_READER Reader,
    ULONG Pid,
    ULONGLONG Start
    )
{
    PETW_IMAGE Image = FindImage(Reader, Pid, Start, TRUE);
    ULONGLONG Index;
    ULONGLONG Chunk;
    ULONGLONG Last;
    PTRACE_HASH_ENTRY Entry;

    if (Image == NULL || Image->Start != Start) {
        return;
    }

    Index = (ULONGLONG)(Image - Reader->Images);
    Last = (Image->End - 1) >> ETW_CHUNK_SHIFT;
    for (Chunk = Start >> ETW_CHUNK_SHIFT; Chunk <= Last; Chunk++) {
        Entry = TraceHashLookup(&Reader->ImageChunks,
                                ChunkKey(Image->Pid, Chunk));
        if (Entry != NULL && Entry->Value == Index) {
            TraceHashRemove(&Reader->ImageChunks,
                            ChunkKey(Image->Pid, Chunk));
        }
    }
}

//
// Events without a store of their own.
//

static
PCSZ
ClassicTypeName(
    ULONG Group,
    ULONG Type
    )
{
    switch ((Group << 8) | Type) {
    case 0x0301: case 0x0501: return "Start";
    case 0x0302: case 0x0502: return "End";
    case 0x0303: case 0x0503: case 0x1403: return "DCStart";
    case 0x0304: case 0x0504: case 0x1404: return "DCEnd";
    case 0x0327: return "Defunct";
    case 0x1402: return "Unload";
    case 0x0524: return "CSwitch";
    case 0x0532: return "ReadyThread";
    case 0x0F2E: return "SampledProfile";
    default: return NULL;
    }
}

static
RTL_STATUS
EventNameId(
    PETW_READER Reader,
    PETW_EVENT Event,
    PULONG NameId
    )
{
    static const BYTE NoGuid[16] = { 0 };
    const BYTE *Guid = (Event->Guid != NULL) ? Event->Guid : NoGuid;
    PETW_NAME_CACHE_ENTRY Entry;
    CHAR Text[96];
    SIZE_T Length;
    ULONG Key;
    ULONG Slot;
    PCSZ TypeName;
    RTL_STATUS Status;

    if (Event->Kind == EtwEventClassic) {
        Key = ((ULONG)Event->Group << 16) | Event->Type;
    } else if (Event->Kind == EtwEventManifest) {
        Key = (1u << 24) | Event->Id;
    } else {
        Key = (2u << 24) | Event->Type;
    }

    Slot = (Key * 0x9E3779B1u) ^ EtwLoad32(Guid) ^ EtwLoad32(Guid + 12);
    Entry = &Reader->Names[(Slot >> 8) % ETW_NAME_CACHE_ENTRIES];
    if (Entry->NameId != TRACE_NULL_ULONG && Entry->Key == Key &&
        Reader->Import->Rtl->CompareMemory(Entry->Guid, Guid, 16) == 0) {
        *NameId = Entry->NameId;
        return RTL_STATUS_OK;
    }

    if (Event->Kind == EtwEventClassic) {
        TypeName = ClassicTypeName(Event->Group, Event->Type);
        if (Event->Group < ARRAYSIZE(GroupNames)) {
            Length = (TypeName != NULL) ?
                     RtlFormat(Text, sizeof(Text), "%s/%s",
                               GroupNames[Event->Group], TypeName) :
                     RtlFormat(Text, sizeof(Text), "%s/%u",
                               GroupNames[Event->Group], Event->Type);
        } else {
            Length = RtlFormat(Text, sizeof(Text), "Group%u/%u",
                               Event->Group, Event->Type);
        }
    } else {
        Length = RtlFormat(Text, sizeof(Text),
                           "{%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x"
                           "%02x}/%u", EtwLoad32(Guid), EtwLoad16(Guid + 4),
                           EtwLoad16(Guid + 6), Guid[8], Guid[9], Guid[10],
                           Guid[11], Guid[12], Guid[13], Guid[14], Guid[15],
                           (Event->Kind == EtwEventManifest) ?
                           (ULONG)Event->Id : (ULONG)Event->Type);
    }

    Status = TraceImportIntern(Reader->Import, Text, (ULONG)Length, NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Reader->Import->Rtl->CopyMemory(Entry->Guid, Guid, 16);
    Entry->Key = Key;
    Entry->NameId = *NameId;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
GenericEvent(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context,
    ULONG ArgsId
    )
{
    ULONG NameId;
    RTL_STATUS Status;

    Status = EventNameId(Reader, Event, &NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportGenericEvent(Reader->Import, Context, NameId, ArgsId,
                                   TRACE_STRING_NULL);
}

//
// Page faults.
//

static
RTL_STATUS
PageFault(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Pointer = Event->Is64 ? 8 : 4;
    PAGE_FAULT_RECORD Fault;
    PETW_IMAGE Image;
    TRACE_FAULT_KIND Kind = TraceFaultKindMaximum;
    ULONG Tid = Event->ThreadId;
    ULONG Index;
    RTL_STATUS Status;

    TraceImportPageFaultUnclassified(&Fault);
    Fault.ErrorCode = TRACE_NULL_ULONG;
    Fault.IpSymbolId = TRACE_NULL_ULONG;
    Fault.ModuleId = TRACE_NULL_ULONG;
    Fault.IpModuleId = TRACE_NULL_ULONG;
    Fault.Ip = TRACE_NULL_ULONGLONG;

    if (Event->Type == ETW_TYPE_HARD_FAULT) {
        Fault.Address = EtwLoadPointer(Event->Payload + 16, Event->Is64);
        Tid = EtwLoad32(Event->Payload + 16 + 2 * Pointer);
        Fault.NameId = Reader->FaultNameIds[ETW_FAULT_NAMES - 1];
        Fault.Hard = 1;
        SetTask(Reader, Context, Tid, ProcessOfThread(Reader, Tid));
    } else {
        Fault.Address = EtwLoadPointer(Event->Payload, Event->Is64);
        Fault.Ip = EtwLoadPointer(Event->Payload + Pointer, Event->Is64);
        Fault.NameId = Reader->FaultNameIds[Event->Type -
                                            ETW_TYPE_TRANSITION_FAULT];
        if (Event->ProcessId != TRACE_NULL_ULONG) {
            SetTask(Reader, Context, Tid, Event->ProcessId);
        } else {
            SetTask(Reader, Context, Tid, ProcessOfThread(Reader, Tid));
        }

        switch (Event->Type) {
        case 10: Kind = TraceFaultPageCache; Fault.Hard = 0; break;
        case 11: Kind = TraceFaultDemandZero; Fault.Hard = 0; break;
        case 12: Kind = TraceFaultCopyOnWrite; Fault.Hard = 0; break;
        case 13: Kind = TraceFaultDemandZero; Fault.Hard = 0; break;
        case 14: Fault.Hard = 1; break;
        default: Kind = TraceFaultAccessViolation; break;
        }
    }

    Image = FindImage(Reader, Context->Pid, Fault.Address, Event->Is64);
    if (Image != NULL) {
        Fault.ModuleId = Image->PathId;
        Fault.ModuleOffset = Fault.Address - Image->Start;

        //
        // A hard fault inside an image reads the image's file.
        //

        if (Fault.Hard == 1) {
            Kind = TraceFaultFile;
        }
    }

    if (Fault.Ip != TRACE_NULL_ULONGLONG) {
        Image = FindImage(Reader, Context->Pid, Fault.Ip, Event->Is64);
        if (Image != NULL) {
            Fault.IpModuleId = Image->PathId;
            Fault.IpModuleOffset = Fault.Ip - Image->Start;
        }
    }

    if (Kind != TraceFaultKindMaximum) {
        Status = TraceImportFaultKindId(Import, Kind, &Fault.FaultKindId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    Index = Event->Type == ETW_TYPE_HARD_FAULT ? ETW_FAULT_NAMES - 1 :
            Event->Type - ETW_TYPE_TRANSITION_FAULT;
    if ((Reader->FaultFormats & (1u << Index)) == 0) {
        CHAR Text[sizeof(FaultFormat) + 64];
        ULONG Id = (2u << 8) | Event->Type;

        RtlFormat(Text, sizeof(Text), FaultFormat, FaultNames[Index], Id);
        Status = TraceImportEventFormat(Import, "PageFault", FaultNames[Index],
                                        Id, Text,
                                        (ULONG)RtlStringLength(Text));
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Reader->FaultFormats |= 1u << Index;
    }

    return TraceImportPageFault(Import, Context, &Fault);
}

//
// Images, processes, threads.
//

static
RTL_STATUS
ImageEvent(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Image_Load (v2 and later): ImageBase, ImageSize (pointers), ProcessId,
    ImageCheckSum, TimeDateStamp, Reserved0, DefaultBase (pointer),
    Reserved1-4, then FileName (UTF-16) at 3 pointers + 32 bytes.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONG Pointer = Event->Is64 ? 8 : 4;
    ULONG NameOffset = 3 * Pointer + 32;
    ULONGLONG Base = EtwLoadPointer(Event->Payload, Event->Is64);
    ULONGLONG Size = EtwLoadPointer(Event->Payload + Pointer, Event->Is64);
    ULONG Pid = EtwLoad32(Event->Payload + 2 * Pointer);
    ULONG ImagePid;
    MODULE_RECORD Module;
    ULONG PathId;
    RTL_STATUS Status;

    ImagePid = IsKernelAddress(Base, Event->Is64) ? ETW_KERNEL_PID : Pid;

    if (Event->Group == ETW_GROUP_IMAGE && Event->Type == ETW_TYPE_END) {
        CHAR Prefix[128];
        ULONG ArgsId;

        //
        // An unload's args: "pid=N base=0xB size=0xS name=PATH".
        //

        RemoveImage(Reader, ImagePid, Base);
        RtlFormat(Prefix, sizeof(Prefix), "pid=%u base=0x%llx size=0x%llx "
                  "name=", Pid, Base, Size);
        Status = InternUtf16(Reader, Prefix, Event->Payload + NameOffset,
                             Event->PayloadLength - NameOffset, &ArgsId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        SetTask(Reader, Context, Event->ThreadId, Event->ProcessId);
        return GenericEvent(Reader, Event, Context, ArgsId);
    }

    Status = InternUtf16(Reader, NULL, Event->Payload + NameOffset,
                         Event->PayloadLength - NameOffset, &PathId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Module.Timestamp = Context->Timestamp;
    Module.Start = Base;
    Module.End = Base + Size;
    Module.Offset = 0;
    Module.Pid = Pid;
    Module.PathId = PathId;
    Module.PermsId = Reader->ImagePermsId;
    Module.BuildIdId = TRACE_NULL_ULONG;

    if (Base + Size < Base) {
        return EtwEventError(Reader, Event->Offset, "an image whose base + "
                             "size overflows");
    }

    Status = TraceImportModule(Import, &Module);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    if (Size == 0) {
        return RTL_STATUS_OK;
    }

    return AddImage(Reader, ImagePid, Base, Base + Size, PathId);
}

static
RTL_STATUS
ProcessEvent(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Process (v2 and later): UniqueProcessKey (pointer), ProcessId,
    ParentId, SessionId, ExitStatus, DirectoryTableBase (pointer, v3+),
    Flags (v4+), UserSID (a TOKEN_USER of two pointers and the SID, or 4
    zero bytes), ImageFileName (ANSI), CommandLine (UTF-16).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    const BYTE *Payload = Event->Payload;
    ULONG Length = Event->PayloadLength;
    ULONG Pointer = Event->Is64 ? 8 : 4;
    ULONG Pid = EtwLoad32(Payload + Pointer);
    ULONG At = Pointer + 16;
    ULONG NameStart;
    ULONG NameId;
    ULONG CommandId = TRACE_NULL_ULONG;
    RTL_STATUS Status;

    if (Event->Version >= 3) {
        At += Pointer;
    }
    if (Event->Version >= 4) {
        At += 4;
    }

    //
    // The SID: 4 zero bytes, or TOKEN_USER then a SID of 8 bytes plus 4
    // per sub-authority (the count is its second byte).
    //

    if (At + 4 > Length) {
        goto Generic;
    }
    if (EtwLoad32(Payload + At) == 0) {
        At += 4;
    } else {
        if (At + 2 * Pointer + 8 > Length) {
            goto Generic;
        }
        At += 2 * Pointer + 8 + 4 * (ULONG)Payload[At + 2 * Pointer + 1];
    }
    if (At > Length) {
        goto Generic;
    }

    NameStart = At;
    while (At < Length && Payload[At] != 0) {
        At++;
    }
    Status = TraceImportIntern(Import, (PCSZ)Payload + NameStart,
                               At - NameStart, &NameId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }
    if (At < Length) {
        At++;
        Status = InternUtf16(Reader, NULL, Payload + At, Length - At,
                             &CommandId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    if (ProcessName(Reader, Pid) != NameId) {
        Status = TraceHashSet(&Reader->ProcessNames, (ULONGLONG)Pid + 1,
                              NameId);
        if (!RTL_SUCCESS(Status)) {
            return NoMemory(Reader, Status);
        }
    }

    //
    // A Start is the process starting; a DCStart (the rundown) names one
    // that was running when the log began: its start_ts is the log's start
    // (before every event), not the time of the rundown, so that nothing
    // shows it starting inside the trace.
    //

    if (Event->Type == ETW_TYPE_START || Event->Type == ETW_TYPE_DC_START) {
        return TraceImportProcessExec(Import,
                                      Event->Type == ETW_TYPE_START
                                          ? Context->Timestamp
                                          : Reader->SyncNs,
                                      Pid, NameId, CommandId);
    }

Generic:
    SetTask(Reader, Context, Event->ThreadId, Event->ProcessId);
    return GenericEvent(Reader, Event, Context, TRACE_NULL_ULONG);
}

static
RTL_STATUS
ThreadEvent(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Thread Start/End/DCStart/DCEnd (v1 and later): ProcessId, TThreadId,
    ...  The event's row names that thread (so its thread row exists).

--*/
{
    ULONG Pid = EtwLoad32(Event->Payload);
    ULONG Tid = EtwLoad32(Event->Payload + 4);
    RTL_STATUS Status;

    if (ProcessOfThread(Reader, Tid) != Pid) {
        Status = TraceHashSet(&Reader->ThreadProcess, (ULONGLONG)Tid + 1,
                              Pid);
        if (!RTL_SUCCESS(Status)) {
            return NoMemory(Reader, Status);
        }
    }

    SetTask(Reader, Context, Tid, Pid);
    return GenericEvent(Reader, Event, Context, TRACE_NULL_ULONG);
}

RTL_STATUS
EtwImportEvent(
    PETW_READER Reader,
    PETW_EVENT Event,
    PTRACE_EVENT_CONTEXT Context
    )
/*++

Routine Description:

    Imports one event: a page fault, image, process or thread event whose
    payload is long enough for its layout goes to its store; everything
    else to ftrace_event.

--*/
{
    ULONG Pointer = Event->Is64 ? 8 : 4;
    ULONG Length = Event->PayloadLength;

    if (Event->Kind == EtwEventClassic) {
        ULONG Hook = ((ULONG)Event->Group << 8) | Event->Type;

        switch (Hook) {
        case 0x0220:
            if (Length >= 16 + 2 * Pointer + 8) {
                return PageFault(Reader, Event, Context);
            }
            break;

        case 0x020A: case 0x020B: case 0x020C:
        case 0x020D: case 0x020E: case 0x020F:
            if (Length >= 2 * Pointer) {
                return PageFault(Reader, Event, Context);
            }
            break;

        case 0x030A: case 0x140A:
        case 0x1402: case 0x1403: case 0x1404:
            if (Event->Version >= 2 && Length >= 3 * Pointer + 32) {
                return ImageEvent(Reader, Event, Context);
            }
            break;

        case 0x0301: case 0x0302: case 0x0303: case 0x0304: case 0x0327:
            if (Event->Version >= 2 && Length >= Pointer + 16) {
                return ProcessEvent(Reader, Event, Context);
            }
            break;

        case 0x0501: case 0x0502: case 0x0503: case 0x0504:
            if (Event->Version >= 1 && Length >= 8) {
                return ThreadEvent(Reader, Event, Context);
            }
            break;

        default:
            break;
        }
    }

    SetTask(Reader, Context, Event->ThreadId, Event->ProcessId);
    return GenericEvent(Reader, Event, Context, TRACE_NULL_ULONG);
}
