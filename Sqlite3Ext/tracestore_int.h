/*
** tracestore_int.h: declarations internal to the Tracer SQLite extension,
** shared between its files (the public entry point is tracestore.h).
**
** tracestore_catalog.c: tracestore_attach() makes its tables (tracestore.c)
** and its views (tracestore_views.c) by the same rules (create, keep,
** replace, refuse a name taken by something else, drop what an earlier
** call made), so both use these to read SCHEMA.sqlite_master and to run
** what they build.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_INT_H
#define TRACER_SQLITE3EXT_TRACESTORE_INT_H

#include <sqlite3.h>

/* What tracestore_attach() does with one table or view. */
#define TS_ACTION_CREATE   0    /* No such name: create it */
#define TS_ACTION_KEEP     1    /* Exactly this object exists: keep it */
#define TS_ACTION_REPLACE  2    /* Ours, with another text: replace it */
#define TS_ACTION_DROP     3    /* Ours, made by an earlier call, not wanted */

/*
** Sets *peAction from what zSchema holds under zName: TS_ACTION_CREATE if
** nothing, TS_ACTION_KEEP if an object of type zType whose CREATE text is
** zWanted, TS_ACTION_REPLACE (and *pzOldSql, from sqlite3_malloc) if one
** of type zType for which xOurs(text) is true.  Anything else is an error:
** "SCHEMA.NAME already exists and is not a tracestore TYPE ..." in *pzErr,
** as is a schema that does not exist.
*/
int tsCheckName(sqlite3 *db, const char *zSchema, const char *zName,
                const char *zType, int (*xOurs)(const char*),
                const char *zWanted, int *peAction, char **pzOldSql,
                char **pzErr);

/*
** Calls xObject(pArg, zName, zSql) for each object of type zType in
** zSchema (rows without a name or text are skipped); stops at the first
** call that does not return SQLITE_OK and returns what it returned.
** Errors reading the schema come with a message in *pzErr.
*/
int tsForEachObject(sqlite3 *db, const char *zSchema, const char *zType,
                    int (*xObject)(void*, const char*, const char*),
                    void *pArg, char **pzErr);

/*
** Runs one statement built with sqlite3_mprintf() (0 when that ran out of
** memory) and frees it.
*/
int tsExec(sqlite3 *db, char *zSql, char **pzErr);

#endif /* TRACER_SQLITE3EXT_TRACESTORE_INT_H */
