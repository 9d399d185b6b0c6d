/* Per-message software overheads (LogP's o_s and o_r) of the target, from
 * its description's send_overhead and recv_overhead (0 by default: the
 * paper's model, which has none), and the receiver's wake-up
 * (wakeup_latency, wakeup_after, wakeup_ramp; none by default).  The
 * send stamps and the handling times (progress/) charge them; keeping them
 * here keeps that charging to one call per site. */
#ifndef VACED_OVERHEAD_H
#define VACED_OVERHEAD_H

#include "clock/vtime.h"

struct vaced_target;

/* CPU time the sender spends on one protocol message to `dest` before it
 * leaves (0 for a message to itself, which MPICH copies without a packet):
 * send_overhead times its factor for the computation before the running
 * MPI call (send_overhead_factors). */
vaced_time_t vaced_send_overhead(int dest);
/* CPU time the receiver spends on one protocol message it handles
 * (recv_overhead, recv_overhead_factors, as above). */
vaced_time_t vaced_recv_overhead(void);

/* The send and receive overheads' factors after `compute` of computation
 * before the MPI call (send_overhead_factors, recv_overhead_factors; 1
 * when the target lists none). */
double vaced_target_send_overhead_factor(const struct vaced_target *t, vaced_time_t compute);
double vaced_target_recv_overhead_factor(const struct vaced_target *t, vaced_time_t compute);

/* overhead_coldness: the canary's coldness (canary.h) after each of the
 * calibration's computation times, which give the overheads' factors.  A
 * program's computation may cool the caches less (arithmetic on a few
 * registers) or more than the calibration's of the same length, so the
 * factors are taken at the calibration's computation that cooled the
 * canary as much as the program's did: this is that computation time, by
 * linear interpolation, the first or last point's beyond them; -1 when
 * the target lists no overhead_coldness. */
vaced_time_t vaced_target_coldness_compute(const struct vaced_target *t, double coldness);

/* The receiver's wake-up (wakeup_latency, wakeup_after, wakeup_ramp; 0
 * unless the description sets them) of a message that finds its receiver
 * blocked in a wait, idle for `idle`: the full latency from wakeup_after +
 * wakeup_ramp on, a linear share of it within the ramp (the moment a rank
 * falls asleep varies). */
vaced_time_t vaced_target_wakeup_time(const struct vaced_target *t, vaced_time_t idle);
/* Whether the description sets a wake-up at all. */
int vaced_target_has_wakeup(const struct vaced_target *t);

#endif
