/*
** HostSync.h: the writers' durability options, --sync-interval SECONDS and
** --sync-log FILE (import, record, trace-python), and the log each sync
** writes (HostSync.c; docs/durability.md).
**
** Zone: hosted (Host/, the process's services): libc only; the session
** through the store API.  Used by import and record (Cli/, Live/) and by
** the Python tracer (Live/Python/).
*/
#ifndef TRACER_HOST_SYNC_H
#define TRACER_HOST_SYNC_H

#include <stdio.h>

#include "TraceStore/TraceStore.h"

typedef struct HostSync {
  PRTL pRtl;
  double rInterval;       /* --sync-interval, seconds; 0: open and close only */
  const char *zLog;       /* --sync-log FILE, or 0 */
  FILE *pLog;
  /* Records of each store already in the log, by name. */
  unsigned nLogged;
  char azName[TRACE_DURABLE_MAX_ENTRIES][TRACE_NAME_SIZE];
  unsigned long long anLogged[TRACE_DURABLE_MAX_ENTRIES];
  char zPending[8192];    /* hostSyncBeforeClose's line, less its sequence */
  char zError[256];       /* why hostSyncOption or hostSyncStart failed */
} HostSync;

/* The options' help lines, for each writer's --help. */
void hostSyncHelp(FILE *out, const char *zDefault);

/*
** If argv[i] is a sync option, takes it and its value (argv[i+1]) into p
** and returns 2 (the arguments used), or -1 for a bad value (p->zError
** says why); 0 if it is no sync option.
*/
int hostSyncOption(HostSync *p, int argc, char **argv, int i);

/* Opens the log, if any.  Returns 0, or 1 (p->zError says why). */
int hostSyncStart(HostSync *p, PRTL pRtl);

/*
** Logs the sync that just wrote pSession's Durable table: one line,
**   sync SEQ STORE=FROM-TO:HASH ...
** for each store whose durable count grew, HASH the XXH3-64 (16 hex
** digits) of records [FROM, TO) as the writer's mapping holds them.  The
** log is what a power-cut test checks the session against
** (Tests/PowerLoss/).  Its signature is TRACE_IMPORT_SYNCED.
*/
void hostSyncLogged(void *pCtx, PTRACE_SESSION pSession);

/*
** The writer's close syncs too, but unmaps the stores: hostSyncBeforeClose
** hashes the committed records the log lacks while they are mapped, and
** hostSyncAfterClose logs them with the close's sequence (if the close
** wrote session.durable), and closes the log (pSession NULL: only that).
*/
void hostSyncBeforeClose(HostSync *p, PTRACE_SESSION pSession);
void hostSyncAfterClose(HostSync *p, PTRACE_SESSION pSession);

#endif /* TRACER_HOST_SYNC_H */
