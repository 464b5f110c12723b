/*
** tracestore_duckdb_scan.c: tracestore_scan(), a store as a DuckDB table.
**
** Zone: hosted (the DuckDB extension): libc, pthreads and DuckDB's C
** extension API; reads sessions only through TraceStore/TraceStore.h;
** included by nothing.
** Owns: the table function's bind, init and scan, the per-process cache
** of block indexes, and the check of the read guard after each batch.
** Calls: tracestore_duckdb_rows.c (which records, their values),
** tracestore_duckdb_sessions.c, Guard/StoreGuard.h.  Called by DuckDB;
** registered by tracestore_duckdb.c (tsdRegisterScan,
** tracestore_duckdb_int.h).
**
**   tracestore_scan(SESSION, STORE [, from_ts := FROM] [, to_ts := TO]
**                   [, missing_ok := true])
**
** The rows of STORE: `id` (the record's index) and the store's columns,
** with the names and values of the SQLite tables.  With from_ts or to_ts
** (BIGINT, NULL for no bound) only the records with FROM <= ts < TO,
** found by binary search in a sorted store and through the block index in
** any other.  With missing_ok, a store of Tracer's schema that the
** session lacks reads as empty, with its columns.  (DuckDB's C API gives
** a table function one list of positional parameters, so the bounds are
** named.)
**
** How it works:
**
**   Bind takes the session, kept open between queries
**   (tracestore_duckdb_sessions.c), and declares the columns.  Each
**   execution (the global init) claims it, or opens a private copy if
**   another execution reads it, and takes the store's snapshot, the
**   commit protocol's, and one of the string stores after it, so every
**   string a committed record names is there; the query reads that
**   snapshot and nothing later.  Only the columns the query uses are
**   decoded (projection push-down).  The records are handed to DuckDB's threads in morsels of
**   TSD_MORSEL records claimed by an atomic counter; each thread decodes a
**   vector's worth at a time straight into DuckDB's vectors.
**
**   Strings are resolved without refreshing the string store, so threads
**   never remap it under each other: an id beyond the snapshot is corrupt.
**   Each thread keeps the strings it resolved lately by id.  A string of up
**   to 12 bytes is written into the vector as DuckDB's inline string_t; a
**   longer one is copied into the vector's heap, since a client may hold
**   a vector after the query, and the session's mapping, are gone.
**
**   The block index of an unsorted store is built once per process and
**   extended by later queries (aIndexCache, under a mutex); a query works
**   on its own copy of the blocks it needs.
**
**   A store file cut while a query reads it (SIGBUS) is caught by the read
**   guard (Guard/StoreGuard.c), which maps zeros over the rest; each batch
**   then checks the guard and fails with an error naming the file, instead
**   of returning zeros.
*/
#include <duckdb_extension.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracestore_duckdb_int.h"
#include "tracestore_duckdb_rows.h"
#include "Guard/StoreGuard.h"
#include "TraceStore/TraceSchema.h"

DUCKDB_EXTENSION_EXTERN

/* Records a thread claims at once: DuckDB's row group. */
#define TSD_MORSEL 122880

/* Rows handed to DuckDB at once, at most (its standard vector size). */
#define TSD_VECTOR_MAX 2048

/* Block indexes kept across queries. */
#define TSD_INDEX_CACHE 64

typedef struct TsdCacheEntry {
  char zPath[TRACE_PATH_SIZE];
  int64_t iCreated;             /* The header's CreatedRealtimeNs */
  uint64_t iChecksum;           /* and HeaderChecksum: the same file */
  uint64_t iUsed;               /* For eviction: last use */
  TsdIndex index;
} TsdCacheEntry;

static TsdCacheEntry aIndexCache[TSD_INDEX_CACHE];
static uint64_t nIndexUse;
static pthread_mutex_t indexMutex = PTHREAD_MUTEX_INITIALIZER;

typedef struct TsdBind {
  TsdSession *pShared;          /* The session, held */
  char zStore[TRACE_NAME_SIZE];
  int bMissing;                 /* missing_ok and the store is not there */
  ULONG nCol;
  TRACE_COLUMN_DESCRIPTOR aCol[TRACE_STORE_MAX_COLUMNS];
  int bTs;                      /* FROM_TS / TO_TS given */
  int64_t iFrom, iTo;
} TsdBind;

typedef struct TsdGlobal {
  TsdSession *pShared;          /* Claimed (bind's) or private: held */
  int bClaimed;
  PTRACE_SESSION pSession;      /* What this execution reads */
  PTRACE_STORE pStore;
  TsdRange range;
  TsdBlock *aBlock;             /* This query's copy of the block index */
  uint64_t nMorsel;
  uint64_t iNextMorsel;         /* Atomic: the next morsel to claim */
  unsigned int nFault;          /* The guard's count at the start */
  idx_t nProj;
  idx_t *aProj;                 /* Output column -> 0 (id) or 1 + column */
} TsdGlobal;

typedef struct TsdLocal {
  uint64_t iNext, iEnd;         /* The morsel being read */
  uint64_t aRow[TSD_VECTOR_MAX];
  uint64_t aValid[TSD_VECTOR_MAX/64];
  TsdStringCache strings;       /* This thread's resolved strings */
} TsdLocal;

/* A TsdString is a duckdb_string_t, written straight into the vector. */
_Static_assert(sizeof(TsdString)==sizeof(duckdb_string_t),
               "TsdString is DuckDB's string_t");

static void tsdBindFree(void *p){
  TsdBind *b = (TsdBind*)p;
  if( b==0 ) return;
  tsdSessionRelease(b->pShared);
  free(b);
}

static void tsdGlobalFree(void *p){
  TsdGlobal *g = (TsdGlobal*)p;
  if( g==0 ) return;
  if( g->bClaimed ) tsdSessionUnclaim(g->pShared);
  else tsdSessionRelease(g->pShared);
  free(g->aBlock);
  free(g->aProj);
  free(g);
}

static duckdb_logical_type tsdType(PCTRACE_COLUMN_DESCRIPTOR c){
  if( c->Flags & TRACE_COLUMN_STRING_ID ){
    return duckdb_create_logical_type((c->Flags & TRACE_COLUMN_BLOB)
                                      ? DUCKDB_TYPE_BLOB
                                      : DUCKDB_TYPE_VARCHAR);
  }
  if( c->Type==TraceColumnDouble ){
    return duckdb_create_logical_type(DUCKDB_TYPE_DOUBLE);
  }
  return duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
}

/* Named BIGINT argument zName: *piOut and true, or false if absent or
** NULL. */
static int tsdBigintArg(duckdb_bind_info info, const char *zName,
                        int64_t *piOut){
  duckdb_value v = duckdb_bind_get_named_parameter(info, zName);
  int bSet = v!=0 && !duckdb_is_null_value(v);
  if( bSet ) *piOut = duckdb_get_int64(v);
  if( v ) duckdb_destroy_value(&v);
  return bSet;
}

static void tsdBind(duckdb_bind_info info){
  duckdb_value vSession = duckdb_bind_get_parameter(info, 0);
  duckdb_value vStore = duckdb_bind_get_parameter(info, 1);
  char *zSession = duckdb_get_varchar(vSession);
  char *zStore = duckdb_get_varchar(vStore);
  TsdBind *b = calloc(1, sizeof(TsdBind));
  RTL_ERROR err;
  char zMsg[1400];
  ULONGLONG nCard = 0;
  ULONG i;

  duckdb_destroy_value(&vSession);
  duckdb_destroy_value(&vStore);
  memset(&err, 0, sizeof(err));
  if( b==0 || zSession==0 || zStore==0 ){
    duckdb_bind_set_error(info, "tracestore_scan: out of memory");
    goto done;
  }
  snprintf(b->zStore, sizeof(b->zStore), "%s", zStore);
  /* The string stores back the text columns; they are not tables (as in
  ** SQLite).  A cached session that lacks the store is opened afresh
  ** once: a live session may have made it since. */
  for(i=0; i<2 && b->nCol==0; i++){
    PTRACE_STORE pStore;
    b->pShared = tsdSessionOpen(zSession, 0, &err);
    if( b->pShared==0 ){
      duckdb_bind_set_error(info, err.Message);
      goto done;
    }
    tsdSessionLock();
    pStore = strcmp(zStore, "string")==0 || strcmp(zStore, "string_data")==0
           ? 0 : TraceSessionFindStore(b->pShared->pSession, zStore);
    if( pStore ){
      /* A copy: the header is in a mapping that a snapshot may replace. */
      b->nCol = pStore->Header->NumberOfColumns;
      memcpy(b->aCol, pStore->Header->Columns, sizeof(b->aCol[0])*b->nCol);
      nCard = pStore->Snapshot.RecordCount;
    }
    tsdSessionUnlock();
    if( pStore==0 && i==0 && b->pShared->bCached ){
      tsdSessionStale(b->pShared);
      tsdSessionRelease(b->pShared);
      b->pShared = 0;
    }else{
      break;
    }
  }
  if( b->nCol==0 ){
    /* missing_ok: a store of Tracer's schema the session lacks is empty
    ** (the view macros read every store they might use). */
    PCTRACE_STORE_SCHEMA pSchema = 0;
    int bMissingOk = 0;
    duckdb_value v = duckdb_bind_get_named_parameter(info, "missing_ok");
    if( v ){
      bMissingOk = !duckdb_is_null_value(v) && duckdb_get_bool(v);
      duckdb_destroy_value(&v);
    }
    for(i=0; bMissingOk && i<TraceRecordKindMaximum; i++){
      if( strcmp(TraceRecordTypes[i].Schema->Name, zStore)==0 ){
        pSchema = TraceRecordTypes[i].Schema;
      }
    }
    if( pSchema==0 ){
      snprintf(zMsg, sizeof(zMsg), "tracestore_scan: %s has no store %s",
               zSession, zStore);
      duckdb_bind_set_error(info, zMsg);
      goto done;
    }
    b->bMissing = 1;
    b->nCol = pSchema->NumberOfColumns;
    memcpy(b->aCol, pSchema->Columns, sizeof(b->aCol[0])*b->nCol);
  }
  b->iFrom = INT64_MIN;
  b->iTo = INT64_MAX;
  b->bTs = tsdBigintArg(info, "from_ts", &b->iFrom)
         | tsdBigintArg(info, "to_ts", &b->iTo);
  {
    duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
    duckdb_bind_add_result_column(info, "id", t);
    duckdb_destroy_logical_type(&t);
  }
  for(i=0; i<b->nCol; i++){
    char zName[TRACE_NAME_SIZE+1];
    duckdb_logical_type t = tsdType(&b->aCol[i]);
    memcpy(zName, b->aCol[i].Name, TRACE_NAME_SIZE);
    zName[TRACE_NAME_SIZE] = 0;
    duckdb_bind_add_result_column(info, zName, t);
    duckdb_destroy_logical_type(&t);
  }
  duckdb_bind_set_cardinality(info, (idx_t)nCard, false);
  duckdb_bind_set_bind_data(info, b, tsdBindFree);
  b = 0;
done:
  tsdBindFree(b);
  duckdb_free(zSession);
  duckdb_free(zStore);
}

/*
** The block index of pStore extended to nRecord records, copied into
** *paBlock for this query.  Returns 0, or -1 when out of memory.
*/
static int tsdIndexFor(PTRACE_STORE pStore, uint64_t nRecord,
                       TsdRange *pRange, TsdBlock **paBlock){
  TsdCacheEntry *p = 0, *pOldest = &aIndexCache[0];
  int64_t iFrom = pRange->iFrom, iTo = pRange->iTo;
  int i, rc = 0;

  pthread_mutex_lock(&indexMutex);
  for(i=0; i<TSD_INDEX_CACHE; i++){
    TsdCacheEntry *e = &aIndexCache[i];
    if( e->iUsed<pOldest->iUsed ) pOldest = e;
    if( e->iUsed && strcmp(e->zPath, pStore->Path)==0
     && e->iCreated==pStore->Header->CreatedRealtimeNs
     && e->iChecksum==pStore->Header->HeaderChecksum ){
      p = e;
    }
  }
  if( p==0 ){
    p = pOldest;
    tsdIndexFree(&p->index);
    snprintf(p->zPath, sizeof(p->zPath), "%s", pStore->Path);
    p->iCreated = pStore->Header->CreatedRealtimeNs;
    p->iChecksum = pStore->Header->HeaderChecksum;
  }
  p->iUsed = ++nIndexUse;
  if( tsdNarrowTs(pStore, nRecord, 0, &p->index, iFrom, iTo, pRange) ){
    rc = -1;
  }else if( pRange->bTs ){
    size_t nByte = sizeof(TsdBlock)*(size_t)p->index.nBlock;
    *paBlock = malloc(nByte ? nByte : 1);
    if( *paBlock==0 ){
      rc = -1;
    }else{
      memcpy(*paBlock, p->index.aBlock, nByte);
      pRange->aBlock = *paBlock;
    }
  }
  pthread_mutex_unlock(&indexMutex);
  return rc;
}

/* The files an execution reads: its store and the session's strings. */
static void tsdFiles(TsdGlobal *g, PTRACE_STORE *apStore){
  apStore[0] = g->pStore;
  apStore[1] = &g->pSession->Strings.Index;
  apStore[2] = &g->pSession->Strings.Data;
}

/* The path of a file of the execution whose mapping the guard patched
** with zeros, or 0. */
static const char *tsdDamagedFile(TsdGlobal *g){
  PTRACE_STORE apStore[3];
  int i;
  tsdFiles(g, apStore);
  for(i=0; i<3; i++){
    if( storeGuardDamaged(apStore[i]) ) return apStore[i]->Path;
  }
  return 0;
}

/*
** The session this execution reads: the bind's, claimed, or if another
** execution reads that one now, a private copy.  Then, under the session
** lock, a mapping the guard patched (a cut under an earlier execution) is
** mapped again, and the store's and the strings' snapshots are taken.
** Returns 0, or -1 with zErr set.
*/
static int tsdSnapshot(TsdBind *b, TsdGlobal *g,
                       PTRACE_STORE_SNAPSHOT pSnap, char *zErr, int nErr){
  PTRACE_STORE apStore[3];
  RTL_ERROR err;
  int i, rc = 0;

  memset(&err, 0, sizeof(err));
  if( tsdSessionClaim(b->pShared) ){
    g->pShared = b->pShared;
    g->bClaimed = 1;
  }else if( (g->pShared = tsdSessionOpen(b->pShared->zPath, 1, &err))==0 ){
    snprintf(zErr, (size_t)nErr, "%s", err.Message);
    return -1;
  }
  g->pSession = g->pShared->pSession;
  tsdSessionLock();
  g->pStore = TraceSessionFindStore(g->pSession, b->zStore);
  if( g->pStore==0 ){
    snprintf(zErr, (size_t)nErr, "tracestore_scan: %s has no store %s",
             b->pShared->zPath, b->zStore);
    rc = -1;
  }else{
    tsdFiles(g, apStore);
    for(i=0; i<3 && rc==0; i++){
      if( storeGuardDamaged(apStore[i])
       && !RTL_SUCCESS(TraceStoreRemap(apStore[i], &err)) ){
        rc = -1;
      }
    }
    if( rc==0
     && (!RTL_SUCCESS(TraceStoreTakeSnapshot(g->pStore, pSnap, &err))
      || !RTL_SUCCESS(TraceStringRefresh(&g->pSession->Strings, &err))) ){
      rc = -1;
    }
    if( rc ) snprintf(zErr, (size_t)nErr, "%s", err.Message);
  }
  tsdSessionUnlock();
  return rc;
}

/* Takes this execution's snapshot and decides which records it reads. */
static void tsdInit(duckdb_init_info info){
  TsdBind *b = duckdb_init_get_bind_data(info);
  TsdGlobal *g = calloc(1, sizeof(TsdGlobal));
  TRACE_STORE_SNAPSHOT snap;
  char zErr[1400];
  uint64_t nRecord;
  idx_t i;

  if( g==0 ){
    duckdb_init_set_error(info, "tracestore_scan: out of memory");
    return;
  }
  duckdb_init_set_init_data(info, g, tsdGlobalFree);
  g->nFault = storeGuardFaults();
  if( b->bMissing ) return;                 /* missing_ok: no rows */
  if( tsdSnapshot(b, g, &snap, zErr, sizeof(zErr)) ){
    duckdb_init_set_error(info, zErr);
    return;
  }
  nRecord = snap.RecordCount;
  g->range.iLo = 0;
  g->range.iHi = nRecord;
  if( b->bTs && g->pStore->TimestampOffset!=TRACE_NO_COLUMN ){
    int bSorted = (snap.Flags & TRACE_SLOT_SORTED)!=0;
    g->range.iFrom = b->iFrom;
    g->range.iTo = b->iTo;
    if( bSorted || b->iFrom>=b->iTo ){
      TsdIndex none;
      memset(&none, 0, sizeof(none));
      tsdNarrowTs(g->pStore, nRecord, 1, &none, b->iFrom, b->iTo, &g->range);
    }else if( snap.FirstTs>=b->iTo || snap.LastTs<b->iFrom ){
      g->range.iHi = g->range.iLo;          /* outside the snapshot */
    }else if( tsdIndexFor(g->pStore, nRecord, &g->range, &g->aBlock) ){
      duckdb_init_set_error(info, "tracestore_scan: out of memory");
      return;
    }
  }
  g->nMorsel = (g->range.iHi - g->range.iLo + TSD_MORSEL - 1)/TSD_MORSEL;
  g->nProj = duckdb_init_get_column_count(info);
  g->aProj = calloc(g->nProj + 1, sizeof(idx_t));
  if( g->aProj==0 ){
    duckdb_init_set_error(info, "tracestore_scan: out of memory");
    return;
  }
  for(i=0; i<g->nProj; i++){
    idx_t c = duckdb_init_get_column_index(info, i);
    g->aProj[i] = c<=b->nCol ? c : 0;       /* row id: the id */
  }
  duckdb_init_set_max_threads(info, g->nMorsel ? (idx_t)g->nMorsel : 1);
}

static void tsdLocalInit(duckdb_init_info info){
  TsdLocal *l = calloc(1, sizeof(TsdLocal));
  if( l==0 ){
    duckdb_init_set_error(info, "tracestore_scan: out of memory");
    return;
  }
  tsdStringCacheReset(&l->strings);
  duckdb_init_set_init_data(info, l, free);
}

/* Fills output vector v with column pCol (0: the id) of aRow[0..n). */
static int tsdFillVector(duckdb_function_info info, TsdGlobal *g, TsdLocal *l,
                         duckdb_vector v, PCTRACE_COLUMN_DESCRIPTOR pCol,
                         uint32_t n){
  void *pData = duckdb_vector_get_data(v);
  uint32_t k, nNull;
  char zMsg[1400];

  if( pCol==0 ){
    int64_t *a = (int64_t*)pData;
    for(k=0; k<n; k++) a[k] = (int64_t)l->aRow[k];
    return 0;
  }
  if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
    uint32_t iBad = 0;
    int rc = tsdReadStrings(g->pSession, g->pStore, pCol, l->aRow, n,
                            (TsdString*)pData, l->aValid, &l->strings, &iBad);
    if( rc<0 ){
      int64_t iId;
      uint32_t id32;
      memcpy(&id32, g->pStore->Base + l->aRow[iBad]*g->pStore->RecordSize
                    + pCol->Offset, sizeof(id32));
      iId = id32;
      tsdBadStringMessage(g->pStore, pCol, l->aRow[iBad], iId, zMsg,
                          sizeof(zMsg));
      duckdb_function_set_error(info, zMsg);
      return -1;
    }
    nNull = (uint32_t)rc;
    /* A string longer than 12 bytes is copied into the vector's heap: a
    ** client may hold a vector after the query ends, and the bind data
    ** with the session's mapping is gone then. */
    for(k=0; k<n; k++){
      TsdString *pStr = &((TsdString*)pData)[k];
      if( pStr->pointer.n>sizeof(pStr->inlined.a) ){
        duckdb_vector_assign_string_element_len(v, k, pStr->pointer.p,
                                                pStr->pointer.n);
      }
    }
  }else if( pCol->Type==TraceColumnDouble ){
    nNull = tsdReadColumn(g->pStore, pCol, l->aRow, n, 0, (double*)pData,
                          l->aValid);
  }else{
    nNull = tsdReadColumn(g->pStore, pCol, l->aRow, n, (int64_t*)pData, 0,
                          l->aValid);
  }
  if( nNull ){
    duckdb_vector_ensure_validity_writable(v);
    memcpy(duckdb_vector_get_validity(v), l->aValid,
           sizeof(uint64_t)*((n + 63)/64));
  }
  return 0;
}

/* The next batch: up to a vector's worth of the morsel, claiming the next
** morsel when this one is done. */
static void tsdScan(duckdb_function_info info, duckdb_data_chunk out){
  TsdBind *b = duckdb_function_get_bind_data(info);
  TsdGlobal *g = duckdb_function_get_init_data(info);
  TsdLocal *l = duckdb_function_get_local_init_data(info);
  uint32_t nMax = (uint32_t)duckdb_vector_size(), n = 0;
  idx_t p;

  if( nMax>TSD_VECTOR_MAX ) nMax = TSD_VECTOR_MAX;
  for(;;){
    if( l->iNext>=l->iEnd ){
      uint64_t m = __atomic_fetch_add(&g->iNextMorsel, 1, __ATOMIC_RELAXED);
      if( m>=g->nMorsel ) break;
      l->iNext = g->range.iLo + m*TSD_MORSEL;
      l->iEnd = l->iNext + TSD_MORSEL;
      if( l->iEnd>g->range.iHi ) l->iEnd = g->range.iHi;
    }
    n = tsdNextRows(g->pStore, &g->range, &l->iNext, l->iEnd, l->aRow, nMax);
    if( n ) break;
  }
  for(p=0; p<g->nProj; p++){
    idx_t c = g->aProj[p];
    if( tsdFillVector(info, g, l, duckdb_data_chunk_get_vector(out, p),
                      c ? &b->aCol[c-1] : 0, n) ){
      return;
    }
  }
  if( storeGuardFaults()!=g->nFault ){
    const char *zFile = tsdDamagedFile(g);
    if( zFile ){
      char zMsg[1400];
      snprintf(zMsg, sizeof(zMsg), "%s: the file was cut while the query "
               "read it (it is shorter than its committed records); "
               "query it again", zFile);
      duckdb_function_set_error(info, zMsg);
      return;
    }
  }
  duckdb_data_chunk_set_size(out, n);
}

int tsdRegisterScan(duckdb_connection con){
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_state rc;
  duckdb_table_function_set_name(f, "tracestore_scan");
  duckdb_table_function_add_parameter(f, t);
  duckdb_table_function_add_parameter(f, t);
  duckdb_destroy_logical_type(&t);
  t = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
  duckdb_table_function_add_named_parameter(f, "from_ts", t);
  duckdb_table_function_add_named_parameter(f, "to_ts", t);
  duckdb_destroy_logical_type(&t);
  t = duckdb_create_logical_type(DUCKDB_TYPE_BOOLEAN);
  duckdb_table_function_add_named_parameter(f, "missing_ok", t);
  duckdb_destroy_logical_type(&t);
  duckdb_table_function_set_bind(f, tsdBind);
  duckdb_table_function_set_init(f, tsdInit);
  duckdb_table_function_set_local_init(f, tsdLocalInit);
  duckdb_table_function_set_function(f, tsdScan);
  duckdb_table_function_supports_projection_pushdown(f, true);
  rc = duckdb_register_table_function(con, f);
  duckdb_destroy_table_function(&f);
  return rc==DuckDBError ? -1 : 0;
}
