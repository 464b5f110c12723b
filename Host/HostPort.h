/*
** HostPort.h: the few services of the hosted process that POSIX and
** Windows spell differently, behind one name each (HostPortPosix.c,
** HostPortWindows.c; CMake links the one of the platform).  The rest of
** the front end is the C library both have (mingw-w64's msvcrt, its
** winpthreads for the worker threads) and the RTL.
**
** Zone: hosted (Host/, the process's services): libc.  Declares only; no
** platform header here, so that the command and output files stay free
** of #ifdefs.
*/
#ifndef TRACER_HOST_PORT_H
#define TRACER_HOST_PORT_H

#include <stddef.h>
#include <stdio.h>

/* Called first by main(): on Windows, standard input and output become
** binary (no CRLF translation, no ^Z end), so that what is read and
** printed are the bytes Linux reads and prints. */
void hostPortInit(void);

/* Creates and opens for binary writing a new file from zTemplate, whose
** last six characters are XXXXXX and are replaced (mkstemp).  NULL, with
** errno set, on failure. */
FILE *hostCreateTemp(char *zTemplate);

/* Renames zFrom to zTo, replacing zTo if it exists (rename(2)): 0 on
** success, -1 with errno set. */
int hostReplaceFile(const char *zFrom, const char *zTo);

/* 1 if zPath names something that is not a regular file (a device such as
** /dev/null or NUL, a FIFO): an output goes there in place, never through
** a temporary file renamed over it (which would replace the device). */
int hostIsSpecialFile(const char *zPath);

/* Flushes stream f and makes what it wrote durable (fflush + fsync): 0 on
** success, -1 with errno set. */
int hostSyncFile(FILE *f);

/* Maps n bytes of file descriptor fd read-only for a sequential read, or
** returns NULL (the caller then reads the descriptor): Windows always
** returns NULL. */
const void *hostMapFd(int fd, size_t n);
void hostUnmapFd(const void *p, size_t n);

/* This machine's host name, boot id and kernel release, each
** NUL-terminated and cut to its buffer; "" where the platform has none
** (Windows has no boot id). */
void hostPortIdentity(char *zName, size_t nName, char *zBootId,
                         size_t nBootId, char *zRelease, size_t nRelease);

#endif /* TRACER_HOST_PORT_H */
