/*
** Main.c: the `tracestore` command: main(), the top-level usage, and the
** dispatch to one file per command (Cmd*.c).
**
** Zone: hosted (the command-line front end): libc.  Owns main() and the
** command table; calls InitializeRtl (Rtl/) for the process's RTL, the
** cmdX routines, and hostFail (HostUtil.c).  Nothing calls back up here.
**
** Usage:
**   tracestore import [--format F] -o SESSION FILE...
**   tracestore record [-e SYSTEM[:EVENT]]... -o SESSION [-- COMMAND...]
**   tracestore info [--json] SESSION
**   tracestore sql [-c|--csv|--json] SESSION ["SQL" | -f FILE | - < FILE]
**   tracestore kvmtrace-format FORMATS [-c MHZ] < BINARY
**   tracestore schema [--markdown]
**   tracestore plot [-p RE] [-m RE] [-c process|module|thread] ... -o OUT SESSION
**   tracestore export [-o FILE] [--from T] [--to T] [--window kvm] SESSION
**   tracestore trace-python [-o SESSION] [OPTIONS] -- SCRIPT ARGS | -m MODULE ARGS
**   tracestore push [--follow] SESSION http://HOST:PORT/[?database=DB]
**   tracestore script -s SCRIPT.py SESSION [ARGS]
**
** Decoding and appending happen in the CRT-free core (Readers/, TraceStore/)
** through the RTL; the command files parse arguments and print.
*/
#include <stdio.h>
#include <string.h>

#include "Cli/Cli.h"
#include "Outputs/Outputs.h"
#include "Host/HostPort.h"

static const char zMainHelp[] =
"usage: tracestore COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  import -o SESSION FILE...   decode traces into a session\n"
"  record [-e EVENT]... -o SESSION [-- COMMAND...]\n"
"                              record tracefs events live into a session\n"
"                              (Linux only)\n"
"  info [--json] SESSION       list a session's stores\n"
"  sql [--csv|--json] SESSION \"SQL\"\n"
"                              query a session in SQL (or -f FILE, stdin)\n"
"  kvmtrace-format FORMATS [-c MHZ] < BINARY\n"
"                              print a kvmtrace stream as the seed's rules do\n"
"  schema [--markdown]         the SQL tables, views and functions (docs/schema.md)\n"
"  plot [-p RE] [-m RE] [-c process|module|thread] -o OUT SESSION\n"
"                              draw page faults per module (PNG, SVG, PDF)\n"
"                              (Linux build only: cairo)\n"
"  export [-o FILE] SESSION    the session as one Chrome/Perfetto JSON timeline\n"
"  trace-python [-o SESSION] -- SCRIPT ARGS | -- -m MODULE ARGS\n"
"                              run a Python program, every call into span, live\n"
"                              (Linux only)\n"
"  push [--follow] SESSION URL stream the session into ClickHouse, exactly once\n"
"                              (Linux only)\n"
"  top [--once] SESSION        a live view of a session: events, functions,\n"
"                              faults, exit reasons (Linux only)\n"
"  script -s SCRIPT.py SESSION [ARGS]\n"
"                              run a perf Python script over the session's\n"
"                              events (Linux only)\n"
"\n"
"`tracestore COMMAND --help` describes each command.  In sqlite3, the\n"
"same tables are available with .load tracestore and\n"
"SELECT tracestore_attach('SESSION').\n";

int main(int argc, char **argv){
  hostPortInit();
  InitializeRtl(&Rtl);
  if( argc<2 ){
    fputs(zMainHelp, stderr);
    return 2;
  }
  if( strcmp(argv[1], "--help")==0 || strcmp(argv[1], "-h")==0
   || strcmp(argv[1], "help")==0 ){
    fputs(zMainHelp, stdout);
    return 0;
  }
  if( strcmp(argv[1], "import")==0 ) return cmdImport(argc-2, argv+2);
  if( strcmp(argv[1], "info")==0 ) return cmdInfo(argc-2, argv+2);
  if( strcmp(argv[1], "sql")==0 ) return cmdSql(argc-2, argv+2);
  if( strcmp(argv[1], "record")==0 ) return cmdRecord(argc-2, argv+2);
  if( strcmp(argv[1], "export")==0 ) return cmdExport(argc-2, argv+2);
  if( strcmp(argv[1], "push")==0 ) return cmdPush(argc-2, argv+2);
  if( strcmp(argv[1], "schema")==0 ) return cmdSchema(argc-2, argv+2);
  if( strcmp(argv[1], "plot")==0 ) return cmdPlot(argc-2, argv+2);
  if( strcmp(argv[1], "top")==0 ) return cmdTop(argc-2, argv+2);
  if( strcmp(argv[1], "script")==0 ) return cmdScript(argc-2, argv+2);
  if( strcmp(argv[1], "trace-python")==0 ){
    return cmdTracePython(argc-2, argv+2);
  }
  if( strcmp(argv[1], "kvmtrace-format")==0 ){
    return cmdKvmtraceFormat(argc-2, argv+2);
  }
  hostFail("unknown command '%s'", argv[1]);
  fputs(zMainHelp, stderr);
  return 2;
}
