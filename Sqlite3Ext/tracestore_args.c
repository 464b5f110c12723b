/*
** tracestore_args.c: the fields of an event's text as rows, the way
** Perfetto's `args` table shows an event's arguments.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API only (it
** reads text, not sessions); included by nothing outside Sqlite3Ext/.
** Owns: the parser of an event's fields, the eponymous table-valued
** function tracestore_args and the SQL function tracestore_arg().
** Calls: SQLite only.  Registered by sqlite3_tracestore_init() through
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
**   The kernel prints most tracepoints as `key=value key=value ...`
**   (sched_process_exec: "filename=/bin/ls pid=7 old_pid=7"), the syscall
**   tracepoints as `key: value, key: value`.  The text is read as words
**   separated by blanks, where a bracketed part ((...), [...], {...}) or a
**   quoted string ("..." or '...' at the start of a word or value) is one
**   piece, blanks and all, if it is closed before the end of the text.
**
**     - A word `KEY=VALUE` starts a field; so does a word `KEY:` (the value
**       is the next word, unless that one is itself a field).  A KEY is a
**       letter or '_' followed by letters, digits, '_', '.', '-', '[' and
**       ']'.  Other words before a field ("set" in "set reason=0") are
**       not fields and are skipped.
**     - The value runs on over the following words, blanks included, so
**       that a comm such as "CPU 0/KVM" stays whole, unless the value so
**       far is empty, a number or quoted, ends with ',', or the next word
**       is a field or has no letter or digit ("==>" in sched_switch).  One
**       ',' at the end of a value is a separator, not part of it.
**     - A value that is a decimal integer, or 0x and 1 to 16 hex digits,
**       is an integer; one above 2^63-1 (an unsigned 64-bit field) is the
**       int64 with the same bits, as address columns are.  A quoted value
**       loses its quotes (and the backslashes before quotes) in
**       string_value; display_value keeps them.
**
**   Texts that are not fields ("pio_write at 0x3f8 size 1") have no rows.
**   Any text, including bytes that are not UTF-8 and NULs, is read without
**   error: the matching of brackets and quotes is done once per text, in
**   linear time, so the cost is linear in the text's length.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <string.h>

#include "tracestore_views.h"

/* -------------------------------------------------------------------------
** The parser.
*/

typedef struct ts_args_parser ts_args_parser;
struct ts_args_parser {
  const char *z;        /* The text (not NUL-terminated) */
  int n;                /* Its length in bytes */
  int i;                /* Where the next field is looked for */
  int *aMatch;          /* aMatch[k]: the closer of an opener or opening
                        ** quote at k, or -1 (also for every other byte) */
  int *aStack;          /* Openers not closed yet, while matching */
  int nAlloc;           /* Entries allocated in aMatch and aStack */
  int aSmall[2*256];    /* Both arrays, for texts of up to 256 bytes */
};

/* One field: key [zKey, zKey+nKey), value [zVal, zVal+nVal). */
typedef struct ts_arg ts_arg;
struct ts_arg {
  const char *zKey;
  int nKey;
  const char *zVal;
  int nVal;
  int bQuoted;          /* The value is one quoted string */
};

static int tsIsBlank(char c){
  return c==' ' || c=='\t' || c=='\n' || c=='\r' || c=='\f' || c=='\v';
}

static int tsIsAlnum(char c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9');
}

/*
** True if a quote at k starts a quoted string: at the start of a word or
** of a value, or just inside a bracket.
*/
static int tsQuoteStarts(const char *z, int k){
  char p;
  if( k==0 ) return 1;
  p = z[k-1];
  return tsIsBlank(p) || p=='=' || p=='(' || p=='[' || p=='{' || p==',';
}

/*
** Fills p->aMatch for the text: one pass with a stack of open brackets;
** a quoted string is skipped whole.  A closer that does not close the
** innermost open bracket is an ordinary byte, and so is an opener that is
** never closed.  If no closing quote follows a quote, none follows any
** later quote of that kind either, so the search for it is not repeated:
** the pass stays linear.
*/
static void tsArgsMatch(ts_args_parser *p){
  const char *z = p->z;
  int n = p->n;
  int nStack = 0;
  int bNoQuote[2] = {0, 0};     /* No closing " / ' after this point */
  int k, j, q;
  for(k=0; k<n; k++) p->aMatch[k] = -1;
  for(k=0; k<n; k++){
    char c = z[k];
    if( (c=='"' || c=='\'') && !bNoQuote[c=='\''] && tsQuoteStarts(z, k) ){
      q = c=='\'';
      for(j=k+1; j<n && z[j]!=c; j++){
        if( z[j]=='\\' ) j++;
      }
      if( j<n ){
        p->aMatch[k] = j;
        k = j;
      }else{
        bNoQuote[q] = 1;
      }
    }else if( c=='(' || c=='[' || c=='{' ){
      p->aStack[nStack++] = k;
    }else if( (c==')' || c==']' || c=='}') && nStack>0 ){
      char o = z[p->aStack[nStack-1]];
      if( (c==')' && o=='(') || (c==']' && o=='[') || (c=='}' && o=='{') ){
        p->aMatch[p->aStack[--nStack]] = k;
      }
    }
  }
}

/*
** Starts parsing z[0..n).  Returns SQLITE_NOMEM if the arrays cannot be
** allocated.  tsArgsReset() frees what this allocated.
*/
static int tsArgsStart(ts_args_parser *p, const char *z, int n){
  p->z = z;
  p->n = n;
  p->i = 0;
  if( n<=(int)(sizeof(p->aSmall)/sizeof(p->aSmall[0])/2) ){
    if( p->nAlloc==0 ){
      p->aMatch = p->aSmall;
      p->aStack = p->aSmall + n;
    }else{
      p->aStack = p->aMatch + n;
    }
  }else if( n>p->nAlloc ){
    int *aNew = sqlite3_malloc64(sizeof(int)*2*(sqlite3_uint64)n);
    if( aNew==0 ) return SQLITE_NOMEM;
    if( p->nAlloc>0 ) sqlite3_free(p->aMatch);
    p->aMatch = aNew;
    p->aStack = aNew + n;
    p->nAlloc = n;
  }else{
    p->aStack = p->aMatch + n;
  }
  tsArgsMatch(p);
  return SQLITE_OK;
}

static void tsArgsReset(ts_args_parser *p){
  if( p->nAlloc>0 ) sqlite3_free(p->aMatch);
  p->aMatch = p->aStack = 0;
  p->nAlloc = 0;
}

/* The end of the word that starts at i (brackets and quotes whole). */
static int tsWordEnd(ts_args_parser *p, int i){
  while( i<p->n && !tsIsBlank(p->z[i]) ){
    i = p->aMatch[i]>=0 ? p->aMatch[i]+1 : i+1;
  }
  return i;
}

static int tsSkipBlanks(ts_args_parser *p, int i){
  while( i<p->n && tsIsBlank(p->z[i]) ) i++;
  return i;
}

/*
** If the word [i, iEnd) starts a field, returns the length of its key and
** sets *peForm to '=' (KEY=VALUE) or ':' (a word "KEY:"); else returns 0.
*/
static int tsFieldKey(ts_args_parser *p, int i, int iEnd, char *peForm){
  const char *z = p->z;
  int k = i;
  char c = z[k];
  if( !((c>='a' && c<='z') || (c>='A' && c<='Z') || c=='_') ) return 0;
  for(k++; k<iEnd; k++){
    c = z[k];
    if( !(tsIsAlnum(c) || c=='_' || c=='.' || c=='-' || c=='[' || c==']') ){
      break;
    }
  }
  if( k<iEnd && z[k]=='=' ){
    *peForm = '=';
    return k-i;
  }
  if( k==iEnd-1 && z[k]==':' ){
    *peForm = ':';
    return k-i;
  }
  return 0;
}

/* True if [z, z+n) is an integer tsArgValue() takes. */
static int tsIsInteger(const char *z, int n, sqlite3_int64 *piValue);

/*
** Finds the next field.  Returns 1 and fills *pArg, or 0 when there is
** none left.
*/
static int tsArgsNext(ts_args_parser *p, ts_arg *pArg){
  const char *z = p->z;
  int i = p->i, iEnd, nKey, iVal, iValEnd, j, jEnd, k;
  char eForm, eNext;
  sqlite3_int64 iDummy;

  for(;;){
    i = tsSkipBlanks(p, i);
    if( i>=p->n ){
      p->i = i;
      return 0;
    }
    iEnd = tsWordEnd(p, i);
    nKey = tsFieldKey(p, i, iEnd, &eForm);
    if( nKey>0 ) break;
    i = iEnd;
  }
  pArg->zKey = z+i;
  pArg->nKey = nKey;

  if( eForm=='=' ){
    iVal = i+nKey+1;
    iValEnd = iEnd;
  }else{
    /* "KEY:" and the next word, unless that one is a field itself. */
    iVal = iValEnd = iEnd;
    j = tsSkipBlanks(p, iEnd);
    if( j<p->n ){
      jEnd = tsWordEnd(p, j);
      if( tsFieldKey(p, j, jEnd, &eNext)==0 ){
        iVal = j;
        iValEnd = jEnd;
      }
    }
  }

  /* A quoted value, closed at its end (or before a final comma). */
  pArg->bQuoted = 0;
  if( iValEnd>iVal && p->aMatch[iVal]>=0 && (z[iVal]=='"' || z[iVal]=='\'')
   && (p->aMatch[iVal]==iValEnd-1
       || (p->aMatch[iVal]==iValEnd-2 && z[iValEnd-1]==',')) ){
    pArg->bQuoted = 1;
  }

  /* Runs on over the following words (see the header comment). */
  while( iValEnd>iVal && !pArg->bQuoted && z[iValEnd-1]!=','
      && !tsIsInteger(z+iVal, iValEnd-iVal, &iDummy) ){
    j = tsSkipBlanks(p, iValEnd);
    if( j>=p->n ) break;
    jEnd = tsWordEnd(p, j);
    if( tsFieldKey(p, j, jEnd, &eNext)>0 ) break;
    for(k=j; k<jEnd && !tsIsAlnum(z[k]); k++){}
    if( k==jEnd ) break;
    iValEnd = jEnd;
  }

  p->i = iValEnd;
  if( iValEnd>iVal && z[iValEnd-1]==',' ) iValEnd--;
  pArg->zVal = z+iVal;
  pArg->nVal = iValEnd-iVal;
  return 1;
}

/*
** True if [z, z+n) is a decimal integer (a '-' and up to 19 digits within
** int64, or up to 20 digits within uint64) or "0x" and 1 to 16 hex
** digits; its value is in *piValue (uint64 values as the same bits).
*/
static int tsIsInteger(const char *z, int n, sqlite3_int64 *piValue){
  sqlite3_uint64 u = 0, d;
  int i = 0, bNeg = 0;
  if( n>2 && z[0]=='0' && (z[1]=='x' || z[1]=='X') ){
    if( n>18 ) return 0;
    for(i=2; i<n; i++){
      char c = z[i];
      if( c>='0' && c<='9' ) d = (sqlite3_uint64)(c-'0');
      else if( c>='a' && c<='f' ) d = (sqlite3_uint64)(c-'a'+10);
      else if( c>='A' && c<='F' ) d = (sqlite3_uint64)(c-'A'+10);
      else return 0;
      u = u*16 + d;
    }
    *piValue = (sqlite3_int64)u;
    return 1;
  }
  if( n>0 && z[0]=='-' ){
    bNeg = 1;
    i = 1;
  }
  if( i>=n ) return 0;
  for(; i<n; i++){
    if( z[i]<'0' || z[i]>'9' ) return 0;
    d = (sqlite3_uint64)(z[i]-'0');
    if( u>(0xffffffffffffffffULL-d)/10 ) return 0;
    u = u*10 + d;
  }
  if( bNeg ){
    if( u>0x8000000000000000ULL ) return 0;
    *piValue = (sqlite3_int64)(0-u);
  }else{
    *piValue = (sqlite3_int64)u;
  }
  return 1;
}

/*
** Sets the result of ctx to the value of pArg: an integer when it is one,
** else text without the quotes of a quoted value.
*/
static void tsResultValue(sqlite3_context *ctx, const ts_arg *pArg){
  sqlite3_int64 v;
  if( !pArg->bQuoted && tsIsInteger(pArg->zVal, pArg->nVal, &v) ){
    sqlite3_result_int64(ctx, v);
  }else if( pArg->bQuoted ){
    char q = pArg->zVal[0];
    int n = pArg->nVal-2, i, j;
    char *zOut = sqlite3_malloc64((sqlite3_uint64)n+1);
    if( zOut==0 ){
      sqlite3_result_error_nomem(ctx);
      return;
    }
    for(i=0, j=0; i<n; i++){
      char c = pArg->zVal[1+i];
      if( c=='\\' && i+1<n && (pArg->zVal[2+i]==q || pArg->zVal[2+i]=='\\') ){
        c = pArg->zVal[2+i];
        i++;
      }
      zOut[j++] = c;
    }
    zOut[j] = 0;
    sqlite3_result_text(ctx, zOut, j, sqlite3_free);
  }else{
    sqlite3_result_text(ctx, pArg->zVal, pArg->nVal, SQLITE_TRANSIENT);
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
    if( arg.nKey==nKey && memcmp(arg.zKey, zKey, (size_t)nKey)==0 ){
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
  int bInt = !pArg->bQuoted && tsIsInteger(pArg->zVal, pArg->nVal, &v);
  switch( i ){
    case TSA_COLUMN_KEY:
      sqlite3_result_text(ctx, pArg->zKey, pArg->nKey, SQLITE_TRANSIENT);
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
      sqlite3_result_text(ctx, pArg->zVal, pArg->nVal, SQLITE_TRANSIENT);
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
