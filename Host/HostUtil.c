/*
** HostUtil.c: the small helpers every command and output file uses
** (declared in Host.h): the process's RTL, error lines, the clock, a new
** session, reading a file or standard input, and JSON strings.
**
** Zone: hosted (Host/, the process's services): libc.  Owns nothing but these
** helpers; calls libc and the whole-file reader (Host/HostText.h).
** Cli/Main.c dispatches to the Cmd*.c files of Cli/ and Outputs/, and
** they call down here: Cli -> Outputs -> Host.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "Host/Host.h"
#include "Host/HostPort.h"
#include "Host/HostText.h"
#include "Sqlite3Ext/tracestore.h"

/* The RTL of the process, filled in by main() with InitializeRtl(). */
RTL Rtl;

void hostFailV(const char *zWho, const char *zFormat, va_list ap){
  fprintf(stderr, "%s: ", zWho);
  vfprintf(stderr, zFormat, ap);
  fprintf(stderr, "\n");
}

void hostFail(const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  hostFailV("tracestore", zFormat, ap);
  va_end(ap);
}

double hostNowSeconds(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec/1e9;
}

/* Allocates a TRACE_SESSION (large) or exits. */
PTRACE_SESSION hostNewSession(void){
  PTRACE_SESSION p = calloc(1, sizeof(*p));
  if( p==0 ){ hostFail("out of memory"); exit(1); }
  return p;
}

PTRACE_SESSION hostOpenSession(const char *zSession, const char *zWho){
  PTRACE_SESSION p = hostNewSession();
  RTL_ERROR err;
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, zSession, p, &err)) ){
    if( zWho ) hostFail("%s: %s", zWho, err.Message);
    else hostFail("%s", err.Message);
    free(p);
    return 0;
  }
  return p;
}

sqlite3 *hostOpenSql(const char *zSession){
  sqlite3 *db = 0;
  sqlite3_stmt *pStmt = 0;
  char *zErr = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){
    hostFail("cannot open SQLite");
    sqlite3_close(db);
    return 0;
  }
  if( sqlite3_tracestore_init(db, &zErr, 0)!=SQLITE_OK ){
    hostFail("cannot load the tracestore extension: %s", zErr ? zErr : "");
    sqlite3_free(zErr);
    sqlite3_close(db);
    return 0;
  }
  if( sqlite3_prepare_v2(db, "SELECT tracestore_attach(?1)", -1, &pStmt,
                         0)!=SQLITE_OK ){
    hostFail("%s", sqlite3_errmsg(db));
    sqlite3_close(db);
    return 0;
  }
  sqlite3_bind_text(pStmt, 1, zSession, -1, SQLITE_STATIC);
  if( sqlite3_step(pStmt)!=SQLITE_ROW ){
    hostFail("%s", sqlite3_errmsg(db));
    sqlite3_finalize(pStmt);
    sqlite3_close(db);
    return 0;
  }
  sqlite3_finalize(pStmt);
  return db;
}

/*
** The machine this process runs on, for the session header: the host name
** (or zTag, --host NAME, when given), the kernel's boot id and release.
** A field that cannot be read stays empty.
*/
void hostGatherHost(const char *zTag, PTRACE_SESSION_HOST pHost){
  memset(pHost, 0, sizeof(*pHost));
  hostPortIdentity(pHost->HostName, sizeof(pHost->HostName),
                      pHost->BootId, sizeof(pHost->BootId),
                      pHost->KernelRelease, sizeof(pHost->KernelRelease));
  if( zTag ){
    snprintf(pHost->HostName, sizeof(pHost->HostName), "%s", zTag);
  }
}

/*
** Reads all of file zFile ("-": standard input) into a buffer from malloc(),
** NUL-terminated; *pn is the number of bytes read.  The read loop is the
** live recorder's (Host/HostText.c): one copy for both.
*/
char *hostReadText(const char *zFile, size_t *pn){
  if( strcmp(zFile, "-")==0 ) return hostReadFd(0, pn);
  return hostReadFile(zFile, pn);
}

/*
** Length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms,
** no surrogates, nothing above U+10FFFF) at z[0..n), or 0 if there is none.
*/
static int utf8SequenceLength(const unsigned char *z, int n){
  unsigned char c = z[0], lo = 0x80, hi = 0xbf;
  int len, k;
  if( c<0x80 ) return 1;
  if( c>=0xc2 && c<=0xdf ){
    len = 2;
  }else if( c>=0xe0 && c<=0xef ){
    len = 3;
    if( c==0xe0 ) lo = 0xa0;
    if( c==0xed ) hi = 0x9f;
  }else if( c>=0xf0 && c<=0xf4 ){
    len = 4;
    if( c==0xf0 ) lo = 0x90;
    if( c==0xf4 ) hi = 0x8f;
  }else{
    return 0;
  }
  if( n<len ) return 0;
  if( z[1]<lo || z[1]>hi ) return 0;
  for(k=2; k<len; k++){
    if( z[k]<0x80 || z[k]>0xbf ) return 0;
  }
  return len;
}

/*
** Writes z[0..n) escaped as the body of a JSON string (no quotes) to zOut,
** which has room for 6*n bytes; returns the bytes written.  Quote,
** backslash and control characters are escaped, well-formed UTF-8 is
** copied, each other byte becomes U+FFFD.  One escaper for every command
** that prints JSON (info, sql, export).
*/
size_t hostJsonEscape(char *zOut, const unsigned char *z, size_t n){
  static const char zHex[] = "0123456789abcdef";
  size_t i = 0, j = 0;
  int len;
  while( i<n ){
    unsigned char c = z[i];
    if( c>=0x20 && c<0x7f && c!='"' && c!='\\' ){
      zOut[j++] = (char)c;
      i++;
    }else if( c=='"' || c=='\\' ){
      zOut[j++] = '\\';
      zOut[j++] = (char)c;
      i++;
    }else if( c<0x20 || c==0x7f ){
      zOut[j++] = '\\';
      switch( c ){
        case '\b': zOut[j++] = 'b'; break;
        case '\f': zOut[j++] = 'f'; break;
        case '\n': zOut[j++] = 'n'; break;
        case '\r': zOut[j++] = 'r'; break;
        case '\t': zOut[j++] = 't'; break;
        default:
          zOut[j++] = 'u'; zOut[j++] = '0'; zOut[j++] = '0';
          zOut[j++] = zHex[c>>4]; zOut[j++] = zHex[c&15];
          break;
      }
      i++;
    }else if( (len = utf8SequenceLength(z+i, (int)(n-i>8 ? 8 : n-i)))>0 ){
      memcpy(zOut+j, z+i, (size_t)len);
      j += (size_t)len;
      i += (size_t)len;
    }else{
      memcpy(zOut+j, "\\ufffd", 6);
      j += 6;
      i++;
    }
  }
  return j;
}

/* Prints z[0..n) as a JSON string (hostJsonEscape) to standard output. */
void hostJsonText(const unsigned char *z, int n){
  char aBuf[1024];
  char *zBuf = aBuf;
  size_t nOut;
  if( (size_t)n*6 > sizeof(aBuf) ){
    zBuf = malloc((size_t)n*6);
    if( zBuf==0 ){ hostFail("out of memory"); exit(1); }
  }
  nOut = hostJsonEscape(zBuf, z, (size_t)n);
  putchar('"');
  fwrite(zBuf, 1, nOut, stdout);
  putchar('"');
  if( zBuf!=aBuf ) free(zBuf);
}

void hostJsonString(const char *z){
  hostJsonText((const unsigned char*)z, (int)strlen(z));
}
