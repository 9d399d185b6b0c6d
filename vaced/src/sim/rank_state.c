/* The modules' state slots (rank_state.h). */
#include <stdalign.h>
#include <stddef.h>
#include <string.h>
#include "sim/rank_state.h"

/* Listed here, not collected by the linker: a module that adds per-rank
 * state adds its slot to this table.  Not a rank's, so not listed: the
 * process's CPU clocks (cputime/), its interposed libc clocks
 * (program_clocks.c) and vaced_running. */
extern const struct vaced_state_slot vaced_clock_slot, vaced_sim_slot, vaced_progress_slot,
    vaced_early_slot, vaced_send_slot, vaced_peers_slot, vaced_matching_slot,
    vaced_bounds_slot, vaced_trace_slot, vaced_breakdown_slot, vaced_awaited_slot;

/* In this order, so that what a replay's rank touches is one run of
 * bytes, on as few pages as can hold it (each page a rank first touches
 * costs a fault, a zeroed page and its release): the trace's path (never
 * used by a replay) first, its few fields and the small slots next, and
 * the progress model's wait history, a ring written from its start, last
 * (progress/history.h). */
static const struct vaced_state_slot *const slots[] = {
    &vaced_trace_slot,          /* report/trace_state.c */
    &vaced_clock_slot,          /* clock/clock.c */
    &vaced_sim_slot,            /* sim/sim.c */
    &vaced_early_slot,          /* progress/early_queue.c */
    &vaced_send_slot,           /* network/send.c */
    &vaced_peers_slot,          /* progress/peers.c */
    &vaced_matching_slot,       /* progress/matching.c */
    &vaced_bounds_slot,         /* progress/wildcard_bounds.c */
    &vaced_breakdown_slot,      /* report/breakdown.c */
    &vaced_awaited_slot,        /* report/awaited.c */
    &vaced_progress_slot,       /* progress/progress_state.c */
};
enum { NSLOTS = sizeof slots / sizeof slots[0] };

static size_t aligned(size_t n)
{
    size_t a = alignof(max_align_t);
    return (n + a - 1) / a * a;
}

/* The pointers are of the modules' own types: memcpy writes one without
 * an access through another pointer type. */
static void point(const struct vaced_state_slot *s, void *at)
{
    memcpy(s->ptr, &at, sizeof at);
}

size_t vaced_rank_state_size(void)
{
    size_t n = 0;
    for (int i = 0; i < NSLOTS; i++)
        n += aligned(slots[i]->size);
    return n;
}

void vaced_rank_state_bind(void *block)
{
    char *at = block;
    for (int i = 0; i < NSLOTS; i++) {
        point(slots[i], at);
        at += aligned(slots[i]->size);
    }
}

void vaced_rank_state_bind_live(void)
{
    for (int i = 0; i < NSLOTS; i++)
        point(slots[i], slots[i]->live);
}
