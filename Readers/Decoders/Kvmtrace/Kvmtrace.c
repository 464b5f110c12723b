/*++

Module Name:

    Kvmtrace.c

Abstract:

    This module imports the kvmtrace binary record stream (seeds/004; the
    layout is in KvmtraceFormat.h) into a session:

    - VMEXIT and the next VMENTRY of the same vcpu (the same vcpu thread
      and vcpu id) become one `kvm_exit` row: ts, exit code and rip of the
      exit, dur to the entry.  An entry with no exit before it is kept in
      `ftrace_event`.
    - PAGE_FAULT (a guest fault KVM handled) becomes a `page_fault` row:
      error code and address from the data words.
    - Every other event becomes an `ftrace_event` row named as the seed's
      formats file names it ("INJ_VIRQ", "IO_READ", ...; "unknown" for ids
      it has no rule for), whose args are what the seed's rule prints after
      the name ("vcpu = 0x... pid = 0x... [ port = 0x0070, size = 1 ]").

    Time.  Without a rate, ts is the raw TSC.  With --tsc-mhz MHZ (carried
    in Import->TscMhz) ts is floor(TSC * 1000 / MHZ) ns, exactly; the raw
    TSC stays in kvm_exit.tsc and the `source` row keeps the clock ("tsc")
    and the rate.  A record without a TSC takes the last TSC seen before
    it (0 at the start), as the seed's reltsc does; its kvm_exit.tsc is
    NULL.

    The stream has no magic: KvmtraceDetect accepts an input only if its
    first records all look like kvmtrace records (known event classes,
    pids and vcpu ids in range), which text and JSON never do.

Environment:

    Core: no C runtime; the OS only through PRTL (pages for the reader
    state, hashing).  Called through the format table (TraceFormats.c:
    KvmtraceDetect, KvmtraceImport); calls the decoder and renderer
    (KvmtraceFormat.h), the rules (KvmtraceRules.c) and TraceImport.h's
    KVM pairs, page faults, generic events and interning.

--*/

#include "Readers/Import/TraceImport.h"
#include "KvmtraceFormat.h"
#include "Readers/Decoders/Decoders.h"

//
// The seed's formats file (seeds/004, user/formats), split at the event
// name: a rule prints "%(tsc)d (+%(reltsc)8d) NAME ARGS".  The import
// names events by NAME and keeps what ARGS prints.
//

typedef struct _SEED_RULE {
    ULONG Event;
    PCSZ Name;
    PCSZ Args;
} SEED_RULE, *PSEED_RULE;

#define TASK "vcpu = 0x%(vcpu)08x pid = 0x%(pid)08x"

static const SEED_RULE SeedRules[] = {
    { 0x00000000, "unknown", "(0x%(event)016x) " TASK " [ 0x%(1)08x "
      "0x%(2)08x 0x%(3)08x 0x%(4)08x 0x%(5)08x ]" },
    { 0x00010001, "VMENTRY", TASK },
    { 0x00010002, "VMEXIT", TASK " [ exitcode = 0x%(1)08x, rip = "
      "0x%(2)08x ]" },
    { 0x00020001, "PAGE_FAULT", TASK " [ errorcode = 0x%(1)08x, virt = "
      "0x%(2)08x ]" },
    { 0x00020002, "INJ_VIRQ", TASK " [ vector = 0x%(1)02x ]" },
    { 0x00020003, "PEND_INTR", TASK " [ vector = 0x%(1)02x ]" },
    { 0x00020004, "IO_READ", TASK " [ port = 0x%(1)04x, size = %(2)d ]" },
    { 0x00020005, "IO_WRITE", TASK " [ port = 0x%(1)04x, size = %(2)d ]" },
    { 0x00020006, "CR_READ", TASK " [ CR# = %(1)d, value = 0x%(2)08x ]" },
    { 0x00020007, "CR_WRITE", TASK " [ CR# = %(1)d, value = 0x%(2)08x ]" },
    { 0x00020008, "DR_READ", TASK " [ DR# = %(1)d, value = 0x%(2)08x ]" },
    { 0x00020009, "DR_WRITE", TASK " [ DR# = %(1)d, value = 0x%(2)08x ]" },
    { 0x0002000A, "MSR_READ", TASK " [ MSR# = 0x%(1)08x, data_lo = "
      "0x%(2)08x data_hi = 0x%(3)08x ]" },
    { 0x0002000B, "MSR_WRITE", TASK " [ MSR# = 0x%(1)08x, data_lo = "
      "0x%(2)08x data_hi = 0x%(3)08x]" },
    { 0x0002000C, "CPUID", TASK " [ func = 0x%(1)08x, eax = 0x%(2)08x, "
      "ebx = 0x%(3)08x, ecx = 0x%(4)08x edx = 0x%(5)08x]" },
    { 0x0002000D, "INTR", TASK " [ vector = 0x%(1)02x ]" },
    { 0x0002000E, "NMI", TASK },
    { 0x0002000F, "VMMCALL", TASK " [ func = 0x%(1)08x ]" },
    { 0x00020010, "HLT", TASK },
    { 0x00020011, "CLTS", TASK },
    { 0x00020012, "LMSW", TASK " [ value = 0x%(1)08x ]" },
    { 0x00020013, "APIC_ACCESS", TASK " [ offset = 0x%(1)08x ]" },
};

#undef TASK

#define SEED_RULE_COUNT     ARRAYSIZE(SeedRules)
#define RULES_TEXT_SIZE     4096

//
// Per-event text is nearly always new (data words differ), so it is not
// interned (the intern table would grow with the input).  A rule prints
// only the values in its Keys, so a small cache keyed by the rule and
// those values catches what repeats before anything is rendered; the rest
// is rendered straight into the string store.  Rules with the same ARGS
// (IO_READ and IO_WRITE, ...) share a key, so their equal texts share a
// string.  Exit reasons are interned until MAX_INTERNED_REASONS distinct
// codes have been seen (real traces have a few dozen), then appended.
//

#define ARGS_CACHE_ENTRIES      256
#define REASON_CACHE_ENTRIES    1024
#define MAX_INTERNED_REASONS    4096

typedef struct _ARGS_KEY {
    ULONGLONG Words[5];     // rule | event, pid | vcpu, data words 1..5
} ARGS_KEY, *PARGS_KEY;

typedef struct _ARGS_CACHE_ENTRY {
    ARGS_KEY Key;           // Words[0] ~0 when empty
    ULONG Id;
    ULONG Padding;
} ARGS_CACHE_ENTRY, *PARGS_CACHE_ENTRY;

C_ASSERT(sizeof(ARGS_CACHE_ENTRY) == 48);

typedef struct _REASON_CACHE_ENTRY {
    ULONG Code;
    ULONG Id;               // TRACE_NULL_ULONG when empty
} REASON_CACHE_ENTRY, *PREASON_CACHE_ENTRY;

#define MAX_TSC                 TSC_CLOCK_MAX_TSC

typedef struct _KVMTRACE_READER {
    PTRACE_IMPORT Import;
    KVMTRACE_RULES Rules;
    TSC_CLOCK Clock;
    ULONG NameIds[SEED_RULE_COUNT];
    ULONG SameArgs[SEED_RULE_COUNT];    // the first rule with the same ARGS
    ULONG InternedReasons;
    ULONG Padding;
    REASON_CACHE_ENTRY Reasons[REASON_CACHE_ENTRIES];
    ARGS_CACHE_ENTRY Args[ARGS_CACHE_ENTRIES];
    CHAR RulesText[RULES_TEXT_SIZE];
} KVMTRACE_READER, *PKVMTRACE_READER;

static
BOOL
LooksLikeRecord(
    PKVMTRACE_RECORD Record
    )
/*++

Routine Description:

    Detection only: kvmtrace event ids are a class in the high 16 bits
    (1 entry/exit, 2 handlers) and a small number; pids are below Linux's
    PID_MAX_LIMIT; vcpu ids are small; kvmtrace writes at most five data
    words; a TSC has its top bit clear.

--*/
{
    ULONG Class = Record->Event >> 16;

    return Class != 0 && Class < 0x100 &&
           (Record->Event & 0xffff) < 0x1000 &&
           Record->DataCount <= KVMTRACE_RULE_DATA &&
           Record->Pid < 0x400000 &&
           Record->Vcpu < 0x10000 &&
           Record->Tsc < MAX_TSC;
}

BOOL
KvmtraceDetect(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Accepts the input if its first records (up to 64) all look like
    kvmtrace records: at least four of them, or fewer that end exactly at
    the end of the input.

--*/
{
    KVMTRACE_RECORD Record;
    KVMTRACE_DECODE Decode = KvmtraceDecodeEnd;
    SIZE_T Offset = 0;
    ULONG Count = 0;

    if (Import->IsDirectory || Import->Buffer == NULL) {
        return FALSE;
    }

    while (Count < 64) {
        Decode = KvmtraceDecode(Import->Buffer + Offset,
                                Import->Length - Offset, &Record);
        if (Decode != KvmtraceDecodeComplete) {
            break;
        }
        if (!LooksLikeRecord(&Record)) {
            return FALSE;
        }
        Offset += Record.Size;
        Count++;
    }

    return Count >= 4 || (Count >= 1 && Decode == KvmtraceDecodeEnd);
}

static
RTL_STATUS
SetUpClock(
    PKVMTRACE_READER Reader
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    if (!TscClockSetUp(&Reader->Clock, Import->TscMhz)) {
        return RtlSetError(&Import->Error, RTL_STATUS_INVALID_PARAMETER, 0,
                           0, "%s: a TSC rate below 1 MHz or above 1 THz is "
                           "not supported", Import->Path);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
RecordError(
    PKVMTRACE_READER Reader,
    SIZE_T Offset,
    PCSZ What,
    ULONGLONG Value
    )
{
    return TraceImportByteError(Reader->Import, (ULONGLONG)Offset, "%s %llu",
                                What, Value);
}

static
RTL_STATUS
TruncatedError(
    PKVMTRACE_READER Reader,
    SIZE_T Offset,
    KVMTRACE_DECODE Decode
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONGLONG Left = Import->Length - Offset;
    ULONG Header;

    if (Decode == KvmtraceDecodeCutHeader) {
        return TraceImportByteError(Import, (ULONGLONG)Offset, "truncated "
                                    "record: the input ends inside its "
                                    "12-byte header (%llu bytes left)", Left);
    }

    Header = KvmtraceLoad32(Import->Buffer + Offset);
    return TraceImportByteError(Import, (ULONGLONG)Offset, "truncated record: "
                                "the input ends inside its %s (%llu of %u "
                                "bytes)", KvmtraceDecodeText(Decode), Left,
                                KVMTRACE_HEADER_SIZE +
                                ((Header >> 31) ? 8 : 0) +
                                4 * ((Header >> 28) & 7));
}

static
RTL_STATUS
StringError(
    PKVMTRACE_READER Reader,
    RTL_STATUS Status,
    ULONG Length
    )
{
    PTRACE_IMPORT Import = Reader->Import;

    return RtlSetError(&Import->Error, Status, 0, ~0ULL,
                       "%s: cannot store a string of %u bytes: %s",
                       Import->Path, Length, RtlStatusText(Status));
}

static
RTL_STATUS
AppendText(
    PKVMTRACE_READER Reader,
    PCSZ Text,
    ULONG Length,
    PULONG Id
    )
/*++

Routine Description:

    Adds per-event text as a new string (not interned).

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    RTL_STATUS Status;

    Status = TraceStringAppend(&Import->Session->Strings, Text, Length,
                               Import->Rtl->Hash64(Text, Length), Id);
    if (!RTL_SUCCESS(Status)) {
        return StringError(Reader, Status, Length);
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ReasonId(
    PKVMTRACE_READER Reader,
    ULONG Code,
    PULONG Id
    )
/*++

Routine Description:

    kvmtrace does not say whether an exit code is VMX's or SVM's, and the
    seed's rules print it in hex: the reason is that hex ("0x0000001e").

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PREASON_CACHE_ENTRY Entry;
    CHAR Text[16];
    ULONG Length;
    RTL_STATUS Status;

    Entry = &Reader->Reasons[(Code ^ (Code >> 10) ^ (Code >> 20)) %
                             REASON_CACHE_ENTRIES];
    if (Entry->Id != TRACE_NULL_ULONG && Entry->Code == Code) {
        *Id = Entry->Id;
        return RTL_STATUS_OK;
    }

    Text[0] = '0';
    Text[1] = 'x';
    for (Length = 0; Length < 8; Length++) {
        Text[9 - Length] = "0123456789abcdef"[(Code >> (4 * Length)) & 15];
    }
    Length = 10;
    if (Reader->InternedReasons < MAX_INTERNED_REASONS) {
        Reader->InternedReasons++;
        Status = TraceImportIntern(Import, Text, Length, Id);
    } else {
        Status = AppendText(Reader, Text, Length, Id);
    }
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    Entry->Code = Code;
    Entry->Id = *Id;
    return RTL_STATUS_OK;
}

static
RTL_STATUS
RenderArgs(
    PKVMTRACE_READER Reader,
    ULONG RuleIndex,
    PKVMTRACE_RECORD Record,
    PULONG ArgsId
    )
/*++

Routine Description:

    The string id of what rule RuleIndex prints for Record: a recent
    identical one's (same rule ARGS, same printed values), or new text
    rendered in place at the end of the string store.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    PTRACE_STRING_TABLE Strings = &Import->Session->Strings;
    PKVMTRACE_RULE Rule = &Reader->Rules.Rules[RuleIndex];
    ULONG Keys = Rule->Keys;
    PARGS_CACHE_ENTRY Entry = NULL;
    KVMTRACE_VALUES Values;
    KVMTRACE_TSC_STATE State = { 0 };
    ARGS_KEY Key;
    ULONGLONG Slot;
    ULONG Index;
    ULONG Length;
    PCHAR Text;
    RTL_STATUS Status;

    //
    // The key: the values the rule prints (others as 0).  A rule that
    // prints a TSC is not cached (a new value nearly every record).
    //

    if ((Keys & (KVMTRACE_KEY_BIT_TSC | KVMTRACE_KEY_BIT_RELTSC)) == 0) {
        ULONG Data[KVMTRACE_RULE_DATA];

        //
        // Masks, not branches: the rule changes from record to record.
        //

#define KEY_MASK(Bit) (0 - (ULONG)((Keys & (Bit)) != 0))

        for (Index = 0; Index < KVMTRACE_RULE_DATA; Index++) {
            Data[Index] = Record->Data[Index] &
                          KEY_MASK(KVMTRACE_KEY_BIT_DATA(Index + 1));
        }
        Key.Words[0] = Reader->SameArgs[RuleIndex] |
                       ((ULONGLONG)(Record->Event &
                                    KEY_MASK(KVMTRACE_KEY_BIT_EVENT)) << 32);
        Key.Words[1] = (Record->Pid & KEY_MASK(KVMTRACE_KEY_BIT_PID)) |
                       ((ULONGLONG)(Record->Vcpu &
                                    KEY_MASK(KVMTRACE_KEY_BIT_VCPU)) << 32);
#undef KEY_MASK
        Key.Words[2] = Data[0] | ((ULONGLONG)Data[1] << 32);
        Key.Words[3] = Data[2] | ((ULONGLONG)Data[3] << 32);
        Key.Words[4] = Data[4];

        Slot = (Key.Words[0] * 0x9E3779B97F4A7C15ULL) ^
               (Key.Words[1] * 0xC2B2AE3D27D4EB4FULL) ^
               (Key.Words[2] * 0x165667B19E3779F9ULL) ^
               (Key.Words[3] * 0xD6E8FEB86659FD93ULL) ^
               (Key.Words[4] * 0x9FB21C651E98DF25ULL);
        Entry = &Reader->Args[(Slot >> 40) % ARGS_CACHE_ENTRIES];

        if (((Entry->Key.Words[0] ^ Key.Words[0]) |
             (Entry->Key.Words[1] ^ Key.Words[1]) |
             (Entry->Key.Words[2] ^ Key.Words[2]) |
             (Entry->Key.Words[3] ^ Key.Words[3]) |
             (Entry->Key.Words[4] ^ Key.Words[4])) == 0) {
            *ArgsId = Entry->Id;
            return RTL_STATUS_OK;
        }
    }

    Status = TraceStringReserveText(Strings, Rule->MaxLength, &Text);
    if (!RTL_SUCCESS(Status)) {
        return StringError(Reader, Status, Rule->MaxLength);
    }

    KvmtraceSetValues(&Reader->Rules, &State, Record, &Values);
    Status = KvmtraceRender(&Reader->Rules, RuleIndex, &Values, Text,
                            &Length, &Import->Error);
    if (!RTL_SUCCESS(Status)) {
        TraceStringCancelReserved(Strings, Text);
        return Status;
    }

    //
    // The renderer may have written past the text; the file keeps zeros
    // there, as if the text had been copied.
    //

    __builtin_memset(Text + Length, 0, KVMTRACE_RENDER_SLACK);

    Status = TraceStringAppendReserved(Strings, Text, Length,
                                       Import->Rtl->Hash64(Text, Length),
                                       ArgsId);
    if (!RTL_SUCCESS(Status)) {
        return StringError(Reader, Status, Length);
    }

    if (Entry != NULL) {
        Entry->Key = Key;
        Entry->Id = *ArgsId;
    }

    return RTL_STATUS_OK;
}

static
RTL_STATUS
ImportRecord(
    PKVMTRACE_READER Reader,
    PKVMTRACE_RECORD Record,
    PTRACE_EVENT_CONTEXT Event
    )
{
    PTRACE_IMPORT Import = Reader->Import;
    ULONGLONG PairKey = (((ULONGLONG)Record->Vcpu << 32) | Record->Pid) + 1;
    ULONG RuleIndex;
    ULONG ArgsId;
    BOOL Paired;
    RTL_STATUS Status;

    if (PairKey == 0) {
        PairKey = 1;
    }

    switch (Record->Event) {
    case KVMTRACE_EVENT_VMEXIT: {
        KVM_EXIT_RECORD Exit;

        //
        // Data words a record does not carry read as 0, as in the seed's
        // rules.  The kernel writes the rip as two words, low then high
        // (the seed's rule prints the low one); so is a fault's address.
        //

        Exit.ExitCode = Record->Data[0];
        Exit.Rip = Record->Data[1] | ((ULONGLONG)Record->Data[2] << 32);
        Status = ReasonId(Reader, Record->Data[0], &Exit.ReasonId);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
        Exit.Vcpu = Record->Vcpu;
        Exit.Tsc = Record->TscPresent ? Record->Tsc : TRACE_NULL_ULONGLONG;


        //
        // Every field of the exit has its column: no args text (it would
        // be a new string per exit, the largest part of the output).
        //

        Exit.ArgsId = TRACE_NULL_ULONG;
        Exit.RawId = TRACE_STRING_NULL;
        return TraceImportKvmExitKeyed(Import, Event, PairKey, &Exit);
    }

    case KVMTRACE_EVENT_VMENTRY:
        Status = TraceImportKvmEntryKeyed(Import, Event, PairKey,
                                          TRACE_STRING_NULL, &Paired);
        if (!RTL_SUCCESS(Status) || Paired) {
            return Status;
        }
        break;

    case KVMTRACE_EVENT_PAGE_FAULT: {
        PAGE_FAULT_RECORD Fault;

        Fault.ErrorCode = Record->Data[0];
        Fault.Address = Record->Data[1] | ((ULONGLONG)Record->Data[2] << 32);
        Fault.Ip = TRACE_NULL_ULONGLONG;
        Fault.NameId = Reader->NameIds[KvmtraceRulesFind(&Reader->Rules,
                                                         Record->Event)];
        Fault.IpSymbolId = TRACE_NULL_ULONG;
        Fault.ModuleId = TRACE_NULL_ULONG;
        Fault.IpModuleId = TRACE_NULL_ULONG;
        TraceImportPageFaultUnclassified(&Fault);
        return TraceImportPageFault(Import, Event, &Fault);
    }

    default:
        break;
    }

    RuleIndex = KvmtraceRulesFind(&Reader->Rules, Record->Event);
    Status = RenderArgs(Reader, RuleIndex, Record, &ArgsId);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return TraceImportGenericEvent(Import, Event, Reader->NameIds[RuleIndex],
                                   ArgsId, TRACE_STRING_NULL);
}

static
RTL_STATUS
BeginReader(
    PKVMTRACE_READER Reader
    )
/*++

Routine Description:

    Compiles the seed rules' ARGS halves (as a formats file of `ID ARGS`
    lines, one per SeedRules entry, so rule i is SeedRules[i]) and interns
    the names and the clock.

--*/
{
    PTRACE_IMPORT Import = Reader->Import;
    SIZE_T Used = 0;
    ULONG Index;
    RTL_STATUS Status;

    for (Index = 0; Index < SEED_RULE_COUNT; Index++) {
        Used += RtlFormat(Reader->RulesText + Used,
                          RULES_TEXT_SIZE - Used, "0x%08x %s\n",
                          SeedRules[Index].Event, SeedRules[Index].Args);
    }

    Status = KvmtraceRulesParse(Import->Rtl, "kvmtrace seed rules",
                                Reader->RulesText, Used, 0, &Reader->Rules,
                                &Import->Error);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    for (Index = 0; Index < SEED_RULE_COUNT; Index++) {
        ULONG Same;

        for (Same = 0; Same < Index; Same++) {
            if (RtlStringLength(SeedRules[Same].Args) ==
                    RtlStringLength(SeedRules[Index].Args) &&
                Import->Rtl->CompareMemory(
                    SeedRules[Same].Args, SeedRules[Index].Args,
                    RtlStringLength(SeedRules[Index].Args)) == 0) {
                break;
            }
        }
        Reader->SameArgs[Index] = Same;

        Status = TraceImportIntern(Import, SeedRules[Index].Name,
                                   (ULONG)RtlStringLength(
                                       SeedRules[Index].Name),
                                   &Reader->NameIds[Index]);
        if (!RTL_SUCCESS(Status)) {
            return Status;
        }
    }

    for (Index = 0; Index < REASON_CACHE_ENTRIES; Index++) {
        Reader->Reasons[Index].Id = TRACE_NULL_ULONG;
    }
    for (Index = 0; Index < ARGS_CACHE_ENTRIES; Index++) {
        Reader->Args[Index].Key.Words[0] = ~0ULL;
    }

    Status = TraceImportSetClock(Import, "tsc", 3);
    if (!RTL_SUCCESS(Status)) {
        return Status;
    }

    return SetUpClock(Reader);
}

RTL_STATUS
KvmtraceImport(
    PTRACE_IMPORT Import
    )
/*++

Routine Description:

    Imports every record of the mapped input.  A record cut off by the end
    of the input is an error naming its byte offset; every record before
    it is kept.

--*/
{
    PRTL Rtl = Import->Rtl;
    PKVMTRACE_READER Reader;
    KVMTRACE_RECORD Record;
    KVMTRACE_DECODE Decode;
    TRACE_EVENT_CONTEXT Event;
    SIZE_T Offset = 0;
    LONGLONG Timestamp = 0;
    RTL_STATUS Status;

    Status = Rtl->AllocatePages(Rtl, sizeof(KVMTRACE_READER),
                                (PPVOID)&Reader);
    if (!RTL_SUCCESS(Status)) {
        return RtlSetError(&Import->Error, Status, 0, 0, "%s: %s",
                           Import->Path, RtlStatusText(Status));
    }
    Reader->Import = Import;

    Status = BeginReader(Reader);
    if (!RTL_SUCCESS(Status)) {
        goto End;
    }

    Event.Pid = TRACE_NULL_ULONG;
    Event.Cpu = TRACE_NULL_ULONG;
    Event.CommId = TRACE_NULL_ULONG;
    Event.FlagsId = TRACE_NULL_ULONG;
    Event.Padding = 0;

    for (;;) {
        Decode = KvmtraceDecode(Import->Buffer + Offset,
                                Import->Length - Offset, &Record);
        if (Decode != KvmtraceDecodeComplete) {
            if (Decode != KvmtraceDecodeEnd) {
                Status = TruncatedError(Reader, Offset, Decode);
            }
            break;
        }

        if (Record.TscPresent) {
            if (Record.Tsc >= MAX_TSC) {
                Status = RecordError(Reader, Offset, "TSC above 2^63:",
                                     Record.Tsc);
                break;
            }
            if (!TscClockToNs(&Reader->Clock, Record.Tsc, &Timestamp)) {
                Status = RecordError(Reader, Offset, "TSC converts to more "
                                     "than 2^61 ns:", Record.Tsc);
                break;
            }
        }

        Event.Timestamp = TraceImportAlignTs(Import, Timestamp);
        Event.Tid = Record.Pid;

        Status = ImportRecord(Reader, &Record, &Event);
        if (!RTL_SUCCESS(Status)) {
            break;
        }

        Offset += Record.Size;
        Status = TraceImportEventDone(Import, Offset);
        if (!RTL_SUCCESS(Status)) {
            break;
        }
    }

End:
    KvmtraceRulesFree(&Reader->Rules);
    Rtl->Unmap(Rtl, Reader, sizeof(KVMTRACE_READER));
    return Status;
}

//
// The decoder, as the format table lists it (Readers/Decoders/Decoders.h).
//

const TRACE_FORMAT KvmtraceDecoder = {
    "kvmtrace",
    "kvmtrace binary record stream",
    0,
    KvmtraceDetect,
    KvmtraceImport
};
