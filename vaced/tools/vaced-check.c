/* vaced-check: validate a target description with the library's own parser
 * (vaced_target_load, exactly what the ranks run) and summarise it.
 *
 *   vaced-check [-q] FILE RANKS     RANKS 0: the whole target (all its cores)
 *   vaced-check --pairs FILE RANKS  machine-readable: the parameters and, for
 *                                   every ordered pair of ranks, the latency (s)
 *                                   and bandwidth (B/s) of the network model
 *                                   (vaced export-simgrid reads them)
 *
 * Exit 0 valid, 1 invalid ("FILE:LINE: reason" on stderr), 2 usage.
 * -q prints nothing on success.  Built by the `vaced` front end into
 * build/tools/ from this file and the sources in vaced/src; it reads the
 * target's internals (target_impl.h) for the parameter summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machine/target_impl.h"

#define WHOLE_TARGET_MAX (1 << 20) /* RANKS 0 checks at most this many ranks */
#define ALL_PAIRS_MAX 2048         /* beyond, hops are counted from rank 0 only */

static int any_key(const char *key)
{
    (void) key;
    return 1;
}

/* The topology's own lines (e.g. "dims = 4 4 4"), as written in the file. */
static void print_topology_keys(const char *path, const struct vaced_topo_ops *topo)
{
    static struct vaced_cfg c; /* 64 KiB: not on the stack */
    char err[1024];
    memset(&c, 0, sizeof c);
    c.path = path;
    c.err = err;
    c.errlen = sizeof err;
    if (vaced_cfg_read(&c, any_key))
        return;
    for (const char *const *k = topo->keys; *k; k++) {
        const struct vaced_entry *e = vaced_cfg_get(&c, *k);
        if (e)
            printf("  %s = %s\n", *k, e->val[0] ? e->val : "(empty)");
    }
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

static int nodes_used(const struct vaced_target *t, int n)
{
    int *v = malloc(sizeof *v * (size_t) n), used = 0;
    if (!v)
        return -1;
    for (int r = 0; r < n; r++)
        v[r] = vaced_target_node_of(t, r);
    qsort(v, (size_t) n, sizeof *v, cmp_int);
    for (int r = 0; r < n; r++)
        used += r == 0 || v[r] != v[r - 1];
    free(v);
    return used;
}

/* How many rank pairs are h hops apart, for each h that occurs. */
static void print_hops(const struct vaced_target *t, int n)
{
    static long long count[VACED_MAX_HOPS + 1];
    int all_pairs = n <= ALL_PAIRS_MAX;
    for (int x = 0; x < (all_pairs ? n : 1); x++)
        for (int y = x + 1; y < n; y++)
            count[vaced_target_hops(t, x, y)]++;
    if (n == 1) {
        printf("hop counts       (one rank: no pairs)\n");
        return;
    }
    printf("hop counts       %s\n", all_pairs ? "over all pairs of the job's ranks"
                                             : "from rank 0 to the job's other ranks");
    for (int h = 0; h <= VACED_MAX_HOPS; h++)
        if (count[h])
            printf("  %4d hops      %lld pairs\n", h, count[h]);
}

/* A rate's points by message size (bnet_factors, bmem_factors, bcpu_factors), if any. */
static void print_factors(const char *rate, const char *unit, const struct vaced_size_factors *f,
                          double in_unit)
{
    if (f->n > 0)
        printf("%s by size     (%s_factors; linear in log2 size between the points, constant beyond)\n",
               rate, rate);
    for (int i = 0; i < f->n; i++)
        printf("  %10llu B     %.6g %s (x %.4g)\n", (unsigned long long) f->size[i],
               in_unit * f->factor[i], unit, f->factor[i]);
}

/* The model's one-way cost between every two ranks of the job, as a
 * latency and a bandwidth: L(0), and the rate of a large message (past
 * every size factor's last point). */
static void print_pairs(const struct vaced_target *t, int n)
{
    const uint64_t big = UINT64_C(1) << 30;
    printf("param eager_threshold_B %llu\n", (unsigned long long) t->eager_threshold);
    printf("param bmem_Bps %.17g\n", t->bmem);
    printf("param send_overhead_s %.17g\n", t->o_send * 1e-12);
    printf("param recv_overhead_s %.17g\n", t->o_recv * 1e-12);
    for (int r = 0; r < n; r++)
        printf("node %d %d\n", r, vaced_target_node_of(t, r));
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b)
                continue;
            vaced_time_t l0 = vaced_target_transfer_time(t, a, b, 0);
            vaced_time_t lb = vaced_target_transfer_time(t, a, b, big);
            printf("pair %d %d %.17g %.17g\n", a, b, l0 * 1e-12, (double) big / ((lb - l0) * 1e-12));
        }
}

static const char *mapping_name(enum vaced_mapping m)
{
    return m == VACED_MAP_BLOCK ? "block" : m == VACED_MAP_ROUND_ROBIN ? "round-robin" : "file";
}

int main(int argc, char **argv)
{
    int quiet = argc > 1 && strcmp(argv[1], "-q") == 0;
    int pairs = argc > 1 && strcmp(argv[1], "--pairs") == 0;
    if (argc != 3 + (quiet || pairs)) {
        fprintf(stderr, "usage: vaced-check [-q] FILE RANKS   (RANKS 0: the whole target)\n"
                        "       vaced-check --pairs FILE RANKS  (RANKS at least 1)\n");
        return 2;
    }
    quiet |= pairs;
    const char *path = argv[1 + quiet];
    char *end;
    long n = strtol(argv[2 + quiet], &end, 10);
    if (*end || n < 0 || n > 2147483647L) {
        fprintf(stderr, "vaced-check: RANKS must be a whole number, got '%s'\n", argv[2 + quiet]);
        return 2;
    }
    if (pairs && n == 0) {
        fprintf(stderr, "vaced-check: --pairs needs RANKS of at least 1\n");
        return 2;
    }
    char err[1024];
    struct vaced_target *t;
    int whole = n == 0, capped = 0;
    if (whole) { /* learn the core count, then check the whole machine */
        if (vaced_target_load(path, 1, &t, err, sizeof err))
            goto bad;
        n = vaced_target_cores(t);
        capped = n > WHOLE_TARGET_MAX;
        if (capped)
            n = WHOLE_TARGET_MAX;
        vaced_target_free(t);
    }
    if (vaced_target_load(path, (int) n, &t, err, sizeof err))
        goto bad;
    if (pairs)
        print_pairs(t, (int) n);
    if (quiet) {
        vaced_target_free(t);
        return 0;
    }
    printf("file             %s\n", path);
    printf("name             %s\n", t->name);
    printf("cores            %d (%d per node, %d nodes)\n", t->cores, t->cores_per_node, t->nnodes);
    int used = nodes_used(t, (int) n);
    printf("checked for      %ld rank%s%s on %d node%s, mapping %s\n", n, n == 1 ? "" : "s",
           whole ? (capped ? " (the first of the target's cores; give -n for more)" : " (the whole target)") : "",
           used, used == 1 ? "" : "s", mapping_name(t->mapping));
    printf("topology         %s\n", t->topo->name);
    print_topology_keys(path, t->topo);
    print_hops(t, (int) n);
    printf("bmem             %.6g GB/s\n", t->bmem / 1e9);
    printf("bnet             %.6g GB/s\n", t->bnet / 1e9);
    printf("latency          l(h) = %.6g us + h x %.6g us\n", t->l0 / 1e6, t->lh / 1e6);
    printf("min latency      %.6g us (closest two nodes of the target)\n",
           vaced_target_min_latency(t) / 1e6);
    if (t->l_node || t->o_send || t->o_recv) {
        printf("same node        L(s, 0) = s / bmem + %.6g us (latency_same_node)\n", t->l_node / 1e6);
        printf("overheads        %.6g us per message sent, %.6g us per message received\n",
               t->o_send / 1e6, t->o_recv / 1e6);
    }
    if (t->injection_queue)
        printf("link             a rank's messages to other nodes take turns (injection_queue)\n");
    if (t->bcpu > 0)
        printf("same-node CPU    %.6g GB/s per end for rendezvous data (bcpu)\n", t->bcpu / 1e9);
    if (t->net_warmup > 0)
        printf("warm-up          the first %llu messages of each connection across nodes at %.6g MB/s "
               "(net_warmup_messages, bnet_warmup)\n", (unsigned long long) t->net_warmup,
               t->bnet_warmup / 1e6);
    if (t->net_warmup > 0 && t->net_warmup_min > 0)
        printf("                 counting messages of %llu B or more only (net_warmup_min)\n",
               (unsigned long long) t->net_warmup_min);
    if (t->wake > 0)
        printf("wake-up          a message to a rank blocked in a wait for more than %.6g us is handled "
               "%.6g us late%s (wakeup_latency, wakeup_after)\n", t->wake_after / 1e6, t->wake / 1e6,
               t->wake_ramp > 0 ? "" : ", at once");
    if (t->wake > 0 && t->wake_ramp > 0)
        printf("                 growing linearly to it over %.6g us (wakeup_ramp)\n", t->wake_ramp / 1e6);
    print_factors("bnet", "MB/s", &t->bnet_f, t->bnet / 1e6);
    print_factors("bmem", "GB/s", &t->bmem_f, t->bmem / 1e9);
    if (t->bcpu > 0)
        print_factors("bcpu", "GB/s", &t->bcpu_f, t->bcpu / 1e9);
    printf("eager threshold  %llu B\n", (unsigned long long) t->eager_threshold);
    if (t->calibrated_max > 0)
        printf("calibrated up to %llu B (calibrated_max): larger messages are extrapolated\n",
               (unsigned long long) t->calibrated_max);
    printf("valid            yes\n");
    vaced_target_free(t);
    return 0;
bad:
    fprintf(stderr, "%s\n", err);
    return 1;
}
