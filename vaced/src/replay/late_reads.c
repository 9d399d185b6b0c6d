/* Packets a wait read unexpected, read later (late_reads.h).  On the
 * record a wait read a packet no posted receive wanted, because it had
 * come; re-timed with rendezvous packets, the wait may end before that
 * packet's sender gets to send it.  MPICH's wait would not wait for it:
 * the replay puts the read off (its request made in place, so messages
 * keep their names) and makes it once the packet has come, before
 * anything that reads that connection or asks about that message. */
#include <stdlib.h>
#include "clock/clock.h"
#include "progress/waits.h"
#include "replay/late_reads.h"

struct late_read {
    int peer;
    uint32_t msg;
    struct vaced_log_event ev[3];       /* the packet, its arrival, the handling's end */
};

struct late_reads {
    struct late_read *r;
    size_t count, cap;
    size_t scan;                /* vaced_late_due's next to look at */
    unsigned char *unread;      /* by message id */
};

void vaced_late_free(struct rank_run *r)
{
    if (!r->late)
        return;
    free(r->late->r);
    free(r->late->unread);
    free(r->late);
    r->late = NULL;
}

/* Inside a wait, a packet read unexpected: PKT_RECV, MSG_INIT, ARRIVED of
 * that new message, HANDLE_END. */
int vaced_late_defer(struct rank_run *r, const struct vaced_log_event *e)
{
    if (vaced_progress_st->waits.depth == 0 || vaced_clock_st->depth == 0 || !e->flag ||
        e->peer < 0)
        return 0;
    struct vaced_log_event ev[3];
    char why[256];
    size_t pos = r->pos;
    if (vaced_log_next(&r->log, &pos, &ev[1], why, sizeof why) != 1 || ev[1].op != VACED_OP_MSG_INIT ||
        vaced_log_next(&r->log, &pos, &ev[1], why, sizeof why) != 1 || ev[1].op != VACED_OP_ARRIVED ||
        ev[1].msg != r->msgs_made + 1 ||
        vaced_log_next(&r->log, &pos, &ev[2], why, sizeof why) != 1 || ev[2].op != VACED_OP_HANDLE_END)
        return 0;
    struct late_reads *l = r->late;
    if (!l) {
        l = r->late = calloc(1, sizeof *l);
        if (!l || !(l->unread = calloc(r->nmsgs + 1, 1)))
            return vaced_replay_fail("out of memory");
    }
    if (vaced_replay_room((void **)&l->r, &l->cap, l->count, sizeof *l->r))
        return vaced_replay_fail("out of memory");
    ev[0] = *e;
    struct late_read *d = &l->r[l->count++];
    d->peer = e->peer;
    d->msg = ev[1].msg;
    for (int i = 0; i < 3; i++)
        d->ev[i] = ev[i];
    l->unread[d->msg] = 1;
    vaced_rank_new_msg(r, e->offset);
    r->pos = pos;
    return 1;
}

/* Takes the put-off read i off, its events in ev, if its packet has
 * come and no read before it waits on the same connection.  1 taken, 0
 * not yet. */
static int take(struct rank_run *r, size_t i, struct vaced_log_event ev[3])
{
    struct late_reads *l = r->late;
    int peer = l->r[i].peer;
    for (size_t j = 0; j < i; j++)
        if (l->r[j].peer == peer)
            return 0;
    if (!vaced_stamp_ready(r, peer) || vaced_clock_st->depth == 0)
        return 0;
    struct late_read d = l->r[i];
    for (size_t j = i + 1; j < l->count; j++)
        l->r[j - 1] = l->r[j];
    l->count--;
    l->unread[d.msg] = 0;
    for (int k = 0; k < 3; k++)
        ev[k] = d.ev[k];
    return 1;
}

/* One pass over the put-off reads, resumed after each taken one (its
 * events run in between), as a loop making them in place would go. */
int vaced_late_due(struct rank_run *r, struct vaced_log_event ev[3])
{
    struct late_reads *l = r->late;
    if (!l)
        return 0;
    while (l->scan < l->count) {
        if (take(r, l->scan, ev))
            return 1;
        l->scan++;
    }
    l->scan = 0;
    return 0;
}

/* The put-off read event e cannot go before: -1 none.  A read of the
 * same connection goes after it; one whose packet has not come either
 * is put off behind it or waits in replay.c. */
static int32_t needed_read(struct rank_run *r, const struct late_reads *l,
                           const struct vaced_log_event *e)
{
    if (e->op == VACED_OP_PICK || e->op == VACED_OP_FIRST || e->op == VACED_OP_SIM_END)
        return 0;               /* they look at every message */
    for (size_t i = 0; i < l->count; i++) {
        uint32_t m = l->r[i].msg;
        if ((e->op == VACED_OP_PKT_RECV && e->peer == l->r[i].peer &&
             vaced_stamp_ready(r, e->peer)) || e->msg == m || e->from == m ||
            ((e->time.src == VACED_SRC_DONE || e->time.src == VACED_SRC_ARRIVAL) && e->time.msg == m))
            return (int32_t)i;
    }
    return -1;
}

int vaced_late_ready(struct rank_run *r, const struct vaced_log_event *e)
{
    struct late_reads *l = r->late;
    if (!l || !l->count)
        return 1;
    int32_t i = needed_read(r, l, e);
    if (i < 0)
        return 1;
    r->blocked_on = l->r[i].peer;
    return 0;
}
