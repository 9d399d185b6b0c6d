/* Handling times (Algorithm 3): when this rank's progress engine handles
 * a message that arrives at ta, and the responses it sends from there. */
#include "job/job.h"
#include "machine/target.h"
#include "network/overhead.h"
#include "network/send.h"
#include "progress/progress_state.h"
#include "progress/handling.h"
#include "progress/peers.h"
#include "report/trace_msgs.h"
#include "report/awaited.h"

/* The target's wake-up delay of a message reaching this rank at `ta`: 0
 * unless the rank was then blocked in a wait, idle long enough to sleep.
 * A rank blocked in a wait sleeps in poll() once nothing has come for a
 * while, and its CPU idles: a message that reaches it then takes longer
 * one way than one sent just after it blocked (wakeup_after, wakeup_ramp;
 * figures in results/targets-notes.md). */
static vaced_time_t wakeup_delay(vaced_time_t ta)
{
    const struct vaced_target *t = vaced_sim_target();
    if (!t || !vaced_target_has_wakeup(t))
        return 0;
    vaced_time_t since = vaced_progress_idle_since(ta);
    return since == VACED_TIME_UNSET ? 0 : vaced_target_wakeup_time(t, ta - since);
}

vaced_time_t vaced_handle_time(vaced_time_t cur, vaced_time_t ta, vaced_time_t work)
{
    enum vaced_handler by;
    return vaced_handle_time_by(cur, ta, work, &by);
}

vaced_time_t vaced_handle_time_by(vaced_time_t cur, vaced_time_t ta, vaced_time_t work,
                                  enum vaced_handler *by)
{
    struct vaced_waits *w = &vaced_progress_st->waits;
    vaced_time_t h = vaced_waits_handler(w, cur, ta, work, by);
    if (h == ta)
        h += wakeup_delay(ta);
    if (w->depth > 0 && h > w->active) {
        w->active = h;
        w->active_from = ta;
    }
    return h;
}

/* Rendezvous DATA from `src` on this node keeps this CPU busy (bcpu):
 * its arrival, delayed so that the receive completes no earlier. */
static vaced_time_t rndv_data_arrival(int src, uint64_t bytes, vaced_time_t ta)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return ta;
    struct vaced_msg_cost cost;
    vaced_msg_cost(vaced_sim_target(), src, vaced_sim_rank(), bytes, UINT64_MAX, &cost);
    if (cost.cpu <= 0)
        return ta;
    /* The receiver's share starts when the sender starts (the kernel
     * streams the data) if this rank is at a progress point then. */
    struct vaced_waits *w = &vaced_progress_st->waits;
    vaced_time_t copy = cost.copy;
    vaced_time_t sent = ta - copy - cost.transfer;
    vaced_time_t start = vaced_waits_handle_time(w, vaced_progress_start(), sent, 0);
    /* A CPU still busy with an earlier transfer (its own DATA, in an
     * exchange) is awake; an idle one wakes up when the data reaches it.
     * The wake-up is added to the whole, as the calibration's ping-pong
     * (n c + 3 s/Bmem, c with it) counts it. */
    vaced_time_t first_byte = sent + cost.latency;
    vaced_time_t wake = vaced_cpu_free_at() < sent ? wakeup_delay(first_byte) : 0;
    vaced_time_t cpu_free = vaced_cpu_occupy(start, cost.cpu, wake);
    /* The receive completes at the handling of ta plus the copy; the CPU
     * is busy with the data until then. */
    vaced_time_t done = vaced_time_max(ta + wake, cpu_free - copy);
    if (w->depth > 0 && done > w->active) {
        w->active = done;
        w->active_from = first_byte;
    }
    return done;
}

/* MPICH's calls reach these through entry/entry_packets.c, which logs
 * them in a record. */
vaced_time_t vaced_model_packet_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                         vaced_time_t *ta)
{
    vaced_time_t handled = ta ? *ta : VACED_TIME_UNSET, stamped = handled;
    if (vaced_running) {
        vaced_peers_received(peer, kind);
        vaced_trace_received(peer, kind, bytes);
        if (kind == VACED_PKT_RNDV_DATA && ta && peer >= 0)
            *ta = rndv_data_arrival(peer, bytes, *ta);
        handled = vaced_model_handle_begin(ta ? *ta : VACED_TIME_UNSET);
        vaced_awaited_packet(peer, kind, bytes, stamped, handled);
    }
    return handled;
}

vaced_time_t vaced_model_handle_begin(vaced_time_t ta)
{
    if (!vaced_running)
        return ta;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_progress_st->waits;
    vaced_time_t cur = vaced_progress_start();
    /* A stamped message costs the receiver its overhead before it can
     * answer (0 unless the target sets one). */
    vaced_time_t t = ta == VACED_TIME_UNSET ? cur
                                            : vaced_handle_time(cur, ta, 0) + vaced_recv_overhead();
    w->handling = 1;
    w->handle_ts = t;
    return t;
}

void vaced_model_handle_end(void)
{
    if (!vaced_running)
        return;
    vaced_progress_st->waits.handling = 0;
    vaced_awaited_context_end(1);
    vaced_activity_end();
}

void vaced_respond_begin_at(vaced_time_t ta, vaced_time_t post)
{
    if (!vaced_running)
        return;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_progress_st->waits;
    /* A receive posted inside a handling context (a schedule's next round,
     * vaced_handle_begin) is posted at that context's time, and the context
     * goes on after the response. */
    w->outer_handling = w->handling;
    w->outer_handle_ts = w->handle_ts;
    if (post == VACED_TIME_UNSET)
        post = w->handling ? w->handle_ts : vaced_clock_tv();
    w->responding = w->handling = 1;
    /* An arrival after the post is answered by the progress point that
     * handles it (the arrival itself when that is now or later). */
    if (ta == VACED_TIME_UNSET)
        w->handle_ts = post;
    else if (ta <= post)
        w->handle_ts = post + vaced_recv_overhead();
    else
        w->handle_ts = vaced_handle_time(vaced_progress_start(), ta, 0) + vaced_recv_overhead();
}

void vaced_respond_begin(vaced_time_t ta)
{
    vaced_respond_begin_at(ta, VACED_TIME_UNSET);
}

void vaced_model_respond_end(void)
{
    struct vaced_waits *w = &vaced_progress_st->waits;
    if (!vaced_running || !w->responding)
        return;
    w->responding = 0;
    vaced_awaited_context_end(0);
    w->handling = w->outer_handling;
    w->handle_ts = w->outer_handle_ts;
    vaced_activity_end();
}
