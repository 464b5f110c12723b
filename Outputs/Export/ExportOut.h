/*
** ExportOut.h: the output buffer of the export formats (ExportChrome.c,
** ExportPerfetto.c): bytes gathered in memory and written to the file a
** megabyte at a time.
**
** Zone: hosted (Outputs/Export/, an output): libc.
*/
#ifndef TRACER_EXPORT_OUT_H
#define TRACER_EXPORT_OUT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Host/Host.h"

typedef struct Out {
  FILE *f;
  char *z;
  size_t n, nAlloc;
  unsigned long long nBytes;      /* bytes written so far */
  int bErr;                       /* a write failed */
} Out;

static inline int outOpen(Out *p, FILE *f){
  p->f = f;
  p->nAlloc = 1u<<20;
  p->z = malloc(p->nAlloc);
  return p->z==0;
}

static inline void outFlush(Out *p){
  if( p->n && !p->bErr && fwrite(p->z, 1, p->n, p->f)!=p->n ) p->bErr = 1;
  p->nBytes += p->n;
  p->n = 0;
}

/* The buffer flushed, and grown to hold nNeed bytes if it cannot. */
static inline char *outRoomSlow(Out *p, size_t nNeed){
  outFlush(p);
  if( nNeed > p->nAlloc ){
    char *zNew = realloc(p->z, nNeed);
    if( zNew==0 ){ hostFail("out of memory"); exit(1); }
    p->z = zNew;
    p->nAlloc = nNeed;
  }
  return p->z + p->n;
}

/* Room for nNeed more bytes at p->z + p->n. */
static inline char *outRoom(Out *p, size_t nNeed){
  if( p->n + nNeed > p->nAlloc ) return outRoomSlow(p, nNeed);
  return p->z + p->n;
}

static inline void outMem(Out *p, const void *z, size_t n){
  memcpy(outRoom(p, n), z, n);
  p->n += n;
}
#define outLit(P, S) outMem((P), (S), sizeof(S)-1)

static inline void outClose(Out *p){
  outFlush(p);
  free(p->z);
  p->z = 0;
}

#endif /* TRACER_EXPORT_OUT_H */
