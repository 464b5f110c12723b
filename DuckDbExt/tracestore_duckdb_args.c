/*
** tracestore_duckdb_args.c: tracestore_event_args(), the fields of every
** ftrace_event row's text, as the SQLite extension's `args` view shows
** them (Perfetto's args table).
**
** Zone: hosted (the DuckDB extension): libc and DuckDB's C extension API;
** reads sessions only through TraceStore/TraceStore.h; the parser of
** Kernel/EventFields.h; included by nothing.
** Owns: the table function and the values of its columns.
** Calls: Kernel/EventFields.c, tracestore_duckdb_sessions.c.  Called by
** DuckDB; registered by tracestore_duckdb.c (tsdRegisterArgs); the `args`
** view macro of tracestore_duckdb_views.c reads it.
**
**   tracestore_event_args(SESSION)
**
** One row per field of each ftrace_event row's `args` text, in id order:
** arg_set_id (the row's id), key, int_value (the value if it is an
** integer), string_value (else: the value, a quoted one without its quotes
** and the backslashes before quotes), value_type ('int' or 'string'),
** display_value (the value as printed).  The SQLite extension's view is
** `ftrace_event, tracestore_args(args)`: DuckDB's C API has no table
** function that takes a column of another table, so this one reads the
** store itself.  One snapshot per execution; one thread.
*/
#include <duckdb_extension.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracestore_duckdb_int.h"
#include "Kernel/EventFields.h"

DUCKDB_EXTENSION_EXTERN

typedef struct TsdArgsBind {
  char zPath[TRACE_PATH_SIZE];
} TsdArgsBind;

typedef struct TsdArgsState {
  TsdSession *pShared;          /* Private: this execution's */
  PTRACE_STORE pStore;          /* ftrace_event, or 0 */
  PCTRACE_COLUMN_DESCRIPTOR pArgs;
  ULONGLONG nRecord, iRecord;   /* The snapshot; the row being read */
  int bInRow;                   /* fields holds row iRecord's text */
  EVENT_FIELDS fields;
  LONG *aScratch;
  LONG nScratch;                /* LONGs in aScratch */
} TsdArgsState;

static void tsdArgsStateFree(void *p){
  TsdArgsState *s = (TsdArgsState*)p;
  if( s==0 ) return;
  tsdSessionRelease(s->pShared);
  free(s->aScratch);
  free(s);
}

static void tsdArgsBind(duckdb_bind_info info){
  static const char *const azCol[] = { "arg_set_id", "key", "int_value",
    "string_value", "value_type", "display_value" };
  static const char azType[] = "IVIVVV";
  duckdb_value v = duckdb_bind_get_parameter(info, 0);
  char *zPath = duckdb_get_varchar(v);
  TsdArgsBind *b = calloc(1, sizeof(TsdArgsBind));
  int i;
  duckdb_destroy_value(&v);
  if( b==0 || zPath==0 || strlen(zPath)>=sizeof(b->zPath) ){
    duckdb_bind_set_error(info, b && zPath ? "tracestore_event_args: the "
                          "path is too long" : "tracestore_event_args: out "
                          "of memory");
    free(b);
    duckdb_free(zPath);
    return;
  }
  memcpy(b->zPath, zPath, strlen(zPath) + 1);
  duckdb_free(zPath);
  for(i=0; i<6; i++){
    duckdb_logical_type t = duckdb_create_logical_type(
        azType[i]=='I' ? DUCKDB_TYPE_BIGINT : DUCKDB_TYPE_VARCHAR);
    duckdb_bind_add_result_column(info, azCol[i], t);
    duckdb_destroy_logical_type(&t);
  }
  duckdb_bind_set_bind_data(info, b, free);
}

static void tsdArgsInit(duckdb_init_info info){
  TsdArgsBind *b = duckdb_init_get_bind_data(info);
  TsdArgsState *s = calloc(1, sizeof(TsdArgsState));
  TRACE_STORE_SNAPSHOT snap;
  RTL_ERROR err;

  memset(&err, 0, sizeof(err));
  if( s==0 ){
    duckdb_init_set_error(info, "tracestore_event_args: out of memory");
    return;
  }
  duckdb_init_set_init_data(info, s, tsdArgsStateFree);
  duckdb_init_set_max_threads(info, 1);
  s->pShared = tsdSessionOpen(b->zPath, 1, &err);
  if( s->pShared==0 ){
    duckdb_init_set_error(info, err.Message);
    return;
  }
  s->pStore = TraceSessionFindStore(s->pShared->pSession, "ftrace_event");
  if( s->pStore==0 ) return;
  s->pArgs = TraceStoreFindColumn(s->pStore->Header, "args");
  if( s->pArgs==0 || (s->pArgs->Flags & TRACE_COLUMN_STRING_ID)==0 ){
    s->pStore = 0;                          /* another layout: no fields */
    return;
  }
  if( !RTL_SUCCESS(TraceStoreTakeSnapshot(s->pStore, &snap, &err))
   || !RTL_SUCCESS(TraceStringRefresh(&s->pShared->pSession->Strings,
                                      &err)) ){
    duckdb_init_set_error(info, err.Message);
    return;
  }
  s->nRecord = snap.RecordCount;
}

/* Starts row iRecord's fields; 0 (no text: none), 1, or -1 with zErr. */
static int tsdArgsStartRow(TsdArgsState *s, char *zErr, int nErr){
  LONGLONG id;
  PCSZ z;
  ULONG n;
  if( !TraceStoreReadColumn(s->pStore, s->iRecord, s->pArgs, &id)
   || (ULONGLONG)id==TRACE_STRING_NULL ){
    return 0;
  }
  if( (ULONGLONG)id>TRACE_STRING_NULL
   || !RTL_SUCCESS(TraceStringLookup(&s->pShared->pSession->Strings,
                                     (ULONG)id, &z, &n)) ){
    snprintf(zErr, (size_t)nErr, "%s: byte offset %llu: row %llu holds "
             "string id %llu, which the session's string store lacks "
             "(corrupt)", s->pStore->Path,
             (unsigned long long)TRACE_STORE_HEADER_SIZE
             + (unsigned long long)s->iRecord*s->pStore->RecordSize
             + s->pArgs->Offset, (unsigned long long)s->iRecord,
             (unsigned long long)id);
    return -1;
  }
  if( (LONG)n*2>s->nScratch ){
    LONG *aNew = realloc(s->aScratch, sizeof(LONG)*2*(size_t)(n + 1));
    if( aNew==0 ){
      snprintf(zErr, (size_t)nErr, "tracestore_event_args: out of memory");
      return -1;
    }
    s->aScratch = aNew;
    s->nScratch = 2*(LONG)(n + 1);
  }
  EventFieldsStart(&s->fields, z, (LONG)n, s->aScratch);
  return 1;
}

/* string_value of a quoted value: without its quotes and the backslashes
** before a quote or a backslash, into v's row k. */
static void tsdUnquote(duckdb_vector v, idx_t k, const EVENT_FIELD *f){
  char q = f->Value[0];
  LONG n = f->ValueLength - 2, i, j = 0;
  char *z = malloc((size_t)n + 1);
  if( z==0 ) return;
  for(i=0; i<n; i++){
    char c = f->Value[1 + i];
    if( c=='\\' && i + 1<n && (f->Value[2 + i]==q || f->Value[2 + i]=='\\') ){
      c = f->Value[2 + i];
      i++;
    }
    z[j++] = c;
  }
  duckdb_vector_assign_string_element_len(v, k, z, (idx_t)j);
  free(z);
}

static void tsdArgsScan(duckdb_function_info info, duckdb_data_chunk out){
  TsdArgsState *s = duckdb_function_get_init_data(info);
  duckdb_vector a[6];
  idx_t n = 0, nMax = duckdb_vector_size();
  char zErr[TRACE_PATH_SIZE + 300];
  int i;

  for(i=0; i<6; i++) a[i] = duckdb_data_chunk_get_vector(out, i);
  while( s->pStore && n<nMax && s->iRecord<s->nRecord ){
    EVENT_FIELD f;
    LONGLONG value;
    int bInt;
    if( !s->bInRow ){
      int rc = tsdArgsStartRow(s, zErr, sizeof(zErr));
      if( rc<0 ){
        duckdb_function_set_error(info, zErr);
        return;
      }
      if( rc==0 ){
        s->iRecord++;
        continue;
      }
      s->bInRow = 1;
    }
    if( !EventFieldsNext(&s->fields, &f) ){
      s->bInRow = 0;
      s->iRecord++;
      continue;
    }
    bInt = !f.Quoted && EventFieldInteger(f.Value, f.ValueLength, &value);
    ((int64_t*)duckdb_vector_get_data(a[0]))[n] = (int64_t)s->iRecord;
    duckdb_vector_assign_string_element_len(a[1], n, f.Key,
                                            (idx_t)f.KeyLength);
    duckdb_vector_ensure_validity_writable(a[bInt ? 3 : 2]);
    duckdb_validity_set_row_invalid(
        duckdb_vector_get_validity(a[bInt ? 3 : 2]), n);
    if( bInt ){
      ((int64_t*)duckdb_vector_get_data(a[2]))[n] = value;
    }else if( f.Quoted ){
      tsdUnquote(a[3], n, &f);
    }else{
      duckdb_vector_assign_string_element_len(a[3], n, f.Value,
                                              (idx_t)f.ValueLength);
    }
    duckdb_vector_assign_string_element(a[4], n, bInt ? "int" : "string");
    duckdb_vector_assign_string_element_len(a[5], n, f.Value,
                                            (idx_t)f.ValueLength);
    n++;
  }
  duckdb_data_chunk_set_size(out, n);
}

int tsdRegisterArgs(duckdb_connection con){
  duckdb_table_function f = duckdb_create_table_function();
  duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_state rc;
  duckdb_table_function_set_name(f, "tracestore_event_args");
  duckdb_table_function_add_parameter(f, t);
  duckdb_destroy_logical_type(&t);
  duckdb_table_function_set_bind(f, tsdArgsBind);
  duckdb_table_function_set_init(f, tsdArgsInit);
  duckdb_table_function_set_function(f, tsdArgsScan);
  rc = duckdb_register_table_function(con, f);
  duckdb_destroy_table_function(&f);
  return rc==DuckDBError ? -1 : 0;
}
