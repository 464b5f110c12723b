/*
** StoreGuard.h: the SIGBUS guard for store files cut while a query reads
** them (StoreGuard.c; see the header comment there), as the SQLite and
** DuckDB extensions use it.
**
** Zone: hosted (the read guard); included by Sqlite3Ext/ and DuckDbExt/.
*/
#ifndef TRACER_GUARD_STOREGUARD_H
#define TRACER_GUARD_STOREGUARD_H

#include "TraceStore/TraceStore.h"

/*
** Routes Rtl's read-only file mappings through the guard's table and
** installs the SIGBUS handler.  Called once per process, before Rtl maps
** anything.
*/
void storeGuardInstall(PRTL Rtl);

/*
** Faults the guard has caught so far in this process.  Read after each
** read of a mapping, so inline: the signal fence keeps the compiler from
** moving the load above the read that may have faulted (the handler runs
** on the reading thread).
*/
extern unsigned int storeGuardFaultCount;
static inline unsigned int storeGuardFaults(void){
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  return __atomic_load_n(&storeGuardFaultCount, __ATOMIC_RELAXED);
}

/* True if a fault replaced pages of pStore's mapping by zeros. */
int storeGuardDamaged(const TRACE_STORE *pStore);

#endif /* TRACER_GUARD_STOREGUARD_H */
