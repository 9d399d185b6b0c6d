/* Where a record's computation goes, segment by segment (issue 39's
 * measurement, results/segment-noise.md): every rank's compute segments
 * in their classes (vaced/src/estimate/segments.h), warm and cold (the
 * rank slept in the call before), what the wake-up correction takes off
 * and leaves, and the warm outliers (stalls: beyond their class's warm
 * median by five median deviations and 1 us).
 *
 *   cc -O2 -std=gnu11 -Ivaced/include -Ivaced/src -o segstats bench/segstats.c \
 *      vaced/src/estimate/segments.c vaced/src/estimate/wakeup.c \
 *      vaced/src/record/log_reader.c vaced/src/replay/uniform.c -lm
 *   segstats RECORD_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "estimate/segments.h"
#include "estimate/wakeup.h"

struct item {
    uint64_t cls, ps;
};

static int by_class(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    return x->ps < y->ps ? -1 : x->ps > y->ps;
}

/* The warm segments' outliers: how many, and their excess (ps). */
static void outliers(const struct vaced_segments *s, uint64_t *classes, uint64_t *n, double *excess)
{
    struct item *it = malloc(s->n * sizeof *it), *dev = malloc(s->n * sizeof *dev);
    size_t m = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!s->cold[i])
            it[m++] = (struct item){ s->cls[i], s->ps[i] };
    qsort(it, m, sizeof *it, by_class);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && it[j].cls == it[i].cls)
            j++;
        ++*classes;
        if (j - i >= 5) {
            uint64_t med = it[i + (j - i) / 2].ps;
            for (size_t k = i; k < j; k++)
                dev[k - i] = (struct item){ 0, it[k].ps > med ? it[k].ps - med : med - it[k].ps };
            qsort(dev, j - i, sizeof *dev, by_class);
            uint64_t mad = dev[(j - i) / 2].ps;
            for (size_t k = i; k < j; k++)
                if (it[k].ps > med + 5 * mad + 1000000) {
                    ++*n;
                    *excess += (double)(it[k].ps - med);
                }
        }
        i = j;
    }
    free(it);
    free(dev);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: segstats RECORD_DIR\n");
        return 2;
    }
    double all = 0, excess = 0;
    uint64_t segs = 0, cold = 0, classes = 0, n_out = 0;
    struct vaced_wakeup w = { 0 };
    int ranks = 0;
    for (;; ranks++) {
        char path[4200], err[4600];
        struct vaced_log log;
        struct vaced_segments s;
        snprintf(path, sizeof path, "%s/rank-%06d.vlog", argv[1], ranks);
        if (vaced_log_open(&log, path, err, sizeof err)) {
            if (ranks > 0)
                break;
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        if (vaced_segments_read(&log, &s, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        for (size_t i = 0; i < s.n; i++) {
            all += (double)s.ps[i];
            cold += s.cold[i];
        }
        segs += s.n;
        outliers(&s, &classes, &n_out, &excess);
        if (vaced_wakeup_correct(&s, &w)) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        vaced_segments_free(&s);
        vaced_log_close(&log);
    }
    all = all > 0 ? all : 1;
    printf("%d ranks: summed compute %.6f s in %llu segments, %.1f classes a rank with warm segments\n"
           "cold: %llu segments, %.1f %% of the compute; the wake-up correction takes off %.1f %%, "
           "leaves %.1f %% uncorrected\n"
           "warm outliers: %llu, excess over their class's median %.1f %% of the compute\n",
           ranks, all * 1e-12, (unsigned long long)segs, (double)classes / ranks,
           (unsigned long long)cold, 100 * w.cold_ps / all, 100 * w.removed_ps / all,
           100 * w.uncorrected_ps / all, (unsigned long long)n_out, 100 * excess / all);
    return 0;
}
