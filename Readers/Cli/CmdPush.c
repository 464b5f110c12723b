/*
** CmdPush.c: `tracestore push`: stream a session's stores into ClickHouse
** over its HTTP interface, exactly once, optionally following a live
** recording.
**
** Zone: hosted (the command-line front end): libc.  Owns the push command
** line, the ClickHouse table layout made from the stores' descriptors,
** RowBinary encoding, the resume rule and the progress line.  Reads the
** session through TraceStore/TraceStore.h (a reader, never the writer's
** lock), talks HTTP through HttpClient.c, and uses CliUtil.c.
**
** How it stays exact (NOTES.md, "tracestore push"): every row carries its
** record index (`id`, as in SQL), and the rows of a store are sent in
** index order, in batches of at most max_insert_block_size rows (the
** setting is sent with each INSERT), so a batch is one block, written by
** ClickHouse as one part or not at all; a cut connection leaves at most a
** shorter prefix of the batch.  What the server holds for (host, session)
** is therefore always the records [0, n) of each store, and a run resumes
** at n = count() -- checked against max(id) + 1 -- read from the table
** itself.  There is no window between "rows written" and "mark written":
** the rows are the mark.  `_tracer_pushed` logs each batch for people.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "Cli.h"
#include "Readers/Cli/HttpClient.h"

static const char zPushHelp[] =
"usage: tracestore push [--follow] [--batch ROWS] [--timeout SEC]\n"
"                       [--host NAME] [--session NAME] SESSION URL\n"
"\n"
"Streams every store of SESSION into the ClickHouse server at URL\n"
"(http://HOST:PORT/[?database=DB], default database tracer, created if\n"
"missing), over its HTTP interface in RowBinary: one table per store,\n"
"named as the store, with the store's columns plus host, session and id\n"
"(the record index), ENGINE MergeTree ORDER BY (host, ts).\n"
"\n"
"Exactly once: rows go in record order in batches ClickHouse writes\n"
"whole; a run starts after the rows the server already holds for this\n"
"host and session, so running push again (after a kill, a server outage,\n"
"or on a finished session) adds only what is missing.\n"
"\n"
"  --follow        keep pushing what a live recording commits, until its\n"
"                  writer ends\n"
"  --batch ROWS    rows per INSERT (default and at most 1048576)\n"
"  --timeout SEC   connect/send/receive timeout (default 30)\n"
"  --host NAME     the host column (default: the host in the session\n"
"                  header, or 'unknown' for sessions made before it)\n"
"  --session NAME  the session column (default: SESSION's directory name)\n"
"\n"
"A server that is down, refuses or times out: the error, exit 1; a later\n"
"run continues after the last batch the server wrote.\n";

#define PUSH_MAX_BATCH_ROWS  1048576u
#define PUSH_CHUNK_BYTES     (1u << 20)

typedef struct Push Push;
struct Push {
  HttpUrl url;
  char zExtra[512];             /* URL query but database=, for each request */
  char zDb[128];                /* database */
  const char *zSessionPath;
  char zHost[TRACE_HOST_NAME_SIZE + 64];
  char zSession[256];
  char zQid[64];                /* query_id prefix of this host+session */
  int bLowCardinality;          /* strings as LowCardinality(String) */
  unsigned nBatch;              /* rows per batch */
  int bProgress;                /* stderr is a terminal */
  int bFollow;                  /* --follow */
  double tStart, tShown;
  unsigned long long nRows, nBytes;  /* pushed by this run */
  unsigned char *aBuf;          /* the chunk being encoded */
  size_t nBuf, nAlloc;
  char zErr[2048];               /* Path (up to 1024) and the reason */
};

/* ---------------------------------------------------------------------
** Talking to the server.
*/

/* Appends z to zOut as a ClickHouse string literal body (' and \ escaped). */
static void pushQuote(char *zOut, size_t nOut, const char *z){
  size_t j = strlen(zOut);
  for(; *z && j+3<nOut; z++){
    if( *z=='\'' || *z=='\\' ) zOut[j++] = '\\';
    zOut[j++] = *z;
  }
  zOut[j] = 0;
}

/*
** The request target: the URL's path and extra parameters, and for an
** INSERT (zInsert) the batch's settings, its query_id (p->zQid, "-",
** zQidSuffix) and the query.  0 and p->zErr if it does not fit.
*/
static int pushTarget(Push *p, const char *zInsert, const char *zQidSuffix,
                      char *zTarget, size_t nTarget){
  size_t n;
  snprintf(zTarget, nTarget, "%s?%s%s", p->url.zPath, p->zExtra,
           p->zExtra[0] ? "&" : "");
  if( zInsert ){
    n = strlen(zTarget);
    snprintf(zTarget+n, nTarget-n, "max_insert_block_size=%u&"
             "query_id=%s-%s&query=", p->nBatch, p->zQid, zQidSuffix);
    if( !httpEscape(zTarget, nTarget, zInsert) ){
      snprintf(p->zErr, sizeof(p->zErr), "query too long");
      return 0;
    }
  }
  return 1;
}

/*
** Takes the server's answer: 1 and, if pzOut, its body (from malloc) for
** a 200; else 0 with the status and the first line of the body (ClickHouse
** puts its exception there) in p->zErr.
*/
static int pushAnswer(Push *p, HttpResponse *pResp, char **pzOut){
  if( pResp->iStatus!=200 ){
    char *zBody = pResp->zBody ? pResp->zBody : (char*)"";
    zBody[strcspn(zBody, "\n")] = 0;
    snprintf(p->zErr, sizeof(p->zErr), "%s:%s answered %d: %.600s",
             p->url.zHost, p->url.zPort, pResp->iStatus, zBody);
    free(pResp->zBody);
    return 0;
  }
  if( pzOut ){
    *pzOut = pResp->zBody ? pResp->zBody : calloc(1, 1);
  }else{
    free(pResp->zBody);
  }
  return 1;
}

/*
** POSTs the query zSql.  On success *pzOut (if not NULL) is the answer,
** from malloc.  On failure, 0 and the message in p->zErr.
*/
static int pushRequest(Push *p, const char *zSql, char **pzOut){
  char zTarget[4096];
  HttpResponse resp;
  if( !pushTarget(p, 0, 0, zTarget, sizeof(zTarget)) ) return 0;
  if( httpPost(&p->url, zTarget, zSql, strlen(zSql), &resp, p->zErr,
               sizeof(p->zErr))!=0 ){
    return 0;
  }
  return pushAnswer(p, &resp, pzOut);
}

/* The server's settings that decide the string type, and the database. */
static int pushPrepareServer(Push *p){
  char zSql[512];
  char *zOut = 0;
  if( !pushRequest(p, "SELECT value FROM system.settings WHERE name = "
                   "'allow_experimental_low_cardinality_type'", &zOut) ){
    return 0;
  }
  /* 18.x has LowCardinality behind this switch (off); later servers
  ** either drop the setting or allow it. */
  p->bLowCardinality = zOut[0]==0 || zOut[0]=='1';
  free(zOut);
  snprintf(zSql, sizeof(zSql), "CREATE DATABASE IF NOT EXISTS `%s`",
           p->zDb);
  if( !pushRequest(p, zSql, 0) ) return 0;
  snprintf(zSql, sizeof(zSql), "CREATE TABLE IF NOT EXISTS "
           "`%s`.`_tracer_pushed` (host String, session String, store "
           "String, rows UInt64, at DateTime) ENGINE = MergeTree ORDER BY "
           "(host, session, store)", p->zDb);
  return pushRequest(p, zSql, 0);
}

/* ---------------------------------------------------------------------
** Tables from descriptors.
*/

/* The ClickHouse type of a column (without Nullable). */
static const char *pushType(PCTRACE_COLUMN_DESCRIPTOR c, int bLowCard){
  if( c->Flags & TRACE_COLUMN_STRING_ID ){
    return bLowCard ? "LowCardinality(String)" : "String";
  }
  switch( c->Type ){
    case TraceColumnInt32:  return "Int32";
    case TraceColumnUInt32: return "UInt32";
    case TraceColumnInt64:  return "Int64";
    case TraceColumnUInt64: return "UInt64";
    case TraceColumnUInt16: return "UInt16";
    case TraceColumnUInt8:  return "UInt8";
    case TraceColumnDouble: return "Float64";
  }
  return 0;
}

/* Width in bytes of a column type, 0 if unknown. */
static unsigned pushWidth(ULONG t){
  switch( t ){
    case TraceColumnUInt8: return 1;
    case TraceColumnUInt16: return 2;
    case TraceColumnInt32: case TraceColumnUInt32: return 4;
    case TraceColumnInt64: case TraceColumnUInt64: case TraceColumnDouble:
      return 8;
  }
  return 0;
}

/*
** String ids are Nullable (the id TRACE_STRING_NULL is SQL's NULL, as in
** the extension), and so are columns with TRACE_COLUMN_NULLABLE.
*/
static int pushNullable(PCTRACE_COLUMN_DESCRIPTOR c){
  return (c->Flags & (TRACE_COLUMN_STRING_ID|TRACE_COLUMN_NULLABLE))!=0;
}

/* Whether the store has a ts column ClickHouse can order by. */
static PCTRACE_COLUMN_DESCRIPTOR pushTsColumn(PTRACE_STORE s){
  PCTRACE_COLUMN_DESCRIPTOR c;
  if( s->Header->TimestampColumn>=s->Header->NumberOfColumns ) return 0;
  c = &s->Header->Columns[s->Header->TimestampColumn];
  if( c->Type!=TraceColumnInt64 || pushNullable(c) ) return 0;
  return c;
}

/*
** Checks the descriptors (as the extension does: types, widths, offsets
** inside the record, no column named like ours) and creates the table.
*/
static int pushCreateTable(Push *p, PTRACE_STORE s){
  char zSql[16384];
  char zName[TRACE_NAME_SIZE+1];
  PCTRACE_COLUMN_DESCRIPTOR cTs = pushTsColumn(s);
  ULONG i;
  size_t n;

  n = (size_t)snprintf(zSql, sizeof(zSql), "CREATE TABLE IF NOT EXISTS "
                       "`%s`.`%s` (host String, session String, id UInt64",
                       p->zDb, s->Name);
  for(i=0; i<s->Header->NumberOfColumns; i++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->Header->Columns[i];
    const char *zType = pushType(c, p->bLowCardinality);
    memcpy(zName, c->Name, TRACE_NAME_SIZE);
    zName[TRACE_NAME_SIZE] = 0;
    if( zType==0 || pushWidth(c->Type)!=c->Width
     || c->Offset>s->RecordSize || s->RecordSize-c->Offset<c->Width
     || ((c->Flags & TRACE_COLUMN_STRING_ID) && c->Type!=TraceColumnUInt32)
     || zName[0]==0 || strchr(zName, '`') || strcmp(zName, "host")==0
     || strcmp(zName, "session")==0 || strcmp(zName, "id")==0 ){
      snprintf(p->zErr, sizeof(p->zErr), "%s: column %u (\"%s\") cannot "
               "be pushed: type %u, width %u, offset %u in a record of %u "
               "bytes", s->Path, (unsigned)i, zName, (unsigned)c->Type,
               (unsigned)c->Width, (unsigned)c->Offset,
               (unsigned)s->RecordSize);
      return 0;
    }
    if( (c->Flags & TRACE_COLUMN_STRING_ID) && p->bLowCardinality ){
      zType = "LowCardinality(Nullable(String))";
    }else if( pushNullable(c) ){
      n += (size_t)snprintf(zSql+n, sizeof(zSql)-n, ", `%s` Nullable(%s)",
                            zName, zType);
      if( n>=sizeof(zSql) ) break;
      continue;
    }
    n += (size_t)snprintf(zSql+n, sizeof(zSql)-n, ", `%s` %s", zName, zType);
    if( n>=sizeof(zSql) ) break;
  }
  if( cTs ){
    memcpy(zName, cTs->Name, TRACE_NAME_SIZE);
    zName[TRACE_NAME_SIZE] = 0;
  }
  n += (size_t)snprintf(zSql+n, n<sizeof(zSql) ? sizeof(zSql)-n : 0,
                        ") ENGINE = MergeTree ORDER BY (host, %s%s%s)",
                        cTs ? "`" : "session, id", cTs ? zName : "",
                        cTs ? "`" : "");
  if( n>=sizeof(zSql) ){
    snprintf(p->zErr, sizeof(p->zErr), "%s: too many columns", s->Path);
    return 0;
  }
  return pushRequest(p, zSql, 0);
}

/*
** The number of records of store s the server already holds for this
** host and session: count(), which must equal max(id) + 1 (the rows are
** always a prefix of the store; anything else was not written by push).
*/
/*
** Waits until no INSERT of an earlier push of this host and session is
** still running on the server (a push killed after sending a batch leaves
** the server writing it; its query_id says whose it is).
*/
static int pushWaitQuiet(Push *p){
  char zSql[512];
  double tEnd = cliNowSeconds() + p->url.nTimeoutMs/1000.0;
  snprintf(zSql, sizeof(zSql), "SELECT count() FROM system.processes WHERE "
           "startsWith(query_id, '%s-')", p->zQid);
  for(;;){
    char *zOut = 0;
    int bBusy;
    if( !pushRequest(p, zSql, &zOut) ) return 0;
    bBusy = atoi(zOut)!=0;
    free(zOut);
    if( !bBusy ) return 1;
    if( cliNowSeconds()>tEnd ){
      snprintf(p->zErr, sizeof(p->zErr), "an earlier push of host '%s' "
               "session '%s' is still writing on the server", p->zHost,
               p->zSession);
      return 0;
    }
    usleep(50*1000);
  }
}

static int pushResumePoint(Push *p, PTRACE_STORE s,
                           unsigned long long *pnDone){
  char zSql[2048];
  char zOpt[512];
  char *zOut = 0;
  unsigned long long nCount = 0, nUnique = 0, iMax = 0;
  int k;
  if( !pushWaitQuiet(p) ) return 0;
  snprintf(zSql, sizeof(zSql), "SELECT count(), uniqExact(id), max(id) "
           "FROM `%s`.`%s` WHERE host = '", p->zDb, s->Name);
  pushQuote(zSql, sizeof(zSql), p->zHost);
  strcat(zSql, "' AND session = '");
  pushQuote(zSql, sizeof(zSql), p->zSession);
  strcat(zSql, "' FORMAT TabSeparated");
  for(k=0; k<2; k++){
    if( !pushRequest(p, zSql, &zOut) ) return 0;
    if( sscanf(zOut, "%llu\t%llu\t%llu", &nCount, &nUnique, &iMax)!=3 ){
      snprintf(p->zErr, sizeof(p->zErr), "unexpected answer to the resume "
               "query on %s: %.200s", s->Name, zOut);
      free(zOut);
      return 0;
    }
    free(zOut);
    zOut = 0;
    if( nCount==nUnique ) break;
    /* A batch written twice: a push killed after sending it, whose insert
    ** the server finished after the next push had read the count.  The
    ** copies are identical rows; DEDUPLICATE keeps one of each. */
    snprintf(zOpt, sizeof(zOpt), "OPTIMIZE TABLE `%s`.`%s` FINAL "
             "DEDUPLICATE", p->zDb, s->Name);
    if( !pushRequest(p, zOpt, 0) ) return 0;
  }
  if( nCount!=nUnique || (nCount!=0 && iMax+1!=nCount) ){
    snprintf(p->zErr, sizeof(p->zErr), "%s.%s holds %llu rows of host '%s' "
             "session '%s' with ids up to %llu: not the prefix push writes "
             "(rows added or removed by hand?); delete them to push again",
             p->zDb, s->Name, nCount, p->zHost, p->zSession, iMax);
    return 0;
  }
  *pnDone = nCount;
  return 1;
}

/* ---------------------------------------------------------------------
** RowBinary.
*/

static int pushReserve(Push *p, size_t n){
  if( p->nBuf + n > p->nAlloc ){
    size_t nNew = p->nAlloc ? p->nAlloc*2 : 1<<20;
    unsigned char *aNew;
    while( nNew < p->nBuf + n ) nNew *= 2;
    aNew = realloc(p->aBuf, nNew);
    if( aNew==0 ){
      snprintf(p->zErr, sizeof(p->zErr), "out of memory");
      return 0;
    }
    p->aBuf = aNew;
    p->nAlloc = nNew;
  }
  return 1;
}

/* A String: LEB128 length, then the bytes. */
static int pushString(Push *p, const char *z, size_t n){
  size_t k = n;
  if( !pushReserve(p, n + 10) ) return 0;
  do{
    unsigned char b = (unsigned char)(k & 0x7f);
    k >>= 7;
    p->aBuf[p->nBuf++] = b | (k ? 0x80 : 0);
  }while( k );
  memcpy(p->aBuf + p->nBuf, z, n);
  p->nBuf += n;
  return 1;
}

static int pushFixed(Push *p, const void *pv, size_t n){
  if( !pushReserve(p, n) ) return 0;
  memcpy(p->aBuf + p->nBuf, pv, n);       /* little-endian hosts only */
  p->nBuf += n;
  return 1;
}

/* Encodes record i of s as one RowBinary row. */
static int pushRow(Push *p, PTRACE_SESSION pSession, PTRACE_STORE s,
                   unsigned long long i){
  ULONG k;
  unsigned char bNull;
  if( !pushString(p, p->zHost, strlen(p->zHost))
   || !pushString(p, p->zSession, strlen(p->zSession))
   || !pushFixed(p, &i, 8) ){
    return 0;
  }
  for(k=0; k<s->Header->NumberOfColumns; k++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->Header->Columns[k];
    LONGLONG v = 0;
    int bHave = TraceStoreReadColumn(s, i, c, &v);
    if( c->Flags & TRACE_COLUMN_STRING_ID ){
      PCSZ z = 0;
      ULONG n = 0;
      if( bHave && (ULONGLONG)v<TRACE_STRING_NULL ){
        if( !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)v,
                                           &z, &n)) || z==0 ){
          snprintf(p->zErr, sizeof(p->zErr), "%s: record %llu holds string "
                   "id %llu, which the session's string store lacks "
                   "(corrupt)", s->Path, i, (unsigned long long)v);
          return 0;
        }
      }
      bNull = z==0;
      if( !pushFixed(p, &bNull, 1) ) return 0;
      if( z && !pushString(p, z, n) ) return 0;
      continue;
    }
    if( pushNullable(c) ){
      bNull = !bHave;
      if( !pushFixed(p, &bNull, 1) ) return 0;
      if( bNull ) continue;
    }
    if( !pushFixed(p, &v, c->Width) ) return 0;
  }
  return 1;
}

static void pushShowProgress(Push *p, const char *zStore,
                             unsigned long long iDone,
                             unsigned long long nTotal){
  double tNow = cliNowSeconds(), t = tNow - p->tStart;
  if( !p->bProgress || tNow - p->tShown < 0.2 ) return;
  p->tShown = tNow;
  fprintf(stderr, "\rpush %s: %llu/%llu rows  %.0f rows/s  %.1f MB/s\033[K",
          zStore, iDone, nTotal, t>0 ? p->nRows/t : 0.0,
          t>0 ? p->nBytes/1e6/t : 0.0);
}

/*
** Pushes records [*piDone, snapshot count) of s in batches; *piDone
** follows what the server holds.
*/
static int pushStore(Push *p, PTRACE_SESSION pSession, PTRACE_STORE s,
                     unsigned long long *piDone){
  TRACE_STORE_SNAPSHOT snap;
  RTL_ERROR err;
  char zInsert[512];
  char zLog[2048];
  char zQid[TRACE_NAME_SIZE + 32];
  char zTarget[4096];
  unsigned long long n, iEnd;

  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceStoreTakeSnapshot(s, &snap, &err)) ){
    snprintf(p->zErr, sizeof(p->zErr), "%s", err.Message);
    return 0;
  }
  n = snap.RecordCount;
  snprintf(zInsert, sizeof(zInsert), "INSERT INTO `%s`.`%s` FORMAT "
           "RowBinary", p->zDb, s->Name);
  while( *piDone < n ){
    unsigned long long i = *piDone, nSent = 0, iKept = *piDone;
    HttpStream stream;
    HttpResponse resp;
    int bOk = 1;
    iEnd = i + p->nBatch < n ? i + p->nBatch : n;
    snprintf(zQid, sizeof(zQid), "%s-%llu", s->Name, *piDone);
    if( !pushTarget(p, zInsert, zQid, zTarget, sizeof(zTarget))
     || httpStreamBegin(&p->url, zTarget, &stream, p->zErr,
                        sizeof(p->zErr))!=0 ){
      return 0;
    }
    /* The body goes out in chunks of PUSH_CHUNK_BYTES as it is encoded:
    ** the server parses one while the next is made. */
    p->nBuf = 0;
    for(; i<iEnd && bOk; i++){
      bOk = pushRow(p, pSession, s, i);
      if( bOk && (p->nBuf>=PUSH_CHUNK_BYTES || i+1==iEnd) ){
        if( httpStreamWrite(&stream, p->aBuf, p->nBuf)!=0 ) break;
        nSent += p->nBuf;
        p->nBuf = 0;
        /* Sent: let the kernel drop these records from the resident set
        ** (a push's memory is its chunk buffer, whatever the store's
        ** size; the records are read again only by a later run). */
        Rtl.DiscardMemory(&Rtl, s->Base + iKept * s->RecordSize,
                          (SIZE_T)((i + 1 - iKept) * s->RecordSize));
        iKept = i + 1;
      }
    }
    if( !bOk ){
      /* Never send the end of a batch that is not whole: the server drops
      ** an INSERT whose body ends without it. */
      httpStreamAbort(&stream);
      return 0;
    }
    if( httpStreamEnd(&stream, &resp, p->zErr, sizeof(p->zErr))!=0
     || !pushAnswer(p, &resp, 0) ){
      return 0;
    }
    p->nRows += iEnd - *piDone;
    p->nBytes += nSent;
    *piDone = iEnd;
    /* For people: what was pushed when.  The rows themselves are the
    ** resume point, so losing this line loses nothing. */
    snprintf(zLog, sizeof(zLog), "INSERT INTO `%s`.`_tracer_pushed` VALUES "
             "('", p->zDb);
    pushQuote(zLog, sizeof(zLog), p->zHost);
    strcat(zLog, "', '");
    pushQuote(zLog, sizeof(zLog), p->zSession);
    snprintf(zLog+strlen(zLog), sizeof(zLog)-strlen(zLog), "', '%s', %llu, "
             "now())", s->Name, iEnd);
    if( !pushRequest(p, zLog, 0) ) return 0;
    pushShowProgress(p, s->Name, iEnd, n);
  }
  return 1;
}

/*
** Opens SESSION for reading.  With --follow, a session whose writer is
** still creating it (an empty header, stores not there yet) is waited
** for, up to the timeout, rather than an error.
*/
static PTRACE_SESSION pushOpen(Push *p){
  PTRACE_SESSION pSession = cliNewSession();
  double tEnd = cliNowSeconds() + p->url.nTimeoutMs/1000.0;
  RTL_ERROR err;
  for(;;){
    memset(&err, 0, sizeof(err));
    if( RTL_SUCCESS(TraceSessionOpenReader(&Rtl, p->zSessionPath, pSession,
                                           &err)) ){
      return pSession;
    }
    if( !p->bFollow || !cliWriterRuns(p->zSessionPath)
     || cliNowSeconds()>tEnd ){
      break;
    }
    memset(pSession, 0, sizeof(*pSession));
    usleep(50*1000);
  }
  snprintf(p->zErr, sizeof(p->zErr), "%s", err.Message);
  free(pSession);
  return 0;
}

/* Per store name: records the server holds (-1: not asked yet). */
typedef struct PushDone PushDone;
struct PushDone {
  char zName[TRACE_NAME_SIZE+1];
  unsigned long long nDone;
};

/*
** One pass: opens the session (stores a live writer made since the last
** pass included), and pushes each store up to its snapshot.
*/
static int pushPass(Push *p, PushDone *aDone, int *pnDone){
  PTRACE_SESSION pSession = pushOpen(p);
  ULONG i;
  int j, rc = 1;

  if( pSession==0 ) return 0;
  for(i=0; rc && i<pSession->NumberOfStores; i++){
    PTRACE_STORE s = &pSession->Stores[i];
    if( strcmp(s->Name, "string")==0 || strcmp(s->Name, "string_data")==0
     || s->Name[0]==0 ){
      continue;
    }
    for(j=0; j<*pnDone && strcmp(aDone[j].zName, s->Name)!=0; j++){}
    if( j==*pnDone ){
      if( j>=TRACE_SESSION_MAX_STORES ) continue;
      if( !pushCreateTable(p, s) || !pushResumePoint(p, s, &aDone[j].nDone) ){
        rc = 0;
        break;
      }
      memcpy(aDone[j].zName, s->Name, TRACE_NAME_SIZE);
      (*pnDone)++;
    }
    rc = pushStore(p, pSession, s, &aDone[j].nDone);
  }
  TraceSessionClose(pSession);
  free(pSession);
  return rc;
}

/*
** At the end: each store's rows on the server, settled (duplicates of a
** killed earlier push removed), are exactly the records pushed.
*/
static int pushVerify(Push *p, PushDone *aDone, int nDone){
  TRACE_STORE store;
  int j;
  for(j=0; j<nDone; j++){
    unsigned long long n = 0;
    memset(&store, 0, sizeof(store));
    memcpy(store.Name, aDone[j].zName, TRACE_NAME_SIZE);
    if( !pushResumePoint(p, &store, &n) ) return 0;
    if( n!=aDone[j].nDone ){
      snprintf(p->zErr, sizeof(p->zErr), "%s.%s holds %llu rows of host "
               "'%s' session '%s' after the push, which sent up to record "
               "%llu: another push of the same session ran at the same time?",
               p->zDb, aDone[j].zName, n, p->zHost, p->zSession,
               aDone[j].nDone);
      return 0;
    }
  }
  return 1;
}

/* Splits the URL's query into database= and the rest (p->zExtra). */
static void pushSplitQuery(Push *p){
  char *z = p->url.zQuery, *zNext;
  snprintf(p->zDb, sizeof(p->zDb), "tracer");
  p->zExtra[0] = 0;
  for(; z && *z; z=zNext){
    size_t n = strcspn(z, "&");
    zNext = z[n] ? z+n+1 : z+n;
    if( strncmp(z, "database=", 9)==0 && n>9 && n-9<sizeof(p->zDb) ){
      memcpy(p->zDb, z+9, n-9);
      p->zDb[n-9] = 0;
    }else if( n>0 && strlen(p->zExtra)+n+2<sizeof(p->zExtra) ){
      if( p->zExtra[0] ) strcat(p->zExtra, "&");
      strncat(p->zExtra, z, n);
    }
  }
}

static int pushOptions(Push *p, int argc, char **argv, int *pbFollow,
                       const char **pzUrl, const char **pzHost,
                       const char **pzSession, double *prTimeout){
  int i;
  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      fputs(zPushHelp, stdout);
      return 0;
    }else if( strcmp(z, "--follow")==0 ){
      *pbFollow = 1;
    }else if( z[0]=='-' && z[1] && i+1>=argc ){
      cliFail("push: %s needs a value", z);
      return 2;
    }else if( strcmp(z, "--batch")==0 ){
      char *zEnd;
      unsigned long n = strtoul(argv[++i], &zEnd, 10);
      if( *zEnd || argv[i][0]=='-' || n<1 || n>PUSH_MAX_BATCH_ROWS ){
        cliFail("--batch: '%s' is not a number of rows from 1 to %u",
                argv[i], PUSH_MAX_BATCH_ROWS);
        return 2;
      }
      p->nBatch = (unsigned)n;
    }else if( strcmp(z, "--timeout")==0 ){
      char *zEnd;
      *prTimeout = strtod(argv[++i], &zEnd);
      if( *zEnd || !(*prTimeout>0 && *prTimeout<86400) ){
        cliFail("--timeout: '%s' is not a number of seconds", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--host")==0 ){
      *pzHost = argv[++i];
    }else if( strcmp(z, "--session")==0 ){
      *pzSession = argv[++i];
    }else if( z[0]=='-' && z[1] ){
      cliFail("push: unknown option '%s'", z);
      return 2;
    }else if( p->zSessionPath==0 ){
      p->zSessionPath = z;
    }else if( *pzUrl==0 ){
      *pzUrl = z;
    }else{
      fputs(zPushHelp, stderr);
      return 2;
    }
  }
  if( p->zSessionPath==0 || *pzUrl==0 ){
    fputs(zPushHelp, stderr);
    return 2;
  }
  return -1;
}

/* The session's host (header) and name (directory) unless given. */
static int pushIdentity(Push *p, const char *zHost, const char *zSession){
  PTRACE_SESSION pSession;
  size_t n;
  const char *zBase;
  if( zHost ){
    snprintf(p->zHost, sizeof(p->zHost), "%s", zHost);
  }else{
    pSession = pushOpen(p);
    if( pSession==0 ){
      cliFail("%s", p->zErr);
      return 0;
    }
    snprintf(p->zHost, sizeof(p->zHost), "%s",
             pSession->Header.Host.HostName[0] ?
             pSession->Header.Host.HostName : "unknown");
    TraceSessionClose(pSession);
    free(pSession);
  }
  if( zSession ){
    snprintf(p->zSession, sizeof(p->zSession), "%s", zSession);
  }else{
    n = strlen(p->zSessionPath);
    while( n>1 && p->zSessionPath[n-1]=='/' ) n--;
    zBase = p->zSessionPath + n;
    while( zBase>p->zSessionPath && zBase[-1]!='/' ) zBase--;
    snprintf(p->zSession, sizeof(p->zSession), "%.*s",
             (int)(p->zSessionPath + n - zBase), zBase);
  }
  {
    /* FNV-1a of database, host and session: a query_id-safe name. */
    unsigned long long h = 0xcbf29ce484222325ULL;
    const char *az[3];
    int k;
    az[0] = p->zDb; az[1] = p->zHost; az[2] = p->zSession;
    for(k=0; k<3; k++){
      const unsigned char *z = (const unsigned char*)az[k];
      for(; ; z++){
        h = (h ^ *z) * 0x100000001b3ULL;
        if( *z==0 ) break;
      }
    }
    snprintf(p->zQid, sizeof(p->zQid), "tracestore-push-%016llx", h);
  }
  return 1;
}

int cmdPush(int argc, char **argv){
  Push *p;
  const char *zUrl = 0, *zHost = 0, *zSession = 0;
  double rTimeout = 30;
  int bFollow = 0, rc, nDone = 0;
  PushDone aDone[TRACE_SESSION_MAX_STORES];

  p = calloc(1, sizeof(*p));
  if( p==0 ){ cliFail("out of memory"); return 1; }
  p->nBatch = PUSH_MAX_BATCH_ROWS;
  rc = pushOptions(p, argc, argv, &bFollow, &zUrl, &zHost, &zSession,
                   &rTimeout);
  if( rc>=0 ){ free(p); return rc; }
  if( !httpParseUrl(zUrl, &p->url, p->zErr, sizeof(p->zErr)) ){
    cliFail("push: %s", p->zErr);
    free(p);
    return 2;
  }
  p->url.nTimeoutMs = (int)(rTimeout*1000);
  pushSplitQuery(p);
  if( strchr(p->zDb, '`') || strchr(p->zDb, '%') ){
    cliFail("push: database name '%s' is not supported", p->zDb);
    free(p);
    return 2;
  }
  p->bFollow = bFollow;
  if( !pushIdentity(p, zHost, zSession) ){ free(p); return 1; }
  signal(SIGPIPE, SIG_IGN);
  p->bProgress = isatty(2);
  p->tStart = cliNowSeconds();
  memset(aDone, 0, sizeof(aDone));

  rc = pushPrepareServer(p);
  while( rc ){
    /* Whether the writer ran before this pass: if not, this pass sees
    ** everything it committed, and is the last. */
    int bRuns = bFollow && cliWriterRuns(p->zSessionPath);
    rc = pushPass(p, aDone, &nDone);
    if( !rc || !bRuns ) break;
    usleep(200*1000);
  }
  if( rc ) rc = pushVerify(p, aDone, nDone);
  if( p->bProgress ) fprintf(stderr, "\r\033[K");
  if( !rc ){
    cliFail("push: %s", p->zErr);
    fprintf(stderr, "tracestore: push: %llu rows sent by this run are kept; "
            "run push again to continue\n", p->nRows);
  }else{
    double t = cliNowSeconds() - p->tStart;
    fprintf(stderr, "%s: %llu rows (%.1f MB) pushed to %s:%s database %s "
            "as host '%s' session '%s' in %.2f s\n", p->zSessionPath,
            p->nRows, p->nBytes/1e6, p->url.zHost, p->url.zPort, p->zDb,
            p->zHost, p->zSession, t);
  }
  free(p->aBuf);
  free(p);
  return rc ? 0 : 1;
}
