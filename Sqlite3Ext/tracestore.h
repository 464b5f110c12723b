/*
** tracestore.h: the entry point of the Tracer SQLite extension, for hosts
** that link it statically (the tracestore command) instead of loading
** tracestore.so with ".load tracestore" or sqlite3_load_extension().
**
** Usage (statically linked):
**
**     sqlite3_auto_extension((void(*)(void))sqlite3_tracestore_init);
**
** or, for one connection:
**
**     char *zErr = 0;
**     rc = sqlite3_tracestore_init(db, &zErr, 0);
**
** See tracestore.c for the SQL interface.
**
** Zone: hosted (the SQLite extension); its only public header, included by
** the hosts that link it (the tracestore command, tests).  Declares the
** entry point and nothing else: the extension's internals are in
** tracestore_int.h and tracestore_views.h, which no host includes.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_H
#define TRACER_SQLITE3EXT_TRACESTORE_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
** Registers the tracestore and tracestore_info virtual table modules and
** the tracestore_attach() function on db.  Returns SQLITE_OK, or an error
** code with a message in *pzErrMsg (free it with sqlite3_free()).
*/
int sqlite3_tracestore_init(
  sqlite3 *db,
  char **pzErrMsg,
  const sqlite3_api_routines *pApi
);

#ifdef __cplusplus
}
#endif

#endif /* TRACER_SQLITE3EXT_TRACESTORE_H */
