/* The progress model (progress/): the wait history with the running wait
 * and handling context, the running wait's received messages, the early
 * queue (early_queue.c's own) and the wildcard bounds (wildcard_bounds.c's
 * own).  progress/'s files share the state below; other modules read it
 * through the inline readers (the send stamp asks on every message) and
 * change it through the functions. */
#ifndef VACED_PROGRESS_H
#define VACED_PROGRESS_H

#include "vaced.h"
#include "clock/clock.h"
#include "progress/history.h"
#include "progress/turns.h"

struct vaced_progress {
    struct vaced_waits waits;
    struct vaced_turns recv_turns; /* the running wait's received messages (receive.c) */
};

/* progress/'s own (waits.c): outside progress/, only through the functions
 * of this header.  The rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_progress *vaced_progress_st;

/* --- For the other modules ---------------------------------------------- */

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

/* Zeroes the state: no waits so far, nothing parked (simulation start). */
void vaced_progress_reset(void);
/* Releases the running wait's received messages' memory (shutdown). */
void vaced_recv_turns_free(void);

/* Sends the parked responses due by `limit` (all of them: INT64_MAX);
 * returns how many it sent (early_queue.c). */
int vaced_fire_deferred(vaced_time_t limit);
/* Releases the early queue's memory. */
void vaced_free_deferred(void);

/* How the bound packets reach a peer (the device's send_bound). */
typedef void (*vaced_bound_send_fn)(int peer, const struct vaced_bound_pkt *p);
/* The simulation's start: no requests, reports or decisions so far; bound
 * packets go out through `send`. */
void vaced_bounds_start(vaced_bound_send_fn send);
/* Requests are waiting for an answer this rank could not give yet. */
int vaced_bounds_pending(void);
/* The rank is about to block on the host, waiting for messages from the
 * sources of its posted receives and probes: `only_on`, a world rank, or
 * -1 (none), or -2 (several ranks or ANY_SOURCE); the peers of its open
 * handshakes are added to them.  VACED_PROGRESSING: it is not blocked (it
 * progresses without receiving: a write is pending). */
#define VACED_PROGRESSING (-3)
void vaced_bounds_blocked(int only_on);
/* flags[i] for vaced_wildcard_check: peers[i]'s next matching message is on
 * the host, or it is closing. */
#define VACED_PEER_KNOWN 1
enum vaced_wildcard { VACED_WILD_SAFE, VACED_WILD_WAIT, VACED_WILD_UNPROVABLE };
/* A wildcard receive or probe (or a Waitany) starts deciding. */
void vaced_wildcard_begin(void);
/* The earliest candidate on the host arrives at `ta`; peers[i] (world ranks,
 * this rank's own and negative ones are ignored) may send an earlier one.
 * SAFE: take it; WAIT: wait for messages or reports (requests have been
 * sent); UNPROVABLE: the rule cannot decide: take it, approximately. */
int vaced_wildcard_check(vaced_time_t ta, int n, const int *peers, const unsigned char *flags);
/* A message of `bytes` from world rank `sender` arrives here no earlier
 * than the sender's bound (its clock plus the latency) plus this lead: the
 * rest of its transfer time. */
vaced_time_t vaced_bound_lead(int sender, uint64_t bytes);

/* The matching rules (matching.c) read the device's queues: set at the
 * simulation's start; a receive is posted held. */
void vaced_matching_start(const struct vaced_device *device);
void vaced_matching_hold(void);
/* Answers the bound requests this rank's clock now satisfies (wildcard_bounds.c). */
void vaced_bounds_activity_point(void);
void vaced_bounds_free(void);

/* --- Within progress/ --------------------------------------------------- */

/* Start of the current progress point: the running wait, or now. */
static inline vaced_time_t vaced_progress_start(void)
{
    return vaced_progress_st->waits.depth > 0 ? vaced_progress_st->waits.start : vaced_clock_tv();
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

/* Empties the early queue without releasing its memory (vaced_progress_reset). */
void vaced_early_reset(void);

/* Internal forms of the receive-side events (vaced.h): a response at a
 * receive post now; DATA found at a post now; a completion reported
 * outside a wait (tV becomes at least `done`). */
void vaced_respond_begin(vaced_time_t ta);
vaced_time_t vaced_recv_found(vaced_time_t ta, uint64_t bytes);
void vaced_complete_now(vaced_time_t done);

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

/* Completion time of a receive whose DATA (bytes) arrives at `ta`:
 * the handling time of `ta` plus the copy to the user buffer. */
vaced_time_t vaced_recv_done(vaced_time_t ta, uint64_t bytes);

/* When a test finds that receive complete: vaced_recv_done's time, or,
 * when a poll handles the DATA (a test or probe, this one or an earlier
 * one: the CPU was the program's), the handling's start, the work (recv
 * overhead and copy) going to the rank's clock when the completion is
 * reported (vaced_wait_complete_recv). */
vaced_time_t vaced_recv_visible(vaced_time_t ta, uint64_t bytes);

/* DATA found in the unexpected queue when its receive is posted (ADR):
 * if it has arrived on the target by the post (`post`, or VACED_TIME_UNSET:
 * now), the copy ends the post and, for a post now, advances tV (a
 * receive posted earlier and matched later does not charge tV, which has
 * moved on, again); returns the completion time, or VACED_TIME_UNSET when
 * it arrives later and the receive completes in a later wait. */
vaced_time_t vaced_recv_found_at(vaced_time_t ta, uint64_t bytes, vaced_time_t post);
/* The same for eager DATA from another rank (post UNSET: now).  MPICH
 * reads a socket only in progress calls, so the post finds the DATA only
 * if a progress point before it could handle its arrival; if none could
 * (it came while the rank computed), VACED_TIME_UNSET: the next progress
 * point reads it, in turn with the others it handles. */
vaced_time_t vaced_recv_found_read(vaced_time_t ta, uint64_t bytes, vaced_time_t post);

/* One awaited receive of eager DATA (bytes) arriving at `ta` completes:
 * at vaced_recv_done's time or, when the wait handles other messages too,
 * after its turn on the receiving CPU (recv_overhead and copy, in the
 * order of handling).  Once per receive and wait.  Returns a completion
 * time for the caller to keep: once the wait is over, vaced_recv_done
 * cannot tell which messages took its turns (a past wait takes a message
 * only where its CPU was free, see vaced_waits_handle_time).  Outside a
 * wait (a receive found complete on the host, reported without one) it
 * is a wait of its own when it completes after tV, its turn in history;
 * DATA a poll read (this test, or a test or probe before it) costs the
 * rank its work now, outside a wait or at the wait's start. */
vaced_time_t vaced_wait_complete_recv(vaced_time_t ta, uint64_t bytes);

/* True when a message arriving on the target at `ta` has not been seen by
 * any progress point of this rank so far: the target still holds it in its
 * message buffer, so a receive posted now does not find it. */
int vaced_unseen(vaced_time_t ta);

/* True when a message arriving at `ta`, handled now by the host, reaches
 * the target only after this rank's current progress point: a test or
 * probe (not a blocking wait) whose time is before ta. */
int vaced_early(vaced_time_t ta);

#endif
