/* Per-peer protocol state (peers.h). */
#include <stdlib.h>
#include "progress/peers.h"
#include "job/state_slot.h"

struct peer {
    uint32_t sent, received;    /* protocol packets, bound packets excepted */
    int rts_out;                /* RTS sent, its DATA not sent yet */
    int sync_out;               /* eager-sync sent, its ACK not received */
    int cts_out;                /* CTS sent, its DATA not received */
    int parked;                 /* responses for it in the early queue */
};

struct peers_state {
    struct peer *peers;         /* the job's ranks, by world rank */
    int npeers;
};

/* The rank's: a replay rebinds it (sim/rank_state.h). */
static struct peers_state peers_live, *st = &peers_live;
VACED_STATE_SLOT(vaced_peers_slot, st, peers_live);

int vaced_peers_init(int size)
{
    free(st->peers);
    st->npeers = 0;
    if (!(st->peers = calloc((size_t)size, sizeof *st->peers)))
        return -1;
    st->npeers = size;
    return 0;
}

void vaced_peers_free(void)
{
    free(st->peers);
    st->peers = NULL;
    st->npeers = 0;
}

static struct peer *find(int peer)
{
    return peer >= 0 && peer < st->npeers ? &st->peers[peer] : NULL;
}

void vaced_peers_sent(int peer, enum vaced_pkt_kind kind)
{
    struct peer *p = find(peer);
    if (!p || kind == VACED_PKT_BOUND || kind == VACED_PKT_SELF)
        return;
    p->sent++;
    switch (kind) {
    case VACED_PKT_RTS: p->rts_out++; break;
    case VACED_PKT_RNDV_DATA: p->rts_out--; break;
    case VACED_PKT_EAGER_SYNC: p->sync_out++; break;
    case VACED_PKT_CTS: p->cts_out++; break;
    default: break;
    }
}

void vaced_peers_received(int peer, enum vaced_pkt_kind kind)
{
    struct peer *p = find(peer);
    if (!p || kind == VACED_PKT_BOUND)
        return;
    p->received++;
    if (kind == VACED_PKT_SYNC_ACK)
        p->sync_out--;
    else if (kind == VACED_PKT_RNDV_DATA)
        p->cts_out--;
}

void vaced_peers_parked(int peer, int delta)
{
    struct peer *p = find(peer);
    if (p)
        p->parked += delta;
}

uint32_t vaced_peers_count(int peer, int sent)
{
    const struct peer *p = find(peer);
    return !p ? 0 : sent ? p->sent : p->received;
}

int vaced_peers_owes(int peer)
{
    const struct peer *p = find(peer);
    return p && (p->rts_out || p->parked);
}

int vaced_blocked_on(int only)
{
    for (int i = 0; i < st->npeers; i++) {
        const struct peer *p = &st->peers[i];
        if (p->parked)
            return -2;
        if (p->rts_out || p->sync_out || p->cts_out) {
            if (only >= 0 && only != i)
                return -2;
            only = i;
        }
    }
    return only >= 0 ? only : -2;
}
