/*
** Workers.c: the threads behind the core's asynchronous RTL routines
** (pre-fault, write-back) and behind a reader's import jobs (TRACE_WORKER).
**
** Zone: hosted (Host/, the process's services): libc, pthreads.  Owns the
** worker threads and their queues.  Fills in Rtl.PrefaultMemoryAsync and
** Rtl.WriteBackAsync (the RTL of HostUtil.c) and hostImportWorker (the
** TRACE_WORKER of Readers/Import/TraceImport.h); calls the RTL's
** synchronous PrefaultMemory and WriteBack on its threads.
*/
#include <pthread.h>
#include <stdlib.h>

#include "Host/Host.h"

/*
** Pre-fault and write-back workers.  The store asks for the pages just
** ahead of the writer to be faulted in (Rtl.PrefaultMemoryAsync); a thread
** does it so the writer never waits on page faults.  If its queue is full
** the request runs inline, which is only slower, never wrong.  A second
** thread starts the write-back of the records behind the writer
** (Rtl.WriteBackAsync), so that closing has less to flush; those requests
** are dropped when their queue is full (close writes everything anyway).
** Two threads, because a write-back can block for a millisecond while the
** device takes the pages, and a pre-fault that waited behind it would
** leave the writer to fault the pages itself.
*/
#define PREFAULT_QUEUE 16
typedef struct PrefaultQueue PrefaultQueue;
struct PrefaultQueue {
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  struct { void *p; size_t n; HANDLE h; ULONGLONG iOff; } a[PREFAULT_QUEUE];
  unsigned nHead, nTail;
};
static PrefaultQueue prefaultQueue;   /* pre-faults */
static PrefaultQueue writeBackQueue;  /* write-backs */

static void *prefaultMain(void *pArg){
  PrefaultQueue *q = (PrefaultQueue*)pArg;
  for(;;){
    void *p; size_t n; HANDLE h; ULONGLONG iOff;
    pthread_mutex_lock(&q->mutex);
    while( q->nHead==q->nTail ){
      pthread_cond_wait(&q->cond, &q->mutex);
    }
    p = q->a[q->nHead % PREFAULT_QUEUE].p;
    n = q->a[q->nHead % PREFAULT_QUEUE].n;
    h = q->a[q->nHead % PREFAULT_QUEUE].h;
    iOff = q->a[q->nHead % PREFAULT_QUEUE].iOff;
    q->nHead++;
    pthread_mutex_unlock(&q->mutex);
    if( p ){
      Rtl.PrefaultMemory(&Rtl, p, n);
    }else{
      Rtl.WriteBack(&Rtl, h, iOff, n);
    }
  }
  return 0;
}

static void writeBackAsync(PRTL pRtl, HANDLE h, ULONGLONG iOff, ULONGLONG n){
  PrefaultQueue *q = &writeBackQueue;
  (void)pRtl;
  pthread_mutex_lock(&q->mutex);
  if( q->nTail - q->nHead < PREFAULT_QUEUE ){
    q->a[q->nTail % PREFAULT_QUEUE].p = 0;
    q->a[q->nTail % PREFAULT_QUEUE].n = (size_t)n;
    q->a[q->nTail % PREFAULT_QUEUE].h = h;
    q->a[q->nTail % PREFAULT_QUEUE].iOff = iOff;
    q->nTail++;
    pthread_cond_signal(&q->cond);
  }
  pthread_mutex_unlock(&q->mutex);
}

static void prefaultAsync(PRTL pRtl, PVOID p, SIZE_T n){
  PrefaultQueue *q = &prefaultQueue;
  int inline_ = 0;
  pthread_mutex_lock(&q->mutex);
  if( q->nTail - q->nHead >= PREFAULT_QUEUE ){
    inline_ = 1;
  }else{
    q->a[q->nTail % PREFAULT_QUEUE].p = p;
    q->a[q->nTail % PREFAULT_QUEUE].n = n;
    q->nTail++;
    pthread_cond_signal(&q->cond);
  }
  pthread_mutex_unlock(&q->mutex);
  if( inline_ ) pRtl->PrefaultMemory(pRtl, p, n);
}

/*
** Jobs a reader overlaps with its own work (TRACE_WORKER: the trace.dat
** reader indexes kallsyms while it parses the event formats).  A few per
** import, each milliseconds long, so a thread each.
*/
typedef struct ImportJob ImportJob;
struct ImportJob {
  pthread_t thread;
  PTRACE_JOB_ROUTINE xRoutine;
  PVOID pContext;
  int bDone;                  /* set, with release, when xRoutine returned */
};

static void *importJobMain(void *pArg){
  ImportJob *p = (ImportJob*)pArg;
  p->xRoutine(p->pContext);
  __atomic_store_n(&p->bDone, 1, __ATOMIC_RELEASE);
  return 0;
}

static BOOL importJobDone(PVOID pJob){
  return __atomic_load_n(&((ImportJob*)pJob)->bDone, __ATOMIC_ACQUIRE)!=0;
}

static PVOID importJobStart(PTRACE_JOB_ROUTINE xRoutine, PVOID pContext){
  ImportJob *p = malloc(sizeof(*p));
  if( p==0 ) return 0;
  p->xRoutine = xRoutine;
  p->pContext = pContext;
  p->bDone = 0;
  if( pthread_create(&p->thread, 0, importJobMain, p)!=0 ){
    free(p);
    return 0;
  }
  return p;
}

static void importJobWait(PVOID pJob){
  ImportJob *p = (ImportJob*)pJob;
  pthread_join(p->thread, 0);
  free(p);
}

const TRACE_WORKER hostImportWorker = {
  importJobStart, importJobDone, importJobWait
};

static int startQueueThread(PrefaultQueue *q){
  pthread_t t;
  pthread_mutex_init(&q->mutex, 0);
  pthread_cond_init(&q->cond, 0);
  if( pthread_create(&t, 0, prefaultMain, q)!=0 ) return 0;
  pthread_detach(t);
  return 1;
}

void hostStartWorkers(void){
  if( startQueueThread(&prefaultQueue) ){
    Rtl.PrefaultMemoryAsync = prefaultAsync;
  }
  if( startQueueThread(&writeBackQueue) ){
    Rtl.WriteBackAsync = writeBackAsync;
  }
}
