/*
** Host.h: the services of the hosted process that the command, its outputs
** and the live recorders share (HostUtil.c, Workers.c, HostPortPosix.c or
** HostPortWindows.c).
**
** Zone: hosted (libc, pthreads).  Below the command (Cli/), the outputs
** (Outputs/) and the recorders (Live/); above the core, which it reaches
** through Rtl/Rtl.h, TraceStore/TraceStore.h and the import engine's
** TRACE_WORKER (Readers/Import/TraceImport.h).  Includes nothing above it.
*/
#ifndef TRACER_HOST_H
#define TRACER_HOST_H

#include <stdarg.h>
#include <stddef.h>

#include "Readers/Import/TraceImport.h"

/* The RTL of the process (HostUtil.c), filled in by main() (Main.c). */
extern RTL Rtl;

/* Prints "tracestore: " and the message, with a newline, to stderr. */
void hostFail(const char *zFormat, ...) __attribute__((format(printf, 1, 2)));

/* The same with another prefix ("tracestore record"): "zWho: message". */
void hostFailV(const char *zWho, const char *zFormat, va_list ap)
  __attribute__((format(printf, 2, 0)));

/* CLOCK_MONOTONIC in seconds. */
double hostNowSeconds(void);

/* Allocates a TRACE_SESSION (large) or exits. */
PTRACE_SESSION hostNewSession(void);

/*
** Opens session zSession for reading (TraceSessionOpenReader) into a new
** TRACE_SESSION; on failure prints the reason (after "zWho: " when zWho is
** not NULL), frees it and returns NULL.  Close with TraceSessionClose,
** then free().
*/
PTRACE_SESSION hostOpenSession(const char *zSession, const char *zWho);

/*
** A new in-memory SQLite database with the tracestore extension loaded
** and session zSession attached (SELECT tracestore_attach(zSession)), or
** NULL after printing why.  Close with sqlite3_close().
*/
struct sqlite3;
struct sqlite3 *hostOpenSql(const char *zSession);

/*
** HostPython.c (Linux): for the commands that exec a Python interpreter
** with a bootstrap program (-c).  hostExeDir: the directory of this
** executable (0, or 1 if unknown).  hostPythonBuildTreePath: when the
** command runs from a build tree, its python/X.Y/ module directories
** first on PYTHONPATH (the old value kept for the bootstrap to restore).
** hostExecPython: execs zPython -c PROGRAM [zFirst] azArg..., PROGRAM
** being zBootstrap after the definition of _tracestore_restore_path(),
** which puts sys.path and PYTHONPATH back as the program would see them
** (call it once the modules are imported); returns only on failure, after
** printing "zWho: PYTHON: reason" (127).
** hostIsPythonInterpreter: python, python3, python3.12 (a path's last
** part).
*/
int hostExeDir(char *zDir, size_t nDir);
void hostPythonBuildTreePath(void);
int hostExecPython(const char *zWho, const char *zPython,
                   const char *zBootstrap, const char *zFirst, int nArg,
                   char **azArg);
int hostIsPythonInterpreter(const char *zArg);

/* Whether a writer holds SESSION's lock (a recording is running); in
** HostPortPosix.c: Linux only, as its callers (plot, push) are. */
int hostWriterRuns(const char *zSession);

/*
** The machine this process runs on (host name, or zTag if not NULL; boot
** id; kernel release), for TraceSessionSetHost.
*/
void hostGatherHost(const char *zTag, PTRACE_SESSION_HOST pHost);

/*
** Reads all of file zFile ("-": standard input) into a buffer from malloc()
** with a NUL after the *pn bytes read.  Returns NULL, with errno set, on
** failure.
*/
char *hostReadText(const char *zFile, size_t *pn);

/*
** Prints z[0..n) (or NUL-terminated z) as a JSON string: quote, backslash
** and control characters escaped, well-formed UTF-8 copied, each other byte
** replaced by U+FFFD.
*/
void hostJsonText(const unsigned char *z, int n);
/* The same escaping into zOut (room for 6*n bytes), no quotes: the bytes
** written. */
size_t hostJsonEscape(char *zOut, const unsigned char *z, size_t n);
void hostJsonString(const char *z);

/*
** Workers.c: starts the pre-fault and write-back threads behind
** Rtl.PrefaultMemoryAsync and Rtl.WriteBackAsync (a writer calls it before
** opening a session), and the TRACE_WORKER a reader's import jobs run on.
*/
void hostStartWorkers(void);
extern const TRACE_WORKER hostImportWorker;

#endif /* TRACER_HOST_H */
