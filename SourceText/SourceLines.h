/*
** SourceLines.h: the text of source lines, read from the files a session
** names (SourceLines.c): both extensions' source_line(FILE, LINENO), which
** line_time and line_hot show as kernprof's Line Contents.
**
** Zone: hosted (libc: stat, fopen, malloc); it opens no session and
** includes nothing of Tracer's.  Used by Sqlite3Ext/tracestore_source.c
** and DuckDbExt/tracestore_duckdb_views.c.
*/
#ifndef TRACER_SOURCE_LINES_H
#define TRACER_SOURCE_LINES_H

#include <stddef.h>

/*
** The last few files read (8), each with where its lines start, evicted
** least recently used first: a view calls source_line() once for each
** row it shows, mostly of a few files.  Only regular files are read (a
** name from a damaged session may be a FIFO or a device), and not over
** 64 MB.  Not thread-safe: one cache per connection, or a lock.
*/
typedef struct SourceCache SourceCache;

SourceCache *sourceCacheNew(void);          /* NULL without memory */
void sourceCacheFree(SourceCache *p);

/*
** Line iLine (1-based) of file zPath, without its line end: *pz and *pn,
** valid until the next call on p.  Returns 1 if there is such a line, 0 if
** the file cannot be read or is shorter, -1 without memory.  The file is
** read as it is now, which may not be what ran.
*/
int sourceLine(SourceCache *p, const char *zPath, long long iLine,
               const char **pz, size_t *pn);

#endif /* TRACER_SOURCE_LINES_H */
