/*
** ExportChrome.c: the Chrome trace-event JSON format of `tracestore
** export` (chrome://tracing, Perfetto UI, DevTools' Performance panel and
** speedscope open it): one JSON object, one event per line.
**
** Zone: hosted (Outputs/Export/, an output): libc.  A sink of the walk
** (ExportSink.h: ExportWalk.c decides what is written and in what order;
** this file only how), escaping text with hostJsonEscape (HostUtil.c).
**
**   slices        X with "dur", "cat" and "args" (a span's stored JSON
**                 object as it is when it is one, else {"args": TEXT}; the
**                 row's columns otherwise).  Nesting is Chrome's: by ts and
**                 dur on a thread.
**   instants      I with "s":"t" (the phase Chrome writes: DevTools'
**                 trace engine drops "i").
**   CPU slices    X written when the slice ends, at its start ts (B/E
**                 pairs on the CPU tracks lose their pairing in DevTools'
**                 trace engine, which matches an E to the latest B of any
**                 thread).
**   counters      C, args {"value": V}.
**   names         M process_name and thread_name.
**
** ts and dur are microseconds on a binary grid of 2^-14 us, the nearest
** to each ns, as exact decimals (outTime: so that viewers' double
** arithmetic is exact; import rounds them back to the same ns); ts count
** from the first event of the exported stores (otherData.origin_ns,
** in the session's clock), so that a reader parsing numbers as doubles
** keeps every ns (an absolute ETW or realtime ts is ~1.6e15 us, past 2^53
** ns precision); 64-bit values a double cannot hold (addresses) are hex
** strings.  otherData comes before traceEvents, so that a reader of the
** stream knows the origin before the first event.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Export/ExportOut.h"
#include "Outputs/Export/ExportSink.h"

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

/*
** Times on a binary grid: ts and dur are written as multiples of 2^-14 us
** (0.061 ns), the nearest to the exact ns, as exact decimals.  A reader
** that parses them as doubles and adds or subtracts them (ts + dur for an
** end, ts - the first ts, as DevTools' trace engine and speedscope do)
** then computes exactly: slices that abut in the session abut in the
** viewer, and a child that ends with its parent ends with it.  With three
** decimals (a ns is 0.001 us, not a binary fraction) each sum rounded,
** and abutting slices overlapped by an ulp.  `tracestore import` rounds
** each back to the nearest ns, the same ns (the grid is within 0.031 ns
** of it, a dur within 0.061).  Exact up to 2^53 grid steps (6.4 days from
** the origin); past 2^52 ns (52 days) the three decimals again.
*/
#define GRID_LIMIT_NS  (1LL<<52)

/* ns from the origin as grid steps, rounded to the nearest. */
static inline long long gridOf(long long ns){
  long long x = ns*2048;                    /* 2^14/1000 = 2048/125 */
  return (x>=0 ? x + 62 : x - 62)/125;
}

/* k grid steps as an exact decimal of microseconds. */
static void outGrid(Out *p, long long k){
  unsigned long long u, frac;
  char a[24], *z;
  int i, n;
  if( k<0 ){
    outLit(p, "-");
    u = 0ull - (unsigned long long)k;
  }else{
    u = (unsigned long long)k;
  }
  i = fmtU64(a, u>>14);
  outMem(p, a+i, (size_t)(24-i));
  frac = (u & 16383)*6103515625ull;         /* 5^14: 14 decimals */
  if( frac==0 ) return;
  z = outRoom(p, 15);
  z[0] = '.';
  for(n=14; n>=1; n--){
    z[n] = (char)('0' + frac%10);
    frac /= 10;
  }
  for(n=14; z[n]=='0'; n--){}
  p->n += (size_t)n + 1;
}

/* A time (ns from the origin): on the grid, or three decimals past it. */
static void outTime(Out *p, long long ns){
  if( ns>-GRID_LIMIT_NS && ns<GRID_LIMIT_NS ){
    outGrid(p, gridOf(ns));
  }else{
    outMicros(p, ns);
  }
}

/* A slice's dur from its start and end (ns from the origin): the
** difference of their grid steps, so that ts + dur is the end's. */
static void outDur(Out *p, long long start, long long end){
  if( start>-GRID_LIMIT_NS && start<GRID_LIMIT_NS
   && end>-GRID_LIMIT_NS && end<GRID_LIMIT_NS ){
    outGrid(p, gridOf(end) - gridOf(start));
  }else{
    outMicros(p, end - start);
  }
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
** The sink.
** ---------------------------------------------------------------------------
*/

/* Escaped strings of the first ids, quotes included, so that names and
** comms are looked up and escaped once. */
#define CACHE_IDS      65536
#define CACHE_MAX_LEN  256
#define CACHE_BYTES    (16u<<20)

typedef struct Chrome {
  Out out;
  void *pWalk;
  unsigned long long nEvents;
  long long iOrigin;
  unsigned *aCacheOff;            /* id -> offset+1 in zCache, or 0 */
  char *zCache;
  size_t nCache;
  char *azKey[EXPORT_N_KEYS];     /* "KEY": of each arg key, once seen */
  unsigned char anKey[EXPORT_N_KEYS];
  char zWhere[80];                /* outWhere's text for whereP, whereT */
  int nWhere, bWhere;
  unsigned whereP, whereT;
} Chrome;

/* String id as a JSON string ("" for NULL). */
static void outId(Chrome *p, unsigned id){
  const char *z;
  ULONG n;
  if( id<CACHE_IDS && p->aCacheOff[id] ){
    const char *zc = p->zCache + p->aCacheOff[id] - 1;
    outMem(&p->out, zc+1, (unsigned char)zc[0]);
    return;
  }
  z = exportIdText(p->pWalk, id, &n);
  if( z==0 ){
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

static void outName(Chrome *p, const EXPORT_NAME *pName){
  if( pName->Text ){
    outJson(&p->out, pName->Text, pName->Length);
  }else{
    outId(p, pName->Id);
  }
}

static void eventStart(Chrome *p){
  if( p->nEvents ) outLit(&p->out, ",\n");
  p->nEvents++;
}

/* ,"pid":P,"tid":T,"ts":TS (the text before TS kept for the next
** event of the same thread). */
static void outWhere(Chrome *p, unsigned pid, unsigned tid, long long ts){
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
  outTime(&p->out, ts - p->iOrigin);
}

static void outArgValue(Chrome *p, const EXPORT_ARG *a){
  switch( a->Type ){
    case EXPORT_ARG_DOUBLE:
      outDouble(&p->out, a->u.r);
      break;
    case EXPORT_ARG_STRING:
      outId(p, a->u.id);
      break;
    case EXPORT_ARG_TEXT:
      outJson(&p->out, a->u.t.z, a->u.t.n);
      break;
    case EXPORT_ARG_ADDRESS:
      outHex(&p->out, a->u.u);
      break;
    case EXPORT_ARG_UINT:
      if( a->u.u >= (1ull<<53) ) outHex(&p->out, a->u.u);
      else outU64(&p->out, a->u.u);
      break;
    default:
      if( a->u.i>=(1ll<<53) || a->u.i<=-(1ll<<53) ){
        outLit(&p->out, "\"");
        outI64(&p->out, a->u.i);
        outLit(&p->out, "\"");
      }else{
        outI64(&p->out, a->u.i);
      }
      break;
  }
}

/* ,"args":{...}: a span's text, or the event's args. */
static void outArgs(Chrome *p, const EXPORT_EVENT *e){
  int i;
  if( e->SpanArgs ){
    outLit(&p->out, ",\"args\":");
    if( e->SpanArgsIsObject ){
      outMem(&p->out, e->SpanArgs, e->SpanArgsLength);
    }else{
      outLit(&p->out, "{\"args\":");
      outJson(&p->out, e->SpanArgs, e->SpanArgsLength);
      outLit(&p->out, "}");
    }
    return;
  }
  if( e->Args==0 ) return;
  outLit(&p->out, ",\"args\":{");
  for(i=0; i<e->NumberOfArgs; i++){
    const EXPORT_ARG *a = &e->Args[i];
    if( p->azKey[a->Key]==0 ){
      char *z = malloc((size_t)a->KeyLength + 4);
      if( z==0 ){ hostFail("out of memory"); exit(1); }
      z[0] = '"';
      memcpy(z+1, a->KeyText, a->KeyLength);
      memcpy(z+1+a->KeyLength, "\":", 2);
      p->azKey[a->Key] = z;
      p->anKey[a->Key] = (unsigned char)(a->KeyLength + 3);
    }
    if( i ) outLit(&p->out, ",");
    outMem(&p->out, p->azKey[a->Key], p->anKey[a->Key]);
    outArgValue(p, a);
  }
  outLit(&p->out, "}");
}

static void chromeBegin(void *pCtx, const EXPORT_HEADER *h){
  Chrome *p = pCtx;
  p->iOrigin = h->Origin;
  outLit(&p->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":"
         "{\"exporter\":\"tracestore export\",\"session\":");
  outJson(&p->out, h->SessionPath, strlen(h->SessionPath));
  outLit(&p->out, ",\"clock\":");
  outJson(&p->out, h->ClockName, strlen(h->ClockName));
  outLit(&p->out, ",\"origin_ns\":");
  outI64(&p->out, h->Origin);
  if( h->HasFrom ){
    outLit(&p->out, ",\"from_ns\":");
    outI64(&p->out, h->From);
  }
  if( h->HasTo ){
    outLit(&p->out, ",\"to_ns\":");
    outI64(&p->out, h->To);
  }
  outLit(&p->out, "},\"traceEvents\":[\n");
}

static void chromeName(Chrome *p, int bThread, unsigned pid, unsigned tid,
                       const EXPORT_NAME *pName){
  eventStart(p);
  outStr(&p->out, bThread ? "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":"
                          : "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":");
  outU64(&p->out, pid);
  outLit(&p->out, ",\"tid\":");
  outU64(&p->out, bThread ? tid : pid);
  outLit(&p->out, ",\"ts\":0,\"args\":{\"name\":");
  outName(p, pName);
  outLit(&p->out, "}}");
}

static void chromeNameProcess(void *pCtx, unsigned pid,
                              const EXPORT_NAME *pName){
  chromeName(pCtx, 0, pid, 0, pName);
}

static void chromeNameThread(void *pCtx, unsigned pid, unsigned tid,
                             const EXPORT_NAME *pName){
  chromeName(pCtx, 1, pid, tid, pName);
}

/* {"ph":"X"|"I","name":N,"cat":C,"pid":P,"tid":T,"ts":TS[,"dur":D],args} */
static void chromeEvent(Chrome *p, const EXPORT_EVENT *e, int bSlice){
  eventStart(p);
  if( bSlice ){
    outLit(&p->out, "{\"ph\":\"X\",\"name\":");
  }else{
    outLit(&p->out, "{\"ph\":\"I\",\"s\":\"t\",\"name\":");
  }
  outName(p, &e->Name);
  if( e->Category.Text || e->Category.Id!=TRACE_STRING_NULL ){
    outLit(&p->out, ",\"cat\":");
    outName(p, &e->Category);
  }
  outWhere(p, e->Pid, e->Tid, e->Ts);
  if( bSlice ){
    outLit(&p->out, ",\"dur\":");
    outDur(&p->out, e->Ts - p->iOrigin, e->Ts + e->Dur - p->iOrigin);
  }
  outArgs(p, e);
  outLit(&p->out, "}");
}

static void chromeSlice(void *pCtx, const EXPORT_EVENT *e){
  chromeEvent(pCtx, e, 1);
}

static void chromeInstant(void *pCtx, const EXPORT_EVENT *e){
  chromeEvent(pCtx, e, 0);
}

static void chromeCounter(void *pCtx, const EXPORT_EVENT *e){
  Chrome *p = pCtx;
  eventStart(p);
  outLit(&p->out, "{\"ph\":\"C\",\"name\":");
  outName(p, &e->Name);
  outLit(&p->out, ",\"pid\":");
  outU64(&p->out, e->Pid);
  outLit(&p->out, ",\"ts\":");
  outTime(&p->out, e->Ts - p->iOrigin);
  outLit(&p->out, ",\"args\":{\"value\":");
  outDouble(&p->out, e->Value);
  outLit(&p->out, "}}");
}

static void chromeOpenBegin(void *pCtx, const EXPORT_EVENT *e){
  (void)pCtx;
  (void)e;                        /* written whole when it ends */
}

static int chromeEnd(void *pCtx, unsigned long long *pEvents,
                     unsigned long long *pBytes){
  Chrome *p = pCtx;
  int i;
  outLit(&p->out, "\n]}\n");
  outFlush(&p->out);
  *pEvents = p->nEvents;
  *pBytes = p->out.nBytes;
  for(i=0; i<EXPORT_N_KEYS; i++) free(p->azKey[i]);
  free(p->zCache);
  free(p->aCacheOff);
  outClose(&p->out);
  if( p->out.bErr ){
    hostFail("export: writing the output failed");
    return 1;
  }
  return 0;
}

static int chromeOpen(void *pCtx, FILE *f, void *pWalk){
  Chrome *p = pCtx;
  p->pWalk = pWalk;
  p->aCacheOff = calloc(CACHE_IDS, sizeof(unsigned));
  p->zCache = malloc(CACHE_BYTES);
  return outOpen(&p->out, f) || p->aCacheOff==0 || p->zCache==0;
}

static const EXPORT_SINK chromeSink = {
  chromeBegin, chromeNameProcess, chromeNameThread, chromeSlice,
  chromeInstant, chromeCounter, chromeOpenBegin, chromeSlice, chromeEnd
};

const EXPORT_FORMAT ExportChromeFormat = {
  "chrome", &chromeSink, sizeof(Chrome), chromeOpen
};
