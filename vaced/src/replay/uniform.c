/* Uniform computation (uniform.h, docs/replay.md#uniform-computation):
 * every rank's k-th compute segment re-timed as the median of the k-th
 * segments of the ranks that made the same sequence of calls. */
#include <stdlib.h>
#include "record/log_format.h"
#include "replay/uniform.h"

void vaced_call_seq_start(struct vaced_call_seq *s)
{
    *s = (struct vaced_call_seq){ VACED_FNV_OFFSET, 0, 0 };
}

static void step(struct vaced_call_seq *s, unsigned char token)
{
    s->hash = vaced_fnv1a(s->hash, &token, 1);
}

void vaced_call_seq_add(struct vaced_call_seq *s, const struct vaced_log_event *e)
{
    switch (e->op) {
        case VACED_OP_FIRE_BEGIN: s->fire_depth++; return;
        case VACED_OP_FIRE_END: s->fire_depth -= s->fire_depth > 0; return;
        default: break;
    }
    if (s->fire_depth)
        return;
    if (e->op == VACED_OP_COLL_BEGIN) {
        if (s->coll_depth++ == 0)
            step(s, 'C');
        return;
    }
    if (e->op == VACED_OP_COLL_END) {
        s->coll_depth -= s->coll_depth > 0;
        return;
    }
    if (s->coll_depth)
        return;
    switch (e->op) {
        case VACED_OP_SLEEP: step(s, 'z'); break;
        case VACED_OP_PKT_SENT:         /* a send the program started, eager or not */
            if (e->kind == VACED_PKT_EAGER || e->kind == VACED_PKT_EAGER_SYNC ||
                e->kind == VACED_PKT_RTS || e->kind == VACED_PKT_SELF)
                step(s, 's');
            break;
        case VACED_OP_POSTED:           /* a receive posted: before its message came, */
        case VACED_OP_FOUND:            /* or after */
            step(s, 'r');
            break;
        default: break;
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int vaced_uniform_segments(struct rank_run *ranks, int size, int *groups)
{
    *groups = 0;
    if (size <= 0)
        return 0;
    char *grouped = calloc((size_t)size, 1);
    int *members = malloc((size_t)size * sizeof *members);
    uint64_t *col = malloc((size_t)size * sizeof *col);
    if (!grouped || !members || !col) {
        free(grouped);
        free(members);
        free(col);
        return -1;
    }
    for (int i = 0; i < size; i++) {
        if (grouped[i])
            continue;
        (*groups)++;
        size_t n = ranks[i].nseg;
        int m = 0;
        for (int j = i; j < size; j++)
            if (!grouped[j] && ranks[j].nseg == n && ranks[j].calls == ranks[i].calls) {
                members[m++] = j;
                grouped[j] = 1;
            }
        for (size_t k = 0; k < n; k++) {
            for (int g = 0; g < m; g++)
                col[g] = ranks[members[g]].seg_ps[k];
            qsort(col, (size_t)m, sizeof *col, cmp_u64);
            uint64_t median = m % 2 ? col[m / 2] : col[m / 2 - 1] / 2 + col[m / 2] / 2 +
                                                   (col[m / 2 - 1] % 2 + col[m / 2] % 2) / 2;
            for (int g = 0; g < m; g++)
                ranks[members[g]].seg_ps[k] = median;
        }
    }
    free(grouped);
    free(members);
    free(col);
    return 0;
}

uint64_t vaced_uniform_value(const struct rank_run *r, size_t offset, uint64_t recorded)
{
    size_t lo = 0, hi = r->nseg;
    while (lo < hi) {                   /* fire blocks read theirs out of order */
        size_t mid = lo + (hi - lo) / 2;
        if (r->seg_off[mid] < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nseg && r->seg_off[lo] == offset ? r->seg_ps[lo] : recorded;
}
