/*
** Record.h: the live recorder's interface (Record.c): record tracefs
** events into a session until a stop condition.
**
** Zone: hosted (the live recorders): libc, pthreads, the kernel's tracefs
** and perf_event files.  Calls the core through TraceStore/ and
** Readers/Import, Readers/Decoders/Ftrace, and the process's services
** through Host/; never includes Cli/ or Outputs/.  The
** command line (Cli/CmdRecord.c) owns the command line and the
** usage text, fills in a RecordOptions and calls recordRun().
*/
#ifndef TRACER_RECORD_H
#define TRACER_RECORD_H

#include "Host/HostSync.h"
#include "TraceStore/TraceStore.h"

typedef struct RecordOptions RecordOptions;
struct RecordOptions {
  const char *const *azSpec;    /* -e SYSTEM[:EVENT] (EVENT a glob), nSpec */
  const char *const *azFilter;  /* -f FILTER of each azSpec[i], or NULL */
  int nSpec;                    /* at least 1 */
  const char *zOut;             /* the session */
  long iPid;                    /* -p PID, or 0 */
  char **azCmd;                 /* -- COMMAND ARGS (NULL-ended), or NULL */
  double rDuration;             /* --duration SEC, or 0 */
  unsigned long long mxBytes;   /* --max-size BYTES, or 0 */
  long nBufferKb;               /* -b KB: ring buffer per CPU */
  const TRACE_SESSION_HOST *pHost;  /* this machine (or --host), or NULL */
  HostSync *pSync;              /* --sync-interval, --sync-log (started) */
  /*
  ** Prints one error line ("tracestore record: " and the message) to
  ** stderr.  The caller supplies it, so that the wording of errors is the
  ** command line's (one copy, Host/HostUtil.c) without an arrow from
  ** Live back to the CLI.
  */
  void (*xFail)(const char *zFormat, ...) __attribute__((format(printf,1,2)));
};

/*
** Records until the command exits, a signal (SIGINT, SIGTERM), the
** duration or the size.  Prints progress and a summary to stderr.
** Returns the exit status: 0, or 1 after an error (what was recorded
** before it stays committed).
*/
int recordRun(PRTL pRtl, const RecordOptions *pOpts);

#endif /* TRACER_RECORD_H */
