/* A message's record (vaced.h, struct vaced_msg): the target times of one
 * MPICH request, and the answers about it that the receive side computes
 * (receive.c) from the rank's waits. */
#include "network/send.h"
#include "progress/waits.h"
#include "progress/handling.h"
#include "progress/receive.h"
#include "progress/message.h"
#include "progress/progress_observer.h"
#include "report/trace_msgs.h"
#include "report/awaited.h"

/* MPICH's calls reach these through entry/entry_message.c, which logs
 * them in a record; the answers the model hands out go to its observer
 * (progress_observer.h), whoever asked. */

void vaced_model_msg_init(struct vaced_msg *m)
{
    m->ta = m->done = m->posted = VACED_TIME_UNSET;
    m->data_in = 0;
    m->id = 0;
    vaced_awaited_init(m);
    vaced_trace_init(m);
}

void vaced_model_msg_complete_by(struct vaced_msg *m, vaced_time_t t)
{
    if (t > m->done)
        m->done = t;
    vaced_trace_complete_by(m);
    if (vaced_running)
        vaced_awaited_complete_by(m, t);
}

void vaced_model_msg_arrived(struct vaced_msg *m, enum vaced_pkt_kind kind, vaced_time_t ta,
                             uint64_t bytes)
{
    vaced_trace_arrived(m, kind, bytes);
    m->ta = ta;
    if (vaced_running)
        vaced_awaited_arrived(m, kind, ta, bytes);
    if (kind == VACED_PKT_RNDV_DATA)
        m->data_in = 1;
    else if (kind == VACED_PKT_SELF && vaced_running)
        m->done = ta + vaced_copy_time(bytes);  /* copied by the send, at its arrival */
}

void vaced_model_msg_posted(struct vaced_msg *m)
{
    if (vaced_running)
        m->posted = vaced_clock_tv();
}

/* A receive of DATA that completes when a wait (or a test) handles it:
 * matched, its completion not known yet. */
static int handled_later(const struct vaced_msg *m)
{
    return m->done == VACED_TIME_UNSET && m->ta != VACED_TIME_UNSET;
}

static void found(struct vaced_msg *m, const struct vaced_msg *from,
                  enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking);

void vaced_model_msg_found(struct vaced_msg *m, const struct vaced_msg *from,
                           enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking)
{
    vaced_trace_given(m, from);
    found(m, from, kind, complete, bytes, blocking);
    vaced_trace_done(m, bytes, m->done);
}

static void found(struct vaced_msg *m, const struct vaced_msg *from,
                  enum vaced_pkt_kind kind, int complete, uint64_t bytes, int blocking)
{
    if (from) {                 /* given later: the message's times, as of the post */
        m->ta = from->ta;
        m->done = from->done;
    }
    if (!vaced_running)
        return;
    vaced_respond_begin_at(m->ta, m->posted);
    vaced_awaited_found(m, from, kind);
    if (kind == VACED_PKT_SELF) {
        vaced_time_t done = vaced_recv_found_at(m->ta, bytes, m->posted);
        if (done != VACED_TIME_UNSET)
            m->done = done;
        return;
    }
    if (kind != VACED_PKT_EAGER || !complete)
        return;                 /* a rendezvous, or eager DATA still coming in */
    m->done = vaced_recv_found_read(m->ta, bytes, m->posted);
    if (blocking && m->done == VACED_TIME_UNSET) {
        vaced_awaited_ask(m);
        m->done = vaced_wait_complete_recv(m->ta, bytes);
        vaced_awaited_ask(NULL);
    }
}

vaced_time_t vaced_msg_done(const struct vaced_msg *m, uint64_t bytes)
{
    const struct vaced_progress_observer *o = vaced_progress_observer;
    if (vaced_progress_st->waits.depth > 0)
        o->done_asked(m, bytes);
    vaced_awaited_ask(m);
    vaced_time_t done = handled_later(m) ? vaced_recv_done(m->ta, bytes) : m->done;
    if (!handled_later(m))
        vaced_awaited_answer_kept(done);
    vaced_awaited_ask(NULL);
    o->done_told(m, bytes, done);
    vaced_trace_done(m, bytes, done);
    return done;
}

int vaced_model_msg_complete_now(const struct vaced_msg *m, uint64_t bytes)
{
    vaced_time_t done = handled_later(m) ? vaced_recv_visible(m->ta, bytes) : m->done;
    return done == VACED_TIME_UNSET || done <= vaced_horizon();
}

void vaced_model_msg_report(struct vaced_msg *m, uint64_t bytes)
{
    vaced_awaited_ask(m);
    if (handled_later(m))
        m->done = vaced_wait_complete_recv(m->ta, bytes);
    else {
        vaced_awaited_answer_kept(m->done);
        vaced_model_wait_complete(m->done);
    }
    vaced_awaited_ask(NULL);
    vaced_trace_report(m, bytes, m->done);
}

vaced_time_t vaced_msg_arrival(const struct vaced_msg *m)
{
    vaced_progress_observer->arrival_told(m, m->ta);
    return m->ta;
}
