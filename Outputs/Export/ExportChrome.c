/*
** ExportChrome.c: a session as one Chrome trace-event JSON object, the
** file chrome://tracing and Perfetto UI open (`tracestore export`).
**
** Zone: hosted (Outputs/Export/, an output): libc.  Owns the mapping of
** stores to trace events and the JSON text.  Reads the session through
** the store API only (TraceStore/TraceStore.h: records at Base, columns
** found by name in each store's descriptors, strings by id), merges the
** stores in ts order with Readers/Import/TimeMerge.h, and escapes text
** with hostJsonEscape (HostUtil.c).  Called by CmdExport.c.
**
** How it works: every store is read as its snapshot at open (a session
** being written exports a consistent prefix of each store).  Each exported
** store is one stream of rows in ts order (a store not flagged sorted is
** ordered through an index of its rows: 16 bytes a row, the one case where
** memory grows with the input); a k-way merge takes the earliest row and
** writes it as one event per line:
**
**   span          X with "dur", "cat" and "args" (the stored JSON object
**                 as it is when it is one, else {"args": TEXT}); instants
**                 (flag 4) as I (the phase Chrome writes: DevTools' trace
**                 engine drops "i").  Nesting is Chrome's: by ts and dur
**                 on a thread, as stored.  A span crossing the window is
**                 cut to it.
**   kvm_exit      X "kvm exited" on the vcpu thread, the exit's columns
**                 as args; without an entry it runs to the window's end.
**   ftrace_event  I (thread scope) named by the event, its columns as
**                 args (the printed field text under "args").
**   page_fault    I, every column as args (address, ip, module, ...,
**                 and "hard"/"fault" when the store has a `hard` column).
**   sched_switch  per-CPU slices of the running task: X from the switch
**                 to it to the next switch on that CPU (or the window's
**                 end), named by its comm (or "tid N"), written when it
**                 ends, on thread "CPU n" of the process "CPUs"; the idle
**                 task (pid 0) has no slice, nor the task running before
**                 a CPU's first switch (its start is unknown).
**   counter       C, one track per name ("NAME cpuN" for a per-CPU
**                 counter), args {"value": V}.
**
** M events name every process and thread: first those of the process and
** thread stores, then each one an event meets that is not named yet.
** Columns are read by name, so a column a store lacks is skipped and one
** it gains (page_fault's `hard`) appears in args by itself.  ts and dur
** are microseconds with three decimals, the ns exactly; ts count from
** the first event of the exported stores (otherData.origin_ns, in the
** session's clock), so that a reader parsing numbers as doubles keeps
** every ns (an absolute ETW or realtime ts is ~1.6e15 us, past 2^53 ns
** precision); 64-bit values a double cannot hold (addresses) are hex
** strings.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Export/Export.h"
#include "Readers/Text/Json.h"
#include "Readers/Import/TimeMerge.h"
#include "TraceStore/TraceSchema.h"

const char zExportStoreNames[] =
  "span, kvm_exit, ftrace_event, page_fault, sched_switch, counter";

static const char *const azStore[] = {
  "span", "kvm_exit", "ftrace_event", "page_fault", "sched_switch", "counter"
};
#define N_KIND 6
enum { K_SPAN, K_KVM, K_FTRACE, K_FAULT, K_SCHED, K_COUNTER };

unsigned exportStoreBit(const char *zName){
  int i;
  for(i=0; i<N_KIND; i++){
    if( strcmp(zName, azStore[i])==0 ) return 1u<<i;
  }
  return 0;
}

/*
** ---------------------------------------------------------------------------
** Columns, read by name from a store's descriptors.
** ---------------------------------------------------------------------------
*/
typedef struct Col {
  PCTRACE_COLUMN_DESCRIPTOR p;   /* 0 if the store has no such column */
} Col;

static Col colFind(PTRACE_STORE pStore, const char *zName){
  Col c;
  c.p = TraceStoreFindColumn(pStore->Header, zName);
  return c;
}

/* Column c of record pRec as a 64-bit integer; 0 if absent or NULL. */
static inline int colInt(const unsigned char *pRec,
                         PCTRACE_COLUMN_DESCRIPTOR p, long long *pv){
  const unsigned char *a;
  unsigned long long u = 0;
  if( p==0 ) return 0;
  a = pRec + p->Offset;
  switch( p->Width ){
    case 1: u = a[0]; break;
    case 2: { unsigned short x; memcpy(&x, a, 2); u = x; break; }
    case 4: { unsigned int x; memcpy(&x, a, 4); u = x; break; }
    case 8: memcpy(&u, a, 8); break;
    default: return 0;
  }
  if( (p->Flags & TRACE_COLUMN_NULLABLE)!=0 ){
    unsigned long long ones = p->Width==8 ? ~0ull : (1ull<<(p->Width*8))-1;
    if( u==ones ) return 0;
  }
  if( p->Type==TraceColumnInt32 ) u = (unsigned long long)(long long)(int)u;
  *pv = (long long)u;
  return 1;
}

static int colDouble(const unsigned char *pRec, PCTRACE_COLUMN_DESCRIPTOR p,
                     double *pr){
  long long v;
  if( p==0 || p->Type!=TraceColumnDouble ) return 0;
  if( !colInt(pRec, p, &v) ) return 0;
  memcpy(pr, &v, 8);
  return 1;
}

/*
** ---------------------------------------------------------------------------
** The output buffer.
** ---------------------------------------------------------------------------
*/
typedef struct Out {
  FILE *f;
  char *z;
  size_t n, nAlloc;
  unsigned long long nBytes;
  unsigned long long nEvents;
  int bErr;
} Out;

static void outFlush(Out *p){
  if( p->n && !p->bErr && fwrite(p->z, 1, p->n, p->f)!=p->n ) p->bErr = 1;
  p->nBytes += p->n;
  p->n = 0;
}

/* The buffer flushed, and grown to hold nNeed bytes if it cannot. */
static char *outRoomSlow(Out *p, size_t nNeed){
  outFlush(p);
  if( nNeed > p->nAlloc ){
    char *zNew = realloc(p->z, nNeed);
    if( zNew==0 ){ hostFail("out of memory"); exit(1); }
    p->z = zNew;
    p->nAlloc = nNeed;
  }
  return p->z + p->n;
}

/* Room for nNeed more bytes at p->z + p->n (inline: the hot path). */
static inline char *outRoom(Out *p, size_t nNeed){
  if( p->n + nNeed > p->nAlloc ) return outRoomSlow(p, nNeed);
  return p->z + p->n;
}

static inline void outMem(Out *p, const char *z, size_t n){
  memcpy(outRoom(p, n), z, n);
  p->n += n;
}
#define outLit(P, S) outMem((P), (S), sizeof(S)-1)

static void outStr(Out *p, const char *z){
  outMem(p, z, strlen(z));
}

/* u in decimal into the end of a[24]; returns where it starts. */
static inline int fmtU64(char *a, unsigned long long u){
  static const char zPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233"
    "34353637383940414243444546474849505152535455565758596061626364656667"
    "6869707172737475767778798081828384858687888990919293949596979899";
  int i = 24;
  while( u>=100 ){
    unsigned k = (unsigned)(u%100)*2;
    u /= 100;
    a[--i] = zPairs[k+1];
    a[--i] = zPairs[k];
  }
  if( u>=10 ){
    a[--i] = zPairs[u*2+1];
    a[--i] = zPairs[u*2];
  }else{
    a[--i] = (char)('0' + u);
  }
  return i;
}

static void outU64(Out *p, unsigned long long u){
  char a[24];
  int i = fmtU64(a, u);
  outMem(p, a+i, (size_t)(24-i));
}

static void outI64(Out *p, long long v){
  if( v<0 ){
    outLit(p, "-");
    outU64(p, 0ull - (unsigned long long)v);
  }else{
    outU64(p, (unsigned long long)v);
  }
}

/* ns as microseconds with exactly three decimals: no rounding. */
static void outMicros(Out *p, long long ns){
  unsigned long long u;
  char *z;
  unsigned r;
  if( ns<0 ){
    outLit(p, "-");
    u = 0ull - (unsigned long long)ns;
  }else{
    u = (unsigned long long)ns;
  }
  {
    char a[24];
    int i = fmtU64(a, u/1000);
    r = (unsigned)(u%1000);
    z = outRoom(p, 28);
    memcpy(z, a+i, (size_t)(24-i));
    z += 24-i;
    z[0] = '.';
    z[1] = (char)('0' + r/100);
    z[2] = (char)('0' + r/10%10);
    z[3] = (char)('0' + r%10);
    p->n += (size_t)(24-i) + 4;
  }
}

static void outHex(Out *p, unsigned long long u){
  char a[20];
  int i = 20;
  static const char zHex[] = "0123456789abcdef";
  do{ a[--i] = zHex[u&15]; u >>= 4; }while( u );
  a[--i] = 'x';
  a[--i] = '0';
  outLit(p, "\"");
  outMem(p, a+i, (size_t)(20-i));
  outLit(p, "\"");
}

/* A double as the shortest text that reads back as the same value. */
static void outDouble(Out *p, double r){
  char a[40];
  if( !isfinite(r) ){
    outLit(p, "null");
    return;
  }
  if( r>-9007199254740992.0 && r<9007199254740992.0
   && r==(double)(long long)r ){
    outI64(p, (long long)r);
    return;
  }
  snprintf(a, sizeof(a), "%.15g", r);
  if( strtod(a, 0)!=r ) snprintf(a, sizeof(a), "%.17g", r);
  outStr(p, a);
}

/* z[0..n) as a JSON string, quotes included. */
static void outJson(Out *p, const char *z, size_t n){
  char *zOut = outRoom(p, n*6 + 2);
  zOut[0] = '"';
  n = hostJsonEscape(zOut+1, (const unsigned char*)z, n);
  zOut[n+1] = '"';
  p->n += n + 2;
}

/*
** ---------------------------------------------------------------------------
** The export's state.
** ---------------------------------------------------------------------------
*/

/* Escaped strings of the first ids, quotes included, so that names and
** comms are looked up and escaped once. */
#define CACHE_IDS      65536
#define CACHE_MAX_LEN  256
#define CACHE_BYTES    (16u<<20)

typedef struct Stream {
  int eKind;
  PTRACE_STORE pStore;
  unsigned long long iPos, nPos;  /* next position, end */
  unsigned long long *aOrder;     /* rows in ts order (unsorted store) */
  Col ts, dur, name, pid, tid, cpu, comm, args, cat, flags, value;
  Col prevPid, nextPid, nextComm, nextPrio, prevState, hard;
  int aArg[TRACE_STORE_MAX_COLUMNS];  /* columns written as args */
  char azArgKey[TRACE_STORE_MAX_COLUMNS][TRACE_NAME_SIZE + 4];  /* "NAME": */
  unsigned char anArgKey[TRACE_STORE_MAX_COLUMNS];
  int nArg;
} Stream;

/* A CPU's sched slice, open from a switch to the next: written as one X
** event when it ends (its name the task's comm, or "tid N"). */
typedef struct CpuSlice {
  unsigned char bOpen;
  unsigned char bPrio;
  unsigned comm;
  long long tid;
  long long prio;
  long long start;
} CpuSlice;

typedef struct Export {
  PTRACE_SESSION pSession;
  Out out;
  Stream aStream[N_KIND];
  int nStream;
  long long iFrom, iTo;           /* the window, inclusive */
  long long iOrigin;              /* ts 0 of the file: the first event's */
  long long iEnd;                 /* where open things are closed */
  TRACE_HASH_TABLE named;         /* KEY_PROCESS of named processes */
  TRACE_HASH_TABLE namedThreads;  /* KEY_THREAD of named threads */
  TRACE_HASH_TABLE tidPid;        /* tid -> pid (thread store) */
  unsigned *aCacheOff;            /* id -> offset+1 in zCache, or 0 */
  char *zCache;
  size_t nCache;
  char zWhere[80];                /* outWhere's text for whereP, whereT */
  int nWhere, bWhere;
  unsigned whereP, whereT;
  unsigned namedP, namedT;        /* the last thread nameRow saw named */
  int bNamed;
  CpuSlice *aCpu;                 /* sched: each CPU's open slice */
  unsigned nCpu;
  int rc;
} Export;

static void exportFail(Export *p, const char *zFormat, ...)
  __attribute__((format(printf, 2, 3)));
static void exportFail(Export *p, const char *zFormat, ...){
  va_list ap;
  if( p->rc ) return;
  va_start(ap, zFormat);
  hostFailV("tracestore export", zFormat, ap);
  va_end(ap);
  p->rc = 1;
}

/* String id as a JSON string ("" for NULL). */
static void outId(Export *p, unsigned id){
  PCSZ z;
  ULONG n;
  if( id==TRACE_STRING_NULL ){
    outLit(&p->out, "\"\"");
    return;
  }
  if( id<CACHE_IDS && p->aCacheOff[id] ){
    const char *zc = p->zCache + p->aCacheOff[id] - 1;
    outMem(&p->out, zc+1, (unsigned char)zc[0]);
    return;
  }
  if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, id, &z, &n)) ){
    exportFail(p, "%s: string id %u does not exist (damaged session)",
               p->pSession->Path, id);
    outLit(&p->out, "\"\"");
    return;
  }
  if( id<CACHE_IDS && n<CACHE_MAX_LEN/6 - 1
   && p->nCache + CACHE_MAX_LEN <= CACHE_BYTES ){
    size_t nOut;
    char *zc = p->zCache + p->nCache;
    zc[1] = '"';
    nOut = hostJsonEscape(zc+2, (const unsigned char*)z, n);
    zc[nOut+2] = '"';
    zc[0] = (char)(nOut+2);
    p->aCacheOff[id] = (unsigned)p->nCache + 1;
    p->nCache += nOut + 3;
    outMem(&p->out, zc+1, nOut+2);
    return;
  }
  outJson(&p->out, z, n);
}

/* The text of a string id (for tests of content), or 0. */
static const char *idText(Export *p, unsigned id, ULONG *pn){
  PCSZ z;
  if( id==TRACE_STRING_NULL ) return 0;
  if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, id, &z, pn)) ){
    return 0;
  }
  return z;
}

/*
** ---------------------------------------------------------------------------
** Names of processes and threads (M events).
** ---------------------------------------------------------------------------
*/
/* Keys of p->named: a process (pid), a thread (pid, tid); never 0. */
#define KEY_PROCESS(pid)    ((unsigned long long)(pid) + 1)
#define KEY_THREAD(pid,tid) ((((unsigned long long)(pid)<<32) | (tid)) + 1)

static void eventStart(Export *p){
  if( p->out.nEvents ) outLit(&p->out, ",\n");
  p->out.nEvents++;
}

/*
** The M event naming a process (bThread 0) or thread, once: by string id
** nameId, or by zName when it is not 0.
*/
static void nameTrack(Export *p, int bThread, unsigned pid, unsigned tid,
                      unsigned nameId, const char *zName){
  TRACE_HASH_TABLE *pNamed = bThread ? &p->namedThreads : &p->named;
  unsigned long long key = bThread ? KEY_THREAD(pid, tid) : KEY_PROCESS(pid);
  if( TraceHashLookup(pNamed, key) ) return;
  if( !RTL_SUCCESS(TraceHashSet(pNamed, key, 1)) ){
    exportFail(p, "out of memory");
    return;
  }
  eventStart(p);
  outStr(&p->out, bThread ? "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":"
                          : "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
  outU64(&p->out, pid);
  outLit(&p->out, ",\"tid\":");
  outU64(&p->out, bThread ? tid : pid);
  outLit(&p->out, ",\"ts\":0,\"args\":{\"name\":");
  if( zName ){
    outJson(&p->out, zName, strlen(zName));
  }else{
    outId(p, nameId);
  }
  outLit(&p->out, "}}");
}

static void nameProcess(Export *p, unsigned pid, unsigned nameId,
                        const char *zName){
  nameTrack(p, 0, pid, 0, nameId, zName);
}

static void nameThread(Export *p, unsigned pid, unsigned tid,
                       unsigned nameId, const char *zName){
  nameTrack(p, 1, pid, tid, nameId, zName);
}

/* The pid of a row: its own, the thread store's, or the tid itself. */
static unsigned rowPid(Export *p, Stream *s, const unsigned char *pRec,
                       unsigned tid){
  long long v;
  PTRACE_HASH_ENTRY e;
  if( colInt(pRec, s->pid.p, &v) ) return (unsigned)v;
  e = TraceHashLookup(&p->tidPid, (unsigned long long)tid + 1);
  if( e ) return (unsigned)e->Value;
  return tid;
}

/* Names the process and thread of an event that has not been named. */
static void nameRow(Export *p, Stream *s, const unsigned char *pRec,
                    unsigned pid, unsigned tid){
  long long comm = TRACE_STRING_NULL;
  char zBuf[32];
  if( p->bNamed && pid==p->namedP && tid==p->namedT ) return;
  if( TraceHashLookup(&p->namedThreads, KEY_THREAD(pid, tid))
   && TraceHashLookup(&p->named, KEY_PROCESS(pid)) ){
    p->bNamed = 1;
    p->namedP = pid;
    p->namedT = tid;
    return;
  }
  colInt(pRec, s->comm.p, &comm);
  if( !TraceHashLookup(&p->named, KEY_PROCESS(pid)) ){
    if( pid==tid && comm!=TRACE_STRING_NULL ){
      nameProcess(p, pid, (unsigned)comm, 0);
    }else{
      snprintf(zBuf, sizeof(zBuf), "pid %u", pid);
      nameProcess(p, pid, 0, zBuf);
    }
  }
  if( comm!=TRACE_STRING_NULL ){
    nameThread(p, pid, tid, (unsigned)comm, 0);
  }else{
    snprintf(zBuf, sizeof(zBuf), "tid %u", tid);
    nameThread(p, pid, tid, 0, zBuf);
  }
}

/*
** The process and thread stores' names, each pid and tid once (its last
** row), before any event.
*/
static void nameFromStores(Export *p){
  PTRACE_STORE pProc = TraceSessionFindStore(p->pSession, "process");
  PTRACE_STORE pThread = TraceSessionFindStore(p->pSession, "thread");
  TRACE_HASH_TABLE last;
  unsigned long long i, n;
  long long pid, tid, name;

  if( !RTL_SUCCESS(TraceHashInitialize(&Rtl, &last)) ){
    exportFail(p, "out of memory");
    return;
  }
  if( pThread ){
    PCTRACE_COLUMN_DESCRIPTOR cTid = TraceStoreFindColumn(pThread->Header,
                                                          "tid");
    PCTRACE_COLUMN_DESCRIPTOR cPid = TraceStoreFindColumn(pThread->Header,
                                                          "pid");
    n = pThread->Snapshot.RecordCount;
    for(i=0; i<n; i++){
      const unsigned char *pRec = pThread->Base + i*pThread->RecordSize;
      if( !colInt(pRec, cTid, &tid) ) continue;
      TraceHashSet(&last, (unsigned long long)tid + 1, i);
      if( colInt(pRec, cPid, &pid) ){
        TraceHashSet(&p->tidPid, (unsigned long long)tid + 1,
                     (unsigned long long)pid);
      }
    }
  }
  if( pProc ){
    PCTRACE_COLUMN_DESCRIPTOR cPid = TraceStoreFindColumn(pProc->Header,
                                                          "pid");
    PCTRACE_COLUMN_DESCRIPTOR cName = TraceStoreFindColumn(pProc->Header,
                                                           "name");
    TRACE_HASH_TABLE lastProc;
    if( !RTL_SUCCESS(TraceHashInitialize(&Rtl, &lastProc)) ){
      exportFail(p, "out of memory");
      TraceHashDestroy(&last);
      return;
    }
    n = pProc->Snapshot.RecordCount;
    for(i=0; i<n; i++){
      const unsigned char *pRec = pProc->Base + i*pProc->RecordSize;
      if( colInt(pRec, cPid, &pid) ){
        TraceHashSet(&lastProc, (unsigned long long)pid + 1, i);
      }
    }
    for(i=0; i<n; i++){
      const unsigned char *pRec = pProc->Base + i*pProc->RecordSize;
      PTRACE_HASH_ENTRY e;
      if( !colInt(pRec, cPid, &pid) ) continue;
      e = TraceHashLookup(&lastProc, (unsigned long long)pid + 1);
      if( e==0 || e->Value!=i || !colInt(pRec, cName, &name) ) continue;
      nameProcess(p, (unsigned)pid, (unsigned)name, 0);
    }
    TraceHashDestroy(&lastProc);
  }
  if( pThread ){
    PCTRACE_COLUMN_DESCRIPTOR cTid = TraceStoreFindColumn(pThread->Header,
                                                          "tid");
    PCTRACE_COLUMN_DESCRIPTOR cComm = TraceStoreFindColumn(pThread->Header,
                                                           "comm");
    n = pThread->Snapshot.RecordCount;
    for(i=0; i<n; i++){
      const unsigned char *pRec = pThread->Base + i*pThread->RecordSize;
      PTRACE_HASH_ENTRY e;
      unsigned uPid;
      if( !colInt(pRec, cTid, &tid) ) continue;
      e = TraceHashLookup(&last, (unsigned long long)tid + 1);
      if( e==0 || e->Value!=i ) continue;
      e = TraceHashLookup(&p->tidPid, (unsigned long long)tid + 1);
      uPid = e ? (unsigned)e->Value : (unsigned)tid;
      if( uPid==(unsigned)tid && colInt(pRec, cComm, &name) ){
        nameProcess(p, uPid, (unsigned)name, 0);
      }
      if( colInt(pRec, cComm, &name) ){
        nameThread(p, uPid, (unsigned)tid, (unsigned)name, 0);
      }
    }
  }
  TraceHashDestroy(&last);
}

/*
** ---------------------------------------------------------------------------
** Args: every column of a row but those the event itself carries.
** ---------------------------------------------------------------------------
*/
static void outColumnValue(Export *p, const unsigned char *pRec,
                           PCTRACE_COLUMN_DESCRIPTOR c){
  long long v = 0;
  double r;
  if( c->Type==TraceColumnDouble ){
    colDouble(pRec, c, &r);
    outDouble(&p->out, r);
  }else if( c->Flags & TRACE_COLUMN_STRING_ID ){
    colInt(pRec, c, &v);
    outId(p, (unsigned)v);
  }else{
    colInt(pRec, c, &v);
    if( c->Flags & TRACE_COLUMN_ADDRESS ){
      outHex(&p->out, (unsigned long long)v);
    }else if( c->Type==TraceColumnUInt64
           && (unsigned long long)v >= (1ull<<53) ){
      outHex(&p->out, (unsigned long long)v);
    }else if( c->Type==TraceColumnInt64 && (v>=(1ll<<53) || v<=-(1ll<<53)) ){
      outLit(&p->out, "\"");
      outI64(&p->out, v);
      outLit(&p->out, "\"");
    }else{
      outI64(&p->out, v);
    }
  }
}

/* ,"args":{...} of the columns in s->aArg that are not NULL. */
static void outArgs(Export *p, Stream *s, const unsigned char *pRec){
  int i, bFirst = 1;
  long long v;
  outLit(&p->out, ",\"args\":{");
  for(i=0; i<s->nArg; i++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->pStore->Header->Columns[s->aArg[i]];
    if( !colInt(pRec, c, &v) ) continue;
    if( !bFirst ) outLit(&p->out, ",");
    bFirst = 0;
    outMem(&p->out, s->azArgKey[i], s->anArgKey[i]);
    outColumnValue(p, pRec, c);
  }
  if( s->hard.p && colInt(pRec, s->hard.p, &v) ){
    if( !bFirst ) outLit(&p->out, ",");
    outStr(&p->out, v ? "\"fault\":\"hard\"" : "\"fault\":\"soft\"");
  }
  outLit(&p->out, "}");
}

/* The columns of s's store written as args: all but those in azSkip. */
static void pickArgs(Stream *s, const char *const *azSkip){
  PTRACE_STORE_HEADER h = s->pStore->Header;
  unsigned i;
  int k, bSkip;
  s->nArg = 0;
  for(i=0; i<h->NumberOfColumns; i++){
    bSkip = 0;
    for(k=0; azSkip[k]; k++){
      if( strcmp(h->Columns[i].Name, azSkip[k])==0 ) bSkip = 1;
    }
    if( !bSkip ){
      size_t n = strlen(h->Columns[i].Name);
      if( n>=TRACE_NAME_SIZE ) n = TRACE_NAME_SIZE - 1;
      s->azArgKey[s->nArg][0] = '"';
      memcpy(s->azArgKey[s->nArg]+1, h->Columns[i].Name, n);
      memcpy(s->azArgKey[s->nArg]+1+n, "\":", 2);
      s->anArgKey[s->nArg] = (unsigned char)(n + 3);
      s->aArg[s->nArg++] = (int)i;
    }
  }
}

/*
** ---------------------------------------------------------------------------
** One event per row.
** ---------------------------------------------------------------------------
*/

/* ,"pid":P,"tid":T,"ts":TS (the text before TS kept for the next
** event of the same thread). */
static void outWhere(Export *p, unsigned pid, unsigned tid, long long ts){
  if( !p->bWhere || pid!=p->whereP || tid!=p->whereT ){
    char a[24];
    int i, n = 0;
    memcpy(p->zWhere, ",\"pid\":", 7); n = 7;
    i = fmtU64(a, pid); memcpy(p->zWhere+n, a+i, (size_t)(24-i)); n += 24-i;
    memcpy(p->zWhere+n, ",\"tid\":", 7); n += 7;
    i = fmtU64(a, tid); memcpy(p->zWhere+n, a+i, (size_t)(24-i)); n += 24-i;
    memcpy(p->zWhere+n, ",\"ts\":", 6); n += 6;
    p->nWhere = n;
    p->whereP = pid;
    p->whereT = tid;
    p->bWhere = 1;
  }
  outMem(&p->out, p->zWhere, p->nWhere);
  outMicros(&p->out, ts - p->iOrigin);
}

/*
** A span's args: the stored text as it is when it is a JSON object of
** printable ASCII (what Chrome and uftrace write; the import checked its
** syntax, checked again here), else the text as one string.
*/
static void outSpanArgs(Export *p, unsigned id){
  ULONG n, i;
  const char *z = idText(p, id, &n);
  JSON_ERROR err;
  if( z==0 ) return;
  outLit(&p->out, ",\"args\":");
  for(i=0; i<n && z[i]>=0x20 && z[i]<0x7f; i++){}
  if( i==n && n>=2 && z[0]=='{' ){
    PCSZ zEnd = JsonSkipValue(z, z+n, &err);
    if( zEnd==z+n ){
      outMem(&p->out, z, n);
      return;
    }
  }
  outLit(&p->out, "{\"args\":");
  outJson(&p->out, z, n);
  outLit(&p->out, "}");
}

static void writeSpan(Export *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, dur = 0, flags = 0, tid = 0, name, v, end;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->dur.p, &dur);
  colInt(pRec, s->flags.p, &flags);
  colInt(pRec, s->tid.p, &tid);
  end = ts + (dur>0 ? dur : 0);
  if( ts<p->iFrom ) ts = p->iFrom;
  if( end>p->iTo ) end = p->iTo;
  pid = rowPid(p, s, pRec, (unsigned)tid);
  nameRow(p, s, pRec, pid, (unsigned)tid);
  eventStart(p);
  if( flags & SPAN_FLAG_INSTANT ){
    outLit(&p->out, "{\"ph\":\"I\",\"s\":\"t\",\"name\":");
  }else{
    outLit(&p->out, "{\"ph\":\"X\",\"name\":");
  }
  if( colInt(pRec, s->name.p, &name) ){
    outId(p, (unsigned)name);
  }else{
    outLit(&p->out, "\"\"");
  }
  if( colInt(pRec, s->cat.p, &v) ){
    outLit(&p->out, ",\"cat\":");
    outId(p, (unsigned)v);
  }
  outWhere(p, pid, (unsigned)tid, ts);
  if( !(flags & SPAN_FLAG_INSTANT) ){
    outLit(&p->out, ",\"dur\":");
    outMicros(&p->out, end-ts);
  }
  if( colInt(pRec, s->args.p, &v) ) outSpanArgs(p, (unsigned)v);
  outLit(&p->out, "}");
}

static void writeKvmExit(Export *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, dur, tid = 0, end;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->tid.p, &tid);
  end = colInt(pRec, s->dur.p, &dur) ? ts + dur : p->iEnd;
  if( end>p->iTo ) end = p->iTo;
  if( end<ts ) end = ts;
  pid = rowPid(p, s, pRec, (unsigned)tid);
  nameRow(p, s, pRec, pid, (unsigned)tid);
  eventStart(p);
  outLit(&p->out, "{\"ph\":\"X\",\"name\":\"kvm exited\",\"cat\":\"kvm\"");
  outWhere(p, pid, (unsigned)tid, ts);
  outLit(&p->out, ",\"dur\":");
  outMicros(&p->out, end-ts);
  outArgs(p, s, pRec);
  outLit(&p->out, "}");
}

/* ftrace_event and page_fault rows: instants on their thread. */
static void writeInstant(Export *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, tid = 0, name;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->tid.p, &tid);
  pid = rowPid(p, s, pRec, (unsigned)tid);
  nameRow(p, s, pRec, pid, (unsigned)tid);
  eventStart(p);
  outLit(&p->out, "{\"ph\":\"I\",\"s\":\"t\",\"name\":");
  if( colInt(pRec, s->name.p, &name) ){
    outId(p, (unsigned)name);
  }else{
    outStr(&p->out, s->eKind==K_FAULT ? "\"page_fault\"" : "\"\"");
  }
  outStr(&p->out, s->eKind==K_FAULT ? ",\"cat\":\"page_fault\""
                                    : ",\"cat\":\"ftrace\"");
  outWhere(p, pid, (unsigned)tid, ts);
  outArgs(p, s, pRec);
  outLit(&p->out, "}");
}

static void writeCounter(Export *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, name, cpu, v;
  double r;
  unsigned pid;
  ULONG n;
  const char *z;
  if( !colDouble(pRec, s->value.p, &r) || !isfinite(r) ) return;
  colInt(pRec, s->ts.p, &ts);
  if( colInt(pRec, s->pid.p, &v) ){
    pid = (unsigned)v;
    nameRow(p, s, pRec, pid, pid);
  }else{
    pid = EXPORT_COUNTER_PID;
    nameProcess(p, pid, 0, "counters");
  }
  eventStart(p);
  outLit(&p->out, "{\"ph\":\"C\",\"name\":");
  if( !colInt(pRec, s->name.p, &name) ) name = TRACE_STRING_NULL;
  if( colInt(pRec, s->cpu.p, &cpu) ){
    char zCpu[24];
    char *zName;
    z = idText(p, (unsigned)name, &n);
    if( z==0 ){ z = ""; n = 0; }
    snprintf(zCpu, sizeof(zCpu), " cpu%lld", cpu);
    zName = malloc(n + sizeof(zCpu));
    if( zName==0 ){ hostFail("out of memory"); exit(1); }
    memcpy(zName, z, n);
    strcpy(zName+n, zCpu);
    outJson(&p->out, zName, strlen(zName));
    free(zName);
  }else{
    outId(p, (unsigned)name);
  }
  outLit(&p->out, ",\"pid\":");
  outU64(&p->out, pid);
  outLit(&p->out, ",\"ts\":");
  outMicros(&p->out, ts - p->iOrigin);
  outLit(&p->out, ",\"args\":{\"value\":");
  outDouble(&p->out, r);
  outLit(&p->out, "}}");
}

/* "name": the task's comm, else "tid N". */
static void outSliceName(Export *p, const CpuSlice *pSlice){
  outLit(&p->out, ",\"name\":");
  if( pSlice->comm!=TRACE_STRING_NULL ){
    outId(p, pSlice->comm);
  }else{
    char zName[32];
    snprintf(zName, sizeof(zName), "tid %lld", pSlice->tid);
    outJson(&p->out, zName, strlen(zName));
  }
}

/* The slice of the task that ran on cpu until ts, as an X event: written
** when it ends, at its start ts (viewers order events by ts; B/E pairs on
** the CPU tracks lose their pairing in DevTools' trace engine, which
** matches an E to the latest B of any thread). */
static void cpuEnd(Export *p, unsigned cpu, long long ts, long long state){
  CpuSlice *pSlice = &p->aCpu[cpu];
  eventStart(p);
  outLit(&p->out, "{\"ph\":\"X\"");
  outSliceName(p, pSlice);
  outLit(&p->out, ",\"cat\":\"sched\"");
  outWhere(p, EXPORT_CPU_PID, EXPORT_CPU_TID(cpu), pSlice->start);
  outLit(&p->out, ",\"dur\":");
  outMicros(&p->out, ts - pSlice->start);
  outLit(&p->out, ",\"args\":{\"tid\":");
  outI64(&p->out, pSlice->tid);
  if( pSlice->bPrio ){
    outLit(&p->out, ",\"prio\":");
    outI64(&p->out, pSlice->prio);
  }
  if( state!=TRACE_STRING_NULL ){
    outLit(&p->out, ",\"end_state\":");
    outId(p, (unsigned)state);
  }
  outLit(&p->out, "}}");
  pSlice->bOpen = 0;
}

static void writeSched(Export *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, cpu, next = 0, comm = TRACE_STRING_NULL;
  long long state = TRACE_STRING_NULL;
  char zName[32];
  CpuSlice *pSlice;
  if( !colInt(pRec, s->cpu.p, &cpu) || cpu<0 || cpu>=65536 ) return;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->nextPid.p, &next);
  colInt(pRec, s->prevState.p, &state);
  if( (unsigned)cpu>=p->nCpu ){
    unsigned nNew = (unsigned)cpu + 64;
    CpuSlice *aNew = realloc(p->aCpu, nNew*sizeof(CpuSlice));
    if( aNew==0 ){ hostFail("out of memory"); exit(1); }
    memset(aNew + p->nCpu, 0, (nNew - p->nCpu)*sizeof(CpuSlice));
    p->aCpu = aNew;
    p->nCpu = nNew;
  }
  if( p->aCpu[cpu].bOpen ) cpuEnd(p, (unsigned)cpu, ts, state);
  if( next==0 ) return;
  nameProcess(p, EXPORT_CPU_PID, 0, "CPUs (sched_switch)");
  snprintf(zName, sizeof(zName), "CPU %lld", cpu);
  nameThread(p, EXPORT_CPU_PID, EXPORT_CPU_TID(cpu), 0, zName);
  pSlice = &p->aCpu[cpu];
  colInt(pRec, s->nextComm.p, &comm);
  pSlice->comm = (unsigned)comm;
  pSlice->tid = next;
  pSlice->bPrio = (unsigned char)colInt(pRec, s->nextPrio.p, &pSlice->prio);
  pSlice->start = ts;
  pSlice->bOpen = 1;
}

/*
** ---------------------------------------------------------------------------
** Streams: each store's rows in ts order, inside the window.
** ---------------------------------------------------------------------------
*/
typedef struct TsRow {
  long long ts;
  unsigned long long row;
} TsRow;

static int tsRowCompare(const void *a, const void *b){
  const TsRow *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->row<y->row ? -1 : x->row>y->row;
}

static const unsigned char *streamRecord(Stream *s){
  unsigned long long row = s->aOrder ? s->aOrder[s->iPos] : s->iPos;
  return s->pStore->Base + row*s->pStore->RecordSize;
}

/*
** The ts at which the next row of s is written (a span cut to the window
** starts at its start), skipping rows outside the window; 0 at the end.
*/
static int streamPeek(Export *p, Stream *s, long long *pTs){
  while( s->iPos<s->nPos ){
    const unsigned char *pRec = streamRecord(s);
    long long ts = 0, dur = 0;
    colInt(pRec, s->ts.p, &ts);
    if( ts>p->iTo ){
      s->iPos = s->nPos;
      return 0;
    }
    if( s->eKind==K_SPAN ){
      colInt(pRec, s->dur.p, &dur);
      if( ts + (dur>0 ? dur : 0) < p->iFrom ){ s->iPos++; continue; }
      if( ts<p->iFrom ) ts = p->iFrom;
    }else if( ts<p->iFrom ){
      s->iPos++;
      continue;
    }
    *pTs = ts;
    return 1;
  }
  return 0;
}

/* The first row of a sorted store with ts >= iFrom (binary search). */
static unsigned long long firstAtOrAfter(Stream *s, long long iFrom){
  unsigned long long lo = 0, hi = s->nPos;
  while( lo<hi ){
    unsigned long long mid = lo + (hi-lo)/2;
    long long ts = 0;
    colInt(s->pStore->Base + mid*s->pStore->RecordSize, s->ts.p, &ts);
    if( ts<iFrom ) lo = mid+1; else hi = mid;
  }
  return lo;
}

static int streamOpen(Export *p, int eKind, PTRACE_STORE pStore, Stream *s){
  static const char *const azSkipSpan[] = { 0 };
  static const char *const azSkipKvm[] = { "ts", "dur", "tid", "pid", 0 };
  static const char *const azSkipEvent[] = { "ts", "name", "tid", "pid", 0 };
  int bSorted = (pStore->Snapshot.Flags & TRACE_SLOT_SORTED)!=0;

  memset(s, 0, sizeof(*s));
  s->eKind = eKind;
  s->pStore = pStore;
  s->nPos = pStore->Snapshot.RecordCount;
  s->ts = colFind(pStore, "ts");
  if( s->ts.p==0 ){
    exportFail(p, "%s: store %s has no ts column", p->pSession->Path,
               pStore->Name);
    return 1;
  }
  s->dur = colFind(pStore, "dur");
  s->name = colFind(pStore, "name");
  s->pid = colFind(pStore, "pid");
  s->tid = colFind(pStore, "tid");
  s->cpu = colFind(pStore, "cpu");
  s->comm = colFind(pStore, "comm");
  s->args = colFind(pStore, "args");
  s->cat = colFind(pStore, "cat");
  s->flags = colFind(pStore, "flags");
  s->value = colFind(pStore, "value");
  s->nextPid = colFind(pStore, "next_pid");
  s->nextComm = colFind(pStore, "next_comm");
  s->nextPrio = colFind(pStore, "next_prio");
  s->prevState = colFind(pStore, "prev_state");
  s->hard = colFind(pStore, "hard");
  if( eKind==K_KVM ){
    pickArgs(s, azSkipKvm);
  }else if( eKind==K_FTRACE || eKind==K_FAULT ){
    pickArgs(s, azSkipEvent);
  }else{
    pickArgs(s, azSkipSpan);
    s->nArg = 0;
  }

  if( !bSorted ){
    unsigned long long i, n = 0;
    TsRow *a = malloc(sizeof(TsRow)*(s->nPos ? s->nPos : 1));
    if( a==0 ){
      exportFail(p, "out of memory ordering store %s (%llu rows)",
                 pStore->Name, s->nPos);
      return 1;
    }
    for(i=0; i<s->nPos; i++){
      long long ts = 0, dur = 0;
      const unsigned char *pRec = pStore->Base + i*pStore->RecordSize;
      colInt(pRec, s->ts.p, &ts);
      if( eKind==K_SPAN ){
        colInt(pRec, s->dur.p, &dur);
        if( ts + (dur>0 ? dur : 0) < p->iFrom ) continue;
        if( ts<p->iFrom ) ts = p->iFrom;
      }else if( ts<p->iFrom ){
        continue;
      }
      if( ts>p->iTo ) continue;
      a[n].ts = ts;
      a[n].row = i;
      n++;
    }
    qsort(a, n, sizeof(TsRow), tsRowCompare);
    s->aOrder = (unsigned long long*)a;
    for(i=0; i<n; i++) s->aOrder[i] = a[i].row;
    s->nPos = n;
  }else if( eKind!=K_SPAN ){
    s->iPos = firstAtOrAfter(s, p->iFrom);
  }
  return 0;
}

static void writeRow(Export *p, Stream *s){
  const unsigned char *pRec = streamRecord(s);
  switch( s->eKind ){
    case K_SPAN:    writeSpan(p, s, pRec); break;
    case K_KVM:     writeKvmExit(p, s, pRec); break;
    case K_FTRACE:
    case K_FAULT:   writeInstant(p, s, pRec); break;
    case K_SCHED:   writeSched(p, s, pRec); break;
    case K_COUNTER: writeCounter(p, s, pRec); break;
  }
}

/*
** ---------------------------------------------------------------------------
** --window kvm: from the first KVM event (a kvm_exit row, or an event
** named kvm_*) to the last event of the trace it came from (the source
** row whose time span holds it), which is merge.py's -F window: its first
** event after the lines without "kvm_", and its last event.
** ---------------------------------------------------------------------------
*/
static int isKvmName(Export *p, TRACE_HASH_TABLE *pSeen, unsigned id){
  PTRACE_HASH_ENTRY e = TraceHashLookup(pSeen, (unsigned long long)id + 1);
  ULONG n;
  const char *z;
  if( e ) return (int)e->Value;
  z = idText(p, id, &n);
  TraceHashSet(pSeen, (unsigned long long)id + 1,
               z && n>=4 && memcmp(z, "kvm_", 4)==0);
  return z && n>=4 && memcmp(z, "kvm_", 4)==0;
}

static int kvmWindow(Export *p, long long *pFirst, long long *pLast){
  long long iFirst = 0x7fffffffffffffffLL, iLast = -0x7fffffffffffffffLL;
  PTRACE_STORE pKvm = TraceSessionFindStore(p->pSession, "kvm_exit");
  PTRACE_STORE pEv = TraceSessionFindStore(p->pSession, "ftrace_event");
  PTRACE_STORE pSrc = TraceSessionFindStore(p->pSession, "source");
  unsigned long long i, n;
  long long ts = 0, v = 0;

  if( pKvm && pKvm->Snapshot.RecordCount ){
    iFirst = pKvm->Snapshot.FirstTs;
    iLast = pKvm->Snapshot.LastTs;
  }
  if( pEv && pEv->Snapshot.RecordCount ){
    PCTRACE_COLUMN_DESCRIPTOR cTs = TraceStoreFindColumn(pEv->Header, "ts");
    PCTRACE_COLUMN_DESCRIPTOR cName = TraceStoreFindColumn(pEv->Header,
                                                           "name");
    int bSorted = (pEv->Snapshot.Flags & TRACE_SLOT_SORTED)!=0;
    TRACE_HASH_TABLE seen;
    if( !RTL_SUCCESS(TraceHashInitialize(&Rtl, &seen)) ){
      exportFail(p, "out of memory");
      return 1;
    }
    n = pEv->Snapshot.RecordCount;
    for(i=0; i<n; i++){
      const unsigned char *pRec = pEv->Base + i*pEv->RecordSize;
      if( !colInt(pRec, cName, &v) || !isKvmName(p, &seen, (unsigned)v) ){
        continue;
      }
      colInt(pRec, cTs, &ts);
      if( ts<iFirst ) iFirst = ts;
      if( ts>iLast ) iLast = ts;
      if( bSorted ) break;
    }
    for(i=n; bSorted && i>0; i--){
      const unsigned char *pRec = pEv->Base + (i-1)*pEv->RecordSize;
      if( !colInt(pRec, cName, &v) || !isKvmName(p, &seen, (unsigned)v) ){
        continue;
      }
      colInt(pRec, cTs, &ts);
      if( ts>iLast ) iLast = ts;
      break;
    }
    TraceHashDestroy(&seen);
  }
  if( iFirst>iLast ){
    exportFail(p, "%s: --window kvm: the session has no KVM events "
               "(kvm_exit rows or kvm_* events)", p->pSession->Path);
    return 1;
  }
  if( pSrc ){
    PCTRACE_COLUMN_DESCRIPTOR cFirst, cLast, cFormat;
    cFirst = TraceStoreFindColumn(pSrc->Header, "first_ts");
    cLast = TraceStoreFindColumn(pSrc->Header, "last_ts");
    cFormat = TraceStoreFindColumn(pSrc->Header, "format");
    n = pSrc->Snapshot.RecordCount;
    for(i=0; i<n; i++){
      const unsigned char *pRec = pSrc->Base + i*pSrc->RecordSize;
      long long a, b, f;
      ULONG nf;
      const char *zf;
      if( !colInt(pRec, cFirst, &a) || !colInt(pRec, cLast, &b) ) continue;
      if( !colInt(pRec, cFormat, &f) ) continue;
      zf = idText(p, (unsigned)f, &nf);
      if( zf==0 || strcmp(zf, "uftrace")==0 || strcmp(zf, "chrome-json")==0
       || strcmp(zf, "perf-stat")==0 ){
        continue;
      }
      if( a<=iFirst && iFirst<=b ){
        if( b>iLast ) iLast = b;
        break;
      }
    }
  }
  *pFirst = iFirst;
  *pLast = iLast;
  return 0;
}

/*
** ---------------------------------------------------------------------------
** The export.
** ---------------------------------------------------------------------------
*/

/*
** Every EXPORT_DROP_EVERY rows the pages of the stores read so far leave
** the resident set (they are clean file pages: a later read faults them in
** again from the page cache), so that the export's memory does not grow
** with the session's size.
*/
#define EXPORT_DROP_EVERY (1u<<18)

static void dropStore(PTRACE_STORE pStore){
  if( pStore->Mapping ){
    Rtl.DiscardMemory(&Rtl, pStore->Mapping, pStore->MappedFileBytes);
  }
}

static void dropMappings(Export *p){
  int i;
  for(i=0; i<p->nStream; i++) dropStore(p->aStream[i].pStore);
  dropStore(&p->pSession->Strings.Index);
  dropStore(&p->pSession->Strings.Data);
}
int exportChrome(PTRACE_SESSION pSession, const ExportOptions *pOpt,
                 FILE *out, ExportCounts *pCounts){
  Export x;
  int i;
  unsigned src;
  long long ts = 0;
  unsigned long long nSinceDrop = 0;
  TIME_MERGE merge;
  void *pMergeMemory = 0;

  memset(&x, 0, sizeof(x));
  x.pSession = pSession;
  x.out.f = out;
  x.out.nAlloc = 1u<<20;
  x.out.z = malloc(x.out.nAlloc);
  x.aCacheOff = calloc(CACHE_IDS, sizeof(unsigned));
  x.zCache = malloc(CACHE_BYTES);
  if( x.out.z==0 || x.aCacheOff==0 || x.zCache==0
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.named))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.namedThreads))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.tidPid)) ){
    hostFail("out of memory");
    exit(1);
  }
  x.iFrom = pOpt->iFrom;
  x.iTo = pOpt->iTo;
  if( pOpt->bWindowKvm ){
    long long a, b;
    if( kvmWindow(&x, &a, &b)==0 ){
      if( a>x.iFrom ) x.iFrom = a;
      if( b<x.iTo ) x.iTo = b;
    }
  }

  /* Where open slices are closed: the window's end, or the last ts; ts
  ** 0: the first event of the exported stores, window or not. */
  x.iEnd = -0x7fffffffffffffffLL;
  x.iOrigin = 0x7fffffffffffffffLL;
  for(i=0; i<N_KIND; i++){
    PTRACE_STORE pStore = TraceSessionFindStore(pSession, azStore[i]);
    if( pStore==0 || !(pOpt->mStores & (1u<<i))
     || pStore->Snapshot.RecordCount==0 ) continue;
    if( pStore->Snapshot.LastTs > x.iEnd ) x.iEnd = pStore->Snapshot.LastTs;
    if( pStore->Snapshot.FirstTs < x.iOrigin ){
      x.iOrigin = pStore->Snapshot.FirstTs;
    }
  }
  if( x.iOrigin==0x7fffffffffffffffLL ) x.iOrigin = 0;
  if( x.iEnd>x.iTo ) x.iEnd = x.iTo;

  outLit(&x.out, "{\"displayTimeUnit\":\"ns\",\"otherData\":"
         "{\"exporter\":\"tracestore export\",\"session\":");
  outJson(&x.out, pSession->Path, strlen(pSession->Path));
  outLit(&x.out, ",\"clock\":");
  outJson(&x.out, pSession->Header.ClockName,
          strlen(pSession->Header.ClockName));
  outLit(&x.out, ",\"origin_ns\":");
  outI64(&x.out, x.iOrigin);
  if( x.iFrom<=x.iTo && x.iFrom!=(long long)0x8000000000000000ull ){
    outLit(&x.out, ",\"from_ns\":");
    outI64(&x.out, x.iFrom);
  }
  if( x.iFrom<=x.iTo && x.iTo!=0x7fffffffffffffffLL ){
    outLit(&x.out, ",\"to_ns\":");
    outI64(&x.out, x.iTo);
  }
  outLit(&x.out, "},\"traceEvents\":[\n");
  if( x.rc==0 && x.iFrom<=x.iTo ) nameFromStores(&x);

  for(i=0; i<N_KIND && x.rc==0 && x.iFrom<=x.iTo; i++){
    PTRACE_STORE pStore = TraceSessionFindStore(pSession, azStore[i]);
    if( pStore==0 || !(pOpt->mStores & (1u<<i)) ) continue;
    if( pStore->Snapshot.RecordCount==0 ) continue;
    if( streamOpen(&x, i, pStore, &x.aStream[x.nStream])==0 ) x.nStream++;
  }

  pMergeMemory = malloc(TIME_MERGE_SIZE(x.nStream ? x.nStream : 1));
  if( pMergeMemory==0 ){ hostFail("out of memory"); exit(1); }
  TimeMergeInitialize(&merge, pMergeMemory);
  for(i=0; i<x.nStream && x.rc==0; i++){
    if( streamPeek(&x, &x.aStream[i], &ts) ){
      TimeMergeInsert(&merge, (ULONG)i, (ULONGLONG)ts ^ 0x8000000000000000ull);
    }
  }
  while( x.rc==0 && !x.out.bErr && TimeMergeFirst(&merge, (PULONG)&src) ){
    Stream *s = &x.aStream[src];
    if( ++nSinceDrop == EXPORT_DROP_EVERY ){
      dropMappings(&x);
      nSinceDrop = 0;
    }
    writeRow(&x, s);
    s->iPos++;
    if( streamPeek(&x, s, &ts) ){
      TimeMergeUpdateFirst(&merge, (ULONGLONG)ts ^ 0x8000000000000000ull);
    }else{
      TimeMergeRemoveFirst(&merge);
    }
  }
  for(src=0; src<x.nCpu && x.rc==0; src++){
    if( x.aCpu[src].bOpen ) cpuEnd(&x, src, x.iEnd, TRACE_STRING_NULL);
  }

  outLit(&x.out, "\n]}\n");
  outFlush(&x.out);
  if( x.out.bErr && x.rc==0 ){
    x.rc = 1;
    hostFail("export: writing the output failed");
  }

  pCounts->nEvents = x.out.nEvents;
  pCounts->nBytes = x.out.nBytes;
  pCounts->iFrom = x.iFrom;
  pCounts->iTo = x.iTo;
  for(i=0; i<x.nStream; i++) free(x.aStream[i].aOrder);
  free(pMergeMemory);
  free(x.aCpu);
  free(x.zCache);
  free(x.aCacheOff);
  free(x.out.z);
  TraceHashDestroy(&x.named);
  TraceHashDestroy(&x.namedThreads);
  TraceHashDestroy(&x.tidPid);
  return x.rc;
}
