/*
** tracestore_duckdb_rollup.c: tracestore_rollup(), the answers the stores'
** rollups keep (TraceStore/TraceRollup.h), as DuckDB tables.
**
** Zone: hosted (the DuckDB extension): libc and DuckDB's C extension API;
** reads sessions only through the store and rollup APIs of TraceStore/;
** included by nothing.
** Owns: the rollup table function: its questions, their columns, and how
** each value follows the SQL of the view it stands in for.
** Calls: TraceStore/ (TraceRollupRead), tracestore_duckdb_sessions.c,
** Guard/StoreGuard.c.  Called by DuckDB; registered by tracestore_duckdb.c
** (tsdRegisterRollup, tracestore_duckdb_int.h); the view macros of
** tracestore_duckdb_views.c read it.
**
**   tracestore_rollup(SESSION, QUESTION)
**
** QUESTION is span, span_open, page_fault, kvm_exit, syscall, line,
** event_count or event_rate, with the columns of the SQLite extension's
** rollup tables of the same names (Sqlite3Ext/tracestore_rollup.c,
** docs/schema.md), and `records` last: the records of the row's store
** that the answer covers.
** The types are DuckDB's: syscall's `k` is VARCHAR (the number of a raw
** sys_enter as text, else the name after "sys_enter_"), `raw` BOOLEAN,
** span's `self_dur` HUGEINT (a difference of sums, as the view's SQL
** computes it).
**
** How it works:
**
**   Each execution opens the session afresh and reads the answer of the
**   question's store (every event store for event_count and event_rate)
**   as of a snapshot taken then: the store's published rollup and the
**   records committed after it, or every record if the rollup file cannot
**   be trusted (TraceRollupRead).  That costs O(groups) plus the records
**   past the publication.  The rows are handed out on one thread.  A sum
**   that left the int64 range is the error "integer overflow", as sum()
**   raises it in SQLite.
*/
#include <duckdb_extension.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracestore_duckdb_int.h"
#include "Guard/StoreGuard.h"
#include "TraceStore/TraceRollup.h"
#include "TraceStore/TraceSchema.h"

DUCKDB_EXTENSION_EXTERN

#define Q_SPAN         0
#define Q_SPAN_OPEN    1
#define Q_PAGE_FAULT   2
#define Q_KVM_EXIT     3
#define Q_SYSCALL      4
#define Q_EVENT_COUNT  5
#define Q_EVENT_RATE   6
#define Q_LINE         7

/* Column types: V VARCHAR, I BIGINT, H HUGEINT, D DOUBLE, B BOOLEAN. */
typedef struct TsdQuestion {
  const char *zName;
  const char *zStore;           /* 0: every event store */
  TRACE_ROLLUP_TABLE_ID eTable;
  SIZE_T nRowSize;
  const char *zTypes;           /* One letter a column */
  const char *azCol[20];
} TsdQuestion;

static const TsdQuestion aQuestion[] = {
  { "span", "span", TraceRollupSpans, sizeof(TRACE_ROLLUP_SPAN_ROW),
    "VIIHDIII", { "name", "calls", "total_dur", "self_dur", "avg_dur",
                  "max_dur", "min_depth", "max_depth" } },
  { "span_open", "span", TraceRollupSpanOpen, sizeof(ULONGLONG),
    "I", { "id" } },
  { "page_fault", "page_fault", TraceRollupFaults,
    sizeof(TRACE_ROLLUP_FAULT_ROW), "IVVIIIIIIIIIIIIII",
    { "pid", "comm", "module", "faults", "code", "data", "reads", "writes",
      "execs", "unknown_access", "hard", "soft", "unclassified",
      "hard_code", "hard_data", "soft_code", "soft_data" } },
  { "kvm_exit", "kvm_exit", TraceRollupKvm, sizeof(TRACE_ROLLUP_KVM_ROW),
    "VIIIIDIIIII", { "reason", "exit_code", "count", "unpaired",
                     "total_dur", "avg_dur", "min_dur", "max_dur",
                     "p50_dur", "p90_dur", "p99_dur" } },
  { "syscall", "ftrace_event", TraceRollupSyscalls,
    sizeof(TRACE_ROLLUP_SYSCALL_ROW), "BVI", { "raw", "k", "n" } },
  { "event_count", 0, TraceRollupNames, sizeof(TRACE_ROLLUP_NAME_ROW),
    "VVI", { "store", "name", "count" } },
  { "event_rate", 0, TraceRollupRates, sizeof(TRACE_ROLLUP_RATE_ROW),
    "VVIII", { "store", "name", "ts", "dur", "count" } },
  { "line", "line", TraceRollupLines, sizeof(TRACE_ROLLUP_LINE_ROW),
    "VVIIII", { "name", "file", "lineno", "hits", "total_dur", "self_dur" } },
};

#define TSD_N_QUESTION ((int)(sizeof(aQuestion)/sizeof(aQuestion[0])))

typedef union TsdRollupRow {
  TRACE_ROLLUP_SPAN_ROW span;
  ULONGLONG id;
  TRACE_ROLLUP_FAULT_ROW fault;
  TRACE_ROLLUP_KVM_ROW kvm;
  TRACE_ROLLUP_SYSCALL_ROW syscall;
  TRACE_ROLLUP_NAME_ROW name;
  TRACE_ROLLUP_RATE_ROW rate;
  TRACE_ROLLUP_LINE_ROW line;
} TsdRollupRow;

typedef struct TsdRollupBind {
  char zPath[TRACE_PATH_SIZE];
  int iQuestion;
  int nCol;                     /* The question's, then `records` */
} TsdRollupBind;

/* One execution's answer: the rows of nStore stores, handed out in order
** (iStore, iRow). */
typedef struct TsdRollupState {
  TsdSession *pShared;          /* Private: this execution's */
  int nStore, iStore;
  ULONGLONG iRow;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES];
  PTRACE_ROLLUP apRollup[TRACE_SESSION_MAX_STORES];
  ULONGLONG anRecord[TRACE_SESSION_MAX_STORES];
} TsdRollupState;

static void tsdRollupStateFree(void *p){
  TsdRollupState *s = (TsdRollupState*)p;
  int i;
  if( s==0 ) return;
  for(i=0; i<s->nStore; i++) TraceRollupFree(s->apRollup[i]);
  tsdSessionRelease(s->pShared);
  free(s);
}

static void tsdRollupBind(duckdb_bind_info info){
  duckdb_value v0 = duckdb_bind_get_parameter(info, 0);
  duckdb_value v1 = duckdb_bind_get_parameter(info, 1);
  char *zPath = duckdb_get_varchar(v0);
  char *zQuestion = duckdb_get_varchar(v1);
  TsdRollupBind *b = calloc(1, sizeof(TsdRollupBind));
  char zMsg[TRACE_PATH_SIZE + 200];
  int i;

  duckdb_destroy_value(&v0);
  duckdb_destroy_value(&v1);
  if( b==0 || zPath==0 || zQuestion==0 ){
    duckdb_bind_set_error(info, "tracestore_rollup: out of memory");
    goto done;
  }
  b->iQuestion = -1;
  for(i=0; i<TSD_N_QUESTION; i++){
    if( strcmp(aQuestion[i].zName, zQuestion)==0 ) b->iQuestion = i;
  }
  if( b->iQuestion<0 ){
    duckdb_bind_set_error(info, "tracestore_rollup: QUESTION is span, "
                          "span_open, page_fault, kvm_exit, syscall, line, "
                          "event_count or event_rate");
    goto done;
  }
  if( strlen(zPath)>=sizeof(b->zPath) ){
    snprintf(zMsg, sizeof(zMsg), "tracestore_rollup: the path is too long");
    duckdb_bind_set_error(info, zMsg);
    goto done;
  }
  memcpy(b->zPath, zPath, strlen(zPath) + 1);
  {
    const TsdQuestion *q = &aQuestion[b->iQuestion];
    b->nCol = (int)strlen(q->zTypes);
    for(i=0; i<=b->nCol; i++){
      char c = i<b->nCol ? q->zTypes[i] : 'I';
      duckdb_logical_type t = duckdb_create_logical_type(
          c=='V' ? DUCKDB_TYPE_VARCHAR : c=='D' ? DUCKDB_TYPE_DOUBLE
        : c=='B' ? DUCKDB_TYPE_BOOLEAN : c=='H' ? DUCKDB_TYPE_HUGEINT
        : DUCKDB_TYPE_BIGINT);
      duckdb_bind_add_result_column(info, i<b->nCol ? q->azCol[i]
                                                    : "records", t);
      duckdb_destroy_logical_type(&t);
    }
  }
  duckdb_bind_set_bind_data(info, b, free);
  b = 0;
done:
  free(b);
  duckdb_free(zPath);
  duckdb_free(zQuestion);
}

/* Reads the answers: one per store the question asks. */
static void tsdRollupInit(duckdb_init_info info){
  TsdRollupBind *b = duckdb_init_get_bind_data(info);
  const TsdQuestion *q = &aQuestion[b->iQuestion];
  TsdRollupState *s = calloc(1, sizeof(TsdRollupState));
  PTRACE_SESSION pSession;
  RTL_ERROR err;
  unsigned int nFault = storeGuardFaults();
  int k;

  memset(&err, 0, sizeof(err));
  if( s==0 ){
    duckdb_init_set_error(info, "tracestore_rollup: out of memory");
    return;
  }
  duckdb_init_set_init_data(info, s, tsdRollupStateFree);
  duckdb_init_set_max_threads(info, 1);
  s->pShared = tsdSessionOpen(b->zPath, 1, &err);
  if( s->pShared==0 ){
    duckdb_init_set_error(info, err.Message);
    return;
  }
  pSession = s->pShared->pSession;
  for(k=0; k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    TRACE_ROLLUP_STATUS status;
    PTRACE_STORE pStore;
    if( q->zStore ){
      if( strcmp(q->zStore, pType->Schema->Name)!=0 ) continue;
    }else if( (pType->Flags & TRACE_RECORD_EVENT)==0 ){
      continue;
    }
    pStore = TraceSessionFindStore(pSession, pType->Schema->Name);
    if( pStore==0 ) continue;
    if( !RTL_SUCCESS(TraceRollupRead(pSession->Rtl, pSession, pStore,
                                     &s->apRollup[s->nStore], &status,
                                     &err)) ){
      duckdb_init_set_error(info, err.Message[0] ? err.Message
                            : "tracestore_rollup: out of memory");
      return;
    }
    s->apStore[s->nStore] = pStore;
    s->anRecord[s->nStore++] = status.Records;
  }
  if( storeGuardFaults()!=nFault ){
    duckdb_init_set_error(info, "tracestore_rollup: a file of the session "
                          "was cut while the answer was read; query it "
                          "again");
  }
}

/* True if pStore's kind has no name column (event_count and event_rate
** then name its rows after the store, as the event view does). */
static int tsdNamedByStore(PTRACE_STORE pStore){
  int k;
  for(k=0; k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    if( strcmp(pType->Schema->Name, pStore->Name)==0 ){
      return pType->EventView.Name==0;
    }
  }
  return 0;
}

/* Rows of store i: event_count shows a store without a name column as one
** row (its record count) when it has records. */
static ULONGLONG tsdRollupRows(const TsdRollupBind *b, TsdRollupState *s,
                               int i){
  if( b->iQuestion==Q_EVENT_COUNT && tsdNamedByStore(s->apStore[i]) ){
    return s->anRecord[i]>0 ? 1 : 0;
  }
  return TraceRollupRowCount(s->apRollup[i], aQuestion[b->iQuestion].eTable);
}

/* Output value helpers: k is the row in the chunk. */
static void tsdSetNull(duckdb_vector v, idx_t k){
  duckdb_vector_ensure_validity_writable(v);
  duckdb_validity_set_row_invalid(duckdb_vector_get_validity(v), k);
}

static void tsdSetInt(duckdb_vector v, idx_t k, int64_t x){
  ((int64_t*)duckdb_vector_get_data(v))[k] = x;
}

static void tsdSetDouble(duckdb_vector v, idx_t k, double x){
  ((double*)duckdb_vector_get_data(v))[k] = x;
}

/* String id's text, skipping nSkip bytes; NULL for TRACE_STRING_NULL.
** -1 if the id cannot be read (the strings changed underneath). */
static int tsdSetText(duckdb_vector v, idx_t k, PTRACE_SESSION pSession,
                      ULONG id, ULONG nSkip){
  PCSZ z;
  ULONG n;
  if( id==TRACE_STRING_NULL ){
    tsdSetNull(v, k);
    return 0;
  }
  if( !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, id, &z, &n)) ){
    return -1;
  }
  if( nSkip>n ) nSkip = n;
  duckdb_vector_assign_string_element_len(v, k, z + nSkip, n - nSkip);
  return 0;
}

/* The current row's values into the chunk's row k; 0, or -1 with zErr. */
static int tsdRollupEmit(const TsdRollupBind *b, TsdRollupState *s,
                         const TsdRollupRow *p, duckdb_data_chunk out,
                         idx_t k, char *zErr, int nErr){
  PTRACE_SESSION pSession = s->pShared->pSession;
  PTRACE_STORE pStore = s->apStore[s->iStore];
  duckdb_vector a[20];
  int i, rc = 0;

  for(i=0; i<=b->nCol; i++) a[i] = duckdb_data_chunk_get_vector(out, i);
  tsdSetInt(a[b->nCol], k, (int64_t)s->anRecord[s->iStore]);
  switch( b->iQuestion ){
    case Q_SPAN: {
      const TRACE_ROLLUP_SPAN_ROW *r = &p->span;
      duckdb_hugeint self;
      __int128 d = (__int128)r->AllDur - r->ChildDur;
      if( r->Flags & TRACE_ROLLUP_ROW_OVERFLOW ){
        snprintf(zErr, (size_t)nErr, "integer overflow");
        return -1;
      }
      self.lower = (uint64_t)d;
      self.upper = (int64_t)(d >> 64);
      rc = tsdSetText(a[0], k, pSession, r->NameId, 0);
      tsdSetInt(a[1], k, (int64_t)r->Calls);
      if( r->HasTotal ) tsdSetInt(a[2], k, r->TotalDur);
      else tsdSetNull(a[2], k);
      ((duckdb_hugeint*)duckdb_vector_get_data(a[3]))[k] = self;
      tsdSetDouble(a[4], k, (double)r->AllDur/(double)r->Calls);
      tsdSetInt(a[5], k, r->MaxDur);
      tsdSetInt(a[6], k, r->MinDepth);
      tsdSetInt(a[7], k, r->MaxDepth);
      break;
    }
    case Q_SPAN_OPEN:
      tsdSetInt(a[0], k, (int64_t)p->id);
      break;
    case Q_PAGE_FAULT: {
      const TRACE_ROLLUP_FAULT_ROW *r = &p->fault;
      if( r->Pid!=TRACE_NULL_ULONG ) tsdSetInt(a[0], k, r->Pid);
      else tsdSetNull(a[0], k);
      rc = tsdSetText(a[1], k, pSession, r->CommId, 0);
      if( rc==0 ) rc = tsdSetText(a[2], k, pSession, r->ModuleId, 0);
      for(i=0; i<TraceFaultCountMaximum; i++){
        tsdSetInt(a[3 + i], k, (int64_t)r->Counts[i]);
      }
      break;
    }
    case Q_KVM_EXIT: {
      const TRACE_ROLLUP_KVM_ROW *r = &p->kvm;
      if( r->Flags & TRACE_ROLLUP_ROW_OVERFLOW ){
        snprintf(zErr, (size_t)nErr, "integer overflow");
        return -1;
      }
      rc = tsdSetText(a[0], k, pSession, r->ReasonId, 0);
      if( r->ExitCode!=TRACE_NULL_ULONG ) tsdSetInt(a[1], k, r->ExitCode);
      else tsdSetNull(a[1], k);
      tsdSetInt(a[2], k, (int64_t)r->Count);
      tsdSetInt(a[3], k, (int64_t)(r->Count - r->Paired));
      if( r->Paired>0 ){
        tsdSetInt(a[4], k, r->SumDur);
        tsdSetDouble(a[5], k, (double)r->SumDur/(double)r->Paired);
        tsdSetInt(a[6], k, r->MinDur);
        tsdSetInt(a[7], k, r->MaxDur);
      }else{
        for(i=4; i<=7; i++) tsdSetNull(a[i], k);
      }
      if( r->HasPercentiles ){
        tsdSetInt(a[8], k, r->P50Dur);
        tsdSetInt(a[9], k, r->P90Dur);
        tsdSetInt(a[10], k, r->P99Dur);
      }else{
        for(i=8; i<=10; i++) tsdSetNull(a[i], k);
      }
      break;
    }
    case Q_LINE: {
      const TRACE_ROLLUP_LINE_ROW *r = &p->line;
      if( r->Flags & TRACE_ROLLUP_ROW_OVERFLOW ){
        snprintf(zErr, (size_t)nErr, "integer overflow");
        return -1;
      }
      rc = tsdSetText(a[0], k, pSession, r->NameId, 0);
      if( rc==0 ) rc = tsdSetText(a[1], k, pSession, r->FileId, 0);
      tsdSetInt(a[2], k, r->LineNo);
      tsdSetInt(a[3], k, (int64_t)r->Hits);
      tsdSetInt(a[4], k, r->TotalDur);
      tsdSetInt(a[5], k, r->SelfDur);
      break;
    }
    case Q_SYSCALL: {
      const TRACE_ROLLUP_SYSCALL_ROW *r = &p->syscall;
      ((bool*)duckdb_vector_get_data(a[0]))[k] = r->Raw ? true : false;
      if( r->Raw ){
        char zNr[32];
        snprintf(zNr, sizeof(zNr), "%lld", (long long)r->Nr);
        duckdb_vector_assign_string_element(a[1], k, zNr);
      }else{
        rc = tsdSetText(a[1], k, pSession, r->NameId, 10);
      }
      tsdSetInt(a[2], k, (int64_t)r->Count);
      break;
    }
    case Q_EVENT_COUNT:
    case Q_EVENT_RATE: {
      int bByStore = tsdNamedByStore(pStore);
      duckdb_vector_assign_string_element(a[0], k, pStore->Name);
      if( b->iQuestion==Q_EVENT_COUNT ){
        int bNoNames = TraceRollupRowCount(s->apRollup[s->iStore],
                                           TraceRollupNames)==0;
        if( bByStore ) duckdb_vector_assign_string_element(a[1], k,
                                                           pStore->Name);
        else rc = tsdSetText(a[1], k, pSession, bNoNames ?
                             TRACE_STRING_NULL : p->name.NameId, 0);
        tsdSetInt(a[2], k, bNoNames ? (int64_t)s->anRecord[s->iStore]
                                    : (int64_t)p->name.Count);
      }else{
        if( strcmp(pStore->Name, "span")==0 ) tsdSetNull(a[1], k);
        else if( bByStore ) duckdb_vector_assign_string_element(
                                a[1], k, pStore->Name);
        else rc = tsdSetText(a[1], k, pSession, p->rate.NameId, 0);
        tsdSetInt(a[2], k, p->rate.Start);
        tsdSetInt(a[3], k, p->rate.Width);
        tsdSetInt(a[4], k, (int64_t)p->rate.Count);
      }
      break;
    }
  }
  if( rc ){
    snprintf(zErr, (size_t)nErr, "%s: a string id of the answer cannot be "
             "read (the string stores changed underneath)",
             pSession->Strings.Index.Path);
  }
  return rc;
}

static void tsdRollupScan(duckdb_function_info info, duckdb_data_chunk out){
  TsdRollupBind *b = duckdb_function_get_bind_data(info);
  TsdRollupState *s = duckdb_function_get_init_data(info);
  const TsdQuestion *q = &aQuestion[b->iQuestion];
  idx_t n = 0, nMax = duckdb_vector_size();
  char zErr[TRACE_PATH_SIZE + 200];

  while( n<nMax && s->iStore<s->nStore ){
    TsdRollupRow row;
    if( s->iRow>=tsdRollupRows(b, s, s->iStore) ){
      s->iStore++;
      s->iRow = 0;
      continue;
    }
    memset(&row, 0, sizeof(row));
    TraceRollupGetRow(s->apRollup[s->iStore], q->eTable, s->iRow, &row,
                      q->nRowSize);
    if( tsdRollupEmit(b, s, &row, out, n, zErr, sizeof(zErr)) ){
      duckdb_function_set_error(info, zErr);
      return;
    }
    s->iRow++;
    n++;
  }
  duckdb_data_chunk_set_size(out, n);
}

int tsdRegisterRollup(duckdb_connection con){
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_state rc;
  duckdb_table_function_set_name(f, "tracestore_rollup");
  duckdb_table_function_add_parameter(f, t);
  duckdb_table_function_add_parameter(f, t);
  duckdb_destroy_logical_type(&t);
  duckdb_table_function_set_bind(f, tsdRollupBind);
  duckdb_table_function_set_init(f, tsdRollupInit);
  duckdb_table_function_set_function(f, tsdRollupScan);
  rc = duckdb_register_table_function(con, f);
  duckdb_destroy_table_function(&f);
  return rc==DuckDBError ? -1 : 0;
}

/* True if every store of pSession that keeps a rollup has this version's
** layout, so its rollups answer (TraceRollupRead keeps none for another
** layout). */
int tsdRollupsApply(PTRACE_SESSION pSession){
  int k;
  for(k=0; k<TraceRecordKindMaximum; k++){
    PCTRACE_RECORD_TYPE pType = &TraceRecordTypes[k];
    PTRACE_STORE pStore;
    if( (pType->Flags & (TRACE_RECORD_EVENT|TRACE_RECORD_ROLLUP))==0 ){
      continue;
    }
    pStore = TraceSessionFindStore(pSession, pType->Schema->Name);
    if( pStore && !TraceStoreSchemaMatches(pStore->Header, pType->Schema) ){
      return 0;
    }
  }
  return 1;
}
