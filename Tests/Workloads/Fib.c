/*
** Fib.c: recursive Fibonacci, a call-heavy program for uftrace recordings
** in benchmarks (Tests/Bench/bench_export.sh builds it with gcc -pg).
**
** usage: Fib [N]    prints fib(N) (default 20); fib(N) makes about
**                   2 * fib(N + 1) calls.
**
** Zone: test program (libc).
*/
#include <stdio.h>
#include <stdlib.h>

static int fib(int n){
  return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(int argc, char **argv){
  printf("%d\n", fib(argc > 1 ? atoi(argv[1]) : 20));
  return 0;
}
