/* The network model of eq. 4: L(s, h) = s/Bnet + l0 + h*lh for h > 0,
 * s/Bmem for h = 0, no congestion, as in the paper; and the extensions a
 * description may add (none by default, i.e. the paper's model): a
 * same-node latency added to L(s, 0) between two different ranks, the
 * sender's CPU share of a same-node transfer (bcpu), the link's injection
 * queue, a connection's warm-up, and the rates' factors by message size.
 * vaced_msg_cost gives every term of one protocol message at once.
 *
 * bnet_factors, bmem_factors and bcpu_factors are the measured shape of a
 * cost by message size.  A line (latency + s/Bnet) misses a real TCP link
 * by tens of percent between a few KiB and a few tens of KiB
 * (segmentation, the shaper's bucket, interrupt coalescing); n c + 3
 * s/Bmem misses a node's ping-pong between 64 KiB and 4 MiB (the caches,
 * ch3's socket buffers), and a same-node exchange's CPU share s/Bcpu its
 * exchange (figures in results/targets-notes.md).  Like SMPI's bw-factor,
 * the description lists points SIZE:FACTOR (machine/factor_lists.c); a
 * message of s bytes moves at the rate times f(s), f interpolated
 * linearly in log2(s) between the points and constant beyond the first
 * and the last. */
#include "machine/target_impl.h"

/* log2 of a size, in plain C: libm's log2 runs between a program's
 * computations, and a vectorised libm variant can change the speed of the
 * program's own floating-point code after it (results/validation-notes.md).
 * The program's own speed is what VACED times, so the model keeps out of
 * libm (tests/tools/test_no_libm.sh).  log2(s) = e + ln(m) / ln 2 with
 * s = m 2^e, m in [1, 2), and ln(m) = 2 atanh(z), z = (m - 1) / (m + 1) <
 * 1/3, by its series to z^25: error below 1e-13. */
static double size_log2(uint64_t s)
{
    int e = 63 - __builtin_clzll(s);
    double m = (double)s / (double)(1ull << e);
    double z = (m - 1) / (m + 1), z2 = z * z, term = z, sum = 0;
    for (int k = 1; k <= 25; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return e + 2 * sum / 0.69314718055994530942;
}

static double factor_at(const struct vaced_size_factors *f, uint64_t bytes)
{
    int n = f->n;
    if (n == 0)
        return 1.0;
    if (bytes <= f->size[0])
        return f->factor[0];
    if (bytes >= f->size[n - 1])
        return f->factor[n - 1];
    int i = 1;
    while (f->size[i] < bytes)
        i++;
    double x0 = size_log2(f->size[i - 1]), x1 = size_log2(f->size[i]);
    double w = (size_log2(bytes) - x0) / (x1 - x0);
    return f->factor[i - 1] + w * (f->factor[i] - f->factor[i - 1]);
}

double vaced_target_bnet_factor(const struct vaced_target *t, uint64_t bytes)
{
    return factor_at(&t->bnet_f, bytes);
}

double vaced_target_bmem_factor(const struct vaced_target *t, uint64_t bytes)
{
    return factor_at(&t->bmem_f, bytes);
}

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
    return bytes_time(bytes, t->bmem * factor_at(&t->bmem_f, bytes));
}

/* s/Bnet with its factor for s (bnet_factors): a transfer across nodes. */
static vaced_time_t net_time(const struct vaced_target *t, uint64_t bytes)
{
    return bytes_time(bytes, t->bnet * factor_at(&t->bnet_f, bytes));
}

/* L(0, h): what a message pays whatever its size. */
static vaced_time_t first_byte(const struct vaced_target *t, int h, int src, int dst)
{
    if (h > 0)
        return latency(t, h);
    return src == dst ? 0 : t->l_node;
}

/* On one node both ends' CPUs move the data (through the kernel, for
 * ch3:sock), so two transfers that share a CPU take turns: an exchange
 * costs more than one way (bcpu). */
static vaced_time_t cpu_share(const struct vaced_target *t, int h, int src, int dst,
                              uint64_t bytes)
{
    if (t->bcpu <= 0 || src == dst || h != 0)
        return 0;
    return bytes_time(bytes, t->bcpu * factor_at(&t->bcpu_f, bytes));
}

int vaced_target_warms_up(const struct vaced_target *t, uint64_t bytes)
{
    return t->net_warmup > 0 && bytes > 0 && bytes >= t->net_warmup_min;
}

/* A new TCP connection starts slow (slow start, the receive buffer's
 * autotuning): its first net_warmup_messages messages move at bnet_warmup.
 * Measured on a fresh connection, the excess lasts a number of messages
 * rather than of bytes, so it is counted in messages.  Messages below
 * net_warmup_min fit the first windows: they neither pay nor count (`sent`
 * counts only the others).  The time beyond s/Bnet. */
static vaced_time_t warmup(const struct vaced_target *t, int h, uint64_t sent, uint64_t bytes)
{
    if (!vaced_target_warms_up(t, bytes) || sent >= t->net_warmup || h <= 0)
        return 0;
    return bytes_time(bytes, t->bnet_warmup) - bytes_time(bytes, t->bnet);
}

void vaced_msg_cost(const struct vaced_target *t, int src, int dst, uint64_t bytes,
                    uint64_t sent, struct vaced_msg_cost *c)
{
    int h = vaced_target_hops(t, src, dst);
    c->hops = h;
    c->copy = mem_time(t, bytes);
    if (h < 0) {
        c->cpu = c->latency = c->warmup = c->wire = 0;
        c->transfer = -1;
        return;
    }
    c->cpu = cpu_share(t, h, src, dst, bytes);
    c->latency = first_byte(t, h, src, dst);
    c->warmup = warmup(t, h, sent, bytes);
    if (h == 0) {
        c->transfer = add_sat(c->copy, c->latency);
        c->wire = 0;
        return;
    }
    vaced_time_t on_net = net_time(t, bytes);
    c->transfer = add_sat(on_net, c->latency);
    /* Eq. 4 lets every message have the link to itself, so a window of
     * messages (a stream, an all-to-all, several halo faces) moved at many
     * times Bnet; on a real link they go one after the other. */
    c->wire = t->injection_queue && bytes > 0 ? on_net : 0;
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
    return add_sat(h == 0 ? mem_time(t, bytes) : net_time(t, bytes), first_byte(t, h, src, dst));
}

vaced_time_t vaced_target_min_latency(const struct vaced_target *t)
{
    return t->min_pos_hops > 0 ? latency(t, t->min_pos_hops) : 0;
}

vaced_time_t vaced_target_send_overhead(const struct vaced_target *t) { return t->o_send; }
vaced_time_t vaced_target_recv_overhead(const struct vaced_target *t) { return t->o_recv; }
vaced_time_t vaced_target_same_node_latency(const struct vaced_target *t) { return t->l_node; }
