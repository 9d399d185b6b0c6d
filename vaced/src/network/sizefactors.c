/* bnet_factors, bmem_factors and bcpu_factors: the measured shape of a
 * cost by message size.  A line (latency + s/Bnet) misses a real TCP link
 * by tens of percent between a few KiB and a few tens of KiB
 * (segmentation, the shaper's bucket, interrupt coalescing); n c + 3
 * s/Bmem misses a node's ping-pong by 15-40 % between 64 KiB and 4 MiB
 * (the caches, ch3's socket buffers), and a same-node exchange's CPU
 * share s/Bcpu its exchange by up to 44 %.  Like SMPI's bw-factor, the
 * description lists points SIZE:FACTOR; a message of s bytes moves at the
 * rate times f(s), f interpolated linearly in log2(s) between the points
 * and constant beyond the first and the last.
 *
 * send_overhead_factors and recv_overhead_factors: the per-message
 * overheads by the computation before the MPI call.  A message after a
 * long computation finds MPI's data out of the caches and costs the
 * sender several times what it costs back to back.  Points
 * COMPUTE_US:FACTOR, the overhead times f(C), C the computation before
 * the MPI call that sends or handles the message, f linear in C.
 *
 * overhead_coldness: points COMPUTE_US:COLDNESS, the canary's reading
 * (canary.h) after the calibration's computation of COMPUTE_US, not
 * decreasing with it. */
#include <stdlib.h>
#include <string.h>

#include "target/target_impl.h"

/* log2 of a size, in plain C: libm's log2 (glibc's FMA variant on this
 * VM) runs between a program's computations, and it made them run at
 * another speed than under vanilla MPICH: LU class A's residual took 2.1
 * ms against 3.4 ms, in VACED runs and in vanilla runs whose PMPI wrapper
 * called log2 once per MPI call (results/validation-notes.md).  The
 * program's own speed is what VACED times, so the model keeps out of libm
 * (tests/tools/test_no_libm.sh).  log2(s) = e + ln(m) / ln 2 with s = m 2^e,
 * m in [1, 2), and ln(m) = 2 atanh(z), z = (m - 1) / (m + 1) < 1/3, by its
 * series to z^25: error below 1e-13. */
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

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

/* One SIZE:FACTOR token at *ps; advances *ps past it.  by_compute: the
 * point is COMPUTE_US:FACTOR (send_overhead_factors, recv_overhead_factors),
 * whose first number may be 0. */
static int scan_point(const struct vaced_cfg *c, const struct vaced_entry *e, const char **ps,
                      uint64_t *size, double *factor, int by_compute)
{
    const char *tok = *ps;
    int toklen = 0;
    while (tok[toklen] && !is_blank(tok[toklen]) && toklen < 40)
        toklen++;
    char *end;
    if (*tok < '0' || *tok > '9')
        goto bad;
    unsigned long long s = strtoull(tok, &end, 10);
    if (*end != ':' || (s == 0 && !by_compute) || s > (1ull << 53))
        goto bad;
    const char *f = end + 1;
    if ((*f < '0' || *f > '9') && *f != '.')
        goto bad;
    double v;
    size_t used = vaced_scan_number(f, &v);     /* not strtod: the program's locale */
    const char *after = f + used;
    if (used == 0 || (*after && !is_blank(*after)))
        goto bad;
    if (!(v >= 0.01 && v <= 100))
        return vaced_cfg_error(c, e->line, "'%s': the factor in '%.*s' is outside 0.01-100",
                               e->key, toklen, tok);
    *size = s;
    *factor = v;
    *ps = after;
    return 0;
bad:
    if (by_compute)
        return vaced_cfg_error(c, e->line,
                               "'%s': expected MICROSECONDS:FACTOR (the computation before the "
                               "MPI call, then the overhead's factor, e.g. 100:1.3), got '%.*s'",
                               e->key, toklen, tok);
    return vaced_cfg_error(c, e->line,
                           "'%s': expected SIZE:FACTOR (bytes, then the rate's factor, "
                           "e.g. 8192:1.5), got '%.*s'", e->key, toklen, tok);
}

static int load_points(struct vaced_size_factors *f, const struct vaced_cfg *c, const char *key,
                       int by_compute)
{
    const struct vaced_entry *e = vaced_cfg_get(c, key);
    f->n = 0;
    if (!e)
        return 0;
    const char *s = e->val;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (!*s)
            break;
        if (f->n == VACED_MAX_SIZE_FACTORS)
            return vaced_cfg_error(c, e->line, "'%s' has more than %d points", e->key,
                                   VACED_MAX_SIZE_FACTORS);
        int i = f->n;
        if (scan_point(c, e, &s, &f->size[i], &f->factor[i], by_compute))
            return -1;
        if (i > 0 && f->size[i] <= f->size[i - 1])
            return vaced_cfg_error(c, e->line, "'%s': %s must increase (%llu after %llu)",
                                   e->key, by_compute ? "times" : "sizes",
                                   (unsigned long long)f->size[i],
                                   (unsigned long long)f->size[i - 1]);
        f->n++;
    }
    if (f->n == 0)
        return vaced_cfg_error(c, e->line, "'%s' has no value", e->key);
    return 0;
}

static int load_coldness(struct vaced_size_factors *f, const struct vaced_cfg *c)
{
    if (load_points(f, c, "overhead_coldness", 1))
        return -1;
    for (int i = 1; i < f->n; i++)
        if (f->factor[i] < f->factor[i - 1])
            return vaced_cfg_error(c, vaced_cfg_get(c, "overhead_coldness")->line,
                                   "'overhead_coldness': the coldness must not decrease with the "
                                   "computation (%g at %llu us after %g)", f->factor[i],
                                   (unsigned long long)f->size[i], f->factor[i - 1]);
    return 0;
}

int vaced_load_size_factors(struct vaced_target *t, const struct vaced_cfg *c)
{
    return load_points(&t->bnet_f, c, "bnet_factors", 0) ||
                   load_points(&t->bmem_f, c, "bmem_factors", 0) ||
                   load_points(&t->bcpu_f, c, "bcpu_factors", 0) ||
                   load_points(&t->o_send_f, c, "send_overhead_factors", 1) ||
                   load_points(&t->o_recv_f, c, "recv_overhead_factors", 1) ||
                   load_coldness(&t->cold, c)
               ? -1 : 0;
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

double vaced_target_bcpu_factor(const struct vaced_target *t, uint64_t bytes)
{
    return factor_at(&t->bcpu_f, bytes);
}

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

int vaced_target_has_coldness(const struct vaced_target *t)
{
    return t->cold.n > 0;
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
