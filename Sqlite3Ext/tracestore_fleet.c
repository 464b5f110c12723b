/*
** tracestore_fleet.c: tracestore_attach_sessions(), many sessions read as
** one: the plain table names show the rows of every session, with a
** `session` and a `host` column.
**
** Zone: hosted (the SQLite extension): libc (opendir, to find the
** sessions in a directory) and SQLite's API; reads sessions only through
** the store API of TraceStore/TraceStore.h (to learn each one's host and
** stores); included by nothing outside Sqlite3Ext/.
** Owns: the SQL function tracestore_attach_sessions(), the schema each
** session is attached in, and the UNION ALL views over them.
** Calls: tracestore_attach() (tracestore_attach.c, through SQL) for each
** session, tracestore_catalog.c (listing and running SQL), and
** tracestoreViewsFleet() (tracestore_views.c) for the derived views.
** Registered by sqlite3_tracestore_init() through tracestoreFleetInit().
**
** Usage:
**
**     SELECT tracestore_attach_sessions('fleet/');            -- a directory
**     SELECT tracestore_attach_sessions('a.trace', 'b.trace'); -- or each
**     SELECT host, session, count(*) FROM page_fault GROUP BY 1, 2;
**     SELECT count(*) FROM "a.trace".page_fault;       -- one session alone
**
**   Each argument is a session, or a directory whose subdirectories that
**   are sessions are taken in name order.  Each session is attached (as
**   tracestore_attach(PATH, SCHEMA) does) in a schema of its own, named
**   after the session directory's last path component (made unique with
**   "_2", "_3", ...; an in-memory database ATTACHed by the call if that
**   schema does not exist yet).  In temp, every store name any session has
**   (page_fault, span, ..., and store_info) becomes a view: the UNION ALL
**   of that table of each session that has it, with two columns first,
**   `session` (the schema name) and `host` (the host kept in the session
**   header at creation; NULL for sessions made before issue 19).  A column
**   a session lacks reads NULL there.  The derived views of
**   tracestore_views.c (kvm_exit_reasons, page_fault_summary, event, ...)
**   get the same two columns: each session's rows of the view, computed
**   over that session alone (tracestoreViewsFleet()), so
**   `SELECT host, count FROM kvm_exit_reasons WHERE reason = 'HLT'` ranks
**   the hosts.  Returns the number of sessions.
**
**   Calling it again replaces what the last call made in temp (and the
**   tracestore tables and views of a single-session tracestore_attach()
**   there, as attaching another session does; a later tracestore_attach()
**   into temp replaces the union views in turn); each session's own schema
**   stays as it is.
**
** How it works:
**
**   Everything is checked (each path opened as a session, the schema names
**   chosen) before anything changes.  A UNION ALL view is a compound
**   subquery: SQLite pushes a WHERE on its columns (ts ranges, rowid) into
**   each arm, so each session's table still gets its push-down, and each
**   arm's virtual table takes its own snapshot once per statement -- a
**   session being written is read at one consistent snapshot per
**   statement, like a single attached session.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "TraceStore/TraceStore.h"
#include "tracestore_views.h"
#include "tracestore_int.h"

typedef struct ts_fleet_session ts_fleet_session;
struct ts_fleet_session {
  char *zPath;                      /* Session directory */
  char *zSchema;                    /* Schema it is attached in */
  char *zHost;                      /* Host from its header, or NULL */
  int bAttach;                      /* Schema must be ATTACHed first */
  int nStore;                       /* Store (table) names */
  char azStore[TRACE_SESSION_MAX_STORES+1][TRACE_NAME_SIZE+1];
};

typedef struct ts_fleet ts_fleet;
struct ts_fleet {
  ts_fleet_session *aSes;
  int nSes;
  int nAlloc;
};

static void tsFleetFree(ts_fleet *p){
  int i;
  for(i=0; i<p->nSes; i++){
    sqlite3_free(p->aSes[i].zPath);
    sqlite3_free(p->aSes[i].zSchema);
    sqlite3_free(p->aSes[i].zHost);
  }
  sqlite3_free(p->aSes);
}

/* True if zDir holds a session header file. */
static int tsIsSessionDir(const char *zDir){
  struct stat st;
  char *z = sqlite3_mprintf("%s/" TRACE_SESSION_FILE, zDir);
  int b = z!=0 && stat(z, &st)==0 && S_ISREG(st.st_mode);
  sqlite3_free(z);
  return b;
}

/* Adds the session at zPath (copied) to p. */
static int tsFleetAdd(ts_fleet *p, const char *zPath){
  ts_fleet_session *pNew;
  if( p->nSes==p->nAlloc ){
    int n = p->nAlloc ? p->nAlloc*2 : 8;
    pNew = sqlite3_realloc64(p->aSes, sizeof(pNew[0])*(size_t)n);
    if( pNew==0 ) return SQLITE_NOMEM;
    p->aSes = pNew;
    p->nAlloc = n;
  }
  pNew = &p->aSes[p->nSes];
  memset(pNew, 0, sizeof(*pNew));
  pNew->zPath = sqlite3_mprintf("%s", zPath);
  if( pNew->zPath==0 ) return SQLITE_NOMEM;
  p->nSes++;
  return SQLITE_OK;
}

static int tsCompareNames(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

/*
** Adds zPath to p if it is a session, else each subdirectory of zPath that
** is one, in name order.  An error if zPath is neither.
*/
static int tsFleetCollect(ts_fleet *p, const char *zPath, char **pzErr){
  DIR *pDir;
  struct dirent *pEnt;
  char **azName = 0;
  int nName = 0, nAlloc = 0, nFound = 0, i, rc = SQLITE_OK;

  if( tsIsSessionDir(zPath) ) return tsFleetAdd(p, zPath);
  pDir = opendir(zPath);
  if( pDir==0 ){
    *pzErr = sqlite3_mprintf("'%s' is neither a trace session nor a "
                             "directory of sessions", zPath);
    return SQLITE_ERROR;
  }
  while( rc==SQLITE_OK && (pEnt = readdir(pDir))!=0 ){
    char *zSub;
    if( pEnt->d_name[0]=='.' ) continue;
    zSub = sqlite3_mprintf("%s/%s", zPath, pEnt->d_name);
    if( zSub==0 ){ rc = SQLITE_NOMEM; break; }
    if( !tsIsSessionDir(zSub) ){ sqlite3_free(zSub); continue; }
    if( nName==nAlloc ){
      char **azNew;
      nAlloc = nAlloc ? nAlloc*2 : 16;
      azNew = sqlite3_realloc64(azName, sizeof(char*)*(size_t)nAlloc);
      if( azNew==0 ){ sqlite3_free(zSub); rc = SQLITE_NOMEM; break; }
      azName = azNew;
    }
    azName[nName++] = zSub;
  }
  closedir(pDir);
  if( nName ) qsort(azName, (size_t)nName, sizeof(char*), tsCompareNames);
  for(i=0; i<nName; i++){
    if( rc==SQLITE_OK ){ rc = tsFleetAdd(p, azName[i]); nFound++; }
    sqlite3_free(azName[i]);
  }
  sqlite3_free(azName);
  if( rc==SQLITE_OK && nFound==0 ){
    *pzErr = sqlite3_mprintf("'%s' is not a trace session and holds none",
                             zPath);
    rc = SQLITE_ERROR;
  }
  return rc;
}

/* True if db has a schema named zName. */
static int tsSchemaExists(sqlite3 *db, const char *zName){
  sqlite3_stmt *pStmt = 0;
  int b = 0;
  if( sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_database_list "
                         "WHERE name = ?1 COLLATE NOCASE", -1, &pStmt,
                         0)==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
    b = sqlite3_step(pStmt)==SQLITE_ROW;
  }
  sqlite3_finalize(pStmt);
  return b;
}

/*
** The schema for session i: its directory's last component; main, temp
** and names taken by an earlier session of this call get "_2", "_3", ...
*/
static int tsFleetSchema(sqlite3 *db, ts_fleet *p, int iSes){
  ts_fleet_session *pSes = &p->aSes[iSes];
  const char *zBase;
  size_t n = strlen(pSes->zPath);
  int k, j, bTaken;

  while( n>1 && pSes->zPath[n-1]=='/' ) n--;
  zBase = pSes->zPath + n;
  while( zBase>pSes->zPath && zBase[-1]!='/' ) zBase--;
  n = (size_t)(pSes->zPath + n - zBase);
  for(k=1; ; k++){
    sqlite3_free(pSes->zSchema);
    pSes->zSchema = k==1 ? sqlite3_mprintf("%.*s", (int)n, zBase)
                         : sqlite3_mprintf("%.*s_%d", (int)n, zBase, k);
    if( pSes->zSchema==0 ) return SQLITE_NOMEM;
    bTaken = sqlite3_stricmp(pSes->zSchema, "main")==0
          || sqlite3_stricmp(pSes->zSchema, "temp")==0;
    for(j=0; j<iSes && !bTaken; j++){
      bTaken = sqlite3_stricmp(p->aSes[j].zSchema, pSes->zSchema)==0;
    }
    if( !bTaken ) break;
  }
  pSes->bAttach = !tsSchemaExists(db, pSes->zSchema);
  return SQLITE_OK;
}

/* Opens session i once: its host and its store names. */
static int tsFleetInspect(ts_fleet_session *pSes, char **pzErr){
  TRACE_SESSION *pSession = 0;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];
  int nStore, i, rc;

  rc = tsSessionOpen(pSes->zPath, &pSession, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  if( pSession->Header.Host.HostName[0] ){
    pSes->zHost = sqlite3_mprintf("%s", pSession->Header.Host.HostName);
    if( pSes->zHost==0 ) rc = SQLITE_NOMEM;
  }
  nStore = tsListStores(pSession, apStore);
  for(i=0; i<nStore && pSes->nStore<TRACE_SESSION_MAX_STORES; i++){
    char *z = pSes->azStore[pSes->nStore];
    tsCopyName(z, apStore[i]->Name);
    if( z[0]==0 || strcmp(z, "string")==0 || strcmp(z, "string_data")==0 ){
      continue;
    }
    pSes->nStore++;
  }
  memcpy(pSes->azStore[pSes->nStore++], "store_info", sizeof("store_info"));
  tsSessionClose(pSession);
  return rc;
}

/* True if session pSes has a table named zName. */
static int tsFleetHas(const ts_fleet_session *pSes, const char *zName){
  int i;
  for(i=0; i<pSes->nStore; i++){
    if( strcmp(pSes->azStore[i], zName)==0 ) return 1;
  }
  return 0;
}

/*
** Appends to *pazCol (*pnCol names from sqlite3_malloc) the columns of
** zSchema.zTable that it does not hold yet.
*/
static int tsFleetColumns(sqlite3 *db, const char *zSchema,
                          const char *zTable, char ***pazCol, int *pnCol){
  sqlite3_stmt *pStmt = 0;
  int rc, i;
  rc = sqlite3_prepare_v2(db, "SELECT name FROM pragma_table_info(?1, ?2)",
                          -1, &pStmt, 0);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_bind_text(pStmt, 1, zTable, -1, SQLITE_STATIC);
  sqlite3_bind_text(pStmt, 2, zSchema, -1, SQLITE_STATIC);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    char **azNew;
    if( z==0 ) continue;
    for(i=0; i<*pnCol; i++){
      if( sqlite3_stricmp((*pazCol)[i], z)==0 ) break;
    }
    if( i<*pnCol ) continue;
    azNew = sqlite3_realloc64(*pazCol, sizeof(char*)*(size_t)(*pnCol+1));
    if( azNew==0 ){ rc = SQLITE_NOMEM; break; }
    *pazCol = azNew;
    azNew[*pnCol] = sqlite3_mprintf("%s", z);
    if( azNew[*pnCol]==0 ){ rc = SQLITE_NOMEM; break; }
    (*pnCol)++;
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/* True if zSchema.zTable has column zCol. */
static int tsHasColumn(sqlite3 *db, const char *zSchema, const char *zTable,
                       const char *zCol){
  return sqlite3_table_column_metadata(db, zSchema, zTable, zCol,
                                       0, 0, 0, 0, 0)==SQLITE_OK;
}

/* Creates temp.zName: the UNION ALL of zName over the sessions. */
static int tsFleetView(sqlite3 *db, ts_fleet *p, const char *zName,
                       char **pzErr){
  char **azCol = 0;
  int nCol = 0, i, j, n = 0, rc = SQLITE_OK;
  sqlite3_str *pSql;

  for(i=0; rc==SQLITE_OK && i<p->nSes; i++){
    if( tsFleetHas(&p->aSes[i], zName) ){
      rc = tsFleetColumns(db, p->aSes[i].zSchema, zName, &azCol, &nCol);
    }
  }
  pSql = sqlite3_str_new(db);
  sqlite3_str_appendf(pSql, "CREATE VIEW temp.\"%w\" AS " TS_FLEET_MARK " ",
                      zName);
  for(i=0; rc==SQLITE_OK && i<p->nSes; i++){
    ts_fleet_session *pSes = &p->aSes[i];
    if( !tsFleetHas(pSes, zName) ) continue;
    sqlite3_str_appendf(pSql, "%sSELECT %Q AS session, %Q AS host",
                        n++ ? " UNION ALL " : "", pSes->zSchema,
                        pSes->zHost);
    for(j=0; j<nCol; j++){
      if( tsHasColumn(db, pSes->zSchema, zName, azCol[j]) ){
        sqlite3_str_appendf(pSql, ", \"%w\"", azCol[j]);
      }else{
        sqlite3_str_appendf(pSql, ", NULL AS \"%w\"", azCol[j]);
      }
    }
    sqlite3_str_appendf(pSql, " FROM \"%w\".\"%w\"", pSes->zSchema, zName);
  }
  for(j=0; j<nCol; j++) sqlite3_free(azCol[j]);
  sqlite3_free(azCol);
  if( rc!=SQLITE_OK ){
    sqlite3_free(sqlite3_str_finish(pSql));
    return rc;
  }
  return tsExec(db, sqlite3_str_finish(pSql), pzErr);
}

/* tsForEachObject() callback: collects names of temp objects to drop. */
typedef struct ts_drop_list ts_drop_list;
struct ts_drop_list {
  char *azName[256];
  int nName;
};
static int tsFleetStale(void *pArg, const char *zName, const char *zSql){
  ts_drop_list *p = (ts_drop_list*)pArg;
  if( zSql==0 || p->nName>=256 ) return SQLITE_OK;
  if( sqlite3_strglob("CREATE VIRTUAL TABLE * USING tracestore*", zSql)!=0
   && strstr(zSql, TS_FLEET_MARK)==0
   && strstr(zSql, " AS /* tracestore view */ ")==0 ){
    return SQLITE_OK;
  }
  p->azName[p->nName] = sqlite3_mprintf("%s%s",
                         zSql[7]=='V' && zSql[8]=='I' && zSql[9]=='E'
                         ? "V" : "T", zName);
  return p->azName[p->nName++] ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** Drops temp's tracestore tables and views, and earlier union views (their
** names are about to be the new union views).
*/
int tracestoreFleetClear(sqlite3 *db, char **pzErr){
  ts_drop_list drop;
  int rc, rc2, i;
  memset(&drop, 0, sizeof(drop));
  rc = tsForEachObject(db, "temp", "table", tsFleetStale, &drop, pzErr);
  if( rc==SQLITE_OK ){
    rc = tsForEachObject(db, "temp", "view", tsFleetStale, &drop, pzErr);
  }
  for(i=0; i<drop.nName; i++){
    if( rc==SQLITE_OK ){
      rc2 = tsExec(db, sqlite3_mprintf("DROP %s temp.\"%w\"",
                                       drop.azName[i][0]=='V' ? "VIEW" :
                                       "TABLE", drop.azName[i]+1), pzErr);
      rc = rc2;
    }
    sqlite3_free(drop.azName[i]);
  }
  return rc;
}

/* True if temp holds a union view of tracestore_attach_sessions(). */
int tsFleetInTemp(sqlite3 *db){
  sqlite3_stmt *pStmt = 0;
  int b = 0;
  if( sqlite3_prepare_v2(db, "SELECT 1 FROM temp.sqlite_master WHERE type "
                         "= 'view' AND instr(sql, ?1) > 0", -1, &pStmt,
                         0)==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, TS_FLEET_MARK, -1, SQLITE_STATIC);
    b = sqlite3_step(pStmt)==SQLITE_ROW;
  }
  sqlite3_finalize(pStmt);
  return b;
}

/* Attaches session pSes in its schema with tracestore_attach(). */
static int tsFleetAttachOne(sqlite3 *db, ts_fleet_session *pSes,
                            char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int rc;
  if( pSes->bAttach ){
    rc = tsExec(db, sqlite3_mprintf("ATTACH ':memory:' AS \"%w\"",
                                    pSes->zSchema), pzErr);
  }else{
    /* (A schema of an earlier call may show another session.) */
    rc = tsExec(db, sqlite3_mprintf("SELECT tracestore_detach(%Q)",
                                    pSes->zSchema), pzErr);
  }
  if( rc!=SQLITE_OK ) return rc;
  rc = sqlite3_prepare_v2(db, "SELECT tracestore_attach(?1, ?2)", -1,
                          &pStmt, 0);
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(pStmt, 1, pSes->zPath, -1, SQLITE_STATIC);
    sqlite3_bind_text(pStmt, 2, pSes->zSchema, -1, SQLITE_STATIC);
    rc = sqlite3_step(pStmt);
    rc = rc==SQLITE_ROW ? SQLITE_OK : sqlite3_finalize(pStmt);
    if( rc!=SQLITE_OK ){
      *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
      pStmt = 0;
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

static void tracestoreAttachSessionsFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  ts_fleet fleet;
  char *zErr = 0;
  char *zMsg;
  int i, j, k, rc = SQLITE_OK;

  memset(&fleet, 0, sizeof(fleet));
  if( argc==0 ){
    sqlite3_result_error(ctx, "tracestore_attach_sessions(PATH, ...): name "
                         "sessions or directories of sessions", -1);
    return;
  }
  for(i=0; rc==SQLITE_OK && i<argc; i++){
    const char *zPath = (const char*)sqlite3_value_text(argv[i]);
    if( zPath==0 || zPath[0]==0 ){
      zErr = sqlite3_mprintf("argument %d must name a session or a "
                             "directory of sessions", i+1);
      rc = SQLITE_ERROR;
      break;
    }
    rc = tsFleetCollect(&fleet, zPath, &zErr);
  }
  /* Check every session before changing anything. */
  for(i=0; rc==SQLITE_OK && i<fleet.nSes; i++){
    rc = tsFleetInspect(&fleet.aSes[i], &zErr);
    if( rc==SQLITE_OK ) rc = tsFleetSchema(db, &fleet, i);
  }
  if( rc==SQLITE_OK ) rc = tracestoreFleetClear(db, &zErr);
  for(i=0; rc==SQLITE_OK && i<fleet.nSes; i++){
    rc = tsFleetAttachOne(db, &fleet.aSes[i], &zErr);
  }
  /* One union view per name any session has, in first-seen order. */
  for(i=0; rc==SQLITE_OK && i<fleet.nSes; i++){
    for(j=0; rc==SQLITE_OK && j<fleet.aSes[i].nStore; j++){
      const char *zName = fleet.aSes[i].azStore[j];
      for(k=0; k<i && !tsFleetHas(&fleet.aSes[k], zName); k++){}
      if( k<i ) continue;
      rc = tsFleetView(db, &fleet, zName, &zErr);
    }
  }
  if( rc==SQLITE_OK ){
    const char **az = sqlite3_malloc64(sizeof(char*)*2*(size_t)fleet.nSes);
    if( az==0 ){
      rc = SQLITE_NOMEM;
    }else{
      for(i=0; i<fleet.nSes; i++){
        az[i] = fleet.aSes[i].zSchema;
        az[fleet.nSes+i] = fleet.aSes[i].zHost;
      }
      rc = tracestoreViewsFleet(db, fleet.nSes, az, az+fleet.nSes, &zErr);
      sqlite3_free(az);
    }
  }
  if( rc==SQLITE_OK ){
    sqlite3_result_int(ctx, fleet.nSes);
  }else if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    zMsg = sqlite3_mprintf("tracestore_attach_sessions: %s",
                           zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zMsg ? zMsg : "tracestore_attach_sessions "
                         "failed", -1);
    sqlite3_free(zMsg);
  }
  sqlite3_free(zErr);
  tsFleetFree(&fleet);
}

/* Registers tracestore_attach_sessions(PATH, ...) on db. */
int tracestoreFleetInit(sqlite3 *db){
  return sqlite3_create_function_v2(db, "tracestore_attach_sessions", -1,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                    tracestoreAttachSessionsFunc, 0, 0, 0);
}
