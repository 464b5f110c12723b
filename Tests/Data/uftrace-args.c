/*
** The program Tests/Readers/uftrace_producer.sh records with uftrace (built
** there with gcc -pg -g -O0): functions taking and returning every kind of
** value uftrace's argument specs print (ints of each size, hex, pointers,
** strings with escapes, UTF-8 and NULL, floats of 32, 64 and 80 bits,
** chars, enums, a struct by value), recursion, threads, sleeps (context
** switches inside calls) and libc calls that uftrace's auto-args table
** knows.  With "fork" it also forks a child that execs this program again
** ("child"), so that the child runs on its parent's image first and on a
** new one after.
*/
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum color { RED, GREEN = 2, BLUE = 4 };
struct point { int x, y; };

int add(int a, int b) { return a + b; }
long mul(long a, long b) { return a * b; }
unsigned long big(unsigned long x) { return x * 3; }
int neg(int x) { return -x; }
short shrt(short s) { return (short)(s - 1); }
const char *greet(const char *s) { return s; }
double half(double x) { return x / 2; }
float halff(float x) { return x / 2; }
long double quarter(long double x) { return x / 4; }
char upper(char c) { return (char)(c - 32); }
enum color paint(enum color c) { return c; }
int sum_point(struct point p) { return p.x + p.y; }
void *ident(void *p) { return p; }
int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
void nap(int us) { usleep((useconds_t)us); }

static void *worker(void *arg)
{
	long n = (long)arg;

	add((int)n, 1);
	fib(4 + (int)n);
	nap(2000);
	return 0;
}

static void values(void)
{
	char *buf;
	int fd;

	add(1, 2);
	add(-7, 100001);
	mul(-3, 100000);
	big(0x123456789UL);
	neg(5);
	shrt(-7);
	greet("plain");
	greet("q\"t\tb\\e\bn\n");
	greet("h\xc3\xa9llo");
	greet(NULL);
	greet("0123456789012345678901234567890123456789012345678901234567890123"
	      "456789012345678901234567890123456789xyz");
	half(3.5);
	half(-0.0);
	half(1e300);
	half(1.0 / 3);
	half(2.5e-7);
	half(0.015625);		/* 0.0078125: a tie, kept (even) */
	half(0.046875);		/* 0.0234375: a tie, rounded up */
	halff(0.1f);
	quarter(1.0L);
	quarter(1e30L);
	upper('a');
	upper('\n');
	paint(GREEN);
	paint(GREEN | BLUE);
	paint(8);
	sum_point((struct point){ 1, 2 });
	ident((void *)add);
	ident(NULL);
	buf = malloc(32);
	free(buf);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	close(fd);
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	long i;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		add(7, 8);
		return fib(3) - 2;
	}

	values();
	fib(6);
	nap(3000);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], 0, worker, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], 0);

	if (argc > 1 && !strcmp(argv[1], "fork")) {
		pid_t pid = fork();

		if (pid == 0) {
			add(3, 4);
			execl(argv[0], argv[0], "child", (char *)0);
			_exit(1);
		}
		waitpid(pid, 0, 0);
	}
	return 0;
}
