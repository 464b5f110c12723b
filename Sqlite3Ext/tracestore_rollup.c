/*
** tracestore_rollup.c: the rollup tables, the answers of the built-in
** views (span_self_time, page_fault_summary, kvm_exit_reasons, ...) read
** from the stores' rollups (TraceStore/TraceRollup.h) instead of their
** rows.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store and rollup APIs of TraceStore/;
** included by nothing outside Sqlite3Ext/.
** Owns: the tracestore_rollup module: its questions, their columns, and
** how each value follows the SQL of the view it stands in for.
** Calls: TraceStore/ (TraceRollupRead), tracestore_session.c,
** Guard/StoreGuard.c.  Registered by sqlite3_tracestore_init()
** (tracestore.c) through tracestoreRollupInit(), declared in
** tracestore_int.h; tracestore_attach.c makes the tables
** (tracestoreRollupQuestions), tracestore_views.c reads them.
**
** Usage:
**
**     SELECT * FROM rollup_span ORDER BY self_dur DESC LIMIT 10;
**     SELECT * FROM rollup_event_rate WHERE store = 'page_fault';
**
**   CREATE VIRTUAL TABLE temp.NAME USING tracestore_rollup(PATH, QUESTION)
**
**     QUESTION is one of the names in aQuestion below (span, span_open,
**     page_fault, kvm_exit, syscall, line, event_count, event_rate); the
**     table's columns are that question's, documented with the rollup
**     tables in tracestore_doc.c (docs/schema.md), and a hidden column `records`: the
**     records of the row's store that the answer covers (its snapshot),
**     for comparing with a scan of the same records (WHERE id < records).
**     tracestore_attach() makes them as rollup_QUESTION; the views read
**     them.
**
** How it works:
**
**   The table opens the session, like a store table.  A scan (xFilter)
**   reads the answer of the question's store (or of every event store,
**   for event_count and event_rate) as of a snapshot taken then: the
**   store's published rollup and the records committed after it, or every
**   record if the rollup file cannot be trusted (TraceRollupRead).  That
**   costs O(groups) plus the records past the publication, a quarter of a
**   second of writing at most while a writer runs.  The answer is held in
**   memory until the cursor closes and handed out row by row; each value
**   is computed by the rule of the view's SQL (NULLs where the view's
**   joins find nothing, REAL where its integer arithmetic overflows, the
**   error "integer overflow" where its sum() would raise it).  Every
**   constraint is left to SQLite.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "TraceStore/TraceRollup.h"
#include "Guard/StoreGuard.h"
#include "tracestore_int.h"

/*
** The questions.  zStore is the store whose rollup answers, or 0 for
** every event store of the session.
*/
typedef struct ts_question ts_question;
struct ts_question {
  const char *zName;
  const char *zStore;
  TRACE_ROLLUP_TABLE_ID eTable;
  const char *zColumns;
};

#define TS_Q_SPAN         0
#define TS_Q_SPAN_OPEN    1
#define TS_Q_PAGE_FAULT   2
#define TS_Q_KVM_EXIT     3
#define TS_Q_SYSCALL      4
#define TS_Q_EVENT_COUNT  5
#define TS_Q_EVENT_RATE   6
#define TS_Q_LINE         7

static const ts_question aQuestion[] = {
  { "span", "span", TraceRollupSpans,
    "name TEXT, calls INTEGER, total_dur INTEGER, self_dur INTEGER, "
    "avg_dur REAL, max_dur INTEGER, min_depth INTEGER, max_depth INTEGER" },
  { "span_open", "span", TraceRollupSpanOpen, "id INTEGER" },
  { "page_fault", "page_fault", TraceRollupFaults,
    "pid INTEGER, comm TEXT, module TEXT, faults INTEGER, code INTEGER, "
    "data INTEGER, reads INTEGER, writes INTEGER, execs INTEGER, "
    "unknown_access INTEGER, hard INTEGER, soft INTEGER, "
    "unclassified INTEGER, hard_code INTEGER, hard_data INTEGER, "
    "soft_code INTEGER, soft_data INTEGER" },
  { "kvm_exit", "kvm_exit", TraceRollupKvm,
    "reason TEXT, exit_code INTEGER, count INTEGER, unpaired INTEGER, "
    "total_dur INTEGER, avg_dur REAL, min_dur INTEGER, max_dur INTEGER, "
    "p50_dur INTEGER, p90_dur INTEGER, p99_dur INTEGER" },
  { "syscall", "ftrace_event", TraceRollupSyscalls,
    "raw INTEGER, k, n INTEGER" },
  { "event_count", 0, TraceRollupNames,
    "store TEXT, name TEXT, count INTEGER" },
  { "event_rate", 0, TraceRollupRates,
    "store TEXT, name TEXT, ts INTEGER, dur INTEGER, count INTEGER" },
  { "line", "line", TraceRollupLines,
    "name TEXT, file TEXT, lineno INTEGER, hits INTEGER, total_dur INTEGER, "
    "self_dur INTEGER" },
};

#define TS_N_QUESTION ((int)(sizeof(aQuestion)/sizeof(aQuestion[0])))

/* Each answer row, whatever the question. */
typedef union ts_rollup_row ts_rollup_row;
union ts_rollup_row {
  TRACE_ROLLUP_SPAN_ROW span;
  ULONGLONG id;
  TRACE_ROLLUP_FAULT_ROW fault;
  TRACE_ROLLUP_KVM_ROW kvm;
  TRACE_ROLLUP_SYSCALL_ROW syscall;
  TRACE_ROLLUP_NAME_ROW name;
  TRACE_ROLLUP_RATE_ROW rate;
  TRACE_ROLLUP_LINE_ROW line;
};

static const SIZE_T aRowSize[] = {
  sizeof(TRACE_ROLLUP_SPAN_ROW), sizeof(ULONGLONG),
  sizeof(TRACE_ROLLUP_FAULT_ROW), sizeof(TRACE_ROLLUP_KVM_ROW),
  sizeof(TRACE_ROLLUP_SYSCALL_ROW), sizeof(TRACE_ROLLUP_NAME_ROW),
  sizeof(TRACE_ROLLUP_RATE_ROW), sizeof(TRACE_ROLLUP_LINE_ROW),
};

/*
** A tracestore_rollup table.
*/
typedef struct ts_rollup_vtab ts_rollup_vtab;
struct ts_rollup_vtab {
  sqlite3_vtab base;            /* Base class.  Must be first */
  TRACE_SESSION *pSession;      /* The session, open read-only */
  char *zPath;                  /* Session directory, for messages */
  int iQuestion;                /* Index in aQuestion */
  int nCol;                     /* Its columns; then the hidden `records` */
};

/*
** A cursor: the answers of nStore stores; the current row is row iRow of
** apRollup[iStore] (or, for a store without names in event_count, the
** one row of its record count).
*/
typedef struct ts_rollup_cursor ts_rollup_cursor;
struct ts_rollup_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  int nStore;
  int iStore;
  sqlite3_int64 iRow;
  sqlite3_int64 iRowid;
  int bEof;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES];
  PTRACE_ROLLUP apRollup[TRACE_SESSION_MAX_STORES];
  ULONGLONG anRecord[TRACE_SESSION_MAX_STORES];
  ts_rollup_row row;            /* The current row */
};

/* The question named z, or -1. */
static int tsQuestion(const char *z){
  int i;
  for(i=0; i<TS_N_QUESTION; i++){
    if( strcmp(aQuestion[i].zName, z)==0 ) return i;
  }
  return -1;
}

/*
** The questions a session's stores can answer, for tracestore_attach():
** calls xAdd(pArg, QUESTION) for each.  The kind's own questions need a
** store of this version's layout (an event store, or one that keeps a
** rollup all the same: line); event_count and event_rate any event store.
*/
int tracestoreRollupQuestions(
  TRACE_SESSION *pSession,
  int (*xAdd)(void*, const char*),
  void *pArg
){
  int i, k, rc = SQLITE_OK, bEvents = 0;
  for(k=0; rc==SQLITE_OK && k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    PTRACE_STORE pStore;
    if( (pType->Flags & (TRACE_RECORD_EVENT|TRACE_RECORD_ROLLUP))==0 ){
      continue;
    }
    pStore = TraceSessionFindStore(pSession, pType->Schema->Name);
    if( pStore==0 ) continue;
    if( pType->Flags & TRACE_RECORD_EVENT ) bEvents = 1;
    if( !TraceStoreSchemaMatches(pStore->Header, pType->Schema) ) continue;
    for(i=0; rc==SQLITE_OK && i<TS_N_QUESTION; i++){
      if( aQuestion[i].zStore
       && strcmp(aQuestion[i].zStore, pType->Schema->Name)==0 ){
        rc = xAdd(pArg, aQuestion[i].zName);
      }
    }
  }
  if( rc==SQLITE_OK && bEvents ) rc = xAdd(pArg, "event_count");
  if( rc==SQLITE_OK && bEvents ) rc = xAdd(pArg, "event_rate");
  return rc;
}

/*
** xConnect (also xCreate): argv[3] is the session path, argv[4] the
** question.
*/
static int tsRollupConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  ts_rollup_vtab *pNew;
  char *zPath, *zQuestion, *zDecl;
  int iQuestion, rc;

  (void)pAux;
  *ppVtab = 0;
  if( argc!=5 ){
    *pzErr = sqlite3_mprintf(
        "wrong number of arguments to tracestore_rollup: use CREATE VIRTUAL "
        "TABLE %s USING tracestore_rollup(SESSION_PATH, QUESTION)", argv[2]);
    return SQLITE_ERROR;
  }
  zQuestion = sqlite3_mprintf("%s", argv[4]);
  if( zQuestion==0 ) return SQLITE_NOMEM;
  tsDequote(zQuestion);
  iQuestion = tsQuestion(zQuestion);
  if( iQuestion<0 ){
    *pzErr = sqlite3_mprintf("tracestore_rollup: no question '%s' (span, "
                             "span_open, page_fault, kvm_exit, syscall, "
                             "line, event_count, event_rate)", zQuestion);
    sqlite3_free(zQuestion);
    return SQLITE_ERROR;
  }
  sqlite3_free(zQuestion);

  zDecl = sqlite3_mprintf("CREATE TABLE x(%s, records INTEGER HIDDEN)",
                          aQuestion[iQuestion].zColumns);
  if( zDecl==0 ) return SQLITE_NOMEM;
  rc = sqlite3_declare_vtab(db, zDecl);
  sqlite3_free(zDecl);
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
  pNew->zPath = zPath;
  pNew->iQuestion = iQuestion;
  for(pNew->nCol=1, zDecl=(char*)aQuestion[iQuestion].zColumns; *zDecl;
      zDecl++){
    pNew->nCol += *zDecl==',';
  }
  rc = tsSessionOpen(zPath, &pNew->pSession, pzErr);
  if( rc!=SQLITE_OK ){
    sqlite3_free(zPath);
    sqlite3_free(pNew);
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &pNew->base;
  return SQLITE_OK;
}

static int tsRollupDisconnect(sqlite3_vtab *tab){
  ts_rollup_vtab *pTab = (ts_rollup_vtab*)tab;
  tsSessionClose(pTab->pSession);
  sqlite3_free(pTab->zPath);
  sqlite3_free(pTab);
  return SQLITE_OK;
}

/*
** xBestIndex: an answer is O(groups) and held in memory; every constraint
** is left to SQLite.
*/
static int tsRollupBestIndex(sqlite3_vtab *tab, sqlite3_index_info *pInfo){
  (void)tab;
  pInfo->estimatedCost = 1000.0;
  pInfo->estimatedRows = 1000;
  return SQLITE_OK;
}

static int tsRollupOpen(sqlite3_vtab *tab, sqlite3_vtab_cursor **ppCursor){
  ts_rollup_cursor *pCur = sqlite3_malloc64(sizeof(*pCur));
  (void)tab;
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->bEof = 1;
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

static void tsRollupRelease(ts_rollup_cursor *pCur){
  int i;
  for(i=0; i<pCur->nStore; i++){
    TraceRollupFree(pCur->apRollup[i]);
    pCur->apRollup[i] = 0;
  }
  pCur->nStore = 0;
}

static int tsRollupClose(sqlite3_vtab_cursor *cur){
  ts_rollup_cursor *pCur = (ts_rollup_cursor*)cur;
  tsRollupRelease(pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/*
** Rows of store i of the answer: event_count shows a store without a name
** column as one row (its record count) when it has records.
*/
static sqlite3_int64 tsRollupRows(ts_rollup_cursor *pCur, int i){
  ts_rollup_vtab *pTab = (ts_rollup_vtab*)pCur->base.pVtab;
  const ts_question *pQ = &aQuestion[pTab->iQuestion];
  PCTRACE_RECORD_TYPE pType;
  int k;
  if( pTab->iQuestion==TS_Q_EVENT_COUNT ){
    for(k=0; k<TraceRecordKindMaximum; k++){
      pType = &TraceRecordTypes[k];
      if( strcmp(pType->Schema->Name, pCur->apStore[i]->Name)==0
       && pType->EventView.Name==0 ){
        return pCur->anRecord[i]>0 ? 1 : 0;
      }
    }
  }
  return (sqlite3_int64)TraceRollupRowCount(pCur->apRollup[i], pQ->eTable);
}

/*
** Moves to row iRow of store iStore, or the next store with rows; loads
** the row.
*/
static void tsRollupSeek(ts_rollup_cursor *pCur){
  ts_rollup_vtab *pTab = (ts_rollup_vtab*)pCur->base.pVtab;
  const ts_question *pQ = &aQuestion[pTab->iQuestion];
  while( pCur->iStore<pCur->nStore
      && pCur->iRow>=tsRollupRows(pCur, pCur->iStore) ){
    pCur->iStore++;
    pCur->iRow = 0;
  }
  pCur->bEof = pCur->iStore>=pCur->nStore;
  if( pCur->bEof ) return;
  memset(&pCur->row, 0, sizeof(pCur->row));
  TraceRollupGetRow(pCur->apRollup[pCur->iStore], pQ->eTable,
                    (ULONGLONG)pCur->iRow, &pCur->row,
                    aRowSize[pTab->iQuestion]);
}

/*
** The guard (Guard/StoreGuard.c): an error if pages of a file the answer
** read were replaced by zeros while it read them.
*/
static int tsRollupGuardError(ts_rollup_vtab *pTab, ts_rollup_cursor *pCur){
  PTRACE_STORE apCheck[TRACE_SESSION_MAX_STORES + 2];
  int i, n = 0;
  for(i=0; i<pCur->nStore; i++) apCheck[n++] = pCur->apStore[i];
  apCheck[n++] = &pTab->pSession->Strings.Index;
  apCheck[n++] = &pTab->pSession->Strings.Data;
  for(i=0; i<n; i++){
    if( storeGuardDamaged(apCheck[i]) ){
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("cannot read trace session '%s': "
          "%s was cut short (or could not be read) while the statement read "
          "it", pTab->zPath, apCheck[i]->Path);
      return SQLITE_ERROR;
    }
  }
  return SQLITE_OK;
}

/*
** Before reading: a mapping the guard patched with zeros in an earlier
** statement is mapped anew, so that the file is read as it is now.
*/
static int tsRollupGuardRemap(ts_rollup_vtab *pTab, PTRACE_STORE pStore){
  RTL_ERROR error;
  RTL_STATUS status;
  char *zReason;
  if( !storeGuardDamaged(pStore) ) return SQLITE_OK;
  memset(&error, 0, sizeof(error));
  status = TraceStoreRemap(pStore, &error);
  if( RTL_SUCCESS(status) ) return SQLITE_OK;
  zReason = tsErrorText(status, &error);
  sqlite3_free(pTab->base.zErrMsg);
  pTab->base.zErrMsg = sqlite3_mprintf("cannot read trace session '%s': %s",
                                       pTab->zPath, zReason);
  sqlite3_free(zReason);
  return SQLITE_ERROR;
}

/*
** xFilter: reads the answer (see "How it works").
*/
static int tsRollupFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  ts_rollup_cursor *pCur = (ts_rollup_cursor*)cur;
  ts_rollup_vtab *pTab = (ts_rollup_vtab*)cur->pVtab;
  const ts_question *pQ = &aQuestion[pTab->iQuestion];
  TRACE_SESSION *pSession = pTab->pSession;
  TRACE_ROLLUP_STATUS status;
  RTL_ERROR error;
  RTL_STATUS rs;
  unsigned int nGuard;
  int k, rc = SQLITE_OK;

  (void)idxNum; (void)idxStr; (void)argc; (void)argv;
  tsRollupRelease(pCur);
  pCur->iStore = 0;
  pCur->iRow = 0;
  pCur->iRowid = 0;

  for(k=0; k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    PTRACE_STORE pStore;
    if( pQ->zStore ){
      if( strcmp(pQ->zStore, pType->Schema->Name)!=0 ) continue;
    }else if( (pType->Flags & TRACE_RECORD_EVENT)==0 ){
      continue;
    }
    pStore = TraceSessionFindStore(pSession, pType->Schema->Name);
    if( pStore==0 ) continue;
    pCur->apStore[pCur->nStore++] = pStore;
  }

  nGuard = storeGuardFaults();
  rc = tsRollupGuardRemap(pTab, &pSession->Strings.Index);
  if( rc==SQLITE_OK ) rc = tsRollupGuardRemap(pTab, &pSession->Strings.Data);
  for(k=0; rc==SQLITE_OK && k<pCur->nStore; k++){
    rc = tsRollupGuardRemap(pTab, pCur->apStore[k]);
    if( rc!=SQLITE_OK ) break;
    memset(&error, 0, sizeof(error));
    rs = TraceRollupRead(pSession->Rtl, pSession, pCur->apStore[k],
                         &pCur->apRollup[k], &status, &error);
    if( !RTL_SUCCESS(rs) ){
      char *zWhy = tsErrorText(rs, &error);
      sqlite3_free(pTab->base.zErrMsg);
      pTab->base.zErrMsg = sqlite3_mprintf("%s", zWhy);
      sqlite3_free(zWhy);
      rc = zWhy ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    pCur->anRecord[k] = status.Records;
  }
  if( rc==SQLITE_OK && storeGuardFaults()!=nGuard ){
    rc = tsRollupGuardError(pTab, pCur);
  }
  if( rc!=SQLITE_OK ){
    /* Free what was read: the loop stopped at store k. */
    for(k=0; k<TRACE_SESSION_MAX_STORES && k<pCur->nStore; k++){
      TraceRollupFree(pCur->apRollup[k]);
      pCur->apRollup[k] = 0;
    }
    pCur->nStore = 0;
    pCur->bEof = 1;
    return rc;
  }
  tsRollupSeek(pCur);
  return SQLITE_OK;
}

static int tsRollupNext(sqlite3_vtab_cursor *cur){
  ts_rollup_cursor *pCur = (ts_rollup_cursor*)cur;
  pCur->iRow++;
  pCur->iRowid++;
  tsRollupSeek(pCur);
  return SQLITE_OK;
}

static int tsRollupEof(sqlite3_vtab_cursor *cur){
  return ((ts_rollup_cursor*)cur)->bEof;
}

/*
** Text of string id in the answer's session (NULL for TRACE_STRING_NULL).
** The answer resolved every id it holds, so a failure here means the
** string stores changed underneath: an error.
*/
static int tsRollupText(
  sqlite3_context *ctx,
  ts_rollup_vtab *pTab,
  ULONG id,
  int nSkip
){
  PCSZ zText;
  ULONG nText;
  if( id==TRACE_STRING_NULL ) return SQLITE_OK;
  if( !RTL_SUCCESS(TraceStringLookup(&pTab->pSession->Strings, id, &zText,
                                     &nText)) ){
    sqlite3_free(pTab->base.zErrMsg);
    pTab->base.zErrMsg = sqlite3_mprintf("%s: string id %u cannot be read",
                                         pTab->pSession->Strings.Index.Path,
                                         id);
    return SQLITE_ERROR;
  }
  if( nSkip>(int)nText ) nSkip = (int)nText;
  sqlite3_result_text64(ctx, zText + nSkip, nText - (ULONG)nSkip,
                        SQLITE_TRANSIENT, SQLITE_UTF8);
  return SQLITE_OK;
}

/* sum()'s error, for a group whose sum left the int64 range. */
static int tsRollupOverflow(ts_rollup_vtab *pTab){
  sqlite3_free(pTab->base.zErrMsg);
  pTab->base.zErrMsg = sqlite3_mprintf("integer overflow");
  return SQLITE_ERROR;
}

/*
** a - b as SQLite computes it: an INTEGER, or a REAL when the difference
** leaves the int64 range.
*/
static void tsResultDifference(
  sqlite3_context *ctx,
  sqlite3_int64 a,
  sqlite3_int64 b
){
  sqlite3_int64 d;
  if( __builtin_sub_overflow(a, b, &d) ){
    sqlite3_result_double(ctx, (double)a - (double)b);
  }else{
    sqlite3_result_int64(ctx, d);
  }
}

static int tsColumnSpan(sqlite3_context *ctx, ts_rollup_vtab *pTab,
                        const TRACE_ROLLUP_SPAN_ROW *p, int i){
  if( p->Flags & TRACE_ROLLUP_ROW_OVERFLOW ) return tsRollupOverflow(pTab);
  switch( i ){
    case 0: return tsRollupText(ctx, pTab, p->NameId, 0);
    case 1: sqlite3_result_int64(ctx, (sqlite3_int64)p->Calls); break;
    case 2:
      if( p->HasTotal ) sqlite3_result_int64(ctx, p->TotalDur);
      break;
    case 3: tsResultDifference(ctx, p->AllDur, p->ChildDur); break;
    case 4:
      sqlite3_result_double(ctx, (double)p->AllDur / (double)p->Calls);
      break;
    case 5: sqlite3_result_int64(ctx, p->MaxDur); break;
    case 6: sqlite3_result_int64(ctx, p->MinDepth); break;
    case 7: sqlite3_result_int64(ctx, p->MaxDepth); break;
  }
  return SQLITE_OK;
}

static int tsColumnLine(sqlite3_context *ctx, ts_rollup_vtab *pTab,
                        const TRACE_ROLLUP_LINE_ROW *p, int i){
  if( p->Flags & TRACE_ROLLUP_ROW_OVERFLOW ) return tsRollupOverflow(pTab);
  switch( i ){
    case 0: return tsRollupText(ctx, pTab, p->NameId, 0);
    case 1: return tsRollupText(ctx, pTab, p->FileId, 0);
    case 2: sqlite3_result_int64(ctx, p->LineNo); break;
    case 3: sqlite3_result_int64(ctx, (sqlite3_int64)p->Hits); break;
    case 4: sqlite3_result_int64(ctx, p->TotalDur); break;
    case 5: sqlite3_result_int64(ctx, p->SelfDur); break;
  }
  return SQLITE_OK;
}

static int tsColumnFault(sqlite3_context *ctx, ts_rollup_vtab *pTab,
                         const TRACE_ROLLUP_FAULT_ROW *p, int i){
  /* The columns after module, in the order of TRACE_ROLLUP_FAULT_COUNT. */
  switch( i ){
    case 0:
      if( p->Pid!=TRACE_NULL_ULONG ) sqlite3_result_int64(ctx, p->Pid);
      return SQLITE_OK;
    case 1: return tsRollupText(ctx, pTab, p->CommId, 0);
    case 2: return tsRollupText(ctx, pTab, p->ModuleId, 0);
  }
  if( i-3<TraceFaultCountMaximum ){
    sqlite3_result_int64(ctx, (sqlite3_int64)p->Counts[i-3]);
  }
  return SQLITE_OK;
}

static int tsColumnKvm(sqlite3_context *ctx, ts_rollup_vtab *pTab,
                       const TRACE_ROLLUP_KVM_ROW *p, int i){
  if( p->Flags & TRACE_ROLLUP_ROW_OVERFLOW ) return tsRollupOverflow(pTab);
  switch( i ){
    case 0: return tsRollupText(ctx, pTab, p->ReasonId, 0);
    case 1:
      if( p->ExitCode!=TRACE_NULL_ULONG ) sqlite3_result_int64(ctx, p->ExitCode);
      return SQLITE_OK;
    case 2: sqlite3_result_int64(ctx, (sqlite3_int64)p->Count); break;
    case 3:
      sqlite3_result_int64(ctx, (sqlite3_int64)(p->Count - p->Paired));
      break;
  }
  if( i>=4 && i<=7 && p->Paired>0 ){
    switch( i ){
      case 4: sqlite3_result_int64(ctx, p->SumDur); break;
      case 5:
        sqlite3_result_double(ctx, (double)p->SumDur / (double)p->Paired);
        break;
      case 6: sqlite3_result_int64(ctx, p->MinDur); break;
      case 7: sqlite3_result_int64(ctx, p->MaxDur); break;
    }
  }
  if( i>=8 && p->HasPercentiles ){
    sqlite3_result_int64(ctx, i==8 ? p->P50Dur : i==9 ? p->P90Dur :
                              p->P99Dur);
  }
  return SQLITE_OK;
}

/*
** The store name or the event name of event_count and event_rate: as the
** `event` view names its rows (the store's name for a store without a
** name column); NULL for the span store's rates, which are per store.
*/
static int tsColumnEventName(sqlite3_context *ctx, ts_rollup_vtab *pTab,
                             ts_rollup_cursor *pCur, ULONG nameId){
  PTRACE_STORE pStore = pCur->apStore[pCur->iStore];
  int k;
  for(k=0; k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    if( strcmp(pType->Schema->Name, pStore->Name)!=0 ) continue;
    if( pType->EventView.Name==0 ){
      sqlite3_result_text(ctx, pStore->Name, -1, SQLITE_TRANSIENT);
      return SQLITE_OK;
    }
  }
  return tsRollupText(ctx, pTab, nameId, 0);
}

static int tsRollupColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  ts_rollup_cursor *pCur = (ts_rollup_cursor*)cur;
  ts_rollup_vtab *pTab = (ts_rollup_vtab*)cur->pVtab;
  const ts_rollup_row *p = &pCur->row;

  if( i==pTab->nCol ){
    sqlite3_result_int64(ctx, (sqlite3_int64)pCur->anRecord[pCur->iStore]);
    return SQLITE_OK;
  }
  switch( pTab->iQuestion ){
    case TS_Q_SPAN:
      return tsColumnSpan(ctx, pTab, &p->span, i);
    case TS_Q_SPAN_OPEN:
      sqlite3_result_int64(ctx, (sqlite3_int64)p->id);
      return SQLITE_OK;
    case TS_Q_PAGE_FAULT:
      return tsColumnFault(ctx, pTab, &p->fault, i);
    case TS_Q_KVM_EXIT:
      return tsColumnKvm(ctx, pTab, &p->kvm, i);
    case TS_Q_LINE:
      return tsColumnLine(ctx, pTab, &p->line, i);
    case TS_Q_SYSCALL:
      if( i==0 ) sqlite3_result_int(ctx, p->syscall.Raw ? 1 : 0);
      if( i==2 ) sqlite3_result_int64(ctx, (sqlite3_int64)p->syscall.Count);
      if( i==1 ){
        if( p->syscall.Raw ){
          sqlite3_result_int64(ctx, p->syscall.Nr);
        }else{
          return tsRollupText(ctx, pTab, p->syscall.NameId, 10);
        }
      }
      return SQLITE_OK;
    case TS_Q_EVENT_COUNT:
    case TS_Q_EVENT_RATE:
      if( i==0 ){
        sqlite3_result_text(ctx, pCur->apStore[pCur->iStore]->Name, -1,
                            SQLITE_TRANSIENT);
        return SQLITE_OK;
      }
      if( pTab->iQuestion==TS_Q_EVENT_COUNT ){
        int bNoNames = TraceRollupRowCount(pCur->apRollup[pCur->iStore],
                                           TraceRollupNames)==0;
        if( i==1 ){
          return tsColumnEventName(ctx, pTab, pCur, bNoNames ?
                                   TRACE_STRING_NULL : p->name.NameId);
        }
        sqlite3_result_int64(ctx, bNoNames ?
            (sqlite3_int64)pCur->anRecord[pCur->iStore] :
            (sqlite3_int64)p->name.Count);
        return SQLITE_OK;
      }
      switch( i ){
        case 1:
          if( strcmp(pCur->apStore[pCur->iStore]->Name, "span")==0 ){
            return SQLITE_OK;
          }
          return tsColumnEventName(ctx, pTab, pCur, p->rate.NameId);
        case 2: sqlite3_result_int64(ctx, p->rate.Start); break;
        case 3: sqlite3_result_int64(ctx, p->rate.Width); break;
        case 4: sqlite3_result_int64(ctx, (sqlite3_int64)p->rate.Count); break;
      }
      return SQLITE_OK;
  }
  return SQLITE_OK;
}

static int tsRollupRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *pRowid){
  *pRowid = ((ts_rollup_cursor*)cur)->iRowid;
  return SQLITE_OK;
}

static sqlite3_module tsRollupModule = {
  .iVersion    = 0,
  .xCreate     = tsRollupConnect,
  .xConnect    = tsRollupConnect,
  .xBestIndex  = tsRollupBestIndex,
  .xDisconnect = tsRollupDisconnect,
  .xDestroy    = tsRollupDisconnect,
  .xOpen       = tsRollupOpen,
  .xClose      = tsRollupClose,
  .xFilter     = tsRollupFilter,
  .xNext       = tsRollupNext,
  .xEof        = tsRollupEof,
  .xColumn     = tsRollupColumn,
  .xRowid      = tsRollupRowid,
};

int tracestoreRollupInit(sqlite3 *db){
  return sqlite3_create_module_v2(db, "tracestore_rollup", &tsRollupModule,
                                  0, 0);
}
