/* What a wait waited for (awaited.h). */
#include <stdlib.h>
#include <string.h>
#include "network/overhead.h"
#include "network/send.h"
#include "report/awaited.h"
#include "report/breakdown.h"
#include "report/trace_msgs.h"
#include "report/trace_path.h"
#include "job/state_slot.h"
#include "job/job.h"
#include "machine/target.h"

/* A completion time and what it was composed of: the record's fields
 * and, for a receive handled by a progress point, its handling. */
struct answer {
    vaced_time_t done, sent, landed, hs[4];
    int waits_for;
    vaced_time_t ta, h, o_r, copy;      /* h: VACED_TIME_UNSET if none */
    int dir, peer;                      /* its message as the trace names it (dir -1: none) */
    uint32_t seq;
};

struct awaited {
    int pkt;                    /* a packet is being handled: the fields below */
    enum vaced_pkt_kind pkt_kind;
    vaced_time_t pkt_sent, pkt_net, pkt_landed, pkt_handled;
    vaced_time_t data_base, data_os_end, data_ts, data_tr;  /* DATA sent from a handler */
    struct vaced_msg *cts_for;  /* the receive whose CTS the context sends */
    const struct vaced_msg *asked;
    struct answer last, latest;
    int last_valid, latest_valid;
    uint64_t *received;         /* per rank: packets counted in the warm-up */
};

static struct awaited awaited_live, *st = &awaited_live;
VACED_STATE_SLOT(vaced_awaited_slot, st, awaited_live);

int vaced_awaited_start(int size)
{
    memset(st, 0, sizeof *st);
    if (vaced_target_net_warmup(vaced_sim_target()) == 0)
        return 0;
    return (st->received = calloc((size_t)size, sizeof *st->received)) ? 0 : -1;
}

void vaced_awaited_free(void)
{
    free(st->received);
    st->received = NULL;
}

static int is_data(enum vaced_pkt_kind kind)
{
    return kind == VACED_PKT_EAGER || kind == VACED_PKT_EAGER_SYNC || kind == VACED_PKT_RNDV_DATA;
}

/* The connection's count of messages in its warm-up, in the sender's
 * order (CH3 keeps a connection's packets in order), or UINT64_MAX when a
 * message of `bytes` does not count. */
static uint64_t warmup_count(const struct vaced_target *t, int peer, uint64_t bytes)
{
    if (!st->received || peer >= vaced_sim_size() || !vaced_target_warms_up(t, bytes))
        return UINT64_MAX;
    return st->received[peer]++;
}

void vaced_awaited_packet(int peer, enum vaced_pkt_kind kind, uint64_t bytes, vaced_time_t ta,
                          vaced_time_t handled)
{
    const struct vaced_target *t = vaced_sim_target();
    st->pkt = 1;
    st->pkt_kind = kind;
    st->pkt_landed = ta;
    st->pkt_handled = handled;
    st->pkt_sent = st->pkt_net = VACED_TIME_UNSET;
    if (ta == VACED_TIME_UNSET || peer < 0 || !t)
        return;
    /* the sender's stamp: ts + o_s, the copy, then L(s, h) and the warm-up */
    struct vaced_msg_cost cost;
    vaced_msg_cost(t, peer, vaced_sim_rank(), bytes, warmup_count(t, peer, bytes), &cost);
    st->pkt_net = ta - cost.transfer - cost.warmup;
    st->pkt_sent = st->pkt_net - (is_data(kind) ? cost.copy : 0) - vaced_target_send_overhead(t);
}

void vaced_awaited_context_end(int handled)
{
    if (handled)
        st->pkt = 0;
    st->cts_for = NULL;
}

void vaced_awaited_sent(int data, vaced_time_t base, vaced_time_t os_end, vaced_time_t ts,
                        vaced_time_t tr, vaced_time_t ta)
{
    if (data) {
        st->data_base = base;
        st->data_os_end = os_end;
        st->data_ts = ts;
        st->data_tr = tr;
    } else if (st->cts_for) {
        st->cts_for->hs[2] = ts;
        st->cts_for->hs[3] = ta;
        st->cts_for = NULL;
    }
}

void vaced_awaited_init(struct vaced_msg *m)
{
    m->sent = m->landed = VACED_TIME_UNSET;
    m->hs[0] = m->hs[1] = m->hs[2] = m->hs[3] = VACED_TIME_UNSET;
    m->waits_for = VACED_TERM_LATE_SENDER;
}

void vaced_awaited_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                           uint64_t bytes)
{
    if (kind == VACED_PKT_SELF) {       /* copied by the send: no network */
        m->landed = m->hs[0] = ta;
        struct vaced_msg_cost cost;
        vaced_msg_cost(vaced_sim_target(), vaced_sim_rank(), vaced_sim_rank(), bytes, UINT64_MAX,
                       &cost);
        m->sent = ta - cost.copy - cost.transfer;
        return;
    }
    if (!st->pkt || st->pkt_kind != kind)
        return;
    if (kind == VACED_PKT_RTS) {
        m->hs[1] = st->pkt_landed;
        st->cts_for = m;
        return;
    }
    m->sent = st->pkt_sent;
    m->landed = st->pkt_landed;
    m->hs[0] = st->pkt_net;
}

void vaced_awaited_found(struct vaced_msg *m, const struct vaced_msg *from,
                         enum vaced_pkt_kind kind)
{
    if (from) {
        m->sent = from->sent;
        m->landed = from->landed;
        memcpy(m->hs, from->hs, sizeof m->hs);
    }
    if (kind == VACED_PKT_RTS)
        st->cts_for = m;
}

void vaced_awaited_complete_by(struct vaced_msg *m, vaced_time_t t)
{
    if (!st->pkt || st->pkt_sent == VACED_TIME_UNSET)
        return;
    if (st->pkt_kind == VACED_PKT_CTS && t == st->data_tr) {
        /* a rendezvous send: its DATA answered this CTS */
        m->hs[0] = st->data_base;
        m->hs[1] = st->data_os_end;
        m->hs[2] = st->data_ts;
    } else if (st->pkt_kind == VACED_PKT_SYNC_ACK && t == st->pkt_handled)
        m->hs[0] = VACED_TIME_UNSET;
    else
        return;
    m->sent = st->pkt_sent;
    m->landed = st->pkt_landed;
    m->hs[3] = st->pkt_net;
    m->waits_for = VACED_TERM_LATE_RECEIVER;
}

void vaced_awaited_ask(const struct vaced_msg *m)
{
    st->asked = m;
}

static void answer_from(vaced_time_t done)
{
    const struct vaced_msg *m = st->asked;
    struct answer *a = &st->last;
    st->last_valid = m != NULL;
    if (!m)
        return;
    a->done = done;
    a->sent = m->sent;
    a->landed = m->landed;
    memcpy(a->hs, m->hs, sizeof a->hs);
    a->waits_for = m->waits_for;
    a->h = VACED_TIME_UNSET;
    a->dir = -1;
    if (vaced_tracing() && !vaced_trace_name(m, &a->peer, &a->seq, &a->dir))
        a->dir = -1;
}

void vaced_awaited_answer_kept(vaced_time_t done)
{
    answer_from(done);
}

void vaced_awaited_answer_recv(vaced_time_t ta, vaced_time_t h, vaced_time_t o_r,
                               vaced_time_t copy, vaced_time_t done)
{
    answer_from(done);
    st->last.ta = ta;
    st->last.h = h;
    st->last.o_r = o_r;
    st->last.copy = copy;
}

void vaced_awaited_wait_begin(void)
{
    st->latest_valid = 0;
}

void vaced_awaited_latest(vaced_time_t done)
{
    st->latest_valid = st->last_valid && st->last.done == done;
    if (st->latest_valid)
        st->latest = st->last;
}

void vaced_awaited_consumed(void)
{
    st->last_valid = 0;
}

/* A receive's chain: its rendezvous handshake if it had one (the RTS's
 * flight, this rank's answer, the CTS's flight, the sender's handling),
 * then its DATA from the sender's start to its copy out. */
static void recv_chain(struct vaced_chain *c, const struct answer *a)
{
    vaced_time_t os = a->hs[0] - a->sent - a->copy;     /* the sender's nominal o_s */
    if (a->hs[1] != VACED_TIME_UNSET && a->hs[2] != VACED_TIME_UNSET) {
        vaced_time_t rts_flight = a->hs[3] - a->hs[2];  /* L(0, h), as the CTS's */
        vaced_chain_start(c, a->hs[1] - rts_flight - os, VACED_TERM_LATE_SENDER);
        vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, a->hs[1] - rts_flight);
        vaced_chain_to(c, VACED_TERM_NETWORK, a->hs[1]);
        vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, a->hs[2] - os);
        vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, a->hs[2]);
        vaced_chain_to(c, VACED_TERM_NETWORK, a->hs[3]);
        /* the sender handles the CTS late if it was not in MPI then */
        vaced_chain_to(c, VACED_TERM_LATE_SENDER, a->sent - vaced_target_recv_overhead(vaced_sim_target()));
        vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, a->sent);
    } else
        vaced_chain_start(c, a->sent, VACED_TERM_LATE_SENDER);
    vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, a->sent + os);
    vaced_chain_to(c, VACED_TERM_COPY, a->hs[0]);
    vaced_chain_to(c, VACED_TERM_NETWORK, a->landed);
    vaced_chain_to(c, VACED_TERM_COPY, a->ta);                  /* the CPU share (bcpu) */
    vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, a->h + a->o_r); /* the wake-up, o_r */
    vaced_chain_to(c, VACED_TERM_COPY, a->done);
}

static void chain_of(struct vaced_chain *c, const struct answer *a)
{
    if (a->sent == VACED_TIME_UNSET) {
        vaced_chain_start(c, a->done, a->waits_for);
        return;
    }
    const struct vaced_target *t = vaced_sim_target();
    if (a->waits_for == VACED_TERM_LATE_RECEIVER) {     /* a CTS or an eager-sync ACK */
        vaced_time_t os = a->hs[3] - a->sent, flight = a->landed - a->hs[3];
        if (a->hs[0] != VACED_TIME_UNSET) {
            /* before the CTS: this rank's RTS reached a receiver that was
             * waiting (its flight taken as the CTS's), the receiver's o_r */
            vaced_time_t rts = a->sent - vaced_target_recv_overhead(t) - flight - os;
            vaced_chain_start(c, rts, VACED_TERM_LATE_RECEIVER);
            vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, rts + os);
            vaced_chain_to(c, VACED_TERM_NETWORK, rts + os + flight);
            vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, a->sent);
        } else
            vaced_chain_start(c, a->sent, VACED_TERM_LATE_RECEIVER);
        vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, a->hs[3]);
        vaced_chain_to(c, VACED_TERM_NETWORK, a->landed);
        if (a->hs[0] != VACED_TIME_UNSET) {             /* the DATA that answered a CTS */
            vaced_chain_to(c, VACED_TERM_RECV_OVERHEAD, a->hs[0]);
            vaced_chain_to(c, VACED_TERM_SEND_OVERHEAD, a->hs[1]);
        }
        vaced_chain_to(c, a->hs[0] != VACED_TIME_UNSET ? VACED_TERM_COPY
                                                       : VACED_TERM_RECV_OVERHEAD, a->done);
        return;
    }
    if (a->h != VACED_TIME_UNSET) {
        recv_chain(c, a);
        return;
    }
    /* a receive completed at its post, or a send to self */
    vaced_chain_start(c, a->sent, VACED_TERM_LATE_SENDER);
    vaced_chain_to(c, VACED_TERM_COPY, a->hs[0]);
    vaced_chain_to(c, VACED_TERM_NETWORK, a->landed);
    vaced_chain_to(c, VACED_TERM_COPY, a->done);
}

/* The wait's line in the trace: what the critical path needs to cross to
 * the awaited message's sender (report/trace.h). */
static void trace_wait(vaced_time_t from, vaced_time_t cut, vaced_time_t to, vaced_time_t ovh,
                       const struct answer *a, const struct vaced_chain *c)
{
    struct vaced_trace_awaited w = {
        .dir = -1, .peer = -1, .sent = VACED_TIME_UNSET, .landed = VACED_TIME_UNSET,
        .rts_sent = VACED_TIME_UNSET, .rts_landed = VACED_TIME_UNSET,
    };
    if (a && a->dir >= 0 && a->sent != VACED_TIME_UNSET) {
        w.dir = a->dir;
        w.peer = a->peer;
        w.seq = a->seq;
        w.sent = a->sent;
        w.landed = a->landed;
        /* recv_chain began at the request's start on the sender */
        if (a->waits_for != VACED_TERM_LATE_RECEIVER && a->h != VACED_TIME_UNSET &&
            a->hs[1] != VACED_TIME_UNSET && a->hs[2] != VACED_TIME_UNSET) {
            w.rts_sent = c->begin;
            w.rts_landed = a->hs[1];
        }
    }
    vaced_trace_on_wait(from, cut, to, ovh, &w, c);
}

void vaced_awaited_wait_end(vaced_time_t from, vaced_time_t done, vaced_time_t to,
                            unsigned turns)
{
    struct vaced_chain c;
    const struct answer *a = st->latest_valid && st->latest.done == done ? &st->latest : NULL;
    if (a)
        chain_of(&c, a);
    else
        vaced_chain_start(&c, done, VACED_TERM_LATE_SENDER);
    /* up to the latest completion along its chain; after it, the turns */
    vaced_time_t cut = to < from ? to : done > from ? (done < to ? done : to) : from;
    vaced_breakdown_split(vaced_breakdown_st, &c, from, cut);
    vaced_time_t rest = to - cut, ovh = 0;
    if (rest > 0) {
        vaced_time_t o_r = (vaced_time_t)turns * vaced_recv_overhead();
        ovh = o_r < rest ? o_r : rest;
        vaced_breakdown_add(VACED_TERM_RECV_OVERHEAD, ovh);
        vaced_breakdown_add(VACED_TERM_COPY, rest - ovh);
    }
    if (vaced_tracing())
        trace_wait(from, cut, to, ovh, a, &c);
    st->latest_valid = 0;
}
