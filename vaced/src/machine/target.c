/* Loading a target description: the general keys, the choice of topology
 * and mapping, and the per-rank node table the hop queries use. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/target_impl.h"

static const struct vaced_topo_ops *const topologies[] = {
    &vaced_topo_hierarchy,
    &vaced_topo_torus3d,
    &vaced_topo_fattree,
    &vaced_topo_dragonfly,
    NULL,
};

static const char *const general_keys[] = {
    "name", "cores", "cores_per_node", "topology", "mapping", "bmem", "bnet",
    "latency", "latency_per_hop", "eager_threshold",
    "latency_same_node", "send_overhead", "recv_overhead", "bcpu", "injection_queue",
    "net_warmup_messages", "bnet_warmup", "net_warmup_min", "bnet_factors", "bmem_factors", "bcpu_factors",
    "send_overhead_factors", "recv_overhead_factors", "overhead_coldness",
    "wakeup_latency", "wakeup_after", "wakeup_ramp", "calibrated_max", NULL,
};

static int in_list(const char *const *list, const char *key)
{
    for (; *list; list++)
        if (strcmp(*list, key) == 0)
            return 1;
    return 0;
}

/* Known to anyone: topology keys are accepted while reading, and checked
 * against the chosen topology once it is known. */
static int key_known(const char *key)
{
    if (in_list(general_keys, key))
        return 1;
    for (int i = 0; topologies[i]; i++)
        if (in_list(topologies[i]->keys, key))
            return 1;
    return 0;
}

static int load_name(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "name");
    if (!e)
        return -1;
    if (e->val[0] == '\0')
        return vaced_cfg_error(c, e->line, "'name' has no value");
    size_t n = strlen(e->val);
    t->name = malloc(n + 1);
    if (!t->name)
        return vaced_cfg_error(c, 0, "out of memory");
    memcpy(t->name, e->val, n + 1);
    return 0;
}

static int load_cores(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "cores");
    const struct vaced_entry *p = e ? vaced_cfg_need(c, "cores_per_node") : NULL;
    long cores, per;
    if (!p || vaced_parse_count(c, e, 1, INT_MAX, &cores) ||
        vaced_parse_count(c, p, 1, INT_MAX, &per))
        return -1;
    if (t->nranks > cores)
        return vaced_cfg_error(c, e->line,
                               "the target has %ld cores, fewer than the job's %d ranks",
                               cores, t->nranks);
    t->cores = (int)cores;
    t->cores_per_node = (int)per;
    t->nnodes = (int)((cores + per - 1) / per);
    return 0;
}

/* net_warmup_messages and bnet_warmup come together: a new TCP connection
 * moves its first messages slower than the steady Bnet (slow start, buffer
 * autotuning); net_warmup_min optionally leaves small messages out. */
static int load_warmup(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *ev = vaced_cfg_get(c, "net_warmup_messages");
    const struct vaced_entry *eb = vaced_cfg_get(c, "bnet_warmup");
    const struct vaced_entry *em = vaced_cfg_get(c, "net_warmup_min");
    t->net_warmup = 0;
    t->bnet_warmup = 0;
    t->net_warmup_min = 0;
    if (!ev && !eb) {
        if (em)
            return vaced_cfg_error(c, em->line, "'net_warmup_min' needs 'net_warmup_messages' "
                                   "and 'bnet_warmup'");
        return 0;
    }
    if (!ev || !eb)
        return vaced_cfg_error(c, (ev ? ev : eb)->line,
                               "'net_warmup_messages' and 'bnet_warmup' go together: '%s' is missing",
                               ev ? "bnet_warmup" : "net_warmup_messages");
    long n;
    if (vaced_parse_count(c, ev, 1, 1000000, &n) || vaced_parse_bandwidth(c, eb, &t->bnet_warmup))
        return -1;
    t->net_warmup = (uint64_t)n;
    if (t->bnet_warmup > t->bnet)
        return vaced_cfg_error(c, eb->line,
                               "'bnet_warmup' (%.6g B/s) is above 'bnet' (%.6g B/s): a connection "
                               "warming up is not faster than a warm one", t->bnet_warmup, t->bnet);
    return em ? vaced_parse_size_or_zero(c, em, &t->net_warmup_min) : 0;
}

/* wakeup_latency and wakeup_after go together, wakeup_ramp (default 0)
 * with them; absent: no wake-up. */
static int load_wakeup(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *el = vaced_cfg_get(c, "wakeup_latency");
    const struct vaced_entry *ea = vaced_cfg_get(c, "wakeup_after");
    const struct vaced_entry *er = vaced_cfg_get(c, "wakeup_ramp");
    t->wake = t->wake_after = t->wake_ramp = 0;
    if (er && !el && !ea)
        return vaced_cfg_error(c, er->line, "'wakeup_ramp' needs 'wakeup_latency' and 'wakeup_after'");
    if (er && vaced_parse_time_or_zero(c, er, &t->wake_ramp))
        return -1;
    if (!el && !ea)
        return 0;
    if (!el || !ea)
        return vaced_cfg_error(c, (el ? el : ea)->line,
                               "'wakeup_latency' and 'wakeup_after' go together: '%s' is missing",
                               el ? "wakeup_after" : "wakeup_latency");
    return vaced_parse_time_or_zero(c, el, &t->wake) || vaced_parse_time_or_zero(c, ea, &t->wake_after)
               ? -1 : 0;
}

static int load_network(struct vaced_target *t, const struct vaced_cfg *c)
{
    const char *need[] = {"bmem", "bnet", "latency", "latency_per_hop"};
    const struct vaced_entry *e[4];
    for (int i = 0; i < 4; i++)
        if (!(e[i] = vaced_cfg_need(c, need[i])))
            return -1;
    if (vaced_parse_bandwidth(c, e[0], &t->bmem) ||
        vaced_parse_bandwidth(c, e[1], &t->bnet) ||
        vaced_parse_time(c, e[2], &t->l0) || vaced_parse_time(c, e[3], &t->lh))
        return -1;
    /* Optional per-message costs (LogP's overheads, a same-node latency),
     * the CPU's share of same-node transfers (bcpu) and a rank's queue on
     * its link (injection_queue); 0 / no when absent: the paper's model. */
    const char *opt[] = {"latency_same_node", "send_overhead", "recv_overhead"};
    vaced_time_t *dst[] = {&t->l_node, &t->o_send, &t->o_recv};
    for (int i = 0; i < 3; i++) {
        const struct vaced_entry *eo = vaced_cfg_get(c, opt[i]);
        *dst[i] = 0;
        if (eo && vaced_parse_time_or_zero(c, eo, dst[i]))
            return -1;
    }
    const struct vaced_entry *ec = vaced_cfg_get(c, "bcpu");
    t->bcpu = 0;
    if (ec && vaced_parse_bandwidth(c, ec, &t->bcpu))
        return -1;
    const struct vaced_entry *eq = vaced_cfg_get(c, "injection_queue");
    t->injection_queue = eq && strcmp(eq->val, "yes") == 0;
    if (eq && !t->injection_queue && strcmp(eq->val, "no") != 0)
        return vaced_cfg_error(c, eq->line, "'injection_queue' is yes or no, not '%.40s'", eq->val);
    if (load_warmup(t, c) || load_wakeup(t, c) || vaced_load_size_factors(t, c))
        return -1;
    for (int i = 1; i < 3; i++) {
        char key[40];
        snprintf(key, sizeof key, "%s_factors", opt[i]);
        const struct vaced_entry *ef = vaced_cfg_get(c, key);
        if (ef && *dst[i] == 0)
            return vaced_cfg_error(c, ef->line, "'%s' scales '%s', which is missing or 0", key, opt[i]);
    }
    /* calibrated_max: the largest size measured; a larger one is extrapolated */
    const struct vaced_entry *ex = vaced_cfg_get(c, "calibrated_max");
    t->calibrated_max = 0;
    if (ex && vaced_parse_size(c, ex, &t->calibrated_max))
        return -1;
    const struct vaced_entry *eg = vaced_cfg_get(c, "eager_threshold");
    t->eager_threshold = VACED_DEFAULT_EAGER_THRESHOLD;
    if (!eg)
        return 0;
    if (vaced_parse_size(c, eg, &t->eager_threshold))
        return -1;
    if (t->eager_threshold > INT_MAX)   /* MPICH keeps its eager limit in an int */
        return vaced_cfg_error(c, eg->line, "'eager_threshold' is at most %d B (2 GiB - 1)", INT_MAX);
    return 0;
}

/* "file PATH" -> PATH (blanks after "file" skipped), else NULL. */
static const char *file_mapping_path(const char *val)
{
    if (strncmp(val, "file", 4) != 0 || (val[4] != '\0' && val[4] != ' ' && val[4] != '\t'))
        return NULL;
    val += 4;
    while (*val == ' ' || *val == '\t')
        val++;
    return val;
}

static int load_mapping(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_get(c, "mapping");
    const char *file = e ? file_mapping_path(e->val) : NULL;
    t->mapping = VACED_MAP_BLOCK;
    if (file)
        t->mapping = VACED_MAP_FILE;
    else if (e && strcmp(e->val, "round-robin") == 0)
        t->mapping = VACED_MAP_ROUND_ROBIN;
    else if (e && strcmp(e->val, "block") != 0)
        return vaced_cfg_error(c, e->line,
                               "unknown mapping '%.40s' (known: block round-robin file)",
                               e->val);
    if (file && *file == '\0')
        return vaced_cfg_error(c, e->line, "'mapping = file' needs a path (file PATH)");
    t->node_of_rank = malloc((size_t)t->nranks * sizeof *t->node_of_rank);
    if (!t->node_of_rank)
        return vaced_cfg_error(c, 0, "out of memory for %d ranks", t->nranks);
    if (file)
        return vaced_map_file(t, c, e, file);
    vaced_map_ranks(t->mapping, t->nranks, t->cores, t->cores_per_node, t->node_of_rank);
    return 0;
}

int vaced_topo_check_capacity(const struct vaced_target *t, const struct vaced_cfg *c,
                              const struct vaced_entry *e, const char *what,
                              long long capacity)
{
    if (capacity >= t->nnodes)
        return 0;
    return vaced_cfg_error(c, e->line,
                           "'%s': %s holds %lld nodes, fewer than the target's %d "
                           "(cores / cores_per_node)",
                           e->key, what, capacity, t->nnodes);
}

/* Pick the topology and make sure no key of another topology is set. */
static int load_topology(struct vaced_target *t, const struct vaced_cfg *c)
{
    const struct vaced_entry *e = vaced_cfg_need(c, "topology");
    if (!e)
        return -1;
    for (int i = 0; topologies[i]; i++)
        if (strcmp(topologies[i]->name, e->val) == 0)
            t->topo = topologies[i];
    if (!t->topo) {
        char list[128] = "";
        for (int i = 0; topologies[i]; i++) {
            strncat(list, " ", sizeof list - strlen(list) - 1);
            strncat(list, topologies[i]->name, sizeof list - strlen(list) - 1);
        }
        return vaced_cfg_error(c, e->line, "unknown topology '%.40s' (known:%s)",
                               e->val, list);
    }
    for (int i = 0; i < c->n; i++)
        if (!in_list(general_keys, c->ent[i].key) &&
            !in_list(t->topo->keys, c->ent[i].key))
            return vaced_cfg_error(c, c->ent[i].line,
                                   "key '%s' does not apply to topology '%s'",
                                   c->ent[i].key, t->topo->name);
    return 0;
}

int vaced_target_load(const char *path, int nranks, struct vaced_target **out,
                      char *err, size_t errlen)
{
    if (err && errlen > 0)
        err[0] = '\0';
    if (!out)
        return -1;
    *out = NULL;
    /* not zeroed: an entry is written whole before it counts (topofile.c),
     * and the table's pages a short file never reaches stay untouched */
    struct vaced_cfg *c = malloc(sizeof *c);
    struct vaced_target *t = calloc(1, sizeof *t);
    int rc = -1;
    if (!c || !t) {
        if (err && errlen > 0)
            snprintf(err, errlen, "%s: out of memory", path ? path : "(null)");
        goto done;
    }
    c->n = 0;
    c->path = path ? path : "(null)";
    c->err = err;
    c->errlen = errlen;
    if (!path) {
        vaced_cfg_error(c, 0, "no target description file given");
        goto done;
    }
    if (nranks < 1) {
        vaced_cfg_error(c, 0, "invalid job size of %d ranks", nranks);
        goto done;
    }
    t->nranks = nranks;
    if (vaced_cfg_read(c, key_known) || load_name(t, c) || load_cores(t, c) ||
        load_network(t, c) || load_topology(t, c) || t->topo->setup(t, c) ||
        load_mapping(t, c))
        goto done;
    rc = 0;
done:
    if (rc == 0)
        *out = t;
    else
        vaced_target_free(t);
    free(c);
    return rc;
}

void vaced_target_free(struct vaced_target *t)
{
    if (!t)
        return;
    if (t->topo && t->topo_data)
        t->topo->free(t->topo_data);
    free(t->node_of_rank);
    free(t->name);
    free(t);
}

const char *vaced_target_name(const struct vaced_target *t) { return t->name; }
int vaced_target_cores(const struct vaced_target *t) { return t->cores; }
int vaced_target_nodes(const struct vaced_target *t) { return t->nnodes; }
int vaced_target_nranks(const struct vaced_target *t) { return t->nranks; }

uint64_t vaced_target_net_warmup(const struct vaced_target *t)
{
    return t->net_warmup;
}

int vaced_target_uncalibrated(const struct vaced_target *t, uint64_t bytes)
{
    return t->calibrated_max > 0 && bytes > t->calibrated_max;
}

uint64_t vaced_target_eager_threshold(const struct vaced_target *t)
{
    return t->eager_threshold;
}

int vaced_target_node_of(const struct vaced_target *t, int rank)
{
    if (rank < 0 || rank >= t->nranks)
        return -1;
    return t->node_of_rank[rank];
}

int vaced_target_hops(const struct vaced_target *t, int src_rank, int dst_rank)
{
    if ((unsigned)src_rank >= (unsigned)t->nranks ||
        (unsigned)dst_rank >= (unsigned)t->nranks)
        return -1;
    return t->topo->hops(t->topo_data, t->node_of_rank[src_rank],
                         t->node_of_rank[dst_rank]);
}

int vaced_target_has_coldness(const struct vaced_target *t)
{
    return t->cold.n > 0;
}
