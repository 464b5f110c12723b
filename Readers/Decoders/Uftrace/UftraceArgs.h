/*++

Module Name:

    UftraceArgs.h

Abstract:

    uftrace's argument and return value specs, the way uftrace itself
    reads them back: the spec language of `uftrace record -A/-R` and of
    its auto-args tables and debug info (`arg1/s`, `fparg1/80%stack+1`,
    `retval/e:color`, ...), the patterns that pick the functions (simple,
    POSIX extended regex, glob), the merge of several specs for one
    function, the size of a record's argument data, and the text uftrace
    prints for each value (`uftrace replay`).  The reader finds the specs
    of a function and the bytes of a record (UftraceSpecs.c,
    UftraceRecords.c); this module does the rest:

        UftraceArgSpec.c    the spec language, merging specs, data sizes
        UftracePattern.c    simple names, POSIX extended regex, glob
        UftraceArgFormat.c  the values as text

Environment:

    Core: no C runtime, no OS service.  Included by the uftrace reader's
    files and the argument module's own (through UftraceArgsInternal.h);
    declares what UftraceArgSpec.c, UftracePattern.c and
    UftraceArgFormat.c define.

--*/

#ifndef _TRACER_UFTRACE_ARGS_H_
#define _TRACER_UFTRACE_ARGS_H_

#include "Readers/Import/TraceImport.h"

//
// Value formats: the letters of uftrace's ARG_SPEC_CHARS, "diuxscfSpet".
//

#define UFTRACE_FMT_AUTO        0       // d (and no format)
#define UFTRACE_FMT_SIGNED      1       // i
#define UFTRACE_FMT_UNSIGNED    2       // u
#define UFTRACE_FMT_HEX         3       // x
#define UFTRACE_FMT_STRING      4       // s
#define UFTRACE_FMT_CHAR        5       // c
#define UFTRACE_FMT_FLOAT       6       // f, fparg
#define UFTRACE_FMT_STD_STRING  7       // S
#define UFTRACE_FMT_POINTER     8       // p
#define UFTRACE_FMT_ENUM        9       // e:NAME
#define UFTRACE_FMT_STRUCT      10      // tSIZE[:NAME]

//
// Where the value was read from (what tells two specs of one function
// apart): argument index, floating-point argument index, a register, or
// a stack slot.
//

#define UFTRACE_LOC_INDEX       0
#define UFTRACE_LOC_FLOAT       1
#define UFTRACE_LOC_REGISTER    2
#define UFTRACE_LOC_STACK       3

//
// Trigger flags of a spec entry (uftrace's TRIGGER_FL_*).
//

#define UFTRACE_TRIGGER_ARGUMENT    0x1
#define UFTRACE_TRIGGER_RETVAL      0x2
#define UFTRACE_TRIGGER_AUTO        0x4

//
// One argument (Index >= 1) or the return value (Index 0).  TypeName
// points into the mapped spec text it was parsed from (info file or a
// .dbg file), which stays mapped for the whole import.
//

typedef struct _UFTRACE_ARG {
    LONG Index;
    LONG Location;          // register number or stack offset
    ULONG Size;             // bytes of the value in the record
    UCHAR Format;           // UFTRACE_FMT_*
    UCHAR Type;             // UFTRACE_LOC_*
    UCHAR Exact;            // from a simple (non-pattern) match
    UCHAR Padding;
    PCSZ TypeName;          // enum or struct type, or NULL
    ULONG TypeNameLength;
    ULONG Padding2;
} UFTRACE_ARG, *PUFTRACE_ARG;
typedef const UFTRACE_ARG *PCUFTRACE_ARG;

C_ASSERT(sizeof(UFTRACE_ARG) == 32);

//
// The specs of one function, in the order uftrace keeps them (which is
// the order of the values in the record).
//

#define UFTRACE_MAX_ARGS 64

typedef struct _UFTRACE_ARG_LIST {
    ULONG Count;
    ULONG Flags;            // UFTRACE_TRIGGER_*
    BOOL Exists;            // a filter was made (uftrace's rb-tree node)
    BOOL Overflow;          // more than UFTRACE_MAX_ARGS specs
    UFTRACE_ARG Args[UFTRACE_MAX_ARGS];
} UFTRACE_ARG_LIST, *PUFTRACE_ARG_LIST;

//
// One ';'-separated entry of a spec string, "PATTERN[@ACTION,...]".
//

typedef struct _UFTRACE_SPEC_ENTRY {
    PCSZ Pattern;
    PCSZ PatternEnd;
    PCSZ Module;            // first word that is not an action, or NULL
    PCSZ ModuleEnd;
    ULONG Flags;            // the source's flags and what the actions add
    ULONG PatternType;      // UFTRACE_PATTERN_*
    UFTRACE_ARG_LIST Args;  // the entry's own arg/retval specs
} UFTRACE_SPEC_ENTRY, *PUFTRACE_SPEC_ENTRY;

#define UFTRACE_PATTERN_SIMPLE  1
#define UFTRACE_PATTERN_REGEX   2
#define UFTRACE_PATTERN_GLOB    3

//
// Splits a spec string at ';': returns FALSE when no entry is left.
//

BOOL UftraceNextSpecEntry(PCSZ *Cursor, PCSZ End, PCSZ *EntryStart,
                          PCSZ *EntryEnd);

//
// Parses one entry for a source with SourceFlags (UFTRACE_TRIGGER_*), as
// uftrace's setup_trigger_action does: the actions that fit the source
// are parsed, the others ignored, the first unknown word is the module.
// FALSE when uftrace would skip the entry (a spec it rejects).
// DefaultPattern is the recording's pattern_type.
//

BOOL UftraceParseSpecEntry(PCSZ Start, PCSZ End, ULONG SourceFlags,
                           ULONG DefaultPattern, PUFTRACE_SPEC_ENTRY Entry);

//
// Parses the actions of Start..End (the text after '@' of a debug-info
// or auto-args spec) into Args.
//

VOID UftraceParseActions(PCSZ Start, PCSZ End, ULONG SourceFlags,
                         PUFTRACE_ARG_LIST Args);

//
// Whether Name matches the entry's pattern.  Workspace is memory of
// UftracePatternWorkspaceSize() bytes for the regex machine.
//

ULONG UftracePatternWorkspaceSize(VOID);

BOOL UftracePatternMatch(PUFTRACE_SPEC_ENTRY Entry, PVOID Workspace, PCSZ Name,
                         PCSZ NameEnd);

//
// Adds Arg to List as uftrace's add_arg_spec does: a spec for the same
// argument replaces the old one unless the old one came from a simple
// match and the new one does not; a new one goes last.
//

VOID UftraceAddArg(PUFTRACE_ARG_LIST List, PCUFTRACE_ARG Arg, BOOL Exact);

//
// Adds every spec of Source to List (uftrace's add_trigger).
//

VOID UftraceMergeArgs(PUFTRACE_ARG_LIST List, const UFTRACE_ARG_LIST *Source,
                      BOOL Exact);

//
// The bytes that the arguments (Retval FALSE) or return values (TRUE) of
// a record take after it, padding included (a multiple of 8).  FALSE
// when the data runs past Length (Data is the first byte after the
// record, Length what the file has from there).
//

BOOL UftraceArgDataSize(PCUFTRACE_ARG Args, ULONG Count, BOOL Retval,
                        const BYTE *Data, SIZE_T Length, PSIZE_T Size);

//
// Text being built (a fixed buffer that truncates).
//

typedef struct _UFTRACE_TEXT {
    PCHAR Buffer;
    ULONG Capacity;
    ULONG Length;
} UFTRACE_TEXT, *PUFTRACE_TEXT;

VOID UftraceTextPut(PUFTRACE_TEXT Text, CHAR Char);
VOID UftraceTextAppend(PUFTRACE_TEXT Text, PCSZ String, SIZE_T Length);

//
// What formatting needs from the reader: the symbol that covers an
// address (pointer values print as &NAME), and the enum definitions of
// the function's module (its .dbg "E:" lines) and of the recording's
// auto-args table.
//

typedef BOOL (UFTRACE_SYMBOL_AT)(PVOID Context, ULONGLONG Address, PCSZ *Name,
                                 PCSZ *NameEnd);
typedef UFTRACE_SYMBOL_AT *PUFTRACE_SYMBOL_AT;

typedef BOOL (UFTRACE_FIND_ENUM)(PVOID Context, PCSZ Name, ULONG NameLength,
                                 PCSZ *Definition, PCSZ *DefinitionEnd);
typedef UFTRACE_FIND_ENUM *PUFTRACE_FIND_ENUM;

typedef struct _UFTRACE_FORMAT {
    PVOID Context;
    PUFTRACE_SYMBOL_AT SymbolAt;
    PUFTRACE_FIND_ENUM FindEnum;    // NULL: the function has no module
} UFTRACE_FORMAT, *PUFTRACE_FORMAT;

//
// Appends to Text what `uftrace replay` prints for the arguments, "(1,
// "str")", or the return value, "3" (the first return value spec only,
// as uftrace does).  Data..Data+Length is the record's data (already
// checked with UftraceArgDataSize).
//

VOID UftraceFormatArgs(PUFTRACE_FORMAT Format, PCUFTRACE_ARG Args, ULONG Count,
                       BOOL Retval, const BYTE *Data, SIZE_T Length,
                       PUFTRACE_TEXT Text);

//
// Finds "enum NAME {...}" in a ';'-separated list of definitions (the
// info file's enumauto, or the text of one .dbg "E:" line); the first
// definition of a name is the one uftrace keeps.  *Definition..
// *DefinitionEnd is what follows the '{'.
//

BOOL UftraceFindEnumInList(PCSZ Start, PCSZ End, PCSZ Name, ULONG NameLength,
                           PCSZ *Definition, PCSZ *DefinitionEnd);

//
// Appends String as the body of a JSON string (without the quotes):
// quote, backslash and control characters escaped, other bytes as they
// are.
//

VOID UftraceJsonEscape(PUFTRACE_TEXT Text, PCSZ String, SIZE_T Length);

#endif // _TRACER_UFTRACE_ARGS_H_
