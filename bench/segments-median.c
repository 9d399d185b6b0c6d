/* segments-median: a copy of a record (VACED_RECORD) whose computation is
 * made uniform across ranks, to tell how much of a prediction comes from
 * the noise of the host's measurements rather than from the program.
 *
 *   segments-median IN_DIR OUT_DIR
 *
 * Ranks that recorded the same number of compute segments ran the same
 * sequence of MPI calls; in each such group, the k-th segment of every
 * rank becomes the median of the group's k-th segments.  Everything else
 * is copied byte for byte; each file gets a new trailer (count and hash,
 * log_format.h).  `vaced replay OUT_DIR --target T` then re-times the
 * execution with that computation.  A program whose ranks do different
 * work in the same call sequence is not uniform, and this says nothing
 * about it.
 *
 * Built by bench/smpi-uniform.sh (or: cc -O2 -Ivaced/include -Ivaced/src
 * bench/segments-median.c vaced/src/replay/log_reader.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "record/log_format.h"
#include "replay/log_reader.h"

struct rank_segs {
    struct vaced_log log;
    uint64_t *ps;               /* its segments' measurements, in order */
    size_t n;
};

static void die(const char *fmt, const char *what)
{
    fprintf(stderr, "segments-median: ");
    fprintf(stderr, fmt, what);
    fputc('\n', stderr);
    exit(1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void put_u(FILE *f, uint64_t v)
{
    do {
        unsigned char b = v & 0x7f;
        v >>= 7;
        fputc(b | (v ? 0x80 : 0), f);
    } while (v);
}

static void read_segments(struct rank_segs *r)
{
    char err[1024];
    size_t pos = r->log.body, cap = 0;
    struct vaced_log_event e;
    int got;
    while ((got = vaced_log_next(&r->log, &pos, &e, err, sizeof err)) == 1) {
        if (e.op != VACED_OP_SEGMENT)
            continue;
        if (r->n == cap) {
            cap = cap ? 2 * cap : 1024;
            if (!(r->ps = realloc(r->ps, cap * sizeof *r->ps)))
                die("%s", "out of memory");
        }
        r->ps[r->n++] = e.value;
    }
    if (got < 0)
        die("%s", err);
}

/* The file with its SEGMENT values from r->ps, a fresh trailer. */
static void write_rank(const struct rank_segs *r, const char *path)
{
    char err[1024];
    FILE *f = fopen(path, "wb");
    if (!f)
        die("cannot write %s", path);
    const unsigned char *d = r->log.data;
    fwrite(d, 1, r->log.body, f);
    size_t pos = r->log.body, k = 0;
    uint64_t events = 0;
    struct vaced_log_event e;
    while (vaced_log_next(&r->log, &pos, &e, err, sizeof err) == 1) {
        events++;
        if (e.op != VACED_OP_SEGMENT) {
            fwrite(d + e.offset, 1, pos - e.offset, f);
            continue;
        }
        /* the opcode, the new value, then what followed the old value */
        size_t after = e.offset + 1;
        while (d[after] & 0x80)
            after++;
        after++;
        fputc(VACED_OP_SEGMENT, f);
        put_u(f, r->ps[k++]);
        fwrite(d + after, 1, pos - after, f);
    }
    long trailer_at = ftell(f);
    fputc(VACED_OP_TRAILER, f);
    put_u(f, events);
    if (fflush(f) || ferror(f))
        die("cannot write %s", path);
    /* the hash covers the whole file through the trailer's opcode */
    long end = ftell(f);
    FILE *back = fopen(path, "rb");
    unsigned char *all = malloc((size_t)end);
    if (!back || !all || fread(all, 1, (size_t)end, back) != (size_t)end)
        die("cannot read back %s", path);
    fclose(back);
    uint64_t h = vaced_log_hash(VACED_FNV_OFFSET, all, (size_t)trailer_at + 1);
    for (int i = 0; i < 8; i++)
        fputc((int)(h >> (8 * i)) & 0xff, f);
    free(all);
    if (fclose(f))
        die("cannot write %s", path);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: segments-median IN_DIR OUT_DIR\n");
        return 2;
    }
    char path[8192], err[1024];
    struct vaced_log first;
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", argv[1], 0);
    if (vaced_log_open(&first, path, err, sizeof err))
        die("%s", err);
    int n = (int)first.ranks;
    vaced_log_close(&first);
    if (mkdir(argv[2], 0777) && errno != EEXIST)
        die("cannot create %s", argv[2]);
    struct rank_segs *rs = calloc((size_t)n, sizeof *rs);
    if (!rs)
        die("%s", "out of memory");
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", argv[1], i);
        if (vaced_log_open(&rs[i].log, path, err, sizeof err))
            die("%s", err);
        read_segments(&rs[i]);
    }
    /* groups by segment count: the k-th segments' median */
    int *done = calloc((size_t)n, sizeof *done);
    uint64_t *col = malloc((size_t)n * sizeof *col);
    if (!done || !col)
        die("%s", "out of memory");
    for (int i = 0; i < n; i++) {
        if (done[i])
            continue;
        int members = 0;
        for (int j = i; j < n; j++)
            members += rs[j].n == rs[i].n;
        for (size_t k = 0; k < rs[i].n; k++) {
            int m = 0;
            for (int j = i; j < n; j++)
                if (rs[j].n == rs[i].n)
                    col[m++] = rs[j].ps[k];
            qsort(col, (size_t)m, sizeof *col, cmp_u64);
            uint64_t med = m % 2 ? col[m / 2] : (col[m / 2 - 1] + col[m / 2]) / 2;
            for (int j = i; j < n; j++)
                if (rs[j].n == rs[i].n)
                    rs[j].ps[k] = med;
        }
        for (int j = i; j < n; j++)
            if (rs[j].n == rs[i].n)
                done[j] = 1;
        printf("ranks with %zu segments: %d\n", rs[i].n, members);
    }
    for (int i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", argv[2], i);
        write_rank(&rs[i], path);
        vaced_log_close(&rs[i].log);
        free(rs[i].ps);
    }
    free(rs);
    free(done);
    free(col);
    return 0;
}
