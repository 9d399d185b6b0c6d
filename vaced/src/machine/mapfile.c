/* mapping = file PATH: the node of every rank, read from a file with one
 * node index per entry line; the k-th entry (k = 0, 1, ...) places rank k.
 * '#' comments and blank lines are allowed and are not entries. The whole
 * file is checked whatever the job size (syntax, node range, at most one
 * entry per target core), so a file valid for one job is valid for all;
 * it must cover the job's ranks, and no node may get more of the job's
 * ranks than it has cores. Errors are "MAPFILE:LINE: reason". */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "machine/target_impl.h"

/* A relative PATH is relative to the description file's directory. */
static char *resolve(const char *topo_path, const char *path)
{
    const char *slash = strrchr(topo_path, '/');
    size_t dir = (path[0] == '/' || !slash) ? 0 : (size_t)(slash - topo_path) + 1;
    size_t n = strlen(path);
    char *out = malloc(dir + n + 1);
    if (out) {
        memcpy(out, topo_path, dir);
        memcpy(out + dir, path, n + 1);
    }
    return out;
}

/* A node index: digits only. Returns 0, or -1 when s is not one; values
 * above INT_MAX come back as INT_MAX (out of range for any target; the
 * message quotes the text). */
static int parse_node(const char *s, int *node)
{
    long v = 0;
    if (*s < '0' || *s > '9')
        return -1;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v > 214748364 ? 2147483647L : v * 10 + (*s - '0');
    *node = v > 2147483647L ? 2147483647 : (int)v;
    return *s == '\0' ? 0 : -1;
}

struct placed {
    int node, rank, line;
};

static int by_node_rank(const void *x, const void *y)
{
    const struct placed *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* No node holds more of the job's ranks than its cores. Sorting a copy
 * costs O(P) memory; a per-node counter would cost O(nodes), and a target
 * may have far more nodes than the job has ranks. The offender reported is
 * the earliest rank that does not fit, i.e. the first one in the file. */
static int check_capacity(const struct vaced_target *t, const struct vaced_cfg *c,
                          const char *path, struct placed *pl)
{
    qsort(pl, (size_t)t->nranks, sizeof *pl, by_node_rank);
    int last_cores = t->cores - (t->nnodes - 1) * t->cores_per_node;
    const struct placed *worst = NULL;
    for (int i = 0, run = 0; i < t->nranks; i++) {
        run = (i > 0 && pl[i].node == pl[i - 1].node) ? run + 1 : 0;
        int cap = pl[i].node == t->nnodes - 1 ? last_cores : t->cores_per_node;
        if (run == cap && (!worst || pl[i].rank < worst->rank))
            worst = &pl[i];
    }
    if (!worst)
        return 0;
    int cap = worst->node == t->nnodes - 1 ? last_cores : t->cores_per_node;
    return vaced_file_error(c, path, worst->line,
                            "rank %d: node %d is full (%d core%s, all taken by "
                            "lower ranks)",
                            worst->rank, worst->node, cap, cap == 1 ? "" : "s");
}

static int read_map(struct vaced_target *t, const struct vaced_cfg *c,
                    const char *path, FILE *f, struct placed *pl)
{
    char buf[VACED_LINE_MAX];
    int k = 0; /* entries so far = the rank of the next one */
    for (int lineno = 1;; lineno++) {
        size_t len;
        if (lineno == INT_MAX) /* the line counter must not overflow */
            return vaced_file_error(c, path, 0, "more than %d lines", INT_MAX - 1);
        int r = vaced_read_line(f, buf, sizeof buf, &len);
        if (r == 0)
            break;
        if (r == -1)
            return vaced_file_error(c, path, lineno,
                                    "line too long (more than %d characters)",
                                    VACED_LINE_MAX - 1);
        if (r == -2)
            return vaced_file_error(c, path, 0, "read error: %s", strerror(errno));
        char *s = vaced_clean_line(c, path, lineno, buf, len);
        if (!s)
            return -1;
        if (*s == '\0')
            continue;
        int node;
        if (parse_node(s, &node))
            return vaced_file_error(c, path, lineno,
                                    "expected a node index (one whole number), "
                                    "got '%.40s'",
                                    s);
        if (node >= t->nnodes)
            return vaced_file_error(c, path, lineno,
                                    "rank %d: node %.40s is out of range (the "
                                    "target has %d nodes, 0 to %d)",
                                    k, s, t->nnodes, t->nnodes - 1);
        if (k == t->cores)
            return vaced_file_error(c, path, lineno,
                                    "more entries than the target's %d cores",
                                    t->cores);
        if (k < t->nranks) {
            t->node_of_rank[k] = node;
            pl[k] = (struct placed){.node = node, .rank = k, .line = lineno};
        }
        k++;
    }
    if (k < t->nranks)
        return vaced_file_error(c, path, 0,
                                "places %d rank%s, fewer than the job's %d", k,
                                k == 1 ? "" : "s", t->nranks);
    return check_capacity(t, c, path, pl);
}

int vaced_map_file(struct vaced_target *t, const struct vaced_cfg *c,
                   const struct vaced_entry *e, const char *path)
{
    char *full = resolve(c->path, path);
    struct placed *pl = malloc((size_t)t->nranks * sizeof *pl);
    int rc = -1;
    if (!full || !pl) {
        vaced_cfg_error(c, 0, "out of memory");
        goto done;
    }
    FILE *f = fopen(full, "r");
    if (!f) {
        vaced_cfg_error(c, e->line, "cannot open mapping file '%s': %s", full,
                        strerror(errno));
        goto done;
    }
    rc = read_map(t, c, full, f, pl);
    fclose(f);
done:
    free(pl);
    free(full);
    return rc;
}
