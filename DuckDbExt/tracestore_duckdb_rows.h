/*
** tracestore_duckdb_rows.h: the rows of a store as the DuckDB scan reads
** them, without DuckDB (tracestore_duckdb_rows.c).  The scan's glue
** (tracestore_duckdb_scan.c) hands these arrays to DuckDB's vectors; the
** fuzz target Tests/Fuzz/fuzz_duckdb_scan.c drives them directly.
**
** Zone: hosted (the DuckDB extension): libc; reads sessions only through
** TraceStore/TraceStore.h; included only by the files of DuckDbExt/ and
** by tests.
*/
#ifndef TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_ROWS_H
#define TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_ROWS_H

#include <stdint.h>

#include "TraceStore/TraceStore.h"

/* Records summarized by one entry of the block index. */
#define TSD_BLOCK_SHIFT 10
#define TSD_BLOCK_SIZE  (1 << TSD_BLOCK_SHIFT)

/* The smallest and largest ts of one block of a store. */
typedef struct TsdBlock {
  int64_t iMin;
  int64_t iMax;
} TsdBlock;

/*
** Which records of a store a scan visits: [iLo, iHi) and, if bTs, only
** those with from <= ts < to.  aBlock is the block index of a store that
** is not sorted by ts (each row of a block that straddles the window is
** tested), or 0 for a sorted one (each row is tested).
*/
typedef struct TsdRange {
  uint64_t iLo, iHi;
  int bTs;
  int64_t iFrom, iTo;
  const TsdBlock *aBlock;
} TsdRange;

/*
** The block index of one store file, kept across queries (records never
** change once committed, so entries never go stale): see
** tsdIndexExtend().
*/
typedef struct TsdIndex {
  TsdBlock *aBlock;
  uint64_t nBlock;              /* Entries in use (the last may be partial) */
  uint64_t nAlloc;
  uint64_t nIndexed;            /* Records summarized */
} TsdIndex;

/*
** Narrows pRange to the records of a snapshot of nRecord records of
** pStore whose ts lies in [iFrom, iTo): by binary search when the store is
** sorted (bSorted), else by the block index pIndex, extended first to
** nRecord.  A store without a ts column keeps its whole range.  Returns
** 0, or -1 when out of memory.
*/
int tsdNarrowTs(PTRACE_STORE pStore, uint64_t nRecord, int bSorted,
                TsdIndex *pIndex, int64_t iFrom, int64_t iTo,
                TsdRange *pRange);

/* Frees the entries of pIndex. */
void tsdIndexFree(TsdIndex *pIndex);

/*
** Up to nMax record indexes of pRange from *piNext on, into aRow; *piNext
** moves past what was visited.  Returns how many (0: the range is done).
*/
uint32_t tsdNextRows(PTRACE_STORE pStore, const TsdRange *pRange,
                     uint64_t *piNext, uint64_t iEnd, uint64_t *aRow,
                     uint32_t nMax);

/*
** Column pCol of the records aRow[0..n) of pStore: integers (and string
** ids) into aInt[k], or doubles into aDouble[k] for a double column; the
** bit k of aValid (64-bit words, set: not NULL) is cleared where the
** value is NULL.  A string id that is TRACE_STRING_NULL is NULL.  Returns
** the number of NULLs.
*/
uint32_t tsdReadColumn(PTRACE_STORE pStore, PCTRACE_COLUMN_DESCRIPTOR pCol,
                       const uint64_t *aRow, uint32_t n, int64_t *aInt,
                       double *aDouble, uint64_t *aValid);

/*
** A string as DuckDB's vectors hold one (duckdb_string_t, 16 bytes): up
** to 12 bytes inline, else a 4-byte prefix and a pointer, here into the
** session's mapped string_data (valid while the session is open: the
** scan copies such strings into the vector's heap).
*/
typedef union TsdString {
  struct { uint32_t n; char a[12]; } inlined;
  struct { uint32_t n; char prefix[4]; const char *p; } pointer;
} TsdString;

/* Strings resolved lately, by id (direct-mapped): one per thread. */
#define TSD_STRING_CACHE 1024
typedef struct TsdStringCache {
  int64_t aId[TSD_STRING_CACHE];        /* -1: empty */
  TsdString aStr[TSD_STRING_CACHE];
} TsdStringCache;

/* Empties pCache. */
void tsdStringCacheReset(TsdStringCache *pCache);

/*
** The string column pCol of the records aRow[0..n) of pStore, resolved in
** pSession, into aOut[k]; aValid as tsdReadColumn sets it.  Returns the
** number of NULLs, or -1 for an id the string store lacks: then *piBad is
** the index k of that record.
*/
int tsdReadStrings(PTRACE_SESSION pSession, PTRACE_STORE pStore,
                   PCTRACE_COLUMN_DESCRIPTOR pCol, const uint64_t *aRow,
                   uint32_t n, TsdString *aOut, uint64_t *aValid,
                   TsdStringCache *pCache, uint32_t *piBad);

/*
** The bytes of string id iId of pSession, which must be below the string
** snapshot taken before the scan (no refresh happens here, so threads may
** call it at once).  Returns 0, or -1 for an id the string store lacks.
*/
int tsdString(PTRACE_SESSION pSession, int64_t iId, const char **pz,
              uint32_t *pn);

/*
** The message for record iRow of pStore whose column pCol holds a string
** id the session lacks: names the file and the byte offset.
*/
void tsdBadStringMessage(PTRACE_STORE pStore, PCTRACE_COLUMN_DESCRIPTOR pCol,
                         uint64_t iRow, int64_t iId, char *zOut, int nOut);

#endif /* TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_ROWS_H */
