/* Messages that are eager on the record and rendezvous on the replay's
 * target (protocol.h).  The replay makes the calls MPICH makes for a
 * rendezvous message where the record has the eager one's: the sender
 * sends an RTS in place of the eager packet; the receiver's handler or
 * post answers it with a CTS (parked as vaced_parks says); the sender's
 * progress handles the CTS and sends the DATA; the receiver handles the
 * DATA.  The CTS and DATA are not in the record: they go to the peer
 * outside the recorded stamps, each after the recorded packets sent
 * before it on the connection, and the peer handles them at its next
 * progress point (a poll, a wait, a packet read from that connection).
 * A request waited for before its packet came waits for it, as MPICH's
 * wait does; a blocking send or receive that the eager protocol finished
 * at once gets the wait MPICH makes for the rendezvous one. */
#include <stdlib.h>
#include "vaced.h"
#include "clock/clock.h"
#include "progress/early_queue.h"
#include "progress/waits.h"
#include "replay/protocol.h"

/* One message changing protocol. */
struct conv {
    int sender, receiver;
    uint64_t bytes;
    uint32_t sreq;              /* the send's request in the sender's record; 0: none */
    struct vaced_msg *own_sreq; /* the request given to a send that had none */
    uint32_t rreq;              /* the receive's message in the receiver's record; 0: not yet */
    int cts_parked, data_sent, data_in;
};

/* A packet the record does not have, in flight to a rank. */
struct syn_pkt {
    int kind;                   /* VACED_PKT_CTS or VACED_PKT_RNDV_DATA */
    int32_t conv;
    vaced_time_t ta;
    uint64_t after;             /* recorded packets on the connection before it */
};

struct syn_queue {
    struct syn_pkt *p;
    uint32_t head, count, cap;
};

/* A wait for a conversion's packet before the rank goes on. */
struct hold {
    int32_t conv;               /* -1: none */
    int wrapped;                /* the replay makes the wait (wait_begin ... wait_end) */
    int begun;
    struct vaced_msg *report;   /* what the wait reports, when wrapped */
};

/* Events of a wait asking about a message whose packet has not come,
 * run at the wait's end: MPICH's wait completes its requests in any
 * order, and the packets that complete this one may be read later in
 * the same wait. */
struct postponed {
    struct vaced_log_event *e;
    size_t count, cap, next;
};

/* Recorded events already run ahead of their place (read_ahead). */
struct skips {
    size_t *at;
    size_t count, cap;
};

struct conv_rank {
    int32_t *msg_conv;          /* by message id: the conversion it belongs to, -1 none */
    unsigned char *posted;      /* by message id: a receive posted before its packet came */
    struct syn_queue *syn;      /* by sender */
    uint32_t syn_waiting;
    int32_t sending;            /* the conversion whose RTS the running send sent */
    int32_t reading;            /* the conversion whose RTS the running handler read */
    int32_t posting;            /* a blocking post found a conversion's RTS */
    struct hold hold;
    struct postponed later;
    struct skips ahead;
};

static struct {
    struct conv *c;
    size_t n, cap;
    uint64_t threshold;
} cv;

static int self(const struct rank_run *r)
{
    return vaced_ranks_self(r);
}

int vaced_conv_start(struct rank_run *ranks, int size, uint64_t threshold)
{
    cv.c = NULL;
    cv.n = cv.cap = 0;
    cv.threshold = threshold;
    if (ranks[0].log.eager_threshold <= threshold)
        return 0;               /* every eager message stays eager */
    for (int i = 0; i < size; i++) {
        struct rank_run *r = &ranks[i];
        struct conv_rank *k = calloc(1, sizeof *k);
        if (!k)
            return -1;
        r->cv = k;
        k->msg_conv = malloc((r->nmsgs + 1) * sizeof *k->msg_conv);
        k->posted = calloc(r->nmsgs + 1, 1);
        k->syn = calloc((size_t)size, sizeof *k->syn);
        if (!k->msg_conv || !k->posted || !k->syn)
            return -1;
        for (uint32_t m = 0; m <= r->nmsgs; m++)
            k->msg_conv[m] = -1;
        k->sending = k->reading = k->posting = k->hold.conv = -1;
    }
    return 0;
}

void vaced_conv_free(struct rank_run *ranks, int size)
{
    for (int i = 0; ranks && i < size; i++) {
        struct conv_rank *k = ranks[i].cv;
        if (!k)
            continue;
        for (int j = 0; k->syn && j < size; j++)
            free(k->syn[j].p);
        free(k->syn);
        free(k->posted);
        free(k->msg_conv);
        free(k->later.e);
        free(k->ahead.at);
        free(k);
        ranks[i].cv = NULL;
    }
    for (size_t i = 0; i < cv.n; i++)
        free(cv.c[i].own_sreq);
    free(cv.c);
    cv.c = NULL;
    cv.n = cv.cap = 0;
}

/* --- Packets the record does not have ------------------------------------ */

static int push_syn(int from, int to, int kind, int32_t c, vaced_time_t ta)
{
    struct rank_run *dst = vaced_ranks_get(to);
    struct syn_queue *q = &dst->cv->syn[from];
    if (q->count == q->cap) {
        uint32_t cap = q->cap ? 2 * q->cap : 4;
        struct syn_pkt *p = malloc(cap * sizeof *p);
        if (!p)
            return vaced_replay_fail("out of memory for rendezvous packets");
        for (uint32_t i = 0; i < q->count; i++)
            p[i] = q->p[(q->head + i) % q->cap];
        free(q->p);
        q->p = p;
        q->cap = cap;
        q->head = 0;
    }
    q->p[(q->head + q->count++) % q->cap] =
        (struct syn_pkt){ kind, c, ta, vaced_stamp_pushed(dst, from) };
    dst->cv->syn_waiting++;
    if (dst->blocked_on >= 0)   /* its progress handles it, wherever it waits */
        vaced_ranks_wake(to, dst->blocked_on);
    return 0;
}

static struct vaced_msg *msg(struct rank_run *r, uint32_t id)
{
    return vaced_rank_msg(r, id);
}

static struct vaced_msg *send_request(struct rank_run *r, struct conv *c)
{
    return c->own_sreq ? c->own_sreq : msg(r, c->sreq);
}

/* The sender answers the CTS: the DATA goes, the send request completes
 * when its copy ends (MPICH's CTS handler). */
static int send_data(struct rank_run *r, int32_t i)
{
    struct conv *c = &cv.c[i];
    vaced_time_t tr;
    vaced_activity_begin();
    vaced_time_t ta = vaced_packet_sent(c->receiver, VACED_PKT_RNDV_DATA, c->bytes, &tr);
    vaced_msg_complete_by(send_request(r, c), tr);
    vaced_activity_end();
    c->data_sent = 1;
    return push_syn(self(r), c->receiver, VACED_PKT_RNDV_DATA, i, ta);
}

static int send_cts(struct rank_run *r, int32_t i)
{
    vaced_time_t tr;
    vaced_activity_begin();
    vaced_time_t ta = vaced_packet_sent(cv.c[i].sender, VACED_PKT_CTS, 0, &tr);
    vaced_activity_end();
    return push_syn(self(r), cv.c[i].sender, VACED_PKT_CTS, i, ta);
}

static void *fire_arg(int32_t i, int data)
{
    return (void *)((uintptr_t)i << 1 | (uintptr_t)data);
}

/* The model fires a parked CTS or DATA of conversion arg >> 1 (vaced_park's
 * fire), on the rank whose calls run. */
static void fire(void *arg)
{
    int32_t i = (int32_t)((uintptr_t)arg >> 1);
    struct rank_run *r = vaced_ranks_current();
    if ((uintptr_t)arg & 1)
        send_data(r, i);
    else
        send_cts(r, i);
}

/* The receiver answers the RTS that arrived at rts_ta (MPIDI_Vaced_park_cts). */
static int answer_rts(struct rank_run *r, int32_t i, vaced_time_t rts_ta, int at_post)
{
    if (!vaced_parks(rts_ta, at_post))
        return send_cts(r, i);
    vaced_park(cv.c[i].sender, rts_ta, fire, fire_arg(i, 0));
    return 0;
}

/* A packet the record does not have, handled as MPICH's handlers do. */
static int handle_syn(struct rank_run *r, int from, const struct syn_pkt *p)
{
    struct conv *c = &cv.c[p->conv];
    vaced_time_t ta = p->ta;
    int rc = 0;
    vaced_packet_received(from, p->kind, p->kind == VACED_PKT_CTS ? 0 : c->bytes, &ta);
    if (p->kind == VACED_PKT_CTS) {
        if (vaced_parks(ta, 0)) {       /* MPIDI_Vaced_park_pkt */
            c->cts_parked = 1;
            vaced_park(from, ta, fire, fire_arg(p->conv, 1));
        } else {
            rc = send_data(r, p->conv);
        }
    } else {
        vaced_msg_arrived(msg(r, c->rreq), VACED_PKT_RNDV_DATA, ta, 0);
        c->data_in = 1;
    }
    vaced_handle_end();
    return rc;
}

/* Handles the next packet from `from` the record does not have: if the
 * recorded packets before it are read, or `force`.  1 handled, 0 none. */
static int take_syn(struct rank_run *r, int from, int force, size_t offset)
{
    struct syn_queue *q = &r->cv->syn[from];
    if (!q->count)
        return 0;
    struct syn_pkt p = q->p[q->head];
    if (p.after > vaced_stamp_popped(r, from)) {
        if (!force)
            return 0;
        vaced_replay_diverged(DIV_ORDER, offset);
    }
    q->head = (q->head + 1) % q->cap;
    q->count--;
    r->cv->syn_waiting--;
    /* the recorded events after this point name the recorded packets' times */
    struct packet_times last = r->last;
    int rc = handle_syn(r, from, &p);
    r->last = last;
    return rc < 0 ? rc : 1;
}

/* A progress point: what has come from every peer. */
static void take_all_due(struct rank_run *r, size_t offset)
{
    int size = vaced_ranks_size();
    for (int j = 0; r->cv->syn_waiting && j < size; j++)
        while (take_syn(r, j, 0, offset) == 1)
            ;
}

static int read_ahead(struct rank_run *r);

int vaced_conv_progress(struct rank_run *r, size_t offset)
{
    if (vaced_clock_st->depth == 0)
        return 0;               /* no MPI call runs: no progress */
    take_all_due(r, offset);
    return read_ahead(r);
}

/* --- The recorded events a conversion changes ----------------------------- */

static int32_t new_conv(int sender, int receiver, uint64_t bytes)
{
    if (vaced_replay_room((void **)&cv.c, &cv.cap, cv.n, sizeof *cv.c))
        return vaced_replay_fail("out of memory for protocol changes");
    cv.c[cv.n] = (struct conv){ .sender = sender, .receiver = receiver, .bytes = bytes };
    return (int32_t)cv.n++;
}

/* Eager on the record, rendezvous here: an eager packet (not a
 * synchronous send's, not to this rank) that no longer fits. */
static int changes(const struct rank_run *r, const struct vaced_log_event *e)
{
    return e->kind == VACED_PKT_EAGER && e->peer >= 0 && e->peer != self(r) &&
           e->bytes + VACED_EAGER_HEADER <= r->log.eager_threshold &&
           e->bytes + VACED_EAGER_HEADER > cv.threshold;
}

/* The conversion a message of this rank's record belongs to, on this
 * rank's side, while that side still waits for its packet. */
static int32_t open_conv(const struct rank_run *r, uint32_t id)
{
    if (!id)
        return -1;
    int32_t i = r->cv->msg_conv[id];
    if (i < 0)
        return -1;
    const struct conv *c = &cv.c[i];
    if (c->sender == self(r) && c->sreq == id)
        return c->data_sent ? -1 : i;
    if (c->receiver == self(r) && c->rreq == id)
        return c->data_in ? -1 : i;
    return -1;
}

static int sent(struct rank_run *r, const struct vaced_log_event *e)
{
    if (!changes(r, e))
        return 0;
    int32_t i = new_conv(self(r), e->peer, e->bytes);
    if (i < 0)
        return 1;
    vaced_time_t tr;
    r->last.sent_ta = vaced_packet_sent(e->peer, VACED_PKT_RTS, 0, &tr);
    r->last.sent_tr = tr;
    r->cv->sending = i;
    vaced_stamp_push(self(r), e->peer, r->last.sent_ta, i);
    return 1;
}

/* The eager send's request completed with its copy: the rendezvous one
 * completes with its DATA's. */
static int completed(struct rank_run *r, const struct vaced_log_event *e)
{
    if (r->cv->sending < 0 || e->time.src != VACED_SRC_SENT_TR || !e->msg)
        return 0;
    cv.c[r->cv->sending].sreq = e->msg;
    r->cv->msg_conv[e->msg] = r->cv->sending;
    return 1;
}

int vaced_conv_read(struct rank_run *r, const struct vaced_log_event *e, int32_t conv)
{
    if (conv >= 0 && e->kind != VACED_PKT_EAGER)
        return vaced_replay_fail("%s: offset %zu: an eager packet read as a packet of kind %d",
                                 r->log.path, e->offset, e->kind);
    r->cv->reading = conv;
    return 0;
}

/* The eager packet's message, as the RTS's: a posted receive answers it. */
static int arrived(struct rank_run *r, const struct vaced_log_event *e)
{
    int32_t i = r->cv->reading;
    if (i < 0 || e->kind != VACED_PKT_EAGER)
        return 0;
    r->cv->reading = -1;
    cv.c[i].rreq = e->msg;
    r->cv->msg_conv[e->msg] = i;
    vaced_msg_arrived(msg(r, e->msg), VACED_PKT_RTS, r->last.recv_ta, 0);
    if (r->cv->posted[e->msg])
        answer_rts(r, i, r->last.recv_ta, 0);
    return 1;
}

/* A post finds the RTS: its CTS goes now or is parked (MPIDI_CH3_RecvRndv);
 * a blocking receive then waits for the DATA. */
static int found(struct rank_run *r, const struct vaced_log_event *e)
{
    int32_t i = r->cv->msg_conv[e->msg];
    if (i < 0 && e->from)
        i = r->cv->msg_conv[e->from];
    if (i < 0 || cv.c[i].receiver != self(r) || e->kind != VACED_PKT_EAGER || cv.c[i].data_in)
        return 0;
    struct vaced_msg *m = msg(r, e->msg);
    cv.c[i].rreq = e->msg;
    r->cv->msg_conv[e->msg] = i;
    vaced_msg_found(m, e->from ? msg(r, e->from) : NULL, VACED_PKT_RTS, 0, e->bytes, e->flag2);
    answer_rts(r, i, vaced_msg_arrival(m), 1);
    if (e->flag2)
        r->cv->posting = i;
    return 1;
}

int vaced_conv_event(struct rank_run *r, const struct vaced_log_event *e)
{
    switch (e->op) {
        case VACED_OP_PKT_SENT: return sent(r, e);
        case VACED_OP_COMPLETE_BY: return completed(r, e);
        case VACED_OP_PKT_RECV:
            /* the connection's packets the record does not have, sent before
             * this one; a read outside any MPI call (a collective schedule's)
             * leaves them to the next progress point */
            if (e->flag && e->peer >= 0 && vaced_clock_st->depth > 0)
                while (take_syn(r, e->peer, 0, e->offset) == 1)
                    ;
            return 0;
        case VACED_OP_ARRIVED: return arrived(r, e);
        case VACED_OP_POSTED:
            r->cv->posted[e->msg] = 1;
            return 0;
        case VACED_OP_FOUND: return found(r, e);
        case VACED_OP_COMPLETE_NOW:
            /* MPICH's request is not complete before its rendezvous packet */
            if (open_conv(r, e->msg) < 0)
                return 0;
            if (e->flag2)
                vaced_replay_diverged(DIV_TEST, e->offset);
            return 1;
        default: return 0;
    }
}

static void hold(struct rank_run *r, int32_t i, struct vaced_msg *report)
{
    r->cv->hold = (struct hold){ i, report != NULL, 0, report };
}

void vaced_conv_after(struct rank_run *r, const struct vaced_log_event *e)
{
    struct conv_rank *k = r->cv;
    switch (e->op) {
        case VACED_OP_END_ACT:          /* the send's own activity */
            if (k->sending >= 0) {
                struct conv *c = &cv.c[k->sending];
                if (!c->sreq) {         /* MPI_Send finished eager at once: now it waits */
                    c->own_sreq = malloc(sizeof *c->own_sreq);
                    if (!c->own_sreq) {
                        vaced_replay_fail("out of memory");
                        return;
                    }
                    vaced_msg_init(c->own_sreq);
                    hold(r, k->sending, c->own_sreq);
                }
                k->sending = -1;
            }
            break;
        case VACED_OP_RESPOND_END:
            if (k->posting >= 0)
                hold(r, k->posting, msg(r, cv.c[k->posting].rreq));
            k->posting = -1;
            break;
        case VACED_OP_HANDLE_END: k->reading = -1; break;
        case VACED_OP_POLL:
        case VACED_OP_WAIT_BEGIN: take_all_due(r, e->offset); break;
        default: break;
    }
}

/* The message event e asks about, if the model cannot answer yet. */
static int32_t needed(const struct rank_run *r, const struct vaced_log_event *e)
{
    switch (e->op) {
        case VACED_OP_REPORT:
        case VACED_OP_DONE: return open_conv(r, e->msg);
        default:
            if (e->time.src == VACED_SRC_DONE || e->time.src == VACED_SRC_ARRIVAL)
                return open_conv(r, e->time.msg);
            return -1;
    }
}

/* How far ahead read_ahead looks for the recorded read of a packet. */
#define VACED_READ_AHEAD 4096

static int skip_later(struct skips *k, size_t at)
{
    if (vaced_replay_room((void **)&k->at, &k->cap, k->count, sizeof *k->at))
        return vaced_replay_fail("out of memory");
    k->at[k->count++] = at;
    return 0;
}

static int skipped(struct skips *k, size_t at)
{
    for (size_t i = 0; i < k->count; i++)
        if (k->at[i] == at) {
            k->at[i] = k->at[--k->count];
            return 1;
        }
    return 0;
}

static int will_skip(const struct skips *k, size_t at)
{
    for (size_t i = 0; i < k->count; i++)
        if (k->at[i] == at)
            return 1;
    return 0;
}

/* An RTS from `from` at the head of the connection, for a receive already
 * posted, which the record reads later: MPICH's progress reads it now, in
 * the wait that needs the peer's answer, and answers it.  The recorded
 * read (packet, arrival, handling's end) is run here and skipped there.
 * 1 read, 0 not possible. */
static int read_rts_ahead(struct rank_run *r, int from)
{
    if (vaced_stamp_next_conv(r, from) < 0)
        return 0;
    struct vaced_log_event e[3];
    char why[256];
    size_t pos = r->pos;
    int found = 0;
    for (int n = 0; n < VACED_READ_AHEAD && !found; n++) {
        if (vaced_log_next(&r->log, &pos, &e[0], why, sizeof why) != 1)
            return 0;
        found = e[0].op == VACED_OP_PKT_RECV && e[0].peer == from && e[0].flag &&
                !will_skip(&r->cv->ahead, e[0].offset);
    }
    if (!found || vaced_log_next(&r->log, &pos, &e[1], why, sizeof why) != 1 ||
        vaced_log_next(&r->log, &pos, &e[2], why, sizeof why) != 1)
        return 0;
    if (e[1].op != VACED_OP_ARRIVED || e[1].kind != VACED_PKT_EAGER || !r->cv->posted[e[1].msg] ||
        e[2].op != VACED_OP_HANDLE_END)
        return 0;
    int32_t conv = -1;          /* the head stamp's, seen above */
    vaced_time_t ta = vaced_stamp_pop(r, from, &conv);
    vaced_packet_received(from, VACED_PKT_RTS, 0, &ta);
    cv.c[conv].rreq = e[1].msg;
    r->cv->msg_conv[e[1].msg] = conv;
    vaced_msg_arrived(msg(r, e[1].msg), VACED_PKT_RTS, ta, 0);
    int rc = answer_rts(r, conv, ta, 0);
    vaced_handle_end();
    for (int i = 0; i < 3 && rc == 0; i++)
        rc = skip_later(&r->cv->ahead, e[i].offset);
    return rc < 0 ? -1 : 1;
}

static int read_ahead(struct rank_run *r)
{
    int size = vaced_ranks_size(), any = 0;
    for (int j = 0; j < size; j++) {
        int got = read_rts_ahead(r, j);
        if (got < 0)
            return -1;
        any |= got;
    }
    return any;
}

/* Waits until conversion i's packet has come to this rank's side:
 * 1 it has, 0 blocked (r->blocked_on), -1 failed. */
static int complete(struct rank_run *r, int32_t i, size_t offset)
{
    struct conv *c = &cv.c[i];
    int sending = c->sender == self(r);
    int peer = sending ? c->receiver : c->sender;
    while (!(sending ? c->data_sent : c->data_in)) {
        int got = take_syn(r, peer, 1, offset);
        if (got < 0)
            return -1;
        if (got)
            continue;
        if (sending && c->cts_parked && vaced_fire_parked(INT64_MAX))
            continue;
        /* the wait's progress: what has come from the others, and the RTS
         * they wait on an answer for */
        uint32_t waiting = r->cv->syn_waiting;
        take_all_due(r, offset);
        if (r->cv->syn_waiting != waiting)
            continue;
        got = read_ahead(r);
        if (got < 0)
            return -1;
        if (got)
            continue;
        r->blocked_on = peer;
        return 0;
    }
    return 1;
}

static int postpone(struct postponed *p, const struct vaced_log_event *e)
{
    if (vaced_replay_room((void **)&p->e, &p->cap, p->count, sizeof *p->e))
        return vaced_replay_fail("out of memory");
    p->e[p->count++] = *e;
    return 2;
}

int vaced_conv_postponed(struct rank_run *r, struct vaced_log_event *e)
{
    struct postponed *p = &r->cv->later;
    if (p->next == p->count) {
        p->next = p->count = 0;
        return 0;
    }
    *e = p->e[p->next++];
    return 1;
}

int vaced_conv_ready(struct rank_run *r, const struct vaced_log_event *e)
{
    struct conv_rank *k = r->cv;
    if (k->ahead.count && skipped(&k->ahead, e->offset))
        return 2;
    if (e->op == VACED_OP_WAIT_END && k->later.count > k->later.next) {
        for (size_t j = k->later.next; j < k->later.count; j++) {
            int32_t i = needed(r, &k->later.e[j]);
            int got = i < 0 ? 1 : complete(r, i, e->offset);
            if (got <= 0)
                return got;
        }
        return 3;
    }
    if (k->hold.conv < 0) {
        int32_t i = needed(r, e);
        if (i < 0)
            return 1;
        if (vaced_clock_st->depth == 0) {
            /* asked outside any MPI call (a schedule's callback): no
             * progress runs there to bring the packet */
            vaced_replay_diverged(DIV_ORDER, e->offset);
            return 1;
        }
        if (vaced_progress_st->waits.depth > 0)
            return postpone(&k->later, e);
        /* a request complete on the record is reported without a wait: here
         * MPICH waits for it, then reports it */
        hold(r, i, e->op == VACED_OP_REPORT ? msg(r, e->msg) : NULL);
    }
    struct conv *c = &cv.c[k->hold.conv];
    if (k->hold.wrapped && !k->hold.begun) {
        vaced_wait_begin();
        k->hold.begun = 1;
    }
    int got = complete(r, k->hold.conv, e->offset);
    if (got <= 0)
        return got;
    if (k->hold.wrapped) {
        vaced_msg_report(k->hold.report, c->sender == self(r) ? 0 : c->bytes);
        vaced_wait_end();
    }
    k->hold.conv = -1;
    return 1;
}
