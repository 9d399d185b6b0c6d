/* topology = fattree: the standard 3-level k-ary fat tree (Al-Fares et al.,
 * SIGCOMM 2008) of k-port switches: k pods of k/2 edge and k/2 aggregation
 * switches, (k/2)^2 core switches, k/2 hosts per edge switch, k^3/4 hosts.
 * Host n hangs off edge switch n / (k/2) in pod n / (k/2)^2. A hop is one
 * link, host links included: up to the lowest common switch and down again,
 * so 2 under one edge switch, 4 within a pod, 6 across pods. */
#include <stdlib.h>

#include "machine/target_impl.h"

/* k^3/4 for k = 2048 is 2^31 hosts, more than node ids can number. */
#define FATTREE_MAX_PORTS 2048

struct fattree {
    int edge; /* hosts per edge switch, k/2 */
    int pod;  /* hosts per pod, (k/2)^2 */
};

static const char *const fattree_keys[] = {"switch_ports", NULL};

static int fattree_hops(const void *data, int a, int b)
{
    const struct fattree *f = data;
    if (a == b)
        return 0;
    if (a / f->edge == b / f->edge)
        return 2;
    return a / f->pod == b / f->pod ? 4 : 6;
}

static int fattree_setup(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "switch_ports");
    long k;
    if (!e || vaced_parse_count(c, e, 2, FATTREE_MAX_PORTS, &k))
        return -1;
    if (k % 2 != 0) /* half the ports go down, half up */
        return vaced_cfg_error(c, e->line, "'switch_ports' must be even (got %ld)", k);
    char what[64];
    snprintf(what, sizeof what, "a fat tree of %ld-port switches", k);
    if (vaced_topo_check_capacity(t, c, e, what, (long long)k * k * k / 4))
        return -1;
    struct fattree *f = malloc(sizeof *f);
    if (!f)
        return vaced_cfg_error(c, 0, "out of memory");
    f->edge = (int)(k / 2);
    f->pod = f->edge * f->edge;
    t->topo_data = f;
    /* nodes 0 and 1 share an edge switch unless it has one host (k = 2) */
    t->min_pos_hops = t->nnodes < 2 ? 0 : f->edge > 1 ? 2 : 6;
    return 0;
}

const struct vaced_topo_ops vaced_topo_fattree = {
    .name = "fattree",
    .keys = fattree_keys,
    .setup = fattree_setup,
    .hops = fattree_hops,
    .free = free,
};
