/* The progress model's per-rank state (progress_state.c): the wait history
 * with the running wait and handling context, and the running wait's
 * received messages.  Other modules read it through the inline readers
 * (the send stamp asks on every message) and change it through the
 * functions of waits.h, handling.h and receive.h. */
#ifndef VACED_PROGRESS_STATE_H
#define VACED_PROGRESS_STATE_H

#include "vaced.h"
#include "clock/clock.h"
#include "progress/history.h"
#include "progress/turns.h"

struct vaced_progress {
    struct vaced_turns recv_turns; /* the running wait's received messages (receive.c) */
    struct vaced_waits waits;   /* last: its ring is most of a rank's state */
};

/* progress/'s own (progress_state.c): outside progress/, only through the functions
 * of this header.  The rank's: a replay rebinds it (job/state_slot.h). */
extern struct vaced_progress *vaced_progress_st;

/* Inside a handling context (vaced_handle_begin/end, respond): a send is a
 * response, which leaves at the time of the message being handled. */
static inline int vaced_handling(void)
{
    return vaced_progress_st->waits.handling;
}

static inline vaced_time_t vaced_handling_ts(void)
{
    return vaced_progress_st->waits.handle_ts;
}

/* A response left the handling context at `ts`: the next leaves after it. */
static inline void vaced_handling_sent(vaced_time_t ts)
{
    vaced_progress_st->waits.handle_ts = ts;
}

/* vaced_waits_idle_since of this rank's waits: how long a message arriving
 * at `ta` found the rank idle in a wait (the wake-up, network/overhead.c). */
static inline vaced_time_t vaced_progress_idle_since(vaced_time_t ta)
{
    return vaced_waits_idle_since(&vaced_progress_st->waits, ta);
}

/* Start of the current progress point: the running wait, or now. */
static inline vaced_time_t vaced_progress_start(void)
{
    return vaced_progress_st->waits.depth > 0 ? vaced_progress_st->waits.start : vaced_clock_tv();
}

#endif
