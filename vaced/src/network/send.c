/* Outgoing protocol messages: their stamps ta(m) (eqs. 3, 4), the copy
 * into the send buffer, the connection's warm-up, the sender's CPU on one
 * node (bcpu) and the link's injection queue. */
#include "sim/state.h"
#include "network/overhead.h"

vaced_time_t vaced_copy_time(uint64_t bytes)
{
    return vaced_target_copy_time(vaced_st.target, bytes);
}

/* The slower start of the connection to dest (net_warmup_messages), counting its messages. */
static vaced_time_t warmup_time(int dest, uint64_t bytes)
{
    if (!vaced_st.sent_to || dest < 0 || dest >= vaced_st.size ||
        !vaced_target_warms_up(vaced_st.target, bytes))
        return 0;
    vaced_time_t extra = vaced_target_warmup_time(vaced_st.target, vaced_st.rank, dest,
                                                  vaced_st.sent_to[dest], bytes);
    vaced_st.sent_to[dest]++;
    return extra;
}

vaced_time_t vaced_send_stamp(int dest, uint64_t bytes, int is_data, vaced_time_t *tr)
{
    if (!vaced_running)
        return VACED_TIME_UNSET;
    struct vaced_waits *w = &vaced_st.waits;
    /* The send overhead (0 unless the target sets one) comes first: the
     * message leaves once the sender's CPU has handed it on. */
    vaced_time_t ts = (w->handling ? w->handle_ts : vaced_st.tv) + vaced_send_overhead(dest);
    vaced_time_t copy = vaced_copy_time(bytes);
    /* On one node the sender's CPU moves the data (bcpu): rendezvous DATA,
     * and eager DATA too, through the kernel's socket buffer.  A send
     * waits for the CPU to be done with the one before; its own message
     * leaves at once (an eager exchange, one message each way, is no
     * dearer), but a window of eager sends moves at Bcpu, as a node's
     * streaming benchmark does. */
    if (is_data) {
        vaced_time_t busy = vaced_target_cpu_time(vaced_st.target, vaced_st.rank, dest, bytes);
        if (busy > 0) {
            ts = vaced_time_max(ts, vaced_st.cpu_free);
            vaced_st.cpu_free = ts + busy;
        }
    }
    if (tr)
        *tr = ts + copy;
    vaced_time_t warm = warmup_time(dest, bytes);
    vaced_time_t l = vaced_target_transfer_time(vaced_st.target, vaced_st.rank, dest, bytes) + warm;
    vaced_time_t wire = vaced_target_wire_time(vaced_st.target, vaced_st.rank, dest, bytes);
    if (wire > 0)
        wire += warm;
    /* On the wire once the rank's earlier messages have left (FIFO). */
    vaced_time_t leave = wire > 0 ? vaced_time_max(ts + copy, vaced_st.link_free) : ts + copy;
    if (wire > 0)
        vaced_st.link_free = leave + wire;
    /* The sender only pays the overhead and the copy into its send buffer;
     * a response sent from a handler is accounted by the wait that handles
     * it (a second response from the same handler leaves after the first). */
    if (w->handling)
        w->handle_ts = ts;
    else
        vaced_st.tv = ts + (is_data ? copy : 0);
    return leave + l;
}
