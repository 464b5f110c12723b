/*
** Prints the name of every format whose Detect routine claims FILE, one
** per line, so that a test can check that each sample is claimed by its
** own reader and by no other (tracestore import only shows the first
** match in detection order).
**
** usage: TestDetect FILE
*/
#include <stdio.h>
#include <string.h>

#include "Readers/TraceFormats.h"

int main(int argc, char **argv){
  static RTL Rtl;
  TRACE_IMPORT imp;
  const PCTRACE_FORMAT *p;
  int nClaims = 0;

  if( argc!=2 ){
    fprintf(stderr, "usage: %s FILE\n", argv[0]);
    return 2;
  }
  InitializeRtl(&Rtl);
  memset(&imp, 0, sizeof(imp));
  imp.Rtl = &Rtl;
  imp.Path = argv[1];
  if( !RTL_SUCCESS(TraceImportMapInput(&imp)) ){
    fprintf(stderr, "%s\n", imp.Error.Message);
    return 1;
  }
  for(p=TraceFormats; *p; p++){
    if( (*p)->Detect(&imp) ){
      printf("%s\n", (*p)->Name);
      nClaims++;
    }
  }
  TraceImportUnmapInput(&imp);
  if( nClaims==0 ) printf("none\n");
  return 0;
}
