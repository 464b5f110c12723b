/*
** One libFuzzer harness for every reader, parameterized at compile time:
**
**   FUZZ_FORMAT     the reader's name as `tracestore import --format` takes
**                   it ("ftrace", "trace-dat", ...)
**   FUZZ_DIR_FILE   (uftrace only) the input replaces this one file of a
**   FUZZ_DIR_TEMPLATE  copy of the record directory FUZZ_DIR_TEMPLATE
**
** Each input is written to a temporary file, imported the way `tracestore
** import` does (TraceImportMapInput, Begin, the format's Import, End) into a
** fresh temporary session, and the session is then opened read-only and
** every column of every record of every store read back through the store
** API, every string-id column resolved with TraceStringLookup.  A bad input
** must give an error, never a crash, a sanitizer report or a hang.
**
** Built with FUZZ_REPLAY_MAIN (the regular build), the same code gets a
** main() that runs each FILE (or each file of each DIRECTORY) given on the
** command line once: the regression tests replay the crashing inputs of
** Tests/Data/fuzz-regressions/TARGET/ through it.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


#include "Readers/TraceImport.h"
#include "Readers/TraceZstd.h"

#ifndef FUZZ_FORMAT
# error "define FUZZ_FORMAT"
#endif

static RTL Rtl;
static PCTRACE_FORMAT pFormat;
static PTRACE_SESSION pSession;
static char zTemp[512];           /* our temporary directory */
static char zInput[600];          /* the file or directory imported */
static char zInputFile[700];      /* the file the input is written to */
static char zSessionDir[600];

/* Removes the files of directory z (not recursive) and z itself. */
static void removeDir(const char *z){
  DIR *d = opendir(z);
  struct dirent *e;
  char zPath[1024];
  if( d==0 ) return;
  while( (e = readdir(d))!=0 ){
    if( strcmp(e->d_name, ".")==0 || strcmp(e->d_name, "..")==0 ) continue;
    snprintf(zPath, sizeof(zPath), "%s/%s", z, e->d_name);
    unlink(zPath);
  }
  closedir(d);
  rmdir(z);
}

static void cleanup(void){
  removeDir(zSessionDir);
#ifdef FUZZ_DIR_FILE
  removeDir(zInput);
#else
  unlink(zInput);
#endif
  rmdir(zTemp);
}

static int writeFile(const char *zPath, const uint8_t *a, size_t n){
  FILE *f = fopen(zPath, "wb");
  if( f==0 ) return 1;
  if( n && fwrite(a, 1, n, f)!=n ){ fclose(f); return 1; }
  return fclose(f)!=0;
}

#ifdef FUZZ_DIR_FILE
/* Copies the files of the template record directory into zInput. */
static void copyTemplate(void){
  DIR *d = opendir(FUZZ_DIR_TEMPLATE);
  struct dirent *e;
  if( d==0 ){ perror(FUZZ_DIR_TEMPLATE); exit(1); }
  mkdir(zInput, 0700);
  while( (e = readdir(d))!=0 ){
    char zFrom[1024], zTo[1024];
    FILE *f;
    uint8_t *a;
    long n;
    if( e->d_name[0]=='.' ) continue;
    snprintf(zFrom, sizeof(zFrom), "%s/%s", FUZZ_DIR_TEMPLATE, e->d_name);
    snprintf(zTo, sizeof(zTo), "%s/%s", zInput, e->d_name);
    f = fopen(zFrom, "rb");
    if( f==0 ){ perror(zFrom); exit(1); }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    a = malloc(n ? n : 1);
    if( a==0 || fread(a, 1, n, f)!=(size_t)n ){ perror(zFrom); exit(1); }
    fclose(f);
    if( writeFile(zTo, a, n) ){ perror(zTo); exit(1); }
    free(a);
  }
  closedir(d);
}
#endif

static void initialize(void){
  const char *zTmp = getenv("TMPDIR");
  if( pFormat ) return;
  InitializeRtl(&Rtl);
  pFormat = TraceFormatFromName(FUZZ_FORMAT);
  if( pFormat==0 ){ fprintf(stderr, "no format %s\n", FUZZ_FORMAT); exit(1); }
  pSession = calloc(1, sizeof(*pSession));
  if( pSession==0 || TraceZstdDecompressor()==0 ) exit(1);
  snprintf(zTemp, sizeof(zTemp), "%s/tracer-fuzz-XXXXXX", zTmp ? zTmp : "/tmp");
  if( mkdtemp(zTemp)==0 ){ perror(zTemp); exit(1); }
  snprintf(zSessionDir, sizeof(zSessionDir), "%s/session", zTemp);
#ifdef FUZZ_DIR_FILE
  snprintf(zInput, sizeof(zInput), "%s/input.data", zTemp);
  snprintf(zInputFile, sizeof(zInputFile), "%s/%s", zInput, FUZZ_DIR_FILE);
  copyTemplate();
#else
  snprintf(zInput, sizeof(zInput), "%s/input", zTemp);
  snprintf(zInputFile, sizeof(zInputFile), "%s", zInput);
#endif
  atexit(cleanup);
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

static int importOne(const uint8_t *aData, size_t nData){
  TRACE_IMPORT imp;
  RTL_ERROR err;
  RTL_STATUS rc;
  ULONG i;

  initialize();
  removeDir(zSessionDir);
  if( writeFile(zInputFile, aData, nData) ){ perror(zInputFile); exit(1); }

  memset(pSession, 0, sizeof(*pSession));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenWriter(&Rtl, zSessionDir, pSession, &err)) ){
    fprintf(stderr, "%s\n", err.Message);
    exit(1);
  }
  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Session = pSession;
  imp.Path = zInput;
  imp.Zstd = TraceZstdDecompressor();
  imp.FormatName = pFormat->Name;
  rc = TraceImportMapInput(&imp);
  if( RTL_SUCCESS(rc) ){
    rc = TraceImportBegin(&imp);
    if( RTL_SUCCESS(rc) ) rc = pFormat->Import(&imp);
    rc = TraceImportEnd(&imp);
    TraceImportUnmapInput(&imp);
  }
  TraceSessionClose(pSession);

  memset(pSession, 0, sizeof(*pSession));
  memset(&err, 0, sizeof(err));
  if( !RTL_SUCCESS(TraceSessionOpenReader(&Rtl, zSessionDir, pSession, &err)) ){
    /* The writer made this session: it must open. */
    fprintf(stderr, "session written by the import does not open: %s\n",
            err.Message);
    abort();
  }
  for(i=0; i<pSession->NumberOfStores; i++){
    readStore(pSession, &pSession->Stores[i]);
  }
  readStore(pSession, &pSession->Strings.Index);
  TraceSessionClose(pSession);
  return RTL_SUCCESS(rc) ? 0 : 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *aData, size_t nData){
  importOne(aData, nData);
  return 0;
}

#ifdef FUZZ_REPLAY_MAIN
static int replayFile(const char *zPath, int *pnRun){
  FILE *f = fopen(zPath, "rb");
  uint8_t *a;
  long n;
  int rc;
  if( f==0 ){ perror(zPath); return 1; }
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  a = malloc(n ? n : 1);
  if( a==0 || fread(a, 1, n, f)!=(size_t)n ){ perror(zPath); exit(1); }
  fclose(f);
  rc = importOne(a, n);
  printf("%s: %s\n", zPath, rc ? "rejected" : "imported");
  free(a);
  (*pnRun)++;
  return 0;
}

int main(int argc, char **argv){
  int i, nRun = 0, nErr = 0;
  for(i=1; i<argc; i++){
    struct stat st;
    if( stat(argv[i], &st)==0 && S_ISDIR(st.st_mode) ){
      DIR *d = opendir(argv[i]);
      struct dirent *e;
      while( d && (e = readdir(d))!=0 ){
        char z[1024];
        if( e->d_name[0]=='.' ) continue;
        snprintf(z, sizeof(z), "%s/%s", argv[i], e->d_name);
        nErr += replayFile(z, &nRun);
      }
      if( d ) closedir(d);
    }else{
      nErr += replayFile(argv[i], &nRun);
    }
  }
  printf("%d inputs replayed without a crash\n", nRun);
  return nErr!=0 || nRun==0;
}
#endif
