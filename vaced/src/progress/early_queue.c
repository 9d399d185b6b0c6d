/* The early queue (paper section 4.4, Fig. 4(b)), for responses. */
#include <stdio.h>
#include <stdlib.h>
#include "network/overhead.h"
#include "progress/early_queue.h"
#include "progress/progress_state.h"
#include "progress/handling.h"
#include "progress/progress_observer.h"
#include "progress/peers.h"
#include "job/state_slot.h"

/* The rank's: a replay rebinds it (sim/rank_state.h). */
static struct vaced_early_queue early_live, *early = &early_live;
VACED_STATE_SLOT(vaced_early_slot, early, early_live);

void vaced_parked_reset(void)
{
    *early = (struct vaced_early_queue){ 0 };
}

/* End of the latest progress point: what the target has seen by then. */
static vaced_time_t last_progress(void)
{
    const struct vaced_waits *w = &vaced_progress_st->waits;
    if (w->count == 0)
        return 0;
    return w->hist[(w->head + w->count - 1) % VACED_WAIT_HISTORY].end;
}

/* A receive posted inside a wait (a nonblocking collective's schedule, run
 * by MPI_Wait) is posted by a rank that is progressing: the target answers
 * at the arrival, and nothing would send a response parked here before the
 * wait ends, which may depend on it. */
int vaced_unseen(vaced_time_t ta)
{
    return vaced_running && vaced_progress_st->waits.depth == 0 && ta != VACED_TIME_UNSET &&
        ta > last_progress();
}

int vaced_early(vaced_time_t ta)
{
    return vaced_running && vaced_progress_st->waits.depth == 0 && ta != VACED_TIME_UNSET &&
        ta > vaced_clock_tv();
}

/* MPICH's calls (vaced_parks, vaced_park, vaced_poll) reach the model
 * through entry/entry_waits.c, which logs them in a record. */
int vaced_model_parks(vaced_time_t ta, int at_post)
{
    return at_post ? vaced_unseen(ta) : vaced_early(ta);
}

/* A parked response's calls are MPICH's, made from inside the model's:
 * the observer hears where they begin and end (a record keeps them as a
 * block under the response's id). */
static void fire_observed(vaced_fire_fn fire, void *arg, int id)
{
    const struct vaced_progress_observer *o = vaced_progress_observer;
    int begun = o->fire_begin(id);
    fire(arg);
    o->fire_end(begun);
}

void vaced_model_park(int peer, vaced_time_t due, vaced_fire_fn fire, void *arg)
{
    struct vaced_early_queue *q = early;
    int id = ++q->parked;
    if (q->count == q->cap) {
        unsigned cap = q->cap ? 2 * q->cap : 16;
        struct vaced_parked *items = realloc(q->items, cap * sizeof *items);
        if (!items) {           /* cannot park: answer now, as MPICH would */
            fire_observed(fire, arg, id);
            return;
        }
        q->items = items;
        q->cap = cap;
    }
    unsigned i = q->count++;
    for (; i > 0 && q->items[i - 1].due > due; i--)    /* keep due order */
        q->items[i] = q->items[i - 1];
    q->items[i] = (struct vaced_parked){ due, vaced_clock_tv(), peer, fire, arg, id };
    vaced_peers_parked(peer, 1);
}

int vaced_fire_parked(vaced_time_t limit)
{
    int fired = 0;
    struct vaced_early_queue *q = early;
    struct vaced_waits *w = &vaced_progress_st->waits;
    vaced_time_t cur = w->depth > 0 ? w->start : vaced_clock_tv();
    while (q->count > 0 && q->items[0].due <= limit) {
        struct vaced_parked d = q->items[0];
        q->count--;
        for (unsigned i = 0; i < q->count; i++)
            q->items[i] = q->items[i + 1];
        int handling = w->handling;
        vaced_time_t handle_ts = w->handle_ts;
        w->handling = 1;
        w->handle_ts = vaced_time_max(d.not_before, vaced_handle_time(cur, d.due, 0)) +
            vaced_recv_overhead();
        vaced_peers_parked(d.peer, -1);
        fire_observed(d.fire, d.arg, d.id);
        w->handling = handling;
        w->handle_ts = handle_ts;
        fired++;
    }
    return fired;
}

/* Polls closer together than this merge into one progress point, so that
 * a polling loop does not push older waits out of the bounded history. */
#define VACED_POLL_MERGE ((vaced_time_t) 1000000)  /* 1 us */

void vaced_model_poll(void)
{
    struct vaced_waits *w = &vaced_progress_st->waits;
    if (!vaced_running || w->depth > 0)
        return;
    vaced_clock_poll();
    struct vaced_span *last = w->count ? &w->hist[(w->head + w->count - 1) % VACED_WAIT_HISTORY] : NULL;
    if (last && vaced_clock_tv() - last->end < VACED_POLL_MERGE)
        last->end = vaced_clock_tv();
    else
        vaced_waits_record(w, vaced_clock_tv(), vaced_clock_tv());
    if (vaced_fire_parked(vaced_clock_tv()))
        vaced_test_restart();   /* sending the responses is not the program's polling */
}

void vaced_free_parked(void)
{
    free(early->items);
    *early = (struct vaced_early_queue){ 0 };
}
