/*
 * FutexOps: a workload for the trace.dat plugin test (Tests/Readers/
 * tracedat_plugins.sh).  It makes the kernel emit, while tracing is on:
 *
 *   syscalls:sys_enter_futex / sys_exit_futex  every futex command 0..14,
 *       with and without FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME,
 *       each once (most fail at once: the word does not hold the
 *       expected value), and contended mutexes between two threads;
 *   tlb:tlb_flush  mprotect/munmap of pages two threads have touched;
 *   kmem:*         the allocations all of this needs;
 *   ftrace:print   a few lines written to trace_marker (its path is the
 *       first argument; "-" writes none), and ftrace:raw_data, an id and
 *       bytes written to trace_marker_raw next to it.
 *
 * usage: FutexOps TRACE_MARKER [ROUNDS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t Lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t Cond = PTHREAD_COND_INITIALIZER;
static volatile int Turn;
static volatile char *Shared;
static long Rounds = 50;

static long
Futex(uint32_t *Word, int Op, uint32_t Val, void *Timeout, uint32_t *Word2,
      uint32_t Val3)
{
    return syscall(SYS_futex, Word, Op, Val, Timeout, Word2, Val3);
}

static void *
Partner(void *Unused)
{
    long Index;

    (void)Unused;
    for (Index = 0; Index < Rounds; Index++) {
        pthread_mutex_lock(&Lock);
        while (Turn != 1) {
            pthread_cond_wait(&Cond, &Lock);
        }
        if (Shared != NULL) {
            Shared[0]++;
        }
        Turn = 0;
        pthread_cond_signal(&Cond);
        pthread_mutex_unlock(&Lock);
    }
    return NULL;
}

static void
EveryCommand(void)
{
    static uint32_t Word = 1, Word2 = 7, PiWord;
    struct timespec Short = { 0, 1000 };
    int Flags[] = { 0, FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME,
                    FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME };
    int Command;
    unsigned Index;

    for (Index = 0; Index < sizeof(Flags) / sizeof(Flags[0]); Index++) {
        for (Command = 0; Command <= 14; Command++) {
            int Op = Command | Flags[Index];

            switch (Command) {
            case FUTEX_LOCK_PI:
            case FUTEX_TRYLOCK_PI:
                PiWord = 0;
                if (Futex(&PiWord, Op, 0, NULL, NULL, 0) == 0) {
                    Futex(&PiWord, FUTEX_UNLOCK_PI | Flags[Index], 0, NULL,
                          NULL, 0);
                }
                break;
            case FUTEX_WAIT:
            case FUTEX_WAIT_BITSET:
            case FUTEX_WAIT_REQUEUE_PI:
                /* The word holds 1, not 0x2a: EAGAIN at once. */
                Futex(&Word, Op, 0x2a, &Short, &Word2, 0xffffffff);
                break;
            default:
                Futex(&Word, Op, 3, (void *)(uintptr_t)5, &Word2,
                      Command == FUTEX_WAKE_OP ? 0x11000001 : 0xffffffff);
                break;
            }
        }
    }
}

int
main(int argc, char **argv)
{
    pthread_t Thread;
    long Index;
    int Marker = -1;

    if (argc < 2) {
        fprintf(stderr, "usage: FutexOps TRACE_MARKER [ROUNDS]\n");
        return 2;
    }
    if (strcmp(argv[1], "-") != 0) {
        Marker = open(argv[1], O_WRONLY);
        if (Marker < 0) {
            perror(argv[1]);
            return 1;
        }
    }
    if (argc > 2) {
        Rounds = atol(argv[2]);
    }

    if (Marker >= 0) {
        static const unsigned char Raw[][12] = {
            { 0x34, 0x12, 0, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g' },
            { 0xff, 0xff, 0xff, 0x7f, 0, 1, 2, 3 },
        };
        static const size_t RawLength[] = { 11, 8 };
        char RawPath[4096];
        int RawMarker;
        unsigned RawIndex;

        dprintf(Marker, "FutexOps: start, %ld rounds\n", Rounds);
        dprintf(Marker, "tabs\tand \"quotes\" and 100%% no newline");
        dprintf(Marker, "two lines\nin one write\n");
        snprintf(RawPath, sizeof(RawPath), "%s_raw", argv[1]);
        RawMarker = open(RawPath, O_WRONLY);
        if (RawMarker < 0) {
            perror(RawPath);
            return 1;
        }
        for (RawIndex = 0; RawIndex < 2; RawIndex++) {
            if (write(RawMarker, Raw[RawIndex], RawLength[RawIndex]) < 0) {
                perror(RawPath);
                return 1;
            }
        }
        close(RawMarker);
    }

    EveryCommand();

    pthread_create(&Thread, NULL, Partner, NULL);
    for (Index = 0; Index < Rounds; Index++) {
        volatile char *Page = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (Page == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        Page[0] = 1;
        Page[4096] = 2;

        pthread_mutex_lock(&Lock);
        Shared = Page;
        Turn = 1;
        pthread_cond_signal(&Cond);
        while (Turn != 0) {
            pthread_cond_wait(&Cond, &Lock);
        }
        Shared = NULL;
        pthread_mutex_unlock(&Lock);

        /* Both threads have used the mm: the kernel flushes TLBs. */
        mprotect((void *)Page, 4 * 4096, PROT_READ);
        munmap((void *)Page, 4 * 4096);
    }
    pthread_join(Thread, NULL);

    if (Marker >= 0) {
        dprintf(Marker, "FutexOps: done\n");
        close(Marker);
    }
    return 0;
}
