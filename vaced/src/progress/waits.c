/* Waits (Algorithm 2): a wait starts at tV (AWTstart) and ends at the
 * latest completion it reports or the end of the receiving CPU's last
 * turn (AWTend). */
#include <string.h>
#include "progress/waits.h"
#include "progress/early_queue.h"
#include "report/awaited.h"

/* Not the wait history's ring: an entry is written before it is read, and
 * a replay starting many ranks would zero it for nothing. */
void vaced_progress_reset(void)
{
    memset(&vaced_progress_st->recv_turns, 0, sizeof vaced_progress_st->recv_turns);
    vaced_parked_reset();
    vaced_waits_reset(&vaced_progress_st->waits);
}

void vaced_recv_turns_free(void)
{
    vaced_turns_free(&vaced_progress_st->recv_turns);
}

void vaced_model_wait_begin(void)
{
    if (!vaced_running)
        return;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_progress_st->waits;
    if (w->depth++ == 0) {
        w->start = w->done = w->active = w->active_from = vaced_clock_tv();   /* AWTstart = tV */
        vaced_awaited_wait_begin();
        /* Parked responses go out now: those due later are handled during
         * this wait on the target if it depends on them, and the host must
         * not block while holding them. */
        vaced_fire_parked(INT64_MAX);
    }
}

void vaced_model_wait_complete(vaced_time_t done)
{
    struct vaced_waits *w = &vaced_progress_st->waits;
    if (!vaced_running || done == VACED_TIME_UNSET)
        return;
    if (w->depth == 0) {
        vaced_complete_now(done);
        vaced_awaited_consumed();
        return;
    }
    if (done > w->done) {
        w->done = done;
        vaced_awaited_latest(done);
    }
    vaced_awaited_consumed();
}

void vaced_model_wait_end(void)
{
    if (!vaced_running)
        return;
    struct vaced_waits *w = &vaced_progress_st->waits;
    if (--w->depth == 0) {
        vaced_time_t from = vaced_clock_tv();
        unsigned turns = vaced_progress_st->recv_turns.count;
        vaced_time_t busy_from,
            busy = vaced_turns_finish(&vaced_progress_st->recv_turns, w->start, &busy_from);
        /* AWTend; never before tV: a send made during the wait outside
         * a handler has moved tV on by its overhead and copy */
        vaced_clock_set(vaced_time_max(from, vaced_time_max(w->done, busy)));
        vaced_awaited_wait_end(from, w->done, vaced_clock_tv(), turns);
        vaced_waits_record_blocked(w, w->start, vaced_clock_tv(), busy_from, busy, w->active,
                                   w->active_from);
    }
    vaced_activity_end();
}

void vaced_complete_now(vaced_time_t done)
{
    /* tV only grows, so a completion at or before the last event's tV
     * needs no clock read. */
    if (!vaced_running || done == VACED_TIME_UNSET || done <= vaced_clock_tv())
        return;
    vaced_model_wait_begin();
    vaced_model_wait_complete(done);
    vaced_model_wait_end();
}
