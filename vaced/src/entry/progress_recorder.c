/* The recorder as the progress model's observer (progress/progress_observer.h):
 * the answers and choices the model makes deeper than MPICH's calls,
 * logged or noted as record.h says (only where no call that logs itself
 * is running, so the replay, re-running that call, makes them again).
 * The simulation's start installs it while a record is open. */
#include "entry/progress_recorder.h"
#include "progress/matching.h"
#include "progress/progress_observer.h"
#include "record/record.h"

static int top(void)
{
    return vaced_recording && vaced_rec_depth == 0;
}

static void arrival_told(const struct vaced_msg *m, vaced_time_t ta)
{
    vaced_rec_note_arrival(m, ta);
}

static void done_asked(const struct vaced_msg *m, uint64_t bytes)
{
    if (top())
        vaced_rec_done(m, bytes);
}

static void done_told(const struct vaced_msg *m, uint64_t bytes, vaced_time_t t)
{
    vaced_rec_note_done(m, bytes, t);
}

static void log_msg(const struct vaced_msg *m, void *arg)
{
    (void)arg;
    vaced_rec_msg(m);
}

/* The pick and its candidates: their number, then their ids. */
static void picked(void *owner, const void *spec, void *best)
{
    if (!top())
        return;
    vaced_rec_op(VACED_OP_PICK);
    vaced_rec_msg(vaced_pick_msg(best));
    vaced_rec_u(vaced_pick_candidates(owner, spec, NULL, NULL));
    vaced_pick_candidates(owner, spec, log_msg, NULL);
}

static void log_msg_bytes(const struct vaced_msg *m, uint64_t bytes, void *arg)
{
    (void)arg;
    vaced_rec_msg(m);
    vaced_rec_u(bytes);
}

/* Waitany's choice (the message whose completion t MPICH asked for last)
 * and the requests it chose among. */
static void first_decided(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                          void *reqs)
{
    if (!top())
        return;
    vaced_rec_op(VACED_OP_FIRST);
    vaced_rec_u(vaced_rec_last_done(t));
    vaced_rec_u(vaced_first_candidates(count, req_at, reqs, NULL, NULL));
    vaced_first_candidates(count, req_at, reqs, log_msg_bytes, NULL);
}

static void unmodelled(enum vaced_unmodelled kind)
{
    if (!top())
        return;
    vaced_rec_op(VACED_OP_UNMODELLED);
    vaced_rec_u(kind);
}

static const struct vaced_progress_observer recorder = {
    .arrival_told = arrival_told,
    .done_asked = done_asked,
    .done_told = done_told,
    .picked = picked,
    .first_decided = first_decided,
    .unmodelled = unmodelled,
    .fire_begin = vaced_rec_fire_begin,
    .fire_end = vaced_rec_fire_end,
};

void vaced_progress_recorder_install(void)
{
    vaced_progress_observe(vaced_recording ? &recorder : NULL);
}
