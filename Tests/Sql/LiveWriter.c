/*
** LiveWriter.c: a capture that keeps appending, for the cross-process
** snapshot tests (Tests/Sql/live_test.py).
**
** Usage:
**
**     LiveWriter SESSION step
**         Reads commands on stdin, one a line:
**           append N    appends N records to each store and commits;
**                       prints "committed TOTAL" (flushed) when done
**           quit        closes the session and exits
**
**     LiveWriter SESSION loop SECONDS BATCH PAUSE_US
**         Appends BATCH records to each store and commits, then sleeps
**         PAUSE_US microseconds, for SECONDS seconds (or until SIGTERM).
**         After each commit prints "commit TOTAL T" with T the
**         CLOCK_MONOTONIC time in seconds (Python's time.monotonic()), so
**         that a test can measure the writer's progress while a reader
**         holds a long query open.  Write stdout to a file, not a pipe that
**         nobody reads: a full pipe would stop the writer.
**
** The session gets two stores, page_fault and sched_switch.  Record i of
** either has ts = 1000 + 10*i; page_fault's address is i, its name
** "fault_" || (i % 3) and its comm "batch" || (the commit it was written in,
** counted from 1), so every commit adds a string too.  sched_switch's
** prev_pid and next_pid are i and i + 1.  A reader can therefore check any
** row, and any count against max(ts), from arithmetic alone.
**
** Records are written through the store API exactly as `tracestore import`
** writes them: strings are committed before the records that use them.  A
** hosted program: libc is fine here.
*/
#define _GNU_SOURCE 1

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"

static void fail(const char *zFormat, ...)
  __attribute__((noreturn, format(printf, 1, 2)));

static void fail(const char *zFormat, ...){
  va_list ap;
  fprintf(stderr, "LiveWriter: ");
  va_start(ap, zFormat);
  vfprintf(stderr, zFormat, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

typedef struct Writer Writer;
struct Writer {
  RTL rtl;
  TRACE_SESSION *pSession;
  PTRACE_STORE pFault;         /* page_fault */
  PTRACE_STORE pSwitch;        /* sched_switch */
  long long nRecord;           /* Records per store committed so far */
  long long nCommit;           /* Commits so far */
};

static volatile sig_atomic_t bStop = 0;
static void onTerm(int sig){ (void)sig; bStop = 1; }

static double monotonicSeconds(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec/1e9;
}

static ULONG intern(Writer *p, const char *z){
  ULONG id;
  if( !RTL_SUCCESS(TraceStringIntern(&p->pSession->Strings, z,
                                     (ULONG)strlen(z), &id)) ){
    fail("cannot intern '%s'", z);
  }
  return id;
}

static void writerOpen(Writer *p, const char *zDir){
  RTL_ERROR error;
  memset(p, 0, sizeof(*p));
  memset(&error, 0, sizeof(error));
  if( !RTL_SUCCESS(InitializeRtl(&p->rtl)) ) fail("InitializeRtl");
  p->pSession = calloc(1, sizeof(*p->pSession));
  if( p->pSession==0 ) fail("out of memory");
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&p->rtl, zDir, p->pSession,
                                          &error)) ){
    fail("%s: %s", zDir, error.Message);
  }
  /* Named right after the open, as Tracer's writers name theirs (push
  ** --follow waits for a live writer's host before it pushes). */
  {
    TRACE_SESSION_HOST host;
    memset(&host, 0, sizeof(host));
    snprintf(host.HostName, sizeof(host.HostName), "livewriter");
    if( !RTL_SUCCESS(TraceSessionSetHost(p->pSession, &host)) ){
      fail("%s: cannot write the session header", zDir);
    }
  }
  if( !RTL_SUCCESS(TraceSessionOpenStore(p->pSession, &TracePageFaultSchema,
                                         &p->pFault, &error))
   || !RTL_SUCCESS(TraceSessionOpenStore(p->pSession, &TraceSchedSwitchSchema,
                                         &p->pSwitch, &error)) ){
    fail("%s: %s", zDir, error.Message);
  }
  /* Make both stores visible (empty) before the first append. */
  if( !RTL_SUCCESS(TraceSessionCommit(p->pSession)) ) fail("commit");
}

/* Appends records [nRecord, nRecord+n) to both stores and commits. */
static void writerAppend(Writer *p, long long n){
  PAGE_FAULT_RECORD f;
  SCHED_SWITCH_RECORD s;
  ULONGLONG iIndex;
  ULONG aNameId[3], commId, stateId;
  char zText[32];
  long long k;

  p->nCommit++;
  for(k=0; k<3; k++){
    snprintf(zText, sizeof(zText), "fault_%d", (int)k);
    aNameId[k] = intern(p, zText);
  }
  snprintf(zText, sizeof(zText), "batch%lld", p->nCommit);
  commId = intern(p, zText);
  stateId = intern(p, "S");
  for(k=0; k<n; k++){
    long long i = p->nRecord + k;
    memset(&f, 0, sizeof(f));
    f.Timestamp = 1000 + 10*i;
    f.Address = (ULONGLONG)i;
    f.Ip = TRACE_NULL_ULONGLONG;
    f.Tid = (ULONG)(i % 1000);
    f.Pid = TRACE_NULL_ULONG;
    f.NameId = aNameId[i % 3];
    f.CommId = commId;
    f.IpSymbolId = TRACE_NULL_ULONG;
    f.Cpu = (ULONG)(i % 2);
    f.ModuleId = TRACE_NULL_ULONG;
    f.IpModuleId = TRACE_NULL_ULONG;
    if( !RTL_SUCCESS(TraceStoreAppend(p->pFault, &f, &iIndex))
     || iIndex!=(ULONGLONG)i ){
      fail("append page_fault record %lld", i);
    }
    memset(&s, 0, sizeof(s));
    s.Timestamp = 1000 + 10*i;
    s.Cpu = (ULONG)(i % 2);
    s.PrevPid = (ULONG)i;
    s.PrevCommId = commId;
    s.PrevStateId = stateId;
    s.NextPid = (ULONG)(i + 1);
    s.NextCommId = commId;
    s.RawId = TRACE_STRING_NULL;
    if( !RTL_SUCCESS(TraceStoreAppend(p->pSwitch, &s, &iIndex))
     || iIndex!=(ULONGLONG)i ){
      fail("append sched_switch record %lld", i);
    }
  }
  if( !RTL_SUCCESS(TraceSessionCommit(p->pSession)) ) fail("commit");
  p->nRecord += n;
}

static void runStep(Writer *p){
  char zLine[128];
  long long n;
  while( fgets(zLine, sizeof(zLine), stdin) ){
    if( sscanf(zLine, "append %lld", &n)==1 && n>=0 ){
      writerAppend(p, n);
      printf("committed %lld\n", p->nRecord);
      fflush(stdout);
    }else if( strncmp(zLine, "quit", 4)==0 ){
      break;
    }else{
      fail("unknown command: %s", zLine);
    }
  }
}

static void runLoop(Writer *p, double rSeconds, long long nBatch,
                    long nPauseUs){
  double rStart = monotonicSeconds();
  struct timespec pause;
  pause.tv_sec = nPauseUs / 1000000;
  pause.tv_nsec = (nPauseUs % 1000000) * 1000;
  while( !bStop && monotonicSeconds() - rStart < rSeconds ){
    writerAppend(p, nBatch);
    printf("commit %lld %.6f\n", p->nRecord, monotonicSeconds());
    if( nPauseUs>0 ) nanosleep(&pause, 0);
  }
  fflush(stdout);
}

int main(int argc, char **argv){
  Writer w;
  signal(SIGTERM, onTerm);
  if( argc==3 && strcmp(argv[2], "step")==0 ){
    writerOpen(&w, argv[1]);
    printf("committed 0\n");
    fflush(stdout);
    runStep(&w);
  }else if( argc==6 && strcmp(argv[2], "loop")==0 ){
    writerOpen(&w, argv[1]);
    runLoop(&w, atof(argv[3]), atoll(argv[4]), atol(argv[5]));
  }else{
    fprintf(stderr, "usage: LiveWriter SESSION step\n"
                    "       LiveWriter SESSION loop SECONDS BATCH PAUSE_US\n");
    return 2;
  }
  TraceSessionClose(w.pSession);
  free(w.pSession);
  return 0;
}
