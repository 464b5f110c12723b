/*
** HostIdentity.h: this machine's identity for a session header
** (HostIdentity.c).
**
** Zone: hosted (Host/, the process's services): libc, uname(2) and /proc
** only.  Used by the POSIX port (Host/HostPortPosix.c: import and record)
** and by the Python tracer (Live/Python/), so that every session made on
** Linux names its host the same way.
*/
#ifndef TRACER_HOST_IDENTITY_H
#define TRACER_HOST_IDENTITY_H

#include <stddef.h>

/*
** The host name (gethostname), the kernel's boot id
** (/proc/sys/kernel/random/boot_id) and release (uname -r), each
** NUL-terminated and cut to its buffer; "" for one that cannot be read.
*/
void hostIdentity(char *zName, size_t nName, char *zBootId,
                      size_t nBootId, char *zRelease, size_t nRelease);

#endif /* TRACER_HOST_IDENTITY_H */
