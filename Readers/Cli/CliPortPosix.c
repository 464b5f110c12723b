/*
** CliPortPosix.c: CliPort.h on Linux (POSIX): fsync and mmap.
**
** Zone: hosted (the command-line front end): libc, POSIX.  Linked instead
** of CliPortWindows.c on Linux; calls only libc.
*/
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "CliPort.h"

void cliPortInit(void){
}

FILE *cliCreateTemp(char *zTemplate){
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

int cliReplaceFile(const char *zFrom, const char *zTo){
  return rename(zFrom, zTo);
}

int cliSyncFile(FILE *f){
  if( fflush(f)!=0 ) return -1;
  return fsync(fileno(f));
}

const void *cliMapFd(int fd, size_t n){
  void *p = mmap(0, n, PROT_READ, MAP_PRIVATE, fd, 0);
  if( p==MAP_FAILED ) return 0;
  madvise(p, n, MADV_SEQUENTIAL);
  return p;
}

void cliUnmapFd(const void *p, size_t n){
  munmap((void*)p, n);
}
