/*
** TestCutWhileReading.c: a store file cut while a statement reads it.
**
** Usage:
**
**     TestCutWhileReading list
**     TestCutWhileReading CASE TRACESTORE SRC WORKDIR
**
** The extension, linked in statically, reads a session imported from the
** ftrace text SRC with the tracestore command.  A statement steps part
** way through page_fault, then the test truncates a file of the session
** underneath it, and steps on.  Reading a mapped page past the end of a
** file raises SIGBUS; the extension's guard (Guard/StoreGuard.c)
** must turn it into an SQL error naming the file, in this process, which
** must live on.  Cases:
**
**   records   page_fault.store cut to 512 records: exactly those 512 rows
**             come back (as read before the cut), then the error; later
**             statements on page_fault fail, on sched_switch answer as
**             before; with the file written back whole, page_fault
**             answers as before (its mapping is made anew)
**   header    page_fault.store cut to 0 bytes: the error
**   strings   string_data.store cut to its header: the error names it
**   foreign   a SIGBUS that is not the guard's (a file of the program's
**             own, mapped and cut) still ends the process, in a child
**   chained   the same with a handler the host installed before loading
**             the extension: that handler runs (the child exits 42)
*/
#define _GNU_SOURCE 1

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "Sqlite3Ext/tracestore.h"
#include "TraceStore/TraceSchema.h"

#define SQL_TEST_FILE "TestCutWhileReading.c"
#pragma GCC diagnostic ignored "-Wunused-function"   /* The session helpers */
#include "SqlTestUtil.h"

/*
** The records case cuts on a page boundary (past it, within the last
** page, the mapping reads zeros, not SIGBUS): 4096 / gcd(88, 4096) = 512
** page_fault records of 88 bytes.
*/
#define CUT_RECORDS 512
C_ASSERT((CUT_RECORDS * sizeof(PAGE_FAULT_RECORD)) % 4096 == 0);

static const char *zTs, *zSrc, *zWork;
static char zSession[512], zOrig[512];

/* Runs a shell command built with printf-style arguments; must succeed. */
static void run(const char *zFormat, ...){
  char zCmd[2048];
  va_list ap;
  va_start(ap, zFormat);
  vsnprintf(zCmd, sizeof(zCmd), zFormat, ap);
  va_end(ap);
  if( system(zCmd)!=0 ) fail(__LINE__, "command failed: %s", zCmd);
}

/* A fresh session in WORKDIR/s, and a pristine copy in WORKDIR/orig. */
static void makeSession(void){
  snprintf(zSession, sizeof(zSession), "%s/s", zWork);
  snprintf(zOrig, sizeof(zOrig), "%s/orig", zWork);
  run("rm -rf '%s' && mkdir -p '%s'", zWork, zWork);
  run("'%s' import -o '%s' '%s' > /dev/null 2>&1", zTs, zOrig, zSrc);
  run("cp -R '%s' '%s'", zOrig, zSession);
}

static sqlite3 *openDb(void){
  sqlite3 *db = 0;
  char *zErr = 0;
  CHECK( sqlite3_open(":memory:", &db)==SQLITE_OK );
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fail(__LINE__, "init: %s", zErr ? zErr : "?");
  }
  return db;
}

static void attach(sqlite3 *db){
  char *zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", zSession);
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    fail(__LINE__, "attach: %s", zErr);
  }
  sqlite3_free(zSql);
}

/* The single integer a query returns, or fails the test. */
static sqlite3_int64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 v;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK
   || sqlite3_step(pStmt)!=SQLITE_ROW ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  v = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return v;
}

/* The error a query fails with; fails the test if it does not fail. */
static char *queryError(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  char *zErr;
  while( rc==SQLITE_OK && (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  if( rc==SQLITE_DONE ) fail(__LINE__, "%s did not fail", zSql);
  zErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  printf("error, as wanted: %s\n", zErr);
  return zErr;
}

/* A hash of the rows of page_fault (ts, comm), for "as before". */
static const char *zRowsSql = "SELECT ts, comm FROM page_fault ORDER BY id";
static sqlite3_uint64 hashRows(sqlite3 *db, int *pnRow){
  sqlite3_stmt *pStmt = 0;
  sqlite3_uint64 h = 0;
  int n = 0;
  CHECK( sqlite3_prepare_v2(db, zRowsSql, -1, &pStmt, 0)==SQLITE_OK );
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    const unsigned char *z = sqlite3_column_text(pStmt, 1);
    h = h*1000003 + (sqlite3_uint64)sqlite3_column_int64(pStmt, 0);
    while( z && *z ) h = h*31 + *z++;
    n++;
  }
  if( sqlite3_finalize(pStmt)!=SQLITE_OK ){
    fail(__LINE__, "rows: %s", sqlite3_errmsg(db));
  }
  *pnRow = n;
  return h;
}

/*
** Steps the rows of page_fault, cutting zFile (in the session) to nBytes
** after 10 rows; returns the rows that came back and the error text
** (sqlite3_malloc'd) the statement ended with.  Rows that come back must
** be those of the intact file (aTs, read before).
*/
static int stepAndCut(sqlite3 *db, const char *zFile, long long nBytes,
                      const sqlite3_int64 *aTs, int nTs, char **pzErr){
  sqlite3_stmt *pStmt = 0;
  int n = 0, rc;
  CHECK( sqlite3_prepare_v2(db, zRowsSql, -1, &pStmt, 0)==SQLITE_OK );
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    CHECK( n<nTs );
    if( sqlite3_column_int64(pStmt, 0)!=aTs[n] ){
      fail(__LINE__, "row %d: ts %lld, wanted %lld", n,
           (long long)sqlite3_column_int64(pStmt, 0), (long long)aTs[n]);
    }
    CHECK( sqlite3_column_text(pStmt, 1)!=0 );
    n++;
    if( n==10 ) run("truncate -s %lld '%s/%s'", nBytes, zSession, zFile);
  }
  CHECK( rc!=SQLITE_DONE );
  *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  printf("%d rows, then: %s\n", n, *pzErr);
  return n;
}

/* The ts of every page_fault row of the intact session. */
static sqlite3_int64 *readTs(sqlite3 *db, int *pn){
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 *a = malloc(sizeof(*a) * 100000);
  int n = 0;
  CHECK( a!=0 );
  CHECK( sqlite3_prepare_v2(db, zRowsSql, -1, &pStmt, 0)==SQLITE_OK );
  while( sqlite3_step(pStmt)==SQLITE_ROW && n<100000 ){
    a[n++] = sqlite3_column_int64(pStmt, 0);
  }
  CHECK( sqlite3_finalize(pStmt)==SQLITE_OK );
  *pn = n;
  return a;
}

static void cutCase(const char *zFile, long long nBytes, int nWantRows){
  sqlite3 *db;
  sqlite3_int64 *aTs;
  int nTs, n;
  char *zErr;
  makeSession();
  db = openDb();
  attach(db);
  aTs = readTs(db, &nTs);
  CHECK( nTs>200 );
  n = stepAndCut(db, zFile, nBytes, aTs, nTs, &zErr);
  if( nWantRows>=0 && n!=nWantRows ){
    fail(__LINE__, "%d rows before the error, wanted %d", n, nWantRows);
  }
  if( strstr(zErr, zFile)==0 || strstr(zErr, "cut short")==0 ){
    fail(__LINE__, "the error does not say %s was cut: %s", zFile, zErr);
  }
  sqlite3_free(zErr);
  free(aTs);
  sqlite3_close(db);
}

static void caseRecords(void){
  sqlite3 *db;
  sqlite3_int64 *aTs;
  sqlite3_uint64 h0, h;
  int nTs, n, nSched, n0;
  char *zErr;
  makeSession();
  db = openDb();
  attach(db);
  aTs = readTs(db, &nTs);
  h0 = hashRows(db, &n0);
  nSched = (int)queryInt(db, "SELECT count(*) FROM sched_switch");
  n = stepAndCut(db, "page_fault.store",
                 4096 + CUT_RECORDS*(long long)sizeof(PAGE_FAULT_RECORD),
                 aTs, nTs, &zErr);
  if( n!=CUT_RECORDS ){
    fail(__LINE__, "%d rows before the error, wanted %d", n, CUT_RECORDS);
  }
  CHECK( strstr(zErr, "page_fault.store")!=0 && strstr(zErr, "cut short")!=0 );
  sqlite3_free(zErr);

  /* The next statements: the cut store fails, the others answer. */
  zErr = queryError(db, "SELECT count(*) FROM page_fault");
  CHECK( strstr(zErr, "page_fault.store")!=0 );
  sqlite3_free(zErr);
  CHECK( queryInt(db, "SELECT count(*) FROM sched_switch")==nSched );

  /* Restored (the same file, written again): read as before. */
  run("cp '%s/page_fault.store' '%s/page_fault.store'", zOrig, zSession);
  h = hashRows(db, &n);
  CHECK( n==n0 && h==h0 );
  free(aTs);
  sqlite3_close(db);
}

static void caseHeader(void){
  cutCase("page_fault.store", 0, 10);
}

static void caseStrings(void){
  cutCase("string_data.store", 4096, -1);
}

/*
** In a child: optionally a handler of the host's own, then the extension
** (which installs the guard), then a SIGBUS on a file that is not a store.
*/
static void onBusExit42(int sig){ (void)sig; _exit(42); }

static int foreignFault(int bHandler){
  pid_t pid = fork();
  int status = 0;
  CHECK( pid>=0 );
  if( pid==0 ){
    char zPath[600];
    volatile char *p;
    int fd;
    if( bHandler ) signal(SIGBUS, onBusExit42);
    sqlite3_close(openDb());
    snprintf(zPath, sizeof(zPath), "%s/foreign", zWork);
    fd = open(zPath, O_RDWR|O_CREAT|O_TRUNC, 0644);
    if( fd<0 || ftruncate(fd, 8192)!=0 ) _exit(3);
    p = mmap(0, 8192, PROT_READ, MAP_SHARED, fd, 0);
    if( p==MAP_FAILED || ftruncate(fd, 0)!=0 ) _exit(4);
    (void)p[4096];
    _exit(5);                     /* The read went through: wrong */
  }
  CHECK( waitpid(pid, &status, 0)==pid );
  return status;
}

static void caseForeign(void){
  int status;
  run("rm -rf '%s' && mkdir -p '%s'", zWork, zWork);
  status = foreignFault(0);
#if defined(__SANITIZE_ADDRESS__)
  /* AddressSanitizer's own SIGBUS handler reports and exits 1, or aborts
  ** with ASAN_OPTIONS=abort_on_error=1 (as Tests/run-tests.sh sets it). */
  if( WIFEXITED(status) && WEXITSTATUS(status)==1 ) return;
  if( WIFSIGNALED(status) && WTERMSIG(status)==SIGABRT ) return;
#endif
  if( !WIFSIGNALED(status) || WTERMSIG(status)!=SIGBUS ){
    fail(__LINE__, "the child ended with status %#x, not SIGBUS", status);
  }
}

static void caseChained(void){
  int status;
  run("rm -rf '%s' && mkdir -p '%s'", zWork, zWork);
  status = foreignFault(1);
  if( !WIFEXITED(status) || WEXITSTATUS(status)!=42 ){
    fail(__LINE__, "the child ended with status %#x, not by the host's "
         "handler", status);
  }
}

static const TestCase aCase[] = {
  { "records", caseRecords },
  { "header", caseHeader },
  { "strings", caseStrings },
  { "foreign", caseForeign },
  { "chained", caseChained },
};

int main(int argc, char **argv){
  if( argc==5 ){
    zTs = argv[2];
    zSrc = argv[3];
    zWork = argv[4];
    argc = 2;
  }else if( argc!=2 || strcmp(argv[1], "list")!=0 ){
    fprintf(stderr, "usage: %s list | CASE TRACESTORE SRC WORKDIR\n",
            argv[0]);
    return 2;
  }
  return testMain(argc, argv, "TestCutWhileReading", aCase,
                  sizeof(aCase)/sizeof(aCase[0]));
}
