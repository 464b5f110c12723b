/*++

Module Name:

    TraceStore.h

Abstract:

    This is the public header of the TraceStore component.  It defines the
    on-disk format of a store file (a header page followed by fixed-size
    records), the two-slot commit protocol that lets readers in other
    processes see consistent prefixes while one writer appends, the string
    store, and sessions (a directory of stores).

    File layout of NAME.store:

        [0, 4096)        TRACE_STORE_HEADER: magic, version, record size,
                         column descriptors, two commit slots.
        [4096, ...)      Capacity records of RecordSize bytes each; the
                         first RecordCount of them (from the valid commit
                         slot with the higher sequence) are committed and
                         never change afterwards.

    The commit protocol (see TraceStoreCommit.c for the barriers):

        Writer: write records; pick the slot not holding the latest commit;
                store 0 to its Sequence; release fence; write its fields
                and checksum; store-release Sequence = previous + 1.

        Reader: for each slot: acquire-load Sequence, copy the fields,
                acquire fence, reload Sequence; the slot is valid if both
                loads are equal and non-zero and the checksum matches.  Use
                the valid slot with the higher sequence; retry if neither.

    Everything here is usable from the core (no C runtime) and from hosted
    code; all OS access goes through the PRTL given at open.

Environment:

    Core: no C runtime; the OS only through the PRTL given at open.
    The public API of TraceStore/, included by every reader, the hosted
    edges (CLI, extension) and the tests; includes only Rtl/Rtl.h.  Defined
    by TraceStoreHeader.c, TraceStoreWriter.c, TraceStoreCommit.c,
    TraceStoreReader.c, TraceStoreClose.c, TraceString.c, TraceHash.c and
    TraceSession.c.

--*/

#ifndef _TRACER_TRACE_STORE_H_
#define _TRACER_TRACE_STORE_H_

#include "Rtl/Rtl.h"

#ifdef __cplusplus
extern "C" {
#endif

//
// Constants of the file format.  Changing any of these, or any structure
// below, is a format change: bump TRACE_STORE_VERSION.
//

#define TRACE_STORE_MAGIC           0x3145524F54535254ULL   // "TRSTORE1"
#define TRACE_STORE_VERSION         2

#define TRACE_DISCARD_BEHIND        (2ULL << 20)
#define TRACE_LARGE_PAGE            (2ULL << 20)    // TRACE_STORE.LargePages
#define TRACE_STORE_HEADER_SIZE     4096
#define TRACE_STORE_MAX_COLUMNS     30
#define TRACE_NAME_SIZE             32
#define TRACE_DESCRIPTION_SIZE      80
#define TRACE_STORE_MAX_RECORD_SIZE 4096
#define TRACE_STORE_FILE_SUFFIX     ".store"
#define TRACE_PATH_SIZE             1024

//
// Column types.
//

typedef enum _TRACE_COLUMN_TYPE {
    TraceColumnInvalid = 0,
    TraceColumnInt32 = 1,
    TraceColumnUInt32 = 2,
    TraceColumnInt64 = 3,
    TraceColumnUInt64 = 4,
    TraceColumnUInt16 = 5,
    TraceColumnUInt8 = 6,
    TraceColumnDouble = 7,
    TraceColumnTypeMaximum = 8,
} TRACE_COLUMN_TYPE;

//
// Column flags.
//

#define TRACE_COLUMN_STRING_ID   0x0001  // UInt32 id into the string store
#define TRACE_COLUMN_TIMESTAMP   0x0002  // int64 ns; the store's ts column
#define TRACE_COLUMN_DURATION    0x0004  // int64 ns
#define TRACE_COLUMN_NULLABLE    0x0008  // all-ones value means NULL
#define TRACE_COLUMN_ADDRESS     0x0010  // an address (display hint)
#define TRACE_COLUMN_BLOB        0x0020  // a string id whose bytes are binary
#define TRACE_COLUMN_VALID_FLAGS 0x003f

//
// A column descriptor: 128 bytes.
//

typedef struct _TRACE_COLUMN_DESCRIPTOR {

    //
    // Column name as SQL sees it, NUL-terminated.
    //

    CHAR Name[TRACE_NAME_SIZE];

    //
    // TRACE_COLUMN_TYPE of the value.
    //

    ULONG Type;

    //
    // Byte offset of the value within a record.
    //

    ULONG Offset;

    //
    // Width of the value in bytes (must agree with Type).
    //

    ULONG Width;

    //
    // TRACE_COLUMN_* flags.
    //

    ULONG Flags;

    //
    // One-line documentation of the column, NUL-terminated.
    //

    CHAR Description[TRACE_DESCRIPTION_SIZE];

} TRACE_COLUMN_DESCRIPTOR, *PTRACE_COLUMN_DESCRIPTOR;
typedef const TRACE_COLUMN_DESCRIPTOR *PCTRACE_COLUMN_DESCRIPTOR;

C_ASSERT(sizeof(TRACE_COLUMN_DESCRIPTOR) == 128);
C_ASSERT(FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR, Type) == 32);
C_ASSERT(FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR, Offset) == 36);
C_ASSERT(FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR, Width) == 40);
C_ASSERT(FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR, Flags) == 44);
C_ASSERT(FIELD_OFFSET(TRACE_COLUMN_DESCRIPTOR, Description) == 48);

//
// A commit slot: 64 bytes, one cache line.
//

#define TRACE_SLOT_SORTED 0x0001    // ts is non-decreasing over all records

typedef struct _TRACE_STORE_COMMIT_SLOT {

    //
    // Commit sequence number; 0 while the slot is being written.  Stored
    // last, with release ordering.
    //

    ULONGLONG Sequence;

    //
    // Number of committed records.
    //

    ULONGLONG RecordCount;

    //
    // Number of records the file holds past the header (disk reserved).
    //

    ULONGLONG Capacity;

    //
    // Incremented each time a writer opens the store.
    //

    ULONG Generation;

    //
    // Records the reader synthesized or repaired rather than read as they
    // were (spans whose entry or exit lies outside the recording, closed
    // or opened at the trace bounds), so far.
    //

    ULONG Repaired;

    //
    // Minimum and maximum ts over committed records (meaningful only if
    // RecordCount is non-zero and the store has a ts column).
    //

    LONGLONG FirstTs;
    LONGLONG LastTs;

    //
    // TRACE_SLOT_* flags.
    //

    ULONG Flags;

    //
    // Events the source reported lost, or the reader dropped, so far.
    //

    ULONG Dropped;

    //
    // XXH3-64 of the 56 bytes above.
    //

    ULONGLONG Checksum;

} TRACE_STORE_COMMIT_SLOT, *PTRACE_STORE_COMMIT_SLOT;

C_ASSERT(sizeof(TRACE_STORE_COMMIT_SLOT) == 64);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, RecordCount) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Capacity) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Generation) == 24);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Repaired) == 28);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, FirstTs) == 32);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, LastTs) == 40);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Flags) == 48);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Dropped) == 52);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Checksum) == 56);

#define TRACE_SLOT_CHECKSUMMED_BYTES FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, \
                                                  Checksum)

//
// The header page of a store file: exactly 4096 bytes.
//

#define TRACE_NO_COLUMN 0xffffffff

typedef struct _TRACE_STORE_HEADER {

    //
    // TRACE_STORE_MAGIC.
    //

    ULONGLONG Magic;

    //
    // TRACE_STORE_VERSION of the writer that created the file.
    //

    ULONG Version;

    //
    // Offset of the first record; TRACE_STORE_HEADER_SIZE.
    //

    ULONG HeaderSize;

    //
    // Size of one record in bytes (1 .. TRACE_STORE_MAX_RECORD_SIZE).
    //

    ULONG RecordSize;

    //
    // Number of valid entries in Columns.
    //

    ULONG NumberOfColumns;

    //
    // Reserved, zero.
    //

    ULONG StoreFlags;

    //
    // Index of the TRACE_COLUMN_TIMESTAMP column, or TRACE_NO_COLUMN.
    //

    ULONG TimestampColumn;

    //
    // Store name (the SQL table name), NUL-terminated.
    //

    CHAR Name[TRACE_NAME_SIZE];

    //
    // Wall-clock time the store was created, ns since the Unix epoch.
    //

    LONGLONG CreatedRealtimeNs;

    //
    // Reserved, zero.
    //

    ULONGLONG Reserved[6];

    //
    // XXH3-64 of the whole 4096-byte header page with this field and the
    // two Slots zeroed: everything that never changes after creation.
    //

    ULONGLONG HeaderChecksum;

    //
    // The two commit slots (see the abstract).
    //

    TRACE_STORE_COMMIT_SLOT Slots[2];

    //
    // Column descriptors.
    //

    TRACE_COLUMN_DESCRIPTOR Columns[TRACE_STORE_MAX_COLUMNS];

} TRACE_STORE_HEADER, *PTRACE_STORE_HEADER;

C_ASSERT(sizeof(TRACE_STORE_HEADER) == TRACE_STORE_HEADER_SIZE);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, Version) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, HeaderSize) == 12);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, RecordSize) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, NumberOfColumns) == 20);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, TimestampColumn) == 28);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, Name) == 32);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, CreatedRealtimeNs) == 64);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, HeaderChecksum) == 120);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, Slots) == 128);
C_ASSERT(FIELD_OFFSET(TRACE_STORE_HEADER, Columns) == 256);

//
// A schema: what a writer needs to create a store.  The column table is
// copied into the header, which makes the store self-describing.
//

typedef struct _TRACE_STORE_SCHEMA {
    PCSZ Name;
    ULONG RecordSize;
    ULONG NumberOfColumns;
    PCTRACE_COLUMN_DESCRIPTOR Columns;
    PCSZ Description;
} TRACE_STORE_SCHEMA, *PTRACE_STORE_SCHEMA;
typedef const TRACE_STORE_SCHEMA *PCTRACE_STORE_SCHEMA;

//
// A snapshot of a store as a reader sees it.
//

typedef struct _TRACE_STORE_SNAPSHOT {
    ULONGLONG Sequence;
    ULONGLONG RecordCount;
    ULONGLONG Capacity;
    ULONGLONG Generation;
    LONGLONG FirstTs;
    LONGLONG LastTs;
    ULONG Flags;
    ULONG Dropped;
    ULONGLONG Repaired;
} TRACE_STORE_SNAPSHOT, *PTRACE_STORE_SNAPSHOT;

//
// An open store.  Opaque to callers except through the routines below, but
// declared here so it can be embedded.  Base and RecordSize may be used to
// address committed records: Base + Index * RecordSize, for Index below the
// RecordCount of the latest snapshot.  Base may change on every snapshot
// or reserve, so never keep a record pointer across those calls.
//

typedef struct _TRACE_STORE {
    PRTL Rtl;
    HANDLE FileHandle;
    BOOL Writable;
    ULONG RecordSize;

    //
    // Mapped header (read-only for readers) and first record.
    //

    PTRACE_STORE_HEADER Header;
    PBYTE Base;

    //
    // Offset of the ts column within a record, or TRACE_NO_COLUMN.
    //

    ULONG TimestampOffset;
    ULONG Padding1;

    //
    // Writer state: records handed out by Reserve, committed, and the
    // capacity that is fallocated and mapped.  A reservation past
    // GrowAtRecords takes the slow path: past ChunkAtRecords (the start of
    // the last chunk) the next chunk is added; and the pages a window or
    // two ahead of the writer are handed to the pre-fault worker
    // (PrefaultedBytes: the file offset up to which they were).
    //

    ULONGLONG ReservedCount;
    ULONGLONG CommittedCount;
    ULONGLONG Capacity;
    ULONGLONG GrowAtRecords;
    ULONGLONG ChunkAtRecords;
    ULONGLONG PrefaultedBytes;
    ULONGLONG Sequence;
    ULONGLONG Generation;
    LONGLONG FirstTs;
    LONGLONG LastTs;
    ULONG SlotFlags;
    ULONG Dropped;
    ULONG Repaired;
    ULONG Padding2;

    //
    // Records at or past CommitLimit are not committed by TraceStoreCommit
    // with TRACE_COMMIT_ALL (a reader holds them to fill in later).
    //

    ULONGLONG CommitLimit;

    //
    // When DiscardBehind is set, each commit drops the process's mapping
    // of the records (reserved or committed) more than 512 KB behind the
    // newest (Rtl->DiscardMemory, a megabyte or more at a time) and starts
    // writing them back, and the file grows in chunks of at most
    // TRACE_DISCARD_BEHIND, so a writer's resident set stays bounded
    // however large the store grows.  Off by default: a writer that reads
    // old records back often would fault them in again.
    //

    BOOL DiscardBehind;

    //
    // When LargePages is set, the file grows in 2 MB-aligned chunks of at
    // least 2 MB and its mapping asks for large page-cache pages
    // (Rtl->PreferLargePages), and what it unmaps behind the writer ends
    // on a 2 MB boundary.  Faulting pages in then costs a third
    // (docs/benchmarks-history.md, "Appending 32-byte records").  For a
    // writer that keeps its pages until close or unmaps them (the Python
    // tracer), not for one that writes them back behind itself at a finer
    // grain than 2 MB (an importer): a large page under write-back stalls
    // the writer that is still filling it.  Off by default.
    //

    BOOL LargePages;
    BOOL Trimmed;                   // TraceStoreTrim done
    ULONGLONG DiscardedBytes;

    //
    // Address space: the writer reserves ReservationSize bytes and maps the
    // file in chunks at its start; a reader maps MappedSize bytes.
    //

    PVOID Mapping;
    SIZE_T MappingSize;
    SIZE_T MappedFileBytes;

    //
    // Reader of a session whose last sync was made on an earlier boot
    // (the machine went down since: see TraceDurable.c): records past
    // DurableLimit were never made durable and are not shown; Unsynced
    // counts those the latest commit slot claimed.  TRACE_COMMIT_ALL and 0
    // otherwise.
    //

    ULONGLONG DurableLimit;
    ULONGLONG Unsynced;

    //
    // Last snapshot taken (readers) or published (writer).
    //

    TRACE_STORE_SNAPSHOT Snapshot;

    CHAR Name[TRACE_NAME_SIZE];
    CHAR Path[TRACE_PATH_SIZE];

} TRACE_STORE, *PTRACE_STORE;

#define TRACE_COMMIT_ALL (~0ULL)

//
// Store routines.
//

//
// Creates Path from Schema if it does not exist (atomically: a temporary
// file is renamed into place), then opens it for writing: takes the writer
// lock, validates the header against Schema, recovers the committed count
// from the valid slot, and bumps the generation.  Nothing past the
// committed count survives.
//

typedef RTL_STATUS (TRACE_STORE_OPEN_WRITER)(PRTL Rtl, PCSZ Path,
                                             PCTRACE_STORE_SCHEMA Schema,
                                             PTRACE_STORE Store,
                                             PRTL_ERROR Error);
typedef TRACE_STORE_OPEN_WRITER *PTRACE_STORE_OPEN_WRITER;
TRACE_STORE_OPEN_WRITER TraceStoreOpenWriter;

//
// Opens Path read-only, validates the header and takes a first snapshot.
// Never takes a lock; works while a writer appends.
//

typedef RTL_STATUS (TRACE_STORE_OPEN_READER)(PRTL Rtl, PCSZ Path,
                                             PTRACE_STORE Store,
                                             PRTL_ERROR Error);
typedef TRACE_STORE_OPEN_READER *PTRACE_STORE_OPEN_READER;
TRACE_STORE_OPEN_READER TraceStoreOpenReader;

//
// TraceStoreOpenReader that shows at most Limit records, whatever the
// commit slots say (sets DurableLimit before the first snapshot).
//

RTL_STATUS
TraceStoreOpenReaderUpTo(
    PRTL Rtl,
    PCSZ Path,
    ULONGLONG Limit,
    PTRACE_STORE Store,
    PRTL_ERROR Error
    );

//
// Settles a store file that no writer of this session has open: when its
// latest commit holds more than Limit records, commits Limit instead (the
// records past it were never made durable) and adds the difference to
// *Dropped; then trims and flushes the file.  Receives the committed count.
//

RTL_STATUS
TraceStoreSettle(
    PRTL Rtl,
    PCSZ Path,
    ULONGLONG Limit,
    PULONGLONG RecordCount,
    PULONGLONG Dropped,
    PRTL_ERROR Error
    );

//
// Reserves Count records at the end of the store, growing the file when
// needed; returns the index of the first.  The records are zero-filled or
// hold bytes of an earlier, uncommitted reservation: fill every field.
// The address is Store->Base + Index * Store->RecordSize (valid until the
// next Reserve).
//

typedef RTL_STATUS (TRACE_STORE_RESERVE)(PTRACE_STORE Store, ULONG Count,
                                         PULONGLONG Index);
typedef TRACE_STORE_RESERVE *PTRACE_STORE_RESERVE;
TRACE_STORE_RESERVE TraceStoreReserve;

//
// Grows the file to hold Records more records and faults the pages in now,
// so that appending them takes no page faults (see TraceStoreWriter.c).
//

typedef RTL_STATUS (TRACE_STORE_PREALLOCATE)(PTRACE_STORE Store,
                                             ULONGLONG Records);
typedef TRACE_STORE_PREALLOCATE *PTRACE_STORE_PREALLOCATE;
TRACE_STORE_PREALLOCATE TraceStorePreallocate;

//
// Convenience: reserve one record and copy Record into it.
//

typedef RTL_STATUS (TRACE_STORE_APPEND)(PTRACE_STORE Store, PCVOID Record,
                                        PULONGLONG Index);
typedef TRACE_STORE_APPEND *PTRACE_STORE_APPEND;
TRACE_STORE_APPEND TraceStoreAppend;

//
// The same for a writer that appends a record type it knows: Size is
// sizeof the record (a constant, so the copy is a few moves).  Inline
// while the store needs no growing; TraceStoreAppend otherwise.
//

static inline
RTL_STATUS
TraceStoreAppendInline(
    PTRACE_STORE Store,
    PCVOID Record,
    SIZE_T Size,
    PULONGLONG Index
    )
{
    ULONGLONG First = Store->ReservedCount;

    if (First >= Store->GrowAtRecords || Size != Store->RecordSize) {
        return TraceStoreAppend(Store, Record, Index);
    }

    __builtin_memcpy(Store->Base + First * Size, Record, Size);
    Store->ReservedCount = First + 1;
    if (Index != NULL) {
        *Index = First;
    }

    return RTL_STATUS_OK;
}

//
// One record reserved for a writer that fills it in place, field by field
// (TraceStoreReserve's rules: fill every field).  Inline while the store
// needs no growing.  Building a record elsewhere and copying it costs more
// than it looks when the fields are narrow: the copy's wide loads wait for
// the narrow stores before them (the Python tracer's call row, docs/store.md).
//

static inline
RTL_STATUS
TraceStoreReserveOne(
    PTRACE_STORE Store,
    PULONGLONG Index
    )
{
    ULONGLONG First = Store->ReservedCount;

    if (First >= Store->GrowAtRecords) {
        return TraceStoreReserve(Store, 1, Index);
    }

    Store->ReservedCount = First + 1;
    *Index = First;
    return RTL_STATUS_OK;
}

//
// Publishes the first Count reserved records (TRACE_COMMIT_ALL: all up to
// CommitLimit) through the commit slot.  Count never goes backwards.
//

typedef RTL_STATUS (TRACE_STORE_COMMIT)(PTRACE_STORE Store, ULONGLONG Count);
typedef TRACE_STORE_COMMIT *PTRACE_STORE_COMMIT;
TRACE_STORE_COMMIT TraceStoreCommit;

//
// Timestamp tracking while filling.  TraceStoreCommit reads back the ts of
// every newly committed record to keep the slot's first/last ts and sorted
// flag; for small records that second pass costs as much as writing them.
// A writer that has each ts in hand as it fills records can track them
// instead (TraceStoreTrackTs per record, in order) and commit with
// TraceStoreCommitTracked, which skips the pass.  Start from
// TRACE_TS_TRACKER_INIT; TraceStoreCommitTracked resets it.
//

typedef struct _TRACE_TS_TRACKER {
    ULONGLONG Count;        // records tracked since the last commit
    LONGLONG PreviousTs;    // ts of the last of them
    LONGLONG MinimumTs;
    LONGLONG MaximumTs;
    ULONGLONG Descents;     // non-zero if some ts < the one before it
} TRACE_TS_TRACKER, *PTRACE_TS_TRACKER;

//
// An empty tracker: no ts can be below PreviousTs, so the first record
// never counts as out of order.
//

#define TRACE_TS_TRACKER_INIT { 0, (LONGLONG)0x8000000000000000ULL,       \
                                0x7fffffffffffffffLL,                    \
                                (LONGLONG)0x8000000000000000ULL, 0 }

static inline
VOID
TraceStoreTrackTs(
    PTRACE_TS_TRACKER Tracker,
    LONGLONG Ts
    )
{
    Tracker->Count++;
    Tracker->Descents |= (ULONGLONG)(Ts < Tracker->PreviousTs);
    Tracker->MinimumTs = (Ts < Tracker->MinimumTs) ? Ts : Tracker->MinimumTs;
    Tracker->MaximumTs = (Ts > Tracker->MaximumTs) ? Ts : Tracker->MaximumTs;
    Tracker->PreviousTs = Ts;
}

//
// Commits the reserved records that Tracker describes (the Tracker->Count
// records after the last committed one) without reading them back, and
// resets Tracker.  If the tracker does not cover exactly the reserved,
// uncommitted records, it falls back to TraceStoreCommit(Store,
// TRACE_COMMIT_ALL).
//

typedef RTL_STATUS (TRACE_STORE_COMMIT_TRACKED)(PTRACE_STORE Store,
                                                PTRACE_TS_TRACKER Tracker);
typedef TRACE_STORE_COMMIT_TRACKED *PTRACE_STORE_COMMIT_TRACKED;
TRACE_STORE_COMMIT_TRACKED TraceStoreCommitTracked;

//
// Reads the latest valid commit slot into Snapshot (and Store->Snapshot),
// remapping when the committed records pass the current mapping.  Fails
// with RTL_STATUS_CORRUPT if no slot is valid or the count exceeds the
// file.  A reader checks the file's size on every call, so that a file
// another program cut shorter (reading its mapping past the end would
// raise SIGBUS) is refused until the next call rather than read.
//

typedef RTL_STATUS (TRACE_STORE_TAKE_SNAPSHOT)(PTRACE_STORE Store,
                                               PTRACE_STORE_SNAPSHOT Snapshot,
                                               PRTL_ERROR Error);
typedef TRACE_STORE_TAKE_SNAPSHOT *PTRACE_STORE_TAKE_SNAPSHOT;
TRACE_STORE_TAKE_SNAPSHOT TraceStoreTakeSnapshot;

//
// A reader's file mapped anew, whole, in place of its mapping: for a
// hosted edge whose mapping was damaged (see Guard/StoreGuard.c).
//

typedef RTL_STATUS (TRACE_STORE_REMAP)(PTRACE_STORE Store, PRTL_ERROR Error);
typedef TRACE_STORE_REMAP *PTRACE_STORE_REMAP;
TRACE_STORE_REMAP TraceStoreRemap;

//
// Writes mapped records and then the header to the device.
//

typedef RTL_STATUS (TRACE_STORE_FLUSH)(PTRACE_STORE Store);
typedef TRACE_STORE_FLUSH *PTRACE_STORE_FLUSH;
TRACE_STORE_FLUSH TraceStoreFlush;

//
// Closes a store.  A writer commits nothing more: uncommitted records are
// discarded; the file is trimmed to the committed records and flushed
// (the flush's error is returned: the records are then not durable).
//

typedef RTL_STATUS (TRACE_STORE_CLOSE)(PTRACE_STORE Store);
typedef TRACE_STORE_CLOSE *PTRACE_STORE_CLOSE;
TRACE_STORE_CLOSE TraceStoreClose;

//
// The first steps of TraceStoreClose, for closing several stores:
// TraceStoreTrim trims the file to the committed records; then
// TraceStoreStartClose (trimming first if needed) unmaps it and starts
// writing it back without waiting.  TraceStoreClose then flushes (waiting
// for the device once per store, while the others' writes are already
// under way) and closes.  Nothing is committed after TraceStoreTrim.
// Closing several stores trims them all first: a trim frees disk blocks,
// which the device would otherwise do behind the others' writes.
//

typedef VOID (TRACE_STORE_TRIM)(PTRACE_STORE Store);
typedef TRACE_STORE_TRIM *PTRACE_STORE_TRIM;
TRACE_STORE_TRIM TraceStoreTrim;

typedef VOID (TRACE_STORE_START_CLOSE)(PTRACE_STORE Store);
typedef TRACE_STORE_START_CLOSE *PTRACE_STORE_START_CLOSE;
TRACE_STORE_START_CLOSE TraceStoreStartClose;

//
// Adds to the count of dropped/lost events published with the next commit.
//

VOID TraceStoreAddDropped(PTRACE_STORE Store, ULONG Count);
VOID TraceStoreAddRepaired(PTRACE_STORE Store, ULONG Count);

//
// Validates a header page image (magic, version, sizes, descriptors,
// checksum).  Used on open and by tools.
//

RTL_STATUS TraceStoreValidateHeader(
    PRTL Rtl,
    PCSZ Path,
    const TRACE_STORE_HEADER *Header,
    ULONGLONG FileSize,
    PRTL_ERROR Error
    );

//
// TRUE if Header describes exactly Schema's records: record size and every
// column (name, type, offset, width, flags).  Code that reads a store with
// a layout compiled in (the string stores) checks this first.
//

BOOL TraceStoreSchemaMatches(
    const TRACE_STORE_HEADER *Header,
    PCTRACE_STORE_SCHEMA Schema
    );

//
// Reads one slot with the retry protocol; TRUE if it is valid.
//

BOOL TraceStoreReadSlot(
    PRTL Rtl,
    const volatile TRACE_STORE_COMMIT_SLOT *Slot,
    PTRACE_STORE_COMMIT_SLOT Copy
    );

//
// Returns the column named Name, or NULL.
//

PCTRACE_COLUMN_DESCRIPTOR TraceStoreFindColumn(
    const TRACE_STORE_HEADER *Header,
    PCSZ Name
    );

//
// Reads column Column of record Index as a 64-bit integer (sign- or
// zero-extended per type; doubles are returned bit-for-bit).  Returns FALSE
// if the value is NULL (TRACE_COLUMN_NULLABLE and all ones).
//

BOOL TraceStoreReadColumn(
    PTRACE_STORE Store,
    ULONGLONG Index,
    PCTRACE_COLUMN_DESCRIPTOR Column,
    PLONGLONG Value
    );

//
// ---------------------------------------------------------------------------
// Strings: the `string` store holds one TRACE_STRING_RECORD per interned
// string (its id is the record index) and `string_data` holds the bytes
// (record size 1), each string followed by a NUL.  Id 0 is "".
// ---------------------------------------------------------------------------
//

#define TRACE_STRING_NULL       0xffffffff
#define TRACE_STRING_MAX_LENGTH (1u << 20)

//
// The writer's intern table holds at most this many strings (16 MB of
// table): past it, new strings are still stored but no longer entered, so
// a trace whose texts are mostly unique (addresses in every event's args)
// cannot grow the writer's memory without bound.  Strings entered before
// the limit - comms, event names, the texts that repeat - keep one id.
//

#define TRACE_STRING_INTERN_LIMIT (1u << 19)

typedef struct _TRACE_STRING_RECORD {

    //
    // Offset of the first byte in string_data.
    //

    ULONGLONG Offset;

    //
    // Length in bytes, excluding the terminating NUL.
    //

    ULONG Length;

    //
    // Low 32 bits of the XXH3-64 of the bytes.
    //

    ULONG Hash;

} TRACE_STRING_RECORD, *PTRACE_STRING_RECORD;

C_ASSERT(sizeof(TRACE_STRING_RECORD) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_STRING_RECORD, Length) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_STRING_RECORD, Hash) == 12);

//
// Open-addressing hash table of 64-bit keys to 64-bit values over pages
// from Rtl->AllocatePages; key 0 is reserved for "empty".  Used for string
// interning and by readers for small sets and maps.
//

typedef struct _TRACE_HASH_ENTRY {
    ULONGLONG Key;
    ULONGLONG Value;
} TRACE_HASH_ENTRY, *PTRACE_HASH_ENTRY;

typedef struct _TRACE_HASH_TABLE {
    PRTL Rtl;
    PTRACE_HASH_ENTRY Entries;
    ULONGLONG Mask;
    ULONGLONG Count;
} TRACE_HASH_TABLE, *PTRACE_HASH_TABLE;

RTL_STATUS TraceHashInitialize(PRTL Rtl, PTRACE_HASH_TABLE Table);
VOID TraceHashDestroy(PTRACE_HASH_TABLE Table);

//
// Finds Key; iterates duplicates of the same key through *Cursor (start
// at 0).  Returns TRUE and sets *Value if found.
//

BOOL TraceHashFind(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    PULONGLONG Cursor,
    PULONGLONG Value
    );

//
// Inserts Key -> Value (duplicates allowed); grows as needed.
//

RTL_STATUS TraceHashInsert(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    ULONGLONG Value
    );

//
// Sets Key -> Value, replacing an existing entry for Key.
//

RTL_STATUS TraceHashSet(
    PTRACE_HASH_TABLE Table,
    ULONGLONG Key,
    ULONGLONG Value
    );

//
// Removes the first entry for Key.  Returns TRUE if one was removed.
//

BOOL TraceHashRemove(PTRACE_HASH_TABLE Table, ULONGLONG Key);

//
// The first entry for Key, to read or change its value in place, or NULL.
// Valid until the next insert or remove.
//

PTRACE_HASH_ENTRY TraceHashLookup(PTRACE_HASH_TABLE Table, ULONGLONG Key);

typedef struct _TRACE_STRING_TABLE {
    PRTL Rtl;
    BOOL Writable;
    ULONG Padding;
    TRACE_STORE Index;      // `string`: TRACE_STRING_RECORDs
    TRACE_STORE Data;       // `string_data`: bytes
    TRACE_HASH_TABLE Table; // writer only: XXH3-64 -> id
} TRACE_STRING_TABLE, *PTRACE_STRING_TABLE;

//
// Returns the id of Text (interning it if new).  The bytes of a hash hit
// are compared before the id is reused.  The new string is visible to
// readers after TraceStringCommit.
//

RTL_STATUS TraceStringIntern(
    PTRACE_STRING_TABLE Strings,
    PCSZ Text,
    ULONG Length,
    PULONG Id
    );

//
// Adds Text as a new string without interning it (no table entry, so the
// writer's memory does not grow with it), for per-event text that rarely
// repeats.  Hash is Rtl->Hash64 of the bytes.  The same text may then
// have several ids.
//

RTL_STATUS TraceStringAppend(
    PTRACE_STRING_TABLE Strings,
    PCSZ Text,
    ULONG Length,
    ULONGLONG Hash,
    PULONG Id
    );

//
// The same, for text written in place: TraceStringReserveText hands out
// room for up to MaxLength bytes (terminator included) at the end of
// `string_data`, the caller writes the text there, and
// TraceStringAppendReserved adds its first Length bytes as a new string
// (and gives the rest of the room back), or TraceStringCancelReserved
// gives all of it back.  Nothing else may be added to the table between
// the two calls.
//

RTL_STATUS TraceStringReserveText(
    PTRACE_STRING_TABLE Strings,
    ULONG MaxLength,
    PCHAR *Text
    );

RTL_STATUS TraceStringAppendReserved(
    PTRACE_STRING_TABLE Strings,
    PCHAR Text,
    ULONG Length,
    ULONGLONG Hash,
    PULONG Id
    );

VOID TraceStringCancelReserved(PTRACE_STRING_TABLE Strings, PCHAR Text);

RTL_STATUS TraceStringCommit(PTRACE_STRING_TABLE Strings);

//
// A reader's fresh snapshot of both string stores, as TraceStringLookup
// takes when it meets a newer id; also the check that another program
// has not cut their files (see TraceStoreTakeSnapshot).  A reader calls
// it before a pass that resolves ids it already knew.
//

RTL_STATUS TraceStringRefresh(PTRACE_STRING_TABLE Strings, PRTL_ERROR Error);

//
// Resolves Id to its bytes (NUL-terminated) for a reader or the writer.
// Takes a fresh snapshot of the string stores if Id is beyond the last
// one.  Returns RTL_STATUS_CORRUPT for an id that does not exist or
// points outside string_data.
//

RTL_STATUS TraceStringLookup(
    PTRACE_STRING_TABLE Strings,
    ULONG Id,
    PCSZ *Text,
    PULONG Length
    );

//
// ---------------------------------------------------------------------------
// Sessions: a directory holding `session.tracer` (TRACE_SESSION_HEADER, the
// writer lock) and one NAME.store per store.
// ---------------------------------------------------------------------------
//

#define TRACE_SESSION_MAGIC       0x314E535345535254ULL   // "TRSESSN1"
#define TRACE_SESSION_VERSION     1
#define TRACE_SESSION_FILE        "session.tracer"
#define TRACE_SESSION_MAX_STORES  32

#define TRACE_HOST_NAME_SIZE      64
#define TRACE_BOOT_ID_SIZE        48
#define TRACE_KERNEL_RELEASE_SIZE 64

typedef struct _TRACE_SESSION_HOST {
    CHAR HostName[TRACE_HOST_NAME_SIZE];
    CHAR BootId[TRACE_BOOT_ID_SIZE];
    CHAR KernelRelease[TRACE_KERNEL_RELEASE_SIZE];
} TRACE_SESSION_HOST, *PTRACE_SESSION_HOST;
typedef const TRACE_SESSION_HOST *PCTRACE_SESSION_HOST;

C_ASSERT(sizeof(TRACE_SESSION_HOST) == 176);

typedef struct _TRACE_SESSION_HEADER {

    //
    // TRACE_SESSION_MAGIC.
    //

    ULONGLONG Magic;

    //
    // TRACE_SESSION_VERSION.
    //

    ULONG Version;

    //
    // TRACE_STORE_VERSION of the stores.
    //

    ULONG StoreVersion;

    //
    // Wall-clock creation time, ns since the Unix epoch.
    //

    LONGLONG CreatedRealtimeNs;

    //
    // Name of the clock domain of every ts in the session ("local" for
    // ftrace's default trace_clock, "mono", "boot", ...), NUL-terminated.
    //

    CHAR ClockName[TRACE_NAME_SIZE];

    //
    // The machine the session was created on, NUL-terminated, all zero in
    // sessions made before issue 19 (readers show NULL): HostName is the
    // host's name or the tag the user chose (`--host`), BootId the
    // kernel's boot id (/proc/sys/kernel/random/boot_id), KernelRelease
    // the kernel's release (uname -r).  Gathered by the hosted edge and
    // written once, by TraceSessionSetHost.
    //

    TRACE_SESSION_HOST Host;

    //
    // Reserved, zero.
    //

    ULONGLONG Reserved[34];

    //
    // XXH3-64 of the bytes above.
    //

    ULONGLONG Checksum;

} TRACE_SESSION_HEADER, *PTRACE_SESSION_HEADER;

C_ASSERT(sizeof(TRACE_SESSION_HEADER) == 512);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, Version) == 8);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, StoreVersion) == 12);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, CreatedRealtimeNs) == 16);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, ClockName) == 24);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, Host) == 56);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, Reserved) == 232);
C_ASSERT(FIELD_OFFSET(TRACE_SESSION_HEADER, Checksum) == 504);

//
// What the session's last sync made durable: `session.durable`, replaced
// whole (written aside, flushed, renamed, directory flushed) by each sync
// (TraceSessionSync, the writer's open and close).  Each store's count of
// records that were on the device when the file was written, and the
// kernel boot id of the writer that wrote it: a reader on another boot
// knows the machine went down since, and shows no record past the counts
// (the pages there may hold zeros or older bytes); the next writer rolls
// the stores back to them for good, counting what it dropped in Lost.
// Sessions made before issue 30 have no such file and open as before.
//

#define TRACE_DURABLE_MAGIC       0x314C425255445254ULL   // "TRDURBL1"
#define TRACE_DURABLE_VERSION     1
#define TRACE_DURABLE_FILE        "session.durable"
#define TRACE_DURABLE_MAX_ENTRIES (TRACE_SESSION_MAX_STORES + 2)
#define TRACE_DURABLE_CLOSED      0x0001  // written by the writer's close

typedef struct _TRACE_DURABLE_ENTRY {

    //
    // Store name, NUL-terminated.
    //

    CHAR Name[TRACE_NAME_SIZE];

    //
    // Records of the store on the device at the sync.
    //

    ULONGLONG RecordCount;

    //
    // Records that power cuts took, so far: committed past a sync and
    // rolled back by the next writer.
    //

    ULONGLONG Lost;

    ULONGLONG Reserved[2];

} TRACE_DURABLE_ENTRY, *PTRACE_DURABLE_ENTRY;

C_ASSERT(sizeof(TRACE_DURABLE_ENTRY) == 64);

typedef struct _TRACE_DURABLE {
    ULONGLONG Magic;
    ULONG Version;
    ULONG NumberOfEntries;

    //
    // Syncs written so far, and the wall-clock time of the last (ns since
    // the Unix epoch).
    //

    ULONGLONG Sequence;
    LONGLONG SyncedRealtimeNs;

    //
    // Boot id of the writer's kernel, NUL-terminated; empty where the
    // platform has none (then no reader assumes a power cut).
    //

    CHAR BootId[TRACE_BOOT_ID_SIZE];

    //
    // Power cuts writers recovered from, and the store files they found
    // created after the last sync and removed.
    //

    ULONG Recoveries;
    ULONG RemovedStores;

    //
    // TRACE_DURABLE_* flags.
    //

    ULONG Flags;
    ULONG Reserved0;
    ULONGLONG Reserved[4];

    TRACE_DURABLE_ENTRY Entries[TRACE_DURABLE_MAX_ENTRIES];

    ULONGLONG Reserved1[7];

    //
    // XXH3-64 of the bytes above.
    //

    ULONGLONG Checksum;

} TRACE_DURABLE, *PTRACE_DURABLE;

C_ASSERT(FIELD_OFFSET(TRACE_DURABLE, BootId) == 32);
C_ASSERT(FIELD_OFFSET(TRACE_DURABLE, Entries) == 128);
C_ASSERT(sizeof(TRACE_DURABLE) == 128 + 64 * TRACE_DURABLE_MAX_ENTRIES + 64);

struct _TRACE_ROLLUP;

typedef struct _TRACE_SESSION {
    PRTL Rtl;
    BOOL Writable;
    ULONG NumberOfStores;
    HANDLE HeaderHandle;
    TRACE_SESSION_HEADER Header;
    TRACE_STRING_TABLE Strings;
    TRACE_STORE Stores[TRACE_SESSION_MAX_STORES];

    //
    // Writer: the rollup of each event store (TraceRollup.h), or NULL.
    // TraceSessionCommit folds each commit into them unless
    // RollupsElsewhere says the writer does it on another thread
    // (TraceSessionUpdateRollups).
    //

    struct _TRACE_ROLLUP *Rollups[TRACE_SESSION_MAX_STORES];
    BOOL RollupsElsewhere;

    //
    // Durability (TraceDurable.c).  Durable: the writer's table of what
    // it made durable, written by each sync; for a reader, the file read
    // (HasDurable).  PowerCut: a reader found it written on another boot
    // than the running kernel's, so each store shows at most its count
    // there, and SkippedStores store files it does not list were not
    // opened.  BootId: the running kernel's, empty if unknown.
    //

    BOOL HasDurable;
    BOOL PowerCut;
    ULONG SkippedStores;
    TRACE_DURABLE Durable;
    CHAR BootId[TRACE_BOOT_ID_SIZE];

    CHAR Path[TRACE_PATH_SIZE];
} TRACE_SESSION, *PTRACE_SESSION;

//
// Opens (creating the directory and header if needed) a session for
// writing: takes the session writer lock and opens the string stores.
// Other stores are opened on first use with TraceSessionOpenStore.
// The session structure is large; allocate it with Rtl->AllocatePages.
//

typedef RTL_STATUS (TRACE_SESSION_OPEN_WRITER)(PRTL Rtl, PCSZ Path,
                                               PTRACE_SESSION Session,
                                               PRTL_ERROR Error);
typedef TRACE_SESSION_OPEN_WRITER *PTRACE_SESSION_OPEN_WRITER;
TRACE_SESSION_OPEN_WRITER TraceSessionOpenWriter;

//
// Opens a session read-only: validates the header and opens every
// NAME.store in the directory (string stores included).
//

typedef RTL_STATUS (TRACE_SESSION_OPEN_READER)(PRTL Rtl, PCSZ Path,
                                               PTRACE_SESSION Session,
                                               PRTL_ERROR Error);
typedef TRACE_SESSION_OPEN_READER *PTRACE_SESSION_OPEN_READER;
TRACE_SESSION_OPEN_READER TraceSessionOpenReader;

//
// Returns the writer's store for Schema, opening or creating it.
//

RTL_STATUS TraceSessionOpenStore(
    PTRACE_SESSION Session,
    PCTRACE_STORE_SCHEMA Schema,
    PTRACE_STORE *Store,
    PRTL_ERROR Error
    );

//
// Returns the open store named Name, or NULL.
//

PTRACE_STORE TraceSessionFindStore(PTRACE_SESSION Session, PCSZ Name);

//
// Commits every store, strings first, so that no committed record refers
// to an uncommitted string; then folds the new records into the stores'
// rollups (unless RollupsElsewhere).
//

RTL_STATUS TraceSessionCommit(PTRACE_SESSION Session);

//
// Makes every committed record durable: flushes each store (and the
// session header), then replaces session.durable with their counts
// (TRACE_DURABLE).  After a power cut at any later instant, a reader sees
// at least these records of each store, and never a record that was not
// committed.  Call it where the writer commits (the same thread); it
// costs a device flush per store.  The writer's open and close sync too.
//

RTL_STATUS TraceSessionSync(PTRACE_SESSION Session, PRTL_ERROR Error);

//
// Folds every store's committed records into its rollup, publishing if
// Publish is set or a publication is due, for a writer that commits on
// one thread and folds on another (RollupsElsewhere): call it from that
// one thread only, never while TraceSessionClose runs (TraceSessionOpenStore
// may run: a store is added with release ordering).  The fold reads
// through mappings of its own (TraceRollup.h, TRACE_ROLLUP_ELSEWHERE).  A
// rollup that fails (no memory) is dropped: readers then fold the records
// past its last publication themselves.
//

VOID TraceSessionUpdateRollups(PTRACE_SESSION Session, BOOL Publish);

//
// Sets the session's clock domain name (writer).
//

RTL_STATUS TraceSessionSetClock(PTRACE_SESSION Session, PCSZ ClockName);

//
// Records the machine the session is written on (writer), once: a session
// whose header already names a host keeps it, so importing more files
// into a session made elsewhere does not relabel it.  Fields of Host that
// are empty stay empty.  The hosted edge gathers Host (the core has no
// notion of a host name); returns RTL_STATUS_OK also when it kept the old.
//

RTL_STATUS TraceSessionSetHost(PTRACE_SESSION Session,
                               PCTRACE_SESSION_HOST Host);

//
// Flushes (writer), closes every store and releases the lock.
//

VOID TraceSessionClose(PTRACE_SESSION Session);

//
// Path helper: Buffer = Directory "/" Name Suffix.  FALSE if too long.
//

BOOL TraceJoinPath(
    PCHAR Buffer,
    SIZE_T BufferSize,
    PCSZ Directory,
    PCSZ Name,
    PCSZ Suffix
    );

#ifdef __cplusplus
}
#endif

#endif // _TRACER_TRACE_STORE_H_
