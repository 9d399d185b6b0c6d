/* The early queue: responses the target sends later than the host can.
 * A rendezvous REQ or ACK that reaches the host before the target's rank
 * would handle it is answered at the rank's first progress point at or
 * after the message's target arrival, not when the host happens to see it. */
#ifndef VACED_DEFERRED_H
#define VACED_DEFERRED_H

#include "vaced.h"

struct vaced_deferred {
    vaced_time_t due;           /* target arrival of the message answered */
    vaced_time_t not_before;    /* tV when it was parked */
    int peer;                   /* the world rank it answers (peers.c counts it) */
    vaced_fire_fn fire;
    void *arg;
    int id;                     /* its order of parking on this rank (a record names it so) */
};

struct vaced_early_queue {
    struct vaced_deferred *items;   /* sorted by due, earliest first */
    unsigned count, cap;
    int parked;                 /* responses parked so far */
};

#endif
