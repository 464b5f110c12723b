/*
** tracestore_int.h: declarations internal to the Tracer SQLite extension,
** shared between its files (the public entry point is tracestore.h).
**
** Zone: hosted (the SQLite extension): SQLite's API and the store API of
** TraceStore/TraceStore.h; included only by the files of Sqlite3Ext/.
** Owns: no code; one section per file that defines what it declares:
**
**   tracestore.c and tracestore_scan.c: a store table, its cursor and the
**   way the cursor finds its rows (the structs both files work on).
**
**   tracestore_session.c: the process's RTL, and sessions opened read-only
**   for the virtual tables and tracestore_attach().
**
**   tracestore_info.c, tracestore_attach.c: their registrations, called by
**   sqlite3_tracestore_init().
**
**   tracestore_catalog.c: tracestore_attach() makes its tables and its
**   views (tracestore_views.c) by the same rules (create, keep, replace,
**   refuse a name taken by something else, drop what an earlier call
**   made), so both use these to read SCHEMA.sqlite_master and to run what
**   they build.
**
** The list of the extension's files, and which calls which, is in the
** header comment of tracestore.c.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_INT_H
#define TRACER_SQLITE3EXT_TRACESTORE_INT_H

#include <sqlite3.h>
#include <string.h>

#include "TraceStore/TraceStore.h"

/* -------------------------------------------------------------------------
** tracestore.c and tracestore_scan.c: a store table and its cursor
*/

#define TS_INT64_MAX ((sqlite3_int64)0x7fffffffffffffffLL)
#define TS_INT64_MIN (-TS_INT64_MAX - 1)

/*
** The block index of a store not sorted by ts: one entry per complete
** block of TS_BLOCK_SIZE records.
*/
#define TS_BLOCK_SHIFT 10
#define TS_BLOCK_SIZE  ((sqlite3_int64)1 << TS_BLOCK_SHIFT)

typedef struct tracestore_block tracestore_block;
struct tracestore_block {
  sqlite3_int64 iMin;           /* Smallest ts in the block */
  sqlite3_int64 iMax;           /* Largest ts in the block */
};

/*
** Keys of the ts-ordered scan of a store that is not sorted (see
** tracestore_scan.c): windows of TS_SORT_FIRST keys at first, doubling up to
** TS_SORT_MAX.
*/
#define TS_SORT_FIRST  4096
#define TS_SORT_MAX    (4*1024*1024)

typedef struct tracestore_key tracestore_key;
struct tracestore_key {
  sqlite3_int64 iTs;
  sqlite3_int64 iRowid;
};

/*
** Counters of one connection, shared by its tracestore tables and the
** tracestore_rows_visited()/tracestore_rows_indexed() functions.
*/
typedef struct tracestore_stats tracestore_stats;
struct tracestore_stats {
  int nRef;                     /* Module, functions and tables holding it */
  sqlite3_int64 nVisited;       /* Records read or handed to SQLite */
  sqlite3_int64 nIndexed;       /* Records read to build block indexes */
};

/*
** A tracestore virtual table: one store of a session.
*/
typedef struct tracestore_vtab tracestore_vtab;
struct tracestore_vtab {
  sqlite3_vtab base;            /* Base class.  Must be first */
  TRACE_SESSION *pSession;      /* The session, open read-only */
  PTRACE_STORE pStore;          /* The store, inside pSession */
  char *zPath;                  /* Session directory, for messages */
  char *zStore;                 /* Store name */
  int iIdColumn;                /* Column index of `id`, or -1 */
  int iFirstStoreColumn;        /* Column index of aCol[0] */
  int nCol;                     /* Entries in aCol */
  int iTsCol;                   /* aCol index of a usable ts column, or -1 */
  int nSharedSnapshot;          /* Cursors scanning sharedSnapshot */
  TRACE_STORE_SNAPSHOT sharedSnapshot;  /* Snapshot of the open scans */
  tracestore_stats *pStats;     /* Counters of the connection */
  tracestore_block *aBlock;     /* Block index (unsorted stores) */
  sqlite3_int64 nBlock;         /* Complete blocks indexed */
  sqlite3_int64 nBlockAlloc;    /* Entries allocated in aBlock */
  sqlite3_int64 nIndexed;       /* Records covered: aBlock[nBlock] holds
                                ** the incomplete block up to here, if
                                ** this is past nBlock*TS_BLOCK_SIZE */
  TRACE_COLUMN_DESCRIPTOR aCol[TRACE_STORE_MAX_COLUMNS];  /* Private copy */
};

/*
** A cursor over a tracestore table.  It visits records iFirst .. iLast
** (inclusive) of one snapshot, in one of three ways (eScan):
**
**   TS_SCAN_RANGE  every record of the range, up or down; with bTsFilter,
**                  only those whose ts is in [iTsLo, iTsHi] (the block
**                  index skips blocks).  Records iRowid .. iRunEnd (or
**                  iRunEnd .. iRowid going down) are known to match.
**   TS_SCAN_IN     the rowids aIn[0..nIn), sorted, distinct, in range.
**   TS_SCAN_SORT   the matching records in (ts, rowid) order, a window of
**                  aSort[0..nSort) at a time (a store that was sorted when
**                  the plan consumed ORDER BY ts, and no longer is).
*/
#define TS_SCAN_RANGE  0
#define TS_SCAN_IN     1
#define TS_SCAN_SORT   2

typedef struct tracestore_cursor tracestore_cursor;
struct tracestore_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  sqlite3_int64 iRowid;         /* Current record index */
  sqlite3_int64 iFirst;         /* First record that may be visited */
  sqlite3_int64 iLast;          /* Last record that may be visited */
  sqlite3_int64 iRunEnd;        /* TS_SCAN_RANGE: end of the known run */
  sqlite3_int64 iTsLo;          /* ts range of the rows wanted */
  sqlite3_int64 iTsHi;
  sqlite3_int64 nRemain;        /* Rows LIMIT still allows, current one
                                ** included; negative: no limit */
  int eScan;                    /* TS_SCAN_* */
  int bEof;                     /* No current row */
  int bDesc;                    /* Visit in descending order */
  int bTsFilter;                /* Check each row's ts (TS_SCAN_RANGE/IN) */
  int bInList;                  /* The rows wanted are those of aIn */
  int bShared;                  /* Counted in pVtab->nSharedSnapshot */
  int bVerifyTs;                /* Check each row's ts is in iVerifyLo..Hi */
  int bVerifyOrder;             /* Check rows come in ts order */
  int bHavePrevTs;              /* iPrevTs is set */
  sqlite3_int64 iVerifiedRow;   /* Row last checked, or -1 */
  sqlite3_int64 iVerifyLo;      /* ts range the query asked for */
  sqlite3_int64 iVerifyHi;
  sqlite3_int64 iPrevTs;        /* ts of the row handed out before */
  sqlite3_int64 *aIn;           /* TS_SCAN_IN: the rowids */
  sqlite3_int64 nIn;            /* Entries in aIn */
  sqlite3_int64 nInAlloc;       /* Entries allocated in aIn */
  sqlite3_int64 iIn;            /* Current entry of aIn */
  tracestore_key *aSort;        /* TS_SCAN_SORT: the current window */
  int nSort;                    /* Keys in aSort */
  int nSortAlloc;               /* Keys allocated in aSort */
  int nSortCap;                 /* Keys the next window may hold */
  int iSort;                    /* Current key of aSort */
  int bSortFinal;               /* The window holds the last keys */
  int bSortAfter;               /* sortAfter is set */
  tracestore_key sortAfter;     /* Last key of the previous window */
  unsigned int nGuard;          /* storeGuardFaults() when it was filtered */
};

/*
** Returns the ts of record i, which must be below the RecordCount of the
** store's latest snapshot.  The ts column is a non-nullable int64.
*/
static inline sqlite3_int64 tsRecordTs(
  tracestore_vtab *pTab,
  sqlite3_int64 i
){
  sqlite3_int64 ts;
  memcpy(&ts, pTab->pStore->Base + (size_t)i * pTab->pStore->RecordSize
              + pTab->aCol[pTab->iTsCol].Offset, sizeof(ts));
  return ts;
}

/* -------------------------------------------------------------------------
** tracestore_scan.c: how a cursor finds its rows
*/

/*
** Narrows the inclusive range [*piLo, *piHi] of integer values x to those
** for which "x OP pVal" is true, as SQLite compares a column of INTEGER
** affinity with pVal.  An empty result has *piLo > *piHi.
*/
void tsNarrow(sqlite3_value *pVal, int op,
              sqlite3_int64 *piLo, sqlite3_int64 *piHi);

/*
** Narrows the rowid range [*piLo, *piHi] of a store sorted by ts (over
** its first nRecord records) to the records whose ts is in [iTsLo, iTsHi],
** by binary search; counts the records read in *pnVisited.
*/
void tsNarrowSorted(tracestore_vtab *pTab, sqlite3_int64 nRecord,
                    sqlite3_int64 iTsLo, sqlite3_int64 iTsHi,
                    sqlite3_int64 *piLo, sqlite3_int64 *piHi,
                    sqlite3_int64 *pnVisited);

/* Extends the block index of pTab to its first nRecord records. */
int tsIndexExtend(tracestore_vtab *pTab, sqlite3_int64 nRecord);

/*
** Collects into aIn the rowids of the IN list pList that are in
** [iFirst, iLast], sorted and distinct (sets bInList), or narrows
** [iFirst, iLast] to pList if it is one value.
*/
int tsCollectIn(tracestore_cursor *pCur, sqlite3_value *pList);

/*
** Move the cursor: to the first row of the scan xFilter set up
** (tsScanStart), to the next row in scan order without regard to LIMIT
** (tsAdvance), or over nSkip rows (OFFSET).  Each sets bEof when there is
** no such row.
*/
int tsScanStart(tracestore_cursor *pCur);
int tsAdvance(tracestore_cursor *pCur);
int tsSkip(tracestore_cursor *pCur, sqlite3_int64 nSkip);

/* -------------------------------------------------------------------------
** tracestore_session.c
*/

/*
** Fills in the RTL every connection of the process shares, once (the
** first call; later ones return at once).  SQLITE_ERROR with a message in
** *pzErrMsg if the runtime cannot start.
*/
int tsInitializeRtl(char **pzErrMsg);

/*
** Copies a fixed-size name field of a store header, which need not be
** NUL-terminated in a damaged file, into z (TRACE_NAME_SIZE+1 bytes).
*/
void tsCopyName(char *z, const char *zField);

/*
** Removes the quotes SQLite leaves on a module argument ('x', "x", `x`,
** [x]) and surrounding white space, in place.
*/
void tsDequote(char *z);

/*
** The text of a failed core call, for a person at the prompt: the core's
** message (which names the file) when there is one, or the status text.
** From sqlite3_mprintf().
*/
char *tsErrorText(RTL_STATUS status, RTL_ERROR *pError);

/*
** Opens the session at zPath read-only into a new TRACE_SESSION, closed
** with tsSessionClose() (which takes 0 too).  On failure *pzErr holds a
** message naming zPath and the reason.
*/
int tsSessionOpen(const char *zPath, TRACE_SESSION **ppSession,
                  char **pzErr);
void tsSessionClose(TRACE_SESSION *pSession);

/* The store named zName, string stores included, or 0. */
PTRACE_STORE tsFindStore(TRACE_SESSION *pSession, const char *zName);

/*
** Fills apStore (TRACE_SESSION_MAX_STORES + 2 entries) with every open
** store of the session, string stores included, in name order.  Returns
** the count.
*/
int tsListStores(TRACE_SESSION *pSession, PTRACE_STORE *apStore);

/* -------------------------------------------------------------------------
** tracestore_info.c
*/

/* Registers the tracestore_info module. */
int tracestoreInfoInit(sqlite3 *db);

/*
** tracestore_source.c: registers source_line(FILE, LINENO).
*/
int tracestoreSourceInit(sqlite3 *db);

/*
** tracestore_views.c: *piValue = the integer pVal holds (an INTEGER, a
** REAL without a fraction, or text that reads as one); false otherwise.
*/
int tsIntegerArg(sqlite3_value *pVal, sqlite3_int64 *piValue);

/* -------------------------------------------------------------------------
** tracestore_rollup.c
*/

/* Registers the tracestore_rollup module. */
int tracestoreRollupInit(sqlite3 *db);

/*
** Calls xAdd(pArg, QUESTION) for each rollup table the stores of pSession
** can answer (tracestore_attach() makes them as rollup_QUESTION); stops
** at the first call that does not return SQLITE_OK.
*/
int tracestoreRollupQuestions(TRACE_SESSION *pSession,
                              int (*xAdd)(void*, const char*), void *pArg);

/* -------------------------------------------------------------------------
** tracestore_attach.c
*/

/* Registers tracestore_attach(PATH [, SCHEMA]). */
int tracestoreAttachInit(sqlite3 *db);

/* -------------------------------------------------------------------------
** tracestore_catalog.c
*/

/* What tracestore_attach() does with one table or view. */
#define TS_ACTION_CREATE   0    /* No such name: create it */
#define TS_ACTION_KEEP     1    /* Exactly this object exists: keep it */
#define TS_ACTION_REPLACE  2    /* Ours, with another text: replace it */
#define TS_ACTION_DROP     3    /* Ours, made by an earlier call, not wanted */

/*
** Sets *peAction from what zSchema holds under zName: TS_ACTION_CREATE if
** nothing, TS_ACTION_KEEP if an object of type zType whose CREATE text is
** zWanted, TS_ACTION_REPLACE (and *pzOldSql, from sqlite3_malloc) if one
** of type zType for which xOurs(text) is true.  Anything else is an error:
** "SCHEMA.NAME already exists and is not a tracestore TYPE ..." in *pzErr,
** as is a schema that does not exist.
*/
int tsCheckName(sqlite3 *db, const char *zSchema, const char *zName,
                const char *zType, int (*xOurs)(const char*),
                const char *zWanted, int *peAction, char **pzOldSql,
                char **pzErr);

/*
** Calls xObject(pArg, zName, zSql) for each object of type zType in
** zSchema (rows without a name or text are skipped); stops at the first
** call that does not return SQLITE_OK and returns what it returned.
** Errors reading the schema come with a message in *pzErr.
*/
int tsForEachObject(sqlite3 *db, const char *zSchema, const char *zType,
                    int (*xObject)(void*, const char*, const char*),
                    void *pArg, char **pzErr);

/*
** Runs one statement built with sqlite3_mprintf() (0 when that ran out of
** memory) and frees it.
*/
int tsExec(sqlite3 *db, char *zSql, char **pzErr);

#endif /* TRACER_SQLITE3EXT_TRACESTORE_INT_H */
