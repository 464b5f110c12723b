/*
** FaultPair.c: a workload of two processes that page-fault in known ways,
** for `tracestore plot` tests (Tests/Cli/plot_perf.sh).
**
** usage: FaultPair FILE [CHILD]
**
** With CHILD, first starts CHILD FILE (vfork + exec: the child runs no
** code of ours before the exec, so its first fault already carries its
** own name).  Then each process drops FILE's pages from the page cache
** (fdatasync, posix_fadvise DONTNEED), reads FILE through a private
** read-only mapping without read-ahead, one byte a page (major faults
** where the kernel reads the page, minor ones where the other process
** already had it read), and writes 64 pages
** of anonymous memory (minor, demand-zero faults).  Exits 0, or 1 with a
** message.
**
** Zone: test program (libc).
*/
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv){
  struct stat st;
  volatile unsigned char sum = 0;
  unsigned char *p, *anon;
  long page = sysconf(_SC_PAGESIZE);
  pid_t child = -1;
  off_t i;
  int fd, status;

  if( argc<2 ){
    fprintf(stderr, "usage: FaultPair FILE [CHILD]\n");
    return 1;
  }
  if( argc>2 ){
    child = vfork();
    if( child==0 ){
      execl(argv[2], argv[2], argv[1], (char*)0);
      _exit(127);
    }
    if( child<0 ){
      perror("vfork");
      return 1;
    }
  }

  fd = open(argv[1], O_RDONLY);
  if( fd<0 || fstat(fd, &st)!=0 || st.st_size==0 ){
    fprintf(stderr, "FaultPair: cannot read %s\n", argv[1]);
    return 1;
  }
  fdatasync(fd);
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  p = mmap(0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  if( p==MAP_FAILED ){
    perror("mmap");
    return 1;
  }
  madvise(p, (size_t)st.st_size, MADV_RANDOM);  /* no read-ahead */
  for(i=0; i<st.st_size; i+=page) sum += p[i];
  munmap(p, (size_t)st.st_size);
  close(fd);

  anon = mmap(0, (size_t)(64*page), PROT_READ|PROT_WRITE,
              MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( anon==MAP_FAILED ){
    perror("mmap");
    return 1;
  }
  for(i=0; i<64; i++) anon[i*page] = (unsigned char)(i + sum);
  munmap(anon, (size_t)(64*page));

  if( child>0 ){
    if( waitpid(child, &status, 0)!=child || !WIFEXITED(status)
     || WEXITSTATUS(status)!=0 ){
      fprintf(stderr, "FaultPair: the child failed\n");
      return 1;
    }
  }
  return 0;
}
