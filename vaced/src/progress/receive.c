/* Receive completion: when a receive's DATA is handled and copied out,
 * whether a wait, a poll or the receive's post finds it. */
#include "network/overhead.h"
#include "network/send.h"
#include "progress/waits.h"
#include "progress/handling.h"
#include "progress/receive.h"
#include "report/awaited.h"
#include "report/breakdown.h"
#include "report/trace_path.h"

/* The receiver's CPU work for one message: its overhead and the copy out. */
static vaced_time_t recv_work(uint64_t bytes)
{
    return vaced_recv_overhead() + vaced_copy_time(bytes);
}

/* The receiver's work, added to the breakdown (and the trace) where it
 * moves tV itself, tV being at its end. */
static void add_work(uint64_t bytes)
{
    vaced_time_t o_r = vaced_recv_overhead(), copy = vaced_copy_time(bytes),
        end = vaced_clock_tv();
    vaced_breakdown_add(VACED_TERM_RECV_OVERHEAD, o_r);
    vaced_breakdown_add(VACED_TERM_COPY, copy);
    vaced_trace_step(end - copy - o_r, end - copy, end, VACED_TERM_RECV_OVERHEAD, VACED_TERM_COPY);
}

vaced_time_t vaced_recv_done(vaced_time_t ta, uint64_t bytes)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    vaced_time_t work = recv_work(bytes);
    vaced_time_t h = vaced_handle_time(vaced_progress_start(), ta, work);
    vaced_awaited_answer_recv(ta, h, vaced_recv_overhead(), vaced_copy_time(bytes), h + work);
    return h + work;
}

/* When an eager receive's handling begins, and whether a poll does it: a
 * test or probe, recorded or the one running (not a blocking wait).  MPICH
 * reads the DATA inside that MPI_Test or MPI_Iprobe, whose CPU time is the
 * program's: what the program computes after it waits for the work. */
static vaced_time_t recv_handling(vaced_time_t ta, vaced_time_t work, int *polled)
{
    enum vaced_handler by;
    vaced_time_t h = vaced_handle_time_by(vaced_progress_start(), ta, work, &by);
    *polled = by == VACED_BY_POLL ||
              (by == VACED_BY_CURRENT && vaced_progress_st->waits.depth == 0);
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
    struct vaced_waits *w = &vaced_progress_st->waits;
    int polled;
    vaced_time_t work = recv_work(bytes), h = recv_handling(ta, work, &polled);
    if (w->depth == 0) {
        if (polled && h <= vaced_clock_tv()) {
            /* read by this test, or by an earlier poll */
            vaced_clock_set(vaced_clock_tv() + work);
            add_work(bytes);
            return vaced_clock_tv();
        }
        if (h + work <= vaced_clock_tv())
            return h + work;        /* handled by a wait, where the CPU was free */
        vaced_model_wait_begin();
        vaced_time_t done = vaced_wait_complete_recv(ta, bytes);
        vaced_model_wait_end();
        return done;
    }
    if (polled)
        h = vaced_time_max(h, w->start);   /* a poll before this wait read it */
    /* no memory: no turn, still h + work */
    vaced_turns_add(&vaced_progress_st->recv_turns, h, work);
    vaced_awaited_answer_recv(ta, h, vaced_recv_overhead(), vaced_copy_time(bytes), h + work);
    vaced_model_wait_complete(h + work);
    return h + work;
}

vaced_time_t vaced_recv_found_at(vaced_time_t ta, uint64_t bytes, vaced_time_t post)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    int now = post == VACED_TIME_UNSET;
    if (now)
        post = vaced_clock_tv();
    if (ta > post)
        return VACED_TIME_UNSET;
    vaced_time_t done = post + recv_work(bytes);        /* ADR: E_DR^end */
    if (now) {
        vaced_clock_set(done);
        add_work(bytes);
    }
    return done;
}

vaced_time_t vaced_recv_found_read(vaced_time_t ta, uint64_t bytes, vaced_time_t post)
{
    if (!vaced_running || ta == VACED_TIME_UNSET)
        return VACED_TIME_UNSET;
    vaced_time_t p = post == VACED_TIME_UNSET ? vaced_clock_tv() : post;
    if (vaced_waits_handle_time(&vaced_progress_st->waits, p, ta, recv_work(bytes)) >= p)
        return VACED_TIME_UNSET;
    return vaced_recv_found_at(ta, bytes, post);
}

vaced_time_t vaced_recv_found(vaced_time_t ta, uint64_t bytes)
{
    return vaced_recv_found_at(ta, bytes, VACED_TIME_UNSET);
}
