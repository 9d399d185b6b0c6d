/* Where a record's computation goes, segment by segment (issue 39's
 * measurement, results/segment-noise.md): every rank's compute segments
 * grouped by the calls around them (a class: the program's steps in the
 * activity before the segment and in the one after), split into warm ones
 * and cold ones (the rank slept in the call before), and the excess of
 * the cold instances and of the outliers over their class's warm median.
 *
 *   cc -O2 -std=gnu11 -Ivaced/include -Ivaced/src -o segstats bench/segstats.c \
 *      vaced/src/replay/log_reader.c -lm
 *   segstats RECORD_DIR [--per-rank]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/log_format.h"
#include "replay/log_reader.h"

struct seg {
    uint64_t cls;
    uint64_t ps;
    int cold;
};

static int by_class_then_ps(const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->cold != y->cold)
        return x->cold - y->cold;
    return x->ps < y->ps ? -1 : x->ps > y->ps;
}

static uint64_t step(uint64_t h, unsigned char token)
{
    return vaced_fnv1a(h, &token, 1);
}

/* The program's steps in an activity, as uniform.c's call sequence
 * counts them, and the wait, test and collective calls. */
static uint64_t add_token(uint64_t h, const struct vaced_log_event *e)
{
    switch (e->op) {
        case VACED_OP_PKT_SENT:
            if (e->kind == VACED_PKT_EAGER || e->kind == VACED_PKT_EAGER_SYNC ||
                e->kind == VACED_PKT_RTS || e->kind == VACED_PKT_SELF)
                return step(h, 's');
            return h;
        case VACED_OP_POSTED:
        case VACED_OP_FOUND: return step(h, 'r');
        case VACED_OP_WAIT_BEGIN: return step(h, 'w');
        case VACED_OP_TEST_FAILED: return step(h, 't');
        case VACED_OP_COLL_BEGIN: return step(h, 'C');
        case VACED_OP_COLL_END: return step(h, 'c');
        case VACED_OP_SLEEP: return step(h, 'z');
        default: return h;
    }
}

struct totals {
    double all, cold, cold_excess, cold_uncorrectable, outlier_excess;
    uint64_t segs, cold_segs, classes, outliers;
};

/* Adds rank's segments (sorted by class, warm first, by length) to t. */
static void rank_totals(struct seg *s, size_t n, struct totals *t)
{
    qsort(s, n, sizeof *s, by_class_then_ps);
    for (size_t i = 0; i < n;) {
        size_t j = i, w = 0;
        while (j < n && s[j].cls == s[i].cls) {
            w += !s[j].cold;
            j++;
        }
        t->classes++;
        double warm_med = w ? (double)s[i + w / 2].ps : 0;
        /* the warm instances' spread: the median absolute deviation */
        double mad = 0;
        if (w >= 5) {
            double *dev = malloc(w * sizeof *dev);
            for (size_t k = 0; k < w; k++)
                dev[k] = s[i + k].ps > warm_med ? s[i + k].ps - warm_med : warm_med - s[i + k].ps;
            for (size_t a = 1; a < w; a++)      /* insertion sort: w is small in most classes */
                for (size_t b = a; b > 0 && dev[b - 1] > dev[b]; b--) {
                    double x = dev[b]; dev[b] = dev[b - 1]; dev[b - 1] = x;
                }
            mad = dev[w / 2];
            free(dev);
        }
        for (size_t k = i; k < j; k++) {
            double ps = (double)s[k].ps;
            t->all += ps;
            t->segs++;
            if (s[k].cold) {
                t->cold += ps;
                t->cold_segs++;
                if (!w)
                    t->cold_uncorrectable += ps;
                else if (ps > warm_med)
                    t->cold_excess += ps - warm_med;
            } else if (w >= 5 && ps > warm_med + 5 * mad + 1e6) {  /* 1 us over */
                t->outliers++;
                t->outlier_excess += ps - warm_med;
            }
        }
        i = j;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: segstats RECORD_DIR [--per-rank]\n");
        return 2;
    }
    int per_rank = argc > 2 && !strcmp(argv[2], "--per-rank");
    struct totals job = { 0 };
    int ranks = 0;
    for (int rank = 0;; rank++, ranks++) {
        char path[4200], err[600];
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", argv[1], rank);
        struct vaced_log log;
        if (vaced_log_open(&log, path, err, sizeof err)) {
            if (rank == 0) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            break;
        }
        size_t n = 0, cap = 1024;
        struct seg *s = malloc(cap * sizeof *s);
        size_t pos = log.body;
        struct vaced_log_event e;
        uint64_t before = VACED_FNV_OFFSET, act = VACED_FNV_OFFSET;
        int fire = 0, cold_next = 0, have = 0;
        uint64_t since_coll = 0, ord_before = 0;
        uint64_t pending_ps = 0;
        int pending_cold = 0;
        while (vaced_log_next(&log, &pos, &e, err, sizeof err) == 1) {
            if (e.op == VACED_OP_FIRE_BEGIN) { fire++; continue; }
            if (e.op == VACED_OP_FIRE_END) { fire -= fire > 0; continue; }
            if (e.op == VACED_OP_SEGMENT) {
                /* the segment before this activity: its class needs the
                 * activity after it, known at the next SEGMENT */
                if (have) {
                    if (n == cap)
                        s = realloc(s, (cap *= 2) * sizeof *s);
                    s[n++] = (struct seg){ (before * 31 + act) * 31 + ord_before, pending_ps, pending_cold };
                }
                ord_before = since_coll < 64 ? since_coll : 64;
                since_coll++;
                before = act;
                act = VACED_FNV_OFFSET;
                pending_ps = e.value;
                pending_cold = cold_next;
                have = 1;
                continue;
            }
            if (e.op == VACED_OP_CLOSE) {
                cold_next = (log.flags & VACED_LOG_OVERSUBSCRIBED) && e.bits;
                continue;
            }
            if (!fire)
                act = add_token(act, &e);
            if (!fire && e.op == VACED_OP_COLL_END)
                since_coll = 0;
        }
        if (have) {
            if (n == cap)
                s = realloc(s, (cap *= 2) * sizeof *s);
            s[n++] = (struct seg){ (before * 31 + act) * 31 + ord_before, pending_ps, pending_cold };
        }
        struct totals t = { 0 };
        rank_totals(s, n, &t);
        if (per_rank)
            printf("rank %d: compute %.6f s, %llu segments, %llu classes, cold %.1f %%, "
                   "cold excess %.6f s, cold without warm %.6f s, outliers %llu (%.6f s)\n",
                   rank, t.all * 1e-12, (unsigned long long)t.segs, (unsigned long long)t.classes,
                   t.all ? 100 * t.cold / t.all : 0, t.cold_excess * 1e-12,
                   t.cold_uncorrectable * 1e-12, (unsigned long long)t.outliers, t.outlier_excess * 1e-12);
        job.all += t.all; job.cold += t.cold; job.cold_excess += t.cold_excess;
        job.cold_uncorrectable += t.cold_uncorrectable; job.outlier_excess += t.outlier_excess;
        job.segs += t.segs; job.cold_segs += t.cold_segs; job.classes += t.classes;
        job.outliers += t.outliers;
        free(s);
        vaced_log_close(&log);
    }
    printf("summed compute %.6f s in %llu segments (%llu classes a rank on average)\n"
           "cold segments %llu (%.1f %% of the compute)\n"
           "cold excess over the class's warm median %.6f s (%.1f %%), %.2f us a cold segment\n"
           "cold compute in classes with no warm instance %.6f s (%.1f %%)\n"
           "warm outliers (> median + 5 MAD + 1 us) %llu, excess %.6f s (%.1f %%)\n",
           job.all * 1e-12, (unsigned long long)job.segs, (unsigned long long)(job.classes / (uint64_t)ranks),
           (unsigned long long)job.cold_segs, job.all ? 100 * job.cold / job.all : 0,
           job.cold_excess * 1e-12, job.all ? 100 * job.cold_excess / job.all : 0,
           job.cold_segs ? job.cold_excess * 1e-6 / job.cold_segs : 0,
           job.cold_uncorrectable * 1e-12, job.all ? 100 * job.cold_uncorrectable / job.all : 0,
           (unsigned long long)job.outliers, job.outlier_excess * 1e-12,
           job.all ? 100 * job.outlier_excess / job.all : 0);
    return 0;
}
