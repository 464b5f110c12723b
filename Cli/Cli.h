/*
** Cli.h: the commands of `tracestore` that read inputs and sessions.
**
** Zone: hosted (the command-line front end): libc, pthreads, SQLite's API.
** The top room: Main.c dispatches each command to its file here (one file
** a command: CmdImport.c, CmdRecord.c, CmdTracePython.c, CmdInfo.c,
** CmdSql.c with SqlDuckDb.c, CmdSchema.c, CmdKvmtraceFormat.c) or to an
** output's
** (Outputs/Outputs.h: export, plot, push, top).  Reaches inputs through
** the format table (Readers/TraceFormats.h), the recorders through
** Live/, SQL through the extension's public header
** (Sqlite3Ext/tracestore.h), and the process's services through
** Host/Host.h.  Nothing includes this header but the files of Cli/.
*/
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

#include "Host/Host.h"

/* The commands: argc/argv after the command name; the exit status. */
int cmdImport(int argc, char **argv);
int cmdRecord(int argc, char **argv);
int cmdTracePython(int argc, char **argv);
int cmdInfo(int argc, char **argv);
int cmdSql(int argc, char **argv);
int cmdSchema(int argc, char **argv);
int cmdKvmtraceFormat(int argc, char **argv);

/* How `tracestore sql` prints rows (CmdSql.c), for either engine. */
typedef enum SqlMode { SQL_MODE_TABLE, SQL_MODE_CSV, SQL_MODE_JSON } SqlMode;

/*
** Prints one statement's rows, buffered: azCell[r*nCol + c] (NULL for
** NULL); abNumber[c] true if column c's values print as JSON numbers.
** *pbTable as runStatement() keeps it (a blank line between tables).
*/
void sqlPrintRows(SqlMode eMode, int nCol, const char *const *azName,
                  int nRow, char **azCell, const int *abNumber,
                  int *pbTable);

/* Reports an error of statement iStmt starting at zStmt in zSql. */
void sqlStatementError(const char *zSource, const char *zSql,
                       const char *zStmt, int iStmt, const char *zMsg);

/* `tracestore sql --engine duckdb` (SqlDuckDb.c): the exit status. */
int sqlRunDuckDb(const char *zSession, const char *zSql, const char *zSource,
                 SqlMode eMode);

#endif /* TRACER_CLI_H */
