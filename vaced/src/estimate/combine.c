/* Combining executions (combine.h): each rank's segments read from every
 * record, their least or median written into a copy of the first record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/combine.h"
#include "record/log_format.h"
#include "record/log_reader.h"
#include "estimate/segments.h"
#include "record/fail.h"

/* One execution's view of a rank. */
struct rank_segments {
    struct vaced_log log;
    struct vaced_segments seg;
};

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of v[0..m-1] (reordered); the mean of the middle two for an
 * even count. */
static uint64_t median(uint64_t *v, int m)
{
    qsort(v, (size_t)m, sizeof *v, cmp_u64);
    return m % 2 ? v[m / 2] : v[m / 2 - 1] / 2 + v[m / 2] / 2 + (v[m / 2 - 1] % 2 + v[m / 2] % 2) / 2;
}

static uint64_t least(const uint64_t *v, int m)
{
    uint64_t x = v[0];
    for (int i = 1; i < m; i++)
        if (v[i] < x)
            x = v[i];
    return x;
}

static size_t leb_len(const unsigned char *d)
{
    size_t n = 1;
    while (d[n - 1] & 0x80)
        n++;
    return n;
}

/* base's file with its segments re-timed by ps[], into path. */
static int write_rank(const char *path, const struct vaced_log *base, const uint64_t *ps,
                      char *err, size_t len)
{
    size_t cap = base->size + 10 * base->events + 16, n = 0, pos = base->body, k = 0;
    unsigned char *out = malloc(cap);
    if (!out)
        return vaced_fail(err, len, "out of memory for %s", path);
    memcpy(out, base->data, base->body);
    n = base->body;
    struct vaced_log_event e;
    int got;
    while ((got = vaced_log_next(base, &pos, &e, err, len)) == 1) {
        const unsigned char *at = base->data + e.offset;
        if (e.op == VACED_OP_SEGMENT) {
            size_t old = leb_len(at + 1);
            out[n++] = at[0];
            n += vaced_log_put_u(out + n, ps[k++]);
            memcpy(out + n, at + 1 + old, pos - e.offset - 1 - old);
            n += pos - e.offset - 1 - old;
        } else {
            memcpy(out + n, at, pos - e.offset);
            n += pos - e.offset;
        }
    }
    if (got < 0) {
        free(out);
        return -1;
    }
    out[n++] = VACED_OP_TRAILER;
    uint64_t h = vaced_log_hash(VACED_FNV_OFFSET, out, n);     /* through the opcode */
    n += vaced_log_put_u(out + n, base->events);
    for (int i = 0; i < 8; i++)
        out[n++] = (unsigned char)(h >> (8 * i));
    errno = 0;
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(out, 1, n, f) != n;
    if (f && fclose(f))
        bad = 1;
    free(out);
    return bad ? vaced_fail(err, len, "%s: %s", path, strerror(errno ? errno : EIO)) : 0;
}

static int combine_rank(const char *out, const char *const *dirs, int n, int wakeup,
                        enum vaced_combine_stat stat, int rank, struct vaced_combined *res,
                        char *err, size_t len)
{
    struct rank_segments *s = calloc((size_t)n, sizeof *s);
    int opened = 0, rc = -1;
    if (!s)
        return vaced_fail(err, len, "out of memory");
    char path[VACED_LOG_PATH_MAX + 32];
    for (; opened < n; opened++) {
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", dirs[opened], rank);
        if (vaced_log_open(&s[opened].log, path, err, len))
            goto done;
        const struct vaced_log *l = &s[opened].log, *b = &s[0].log;
        if (l->ranks != b->ranks || l->target_hash != b->target_hash || l->flags != b->flags) {
            opened++;
            vaced_fail(err, len, "%s: not an execution of %s's job (its ranks, target or host flags differ)",
                 path, dirs[0]);
            goto done;
        }
        if (vaced_segments_read(&s[opened].log, &s[opened].seg, err, len)) {
            opened++;
            goto done;
        }
        for (size_t k = 0; k < s[opened].seg.n; k++)
            res->compute_ps += (double)s[opened].seg.ps[k];
        if (wakeup && vaced_wakeup_correct(&s[opened].seg, &res->wakeup)) {
            opened++;
            vaced_fail(err, len, "out of memory for %s's wake-up correction", path);
            goto done;
        }
    }
    if (rank == 0)
        res->ranks = (int)s[0].log.ranks;
    int same[VACED_COMBINE_MAX], m = 0;
    for (int i = 0; i < n; i++)
        if (s[i].seg.n == s[0].seg.n && s[i].seg.calls == s[0].seg.calls)
            same[m++] = i;
    if (m > 1) {
        uint64_t v[VACED_COMBINE_MAX];
        for (size_t k = 0; k < s[0].seg.n; k++) {
            for (int i = 0; i < m; i++)
                v[i] = s[same[i]].seg.ps[k];
            s[0].seg.ps[k] = stat == VACED_COMBINE_MIN ? least(v, m) : median(v, m);
        }
        res->combined++;
        res->segments += s[0].seg.n;
        if (res->executions_min == 0 || m < res->executions_min)
            res->executions_min = m;
    }
    snprintf(path, sizeof path, "%s/rank-%06d.vlog", out, rank);
    rc = write_rank(path, &s[0].log, s[0].seg.ps, err, len);
done:
    for (int i = 0; i < opened; i++) {
        vaced_log_close(&s[i].log);
        vaced_segments_free(&s[i].seg);
    }
    free(s);
    return rc;
}

int vaced_combine_records(const char *out, const char *const *dirs, int n, int wakeup,
                          enum vaced_combine_stat stat, struct vaced_combined *res, char *err,
                          size_t len)
{
    *res = (struct vaced_combined){ 0 };
    if (n < 1 || n > VACED_COMBINE_MAX)
        return vaced_fail(err, len, "%d records: combine 1 to %d", n, VACED_COMBINE_MAX);
    int rank = 0;
    do {
        if (combine_rank(out, dirs, n, wakeup, stat, rank, res, err, len))
            return -1;
    } while (++rank < res->ranks);
    return 0;
}
