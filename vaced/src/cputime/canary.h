/* The cache canary: how much of a small working set of MPI's size a
 * computation left in the caches.
 *
 * An MPI call's CPU cost depends on whether the caches still hold MPI's
 * own data (requests, connections, the kernel's socket state): a small
 * MPI_Send costs several times more after a computation that streamed
 * through its arrays than right after another send, and on some hosts no
 * more after the same length of arithmetic on a few registers
 * (results/targets-notes.md).  The computation's length alone cannot tell
 * the last two apart.  The canary can: 32 cache lines, each on
 * its own page (so its TLB entries count too) and in its own cache set,
 * read as a pointer chase (each load waits for the one before, so the time
 * is the sum of the misses).  Touched when an MPI call ends, read again
 * when the next begins: its read time over that of a warm read is the
 * computation's coldness, 1 when the caches kept everything, growing
 * with how much of the working set the computation evicted.  How warm
 * arithmetic leaves it is the host's: some hosts cool it there too.
 *
 * Header-only: vaced-calib-bench, built by mpicc from one source file,
 * measures the calibration's coldness with the same code.  x86-64 only
 * (rdtscp); elsewhere vaced_canary_open fails and VACED keeps the
 * computation's length. */
#ifndef VACED_CANARY_H
#define VACED_CANARY_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define VACED_CANARY_LINES 32
#define VACED_CANARY_PAGE 4096
#define VACED_CANARY_WARMUP 4096    /* reads before the first warm time */

struct vaced_canary {
    void **head;        /* the chase's first line; NULL: no canary */
    char *area;
    double warm_ticks;  /* the fastest read so far: every line in L1 */
};

#if defined(__x86_64__)
#include <x86intrin.h>

/* Reads every line, in the chase's order; returns the ticks it took.
 * The lfence keeps the chase from starting before the first counter read
 * (rdtscp waits for earlier instructions, not later ones).  The chase is
 * unrolled: a loop's exit branch, predicted when reads follow each other
 * and mispredicted when they are apart, would time the branch predictor
 * rather than the caches. */
static inline uint64_t vaced_canary_read(const struct vaced_canary *c)
{
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    _mm_lfence();
    void **p = c->head;
#pragma GCC unroll 32
    for (int i = 0; i < VACED_CANARY_LINES; i++)    /* volatile: loads without effects may be dropped */
        p = (void **)*(void *volatile *)p;
    return __rdtscp(&aux) - t0;
}

/* A read faster than any before sets the warm time: a warm read is then
 * about 1 whatever the core learnt or how fast it clocked since the open.
 * A read of 0 ticks (a timer coarser than the chase) is no time at all. */
static inline double vaced_canary_lower_warm(struct vaced_canary *c, uint64_t ticks)
{
    if (ticks > 0 && (double)ticks < c->warm_ticks)
        c->warm_ticks = (double)ticks;
    return (double)ticks;
}

/* 0, or -1 (out of memory, or not x86-64): the canary is then unusable. */
static inline int vaced_canary_open(struct vaced_canary *c)
{
    memset(c, 0, sizeof *c);
    c->area = aligned_alloc(VACED_CANARY_PAGE, VACED_CANARY_LINES * VACED_CANARY_PAGE);
    if (!c->area)
        return -1;
    memset(c->area, 0, VACED_CANARY_LINES * VACED_CANARY_PAGE);
    /* A fixed shuffle (an LCG): no stride for the prefetchers to follow. */
    int order[VACED_CANARY_LINES];
    uint32_t x = 12345;
    for (int i = 0; i < VACED_CANARY_LINES; i++)
        order[i] = i;
    for (int i = VACED_CANARY_LINES - 1; i > 0; i--) {
        x = x * 1103515245u + 12345u;
        int j = (int)((x >> 16) % (uint32_t)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    void **prev = NULL;
    for (int i = 0; i < VACED_CANARY_LINES; i++) {
        void **line = (void **)(c->area + order[i] * VACED_CANARY_PAGE + order[i] * 64 % VACED_CANARY_PAGE);
        if (prev)
            *prev = line;
        else
            c->head = line;
        prev = line;
    }
    *prev = NULL;
    /* Warm-up before the first warm time: the core ramps its clock up and
     * its predictors learn the chase over the first reads. */
    c->warm_ticks = (double)UINT64_MAX;     /* no read yet */
    for (int i = 0; i < VACED_CANARY_WARMUP; i++)
        vaced_canary_lower_warm(c, vaced_canary_read(c));
    return 0;
}

/* The read time over the fastest read so far (1: all still cached, and
 * never below); reading warms the canary again. */
static inline double vaced_canary_coldness(struct vaced_canary *c)
{
    double t = vaced_canary_lower_warm(c, vaced_canary_read(c));
    return t > 0 ? t / c->warm_ticks : 1;
}

#else

static inline int vaced_canary_open(struct vaced_canary *c)
{
    memset(c, 0, sizeof *c);
    return -1;
}

static inline double vaced_canary_coldness(struct vaced_canary *c)
{
    (void)c;
    return 0;
}

#endif

static inline void vaced_canary_close(struct vaced_canary *c)
{
    free(c->area);
    memset(c, 0, sizeof *c);
}

#endif
