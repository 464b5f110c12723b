/*
** StoreSeal: recomputes the checksums of store and session files that a
** test has edited, so that the edit reaches the checks behind the
** checksums (a checksum is not a signature: anyone can recompute it).
**
** usage: StoreSeal [--header] [--slot N]... FILE
**        StoreSeal --session FILE
**
**   --header   the store header checksum (XXH3-64 of the header page with
**              the checksum and both commit slots zeroed)
**   --slot N   the checksum of commit slot N (0 or 1): XXH3-64 of its
**              first 56 bytes
**   --session  FILE is a session.tracer: XXH3-64 of its first 504 bytes
**
** With neither --header nor --slot, a store gets all three.  The file is
** edited in place with pread/pwrite and must hold a whole header (seal
** first, then cut a file short).
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "TraceStore/TraceStore.h"

static int readAll(int fd, void *p, size_t n){
  return pread(fd, p, n, 0)==(ssize_t)n ? 0 : -1;
}

int main(int argc, char **argv){
  RTL rtl;
  int i, fd, bHeader = 0, bSession = 0, aSlot[2] = {0, 0}, bAny = 0;
  const char *zFile = 0;

  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "--header")==0 ){
      bHeader = bAny = 1;
    }else if( strcmp(argv[i], "--slot")==0 && i+1<argc ){
      int n = atoi(argv[++i]);
      if( n<0 || n>1 ){ fprintf(stderr, "StoreSeal: slot 0 or 1\n"); return 2; }
      aSlot[n] = bAny = 1;
    }else if( strcmp(argv[i], "--session")==0 ){
      bSession = 1;
    }else if( zFile==0 ){
      zFile = argv[i];
    }else{
      zFile = 0;
      break;
    }
  }
  if( zFile==0 ){
    fprintf(stderr, "usage: StoreSeal [--header] [--slot N]... FILE\n"
                    "       StoreSeal --session FILE\n");
    return 2;
  }
  if( !bAny ) bHeader = aSlot[0] = aSlot[1] = 1;
  InitializeRtl(&rtl);
  fd = open(zFile, O_RDWR);
  if( fd<0 ){ perror(zFile); return 1; }

  if( bSession ){
    TRACE_SESSION_HEADER h;
    if( readAll(fd, &h, sizeof(h)) ){
      fprintf(stderr, "StoreSeal: %s: cannot read a whole header\n", zFile);
      return 1;
    }
    h.Checksum = rtl.Hash64(&h, FIELD_OFFSET(TRACE_SESSION_HEADER, Checksum));
    if( pwrite(fd, &h.Checksum, 8, FIELD_OFFSET(TRACE_SESSION_HEADER,
                                                Checksum))!=8 ){
      perror(zFile);
      return 1;
    }
  }else{
    static TRACE_STORE_HEADER h, copy;
    if( readAll(fd, &h, sizeof(h)) ){
      fprintf(stderr, "StoreSeal: %s: cannot read a whole header\n", zFile);
      return 1;
    }
    if( bHeader ){
      copy = h;
      copy.HeaderChecksum = 0;
      memset(copy.Slots, 0, sizeof(copy.Slots));
      h.HeaderChecksum = rtl.Hash64(&copy, sizeof(copy));
    }
    for(i=0; i<2; i++){
      if( aSlot[i] ){
        h.Slots[i].Checksum = rtl.Hash64(&h.Slots[i],
                                         TRACE_SLOT_CHECKSUMMED_BYTES);
      }
    }
    /* Write back only the checksums, so the file's size does not change. */
    if( pwrite(fd, &h.HeaderChecksum, 8,
               FIELD_OFFSET(TRACE_STORE_HEADER, HeaderChecksum))!=8 ){
      perror(zFile);
      return 1;
    }
    for(i=0; i<2; i++){
      off_t o = FIELD_OFFSET(TRACE_STORE_HEADER, Slots)
              + i*sizeof(TRACE_STORE_COMMIT_SLOT)
              + FIELD_OFFSET(TRACE_STORE_COMMIT_SLOT, Checksum);
      if( pwrite(fd, &h.Slots[i].Checksum, 8, o)!=8 ){
        perror(zFile);
        return 1;
      }
    }
  }
  close(fd);
  return 0;
}
