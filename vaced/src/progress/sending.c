/* A rank sends a protocol message (vaced_packet_sent): its peer state,
 * its stamp ta(m) from the network model (network/send.c), and what the
 * send costs the sender: its clock moves on by the overhead and the copy,
 * or, for a response sent from a handler, the wait that handles it
 * accounts for it. */
#include "clock/clock.h"
#include "job/job.h"
#include "machine/target.h"
#include "network/send.h"
#include "progress/waits.h"
#include "progress/peers.h"
#include "progress/sending.h"
#include "report/awaited.h"
#include "report/breakdown.h"
#include "report/trace_msgs.h"
#include "report/trace_path.h"

/* MPICH's call reaches it through entry/entry_packets.c, which logs it
 * in a record. */
vaced_time_t vaced_model_packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                     vaced_time_t *tr)
{
    vaced_time_t ta = VACED_TIME_UNSET;
    if (tr)
        *tr = VACED_TIME_UNSET;
    if (!vaced_running)
        return ta;
    vaced_peers_sent(peer, kind);
    vaced_trace_sent(peer, kind, bytes, vaced_handling() ? vaced_handling_ts() : vaced_clock_tv());
    int data;
    switch (kind) {
    case VACED_PKT_EAGER:
    case VACED_PKT_EAGER_SYNC:
    case VACED_PKT_SELF:
    case VACED_PKT_RNDV_DATA:       /* DATA: its copy ends the send request */
        data = 1;
        break;
    case VACED_PKT_RTS:
    case VACED_PKT_CTS:
    case VACED_PKT_SYNC_ACK:        /* handshakes */
        data = 0;
        break;
    default:                        /* bound packets and the rest: not timed */
        return ta;
    }
    if (peer >= 0)
        ta = vaced_send_stamp(peer, bytes, data, data ? tr : NULL);
    return ta;
}

vaced_time_t vaced_send_stamp(int dest, uint64_t bytes, int is_data, vaced_time_t *tr)
{
    if (!vaced_running)
        return VACED_TIME_UNSET;
    vaced_time_t base = vaced_handling() ? vaced_handling_ts() : vaced_clock_tv();
    if (is_data && vaced_target_uncalibrated(vaced_sim_target(), bytes))
        vaced_unmodelled(VACED_UNMODELLED_UNCALIBRATED, "a send");
    struct vaced_send_times s;
    vaced_send_times(base, dest, bytes, is_data, &s);
    vaced_time_t os = s.os, ts = s.ts, copy = s.copy;
    if (tr)
        *tr = ts + copy;
    /* The sender only pays the overhead and the copy into its send buffer;
     * a response sent from a handler is accounted by the wait that handles
     * it (a second response from the same handler leaves after the first). */
    if (vaced_handling()) {
        vaced_handling_sent(ts);
        vaced_awaited_sent(is_data, base, base + os, ts, ts + copy, s.ta);
    } else {
        vaced_clock_set(ts + (is_data ? copy : 0));
        /* the CPU's wait for its earlier same-node data is the copies' */
        vaced_breakdown_add(VACED_TERM_SEND_OVERHEAD, os);
        vaced_breakdown_add(VACED_TERM_COPY, ts - base - os + (is_data ? copy : 0));
        vaced_trace_step(base, base + os, vaced_clock_tv(), VACED_TERM_SEND_OVERHEAD,
                         VACED_TERM_COPY);
    }
    return s.ta;
}
