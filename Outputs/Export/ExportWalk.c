/*
** ExportWalk.c: what `tracestore export` writes, in what order, whatever
** the format: the walk of a session that hands each exported row to a
** format's sink (ExportSink.h) as one event.
**
** Zone: hosted (Outputs/Export/, an output): libc.  Reads the session
** through the store API only (TraceStore/TraceStore.h: records at Base,
** columns found by name in each store's descriptors, strings by id),
** merges the stores in ts order with Readers/Import/TimeMerge.h.  Called
** by CmdExport.c; calls ExportChrome.c or ExportPerfetto.c through their
** EXPORT_SINK tables.
**
** How it works: every store is read as its snapshot at open (a session
** being written exports a consistent prefix of each store).  Each exported
** store is one stream of rows in ts order (a store not flagged sorted is
** ordered through an index of its rows: 16 bytes a row, the one case where
** memory grows with the input); a k-way merge takes the earliest row and
** hands it to the sink as:
**
**   span          a slice of its dur (Slice), with its name, category and
**                 args text; an instant (flag 4) as Instant.  A span
**                 crossing the window is cut to it.
**   kvm_exit      a "kvm exited" slice on the vcpu thread (where a thread
**                 has exits of several vcpus, as kvmtrace's VM pid, a
**                 thread per vcpu, "vcpu N (tid T)", EXPORT_VCPU_TID), the
**                 exit's columns as args; without an entry it
**                 is open (OpenBegin) until the vcpu's next exit, where it
**                 must have entered, or the window's end (OpenEnd, with
**                 "ended_by" saying which).
**   ftrace_event  an instant on its thread named by the event, its columns
**                 as args (the printed field text under "args").
**   page_fault    an instant "page_fault" (or its name column), every
**                 column as args, and "fault": "hard"/"soft" when the
**                 store has a `hard` column.
**   sched_switch  per-CPU slices of the running task (OpenBegin at the
**                 switch to it, OpenEnd at the next switch on that CPU or
**                 the window's end), named by its comm (or "tid N"), on
**                 thread "CPU n" of the process "CPUs (sched_switch)"; the
**                 idle task (pid 0) has no slice, nor the task running
**                 before a CPU's first switch (its start is unknown).
**   counter       Counter, one track per name ("NAME cpuN" for a per-CPU
**                 counter) and process.
**   sample        an instant on its thread named by the sampling event
**                 (category "sample"), its ip, period and stack_id as args.
**
** Names: first those of the process and thread stores (each pid and tid
** once, its last row), then each process and thread an event meets that
** is not named yet (its comm, or "pid N", "tid N").  Columns are read by
** name, so a column a store lacks is skipped and one it gains
** (page_fault's `hard`) appears in the args by itself.
*/
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Outputs/Export/Export.h"
#include "Outputs/Export/ExportSink.h"
#include "Readers/Text/Json.h"
#include "Readers/Import/TimeMerge.h"
#include "TraceStore/TraceSchema.h"

const char zExportStoreNames[] =
  "span, kvm_exit, ftrace_event, page_fault, sched_switch, counter, sample";

static const char *const azStore[] = {
  "span", "kvm_exit", "ftrace_event", "page_fault", "sched_switch", "counter",
  "sample"
};
#define N_KIND 7
enum { K_SPAN, K_KVM, K_FTRACE, K_FAULT, K_SCHED, K_COUNTER, K_SAMPLE };

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
** The walk's state.
** ---------------------------------------------------------------------------
*/
typedef struct Stream {
  int eKind;
  PTRACE_STORE pStore;
  unsigned long long iPos, nPos;  /* next position, end */
  unsigned long long *aOrder;     /* rows in ts order (unsorted store) */
  Col ts, dur, name, pid, tid, cpu, comm, args, cat, flags, value;
  Col nextPid, nextComm, nextPrio, prevState, hard, vcpu;
  int aArg[TRACE_STORE_MAX_COLUMNS];  /* columns handed as args */
  EXPORT_ARG aArgOf[TRACE_STORE_MAX_COLUMNS];  /* their key and type */
  int nArg;
} Stream;

/* A CPU's sched slice, open from a switch to the next. */
typedef struct CpuSlice {
  unsigned char bOpen;
  unsigned char bPrio;
  unsigned comm;
  long long tid;
  long long prio;
  long long start;
} CpuSlice;

/* A vcpu's lane of kvm exits: the thread they are shown on, and its exit
** without an entry, open until the vcpu's next exit (or the end). */
typedef struct KvmLane {
  unsigned char bOpen;
  unsigned char bNamed;
  int vcpu;
  unsigned pid, tid;
  unsigned trackTid;              /* tid, or EXPORT_VCPU_TID(its index) */
  long long start;
  const unsigned char *pRec;      /* the open exit's row */
} KvmLane;

typedef struct Walk {
  PTRACE_SESSION pSession;
  const EXPORT_SINK *pSink;
  void *pCtx;                     /* the sink's */
  Stream aStream[N_KIND];
  int nStream;
  long long iFrom, iTo;           /* the window, inclusive */
  long long iEnd;                 /* where open things are closed */
  TRACE_HASH_TABLE named;         /* KEY_PROCESS of named processes */
  TRACE_HASH_TABLE namedThreads;  /* KEY_THREAD of named threads */
  TRACE_HASH_TABLE tidPid;        /* tid -> pid (thread store) */
  unsigned namedP, namedT;        /* the last thread nameRow saw named */
  int bNamed;
  CpuSlice *aCpu;                 /* sched: each CPU's open slice */
  unsigned nCpu;
  TRACE_HASH_TABLE kvmLanes;      /* (tid, vcpu) + 1 -> index in aKvm */
  TRACE_HASH_TABLE kvmVcpus;      /* tid + 1 -> vcpu + 1, or ~0: several */
  KvmLane *aKvm;
  unsigned nKvm, nKvmAlloc;
  Stream *pKvmStream;
  EXPORT_ARG aArg[TRACE_STORE_MAX_COLUMNS + 4];  /* the event's args */
  char zText[96];                 /* the event's name, when made here */
  int rc;
} Walk;

static void walkFail(Walk *p, const char *zFormat, ...)
  __attribute__((format(printf, 2, 3)));
static void walkFail(Walk *p, const char *zFormat, ...){
  va_list ap;
  if( p->rc ) return;
  va_start(ap, zFormat);
  hostFailV("tracestore export", zFormat, ap);
  va_end(ap);
  p->rc = 1;
}

const char *exportIdText(void *pWalk, unsigned id, ULONG *pn){
  Walk *p = pWalk;
  PCSZ z;
  if( id==TRACE_STRING_NULL ) return 0;
  if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, id, &z, pn)) ){
    walkFail(p, "%s: string id %u does not exist (damaged session)",
             p->pSession->Path, id);
    return 0;
  }
  return z;
}

static void nameText(EXPORT_NAME *pName, const char *z){
  pName->Id = TRACE_STRING_NULL;
  pName->Text = z;
  pName->Length = (unsigned)strlen(z);
}

static void nameId(EXPORT_NAME *pName, unsigned id){
  pName->Id = id;
  pName->Text = 0;
  pName->Length = 0;
}

/*
** ---------------------------------------------------------------------------
** Names of processes and threads.
** ---------------------------------------------------------------------------
*/
/* Keys of p->named: a process (pid), a thread (pid, tid); never 0. */
#define KEY_PROCESS(pid)    ((unsigned long long)(pid) + 1)
#define KEY_THREAD(pid,tid) ((((unsigned long long)(pid)<<32) | (tid)) + 1)

/*
** A process (bThread 0) or thread named, once: by string id, or by zName
** when it is not 0.
*/
static void nameTrack(Walk *p, int bThread, unsigned pid, unsigned tid,
                      unsigned id, const char *zName){
  TRACE_HASH_TABLE *pNamed = bThread ? &p->namedThreads : &p->named;
  unsigned long long key = bThread ? KEY_THREAD(pid, tid) : KEY_PROCESS(pid);
  EXPORT_NAME name;
  if( TraceHashLookup(pNamed, key) ) return;
  if( !RTL_SUCCESS(TraceHashSet(pNamed, key, 1)) ){
    walkFail(p, "out of memory");
    return;
  }
  if( zName ) nameText(&name, zName); else nameId(&name, id);
  if( bThread ){
    p->pSink->NameThread(p->pCtx, pid, tid, &name);
  }else{
    p->pSink->NameProcess(p->pCtx, pid, &name);
  }
}

static void nameProcess(Walk *p, unsigned pid, unsigned id,
                        const char *zName){
  nameTrack(p, 0, pid, 0, id, zName);
}

static void nameThread(Walk *p, unsigned pid, unsigned tid,
                       unsigned id, const char *zName){
  nameTrack(p, 1, pid, tid, id, zName);
}

/* The pid of a row: its own, the thread store's, or the tid itself. */
static unsigned rowPid(Walk *p, Stream *s, const unsigned char *pRec,
                       unsigned tid){
  long long v;
  PTRACE_HASH_ENTRY e;
  if( colInt(pRec, s->pid.p, &v) ) return (unsigned)v;
  e = TraceHashLookup(&p->tidPid, (unsigned long long)tid + 1);
  if( e ) return (unsigned)e->Value;
  return tid;
}

/* Names the process of a row if it has no name yet (the row's comm when
** it is the main thread's); returns the row's comm. */
static long long nameRowProcess(Walk *p, Stream *s, const unsigned char *pRec,
                                unsigned pid, unsigned tid){
  long long comm = TRACE_STRING_NULL;
  char zBuf[32];
  colInt(pRec, s->comm.p, &comm);
  if( !TraceHashLookup(&p->named, KEY_PROCESS(pid)) ){
    if( pid==tid && comm!=TRACE_STRING_NULL ){
      nameProcess(p, pid, (unsigned)comm, 0);
    }else{
      snprintf(zBuf, sizeof(zBuf), "pid %u", pid);
      nameProcess(p, pid, 0, zBuf);
    }
  }
  return comm;
}

/* Names the process and thread of an event that has not been named. */
static void nameRow(Walk *p, Stream *s, const unsigned char *pRec,
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
  comm = nameRowProcess(p, s, pRec, pid, tid);
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
static void nameFromStores(Walk *p){
  PTRACE_STORE pProc = TraceSessionFindStore(p->pSession, "process");
  PTRACE_STORE pThread = TraceSessionFindStore(p->pSession, "thread");
  TRACE_HASH_TABLE last;
  unsigned long long i, n;
  long long pid, tid, name;

  if( !RTL_SUCCESS(TraceHashInitialize(&Rtl, &last)) ){
    walkFail(p, "out of memory");
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
      walkFail(p, "out of memory");
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
static EXPORT_ARG *argNext(Walk *p, EXPORT_EVENT *e, int key,
                           const char *zKey){
  EXPORT_ARG *a = &p->aArg[e->NumberOfArgs++];
  a->Key = (unsigned short)key;
  a->KeyText = zKey;
  a->KeyLength = (unsigned char)strlen(zKey);
  return a;
}

/* The args of a row: the columns in s->aArg that are not NULL. */
static void rowArgs(Walk *p, Stream *s, const unsigned char *pRec,
                    EXPORT_EVENT *e){
  int i;
  long long v;
  e->Args = p->aArg;
  e->NumberOfArgs = 0;
  for(i=0; i<s->nArg; i++){
    PCTRACE_COLUMN_DESCRIPTOR c = &s->pStore->Header->Columns[s->aArg[i]];
    EXPORT_ARG *a;
    if( !colInt(pRec, c, &v) ) continue;
    a = &p->aArg[e->NumberOfArgs++];
    *a = s->aArgOf[i];
    switch( a->Type ){
      case EXPORT_ARG_DOUBLE: memcpy(&a->u.r, &v, 8); break;
      case EXPORT_ARG_STRING: a->u.id = (unsigned)v; break;
      default:                a->u.i = v; break;
    }
  }
  if( s->hard.p && colInt(pRec, s->hard.p, &v) ){
    EXPORT_ARG *a = argNext(p, e, EXPORT_KEY_FAULT, "fault");
    a->Type = EXPORT_ARG_TEXT;
    a->u.t.z = v ? "hard" : "soft";
    a->u.t.n = 4;
  }
}

/* The columns of s's store handed as args: all but those in azSkip and
** the binary ones (an event's raw bytes: its args already say them), each
** with its key and how its values read. */
static void pickArgs(Stream *s, const char *const *azSkip){
  PTRACE_STORE_HEADER h = s->pStore->Header;
  unsigned i;
  int k, bSkip;
  s->nArg = 0;
  for(i=0; i<h->NumberOfColumns; i++){
    PCTRACE_COLUMN_DESCRIPTOR c = &h->Columns[i];
    EXPORT_ARG *a = &s->aArgOf[s->nArg];
    bSkip = 0;
    for(k=0; azSkip[k]; k++){
      if( strcmp(c->Name, azSkip[k])==0 ) bSkip = 1;
    }
    if( bSkip || (c->Flags & TRACE_COLUMN_BLOB) ) continue;
    s->aArg[s->nArg++] = (int)i;
    memset(a, 0, sizeof(*a));
    a->Key = (unsigned short)(EXPORT_KEY_FIRST_COLUMN
                              + s->eKind*TRACE_STORE_MAX_COLUMNS + (int)i);
    a->KeyText = c->Name;
    a->KeyLength = (unsigned char)strlen(c->Name);
    if( c->Type==TraceColumnDouble ){
      a->Type = EXPORT_ARG_DOUBLE;
    }else if( c->Flags & TRACE_COLUMN_STRING_ID ){
      a->Type = EXPORT_ARG_STRING;
    }else if( c->Flags & TRACE_COLUMN_ADDRESS ){
      a->Type = EXPORT_ARG_ADDRESS;
    }else if( c->Type==TraceColumnInt32 || c->Type==TraceColumnInt64 ){
      a->Type = EXPORT_ARG_INT;
    }else{
      a->Type = EXPORT_ARG_UINT;
    }
  }
}

/*
** ---------------------------------------------------------------------------
** One event per row.
** ---------------------------------------------------------------------------
*/
static void eventInit(EXPORT_EVENT *e, long long ts, unsigned pid,
                      unsigned tid){
  memset(e, 0, sizeof(*e));
  e->Ts = ts;
  e->Pid = pid;
  e->Tid = tid;
  e->Cpu = -1;
  e->Name.Id = TRACE_STRING_NULL;
  e->Category.Id = TRACE_STRING_NULL;
}

/*
** A span's args: the stored text, flagged when it is a JSON object of
** printable ASCII (what Chrome and uftrace write; the import checked its
** syntax, checked again here).
*/
static void spanArgs(Walk *p, unsigned id, EXPORT_EVENT *e){
  ULONG n, i;
  const char *z = exportIdText(p, id, &n);
  JSON_ERROR err;
  if( z==0 ) return;
  e->SpanArgs = z;
  e->SpanArgsLength = n;
  for(i=0; i<n && z[i]>=0x20 && z[i]<0x7f; i++){}
  e->SpanArgsIsObject = i==n && n>=2 && z[0]=='{'
                     && JsonSkipValue(z, z+n, &err)==z+n;
}

/* ts + dur, saturated: a damaged row may hold any two values. */
static long long endOf(long long ts, long long dur){
  if( dur>0 && ts>LLONG_MAX - dur ) return LLONG_MAX;
  if( dur<0 && ts<LLONG_MIN - dur ) return LLONG_MIN;
  return ts + dur;
}

static void walkSpan(Walk *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, dur = 0, flags = 0, tid = 0, v, end;
  EXPORT_EVENT e;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->dur.p, &dur);
  colInt(pRec, s->flags.p, &flags);
  colInt(pRec, s->tid.p, &tid);
  end = endOf(ts, dur>0 ? dur : 0);
  if( ts<p->iFrom ) ts = p->iFrom;
  if( end>p->iTo ) end = p->iTo;
  pid = rowPid(p, s, pRec, (unsigned)tid);
  nameRow(p, s, pRec, pid, (unsigned)tid);
  eventInit(&e, ts, pid, (unsigned)tid);
  e.Dur = end - ts;
  if( colInt(pRec, s->name.p, &v) ) nameId(&e.Name, (unsigned)v);
  else nameText(&e.Name, "");
  if( colInt(pRec, s->cat.p, &v) ) nameId(&e.Category, (unsigned)v);
  if( colInt(pRec, s->args.p, &v) ) spanArgs(p, (unsigned)v, &e);
  if( flags & SPAN_FLAG_INSTANT ){
    p->pSink->Instant(p->pCtx, &e);
  }else{
    p->pSink->Slice(p->pCtx, &e);
  }
}

/*
** Which threads have exits of several vcpus (kvmtrace records the VM's pid
** for all of its vcpus): one pass over the kvm_exit rows before the walk.
*/
static void kvmFindShared(Walk *p, Stream *s){
  unsigned long long i;
  for(i=0; i<s->pStore->Snapshot.RecordCount; i++){
    const unsigned char *pRec = s->pStore->Base + i*s->pStore->RecordSize;
    long long tid = 0, vcpu = -1;
    PTRACE_HASH_ENTRY h;
    colInt(pRec, s->tid.p, &tid);
    if( !colInt(pRec, s->vcpu.p, &vcpu) ) continue;
    h = TraceHashLookup(&p->kvmVcpus, (unsigned long long)(unsigned)tid + 1);
    if( h==0 ){
      if( !RTL_SUCCESS(TraceHashSet(&p->kvmVcpus,
                                    (unsigned long long)(unsigned)tid + 1,
                                    (unsigned long long)vcpu + 1)) ){
        hostFail("out of memory");
        exit(1);
      }
    }else if( h->Value!=(unsigned long long)vcpu + 1 ){
      h->Value = ~0ull;
    }
  }
}

/* The lane of (tid, vcpu): the thread itself, or a thread of the lane's
** own ("vcpu N (tid T)") where the thread has several vcpus. */
static KvmLane *kvmLane(Walk *p, Stream *s, const unsigned char *pRec,
                        unsigned pid, unsigned tid, int vcpu){
  unsigned long long key = (((unsigned long long)tid<<32) | (unsigned)vcpu)
                         + 1;
  PTRACE_HASH_ENTRY h = TraceHashLookup(&p->kvmLanes, key);
  KvmLane *pLane;
  if( h ){
    pLane = &p->aKvm[h->Value];
  }else{
    if( p->nKvm==p->nKvmAlloc ){
      unsigned nNew = p->nKvmAlloc ? p->nKvmAlloc*2 : 16;
      KvmLane *aNew = realloc(p->aKvm, nNew*sizeof(KvmLane));
      if( aNew==0 ){ hostFail("out of memory"); exit(1); }
      p->aKvm = aNew;
      p->nKvmAlloc = nNew;
    }
    if( !RTL_SUCCESS(TraceHashSet(&p->kvmLanes, key, p->nKvm)) ){
      hostFail("out of memory");
      exit(1);
    }
    pLane = &p->aKvm[p->nKvm];
    memset(pLane, 0, sizeof(*pLane));
    pLane->vcpu = vcpu;
    pLane->tid = tid;
    h = TraceHashLookup(&p->kvmVcpus, (unsigned long long)tid + 1);
    pLane->trackTid = h && h->Value==~0ull ? EXPORT_VCPU_TID(p->nKvm) : tid;
    p->nKvm++;
  }
  if( !pLane->bNamed && pLane->trackTid!=tid ){
    char zName[48];
    nameRowProcess(p, s, pRec, pid, tid);
    snprintf(zName, sizeof(zName), "vcpu %d (tid %u)", vcpu, tid);
    nameThread(p, pid, pLane->trackTid, 0, zName);
    pLane->bNamed = 1;
  }
  return pLane;
}

/* A kvm exit's event: "kvm exited" on its lane's thread, its columns as
** args. */
static void kvmEvent(Walk *p, Stream *s, const unsigned char *pRec,
                     long long ts, unsigned pid, const KvmLane *pLane,
                     EXPORT_EVENT *e){
  eventInit(e, ts, pid, pLane->trackTid);
  nameText(&e->Name, "kvm exited");
  nameText(&e->Category, "kvm");
  rowArgs(p, s, pRec, e);
}

/* The open exit of a lane ends at ts: by the vcpu's next exit, or at the
** end of what is exported. */
static void kvmEnd(Walk *p, KvmLane *pLane, long long ts, int bNextExit){
  EXPORT_EVENT e;
  EXPORT_ARG *a;
  kvmEvent(p, p->pKvmStream, pLane->pRec, pLane->start, pLane->pid, pLane,
           &e);
  e.Dur = ts - pLane->start;
  a = argNext(p, &e, EXPORT_KEY_ENDED_BY, "ended_by");
  a->Type = EXPORT_ARG_TEXT;
  a->u.t.z = bNextExit ? "the vcpu's next exit (no entry seen)"
                       : "the end of the trace (no entry seen)";
  a->u.t.n = (unsigned)strlen(a->u.t.z);
  p->pSink->OpenEnd(p->pCtx, &e);
  pLane->bOpen = 0;
}

/*
** A kvm exit: a slice of its dur (exit to entry).  Without an entry it is
** open until its vcpu exits again (it must have entered in between), or
** until the end; on its thread, or its vcpu's own thread where the thread
** has exits of several vcpus.
*/
static void walkKvmExit(Walk *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, dur, tid = 0, vcpu = -1;
  EXPORT_EVENT e;
  KvmLane *pLane;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->tid.p, &tid);
  if( !colInt(pRec, s->vcpu.p, &vcpu) || vcpu<0 || vcpu>0x7fffffff ){
    vcpu = -1;
  }
  pid = rowPid(p, s, pRec, (unsigned)tid);
  p->pKvmStream = s;
  pLane = kvmLane(p, s, pRec, pid, (unsigned)tid, (int)vcpu);
  if( pLane->trackTid==(unsigned)tid ){
    nameRow(p, s, pRec, pid, (unsigned)tid);
  }
  if( pLane->bOpen ) kvmEnd(p, pLane, ts, 1);
  kvmEvent(p, s, pRec, ts, pid, pLane, &e);
  if( colInt(pRec, s->dur.p, &dur) ){
    long long end = endOf(ts, dur);
    if( end>p->iTo ) end = p->iTo;
    if( end<ts ) end = ts;
    e.Dur = end - ts;
    p->pSink->Slice(p->pCtx, &e);
  }else{
    pLane->bOpen = 1;
    pLane->pid = pid;
    pLane->start = ts;
    pLane->pRec = pRec;
    p->pSink->OpenBegin(p->pCtx, &e);
  }
}

/* ftrace_event, page_fault and sample rows: instants on their thread. */
static void walkInstant(Walk *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, tid = 0, name;
  EXPORT_EVENT e;
  unsigned pid;
  colInt(pRec, s->ts.p, &ts);
  colInt(pRec, s->tid.p, &tid);
  pid = rowPid(p, s, pRec, (unsigned)tid);
  nameRow(p, s, pRec, pid, (unsigned)tid);
  eventInit(&e, ts, pid, (unsigned)tid);
  if( colInt(pRec, s->name.p, &name) ){
    nameId(&e.Name, (unsigned)name);
  }else{
    nameText(&e.Name, s->eKind==K_FAULT ? "page_fault" : "");
  }
  nameText(&e.Category, s->eKind==K_FAULT ? "page_fault" :
                        s->eKind==K_SAMPLE ? "sample" : "ftrace");
  rowArgs(p, s, pRec, &e);
  p->pSink->Instant(p->pCtx, &e);
}

static void walkCounter(Walk *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, name, cpu, v;
  EXPORT_EVENT e;
  double r;
  unsigned pid;
  if( !colDouble(pRec, s->value.p, &r) || !isfinite(r) ) return;
  colInt(pRec, s->ts.p, &ts);
  if( colInt(pRec, s->pid.p, &v) ){
    pid = (unsigned)v;
    nameRow(p, s, pRec, pid, pid);
  }else{
    pid = EXPORT_COUNTER_PID;
    nameProcess(p, pid, 0, "counters");
  }
  eventInit(&e, ts, pid, pid);
  e.Value = r;
  if( !colInt(pRec, s->name.p, &name) ) name = TRACE_STRING_NULL;
  nameId(&e.Name, (unsigned)name);
  if( colInt(pRec, s->cpu.p, &cpu) ){
    /* "NAME cpuN" (the name cut to fit: names are short). */
    ULONG n;
    const char *z = exportIdText(p, (unsigned)name, &n);
    int k;
    if( z==0 ){ z = ""; n = 0; }
    if( n>sizeof(p->zText)-32 ) n = sizeof(p->zText)-32;
    k = snprintf(p->zText, sizeof(p->zText), "%.*s cpu%lld", (int)n, z, cpu);
    e.Name.Text = p->zText;
    e.Name.Length = (unsigned)k;
    e.Cpu = (int)cpu;
  }
  p->pSink->Counter(p->pCtx, &e);
}

/* The slice of the task on cpu: its name ("tid N" without a comm), and
** its args (tid, prio, and end_state when it has ended). */
static void cpuEvent(Walk *p, unsigned cpu, long long state, EXPORT_EVENT *e){
  CpuSlice *pSlice = &p->aCpu[cpu];
  EXPORT_ARG *a;
  eventInit(e, pSlice->start, EXPORT_CPU_PID, EXPORT_CPU_TID(cpu));
  if( pSlice->comm!=TRACE_STRING_NULL ){
    nameId(&e->Name, pSlice->comm);
  }else{
    snprintf(p->zText, sizeof(p->zText), "tid %lld", pSlice->tid);
    nameText(&e->Name, p->zText);
  }
  nameText(&e->Category, "sched");
  e->Args = p->aArg;
  a = argNext(p, e, EXPORT_KEY_TID, "tid");
  a->Type = EXPORT_ARG_INT;
  a->u.i = pSlice->tid;
  if( pSlice->bPrio ){
    a = argNext(p, e, EXPORT_KEY_PRIO, "prio");
    a->Type = EXPORT_ARG_INT;
    a->u.i = pSlice->prio;
  }
  if( state!=TRACE_STRING_NULL ){
    a = argNext(p, e, EXPORT_KEY_END_STATE, "end_state");
    a->Type = EXPORT_ARG_STRING;
    a->u.id = (unsigned)state;
  }
}

/* The slice of the task that ran on cpu until ts ends. */
static void cpuEnd(Walk *p, unsigned cpu, long long ts, long long state){
  EXPORT_EVENT e;
  cpuEvent(p, cpu, state, &e);
  e.Dur = ts - p->aCpu[cpu].start;
  p->pSink->OpenEnd(p->pCtx, &e);
  p->aCpu[cpu].bOpen = 0;
}

static void walkSched(Walk *p, Stream *s, const unsigned char *pRec){
  long long ts = 0, cpu, next = 0, comm = TRACE_STRING_NULL;
  long long state = TRACE_STRING_NULL;
  char zName[32];
  CpuSlice *pSlice;
  EXPORT_EVENT e;
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
  cpuEvent(p, (unsigned)cpu, TRACE_STRING_NULL, &e);
  p->pSink->OpenBegin(p->pCtx, &e);
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
static int streamPeek(Walk *p, Stream *s, long long *pTs){
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
      if( endOf(ts, dur>0 ? dur : 0) < p->iFrom ){ s->iPos++; continue; }
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

static int streamOpen(Walk *p, int eKind, PTRACE_STORE pStore, Stream *s){
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
    walkFail(p, "%s: store %s has no ts column", p->pSession->Path,
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
  s->vcpu = colFind(pStore, "vcpu");
  if( eKind==K_KVM ){
    pickArgs(s, azSkipKvm);
  }else if( eKind==K_FTRACE || eKind==K_FAULT || eKind==K_SAMPLE ){
    pickArgs(s, azSkipEvent);
  }else{
    pickArgs(s, azSkipSpan);
    s->nArg = 0;
  }

  if( !bSorted ){
    unsigned long long i, n = 0;
    TsRow *a = malloc(sizeof(TsRow)*(s->nPos ? s->nPos : 1));
    if( a==0 ){
      walkFail(p, "out of memory ordering store %s (%llu rows)",
                 pStore->Name, s->nPos);
      return 1;
    }
    for(i=0; i<s->nPos; i++){
      long long ts = 0, dur = 0;
      const unsigned char *pRec = pStore->Base + i*pStore->RecordSize;
      colInt(pRec, s->ts.p, &ts);
      if( eKind==K_SPAN ){
        colInt(pRec, s->dur.p, &dur);
        if( endOf(ts, dur>0 ? dur : 0) < p->iFrom ) continue;
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

static void walkRow(Walk *p, Stream *s){
  const unsigned char *pRec = streamRecord(s);
  switch( s->eKind ){
    case K_SPAN:    walkSpan(p, s, pRec); break;
    case K_KVM:     walkKvmExit(p, s, pRec); break;
    case K_FTRACE:
    case K_FAULT:
    case K_SAMPLE:  walkInstant(p, s, pRec); break;
    case K_SCHED:   walkSched(p, s, pRec); break;
    case K_COUNTER: walkCounter(p, s, pRec); break;
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
static int isKvmName(Walk *p, TRACE_HASH_TABLE *pSeen, unsigned id){
  PTRACE_HASH_ENTRY e = TraceHashLookup(pSeen, (unsigned long long)id + 1);
  ULONG n;
  const char *z;
  if( e ) return (int)e->Value;
  z = exportIdText(p, id, &n);
  TraceHashSet(pSeen, (unsigned long long)id + 1,
               z && n>=4 && memcmp(z, "kvm_", 4)==0);
  return z && n>=4 && memcmp(z, "kvm_", 4)==0;
}

static int kvmWindow(Walk *p, long long *pFirst, long long *pLast){
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
      walkFail(p, "out of memory");
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
    walkFail(p, "%s: --window kvm: the session has no KVM events "
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
      zf = exportIdText(p, (unsigned)f, &nf);
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
** The walk.
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

static void dropMappings(Walk *p){
  int i;
  for(i=0; i<p->nStream; i++) dropStore(p->aStream[i].pStore);
  dropStore(&p->pSession->Strings.Index);
  dropStore(&p->pSession->Strings.Data);
}
int exportSession(PTRACE_SESSION pSession, const ExportOptions *pOpt,
                  FILE *out, ExportCounts *pCounts){
  const EXPORT_FORMAT *pFormat = pOpt->pFormat;
  EXPORT_HEADER header;
  Walk x;
  int i, rc;
  unsigned src;
  long long ts = 0, iOrigin;
  unsigned long long nSinceDrop = 0;
  TIME_MERGE merge;
  void *pMergeMemory = 0;

  memset(&x, 0, sizeof(x));
  x.pSession = pSession;
  x.pSink = pFormat->Sink;
  x.pCtx = calloc(1, pFormat->ContextSize);
  if( x.pCtx==0
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.named))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.namedThreads))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.tidPid))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.kvmLanes))
   || !RTL_SUCCESS(TraceHashInitialize(&Rtl, &x.kvmVcpus)) ){
    hostFail("out of memory");
    exit(1);
  }
  if( pFormat->Open(x.pCtx, out, &x)!=0 ){
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

  /* Where open slices are closed: the window's end, or the last ts; the
  ** origin: the first event of the exported stores, window or not. */
  x.iEnd = -0x7fffffffffffffffLL;
  iOrigin = 0x7fffffffffffffffLL;
  for(i=0; i<N_KIND; i++){
    PTRACE_STORE pStore = TraceSessionFindStore(pSession, azStore[i]);
    if( pStore==0 || !(pOpt->mStores & (1u<<i))
     || pStore->Snapshot.RecordCount==0 ) continue;
    if( pStore->Snapshot.LastTs > x.iEnd ) x.iEnd = pStore->Snapshot.LastTs;
    if( pStore->Snapshot.FirstTs < iOrigin ){
      iOrigin = pStore->Snapshot.FirstTs;
    }
  }
  if( iOrigin==0x7fffffffffffffffLL ) iOrigin = 0;
  if( x.iEnd>x.iTo ) x.iEnd = x.iTo;

  memset(&header, 0, sizeof(header));
  header.SessionPath = pSession->Path;
  header.ClockName = pSession->Header.ClockName;
  header.Origin = iOrigin;
  header.From = x.iFrom;
  header.To = x.iTo;
  header.HasFrom = x.iFrom<=x.iTo && x.iFrom!=(long long)0x8000000000000000ull;
  header.HasTo = x.iFrom<=x.iTo && x.iTo!=0x7fffffffffffffffLL;
  header.NumberOfStrings = pSession->Strings.Index.Snapshot.RecordCount;
  x.pSink->Begin(x.pCtx, &header);
  if( x.rc==0 && x.iFrom<=x.iTo ) nameFromStores(&x);

  for(i=0; i<N_KIND && x.rc==0 && x.iFrom<=x.iTo; i++){
    PTRACE_STORE pStore = TraceSessionFindStore(pSession, azStore[i]);
    if( pStore==0 || !(pOpt->mStores & (1u<<i)) ) continue;
    if( pStore->Snapshot.RecordCount==0 ) continue;
    if( streamOpen(&x, i, pStore, &x.aStream[x.nStream])==0 ){
      if( i==K_KVM ) kvmFindShared(&x, &x.aStream[x.nStream]);
      x.nStream++;
    }
  }

  pMergeMemory = malloc(TIME_MERGE_SIZE(x.nStream ? x.nStream : 1));
  if( pMergeMemory==0 ){ hostFail("out of memory"); exit(1); }
  TimeMergeInitialize(&merge, pMergeMemory);
  for(i=0; i<x.nStream && x.rc==0; i++){
    if( streamPeek(&x, &x.aStream[i], &ts) ){
      TimeMergeInsert(&merge, (ULONG)i, (ULONGLONG)ts ^ 0x8000000000000000ull);
    }
  }
  while( x.rc==0 && TimeMergeFirst(&merge, (PULONG)&src) ){
    Stream *s = &x.aStream[src];
    if( ++nSinceDrop == EXPORT_DROP_EVERY ){
      dropMappings(&x);
      nSinceDrop = 0;
    }
    walkRow(&x, s);
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
  for(src=0; src<x.nKvm && x.rc==0; src++){
    if( x.aKvm[src].bOpen ){
      kvmEnd(&x, &x.aKvm[src], x.iEnd>x.aKvm[src].start ? x.iEnd
                                                         : x.aKvm[src].start, 0);
    }
  }

  rc = x.pSink->End(x.pCtx, &pCounts->nEvents, &pCounts->nBytes);
  if( x.rc ) rc = x.rc;
  pCounts->iFrom = x.iFrom;
  pCounts->iTo = x.iTo;
  for(i=0; i<x.nStream; i++) free(x.aStream[i].aOrder);
  free(pMergeMemory);
  free(x.aCpu);
  free(x.aKvm);
  free(x.pCtx);
  TraceHashDestroy(&x.named);
  TraceHashDestroy(&x.namedThreads);
  TraceHashDestroy(&x.tidPid);
  TraceHashDestroy(&x.kvmLanes);
  TraceHashDestroy(&x.kvmVcpus);
  return rc;
}
