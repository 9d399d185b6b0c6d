/* The description's lists of points (target.h, docs/targets.md):
 * bnet_factors, bmem_factors and bcpu_factors (SIZE:FACTOR: a rate's
 * factor by message size), send_overhead_factors and
 * recv_overhead_factors (COMPUTE_US:FACTOR: an overhead's factor by the
 * computation before the MPI call) and overhead_coldness
 * (COMPUTE_US:COLDNESS: the canary's reading after the calibration's
 * computation, not decreasing with it).  The formulas that use them read
 * them beside themselves: network/netmodel.c, network/overhead.c. */
#include <stdlib.h>
#include <string.h>

#include "machine/target_impl.h"

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
