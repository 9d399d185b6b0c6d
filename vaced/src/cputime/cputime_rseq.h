/* Internal to cputime.c: a guard that says whether the calling thread has
 * run without a break since it was armed, from rseq (restartable sequences).
 *
 * glibc (2.35 and later) registers an rseq area for each thread. When the
 * kernel returns to a thread after switching it out (sleep, preemption,
 * migration) or to deliver a signal, and the area's rseq_cs field points to
 * a critical-section descriptor whose range does not hold the thread's
 * instruction pointer, it clears the field. Arming stores a descriptor of
 * an empty range; while the field still holds it, the thread has not been
 * switched out since. Interrupts and hypervisor steal time do not clear it.
 * A store to arm, a load to test: a few ns, no system call. */
#ifndef VACED_CPUTIME_RSEQ_H
#define VACED_CPUTIME_RSEQ_H

#include <stddef.h>
#include <stdint.h>

struct vaced_rseq_guard {
    volatile uint64_t *cs; /* the thread's rseq_cs field; NULL: no guard */
    uint64_t armed;        /* what arming stores: the empty descriptor's address */
};

/* Find the calling thread's rseq area and check that a switch clears an
 * armed guard (a 0.1 ms sleep). 0, or -1 with a reason; the guard is then
 * unusable (cs NULL). */
int vaced_rseq_guard_open(struct vaced_rseq_guard *g, char *why, size_t whylen);

static inline void vaced_rseq_arm(const struct vaced_rseq_guard *g)
{
    *g->cs = g->armed;
    __asm__ __volatile__("" ::: "memory"); /* armed before what it guards */
}

/* 1 if the thread has not been switched out since vaced_rseq_arm. */
static inline int vaced_rseq_intact(const struct vaced_rseq_guard *g)
{
    __asm__ __volatile__("" ::: "memory"); /* after what it vouches for */
    return *g->cs == g->armed;
}

#endif
