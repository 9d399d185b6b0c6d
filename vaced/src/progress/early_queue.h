/* The early queue: responses the target sends later than the host can.
 * A rendezvous REQ or ACK that reaches the host before the target's rank
 * would handle it is answered at the rank's first progress point at or
 * after the message's target arrival, not when the host happens to see it. */
#ifndef VACED_EARLY_QUEUE_H
#define VACED_EARLY_QUEUE_H

#include "vaced.h"

struct vaced_parked {
    vaced_time_t due;           /* target arrival of the message answered */
    vaced_time_t not_before;    /* tV when it was parked */
    int peer;                   /* the world rank it answers (peers.c counts it) */
    vaced_fire_fn fire;
    void *arg;
    int id;                     /* its order of parking on this rank (a record names it so) */
};

struct vaced_early_queue {
    struct vaced_parked *items;   /* sorted by due, earliest first */
    unsigned count, cap;
    int parked;                 /* responses parked so far */
};

/* As vaced.h's vaced_parks, vaced_park and vaced_poll, which
 * entry/entry_waits.c calls after logging MPICH's calls. */
int vaced_model_parks(vaced_time_t ta, int at_post);
void vaced_model_park(int peer, vaced_time_t due, vaced_fire_fn fire, void *arg);
void vaced_model_poll(void);

/* Sends the parked responses due by `limit` (all of them: INT64_MAX);
 * returns how many it sent (early_queue.c). */
int vaced_fire_parked(vaced_time_t limit);
/* Releases the early queue's memory. */
void vaced_free_parked(void);

/* Empties the early queue without releasing its memory (vaced_progress_reset). */
void vaced_parked_reset(void);

/* True when a message arriving on the target at `ta` has not been seen by
 * any progress point of this rank so far: the target still holds it in its
 * message buffer, so a receive posted now does not find it. */
int vaced_unseen(vaced_time_t ta);

/* True when a message arriving at `ta`, handled now by the host, reaches
 * the target only after this rank's current progress point: a test or
 * probe (not a blocking wait) whose time is before ta. */
int vaced_early(vaced_time_t ta);

#endif
