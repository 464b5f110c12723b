/*
** PyTraceWriter.c: the Python tracer's writer: the session and its `span`
** store, the names of code objects, the threads' stacks, the commits and
** the committer thread.
**
** Zone: hosted (the live recorders): libc, pthreads, the CPython C API.
** Calls the core's store API (TraceStore/: the session, its string table,
** the span store) through the module's RTL.  Called by PyTraceModule.c
** (open, close) and PyTraceHooks.c (threads, names, commits).
**
** Everything here runs holding the GIL, but for the committer thread's
** wait between commits and the pthread key destructor, which only marks a
** thread dead (see PyTrace.h for the invariants of the rows).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "PyTrace.h"
#include "Host/HostIdentity.h"

PytGlobal g;
__thread PytThread *pytCurrent __attribute__((tls_model("initial-exec")));

/*
** A reading of the TSC and CLOCK_MONOTONIC together: the tightest of a few
** tries, since a thread preempted between the reads (a busy machine)
** would pair times milliseconds apart and bend the line.
*/
static void pytClockPair(uint64_t *pTsc, int64_t *pMono){
#if defined(__x86_64__)
  uint64_t best = ~0ULL;
  int i;
  for(i=0; i<32; i++){
    uint64_t a = __builtin_ia32_rdtsc();
    int64_t m = pytMono();
    uint64_t b = __builtin_ia32_rdtsc();
    if( b - a < best ){
      best = b - a;
      *pTsc = a + (b - a)/2;
      *pMono = m;
      if( best<2000 ) break;
    }
  }
#else
  *pTsc = 0;
  *pMono = pytMono();
#endif
}

/*
** Starts the TSC clock if the kernel's clock source is the TSC: the rate
** from 2 ms of both clocks, refined at every anchor.
*/
void pytClockStart(void){
  char zSource[32] = {0};
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource", "r");
  uint64_t t1;
  int64_t m1;
  g.bTsc = 0;
#if defined(__x86_64__)
  if( f ){
    if( fgets(zSource, sizeof(zSource), f)==0 ) zSource[0] = 0;
  }
#endif
  if( f ) fclose(f);
  if( strcmp(zSource, "tsc\n")!=0 || getenv("TRACESTORE_NO_TSC") ) return;
  pytClockPair(&g.iTscFirst, &g.iMonoFirst);
  do{
    pytClockPair(&t1, &m1);
  }while( m1 - g.iMonoFirst < 2000000 );
  if( t1<=g.iTscFirst ) return;
  g.iTscMult = (uint64_t)((((unsigned __int128)(m1 - g.iMonoFirst)) << 32)
                          / (t1 - g.iTscFirst));
  g.iTscBase = t1;
  g.iMonoBase = m1;
  g.bTsc = 1;
}

/*
** Moves the TSC clock's line to a fresh reading of both clocks (at a
** commit, under the GIL), with the rate over everything since the start.
** Never below what it gave before: the hooks clamp to g.iLastTs.
*/
static void pytClockAnchor(void){
  uint64_t t;
  int64_t m;
  if( !g.bTsc ) return;
  pytClockPair(&t, &m);
  if( t<=g.iTscFirst ) return;
  g.iTscMult = (uint64_t)((((unsigned __int128)(m - g.iMonoFirst)) << 32)
                          / (t - g.iTscFirst));
  g.iTscBase = t;
  g.iMonoBase = m;
}

static unsigned int pytIntern(const char *z, size_t n);

/* The base name of path z (after its last '/'). */
static const char *pytBaseName(const char *z){
  const char *zSlash = strrchr(z, '/');
  return zSlash ? zSlash+1 : z;
}

/*
** The process's row: its pid and a name as people read it, the
** interpreter and the script ("python3.12 prog.py", as py-spy and ps
** show it; the kernel's comm says only "python3").  Under the GIL.
*/
static void pytProcessRow(void){
  PROCESS_RECORD r;
  PyObject *pArgv = PySys_GetObject("argv");           /* borrowed */
  PyObject *pExe = PySys_GetObject("executable");      /* borrowed */
  const char *zExe = 0, *zArg = 0;
  char zName[256];
  if( pExe && PyUnicode_Check(pExe) ) zExe = PyUnicode_AsUTF8(pExe);
  if( pArgv && PyList_Check(pArgv) && PyList_Size(pArgv)>0
   && PyUnicode_Check(PyList_GetItem(pArgv, 0)) ){
    zArg = PyUnicode_AsUTF8(PyList_GetItem(pArgv, 0));
  }
  if( PyErr_Occurred() ) PyErr_Clear();   /* (called by start(): none) */
  snprintf(zName, sizeof(zName), "%s%s%s",
           zExe && zExe[0] ? pytBaseName(zExe) : "python",
           zArg && zArg[0] ? " " : "", zArg && zArg[0] ? pytBaseName(zArg) : "");
  memset(&r, 0, sizeof(r));
  r.StartTs = g.iLastTs;
  r.Pid = g.pid;
  r.NameId = pytIntern(zName, strlen(zName));
  r.FileNameId = zExe && zExe[0] ? pytIntern(zExe, strlen(zExe))
                                 : TRACE_STRING_NULL;
  TraceStoreAppend(g.pProcessStore, &r, 0);
}

/*
** The calling thread's name as threading knows it, as a new reference (or
** NULL): the Thread whose _bootstrap frame is at the bottom of the stack
** (threading.py starts every Thread there, with self in its locals), or
** "MainThread" for the process's first thread (tid == pid).  Reads the
** frame's locals and the Thread's _name, a plain attribute: no Python
** code runs.  An exception being raised is kept as it was.
*/
static PyObject *pytThreadName(void){
  PyFrameObject *f = PyThreadState_GetFrame(PyThreadState_Get());
  PyFrameObject *pBack;
  PyObject *pName = 0;
#if PY_VERSION_HEX >= 0x030C0000
  PyObject *pExc = PyErr_GetRaisedException();
#else
  PyObject *pType, *pValue, *pTb;
  PyErr_Fetch(&pType, &pValue, &pTb);
#endif
  while( f && (pBack = PyFrame_GetBack(f))!=0 ){
    Py_DECREF(f);
    f = pBack;
  }
  if( f ){
    PyCodeObject *pCode = PyFrame_GetCode(f);
    const char *zName = PyUnicode_AsUTF8(pCode->co_name);
    const char *zFile = PyUnicode_AsUTF8(pCode->co_filename);
    size_t n = zFile ? strlen(zFile) : 0;
    if( zName && strcmp(zName, "_bootstrap")==0
     && n>=12 && strcmp(zFile+n-12, "threading.py")==0 ){
      PyObject *pLocals = PyFrame_GetLocals(f);
      PyObject *pSelf = pLocals ? PyMapping_GetItemString(pLocals, "self") : 0;
      if( pSelf ) pName = PyObject_GetAttrString(pSelf, "_name");
      if( pName && !PyUnicode_Check(pName) ) Py_CLEAR(pName);
      Py_XDECREF(pSelf);
      Py_XDECREF(pLocals);
    }
    Py_DECREF(pCode);
    Py_DECREF(f);
  }
  PyErr_Clear();
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(pExc);
#else
  PyErr_Restore(pType, pValue, pTb);
#endif
  if( pName==0 && (unsigned int)syscall(SYS_gettid)==g.pid ){
    pName = PyUnicode_FromString("MainThread");
    if( pName==0 ) PyErr_Clear();
  }
  return pName;
}

/* The calling thread's row (tid, pid, its name), at its first event of
** the session.  Under the GIL. */
static void pytThreadRow(PytThread *t){
  THREAD_RECORD r;
  PyObject *pName = pytThreadName();
  const char *z = pName ? PyUnicode_AsUTF8(pName) : 0;
  if( z==0 && pName ) PyErr_Clear();
  memset(&r, 0, sizeof(r));
  r.StartTs = pytNow();
  r.Tid = t->tid;
  r.Pid = g.pid;
  r.CommId = z ? pytIntern(z, strlen(z)) : TRACE_STRING_NULL;
  TraceStoreAppend(g.pThreadStore, &r, 0);
  Py_XDECREF(pName);
}

/*
** Opens (or creates) the session at zPath for writing, with its span
** store and the "mono" clock (CLOCK_MONOTONIC, as `tracestore record`).
** Returns 0, or 1 with g.zError set.
*/
int pytWriterOpen(const char *zPath){
  RTL_ERROR err;
  TRACE_SESSION *p;

  memset(&err, 0, sizeof(err));
  p = calloc(1, sizeof(*p));
  if( p==0 ){
    snprintf(g.zError, sizeof(g.zError), "out of memory");
    return 1;
  }
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&g.rtl, zPath, p, &err)) ){
    snprintf(g.zError, sizeof(g.zError), "%s", err.Message);
    free(p);
    return 1;
  }
  if( !RTL_SUCCESS(TraceSessionOpenStore(p, &TraceSpanSchema, &g.pSpan, &err))
   || !RTL_SUCCESS(TraceSessionOpenStore(p, &TraceThreadSchema,
                                         &g.pThreadStore, &err))
   || !RTL_SUCCESS(TraceSessionOpenStore(p, &TraceProcessSchema,
                                         &g.pProcessStore, &err))
   || (g.opt.nLines>0
       && !RTL_SUCCESS(TraceSessionOpenStore(p, &TraceLineSchema, &g.pLine,
                                             &err)))
   || !RTL_SUCCESS(TraceSessionSetClock(p, "mono"))
   || !RTL_SUCCESS(TraceStringIntern(&p->Strings, "python", 6, &g.catPython))
   || !RTL_SUCCESS(TraceStringIntern(&p->Strings, "c", 1, &g.catC)) ){
    snprintf(g.zError, sizeof(g.zError), "%.200s: %.250s", zPath,
             err.Message[0] ? err.Message : "cannot open the span store");
    TraceSessionClose(p);
    free(p);
    g.pLine = 0;
    return 1;
  }
  /* The machine, as import and record name it (a session made before
  ** keeps its host). */
  {
    TRACE_SESSION_HOST host;
    memset(&host, 0, sizeof(host));
    hostIdentity(host.HostName, sizeof(host.HostName), host.BootId,
                     sizeof(host.BootId), host.KernelRelease,
                     sizeof(host.KernelRelease));
    TraceSessionSetHost(p, &host);
  }
  /* Bounded memory however long the program runs (docs/python-tracer.md), and large
  ** page-cache pages: pre-faulting costs the committer thread a third. */
  g.pSpan->DiscardBehind = TRUE;
  g.pSpan->LargePages = TRUE;
  if( g.pLine ){
    g.pLine->DiscardBehind = TRUE;
    g.pLine->LargePages = TRUE;
  }
  p->RollupsElsewhere = TRUE;     /* the committer thread folds them */
  g.pSession = p;
  g.tracker = (TRACE_TS_TRACKER)TRACE_TS_TRACKER_INIT;
  g.lineTracker = (TRACE_TS_TRACKER)TRACE_TS_TRACKER_INIT;
  g.pid = (unsigned int)getpid();
  g.iGen++;
  g.nCalls = 0;
  g.nLines = 0;
  g.nCommits = 0;
  g.nsCommit = 0;
  pytClockStart();
  g.iLastCommit = pytNow();
  g.iLastTs = g.iLastCommit;
  g.iLastSync = pytMono();
  g.bSyncFailed = 0;
  hostSyncLogged(&g.sync, p);     /* the open's sync */
  pytProcessRow();
  return 0;
}

/*
** The committer's sync (docs/durability.md), outside the GIL: the flushes
** read only counts and file handles.  The log hashes records through the
** span store's mapping, which a reserve on the program's thread can move:
** that part runs under the GIL, and only with sync_log.
*/
static void pytSync(PyThreadState *ts){
  RTL_ERROR err;
  int64_t now = pytMono();
  if( g.pSession==0 || g.sync.rInterval<=0
   || now - g.iLastSync < (int64_t)(g.sync.rInterval*1e9) ) return;
  g.iLastSync = now;
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionSync(g.pSession, &err)) ){
    if( !g.bSyncFailed ){
      fprintf(stderr, "tracestore: sync failed: %s\n", err.Message);
      g.bSyncFailed = 1;
    }
    return;
  }
  if( g.sync.pLog ){
    PyEval_RestoreThread(ts);
    hostSyncLogged(&g.sync, g.pSession);
    PyEval_SaveThread();
  }
}

/* Frees the stacks of threads that have ended. */
static void pytReapThreads(void){
  PytThread **pp = &g.pThreads;
  while( *pp ){
    PytThread *t = *pp;
    if( __atomic_load_n(&t->bDead, __ATOMIC_ACQUIRE) ){
      *pp = t->pNext;
      free(t->aFrame);
      free(t);
    }else{
      pp = &t->pNext;
    }
  }
}

/*
** Sets the dur of every row whose call (or line) is still running to
** now - ts: what a reader sees of them, and what stays if the program is
** killed.
*/
static void pytRefreshOpen(int64_t now){
  PytThread *t;
  for(t=g.pThreads; t; t=t->pNext){
    int i;
    if( t->iGen!=g.iGen ) continue;
    for(i=0; i<t->nDepth; i++){
      PytFrame *f = &t->aFrame[i];
      if( f->iRow!=PYT_NO_ROW ){
        SPAN_RECORD *r = (SPAN_RECORD*)(g.pSpan->Base
                                        + f->iRow*sizeof(SPAN_RECORD));
        __atomic_store_n(&r->Duration, now - f->iTs, __ATOMIC_RELAXED);
      }
      if( g.pLine && f->pLines && f->iLine!=PYT_NO_ROW ){
        LINE_RECORD *r = (LINE_RECORD*)(g.pLine->Base
                                        + f->iLine*sizeof(LINE_RECORD));
        __atomic_store_n(&r->SelfDuration, now - f->iLineTs - f->iLineChild,
                         __ATOMIC_RELAXED);
        __atomic_store_n(&r->Duration, now - f->iLineTs, __ATOMIC_RELAXED);
      }
    }
  }
}

/*
** Commits the session (strings first, then the span rows), after setting
** the running calls' dur to now.  Under the GIL.
*/
void pytCommit(int64_t now){
  int64_t t0;
  if( g.pSession==0 ) return;
  t0 = pytMono();
  if( now<g.iLastTs ) now = g.iLastTs;
  pytRefreshOpen(now);
  /* Strings first; the rows' ts are tracked as they are written, so the
  ** commit need not read them back. */
  if( RTL_SUCCESS(TraceStringCommit(&g.pSession->Strings)) ){
    TraceStoreCommitTracked(g.pSpan, &g.tracker);
    if( g.pLine ) TraceStoreCommitTracked(g.pLine, &g.lineTracker);
    TraceStoreCommit(g.pThreadStore, TRACE_COMMIT_ALL);
    TraceStoreCommit(g.pProcessStore, TRACE_COMMIT_ALL);
  }
  pytReapThreads();
  pytClockAnchor();
  __atomic_store_n(&g.iLastCommit, now, __ATOMIC_RELEASE);
  g.nCommits++;
  g.nsCommit += pytMono() - t0;
}

/*
** Closes the session: every call still running gets its dur up to the
** last event seen and keeps SPAN_FLAG_END_MISSING; then a last commit.
*/
void pytWriterClose(void){
  PytThread *t;
  int64_t now = pytNow();
  if( g.pSession==0 ) return;
  pytCommit(now);
  for(t=g.pThreads; t; t=t->pNext){
    t->nDepth = 0;
    t->nRecorded = 0;
    t->iTop = PYT_NO_ROW;
    t->iLineTop = -1;
  }
  hostSyncBeforeClose(&g.sync, g.pSession);
  TraceSessionClose(g.pSession);
  hostSyncAfterClose(&g.sync, g.pSession);
  free(g.pSession);
  g.pSession = 0;
  g.pSpan = 0;
  g.pLine = 0;
  g.pThreadStore = 0;
  g.pProcessStore = 0;
}

static void pytThreadEnded(void *pArg){
  PytThread *t = (PytThread*)pArg;
  __atomic_store_n(&t->bDead, 1, __ATOMIC_RELEASE);
}

/*
** The calling thread's state, created at its first event, or reset when
** it belongs to an earlier session.  Under the GIL.
*/
PytThread *pytThreadSlow(void){
  PytThread *t = pytCurrent;
  if( t==0 ){
    static int bKey = 0;
    if( !bKey ){
      if( pthread_key_create(&g.key, pytThreadEnded)!=0 ) return 0;
      bKey = 1;
    }
    t = calloc(1, sizeof(*t));
    if( t==0 ) return 0;
    t->nAlloc = 64;
    t->aFrame = malloc(sizeof(PytFrame)*t->nAlloc);
    if( t->aFrame==0 ){ free(t); return 0; }
    t->tid = (unsigned int)syscall(SYS_gettid);
    t->pNext = g.pThreads;
    g.pThreads = t;
    pthread_setspecific(g.key, t);
    pytCurrent = t;
  }
  t->iGen = g.iGen;
  t->nDepth = 0;
  t->nRecorded = 0;
  t->iTop = PYT_NO_ROW;
  t->iLineTop = -1;
  if( g.pSession ) pytThreadRow(t);
  return t;
}

/* 1 if module zMod is named by one of the prefixes azPrefix[]: the prefix
** itself or a submodule of it. */
static int pytMatch(const char *zMod, char **azPrefix, int n){
  int i;
  for(i=0; i<n; i++){
    size_t k = strlen(azPrefix[i]);
    if( strncmp(zMod, azPrefix[i], k)==0
     && (zMod[k]==0 || zMod[k]=='.') ) return 1;
  }
  return 0;
}

static unsigned int pytIntern(const char *z, size_t n){
  unsigned int id = TRACE_STRING_NULL;
  if( !RTL_SUCCESS(TraceStringIntern(&g.pSession->Strings, z, (ULONG)n, &id)) ){
    return TRACE_STRING_NULL;
  }
  return id;
}

/*
** Names a code object at its first call in this session: "module.qualname"
** (module: the __name__ of the function's globals) and "file:firstline",
** each interned once; and whether the filters leave it out.  p is the
** code's cached entry or NULL; returns it filled (NULL without memory).
*/
PytCode *pytCodeSlow(PyCodeObject *pCode, PyObject *pGlobals, PytCode *p){
  const char *zMod = "?";
  const char *zQual = "?";
  const char *zFile = "?";
  char *zName;
  size_t n;

  if( p==0 ){
    p = calloc(1, sizeof(*p));
    if( p==0 ) return 0;
    if( PyUnstable_Code_SetExtra((PyObject*)pCode, g.iCodeIndex, p)!=0 ){
      PyErr_Clear();
      free(p);
      return 0;
    }
  }
  if( pGlobals && PyDict_Check(pGlobals) ){
    PyObject *pName = PyDict_GetItemString(pGlobals, "__name__");
    if( pName && PyUnicode_Check(pName) ){
      zMod = PyUnicode_AsUTF8(pName);
      if( zMod==0 ){ PyErr_Clear(); zMod = "?"; }
    }
  }
  if( pCode->co_qualname && PyUnicode_Check(pCode->co_qualname) ){
    zQual = PyUnicode_AsUTF8(pCode->co_qualname);
    if( zQual==0 ){ PyErr_Clear(); zQual = "?"; }
  }
  if( pCode->co_filename && PyUnicode_Check(pCode->co_filename) ){
    zFile = PyUnicode_AsUTF8(pCode->co_filename);
    if( zFile==0 ){ PyErr_Clear(); zFile = "?"; }
  }
  n = strlen(zMod) + strlen(zQual) + strlen(zFile) + 32;
  zName = malloc(n);
  if( zName==0 ) return 0;
  snprintf(zName, n, "%s.%s", zMod, zQual);
  p->nameId = pytIntern(zName, strlen(zName));
  snprintf(zName, n, "%s:%d", zFile, pCode->co_firstlineno);
  p->argsId = pytIntern(zName, strlen(zName));
  free(zName);
  p->bSkip = 0;
  p->bLines = g.opt.nLines>0 && pytMatch(zMod, g.opt.azLines, g.opt.nLines);
  p->fileId = p->bLines ? pytIntern(zFile, strlen(zFile)) : TRACE_STRING_NULL;
  if( g.opt.nInclude>0 && !pytMatch(zMod, g.opt.azInclude, g.opt.nInclude) ){
    p->bSkip = 1;
  }
  if( pytMatch(zMod, g.opt.azExclude, g.opt.nExclude) ) p->bSkip = 1;
  p->iGen = g.iGen;
  return p;
}

/*
** A type as "module.name" ("name" for builtins), the module and name its
** __module__ and __name__ say: tp_name for a static type; for a heap type
** (made from a spec or by a class statement) its name and the __module__
** of its dict.  Into z[n].
*/
static const char *pytTypeName(PyTypeObject *t, char *z, size_t n){
  if( t->tp_flags & Py_TPFLAGS_HEAPTYPE ){
    PyObject *pMod = t->tp_dict ? PyDict_GetItemString(t->tp_dict, "__module__") : 0;
    PyObject *pName = ((PyHeapTypeObject*)t)->ht_name;
    const char *zMod = pMod && PyUnicode_Check(pMod) ? PyUnicode_AsUTF8(pMod) : 0;
    const char *zName = pName && PyUnicode_Check(pName) ? PyUnicode_AsUTF8(pName) : 0;
    if( zName==0 ){ PyErr_Clear(); zName = "?"; }
    if( zMod==0 ) PyErr_Clear();
    if( zMod && strcmp(zMod, "builtins")!=0 ){
      snprintf(z, n, "%s.%s", zMod, zName);
    }else{
      snprintf(z, n, "%s", zName);
    }
  }else{
    snprintf(z, n, "%s", t->tp_name ? t->tp_name : "?");
  }
  return z;
}

/*
** The name of a C function (--c-calls), as sys.setprofile's c_call
** argument shows it: "owner.name", the owner being the type of the bound
** object (the type itself for a class method), else the function's module.
** pSelf is the object a method descriptor is called on (3.12+: CPython's
** legacy profiler binds the descriptor to it).  Interned at each call: the
** table's hash finds it again (C calls are the expensive option).
*/
unsigned int pytInternC(PyObject *pFunc, PyObject *pSelf){
  char zBuf[256];
  char zType[200];
  const char *zOwner = 0;
  const char *zName = "?";
  if( PyCFunction_Check(pFunc) ){
    PyCFunctionObject *f = (PyCFunctionObject*)pFunc;
    PyObject *pBound = PyCFunction_GET_SELF(pFunc);   /* NULL if static */
    zName = f->m_ml->ml_name;
    if( pBound && !PyModule_Check(pBound) ){
      zOwner = pytTypeName(PyType_Check(pBound) ? (PyTypeObject*)pBound
                           : Py_TYPE(pBound), zType, sizeof(zType));
    }else if( f->m_module && PyUnicode_Check(f->m_module) ){
      zOwner = PyUnicode_AsUTF8(f->m_module);
      if( zOwner==0 ) PyErr_Clear();
    }
  }else if( Py_TYPE(pFunc)==&PyMethodDescr_Type ){
    PyMethodDescrObject *d = (PyMethodDescrObject*)pFunc;
    zName = d->d_method->ml_name;
    zOwner = pytTypeName(pSelf ? Py_TYPE(pSelf) : PyDescr_TYPE(d), zType,
                         sizeof(zType));
  }else{
    zName = pytTypeName(Py_TYPE(pFunc), zType, sizeof(zType));
  }
  if( zOwner ){
    snprintf(zBuf, sizeof(zBuf), "%s.%s", zOwner, zName);
  }else{
    snprintf(zBuf, sizeof(zBuf), "%s", zName);
  }
  return pytIntern(zBuf, strlen(zBuf));
}

/*
** Queues page work for the committer thread, or returns 1 if the caller
** must do it now: no committer, a full queue (slower, never wrong), or
** the committer itself asking (it commits when the program is idle).
*/
static int pytPageQueue(void *p, size_t n, int bDiscard){
  int bInline = 0;
  pthread_mutex_lock(&g.mutex);
  if( !g.bCommitterRun || g.nPageTail - g.nPageHead >= PYT_PAGE_QUEUE
   || pthread_equal(pthread_self(), g.committer) ){
    bInline = 1;
  }else{
    g.aPage[g.nPageTail % PYT_PAGE_QUEUE].p = p;
    g.aPage[g.nPageTail % PYT_PAGE_QUEUE].n = n;
    g.aPage[g.nPageTail % PYT_PAGE_QUEUE].bDiscard = bDiscard;
    g.nPageTail++;
    pthread_cond_signal(&g.cond);
  }
  pthread_mutex_unlock(&g.mutex);
  return bInline;
}

/*
** Rtl.PrefaultMemoryAsync: the store asks for the pages a window ahead of
** the writer; the committer thread faults them in, so that the program
** does not take a page fault every 73 calls.
*/
void pytPrefaultAsync(PRTL pRtl, PVOID p, SIZE_T n){
  if( pytPageQueue(p, n, 0) ) pRtl->PrefaultMemory(pRtl, p, n);
}

/*
** Rtl.DiscardMemory: the store unmaps what lies behind its writer at a
** commit (DiscardBehind), the hooks a long call's row they wrote again;
** the committer thread does it.  The range stays the store's until it is
** closed, and pytCommitterStop runs the queue before that.
*/
void pytDiscardAsync(PRTL pRtl, PCVOID p, SIZE_T n){
  (void)pRtl;
  if( pytPageQueue((void*)p, n, 1) ) g.xDiscard(&g.rtl, p, n);
}

/* The store whose mapping holds p (span or line), or NULL. */
static TRACE_STORE *pytStoreOf(void *p){
  TRACE_STORE *a[2];
  int i;
  a[0] = g.pSpan;
  a[1] = g.pLine;
  for(i=0; i<2; i++){
    PBYTE pMap = a[i] ? (PBYTE)a[i]->Mapping : 0;
    if( pMap && (PBYTE)p>=pMap && (PBYTE)p<pMap + a[i]->MappingSize ){
      return a[i];
    }
  }
  return 0;
}

/* Runs the queued page work; called with g.mutex held, which it lets go
** of while working. */
static void pytPageRun(void){
  while( g.nPageHead!=g.nPageTail ){
    void *p = g.aPage[g.nPageHead % PYT_PAGE_QUEUE].p;
    size_t n = g.aPage[g.nPageHead % PYT_PAGE_QUEUE].n;
    int bDiscard = g.aPage[g.nPageHead % PYT_PAGE_QUEUE].bDiscard;
    TRACE_STORE *pStore = pytStoreOf(p);
    g.nPageHead++;
    pthread_mutex_unlock(&g.mutex);
    if( bDiscard ){
      g.xDiscard(&g.rtl, p, n);
    }else if( pStore ){
      /* A pre-fault this thread comes to late (the machine is busy) may
      ** lie behind the writer, in pages the store already unmapped:
      ** faulting them in again would keep them resident for good.  So
      ** only the part ahead of the writer.  The store's fields are read
      ** without the GIL: a stale answer costs a useless or a skipped
      ** pre-fault. */
      PBYTE pWriter = __atomic_load_n(&pStore->Base, __ATOMIC_RELAXED)
        + __atomic_load_n(&pStore->ReservedCount, __ATOMIC_RELAXED)
          * pStore->RecordSize;
      PBYTE pStart = (PBYTE)p, pEnd = (PBYTE)p + n;
      if( pStart<pWriter ) pStart = pWriter;
      if( pEnd>pStart ){
        g.rtl.PrefaultMemory(&g.rtl, pStart, (SIZE_T)(pEnd - pStart));
      }
    }
    pthread_mutex_lock(&g.mutex);
  }
}

static void *pytCommitter(void *pArg){
  PyGILState_STATE st;
  PyThreadState *ts;
  (void)pArg;
  st = PyGILState_Ensure();
  ts = PyEval_SaveThread();
  pthread_mutex_lock(&g.mutex);
  g.bCommitterReady = 1;
  pthread_cond_signal(&g.condReady);
  while( !g.bCommitterStop ){
    struct timespec until;
    int64_t now, last;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += PYT_COMMITTER_NS;
    if( until.tv_nsec>=1000000000L ){ until.tv_sec++; until.tv_nsec -= 1000000000L; }
    if( g.nPageHead==g.nPageTail ){
      pthread_cond_timedwait(&g.cond, &g.mutex, &until);
    }
    if( g.bCommitterStop ) break;
    pytPageRun();
    /* The span rollup takes in what the program committed, here rather
    ** than in the program's commits: it costs the program nothing. */
    pthread_mutex_unlock(&g.mutex);
    if( g.pSession ) TraceSessionUpdateRollups(g.pSession, FALSE);
    pytSync(ts);
    pthread_mutex_lock(&g.mutex);
    now = pytMono();
    last = __atomic_load_n(&g.iLastCommit, __ATOMIC_ACQUIRE);
    if( now - last < PYT_COMMITTER_NS ) continue;
    pthread_mutex_unlock(&g.mutex);
    PyEval_RestoreThread(ts);
    if( g.pSession && g.bActive ){
      int bNew = g.pSpan->ReservedCount!=g.pSpan->CommittedCount
              || (g.pLine && g.pLine->ReservedCount!=g.pLine->CommittedCount);
      now = pytNow();
      if( bNew || now - g.iLastCommit >= PYT_REFRESH_NS ) pytCommit(now);
    }
    PyEval_SaveThread();
    pthread_mutex_lock(&g.mutex);
  }
  pthread_mutex_unlock(&g.mutex);
  PyEval_RestoreThread(ts);
  PyGILState_Release(st);
  return 0;
}

/* Starts the committer thread.  Returns 0 or 1. */
int pytCommitterStart(void){
  g.bCommitterStop = 0;
  g.bCommitterReady = 0;
  if( pthread_create(&g.committer, 0, pytCommitter, 0)!=0 ) return 1;
  g.bCommitterRun = 1;
  /* Its thread state needs the GIL once.  Waiting for that here keeps it
  ** from waiting while the program runs: a thread asking for the GIL gets
  ** it only at the interpreter's next switch (up to 5 ms later), and the
  ** first pre-faults, queued meanwhile, came too late (the program faulted
  ** its first megabyte itself). */
  Py_BEGIN_ALLOW_THREADS
  pthread_mutex_lock(&g.mutex);
  while( !g.bCommitterReady ) pthread_cond_wait(&g.condReady, &g.mutex);
  pthread_mutex_unlock(&g.mutex);
  Py_END_ALLOW_THREADS
  return 0;
}

/* Stops the committer thread and waits for it, letting go of the GIL
** meanwhile (it may be waiting for it). */
void pytCommitterStop(void){
  if( !g.bCommitterRun ) return;
  pthread_mutex_lock(&g.mutex);
  g.bCommitterStop = 1;
  pthread_cond_signal(&g.cond);
  pthread_mutex_unlock(&g.mutex);
  Py_BEGIN_ALLOW_THREADS
  pthread_join(g.committer, 0);
  Py_END_ALLOW_THREADS
  /* What the thread left: the unmappings before the store is closed, the
  ** pre-faults dropped (close trims the pages past the last row). */
  pthread_mutex_lock(&g.mutex);
  g.bCommitterRun = 0;
  while( g.nPageHead!=g.nPageTail ){
    if( g.aPage[g.nPageHead % PYT_PAGE_QUEUE].bDiscard ){
      g.xDiscard(&g.rtl, g.aPage[g.nPageHead % PYT_PAGE_QUEUE].p,
                 g.aPage[g.nPageHead % PYT_PAGE_QUEUE].n);
    }
    g.nPageHead++;
  }
  pthread_mutex_unlock(&g.mutex);
}

void pytOptionsFree(PytOptions *p){
  int i;
  for(i=0; i<p->nInclude; i++) free(p->azInclude[i]);
  for(i=0; i<p->nExclude; i++) free(p->azExclude[i]);
  for(i=0; i<p->nLines; i++) free(p->azLines[i]);
  free(p->azInclude);
  free(p->azExclude);
  free(p->azLines);
  memset(p, 0, sizeof(*p));
}
