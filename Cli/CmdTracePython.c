/*
** CmdTracePython.c: `tracestore trace-python`: run a Python script or
** module with the call tracer on (the `tracestore` CPython module,
** Live/Python/), into a session SQL can read while it runs.
**
** Zone: hosted (the command-line front end): libc.  Owns the arguments
** and the interpreter's start-up; the tracing itself is the module's.
** Calls hostFail (HostUtil.c) and the Python helpers of Host/HostPython.c;
** nothing else of the core.
**
** How: the command execs the interpreter (so the program's stdin, stdout,
** stderr, signals and exit status are its own) as
**
**     PYTHON -c BOOTSTRAP SCRIPT ARGS...   or   PYTHON -c BOOTSTRAP -m MODULE ARGS...
**
** with the options in TRACESTORE_* environment variables, which the
** bootstrap removes.  The bootstrap makes sys.argv, sys.path[0] and
** __main__ what `python SCRIPT` or `python -m MODULE` would, compiles the
** program, calls tracestore.start() and runs the program's code with
** exec(): its <module> is the first call recorded, at depth 0.  The
** module is found on sys.path (after `cmake --install`) or, when the
** command runs from a build tree, in the python/X.Y/ directories next to
** it (each interpreter only loads the one built for it); the bootstrap
** then takes them out of sys.path again, so that the program's imports
** search what they would without the tracer.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Cli/Cli.h"
#include "Host/HostSync.h"

static const char zTracePythonHelp[] =
"usage: tracestore trace-python [-o SESSION] [--include MODULE]...\n"
"                               [--exclude MODULE]... [--max-depth N]\n"
"                               [--c-calls] [--lines MODULE[,MODULE...]]\n"
"                               [--python EXE]\n"
"                               [--sync-interval SECONDS] [--sync-log FILE]\n"
"                               -- [PYTHON] SCRIPT ARGS...\n"
"                             | -- [PYTHON] -m MODULE ARGS...\n"
"\n"
"Runs a Python program with every call and return of every thread\n"
"recorded into SESSION's `span` store (default: python.trace), committed\n"
"every few ms, so `tracestore sql` and sqlite3 (.load tracestore) see the\n"
"calls while it runs.  The program's output and exit status are its own.\n"
"\n"
"  -o SESSION         the session directory (created, or appended to)\n"
"  --include MODULE   record only functions of MODULE and its submodules\n"
"                     (repeatable; default: every module)\n"
"  --exclude MODULE   do not record functions of MODULE and submodules\n"
"                     (repeatable; their callees are still recorded)\n"
"  --max-depth N      record calls at most N deep (per thread)\n"
"  --c-calls          record calls of C functions too (cat 'c')\n"
"  --lines MODULES    record every line executed by functions of these\n"
"                     modules and their submodules (',' between them;\n"
"                     repeatable) into the `line` store: ts, dur,\n"
"                     self_dur, span_id, file, lineno, name, tid; views\n"
"                     line_time (kernprof's table) and line_hot (the\n"
"                     hottest lines)\n"
"  --python EXE       the interpreter (default: python3); 3.11 or later,\n"
"                     with the tracestore module built for it; or name\n"
"                     it first after --: -- python3.12 SCRIPT ARGS\n"
"\n"
"Rows: ts, dur (ns, CLOCK_MONOTONIC), name (module.qualname), depth,\n"
"parent_id, tid, pid, cat 'python', args 'FILE:FIRSTLINE'; flags 2 on a\n"
"call still running (or running when the program was killed).\n"
"In a program: import tracestore; tracestore.start(PATH); ...; stop().\n"
"\n"
"Durability (docs/durability.md): the session is synced (every store\n"
"flushed, then session.durable replaced) when the tracer opens and closes\n"
"it, and every --sync-interval (on the tracer's own thread):\n";

static const char zTracePythonHelpDurable[] =
"After a power cut at any instant, the session opens; each store holds at\n"
"least what the last sync made durable and never a row that was not\n"
"committed (a call still running may show a dur from after the sync);\n"
"`tracestore info` counts what the cut took.  A sync costs a device flush\n"
"per store.\n";

static void tracePythonHelp(FILE *out){
  fputs(zTracePythonHelp, out);
  hostSyncHelp(out, "1");
  fputs(zTracePythonHelpDurable, out);
}

/* The program the interpreter runs (-c): see the header. */
static const char zBootstrap[] =
"def _tracestore_main():\n"
"    import sys, os, io, threading, builtins\n"
"    def fail(what):\n"
"        sys.stderr.write('tracestore trace-python: %s\\n' % what)\n"
"        sys.exit(1)\n"
"    if sys.version_info < (3, 11):\n"
"        fail('%s is Python %d.%d: the tracer needs Python 3.11 or newer'\n"
"             ' (--python EXE)' % (sys.executable, sys.version_info[0],\n"
"                                  sys.version_info[1]))\n"
"    try:\n"
"        import tracestore\n"
"    except ImportError as x:\n"
"        fail('%s (Python %d.%d): no tracestore module for it: %s'\n"
"             % (sys.executable, sys.version_info[0], sys.version_info[1], x))\n"
"    e = os.environ\n"
"    out = e.pop('TRACESTORE_OUT')\n"
"    inc = [p for p in e.pop('TRACESTORE_INCLUDE', '').split(',') if p]\n"
"    exc = [p for p in e.pop('TRACESTORE_EXCLUDE', '').split(',') if p]\n"
"    lines = [p for p in e.pop('TRACESTORE_LINES', '').split(',') if p]\n"
"    depth = int(e.pop('TRACESTORE_MAX_DEPTH', '0'))\n"
"    ccalls = e.pop('TRACESTORE_C_CALLS', '') == '1'\n"
"    sync = float(e.pop('TRACESTORE_SYNC_INTERVAL', '1'))\n"
"    synclog = e.pop('TRACESTORE_SYNC_LOG', None)\n"
"    _tracestore_restore_path()\n"
"    a = sys.argv[1:]\n"
"    main = sys.modules['__main__']\n"
"    d = main.__dict__\n"
"    d.clear()\n"
"    d.update(__name__='__main__', __doc__=None, __builtins__=builtins,\n"
"             __cached__=None, __loader__=None, __package__=None, __spec__=None)\n"
"    if a[0] == '-m':\n"
"        import runpy\n"
"        sys.path[0] = os.getcwd()\n"
"        name, spec, code = runpy._get_module_details(a[1])\n"
"        sys.argv = [spec.origin] + a[2:]\n"
"        d.update(__file__=spec.origin, __cached__=spec.cached,\n"
"                 __loader__=spec.loader, __package__=spec.parent, __spec__=spec)\n"
"    else:\n"
"        path = a[0]\n"
"        sys.argv = a\n"
"        sys.path[0] = os.path.dirname(os.path.realpath(path))\n"
"        try:\n"
"            with io.open_code(path) as f:\n"
"                src = f.read()\n"
"        except OSError as x:\n"
"            fail('%s: %s' % (path, x.strerror or x))\n"
"        if b'\\0' in src[:4096]:\n"
"            fail('%s: not a Python script (a binary file); to run another'\n"
"                 ' interpreter, put it first: -- python3.12 SCRIPT' % path)\n"
"        code = compile(src, path, 'exec', dont_inherit=True)\n"
"        d['__file__'] = path\n"
"    try:\n"
"        tracestore.start(out, include=inc, exclude=exc, max_depth=depth,\n"
"                         c_calls=ccalls, sync_interval=sync,\n"
"                         sync_log=synclog, lines=lines)\n"
"    except OSError as x:\n"
"        fail(x)\n"
"    try:\n"
"        exec(code, d)\n"
"    except SystemExit:\n"
"        raise\n"
"    except BaseException as x:\n"
"        x.__traceback__ = x.__traceback__.tb_next\n"
"        sys.excepthook(type(x), x, x.__traceback__)\n"
"        sys.exit(1)\n"
"_tracestore_main()\n";

/* Appends to zList (a ',' list in the environment variable zVar). */
static int tpAppendEnv(const char *zVar, const char *zValue){
  const char *zOld = getenv(zVar);
  char *z;
  int rc;
  if( strchr(zValue, ',') || zValue[0]==0 ){
    hostFail("trace-python: bad module name '%s'", zValue);
    return 1;
  }
  if( zOld==0 || zOld[0]==0 ) return setenv(zVar, zValue, 1);
  z = malloc(strlen(zOld) + strlen(zValue) + 2);
  if( z==0 ) return 1;
  sprintf(z, "%s,%s", zOld, zValue);
  rc = setenv(zVar, z, 1);
  free(z);
  return rc;
}

int cmdTracePython(int argc, char **argv){
  const char *zOut = "python.trace";
  const char *zPython = "python3";
  char zDepth[32];
  int i, nProg;

  unsetenv("TRACESTORE_INCLUDE");
  unsetenv("TRACESTORE_EXCLUDE");
  unsetenv("TRACESTORE_LINES");
  unsetenv("TRACESTORE_SYNC_INTERVAL");
  unsetenv("TRACESTORE_SYNC_LOG");
  for(i=0; i<argc; i++){
    const char *z = argv[i];
    if( strcmp(z, "--sync-interval")==0 || strcmp(z, "--sync-log")==0 ){
      HostSync sync;
      memset(&sync, 0, sizeof(sync));
      if( hostSyncOption(&sync, argc, argv, i)<0 ){
        hostFail("trace-python: %s", sync.zError);
        return 2;
      }
      setenv(z[7]=='i' ? "TRACESTORE_SYNC_INTERVAL" : "TRACESTORE_SYNC_LOG",
             argv[++i], 1);
      continue;
    }
    if( strcmp(z, "--")==0 ){ i++; break; }
    if( strcmp(z, "--help")==0 || strcmp(z, "-h")==0 ){
      tracePythonHelp(stdout);
      return 0;
    }
    if( strcmp(z, "--c-calls")==0 ){ setenv("TRACESTORE_C_CALLS", "1", 1); continue; }
    if( i+1>=argc ){
      hostFail("trace-python: %s: unknown option or missing value", z);
      tracePythonHelp(stderr);
      return 2;
    }
    if( strcmp(z, "-o")==0 ){
      zOut = argv[++i];
    }else if( strcmp(z, "--python")==0 ){
      zPython = argv[++i];
    }else if( strcmp(z, "--include")==0 || strcmp(z, "--exclude")==0 ){
      if( tpAppendEnv(z[2]=='i' ? "TRACESTORE_INCLUDE" : "TRACESTORE_EXCLUDE",
                      argv[++i]) ) return 2;
    }else if( strcmp(z, "--lines")==0 ){
      char *zList = strdup(argv[++i]), *zTok, *zSave = 0;
      int bAny = 0;
      if( zList==0 ) return 2;
      for(zTok=strtok_r(zList, ",", &zSave); zTok; zTok=strtok_r(0, ",", &zSave)){
        if( tpAppendEnv("TRACESTORE_LINES", zTok) ){ free(zList); return 2; }
        bAny = 1;
      }
      free(zList);
      if( !bAny ){
        hostFail("trace-python: --lines: module names, not '%s'", argv[i]);
        return 2;
      }
    }else if( strcmp(z, "--max-depth")==0 ){
      char *zEnd;
      long n = strtol(argv[++i], &zEnd, 10);
      if( *zEnd || n<1 || n>1000000 ){
        hostFail("trace-python: --max-depth: a number from 1, not '%s'", argv[i]);
        return 2;
      }
      snprintf(zDepth, sizeof(zDepth), "%ld", n);
      setenv("TRACESTORE_MAX_DEPTH", zDepth, 1);
    }else{
      hostFail("trace-python: unknown option '%s'", z);
      tracePythonHelp(stderr);
      return 2;
    }
  }
  /* `-- python3 SCRIPT`, `-- /usr/bin/python3.12 -m MOD`: an interpreter
  ** first names the interpreter, as `perf record --` and `py-spy record --`
  ** users type it. */
  if( i<argc && hostIsPythonInterpreter(argv[i]) ){
    zPython = argv[i++];
    if( i<argc && argv[i][0]=='-' && strcmp(argv[i], "-m")!=0 ){
      hostFail("trace-python: %s %s: interpreter options are not passed "
               "on; give the script or -m MODULE after the interpreter",
               zPython, argv[i]);
      return 2;
    }
  }
  nProg = argc - i;
  if( nProg<1 || (strcmp(argv[i], "-m")==0 && nProg<2) ){
    hostFail("trace-python: no program: -- SCRIPT ARGS or -- -m MODULE ARGS");
    tracePythonHelp(stderr);
    return 2;
  }
  setenv("TRACESTORE_OUT", zOut, 1);
  hostPythonBuildTreePath();

  return hostExecPython("trace-python", zPython, zBootstrap, 0, argc - i,
                        argv + i);
}
