/* The receive side's completions (receive.c). */
#ifndef VACED_RECEIVE_H
#define VACED_RECEIVE_H

#include <stdint.h>
#include "clock/vtime.h"

/* DATA found at a receive post now (vaced_recv_found_at's internal form). */
vaced_time_t vaced_recv_found(vaced_time_t ta, uint64_t bytes);

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

#endif
