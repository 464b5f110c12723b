/*
** TestSqlLive.c: the extension while a writer appends.
**
** Usage:
**
**     TestSqlLive list          print the case names
**     TestSqlLive CASE          run one case (one CTest entry per case)
**
** How it works: one process holds a session open for writing (through the
** store API, as `tracestore record` does) and queries it through SQLite
** with the extension linked in statically, stepping statements part way,
** appending and committing, and stepping on.  Every record's content
** follows from its index (ts = 1000 + 10*i, address = i, name and comm
** from i and the batch it was written in), so each check is computed from
** what was written, not from what was read.  The batches are large enough
** that the file grows past the readers' mappings, so the remapping paths
** run too.  A hosted program: libc is fine here.
*/
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"
#include "Sqlite3Ext/tracestore.h"

#define SQL_TEST_FILE "TestSqlLive.c"
#include "SqlTestUtil.h"

/* -------------------------------------------------------------------------
** The writer: a session with one page_fault store.
*/
typedef struct Writer Writer;
struct Writer {
  TestSession s;               /* The session, in a temporary directory */
  PTRACE_STORE pStore;
  sqlite3_int64 nRecord;       /* Records appended (and committed) so far */
};

/* Name and comm of record i written in batch iBatch. */
static void recordNames(sqlite3_int64 i, int iBatch, char *zName, char *zComm){
  sprintf(zName, "fault_%d", (int)(i % 3));
  sprintf(zComm, "batch%d", iBatch);
}

static void writerOpen(Writer *p){
  RTL_ERROR error;
  memset(p, 0, sizeof(*p));
  testSessionOpen(&p->s, "tracer-sql-live", "live.trace");
  memset(&error, 0, sizeof(error));
  if( !RTL_SUCCESS(TraceSessionOpenStore(p->s.pSession, &TracePageFaultSchema,
                                         &p->pStore, &error)) ){
    fail(__LINE__, "open store: %s", error.Message);
  }
}

/*
** Appends records [nRecord, nRecord+n) as batch iBatch, and commits them
** (strings first).
*/
static void writerAppend(Writer *p, int n, int iBatch){
  PAGE_FAULT_RECORD r;
  ULONGLONG iIndex;
  char zName[32], zComm[32];
  int k;
  for(k=0; k<n; k++){
    sqlite3_int64 i = p->nRecord + k;
    memset(&r, 0, sizeof(r));
    recordNames(i, iBatch, zName, zComm);
    r.Timestamp = 1000 + 10*i;
    r.Address = (ULONGLONG)i;
    r.Ip = TRACE_NULL_ULONGLONG;
    r.IpSymbolId = TRACE_NULL_ULONG;
    r.Pid = TRACE_NULL_ULONG;
    r.Tid = (ULONG)iBatch;
    r.Cpu = (ULONG)(i % 2);
    CHECK( RTL_SUCCESS(TraceStringIntern(&p->s.pSession->Strings, zName,
                                         (ULONG)strlen(zName), &r.NameId)) );
    CHECK( RTL_SUCCESS(TraceStringIntern(&p->s.pSession->Strings, zComm,
                                         (ULONG)strlen(zComm), &r.CommId)) );
    CHECK( RTL_SUCCESS(TraceStoreAppend(p->pStore, &r, &iIndex)) );
    CHECK( iIndex==(ULONGLONG)i );
  }
  CHECK( RTL_SUCCESS(TraceSessionCommit(p->s.pSession)) );
  p->nRecord += n;
}

static void writerClose(Writer *p){
  testSessionClose(&p->s);
}

/* -------------------------------------------------------------------------
** The reader: an in-memory database with the extension and the session
** attached.
*/
static sqlite3 *readerOpen(Writer *p){
  sqlite3 *db = 0;
  char *zErr = 0;
  char *zSql;
  CHECK( sqlite3_open(":memory:", &db)==SQLITE_OK );
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    fail(__LINE__, "init: %s", zErr);
  }
  zSql = sqlite3_mprintf("SELECT tracestore_attach(%Q)", p->s.zDir);
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    fail(__LINE__, "attach: %s", zErr);
  }
  sqlite3_free(zSql);
  return db;
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0)!=SQLITE_OK ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  return pStmt;
}

/* Runs a query that returns one integer. */
static sqlite3_int64 queryInt(sqlite3 *db, const char *zSql){
  sqlite3_stmt *pStmt = prepare(db, zSql);
  sqlite3_int64 v;
  if( sqlite3_step(pStmt)!=SQLITE_ROW ){
    fail(__LINE__, "%s: %s", zSql, sqlite3_errmsg(db));
  }
  v = sqlite3_column_int64(pStmt, 0);
  sqlite3_finalize(pStmt);
  return v;
}

/*
** Checks row (id, ts, address, name, comm) against what record id of
** batch iBatch holds.
*/
static void checkRow(sqlite3_stmt *pStmt, int iBatch){
  sqlite3_int64 i = sqlite3_column_int64(pStmt, 0);
  char zName[32], zComm[32];
  const char *z;
  recordNames(i, iBatch, zName, zComm);
  CHECK( sqlite3_column_int64(pStmt, 1)==1000 + 10*i );
  CHECK( sqlite3_column_int64(pStmt, 2)==i );
  z = (const char*)sqlite3_column_text(pStmt, 3);
  CHECK( z!=0 && strcmp(z, zName)==0 );
  z = (const char*)sqlite3_column_text(pStmt, 4);
  CHECK( z!=0 && strcmp(z, zComm)==0 );
}

/* -------------------------------------------------------------------------
** Cases.
*/

/*
** A scan started before an append returns the rows of its snapshot only,
** with the right contents although the file grew and was remapped under
** it; the next statement sees every committed record.
*/
static void caseScanKeepsSnapshot(void){
  Writer w;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  int nRow = 0, rc;

  writerOpen(&w);
  writerAppend(&w, 100, 1);
  db = readerOpen(&w);
  CHECK( queryInt(db, "SELECT count(*) FROM page_fault")==100 );

  pStmt = prepare(db, "SELECT id, ts, address, name, comm FROM page_fault");
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    checkRow(pStmt, 1);
    if( ++nRow==10 ) writerAppend(&w, 20000, 2);
  }
  CHECK( rc==SQLITE_DONE );
  CHECK( nRow==100 );
  sqlite3_finalize(pStmt);

  CHECK( queryInt(db, "SELECT count(*) FROM page_fault")==20100 );
  CHECK( queryInt(db, "SELECT max(rowid) FROM page_fault")==20099 );
  CHECK( queryInt(db, "SELECT count(*) FROM page_fault WHERE comm = 'batch2'"
                      " AND name = 'fault_' || (id % 3)"
                      " AND ts = 1000 + 10 * id AND address = id")==20000 );
  CHECK( queryInt(db, "SELECT records FROM store_info"
                      " WHERE name = 'page_fault'")==20100 );
  sqlite3_close(db);
  writerClose(&w);
}

/*
** One statement sees one snapshot: correlated subqueries over the same
** table keep the count the statement started with while the writer appends
** between rows, also one whose cursor is first used after the appends.
*/
static void caseStatementOneSnapshot(void){
  Writer w;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  int nRow = 0, rc;

  writerOpen(&w);
  writerAppend(&w, 50, 1);
  db = readerOpen(&w);

  pStmt = prepare(db,
      "SELECT a.id, (SELECT count(*) FROM page_fault AS b"
      "               WHERE b.rowid >= a.rowid - a.rowid),"
      "       (SELECT count(*) FROM page_fault AS c WHERE c.rowid > a.rowid),"
      "       CASE WHEN a.rowid >= 10"
      "            THEN (SELECT count(*) FROM page_fault AS d"
      "                   WHERE d.rowid >= a.rowid * 0)"
      "            ELSE 50 END"
      "  FROM page_fault AS a");
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    sqlite3_int64 i = sqlite3_column_int64(pStmt, 0);
    CHECK( sqlite3_column_int64(pStmt, 1)==50 );
    CHECK( sqlite3_column_int64(pStmt, 2)==50 - 1 - i );
    CHECK( sqlite3_column_int64(pStmt, 3)==50 );   /* first filtered late */
    nRow++;
    writerAppend(&w, 500, 2);
  }
  CHECK( rc==SQLITE_DONE );
  CHECK( nRow==50 );
  sqlite3_finalize(pStmt);
  CHECK( queryInt(db, "SELECT count(*) FROM page_fault")==50 + 50*500 );
  sqlite3_close(db);
  writerClose(&w);
}

/*
** A table attached before the writer grew the file, and one created after
** (its own mapping), read side by side while a scan of the first is open.
*/
static void caseTwoTablesOneStore(void){
  Writer w;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  char *zSql;
  int nRow = 0, rc;

  writerOpen(&w);
  writerAppend(&w, 1000, 1);
  db = readerOpen(&w);
  pStmt = prepare(db, "SELECT id, ts, address, name, comm FROM page_fault"
                      " WHERE rowid >= 500 ORDER BY rowid DESC");
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    checkRow(pStmt, 1);
    if( ++nRow==1 ){
      writerAppend(&w, 30000, 1);
      zSql = sqlite3_mprintf("CREATE VIRTUAL TABLE temp.pf2 USING "
                             "tracestore(%Q, 'page_fault')", w.s.zDir);
      CHECK( sqlite3_exec(db, zSql, 0, 0, 0)==SQLITE_OK );
      sqlite3_free(zSql);
      CHECK( queryInt(db, "SELECT count(*) FROM pf2")==31000 );
      CHECK( queryInt(db, "SELECT count(*) FROM pf2"
                          " WHERE ts = 1000 + 10 * id")==31000 );
    }
  }
  CHECK( rc==SQLITE_DONE );
  CHECK( nRow==500 );
  sqlite3_finalize(pStmt);
  CHECK( queryInt(db, "SELECT count(*) FROM page_fault")==31000 );
  sqlite3_close(db);
  writerClose(&w);
}

/*
** ts push-down (binary search) on a store that keeps growing: every range
** query agrees with the arithmetic of ts = 1000 + 10*i.
*/
static void caseTsRangesWhileGrowing(void){
  Writer w;
  sqlite3 *db;
  int k;

  writerOpen(&w);
  writerAppend(&w, 10, 1);
  db = readerOpen(&w);
  for(k=0; k<8; k++){
    sqlite3_int64 n = w.nRecord;
    char zSql[200];
    CHECK( queryInt(db, "SELECT sorted FROM store_info"
                        " WHERE name = 'page_fault'")==1 );
    CHECK( queryInt(db, "SELECT count(*) FROM page_fault")==n );
    snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM page_fault"
             " WHERE ts >= %lld AND ts < %lld", 1000 + 10*(n/4),
             1000 + 10*(n/2));
    CHECK( queryInt(db, zSql)==n/2 - n/4 );
    snprintf(zSql, sizeof(zSql), "SELECT id FROM page_fault WHERE ts = %lld",
             1000 + 10*(n-1));
    CHECK( queryInt(db, zSql)==n-1 );
    snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM page_fault"
             " WHERE ts > %lld", 1000 + 10*(n-1));
    CHECK( queryInt(db, zSql)==0 );
    writerAppend(&w, (int)(n*3), 1);
  }
  sqlite3_close(db);
  writerClose(&w);
}

/*
** A join prepared while one of its stores is still empty, run again after
** that store grew (a statement cache, Python's included, keeps the plan):
** the plan must still look records up by rowid in the store that grew,
** not scan it in the outer loop with the other store's range inside (20000
** x 1000 rows read where 2000 suffice).
*/
static void caseJoinPlanAfterGrowth(void){
  Writer w;
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  PTRACE_STORE pOther = 0;
  RTL_ERROR error;
  ULONGLONG iFirst, k;
  sqlite3_int64 nBefore, nVisited;
  int iTs = -1;
  ULONG c;

  writerOpen(&w);
  writerAppend(&w, 20000, 1);
  memset(&error, 0, sizeof(error));
  CHECK( RTL_SUCCESS(TraceSessionOpenStore(w.s.pSession,
                                           &TraceSchedSwitchSchema,
                                           &pOther, &error)) );
  for(c=0; c<TraceSchedSwitchSchema.NumberOfColumns; c++){
    if( strcmp(TraceSchedSwitchSchema.Columns[c].Name, "ts")==0 ) iTs = (int)c;
  }
  CHECK( iTs>=0 );
  CHECK( RTL_SUCCESS(TraceSessionCommit(w.s.pSession)) );
  db = readerOpen(&w);

  pStmt = prepare(db, "SELECT count(*) FROM page_fault AS p"
                      " JOIN sched_switch AS s ON s.rowid = p.address"
                      " WHERE p.rowid BETWEEN ?1 AND ?2");
  sqlite3_bind_int64(pStmt, 1, 0);
  sqlite3_bind_int64(pStmt, 2, 999);
  CHECK( sqlite3_step(pStmt)==SQLITE_ROW );
  CHECK( sqlite3_column_int64(pStmt, 0)==0 );
  sqlite3_reset(pStmt);

  CHECK( RTL_SUCCESS(TraceStoreReserve(pOther, 20000, &iFirst)) );
  for(k=0; k<20000; k++){
    unsigned char *pRec = pOther->Base + (iFirst+k)*pOther->RecordSize;
    LONGLONG ts = (LONGLONG)(1000 + 10*k);
    memset(pRec, 0, pOther->RecordSize);
    memcpy(pRec + TraceSchedSwitchSchema.Columns[iTs].Offset, &ts, sizeof(ts));
  }
  CHECK( RTL_SUCCESS(TraceSessionCommit(w.s.pSession)) );

  nBefore = queryInt(db, "SELECT tracestore_rows_visited()");
  CHECK( sqlite3_step(pStmt)==SQLITE_ROW );
  CHECK( sqlite3_column_int64(pStmt, 0)==1000 );
  sqlite3_finalize(pStmt);
  nVisited = queryInt(db, "SELECT tracestore_rows_visited()") - nBefore;
  if( nVisited>10000 ){
    fail(__LINE__, "the join read %lld rows for 1000", (long long)nVisited);
  }
  sqlite3_close(db);
  writerClose(&w);
}

static const TestCase aCase[] = {
  { "scan_keeps_snapshot",      caseScanKeepsSnapshot },
  { "statement_one_snapshot",   caseStatementOneSnapshot },
  { "two_tables_one_store",     caseTwoTablesOneStore },
  { "ts_ranges_while_growing",  caseTsRangesWhileGrowing },
  { "join_plan_after_growth",   caseJoinPlanAfterGrowth },
};

int main(int argc, char **argv){
  return testMain(argc, argv, "TestSqlLive", aCase,
                  sizeof(aCase)/sizeof(aCase[0]));
}
