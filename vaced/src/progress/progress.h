/* The progress model (progress/): the wait history with the running wait
 * and handling context, the running wait's received messages, the early
 * queue (early_queue.c's own) and the wildcard bounds (wildcard_bounds.c's
 * own).  progress/'s files share the state below; other modules read it
 * through the inline readers (the send stamp asks on every message) and
 * change it through the functions. */
#ifndef VACED_PROGRESS_H
#define VACED_PROGRESS_H

#include "vaced.h"
#include "clock/clock.h"
#include "progress/history.h"
#include "progress/turns.h"

struct vaced_progress {
    struct vaced_waits waits;
    struct vaced_turns recv_turns; /* the running wait's received messages (receive.c) */
};

/* progress/'s own (waits.c): outside progress/, only through the functions
 * of this header. */
extern struct vaced_progress vaced_progress_st;

/* --- For the other modules ---------------------------------------------- */

/* Inside a handling context (vaced_handle_begin/end, respond): a send is a
 * response, which leaves at the time of the message being handled. */
static inline int vaced_handling(void)
{
    return vaced_progress_st.waits.handling;
}

static inline vaced_time_t vaced_handling_ts(void)
{
    return vaced_progress_st.waits.handle_ts;
}

/* A response left the handling context at `ts`: the next leaves after it. */
static inline void vaced_handling_sent(vaced_time_t ts)
{
    vaced_progress_st.waits.handle_ts = ts;
}

/* vaced_waits_idle_since of this rank's waits: how long a message arriving
 * at `ta` found the rank idle in a wait (the wake-up, network/overhead.c). */
static inline vaced_time_t vaced_progress_idle_since(vaced_time_t ta)
{
    return vaced_waits_idle_since(&vaced_progress_st.waits, ta);
}

/* Zeroes the state: no waits so far, nothing parked (simulation start). */
void vaced_progress_reset(void);
/* Releases the running wait's received messages' memory (shutdown). */
void vaced_recv_turns_free(void);

/* Sends the parked responses due by `limit` (all of them: INT64_MAX);
 * returns how many it sent (early_queue.c). */
int vaced_fire_deferred(vaced_time_t limit);
/* Releases the early queue's memory. */
void vaced_free_deferred(void);

/* Answers the bound requests this rank's clock now satisfies (wildcard_bounds.c). */
void vaced_bounds_activity_point(void);
void vaced_bounds_free(void);

/* --- Within progress/ --------------------------------------------------- */

/* Start of the current progress point: the running wait, or now. */
static inline vaced_time_t vaced_progress_start(void)
{
    return vaced_progress_st.waits.depth > 0 ? vaced_progress_st.waits.start : vaced_clock_tv();
}

/* When this rank handles a message arriving at `ta` that keeps its CPU
 * busy for `work`, its current progress point having started at `cur`:
 * Algorithm 3 (vaced_waits_handle_time), plus the target's wake-up when the
 * message finds the rank asleep in a wait.  Notes the handling as the
 * running wait's latest activity. */
vaced_time_t vaced_handle_time(vaced_time_t cur, vaced_time_t ta, vaced_time_t work);
/* The same, and in *by what handles it (vaced_waits_handler). */
vaced_time_t vaced_handle_time_by(vaced_time_t cur, vaced_time_t ta, vaced_time_t work,
                                  enum vaced_handler *by);

/* Empties the early queue without releasing its memory (vaced_progress_reset). */
void vaced_early_reset(void);

/* Internal forms of the receive-side events (vaced.h): a response at a
 * receive post now; DATA found at a post now; a completion reported
 * outside a wait (tV becomes at least `done`). */
void vaced_respond_begin(vaced_time_t ta);
vaced_time_t vaced_recv_found(vaced_time_t ta, uint64_t bytes);
void vaced_complete_now(vaced_time_t done);

#endif
