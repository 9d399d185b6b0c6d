/* Unit tests of the target description parser, mapping, hop rule and
 * network model. Expected values are closed forms computed here, never
 * values read back from the library.
 *
 * Built by `make -C vaced units`; run from the repository root (the
 * optional argument is the repo root, default "."):
 *   make -C vaced units && build/vaced/unit/test_target .
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/target.h"
#include "tmptext.h"

/* Repo root: argv[1]; else the one vaced/Makefile names through
 * VACED_TOPO_DIR (its topo/ directory); else the current directory. */
#ifdef VACED_TOPO_DIR
static const char *root = VACED_TOPO_DIR "/..";
#else
static const char *root = ".";
#endif

/* ps of bytes at a bandwidth, the way the model states it */
static int64_t ps_of(double bytes, double bytes_per_s)
{
    return (int64_t)(bytes / bytes_per_s * 1e12 + 0.5);
}

static struct vaced_target *load_path(const char *rel, int nranks)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    struct vaced_target *t = NULL;
    if (vaced_target_load(path, nranks, &t, errbuf, sizeof errbuf) != 0)
        CHECK_EQ_STR(errbuf, ""); /* shows the load error on one line */
    return t;
}

/* Paper eq. 5 with 12 cores per node, 192 per switch group. */
static int eq5(int x, int y)
{
    if (x / 12 == y / 12)
        return 0;
    return x / 192 == y / 192 ? 3 : 5;
}

static void test_paper_1024(void)
{
    struct vaced_target *t = load_path("topo/paper-1024.topo", 1024);
    if (!t)
        return;
    CHECK_EQ_STR(vaced_target_name(t), "paper-1024");
    CHECK_EQ_I64(vaced_target_cores(t), 1024);
    CHECK_EQ_I64(vaced_target_nodes(t), 86); /* ceil(1024 / 12) */
    CHECK_EQ_U64(vaced_target_eager_threshold(t), 131072);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 11), 0);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 12), 3);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 191), 3);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 192), 5);
    CHECK_EQ_I64(vaced_target_hops(t, 5, 5), 0);
    CHECK_EQ_I64(vaced_target_hops(t, 1023, 1020), 0); /* the 4-core last node */
    CHECK_EQ_I64(vaced_target_node_of(t, 1023), 85);
    long first_bad = -1; /* x * 1024 + y of the first pair differing from eq. 5 */
    for (int x = 0; x < 1024 && first_bad < 0; x++)
        for (int y = 0; y < 1024 && first_bad < 0; y++)
            if (vaced_target_hops(t, x, y) != eq5(x, y))
                first_bad = x * 1024L + y;
    CHECK_EQ_I64(first_bad, -1);

    const double mib = 1048576;
    CHECK_NEAR_I64(vaced_target_transfer_time(t, 0, 12, 1048576),
                   (int64_t)((mib / 4.16e9 + 15e-6 + 3 * 0.6e-6) * 1e12 + 0.5), 1);
    CHECK_NEAR_I64(vaced_target_transfer_time(t, 0, 500, 1048576),
                   (int64_t)((mib / 4.16e9 + 15e-6 + 5 * 0.6e-6) * 1e12 + 0.5), 1);
    CHECK_NEAR_I64(vaced_target_transfer_time(t, 0, 1, 1048576), ps_of(mib, 6.38e9), 1);
    CHECK_NEAR_I64(vaced_target_copy_time(t, 1048576), ps_of(mib, 6.38e9), 1);
    CHECK_NEAR_I64(vaced_target_copy_time(t, 1), ps_of(1, 6.38e9), 1);
    CHECK_EQ_I64(vaced_target_copy_time(t, 0), 0);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 12, 0), 15000000 + 3 * 600000);
    CHECK_EQ_I64(vaced_target_min_latency(t), 15000000 + 3 * 600000);
    CHECK_EQ_I64(vaced_target_hops(t, -1, 0), -1);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 1024), -1);
    CHECK_EQ_I64(vaced_target_node_of(t, 1024), -1);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 1024, 0, 8), -1);
    vaced_target_free(t);

    /* a smaller job on the same target: block mapping is unchanged */
    t = load_path("topo/paper-1024.topo", 200);
    if (t) {
        CHECK_EQ_I64(vaced_target_nranks(t), 200);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 199), 5);
        CHECK_EQ_I64(vaced_target_min_latency(t), 15000000 + 3 * 600000);
        vaced_target_free(t);
    }
}

static void test_paper_16(void)
{
    struct vaced_target *t = load_path("topo/paper-16.topo", 16);
    if (!t)
        return;
    CHECK_EQ_STR(vaced_target_name(t), "paper-16");
    CHECK_EQ_I64(vaced_target_nodes(t), 16);
    long bad = 0;
    for (int x = 0; x < 16; x++)
        for (int y = 0; y < 16; y++)
            bad += vaced_target_hops(t, x, y) != (x == y ? 0 : 3);
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(vaced_target_min_latency(t), 16800000);
    CHECK_NEAR_I64(vaced_target_transfer_time(t, 3, 9, 1000),
                   (int64_t)((1000 / 4.16e9 + 16.8e-6) * 1e12 + 0.5), 1);
    vaced_target_free(t);
}

/* Round-robin over all 86 nodes of paper-1024, skipping the 4-core last node
 * once it is full: rounds 0-3 deal to 86 nodes, rounds 4-11 to 85. */
static void test_round_robin(void)
{
    char text[2048];
    char path[1024];
    snprintf(path, sizeof path, "%s/topo/paper-1024.topo", root);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 64, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    char *m = strstr(text, "mapping");
    CHECK(m != NULL);
    if (!m)
        return;
    strcpy(m, "mapping = round-robin\n");
    struct vaced_target *t = NULL;
    CHECK_EQ_I64(load_text(text, 1024, &t), 0);
    if (!t)
        return;
    long bad = 0, count[86] = {0};
    for (int r = 0; r < 1024; r++) {
        int want = r < 344 ? r % 86 : (r - 344) % 85;
        int node = vaced_target_node_of(t, r);
        bad += node != want;
        if (node >= 0 && node < 86)
            count[node]++;
    }
    CHECK_EQ_I64(bad, 0);
    CHECK_EQ_I64(count[0], 12);
    CHECK_EQ_I64(count[84], 12);
    CHECK_EQ_I64(count[85], 4);
    CHECK_EQ_I64(vaced_target_node_of(t, 85), 85);
    CHECK_EQ_I64(vaced_target_node_of(t, 86), 0);
    CHECK_EQ_I64(vaced_target_node_of(t, 429), 0);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 86), 0);  /* both on node 0 */
    CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 3);   /* nodes 0, 1 */
    CHECK_EQ_I64(vaced_target_hops(t, 0, 16), 5);  /* nodes 0, 16 */
    vaced_target_free(t);
}

static void test_samples(void)
{
    struct vaced_target *t = load_path("tests/unit/topo-cases/good-minimal.topo", 64);
    if (t) {
        CHECK_EQ_U64(vaced_target_eager_threshold(t), 131072); /* default */
        CHECK_EQ_I64(vaced_target_node_of(t, 5), 1);           /* default block */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 3), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 4), 2);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 15), 2);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 16), 4);
        CHECK_EQ_I64(vaced_target_hops(t, 63, 16), 4);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 16, 1000), 1000000 + 1000000 + 400000);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 1000), 100000);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1200000);
        vaced_target_free(t);
    }
    t = load_path("tests/unit/topo-cases/good-crlf.topo", 64);
    if (t) {
        CHECK_EQ_STR(vaced_target_name(t), "crlf case");
        CHECK_EQ_U64(vaced_target_eager_threshold(t), 64000);
        CHECK_EQ_I64(vaced_target_node_of(t, 1), 1);  /* round-robin */
        CHECK_EQ_I64(vaced_target_node_of(t, 16), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 2);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 4), 4);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 16), 0);
        /* 8 Gbit/s = 1e9 B/s; 0.001 ms = 1 us; 1e-7 s = 100 ns */
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 4, 1000), 1000000 + 1000000 + 400000);
        vaced_target_free(t);
    }
}

/* Each shipped bad sample with the exact location and the reason. */
static void test_bad_samples(void)
{
    static const struct {
        const char *file;
        int nranks;
        const char *where, *why;
    } cases[] = {
        {"bad-unknown-key.topo", 4, ":5: ", "unknown key 'colour'"},
        {"bad-missing-bnet.topo", 4, ": ", "missing key 'bnet'"},
        {"bad-duplicate.topo", 4, ":12: ", "duplicate key 'bmem' (first set on line 8)"},
        {"bad-zero.topo", 4, ":10: ", "'latency' must be greater than zero"},
        {"bad-zero-cores.topo", 4, ":3: ", "'cores' must be at least 1"},
        {"bad-negative.topo", 4, ":9: ", "'bnet' must not be negative"},
        {"bad-nonnumeric.topo", 4, ":8: ", "'bmem': expected a bandwidth"},
        {"bad-missing-unit.topo", 4, ":11: ", "'latency_per_hop': missing unit"},
        {"bad-unknown-unit.topo", 4, ":9: ", "unknown unit 'Gb/s'"},
        {"bad-hops-length.topo", 4, ":7: ", "'hops' needs 3 values"},
        {"bad-hops-decreasing.topo", 4, ":7: ", "non-decreasing (2 after 4)"},
        {"bad-hops-negative.topo", 4, ":7: ", "'hops' must not be negative"},
        {"bad-unknown-topology.topo", 4, ":5: ", "unknown topology 'hypercube'"},
        {"bad-unknown-mapping.topo", 4, ":12: ", "unknown mapping 'random'"},
        {"bad-long-line.topo", 4, ":12: ", "line too long"},
        {"bad-no-equals.topo", 4, ":2: ", "expected '=' after key 'name'"},
        {"good-minimal.topo", 65, ":3: ", "64 cores, fewer than the job's 65 ranks"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024], where[1100];
        snprintf(path, sizeof path, "%s/tests/unit/topo-cases/%s", root, cases[i].file);
        struct vaced_target *t = (struct vaced_target *)1;
        int rc = vaced_target_load(path, cases[i].nranks, &t, errbuf, sizeof errbuf);
        CHECK(rc != 0 && t == NULL);
        snprintf(where, sizeof where, "%s%s", path, cases[i].where);
        CHECK_STARTS_WITH(errbuf, where);
        CHECK_CONTAINS(errbuf, cases[i].why);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        root = argv[1];
    test_paper_1024();
    test_paper_16();
    test_round_robin();
    test_samples();
    test_bad_samples();
    return CHECK_REPORT();
}
