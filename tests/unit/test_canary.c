/* The cache canary (vaced/src/cputime/canary.h): a read right after another is
 * warm (coldness about 1, never below), a read after the program wrote
 * through more memory than the caches hold is several times slower, and a
 * read after a computation that keeps to its registers is warmer than
 * that: what tells the overheads' factors a streaming computation from
 * arithmetic.  How warm arithmetic leaves it is the host's (a hypervisor,
 * or a neighbour on the core, can cool it while the rank computes), so
 * only "warmer than streaming" is asserted.
 *
 * The bounds come from the run itself, not from one host: "about 1" is
 * the warm reads' own spread, the timer's step and how much the core's
 * clock moved during the test; "well above" is 3 times, which any cache
 * hierarchy gives (docs/testing.md). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cputime/canary.h"

enum { N = 41, POOL = 96 << 20 };

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile of v[0..n), v sorted in place. */
static double quantile(double *v, int n, double q)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return v[(int)(q * (n - 1) + 0.5)];
}

static volatile double sink;

static void arithmetic(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

#if defined(__x86_64__)
/* The counter's smallest step: a read can be off by one step at each end. */
static double timer_step(void)
{
    unsigned aux;
    uint64_t step = UINT64_MAX, prev = __rdtscp(&aux);
    for (int n = 0; n < 64;) {
        uint64_t t = __rdtscp(&aux);
        if (t != prev) {
            if (t - prev < step)
                step = t - prev;
            prev = t;
            n++;
        }
    }
    return (double)step;
}

/* The ticks a fixed piece of arithmetic takes: the core's clock. */
static double arithmetic_ticks(void)
{
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    arithmetic(100000);
    return (double)(__rdtscp(&aux) - t0);
}
#endif

int main(void)
{
    struct vaced_canary c;
#if defined(__x86_64__)
    double step = timer_step(), fastest_arith = arithmetic_ticks();
#endif
    if (vaced_canary_open(&c)) {
#if defined(__x86_64__)
        CHECK(!"vaced_canary_open failed on x86-64");
#else
        printf("no canary on this architecture: VACED keeps the computation's length\n");
        CHECK(vaced_canary_coldness(&c) == 0);
#endif
        return CHECK_REPORT();
    }
#if defined(__x86_64__)
    char *pool = malloc(POOL);
    CHECK(pool != NULL);
    if (!pool)
        return CHECK_REPORT();
    memset(pool, 1, POOL);
    double warm[N], hot[N], cold[N], arith[N], lowest = 1e300;
    for (int i = 0; i < N; i++) {
        vaced_canary_coldness(&c);
        warm[i] = vaced_canary_coldness(&c);
        arith[i] = arithmetic_ticks();
        hot[i] = vaced_canary_coldness(&c);
        for (long k = 0; k < POOL; k += 64)      /* more than any cache */
            ((volatile char *)pool)[k]++;       /* else clang drops stores to freed memory */
        cold[i] = vaced_canary_coldness(&c);
        double m = warm[i] < hot[i] ? warm[i] : hot[i];
        lowest = m < lowest ? m : lowest;
        lowest = cold[i] < lowest ? cold[i] : lowest;
        fastest_arith = arith[i] < fastest_arith ? arith[i] : fastest_arith;
    }
    double w25 = quantile(warm, N, 0.25), w = quantile(warm, N, 0.5), w75 = quantile(warm, N, 0.75);
    double h = quantile(hot, N, 0.5), k25 = quantile(cold, N, 0.25), k = quantile(cold, N, 0.5);
    /* A warm read sits within twice the warm reads' spread and three timer
     * steps of the fastest read (the counter rounds each read by up to a
     * step: two; the spread may round to none: one more), scaled by how much
     * slower the core clocked at the median than at its fastest (the
     * fastest read may date from then). */
    double clock = quantile(arith, N, 0.5) / fastest_arith;
    double warm_bound = clock * (1 + 2 * (w75 - w25) + 3 * step / c.warm_ticks);
    printf("canary coldness (median of %d): warm %.2f (quartiles %.2f-%.2f, bound %.2f: timer step "
           "%.0f of %.0f ticks, clock %.2f), after arithmetic %.2f, after writing through %d MiB "
           "%.2f (lower quartile %.2f)\n", N, w, w25, w75, warm_bound, step, c.warm_ticks, clock,
           h, POOL >> 20, k, k25);
    CHECK(lowest >= 1);                 /* the fastest read is the warm one */
    CHECK(w <= warm_bound);             /* a warm read is about 1 */
    CHECK(k25 > 3 * w75);               /* streaming leaves it cold: its reads miss L1 and L2 */
    CHECK(h < k);                       /* arithmetic alone does not cool it as much */
    free(pool);
#endif
    vaced_canary_close(&c);
    CHECK(c.head == NULL);
    return CHECK_REPORT();
}
