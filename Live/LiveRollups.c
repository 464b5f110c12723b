/*
** LiveRollups.c: the thread that folds a writer's commits into the
** session's rollups (LiveRollups.h).
**
** Zone: hosted (the live recorders): libc, pthreads.  Calls the store API
** (TraceSessionUpdateRollups) on its thread, which TraceStore.h allows
** for one thread at a time alongside the writer's: the fold reads the
** committed records and strings through read-only mappings of its own.
**
** Every LIVE_ROLLUPS_NS it folds the records committed since, and so
** publishes the rollups as often as they ask (a quarter second): a reader
** folds at most that much of a store past them.  An import of a few
** million events a second runs as fast as without rollups where a second
** core is free (docs/benchmarks-history.md, "Rollups").
*/
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "Live/LiveRollups.h"

#define LIVE_ROLLUPS_NS (5L * 1000 * 1000)

struct LiveRollups {
  PTRACE_SESSION pSession;
  pthread_t thread;
  pthread_mutex_t mutex;
  pthread_cond_t cond;
  int bStop;
};

static void *liveRollupsMain(void *pArg){
  LiveRollups *p = (LiveRollups*)pArg;
  pthread_mutex_lock(&p->mutex);
  while( !p->bStop ){
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += LIVE_ROLLUPS_NS;
    if( until.tv_nsec>=1000000000L ){
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&p->cond, &p->mutex, &until);
    if( p->bStop ) break;
    pthread_mutex_unlock(&p->mutex);
    TraceSessionUpdateRollups(p->pSession, FALSE);
    pthread_mutex_lock(&p->mutex);
  }
  pthread_mutex_unlock(&p->mutex);
  return 0;
}

LiveRollups *liveRollupsStart(PTRACE_SESSION pSession){
  LiveRollups *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  p->pSession = pSession;
  pthread_mutex_init(&p->mutex, 0);
  pthread_cond_init(&p->cond, 0);
  pSession->RollupsElsewhere = TRUE;
  if( pthread_create(&p->thread, 0, liveRollupsMain, p)!=0 ){
    pSession->RollupsElsewhere = FALSE;
    pthread_mutex_destroy(&p->mutex);
    pthread_cond_destroy(&p->cond);
    free(p);
    return 0;
  }
  return p;
}

void liveRollupsStop(LiveRollups *p){
  if( p==0 ) return;
  pthread_mutex_lock(&p->mutex);
  p->bStop = 1;
  pthread_cond_signal(&p->cond);
  pthread_mutex_unlock(&p->mutex);
  pthread_join(p->thread, 0);
  pthread_mutex_destroy(&p->mutex);
  pthread_cond_destroy(&p->cond);
  free(p);
}
