/*
** PyTrace.h: the Python call tracer's shared state (the `tracestore`
** CPython extension module: PyTraceModule.c, PyTraceWriter.c,
** PyTraceHooks.c).
**
** Zone: hosted (the live recorders): libc, pthreads, the CPython C API.
** Includes Python.h and the store's public header; nothing includes it
** but the three files of the module.
**
** The invariants of the span rows it writes (docs/python-tracer.md):
**
**   - One writer per process (g.pSession), touched only under the GIL:
**     the profile hook and the sys.monitoring callbacks run holding it, and
**     the committer thread takes it to commit.  So the Python threads need
**     no lock of their own: each has a stack of open calls (PytThread),
**     reached through a thread-local pointer.
**   - A call reserves its row at the call, in call order: ts never goes
**     down, so the store stays sorted by ts, and the parent's row index is
**     known to its children.  The row is written whole at the call with
**     dur 0 and flags SPAN_FLAG_END_MISSING ("still running").
**   - Rows whose calls are still running are the only rows that change
**     after a commit: every commit sets their dur to the commit's time, and
**     the return writes the final dur, then flags 0.  A row with flags 0 is
**     final.  So a program killed at any point leaves its running calls
**     closed at the last commit and flagged, as the uftrace reader closes
**     calls without an exit.
**   - The store's pages ahead of the writer are faulted in, and those
**     behind it unmapped, by the committer thread (Rtl.PrefaultMemoryAsync
**     and Rtl.DiscardMemory), without the GIL.  The program's thread only
**     queues them: unmapping 2 MB behind the writer cost fib 8 ns a call.
**     An unmapping may come late but never after the store is closed:
**     pytCommitterStop runs what is left before pytWriterClose.
**   - Lines (--lines, docs/python-tracer.md): a traced frame has at most
**     one running `line` row, written at its line event with flags 2 and
**     finished (dur, self_dur, flags 0) at the frame's next line event or
**     its end; commits refresh running lines as they do running calls.
**     Line rows' ts come from the same clamped clock, so `line` is sorted
**     by ts too, and a line's span row is committed before it.
**   - Commits: at an event at least PYT_COMMIT_NS after the last commit,
**     and from the committer thread when the program makes no calls (it
**     sleeps, waits, runs C code), so SQL sees calls within ~10 ms.
*/
#ifndef PYTRACE_H
#define PYTRACE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#include "Host/HostSync.h"
#include "TraceStore/TraceStore.h"
#include "TraceStore/TraceSchema.h"

#if PY_VERSION_HEX < 0x030C0000
# define PyUnstable_Code_SetExtra _PyCode_SetExtra
# define PyUnstable_Code_GetExtra _PyCode_GetExtra
# define PyUnstable_Eval_RequestCodeExtraIndex _PyEval_RequestCodeExtraIndex
#endif

#define PYT_COMMIT_NS     (4LL * 1000 * 1000)   /* hot path: commit after */
#define PYT_COMMITTER_NS  (5LL * 1000 * 1000)   /* committer thread period */
#define PYT_REFRESH_NS    (100LL * 1000 * 1000) /* idle: refresh open rows */
#define PYT_NO_ROW        (~0ULL)
#define PYT_PAGE_QUEUE    16

typedef struct PytCode PytCode;

/* One open call of a thread.  Row is PYT_NO_ROW for a call that is not
** recorded (filtered out, deeper than --max-depth): it is still pushed so
** that its return pops it.  The line fields are set only with --lines. */
typedef struct PytFrame PytFrame;
struct PytFrame {
  uint64_t iRow;          /* span row, or PYT_NO_ROW */
  int64_t iTs;            /* ts of the call */
  uint64_t iPrevTop;      /* the thread's iTop before this call */
  PytCode *pLines;        /* its code's names if its lines are traced */
  PyObject *pCode;        /* that code object (borrowed: the frame runs it) */
  uint64_t iLine;         /* row of its running line, or PYT_NO_ROW */
  int64_t iLineTs;        /* ts of that line */
  int64_t iLineChild;     /* time that line spent in traced frames */
  int iPrevLineTop;       /* the thread's iLineTop before this call */
};

/* A thread's state.  Created at its first event; lives until the thread
** ends (the pthread key's destructor sets bDead) and the next commit frees
** it. */
typedef struct PytThread PytThread;
struct PytThread {
  PytThread *pNext;       /* g.pThreads list */
  unsigned int iGen;      /* g.iGen this stack belongs to */
  unsigned int tid;
  int bDead;              /* the thread has ended (atomic) */
  int nDepth;             /* frames in use */
  int nAlloc;             /* frames allocated */
  int nRecorded;          /* frames with a row: the next row's depth */
  uint64_t iTop;          /* row of the innermost recorded call */
  int iLineTop;           /* frame of the innermost traced frame, or -1 */
  PytFrame *aFrame;
};

/* What a code object is recorded as, cached in its co_extra slot for the
** session of generation iGen. */
struct PytCode {
  unsigned int iGen;
  unsigned int nameId;    /* "module.qualname" */
  unsigned int argsId;    /* "file:firstline" */
  int bSkip;              /* --include/--exclude leave it out */
  int bLines;             /* --lines traces its lines */
  unsigned int fileId;    /* co_filename, with bLines */
  int iJumpFrom, iJumpTo; /* 3.12+: the last backward jump looked at */
  int iJumpLine;          /* its line if both ends share it, else -1 */
};

typedef struct PytOptions PytOptions;
struct PytOptions {
  char **azInclude; int nInclude;   /* module prefixes */
  char **azExclude; int nExclude;
  int mxDepth;                      /* 0: no limit */
  int bCCalls;                      /* record C functions too */
  char **azLines; int nLines;       /* --lines: module prefixes */
};

typedef struct PytGlobal PytGlobal;
struct PytGlobal {
  RTL rtl;
  int bActive;            /* events are recorded (atomic: fork clears it) */
  unsigned int iGen;      /* session generation, bumped by each start() */
  TRACE_SESSION *pSession;
  TRACE_STORE *pSpan;
  TRACE_STORE *pLine;         /* the line store, with --lines, else NULL */
  TRACE_STORE *pThreadStore;  /* a row per thread: its threading name */
  TRACE_STORE *pProcessStore; /* the process: "python3 prog.py" */
  TRACE_TS_TRACKER tracker;   /* ts of the rows since the last commit */
  TRACE_TS_TRACKER lineTracker;
  unsigned int pid;
  unsigned int catPython; /* "python" */
  unsigned int catC;      /* "c" */
  PytOptions opt;
  int bTsc;               /* pytNow reads the TSC */
  uint64_t iTscBase;      /* TSC and CLOCK_MONOTONIC at the last anchor */
  int64_t iMonoBase;
  uint64_t iTscMult;      /* ns per TSC tick, << 32 */
  uint64_t iTscFirst;     /* the first anchor, for the rate */
  int64_t iMonoFirst;
  int64_t iLastCommit;    /* ts of the last commit (atomic) */
  int64_t iLastTs;        /* latest ts seen */
  uint64_t nCalls;        /* rows written */
  uint64_t nLines;        /* line rows written */
  uint64_t nCommits;
  int64_t nsCommit;       /* total time spent committing */
  PytThread *pThreads;
  Py_ssize_t iCodeIndex;  /* co_extra index */
  int eMode;              /* PYT_MODE_* */
  int iTool;              /* sys.monitoring tool id */
  PyObject *pMissing;     /* sys.monitoring.MISSING */
  PyObject *pDisable;     /* sys.monitoring.DISABLE */
  PyObject *pLineCodes;   /* 3.12+: the code objects whose LINE and JUMP
                          ** events are on (a list), turned off at stop() */
  int bCommitterRun;
  int bCommitterStop;
  int bCommitterReady;    /* it has its thread state (under mutex) */
  pthread_t committer;
  pthread_mutex_t mutex;  /* committer sleep */
  pthread_cond_t cond;
  pthread_cond_t condReady;
  pthread_key_t key;
  /* The committer thread's page work (under mutex): pre-faults ahead of
  ** the writer, unmappings behind it. */
  struct { void *p; size_t n; int bDiscard; } aPage[PYT_PAGE_QUEUE];
  unsigned int nPageHead, nPageTail;
  PRTL_DISCARD_MEMORY xDiscard;   /* the RTL's own DiscardMemory */
  /* Durability: start(sync_interval=, sync_log=); the committer thread
  ** syncs (docs/durability.md). */
  HostSync sync;
  int64_t iLastSync;      /* pytMono of the last sync */
  int bSyncFailed;        /* a sync failed (said once on stderr) */
  char zError[512];
};

#define PYT_MODE_NONE       0
#define PYT_MODE_PROFILE    1   /* PyEval_SetProfile (3.11; fallback) */
#define PYT_MODE_MONITORING 2   /* sys.monitoring (3.12+) */

extern PytGlobal g;
extern __thread PytThread *pytCurrent
  __attribute__((tls_model("initial-exec")));

/* CLOCK_MONOTONIC, ns. */
static inline int64_t pytMono(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec*1000000000LL + t.tv_nsec;
}

/*
** The events' clock: CLOCK_MONOTONIC, read from the TSC when the kernel's
** own clock source is the TSC (a third of the cost of clock_gettime here)
** and mapped to CLOCK_MONOTONIC by a line through two readings of both,
** moved forward at every commit (PyTraceWriter.c, pytClockAnchor).  The
** hooks keep the times they write from going down (g.iLastTs).
*/
static inline int64_t pytNow(void){
#if defined(__x86_64__)
  if( g.bTsc ){
    uint64_t t = __builtin_ia32_rdtsc();
    return g.iMonoBase
         + (int64_t)(((unsigned __int128)(t - g.iTscBase) * g.iTscMult) >> 32);
  }
#endif
  return pytMono();
}

/* PyTraceWriter.c */
int pytWriterOpen(const char *zPath);
void pytWriterClose(void);
void pytCommit(int64_t now);
void pytClockStart(void);
PytThread *pytThreadSlow(void);
PytCode *pytCodeSlow(PyCodeObject *pCode, PyObject *pGlobals, PytCode *p);
unsigned int pytInternC(PyObject *pFunc, PyObject *pSelf);
int pytCommitterStart(void);
void pytPrefaultAsync(PRTL pRtl, PVOID p, SIZE_T n);
void pytDiscardAsync(PRTL pRtl, PCVOID p, SIZE_T n);
void pytCommitterStop(void);
void pytOptionsFree(PytOptions *p);

/* PyTraceHooks.c */
int pytHooksInstall(PyObject *pModule);
void pytHooksRemove(void);
void pytCall(PytThread *t, unsigned int nameId, unsigned int argsId,
             unsigned int catId, int bSkip, PytCode *pLines, PyObject *pCode,
             int64_t now);
void pytReturn(PytThread *t, int64_t now);
void pytUnmapRow(TRACE_STORE *pStore, uint64_t iRow);
extern PyMethodDef pytHookMethods[];

#endif /* PYTRACE_H */
