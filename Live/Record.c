/*
** Record.c: the live recorder: capture from a private tracefs instance
** into a session until a stop condition (recordRun, see Record.h).
**
** Zone: hosted (the live recorders): libc, pthreads, the kernel's tracefs
** files.  Owns the instance, the per-CPU reader threads and their page
** queues, the time-ordered merge and the recording's summary.  Calls the
** core (TraceStore/ for the session, Readers/Import/TraceImport.h for the
** import, the ftrace ring-buffer decoder and event sink of
** Readers/Decoders/Ftrace/TraceEvent.h), RecordTasks.c for processes and
** mappings, and HostText.c to read files.  It does not include
** the command's files: the command line (Cli/CmdRecord.c) parses the
** arguments and the usage, and passes in xFail, the routine that prints
** "tracestore record: " error lines (so the CLI's one copy of it serves).
**
** recordRun runs eight phases, each a routine that owns one part of the
** work: recSetUp (tracefs, the instance, the formats and filters),
** recOpenSession (session, import, sink, task model), recChooseTasks (the
** command or -p), recStartReaders (threads, perf side-band, /proc),
** recStart (enable), recLoop (merge and commit until a stop), recDrain
** (switch off, read what is left) and recClose (end the import, summary,
** free, reap).  A phase returns 1 after reporting its error; recClose runs
** on every path.
**
** How it works:
**
**   - A private tracefs instance, instances/tracestore-PID, so that other
**     tracing on the machine (the top-level buffer, trace-cmd, other
**     recorders) neither disturbs it nor is disturbed.  Instances left by
**     recorders that died (SIGKILL) are removed when the next one starts;
**     ours is removed on exit, SIGINT and SIGTERM.  Its trace_clock is
**     "mono", so event times compare with CLOCK_MONOTONIC.
**
**   - Event formats come from the instance's events/SYS/EVENT/format files
**     and events/header_page: the same decoders (Decoders/Ftrace/
**     TraceEvent.c) and sink (TraceEventImport.c) the trace.dat reader
**     uses turn ring-buffer pages into records.
**
**   - One reader thread per CPU reads per_cpu/cpuN/trace_pipe_raw (whole
**     ring-buffer pages, non-blocking, polling every millisecond) into a
**     queue, up to 4 ring buffers' worth (at least 16 MB) ahead of the
**     decoder; beyond that it leaves the pages in the ring buffer, where
**     the kernel counts what it overwrites as lost.  The main thread alone
**     touches the session: it decodes the
**     queued pages and merges the CPUs in time order, but only up to a
**     watermark WINDOW_NS behind the present, so that a CPU whose pages
**     are not read yet cannot be overtaken (events later than that arrive
**     out of order and are counted as "late").  It commits at least every
**     COMMIT_NS, so SQL readers see new records within about
**     WINDOW_NS + COMMIT_NS.
**
**   - With -- COMMAND the child is forked first and waits on a pipe; its
**     pid is written to set_event_pid (once: replacing the list while
**     events are enabled lets other tasks' events through on 6.x kernels)
**     with options/event-fork, so its children follow; then the events are
**     enabled and the child execs.  Its events before the write (fork to
**     pipe wait) are not recorded.
**
**   - Processes and their mappings (RecordTasks.c): a thread's process
**     and that process's /proc/PID/maps when the thread is first seen,
**     then perf side-band records (mmap, fork, exec) applied in event time
**     before the events that follow them.  The maps go to the module
**     store; page faults get their process (pid) and the mapping of their
**     address and ip (module, ip_module), "//anon" for anonymous memory,
**     with their module offsets and code/data.  With page-fault events,
**     perf's minor-faults/major-faults samples say hard or soft (docs/sql.md,
**     "Page-fault classes"); they wait COUNT_HOLD_NS at most for their
**     fault event.
**
**   - On stop (the command exits, Ctrl-C, --duration, --max-size) tracing
**     is switched off, the readers drain the buffers, everything is
**     appended and committed, and per_cpu/cpuN/stats (overrun, commit
**     overrun, dropped events) gives the lost events, kept as the
**     ftrace_event store's dropped count.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "Readers/Decoders/Ftrace/TraceEvent.h"
#include "LiveRollups.h"
#include "Host/HostText.h"
#include "Record.h"
#include "RecordTasks.h"

#define WINDOW_NS   5000000LL     /* merge watermark behind the present */
#define COMMIT_NS   5000000LL     /* commit at least this often */
#define COUNT_HOLD_NS 250000000LL /* a fault count waits for its fault */
#define POLL_US     1000          /* reader sleep when a CPU is empty */
#define MAX_CPUS    1024

/* A ring-buffer page read from trace_pipe_raw. */
typedef struct RecPage RecPage;
struct RecPage {
  RecPage *pNext;
  size_t n;
  unsigned char a[];
};

typedef struct Recorder Recorder;

/* One CPU: the reader thread's queue and the main thread's decoder. */
typedef struct RecCpu {
  Recorder *pRec;
  int iCpu;
  int fd;
  int bThread;
  int iErrno;                   /* read error of the reader thread */
  pthread_t thread;
  pthread_mutex_t mutex;
  RecPage *pHead, *pTail;       /* filled by the reader thread */
  unsigned long long nBytes;    /* read by the reader thread */
  unsigned long long nQueued;   /* bytes read and not yet decoded (atomic) */
  unsigned long long nLost;     /* overruns and drops in its stats */
  /* Main thread only. */
  RecPage *pQHead, *pQTail;     /* taken from the reader, not decoded */
  RecPage *pCur;                /* page being decoded */
  TRACE_RING_PAGE page;
  TRACE_RING_EVENT ev;
  int bHasEvent;
} RecCpu;

struct Recorder {
  PRTL pRtl;
  const RecordOptions *pOpts;   /* what to record, and how to stop */
  void (*xFail)(const char *zFormat, ...);  /* pOpts->xFail */
  char zTracefs[256];           /* tracefs mount point */
  char zInst[512];              /* our instance directory, or "" */
  size_t szPage;                /* ring-buffer page: header + data */
  TRACE_PAGE_LAYOUT layout;
  int nCpu;
  RecCpu *aCpu;
  volatile int bDrain;          /* readers: stop at the first empty read */
  unsigned long long mxQueued;  /* a reader waits above this, unless draining */
  TRACE_EVENT_TABLE table;
  int bTable;
  TRACE_EVENT_SINK *pSink;
  TRACE_IMPORT imp;
  char *zKallsyms;
  char *zPrintk;
  long long lastTs;
  unsigned long long nLate;     /* events older than one already appended */
  unsigned long long nBad;      /* records the decoder refused */
  unsigned long long nPageLost; /* missed events flagged in page headers */
  unsigned long long nStatsLost;/* from per_cpu/cpuN/stats */
  RecTasks *pTasks;             /* processes and their mappings */
  LiveRollups *pRollups;        /* the thread folding the rollups */
  int iExecType;                /* common_type of sched_process_exec, or -1 */
  int nEvent;                   /* event directories enabled */
  char **azEventDir;
  PTRACE_SESSION pSession;      /* the session written, once open */
  int bImport;                  /* imp begun: it must be ended */
  pid_t child;                  /* the -- COMMAND, until it is waited for */
  int aPipe[2];                 /* holds the command until we are ready */
  int iChildStatus;             /* its wait status, or -1 */
  long long t0;                 /* CLOCK_MONOTONIC ns at the start */
  const char *zWhy;             /* why the recording stopped */
};

static volatile sig_atomic_t recStop = 0;
static void recOnSignal(int sig){ (void)sig; recStop = 1; }

static long long monoNs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000000000LL + ts.tv_nsec;
}

/* snprintf for paths (a path that does not fit is cut, and then not found). */
static void pathf(char *zBuf, size_t nBuf, const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  vsnprintf(zBuf, nBuf, zFormat, ap);
  va_end(ap);
}

/* Writes z to DIR/NAME; returns 0 or an errno. */
static int writeFile(const char *zDir, const char *zName, const char *z){
  char zPath[1024];
  int fd, rc = 0;
  pathf(zPath, sizeof(zPath), "%s/%s", zDir, zName);
  fd = open(zPath, O_WRONLY|O_TRUNC);
  if( fd<0 ) return errno;
  if( write(fd, z, strlen(z))<0 ) rc = errno;
  close(fd);
  return rc;
}

/*
** Finds tracefs, mounting it at /sys/kernel/tracing if nothing is there.
*/
static int findTracefs(Recorder *p){
  static const char *azTry[] = {
    "/sys/kernel/tracing", "/sys/kernel/debug/tracing"
  };
  struct stat st;
  char zPath[300];
  int i;
  for(i=0; i<2; i++){
    pathf(zPath, sizeof(zPath), "%s/instances", azTry[i]);
    if( stat(zPath, &st)==0 ){
      pathf(p->zTracefs, sizeof(p->zTracefs), "%s", azTry[i]);
      return 0;
    }
  }
  if( mount("nodev", azTry[0], "tracefs", 0, 0)!=0 ){
    p->xFail("tracefs is not mounted and mounting it at %s failed: %s "
            "(recording needs root)", azTry[0], strerror(errno));
    return 1;
  }
  pathf(p->zTracefs, sizeof(p->zTracefs), "%s", azTry[0]);
  return 0;
}

/*
** Removes the instances of recorders that are no longer running.
*/
static void removeStaleInstances(Recorder *p){
  char zDir[512];
  DIR *pDir;
  struct dirent *pEnt;
  pathf(zDir, sizeof(zDir), "%s/instances", p->zTracefs);
  pDir = opendir(zDir);
  if( pDir==0 ) return;
  while( (pEnt = readdir(pDir))!=0 ){
    char *zEnd;
    long pid;
    if( strncmp(pEnt->d_name, "tracestore-", 11)!=0 ) continue;
    pid = strtol(pEnt->d_name+11, &zEnd, 10);
    if( *zEnd!=0 || pid<=0 ) continue;
    if( kill((pid_t)pid, 0)==0 || errno!=ESRCH ) continue;
    {
      char zInst[800];
      pathf(zInst, sizeof(zInst), "%s/%s", zDir, pEnt->d_name);
      writeFile(zInst, "tracing_on", "0");
      writeFile(zInst, "events/enable", "0");
      if( rmdir(zInst)==0 ){
        fprintf(stderr, "tracestore record: removed the instance of "
                "recorder %ld, which is no longer running\n", pid);
      }else{
        p->xFail("cannot remove the stale instance %s: %s", zInst,
                strerror(errno));
      }
    }
  }
  closedir(pDir);
}

/* Switches our instance off and removes it. */
static void removeInstance(Recorder *p){
  if( p->zInst[0]==0 ) return;
  writeFile(p->zInst, "tracing_on", "0");
  writeFile(p->zInst, "events/enable", "0");
  writeFile(p->zInst, "set_event_pid", "");
  if( rmdir(p->zInst)!=0 ){
    p->xFail("cannot remove the instance %s: %s", p->zInst, strerror(errno));
  }
  p->zInst[0] = 0;
}

/*
** Selects the event directories of one -e argument: SYSTEM, SYSTEM:EVENT
** (EVENT may be a glob) or a bare EVENT name found in any system.  Loads
** each one's format; the filter, if any, and "1" are written later.
*/
static int addEvents(Recorder *p, const char *zSpec, int *pnFirst){
  char zPattern[1024];
  const char *zColon = strchr(zSpec, ':');
  struct stat st;
  glob_t g;
  size_t i;
  int rc;

  if( zColon ){
    pathf(zPattern, sizeof(zPattern), "%s/events/%.*s/%s", p->zInst,
             (int)(zColon-zSpec), zSpec, zColon[1] ? zColon+1 : "*");
  }else{
    pathf(zPattern, sizeof(zPattern), "%s/events/%s", p->zInst, zSpec);
    if( stat(zPattern, &st)==0 && S_ISDIR(st.st_mode) ){
      pathf(zPattern, sizeof(zPattern), "%s/events/%s/*", p->zInst,
               zSpec);
    }else{
      pathf(zPattern, sizeof(zPattern), "%s/events/*/%s", p->zInst,
               zSpec);
    }
  }
  rc = glob(zPattern, 0, 0, &g);
  *pnFirst = p->nEvent;
  if( rc!=0 ){
    p->xFail("no event matches '%s' (see %s/available_events)", zSpec,
            p->zTracefs);
    return 1;
  }
  for(i=0; i<g.gl_pathc; i++){
    const char *zDir = g.gl_pathv[i];
    char zFmt[1100];
    const char *zEvent, *zSystem;
    char *zText;
    size_t n;
    PCSZ zReason = 0;
    RTL_STATUS s;
    char **azNew;

    pathf(zFmt, sizeof(zFmt), "%s/format", zDir);
    zText = hostReadFile(zFmt, &n);
    if( zText==0 ) continue;        /* "enable", "filter" of a system */
    zEvent = strrchr(zDir, '/');
    zSystem = zEvent-1;
    while( zSystem>zDir && zSystem[-1]!='/' ) zSystem--;
    s = TraceEventTableAddFormat(&p->table, zSystem,
                                 (ULONG)(zEvent-zSystem), zText, n,
                                 &zReason);
    if( !RTL_SUCCESS(s) ){
      free(zText);
      p->xFail("%s: %s", zFmt, zReason ? zReason : RtlStatusText(s));
      globfree(&g);
      return 1;
    }
    if( strcmp(zEvent+1, "sched_process_exec")==0
     && strncmp(zSystem, "sched/", 6)==0 ){
      char *zId = strstr(zText, "\nID:");
      if( zId ) p->iExecType = atoi(zId+4);
    }
    free(zText);
    azNew = realloc(p->azEventDir, (p->nEvent+1)*sizeof(char*));
    if( azNew==0 ){ globfree(&g); return 1; }
    p->azEventDir = azNew;
    p->azEventDir[p->nEvent++] = strdup(zDir);
  }
  globfree(&g);
  if( p->nEvent==*pnFirst ){
    p->xFail("no event matches '%s'", zSpec);
    return 1;
  }
  return 0;
}

/*
** Reader thread: whole pages from trace_pipe_raw into the CPU's queue.
*/
static void *readerMain(void *pArg){
  RecCpu *c = (RecCpu*)pArg;
  Recorder *p = c->pRec;
  RecPage *pg = 0;
  for(;;){
    ssize_t n;
    if( pg==0 ){
      pg = malloc(sizeof(RecPage) + p->szPage);
      if( pg==0 ){ c->iErrno = ENOMEM; break; }
    }
    if( __atomic_load_n(&c->nQueued, __ATOMIC_RELAXED)>p->mxQueued
     && !__atomic_load_n(&p->bDrain, __ATOMIC_ACQUIRE) ){
      /* The decoder is behind: let the ring buffer hold the rest (and
      ** count what it overwrites as lost) rather than grow without end. */
      usleep(POLL_US);
      continue;
    }
    n = read(c->fd, pg->a, p->szPage);
    if( n>0 ){
      __atomic_add_fetch(&c->nQueued, (unsigned long long)n, __ATOMIC_RELAXED);
      pg->n = (size_t)n;
      pg->pNext = 0;
      pthread_mutex_lock(&c->mutex);
      if( c->pTail ) c->pTail->pNext = pg; else c->pHead = pg;
      c->pTail = pg;
      c->nBytes += (size_t)n;
      pthread_mutex_unlock(&c->mutex);
      if( (size_t)n>=p->layout.DataOffset && p->layout.DataSize>0
       && (TraceEventReadNumber(pg->a + p->layout.CommitOffset,
                                p->layout.CommitSize)
           & TRACE_RING_COMMIT_MASK) < p->layout.DataSize/2 ){
        /* Less than half a page: the buffer is drained and this was the
        ** page being written.  Reading again at once would take a page
        ** for every few events (the CPU cost of a busy recorder). */
        pg = 0;
        if( __atomic_load_n(&p->bDrain, __ATOMIC_ACQUIRE)==0 ) usleep(POLL_US);
        continue;
      }
      pg = 0;
      continue;
    }
    if( n<0 && errno==EINTR ) continue;
    if( n<0 && errno!=EAGAIN ){ c->iErrno = errno; break; }
    if( __atomic_load_n(&p->bDrain, __ATOMIC_ACQUIRE) ) break;
    usleep(POLL_US);
  }
  free(pg);
  return 0;
}

/* Moves the pages the reader has queued to the main thread's list. */
static void takePages(RecCpu *c){
  RecPage *pHead, *pTail;
  pthread_mutex_lock(&c->mutex);
  pHead = c->pHead;
  pTail = c->pTail;
  c->pHead = c->pTail = 0;
  pthread_mutex_unlock(&c->mutex);
  if( pHead==0 ) return;
  if( c->pQTail ) c->pQTail->pNext = pHead; else c->pQHead = pHead;
  c->pQTail = pTail;
}

/* Frees the page just decoded (or refused). */
static void pageDone(RecCpu *c){
  __atomic_sub_fetch(&c->nQueued, (unsigned long long)c->pCur->n,
                     __ATOMIC_RELAXED);
  free(c->pCur);
  c->pCur = 0;
}

/* Makes c->ev the CPU's next event, if it has one queued. */
static void cpuAdvance(Recorder *p, RecCpu *c){
  for(;;){
    PCSZ zReason = 0;
    RTL_STATUS s;
    if( c->pCur ){
      BOOL bFound = FALSE;
      s = TraceRingPageNext(&c->page, &c->ev, &bFound, &zReason);
      if( RTL_SUCCESS(s) && bFound ){
        c->bHasEvent = 1;
        return;
      }
      if( !RTL_SUCCESS(s) ){
        if( p->nBad++==0 ){
          p->xFail("CPU %d: bad ring-buffer page, rest skipped: %s",
                  c->iCpu, zReason ? zReason : RtlStatusText(s));
        }
      }
      pageDone(c);
    }
    if( c->pQHead==0 ){
      c->bHasEvent = 0;
      return;
    }
    c->pCur = c->pQHead;
    c->pQHead = c->pCur->pNext;
    if( c->pQHead==0 ) c->pQTail = 0;
    s = TraceRingPageBegin(&c->page, &p->layout, c->pCur->a, c->pCur->n,
                           &zReason);
    if( !RTL_SUCCESS(s) ){
      if( p->nBad++==0 ){
        p->xFail("CPU %d: bad ring-buffer page, skipped: %s", c->iCpu,
                zReason ? zReason : RtlStatusText(s));
      }
      pageDone(c);
      continue;
    }
    if( c->page.LostEvents!=0 ){
      p->nPageLost += c->page.LostEvents>0 ?
                      (unsigned long long)c->page.LostEvents : 1;
    }
  }
}

/*
** Appends, in time order, every decoded event up to iWatermark.  Returns
** the number appended, or -1 if the session failed.
*/
static long long mergeUpTo(Recorder *p, long long iWatermark){
  long long n = 0;
  int i;
  if( recTasksPoll(p->pTasks) ) goto fail;
  for(i=0; i<p->nCpu; i++){
    takePages(&p->aCpu[i]);
    if( !p->aCpu[i].bHasEvent ) cpuAdvance(p, &p->aCpu[i]);
  }
  for(;;){
    RecCpu *pBest = 0;
    PCSZ zReason = 0;
    RTL_STATUS s;
    long long ts;
    for(i=0; i<p->nCpu; i++){
      RecCpu *c = &p->aCpu[i];
      if( c->bHasEvent
       && (pBest==0 || c->ev.Timestamp<pBest->ev.Timestamp) ){
        pBest = c;
      }
    }
    if( pBest==0 || (long long)pBest->ev.Timestamp>iWatermark ) break;
    ts = (long long)pBest->ev.Timestamp;
    if( ts<p->lastTs ) p->nLate++;
    else p->lastTs = ts;
    /* The mmaps, forks and execs before it, then its task. */
    if( recTasksApply(p->pTasks, ts) ) goto fail;
    if( pBest->ev.Size>=8 ){
      /* common_type (u16) at 0, common_pid (s32: the tid) at 4 */
      unsigned short iType;
      int tid;
      memcpy(&iType, pBest->ev.Data, 2);
      memcpy(&tid, pBest->ev.Data+4, 4);
      if( recTasksSeen(p->pTasks, tid, ts) ) goto fail;
      if( iType==p->iExecType && !recTasksHasPerf(p->pTasks)
       && recTasksExec(p->pTasks, tid, ts) ){
        goto fail;
      }
    }
    s = TraceEventSinkRecord(p->pSink, (ULONG)pBest->iCpu,
                             pBest->ev.Timestamp, pBest->ev.Data,
                             pBest->ev.Size, 0, &zReason);
    if( !RTL_SUCCESS(s) ){
      if( p->imp.Error.Status!=RTL_STATUS_OK || zReason==0 ) goto fail;
      if( p->nBad++==0 ){
        p->xFail("CPU %d: event record skipped: %s", pBest->iCpu, zReason);
      }
    }
    n++;
    cpuAdvance(p, pBest);
  }
  /* Counts wait for their faults, COUNT_HOLD_NS at most. */
  if( recTasksApplyTo(p->pTasks, iWatermark,
                      iWatermark==0x7fffffffffffffffLL ? iWatermark
                      : p->lastTs>iWatermark-COUNT_HOLD_NS ? p->lastTs
                      : iWatermark-COUNT_HOLD_NS) ){
    goto fail;
  }
  return n;
fail:
  p->xFail("%s", p->imp.Error.Message[0] ? p->imp.Error.Message
                                        : "cannot append to the session");
  return -1;
}

/* Bytes of records and strings committed to the session's stores. */
static unsigned long long sessionBytes(PTRACE_SESSION pSession){
  unsigned long long n = 0;
  ULONG i;
  for(i=0; i<pSession->NumberOfStores; i++){
    n += pSession->Stores[i].CommittedCount * pSession->Stores[i].RecordSize;
  }
  return n;
}

/* Sums overrun, commit overrun and dropped events of every CPU. */
static void readStats(Recorder *p){
  int i;
  p->nStatsLost = 0;
  for(i=0; i<p->nCpu; i++){
    char zPath[700];
    char *z, *zLine;
    pathf(zPath, sizeof(zPath), "%s/per_cpu/cpu%d/stats", p->zInst,
             p->aCpu[i].iCpu);
    z = hostReadFile(zPath, 0);
    if( z==0 ) continue;
    p->aCpu[i].nLost = 0;
    for(zLine=z; zLine && *zLine; ){
      char *zNext = strchr(zLine, '\n');
      if( zNext ) *zNext++ = 0;
      if( strncmp(zLine, "overrun:", 8)==0 ){
        p->aCpu[i].nLost += strtoull(zLine+8, 0, 10);
      }else if( strncmp(zLine, "commit overrun:", 15)==0 ){
        p->aCpu[i].nLost += strtoull(zLine+15, 0, 10);
      }else if( strncmp(zLine, "dropped events:", 15)==0 ){
        p->aCpu[i].nLost += strtoull(zLine+15, 0, 10);
      }
      zLine = zNext;
    }
    free(z);
    p->nStatsLost += p->aCpu[i].nLost;
  }
}

/* Reads header_page and header_event, kallsyms and printk formats. */
static int loadHeaders(Recorder *p){
  char zPath[700];
  char *z;
  size_t n;
  PCSZ zReason = 0;
  RTL_STATUS s;

  pathf(zPath, sizeof(zPath), "%s/events/header_page", p->zInst);
  z = hostReadFile(zPath, &n);
  if( z==0 ){ p->xFail("%s: %s", zPath, strerror(errno)); return 1; }
  s = TraceEventParseHeaderPage(z, n, &p->layout, &zReason);
  free(z);
  if( !RTL_SUCCESS(s) ){
    p->xFail("%s: %s", zPath, zReason ? zReason : RtlStatusText(s));
    return 1;
  }
  pathf(zPath, sizeof(zPath), "%s/events/header_event", p->zInst);
  z = hostReadFile(zPath, &n);
  if( z ){
    s = TraceEventParseHeaderEvent(z, n, &zReason);
    free(z);
    if( !RTL_SUCCESS(s) ){
      p->xFail("%s: %s", zPath, zReason ? zReason : RtlStatusText(s));
      return 1;
    }
  }
  p->szPage = p->layout.DataOffset + p->layout.DataSize;
  if( TraceEventTableInitialize(p->pRtl, p->layout.CommitSize==4 ? 4 : 8,
                                &p->table)!=RTL_STATUS_OK ){
    p->xFail("out of memory");
    return 1;
  }
  p->bTable = 1;
  p->zKallsyms = hostReadFile("/proc/kallsyms", &n);
  if( p->zKallsyms ){
    TraceEventTableSetSymbols(&p->table, p->zKallsyms, n, 0, 0);
  }
  pathf(zPath, sizeof(zPath), "%s/printk_formats", p->zTracefs);
  p->zPrintk = hostReadFile(zPath, &n);
  if( p->zPrintk ) TraceEventTableSetPrintk(&p->table, p->zPrintk, n);
  return 0;
}

/*
** Phase 1, set up: finds tracefs, installs the signal handlers, replaces
** stale instances with ours (trace_clock mono, the ring buffer size),
** loads the headers and the formats of the events selected, and writes
** their filters.  Owns the instance directory (removed by recClose) and
** the event table; nothing is enabled yet.  Returns 0 or 1 (reported).
*/
static int recSetUp(Recorder *p){
  const RecordOptions *o = p->pOpts;
  struct sigaction sa;
  char zBuf[64];
  int i;

  if( findTracefs(p) ) return 1;

  /* Signals first, so that an early Ctrl-C still removes the instance. */
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = recOnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, 0);
  sigaction(SIGTERM, &sa, 0);
  sa.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &sa, 0);

  removeStaleInstances(p);
  pathf(p->zInst, sizeof(p->zInst), "%s/instances/tracestore-%ld",
           p->zTracefs, (long)getpid());
  if( mkdir(p->zInst, 0700)!=0 ){
    p->xFail("cannot create the tracefs instance %s: %s", p->zInst,
             strerror(errno));
    p->zInst[0] = 0;
    return 1;
  }
  writeFile(p->zInst, "tracing_on", "0");
  if( writeFile(p->zInst, "trace_clock", "mono") ){
    p->xFail("%s: the kernel has no mono trace_clock", p->zInst);
    return 1;
  }
  /* Read ahead of the decoder: 4 ring buffers' worth, at least 16 MB. */
  p->mxQueued = (unsigned long long)o->nBufferKb*1024*4;
  if( p->mxQueued<(16ULL<<20) ) p->mxQueued = 16ULL<<20;
  snprintf(zBuf, sizeof(zBuf), "%ld", o->nBufferKb);
  if( writeFile(p->zInst, "buffer_size_kb", zBuf) ){
    p->xFail("cannot set a ring buffer of %ld KB per CPU", o->nBufferKb);
    return 1;
  }
  if( loadHeaders(p) ) return 1;
  for(i=0; i<o->nSpec; i++){
    int iFirst, j;
    if( addEvents(p, o->azSpec[i], &iFirst) ) return 1;
    for(j=iFirst; o->azFilter[i] && j<p->nEvent; j++){
      int e = writeFile(p->azEventDir[j], "filter", o->azFilter[i]);
      if( e ){
        p->xFail("-f '%s' for %s: %s", o->azFilter[i], o->azSpec[i],
                 e==EINVAL ? "the kernel refused the filter" : strerror(e));
        return 1;
      }
    }
  }
  return 0;
}

/*
** Phase 2, the session: opens it for writing and begins the import into
** it: the ftrace event sink over the event table, the "mono" clock, the
** model of processes and mappings (RecordTasks.c) as the sink's resolver,
** and the command names tracefs already knows.  Owns p->pSession, p->imp,
** p->pSink and p->pTasks (released by recClose).  Returns 0 or 1.
*/
static int recOpenSession(Recorder *p){
  PRTL pRtl = p->pRtl;
  RTL_ERROR err;
  char zPath[300];
  size_t n;
  char *z;

  p->pSession = calloc(1, sizeof(*p->pSession));
  p->pSink = calloc(1, sizeof(*p->pSink));
  if( p->pSession==0 || p->pSink==0 ){ p->xFail("out of memory"); return 1; }
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(pRtl, p->pOpts->zOut, p->pSession,
                                          &err)) ){
    p->xFail("%s", err.Message);
    free(p->pSession);
    p->pSession = 0;
    return 1;
  }
  if( p->pOpts->pHost
   && !RTL_SUCCESS(TraceSessionSetHost(p->pSession, p->pOpts->pHost)) ){
    p->xFail("%s: cannot write the session header", p->pOpts->zOut);
    return 1;
  }
  hostSyncLogged(p->pOpts->pSync, p->pSession);   /* the open's sync */
  p->pRollups = liveRollupsStart(p->pSession);
  p->imp.Rtl = pRtl;
  p->imp.Session = p->pSession;
  p->imp.Path = p->zInst;
  p->imp.FormatName = "tracefs";
  p->imp.CommitEvery = 4096;
  p->imp.SyncEveryNs = (LONGLONG)(p->pOpts->pSync->rInterval*1e9);
  p->imp.Synced = hostSyncLogged;
  p->imp.SyncedContext = p->pOpts->pSync;
  if( !RTL_SUCCESS(TraceImportBegin(&p->imp)) ){
    p->xFail("%s", p->imp.Error.Message);
    return 1;
  }
  p->bImport = 1;
  if( !RTL_SUCCESS(TraceEventSinkInitialize(p->pSink, &p->imp, &p->table))
   || !RTL_SUCCESS(TraceImportSetClock(&p->imp, "mono", 4)) ){
    p->xFail("%s", p->imp.Error.Message);
    return 1;
  }
  p->pTasks = recTasksNew(&p->imp);
  if( p->pTasks==0 ){ p->xFail("out of memory"); return 1; }
  p->pSink->Resolver = recTasksResolver(p->pTasks);
  pathf(zPath, sizeof(zPath), "%s/saved_cmdlines", p->zTracefs);
  z = hostReadFile(zPath, &n);
  if( z ){ TraceEventSinkAddCmdlines(p->pSink, z, n); free(z); }
  return 0;
}

/*
** Phase 3, who is traced: with -- COMMAND, forks the child, held on a
** pipe until recStart, and writes its pid to set_event_pid with
** options/event-fork; with -p, writes that pid.  Owns p->child and
** p->aPipe (recStart releases the child, recClose reaps it).  Returns 0
** or 1.
*/
static int recChooseTasks(Recorder *p){
  const RecordOptions *o = p->pOpts;
  char **azCmd = o->azCmd;
  char zBuf[64];

  if( azCmd ){
    if( pipe(p->aPipe)!=0 ){
      p->xFail("pipe: %s", strerror(errno));
      return 1;
    }
    fflush(0);
    p->child = fork();
    if( p->child<0 ){
      p->child = 0;
      p->xFail("fork: %s", strerror(errno));
      return 1;
    }
    if( p->child==0 ){
      char c;
      close(p->aPipe[1]);
      signal(SIGINT, SIG_DFL);
      signal(SIGTERM, SIG_DFL);
      signal(SIGPIPE, SIG_DFL);
      if( read(p->aPipe[0], &c, 1)!=1 ) _exit(127);
      close(p->aPipe[0]);
      execvp(azCmd[0], azCmd);
      fprintf(stderr, "tracestore record: %s: %s\n", azCmd[0],
              strerror(errno));
      _exit(127);
    }
    close(p->aPipe[0]);
    p->aPipe[0] = -1;
    /* Until it execs, the child runs in a copy of our address space. */
    if( recTasksSeen(p->pTasks, (int)p->child, monoNs()) ){
      p->xFail("%s", p->imp.Error.Message);
      return 1;
    }
    snprintf(zBuf, sizeof(zBuf), "%ld\n", (long)p->child);
    if( writeFile(p->zInst, "set_event_pid", zBuf) ){
      p->xFail("cannot set set_event_pid to the command");
      return 1;
    }
    {
      const char *zBase = strrchr(azCmd[0], '/');
      char zLine[64];
      zBase = zBase ? zBase+1 : azCmd[0];
      snprintf(zLine, sizeof(zLine), "%ld %.15s\n", (long)p->child, zBase);
      TraceEventSinkAddCmdlines(p->pSink, zLine, strlen(zLine));
    }
  }

  if( o->iPid ){
    snprintf(zBuf, sizeof(zBuf), "%ld\n", o->iPid);
    if( writeFile(p->zInst, "set_event_pid", zBuf) ){
      p->xFail("-p %ld: cannot set set_event_pid", o->iPid);
      return 1;
    }
  }else if( azCmd ){
    if( writeFile(p->zInst, "options/event-fork", "1") ){
      p->xFail("cannot follow the command's children (options/event-fork)");
      return 1;
    }
  }
  return 0;
}

/*
** Phase 4, readers: opens per_cpu/cpuN/trace_pipe_raw of every CPU and
** starts its reader thread (readerMain), then the perf side-band of the
** same CPUs and the /proc snapshot of the processes traced.  Owns p->aCpu
** (the threads are joined by recDrain or recClose).  Returns 0 or 1.
*/
/* Does the recording have an exceptions:page_fault_* event? */
static int recHasFaultEvents(Recorder *p){
  int i;
  for(i=0; i<p->nEvent; i++){
    const char *z = strstr(p->azEventDir[i], "/exceptions/page_fault_");
    if( z && strchr(z+1, '/')==strrchr(p->azEventDir[i], '/') ) return 1;
  }
  return 0;
}

static int recStartReaders(Recorder *p){
  const RecordOptions *o = p->pOpts;
  int aCpuId[MAX_CPUS];
  char zErr[200];
  int i;

  p->nCpu = 0;
  p->aCpu = calloc(MAX_CPUS, sizeof(RecCpu));
  if( p->aCpu==0 ){ p->xFail("out of memory"); return 1; }
  for(i=0; i<MAX_CPUS; i++){
    char zPath[700];
    RecCpu *c = &p->aCpu[p->nCpu];
    pathf(zPath, sizeof(zPath), "%s/per_cpu/cpu%d/trace_pipe_raw",
             p->zInst, i);
    c->fd = open(zPath, O_RDONLY|O_NONBLOCK);
    if( c->fd<0 ){
      if( errno==ENOENT ) continue;
      p->xFail("%s: %s", zPath, strerror(errno));
      return 1;
    }
    c->pRec = p;
    c->iCpu = i;
    pthread_mutex_init(&c->mutex, 0);
    p->nCpu++;
    if( pthread_create(&c->thread, 0, readerMain, c)!=0 ){
      p->xFail("cannot start a reader thread");
      return 1;
    }
    c->bThread = 1;
  }
  if( p->nCpu==0 ){ p->xFail("no per_cpu/cpuN/trace_pipe_raw"); return 1; }

  /* Mmaps, forks and execs, for the module store and fault attribution. */
  zErr[0] = 0;
  recTasksExecRows(p->pTasks, p->iExecType<0);
  for(i=0; i<p->nCpu; i++) aCpuId[i] = p->aCpu[i].iCpu;
  if( recTasksOpenPerf(p->pTasks, p->nCpu, aCpuId,
                       p->child>0 ? (int)p->child
                                  : o->iPid ? (int)o->iPid : -1,
                       zErr, sizeof(zErr)) ){
    fprintf(stderr, "tracestore record: memory maps come from /proc "
            "only, so mappings that come and go quickly are missed (%s)\n",
            zErr);
  }
  /* Hard or soft: the kernel's own count of each fault, when faults are
  ** recorded (and perf works). */
  /* TRACESTORE_NO_FAULT_COUNTS=1: not (to measure what they cost). */
  if( recHasFaultEvents(p) && recTasksHasPerf(p->pTasks)
   && getenv("TRACESTORE_NO_FAULT_COUNTS")==0 ){
    zErr[0] = 0;
    if( recTasksOpenFaults(p->pTasks, p->nCpu, aCpuId,
                           p->child>0 ? (int)p->child
                                      : o->iPid ? (int)o->iPid : -1,
                           zErr, sizeof(zErr)) ){
      fprintf(stderr, "tracestore record: page faults are not classified "
              "hard or soft (%s)\n", zErr);
    }else{
      p->imp.ClassifyFaults = TRUE;
    }
  }
  /* What the processes had mapped before (the command's child was read
  ** when it was forked). */
  if( p->child==0 && recTasksSnapshot(p->pTasks, o->iPid ? (int)o->iPid : -1,
                                      monoNs()) ){
    p->xFail("%s", p->imp.Error.Message);
    return 1;
  }
  return 0;
}

/*
** Phase 5, start: only now, with the model of the processes complete,
** enables the events and tracing, releases the command, and says so.
** Returns 0 or 1.
*/
static int recStart(Recorder *p){
  const RecordOptions *o = p->pOpts;
  int i;

  for(i=0; i<p->nEvent; i++){
    if( writeFile(p->azEventDir[i], "enable", "1") ){
      p->xFail("cannot enable %s", p->azEventDir[i]);
      return 1;
    }
  }
  writeFile(p->zInst, "tracing_on", "1");

  p->t0 = monoNs();
  if( p->child>0 ){
    if( write(p->aPipe[1], "g", 1)!=1 ){
      p->xFail("cannot start the command");
      return 1;
    }
    close(p->aPipe[1]);
    p->aPipe[1] = -1;
  }
  fprintf(stderr, "tracestore record: %d event types on %d CPUs into %s%s\n",
          p->nEvent, p->nCpu, o->zOut,
          o->azCmd ? "" : o->iPid ? "" : " (Ctrl-C stops)");
  return 0;
}

/*
** Phase 6, the main loop: every 2 ms merges the CPUs' events up to
** WINDOW_NS behind the present into the session, commits at least every
** COMMIT_NS, and stops on a reader's error (1), or (0, with p->zWhy) on a
** signal, the command's or the process's exit, --duration or --max-size.
*/
static int recLoop(Recorder *p){
  const RecordOptions *o = p->pOpts;
  long long tLastCommit = p->t0, nSinceCommit = 0;
  int i;

  for(;;){
    long long tNow, n;
    usleep(2000);
    tNow = monoNs();
    n = mergeUpTo(p, tNow - WINDOW_NS);
    if( n<0 ) return 1;
    nSinceCommit += n;
    if( nSinceCommit>0 && tNow - tLastCommit>=COMMIT_NS ){
      if( !RTL_SUCCESS(TraceImportCommit(&p->imp)) ){
        p->xFail("%s", p->imp.Error.Message);
        return 1;
      }
      nSinceCommit = 0;
      tLastCommit = tNow;
    }
    for(i=0; i<p->nCpu; i++){
      if( p->aCpu[i].iErrno ){
        p->xFail("CPU %d: reading trace_pipe_raw: %s", p->aCpu[i].iCpu,
                 strerror(p->aCpu[i].iErrno));
        return 1;
      }
    }
    if( recStop ){ p->zWhy = "interrupted"; return 0; }
    if( p->child>0 && waitpid(p->child, &p->iChildStatus, WNOHANG)==p->child ){
      p->child = 0;
      p->zWhy = "the command exited";
      return 0;
    }
    if( o->iPid && kill((pid_t)o->iPid, 0)!=0 && errno==ESRCH ){
      p->zWhy = "the process exited";
      return 0;
    }
    if( o->rDuration>0 && (tNow-p->t0)/1e9>=o->rDuration ){
      p->zWhy = "--duration reached";
      return 0;
    }
    if( o->mxBytes && sessionBytes(p->pSession)>=o->mxBytes ){
      p->zWhy = "--max-size reached";
      return 0;
    }
  }
}

/*
** Phase 7, drain: switches tracing off, lets the readers empty the ring
** buffers and joins them, appends everything left and commits it, and
** takes the lost events from per_cpu/cpuN/stats.  Returns 0 or 1.
*/
static int recDrain(Recorder *p){
  int i;

  writeFile(p->zInst, "tracing_on", "0");
  __atomic_store_n(&p->bDrain, 1, __ATOMIC_RELEASE);
  for(i=0; i<p->nCpu; i++){
    if( p->aCpu[i].bThread ){
      pthread_join(p->aCpu[i].thread, 0);
      p->aCpu[i].bThread = 0;
    }
  }
  if( mergeUpTo(p, 0x7fffffffffffffffLL)<0 ) return 1;
  /* Visible now, not after removing the instance (tens of ms). */
  if( !RTL_SUCCESS(TraceImportCommit(&p->imp)) ){
    p->xFail("%s", p->imp.Error.Message);
    return 1;
  }
  readStats(p);
  p->imp.LostEvents = p->nStatsLost>p->nPageLost ? p->nStatsLost
                                                 : p->nPageLost;
  return 0;
}

/* The summary of a recording that ended well: nBytes read in t seconds. */
static void recSummary(Recorder *p, unsigned long long nBytes, double t){
  PTRACE_SESSION pSession = p->pSession;
  int i;

  fprintf(stderr, "tracestore record: %s after %.2f s: %llu events "
          "(%.0f/s), %llu bytes read, %llu stored, %llu lost%s\n", p->zWhy,
          t, (unsigned long long)p->imp.Events,
          t>0 ? p->imp.Events/t : 0.0, nBytes, sessionBytes(pSession),
          (unsigned long long)p->imp.LostEvents,
          p->imp.LostEvents ? " (ring buffer overrun: try a larger -b)"
                            : "");
  for(i=0; i<(int)pSession->NumberOfStores; i++){
    PTRACE_STORE s = &pSession->Stores[i];
    if( s->Name[0]=='_' || s->CommittedCount==0 ) continue;
    fprintf(stderr, "  %-14s %10llu records\n", s->Name,
            (unsigned long long)s->CommittedCount);
  }
  if( p->nStatsLost ){
    fprintf(stderr, "  lost per CPU:");
    for(i=0; i<p->nCpu; i++){
      if( p->aCpu[i].nLost ){
        fprintf(stderr, " cpu%d %llu", p->aCpu[i].iCpu, p->aCpu[i].nLost);
      }
    }
    fprintf(stderr, "\n");
  }
  if( p->nLate ){
    fprintf(stderr, "  %llu events arrived after later ones (stored "
            "out of order)\n", p->nLate);
  }
  if( p->nBad ){
    fprintf(stderr, "  %llu records could not be decoded\n", p->nBad);
  }
  if( p->imp.ClassifyFaults && (p->imp.LostFaultCounts
      || p->imp.UnresolvedFaults || p->imp.LateFaults) ){
    fprintf(stderr, "  page faults without hard/soft: %llu fault counts "
            "lost, %llu faults in progress at the end, %llu late\n",
            (unsigned long long)p->imp.LostFaultCounts,
            (unsigned long long)p->imp.UnresolvedFaults,
            (unsigned long long)p->imp.LateFaults);
  }
  if( p->imp.ClassifyFaults && p->imp.UnmatchedFaultCounts ){
    fprintf(stderr, "  %llu faults the kernel counted have no recorded "
            "event (kernel-mode faults need exceptions:page_fault_kernel)\n",
            (unsigned long long)p->imp.UnmatchedFaultCounts);
  }
  if( recTasksLost(p->pTasks) ){
    fprintf(stderr, "  %llu memory-map records lost: some faults may "
            "have no module\n", recTasksLost(p->pTasks));
  }
}

/*
** Phase 8, close, on every path (rc: 0, or 1 after an error the phase
** reported): stops and joins the readers, removes the instance, ends the
** import (so what was recorded stays committed) and prints the summary,
** frees everything, and ends and reaps a command still running.  Returns
** the exit status.
*/
static int recClose(Recorder *p, int rc){
  int i;

  if( p->aCpu ){
    __atomic_store_n(&p->bDrain, 1, __ATOMIC_RELEASE);
    for(i=0; i<p->nCpu; i++){
      RecCpu *c = &p->aCpu[i];
      RecPage *pg;
      if( c->bThread ) pthread_join(c->thread, 0);
      while( (pg = c->pHead)!=0 ){ c->pHead = pg->pNext; free(pg); }
      while( (pg = c->pQHead)!=0 ){ c->pQHead = pg->pNext; free(pg); }
      free(c->pCur);
      if( c->fd>=0 ) close(c->fd);
      pthread_mutex_destroy(&c->mutex);
    }
  }
  if( p->aPipe[0]>=0 ) close(p->aPipe[0]);
  if( p->aPipe[1]>=0 ) close(p->aPipe[1]);
  removeInstance(p);
  if( p->bImport ){
    unsigned long long nBytes = 0;
    /* An import error that stopped the recording was printed then; the
    ** end returns it again. */
    int bShown = rc!=0 && p->imp.Error.Status!=RTL_STATUS_OK;
    for(i=0; i<p->nCpu; i++) nBytes += p->aCpu[i].nBytes;
    p->imp.Length = nBytes;
    if( !RTL_SUCCESS(TraceImportEnd(&p->imp)) ){
      if( !bShown ) p->xFail("%s", p->imp.Error.Message);
      rc = 1;
    }
    if( rc!=0 ){
      p->xFail("kept %llu events recorded before the error",
               (unsigned long long)p->imp.Events);
    }else{
      recSummary(p, nBytes, (monoNs() - p->t0)/1e9);
    }
  }
  if( p->pSink && p->bImport ) TraceEventSinkRelease(p->pSink);
  liveRollupsStop(p->pRollups);
  if( p->pSession ){
    hostSyncBeforeClose(p->pOpts->pSync, p->pSession);
    TraceSessionClose(p->pSession);
    hostSyncAfterClose(p->pOpts->pSync, p->pSession);
    free(p->pSession);
  }
  free(p->pSink);
  if( p->bTable ) TraceEventTableRelease(&p->table);
  free(p->zKallsyms);
  free(p->zPrintk);
  for(i=0; i<p->nEvent; i++) free(p->azEventDir[i]);
  free(p->azEventDir);
  recTasksFree(p->pTasks);
  free(p->aCpu);
  if( p->child>0 ){
    /* Stopped before the command ended (--duration, --max-size, an error,
    ** a signal that reached only us): end it as timeout(1) would, and
    ** wait for it so that no zombie remains. */
    kill(p->child, SIGTERM);
    waitpid(p->child, &p->iChildStatus, 0);
  }
  if( rc==0 && p->iChildStatus!=-1 && WIFEXITED(p->iChildStatus)
   && WEXITSTATUS(p->iChildStatus)!=0 ){
    fprintf(stderr, "tracestore record: the command exited with status %d\n",
            WEXITSTATUS(p->iChildStatus));
  }
  return rc;
}

int recordRun(PRTL pRtl, const RecordOptions *pOpts){
  Recorder rec, *p = &rec;
  int rc;

  memset(p, 0, sizeof(*p));
  p->pRtl = pRtl;
  p->pOpts = pOpts;
  p->xFail = pOpts->xFail;
  p->lastTs = -0x7fffffffffffffffLL;
  p->iExecType = -1;
  p->aPipe[0] = p->aPipe[1] = -1;
  p->iChildStatus = -1;
  p->zWhy = "stopped";
  p->t0 = monoNs();

  rc = recSetUp(p);
  if( rc==0 ) rc = recOpenSession(p);
  if( rc==0 ) rc = recChooseTasks(p);
  if( rc==0 ) rc = recStartReaders(p);
  if( rc==0 ) rc = recStart(p);
  if( rc==0 ) rc = recLoop(p);
  if( rc==0 ) rc = recDrain(p);
  return recClose(p, rc);
}
