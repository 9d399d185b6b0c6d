/* An LD_PRELOAD experiment (bench/wait-strategy.sh): ranks that spin in
 * their waits instead of sleeping.  ch3:sock waits in poll(2); this poll
 * first polls without blocking for up to $SPIN_US microseconds (yielding
 * the CPU between polls with $SPIN_YIELD=1), then blocks as asked.  With
 * $SPIN_DEBUG=1 each process prints how many blocking polls it saw and how
 * many the spin ended.
 *   cc -O2 -shared -fPIC -o spin-poll.so bench/spin-poll.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int (*real_poll)(struct pollfd *, nfds_t, int);
static long spin_ns, blocking, ended_by_spin;
static int yield;

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void report(void)
{
    if (getenv("SPIN_DEBUG"))
        fprintf(stderr, "spin-poll: %ld blocking polls, %ld ended by the spin\n", blocking,
                ended_by_spin);
}

int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    if (!real_poll) {
        real_poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
        const char *us = getenv("SPIN_US");
        spin_ns = us ? atol(us) * 1000L : 0;
        yield = getenv("SPIN_YIELD") != NULL;
        atexit(report);
    }
    if (timeout == 0 || spin_ns <= 0)
        return real_poll(fds, n, timeout);
    blocking++;
    long end = now_ns() + spin_ns;
    do {
        int r = real_poll(fds, n, 0);
        if (r != 0) {
            ended_by_spin++;
            return r;
        }
        if (yield)
            sched_yield();
    } while (now_ns() < end);
    return real_poll(fds, n, timeout);
}
