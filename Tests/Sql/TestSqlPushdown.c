/*
** TestSqlPushdown.c: push-down of constraints into the tracestore tables,
** checked against plain SQLite tables holding the same rows.
**
** Usage:
**
**     TestSqlPushdown list          print the case names
**     TestSqlPushdown CASE          run one case (one CTest entry per case)
**
** How it works: each case writes a session through the store API (as the
** importers do), with ts patterns chosen to reach every path of xFilter:
** sorted with runs of equal ts across block edges, shuffled inside blocks,
** two overlapping sorted runs, random, descending, all equal, empty.  The
** extension is linked in statically.  The oracle is a plain table made
** with CREATE TABLE plain AS SELECT * FROM store: every generated query
** (each operator and bound, BETWEEN, combinations with the rowid, IN
** lists, ORDER BY, LIMIT/OFFSET, row values, values of every type) runs on
** both, and the rows must be equal (sorted first when the query leaves
** the order open).  The other cases count rows with
** tracestore_rows_visited() on 10-million-record stores, where the
** expected counts follow from the arithmetic of the ts written, read query
** plans, and turn a store unsorted under a prepared statement.  A hosted
** program: libc is fine here.
*/
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"
#include "Sqlite3Ext/tracestore.h"

#define SQL_TEST_FILE "TestSqlPushdown.c"
#include "SqlTestUtil.h"

#define BLOCK 1024          /* TS_BLOCK_SIZE of tracestore_int.h */

/* -------------------------------------------------------------------------
** Writing sessions.
*/
typedef TestSession Session;

static void sessionOpen(Session *p){
  testSessionOpen(p, "tracer-sql-pushdown", "s.trace");
}

static PTRACE_STORE sessionStore(Session *p, PCTRACE_STORE_SCHEMA pSchema){
  PTRACE_STORE pStore = 0;
  RTL_ERROR error;
  memset(&error, 0, sizeof(error));
  if( !RTL_SUCCESS(TraceSessionOpenStore(p->pSession, pSchema, &pStore,
                                         &error)) ){
    fail(__LINE__, "open store %s: %s", pSchema->Name, error.Message);
  }
  return pStore;
}

/*
** Appends records iFirst .. iFirst+n-1 of a store: ts from xTs(i), every
** other column from i (strings: id 0, the empty string; span.parent_id:
** the parent in a binary heap, so that joins on it find rows), and
** commits.
*/
static void appendRecords(
  Session *p,
  PCTRACE_STORE_SCHEMA pSchema,
  sqlite3_int64 n,
  sqlite3_int64 (*xTs)(sqlite3_int64)
){
  PTRACE_STORE pStore = sessionStore(p, pSchema);
  ULONGLONG iIndex, k;
  sqlite3_int64 i, iFirst = (sqlite3_int64)pStore->ReservedCount;
  ULONG nBatch, c;
  unsigned char *pRec;
  PCTRACE_COLUMN_DESCRIPTOR pCol;

  for(i=0; i<n; i+=nBatch){
    nBatch = n-i>65536 ? 65536 : (ULONG)(n-i);
    CHECK( RTL_SUCCESS(TraceStoreReserve(pStore, nBatch, &iIndex)) );
    CHECK( iIndex==(ULONGLONG)(iFirst+i) );
    for(k=0; k<nBatch; k++){
      sqlite3_int64 r = iFirst + i + (sqlite3_int64)k;
      pRec = pStore->Base + (iIndex+k) * pStore->RecordSize;
      memset(pRec, 0, pStore->RecordSize);
      for(c=0; c<pSchema->NumberOfColumns; c++){
        sqlite3_int64 v = r % 7;
        double d = (double)r * 0.5;
        pCol = &pSchema->Columns[c];
        if( pCol->Flags & TRACE_COLUMN_TIMESTAMP ){
          v = xTs(r);
        }else if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
          v = 0;
        }else if( strcmp(pCol->Name, "parent_id")==0 ){
          v = r==0 ? -1 : (r-1)/2;
        }
        if( pCol->Type==TraceColumnDouble ){
          memcpy(pRec + pCol->Offset, &d, 8);
        }else{
          memcpy(pRec + pCol->Offset, &v, pCol->Width);   /* little-endian */
        }
      }
    }
  }
  CHECK( RTL_SUCCESS(TraceSessionCommit(p->pSession)) );
}

/* -------------------------------------------------------------------------
** ts patterns.  A small deterministic generator keeps them reproducible.
*/
static unsigned long long rngState;

static unsigned long long rng(void){
  rngState = rngState*6364136223846793005ULL + 1442695040888963407ULL;
  return rngState >> 33;
}

/*
** Sorted, with runs of equal ts: pairs everywhere, and long runs across
** the block edges at 1024 and 2048.
*/
static sqlite3_int64 tsSortedDups(sqlite3_int64 i){
  if( i>=1000 && i<1050 ) return 1000 + 10*(1000/2);
  if( i>=2040 && i<2100 ) return 1000 + 10*(2040/2);
  return 1000 + 10*(i/2);
}

/*
** A permutation of 0..n-1 that moves each index only inside its aligned
** block of BLOCK: ts shuffled inside blocks (the block index is exact
** about them) with ordered blocks.
*/
static sqlite3_int64 *aPerm;

static void makeLocalShuffle(sqlite3_int64 n){
  sqlite3_int64 i, j, b, e, t;
  aPerm = realloc(aPerm, sizeof(aPerm[0])*(size_t)(n ? n : 1));
  CHECK( aPerm!=0 );
  for(i=0; i<n; i++) aPerm[i] = i;
  for(b=0; b<n; b+=BLOCK){
    e = b+BLOCK<n ? b+BLOCK : n;
    for(i=e-1; i>b; i--){
      j = b + (sqlite3_int64)(rng() % (unsigned long long)(i-b+1));
      t = aPerm[i]; aPerm[i] = aPerm[j]; aPerm[j] = t;
    }
  }
}

static sqlite3_int64 tsLocalShuffle(sqlite3_int64 i){
  return 1000 + 10*aPerm[i];
}

/* With runs of equal values at block edges (shuffled inside blocks). */
static sqlite3_int64 tsLocalShuffleDups(sqlite3_int64 i){
  return 1000 + 10*(aPerm[i]/3);
}

/* Two sorted runs that overlap: 0..2999 then 3000.. starting lower. */
static sqlite3_int64 tsTwoRuns(sqlite3_int64 i){
  if( i<3000 ) return 10*i;
  return 10000 + 12*(i-3000);
}

static sqlite3_int64 tsRandom(sqlite3_int64 i){
  (void)i;
  return (sqlite3_int64)(rng() % 20000) - 5000;      /* negative ones too */
}

static sqlite3_int64 tsDescending(sqlite3_int64 i){
  return 1000000 - 3*i;
}

static sqlite3_int64 tsTimes25(sqlite3_int64 i){
  return 1000 + 25*i;
}

/* Past the shuffled records: in order (the records appended later). */
static sqlite3_int64 tsLocalShuffle0(sqlite3_int64 i){
  return 1000 + 10*i;
}

static sqlite3_int64 tsAllEqual(sqlite3_int64 i){
  (void)i;
  return 77777;
}

/* -------------------------------------------------------------------------
** Reading.
*/
static sqlite3 *readerOpen(Session *p){
  sqlite3 *db = 0;
  char *zErr = 0;
  char *zSql;
  CHECK( sqlite3_open(":memory:", &db)==SQLITE_OK );
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fail(__LINE__, "init: %s", zErr);
  }
  zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", p->zDir);
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    fail(__LINE__, "attach: %s", zErr);
  }
  sqlite3_free(zSql);
  return db;
}

static void exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    fail(__LINE__, "%s: %s", zSql, zErr);
  }
}

static sqlite3_int64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  sqlite3_int64 v;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  if( sqlite3_step(pStmt)!=SQLITE_ROW ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  v = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return v;
}

static sqlite3_int64 visited(sqlite3 *db){
  return queryInt(db, "SELECT tracestore_rows_visited()");
}

static sqlite3_int64 indexed(sqlite3 *db){
  return queryInt(db, "SELECT tracestore_rows_indexed()");
}

/* sqlite3_str_finish(), with "" rather than NULL for no text. */
static char *strFinish(sqlite3_str *p){
  char *z = sqlite3_str_finish(p);
  if( z==0 ) z = sqlite3_mprintf("%s", "");
  CHECK( z!=0 );
  return z;
}

static int compareLines(const void *a, const void *b){
  return strcmp(*(char*const*)a, *(char*const*)b);
}

/*
** Runs zSql and returns its rows, columns separated by '|', one row a
** line, sorted if bSort.  From sqlite3_mprintf().
*/
static char *runQuery(sqlite3 *db, const char *zSql, int bSort){
  sqlite3_stmt *pStmt = 0;
  char **azLine = 0;
  int nLine = 0, nAlloc = 0, i, rc;
  sqlite3_str *pOut;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    sqlite3_str *pLine = sqlite3_str_new(db);
    for(i=0; i<sqlite3_column_count(pStmt); i++){
      const char *z = (const char*)sqlite3_column_text(pStmt, i);
      sqlite3_str_appendf(pLine, "%s%s", i ? "|" : "", z ? z : "NULL");
    }
    if( nLine==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 64;
      azLine = realloc(azLine, sizeof(azLine[0])*(size_t)nAlloc);
      CHECK( azLine!=0 );
    }
    azLine[nLine++] = sqlite3_str_finish(pLine);
  }
  if( rc!=SQLITE_DONE ) fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  sqlite3_finalize(pStmt);
  if( bSort && nLine>1 ) qsort(azLine, (size_t)nLine, sizeof(azLine[0]),
                               compareLines);
  pOut = sqlite3_str_new(db);
  for(i=0; i<nLine; i++){
    sqlite3_str_appendf(pOut, "%s\n", azLine[i]);
    sqlite3_free(azLine[i]);
  }
  free(azLine);
  return strFinish(pOut);
}

/* The detail lines of EXPLAIN QUERY PLAN zSql, one a line. */
static char *queryPlan(sqlite3 *db, const char *zSql){
  char *zEqp = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", zSql);
  char *zOut;
  sqlite3_stmt *pStmt = 0;
  sqlite3_str *pOut = sqlite3_str_new(db);
  if( sqlite3_prepare_v2(db, zEqp, -1, &pStmt, 0)!=SQLITE_OK ){
    fail(__LINE__, "%s: %s", zEqp, sqlite3_errmsg(db));
  }
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    sqlite3_str_appendf(pOut, "%s\n", sqlite3_column_text(pStmt, 3));
  }
  sqlite3_finalize(pStmt);
  sqlite3_free(zEqp);
  zOut = strFinish(pOut);
  return zOut;
}

/* Fails unless the plan of zSql contains every line of azWant. */
static void checkPlan(sqlite3 *db, const char *zSql, const char *zWant){
  char *zPlan = queryPlan(db, zSql);
  if( strstr(zPlan, zWant)==0 ){
    fail(__LINE__, "plan of %s\n  lacks: %s\n  plan:\n%s", zSql, zWant, zPlan);
  }
  sqlite3_free(zPlan);
}

/* -------------------------------------------------------------------------
** Equivalence: one query on the store and on its plain copy.
*/
typedef struct Equiv Equiv;
struct Equiv {
  sqlite3 *db;
  const char *zStore;         /* The tracestore table */
  const char *zPlain;         /* Its plain copy */
  int nQuery;                 /* Queries compared */
};

/*
** Compares "SELECT id, ts FROM T WHERE zWhere zTail" on the store and on
** the plain copy (zPlainTail there, if given: e.g. a tie-breaking ORDER
** BY).  Without an ORDER BY or LIMIT, the rows are sorted before the
** comparison.
*/
/*
** The copy's rowid is its own (from 1): its column `id` holds the store's
** rowid.  Rewrites each "rowid" of zSql (from sqlite3_mprintf) to "id".
*/
static char *plainSql(char *zSql){
  char *z;
  CHECK( zSql!=0 );
  while( (z = strstr(zSql, "rowid"))!=0 ){
    memmove(z, z+3, strlen(z+3)+1);
  }
  return zSql;
}

static void equiv2(
  Equiv *p,
  const char *zWhere,
  const char *zTail,
  const char *zPlainTail
){
  char *zA, *zB, *zSqlA, *zSqlB;
  int bSort = strstr(zTail, "ORDER BY")==0 && strstr(zTail, "LIMIT")==0;
  zSqlA = sqlite3_mprintf("SELECT id, ts FROM %s WHERE %s %s",
                          p->zStore, zWhere, zTail);
  zSqlB = plainSql(sqlite3_mprintf("SELECT id, ts FROM %s WHERE %s %s",
                          p->zPlain, zWhere, zPlainTail ? zPlainTail : zTail));
  zA = runQuery(p->db, zSqlA, bSort);
  zB = runQuery(p->db, zSqlB, bSort);
  if( strcmp(zA, zB)!=0 ){
    fail(__LINE__, "results differ:\n  %s\n  %s\n--- store (%d bytes):\n"
         "%.2000s\n--- plain (%d bytes):\n%.2000s", zSqlA, zSqlB,
         (int)strlen(zA), zA, (int)strlen(zB), zB);
  }
  p->nQuery++;
  sqlite3_free(zA);
  sqlite3_free(zB);
  sqlite3_free(zSqlA);
  sqlite3_free(zSqlB);
}

static void equiv(Equiv *p, const char *zWhere, const char *zTail){
  equiv2(p, zWhere, zTail, 0);
}

/*
** Each WHERE clause in the orders and windows a user asks for: as is;
** ORDER BY ts (ties in rowid order: the plain side says so explicitly)
** and DESC; ORDER BY rowid DESC; LIMIT/OFFSET alone and with an order.
*/
static void equivOrders2(Equiv *p, const char *zWhere, int bOneScan){
  equiv(p, zWhere, "");
  equiv2(p, zWhere, "ORDER BY ts, id", 0);
  equiv2(p, zWhere, "ORDER BY ts DESC, id DESC", 0);
  equiv(p, zWhere, "ORDER BY id DESC");
  if( bOneScan ) equiv(p, zWhere, "LIMIT 7 OFFSET 3");
  equiv2(p, zWhere, "ORDER BY ts DESC, id DESC LIMIT 5 OFFSET 2", 0);
  equiv2(p, zWhere, "ORDER BY ts, rowid LIMIT 3", "ORDER BY ts, id LIMIT 3");
  equiv(p, zWhere, "ORDER BY id LIMIT 9223372036854775807 OFFSET 9");
  equiv(p, zWhere, "ORDER BY id DESC LIMIT 2 OFFSET 9223372036854775807");
}

/*
** The same; a LIMIT without ORDER BY takes the first rows of the scan,
** in rowid order, which both sides share only when SQLite runs one scan
** (not for OR, nor for ts IN, where it filters once per value).
*/
static void equivOrders(Equiv *p, const char *zWhere){
  equivOrders2(p, zWhere, 1);
}

/*
** The generated queries over one store.  zOther names an integer column
** that is not pushed down.
*/
static void checkEquivalence(sqlite3 *db, const char *zStore,
                             const char *zOther){
  Equiv e;
  char *zSql;
  char azVal[40][64];
  const char *azOp[] = { "=", "<", "<=", ">", ">=" };
  sqlite3_int64 n, iMin, iMax, aPick[12];
  int nVal = 0, nInt, i, j, k, o;
  char zWhere[4096];

  memset(&e, 0, sizeof(e));
  e.db = db;
  e.zStore = zStore;
  e.zPlain = "plain";
  exec(db, "DROP TABLE IF EXISTS plain");
  zSql = sqlite3_mprintf("CREATE TABLE plain AS SELECT * FROM %s", zStore);
  exec(db, zSql);
  sqlite3_free(zSql);
  n = queryInt(db, "SELECT count(*) FROM plain");
  iMin = n ? queryInt(db, "SELECT min(ts) FROM plain") : 0;
  iMax = n ? queryInt(db, "SELECT max(ts) FROM plain") : 0;

  /* Integer bounds: both ends, beyond them, quartiles, block edges. */
  aPick[0] = iMin-1; aPick[1] = iMin; aPick[2] = iMin+1;
  aPick[3] = iMax-1; aPick[4] = iMax; aPick[5] = iMax+1;
  k = 6;
  if( n>0 ){
    sqlite3_int64 aId[] = { n/4, n/2, (3*n)/4, BLOCK-1, BLOCK, 2*BLOCK-1 };
    for(i=0; i<(int)(sizeof(aId)/sizeof(aId[0])); i++){
      if( aId[i]>=n ) continue;
      zSql = sqlite3_mprintf("SELECT ts FROM plain WHERE id = %lld", aId[i]);
      aPick[k++] = queryInt(db, zSql);
      sqlite3_free(zSql);
    }
  }
  for(i=0; i<k; i++) snprintf(azVal[nVal++], 64, "%lld", aPick[i]);
  nInt = nVal;

  /* Values of other types. */
  {
    sqlite3_int64 m = aPick[k>6 ? 7 : 1];
    const char *az[] = { "NULL", "'abc'", "x'01'", "1e30", "-1e30",
                         "9223372036854775807", "-9223372036854775808",
                         "9.3e18", "-9.3e18" };
    for(i=0; i<(int)(sizeof(az)/sizeof(az[0])); i++){
      snprintf(azVal[nVal++], 64, "%s", az[i]);
    }
    snprintf(azVal[nVal++], 64, "%lld.5", m);
    snprintf(azVal[nVal++], 64, "%lld.5", m-1);
    snprintf(azVal[nVal++], 64, "(%lld - 0.5)", m);
    snprintf(azVal[nVal++], 64, "%lld.0", m);
    snprintf(azVal[nVal++], 64, "'%lld'", m);
    snprintf(azVal[nVal++], 64, "' %lld '", m);
    snprintf(azVal[nVal++], 64, "'%lld.0'", m);
    snprintf(azVal[nVal++], 64, "'%lld.5'", m);
    snprintf(azVal[nVal++], 64, "'%lldx'", m);
  }

  /* One constraint: every operator and value, on ts and on the rowid. */
  for(o=0; o<5; o++){
    for(i=0; i<nVal; i++){
      snprintf(zWhere, sizeof(zWhere), "ts %s %s", azOp[o], azVal[i]);
      equiv(&e, zWhere, "");
      equiv(&e, zWhere, "LIMIT 4 OFFSET 1");
      snprintf(zWhere, sizeof(zWhere), "%s %s %s", (i&1) ? "rowid" : "id",
               azOp[o], i<nInt ? (i<3 ? "3" : "(SELECT count(*) FROM plain)-2")
                                : azVal[i]);
      equiv(&e, zWhere, "");
    }
  }

  /* Two bounds on ts, and BETWEEN, over every pair of integer bounds. */
  for(i=0; i<nInt; i++){
    for(j=0; j<nInt; j++){
      snprintf(zWhere, sizeof(zWhere), "ts BETWEEN %s AND %s",
               azVal[i], azVal[j]);
      equiv(&e, zWhere, "");
      snprintf(zWhere, sizeof(zWhere), "ts %s %s AND ts %s %s",
               (i+j)&1 ? ">" : ">=", azVal[i], (i+2*j)&2 ? "<" : "<=",
               azVal[j]);
      equiv(&e, zWhere, (i+j)%3==0 ? "LIMIT 3 OFFSET 2" : "");
    }
  }

  /* Mixed types in ranges. */
  for(i=nInt; i<nVal; i++){
    snprintf(zWhere, sizeof(zWhere), "ts > %s AND ts <= %s",
             azVal[(i*7)%nVal], azVal[i]);
    equiv(&e, zWhere, "");
    snprintf(zWhere, sizeof(zWhere), "ts BETWEEN %s AND %s", azVal[i],
             azVal[(i*3)%nInt]);
    equiv(&e, zWhere, "");
  }

  /* Every order and window, over a few ranges. */
  equivOrders(&e, "1");
  for(j=6; j<nInt; j+=2){
    const char *zA = azVal[j], *zB = azVal[(j+3)%nInt];
    for(i=0; i<7; i++){
      switch( i ){
        case 0: snprintf(zWhere, sizeof(zWhere), "ts >= %s", zA); break;
        case 1: snprintf(zWhere, sizeof(zWhere), "ts < %s", zA); break;
        case 2: snprintf(zWhere, sizeof(zWhere), "ts BETWEEN %s AND %s",
                         zA, zB); break;
        case 3: snprintf(zWhere, sizeof(zWhere), "ts = %s", zA); break;
        case 4: snprintf(zWhere, sizeof(zWhere), "ts > %s AND rowid < 3000",
                         zA); break;
        case 5: snprintf(zWhere, sizeof(zWhere), "ts <= %s AND id >= 100",
                         zA); break;
        case 6: snprintf(zWhere, sizeof(zWhere), "ts >= %s AND ts <= %s AND "
                         "rowid BETWEEN 500 AND 2500", zA, zB); break;
      }
      equivOrders(&e, zWhere);
    }
  }

  /* IN lists on the rowid, alone and with other constraints. */
  {
    const char *azIn[] = {
      "(5, 3, 3, 1000000, -1, NULL, '4', 2.5, 7.0, x'01', 'abc')",
      "(1023, 1024, 1025, 2047, 2048, 2048, 0)",
      "()",
      "(NULL)",
      "(SELECT id * 3 FROM plain WHERE id < 400)",
      "(SELECT id FROM plain WHERE id % 2 = 0 UNION ALL "
       "SELECT id FROM plain WHERE id % 3 = 0)",
    };
    for(i=0; i<(int)(sizeof(azIn)/sizeof(azIn[0])); i++){
      snprintf(zWhere, sizeof(zWhere), "rowid IN %s", azIn[i]);
      equivOrders(&e, zWhere);
      snprintf(zWhere, sizeof(zWhere), "id IN %s AND id > 3 AND id <= 2047",
               azIn[i]);
      equivOrders(&e, zWhere);
      snprintf(zWhere, sizeof(zWhere), "rowid IN %s AND ts BETWEEN %s AND %s",
               azIn[i], azVal[6 % nInt], azVal[7 % nInt]);
      equivOrders(&e, zWhere);
      snprintf(zWhere, sizeof(zWhere), "rowid IN %s AND rowid = 1024",
               azIn[i]);
      equiv(&e, zWhere, "");
    }
  }

  /* ts IN (SQLite loops over the values), OR, row values, repeats. */
  snprintf(zWhere, sizeof(zWhere), "ts IN (%s, %s, %s, NULL, 'x')",
           azVal[1], azVal[6 % nInt], azVal[6 % nInt]);
  equivOrders2(&e, zWhere, 0);
  snprintf(zWhere, sizeof(zWhere), "ts = %s OR ts = %s OR rowid = 7",
           azVal[4], azVal[7 % nInt]);
  equivOrders2(&e, zWhere, 0);
  snprintf(zWhere, sizeof(zWhere), "(ts, id) > (%s, 20)", azVal[7 % nInt]);
  equivOrders(&e, zWhere);
  snprintf(zWhere, sizeof(zWhere), "(ts, id) <= (%s, 1500)", azVal[8 % nInt]);
  equivOrders(&e, zWhere);
  snprintf(zWhere, sizeof(zWhere), "ts > %s AND ts > %s AND ts < %s",
           azVal[6 % nInt], azVal[7 % nInt], azVal[4]);
  equivOrders(&e, zWhere);
  snprintf(zWhere, sizeof(zWhere), "ts >= %s AND %s = 3", azVal[1], zOther);
  equivOrders(&e, zWhere);
  snprintf(zWhere, sizeof(zWhere), "ts + 0 >= %s AND rowid > 10", azVal[6 % nInt]);
  equivOrders(&e, zWhere);

  /* Bound parameters (values known only at xFilter) and LIMIT bound too. */
  {
    sqlite3_stmt *pA = 0, *pB = 0;
    char *zA, *zB;
    for(i=0; i<2; i++){
      const char *zT = i ? "plain" : zStore;
      zSql = sqlite3_mprintf("SELECT id, ts FROM %s WHERE ts >= ?1 AND "
                             "ts < ?2 ORDER BY ts, id LIMIT ?3 OFFSET ?4", zT);
      CHECK( sqlite3_prepare_v2(db, zSql, -1, i ? &pB : &pA, 0)==SQLITE_OK );
      sqlite3_free(zSql);
    }
    for(i=0; i<nInt; i++){
      sqlite3_str *sA = sqlite3_str_new(db), *sB = sqlite3_str_new(db);
      for(k=0; k<2; k++){
        sqlite3_stmt *pS = k ? pB : pA;
        sqlite3_str *pOut = k ? sB : sA;
        sqlite3_bind_int64(pS, 1, aPick[i]);
        sqlite3_bind_int64(pS, 2, aPick[(i*5+1)%nInt]);
        sqlite3_bind_int(pS, 3, i%4 ? 10 : -1);
        sqlite3_bind_int(pS, 4, i%3);
        while( sqlite3_step(pS)==SQLITE_ROW ){
          sqlite3_str_appendf(pOut, "%lld|%lld\n",
                              sqlite3_column_int64(pS, 0),
                              sqlite3_column_int64(pS, 1));
        }
        CHECK( sqlite3_reset(pS)==SQLITE_OK );
      }
      zA = strFinish(sA);
      zB = strFinish(sB);
      if( strcmp(zA, zB)!=0 ){
        fail(__LINE__, "bound parameters %d: store\n%.1000s\nplain\n%.1000s",
             i, zA, zB);
      }
      sqlite3_free(zA);
      sqlite3_free(zB);
      e.nQuery++;
    }
    sqlite3_finalize(pA);
    sqlite3_finalize(pB);
  }

  printf("%s: %d queries equal to the plain table (%lld rows, ts %lld..%lld)\n",
         zStore, e.nQuery, n, iMin, iMax);
}

/*
** The plans use the push-down: constraints taken, ORDER BY consumed on a
** sorted store, LIMIT/OFFSET taken only when nothing is left to SQLite.
*/
static void checkPlans(sqlite3 *db, const char *zStore, int bSorted){
  char zSql[512];
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts BETWEEN 5 AND 9",
           zStore);
  checkPlan(db, zSql, "ts>=? AND ts<=?");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts > 5 AND "
           "rowid < 100 AND ts < 9 LIMIT 3", zStore);
  checkPlan(db, zSql, "rowid<? AND ts>? AND ts<? LIMIT ?");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE rowid IN (1, 5, 3) "
           "ORDER BY rowid DESC LIMIT 2 OFFSET 1", zStore);
  checkPlan(db, zSql, "rowid IN(...) ORDER BY rowid DESC LIMIT ? OFFSET ?");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts > 5 AND "
           "cpu + 0 = 1 LIMIT 3", zStore);
  checkPlan(db, zSql, "ts>?\n");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts >= ?1 LIMIT 3",
           zStore);
  checkPlan(db, zSql, ":ts>=?\n");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts >= 10 LIMIT 3",
           zStore);
  checkPlan(db, zSql, ":ts>=? LIMIT ?\n");
  snprintf(zSql, sizeof(zSql), "SELECT * FROM %s WHERE ts < 5 ORDER BY ts "
           "DESC LIMIT 3", zStore);
  checkPlan(db, zSql, bSorted ? "ts<? ORDER BY ts DESC LIMIT ?"
                              : "USE TEMP B-TREE FOR ORDER BY");
}

/* -------------------------------------------------------------------------
** Cases.
*/

/*
** The equivalence cases: one session per shape of ts.  zStore must name
** a store that has a cpu column.
*/
static void runEquivalence(
  PCTRACE_STORE_SCHEMA pSchema,
  sqlite3_int64 n,
  sqlite3_int64 (*xTs)(sqlite3_int64),
  int bWantSorted
){
  Session s;
  sqlite3 *db;
  char zSql[200];
  sessionOpen(&s);
  appendRecords(&s, pSchema, n, xTs);
  db = readerOpen(&s);
  snprintf(zSql, sizeof(zSql), "SELECT ifnull(sorted, -1) FROM store_info "
           "WHERE name = '%s'", pSchema->Name);
  CHECK( queryInt(db, zSql)==bWantSorted );
  checkPlans(db, pSchema->Name, bWantSorted);
  checkEquivalence(db, pSchema->Name, "cpu");
  sqlite3_close(db);
  testSessionClose(&s);
}

static void caseEquivSorted(void){
  runEquivalence(&TraceSchedSwitchSchema, 5000, tsSortedDups, 1);
}

static void caseEquivShuffled(void){
  rngState = 1;
  makeLocalShuffle(5000);
  runEquivalence(&TracePageFaultSchema, 5000, tsLocalShuffle, 0);
}

static void caseEquivShuffledDups(void){
  rngState = 2;
  makeLocalShuffle(4200);
  runEquivalence(&TracePageFaultSchema, 4200, tsLocalShuffleDups, 0);
}

static void caseEquivTwoRuns(void){
  runEquivalence(&TraceFtraceEventSchema, 5500, tsTwoRuns, 0);
}

static void caseEquivRandom(void){
  rngState = 3;
  runEquivalence(&TraceKvmExitSchema, 4100, tsRandom, 0);
}

static void caseEquivDescending(void){
  runEquivalence(&TraceCounterSchema, 2*BLOCK, tsDescending, 0);
}

static void caseEquivAllEqual(void){
  runEquivalence(&TraceCounterSchema, 2100, tsAllEqual, 1);
}

static void caseEquivSmall(void){
  runEquivalence(&TraceKvmExitSchema, 1, tsAllEqual, 1);
}

static void caseEquivEmpty(void){
  runEquivalence(&TraceKvmExitSchema, 0, tsAllEqual, 1);
}

/* 20000 records ts = 10*i, then pairs 0, 0, 10, 10, ... (ties). */
static sqlite3_int64 tsSortedThenPairs(sqlite3_int64 i){
  return i<20000 ? 10*i : 10*((i-20000)/2);
}

/*
** Plans azSql[0..nStmt) on a span store of n1 records (ts from xTs, sorted),
** checking that each consumed ORDER BY ts; appends n2 more records that make
** it unsorted; then runs them and compares their rows, in order, with
** azOracle on a plain copy made on another connection (a CREATE TABLE on
** this one would make SQLite prepare the statements again).  Returns the
** rows visited by each statement in aVisited.
*/
static void runPlannedSorted(
  sqlite3_int64 n1,
  sqlite3_int64 n2,
  sqlite3_int64 (*xTs)(sqlite3_int64),
  int nStmt,
  const char **azSql,
  const char **azOracle,
  sqlite3_int64 *aVisited
){
  Session s;
  sqlite3 *db, *dbOracle;
  sqlite3_stmt *apStmt[16];
  sqlite3_int64 v0;
  char *zPlan, *zWant, *zGot;
  int i;

  CHECK( nStmt<=16 );
  sessionOpen(&s);
  appendRecords(&s, &TraceSpanSchema, n1, xTs);
  db = readerOpen(&s);
  CHECK( queryInt(db, "SELECT sorted FROM store_info WHERE name='span'")==1 );
  for(i=0; i<nStmt; i++){
    zPlan = queryPlan(db, azSql[i]);
    if( strstr(zPlan, "ORDER BY ts")==0 || strstr(zPlan, "TEMP B-TREE") ){
      fail(__LINE__, "%s: ORDER BY ts not consumed:\n%s", azSql[i], zPlan);
    }
    sqlite3_free(zPlan);
    CHECK( sqlite3_prepare_v2(db, azSql[i], -1, &apStmt[i], 0)==SQLITE_OK );
  }

  appendRecords(&s, &TraceSpanSchema, n2, xTs);
  dbOracle = readerOpen(&s);
  CHECK( queryInt(dbOracle, "SELECT sorted FROM store_info "
                            "WHERE name='span'")==0 );
  exec(dbOracle, "CREATE TABLE plain AS SELECT * FROM span");
  CHECK( queryInt(dbOracle, "SELECT count(*) FROM plain")==n1+n2 );

  for(i=0; i<nStmt; i++){
    sqlite3_str *pGot = sqlite3_str_new(db);
    v0 = visited(db);
    while( sqlite3_step(apStmt[i])==SQLITE_ROW ){
      sqlite3_str_appendf(pGot, "%lld|%lld\n",
                          sqlite3_column_int64(apStmt[i], 0),
                          sqlite3_column_int64(apStmt[i], 1));
    }
    CHECK( sqlite3_reset(apStmt[i])==SQLITE_OK );
    aVisited[i] = visited(db) - v0;
    zGot = strFinish(pGot);
    zWant = runQuery(dbOracle, azOracle[i], 0);
    if( strcmp(zGot, zWant)!=0 ){
      fail(__LINE__, "%s\n--- got:\n%.1500s\n--- want:\n%.1500s", azSql[i],
           zGot, zWant);
    }
    printf("%s: %d bytes of rows in order, %lld rows visited\n", azSql[i],
           (int)strlen(zWant), aVisited[i]);
    sqlite3_free(zGot);
    sqlite3_free(zWant);
    sqlite3_finalize(apStmt[i]);
  }

  /* Planned again, the ORDER BY is SQLite's now. */
  zPlan = queryPlan(db, azSql[0]);
  CHECK( strstr(zPlan, "USE TEMP B-TREE FOR ORDER BY")!=0 );
  sqlite3_free(zPlan);
  sqlite3_close(dbOracle);
  sqlite3_close(db);
  testSessionClose(&s);
}

/*
** A statement planned while the store is sorted (ORDER BY ts consumed)
** runs after the writer made it unsorted: the rows still come in (ts,
** rowid) order, through the windowed selection (35000 rows: windows of
** 4096, 8192, ...; equal ts across window edges).  The rows-visited
** counter shows that path was taken: a consumed ORDER BY ts LIMIT 5 on a
** sorted store reads 5 rows, the selection at least the two blocks where
** ts 0 is (one in each run; the index rules the others out).
*/
static void caseOrderTsAfterUnsorted(void){
  const char *azSql[] = {
    "SELECT id, ts FROM span ORDER BY ts",
    "SELECT id, ts FROM span ORDER BY ts DESC",
    "SELECT id, ts FROM span WHERE ts BETWEEN 30000 AND 150000 "
      "ORDER BY ts DESC, id DESC LIMIT 100 OFFSET 50",
    "SELECT id, ts FROM span ORDER BY ts LIMIT 5",
    "SELECT id, ts FROM span WHERE rowid IN (WITH RECURSIVE c(x) AS "
      "(SELECT 0 UNION ALL SELECT x+7 FROM c WHERE x<35000) SELECT x FROM c)"
      " AND rowid > 100 ORDER BY ts",
    "SELECT id, ts FROM span WHERE ts >= 1000 AND ts < 4000 "
      "ORDER BY ts, id LIMIT 30 OFFSET 4",
  };
  const char *azOracle[] = {
    "SELECT id, ts FROM plain ORDER BY ts, id",
    "SELECT id, ts FROM plain ORDER BY ts DESC, id DESC",
    "SELECT id, ts FROM plain WHERE ts BETWEEN 30000 AND 150000 "
      "ORDER BY ts DESC, id DESC LIMIT 100 OFFSET 50",
    "SELECT id, ts FROM plain ORDER BY ts, id LIMIT 5",
    "SELECT id, ts FROM plain WHERE id % 7 = 0 AND id > 100 "
      "ORDER BY ts, id",
    "SELECT id, ts FROM plain WHERE ts >= 1000 AND ts < 4000 "
      "ORDER BY ts, id LIMIT 30 OFFSET 4",
  };
  sqlite3_int64 aVisited[6];
  runPlannedSorted(20000, 15000, tsSortedThenPairs, 6, azSql, azOracle,
                   aVisited);
  CHECK( aVisited[3]>=2*BLOCK );
}

/* 6000 records of ts 10, one of ts 5 (the store turns unsorted), 6000 of 10. */
static sqlite3_int64 tsTiesThenLower(sqlite3_int64 i){
  return i==6000 ? 5 : 10;
}

/*
** The same where nearly every ts is equal: the window holds keys of one ts
** and the rowid decides, so blocks met after the window is full may only
** be skipped when they cannot hold an earlier key.
*/
static void caseOrderTsTiesAfterUnsorted(void){
  const char *azSql[] = {
    "SELECT id, ts FROM span ORDER BY ts DESC LIMIT 10",
    "SELECT id, ts FROM span ORDER BY ts LIMIT 10 OFFSET 3",
    "SELECT id, ts FROM span ORDER BY ts DESC",
    "SELECT id, ts FROM span ORDER BY ts",
    "SELECT id, ts FROM span WHERE ts >= 10 ORDER BY ts DESC LIMIT 20 "
      "OFFSET 4090",
  };
  const char *azOracle[] = {
    "SELECT id, ts FROM plain ORDER BY ts DESC, id DESC LIMIT 10",
    "SELECT id, ts FROM plain ORDER BY ts, id LIMIT 10 OFFSET 3",
    "SELECT id, ts FROM plain ORDER BY ts DESC, id DESC",
    "SELECT id, ts FROM plain ORDER BY ts, id",
    "SELECT id, ts FROM plain WHERE ts >= 10 ORDER BY ts DESC, id DESC "
      "LIMIT 20 OFFSET 4090",
  };
  sqlite3_int64 aVisited[5];
  runPlannedSorted(6000, 6001, tsTiesThenLower, 5, azSql, azOracle,
                   aVisited);
}

/*
** Counts the k in [0, n) with 1000 + 10*(k/d) in [a, b]: how many records
** of the 10M stores below have ts in the range (each value of k/d occurs d
** times, whatever the order the records hold them in).
*/
static sqlite3_int64 countInRange(sqlite3_int64 n, int d, sqlite3_int64 a,
                                  sqlite3_int64 b){
  sqlite3_int64 kLo, kHi, nK = (n + d - 1)/d, c;
  if( a<1000 ) a = 1000;
  kLo = (a - 1000 + 9)/10;                    /* smallest k/d in range */
  kHi = b<1000 ? -1 : (b - 1000)/10;
  if( kHi>nK-1 ) kHi = nK-1;
  if( kLo>kHi ) return 0;
  c = (kHi - kLo + 1)*d;
  if( kHi==nK-1 && n%d ) c -= d - n%d;          /* last value short */
  return c;
}

#define N_BIG 10000000

static sqlite3_int64 tsPairs(sqlite3_int64 i){
  return 1000 + 10*(i/2);
}

/*
** Runs "SELECT count(*) FROM zTable WHERE zWhere" with range [a, b] and
** checks the count and the rows visited: at most the rows in range plus
** nSlack.
*/
static void checkVisited(sqlite3 *db, const char *zTable, sqlite3_int64 a,
                         sqlite3_int64 b, sqlite3_int64 nWant,
                         sqlite3_int64 nSlack){
  char zSql[300];
  sqlite3_int64 v0, v, c;
  double t0, t1;
  struct timespec ts;
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM %s WHERE ts BETWEEN "
           "%lld AND %lld", zTable, a, b);
  v0 = visited(db);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t0 = ts.tv_sec + ts.tv_nsec*1e-9;
  c = queryInt(db, zSql);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  t1 = ts.tv_sec + ts.tv_nsec*1e-9;
  v = visited(db) - v0;
  printf("%s: %lld rows, %lld visited, %.3f ms\n", zSql, c, v, (t1-t0)*1e3);
  if( c!=nWant ) fail(__LINE__, "%s: %lld rows, want %lld", zSql, c, nWant);
  if( v>c+nSlack ){
    fail(__LINE__, "%s: visited %lld rows for %lld in range (slack %lld)",
         zSql, v, c, nSlack);
  }
}

/*
** A narrow ts range on a sorted 10-million-record store visits the rows in
** range plus the binary-search probes (2 * 24); the counter itself counts
** every row when push-down is defeated (ts + 0).
*/
static void caseVisitedSorted(void){
  Session s;
  sqlite3 *db;
  sqlite3_int64 a, b, v0, i0, n = N_BIG;
  sqlite3_int64 nProbe = 2*25 + 1;

  sessionOpen(&s);
  appendRecords(&s, &TraceSchedSwitchSchema, n, tsPairs);
  db = readerOpen(&s);
  CHECK( queryInt(db, "SELECT sorted FROM store_info "
                      "WHERE name='sched_switch'")==1 );
  checkPlan(db, "SELECT count(*) FROM sched_switch WHERE ts BETWEEN 5 AND 9",
            "INDEX 640:ts>=? AND ts<=?");
  i0 = indexed(db);
  a = 1000 + 10*2500000 + 3;
  b = a + 10*700;
  checkVisited(db, "sched_switch", a, b, countInRange(n, 2, a, b), nProbe);
  checkVisited(db, "sched_switch", 1000 + 10*17, 1000 + 10*17, 2, nProbe);
  checkVisited(db, "sched_switch", 0, 999, 0, nProbe);
  checkVisited(db, "sched_switch", 1000 + 10*(n/2), 1000 + 10*n, 0, nProbe);
  checkVisited(db, "sched_switch", 1000 + 10*(n/2 - 3), 1000 + 10*n, 6,
               nProbe);
  checkVisited(db, "sched_switch", 900, 1000 + 10*40 + 5, 82, nProbe);
  CHECK( indexed(db)==i0 );                     /* no index on sorted */

  /* The counter counts: without push-down every record is handed out. */
  v0 = visited(db);
  CHECK( queryInt(db, "SELECT count(*) FROM sched_switch WHERE ts + 0 "
                      "BETWEEN 1100 AND 1199")==20 );
  CHECK( visited(db) - v0 == n );
  sqlite3_close(db);
  testSessionClose(&s);
}

/*
** The same on a store whose ts are shuffled inside each block of 1024: the
** block index (built by the first query, which reads every ts once) lets
** a range visit the rows in it plus the rest of the blocks where it
** starts and ends; a range inside one block visits at most that block.
** The index then reads only the records committed since.
*/
static void caseVisitedUnsorted(void){
  Session s;
  sqlite3 *db;
  sqlite3_int64 a, b, i0, v0, n = N_BIG, nMore = 5000;
  char *zGot, *zWant;
  sqlite3_str *pWant;
  sqlite3_int64 k, nTaken;

  rngState = 4;
  makeLocalShuffle(n);
  sessionOpen(&s);
  appendRecords(&s, &TraceFtraceEventSchema, n, tsLocalShuffle);
  db = readerOpen(&s);
  CHECK( queryInt(db, "SELECT sorted FROM store_info "
                      "WHERE name='ftrace_event'")==0 );
  checkPlan(db, "SELECT count(*) FROM ftrace_event WHERE ts BETWEEN 5 AND 9",
            "INDEX 640:ts>=? AND ts<=?");

  i0 = indexed(db);
  a = 1000 + 10*5000000 + 3;
  b = a + 10*1500;
  checkVisited(db, "ftrace_event", a, b, countInRange(n, 1, a, b), 2*BLOCK);
  CHECK( indexed(db) - i0 == n );               /* every record, once */

  /* Inside one block: at most that block. */
  a = 1000 + 10*(3000*BLOCK + 100);
  b = a + 10*200;
  checkVisited(db, "ftrace_event", a, b, 201, BLOCK - 201);
  /* Whole blocks: handed out without reading ts, plus two edges. */
  a = 1000 + 10*(100*BLOCK + 1);
  b = 1000 + 10*(300*BLOCK - 2);
  checkVisited(db, "ftrace_event", a, b, countInRange(n, 1, a, b), 2*BLOCK);
  /* The incomplete last block (n % 1024 records) is a block too. */
  a = 1000 + 10*(n - 300);
  checkVisited(db, "ftrace_event", a, 1000 + 10*n, 300, n % BLOCK);
  checkVisited(db, "ftrace_event", 0, 999, 0, 0);
  checkVisited(db, "ftrace_event", 1000 + 10*n, 1000 + 20*n, 0, 0);
  checkVisited(db, "ftrace_event", 1000 + 10*(n-BLOCK), 1000 + 10*(n-1), BLOCK,
               2*BLOCK);
  CHECK( indexed(db) - i0 == n );                     /* built once */

  /* ORDER BY id DESC LIMIT over a range: the last ids whose ts is in it. */
  a = 1000 + 10*(7000*BLOCK + 10);
  b = a + 10*3000;
  pWant = sqlite3_str_new(db);
  for(k=n-1, nTaken=0; k>=0 && nTaken<12; k--){
    sqlite3_int64 t = tsLocalShuffle(k);
    if( t>=a && t<=b ){
      if( nTaken>=2 ) sqlite3_str_appendf(pWant, "%lld|%lld\n", k, t);
      nTaken++;
    }
  }
  zWant = strFinish(pWant);
  {
    char zSql[300];
    /* (SQLite 3.40 offers no LIMIT to a virtual table if a BETWEEN is in
    ** the WHERE clause: spelled out, it does.) */
    snprintf(zSql, sizeof(zSql), "SELECT id, ts FROM ftrace_event WHERE ts "
             ">= %lld AND ts <= %lld ORDER BY id DESC LIMIT 10 OFFSET 2", a, b);
    checkPlan(db, zSql, "ts>=? AND ts<=? ORDER BY rowid DESC LIMIT ? OFFSET ?");
    v0 = visited(db);
    zGot = runQuery(db, zSql, 0);
    CHECK( visited(db) - v0 <= 2*BLOCK );
    if( strcmp(zGot, zWant)!=0 ){
      fail(__LINE__, "%s\n--- got:\n%s--- want:\n%s", zSql, zGot, zWant);
    }
    sqlite3_free(zGot);
    sqlite3_free(zWant);
  }

  /* More records: the next query indexes only the records added. */
  i0 = indexed(db);
  appendRecords(&s, &TraceFtraceEventSchema, nMore, tsLocalShuffle0);
  checkVisited(db, "ftrace_event", 1000 + 10*n, 1000 + 10*(n + nMore), nMore,
               2*BLOCK);
  CHECK( indexed(db) - i0 == nMore );

  v0 = visited(db);
  CHECK( queryInt(db, "SELECT count(*) FROM ftrace_event WHERE ts + 0 "
                      "BETWEEN 1100 AND 1199")==10 );
  CHECK( visited(db) - v0 == n + nMore );
  sqlite3_close(db);
  testSessionClose(&s);
}

/*
** Joins between stores: the planner takes the cheap plan (rowid lookup of
** the parent; the ts range on the inner table, sorted or not), and the
** results equal the same joins of plain copies.
*/
static void caseJoins(void){
  Session s;
  sqlite3 *db;
  sqlite3_int64 v0, n = 20000;
  char *zA, *zB;
  int i;
  const char *azJoin[][3] = {
    { "SELECT count(*), sum(s.id * 3 + p.ts) FROM span s JOIN span p "
      "ON p.id = s.parent_id",
      "SELECT count(*), sum(s.id * 3 + p.ts) FROM plain_span s JOIN "
      "plain_span p ON p.id = s.parent_id",
      "SCAN p VIRTUAL TABLE INDEX 1:rowid=?" },
    { "SELECT count(*), sum(s.id * 3 + p.ts) FROM span p JOIN span s "
      "ON p.id = s.parent_id",
      "SELECT count(*), sum(s.id * 3 + p.ts) FROM plain_span p JOIN "
      "plain_span s ON p.id = s.parent_id",
      "SCAN p VIRTUAL TABLE INDEX 1:rowid=?" },
    { "SELECT count(*), sum(b.id - a.id) FROM sched_switch a JOIN page_fault "
      "b ON b.ts BETWEEN a.ts - 50 AND a.ts + 50",
      "SELECT count(*), sum(b.id - a.id) FROM plain_sched_switch a JOIN "
      "plain_page_fault b ON b.ts BETWEEN a.ts - 50 AND a.ts + 50",
      "SCAN b VIRTUAL TABLE INDEX 640:ts>=? AND ts<=?" },
    { "SELECT count(*), sum(b.id - a.id) FROM page_fault b JOIN sched_switch "
      "a ON b.ts BETWEEN a.ts - 50 AND a.ts + 50",
      "SELECT count(*), sum(b.id - a.id) FROM plain_page_fault b JOIN "
      "plain_sched_switch a ON b.ts BETWEEN a.ts - 50 AND a.ts + 50",
      "SCAN b VIRTUAL TABLE INDEX 640:ts>=? AND ts<=?" },
    { "SELECT count(*), sum(a.id + b.id) FROM span a JOIN sched_switch b "
      "ON b.ts >= a.ts AND b.ts < a.ts + 100 WHERE a.rowid < 5000",
      "SELECT count(*), sum(a.id + b.id) FROM plain_span a JOIN "
      "plain_sched_switch b ON b.ts >= a.ts AND b.ts < a.ts + 100 "
      "WHERE a.id < 5000",
      "SCAN b VIRTUAL TABLE INDEX 384:ts>=? AND ts<?" },
    { "SELECT count(*), sum(a.id * b.id) FROM sched_switch a JOIN span b "
      "ON b.ts = a.ts",
      "SELECT count(*), sum(a.id * b.id) FROM plain_sched_switch a JOIN "
      "plain_span b ON b.ts = a.ts",
      "VIRTUAL TABLE INDEX 32:ts=?" },
    { "SELECT count(*), sum(a.ts) FROM page_fault b JOIN span a "
      "ON a.id = b.rowid WHERE b.ts BETWEEN 20000 AND 60000",
      "SELECT count(*), sum(a.ts) FROM plain_page_fault b JOIN plain_span a "
      "ON a.id = b.id WHERE b.ts BETWEEN 20000 AND 60000",
      "SCAN a VIRTUAL TABLE INDEX 1:rowid=?" },
  };

  rngState = 5;
  makeLocalShuffle(9000);
  sessionOpen(&s);
  appendRecords(&s, &TraceSpanSchema, n, tsPairs);
  appendRecords(&s, &TraceSchedSwitchSchema, 8000, tsTimes25);
  appendRecords(&s, &TracePageFaultSchema, 9000, tsLocalShuffle);
  db = readerOpen(&s);
  exec(db, "CREATE TABLE plain_span AS SELECT * FROM span;"
           "CREATE TABLE plain_sched_switch AS SELECT * FROM sched_switch;"
           "CREATE TABLE plain_page_fault AS SELECT * FROM page_fault;"
           "CREATE INDEX plain_span_id ON plain_span(id);"
           "CREATE INDEX plain_span_ts ON plain_span(ts);"
           "CREATE INDEX plain_sched_switch_ts ON plain_sched_switch(ts);"
           "CREATE INDEX plain_page_fault_ts ON plain_page_fault(ts);");
  for(i=0; i<(int)(sizeof(azJoin)/sizeof(azJoin[0])); i++){
    checkPlan(db, azJoin[i][0], azJoin[i][2]);
    zA = runQuery(db, azJoin[i][0], 0);
    zB = runQuery(db, azJoin[i][1], 0);
    if( strcmp(zA, zB)!=0 ){
      fail(__LINE__, "%s: %s, plain: %s", azJoin[i][0], zA, zB);
    }
    printf("%s: %s", azJoin[i][0], zA);
    sqlite3_free(zA);
    sqlite3_free(zB);
  }

  /* The parent join reads each span once and looks each parent up once. */
  v0 = visited(db);
  CHECK( queryInt(db, "SELECT count(*) FROM span s JOIN span p "
                      "ON p.id = s.parent_id")==n-1 );
  CHECK( visited(db) - v0 <= 2*n );
  sqlite3_close(db);
  testSessionClose(&s);
}
static const TestCase aCase[] = {
  { "equiv_sorted",            caseEquivSorted },
  { "equiv_shuffled",          caseEquivShuffled },
  { "equiv_shuffled_dups",     caseEquivShuffledDups },
  { "equiv_two_runs",          caseEquivTwoRuns },
  { "equiv_random",            caseEquivRandom },
  { "equiv_descending",        caseEquivDescending },
  { "equiv_all_equal",         caseEquivAllEqual },
  { "equiv_one_row",           caseEquivSmall },
  { "equiv_empty",             caseEquivEmpty },
  { "order_ts_after_unsorted", caseOrderTsAfterUnsorted },
  { "order_ts_ties_after_unsorted", caseOrderTsTiesAfterUnsorted },
  { "visited_sorted_10m",      caseVisitedSorted },
  { "visited_unsorted_10m",    caseVisitedUnsorted },
  { "joins",                   caseJoins },
};

int main(int argc, char **argv){
  return testMain(argc, argv, "TestSqlPushdown", aCase,
                  sizeof(aCase)/sizeof(aCase[0]));
}
