/* The target machine: its description file, rank-to-node mapping, hop
 * function and network model (docs/model.md, paper eqs. 3-5).
 * The file format is documented in docs/targets.md. */
#ifndef VACED_TARGET_H
#define VACED_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "clock/vtime.h"

struct vaced_target; /* opaque */

/* MPICH's eager/rendezvous switch, used when the file does not set one. */
#define VACED_DEFAULT_EAGER_THRESHOLD 131072u

/* Parse a description file for a job of nranks ranks. On error return
 * non-zero, set *out to NULL and write "FILE:LINE: reason" (or
 * "FILE: reason" when no line applies) into err (if err and errlen > 0). */
int vaced_target_load(const char *path, int nranks, struct vaced_target **out,
                      char *err, size_t errlen);
void vaced_target_free(struct vaced_target *t);

const char *vaced_target_name(const struct vaced_target *t);
int vaced_target_cores(const struct vaced_target *t);
int vaced_target_nodes(const struct vaced_target *t);  /* ceil(cores / cores_per_node) */
int vaced_target_nranks(const struct vaced_target *t); /* the job size given at load */
uint64_t vaced_target_eager_threshold(const struct vaced_target *t); /* bytes */
uint64_t vaced_target_net_warmup(const struct vaced_target *t);      /* messages; 0: none */

/* Node a rank runs on (0-based), -1 when rank is out of range. */
int vaced_target_node_of(const struct vaced_target *t, int rank);

/* Hops between two ranks: 0 when on the same node (and for src == dst),
 * -1 when a rank is out of range. O(levels), no allocation. */
int vaced_target_hops(const struct vaced_target *t, int src_rank, int dst_rank);

/* Network model (network/netmodel.c). Times are target picoseconds;
 * results that would exceed INT64_MAX saturate there. */

/* The cost of one protocol message of `bytes` from rank src to rank dst,
 * every term of it with its size factor: what its sender and the network
 * spend (eqs. 3, 4 and the description's extensions). */
struct vaced_msg_cost {
    int hops;                   /* between the ranks' nodes; -1: a rank out of range */
    vaced_time_t copy;          /* s/Bmem: the copy into the send buffer */
    vaced_time_t cpu;           /* s/Bcpu: the sender's CPU moving same-node data (bcpu), else 0 */
    vaced_time_t latency;       /* L(0, h): l0 + h lh; latency_same_node on one node; 0 to itself */
    vaced_time_t transfer;      /* L(s, h): latency plus s/Bnet across nodes, s/Bmem on one (-1: no route) */
    vaced_time_t warmup;        /* beyond s/Bnet on a connection still warming up */
    vaced_time_t wire;          /* s/Bnet on the sender's link (injection_queue), else 0 */
};

/* Fills c for a message sent after `sent` earlier messages that counted
 * in the connection's warm-up (UINT64_MAX: past it). */
void vaced_msg_cost(const struct vaced_target *t, int src, int dst, uint64_t bytes,
                    uint64_t sent, struct vaced_msg_cost *c);

/* s / Bmem (Bmem times its factor for s, see vaced_target_bmem_factor):
 * copying bytes between buffers on one node. */
vaced_time_t vaced_target_copy_time(const struct vaced_target *t, uint64_t bytes);

/* L(s, hop(src, dst)) of eq. 4: s/Bnet + l0 + h*lh when h > 0 (Bnet times
 * its factor for s, see vaced_target_bnet_factor), s/Bmem (with its factor)
 * when h == 0, plus latency_same_node when src != dst. -1 when a rank is
 * out of range. */
vaced_time_t vaced_target_transfer_time(const struct vaced_target *t, int src,
                                        int dst, uint64_t bytes);

/* Optional per-message costs of the target (0 unless the description sets
 * them): CPU time a rank spends on each protocol message it sends
 * (send_overhead) or receives (recv_overhead), and the latency added to
 * L(s, 0) between two different ranks on one node (latency_same_node). */
vaced_time_t vaced_target_send_overhead(const struct vaced_target *t);
vaced_time_t vaced_target_recv_overhead(const struct vaced_target *t);
vaced_time_t vaced_target_same_node_latency(const struct vaced_target *t);

/* Bnet's factor for a message of `bytes` across nodes (bnet_factors; 1
 * when the target lists none). */
double vaced_target_bnet_factor(const struct vaced_target *t, uint64_t bytes);

/* Bmem's factor for copies and same-node transfers of `bytes`
 * (bmem_factors; 1 when the target lists none). */
double vaced_target_bmem_factor(const struct vaced_target *t, uint64_t bytes);

/* Whether the description lists overhead_coldness: the canary's coldness
 * (canary.h) after each of the calibration's computation times, which
 * chooses the overheads' factors (network/overhead.c). */
int vaced_target_has_coldness(const struct vaced_target *t);

/* Whether a message of `bytes` takes part in a connection's warm-up: the
 * target has one, and the message carries data, at least net_warmup_min
 * bytes (smaller ones fit TCP's first windows). */
int vaced_target_warms_up(const struct vaced_target *t, uint64_t bytes);

/* Whether a message of `bytes` is larger than the description's
 * calibrated_max (the largest size its calibration measured): its cost is
 * extrapolated from the smaller sizes. 0 when the key is absent. */
int vaced_target_uncalibrated(const struct vaced_target *t, uint64_t bytes);

/* Smallest L(0, h) = l0 + h*lh over the hop counts h > 0 that occur between
 * two nodes of the target (not only the job's nodes, so it is a safe lower
 * bound for lookahead). 0 when no two nodes are a positive hop count apart
 * (a single-node target, or hops all 0). */
vaced_time_t vaced_target_min_latency(const struct vaced_target *t);

#endif
