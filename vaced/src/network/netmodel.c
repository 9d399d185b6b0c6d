/* The network model of eq. 4: L(s, h) = s/Bnet + l0 + h*lh for h > 0,
 * s/Bmem for h = 0. No congestion, as in the paper.  Optional extension
 * (0 by default, i.e. the paper's model): a same-node latency added to
 * L(s, 0) between two different ranks, and per-message CPU overheads at
 * the sender and the receiver (charged by network/send.c and progress/), Bnet's and Bmem's
 * factors by message size (bnet_factors, bmem_factors: sizefactors.c), a
 * connection's warm-up. */
#include "target/target_impl.h"

/* x picoseconds rounded to nearest, saturating: a huge message on a slow
 * target must give "forever", not a wrapped negative time. */
static vaced_time_t round_ps(double x)
{
    if (!(x < 9.2e18)) /* also catches inf; INT64_MAX is ~9.22e18 */
        return INT64_MAX;
    return (vaced_time_t)(x + 0.5);
}

static vaced_time_t bytes_time(uint64_t bytes, double bytes_per_s)
{
    return round_ps((double)bytes * 1e12 / bytes_per_s);
}

static vaced_time_t add_sat(vaced_time_t a, vaced_time_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* l(h) cannot overflow: l0, lh <= 1000 s and h <= 1000 (units.c limits). */
static vaced_time_t latency(const struct vaced_target *t, int h)
{
    return t->l0 + (vaced_time_t)h * t->lh;
}

/* Bmem with its factor for s (bmem_factors): copies and same-node transfers. */
static vaced_time_t mem_time(const struct vaced_target *t, uint64_t bytes)
{
    return bytes_time(bytes, t->bmem * vaced_target_bmem_factor(t, bytes));
}

vaced_time_t vaced_target_copy_time(const struct vaced_target *t, uint64_t bytes)
{
    return mem_time(t, bytes);
}

vaced_time_t vaced_target_transfer_time(const struct vaced_target *t, int src,
                                        int dst, uint64_t bytes)
{
    int h = vaced_target_hops(t, src, dst);
    if (h < 0)
        return -1;
    if (h == 0)
        return src == dst ? mem_time(t, bytes) : add_sat(mem_time(t, bytes), t->l_node);
    return add_sat(bytes_time(bytes, t->bnet * vaced_target_bnet_factor(t, bytes)), latency(t, h));
}

/* On one node both ends' CPUs move the data (through the kernel, for
 * ch3:sock), so two transfers that share a CPU take turns: an exchange of
 * 1 MiB costs 1.5 to 2 times one way on the calibration host. */
vaced_time_t vaced_target_cpu_time(const struct vaced_target *t, int src, int dst,
                                   uint64_t bytes)
{
    if (t->bcpu <= 0 || src == dst || vaced_target_hops(t, src, dst) != 0)
        return 0;
    return bytes_time(bytes, t->bcpu * vaced_target_bcpu_factor(t, bytes));
}

/* Eq. 4 lets every message have the link to itself, so a window of
 * messages (a stream, an all-to-all, several halo faces) moved at many
 * times Bnet; on a real link they go one after the other. */
vaced_time_t vaced_target_wire_time(const struct vaced_target *t, int src, int dst,
                                    uint64_t bytes)
{
    if (!t->injection_queue || bytes == 0 || vaced_target_hops(t, src, dst) <= 0)
        return 0;
    return bytes_time(bytes, t->bnet * vaced_target_bnet_factor(t, bytes));
}

int vaced_target_warms_up(const struct vaced_target *t, uint64_t bytes)
{
    return t->net_warmup > 0 && bytes > 0 && bytes >= t->net_warmup_min;
}

/* A new TCP connection starts slow (slow start, the receive buffer's
 * autotuning): its first net_warmup_messages messages move at bnet_warmup.
 * Measured on a fresh connection, the excess lasts a number of messages
 * rather than of bytes (1 MiB and 256 KiB exchanges alike), so it is
 * counted in messages.  Messages below net_warmup_min fit the first windows:
 * they neither pay nor count (`sent` counts only the others).  Returns the
 * time beyond s/Bnet. */
vaced_time_t vaced_target_warmup_time(const struct vaced_target *t, int src, int dst,
                                      uint64_t sent, uint64_t bytes)
{
    if (!vaced_target_warms_up(t, bytes) || sent >= t->net_warmup ||
        vaced_target_hops(t, src, dst) <= 0)
        return 0;
    return bytes_time(bytes, t->bnet_warmup) - bytes_time(bytes, t->bnet);
}

vaced_time_t vaced_target_min_latency(const struct vaced_target *t)
{
    return t->min_pos_hops > 0 ? latency(t, t->min_pos_hops) : 0;
}

vaced_time_t vaced_target_send_overhead(const struct vaced_target *t) { return t->o_send; }
vaced_time_t vaced_target_recv_overhead(const struct vaced_target *t) { return t->o_recv; }
vaced_time_t vaced_target_same_node_latency(const struct vaced_target *t) { return t->l_node; }
vaced_time_t vaced_target_wakeup_latency(const struct vaced_target *t) { return t->wake; }
vaced_time_t vaced_target_wakeup_after(const struct vaced_target *t) { return t->wake_after; }

vaced_time_t vaced_target_wakeup_time(const struct vaced_target *t, vaced_time_t idle)
{
    vaced_time_t over = idle - t->wake_after;
    if (t->wake <= 0 || over <= 0)
        return 0;
    if (over >= t->wake_ramp)
        return t->wake;
    return round_ps((double)t->wake * (double)over / (double)t->wake_ramp);
}
