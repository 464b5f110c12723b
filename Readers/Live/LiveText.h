/*
** LiveText.h: reading a whole file or pseudo-file into memory (LiveText.c).
**
** Zone: hosted (the live recorders): libc and the kernel's files only; no
** core decoding here.  The one copy of this loop in the hosted code: the
** recorder reads tracefs and /proc files with it, and the command line
** (Readers/Cli, above Live) reads its -f/stdin inputs with it, since an
** arrow from Live back to the CLI is not allowed.
*/
#ifndef TRACER_LIVE_TEXT_H
#define TRACER_LIVE_TEXT_H

#include <stddef.h>

/*
** Reads file descriptor fd to its end (pseudo-files report no size, so
** it reads until read() returns 0) into a buffer from malloc() with a NUL
** after the *pn bytes read (pn may be NULL).  Returns NULL, with errno
** set, on a read error or no memory.  Does not close fd.
*/
char *liveReadFd(int fd, size_t *pn);

/* Opens zPath and reads it as liveReadFd does.  NULL, errno set, if not. */
char *liveReadFile(const char *zPath, size_t *pn);

#endif /* TRACER_LIVE_TEXT_H */
