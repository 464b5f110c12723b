/*
** HttpClient.c: one HTTP/1.0 POST per call over a TCP socket, for
** `tracestore push` (declared in HttpClient.h).
**
** Zone: hosted (Outputs/Push/, an output): libc and POSIX sockets
** (getaddrinfo, non-blocking connect with poll for the timeout,
** SO_SNDTIMEO/SO_RCVTIMEO).  Owns nothing but the bytes on the wire: the
** request line, Host, Content-Length and Connection: close headers, and a
** response read to the end (status line, headers, body: HTTP/1.0, so
** that the server sends the body as is, never chunked, and closes the
** connection after it).  Called by CmdPush.c only.
*/
#define _GNU_SOURCE 1   /* strcasestr */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "Outputs/Push/HttpClient.h"

#define HTTP_MAX_BODY (64*1024)

int httpParseUrl(const char *zUrl, HttpUrl *p, char *zErr, size_t nErr){
  const char *z = zUrl, *zHostEnd, *zPath, *zQuery;
  size_t n;
  memset(p, 0, sizeof(*p));
  p->nTimeoutMs = 30000;
  if( strncmp(z, "https://", 8)==0 ){
    snprintf(zErr, nErr, "%s: https is not supported (use http:// on a "
             "trusted network, or a local TLS proxy)", zUrl);
    return 0;
  }
  if( strncmp(z, "http://", 7)!=0 ){
    snprintf(zErr, nErr, "%s: not an http:// URL", zUrl);
    return 0;
  }
  z += 7;
  zPath = z + strcspn(z, "/?");
  zHostEnd = zPath;
  if( z[0]=='[' ){
    const char *zClose = memchr(z, ']', (size_t)(zPath - z));
    if( zClose==0 ){
      snprintf(zErr, nErr, "%s: unterminated [address]", zUrl);
      return 0;
    }
    n = (size_t)(zClose - z - 1);
    if( n>=sizeof(p->zHost) ) goto too_long;
    memcpy(p->zHost, z+1, n);
    z = zClose + 1;
  }else{
    const char *zColon = memchr(z, ':', (size_t)(zPath - z));
    n = (size_t)((zColon ? zColon : zPath) - z);
    if( n>=sizeof(p->zHost) ) goto too_long;
    memcpy(p->zHost, z, n);
    z += n;
  }
  if( p->zHost[0]==0 ){
    snprintf(zErr, nErr, "%s: no host", zUrl);
    return 0;
  }
  if( z<zHostEnd && *z==':' ){
    n = (size_t)(zHostEnd - z - 1);
    if( n==0 || n>=sizeof(p->zPort) || strspn(z+1, "0123456789")<n ){
      snprintf(zErr, nErr, "%s: bad port", zUrl);
      return 0;
    }
    memcpy(p->zPort, z+1, n);
  }else{
    memcpy(p->zPort, "80", 3);
  }
  zQuery = strchr(zPath, '?');
  n = zQuery ? (size_t)(zQuery - zPath) : strlen(zPath);
  if( n+2>sizeof(p->zPath) ) goto too_long;
  if( n==0 ){
    memcpy(p->zPath, "/", 2);
  }else{
    memcpy(p->zPath, zPath, n);
  }
  if( zQuery ){
    if( strlen(zQuery+1)>=sizeof(p->zQuery) ) goto too_long;
    memcpy(p->zQuery, zQuery+1, strlen(zQuery+1)+1);
  }
  return 1;

too_long:
  snprintf(zErr, nErr, "%s: URL too long", zUrl);
  return 0;
}

int httpEscape(char *zOut, size_t nOut, const char *z){
  size_t j = strlen(zOut);
  static const char zHex[] = "0123456789ABCDEF";
  for(; *z; z++){
    unsigned char c = (unsigned char)*z;
    if( (c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9')
     || c=='-' || c=='_' || c=='.' || c=='~' ){
      if( j+1>=nOut ) return 0;
      zOut[j++] = (char)c;
    }else{
      if( j+3>=nOut ) return 0;
      zOut[j++] = '%';
      zOut[j++] = zHex[c>>4];
      zOut[j++] = zHex[c&15];
    }
  }
  zOut[j] = 0;
  return 1;
}

/* Connects to p's host within its timeout; the socket, or -1. */
static int httpConnect(const HttpUrl *p, char *zErr, size_t nErr){
  struct addrinfo hints, *pList = 0, *pAi;
  struct timeval tv;
  int fd = -1, rc, e = 0;

  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  rc = getaddrinfo(p->zHost, p->zPort, &hints, &pList);
  if( rc!=0 ){
    snprintf(zErr, nErr, "cannot resolve %s: %s", p->zHost,
             gai_strerror(rc));
    return -1;
  }
  for(pAi=pList; pAi; pAi=pAi->ai_next){
    struct pollfd pfd;
    socklen_t nE = sizeof(e);
    fd = socket(pAi->ai_family, pAi->ai_socktype|SOCK_CLOEXEC,
                pAi->ai_protocol);
    if( fd<0 ){ e = errno; continue; }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    rc = connect(fd, pAi->ai_addr, pAi->ai_addrlen);
    e = rc==0 ? 0 : errno;
    if( rc!=0 && errno==EINPROGRESS ){
      pfd.fd = fd;
      pfd.events = POLLOUT;
      rc = poll(&pfd, 1, p->nTimeoutMs);
      if( rc==0 ){
        e = ETIMEDOUT;
      }else if( rc<0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &nE)!=0 ){
        e = errno;
      }
    }
    if( e==0 ) break;
    close(fd);
    fd = -1;
  }
  freeaddrinfo(pList);
  if( fd<0 ){
    snprintf(zErr, nErr, "cannot connect to %s:%s: %s", p->zHost, p->zPort,
             e==ETIMEDOUT ? "timed out" : strerror(e));
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  tv.tv_sec = p->nTimeoutMs/1000;
  tv.tv_usec = (p->nTimeoutMs%1000)*1000;
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

/* Writes all n bytes; 0 and errno on failure. */
static int httpWriteAll(int fd, const void *pBuf, size_t n){
  const char *z = (const char*)pBuf;
  while( n>0 ){
    ssize_t k = send(fd, z, n, MSG_NOSIGNAL);
    if( k<0 ){
      if( errno==EINTR ) continue;
      return 0;
    }
    z += k;
    n -= (size_t)k;
  }
  return 1;
}

/*
** Decodes a chunked body in place (an HTTP/1.1 answer: "SIZE\r\nDATA\r\n"
** ... "0\r\n\r\n"); stops at anything malformed, keeping what came before.
*/
static void httpDechunk(char *z){
  char *zOut = z;
  for(;;){
    char *zEnd;
    unsigned long n = strtoul(z, &zEnd, 16);
    char *zData = strstr(zEnd, "\r\n");
    if( zEnd==z || n==0 || zData==0 || strlen(zData+2)<n ) break;
    memmove(zOut, zData+2, n);
    zOut += n;
    z = zData + 2 + n;
    if( z[0]=='\r' && z[1]=='\n' ) z += 2;
  }
  *zOut = 0;
}

/*
** Reads the response to the end into pResp: the status from the status
** line and up to HTTP_MAX_BODY bytes of the body.  0 on a read error.
*/
static int httpReadResponse(int fd, HttpResponse *pResp){
  char *zBuf;
  size_t n = 0, nAlloc = 16384;
  char *zBody;

  zBuf = malloc(nAlloc + 1);
  if( zBuf==0 ) return 0;
  for(;;){
    ssize_t k;
    if( n==nAlloc ){
      char *zNew;
      if( nAlloc>=HTTP_MAX_BODY+16384 ){
        /* Keep reading (to the end) but not keeping. */
        char aDrop[4096];
        k = recv(fd, aDrop, sizeof(aDrop), 0);
        if( k<0 && errno==EINTR ) continue;
        if( k<0 ){ free(zBuf); return 0; }
        if( k==0 ) break;
        continue;
      }
      nAlloc *= 2;
      zNew = realloc(zBuf, nAlloc + 1);
      if( zNew==0 ){ free(zBuf); return 0; }
      zBuf = zNew;
    }
    k = recv(fd, zBuf+n, nAlloc-n, 0);
    if( k<0 && errno==EINTR ) continue;
    if( k<0 ){ free(zBuf); return 0; }
    if( k==0 ) break;
    n += (size_t)k;
  }
  zBuf[n] = 0;
  if( n<12 || strncmp(zBuf, "HTTP/1.", 7)!=0 ){
    free(zBuf);
    errno = EPROTO;
    return 0;
  }
  pResp->iStatus = atoi(zBuf+9);
  zBody = strstr(zBuf, "\r\n\r\n");
  if( zBody ){
    int bChunked;
    zBody[2] = 0;
    bChunked = strcasestr(zBuf, "\r\nTransfer-Encoding: chunked\r\n")!=0;
    zBody += 4;
    if( bChunked ) httpDechunk(zBody);
  }else{
    zBody = zBuf+n;
  }
  memmove(zBuf, zBody, strlen(zBody)+1);
  pResp->zBody = zBuf;
  return 1;
}

int httpPost(const HttpUrl *p, const char *zTarget, const void *pBody,
             size_t nBody, HttpResponse *pResp, char *zErr, size_t nErr){
  char zHead[2048];
  int fd, n;

  memset(pResp, 0, sizeof(*pResp));
  fd = httpConnect(p, zErr, nErr);
  if( fd<0 ) return -1;
  n = snprintf(zHead, sizeof(zHead),
               "POST %s HTTP/1.0\r\nHost: %s:%s\r\n"
               "Content-Length: %llu\r\nConnection: close\r\n"
               "User-Agent: tracestore\r\n\r\n", zTarget, p->zHost, p->zPort,
               (unsigned long long)nBody);
  if( n<0 || (size_t)n>=sizeof(zHead) ){
    snprintf(zErr, nErr, "request target too long");
    close(fd);
    return -1;
  }
  if( !httpWriteAll(fd, zHead, (size_t)n)
   || (nBody && !httpWriteAll(fd, pBody, nBody)) ){
    int e = errno;
    /* The server may have answered (an error) before reading the body. */
    if( httpReadResponse(fd, pResp) && pResp->iStatus ){
      close(fd);
      return 0;
    }
    snprintf(zErr, nErr, "sending to %s:%s: %s", p->zHost, p->zPort,
             e==EAGAIN || e==EWOULDBLOCK ? "timed out" : strerror(e));
    close(fd);
    return -1;
  }
  if( !httpReadResponse(fd, pResp) ){
    int e = errno;
    snprintf(zErr, nErr, "reading the answer of %s:%s: %s", p->zHost,
             p->zPort, e==EAGAIN || e==EWOULDBLOCK ? "timed out" :
             e==EPROTO ? "not an HTTP response" : strerror(e));
    close(fd);
    return -1;
  }
  close(fd);
  return 0;
}

/*
** A POST whose body is sent as it is made, in chunks (HTTP/1.1
** Transfer-Encoding: chunked), so that the server parses while the client
** encodes and neither holds the whole body.
*/
int httpStreamBegin(const HttpUrl *p, const char *zTarget, HttpStream *pStream,
                    char *zErr, size_t nErr){
  char zHead[2048];
  int n;
  memset(pStream, 0, sizeof(*pStream));
  pStream->p = p;
  pStream->fd = httpConnect(p, zErr, nErr);
  if( pStream->fd<0 ) return -1;
  n = snprintf(zHead, sizeof(zHead),
               "POST %s HTTP/1.1\r\nHost: %s:%s\r\n"
               "Transfer-Encoding: chunked\r\nConnection: close\r\n"
               "User-Agent: tracestore\r\n\r\n", zTarget, p->zHost, p->zPort);
  if( n<0 || (size_t)n>=sizeof(zHead) ){
    snprintf(zErr, nErr, "request target too long");
    close(pStream->fd);
    pStream->fd = -1;
    return -1;
  }
  if( !httpWriteAll(pStream->fd, zHead, (size_t)n) ){
    pStream->iErrno = errno;
  }
  return 0;
}

int httpStreamWrite(HttpStream *pStream, const void *pData, size_t n){
  char zSize[24];
  int k;
  if( pStream->iErrno || n==0 ) return pStream->iErrno ? -1 : 0;
  k = snprintf(zSize, sizeof(zSize), "%zx\r\n", n);
  if( !httpWriteAll(pStream->fd, zSize, (size_t)k)
   || !httpWriteAll(pStream->fd, pData, n)
   || !httpWriteAll(pStream->fd, "\r\n", 2) ){
    pStream->iErrno = errno;
    return -1;
  }
  return 0;
}

int httpStreamEnd(HttpStream *pStream, HttpResponse *pResp, char *zErr,
                  size_t nErr){
  const HttpUrl *p = pStream->p;
  int rc = 0;
  memset(pResp, 0, sizeof(*pResp));
  if( pStream->fd<0 ) return -1;
  if( pStream->iErrno==0 && !httpWriteAll(pStream->fd, "0\r\n\r\n", 5) ){
    pStream->iErrno = errno;
  }
  /* After a failed send the server may still have answered (an error);
  ** a body it did not get whole is never a success. */
  if( !httpReadResponse(pStream->fd, pResp) || pResp->iStatus==0
   || (pStream->iErrno && pResp->iStatus==200) ){
    int e = pStream->iErrno ? pStream->iErrno : errno;
    snprintf(zErr, nErr, "%s %s:%s: %s", pStream->iErrno ? "sending to" :
             "reading the answer of", p->zHost, p->zPort,
             e==EAGAIN || e==EWOULDBLOCK ? "timed out" :
             e==EPROTO ? "not an HTTP response" : strerror(e));
    free(pResp->zBody);
    pResp->zBody = 0;
    rc = -1;
  }
  close(pStream->fd);
  pStream->fd = -1;
  return rc;
}

void httpStreamAbort(HttpStream *pStream){
  if( pStream->fd>=0 ) close(pStream->fd);
  pStream->fd = -1;
}
