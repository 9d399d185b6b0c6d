/* Outgoing protocol messages: their stamps ta(m) (eqs. 3, 4), the copy
 * into the send buffer, the connection's warm-up, the sender's CPU on one
 * node (bcpu) and the link's injection queue. */
#include <stdlib.h>
#include <string.h>
#include "clock/clock.h"
#include "sim/sim.h"
#include "progress/progress.h"
#include "network/overhead.h"
#include "network/send.h"
#include "progress/peers.h"
#include "record/record.h"
#include "report/trace.h"
#include "sim/rank_state.h"
#include "progress/awaited.h"
#include "report/breakdown.h"

struct send_state {
    vaced_time_t cpu_free;      /* when this CPU is done moving same-node data (bcpu) */
    vaced_time_t link_free;     /* when this rank's link is done sending (injection_queue) */
    uint64_t *sent_to;          /* per rank: messages so far that count in the connection's warm-up */
};

/* The rank's: a replay rebinds it (sim/rank_state.h). */
static struct send_state send_live, *st = &send_live;
VACED_STATE_SLOT(vaced_send_slot, st, send_live);

void vaced_send_reset(void)
{
    memset(st, 0, sizeof *st);
}

int vaced_send_count_connections(int size)
{
    return (st->sent_to = calloc((size_t)size, sizeof *st->sent_to)) ? 0 : -1;
}

void vaced_send_free(void)
{
    free(st->sent_to);
    st->sent_to = NULL;
}

vaced_time_t vaced_cpu_free_at(void)
{
    return st->cpu_free;
}

vaced_time_t vaced_cpu_occupy(vaced_time_t start, vaced_time_t busy, vaced_time_t wake)
{
    st->cpu_free = vaced_time_max(start, st->cpu_free) + busy + wake;
    return st->cpu_free;
}

vaced_time_t vaced_copy_time(uint64_t bytes)
{
    return vaced_target_copy_time(vaced_sim_target(), bytes);
}

/* The connection to dest's count of messages in its warm-up
 * (net_warmup_messages), or NULL when a message of `bytes` does not count. */
static uint64_t *warmup_count(int dest, uint64_t bytes)
{
    if (!st->sent_to || dest < 0 || dest >= vaced_sim_size() ||
        !vaced_target_warms_up(vaced_sim_target(), bytes))
        return NULL;
    return &st->sent_to[dest];
}

static vaced_time_t packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                vaced_time_t *tr);

/* Bound packets are the host's synchronisation, not the program's: a
 * record leaves them out (record.h). */
vaced_time_t vaced_packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                               vaced_time_t *tr)
{
    int top = vaced_rec_enter() && kind != VACED_PKT_BOUND;
    if (top) {
        vaced_rec_op(VACED_OP_PKT_SENT);
        vaced_rec_s(peer);
        vaced_rec_u(kind);
        vaced_rec_u(bytes);
    }
    vaced_time_t ta = packet_sent(peer, kind, bytes, tr);
    if (top)
        vaced_rec_note_sent(ta, tr ? *tr : VACED_TIME_UNSET);
    vaced_rec_leave();
    return ta;
}

static vaced_time_t packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                vaced_time_t *tr)
{
    vaced_time_t ta = VACED_TIME_UNSET;
    if (tr)
        *tr = VACED_TIME_UNSET;
    if (!vaced_running)
        return ta;
    vaced_peers_sent(peer, kind);
    vaced_trace_sent(peer, kind, bytes, vaced_handling() ? vaced_handling_ts() : vaced_clock_tv());
    switch (kind) {
    case VACED_PKT_EAGER:
    case VACED_PKT_EAGER_SYNC:
    case VACED_PKT_SELF:
    case VACED_PKT_RNDV_DATA:       /* DATA: its copy ends the send request */
        if (peer >= 0)
            ta = vaced_send_stamp(peer, bytes, 1, tr);
        break;
    case VACED_PKT_RTS:
    case VACED_PKT_CTS:
    case VACED_PKT_SYNC_ACK:        /* handshakes */
        if (peer >= 0)
            ta = vaced_send_stamp(peer, bytes, 0, NULL);
        break;
    case VACED_PKT_BOUND:
    case VACED_PKT_OTHER:
        break;
    }
    return ta;
}

vaced_time_t vaced_send_stamp(int dest, uint64_t bytes, int is_data, vaced_time_t *tr)
{
    if (!vaced_running)
        return VACED_TIME_UNSET;
    const struct vaced_target *t = vaced_sim_target();
    int rank = vaced_sim_rank();
    /* The send overhead (0 unless the target sets one) comes first: the
     * message leaves once the sender's CPU has handed it on. */
    vaced_time_t base = vaced_handling() ? vaced_handling_ts() : vaced_clock_tv();
    vaced_time_t os = vaced_send_overhead(dest), ts = base + os;
    uint64_t *count = warmup_count(dest, bytes);
    struct vaced_msg_cost cost;
    vaced_msg_cost(t, rank, dest, bytes, count ? (*count)++ : UINT64_MAX, &cost);
    vaced_time_t copy = cost.copy;
    /* On one node the sender's CPU moves the data (bcpu): rendezvous DATA,
     * and eager DATA too, through the kernel's socket buffer.  A send
     * waits for the CPU to be done with the one before; its own message
     * leaves at once (an eager exchange, one message each way, is no
     * dearer), but a window of eager sends moves at Bcpu, as a node's
     * streaming benchmark does. */
    if (is_data && cost.cpu > 0) {
        ts = vaced_time_max(ts, st->cpu_free);
        st->cpu_free = ts + cost.cpu;
    }
    if (tr)
        *tr = ts + copy;
    vaced_time_t l = cost.transfer + cost.warmup;
    vaced_time_t wire = cost.wire > 0 ? cost.wire + cost.warmup : 0;
    /* On the wire once the rank's earlier messages have left (FIFO). */
    vaced_time_t leave = wire > 0 ? vaced_time_max(ts + copy, st->link_free) : ts + copy;
    if (wire > 0)
        st->link_free = leave + wire;
    /* The sender only pays the overhead and the copy into its send buffer;
     * a response sent from a handler is accounted by the wait that handles
     * it (a second response from the same handler leaves after the first). */
    if (vaced_handling()) {
        vaced_handling_sent(ts);
        vaced_awaited_sent(is_data, base, base + os, ts, ts + copy, leave + l);
    } else {
        vaced_clock_set(ts + (is_data ? copy : 0));
        /* the CPU's wait for its earlier same-node data is the copies' */
        vaced_breakdown_add(VACED_TERM_SEND_OVERHEAD, os);
        vaced_breakdown_add(VACED_TERM_COPY, ts - base - os + (is_data ? copy : 0));
        vaced_trace_step(base, base + os, vaced_clock_tv(), VACED_TERM_SEND_OVERHEAD,
                         VACED_TERM_COPY);
    }
    return leave + l;
}
