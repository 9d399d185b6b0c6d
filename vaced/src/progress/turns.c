/* The receiving CPU's turns (turns.h). */
#include <stdlib.h>
#include "progress/turns.h"

int vaced_turns_add(struct vaced_turns *q, vaced_time_t start, vaced_time_t work)
{
    if (q->count == q->cap) {
        /* a few to start: a replay keeps one queue a rank, whose pages
         * it first touches */
        unsigned cap = q->cap ? 2 * q->cap : 8;
        struct vaced_turn *items = realloc(q->items, cap * sizeof *items);
        if (!items)
            return -1;
        q->items = items;
        q->cap = cap;
    }
    q->items[q->count++] = (struct vaced_turn){ start, work };
    return 0;
}

static int by_start(const void *a, const void *b)
{
    vaced_time_t x = ((const struct vaced_turn *)a)->start, y = ((const struct vaced_turn *)b)->start;
    return (x > y) - (x < y);
}

vaced_time_t vaced_turns_finish(struct vaced_turns *q, vaced_time_t none, vaced_time_t *first)
{
    *first = none;
    if (q->count == 0)
        return none;
    /* a wait's messages mostly come in start order: qsort only when not */
    for (unsigned i = 1; i < q->count; i++)
        if (q->items[i].start < q->items[i - 1].start) {
            qsort(q->items, q->count, sizeof *q->items, by_start);
            break;
        }
    vaced_time_t busy = *first = q->items[0].start;
    for (unsigned i = 0; i < q->count; i++)
        busy = vaced_time_max(busy, q->items[i].start) + q->items[i].work;
    q->count = 0;
    return busy;
}

void vaced_turns_free(struct vaced_turns *q)
{
    free(q->items);
    *q = (struct vaced_turns){ 0 };
}
