/*
** The ETW reader's XPRESS (MS-XCA plain LZ77) decompressor on the two
** examples of Microsoft's [MS-XCA] section 2.5.1 ("abc...z" as literals,
** "abc" x 100 as one match with a 16-bit length), a 32-bit match length,
** and damaged streams: a match before the start of the output, output
** longer or shorter than asked for, input cut inside a match.  Each output
** buffer ends at a PROT_NONE page, so a write past it faults.  The expected
** bytes are the specification's (and xpress_lz77.py of the ETW oracle
** agrees on each valid case).
**
** usage: TestEtwXpress
*/
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "Readers/Decoders/Etw/EtwFormat.h"

/* Output buffer of n bytes flush against a PROT_NONE page. */
static unsigned char *fenced(size_t n){
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t span = (n + page - 1) / page * page;
  unsigned char *p = mmap(0, span + page, PROT_READ|PROT_WRITE,
                          MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( p==MAP_FAILED ) return 0;
  mprotect(p + span, page, PROT_NONE);
  return p + span - n;
}

static int nFail = 0;

static void check(const char *zName, const char *zHex, size_t nOut,
                  const unsigned char *aWant, const char *zReason){
  unsigned char in[256];
  size_t nIn = 0, errOff = 0;
  const char *reason = 0;
  unsigned char *out = fenced(nOut ? nOut : 1);
  RTL_STATUS rc;
  unsigned v;
  while( zHex[0] && sscanf(zHex, "%2x", &v)==1 ){ in[nIn++] = (unsigned char)v; zHex += 2; }
  rc = EtwXpressDecompress(in, nIn, out, nOut, &errOff, &reason);
  if( zReason==0 ){
    if( rc!=RTL_STATUS_OK || memcmp(out, aWant, nOut)!=0 ){
      printf("FAIL: %s: %s\n", zName, rc==RTL_STATUS_OK ? "wrong bytes" : reason);
      nFail++;
      return;
    }
  }else if( rc==RTL_STATUS_OK || strstr(reason, zReason)==0 ){
    printf("FAIL: %s: expected an error \"%s\", got %s\n", zName, zReason,
           rc==RTL_STATUS_OK ? "success" : reason);
    nFail++;
    return;
  }
  printf("ok: %s%s%s\n", zName, zReason ? ": " : "", zReason ? reason : "");
}

int main(void){
  unsigned char abc[300], a[1001];
  const char *zAlpha = "abcdefghijklmnopqrstuvwxyz";
  int i;
  for(i=0; i<300; i++) abc[i] = (unsigned char)("abc"[i%3]);
  memset(a, 'a', sizeof(a));

  check("spec 2.5.1, literals", "3f000000"
        "6162636465666768696a6b6c6d6e6f707172737475767778797a",
        26, (const unsigned char*)zAlpha, 0);
  check("spec 2.5.1, abc x 100", "ffffff1f6162631700" "0fff2601", 300, abc, 0);
  check("32-bit match length", "00000040" "61" "0700" "0f" "ff" "0000" "e5030000",
        1001, a, 0);
  check("output shorter than the stream", "ffffff1f6162631700" "0fff2601", 299, abc,
        "more bytes");
  check("output longer than the stream", "ffffff1f6162631700" "0fff2601", 301, abc,
        "fewer bytes");
  check("match before the start", "00000080" "0000", 3, abc,
        "before the start");
  check("input cut inside a match", "ffffff1f6162631700", 300, abc,
        "ends inside a match");
  check("32-bit length below its minimum", "00000040" "61" "0700" "0f" "ff" "0000"
        "05000000", 1001, a, "below its minimum");
  return nFail ? 1 : 0;
}
