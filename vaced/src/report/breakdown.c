/* The breakdown's sums and the split of a wait's jump (breakdown.h). */
#include <string.h>
#include "report/breakdown.h"
#include "job/state_slot.h"

const char *const vaced_term_names[VACED_TERMS] = {
    "compute", "poll", "send_overhead", "recv_overhead", "copy", "network",
    "late_sender", "late_receiver", "collective_wait",
};

static struct vaced_breakdown breakdown_live;
struct vaced_breakdown *vaced_breakdown_st = &breakdown_live;
VACED_STATE_SLOT(vaced_breakdown_slot, vaced_breakdown_st, breakdown_live);

void vaced_breakdown_reset(void)
{
    memset(vaced_breakdown_st, 0, sizeof *vaced_breakdown_st);
}

void vaced_breakdown_collective_begin(void)
{
    vaced_breakdown_st->late_at_collective = vaced_breakdown_st->term[VACED_TERM_LATE_SENDER];
}

void vaced_breakdown_collective_end(void)
{
    struct vaced_breakdown *b = vaced_breakdown_st;
    vaced_time_t late = b->term[VACED_TERM_LATE_SENDER] - b->late_at_collective;
    b->term[VACED_TERM_LATE_SENDER] -= late;
    b->term[VACED_TERM_COLLECTIVE_WAIT] += late;
}

void vaced_chain_start(struct vaced_chain *c, vaced_time_t begin, int lead)
{
    c->begin = c->end = begin;
    c->lead = lead;
    c->n = 0;
}

void vaced_chain_to(struct vaced_chain *c, int term, vaced_time_t until)
{
    if (until <= c->end)
        return;
    if (c->n > 0 && c->term[c->n - 1] == term)
        c->until[c->n - 1] = until;             /* one span of a term, not two */
    else if (c->n < VACED_CHAIN_MAX) {
        c->term[c->n] = (unsigned char)term;
        c->until[c->n++] = until;
    } else
        c->until[c->n - 1] = until;
    c->end = until;
}

static vaced_time_t overlap(vaced_time_t a, vaced_time_t b, vaced_time_t from, vaced_time_t to)
{
    vaced_time_t lo = a > from ? a : from, hi = b < to ? b : to;
    return hi > lo ? hi - lo : 0;
}

void vaced_breakdown_split(struct vaced_breakdown *b, const struct vaced_chain *c,
                           vaced_time_t from, vaced_time_t to)
{
    if (to <= from) {
        b->term[c->lead] += to - from;
        return;
    }
    vaced_time_t left = to - from, part;
    /* after the chain's end: the last span's (the lead's if none) */
    part = overlap(c->end, to, from, to);
    b->term[c->n > 0 ? c->term[c->n - 1] : c->lead] += part;
    left -= part;
    for (int i = c->n - 1; i >= 0 && left > 0; i--) {
        vaced_time_t a = i > 0 ? c->until[i - 1] : c->begin;
        part = overlap(a, c->until[i], from, to);
        b->term[c->term[i]] += part;
        left -= part;
    }
    b->term[c->lead] += left;                   /* before the chain's begin */
}

vaced_time_t vaced_breakdown_total(const struct vaced_breakdown *b)
{
    vaced_time_t sum = 0;
    for (int i = 0; i < VACED_TERMS; i++)
        sum += b->term[i];
    return sum;
}
