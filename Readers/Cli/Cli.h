/*
** Cli.h: what the files of the `tracestore` command share.
**
** Zone: hosted (the command-line front end): libc, pthreads, SQLite's API.
** Reaches sessions and inputs through the core's APIs
** (Readers/Shared/TraceImport.h, TraceStore/TraceStore.h), the live
** recorder through Readers/Live/Record.h, and SQL through the extension's
** public header (Sqlite3Ext/tracestore.h) only.
**
** One file per command (CmdImport.c, CmdRecord.c, CmdInfo.c, CmdSql.c,
** CmdSchema.c, CmdKvmtraceFormat.c, CmdPlot.c with its renderer in
** Plot/, CmdExport.c with its writer ExportChrome.c, CmdPush.c with its
** HTTP client HttpClient.c, CmdTracePython.c, CmdTop.c), Main.c for the
** dispatch, CliUtil.c
** for the small helpers below, Workers.c for the threads the core's
** asynchronous RTL routines and reader jobs run on.  Arrows: Main.c ->
** Cmd*.c -> CliUtil.c, Workers.c.
*/
#ifndef TRACER_CLI_H
#define TRACER_CLI_H

#include <stdarg.h>
#include <stddef.h>

#include "Readers/Shared/TraceImport.h"

/* The RTL of the process (CliUtil.c), filled in by main() (Main.c). */
extern RTL Rtl;

/* Prints "tracestore: " and the message, with a newline, to stderr. */
void cliFail(const char *zFormat, ...) __attribute__((format(printf, 1, 2)));

/* The same with another prefix ("tracestore record"): "zWho: message". */
void cliFailV(const char *zWho, const char *zFormat, va_list ap)
  __attribute__((format(printf, 2, 0)));

/* CLOCK_MONOTONIC in seconds. */
double cliNowSeconds(void);

/* Allocates a TRACE_SESSION (large) or exits. */
PTRACE_SESSION cliNewSession(void);

/* Whether a writer holds SESSION's lock (a recording is running); in
** CliPortPosix.c: Linux only, as its callers (plot, push) are. */
int cliWriterRuns(const char *zSession);

/*
** The machine this process runs on (host name, or zTag if not NULL; boot
** id; kernel release), for TraceSessionSetHost.
*/
void cliGatherHost(const char *zTag, PTRACE_SESSION_HOST pHost);

/*
** Reads all of file zFile ("-": standard input) into a buffer from malloc()
** with a NUL after the *pn bytes read.  Returns NULL, with errno set, on
** failure.
*/
char *cliReadText(const char *zFile, size_t *pn);

/*
** Prints z[0..n) (or NUL-terminated z) as a JSON string: quote, backslash
** and control characters escaped, well-formed UTF-8 copied, each other byte
** replaced by U+FFFD.
*/
void cliJsonText(const unsigned char *z, int n);
/* The same escaping into zOut (room for 6*n bytes), no quotes: the bytes
** written. */
size_t cliJsonEscape(char *zOut, const unsigned char *z, size_t n);
void cliJsonString(const char *z);

/*
** Workers.c: starts the pre-fault and write-back threads behind
** Rtl.PrefaultMemoryAsync and Rtl.WriteBackAsync (a writer calls it before
** opening a session), and the TRACE_WORKER a reader's import jobs run on.
*/
void cliStartWorkers(void);
extern const TRACE_WORKER cliImportWorker;

/* The commands: argc/argv after the command name; the exit status. */
int cmdImport(int argc, char **argv);
int cmdRecord(int argc, char **argv);
int cmdInfo(int argc, char **argv);
int cmdSql(int argc, char **argv);
int cmdSchema(int argc, char **argv);
int cmdKvmtraceFormat(int argc, char **argv);
int cmdPlot(int argc, char **argv);
int cmdExport(int argc, char **argv);
int cmdTracePython(int argc, char **argv);
int cmdPush(int argc, char **argv);
int cmdTop(int argc, char **argv);

#endif /* TRACER_CLI_H */
