/* What this rank's protocol has open with each peer (peers.c): packets
 * sent to and received from it, handshakes it waits on (an RTS whose DATA
 * is not sent yet, an eager-sync send not acknowledged, a CTS whose DATA
 * has not come) and responses parked for it in the early queue.  The
 * wildcard bounds read them: a peer blocked on this rank is decided only
 * if no packet is in flight between the two and this rank owes it
 * nothing. */
#ifndef VACED_PEERS_H
#define VACED_PEERS_H

#include <stdint.h>
#include "vaced.h"

/* Room for the job's `size` ranks (simulation start); -1 when out of
 * memory. */
int vaced_peers_init(int size);
void vaced_peers_free(void);

/* A packet of `kind` to / from world rank `peer` (negative: outside the
 * job's world, not counted). */
void vaced_peers_sent(int peer, enum vaced_pkt_kind kind);
void vaced_peers_received(int peer, enum vaced_pkt_kind kind);
/* A response for `peer` is parked (+1) or leaves the early queue (-1). */
void vaced_peers_parked(int peer, int delta);

/* Protocol packets sent to (sent != 0) or received from `peer`. */
uint32_t vaced_peers_count(int peer, int sent);
/* This rank still sends `peer` DATA for a rendezvous, or a parked response. */
int vaced_peers_owes(int peer);
/* What this rank, about to block, waits on: `only` from its posted
 * receives and probes (a world rank, or -1: none), with the peers of its
 * open handshakes (an RTS, an eager-sync send, a CTS awaiting their
 * answer).  Returns the one world rank, or -2: several, or a response is
 * parked, or nothing known. */
int vaced_blocked_on(int only);

#endif
