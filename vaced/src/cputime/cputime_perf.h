/* Internal to cputime.c: a per-thread perf_event TASK-CLOCK event. */
#ifndef VACED_CPUTIME_PERF_H
#define VACED_CPUTIME_PERF_H

#include <stddef.h>
#include <stdint.h>
/* libpfm's copy of the perf ABI; <linux/perf_event.h> would redeclare it. */
#include <perfmon/pfmlib_perf_event.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define VACED_HAVE_TSC 1
#else
#define VACED_HAVE_TSC 0
#endif

struct vaced_perf_ev {
    int open; /* fd 0 is valid, so the zero state needs its own flag */
    int fd;
    volatile struct perf_event_mmap_page *pg; /* NULL if mmap failed */
};

/* Open TASK-CLOCK for the calling thread (pid 0, any CPU) and map its page. */
int vaced_perf_open(struct vaced_perf_ev *ev, char *why, size_t whylen);
void vaced_perf_close(struct vaced_perf_ev *ev);
/* 1 if reads can skip the syscall: page mapped, cap_user_time, a TSC. */
int vaced_perf_mmap_usable(const struct vaced_perf_ev *ev, char *why, size_t whylen);
/* Task clock in ns by read(2); -1 on error. */
int64_t vaced_perf_read_ns(const struct vaced_perf_ev *ev);

/* Task clock in ns from the mmap'd page, no syscall; -1 if the kernel has
 * withdrawn cap_user_time. Follows the seqlock recipe in the kernel's uapi
 * perf_event.h. time_enabled is what that recipe extrapolates; for a
 * software event on the reading thread it equals time_running. */
static inline int64_t vaced_perf_mmap_ns(const struct vaced_perf_ev *ev)
{
#if VACED_HAVE_TSC
    volatile struct perf_event_mmap_page *pc = ev->pg;
    uint64_t en, off, cyc, last, mask, quot, rem;
    uint32_t seq, mult;
    uint16_t shift;
    int cap, shrt;

    do {
        seq = pc->lock;
        __asm__ __volatile__("" ::: "memory");
        cap = pc->cap_user_time;
        shrt = pc->cap_user_time_short;
        en = pc->time_enabled;
        off = pc->time_offset;
        mult = pc->time_mult;
        shift = pc->time_shift;
        last = pc->time_cycles;
        mask = pc->time_mask;
        cyc = __rdtsc();
        __asm__ __volatile__("" ::: "memory");
    } while ((seq & 1) || pc->lock != seq); /* odd: update in progress */
    if (!cap)
        return -1;
    if (shrt)
        cyc = last + ((cyc - last) & mask);
    quot = cyc >> shift;
    rem = cyc & (((uint64_t)1 << shift) - 1);
    return (int64_t)(en + off + quot * mult + ((rem * mult) >> shift));
#else
    (void)ev;
    return -1;
#endif
}

#endif
