/*
** tracestore_info.c: the tracestore_info virtual table, which shows
** every store of a session with its commit slot (store_info, once
** tracestore_attach() has made it).
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store API of TraceStore/TraceStore.h;
** included by nothing outside Sqlite3Ext/.
** Owns: the tracestore_info module and its columns.
** Calls: TraceStore/ (snapshots), tracestore_session.c.  Registered by
** sqlite3_tracestore_init() (tracestore.c) through tracestoreInfoInit(),
** declared in tracestore_int.h.
**
** Usage:
**
**     SELECT name, records, first_ts, last_ts FROM store_info;
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore_info(PATH)
**
**     One row per store of the session, string stores included:
**       name         store name
**       records      committed records
**       bytes        bytes of committed data in the file: the header page
**                    plus records * record_size
**       record_size  bytes per record
**       generation   times a writer has opened the store
**       first_ts     smallest and largest ts over the records, ns; NULL if
**       last_ts      the store is empty or has no ts column
**       sorted       1 if ts never decreases from one record to the next,
**                    0 if it does, NULL for stores without a ts column
**       dropped      events the source reported lost, or the reader dropped
**       repaired     records the reader completed from the trace bounds
**                    (e.g. spans whose entry or exit was not recorded)
**
** How it works:
**
**   The table opens the session, like a store table, and lists its stores
**   once.  Each scan (xFilter) takes a fresh snapshot of every store's
**   commit slots, so the counts and first/last ts of one statement are
**   read together; there are a handful of rows and every constraint is
**   left to SQLite.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "TraceStore/TraceStore.h"
#include "tracestore_int.h"

/* Columns of tracestore_info, in declaration order. */
#define TSI_COLUMN_NAME         0
#define TSI_COLUMN_RECORDS      1
#define TSI_COLUMN_BYTES        2
#define TSI_COLUMN_RECORD_SIZE  3
#define TSI_COLUMN_GENERATION   4
#define TSI_COLUMN_FIRST_TS     5
#define TSI_COLUMN_LAST_TS      6
#define TSI_COLUMN_SORTED       7
#define TSI_COLUMN_DROPPED      8
#define TSI_COLUMN_REPAIRED     9

/*
** A tracestore_info virtual table: every store of a session.
*/
typedef struct tracestore_info_vtab tracestore_info_vtab;
struct tracestore_info_vtab {
  sqlite3_vtab base;            /* Base class.  Must be first */
  TRACE_SESSION *pSession;      /* The session, open read-only */
  int nStore;                   /* Entries in apStore */
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];  /* + string stores */
};

/*
** A cursor over tracestore_info: row iRow is apStore[iRow], with the
** snapshot aSnapshot[iRow] taken by xFilter.
*/
typedef struct tracestore_info_cursor tracestore_info_cursor;
struct tracestore_info_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  int iRow;                     /* Current row */
  int nRow;                     /* Rows in this scan */
  TRACE_STORE_SNAPSHOT aSnapshot[TRACE_SESSION_MAX_STORES + 2];
};

/*
** xConnect (also xCreate): argv[3] is the session path.
*/
static int tracestoreInfoConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  tracestore_info_vtab *pNew;
  char *zPath;
  int rc;

  (void)pAux;
  *ppVtab = 0;
  if( argc!=4 ){
    *pzErr = sqlite3_mprintf(
        "wrong number of arguments to tracestore_info: use "
        "CREATE VIRTUAL TABLE %s USING tracestore_info(SESSION_PATH)",
        argv[2]);
    return SQLITE_ERROR;
  }
  rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(name TEXT, records INTEGER, bytes INTEGER,"
      " record_size INTEGER, generation INTEGER, first_ts INTEGER,"
      " last_ts INTEGER, sorted INTEGER, dropped INTEGER, repaired INTEGER)");
  if( rc!=SQLITE_OK ) return rc;
  pNew = sqlite3_malloc64(sizeof(*pNew));
  zPath = sqlite3_mprintf("%s", argv[3]);
  if( pNew==0 || zPath==0 ){
    sqlite3_free(pNew);
    sqlite3_free(zPath);
    return SQLITE_NOMEM;
  }
  memset(pNew, 0, sizeof(*pNew));
  tsDequote(zPath);
  rc = tsSessionOpen(zPath, &pNew->pSession, pzErr);
  sqlite3_free(zPath);
  if( rc!=SQLITE_OK ){
    sqlite3_free(pNew);
    return rc;
  }
  pNew->nStore = tsListStores(pNew->pSession, pNew->apStore);
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &pNew->base;
  return SQLITE_OK;
}

/*
** xBestIndex: a handful of rows; every constraint is left to SQLite.
*/
static int tracestoreInfoBestIndex(
  sqlite3_vtab *tab,
  sqlite3_index_info *pIdxInfo
){
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)tab;
  pIdxInfo->estimatedCost = (double)pTab->nStore + 1.0;
  pIdxInfo->estimatedRows = pTab->nStore;
  pIdxInfo->idxNum = 0;
  return SQLITE_OK;
}

static int tracestoreInfoOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **ppCursor){
  tracestore_info_cursor *pCur;
  (void)p;
  pCur = sqlite3_malloc64(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

/*
** xFilter: a fresh snapshot of every store.
*/
static int tracestoreInfoFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)cur->pVtab;
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;
  char zName[TRACE_NAME_SIZE+1];
  int i;

  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  pCur->iRow = 0;
  pCur->nRow = 0;
  for(i=0; i<pTab->nStore; i++){
    memset(&error, 0, sizeof(error));
    status = TraceStoreTakeSnapshot(pTab->apStore[i], &pCur->aSnapshot[i],
                                    &error);
    if( !RTL_SUCCESS(status) ){
      zReason = tsErrorText(status, &error);
      tsCopyName(zName, pTab->apStore[i]->Name);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read store '%s' of trace "
                                           "session '%s': %s", zName,
                                           pTab->pSession->Path, zReason);
      sqlite3_free(zReason);
      return SQLITE_ERROR;
    }
  }
  pCur->nRow = pTab->nStore;
  return SQLITE_OK;
}

static int tracestoreInfoNext(sqlite3_vtab_cursor *cur){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  pCur->iRow++;
  return SQLITE_OK;
}

static int tracestoreInfoEof(sqlite3_vtab_cursor *cur){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  return pCur->iRow>=pCur->nRow;
}

static int tracestoreInfoColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)cur->pVtab;
  PTRACE_STORE pStore = pTab->apStore[pCur->iRow];
  const TRACE_STORE_SNAPSHOT *pSnap = &pCur->aSnapshot[pCur->iRow];
  char zName[TRACE_NAME_SIZE+1];
  int bHasTs;

  bHasTs = pSnap->RecordCount>0
        && pStore->Header->TimestampColumn!=TRACE_NO_COLUMN;
  switch( i ){
    case TSI_COLUMN_NAME:
      tsCopyName(zName, pStore->Name);
      sqlite3_result_text(ctx, zName, -1, SQLITE_TRANSIENT);
      break;
    case TSI_COLUMN_RECORDS:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->RecordCount);
      break;
    case TSI_COLUMN_BYTES:
      sqlite3_result_int64(ctx, (sqlite3_int64)(
          (ULONGLONG)pStore->Header->HeaderSize
          + pSnap->RecordCount * (ULONGLONG)pStore->RecordSize));
      break;
    case TSI_COLUMN_RECORD_SIZE:
      sqlite3_result_int64(ctx, (sqlite3_int64)pStore->RecordSize);
      break;
    case TSI_COLUMN_GENERATION:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Generation);
      break;
    case TSI_COLUMN_FIRST_TS:
      if( bHasTs ) sqlite3_result_int64(ctx, pSnap->FirstTs);
      break;
    case TSI_COLUMN_LAST_TS:
      if( bHasTs ) sqlite3_result_int64(ctx, pSnap->LastTs);
      break;
    case TSI_COLUMN_SORTED:
      if( pStore->TimestampOffset!=TRACE_NO_COLUMN ){
        sqlite3_result_int(ctx, (pSnap->Flags & TRACE_SLOT_SORTED)!=0);
      }
      break;
    case TSI_COLUMN_DROPPED:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Dropped);
      break;
    case TSI_COLUMN_REPAIRED:
      sqlite3_result_int64(ctx, (sqlite3_int64)pSnap->Repaired);
      break;
  }
  return SQLITE_OK;
}

static int tracestoreInfoRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  tracestore_info_cursor *pCur = (tracestore_info_cursor*)cur;
  *pRowid = pCur->iRow;
  return SQLITE_OK;
}

static int tracestoreInfoClose(sqlite3_vtab_cursor *cur){
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int tracestoreInfoDisconnect(sqlite3_vtab *pVtab){
  tracestore_info_vtab *pTab = (tracestore_info_vtab*)pVtab;
  tsSessionClose(pTab->pSession);
  sqlite3_free(pTab);
  return SQLITE_OK;
}

static sqlite3_module tracestoreInfoModule = {
  .iVersion    = 0,
  .xCreate     = tracestoreInfoConnect,
  .xConnect    = tracestoreInfoConnect,
  .xBestIndex  = tracestoreInfoBestIndex,
  .xDisconnect = tracestoreInfoDisconnect,
  .xDestroy    = tracestoreInfoDisconnect,
  .xOpen       = tracestoreInfoOpen,
  .xClose      = tracestoreInfoClose,
  .xFilter     = tracestoreInfoFilter,
  .xNext       = tracestoreInfoNext,
  .xEof        = tracestoreInfoEof,
  .xColumn     = tracestoreInfoColumn,
  .xRowid      = tracestoreInfoRowid,
};

/*
** Registers the tracestore_info module on db.
*/
int tracestoreInfoInit(sqlite3 *db){
  return sqlite3_create_module_v2(db, "tracestore_info",
                                  &tracestoreInfoModule, 0, 0);
}
