/* topology = torus3d: nodes on an X x Y x Z torus, each node its own router
 * (as in Blue Gene), so a hop is one torus link. Node n sits
 * at x = n % X, y = (n / X) % Y, z = n / (X * Y); the hop count is the
 * Manhattan distance with wrap-around: per axis min(|d|, size - |d|). */
#include <limits.h>
#include <stdlib.h>

#include "machine/target_impl.h"

struct torus {
    int x, y, z, xy; /* sizes; xy = x * y */
};

static const char *const torus_keys[] = {"dims", NULL};

static int ring_dist(int a, int b, int size)
{
    int d = a > b ? a - b : b - a;
    return d < size - d ? d : size - d;
}

/* Coordinates are divided out on the fly: a per-node table would cost
 * memory in every rank process, and three divisions are cheap. */
static int torus_hops(const void *data, int a, int b)
{
    const struct torus *t = data;
    if (a == b)
        return 0;
    return ring_dist(a % t->x, b % t->x, t->x) +
           ring_dist(a / t->x % t->y, b / t->x % t->y, t->y) +
           ring_dist(a / t->xy, b / t->xy, t->z);
}

static int torus_setup(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "dims");
    int d[3];
    if (!e || vaced_parse_count_tuple(c, e, 1, INT_MAX, d, 3, "X Y Z"))
        return -1;
    /* the diameter bounds every hop count; checking it first also keeps
     * the sizes small enough that X * Y * Z cannot overflow */
    long diameter = (long)(d[0] / 2) + d[1] / 2 + d[2] / 2;
    if (diameter > VACED_MAX_HOPS)
        return vaced_cfg_error(c, e->line,
                               "'dims': the torus diameter of %ld hops is above the "
                               "limit of %d",
                               diameter, VACED_MAX_HOPS);
    char what[64];
    snprintf(what, sizeof what, "%d x %d x %d", d[0], d[1], d[2]);
    if (vaced_topo_check_capacity(t, c, e, what, (long long)d[0] * d[1] * d[2]))
        return -1;
    struct torus *tr = malloc(sizeof *tr);
    if (!tr)
        return vaced_cfg_error(c, 0, "out of memory");
    *tr = (struct torus){.x = d[0], .y = d[1], .z = d[2], .xy = d[0] * d[1]};
    t->topo_data = tr;
    /* nodes 0 and 1 are neighbours along the first axis longer than 1 */
    t->min_pos_hops = t->nnodes > 1 ? 1 : 0;
    return 0;
}

const struct vaced_topo_ops vaced_topo_torus3d = {
    .name = "torus3d",
    .keys = torus_keys,
    .setup = torus_setup,
    .hops = torus_hops,
    .free = free,
};
