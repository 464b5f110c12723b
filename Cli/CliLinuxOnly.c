/*
** CliLinuxOnly.c: on Windows, the parts of the command that exist on
** Linux only, each saying so and failing: `record` (tracefs, ptrace),
** `trace-python` and `script` (their CPython modules are built for Linux
** CPython), `push`
** (its HTTP client speaks BSD sockets, not Winsock), `plot` (cairo) and
** `top` (a POSIX terminal), `sql --engine duckdb` (the DuckDB pinned is
** Linux's); and the zstd decompressor, which the Windows
** build has none of (a zstd-compressed trace.dat is then refused by the
** reader with the message for TRACE_IMPORT.Zstd == NULL).
**
** Zone: hosted (the command-line front end): libc.  Linked instead of
** Cli/CmdRecord.c, Cli/CmdTracePython.c, Outputs/Push/, Outputs/Plot/,
** Outputs/Script/, Host/HostPython.c, Cli/SqlDuckDb.c,
** Outputs/Top/ and Host/TraceZstd.c in the Windows build; calls
** Host/HostUtil.c (hostFail).
*/
#include "Cli/Cli.h"
#include "Outputs/Outputs.h"
#include "Host/TraceZstd.h"

int cmdRecord(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("record: live recording needs Linux tracefs; not available on "
          "Windows (import a recorded trace instead)");
  return 1;
}

int cmdTracePython(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("trace-python: the Python tracer is built for Linux CPython; not "
          "available on Windows");
  return 1;
}

int cmdScript(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("script: the tracestore_script module is built for Linux "
           "CPython; not available on Windows");
  return 1;
}

int cmdPush(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("push: not available in the Windows build yet (its HTTP client "
          "uses BSD sockets); push the session from Linux");
  return 1;
}

int sqlRunDuckDb(const char *zSession, const char *zSql, const char *zSource,
                 SqlMode eMode){
  (void)zSession;
  (void)zSql;
  (void)zSource;
  (void)eMode;
  hostFail("sql --engine duckdb: not available in the Windows build (the "
           "DuckDB it is built against is Linux's); use --engine sqlite");
  return 1;
}

int cmdPlot(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("plot: drawing needs cairo; not available in the Windows build "
          "(run tracestore plot on Linux)");
  return 1;
}

int cmdTop(int argc, char **argv){
  (void)argc;
  (void)argv;
  hostFail("top: the live view needs a POSIX terminal; not available in the "
          "Windows build (tracestore sql reads the same views)");
  return 1;
}

PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void){
  return 0;
}
