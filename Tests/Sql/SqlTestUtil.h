/*
** SqlTestUtil.h: what the in-process SQL tests (TestSqlLive.c,
** TestSqlPushdown.c) share: CHECK and fail(), and a session written
** through the store API in a temporary directory.
**
** Usage:
**
**     #define SQL_TEST_FILE "TestSqlLive.c"    (names fail()'s lines)
**     #include "SqlTestUtil.h"
**
**     TestSession s;
**     testSessionOpen(&s, "tracer-sql-live", "live.trace");
**     ... TraceSessionOpenStore(s.pSession, ...), SQL on s.zDir ...
**     testSessionClose(&s);      (removes the directory unless
**                                 TRACER_TEST_KEEP is set)
**
** Hosted code, included once per program: the functions are static.
*/
#ifndef TRACER_TESTS_SQL_SQLTESTUTIL_H
#define TRACER_TESTS_SQL_SQLTESTUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>

#include "TraceStore/TraceStore.h"

/*
** Check a condition; on failure print where and why and exit non-zero.
*/
#define CHECK(X) \
  do{ if( !(X) ) fail(__LINE__, "CHECK(%s) failed", #X); }while(0)

static void fail(int iLine, const char *zFormat, ...)
  __attribute__((noreturn, format(printf, 2, 3)));

static void fail(int iLine, const char *zFormat, ...){
  va_list ap;
  fprintf(stderr, SQL_TEST_FILE ":%d: ", iLine);
  va_start(ap, zFormat);
  vfprintf(stderr, zFormat, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

/* A session open for writing, in a directory of its own under $TMPDIR. */
typedef struct TestSession TestSession;
struct TestSession {
  RTL rtl;
  TRACE_SESSION *pSession;
  char zDir[256];               /* The session: TMPDIR/PREFIX-XXXXXX/LEAF */
};

static void testSessionOpen(TestSession *p, const char *zPrefix,
                            const char *zLeaf){
  RTL_ERROR error;
  RTL_STATUS rc;
  const char *zTmp = getenv("TMPDIR");
  memset(p, 0, sizeof(*p));
  CHECK( RTL_SUCCESS(InitializeRtl(&p->rtl)) );
  snprintf(p->zDir, sizeof(p->zDir), "%s/%s-XXXXXX", zTmp ? zTmp : "/tmp",
           zPrefix);
  CHECK( mkdtemp(p->zDir)!=0 );
  strcat(p->zDir, "/");
  strcat(p->zDir, zLeaf);
  p->pSession = calloc(1, sizeof(*p->pSession));
  CHECK( p->pSession!=0 );
  memset(&error, 0, sizeof(error));
  rc = TraceSessionOpenWriter(&p->rtl, p->zDir, p->pSession, &error);
  if( !RTL_SUCCESS(rc) ) fail(__LINE__, "open writer: %s", error.Message);
}

static int testRemoveEntry(const char *z, const struct stat *s, int f,
                           struct FTW *w){
  (void)s; (void)f; (void)w;
  return remove(z);
}

static void testSessionClose(TestSession *p){
  char *zSlash;
  TraceSessionClose(p->pSession);
  free(p->pSession);
  zSlash = strrchr(p->zDir, '/');
  *zSlash = 0;
  if( getenv("TRACER_TEST_KEEP")==0 ){
    nftw(p->zDir, testRemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  }
}

/*
** One test case: a name (one CTest entry each) and the routine that runs
** it, failing through CHECK/fail.
*/
typedef struct TestCase TestCase;
struct TestCase {
  const char *zName;
  void (*xCase)(void);
};

/*
** The main() of a test program: "list" prints the case names, "CASE" runs
** that case.
*/
static int testMain(int argc, char **argv, const char *zProgram,
                    const TestCase *aCase, size_t nCase){
  size_t i;
  if( argc==2 && strcmp(argv[1], "list")==0 ){
    for(i=0; i<nCase; i++) puts(aCase[i].zName);
    return 0;
  }
  for(i=0; argc==2 && i<nCase; i++){
    if( strcmp(argv[1], aCase[i].zName)==0 ){
      aCase[i].xCase();
      printf("PASS: %s\n", aCase[i].zName);
      return 0;
    }
  }
  fprintf(stderr, "usage: %s list | CASE\n", zProgram);
  return 2;
}

#endif /* TRACER_TESTS_SQL_SQLTESTUTIL_H */
