/*
** What the libFuzzer harnesses share: see FuzzCommon.h.
*/
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "FuzzCommon.h"
#include "Host/TraceZstd.h"
#include "TraceStore/TraceRollup.h"

static char zTempRoot[512];       /* removed at exit */
int fuzzReplayingSeeds;

static int removeEntry(const char *z, const struct stat *st, int type,
                       struct FTW *ftw){
  (void)st; (void)ftw;
  if( type==FTW_DP ) rmdir(z); else unlink(z);
  return 0;
}

void fuzzRemoveDir(const char *z){
  nftw(z, removeEntry, 16, FTW_DEPTH | FTW_PHYS);
}

static void removeTempRoot(void){
  fuzzRemoveDir(zTempRoot);
}

void fuzzMakeTemp(char *zOut, size_t nOut){
  static int nMade = 0;
  if( zTempRoot[0]==0 ){
    const char *zTmp = getenv("TMPDIR");
    snprintf(zTempRoot, sizeof(zTempRoot), "%s/tracer-fuzz-XXXXXX",
             zTmp ? zTmp : "/tmp");
    if( mkdtemp(zTempRoot)==0 ){ perror(zTempRoot); exit(1); }
    atexit(removeTempRoot);
  }
  snprintf(zOut, nOut, "%s/%d", zTempRoot, nMade++);
  if( mkdir(zOut, 0700) ){ perror(zOut); exit(1); }
}

int fuzzWriteFile(const char *zPath, const uint8_t *a, size_t n){
  FILE *f = fopen(zPath, "wb");
  if( f==0 ) return 1;
  if( n && fwrite(a, 1, n, f)!=n ){ fclose(f); return 1; }
  return fclose(f)!=0;
}

uint8_t *fuzzReadFile(const char *zPath, size_t *pn){
  FILE *f = fopen(zPath, "rb");
  uint8_t *a;
  long n;
  if( f==0 ){ perror(zPath); exit(1); }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  a = malloc(n>0 ? n : 1);
  if( n<0 || a==0 || fread(a, 1, n, f)!=(size_t)n ){ perror(zPath); exit(1); }
  fclose(f);
  *pn = (size_t)n;
  return a;
}

/* The size of a file, or 0 (a directory, an error). */
static long long fuzzFileSize(const char *zPath){
  struct stat st;
  return stat(zPath, &st)==0 && S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
}

PTRACE_EVENT_TABLE fuzzEventFormats;

int fuzzImport(PRTL pRtl, const char *zSession, const char *zFormat,
               const char *zInput){
  static TRACE_SESSION session;     /* large: not on the stack */
  PCTRACE_FORMAT pFormat = TraceFormatFromName(zFormat);
  TRACE_IMPORT imp;
  RTL_ERROR err;
  RTL_STATUS rc;

  if( pFormat==0 ){ fprintf(stderr, "no format %s\n", zFormat); exit(1); }
  memset(&session, 0, sizeof(session));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(pRtl, zSession, &session, &err)) ){
    fprintf(stderr, "%s\n", err.Message);
    exit(1);
  }
  memset(&imp, 0, sizeof(imp));
  imp.Rtl = pRtl;
  imp.Session = &session;
  imp.Path = zInput;
  imp.Zstd = TraceZstdDecompressor();
  /* Inputs of odd length get a reorder window of three span events, so
  ** that events placed after their turn (SpanReorder.c) are fuzzed too. */
  imp.ReorderWindow = (fuzzFileSize(zInput) & 1) ? 3 : 0;
  imp.EventFormats = fuzzEventFormats;
  rc = TraceImportRun(&imp, pFormat, 0);
  TraceSessionClose(&session);
  return RTL_SUCCESS(rc) ? 0 : 1;
}

/* Reads every column of every committed record of p back. */
static void readStore(PTRACE_SESSION s, PTRACE_STORE p){
  TRACE_STORE_SNAPSHOT snap;
  RTL_ERROR err;
  ULONGLONG i;
  ULONG j;
  volatile ULONGLONG sum = 0;
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceStoreTakeSnapshot(p, &snap, &err)) ) return;
  for(i=0; i<snap.RecordCount; i++){
    for(j=0; j<p->Header->NumberOfColumns; j++){
      PCTRACE_COLUMN_DESCRIPTOR c = &p->Header->Columns[j];
      LONGLONG v;
      if( !TraceStoreReadColumn(p, i, c, &v) ) continue;
      sum += (ULONGLONG)v;
      if( c->Flags & TRACE_COLUMN_STRING_ID ){
        PCSZ z;
        ULONG n;
        if( RTL_SUCCESS(TraceStringLookup(&s->Strings, (ULONG)v, &z, &n)) ){
          sum += n ? z[n-1] : 0;
        }
      }
    }
  }
}

int fuzzReadSession(PRTL pRtl, const char *zSession){
  static TRACE_SESSION session;
  RTL_ERROR err;
  ULONG i;
  memset(&session, 0, sizeof(session));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(pRtl, zSession, &session, &err)) ){
    return 1;
  }
  for(i=0; i<session.NumberOfStores; i++){
    readStore(&session, &session.Stores[i]);
  }
  readStore(&session, &session.Strings.Index);
  TraceSessionClose(&session);
  return 0;
}

int fuzzReadRollups(PRTL pRtl, const char *zSession){
  static TRACE_SESSION session;
  static const SIZE_T aRowSize[TraceRollupTableMaximum] = {
    [TraceRollupNames] = sizeof(TRACE_ROLLUP_NAME_ROW),
    [TraceRollupRates] = sizeof(TRACE_ROLLUP_RATE_ROW),
    [TraceRollupFaults] = sizeof(TRACE_ROLLUP_FAULT_ROW),
    [TraceRollupKvm] = sizeof(TRACE_ROLLUP_KVM_ROW),
    [TraceRollupSpans] = sizeof(TRACE_ROLLUP_SPAN_ROW),
    [TraceRollupSpanOpen] = sizeof(ULONGLONG),
    [TraceRollupSyscalls] = sizeof(TRACE_ROLLUP_SYSCALL_ROW),
    [TraceRollupLines] = sizeof(TRACE_ROLLUP_LINE_ROW),
  };
  unsigned char aRow[256];
  RTL_ERROR err;
  ULONG i, t;
  int rc = 0;
  memset(&session, 0, sizeof(session));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(pRtl, zSession, &session, &err)) ){
    return 1;
  }
  for(i=0; i<session.NumberOfStores; i++){
    PTRACE_ROLLUP pRollup = 0;
    TRACE_ROLLUP_STATUS st;
    if( !RTL_SUCCESS(TraceRollupRead(pRtl, &session, &session.Stores[i],
                                     &pRollup, &st, &err)) ){
      rc = 1;
      continue;
    }
    for(t=0; t<TraceRollupTableMaximum; t++){
      ULONGLONG k, n = TraceRollupRowCount(pRollup, (TRACE_ROLLUP_TABLE_ID)t);
      for(k=0; k<n && aRowSize[t]; k++){
        TraceRollupGetRow(pRollup, (TRACE_ROLLUP_TABLE_ID)t, k, aRow,
                          aRowSize[t]);
      }
    }
    TraceRollupFree(pRollup);
  }
  TraceSessionClose(&session);
  return rc;
}

#ifndef FUZZ_REPLAY_MAIN

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  fuzzOne(aData, nData);
  return 0;
}

/* run-fuzz.sh names the corpus in FUZZ_CORPUS: the harness's own seeds
** go there before libFuzzer reads it. */
int LLVMFuzzerInitialize(int *pArgc, char ***pArgv){
  const char *zCorpus = getenv("FUZZ_CORPUS");
  (void)pArgc; (void)pArgv;
  if( zCorpus ) fuzzSeeds(zCorpus);
  return 0;
}

#else

static int replayFile(const char *zPath, int *pnRun){
  size_t n;
  uint8_t *a = fuzzReadFile(zPath, &n);
  int rc = fuzzOne(a, n);
  printf("%s: %s\n", zPath, rc ? "rejected" : "taken");
  free(a);
  (*pnRun)++;
  return 0;
}

static void replayDir(const char *zDir, int *pnRun){
  DIR *d = opendir(zDir);
  struct dirent *e;
  while( d && (e = readdir(d))!=0 ){
    char z[1024];
    if( e->d_name[0]=='.' ) continue;
    snprintf(z, sizeof(z), "%s/%s", zDir, e->d_name);
    replayFile(z, pnRun);
  }
  if( d ) closedir(d);
}

int main(int argc, char **argv){
  int i, nRun = 0;
  for(i=1; i<argc; i++){
    struct stat st;
    if( strcmp(argv[i], "--seeds")==0 ){
      char zDir[600];
      fuzzMakeTemp(zDir, sizeof(zDir));
      fuzzSeeds(zDir);
      fuzzReplayingSeeds = 1;
      replayDir(zDir, &nRun);
      fuzzReplayingSeeds = 0;
    }else if( stat(argv[i], &st)==0 && S_ISDIR(st.st_mode) ){
      replayDir(argv[i], &nRun);
    }else{
      replayFile(argv[i], &nRun);
    }
  }
  printf("%d inputs replayed without a crash\n", nRun);
  return nRun==0;
}

#endif
