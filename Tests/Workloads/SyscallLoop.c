/*
** SyscallLoop: a workload that makes a known number of system calls at a
** controlled rate.
**
** Usage: SyscallLoop [-s] RATE SECONDS
**
** Calls getppid() RATE times a second (0: as fast as it can) for SECONDS
** seconds, paced by CLOCK_MONOTONIC: after each batch it sleeps until the
** next call is due, so the mean rate is exact and a slow consumer of the
** events cannot slow the workload down (it catches up in a burst).
**
** The first line of output is "PID NR": the process id and the number of
** the system call it repeats (getppid's, whose raw_syscalls:sys_enter
** events are the ones to count: `id == NR` and `common_pid == PID`).  The
** last line is the number of getppid calls made.  Reading the clock is
** not a system call (vDSO); the sleeps are clock_nanosleep, another
** number, so they are not counted.
**
** -s stops the process (SIGSTOP) after the first line, so that a recorder
** can attach to PID before the loop begins; SIGCONT starts it.
*/
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long monoNs(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec*1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv){
  int bStop = 0, i = 1;
  double rRate, rSeconds;
  long long t0, tEnd, nDone = 0;
  char *zEnd;

  if( argc>1 && strcmp(argv[1], "-s")==0 ){ bStop = 1; i++; }
  if( argc-i!=2 ){
    fprintf(stderr, "usage: SyscallLoop [-s] RATE SECONDS\n");
    return 2;
  }
  rRate = strtod(argv[i], &zEnd);
  if( *zEnd || rRate<0 ){
    fprintf(stderr, "SyscallLoop: RATE '%s' is not a number >= 0\n", argv[i]);
    return 2;
  }
  rSeconds = strtod(argv[i+1], &zEnd);
  if( *zEnd || !(rSeconds>0) ){
    fprintf(stderr, "SyscallLoop: SECONDS '%s' is not a number > 0\n",
            argv[i+1]);
    return 2;
  }
  printf("%ld %d\n", (long)getpid(), (int)SYS_getppid);
  fflush(stdout);
  if( bStop ) raise(SIGSTOP);

  t0 = monoNs();
  tEnd = t0 + (long long)(rSeconds*1e9);
  if( rRate==0 ){
    for(;;){
      int j;
      for(j=0; j<256; j++) syscall(SYS_getppid);
      nDone += 256;
      if( monoNs()>=tEnd ) break;
    }
  }else{
    double rNsPer = 1e9/rRate;
    long long nTotal = (long long)(rRate*rSeconds + 0.5);
    while( nDone<nTotal ){
      long long tNow = monoNs();
      long long nDue = (long long)((tNow - t0)/rNsPer) + 1;
      struct timespec ts;
      long long tNext;
      if( nDue>nTotal ) nDue = nTotal;
      while( nDone<nDue ){
        syscall(SYS_getppid);
        nDone++;
      }
      if( nDone>=nTotal ) break;
      tNext = t0 + (long long)(nDone*rNsPer);
      ts.tv_sec = tNext/1000000000LL;
      ts.tv_nsec = tNext%1000000000LL;
      clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, 0);
    }
  }
  fprintf(stderr, "SyscallLoop: %lld getppid calls in %.3f s (%.0f/s)\n",
          nDone, (monoNs()-t0)/1e9, nDone/((monoNs()-t0)/1e9));
  printf("%lld\n", nDone);
  return 0;
}
