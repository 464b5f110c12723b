/*
** The program behind Tests/Data/uftrace-mt.data: three threads calling
** mid(int, const char *) -> leaf(int) and strlen(), recorded with uftrace
** 0.13 as
**
**   gcc -pg -O0 -g -o mt uftrace-mt.c -lpthread
**   uftrace record --no-sched -d mt.data -A 'mid@arg1,arg2/s' -R 'leaf@retval' ./mt
**
** so that entries of mid() carry argument data and exits of leaf() a return
** value (records with `more` set).  The copy keeps only what uftrace replay
** and dump need (the library .sym/.dbg files, perf-cpu*.dat and
** default.opts removed; replay prints the same).
*/
#include <pthread.h>
#include <stdio.h>
#include <string.h>
static int leaf(int x) { return x * 2; }
static int mid(int x, const char *s) { return leaf(x) + (int)strlen(s); }
static void *worker(void *arg) {
  long n = (long)arg; int sum = 0;
  for (int i = 0; i < 5; i++) sum += mid(i + (int)n, "hello");
  return (void *)(long)sum;
}
int main(void) {
  pthread_t t[3];
  for (long i = 0; i < 3; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  printf("%d\n", mid(1, "x"));
  return 0;
}
