/*
** FencedMappings.c: inaccessible memory after every read-only store
** mapping, for the hostile-store tests.
**
** AddressSanitizer does not see a read past the end of a memory-mapped
** file: the next pages are often another mapping (the next store of the
** session), whose shadow says "addressable".  So an over-read caused by a
** lying header would go unnoticed, returning bytes of another file.  Test
** builds of the extension and of the tracestore command are linked with
** -Wl,--wrap=InitializeRtl: this file's __wrap_InitializeRtl fills in the
** RTL as usual and then replaces MapFile and Unmap, so that every mapping a
** reader makes (read-only, at an address of the system's choosing) is
** followed by an inaccessible region at least as large as the mapping (and
** at least 1 MB).  A read past the last page of a store file then faults
** (SIGSEGV) at once, and the test sees a crash instead of a plausible
** wrong answer.  (The extension's own SIGBUS guard, Guard/StoreGuard.c,
** wraps these in turn and covers only the file's pages.)
**
** Writers' mappings (writable, or at a fixed address inside their
** reservation) are left alone.  Hosted C: tests only, never in the core.
*/
#include <pthread.h>
#include <sys/mman.h>

#include "Rtl/Rtl.h"

#define GUARD_MIN     ((size_t)1 << 20)
#define GUARD_PAGE    ((size_t)4096)
#define GUARD_SLOTS   4096

RTL_STATUS __real_InitializeRtl(PRTL Rtl);
RTL_STATUS __wrap_InitializeRtl(PRTL Rtl);

static PRTL_MAP_FILE realMapFile;
static PRTL_UNMAP realUnmap;
static pthread_mutex_t guardMutex = PTHREAD_MUTEX_INITIALIZER;

/* The fenced mappings: start and length of the whole region. */
static struct { void *p; size_t n; } aGuard[GUARD_SLOTS];

static RTL_STATUS guardMapFile(
  PRTL Rtl,
  HANDLE Handle,
  ULONGLONG Offset,
  SIZE_T Size,
  BOOL Writable,
  PVOID FixedAddress,
  PPVOID Address
){
  size_t nSpan, nGuard, i;
  void *pRegion, *p;
  if( Writable || FixedAddress!=0 || Size==0 ){
    return realMapFile(Rtl, Handle, Offset, Size, Writable, FixedAddress,
                       Address);
  }
  nSpan = (Size + GUARD_PAGE - 1) & ~(GUARD_PAGE - 1);
  nGuard = nSpan<GUARD_MIN ? GUARD_MIN : nSpan;
  pRegion = mmap(0, nSpan + nGuard, PROT_NONE,
                 MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE, -1, 0);
  if( pRegion==MAP_FAILED ){
    return realMapFile(Rtl, Handle, Offset, Size, Writable, FixedAddress,
                       Address);
  }
  p = mmap(pRegion, Size, PROT_READ, MAP_SHARED|MAP_FIXED, (int)(long)Handle,
           (off_t)Offset);
  if( p==MAP_FAILED ){
    munmap(pRegion, nSpan + nGuard);
    *Address = 0;
    return RTL_STATUS_NO_MEMORY;
  }
  pthread_mutex_lock(&guardMutex);
  for(i=0; i<GUARD_SLOTS && aGuard[i].p!=0; i++){}
  if( i<GUARD_SLOTS ){
    aGuard[i].p = pRegion;
    aGuard[i].n = nSpan + nGuard;
  }
  pthread_mutex_unlock(&guardMutex);
  if( i==GUARD_SLOTS ){            /* Table full: no guard for this one */
    munmap(pRegion, nSpan + nGuard);
    return realMapFile(Rtl, Handle, Offset, Size, Writable, FixedAddress,
                       Address);
  }
  *Address = p;
  return RTL_STATUS_OK;
}

static RTL_STATUS guardUnmap(PRTL Rtl, PVOID Address, SIZE_T Size){
  size_t i, n = 0;
  pthread_mutex_lock(&guardMutex);
  for(i=0; i<GUARD_SLOTS; i++){
    if( aGuard[i].p==Address ){
      n = aGuard[i].n;
      aGuard[i].p = 0;
      break;
    }
  }
  pthread_mutex_unlock(&guardMutex);
  if( n ){
    return munmap(Address, n)==0 ? RTL_STATUS_OK : RTL_STATUS_NO_MEMORY;
  }
  return realUnmap(Rtl, Address, Size);
}

RTL_STATUS __wrap_InitializeRtl(PRTL Rtl){
  RTL_STATUS status = __real_InitializeRtl(Rtl);
  if( RTL_SUCCESS(status) ){
    realMapFile = Rtl->MapFile;
    realUnmap = Rtl->Unmap;
    Rtl->MapFile = guardMapFile;
    Rtl->Unmap = guardUnmap;
  }
  return status;
}
