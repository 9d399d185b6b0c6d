/* The wildcard bounds (wildcard_bounds.c): what a wildcard receive may
 * take, proven by the peers' bounds; the requests and answers that prove
 * it. */
#ifndef VACED_WILDCARD_BOUNDS_H
#define VACED_WILDCARD_BOUNDS_H

#include <stdint.h>
#include "vaced.h"

/* How the bound packets reach a peer (the device's send_bound). */
typedef void (*vaced_bound_send_fn)(int peer, const struct vaced_bound_pkt *p);
/* The simulation's start: no requests, reports or decisions so far; bound
 * packets go out through `send`. */
void vaced_bounds_start(vaced_bound_send_fn send);
/* Requests are waiting for an answer this rank could not give yet. */
int vaced_bounds_pending(void);
/* The rank is about to block on the host, waiting for messages from the
 * sources of its posted receives and probes: `only_on`, a world rank, or
 * -1 (none), or -2 (several ranks or ANY_SOURCE); the peers of its open
 * handshakes are added to them.  VACED_PROGRESSING: it is not blocked (it
 * progresses without receiving: a write is pending). */
#define VACED_PROGRESSING (-3)
void vaced_bounds_blocked(int only_on);
/* flags[i] for vaced_wildcard_check: peers[i]'s next matching message is on
 * the host, or it is closing. */
#define VACED_PEER_KNOWN 1
enum vaced_wildcard { VACED_WILD_SAFE, VACED_WILD_WAIT, VACED_WILD_UNPROVABLE };
/* A wildcard receive or probe (or a Waitany) starts deciding. */
void vaced_wildcard_begin(void);
/* The earliest candidate on the host arrives at `ta`; peers[i] (world ranks,
 * this rank's own and negative ones are ignored) may send an earlier one.
 * SAFE: take it; WAIT: wait for messages or reports (requests have been
 * sent); UNPROVABLE: the rule cannot decide: take it, approximately. */
int vaced_wildcard_check(vaced_time_t ta, int n, const int *peers, const unsigned char *flags);
/* A message of `bytes` from world rank `sender` arrives here no earlier
 * than the sender's bound (its clock plus the latency) plus this lead: the
 * rest of its transfer time. */
vaced_time_t vaced_bound_lead(int sender, uint64_t bytes);

/* Answers the bound requests this rank's clock now satisfies (wildcard_bounds.c). */
void vaced_bounds_activity_point(void);
void vaced_bounds_free(void);

#endif
