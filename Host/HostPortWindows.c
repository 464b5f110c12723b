/*
** HostPortWindows.c: HostPort.h on Windows (mingw-w64's msvcrt and
** kernel32).  It includes <windows.h>, whose base types clash with
** Rtl.h's, so it includes nothing of the tree but HostPort.h.
**
** Zone: hosted (Host/, the process's services): libc (msvcrt), kernel32.
** Linked instead of HostPortPosix.c on Windows; calls libc and
** MoveFileExA only.
*/
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <windows.h>

#include "Host/HostPort.h"

void hostPortInit(void){
  _setmode(_fileno(stdin), _O_BINARY);
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stderr), _O_BINARY);
}

FILE *hostCreateTemp(char *zTemplate){
  FILE *f;
  int e;
  int fd = mkstemp(zTemplate);
  if( fd<0 ) return 0;
  _setmode(fd, _O_BINARY);
  f = _fdopen(fd, "wb");
  if( f==0 ){
    e = errno;
    _close(fd);
    _unlink(zTemplate);
    errno = e;
  }
  return f;
}

/* msvcrt's rename() refuses an existing target. */
int hostReplaceFile(const char *zFrom, const char *zTo){
  if( MoveFileExA(zFrom, zTo, MOVEFILE_REPLACE_EXISTING) ) return 0;
  errno = EACCES;
  return -1;
}

int hostIsSpecialFile(const char *zPath){
  struct _stat st;
  return _stat(zPath, &st)==0 && (st.st_mode & _S_IFREG)==0;
}

int hostSyncFile(FILE *f){
  if( fflush(f)!=0 ) return -1;
  return _commit(_fileno(f));
}

const void *hostMapFd(int fd, size_t n){
  (void)fd;
  (void)n;
  return 0;
}

void hostUnmapFd(const void *p, size_t n){
  (void)p;
  (void)n;
}

void hostPortIdentity(char *zName, size_t nName, char *zBootId,
                         size_t nBootId, char *zRelease, size_t nRelease){
  DWORD n = (DWORD)nName;
  DWORD v = GetVersion();
  (void)nBootId;
  zBootId[0] = 0;
  if( !GetComputerNameA(zName, &n) ) zName[0] = 0;
  snprintf(zRelease, nRelease, "Windows %lu.%lu.%lu",
           (unsigned long)(v & 0xff), (unsigned long)((v >> 8) & 0xff),
           (unsigned long)(v < 0x80000000u ? (v >> 16) : 0));
}
