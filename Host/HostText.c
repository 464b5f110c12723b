/*
** HostText.c: reading a whole file or pseudo-file into memory (see
** HostText.h).
**
** Zone: hosted (the process's services): libc and the kernel's files
** only.  Owns the read-to-the-end loop; calls open/read/close and malloc
** only.  Used by Live/Record.c, Live/RecordTasks.c and the command line
** (Cli/, through HostUtil.c).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "Host/HostText.h"

char *hostReadFd(int fd, size_t *pn){
  size_t n = 0, nAlloc = 65536;
  char *z = malloc(nAlloc);
  int e = ENOMEM;
  if( z==0 ) goto error;
  for(;;){
    ssize_t got;
    if( n+1>=nAlloc ){
      char *zNew = realloc(z, nAlloc*2);
      if( zNew==0 ){ e = ENOMEM; goto error; }
      z = zNew;
      nAlloc *= 2;
    }
    got = read(fd, z+n, nAlloc-n-1);
    if( got<0 && errno==EINTR ) continue;
    if( got<0 ){ e = errno; goto error; }
    if( got==0 ) break;
    n += (size_t)got;
  }
  z[n] = 0;
  if( pn ) *pn = n;
  return z;
error:
  free(z);
  errno = e;
  return 0;
}

char *hostReadFile(const char *zPath, size_t *pn){
  int fd = open(zPath, O_RDONLY|O_CLOEXEC);
  char *z;
  int e;
  if( fd<0 ) return 0;
  z = hostReadFd(fd, pn);
  e = errno;
  close(fd);
  errno = e;
  return z;
}
