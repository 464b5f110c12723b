/*++

Module Name:

    KvmtraceFormat.h

Abstract:

    The kvmtrace binary record stream (seeds/004) and its `formats` rules.

    A record, in the byte order of the machine that wrote it (x86: little
    endian), is

        ULONG  Header;   // event id : 28, n_data : 3, tsc_in : 1
        ULONG  Pid;      // the task that recorded it (the vcpu thread)
        ULONG  Vcpu;
        [ULONGLONG Tsc;] // present when tsc_in is 1
        ULONG  Data[n_data];

    There is no magic and no framing: any bytes decode as records, and the
    only malformation is a stream that ends inside a record.

    A `formats` file has one rule per line, `EVENT_ID FORMAT`; the FORMAT
    is a Python %-format string over the mapping {tsc, event, reltsc, pid,
    vcpu, 1..5}.  The seed's kvmtrace_format prints each record with the
    rule of its event id, or with rule 0 when its id has none.  This module
    parses rules exactly as the seed's Python does and renders records
    byte for byte as Python's % operator would:

        KvmtraceRules.c     the formats file, compiled into rules
                            (KvmtraceOps.h: what a rule compiles to)
        KvmtracePython.c    Python's UTF-8, whitespace and int(ID, 0),
                            for it
        KvmtraceFormat.c    a record's values, rendered by its rule (the
                            emulated semantics and the few documented
                            limits are described there)
        KvmtraceFloat.c     Python's float formatting, for it
        KvmtraceFormatter.c the seed's kvmtrace_format over a stream

Environment:

    Core: no C runtime, OS access through PRTL.  Included by the kvmtrace
    reader (Kvmtrace.c), `tracestore kvmtrace-format`
    (Cli/CmdKvmtraceFormat.c) and the files above; KvmtraceDecode
    (inline here) calls nothing.

--*/

#ifndef _TRACER_KVMTRACE_FORMAT_H_
#define _TRACER_KVMTRACE_FORMAT_H_

#include "Rtl/Rtl.h"

#define KVMTRACE_HEADER_SIZE        12
#define KVMTRACE_MAX_DATA           7       // n_data is three bits
#define KVMTRACE_RULE_DATA          5       // the rules see %(1)..%(5)
#define KVMTRACE_MAX_RECORD_SIZE    (KVMTRACE_HEADER_SIZE + 8 + \
                                     4 * KVMTRACE_MAX_DATA)
#define KVMTRACE_EVENT_MASK         0x0fffffffu

//
// The event ids the seed's formats file names and the import gives their
// own stores.
//

#define KVMTRACE_EVENT_VMENTRY      0x00010001u
#define KVMTRACE_EVENT_VMEXIT       0x00010002u
#define KVMTRACE_EVENT_PAGE_FAULT   0x00020001u

typedef struct _KVMTRACE_RECORD {
    ULONGLONG Tsc;                  // 0 when TscPresent is FALSE
    ULONG Event;                    // the 28-bit event id
    ULONG DataCount;                // n_data, 0..7
    ULONG Pid;
    ULONG Vcpu;
    ULONG Data[KVMTRACE_MAX_DATA];  // words past DataCount are 0
    ULONG Size;                     // bytes the record occupies
    BOOL TscPresent;
} KVMTRACE_RECORD, *PKVMTRACE_RECORD;

//
// Where a record is cut off when the input ends inside it.
//

typedef enum _KVMTRACE_DECODE {
    KvmtraceDecodeComplete = 0,
    KvmtraceDecodeEnd,              // no bytes left: a clean end
    KvmtraceDecodeCutHeader,        // fewer than 12 bytes
    KvmtraceDecodeCutTsc,           // the header says a TSC follows
    KvmtraceDecodeCutData,          // the header says n_data words follow
} KVMTRACE_DECODE;

static inline
ULONG
KvmtraceLoad32(
    const BYTE *Bytes
    )
{
    return (ULONG)Bytes[0] | ((ULONG)Bytes[1] << 8) |
           ((ULONG)Bytes[2] << 16) | ((ULONG)Bytes[3] << 24);
}

static inline
KVMTRACE_DECODE
KvmtraceDecode(
    const BYTE *Buffer,
    SIZE_T Length,
    PKVMTRACE_RECORD Record
    )
/*++

Routine Description:

    Decodes the record at the start of Buffer, reading only within
    [Buffer, Buffer + Length).

Return Value:

    KvmtraceDecodeComplete (Record filled), KvmtraceDecodeEnd when Length
    is 0, or the part of the record that is missing.

--*/
{
    ULONG Header;
    ULONG Size;
    ULONG Count;
    ULONG Index;

    //
    // Away from the end of the input every field can be loaded whether the
    // header says it is there or not, and masked: no branch on the record
    // shape, which varies from record to record.
    //

    if (Length >= KVMTRACE_MAX_RECORD_SIZE) {
        ULONG Present;
        const BYTE *Words;

        Header = KvmtraceLoad32(Buffer);
        Count = (Header >> 28) & 7;
        Present = Header >> 31;
        Record->Event = Header & KVMTRACE_EVENT_MASK;
        Record->DataCount = Count;
        Record->TscPresent = (BOOL)Present;
        Record->Pid = KvmtraceLoad32(Buffer + 4);
        Record->Vcpu = KvmtraceLoad32(Buffer + 8);
        Record->Tsc = ((ULONGLONG)KvmtraceLoad32(Buffer + 12) |
                       ((ULONGLONG)KvmtraceLoad32(Buffer + 16) << 32)) &
                      (0 - (ULONGLONG)Present);
        Size = KVMTRACE_HEADER_SIZE + 8 * Present;
        Words = Buffer + Size;
        for (Index = 0; Index < KVMTRACE_MAX_DATA; Index++) {
            Record->Data[Index] = KvmtraceLoad32(Words + 4 * Index) &
                                  (0 - (ULONG)(Index < Count));
        }
        Record->Size = Size + 4 * Count;
        return KvmtraceDecodeComplete;
    }

    if (Length < KVMTRACE_HEADER_SIZE) {
        return Length == 0 ? KvmtraceDecodeEnd : KvmtraceDecodeCutHeader;
    }

    Header = KvmtraceLoad32(Buffer);
    Count = (Header >> 28) & 7;
    Record->Event = Header & KVMTRACE_EVENT_MASK;
    Record->DataCount = Count;
    Record->TscPresent = (Header >> 31) != 0;
    Record->Pid = KvmtraceLoad32(Buffer + 4);
    Record->Vcpu = KvmtraceLoad32(Buffer + 8);
    Size = KVMTRACE_HEADER_SIZE;
    Record->Tsc = 0;

    if (Record->TscPresent) {
        if (Length < KVMTRACE_HEADER_SIZE + 8) {
            return KvmtraceDecodeCutTsc;
        }
        Record->Tsc = (ULONGLONG)KvmtraceLoad32(Buffer + 12) |
                      ((ULONGLONG)KvmtraceLoad32(Buffer + 16) << 32);
        Size += 8;
    }

    if (Length - Size < 4 * Count) {
        return KvmtraceDecodeCutData;
    }

    for (Index = 0; Index < KVMTRACE_MAX_DATA; Index++) {
        Record->Data[Index] = Index < Count ?
                              KvmtraceLoad32(Buffer + Size + 4 * Index) : 0;
    }

    Record->Size = Size + 4 * Count;
    return KvmtraceDecodeComplete;
}

//
// Names the part KvmtraceDecode found missing ("header", "TSC", "data").
//

PCSZ KvmtraceDecodeText(KVMTRACE_DECODE Decode);

//
// ---------------------------------------------------------------------------
// Rules.
// ---------------------------------------------------------------------------
//

typedef struct _KVMTRACE_OP KVMTRACE_OP, *PKVMTRACE_OP;

typedef struct _KVMTRACE_RULE {
    ULONG Event;            // the event id the rule is for
    ULONG FirstOp;
    ULONG OpCount;
    ULONG Line;             // 1-based line in the formats file
    ULONG MaxLength;        // bound on a rendered line, newline and
                            // KVMTRACE_RENDER_SLACK included
    ULONG Fast;             // TRUE: only literals and plain %d/%x/%X
    ULONG Keys;             // KVMTRACE_KEY_BIT_*: the values it prints
    ULONG Padding;
} KVMTRACE_RULE, *PKVMTRACE_RULE;

//
// Rule->Keys: one bit per key of the seed's args dict, in its order (tsc,
// event, reltsc, pid, vcpu, 1..5).  A rule prints nothing else, so two
// records whose keyed values agree render the same text.
//

#define KVMTRACE_KEY_BIT_TSC        (1u << 0)
#define KVMTRACE_KEY_BIT_EVENT      (1u << 1)
#define KVMTRACE_KEY_BIT_RELTSC     (1u << 2)
#define KVMTRACE_KEY_BIT_PID        (1u << 3)
#define KVMTRACE_KEY_BIT_VCPU       (1u << 4)
#define KVMTRACE_KEY_BIT_DATA(N)    (1u << (4 + (N)))   // %(1) .. %(5)

//
// The fast renderer stores whole 8- and 16-byte words and may write up to
// this many bytes past the end of the text (garbage, inside MaxLength).
//

#define KVMTRACE_RENDER_SLACK       16

#define KVMTRACE_RECENT_EVENTS 64

typedef struct _KVMTRACE_LOOKUP {
    ULONG Event;
    ULONG Rule;
} KVMTRACE_LOOKUP, *PKVMTRACE_LOOKUP;

typedef struct _KVMTRACE_RULES {
    PRTL Rtl;
    PCSZ Path;              // the formats file, for messages
    PCSZ Text;              // its bytes: must outlive the rules
    PCSZ Literals;          // a copy of Text with 32 bytes after it, for
                            // the fast renderer's whole-word loads
    SIZE_T TextLength;
    LONGLONG Mhz;           // -c: 0 prints raw TSC counts
    DOUBLE TscDivisor;      // Mhz * 1000000.0, as the seed computes it
    PKVMTRACE_RULE Rules;   // in file order (rules no record can use are
                            // not compiled: OpCount 0)
    ULONG RuleCount;
    ULONG LookupCount;
    PKVMTRACE_LOOKUP Lookup;// sorted by Event, one per id (the last rule
                            // for an id wins, as in a Python dict)
    ULONG FallbackRule;     // the rule of id 0, or KVMTRACE_NO_RULE
    ULONG Padding;
    PKVMTRACE_OP Ops;
    ULONG OpCount;
    ULONG MaxLength;        // the largest rule's MaxLength
    ULONG Padding2;
    KVMTRACE_LOOKUP Recent[KVMTRACE_RECENT_EVENTS]; // event -> rule cache
    PVOID Memory;
    SIZE_T MemorySize;
} KVMTRACE_RULES, *PKVMTRACE_RULES;

#define KVMTRACE_NO_RULE 0xffffffffu

//
// Parses a formats file of TextLength bytes at Text (kept, not copied) as
// the seed's read_defs does.  Mhz is the -c rate (0 for none): with it
// the rules print %(tsc) as seconds, a Python float.  On failure (text
// that is not UTF-8, a line that is not `ID FORMAT`, an id Python's
// int(ID, 0) rejects) Error names the file and line.
//

RTL_STATUS KvmtraceRulesParse(PRTL Rtl, PCSZ Path, PCSZ Text,
                              SIZE_T TextLength, LONGLONG Mhz,
                              PKVMTRACE_RULES Rules, PRTL_ERROR Error);

VOID KvmtraceRulesFree(PKVMTRACE_RULES Rules);

//
// The rule for an event id: its own, else rule 0, else KVMTRACE_NO_RULE
// (the seed prints nothing for such a record).
//

ULONG KvmtraceRulesFind(PKVMTRACE_RULES Rules, ULONG Event);

//
// The values one record gives its rule.
//

typedef struct _KVMTRACE_VALUES {
    ULONGLONG Tsc;          // raw (0 without one)
    ULONGLONG RelTsc;       // magnitude of tsc - last tsc
    ULONGLONG Event;
    ULONGLONG Pid;
    ULONGLONG Vcpu;
    ULONGLONG Data[KVMTRACE_RULE_DATA];
    DOUBLE TscSeconds;      // Tsc / TscDivisor, when Mhz != 0
    BOOL RelTscNegative;
    ULONG Padding;
} KVMTRACE_VALUES, *PKVMTRACE_VALUES;

//
// Tracks the seed's reltsc: the difference to the previous record's TSC
// when both have one (and the previous one was not 0), else 0.
//

typedef struct _KVMTRACE_TSC_STATE {
    ULONGLONG LastTsc;
} KVMTRACE_TSC_STATE, *PKVMTRACE_TSC_STATE;

VOID KvmtraceSetValues(PKVMTRACE_RULES Rules, PKVMTRACE_TSC_STATE State,
                       PKVMTRACE_RECORD Record, PKVMTRACE_VALUES Values);

//
// Renders rule RuleIndex (without a newline) into Output, which must hold
// Rules->Rules[RuleIndex].MaxLength bytes (bytes past the text may be
// overwritten).  On failure (where Python's % operator would raise) Error
// says why, naming the formats file and line; what was written to Output
// is then garbage.  KvmtraceRender takes a fast path for Fast rules (and
// values they print without a sign); KvmtraceRenderGeneric is the full
// emulation, which the tests hold the fast path to.
//

RTL_STATUS KvmtraceRender(PKVMTRACE_RULES Rules, ULONG RuleIndex,
                          PKVMTRACE_VALUES Values, PCHAR Output, PULONG Length,
                          PRTL_ERROR Error);

RTL_STATUS KvmtraceRenderGeneric(PKVMTRACE_RULES Rules, ULONG RuleIndex,
                                 PKVMTRACE_VALUES Values, PCHAR Output,
                                 PULONG Length, PRTL_ERROR Error);

//
// ---------------------------------------------------------------------------
// The formatter: kvmtrace_format over a stream fed in pieces.
// ---------------------------------------------------------------------------
//

//
// Receives rendered text; returns FALSE to stop (a write error).
//

typedef BOOL (KVMTRACE_WRITE)(PVOID Context, PCSZ Text, SIZE_T Length);
typedef KVMTRACE_WRITE *PKVMTRACE_WRITE;

typedef struct _KVMTRACE_FORMATTER {

    //
    // Set by the caller before KvmtraceFormatterInitialize.
    //

    PKVMTRACE_RULES Rules;
    PCSZ InputName;                 // for messages ("<stdin>")
    PKVMTRACE_WRITE Write;
    PVOID WriteContext;

    //
    // State.
    //

    PCHAR Output;
    SIZE_T OutputSize;
    SIZE_T OutputUsed;
    ULONGLONG Offset;               // input bytes consumed so far
    ULONGLONG Records;
    KVMTRACE_TSC_STATE Tsc;
    RTL_ERROR Error;

} KVMTRACE_FORMATTER, *PKVMTRACE_FORMATTER;

RTL_STATUS KvmtraceFormatterInitialize(PKVMTRACE_FORMATTER Formatter);

//
// Formats every complete record at the start of Input and sets *Consumed
// to the bytes they occupy; the caller passes the rest again, followed by
// more input (a record may straddle two pieces).  EndOfInput says no more
// input follows: a record cut off at the end is then an error naming its
// byte offset, after every complete record has been written.  Text goes to
// Write in large pieces; KvmtraceFormatterFinish writes the rest.
//

RTL_STATUS KvmtraceFormatFeed(PKVMTRACE_FORMATTER Formatter, const BYTE *Input,
                              SIZE_T Length, BOOL EndOfInput,
                              PSIZE_T Consumed);

//
// Writes what is buffered and frees the buffer.  Returns the first error
// (of Feed or of the final write).
//

RTL_STATUS KvmtraceFormatterFinish(PKVMTRACE_FORMATTER Formatter);

#endif // _TRACER_KVMTRACE_FORMAT_H_
