/*
** tracestore_catalog.c: what a schema holds under a name, for
** tracestore_attach() and the views it makes.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API only (it
** opens no session); included by nothing outside Sqlite3Ext/.
** Owns: the rules by which tracestore_attach() treats a name of its
** tables and views (create, keep, replace, refuse), and the reading of
** SCHEMA.sqlite_master behind them.
** Calls: SQLite only.  Called by tracestore_attach.c (tables) and
** tracestore_views.c (views); declared in tracestore_int.h.
**
** Usage:
**
**     rc = tsCheckName(db, zSchema, zName, "view", xOurs, zWanted,
**                      &eAction, &zOldSql, &zErr);
**     rc = tsForEachObject(db, zSchema, "table", xObject, pArg, &zErr);
**     rc = tsExec(db, sqlite3_mprintf("DROP VIEW %s.%s", ...), &zErr);
**
** How it works:
**
**   tsCheckName() looks the name up in SCHEMA.sqlite_master, without
**   regard to case as SQLite resolves names, and compares what it finds
**   with the CREATE text the caller would write: the same text is kept, a
**   text the caller recognizes as its own (xOurs) is replaced, anything
**   else is the user's and an error.  Nothing is changed here: the caller
**   checks every name before it drops or creates anything.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "tracestore_int.h"

/*
** Sets *peAction from what zSchema holds under zName (see
** tracestore_int.h).
*/
int tsCheckName(
  sqlite3 *db,
  const char *zSchema,
  const char *zName,
  const char *zType,
  int (*xOurs)(const char*),
  const char *zWanted,
  int *peAction,
  char **pzOldSql,
  char **pzErr
){
  sqlite3_stmt *pStmt = 0;
  char *zSql;
  int rc;

  *peAction = TS_ACTION_CREATE;
  zSql = sqlite3_mprintf("SELECT type, sql FROM \"%w\".sqlite_master "
                         "WHERE name=?1 COLLATE NOCASE", zSchema);
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("there is no database named '%s' to create the "
                             "tables in (ATTACH one first, e.g. "
                             "ATTACH ':memory:' AS \"%w\")", zSchema, zSchema);
    return rc;
  }
  sqlite3_bind_text(pStmt, 1, zName, -1, SQLITE_STATIC);
  rc = sqlite3_step(pStmt);
  if( rc==SQLITE_ROW ){
    const char *zFound = (const char*)sqlite3_column_text(pStmt, 0);
    const char *zCreate = (const char*)sqlite3_column_text(pStmt, 1);
    rc = SQLITE_OK;
    if( zFound==0 || strcmp(zFound, zType)!=0 || !xOurs(zCreate) ){
      *pzErr = sqlite3_mprintf("%s.%s already exists and is not a "
                               "tracestore %s: drop it, or attach into "
                               "another schema with tracestore_attach(PATH, "
                               "SCHEMA)", zSchema, zName, zType);
      rc = SQLITE_ERROR;
    }else if( strcmp(zWanted, zCreate)==0 ){
      *peAction = TS_ACTION_KEEP;
    }else{
      *peAction = TS_ACTION_REPLACE;
      *pzOldSql = sqlite3_mprintf("%s", zCreate);
      if( *pzOldSql==0 ) rc = SQLITE_NOMEM;
    }
  }else if( rc==SQLITE_DONE ){
    rc = SQLITE_OK;
  }else{
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Calls xObject for each object of type zType in zSchema (see
** tracestore_int.h).
*/
int tsForEachObject(
  sqlite3 *db,
  const char *zSchema,
  const char *zType,
  int (*xObject)(void*, const char*, const char*),
  void *pArg,
  char **pzErr
){
  sqlite3_stmt *pStmt = 0;
  const char *zName, *zSql;
  char *zQuery;
  int rc;

  zQuery = sqlite3_mprintf("SELECT name, sql FROM \"%w\".sqlite_master "
                           "WHERE type=%Q", zSchema, zType);
  if( zQuery==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, zQuery, -1, &pStmt, 0);
  sqlite3_free(zQuery);
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    return rc;
  }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    zName = (const char*)sqlite3_column_text(pStmt, 0);
    zSql = (const char*)sqlite3_column_text(pStmt, 1);
    if( zName==0 || zSql==0 ) continue;
    rc = xObject(pArg, zName, zSql);
    if( rc!=SQLITE_OK ){
      sqlite3_finalize(pStmt);
      return rc;
    }
  }
  if( rc==SQLITE_DONE ){
    rc = SQLITE_OK;
  }else{
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(pStmt);
  return rc;
}

/*
** Runs one statement built with sqlite3_mprintf() (which may have failed).
*/
int tsExec(sqlite3 *db, char *zSql, char **pzErr){
  int rc;
  if( zSql==0 ) return SQLITE_NOMEM;
  rc = sqlite3_exec(db, zSql, 0, 0, pzErr);
  sqlite3_free(zSql);
  return rc;
}
