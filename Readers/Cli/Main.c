/*
** Main.c: the `tracestore` command: dispatch to one file per command, and
** the small helpers they share (Cli.h).
**
** Zone: hosted (the command-line front end): libc, pthreads, SQLite's API.
** Reaches sessions and inputs through the core's APIs (Readers/TraceImport.h,
** TraceStore/TraceStore.h) and SQL through the extension's public header
** (Sqlite3Ext/tracestore.h) only.
**
** Usage:
**   tracestore import [--format F] -o SESSION FILE...
**   tracestore record [-e SYSTEM[:EVENT]]... -o SESSION [-- COMMAND...]
**   tracestore info [--json] SESSION
**   tracestore sql [-c|--csv|--json] SESSION ["SQL" | -f FILE | - < FILE]
**   tracestore kvmtrace-format FORMATS [-c MHZ] < BINARY
**   tracestore schema [--markdown]
**
** Decoding and appending happen in the CRT-free core (Readers/, TraceStore/)
** through the RTL; the command files parse arguments and print.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "Cli.h"

RTL Rtl;

void cliFail(const char *zFormat, ...){
  va_list ap;
  fprintf(stderr, "tracestore: ");
  va_start(ap, zFormat);
  vfprintf(stderr, zFormat, ap);
  va_end(ap);
  fprintf(stderr, "\n");
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
** NUL-terminated; *pn is the number of bytes read.
*/
char *cliReadText(const char *zFile, size_t *pn){
  FILE *in = strcmp(zFile, "-")==0 ? stdin : fopen(zFile, "rb");
  char *z = 0, *zNew;
  size_t n = 0, nAlloc = 0, nGot;
  int e;
  if( in==0 ) return 0;
  for(;;){
    if( nAlloc-n<4096 ){
      nAlloc = nAlloc ? nAlloc*2 : 65536;
      zNew = realloc(z, nAlloc);
      if( zNew==0 ){ e = ENOMEM; goto error; }
      z = zNew;
    }
    nGot = fread(z+n, 1, nAlloc-n-1, in);
    n += nGot;
    if( nGot==0 ) break;
  }
  if( ferror(in) ){ e = errno ? errno : EIO; goto error; }
  if( in!=stdin ) fclose(in);
  z[n] = 0;
  *pn = n;
  return z;
error:
  if( in!=stdin ) fclose(in);
  free(z);
  errno = e;
  return 0;
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

static const char zMainHelp[] =
"usage: tracestore COMMAND [ARGS]\n"
"\n"
"commands:\n"
"  import -o SESSION FILE...   decode traces into a session\n"
"  record [-e EVENT]... -o SESSION [-- COMMAND...]\n"
"                              record tracefs events live into a session\n"
"  info [--json] SESSION       list a session's stores\n"
"  sql [--csv|--json] SESSION \"SQL\"\n"
"                              query a session in SQL (or -f FILE, stdin)\n"
"  kvmtrace-format FORMATS [-c MHZ] < BINARY\n"
"                              print a kvmtrace stream as the seed's rules do\n"
"  schema [--markdown]         the SQL tables, views and functions (SCHEMA.md)\n"
"\n"
"`tracestore COMMAND --help` describes each command.  In sqlite3, the\n"
"same tables are available with .load tracestore and\n"
"SELECT tracestore_attach('SESSION').\n";

int main(int argc, char **argv){
  InitializeRtl(&Rtl);
  if( argc<2 ){
    fputs(zMainHelp, stderr);
    return 2;
  }
  if( strcmp(argv[1], "--help")==0 || strcmp(argv[1], "-h")==0
   || strcmp(argv[1], "help")==0 ){
    fputs(zMainHelp, stdout);
    return 0;
  }
  if( strcmp(argv[1], "import")==0 ) return cmdImport(argc-2, argv+2);
  if( strcmp(argv[1], "info")==0 ) return cmdInfo(argc-2, argv+2);
  if( strcmp(argv[1], "sql")==0 ) return cmdSql(argc-2, argv+2);
  if( strcmp(argv[1], "record")==0 ) return cmdRecord(argc-2, argv+2);
  if( strcmp(argv[1], "schema")==0 ) return cmdSchema(argc-2, argv+2);
  if( strcmp(argv[1], "kvmtrace-format")==0 ){
    return cmdKvmtraceFormat(argc-2, argv+2);
  }
  cliFail("unknown command '%s'", argv[1]);
  fputs(zMainHelp, stderr);
  return 2;
}
