/* libFuzzer harness for the target-description loader (vaced_target_load)
 * and, through `mapping = file`, the mapping-file reader.
 *
 * Input: a description; if it holds a line "%%map", what follows that line
 * is written to fuzz.map next to the description (so `mapping = file
 * fuzz.map` reads it). Each input is loaded for 1, 3, 16 and 64 ranks. A load
 * must either fail with "PATH..." in the error buffer and no target, or
 * give a target whose answers keep the documented invariants (hops 0 for
 * one node, symmetric, within 0..1000; transfer times no shorter than the
 * minimum latency); anything else aborts, which libFuzzer reports as a
 * crash. Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,...). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "machine/target.h"

static char dir[64], topo[96], map[96];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void cleanup(void) /* at a normal exit; a crash leaves the files */
{
    unlink(topo);
    unlink(map);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    strcpy(dir, "/tmp/vaced-fuzz-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(topo, sizeof topo, "%s/fuzz.topo", dir);
    snprintf(map, sizeof map, "%s/fuzz.map", dir);
    atexit(cleanup);
    return 0;
}

static void put(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n > 0 && fwrite(p, 1, n, f) != n)) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

/* Offset of the line "%%map\n" (at the start or after a '\n'), or size. */
static size_t split_at(const uint8_t *d, size_t size)
{
    static const char sep[] = "%%map\n";
    size_t n = sizeof sep - 1;
    for (size_t i = 0; i + n <= size; i++)
        if ((i == 0 || d[i - 1] == '\n') && memcmp(d + i, sep, n) == 0)
            return i;
    return size;
}

/* A mapping path with a '/' could leave the fuzz directory and open
 * whatever the machine has (a FIFO would block): keep to the directory. */
static int leaves_dir(const uint8_t *d, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++)
        if (i == n || d[i] == '\n') {
            const uint8_t *line = d + start;
            size_t len = i - start;
            int has_key = 0, has_slash = 0;
            for (size_t j = 0; j < len; j++) {
                has_slash |= line[j] == '/';
                has_key |= j + 7 <= len && memcmp(line + j, "mapping", 7) == 0;
            }
            if (has_key && has_slash)
                return 1;
            start = i + 1;
        }
    return 0;
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "invariant broken: %s\n", what);
        abort();
    }
}

static void check_target(const struct vaced_target *t, int nranks)
{
    int nodes = vaced_target_nodes(t);
    check(vaced_target_nranks(t) == nranks, "nranks");
    check(vaced_target_cores(t) >= nranks, "cores >= nranks");
    check(nodes >= 1, "nodes >= 1");
    check(vaced_target_name(t) && vaced_target_name(t)[0], "name");
    check(vaced_target_eager_threshold(t) > 0, "eager threshold");
    check(vaced_target_copy_time(t, 0) == 0, "copy_time(0)");
    vaced_time_t minlat = vaced_target_min_latency(t);
    check(minlat >= 0, "min latency >= 0");
    for (int x = 0; x < nranks; x++) {
        int nx = vaced_target_node_of(t, x);
        check(nx >= 0 && nx < nodes, "node in range");
        for (int y = 0; y < nranks; y++) {
            int h = vaced_target_hops(t, x, y);
            check(h >= 0 && h <= 1000, "0 <= hops <= 1000");
            check(h == vaced_target_hops(t, y, x), "hops symmetric");
            if (vaced_target_node_of(t, y) == nx)
                check(h == 0, "same node: 0 hops");
            vaced_time_t l = vaced_target_transfer_time(t, x, y, 0);
            check(l >= 0, "transfer time >= 0");
            if (h > 0)
                check(minlat > 0 && l >= minlat, "min latency is a lower bound");
            check(vaced_target_transfer_time(t, x, y, 1u << 20) >= l, "monotone in size");
        }
    }
    check(vaced_target_hops(t, -1, 0) == -1, "rank -1");
    check(vaced_target_hops(t, 0, nranks) == -1, "rank nranks");
    check(vaced_target_node_of(t, nranks) == -1, "node_of(nranks)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t cut = split_at(data, size);
    if (leaves_dir(data, cut))
        return -1; /* not added to the corpus */
    put(topo, data, cut);
    size_t rest = cut < size ? cut + 6 : size;
    put(map, data + rest, size - rest);

    static const int sizes[] = {1, 3, 16, 64}; /* 64: past a node, switch, router */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char err[512];
        struct vaced_target *t = (struct vaced_target *)&err; /* must be overwritten */
        if (vaced_target_load(topo, sizes[i], &t, err, sizeof err) == 0) {
            check(t != NULL, "target on success");
            check_target(t, sizes[i]);
            vaced_target_free(t);
            continue;
        }
        check(t == NULL, "no target on failure");
        check(memchr(err, '\0', sizeof err) != NULL, "message terminated");
        check(strncmp(err, dir, strlen(dir)) == 0, "message starts with a path");
        check(strlen(err) > strlen(topo), "message has a reason");
        if (i == 0) { /* a tiny buffer truncates, never overflows */
            char tiny[8];
            memset(tiny, 'x', sizeof tiny);
            check(vaced_target_load(topo, 1, &t, tiny, sizeof tiny) != 0 && t == NULL,
                  "fails again");
            check(memchr(tiny, '\0', sizeof tiny) != NULL, "tiny message terminated");
        }
    }
    return 0;
}
