/* vaced.h's waits, the early queue and the end of a blocking probe, as
 * MPICH calls them: logged in a record (record.h: the outermost call
 * only), then the model's (progress/waits.c, progress/early_queue.c,
 * progress/matching.c).  A parked response's calls, which MPICH makes
 * from inside the model's, are logged through the model's observer
 * (entry/progress_recorder.c). */
#include "progress/early_queue.h"
#include "progress/matching.h"
#include "progress/waits.h"
#include "record/record.h"

void vaced_wait_begin(void)
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_WAIT_BEGIN);
    vaced_model_wait_begin();
    vaced_rec_leave();
}

void vaced_wait_complete(vaced_time_t done)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_WAIT_COMPLETE);
        vaced_rec_time(done);
    }
    vaced_model_wait_complete(done);
    vaced_rec_leave();
}

void vaced_wait_end(void)
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_WAIT_END);
    vaced_model_wait_end();
    vaced_rec_leave();
}

/* Logged with its answer. */
int vaced_parks(vaced_time_t ta, int at_post)
{
    int top = vaced_rec_enter();
    int parks = vaced_model_parks(ta, at_post);
    if (top) {
        vaced_rec_op(VACED_OP_PARKS);
        vaced_rec_time(ta);
        vaced_rec_u((uint64_t)at_post);
        vaced_rec_u((uint64_t)parks);
    }
    vaced_rec_leave();
    return parks;
}

void vaced_park(int peer, vaced_time_t due, vaced_fire_fn fire, void *arg)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_DEFER);
        vaced_rec_s(peer);
        vaced_rec_time(due);
    }
    vaced_rec_leave();
    vaced_model_park(peer, due, fire, arg);
}

void vaced_poll(void)
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_POLL);
    vaced_model_poll();
    vaced_rec_leave();
}

void vaced_probe_found(vaced_time_t ta)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_PROBE_FOUND);
        vaced_rec_time(ta);
    }
    vaced_model_probe_found(ta);
    vaced_rec_leave();
}
