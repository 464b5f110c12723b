/*++

Module Name:

    TraceRollup.h

Abstract:

    This is the public header of rollups: the small derived structures a
    session keeps next to its event stores so that the built-in questions
    (span self time, page faults per process and module, KVM exit reasons,
    system call counts, events per name and per second, the calls still
    running, time per source line) cost O(groups), not O(rows).

    A rollup is a fold over the committed records of one store, in record
    order.  The store's writer folds each commit's new records into it and
    now and then publishes the fold's state, with the number of records it
    covers (its watermark), into NAME.rollup beside NAME.store.  A reader
    loads the latest published state, takes its snapshot of the store (at
    least the watermark), folds the records past the watermark itself, and
    so answers exactly for its snapshot.  A rollup file that is missing,
    damaged, of another version, or not of this store (another store of the
    same name made since) is never trusted: the reader folds every record
    instead (a full scan, in C), and the next writer rebuilds the file.

    File layout of NAME.rollup:

        [0, 4096)        TRACE_ROLLUP_HEADER: magic, version, the identity
                         of the store it folds, two publication slots.
        [4096, ...)      images: each a TRACE_ROLLUP_IMAGE header and the
                         entry arrays of the fold's tables.

    Publication (TraceRollupFile.c): the writer writes a new image where it
    overlaps neither slot's image, then the slot not holding the latest
    publication, checksummed, sequence last.  A reader takes the valid slot
    with the higher sequence, reads its image and checks the image's
    checksum; a torn or overwritten image fails it and the reader tries
    the other slot, then again.  The file is written with WriteFile and
    read with ReadFile, never mapped, so a reader cannot fault on a file
    cut short.

    Which records are final: every committed record, except a span or line
    row whose flags have SPAN_FLAG_END_MISSING.  The Python tracer keeps
    such a row's dur growing while its call (or line) runs and clears the
    flag when it ends; other writers leave the flag on rows closed at the
    end of a recording.  The fold keeps these rows in a list (O(open calls
    and lines)), adds what depends on their dur when they turn final, and a
    reader adds their dur as it reads it (docs/rollups.md).

Environment:

    Core: no C runtime; the OS only through PRTL.  The public API of
    TraceRollupTable.c, TraceRollupFold.c, TraceRollupFile.c and
    TraceRollupAnswer.c.  Included by TraceSession.c (the writer's side),
    the SQLite extension and the CLI (the reader's side), and the tests;
    includes TraceStore.h and TraceSchema.h.

--*/

#ifndef _TRACER_TRACE_ROLLUP_H_
#define _TRACER_TRACE_ROLLUP_H_

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TRACE_ROLLUP_MAGIC          0x3150554C4C4F5254ULL   // "TROLLUP1"
#define TRACE_ROLLUP_IMAGE_MAGIC    0x31474D49504C5254ULL   // "TRLPIMG1"
#define TRACE_ROLLUP_VERSION        2       // 2: the line tables
#define TRACE_ROLLUP_HEADER_SIZE    4096
#define TRACE_ROLLUP_FILE_SUFFIX    ".rollup"

//
// A publication slot: 64 bytes.
//

typedef struct _TRACE_ROLLUP_SLOT {

    //
    // Publication number, odd in slot 1 and even in slot 0; 0 while the
    // slot is being written (stored last).
    //

    ULONGLONG Sequence;

    //
    // Records of the store the image folds: [0, Watermark).
    //

    ULONGLONG Watermark;

    //
    // Where the image is in the file, and its size in bytes.
    //

    ULONGLONG ImageOffset;
    ULONGLONG ImageSize;

    //
    // XXH3-64 of the image's bytes.
    //

    ULONGLONG ImageChecksum;

    //
    // The store's generation when the image was written (informational).
    //

    ULONG StoreGeneration;

    //
    // Reserved, zero.
    //

    ULONG Reserved;
    ULONGLONG Reserved2;

    //
    // XXH3-64 of the 56 bytes above.
    //

    ULONGLONG Checksum;

} TRACE_ROLLUP_SLOT, *PTRACE_ROLLUP_SLOT;

C_ASSERT(sizeof(TRACE_ROLLUP_SLOT) == 64);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, Watermark) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, ImageOffset) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, ImageSize) == 24);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, ImageChecksum) == 32);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, StoreGeneration) == 40);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_SLOT, Checksum) == 56);

#define TRACE_ROLLUP_SLOT_CHECKSUMMED_BYTES FIELD_OFFSET(TRACE_ROLLUP_SLOT, \
                                                         Checksum)

//
// The first page of a rollup file: 4096 bytes.
//

typedef struct _TRACE_ROLLUP_HEADER {

    //
    // TRACE_ROLLUP_MAGIC.
    //

    ULONGLONG Magic;

    //
    // TRACE_ROLLUP_VERSION of the writer that created the file.
    //

    ULONG Version;

    //
    // TRACE_ROLLUP_HEADER_SIZE.
    //

    ULONG HeaderSize;

    //
    // The store the rollup folds: its name, TRACE_RECORD_KIND, record
    // size, creation time and HeaderChecksum (TRACE_STORE_HEADER).  A
    // store made anew under the same name has another creation time and
    // checksum, so its old rollup is not taken for its own.
    //

    CHAR StoreName[TRACE_NAME_SIZE];
    ULONG Kind;
    ULONG RecordSize;
    LONGLONG StoreCreatedRealtimeNs;
    ULONGLONG StoreHeaderChecksum;

    //
    // Reserved, zero.
    //

    ULONGLONG Reserved[6];

    //
    // XXH3-64 of the 120 bytes above.
    //

    ULONGLONG HeaderChecksum;

    //
    // The two publication slots.
    //

    TRACE_ROLLUP_SLOT Slots[2];

    //
    // Reserved, zero.
    //

    BYTE Padding[TRACE_ROLLUP_HEADER_SIZE - 256];

} TRACE_ROLLUP_HEADER, *PTRACE_ROLLUP_HEADER;

C_ASSERT(sizeof(TRACE_ROLLUP_HEADER) == TRACE_ROLLUP_HEADER_SIZE);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, Version) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, StoreName) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, Kind) == 48);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, StoreCreatedRealtimeNs) == 56);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, StoreHeaderChecksum) == 64);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, HeaderChecksum) == 120);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, Slots) == 128);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_HEADER, Padding) == 256);

#define TRACE_ROLLUP_HEADER_CHECKSUMMED_BYTES \
    FIELD_OFFSET(TRACE_ROLLUP_HEADER, HeaderChecksum)

//
// The tables of a fold.  Each is an array of fixed-size entries whose
// first 16 bytes are the entry's key; an image holds each table's entries
// as they are in memory (TraceRollupInternal.h declares the entries).
//

typedef enum _TRACE_ROLLUP_TABLE_ID {
    TraceRollupNames = 0,       // events per name id (stores with names)
    TraceRollupRates,           // events per name id and time bucket
    TraceRollupFaults,          // page_fault: per pid, comm, module
    TraceRollupKvm,             // kvm_exit: per reason and exit code
    TraceRollupKvmBuckets,      // kvm_exit: dur histogram per reason
    TraceRollupSpans,           // span: per name
    TraceRollupSpanKeys,        // span: per pid, tid, name (recursion)
    TraceRollupSpanOpen,        // span: rows not final yet
    TraceRollupSyscalls,        // ftrace_event: sys_enter per number
    TraceRollupSpanNames,       // span: name id -> the first id of its text
    TraceRollupLines,           // line: per function, file and line number
    TraceRollupLineOpen,        // line: rows not final yet
    TraceRollupTableMaximum
} TRACE_ROLLUP_TABLE_ID;

//
// An image's header, followed by its tables' entries.
//

typedef struct _TRACE_ROLLUP_IMAGE_TABLE {
    ULONG EntrySize;            // bytes per entry, as compiled
    ULONG Padding;
    ULONGLONG Count;            // entries
    ULONGLONG Offset;           // from the image's start
} TRACE_ROLLUP_IMAGE_TABLE, *PTRACE_ROLLUP_IMAGE_TABLE;

C_ASSERT(sizeof(TRACE_ROLLUP_IMAGE_TABLE) == 24);

typedef struct _TRACE_ROLLUP_IMAGE {

    //
    // TRACE_ROLLUP_IMAGE_MAGIC, TRACE_ROLLUP_VERSION, TRACE_RECORD_KIND.
    //

    ULONGLONG Magic;
    ULONG Version;
    ULONG Kind;

    //
    // Records folded: [0, Watermark).
    //

    ULONGLONG Watermark;

    //
    // Width of a rate bucket, ns: one second times a power of two.
    //

    LONGLONG BucketNs;

    //
    // TRACE_ROLLUP_FLAG_* of the fold.
    //

    ULONG Flags;
    ULONG NumberOfTables;       // TraceRollupTableMaximum

    TRACE_ROLLUP_IMAGE_TABLE Tables[TraceRollupTableMaximum];

} TRACE_ROLLUP_IMAGE, *PTRACE_ROLLUP_IMAGE;

C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_IMAGE, Watermark) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_IMAGE, BucketNs) == 24);
C_ASSERT(FIELD_OFFSET(TRACE_ROLLUP_IMAGE, Tables) == 40);
C_ASSERT(sizeof(TRACE_ROLLUP_IMAGE) == 40 + 24 * TraceRollupTableMaximum);

//
// TRACE_ROLLUP_IMAGE.Flags.
//

#define TRACE_ROLLUP_FLAG_KIND      0x1     // the store's layout is this
                                            // version's: the kind's own
                                            // tables are kept (else only
                                            // names and rates)

//
// The most entries a rate table keeps: past it, the buckets double in
// width (pairs merge) until it fits again.
//

#define TRACE_ROLLUP_MAX_RATE_ENTRIES (1u << 15)
#define TRACE_ROLLUP_FIRST_BUCKET_NS  1000000000LL

//
// The duration histogram of kvm_exit: values below 2^9 ns in buckets of
// 1 ns, above in 256 buckets per power of two, so a bucket is narrower
// than 1/256 of its values.  A percentile is the nearest-rank value
// located in its bucket (exact when it is the bucket's smallest or
// largest value, linear between them otherwise): within 0.4% of exact.
//

#define TRACE_ROLLUP_HISTOGRAM_BITS 8

//
// ---------------------------------------------------------------------------
// The writer's side.  TraceSession.c opens a rollup with each event store
// a writer opens, folds at each session commit, and publishes and closes
// at the session's close; a writer that commits on its own (the Python
// tracer) calls TraceRollupUpdate from whatever one thread it chooses.
// ---------------------------------------------------------------------------
//

typedef struct _TRACE_ROLLUP TRACE_ROLLUP, *PTRACE_ROLLUP;

//
// Opens (creating if needed) the rollup of Store, a store open for writing
// in the session directory SessionPath, and brings it up to the store's
// committed records: from the file's last publication when it belongs to
// this store, else from the first record (a rebuild).  *Rollup is NULL,
// with RTL_STATUS_OK, for a store that has no rollup (not an event store).
// Strings is the session's string table, for the few folds that read text
// (system call names and numbers).  On failure the store works without a
// rollup, which readers notice (they fold every record).
//

RTL_STATUS TraceRollupOpenWriter(
    PRTL Rtl,
    PCSZ SessionPath,
    PTRACE_STORE Store,
    PTRACE_STRING_TABLE Strings,
    PTRACE_ROLLUP *Rollup,
    PRTL_ERROR Error
    );

//
// Folds the store's records [watermark, Committed) and re-examines the
// rows that were not final; publishes when a publication is due (a
// quarter second, or 2^18 records, since the last one) or when Flags has
// TRACE_ROLLUP_PUBLISH.  Committed must not exceed what the store has
// committed; with TRACE_ROLLUP_ELSEWHERE, TRACE_COMMIT_ALL folds what
// the store's commit slot says.  Call from one thread at a time.  From the writer's thread,
// the fold reads the writer's mapping; with TRACE_ROLLUP_ELSEWHERE, from
// another thread while the writer goes on appending and committing, it
// reads the store and the strings through read-only mappings of its own
// (opened at the first such call).  Committed records are read, never
// written.
//

#define TRACE_ROLLUP_PUBLISH    0x1
#define TRACE_ROLLUP_ELSEWHERE  0x2

RTL_STATUS TraceRollupUpdate(
    PTRACE_ROLLUP Rollup,
    ULONGLONG Committed,
    ULONG Flags
    );

//
// Flushes the file (after a publishing update) and frees the rollup.
//

VOID TraceRollupClose(PTRACE_ROLLUP Rollup);

//
// ---------------------------------------------------------------------------
// The reader's side.  TraceRollupRead answers for one store of a session
// open for reading; the TRACE_ROLLUP_*_ROW accessors give the answer's
// groups, keyed by string ids whose text is the group's (ids of the same
// text are merged).
// ---------------------------------------------------------------------------
//

//
// Where an answer came from.
//

typedef enum _TRACE_ROLLUP_SOURCE {
    TraceRollupFromFile = 0,    // the published rollup, and the records
                                // committed after it
    TraceRollupMissing,         // no rollup file: every record folded
    TraceRollupDamaged,         // a file that fails its checks
    TraceRollupOtherVersion,    // written by another version
    TraceRollupOtherStore,      // of another store of that name
    TraceRollupAhead,           // covers more records than the store has
    TraceRollupNotKept,         // the store's layout has no rollup
} TRACE_ROLLUP_SOURCE;

typedef struct _TRACE_ROLLUP_STATUS {
    TRACE_ROLLUP_SOURCE Source;
    ULONG Flags;                // TRACE_ROLLUP_FLAG_* of the answer
    ULONGLONG Watermark;        // records the file covered (FromFile)
    ULONGLONG Records;          // records of the snapshot answered
    CHAR Detail[200];           // why the file was not used, for a person
} TRACE_ROLLUP_STATUS, *PTRACE_ROLLUP_STATUS;

//
// Looks at Store's rollup file without folding anything: what a reader
// would use (Status), for `tracestore info`.  Store is a store of a
// session open for reading, SessionPath its directory.
//

RTL_STATUS TraceRollupInspect(
    PRTL Rtl,
    PCSZ SessionPath,
    PTRACE_STORE Store,
    PTRACE_ROLLUP_STATUS Status
    );

//
// The answer for Store (a store of Session, open for reading) as of a
// snapshot taken now: the published rollup and the records past it,
// or every record.  Fails with a message naming the file and byte offset
// on records a fold cannot read (a string id out of range), on a store
// that fails its checks, or without memory.  Free with TraceRollupFree.
//

RTL_STATUS TraceRollupRead(
    PRTL Rtl,
    PTRACE_SESSION Session,
    PTRACE_STORE Store,
    PTRACE_ROLLUP *Rollup,
    PTRACE_ROLLUP_STATUS Status,
    PRTL_ERROR Error
    );

VOID TraceRollupFree(PTRACE_ROLLUP Rollup);

//
// TRACE_ROLLUP_*_ROW.Flags.
//

#define TRACE_ROLLUP_ROW_OVERFLOW   0x1     // a sum left the int64 range
                                            // (SQL: "integer overflow")

typedef struct _TRACE_ROLLUP_NAME_ROW {
    ULONG NameId;               // TRACE_STRING_NULL: no name
    ULONG Padding;
    ULONGLONG Count;
} TRACE_ROLLUP_NAME_ROW, *PTRACE_ROLLUP_NAME_ROW;

typedef struct _TRACE_ROLLUP_RATE_ROW {
    ULONG NameId;               // TRACE_STRING_NULL: the span store's rows
                                // (per store), or no name
    ULONG Padding;
    LONGLONG Start;             // ns: Bucket * BucketNs
    LONGLONG Width;             // BucketNs
    ULONGLONG Count;
} TRACE_ROLLUP_RATE_ROW, *PTRACE_ROLLUP_RATE_ROW;

//
// page_fault_summary and page_fault_traffic, per (pid, comm, module).
//

typedef enum _TRACE_ROLLUP_FAULT_COUNT {
    TraceFaultCountAll = 0,
    TraceFaultCountCode,
    TraceFaultCountData,
    TraceFaultCountReads,
    TraceFaultCountWrites,
    TraceFaultCountExecs,
    TraceFaultCountUnknownAccess,
    TraceFaultCountHard,
    TraceFaultCountSoft,
    TraceFaultCountUnclassified,
    TraceFaultCountHardCode,
    TraceFaultCountHardData,
    TraceFaultCountSoftCode,
    TraceFaultCountSoftData,
    TraceFaultCountMaximum
} TRACE_ROLLUP_FAULT_COUNT;

typedef struct _TRACE_ROLLUP_FAULT_ROW {
    ULONG Pid;                  // TRACE_NULL_ULONG: NULL
    ULONG CommId;
    ULONG ModuleId;
    ULONG Padding;
    ULONGLONG Counts[TraceFaultCountMaximum];
} TRACE_ROLLUP_FAULT_ROW, *PTRACE_ROLLUP_FAULT_ROW;

//
// kvm_exit_reasons, per (reason, exit_code).  The dur columns cover the
// Paired exits (dur not NULL); the percentiles are 0 and HasDur FALSE
// when there are none.
//

typedef struct _TRACE_ROLLUP_KVM_ROW {
    ULONG ReasonId;
    ULONG ExitCode;             // TRACE_NULL_ULONG: NULL
    ULONG Flags;                // TRACE_ROLLUP_ROW_*
    ULONG Padding;
    ULONGLONG Count;
    ULONGLONG Paired;
    LONGLONG SumDur;
    LONGLONG MinDur;
    LONGLONG MaxDur;
    LONGLONG P50Dur;
    LONGLONG P90Dur;
    LONGLONG P99Dur;
    BOOL HasPercentiles;        // Paired, and a reason (the view's join
                                // finds none for a NULL reason)
    ULONG Padding2;
} TRACE_ROLLUP_KVM_ROW, *PTRACE_ROLLUP_KVM_ROW;

//
// span_self_time, per name.  AllDur sums every row's dur (running calls'
// as read), ChildDur the dur of the rows whose parent has this name
// (HasChild: there are such rows), TotalDur the outermost rows' (none for
// the NULL name, as the view's joins find none).
//

typedef struct _TRACE_ROLLUP_SPAN_ROW {
    ULONG NameId;
    ULONG Flags;                // TRACE_ROLLUP_ROW_*
    ULONG MinDepth;
    ULONG MaxDepth;
    ULONGLONG Calls;
    LONGLONG AllDur;
    LONGLONG MaxDur;
    LONGLONG ChildDur;
    LONGLONG TotalDur;
    BOOL HasChild;
    BOOL HasTotal;
} TRACE_ROLLUP_SPAN_ROW, *PTRACE_ROLLUP_SPAN_ROW;

//
// line_time and line_hot, per (function, file, line number): the rows
// (Hits), and the sums of their dur and self_dur (running lines' as read).
//

typedef struct _TRACE_ROLLUP_LINE_ROW {
    ULONG NameId;
    ULONG FileId;
    ULONG LineNo;
    ULONG Flags;                // TRACE_ROLLUP_ROW_*
    ULONGLONG Hits;
    LONGLONG TotalDur;
    LONGLONG SelfDur;
} TRACE_ROLLUP_LINE_ROW, *PTRACE_ROLLUP_LINE_ROW;

//
// syscall_counts' inner rows: sys_enter events per number (Raw), and
// sys_enter_NAME events per name id (the name with its prefix).
//

typedef struct _TRACE_ROLLUP_SYSCALL_ROW {
    BOOL Raw;
    ULONG NameId;               // not Raw: the event's name
    LONGLONG Nr;                // Raw: the number
    ULONGLONG Count;
} TRACE_ROLLUP_SYSCALL_ROW, *PTRACE_ROLLUP_SYSCALL_ROW;

//
// The rows of an answer: Table is TraceRollupNames, TraceRollupRates,
// TraceRollupFaults, TraceRollupKvm, TraceRollupSpans, TraceRollupSyscalls,
// TraceRollupLines (with the matching row type) or TraceRollupSpanOpen
// (the ids of the span rows whose calls still run, in id order: a
// ULONGLONG each).
// Count is 0 for a table the store's kind does not keep.
//

ULONGLONG TraceRollupRowCount(PTRACE_ROLLUP Rollup,
                              TRACE_ROLLUP_TABLE_ID Table);

BOOL TraceRollupGetRow(PTRACE_ROLLUP Rollup, TRACE_ROLLUP_TABLE_ID Table,
                       ULONGLONG Index, PVOID Row, SIZE_T RowSize);

#ifdef __cplusplus
}
#endif

#endif // _TRACER_TRACE_ROLLUP_H_
