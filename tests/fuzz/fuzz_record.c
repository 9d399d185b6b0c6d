/* libFuzzer harness for the record reader (record/log_reader.c) and the
 * replay (replay/replay.c) behind it: vaced_replay_run on a one-rank
 * record whose only file, rank-000000.vlog, is the fuzzer's input.
 *
 * Each input is replayed twice:
 *  - as is: the header and trailer checks (a mutated event byte breaks
 *    the trailer's FNV-1a hash, so this rarely gets past them);
 *  - sealed: the input up to its trailer (found as the reader finds it,
 *    ignoring the hash; none: the whole input) with a fresh trailer (the
 *    event count as the reader's own decoder counts them, and the hash),
 *    so that mutated events reach the decoder, the survey and the model.
 * Replayed on topo/paper-16.topo, and a sealed input whose header says the
 * canary's coldness is recorded on topo/localhost.topo too (a target with
 * overhead_coldness, where the coldness feeds the model).
 *
 * A replay must return 0 or -1; on -1 with a terminated, non-empty reason
 * that a small buffer truncates without overflow; on 0 the file must open
 * cleanly.  Anything else aborts, which libFuzzer reports as a crash (the
 * message is on stderr when the reproducer is run without -close_fd_mask).
 * With $VACED_FUZZ_MESSAGES=FILE, each refusal whose reason is not
 * "PATH/rank-000000.vlog: offset N: reason" is appended to FILE (the form
 * docs/replay.md promises; not a crash).  With $VACED_FUZZ_SEAL_TO=FILE,
 * the sealed form of each input is written to FILE (a reproducer that
 * `vaced replay` reads as is).  With $VACED_FUZZ_WRITE_SEEDS=DIR, it writes
 * hand-made minimal records (numbered as log_format.h numbers the opcodes)
 * to DIR and exits.  With $VACED_FUZZ_MAX_RANKS=N, inputs whose
 * header declares more than N ranks are skipped (to fuzz past the known
 * cost of a huge rank count; see tests/fuzz/record-crashes/README.md).
 *
 * Built and run by tests/fuzz/run.sh SECONDS record (clang
 * -fsanitize=fuzzer,address,undefined over all of vaced/src). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, setenv */

#include <ctype.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/log_format.h"
#include "record/log_reader.h"
#include "replay/replay.h"

#ifndef FUZZ_TOPO_DIR
#define FUZZ_TOPO_DIR "topo"
#endif

static char dir[64], file[96], paper[4200], localhost[4200];
static unsigned char *sealed;
static size_t sealed_cap;
static FILE *messages;
static long max_ranks = -1;     /* $VACED_FUZZ_MAX_RANKS; -1: no limit */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
static void write_seeds(const char *to);

static void cleanup(void) /* at a normal exit; a crash leaves the file */
{
    unlink(file);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    strcpy(dir, "/tmp/vaced-fuzz-record-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        exit(2);
    }
    snprintf(file, sizeof file, "%s/rank-000000.vlog", dir);
    const char *topo = getenv("VACED_FUZZ_TOPO_DIR");
    if (!topo || !*topo)
        topo = FUZZ_TOPO_DIR;
    snprintf(paper, sizeof paper, "%s/paper-16.topo", topo);
    snprintf(localhost, sizeof localhost, "%s/localhost.topo", topo);
    if (access(paper, R_OK) || access(localhost, R_OK)) {
        fprintf(stderr, "fuzz_record: %s or %s unreadable (set VACED_FUZZ_TOPO_DIR)\n", paper,
                localhost);
        exit(2);
    }
    atexit(cleanup);
    /* No rank lines, JSON, trace or record of the replay itself. */
    setenv("VACED_QUIET", "all", 1);
    unsetenv("VACED_JSON");
    unsetenv("VACED_TRACE");
    unsetenv("VACED_RECORD");
    unsetenv("VACED_COMPUTE_FROM");
    fflush(stdout);
    int null = open("/dev/null", O_WRONLY);
    if (null < 0 || dup2(null, 1) < 0) {
        perror("/dev/null");
        exit(2);
    }
    close(null);
    const char *lim = getenv("VACED_FUZZ_MAX_RANKS");
    if (lim && *lim)
        max_ranks = strtol(lim, NULL, 10);
    const char *seeds = getenv("VACED_FUZZ_WRITE_SEEDS");
    if (seeds && *seeds) {
        write_seeds(seeds);
        exit(0);
    }
    const char *m = getenv("VACED_FUZZ_MESSAGES");
    if (m && *m && !(messages = fopen(m, "a"))) {
        perror(m);
        exit(2);
    }
    return 0;
}

static void put(const uint8_t *p, size_t n)
{
    FILE *f = fopen(file, "wb");
    if (!f || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        perror(file);
        exit(2);
    }
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "invariant broken: %s\n", what);
        abort();
    }
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* LEB128 at *pos below end, as the reader reads it: 0, or -1. */
static int leb(const uint8_t *d, size_t *pos, size_t end)
{
    for (int shift = 0; shift < 64; shift += 7) {
        if (*pos >= end)
            return -1;
        uint8_t b = d[(*pos)++];
        if (shift == 63 && (b & 0x7e))
            return -1;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

static void grow(size_t n)
{
    if (n > sealed_cap) {
        sealed = realloc(sealed, n);
        check(sealed != NULL, "memory for the sealed input");
        sealed_cap = n;
    }
}

/* The input with a valid trailer, in `sealed`; its size, or 0 when the
 * header leaves no room for events. */
static size_t seal(const uint8_t *d, size_t size)
{
    if (size < VACED_LOG_FIXED_HEADER)
        return 0;
    size_t plen = (size_t)le(d + 40, 2);
    if (plen > VACED_LOG_PATH_MAX || VACED_LOG_FIXED_HEADER + plen > size)
        return 0;
    size_t body = VACED_LOG_FIXED_HEADER + plen, end = size;
    for (size_t n = 1; n <= 10; n++) {   /* the input's own trailer, whatever its hash */
        if (size < body + 1 + n + 8)
            break;
        size_t at = size - 8 - n - 1, p = at + 1;
        if (d[at] == VACED_OP_TRAILER && !leb(d, &p, size - 8) && p == size - 8) {
            end = at;
            break;
        }
    }
    grow(end + 1 + 10 + 8);
    memcpy(sealed, d, end);
    sealed[end] = VACED_OP_TRAILER;

    /* The events as the reader decodes them (its header fields by hand). */
    static struct vaced_log log;
    memset(&log, 0, sizeof log);
    log.path = file;
    log.data = sealed;
    log.size = end + 1;
    log.ranks = (uint32_t)le(d + 16, 4);
    log.flags = (uint32_t)le(d + 20, 4);
    log.body = body;
    log.body_end = end;
    uint64_t count = 0;
    size_t pos = body;
    struct vaced_log_event e;
    char why[512];
    while (vaced_log_next(&log, &pos, &e, why, sizeof why) == 1)
        count++;

    uint64_t hash = vaced_log_hash(VACED_FNV_OFFSET, sealed, end + 1);   /* from the header on */
    size_t n = end + 1;
    do {
        sealed[n++] = (uint8_t)((count & 0x7f) | (count > 0x7f ? 0x80 : 0));
        count >>= 7;
    } while (count);
    for (int i = 0; i < 8; i++)
        sealed[n++] = (uint8_t)(hash >> (8 * i));
    return n;
}

/* A one-rank record (rank 0 of 1, eager threshold 131072, no target
 * hash or path) with `flags` and events `ev`, sealed, as DIR/NAME. */
static void write_seed(const char *to, const char *name, uint32_t flags, const uint8_t *ev,
                       size_t n)
{
    uint8_t d[VACED_LOG_FIXED_HEADER + 64] = "VACEDLOG";
    const uint64_t field[][2] = { { 8, VACED_LOG_VERSION }, { 12, 0 }, { 16, 1 }, { 20, flags },
                                  { 24, 131072 } };
    for (size_t f = 0; f < sizeof field / sizeof field[0]; f++)
        for (int i = 0; i < (f == 4 ? 8 : 4); i++)
            d[field[f][0] + i] = (uint8_t)(field[f][1] >> (8 * i));
    memcpy(d + VACED_LOG_FIXED_HEADER, ev, n);
    size_t len = seal(d, VACED_LOG_FIXED_HEADER + n);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", to, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(sealed, 1, len, f) != len || fclose(f) != 0) {
        perror(path);
        exit(2);
    }
}

/* The least a rank records: vaced_sim_end and the segment it measures;
 * with the coldness's bits; and oversubscribed, one activity with its
 * close's cold flag. */
static void write_seeds(const char *to)
{
    const uint8_t plain[] = { VACED_OP_SIM_END, VACED_OP_SEGMENT, 0 };
    const uint8_t cold[] = { VACED_OP_SIM_END, VACED_OP_SEGMENT, 0, 0 };
    const uint8_t over[] = { VACED_OP_BEGIN, VACED_OP_SEGMENT, 0, VACED_OP_END_ACT,
                             VACED_OP_CLOSE, 0, 1, VACED_OP_SIM_END, VACED_OP_SEGMENT, 0 };
    write_seed(to, "minimal.vlog", 0, plain, sizeof plain);
    write_seed(to, "minimal-coldness.vlog", VACED_LOG_COLDNESS, cold, sizeof cold);
    write_seed(to, "minimal-oversubscribed.vlog", VACED_LOG_OVERSUBSCRIBED, over, sizeof over);
}

/* "FILE: offset N: " at the start of a reason. */
static int well_formed(const char *err)
{
    size_t n = strlen(file);
    if (strncmp(err, file, n) != 0 || strncmp(err + n, ": offset ", 9) != 0)
        return 0;
    const char *p = err + n + 9;
    if (!isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    return p[0] == ':' && p[1] == ' ' && p[2];
}

static void replay(const char *target, int tiny_too)
{
    char err[2048];
    unsigned long long events = 12345;
    memset(err, 'x', sizeof err);
    int rc = vaced_replay_run(dir, target, &events, err, sizeof err);
    check(rc == 0 || rc == -1, "returns 0 or -1");
    if (rc == 0) {
        struct vaced_log log;
        check(vaced_log_open(&log, file, err, sizeof err) == 0, "a replayed file opens cleanly");
        check(events == log.events, "events counted");
        vaced_log_close(&log);
        return;
    }
    check(memchr(err, '\0', sizeof err) != NULL, "message terminated");
    check(err[0] != '\0', "message has a reason");
    if (messages && !well_formed(err)) {
        fprintf(messages, "%s\n", err);
        fflush(messages);
    }
    if (tiny_too) { /* a tiny buffer truncates, never overflows */
        char tiny[8];
        memset(tiny, 'x', sizeof tiny);
        check(vaced_replay_run(dir, target, &events, tiny, sizeof tiny) == -1, "fails again");
        check(memchr(tiny, '\0', sizeof tiny) != NULL, "tiny message terminated");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (max_ranks >= 0 && size >= 20 && le(data + 16, 4) > (uint64_t)max_ranks)
        return -1; /* not added to the corpus */
    size_t n = seal(data, size);
    const char *to = getenv("VACED_FUZZ_SEAL_TO");
    if (to && *to && n > 0) {
        FILE *f = fopen(to, "wb");
        if (!f || fwrite(sealed, 1, n, f) != n || fclose(f) != 0) {
            perror(to);
            exit(2);
        }
    }
    put(data, size);
    replay(paper, 1);
    if (n == 0)
        return 0;
    if (n != size || memcmp(sealed, data, size) != 0) { /* not its own sealed form */
        put(sealed, n);
        replay(paper, 0);
    }
    if (le(sealed + 20, 4) & VACED_LOG_COLDNESS)
        replay(localhost, 0);
    return 0;
}
