/* Internal to progress/: what the handling, receive and wait files share. */
#ifndef VACED_PROGRESS_H
#define VACED_PROGRESS_H

#include "sim/state.h"
#include "progress/history.h"

/* Start of the current progress point: the running wait, or now. */
static inline vaced_time_t vaced_progress_start(void)
{
    return vaced_st.waits.depth > 0 ? vaced_st.waits.start : vaced_st.tv;
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

/* Sends the parked responses due by `limit` (all of them: INT64_MAX);
 * returns how many it sent (early_queue.c). */
int vaced_fire_deferred(vaced_time_t limit);
/* Releases the early queue's memory. */
void vaced_free_deferred(void);

#endif
