/*
** CmdPush.c: `tracestore push`: stream a session's stores into ClickHouse
** over its HTTP interface, exactly once, optionally following a live
** recording.
**
** Zone: hosted (Outputs/Push/, an output): libc.  Owns the push command
** line, the ClickHouse table layout made from the stores' descriptors,
** the Native (and RowBinary) encoding, the resume rule and the progress
** line.  Reads the
** session through TraceStore/TraceStore.h (a reader, never the writer's
** lock), talks HTTP through HttpClient.c, and uses HostUtil.c.
**
** How it stays exact (docs/fleet.md): every row carries its
** record index (`id`, as in SQL), and the rows of a store are sent in
** index order, a batch per INSERT, its blocks in order, so whatever of a
** batch the server keeps when a connection is cut is a prefix of it.
** What the server holds for (host, session) is therefore always the
** records [0, n) of each store, and a run resumes at n = count() --
** checked against max(id) + 1 -- read from the table itself: there is no
** window between "rows written" and "mark written", the rows are the
** mark.  A killed push's last batch that lands twice (the server
** finishing it after the next run read the count) is found by that check
** and deduplicated (pushResumePoint).  `_tracer_pushed` logs each batch
** for people.
*/
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "Host/Host.h"
#include "Outputs/Push/HttpClient.h"
#include "Outputs/Outputs.h"

static const char zPushHelp[] =
"usage: tracestore push [--follow] [--batch ROWS] [--timeout SEC]\n"
"                       [--host NAME] [--session NAME] SESSION URL\n"
"\n"
"Streams every store of SESSION into the ClickHouse server at URL\n"
"(http://HOST:PORT/[?database=DB], default database tracer, created if\n"
"missing), over its HTTP interface in Native format: one table per store,\n"
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
#define PUSH_NATIVE_ROWS     65536u

/* A growing byte buffer. */
typedef struct PushBuf PushBuf;
struct PushBuf {
  unsigned char *a;
  size_t n, nAlloc;
};

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
  int bLive;                    /* a writer held the session at this pass */
  double tStart, tShown;
  unsigned long long nRows, nBytes;  /* pushed by this run */
  unsigned long long nHeld;     /* span rows held back at the last pass */
  PushBuf row;                  /* RowBinary: the chunk being encoded */
  /* Native: per column of the block being encoded, its values (host,
  ** session, id, then the store's) and null map. */
  PushBuf aCol[3 + TRACE_STORE_MAX_COLUMNS];
  PushBuf aNull[TRACE_STORE_MAX_COLUMNS];
  PushBuf head;                 /* Native: a block's and columns' headers */
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
static const char *pushBaseType(PCTRACE_COLUMN_DESCRIPTOR c){
  if( c->Flags & TRACE_COLUMN_STRING_ID ) return "String";
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

static int pushNullable(PCTRACE_COLUMN_DESCRIPTOR c);

/*
** The column's type in the table (and in a Native block): Nullable for
** string ids and nullable columns, strings LowCardinality where the
** server has it.  zOut holds 64 bytes.  0 for a type push does not know.
*/
static int pushColumnType(Push *p, PCTRACE_COLUMN_DESCRIPTOR c, char *zOut){
  const char *zBase = pushBaseType(c);
  if( zBase==0 ) return 0;
  if( (c->Flags & TRACE_COLUMN_STRING_ID) && p->bLowCardinality ){
    snprintf(zOut, 64, "LowCardinality(Nullable(String))");
  }else if( pushNullable(c) ){
    snprintf(zOut, 64, "Nullable(%s)", zBase);
  }else{
    snprintf(zOut, 64, "%s", zBase);
  }
  return 1;
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
    char zType[64];
    memcpy(zName, c->Name, TRACE_NAME_SIZE);
    zName[TRACE_NAME_SIZE] = 0;
    if( !pushColumnType(p, c, zType) || pushWidth(c->Type)!=c->Width
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
  double tEnd = hostNowSeconds() + p->url.nTimeoutMs/1000.0;
  snprintf(zSql, sizeof(zSql), "SELECT count() FROM system.processes WHERE "
           "startsWith(query_id, '%s-')", p->zQid);
  for(;;){
    char *zOut = 0;
    int bBusy;
    if( !pushRequest(p, zSql, &zOut) ) return 0;
    bBusy = atoi(zOut)!=0;
    free(zOut);
    if( !bBusy ) return 1;
    if( hostNowSeconds()>tEnd ){
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
  unsigned long long nCount = 0, nNext = 0;
  int k;
  if( !pushWaitQuiet(p) ) return 0;
  /* The rows are a prefix [0, n) of the store, so count() = max(id) + 1
  ** unless a batch landed twice (more) -- no uniqExact over the table. */
  snprintf(zSql, sizeof(zSql), "SELECT count(), if(count() = 0, 0, max(id) "
           "+ 1) FROM `%s`.`%s` WHERE host = '", p->zDb, s->Name);
  pushQuote(zSql, sizeof(zSql), p->zHost);
  strcat(zSql, "' AND session = '");
  pushQuote(zSql, sizeof(zSql), p->zSession);
  strcat(zSql, "' FORMAT TabSeparated");
  for(k=0; k<2; k++){
    if( !pushRequest(p, zSql, &zOut) ) return 0;
    if( sscanf(zOut, "%llu\t%llu", &nCount, &nNext)!=2 ){
      snprintf(p->zErr, sizeof(p->zErr), "unexpected answer to the resume "
               "query on %s: %.200s", s->Name, zOut);
      free(zOut);
      return 0;
    }
    free(zOut);
    zOut = 0;
    if( nCount<=nNext ) break;
    /* A batch written twice: a push killed after sending it, whose insert
    ** the server finished after the next push had read the count.  The
    ** copies are identical rows; DEDUPLICATE keeps one of each. */
    fprintf(stderr, "tracestore: push: %s.%s holds %llu rows of records "
            "[0, %llu): a batch of an interrupted push landed twice; "
            "deduplicating\n", p->zDb, s->Name, nCount, nNext);
    snprintf(zOpt, sizeof(zOpt), "OPTIMIZE TABLE `%s`.`%s` FINAL "
             "DEDUPLICATE", p->zDb, s->Name);
    if( !pushRequest(p, zOpt, 0) ) return 0;
  }
  if( nCount!=nNext ){
    snprintf(p->zErr, sizeof(p->zErr), "%s.%s holds %llu rows of host '%s' "
             "session '%s' with ids up to %llu: not the prefix push writes "
             "(rows added or removed by hand?); delete them to push again",
             p->zDb, s->Name, nCount, p->zHost, p->zSession,
             nNext ? nNext-1 : 0);
    return 0;
  }
  *pnDone = nCount;
  return 1;
}

/* ---------------------------------------------------------------------
** Encoding: Native blocks (columns one after another: the server copies
** them instead of parsing rows), or RowBinary rows where strings are
** LowCardinality (whose Native form is a dictionary push does not build).
*/

static int pushReserve(Push *p, PushBuf *b, size_t n){
  if( b->n + n > b->nAlloc ){
    size_t nNew = b->nAlloc ? b->nAlloc*2 : 1<<16;
    unsigned char *aNew;
    while( nNew < b->n + n ) nNew *= 2;
    aNew = realloc(b->a, nNew);
    if( aNew==0 ){
      snprintf(p->zErr, sizeof(p->zErr), "out of memory");
      return 0;
    }
    b->a = aNew;
    b->nAlloc = nNew;
  }
  return 1;
}

/* A String: LEB128 length, then the bytes. */
static int pushString(Push *p, PushBuf *b, const char *z, size_t n){
  size_t k = n;
  if( !pushReserve(p, b, n + 10) ) return 0;
  do{
    unsigned char c = (unsigned char)(k & 0x7f);
    k >>= 7;
    b->a[b->n++] = c | (k ? 0x80 : 0);
  }while( k );
  memcpy(b->a + b->n, z, n);
  b->n += n;
  return 1;
}

static int pushFixed(Push *p, PushBuf *b, const void *pv, size_t n){
  if( !pushReserve(p, b, n) ) return 0;
  memcpy(b->a + b->n, pv, n);             /* little-endian hosts only */
  b->n += n;
  return 1;
}

/*
** Reads column c of record i: *pbNull, and the value in *pv (an integer
** or a double's bits) or the string in *pz, *pn.  0 (p->zErr) for a
** string id the string store lacks.
*/
static int pushValue(Push *p, PTRACE_SESSION pSession, PTRACE_STORE s,
                     PCTRACE_COLUMN_DESCRIPTOR c, unsigned long long i,
                     int *pbNull, LONGLONG *pv, PCSZ *pz, ULONG *pn){
  int bHave = TraceStoreReadColumn(s, i, c, pv);
  *pz = 0;
  *pn = 0;
  if( c->Flags & TRACE_COLUMN_STRING_ID ){
    if( bHave && (ULONGLONG)*pv<TRACE_STRING_NULL ){
      if( !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)*pv,
                                         pz, pn)) || *pz==0 ){
        snprintf(p->zErr, sizeof(p->zErr), "%s: record %llu holds string "
                 "id %llu, which the session's string store lacks "
                 "(corrupt)", s->Path, i, (unsigned long long)*pv);
        return 0;
      }
    }
    *pbNull = *pz==0;
    return 1;
  }
  *pbNull = !bHave;
  if( !bHave ) *pv = 0;
  return 1;
}

/* Encodes record i of s as one RowBinary row into p->row. */
static int pushRow(Push *p, PTRACE_SESSION pSession, PTRACE_STORE s,
                   unsigned long long i){
  PushBuf *b = &p->row;
  ULONG k;
  if( !pushString(p, b, p->zHost, strlen(p->zHost))
   || !pushString(p, b, p->zSession, strlen(p->zSession))
   || !pushFixed(p, b, &i, 8) ){
    return 0;
  }
  for(k=0; k<s->Header->NumberOfColumns; k++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->Header->Columns[k];
    LONGLONG v;
    PCSZ z;
    ULONG n;
    int bNull;
    unsigned char cNull;
    if( !pushValue(p, pSession, s, c, i, &bNull, &v, &z, &n) ) return 0;
    if( pushNullable(c) ){
      cNull = (unsigned char)bNull;
      if( !pushFixed(p, b, &cNull, 1) ) return 0;
      if( bNull ) continue;
    }
    if( z ){
      if( !pushString(p, b, z, n) ) return 0;
    }else if( !pushFixed(p, b, &v, c->Width) ){
      return 0;
    }
  }
  return 1;
}

/*
** Adds record i of s to the Native block being encoded: each value to its
** column's buffer (a NULL as the type's zero, and 1 in the null map).
*/
static int pushNativeRow(Push *p, PTRACE_SESSION pSession, PTRACE_STORE s,
                         unsigned long long i){
  ULONG k;
  if( !pushString(p, &p->aCol[0], p->zHost, strlen(p->zHost))
   || !pushString(p, &p->aCol[1], p->zSession, strlen(p->zSession))
   || !pushFixed(p, &p->aCol[2], &i, 8) ){
    return 0;
  }
  for(k=0; k<s->Header->NumberOfColumns; k++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->Header->Columns[k];
    PushBuf *b = &p->aCol[3+k];
    LONGLONG v;
    PCSZ z;
    ULONG n;
    int bNull;
    unsigned char cNull;
    if( !pushValue(p, pSession, s, c, i, &bNull, &v, &z, &n) ) return 0;
    if( pushNullable(c) ){
      cNull = (unsigned char)bNull;
      if( !pushFixed(p, &p->aNull[k], &cNull, 1) ) return 0;
    }
    if( c->Flags & TRACE_COLUMN_STRING_ID ){
      if( !pushString(p, b, z ? z : "", n) ) return 0;
    }else if( !pushFixed(p, b, &v, c->Width) ){
      return 0;
    }
  }
  return 1;
}

/* A column's header in a Native block: name and type as Strings. */
static int pushNativeColumn(Push *p, const char *zName, const char *zType){
  return pushString(p, &p->head, zName, strlen(zName))
      && pushString(p, &p->head, zType, strlen(zType));
}

/*
** Sends the Native block of nRows rows encoded so far (block header, then
** per column its header, null map and values) and empties the buffers.
** NativeBlockInputStream over HTTP reads no block info (revision 0).
*/
static int pushNativeFlush(Push *p, PTRACE_STORE s, unsigned long long nRows,
                           HttpStream *pStream, unsigned long long *pnSent){
  ULONG nCol = s->Header->NumberOfColumns, k;
  unsigned char a[10];
  unsigned long long v;
  int j;
  static const char *const azOurs[3] = { "host", "session", "id" };
  static const char *const azOurType[3] = { "String", "String", "UInt64" };

  p->head.n = 0;
  for(j=0; j<2; j++){
    size_t n = 0;
    v = j==0 ? nCol + 3 : nRows;
    do{ a[n] = (unsigned char)(v & 0x7f); v >>= 7; a[n++] |= v ? 0x80 : 0; }
    while( v );
    if( !pushFixed(p, &p->head, a, n) ) return 0;
  }
  for(k=0; k<nCol+3; k++){
    char zName[TRACE_NAME_SIZE+1];
    char zType[64];
    PushBuf *pNull = 0;
    if( k<3 ){
      if( !pushNativeColumn(p, azOurs[k], azOurType[k]) ) return 0;
    }else{
      PCTRACE_COLUMN_DESCRIPTOR c = &s->Header->Columns[k-3];
      memcpy(zName, c->Name, TRACE_NAME_SIZE);
      zName[TRACE_NAME_SIZE] = 0;
      pushColumnType(p, c, zType);
      if( !pushNativeColumn(p, zName, zType) ) return 0;
      if( pushNullable(c) ) pNull = &p->aNull[k-3];
    }
    if( httpStreamWrite(pStream, p->head.a, p->head.n)!=0
     || (pNull && httpStreamWrite(pStream, pNull->a, pNull->n)!=0)
     || httpStreamWrite(pStream, p->aCol[k].a, p->aCol[k].n)!=0 ){
      return -1;
    }
    *pnSent += p->head.n + p->aCol[k].n + (pNull ? pNull->n : 0);
    p->head.n = 0;
    p->aCol[k].n = 0;
    if( pNull ) pNull->n = 0;
  }
  return 1;
}

/* Empties the encoding buffers (keeping their memory). */
static void pushClear(Push *p){
  int k;
  p->row.n = 0;
  p->head.n = 0;
  for(k=0; k<3+TRACE_STORE_MAX_COLUMNS; k++) p->aCol[k].n = 0;
  for(k=0; k<TRACE_STORE_MAX_COLUMNS; k++) p->aNull[k].n = 0;
}

/* Frees the encoding buffers. */
static void pushFreeBuffers(Push *p){
  int k;
  free(p->row.a);
  free(p->head.a);
  for(k=0; k<3+TRACE_STORE_MAX_COLUMNS; k++) free(p->aCol[k].a);
  for(k=0; k<TRACE_STORE_MAX_COLUMNS; k++) free(p->aNull[k].a);
}

static void pushShowProgress(Push *p, const char *zStore,
                             unsigned long long iDone,
                             unsigned long long nTotal){
  double tNow = hostNowSeconds(), t = tNow - p->tStart;
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
/*
** Where the rows of s that can no longer change end, from i on, of the n
** committed: all n, but in the span store of a session a writer still
** holds, the first call still running (flags & 2 while the Python tracer
** runs: its dur grows at each commit; docs/python-tracer.md).  Push
** sends a row once; a later pass or run sends the rest when they settle.
*/
static unsigned long long pushSettled(Push *p, PTRACE_STORE s,
                                      unsigned long long i,
                                      unsigned long long n){
  PCTRACE_COLUMN_DESCRIPTOR c;
  LONGLONG v;
  if( !p->bLive || strcmp(s->Name, "span")!=0 ) return n;
  c = TraceStoreFindColumn(s->Header, "flags");
  if( c==0 ) return n;
  for(; i<n; i++){
    if( TraceStoreReadColumn(s, i, c, &v) && (v & 2)!=0 ) return i;
  }
  return n;
}

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
  n = pushSettled(p, s, *piDone, snap.RecordCount);
  if( strcmp(s->Name, "span")==0 ) p->nHeld = snap.RecordCount - n;
  snprintf(zInsert, sizeof(zInsert), "INSERT INTO `%s`.`%s` FORMAT %s",
           p->zDb, s->Name, p->bLowCardinality ? "RowBinary" : "Native");
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
    /* The body goes out as it is encoded, in Native blocks of
    ** PUSH_NATIVE_ROWS rows (RowBinary chunks of PUSH_CHUNK_BYTES where
    ** strings are LowCardinality): the server reads one while the next is
    ** made. */
    pushClear(p);
    for(; i<iEnd && bOk; i++){
      int bSend;
      if( p->bLowCardinality ){
        bOk = pushRow(p, pSession, s, i);
        bSend = p->row.n>=PUSH_CHUNK_BYTES;
      }else{
        bOk = pushNativeRow(p, pSession, s, i);
        bSend = i + 1 - iKept>=PUSH_NATIVE_ROWS;
      }
      if( !bOk || !(bSend || i+1==iEnd) ) continue;
      if( p->bLowCardinality ){
        if( httpStreamWrite(&stream, p->row.a, p->row.n)!=0 ) break;
        nSent += p->row.n;
        p->row.n = 0;
      }else{
        int rc = pushNativeFlush(p, s, i + 1 - iKept, &stream, &nSent);
        if( rc<0 ) break;
        bOk = rc;
      }
      /* Sent: let the kernel drop these records from the resident set
      ** (a push's memory is its buffers, whatever the store's size; the
      ** records are read again only by a later run). */
      Rtl.DiscardMemory(&Rtl, s->Base + iKept * s->RecordSize,
                        (SIZE_T)((i + 1 - iKept) * s->RecordSize));
      iKept = i + 1;
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
  PTRACE_SESSION pSession = hostNewSession();
  double tEnd = hostNowSeconds() + p->url.nTimeoutMs/1000.0;
  RTL_ERROR err;
  for(;;){
    memset(&err, 0, sizeof(err));
    if( RTL_SUCCESS(TraceSessionOpenReader(&Rtl, p->zSessionPath, pSession,
                                           &err)) ){
      return pSession;
    }
    if( !p->bFollow || !hostWriterRuns(p->zSessionPath)
     || hostNowSeconds()>tEnd ){
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
  PTRACE_SESSION pSession;
  ULONG i;
  int j, rc = 1;

  /* Asked before the snapshots: a writer gone after it only holds back
  ** rows that a later pass sends. */
  p->bLive = hostWriterRuns(p->zSessionPath);
  pSession = pushOpen(p);

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
      hostFail("push: %s needs a value", z);
      return 2;
    }else if( strcmp(z, "--batch")==0 ){
      char *zEnd;
      unsigned long n = strtoul(argv[++i], &zEnd, 10);
      if( *zEnd || argv[i][0]=='-' || n<1 || n>PUSH_MAX_BATCH_ROWS ){
        hostFail("--batch: '%s' is not a number of rows from 1 to %u",
                argv[i], PUSH_MAX_BATCH_ROWS);
        return 2;
      }
      p->nBatch = (unsigned)n;
    }else if( strcmp(z, "--timeout")==0 ){
      char *zEnd;
      *prTimeout = strtod(argv[++i], &zEnd);
      if( *zEnd || !(*prTimeout>0 && *prTimeout<86400) ){
        hostFail("--timeout: '%s' is not a number of seconds", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--host")==0 ){
      *pzHost = argv[++i];
    }else if( strcmp(z, "--session")==0 ){
      *pzSession = argv[++i];
    }else if( z[0]=='-' && z[1] ){
      hostFail("push: unknown option '%s'", z);
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
  double tEnd = hostNowSeconds() + p->url.nTimeoutMs/1000.0;
  if( zHost ){
    snprintf(p->zHost, sizeof(p->zHost), "%s", zHost);
  }else{
    /* With --follow, a writer that has opened the session but not named
    ** its host yet (it does so right after opening, and the open's sync
    ** can take a while) is waited for: its rows would otherwise go out
    ** as host 'unknown' for good (fleet.follow's intermittent failure). */
    for(;;){
      pSession = pushOpen(p);
      if( pSession==0 ){
        hostFail("%s", p->zErr);
        return 0;
      }
      if( pSession->Header.Host.HostName[0] || !p->bFollow
       || !hostWriterRuns(p->zSessionPath) || hostNowSeconds()>tEnd ){
        break;
      }
      TraceSessionClose(pSession);
      free(pSession);
      usleep(20*1000);
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
  if( p==0 ){ hostFail("out of memory"); return 1; }
  p->nBatch = PUSH_MAX_BATCH_ROWS;
  rc = pushOptions(p, argc, argv, &bFollow, &zUrl, &zHost, &zSession,
                   &rTimeout);
  if( rc>=0 ){ free(p); return rc; }
  if( !httpParseUrl(zUrl, &p->url, p->zErr, sizeof(p->zErr)) ){
    hostFail("push: %s", p->zErr);
    free(p);
    return 2;
  }
  p->url.nTimeoutMs = (int)(rTimeout*1000);
  pushSplitQuery(p);
  if( strchr(p->zDb, '`') || strchr(p->zDb, '%') ){
    hostFail("push: database name '%s' is not supported", p->zDb);
    free(p);
    return 2;
  }
  p->bFollow = bFollow;
  if( !pushIdentity(p, zHost, zSession) ){ free(p); return 1; }
  signal(SIGPIPE, SIG_IGN);
  p->bProgress = isatty(2);
  p->tStart = hostNowSeconds();
  memset(aDone, 0, sizeof(aDone));

  rc = pushPrepareServer(p);
  while( rc ){
    /* Whether the writer ran before this pass: if not, this pass sees
    ** everything it committed, and is the last. */
    int bRuns = bFollow && hostWriterRuns(p->zSessionPath);
    rc = pushPass(p, aDone, &nDone);
    if( !rc || !bRuns ) break;
    usleep(200*1000);
  }
  if( rc ) rc = pushVerify(p, aDone, nDone);
  if( rc && p->nHeld ){
    fprintf(stderr, "tracestore: push: %llu span rows held back: calls "
            "still running (their dur grows) and the rows after them; push "
            "again once the program has ended\n", p->nHeld);
  }
  if( p->bProgress ) fprintf(stderr, "\r\033[K");
  if( !rc ){
    hostFail("push: %s", p->zErr);
    fprintf(stderr, "tracestore: push: %llu rows sent by this run are kept; "
            "run push again to continue\n", p->nRows);
  }else{
    double t = hostNowSeconds() - p->tStart;
    fprintf(stderr, "%s: %llu rows (%.1f MB) pushed to %s:%s database %s "
            "as host '%s' session '%s' in %.2f s\n", p->zSessionPath,
            p->nRows, p->nBytes/1e6, p->url.zHost, p->url.zPort, p->zDb,
            p->zHost, p->zSession, t);
  }
  pushFreeBuffers(p);
  free(p);
  return rc ? 0 : 1;
}
