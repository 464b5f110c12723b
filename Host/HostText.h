/*
** HostText.h: reading a whole file or pseudo-file into memory (HostText.c).
**
** Zone: hosted (the process's services): libc and the kernel's files
** only; no core decoding here.  The one copy of this loop in the hosted
** code: the recorder (Live/) reads tracefs and /proc files with it, and
** the command line (Cli/) reads its -f/stdin inputs with it.
*/
#ifndef TRACER_HOST_TEXT_H
#define TRACER_HOST_TEXT_H

#include <stddef.h>

/*
** Reads file descriptor fd to its end (pseudo-files report no size, so
** it reads until read() returns 0) into a buffer from malloc() with a NUL
** after the *pn bytes read (pn may be NULL).  Returns NULL, with errno
** set, on a read error or no memory.  Does not close fd.
*/
char *hostReadFd(int fd, size_t *pn);

/* Opens zPath and reads it as hostReadFd does.  NULL, errno set, if not. */
char *hostReadFile(const char *zPath, size_t *pn);

#endif /* TRACER_HOST_TEXT_H */
