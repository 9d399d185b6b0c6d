/* The cache canary (vaced/src/cputime/canary.h): a read right after another is
 * warm (coldness about 1), a read after the program wrote through more
 * memory than the caches hold is several times slower, and a read after
 * a computation that keeps to its registers is warmer than that: what
 * tells the overheads' factors a streaming computation from arithmetic.
 * How warm arithmetic leaves it is the host's: 1.0 on the Intel VM of
 * 2026-11-25, 2-56 on the AMD VM of 2026-11-27 (its hypervisor, or a
 * neighbour on the core, cools the canary while the rank computes). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "check.h"
#include "cputime/canary.h"

static double median(double *v, int n)
{
    for (int i = 1; i < n; i++)         /* insertion sort */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static volatile double sink;

static void arithmetic(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(void)
{
    struct vaced_canary c;
    if (vaced_canary_open(&c)) {
#if defined(__x86_64__)
        CHECK(!"vaced_canary_open failed on x86-64");
#else
        printf("no canary on this architecture: VACED keeps the computation's length\n");
        CHECK(vaced_canary_coldness(&c) == 0);
#endif
        return CHECK_REPORT();
    }
    enum { N = 41, POOL = 96 << 20 };
    char *pool = malloc(POOL);
    CHECK(pool != NULL);
    if (!pool)
        return CHECK_REPORT();
    memset(pool, 1, POOL);
    double warm[N], hot[N], cold[N];
    for (int i = 0; i < N; i++) {
        vaced_canary_coldness(&c);
        warm[i] = vaced_canary_coldness(&c);
        arithmetic(100000);
        hot[i] = vaced_canary_coldness(&c);
        for (long k = 0; k < POOL; k += 64)      /* more than any cache here */
            ((volatile char *)pool)[k]++;       /* else clang drops stores to freed memory */
        cold[i] = vaced_canary_coldness(&c);
    }
    double w = median(warm, N), h = median(hot, N), k = median(cold, N);
    printf("canary coldness (median of %d): warm %.2f, after arithmetic %.2f, after writing "
           "through %d MiB %.2f\n", N, w, h, POOL >> 20, k);
    CHECK(w > 0.5 && w < 1.5);
    CHECK(k > 3 * w);
    CHECK(h < k);
    vaced_canary_close(&c);
    CHECK(c.head == NULL);
    free(pool);
    return CHECK_REPORT();
}
