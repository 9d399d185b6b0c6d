/* Per-message overheads and the receiver's wake-up (overhead.h). */
#include "sim/state.h"
#include "progress/history.h"
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
    vaced_time_t c = vaced_st.last_compute;
    if (vaced_st.last_coldness > 0)
        c = vaced_target_coldness_compute(vaced_st.target, vaced_st.last_coldness);
    return (vaced_time_t)((double)base * factor(vaced_st.target, c));
}

vaced_time_t vaced_send_overhead(int dest)
{
    if (!vaced_st.target || dest == vaced_st.rank)
        return 0;
    return cooled(vaced_target_send_overhead_factor, vaced_target_send_overhead(vaced_st.target));
}

vaced_time_t vaced_recv_overhead(void)
{
    if (!vaced_st.target)
        return 0;
    return cooled(vaced_target_recv_overhead_factor, vaced_target_recv_overhead(vaced_st.target));
}

/* A rank blocked in a wait sleeps in poll() once nothing has come for a
 * while, and its CPU idles: a message that reaches it then takes longer
 * one way than one sent just after it blocked (wakeup_after, wakeup_ramp;
 * figures in results/targets-notes.md). */
vaced_time_t vaced_wakeup_delay(vaced_time_t ta)
{
    const struct vaced_target *t = vaced_st.target;
    if (!t || vaced_target_wakeup_latency(t) <= 0)
        return 0;
    vaced_time_t since = vaced_waits_idle_since(&vaced_st.waits, ta);
    return since == VACED_TIME_UNSET ? 0 : vaced_target_wakeup_time(t, ta - since);
}
