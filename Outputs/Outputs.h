/*
** Outputs.h: the commands of the outputs, what turns a session into
** something else: a Chrome trace (Export/), a picture (Plot/), rows on a
** ClickHouse server (Push/), a live terminal view (Top/), a perf Python
** script's output (Script/).
**
** Zone: hosted: libc, pthreads, SQLite's API.  Each output is a room of
** its own under Outputs/, with its command's file (Cmd*.c) and what it
** needs; none includes another.  Called by Cli/Main.c only; they reach
** sessions through TraceStore/ or SQL (Sqlite3Ext/tracestore.h) and the
** process's services through Host/Host.h.
*/
#ifndef TRACER_OUTPUTS_H
#define TRACER_OUTPUTS_H

/* The commands: argc/argv after the command name; the exit status. */
int cmdExport(int argc, char **argv);
int cmdPlot(int argc, char **argv);
int cmdPush(int argc, char **argv);
int cmdTop(int argc, char **argv);
int cmdScript(int argc, char **argv);

#endif /* TRACER_OUTPUTS_H */
