/*
** CmdSql.c: `tracestore sql`: run SQL with a session attached and print the rows.
**
** Zone: hosted (the command-line front end): libc, SQLite's API.  Owns
** the SQL command line and the row printers (columns, CSV, JSON).  Calls
** SQLite and the extension's public header (Sqlite3Ext/tracestore.h)
** only, HostUtil.c (errors, reading SQL text, JSON strings), and for
** --engine duckdb SqlDuckDb.c.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "Cli/Cli.h"
#include "Sqlite3Ext/tracestore.h"

static const char zSqlHelp[] =
"usage: tracestore sql [-c|--csv|--json] [--engine E] SESSION \"SQL\"\n"
"       tracestore sql [-c|--csv|--json] [--engine E] SESSION -f FILE\n"
"       tracestore sql [-c|--csv|--json] [--engine E] SESSION [-] < FILE\n"
"\n"
"Runs SQL against SESSION with the tracestore extension loaded and the\n"
"session attached (one table per store, plus store_info).  The SQL is the\n"
"argument, the file given with -f/--file, or standard input when there is\n"
"no SQL argument or it is \"-\".  It may hold several statements; they run\n"
"in order and each one's rows are printed:\n"
"\n"
"  (default)     an aligned table with a header, a blank line between tables\n"
"  -c, --csv     CSV (RFC 4180) with a header row; NULL is an empty field\n"
"  --json        a JSON array of objects, one per row, the column names as\n"
"                keys: INTEGER and REAL as numbers (NaN and infinities as\n"
"                null), NULL as null, TEXT as a string (bytes that are not\n"
"                UTF-8 become U+FFFD), BLOB as a string of hex digits.  One\n"
"                array per statement that returns columns, so one SELECT\n"
"                prints one JSON document (several print a stream of\n"
"                arrays, as `jq` reads them).\n"
"\n"
"--engine duckdb runs the SQL in DuckDB instead of SQLite (--engine sqlite,\n"
"the default): libduckdb.so is loaded at run time, the DuckDB extension\n"
"(tracestore.duckdb_extension, beside the command) LOADed and the session\n"
"attached with tracestore_attach(): its stores and views by their names,\n"
"in DuckDB's SQL (docs/duckdb.md).  Without libduckdb.so, a message says\n"
"how to get it.  JSON values of DuckDB's other types are strings.\n"
"\n"
"-c is short for --csv (it is not sqlite3's -cmd).  An SQL error stops at\n"
"the statement, names it (number, line, text) and exits with status 1;\n"
"what earlier statements printed stays printed.\n"
"\n"
"example: tracestore sql run.trace \\\n"
"  \"SELECT name, count(*) FROM page_fault GROUP BY name\"\n";

typedef struct ResultBuf {
  int nCol;
  int nRow, nAlloc;
  char **az;          /* nRow*nCol cells, NULL for SQL NULL */
} ResultBuf;

static void csvField(const char *z){
  if( z==0 ) return;
  if( strpbrk(z, ",\"\r\n")==0 ){
    fputs(z, stdout);
    return;
  }
  putchar('"');
  for(; *z; z++){
    if( *z=='"' ) putchar('"');
    putchar(*z);
  }
  putchar('"');
}

static int isNumber(const char *z){
  if( z==0 ) return 1;              /* NULL does not make a column text */
  if( *z=='-' ) z++;
  if( *z<'0' || *z>'9' ) return 0;
  while( (*z>='0' && *z<='9') || *z=='.' || *z=='e' || *z=='E'
      || *z=='+' || *z=='-' ) z++;
  return *z==0;
}

/* Prints buffered rows as an aligned table; numeric columns align right. */
static void printTable(const char *const *azName, ResultBuf *p){
  int *aW = calloc(p->nCol, sizeof(int));
  int *aRight = calloc(p->nCol, sizeof(int));
  int i, j;
  for(j=0; j<p->nCol; j++){
    aW[j] = (int)strlen(azName[j]);
    aRight[j] = p->nRow>0;
  }
  for(i=0; i<p->nRow; i++){
    for(j=0; j<p->nCol; j++){
      const char *z = p->az[i*p->nCol+j];
      int n = (int)strlen(z ? z : "NULL");
      if( n>aW[j] ) aW[j] = n;
      if( !isNumber(z) ) aRight[j] = 0;
    }
  }
  for(j=0; j<p->nCol; j++){
    printf("%s%*s", j ? "  " : "", aRight[j] ? aW[j] : -aW[j], azName[j]);
  }
  printf("\n");
  for(j=0; j<p->nCol; j++){
    int k;
    printf("%s", j ? "  " : "");
    for(k=0; k<aW[j]; k++) putchar('-');
  }
  printf("\n");
  for(i=0; i<p->nRow; i++){
    for(j=0; j<p->nCol; j++){
      const char *z = p->az[i*p->nCol+j];
      printf("%s%*s", j ? "  " : "", aRight[j] ? aW[j] : -aW[j],
             z ? z : "NULL");
    }
    printf("\n");
  }
  free(aW);
  free(aRight);
}

/*
** Prints a REAL as a JSON number that reads back as the same double (the
** shortest of %.15g, %.16g, %.17g that does), with ".0" added to whole
** numbers so that they still read as REAL; NaN and infinities as null.
*/
static void jsonReal(double r){
  char z[40];
  int nDigit;
  if( r!=r || r-r!=0.0 ){
    fputs("null", stdout);
    return;
  }
  for(nDigit=15; nDigit<17; nDigit++){
    snprintf(z, sizeof(z), "%.*g", nDigit, r);
    if( strtod(z, 0)==r ) break;
  }
  if( nDigit==17 ) snprintf(z, sizeof(z), "%.17g", r);
  if( strpbrk(z, ".eE")==0 ) strcat(z, ".0");
  fputs(z, stdout);
}

/* Prints column j of the current row of pStmt as a JSON value. */
static void jsonValue(sqlite3_stmt *pStmt, int j){
  static const char zHex[] = "0123456789abcdef";
  switch( sqlite3_column_type(pStmt, j) ){
    case SQLITE_INTEGER:
      printf("%lld", (long long)sqlite3_column_int64(pStmt, j));
      break;
    case SQLITE_FLOAT:
      jsonReal(sqlite3_column_double(pStmt, j));
      break;
    case SQLITE_TEXT: {
      const unsigned char *z = sqlite3_column_text(pStmt, j);
      hostJsonText(z, sqlite3_column_bytes(pStmt, j));
      break;
    }
    case SQLITE_BLOB: {
      const unsigned char *z = sqlite3_column_blob(pStmt, j);
      int n = sqlite3_column_bytes(pStmt, j), k;
      putchar('"');
      for(k=0; k<n; k++){
        putchar(zHex[z[k]>>4]);
        putchar(zHex[z[k]&15]);
      }
      putchar('"');
      break;
    }
    default:
      fputs("null", stdout);
      break;
  }
}

/*
** Steps pStmt to the end, printing its rows in mode eMode.  Returns the
** last sqlite3_step() result (SQLITE_DONE on success).  *pbTable is set
** once a table has been printed, so that the next one is set apart.
*/
static int runStatement(sqlite3_stmt *pStmt, SqlMode eMode, int *pbTable){
  ResultBuf res;
  int rc, i, j, nRow = 0;
  memset(&res, 0, sizeof(res));
  res.nCol = sqlite3_column_count(pStmt);
  if( eMode==SQL_MODE_CSV && res.nCol>0 ){
    for(j=0; j<res.nCol; j++){
      if( j ) putchar(',');
      csvField(sqlite3_column_name(pStmt, j));
    }
    putchar('\n');
  }
  if( eMode==SQL_MODE_JSON && res.nCol>0 ) putchar('[');
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    if( eMode==SQL_MODE_CSV ){
      for(j=0; j<res.nCol; j++){
        if( j ) putchar(',');
        csvField((const char*)sqlite3_column_text(pStmt, j));
      }
      putchar('\n');
      continue;
    }
    if( eMode==SQL_MODE_JSON ){
      fputs(nRow ? ",\n{" : "\n{", stdout);
      for(j=0; j<res.nCol; j++){
        if( j ) putchar(',');
        hostJsonString(sqlite3_column_name(pStmt, j));
        putchar(':');
        jsonValue(pStmt, j);
      }
      putchar('}');
      nRow++;
      continue;
    }
    if( res.nRow>=res.nAlloc ){
      res.nAlloc = res.nAlloc ? res.nAlloc*2 : 64;
      res.az = realloc(res.az, sizeof(char*)*res.nAlloc*res.nCol);
      if( res.az==0 ){ hostFail("out of memory"); exit(1); }
    }
    for(j=0; j<res.nCol; j++){
      const char *z = (const char*)sqlite3_column_text(pStmt, j);
      res.az[res.nRow*res.nCol+j] = z ? strdup(z) : 0;
    }
    res.nRow++;
  }
  if( rc==SQLITE_DONE && res.nCol>0 ){
    if( eMode==SQL_MODE_JSON ){
      fputs(nRow ? "\n]\n" : "]\n", stdout);
    }else if( eMode==SQL_MODE_TABLE ){
      const char **azName = malloc(sizeof(char*)*res.nCol);
      if( azName==0 ){ hostFail("out of memory"); exit(1); }
      for(j=0; j<res.nCol; j++) azName[j] = sqlite3_column_name(pStmt, j);
      if( *pbTable ) putchar('\n');
      printTable(azName, &res);
      free(azName);
      *pbTable = 1;
    }
  }
  for(i=0; i<res.nRow*res.nCol; i++) free(res.az[i]);
  free(res.az);
  return rc;
}

void sqlPrintRows(SqlMode eMode, int nCol, const char *const *azName,
                  int nRow, char **azCell, const int *abNumber,
                  int *pbTable){
  ResultBuf res;
  int i, j;
  if( nCol==0 ) return;
  if( eMode==SQL_MODE_TABLE ){
    res.nCol = nCol;
    res.nRow = res.nAlloc = nRow;
    res.az = azCell;
    if( *pbTable ) putchar('\n');
    printTable(azName, &res);
    *pbTable = 1;
    return;
  }
  if( eMode==SQL_MODE_CSV ){
    for(j=0; j<nCol; j++){
      if( j ) putchar(',');
      csvField(azName[j]);
    }
    putchar('\n');
    for(i=0; i<nRow; i++){
      for(j=0; j<nCol; j++){
        if( j ) putchar(',');
        csvField(azCell[i*nCol+j]);
      }
      putchar('\n');
    }
    return;
  }
  putchar('[');
  for(i=0; i<nRow; i++){
    fputs(i ? ",\n{" : "\n{", stdout);
    for(j=0; j<nCol; j++){
      const char *z = azCell[i*nCol+j];
      if( j ) putchar(',');
      hostJsonString(azName[j]);
      putchar(':');
      if( z==0 ){
        fputs("null", stdout);
      }else if( abNumber[j] ){
        fputs(z, stdout);
      }else{
        hostJsonText((const unsigned char*)z, (int)strlen(z));
      }
    }
    putchar('}');
  }
  fputs(nRow ? "\n]\n" : "]\n", stdout);
}

/*
** Reports an error of the statement that starts at zStmt (inside zSql,
** the whole input, named zSource): its number, the line it starts on, and
** its first 200 characters with white space folded.
*/
void sqlStatementError(const char *zSource, const char *zSql,
                       const char *zStmt, int iStmt, const char *zMsg){
  const char *z;
  int iLine = 1, n = 0, bSpace = 0;
  char zText[208];
  while( *zStmt==' ' || *zStmt=='\t' || *zStmt=='\n' || *zStmt=='\r'
      || *zStmt=='\f' ){
    zStmt++;
  }
  for(z=zSql; z<zStmt; z++) iLine += *z=='\n';
  for(z=zStmt; *z && *z!=';' && n<200; z++){
    if( *z==' ' || *z=='\t' || *z=='\n' || *z=='\r' || *z=='\f' ){
      bSpace = 1;
      continue;
    }
    if( bSpace && n>0 ) zText[n++] = ' ';
    bSpace = 0;
    zText[n++] = *z;
  }
  zText[n] = 0;
  hostFail("statement %d (line %d of %s): %s\n    %s%s", iStmt, iLine, zSource,
       zMsg, zText, (*z && *z!=';') ? " ..." : "");
}

/* True if argument z is SQL (or a path) rather than an option. */
static int isOption(const char *z){
  return z[0]=='-' && z[1]!=0 && strpbrk(z, " \t\n\r")==0;
}

int cmdSql(int argc, char **argv){
  SqlMode eMode = SQL_MODE_TABLE;
  int i, rc = 0, iStmt = 0, bTable = 0, bOptions = 1, bDuckDb = 0;
  const char *zSession = 0, *zArg = 0, *zFile = 0, *zTail, *zSource;
  const char *zStmt;
  char *zSql = 0;
  size_t nSql = 0;
  sqlite3 *db = 0;
  sqlite3_stmt *pStmt = 0;

  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( bOptions && isOption(z) ){
      if( strcmp(z, "--")==0 ){
        bOptions = 0;
      }else if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
        fputs(zSqlHelp, stdout);
        return 0;
      }else if( strcmp(z, "--csv")==0 || strcmp(z, "-c")==0 ){
        eMode = SQL_MODE_CSV;
      }else if( strcmp(z, "--json")==0 ){
        eMode = SQL_MODE_JSON;
      }else if( strcmp(z, "--engine")==0 || strncmp(z, "--engine=", 9)==0 ){
        const char *zEngine = z[8]=='=' ? z+9 : i+1<argc ? argv[++i] : "";
        if( strcmp(zEngine, "sqlite")==0 ){
          bDuckDb = 0;
        }else if( strcmp(zEngine, "duckdb")==0 ){
          bDuckDb = 1;
        }else{
          hostFail("sql: --engine is sqlite or duckdb, not '%s'", zEngine);
          return 2;
        }
      }else if( strcmp(z, "-f")==0 || strcmp(z, "--file")==0 ){
        if( i+1>=argc ){
          hostFail("sql: %s needs a file name", z);
          return 2;
        }
        zFile = argv[++i];
      }else if( strncmp(z, "--file=", 7)==0 ){
        zFile = z+7;
      }else{
        hostFail("sql: unknown option '%s'", z);
        fputs(zSqlHelp, stderr);
        return 2;
      }
    }else if( zSession==0 ){
      zSession = z;
    }else if( zArg==0 ){
      zArg = z;
    }else{
      fputs(zSqlHelp, stderr);
      return 2;
    }
  }
  if( zSession==0 ){
    fputs(zSqlHelp, stderr);
    return 2;
  }
  if( zFile && zArg ){
    hostFail("sql: give the SQL either as an argument or with -f, not both");
    return 2;
  }

  /* The SQL: argument, -f FILE, or standard input. */
  if( zArg && strcmp(zArg, "-")!=0 ){
    zSource = "the SQL argument";
    zSql = strdup(zArg);
  }else{
    if( zFile==0 || strcmp(zFile, "-")==0 ){
      zFile = "-";
      zSource = "standard input";
      if( isatty(0) ){
        fprintf(stderr, "tracestore: reading SQL from standard input "
                        "(end it with Ctrl-D)\n");
      }
    }else{
      zSource = zFile;
    }
    zSql = hostReadText(zFile, &nSql);
    if( zSql && strlen(zSql)!=nSql ){       /* a NUL byte: not SQL text */
      free(zSql);
      zSql = 0;
      errno = EINVAL;
    }
    if( zSql==0 ){
      hostFail("cannot read SQL from %s: %s", strcmp(zFile, "-")==0 ?
           "standard input" : zFile,
           errno==EINVAL ? "it holds a NUL byte" : strerror(errno));
      return 1;
    }
  }

  if( bDuckDb ){
    rc = sqlRunDuckDb(zSession, zSql, zSource, eMode);
    free(zSql);
    return rc;
  }

  db = hostOpenSql(zSession);
  if( db==0 ){
    free(zSql);
    return 1;
  }

  zTail = zSql;
  while( rc==0 && zTail && *zTail ){
    zStmt = zTail;
    pStmt = 0;
    if( sqlite3_prepare_v2(db, zStmt, -1, &pStmt, &zTail)!=SQLITE_OK ){
      sqlStatementError(zSource, zSql, zStmt, iStmt+1, sqlite3_errmsg(db));
      rc = 1;
      break;
    }
    if( pStmt==0 ){         /* only white space, a comment or ';' */
      if( zTail==zStmt ) break;
      continue;
    }
    iStmt++;
    if( runStatement(pStmt, eMode, &bTable)!=SQLITE_DONE ){
      fflush(stdout);
      sqlStatementError(zSource, zSql, zStmt, iStmt, sqlite3_errmsg(db));
      rc = 1;
    }
    sqlite3_finalize(pStmt);
  }
  fflush(stdout);
  sqlite3_close(db);
  free(zSql);
  return rc;
}
