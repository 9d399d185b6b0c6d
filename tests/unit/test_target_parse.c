/* Unit tests of the description parser: units, every error with its
 * "file:line: reason", limits, and a mutation run that must never crash.
 * Needs no files from the repository. Build and run from the repo root:
 *   make -C vaced units && build/vaced/unit/test_target_parse .
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "machine/target.h"
#include "tmptext.h"

/* The base description, one key per line: line i + 1 holds base[i]. */
static const char *const base[][2] = {
    {"name", "t"},
    {"cores", "64"},
    {"cores_per_node", "4"},
    {"topology", "hierarchy"},
    {"hierarchy", "4"},
    {"hops", "0 2 4"},
    {"bmem", "10 GB/s"},
    {"bnet", "1 GB/s"},
    {"latency", "1 us"},
    {"latency_per_hop", "100 ns"},
};
#define NBASE ((int)(sizeof base / sizeof base[0]))

/* The base with key set to val (val NULL: key left out; a key not in the
 * base is appended as line NBASE + 1), loaded for nranks. */
static int load_kv(const char *key, const char *val, int nranks, struct vaced_target **t)
{
    char text[4096] = "";
    int found = 0;
    for (int i = 0; i < NBASE; i++) {
        const char *v = base[i][1];
        if (key && strcmp(key, base[i][0]) == 0) {
            found = 1;
            if (!val)
                continue;
            v = val;
        }
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s = %s\n", base[i][0], v);
    }
    if (key && !found && val)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s = %s\n", key, val);
    return load_text(text, nranks, t);
}

/* key = val must fail with "PATH:line: why" (line 0: "PATH: why"). */
static void expect_err(const char *key, const char *val, int line, const char *why)
{
    struct vaced_target *t = (struct vaced_target *)1;
    int rc = load_kv(key, val, 64, &t);
    CHECK(rc != 0 && t == NULL);
    char want[256];
    if (line > 0)
        snprintf(want, sizeof want, "%s:%d: %s", tmp_path, line, why);
    else
        snprintf(want, sizeof want, "%s: %s", tmp_path, why);
    CHECK_STARTS_WITH(errbuf, want);
}

/* Line of key in the base, or NBASE + 1 when appended. */
static int line_of(const char *key)
{
    for (int i = 0; i < NBASE; i++)
        if (strcmp(key, base[i][0]) == 0)
            return i + 1;
    return NBASE + 1;
}

static void test_bandwidth_units(void)
{
    static const struct {
        const char *unit;
        double bps;
    } u[] = {
        {"B/s", 1},          {"KB/s", 1e3},        {"kB/s", 1e3},          {"MB/s", 1e6},
        {"GB/s", 1e9},       {"TB/s", 1e12},       {"KiB/s", 1024},        {"MiB/s", 1048576},
        {"GiB/s", 1073741824.0}, {"TiB/s", 1099511627776.0}, {"bit/s", 0.125},
        {"Kbit/s", 125},     {"kbit/s", 125},      {"Mbit/s", 125e3},      {"Gbit/s", 125e6},
        {"Tbit/s", 125e9},
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        char v[64];
        snprintf(v, sizeof v, "2 %s", u[i].unit);
        struct vaced_target *t = NULL;
        CHECK_EQ_I64(load_kv("bmem", v, 64, &t), 0);
        if (!t)
            continue;
        double want = 1000.0 / (2 * u[i].bps) * 1e12;
        CHECK_NEAR_I64(vaced_target_copy_time(t, 1000), (int64_t)(want + 0.5),
                       (int64_t)(want * 1e-12) + 1);
        vaced_target_free(t);
    }
}

static void test_time_and_size_units(void)
{
    static const struct {
        const char *val;
        int64_t ps;
    } tm[] = {
        {"3 s", 3000000000000LL}, {"3 ms", 3000000000LL}, {"3 us", 3000000},
        {"3 ns", 3000},           {"3 ps", 3},            {"1.5 us", 1500000},
        {".5 us", 500000},        {"5. us", 5000000},     {"1e3 ns", 1000000},
        {"1E-6 s", 1000000},      {"15us", 15000000},     {"0.6\tus", 600000},
        {"1000 s", 1000000000000000LL},
    };
    for (size_t i = 0; i < sizeof tm / sizeof tm[0]; i++) {
        struct vaced_target *t = NULL;
        CHECK_EQ_I64(load_kv("latency", tm[i].val, 64, &t), 0);
        if (!t)
            continue;
        CHECK_EQ_I64(vaced_target_min_latency(t), tm[i].ps + 2 * 100000);
        vaced_target_free(t);
    }
    static const struct {
        const char *val;
        uint64_t bytes;
    } sz[] = {
        {"2 B", 2},       {"2 KB", 2000},        {"2 kB", 2000},     {"2 MB", 2000000},
        {"2 GB", 2000000000}, {"2 KiB", 2048},   {"2 MiB", 2097152}, {"1 GiB", 1073741824ULL},
        {"1.5 KiB", 1536}, {"128 KiB", 131072},
    };
    for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
        struct vaced_target *t = NULL;
        CHECK_EQ_I64(load_kv("eager_threshold", sz[i].val, 64, &t), 0);
        if (!t)
            continue;
        CHECK_EQ_U64(vaced_target_eager_threshold(t), sz[i].bytes);
        vaced_target_free(t);
    }
}

static void test_value_errors(void)
{
    static const struct {
        const char *key, *val, *why;
    } c[] = {
        {"cores", "12.5", "'cores': expected a whole number, got '12.5'"},
        {"cores", "1e3", "'cores': expected a whole number"},
        {"cores", "99999999999999999999999", "'cores': 99999999999999999999999 is above the limit"},
        {"cores", "3000000000", "'cores': 3000000000 is above the limit of 2147483647"},
        {"cores", "64 cores", "'cores' takes one number"},
        {"cores", "", "'cores' has no value"},
        {"cores", "-4", "'cores' must not be negative"},
        {"cores", "0", "'cores' must be at least 1 (got 0)"},
        {"cores", "many", "'cores': expected a whole number, got 'many'"},
        {"cores_per_node", "0", "'cores_per_node' must be at least 1"},
        {"bnet", "", "'bnet': expected a bandwidth such as 4.16 GB/s, got ''"},
        {"bnet", "inf GB/s", "'bnet': expected a bandwidth"},
        {"bnet", "nan GB/s", "'bnet': expected a bandwidth"},
        {"bnet", "GB/s", "'bnet': expected a bandwidth"},
        {"bnet", "0x10 GB/s", "'bnet': unknown unit 'x10 GB/s'"},
        {"bnet", "1,5 GB/s", "'bnet': unknown unit ',5 GB/s'"},
        {"bnet", "1 GB/s fast", "'bnet': unknown unit 'GB/s fast'"},
        {"bnet", "1 gb/s", "'bnet': unknown unit 'gb/s'"},
        {"bnet", "1 us", "'bnet': unknown unit 'us'"},
        {"bnet", "1e999 GB/s", "'bnet': value out of range"},
        {"bnet", "1e-999 GB/s", "'bnet': value out of range"},
        {"bnet", "0.0 GB/s", "'bnet' must be greater than zero"},
        {"bnet", "-0 GB/s", "'bnet' must not be negative"},
        {"bmem", "4.16", "'bmem': missing unit (expected a bandwidth such as 4.16 GB/s)"},
        {"latency", "2000 s", "'latency' is longer than the limit of 1000 s"},
        {"latency", "0.1 ps", "'latency' is below 1 ps"},
        {"latency", "1 min", "'latency': unknown unit 'min'"},
        {"latency", "1 GB/s", "'latency': unknown unit 'GB/s'"},
        {"latency_per_hop", "0 ns", "'latency_per_hop' must be greater than zero"},
        {"eager_threshold", "0 B", "'eager_threshold' must be greater than zero"},
        {"send_overhead", "-1 us", "'send_overhead' must not be negative"},
        {"send_overhead", "1", "'send_overhead': missing unit"},
        {"recv_overhead", "1 GB/s", "'recv_overhead': unknown unit 'GB/s'"},
        {"recv_overhead", "2000 s", "'recv_overhead' is longer than the limit of 1000 s"},
        {"latency_same_node", "0.1 ps", "'latency_same_node' is below 1 ps"},
        {"latency_same_node", "fast", "'latency_same_node': expected a time such as 15 us"},
        {"eager_threshold", "0.5 B", "'eager_threshold' is not a whole number of bytes"},
        {"eager_threshold", "1e20 B", "'eager_threshold' is too large"},
        {"eager_threshold", "2 GiB", "'eager_threshold' is at most 2147483647 B"},
        {"eager_threshold", "1 us", "'eager_threshold': unknown unit 'us'"},
        {"eager_threshold", "65536", "'eager_threshold': missing unit"},
        {"hops", "0 2 4 6", "'hops' needs 3 values"},
        {"hops", "", "'hops' needs 3 values (hierarchy levels + 2: same node, each level, "
                     "beyond the top level), got 0"},
        {"hops", "1 2 4", "'hops' must start with 0 (same node)"},
        {"hops", "0 2 1001", "'hops': 1001 is above the limit of 1000"},
        {"hops", "0 2 x", "'hops': expected a whole number, got 'x'"},
        {"hops", "0 2 4.0", "'hops': expected a whole number, got '4.0'"},
        {"hops", "0 4 4 -1", "'hops' must not be negative"},
        {"hierarchy", "0", "'hierarchy' must be at least 1 (got 0)"},
        {"hierarchy", "4 -1", "'hierarchy' must not be negative"},
        {"hierarchy", "1 2 3 4 5 6 7 8 9", "'hierarchy' has more than 8 values"},
        {"hierarchy", "abc", "'hierarchy': expected a whole number, got 'abc'"},
        {"hierarchy", "4 2", "'hops' needs 4 values"}, /* reported on the hops line */
        {"topology", "", "unknown topology '' (known: hierarchy torus3d fattree dragonfly)"},
        {"topology", "Hierarchy", "unknown topology 'Hierarchy'"},
        {"mapping", "", "unknown mapping '' (known: block round-robin file)"},
        {"mapping", "Block", "unknown mapping 'Block'"},
        {"name", "", "'name' has no value"},
        {"colour", "blue", "unknown key 'colour'"},
        {"Cores", "64", "unknown key 'Cores'"},
        {"a_very_long_key_name_that_goes_on_and_on", "1",
         "unknown key 'a_very_long_key_name_that_goes_o...'"},
        {"name", "a\001b", "control character (byte 0x01)"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        int line = line_of(c[i].key);
        if (strcmp(c[i].key, "hierarchy") == 0 && strstr(c[i].why, "'hops'"))
            line = line_of("hops");
        expect_err(c[i].key, c[i].val, line, c[i].why);
    }
    /* every required key, left out */
    static const char *const required[] = {"name", "cores", "cores_per_node", "topology",
                                           "hops", "bmem", "bnet", "latency",
                                           "latency_per_hop"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        char why[64];
        snprintf(why, sizeof why, "missing key '%s'", required[i]);
        expect_err(required[i], NULL, 0, why);
    }
    /* hierarchy is optional: no levels, hops = same node, elsewhere */
    expect_err("hierarchy", NULL, line_of("hops") - 1, "'hops' needs 2 values (");
    struct vaced_target *t = NULL;
    CHECK_EQ_I64(load_text("name=a\ncores=8\ncores_per_node=4\ntopology=hierarchy\n"
                           "hops=0 3\nbmem=1 GB/s\nbnet=1 GB/s\nlatency=1 us\n"
                           "latency_per_hop=1 us\n", 8, &t), 0);
    if (t)
        CHECK_EQ_I64(vaced_target_hops(t, 0, 4), 3);
    vaced_target_free(t);
}

static void test_syntax_errors(void)
{
    struct vaced_target *t = (struct vaced_target *)1;
    char want[256];
    static const struct {
        const char *text, *why;
    } c[] = {
        {"name = a\ncores: 4\n", "2: expected '=' after key 'cores'"},
        {"name = a\n1abc = 4\n", "2: expected 'key = value'"},
        {"name = a\n= 4\n", "2: expected 'key = value'"},
        {"name = a\nbmem = 1 GB/s\nbmem = 1 GB/s\n", "3: duplicate key 'bmem' (first set on line 2)"},
        {"", " missing key 'name'"},
        {"# only\n\n   # comments\n", " missing key 'name'"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK(load_text(c[i].text, 4, &t) != 0 && t == NULL);
        snprintf(want, sizeof want, "%s:%s", tmp_path, c[i].why);
        CHECK_STARTS_WITH(errbuf, want);
    }
    /* a NUL byte inside a line */
    CHECK(load_bytes("name = a\nco\0res = 4\n", 20, 4, &t) != 0);
    snprintf(want, sizeof want, "%s:2: control character (byte 0x00)", tmp_path);
    CHECK_STARTS_WITH(errbuf, want);

    /* line length: 1023 characters pass, 1024 do not */
    char text[2200] = "name = a\n#";
    memset(text + 10, 'x', 1022);
    strcpy(text + 1032, "\n");
    CHECK(load_text(text, 4, &t) != 0);
    snprintf(want, sizeof want, "%s: missing key 'cores'", tmp_path);
    CHECK_STARTS_WITH(errbuf, want);
    strcpy(text + 1032, "x\n");
    CHECK(load_text(text, 4, &t) != 0);
    snprintf(want, sizeof want, "%s:2: line too long (more than 1023 characters)", tmp_path);
    CHECK_STARTS_WITH(errbuf, want);
}

static void test_call_errors(void)
{
    struct vaced_target *t = (struct vaced_target *)1;
    CHECK(vaced_target_load("/nonexistent/x.topo", 4, &t, errbuf, sizeof errbuf) != 0);
    CHECK(t == NULL);
    CHECK_EQ_STR(errbuf, "/nonexistent/x.topo: cannot open: No such file or directory");
    CHECK(vaced_target_load("/tmp", 4, &t, errbuf, sizeof errbuf) != 0);
    CHECK_EQ_STR(errbuf, "/tmp: read error: Is a directory");
    CHECK(vaced_target_load(NULL, 4, &t, errbuf, sizeof errbuf) != 0);
    CHECK_CONTAINS(errbuf, "no target description file given");
    CHECK(load_kv(NULL, NULL, 0, &t) != 0);
    snprintf(errbuf + 256, 256, "%s: invalid job size of 0 ranks", tmp_path);
    CHECK_EQ_STR(errbuf, errbuf + 256);
    CHECK(load_kv(NULL, NULL, -5, &t) != 0);
    CHECK_CONTAINS(errbuf, "invalid job size of -5 ranks");
    CHECK(load_kv(NULL, NULL, 65, &t) != 0);
    CHECK_CONTAINS(errbuf, ":2: the target has 64 cores, fewer than the job's 65 ranks");
    CHECK(vaced_target_load("/tmp", 4, NULL, errbuf, sizeof errbuf) != 0);
    /* no or tiny error buffer: still fails cleanly, message truncated */
    CHECK(vaced_target_load("/nonexistent", 4, &t, NULL, 0) != 0);
    char tiny[5] = "abcd";
    CHECK(vaced_target_load("/nonexistent", 4, &t, tiny, sizeof tiny) != 0);
    CHECK_EQ_STR(tiny, "/non");
    /* a file without a final newline is fine */
    const char *text = "name=a\ncores=4\ncores_per_node=2\ntopology=hierarchy\nhops=0 1\n"
                       "bmem=1 GB/s\nbnet=1 GB/s\nlatency=1 us\nlatency_per_hop=1 us";
    t = NULL;
    CHECK_EQ_I64(load_text(text, 4, &t), 0);
    if (t)
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 1);
    vaced_target_free(t);
    vaced_target_free(NULL);
}

/* Mutations of a valid file: whatever the bytes, load either succeeds with
 * sane answers or fails with "PATH..." in errbuf; it never crashes (run this
 * under -fsanitize=address,undefined to make "never" mean something). */
static void test_mutations(void)
{
    static const char good[] =
        "name = fuzz # c\ncores = 64\ncores_per_node = 4\ntopology = hierarchy\n"
        "hierarchy = 4 2\nhops = 0 2 4 6\nbmem = 10 GB/s\nbnet = 1.5e9 B/s\n"
        "latency = 1 us\nlatency_per_hop = 100 ns\neager_threshold = 64 KiB\n"
        "mapping = round-robin\n";
    static const char alphabet[] = "0123456789.eE+- \t=#\n\r\0xKMGiBbs/uncl_";
    uint64_t rng = 42;
    long bad = 0, ok = 0;
    for (int iter = 0; iter < 3000; iter++) {
        char buf[1024];
        size_t len = sizeof good - 1;
        memcpy(buf, good, len);
        int nmut = 1 + iter % 4;
        for (int m = 0; m < nmut; m++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t pos = (size_t)(rng >> 33) % (len + 1);
            unsigned op = (unsigned)(rng >> 20) % 4;
            char ch = (rng >> 40) % 3 ? alphabet[(rng >> 45) % (sizeof alphabet - 1)]
                                      : (char)(rng >> 50);
            if (op == 0 && pos < len)
                buf[pos] = ch;                                  /* replace */
            else if (op == 1 && len < sizeof buf - 1) {
                memmove(buf + pos + 1, buf + pos, len - pos);   /* insert */
                buf[pos] = ch;
                len++;
            } else if (op == 2 && pos < len) {
                memmove(buf + pos, buf + pos + 1, len - pos - 1); /* delete */
                len--;
            } else
                len = pos;                                      /* truncate */
        }
        struct vaced_target *t = NULL;
        int nranks = 1 + iter % 80;
        if (load_bytes(buf, len, nranks, &t) == 0) {
            ok++;
            for (int r = 0; r < nranks; r++)
                if (vaced_target_hops(t, 0, r) < 0 ||
                    vaced_target_transfer_time(t, r, 0, 4096) < 0)
                    bad++;
            vaced_target_free(t);
        } else if (t != NULL || strncmp(errbuf, tmp_path, strlen(tmp_path)) != 0) {
            bad++;
        }
    }
    CHECK_EQ_I64(bad, 0);
    CHECK(ok > 0); /* some mutations (e.g. inside the comment) stay valid */
}

/* The optional per-message keys: 0 when absent or set to 0 (any unit),
 * their value otherwise; latency_same_node adds to L(s, 0) between two
 * ranks, never to a rank's message to itself, nor across the network. */
static void test_optional_message_keys(void)
{
    struct vaced_target *t = NULL;
    CHECK_EQ_I64(load_kv(NULL, NULL, 64, &t), 0);
    if (t) {
        CHECK_EQ_I64(vaced_target_send_overhead(t), 0);
        CHECK_EQ_I64(vaced_target_recv_overhead(t), 0);
        CHECK_EQ_I64(vaced_target_same_node_latency(t), 0);
        vaced_target_free(t);
    }
    static const char *const zeros[] = {"0 us", "0 s", "0.0 ns", "0e3 ps"};
    for (size_t i = 0; i < sizeof zeros / sizeof zeros[0]; i++) {
        t = NULL;
        CHECK_EQ_I64(load_kv("send_overhead", zeros[i], 64, &t), 0);
        if (t) {
            CHECK_EQ_I64(vaced_target_send_overhead(t), 0);
            vaced_target_free(t);
        }
    }
    t = NULL;
    CHECK_EQ_I64(load_text("name = t\ncores = 64\ncores_per_node = 4\ntopology = hierarchy\n"
                           "hierarchy = 4\nhops = 0 2 4\nbmem = 10 GB/s\nbnet = 1 GB/s\n"
                           "latency = 1 us\nlatency_per_hop = 100 ns\nsend_overhead = 2.5 us\n"
                           "recv_overhead = 3 us\nlatency_same_node = 700 ns\n", 64, &t), 0);
    if (t) {
        CHECK_EQ_I64(vaced_target_send_overhead(t), 2500000);
        CHECK_EQ_I64(vaced_target_recv_overhead(t), 3000000);
        CHECK_EQ_I64(vaced_target_same_node_latency(t), 700000);
        /* ranks 0 and 1 share node 0: 1000 B / 10 GB/s + 0.7 us */
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 1, 1000), 800000);
        CHECK_EQ_I64(vaced_target_transfer_time(t, 1, 1, 1000), 100000);
        /* ranks 0 and 4: 2 hops; the same-node latency does not apply */
        CHECK_EQ_I64(vaced_target_transfer_time(t, 0, 4, 1000), 2200000);
        CHECK_EQ_I64(vaced_target_min_latency(t), 1200000);
        vaced_target_free(t);
    }
}

int main(void)
{
    test_optional_message_keys();
    test_bandwidth_units();
    test_time_and_size_units();
    test_value_errors();
    test_syntax_errors();
    test_call_errors();
    test_mutations();
    return CHECK_REPORT();
}
