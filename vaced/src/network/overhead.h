/* Per-message software overheads (LogP's o_s and o_r) of the target, from
 * its description's send_overhead and recv_overhead (0 by default: the
 * paper's model, which has none), and the receiver's wake-up
 * (wakeup_latency, wakeup_after, wakeup_ramp; none by default).  The
 * send stamps and the handling times (progress/) charge them; keeping them
 * here keeps that charging to one call per site. */
#ifndef VACED_OVERHEAD_H
#define VACED_OVERHEAD_H

#include "clock/vtime.h"

/* CPU time the sender spends on one protocol message to `dest` before it
 * leaves (0 for a message to itself, which MPICH copies without a packet):
 * send_overhead times its factor for the computation before the running
 * MPI call (send_overhead_factors). */
vaced_time_t vaced_send_overhead(int dest);
/* CPU time the receiver spends on one protocol message it handles
 * (recv_overhead, recv_overhead_factors, as above). */
vaced_time_t vaced_recv_overhead(void);
/* The target's wake-up delay of a message reaching this rank at `ta`: 0
 * unless the rank was then blocked in a wait, idle long enough to sleep. */
vaced_time_t vaced_wakeup_delay(vaced_time_t ta);

#endif
