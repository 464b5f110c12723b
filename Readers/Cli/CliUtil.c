/*
** CliUtil.c: the small helpers every command file uses (declared in Cli.h):
** the process's RTL, error lines, the clock, a new session, reading a
** file or standard input, and JSON strings.
**
** Zone: hosted (the command-line front end): libc.  Owns nothing but these
** helpers; calls libc and the live recorder's file reader
** (Readers/Live/LiveText.h).  Main.c dispatches to the Cmd*.c files and
** they call down here, so the arrows run Main -> Cmd* -> CliUtil.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Cli.h"
#include "Readers/Live/LiveText.h"

/* The RTL of the process, filled in by main() with InitializeRtl(). */
RTL Rtl;

void cliFailV(const char *zWho, const char *zFormat, va_list ap){
  fprintf(stderr, "%s: ", zWho);
  vfprintf(stderr, zFormat, ap);
  fprintf(stderr, "\n");
}

void cliFail(const char *zFormat, ...){
  va_list ap;
  va_start(ap, zFormat);
  cliFailV("tracestore", zFormat, ap);
  va_end(ap);
}

double cliNowSeconds(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec/1e9;
}

/* Allocates a TRACE_SESSION (large) or exits. */
PTRACE_SESSION cliNewSession(void){
  PTRACE_SESSION p = calloc(1, sizeof(*p));
  if( p==0 ){ cliFail("out of memory"); exit(1); }
  return p;
}

/*
** Reads all of file zFile ("-": standard input) into a buffer from malloc(),
** NUL-terminated; *pn is the number of bytes read.  The read loop is the
** live recorder's (Readers/Live/LiveText.c): one copy for both.
*/
char *cliReadText(const char *zFile, size_t *pn){
  if( strcmp(zFile, "-")==0 ) return liveReadFd(0, pn);
  return liveReadFile(zFile, pn);
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
** Prints z[0..n) as a JSON string: quote, backslash and control characters
** escaped, well-formed UTF-8 copied, each other byte replaced by U+FFFD.
*/
void cliJsonText(const unsigned char *z, int n){
  int i = 0, len;
  putchar('"');
  while( i<n ){
    unsigned char c = z[i];
    if( c=='"' || c=='\\' ){
      putchar('\\');
      putchar(c);
      i++;
    }else if( c<0x20 || c==0x7f ){
      switch( c ){
        case '\b': fputs("\\b", stdout); break;
        case '\f': fputs("\\f", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:   printf("\\u%04x", c); break;
      }
      i++;
    }else if( (len = utf8SequenceLength(z+i, n-i))>0 ){
      fwrite(z+i, 1, (size_t)len, stdout);
      i += len;
    }else{
      fputs("\\ufffd", stdout);
      i++;
    }
  }
  putchar('"');
}

void cliJsonString(const char *z){
  cliJsonText((const unsigned char*)z, (int)strlen(z));
}
