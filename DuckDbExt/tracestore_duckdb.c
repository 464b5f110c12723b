/*
** tracestore_duckdb.c: the DuckDB extension's entry point.
**
** Zone: hosted (the DuckDB extension): libc and DuckDB's C extension API
** (duckdb_extension.h, the C_STRUCT ABI of C API v1.2.0); reads sessions
** only through the store API of TraceStore/TraceStore.h; included by
** nothing.
** Owns: the check of DuckDB's C API version, the RTL the extension's
** sessions are opened with, installing the read guard, and registering
** the functions.
** Calls: tracestore_duckdb_scan.c (tsdRegisterScan),
** tracestore_duckdb_rollup.c (tsdRegisterRollup), tracestore_duckdb_args.c
** (tsdRegisterArgs),
** tracestore_duckdb_views.c (tsdRegisterViews), Guard/StoreGuard.c.
** Called by DuckDB's LOAD (tracestore_init_c_api).
**
** Usage (duckdb -unsigned, or SET allow_unsigned_extensions = true):
**
**     LOAD 'build/tracestore.duckdb_extension';
**     SELECT name, count(*) FROM tracestore_scan('run.trace', 'span')
**     GROUP BY name;
**
** The functions are documented in docs/duckdb.md.  DuckDB hands an
** extension its API as a struct of function pointers (duckdb_ext_api),
** asked for by version: a DuckDB that cannot give version TSD_API_VERSION
** is refused with a message saying which DuckDB is needed.
*/
#define DUCKDB_EXTENSION_NAME tracestore
#include <duckdb_extension.h>

#include <pthread.h>

#include "tracestore_duckdb_int.h"
#include "Guard/StoreGuard.h"

/* The C API version asked for (the footer states the same one: a DuckDB
** older than it refuses the file before calling us). */
#define TSD_API_VERSION DUCKDB_EXTENSION_API_VERSION_STRING

DUCKDB_EXTENSION_GLOBAL

static RTL sRtl;
static int sRtlStatus = -1;           /* 0 once made, 1 if that failed */
static pthread_once_t sRtlOnce = PTHREAD_ONCE_INIT;

static void tsdMakeRtl(void){
  if( RTL_SUCCESS(InitializeRtl(&sRtl)) ){
    storeGuardInstall(&sRtl);
    sRtlStatus = 0;
  }else{
    sRtlStatus = 1;
  }
}

PRTL tsdRtl(void){
  pthread_once(&sRtlOnce, tsdMakeRtl);
  return sRtlStatus==0 ? &sRtl : 0;
}

/*
** The entry point DuckDB calls on LOAD.  Not DUCKDB_EXTENSION_ENTRYPOINT:
** that one returns false without a word when DuckDB lacks the API
** version.
*/
DUCKDB_EXTENSION_EXTERN_C_GUARD_OPEN DUCKDB_CAPI_ENTRY_VISIBILITY
DUCKDB_EXTENSION_API bool tracestore_init_c_api(
  duckdb_extension_info info,
  struct duckdb_extension_access *access
){
  const duckdb_ext_api_v1 *pApi;
  duckdb_database *pDb;
  duckdb_connection con;
  char zErr[512];
  bool bOk = true;

  pApi = (const duckdb_ext_api_v1*)access->get_api(info, TSD_API_VERSION);
  if( pApi==0 ){
    access->set_error(info, "tracestore.duckdb_extension needs DuckDB's C "
                      "extension API " TSD_API_VERSION " (DuckDB 1.2.0 or "
                      "later, DuckDB 1.x); this DuckDB does not provide it");
    return false;
  }
  duckdb_ext_api = *pApi;
  if( tsdRtl()==0 ){
    access->set_error(info, "tracestore: cannot initialize the runtime");
    return false;
  }
  pDb = access->get_database(info);
  if( duckdb_connect(*pDb, &con)==DuckDBError ){
    access->set_error(info, "tracestore: cannot connect to the database");
    return false;
  }
  if( tsdRegisterScan(con) ){
    access->set_error(info, "tracestore: cannot register tracestore_scan");
    bOk = false;
  }else if( tsdRegisterArgs(con) ){
    access->set_error(info, "tracestore: cannot register "
                      "tracestore_event_args");
    bOk = false;
  }else if( tsdRegisterRollup(con) ){
    access->set_error(info, "tracestore: cannot register tracestore_rollup");
    bOk = false;
  }else if( tsdRegisterViews(con, *pDb, zErr, sizeof(zErr))<0 ){
    access->set_error(info, zErr);
    bOk = false;
  }
  duckdb_disconnect(&con);
  return bOk;
}
DUCKDB_EXTENSION_EXTERN_C_GUARD_CLOSE
