/*
** tracestore_duckdb_int.h: what the files of the DuckDB extension share.
**
**   tracestore_duckdb.c       the entry point: the DuckDB API version, the
**                             RTL, the read guard, registration
**   tracestore_duckdb_scan.c  tracestore_scan(): a store as a table
**   tracestore_duckdb_sessions.c  the sessions kept open between queries
**   tracestore_duckdb_rollup.c    tracestore_rollup(): the rollups' answers
**   tracestore_duckdb_args.c      tracestore_event_args(): the args view
**   tracestore_duckdb_views.c tracestore_attach(), the views, their
**                             functions
**   tracestore_duckdb_rows.c  which records a scan reads, and their values
**                             (without DuckDB: tracestore_duckdb_rows.h)
**
** Zone: hosted (the DuckDB extension); included only by the files of
** DuckDbExt/.
*/
#ifndef TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H
#define TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H

#include <duckdb_extension.h>

#include "TraceStore/TraceStore.h"

/* The RTL every session of the extension is opened with (its read-only
** mappings go through the read guard). */
PRTL tsdRtl(void);

/*
** A session the extension keeps open (tracestore_duckdb_sessions.c):
** counted, cached by path between queries, read by one execution at a
** time (bScanning).
*/
typedef struct TsdSession {
  char zPath[TRACE_PATH_SIZE];
  uint64_t iDev, iIno;          /* PATH/session.tracer when opened */
  PTRACE_SESSION pSession;
  int nRef;                     /* Holders: binds and executions */
  int bCached, bStale, bScanning;
  uint64_t iUsed;               /* For eviction */
} TsdSession;

/* The cached session of zPath (a new one if it changed, was marked stale,
** or bPrivate), held once; 0 with *pErr set if it does not open. */
TsdSession *tsdSessionOpen(const char *zPath, int bPrivate,
                           PRTL_ERROR pErr);
/* Lets go of one hold; the last of a private or stale session closes it. */
void tsdSessionRelease(TsdSession *p);
/* The next tsdSessionOpen of its path opens the session afresh. */
void tsdSessionStale(TsdSession *p);
/* Claims p for one execution's reads (and holds it); false if another
** execution has it.  tsdSessionUnclaim gives it back and lets go. */
int tsdSessionClaim(TsdSession *p);
void tsdSessionUnclaim(TsdSession *p);
/* Held around every snapshot, remap and header read of a session. */
void tsdSessionLock(void);
void tsdSessionUnlock(void);

/* Registers tracestore_event_args (tracestore_duckdb_args.c).  0 or -1. */
int tsdRegisterArgs(duckdb_connection con);

/* Registers tracestore_rollup (tracestore_duckdb_rollup.c).  0 or -1. */
int tsdRegisterRollup(duckdb_connection con);

/* True if the rollups answer for pSession: its event stores have this
** version's layouts (tracestore_duckdb_rollup.c). */
int tsdRollupsApply(PTRACE_SESSION pSession);

/* Registers tracestore_scan (tracestore_duckdb_scan.c).  0 or -1. */
int tsdRegisterScan(duckdb_connection con);

/*
** Registers tracestore_attach, the replacement scan, the view macros and
** the views' SQL functions (tracestore_duckdb_views.c).  0; -1 if a
** function could not be registered; 1 if only the macros could not be
** made (a read-only database): zErr says why.
*/
int tsdRegisterViews(duckdb_connection con, duckdb_database db, char *zErr,
                     int nErr);

#endif /* TRACER_DUCKDBEXT_TRACESTORE_DUCKDB_INT_H */
