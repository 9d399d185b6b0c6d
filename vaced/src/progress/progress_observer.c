/* The progress model's observer table (progress_observer.h): by default,
 * one that hears nothing. */
#include "progress/progress_observer.h"

static void nothing_told(const struct vaced_msg *m, vaced_time_t ta) { (void)m, (void)ta; }
static void nothing_asked(const struct vaced_msg *m, uint64_t bytes) { (void)m, (void)bytes; }
static void nothing_done(const struct vaced_msg *m, uint64_t bytes, vaced_time_t t)
{
    (void)m, (void)bytes, (void)t;
}
static void nothing_picked(void *owner, const void *spec, void *best)
{
    (void)owner, (void)spec, (void)best;
}
static void nothing_first(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i), void *reqs)
{
    (void)t, (void)count, (void)req_at, (void)reqs;
}
static void nothing_unmodelled(enum vaced_unmodelled kind) { (void)kind; }
static int nothing_fires(int id) { (void)id; return 0; }
static void nothing_fired(int begun) { (void)begun; }

static const struct vaced_progress_observer nobody = {
    .arrival_told = nothing_told,
    .done_asked = nothing_asked,
    .done_told = nothing_done,
    .picked = nothing_picked,
    .first_decided = nothing_first,
    .unmodelled = nothing_unmodelled,
    .fire_begin = nothing_fires,
    .fire_end = nothing_fired,
};

const struct vaced_progress_observer *vaced_progress_observer = &nobody;

void vaced_progress_observe(const struct vaced_progress_observer *o)
{
    vaced_progress_observer = o ? o : &nobody;
}
