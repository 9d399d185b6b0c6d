/* The rseq no-switch guard (see cputime_rseq.h). */
#define _GNU_SOURCE
#include "cputime/cputime_rseq.h"
#include "cputime/host_clocks.h"

#include <stdio.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif
#endif

#ifdef RSEQ_SIG
/* The kernel validates the descriptor whenever it finds the field set: the
 * abort address must follow the signature the thread registered (glibc's
 * RSEQ_SIG). post_commit_offset 0 makes the range empty, so no instruction
 * pointer is ever inside it and the kernel clears the field instead of
 * jumping anywhere. Nothing here is ever executed. */
static const struct {
    uint32_t sig;
    struct rseq_cs cs;
} empty = {
    .sig = RSEQ_SIG,
    .cs = { .version = 0, .flags = 0,
            .start_ip = (uintptr_t)&empty.sig + sizeof empty.sig,
            .post_commit_offset = 0,
            .abort_ip = (uintptr_t)&empty.sig + sizeof empty.sig },
};

int vaced_rseq_guard_open(struct vaced_rseq_guard *g, char *why, size_t whylen)
{
    struct timespec nap = { 0, 100000 };

    g->cs = NULL;
    if (__rseq_size < offsetof(struct rseq, rseq_cs) + sizeof(uint64_t)) {
        snprintf(why, whylen, "glibc registered no rseq area (glibc.pthread.rseq=0?)");
        return -1;
    }
    g->cs = (volatile uint64_t *)((char *)__builtin_thread_pointer() + __rseq_offset +
                                  offsetof(struct rseq, rseq_cs));
    g->armed = (uintptr_t)&empty.cs;
    /* A pointer left there by another library's finished critical section
     * is stale (the kernel clears it lazily): replacing it is safe. */
    vaced_rseq_arm(g);
    vaced_host_nanosleep(&nap, NULL);
    if (vaced_rseq_intact(g)) {
        *g->cs = 0;
        g->cs = NULL;
        snprintf(why, whylen, "a sleep did not clear the rseq guard");
        return -1;
    }
    return 0;
}
#else
int vaced_rseq_guard_open(struct vaced_rseq_guard *g, char *why, size_t whylen)
{
    g->cs = NULL;
    snprintf(why, whylen, "built without <sys/rseq.h> (glibc < 2.35)");
    return -1;
}
#endif
