/*
** GenSession.c: writes a session of generated events through the store
** API, as Tracer's writers do, for the rollup tests and benchmarks.
**
** Zone: tests (hosted): libc, pthreads; the core's store API.
**
**   GenSession [options] SESSION
**     --spans N        span rows, as the importers write them: reserved at
**                      the call, filled at the return, committed up to the
**                      oldest call still open (CommitLimit)
**     --python N       span rows as the Python tracer writes them: at the
**                      call, flags 2 (running) and committed at once, their
**                      dur set to the commit's time at every commit, the
**                      final dur and flags 0 at the return
**     --leave-open     end with the calls (and lines) still running
**                      (python, lines: flags 2 stay, as when the program
**                      is killed or stopped)
**     --faults N       page_fault rows
**     --kvm N          kvm_exit rows
**     --lines N        line rows, as trace-python --lines writes them:
**                      flags 2 (running) at the line event, finished at
**                      the frame's next one or its return, running
**                      lines' dur set at every commit; of --names
**                      functions in 16 files, 20 lines each, calls up to
**                      --depth (at most 16) deep
**     --events N       ftrace_event rows (raw and named sys_enter, others)
**                      and one sched_switch row in sixteen
**     --threads T      threads of the span rows (8)
**     --names K        span names (200)
**     --depth D        deepest call (7)
**     --seed S         (1)
**     --commit-every C records between commits (4096)
**     --rate R         events per second of trace time (1e6)
**     --dup-names      some rows name their text through a second string
**                      id (TraceStringAppend), as past the intern limit
**     --fold-thread    fold the rollups on a second thread, as import and
**                      record do (RollupsElsewhere)
**     --slow US        sleep US microseconds after each commit
**     --report FILE    write "STORE COUNT" per store after each commit
**                      (what a writer had committed when it was killed)
**
** Every value is a function of the seed; two runs write the same session.
** Several runs into one session append, as imports do.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"

static RTL gRtl;
static uint64_t gRand = 88172645463325252ULL;

static uint64_t rnd(void){
  gRand ^= gRand << 13;
  gRand ^= gRand >> 7;
  gRand ^= gRand << 17;
  return gRand;
}
static uint64_t below(uint64_t n){ return n ? rnd() % n : 0; }

static void die(const char *z, const char *zWhy){
  fprintf(stderr, "GenSession: %s%s%s\n", z, zWhy ? ": " : "",
          zWhy ? zWhy : "");
  exit(1);
}

typedef struct Options Options;
struct Options {
  long long nSpans, nPython, nFaults, nKvm, nEvents, nLines;
  int nThreads, nNames, mxDepth, bLeaveOpen, bDupNames, bFoldThread;
  long long nCommitEvery;
  double rRate;
  long long nSlowUs;
  const char *zReport;
};

static TRACE_SESSION *gSession;
static int64_t gNow = 1000000000LL;     /* trace time, ns */
static double gStep;

static void tick(void){
  gNow += 1 + (int64_t)below((uint64_t)(2*gStep));
}

static ULONG intern(const char *z){
  ULONG id;
  if( !RTL_SUCCESS(TraceStringIntern(&gSession->Strings, z, (ULONG)strlen(z),
                                     &id)) ){
    die("cannot intern a string", z);
  }
  return id;
}

/* The id of z, sometimes (--dup-names) through a second, uninterned id. */
static ULONG nameId(const char *z, int bDup){
  ULONG id;
  if( bDup && below(5)==0 ){
    if( !RTL_SUCCESS(TraceStringAppend(&gSession->Strings, z,
                                       (ULONG)strlen(z),
                                       gRtl.Hash64(z, strlen(z)), &id)) ){
      die("cannot append a string", z);
    }
    return id;
  }
  return intern(z);
}

static PTRACE_STORE openStore(PCTRACE_STORE_SCHEMA pSchema){
  PTRACE_STORE p;
  RTL_ERROR err;
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenStore(gSession, pSchema, &p, &err)) ){
    die("cannot open a store", err.Message);
  }
  p->DiscardBehind = TRUE;
  return p;
}

static PBYTE reserve(PTRACE_STORE p, ULONGLONG *piRow){
  if( !RTL_SUCCESS(TraceStoreReserve(p, 1, piRow)) ) die("reserve", 0);
  return p->Base + *piRow * p->RecordSize;
}

static const Options *gOpt;
static long long gSinceCommit;

static void report(void){
  FILE *f;
  ULONG i;
  char zTmp[4096];
  if( gOpt->zReport==0 ) return;
  snprintf(zTmp, sizeof(zTmp), "%s.tmp", gOpt->zReport);
  f = fopen(zTmp, "w");
  if( f==0 ) die("cannot write the report", gOpt->zReport);
  for(i=0; i<gSession->NumberOfStores; i++){
    fprintf(f, "%s %llu\n", gSession->Stores[i].Name,
            (unsigned long long)gSession->Stores[i].CommittedCount);
  }
  fclose(f);
  rename(zTmp, gOpt->zReport);
}

static void (*gBeforeCommit)(void);

static void commit(void){
  if( gBeforeCommit ) gBeforeCommit();
  if( !RTL_SUCCESS(TraceSessionCommit(gSession)) ) die("commit", 0);
  report();
  if( gOpt->nSlowUs ) usleep((useconds_t)gOpt->nSlowUs);
  gSinceCommit = 0;
}

static void counted(void){
  if( ++gSinceCommit>=gOpt->nCommitEvery ) commit();
}

/* -------------------------------------------------------------------------
** Spans.
*/

typedef struct Frame Frame;
struct Frame {
  ULONGLONG iRow;
  int64_t iTs;
  int iName;
};

typedef struct Thread Thread;
struct Thread {
  unsigned tid;
  int nDepth;
  int nLeft;            /* events left in the current top-level call */
  Frame aFrame[64];
};

static PTRACE_STORE gSpan;
static ULONG *gaName;
static int gbPython;

/* The oldest row still open, for the importers' CommitLimit. */
static void spanLimit(Thread *aThread, int nThread){
  ULONGLONG lim = TRACE_COMMIT_ALL;
  int t;
  for(t=0; t<nThread; t++){
    if( aThread[t].nDepth>0 && aThread[t].aFrame[0].iRow<lim ){
      lim = aThread[t].aFrame[0].iRow;
    }
  }
  gSpan->CommitLimit = lim;
}

static Thread *gaThread;

/* Python style: every running call's dur is the commit's time. */
static void pythonRefresh(void){
  int t, d;
  for(t=0; t<gOpt->nThreads; t++){
    for(d=0; d<gaThread[t].nDepth; d++){
      PSPAN_RECORD r = (PSPAN_RECORD)(gSpan->Base
                       + gaThread[t].aFrame[d].iRow * sizeof(SPAN_RECORD));
      __atomic_store_n(&r->Duration, gNow - gaThread[t].aFrame[d].iTs,
                       __ATOMIC_RELAXED);
    }
  }
}

static void spanCall(Thread *t, int bDup){
  Frame *f = &t->aFrame[t->nDepth];
  PSPAN_RECORD r;
  int iName;
  char zName[32];
  if( t->nDepth>0 && below(5)==0 ){
    iName = t->aFrame[t->nDepth-1].iName;         /* recursion */
  }else{
    uint64_t x = below(1000);
    iName = (int)((x*x/1000) * (uint64_t)gOpt->nNames / 1000);
  }
  r = (PSPAN_RECORD)reserve(gSpan, &f->iRow);
  tick();
  r->Timestamp = gNow;
  r->Duration = 0;
  r->ParentId = t->nDepth ? (LONGLONG)t->aFrame[t->nDepth-1].iRow :
                (LONGLONG)TRACE_NULL_ULONGLONG;
  if( bDup ){
    snprintf(zName, sizeof(zName), "fn_%03d", iName);
    r->NameId = nameId(zName, 1);
  }else{
    r->NameId = gaName[iName];
  }
  r->Depth = (ULONG)t->nDepth;
  r->Tid = t->tid;
  r->Pid = 4242;
  r->CategoryId = TRACE_NULL_ULONG;
  r->ArgsId = TRACE_NULL_ULONG;
  r->Flags = gbPython ? SPAN_FLAG_END_MISSING : 0;
  r->Padding = 0;
  f->iTs = gNow;
  f->iName = iName;
  t->nDepth++;
}

static void spanReturn(Thread *t){
  Frame *f = &t->aFrame[--t->nDepth];
  PSPAN_RECORD r = (PSPAN_RECORD)(gSpan->Base + f->iRow*sizeof(SPAN_RECORD));
  tick();
  __atomic_store_n(&r->Duration, gNow - f->iTs, __ATOMIC_RELAXED);
  __atomic_store_n(&r->Flags, 0, __ATOMIC_RELEASE);
}

static void genSpans(long long nRow, int bPython){
  Thread *aThread = calloc((size_t)gOpt->nThreads, sizeof(Thread));
  long long nWritten = 0;
  int t, k;
  char zName[32];
  gSpan = openStore(&TraceSpanSchema);
  gbPython = bPython;
  gaThread = aThread;
  gaName = calloc((size_t)gOpt->nNames, sizeof(ULONG));
  for(k=0; k<gOpt->nNames; k++){
    snprintf(zName, sizeof(zName), "fn_%03d", k);
    gaName[k] = intern(zName);
  }
  for(t=0; t<gOpt->nThreads; t++) aThread[t].tid = 1000 + (unsigned)t;
  gBeforeCommit = bPython ? pythonRefresh : 0;
  while( nWritten<nRow ){
    Thread *th = &aThread[below((uint64_t)gOpt->nThreads)];
    if( th->nDepth==0 ){
      th->nLeft = 2 + (int)below(60);
      spanCall(th, gOpt->bDupNames);
      nWritten++;
    }else if( th->nLeft>0 && th->nDepth<gOpt->mxDepth && below(2)==0 ){
      th->nLeft--;
      spanCall(th, gOpt->bDupNames);
      nWritten++;
    }else{
      th->nLeft--;
      spanReturn(th);
      continue;
    }
    if( !bPython ) spanLimit(aThread, gOpt->nThreads);
    counted();
  }
  if( !gOpt->bLeaveOpen || !bPython ){
    for(t=0; t<gOpt->nThreads; t++){
      while( aThread[t].nDepth>0 ) spanReturn(&aThread[t]);
    }
  }
  gSpan->CommitLimit = TRACE_COMMIT_ALL;
  commit();
  gBeforeCommit = 0;
  free(aThread);
  free(gaName);
}

/* -------------------------------------------------------------------------
** Page faults, KVM exits, ftrace events.
*/

static void genFaults(long long nRow){
  static const ULONG aError[] = { TRACE_NULL_ULONG, 0x4, 0x6, 0x14, 0x5,
                                  0x7, 0x15, 0, 0x2 };
  PTRACE_STORE p = openStore(&TracePageFaultSchema);
  ULONG aComm[17], aModule[33], aName[2];
  char z[64];
  long long i;
  int k;
  for(k=0; k<17; k++){
    snprintf(z, sizeof(z), "proc%d", k);
    aComm[k] = intern(z);
  }
  for(k=0; k<32; k++){
    snprintf(z, sizeof(z), "/usr/lib/lib%c%d.so", 'a' + k%26, k);
    aModule[k] = intern(z);
  }
  aModule[32] = TRACE_NULL_ULONG;
  aName[0] = intern("page_fault_user");
  aName[1] = intern("page_fault_kernel");
  for(i=0; i<nRow; i++){
    ULONGLONG iRow;
    PPAGE_FAULT_RECORD r = (PPAGE_FAULT_RECORD)reserve(p, &iRow);
    int pid = (int)below(17);
    uint64_t addr = 0x400000 + below(1u<<24)*4096;
    tick();
    memset(r, 0, sizeof(*r));
    r->Timestamp = gNow;
    r->Address = below(20)==0 ? TRACE_NULL_ULONGLONG : addr;
    r->Ip = below(4)==0 ? r->Address : below(20)==0 ? TRACE_NULL_ULONGLONG :
            0x400000 + below(1u<<20);
    r->Tid = 100 + (ULONG)pid*3 + (ULONG)below(3);
    r->Pid = pid==16 ? TRACE_NULL_ULONG : 100 + (ULONG)pid;
    r->ErrorCode = aError[below(sizeof(aError)/sizeof(aError[0]))];
    r->NameId = aName[below(8)==0];
    r->CommId = pid==16 ? TRACE_NULL_ULONG :
                gOpt->bDupNames && below(5)==0 ?
                nameId(pid<10 ? "proc1" : "proc2", 1) : aComm[pid];
    r->IpSymbolId = TRACE_NULL_ULONG;
    r->Cpu = (ULONG)below(2);
    r->ModuleId = aModule[below(33)];
    r->IpModuleId = TRACE_NULL_ULONG;
    r->FaultKindId = TRACE_NULL_ULONG;
    r->ModuleOffset = TRACE_NULL_ULONGLONG;
    r->IpModuleOffset = TRACE_NULL_ULONGLONG;
    r->Hard = below(3)==0 ? TRACE_NULL_ULONG : (ULONG)below(2);
    r->Code = below(3)==0 ? TRACE_NULL_ULONG : (ULONG)below(2);
    counted();
  }
  commit();
}

/*
** Lines, as trace-python --lines writes them: a row at each line event of
** a thread's innermost frame, flags 2 (running) until the frame's next
** line event or its return finishes it (dur, self_dur, then flags 0 with
** release), the running lines' dur and self_dur set to the commit's time
** at every commit.  A call's time is its caller's line's, not its self
** time.  --leave-open ends with lines still running.
*/

typedef struct LineFrame LineFrame;
struct LineFrame {
  ULONGLONG iRow;       /* its running line's row */
  int bOpen;            /* a line runs */
  int64_t iTs;          /* that line's event */
  int64_t iChild;       /* time in calls the line made */
  int64_t iBegin;       /* the frame's call */
  int fn;               /* its function */
};

typedef struct LineThread LineThread;
struct LineThread {
  unsigned tid;
  int nDepth;
  LineFrame aFrame[16];
};

static PTRACE_STORE gLine;
static LineThread *gaLineThread;

static PLINE_RECORD lineRow(ULONGLONG iRow){
  return (PLINE_RECORD)(gLine->Base + iRow*sizeof(LINE_RECORD));
}

/* Sets a running line's dur and self_dur to now; returns its row. */
static PLINE_RECORD lineSetDur(const LineFrame *f){
  PLINE_RECORD r = lineRow(f->iRow);
  __atomic_store_n(&r->SelfDuration, gNow - f->iTs - f->iChild,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&r->Duration, gNow - f->iTs, __ATOMIC_RELAXED);
  return r;
}

static void lineEnd(LineFrame *f){
  __atomic_store_n(&lineSetDur(f)->Flags, 0, __ATOMIC_RELEASE);
  f->bOpen = 0;
}

static void lineRefresh(void){
  int t, d;
  for(t=0; t<gOpt->nThreads; t++){
    for(d=0; d<gaLineThread[t].nDepth; d++){
      LineFrame *f = &gaLineThread[t].aFrame[d];
      if( f->bOpen ) lineSetDur(f);
    }
  }
}

static void lineEvent(LineThread *t, const ULONG *aFile, const ULONG *aName){
  LineFrame *f = &t->aFrame[t->nDepth-1];
  PLINE_RECORD r;
  char z[64];
  tick();
  if( f->bOpen ) lineEnd(f);
  r = (PLINE_RECORD)reserve(gLine, &f->iRow);
  memset(r, 0, sizeof(*r));
  r->Timestamp = gNow;
  r->SpanId = TRACE_NULL_LONGLONG;
  if( gOpt->bDupNames && below(3)==0 ){
    snprintf(z, sizeof(z), "/src/pkg/mod%d.py", f->fn % 16);
    r->FileId = nameId(z, 1);
    snprintf(z, sizeof(z), "pkg.mod%d.f%d", f->fn % 16, f->fn);
    r->NameId = nameId(z, 1);
  }else{
    r->FileId = aFile[f->fn % 16];
    r->NameId = aName[f->fn];
  }
  r->LineNo = 1 + (ULONG)(f->fn / 16) * 20 + (ULONG)below(20);
  r->Tid = t->tid;
  r->Flags = SPAN_FLAG_END_MISSING;
  f->bOpen = 1;
  f->iTs = gNow;
  f->iChild = 0;
}

static void lineCall(LineThread *t){
  LineFrame *f = &t->aFrame[t->nDepth++];
  tick();
  memset(f, 0, sizeof(*f));
  f->iBegin = gNow;
  f->fn = (int)below((uint64_t)gOpt->nNames);
}

static void lineReturn(LineThread *t){
  LineFrame *f = &t->aFrame[--t->nDepth];
  tick();
  if( f->bOpen ) lineEnd(f);
  if( t->nDepth>0 ) t->aFrame[t->nDepth-1].iChild += gNow - f->iBegin;
}

static void genLines(long long nRow){
  LineThread *aThread = calloc((size_t)gOpt->nThreads, sizeof(LineThread));
  ULONG aFile[16];
  ULONG *aName = malloc(sizeof(ULONG) * (size_t)gOpt->nNames);
  long long nWritten = 0;
  char z[64];
  int k, mxDepth = gOpt->mxDepth < 16 ? gOpt->mxDepth : 16;
  if( aName==0 || aThread==0 ) die("out of memory", 0);
  gLine = openStore(&TraceLineSchema);
  for(k=0; k<16; k++){
    snprintf(z, sizeof(z), "/src/pkg/mod%d.py", k);
    aFile[k] = intern(z);
  }
  for(k=0; k<gOpt->nNames; k++){
    snprintf(z, sizeof(z), "pkg.mod%d.f%d", k % 16, k);
    aName[k] = intern(z);
  }
  for(k=0; k<gOpt->nThreads; k++) aThread[k].tid = 100 + (unsigned)k;
  gaLineThread = aThread;
  gBeforeCommit = lineRefresh;
  while( nWritten<nRow ){
    LineThread *t = &aThread[below((uint64_t)gOpt->nThreads)];
    uint64_t x = below(16);
    if( t->nDepth==0 || (x==0 && t->nDepth<mxDepth) ){
      lineCall(t);
    }else if( x==1 ){
      lineReturn(t);
      continue;
    }
    lineEvent(t, aFile, aName);
    nWritten++;
    counted();
  }
  if( !gOpt->bLeaveOpen ){
    for(k=0; k<gOpt->nThreads; k++){
      while( aThread[k].nDepth>0 ) lineReturn(&aThread[k]);
    }
  }
  commit();
  gBeforeCommit = 0;
  free(aThread);
  free(aName);
}

static void genKvm(long long nRow){
  static const char *const azReason[] = {
    "EPT_VIOLATION", "IO_INSTRUCTION", "HLT", "MSR_WRITE", "MSR_READ",
    "EXTERNAL_INTERRUPT", "PREEMPTION_TIMER", "EPT_MISCONFIG", "CPUID",
    "PAUSE_INSTRUCTION", "0x0000001e", "UNKNOWN", "npf", "io", "hlt",
    "msr", "intr", "vintr", "cr8_write", "xsetbv"
  };
  PTRACE_STORE p = openStore(&TraceKvmExitSchema);
  ULONG aReason[20], args;
  long long i;
  int k;
  for(k=0; k<20; k++) aReason[k] = intern(azReason[k]);
  args = intern("vcpu 0 reason X rip 0x0");
  for(i=0; i<nRow; i++){
    ULONGLONG iRow;
    PKVM_EXIT_RECORD r = (PKVM_EXIT_RECORD)reserve(p, &iRow);
    uint64_t x = below(20);
    int iReason = (int)(x*x/20);
    tick();
    r->Timestamp = gNow;
    /* log-uniform from ~200 ns to ~10 ms; 3% without an entry */
    r->Duration = below(33)==0 ? TRACE_NULL_LONGLONG :
      (LONGLONG)(200.0 * __builtin_exp((double)below(1000000)/1000000.0 *
                                       10.8));
    r->Rip = 0xffffffff81000000ULL + below(1u<<20);
    r->ReasonId = gOpt->bDupNames ? nameId(azReason[iReason], 1) :
                  aReason[iReason];
    r->Vcpu = (ULONG)below(4);
    r->Tid = 2000 + r->Vcpu;
    r->Pid = 1999;
    r->Cpu = (ULONG)below(2);
    r->CommId = intern("CPU 0/KVM");
    r->ArgsId = args;
    r->ExitCode = iReason==11 || below(10)==0 ? TRACE_NULL_ULONG :
                  (ULONG)iReason*3;
    r->Tsc = TRACE_NULL_ULONGLONG;
    counted();
  }
  commit();
}

static void genEvents(long long nRow){
  static const char *const azName[] = {
    "sys_enter", "sys_enter_read", "sys_enter_write", "sys_enter_openat",
    "sched_wakeup", "irq_handler_entry", "sys_enter_futex", "kmem_cache_alloc"
  };
  PTRACE_STORE p = openStore(&TraceFtraceEventSchema);
  PTRACE_STORE pSwitch = openStore(&TraceSchedSwitchSchema);
  ULONG aName[8], aComm[4], aArgs[64], wake, irq, state;
  char z[128];
  long long i;
  int k;
  for(k=0; k<8; k++) aName[k] = intern(azName[k]);
  for(k=0; k<4; k++){
    snprintf(z, sizeof(z), "task%d", k);
    aComm[k] = intern(z);
  }
  for(k=0; k<64; k++){
    int nr = k<60 ? (int)below(450) : k==60 ? -1 : k==61 ? 99999 : 0;
    if( k==62 ){
      snprintf(z, sizeof(z), "NR 99999999999999999999999 (0)");
    }else if( k==63 ){
      snprintf(z, sizeof(z), "NR x (0)");
    }else{
      snprintf(z, sizeof(z), "NR %d (%llx, %llx, 0)", nr,
               (unsigned long long)below(1u<<20),
               (unsigned long long)below(4096));
    }
    aArgs[k] = intern(z);
  }
  wake = intern("comm=task1 pid=7 prio=120 target_cpu=001");
  irq = intern("irq=24 name=virtio0");
  state = intern("S");
  for(i=0; i<nRow; i++){
    ULONGLONG iRow;
    int iName;
    tick();
    if( below(16)==0 ){
      PSCHED_SWITCH_RECORD s = (PSCHED_SWITCH_RECORD)reserve(pSwitch, &iRow);
      s->Timestamp = gNow;
      s->Cpu = (ULONG)below(2);
      s->PrevPid = 7;
      s->PrevCommId = aComm[1];
      s->PrevPrio = 120;
      s->PrevStateId = state;
      s->NextPid = 0;
      s->NextCommId = aComm[0];
      s->NextPrio = 120;
      s->RawId = TRACE_STRING_NULL;
      s->Padding = 0;
    }else{
      PFTRACE_EVENT_RECORD r = (PFTRACE_EVENT_RECORD)reserve(p, &iRow);
      iName = (int)below(8);
      r->Timestamp = gNow;
      r->NameId = gOpt->bDupNames && iName<4 ? nameId(azName[iName], 1) :
                  aName[iName];
      r->CommId = aComm[below(4)];
      r->Tid = 7 + (ULONG)below(4);
      r->Pid = below(10)==0 ? TRACE_NULL_ULONG : 7;
      r->Cpu = (ULONG)below(2);
      r->FlagsId = TRACE_NULL_ULONG;
      r->ArgsId = iName==0 ? aArgs[below(64)] : iName==4 ? wake :
                  iName==5 ? irq : aArgs[below(60)];
      r->RawId = TRACE_STRING_NULL;
    }
    counted();
  }
  commit();
}

/* -------------------------------------------------------------------------
** The fold thread (--fold-thread), as Live/LiveRollups.c.
*/

static volatile int gbStopFold;

static void *foldMain(void *p){
  (void)p;
  while( !__atomic_load_n(&gbStopFold, __ATOMIC_ACQUIRE) ){
    TraceSessionUpdateRollups(gSession, FALSE);
    usleep(2000);
  }
  return 0;
}

int main(int argc, char **argv){
  Options o;
  RTL_ERROR err;
  pthread_t fold;
  const char *zSession = 0;
  unsigned long long seed = 1;
  int i;

  memset(&o, 0, sizeof(o));
  o.nThreads = 8;
  o.nNames = 200;
  o.mxDepth = 7;
  o.nCommitEvery = 4096;
  o.rRate = 1e6;
  for(i=1; i<argc; i++){
    const char *z = argv[i];
    const char *v = i+1<argc ? argv[i+1] : "0";
    if( strcmp(z, "--spans")==0 ){ o.nSpans = atoll(v); i++; }
    else if( strcmp(z, "--python")==0 ){ o.nPython = atoll(v); i++; }
    else if( strcmp(z, "--faults")==0 ){ o.nFaults = atoll(v); i++; }
    else if( strcmp(z, "--kvm")==0 ){ o.nKvm = atoll(v); i++; }
    else if( strcmp(z, "--events")==0 ){ o.nEvents = atoll(v); i++; }
    else if( strcmp(z, "--lines")==0 ){ o.nLines = atoll(v); i++; }
    else if( strcmp(z, "--threads")==0 ){ o.nThreads = atoi(v); i++; }
    else if( strcmp(z, "--names")==0 ){ o.nNames = atoi(v); i++; }
    else if( strcmp(z, "--depth")==0 ){ o.mxDepth = atoi(v); i++; }
    else if( strcmp(z, "--seed")==0 ){ seed = strtoull(v, 0, 0); i++; }
    else if( strcmp(z, "--commit-every")==0 ){ o.nCommitEvery = atoll(v); i++; }
    else if( strcmp(z, "--rate")==0 ){ o.rRate = atof(v); i++; }
    else if( strcmp(z, "--slow")==0 ){ o.nSlowUs = atoll(v); i++; }
    else if( strcmp(z, "--report")==0 ){ o.zReport = v; i++; }
    else if( strcmp(z, "--leave-open")==0 ){ o.bLeaveOpen = 1; }
    else if( strcmp(z, "--dup-names")==0 ){ o.bDupNames = 1; }
    else if( strcmp(z, "--fold-thread")==0 ){ o.bFoldThread = 1; }
    else if( z[0]=='-' ){ die("unknown option", z); }
    else zSession = z;
  }
  if( zSession==0 || o.nThreads<1 || o.nThreads>64 || o.nNames<1
   || o.mxDepth<1 || o.mxDepth>60 || o.nCommitEvery<1 ){
    die("usage: GenSession [--spans N] [--python N] [--faults N] [--kvm N] "
        "[--events N] [--lines N] [options] SESSION (see the source)", 0);
  }
  gOpt = &o;
  gRand ^= seed * 0x9E3779B97F4A7C15ULL;
  if( gRand==0 ) gRand = 1;
  gStep = 1e9 / o.rRate;
  if( gStep<1 ) gStep = 1;

  if( !RTL_SUCCESS(InitializeRtl(&gRtl)) ) die("InitializeRtl", 0);
  gSession = calloc(1, sizeof(*gSession));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&gRtl, zSession, gSession, &err)) ){
    die("cannot open the session", err.Message);
  }
  if( o.bFoldThread ){
    gSession->RollupsElsewhere = TRUE;
    if( pthread_create(&fold, 0, foldMain, 0)!=0 ) die("pthread_create", 0);
  }
  if( o.nSpans ) genSpans(o.nSpans, 0);
  if( o.nPython ) genSpans(o.nPython, 1);
  if( o.nFaults ) genFaults(o.nFaults);
  if( o.nKvm ) genKvm(o.nKvm);
  if( o.nEvents ) genEvents(o.nEvents);
  if( o.nLines ) genLines(o.nLines);
  if( o.bFoldThread ){
    __atomic_store_n(&gbStopFold, 1, __ATOMIC_RELEASE);
    pthread_join(fold, 0);
  }
  TraceSessionClose(gSession);
  free(gSession);
  return 0;
}
