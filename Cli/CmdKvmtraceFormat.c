/*
** CmdKvmtraceFormat.c: `tracestore kvmtrace-format`: print a kvmtrace
** stream as the seed's kvmtrace_format script does with the same rules.
**
** Zone: hosted (the command-line front end): libc.  Owns the command
** line, mapping the binary input and printing.  Calls the core kvmtrace
** formatter (Readers/Decoders/Kvmtrace/KvmtraceFormat.h) and HostUtil.c
** (errors, reading the FORMATS file).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "Cli/Cli.h"
#include "Host/HostPort.h"
#include "Readers/Decoders/Kvmtrace/KvmtraceFormat.h"

static const char zKvmtraceFormatHelp[] =
"usage: tracestore kvmtrace-format FORMATS [-c MHZ] < BINARY\n"
"\n"
"Prints the kvmtrace binary record stream on stdin as text, one line per\n"
"record by the rules in FORMATS (lines `EVENT_ID FORMAT`, FORMAT a Python\n"
"%-format over tsc, event, reltsc, pid, vcpu and the data words 1..5), byte\n"
"for byte as the kvmtrace_format script of seeds/004 prints it: the rule\n"
"of the record's event id, or rule 0 for ids without one.  -c MHZ (an\n"
"integer) prints %(tsc) as seconds, tsc / (MHZ * 1e6).\n"
"\n"
"A record cut off by the end of the input is reported with its byte\n"
"offset and exit status 1, after every complete record is printed.\n";

#define KVMTRACE_WINDOW   (16u << 20)    /* mapped stdin fed per call */
#define KVMTRACE_CHUNK    (1u << 20)     /* read() size for a pipe */

static BOOL kvmtraceWrite(PVOID pCtx, PCSZ z, SIZE_T n){
  (void)pCtx;
  while( n>0 ){
    ssize_t w = write(1, z, n);
    if( w<0 ){
      if( errno==EINTR ) continue;
      return FALSE;
    }
    z += w;
    n -= (SIZE_T)w;
  }
  return TRUE;
}

/* Python's int(TEXT) for base 10: blanks around, a sign, digits with
** single underscores between them.  Fails outside the 64-bit range. */
static int parsePythonInt(const char *z, long long *pValue){
  unsigned long long v = 0;
  int neg = 0, nDigit = 0, bUnderscore = 0;
  while( *z==' ' || (*z>='\t' && *z<='\r') ) z++;
  if( *z=='+' || *z=='-' ) neg = (*z++=='-');
  for(; *z; z++){
    if( *z=='_' ){
      if( nDigit==0 || bUnderscore ) return 0;
      bUnderscore = 1;
      continue;
    }
    if( *z<'0' || *z>'9' ) break;
    if( v > (0x7fffffffffffffffULL - (unsigned)(*z-'0'))/10 ) return 0;
    v = v*10 + (unsigned)(*z-'0');
    nDigit++;
    bUnderscore = 0;
  }
  while( *z==' ' || (*z>='\t' && *z<='\r') ) z++;
  if( *z!=0 || nDigit==0 || bUnderscore ) return 0;
  *pValue = neg ? -(long long)v : (long long)v;
  return 1;
}

/* Feeds stdin to the formatter: mapped when it is a regular file (in
** windows, unmapping what is behind), else read in chunks with the cut
** record carried over.  Memory stays constant either way. */
static RTL_STATUS kvmtraceFeedStdin(PKVMTRACE_FORMATTER pFmt){
  struct stat st;
  RTL_STATUS rc = RTL_STATUS_OK;
  SIZE_T nUsed;
  if( fstat(0, &st)==0 && S_ISREG(st.st_mode) && st.st_size>0 ){
    off_t iStart = lseek(0, 0, SEEK_CUR);
    size_t n = (size_t)st.st_size;
    const BYTE *p;
    size_t i;
    if( iStart<0 ) iStart = 0;
    if( (size_t)iStart>=n ){
      return KvmtraceFormatFeed(pFmt, (const BYTE*)"", 0, TRUE, &nUsed);
    }
    p = hostMapFd(0, n);
    if( p!=0 ){
      size_t iDiscarded = 0;
      for(i=(size_t)iStart; RTL_SUCCESS(rc); ){
        size_t nWin = n-i < KVMTRACE_WINDOW ? n-i : KVMTRACE_WINDOW;
        int bEnd = (i+nWin==n);
        rc = KvmtraceFormatFeed(pFmt, p+i, nWin, bEnd, &nUsed);
        i += nUsed;
        if( bEnd ) break;
        /* What was consumed is never read again. */
        Rtl.DiscardMemory(&Rtl, p+iDiscarded, i - iDiscarded);
        iDiscarded = i & ~(size_t)4095;
      }
      hostUnmapFd(p, n);
      return rc;
    }
  }
  {
    BYTE *buf = malloc(KVMTRACE_CHUNK);
    size_t nHave = 0;
    if( buf==0 ){ hostFail("out of memory"); return RTL_STATUS_NO_MEMORY; }
    for(;;){
      ssize_t got = read(0, buf+nHave, KVMTRACE_CHUNK-nHave);
      if( got<0 ){
        if( errno==EINTR ) continue;
        rc = RtlSetError(&pFmt->Error, RTL_STATUS_INVALID_PARAMETER, 0, ~0ULL,
                         "<stdin>: read error: %s", strerror(errno));
        break;
      }
      if( got==0 ){
        rc = KvmtraceFormatFeed(pFmt, buf, nHave, TRUE, &nUsed);
        break;
      }
      nHave += (size_t)got;
      rc = KvmtraceFormatFeed(pFmt, buf, nHave, FALSE, &nUsed);
      if( !RTL_SUCCESS(rc) ) break;
      memmove(buf, buf+nUsed, nHave-nUsed);
      nHave -= nUsed;
    }
    free(buf);
  }
  return rc;
}

int cmdKvmtraceFormat(int argc, char **argv){
  const char *zFormats = 0, *zMhz = 0;
  long long iMhz = 0;
  char *zText;
  size_t nText = 0;
  KVMTRACE_RULES rules;
  KVMTRACE_FORMATTER fmt;
  RTL_ERROR err;
  RTL_STATUS rc;
  int i;

  for(i=0; i<argc; i++){
    if( strcmp(argv[i], "--help")==0 || strcmp(argv[i], "-h")==0 ){
      fputs(zKvmtraceFormatHelp, stdout);
      return 0;
    }else if( strcmp(argv[i], "-c")==0 && i+1<argc ){
      zMhz = argv[++i];
    }else if( strncmp(argv[i], "-c", 2)==0 && argv[i][2]!=0 ){
      zMhz = argv[i]+2;
    }else if( argv[i][0]=='-' && argv[i][1]!=0 ){
      hostFail("kvmtrace-format: unknown option '%s'", argv[i]);
      fputs(zKvmtraceFormatHelp, stderr);
      return 2;
    }else if( zFormats==0 ){
      zFormats = argv[i];
    }else{
      fputs(zKvmtraceFormatHelp, stderr);
      return 2;
    }
  }
  if( zFormats==0 ){
    fputs(zKvmtraceFormatHelp, stderr);
    return 2;
  }
  if( zMhz && !parsePythonInt(zMhz, &iMhz) ){
    hostFail("kvmtrace-format: -c: '%s' is not an integer MHz rate", zMhz);
    return 2;
  }

  zText = hostReadText(zFormats, &nText);
  if( zText==0 ){
    hostFail("%s: %s", zFormats, strerror(errno));
    return 1;
  }
  memset(&err, 0, sizeof(err));
  rc = KvmtraceRulesParse(&Rtl, zFormats, zText, nText, iMhz, &rules, &err);
  if( !RTL_SUCCESS(rc) ){
    hostFail("%s", err.Message);
    free(zText);
    return 1;
  }

  memset(&fmt, 0, sizeof(fmt));
  fmt.Rules = &rules;
  fmt.InputName = "<stdin>";
  fmt.Write = kvmtraceWrite;
  rc = KvmtraceFormatterInitialize(&fmt);
  if( RTL_SUCCESS(rc) ){
    kvmtraceFeedStdin(&fmt);
    rc = KvmtraceFormatterFinish(&fmt);
  }
  if( !RTL_SUCCESS(rc) ){
    hostFail("%s", fmt.Error.Message);
  }
  KvmtraceRulesFree(&rules);
  free(zText);
  return RTL_SUCCESS(rc) ? 0 : 1;
}
