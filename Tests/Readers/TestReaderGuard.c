/*
** Feeds a reader inputs placed flush against a PROT_NONE page, so that
** reading even one byte past the end faults at once:
**
**   - the prefixes of the sample up to MAX_PREFIX bytes: every one up to
**     8 KB (headers, the first records), then every 61st byte and the
**     three around each 4 KB boundary (where page-based formats split),
**     and the whole sample;
**   - FLIPS copies of the sample (or its first MAX_PREFIX bytes) with one to
**     eight random bytes changed (a fixed seed, so failures repeat).
**
** Each input may be rejected (the reader then must have set an error
** message), but nothing may read out of bounds or crash.  The whole sample
** must import without error.
**
** usage: TestReaderGuard FORMAT SAMPLE SESSION_DIR [MAX_PREFIX [FLIPS]]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "Readers/TraceFormats.h"
#include "Host/TraceZstd.h"

static RTL Rtl;

/*
** The prefix after CUT bytes (see the header): a 64 KB trace.dat costs
** ~9,400 decodes instead of 65,535, so that the sanitizer build of the
** test fits its time on a busy 2-core machine.
*/
#define DENSE_PREFIX 8192
#define PREFIX_STRIDE 61
static size_t nextCut(size_t cut){
  size_t next = cut + PREFIX_STRIDE, b, c;
  if( cut<DENSE_PREFIX ) return cut + 1;
  b = cut/4096*4096;
  if( b+1<=cut ) b += 4096;
  for(c=b-1; c<=b+1; c++){
    if( c>cut && c<next ) next = c;
  }
  return next;
}

static int decode(PTRACE_SESSION pSession, PCTRACE_FORMAT pFormat,
                  const char *zData, size_t n, unsigned long long *pnEvents,
                  RTL_STATUS *pStatus){
  size_t page = 4096, nPages = (n + page - 1)/page + 1;
  char *pMap = mmap(0, nPages*page, PROT_READ|PROT_WRITE,
                    MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  char *pGuard = pMap + (nPages-1)*page;
  TRACE_IMPORT imp;
  RTL_STATUS rc;
  if( pMap==MAP_FAILED ) return -1;
  mprotect(pGuard, page, PROT_NONE);
  memcpy(pGuard - n, zData, n);

  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = "guarded-input";
  imp.FormatName = pFormat->Name;
  imp.Buffer = (const BYTE*)(pGuard - n);
  imp.Length = n;
  pFormat->Detect(&imp);              /* detection reads the input too */
  /* zstd for compressed inputs (trace.dat v7), as the tracestore command
  ** provides it; TRACER_GUARD_NO_ZSTD=1 leaves it out. */
  if( getenv("TRACER_GUARD_NO_ZSTD")==0 ) imp.Zstd = TraceZstdDecompressor();
  rc = TraceImportBegin(&imp);
  if( RTL_SUCCESS(rc) ) rc = pFormat->Import(&imp);
  rc = TraceImportEnd(&imp);
  if( !RTL_SUCCESS(rc) && imp.Error.Message[0]==0 ){
    fprintf(stderr, "FAIL: %zu-byte input rejected (%s) with no message\n",
            n, RtlStatusText(rc));
    return -1;
  }
  *pnEvents = imp.Events;
  *pStatus = rc;
  munmap(pMap, nPages*page);
  return 0;
}

int main(int argc, char **argv){
  FILE *f;
  char *zData, *zCopy;
  long n;
  size_t cut, nMax = 8192, nFlips = 0, i, nCases = 0, nRejected = 0;
  unsigned long long nEvents;
  unsigned int seed = 12345;
  RTL_STATUS rc;
  PTRACE_SESSION pSession;
  PCTRACE_FORMAT pFormat;
  RTL_ERROR err;

  if( argc<4 ){
    fprintf(stderr, "usage: %s FORMAT SAMPLE SESSION [MAX_PREFIX [FLIPS]]\n",
            argv[0]);
    return 2;
  }
  InitializeRtl(&Rtl);
  pFormat = TraceFormatFromName(argv[1]);
  if( pFormat==0 ){ fprintf(stderr, "unknown format %s\n", argv[1]); return 2; }
  if( argc>4 ) nMax = strtoul(argv[4], 0, 0);
  if( argc>5 ) nFlips = strtoul(argv[5], 0, 0);
  f = fopen(argv[2], "rb");
  if( !f ){ perror(argv[2]); return 1; }
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  zData = malloc(n);
  zCopy = malloc(n);
  if( fread(zData, 1, n, f)!=(size_t)n ){ perror("read"); return 1; }
  fclose(f);

  pSession = calloc(1, sizeof(*pSession));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, argv[3], pSession, &err)) ){
    fprintf(stderr, "%s\n", err.Message);
    return 1;
  }
  for(cut=1; cut<=nMax && cut<(size_t)n; cut=nextCut(cut)){
    if( decode(pSession, pFormat, zData, cut, &nEvents, &rc) ) return 1;
    nCases++;
    nRejected += !RTL_SUCCESS(rc);
  }
  for(i=0; i<nFlips; i++){
    size_t len = (size_t)n < nMax ? (size_t)n : nMax, k, nChange;
    memcpy(zCopy, zData, len);
    nChange = 1 + rand_r(&seed) % 8;
    for(k=0; k<nChange; k++){
      zCopy[rand_r(&seed) % len] = (char)rand_r(&seed);
    }
    if( decode(pSession, pFormat, zCopy, len, &nEvents, &rc) ) return 1;
    nCases++;
    nRejected += !RTL_SUCCESS(rc);
  }
  if( decode(pSession, pFormat, zData, n, &nEvents, &rc) ) return 1;
  if( !RTL_SUCCESS(rc) ){
    fprintf(stderr, "FAIL: the whole sample was rejected\n");
    return 1;
  }
  TraceSessionClose(pSession);
  printf("ok: %zu guarded prefixes and flipped copies (%zu rejected with a "
         "message) and the whole sample (%llu events) decoded without "
         "reading past the end\n", nCases, nRejected, nEvents);
  free(pSession);
  free(zData);
  free(zCopy);
  return 0;
}
