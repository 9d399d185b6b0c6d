/* Per-message overheads and the receiver's wake-up (overhead.h). */
#include "clock/clock.h"
#include "job/job.h"
#include "network/overhead.h"
#include "machine/target_impl.h"

/* The overheads' factor after `compute` of computation: linear in the
 * time between the points, constant beyond the first and the last. */
static double compute_factor_at(const struct vaced_size_factors *f, vaced_time_t compute)
{
    int n = f->n;
    double us = (double)compute / 1e6;
    if (n == 0)
        return 1.0;
    if (us <= (double)f->size[0])
        return f->factor[0];
    if (us >= (double)f->size[n - 1])
        return f->factor[n - 1];
    int i = 1;
    while ((double)f->size[i] < us)
        i++;
    double x0 = (double)f->size[i - 1], x1 = (double)f->size[i];
    return f->factor[i - 1] + (us - x0) / (x1 - x0) * (f->factor[i] - f->factor[i - 1]);
}

double vaced_target_send_overhead_factor(const struct vaced_target *t, vaced_time_t compute)
{
    return compute_factor_at(&t->o_send_f, compute);
}

double vaced_target_recv_overhead_factor(const struct vaced_target *t, vaced_time_t compute)
{
    return compute_factor_at(&t->o_recv_f, compute);
}

vaced_time_t vaced_target_coldness_compute(const struct vaced_target *t, double coldness)
{
    const struct vaced_size_factors *f = &t->cold;
    int n = f->n;
    if (n == 0)
        return -1;
    double us;
    if (coldness <= f->factor[0])
        us = (double)f->size[0];
    else if (coldness >= f->factor[n - 1])
        us = (double)f->size[n - 1];
    else {
        int i = 1;
        while (f->factor[i] < coldness)     /* factor[i - 1] < coldness <= factor[i] */
            i++;
        double w = (coldness - f->factor[i - 1]) / (f->factor[i] - f->factor[i - 1]);
        us = (double)f->size[i - 1] + w * (double)(f->size[i] - f->size[i - 1]);
    }
    return (vaced_time_t)(us * 1e6);
}


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
    return cooled(vaced_target_send_overhead_factor, t->o_send);
}

vaced_time_t vaced_recv_overhead(void)
{
    const struct vaced_target *t = vaced_sim_target();
    if (!t)
        return 0;
    return cooled(vaced_target_recv_overhead_factor, t->o_recv);
}

vaced_time_t vaced_target_wakeup_time(const struct vaced_target *t, vaced_time_t idle)
{
    vaced_time_t over = idle - t->wake_after;
    if (t->wake <= 0 || over <= 0)
        return 0;
    if (over >= t->wake_ramp)
        return t->wake;
    double x = (double)t->wake * (double)over / (double)t->wake_ramp;
    return (vaced_time_t)(x + 0.5);
}

int vaced_target_has_wakeup(const struct vaced_target *t)
{
    return t->wake > 0;
}
