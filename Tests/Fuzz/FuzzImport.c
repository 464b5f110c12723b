/*
** One libFuzzer harness for every reader, parameterized at compile time:
**
**   FUZZ_FORMAT     the reader's name as `tracestore import --format` takes
**                   it ("ftrace", "trace-dat", ...)
**   FUZZ_EVENT_FORMATS  a tracefs events directory the import is given
**                   (tracestore import --formats), to rebuild text events'
**                   records
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
** Built with FUZZ_REPLAY_MAIN (the regular build), FuzzCommon.c gives it
** a main() that runs each FILE (or each file of each DIRECTORY) given on
** the command line once: the regression tests replay the crashing inputs
** of Tests/Data/fuzz-regressions/TARGET/ through it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "FuzzCommon.h"

#ifndef FUZZ_FORMAT
# error "define FUZZ_FORMAT"
#endif

static RTL Rtl;
static char zInput[600];          /* the file or directory imported */
static char zInputFile[700];      /* the file the input is written to */
static char zSession[600];

#ifdef FUZZ_DIR_FILE
/* Copies the files of the template record directory into zInput. */
static void copyTemplate(void){
  DIR *d = opendir(FUZZ_DIR_TEMPLATE);
  struct dirent *e;
  if( d==0 ){ perror(FUZZ_DIR_TEMPLATE); exit(1); }
  mkdir(zInput, 0700);
  while( (e = readdir(d))!=0 ){
    char zFrom[1024], zTo[1024];
    uint8_t *a;
    size_t n;
    if( e->d_name[0]=='.' ) continue;
    snprintf(zFrom, sizeof(zFrom), "%s/%s", FUZZ_DIR_TEMPLATE, e->d_name);
    snprintf(zTo, sizeof(zTo), "%s/%s", zInput, e->d_name);
    a = fuzzReadFile(zFrom, &n);
    if( fuzzWriteFile(zTo, a, n) ){ perror(zTo); exit(1); }
    free(a);
  }
  closedir(d);
}
#endif

static void initialize(void){
  char zTemp[500];
  if( zSession[0] ) return;
  InitializeRtl(&Rtl);
#ifdef FUZZ_EVENT_FORMATS
  {
    static TRACE_EVENT_TABLE table;
    RTL_ERROR err;
    memset(&err, 0, sizeof(err));
    if( !RTL_SUCCESS(TraceEventTableInitialize(&Rtl, 8, &table))
     || !RTL_SUCCESS(TraceEventTableAddDirectory(&table, FUZZ_EVENT_FORMATS,
                                                 &err)) ){
      fprintf(stderr, "%s\n", err.Message);
      exit(1);
    }
    fuzzEventFormats = &table;
  }
#endif
  fuzzMakeTemp(zTemp, sizeof(zTemp));
  snprintf(zSession, sizeof(zSession), "%s/session", zTemp);
#ifdef FUZZ_DIR_FILE
  snprintf(zInput, sizeof(zInput), "%s/input.data", zTemp);
  snprintf(zInputFile, sizeof(zInputFile), "%s/%s", zInput, FUZZ_DIR_FILE);
  copyTemplate();
#else
  snprintf(zInput, sizeof(zInput), "%s/input", zTemp);
  snprintf(zInputFile, sizeof(zInputFile), "%s", zInput);
#endif
}

/* The seeds are the samples run-fuzz.sh copies into the corpus. */
void fuzzSeeds(const char *zDir){
  (void)zDir;
}

int fuzzOne(const uint8_t *aData, size_t nData){
  int rc;
  initialize();
  fuzzRemoveDir(zSession);
  if( fuzzWriteFile(zInputFile, aData, nData) ){ perror(zInputFile); exit(1); }
  rc = fuzzImport(&Rtl, zSession, FUZZ_FORMAT, zInput);
  if( fuzzReadSession(&Rtl, zSession) ){
    /* The writer made this session: it must open. */
    fprintf(stderr, "session written by the import does not open\n");
    abort();
  }
  return rc;
}
