/*
** BenchDuckDb.c: the DuckDB extension against DuckDB's own tables, in one
** process (issue 29's performance lines; docs/benchmarks-history.md,
** "DuckDB").
**
** Zone: tests (hosted): libc and libduckdb (duckdb.h).
**
**   BenchDuckDb EXTENSION SESSION [--no-native] [--window-only] [--reps R]
**
** SESSION holds a span store (GenSession --spans N writes one).  The
** program opens an in-memory DuckDB, LOADs EXTENSION and copies the
** columns the queries read (id, ts, dur, parent_id, name) into a native
** DuckDB table (unless --no-native).  Then, interleaved, best of R (3):
**
**   group   SELECT name, count(*), sum(dur) ... GROUP BY name, over
**           tracestore_scan and over the native table, at 1 thread; over
**           tracestore_scan at 2 threads (the speed-up)
**   self    the self time of each name: span joined to its children's
**           summed dur by parent_id, over both, at 1 thread
**   window  count(*), sum(dur) of a 1% ts window (from_ts/to_ts), at 2
**           threads and at 1, after a first query that builds the block
**           index of an unsorted store (reported apart)
**   rss     the peak RssAnon (heap, not the mapped file) sampled every
**           5 ms during the GROUP BY over tracestore_scan (the join's
**           hash table is DuckDB's working memory, reported apart),
**           against the store file's size
**
** Prints @bench lines (Tests/Bench/bench_lib.sh) for the table "duckdb".
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <duckdb.h>

static duckdb_connection con;

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec*1e-9;
}

static void exec(const char *zSql){
  duckdb_result res;
  if( duckdb_query(con, zSql, &res)==DuckDBError ){
    fprintf(stderr, "BenchDuckDb: %s: %s\n", zSql, duckdb_result_error(&res));
    exit(1);
  }
  duckdb_destroy_result(&res);
}

/* Runs zSql, returns its seconds; *pFirst gets the first value (int64). */
static double timed(const char *zSql, long long *pFirst){
  duckdb_result res;
  double t0 = now(), t;
  if( duckdb_query(con, zSql, &res)==DuckDBError ){
    fprintf(stderr, "BenchDuckDb: %s: %s\n", zSql, duckdb_result_error(&res));
    exit(1);
  }
  t = now() - t0;
  if( pFirst ) *pFirst = duckdb_value_int64(&res, 0, 0);
  duckdb_destroy_result(&res);
  return t;
}

/* The self time of each name: its spans' dur less their children's. */
static void selfSql(char *zSql, size_t nSql, const char *zFrom){
  snprintf(zSql, nSql,
           "WITH kids AS (SELECT parent_id, sum(dur) AS d FROM %s "
           "WHERE parent_id IS NOT NULL GROUP BY parent_id) "
           "SELECT s.name, sum(s.dur - coalesce(k.d, 0)) AS self "
           "FROM %s s LEFT JOIN kids k ON k.parent_id = s.id "
           "GROUP BY s.name ORDER BY s.name", zFrom, zFrom);
}

/* Peak RssAnon (kB) seen by the sampler while bSampling, per phase
** (0: the first GROUP BYs, 1: the first join, 2: later; DuckDB keeps
** the join's freed blocks in its buffer pool, so a later GROUP BY would
** show them). */
static volatile int bSampling = 1;
static volatile int iPhase = 0;
static volatile long anPeakAnonKb[3];

static long rssAnonKb(void){
  char zLine[256];
  long n = 0;
  FILE *f = fopen("/proc/self/status", "r");
  if( f==0 ) return 0;
  while( fgets(zLine, sizeof(zLine), f) ){
    if( strncmp(zLine, "RssAnon:", 8)==0 ) n = atol(zLine + 8);
  }
  fclose(f);
  return n;
}

static void *sampler(void *p){
  (void)p;
  while( bSampling ){
    long n = rssAnonKb();
    int i = iPhase;
    if( n>anPeakAnonKb[i] ) anPeakAnonKb[i] = n;
    usleep(5000);
  }
  return 0;
}

int main(int argc, char **argv){
  duckdb_database db;
  duckdb_config config;
  const char *zExt, *zSession;
  char zSql[4096], zScan[1200], zPath[1100];
  int bNative = 1, bWindowOnly = 0, nRep = 3, i, r;
  long long nRow = 0, firstTs = 0, lastTs = 0, n1 = 0, n2 = 0;
  double aBest[8];
  struct stat st;
  pthread_t thread;
  long nAnonBefore;

  if( argc<3 ){
    fprintf(stderr, "usage: BenchDuckDb EXTENSION SESSION [--no-native] "
            "[--reps R]\n");
    return 2;
  }
  zExt = argv[1];
  zSession = argv[2];
  for(i=3; i<argc; i++){
    if( strcmp(argv[i], "--no-native")==0 ) bNative = 0;
    else if( strcmp(argv[i], "--window-only")==0 ) bWindowOnly = 1;
    else if( strcmp(argv[i], "--reps")==0 && i + 1<argc ){
      nRep = atoi(argv[++i]);
    }
  }
  snprintf(zPath, sizeof(zPath), "%s/span.store", zSession);
  if( stat(zPath, &st) ){
    fprintf(stderr, "BenchDuckDb: no %s\n", zPath);
    return 1;
  }
  duckdb_create_config(&config);
  duckdb_set_config(config, "allow_unsigned_extensions", "true");
  if( duckdb_open_ext(":memory:", &db, config, 0)==DuckDBError
   || duckdb_connect(db, &con)==DuckDBError ){
    fprintf(stderr, "BenchDuckDb: cannot open DuckDB\n");
    return 1;
  }
  duckdb_destroy_config(&config);
  snprintf(zSql, sizeof(zSql), "LOAD '%s'", zExt);
  exec(zSql);
  snprintf(zScan, sizeof(zScan), "tracestore_scan('%s', 'span')", zSession);
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM %s", zScan);
  timed(zSql, &nRow);
  snprintf(zSql, sizeof(zSql), "SELECT min(ts) FROM %s", zScan);
  timed(zSql, &firstTs);
  snprintf(zSql, sizeof(zSql), "SELECT max(ts) FROM %s", zScan);
  timed(zSql, &lastTs);

  nAnonBefore = rssAnonKb();
  pthread_create(&thread, 0, sampler, 0);
  for(i=0; i<8; i++) aBest[i] = 1e99;
  exec("SET threads = 1");
  for(r=0; r<(bWindowOnly ? 0 : nRep); r++){
    double t;
    snprintf(zSql, sizeof(zSql), "SELECT name, count(*), sum(dur) FROM %s "
             "GROUP BY name ORDER BY name", zScan);
    exec("SET threads = 1");
    iPhase = r==0 ? 0 : 2;
    t = timed(zSql, 0); if( t<aBest[0] ) aBest[0] = t;
    exec("SET threads = 2");
    t = timed(zSql, 0); if( t<aBest[1] ) aBest[1] = t;
    exec("SET threads = 1");
    usleep(20000);
    iPhase = r==0 ? 1 : 2;
    selfSql(zSql, sizeof(zSql), zScan);
    t = timed(zSql, 0); if( t<aBest[2] ) aBest[2] = t;
    usleep(20000);
  }
  bSampling = 0;
  pthread_join(thread, 0);

  /* The 1% window: the first query builds the block index. */
  {
    long long from = firstTs + (lastTs - firstTs)/2;
    long long to = from + (lastTs - firstTs)/100;
    double tFirst;
    snprintf(zSql, sizeof(zSql), "SELECT count(*), sum(dur) FROM "
             "tracestore_scan('%s', 'span', from_ts := %lld, to_ts := %lld)",
             zSession, from, to);
    exec("SET threads = 2");
    tFirst = timed(zSql, &n1);
    for(r=0; r<5; r++){
      double t = timed(zSql, &n1);
      if( t<aBest[3] ) aBest[3] = t;
    }
    exec("SET threads = 1");
    for(r=0; r<5; r++){
      double t = timed(zSql, &n1);
      if( t<aBest[6] ) aBest[6] = t;
    }
    snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM %s WHERE ts >= %lld "
             "AND ts < %lld", zScan, from, to);
    timed(zSql, &n2);
    if( n1!=n2 ){
      fprintf(stderr, "BenchDuckDb: the window has %lld rows, the filter "
              "%lld\n", n1, n2);
      return 1;
    }
    printf("@bench\tduckdb\twindow\t%lld\t%.3f ms at 2 threads, %.3f ms at 1 "
           "(the first, which builds the block index of an unsorted store: "
           "%.1f ms)\t%lld rows\n", nRow, aBest[3]*1e3, aBest[6]*1e3,
           tFirst*1e3, n1);
  }
  if( bWindowOnly ){
    bNative = 0;
  }else{
    printf("@bench\tduckdb\tgroup2\t%lld\t1 thread %.1f ms, 2 threads "
           "%.1f ms\t%.2fx\n", nRow, aBest[0]*1e3, aBest[1]*1e3,
           aBest[0]/aBest[1]);
    printf("@bench\tduckdb\trss\t%lld\tpeak RssAnon %.1f MB in the GROUP "
           "BY (%.1f MB before; %.1f MB in the join) for a %.1f MB store"
           "\t%.2f%%\n", nRow, anPeakAnonKb[0]/1024.0, nAnonBefore/1024.0,
           anPeakAnonKb[1]/1024.0, st.st_size/1048576.0,
           100.0*(anPeakAnonKb[0] - nAnonBefore)*1024.0/st.st_size);
  }

  if( bNative ){
    double tCopy = now();
    snprintf(zSql, sizeof(zSql), "CREATE TABLE span_native AS SELECT id, "
             "ts, dur, parent_id, name FROM %s", zScan);
    exec("SET threads = 2");
    exec(zSql);
    tCopy = now() - tCopy;
    exec("SET threads = 1");
    for(r=0; r<nRep; r++){
      double t;
      snprintf(zSql, sizeof(zSql), "SELECT name, count(*), sum(dur) FROM %s "
               "GROUP BY name ORDER BY name", zScan);
      t = timed(zSql, 0); if( t<aBest[0] ) aBest[0] = t;
      t = timed("SELECT name, count(*), sum(dur) FROM span_native "
                "GROUP BY name ORDER BY name", 0);
      if( t<aBest[4] ) aBest[4] = t;
      selfSql(zSql, sizeof(zSql), zScan);
      t = timed(zSql, 0); if( t<aBest[2] ) aBest[2] = t;
      selfSql(zSql, sizeof(zSql), "span_native");
      t = timed(zSql, 0);
      if( t<aBest[5] ) aBest[5] = t;
    }
    printf("@bench\tduckdb\tgroup\t%lld\ttracestore_scan %.1f ms, native "
           "%.1f ms (copy in: %.1f s)\t%.2fx\n", nRow, aBest[0]*1e3,
           aBest[4]*1e3, tCopy, aBest[0]/aBest[4]);
    printf("@bench\tduckdb\tself\t%lld\ttracestore_scan %.1f ms, native "
           "%.1f ms\t%.2fx\n", nRow, aBest[2]*1e3, aBest[5]*1e3,
           aBest[2]/aBest[5]);
  }
  duckdb_disconnect(&con);
  duckdb_close(&db);
  return 0;
}
