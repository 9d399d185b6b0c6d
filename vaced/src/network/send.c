/* Outgoing protocol messages: their stamps ta(m) (eqs. 3, 4), the copy
 * into the send buffer, the connection's warm-up, the sender's CPU on one
 * node (bcpu) and the link's injection queue.  Who sends, and what the
 * send costs the sender's clock, is the progress model's
 * (progress/sending.c). */
#include <stdlib.h>
#include <string.h>
#include "job/job.h"
#include "machine/target.h"
#include "network/overhead.h"
#include "network/send.h"
#include "job/state_slot.h"

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

void vaced_send_times(vaced_time_t base, int dest, uint64_t bytes, int is_data,
                      struct vaced_send_times *out)
{
    const struct vaced_target *t = vaced_sim_target();
    int rank = vaced_sim_rank();
    /* The send overhead (0 unless the target sets one) comes first: the
     * message leaves once the sender's CPU has handed it on. */
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
    vaced_time_t l = cost.transfer + cost.warmup;
    vaced_time_t wire = cost.wire > 0 ? cost.wire + cost.warmup : 0;
    /* On the wire once the rank's earlier messages have left (FIFO). */
    vaced_time_t leave = wire > 0 ? vaced_time_max(ts + copy, st->link_free) : ts + copy;
    if (wire > 0)
        st->link_free = leave + wire;
    out->os = os;
    out->ts = ts;
    out->copy = copy;
    out->ta = leave + l;
}
