/*
** HttpClient.h: the small HTTP/1.0 client `tracestore push` talks to
** ClickHouse's HTTP interface with (HttpClient.c).
**
** Zone: hosted (Outputs/Push/, an output): libc and POSIX sockets.
** Owns URL parsing and one POST per call (Connection: close), its body
** given whole or streamed in chunks; knows
** nothing of ClickHouse or of sessions.  Called by CmdPush.c.
*/
#ifndef TRACER_HTTP_CLIENT_H
#define TRACER_HTTP_CLIENT_H

#include <stddef.h>

typedef struct HttpUrl HttpUrl;
struct HttpUrl {
  char zHost[256];              /* host name or address */
  char zPort[8];                /* port, "80" if the URL has none */
  char zPath[512];              /* path, "/" if none, without the query */
  char zQuery[512];             /* query string after '?', or "" */
  int nTimeoutMs;               /* connect, send and receive timeout */
};

/*
** Parses "http://HOST[:PORT][/PATH][?QUERY]" into *p.  0 and a message in
** zErr (nErr bytes) if it is not one (https is refused: no TLS here).
*/
int httpParseUrl(const char *zUrl, HttpUrl *p, char *zErr, size_t nErr);

/* The response: status and body (from malloc, NUL-terminated). */
typedef struct HttpResponse HttpResponse;
struct HttpResponse {
  int iStatus;                  /* HTTP status, or 0 if none was read */
  char *zBody;                  /* the body (up to 64 KB kept), or NULL */
};

/*
** POSTs nBody bytes of pBody to p's host at zTarget (path and query,
** already escaped).  Returns 0 with *pResp filled when a response was
** read, whatever its status, else -1 with the reason in zErr ("cannot
** connect to HOST:PORT: Connection refused", "... timed out").
*/
int httpPost(const HttpUrl *p, const char *zTarget, const void *pBody,
             size_t nBody, HttpResponse *pResp, char *zErr, size_t nErr);

/*
** A POST whose body is streamed in chunks (HTTP/1.1): Begin connects and
** sends the headers, Write sends one chunk, End the last chunk and reads
** the response.  Begin returns -1 (zErr) if it cannot connect; a failed
** Write makes the rest no-ops, and End then returns the server's answer if
** it sent one (an error before reading the whole body), else -1 and zErr.
*/
typedef struct HttpStream HttpStream;
struct HttpStream {
  const HttpUrl *p;
  int fd;
  int iErrno;                   /* first send error, or 0 */
};
int httpStreamBegin(const HttpUrl *p, const char *zTarget, HttpStream *pStream,
                    char *zErr, size_t nErr);
int httpStreamWrite(HttpStream *pStream, const void *pData, size_t n);
int httpStreamEnd(HttpStream *pStream, HttpResponse *pResp, char *zErr,
                  size_t nErr);
/* Closes the connection without the last chunk: the server drops the
** request. */
void httpStreamAbort(HttpStream *pStream);

/* Appends z to zOut (room for nOut bytes) %-escaped for a query string;
** 0 if it does not fit. */
int httpEscape(char *zOut, size_t nOut, const char *z);

#endif /* TRACER_HTTP_CLIENT_H */
