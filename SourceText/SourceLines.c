/*
** SourceLines.c: the text of source lines, for source_line() in both
** extensions (SourceLines.h says what it keeps and why).
**
** Zone: hosted: libc only.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "SourceText/SourceLines.h"

#define SOURCE_CACHE 8
#define SOURCE_MAX   (64L << 20)

typedef struct SourceFile SourceFile;
struct SourceFile {
  char *zPath;          /* file name, or NULL: an empty slot */
  char *zText;          /* its bytes, or NULL if unreadable */
  long *aLine;          /* offset of each line's start, nLine+1 entries */
  long nLine;
  unsigned int iUsed;   /* for least-recently-used eviction */
};

struct SourceCache {
  SourceFile a[SOURCE_CACHE];
  unsigned int iClock;
};

SourceCache *sourceCacheNew(void){
  return calloc(1, sizeof(SourceCache));
}

static void sourceClear(SourceFile *p){
  free(p->zPath);
  free(p->zText);
  free(p->aLine);
  memset(p, 0, sizeof(*p));
}

void sourceCacheFree(SourceCache *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<SOURCE_CACHE; i++) sourceClear(&p->a[i]);
  free(p);
}

/* Reads file zPath into p (zText NULL if it cannot be read).  0, or -1
** without memory. */
static int sourceLoad(SourceFile *p, const char *zPath){
  FILE *f;
  struct stat st;
  long n, i, k;
  p->zPath = strdup(zPath);
  if( p->zPath==0 ) return -1;
  if( stat(zPath, &st)!=0 || !S_ISREG(st.st_mode) || st.st_size<0
   || st.st_size>SOURCE_MAX ){
    return 0;
  }
  f = fopen(zPath, "rb");
  if( f==0 ) return 0;
  p->zText = malloc((size_t)st.st_size + 1);
  if( p->zText==0 ){ fclose(f); return -1; }
  n = (long)fread(p->zText, 1, (size_t)st.st_size, f);
  fclose(f);
  p->zText[n] = 0;
  for(i=0; i<n; i++) if( p->zText[i]=='\n' ) p->nLine++;
  if( n>0 && p->zText[n-1]!='\n' ) p->nLine++;
  p->aLine = malloc(sizeof(long)*((size_t)p->nLine + 1));
  if( p->aLine==0 ) return -1;
  p->aLine[0] = 0;
  for(i=0, k=1; i<n && k<=p->nLine; i++){
    if( p->zText[i]=='\n' ) p->aLine[k++] = i+1;
  }
  p->aLine[p->nLine] = n + (n>0 && p->zText[n-1]!='\n' ? 1 : 0);
  return 0;
}

int sourceLine(SourceCache *c, const char *zPath, long long iLine,
               const char **pz, size_t *pn){
  SourceFile *p = 0;
  long iStart, iEnd;
  int i;
  for(i=0; i<SOURCE_CACHE && p==0; i++){
    if( c->a[i].zPath && strcmp(c->a[i].zPath, zPath)==0 ) p = &c->a[i];
  }
  if( p==0 ){
    p = &c->a[0];
    for(i=1; i<SOURCE_CACHE; i++){
      if( c->a[i].iUsed<p->iUsed ) p = &c->a[i];
    }
    sourceClear(p);
    if( sourceLoad(p, zPath) ){
      sourceClear(p);
      return -1;
    }
  }
  p->iUsed = ++c->iClock;
  if( p->zText==0 || iLine<1 || iLine>p->nLine ) return 0;
  iStart = p->aLine[iLine-1];
  iEnd = p->aLine[iLine];
  while( iEnd>iStart && (p->zText[iEnd-1]=='\n' || p->zText[iEnd-1]=='\r') ){
    iEnd--;
  }
  *pz = p->zText + iStart;
  *pn = (size_t)(iEnd - iStart);
  return 1;
}
