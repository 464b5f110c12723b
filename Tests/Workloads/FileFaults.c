/*
** FileFaults: a workload that makes hard and soft page faults and says
** how many the kernel counted (its own getrusage).
**
** Usage: FileFaults FILE [PAGES [ANON_PAGES [COW_PAGES [KERNEL_PAGES
**                   [GUARD_PAGES]]]]]
**
** Writes FILE (PAGES + 2 pages), fsyncs it and drops it from the page
** cache (posix_fadvise POSIX_FADV_DONTNEED), maps PAGES pages of it from
** file offset 2 pages (MAP_PRIVATE, MADV_RANDOM: no read-ahead, so each
** page read is its own fault), and maps ANON_PAGES anonymous pages.  Then,
** in a window, it reads a byte of each file page (hard faults: the page
** must be read from the disk), writes a byte of the first COW_PAGES file
** pages (soft: a copy of a present private page), writes a byte of
** each anonymous page (soft: demand-zero) and read()s KERNEL_PAGES pages
** of FILE into fresh anonymous memory (soft, demand-zero, faulted in
** kernel mode by the copy to user memory: page_fault_kernel events) and
** writes a byte of each of GUARD_PAGES pages mapped PROT_NONE, whose
** SIGSEGV handler makes the page writable: each write faults twice, once
** not counted by the kernel (the SIGSEGV), once counted (demand-zero).  Everything the window runs
** (its code, stack, getrusage and clock_gettime) is used once before it,
** so that the window's faults are the touches.
**
** Output, numbers in decimal unless 0x:
**
**   pid PID
**   file 0xSTART LENGTH OFFSET        the file mapping and its offset
**   anon 0xSTART LENGTH
**   kernel 0xSTART LENGTH
**   guard 0xSTART LENGTH              (its first page is touched before)
**   resident N                        file pages cached before the window
**   touch file|cow|anon|kernel|guard 0xADDRESS MODULE_OFFSET [SEGV_OFFSET]
**                                     one per touch: address - mapping
**                                     start (+ file offset for the file);
**                                     a guard page's SIGSEGV has its own
**   window T0 T1                      CLOCK_MONOTONIC ns around the touches
**   rusage MAJFLT MINFLT              ru_majflt, ru_minflt: the window's
**
** The touch lines are printed after the window, from an array filled in
** it (the array is touched before).
*/
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static unsigned long long monoNs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000000000ULL + (unsigned long long)ts.tv_nsec;
}

static void die(const char *z){ perror(z); exit(1); }

static long szPage;

/* A write to a PROT_NONE guard page: make its page writable, retry. */
static void onSegv(int sig, siginfo_t *pInfo, void *pCtx){
  unsigned long p = (unsigned long)pInfo->si_addr & ~(unsigned long)(szPage-1);
  (void)sig; (void)pCtx;
  if( mprotect((void*)p, szPage, PROT_READ|PROT_WRITE) ) _exit(3);
}

int main(int argc, char **argv){
  const char *zFile = argc>1 ? argv[1] : 0;
  long nPage = argc>2 ? strtol(argv[2], 0, 0) : 64;
  long nAnon = argc>3 ? strtol(argv[3], 0, 0) : 64;
  long nCow = argc>4 ? strtol(argv[4], 0, 0) : 8;
  long nKernel = argc>5 ? strtol(argv[5], 0, 0) : 0;
  long nGuard = argc>6 ? strtol(argv[6], 0, 0) : 0;
  off_t iOff;
  struct rusage r0, r1;
  unsigned long long t0, t1;
  unsigned long sum = 0;
  volatile char *f;
  char *a, *k, *g, *buf;
  struct sigaction sa;
  unsigned char *vec;
  char **aAddr;
  long i, nTouch = 0, nRes = 0;
  int fd;

  szPage = sysconf(_SC_PAGESIZE);
  iOff = 2*szPage;
  if( zFile==0 || nPage<1 || nAnon<0 || nCow<0 || nCow>nPage
   || nKernel<0 || nKernel>nPage+2 || nGuard<0 ){
    fprintf(stderr, "usage: FileFaults FILE [PAGES [ANON_PAGES "
            "[COW_PAGES [KERNEL_PAGES [GUARD_PAGES]]]]]\n");
    return 2;
  }
  printf("pid %ld\n", (long)getpid());

  /* The file, on the disk and out of the page cache. */
  buf = malloc(szPage);
  if( buf==0 ) die("malloc");
  fd = open(zFile, O_RDWR|O_CREAT|O_TRUNC, 0644);
  if( fd<0 ) die(zFile);
  for(i=0; i<nPage+2; i++){
    memset(buf, (int)(i & 0xff), szPage);
    if( write(fd, buf, szPage)!=szPage ) die("write");
  }
  if( fsync(fd) ) die("fsync");
  if( pread(fd, buf, 1, 0)!=1 ) die("pread");  /* what the window runs */
  if( posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) ) die("posix_fadvise");

  f = mmap(0, nPage*szPage, PROT_READ|PROT_WRITE, MAP_PRIVATE, fd, iOff);
  if( f==MAP_FAILED ) die("mmap file");
  if( madvise((void*)f, nPage*szPage, MADV_RANDOM) ) die("madvise");
  a = mmap(0, nAnon>0 ? nAnon*szPage : szPage, PROT_READ|PROT_WRITE,
           MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( a==MAP_FAILED ) die("mmap anon");
  k = mmap(0, nKernel>0 ? nKernel*szPage : szPage, PROT_READ|PROT_WRITE,
           MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( k==MAP_FAILED ) die("mmap kernel");
  /* One guard page more, touched before the window: the handler, its
  ** signal frame's stack and mprotect are then in memory. */
  g = mmap(0, (nGuard+1)*szPage, PROT_NONE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( g==MAP_FAILED ) die("mmap guard");
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = onSegv;
  sa.sa_flags = SA_SIGINFO;
  if( sigaction(SIGSEGV, &sa, 0) ) die("sigaction");
  vec = malloc(nPage);
  aAddr = malloc((nPage+nCow+nAnon+nKernel+nGuard+1)*sizeof(char*));
  if( vec==0 || aAddr==0 ) die("malloc");
  memset(aAddr, 0, (nPage+nCow+nAnon+nKernel+nGuard+1)*sizeof(char*));
  if( mincore((void*)f, nPage*szPage, vec) ) die("mincore");
  for(i=0; i<nPage; i++) nRes += vec[i] & 1;

  printf("file 0x%lx %ld %ld\n", (unsigned long)f, nPage*szPage,
         (long)iOff);
  printf("anon 0x%lx %ld\n", (unsigned long)a, nAnon*szPage);
  printf("kernel 0x%lx %ld\n", (unsigned long)k, nKernel*szPage);
  printf("guard 0x%lx %ld\n", (unsigned long)g, (nGuard+1)*szPage);
  printf("resident %ld\n", nRes);
  fflush(stdout);

  /* What the window runs, once before it. */
  getrusage(RUSAGE_SELF, &r0);
  getrusage(RUSAGE_SELF, &r1);
  t0 = monoNs();
  t1 = monoNs();
  *(volatile char*)g = 1;

  getrusage(RUSAGE_SELF, &r0);
  t0 = monoNs();
  for(i=0; i<nPage; i++){
    volatile char *p = f + i*szPage + 100 + i%7;
    sum += *p;
    aAddr[nTouch++] = (char*)p;
  }
  for(i=0; i<nCow; i++){
    volatile char *p = f + i*szPage + 200 + i%5;
    *p = 1;
    aAddr[nTouch++] = (char*)p;
  }
  for(i=0; i<nAnon; i++){
    volatile char *p = a + i*szPage + 300 + i%3;
    *p = 1;
    aAddr[nTouch++] = (char*)p;
  }
  /* The kernel writes these pages: one fault each, in kernel mode. */
  if( nKernel>0 && pread(fd, k, nKernel*szPage, 0)!=nKernel*szPage ){
    die("pread");
  }
  for(i=0; i<nKernel; i++) aAddr[nTouch++] = k + i*szPage;
  for(i=0; i<nGuard; i++){
    volatile char *p = g + (i+1)*szPage + 400 + i%3;
    *p = 1;
    aAddr[nTouch++] = (char*)p;
  }
  t1 = monoNs();
  getrusage(RUSAGE_SELF, &r1);

  for(i=0; i<nTouch; i++){
    char *p = aAddr[i];
    if( i<nPage+nCow ){
      printf("touch %s 0x%lx %ld\n", i<nPage ? "file" : "cow",
             (unsigned long)p, (long)(p - (char*)f + iOff));
    }else if( i<nPage+nCow+nAnon ){
      printf("touch anon 0x%lx %ld\n", (unsigned long)p, (long)(p - a));
    }else if( i<nPage+nCow+nAnon+nKernel ){
      printf("touch kernel 0x%lx %ld\n", (unsigned long)p, (long)(p - k));
    }else{
      /* The kernel's mappings: at the SIGSEGV, the PROT_NONE rest from
      ** this page on (the pages before were made writable); after the
      ** handler, one writable mapping from g (merged with them). */
      printf("touch guard 0x%lx %ld %ld\n", (unsigned long)p, (long)(p - g),
             (long)(p - g) % szPage);
    }
  }
  printf("window %llu %llu\n", t0, t1);
  printf("rusage %ld %ld\n", r1.ru_majflt - r0.ru_majflt,
         r1.ru_minflt - r0.ru_minflt);
  printf("sum %lu\n", sum);
  close(fd);
  free(aAddr);
  free(vec);
  free(buf);
  return 0;
}
