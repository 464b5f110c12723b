/*
** PyTraceModule.c: the `tracestore` CPython extension module: start()
** and stop() of the call tracer, and what happens at exit and fork.
**
**   import tracestore
**   tracestore.start("run.trace", include=None, exclude=None,
**                    max_depth=0, c_calls=False, sync_interval=1.0,
**                    sync_log=None, lines=None)
**   ...                       # every Python call is a row of `span`,
**                             # every line of the modules in lines= of `line`
**   tracestore.stop()         # -> the number of calls recorded
**
** Zone: hosted (the live recorders): libc, pthreads, the CPython C API.
** Owns the module object and the process's RTL; calls PyTraceWriter.c
** (session, committer) and PyTraceHooks.c (hooks).  Built once per
** interpreter (CMake: Live/Python/PythonModule.cmake).
**
** os.fork(): the child does not trace.  It shares the parent's mapped
** store files, and the session has one writer, the parent; so at the
** fork (a pthread_atfork handler, before any Python code runs in the
** child) the child stops recording, and its hooks are removed by an
** os.register_at_fork hook.  Its calls are not in the session.
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "PyTrace.h"

static void pytForkChild(void){
  /* The child shares the store files: it must never write them. */
  __atomic_store_n(&g.bActive, 0, __ATOMIC_RELAXED);
  g.pSession = 0;          /* the parent's; left mapped, never closed here */
  g.pSpan = 0;
  g.pLine = 0;
  g.bCommitterRun = 0;     /* the thread is not in the child */
  g.nPageHead = g.nPageTail;  /* its queue: the parent's pages */
  pthread_mutex_init(&g.mutex, 0);  /* it may have held the lock */
  pthread_cond_init(&g.cond, 0);
  pthread_cond_init(&g.condReady, 0);
  g.pThreads = 0;          /* other threads' stacks: leaked in the child */
  pytCurrent = 0;
}

static PyObject *pytAfterForkChild(PyObject *pSelf, PyObject *pArg){
  (void)pSelf; (void)pArg;
  if( g.eMode!=PYT_MODE_NONE ) pytHooksRemove();
  PyErr_Clear();
  Py_RETURN_NONE;
}

/* A list or tuple of str (or None) into a malloc'ed array. */
static int pytStrings(PyObject *pSeq, char ***pazOut, int *pnOut,
                      const char *zWhat){
  PyObject *pFast;
  Py_ssize_t i, n;
  if( pSeq==0 || pSeq==Py_None ) return 0;
  if( PyUnicode_Check(pSeq) ){
    PyErr_Format(PyExc_TypeError, "%s: a list of module prefixes, not a str",
                 zWhat);
    return 1;
  }
  pFast = PySequence_Fast(pSeq, zWhat);
  if( pFast==0 ) return 1;
  n = PySequence_Fast_GET_SIZE(pFast);
  *pazOut = calloc(n ? n : 1, sizeof(char*));
  if( *pazOut==0 ){ Py_DECREF(pFast); PyErr_NoMemory(); return 1; }
  for(i=0; i<n; i++){
    PyObject *p = PySequence_Fast_GET_ITEM(pFast, i);
    const char *z = PyUnicode_Check(p) ? PyUnicode_AsUTF8(p) : 0;
    if( z==0 ){
      Py_DECREF(pFast);
      if( !PyErr_Occurred() ){
        PyErr_Format(PyExc_TypeError, "%s: module prefixes are str", zWhat);
      }
      return 1;
    }
    (*pazOut)[i] = strdup(z);
    (*pnOut)++;
  }
  Py_DECREF(pFast);
  return 0;
}

static PyObject *pytStop(PyObject *pSelf, PyObject *pArg);

static PyObject *pytStart(PyObject *pSelf, PyObject *pArgs, PyObject *pKw){
  static char *azKw[] = { "path", "include", "exclude", "max_depth",
                          "c_calls", "sync_interval", "sync_log", "lines", 0 };
  PyObject *pPath = 0, *pInclude = 0, *pExclude = 0, *pLines = 0;
  int mxDepth = 0, bCCalls = 0;
  double rSync = 1.0;
  const char *zSyncLog = 0;
  PyObject *pBytes = 0, *pStop = 0, *pRes;
  static int bAtexit = 0;
  (void)pSelf;

  if( !PyArg_ParseTupleAndKeywords(pArgs, pKw, "O|OOipdzO:start", azKw,
                                   &pPath, &pInclude, &pExclude, &mxDepth,
                                   &bCCalls, &rSync, &zSyncLog, &pLines) ){
    return 0;
  }
  if( !(rSync>=0) || rSync>86400 ){
    PyErr_SetString(PyExc_ValueError, "tracestore.start: sync_interval is "
                    "seconds from 0 (open and close only) to 86400");
    return 0;
  }
  if( g.pSession ){
    PyErr_SetString(PyExc_RuntimeError,
                    "tracestore.start: already tracing (stop() first)");
    return 0;
  }
  if( mxDepth<0 ){
    PyErr_SetString(PyExc_ValueError, "tracestore.start: max_depth < 0");
    return 0;
  }
  pytOptionsFree(&g.opt);
  if( pytStrings(pInclude, &g.opt.azInclude, &g.opt.nInclude, "include")
   || pytStrings(pExclude, &g.opt.azExclude, &g.opt.nExclude, "exclude")
   || pytStrings(pLines, &g.opt.azLines, &g.opt.nLines, "lines") ){
    pytOptionsFree(&g.opt);
    return 0;
  }
  g.opt.mxDepth = mxDepth;
  g.opt.bCCalls = bCCalls;
  memset(&g.sync, 0, sizeof(g.sync));
  g.sync.rInterval = rSync;
  g.sync.zLog = zSyncLog;
  if( hostSyncStart(&g.sync, &g.rtl) ){
    PyErr_Format(PyExc_OSError, "tracestore.start: %s", g.sync.zError);
    return 0;
  }
  if( !PyUnicode_FSConverter(pPath, &pBytes) ){
    hostSyncAfterClose(&g.sync, 0);
    return 0;
  }
  if( pytWriterOpen(PyBytes_AS_STRING(pBytes)) ){
    Py_DECREF(pBytes);
    PyErr_Format(PyExc_OSError, "tracestore.start: %s", g.zError);
    hostSyncAfterClose(&g.sync, 0);
    return 0;
  }
  Py_DECREF(pBytes);

  /* stop() at exit, after threading has joined the program's threads. */
  pStop = bAtexit ? 0 : PyObject_GetAttrString(pSelf, "stop");
  if( pStop ){
    bAtexit = 1;
    PyObject *pRegister = PyImport_ImportModule("atexit");
    if( pRegister ){
      pRes = PyObject_CallMethod(pRegister, "register", "O", pStop);
      Py_XDECREF(pRes);
      Py_DECREF(pRegister);
    }
    Py_DECREF(pStop);
  }
  if( PyErr_Occurred() ) goto fail;
  __atomic_store_n(&g.bActive, 1, __ATOMIC_RELAXED);
  if( pytHooksInstall(pSelf) ) goto fail;
  if( pytCommitterStart() ){
    PyErr_SetString(PyExc_OSError, "tracestore.start: no committer thread");
    goto fail;
  }
  Py_RETURN_NONE;

fail:
  __atomic_store_n(&g.bActive, 0, __ATOMIC_RELAXED);
  if( g.eMode!=PYT_MODE_NONE ) pytHooksRemove();
  pytWriterClose();
  return 0;
}

static PyObject *pytStop(PyObject *pSelf, PyObject *pArg){
  unsigned long long nCalls = g.nCalls;
  PyObject *pType, *pValue, *pTb;
  (void)pSelf; (void)pArg;
  if( g.pSession==0 ) Py_RETURN_NONE;
  PyErr_Fetch(&pType, &pValue, &pTb);
  __atomic_store_n(&g.bActive, 0, __ATOMIC_RELAXED);
  pytHooksRemove();
  pytCommitterStop();
  pytWriterClose();
  PyErr_Restore(pType, pValue, pTb);
  return PyLong_FromUnsignedLongLong(nCalls);
}

/* stats() -> dict: what the writer did so far (for the benchmark). */
static PyObject *pytStats(PyObject *pSelf, PyObject *pArg){
  (void)pSelf; (void)pArg;
  return Py_BuildValue("{s:K,s:K,s:K,s:L,s:s}",
                       "calls", (unsigned long long)g.nCalls,
                       "lines", (unsigned long long)g.nLines,
                       "commits", (unsigned long long)g.nCommits,
                       "commit_ns", (long long)g.nsCommit,
                       "mode", g.eMode==PYT_MODE_MONITORING ? "sys.monitoring"
                               : g.eMode==PYT_MODE_PROFILE ? "profile" : "off");
}

static PyMethodDef aMethod[] = {
  {"start", (PyCFunction)(void(*)(void))pytStart, METH_VARARGS|METH_KEYWORDS,
   "start(path, include=None, exclude=None, max_depth=0, c_calls=False,\n"
   "      sync_interval=1.0, sync_log=None, lines=None)\n"
   "Record every Python call of every thread into the session at path\n"
   "(its `span` store), until stop() or exit; and every line executed by\n"
   "functions of the modules lines= names (prefixes, as include=) into its\n"
   "`line` store.  Every sync_interval seconds\n"
   "(0: at start and stop only) the committed rows are made durable: after\n"
   "a power cut the session holds them (docs/durability.md); sync_log\n"
   "names a file that gets a line per sync."},
  {"stop", pytStop, METH_NOARGS,
   "stop() -> calls recorded.  Closes calls still running (flags 2)."},
  {"stats", pytStats, METH_NOARGS, "stats() -> dict of writer counters"},
  {"_after_fork_child", pytAfterForkChild, METH_NOARGS, 0},
  {0, 0, 0, 0}
};

static struct PyModuleDef sModule = {
  PyModuleDef_HEAD_INIT, "tracestore",
  "Trace Python calls into a Tracer session (the `span` store), live.",
  -1, aMethod, 0, 0, 0, 0
};

PyMODINIT_FUNC PyInit_tracestore(void){
  PyObject *m;
  PyMethodDef *d;
  static int bOnce = 0;
  if( !bOnce ){
    if( !RTL_SUCCESS(InitializeRtl(&g.rtl)) ){
      PyErr_SetString(PyExc_ImportError, "tracestore: InitializeRtl failed");
      return 0;
    }
    g.rtl.PrefaultMemoryAsync = pytPrefaultAsync;
    g.xDiscard = g.rtl.DiscardMemory;
    g.rtl.DiscardMemory = pytDiscardAsync;
    pthread_mutex_init(&g.mutex, 0);
    pthread_cond_init(&g.cond, 0);
    pthread_cond_init(&g.condReady, 0);
    g.iCodeIndex = PyUnstable_Eval_RequestCodeExtraIndex(free);
    if( g.iCodeIndex<0 ){
      PyErr_SetString(PyExc_ImportError, "tracestore: no co_extra index");
      return 0;
    }
    pthread_atfork(0, 0, pytForkChild);
    bOnce = 1;
  }
  m = PyModule_Create(&sModule);
  if( m==0 ) return 0;
  for(d=pytHookMethods; d->ml_name; d++){
    PyObject *f = PyCFunction_NewEx(d, m, 0);
    if( f==0 || PyModule_AddObject(m, d->ml_name, f)<0 ){
      Py_XDECREF(f);
      Py_DECREF(m);
      return 0;
    }
  }
  {
    PyObject *pOs = PyImport_ImportModule("os");
    PyObject *pAfter = PyObject_GetAttrString(m, "_after_fork_child");
    if( pOs && pAfter ){
      PyObject *pKw = Py_BuildValue("{s:O}", "after_in_child", pAfter);
      PyObject *pReg = PyObject_GetAttrString(pOs, "register_at_fork");
      PyObject *pEmpty = PyTuple_New(0);
      PyObject *pRes = (pKw && pReg && pEmpty) ? PyObject_Call(pReg, pEmpty, pKw) : 0;
      Py_XDECREF(pRes); Py_XDECREF(pEmpty); Py_XDECREF(pReg); Py_XDECREF(pKw);
    }
    Py_XDECREF(pAfter);
    Py_XDECREF(pOs);
    if( PyErr_Occurred() ){ Py_DECREF(m); return 0; }
  }
  return m;
}
