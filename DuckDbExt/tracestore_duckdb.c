/*
** tracestore_duckdb.c: the DuckDB extension (issue 29, first slice).
**
** Zone: hosted (the DuckDB extension): libc and DuckDB's C extension API
** (duckdb_extension.h, the C_STRUCT ABI of C API v1.2.0); reads sessions
** only through the store API of TraceStore/TraceStore.h; included by
** nothing.
**
** What it provides (LOAD 'tracestore.duckdb_extension', with unsigned
** extensions allowed):
**
**   tracestore_scan(SESSION, STORE)   the store's rows as a table: `id`
**       (the record's index) and the store's columns, with the names and
**       values of the SQLite tables (Sqlite3Ext/tracestore.c): integers
**       as BIGINT (a u64 above 2^63 as its two's complement, as SQLite
**       holds it), strings resolved from the string store as VARCHAR,
**       record bytes as BLOB, doubles as DOUBLE, NULL where the store
**       says NULL.  One snapshot of the store per query (the commit
**       protocol's), so a session being written reads consistently.
**
** Not yet (the rest of issue 29): projection push-down, threads, the ts
** block index, the views, several sessions, the guard against files cut
** underneath a query.
*/
#define DUCKDB_EXTENSION_NAME tracestore
#include <duckdb_extension.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceStore.h"

DUCKDB_EXTENSION_EXTERN

static RTL sRtl;
static int sRtlReady;

typedef struct {
  PTRACE_SESSION pSession;
  PTRACE_STORE pStore;
  ULONGLONG nRecord;              /* the snapshot's record count */
  ULONG nCol;
  PCTRACE_COLUMN_DESCRIPTOR aCol;
} ScanBind;

typedef struct {
  ULONGLONG iNext;                /* the next record to hand out */
} ScanState;

static void scanBindFree(void *p){
  ScanBind *b = (ScanBind*)p;
  if( b==0 ) return;
  if( b->pSession ){
    TraceSessionClose(b->pSession);
    free(b->pSession);
  }
  free(b);
}

static duckdb_logical_type scanType(PCTRACE_COLUMN_DESCRIPTOR c){
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

/* tracestore_scan(session, store): opens the session, takes the store's
** snapshot and declares its columns. */
static void scanBind(duckdb_bind_info info){
  duckdb_value vSession = duckdb_bind_get_parameter(info, 0);
  duckdb_value vStore = duckdb_bind_get_parameter(info, 1);
  char *zSession = duckdb_get_varchar(vSession);
  char *zStore = duckdb_get_varchar(vStore);
  ScanBind *b = calloc(1, sizeof(ScanBind));
  RTL_ERROR err;
  char zMsg[1400];
  ULONG i;

  duckdb_destroy_value(&vSession);
  duckdb_destroy_value(&vStore);
  memset(&err, 0, sizeof(err));
  if( b==0 || (b->pSession = calloc(1, sizeof(TRACE_SESSION)))==0 ){
    duckdb_bind_set_error(info, "tracestore_scan: out of memory");
    goto done;
  }
  if( !RTL_SUCCESS(TraceSessionOpenReader(&sRtl, zSession, b->pSession,
                                          &err)) ){
    free(b->pSession);
    b->pSession = 0;
    duckdb_bind_set_error(info, err.Message);
    goto done;
  }
  /* The string stores back the text columns; they are not tables (as in
  ** SQLite). */
  b->pStore = strcmp(zStore, "string")==0 || strcmp(zStore, "string_data")==0
            ? 0 : TraceSessionFindStore(b->pSession, zStore);
  if( b->pStore==0 ){
    snprintf(zMsg, sizeof(zMsg), "tracestore_scan: %s has no store %s",
             zSession, zStore);
    duckdb_bind_set_error(info, zMsg);
    goto done;
  }
  b->nRecord = b->pStore->Snapshot.RecordCount;
  b->nCol = b->pStore->Header->NumberOfColumns;
  b->aCol = b->pStore->Header->Columns;
  {
    duckdb_logical_type t = duckdb_create_logical_type(DUCKDB_TYPE_BIGINT);
    duckdb_bind_add_result_column(info, "id", t);
    duckdb_destroy_logical_type(&t);
  }
  for(i=0; i<b->nCol; i++){
    char zName[TRACE_NAME_SIZE+1];
    duckdb_logical_type t = scanType(&b->aCol[i]);
    memcpy(zName, b->aCol[i].Name, TRACE_NAME_SIZE);
    zName[TRACE_NAME_SIZE] = 0;
    duckdb_bind_add_result_column(info, zName, t);
    duckdb_destroy_logical_type(&t);
  }
  duckdb_bind_set_cardinality(info, (idx_t)b->nRecord, true);
  duckdb_bind_set_bind_data(info, b, scanBindFree);
  b = 0;
done:
  scanBindFree(b);
  duckdb_free(zSession);
  duckdb_free(zStore);
}

static void scanInit(duckdb_init_info info){
  ScanState *s = calloc(1, sizeof(ScanState));
  if( s==0 ){
    duckdb_init_set_error(info, "tracestore_scan: out of memory");
    return;
  }
  duckdb_init_set_init_data(info, s, free);
}

/* The next rows, up to a vector's worth, column by column. */
static void scanFunction(duckdb_function_info info, duckdb_data_chunk out){
  ScanBind *b = duckdb_function_get_bind_data(info);
  ScanState *s = duckdb_function_get_init_data(info);
  idx_t nMax = duckdb_vector_size();
  ULONGLONG iFirst = s->iNext;
  idx_t n = (idx_t)(b->nRecord - iFirst < nMax ? b->nRecord - iFirst : nMax);
  idx_t k;
  ULONG c;
  char zMsg[1400];

  {
    int64_t *a = (int64_t*)duckdb_vector_get_data(
        duckdb_data_chunk_get_vector(out, 0));
    for(k=0; k<n; k++) a[k] = (int64_t)(iFirst + k);
  }
  for(c=0; c<b->nCol; c++){
    PCTRACE_COLUMN_DESCRIPTOR pCol = &b->aCol[c];
    duckdb_vector v = duckdb_data_chunk_get_vector(out, c + 1);
    void *pData = duckdb_vector_get_data(v);
    uint64_t *aValid = 0;
    for(k=0; k<n; k++){
      LONGLONG value;
      int bNull = !TraceStoreReadColumn(b->pStore, iFirst + k, pCol, &value);
      if( !bNull && (pCol->Flags & TRACE_COLUMN_STRING_ID) ){
        PCSZ z = 0;
        ULONG nz = 0;
        if( (ULONGLONG)value==TRACE_STRING_NULL ){
          bNull = 1;
        }else if( (ULONGLONG)value>TRACE_STRING_NULL
               || !RTL_SUCCESS(TraceStringLookup(&b->pSession->Strings,
                                                 (ULONG)value, &z, &nz))
               || z==0 ){
          snprintf(zMsg, sizeof(zMsg), "%s: byte offset %llu: row %llu "
                   "holds string id %llu, which the session's string store "
                   "lacks (corrupt)", b->pStore->Path,
                   (unsigned long long)TRACE_STORE_HEADER_SIZE
                   + (unsigned long long)(iFirst + k)
                     * b->pStore->RecordSize + pCol->Offset,
                   (unsigned long long)(iFirst + k),
                   (unsigned long long)value);
          duckdb_function_set_error(info, zMsg);
          return;
        }else{
          duckdb_vector_assign_string_element_len(v, k, z, nz);
        }
      }else if( !bNull && pCol->Type==TraceColumnDouble ){
        double r;
        memcpy(&r, &value, sizeof(r));
        ((double*)pData)[k] = r;
      }else if( !bNull ){
        ((int64_t*)pData)[k] = (int64_t)value;
      }
      if( bNull ){
        if( aValid==0 ){
          duckdb_vector_ensure_validity_writable(v);
          aValid = duckdb_vector_get_validity(v);
        }
        duckdb_validity_set_row_invalid(aValid, k);
      }
    }
  }
  s->iNext += n;
  duckdb_data_chunk_set_size(out, n);
}

DUCKDB_EXTENSION_ENTRYPOINT(duckdb_connection connection,
                            duckdb_extension_info info,
                            struct duckdb_extension_access *access){
  duckdb_table_function f;
  duckdb_logical_type t;
  duckdb_state rc;

  if( !sRtlReady ){
    if( !RTL_SUCCESS(InitializeRtl(&sRtl)) ){
      access->set_error(info, "tracestore: cannot initialize the runtime");
      return false;
    }
    sRtlReady = 1;
  }
  f = duckdb_create_table_function();
  duckdb_table_function_set_name(f, "tracestore_scan");
  t = duckdb_create_logical_type(DUCKDB_TYPE_VARCHAR);
  duckdb_table_function_add_parameter(f, t);
  duckdb_table_function_add_parameter(f, t);
  duckdb_destroy_logical_type(&t);
  duckdb_table_function_set_bind(f, scanBind);
  duckdb_table_function_set_init(f, scanInit);
  duckdb_table_function_set_function(f, scanFunction);
  rc = duckdb_register_table_function(connection, f);
  duckdb_destroy_table_function(&f);
  if( rc==DuckDBError ){
    access->set_error(info, "tracestore: cannot register tracestore_scan");
    return false;
  }
  return true;
}
