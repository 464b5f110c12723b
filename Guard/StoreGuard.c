/*
** StoreGuard.c: store files cut while a query reads them.
**
** Zone: hosted (the read guard the query extensions share): libc, and
** POSIX signals and mmap: the one file of the hosted readers that calls
** the OS itself (a signal handler cannot go through the RTL); included by
** nothing.
** Owns: the table of guarded read-only mappings, the SIGBUS handler and
** the count of faults it caught.
** Calls: the RTL's MapFile and Unmap, which it wraps.  Called by the
** SQLite extension (Sqlite3Ext/tracestore_session.c installs it,
** tracestore.c and tracestore_rollup.c check it after each read) and the
** DuckDB extension (DuckDbExt/tracestore_duckdb.c installs it,
** tracestore_duckdb_scan.c checks it after each batch); declared in
** StoreGuard.h.
**
** A reader maps each store file whole and reads its records in place.  If
** another program truncates a file (a `cp` over it, `truncate`), or the
** disk cannot deliver a page, reading a mapped page past the new end of
** the file raises SIGBUS, whose default action kills the host process:
** the sqlite3 shell, Python.  Every statement checks the sizes of its
** files when it starts (TraceStoreTakeSnapshot), so only a cut made while
** a statement runs can reach a page past the end.  For those:
**
**   - an extension's RTL maps read-only files through storeGuardMapFile,
**     which records each mapping in a fixed table (aGuard), and unmaps
**     through storeGuardUnmap, which forgets it;
**   - a SIGBUS handler, installed once, looks the faulting address up in
**     that table.  In one of our mappings, it maps zero-filled pages over
**     the rest of that mapping, so that the read and every later one
**     complete, marks the mapping damaged and counts the fault
**     (storeGuardFaultCount).  Any other SIGBUS goes to the handler that
**     was there before; if that was the default, the default is restored
**     and the fault, repeated, ends the process as it would have without
**     us;
**   - a reader notes the count when its statement starts (a SQLite
**     cursor in xFilter, a DuckDB scan in its init); after reading (SQLite:
**     xFilter, xNext, xColumn; DuckDB: each batch) it compares, and if the
**     count moved and one of its mappings is damaged, the statement fails
**     with an error naming the file instead of returning what the zero
**     pages held.  A damaged mapping stays damaged until the store is
**     remapped, which the next statement does before it reads.
**
** Mappings that do not fit in the table are not guarded (the old
** behaviour).  Where signals are not POSIX (Windows) this file only
** passes the calls through.
*/
#include <string.h>

#include "TraceStore/TraceStore.h"
#include "Guard/StoreGuard.h"

#ifndef _WIN32

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

/* Mappings guarded at once: a session maps about a dozen stores per
** virtual table that shows it. */
#define STORE_GUARD_SLOTS 4096

/*
** One mapping.  iStart is 0 for a free slot; a slot is claimed by a
** compare-and-swap of iStart and published by the release store of iEnd,
** so the handler, which loads iEnd with acquire first, never matches a
** half-written slot.
*/
typedef struct storeGuardSlot storeGuardSlot;
struct storeGuardSlot {
  uintptr_t iStart;             /* First byte of the mapping, 0: free */
  uintptr_t iEnd;               /* Byte after the mapping, 0: not yet */
  int bDamaged;                 /* A fault replaced pages by zeros */
};

static storeGuardSlot aGuard[STORE_GUARD_SLOTS];
unsigned int storeGuardFaultCount = 0;       /* Faults caught, ever */
static struct sigaction guardPrevious;    /* Handler before ours */
static uintptr_t guardPageSize = 4096;
static PRTL_MAP_FILE xRealMapFile;
static PRTL_UNMAP xRealUnmap;

static storeGuardSlot *storeGuardFind(uintptr_t iAddr){
  int i;
  for(i=0; i<STORE_GUARD_SLOTS; i++){
    uintptr_t iEnd = __atomic_load_n(&aGuard[i].iEnd, __ATOMIC_ACQUIRE);
    uintptr_t iStart = __atomic_load_n(&aGuard[i].iStart, __ATOMIC_RELAXED);
    if( iEnd!=0 && iStart<=iAddr && iAddr<iEnd ) return &aGuard[i];
  }
  return 0;
}

/*
** The SIGBUS handler.  Only async-signal-safe calls: mmap, sigaction.
*/
static void storeGuardOnBus(int sig, siginfo_t *pInfo, void *pContext){
  uintptr_t iAddr = (uintptr_t)pInfo->si_addr;
  storeGuardSlot *pSlot = 0;

  if( pInfo->si_code==BUS_ADRERR ) pSlot = storeGuardFind(iAddr);
  if( pSlot ){
    uintptr_t iPage = iAddr & ~(guardPageSize - 1);
    uintptr_t iEnd = __atomic_load_n(&pSlot->iEnd, __ATOMIC_ACQUIRE);
    void *p = mmap((void*)iPage, iEnd - iPage, PROT_READ,
                   MAP_FIXED|MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    if( p!=MAP_FAILED ){
      __atomic_store_n(&pSlot->bDamaged, 1, __ATOMIC_RELEASE);
      __atomic_add_fetch(&storeGuardFaultCount, 1, __ATOMIC_RELEASE);
      return;
    }
  }

  /* Not ours (or no way to patch it): as if we were not here. */
  if( (guardPrevious.sa_flags & SA_SIGINFO)!=0
   && guardPrevious.sa_sigaction!=0 ){
    guardPrevious.sa_sigaction(sig, pInfo, pContext);
    return;
  }
  if( guardPrevious.sa_handler!=SIG_DFL && guardPrevious.sa_handler!=SIG_IGN ){
    guardPrevious.sa_handler(sig);
    return;
  }
  {
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, 0);
  }
}

static RTL_STATUS storeGuardMapFile(
  PRTL Rtl,
  HANDLE Handle,
  ULONGLONG Offset,
  SIZE_T Size,
  BOOL Writable,
  PVOID FixedAddress,
  PPVOID Address
){
  RTL_STATUS status;
  int i;
  status = xRealMapFile(Rtl, Handle, Offset, Size, Writable, FixedAddress,
                        Address);
  if( !RTL_SUCCESS(status) || Writable || Size==0 ) return status;
  for(i=0; i<STORE_GUARD_SLOTS; i++){
    uintptr_t iFree = 0;
    if( __atomic_compare_exchange_n(&aGuard[i].iStart, &iFree,
                                    (uintptr_t)*Address, 0, __ATOMIC_ACQUIRE,
                                    __ATOMIC_RELAXED) ){
      aGuard[i].bDamaged = 0;
      __atomic_store_n(&aGuard[i].iEnd, (uintptr_t)*Address + Size,
                       __ATOMIC_RELEASE);
      break;
    }
  }
  return status;
}

static RTL_STATUS storeGuardUnmap(PRTL Rtl, PVOID Address, SIZE_T Size){
  int i;
  for(i=0; i<STORE_GUARD_SLOTS; i++){
    if( __atomic_load_n(&aGuard[i].iStart, __ATOMIC_ACQUIRE)
          ==(uintptr_t)Address
     && __atomic_load_n(&aGuard[i].iEnd, __ATOMIC_ACQUIRE)!=0 ){
      __atomic_store_n(&aGuard[i].iEnd, 0, __ATOMIC_RELEASE);
      __atomic_store_n(&aGuard[i].iStart, 0, __ATOMIC_RELEASE);
      break;
    }
  }
  return xRealUnmap(Rtl, Address, Size);
}

void storeGuardInstall(PRTL Rtl){
  struct sigaction act;
  long nPage = sysconf(_SC_PAGESIZE);
  if( nPage>0 ) guardPageSize = (uintptr_t)nPage;
  xRealMapFile = Rtl->MapFile;
  xRealUnmap = Rtl->Unmap;
  Rtl->MapFile = storeGuardMapFile;
  Rtl->Unmap = storeGuardUnmap;
  memset(&act, 0, sizeof(act));
  act.sa_sigaction = storeGuardOnBus;
  act.sa_flags = SA_SIGINFO|SA_NODEFER;
  sigemptyset(&act.sa_mask);
  sigaction(SIGBUS, &act, &guardPrevious);
}

int storeGuardDamaged(const TRACE_STORE *pStore){
  storeGuardSlot *pSlot;
  if( pStore==0 || pStore->Mapping==0 ) return 0;
  pSlot = storeGuardFind((uintptr_t)pStore->Mapping);
  return pSlot!=0 && __atomic_load_n(&pSlot->bDamaged, __ATOMIC_ACQUIRE);
}

#else /* _WIN32 */

unsigned int storeGuardFaultCount = 0;
void storeGuardInstall(PRTL Rtl){ (void)Rtl; }
int storeGuardDamaged(const TRACE_STORE *pStore){ (void)pStore; return 0; }

#endif
