/*
** CliLinuxOnly.c: on Windows, the parts of the command that exist on
** Linux only: `record` (tracefs, ptrace), `trace-python` (the CPython
** module is built for Linux CPython), `push` (its HTTP client speaks BSD
** sockets, not Winsock) and `plot` (cairo), which say so
** and fail, `top` (a POSIX terminal) likewise, and the zstd decompressor, which the Windows build has none
** of (a zstd-compressed trace.dat is then refused by the reader with the
** message for TRACE_IMPORT.Zstd == NULL).
**
** Zone: hosted (the command-line front end): libc.  Linked instead of
** CmdRecord.c, CmdTracePython.c, CmdPush.c + HttpClient.c, CmdPlot.c,
** CmdTop.c and TraceZstd.c in the Windows build; calls
** CliUtil.c (cliFail).
*/
#include "Cli.h"
#include "TraceZstd.h"

int cmdRecord(int argc, char **argv){
  (void)argc;
  (void)argv;
  cliFail("record: live recording needs Linux tracefs; not available on "
          "Windows (import a recorded trace instead)");
  return 1;
}

int cmdTracePython(int argc, char **argv){
  (void)argc;
  (void)argv;
  cliFail("trace-python: the Python tracer is built for Linux CPython; not "
          "available on Windows");
  return 1;
}

int cmdPush(int argc, char **argv){
  (void)argc;
  (void)argv;
  cliFail("push: not available in the Windows build yet (its HTTP client "
          "uses BSD sockets); push the session from Linux");
  return 1;
}

int cmdPlot(int argc, char **argv){
  (void)argc;
  (void)argv;
  cliFail("plot: drawing needs cairo; not available in the Windows build "
          "(run tracestore plot on Linux)");
  return 1;
}

int cmdTop(int argc, char **argv){
  (void)argc;
  (void)argv;
  cliFail("top: the live view needs a POSIX terminal; not available in the "
          "Windows build (tracestore sql reads the same views)");
  return 1;
}

PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void){
  return 0;
}
