/* A rank's sends (sending.c; vaced_packet_sent in vaced.h). */
#ifndef VACED_SENDING_H
#define VACED_SENDING_H

#include <stdint.h>
#include "vaced.h"

/* As vaced.h's vaced_packet_sent, which entry/entry_packets.c calls after
 * logging MPICH's call. */
vaced_time_t vaced_model_packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                     vaced_time_t *tr);

/* The stamp of a protocol message of `bytes` payload bytes to world rank
 * `dest`, DATA (is_data) or a handshake, as vaced_packet_sent describes;
 * *tr (if not NULL) gets tr(m) = ts + s/Bmem. */
vaced_time_t vaced_send_stamp(int dest, uint64_t bytes, int is_data, vaced_time_t *tr);

#endif
