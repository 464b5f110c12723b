/*
** Rewrites bytes of a store file and, optionally, re-seals its checksums,
** so that tests can make corrupt stores that only the deeper checks catch
** (a record size that disagrees with the descriptors, a count beyond the
** end of the file).
**
** usage: StoreTamper FILE OFFSET VALUE WIDTH [reseal]
**   writes VALUE (decimal or 0x hex) as a WIDTH-byte little-endian integer
**   at OFFSET; with "reseal", recomputes the header checksum and both
**   commit slot checksums afterwards.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "TraceStore/TraceStore.h"

int main(int argc, char **argv){
  RTL rtl;
  int fd, width, i;
  unsigned long long value, offset;
  unsigned char *p;
  if( argc<5 ){
    fprintf(stderr, "usage: %s FILE OFFSET VALUE WIDTH [reseal]\n", argv[0]);
    return 2;
  }
  InitializeRtl(&rtl);
  offset = strtoull(argv[2], 0, 0);
  value = strtoull(argv[3], 0, 0);
  width = atoi(argv[4]);
  fd = open(argv[1], O_RDWR);
  if( fd<0 ){ perror(argv[1]); return 1; }
  p = mmap(0, TRACE_STORE_HEADER_SIZE, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0);
  if( p==MAP_FAILED || offset+width>TRACE_STORE_HEADER_SIZE ){
    fprintf(stderr, "cannot map the header of %s\n", argv[1]);
    return 1;
  }
  for(i=0; i<width; i++) p[offset+i] = (unsigned char)(value >> (8*i));
  if( argc>5 && strcmp(argv[5], "reseal")==0 ){
    PTRACE_STORE_HEADER h = (PTRACE_STORE_HEADER)p;
    TRACE_STORE_HEADER copy;
    memcpy(&copy, h, sizeof(copy));
    copy.HeaderChecksum = 0;
    memset(copy.Slots, 0, sizeof(copy.Slots));
    h->HeaderChecksum = rtl.Hash64(&copy, sizeof(copy));
    for(i=0; i<2; i++){
      h->Slots[i].Checksum = rtl.Hash64(&h->Slots[i],
                                        TRACE_SLOT_CHECKSUMMED_BYTES);
    }
  }
  munmap(p, TRACE_STORE_HEADER_SIZE);
  close(fd);
  return 0;
}
