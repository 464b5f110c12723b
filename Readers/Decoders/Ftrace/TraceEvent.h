/*++

Module Name:

    TraceEvent.h

Abstract:

    The ftrace event model, independent of any container: what the kernel
    describes in tracefs (`events/header_page`, `events/header_event`,
    `events/SYSTEM/EVENT/format`, `/proc/kallsyms`, `printk_formats`,
    `saved_cmdlines`) and what it writes into its per-CPU ring-buffer
    pages.  trace-cmd's trace.dat reader (TraceDat*.c) feeds it the copies
    stored in the file; a live recorder feeds it the tracefs files and the
    pages read from `per_cpu/cpuN/trace_pipe_raw`.

    Four parts:

      - The ring-buffer page decoder: a page header (timestamp, commit
        with the missed-events flags, data) laid out as header_page says,
        and the compressed event headers (type_len:5, time_delta:27,
        padding, time extend and absolute time stamp records).

      - The event table: every `format` file parsed into fields (offset,
        size, signedness, arrays, __data_loc / __rel_loc) and found by the
        event id in each record's common_type.

      - Field decoding by that description, and a print-fmt interpreter
        that renders an event's text the way `trace-cmd report` prints it
        (REC->field, integer and string conversions with widths,
        __get_str, __print_symbolic, __print_flags, __print_hex,
        __print_array, casts, arithmetic and ternaries, %ps symbols); an
        event whose print fmt uses anything else is rendered as
        "field=value field=value".

      - The sink (TraceEventImport.c): decoded events routed into the
        session's stores through TraceImport.h; the dedicated stores'
        records built by Readers/Decoders/Ftrace/FtraceRecord.c from the record
        types' ftrace maps.

    Only little-endian ring buffers are decoded.

Environment:

    Core: no C runtime; the OS only through PRTL (memory from
    Rtl->AllocatePages).  Implemented by TraceEvent.c, TraceEventFormat.c,
    TraceEventRing.c, TraceEventSymbols.c (TraceEventInternal.h), the
    TraceEventPrint*.c files (TraceEventPrintInternal.h),
    TraceEventPlugins.c and TraceEventImport.c; used by the trace.dat
    reader (TraceDat*.c) and the live recorder (Live/).  Calls the
    import context (TraceImport.h) and TextParse.h.

--*/

#ifndef _TRACER_TRACE_EVENT_H_
#define _TRACER_TRACE_EVENT_H_

#include "Readers/Import/TraceImport.h"

//
// A bump allocator over blocks from Rtl->AllocatePages, released at once.
// Holds what is parsed from the event descriptions (their size is set by
// the kernel, not by the length of the trace).
//

typedef struct _TRACE_ARENA {
    PRTL Rtl;
    PBYTE Block;            // current block; its first word links the last
    SIZE_T Used;
    SIZE_T Size;
    ULONGLONG TotalBytes;   // all blocks, for limits
} TRACE_ARENA, *PTRACE_ARENA;

RTL_STATUS TraceArenaAllocate(PTRACE_ARENA Arena, SIZE_T Size,
                              PVOID *Address);
VOID TraceArenaRelease(PTRACE_ARENA Arena);

//
// events/header_page: where the page timestamp, the commit word and the
// event data are in each ring-buffer page.
//

typedef struct _TRACE_PAGE_LAYOUT {
    ULONG TimestampOffset;
    ULONG TimestampSize;    // 8
    ULONG CommitOffset;
    ULONG CommitSize;       // the kernel's long: 4 or 8
    ULONG DataOffset;
    ULONG DataSize;         // page size - DataOffset, as the kernel says
} TRACE_PAGE_LAYOUT, *PTRACE_PAGE_LAYOUT;
typedef const TRACE_PAGE_LAYOUT *PCTRACE_PAGE_LAYOUT;

//
// Parses header_page.  On failure *Reason says what is wrong.
//

RTL_STATUS TraceEventParseHeaderPage(PCSZ Text, SIZE_T Length,
                                     PTRACE_PAGE_LAYOUT Layout,
                                     PCSZ *Reason);

//
// Checks that header_event describes the event header this decoder
// knows (type_len 5 bits, time_delta 27 bits, padding 29, time extend 30,
// time stamp 31, data up to 28).  Older ring buffers are refused with
// RTL_STATUS_BAD_VERSION.
//

RTL_STATUS TraceEventParseHeaderEvent(PCSZ Text, SIZE_T Length,
                                      PCSZ *Reason);

//
// Ring-buffer pages.
//

#define TRACE_RING_TYPE_PADDING     29
#define TRACE_RING_TYPE_TIME_EXTEND 30
#define TRACE_RING_TYPE_TIME_STAMP  31
#define TRACE_RING_TS_SHIFT         27
#define TRACE_RING_MISSED_EVENTS    0x80000000ULL
#define TRACE_RING_MISSED_STORED    0x40000000ULL
#define TRACE_RING_COMMIT_MASK      ((1ULL << 27) - 1)

typedef struct _TRACE_RING_PAGE {
    const BYTE *Data;       // first event
    ULONG Size;             // committed bytes from Data
    ULONG Offset;           // next event header, from Data
    ULONGLONG Timestamp;    // running time stamp
    LONGLONG LostEvents;    // before this page: 0, a count, or -1 (unknown)
} TRACE_RING_PAGE, *PTRACE_RING_PAGE;

typedef struct _TRACE_RING_EVENT {
    ULONGLONG Timestamp;
    const BYTE *Data;       // the event record (common_type first)
    ULONG Size;             // its length, a multiple of 4
    ULONG Offset;           // its header, from the page's Data
} TRACE_RING_EVENT, *PTRACE_RING_EVENT;

//
// Starts decoding a page of PageLength bytes.  Fails (with *Reason) if the
// committed size does not fit the page.
//

RTL_STATUS TraceRingPageBegin(PTRACE_RING_PAGE Page,
                              PCTRACE_PAGE_LAYOUT Layout,
                              const BYTE *PageStart, SIZE_T PageLength,
                              PCSZ *Reason);

//
// Returns the next data event of the page in *Event (time extends, time
// stamps and padding are applied and skipped); *Found is FALSE at the end
// of the page.  A record that runs past the committed size is an error:
// *Reason says what, Page->Offset is where.
//

RTL_STATUS TraceRingPageNext(PTRACE_RING_PAGE Page, PTRACE_RING_EVENT Event,
                             PBOOL Found, PCSZ *Reason);

//
// Event descriptions.
//

#define TRACE_FIELD_SIGNED      0x0001
#define TRACE_FIELD_ARRAY       0x0002
#define TRACE_FIELD_DYNAMIC     0x0004  // __data_loc: offset | length << 16
#define TRACE_FIELD_RELATIVE    0x0008  // __rel_loc: offset from the field end
#define TRACE_FIELD_STRING      0x0010  // an array of char
#define TRACE_FIELD_POINTER     0x0020
#define TRACE_FIELD_LONG        0x0040
#define TRACE_FIELD_COMMON      0x0080

typedef struct _TRACE_EVENT_FIELD {
    PCSZ Name;
    PCSZ Type;              // as declared, without the name and array part
    ULONG Offset;
    ULONG Size;             // 0: the rest of the record
    ULONG ElementSize;
    ULONG Flags;            // TRACE_FIELD_*
} TRACE_EVENT_FIELD, *PTRACE_EVENT_FIELD;
typedef const TRACE_EVENT_FIELD *PCTRACE_EVENT_FIELD;

typedef struct _TRACE_PRINT TRACE_PRINT, *PTRACE_PRINT;

//
// How the sink prints an event's text (set from its system and name when
// the event is first seen).  Which store it goes to is its record type's
// (TRACE_EVENT_FORMAT.RecordType).
//

typedef enum _TRACE_EVENT_KIND {
    TraceEventKindUnknown = 0,
    TraceEventKindGeneric,
    TraceEventKindKvmExit,
    TraceEventKindKvmEntry,
    TraceEventKindSchedWakeup,
    TraceEventKindKvmEmulateInsn,
    TraceEventKindKvmNestedVmexit,
    TraceEventKindKvmNestedVmexitInject,
    TraceEventKindHrtimerStart,
    TraceEventKindHrtimerExpireEntry,

    //
    // Printed by TraceEventPluginRender (TraceEventPlugins.c).
    //

    TraceEventKindKmemCallSite,     // kmem: kmalloc, kfree, ... "(site+0x..) "
    TraceEventKindTlbFlush,         // tlb: tlb_flush
    TraceEventKindFutex,            // syscalls: sys_enter_futex
    TraceEventKindFunction,         // ftrace: function
    TraceEventKindFuncRepeats,      // ftrace: func_repeats (its text has a time)
    TraceEventKindKernelStack,      // ftrace: kernel_stack
    TraceEventKindRawData,          // ftrace: raw_data
    TraceEventKindBprint,           // ftrace: bprint (trace_printk)
} TRACE_EVENT_KIND;

typedef struct _TRACE_EVENT_FORMAT {
    ULONG Id;
    ULONG NumberOfFields;           // common fields first
    PCSZ System;
    PCSZ Name;
    PTRACE_EVENT_FIELD Fields;
    PCSZ PrintFmt;                  // the text after "print fmt: "
    ULONG PrintFmtLength;
    ULONG PrintState;               // TRACE_PRINT_STATE_*
    PTRACE_PRINT Print;             // compiled on first use

    //
    // A format added with TraceEventTableAddFormatDeferred is checked when
    // added but its fields and print fmt are only taken from its text
    // (which outlives the table) by TraceEventCompleteFormat; until then
    // Text is not NULL and Fields and PrintFmt are.
    //

    PCSZ Text;
    PCSZ TextEnd;
    PCSZ PrintText;                 // the print fmt in Text, or NULL
    PCSZ PrintTextEnd;
    ULONG FieldCount;

    //
    // The whole format file as given (kept for the session's event_format
    // rows): Text when deferred, else a copy.
    //

    PCSZ Source;
    ULONG SourceLength;

    //
    // For the sink.
    //

    TRACE_EVENT_KIND Kind;
    ULONG NameId;                   // interned name, or TRACE_NULL_ULONG
    PCTRACE_EVENT_FIELD Special[8]; // fields the sink prints, by kind
    PCTRACE_RECORD_TYPE RecordType; // the dedicated store whose ftrace
                                    // map takes the event, or NULL
    BOOL RecordEnd;                 // the event is the map's EndEvent
    PCTRACE_EVENT_FIELD Mapped[TRACE_FTRACE_MAX_FIELDS]; // the map's fields
    ULONG ReasonItem;               // kvm_exit: print items of the reason
    ULONG ReasonItemEnd;
    BOOL BprintFailed;              // bprint: a format ran out of arguments

    //
    // For the text path (EventText.c, TraceEventPrintScan.c): the source
    // row whose event_format row it wrote, + 1; the record's fixed part
    // (the largest field end; 0 until the first scan) and its latency
    // fields.
    //

    ULONGLONG TextSourceId;
    ULONG TextRecordSize;
    PCTRACE_EVENT_FIELD TextFlags;
    PCTRACE_EVENT_FIELD TextPreempt;

} TRACE_EVENT_FORMAT, *PTRACE_EVENT_FORMAT;

//
// TRUE if Format is the event System:Name.
//

static inline
BOOL
TraceEventFormatIs(
    const TRACE_EVENT_FORMAT *Format,
    PCSZ System,
    PCSZ Name
    )
{
    return RtlStringEqual(Format->System, System) &&
           RtlStringEqual(Format->Name, Name);
}

#define TRACE_PRINT_STATE_NEW       0
#define TRACE_PRINT_STATE_READY     1
#define TRACE_PRINT_STATE_FAILED    2

//
// A symbol from kallsyms.
//

typedef struct _TRACE_SYMBOL {
    ULONGLONG Address;
    ULONG NameOffset;       // into the symbol text
    ULONG NameLength;
} TRACE_SYMBOL, *PTRACE_SYMBOL;

//
// A trace_printk format string, by the address the kernel stores.
//

typedef struct _TRACE_PRINTK {
    ULONGLONG Address;
    ULONG TextOffset;
    ULONG TextLength;
} TRACE_PRINTK, *PTRACE_PRINTK;

#define TRACE_EVENT_MAX_ID 65535    // common_type is an unsigned short

typedef struct _TRACE_EVENT_TABLE {
    PRTL Rtl;
    TRACE_ARENA Arena;
    ULONG LongSize;                 // of the traced kernel: 4 or 8
    ULONG NumberOfEvents;
    PTRACE_EVENT_FORMAT *ById;      // TRACE_EVENT_MAX_ID + 1 slots
    ULONG TypeOffset;               // common_type, from the first format
    ULONG TypeSize;
    ULONG PidOffset;                // common_pid
    ULONG PidSize;

    //
    // kallsyms and printk formats: the text is kept (copied, or owned
    // when handed over) and indexed on the first lookup.
    //

    PCSZ SymbolText;
    SIZE_T SymbolTextLength;
    PVOID SymbolTextOwned;          // pages to release, or NULL
    SIZE_T SymbolTextOwnedSize;
    PTRACE_SYMBOL Symbols;          // sorted by address; NULL until used
    ULONG NumberOfSymbols;
    BOOL SymbolsIndexed;
    PCSZ PrintkText;
    SIZE_T PrintkTextLength;
    PTRACE_PRINTK Printks;
    ULONG NumberOfPrintks;
    BOOL PrintksIndexed;
    SIZE_T SymbolBytes;             // pages of Symbols
    SIZE_T PrintkBytes;             // pages of Printks

    //
    // Pages holding the text of deferred formats, released with the table
    // (TraceEventTableKeepText).
    //

    PVOID KeptText[4];
    SIZE_T KeptTextSize[4];

} TRACE_EVENT_TABLE, *PTRACE_EVENT_TABLE;

RTL_STATUS TraceEventTableInitialize(PRTL Rtl, ULONG LongSize,
                                     PTRACE_EVENT_TABLE Table);
VOID TraceEventTableRelease(PTRACE_EVENT_TABLE Table);

//
// Parses one `format` file of System (copied).  A file that does not
// describe an event (no name, id or fields) fails with *Reason; an event
// id seen twice replaces the earlier description.
//

RTL_STATUS TraceEventTableAddFormat(PTRACE_EVENT_TABLE Table, PCSZ System,
                                    ULONG SystemLength, PCSZ Text,
                                    SIZE_T Length, PCSZ *Reason);

//
// The same for a Text that outlives the table, for a reader that adds
// every format of a trace and uses few: the format is checked now (it
// fails exactly as TraceEventTableAddFormat would), but its fields and
// print fmt are taken from Text only when TraceEventCompleteFormat is
// called, at the first lookup that needs them.  The first formats, up to
// the one that gives the common fields' places, are added in full.
//

//
// Adds the format file of each SYSTEM/EVENT of a tracefs events directory
// (or of a tracefs mount point's events/) (TraceEventFormatDir.c).  An
// error names the file in Error.
//

RTL_STATUS TraceEventTableAddDirectory(PTRACE_EVENT_TABLE Table, PCSZ Path,
                                       PRTL_ERROR Error);

RTL_STATUS TraceEventTableAddFormatDeferred(PTRACE_EVENT_TABLE Table,
                                            PCSZ System, ULONG SystemLength,
                                            PCSZ Text, SIZE_T Length,
                                            PCSZ *Reason);

//
// Completes a deferred format (nothing to do for others).  Fails only
// without memory, with *Reason set.
//

RTL_STATUS TraceEventCompleteFormat(PTRACE_EVENT_TABLE Table,
                                    PTRACE_EVENT_FORMAT Format,
                                    PCSZ *Reason);

//
// The size of a kernel C type ("unsigned long", "u32", "char[]", "u8 *")
// in a recording whose long is LongSize bytes; for a name it does not
// know, 0, or a guess from its words when Guess is TRUE (see
// TraceEventFormat.c).  Field element sizes and print fmt's sizeof both
// ask it.
//

ULONG TraceEventTypeSize(PCSZ Type, SIZE_T Length, ULONG LongSize,
                         BOOL Guess);

//
// Hands the table pages (Size bytes) holding deferred formats' text, to
// be released with it (Rtl->Unmap).  It keeps up to four such regions:
// ask TraceEventTableCanKeepText first, and add the formats in full if
// it cannot.
//

BOOL TraceEventTableCanKeepText(PTRACE_EVENT_TABLE Table);
VOID TraceEventTableKeepText(PTRACE_EVENT_TABLE Table, PVOID Pages,
                             SIZE_T Size);

//
// Hands kallsyms text to the table.  If Owned is not NULL the table
// releases those pages (OwnedSize bytes) with Rtl->Unmap; otherwise the
// text must outlive the table.
//

VOID TraceEventTableSetSymbols(PTRACE_EVENT_TABLE Table, PCSZ Text,
                               SIZE_T Length, PVOID Owned,
                               SIZE_T OwnedSize);

//
// The sorted symbols of a kallsyms text, as the first lookup builds them.
// TraceEventBuildSymbolIndex reads only the text and writes only *Index
// (and pages it allocates), so a worker thread may build it while the
// table is in use; TraceEventTableSetSymbolIndex then gives it to the
// table, which must hold that same text (TraceEventTableSetSymbols).  An
// index not handed over is released with TraceEventReleaseSymbolIndex.
//

typedef struct _TRACE_SYMBOL_INDEX {
    PTRACE_SYMBOL Symbols;          // NULL if none
    ULONG NumberOfSymbols;
    ULONG Padding;
    SIZE_T Bytes;                   // pages of Symbols
} TRACE_SYMBOL_INDEX, *PTRACE_SYMBOL_INDEX;

VOID TraceEventBuildSymbolIndex(PRTL Rtl, PCSZ Text, SIZE_T Length,
                                PTRACE_SYMBOL_INDEX Index);
VOID TraceEventTableSetSymbolIndex(PTRACE_EVENT_TABLE Table,
                                   PTRACE_SYMBOL_INDEX Index);
VOID TraceEventReleaseSymbolIndex(PRTL Rtl, PTRACE_SYMBOL_INDEX Index);

//
// Hands printk_formats text to the table (it must outlive the table).
//

VOID TraceEventTableSetPrintk(PTRACE_EVENT_TABLE Table, PCSZ Text,
                              SIZE_T Length);

//
// The function containing Address as `trace-cmd report` finds it (the
// last symbol at or below it, or only an exact match for the last
// symbol).  FALSE if none.
//

BOOL TraceEventFindSymbol(PTRACE_EVENT_TABLE Table, ULONGLONG Address,
                          PCSZ *Name, PULONG NameLength, PULONGLONG Start);

//
// The format of an event id, or NULL.  A deferred one must be completed
// (TraceEventCompleteFormat) before its fields or print fmt are used.
//

static inline
PTRACE_EVENT_FORMAT
TraceEventLookup(
    PTRACE_EVENT_TABLE Table,
    ULONG Id
    )
{
    return Id <= TRACE_EVENT_MAX_ID ? Table->ById[Id] : NULL;
}

//
// The same as perf names it: of the symbols at that address, the one
// listed last in kallsyms.
//

BOOL TraceEventFindSymbolLastListed(PTRACE_EVENT_TABLE Table,
                                    ULONGLONG Address, PCSZ *Name,
                                    PULONG NameLength, PULONGLONG Start);

//
// The address of the kallsyms symbol called Name (the first one by
// address), for names print fmts use as values.  FALSE if none.
//

BOOL TraceEventFindSymbolByName(PTRACE_EVENT_TABLE Table, PCSZ Name,
                                ULONG NameLength, PULONGLONG Address);

//
// The trace_printk format string stored at Address, if any.
//

BOOL TraceEventFindPrintk(PTRACE_EVENT_TABLE Table, ULONGLONG Address,
                          PCSZ *Text, PULONG Length);

PCTRACE_EVENT_FIELD TraceEventFindField(PTRACE_EVENT_FORMAT Format,
                                        PCSZ Name);

//
// Reads a little-endian number of 1, 2, 4 or 8 bytes.
//

static inline
ULONGLONG
TraceEventReadNumber(
    const BYTE *Data,
    ULONG Size
    )
{
    ULONGLONG Value = 0;

    switch (Size) {
    case 1:
        Value = Data[0];
        break;
    case 2:
        Value = (ULONGLONG)Data[0] | ((ULONGLONG)Data[1] << 8);
        break;
    case 4: {
        ULONG Word;
        __builtin_memcpy(&Word, Data, 4);
        Value = Word;
        break;
    }
    case 8:
        __builtin_memcpy(&Value, Data, 8);
        break;
    default:
        break;
    }

    return Value;
}

//
// The field's value as stored (not sign-extended), or FALSE if the field
// is not a number or lies past Size.
//

BOOL TraceEventFieldNumber(PCTRACE_EVENT_FIELD Field, const BYTE *Data,
                           ULONG Size, PULONGLONG Value);

//
// A text field: a char array up to its first NUL, or a __data_loc /
// __rel_loc string, bounded by the record.  FALSE if it lies past Size.
//

BOOL TraceEventFieldString(PCTRACE_EVENT_FIELD Field, const BYTE *Data,
                           ULONG Size, PCSZ *Text, PULONG Length);

//
// Text output: a fixed buffer that truncates.
//

typedef struct _TRACE_TEXT {
    PCHAR Buffer;
    ULONG Length;
    ULONG Capacity;         // usable bytes, without the NUL
} TRACE_TEXT, *PTRACE_TEXT;

VOID TraceTextAppend(PTRACE_TEXT Text, PCSZ Bytes, SIZE_T Length);
VOID TraceTextAppendString(PTRACE_TEXT Text, PCSZ String);   // to its NUL
VOID TraceTextAppendChar(PTRACE_TEXT Text, CHAR Char);

//
// printf of one integer: Format is one conversion ("%08llx", "%-5d",
// "%#x", "%c", ...) applied as the C library would to Value cast to the
// conversion's length.  Width may be given separately (-1: none).
//

VOID TraceTextFormatNumber(PTRACE_TEXT Text, PCSZ Conversion,
                           ULONG ConversionLength, LONG StarWidth,
                           LONG StarPrecision, ULONGLONG Value);

//
// %llx and %llu / %lld.
//

VOID TraceTextAppendHex(PTRACE_TEXT Text, ULONGLONG Value);
VOID TraceTextAppendDecimal(PTRACE_TEXT Text, ULONGLONG Value, BOOL Signed);

//
// Appends the event's text as `trace-cmd report` prints it from its print
// fmt (plugins' formats are the sink's).  Returns FALSE if the print fmt
// could not be used; Text then holds "field=value ...".
//

BOOL TraceEventRender(PTRACE_EVENT_TABLE Table, PTRACE_EVENT_FORMAT Format,
                      const BYTE *Data, ULONG Size, PTRACE_TEXT Text);

//
// The other way (TraceEventPrintScan.c): the record an event's text was
// printed from, as far as the text shows it, common_type and common_pid
// (Pid) set, in Record (*RecordLength bytes of at most Capacity).  FALSE
// if the text follows neither the print fmt nor "field=value" pairs.
//

#define TRACE_EVENT_TEXT_RECORD_MAX 2048    // the Capacity text imports give

BOOL TraceEventScanText(PTRACE_EVENT_TABLE Table, PTRACE_EVENT_FORMAT Format,
                        PCSZ Text, ULONG Length, ULONG Pid, PBYTE Record,
                        ULONG Capacity, PULONG RecordLength);

//
// The format of the event named Name (of any system), or NULL: a walk of
// the table, for callers that cache what they found.
//

PTRACE_EVENT_FORMAT TraceEventFindByName(PTRACE_EVENT_TABLE Table,
                                         PCSZ Name, ULONG Length);

//
// Renders print items [First, End) only (for picking one value out of an
// event's text).  FALSE if the print fmt could not be used.
//

//
// The value names of an event's __print_flags and __print_symbolic, as
// perf's Python scripting defines them for flag_str and symbol_str:
// Define is called as perf calls define_flag_field (Text: the delimiter),
// define_flag_value, define_symbolic_field and define_symbolic_value, in
// its order.  FALSE if the print fmt does not compile.
//

typedef enum _TRACE_PRINT_DEFINE {
    TracePrintFlagField = 1,
    TracePrintFlagValue,
    TracePrintSymbolicField,
    TracePrintSymbolicValue,
} TRACE_PRINT_DEFINE;

typedef VOID (TRACE_PRINT_DEFINE_ROUTINE)(PVOID Context,
                                          TRACE_PRINT_DEFINE Kind,
                                          PCSZ Field, PCSZ Text,
                                          ULONG Length, LONGLONG Value);
typedef TRACE_PRINT_DEFINE_ROUTINE *PTRACE_PRINT_DEFINE_ROUTINE;

BOOL TraceEventPrintTables(PTRACE_EVENT_TABLE Table,
                           PTRACE_EVENT_FORMAT Format,
                           PTRACE_PRINT_DEFINE_ROUTINE Define,
                           PVOID Context);

BOOL TraceEventRenderItems(PTRACE_EVENT_TABLE Table,
                           PTRACE_EVENT_FORMAT Format, const BYTE *Data,
                           ULONG Size, ULONG First, ULONG End,
                           PTRACE_TEXT Text);

//
// Finds the print items of the value printed after the literal Label
// (e.g. "reason "): from the conversion after it up to the next literal.
// FALSE if the print fmt has no such label.
//

BOOL TraceEventFindPrintItems(PTRACE_EVENT_TABLE Table,
                              PTRACE_EVENT_FORMAT Format, PCSZ Label,
                              PULONG First, PULONG End);

//
// Appends a bprint (trace_printk) event's text: its format from
// printk_formats, its arguments from the binary buffer, as libtraceevent
// pairs them (quirks included: a conversion the argument reader skips,
// like "%-5d", shifts the arguments, and a format that runs out of them
// marks the event so that every later bprint prints
// "[FAILED TO PARSE]" and its fields, as trace-cmd report does).
//

VOID TraceEventRenderBprint(PTRACE_EVENT_TABLE Table,
                            PTRACE_EVENT_FORMAT Format, const BYTE *Data,
                            ULONG Size, PTRACE_TEXT Text);

//
// The events libtraceevent's plugins print (TraceEventPlugins.c): the
// kind of Format (fields it needs looked up into Format->Special), or
// TraceEventKindGeneric; and the text of a record of such a kind.
// Timestamp is the record's, in ns (func_repeats prints a time).
//

TRACE_EVENT_KIND TraceEventPluginClassify(PTRACE_EVENT_FORMAT Format);

VOID TraceEventPluginRender(PTRACE_EVENT_TABLE Table,
                            PTRACE_EVENT_FORMAT Format, const BYTE *Data,
                            ULONG Size, ULONGLONG Timestamp,
                            PTRACE_TEXT Text);

//
// Appends " name=value" for every non-common field, the way trace-cmd
// prints an event it cannot format.
//

VOID TraceEventRenderFields(PTRACE_EVENT_TABLE Table,
                            PTRACE_EVENT_FORMAT Format, const BYTE *Data,
                            ULONG Size, PTRACE_TEXT Text);

//
// The sink: decoded events into the stores of an import (TraceImport.h),
// with comms resolved as trace-cmd report resolves them (saved
// cmdlines, then comms learned from sched_switch / sched_wakeup).
//

//
// Recent event records and the text interned for them: a record seen
// again (same event, same bytes) reuses the text without rendering it.
//

#define TRACE_ARGS_CACHE_ENTRIES    4096
#define TRACE_ARGS_CACHE_BYTES      96

typedef struct _TRACE_ARGS_CACHE_ENTRY {
    ULONG Size;                     // record bytes; 0 when empty
    ULONG ArgsId;
    ULONG RawId;                    // the bytes interned, or NULL if not yet
    ULONG Padding;
    BYTE Record[TRACE_ARGS_CACHE_BYTES];
} TRACE_ARGS_CACHE_ENTRY, *PTRACE_ARGS_CACHE_ENTRY;

//
// What a live recorder knows about the tasks it watches and that the
// event records do not say: the process (thread group) and name of a
// thread, and the mapping that holds an address of a process.  Optional;
// a reader of files leaves Sink->Resolver NULL.
//

typedef struct _TRACE_EVENT_RESOLVER {

    //
    // Thread Tid's process and the string id of its command name at the
    // time of the event being decoded; TRACE_NULL_ULONG for what is not
    // known (the command name then comes from saved_cmdlines).
    //

    VOID (*DescribeTask)(PVOID Context, ULONG Tid, PULONG Pid,
                         PULONG CommId);

    //
    // The string id of the mapping (path, "[stack]", "//anon") that held
    // Address in process Pid at the time of the event being decoded, or
    // TRACE_NULL_ULONG if none is known; Offset receives Address's module
    // offset (Address - start + file offset; - start alone for memory
    // that is not a file), or NULL; Flags the TRACE_MAPPING_* flags (0
    // when none is known).
    //

    ULONG (*ModuleOf)(PVOID Context, ULONG Pid, ULONGLONG Address,
                      PULONGLONG Offset, PULONG Flags);

    PVOID Context;
} TRACE_EVENT_RESOLVER, *PTRACE_EVENT_RESOLVER;

typedef struct _TRACE_EVENT_SINK {
    PTRACE_IMPORT Import;
    PTRACE_EVENT_TABLE Table;
    PTRACE_EVENT_RESOLVER Resolver; // NULL, or set by the caller
    TRACE_HASH_TABLE Comms;         // pid + 1 -> comm string id
    ULONG IdleCommId;               // "<idle>"
    ULONG UnknownCommId;            // "<...>"
    ULONG UnknownEventNameId;       // "unknown_event"
    ULONG CachedPid;                // the last pid looked up, + 1 (0: none)
    ULONG CachedCommId;
    ULONG Padding;
    PTRACE_ARGS_CACHE_ENTRY ArgsCache;
    SIZE_T ArgsCacheBytes;
    CHAR Scratch[16384];            // text of one event
    CHAR Scratch2[512];
} TRACE_EVENT_SINK, *PTRACE_EVENT_SINK;

RTL_STATUS TraceEventSinkInitialize(PTRACE_EVENT_SINK Sink,
                                    PTRACE_IMPORT Import,
                                    PTRACE_EVENT_TABLE Table);
VOID TraceEventSinkRelease(PTRACE_EVENT_SINK Sink);

//
// Registers the saved_cmdlines text ("PID COMM" lines); malformed lines
// are skipped.
//

RTL_STATUS TraceEventSinkAddCmdlines(PTRACE_EVENT_SINK Sink, PCSZ Text,
                                     SIZE_T Length);

//
// Decodes one event record of Size bytes recorded on Cpu at Timestamp and
// stores it.  BytesDone is passed on to TraceImportEventDone.  A record
// that cannot be an event fails with *Reason set and Import->Error left
// for the caller, who knows where the record is; store failures fill
// Import->Error.
//

RTL_STATUS TraceEventSinkRecord(PTRACE_EVENT_SINK Sink, ULONG Cpu,
                                ULONGLONG Timestamp, const BYTE *Data,
                                ULONG Size, SIZE_T BytesDone, PCSZ *Reason);

#endif // _TRACER_TRACE_EVENT_H_
