/* Uniform computation (uniform.c, docs/replay.md#uniform-computation). */
#ifndef VACED_REPLAY_UNIFORM_H
#define VACED_REPLAY_UNIFORM_H

#include <stddef.h>
#include <stdint.h>
#include "replay/ranks.h"

/* A rank's sequence of calls, as far as its record shows it: the hash of
 * the program's own steps in order (a send started, a receive posted, a
 * blocking collective, a sleep).  What the host's timing or the rank's
 * place decides is left out: the peer, the size and the protocol of a
 * message, the packets a wait reads, the responses the model parked, the
 * calls inside a collective (its algorithm's), and where the compute
 * segments fall among the steps, which differs between ranks making the
 * same calls as the host ran them. */
struct vaced_call_seq {
    uint64_t hash;
    int fire_depth, coll_depth;
};
void vaced_call_seq_start(struct vaced_call_seq *s);
/* Adds the record's next event (in the record's order). */
void vaced_call_seq_add(struct vaced_call_seq *s, const struct vaced_log_event *e);

/* On segments the load kept: every rank's k-th compute segment becomes
 * the median of the k-th segments of the ranks with the same sequence of
 * calls (as many segments, and the same hash of vaced_call_seq); *groups
 * gets the number of such groups.  0, or -1 when out of memory. */
int vaced_uniform_segments(struct rank_run *ranks, int size, int *groups);
/* The value to re-time r's segment at `offset` with (`recorded` if none). */
uint64_t vaced_uniform_value(const struct rank_run *r, size_t offset, uint64_t recorded);

#endif
