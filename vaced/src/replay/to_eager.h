/* Messages rendezvous on the record and eager on the replay's target
 * (to_eager.c): a plan made before the replay, applied event by event by
 * the scheduler (replay.c). */
#ifndef VACED_REPLAY_TO_EAGER_H
#define VACED_REPLAY_TO_EAGER_H

#include <stdint.h>
#include "replay/ranks.h"

/* Links every rendezvous message across the records and plans, rank by
 * rank, what changes for those that fit `threshold`; 0, or -1 (out of
 * memory).  Nothing when the record's threshold is not below it. */
int vaced_eager_plan(struct rank_run *ranks, int size, uint64_t threshold);
void vaced_eager_free(struct rank_run *r);
/* Recorded event e, on a rank with a plan: 0 run it, 1 skip it, 2 run
 * *out instead. */
int vaced_eager_event(struct rank_run *r, const struct vaced_log_event *e,
                      struct vaced_log_event *out);
/* Whether the plan skips recorded event e (a CTS or DATA read that no
 * packet will come for). */
int vaced_eager_skips(const struct rank_run *r, const struct vaced_log_event *e);
/* After an event ran: completes a send made eager once its request exists. */
void vaced_eager_after(struct rank_run *r, const struct vaced_log_event *e);

#endif
