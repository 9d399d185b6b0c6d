/* ns per read of each CPU-time source, side by side in one run, with
 * CLOCK_MONOTONIC and rdtsc for reference. Rounds interleave the sources so
 * that a noisy spell on the VM hits them all; the median round is reported.
 *
 * Build and run from the repository root:
 *   cc -std=gnu11 -O2 -Wall -Wextra -Werror -Ivaced/src \
 *      vaced/src/cputime/cputime.c vaced/src/cputime/cputime_perf.c vaced/src/cputime/cputime_rseq.c \
 *      bench/cputime_bench.c \
 *      -pthread -o /tmp/cputime_bench && /tmp/cputime_bench [reads] [rounds]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "cputime/cputime.h"
#include "cputime/cputime_perf.h" /* the mmap read on a filled page, for an estimate */

#define MAXROUNDS 64

/* The first rows are the sources themselves, numbered as enum vaced_cpu_source. */
enum row { R_THREAD, R_MMAP, R_READ, R_RSEQ, R_RAW_THREAD, R_MMAP_MATH, R_MONO, R_TSC, NROWS };

static const char *row_name[NROWS] = {
    "thread (vaced_cputime_ns)", "perf-mmap (vaced_cputime_ns)", "perf-read (vaced_cputime_ns)",
    "rseq (vaced_cputime_ns)",
    "clock_gettime THREAD_CPUTIME", "perf-mmap math, filled page", "clock_gettime MONOTONIC",
    "rdtsc",
};

static int64_t mono_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static volatile int64_t sink; /* keeps the reads from being optimised away */

/* ns per read of one row, or -1 if the source cannot be opened. */
static double time_row(enum row r, long n, char *why, size_t whylen)
{
    struct timespec t;
    int64_t a;
    long i;

    if (r <= R_RSEQ && vaced_cputime_force((enum vaced_cpu_source)r, why, whylen) != 0)
        return -1;
    a = mono_ns();
    switch (r) {
    case R_THREAD: case R_MMAP: case R_READ: case R_RSEQ:
        for (i = 0; i < n; i++)
            sink += vaced_cputime_ns();
        break;
    case R_RAW_THREAD:
        for (i = 0; i < n; i++) {
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
            sink += t.tv_nsec;
        }
        break;
    case R_MMAP_MATH: {
        /* What a perf-mmap read costs where the kernel offers
         * cap_user_time: same code, on a page filled here. */
        static struct perf_event_mmap_page pg;
        struct vaced_perf_ev ev = { 1, -1, &pg };

        if (!VACED_HAVE_TSC) {
            snprintf(why, whylen, "no rdtsc on this architecture");
            return -1;
        }
        pg.cap_user_time = 1;
        pg.time_mult = 1u << 10;
        pg.time_shift = 10;
        for (i = 0; i < n; i++)
            sink += vaced_perf_mmap_ns(&ev);
        break;
    }
    case R_MONO:
        for (i = 0; i < n; i++) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            sink += t.tv_nsec;
        }
        break;
    default:
#if defined(__x86_64__) || defined(__i386__)
        for (i = 0; i < n; i++)
            sink += (int64_t)__rdtsc();
        break;
#else
        snprintf(why, whylen, "no rdtsc on this architecture");
        return -1;
#endif
    }
    return (double)(mono_ns() - a) / (double)n;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    double ns[NROWS][MAXROUNDS];
    char why[NROWS][256];
    int r, k;

    if (n < 1 || rounds < 1 || rounds > MAXROUNDS) {
        fprintf(stderr, "usage: %s [reads>0] [rounds 1..%d]\n", argv[0], MAXROUNDS);
        return 2;
    }
    for (k = 0; k < rounds; k++)
        for (r = 0; r < NROWS; r++)
            ns[r][k] = time_row((enum row)r, n, why[r], sizeof why[r]);
    vaced_cputime_fini();

    printf("%ld reads x %d rounds, ns per read (median, min)\n", n, rounds);
    for (r = 0; r < NROWS; r++) {
        if (ns[r][0] < 0) {
            printf("  %-30s unavailable: %s\n", row_name[r], why[r]);
            continue;
        }
        qsort(ns[r], (size_t)rounds, sizeof ns[r][0], cmp_double);
        printf("  %-30s %8.1f %8.1f\n", row_name[r], ns[r][rounds / 2], ns[r][0]);
    }

    /* What init would do here, and how long it takes. */
    for (const char *req = "auto"; req; req = strcmp(req, "auto") ? NULL : "perf") {
        char w[320];
        int64_t a = mono_ns();
        enum vaced_cpu_source s = vaced_cputime_init(req, w, sizeof w);
        printf("init(\"%s\") -> %s in %.2f ms%s%s\n", req, vaced_cputime_source_name(s),
               (double)(mono_ns() - a) / 1e6, w[0] ? ": " : "", w);
    }
    vaced_cputime_fini();
    return 0;
}
