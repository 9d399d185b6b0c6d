/* Waits (waits.c, Algorithm 2), over the progress model's per-rank state
 * (progress_state.h). */
#ifndef VACED_WAITS_H
#define VACED_WAITS_H

#include "progress/progress_state.h"

/* Zeroes the state: no waits so far, nothing parked (simulation start). */
void vaced_progress_reset(void);
/* Releases the running wait's received messages' memory (shutdown). */
void vaced_recv_turns_free(void);

/* A completion reported outside a wait: tV becomes at least `done`. */
void vaced_complete_now(vaced_time_t done);

/* As vaced.h's vaced_wait_begin, _complete and _end, which
 * entry/entry_waits.c calls after logging MPICH's calls; the model's own
 * waits call these. */
void vaced_model_wait_begin(void);
void vaced_model_wait_complete(vaced_time_t done);
void vaced_model_wait_end(void);

#endif
