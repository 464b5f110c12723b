/*
** ScriptModule.c: the `tracestore_script` CPython module behind
** `tracestore script` (CmdScript.c): a session's events handed to a perf
** Python script's handlers, in time order, with perf's calling convention
** (seeds/003; docs/script.md says what is passed and what is not).
**
** Zone: hosted (Outputs/Script/, an output): libc and CPython.  Reads the
** session through the store API (TraceStore/TraceStore.h) and decodes each
** event's raw bytes (ftrace_event.raw, sched_switch.raw) by its
** event_format row with the ftrace event model
** (Readers/Decoders/Ftrace/TraceEvent.h); asks Host/HostPortPosix.c
** whether a writer runs.  Called by the bootstrap CmdScript.c runs in the
** interpreter; calls back into the script's namespace.
**
** How it works: run(SESSION, NAMESPACE[, FOLLOW]) reads the event_format
** rows (one TRACE_EVENT_TABLE per source), finds each event's handler
** (SYSTEM__NAME, else trace_unhandled) once and defines its print fmt's
** flag and symbol tables through Core's define_* (as perf does); then it
** merges five stores by ts: ftrace_event and sched_switch (tracepoint
** events with their record's bytes), page_fault (events whose record is
** rebuilt from the row), kvm_exit (an exit and its entry, each with its
** record's bytes) and, for process_event, sample (with
** its call chain from stack and frame).  The rows of one input keep their
** store order (the producer's); several inputs' are ordered through an
** index of their rows.  A row whose event has no handler, when the script
** has no trace_unhandled, is passed over by its name id without reading
** its bytes.  With FOLLOW, it then reopens the session every 20 ms for the
** rows committed since, until the writer is gone and nothing new came.
** For a handler the arguments are built as perf builds them:
**
**   event_name, context, common_cpu, common_secs, common_nsecs,
**   common_pid, common_comm, common_callchain, FIELDS... [, perf_sample_dict]
**
** FIELDS are the event's own fields in format order: numbers read as
** unsigned of their size (perf does not sign-extend a signed field
** narrower than 8 bytes); arrays (fixed or __data_loc) as bytearray, but
** a char array as str when it is printable up to its NUL (once one is
** not, that field is bytearray from then on, as in perf).
** perf_sample_dict is passed when the handler takes one more argument.
** trace_unhandled gets (event_name, context, dict of the common values and
** fields[, perf_sample_dict]).  context is one object for the whole run,
** holding the current event, read by perf_trace_context's common_pc,
** common_flags and common_lock_depth.  Also events() (the skeleton's
** handlers) and syscall_name() (Util.py's fallback).
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "Host/Host.h"
#include "Readers/Decoders/Ftrace/TraceEvent.h"
#include "TraceStore/TraceSchema.h"
#include "tracestore_syscalls.h"

static RTL sRtl;
static int sRtlReady;

/* The inputs of one session a script can tell apart (event_format's
** source_id). */
#define SCRIPT_MAX_SOURCES 4096

/* One event of the session: its format, handler and names. */
typedef struct ScriptEvent ScriptEvent;
struct ScriptEvent {
  PTRACE_EVENT_FORMAT pFormat;
  ULONG nameId;                 /* the name's string id in the session */
  PyObject *pHandler;           /* SYSTEM__NAME, or NULL */
  PyObject *pHandlerName;       /* "SYSTEM__NAME" */
  PyObject *pEvName;            /* "SYSTEM:NAME" (perf_sample_dict) */
  int nArg;                     /* the handler's co_argcount */
  int nField;                   /* fields passed (the non-common ones) */
  PCTRACE_EVENT_FIELD *aField;
  PyObject **aFieldName;
  unsigned char *aBytes;        /* per field: a string seen unprintable */
  PCTRACE_EVENT_FIELD pPid, pPreempt, pFlags, pLockDepth;
};

/* The context object: the event being handled. */
typedef struct {
  PyObject_HEAD
  const BYTE *pRaw;
  ULONG nRaw;
  ScriptEvent *pEvent;
} ScriptContext;

static PyTypeObject sContextType = {
  PyVarObject_HEAD_INIT(NULL, 0)
  .tp_name = "tracestore_script.context",
  .tp_basicsize = sizeof(ScriptContext),
  .tp_flags = Py_TPFLAGS_DEFAULT,
  .tp_doc = "the event being handled (perf_trace_context reads it)",
};

/* A thread's comm from a time on (thread rows). */
typedef struct { ULONG tid; ULONG commId; LONGLONG ts; } ScriptThreadComm;

/* A tracepoint event, from the store that holds it (ftrace_event, or a
** dedicated store an ftrace map fills: sched_switch, page_fault,
** kvm_exit). */
typedef struct {
  LONGLONG ts;
  ULONG nameId;                 /* TRACE_STRING_NULL: found by its bytes */
  ULONG tid, pid, cpu;          /* TRACE_NULL_ULONG: not said */
  ULONG commId;
  ULONG rawId;                  /* the record's bytes, as a string id */
  const BYTE *pRaw;             /* or the bytes themselves (rawId NULL) */
  ULONG nRaw;
  PTRACE_STORE pStore;          /* the row's store and record, for errors */
  const BYTE *pRecord;
} ScriptTracepoint;

/* A run: the session and what was built for it. */
typedef struct {
  PTRACE_SESSION pSession;
  PyObject *pNamespace;
  PyObject *pUnhandled;         /* trace_unhandled, or NULL */
  int nUnhandledArg;
  PTRACE_EVENT_TABLE apTable[SCRIPT_MAX_SOURCES];  /* one per source */
  ULONG nTable;
  ULONGLONG nFormatRows;        /* event_format rows loaded */
  PyObject *pAttrs;             /* ev_name -> perf_event_attr bytes */
  ULONGLONG nMetadataRows;      /* metadata rows looked at for them */
  ScriptEvent *aEvent;
  ULONG nEvent;
  ScriptEvent **aByName;        /* by name id % nByName, open addressing */
  ULONG nByName;
  PyObject **aComm;             /* str by comm id, cached */
  ULONG nComm;
  ScriptContext *pContext;
  unsigned long long nHandled;
  PyObject *pProcessEvent;      /* process_event, or NULL */
  PTRACE_STORE pStack, pFrame;  /* a sample's call chain, if kept */
  PyObject **aFrameSym;         /* str by frame id, cached (None: none) */
  PyObject **aFrameDso;
  ULONGLONG nFrame;
  const char *zPath;
  ULONGLONG nEventDone, nSwitchDone, nFaultDone, nKvmDone, nSampleDone;
                                /* rows handed on */
  ScriptTracepoint *aEntry;     /* kvm entries waiting, a heap by ts */
  ULONG nEntry, nEntryAlloc;
  ScriptThreadComm *aThread;    /* by (tid, ts): a thread's comms */
  ULONGLONG nThread;
  PyObject *pSwapper;
} ScriptRun;

static int scriptError(PyObject *pType, const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  PyErr_FormatV(pType, zFormat, ap);
  va_end(ap);
  return 1;
}

static int scriptText(ScriptRun *p, ULONG id, PCSZ *pz, ULONG *pn){
  if( id==TRACE_STRING_NULL ){ *pz = 0; *pn = 0; return 0; }
  if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, id, pz, pn)) ){
    return scriptError(PyExc_OSError, "%s: string id %u is not in the "
                       "session's string store (corrupt)", p->pSession->Path,
                       (unsigned)id);
  }
  return 0;
}

/* The handler's co_argcount, as perf reads it (0 if it has none). */
static int scriptArgCount(PyObject *pHandler){
  PyObject *pCode = PyObject_GetAttrString(pHandler, "__code__");
  int n = 0;
  if( pCode ){
    PyObject *pCount = PyObject_GetAttrString(pCode, "co_argcount");
    if( pCount ){
      n = (int)PyLong_AsLong(pCount);
      Py_DECREF(pCount);
    }
    Py_DECREF(pCode);
  }
  PyErr_Clear();
  return n;
}

static PyObject *scriptGetHandler(ScriptRun *p, const char *zName){
  PyObject *pHandler = PyDict_GetItemString(p->pNamespace, zName);
  if( pHandler && !PyCallable_Check(pHandler) ) return 0;
  return pHandler;
}

/* Calls define_flag_field, define_flag_value, define_symbolic_field or
** define_symbolic_value of the script's namespace (Core.py's), as perf
** does for each event's print fmt tables. */
typedef struct {
  ScriptRun *p;
  PyObject *pEvent;             /* "SYSTEM__NAME" */
  int bFailed;
} ScriptDefine;

static VOID scriptDefine(PVOID pContext, TRACE_PRINT_DEFINE eKind,
                         PCSZ zField, PCSZ zText, ULONG nText,
                         LONGLONG iValue){
  ScriptDefine *d = pContext;
  static const char *const azName[] = { 0, "define_flag_field",
    "define_flag_value", "define_symbolic_field", "define_symbolic_value" };
  PyObject *pFn, *t = 0, *r;
  if( d->bFailed ) return;
  pFn = scriptGetHandler(d->p, azName[eKind]);
  if( pFn==0 ) return;
  switch( eKind ){
    case TracePrintFlagField:
      t = Py_BuildValue("(Oss#)", d->pEvent, zField, zText ? zText : "",
                        (Py_ssize_t)nText);
      break;
    case TracePrintSymbolicField:
      t = Py_BuildValue("(Os)", d->pEvent, zField);
      break;
    default:
      t = Py_BuildValue("(OsLs#)", d->pEvent, zField, (long long)iValue,
                        zText, (Py_ssize_t)nText);
      break;
  }
  r = t ? PyObject_Call(pFn, t, 0) : 0;
  Py_XDECREF(t);
  if( r==0 ){ d->bFailed = 1; return; }
  Py_DECREF(r);
}

/*
** The event_format rows not loaded yet: a table per source, an event per
** row whose format parses, each with its handler; then the events by name
** id again (aEvent may have moved).
*/
static int scriptLoadFormats(ScriptRun *p){
  PTRACE_STORE s = TraceSessionFindStore(p->pSession, "event_format");
  ULONGLONG i, n;
  if( s==0 || s->Snapshot.RecordCount<=p->nFormatRows ) return 0;
  if( !TraceStoreSchemaMatches(s->Header, &TraceEventFormatSchema) ){
    return scriptError(PyExc_OSError, "%s: written by another version of "
                       "tracestore", s->Path);
  }
  n = s->Snapshot.RecordCount;
  {
    ScriptEvent *a = realloc(p->aEvent, (size_t)n*sizeof(ScriptEvent));
    if( a==0 ){ PyErr_NoMemory(); return 1; }
    p->aEvent = a;
  }
  for(i=p->nFormatRows; i<n; i++){
    const EVENT_FORMAT_RECORD *r =
        (const EVENT_FORMAT_RECORD*)(s->Base + i*s->RecordSize);
    ScriptEvent *e = &p->aEvent[p->nEvent];
    PTRACE_EVENT_TABLE pTable;
    PCSZ zSystem, zName, zText, zReason = 0;
    ULONG nSystem, nName, nText, k;
    char zHandler[256];
    p->nFormatRows = i + 1;
    if( r->SourceId>=SCRIPT_MAX_SOURCES ){
      return scriptError(PyExc_OSError, "%s: row %llu names source %llu "
                         "(corrupt)", s->Path, i, r->SourceId);
    }
    while( p->nTable<=r->SourceId ){
      PTRACE_EVENT_TABLE t = calloc(1, sizeof(TRACE_EVENT_TABLE));
      if( t==0 || !RTL_SUCCESS(TraceEventTableInitialize(&sRtl, 8, t)) ){
        free(t);
        PyErr_NoMemory();
        return 1;
      }
      p->apTable[p->nTable++] = t;
    }
    pTable = p->apTable[r->SourceId];
    if( scriptText(p, r->SystemId, &zSystem, &nSystem)
     || scriptText(p, r->NameId, &zName, &nName)
     || scriptText(p, r->FormatId, &zText, &nText) ) return 1;
    if( zSystem==0 || zName==0 || zText==0 ) continue;
    if( !RTL_SUCCESS(TraceEventTableAddFormat(pTable, zSystem, nSystem,
                                              zText, nText, &zReason)) ){
      /* A format the reader parsed parses again; if not, its events are
      ** passed over (trace_unhandled does not see them). */
      continue;
    }
    memset(e, 0, sizeof(*e));
    e->pFormat = TraceEventLookup(pTable, r->Id);
    if( e->pFormat==0 ) continue;
    e->nameId = r->NameId;
    snprintf(zHandler, sizeof(zHandler), "%s__%s", zSystem, zName);
    e->pHandlerName = PyUnicode_FromString(zHandler);
    snprintf(zHandler, sizeof(zHandler), "%s:%s", zSystem, zName);
    e->pEvName = PyUnicode_FromString(zHandler);
    if( e->pHandlerName==0 || e->pEvName==0 ) return 1;
    e->pHandler = scriptGetHandler(p, PyUnicode_AsUTF8(e->pHandlerName));
    if( e->pHandler ){
      Py_INCREF(e->pHandler);
      e->nArg = scriptArgCount(e->pHandler);
    }
    p->nEvent++;
    e->aField = calloc(e->pFormat->NumberOfFields + 1, sizeof(*e->aField));
    e->aFieldName = calloc(e->pFormat->NumberOfFields + 1, sizeof(PyObject*));
    e->aBytes = calloc(e->pFormat->NumberOfFields + 1, 1);
    if( e->aField==0 || e->aFieldName==0 || e->aBytes==0 ){
      PyErr_NoMemory();
      return 1;
    }
    for(k=0; k<e->pFormat->NumberOfFields; k++){
      PCTRACE_EVENT_FIELD f = &e->pFormat->Fields[k];
      if( f->Flags & TRACE_FIELD_COMMON ) continue;
      e->aFieldName[e->nField] = PyUnicode_InternFromString(f->Name);
      if( e->aFieldName[e->nField]==0 ) return 1;
      e->aField[e->nField++] = f;
    }
    {
      ScriptDefine d;
      d.p = p;
      d.pEvent = e->pHandlerName;
      d.bFailed = 0;
      TraceEventPrintTables(pTable, e->pFormat, scriptDefine, &d);
      if( d.bFailed ) return 1;
    }
    e->pPid = TraceEventFindField(e->pFormat, "common_pid");
    e->pPreempt = TraceEventFindField(e->pFormat, "common_preempt_count");
    e->pFlags = TraceEventFindField(e->pFormat, "common_flags");
    e->pLockDepth = TraceEventFindField(e->pFormat, "common_lock_depth");
  }

  /* Events by name id: the slot of the first event of that name; the
  ** others of the same name (other sources) follow in aEvent. */
  free(p->aByName);
  p->nByName = 64;
  while( p->nByName < 2*p->nEvent ) p->nByName *= 2;
  p->aByName = calloc(p->nByName, sizeof(ScriptEvent*));
  if( p->aByName==0 ){ PyErr_NoMemory(); return 1; }
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    ULONG h = (e->nameId * 2654435761u) & (p->nByName - 1);
    while( p->aByName[h] && p->aByName[h]->nameId!=e->nameId ){
      h = (h + 1) & (p->nByName - 1);
    }
    if( p->aByName[h]==0 ) p->aByName[h] = e;
  }
  return 0;
}

/* param_dict["attr"]: each perf.data event's perf_event_attr, which the
** import keeps in hex as metadata perf.attr.NAME (the first of a name). */
static int scriptLoadAttrs(ScriptRun *p){
  PTRACE_STORE s = TraceSessionFindStore(p->pSession, "metadata");
  ULONGLONG i;
  if( s==0 || s->Snapshot.RecordCount<=p->nMetadataRows ) return 0;
  if( !TraceStoreSchemaMatches(s->Header, &TraceMetadataSchema) ){
    return scriptError(PyExc_OSError, "%s: written by another version of "
                       "tracestore", s->Path);
  }
  if( p->pAttrs==0 && (p->pAttrs = PyDict_New())==0 ) return 1;
  for(i=p->nMetadataRows; i<s->Snapshot.RecordCount; i++){
    const METADATA_RECORD *r =
        (const METADATA_RECORD*)(s->Base + i*s->RecordSize);
    static const char zPrefix[] = "perf.attr.";
    const ULONG nPrefix = sizeof(zPrefix) - 1;
    PCSZ zName, zHex;
    ULONG nName, nHex, k;
    PyObject *pKey, *pBytes;
    int rc;
    p->nMetadataRows = i + 1;
    if( scriptText(p, r->NameId, &zName, &nName)
     || scriptText(p, r->StrValueId, &zHex, &nHex) ) return 1;
    if( zName==0 || zHex==0 || nName<=nPrefix || nHex%2
     || memcmp(zName, zPrefix, nPrefix)!=0 ) continue;
    pKey = PyUnicode_DecodeUTF8(zName + nPrefix, nName - nPrefix, "replace");
    pBytes = PyBytes_FromStringAndSize(0, nHex/2);
    if( pKey==0 || pBytes==0 ){
      Py_XDECREF(pKey);
      Py_XDECREF(pBytes);
      return 1;
    }
    for(k=0; k<nHex/2; k++){
      static const char zDigits[] = "0123456789abcdef";
      const char *hi = memchr(zDigits, zHex[2*k], 16);
      const char *lo = memchr(zDigits, zHex[2*k+1], 16);
      PyBytes_AS_STRING(pBytes)[k] = (char)(((hi ? hi-zDigits : 0) << 4)
                                            | (lo ? lo-zDigits : 0));
    }
    rc = PyDict_SetDefault(p->pAttrs, pKey, pBytes)==0;
    Py_DECREF(pKey);
    Py_DECREF(pBytes);
    if( rc ) return 1;
  }
  return 0;
}

/* Sets d["attr"], if the session has the event's attr. */
static int scriptSetAttr(ScriptRun *p, PyObject *d, PyObject *pEvName){
  PyObject *v = p->pAttrs ? PyDict_GetItem(p->pAttrs, pEvName) : 0;
  return v && PyDict_SetItemString(d, "attr", v);
}

/* The event of a row: its name, then the id in its bytes. */
static ScriptEvent *scriptFindEvent(ScriptRun *p, ULONG nameId,
                                    const BYTE *pRaw, ULONG nRaw){
  ULONG h = (nameId * 2654435761u) & (p->nByName - 1);
  ScriptEvent *e;
  ULONG i, id;
  if( p->nEvent==0 ) return 0;
  while( (e = p->aByName[h])!=0 && e->nameId!=nameId ){
    h = (h + 1) & (p->nByName - 1);
  }
  if( e==0 ) return 0;
  if( p->nTable==1 ) return e;
  /* Several sources: the one whose id the record's common_type is. */
  if( nRaw<2 ) return e;
  id = (ULONG)TraceEventReadNumber(pRaw, 2);
  for(i=(ULONG)(e - p->aEvent); i<p->nEvent; i++){
    if( p->aEvent[i].nameId==nameId && p->aEvent[i].pFormat->Id==id ){
      return &p->aEvent[i];
    }
  }
  return e;
}

/* The event whose common_type a record's bytes hold (an event of a
** dedicated store, which has no name column), of the first source that
** has it. */
static ScriptEvent *scriptFindEventById(ScriptRun *p, const BYTE *pRaw,
                                        ULONG nRaw){
  ULONG i, id;
  if( nRaw<2 ) return 0;
  id = (ULONG)TraceEventReadNumber(pRaw, 2);
  for(i=0; i<p->nEvent; i++){
    if( p->aEvent[i].pFormat->Id==id ) return &p->aEvent[i];
  }
  return 0;
}

/* The str of a comm id (cached); as perf names them, "swapper" for the
** idle task (trace-cmd's "<idle>") and ":TID" for a thread it knows no
** comm of. */
static PyObject *scriptComm(ScriptRun *p, ULONG id, ULONG tid){
  PCSZ z;
  ULONG n;
  PyObject *o;
  if( tid==0 ){
    if( p->pSwapper==0 ) p->pSwapper = PyUnicode_InternFromString("swapper");
    Py_XINCREF(p->pSwapper);
    return p->pSwapper;
  }
  if( id==TRACE_STRING_NULL ) return PyUnicode_FromFormat(":%d", (int)tid);
  if( id<p->nComm && p->aComm[id] ){
    Py_INCREF(p->aComm[id]);
    return p->aComm[id];
  }
  if( scriptText(p, id, &z, &n) ) return 0;
  o = PyUnicode_DecodeUTF8(z, n, "replace");
  if( o==0 ) return 0;
  if( id<(1u<<24) ){
    if( id>=p->nComm ){
      ULONG nNew = p->nComm ? p->nComm : 256;
      PyObject **a;
      while( nNew<=id ) nNew *= 2;
      a = realloc(p->aComm, nNew*sizeof(PyObject*));
      if( a==0 ){ Py_DECREF(o); PyErr_NoMemory(); return 0; }
      memset(a + p->nComm, 0, (nNew - p->nComm)*sizeof(PyObject*));
      p->aComm = a;
      p->nComm = nNew;
    }
    Py_INCREF(o);
    p->aComm[id] = o;
  }
  return o;
}

/* perf's test for a char array it passes as str: NUL-terminated within
** its length, and printable (or blank) up to the first NUL. */
static int scriptPrintable(const BYTE *z, ULONG n){
  ULONG i;
  if( n==0 || z[n-1]!=0 ) return 0;
  for(i=0; i<n-1 && z[i]; i++){
    if( !((z[i]>=0x20 && z[i]<0x7f) || (z[i]>=9 && z[i]<=13)) ) return 0;
  }
  return 1;
}

static PyObject *scriptNumber(PCTRACE_EVENT_FIELD f, const BYTE *z,
                              ULONG nSize){
  ULONGLONG v = TraceEventReadNumber(z, nSize);
  if( (f->Flags & TRACE_FIELD_SIGNED) ) return PyLong_FromLongLong((LONGLONG)v);
  return PyLong_FromUnsignedLongLong(v);
}

/* A field's value as perf passes it. */
static PyObject *scriptField(ScriptEvent *e, int k, const BYTE *pRaw,
                             ULONG nRaw){
  PCTRACE_EVENT_FIELD f = e->aField[k];
  ULONG off = f->Offset, len = f->Size;
  if( f->Flags & (TRACE_FIELD_ARRAY|TRACE_FIELD_DYNAMIC) ){
    if( f->Flags & TRACE_FIELD_DYNAMIC ){
      ULONG v;
      if( off + 4 > nRaw ) Py_RETURN_NONE;
      v = (ULONG)TraceEventReadNumber(pRaw + off, 4);
      off = v & 0xffff;
      len = v >> 16;
      if( f->Flags & TRACE_FIELD_RELATIVE ) off += f->Offset + f->Size;
    }else if( len==0 ){
      len = off < nRaw ? nRaw - off : 0;
    }
    if( off > nRaw || len > nRaw - off ) Py_RETURN_NONE;
    if( (f->Flags & TRACE_FIELD_STRING) && !e->aBytes[k]
     && scriptPrintable(pRaw + off, len) ){
      return PyUnicode_DecodeLatin1((const char*)pRaw + off,
                                    (Py_ssize_t)strlen((const char*)pRaw + off),
                                    0);
    }
    if( f->Flags & TRACE_FIELD_STRING ) e->aBytes[k] = 1;
    return PyByteArray_FromStringAndSize((const char*)pRaw + off,
                                         (Py_ssize_t)len);
  }
  if( off + len > nRaw || (len!=1 && len!=2 && len!=4 && len!=8) ){
    Py_RETURN_NONE;
  }
  return scriptNumber(f, pRaw + off, len);
}


/* perf_sample_dict, from what the session keeps of a tracepoint sample. */
static PyObject *scriptSampleDict(ScriptRun *p, ScriptEvent *e,
                                  const ScriptTracepoint *r,
                                  const BYTE *pRaw, ULONG nRaw,
                                  PyObject *pComm){
  PyObject *d = PyDict_New(), *s = PyDict_New(), *o;
  if( d==0 || s==0 || scriptSetAttr(p, d, e->pEvName) ) goto fail;
#define SET(D, K, V) do{ o = (V); if( o==0 || PyDict_SetItemString(D, K, o) ){ \
                           Py_XDECREF(o); goto fail; } Py_DECREF(o); }while(0)
  SET(d, "ev_name", (Py_INCREF(e->pEvName), e->pEvName));
  SET(s, "pid", PyLong_FromUnsignedLong(r->pid));
  SET(s, "tid", PyLong_FromUnsignedLong(r->tid));
  SET(s, "cpu", PyLong_FromUnsignedLong(r->cpu));
  SET(s, "time", PyLong_FromLongLong(r->ts));
  SET(d, "sample", (Py_INCREF(s), s));
  SET(d, "raw_buf", PyBytes_FromStringAndSize((const char*)pRaw,
                                              (Py_ssize_t)nRaw));
  SET(d, "comm", (Py_INCREF(pComm), pComm));
  SET(d, "callchain", PyList_New(0));
#undef SET
  Py_DECREF(s);
  return d;
fail:
  Py_XDECREF(d);
  Py_XDECREF(s);
  return 0;
}

/* Calls the handler of one ftrace_event row (or trace_unhandled). */
static int scriptTracepoint(ScriptRun *p, const ScriptTracepoint *r){
  PCSZ zRaw;
  ULONG nRaw;
  ScriptEvent *e = 0;
  PyObject *pHandler, *t = 0, *pComm = 0, *pDict = 0, *o, *pRet;
  int n = 0, nMax, k, bUnhandled;
  long long ts = r->ts;
  ULONG pid = 0;

  if( r->nameId!=TRACE_STRING_NULL ){
    e = scriptFindEvent(p, r->nameId, 0, 0);
    if( e==0 || (e->pHandler==0 && p->pUnhandled==0) ) return 0;
  }
  if( r->pRaw ){
    zRaw = (PCSZ)r->pRaw;
    nRaw = r->nRaw;
  }else if( r->rawId==TRACE_STRING_NULL ){
    return 0;                   /* text imported without formats */
  }else if( !RTL_SUCCESS(TraceStringLookup(&p->pSession->Strings, r->rawId,
                                           &zRaw, &nRaw)) ){
    ULONGLONG off = (ULONGLONG)(r->pRecord - r->pStore->Base);
    return scriptError(PyExc_OSError, "%s: byte offset %llu: record %llu's "
                       "raw bytes are string %u, which the session's string "
                       "store lacks (corrupt)", r->pStore->Path,
                       TRACE_STORE_HEADER_SIZE + off,
                       off / r->pStore->RecordSize, (unsigned)r->rawId);
  }
  if( r->nameId==TRACE_STRING_NULL ){
    e = scriptFindEventById(p, (const BYTE*)zRaw, nRaw);
  }else if( p->nTable>1 ){
    e = scriptFindEvent(p, r->nameId, (const BYTE*)zRaw, nRaw);
  }
  if( e==0 ) return 0;
  pHandler = e->pHandler;
  bUnhandled = pHandler==0;
  if( bUnhandled ){
    pHandler = p->pUnhandled;
    if( pHandler==0 ) return 0;
  }
  if( e->pPid && e->pPid->Offset + e->pPid->Size <= nRaw ){
    pid = (ULONG)TraceEventReadNumber((const BYTE*)zRaw + e->pPid->Offset,
                                      e->pPid->Size);
  }

  p->pContext->pRaw = (const BYTE*)zRaw;
  p->pContext->nRaw = nRaw;
  p->pContext->pEvent = e;
  pComm = scriptComm(p, r->commId, r->tid);
  if( pComm==0 ) return 1;
  nMax = 8 + e->nField + 1;
  t = PyTuple_New(nMax);
  if( t==0 ) goto fail;
  Py_INCREF(e->pHandlerName);
  PyTuple_SET_ITEM(t, n++, e->pHandlerName);
  Py_INCREF(p->pContext);
  PyTuple_SET_ITEM(t, n++, (PyObject*)p->pContext);
  if( bUnhandled ){
    pDict = PyDict_New();
    if( pDict==0 ) goto fail;
#define DSET(K, V) do{ o = (V); if( o==0 || PyDict_SetItemString(pDict, K, o) ){ \
                         Py_XDECREF(o); goto fail; } Py_DECREF(o); }while(0)
    DSET("common_cpu", PyLong_FromLong((long)(r->cpu==TRACE_NULL_ULONG ? 0 : r->cpu)));
    DSET("common_s", PyLong_FromLongLong(ts / 1000000000));
    DSET("common_ns", PyLong_FromLongLong(ts % 1000000000));
    DSET("common_pid", PyLong_FromLong((long)pid));
    DSET("common_comm", (Py_INCREF(pComm), pComm));
    DSET("common_callchain", PyList_New(0));
    for(k=0; k<e->nField; k++){
      o = scriptField(e, k, (const BYTE*)zRaw, nRaw);
      if( o==0 || PyDict_SetItem(pDict, e->aFieldName[k], o) ){
        Py_XDECREF(o);
        goto fail;
      }
      Py_DECREF(o);
    }
#undef DSET
    PyTuple_SET_ITEM(t, n++, pDict);
    pDict = 0;
  }else{
#define TSET(V) do{ o = (V); if( o==0 ) goto fail; PyTuple_SET_ITEM(t, n++, o); }while(0)
    TSET(PyLong_FromLong((long)(r->cpu==TRACE_NULL_ULONG ? 0 : r->cpu)));
    TSET(PyLong_FromLongLong(ts / 1000000000));
    TSET(PyLong_FromLongLong(ts % 1000000000));
    TSET(PyLong_FromLong((long)pid));
    TSET((Py_INCREF(pComm), pComm));
    TSET(PyList_New(0));
    for(k=0; k<e->nField; k++){
      TSET(scriptField(e, k, (const BYTE*)zRaw, nRaw));
    }
#undef TSET
  }
  if( (bUnhandled ? p->nUnhandledArg : e->nArg)==n+1 ){
    o = scriptSampleDict(p, e, r, (const BYTE*)zRaw, nRaw, pComm);
    if( o==0 ) goto fail;
    PyTuple_SET_ITEM(t, n++, o);
  }
  if( n<nMax && _PyTuple_Resize(&t, n) ) goto fail;
  pRet = PyObject_Call(pHandler, t, 0);
  if( pRet==0 ) goto fail;
  Py_DECREF(pRet);
  Py_DECREF(t);
  Py_DECREF(pComm);
  p->nHandled++;
  return 0;
fail:
  Py_XDECREF(t);
  Py_XDECREF(pDict);
  Py_XDECREF(pComm);
  return 1;
}

typedef struct { long long ts; unsigned long long row; } ScriptTsRow;
static int scriptTsRowCompare(const void *a, const void *b){
  const ScriptTsRow *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->row<y->row ? -1 : x->row>y->row;
}

/* The inputs imported into the session (source rows). */
static ULONGLONG scriptSources(ScriptRun *p){
  PTRACE_STORE s = TraceSessionFindStore(p->pSession, "source");
  return s ? s->Snapshot.RecordCount : 0;
}

/* A store's rows from iFrom to its snapshot's count in time order.  The
** rows of one input are in the order its reader gave them, which is the
** producer's (perf's ordered events, trace-cmd's merge of the CPUs: a
** store not flagged sorted holds the producer's own few inversions, which
** perf script passes on too); the rows of several inputs are put in ts
** order (ties in store order) through an index of them, 16 bytes a
** row. */
typedef struct {
  PTRACE_STORE s;
  ScriptTsRow *aOrder;
  ULONGLONG iFrom, i, n;
  ULONGLONG iDiscarded;         /* rows before it given back (store order) */
} ScriptStream;

static int scriptStreamOpen(ScriptRun *p, const char *zStore,
                            PCTRACE_STORE_SCHEMA pSchema, ULONGLONG iFrom,
                            ScriptStream *q){
  ULONGLONG i;
  memset(q, 0, sizeof(*q));
  q->s = TraceSessionFindStore(p->pSession, zStore);
  if( q->s==0 ) return 0;
  if( !TraceStoreSchemaMatches(q->s->Header, pSchema) ){
    return scriptError(PyExc_OSError, "%s: written by another version of "
                       "tracestore, without what scripts need (the events' "
                       "raw bytes): import the trace again", q->s->Path);
  }
  q->n = q->s->Snapshot.RecordCount;
  q->iFrom = q->i = iFrom < q->n ? iFrom : q->n;
  q->iDiscarded = q->iFrom;
  if( (q->s->Snapshot.Flags & TRACE_SLOT_SORTED)==0 && q->n - q->iFrom>1
   && scriptSources(p)>1 ){
    ULONGLONG m = q->n - q->iFrom;
    q->aOrder = malloc(sizeof(ScriptTsRow)*(size_t)m);
    if( q->aOrder==0 ){ PyErr_NoMemory(); return 1; }
    for(i=0; i<m; i++){
      /* ts is each event store's first column */
      q->aOrder[i].ts = *(const LONGLONG*)(q->s->Base
                                           + (q->iFrom + i)*q->s->RecordSize);
      q->aOrder[i].row = q->iFrom + i;
    }
    qsort(q->aOrder, (size_t)m, sizeof(ScriptTsRow), scriptTsRowCompare);
  }
  return 0;
}

/* Lets the kernel drop the pages of rows handed on (read in store order),
** so that a run's resident memory does not grow with the store. */
#define SCRIPT_DISCARD_ROWS 65536

static void scriptStreamDiscard(ScriptStream *q, int bAll){
  ULONGLONG iTo;
  if( q->s==0 || q->aOrder ) return;
  iTo = bAll ? q->i : q->i - q->i % SCRIPT_DISCARD_ROWS;
  if( iTo<=q->iDiscarded + (bAll ? 0 : SCRIPT_DISCARD_ROWS - 1) ) return;
  sRtl.DiscardMemory(&sRtl, q->s->Base + q->iDiscarded*q->s->RecordSize,
                     (SIZE_T)((iTo - q->iDiscarded)*q->s->RecordSize));
  q->iDiscarded = iTo;
}

static const BYTE *scriptStreamRow(ScriptStream *q){
  ULONGLONG row;
  if( q->s==0 || q->i>=q->n ) return 0;
  row = q->aOrder ? q->aOrder[q->i - q->iFrom].row : q->i;
  return q->s->Base + row*q->s->RecordSize;
}

/* The str of a frame's symbol and module (cached; None when unknown). */
static int scriptFrameNames(ScriptRun *p, ULONGLONG id, PyObject **ppSym,
                            PyObject **ppDso){
  const FRAME_RECORD *f;
  PCSZ z;
  ULONG n;
  if( id>=p->nFrame ){
    ULONGLONG nRow = p->pFrame->Snapshot.RecordCount;
    PyObject **a, **b;
    if( id>=nRow ){
      return scriptError(PyExc_OSError, "%s: frame %llu beyond its %llu "
                         "rows (corrupt)", p->pFrame->Path, id, nRow);
    }
    a = realloc(p->aFrameSym, (size_t)nRow*sizeof(PyObject*));
    if( a ) p->aFrameSym = a;
    b = realloc(p->aFrameDso, (size_t)nRow*sizeof(PyObject*));
    if( b ) p->aFrameDso = b;
    if( a==0 || b==0 ){ PyErr_NoMemory(); return 1; }
    memset(a + p->nFrame, 0, (size_t)(nRow - p->nFrame)*sizeof(PyObject*));
    memset(b + p->nFrame, 0, (size_t)(nRow - p->nFrame)*sizeof(PyObject*));
    p->nFrame = nRow;
  }
  if( p->aFrameSym[id]==0 ){
    f = (const FRAME_RECORD*)(p->pFrame->Base + id*p->pFrame->RecordSize);
    if( scriptText(p, f->SymbolId, &z, &n) ) return 1;
    p->aFrameSym[id] = z ? PyUnicode_DecodeUTF8(z, n, "replace")
                         : (Py_INCREF(Py_None), Py_None);
    if( scriptText(p, f->ModuleId, &z, &n) ) return 1;
    p->aFrameDso[id] = z ? PyUnicode_DecodeUTF8(z, n, "replace")
                         : (Py_INCREF(Py_None), Py_None);
    if( p->aFrameSym[id]==0 || p->aFrameDso[id]==0 ) return 1;
  }
  *ppSym = p->aFrameSym[id];
  *ppDso = p->aFrameDso[id];
  return 0;
}

/* A sample's call chain as perf's process_event gets it: leaf first, each
** entry {'ip', 'sym': {'name'}, 'dso'} ('sym' and 'dso' only if known). */
static PyObject *scriptCallchain(ScriptRun *p, LONGLONG iStack){
  PyObject *pList = PyList_New(0);
  ULONG nDepth = 0;
  if( pList==0 ) return 0;
  while( iStack!=TRACE_NULL_LONGLONG && p->pStack && p->pFrame ){
    const STACK_RECORD *st;
    const FRAME_RECORD *f;
    PyObject *pSym = 0, *pDso = 0, *e, *o;
    if( (ULONGLONG)iStack>=p->pStack->Snapshot.RecordCount || ++nDepth>65536 ){
      scriptError(PyExc_OSError, "%s: callsite %lld beyond its rows or in a "
                  "loop (corrupt)", p->pStack->Path, iStack);
      goto fail;
    }
    st = (const STACK_RECORD*)(p->pStack->Base
                               + (ULONGLONG)iStack*p->pStack->RecordSize);
    if( scriptFrameNames(p, st->FrameId, &pSym, &pDso) ) goto fail;
    f = (const FRAME_RECORD*)(p->pFrame->Base
                              + st->FrameId*p->pFrame->RecordSize);
    e = PyDict_New();
    if( e==0 || PyList_Append(pList, e) ){ Py_XDECREF(e); goto fail; }
    Py_DECREF(e);
    o = PyLong_FromUnsignedLongLong(f->Ip);
    if( o==0 || PyDict_SetItemString(e, "ip", o) ){ Py_XDECREF(o); goto fail; }
    Py_DECREF(o);
    if( pSym!=Py_None ){
      PyObject *s = PyDict_New();
      if( s==0 || PyDict_SetItemString(s, "name", pSym)
       || PyDict_SetItemString(e, "sym", s) ){ Py_XDECREF(s); goto fail; }
      Py_DECREF(s);
    }
    if( pDso!=Py_None && PyDict_SetItemString(e, "dso", pDso) ) goto fail;
    iStack = st->ParentId;
  }
  return pList;
fail:
  Py_DECREF(pList);
  return 0;
}

/* process_event(param_dict) for a sample row. */
static int scriptSample(ScriptRun *p, const SAMPLE_RECORD *r){
  PyObject *d = 0, *s = 0, *pComm = 0, *pChain = 0, *o, *t, *pRet;
  PCSZ z;
  ULONG n;
  if( p->pProcessEvent==0 ) return 0;
  if( scriptText(p, r->NameId, &z, &n) ) return 1;
  d = PyDict_New();
  s = PyDict_New();
  pComm = scriptComm(p, r->CommId, r->Tid);
  pChain = scriptCallchain(p, r->StackId);
  if( d==0 || s==0 || pComm==0 || pChain==0 ) goto fail;
#define SET(D, K, V) do{ o = (V); if( o==0 || PyDict_SetItemString(D, K, o) ){ \
                           Py_XDECREF(o); goto fail; } Py_DECREF(o); }while(0)
  SET(d, "ev_name", PyUnicode_DecodeUTF8(z ? z : "", z ? n : 0, "replace"));
  if( scriptSetAttr(p, d, PyDict_GetItemString(d, "ev_name")) ) goto fail;
  /* pid, tid, cpu: perf's u32s, (u32)-1 when the sample has none */
  SET(s, "pid", PyLong_FromUnsignedLong(r->Pid));
  SET(s, "tid", PyLong_FromUnsignedLong(r->Tid));
  SET(s, "cpu", PyLong_FromUnsignedLong(r->Cpu));
  SET(s, "ip", PyLong_FromUnsignedLongLong(r->Ip==TRACE_NULL_ULONGLONG ? 0
                                                                       : r->Ip));
  SET(s, "time", PyLong_FromLongLong(r->Timestamp));
  SET(s, "period", PyLong_FromUnsignedLongLong(
          r->Period==TRACE_NULL_ULONGLONG ? 0 : r->Period));
  SET(d, "sample", (Py_INCREF(s), s));
  SET(d, "raw_buf", PyBytes_FromStringAndSize("", 0));
  SET(d, "comm", (Py_INCREF(pComm), pComm));
  if( PyList_GET_SIZE(pChain)>0 ){
    /* the sample's own place: its leaf frame's */
    PyObject *e = PyList_GET_ITEM(pChain, 0), *v;
    v = PyDict_GetItemString(e, "dso");
    if( v && PyDict_SetItemString(d, "dso", v) ) goto fail;
    v = PyDict_GetItemString(e, "sym");
    if( v && PyDict_SetItemString(d, "symbol",
                                  PyDict_GetItemString(v, "name")) ) goto fail;
  }
  SET(d, "callchain", (Py_INCREF(pChain), pChain));
  SET(d, "brstack", PyList_New(0));
  SET(d, "brstacksym", PyList_New(0));
#undef SET
  t = PyTuple_Pack(1, d);
  if( t==0 ) goto fail;
  pRet = PyObject_Call(p->pProcessEvent, t, 0);
  Py_DECREF(t);
  if( pRet==0 ) goto fail;
  Py_DECREF(pRet);
  p->nHandled++;
  Py_DECREF(d); Py_DECREF(s); Py_DECREF(pComm); Py_DECREF(pChain);
  return 0;
fail:
  Py_XDECREF(d); Py_XDECREF(s); Py_XDECREF(pComm); Py_XDECREF(pChain);
  return 1;
}

/* The comm perf gives a thread at a time: its thread row (one per comm it
** had, from when first seen) latest at or before ts; else zDefault's. */
static int scriptThreadCompare(const void *a, const void *b){
  const ScriptThreadComm *x = a, *y = b;
  if( x->tid!=y->tid ) return x->tid<y->tid ? -1 : 1;
  return x->ts<y->ts ? -1 : x->ts>y->ts;
}

static int scriptLoadThreads(ScriptRun *p){
  PTRACE_STORE s = TraceSessionFindStore(p->pSession, "thread");
  ULONGLONG i, n;
  free(p->aThread);
  p->aThread = 0;
  p->nThread = 0;
  if( s==0 || !TraceStoreSchemaMatches(s->Header, &TraceThreadSchema) ){
    return 0;
  }
  n = s->Snapshot.RecordCount;
  p->aThread = malloc(sizeof(ScriptThreadComm)*(size_t)(n ? n : 1));
  if( p->aThread==0 ){ PyErr_NoMemory(); return 1; }
  for(i=0; i<n; i++){
    const THREAD_RECORD *r = (const THREAD_RECORD*)(s->Base + i*s->RecordSize);
    p->aThread[i].tid = r->Tid;
    p->aThread[i].commId = r->CommId;
    p->aThread[i].ts = r->StartTs;
  }
  qsort(p->aThread, (size_t)n, sizeof(ScriptThreadComm), scriptThreadCompare);
  p->nThread = n;
  return 0;
}

static ULONG scriptThreadCommAt(ScriptRun *p, ULONG tid, LONGLONG ts,
                                ULONG commDefault){
  ULONGLONG lo = 0, hi = p->nThread;
  while( lo<hi ){                       /* the first row after (tid, ts) */
    ULONGLONG mid = lo + (hi - lo)/2;
    const ScriptThreadComm *t = &p->aThread[mid];
    if( t->tid<tid || (t->tid==tid && t->ts<=ts) ) lo = mid + 1;
    else hi = mid;
  }
  if( lo>0 && p->aThread[lo-1].tid==tid ) return p->aThread[lo-1].commId;
  return commDefault;
}

/* Whether the script handles sched_switch (its handler, or
** trace_unhandled): else the sched_switch store is not read. */
static int scriptWantsSwitch(ScriptRun *p){
  ULONG i;
  if( p->pUnhandled ) return 1;
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    if( e->pHandler && strcmp(e->pFormat->Name, "sched_switch")==0 ) return 1;
  }
  return 0;
}

/* page_fault rows are events with a format too: the tracepoints
** exceptions:page_fault_user and _kernel, whose fields the row keeps
** (address, ip, error_code), and ETW's faults, whose reader writes a
** format of the row's address and ip (PageFault:HardFault, ...).  Their
** record is rebuilt from the row when the session has the event's format
** (a binary source's, or text imported with --formats); the latency
** fields, not kept, are 0.  The store is read when an event with an
** address field is handled. */
static int scriptWantsFaults(ScriptRun *p){
  ULONG i;
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    if( (e->pHandler || p->pUnhandled)
     && TraceEventFindField(e->pFormat, "address") ) return 1;
  }
  return 0;
}

#define SCRIPT_FAULT_BYTES 256
#define SCRIPT_SKIP_NAMES 16

static void scriptStoreField(PCTRACE_EVENT_FIELD f, BYTE *a, ULONG n,
                             ULONGLONG v){
  ULONG k;
  if( f==0 || f->Size>8 || f->Offset + f->Size > n ) return;
  for(k=0; k<f->Size; k++) a[f->Offset + k] = (BYTE)(v >> (8*k));
}

static int scriptFault(ScriptRun *p, ScriptStream *q,
                       const PAGE_FAULT_RECORD *r){
  ScriptEvent *e = scriptFindEvent(p, r->NameId, 0, 0);
  BYTE aRaw[SCRIPT_FAULT_BYTES];
  ScriptTracepoint t;
  ULONG k, n = 0;
  if( e==0 ) return 0;
  for(k=0; k<e->pFormat->NumberOfFields; k++){
    PCTRACE_EVENT_FIELD f = &e->pFormat->Fields[k];
    if( f->Offset + f->Size > n ) n = f->Offset + f->Size;
  }
  if( n>sizeof(aRaw) ) return 0;
  memset(aRaw, 0, n);
  scriptStoreField(TraceEventFindField(e->pFormat, "common_type"), aRaw, n,
                   e->pFormat->Id);
  scriptStoreField(e->pPid, aRaw, n, r->Tid);
  scriptStoreField(TraceEventFindField(e->pFormat, "address"), aRaw, n,
                   r->Address);
  scriptStoreField(TraceEventFindField(e->pFormat, "ip"), aRaw, n,
                   r->Ip==TRACE_NULL_ULONGLONG ? 0 : r->Ip);
  scriptStoreField(TraceEventFindField(e->pFormat, "error_code"), aRaw, n,
                   r->ErrorCode==TRACE_NULL_ULONG ? 0 : r->ErrorCode);
  t.ts = r->Timestamp;
  t.nameId = r->NameId;
  t.tid = r->Tid;
  t.pid = r->Pid;
  t.cpu = r->Cpu;
  t.commId = r->CommId;
  t.rawId = TRACE_STRING_NULL;
  t.pRaw = aRaw;
  t.nRaw = n;
  t.pStore = q->s;
  t.pRecord = (const BYTE*)r;
  return scriptTracepoint(p, &t);
}

/* kvm_exit rows hold two tracepoint events, the exit and the entry that
** ended it (at ts + dur), with both records' bytes.  An entry waits in a
** heap by ts until the merge reaches it. */
static int scriptWantsKvm(ScriptRun *p){
  ULONG i;
  if( p->pUnhandled ) return 1;
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    if( e->pHandler && (strcmp(e->pFormat->Name, "kvm_exit")==0
                        || strcmp(e->pFormat->Name, "kvm_entry")==0) ){
      return 1;
    }
  }
  return 0;
}

static int scriptEntryPush(ScriptRun *p, const ScriptTracepoint *t){
  ULONG i;
  if( p->nEntry==p->nEntryAlloc ){
    ULONG n = p->nEntryAlloc ? 2*p->nEntryAlloc : 64;
    ScriptTracepoint *a = realloc(p->aEntry, n*sizeof(*a));
    if( a==0 ){ PyErr_NoMemory(); return 1; }
    p->aEntry = a;
    p->nEntryAlloc = n;
  }
  for(i=p->nEntry++; i>0 && p->aEntry[(i-1)/2].ts > t->ts; i=(i-1)/2){
    p->aEntry[i] = p->aEntry[(i-1)/2];
  }
  p->aEntry[i] = *t;
  return 0;
}

static void scriptEntryPop(ScriptRun *p){
  ScriptTracepoint last = p->aEntry[--p->nEntry];
  ULONG i = 0, c;
  while( (c = 2*i + 1) < p->nEntry ){
    if( c+1<p->nEntry && p->aEntry[c+1].ts < p->aEntry[c].ts ) c++;
    if( p->aEntry[c].ts >= last.ts ) break;
    p->aEntry[i] = p->aEntry[c];
    i = c;
  }
  if( p->nEntry ) p->aEntry[i] = last;
}

/* The rows of ftrace_event, sched_switch, page_fault, kvm_exit and sample
** committed since the last pass, merged in ts order (at equal ts in that
** order of stores, entries last).  The entries still waiting are handed
** on when bDrain (no writer: nothing earlier can come). */
static int scriptPass(ScriptRun *p, int bDrain){
  enum { EV, SW, PF, KV, SA, N_STREAM };
  ScriptStream a[N_STREAM];
  const BYTE *aHead[N_STREAM];  /* each stream's next row, or NULL */
  ULONG aSkip[SCRIPT_SKIP_NAMES];  /* name id + 1 of names to pass over */
  int rc, i;
  memset(a, 0, sizeof(a));
  rc = scriptStreamOpen(p, "ftrace_event", &TraceFtraceEventSchema,
                        p->nEventDone, &a[EV]);
  if( rc==0 && scriptWantsSwitch(p) ){
    rc = scriptStreamOpen(p, "sched_switch", &TraceSchedSwitchSchema,
                          p->nSwitchDone, &a[SW]);
    if( rc==0 && a[SW].s ) rc = scriptLoadThreads(p);
  }
  if( rc==0 && scriptWantsFaults(p) ){
    rc = scriptStreamOpen(p, "page_fault", &TracePageFaultSchema,
                          p->nFaultDone, &a[PF]);
  }
  if( rc==0 && scriptWantsKvm(p) ){
    rc = scriptStreamOpen(p, "kvm_exit", &TraceKvmExitSchema, p->nKvmDone,
                          &a[KV]);
  }
  if( rc==0 && p->pProcessEvent ){
    rc = scriptStreamOpen(p, "sample", &TraceSampleSchema, p->nSampleDone,
                          &a[SA]);
    p->pStack = TraceSessionFindStore(p->pSession, "stack");
    p->pFrame = TraceSessionFindStore(p->pSession, "frame");
    if( p->pStack && !TraceStoreSchemaMatches(p->pStack->Header,
                                              &TraceStackSchema) ) p->pStack = 0;
    if( p->pFrame && !TraceStoreSchemaMatches(p->pFrame->Header,
                                              &TraceFrameSchema) ) p->pFrame = 0;
  }
  for(i=0; i<N_STREAM; i++) aHead[i] = scriptStreamRow(&a[i]);
  memset(aSkip, 0, sizeof(aSkip));
  while( rc==0 ){
    const BYTE *x = 0;
    int iMin = -1;
    ScriptTracepoint t;
    for(i=0; i<N_STREAM; i++){
      const BYTE *y = aHead[i];
      if( y && (x==0 || *(const LONGLONG*)y < *(const LONGLONG*)x) ){
        x = y;
        iMin = i;
      }
    }
    if( p->nEntry && (x ? p->aEntry[0].ts < *(const LONGLONG*)x : bDrain) ){
      t = p->aEntry[0];
      scriptEntryPop(p);
      rc = scriptTracepoint(p, &t);
      continue;
    }
    if( iMin<0 ) break;
    if( iMin==EV && p->pUnhandled==0 ){

      /* The ftrace_event rows before any other stream's next one whose
      ** names no handler takes, passed over by their name id alone. */
      LONGLONG tLimit = 0x7fffffffffffffffLL;
      ULONGLONG j = a[EV].i, iFirst = a[EV].i;
      for(i=EV+1; i<N_STREAM; i++){
        if( aHead[i] && *(const LONGLONG*)aHead[i] < tLimit ){
          tLimit = *(const LONGLONG*)aHead[i];
        }
      }
      if( p->nEntry && p->aEntry[0].ts < tLimit ) tLimit = p->aEntry[0].ts;
      while( j<a[EV].n ){
        const FTRACE_EVENT_RECORD *r = (const FTRACE_EVENT_RECORD*)
            (a[EV].aOrder ? scriptStreamRow(&a[EV])
                          : a[EV].s->Base + j*a[EV].s->RecordSize);
        ULONG *pSkip = &aSkip[r->NameId % SCRIPT_SKIP_NAMES];
        if( r->Timestamp > tLimit ) break;
        if( *pSkip!=r->NameId + 1 ){
          ScriptEvent *e = scriptFindEvent(p, r->NameId, 0, 0);
          if( e && e->pHandler ) break;
          *pSkip = r->NameId + 1;
        }
        a[EV].i = ++j;
        if( j % SCRIPT_DISCARD_ROWS==0 ) scriptStreamDiscard(&a[EV], 0);
      }
      if( j!=iFirst ){
        aHead[EV] = scriptStreamRow(&a[EV]);
        continue;
      }
    }
    t.pRaw = 0;
    t.nRaw = 0;
    t.pStore = a[iMin].s;
    t.pRecord = x;
    if( iMin==EV ){
      const FTRACE_EVENT_RECORD *r = (const FTRACE_EVENT_RECORD*)x;
      t.ts = r->Timestamp;
      t.nameId = r->NameId;
      t.tid = r->Tid;
      t.pid = r->Pid;
      t.cpu = r->Cpu;
      t.commId = r->CommId;
      t.rawId = r->RawId;
      rc = scriptTracepoint(p, &t);
    }else if( iMin==SW ){
      const SCHED_SWITCH_RECORD *r = (const SCHED_SWITCH_RECORD*)x;
      t.ts = r->Timestamp;
      t.nameId = TRACE_STRING_NULL;
      t.tid = r->PrevPid;
      t.pid = TRACE_NULL_ULONG;
      t.cpu = r->Cpu;
      t.commId = scriptThreadCommAt(p, r->PrevPid, r->Timestamp,
                                    r->PrevCommId);
      t.rawId = r->RawId;
      rc = scriptTracepoint(p, &t);
    }else if( iMin==PF ){
      rc = scriptFault(p, &a[PF], (const PAGE_FAULT_RECORD*)x);
    }else if( iMin==KV ){
      const KVM_EXIT_RECORD *r = (const KVM_EXIT_RECORD*)x;
      t.ts = r->Timestamp;
      t.nameId = TRACE_STRING_NULL;
      t.tid = r->Tid;
      t.pid = r->Pid;
      t.cpu = r->Cpu;
      t.commId = r->CommId;
      t.rawId = r->RawId;
      rc = scriptTracepoint(p, &t);
      if( rc==0 && r->EntryRawId!=TRACE_STRING_NULL
       && r->Duration!=TRACE_NULL_LONGLONG ){
        t.ts = r->Timestamp + r->Duration;
        t.rawId = r->EntryRawId;
        rc = scriptEntryPush(p, &t);
      }
    }else{
      rc = scriptSample(p, (const SAMPLE_RECORD*)x);
    }
    a[iMin].i++;
    if( a[iMin].i % SCRIPT_DISCARD_ROWS==0 ) scriptStreamDiscard(&a[iMin], 0);
    aHead[iMin] = scriptStreamRow(&a[iMin]);
  }
  if( a[EV].s ) p->nEventDone = a[EV].i;
  if( a[SW].s ) p->nSwitchDone = a[SW].i;
  if( a[PF].s ) p->nFaultDone = a[PF].i;
  if( a[KV].s ) p->nKvmDone = a[KV].i;
  if( a[SA].s ) p->nSampleDone = a[SA].i;
  for(i=0; i<N_STREAM; i++) free(a[i].aOrder);
  return rc;
}

/* Opens the session (again: stores a live writer made since appear). */
static int scriptOpen(ScriptRun *p){
  RTL_ERROR err;
  if( p->pSession ){
    TraceSessionClose(p->pSession);
  }else if( !RTL_SUCCESS(sRtl.AllocatePages(&sRtl, sizeof(TRACE_SESSION),
                                            (PVOID*)&p->pSession)) ){
    p->pSession = 0;
    PyErr_NoMemory();
    return 1;
  }
  memset(p->pSession, 0, sizeof(TRACE_SESSION));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(&sRtl, p->zPath, p->pSession,
                                          &err)) ){
    sRtl.Unmap(&sRtl, p->pSession, sizeof(TRACE_SESSION));
    p->pSession = 0;
    PyErr_SetString(PyExc_OSError, err.Message);
    return 1;
  }
  return 0;
}

/* Every event; with follow, then those a writer commits, every few ms,
** until it has gone and nothing new came (or Ctrl-C). */
static int scriptWalk(ScriptRun *p, int bFollow){
  for(;;){
    unsigned long long nBefore = p->nEventDone + p->nSwitchDone
                               + p->nFaultDone + p->nKvmDone
                               + p->nSampleDone;
    int bWriter = bFollow && hostWriterRuns(p->zPath);
    if( scriptLoadFormats(p) || scriptLoadAttrs(p)
     || scriptPass(p, !bFollow || !bWriter) ){
      return 1;
    }
    if( !bFollow ) return 0;
    if( !bWriter && p->nEventDone + p->nSwitchDone + p->nFaultDone
                    + p->nKvmDone + p->nSampleDone==nBefore ) return 0;
    Py_BEGIN_ALLOW_THREADS
    usleep(20*1000);
    Py_END_ALLOW_THREADS
    if( PyErr_CheckSignals() ) return 1;
    if( scriptOpen(p) ) return 1;
  }
}

static void scriptRelease(ScriptRun *p){
  ULONG i;
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    int k;
    Py_XDECREF(e->pHandler);
    Py_XDECREF(e->pHandlerName);
    Py_XDECREF(e->pEvName);
    for(k=0; k<e->nField; k++) Py_XDECREF(e->aFieldName[k]);
    free(e->aField);
    free(e->aFieldName);
    free(e->aBytes);
  }
  for(i=0; i<p->nComm; i++) Py_XDECREF(p->aComm[i]);
  if( p->aFrameSym ){
    ULONGLONG f;
    for(f=0; f<p->nFrame; f++){
      Py_XDECREF(p->aFrameSym[f]);
      Py_XDECREF(p->aFrameDso[f]);
    }
  }
  free(p->aFrameSym);
  free(p->aFrameDso);
  free(p->aThread);
  free(p->aEntry);
  Py_XDECREF(p->pProcessEvent);
  Py_XDECREF(p->pSwapper);
  Py_XDECREF(p->pAttrs);
  for(i=0; i<p->nTable; i++){
    TraceEventTableRelease(p->apTable[i]);
    free(p->apTable[i]);
  }
  free(p->aComm);
  free(p->aEvent);
  free(p->aByName);
  Py_XDECREF(p->pContext);
  Py_XDECREF(p->pUnhandled);
  if( p->pSession ){
    TraceSessionClose(p->pSession);
    sRtl.Unmap(&sRtl, p->pSession, sizeof(TRACE_SESSION));
  }
}

/* run(session, namespace) -> events handled */
static PyObject *scriptRun(PyObject *self, PyObject *args){
  ScriptRun *p;
  int bFollow = 0, rc;
  unsigned long long nHandled;
  (void)self;
  p = calloc(1, sizeof(*p));
  if( p==0 ) return PyErr_NoMemory();
  if( !PyArg_ParseTuple(args, "sO!|p", &p->zPath, &PyDict_Type,
                        &p->pNamespace, &bFollow) ){
    free(p);
    return 0;
  }
  p->pContext = PyObject_New(ScriptContext, &sContextType);
  if( p->pContext==0 ){ free(p); return 0; }
  p->pContext->pRaw = 0;
  p->pContext->nRaw = 0;
  p->pContext->pEvent = 0;
  p->pUnhandled = scriptGetHandler(p, "trace_unhandled");
  if( p->pUnhandled ){
    Py_INCREF(p->pUnhandled);
    p->nUnhandledArg = scriptArgCount(p->pUnhandled);
  }
  p->pProcessEvent = scriptGetHandler(p, "process_event");
  Py_XINCREF(p->pProcessEvent);
  rc = scriptOpen(p);
  if( rc==0 ) rc = scriptWalk(p, bFollow);
  nHandled = p->nHandled;
  scriptRelease(p);
  free(p);
  if( rc ) return 0;
  return PyLong_FromUnsignedLongLong(nHandled);
}

/* events(session) -> [(system, name, [field, ...])]: each event the
** session has a format of, once, in the order first met. */
static PyObject *scriptEvents(PyObject *self, PyObject *args){
  ScriptRun *p;
  PyObject *pList = 0, *pSeen = 0;
  ULONG i;
  int k;
  (void)self;
  p = calloc(1, sizeof(*p));
  if( p==0 ) return PyErr_NoMemory();
  p->pNamespace = PyDict_New();
  if( p->pNamespace==0 || !PyArg_ParseTuple(args, "s", &p->zPath)
   || scriptOpen(p) || scriptLoadFormats(p) ) goto done;
  pList = PyList_New(0);
  pSeen = PySet_New(0);
  if( pList==0 || pSeen==0 ) goto done;
  for(i=0; i<p->nEvent; i++){
    ScriptEvent *e = &p->aEvent[i];
    PyObject *pFields, *t;
    int bSeen = PySet_Contains(pSeen, e->pHandlerName);
    if( bSeen ) continue;
    if( bSeen<0 || PySet_Add(pSeen, e->pHandlerName) ) goto fail;
    pFields = PyList_New(e->nField);
    if( pFields==0 ) goto fail;
    for(k=0; k<e->nField; k++){
      Py_INCREF(e->aFieldName[k]);
      PyList_SET_ITEM(pFields, k, e->aFieldName[k]);
    }
    t = Py_BuildValue("(ssN)", e->pFormat->System, e->pFormat->Name, pFields);
    if( t==0 || PyList_Append(pList, t) ){ Py_XDECREF(t); goto fail; }
    Py_DECREF(t);
  }
  goto done;
fail:
  Py_CLEAR(pList);
done:
  Py_XDECREF(pSeen);
  Py_XDECREF(p->pNamespace);
  p->pNamespace = 0;
  scriptRelease(p);
  free(p);
  return pList;
}

/* perf_trace_context: a common field of the event being handled. */
static PyObject *scriptCommon(PyObject *args, int iWhich){
  PyObject *o;
  ScriptContext *c;
  PCTRACE_EVENT_FIELD f;
  if( !PyArg_ParseTuple(args, "O!", &sContextType, &o) ) return 0;
  c = (ScriptContext*)o;
  if( c->pEvent==0 ) return PyLong_FromLong(0);
  f = iWhich==0 ? c->pEvent->pPreempt : iWhich==1 ? c->pEvent->pFlags
                                                  : c->pEvent->pLockDepth;
  /* A field the kernel no longer has (common_lock_depth): 0, as perf. */
  if( f==0 || f->Offset + f->Size > c->nRaw ) return PyLong_FromLong(0);
  return PyLong_FromUnsignedLongLong(
      TraceEventReadNumber(c->pRaw + f->Offset, f->Size));
}
static PyObject *scriptCommonPc(PyObject *self, PyObject *args){
  (void)self;
  return scriptCommon(args, 0);
}
static PyObject *scriptCommonFlags(PyObject *self, PyObject *args){
  (void)self;
  return scriptCommon(args, 1);
}
static PyObject *scriptCommonLockDepth(PyObject *self, PyObject *args){
  (void)self;
  return scriptCommon(args, 2);
}

/* syscall_name(nr): the x86-64 name from the kernel's unistd_64.h. */
static PyObject *scriptSyscallName(PyObject *self, PyObject *args){
  long nr;
  size_t i;
  (void)self;
  if( !PyArg_ParseTuple(args, "l", &nr) ) return 0;
  for(i=0; i<sizeof(aTsSyscall)/sizeof(aTsSyscall[0]); i++){
    if( aTsSyscall[i].nr==nr ) return PyUnicode_FromString(aTsSyscall[i].zName);
  }
  Py_RETURN_NONE;
}

static PyMethodDef aMethod[] = {
  {"run", scriptRun, METH_VARARGS,
   "run(session, namespace[, follow]) -> events handled: calls the "
   "handlers in namespace for the session's events, in time order; with "
   "follow, also for those a writer commits, until it has gone"},
  {"events", scriptEvents, METH_VARARGS,
   "events(session) -> [(system, name, [field, ...])]: the events the "
   "session has formats of"},
  {"common_pc", scriptCommonPc, METH_VARARGS,
   "common_pc(context) -> the event's preempt count"},
  {"common_flags", scriptCommonFlags, METH_VARARGS,
   "common_flags(context) -> the event's flags"},
  {"common_lock_depth", scriptCommonLockDepth, METH_VARARGS,
   "common_lock_depth(context) -> the event's lock depth, 0 if none"},
  {"syscall_name", scriptSyscallName, METH_VARARGS,
   "syscall_name(nr) -> the x86-64 system call's name, or None"},
  {0, 0, 0, 0}
};

static struct PyModuleDef sModule = {
  PyModuleDef_HEAD_INIT, "tracestore_script",
  "perf Python scripts over a Tracer session (tracestore script).",
  -1, aMethod, 0, 0, 0, 0
};

PyMODINIT_FUNC PyInit_tracestore_script(void){
  if( !sRtlReady ){
    if( !RTL_SUCCESS(InitializeRtl(&sRtl)) ){
      PyErr_SetString(PyExc_ImportError, "tracestore_script: InitializeRtl "
                      "failed");
      return 0;
    }
    sRtlReady = 1;
  }
  if( PyType_Ready(&sContextType)<0 ) return 0;
  return PyModule_Create(&sModule);
}
