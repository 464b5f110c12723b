/*
** tracestore_attach.c: tracestore_attach(), which makes the tables (and,
** through tracestore_views.c, the views) that show a session.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store API of TraceStore/TraceStore.h;
** included by nothing outside Sqlite3Ext/.
** Owns: the SQL function tracestore_attach(): which tables a session
** needs, what to do with each name (create, keep, replace, refuse, drop
** a stale one), and undoing a call that fails.
** Calls: tracestore_session.c (to list the stores), tracestore_catalog.c
** (the rules for a name), tracestore_views.c (the views).  Registered by
** sqlite3_tracestore_init() (tracestore.c) through tracestoreAttachInit(),
** declared in tracestore_int.h.
**
** Usage:
**
**     SELECT tracestore_attach('run.trace');
**
**   tracestore_attach(PATH [, SCHEMA [, MODE]])
**
**     Opens the session at PATH read-only, checks it, and creates in SCHEMA
**     ("temp" if omitted, so that it works on read-only and in-memory
**     databases) one virtual table per store, named like the store
**     (page_fault, kvm_exit, sched_switch, ftrace_event, thread, process,
**     source, ...), plus store_info, plus the rollup tables its event
**     stores answer (rollup_span, rollup_page_fault, ...: the answers the
**     views read; MODE 'scan' leaves them out, and the views then compute
**     every answer from the rows).  The string stores are not tables:
**     their text appears in the columns that refer to it.  Returns the
**     number of tables that show the session, store_info included (tables
**     an earlier call made for the same session are kept, not made again).
**     Attaching the same session again keeps what is there and adds the
**     tables of stores created since.  A schema that shows another
**     session (or, in temp, the sessions of tracestore_attach_sessions())
**     is an error naming it: SELECT tracestore_detach() first to switch.
**     A table or view of the same name that is not a tracestore table is
**     an error.  A call that fails leaves SCHEMA as it was.  In temp, it
**     also makes the views of tracestore_views.c (event, args,
**     kvm_exit_reasons, ...), with the same rules for names.  To look at
**     two sessions side by side, tracestore_attach_sessions() them
**     (tracestore_fleet.c), or attach the second one into another schema:
**
**         ATTACH ':memory:' AS b;
**         SELECT tracestore_attach('other.trace', 'b');
**
**   tracestore_detach([SCHEMA])
**
**     Drops what tracestore_attach() made in SCHEMA ("temp" if omitted):
**     its tables and, in temp, its views and those of
**     tracestore_attach_sessions().  Returns the number of tables dropped
**     (0 when there were none).  A table that a running statement reads
**     cannot be dropped: an error, and nothing is dropped.
**
** How it works:
**
**   For each table the session needs (one per store but the string stores,
**   and store_info) the function finds what SCHEMA already holds under that
**   name: nothing (create it), the very table it would create (keep it), a
**   tracestore table of another session or store (replace it), or anything
**   else (refuse, before changing anything).  Tables that an earlier call
**   made for stores this session does not have are dropped, so that no
**   table of the previous session stays behind.  The old tables are all
**   dropped first, then the new ones created; if any step fails, what was
**   done is undone and the old tables are put back from their CREATE text,
**   so a failed call leaves SCHEMA as it was.  (A table cannot be dropped
**   while a statement that reads it is still running.)
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceStore.h"
#include "tracestore_views.h"
#include "tracestore_int.h"

/* What a target is: a store table, store_info, or a rollup table. */
#define TS_TARGET_STORE   0
#define TS_TARGET_INFO    1
#define TS_TARGET_ROLLUP  2

/* Rollup tables are named this and their question. */
#define TS_ROLLUP_PREFIX  "rollup_"

typedef struct tracestore_target tracestore_target;
struct tracestore_target {
  char zName[TRACE_NAME_SIZE+1];  /* Table (and store) name */
  int eKind;                      /* TS_TARGET_* */
  int eAction;                    /* TS_ACTION_* */
  char *zOldSql;                  /* CREATE text of the table replaced */
  int bDropped;                   /* The old table has been dropped */
  int bCreated;                   /* The new table has been created */
};

/*
** Returns true if zSql, the CREATE statement of a table, creates a
** tracestore or tracestore_info virtual table.
*/
static int tsIsTracestoreTable(const char *zSql){
  const char *z;
  if( zSql==0 || sqlite3_strnicmp(zSql, "CREATE VIRTUAL TABLE ", 21)!=0 ){
    return 0;
  }
  for(z=zSql+21; *z; z++){
    if( sqlite3_strnicmp(z, " USING ", 7)==0 ) break;
  }
  if( *z==0 ) return 0;
  z += 7;
  while( *z==' ' ) z++;
  if( sqlite3_strnicmp(z, "tracestore_info", 15)==0 ){
    z += 15;
  }else if( sqlite3_strnicmp(z, "tracestore_rollup", 17)==0 ){
    z += 17;
  }else if( sqlite3_strnicmp(z, "tracestore", 10)==0 ){
    z += 10;
  }else{
    return 0;
  }
  while( *z==' ' ) z++;
  return *z=='(';
}

/*
** Returns the CREATE text SQLite keeps for the table tracestore_attach()
** creates for pTarget (the statement from the table name on, without the
** schema).  From sqlite3_mprintf().
*/
static char *tsTargetSql(tracestore_target *pTarget, const char *zPath){
  if( pTarget->eKind==TS_TARGET_INFO ){
    return sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                           "tracestore_info(%Q)", pTarget->zName, zPath);
  }
  if( pTarget->eKind==TS_TARGET_ROLLUP ){
    return sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                           "tracestore_rollup(%Q, %Q)", pTarget->zName, zPath,
                           pTarget->zName + sizeof(TS_ROLLUP_PREFIX) - 1);
  }
  return sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                         "tracestore(%Q, %Q)", pTarget->zName, zPath,
                         pTarget->zName);
}

/*
** Sets pTarget->eAction (and zOldSql) from what zSchema holds under
** pTarget->zName.  Returns an error, with a message in *pzErr, if the name
** is taken by something that is not a tracestore table, or if there is no
** such schema.
*/
static int tsCheckTarget(
  sqlite3 *db,
  const char *zSchema,
  const char *zPath,
  tracestore_target *pTarget,
  char **pzErr
){
  char *zWanted = tsTargetSql(pTarget, zPath);
  int rc;
  if( zWanted==0 ) return SQLITE_NOMEM;
  rc = tsCheckName(db, zSchema, pTarget->zName, "table", tsIsTracestoreTable,
                   zWanted, &pTarget->eAction, &pTarget->zOldSql, pzErr);
  sqlite3_free(zWanted);
  return rc;
}

/*
** Returns true if zSql is the CREATE text of a table that
** tracestore_attach() made under the name zName (for any session).
*/
static int tsMadeByAttach(const char *zName, const char *zSql){
  char *zPrefix, *zSuffix;
  size_t nSql, nPrefix, nSuffix;
  int bMatch = 0;
  if( sqlite3_stricmp(zName, "store_info")==0 ){
    zPrefix = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                              "tracestore_info(", zName);
    zSuffix = sqlite3_mprintf(")");
  }else if( sqlite3_strnicmp(zName, TS_ROLLUP_PREFIX,
                             sizeof(TS_ROLLUP_PREFIX)-1)==0 ){
    zPrefix = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                              "tracestore_rollup(", zName);
    zSuffix = sqlite3_mprintf(", %Q)",
                              zName + sizeof(TS_ROLLUP_PREFIX) - 1);
  }else{
    zPrefix = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\" USING "
                              "tracestore(", zName);
    zSuffix = sqlite3_mprintf(", %Q)", zName);
  }
  if( zPrefix && zSuffix && zSql ){
    nSql = strlen(zSql);
    nPrefix = strlen(zPrefix);
    nSuffix = strlen(zSuffix);
    bMatch = nSql>nPrefix+nSuffix
          && memcmp(zSql, zPrefix, nPrefix)==0
          && memcmp(zSql+nSql-nSuffix, zSuffix, nSuffix)==0;
  }
  sqlite3_free(zPrefix);
  sqlite3_free(zSuffix);
  return bMatch;
}

/* The targets of tsFindStale(), and the number of them. */
typedef struct tracestore_targets tracestore_targets;
struct tracestore_targets {
  tracestore_target *aTarget;
  int nTarget;
};

/*
** tsForEachObject() callback of tsFindStale(): adds table zName if an
** earlier tracestore_attach() made it and it is not already a target.
*/
static int tsAddStale(void *pArg, const char *zName, const char *zSql){
  tracestore_targets *p = (tracestore_targets*)pArg;
  tracestore_target *aNew;
  int i;
  if( strlen(zName)>TRACE_NAME_SIZE || !tsMadeByAttach(zName, zSql) ){
    return SQLITE_OK;
  }
  for(i=0; i<p->nTarget; i++){
    if( sqlite3_stricmp(p->aTarget[i].zName, zName)==0 ) return SQLITE_OK;
  }
  aNew = sqlite3_realloc64(p->aTarget,
                           sizeof(aNew[0])*(size_t)(p->nTarget+1));
  if( aNew==0 ) return SQLITE_NOMEM;
  p->aTarget = aNew;
  aNew = &aNew[p->nTarget++];
  memset(aNew, 0, sizeof(*aNew));
  memcpy(aNew->zName, zName, strlen(zName)+1);
  aNew->eAction = TS_ACTION_DROP;
  aNew->zOldSql = sqlite3_mprintf("%s", zSql);
  return aNew->zOldSql ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** Appends to *paTarget (holding *pnTarget entries) a TS_ACTION_DROP entry
** for every table of zSchema that an earlier tracestore_attach() made and
** that is not already a target.
*/
static int tsFindStale(
  sqlite3 *db,
  const char *zSchema,
  tracestore_target **paTarget,
  int *pnTarget,
  char **pzErr
){
  tracestore_targets t;
  int rc;
  t.aTarget = *paTarget;
  t.nTarget = *pnTarget;
  rc = tsForEachObject(db, zSchema, "table", tsAddStale, &t, pzErr);
  *paTarget = t.aTarget;
  *pnTarget = t.nTarget;
  return rc;
}

/* tracestoreRollupQuestions() callback: a rollup table to make. */
typedef struct ts_rollup_targets ts_rollup_targets;
struct ts_rollup_targets {
  tracestore_target *aTarget;
  int nTarget;
  int nAlloc;
};
static int tsAddRollupTarget(void *pArg, const char *zQuestion){
  ts_rollup_targets *p = (ts_rollup_targets*)pArg;
  tracestore_target *pTarget;
  if( p->nTarget>=p->nAlloc ) return SQLITE_OK;
  pTarget = &p->aTarget[p->nTarget++];
  memset(pTarget, 0, sizeof(*pTarget));
  sqlite3_snprintf(sizeof(pTarget->zName), pTarget->zName, "%s%s",
                   TS_ROLLUP_PREFIX, zQuestion);
  pTarget->eKind = TS_TARGET_ROLLUP;
  return SQLITE_OK;
}

/* The most rollup tables a session has (tracestore_rollup.c). */
#define TS_MAX_ROLLUP_TABLES 8

/*
** Sets *paTarget (from sqlite3_malloc, *pnTarget entries, to be freed by
** the caller also on failure) to the tables the session at zPath needs:
** one per store but the string stores, then store_info, then the rollup
** tables its stores answer.  The session is
** opened once, to check it and to learn its store names.  A store whose
** name cannot be a table in zSchema is an error naming its file.
*/
static int tsAttachTargets(
  const char *zPath,
  const char *zSchema,
  int bScan,
  tracestore_target **paTarget,
  int *pnTarget,
  char **pzErr
){
  TRACE_SESSION *pSession = 0;
  PTRACE_STORE apStore[TRACE_SESSION_MAX_STORES + 2];
  tracestore_target *aTarget;
  tracestore_target *pTarget;
  char *zErr = 0;
  int nTarget = 0, nStore, i, rc;

  *paTarget = 0;
  *pnTarget = 0;
  rc = tsSessionOpen(zPath, &pSession, pzErr);
  if( rc!=SQLITE_OK ) return rc;
  nStore = tsListStores(pSession, apStore);
  aTarget = sqlite3_malloc64(sizeof(aTarget[0])
                             * (size_t)(nStore+1+TS_MAX_ROLLUP_TABLES));
  if( aTarget==0 ){
    tsSessionClose(pSession);
    return SQLITE_NOMEM;
  }
  memset(aTarget, 0, sizeof(aTarget[0])
                     * (size_t)(nStore+1+TS_MAX_ROLLUP_TABLES));
  *paTarget = aTarget;
  for(i=0; i<nStore; i++){
    pTarget = &aTarget[nTarget];
    tsCopyName(pTarget->zName, apStore[i]->Name);
    if( strcmp(pTarget->zName, "string")==0
     || strcmp(pTarget->zName, "string_data")==0
     || pTarget->zName[0]==0 ){
      continue;
    }
    /* A store file may be named anything: not like store_info or a view,
    ** nor with the prefix SQLite keeps for itself. */
    if( sqlite3_stricmp(pTarget->zName, "store_info")==0
     || sqlite3_strnicmp(pTarget->zName, TS_ROLLUP_PREFIX,
                         sizeof(TS_ROLLUP_PREFIX)-1)==0
     || (sqlite3_stricmp(zSchema, "temp")==0
         && tracestoreIsViewName(pTarget->zName)) ){
      zErr = sqlite3_mprintf("%s: a store named '%s' would take the name of "
                             "the %s %s; rename or remove that file",
                             apStore[i]->Path, pTarget->zName,
                             tracestoreIsViewName(pTarget->zName) ?
                             "view" : "table", pTarget->zName);
      rc = zErr ? SQLITE_ERROR : SQLITE_NOMEM;
      goto targets_done;
    }
    if( sqlite3_strnicmp(pTarget->zName, "sqlite_", 7)==0 ){
      zErr = sqlite3_mprintf("%s: a store named '%s' cannot be a table: "
                             "SQLite keeps names beginning with sqlite_ for "
                             "itself; rename or remove that file",
                             apStore[i]->Path, pTarget->zName);
      rc = zErr ? SQLITE_ERROR : SQLITE_NOMEM;
      goto targets_done;
    }
    nTarget++;
  }
  memcpy(aTarget[nTarget].zName, "store_info", sizeof("store_info"));
  aTarget[nTarget++].eKind = TS_TARGET_INFO;
  if( !bScan ){
    ts_rollup_targets r;
    r.aTarget = aTarget;
    r.nTarget = nTarget;
    r.nAlloc = nTarget + TS_MAX_ROLLUP_TABLES;
    rc = tracestoreRollupQuestions(pSession, tsAddRollupTarget, &r);
    nTarget = r.nTarget;
  }

targets_done:
  if( zErr ) *pzErr = zErr;
  *pnTarget = nTarget;
  tsSessionClose(pSession);
  return rc;
}

/*
** Drops the tables that are replaced or stale, then creates the new ones,
** marking each target bDropped and bCreated as it goes (for
** tsAttachUndo()).  Stops at the first failure, with a message in *pzErr.
*/
static int tsAttachApply(
  sqlite3 *db,
  const char *zSchema,
  const char *zPath,
  tracestore_target *aTarget,
  int nTarget,
  char **pzErr
){
  tracestore_target *pTarget;
  char *zSql;
  int i, rc;

  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->eAction!=TS_ACTION_REPLACE
     && pTarget->eAction!=TS_ACTION_DROP ){
      continue;
    }
    rc = tsExec(db, sqlite3_mprintf("DROP TABLE \"%w\".\"%w\"",
                                    zSchema, pTarget->zName), pzErr);
    if( rc!=SQLITE_OK ){
      if( rc==SQLITE_LOCKED ){
        sqlite3_free(*pzErr);
        *pzErr = sqlite3_mprintf("cannot drop %s.%s while a statement "
                                 "that reads it is still running: finish "
                                 "that statement, then call again",
                                 zSchema, pTarget->zName);
      }
      return rc;
    }
    pTarget->bDropped = 1;
  }
  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->eAction==TS_ACTION_KEEP
     || pTarget->eAction==TS_ACTION_DROP ){
      continue;
    }
    if( pTarget->eKind==TS_TARGET_INFO ){
      zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" "
                             "USING tracestore_info(%Q)",
                             zSchema, pTarget->zName, zPath);
    }else if( pTarget->eKind==TS_TARGET_ROLLUP ){
      zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" "
                             "USING tracestore_rollup(%Q, %Q)",
                             zSchema, pTarget->zName, zPath,
                             pTarget->zName + sizeof(TS_ROLLUP_PREFIX) - 1);
    }else{
      zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".\"%w\" "
                             "USING tracestore(%Q, %Q)",
                             zSchema, pTarget->zName, zPath, pTarget->zName);
    }
    rc = tsExec(db, zSql, pzErr);
    if( rc!=SQLITE_OK ) return rc;
    pTarget->bCreated = 1;
  }
  return SQLITE_OK;
}

/*
** After a failure, best effort: drops what this call created and puts
** back what it dropped ("CREATE VIRTUAL TABLE " and then the old text from
** the table name on, into the same schema).
*/
static void tsAttachUndo(
  sqlite3 *db,
  const char *zSchema,
  tracestore_target *aTarget,
  int nTarget
){
  tracestore_target *pTarget;
  int i;
  for(i=0; i<nTarget; i++){
    pTarget = &aTarget[i];
    if( pTarget->bCreated ){
      tsExec(db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w\"",
                                 zSchema, pTarget->zName), 0);
    }
    if( pTarget->bDropped && pTarget->zOldSql ){
      tsExec(db, sqlite3_mprintf("CREATE VIRTUAL TABLE \"%w\".%s", zSchema,
                                 pTarget->zOldSql + 21), 0);
    }
  }
}

/*
** The session SCHEMA shows, from its store_info table's CREATE text
** (tracestore_info('PATH')), into *pzShown (sqlite3_malloc'd; 0 if SCHEMA
** shows none).
*/
static int tsShownSession(sqlite3 *db, const char *zSchema, char **pzShown){
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;
  *pzShown = 0;
  zSql = sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_master WHERE "
                         "type = 'table' AND name = 'store_info'", zSchema);
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ) return SQLITE_OK;   /* no such schema: said later */
  if( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    const char *zOpen = z ? strstr(z, "tracestore_info('") : 0;
    if( zOpen && tsIsTracestoreTable(z) ){
      sqlite3_str *pStr = sqlite3_str_new(db);
      for(z=zOpen+17; *z && !(z[0]=='\'' && z[1]!='\''); z++){
        if( z[0]=='\'' ) z++;            /* '' is one quote */
        sqlite3_str_appendchar(pStr, 1, *z);
      }
      *pzShown = sqlite3_str_finish(pStr);
      if( *pzShown==0 ) rc = SQLITE_NOMEM;
    }
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** True if paths zA and zB name the same session directory: the same
** absolute path once resolved (realpath; _fullpath on Windows), or, where
** one cannot be resolved, the same text but for trailing separators.
*/
static int tsSameSession(const char *zA, const char *zB){
  size_t nA = strlen(zA), nB = strlen(zB);
  char *zRealA, *zRealB;
  int bSame;
#ifdef _WIN32
  zRealA = _fullpath(0, zA, 0);
  zRealB = _fullpath(0, zB, 0);
#else
  zRealA = realpath(zA, 0);
  zRealB = realpath(zB, 0);
#endif
  if( zRealA && zRealB ){
    zA = zRealA; nA = strlen(zA);
    zB = zRealB; nB = strlen(zB);
  }
  while( nA>1 && (zA[nA-1]=='/' || zA[nA-1]=='\\') ) nA--;
  while( nB>1 && (zB[nB-1]=='/' || zB[nB-1]=='\\') ) nB--;
  bSame = nA==nB && memcmp(zA, zB, nA)==0;
  free(zRealA);
  free(zRealB);
  return bSame;
}

/*
** Drops what tracestore_attach() made in zSchema: its tables, and in temp
** its views and what tracestore_attach_sessions() made there.  Sets
** *pnDropped to the number of tables dropped.
*/
static int tsDetach(sqlite3 *db, const char *zSchema, int *pnDropped,
                    char **pzErr){
  tracestore_target *aTarget = 0;
  int nTarget = 0, rc, i;
  *pnDropped = 0;
  rc = tsFindStale(db, zSchema, &aTarget, &nTarget, pzErr);
  if( rc==SQLITE_OK ){
    rc = tsAttachApply(db, zSchema, "", aTarget, nTarget, pzErr);
    /* (A table in use: the ones dropped come back, nothing changed.) */
    if( rc!=SQLITE_OK ) tsAttachUndo(db, zSchema, aTarget, nTarget);
  }
  for(i=0; i<nTarget; i++){
    *pnDropped += aTarget[i].bDropped;
    sqlite3_free(aTarget[i].zOldSql);
  }
  sqlite3_free(aTarget);
  if( rc==SQLITE_OK && sqlite3_stricmp(zSchema, "temp")==0 ){
    rc = tracestoreFleetClear(db, pzErr);
  }
  return rc;
}

/* tracestore_detach([SCHEMA]): see the comment at the top. */
static void tracestoreDetachFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zSchema = "temp";
  char *zErr = 0, *zMsg;
  int rc, nDropped;
  if( argc>0 ){
    zSchema = (const char*)sqlite3_value_text(argv[0]);
    if( zSchema==0 || zSchema[0]==0 ){
      sqlite3_result_error(ctx, "tracestore_detach(SCHEMA): SCHEMA must "
                           "name a database, such as 'temp'", -1);
      return;
    }
  }
  rc = tsDetach(db, zSchema, &nDropped, &zErr);
  if( rc==SQLITE_OK ){
    sqlite3_result_int(ctx, nDropped);
  }else if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    zMsg = sqlite3_mprintf("tracestore_detach: %s",
                           zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zMsg ? zMsg : "tracestore_detach failed", -1);
    sqlite3_free(zMsg);
  }
  sqlite3_free(zErr);
}

static void tracestoreAttachFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  tracestore_target *aTarget = 0;
  const char *zPath;
  const char *zSchema = "temp";
  char *zErr = 0;
  char *zMsg;
  int nTarget = 0, nTable, i, rc, bScan = 0;

  zPath = (const char*)sqlite3_value_text(argv[0]);
  if( zPath==0 || zPath[0]==0 ){
    sqlite3_result_error(ctx, "tracestore_attach(PATH [, SCHEMA]): PATH "
                         "must name the directory of a trace session", -1);
    return;
  }
  if( argc>1 ){
    zSchema = (const char*)sqlite3_value_text(argv[1]);
    if( zSchema==0 || zSchema[0]==0 ){
      sqlite3_result_error(ctx, "tracestore_attach(PATH, SCHEMA): SCHEMA "
                           "must name a database, such as 'temp' or 'main'",
                           -1);
      return;
    }
  }

  if( argc>2 ){
    const char *zMode = (const char*)sqlite3_value_text(argv[2]);
    if( zMode==0 || (zMode[0] && sqlite3_stricmp(zMode, "scan")!=0) ){
      sqlite3_result_error(ctx, "tracestore_attach(PATH, SCHEMA, MODE): MODE "
                           "must be '' or 'scan' (the views scan the rows "
                           "instead of reading the rollups)", -1);
      return;
    }
    bScan = zMode[0]!=0;
  }

  rc = tsAttachTargets(zPath, zSchema, bScan, &aTarget, &nTarget, &zErr);
  if( rc!=SQLITE_OK ) goto attach_error;

  /* A schema shows one session: another one is refused, not switched to
  ** behind the user's back (the tables of the first would change under
  ** their queries), and so is one where tracestore_attach_sessions()
  ** shows several. */
  {
    char *zShown = 0;
    rc = tsShownSession(db, zSchema, &zShown);
    if( rc!=SQLITE_OK ) goto attach_error;
    if( zShown && !tsSameSession(zShown, zPath) ){
      zErr = sqlite3_mprintf("%s already shows the session '%s'; to show "
          "'%s' instead, SELECT tracestore_detach(%Q) first; to see both, "
          "SELECT tracestore_attach_sessions('%q', '%q'), or attach it into "
          "another schema (ATTACH ':memory:' AS b; SELECT "
          "tracestore_attach('%q', 'b'))", zSchema, zShown, zPath, zSchema,
          zShown, zPath, zPath);
      rc = SQLITE_ERROR;
    }else if( sqlite3_stricmp(zSchema, "temp")==0 && tsFleetInTemp(db) ){
      zErr = sqlite3_mprintf("temp shows the sessions of "
          "tracestore_attach_sessions(); SELECT tracestore_detach() first, "
          "or name '%q' among them", zPath);
      rc = SQLITE_ERROR;
    }
    sqlite3_free(zShown);
    if( rc!=SQLITE_OK ) goto attach_error;
  }

  /* Change nothing unless every name is free or a tracestore table.  The
  ** count returned is of the store tables and store_info: the rollup
  ** tables are what the views read. */
  nTable = 0;
  for(i=0; i<nTarget; i++){
    nTable += aTarget[i].eKind!=TS_TARGET_ROLLUP;
  }
  for(i=0; i<nTarget; i++){
    rc = tsCheckTarget(db, zSchema, zPath, &aTarget[i], &zErr);
    if( rc!=SQLITE_OK ) goto attach_error;
  }
  rc = tsFindStale(db, zSchema, &aTarget, &nTarget, &zErr);
  if( rc!=SQLITE_OK ) goto attach_error;

  rc = tsAttachApply(db, zSchema, zPath, aTarget, nTarget, &zErr);
  /* The views over these tables (tracestore_views.c). */
  if( rc==SQLITE_OK ) rc = tracestoreViewsAttach(db, zSchema, zPath, &zErr);
  if( rc!=SQLITE_OK ){
    tsAttachUndo(db, zSchema, aTarget, nTarget);  /* keeps the first error */
    goto attach_error;
  }
  sqlite3_result_int(ctx, nTable);
  goto attach_done;

attach_error:
  if( rc==SQLITE_NOMEM ){
    sqlite3_result_error_nomem(ctx);
  }else{
    zMsg = sqlite3_mprintf("tracestore_attach: %s",
                           zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zMsg ? zMsg : "tracestore_attach failed", -1);
    sqlite3_free(zMsg);
  }

attach_done:
  if( aTarget ){
    for(i=0; i<nTarget; i++) sqlite3_free(aTarget[i].zOldSql);
    sqlite3_free(aTarget);
  }
  sqlite3_free(zErr);
}

/*
** Registers tracestore_attach(PATH [, SCHEMA [, MODE]]) and
** tracestore_detach([SCHEMA]) on db.
** SQLITE_DIRECTONLY: a database file's views and triggers may not make
** the extension open files.
*/
int tracestoreAttachInit(sqlite3 *db){
  int rc = SQLITE_OK, nArg;
  for(nArg=1; rc==SQLITE_OK && nArg<=3; nArg++){
    rc = sqlite3_create_function_v2(db, "tracestore_attach", nArg,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                    tracestoreAttachFunc, 0, 0, 0);
  }
  for(nArg=0; rc==SQLITE_OK && nArg<=1; nArg++){
    rc = sqlite3_create_function_v2(db, "tracestore_detach", nArg,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, 0,
                                    tracestoreDetachFunc, 0, 0, 0);
  }
  return rc;
}
