/* Unit tests of `mapping = file PATH`: placement, path resolution, and
 * every error with its exact "file:line: " prefix (the mapping file's
 * lines, or the description's line for a path that cannot be opened).
 * Built and run by `make -C vaced units` (see test_target.c). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "machine/target.h"

static char errbuf[512];

#ifdef VACED_TOPO_DIR
static const char *root = VACED_TOPO_DIR "/..";
#else
static const char *root = ".";
#endif

static char dir[64];      /* a fresh directory for this run's files */
static char topo[128];    /* dir/t.topo */
static char mapf[128];    /* dir/m.map */
#define MAP_LINE 10       /* the description's `mapping` line */

static void put(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(text, 1, len, f) != len) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

/* t.topo with `mapping = MAPPING` on line 10 and the map text in m.map
 * (maptext NULL: m.map removed). cores, cores_per_node and a hierarchy of
 * no levels: every two nodes are 3 hops apart. */
static int load_map(int cores, int per_node, const char *mapping, const char *maptext,
                    int nranks, struct vaced_target **t)
{
    char text[1024];
    snprintf(text, sizeof text,
             "name = m\ncores = %d\ncores_per_node = %d\ntopology = hierarchy\n"
             "hops = 0 3\nbmem = 10 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
             "latency_per_hop = 100 ns\nmapping = %s\n",
             cores, per_node, mapping);
    put(topo, text, strlen(text));
    if (maptext)
        put(mapf, maptext, strlen(maptext));
    else
        unlink(mapf);
    *t = (struct vaced_target *)1;
    return vaced_target_load(topo, nranks, t, errbuf, sizeof errbuf);
}

/* Loading must fail with exactly "where: why" (where = "FILE" or "FILE:LINE"). */
static void expect(const char *where, const char *why)
{
    char want[512];
    snprintf(want, sizeof want, "%s: %s", where, why);
    CHECK_EQ_STR(errbuf, want);
}

static const char *at(const char *file, int line)
{
    static char buf[256];
    snprintf(buf, sizeof buf, "%s:%d", file, line);
    return buf;
}

static void test_placement(void)
{
    struct vaced_target *t;
    /* 10 cores of 4 per node: nodes 0, 1 with 4 cores, node 2 with 2 */
    const char *map = "# rank -> node\n2\n0\n\n   1   # rank 2\n2\r\n";
    CHECK_EQ_I64(load_map(10, 4, "file m.map", map, 4, &t), 0);
    if (t != NULL && t != (struct vaced_target *)1) {
        CHECK_EQ_I64(vaced_target_node_of(t, 0), 2);
        CHECK_EQ_I64(vaced_target_node_of(t, 1), 0);
        CHECK_EQ_I64(vaced_target_node_of(t, 2), 1);
        CHECK_EQ_I64(vaced_target_node_of(t, 3), 2);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 3), 0);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 3);
        vaced_target_free(t);
    }
    /* a smaller job uses the first entries */
    CHECK_EQ_I64(load_map(10, 4, "file m.map", map, 2, &t), 0);
    if (t != NULL && t != (struct vaced_target *)1) {
        CHECK_EQ_I64(vaced_target_node_of(t, 1), 0);
        vaced_target_free(t);
    }
    /* every node filled to its cores, the partial last one included */
    CHECK_EQ_I64(load_map(10, 4, "file\tm.map", "1\n1\n1\n1\n2\n2\n0\n0\n0\n0", 10, &t), 0);
    if (t != NULL && t != (struct vaced_target *)1)
        vaced_target_free(t);

    /* hops follow the map: a 4-node torus ring, ranks on nodes 3 0 2 1 */
    char text[512];
    snprintf(text, sizeof text,
             "name = ring\ncores = 4\ncores_per_node = 1\ntopology = torus3d\n"
             "dims = 4 1 1\nbmem = 10 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
             "latency_per_hop = 100 ns\nmapping = file %s\n", mapf);
    put(topo, text, strlen(text));
    put(mapf, "3\n0\n2\n1\n", 8);
    t = NULL;
    CHECK_EQ_I64(vaced_target_load(topo, 4, &t, errbuf, sizeof errbuf), 0); /* absolute path */
    if (t) {
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 1); /* nodes 3, 0: wrap */
        CHECK_EQ_I64(vaced_target_hops(t, 0, 2), 1); /* 3, 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 1, 2), 2); /* 0, 2 */
        CHECK_EQ_I64(vaced_target_hops(t, 1, 3), 1); /* 0, 1 */
        vaced_target_free(t);
    }
}

static void test_paths(void)
{
    struct vaced_target *t;
    char sub[160], submap[192], cwd[4096];
    snprintf(sub, sizeof sub, "%s/sub", dir);
    snprintf(submap, sizeof submap, "%s/sub/s.map", dir);
    mkdir(sub, 0700);
    put(submap, "0\nx\n", 4);
    /* relative to the description's directory, not the working directory */
    CHECK(load_map(8, 4, "file sub/s.map", "", 2, &t) != 0 && t == NULL);
    expect(at(submap, 2), "expected a node index (one whole number), got 'x'");
    CHECK(load_map(8, 4, "file nope.map", NULL, 2, &t) != 0 && t == NULL);
    char why[256];
    snprintf(why, sizeof why, "cannot open mapping file '%s/nope.map': No such file or directory", dir);
    expect(at(topo, MAP_LINE), why);
    /* a description named without a directory: relative to the cwd */
    if (getcwd(cwd, sizeof cwd) && chdir(dir) == 0) {
        CHECK(vaced_target_load("t.topo", 2, &t, errbuf, sizeof errbuf) != 0);
        CHECK_EQ_STR(errbuf, "t.topo:10: cannot open mapping file 'nope.map': No such file or directory");
        load_map(8, 4, "file sub/s.map", "", 2, &t);
        CHECK(vaced_target_load("t.topo", 2, &t, errbuf, sizeof errbuf) != 0);
        CHECK_EQ_STR(errbuf, "sub/s.map:2: expected a node index (one whole number), got 'x'");
        CHECK(chdir(cwd) == 0);
    }
    /* a directory is opened but cannot be read */
    CHECK(load_map(8, 4, "file sub", "", 2, &t) != 0);
    expect(sub, "read error: Is a directory");
}

static void test_errors(void)
{
    struct vaced_target *t;
    char big[1200];
    const struct {
        const char *map;
        int nranks, line; /* line 0: no line, "m.map: why" */
        const char *why;
    } c[] = {
        {"x\n", 2, 1, "expected a node index (one whole number), got 'x'"},
        {"0\n1 2\n", 2, 2, "expected a node index (one whole number), got '1 2'"},
        {"0\n-1\n", 2, 2, "expected a node index (one whole number), got '-1'"},
        {"0\n+1\n", 2, 2, "expected a node index (one whole number), got '+1'"},
        {"0\n1.0\n", 2, 2, "expected a node index (one whole number), got '1.0'"},
        {"0\n0x1\n", 2, 2, "expected a node index (one whole number), got '0x1'"},
        {"0\nnode 1\n", 2, 2, "expected a node index (one whole number), got 'node 1'"},
        {"# head\n0\n\n  # note\nfoo # c\n", 2, 5, "expected a node index (one whole number), got 'foo'"},
        {"0\n3\n", 2, 2, "rank 1: node 3 is out of range (the target has 3 nodes, 0 to 2)"},
        {"99999999999999999999\n", 2, 1,
         "rank 0: node 99999999999999999999 is out of range (the target has 3 nodes, 0 to 2)"},
        /* entries past the job's ranks are still checked */
        {"0\n1\n2\n7\n", 2, 4, "rank 3: node 7 is out of range (the target has 3 nodes, 0 to 2)"},
        {"0\n1\n2\n0\n1\n2\n0\n1\n2\n0\n1\n", 2, 11, "more entries than the target's 10 cores"},
        {"0\n1\n", 4, 0, "places 2 ranks, fewer than the job's 4"},
        {"0\n", 2, 0, "places 1 rank, fewer than the job's 2"},
        {"", 1, 0, "places 0 ranks, fewer than the job's 1"},
        {"# nothing\n\n", 1, 0, "places 0 ranks, fewer than the job's 1"},
        /* more ranks on a node than its cores; the earliest such rank */
        {"0\n0\n1\n0\n0\n0\n", 6, 6, "rank 5: node 0 is full (4 cores, all taken by lower ranks)"},
        {"2\n2\n2\n", 3, 3, "rank 2: node 2 is full (2 cores, all taken by lower ranks)"},
        {"2\n2\n2\n0\n0\n0\n0\n0\n", 8, 3, "rank 2: node 2 is full (2 cores, all taken by lower ranks)"},
        {"0\n0\n0\n0\n0\n2\n2\n2\n", 8, 5, "rank 4: node 0 is full (4 cores, all taken by lower ranks)"},
        {"0\n\001\n", 2, 2, "control character (byte 0x01)"},
        {"0\n1\x7f\n", 2, 2, "control character (byte 0x7f)"},
        {big, 2, 2, "line too long (more than 1023 characters)"},
    };
    memset(big, '0', sizeof big - 1);
    big[0] = '1';
    big[1] = '\n';
    big[sizeof big - 1] = '\0';
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK(load_map(10, 4, "file m.map", c[i].map, c[i].nranks, &t) != 0 && t == NULL);
        expect(c[i].line > 0 ? at(mapf, c[i].line) : mapf, c[i].why);
    }
    /* a NUL byte */
    put(mapf, "0\n1\0\n", 5);
    char text[512];
    snprintf(text, sizeof text,
             "name = m\ncores = 10\ncores_per_node = 4\ntopology = hierarchy\n"
             "hops = 0 3\nbmem = 10 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
             "latency_per_hop = 100 ns\nmapping = file m.map\n");
    put(topo, text, strlen(text));
    CHECK(vaced_target_load(topo, 2, &t, errbuf, sizeof errbuf) != 0);
    expect(at(mapf, 2), "control character (byte 0x00)");

    /* errors of the mapping value itself, on the description's line */
    CHECK(load_map(10, 4, "file", "0\n", 1, &t) != 0 && t == NULL);
    expect(at(topo, MAP_LINE), "'mapping = file' needs a path (file PATH)");
    CHECK(load_map(10, 4, "file   ", "0\n", 1, &t) != 0);
    expect(at(topo, MAP_LINE), "'mapping = file' needs a path (file PATH)");
    CHECK(load_map(10, 4, "files.map", "0\n", 1, &t) != 0);
    expect(at(topo, MAP_LINE), "unknown mapping 'files.map' (known: block round-robin file)");
    CHECK(load_map(10, 4, "File m.map", "0\n", 1, &t) != 0);
    expect(at(topo, MAP_LINE), "unknown mapping 'File m.map' (known: block round-robin file)");

    /* the description's own errors come before the mapping file is read */
    snprintf(text, sizeof text,
             "name = m\ncores = 10\ncores_per_node = 4\ntopology = torus3d\n"
             "dims = 2 1 1\nbmem = 10 GB/s\nbnet = 1 GB/s\nlatency = 1 us\n"
             "latency_per_hop = 100 ns\nmapping = file m.map\n");
    put(topo, text, strlen(text));
    put(mapf, "x\n", 2);
    CHECK(vaced_target_load(topo, 2, &t, errbuf, sizeof errbuf) != 0);
    expect(at(topo, 5), "'dims': 2 x 1 x 1 holds 2 nodes, fewer than the target's 3 "
                        "(cores / cores_per_node)");
}

/* The shipped samples in tests/unit/topo-cases. */
static void test_samples(void)
{
    char path[1024], map[1100];
    struct vaced_target *t = NULL;
    snprintf(path, sizeof path, "%s/tests/unit/topo-cases/good-torus-mapfile.topo", root);
    CHECK_EQ_I64(vaced_target_load(path, 8, &t, errbuf, sizeof errbuf), 0);
    if (t) {
        CHECK_EQ_STR(errbuf, "");
        CHECK_EQ_I64(vaced_target_node_of(t, 0), 0);
        CHECK_EQ_I64(vaced_target_node_of(t, 1), 7);
        CHECK_EQ_I64(vaced_target_hops(t, 0, 1), 3);  /* (0,0,0) - (1,1,1) */
        CHECK_EQ_I64(vaced_target_hops(t, 1, 2), 2);  /* (1,1,1) - (1,0,0) */
        vaced_target_free(t);
    }
    snprintf(path, sizeof path, "%s/tests/unit/topo-cases/bad-mapfile-range.topo", root);
    CHECK(vaced_target_load(path, 4, &t, errbuf, sizeof errbuf) != 0);
    snprintf(map, sizeof map, "%s/tests/unit/topo-cases/bad-range.map:4: ", root);
    CHECK_STARTS_WITH(errbuf, map);
    CHECK_CONTAINS(errbuf, "rank 2: node 8 is out of range (the target has 8 nodes, 0 to 7)");
}

int main(int argc, char **argv)
{
    if (argc > 1)
        root = argv[1];
    strcpy(dir, "/tmp/vaced-map-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(topo, sizeof topo, "%s/t.topo", dir);
    snprintf(mapf, sizeof mapf, "%s/m.map", dir);
    test_placement();
    test_paths();
    test_errors();
    test_samples();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("note: could not remove %s\n", dir);
    return CHECK_REPORT();
}
