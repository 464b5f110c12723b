/*
** BenchSql.c: how fast the extension answers, against a reference measured
** in the same process.
**
** Usage:
**
**     BenchSql [--window-rows N] [--scan-rows N] [--big-gb G]
**              [--only wsm] [--keep] DIR
**
** Cases (letters for --only):
**
**   w  window.  A counter store of N rows (default 100 million) whose ts
**      are spread evenly over 365 days, as a long-running sampler writes
**      them (about 11,400 rows per hour).  Times
**          SELECT count(*) FROM counter WHERE ts BETWEEN ?1 AND ?1+3600e9
**      over a one-hour window in the middle (best of 50 runs), and the
**      same query written "+ts BETWEEN", which SQLite cannot hand to the
**      virtual table: the reference without push-down (best of 2).
**
**   s  scan.  A span store of N rows (default 10 million) with 200
**      function names, and a native SQLite table holding the same rows in
**      a database file in DIR (made by CREATE TABLE ... AS SELECT, not
**      timed, and read once to warm the page cache).  Times
**          SELECT name, count(*), sum(dur) FROM span GROUP BY name
**      on each (best of 5, interleaved), plus the same over a copy in an
**      in-memory database, for context.
**
**   m  memory.  A span store of G GB (default 10), and
**          SELECT count(*), sum(dur), sum(length(name)) FROM span
**      over all of it while a thread samples RssAnon and RssFile from
**      /proc/self/status every 5 ms: the data must be read from the
**      mapping, never copied into the heap.
**
** The stores are written through the store API (untimed) into DIR and
** Each case runs in a child process of its own.  They are
** kept for the next run with --keep (a store of the right size already in
** DIR is reused).  Each case checks its answer against the rows it wrote.
** A hosted program: libc is fine here.
*/
#define _GNU_SOURCE 1

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"
#include "Sqlite3Ext/tracestore.h"

#define NAME_COUNT     200
#define HOUR_NS        3600000000000LL
#define YEAR_NS        (365LL * 24 * HOUR_NS)
#define CHUNK_RECORDS  65536

static RTL gRtl;

static void die(const char *zFormat, ...)
  __attribute__((noreturn, format(printf, 1, 2)));

static void die(const char *zFormat, ...){
  va_list ap;
  fprintf(stderr, "BenchSql: ");
  va_start(ap, zFormat);
  vfprintf(stderr, zFormat, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* -------------------------------------------------------------------------
** Writing the stores.
*/

/* The ts of counter row i of n: spread evenly over a year. */
static sqlite3_int64 counterTs(sqlite3_int64 i, sqlite3_int64 n){
  return (sqlite3_int64)((__int128)i * YEAR_NS / n);
}

/* Span row i: name i % NAME_COUNT scrambled, dur from a hash of i. */
static unsigned spanName(sqlite3_int64 i){
  return (unsigned)(((unsigned long long)i * 2654435761u) % NAME_COUNT);
}
static sqlite3_int64 spanDur(sqlite3_int64 i){
  return (sqlite3_int64)(((unsigned long long)i * 0x9e3779b97f4a7c15ULL) >> 44);
}

/*
** Returns the records committed in store zStore of session zDir, or -1 if
** there is no such session or store.
*/
static sqlite3_int64 existingRecords(const char *zDir, const char *zStore){
  TRACE_SESSION *pSession = calloc(1, sizeof(*pSession));
  RTL_ERROR error;
  PTRACE_STORE pStore;
  sqlite3_int64 n = -1;
  memset(&error, 0, sizeof(error));
  if( RTL_SUCCESS(TraceSessionOpenReader(&gRtl, zDir, pSession, &error)) ){
    pStore = TraceSessionFindStore(pSession, zStore);
    if( pStore ) n = (sqlite3_int64)pStore->Snapshot.RecordCount;
    TraceSessionClose(pSession);
  }
  free(pSession);
  return n;
}

/*
** Writes a session zDir with one store of schema pSchema holding nRow
** records (eKind 'c' counter, 's' span), unless it exists already.
*/
static void writeStore(const char *zDir, PCTRACE_STORE_SCHEMA pSchema,
                       int eKind, sqlite3_int64 nRow){
  TRACE_SESSION *pSession;
  PTRACE_STORE pStore;
  RTL_ERROR error;
  ULONG aName[NAME_COUNT];
  char zCmd[600], zName[32];
  sqlite3_int64 i, nDone;
  ULONGLONG iFirst;
  double t0;
  int k;

  if( existingRecords(zDir, pSchema->Name)==nRow ){
    printf("  reusing %s (%lld rows)\n", zDir, (long long)nRow);
    return;
  }
  snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'", zDir);
  if( system(zCmd)!=0 ) die("cannot remove %s", zDir);
  printf("  writing %s: %lld %s rows ...", zDir, (long long)nRow,
         pSchema->Name);
  fflush(stdout);
  t0 = now();
  pSession = calloc(1, sizeof(*pSession));
  memset(&error, 0, sizeof(error));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&gRtl, zDir, pSession, &error))
   || !RTL_SUCCESS(TraceSessionOpenStore(pSession, pSchema, &pStore,
                                         &error)) ){
    die("cannot write the session: %s", error.Message);
  }
  pStore->DiscardBehind = TRUE;
  for(k=0; k<NAME_COUNT; k++){
    snprintf(zName, sizeof(zName), eKind=='c' ? "counter_%03d" : "fn_%03d", k);
    if( !RTL_SUCCESS(TraceStringIntern(&pSession->Strings, zName,
                                       (ULONG)strlen(zName), &aName[k])) ){
      die("cannot intern %s", zName);
    }
  }
  for(nDone=0; nDone<nRow; nDone+=CHUNK_RECORDS){
    ULONG n = nRow-nDone<CHUNK_RECORDS ? (ULONG)(nRow-nDone) : CHUNK_RECORDS;
    if( !RTL_SUCCESS(TraceStoreReserve(pStore, n, &iFirst)) ){
      die("cannot reserve records in %s", zDir);
    }
    for(i=0; i<(sqlite3_int64)n; i++){
      sqlite3_int64 j = nDone + i;
      PBYTE pRec = pStore->Base + (iFirst + (ULONGLONG)i) * pStore->RecordSize;
      if( eKind=='c' ){
        PCOUNTER_RECORD r = (PCOUNTER_RECORD)pRec;
        r->Timestamp = counterTs(j, nRow);
        r->Value = (double)(j % 1000);
        r->RunningPercent = 100.0;
        r->NameId = aName[0];
        r->UnitId = TRACE_NULL_ULONG;
        r->Pid = TRACE_NULL_ULONG;
        r->Cpu = (ULONG)(j & 1);
      }else{
        PSPAN_RECORD r = (PSPAN_RECORD)pRec;
        r->Timestamp = j * 1000;
        r->Duration = spanDur(j);
        r->ParentId = (LONGLONG)TRACE_NULL_ULONGLONG;
        r->NameId = aName[spanName(j)];
        r->Depth = 0;
        r->Tid = (ULONG)(1 + (j & 7));
        r->Pid = 1;
        r->CategoryId = TRACE_NULL_ULONG;
        r->ArgsId = TRACE_NULL_ULONG;
        r->Flags = 0;
        r->Padding = 0;
      }
    }
    if( !RTL_SUCCESS(TraceSessionCommit(pSession)) ){
      die("cannot commit to %s", zDir);
    }
  }
  TraceSessionClose(pSession);
  free(pSession);
  printf(" %.1f s\n", now()-t0);
}

/* -------------------------------------------------------------------------
** Querying.
*/

static sqlite3 *openDb(const char *zFile, const char *zSession){
  sqlite3 *db = 0;
  char *zErr = 0, *zSql;
  if( sqlite3_open(zFile, &db)!=SQLITE_OK ) die("cannot open %s", zFile);
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ) die("init: %s", zErr);
  zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", zSession);
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ) die("attach: %s", zErr);
  sqlite3_free(zSql);
  return db;
}

static void exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ) die("%s", zErr);
}

/*
** Runs pStmt to the end; returns the seconds it took and, in *piSum, the
** sum over its rows of column iCol (as int64).
*/
static double runStmt(sqlite3_stmt *pStmt, int iCol, sqlite3_int64 *piSum){
  double t0 = now(), t;
  sqlite3_int64 s = 0;
  int rc;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    s += sqlite3_column_int64(pStmt, iCol);
  }
  t = now() - t0;
  if( rc!=SQLITE_DONE ){
    die("query failed: %s", sqlite3_errmsg(sqlite3_db_handle(pStmt)));
  }
  sqlite3_reset(pStmt);
  if( piSum ) *piSum = s;
  return t;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    die("prepare: %s", sqlite3_errmsg(db));
  }
  return pStmt;
}

/* Case w. */
static void caseWindow(const char *zDir, sqlite3_int64 nRow){
  char zSession[512];
  sqlite3 *db;
  sqlite3_stmt *pFast, *pSlow;
  sqlite3_int64 iLo, iHi, nFast = 0, nSlow = 0, nExpect, i;
  double tFast = 1e9, tSlow = 1e9, t;
  int k;

  snprintf(zSession, sizeof(zSession), "%s/window.trace", zDir);
  printf("w: count(*) over a one-hour ts window, %lld-row counter store\n",
         (long long)nRow);
  writeStore(zSession, &TraceCounterSchema, 'c', nRow);
  db = openDb(":memory:", zSession);

  iLo = YEAR_NS/2;
  iHi = iLo + HOUR_NS;
  for(nExpect=0, i=0; i<nRow; i++){            /* The oracle: by hand */
    sqlite3_int64 ts = counterTs(i, nRow);
    if( ts>=iLo && ts<=iHi ) nExpect++;
  }
  pFast = prepare(db, "SELECT count(*) FROM counter WHERE ts BETWEEN ?1 AND ?2");
  pSlow = prepare(db, "SELECT count(*) FROM counter WHERE +ts BETWEEN ?1 AND ?2");
  sqlite3_bind_int64(pFast, 1, iLo);
  sqlite3_bind_int64(pFast, 2, iHi);
  sqlite3_bind_int64(pSlow, 1, iLo);
  sqlite3_bind_int64(pSlow, 2, iHi);
  for(k=0; k<50; k++){
    t = runStmt(pFast, 0, &nFast);
    if( t<tFast ) tFast = t;
  }
  for(k=0; k<2; k++){
    t = runStmt(pSlow, 0, &nSlow);
    if( t<tSlow ) tSlow = t;
  }
  if( nFast!=nExpect || nSlow!=nExpect ){
    fprintf(stderr, "BenchSql: window count %lld / %lld, expected %lld\n",
            (long long)nFast, (long long)nSlow, (long long)nExpect);
    exit(1);
  }
  printf("  rows in the window      %lld\n", (long long)nExpect);
  printf("  push-down (best of 50)  %.3f ms\n", tFast*1e3);
  printf("  +ts, no push-down       %.1f ms\n", tSlow*1e3);
  printf("  ratio                   %.0fx\n", tSlow/tFast);
  printf("@bench\tsql\trow\t`count(*) WHERE ts BETWEEN` a one-hour window of "
         "a **%g M-row** sorted `counter` store (%lld rows in the window; "
         "best of 50)\t**%.3f ms**\t%.1f ms: the same query written `+ts "
         "BETWEEN`, which SQLite cannot push down (a full scan)\t"
         "**%.0fx faster**\n", nRow/1e6, (long long)nExpect, tFast*1e3,
         tSlow*1e3, tSlow/tFast);
  sqlite3_finalize(pFast);
  sqlite3_finalize(pSlow);
  sqlite3_close(db);
}

/* The expected aggregate: sum over groups of count and of sum(dur). */
static void expectScan(sqlite3_int64 nRow, sqlite3_int64 *pnCount,
                       sqlite3_int64 *pnDur){
  sqlite3_int64 i, s = 0;
  for(i=0; i<nRow; i++) s += spanDur(i);
  *pnCount = nRow;
  *pnDur = s;
}

static const char zAggregate[] =
  "SELECT name, count(*), sum(dur) FROM %s GROUP BY name";

/* Case s. */
static void caseScan(const char *zDir, sqlite3_int64 nRow){
  char zSession[512], zDb[512], *zSql;
  sqlite3 *db, *dbMem;
  sqlite3_stmt *apStmt[3];
  static const char *azLabel[3] = {
    "tracestore span", "native table (file)", "native table (:memory:)"
  };
  double aBest[3] = {1e9, 1e9, 1e9}, t;
  sqlite3_int64 nCount, nDur, s;
  int k, j;

  snprintf(zSession, sizeof(zSession), "%s/scan.trace", zDir);
  snprintf(zDb, sizeof(zDb), "%s/scan-native.db", zDir);
  printf("s: %s over %lld spans\n", "GROUP BY name aggregate", (long long)nRow);
  writeStore(zSession, &TraceSpanSchema, 's', nRow);
  unlink(zDb);
  db = openDb(zDb, zSession);
  exec(db, "CREATE TABLE main.span_native AS SELECT * FROM temp.span");
  dbMem = openDb(":memory:", zSession);
  exec(dbMem, "CREATE TABLE main.span_native AS SELECT * FROM temp.span");

  apStmt[0] = prepare(db, zSql = sqlite3_mprintf(zAggregate, "temp.span"));
  sqlite3_free(zSql);
  apStmt[1] = prepare(db, zSql = sqlite3_mprintf(zAggregate, "main.span_native"));
  sqlite3_free(zSql);
  apStmt[2] = prepare(dbMem, zSql = sqlite3_mprintf(zAggregate, "main.span_native"));
  sqlite3_free(zSql);

  expectScan(nRow, &nCount, &nDur);
  for(j=0; j<3; j++){                           /* Warm up, check */
    runStmt(apStmt[j], 1, &s);
    if( s!=nCount ) die("%s: wrong count", azLabel[j]);
    runStmt(apStmt[j], 2, &s);
    if( s!=nDur ) die("%s: wrong sum(dur)", azLabel[j]);
  }
  for(k=0; k<5; k++){
    for(j=0; j<3; j++){
      t = runStmt(apStmt[j], 1, 0);
      if( t<aBest[j] ) aBest[j] = t;
    }
  }
  for(j=0; j<3; j++){
    printf("  %-24s %7.1f ms  %.2fx of the native file table\n", azLabel[j],
           aBest[j]*1e3, aBest[j]/aBest[1]);
    sqlite3_finalize(apStmt[j]);
  }
  printf("@bench\tsql\trow\t`SELECT name, count(*), sum(dur) FROM span GROUP "
         "BY name`, **%g M** spans, 200 names (best of 5, interleaved)\t"
         "%.0f ms\t%.0f ms: a native SQLite table with the same rows in a "
         "database file (%.0f ms in `:memory:`)\t**%.2fx** the native time\n",
         nRow/1e6, aBest[0]*1e3, aBest[1]*1e3, aBest[2]*1e3, aBest[0]/aBest[1]);
  sqlite3_close(db);
  sqlite3_close(dbMem);
  unlink(zDb);
}

/* -------------------------------------------------------------------------
** Case m: RssAnon while scanning.
*/

static volatile int gStop = 0;
static long gPeakAnon = 0, gPeakFile = 0, gBaseAnon = 0;

static void readRss(long *pAnon, long *pFile){
  char zLine[256];
  FILE *f = fopen("/proc/self/status", "r");
  *pAnon = *pFile = 0;
  if( f==0 ) return;
  while( fgets(zLine, sizeof(zLine), f) ){
    if( strncmp(zLine, "RssAnon:", 8)==0 ) *pAnon = atol(zLine+8);
    if( strncmp(zLine, "RssFile:", 8)==0 ) *pFile = atol(zLine+8);
  }
  fclose(f);
}

static void *sampler(void *p){
  long a, f;
  (void)p;
  while( !gStop ){
    readRss(&a, &f);
    if( a>gPeakAnon ) gPeakAnon = a;
    if( f>gPeakFile ) gPeakFile = f;
    usleep(5000);
  }
  return 0;
}

static void caseMemory(const char *zDir, double gb){
  char zSession[512];
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  sqlite3_int64 nRow = (sqlite3_int64)(gb * 1e9 / sizeof(SPAN_RECORD));
  sqlite3_int64 nCount, nDur, s;
  pthread_t thread;
  double t;
  long f;

  snprintf(zSession, sizeof(zSession), "%s/big.trace", zDir);
  printf("m: RssAnon during the aggregate over a %.1f GB span store\n", gb);
  writeStore(zSession, &TraceSpanSchema, 's', nRow);
  db = openDb(":memory:", zSession);
  pStmt = prepare(db, "SELECT count(*), sum(dur), sum(length(name)) "
                      "FROM span");
  readRss(&gBaseAnon, &f);
  pthread_create(&thread, 0, sampler, 0);
  t = runStmt(pStmt, 0, &s);
  gStop = 1;
  pthread_join(thread, 0);
  expectScan(nRow, &nCount, &nDur);
  if( s!=nCount ) die("%s", "wrong count over the big store");
  runStmt(pStmt, 1, &s);                        /* Untimed: the answer */
  if( s!=nDur ) die("%s", "wrong sum(dur) over the big store");
  runStmt(pStmt, 2, &s);
  if( s!=6*nRow ) die("%s", "wrong sum(length(name)) over the big store");
  printf("  rows                    %lld (%.2f GB of records)\n",
         (long long)nRow, (double)nRow * sizeof(SPAN_RECORD) / 1e9);
  printf("  scan time               %.1f s (%.0f M rows/s)\n", t,
         (double)nRow / t / 1e6);
  printf("  RssAnon before / peak   %.1f / %.1f MB\n", gBaseAnon/1024.0,
         gPeakAnon/1024.0);
  printf("  RssFile peak            %.1f MB (the mapped store)\n",
         gPeakFile/1024.0);
  printf("@bench\tsql\trow\t`SELECT count(*), sum(dur), sum(length(name)) "
         "FROM span` over a **%.1f GB** span store (%.1f M rows), `RssAnon` "
         "sampled every 5 ms\t%.1f s, %.1f M rows/s\t-\tpeak **RssAnon "
         "%.1f MB** (RssFile %.1f GB: the mapping)\n", gb, nRow/1e6, t,
         nRow/t/1e6, gPeakAnon/1024.0, gPeakFile/1048576.0);
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  if( gPeakAnon>=64*1024 ){
    fprintf(stderr, "BenchSql: RssAnon peak %.1f MB is not under 64 MB\n",
            gPeakAnon/1024.0);
    exit(1);
  }
}

/*
** Runs one case in a child process, so that no case inherits the heap of
** another (case m measures this process's anonymous memory).
*/
static void runCase(int eCase, const char *zDir, sqlite3_int64 nRow,
                    double gb){
  int status = 0;
  pid_t pid;
  fflush(stdout);
  pid = fork();
  if( pid<0 ) die("%s", "fork failed");
  if( pid==0 ){
    if( eCase=='w' ) caseWindow(zDir, nRow);
    if( eCase=='s' ) caseScan(zDir, nRow);
    if( eCase=='m' ) caseMemory(zDir, gb);
    fflush(stdout);
    _exit(0);
  }
  if( waitpid(pid, &status, 0)!=pid || !WIFEXITED(status)
   || WEXITSTATUS(status)!=0 ){
    exit(1);
  }
}

int main(int argc, char **argv){
  sqlite3_int64 nWindow = 100000000, nScan = 10000000;
  double gb = 10.0;
  const char *zOnly = "wsm", *zDir = 0;
  int bKeep = 0, i;
  char zCmd[600];

  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "--window-rows")==0 && i+1<argc ){
      nWindow = atoll(argv[++i]);
    }else if( strcmp(argv[i], "--scan-rows")==0 && i+1<argc ){
      nScan = atoll(argv[++i]);
    }else if( strcmp(argv[i], "--big-gb")==0 && i+1<argc ){
      gb = atof(argv[++i]);
    }else if( strcmp(argv[i], "--only")==0 && i+1<argc ){
      zOnly = argv[++i];
    }else if( strcmp(argv[i], "--keep")==0 ){
      bKeep = 1;
    }else if( argv[i][0]!='-' && zDir==0 ){
      zDir = argv[i];
    }else{
      fprintf(stderr, "usage: BenchSql [--window-rows N] [--scan-rows N] "
              "[--big-gb G] [--only wsm] [--keep] DIR\n");
      return 2;
    }
  }
  if( zDir==0 || nWindow<1 || nScan<1 || gb<=0 ){
    fprintf(stderr, "usage: BenchSql [options] DIR\n");
    return 2;
  }
  mkdir(zDir, 0777);
  if( !RTL_SUCCESS(InitializeRtl(&gRtl)) ) die("%s", "InitializeRtl failed");
  printf("BenchSql: SQLite %s\n", sqlite3_libversion());
  printf("@bench\tsql\thead\tcase\ttracestore\treference (same run)\t"
         "ratio\n");
  if( strchr(zOnly, 'w') ) runCase('w', zDir, nWindow, gb);
  if( strchr(zOnly, 's') ) runCase('s', zDir, nScan, gb);
  if( strchr(zOnly, 'm') ) runCase('m', zDir, 0, gb);
  if( !bKeep ){
    snprintf(zCmd, sizeof(zCmd), "rm -rf '%s'/window.trace '%s'/scan.trace "
             "'%s'/big.trace", zDir, zDir, zDir);
    if( system(zCmd)!=0 ) return 1;
  }
  printf("@bench\tsql\tnote\tSQLite %s; each case in a child process of "
         "its own, the stores written through the store API before the "
         "clock starts; every answer checked against the rows written.\n",
         sqlite3_libversion());
  return 0;
}
