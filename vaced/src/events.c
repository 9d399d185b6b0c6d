/* Communication activities: message stamps (eqs. 3, 4), handling times and
 * waits (Algorithms 2, 3).  Callers bracket these with activity begin/end
 * where the host does real work, so tV is current when they run. */
#include "state.h"
#include "overhead.h"

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
     * dearer), but a window of eager sends moves at Bcpu, as measured
     * (64 KiB: 4.1 GB/s here, against 13 GB/s without). */
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

/* Start of the current progress point: the running wait, or now. */
static vaced_time_t progress_start(void)
{
    return vaced_st.waits.depth > 0 ? vaced_st.waits.start : vaced_st.tv;
}

vaced_time_t vaced_rndv_data_arrival(int src, uint64_t bytes, vaced_time_t ta)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return ta;
    const struct vaced_target *t = vaced_st.target;
    vaced_time_t busy = vaced_target_cpu_time(t, src, vaced_st.rank, bytes);
    if (busy <= 0)
        return ta;
    /* The receiver's share starts when the sender starts (the kernel
     * streams the data) if this rank is at a progress point then. */
    vaced_time_t copy = vaced_copy_time(bytes);
    vaced_time_t sent = ta - copy - vaced_target_transfer_time(t, src, vaced_st.rank, bytes);
    vaced_time_t start = vaced_waits_handle_time(&vaced_st.waits, progress_start(), sent, 0);
    /* A CPU still busy with an earlier transfer (its own DATA, in an
     * exchange) is awake; an idle one wakes up when the data reaches it.
     * The wake-up is added to the whole, as the calibration's ping-pong
     * (n c + 3 s/Bmem, c with it) counts it. */
    vaced_time_t first_byte = sent + vaced_target_transfer_time(t, src, vaced_st.rank, 0);
    vaced_time_t wake = vaced_st.cpu_free < sent ? vaced_wakeup_delay(first_byte) : 0;
    vaced_st.cpu_free = vaced_time_max(start, vaced_st.cpu_free) + busy + wake;
    /* The receive completes at the handling of ta plus the copy; the CPU
     * is busy with the data until then. */
    vaced_time_t done = vaced_time_max(ta + wake, vaced_st.cpu_free - copy);
    if (vaced_st.waits.depth > 0 && done > vaced_st.waits.active) {
        vaced_st.waits.active = done;
        vaced_st.waits.active_from = first_byte;
    }
    return done;
}

vaced_time_t vaced_handle_begin(vaced_time_t ta)
{
    if (!vaced_running)
        return ta;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_st.waits;
    vaced_time_t cur = progress_start();
    /* A stamped message costs the receiver its overhead before it can
     * answer (0 unless the target sets one). */
    vaced_time_t t = ta == VACED_TIME_UNSET ? cur
                                            : vaced_handle_time(cur, ta, 0) + vaced_recv_overhead();
    w->handling = 1;
    w->handle_ts = t;
    return t;
}

void vaced_handle_end(void)
{
    if (!vaced_running)
        return;
    vaced_st.waits.handling = 0;
    vaced_activity_end();
}

void vaced_respond_begin_at(vaced_time_t ta, vaced_time_t post)
{
    if (!vaced_running)
        return;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_st.waits;
    /* A receive posted inside a handling context (a schedule's next round,
     * vaced_handle_begin) is posted at that context's time, and the context
     * goes on after the response. */
    w->outer_handling = w->handling;
    w->outer_handle_ts = w->handle_ts;
    if (post == VACED_TIME_UNSET)
        post = w->handling ? w->handle_ts : vaced_st.tv;
    w->responding = w->handling = 1;
    /* An arrival after the post is answered by the progress point that
     * handles it (the arrival itself when that is now or later). */
    if (ta == VACED_TIME_UNSET)
        w->handle_ts = post;
    else if (ta <= post)
        w->handle_ts = post + vaced_recv_overhead();
    else
        w->handle_ts = vaced_handle_time(progress_start(), ta, 0) + vaced_recv_overhead();
}

void vaced_respond_begin(vaced_time_t ta)
{
    vaced_respond_begin_at(ta, VACED_TIME_UNSET);
}

void vaced_respond_end(void)
{
    struct vaced_waits *w = &vaced_st.waits;
    if (!vaced_running || !w->responding)
        return;
    w->responding = 0;
    w->handling = w->outer_handling;
    w->handle_ts = w->outer_handle_ts;
    vaced_activity_end();
}

/* The receiver's CPU work for one message: its overhead and the copy out. */
static vaced_time_t recv_work(uint64_t bytes)
{
    return vaced_recv_overhead() + vaced_copy_time(bytes);
}

vaced_time_t vaced_recv_done(vaced_time_t ta, uint64_t bytes)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    vaced_time_t work = recv_work(bytes);
    return vaced_handle_time(progress_start(), ta, work) + work;
}

/* When an eager receive's handling begins, and whether a poll does it: a
 * test or probe, recorded or the one running (not a blocking wait).  MPICH
 * reads the DATA inside that MPI_Test or MPI_Iprobe, whose CPU time is the
 * program's: what the program computes after it waits for the work. */
static vaced_time_t recv_handling(vaced_time_t ta, vaced_time_t work, int *polled)
{
    enum vaced_handler by;
    vaced_time_t h = vaced_handle_time_by(progress_start(), ta, work, &by);
    *polled = by == VACED_BY_POLL || (by == VACED_BY_CURRENT && vaced_st.waits.depth == 0);
    return h;
}

vaced_time_t vaced_recv_visible(vaced_time_t ta, uint64_t bytes)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    int polled;
    vaced_time_t work = recv_work(bytes), h = recv_handling(ta, work, &polled);
    return polled ? h : h + work;
}

vaced_time_t vaced_wait_complete_recv(vaced_time_t ta, uint64_t bytes)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    int polled;
    vaced_time_t work = recv_work(bytes), h = recv_handling(ta, work, &polled);
    if (vaced_st.waits.depth == 0) {
        if (polled && h <= vaced_st.tv) {
            vaced_st.tv += work;    /* read by this test, or by an earlier poll */
            return vaced_st.tv;
        }
        if (h + work <= vaced_st.tv)
            return h + work;        /* handled by a wait, where the CPU was free */
        vaced_wait_begin();
        vaced_time_t done = vaced_wait_complete_recv(ta, bytes);
        vaced_wait_end();
        return done;
    }
    if (polled)
        h = vaced_time_max(h, vaced_st.waits.start);   /* a poll before this wait read it */
    vaced_turns_add(&vaced_st.recv_turns, h, work);    /* no memory: no turn, still h + work */
    vaced_wait_complete(h + work);
    return h + work;
}

vaced_time_t vaced_recv_found_at(vaced_time_t ta, uint64_t bytes, vaced_time_t post)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    int now = post == VACED_TIME_UNSET;
    if (now)
        post = vaced_st.tv;
    if (ta > post)
        return VACED_TIME_UNSET;
    vaced_time_t done = post + recv_work(bytes);        /* ADR: E_DR^end */
    if (now)
        vaced_st.tv = done;
    return done;
}

vaced_time_t vaced_recv_found_read(vaced_time_t ta, uint64_t bytes, vaced_time_t post)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    vaced_time_t p = post == VACED_TIME_UNSET ? vaced_st.tv : post;
    if (vaced_waits_handle_time(&vaced_st.waits, p, ta, recv_work(bytes)) >= p)
        return VACED_TIME_UNSET;
    return vaced_recv_found_at(ta, bytes, post);
}

vaced_time_t vaced_recv_found(vaced_time_t ta, uint64_t bytes)
{
    return vaced_recv_found_at(ta, bytes, VACED_TIME_UNSET);
}

void vaced_wait_begin(void)
{
    if (!vaced_running)
        return;
    vaced_activity_begin();
    struct vaced_waits *w = &vaced_st.waits;
    if (w->depth++ == 0) {
        w->start = w->done = w->active = w->active_from = vaced_st.tv;      /* AWTstart = tV */
        /* Parked responses go out now: those due later are handled during
         * this wait on the target if it depends on them, and the host must
         * not block while holding them. */
        vaced_fire_deferred(INT64_MAX);
    }
}

void vaced_wait_complete(vaced_time_t done)
{
    struct vaced_waits *w = &vaced_st.waits;
    if (!vaced_running || done == VACED_TIME_UNSET)
        return;
    if (w->depth == 0) {
        vaced_complete_now(done);
        return;
    }
    if (done > w->done)
        w->done = done;
}

void vaced_wait_end(void)
{
    if (!vaced_running)
        return;
    struct vaced_waits *w = &vaced_st.waits;
    if (--w->depth == 0) {
        vaced_time_t busy_from, busy = vaced_turns_finish(&vaced_st.recv_turns, w->start, &busy_from);
        vaced_st.tv = vaced_time_max(w->done, busy);           /* AWTend */
        vaced_waits_record_blocked(w, w->start, vaced_st.tv, busy_from, busy, w->active, w->active_from);
    }
    vaced_activity_end();
}

void vaced_complete_now(vaced_time_t done)
{
    /* tV only grows, so a completion at or before the last event's tV
     * needs no clock read. */
    if (!vaced_running || done == VACED_TIME_UNSET || done <= vaced_st.tv)
        return;
    vaced_wait_begin();
    vaced_wait_complete(done);
    vaced_wait_end();
}
