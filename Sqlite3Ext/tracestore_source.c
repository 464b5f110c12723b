/*
** tracestore_source.c: source_line(FILE, LINENO), the text of a source
** line, for the line views (line_time, line_hot: kernprof's Line
** Contents) and anyone's SQL.
**
** Zone: hosted (the SQLite extension): SQLite's API; it opens no
** session.  Reads the files through SourceText/SourceLines.c (a cache per
** connection).  Registered by tracestore.c (tracestoreSourceInit,
** declared in tracestore_int.h); documented with the views (tracestore_doc.c,
** docs/schema.md).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "SourceText/SourceLines.h"
#include "tracestore_int.h"

/*
** source_line(FILE, LINENO): line LINENO (1-based) of text file FILE,
** without its line end, or NULL when the file cannot be read or is
** shorter.  SQLITE_DIRECTONLY: it reads files, so a view or trigger
** stored in a database file cannot call it (the temp views can).
*/
static void tsSourceLineFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  SourceCache *c = (SourceCache*)sqlite3_user_data(ctx);
  const char *zPath = (const char*)sqlite3_value_text(argv[0]);
  const char *zLine;
  size_t nLine;
  sqlite3_int64 iLine;
  (void)argc;
  if( zPath==0 || !tsIntegerArg(argv[1], &iLine) ) return;
  switch( sourceLine(c, zPath, iLine, &zLine, &nLine) ){
    case 1:
      sqlite3_result_text64(ctx, zLine, nLine, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case -1:
      sqlite3_result_error_nomem(ctx);
      break;
  }
}

static void tsSourceCacheFree(void *p){
  sourceCacheFree((SourceCache*)p);
}

int tracestoreSourceInit(sqlite3 *db){
  SourceCache *c = sourceCacheNew();
  if( c==0 ) return SQLITE_NOMEM;
  /* sqlite3_create_function_v2 calls the destructor on failure too. */
  return sqlite3_create_function_v2(db, "source_line", 2,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
                                    tsSourceLineFunc, 0, 0, tsSourceCacheFree);
}
