/*
** Feeds the ftrace text decoder inputs placed flush against a PROT_NONE
** page, so that reading even one byte past the end faults at once.  Every
** prefix of the sample's first 8 KB (and the whole sample) is decoded; a
** prefix may be rejected (a cut line), but nothing may read past its end.
**
** usage: TestReaderGuard SAMPLE SESSION_DIR
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "Readers/TraceImport.h"

static RTL Rtl;

static int decode(PTRACE_SESSION pSession, const char *zData, size_t n,
                  unsigned long long *pnEvents){
  size_t page = 4096, nPages = (n + page - 1)/page + 1;
  char *pMap = mmap(0, nPages*page, PROT_READ|PROT_WRITE,
                    MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  char *pGuard = pMap + (nPages-1)*page;
  TRACE_IMPORT imp;
  if( pMap==MAP_FAILED ) return -1;
  mprotect(pGuard, page, PROT_NONE);
  memcpy(pGuard - n, zData, n);

  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = "guarded-input";
  imp.FormatName = "ftrace";
  imp.Buffer = (const BYTE*)(pGuard - n);
  imp.Length = n;
  if( RTL_SUCCESS(TraceImportBegin(&imp)) ) FtraceTextImport(&imp);
  TraceImportEnd(&imp);
  *pnEvents = imp.Events;
  munmap(pMap, nPages*page);
  return 0;
}

int main(int argc, char **argv){
  FILE *f;
  char *zData;
  long n;
  size_t cut, nCases = 0;
  unsigned long long nEvents, nMaxEvents = 0;
  PTRACE_SESSION pSession;
  RTL_ERROR err;

  if( argc!=3 ){ fprintf(stderr, "usage: %s SAMPLE SESSION\n", argv[0]); return 2; }
  InitializeRtl(&Rtl);
  f = fopen(argv[1], "rb");
  if( !f ){ perror(argv[1]); return 1; }
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  zData = malloc(n);
  if( fread(zData, 1, n, f)!=(size_t)n ){ perror("read"); return 1; }
  fclose(f);

  pSession = calloc(1, sizeof(*pSession));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, argv[2], pSession, &err)) ){
    fprintf(stderr, "%s\n", err.Message);
    return 1;
  }
  for(cut=1; cut<=8192 && cut<=(size_t)n; cut++){
    if( decode(pSession, zData, cut, &nEvents) ) return 1;
    nCases++;
  }
  if( decode(pSession, zData, n, &nEvents) ) return 1;
  nMaxEvents = nEvents;
  TraceSessionClose(pSession);
  printf("ok: %zu guarded prefixes and the whole sample (%llu events) decoded"
         " without reading past the end\n", nCases, nMaxEvents);
  free(pSession);
  free(zData);
  return 0;
}
