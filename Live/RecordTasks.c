/*
** RecordTasks.c: the tasks and address spaces of a live recording (see
** RecordTasks.h).
**
** Zone: hosted (the live recorders): libc, perf_event_open, /proc.  Owns
** the model of threads, processes and their mappings, and the perf
** side-band and fault-count buffers.  Calls the import context (Readers/
** Import/TraceImport.h: TraceImportModuleLine, TraceImportModule,
** TraceImportIntern, TraceImportPageFaultCounted/ThreadEnded) for the
** module store and the fault classes, fills in the ftrace sink's
** resolver (Readers/Decoders/Ftrace/TraceEvent.h), and reads /proc with
** HostText.c.
** Called by Record.c only.
**
** One open-addressing table, keyed by tid, holds every thread seen: its
** process (thread group) and, for a process's own entry (tid == pid), its
** mappings as an array sorted by start address and kept disjoint: a new
** mapping replaces whatever it overlaps, as mmap(MAP_FIXED) does, so the
** array always says what the process had mapped at the time of the last
** record applied.  Unmaps are not reported by perf; a stale mapping only
** matters for a fault on an address that is not mapped (a segfault).
**
** Perf records arrive per CPU, each CPU in time order.  recTasksPoll moves
** them into one queue sorted by time; the recorder applies the queue up
** to the time of each event before it decodes the event.  The records up
** to a merge watermark are all in the perf buffers by the time the
** recorder merges up to it, since mmap, fork and exec write them
** synchronously.
**
** When faults are recorded, perf's minor-faults and major-faults samples
** (the kernel's own count of each fault: hard or soft) go to a second
** queue with the threads' ends, applied to the import's fault
** classification (Readers/Import/ImportFaults.c) in time order with the
** events, but never past the last event merged (recTasksApplyTo).
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "Host/HostText.h"
#include "RecordTasks.h"

#define PERF_DATA_PAGES 64      /* per CPU buffer, a power of two */
#define FAULT_DATA_PAGES 256    /* per CPU and fault count, the same */

/* A mapping of a process's model, with its TRACE_MAPPING_* flags. */
typedef struct RecMap {
  MODULE_RECORD m;
  unsigned flags;
} RecMap;

/* Which events a perf buffer holds. */
#define BUF_SIDE  0             /* mmap, fork, exit, comm */
#define BUF_MINOR 1             /* minor-faults samples */
#define BUF_MAJOR 2             /* major-faults samples */

typedef struct RecTask {
  int tid;                      /* 0: an empty slot */
  int pid;                      /* its process; 0 when unknown */
  ULONG commId;                 /* its name, or TRACE_NULL_ULONG */
  int bMaps;                    /* process entry: its mappings are known */
  int nMap, nMapAlloc;
  RecMap *aMap;                 /* sorted by Start, disjoint */
} RecTask;

/* A perf record waiting for the events of its time. */
typedef struct RecSide {
  long long ts;
  unsigned long long iSeq;      /* arrival order: equal times stay in it */
  unsigned type;                /* PERF_RECORD_MMAP2, _FORK, _EXIT, _COMM,
                                ** _SAMPLE (a fault count) */
  int pid, tid, ppid;
  unsigned long long start, len, pgoff;   /* SAMPLE: start, the address */
  unsigned prot, flags;
  int bExec;                    /* COMM: the name changed by an exec;
                                ** SAMPLE: 1 a major fault, 0 minor */
  int ptid;                     /* FORK: the thread that forked */
  char *zPath;                  /* MMAP2: the file, or "//anon", ...;
                                ** COMM: the new name */
} RecSide;

/*
** A fault count (a minor-faults or major-faults sample), or a thread's end
** (the fault it was in, if any, was not counted), waiting for the events
** of its time.
*/
typedef struct RecCount {
  long long ts;
  unsigned long long addr;
  int tid;
  int kind;                     /* COUNT_MINOR, COUNT_MAJOR, COUNT_END */
} RecCount;

#define COUNT_MINOR 0
#define COUNT_MAJOR 1
#define COUNT_END   2

typedef struct RecPerfBuf {
  unsigned char *pMap;          /* metadata page + data pages */
  size_t nMap;
  int iKind;                    /* BUF_SIDE, BUF_MINOR, BUF_MAJOR */
} RecPerfBuf;

struct RecTasks {
  PTRACE_IMPORT pImp;
  TRACE_EVENT_RESOLVER resolver;
  RecTask *aTask;
  int nTask, nTaskAlloc;
  RecSide *aSide;               /* queue: [iSide, nSide) not yet applied */
  int iSide, nSide, nSideAlloc;
  RecCount *aCount;             /* the same for counts */
  int iCount, nCount, nCountAlloc;
  RecCount *aCountTmp;          /* countSort's buffer */
  int nCountTmp;
  RecPerfBuf *aBuf;
  int nBuf;
  int *aFd;                     /* every perf event, to close */
  int nFd;
  int bScoped;                  /* perf follows given processes only */
  int bExecRows;                /* an exec COMM writes a process row (no
                                ** sched_process_exec is recorded) */
  int iSelf;                    /* the recorder's own pid */
  ULONG anonId;                 /* "//anon" */
  size_t szPage;
  unsigned long long nLost, nApplied, iSeq;
  unsigned long long nFaultLost;  /* fault counts the kernel dropped */
  int bCounts;                  /* fault counts are open */
  unsigned char aRec[65536];    /* one perf record, unwrapped */
};

/* ---------------------------------------------------------------- tasks */

static RecTask *taskFind(RecTasks *T, int tid){
  unsigned h;
  if( T->nTaskAlloc==0 || tid<=0 ) return 0;
  h = (unsigned)tid*2654435761u % (unsigned)T->nTaskAlloc;
  while( T->aTask[h].tid ){
    if( T->aTask[h].tid==tid ) return &T->aTask[h];
    h = (h+1) % (unsigned)T->nTaskAlloc;
  }
  return 0;
}

/* The entry of tid, made if new (entries move: re-find after a call). */
static RecTask *taskAdd(RecTasks *T, int tid){
  RecTask *t = taskFind(T, tid);
  unsigned h;
  if( t ) return t;
  if( (T->nTask+1)*2>T->nTaskAlloc ){
    int nNew = T->nTaskAlloc ? T->nTaskAlloc*2 : 1024, i;
    RecTask *aNew = calloc(nNew, sizeof(RecTask));
    if( aNew==0 ) return 0;
    for(i=0; i<T->nTaskAlloc; i++){
      if( T->aTask[i].tid==0 ) continue;
      h = (unsigned)T->aTask[i].tid*2654435761u % (unsigned)nNew;
      while( aNew[h].tid ) h = (h+1) % (unsigned)nNew;
      aNew[h] = T->aTask[i];
    }
    free(T->aTask);
    T->aTask = aNew;
    T->nTaskAlloc = nNew;
  }
  h = (unsigned)tid*2654435761u % (unsigned)T->nTaskAlloc;
  while( T->aTask[h].tid ) h = (h+1) % (unsigned)T->nTaskAlloc;
  T->aTask[h].tid = tid;
  T->aTask[h].commId = TRACE_NULL_ULONG;
  T->nTask++;
  return &T->aTask[h];
}

/*
** The process of tid from /proc/TID/status, or 0, and its name from
** /proc/TID/comm into zComm (empty if gone).
*/
static int readTask(int tid, char *zComm, size_t nComm){
  char zPath[64], zBuf[4096];
  const char *z;
  ssize_t n;
  int fd;
  zComm[0] = 0;
  snprintf(zPath, sizeof(zPath), "/proc/%d/comm", tid);
  fd = open(zPath, O_RDONLY|O_CLOEXEC);
  if( fd>=0 ){
    n = read(fd, zComm, nComm-1);
    close(fd);
    if( n<0 ) n = 0;
    while( n>0 && zComm[n-1]=='\n' ) n--;
    zComm[n] = 0;
  }
  snprintf(zPath, sizeof(zPath), "/proc/%d/status", tid);
  fd = open(zPath, O_RDONLY|O_CLOEXEC);
  if( fd<0 ) return 0;
  n = read(fd, zBuf, sizeof(zBuf)-1);
  close(fd);
  if( n<=0 ) return 0;
  zBuf[n] = 0;
  z = strstr(zBuf, "\nTgid:");
  return z ? atoi(z+6) : 0;
}

/* ------------------------------------------------------------- mappings */

/* Index of the first mapping of t that ends above addr. */
static int mapLowerBound(const RecTask *t, unsigned long long addr){
  int lo = 0, hi = t->nMap;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( t->aMap[mid].m.End<=addr ) lo = mid+1; else hi = mid;
  }
  return lo;
}

/*
** The TRACE_MAPPING_* flags of a mapping with permissions zPerms ("r-xp")
** and path zPath (NULL or "//anon": anonymous; "[heap]" and the like are
** not files either).
*/
static unsigned mapFlags(const char *zPerms, const char *zPath){
  unsigned f = TRACE_MAPPING_KNOWN;
  if( zPerms[2]=='x' ) f |= TRACE_MAPPING_EXEC;
  if( zPerms[3]=='p' ) f |= TRACE_MAPPING_PRIVATE;
  if( zPath && zPath[0]=='/' && strcmp(zPath, "//anon")!=0 ){
    f |= TRACE_MAPPING_FILE;
  }
  return f;
}

/* Puts r into t's mappings in place of what it overlaps.  0 or -1. */
static int mapInsert(RecTask *t, const MODULE_RECORD *r, unsigned flags){
  RecMap aKeep[3];             /* left of r, r, right of r */
  int i, j, nKeep = 0;
  if( r->End<=r->Start ) return 0;
  if( t->nMap+2>t->nMapAlloc ){
    int nNew = t->nMapAlloc ? t->nMapAlloc*2 : 64;
    RecMap *aNew = realloc(t->aMap, nNew*sizeof(RecMap));
    if( aNew==0 ) return -1;
    t->aMap = aNew;
    t->nMapAlloc = nNew;
  }
  i = mapLowerBound(t, r->Start);
  for(j=i; j<t->nMap && t->aMap[j].m.Start<r->End; j++){}
  if( i<j && t->aMap[i].m.Start<r->Start ){
    aKeep[nKeep] = t->aMap[i];
    aKeep[nKeep++].m.End = r->Start;
  }
  aKeep[nKeep].m = *r;
  aKeep[nKeep].flags = flags;
  nKeep++;
  if( i<j && t->aMap[j-1].m.End>r->End ){
    RecMap *pRight = &aKeep[nKeep];
    *pRight = t->aMap[j-1];
    pRight->m.Offset += r->End - pRight->m.Start;
    pRight->m.Start = r->End;
    nKeep++;
  }
  memmove(&t->aMap[i+nKeep], &t->aMap[j], (t->nMap-j)*sizeof(RecMap));
  memcpy(&t->aMap[i], aKeep, nKeep*sizeof(RecMap));
  t->nMap += nKeep - (j-i);
  return 0;
}

/* Appends r to the module store and to process pid's model.  0 or -1. */
static int mapAdd(RecTasks *T, int pid, const MODULE_RECORD *r,
                  unsigned flags){
  MODULE_RECORD row = *r;
  RecTask *t;
  if( !RTL_SUCCESS(TraceImportModule(T->pImp, &row)) ) return -1;
  t = taskFind(T, pid);
  if( t && mapInsert(t, r, flags) ){
    RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0, "out of memory");
    return -1;
  }
  return 0;
}

/*
** The flags of a /proc/PID/maps line: "START-END PERMS OFFSET DEV INODE
** PATH" (TraceImportModuleLine has parsed it).
*/
static unsigned procMapFlags(const char *zLine, const char *zEnd){
  const char *z = memchr(zLine, ' ', (size_t)(zEnd-zLine));
  char zPerms[5] = "----";
  int nField = 0;
  if( z==0 || zEnd-z<5 ) return TRACE_MAPPING_KNOWN;
  memcpy(zPerms, z+1, 4);
  /* the path: after perms, offset, dev and inode */
  while( z<zEnd && nField<4 ){
    while( z<zEnd && *z==' ' ) z++;
    while( z<zEnd && *z!=' ' ) z++;
    nField++;
  }
  while( z<zEnd && *z==' ' ) z++;
  return mapFlags(zPerms, z<zEnd && *z=='/' ? "/" : 0);
}

/*
** Learns process pid's mappings from /proc/PID/maps, as of now, recorded
** at ts, unless they are known.  A process that is gone has none.
*/
static int procLoad(RecTasks *T, int pid, long long ts){
  RecTask *t = taskAdd(T, pid);
  char zPath[64];
  char *z, *zLine, *zEnd;
  size_t n = 0;
  if( t==0 ) goto no_mem;
  if( t->bMaps ) return 0;
  t->bMaps = 1;
  t->pid = pid;
  snprintf(zPath, sizeof(zPath), "/proc/%d/maps", pid);
  z = hostReadFile(zPath, &n);
  if( z==0 ){
    if( errno==ENOMEM ) goto no_mem;
    return 0;                   /* gone (or going): no mappings */
  }
  for(zLine=z; zLine<z+n; zLine=zEnd+1){
    MODULE_RECORD r;
    BOOL bParsed;
    zEnd = memchr(zLine, '\n', (size_t)(z+n-zLine));
    if( zEnd==0 ) zEnd = z+n;
    if( !RTL_SUCCESS(TraceImportModuleLine(T->pImp, ts, (ULONG)pid, zLine,
                                           zEnd, &bParsed, &r)) ){
      free(z);
      return -1;
    }
    if( bParsed && mapInsert(taskFind(T, pid), &r, procMapFlags(zLine, zEnd)) ){
      free(z);
      goto no_mem;
    }
  }
  free(z);
  return 0;
no_mem:
  RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0, "out of memory");
  return -1;
}

/* Forgets pid's mappings (an exec replaced them) and reads them again. */
static int procExec(RecTasks *T, int pid, long long ts){
  RecTask *t = taskFind(T, pid);
  if( t ){
    t->nMap = 0;
    t->bMaps = 0;
  }
  return procLoad(T, pid, ts);
}

void recTasksExecRows(RecTasks *T, int bOn){
  T->bExecRows = bOn;
}

int recTasksSeen(RecTasks *T, int tid, long long ts){
  RecTask *t;
  char zComm[64];
  ULONG commId = TRACE_NULL_ULONG;
  int pid;
  if( tid<=0 || taskFind(T, tid) ) return 0;
  pid = readTask(tid, zComm, sizeof(zComm));
  if( zComm[0]
   && !RTL_SUCCESS(TraceImportIntern(T->pImp, zComm, (ULONG)strlen(zComm),
                                     &commId)) ){
    return -1;
  }
  t = taskAdd(T, tid);
  if( t==0 ){
    RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0, "out of memory");
    return -1;
  }
  t->pid = pid;
  t->commId = commId;
  return pid>0 ? procLoad(T, pid, ts) : 0;
}

int recTasksSnapshot(RecTasks *T, int pid, long long ts){
  char zDir[64];
  DIR *pDir;
  struct dirent *pEnt;
  int rc = 0;
  if( pid>0 ){
    snprintf(zDir, sizeof(zDir), "/proc/%d/task", pid);
  }else{
    snprintf(zDir, sizeof(zDir), "/proc");
  }
  pDir = opendir(zDir);
  if( pDir==0 ) return 0;
  while( rc==0 && (pEnt = readdir(pDir))!=0 ){
    int id = atoi(pEnt->d_name);
    if( id>0 && id!=T->iSelf ) rc = recTasksSeen(T, id, ts);
  }
  closedir(pDir);
  return rc;
}

int recTasksExec(RecTasks *T, int tid, long long ts){
  RecTask *t = taskFind(T, tid);
  int pid = t && t->pid>0 ? t->pid : tid;
  return procExec(T, pid, ts);
}

/* -------------------------------------------------------- perf records */

/* Applies one queued record. */
static int sideApply(RecTasks *T, RecSide *s){
  RecTask *t;
  if( s->pid==T->iSelf ) return 0;
  T->nApplied++;
  switch( s->type ){
    case PERF_RECORD_MMAP2: {
      MODULE_RECORD r;
      char zPerms[4];
      t = taskFind(T, s->pid);
      if( !(t && t->bMaps) ){
        /* A process with no event yet: system-wide, wait for its first
        ** event (it reads /proc); followed processes: read it now. */
        if( !T->bScoped ) return 0;
        if( procLoad(T, s->pid, s->ts) ) return -1;
      }
      if( s->len==0 || s->start+s->len<s->start ) return 0;
      r.Timestamp = s->ts;
      r.Start = s->start;
      r.End = s->start + s->len;
      r.Offset = s->pgoff;
      r.Pid = (ULONG)s->pid;
      r.PathId = TRACE_NULL_ULONG;
      r.BuildIdId = TRACE_NULL_ULONG;
      if( strcmp(s->zPath, "//anon")!=0 && s->zPath[0] ){
        if( !RTL_SUCCESS(TraceImportIntern(T->pImp, s->zPath,
                                           (ULONG)strlen(s->zPath),
                                           &r.PathId)) ){
          return -1;
        }
      }
      zPerms[0] = (s->prot & PROT_READ) ? 'r' : '-';
      zPerms[1] = (s->prot & PROT_WRITE) ? 'w' : '-';
      zPerms[2] = (s->prot & PROT_EXEC) ? 'x' : '-';
      zPerms[3] = (s->flags & MAP_SHARED) ? 's' : 'p';
      if( !RTL_SUCCESS(TraceImportIntern(T->pImp, zPerms, 4, &r.PermsId)) ){
        return -1;
      }
      return mapAdd(T, s->pid, &r, mapFlags(zPerms, s->zPath));
    }
    case PERF_RECORD_FORK: {
      RecTask *pParent;
      int i;
      /* (t stays valid: nothing below adds an entry.) */
      t = taskAdd(T, s->tid);
      if( t==0 ) goto no_mem;
      t->pid = s->pid;
      pParent = taskFind(T, s->ptid);
      if( pParent ) t->commId = pParent->commId;
      if( s->pid!=s->tid ) return 0;                    /* a thread */
      /* A new process (its pid may be an old one's): a copy of its
      ** parent's address space. */
      t->nMap = 0;
      t->bMaps = 0;
      pParent = taskFind(T, s->ppid);
      if( !(pParent && pParent->bMaps) ){
        return T->bScoped ? procLoad(T, s->pid, s->ts) : 0;
      }
      t->bMaps = 1;
      for(i=0; i<pParent->nMap; i++){
        MODULE_RECORD r = pParent->aMap[i].m;
        r.Timestamp = s->ts;
        r.Pid = (ULONG)s->pid;
        if( mapAdd(T, s->pid, &r, pParent->aMap[i].flags) ) return -1;
      }
      return 0;
    }
    case PERF_RECORD_EXIT:
      /* A process ended: no fault of it can follow, so its model goes
      ** (the entry stays, to name late events of its threads). */
      t = taskFind(T, s->tid);
      if( t && s->pid==s->tid ){
        free(t->aMap);
        t->aMap = 0;
        t->nMap = t->nMapAlloc = 0;
      }
      return 0;
    case PERF_RECORD_COMM:
      t = taskFind(T, s->tid);
      if( t==0 && !T->bScoped ) return 0;
      if( (t = taskAdd(T, s->tid))==0 ) goto no_mem;
      t->pid = s->pid;
      if( !RTL_SUCCESS(TraceImportIntern(T->pImp, s->zPath,
                                         (ULONG)strlen(s->zPath),
                                         &t->commId)) ){
        return -1;
      }
      if( !s->bExec ) return 0;
      if( T->bExecRows
       && !RTL_SUCCESS(TraceImportProcessExec(T->pImp, s->ts,
                                             (ULONG)s->pid, t->commId,
                                             TRACE_NULL_ULONG)) ){
        return -1;
      }
      t = taskFind(T, s->pid);
      if( !(t && t->bMaps) && !T->bScoped ) return 0;
      return procExec(T, s->pid, s->ts);
  }
  return 0;
no_mem:
  RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0, "out of memory");
  return -1;
}

static int sideCompare(const void *a, const void *b){
  const RecSide *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->iSeq<y->iSeq ? -1 : x->iSeq>y->iSeq;
}

static unsigned rd32(const unsigned char *a){
  unsigned v; memcpy(&v, a, 4); return v;
}
static unsigned long long rd64(const unsigned char *a){
  unsigned long long v; memcpy(&v, a, 8); return v;
}

/* Adds a count to its queue.  0 or -1. */
static int countQueue(RecTasks *T, long long ts, unsigned long long addr,
                      int tid, int kind){
  RecCount *c;
  if( T->nCount>=T->nCountAlloc ){
    int nNew = T->nCountAlloc ? T->nCountAlloc*2 : 1024;
    RecCount *aNew = realloc(T->aCount, nNew*sizeof(RecCount));
    if( aNew==0 ) return -1;
    T->aCount = aNew;
    T->nCountAlloc = nNew;
  }
  c = &T->aCount[T->nCount++];
  c->ts = ts;
  c->addr = addr;
  c->tid = tid;
  c->kind = kind;
  return 0;
}

/* Adds *pS to the queue (which then owns its zPath).  0 or -1. */
static int sideQueue(RecTasks *T, RecSide *pS){
  if( T->nSide>=T->nSideAlloc ){
    int nNew = T->nSideAlloc ? T->nSideAlloc*2 : 256;
    RecSide *aNew = realloc(T->aSide, nNew*sizeof(RecSide));
    if( aNew==0 ){ free(pS->zPath); return -1; }
    T->aSide = aNew;
    T->nSideAlloc = nNew;
  }
  pS->iSeq = T->iSeq++;
  T->aSide[T->nSide++] = *pS;
  return 0;
}

/*
** Queues one perf record of n bytes (header included) from a buffer of
** iKind.  0 or -1.
*/
static int sideParse(RecTasks *T, int iKind, const unsigned char *a,
                     size_t n){
  struct perf_event_header h;
  RecSide s;
  memcpy(&h, a, sizeof(h));
  if( h.type==PERF_RECORD_LOST ){
    if( n<24 ) return 0;
    if( iKind==BUF_SIDE ){
      T->nLost += rd64(a+16);
    }else{
      T->nFaultLost += rd64(a+16);
      T->pImp->LostFaultCounts += rd64(a+16);
    }
    return 0;
  }
  if( iKind!=BUF_SIDE ){
    /* a fault count: pid, tid, time, addr (TID|TIME|ADDR); the
    ** recorder's own too (system-wide, its faults are events) */
    if( h.type!=PERF_RECORD_SAMPLE || n<32 ) return 0;
    return countQueue(T, (long long)rd64(a+16), rd64(a+24), (int)rd32(a+12),
                      iKind==BUF_MAJOR ? COUNT_MAJOR : COUNT_MINOR);
  }
  memset(&s, 0, sizeof(s));
  /* sample_id_all with TID|TIME: pid, tid, time at the end */
  if( n<8+16 ) return 0;
  s.type = h.type;
  s.ts = (long long)rd64(a+n-8);
  switch( h.type ){
    case PERF_RECORD_MMAP2: {
      const unsigned char *zName = a+72, *zStop = a+n-16;
      if( n<72+16 ) return 0;
      s.pid = (int)rd32(a+8);
      s.tid = (int)rd32(a+12);
      s.start = rd64(a+16);
      s.len = rd64(a+24);
      s.pgoff = rd64(a+32);
      s.prot = rd32(a+64);
      s.flags = rd32(a+68);
      s.zPath = malloc((size_t)(zStop-zName)+1);
      if( s.zPath==0 ) return -1;
      memcpy(s.zPath, zName, (size_t)(zStop-zName));
      s.zPath[zStop-zName] = 0;   /* NUL-padded: strlen ends it */
      break;
    }
    case PERF_RECORD_EXIT:
    case PERF_RECORD_FORK:
      if( n<8+24+16 ) return 0;
      s.pid = (int)rd32(a+8);
      s.ppid = (int)rd32(a+12);
      s.tid = (int)rd32(a+16);
      s.ptid = (int)rd32(a+20);
      /* the end of a thread, in order with its counts */
      if( h.type==PERF_RECORD_EXIT && T->bCounts
       && countQueue(T, s.ts, 0, s.tid, COUNT_END) ){
        return -1;
      }
      break;
    case PERF_RECORD_COMM: {
      const unsigned char *zName = a+16, *zStop = a+n-16;
      size_t nName;
      if( n<16+16 ) return 0;
      s.pid = (int)rd32(a+8);
      s.tid = (int)rd32(a+12);
      s.bExec = (h.misc & PERF_RECORD_MISC_COMM_EXEC)!=0;
      nName = strnlen((const char*)zName, (size_t)(zStop-zName));
      s.zPath = malloc(nName+1);
      if( s.zPath==0 ) return -1;
      memcpy(s.zPath, zName, nName);
      s.zPath[nName] = 0;
      break;
    }
    default:
      return 0;
  }
  return sideQueue(T, &s);
}

/* Copies n bytes at ring position pos (wrapping) to pOut. */
static void ringCopy(const unsigned char *aData, unsigned long long nData,
                     unsigned long long pos, void *pOut, size_t n){
  size_t iOff = (size_t)(pos & (nData-1));
  size_t n1 = n<nData-iOff ? n : (size_t)(nData-iOff);
  memcpy(pOut, aData+iOff, n1);
  memcpy((unsigned char*)pOut+n1, aData, n-n1);
}

/*
** Sorts aCount[lo, hi) by time: a natural merge sort.  The queue is a few
** runs already in order (what was queued before, then one per perf buffer:
** each CPU writes in time order), so this is a pass or two over it, with a
** buffer kept from call to call (glibc's qsort allocates one each time:
** fresh pages, faults of the recorder's own, at every poll).  0 or -1.
*/
static int countSort(RecTasks *T, int lo, int hi){
  RecCount *a = T->aCount, *t;
  int nRun;
  if( T->aCountTmp==0 || T->nCountTmp<T->nCountAlloc ){
    free(T->aCountTmp);
    T->aCountTmp = malloc(T->nCountAlloc*sizeof(RecCount));
    T->nCountTmp = T->aCountTmp ? T->nCountAlloc : 0;
    if( T->aCountTmp==0 ) return -1;
  }
  t = T->aCountTmp;
  do{
    int i = lo, k = lo;
    nRun = 0;
    while( i<hi ){
      int m = i+1, e, x, y;
      while( m<hi && a[m-1].ts<=a[m].ts ) m++;
      e = m;
      if( m<hi ){
        e = m+1;
        while( e<hi && a[e-1].ts<=a[e].ts ) e++;
      }
      for(x=i, y=m; x<m || y<e; ){
        if( y>=e || (x<m && a[x].ts<=a[y].ts) ) t[k++] = a[x++];
        else t[k++] = a[y++];
      }
      nRun++;
      i = e;
    }
    memcpy(&a[lo], &t[lo], (size_t)(hi-lo)*sizeof(RecCount));
  }while( nRun>1 );
  return 0;
}

int recTasksPoll(RecTasks *T){
  int i, iFirst = T->nSide, iFirstCount = T->nCount;
  for(i=0; i<T->nBuf; i++){
    struct perf_event_mmap_page *m = (void*)T->aBuf[i].pMap;
    const unsigned char *aData = T->aBuf[i].pMap + T->szPage;
    unsigned long long nData = T->aBuf[i].nMap - T->szPage;
    unsigned long long head = __atomic_load_n(&m->data_head,
                                              __ATOMIC_ACQUIRE);
    unsigned long long tail = m->data_tail;
    while( head-tail>=sizeof(struct perf_event_header) ){
      struct perf_event_header h;
      ringCopy(aData, nData, tail, &h, sizeof(h));
      if( h.size<sizeof(h) || h.size>head-tail ){ tail = head; break; }
      ringCopy(aData, nData, tail, T->aRec, h.size);
      if( sideParse(T, T->aBuf[i].iKind, T->aRec, h.size) ){
        RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0,
                    "out of memory");
        return -1;
      }
      tail += h.size;
    }
    __atomic_store_n(&m->data_tail, tail, __ATOMIC_RELEASE);
  }
  if( T->nSide>iFirst ){
    qsort(&T->aSide[T->iSide], (size_t)(T->nSide-T->iSide), sizeof(RecSide),
          sideCompare);
  }
  if( T->nCount>iFirstCount && countSort(T, T->iCount, T->nCount) ){
    RtlSetError(&T->pImp->Error, RTL_STATUS_NO_MEMORY, 0, 0, "out of memory");
    return -1;
  }
  return 0;
}

/* Applies one count to the import's fault classification.  0 or -1. */
static int countApply(RecTasks *T, const RecCount *c){
  RTL_STATUS rc;
  if( c->kind==COUNT_END ){
    rc = TraceImportPageFaultThreadEnded(T->pImp, (ULONG)c->tid);
  }else{
    rc = TraceImportPageFaultCounted(T->pImp, (ULONG)c->tid, c->ts, c->addr,
                                     c->kind==COUNT_MAJOR);
  }
  return RTL_SUCCESS(rc) ? 0 : -1;
}

int recTasksApplyTo(RecTasks *T, long long ts, long long tsCounts){
  for(;;){
    int bSide = T->iSide<T->nSide && T->aSide[T->iSide].ts<=ts;
    int bCount = T->iCount<T->nCount && T->aCount[T->iCount].ts<=tsCounts;
    int rc;
    if( bSide && bCount && T->aCount[T->iCount].ts<T->aSide[T->iSide].ts ){
      bSide = 0;
    }
    if( bSide ){
      RecSide *s = &T->aSide[T->iSide++];
      rc = sideApply(T, s);
      free(s->zPath);
      s->zPath = 0;
    }else if( bCount ){
      rc = countApply(T, &T->aCount[T->iCount++]);
    }else{
      break;
    }
    if( rc ) return -1;
  }
  if( T->iSide==T->nSide ) T->iSide = T->nSide = 0;
  if( T->iCount==T->nCount ) T->iCount = T->nCount = 0;
  return 0;
}

int recTasksApply(RecTasks *T, long long ts){
  return recTasksApplyTo(T, ts, ts);
}

/* --------------------------------------------------------------- perf */

static int perfOpen(struct perf_event_attr *pAttr, int pid, int cpu){
  return (int)syscall(__NR_perf_event_open, pAttr, pid, cpu, -1,
                      PERF_FLAG_FD_CLOEXEC);
}

static int pushFd(RecTasks *T, int fd){
  int *aNew = realloc(T->aFd, (T->nFd+1)*sizeof(int));
  if( aNew==0 ){ close(fd); return -1; }
  T->aFd = aNew;
  T->aFd[T->nFd++] = fd;
  return 0;
}

/* Closes the buffers from nBuf on and the events from nFd on. */
static void perfCloseFrom(RecTasks *T, int nBuf, int nFd){
  int i;
  for(i=nBuf; i<T->nBuf; i++) munmap(T->aBuf[i].pMap, T->aBuf[i].nMap);
  for(i=nFd; i<T->nFd; i++) close(T->aFd[i]);
  T->nBuf = nBuf;
  T->nFd = nFd;
}

static void perfClose(RecTasks *T){
  int i;
  for(i=0; i<T->nBuf; i++) munmap(T->aBuf[i].pMap, T->aBuf[i].nMap);
  for(i=0; i<T->nFd; i++) close(T->aFd[i]);
  free(T->aBuf);
  free(T->aFd);
  T->aBuf = 0;
  T->aFd = 0;
  T->nBuf = T->nFd = 0;
}

/*
** The threads of pid (*paTid, malloc'd, or a one-element array of pid
** itself when /proc does not list them).  0 or -1 (no memory).
*/
static int listThreads(int pid, int **paTid, int *pnTid){
  char zDir[64];
  DIR *pDir;
  struct dirent *pEnt;
  int *aTid = 0, nTid = 0;
  snprintf(zDir, sizeof(zDir), "/proc/%d/task", pid);
  pDir = opendir(zDir);
  if( pDir ){
    while( (pEnt = readdir(pDir))!=0 ){
      int tid = atoi(pEnt->d_name), *aNew;
      if( tid<=0 ) continue;
      aNew = realloc(aTid, (nTid+1)*sizeof(int));
      if( aNew==0 ){ closedir(pDir); free(aTid); return -1; }
      aTid = aNew;
      aTid[nTid++] = tid;
    }
    closedir(pDir);
  }
  if( nTid==0 ){
    aTid = realloc(aTid, sizeof(int));
    if( aTid==0 ) return -1;
    aTid[nTid++] = pid;
  }
  *paTid = aTid;
  *pnTid = nTid;
  return 0;
}

/*
** Opens event *pAttr for each thread in aTid (or, tid -1, the whole
** system) on each CPU in aCpu, the events of a CPU writing to one buffer
** of nPages data pages that holds iKind.  0, or -1 with a reason in zErr.
*/
static int perfOpenRings(RecTasks *T, struct perf_event_attr *pAttr,
                         int nCpu, const int *aCpu, const int *aTid,
                         int nTid, int nPages, int iKind, char *zErr,
                         int nErr){
  int i, j;
  for(i=0; i<nCpu; i++){
    int iOut = -1;
    for(j=0; j<nTid; j++){
      int fd = perfOpen(pAttr, aTid[j], aCpu[i]);
      if( fd<0 ){
        if( errno==ESRCH && nTid>1 ) continue;     /* the thread ended */
        snprintf(zErr, nErr, "perf_event_open (cpu %d): %s", aCpu[i],
                 strerror(errno));
        return -1;
      }
      if( pushFd(T, fd) ) return -1;
      if( iOut<0 ){
        size_t nMap = (size_t)(1+nPages)*T->szPage;
        RecPerfBuf *aNew;
        void *pMap = mmap(0, nMap, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
        if( pMap==MAP_FAILED ){
          snprintf(zErr, nErr, "mmap of a perf buffer: %s", strerror(errno));
          return -1;
        }
        aNew = realloc(T->aBuf, (T->nBuf+1)*sizeof(RecPerfBuf));
        if( aNew==0 ){ munmap(pMap, nMap); return -1; }
        T->aBuf = aNew;
        T->aBuf[T->nBuf].pMap = pMap;
        T->aBuf[T->nBuf].nMap = nMap;
        T->aBuf[T->nBuf++].iKind = iKind;
        iOut = fd;
      }else if( ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, iOut)!=0 ){
        snprintf(zErr, nErr, "PERF_EVENT_IOC_SET_OUTPUT: %s",
                 strerror(errno));
        return -1;
      }
    }
  }
  return 0;
}

int recTasksOpenPerf(RecTasks *T, int nCpu, const int *aCpu, int pid,
                     char *zErr, int nErr){
  struct perf_event_attr attr;
  int aOne[1], *aTid = aOne, nTid = 1, rc;
  memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  attr.sample_id_all = 1;
  attr.mmap = 1;
  attr.mmap2 = 1;
  attr.mmap_data = 1;
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  aOne[0] = pid;
  if( pid>0 ){
    /* Every thread of pid, and (inherit) what they start. */
    attr.inherit = 1;
    T->bScoped = 1;
    if( listThreads(pid, &aTid, &nTid) ) return -1;
  }
  rc = perfOpenRings(T, &attr, nCpu, aCpu, aTid, nTid, PERF_DATA_PAGES,
                     BUF_SIDE, zErr, nErr);
  if( aTid!=aOne ) free(aTid);
  if( rc ){
    if( zErr[0]==0 ) snprintf(zErr, nErr, "out of memory");
    perfClose(T);
    T->bScoped = 0;
    return -1;
  }
  return 0;
}

int recTasksOpenFaults(RecTasks *T, int nCpu, const int *aCpu, int pid,
                       char *zErr, int nErr){
  struct perf_event_attr attr;
  int aOne[1], *aTid = aOne, nTid = 1, rc = 0, nBuf = T->nBuf, nFd = T->nFd;
  int k, bKernel, iErrno;
  aOne[0] = pid;
  if( pid>0 && listThreads(pid, &aTid, &nTid) ) return -1;
  for(k=0; k<2 && rc==0; k++){
    /* Kernel-mode faults on user memory (a read() into an untouched
    ** buffer) are counted too, if perf lets us see them. */
    for(bKernel=1; bKernel>=0; bKernel--){
      memset(&attr, 0, sizeof(attr));
      attr.size = sizeof(attr);
      attr.type = PERF_TYPE_SOFTWARE;
      attr.config = k ? PERF_COUNT_SW_PAGE_FAULTS_MAJ
                      : PERF_COUNT_SW_PAGE_FAULTS_MIN;
      attr.sample_period = 1;
      attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
      attr.use_clockid = 1;
      attr.clockid = CLOCK_MONOTONIC;
      attr.exclude_kernel = !bKernel;
      attr.exclude_hv = 1;
      attr.inherit = pid>0;
      zErr[0] = 0;
      int nBuf0 = T->nBuf, nFd0 = T->nFd;
      rc = perfOpenRings(T, &attr, nCpu, aCpu, aTid, nTid, FAULT_DATA_PAGES,
                         k ? BUF_MAJOR : BUF_MINOR, zErr, nErr);
      if( rc==0 ) break;
      iErrno = errno;
      perfCloseFrom(T, nBuf0, nFd0);
      if( !bKernel || (iErrno!=EACCES && iErrno!=EPERM) ) break;
    }
  }
  if( aTid!=aOne ) free(aTid);
  if( rc ){
    if( zErr[0]==0 ) snprintf(zErr, nErr, "out of memory");
    perfCloseFrom(T, nBuf, nFd);     /* the side-band stays */
    return -1;
  }
  T->bCounts = 1;
  return 0;
}

int recTasksHasPerf(RecTasks *T){ return T->nBuf>0; }

/* ------------------------------------------------------------ resolver */

static VOID describeTask(PVOID pCtx, ULONG tid, PULONG pPid,
                         PULONG pCommId){
  RecTask *t = taskFind((RecTasks*)pCtx, (int)tid);
  *pPid = t && t->pid>0 ? (ULONG)t->pid : TRACE_NULL_ULONG;
  *pCommId = t ? t->commId : TRACE_NULL_ULONG;
}

static ULONG resolveModule(PVOID pCtx, ULONG pid, ULONGLONG addr,
                           PULONGLONG pOffset, PULONG pFlags){
  RecTasks *T = (RecTasks*)pCtx;
  RecTask *t = taskFind(T, (int)pid);
  const RecMap *p;
  int i;
  *pOffset = TRACE_NULL_ULONGLONG;
  *pFlags = 0;
  if( t==0 ) return TRACE_NULL_ULONG;
  i = mapLowerBound(t, addr);
  if( i>=t->nMap || t->aMap[i].m.Start>addr ) return TRACE_NULL_ULONG;
  p = &t->aMap[i];
  /* perf gives anonymous memory a page offset of its own address: the
  ** offset into memory that is not a file is from the mapping's start */
  *pOffset = addr - p->m.Start
           + ((p->flags & TRACE_MAPPING_FILE) ? p->m.Offset : 0);
  *pFlags = p->flags;
  return p->m.PathId!=TRACE_NULL_ULONG ? p->m.PathId : T->anonId;
}

PTRACE_EVENT_RESOLVER recTasksResolver(RecTasks *T){ return &T->resolver; }

unsigned long long recTasksLost(RecTasks *T){ return T->nLost; }
unsigned long long recTasksSideRecords(RecTasks *T){ return T->nApplied; }
unsigned long long recTasksFaultLost(RecTasks *T){ return T->nFaultLost; }

RecTasks *recTasksNew(PTRACE_IMPORT pImport){
  RecTasks *T = calloc(1, sizeof(RecTasks));
  if( T==0 ) return 0;
  T->pImp = pImport;
  T->iSelf = (int)getpid();
  T->szPage = (size_t)sysconf(_SC_PAGESIZE);
  T->resolver.DescribeTask = describeTask;
  T->resolver.ModuleOf = resolveModule;
  T->resolver.Context = T;
  if( !RTL_SUCCESS(TraceImportIntern(pImport, "//anon", 6, &T->anonId)) ){
    free(T);
    return 0;
  }
  return T;
}

void recTasksFree(RecTasks *T){
  int i;
  if( T==0 ) return;
  perfClose(T);
  for(i=0; i<T->nTaskAlloc; i++) free(T->aTask[i].aMap);
  free(T->aTask);
  for(i=T->iSide; i<T->nSide; i++) free(T->aSide[i].zPath);
  free(T->aSide);
  free(T->aCount);
  free(T->aCountTmp);
  free(T);
}
