/*
** tracestore_source.c: source_line(FILE, LINENO), the text of a source
** line, for the line views (line_time, line_hot: kernprof's Line
** Contents) and anyone's SQL.
**
** Zone: hosted (the SQLite extension): libc (stat, fopen) and SQLite's
** API; it opens no session.  Registered by tracestore.c
** (tracestoreSourceInit, declared in tracestore_int.h); documented with
** the views (aViewDoc in tracestore_views.c, docs/schema.md).
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tracestore_int.h"

/*
** source_line(FILE, LINENO): line LINENO (1-based) of text file FILE,
** without its line end, or NULL when the file cannot be read or is
** shorter (line_time and line_hot show it as kernprof's Line Contents).
** The last few files read are kept, with where each line starts, per
** connection: the views call it once per row they show.  Only regular
** files are read (a name from a damaged session may be a FIFO or a
** device), and not over 64 MB.  SQLITE_DIRECTONLY: it reads files, so a
** view or trigger stored in a database file cannot call it (the temp
** views can).
*/
#define TS_SOURCE_CACHE 8
#define TS_SOURCE_MAX   (64 << 20)
typedef struct ts_source ts_source;
struct ts_source {
  char *zPath;          /* file name, sqlite3_malloc'ed */
  char *zText;          /* its bytes, or NULL if unreadable */
  long *aLine;          /* offset of each line's start, nLine+1 entries */
  int nLine;
  unsigned int iUsed;   /* for least-recently-used eviction */
};
typedef struct ts_source_cache ts_source_cache;
struct ts_source_cache {
  ts_source a[TS_SOURCE_CACHE];
  unsigned int iClock;
};

static void tsSourceClear(ts_source *p){
  sqlite3_free(p->zPath);
  sqlite3_free(p->zText);
  sqlite3_free(p->aLine);
  memset(p, 0, sizeof(*p));
}

static void tsSourceCacheFree(void *pArg){
  ts_source_cache *c = (ts_source_cache*)pArg;
  int i;
  for(i=0; i<TS_SOURCE_CACHE; i++) tsSourceClear(&c->a[i]);
  sqlite3_free(c);
}

/* Reads file zPath into p (zText NULL if it cannot be read). */
static int tsSourceLoad(ts_source *p, const char *zPath){
  FILE *f;
  struct stat st;
  long n, i;
  int k;
  p->zPath = sqlite3_mprintf("%s", zPath);
  if( p->zPath==0 ) return SQLITE_NOMEM;
  if( stat(zPath, &st)!=0 || !S_ISREG(st.st_mode) || st.st_size<0
   || st.st_size>TS_SOURCE_MAX ){
    return SQLITE_OK;
  }
  n = (long)st.st_size;
  f = fopen(zPath, "rb");
  if( f==0 ) return SQLITE_OK;
  p->zText = sqlite3_malloc64((sqlite3_uint64)n + 1);
  if( p->zText==0 ){ fclose(f); return SQLITE_NOMEM; }
  n = (long)fread(p->zText, 1, (size_t)n, f);
  fclose(f);
  p->zText[n] = 0;
  p->nLine = 0;
  for(i=0; i<n; i++) if( p->zText[i]=='\n' ) p->nLine++;
  if( n>0 && p->zText[n-1]!='\n' ) p->nLine++;
  p->aLine = sqlite3_malloc64(sizeof(long)*((sqlite3_uint64)p->nLine + 1));
  if( p->aLine==0 ) return SQLITE_NOMEM;
  p->aLine[0] = 0;
  for(i=0, k=1; i<n && k<=p->nLine; i++){
    if( p->zText[i]=='\n' ) p->aLine[k++] = i+1;
  }
  p->aLine[p->nLine] = n + (n>0 && p->zText[n-1]!='\n' ? 1 : 0);
  return SQLITE_OK;
}

static void tsSourceLineFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  ts_source_cache *c = (ts_source_cache*)sqlite3_user_data(ctx);
  const char *zPath = (const char*)sqlite3_value_text(argv[0]);
  sqlite3_int64 iLine;
  ts_source *p = 0;
  long iStart, iEnd;
  int i;
  (void)argc;
  if( zPath==0 || !tsIntegerArg(argv[1], &iLine) ) return;
  for(i=0; i<TS_SOURCE_CACHE && p==0; i++){
    if( c->a[i].zPath && strcmp(c->a[i].zPath, zPath)==0 ) p = &c->a[i];
  }
  if( p==0 ){
    p = &c->a[0];
    for(i=1; i<TS_SOURCE_CACHE; i++){
      if( c->a[i].iUsed<p->iUsed ) p = &c->a[i];
    }
    tsSourceClear(p);
    if( tsSourceLoad(p, zPath)!=SQLITE_OK ){
      tsSourceClear(p);
      sqlite3_result_error_nomem(ctx);
      return;
    }
  }
  p->iUsed = ++c->iClock;
  if( p->zText==0 || iLine<1 || iLine>p->nLine ) return;
  iStart = p->aLine[iLine-1];
  iEnd = p->aLine[iLine];
  while( iEnd>iStart && (p->zText[iEnd-1]=='\n' || p->zText[iEnd-1]=='\r') ){
    iEnd--;
  }
  sqlite3_result_text(ctx, p->zText + iStart, (int)(iEnd - iStart),
                      SQLITE_TRANSIENT);
}

int tracestoreSourceInit(sqlite3 *db){
  ts_source_cache *c = sqlite3_malloc(sizeof(*c));
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  /* sqlite3_create_function_v2 calls the destructor on failure too. */
  return sqlite3_create_function_v2(db, "source_line", 2,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
                                    tsSourceLineFunc, 0, 0, tsSourceCacheFree);
}
