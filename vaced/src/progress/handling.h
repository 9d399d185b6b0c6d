/* Handling times (handling.c): when this rank handles a message, and the
 * responses it sends from there. */
#ifndef VACED_HANDLING_H
#define VACED_HANDLING_H

#include "vaced.h"
#include "progress/history.h"

/* When this rank handles a message arriving at `ta` that keeps its CPU
 * busy for `work`, its current progress point having started at `cur`:
 * Algorithm 3 (vaced_waits_handle_time), plus the target's wake-up when the
 * message finds the rank asleep in a wait.  Notes the handling as the
 * running wait's latest activity. */
vaced_time_t vaced_handle_time(vaced_time_t cur, vaced_time_t ta, vaced_time_t work);
/* The same, and in *by what handles it (vaced_waits_handler). */
vaced_time_t vaced_handle_time_by(vaced_time_t cur, vaced_time_t ta, vaced_time_t work,
                                  enum vaced_handler *by);

/* As vaced.h's vaced_packet_received, vaced_handle_begin and _end, and
 * vaced_respond_end, which entry/entry_packets.c calls after logging
 * MPICH's calls; the model's own calls use these. */
vaced_time_t vaced_model_packet_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                         vaced_time_t *ta);
vaced_time_t vaced_model_handle_begin(vaced_time_t ta);
void vaced_model_handle_end(void);
void vaced_model_respond_end(void);

/* A response at a receive post now (vaced_respond_begin_at's internal
 * form). */
void vaced_respond_begin(vaced_time_t ta);
/* The receive side's answers, which the message records (message.c) ask.
 * A receive post answers a message that was already in the unexpected
 * queue (eager-sync ACK, rendezvous CTS): responses leave at max(post, ta),
 * since the target cannot answer a message before it arrives.  `post` is
 * when the receive was posted, for one the host matches only later (a
 * wildcard held until its message was proven the target's first), else
 * VACED_TIME_UNSET: now (tV, or inside a handling context, as a collective
 * schedule's next round, that context's time; the context resumes at
 * vaced_respond_end()).  A message that arrives after the post is answered
 * at the progress point that handles it.  Begins a communication
 * activity; vaced_respond_end() may be called even when no
 * vaced_respond_begin_at() was. */
void vaced_respond_begin_at(vaced_time_t ta, vaced_time_t post);

#endif
