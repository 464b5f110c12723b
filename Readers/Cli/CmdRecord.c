/*
** CmdRecord.c: `tracestore record`: live capture from tracefs into a session
** (the recorder is Readers/Record.c).
**
** Zone: hosted (the command-line front end): libc, pthreads, SQLite's API.
** Reaches sessions and inputs through the core's APIs (Readers/TraceImport.h,
** TraceStore/TraceStore.h) and SQL through the extension's public header
** (Sqlite3Ext/tracestore.h) only.
*/
#include "Cli.h"
#include "Readers/Live/Record.h"

int cmdRecord(int argc, char **argv){
  cliStartWorkers();
  return tracestoreRecord(&Rtl, argc, argv);
}
