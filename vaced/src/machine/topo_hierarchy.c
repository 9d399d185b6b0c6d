/* topology = hierarchy: nodes grouped into level-1 groups (switch boards),
 * those into level-2 groups, and so on. The hop count of two nodes is
 * hops[j] for the lowest level j whose group holds both (level 0 = the
 * node itself), hops[levels+1] when no group does. Paper eq. 5 is
 * hierarchy = 16, hops = 0 3 5 with 12 cores per node. */
#include <limits.h>
#include <stdlib.h>

#include "machine/target_impl.h"

#define HIER_MAX_LEVELS 8

struct hier {
    int levels;
    /* Nodes per group of level j (gsize[0] = 1), capped at nnodes: group ids
     * are node / gsize[j], divided on the fly instead of stored per rank,
     * because every rank process holds the whole table (P ranks x P ints
     * each is already the largest cost). */
    int gsize[HIER_MAX_LEVELS + 1];
    int hops[HIER_MAX_LEVELS + 2];
};

static const char *const hier_keys[] = {"hierarchy", "hops", NULL};

static int hier_hops(const void *data, int a, int b)
{
    const struct hier *h = data;
    if (a == b)
        return h->hops[0];
    for (int j = 1; j <= h->levels; j++)
        if (a / h->gsize[j] == b / h->gsize[j])
            return h->hops[j];
    return h->hops[h->levels + 1];
}

static int parse_hops(const struct vaced_cfg *c, struct hier *h)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "hops");
    int n;
    if (!e || vaced_parse_count_list(c, e, 0, VACED_MAX_HOPS, h->hops,
                                     HIER_MAX_LEVELS + 2, &n))
        return -1;
    if (n != h->levels + 2)
        return vaced_cfg_error(c, e->line,
                               "'hops' needs %d values (hierarchy levels + 2: same "
                               "node, each level, beyond the top level), got %d",
                               h->levels + 2, n);
    if (h->hops[0] != 0)
        return vaced_cfg_error(c, e->line, "'hops' must start with 0 (same node)");
    for (int j = 1; j < n; j++)
        if (h->hops[j] < h->hops[j - 1])
            return vaced_cfg_error(c, e->line,
                                   "'hops' must be non-decreasing (%d after %d)",
                                   h->hops[j], h->hops[j - 1]);
    return 0;
}

/* Level j (1..levels+1) occurs between two target nodes iff node gsize[j-1]
 * exists and, below the top, shares its level-j group with node 0. */
static int min_pos_hops(const struct hier *h, int nnodes)
{
    for (int j = 1; j <= h->levels + 1; j++) {
        int occurs = nnodes > h->gsize[j - 1] &&
                     (j > h->levels || h->gsize[j] > h->gsize[j - 1]);
        if (occurs && h->hops[j] > 0)
            return h->hops[j]; /* hops are non-decreasing: first is smallest */
    }
    return 0;
}

static int hier_setup(struct vaced_target *t, const struct vaced_cfg *c)
{
    struct hier *h = calloc(1, sizeof *h);
    if (!h)
        return vaced_cfg_error(c, 0, "out of memory");
    int per[HIER_MAX_LEVELS];
    const struct vaced_entry *e = vaced_cfg_get(c, "hierarchy");
    /* omitted or empty: no levels, only "same node" and "elsewhere" */
    if (e && vaced_parse_count_list(c, e, 1, INT_MAX, per, HIER_MAX_LEVELS, &h->levels))
        goto fail;
    h->gsize[0] = 1;
    for (int j = 1; j <= h->levels; j++) {
        long long g = (long long)h->gsize[j - 1] * per[j - 1];
        h->gsize[j] = g < t->nnodes ? (int)g : t->nnodes;
    }
    if (parse_hops(c, h))
        goto fail;
    t->topo_data = h;
    t->min_pos_hops = min_pos_hops(h, t->nnodes);
    return 0;
fail:
    free(h);
    return -1;
}

const struct vaced_topo_ops vaced_topo_hierarchy = {
    .name = "hierarchy",
    .keys = hier_keys,
    .setup = hier_setup,
    .hops = hier_hops,
    .free = free,
};
