/*++

Module Name:

    TraceStoreInternal.h

Abstract:

    What the files of one store (TraceStoreHeader.c, TraceStoreWriter.c,
    TraceStoreCommit.c, TraceStoreReader.c, TraceStoreClose.c) share and
    nothing else uses: the limit on a record count, and the routines that
    read and write the header page and its commit slots.

Environment:

    Core: no C runtime; the OS only through PRTL.  Included only by those
    five files.

--*/

#ifndef _TRACER_TRACE_STORE_INTERNAL_H_
#define _TRACER_TRACE_STORE_INTERNAL_H_

#include "TraceStore/TraceStore.h"

//
// The most records a store may hold (and a commit slot may claim): far
// below what would overflow an offset, far above any real trace.
//

#define MAX_RECORD_COUNT     (1ULL << 48)

//
// TraceStoreHeader.c: the header page.
//

//
// Copies Source into Destination (Size bytes with the terminator),
// truncating; FALSE if it had to.
//

BOOL TraceStoreCopyName(PCHAR Destination, SIZE_T Size, PCSZ Source);

//
// The start every open shares: Store zeroed, with its Rtl and Path, no
// file yet and no commit limit.
//

VOID TraceStoreInitialize(PRTL Rtl, PCSZ Path, PTRACE_STORE Store);

//
// The open file's size in *FileSize; an error naming Path when it cannot
// be read or is smaller than a store header.
//

RTL_STATUS TraceStoreCheckFileSize(PTRACE_STORE Store, PCSZ Path,
                                   PULONGLONG FileSize, PRTL_ERROR Error);

//
// The XXH3-64 of a header page with HeaderChecksum and the two commit
// slots zeroed: everything that is fixed at creation.
//

ULONGLONG TraceStoreHeaderChecksum(PRTL Rtl,
                                   const TRACE_STORE_HEADER *Header);

//
// Checks a commit slot against its header and the file size: the count
// within the capacity and the limit, and its records inside the file.
//

RTL_STATUS TraceStoreValidateSlot(PCSZ Path,
                                  const TRACE_STORE_HEADER *Header,
                                  const TRACE_STORE_COMMIT_SLOT *Slot,
                                  ULONGLONG FileSize, PRTL_ERROR Error);

//
// Sets Store->TimestampOffset from the header's timestamp column.
//

VOID TraceStoreSetTimestampOffset(PTRACE_STORE Store);

//
// TraceStoreCommit.c: the commit slots.
//

//
// Reads the valid slot with the higher sequence (retrying while the
// writer is between the two); FALSE if neither slot is valid.
//

BOOL TraceStoreReadLatestSlot(PRTL Rtl,
                              const volatile TRACE_STORE_HEADER *Header,
                              PTRACE_STORE_COMMIT_SLOT Latest);

//
// Writes the writer's next commit (RecordCount records of Capacity) into
// the slot not holding the latest one, with the ordering readers rely on.
//

VOID TraceStorePublishSlot(PTRACE_STORE Store, ULONGLONG RecordCount,
                           ULONGLONG Capacity);

//
// TraceStoreClose.c: unmaps the view and closes the file (also on a failed
// open).
//

VOID TraceStoreReleaseFile(PTRACE_STORE Store);

//
// TraceSession.c: the name of every NAME.store in a session's directory,
// in name order (Names zeroed by the caller; large: allocate it).
//

typedef struct _TRACE_STORE_NAMES {
    PTRACE_SESSION Session;
    ULONG Count;
    BOOL Overflow;
    CHAR Names[TRACE_SESSION_MAX_STORES + 2][TRACE_NAME_SIZE];
} TRACE_STORE_NAMES, *PTRACE_STORE_NAMES;

RTL_STATUS TraceSessionListStores(PTRACE_SESSION Session,
                                  PTRACE_STORE_NAMES Names,
                                  PRTL_ERROR Error);

//
// TraceDurable.c: what a session's last sync made durable
// (session.durable), read when a session is opened.  The writer's
// TraceDurableOpenWriter rolls every store back to it after a power cut
// and flushes them all; the reader's TraceDurableOpenReader tells
// OpenListedStores how many records of each store to show (no entry:
// not at all).  TraceDurableEntry finds a store's entry (Add: adding it,
// NULL when the table is full).
//

RTL_STATUS TraceDurableOpenWriter(PTRACE_SESSION Session, PRTL_ERROR Error);
RTL_STATUS TraceDurableOpenReader(PTRACE_SESSION Session, PRTL_ERROR Error);
PTRACE_DURABLE_ENTRY TraceDurableEntry(PTRACE_DURABLE Durable, PCSZ Name,
                                       BOOL Add);
RTL_STATUS TraceDurableWrite(PTRACE_SESSION Session, ULONG Flags,
                             PRTL_ERROR Error);

#endif // _TRACER_TRACE_STORE_INTERNAL_H_
