/* Per-message overheads and the receiver's wake-up (overhead.h). */
#include "clock/clock.h"
#include "sim/sim.h"
#include "progress/progress.h"
#include "network/overhead.h"

/* The computation before the running MPI call decides how much of MPI's
 * data the caches still hold (send_overhead_factors,
 * recv_overhead_factors): in a window of MPI_Isend after a long
 * computation only the first finds them cold, and a polling loop keeps
 * them warm.  How cold is the canary's reading where there is one (the
 * calibration's computation that cooled it as much), else the
 * computation's length.  A function of the call, not of the message:
 * MPICH asks for a receive's completion time more than once (handling its
 * packet, then for the wait that reports it), and every answer must be
 * the same. */
static vaced_time_t cooled(double (*factor)(const struct vaced_target *, vaced_time_t),
                           vaced_time_t base)
{
    const struct vaced_target *t = vaced_sim_target();
    vaced_time_t c = vaced_clock_last_compute();
    if (vaced_clock_last_coldness() > 0)
        c = vaced_target_coldness_compute(t, vaced_clock_last_coldness());
    return (vaced_time_t)((double)base * factor(t, c));
}

vaced_time_t vaced_send_overhead(int dest)
{
    const struct vaced_target *t = vaced_sim_target();
    if (!t || dest == vaced_sim_rank())
        return 0;
    return cooled(vaced_target_send_overhead_factor, vaced_target_send_overhead(t));
}

vaced_time_t vaced_recv_overhead(void)
{
    const struct vaced_target *t = vaced_sim_target();
    if (!t)
        return 0;
    return cooled(vaced_target_recv_overhead_factor, vaced_target_recv_overhead(t));
}

/* A rank blocked in a wait sleeps in poll() once nothing has come for a
 * while, and its CPU idles: a message that reaches it then takes longer
 * one way than one sent just after it blocked (wakeup_after, wakeup_ramp;
 * figures in results/targets-notes.md). */
vaced_time_t vaced_wakeup_delay(vaced_time_t ta)
{
    const struct vaced_target *t = vaced_sim_target();
    if (!t || vaced_target_wakeup_latency(t) <= 0)
        return 0;
    vaced_time_t since = vaced_progress_idle_since(ta);
    return since == VACED_TIME_UNSET ? 0 : vaced_target_wakeup_time(t, ta - since);
}
