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

struct vaced_canary {
    void **head;        /* the chase's first line; NULL: no canary */
    char *area;
    double warm_ticks;  /* a read with every line in L1 */
};

#if defined(__x86_64__)
#include <x86intrin.h>

/* Reads every line, in the chase's order; returns the ticks it took. */
static inline uint64_t vaced_canary_read(const struct vaced_canary *c)
{
    unsigned aux;
    uint64_t t0 = __rdtscp(&aux);
    void **p = c->head;
    while (p)                           /* volatile: a loop without effects may be dropped */
        p = (void **)*(void *volatile *)p;
    return __rdtscp(&aux) - t0;
}

static int vaced_canary_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
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
    uint64_t t[31];
    vaced_canary_read(c);
    for (int i = 0; i < 31; i++)
        t[i] = vaced_canary_read(c);
    qsort(t, 31, sizeof t[0], vaced_canary_cmp);
    c->warm_ticks = t[15] > 0 ? (double)t[15] : 1;
    return 0;
}

/* The read time over the warm one (1: all still cached); reading warms
 * the canary again. */
static inline double vaced_canary_coldness(const struct vaced_canary *c)
{
    return (double)vaced_canary_read(c) / c->warm_ticks;
}

#else

static inline int vaced_canary_open(struct vaced_canary *c)
{
    memset(c, 0, sizeof *c);
    return -1;
}

static inline double vaced_canary_coldness(const struct vaced_canary *c)
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
