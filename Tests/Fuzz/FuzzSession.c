/*
** libFuzzer harness for mutated sessions: a store file that somebody
** emailed, cut, or forged.  Two targets are built from it:
**
**   session_store   the session is opened read-only through the store API
**                   and every column of every committed record of every
**                   store read back, every string id resolved
**                   (fuzzReadSession);
**   session_sql     (FUZZ_SESSION_SQL) the extension is registered in an
**                   in-memory SQLite database, the session attached with
**                   tracestore_attach(), and a fixed set of queries run
**                   over every table and view it made (runQueries);
**   session_export  (FUZZ_SESSION_EXPORT) the session, once it opens, is
**                   exported as `tracestore export` does, as Chrome JSON
**                   and as Perfetto's protobuf, to /dev/null
**                   (Outputs/Export, linked in with Host/HostUtil.c);
**   session_duckdb  (FUZZ_SESSION_DUCKDB) the session, once it opens, is
**                   read as the DuckDB extension's scan reads it
**                   (DuckDbExt/tracestore_duckdb_rows.c, without DuckDB):
**                   every store whole and in ts windows, through the
**                   binary search of a sorted store and the block index of
**                   any store, every column of every row decoded, every
**                   string resolved, each args text parsed as the args
**                   view parses it (scanAsDuckDb).
**
** The template session is imported once, at start, from small samples of
** every kind of store (FUZZ_SESSION_SAMPLES, "FORMAT=PATH,..."): events,
** page faults, context switches, kvm exits, counters, spans, processes,
** threads, modules, sources and the string stores.  An input is one byte
** that picks a file of the template (its index, modulo their number, in
** name order) followed by the new content of that file: the session under
** test is the template with that one file replaced.  The seeds are the
** template's files unchanged, so mutations start from valid stores.
**
** A refused session, a failing query, an interrupted query (each has a
** budget of SQLite VM steps) are all fine; a crash, a sanitizer report, a
** leak or a hang is a finding.
**
** With FUZZ_SESSION_ONLY (a file name suffix, ".rollup" for the target
** rollup_file) the byte picks among the template's files with that suffix
** only, and the session is also read through the rollups: each event
** store's answer (TraceRollupRead), every row of it.
**
** durable_file (FUZZ_SESSION_DURABLE, with FUZZ_SESSION_ONLY ".durable"):
** the input replaces session.durable, its checksum made right when it has
** the file's size, so that mutations reach what a reader does after a
** power cut (another boot id: stores shown up to their counts, unlisted
** ones left out) and what the next writer does (stores rolled back,
** unlisted ones removed); then a writer opens and closes the session and
** it is read again.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "FuzzCommon.h"
#ifdef FUZZ_SESSION_SQL
# include "Sqlite3Ext/tracestore.h"
#endif

#ifdef FUZZ_SESSION_DUCKDB
# include "DuckDbExt/tracestore_duckdb_rows.h"
# include "Kernel/EventFields.h"
#endif

#ifdef FUZZ_SESSION_EXPORT
# include "Host/Host.h"
# include "Outputs/Export/Export.h"
# include "Outputs/Export/ExportSink.h"
#endif

#ifndef FUZZ_SESSION_SAMPLES
# error "define FUZZ_SESSION_SAMPLES"
#endif

#define MAX_FILES 32

#ifndef FUZZ_SESSION_EXPORT
static RTL Rtl;                   /* (the export's is Host/HostUtil.c's) */
#endif
static char zSession[600];        /* the session under test */
static int nFile;                 /* the template's files, by name */
static int nPick;                 /* those an input may replace */
static int aiPick[MAX_FILES];
static char azFile[MAX_FILES][64];
static uint8_t *aaFile[MAX_FILES];
static size_t anFile[MAX_FILES];

static int compareNames(const void *a, const void *b){
  return strcmp((const char*)a, (const char*)b);
}

/*
** Adds a line store to the template (no import writes one: trace-python
** --lines does), so the line table and its views are fuzzed too: rows of
** two functions of the fuzz harness's own source file, as the tracer
** writes them.
*/
static void addLineStore(const char *zTemplate){
  static TRACE_SESSION s;
  PTRACE_STORE pStore = 0;
  RTL_ERROR err;
  ULONG aName[2], fileId;
  int i;
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zTemplate, &s, &err))
   || !RTL_SUCCESS(TraceSessionOpenStore(&s, &TraceLineSchema, &pStore, &err))
   || !RTL_SUCCESS(TraceStringIntern(&s.Strings, __FILE__,
                                     (ULONG)strlen(__FILE__), &fileId))
   || !RTL_SUCCESS(TraceStringIntern(&s.Strings, "fuzz.main", 9, &aName[0]))
   || !RTL_SUCCESS(TraceStringIntern(&s.Strings, "fuzz.work", 9, &aName[1])) ){
    fprintf(stderr, "template: line store: %s\n", err.Message);
    exit(1);
  }
  for(i=0; i<64; i++){
    LINE_RECORD r;
    memset(&r, 0, sizeof(r));
    r.Timestamp = 1000 + i*100;
    r.Duration = i==63 ? 0 : 90;
    r.SelfDuration = i%3 ? 90 : 40;
    r.SpanId = TRACE_NULL_LONGLONG;
    r.FileId = fileId;
    r.LineNo = (ULONG)(20 + i%7);
    r.NameId = aName[i%2];
    r.Tid = 7;
    r.Flags = i==63 ? SPAN_FLAG_END_MISSING : 0;
    TraceStoreAppend(pStore, &r, 0);
  }
  TraceStringCommit(&s.Strings);
  TraceStoreCommit(pStore, TRACE_COMMIT_ALL);
  TraceSessionClose(&s);
}

/* Imports the samples into a template session and keeps its files. */
static void initialize(void){
  char zTemp[500], zTemplate[600], zSamples[] = FUZZ_SESSION_SAMPLES;
  char *zSample, *zNext;
  DIR *d;
  struct dirent *e;
  int i;

  if( zSession[0] ) return;
  InitializeRtl(&Rtl);
  fuzzMakeTemp(zTemp, sizeof(zTemp));
  snprintf(zTemplate, sizeof(zTemplate), "%s/template", zTemp);
  snprintf(zSession, sizeof(zSession), "%s/session", zTemp);
  for(zSample=zSamples; zSample && *zSample; zSample=zNext){
    char *zPath;
    zNext = strchr(zSample, ',');
    if( zNext ) *zNext++ = 0;
    zPath = strchr(zSample, '=');
    if( zPath==0 ){ fprintf(stderr, "bad sample %s\n", zSample); exit(1); }
    *zPath++ = 0;
    if( fuzzImport(&Rtl, zTemplate, zSample, zPath) ){
      fprintf(stderr, "template: cannot import %s\n", zPath);
      exit(1);
    }
  }
  addLineStore(zTemplate);
  d = opendir(zTemplate);
  while( d && (e = readdir(d))!=0 ){
    if( e->d_name[0]=='.' ) continue;
    if( nFile==MAX_FILES || strlen(e->d_name)>=sizeof(azFile[0]) ) exit(1);
    strcpy(azFile[nFile++], e->d_name);
  }
  if( d ) closedir(d);
  if( nFile==0 ){ fprintf(stderr, "template: no files\n"); exit(1); }
  qsort(azFile, nFile, sizeof(azFile[0]), compareNames);
  for(i=0; i<nFile; i++){
#ifdef FUZZ_SESSION_ONLY
    size_t n = strlen(azFile[i]), k = strlen(FUZZ_SESSION_ONLY);
    if( n<k || strcmp(azFile[i] + n - k, FUZZ_SESSION_ONLY)!=0 ) continue;
#endif
    aiPick[nPick++] = i;
  }
  if( nPick==0 ){ fprintf(stderr, "template: no file to fuzz\n"); exit(1); }
  for(i=0; i<nFile; i++){
    char zPath[700];
    snprintf(zPath, sizeof(zPath), "%s/%s", zTemplate, azFile[i]);
    aaFile[i] = fuzzReadFile(zPath, &anFile[i]);
  }
}

void fuzzSeeds(const char *zDir){
  int i;
  initialize();
  for(i=0; i<nPick; i++){
    char zPath[700];
    uint8_t *a = malloc(anFile[aiPick[i]] + 1);
    if( a==0 ) exit(1);
    a[0] = (uint8_t)i;
    memcpy(a + 1, aaFile[aiPick[i]], anFile[aiPick[i]]);
    snprintf(zPath, sizeof(zPath), "%s/seed-%s", zDir, azFile[aiPick[i]]);
    if( fuzzWriteFile(zPath, a, anFile[aiPick[i]] + 1) ){
      perror(zPath);
      exit(1);
    }
    free(a);
  }
}

/* Writes the template with file aData[0] replaced by the rest of aData. */
static void makeSession(const uint8_t *aData, size_t nData){
  int iFile = aiPick[aData[0] % nPick], i;
  fuzzRemoveDir(zSession);
  if( mkdir(zSession, 0700) ){ perror(zSession); exit(1); }
  for(i=0; i<nFile; i++){
    char zPath[700];
    int rc;
    snprintf(zPath, sizeof(zPath), "%s/%s", zSession, azFile[i]);
    if( i==iFile ){
#ifdef FUZZ_SESSION_DURABLE
      TRACE_DURABLE durable;
      if( nData - 1==sizeof(durable) ){
        memcpy(&durable, aData + 1, sizeof(durable));
        durable.Checksum = Rtl.Hash64(&durable,
                                      FIELD_OFFSET(TRACE_DURABLE, Checksum));
        rc = fuzzWriteFile(zPath, (const uint8_t*)&durable, sizeof(durable));
      }else
#endif
      rc = fuzzWriteFile(zPath, aData + 1, nData - 1);
    }else{
      rc = fuzzWriteFile(zPath, aaFile[i], anFile[i]);
    }
    if( rc ){ perror(zPath); exit(1); }
  }
}

#ifdef FUZZ_SESSION_SQL

#define STEP_BUDGET 200000        /* progress callbacks of 100 VM steps */

static int nStep;
static int nQuery, nFailed;       /* of the input being run */

static int progress(void *p){
  (void)p;
  return ++nStep > STEP_BUDGET;
}

/* Runs zSql (freed here), reading every column of every row as text. */
static void runQuery(sqlite3 *db, char *zSql){
  sqlite3_stmt *pStmt = 0;
  int rc;
  if( zSql==0 ) return;
  nStep = 0;
  nQuery++;
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  while( rc==SQLITE_OK && (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    int i;
    for(i=0; i<sqlite3_column_count(pStmt); i++){
      sqlite3_column_text(pStmt, i);
    }
    rc = SQLITE_OK;
  }
  if( rc!=SQLITE_DONE ){
    nFailed++;
    if( fuzzReplayingSeeds ){
      fprintf(stderr, "%s: %s\n", zSql, sqlite3_errmsg(db));
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zSql);
}

/* Every table and view of temp, and whether it has ts / parent_id. */
typedef struct Relation { char *zName; int bView, bTs, bParent; } Relation;

static int listRelations(sqlite3 *db, Relation *a, int nMax){
  sqlite3_stmt *pStmt = 0;
  int n = 0;
  sqlite3_prepare_v2(db,
      "SELECT m.name, m.type='view', "
      "  EXISTS(SELECT 1 FROM pragma_table_info(m.name, 'temp') "
      "         WHERE name='ts'), "
      "  EXISTS(SELECT 1 FROM pragma_table_info(m.name, 'temp') "
      "         WHERE name='parent_id') "
      "FROM temp.sqlite_master m WHERE m.type IN ('table','view') "
      "ORDER BY m.name", -1, &pStmt, 0);
  while( pStmt && n<nMax && sqlite3_step(pStmt)==SQLITE_ROW ){
    a[n].zName = sqlite3_mprintf("%s", sqlite3_column_text(pStmt, 0));
    a[n].bView = sqlite3_column_int(pStmt, 1);
    a[n].bTs = sqlite3_column_int(pStmt, 2);
    a[n].bParent = sqlite3_column_int(pStmt, 3);
    n++;
  }
  sqlite3_finalize(pStmt);
  return n;
}

/*
** The queries: for each table, rows with a limit, count(*), the last
** rows, a rowid lookup; with a ts column, ranges (pushed down), order by
** ts both ways, and a join on ts with the next table that has one (the
** inner table filtered once per outer row); with parent_id, a bounded
** recursive walk up the tree.  Each view is read with a limit.
*/
static void runQueries(sqlite3 *db){
  Relation a[64];
  int n = listRelations(db, a, 64), i, j;
  for(i=0; i<n; i++){
    const char *z = a[i].zName;
    if( a[i].bView ){
      runQuery(db, sqlite3_mprintf("SELECT * FROM temp.\"%w\" LIMIT 200", z));
      continue;
    }
    runQuery(db, sqlite3_mprintf("SELECT * FROM temp.\"%w\" LIMIT 200", z));
    runQuery(db, sqlite3_mprintf("SELECT count(*) FROM temp.\"%w\"", z));
    runQuery(db, sqlite3_mprintf(
        "SELECT * FROM temp.\"%w\" ORDER BY rowid DESC LIMIT 5", z));
    runQuery(db, sqlite3_mprintf(
        "SELECT * FROM temp.\"%w\" WHERE rowid IN (0, 7, 1000)", z));
    if( a[i].bTs ){
      runQuery(db, sqlite3_mprintf(
          "SELECT count(*), min(ts), max(ts) FROM temp.\"%w\" "
          "WHERE ts BETWEEN (SELECT ts FROM temp.\"%w\" LIMIT 1 OFFSET 3) "
          "AND 9e18", z, z));
      runQuery(db, sqlite3_mprintf(
          "SELECT * FROM temp.\"%w\" WHERE ts > 0 AND ts <= "
          "(SELECT max(ts) FROM temp.\"%w\") / 2 ORDER BY ts LIMIT 50", z, z));
      runQuery(db, sqlite3_mprintf(
          "SELECT ts FROM temp.\"%w\" ORDER BY ts DESC LIMIT 50", z));
      for(j=i+1; j<n; j++){
        if( a[j].bTs && !a[j].bView ) break;
      }
      if( j<n ){
        runQuery(db, sqlite3_mprintf(
            "SELECT count(*) FROM (SELECT ts FROM temp.\"%w\" LIMIT 100) x "
            "JOIN temp.\"%w\" y ON y.ts=x.ts", z, a[j].zName));
      }
    }
    if( a[i].bParent ){
      runQuery(db, sqlite3_mprintf(
          "WITH RECURSIVE up(id, n) AS ("
          "  SELECT id, 0 FROM (SELECT id FROM temp.\"%w\" LIMIT 50) "
          "  UNION ALL SELECT t.parent_id, n+1 FROM up "
          "  JOIN temp.\"%w\" t ON t.id=up.id WHERE n<10) "
          "SELECT count(*), max(n) FROM up", z, z));
    }
  }
  for(i=0; i<n; i++) sqlite3_free(a[i].zName);
}

static int openAndQuery(void){
  sqlite3 *db = 0;
  char *zErr = 0, *zSql;
  int rc;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) abort();
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fprintf(stderr, "extension: %s\n", zErr);
    abort();
  }
  sqlite3_progress_handler(db, 100, progress, 0);
  nQuery = nFailed = 0;
  zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", zSession);
  rc = sqlite3_exec(db, zSql, 0, 0, 0);
  sqlite3_free(zSql);
  if( rc==SQLITE_OK ) runQueries(db);
  if( sqlite3_close(db)!=SQLITE_OK ) abort();   /* a statement left open */
  if( fuzzReplayingSeeds && (rc!=SQLITE_OK || nFailed || nQuery<60) ){
    /* The template itself must attach and answer every query. */
    fprintf(stderr, "seed: attach %d, %d of %d queries failed\n",
            rc, nFailed, nQuery);
    exit(1);
  }
  return rc!=SQLITE_OK;
}

#endif

#ifdef FUZZ_SESSION_DUCKDB
/* Every row of the records of pRange, every column, in DuckDB's batches. */
static void scanRange(PTRACE_SESSION pSession, PTRACE_STORE pStore,
                      const TsdRange *pRange, TsdStringCache *pCache){
  static uint64_t aRow[2048], aValid[32];
  static int64_t aInt[2048];
  static double aDouble[2048];
  static TsdString aStr[2048];
  uint64_t iNext = pRange->iLo;
  uint32_t n, c, iBad;
  while( (n = tsdNextRows(pStore, pRange, &iNext, pRange->iHi, aRow,
                          2048))>0 ){
    for(c=0; c<pStore->Header->NumberOfColumns; c++){
      PCTRACE_COLUMN_DESCRIPTOR pCol = &pStore->Header->Columns[c];
      if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
        uint32_t k;
        if( tsdReadStrings(pSession, pStore, pCol, aRow, n, aStr, aValid,
                           pCache, &iBad)<0 ){
          char zMsg[1400];
          tsdBadStringMessage(pStore, pCol, aRow[iBad], 0, zMsg,
                              sizeof(zMsg));
          return;                       /* the scan's error */
        }
        /* The args view's parser over each text (Kernel/EventFields.c). */
        for(k=0; k<n && strcmp(pCol->Name, "args")==0; k++){
          const char *z = aStr[k].inlined.n<=12 ? aStr[k].inlined.a
                                                : aStr[k].pointer.p;
          LONG nz = (LONG)aStr[k].inlined.n;
          EVENT_FIELDS fields;
          EVENT_FIELD field;
          LONG *aScratch;
          LONGLONG v;
          if( ((aValid[k >> 6] >> (k & 63)) & 1)==0 ) continue;
          aScratch = malloc(sizeof(LONG)*2*((size_t)nz + 1));
          if( aScratch==0 ) continue;
          EventFieldsStart(&fields, z, nz, aScratch);
          while( EventFieldsNext(&fields, &field) ){
            EventFieldInteger(field.Value, field.ValueLength, &v);
          }
          free(aScratch);
        }
      }else{
        tsdReadColumn(pStore, pCol, aRow, n, aInt, aDouble, aValid);
      }
    }
  }
}

/* The session read as tracestore_scan reads it. */
static int scanAsDuckDb(void){
  static TRACE_SESSION session;
  static TsdStringCache cache;
  RTL_ERROR err;
  ULONG i;
  memset(&session, 0, sizeof(session));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, zSession, &session, &err)) ){
    return 1;
  }
  if( !RTL_SUCCESS(TraceStringRefresh(&session.Strings, &err)) ){
    TraceSessionClose(&session);
    return 1;
  }
  for(i=0; i<session.NumberOfStores; i++){
    PTRACE_STORE pStore = &session.Stores[i];
    TRACE_STORE_SNAPSHOT snap;
    TsdRange range;
    int w;
    if( !RTL_SUCCESS(TraceStoreTakeSnapshot(pStore, &snap, &err)) ) continue;
    tsdStringCacheReset(&cache);
    memset(&range, 0, sizeof(range));
    range.iHi = snap.RecordCount;
    scanRange(&session, pStore, &range, &cache);
    /* Windows: a quarter, everything, one ts, an empty one; each through
    ** the block index and, if the store says it is sorted, by search. */
    for(w=0; w<4 && snap.RecordCount>0; w++){
      int64_t span = snap.LastTs/2 - snap.FirstTs/2;
      int64_t a = w==0 ? snap.FirstTs + span/2 : w==1 ? INT64_MIN
                : w==2 ? snap.LastTs : snap.FirstTs;
      int64_t b = w==0 ? a + span/2 : w==1 ? INT64_MAX
                : w==2 ? (snap.LastTs==INT64_MAX ? INT64_MAX
                          : snap.LastTs + 1) : snap.FirstTs;
      int bSorted;
      for(bSorted=0; bSorted<=((snap.Flags & TRACE_SLOT_SORTED)!=0);
          bSorted++){
        TsdIndex index;
        memset(&index, 0, sizeof(index));
        memset(&range, 0, sizeof(range));
        range.iHi = snap.RecordCount;
        if( tsdNarrowTs(pStore, snap.RecordCount, bSorted, &index, a, b,
                        &range)==0 ){
          scanRange(&session, pStore, &range, &cache);
        }
        tsdIndexFree(&index);
      }
    }
  }
  TraceSessionClose(&session);
  return 0;
}
#endif

int fuzzOne(const uint8_t *aData, size_t nData){
  initialize();
  if( nData==0 ) return 1;
  makeSession(aData, nData);
#ifdef FUZZ_SESSION_SQL
  return openAndQuery();
#else
  if( fuzzReadSession(&Rtl, zSession) ){
    if( fuzzReplayingSeeds ){
      fprintf(stderr, "seed: the template session does not open\n");
      exit(1);
    }
    return 1;
  }
#ifdef FUZZ_SESSION_DUCKDB
  if( scanAsDuckDb() && fuzzReplayingSeeds ){
    fprintf(stderr, "seed: the template does not scan\n");
    exit(1);
  }
#endif
#ifdef FUZZ_SESSION_DURABLE
  {
    TRACE_SESSION *pWriter = calloc(1, sizeof(TRACE_SESSION));
    RTL_ERROR err;
    if( pWriter==0 ) return 1;
    memset(&err, 0, sizeof(err));
    if( RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zSession, pWriter, &err)) ){
      TraceSessionClose(pWriter);
      if( fuzzReadSession(&Rtl, zSession) && fuzzReplayingSeeds ){
        fprintf(stderr, "seed: the session does not open after a writer\n");
        exit(1);
      }
    }else if( fuzzReplayingSeeds ){
      fprintf(stderr, "seed: no writer opens the template: %s\n", err.Message);
      exit(1);
    }
    free(pWriter);
  }
#elif defined(FUZZ_SESSION_ONLY)
  if( fuzzReadRollups(&Rtl, zSession) && fuzzReplayingSeeds ){
    fprintf(stderr, "seed: the template's rollups do not read\n");
    exit(1);
  }
#endif
#ifdef FUZZ_SESSION_EXPORT
  {
    static const EXPORT_FORMAT *const apFormat[] = {
      &ExportChromeFormat, &ExportPerfettoFormat
    };
    int i;
    for(i=0; i<2; i++){
      PTRACE_SESSION pSession = hostOpenSession(zSession, "fuzz");
      FILE *out = fopen("/dev/null", "w");
      ExportOptions opt;
      ExportCounts counts;
      if( pSession==0 || out==0 ){
        if( out ) fclose(out);
        free(pSession);
        return 1;
      }
      memset(&opt, 0, sizeof(opt));
      opt.pFormat = apFormat[i];
      opt.mStores = EXPORT_STORE_ALL;
      opt.iFrom = (long long)0x8000000000000000ull;
      opt.iTo = 0x7fffffffffffffffLL;
      if( exportSession(pSession, &opt, out, &counts)!=0
       && fuzzReplayingSeeds ){
        fprintf(stderr, "seed: the template does not export as %s\n",
                apFormat[i]->Name);
        exit(1);
      }
      fclose(out);
      TraceSessionClose(pSession);
      free(pSession);
    }
  }
#endif
  return 0;
#endif
}
