/*
** BenchPlotSession.c: writes the session that bench_plot.sh draws: N page
** faults of 4 processes (16 threads) over 8 modules, 10 % of them hard,
** half the modules executable, with module offsets; and the same points
** for matplotlib (POINTS: x and y as float64, category and class as
** uint8, one record of 18 bytes per fault, in the order of the faults).
**
** usage: BenchPlotSession SESSION N POINTS
**
** Written through the store API (not tracestore import) because perf
** script text carries no mappings, so imported faults would have no
** module offset and nothing would be drawn.  Deterministic (xorshift).
**
** Zone: benchmark program (libc), linked with the core's store.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceSchema.h"
#include "TraceStore/TraceStore.h"

static RTL Rtl;

static unsigned long long xorshift(unsigned long long *s){
  unsigned long long x = *s;
  x ^= x << 13; x ^= x >> 7; x ^= x << 17;
  return *s = x;
}

static void die(const char *z, PRTL_ERROR e){
  fprintf(stderr, "BenchPlotSession: %s: %s\n", z, e ? e->Message : "");
  exit(1);
}

int main(int argc, char **argv){
  static TRACE_SESSION session;
  RTL_ERROR err;
  PTRACE_STORE pFaults, pProc;
  ULONG aModule[8], aComm[4];
  unsigned long long aSize[8], seed = 88172645463325252ULL, i, n;
  const long long t0 = 1000000000LL;
  FILE *pPoints;
  char z[64];
  int k;

  if( argc!=4 ){
    fprintf(stderr, "usage: BenchPlotSession SESSION N POINTS\n");
    return 2;
  }
  n = strtoull(argv[2], 0, 10);
  InitializeRtl(&Rtl);
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, argv[1], &session, &err)) ){
    die(argv[1], &err);
  }
  if( !RTL_SUCCESS(TraceSessionOpenStore(&session, &TracePageFaultSchema,
                                         &pFaults, &err))
   || !RTL_SUCCESS(TraceSessionOpenStore(&session, &TraceProcessSchema,
                                         &pProc, &err)) ){
    die("open store", &err);
  }
  pPoints = fopen(argv[3], "wb");
  if( pPoints==0 ) die(argv[3], 0);
  for(k=0; k<8; k++){
    snprintf(z, sizeof(z), "/usr/lib/libbench%d.so", k);
    TraceStringIntern(&session.Strings, z, (ULONG)strlen(z), &aModule[k]);
    aSize[k] = (unsigned long long)(k + 1) << 22;
  }
  for(k=0; k<4; k++){
    PROCESS_RECORD p;
    snprintf(z, sizeof(z), "bench%d", k);
    TraceStringIntern(&session.Strings, z, (ULONG)strlen(z), &aComm[k]);
    memset(&p, 0, sizeof(p));
    p.StartTs = t0 + k*500000000LL;
    p.Pid = 1000 + k;
    p.NameId = aComm[k];
    p.FileNameId = TRACE_STRING_NULL;
    TraceStoreAppend(pProc, &p, 0);
  }
  TraceStringCommit(&session.Strings);
  TraceStoreCommit(pProc, TRACE_COMMIT_ALL);

  for(i=0; i<n; i++){
    PAGE_FAULT_RECORD r;
    unsigned long long x = xorshift(&seed);
    int proc = (int)(x & 3), mod = (int)((x >> 2) & 7);
    unsigned char aPoint[18];
    double rX, rY;
    memset(&r, 0, sizeof(r));
    /* Each process faults from its start to 10 s after the first's. */
    r.Timestamp = t0 + proc*500000000LL
                + (long long)((i*(10000000000ULL - proc*500000000ULL))/n);
    r.ModuleOffset = (x >> 8) % aSize[mod];
    r.Address = 0x7f0000000000ULL + ((unsigned long long)mod << 28)
              + r.ModuleOffset;
    r.Ip = TRACE_NULL_ULONGLONG;
    r.IpModuleOffset = TRACE_NULL_ULONGLONG;
    r.Tid = 1000 + proc*10 + (int)((x >> 40) & 3);
    r.Pid = 1000 + proc;
    r.ErrorCode = TRACE_NULL_ULONG;
    r.NameId = aModule[0];
    r.CommId = aComm[proc];
    r.IpSymbolId = TRACE_NULL_ULONG;
    r.Cpu = TRACE_NULL_ULONG;
    r.ModuleId = aModule[mod];
    r.IpModuleId = TRACE_NULL_ULONG;
    r.FaultKindId = TRACE_NULL_ULONG;
    r.Hard = ((x >> 44) % 10)==0;
    r.Code = mod & 1;
    if( !RTL_SUCCESS(TraceStoreAppend(pFaults, &r, 0)) ) die("append", 0);
    if( (i & 65535)==65535 ) TraceStoreCommit(pFaults, TRACE_COMMIT_ALL);
    rX = (r.Timestamp - t0)/1e9;
    rY = (double)(r.ModuleOffset & ~4095ULL);
    memcpy(aPoint, &rX, 8);
    memcpy(aPoint + 8, &rY, 8);
    aPoint[16] = (unsigned char)proc;
    aPoint[17] = (unsigned char)((r.Hard ? 1 : 0) + (r.Code ? 2 : 0));
    fwrite(aPoint, 1, sizeof(aPoint), pPoints);
  }
  TraceStoreCommit(pFaults, TRACE_COMMIT_ALL);
  TraceSessionClose(&session);
  if( fclose(pPoints)!=0 ) die(argv[3], 0);
  return 0;
}
