/* The matching rules as the target applies them (matching.c). */
#ifndef VACED_MATCHING_H
#define VACED_MATCHING_H

#include "vaced.h"

/* The matching rules (matching.c) read the device's queues: set at the
 * simulation's start; a receive is posted held. */
void vaced_matching_start(const struct vaced_device *device);
void vaced_matching_hold(void);

/* As vaced.h's vaced_probe_found, which entry/entry_waits.c calls after
 * logging MPICH's call. */
void vaced_model_probe_found(vaced_time_t ta);

/* For the observer of a pick (progress_observer.h): the candidates of the
 * held receive `owner`, or of a receive or probe matching `spec`: the
 * oldest unexpected message from each sender, in queue order, each given
 * to `each` (if not NULL); returns their number. */
unsigned vaced_pick_candidates(void *owner, const void *spec,
                               void (*each)(const struct vaced_msg *m, void *arg), void *arg);
/* The record of unexpected message u (NULL: none). */
const struct vaced_msg *vaced_pick_msg(void *u);
/* For the observer of Waitany's choice: the requests it chooses among
 * (active sends and receives with a record), each given to `each` (if not
 * NULL) with its size; returns their number. */
unsigned vaced_first_candidates(int count, void *(*req_at)(void *reqs, int i), void *reqs,
                                void (*each)(const struct vaced_msg *m, uint64_t bytes, void *arg),
                                void *arg);

#endif
