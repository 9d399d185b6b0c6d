/* vaced.h's message records, as MPICH calls them: logged in a record
 * (record.h: the outermost call only), then the model's
 * (progress/message.c).  vaced_msg_done and vaced_msg_arrival are not
 * here: the model asks them itself too, and its observer hears their
 * answers (entry/progress_recorder.c). */
#include "progress/matching.h"
#include "progress/message.h"
#include "record/record.h"

/* A record names the messages MPICH creates, not those created inside the
 * model's own call (a bound packet's queued write), which MPICH never
 * reports to the model. */
void vaced_msg_init(struct vaced_msg *m)
{
    vaced_model_msg_init(m);
    vaced_rec_msg_init(m);
}

void vaced_msg_complete_by(struct vaced_msg *m, vaced_time_t t)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_COMPLETE_BY);
        vaced_rec_msg(m);
        vaced_rec_time(t);
    }
    vaced_rec_leave();
    vaced_model_msg_complete_by(m, t);
}

void vaced_msg_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                       uint64_t bytes)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_ARRIVED);
        vaced_rec_msg(m);
        vaced_rec_u(kind);
        vaced_rec_time(ta);
        vaced_rec_u(bytes);
    }
    vaced_rec_leave();
    vaced_model_msg_arrived(m, kind, ta, bytes);
}

void vaced_msg_posted(struct vaced_msg *m, int held)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_POSTED);
        vaced_rec_msg(m);
        vaced_rec_u((uint64_t)held);
    }
    vaced_rec_leave();
    vaced_model_msg_posted(m);
    if (held)
        vaced_matching_hold();
}

void vaced_msg_found(struct vaced_msg *m, const struct vaced_msg *from,
                     enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_FOUND);
        vaced_rec_msg(m);
        vaced_rec_msg(from);
        vaced_rec_u(kind);
        vaced_rec_u(complete != 0);
        vaced_rec_u(bytes);
        vaced_rec_u(blocking != 0);
    }
    vaced_model_msg_found(m, from, kind, complete, bytes, blocking);
    vaced_rec_leave();
}

/* Logged with its answer. */
int vaced_msg_complete_now(const struct vaced_msg *m, uint64_t bytes)
{
    int top = vaced_rec_enter();
    int now = vaced_model_msg_complete_now(m, bytes);
    if (top) {
        vaced_rec_op(VACED_OP_COMPLETE_NOW);
        vaced_rec_msg(m);
        vaced_rec_u(bytes);
        vaced_rec_u((uint64_t)now);
    }
    vaced_rec_leave();
    return now;
}

void vaced_msg_report(struct vaced_msg *m, uint64_t bytes)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_REPORT);
        vaced_rec_msg(m);
        vaced_rec_u(bytes);
    }
    vaced_model_msg_report(m, bytes);
    vaced_rec_leave();
}
