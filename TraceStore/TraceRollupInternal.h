/*++

Module Name:

    TraceRollupInternal.h

Abstract:

    What the rollup files (TraceRollupTable.c, TraceRollupFold.c,
    TraceRollupSpans.c, TraceRollupLines.c, TraceRollupFile.c,
    TraceRollupAnswer.c) share and nothing else uses:
    the in-memory fold (TRACE_ROLLUP), its keyed tables, and the entries
    of each table, which are also the entries of a published image (so
    each carries C_ASSERTs like any on-disk structure).

Environment:

    Core: no C runtime; the OS only through PRTL.  Included only by those
    files.

--*/

#ifndef _TRACER_TRACE_ROLLUP_INTERNAL_H_
#define _TRACER_TRACE_ROLLUP_INTERNAL_H_

#include "TraceStore/TraceRollup.h"

//
// A keyed table: Count entries of EntrySize bytes whose first 16 bytes are
// the key (Key0, Key1), in the order they were added, and an open-
// addressing index of slots holding entry number + 1 (0: empty).  An
// unindexed table is a plain array (the open span rows).  Memory comes
// from Rtl->AllocatePages; an entry's address holds until the next insert.
//

typedef struct _ROLLUP_TABLE {
    ULONG EntrySize;
    BOOL Indexed;
    ULONGLONG Count;
    ULONGLONG Capacity;
    PBYTE Entries;
    SIZE_T EntriesBytes;
    PULONG Slots;
    ULONGLONG SlotMask;
    SIZE_T SlotsBytes;
} ROLLUP_TABLE, *PROLLUP_TABLE;

typedef struct _ROLLUP_KEY {
    ULONGLONG Key0;
    ULONGLONG Key1;
} ROLLUP_KEY, *PROLLUP_KEY;

//
// Entries.  Every count and sum is over the records folded so far.
//

typedef struct _ROLLUP_NAME_ENTRY {         // TraceRollupNames
    ULONGLONG NameId;                       // key: the row's name id
    ULONGLONG Zero;
    ULONGLONG Count;                        // rows
    ULONGLONG FirstRow;                     // the first of them
} ROLLUP_NAME_ENTRY, *PROLLUP_NAME_ENTRY;

C_ASSERT(sizeof(ROLLUP_NAME_ENTRY) == 32);

typedef struct _ROLLUP_RATE_ENTRY {         // TraceRollupRates
    ULONGLONG NameId;                       // key: name id (NULL: span)
    LONGLONG Bucket;                        // key: floor(ts / BucketNs)
    ULONGLONG Count;
    ULONGLONG FirstRow;
} ROLLUP_RATE_ENTRY, *PROLLUP_RATE_ENTRY;

C_ASSERT(sizeof(ROLLUP_RATE_ENTRY) == 32);

typedef struct _ROLLUP_FAULT_ENTRY {        // TraceRollupFaults
    ULONGLONG PidComm;                      // key: Pid | CommId << 32
    ULONGLONG ModuleId;                     // key
    ULONGLONG FirstRow;
    ULONGLONG Counts[TraceFaultCountMaximum];
} ROLLUP_FAULT_ENTRY, *PROLLUP_FAULT_ENTRY;

C_ASSERT(sizeof(ROLLUP_FAULT_ENTRY) == 24 + 8 * TraceFaultCountMaximum);

#define ROLLUP_ENTRY_OVERFLOW 0x1           // a sum left the int64 range

typedef struct _ROLLUP_KVM_ENTRY {          // TraceRollupKvm
    ULONGLONG ReasonId;                     // key
    ULONGLONG ExitCode;                     // key (NULL: all ones)
    ULONGLONG FirstRow;
    ULONGLONG Count;                        // exits
    ULONGLONG Paired;                       // exits with a dur
    LONGLONG SumDur;                        // of those
    LONGLONG MinDur;
    LONGLONG MaxDur;
    ULONGLONG Flags;                        // ROLLUP_ENTRY_*
} ROLLUP_KVM_ENTRY, *PROLLUP_KVM_ENTRY;

C_ASSERT(sizeof(ROLLUP_KVM_ENTRY) == 72);

typedef struct _ROLLUP_BUCKET_ENTRY {       // TraceRollupKvmBuckets
    ULONGLONG Group;                        // key: its ROLLUP_KVM_ENTRY
    LONGLONG Bucket;                        // key: RollupHistogramBucket
    ULONGLONG Count;
    LONGLONG Minimum;                       // smallest dur in it
    LONGLONG Maximum;                       // largest
} ROLLUP_BUCKET_ENTRY, *PROLLUP_BUCKET_ENTRY;

C_ASSERT(sizeof(ROLLUP_BUCKET_ENTRY) == 40);

typedef struct _ROLLUP_SPAN_ENTRY {         // TraceRollupSpans
    ULONGLONG NameId;                       // key
    ULONGLONG Zero;
    ULONGLONG FirstRow;
    ULONGLONG Calls;                        // rows, final or not
    ULONGLONG Final;                        // rows whose dur is below
    LONGLONG SumDur;
    LONGLONG MaxDur;
    ULONGLONG Children;                     // final rows whose parent has
    LONGLONG ChildDur;                      // this name, and their dur
    ULONGLONG Outermost;                    // final outermost rows, and
    LONGLONG OutermostDur;                  // their dur
    ULONG MinDepth;
    ULONG MaxDepth;
    ULONGLONG Flags;                        // ROLLUP_ENTRY_*
} ROLLUP_SPAN_ENTRY, *PROLLUP_SPAN_ENTRY;

C_ASSERT(sizeof(ROLLUP_SPAN_ENTRY) == 104);

//
// The recursion test of one (pid, tid, name): a row is outermost when no
// earlier row of its key is open and it begins at or after every earlier
// row's end.
//

typedef struct _ROLLUP_SPAN_KEY_ENTRY {     // TraceRollupSpanKeys
    ULONGLONG PidTid;                       // key: Pid | Tid << 32
    ULONGLONG NameId;                       // key
    LONGLONG MaxEnd;                        // of the final rows: ts + dur
    ULONGLONG Open;                         // rows of the key not final
} ROLLUP_SPAN_KEY_ENTRY, *PROLLUP_SPAN_KEY_ENTRY;

C_ASSERT(sizeof(ROLLUP_SPAN_KEY_ENTRY) == 32);

//
// A span row whose contributions are not all in: its dur is not final
// (OPEN_DUR: the call runs, SPAN_FLAG_END_MISSING), or its parent row
// was not yet committed (OPEN_PARENT_PENDING, only in crafted stores).
//

#define ROLLUP_OPEN_DUR             0x1     // own dur not added yet
#define ROLLUP_OPEN_PARENT          0x2     // dur not added to the parent
#define ROLLUP_OPEN_PARENT_PENDING  0x4     // ParentNameId not known yet
#define ROLLUP_OPEN_KEY             0x8     // counted in its key's Open
#define ROLLUP_OPEN_OUTERMOST       0x10    // the row is outermost
#define ROLLUP_OPEN_RUNNING         0x20    // a reader's answer: the call
                                            // still runs (RollupSettle...)

typedef struct _ROLLUP_SPAN_OPEN_ENTRY {    // TraceRollupSpanOpen
    ULONGLONG Row;
    ULONGLONG Flags;                        // ROLLUP_OPEN_*
    ULONGLONG NameId;
    ULONGLONG ParentNameId;                 // when known
} ROLLUP_SPAN_OPEN_ENTRY, *PROLLUP_SPAN_OPEN_ENTRY;

C_ASSERT(sizeof(ROLLUP_SPAN_OPEN_ENTRY) == 32);

typedef struct _ROLLUP_SYSCALL_ENTRY {      // TraceRollupSyscalls
    LONGLONG Nr;                            // key
    ULONGLONG Zero;
    ULONGLONG Count;
    ULONGLONG FirstRow;
} ROLLUP_SYSCALL_ENTRY, *PROLLUP_SYSCALL_ENTRY;

C_ASSERT(sizeof(ROLLUP_SYSCALL_ENTRY) == 32);

//
// The recursion test compares names as the view does, by their text: a
// span name id maps to the first id of its text met by the fold (ids of
// one text: TRACE_STRING_INTERN_LIMIT).  TextHash (XXH3-64 of the text)
// lets a reader that loads the table find texts again without reading
// them.
//

typedef struct _ROLLUP_SPAN_NAME_ENTRY {    // TraceRollupSpanNames
    ULONGLONG NameId;                       // key
    ULONGLONG Zero;
    ULONGLONG Canonical;                    // first id of the same text
    ULONGLONG TextHash;
} ROLLUP_SPAN_NAME_ENTRY, *PROLLUP_SPAN_NAME_ENTRY;

C_ASSERT(sizeof(ROLLUP_SPAN_NAME_ENTRY) == 32);

//
// A line's group: its function, file and line number.  The line views
// group by those three texts, so the answer merges groups of one text.
//

typedef struct _ROLLUP_LINE_ENTRY {         // TraceRollupLines
    ULONGLONG NameFile;                     // key: NameId | FileId << 32
    ULONGLONG LineNo;                       // key
    ULONGLONG FirstRow;
    ULONGLONG Hits;                         // rows, final or not
    LONGLONG SumDur;                        // of the final rows
    LONGLONG SumSelfDur;
    ULONGLONG Flags;                        // ROLLUP_ENTRY_*
    ULONGLONG Padding;
} ROLLUP_LINE_ENTRY, *PROLLUP_LINE_ENTRY;

C_ASSERT(sizeof(ROLLUP_LINE_ENTRY) == 64);

//
// A line row whose dur is not final (SPAN_FLAG_END_MISSING: the line
// runs): counted in Hits, its dur and self_dur not added yet.  Flags is
// ROLLUP_OPEN_DUR while they wait, ROLLUP_OPEN_RUNNING in a reader's
// answer for a line that still runs.
//

typedef struct _ROLLUP_LINE_OPEN_ENTRY {    // TraceRollupLineOpen
    ULONGLONG Row;
    ULONGLONG Flags;                        // ROLLUP_OPEN_*
    ULONGLONG NameFile;                     // its group's key
    ULONGLONG LineNo;
} ROLLUP_LINE_OPEN_ENTRY, *PROLLUP_LINE_OPEN_ENTRY;

C_ASSERT(sizeof(ROLLUP_LINE_OPEN_ENTRY) == 32);

//
// A fold's own memo, not published: what an ftrace_event name is.
//

#define ROLLUP_NAME_OTHER       1
#define ROLLUP_NAME_SYS_ENTER   2           // "sys_enter" (raw_syscalls)

typedef struct _ROLLUP_CLASS_ENTRY {
    ULONGLONG NameId;
    ULONGLONG Zero;
    ULONGLONG Class;
    ULONGLONG Padding;
} ROLLUP_CLASS_ENTRY, *PROLLUP_CLASS_ENTRY;

//
// A fold's memo of recent groups, not published: most records fall in a
// group met a moment ago, and finding it again here costs a few loads
// instead of a hash probe.  Direct-mapped by the name id (names, rates,
// system call class), the key's hash (faults, exit reasons) or the args
// id (system calls: Key0 the id, Entry its TraceRollupSyscalls entry or
// ROLLUP_NOT_COUNTED); an entry holds table indices, checked against the
// key before use, and is forgotten when its table is rebuilt
// (RollupForgetRecent).
//

#define ROLLUP_RECENT_BITS  10
#define ROLLUP_RECENT_SLOTS (1u << ROLLUP_RECENT_BITS)
#define ROLLUP_NO_ENTRY     (~0ULL)
#define ROLLUP_NOT_COUNTED  (~1ULL)

typedef struct _ROLLUP_RECENT_NAME {
    ULONGLONG NameId;                       // ROLLUP_NO_ENTRY: empty
    ULONGLONG Name;                         // its TraceRollupNames entry
    LONGLONG Start;                         // [Start, End): the ts of the
    LONGLONG End;                           // rate bucket of Rate
    ULONGLONG Rate;                         // its TraceRollupRates entry
    ULONGLONG Span;                         // its TraceRollupSpans entry
    ULONGLONG Canonical;                    // first id of its text, or
                                            // ROLLUP_NO_ENTRY
    ULONGLONG Class;                        // ROLLUP_NAME_*, or 0
} ROLLUP_RECENT_NAME, *PROLLUP_RECENT_NAME;

typedef struct _ROLLUP_RECENT_GROUP {
    ULONGLONG Key0;
    ULONGLONG Key1;
    ULONGLONG Entry;                        // ROLLUP_NO_ENTRY: empty
} ROLLUP_RECENT_GROUP, *PROLLUP_RECENT_GROUP;

//
// The fold.
//

struct _TRACE_ROLLUP {
    PRTL Rtl;
    PTRACE_STORE Store;                     // the store folded
    PTRACE_STORE Source;                    // where its records are read:
                                            // Store, or OwnStore
    PTRACE_STRING_TABLE Strings;            // the session's, or OwnStrings
    TRACE_RECORD_KIND Kind;
    ULONG Flags;                            // TRACE_ROLLUP_FLAG_*
    ULONG RecordSize;
    ULONG TimestampOffset;                  // or TRACE_NO_COLUMN
    ULONG NameOffset;                       // or TRACE_NO_COLUMN
    BOOL Events;                            // an event store: names and
                                            // rates (TraceRollupNames,
                                            // TraceRollupRates)
    BOOL RatesPerStore;                     // rates keyed by store only
    BOOL NamesFromSpans;                    // events per name: the span
                                            // table's calls
    ULONGLONG Watermark;                    // records folded
    LONGLONG BucketNs;
    ROLLUP_TABLE Tables[TraceRollupTableMaximum];
    ROLLUP_TABLE Classes;                   // ROLLUP_CLASS_ENTRY
    ROLLUP_TABLE SpanTexts;                 // (text hash, probe) -> the
                                            // canonical id (ROLLUP_CLASS_
                                            // ENTRY.Class), from SpanNames
    ROLLUP_RECENT_NAME RecentNames[ROLLUP_RECENT_SLOTS];
    ROLLUP_RECENT_GROUP RecentGroups[ROLLUP_RECENT_SLOTS];
    ROLLUP_RECENT_NAME StoreRate;           // RatesPerStore: its bucket

    //
    // A fold stops at a record it cannot read (a string id out of range)
    // with the error here.
    //

    PRTL_ERROR Error;

    //
    // The writer's file (TraceRollupFile.c).
    //

    BOOL Writable;
    BOOL Rebuilding;                        // folding a store's records
                                            // at the writer's open
    HANDLE FileHandle;
    ULONGLONG Sequence;                     // of the latest publication
    TRACE_ROLLUP_SLOT Latest;               // its slot
    TRACE_ROLLUP_SLOT Previous;             // the other slot's
    ULONGLONG PublishedWatermark;
    LONGLONG PublishedAtNs;                 // monotonic clock
    PBYTE Image;                            // the last image built
    SIZE_T ImageBytes;                      // allocated
    TRACE_ROLLUP_HEADER Header;
    CHAR Path[TRACE_PATH_SIZE];

    //
    // A writer's fold on another thread than the writer's reads the store
    // and the strings through mappings of its own, opened read-only as a
    // reader's are (TRACE_ROLLUP_ELSEWHERE): the writer's mapping moves
    // when the file outgrows it, under a reading thread's feet.
    //

    BOOL OwnOpen;
    TRACE_STORE OwnStore;
    TRACE_STRING_TABLE OwnStrings;

    //
    // The reader's answer (TraceRollupAnswer.c): the tables merged by the
    // text of their ids, after TraceRollupRead finishes.
    //

    BOOL Finished;
    ROLLUP_TABLE Answer[TraceRollupTableMaximum];
    ROLLUP_TABLE Canonical;                 // id -> id of the same text
    ROLLUP_TABLE Texts;                     // text hash -> id
    PVOID Rows[TraceRollupTableMaximum];    // TRACE_ROLLUP_*_ROW arrays
    ULONGLONG RowCounts[TraceRollupTableMaximum];
    SIZE_T RowBytes[TraceRollupTableMaximum];
};

//
// TraceRollupTable.c.
//

VOID RollupTableInitialize(PROLLUP_TABLE Table, ULONG EntrySize,
                           BOOL Indexed);
VOID RollupTableFree(PRTL Rtl, PROLLUP_TABLE Table);
VOID RollupTableReset(PROLLUP_TABLE Table);

//
// The entry with key (Key0, Key1), or NULL.
//

PVOID RollupTableFind(PROLLUP_TABLE Table, ULONGLONG Key0, ULONGLONG Key1);

//
// The entry with key (Key0, Key1), added zero-filled if new (*Added TRUE).
// NULL without memory.
//

PVOID RollupTableInsert(PRTL Rtl, PROLLUP_TABLE Table, ULONGLONG Key0,
                        ULONGLONG Key1, PBOOL Added);

//
// Appends an entry (unindexed tables, or loading an image whose keys are
// known distinct); NULL without memory.
//

PVOID RollupTableAppend(PRTL Rtl, PROLLUP_TABLE Table);

//
// Rebuilds the index after entries were appended, moved or removed.
// FALSE without memory, or if two entries share a key.
//

BOOL RollupTableReindex(PRTL Rtl, PROLLUP_TABLE Table);

#define RollupTableEntry(Table, Index) \
    ((PVOID)((Table)->Entries + (SIZE_T)(Index) * (Table)->EntrySize))

//
// Sorts Count 64-bit keys with their 64-bit values by key (radix);
// FALSE without memory.
//

BOOL RollupSortPairs(PRTL Rtl, PULONGLONG Keys, PULONGLONG Values,
                     ULONGLONG Count);

//
// The fold's inline helpers, shared by its files (TraceRollupFold.c,
// TraceRollupSpans.c) and the answer (TraceRollupAnswer.c).
//

#define INT64_MAXIMUM ((LONGLONG)0x7fffffffffffffffLL)
#define INT64_MINIMUM ((LONGLONG)(-0x7fffffffffffffffLL - 1))

//
// ts + dur, which SQLite computes as a REAL when it leaves the int64
// range; as an end to compare a ts with, the nearest int64 does the same.
//

static inline
LONGLONG
SaturatingAdd(
    LONGLONG Left,
    LONGLONG Right
    )
{
    LONGLONG Sum;

    if (__builtin_add_overflow(Left, Right, &Sum)) {
        return (Right > 0) ? INT64_MAXIMUM : INT64_MINIMUM;
    }
    return Sum;
}

//
// Adds Value to a sum, flagging the entry when the sum overflows.
//

static inline
VOID
AddChecked(
    PLONGLONG Sum,
    LONGLONG Value,
    PULONGLONG Flags
    )
{
    if (__builtin_add_overflow(*Sum, Value, Sum)) {
        *Flags |= ROLLUP_ENTRY_OVERFLOW;
    }
}

static inline
PBYTE
RecordAt(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Row
    )
{
    return Rollup->Source->Base + Row * Rollup->RecordSize;
}

static inline
PROLLUP_RECENT_NAME
RecentName(
    PTRACE_ROLLUP Rollup,
    ULONG NameId
    )
/*++

Routine Description:

    The memo slot of a name id, taken over for it if another held it.

--*/
{
    PROLLUP_RECENT_NAME Recent;

    Recent = &Rollup->RecentNames[(NameId * 0x9E3779B1u) >>
                                  (32 - ROLLUP_RECENT_BITS)];
    if (Recent->NameId != NameId) {
        Recent->NameId = NameId;
        Recent->Name = ROLLUP_NO_ENTRY;
        Recent->Rate = ROLLUP_NO_ENTRY;
        Recent->Span = ROLLUP_NO_ENTRY;
        Recent->Canonical = ROLLUP_NO_ENTRY;
        Recent->Class = 0;
    }
    return Recent;
}

static inline
ULONGLONG
EntryIndex(
    PROLLUP_TABLE Table,
    PVOID Entry
    )
{
    return (ULONGLONG)((PBYTE)Entry - Table->Entries) / Table->EntrySize;
}

static inline
PVOID
RecentGroup(
    PTRACE_ROLLUP Rollup,
    PROLLUP_TABLE Table,
    ULONGLONG Key0,
    ULONGLONG Key1,
    PBOOL Added
    )
/*++

Routine Description:

    The entry of group (Key0, Key1) of Table, added zero-filled if new
    (*Added), through the memo; NULL without memory.

--*/
{
    PROLLUP_RECENT_GROUP Recent;
    PROLLUP_KEY Entry;

    Recent = &Rollup->RecentGroups[((Key0 ^ (Key1 * 0x9E3779B97F4A7C15ULL))
                                    * 0xC2B2AE3D27D4EB4FULL) >>
                                   (64 - ROLLUP_RECENT_BITS)];
    if (Recent->Entry != ROLLUP_NO_ENTRY && Recent->Key0 == Key0 &&
        Recent->Key1 == Key1) {
        *Added = FALSE;
        return RollupTableEntry(Table, Recent->Entry);
    }

    Entry = RollupTableInsert(Rollup->Rtl, Table, Key0, Key1, Added);
    if (Entry == NULL) {
        return NULL;
    }
    Recent->Key0 = Key0;
    Recent->Key1 = Key1;
    Recent->Entry = EntryIndex(Table, Entry);
    return Entry;
}

//
// TraceRollupFold.c.
//

//
// Sets up an empty fold of Store (its kind, layout and tables).
//

VOID RollupInitialize(PTRACE_ROLLUP Rollup, PRTL Rtl, PTRACE_STORE Store,
                      PTRACE_STRING_TABLE Strings);

//
// Empties every table (for a rebuild).
//

VOID RollupResetTables(PTRACE_ROLLUP Rollup);

//
// Forgets the recent groups (after tables were rebuilt or loaded).
//

VOID RollupForgetRecent(PTRACE_ROLLUP Rollup);

VOID RollupFreeTables(PTRACE_ROLLUP Rollup);

//
// Folds records [Rollup->Watermark, UpTo), after re-examining the open
// span rows.  Writer: rows may still change (Final FALSE).  Fails without
// memory or on a record it cannot read (Rollup->Error says which).
//

RTL_STATUS RollupFold(PTRACE_ROLLUP Rollup, ULONGLONG UpTo);

//
// TraceRollupSpans.c: the span tables.  RollupRecheckOpenSpans looks again
// at the open rows before a fold; RollupFoldSpans folds span records
// [From, To) of a fold that goes up to UpTo.
//

RTL_STATUS RollupRecheckOpenSpans(PTRACE_ROLLUP Rollup, ULONGLONG UpTo);
RTL_STATUS RollupFoldSpans(PTRACE_ROLLUP Rollup, ULONGLONG From,
                           ULONGLONG To, ULONGLONG UpTo);

//
// Rebuilds the fold's text index of span names from a loaded
// TraceRollupSpanNames table.
//

RTL_STATUS RollupLoadSpanTexts(PTRACE_ROLLUP Rollup);

//
// A reader's last step on the span tables: every open row adds what it
// has not added yet, with its dur as read now (parents committed by UpTo
// get their child's dur), and is marked ROLLUP_OPEN_RUNNING if its call
// still runs.  Nothing may be folded afterwards.
//

RTL_STATUS RollupSettleOpenSpans(PTRACE_ROLLUP Rollup, ULONGLONG UpTo);

//
// TraceRollupLines.c: the line tables, in the same three steps:
// RollupRecheckOpenLines before a fold, RollupFoldLines over records
// [From, To), and a reader's RollupSettleOpenLines last.
//

RTL_STATUS RollupRecheckOpenLines(PTRACE_ROLLUP Rollup);
RTL_STATUS RollupFoldLines(PTRACE_ROLLUP Rollup, ULONGLONG From,
                           ULONGLONG To);
RTL_STATUS RollupSettleOpenLines(PTRACE_ROLLUP Rollup);

//
// The text of string Id (Text NULL for TRACE_STRING_NULL), or an error
// naming the row, column and byte offset that hold it.
//

RTL_STATUS RollupText(PTRACE_ROLLUP Rollup, ULONG Id, ULONGLONG Row,
                      PCSZ Column, ULONG Offset, PCSZ *Text, PULONG Length);

ULONG RollupEntrySize(TRACE_ROLLUP_TABLE_ID Table);

//
// The histogram bucket of a duration (monotonic in the duration).
//

LONGLONG RollupHistogramBucket(LONGLONG Value);

//
// SQLite's CAST(Text AS INTEGER) of Length bytes.
//

LONGLONG RollupSqlInteger(PCSZ Text, SIZE_T Length);

//
// TraceRollupFile.c.
//

//
// Reads the latest valid image of the file at Path into Rollup (whose
// Store gives the identity to check), setting Status; returns
// RTL_STATUS_OK with Status->Source telling whether one was loaded.
//

RTL_STATUS RollupLoadFile(PTRACE_ROLLUP Rollup, PCSZ Path,
                          PTRACE_ROLLUP_STATUS Status, BOOL KeepOpen);

//
// Builds the path NAME.rollup of Store in SessionPath.
//

BOOL RollupFilePath(PCHAR Buffer, SIZE_T Size, PCSZ SessionPath,
                    PTRACE_STORE Store);

#endif // _TRACER_TRACE_ROLLUP_INTERNAL_H_
