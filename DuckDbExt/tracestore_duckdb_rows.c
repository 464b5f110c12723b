/*
** tracestore_duckdb_rows.c: which records a DuckDB scan visits, and their
** column values, read in place from the store's mapping.
**
** Zone: hosted (the DuckDB extension): libc; reads sessions only through
** the store API of TraceStore/TraceStore.h; included by nothing.
** Owns: the ts narrowing of a scan (binary search of a sorted store, the
** block index of one that is not), the walk of a scan's records, and the
** column decoding into plain arrays.
** Calls: the store and string API.  Called by tracestore_duckdb_scan.c and
** Tests/Fuzz/fuzz_duckdb_scan.c; declared in tracestore_duckdb_rows.h.
**
** How it works:
**
**   A sorted store (the commit slot says ts never decreases) is narrowed
**   to [from, to) by two binary searches, and each row found is still
**   tested (a damaged slot may lie about the order; a row outside the
**   window is then left out, never returned).  Any other store with a ts
**   column keeps a block index, as the SQLite tables do
**   (Sqlite3Ext/tracestore_scan.c): the smallest and largest ts of each
**   block of TSD_BLOCK_SIZE records, 16 bytes per block (1.6 MB for 10^8
**   records), extended by the records committed since it was last used.
**   The walk (tsdNextRows) skips a block whose [min, max] misses the
**   range, hands out a block that lies inside it without reading a ts,
**   and checks each record of the others.
**
**   Columns are decoded one at a time over a batch of record indexes (a
**   DuckDB vector's worth), one loop per column type, so the loop body is
**   a load at a fixed stride and a compare for NULL.
*/
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "tracestore_duckdb_rows.h"

/* Records ahead whose line a column loop asks for: the hardware prefetcher
** stops at each 4 KB page of the mapping. */
#define TSD_PREFETCH 64

static int64_t tsdTsOf(PTRACE_STORE pStore, uint64_t i){
  int64_t ts;
  memcpy(&ts, pStore->Base + i*pStore->RecordSize + pStore->TimestampOffset,
         sizeof(ts));
  return ts;
}

/* The first record of the sorted [0, n) whose ts is >= t (n if none). */
static uint64_t tsdSearchTs(PTRACE_STORE pStore, uint64_t n, int64_t t){
  uint64_t lo = 0, hi = n;
  while( lo<hi ){
    uint64_t mid = lo + (hi - lo)/2;
    if( tsdTsOf(pStore, mid)<t ) lo = mid + 1; else hi = mid;
  }
  return lo;
}

/* Extends pIndex to the first nRecord records of pStore. */
static int tsdIndexExtend(PTRACE_STORE pStore, TsdIndex *pIndex,
                          uint64_t nRecord){
  uint64_t nFull = nRecord >> TSD_BLOCK_SHIFT, b;
  if( nRecord<=pIndex->nIndexed ) return 0;
  if( nFull + 1>pIndex->nAlloc ){
    uint64_t nAlloc = pIndex->nAlloc*2;
    TsdBlock *aNew;
    if( nAlloc<nFull + 1 ) nAlloc = nFull + 1;
    if( nAlloc<64 ) nAlloc = 64;
    aNew = realloc(pIndex->aBlock, sizeof(TsdBlock)*(size_t)nAlloc);
    if( aNew==0 ) return -1;
    pIndex->aBlock = aNew;
    pIndex->nAlloc = nAlloc;
  }
  for(b=pIndex->nIndexed >> TSD_BLOCK_SHIFT; b<=nFull; b++){
    uint64_t i = b << TSD_BLOCK_SHIFT;
    uint64_t iEnd = b<nFull ? i + TSD_BLOCK_SIZE : nRecord;
    int64_t iMin = INT64_MAX, iMax = INT64_MIN;
    if( i>=iEnd ) break;                    /* no partial last block */
    if( pIndex->nIndexed>i ){               /* the old partial block */
      iMin = pIndex->aBlock[b].iMin;
      iMax = pIndex->aBlock[b].iMax;
      i = pIndex->nIndexed;
    }
    for(; i<iEnd; i++){
      int64_t ts = tsdTsOf(pStore, i);
      if( ts<iMin ) iMin = ts;
      if( ts>iMax ) iMax = ts;
    }
    pIndex->aBlock[b].iMin = iMin;
    pIndex->aBlock[b].iMax = iMax;
    pIndex->nBlock = b + 1;
  }
  pIndex->nIndexed = nRecord;
  return 0;
}

void tsdIndexFree(TsdIndex *pIndex){
  free(pIndex->aBlock);
  memset(pIndex, 0, sizeof(*pIndex));
}

int tsdNarrowTs(PTRACE_STORE pStore, uint64_t nRecord, int bSorted,
                TsdIndex *pIndex, int64_t iFrom, int64_t iTo,
                TsdRange *pRange){
  if( pStore->TimestampOffset==TRACE_NO_COLUMN ) return 0;
  if( iFrom>=iTo ){
    pRange->iHi = pRange->iLo;
    return 0;
  }
  if( bSorted ){
    uint64_t lo = iFrom==INT64_MIN ? 0 : tsdSearchTs(pStore, nRecord, iFrom);
    uint64_t hi = iTo==INT64_MAX ? nRecord : tsdSearchTs(pStore, nRecord, iTo);
    if( lo>pRange->iLo ) pRange->iLo = lo;
    if( hi<pRange->iHi ) pRange->iHi = hi;
    if( pRange->iHi<pRange->iLo ) pRange->iHi = pRange->iLo;
    /* Each row's ts is still tested: a slot that lies about the order
    ** must not let rows outside the window through. */
    pRange->bTs = 1;
    pRange->iFrom = iFrom;
    pRange->iTo = iTo;
    pRange->aBlock = 0;
    return 0;
  }
  if( tsdIndexExtend(pStore, pIndex, nRecord) ) return -1;
  pRange->bTs = 1;
  pRange->iFrom = iFrom;
  pRange->iTo = iTo;
  pRange->aBlock = pIndex->aBlock;
  return 0;
}

uint32_t tsdNextRows(PTRACE_STORE pStore, const TsdRange *pRange,
                     uint64_t *piNext, uint64_t iEnd, uint64_t *aRow,
                     uint32_t nMax){
  uint64_t i = *piNext;
  uint32_t n = 0;
  if( iEnd>pRange->iHi ) iEnd = pRange->iHi;
  if( !pRange->bTs ){
    while( i<iEnd && n<nMax ) aRow[n++] = i++;
    *piNext = i;
    return n;
  }
  if( pRange->aBlock==0 ){                  /* sorted: every row tested */
    for(; i<iEnd && n<nMax; i++){
      int64_t ts;
      __builtin_prefetch(pStore->Base + (i + TSD_PREFETCH)*pStore->RecordSize
                         + pStore->TimestampOffset);
      ts = tsdTsOf(pStore, i);
      if( ts>=pRange->iFrom && ts<pRange->iTo ) aRow[n++] = i;
    }
    *piNext = i;
    return n;
  }
  while( i<iEnd && n<nMax ){
    const TsdBlock *pB = &pRange->aBlock[i >> TSD_BLOCK_SHIFT];
    uint64_t iBlockEnd = ((i >> TSD_BLOCK_SHIFT) + 1) << TSD_BLOCK_SHIFT;
    if( iBlockEnd>iEnd ) iBlockEnd = iEnd;
    if( pB->iMax<pRange->iFrom || pB->iMin>=pRange->iTo ){
      i = iBlockEnd;                        /* nothing of it */
    }else if( pB->iMin>=pRange->iFrom && pB->iMax<pRange->iTo ){
      while( i<iBlockEnd && n<nMax ) aRow[n++] = i++;
    }else{
      for(; i<iBlockEnd && n<nMax; i++){
        int64_t ts = tsdTsOf(pStore, i);
        if( ts>=pRange->iFrom && ts<pRange->iTo ) aRow[n++] = i;
      }
    }
  }
  *piNext = i;
  return n;
}

/* One loop per type: T the stored type, NULLV its all-ones NULL. */
#define TSD_READ_INT(T, NULLV)                                              \
  for(k=0; k<n; k++){                                                       \
    T v;                                                                    \
    if( k + TSD_PREFETCH<n ){                                               \
      __builtin_prefetch(pBase + aRow[k + TSD_PREFETCH]*nSize);             \
    }                                                                       \
    memcpy(&v, pBase + aRow[k]*nSize, sizeof(v));                           \
    aInt[k] = (int64_t)v;                                                   \
    if( bNullable && v==(T)(NULLV) ){                                       \
      aValid[k >> 6] &= ~((uint64_t)1 << (k & 63));                         \
      nNull++;                                                              \
    }                                                                       \
  }

uint32_t tsdReadColumn(PTRACE_STORE pStore, PCTRACE_COLUMN_DESCRIPTOR pCol,
                       const uint64_t *aRow, uint32_t n, int64_t *aInt,
                       double *aDouble, uint64_t *aValid){
  const unsigned char *pBase = pStore->Base + pCol->Offset;
  size_t nSize = pStore->RecordSize;
  int bNullable = (pCol->Flags & TRACE_COLUMN_NULLABLE)!=0;
  uint32_t k, nNull = 0;

  memset(aValid, 0xff, sizeof(uint64_t)*((n + 63)/64));
  if( pCol->Flags & TRACE_COLUMN_STRING_ID ){
    bNullable = 1;                          /* TRACE_STRING_NULL */
  }
  switch( pCol->Type ){
    case TraceColumnInt32:  TSD_READ_INT(int32_t, -1); break;
    case TraceColumnUInt32: TSD_READ_INT(uint32_t, 0xffffffffu); break;
    case TraceColumnUInt16: TSD_READ_INT(uint16_t, 0xffff); break;
    case TraceColumnUInt8:  TSD_READ_INT(uint8_t, 0xff); break;
    case TraceColumnInt64:
    case TraceColumnUInt64: TSD_READ_INT(uint64_t, ~0ull); break;
    case TraceColumnDouble:
      for(k=0; k<n; k++){
        uint64_t v;
        memcpy(&v, pBase + aRow[k]*nSize, sizeof(v));
        memcpy(&aDouble[k], &v, sizeof(v));
        if( bNullable && v==~0ull ){
          aValid[k >> 6] &= ~((uint64_t)1 << (k & 63));
          nNull++;
        }
      }
      break;
    default:                                /* refused by the header check */
      memset(aValid, 0, sizeof(uint64_t)*((n + 63)/64));
      nNull = n;
      break;
  }
  return nNull;
}

int tsdString(PTRACE_SESSION pSession, int64_t iId, const char **pz,
              uint32_t *pn){
  PCSZ z = 0;
  ULONG nz = 0;
  if( iId<0 || (uint64_t)iId>=pSession->Strings.Index.Snapshot.RecordCount
   || !RTL_SUCCESS(TraceStringLookup(&pSession->Strings, (ULONG)iId, &z,
                                     &nz))
   || z==0 ){
    return -1;
  }
  *pz = z;
  *pn = nz;
  return 0;
}

void tsdStringCacheReset(TsdStringCache *pCache){
  memset(pCache->aId, 0xff, sizeof(pCache->aId));
}

int tsdReadStrings(PTRACE_SESSION pSession, PTRACE_STORE pStore,
                   PCTRACE_COLUMN_DESCRIPTOR pCol, const uint64_t *aRow,
                   uint32_t n, TsdString *aOut, uint64_t *aValid,
                   TsdStringCache *pCache, uint32_t *piBad){
  const unsigned char *pBase = pStore->Base + pCol->Offset;
  size_t nSize = pStore->RecordSize;
  uint32_t k, nNull = 0;

  memset(aValid, 0xff, sizeof(uint64_t)*((n + 63)/64));
  for(k=0; k<n; k++){
    uint32_t id;
    uint32_t h;
    if( k + TSD_PREFETCH<n ){
      __builtin_prefetch(pBase + aRow[k + TSD_PREFETCH]*nSize);
    }
    memcpy(&id, pBase + aRow[k]*nSize, sizeof(id));
    if( id==TRACE_STRING_NULL ){
      aValid[k >> 6] &= ~((uint64_t)1 << (k & 63));
      memset(&aOut[k], 0, sizeof(aOut[k]));
      nNull++;
      continue;
    }
    h = id & (TSD_STRING_CACHE - 1);
    if( pCache->aId[h]!=(int64_t)id ){
      TsdString *p = &pCache->aStr[h];
      const char *z;
      uint32_t nz;
      if( tsdString(pSession, id, &z, &nz) ){
        *piBad = k;
        return -1;
      }
      memset(p, 0, sizeof(*p));
      p->inlined.n = nz;
      if( nz<=sizeof(p->inlined.a) ){
        memcpy(p->inlined.a, z, nz);
      }else{
        memcpy(p->pointer.prefix, z, sizeof(p->pointer.prefix));
        p->pointer.p = z;
      }
      pCache->aId[h] = id;
    }
    aOut[k] = pCache->aStr[h];
  }
  return (int)nNull;
}

void tsdBadStringMessage(PTRACE_STORE pStore, PCTRACE_COLUMN_DESCRIPTOR pCol,
                         uint64_t iRow, int64_t iId, char *zOut, int nOut){
  snprintf(zOut, (size_t)nOut, "%s: byte offset %llu: row %llu holds string "
           "id %llu, which the session's string store lacks (corrupt)",
           pStore->Path,
           (unsigned long long)TRACE_STORE_HEADER_SIZE
           + (unsigned long long)iRow*pStore->RecordSize + pCol->Offset,
           (unsigned long long)iRow, (unsigned long long)(uint64_t)iId);
}
