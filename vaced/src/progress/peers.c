/* Per-peer protocol state (peers.h). */
#include <stdlib.h>
#include "progress/peers.h"

struct peer {
    uint32_t sent, received;    /* protocol packets, bound packets excepted */
    int rts_out;                /* RTS sent, its DATA not sent yet */
    int sync_out;               /* eager-sync sent, its ACK not received */
    int cts_out;                /* CTS sent, its DATA not received */
    int parked;                 /* responses for it in the early queue */
};

static struct peer *peers;
static int npeers;

int vaced_peers_init(int size)
{
    free(peers);
    npeers = 0;
    if (!(peers = calloc((size_t)size, sizeof *peers)))
        return -1;
    npeers = size;
    return 0;
}

void vaced_peers_free(void)
{
    free(peers);
    peers = NULL;
    npeers = 0;
}

static struct peer *find(int peer)
{
    return peer >= 0 && peer < npeers ? &peers[peer] : NULL;
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
    for (int i = 0; i < npeers; i++) {
        if (peers[i].parked)
            return -2;
        if (peers[i].rts_out || peers[i].sync_out || peers[i].cts_out) {
            if (only >= 0 && only != i)
                return -2;
            only = i;
        }
    }
    return only >= 0 ? only : -2;
}
