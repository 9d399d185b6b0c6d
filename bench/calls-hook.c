/* The per-call tables' own cost, without MPI (bench/calls-cost.sh): the
 * nanoseconds of one vaced_call_enter / vaced_calls_activity /
 * vaced_call_exit round (a binding's hooks) against the same loop with the
 * tables off, and of one backtrace() of this depth, which a call from a
 * Fortran binding or a binding MPICH did not inline adds.
 *
 * Usage: calls-hook [ITERATIONS]   (linked with libvaced.a) */
#define _GNU_SOURCE
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "vaced.h"
#include "report/calls.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Stands for a binding: called from a few sites, as a program would. */
static __attribute__((noinline)) void binding(const char *func)
{
    vaced_call_enter(func, __builtin_return_address(0));
    vaced_calls_activity();
    vaced_call_exit();
}

static double per_round_ns(long n)
{
    double t0 = now_s();
    for (long i = 0; i < n; i += 4) {
        binding("internal_Send");
        binding("internal_Recv");
        binding("internal_Allreduce");
        binding("internal_Wait");
    }
    return (now_s() - t0) / n * 1e9;
}

static __attribute__((noinline)) double backtrace_ns(long n, int depth)
{
    void *frame[24];
    double t0 = now_s();
    for (long i = 0; i < n; i++)
        backtrace(frame, depth);
    return (now_s() - t0) / n * 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000000;
    vaced_running = 1;
    vaced_breakdown_reset();
    setenv("VACED_CALLS", "0", 1);
    vaced_calls_reset();
    per_round_ns(n / 10);       /* warm */
    double off = per_round_ns(n);
    unsetenv("VACED_CALLS");
    vaced_calls_reset();
    per_round_ns(n / 10);
    double on = per_round_ns(n);
    printf("hooks per MPI call: off %.1f ns, on %.1f ns, tables %.1f ns; backtrace of 6 frames %.0f ns, "
           "of 24 %.0f ns\n", off, on, on - off, backtrace_ns(n / 100, 6), backtrace_ns(n / 100, 24));
    return 0;
}
