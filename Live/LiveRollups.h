/*
** LiveRollups.h: a thread that folds a writer's commits into the session's
** rollups (LiveRollups.c), so that the thread that decodes and appends
** pays nothing for them.
**
** Zone: hosted (the live recorders): libc, pthreads.  Used by the
** recorder (Record.c) and the command line's import (CmdImport.c); the
** Python tracer folds on its own committer thread instead.
*/
#ifndef TRACER_LIVE_ROLLUPS_H
#define TRACER_LIVE_ROLLUPS_H

#include "TraceStore/TraceStore.h"

typedef struct LiveRollups LiveRollups;

/*
** Starts the thread for pSession, a session open for writing, and sets
** its RollupsElsewhere: from then on each few milliseconds the thread
** folds what the writer has committed (TraceSessionUpdateRollups).
** Returns NULL (the session then folds at each commit, on the writer's
** thread) if no thread can be started.
*/
LiveRollups *liveRollupsStart(PTRACE_SESSION pSession);

/*
** Stops the thread and waits for it; call before TraceSessionClose, which
** folds what is left.  Takes NULL.
*/
void liveRollupsStop(LiveRollups *p);

#endif /* TRACER_LIVE_ROLLUPS_H */
