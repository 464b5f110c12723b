/*
** tracestore.c: the Tracer SQLite extension: the store tables, and the
** entry point that registers everything.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store API of TraceStore/TraceStore.h;
** included by nothing outside Sqlite3Ext/.
** Owns: the tracestore virtual table module (one store of a session as a
** table: xConnect, xBestIndex and its idxNum bits, xFilter and the
** cursor, with the checks of what the cursor reads), the connection's row
** counters, and sqlite3_tracestore_init().
** Calls: tracestore_scan.c (how the cursor finds its rows),
** tracestore_session.c, Guard/StoreGuard.c, and the registration of each
** other file's modules and functions.
**
** The extension turns the stores of a Tracer session (a directory written
** by `tracestore import` or `tracestore record`) into read-only virtual
** tables.  It reads the memory-mapped store files directly, through the
** store API of TraceStore/TraceStore.h, so a query runs in constant memory
** and may run while a writer is still appending to the session.  Its
** files, each of which calls only files below it in this list (their
** internal declarations are in tracestore_int.h and tracestore_views.h):
**
**   tracestore.c          this file
**   tracestore_attach.c   tracestore_attach(): the tables and views that
**                         show a session
**   tracestore_info.c     the tracestore_info module (store_info)
**   tracestore_rollup.c   the tracestore_rollup module: the views'
**                         answers from the stores' rollups
**   tracestore_schema.c   the schema document, tracestore_schema()
**   tracestore_args.c     tracestore_args, tracestore_arg(): event fields
**   tracestore_views.c    the views, and the SQL functions they use
**   tracestore_doc.c      the documentation of the views, the rollup
**                         tables and the functions (docs/schema.md)
**   tracestore_scan.c     how a store table's cursor finds its rows
**   tracestore_fleet.c    tracestore_attach_sessions(): many sessions
**                         read as one, with session and host columns
**   tracestore_catalog.c  what a schema holds under a name (the rules the
**                         attach and the views share)
**   tracestore_session.c  sessions opened read-only; the RTL and
**                         sqlite3_api every connection shares
**   Guard/StoreGuard.c    store files cut while a statement reads them
**
** Usage:
**
**     .load tracestore
**     SELECT tracestore_attach('run.trace');
**     SELECT name, count(*) FROM page_fault GROUP BY name;
**     SELECT reason, count(*), sum(dur) FROM kvm_exit GROUP BY reason;
**     SELECT * FROM store_info;
**
**   tracestore_attach(PATH [, SCHEMA])
**
**     Creates a table per store of the session, store_info and the views
**     (tracestore_attach.c).
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore(PATH [, STORE])
**
**     One store as a table.  STORE defaults to NAME.  The columns are the
**     store's own, read from the column descriptors in the store header,
**     after a first column `id`: the record's index in the store (0-based),
**     which is also the rowid.  Column types: INTEGER, REAL for double
**     columns, and TEXT for string ids, which are resolved through the
**     session's string store.  Values the store marks as NULL are NULL.
**     Unsigned 64-bit columns (addresses) come back as the int64 with the
**     same bits: kernel addresses are negative; printf('%x', address)
**     prints them as expected.
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore_info(PATH)
**
**     One row per store of the session (tracestore_info.c).
**
**   tracestore_rows_visited()
**   tracestore_rows_indexed()
**
**     Counters of this connection (see "Rows visited" below): records its
**     tracestore scans have visited, and records read to build ts block
**     indexes.  The difference of two calls around a query shows how much
**     of a store the query read:
**
**         SELECT tracestore_rows_visited();   -- 1000
**         SELECT count(*) FROM span WHERE ts BETWEEN 5e9 AND 6e9;
**         SELECT tracestore_rows_visited();   -- 1000 + about count(*)
**
** How it works:
**
**   Each virtual table opens its own read-only TRACE_SESSION (which maps
**   every store file of the session, and the string stores) and keeps a
**   private copy of its store's column descriptors.  A scan (xFilter)
**   takes a snapshot of the store's commit slots and visits records
**   [0, RecordCount) of that snapshot only, so the row count of a scan is
**   fixed even while the writer appends; the next statement sees what was
**   committed since.  A cursor keeps its snapshot until it is closed (when
**   its statement is reset or finalized), also when SQLite filters it again
**   as the inner loop of a join, and cursors of one table that are open at
**   the same time (a self-join, a correlated subquery) share the snapshot
**   of the first of them: one statement sees one snapshot of each store.
**   (So does a statement that starts while another one on the same table
**   is still open, e.g. an unfinished Python cursor: it sees that one's
**   snapshot until it is reset.)
**   Records are addressed as Base + index * RecordSize at the moment they
**   are read, never through a saved pointer: a snapshot or a string lookup
**   may remap the file.  Text is handed to SQLite with SQLITE_TRANSIENT for
**   the same reason.
**
**   A statement refuses a store file that another program cut shorter
**   than its committed records (the snapshot checks the size), and one cut
**   while the statement reads it fails the statement instead of killing
**   the process with SIGBUS (Guard/StoreGuard.c).
**
**   The core is reached only through TraceStore.h; it never sees SQLite.
**
** Push-down (xBestIndex, xFilter):
**
**   xBestIndex hands these constraints to xFilter, at most one per idxNum
**   bit (a second `ts > ?` is left to SQLite), and answers each exactly,
**   with SQLite's own comparison rules for an INTEGER column (a REAL bound
**   is compared exactly, text that looks like a number is that number,
**   other text and blobs are greater than every integer, NULL matches
**   nothing), so it sets `omit` and SQLite does not test them again:
**
**     rowid (or id) =, <, <=, >, >=   the range of records visited
**     rowid IN (...)                  all values at once (sqlite3_vtab_in),
**                                     sorted and without duplicates
**     ts =, <, <=, >, >=, BETWEEN     sorted store: binary search; other
**                                     stores: the block index, and
**                                     each row of a visited block checked
**     ORDER BY rowid/id [DESC]        always consumed
**     ORDER BY ts [DESC] [, id]       consumed if the store is sorted
**     LIMIT, OFFSET                   taken only when every other
**                                     constraint is taken and the ORDER BY
**                                     (if any) is consumed
**
**   Any other constraint, and any shape of query, is left to SQLite.
**   EXPLAIN QUERY PLAN prints what was taken after the idxNum, e.g.
**   "SCAN span VIRTUAL TABLE INDEX 384:ts>=? AND ts<?".
**
**   idxNum bits.  The argv[] of xFilter holds one value per bit that has
**   one, lowest bit first: argv[0] belongs to the lowest such bit set.
**
**     bit     name            argv   meaning
**     0x0001  TS_ROWID_EQ     yes    rowid = ?
**     0x0002  TS_ROWID_GT     yes    rowid > ?
**     0x0004  TS_ROWID_GE     yes    rowid >= ?
**     0x0008  TS_ROWID_LT     yes    rowid < ?
**     0x0010  TS_ROWID_LE     yes    rowid <= ?
**     0x0020  TS_TS_EQ        yes    ts = ?  (also one value of ts IN (...),
**                                            which SQLite loops over)
**     0x0040  TS_TS_GT        yes    ts > ?
**     0x0080  TS_TS_GE        yes    ts >= ?
**     0x0100  TS_TS_LT        yes    ts < ?
**     0x0200  TS_TS_LE        yes    ts <= ?
**     0x0400  TS_ORDER_DESC   no     rows in descending order
**     0x0800  TS_ORDER_TS     no     rows in (ts, rowid) order: ORDER BY ts
**                                    was consumed (the store was sorted)
**     0x1000  TS_ROWID_IN     yes    rowid IN (...): the IN list handle
**     0x2000  TS_LIMIT        yes    LIMIT ?  (negative: no limit)
**     0x4000  TS_OFFSET       yes    OFFSET ?
**
**   How rows are then found (binary search, the block index, IN lists,
**   and the windows of a ts-ordered scan of a store that is no longer
**   sorted) is described in tracestore_scan.c.
**
**   Rows visited.  tracestore_rows_visited() returns the number of records
**   the tracestore cursors of this connection have read or handed to
**   SQLite since it was loaded: rows returned, rows read and rejected by a
**   ts check, and binary-search probes.  Records skipped without being
**   read (blocks the index rules out, rows an OFFSET jumps over) are not
**   counted.  tracestore_rows_indexed() returns the records read to build
**   block indexes.  Tests use them to show that push-down reads only what
**   it should.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "TraceStore/TraceStore.h"
#include "tracestore.h"
#include "tracestore_views.h"
#include "tracestore_int.h"
#include "Guard/StoreGuard.h"

/*
** idxNum bits of the tracestore module (see "Push-down" in the header
** comment for the table).  Bits with an argv value hand it to xFilter in
** bit order, lowest first.
*/
#define TS_ROWID_EQ    0x0001   /* rowid = ?  (rowid and id alike)        */
#define TS_ROWID_GT    0x0002   /* rowid > ?                              */
#define TS_ROWID_GE    0x0004   /* rowid >= ?                             */
#define TS_ROWID_LT    0x0008   /* rowid < ?                              */
#define TS_ROWID_LE    0x0010   /* rowid <= ?                             */
#define TS_TS_EQ       0x0020   /* ts = ?                                 */
#define TS_TS_GT       0x0040   /* ts > ?                                 */
#define TS_TS_GE       0x0080   /* ts >= ?                                */
#define TS_TS_LT       0x0100   /* ts < ?                                 */
#define TS_TS_LE       0x0200   /* ts <= ?                                */
#define TS_ORDER_DESC  0x0400   /* descending order (no argv)             */
#define TS_ORDER_TS    0x0800   /* (ts, rowid) order (no argv)            */
#define TS_ROWID_IN    0x1000   /* rowid IN (...), all values at once     */
#define TS_LIMIT       0x2000   /* LIMIT ?                                */
#define TS_OFFSET      0x4000   /* OFFSET ?                               */

/* What an argv-carrying bit constrains. */
#define TS_ARG_ROWID   0        /* the rowid, by op */
#define TS_ARG_TS      1        /* ts, by op */
#define TS_ARG_IN      2        /* the rowid, by an IN list */
#define TS_ARG_LIMIT   3
#define TS_ARG_OFFSET  4

/*
** The bits that carry an argv value, in argv order, with what they mean.
*/
static const struct {
  int mask;          /* TS_* bit */
  int eArg;          /* TS_ARG_* */
  unsigned char op;  /* SQLITE_INDEX_CONSTRAINT_* */
  const char *zText; /* For idxStr (EXPLAIN QUERY PLAN) */
} aTsArgBit[] = {
  { TS_ROWID_EQ, TS_ARG_ROWID,  SQLITE_INDEX_CONSTRAINT_EQ, "rowid=?" },
  { TS_ROWID_GT, TS_ARG_ROWID,  SQLITE_INDEX_CONSTRAINT_GT, "rowid>?" },
  { TS_ROWID_GE, TS_ARG_ROWID,  SQLITE_INDEX_CONSTRAINT_GE, "rowid>=?" },
  { TS_ROWID_LT, TS_ARG_ROWID,  SQLITE_INDEX_CONSTRAINT_LT, "rowid<?" },
  { TS_ROWID_LE, TS_ARG_ROWID,  SQLITE_INDEX_CONSTRAINT_LE, "rowid<=?" },
  { TS_TS_EQ,    TS_ARG_TS,     SQLITE_INDEX_CONSTRAINT_EQ, "ts=?" },
  { TS_TS_GT,    TS_ARG_TS,     SQLITE_INDEX_CONSTRAINT_GT, "ts>?" },
  { TS_TS_GE,    TS_ARG_TS,     SQLITE_INDEX_CONSTRAINT_GE, "ts>=?" },
  { TS_TS_LT,    TS_ARG_TS,     SQLITE_INDEX_CONSTRAINT_LT, "ts<?" },
  { TS_TS_LE,    TS_ARG_TS,     SQLITE_INDEX_CONSTRAINT_LE, "ts<=?" },
  { TS_ROWID_IN, TS_ARG_IN,     SQLITE_INDEX_CONSTRAINT_EQ, "rowid IN(...)" },
  { TS_LIMIT,    TS_ARG_LIMIT,  SQLITE_INDEX_CONSTRAINT_LIMIT, 0 },
  { TS_OFFSET,   TS_ARG_OFFSET, SQLITE_INDEX_CONSTRAINT_OFFSET, 0 },
};
#define TS_N_ARG_BIT ((int)(sizeof(aTsArgBit)/sizeof(aTsArgBit[0])))

/*
** xBestIndex takes a store as holding at least this many records.  A
** statement planned while a live store is empty or nearly so is kept by
** statement caches (Python's sqlite3 module, a program's own) and run
** again after the store grew: a plan that scanned the "empty" store in
** the outer loop and another table's range inside it would then read
** records x rows (the concurrency stress test met one join taking 400 s).
** With the floor, lookups by rowid or ts go inside a full scan.
*/
#define TS_PLAN_MIN_RECORDS 1024

/* -------------------------------------------------------------------------
** Helpers.
*/

/*
** Drops a reference to a connection's counters (the destructor of the
** module and function registrations that hold them, and of tables).
*/
static void tsStatsUnref(void *p){
  tracestore_stats *pStats = (tracestore_stats*)p;
  if( pStats && --pStats->nRef==0 ) sqlite3_free(pStats);
}

/*
** Returns the width in bytes of a column type, or 0 if the type is not
** one this extension knows.
*/
static ULONG tsTypeWidth(ULONG eType){
  switch( eType ){
    case TraceColumnInt32:
    case TraceColumnUInt32:  return 4;
    case TraceColumnInt64:
    case TraceColumnUInt64:
    case TraceColumnDouble:  return 8;
    case TraceColumnUInt16:  return 2;
    case TraceColumnUInt8:   return 1;
  }
  return 0;
}


/* -------------------------------------------------------------------------
** The tracestore module.
*/

/*
** The message of a table whose store the session does not have: it lists
** the stores it has.  From sqlite3_str_finish(); 0 when out of memory.
*/
static char *tsNoSuchStore(sqlite3 *db, tracestore_vtab *pNew){
  sqlite3_str *pMsg = sqlite3_str_new(db);
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];
  char zName[TRACE_NAME_SIZE+1];
  int nStore, i;
  sqlite3_str_appendf(pMsg, "trace session '%s' has no store named '%s'"
                      "; its stores are:", pNew->zPath, pNew->zStore);
  nStore = tsListStores(pNew->pSession, apStore);
  for(i=0; i<nStore; i++){
    tsCopyName(zName, apStore[i]->Name);
    sqlite3_str_appendf(pMsg, "%s %s", i ? "," : "", zName);
  }
  return sqlite3_str_finish(pMsg);
}

/*
** Checks the column table of pNew's store before trusting it, and keeps a
** copy in pNew->aCol (the header is in the mapping, which may move when
** the store is remapped); sets nCol, iIdColumn, iFirstStoreColumn and
** iTsCol.  SQLITE_ERROR with a message naming the file if the header is
** corrupt.
*/
static int tsReadColumns(tracestore_vtab *pNew, char **pzErr){
  TRACE_STORE_HEADER *pHeader = pNew->pStore->Header;
  char zName[TRACE_NAME_SIZE+1];
  int i;

  if( pHeader->NumberOfColumns>TRACE_STORE_MAX_COLUMNS
   || pNew->pStore->RecordSize==0 ){
    *pzErr = sqlite3_mprintf("corrupt store header in %s: %u columns, "
                             "record size %u", pNew->pStore->Path,
                             (unsigned)pHeader->NumberOfColumns,
                             (unsigned)pNew->pStore->RecordSize);
    return SQLITE_ERROR;
  }
  pNew->nCol = (int)pHeader->NumberOfColumns;
  memcpy(pNew->aCol, pHeader->Columns,
         sizeof(pNew->aCol[0]) * (size_t)pNew->nCol);
  pNew->iTsCol = -1;
  pNew->iIdColumn = 0;
  for(i=0; i<pNew->nCol; i++){
    PCTRACE_COLUMN_DESCRIPTOR pCol = &pNew->aCol[i];
    ULONG nWidth = tsTypeWidth(pCol->Type);
    if( nWidth==0 || pCol->Width!=nWidth
     || pCol->Offset>pNew->pStore->RecordSize
     || pNew->pStore->RecordSize-pCol->Offset<pCol->Width
     || ((pCol->Flags & TRACE_COLUMN_STRING_ID)!=0
         && pCol->Type==TraceColumnDouble) ){
      tsCopyName(zName, pCol->Name);
      *pzErr = sqlite3_mprintf("corrupt store header in %s: column %d "
                               "(\"%s\") has type %u, offset %u, width %u "
                               "in a record of %u bytes", pNew->pStore->Path,
                               i, zName, (unsigned)pCol->Type,
                               (unsigned)pCol->Offset, (unsigned)pCol->Width,
                               (unsigned)pNew->pStore->RecordSize);
      return SQLITE_ERROR;
    }
    tsCopyName(zName, pCol->Name);
    if( sqlite3_stricmp(zName, "id")==0 ) pNew->iIdColumn = -1;
  }
  pNew->iFirstStoreColumn = pNew->iIdColumn==0 ? 1 : 0;
  if( pHeader->TimestampColumn<(ULONG)pNew->nCol ){
    PCTRACE_COLUMN_DESCRIPTOR pTs = &pNew->aCol[pHeader->TimestampColumn];
    if( pTs->Type==TraceColumnInt64
     && (pTs->Flags & (TRACE_COLUMN_NULLABLE|TRACE_COLUMN_STRING_ID))==0 ){
      pNew->iTsCol = (int)pHeader->TimestampColumn;
    }
  }
  return SQLITE_OK;
}

/*
** Declares the table's columns to SQLite: `id` first (unless the store
** has its own), then the store's, TEXT for string ids and REAL for
** doubles.  A declaration SQLite refuses (two columns whose names differ
** only in case) is an error naming the descriptor's byte offset.
*/
static int tsDeclareTable(sqlite3 *db, tracestore_vtab *pNew, char **pzErr){
  sqlite3_str *pDecl;
  char *zDecl;
  char zName[TRACE_NAME_SIZE+1];
  int i, rc;

  pDecl = sqlite3_str_new(db);
  sqlite3_str_appendall(pDecl, "CREATE TABLE x(");
  if( pNew->iIdColumn==0 ){
    sqlite3_str_appendall(pDecl, "id INTEGER");
  }
  for(i=0; i<pNew->nCol; i++){
    PCTRACE_COLUMN_DESCRIPTOR pCol = &pNew->aCol[i];
    const char *zType = "INTEGER";
    if( pCol->Flags & TRACE_COLUMN_BLOB ){
      zType = "BLOB";
    }else if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
      zType = "TEXT";
    }else if( pCol->Type==TraceColumnDouble ){
      zType = "REAL";
    }
    tsCopyName(zName, pCol->Name);
    sqlite3_str_appendf(pDecl, "%s\"%w\" %s",
                        (i>0 || pNew->iIdColumn==0) ? ", " : "",
                        zName, zType);
  }
  sqlite3_str_appendall(pDecl, ")");
  zDecl = sqlite3_str_finish(pDecl);
  if( zDecl==0 ) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zDecl);
  sqlite3_free(zDecl);
  if( rc!=SQLITE_OK ){
    /* Which descriptor repeats an earlier name (SQLite ignores case)? */
    int j, iDup = -1;
    char zOther[TRACE_NAME_SIZE+1];
    for(i=1; i<pNew->nCol && iDup<0; i++){
      tsCopyName(zName, pNew->aCol[i].Name);
      for(j=0; j<i && iDup<0; j++){
        tsCopyName(zOther, pNew->aCol[j].Name);
        if( sqlite3_stricmp(zName, zOther)==0 ) iDup = i;
      }
    }
    if( iDup>=0 ){
      *pzErr = sqlite3_mprintf("%s: byte offset %d: cannot declare the "
                               "table for store '%s': %s", pNew->pStore->Path,
                               (int)FIELD_OFFSET(TRACE_STORE_HEADER, Columns)
                               + iDup*(int)sizeof(TRACE_COLUMN_DESCRIPTOR),
                               pNew->zStore, sqlite3_errmsg(db));
    }else{
      *pzErr = sqlite3_mprintf("%s: cannot declare the table for store "
                               "'%s': %s", pNew->pStore->Path, pNew->zStore,
                               sqlite3_errmsg(db));
    }
  }
  return rc;
}

/*
** xConnect (also xCreate): argv[3] is the session path, argv[4] the store
** name (default: the table name, argv[2]).
*/
static int tracestoreConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  tracestore_vtab *pNew = 0;
  int rc;

  *ppVtab = 0;
  if( pAux==0 ) return SQLITE_MISUSE;   /* Registered without counters */
  if( argc<4 || argc>5 ){
    *pzErr = sqlite3_mprintf(
        "wrong number of arguments to tracestore: use "
        "CREATE VIRTUAL TABLE %s USING tracestore(SESSION_PATH [, STORE])",
        argv[2]);
    return SQLITE_ERROR;
  }
  pNew = sqlite3_malloc64(sizeof(*pNew));
  if( pNew==0 ) return SQLITE_NOMEM;
  memset(pNew, 0, sizeof(*pNew));
  pNew->pStats = (tracestore_stats*)pAux;
  pNew->pStats->nRef++;
  pNew->zPath = sqlite3_mprintf("%s", argv[3]);
  pNew->zStore = sqlite3_mprintf("%s", argc>4 ? argv[4] : argv[2]);
  if( pNew->zPath==0 || pNew->zStore==0 ){
    rc = SQLITE_NOMEM;
    goto connect_error;
  }
  tsDequote(pNew->zPath);
  tsDequote(pNew->zStore);

  rc = tsSessionOpen(pNew->zPath, &pNew->pSession, pzErr);
  if( rc!=SQLITE_OK ) goto connect_error;

  pNew->pStore = tsFindStore(pNew->pSession, pNew->zStore);
  if( pNew->pStore==0 ){
    *pzErr = tsNoSuchStore(db, pNew);
    rc = SQLITE_ERROR;
    goto connect_error;
  }
  rc = tsReadColumns(pNew, pzErr);
  if( rc!=SQLITE_OK ) goto connect_error;
  rc = tsDeclareTable(db, pNew, pzErr);
  if( rc!=SQLITE_OK ) goto connect_error;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &pNew->base;
  return SQLITE_OK;

connect_error:
  if( pNew ){
    tsSessionClose(pNew->pSession);
    tsStatsUnref(pNew->pStats);
    sqlite3_free(pNew->zPath);
    sqlite3_free(pNew->zStore);
    sqlite3_free(pNew);
  }
  return rc;
}

/*
** Returns the index in aTsArgBit of the bit mask.
*/
static int tsArgBitIndex(int mask){
  int j;
  for(j=0; j<TS_N_ARG_BIT && aTsArgBit[j].mask!=mask; j++){}
  return j;
}

/*
** Appends zText to the idxStr being built in z (nz bytes), with zSep
** before it unless z is empty.
*/
static void tsAppendText(char *z, size_t nz, const char *zSep,
                         const char *zText){
  size_t n = strlen(z);
  if( n>0 && n+strlen(zSep)<nz ){
    memcpy(z+n, zSep, strlen(zSep)+1);
    n += strlen(zSep);
  }
  if( n+strlen(zText)<nz ) memcpy(z+n, zText, strlen(zText)+1);
}

/*
** Copies the value of constraint iCons if it is a literal in the SQL
** (sqlite3_vtab_rhs_value, SQLite 3.38 and later), or returns 0.  Free
** the copy with sqlite3_value_free().
*/
static sqlite3_value *tsLiteral(sqlite3_index_info *pIdxInfo, int iCons){
  sqlite3_value *pVal = 0;
  if( sqlite3_libversion_number()<3038000 ) return 0;
  if( sqlite3_vtab_rhs_value(pIdxInfo, iCons, &pVal)!=SQLITE_OK ) return 0;
  return pVal ? sqlite3_value_dup(pVal) : 0;
}

/*
** xBestIndex, the constraints: sets aiCons[j] (TS_N_ARG_BIT entries) to
** the first usable constraint that idxNum bit aTsArgBit[j] answers, or to
** -1.  Returns false if a usable constraint is left to SQLite (one on
** another column, or a second one for the same bit).
*/
static int tsPlanConstraints(
  tracestore_vtab *pTab,
  sqlite3_index_info *pIdxInfo,
  int iTsColumn,                     /* SQL column index of ts, or -2 */
  int *aiCons
){
  int bApi338 = sqlite3_libversion_number()>=3038000;
  int bAllTaken = 1;                 /* No constraint left to SQLite */
  int i, j, eArg, op;

  for(j=0; j<TS_N_ARG_BIT; j++) aiCons[j] = -1;
  for(i=0; i<pIdxInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *p = &pIdxInfo->aConstraint[i];
    op = p->op;
    if( op==SQLITE_INDEX_CONSTRAINT_LIMIT ){
      eArg = TS_ARG_LIMIT;
    }else if( op==SQLITE_INDEX_CONSTRAINT_OFFSET ){
      eArg = TS_ARG_OFFSET;
    }else if( !p->usable ){
      bAllTaken = 0;
      continue;
    }else if( p->iColumn==-1
           || (pTab->iIdColumn>=0 && p->iColumn==pTab->iIdColumn) ){
      eArg = TS_ARG_ROWID;
      if( op==SQLITE_INDEX_CONSTRAINT_EQ && bApi338 && i<32
       && sqlite3_vtab_in(pIdxInfo, i, -1) ){
        eArg = TS_ARG_IN;
      }
    }else if( p->iColumn==iTsColumn ){
      eArg = TS_ARG_TS;
    }else{
      bAllTaken = 0;
      continue;
    }
    for(j=0; j<TS_N_ARG_BIT; j++){
      if( aTsArgBit[j].eArg==eArg && aTsArgBit[j].op==op ) break;
    }
    if( j<TS_N_ARG_BIT && aiCons[j]<0 && p->usable ){
      aiCons[j] = i;
    }else if( eArg!=TS_ARG_LIMIT && eArg!=TS_ARG_OFFSET ){
      bAllTaken = 0;
    }
  }
  return bAllTaken;
}

/*
** xBestIndex, the ORDER BY: rowid order answers terms on the rowid (after
** which nothing matters: it is unique) and, on a sorted store, terms on
** ts, all in one direction.  Sets orderByConsumed if the scan order
** answers every term, and returns the TS_ORDER_* bits of the plan; sets
** *pbDesc (1 descending, 0 ascending, -1 no term) and *pbOrderTs.
*/
static int tsPlanOrderBy(
  tracestore_vtab *pTab,
  sqlite3_index_info *pIdxInfo,
  int iTsColumn,
  int bSorted,                       /* Store sorted by ts, last snapshot */
  int *pbDesc,
  int *pbOrderTs
){
  int bOrderOk, bDesc = -1, bOrderTs = 0;
  int idxNum = 0, k, iCol;

  bOrderOk = pIdxInfo->nOrderBy>0;
  for(k=0; k<pIdxInfo->nOrderBy && bOrderOk; k++){
    int d = pIdxInfo->aOrderBy[k].desc!=0;
    iCol = pIdxInfo->aOrderBy[k].iColumn;
    if( bDesc>=0 && d!=bDesc ){
      bOrderOk = 0;
    }else if( iCol==-1 || (pTab->iIdColumn>=0 && iCol==pTab->iIdColumn) ){
      bDesc = d;
      break;
    }else if( iCol==iTsColumn && bSorted ){
      bDesc = d;
      bOrderTs = 1;
    }else{
      bOrderOk = 0;
    }
  }
  if( bOrderOk ){
    pIdxInfo->orderByConsumed = 1;
    if( bDesc>0 ) idxNum |= TS_ORDER_DESC;
    if( bOrderTs ) idxNum |= TS_ORDER_TS;
  }
  *pbDesc = bDesc;
  *pbOrderTs = bOrderTs;
  return idxNum;
}

/*
** xBestIndex, LIMIT and OFFSET: they count the rows SQLite returns, so
** they are taken only if no row this table hands out can be rejected or
** reordered afterwards.  SQLite passes a row-value comparison such as (ts, id) > (?, ?) as
** ts >= ? and tests the whole comparison again whatever `omit` says,
** yet still offers LIMIT (seen with SQLite 3.40); its right-hand side is
** never a literal, so a >= or <= taken without a literal value keeps
** LIMIT and OFFSET with SQLite.  SQLite stops the scan at its own LIMIT
** anyway; OFFSET then steps over rows instead of jumping.
*/
static void tsPlanLimit(
  sqlite3_index_info *pIdxInfo,
  int *aiCons,
  int bAllTaken
){
  int jLimit = tsArgBitIndex(TS_LIMIT);
  int jOffset = tsArgBitIndex(TS_OFFSET);
  sqlite3_value *pVal;
  int j;

  for(j=0; j<TS_N_ARG_BIT && bAllTaken; j++){
    if( aiCons[j]>=0
     && (aTsArgBit[j].op==SQLITE_INDEX_CONSTRAINT_GE
         || aTsArgBit[j].op==SQLITE_INDEX_CONSTRAINT_LE) ){
      pVal = tsLiteral(pIdxInfo, aiCons[j]);
      if( pVal==0 ) bAllTaken = 0;
      sqlite3_value_free(pVal);
    }
  }
  if( aiCons[jLimit]<0 || !bAllTaken
   || (pIdxInfo->nOrderBy>0 && !pIdxInfo->orderByConsumed) ){
    aiCons[jLimit] = -1;
    aiCons[jOffset] = -1;
  }
}

/*
** xBestIndex, the estimates: sets estimatedRows and estimatedCost, and
** SQLITE_INDEX_SCAN_UNIQUE for rowid = ?.  nArg is the number of argv
** values the plan takes.
**
** Cost: one unit per record read.  Constraint values that are literals
** in the SQL are applied exactly (binary search on a sorted store); other
** bounds are guessed to keep a quarter of the rows each, an IN list 10
** rows, ts = ? 4 rows.  A ts range on a store that is not sorted reads the
** rows in range, the block index and up to two partial blocks.
*/
static void tsPlanCost(
  tracestore_vtab *pTab,
  sqlite3_index_info *pIdxInfo,
  const int *aiCons,
  int bSorted,
  int nArg
){
  int jIn = tsArgBitIndex(TS_ROWID_IN);
  int jLimit = tsArgBitIndex(TS_LIMIT);
  int j, k, eArg, op;
  sqlite3_int64 nRecord, iLo, iHi, iTsLo, iTsHi, nLimit = -1, nOffset = 0;
  sqlite3_int64 nEst;                /* nRecord, at least TS_PLAN_MIN_RECORDS */
  sqlite3_int64 nProbe = 0;
  int nGuess = 0, bEqGuess = 0, bTsEqGuess = 0, bTs = 0;
  sqlite3_value *pVal;
  double nOut, nVisit, rFraction, rSpan;

  nRecord = (sqlite3_int64)pTab->pStore->Snapshot.RecordCount;
  if( nRecord<0 ) nRecord = TS_INT64_MAX;
  nEst = nRecord<TS_PLAN_MIN_RECORDS ? TS_PLAN_MIN_RECORDS : nRecord;
  iLo = 0;
  iHi = nEst-1;
  iTsLo = TS_INT64_MIN;
  iTsHi = TS_INT64_MAX;
  for(j=0; j<TS_N_ARG_BIT; j++){
    if( aiCons[j]<0 ) continue;
    eArg = aTsArgBit[j].eArg;
    op = aTsArgBit[j].op;
    if( eArg==TS_ARG_TS ) bTs = 1;
    if( eArg==TS_ARG_IN ) continue;
    pVal = tsLiteral(pIdxInfo, aiCons[j]);
    if( pVal ){
      if( eArg==TS_ARG_ROWID ) tsNarrow(pVal, op, &iLo, &iHi);
      if( eArg==TS_ARG_TS ) tsNarrow(pVal, op, &iTsLo, &iTsHi);
      if( eArg==TS_ARG_LIMIT ) nLimit = sqlite3_value_int64(pVal);
      if( eArg==TS_ARG_OFFSET ) nOffset = sqlite3_value_int64(pVal);
      sqlite3_value_free(pVal);
    }else if( eArg==TS_ARG_ROWID ){
      if( op==SQLITE_INDEX_CONSTRAINT_EQ ) bEqGuess = 1; else nGuess++;
    }else if( eArg==TS_ARG_TS ){
      if( op==SQLITE_INDEX_CONSTRAINT_EQ ) bTsEqGuess = 1; else nGuess++;
    }
  }
  nOut = iLo>iHi ? 0.0 : (double)iHi - (double)iLo + 1.0;
  if( bEqGuess && nOut>1.0 ) nOut = 1.0;
  if( aiCons[jIn]>=0 && nOut>10.0 ) nOut = 10.0;
  if( iTsLo>iTsHi ){
    nOut = 0.0;
  }else if( iTsLo>TS_INT64_MIN || iTsHi<TS_INT64_MAX ){
    if( bSorted ){
      sqlite3_int64 iFrom = 0, iTo = nRecord-1;
      tsNarrowSorted(pTab, nRecord, iTsLo, iTsHi, &iFrom, &iTo, &nProbe);
      if( (double)(iTo-iFrom+1)<nOut ) nOut = iFrom>iTo ? 0.0 : (double)(iTo-iFrom+1);
    }else if( nRecord>0 ){
      const TRACE_STORE_SNAPSHOT *pSnap = &pTab->pStore->Snapshot;
      rSpan = (double)pSnap->LastTs - (double)pSnap->FirstTs + 1.0;
      rFraction = ((iTsHi<pSnap->LastTs ? (double)iTsHi : (double)pSnap->LastTs)
                 - (iTsLo>pSnap->FirstTs ? (double)iTsLo : (double)pSnap->FirstTs)
                 + 1.0) / (rSpan>1.0 ? rSpan : 1.0);
      if( rFraction<0.0 ) rFraction = 0.0;
      if( rFraction>1.0 ) rFraction = 1.0;
      nOut *= rFraction;
    }
  }
  if( bTsEqGuess && nOut>4.0 ) nOut = 4.0;
  for(k=0; k<nGuess; k++) nOut /= 4.0;
  nVisit = nOut;
  if( bTs && bSorted ){
    nVisit += 2.0 * 64.0;                     /* binary search probes */
  }else if( bTs ){
    nVisit += 2.0*(double)TS_BLOCK_SIZE + (double)nEst/(double)TS_BLOCK_SIZE;
    if( nVisit>(double)nEst ) nVisit = (double)nEst;
  }
  if( aiCons[jLimit]>=0 && nLimit>=0 ){
    if( nOffset<0 ) nOffset = 0;
    if( nOut>0.0 && (double)nLimit+(double)nOffset<nOut ){
      nVisit *= ((double)nLimit+(double)nOffset)/nOut;
    }
    if( (double)nLimit<nOut ) nOut = (double)nLimit;
  }
  if( nOut<1.0 ) nOut = 1.0;
  if( nVisit<1.0 ) nVisit = 1.0;
  pIdxInfo->estimatedRows = (sqlite3_int64)nOut;
  pIdxInfo->estimatedCost = nVisit + (nArg>0 ? 10.0 : 0.0);
  if( aiCons[tsArgBitIndex(TS_ROWID_EQ)]>=0 ){
    pIdxInfo->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  }
}

/*
** xBestIndex, idxStr: what was taken, for EXPLAIN QUERY PLAN.
*/
static int tsPlanText(
  sqlite3_index_info *pIdxInfo,
  const int *aiCons,
  int bOrderTs,
  int bDesc
){
  int jLimit = tsArgBitIndex(TS_LIMIT);
  int jOffset = tsArgBitIndex(TS_OFFSET);
  char zStr[256];
  int j;

  zStr[0] = 0;
  for(j=0; j<TS_N_ARG_BIT; j++){
    if( aiCons[j]>=0 && aTsArgBit[j].zText ){
      tsAppendText(zStr, sizeof(zStr), " AND ", aTsArgBit[j].zText);
    }
  }
  if( pIdxInfo->orderByConsumed ){
    tsAppendText(zStr, sizeof(zStr), " ", bOrderTs ? "ORDER BY ts" : "ORDER BY rowid");
    if( bDesc>0 ) tsAppendText(zStr, sizeof(zStr), " ", "DESC");
  }
  if( aiCons[jLimit]>=0 ) tsAppendText(zStr, sizeof(zStr), " ", "LIMIT ?");
  if( aiCons[jOffset]>=0 ) tsAppendText(zStr, sizeof(zStr), " ", "OFFSET ?");
  if( zStr[0] ){
    pIdxInfo->idxStr = sqlite3_mprintf("%s", zStr);
    if( pIdxInfo->idxStr==0 ) return SQLITE_NOMEM;
    pIdxInfo->needToFreeIdxStr = 1;
  }
  return SQLITE_OK;
}

/*
** xBestIndex: takes at most one usable constraint per idxNum bit on the
** rowid (column -1, or `id`) and on ts, an IN list on the rowid, the ORDER
** BY when the scan order answers it, and LIMIT/OFFSET when nothing is left
** for SQLite to check (see "Push-down" in the header comment), in the
** steps above: tsPlanConstraints, tsPlanOrderBy, tsPlanLimit, then the
** argv order, tsPlanCost and tsPlanText.
*/
static int tracestoreBestIndex(sqlite3_vtab *tab, sqlite3_index_info *pIdxInfo){
  tracestore_vtab *pTab = (tracestore_vtab*)tab;
  int aiCons[TS_N_ARG_BIT];          /* aConstraint[] index per arg bit */
  int iTsColumn = -2;                /* SQL column index of ts */
  int bAllTaken;                     /* No constraint left to SQLite */
  int bSorted;                       /* Store sorted by ts, last snapshot */
  int bDesc, bOrderTs;
  int idxNum, nArg = 0, j;
  int jIn = tsArgBitIndex(TS_ROWID_IN);

  if( pTab->iTsCol>=0 ) iTsColumn = pTab->iTsCol + pTab->iFirstStoreColumn;
  bSorted = pTab->iTsCol>=0
         && (pTab->pStore->Snapshot.Flags & TRACE_SLOT_SORTED)!=0;
  bAllTaken = tsPlanConstraints(pTab, pIdxInfo, iTsColumn, aiCons);
  idxNum = tsPlanOrderBy(pTab, pIdxInfo, iTsColumn, bSorted, &bDesc,
                         &bOrderTs);
  tsPlanLimit(pIdxInfo, aiCons, bAllTaken);

  /* The argv order of xFilter: that of the bits, lowest first. */
  for(j=0; j<TS_N_ARG_BIT; j++){
    if( aiCons[j]<0 ) continue;
    idxNum |= aTsArgBit[j].mask;
    pIdxInfo->aConstraintUsage[aiCons[j]].argvIndex = ++nArg;
    pIdxInfo->aConstraintUsage[aiCons[j]].omit = 1;
  }
  if( aiCons[jIn]>=0 ) sqlite3_vtab_in(pIdxInfo, aiCons[jIn], 1);

  tsPlanCost(pTab, pIdxInfo, aiCons, bSorted, nArg);
  pIdxInfo->idxNum = idxNum;
  return tsPlanText(pIdxInfo, aiCons, bOrderTs, bDesc);
}

static int tracestoreOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **ppCursor){
  tracestore_cursor *pCur;
  (void)p;
  pCur = sqlite3_malloc64(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->iFirst = 0;
  pCur->iLast = -1;
  pCur->bEof = 1;
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

/*
** Stops counting the cursor among those that share the table's snapshot.
*/
static void tracestoreReleaseSnapshot(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  if( pCur->bShared ){
    pCur->bShared = 0;
    pTab->nSharedSnapshot--;
  }
}


/*
** The files a table reads: its store and the session's strings.
*/
static void tsGuardStores(tracestore_vtab *pTab, PTRACE_STORE *apStore){
  apStore[0] = pTab->pStore;
  apStore[1] = &pTab->pSession->Strings.Index;
  apStore[2] = &pTab->pSession->Strings.Data;
}

/*
** SQLITE_ERROR, with a message, if the SIGBUS guard (Guard/StoreGuard.c)
** replaced pages of the table's store or of the session's strings by
** zeros: their file was cut, or could not be read, while a statement read
** it.  What was read from them is not the file's.
*/
static int tsGuardError(tracestore_vtab *pTab){
  PTRACE_STORE apStore[3];
  int i;
  tsGuardStores(pTab, apStore);
  for(i=0; i<3; i++){
    if( storeGuardDamaged(apStore[i]) ){
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of trace "
          "session '%s': %s was cut short (or could not be read) while the "
          "statement read it", pTab->zStore, pTab->zPath, apStore[i]->Path);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

/*
** Before a statement reads: a mapping the guard patched with zeros (in an
** earlier statement) is replaced by a fresh one, so that the file is read
** again as it is now (the snapshot then checks it).
*/
static int tsGuardRemap(tracestore_vtab *pTab){
  PTRACE_STORE apStore[3];
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;
  int i;
  tsGuardStores(pTab, apStore);
  for(i=0; i<3; i++){
    if( !storeGuardDamaged(apStore[i]) ) continue;
    memset(&error, 0, sizeof(error));
    status = TraceStoreRemap(apStore[i], &error);
    if( !RTL_SUCCESS(status) ){
      zReason = tsErrorText(status, &error);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of trace "
          "session '%s': %s", pTab->zStore, pTab->zPath, zReason);
      sqlite3_free(zReason);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

/*
** After a read: a fault caught since the cursor's statement started may
** have been in this table's files.  tsGuardCheck() is the test inline (a
** load and a comparison, on every xColumn), tsGuardCheckSlow() the rest.
*/
static int tsGuardCheckSlow(tracestore_cursor *pCur){
  unsigned int n = storeGuardFaults();
  int rc = tsGuardError((tracestore_vtab*)pCur->base.pVtab);
  if( rc==SQLITE_OK ) pCur->nGuard = n;
  return rc;
}
#define tsGuardCheck(pCur) \
  (storeGuardFaults()==(pCur)->nGuard ? SQLITE_OK : tsGuardCheckSlow(pCur))

/*
** Checks the current row, the first time SQLite reads it, against what
** the query asked for and the store's commit slot promised (see xFilter):
** its ts in [iVerifyLo, iVerifyHi], and not before the previous row's when
** rows are handed out in ts order because the slot says the store is
** sorted.  An error names the record.
*/
static int tsVerifyRow(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  const TRACE_STORE_SNAPSHOT *pSnap = &pTab->sharedSnapshot;
  sqlite3_int64 ts;
  const char *zWhat = 0;
  if( pCur->bEof || pCur->iRowid==pCur->iVerifiedRow
   || (!pCur->bVerifyTs && !pCur->bVerifyOrder) ){
    return SQLITE_OK;
  }
  pCur->iVerifiedRow = pCur->iRowid;
  ts = tsRecordTs(pTab, pCur->iRowid);
  if( pCur->bVerifyTs && (ts<pCur->iVerifyLo || ts>pCur->iVerifyHi) ){
    zWhat = "outside the range the query asked for";
  }else if( pCur->bVerifyOrder && pCur->bHavePrevTs
         && (pCur->bDesc ? ts>pCur->iPrevTs : ts<pCur->iPrevTs) ){
    zWhat = "out of ts order";
  }
  pCur->iPrevTs = ts;
  pCur->bHavePrevTs = 1;
  if( zWhat==0 ) return SQLITE_OK;
  sqlite3_free(pTab->base.zErrMsg);
  pTab->base.zErrMsg = sqlite3_mprintf(
      "%s: byte offset %llu: record %lld holds ts %lld, %s: the store's "
      "commit slot (%s, ts %lld to %lld) does not describe its records "
      "(corrupt)", pTab->pStore->Path,
      (unsigned long long)TRACE_STORE_HEADER_SIZE
      + (unsigned long long)pCur->iRowid * pTab->pStore->RecordSize
      + pTab->aCol[pTab->iTsCol].Offset, pCur->iRowid, ts, zWhat,
      (pSnap->Flags & TRACE_SLOT_SORTED) ? "sorted" : "not sorted",
      (long long)pSnap->FirstTs, (long long)pSnap->LastTs);
  pCur->bEof = 1;
  return SQLITE_ERROR;
}

/*
** Gives the cursor the snapshot it reads, once per statement.  A cursor
** lives as long as its statement runs: once it has a snapshot it keeps it
** when filtered again (the inner loop of a join), and while any cursor of
** this table holds one, new cursors share it.
*/
static int tsShareSnapshot(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  TRACE_STORE_SNAPSHOT *pSnap = &pTab->sharedSnapshot;
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;

  if( pCur->bShared ) return SQLITE_OK;
  if( pTab->nSharedSnapshot==0 ){
    memset(&error, 0, sizeof(error));
    status = TraceStoreTakeSnapshot(pTab->pStore, pSnap, &error);
    if( !RTL_SUCCESS(status) ){
      zReason = tsErrorText(status, &error);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of "
                                           "trace session '%s': %s",
                                           pTab->zStore, pTab->zPath,
                                           zReason);
      sqlite3_free(zReason);
      return SQLITE_ERROR;
    }
    /*
    ** The strings too: text columns read string_data up to the last
    ** snapshot of it, and the file must still hold that much.
    */
    status = TraceStringRefresh(&pTab->pSession->Strings, &error);
    if( !RTL_SUCCESS(status) ){
      zReason = tsErrorText(status, &error);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read the strings of "
                                           "trace session '%s': %s",
                                           pTab->zPath, zReason);
      sqlite3_free(zReason);
      return SQLITE_ERROR;
    }
  }
  pTab->nSharedSnapshot++;
  pCur->bShared = 1;
  return SQLITE_OK;
}

/*
** xFilter, the ts bounds [iTsLo, iTsHi] of the cursor: binary search on a
** snapshot sorted by ts, which narrows the rowid range [*piLo, *piHi];
** otherwise a check of each row (bTsFilter), with the block index to skip
** blocks.  The store has a ts column.
*/
static void tsFilterTsRange(
  tracestore_cursor *pCur,
  sqlite3_int64 nRecord,              /* Records in the snapshot */
  int bSorted,                        /* The snapshot is sorted by ts */
  sqlite3_int64 *piLo,
  sqlite3_int64 *piHi
){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  TRACE_STORE_SNAPSHOT *pSnap = &pTab->sharedSnapshot;
  if( nRecord>0 ){
    /* The snapshot's first/last ts: a range outside them needs no search. */
    if( pCur->iTsLo>pSnap->LastTs || pCur->iTsHi<pSnap->FirstTs ){
      *piHi = *piLo-1;
    }else{
      if( pCur->iTsLo<=pSnap->FirstTs ) pCur->iTsLo = TS_INT64_MIN;
      if( pCur->iTsHi>=pSnap->LastTs ) pCur->iTsHi = TS_INT64_MAX;
    }
  }
  if( *piLo<=*piHi
   && (pCur->iTsLo>TS_INT64_MIN || pCur->iTsHi<TS_INT64_MAX) ){
    if( bSorted ){
      tsNarrowSorted(pTab, nRecord, pCur->iTsLo, pCur->iTsHi, piLo, piHi,
                     &pTab->pStats->nVisited);
    }else{
      pCur->bTsFilter = 1;
    }
  }
}

/*
** xFilter: takes (or shares) a snapshot, reads the constraint values in
** argv (their order is that of the idxNum bits, see the header comment)
** and moves to the first row.
*/
static int tracestoreFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestore_vtab *pTab = (tracestore_vtab*)cur->pVtab;
  TRACE_STORE_SNAPSHOT *pSnap = &pTab->sharedSnapshot;
  sqlite3_int64 nRecord;
  sqlite3_int64 iLo, iHi;                       /* Range of rowids */
  sqlite3_int64 nLimit = -1, nOffset = 0, v;
  sqlite3_value *pList = 0;
  int bTsBound = 0, bSorted, iArg = 0, j, rc;

  (void)idxStr;
  pCur->bEof = 1;
  pCur->eScan = TS_SCAN_RANGE;
  pCur->bDesc = (idxNum & TS_ORDER_DESC)!=0;
  pCur->bTsFilter = 0;
  pCur->bInList = 0;
  pCur->nIn = 0;
  pCur->nSort = 0;
  pCur->iSort = 0;
  pCur->bSortAfter = 0;
  pCur->nRemain = -1;
  pCur->iTsLo = TS_INT64_MIN;
  pCur->iTsHi = TS_INT64_MAX;
  pCur->iRowid = 0;
  pCur->nGuard = storeGuardFaults();
  if( pCur->nGuard!=0 ){
    rc = tsGuardRemap(pTab);              /* Cut under an earlier statement */
    if( rc!=SQLITE_OK ) return rc;
  }

  rc = tsShareSnapshot(pCur);
  if( rc!=SQLITE_OK ) return rc;

  nRecord = (sqlite3_int64)pSnap->RecordCount;
  if( nRecord<0 ) nRecord = TS_INT64_MAX;
  iLo = 0;
  iHi = nRecord-1;
  for(j=0; j<TS_N_ARG_BIT; j++){
    if( (idxNum & aTsArgBit[j].mask)==0 ) continue;
    if( iArg>=argc ) break;
    switch( aTsArgBit[j].eArg ){
      case TS_ARG_ROWID:
        tsNarrow(argv[iArg], aTsArgBit[j].op, &iLo, &iHi);
        break;
      case TS_ARG_TS:
        tsNarrow(argv[iArg], aTsArgBit[j].op, &pCur->iTsLo, &pCur->iTsHi);
        bTsBound = 1;
        break;
      case TS_ARG_IN:
        pList = argv[iArg];
        break;
      case TS_ARG_LIMIT:
        v = sqlite3_value_int64(argv[iArg]);
        if( v>=0 ) nLimit = v;
        break;
      case TS_ARG_OFFSET:
        v = sqlite3_value_int64(argv[iArg]);
        if( v>0 ) nOffset = v;
        break;
    }
    iArg++;
  }
  if( iLo<0 ) iLo = 0;
  if( iHi>nRecord-1 ) iHi = nRecord-1;
  if( pCur->iTsLo>pCur->iTsHi ) iHi = iLo-1;   /* No ts matches */

  /*
  ** What the commit slot says (sorted, first/last ts) decides how rows are
  ** found below; a damaged or forged slot would hand out rows outside the
  ** range or out of order.  Each row whose values or rowid SQLite reads
  ** is checked against the query's own bounds and order (xColumn, xRowid:
  ** one 8-byte read of a record being read anyway), so such a slot gives
  ** an error, not wrong rows.  Rows only counted are not read, so
  ** count(*) of a range stays a binary search; it trusts the slot.
  */
  bSorted = pTab->iTsCol>=0 && (pSnap->Flags & TRACE_SLOT_SORTED)!=0;
  pCur->bVerifyTs = bTsBound && pTab->iTsCol>=0
                 && (pCur->iTsLo>TS_INT64_MIN || pCur->iTsHi<TS_INT64_MAX);
  pCur->iVerifyLo = pCur->iTsLo;
  pCur->iVerifyHi = pCur->iTsHi;
  pCur->bVerifyOrder = (idxNum & TS_ORDER_TS)!=0 && bSorted;
  pCur->bHavePrevTs = 0;
  pCur->iVerifiedRow = -1;

  if( bTsBound && pTab->iTsCol>=0 ){
    tsFilterTsRange(pCur, nRecord, bSorted, &iLo, &iHi);
  }
  pCur->iFirst = iLo;
  pCur->iLast = iHi;
  if( iLo>iHi || nLimit==0 ) return tsGuardCheck(pCur);

  if( pList ){
    rc = tsCollectIn(pCur, pList);
    if( rc!=SQLITE_OK ) return rc;
    if( pCur->bInList ){
      pCur->eScan = TS_SCAN_IN;
      if( pCur->nIn==0 ) return tsGuardCheck(pCur);
    }else if( pCur->iFirst>pCur->iLast ){
      return tsGuardCheck(pCur);
    }
  }

  /*
  ** The plan consumed ORDER BY ts because the store was sorted; if this
  ** snapshot is not, hand the rows out in (ts, rowid) order by windows.
  */
  if( (idxNum & TS_ORDER_TS)!=0 && !bSorted && pTab->iTsCol>=0 ){
    pCur->eScan = TS_SCAN_SORT;
    pCur->nSortCap = TS_SORT_FIRST;
    if( nLimit>=0 && nOffset<TS_SORT_FIRST
     && nLimit<TS_SORT_FIRST-nOffset ){
      pCur->nSortCap = (int)(nLimit+nOffset)<16 ? 16 : (int)(nLimit+nOffset);
    }
  }
  if( pCur->bTsFilter || pCur->eScan==TS_SCAN_SORT ){
    rc = tsIndexExtend(pTab, nRecord);
    if( rc!=SQLITE_OK ) return rc;
  }

  rc = tsScanStart(pCur);
  if( rc!=SQLITE_OK ) return rc;
  rc = tsSkip(pCur, nOffset);
  pCur->nRemain = nLimit;
  if( rc==SQLITE_OK ) rc = tsGuardCheck(pCur);
  return rc;
}

static int tracestoreNext(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  int rc;
  if( pCur->bEof ) return SQLITE_OK;
  if( pCur->nRemain>0 && --pCur->nRemain==0 ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  rc = tsAdvance(pCur);
  if( rc==SQLITE_OK ) rc = tsGuardCheck(pCur);
  return rc;
}

static int tracestoreEof(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  return pCur->bEof;
}

/*
** Column i of the current row: column 0 is `id` (unless the store has its
** own id column); the others are read from the record at the time of the
** call.
*/
static int tsColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestore_vtab *pTab = (tracestore_vtab*)cur->pVtab;
  PCTRACE_COLUMN_DESCRIPTOR pCol;
  LONGLONG value;
  double r;
  PCSZ zText;
  ULONG nText;
  RTL_STATUS status;
  char zName[TRACE_NAME_SIZE+1];
  int rc;

  rc = tsVerifyRow(pCur);
  if( rc!=SQLITE_OK ) return rc;
  if( i==pTab->iIdColumn ){
    sqlite3_result_int64(ctx, pCur->iRowid);
    return SQLITE_OK;
  }
  i -= pTab->iFirstStoreColumn;
  if( i<0 || i>=pTab->nCol ) return SQLITE_OK;
  pCol = &pTab->aCol[i];
  if( !TraceStoreReadColumn(pTab->pStore, (ULONGLONG)pCur->iRowid, pCol,
                            &value) ){
    return SQLITE_OK;                           /* NULL */
  }
  if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
    if( (ULONGLONG)value==TRACE_STRING_NULL ) return SQLITE_OK;
    status = RTL_STATUS_CORRUPT;
    zText = 0;
    nText = 0;
    if( (ULONGLONG)value<TRACE_STRING_NULL ){
      status = TraceStringLookup(&pTab->pSession->Strings, (ULONG)value,
                                 &zText, &nText);
    }
    if( !RTL_SUCCESS(status) || zText==0 ){
      /* Name the record's bytes, and what is wrong on the string side. */
      PTRACE_STRING_TABLE pStrings = &pTab->pSession->Strings;
      unsigned long long nString = pStrings->Index.Snapshot.RecordCount;
      char *zWhy;
      tsCopyName(zName, pCol->Name);
      if( (ULONGLONG)value>=nString ){
        zWhy = sqlite3_mprintf("beyond the %llu strings of %s", nString,
                               pStrings->Index.Path);
      }else{
        zWhy = sqlite3_mprintf("whose record (%s, byte offset %llu) points "
                               "outside %s or at text without its NUL",
                               pStrings->Index.Path,
                               (unsigned long long)TRACE_STORE_HEADER_SIZE
                               + (unsigned long long)value
                                 * sizeof(TRACE_STRING_RECORD),
                               pStrings->Data.Path);
      }
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf(
          "%s: byte offset %llu: column \"%s\" of %s row %lld holds string "
          "id %llu, %s (corrupt)", pTab->pStore->Path,
          (unsigned long long)TRACE_STORE_HEADER_SIZE
          + (unsigned long long)pCur->iRowid * pTab->pStore->RecordSize
          + pCol->Offset, zName, pTab->zStore, pCur->iRowid,
          (unsigned long long)value, zWhy ? zWhy : "out of memory");
      sqlite3_free(zWhy);
      return SQLITE_ERROR;
    }
    if( pCol->Flags & TRACE_COLUMN_BLOB ){
      sqlite3_result_blob64(ctx, zText, nText, SQLITE_TRANSIENT);
    }else{
      sqlite3_result_text64(ctx, zText, nText, SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    return SQLITE_OK;
  }
  if( pCol->Type==TraceColumnDouble ){
    memcpy(&r, &value, sizeof(r));
    sqlite3_result_double(ctx, r);
    return SQLITE_OK;
  }
  sqlite3_result_int64(ctx, (sqlite3_int64)value);
  return SQLITE_OK;
}

/*
** xColumn: the value, unless it was read from a file cut underneath us.
*/
static int tracestoreColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  int rc = tsColumn(cur, ctx, i);
  if( rc==SQLITE_OK ) rc = tsGuardCheck((tracestore_cursor*)cur);
  return rc;
}

static int tracestoreRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  int rc;
  *pRowid = pCur->iRowid;
  rc = tsVerifyRow(pCur);                       /* reads the record's ts */
  if( rc==SQLITE_OK ) rc = tsGuardCheck(pCur);
  return rc;
}

static int tracestoreClose(sqlite3_vtab_cursor *cur){
  tracestore_cursor *pCur = (tracestore_cursor*)cur;
  tracestoreReleaseSnapshot(pCur);
  sqlite3_free(pCur->aIn);
  sqlite3_free(pCur->aSort);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int tracestoreDisconnect(sqlite3_vtab *pVtab){
  tracestore_vtab *pTab = (tracestore_vtab*)pVtab;
  tsSessionClose(pTab->pSession);
  tsStatsUnref(pTab->pStats);
  sqlite3_free(pTab->aBlock);
  sqlite3_free(pTab->zPath);
  sqlite3_free(pTab->zStore);
  sqlite3_free(pTab);
  return SQLITE_OK;
}

static sqlite3_module tracestoreModule = {
  .iVersion    = 0,
  .xCreate     = tracestoreConnect,
  .xConnect    = tracestoreConnect,
  .xBestIndex  = tracestoreBestIndex,
  .xDisconnect = tracestoreDisconnect,
  .xDestroy    = tracestoreDisconnect,
  .xOpen       = tracestoreOpen,
  .xClose      = tracestoreClose,
  .xFilter     = tracestoreFilter,
  .xNext       = tracestoreNext,
  .xEof        = tracestoreEof,
  .xColumn     = tracestoreColumn,
  .xRowid      = tracestoreRowid,
};

/* -------------------------------------------------------------------------
** tracestore_rows_visited(), tracestore_rows_indexed(): the connection's
** counters (see "Rows visited" in the header comment).
*/
static void tracestoreRowsVisitedFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  tracestore_stats *pStats = (tracestore_stats*)sqlite3_user_data(ctx);
  (void)argc; (void)argv;
  sqlite3_result_int64(ctx, pStats->nVisited);
}

static void tracestoreRowsIndexedFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  tracestore_stats *pStats = (tracestore_stats*)sqlite3_user_data(ctx);
  (void)argc; (void)argv;
  sqlite3_result_int64(ctx, pStats->nIndexed);
}

/* -------------------------------------------------------------------------
** Entry point.
*/

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_tracestore_init(
  sqlite3 *db,
  char **pzErrMsg,
  const sqlite3_api_routines *pApi
){
  tracestore_stats *pStats;
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  rc = tsInitializeRtl(pzErrMsg);
  if( rc!=SQLITE_OK ) return rc;

  /*
  ** The connection's counters: each registration below holds a reference
  ** (SQLite calls its destructor also when the registration fails), and
  ** this function one until it returns.
  */
  pStats = sqlite3_malloc64(sizeof(*pStats));
  if( pStats==0 ) return SQLITE_NOMEM;
  memset(pStats, 0, sizeof(*pStats));
  pStats->nRef = 1;
  pStats->nRef++;
  rc = sqlite3_create_module_v2(db, "tracestore", &tracestoreModule, pStats,
                                tsStatsUnref);
  if( rc==SQLITE_OK ){
    pStats->nRef++;
    rc = sqlite3_create_function_v2(db, "tracestore_rows_visited", 0,
                                    SQLITE_UTF8, pStats,
                                    tracestoreRowsVisitedFunc, 0, 0,
                                    tsStatsUnref);
  }
  if( rc==SQLITE_OK ){
    pStats->nRef++;
    rc = sqlite3_create_function_v2(db, "tracestore_rows_indexed", 0,
                                    SQLITE_UTF8, pStats,
                                    tracestoreRowsIndexedFunc, 0, 0,
                                    tsStatsUnref);
  }
  tsStatsUnref(pStats);
  if( rc==SQLITE_OK ){
    rc = tracestoreInfoInit(db);
  }
  if( rc==SQLITE_OK ) rc = tracestoreRollupInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreAttachInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreFleetInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreArgsInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreViewsInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreSourceInit(db);
  if( rc==SQLITE_OK ) rc = tracestoreSchemaInit(db);
  return rc;
}
