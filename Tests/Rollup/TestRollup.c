/*
** TestRollup.c: unit tests of the rollup fold's arithmetic.
**
** Zone: tests (hosted): libc, SQLite's API; the core's rollup internals
** (TraceStore/TraceRollupInternal.h).
**
**   TestRollup sql_integer   RollupSqlInteger(text) = SQLite's
**                            CAST(text AS INTEGER), which syscall_counts
**                            applies to substr(args, 4), on edge cases and
**                            a million random texts
**   TestRollup histogram     RollupHistogramBucket never decreases as the
**                            value grows, is exact below 512, and a
**                            bucket's values are within 1/256 of each
**                            other (the percentiles' stated error)
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "TraceStore/TraceRollupInternal.h"

static uint64_t gRand = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void){
  gRand ^= gRand << 13; gRand ^= gRand >> 7; gRand ^= gRand << 17;
  return gRand;
}

static int testSqlInteger(void){
  static const char *const az[] = {
    "", "0", "-0", "+0", "42", "-42", "+42", "  7", "\t\n 8x", "007",
    "-", "+", "--5", "-+5", "5-", "12abc", "1e5", "1.9", "-1.9",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "99999999999999999999999", "-99999999999999999999",
    "18446744073709551615", "18446744073709551616", "0000000000000000000001",
    "123 (0x1, 0x2)", " -12 ", "\v9", "\f10", "\r11", "0x1f", "abc",
    "1 2", "-9223372036854775807", "92233720368547758070",
  };
  sqlite3 *db;
  sqlite3_stmt *pStmt;
  char z[64];
  int i, k, nBad = 0, n = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK
   || sqlite3_prepare_v2(db, "SELECT CAST(?1 AS INTEGER)", -1, &pStmt,
                         0)!=SQLITE_OK ){
    fprintf(stderr, "cannot prepare\n");
    return 1;
  }
  for(i=0; i<1000000 + (int)(sizeof(az)/sizeof(az[0])); i++){
    const char *zText = z;
    long long want, got;
    if( i<(int)(sizeof(az)/sizeof(az[0])) ){
      zText = az[i];
    }else{
      static const char aChar[] = "0123456789999 -+\tx.e";
      int len = (int)(rnd() % 24);
      for(k=0; k<len; k++) z[k] = aChar[rnd() % (sizeof(aChar)-1)];
      z[len] = 0;
    }
    sqlite3_bind_text(pStmt, 1, zText, -1, SQLITE_STATIC);
    sqlite3_step(pStmt);
    want = sqlite3_column_int64(pStmt, 0);
    sqlite3_reset(pStmt);
    got = RollupSqlInteger(zText, strlen(zText));
    n++;
    if( got!=want && nBad++<10 ){
      fprintf(stderr, "CAST('%s' AS INTEGER): SQLite %lld, the fold %lld\n",
              zText, want, got);
    }
  }
  sqlite3_finalize(pStmt);
  sqlite3_close(db);
  printf("sql_integer: %d texts, %d differ\n", n, nBad);
  return nBad!=0;
}

static int testHistogram(void){
  long long v, prev = RollupHistogramBucket(INT64_MIN);
  int i, nBad = 0;
  /* Monotonic over a sweep of the whole range and the region near 0. */
  for(v=-100000; v<=100000; v++){
    long long b = RollupHistogramBucket(v);
    if( b<prev && nBad++<5 ) fprintf(stderr, "bucket(%lld) < bucket(%lld)\n",
                                     v, v-1);
    if( v>=0 && v<512 && b!=v && nBad++<5 ){
      fprintf(stderr, "bucket(%lld) = %lld, not exact\n", v, b);
    }
    prev = b;
  }
  for(i=0; i<2000000; i++){
    long long a = (long long)rnd(), c = (long long)rnd();
    if( a>c ){ long long t = a; a = c; c = t; }
    if( RollupHistogramBucket(a)>RollupHistogramBucket(c) && nBad++<5 ){
      fprintf(stderr, "bucket(%lld) > bucket(%lld)\n", a, c);
    }
  }
  /* Within a bucket, values differ by less than 1/256 of the smallest:
  ** two values that far apart are in different buckets, from 512 up, and
  ** for negative values likewise. */
  for(i=0; i<2000000; i++){
    long long a = 512 + (long long)(rnd() >> (1 + rnd() % 53));
    long long d = a / 256;
    if( a > (long long)(INT64_MAX - d) ) continue;
    if( RollupHistogramBucket(a)==RollupHistogramBucket(a + d) && nBad++<5 ){
      fprintf(stderr, "%lld and %lld share a bucket\n", a, a + d);
    }
    if( RollupHistogramBucket(-a)==RollupHistogramBucket(-a - d)
     && nBad++<5 ){
      fprintf(stderr, "%lld and %lld share a bucket\n", -a, -a - d);
    }
  }
  printf("histogram: %d problems\n", nBad);
  return nBad!=0;
}

int main(int argc, char **argv){
  if( argc==2 && strcmp(argv[1], "sql_integer")==0 ) return testSqlInteger();
  if( argc==2 && strcmp(argv[1], "histogram")==0 ) return testHistogram();
  fprintf(stderr, "usage: TestRollup sql_integer|histogram\n");
  return 2;
}
