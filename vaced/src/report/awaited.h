/* What a wait waited for (awaited.c): the model's side of the breakdown
 * (report/breakdown.h).  A message's record keeps, for the packet its
 * request waits for, when that packet's sender began sending it, as the
 * stamp tells (the arrival less the target's nominal flight: o_s, the copy,
 * L(s, h) and the warm-up, which the receiver counts as the sender does),
 * and a rendezvous' handshake.  Each completion the model computes for a
 * record becomes the rank's latest answer; a wait keeps the answer of its
 * latest completion and, when it ends, splits its jump along that
 * answer's chain. */
#ifndef VACED_AWAITED_H
#define VACED_AWAITED_H

#include "vaced.h"

/* Zeroes the state; counts the packets received from each of `size` ranks
 * for the warm-up when the target has one (-1: out of memory). */
int vaced_awaited_start(int size);
void vaced_awaited_free(void);

/* A packet of `kind` and `bytes` from `peer`, stamped `ta` (as sent), is
 * handled at `handled` (its o_r included): the handling context's packet. */
void vaced_awaited_packet(int peer, enum vaced_pkt_kind kind, uint64_t bytes, vaced_time_t ta,
                          vaced_time_t handled);
/* The response context ends, or (handled) the handling context. */
void vaced_awaited_context_end(int handled);
/* A packet leaves from a handling context: a handshake (!is_data) is the
 * CTS of the receive given to vaced_awaited_arrived or _found; DATA keeps
 * when its overhead began (base) and ended, its copy began (ts) and ended
 * (tr). */
void vaced_awaited_sent(int is_data, vaced_time_t base, vaced_time_t os_end, vaced_time_t ts,
                        vaced_time_t tr, vaced_time_t ta);

/* The record's events (message.c). */
void vaced_awaited_init(struct vaced_msg *m);
void vaced_awaited_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                           uint64_t bytes);
void vaced_awaited_found(struct vaced_msg *m, const struct vaced_msg *from,
                         enum vaced_pkt_kind kind);
void vaced_awaited_complete_by(struct vaced_msg *m, vaced_time_t t);
/* The completion of `m` is being computed (NULL: no record's). */
void vaced_awaited_ask(const struct vaced_msg *m);
/* It is m->done, as kept. */
void vaced_awaited_answer_kept(vaced_time_t done);
/* It is a receive handled at h, then busy for o_r and the copy: done. */
void vaced_awaited_answer_recv(vaced_time_t ta, vaced_time_t h, vaced_time_t o_r,
                               vaced_time_t copy, vaced_time_t done);

/* Waits (waits.c): the outermost starts; a completion at `done` is its
 * latest so far; it ends, tV jumping from `from` to `to`, `done` being its
 * latest completion and the rest (to > done) `turns` turns of its CPU on
 * received messages, each costing o_r and a copy. */
void vaced_awaited_wait_begin(void);
void vaced_awaited_latest(vaced_time_t done);
void vaced_awaited_consumed(void);
void vaced_awaited_wait_end(vaced_time_t from, vaced_time_t done, vaced_time_t to,
                            unsigned turns);

#endif
