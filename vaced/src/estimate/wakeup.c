/* The wake-up correction (wakeup.h): each class's warm and cold segments
 * sorted apart, their medians compared. */
#include <stdlib.h>
#include "estimate/wakeup.h"

#define SPREAD_FLOOR_PS 1000000         /* 1 us: below it, warm instances agree */

struct item {
    uint64_t cls, ps;
    size_t at;
    unsigned char cold;
};

static int by_class(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->cls != y->cls)
        return x->cls < y->cls ? -1 : 1;
    if (x->cold != y->cold)
        return x->cold - y->cold;
    return x->ps < y->ps ? -1 : x->ps > y->ps;
}

static void correct_class(struct vaced_segments *s, const struct item *it, size_t warm, size_t cold,
                          struct vaced_wakeup *w)
{
    const struct item *c = it + warm;
    double sum = 0;
    for (size_t i = 0; i < cold; i++)
        sum += (double)c[i].ps;
    w->cold_ps += sum;
    if (warm < VACED_WAKEUP_MIN_WARM) {
        w->uncorrected_ps += sum;
        return;
    }
    /* the warm instances' inter-decile range: two places of the code in
     * one class (a long segment and a short one) make it wide */
    uint64_t mw = it[warm / 2].ps, spread = it[warm - 1 - warm / 10].ps - it[warm / 10].ps;
    if (spread > mw / 2 && spread > SPREAD_FLOOR_PS) {
        w->uncorrected_ps += sum;
        return;
    }
    uint64_t mc = c[cold / 2].ps;
    if (mc <= mw)
        return;
    uint64_t penalty = mc - mw;
    for (size_t i = 0; i < cold; i++) {
        uint64_t v = c[i].ps;
        if (v <= mw)
            continue;
        uint64_t to = v - mw > penalty ? v - penalty : mw;
        w->removed_ps += (double)(v - to);
        s->ps[c[i].at] = to;
    }
}

int vaced_wakeup_correct(struct vaced_segments *s, struct vaced_wakeup *w)
{
    if (s->n == 0)
        return 0;
    struct item *it = malloc(s->n * sizeof *it);
    if (!it)
        return -1;
    for (size_t i = 0; i < s->n; i++)
        it[i] = (struct item){ s->cls[i], s->ps[i], i, s->cold[i] };
    qsort(it, s->n, sizeof *it, by_class);
    for (size_t i = 0; i < s->n;) {
        size_t j = i, warm = 0;
        while (j < s->n && it[j].cls == it[i].cls)
            warm += !it[j++].cold;
        if (j - i > warm)
            correct_class(s, it + i, warm, j - i - warm, w);
        i = j;
    }
    free(it);
    return 0;
}
