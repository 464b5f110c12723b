/*
 * ShortThreads: a workload of short-lived threads and programs, for
 * `perf record -a`.  Each of N detached threads touches a fresh 256 KB
 * buffer and exits; the kernel reaps such a thread itself, so its last
 * context switch is recorded after its exit, with pid and tid -1 (perf
 * script prints ":-1  -1").  Then it runs /bin/true M times (fork + exec).
 *
 * usage: ShortThreads [THREADS [EXECS]]
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *Touch(void *Unused)
{
    size_t Size = 256 * 1024;
    volatile char *Buffer = malloc(Size);
    size_t Offset;

    (void)Unused;
    if (Buffer != NULL) {
        for (Offset = 0; Offset < Size; Offset += 4096) {
            Buffer[Offset] = 1;
        }
        free((void *)Buffer);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int Threads = argc > 1 ? atoi(argv[1]) : 32;
    int Execs = argc > 2 ? atoi(argv[2]) : 4;
    pthread_t Thread;
    int Index;

    for (Index = 0; Index < Threads; Index++) {
        if (pthread_create(&Thread, NULL, Touch, NULL) == 0) {
            pthread_join(Thread, NULL);
        }
    }
    for (Index = 0; Index < Execs; Index++) {
        pid_t Child = fork();

        if (Child == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        if (Child > 0) {
            waitpid(Child, NULL, 0);
        }
    }
    return 0;
}
