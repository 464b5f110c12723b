/*
** tracestore_duckdb_sessions.c: the sessions the DuckDB extension keeps
** open between queries.
**
** Zone: hosted (the DuckDB extension): libc, POSIX stat and pthreads;
** opens sessions only through TraceStore/TraceStore.h; included by
** nothing.
** Owns: the cache of open sessions, the lock under which their stores are
** snapshotted, and the claim that lets one execution at a time read a
** cached session.
** Calls: the session API.  Called by tracestore_duckdb_scan.c; declared in
** tracestore_duckdb_int.h.
**
** Why: a session opened anew for each query maps its files anew, and the
** first read of every page of a new mapping is a page fault (a 10^8-row
** store is 1.4 million pages, a quarter of a GROUP BY's time).  A session
** kept open keeps its page tables.
**
** How it works:
**
**   tsdSessionOpen(PATH) hands out the cached session of PATH, counted,
**   if PATH/session.tracer is still the file it was opened from (same
**   device and inode) and it was not marked stale; else it opens the
**   session and caches it, closing the least recently used one that no
**   query holds (TSD_SESSIONS at most; past that, the new one is private,
**   closed when its last holder lets go).  A query that misses a store in
**   a cached session marks it stale (a live session may have created the
**   store since) and opens it afresh.
**
**   A snapshot may remap a store (a live session grows past its mapping),
**   so two executions must not read one session while either snapshots
**   it.  An execution claims the session (tsdSessionClaim) for as long as
**   it reads it; one that finds it claimed opens a private copy.  Every
**   snapshot, remap and read of a header happens under tsdSessionLock().
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tracestore_duckdb_int.h"

/* Sessions kept open at once. */
#define TSD_SESSIONS 16

static TsdSession *apCache[TSD_SESSIONS];
static uint64_t nUse;
static pthread_mutex_t sessionMutex = PTHREAD_MUTEX_INITIALIZER;

void tsdSessionLock(void){ pthread_mutex_lock(&sessionMutex); }
void tsdSessionUnlock(void){ pthread_mutex_unlock(&sessionMutex); }

/* The identity of PATH/session.tracer; 0 if it cannot be read. */
static int tsdIdentity(const char *zPath, uint64_t *piDev, uint64_t *piIno){
  char zFile[TRACE_PATH_SIZE + 32];
  struct stat st;
  snprintf(zFile, sizeof(zFile), "%s/session.tracer", zPath);
  if( stat(zFile, &st)!=0 ) return 0;
  *piDev = (uint64_t)st.st_dev;
  *piIno = (uint64_t)st.st_ino;
  return 1;
}

static void tsdSessionFree(TsdSession *p){
  TraceSessionClose(p->pSession);
  free(p->pSession);
  free(p);
}

TsdSession *tsdSessionOpen(const char *zPath, int bPrivate,
                           PRTL_ERROR pErr){
  TsdSession *p = 0;
  uint64_t iDev = 0, iIno = 0;
  int i, bIdentity;

  if( strlen(zPath)>=TRACE_PATH_SIZE ){
    snprintf(pErr->Message, sizeof(pErr->Message), "%.400s...: the path is "
             "too long", zPath);
    return 0;
  }
  bIdentity = tsdIdentity(zPath, &iDev, &iIno);
  tsdSessionLock();
  for(i=0; !bPrivate && bIdentity && i<TSD_SESSIONS; i++){
    TsdSession *c = apCache[i];
    if( c && !c->bStale && strcmp(c->zPath, zPath)==0 && c->iDev==iDev
     && c->iIno==iIno ){
      c->nRef++;
      c->iUsed = ++nUse;
      tsdSessionUnlock();
      return c;
    }
  }
  tsdSessionUnlock();

  p = calloc(1, sizeof(TsdSession));
  if( p==0 || (p->pSession = calloc(1, sizeof(TRACE_SESSION)))==0 ){
    free(p);
    snprintf(pErr->Message, sizeof(pErr->Message), "out of memory");
    return 0;
  }
  if( tsdRtl()==0 || !RTL_SUCCESS(TraceSessionOpenReader(tsdRtl(), zPath,
                                                         p->pSession,
                                                         pErr)) ){
    free(p->pSession);
    free(p);
    return 0;
  }
  memcpy(p->zPath, zPath, strlen(zPath) + 1);
  p->iDev = iDev;
  p->iIno = iIno;
  p->nRef = 1;
  if( bPrivate || !bIdentity ) return p;

  /* Cache it, in a free slot or in place of the least recently used one
  ** no query holds. */
  tsdSessionLock();
  {
    int iSlot = -1;
    for(i=0; i<TSD_SESSIONS; i++){
      TsdSession *c = apCache[i];
      if( c==0 ){ iSlot = i; break; }
      if( c->nRef==0 && (iSlot<0 || c->iUsed<apCache[iSlot]->iUsed) ){
        iSlot = i;
      }
    }
    if( iSlot>=0 ){
      TsdSession *pOld = apCache[iSlot];
      apCache[iSlot] = p;
      p->bCached = 1;
      p->iUsed = ++nUse;
      if( pOld ) tsdSessionFree(pOld);    /* nRef==0 */
    }
  }
  tsdSessionUnlock();
  return p;
}

void tsdSessionRelease(TsdSession *p){
  int bFree;
  if( p==0 ) return;
  tsdSessionLock();
  p->nRef--;
  bFree = p->nRef==0 && (!p->bCached || p->bStale);
  if( bFree && p->bCached ){
    int i;
    for(i=0; i<TSD_SESSIONS; i++){
      if( apCache[i]==p ) apCache[i] = 0;
    }
  }
  tsdSessionUnlock();
  if( bFree ) tsdSessionFree(p);
}

void tsdSessionStale(TsdSession *p){
  tsdSessionLock();
  p->bStale = 1;
  tsdSessionUnlock();
}

int tsdSessionClaim(TsdSession *p){
  int bOk;
  tsdSessionLock();
  bOk = !p->bScanning;
  if( bOk ){
    p->bScanning = 1;
    p->nRef++;
  }
  tsdSessionUnlock();
  return bOk;
}

void tsdSessionUnclaim(TsdSession *p){
  tsdSessionLock();
  p->bScanning = 0;
  tsdSessionUnlock();
  tsdSessionRelease(p);
}
