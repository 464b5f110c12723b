/*
** tracestore_int.h: declarations internal to the Tracer SQLite extension,
** shared between its files (the public entry point is tracestore.h).
**
** tracestore_session.c: the process's RTL, and sessions opened read-only
** for the virtual tables and tracestore_attach().
**
** tracestore_info.c: the tracestore_info module, registered by
** sqlite3_tracestore_init().
**
** tracestore_attach.c: tracestore_attach(), registered by
** sqlite3_tracestore_init().
**
** tracestore_catalog.c: tracestore_attach() makes its tables (above)
** and its views (tracestore_views.c) by the same rules (create, keep,
** replace, refuse a name taken by something else, drop what an earlier
** call made), so both use these to read SCHEMA.sqlite_master and to run
** what they build.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_INT_H
#define TRACER_SQLITE3EXT_TRACESTORE_INT_H

#include <sqlite3.h>

#include "../TraceStore/TraceStore.h"

/* -------------------------------------------------------------------------
** tracestore_session.c
*/

/*
** Fills in the RTL every connection of the process shares, once (the
** first call; later ones return at once).  SQLITE_ERROR with a message in
** *pzErrMsg if the runtime cannot start.
*/
int tsInitializeRtl(char **pzErrMsg);

/*
** Copies a fixed-size name field of a store header, which need not be
** NUL-terminated in a damaged file, into z (TRACE_NAME_SIZE+1 bytes).
*/
void tsCopyName(char *z, const char *zField);

/*
** Removes the quotes SQLite leaves on a module argument ('x', "x", `x`,
** [x]) and surrounding white space, in place.
*/
void tsDequote(char *z);

/*
** The text of a failed core call, for a person at the prompt: the core's
** message (which names the file) when there is one, or the status text.
** From sqlite3_mprintf().
*/
char *tsErrorText(RTL_STATUS status, RTL_ERROR *pError);

/*
** Opens the session at zPath read-only into a new TRACE_SESSION, closed
** with tsSessionClose() (which takes 0 too).  On failure *pzErr holds a
** message naming zPath and the reason.
*/
int tsSessionOpen(const char *zPath, TRACE_SESSION **ppSession,
                  char **pzErr);
void tsSessionClose(TRACE_SESSION *pSession);

/* The store named zName, string stores included, or 0. */
PTRACE_STORE tsFindStore(TRACE_SESSION *pSession, const char *zName);

/*
** Fills apStore (TRACE_SESSION_MAX_STORES + 2 entries) with every open
** store of the session, string stores included, in name order.  Returns
** the count.
*/
int tsListStores(TRACE_SESSION *pSession, PTRACE_STORE *apStore);

/* -------------------------------------------------------------------------
** tracestore_info.c
*/

/* Registers the tracestore_info module. */
int tracestoreInfoInit(sqlite3 *db);

/* -------------------------------------------------------------------------
** tracestore_attach.c
*/

/* Registers tracestore_attach(PATH [, SCHEMA]). */
int tracestoreAttachInit(sqlite3 *db);

/* -------------------------------------------------------------------------
** tracestore_catalog.c
*/

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
