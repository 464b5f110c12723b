/*
** LiveHost.h: this machine's identity for a session header (LiveHost.c).
**
** Zone: hosted (the live recorders): libc, uname(2) and /proc only.  Used
** by the command line's POSIX port (Readers/Cli/CliPortPosix.c: import and
** record) and by the Python tracer (Readers/Live/Python/), so that every
** session made on Linux names its host the same way.
*/
#ifndef TRACER_LIVE_HOST_H
#define TRACER_LIVE_HOST_H

#include <stddef.h>

/*
** The host name (gethostname), the kernel's boot id
** (/proc/sys/kernel/random/boot_id) and release (uname -r), each
** NUL-terminated and cut to its buffer; "" for one that cannot be read.
*/
void liveHostIdentity(char *zName, size_t nName, char *zBootId,
                      size_t nBootId, char *zRelease, size_t nRelease);

#endif /* TRACER_LIVE_HOST_H */
