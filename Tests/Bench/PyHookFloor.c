/*
** PyHookFloor.c: the `tracestore_floor` CPython module, for the Python
** tracer's benchmark (Tests/Bench/bench_python.py): hooks that do nothing
** but read the TSC, what every per-call tracer pays at least.
**
** Zone: tests (benchmarks): the CPython C API.  Built per interpreter by
** Tests/PythonTests.cmake into build/python-bench/VERSION/.
**
**   profile(on)   PyEval_SetProfile with a C hook that reads the TSC at
**                 each event (the 3.11 tracer's dispatch), or removes it;
**   on_event      a METH_FASTCALL function that reads the TSC, for
**                 sys.monitoring.register_callback (the 3.12+ tracer's);
**   settrace(on)  PyEval_SetTrace with a C trace function that reads the
**                 TSC at each event: what a line profiler built on it
**                 (line_profiler 4.0, Debian's) pays at least per line.
*/
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

static volatile uint64_t nSink;

static uint64_t floorClock(void){
#if defined(__x86_64__)
  return __builtin_ia32_rdtsc();
#else
  return 0;
#endif
}

static int floorProfile(PyObject *pObj, PyFrameObject *pFrame, int what,
                        PyObject *pArg){
  (void)pObj; (void)pFrame; (void)what; (void)pArg;
  nSink += floorClock();
  return 0;
}

static PyObject *floorSetProfile(PyObject *pSelf, PyObject *pOn){
  (void)pSelf;
  PyEval_SetProfile(PyObject_IsTrue(pOn) ? floorProfile : 0, 0);
  Py_RETURN_NONE;
}

static PyObject *floorSetTrace(PyObject *pSelf, PyObject *pOn){
  (void)pSelf;
  PyEval_SetTrace(PyObject_IsTrue(pOn) ? floorProfile : 0, 0);
  Py_RETURN_NONE;
}

static PyObject *floorOnEvent(PyObject *pSelf, PyObject *const *apArg,
                              Py_ssize_t nArg){
  (void)pSelf; (void)apArg; (void)nArg;
  nSink += floorClock();
  Py_RETURN_NONE;
}

static PyMethodDef aFloorMethod[] = {
  {"profile", floorSetProfile, METH_O, "set or remove the floor profile hook"},
  {"settrace", floorSetTrace, METH_O, "set or remove the floor trace function"},
  {"on_event", (PyCFunction)(void(*)(void))floorOnEvent, METH_FASTCALL,
   "a sys.monitoring callback that reads the TSC"},
  {0, 0, 0, 0}
};

static struct PyModuleDef sFloorModule = {
  PyModuleDef_HEAD_INIT, "tracestore_floor",
  "Hooks that only read the clock: the floor of a per-call tracer.",
  -1, aFloorMethod, 0, 0, 0, 0
};

PyMODINIT_FUNC PyInit_tracestore_floor(void){
  return PyModule_Create(&sFloorModule);
}
