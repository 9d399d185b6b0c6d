/* topology = dragonfly (Kim et al., ISCA 2008) with minimal routing: g
 * groups of a routers, p nodes per router. The routers of a group are all
 * connected to each other by local links; every two groups by exactly one
 * global link, in the "consecutive" arrangement: group G's global port
 * q = 0 .. g-2 leads to group q (q < G) or q + 1 (q >= G) and sits on
 * router q / h, h = ceil((g - 1) / a) global ports per router.
 * Node n is on router n / p, in group n / (p a). A hop is one link, node
 * links included: same router 2 (node-router-node), same group 3 (one local
 * link), other group 3 to 5: node, [local to the router holding the global
 * link], global, [local from the router it lands on], node. */
#include <limits.h>
#include <stdlib.h>

#include "machine/target_impl.h"

struct dragonfly {
    int p, a, h; /* nodes per router, routers per group, global ports per router */
};

static const char *const dragonfly_keys[] = {"groups", "routers_per_group",
                                             "nodes_per_router", NULL};

/* Router (0 .. a-1) of group from that holds the global link to group to. */
static int gateway(const struct dragonfly *d, int from, int to)
{
    return (to < from ? to : to - 1) / d->h;
}

static int dragonfly_hops(const void *data, int a, int b)
{
    const struct dragonfly *d = data;
    if (a == b)
        return 0;
    int ra = a / d->p, rb = b / d->p;
    if (ra == rb)
        return 2;
    int ga = ra / d->a, gb = rb / d->a;
    if (ga == gb)
        return 3;
    return 3 + (ra % d->a != gateway(d, ga, gb)) + (rb % d->a != gateway(d, gb, ga));
}

static long long mul_sat(long long x, long long y) /* x, y in 1 .. INT_MAX */
{
    return x > LLONG_MAX / y ? LLONG_MAX : x * y;
}

static int dragonfly_setup(struct vaced_target *t, const struct vaced_cfg *c)
{
    static const char *const keys[] = {"groups", "routers_per_group", "nodes_per_router"};
    const struct vaced_entry *e[3];
    long v[3];
    for (int i = 0; i < 3; i++)
        if (!(e[i] = vaced_cfg_need(c, keys[i])) ||
            vaced_parse_count(c, e[i], 1, INT_MAX, &v[i]))
            return -1;
    char what[96];
    snprintf(what, sizeof what, "%ld groups x %ld routers x %ld nodes", v[0], v[1], v[2]);
    if (vaced_topo_check_capacity(t, c, e[0], what, mul_sat(mul_sat(v[0], v[1]), v[2])))
        return -1;
    struct dragonfly *d = malloc(sizeof *d);
    if (!d)
        return vaced_cfg_error(c, 0, "out of memory");
    d->p = (int)v[2];
    d->a = (int)v[1];
    /* at least 1, so a single group never divides by zero */
    d->h = v[0] > 1 ? (int)((v[0] - 1 + v[1] - 1) / v[1]) : 1;
    t->topo_data = d;
    /* nodes 0 and 1: one router (p > 1), else a local link or (a = 1) a
     * global link between the gateway routers themselves: 3 either way */
    t->min_pos_hops = t->nnodes < 2 ? 0 : d->p > 1 ? 2 : 3;
    return 0;
}

const struct vaced_topo_ops vaced_topo_dragonfly = {
    .name = "dragonfly",
    .keys = dragonfly_keys,
    .setup = dragonfly_setup,
    .hops = dragonfly_hops,
    .free = free,
};
