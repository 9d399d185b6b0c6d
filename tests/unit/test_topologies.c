/* Unit tests of the torus3d, fattree and dragonfly hop rules: hand-computed
 * hop counts (wrap-around and edge cases included), checks of every pair
 * against references built here from the networks' links (breadth-first
 * search for the torus and the fat tree), the shipped descriptions, and
 * every error of the topologies' keys with its file:line.
 * Built and run by `make -C vaced units` (see test_target.c). */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/target.h"
#include "tmptext.h"

#ifdef VACED_TOPO_DIR
static const char *root = VACED_TOPO_DIR "/..";
#else
static const char *root = ".";
#endif

/* Lines 1-8 are the general keys; the topology's own keys start on line 9. */
#define TOPO_LINE 9
static int load_topo(int cores, int per_node, const char *topo, const char *keys,
                     int nranks, struct vaced_target **t)
{
    char text[2048];
    snprintf(text, sizeof text,
             "name = t\ncores = %d\ncores_per_node = %d\nbmem = 10 GB/s\n"
             "bnet = 1 GB/s\nlatency = 1 us\nlatency_per_hop = 100 ns\n"
             "topology = %s\n%s",
             cores, per_node, topo, keys);
    *t = NULL;
    int rc = load_text(text, nranks, t);
    if (rc != 0 && check_failed_ < 20)
        printf("load error: %s\n", errbuf);
    return rc;
}

/* Must fail with "PATH:line: why" (line 0: "PATH: why"). */
static void expect_err(int cores, int per_node, const char *topo, const char *keys,
                       int line, const char *why)
{
    char text[2048], want[512];
    snprintf(text, sizeof text,
             "name = t\ncores = %d\ncores_per_node = %d\nbmem = 10 GB/s\n"
             "bnet = 1 GB/s\nlatency = 1 us\nlatency_per_hop = 100 ns\n"
             "topology = %s\n%s",
             cores, per_node, topo, keys);
    struct vaced_target *t = (struct vaced_target *)1;
    CHECK(load_text(text, 4, &t) != 0 && t == NULL);
    if (line > 0)
        snprintf(want, sizeof want, "%s:%d: %s", tmp_path, line, why);
    else
        snprintf(want, sizeof want, "%s: %s", tmp_path, why);
    CHECK_EQ_STR(errbuf, want);
}

/* ---- torus3d ---- */

/* Hops from src to every node by breadth-first search over the torus
 * links (x fastest), independent of the library's closed form. */
static void torus_bfs(const int d[3], int src, int *dist)
{
    int n = d[0] * d[1] * d[2], queue[4096], head = 0, tail = 0;
    for (int i = 0; i < n; i++)
        dist[i] = -1;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        int v = queue[head++];
        int c[3] = {v % d[0], v / d[0] % d[1], v / (d[0] * d[1])};
        for (int axis = 0; axis < 3; axis++)
            for (int step = -1; step <= 1; step += 2) {
                int cc[3] = {c[0], c[1], c[2]};
                cc[axis] = (cc[axis] + step + d[axis]) % d[axis];
                int w = cc[0] + d[0] * (cc[1] + d[1] * cc[2]);
                if (dist[w] < 0) {
                    dist[w] = dist[v] + 1;
                    queue[tail++] = w;
                }
            }
    }
}

/* Every pair of a one-core-per-node torus against the search. */
static long torus_mismatches(const int d[3])
{
    char keys[64];
    snprintf(keys, sizeof keys, "dims = %d %d %d\n", d[0], d[1], d[2]);
    int n = d[0] * d[1] * d[2];
    struct vaced_target *t;
    if (load_topo(n, 1, "torus3d", keys, n, &t))
        return -1;
    long bad = 0;
    int dist[4096];
    for (int a = 0; a < n; a++) {
        torus_bfs(d, a, dist);
        for (int b = 0; b < n; b++)
            bad += vaced_target_hops(t, a, b) != dist[b];
    }
    vaced_target_free(t);
    return bad;
}

static void test_torus(void)
{
    struct vaced_target *t;
    /* 4 x 3 x 5, one core per node: node n at (n % 4, n / 4 % 3, n / 12) */
    if (load_topo(60, 1, "torus3d", "dims = 4 3 5\n", 60, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 0), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 1);  /* x 0 -> 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 2);  /* x 0 -> 2: half way round */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 3), 1);  /* x 0 -> 3 wraps: 1, not 3 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 4), 1);  /* y 0 -> 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 8), 1);  /* y 0 -> 2 wraps (Y = 3) */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 12), 1); /* z 0 -> 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 24), 2); /* z 0 -> 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 36), 2); /* z 0 -> 3 wraps: 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 48), 1); /* z 0 -> 4 wraps: 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 59), 3); /* (3,2,4): 1 + 1 + 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 5, 30), 3); /* (1,1,0) - (2,1,2): 1 + 0 + 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 30), 5); /* (2,1,2): the diameter 2 + 1 + 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 30, 0), 5);
        CHECK_EQ_I64(vaced_target_hops(t, 3, 4), 2);  /* (3,0,0) - (0,1,0): x wraps */
        CHECK_EQ_I64(vaced_target_hops(t, 11, 12), 3); /* (3,2,0) - (0,0,1) */
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000 + 100000);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 30, 1000), 1000000 + 1000000 + 500000);
        vaced_target_free(t);
    }
    /* every pair against the search, odd, even and length-1, 2 axes */
    static const int dims[][3] = {{4, 3, 5}, {1, 1, 7}, {2, 2, 2}, {6, 1, 1}, {1, 5, 1},
                                  {3, 4, 2}, {8, 8, 8}};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
        CHECK_EQ_I64(torus_mismatches(dims[i]), 0);

    /* 4 cores per node, block: ranks 0-3 share node 0 */
    if (load_topo(64 * 4, 4, "torus3d", "dims = 4 4 4\n", 256, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 3), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 3, 4), 1);    /* nodes 0, 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 12), 1);   /* node 3 wraps to 0 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 255), 3);  /* node 63 (3,3,3) */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 168), 6);  /* node 42 (2,2,2) */
        vaced_target_free(t);
    }
    /* a single node: nothing is a positive hop count away */
    if (load_topo(8, 8, "torus3d", "dims = 1 1 1\n", 8, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 7), 0);
        CHECK_EQ_I64(vaced_target_min_latency(t), 0);
        vaced_target_free(t);
    }
    /* fewer nodes than torus places (a partly filled torus) is fine */
    if (load_topo(50, 1, "torus3d", "dims = 4 4 4\n", 50, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 49), 2); /* (1,0,3): z wraps, 1 + 0 + 1 */
        vaced_target_free(t);
    }
    /* the diameter limit: 1000 hops pass */
    if (load_topo(2001, 1, "torus3d", "dims = 2001 1 1\n", 2001, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1000), 1000);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1001), 1000);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2000), 1);
        vaced_target_free(t);
    }
}

/* ---- fattree ---- */

/* Hops between hosts by breadth-first search over an explicit k-ary fat
 * tree: hosts 0..H-1, then edge, aggregation and core switches. */
static int ft_neighbours(int k, int v, int *out)
{
    int h = k / 2, H = k * k * k / 4, E = H, A = E + k * h, C = A + k * h, n = 0;
    if (v < E) { /* host: its edge switch */
        out[n++] = E + v / h;
    } else if (v < A) { /* edge (pod, i): h hosts, the pod's h aggregations */
        int e = v - E, pod = e / h;
        for (int j = 0; j < h; j++)
            out[n++] = e * h + j;
        for (int j = 0; j < h; j++)
            out[n++] = A + pod * h + j;
    } else if (v < C) { /* aggregation (pod, j): pod's edges, cores (j, m) */
        int a = v - A, pod = a / h, j = a % h;
        for (int i = 0; i < h; i++)
            out[n++] = E + pod * h + i;
        for (int m = 0; m < h; m++)
            out[n++] = C + j * h + m;
    } else { /* core (j, m): aggregation j of every pod */
        int j = (v - C) / h;
        for (int pod = 0; pod < k; pod++)
            out[n++] = A + pod * h + j;
    }
    return n;
}

static long fattree_mismatches(int k)
{
    int h = k / 2, H = k * k * k / 4, V = H + 2 * k * h + h * h;
    char keys[64];
    snprintf(keys, sizeof keys, "switch_ports = %d\n", k);
    struct vaced_target *t;
    if (load_topo(H, 1, "fattree", keys, H, &t))
        return -1;
    long bad = 0;
    static int dist[1024], queue[1024];
    for (int s = 0; s < H; s++) {
        for (int v = 0; v < V; v++)
            dist[v] = -1;
        int head = 0, tail = 0, nb[64];
        dist[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            int v = queue[head++];
            for (int i = 0, n = ft_neighbours(k, v, nb); i < n; i++)
                if (dist[nb[i]] < 0) {
                    dist[nb[i]] = dist[v] + 1;
                    queue[tail++] = nb[i];
                }
        }
        for (int b = 0; b < H; b++)
            bad += vaced_target_hops(t, s, b) != dist[b];
    }
    vaced_target_free(t);
    return bad;
}

static void test_fattree(void)
{
    struct vaced_target *t;
    /* k = 4: 16 hosts, 2 per edge switch, 4 per pod */
    if (load_topo(16, 1, "fattree", "switch_ports = 4\n", 16, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 0), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 2);   /* one edge switch */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 4);   /* pod 0, other edge */
        CHECK_EQ_I64(vaced_target_hops(t, 1, 3), 4);
        CHECK_EQ_I64(vaced_target_hops(t, 3, 4), 6);   /* pods 0 and 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 15), 6);
        CHECK_EQ_I64(vaced_target_hops(t, 15, 14), 2); /* last edge switch */
        CHECK_EQ_I64(vaced_target_hops(t, 15, 12), 4); /* last pod */
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000 + 2 * 100000);
        vaced_target_free(t);
    }
    static const int ks[] = {2, 4, 6, 8};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
        CHECK_EQ_I64(fattree_mismatches(ks[i]), 0);
    /* k = 2: one host per edge switch and per pod, so 6 between any two */
    if (load_topo(4, 2, "fattree", "switch_ports = 2\n", 4, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 1, 2), 6);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000 + 6 * 100000);
        vaced_target_free(t);
    }
    /* one node only */
    if (load_topo(4, 4, "fattree", "switch_ports = 4\n", 4, &t) == 0) {
        CHECK_EQ_I64(vaced_target_min_latency(t), 0);
        vaced_target_free(t);
    }
}

/* ---- dragonfly ---- */

/* Router (within its group) holding group from's global link to group to,
 * found by walking from's ports q = 0 .. g-2 as docs/targets.md lists them. */
static int df_gateway(int g, int a, int from, int to)
{
    int h = g > 1 ? (g - 1 + a - 1) / a : 1;
    for (int q = 0; q < g - 1; q++)
        if ((q < from ? q : q + 1) == to)
            return q / h;
    return -1;
}

static int df_ref(int g, int a, int p, int x, int y)
{
    int rx = x / p, ry = y / p, gx = rx / a, gy = ry / a;
    if (x == y)
        return 0;
    if (rx == ry)
        return 2;
    if (gx == gy)
        return 3;
    return 2 + (rx % a != df_gateway(g, a, gx, gy)) + 1 + (ry % a != df_gateway(g, a, gy, gx));
}

static long dragonfly_mismatches(int g, int a, int p)
{
    char keys[128];
    snprintf(keys, sizeof keys, "groups = %d\nrouters_per_group = %d\nnodes_per_router = %d\n",
             g, a, p);
    int n = g * a * p;
    struct vaced_target *t;
    if (load_topo(n, 1, "dragonfly", keys, n, &t))
        return -1;
    long bad = 0;
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++)
            bad += vaced_target_hops(t, x, y) != df_ref(g, a, p, x, y);
    vaced_target_free(t);
    return bad;
}

/* The arrangement links every two groups once, h global ports a router. */
static void test_dragonfly_arrangement(int g, int a)
{
    int h = g > 1 ? (g - 1 + a - 1) / a : 1, bad = 0, ports[64] = {0};
    for (int x = 0; x < g; x++)
        for (int y = 0; y < g; y++)
            if (x != y) {
                int r = df_gateway(g, a, x, y);
                bad += r < 0 || r >= a;
                if (r >= 0 && r < a && x == 0)
                    ports[r]++;
            }
    for (int r = 0; r < a; r++)
        bad += ports[r] > h;
    CHECK_EQ_I64(bad, 0);
}

static void test_dragonfly(void)
{
    struct vaced_target *t;
    /* 5 groups x 2 routers x 2 nodes: h = ceil(4 / 2) = 2 global ports per
     * router. Node n: router n / 2, group n / 4, router in group n / 2 % 2.
     * Gateways (router in group): group 0 to 1, 2 on router 0, to 3, 4 on 1;
     * group 3 to 0, 1 on 0, to 2, 4 on 1; group 2 to 3 on 1. */
    if (load_topo(20, 1, "dragonfly", "groups = 5\nrouters_per_group = 2\n"
                  "nodes_per_router = 2\n", 20, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 0), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 2);  /* one router */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 3);  /* group 0, routers 0 and 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 4), 3);  /* gateway to gateway: global only */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 6), 4);  /* lands on g1 r0, local to r1 */
        CHECK_EQ_I64(vaced_target_hops(t, 2, 6), 5);  /* local, global, local */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 12), 4); /* g0 r0 -> gateway r1 first */
        CHECK_EQ_I64(vaced_target_hops(t, 12, 0), 4); /* and back the same way */
        CHECK_EQ_I64(vaced_target_hops(t, 2, 14), 4); /* g0 r1 gateway; lands g3 r0 */
        CHECK_EQ_I64(vaced_target_hops(t, 2, 12), 3);
        CHECK_EQ_I64(vaced_target_hops(t, 10, 14), 3); /* g2 r1 - g3 r1 directly */
        CHECK_EQ_I64(vaced_target_hops(t, 8, 12), 5);  /* g2 r0 - g3 r0 via both r1 */
        CHECK_EQ_I64(vaced_target_hops(t, 19, 16), 3);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000 + 2 * 100000);
        vaced_target_free(t);
    }
    static const int shapes[][3] = {{5, 2, 2}, {9, 4, 2}, {7, 2, 1}, {4, 1, 3},
                                    {1, 3, 2}, {6, 4, 1}, {2, 3, 1}, {13, 3, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        CHECK_EQ_I64(dragonfly_mismatches(shapes[i][0], shapes[i][1], shapes[i][2]), 0);
        test_dragonfly_arrangement(shapes[i][0], shapes[i][1]);
    }
    /* one node per router: the nearest other node is 3 hops away */
    if (load_topo(12, 1, "dragonfly", "groups = 4\nrouters_per_group = 1\n"
                  "nodes_per_router = 3\n", 12, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 3), 3); /* single-router groups */
        vaced_target_free(t);
    }
    if (load_topo(12, 1, "dragonfly", "groups = 2\nrouters_per_group = 6\n"
                  "nodes_per_router = 1\n", 12, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 3);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000 + 3 * 100000);
        vaced_target_free(t);
    }
}

/* ---- shipped descriptions ---- */

static struct vaced_target *load_shipped(const char *name, int nranks)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/topo/%s", root, name);
    struct vaced_target *t = NULL;
    if (vaced_target_load(path, nranks, &t, errbuf, sizeof errbuf) != 0)
        CHECK_EQ_STR(errbuf, "");
    return t;
}

static void test_shipped(void)
{
    struct vaced_target *t = load_shipped("torus-4x4x4.topo", 1024);
    if (t) {
        CHECK_EQ_I64(vaced_target_nodes(t), 64);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 15), 0);    /* node 0 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 16), 1);    /* node 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 48), 1);    /* node 3 wraps */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1023), 3);  /* node 63 (3,3,3) */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 42 * 16), 6); /* node 42 (2,2,2) */
        CHECK_EQ_I64(vaced_target_min_latency(t), 1500000);
        vaced_target_free(t);
    }
    t = load_shipped("fattree-k16.topo", 16384);
    if (t) {
        CHECK_EQ_I64(vaced_target_nodes(t), 1024);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 127), 2);    /* node 7: edge switch 0 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 128), 4);    /* node 8: pod 0 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1023), 4);   /* node 63 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1024), 6);   /* node 64: pod 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 16383, 16368), 0);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1000000);
        vaced_target_free(t);
    }
    t = load_shipped("dragonfly-33x8x4.topo", 25344);
    if (t) {
        CHECK_EQ_I64(vaced_target_nodes(t), 1056);
        /* node = rank / 24; router = node / 4; group = node / 32; h = 4 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 95), 2);        /* node 3, router 0 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 96), 3);        /* node 4, router 1 */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 32 * 24), 3);   /* g1 r0: gateways both ways */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1024 * 24), 4); /* g32 r0: g0 leaves from r7 */
        CHECK_EQ_I64(vaced_target_hops(t, 28 * 24, 1024 * 24), 3); /* g0 r7 - g32 r0 */
        CHECK_EQ_I64(vaced_target_hops(t, 4 * 24, 1028 * 24), 5); /* g0 r1 - g32 r1 */
        CHECK_EQ_I64(vaced_target_min_latency(t), 1300000);
        vaced_target_free(t);
    }
}

/* ---- errors ---- */

static void test_errors(void)
{
    const int L = TOPO_LINE;
    /* keys of one topology under another */
    expect_err(64, 1, "torus3d", "hops = 0 1\n", L, "key 'hops' does not apply to topology 'torus3d'");
    expect_err(64, 1, "hierarchy", "hops = 0 1\ndims = 4 4 4\n", L + 1,
               "key 'dims' does not apply to topology 'hierarchy'");
    expect_err(64, 1, "fattree", "switch_ports = 8\ngroups = 2\n", L + 1,
               "key 'groups' does not apply to topology 'fattree'");
    expect_err(64, 1, "dragonfly", "groups = 4\nrouters_per_group = 4\nnodes_per_router = 4\n"
               "switch_ports = 4\n", L + 3,
               "key 'switch_ports' does not apply to topology 'dragonfly'");
    expect_err(64, 1, "torus3d", "dims = 4 4 4\nnodes_per_router = 2\n", L + 1,
               "key 'nodes_per_router' does not apply to topology 'torus3d'");
    expect_err(64, 1, "torus3d", "dimensions = 4 4 4\n", L, "unknown key 'dimensions'");

    /* torus3d: dims */
    expect_err(64, 1, "torus3d", "", 0, "missing key 'dims'");
    expect_err(64, 1, "torus3d", "dims = 4 4\n", L, "'dims' needs 3 values (X Y Z), got 2");
    expect_err(64, 1, "torus3d", "dims = 4 4 4 1\n", L, "'dims' needs 3 values (X Y Z), got 4");
    expect_err(64, 1, "torus3d", "dims =\n", L, "'dims' needs 3 values (X Y Z), got 0");
    expect_err(64, 1, "torus3d", "dims = 4 0 4\n", L, "'dims' must be at least 1 (got 0)");
    expect_err(64, 1, "torus3d", "dims = 4 4 -4\n", L, "'dims' must not be negative");
    expect_err(64, 1, "torus3d", "dims = 4 x 4\n", L, "'dims': expected a whole number, got 'x'");
    expect_err(64, 1, "torus3d", "dims = 4 4.0 4\n", L, "'dims': expected a whole number, got '4.0'");
    expect_err(64, 1, "torus3d", "dims = 4 4 4x\n", L, "'dims': expected a whole number, got '4x'");
    expect_err(64, 1, "torus3d", "dims = 4 4 3\n", L,
               "'dims': 4 x 4 x 3 holds 48 nodes, fewer than the target's 64 (cores / cores_per_node)");
    expect_err(64, 1, "torus3d", "dims = 2002 1 1\n", L,
               "'dims': the torus diameter of 1001 hops is above the limit of 1000");
    expect_err(64, 1, "torus3d", "dims = 3000000000 1 1\n", L,
               "'dims': 3000000000 is above the limit of 2147483647");
    expect_err(64, 1, "torus3d", "dims = 2147483647 2147483647 2147483647\n", L,
               "'dims': the torus diameter of 3221225469 hops is above the limit of 1000");

    /* fattree: switch_ports */
    expect_err(64, 1, "fattree", "", 0, "missing key 'switch_ports'");
    expect_err(64, 1, "fattree", "switch_ports = 0\n", L, "'switch_ports' must be at least 2 (got 0)");
    expect_err(64, 1, "fattree", "switch_ports = 1\n", L, "'switch_ports' must be at least 2 (got 1)");
    expect_err(64, 1, "fattree", "switch_ports = -8\n", L, "'switch_ports' must not be negative");
    expect_err(64, 1, "fattree", "switch_ports = 7\n", L, "'switch_ports' must be even (got 7)");
    expect_err(64, 1, "fattree", "switch_ports = 8 8\n", L, "'switch_ports' takes one number");
    expect_err(64, 1, "fattree", "switch_ports =\n", L, "'switch_ports' has no value");
    expect_err(64, 1, "fattree", "switch_ports = 4096\n", L,
               "'switch_ports': 4096 is above the limit of 2048");
    expect_err(64, 1, "fattree", "switch_ports = 6\n", L,
               "'switch_ports': a fat tree of 6-port switches holds 54 nodes, fewer than the "
               "target's 64 (cores / cores_per_node)");

    /* dragonfly: groups, routers_per_group, nodes_per_router */
    static const char *const df = "groups = 4\nrouters_per_group = 4\nnodes_per_router = 4\n";
    static const char *const dfkeys[] = {"groups", "routers_per_group", "nodes_per_router"};
    for (int i = 0; i < 3; i++) {
        char why[128];
        const char *bad[] = {"0", "-2", "2 2", "", "two"};
        const char *msg[] = {"'%s' must be at least 1 (got 0)", "'%s' must not be negative",
                             "'%s' takes one number", "'%s' has no value",
                             "'%s': expected a whole number, got 'two'"};
        for (int j = 0; j < 5; j++) {
            /* the other two keys, good, around it */
            char all[256] = "";
            for (int m = 0; m < 3; m++) {
                char line[64];
                snprintf(line, sizeof line, "%s = %s\n", dfkeys[m], m == i ? bad[j] : "4");
                strcat(all, line);
            }
            snprintf(why, sizeof why, msg[j], dfkeys[i]);
            expect_err(64, 1, "dragonfly", all, L + i, why);
        }
        /* left out */
        char all[256] = "";
        for (int m = 0; m < 3; m++)
            if (m != i) {
                char line[64];
                snprintf(line, sizeof line, "%s = 4\n", dfkeys[m]);
                strcat(all, line);
            }
        snprintf(why, sizeof why, "missing key '%s'", dfkeys[i]);
        expect_err(64, 1, "dragonfly", all, 0, why);
    }
    expect_err(65, 1, "dragonfly", df, L,
               "'groups': 4 groups x 4 routers x 4 nodes holds 64 nodes, fewer than the "
               "target's 65 (cores / cores_per_node)");
    /* the capacity product saturates instead of overflowing */
    struct vaced_target *t;
    if (load_topo(64, 1, "dragonfly", "groups = 2147483647\nrouters_per_group = 2147483647\n"
                  "nodes_per_router = 2147483647\n", 64, &t) == 0) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 2);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 63), 2);
        vaced_target_free(t);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        root = argv[1];
    test_torus();
    test_fattree();
    test_dragonfly();
    test_shipped();
    test_errors();
    return CHECK_REPORT();
}
