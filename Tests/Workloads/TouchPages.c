/*
** TouchPages: a workload that makes a known number of page faults.
**
** Usage: TouchPages [PAGES [ROUNDS [PAUSE_MS [FILE]]]]
**
** Each round maps PAGES fresh anonymous pages and writes one byte in each
** (demand-zero faults), then maps FILE (default: this program) and reads
** one byte per page (file-backed faults), unmaps both and sleeps
** PAUSE_MS.  The first line of output is the process id, so that a test
** can pick this process's events out of a system-wide capture.  Then one
** line per round, all numbers in decimal:
**
**   round R T0 T1 ANON_START ANON_END FILE_START FILE_END
**
** T0 and T1 are CLOCK_MONOTONIC ns before the first mmap and after the
** last munmap of the round; the ranges are what mmap returned, so a test
** can tell which mapping each fault of the round hit without asking the
** recorder.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long monoNs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv){
  long nPage = argc>1 ? strtol(argv[1], 0, 0) : 256;
  long nRound = argc>2 ? strtol(argv[2], 0, 0) : 1;
  long msPause = argc>3 ? strtol(argv[3], 0, 0) : 0;
  const char *zFile = argc>4 ? argv[4] : "/proc/self/exe";
  long szPage = sysconf(_SC_PAGESIZE);
  unsigned long sum = 0;
  long r, i;

  printf("%ld\n", (long)getpid());
  fflush(stdout);
  for(r=0; r<nRound; r++){
    unsigned long long t0 = monoNs(), t1;
    char *a = mmap(0, nPage*szPage, PROT_READ|PROT_WRITE,
                   MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    int fd = open(zFile, O_RDONLY);
    off_t len;
    volatile char *f;
    if( a==MAP_FAILED || fd<0 ){ perror("TouchPages"); return 1; }
    for(i=0; i<nPage; i++) a[i*szPage] = (char)i;
    len = lseek(fd, 0, SEEK_END);
    f = mmap(0, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if( f==MAP_FAILED ){ perror("TouchPages"); return 1; }
    for(i=0; i<len; i+=szPage) sum += f[i];
    munmap((void*)f, len);
    munmap(a, nPage*szPage);
    close(fd);
    t1 = monoNs();
    printf("round %ld %llu %llu %lu %lu %lu %lu\n", r, t0, t1,
           (unsigned long)a, (unsigned long)(a + nPage*szPage),
           (unsigned long)f, (unsigned long)(f + len));
    if( msPause>0 ){
      struct timespec ts;
      ts.tv_sec = msPause/1000;
      ts.tv_nsec = (msPause%1000)*1000000L;
      nanosleep(&ts, 0);
    }
  }
  fprintf(stderr, "TouchPages: %ld rounds of %ld pages (sum %lu)\n",
          nRound, nPage, sum);
  return 0;
}
