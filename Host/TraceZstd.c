/*
** TraceZstd.c: the zstd decompressor for TRACE_IMPORT.Zstd (see
** TraceZstd.h).
**
** Zone: hosted (Host/, the process's services): libzstd.  Owns the zstd
** decompression contexts (one for the reader's thread, one for a worker's
** job); calls libzstd only.
*/
#include <zstd.h>

#include "Host/TraceZstd.h"

static RTL_STATUS zstdDecompress(PVOID pCtx, const BYTE *pIn, SIZE_T nIn,
                                 PBYTE pOut, SIZE_T nOut, PSIZE_T pnOut){
  size_t n = ZSTD_decompressDCtx((ZSTD_DCtx*)pCtx, pOut, nOut, pIn, nIn);
  *pnOut = 0;
  if( ZSTD_isError(n) ) return RTL_STATUS_BAD_FORMAT;
  *pnOut = n;
  return RTL_STATUS_OK;
}

static RTL_STATUS zstdStream(PVOID pCtx, const BYTE *pIn, SIZE_T nIn,
                             PSIZE_T pnIn, PBYTE pOut, SIZE_T nOut,
                             PSIZE_T pnOut){
  ZSTD_inBuffer in = { pIn, nIn, 0 };
  ZSTD_outBuffer out = { pOut, nOut, 0 };
  size_t rc = ZSTD_decompressStream((ZSTD_DStream*)pCtx, &out, &in);
  *pnIn = in.pos;
  *pnOut = out.pos;
  return ZSTD_isError(rc) ? RTL_STATUS_BAD_FORMAT : RTL_STATUS_OK;
}

static VOID zstdReset(PVOID pCtx){
  ZSTD_DCtx_reset((ZSTD_DCtx*)pCtx, ZSTD_reset_session_only);
}

static TRACE_DECOMPRESSOR zstdTable = {
  "zstd", 0, zstdDecompress, 0, 0, zstdStream, zstdReset
};

PCTRACE_DECOMPRESSOR TraceZstdDecompressor(void){
  if( zstdTable.Context==0 ){
    zstdTable.Context = ZSTD_createDCtx();
    if( zstdTable.Context==0 ) return 0;
    /* A context for a job on a worker thread; without it (no memory) the
    ** reader decompresses on its own thread only. */
    zstdTable.WorkerContext = ZSTD_createDCtx();
    /* The stream's context (perf record -z); without it, no streaming. */
    zstdTable.StreamContext = ZSTD_createDCtx();
  }
  return &zstdTable;
}
