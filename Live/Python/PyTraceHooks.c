/*
** PyTraceHooks.c: the Python tracer's hot path: calls and returns from
** the interpreter's hooks into span rows.
**
** Zone: hosted (the live recorders): the CPython C API.  Called by the
** interpreter (the profile hook, sys.monitoring callbacks) and by
** PyTraceModule.c (install, remove); calls PyTraceWriter.c for thread
** state, names and commits, and the store's inline append.
**
** Two hooks, one meaning: a "call" is the profile hook's PyTrace_CALL,
** which sys.monitoring spells PY_START, PY_RESUME (a generator or
** coroutine resumed) and PY_THROW (resumed by throw()); a "return" is
** PyTrace_RETURN, spelled PY_RETURN, PY_YIELD and PY_UNWIND (an exception
** leaves the frame).  That is how CPython 3.12 builds sys.setprofile on
** sys.monitoring, so both give the same tree as a sys.setprofile recorder.
**
**   - 3.11 (Debian's): PyEval_SetProfile in C.  Threads running at start()
**     get it through _PyEval_SetProfile on their thread state; threads
**     started later through threading.setprofile(), whose hook is a C
**     object that, at the thread's first event, installs the C hook on
**     that thread (so a new thread's calls begin at Thread.run, where the
**     threading module installs profile hooks).
**   - 3.12 and later: sys.monitoring with C callbacks (METH_FASTCALL, so
**     vectorcall), all threads at once, from a thread's first frame
**     (Thread._bootstrap).  If no tool id is free, the profile hook as on
**     3.11, with PyEval_SetProfileAllThreads.
**
** A return with no open call on its thread (the frame began before
** start()) is ignored, as a sys.setprofile recorder ignores it.
**
** Lines (--lines): a line event of a frame whose code is traced becomes a
** `line` row, the same events sys.settrace's "line" gives, so that hits
** equal a sys.settrace recorder's and line_profiler's:
**
**   - 3.11: the C trace function (PyEval_SetTrace's), switched per frame:
**     the profile hook, at each call and return, sets the thread's
**     c_tracefunc when the frame that runs next is traced and clears it
**     when not.  The interpreter already checks for tracing at every
**     instruction (the profile hook turns that on), and calls the trace
**     function only where it is set, so untraced frames pay one compare
**     per call and return.  A program's own sys.settrace is left alone.
**   - 3.12+: sys.monitoring LINE events, enabled per code object
**     (set_local_events) at the first call of a traced code, and JUMP
**     events for the one case LINE misses and sys.settrace counts: a jump
**     backwards within one line (a loop on one line).  Other jumps are
**     switched off where they are (DISABLE), after one callback each.
*/
#include <string.h>
#include <time.h>

#include "PyTrace.h"

/*
** A long call returns to a row the store has unmapped behind its writer:
** writing its dur faulted the page in again, and nothing would unmap it
** a second time.  So it is unmapped here (the page cache keeps it), when
** the whole page lies in the unmapped part.  The same for a long line.
*/
void pytUnmapRow(TRACE_STORE *pStore, uint64_t iRow){
  uint64_t n = pStore->RecordSize;
  uint64_t iFrom = (iRow*n) & ~4095ULL;
  uint64_t iTo = ((iRow + 1)*n + 4095) & ~4095ULL;
  if( iTo <= (pStore->DiscardedBytes & ~4095ULL) ){
    g.rtl.DiscardMemory(&g.rtl, pStore->Base + iFrom, (SIZE_T)(iTo - iFrom));
  }
}

/* Finishes the running line of frame f at now. */
static void pytLineEnd(PytFrame *f, int64_t now){
  LINE_RECORD *r = (LINE_RECORD*)(g.pLine->Base + f->iLine*sizeof(LINE_RECORD));
  int64_t dur = now - f->iLineTs;
  __atomic_store_n(&r->SelfDuration, dur - f->iLineChild, __ATOMIC_RELAXED);
  __atomic_store_n(&r->Duration, dur, __ATOMIC_RELAXED);
  __atomic_store_n(&r->Flags, 0, __ATOMIC_RELEASE);
  if( f->iLine*sizeof(LINE_RECORD) < g.pLine->DiscardedBytes ){
    pytUnmapRow(g.pLine, f->iLine);
  }
  f->iLine = PYT_NO_ROW;
}

/*
** A line event of code pCode at line iLine: the innermost frame's running
** line ends and a row for this one begins.  Ignored unless that frame runs
** pCode and its lines are traced (a frame begun before start()).
*/
static void pytLine(PytThread *t, PyObject *pCode, int iLine, int64_t now){
  PytFrame *f;
  LINE_RECORD *r;
  ULONGLONG iRow;
  if( t->nDepth==0 ) return;
  f = &t->aFrame[t->nDepth-1];
  if( f->pLines==0 || f->pCode!=pCode ) return;
  if( now<g.iLastTs ) now = g.iLastTs;
  if( f->iLine!=PYT_NO_ROW ) pytLineEnd(f, now);
  if( !RTL_SUCCESS(TraceStoreReserveOne(g.pLine, &iRow)) ){
    TraceStoreAddDropped(g.pLine, 1);   /* disk full: store_info.dropped */
    return;
  }
  r = (LINE_RECORD*)(g.pLine->Base + iRow*sizeof(LINE_RECORD));
  r->Timestamp = now;
  r->Duration = 0;
  r->SelfDuration = 0;
  r->SpanId = t->iTop==PYT_NO_ROW ? -1 : (LONGLONG)t->iTop;
  r->FileId = f->pLines->fileId;
  r->LineNo = (ULONG)iLine;
  r->NameId = f->pLines->nameId;
  r->Tid = t->tid;
  r->Flags = SPAN_FLAG_END_MISSING;
  r->Padding = 0;
  TraceStoreTrackTs(&g.lineTracker, now);
  f->iLine = iRow;
  f->iLineTs = now;
  f->iLineChild = 0;
  g.nLines++;
  g.iLastTs = now;
  if( now - g.iLastCommit >= PYT_COMMIT_NS ) pytCommit(now);
}

/* A traced frame ends (returns, yields, unwinds): its running line ends,
** and its time is the enclosing traced line's time in traced code. */
static void pytLinesPop(PytThread *t, PytFrame *f, int64_t now){
  if( f->iLine!=PYT_NO_ROW ) pytLineEnd(f, now);
  t->iLineTop = f->iPrevLineTop;
  if( t->iLineTop>=0 ) t->aFrame[t->iLineTop].iLineChild += now - f->iTs;
}

/* Pushes a call; records it unless bSkip or deeper than --max-depth. */
void pytCall(PytThread *t, unsigned int nameId, unsigned int argsId,
             unsigned int catId, int bSkip, PytCode *pLines, PyObject *pCode,
             int64_t now){
  PytFrame *f;
  SPAN_RECORD *r;
  ULONGLONG iRow;

  if( now<g.iLastTs ) now = g.iLastTs;

  if( t->nDepth==t->nAlloc ){
    int nNew = t->nAlloc*2;
    PytFrame *aNew = realloc(t->aFrame, sizeof(PytFrame)*nNew);
    if( aNew==0 ) return;       /* the matching return pops another frame:
                                ** out of memory here is out of memory */
    t->aFrame = aNew;
    t->nAlloc = nNew;
  }
  f = &t->aFrame[t->nDepth++];
  f->iRow = PYT_NO_ROW;
  f->iTs = now;
  if( g.pLine ){
    f->pLines = pLines;
    f->pCode = pCode;
    f->iLine = PYT_NO_ROW;
    if( pLines ){
      f->iPrevLineTop = t->iLineTop;
      t->iLineTop = t->nDepth - 1;
    }
  }
  if( bSkip || (g.opt.mxDepth>0 && t->nRecorded>=g.opt.mxDepth) ) return;

  if( !RTL_SUCCESS(TraceStoreReserveOne(g.pSpan, &iRow)) ){
    TraceStoreAddDropped(g.pSpan, 1);   /* disk full: store_info.dropped */
    return;
  }
  /* Written in place, field by field (TraceStoreReserveOne says why). */
  r = (SPAN_RECORD*)(g.pSpan->Base + iRow*sizeof(SPAN_RECORD));
  r->Timestamp = now;
  r->Duration = 0;
  r->ParentId = t->iTop==PYT_NO_ROW ? -1 : (LONGLONG)t->iTop;
  r->NameId = nameId;
  r->Depth = (ULONG)t->nRecorded;
  r->Tid = t->tid;
  r->Pid = g.pid;
  r->CategoryId = catId;
  r->ArgsId = argsId;
  r->Flags = SPAN_FLAG_END_MISSING;
  r->Padding = 0;
  TraceStoreTrackTs(&g.tracker, now);
  f->iRow = iRow;
  f->iPrevTop = t->iTop;
  t->iTop = iRow;
  t->nRecorded++;
  g.nCalls++;
  g.iLastTs = now;
  if( now - g.iLastCommit >= PYT_COMMIT_NS ) pytCommit(now);
}

/* Pops the innermost call of t and finishes its row. */
void pytReturn(PytThread *t, int64_t now){
  PytFrame *f;
  SPAN_RECORD *r;
  if( t->nDepth==0 ) return;
  if( now<g.iLastTs ) now = g.iLastTs;
  f = &t->aFrame[--t->nDepth];
  if( g.pLine && f->pLines ) pytLinesPop(t, f, now);
  if( f->iRow==PYT_NO_ROW ) return;
  r = (SPAN_RECORD*)(g.pSpan->Base + f->iRow*sizeof(SPAN_RECORD));
  __atomic_store_n(&r->Duration, now - f->iTs, __ATOMIC_RELAXED);
  __atomic_store_n(&r->Flags, 0, __ATOMIC_RELEASE);
  if( f->iRow*sizeof(SPAN_RECORD) < g.pSpan->DiscardedBytes ){
    pytUnmapRow(g.pSpan, f->iRow);
  }
  t->iTop = f->iPrevTop;
  t->nRecorded--;
  g.iLastTs = now;
  if( now - g.iLastCommit >= PYT_COMMIT_NS ) pytCommit(now);
}

static inline PytThread *pytThread(void){
  PytThread *t = pytCurrent;
  if( t==0 || t->iGen!=g.iGen ) t = pytThreadSlow();
  return t;
}

#if PY_VERSION_HEX >= 0x030C0000
static void pytLocalEvents(PyCodeObject *pCode, PytCode *c);
#endif

/* The code's cached names, computing them at its first call. */
static inline PytCode *pytCode(PyCodeObject *pCode, PyFrameObject *pFrame){
  PytCode *c = 0;
  if( PyUnstable_Code_GetExtra((PyObject*)pCode, g.iCodeIndex, (void**)&c)!=0 ){
    PyErr_Clear();
    return 0;
  }
  if( c==0 || c->iGen!=g.iGen ){
    PyObject *pGlobals;
    if( pFrame ){
      pGlobals = PyFrame_GetGlobals(pFrame);
    }else{
      pGlobals = PyEval_GetGlobals();
      Py_XINCREF(pGlobals);
    }
    c = pytCodeSlow(pCode, pGlobals, c);
    Py_XDECREF(pGlobals);
#if PY_VERSION_HEX >= 0x030C0000
    if( c && c->bLines ) pytLocalEvents(pCode, c);
#endif
  }
  return c;
}

static void pytCallCode(PytThread *t, PyCodeObject *pCode,
                        PyFrameObject *pFrame, int64_t now){
  PytCode *c = pytCode(pCode, pFrame);
  if( c ){
    pytCall(t, c->nameId, c->argsId, g.catPython, c->bSkip,
            c->bLines ? c : 0, (PyObject*)pCode, now);
  }else{
    pytCall(t, TRACE_STRING_NULL, TRACE_STRING_NULL, g.catPython, 1, 0, 0, now);
  }
}

#if PY_VERSION_HEX < 0x030C0000
/*
** 3.11's trace function, set only while a traced frame runs (pytFollow):
** its line events.  Calls, returns and exceptions are the profile hook's.
*/
static int pytTraceLine(PyObject *pObj, PyFrameObject *pFrame, int what,
                        PyObject *pArg){
  PytThread *t = pytCurrent;
  PyCodeObject *pCode;
  (void)pObj; (void)pArg;
  if( what!=PyTrace_LINE || !__atomic_load_n(&g.bActive, __ATOMIC_RELAXED)
   || t==0 || t->iGen!=g.iGen ){
    return 0;
  }
  pCode = PyFrame_GetCode(pFrame);
  Py_DECREF(pCode);                 /* the frame holds it */
  pytLine(t, (PyObject*)pCode, PyFrame_GetLineNumber(pFrame), pytNow());
  return 0;
}

/* The thread's trace function: on while the innermost frame is traced.
** A trace function of the program's own (a debugger) is left alone. */
static void pytFollow(PytThread *t){
  PyThreadState *ts = PyThreadState_Get();
  Py_tracefunc want = t->nDepth>0 && t->aFrame[t->nDepth-1].pLines
                    ? pytTraceLine : 0;
  if( ts->c_tracefunc==want ) return;
  if( ts->c_tracefunc!=0 && ts->c_tracefunc!=pytTraceLine ) return;
  ts->c_tracefunc = want;
}
#endif

/*
** The profile hook (Py_tracefunc).
*/
static int pytProfile(PyObject *pObj, PyFrameObject *pFrame, int what,
                      PyObject *pArg){
  PytThread *t;
  int64_t now;
  (void)pObj;
  if( !__atomic_load_n(&g.bActive, __ATOMIC_RELAXED) ) return 0;
  t = pytThread();
  if( t==0 ) return 0;
  now = pytNow();
  switch( what ){
    case PyTrace_CALL: {
      PyCodeObject *pCode = PyFrame_GetCode(pFrame);
      pytCallCode(t, pCode, pFrame, now);
      Py_DECREF(pCode);
      break;
    }
    case PyTrace_RETURN:
      pytReturn(t, now);
      break;
    case PyTrace_C_CALL:
      if( g.opt.bCCalls && pArg ){
        pytCall(t, pytInternC(pArg, 0), TRACE_STRING_NULL, g.catC, 0, 0, 0,
                now);
      }
      break;
    case PyTrace_C_RETURN:
    case PyTrace_C_EXCEPTION:
      if( g.opt.bCCalls && pArg ) pytReturn(t, now);
      break;
  }
#if PY_VERSION_HEX < 0x030C0000
  if( g.pLine ) pytFollow(t);
#endif
  return 0;
}

/*
** threading.setprofile()'s hook on 3.11: called as a profile function
** (frame, event, arg) at a new thread's first event, it puts the C hook
** in its place and hands it that event.
*/
static PyObject *pytThreadHook(PyObject *pSelf, PyObject *const *apArg,
                               Py_ssize_t nArg){
  const char *zEvent;
  int what = -1;
  (void)pSelf;
  if( nArg!=3 || !PyFrame_Check(apArg[0]) || !PyUnicode_Check(apArg[1]) ){
    Py_RETURN_NONE;
  }
  PyEval_SetProfile(pytProfile, NULL);
  zEvent = PyUnicode_AsUTF8(apArg[1]);
  if( zEvent==0 ){ PyErr_Clear(); Py_RETURN_NONE; }
  if( strcmp(zEvent, "call")==0 ) what = PyTrace_CALL;
  else if( strcmp(zEvent, "return")==0 ) what = PyTrace_RETURN;
  else if( strcmp(zEvent, "c_call")==0 ) what = PyTrace_C_CALL;
  else if( strcmp(zEvent, "c_return")==0 ) what = PyTrace_C_RETURN;
  else if( strcmp(zEvent, "c_exception")==0 ) what = PyTrace_C_EXCEPTION;
  if( what>=0 ){
    pytProfile(0, (PyFrameObject*)apArg[0], what,
               apArg[2]==Py_None ? 0 : apArg[2]);
  }
  Py_RETURN_NONE;
}

#if PY_VERSION_HEX >= 0x030C0000
/* 1 if the CALL, C_RETURN or C_RAISE (code, offset, callable, arg0) is a
** C call: the test of CPython's legacy profiler, so that sys.setprofile's
** c_call and c_return are what is recorded. */
static int pytIsCCall(PyObject *const *apArg, Py_ssize_t nArg){
  PyObject *pFunc = apArg[2];
  if( PyCFunction_Check(pFunc) ) return 1;
  return Py_TYPE(pFunc)==&PyMethodDescr_Type && nArg>=4
      && apArg[3]!=g.pMissing;
}

/* The calling thread's state while recording, else NULL. */
static inline PytThread *pytActive(void){
  if( !__atomic_load_n(&g.bActive, __ATOMIC_RELAXED) ) return 0;
  return pytThread();
}

/*
** sys.monitoring callbacks: (code, offset[, value]) and, for C calls,
** (code, offset, callable, arg0).
*/
static PyObject *pytMonCall(PyObject *pSelf, PyObject *const *apArg,
                            Py_ssize_t nArg){
  PytThread *t = nArg>=1 ? pytActive() : 0;
  (void)pSelf;
  if( t ) pytCallCode(t, (PyCodeObject*)apArg[0], 0, pytNow());
  Py_RETURN_NONE;
}

static PyObject *pytMonReturn(PyObject *pSelf, PyObject *const *apArg,
                              Py_ssize_t nArg){
  PytThread *t = pytActive();
  (void)pSelf; (void)apArg; (void)nArg;
  if( t ) pytReturn(t, pytNow());
  Py_RETURN_NONE;
}

/* LINE (code, line_number). */
static PyObject *pytMonLine(PyObject *pSelf, PyObject *const *apArg,
                            Py_ssize_t nArg){
  PytThread *t = nArg>=2 ? pytActive() : 0;
  (void)pSelf;
  if( t ){
    long iLine = PyLong_AsLong(apArg[1]);
    if( iLine<0 ){ PyErr_Clear(); Py_RETURN_NONE; }
    pytLine(t, apArg[0], (int)iLine, pytNow());
  }
  Py_RETURN_NONE;
}

/*
** JUMP (code, from, to), byte offsets.  sys.settrace gives a line event
** for a jump backwards within one line, where no LINE event comes (the
** next instruction is on the line of the last).  Every other jump is
** switched off where it is: its answer never changes.
*/
static PyObject *pytMonJump(PyObject *pSelf, PyObject *const *apArg,
                            Py_ssize_t nArg){
  PytThread *t = nArg>=3 ? pytActive() : 0;
  PytFrame *f;
  PytCode *c;
  long iFrom, iTo;
  (void)pSelf;
  if( t==0 || t->nDepth==0 ) Py_RETURN_NONE;
  iFrom = PyLong_AsLong(apArg[1]);
  iTo = PyLong_AsLong(apArg[2]);
  if( iFrom<0 || iTo<0 ){ PyErr_Clear(); Py_RETURN_NONE; }
  if( iTo>iFrom ) return Py_NewRef(g.pDisable);
  f = &t->aFrame[t->nDepth-1];
  c = f->pLines;
  if( c==0 || f->pCode!=apArg[0] ) Py_RETURN_NONE;
  if( c->iJumpFrom!=(int)iFrom || c->iJumpTo!=(int)iTo ){
    int a = PyCode_Addr2Line((PyCodeObject*)apArg[0], (int)iFrom);
    int b = PyCode_Addr2Line((PyCodeObject*)apArg[0], (int)iTo);
    c->iJumpFrom = (int)iFrom;
    c->iJumpTo = (int)iTo;
    c->iJumpLine = a==b && b>=0 ? b : -1;
  }
  if( c->iJumpLine<0 ) return Py_NewRef(g.pDisable);
  pytLine(t, apArg[0], c->iJumpLine, pytNow());
  Py_RETURN_NONE;
}

static PyObject *pytMonCCall(PyObject *pSelf, PyObject *const *apArg,
                             Py_ssize_t nArg){
  PytThread *t = nArg>=3 && pytIsCCall(apArg, nArg) ? pytActive() : 0;
  (void)pSelf;
  if( t ){
    pytCall(t, pytInternC(apArg[2], nArg>=4 ? apArg[3] : 0),
            TRACE_STRING_NULL, g.catC, 0, 0, 0, pytNow());
  }
  Py_RETURN_NONE;
}

static PyObject *pytMonCReturn(PyObject *pSelf, PyObject *const *apArg,
                               Py_ssize_t nArg){
  PytThread *t = nArg>=3 && pytIsCCall(apArg, nArg) ? pytActive() : 0;
  (void)pSelf;
  if( t ) pytReturn(t, pytNow());
  Py_RETURN_NONE;
}
#endif

PyMethodDef pytHookMethods[] = {
  {"_thread_hook", (PyCFunction)(void(*)(void))pytThreadHook, METH_FASTCALL,
   "threading.setprofile hook: installs the C hook in a new thread"},
#if PY_VERSION_HEX >= 0x030C0000
  {"_on_call", (PyCFunction)(void(*)(void))pytMonCall, METH_FASTCALL, 0},
  {"_on_return", (PyCFunction)(void(*)(void))pytMonReturn, METH_FASTCALL, 0},
  {"_on_c_call", (PyCFunction)(void(*)(void))pytMonCCall, METH_FASTCALL, 0},
  {"_on_c_return", (PyCFunction)(void(*)(void))pytMonCReturn, METH_FASTCALL, 0},
  {"_on_line", (PyCFunction)(void(*)(void))pytMonLine, METH_FASTCALL, 0},
  {"_on_jump", (PyCFunction)(void(*)(void))pytMonJump, METH_FASTCALL, 0},
#endif
  {0, 0, 0, 0}
};

/* getattr(module named zMod, zAttr), a new reference or NULL. */
static PyObject *pytImportAttr(const char *zMod, const char *zAttr){
  PyObject *pMod = PyImport_ImportModule(zMod);
  PyObject *pAttr;
  if( pMod==0 ) return 0;
  pAttr = PyObject_GetAttrString(pMod, zAttr);
  Py_DECREF(pMod);
  return pAttr;
}

/* threading.setprofile(x): x is the thread hook or None. */
static int pytSetThreadingHook(PyObject *pHook){
  PyObject *pSet = pytImportAttr("threading", "setprofile");
  PyObject *pRes;
  if( pSet==0 ) return 1;
  pRes = PyObject_CallOneArg(pSet, pHook);
  Py_DECREF(pSet);
  if( pRes==0 ) return 1;
  Py_DECREF(pRes);
  return 0;
}

/* The profile hook in every thread running now, and through threading
** in the threads started later. */
static int pytInstallProfile(PyObject *pModule){
  PyObject *pHook;
  int rc;
  /* threading first: importing it is not part of the program's calls. */
  pHook = PyObject_GetAttrString(pModule, "_thread_hook");
  if( pHook==0 ) return 1;
  rc = pytSetThreadingHook(pHook);
  Py_DECREF(pHook);
  if( rc ) return 1;
#if PY_VERSION_HEX >= 0x030C0000
  PyEval_SetProfileAllThreads(pytProfile, NULL);
#else
  PyThreadState *ts = PyInterpreterState_ThreadHead(
                        PyThreadState_Get()->interp);
  for(; ts; ts=PyThreadState_Next(ts)){
    if( _PyEval_SetProfile(ts, pytProfile, NULL)<0 ) return 1;
  }
#endif
  g.eMode = PYT_MODE_PROFILE;
  return 0;
}

#if PY_VERSION_HEX >= 0x030C0000
/* sys.monitoring.NAME(args...) -> new reference or NULL. */
static PyObject *pytMonitoring(const char *zName, const char *zFormat, ...){
  PyObject *pMon = PySys_GetObject("monitoring");   /* borrowed */
  PyObject *pFunc, *pArgs, *pRes;
  va_list ap;
  if( pMon==0 ){
    PyErr_SetString(PyExc_RuntimeError, "no sys.monitoring");
    return 0;
  }
  pFunc = PyObject_GetAttrString(pMon, zName);
  if( pFunc==0 ) return 0;
  va_start(ap, zFormat);
  pArgs = Py_VaBuildValue(zFormat, ap);
  va_end(ap);
  if( pArgs==0 ){ Py_DECREF(pFunc); return 0; }
  pRes = PyObject_CallObject(pFunc, pArgs);
  Py_DECREF(pArgs);
  Py_DECREF(pFunc);
  return pRes;
}

/* The value of sys.monitoring.events.NAME, or -1. */
static long pytEvent(const char *zName){
  PyObject *pMon = PySys_GetObject("monitoring");
  PyObject *pEvents, *pVal;
  long v = -1;
  if( pMon==0 ) return -1;
  pEvents = PyObject_GetAttrString(pMon, "events");
  if( pEvents==0 ) return -1;
  pVal = PyObject_GetAttrString(pEvents, zName);
  Py_DECREF(pEvents);
  if( pVal==0 ) return -1;
  v = PyLong_AsLong(pVal);
  Py_DECREF(pVal);
  return v;
}

/* The events and the callbacks they go to (eWhen: PYT_CB_*). */
#define PYT_CB_ALWAYS 0
#define PYT_CB_C      1     /* with --c-calls, for every code */
#define PYT_CB_LINES  2     /* with --lines, for the traced codes only */
static const struct { const char *zEvent; const char *zCallback; int eWhen; } aCb[] = {
  { "PY_START", "_on_call", PYT_CB_ALWAYS },
  { "PY_RESUME", "_on_call", PYT_CB_ALWAYS },
  { "PY_THROW", "_on_call", PYT_CB_ALWAYS },
  { "PY_RETURN", "_on_return", PYT_CB_ALWAYS },
  { "PY_YIELD", "_on_return", PYT_CB_ALWAYS },
  { "PY_UNWIND", "_on_return", PYT_CB_ALWAYS },
  { "CALL", "_on_c_call", PYT_CB_C },
  { "C_RETURN", "_on_c_return", PYT_CB_C },
  { "C_RAISE", "_on_c_return", PYT_CB_C },
  { "LINE", "_on_line", PYT_CB_LINES },
  { "JUMP", "_on_jump", PYT_CB_LINES },
};

/*
** Turns a traced code object's LINE and JUMP events on, and keeps it in
** g.pLineCodes for stop() to turn them off: left on, a code keeps its
** instrumented instructions, which cost a program ~50 ns a line after
** the tracer has stopped.  On failure its lines are not traced.
*/
static void pytLocalEvents(PyCodeObject *pCode, PytCode *c){
  long evLine = pytEvent("LINE"), evJump = pytEvent("JUMP");
  PyObject *pRes;
  c->iJumpFrom = c->iJumpTo = -1;
  if( g.eMode!=PYT_MODE_MONITORING || evLine<0 || evJump<0 ){
    PyErr_Clear();
    c->bLines = 0;
    return;
  }
  if( g.pLineCodes==0 && (g.pLineCodes = PyList_New(0))==0 ){
    PyErr_Clear();
    c->bLines = 0;
    return;
  }
  pRes = pytMonitoring("set_local_events", "(iOl)", g.iTool, (PyObject*)pCode,
                       evLine | evJump);
  if( pRes==0 || PyList_Append(g.pLineCodes, (PyObject*)pCode)<0 ){
    Py_XDECREF(pRes);
    PyErr_Clear();
    c->bLines = 0;
    return;
  }
  Py_DECREF(pRes);
}

/* Registers the callbacks under a free tool id.  Returns 0, or 1 (no
** tool id free: the caller falls back to the profile hook). */
static int pytInstallMonitoring(PyObject *pModule){
  static const int aTry[] = { 4, 3, 5, 1, 0, 2 };
  long mask = 0;
  size_t i;
  PyObject *pRes;
  g.iTool = -1;
  if( g.pMissing==0 || g.pDisable==0 ){
    PyObject *pMon = PySys_GetObject("monitoring");
    g.pMissing = pMon ? PyObject_GetAttrString(pMon, "MISSING") : 0;
    g.pDisable = pMon ? PyObject_GetAttrString(pMon, "DISABLE") : 0;
    if( g.pMissing==0 || g.pDisable==0 ) PyErr_Clear();
    if( g.pDisable==0 ) return 1;
  }
  for(i=0; i<sizeof(aTry)/sizeof(aTry[0]); i++){
    pRes = pytMonitoring("use_tool_id", "(is)", aTry[i], "tracestore");
    if( pRes ){ Py_DECREF(pRes); g.iTool = aTry[i]; break; }
    PyErr_Clear();
  }
  if( g.iTool<0 ) return 1;
  for(i=0; i<sizeof(aCb)/sizeof(aCb[0]); i++){
    PyObject *pCb;
    long ev;
    if( aCb[i].eWhen==PYT_CB_C && !g.opt.bCCalls ) continue;
    if( aCb[i].eWhen==PYT_CB_LINES && g.pLine==0 ) continue;
    ev = pytEvent(aCb[i].zEvent);
    pCb = PyObject_GetAttrString(pModule, aCb[i].zCallback);
    if( ev<0 || pCb==0 ){ Py_XDECREF(pCb); goto fail; }
    pRes = pytMonitoring("register_callback", "(ilO)", g.iTool, ev, pCb);
    Py_DECREF(pCb);
    if( pRes==0 ) goto fail;
    Py_DECREF(pRes);
    if( aCb[i].eWhen!=PYT_CB_LINES ) mask |= ev;
  }
  pRes = pytMonitoring("set_events", "(il)", g.iTool, mask);
  if( pRes==0 ) goto fail;
  Py_DECREF(pRes);
  g.eMode = PYT_MODE_MONITORING;
  return 0;
fail:
  PyErr_Clear();
  pRes = pytMonitoring("free_tool_id", "(i)", g.iTool);
  Py_XDECREF(pRes);
  PyErr_Clear();
  g.iTool = -1;
  return 1;
}
#endif

/* Installs the hooks.  Returns 0, or 1 with a Python exception set. */
int pytHooksInstall(PyObject *pModule){
#if PY_VERSION_HEX >= 0x030C0000
  if( pytInstallMonitoring(pModule)==0 ) return 0;
  if( g.pLine ){
    PyErr_SetString(PyExc_RuntimeError, "tracestore.start: lines= needs a "
                    "free sys.monitoring tool id, and none is");
    return 1;
  }
#endif
  return pytInstallProfile(pModule);
}

/* Removes the hooks (from every thread). */
void pytHooksRemove(void){
  if( g.eMode==PYT_MODE_PROFILE ){
#if PY_VERSION_HEX >= 0x030C0000
    PyEval_SetProfileAllThreads(NULL, NULL);
#else
    PyThreadState *ts = PyInterpreterState_ThreadHead(
                          PyThreadState_Get()->interp);
    for(; ts; ts=PyThreadState_Next(ts)){
      if( ts->c_profilefunc==pytProfile ) _PyEval_SetProfile(ts, NULL, NULL);
      if( ts->c_tracefunc==pytTraceLine ) _PyEval_SetTrace(ts, NULL, NULL);
    }
#endif
    if( pytSetThreadingHook(Py_None) ) PyErr_Clear();
  }
#if PY_VERSION_HEX >= 0x030C0000
  if( g.eMode==PYT_MODE_MONITORING ){
    PyObject *pRes = pytMonitoring("set_events", "(ii)", g.iTool, 0);
    size_t i;
    Py_ssize_t k;
    Py_XDECREF(pRes);
    for(k=0; g.pLineCodes && k<PyList_GET_SIZE(g.pLineCodes); k++){
      pRes = pytMonitoring("set_local_events", "(iOi)", g.iTool,
                           PyList_GET_ITEM(g.pLineCodes, k), 0);
      Py_XDECREF(pRes);
    }
    Py_CLEAR(g.pLineCodes);
    /* free_tool_id leaves the callbacks registered (3.12): unregister
    ** them, so that the next user of the id does not call them. */
    for(i=0; i<sizeof(aCb)/sizeof(aCb[0]); i++){
      long ev = pytEvent(aCb[i].zEvent);
      if( ev<0 ) continue;
      pRes = pytMonitoring("register_callback", "(ilO)", g.iTool, ev, Py_None);
      Py_XDECREF(pRes);
    }
    pRes = pytMonitoring("free_tool_id", "(i)", g.iTool);
    Py_XDECREF(pRes);
    PyErr_Clear();
    g.iTool = -1;
  }
#endif
  g.eMode = PYT_MODE_NONE;
}
