/* What the sends leave behind (send.c): when this rank's CPU is done
 * moving same-node data (bcpu), when its link is done sending
 * (injection_queue), and the messages sent on each connection (its
 * warm-up).  send.c alone keeps them; the receive side shares the CPU
 * through the functions below. */
#ifndef VACED_SEND_H
#define VACED_SEND_H

#include "clock/vtime.h"

/* Zeroes the state (simulation start, before anything else). */
void vaced_send_reset(void);
/* Counts the messages to each of the job's `size` ranks, for the target's
 * net_warmup_messages; -1 when out of memory. */
int vaced_send_count_connections(int size);
/* Releases the counts (simulation shutdown). */
void vaced_send_free(void);

/* When this rank's CPU is done with the same-node data it moves. */
vaced_time_t vaced_cpu_free_at(void);
/* The CPU takes on same-node data from `start`, or once done with what it
 * moves already, for `busy` and then `wake` (its wake-up); returns when it
 * is done. */
vaced_time_t vaced_cpu_occupy(vaced_time_t start, vaced_time_t busy, vaced_time_t wake);

/* A protocol message of `bytes` payload bytes to world rank `dest`, DATA
 * (is_data) or a handshake, that its sender starts at `base`: o_s, when
 * the sender's CPU hands it on (ts: after the overhead and, for same-node
 * DATA, the CPU's earlier transfers), the copy into the send buffer
 * (tr(m) = ts + copy) and its arrival ta(m) after the link's earlier
 * messages (eqs. 3, 4).  Moves the CPU's, the link's and the
 * connection's state on. */
struct vaced_send_times {
    vaced_time_t os, ts, copy, ta;
};
void vaced_send_times(vaced_time_t base, int dest, uint64_t bytes, int is_data,
                      struct vaced_send_times *out);

/* s/Bmem on the target. */
vaced_time_t vaced_copy_time(uint64_t bytes);

#endif
