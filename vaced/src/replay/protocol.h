/* Messages eager on the record and rendezvous on the replay's target
 * (protocol.c).  Called by the scheduler (replay.c) around the events it
 * runs; reads and changes the ranks through replay/ranks.h. */
#ifndef VACED_REPLAY_PROTOCOL_H
#define VACED_REPLAY_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include "replay/ranks.h"

/* Prepares the ranks for it when the target's eager threshold is below
 * the record's; 0, or -1 (out of memory). */
int vaced_conv_start(struct rank_run *ranks, int size, uint64_t threshold);
void vaced_conv_free(struct rank_run *ranks, int size);
/* The recorded event about to run, on a rank whose record a protocol
 * change touches: runs it the rendezvous way and returns 1, or returns 0
 * to let replay.c run it as recorded. */
int vaced_conv_event(struct rank_run *r, const struct vaced_log_event *e);
/* A recorded packet read: conv, the conversion whose RTS it is, or -1. */
int vaced_conv_read(struct rank_run *r, const struct vaced_log_event *e, int32_t conv);
/* After replay.c ran event e (a progress point, an activity's end). */
void vaced_conv_after(struct rank_run *r, const struct vaced_log_event *e);
/* Before event e: whether the rank must first wait for a rendezvous
 * packet the record does not have; 1 it can go on, 3 it can once it ran
 * what vaced_conv_postponed gives (e ends a wait), 2 e is put off to its
 * wait's end, 0 it is blocked (r->blocked_on set), -1 failed. */
int vaced_conv_ready(struct rank_run *r, const struct vaced_log_event *e);
/* A rank about to block for a recorded packet: handles the packets the
 * record does not have that have come, and reads the RTS at the head of
 * its connections whose receive is posted, as MPICH's progress would
 * (their recorded reads come later).  0, or -1 failed. */
int vaced_conv_progress(struct rank_run *r, size_t offset);
/* The next event put off to the wait that ends now: 1, or 0 none left. */
int vaced_conv_postponed(struct rank_run *r, struct vaced_log_event *e);

#endif
