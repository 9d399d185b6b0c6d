/* vaced.h's packets and handling contexts, as MPICH calls them: logged in
 * a record (record.h: the outermost call only), then the model's
 * (progress/sending.c, progress/handling.c).  Bound packets are the host's
 * synchronisation, not the program's: a record leaves out their sending;
 * their handling is logged, as its end closes what its begin opened. */
#include "progress/handling.h"
#include "progress/sending.h"
#include "record/record.h"

vaced_time_t vaced_packet_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                               vaced_time_t *tr)
{
    int top = vaced_rec_enter() && kind != VACED_PKT_BOUND;
    if (top) {
        vaced_rec_op(VACED_OP_PKT_SENT);
        vaced_rec_s(peer);
        vaced_rec_u(kind);
        vaced_rec_u(bytes);
    }
    vaced_time_t ta = vaced_model_packet_sent(peer, kind, bytes, tr);
    if (top)
        vaced_rec_note_sent(ta, tr ? *tr : VACED_TIME_UNSET);
    vaced_rec_leave();
    return ta;
}

vaced_time_t vaced_packet_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                   vaced_time_t *ta)
{
    int top = vaced_rec_enter();
    if (top) {
        vaced_rec_op(VACED_OP_PKT_RECV);
        vaced_rec_s(peer);
        vaced_rec_u(kind);
        vaced_rec_u(bytes);
        vaced_rec_u(ta != NULL);
    }
    vaced_time_t handled = vaced_model_packet_received(peer, kind, bytes, ta);
    if (top)
        vaced_rec_note_received(handled, ta ? *ta : VACED_TIME_UNSET);
    vaced_rec_leave();
    return handled;
}

vaced_time_t vaced_handle_begin(vaced_time_t ta)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_HANDLE_BEGIN);
        vaced_rec_time(ta);
    }
    vaced_time_t t = vaced_model_handle_begin(ta);
    vaced_rec_leave();
    return t;
}

void vaced_handle_end(void)
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_HANDLE_END);
    vaced_model_handle_end();
    vaced_rec_leave();
}

void vaced_respond_end(void)
{
    if (vaced_rec_enter())
        vaced_rec_op(VACED_OP_RESPOND_END);
    vaced_model_respond_end();
    vaced_rec_leave();
}
