/* Who hears the clock (clock/clock_observer.h): the recorder logs its
 * calls and measurements, the trace draws its spans, the breakdown and
 * the call tables sum them, the wildcard bounds answer at activity
 * boundaries, where tV is current, and the segment causes (when asked
 * for) note what each measured segment went through on the host. */
#include <string.h>
#include "clock/clock_observer.h"
#include "progress/wildcard_bounds.h"
#include "record/record.h"
#include "report/breakdown.h"
#include "report/calls.h"
#include "report/segment_causes.h"
#include "report/trace_state.h"
#include "sim/clock_observers.h"

static const enum vaced_log_op call_op[] = {
    [VACED_CLOCK_BEGIN] = VACED_OP_BEGIN,
    [VACED_CLOCK_END] = VACED_OP_END_ACT,
    [VACED_CLOCK_TEST_FAILED] = VACED_OP_TEST_FAILED,
};

static void call_entered(enum vaced_clock_call call)
{
    if (vaced_rec_enter())
        vaced_rec_op(call_op[call]);
}

static void call_left(void)
{
    vaced_rec_leave();
}

static void slept(vaced_time_t t)
{
    if (vaced_rec_enter()) {
        vaced_rec_op(VACED_OP_SLEEP);
        vaced_rec_u(t > 0 ? (uint64_t)t : 0);
    }
    vaced_rec_leave();
}

static void segment_measured(vaced_time_t seg, double coldness, int canary)
{
    vaced_causes_segment_end(vaced_time_to_s(seg));
    if (vaced_recording) {
        uint64_t bits;
        memcpy(&bits, &coldness, sizeof bits);
        vaced_rec_op(VACED_OP_SEGMENT);
        vaced_rec_u((uint64_t)seg);
        if (canary)
            vaced_rec_u(bits);
    }
}

static void spent(enum vaced_clock_spent what, vaced_time_t from, vaced_time_t to)
{
    int poll = what == VACED_SPENT_POLL;
    vaced_trace_span(poll ? "poll" : "compute", from, to);
    vaced_breakdown_add(poll ? VACED_TERM_POLL : VACED_TERM_COMPUTE, to - from);
}

static void activity_begun(void)
{
    vaced_calls_activity();
    vaced_bounds_activity_point();
}

static void activity_closed(vaced_time_t start, vaced_time_t end, vaced_time_t charge, int cold,
                            int oversubscribed)
{
    if (vaced_recording) {
        vaced_rec_op(VACED_OP_CLOSE);
        vaced_rec_u((uint64_t)charge);
        if (oversubscribed)
            vaced_rec_u((uint64_t)cold);
    }
    vaced_causes_segment_start(cold);
    vaced_trace_span("mpi", start, end);
}

static const struct vaced_clock_observer observers = {
    .call_entered = call_entered,
    .call_left = call_left,
    .slept = slept,
    .segment_measured = segment_measured,
    .spent = spent,
    .activity_begun = activity_begun,
    .activity_closing = vaced_bounds_activity_point,   /* its sends nest in the activity */
    .activity_closed = activity_closed,
};

void vaced_clock_observers_install(void)
{
    vaced_clock_observe(&observers);
}
