/*
** RollupTamper.c: changes a rollup file's header as no Tracer writer
** would, keeping its checksum valid, for the damaged-rollup tests.
**
** Zone: tests (hosted): libc; the core's RTL for XXH3.
**
**   RollupTamper FILE version N   sets the header's version to N
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TraceStore/TraceRollup.h"

int main(int argc, char **argv){
  RTL rtl;
  TRACE_ROLLUP_HEADER h;
  FILE *f;
  if( argc!=4 || strcmp(argv[2], "version")!=0 ){
    fprintf(stderr, "usage: RollupTamper FILE version N\n");
    return 2;
  }
  if( !RTL_SUCCESS(InitializeRtl(&rtl)) ) return 1;
  f = fopen(argv[1], "r+b");
  if( f==0 || fread(&h, sizeof(h), 1, f)!=1 ){
    fprintf(stderr, "RollupTamper: cannot read %s\n", argv[1]);
    return 1;
  }
  h.Version = (ULONG)strtoul(argv[3], 0, 0);
  h.HeaderChecksum = rtl.Hash64(&h, TRACE_ROLLUP_HEADER_CHECKSUMMED_BYTES);
  if( fseek(f, 0, SEEK_SET)!=0 || fwrite(&h, sizeof(h), 1, f)!=1
   || fclose(f)!=0 ){
    fprintf(stderr, "RollupTamper: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
