/*
** SqlDuckDb.c: `tracestore sql --engine duckdb`: the SQL run in DuckDB,
** loaded at run time, with the DuckDB extension and the session attached.
**
** Zone: hosted (the command-line front end): libc's dlopen and dlsym.
** Owns: finding libduckdb.so and tracestore.duckdb_extension, the few
** DuckDB C API calls it makes (declared here, so the command builds
** without DuckDB's headers), and running each statement.  Calls
** CmdSql.c's printers (sqlPrintRows) and HostUtil.c (errors).  Called by
** CmdSql.c.
**
** Where things are looked for, first found wins:
**   libduckdb.so                  $TRACER_LIBDUCKDB; the dynamic linker's
**                                 search (libduckdb.so); DIR/duckdb/lib/
**                                 (the build tree: cmake/DuckDb.cmake puts
**                                 it there), DIR being the command's
**                                 directory
**   tracestore.duckdb_extension   $TRACER_DUCKDB_EXTENSION; DIR/
**
** The database is in memory, with unsigned extensions allowed (ours is not
** signed).  Each statement's rows are printed as the SQLite engine prints
** them; values are DuckDB's own text for its types.
*/
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Cli/Cli.h"

/* The parts of duckdb.h used here (its C API, stable since 1.0). */
typedef uint64_t idx_t;
typedef void *duckdb_handle;
typedef enum { DuckDBSuccess = 0, DuckDBError = 1 } duckdb_state;
typedef struct {
  idx_t deprecated_column_count;
  idx_t deprecated_row_count;
  idx_t deprecated_rows_changed;
  void *deprecated_columns;
  char *deprecated_error_message;
  void *internal_data;
} duckdb_result;

/* DUCKDB_TYPE values whose text is a number in JSON. */
static int isNumberType(int t){
  return (t>=2 && t<=11) || t==16 || t==19 || t==32;
}

static struct {
  duckdb_state (*create_config)(duckdb_handle*);
  duckdb_state (*set_config)(duckdb_handle, const char*, const char*);
  void (*destroy_config)(duckdb_handle*);
  duckdb_state (*open_ext)(const char*, duckdb_handle*, duckdb_handle,
                           char**);
  void (*close)(duckdb_handle*);
  duckdb_state (*connect)(duckdb_handle, duckdb_handle*);
  void (*disconnect)(duckdb_handle*);
  duckdb_state (*query)(duckdb_handle, const char*, duckdb_result*);
  const char *(*result_error)(duckdb_result*);
  void (*destroy_result)(duckdb_result*);
  idx_t (*extract_statements)(duckdb_handle, const char*, duckdb_handle*);
  const char *(*extract_statements_error)(duckdb_handle);
  duckdb_state (*prepare_extracted_statement)(duckdb_handle, duckdb_handle,
                                              idx_t, duckdb_handle*);
  const char *(*prepare_error)(duckdb_handle);
  duckdb_state (*execute_prepared)(duckdb_handle, duckdb_result*);
  void (*destroy_prepare)(duckdb_handle*);
  void (*destroy_extracted)(duckdb_handle*);
  idx_t (*column_count)(duckdb_result*);
  idx_t (*row_count)(duckdb_result*);
  const char *(*column_name)(duckdb_result*, idx_t);
  int (*column_type)(duckdb_result*, idx_t);
  int (*value_is_null)(duckdb_result*, idx_t, idx_t);
  char *(*value_varchar)(duckdb_result*, idx_t, idx_t);
  void (*free)(void*);
} dk;

/* The directory of the running command, with a trailing '/'. */
static void exeDir(char *zDir, size_t nDir){
  ssize_t n = readlink("/proc/self/exe", zDir, nDir - 1);
  if( n<=0 ) zDir[0] = 0;
  if( n>0 ){
    zDir[n] = 0;
    if( strrchr(zDir, '/') ) strrchr(zDir, '/')[1] = 0;
  }
}

/* Loads libduckdb.so and its calls; 0, or -1 after saying how to get it. */
static int loadDuckDb(void){
  char zDir[PATH_MAX], zPath[PATH_MAX + 32];
  const char *zEnv = getenv("TRACER_LIBDUCKDB");
  void *pLib = 0;
  exeDir(zDir, sizeof(zDir));
  snprintf(zPath, sizeof(zPath), "%sduckdb/lib/libduckdb.so", zDir);
  if( zEnv && zEnv[0] ) pLib = dlopen(zEnv, RTLD_NOW | RTLD_LOCAL);
  if( pLib==0 ) pLib = dlopen("libduckdb.so", RTLD_NOW | RTLD_LOCAL);
  if( pLib==0 ) pLib = dlopen(zPath, RTLD_NOW | RTLD_LOCAL);
  if( pLib==0 ){
    hostFail("sql --engine duckdb: cannot load libduckdb.so (%s).  Debian "
             "does not package DuckDB: building Tracer fetches it into "
             "build/duckdb/lib (cmake/DuckDb.cmake), or get it with `npm "
             "pack @duckdb/node-bindings-linux-x64@1.4.4-r.4` and unpack "
             "its libduckdb.so; then set TRACER_LIBDUCKDB to its path",
             zEnv && zEnv[0] ? zEnv : "not found beside the command nor "
             "on the library path");
    return -1;
  }
#define DK(f) \
  if( (*(void**)&dk.f = dlsym(pLib, "duckdb_" #f))==0 ){                  \
    hostFail("sql --engine duckdb: libduckdb.so lacks duckdb_%s", #f);     \
    return -1;                                                             \
  }
  DK(create_config) DK(set_config) DK(destroy_config) DK(open_ext)
  DK(close) DK(connect) DK(disconnect) DK(query) DK(result_error)
  DK(destroy_result) DK(extract_statements) DK(extract_statements_error)
  DK(prepare_extracted_statement) DK(prepare_error) DK(execute_prepared)
  DK(destroy_prepare) DK(destroy_extracted) DK(column_count) DK(row_count)
  DK(column_name) DK(column_type) DK(value_is_null) DK(value_varchar)
  DK(free)
#undef DK
  return 0;
}

/* Prints a result's rows; 0, or -1 when out of memory. */
static int printResult(duckdb_result *pRes, SqlMode eMode, int *pbTable){
  int nCol = (int)dk.column_count(pRes);
  idx_t nRow = dk.row_count(pRes), r;
  const char **azName = calloc((size_t)nCol + 1, sizeof(char*));
  int *abNumber = calloc((size_t)nCol + 1, sizeof(int));
  char **azCell = calloc((size_t)(nRow*nCol) + 1, sizeof(char*));
  int c;
  if( azName==0 || abNumber==0 || azCell==0 ){
    free(azName); free(abNumber); free(azCell);
    return -1;
  }
  for(c=0; c<nCol; c++){
    azName[c] = dk.column_name(pRes, c);
    abNumber[c] = isNumberType(dk.column_type(pRes, c));
  }
  for(r=0; r<nRow; r++){
    for(c=0; c<nCol; c++){
      azCell[r*nCol + c] = dk.value_is_null(pRes, c, r) ? 0
                         : dk.value_varchar(pRes, c, r);
    }
  }
  sqlPrintRows(eMode, nCol, azName, (int)nRow, azCell, abNumber, pbTable);
  for(r=0; r<nRow*nCol; r++) dk.free(azCell[r]);
  free(azName);
  free(abNumber);
  free(azCell);
  return 0;
}

/* A string literal of z for SQL (quotes doubled); the caller frees it. */
static char *sqlQuote(const char *z){
  size_t n = strlen(z), i, j = 0;
  char *zOut = malloc(2*n + 3);
  if( zOut==0 ) return 0;
  zOut[j++] = '\'';
  for(i=0; i<n; i++){
    if( z[i]=='\'' ) zOut[j++] = '\'';
    zOut[j++] = z[i];
  }
  zOut[j++] = '\'';
  zOut[j] = 0;
  return zOut;
}

/* Runs a statement of the set-up; 0, or -1 after saying why. */
static int setupQuery(duckdb_handle con, const char *zSql,
                      const char *zPrefix){
  duckdb_result res;
  int rc = 0;
  if( dk.query(con, zSql, &res)==DuckDBError ){
    hostFail("%s%s", zPrefix, dk.result_error(&res));
    rc = -1;
  }
  dk.destroy_result(&res);
  return rc;
}

int sqlRunDuckDb(const char *zSession, const char *zSql, const char *zSource,
                 SqlMode eMode){
  duckdb_handle config = 0, db = 0, con = 0, stmts = 0;
  duckdb_result res;
  char zDir[PATH_MAX], zExt[PATH_MAX + 64], *zErr = 0, *zQ;
  char zSetup[2*PATH_MAX + 128];
  const char *zEnv = getenv("TRACER_DUCKDB_EXTENSION");
  idx_t nStmt, i;
  int rc = 1, bTable = 0;

  if( loadDuckDb() ) return 1;
  exeDir(zDir, sizeof(zDir));
  if( zEnv && zEnv[0] ){
    snprintf(zExt, sizeof(zExt), "%s", zEnv);
  }else{
    snprintf(zExt, sizeof(zExt), "%stracestore.duckdb_extension", zDir);
  }
  if( access(zExt, R_OK)!=0 ){
    hostFail("sql --engine duckdb: no DuckDB extension at %s (build the "
             "tracestore_duckdb target, or set TRACER_DUCKDB_EXTENSION)",
             zExt);
    return 1;
  }
  if( dk.create_config(&config)==DuckDBError
   || dk.set_config(config, "allow_unsigned_extensions", "true")
        ==DuckDBError
   || dk.open_ext(":memory:", &db, config, &zErr)==DuckDBError
   || dk.connect(db, &con)==DuckDBError ){
    hostFail("sql --engine duckdb: cannot open DuckDB%s%s",
             zErr ? ": " : "", zErr ? zErr : "");
    goto done;
  }

  /* LOAD, then attach the session. */
  zQ = sqlQuote(zExt);
  snprintf(zSetup, sizeof(zSetup), "LOAD %s", zQ ? zQ : "''");
  free(zQ);
  if( setupQuery(con, zSetup, "sql --engine duckdb: ") ) goto done;
  zQ = sqlQuote(zSession);
  snprintf(zSetup, sizeof(zSetup), "SELECT count(*) FROM "
           "tracestore_attach(%s)", zQ ? zQ : "''");
  free(zQ);
  if( setupQuery(con, zSetup, "") ) goto done;

  nStmt = dk.extract_statements(con, zSql, &stmts);
  if( nStmt==0 ){
    const char *zMsg = dk.extract_statements_error(stmts);
    if( zMsg ){
      hostFail("%s: %s", zSource, zMsg);
      goto done;
    }
  }
  rc = 0;
  for(i=0; i<nStmt && rc==0; i++){
    duckdb_handle prep = 0;
    if( dk.prepare_extracted_statement(con, stmts, i, &prep)==DuckDBError ){
      hostFail("statement %d of %s: %s", (int)i + 1, zSource,
               dk.prepare_error(prep));
      rc = 1;
    }else{
      memset(&res, 0, sizeof(res));
      if( dk.execute_prepared(prep, &res)==DuckDBError ){
        fflush(stdout);
        hostFail("statement %d of %s: %s", (int)i + 1, zSource,
                 dk.result_error(&res));
        rc = 1;
      }else if( printResult(&res, eMode, &bTable) ){
        hostFail("out of memory");
        rc = 1;
      }
      dk.destroy_result(&res);
    }
    dk.destroy_prepare(&prep);
  }
  fflush(stdout);

done:
  if( stmts ) dk.destroy_extracted(&stmts);
  if( zErr ) dk.free(zErr);
  if( con ) dk.disconnect(&con);
  if( db ) dk.close(&db);
  if( config ) dk.destroy_config(&config);
  return rc;
}
