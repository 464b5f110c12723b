/*
** BenchRecordLatency.c: how long after an event happens a live SQL reader
** sees it, while `tracestore record` writes the session.
**
** Usage:
**
**     BenchRecordLatency [--store NAME] [--count N] [--timeout SEC]
**                        [--idle SEC] [--poll-us US] [--dump FILE] SESSION
**
** Attaches SESSION (retrying until `tracestore record` has created it),
** prints "attached" on stdout, then polls
**
**     SELECT id, ts FROM NAME WHERE id > ?last        (NAME: ftrace_event)
**
** in a loop (sleeping US microseconds between polls, default 0: a tight
** loop), and for each new row takes clock_gettime(CLOCK_MONOTONIC) - ts.
** The recorder's trace clock is "mono", so ts is the kernel's
** CLOCK_MONOTONIC time of the event and the difference is the time from
** the event to its row being visible in SQL.  Stops after N rows (default
** 1000000), after SEC seconds without a new row once rows have arrived
** (--idle, default 1), or at --timeout (default 120).  Prints one line:
**
**     rows R  median M ms  p90 ms  p99 ms  max ms  mean ms  first ms
**     second ms  polls P
**
** (first and second: the first two events, whose rows wait for the
** recorder's first look at the process: its /proc/PID/maps is read when
** its first event is merged)
**
** --dump writes each row's "id ts latency_ns" to FILE, in arrival order.
**
** A hosted program: libc is fine here.
*/
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "Sqlite3Ext/tracestore.h"

static long long monoNs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000000000LL + ts.tv_nsec;
}

static int cmpLL(const void *a, const void *b){
  long long x = *(const long long*)a, y = *(const long long*)b;
  return x<y ? -1 : x>y;
}

/* The value at fraction r of the sorted a[0..n-1] (nearest rank). */
static double pct(const long long *a, long n, double r){
  long i = (long)(r*n + 0.999999) - 1;
  if( i<0 ) i = 0;
  if( i>=n ) i = n-1;
  return a[i]/1e6;
}

int main(int argc, char **argv){
  const char *zSession = 0, *zStore = "ftrace_event", *zDump = 0;
  long nMax = 1000000, nRow = 0, nAlloc = 0, i;
  double rTimeout = 120, rIdle = 1;
  long usPoll = 0;
  long long *aLat = 0, *aId = 0, *aTs = 0, tStart, tLastRow = 0, iLast = -1, nPoll = 0;
  double rSum = 0;
  sqlite3 *db = 0;
  sqlite3_stmt *pStmt = 0;
  char *zErr = 0, *zSql;

  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "--store")==0 && i+1<argc ) zStore = argv[++i];
    else if( strcmp(argv[i], "--count")==0 && i+1<argc ) nMax = atol(argv[++i]);
    else if( strcmp(argv[i], "--timeout")==0 && i+1<argc ) rTimeout = atof(argv[++i]);
    else if( strcmp(argv[i], "--idle")==0 && i+1<argc ) rIdle = atof(argv[++i]);
    else if( strcmp(argv[i], "--poll-us")==0 && i+1<argc ) usPoll = atol(argv[++i]);
    else if( strcmp(argv[i], "--dump")==0 && i+1<argc ) zDump = argv[++i];
    else if( argv[i][0]!='-' && zSession==0 ) zSession = argv[i];
    else{
      fprintf(stderr, "usage: BenchRecordLatency [--store NAME] [--count N] "
              "[--timeout SEC] [--idle SEC] [--poll-us US] [--dump FILE] "
              "SESSION\n");
      return 2;
    }
  }
  if( zSession==0 || nMax<=0 ){
    fprintf(stderr, "BenchRecordLatency: no SESSION\n");
    return 2;
  }

  tStart = monoNs();
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK
   || sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fprintf(stderr, "BenchRecordLatency: cannot load the extension: %s\n",
            zErr ? zErr : sqlite3_errmsg(db));
    return 1;
  }
  zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", zSession);
  for(;;){
    sqlite3_free(zErr);
    zErr = 0;
    if( sqlite3_exec(db, zSql, 0, 0, &zErr)==SQLITE_OK ) break;
    if( (monoNs()-tStart)/1e9>rTimeout ){
      fprintf(stderr, "BenchRecordLatency: cannot attach %s: %s\n", zSession,
              zErr);
      return 1;
    }
    usleep(2000);
  }
  sqlite3_free(zSql);
  zSql = sqlite3_mprintf("SELECT id, ts FROM \"%w\" WHERE id > ?1", zStore);
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    fprintf(stderr, "BenchRecordLatency: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  sqlite3_free(zSql);
  printf("attached\n");
  fflush(stdout);

  while( nRow<nMax ){
    long long tNow;
    int rc;
    sqlite3_bind_int64(pStmt, 1, iLast);
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      long long iId = sqlite3_column_int64(pStmt, 0);
      long long iTs = sqlite3_column_int64(pStmt, 1);
      tNow = monoNs();
      if( nRow>=nAlloc ){
        long nNew = nAlloc ? nAlloc*2 : 65536;
        long long *aNew = realloc(aLat, nNew*sizeof(*aLat));
        long long *aNewId = realloc(aId, nNew*sizeof(*aId));
        long long *aNewTs = realloc(aTs, nNew*sizeof(*aTs));
        if( aNew ) aLat = aNew;
        if( aNewId ) aId = aNewId;
        if( aNewTs ) aTs = aNewTs;
        if( aNew==0 || aNewId==0 || aNewTs==0 ){
          fprintf(stderr, "out of memory\n");
          return 1;
        }
        nAlloc = nNew;
      }
      aId[nRow] = iId;
      aTs[nRow] = iTs;
      aLat[nRow++] = tNow - iTs;
      rSum += (tNow - iTs)/1e6;
      iLast = iId;
      tLastRow = tNow;
      if( nRow>=nMax ) break;
    }
    if( rc!=SQLITE_ROW && rc!=SQLITE_DONE ){
      fprintf(stderr, "BenchRecordLatency: %s\n", sqlite3_errmsg(db));
      return 1;
    }
    sqlite3_reset(pStmt);
    nPoll++;
    tNow = monoNs();
    if( nRow>0 && (tNow-tLastRow)/1e9>=rIdle ) break;
    if( (tNow-tStart)/1e9>=rTimeout ) break;
    if( usPoll>0 ) usleep(usPoll);
  }
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  if( nRow==0 ){
    fprintf(stderr, "BenchRecordLatency: no rows arrived\n");
    return 1;
  }
  if( zDump ){
    FILE *pOut = fopen(zDump, "w");
    if( pOut==0 ){ perror(zDump); return 1; }
    for(i=0; i<nRow; i++) fprintf(pOut, "%lld %lld %lld\n", aId[i], aTs[i], aLat[i]);
    fclose(pOut);
  }
  {
    double rFirst = aLat[0]/1e6, rSecond = nRow>1 ? aLat[1]/1e6 : 0;
    qsort(aLat, nRow, sizeof(*aLat), cmpLL);
    printf("rows %ld  median %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms  "
           "mean %.2f ms  first %.2f ms  second %.2f ms  polls %lld\n", nRow,
           pct(aLat, nRow, 0.5), pct(aLat, nRow, 0.9), pct(aLat, nRow, 0.99),
           aLat[nRow-1]/1e6, rSum/nRow, rFirst, rSecond, nPoll);
    /* A result line (Tests/Bench/bench_lib.sh); the head is bench_record.sh's */
    char zReader[64];
    if( usPoll>0 ) snprintf(zReader, sizeof(zReader), "sleeps %ld us between polls", usPoll);
    else snprintf(zReader, sizeof(zReader), "polls in a tight loop");
    printf("@bench\trecord-latency\trow\t%s\t%ld\t"
           "**%.2f ms**\t%.2f ms\t%.2f ms\t%.2f ms\t%.2f\n", zReader, nRow,
           pct(aLat, nRow, 0.5), pct(aLat, nRow, 0.9), pct(aLat, nRow, 0.99),
           aLat[nRow-1]/1e6, pct(aLat, nRow, 0.5)/20.0);
  }
  free(aLat);
  free(aId);
  free(aTs);
  return 0;
}
