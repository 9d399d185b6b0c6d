/* Unit tests of the hierarchy hop rule beyond the paper's targets and of
 * the network model's corner cases (eq. 4, min_latency, saturation).
 * Needs no files from the repository. Build and run from the repo root:
 *   make -C vaced units && build/vaced/unit/test_netmodel .
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/target.h"
#include "network/overhead.h"
#include "tmptext.h"

/* A hierarchy target of `cores` single-core nodes (so rank = node) with
 * l0 = 10 us, lh = 1 us, Bmem = 1 GB/s, Bnet = 0.5 GB/s unless overridden. */
static struct vaced_target *hier(int cores, const char *hierarchy, const char *hops,
                                 const char *bmem, const char *bnet, const char *lat,
                                 const char *lph)
{
    char text[1024];
    snprintf(text, sizeof text,
             "name = h\ncores = %d\ncores_per_node = 1\ntopology = hierarchy\n"
             "hierarchy = %s\nhops = %s\nbmem = %s\nbnet = %s\nlatency = %s\n"
             "latency_per_hop = %s\n",
             cores, hierarchy, hops, bmem ? bmem : "1 GB/s", bnet ? bnet : "0.5 GB/s",
             lat ? lat : "10 us", lph ? lph : "1 us");
    struct vaced_target *t = NULL;
    if (load_text(text, cores, &t) != 0)
        CHECK_EQ_STR(errbuf, ""); /* shows the load error on one line */
    return t;
}

#define US 1000000LL /* ps */

/* base + extra loaded as a 4-rank target; NULL (the error shown) if it fails. */
static struct vaced_target *load_extra(const char *base, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", base, extra);
    struct vaced_target *t = NULL;
    if (load_text(text, 4, &t) != 0) {
        CHECK_EQ_STR(errbuf, "");
        return NULL;
    }
    return t;
}

/* Two levels: pairs of nodes, groups of 3 pairs, then the rest. */
static void test_two_levels(void)
{
    struct vaced_target *t = hier(12, "2 3", "0 1 2 3", NULL, NULL, NULL, NULL);
    if (!t)
        return;
    long first_bad = -1;
    for (int x = 0; x < 12; x++)
        for (int y = 0; y < 12; y++) {
            int want = x == y ? 0 : x / 2 == y / 2 ? 1 : x / 6 == y / 6 ? 2 : 3;
            if (vaced_target_hops(t, x, y) != want && first_bad < 0)
                first_bad = x * 12 + y;
        }
    CHECK_EQ_I64(first_bad, -1);
    CHECK_EQ_I64(vaced_target_hops(t, 11, 6), 2);
    CHECK_EQ_I64(vaced_target_min_latency(t), 11 * US);
    /* 1000 B over 3 hops: 1000 / 0.5e9 s = 2 us, + 10 us + 3 us */
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 6, 1000), 15 * US);
    vaced_target_free(t);
}

/* A level of 1 adds nothing: its groups are the level below's. */
static void test_degenerate_level(void)
{
    struct vaced_target *t = hier(4, "1 2", "0 1 2 3", NULL, NULL, NULL, NULL);
    if (!t)
        return;
    CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 2);
    CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 3);
    CHECK_EQ_I64(vaced_target_min_latency(t), 12 * US); /* h = 1 never occurs */
    vaced_target_free(t);
}

/* Only levels the target's nodes reach count for min_latency. */
static void test_min_latency_presence(void)
{
    /* 8 nodes, all in one 16-node group: hop 5 never occurs */
    struct vaced_target *t = hier(8, "16", "0 3 5", NULL, NULL, NULL, NULL);
    if (t) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 7), 3);
        CHECK_EQ_I64(vaced_target_min_latency(t), 13 * US);
        vaced_target_free(t);
    }
    /* 1 node: no network at all */
    t = hier(1, "", "0 3", NULL, NULL, NULL, NULL);
    if (t) {
        CHECK_EQ_I64(vaced_target_min_latency(t), 0);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 0, 1000), 1 * US);
        vaced_target_free(t);
    }
    /* level 1 costs 0 hops (a memory copy between nodes), level 2 four */
    t = hier(4, "2", "0 0 4", NULL, NULL, NULL, NULL);
    if (t) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 0);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 1000), 1 * US); /* 1000 B / 1 GB/s */
        CHECK_EQ_I64(vaced_target_min_latency(t), 14 * US);
        vaced_target_free(t);
    }
    /* every hop count 0: min_latency 0 */
    t = hier(4, "", "0 0", NULL, NULL, NULL, NULL);
    if (t) {
        CHECK_EQ_I64(vaced_target_min_latency(t), 0);
        vaced_target_free(t);
    }
}

static void test_rounding_and_saturation(void)
{
    struct vaced_target *t = hier(2, "", "0 3", "6.38 GB/s", "4.16 GB/s", "15 us", "0.6 us");
    if (t) {
        CHECK_EQ_I64(vaced_target_copy_time(t, 1), 157);   /* 156.74 ps */
        CHECK_EQ_I64(vaced_target_copy_time(t, 2), 313);   /* 313.48 ps */
        CHECK_EQ_I64(vaced_target_transfer_time(t, 1, 1, 2), 313);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 1), 240 + 16800000); /* 240.38 */
        vaced_target_free(t);
    }
    t = hier(2, "", "0 1000", "1 B/s", "1 B/s", "1000 s", "1000 s");
    if (t) {
        /* 9e6 B at 1 B/s = 9e18 ps still fits; 1e7 B does not */
        CHECK_EQ_I64(vaced_target_copy_time(t, 9000000), 9000000000000000000LL);
        CHECK_EQ_I64(vaced_target_copy_time(t, 10000000), INT64_MAX);
        CHECK_EQ_I64(vaced_target_copy_time(t, UINT64_MAX), INT64_MAX);
        /* largest latency: 1000 s + 1000 * 1000 s = 1.001e18 ps */
        CHECK_EQ_I64(vaced_target_min_latency(t), 1001000000000000000LL);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 0), 1001000000000000000LL);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 8000000), 9001000000000000000LL);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 8300000), INT64_MAX);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, UINT64_MAX), INT64_MAX);
        vaced_target_free(t);
    }
}

/* bcpu: only between two different ranks of one node, and only when set. */
/* vaced_msg_cost, by value. */
static struct vaced_msg_cost cost(const struct vaced_target *t, int src, int dst, uint64_t bytes,
                                  uint64_t sent)
{
    struct vaced_msg_cost c;
    vaced_msg_cost(t, src, dst, bytes, sent, &c);
    return c;
}

/* bcpu: a same-node transfer keeps the sender's CPU busy s/Bcpu. */
static void test_cpu_time(void)
{
    const char *base = "name = c\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 us\n";
    char text[512];
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "bcpu = 2 GB/s\n")))
        return;
    CHECK_EQ_I64(cost(t, 0, 1, 2000000, 0).cpu, 1000 * US);   /* 2 MB at 2 GB/s */
    CHECK_EQ_I64(cost(t, 3, 2, 2000, 0).cpu, 1 * US);
    CHECK_EQ_I64(cost(t, 1, 2, 2000000, 0).cpu, 0);           /* across nodes */
    CHECK_EQ_I64(cost(t, 1, 1, 2000000, 0).cpu, 0);           /* to itself */
    CHECK_EQ_I64(cost(t, 0, 4, 2000000, 0).cpu, 0);           /* no such rank */
    vaced_target_free(t);
    /* bcpu_factors: Bcpu times f(s), f as bmem_factors' */
    if (!(t = load_extra(base, "bcpu = 2 GB/s\nbcpu_factors = 65536:2 1048576:0.5\n")))
        return;
    CHECK_EQ_I64(cost(t, 0, 1, 2000000, 0).cpu, 2000 * US);   /* 2 MB at 1 GB/s */
    CHECK_EQ_I64(cost(t, 0, 1, 262144, 0).cpu, 104857600);     /* half way in log2: 2.5 GB/s */
    CHECK_EQ_I64(cost(t, 0, 1, 2000, 0).cpu, 500000);          /* 4 GB/s below the points */
    CHECK(vaced_target_bmem_factor(t, 262144) == 1.0);                   /* Bmem keeps its line */
    CHECK_EQ_I64(cost(t, 1, 2, 2000000, 0).cpu, 0);
    vaced_target_free(t);
    t = NULL;
    if (load_text(base, 4, &t) == 0) {
        CHECK_EQ_I64(cost(t, 0, 1, 2000000, 0).cpu, 0);       /* not set */
        vaced_target_free(t);
    } else {
        CHECK_EQ_STR(errbuf, "");
    }
    t = NULL;
    snprintf(text, sizeof text, "%sbcpu = 0 GB/s\n", base);
    CHECK_EQ_I64(load_text(text, 4, &t), -1);
    CHECK(strstr(errbuf, "bcpu") != NULL);
    vaced_target_free(t);
}

/* injection_queue: a rank's messages to other nodes hold its link s/Bnet. */
static void test_wire_time(void)
{
    const char *base = "name = q\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 us\n";
    const char *vals[] = {"yes", "no", NULL};
    for (int i = 0; i < 3; i++) {
        char text[512];
        struct vaced_target *t = NULL;
        snprintf(text, sizeof text, "%s%s%s%s", base, vals[i] ? "injection_queue = " : "",
                 vals[i] ? vals[i] : "", vals[i] ? "\n" : "");
        if (load_text(text, 4, &t) != 0) {
            CHECK_EQ_STR(errbuf, "");
            continue;
        }
        vaced_time_t on = i == 0 ? 2000 * US : 0;
        CHECK_EQ_I64(cost(t, 1, 2, 2000000, 0).wire, on);   /* 2 MB at 1 GB/s */
        CHECK_EQ_I64(cost(t, 0, 1, 2000000, 0).wire, 0);    /* same node */
        CHECK_EQ_I64(cost(t, 1, 2, 0, 0).wire, 0);          /* a handshake */
        vaced_target_free(t);
    }
    char text[512];
    struct vaced_target *t = NULL;
    snprintf(text, sizeof text, "%sinjection_queue = maybe\n", base);
    CHECK_EQ_I64(load_text(text, 4, &t), -1);
    CHECK(strstr(errbuf, "injection_queue' is yes or no, not 'maybe'") != NULL);
    vaced_target_free(t);
}

/* Each of bad[i][0], added to base, is refused with a message holding bad[i][1]. */
static void check_rejected(const char *base, const char *const bad[][2], size_t n)
{
    char text[640];
    for (size_t i = 0; i < n; i++) {
        struct vaced_target *t = NULL;
        snprintf(text, sizeof text, "%s%s", base, bad[i][0]);
        CHECK_EQ_I64(load_text(text, 4, &t), -1);
        CHECK(strstr(errbuf, bad[i][1]) != NULL);
        if (!strstr(errbuf, bad[i][1]))
            fprintf(stderr, "  case %zu: %s\n", i, errbuf);
        vaced_target_free(t);
    }
}

/* net_warmup_messages: the first messages of each connection across nodes move at
 * bnet_warmup; the time beyond s/Bnet is what the model adds. */
static void test_warmup_time(void)
{
    const char *base = "name = w\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 us\n";
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "net_warmup_messages = 3\nbnet_warmup = 0.5 GB/s\n")))
        return;
    CHECK_EQ_I64(vaced_target_net_warmup(t), 3);
    /* 2 MB at 0.5 GB/s: 4 ms instead of 2 ms, for the first 3 messages */
    CHECK_EQ_I64(cost(t, 1, 2, 2000000, 0).warmup, 2000 * US);
    CHECK_EQ_I64(cost(t, 1, 2, 2000000, 2).warmup, 2000 * US);
    CHECK_EQ_I64(cost(t, 1, 2, 2000000, 3).warmup, 0);         /* warm */
    CHECK_EQ_I64(cost(t, 1, 2, 1000, 2).warmup, 1 * US);       /* any size */
    CHECK_EQ_I64(cost(t, 1, 2, 0, 0).warmup, 0);               /* a handshake */
    CHECK(!vaced_target_warms_up(t, 0));
    CHECK(vaced_target_warms_up(t, 1));
    CHECK_EQ_I64(cost(t, 0, 1, 2000000, 0).warmup, 0);         /* same node */
    CHECK_EQ_I64(cost(t, 0, 4, 2000000, 0).warmup, 0);         /* no such rank */
    vaced_target_free(t);

    t = NULL;
    if (load_text(base, 4, &t) == 0) {
        CHECK_EQ_I64(vaced_target_net_warmup(t), 0);
        CHECK(!vaced_target_warms_up(t, 2000000));
        CHECK_EQ_I64(cost(t, 1, 2, 2000000, 0).warmup, 0);    /* not set */
        vaced_target_free(t);
    } else {
        CHECK_EQ_STR(errbuf, "");
    }
    const char *bad[][2] = {
        {"net_warmup_messages = 8\n", "'net_warmup_messages' and 'bnet_warmup' go together: 'bnet_warmup' is missing"},
        {"bnet_warmup = 1 GB/s\n", "'net_warmup_messages' and 'bnet_warmup' go together: 'net_warmup_messages' is missing"},
        {"net_warmup_messages = 8\nbnet_warmup = 2 GB/s\n", "'bnet_warmup' (2e+09 B/s) is above 'bnet'"},
        {"net_warmup_messages = 8\nbnet_warmup = 0 GB/s\n", "bnet_warmup"},
        {"net_warmup_messages = 8 MB\nbnet_warmup = 1 GB/s\n", "'net_warmup_messages' takes one number"},
        {"net_warmup_messages = 0\nbnet_warmup = 1 GB/s\n", "'net_warmup_messages' must be at least 1"},
        {"net_warmup = 8 MB\nbnet_warmup = 1 GB/s\n", "net_warmup"},
        {"net_warmup_min = 1 MB\n", "'net_warmup_min' needs 'net_warmup_messages' and 'bnet_warmup'"},
        {"net_warmup_messages = 8\nbnet_warmup = 1 GB/s\nnet_warmup_min = lots\n", "net_warmup_min"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* net_warmup_min: smaller messages neither pay for nor use up the warm-up. */
static void test_warmup_min(void)
{
    const char *base = "name = w\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
                       "latency_per_hop = 1 us\nnet_warmup_messages = 8\nbnet_warmup = 0.5 GB/s\n";
    struct vaced_target *t;
    if (!(t = load_extra(base, "net_warmup_min = 256 KiB\n")))
        return;
    CHECK(!vaced_target_warms_up(t, 262143));
    CHECK(vaced_target_warms_up(t, 262144));
    CHECK_EQ_I64(cost(t, 1, 2, 262143, 0).warmup, 0);
    CHECK_EQ_I64(cost(t, 1, 2, 1000000, 7).warmup, 1000 * US);
    vaced_target_free(t);
    /* 0 B, as vaced-calibrate --warmup-min 0 writes it: every message with
     * data warms up, as without the key; an empty one does not */
    if (!(t = load_extra(base, "net_warmup_min = 0 B\n")))
        return;
    CHECK(vaced_target_warms_up(t, 1));
    CHECK(!vaced_target_warms_up(t, 0));
    vaced_target_free(t);
}

/* calibrated_max: sizes above it are flagged as extrapolated; without the
 * key nothing is; a value that is no size is rejected. */
static void test_calibrated_max(void)
{
    const char *base = "name = c\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
                       "latency_per_hop = 1 us\n";
    struct vaced_target *t;
    if (!(t = load_extra(base, "calibrated_max = 32 MiB\n")))
        return;
    CHECK(!vaced_target_uncalibrated(t, 0));
    CHECK(!vaced_target_uncalibrated(t, 32 << 20));
    CHECK(vaced_target_uncalibrated(t, (32 << 20) + 1));
    vaced_target_free(t);
    if (!(t = load_extra(base, "")))
        return;
    CHECK(!vaced_target_uncalibrated(t, UINT64_C(1) << 40));
    vaced_target_free(t);
    const char *const bad[][2] = {
        {"calibrated_max = lots\n", "calibrated_max"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* bnet_factors: Bnet times f(s), f linear in log2(s) between the points and
 * constant beyond them; transfer and wire times both use it. */
static void test_size_factors(void)
{
    const char *base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 ps\ninjection_queue = yes\n";
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "bnet_factors = 4096:2 16384:0.5  1048576:1\n")))
        return;
    CHECK(vaced_target_bnet_factor(t, 100) == 2.0);          /* below the first point */
    CHECK(vaced_target_bnet_factor(t, 4096) == 2.0);
    CHECK(fabs(vaced_target_bnet_factor(t, 8192) - 1.25) < 1e-12); /* half way in log2 */
    CHECK(vaced_target_bnet_factor(t, 16384) == 0.5);
    CHECK(fabs(vaced_target_bnet_factor(t, 131072) - 0.75) < 1e-12);
    CHECK(vaced_target_bnet_factor(t, 1 << 30) == 1.0);      /* above the last */
    /* the library's own log2 (it keeps off libm) against libm's */
    double worst = 0;
    for (uint64_t s = 16385; s < 1048576; s = s * 1.37 + 11) {
        double want = 0.5 + 0.5 * (log2((double)s) - 14) / 6;
        double d = fabs(vaced_target_bnet_factor(t, s) - want);
        worst = d > worst ? d : worst;
    }
    CHECK(worst < 1e-12);
    /* 4000 B at 2 GB/s = 2 us, + 1 us + 1 ps latency; 16384 B at 0.5 GB/s = 32.768 us */
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 2, 4000), 3 * US + 1);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 2, 16384), 33768001);
    CHECK_EQ_I64(cost(t, 0, 2, 16384, 0).wire, 32768000);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 16384), 4096000); /* same node: Bmem */
    vaced_target_free(t);

    const char *bad[][2] = {
        {"bnet_factors =\n", "'bnet_factors' has no value"},
        {"bnet_factors = 4096\n", "expected SIZE:FACTOR"},
        {"bnet_factors = 4 KiB:2\n", "expected SIZE:FACTOR"},
        {"bnet_factors = 4096:x\n", "expected SIZE:FACTOR"},
        {"bnet_factors = 4096:0x1\n", "expected SIZE:FACTOR"},          /* strtod would take hex */
        {"bnet_factors = 0:1\n", "expected SIZE:FACTOR"},
        {"bnet_factors = 4096:0\n", "the factor in '4096:0' is outside 0.01-100"},
        {"bnet_factors = 4096:2 4096:1\n", "sizes must increase (4096 after 4096)"},
        {"bnet_factors = 8192:2 4096:1\n", "sizes must increase"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* send_overhead_factors, recv_overhead_factors: the overheads by the
 * computation before the MPI call, f linear in it between the points (0
 * allowed) and constant beyond them; each needs its base overhead. */
static void test_overhead_factors(void)
{
    const char *base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 ps\nsend_overhead = 8 us\n"
                       "recv_overhead = 6 us\n";
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "send_overhead_factors = 0:0.5 100:1.5 300:2\n")))
        return;
    CHECK(vaced_target_send_overhead_factor(t, 0) == 0.5);
    CHECK(fabs(vaced_target_send_overhead_factor(t, 50 * US) - 1.0) < 1e-12);
    CHECK(fabs(vaced_target_send_overhead_factor(t, 200 * US) - 1.75) < 1e-12);
    CHECK(vaced_target_send_overhead_factor(t, 5000 * US) == 2.0);
    CHECK(vaced_target_recv_overhead_factor(t, 50 * US) == 1.0);    /* none listed */
    CHECK_EQ_I64(vaced_target_send_overhead(t), 8 * US);            /* the base stays */
    vaced_target_free(t);

    const char *bad[][2] = {
        {"recv_overhead_factors = 10\n", "'recv_overhead_factors': expected MICROSECONDS:FACTOR"},
        {"recv_overhead_factors = 10 us:1\n", "expected MICROSECONDS:FACTOR"},
        {"send_overhead_factors = 0:1 0:2\n", "times must increase (0 after 0)"},
        {"send_overhead_factors = 10:200\n", "the factor in '10:200' is outside 0.01-100"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
    const char *no_base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                          "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                          "latency = 1 us\nlatency_per_hop = 1 ps\n";
    const char *bad_base[][2] = {
        {"recv_overhead_factors = 0:1\n",
         "'recv_overhead_factors' scales 'recv_overhead', which is missing or 0"},
    };
    check_rejected(no_base, bad_base, 1);
}

/* overhead_coldness: the calibration's computation time at which the
 * canary was as cold as a program's computation left it, interpolated
 * linearly, the first or last point's beyond them; a plateau gives its
 * first time. */
static void test_overhead_coldness(void)
{
    const char *base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 ps\nsend_overhead = 8 us\n";
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "send_overhead_factors = 0:0.5 300:2\n")))
        return;
    CHECK(!vaced_target_has_coldness(t));
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 5.0), -1);
    vaced_target_free(t);
    if (!(t = load_extra(base, "overhead_coldness = 0:1 10:3 30:3 100:21 300:41\n")))
        return;
    CHECK(vaced_target_has_coldness(t));
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 0.9), 0);
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 1.0), 0);
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 2.0), 5 * US);
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 3.0), 10 * US);     /* the plateau's first */
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 12.0), 65 * US);
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 31.0), 200 * US);
    CHECK_EQ_I64(vaced_target_coldness_compute(t, 140.0), 300 * US);
    vaced_target_free(t);

    const char *bad[][2] = {
        {"overhead_coldness = 0:1 100:0.5\n",
         "'overhead_coldness': the coldness must not decrease with the computation (0.5 at 100 us after 1)"},
        {"overhead_coldness = 0:1 0:2\n", "'overhead_coldness': times must increase (0 after 0)"},
        {"overhead_coldness = 100\n", "'overhead_coldness': expected MICROSECONDS:"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* bmem_factors: copies and same-node transfers, not the link */
static void test_bmem_factors(void)
{
    const char *base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 ps\nlatency_same_node = 2 us\n";
    struct vaced_target *t = NULL;
    if (!(t = load_extra(base, "bmem_factors = 65536:2 1048576:0.5\n")))
        return;
    CHECK(vaced_target_bmem_factor(t, 8) == 2.0);
    CHECK(fabs(vaced_target_bmem_factor(t, 262144) - 1.25) < 1e-12); /* half way in log2 */
    CHECK(vaced_target_bmem_factor(t, 1 << 30) == 0.5);
    CHECK(vaced_target_bnet_factor(t, 65536) == 1.0);                  /* Bnet keeps its line */
    /* 65536 B at 8 GB/s = 8.192 us; 1 MiB at 2 GB/s = 524.288 us */
    CHECK_EQ_I64(vaced_target_copy_time(t, 65536), 8192000);
    CHECK_EQ_I64(vaced_target_copy_time(t, 1048576), 524288000);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 65536), 8192000 + 2 * US);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 1, 1, 1048576), 524288000);
    CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 2, 65536), 65536000 + US + 1); /* across: Bnet */
    vaced_target_free(t);

    const char *bad[][2] = {
        {"bmem_factors = 65536\n", "'bmem_factors': expected SIZE:FACTOR"},
        {"bmem_factors = 65536:200\n", "'bmem_factors': the factor in '65536:200' is outside 0.01-100"},
        {"bmem_factors = 65536:2 1024:1\n", "'bmem_factors': sizes must increase (1024 after 65536)"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* wakeup_latency, wakeup_after, wakeup_ramp: a step, or a linear ramp */
static void test_wakeup(void)
{
    const char *base = "name = f\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 ps\n";
    struct vaced_target *t = NULL;
    CHECK_EQ_I64(load_text(base, 4, &t), 0);
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 1000 * US), 0);      /* the paper's model: none */
    vaced_target_free(t);
    if (!(t = load_extra(base, "wakeup_latency = 10 us\nwakeup_after = 20 us\n")))
        return;
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 20 * US), 0);        /* not longer than wakeup_after */
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 20 * US + 1), 10 * US);
    CHECK_EQ_I64(vaced_target_wakeup_time(t, -5 * US), 0);
    vaced_target_free(t);
    if (!(t = load_extra(base, "wakeup_latency = 10 us\nwakeup_after = 20 us\nwakeup_ramp = 4 us\n")))
        return;
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 20 * US), 0);
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 21 * US), 2500000);    /* a quarter of the ramp */
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 22 * US), 5 * US);
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 24 * US), 10 * US);
    CHECK_EQ_I64(vaced_target_wakeup_time(t, 1000 * US), 10 * US);
    vaced_target_free(t);

    const char *bad[][2] = {
        {"wakeup_latency = 10 us\n", "'wakeup_latency' and 'wakeup_after' go together: 'wakeup_after' is missing"},
        {"wakeup_after = 10 us\n", "'wakeup_latency' and 'wakeup_after' go together: 'wakeup_latency' is missing"},
        {"wakeup_ramp = 10 us\n", "'wakeup_ramp' needs 'wakeup_latency' and 'wakeup_after'"},
        {"wakeup_latency = 10\nwakeup_after = 1 us\n", "wakeup_latency"},
        {"wakeup_latency = 10 us\nwakeup_after = -1 us\n", "wakeup_after"},
    };
    check_rejected(base, bad, sizeof bad / sizeof bad[0]);
}

/* vaced_msg_cost: every term of one message at once, each worked out by
 * hand on a 2-node target with every cost key set (Bmem 4 GB/s, Bnet
 * 1 GB/s, Bcpu 2 GB/s, l0 = lh = 1 us, 0.5 us on one node, a 3-message
 * warm-up at 0.5 GB/s, the injection queue). */
static void test_msg_cost(void)
{
    const char *base = "name = m\ncores = 4\ncores_per_node = 2\ntopology = hierarchy\n"
                       "hierarchy =\nhops = 0 1\nbmem = 4 GB/s\nbnet = 1 GB/s\n"
                       "latency = 1 us\nlatency_per_hop = 1 us\n";
    struct vaced_target *t = load_extra(base, "bcpu = 2 GB/s\nlatency_same_node = 0.5 us\n"
                                              "net_warmup_messages = 3\nbnet_warmup = 0.5 GB/s\n"
                                              "injection_queue = yes\n");
    if (!t)
        return;
    struct vaced_msg_cost c;
    /* across nodes, 2 MB, second message of a cold connection */
    vaced_msg_cost(t, 1, 2, 2000000, 1, &c);
    CHECK_EQ_I64(c.hops, 1);
    CHECK_EQ_I64(c.copy, 500 * US);                     /* 2 MB at 4 GB/s */
    CHECK_EQ_I64(c.cpu, 0);                             /* not on one node */
    CHECK_EQ_I64(c.latency, 2 * US);                    /* l0 + 1 lh */
    CHECK_EQ_I64(c.transfer, 2000 * US + 2 * US);       /* s/Bnet + l(1) */
    CHECK_EQ_I64(c.warmup, 2000 * US);                  /* at 0.5 GB/s: 4 ms, not 2 */
    CHECK_EQ_I64(c.wire, 2000 * US);
    /* the same once warm, and past the warm-up (UINT64_MAX) */
    vaced_msg_cost(t, 1, 2, 2000000, 3, &c);
    CHECK_EQ_I64(c.warmup, 0);
    vaced_msg_cost(t, 1, 2, 2000000, UINT64_MAX, &c);
    CHECK_EQ_I64(c.warmup, 0);
    CHECK_EQ_I64(c.transfer, 2002 * US);
    /* a handshake across nodes: latency only, no wire, no warm-up */
    vaced_msg_cost(t, 2, 1, 0, 0, &c);
    CHECK_EQ_I64(c.copy, 0);
    CHECK_EQ_I64(c.transfer, 2 * US);
    CHECK_EQ_I64(c.warmup, 0);
    CHECK_EQ_I64(c.wire, 0);
    /* on one node: s/Bmem and the same-node latency, the CPU's share */
    vaced_msg_cost(t, 0, 1, 2000000, 0, &c);
    CHECK_EQ_I64(c.hops, 0);
    CHECK_EQ_I64(c.cpu, 1000 * US);                     /* 2 MB at 2 GB/s */
    CHECK_EQ_I64(c.latency, US / 2);
    CHECK_EQ_I64(c.transfer, 500 * US + US / 2);
    CHECK_EQ_I64(c.warmup, 0);
    CHECK_EQ_I64(c.wire, 0);
    /* to itself: a copy, no latency, no CPU share */
    vaced_msg_cost(t, 3, 3, 2000000, 0, &c);
    CHECK_EQ_I64(c.latency, 0);
    CHECK_EQ_I64(c.cpu, 0);
    CHECK_EQ_I64(c.transfer, 500 * US);
    /* a rank out of range: no route */
    vaced_msg_cost(t, 0, 4, 1000, 0, &c);
    CHECK_EQ_I64(c.hops, -1);
    CHECK_EQ_I64(c.transfer, -1);
    /* the copy, the transfer and the latency as the one-term functions give them */
    for (int src = 0; src < 4; src++)
        for (int dst = 0; dst < 4; dst++)
            for (uint64_t s = 0; s <= 4000000; s = s ? s * 4 : 1) {
                vaced_msg_cost(t, src, dst, s, 0, &c);
                CHECK_EQ_I64(c.copy, vaced_target_copy_time(t, s));
                CHECK_EQ_I64(c.transfer, vaced_target_transfer_time(t, src, dst, s));
                CHECK_EQ_I64(c.latency, vaced_target_transfer_time(t, src, dst, 0));
            }
    vaced_target_free(t);
}

int main(void)
{
    test_msg_cost();
    test_warmup_time();
    test_warmup_min();
    test_calibrated_max();
    test_size_factors();
    test_bmem_factors();
    test_overhead_factors();
    test_overhead_coldness();
    test_wakeup();
    test_cpu_time();
    test_wire_time();
    test_two_levels();
    test_degenerate_level();
    test_min_latency_presence();
    test_rounding_and_saturation();
    return CHECK_REPORT();
}
