/*
** HostIdentity.c: this machine's host name, boot id and kernel release, for
** the session header (TraceSessionSetHost; docs/fleet.md).
**
** Zone: hosted (Host/, the process's services): libc, uname(2) and /proc
** only.
*/
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "Host/HostIdentity.h"

void hostIdentity(char *zName, size_t nName, char *zBootId,
                      size_t nBootId, char *zRelease, size_t nRelease){
  struct utsname u;
  FILE *f;
  zName[0] = zBootId[0] = zRelease[0] = 0;
  if( gethostname(zName, nName-1)!=0 ) zName[0] = 0;
  zName[nName-1] = 0;
  f = fopen("/proc/sys/kernel/random/boot_id", "r");
  if( f ){
    if( fgets(zBootId, (int)nBootId, f)==0 ) zBootId[0] = 0;
    zBootId[strcspn(zBootId, "\n")] = 0;
    fclose(f);
  }
  if( uname(&u)==0 ) snprintf(zRelease, nRelease, "%s", u.release);
}
