/*
** HostileQuery: loads the tracestore extension into an in-memory SQLite
** database, attaches a session and runs a list of queries, printing one
** JSON line per query: its result rows, or the error SQLite reported.
** One process per session keeps the hostile-store tests fast under the
** sanitizers; the caller runs it with a time limit and treats a signal or
** a sanitizer report as a failure.
**
** usage: HostileQuery EXTENSION SESSION QUERYFILE
**
** QUERYFILE holds queries separated by lines "-- NAME".  The first line
** printed is for "attach" (SELECT tracestore_attach(SESSION)); if it fails,
** each query still runs (and fails with "no such table").  Each query runs
** under alarm(QUERY_SECONDS): a query that hangs kills the process with
** SIGALRM, after its name was printed to stderr.
**
**   {"q": NAME, "ok": true, "rows": [[v, ...], ...]}
**   {"q": NAME, "ok": false, "error": TEXT}
**
** Values: integers and NULL as JSON, reals with 17 significant digits
** (exact round trip; infinities as 1e999, which JSON readers take as
** infinity), text as JSON strings (bytes that are not UTF-8 as
** \u00XX), blobs as {"blob": HEX}.  At most MAX_ROWS rows are printed.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define QUERY_SECONDS 20
#define MAX_ROWS      2000

static void jsonText(const unsigned char *z, int n){
  int i;
  putchar('"');
  for(i=0; i<n; i++){
    unsigned c = z[i];
    if( c=='"' || c=='\\' ) printf("\\%c", c);
    else if( c<0x20 || c>=0x7f ) printf("\\u%04x", c);
    else putchar((int)c);
  }
  putchar('"');
}

static void runQuery(sqlite3 *db, const char *zName, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  const char *zTail = zSql;
  int rc = SQLITE_OK, nRow = 0, i, bFirstRow = 1;
  /* Rows go to a buffer first: an error part-way replaces them. */
  char *zOut = 0;
  size_t nOut = 0;
  FILE *saved = stdout;
  FILE *mem = open_memstream(&zOut, &nOut);

  fprintf(stderr, "HostileQuery: running %s\n", zName);
  alarm(QUERY_SECONDS);
  stdout = mem;
  while( rc==SQLITE_OK && zTail && *zTail ){
    rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zTail);
    if( rc!=SQLITE_OK || pStmt==0 ) break;
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      if( nRow++>=MAX_ROWS ) continue;
      printf("%s[", bFirstRow ? "" : ", ");
      bFirstRow = 0;
      for(i=0; i<sqlite3_column_count(pStmt); i++){
        if( i ) printf(", ");
        switch( sqlite3_column_type(pStmt, i) ){
          case SQLITE_INTEGER:
            printf("%lld", (long long)sqlite3_column_int64(pStmt, i));
            break;
          case SQLITE_FLOAT: {
            double r = sqlite3_column_double(pStmt, i);
            if( r!=r ) printf("null");
            else if( r>1.7976931348623157e308 ) printf("1e999");
            else if( r< -1.7976931348623157e308 ) printf("-1e999");
            else printf("%.17g", r);
            break;
          }
          case SQLITE_TEXT:
            jsonText(sqlite3_column_text(pStmt, i),
                     sqlite3_column_bytes(pStmt, i));
            break;
          case SQLITE_BLOB: {
            const unsigned char *p = sqlite3_column_blob(pStmt, i);
            int j, n = sqlite3_column_bytes(pStmt, i);
            printf("{\"blob\": \"");
            for(j=0; j<n; j++) printf("%02x", p[j]);
            printf("\"}");
            break;
          }
          default:
            printf("null");
        }
      }
      printf("]");
    }
    rc = rc==SQLITE_DONE ? SQLITE_OK : rc;
    sqlite3_finalize(pStmt);
    pStmt = 0;
  }
  alarm(0);
  fclose(mem);
  stdout = saved;
  printf("{\"q\": ");
  jsonText((const unsigned char*)zName, (int)strlen(zName));
  if( rc==SQLITE_OK ){
    printf(", \"ok\": true, \"rows\": [%s]}\n", zOut ? zOut : "");
  }else{
    const char *zErr = sqlite3_errmsg(db);
    printf(", \"ok\": false, \"error\": ");
    jsonText((const unsigned char*)zErr, (int)strlen(zErr));
    printf("}\n");
  }
  fflush(stdout);
  free(zOut);
}

int main(int argc, char **argv){
  sqlite3 *db;
  char *zErr = 0, *zText, *zAttach, *z, *zName, *zNext;
  FILE *in;
  long n;

  if( argc!=4 ){
    fprintf(stderr, "usage: %s EXTENSION SESSION QUERYFILE\n", argv[0]);
    return 2;
  }
  in = fopen(argv[3], "rb");
  if( in==0 ){ perror(argv[3]); return 2; }
  fseek(in, 0, SEEK_END);
  n = ftell(in);
  rewind(in);
  zText = malloc((size_t)n + 1);
  if( zText==0 || fread(zText, 1, (size_t)n, in)!=(size_t)n ){
    fprintf(stderr, "cannot read %s\n", argv[3]);
    return 2;
  }
  zText[n] = 0;
  fclose(in);

  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 2;
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, argv[1], 0, &zErr)!=SQLITE_OK ){
    fprintf(stderr, "cannot load %s: %s\n", argv[1], zErr);
    return 2;
  }
  zAttach = sqlite3_mprintf("SELECT tracestore_attach(%Q)", argv[2]);
  runQuery(db, "attach", zAttach);
  sqlite3_free(zAttach);

  /* "-- NAME\nSQL..." blocks. */
  z = strstr(zText, "-- ");
  while( z ){
    zName = z + 3;
    z = strchr(zName, '\n');
    if( z==0 ) break;
    *z++ = 0;
    zNext = strstr(z, "\n-- ");
    if( zNext ) *zNext++ = 0;
    runQuery(db, zName, z);
    z = zNext;
  }
  sqlite3_close(db);
  free(zText);
  return 0;
}
