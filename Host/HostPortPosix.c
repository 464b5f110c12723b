/*
** HostPortPosix.c: HostPort.h on Linux (POSIX): temp files, fsync, mmap,
** the host's identity, and whether a session's writer runs.
**
** Zone: hosted (Host/, the process's services): libc, POSIX.  Linked instead
** of HostPortWindows.c on Linux; calls libc and Host/HostIdentity.c.
*/
#define _GNU_SOURCE   /* F_OFD_GETLK */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "Host/Host.h"
#include "Host/HostPort.h"
#include "Host/HostIdentity.h"

void hostPortInit(void){
}

FILE *hostCreateTemp(char *zTemplate){
  FILE *f;
  int e;
  int fd = mkstemp(zTemplate);
  mode_t mask;
  if( fd<0 ) return 0;
  /* mkstemp makes it 0600; the file it becomes is made as open() would. */
  mask = umask(0);
  umask(mask);
  f = fchmod(fd, 0666 & ~mask)==0 ? fdopen(fd, "w") : 0;
  if( f==0 ){
    e = errno;
    close(fd);
    unlink(zTemplate);
    errno = e;
  }
  return f;
}

/*
** Whether a writer holds SESSION's lock (tracestore record or an import
** is running): the OFD lock the core's writer takes on session.tracer,
** asked for without taking it.  POSIX only: its callers (plot --watch,
** push --follow) are not in the Windows build.
*/
int hostWriterRuns(const char *zSession){
  char zPath[TRACE_PATH_SIZE + 32];
  struct flock lk;
  int fd, bRuns = 0;
  snprintf(zPath, sizeof(zPath), "%s/%s", zSession, TRACE_SESSION_FILE);
  fd = open(zPath, O_RDONLY|O_CLOEXEC);
  if( fd<0 ) return 0;
  memset(&lk, 0, sizeof(lk));
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  if( fcntl(fd, F_OFD_GETLK, &lk)==0 && lk.l_type!=F_UNLCK ) bRuns = 1;
  close(fd);
  return bRuns;
}

int hostReplaceFile(const char *zFrom, const char *zTo){
  return rename(zFrom, zTo);
}

int hostIsSpecialFile(const char *zPath){
  struct stat st;
  return stat(zPath, &st)==0 && !S_ISREG(st.st_mode);
}

int hostSyncFile(FILE *f){
  if( fflush(f)!=0 ) return -1;
  return fsync(fileno(f));
}

const void *hostMapFd(int fd, size_t n){
  void *p = mmap(0, n, PROT_READ, MAP_PRIVATE, fd, 0);
  if( p==MAP_FAILED ) return 0;
  madvise(p, n, MADV_SEQUENTIAL);
  return p;
}

void hostUnmapFd(const void *p, size_t n){
  munmap((void*)p, n);
}

void hostPortIdentity(char *zName, size_t nName, char *zBootId,
                         size_t nBootId, char *zRelease, size_t nRelease){
  hostIdentity(zName, nName, zBootId, nBootId, zRelease, nRelease);
}
