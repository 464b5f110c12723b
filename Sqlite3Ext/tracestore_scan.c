/*
** tracestore_scan.c: how a cursor of a store table finds its rows.
**
** Zone: hosted (the SQLite extension): libc and SQLite's API; reads
** sessions only through the store API of TraceStore/TraceStore.h;
** included by nothing outside Sqlite3Ext/.
** Owns: the ts and rowid range narrowing (SQLite's comparison rules, the
** binary search of a sorted store), the block index of a store that is
** not sorted, IN lists, the windows of a ts-ordered scan of a store that
** is no longer sorted, and the moves of a cursor (seek, advance, skip).
** Calls: nothing of the extension; reads records in the mapping of the
** table's store.  Called by tracestore.c (xBestIndex, xFilter, xNext);
** declared in tracestore_int.h with the table and cursor it works on.
**
** Usage (tracestore.c, xFilter then xNext):
**
**     tsNarrow(argv[i], SQLITE_INDEX_CONSTRAINT_GE, &iTsLo, &iTsHi);
**     tsNarrowSorted(pTab, nRecord, iTsLo, iTsHi, &iLo, &iHi, &nVisited);
**     rc = tsIndexExtend(pTab, nRecord);        (a store not sorted)
**     tsRangeSeek(pCur, pCur->iFirst);  ...  rc = tsAdvance(pCur);
**
** How it works:
**
**   A sorted store (the commit slot says ts never decreases) is narrowed
**   to the records of a ts range by two binary searches.  Every other
**   case visits a range of rowids, an IN list or a sort window, as the
**   cursor's eScan says (tracestore_int.h):
**
**   The block index.  On a store that is not sorted by ts, a table keeps
**   the smallest and largest ts of each block of TS_BLOCK_SIZE (1024)
**   records: 16 bytes per block, so 1/64 byte per record (1.6 MB for 100
**   million records), allocated from the heap of the process that runs the
**   query.  It is built the first time a scan with a ts bound (or a
**   ts-ordered scan, below) meets the store unsorted, and each such scan
**   extends it by the records committed since; records never change once
**   committed, so the entries never go stale.  The last, incomplete block
**   has an entry too, extended when the record count grows.  A scan
**   skips every block whose [min, max] misses the ts range, hands the rows
**   of a block that lies wholly inside it without reading their ts, and
**   checks each row of the blocks in between; so a ts range visits the
**   rows in it plus, at most, the rest of the block where it starts and of
**   the one where it ends.  Building it reads every ts once (counted by
**   tracestore_rows_indexed(), not by tracestore_rows_visited()).  A ts
**   range outside the snapshot's first/last ts reads nothing at all.
**
**   A store that stops being sorted between xBestIndex (which looks at the
**   last snapshot) and xFilter (which takes the statement's snapshot): a
**   plan that consumed ORDER BY ts still gets its rows in (ts, rowid)
**   order.  xFilter then selects them in windows: one pass over the
**   candidate rows (the block index skipping blocks before the last row
**   handed out or past the window) keeps the next W keys in a heap, which
**   is sorted and handed out, and the next pass starts after its last key.
**   W starts at 4096 (or LIMIT + OFFSET) and doubles up to 4 Mi keys (64
**   MB), so memory stays bounded and a store that is a few sorted runs
**   costs little more than one pass; a prepared statement re-run later is
**   planned again by SQLite only if its schema changes, so it may take
**   this path every time it runs.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceStore.h"
#include "tracestore_int.h"

/*
** Narrows the inclusive range [*piLo, *piHi] of integer values x to those
** for which "x OP pVal" is true, exactly as SQLite compares a column of
** INTEGER affinity with pVal:
**
**   - text that looks like a number is that number (the column's affinity
**     is applied to it, which is what sqlite3_value_numeric_type() does);
**   - a REAL is compared exactly: x > 2.5 is x >= 3, x = 2.5 is nothing,
**     x < 1e30 is everything;
**   - other text, and blobs, are greater than every integer;
**   - NULL (and NaN, which SQLite turns into NULL) satisfies nothing.
**
** An empty result has *piLo > *piHi.
*/
void tsNarrow(
  sqlite3_value *pVal,
  int op,
  sqlite3_int64 *piLo,
  sqlite3_int64 *piHi
){
  sqlite3_int64 iLower = TS_INT64_MIN;    /* Bounds implied by the value */
  sqlite3_int64 iUpper = TS_INT64_MAX;
  int bEmpty = 0;
  sqlite3_int64 v;
  double r, f;

  switch( sqlite3_value_numeric_type(pVal) ){
    case SQLITE_INTEGER: {
      v = sqlite3_value_int64(pVal);
      switch( op ){
        case SQLITE_INDEX_CONSTRAINT_EQ: iLower = iUpper = v;  break;
        case SQLITE_INDEX_CONSTRAINT_GE: iLower = v;           break;
        case SQLITE_INDEX_CONSTRAINT_LE: iUpper = v;           break;
        case SQLITE_INDEX_CONSTRAINT_GT:
          if( v==TS_INT64_MAX ) bEmpty = 1; else iLower = v+1;
          break;
        case SQLITE_INDEX_CONSTRAINT_LT:
          if( v==TS_INT64_MIN ) bEmpty = 1; else iUpper = v-1;
          break;
      }
      break;
    }
    case SQLITE_FLOAT: {
      /*
      ** Doubles in [-2^63, 2^63) convert to int64 exactly once they are
      ** whole (floor/ceil of such a double is still in that range, as
      ** doubles that large are all whole).
      */
      r = sqlite3_value_double(pVal);
      if( r!=r ){
        bEmpty = 1;
        break;
      }
      if( r>=9223372036854775808.0 ){             /* above every int64 */
        if( op==SQLITE_INDEX_CONSTRAINT_EQ || op==SQLITE_INDEX_CONSTRAINT_GT
         || op==SQLITE_INDEX_CONSTRAINT_GE ){
          bEmpty = 1;
        }
        break;
      }
      if( r<-9223372036854775808.0 ){             /* below every int64 */
        if( op==SQLITE_INDEX_CONSTRAINT_EQ || op==SQLITE_INDEX_CONSTRAINT_LT
         || op==SQLITE_INDEX_CONSTRAINT_LE ){
          bEmpty = 1;
        }
        break;
      }
      f = (double)(sqlite3_int64)r;               /* r truncated */
      if( f>r ) f -= 1.0;                         /* floor(r) */
      switch( op ){
        case SQLITE_INDEX_CONSTRAINT_EQ:
          if( f!=r ) bEmpty = 1; else iLower = iUpper = (sqlite3_int64)f;
          break;
        case SQLITE_INDEX_CONSTRAINT_GE:          /* x >= ceil(r) */
          iLower = (sqlite3_int64)f + (f!=r);
          break;
        case SQLITE_INDEX_CONSTRAINT_GT:          /* x >= floor(r)+1 */
          if( (sqlite3_int64)f==TS_INT64_MAX ) bEmpty = 1;
          else iLower = (sqlite3_int64)f + 1;
          break;
        case SQLITE_INDEX_CONSTRAINT_LE:          /* x <= floor(r) */
          iUpper = (sqlite3_int64)f;
          break;
        case SQLITE_INDEX_CONSTRAINT_LT:          /* x <= ceil(r)-1 */
          if( f==r ){
            if( (sqlite3_int64)f==TS_INT64_MIN ) bEmpty = 1;
            else iUpper = (sqlite3_int64)f - 1;
          }else{
            iUpper = (sqlite3_int64)f;
          }
          break;
      }
      break;
    }
    case SQLITE_TEXT:
    case SQLITE_BLOB: {
      /* Greater than every integer. */
      if( op==SQLITE_INDEX_CONSTRAINT_EQ || op==SQLITE_INDEX_CONSTRAINT_GT
       || op==SQLITE_INDEX_CONSTRAINT_GE ){
        bEmpty = 1;
      }
      break;
    }
    default: {                                    /* NULL */
      bEmpty = 1;
      break;
    }
  }
  if( bEmpty ){
    *piLo = TS_INT64_MAX;
    *piHi = TS_INT64_MIN;
    return;
  }
  if( iLower>*piLo ) *piLo = iLower;
  if( iUpper<*piHi ) *piHi = iUpper;
}

/*
** Returns the first record index in [0, nRecord) whose ts is greater than
** iTs (bAfter) or at least iTs (!bAfter), or nRecord if there is none.
** The store must be sorted by ts over those records.  Counts the records
** it reads in *pnVisited.
*/
static sqlite3_int64 tsSearchTs(
  tracestore_vtab *pTab,
  sqlite3_int64 nRecord,
  sqlite3_int64 iTs,
  int bAfter,
  sqlite3_int64 *pnVisited
){
  sqlite3_int64 lo = 0, hi = nRecord, mid, ts;
  while( lo<hi ){
    mid = lo + (hi-lo)/2;
    ts = tsRecordTs(pTab, mid);
    (*pnVisited)++;
    if( bAfter ? ts<=iTs : ts<iTs ){
      lo = mid+1;
    }else{
      hi = mid;
    }
  }
  return lo;
}

/*
** Narrows the rowid range [*piLo, *piHi] of a store sorted by ts (over
** its first nRecord records) to the records whose ts is in [iTsLo, iTsHi].
*/
void tsNarrowSorted(
  tracestore_vtab *pTab,
  sqlite3_int64 nRecord,
  sqlite3_int64 iTsLo,
  sqlite3_int64 iTsHi,
  sqlite3_int64 *piLo,
  sqlite3_int64 *piHi,
  sqlite3_int64 *pnVisited
){
  sqlite3_int64 iFrom, iTo;
  if( iTsLo>iTsHi ){
    *piHi = *piLo - 1;
    return;
  }
  iFrom = iTsLo==TS_INT64_MIN ? 0
        : tsSearchTs(pTab, nRecord, iTsLo, 0, pnVisited);
  iTo = iTsHi==TS_INT64_MAX ? nRecord
      : tsSearchTs(pTab, nRecord, iTsHi, 1, pnVisited);
  if( iFrom>*piLo ) *piLo = iFrom;
  if( iTo-1<*piHi ) *piHi = iTo-1;
}

/*
** Extends the block index of pTab to the first nRecord records (a
** snapshot's count): the complete blocks committed since the last call
** are read, and the incomplete last block is summarized again if the count
** changed (a store that no longer grows reads it once).
*/
int tsIndexExtend(tracestore_vtab *pTab, sqlite3_int64 nRecord){
  sqlite3_int64 nFull = nRecord >> TS_BLOCK_SHIFT;
  sqlite3_int64 nAlloc, b, i, iEnd;
  tracestore_block *aNew;
  const unsigned char *p;
  size_t nSize = pTab->pStore->RecordSize;
  sqlite3_int64 ts, iMin, iMax;

  if( nRecord<=pTab->nIndexed ) return SQLITE_OK;
  if( nFull+1>pTab->nBlockAlloc ){
    nAlloc = pTab->nBlockAlloc*2;
    if( nAlloc<nFull+1 ) nAlloc = nFull+1;
    if( nAlloc<64 ) nAlloc = 64;
    aNew = sqlite3_realloc64(pTab->aBlock, sizeof(aNew[0])*(size_t)nAlloc);
    if( aNew==0 ) return SQLITE_NOMEM;
    pTab->aBlock = aNew;
    pTab->nBlockAlloc = nAlloc;
  }
  for(b=pTab->nBlock; b<=nFull; b++){
    i = b << TS_BLOCK_SHIFT;
    iEnd = b<nFull ? i + TS_BLOCK_SIZE : nRecord;
    if( b==pTab->nBlock && pTab->nIndexed>i ){
      i = pTab->nIndexed;                 /* Extend the old last block */
      iMin = pTab->aBlock[b].iMin;
      iMax = pTab->aBlock[b].iMax;
    }else if( i<iEnd ){
      iMin = TS_INT64_MAX;
      iMax = TS_INT64_MIN;
    }else{
      break;                              /* No incomplete block */
    }
    pTab->pStats->nIndexed += iEnd - i;
    p = pTab->pStore->Base + (size_t)i * nSize
      + pTab->aCol[pTab->iTsCol].Offset;
    for(; i<iEnd; i++, p+=nSize){
      memcpy(&ts, p, sizeof(ts));
      if( ts<iMin ) iMin = ts;
      if( ts>iMax ) iMax = ts;
    }
    pTab->aBlock[b].iMin = iMin;
    pTab->aBlock[b].iMax = iMax;
  }
  pTab->nBlock = nFull;
  pTab->nIndexed = nRecord;
  return SQLITE_OK;
}

/*
** If the block index covers record r, sets *ppBlk to the entry of its
** block and *piStart, *piEnd to the block's first and last record that
** the entry covers, and returns true.
*/
static int tsBlockOf(
  tracestore_vtab *pTab,
  sqlite3_int64 r,
  const tracestore_block **ppBlk,
  sqlite3_int64 *piStart,
  sqlite3_int64 *piEnd
){
  sqlite3_int64 b = r >> TS_BLOCK_SHIFT;
  if( r>=pTab->nIndexed ) return 0;
  *ppBlk = &pTab->aBlock[b];
  *piStart = b << TS_BLOCK_SHIFT;
  *piEnd = ((b+1) << TS_BLOCK_SHIFT) - 1;
  if( *piEnd>=pTab->nIndexed ) *piEnd = pTab->nIndexed - 1;
  return 1;
}

/*
** TS_SCAN_RANGE: moves to the first matching record at or after r (at or
** before r going down), or to EOF.  With bTsFilter the block index skips
** blocks outside [iTsLo, iTsHi] and a block wholly inside becomes a run
** of rows handed out without reading their ts.
*/
static void tsRangeSeek(tracestore_cursor *pCur, sqlite3_int64 r){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  sqlite3_int64 *pnVisited = &pTab->pStats->nVisited;
  sqlite3_int64 lo = pCur->iTsLo, hi = pCur->iTsHi;
  sqlite3_int64 iStart, iEnd, ts;
  const tracestore_block *pBlk;

  if( !pCur->bTsFilter ){
    if( pCur->bDesc ? r<pCur->iFirst : r>pCur->iLast ){
      pCur->bEof = 1;
      return;
    }
    pCur->iRowid = r;
    pCur->iRunEnd = pCur->bDesc ? pCur->iFirst : pCur->iLast;
    (*pnVisited)++;
    return;
  }
  if( !pCur->bDesc ){
    while( r<=pCur->iLast ){
      iEnd = pCur->iLast;                 /* Past the index: row by row */
      if( tsBlockOf(pTab, r, &pBlk, &iStart, &iEnd) ){
        if( iEnd>pCur->iLast ) iEnd = pCur->iLast;
        if( pBlk->iMax<lo || pBlk->iMin>hi ){
          r = iEnd+1;
          continue;
        }
        if( pBlk->iMin>=lo && pBlk->iMax<=hi ){
          pCur->iRowid = r;
          pCur->iRunEnd = iEnd;
          (*pnVisited)++;
          return;
        }
      }
      for(; r<=iEnd; r++){
        ts = tsRecordTs(pTab, r);
        (*pnVisited)++;
        if( ts>=lo && ts<=hi ){
          pCur->iRowid = r;
          pCur->iRunEnd = r;
          return;
        }
      }
    }
  }else{
    while( r>=pCur->iFirst ){
      iStart = pCur->iFirst;
      if( tsBlockOf(pTab, r, &pBlk, &iStart, &iEnd) ){
        if( iStart<pCur->iFirst ) iStart = pCur->iFirst;
        if( pBlk->iMax<lo || pBlk->iMin>hi ){
          r = iStart-1;
          continue;
        }
        if( pBlk->iMin>=lo && pBlk->iMax<=hi ){
          pCur->iRowid = r;
          pCur->iRunEnd = iStart;
          (*pnVisited)++;
          return;
        }
      }else if( pTab->nIndexed>iStart ){
        iStart = pTab->nIndexed;          /* Row by row down to the index */
      }
      for(; r>=iStart; r--){
        ts = tsRecordTs(pTab, r);
        (*pnVisited)++;
        if( ts>=lo && ts<=hi ){
          pCur->iRowid = r;
          pCur->iRunEnd = r;
          return;
        }
      }
    }
  }
  pCur->bEof = 1;
}

/*
** TS_SCAN_IN: moves to entry k of aIn, or the next one in the scan
** direction whose ts matches, or to EOF.
*/
static void tsInSeek(tracestore_cursor *pCur, sqlite3_int64 k){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  sqlite3_int64 ts;
  while( k>=0 && k<pCur->nIn ){
    pTab->pStats->nVisited++;
    if( pCur->bTsFilter ){
      ts = tsRecordTs(pTab, pCur->aIn[k]);
      if( ts<pCur->iTsLo || ts>pCur->iTsHi ){
        k += pCur->bDesc ? -1 : 1;
        continue;
      }
    }
    pCur->iIn = k;
    pCur->iRowid = pCur->aIn[k];
    return;
  }
  pCur->bEof = 1;
}

/*
** True if key a comes before key b in the scan order: (ts, rowid)
** ascending, or descending if bDesc.
*/
static int tsKeyBefore(
  const tracestore_key *a,
  const tracestore_key *b,
  int bDesc
){
  if( a->iTs!=b->iTs ) return bDesc ? a->iTs>b->iTs : a->iTs<b->iTs;
  return bDesc ? a->iRowid>b->iRowid : a->iRowid<b->iRowid;
}

/*
** The window of TS_SCAN_SORT is a heap whose top is the key that comes
** last in the scan order.  These restore the heap below a[i] (a[0..n)) and
** above it.
*/
static void tsHeapDown(tracestore_key *a, int n, int i, int bDesc){
  tracestore_key x = a[i];
  int c;
  while( (c = 2*i+1)<n ){
    if( c+1<n && tsKeyBefore(&a[c], &a[c+1], bDesc) ) c++;
    if( !tsKeyBefore(&x, &a[c], bDesc) ) break;
    a[i] = a[c];
    i = c;
  }
  a[i] = x;
}

static void tsHeapUp(tracestore_key *a, int i, int bDesc){
  tracestore_key x = a[i];
  int p;
  while( i>0 ){
    p = (i-1)/2;
    if( !tsKeyBefore(&a[p], &x, bDesc) ) break;
    a[i] = a[p];
    i = p;
  }
  a[i] = x;
}

/*
** Offers record r, whose ts is ts, to the window being filled: the heap
** aSort[0..*pn) of at most K keys.
*/
static void tsSortOffer(
  tracestore_cursor *pCur,
  int K,
  sqlite3_int64 ts,
  sqlite3_int64 r,
  int *pn
){
  tracestore_key key, *a = pCur->aSort;
  int bDesc = pCur->bDesc;
  if( ts<pCur->iTsLo || ts>pCur->iTsHi ) return;
  key.iTs = ts;
  key.iRowid = r;
  if( pCur->bSortAfter && !tsKeyBefore(&pCur->sortAfter, &key, bDesc) ) return;
  if( *pn<K ){
    a[*pn] = key;
    tsHeapUp(a, *pn, bDesc);
    (*pn)++;
  }else if( tsKeyBefore(&key, &a[0], bDesc) ){
    a[0] = key;
    tsHeapDown(a, *pn, 0, bDesc);
  }
}

/*
** TS_SCAN_SORT: fills the next window with the first nSortCap keys, in
** scan order, of the matching records that come after sortAfter (if
** bSortAfter), sorts it and moves to its first key, or to EOF.  The
** candidates are aIn (bInList) or iFirst..iLast, where the block index
** skips blocks outside the ts range, before sortAfter, or past the
** window once it is full.
*/
static int tsSortFill(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  sqlite3_int64 *pnVisited = &pTab->pStats->nVisited;
  sqlite3_int64 r, k, iStart, iEnd;
  const tracestore_block *pBlk;
  tracestore_key *a, key;
  int K = pCur->nSortCap, n = 0, m, bDesc = pCur->bDesc;

  if( pCur->nSortAlloc<K ){
    a = sqlite3_realloc64(pCur->aSort, sizeof(a[0])*(size_t)K);
    if( a==0 ) return SQLITE_NOMEM;
    pCur->aSort = a;
    pCur->nSortAlloc = K;
  }
  a = pCur->aSort;
  if( pCur->bInList ){
    for(k=0; k<pCur->nIn; k++){
      r = pCur->aIn[k];
      (*pnVisited)++;
      tsSortOffer(pCur, K, tsRecordTs(pTab, r), r, &n);
    }
  }else{
    r = pCur->iFirst;
    while( r<=pCur->iLast ){
      iEnd = pCur->iLast;
      if( tsBlockOf(pTab, r, &pBlk, &iStart, &iEnd) ){
        if( iEnd>pCur->iLast ) iEnd = pCur->iLast;
        if( pBlk->iMax<pCur->iTsLo || pBlk->iMin>pCur->iTsHi
         || (pCur->bSortAfter && (bDesc ? pBlk->iMin>pCur->sortAfter.iTs
                                        : pBlk->iMax<pCur->sortAfter.iTs))
         || (n==K && (bDesc ? pBlk->iMax<a[0].iTs : pBlk->iMin>a[0].iTs)) ){
          r = iEnd+1;
          continue;
        }
      }
      for(; r<=iEnd; r++){
        (*pnVisited)++;
        tsSortOffer(pCur, K, tsRecordTs(pTab, r), r, &n);
      }
    }
  }
  for(m=n; m>1; m--){
    key = a[0];
    a[0] = a[m-1];
    a[m-1] = key;
    tsHeapDown(a, m-1, 0, bDesc);
  }
  pCur->nSort = n;
  pCur->iSort = 0;
  pCur->bSortFinal = n<K;
  if( n==0 ){
    pCur->bEof = 1;
    return SQLITE_OK;
  }
  pCur->iRowid = a[0].iRowid;
  if( !pCur->bSortFinal && pCur->nSortCap<TS_SORT_MAX ){
    pCur->nSortCap = pCur->nSortCap>TS_SORT_MAX/2 ? TS_SORT_MAX
                                                  : pCur->nSortCap*2;
  }
  return SQLITE_OK;
}

static int tsCompareInt64(const void *a, const void *b){
  sqlite3_int64 x = *(const sqlite3_int64*)a, y = *(const sqlite3_int64*)b;
  return x<y ? -1 : x>y;
}

/*
** Collects into aIn the rowids of the IN list pList that are in
** [iFirst, iLast] (values compared as in tsNarrow), sorted and distinct.
*/
int tsCollectIn(tracestore_cursor *pCur, sqlite3_value *pList){
  sqlite3_value *pVal = 0;
  sqlite3_int64 lo, hi, n = 0, i, *aNew;
  int rc;

  pCur->nIn = 0;
  rc = sqlite3_vtab_in_first(pList, &pVal);
  if( rc==SQLITE_ERROR ){
    /* Not a list after all: one value, as for rowid = ?. */
    lo = pCur->iFirst;
    hi = pCur->iLast;
    tsNarrow(pList, SQLITE_INDEX_CONSTRAINT_EQ, &lo, &hi);
    pCur->iFirst = lo;
    pCur->iLast = hi;
    return SQLITE_OK;
  }
  for(; rc==SQLITE_OK && pVal; rc = sqlite3_vtab_in_next(pList, &pVal)){
    lo = pCur->iFirst;
    hi = pCur->iLast;
    tsNarrow(pVal, SQLITE_INDEX_CONSTRAINT_EQ, &lo, &hi);
    if( lo>hi ) continue;
    if( pCur->nIn>=pCur->nInAlloc ){
      n = pCur->nInAlloc ? pCur->nInAlloc*2 : 16;
      aNew = sqlite3_realloc64(pCur->aIn, sizeof(aNew[0])*(size_t)n);
      if( aNew==0 ) return SQLITE_NOMEM;
      pCur->aIn = aNew;
      pCur->nInAlloc = n;
    }
    pCur->aIn[pCur->nIn++] = lo;
  }
  if( rc!=SQLITE_OK && rc!=SQLITE_DONE ) return rc;
  if( pCur->nIn>1 ){
    qsort(pCur->aIn, (size_t)pCur->nIn, sizeof(pCur->aIn[0]), tsCompareInt64);
    for(i=1, n=1; i<pCur->nIn; i++){
      if( pCur->aIn[i]!=pCur->aIn[n-1] ) pCur->aIn[n++] = pCur->aIn[i];
    }
    pCur->nIn = n;
  }
  pCur->bInList = 1;
  return SQLITE_OK;
}

/*
** Moves to the first row of the scan xFilter set the cursor up for (its
** eScan, direction, range or list), or to EOF.
*/
int tsScanStart(tracestore_cursor *pCur){
  int rc = SQLITE_OK;
  pCur->bEof = 0;
  switch( pCur->eScan ){
    case TS_SCAN_RANGE:
      tsRangeSeek(pCur, pCur->bDesc ? pCur->iLast : pCur->iFirst);
      break;
    case TS_SCAN_IN:
      tsInSeek(pCur, pCur->bDesc ? pCur->nIn-1 : 0);
      break;
    case TS_SCAN_SORT:
      rc = tsSortFill(pCur);
      break;
  }
  return rc;
}

/*
** Moves to the next row in scan order (or EOF), without regard to LIMIT.
*/
int tsAdvance(tracestore_cursor *pCur){
  tracestore_vtab *pTab = (tracestore_vtab*)pCur->base.pVtab;
  sqlite3_int64 r;
  switch( pCur->eScan ){
    case TS_SCAN_RANGE: {
      if( pCur->bDesc ){
        r = pCur->iRowid-1;
        if( r>=pCur->iRunEnd ){
          pCur->iRowid = r;
          pTab->pStats->nVisited++;
        }else{
          tsRangeSeek(pCur, r);
        }
      }else{
        r = pCur->iRowid+1;
        if( r<=pCur->iRunEnd ){
          pCur->iRowid = r;
          pTab->pStats->nVisited++;
        }else{
          tsRangeSeek(pCur, r);
        }
      }
      break;
    }
    case TS_SCAN_IN: {
      tsInSeek(pCur, pCur->iIn + (pCur->bDesc ? -1 : 1));
      break;
    }
    case TS_SCAN_SORT: {
      if( ++pCur->iSort<pCur->nSort ){
        pCur->iRowid = pCur->aSort[pCur->iSort].iRowid;
      }else if( pCur->bSortFinal ){
        pCur->bEof = 1;
      }else{
        pCur->sortAfter = pCur->aSort[pCur->nSort-1];
        pCur->bSortAfter = 1;
        return tsSortFill(pCur);
      }
      break;
    }
  }
  return SQLITE_OK;
}

/*
** Skips nSkip rows (OFFSET) from the current one.  Rows of a known run or
** window are jumped over without reading them.
*/
int tsSkip(tracestore_cursor *pCur, sqlite3_int64 nSkip){
  sqlite3_int64 nAvail;
  int rc = SQLITE_OK;
  while( nSkip>0 && !pCur->bEof && rc==SQLITE_OK ){
    nAvail = 0;
    if( pCur->eScan==TS_SCAN_RANGE ){
      nAvail = pCur->bDesc ? pCur->iRowid - pCur->iRunEnd
                           : pCur->iRunEnd - pCur->iRowid;
    }else if( pCur->eScan==TS_SCAN_SORT ){
      nAvail = pCur->nSort - 1 - pCur->iSort;
    }
    if( nAvail>nSkip ) nAvail = nSkip;
    if( nAvail>0 ){
      if( pCur->eScan==TS_SCAN_RANGE ){
        pCur->iRowid += pCur->bDesc ? -nAvail : nAvail;
      }else{
        pCur->iSort += (int)nAvail;
        pCur->iRowid = pCur->aSort[pCur->iSort].iRowid;
      }
      nSkip -= nAvail;
    }else{
      rc = tsAdvance(pCur);
      nSkip--;
    }
  }
  return rc;
}
