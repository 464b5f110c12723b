/*
** tracestore_guard.h: what the extension uses of tracestore_guard.c, the
** SIGBUS guard for store files cut while a statement reads them (see the
** header comment there).
**
** Zone: hosted (the SQLite extension); included only by the files of
** Sqlite3Ext/.
*/
#ifndef TRACER_SQLITE3EXT_TRACESTORE_GUARD_H
#define TRACER_SQLITE3EXT_TRACESTORE_GUARD_H

#include "TraceStore/TraceStore.h"

/*
** Routes Rtl's read-only file mappings through the guard's table and
** installs the SIGBUS handler.  Called once per process, before Rtl maps
** anything.
*/
void tsGuardInstall(PRTL Rtl);

/*
** Faults the guard has caught so far in this process.  Read after each
** read of a mapping, so inline: the signal fence keeps the compiler from
** moving the load above the read that may have faulted (the handler runs
** on the reading thread).
*/
extern unsigned int tsGuardFaultCount;
static inline unsigned int tsGuardFaults(void){
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(&tsGuardFaultCount, __ATOMIC_RELAXED);
}

/* True if a fault replaced pages of pStore's mapping by zeros. */
int tsGuardDamaged(const TRACE_STORE *pStore);

#endif /* TRACER_SQLITE3EXT_TRACESTORE_GUARD_H */
