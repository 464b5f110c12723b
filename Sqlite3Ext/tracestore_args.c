/*
** tracestore_args.c: the fields of an event's text as rows, the way
** Perfetto's `args` table shows an event's arguments.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API (it reads
** text, not sessions), Kernel/EventFields.h; included by nothing outside
** Sqlite3Ext/.
** Owns: the eponymous table-valued function tracestore_args and the SQL
** function tracestore_arg().
** Calls: SQLite, and the parser of Kernel/EventFields.c.  Registered by sqlite3_tracestore_init() through
** tracestoreArgsInit() (tracestore_views.h).
**
** Usage:
**
**     SELECT key, int_value, string_value
**       FROM tracestore_args('comm=bash pid=11525 prio=120');
**     SELECT tracestore_arg(args, 'filename') FROM ftrace_event
**      WHERE name = 'sched_process_exec';
**
**   tracestore_args(TEXT)
**
**     An eponymous table-valued function: one row per field of TEXT, in
**     order, with the columns
**       key            field name
**       int_value      the value as an integer, if it is one, else NULL
**       string_value   the value as text, if it is not an integer, else NULL
**       value_type     'int' or 'string'
**       display_value  the value as printed
**     A NULL TEXT has no rows.  tracestore_attach() makes the view `args`
**     over it (arg_set_id = ftrace_event.id).
**
**   tracestore_arg(TEXT, KEY)
**
**     The value of the first field named KEY (an integer when it is one,
**     else text), or NULL.
**
** How it works:
**
**   The fields are found by the parser the DuckDB extension shares,
**   Kernel/EventFields.c, whose header says how a text is read.  A quoted
**   value loses its quotes (and the backslashes before quotes) in
**   string_value; display_value keeps them.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "tracestore_views.h"
#include "Kernel/EventFields.h"

/* -------------------------------------------------------------------------
** The parser (Kernel/EventFields.c), with its scratch memory.
*/

typedef struct ts_args_parser ts_args_parser;
struct ts_args_parser {
  EVENT_FIELDS fields;
  int n;                /* The text's length */
  LONG *aScratch;       /* 2*n LONGs: aSmall, or nAlloc from the heap */
  int nAlloc;
  LONG aSmall[2*256];   /* For texts of up to 256 bytes */
};

typedef EVENT_FIELD ts_arg;

/*
** Starts parsing z[0..n).  Returns SQLITE_NOMEM if the scratch cannot be
** allocated.  tsArgsReset() frees what this allocated.
*/
static int tsArgsStart(ts_args_parser *p, const char *z, int n){
  LONG *aScratch = p->aSmall;
  if( n>(int)(sizeof(p->aSmall)/sizeof(p->aSmall[0])/2) ){
    if( n>p->nAlloc ){
      LONG *aNew = sqlite3_malloc64(sizeof(LONG)*2*(sqlite3_uint64)n);
      if( aNew==0 ) return SQLITE_NOMEM;
      sqlite3_free(p->aScratch==p->aSmall ? 0 : p->aScratch);
      p->aScratch = aNew;
      p->nAlloc = n;
    }
    aScratch = p->aScratch;
  }else if( p->nAlloc==0 ){
    p->aScratch = p->aSmall;
  }
  p->n = n;
  EventFieldsStart(&p->fields, z, n, aScratch);
  return SQLITE_OK;
}

static void tsArgsReset(ts_args_parser *p){
  if( p->nAlloc>0 ) sqlite3_free(p->aScratch);
  p->aScratch = 0;
  p->nAlloc = 0;
}

static int tsArgsNext(ts_args_parser *p, ts_arg *pArg){
  return EventFieldsNext(&p->fields, pArg);
}

static int tsIsInteger(const char *z, int n, sqlite3_int64 *piValue){
  LONGLONG v;
  if( !EventFieldInteger(z, n, &v) ) return 0;
  *piValue = v;
  return 1;
}

/*
** Sets the result of ctx to the value of pArg: an integer when it is one,
** else text without the quotes of a quoted value.
*/
static void tsResultValue(sqlite3_context *ctx, const ts_arg *pArg){
  sqlite3_int64 v;
  if( !pArg->Quoted && tsIsInteger(pArg->Value, pArg->ValueLength, &v) ){
    sqlite3_result_int64(ctx, v);
  }else if( pArg->Quoted ){
    char q = pArg->Value[0];
    int n = pArg->ValueLength-2, i, j;
    char *zOut = sqlite3_malloc64((sqlite3_uint64)n+1);
    if( zOut==0 ){
      sqlite3_result_error_nomem(ctx);
      return;
    }
    for(i=0, j=0; i<n; i++){
      char c = pArg->Value[1+i];
      if( c=='\\' && i+1<n && (pArg->Value[2+i]==q || pArg->Value[2+i]=='\\') ){
        c = pArg->Value[2+i];
        i++;
      }
      zOut[j++] = c;
    }
    zOut[j] = 0;
    sqlite3_result_text(ctx, zOut, j, sqlite3_free);
  }else{
    sqlite3_result_text(ctx, pArg->Value, pArg->ValueLength, SQLITE_TRANSIENT);
  }
}

/* -------------------------------------------------------------------------
** tracestore_arg(TEXT, KEY)
*/

static void tracestoreArgFunc(
  sqlite3_context *ctx,
  int argc,
  sqlite3_value **argv
){
  ts_args_parser parser;
  ts_arg arg;
  const char *zText, *zKey;
  int nText, nKey;

  (void)argc;
  zText = (const char*)sqlite3_value_text(argv[0]);
  nText = sqlite3_value_bytes(argv[0]);
  zKey = (const char*)sqlite3_value_text(argv[1]);
  nKey = sqlite3_value_bytes(argv[1]);
  if( zText==0 || zKey==0 ) return;
  memset(&parser, 0, sizeof(parser));
  if( tsArgsStart(&parser, zText, nText)!=SQLITE_OK ){
    sqlite3_result_error_nomem(ctx);
    return;
  }
  while( tsArgsNext(&parser, &arg) ){
    if( arg.KeyLength==nKey && memcmp(arg.Key, zKey, (size_t)nKey)==0 ){
      tsResultValue(ctx, &arg);
      break;
    }
  }
  tsArgsReset(&parser);
}

/* -------------------------------------------------------------------------
** tracestore_args(TEXT): an eponymous table-valued function.
*/

/* Columns, in declaration order. */
#define TSA_COLUMN_KEY            0
#define TSA_COLUMN_INT_VALUE      1
#define TSA_COLUMN_STRING_VALUE   2
#define TSA_COLUMN_VALUE_TYPE     3
#define TSA_COLUMN_DISPLAY_VALUE  4
#define TSA_COLUMN_TEXT           5     /* Hidden: the argument */

typedef struct tracestore_args_cursor tracestore_args_cursor;
struct tracestore_args_cursor {
  sqlite3_vtab_cursor base;     /* Base class.  Must be first */
  char *zText;                  /* Copy of the argument */
  ts_args_parser parser;        /* Parses zText */
  ts_arg arg;                   /* The current field */
  sqlite3_int64 iRowid;         /* 0 for the first field */
  int bEof;                     /* No current field */
};

static int tracestoreArgsConnect(
  sqlite3 *db,
  void *pAux,
  int argc, const char *const*argv,
  sqlite3_vtab **ppVtab,
  char **pzErr
){
  sqlite3_vtab *pNew;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(key TEXT, int_value INTEGER, string_value TEXT, "
      "value_type TEXT, display_value TEXT, args HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  pNew = sqlite3_malloc(sizeof(*pNew));
  if( pNew==0 ) return SQLITE_NOMEM;
  memset(pNew, 0, sizeof(*pNew));
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = pNew;
  return SQLITE_OK;
}

static int tracestoreArgsDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/*
** idxNum 1: argv[0] is the text.  idxNum 0: no text was given (no rows).
** A constraint on the text that is not usable yet makes this plan
** impossible, so that SQLite evaluates the text first (as in a join with
** ftrace_event).
*/
static int tracestoreArgsBestIndex(
  sqlite3_vtab *tab,
  sqlite3_index_info *pIdxInfo
){
  int i, iText = -1, bUnusable = 0;
  const struct sqlite3_index_constraint *pC = pIdxInfo->aConstraint;
  (void)tab;
  for(i=0; i<pIdxInfo->nConstraint; i++, pC++){
    if( pC->iColumn!=TSA_COLUMN_TEXT ) continue;
    if( !pC->usable ){
      bUnusable = 1;
    }else if( pC->op==SQLITE_INDEX_CONSTRAINT_EQ && iText<0 ){
      iText = i;
    }
  }
  if( iText<0 && bUnusable ) return SQLITE_CONSTRAINT;
  if( iText>=0 ){
    pIdxInfo->aConstraintUsage[iText].argvIndex = 1;
    pIdxInfo->aConstraintUsage[iText].omit = 1;
    pIdxInfo->idxNum = 1;
    pIdxInfo->estimatedCost = 10.0;
    pIdxInfo->estimatedRows = 10;
  }else{
    pIdxInfo->idxNum = 0;
    pIdxInfo->estimatedCost = 1.0;
    pIdxInfo->estimatedRows = 1;
  }
  return SQLITE_OK;
}

static int tracestoreArgsOpen(sqlite3_vtab *p, sqlite3_vtab_cursor **ppCur){
  tracestore_args_cursor *pCur;
  (void)p;
  pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  pCur->bEof = 1;
  *ppCur = &pCur->base;
  return SQLITE_OK;
}

static int tracestoreArgsClose(sqlite3_vtab_cursor *cur){
  tracestore_args_cursor *pCur = (tracestore_args_cursor*)cur;
  tsArgsReset(&pCur->parser);
  sqlite3_free(pCur->zText);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int tracestoreArgsFilter(
  sqlite3_vtab_cursor *cur,
  int idxNum, const char *idxStr,
  int argc, sqlite3_value **argv
){
  tracestore_args_cursor *pCur = (tracestore_args_cursor*)cur;
  const char *zText;
  int nText, rc;
  (void)idxStr;
  sqlite3_free(pCur->zText);
  pCur->zText = 0;
  pCur->bEof = 1;
  pCur->iRowid = 0;
  if( idxNum!=1 || argc<1 ) return SQLITE_OK;
  zText = (const char*)sqlite3_value_text(argv[0]);
  nText = sqlite3_value_bytes(argv[0]);
  if( zText==0 ) return SQLITE_OK;
  pCur->zText = sqlite3_malloc64((sqlite3_uint64)nText+1);
  if( pCur->zText==0 ) return SQLITE_NOMEM;
  memcpy(pCur->zText, zText, (size_t)nText+1);
  rc = tsArgsStart(&pCur->parser, pCur->zText, nText);
  if( rc!=SQLITE_OK ) return rc;
  pCur->bEof = !tsArgsNext(&pCur->parser, &pCur->arg);
  return SQLITE_OK;
}

static int tracestoreArgsNext(sqlite3_vtab_cursor *cur){
  tracestore_args_cursor *pCur = (tracestore_args_cursor*)cur;
  pCur->bEof = !tsArgsNext(&pCur->parser, &pCur->arg);
  pCur->iRowid++;
  return SQLITE_OK;
}

static int tracestoreArgsEof(sqlite3_vtab_cursor *cur){
  return ((tracestore_args_cursor*)cur)->bEof;
}

static int tracestoreArgsColumn(
  sqlite3_vtab_cursor *cur,
  sqlite3_context *ctx,
  int i
){
  tracestore_args_cursor *pCur = (tracestore_args_cursor*)cur;
  const ts_arg *pArg = &pCur->arg;
  sqlite3_int64 v;
  int bInt = !pArg->Quoted && tsIsInteger(pArg->Value, pArg->ValueLength, &v);
  switch( i ){
    case TSA_COLUMN_KEY:
      sqlite3_result_text(ctx, pArg->Key, pArg->KeyLength, SQLITE_TRANSIENT);
      break;
    case TSA_COLUMN_INT_VALUE:
      if( bInt ) sqlite3_result_int64(ctx, v);
      break;
    case TSA_COLUMN_STRING_VALUE:
      if( !bInt ) tsResultValue(ctx, pArg);
      break;
    case TSA_COLUMN_VALUE_TYPE:
      sqlite3_result_text(ctx, bInt ? "int" : "string", -1, SQLITE_STATIC);
      break;
    case TSA_COLUMN_DISPLAY_VALUE:
      sqlite3_result_text(ctx, pArg->Value, pArg->ValueLength, SQLITE_TRANSIENT);
      break;
    case TSA_COLUMN_TEXT:
      sqlite3_result_text(ctx, pCur->zText, pCur->parser.n, SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

static int tracestoreArgsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *p){
  *p = ((tracestore_args_cursor*)cur)->iRowid;
  return SQLITE_OK;
}

static sqlite3_module tracestoreArgsModule = {
  .iVersion    = 0,
  .xCreate     = 0,             /* Eponymous only */
  .xConnect    = tracestoreArgsConnect,
  .xBestIndex  = tracestoreArgsBestIndex,
  .xDisconnect = tracestoreArgsDisconnect,
  .xDestroy    = 0,
  .xOpen       = tracestoreArgsOpen,
  .xClose      = tracestoreArgsClose,
  .xFilter     = tracestoreArgsFilter,
  .xNext       = tracestoreArgsNext,
  .xEof        = tracestoreArgsEof,
  .xColumn     = tracestoreArgsColumn,
  .xRowid      = tracestoreArgsRowid,
};

int tracestoreArgsInit(sqlite3 *db){
  int rc;
  rc = sqlite3_create_module_v2(db, "tracestore_args", &tracestoreArgsModule,
                                0, 0);
  if( rc==SQLITE_OK ){
    rc = sqlite3_create_function_v2(db, "tracestore_arg", 2,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC |
                                    SQLITE_INNOCUOUS, 0,
                                    tracestoreArgFunc, 0, 0, 0);
  }
  return rc;
}
