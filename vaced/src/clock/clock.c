/* The virtual clock: compute segments measured in host CPU time (paper 3.2). */
#include <stdint.h>
#include <string.h>
#include <time.h>
#include "clock/clock.h"
#include "clock/clock_observer.h"
#include "cputime/cputime.h"
#include "cputime/host_clocks.h"
#include "job/job.h"
#include "job/state_slot.h"

static struct vaced_clock clock_live;
struct vaced_clock *vaced_clock_st = &clock_live;
VACED_STATE_SLOT(vaced_clock_slot, vaced_clock_st, clock_live);
int vaced_running;             /* the process's, not a rank's: no slot */

/* A segment's CPU time holds the end of the read that opened it and the
 * start of the read that closes it: one read's cost, which the target,
 * running uninstrumented, does not spend.  The median of back-to-back
 * read gaps estimates it (the minimum underestimates the typical read). */
static int64_t vaced_calibrate_read_cost(void)
{
    enum { N = 63 };
    int64_t gap[N];
    for (int i = 0; i < N; i++) {
        int64_t a = vaced_cputime_ns(), b = vaced_cputime_ns(), g = b - a;
        int j = i;
        for (; j > 0 && gap[j - 1] > g; j--)    /* insertion sort */
            gap[j] = gap[j - 1];
        gap[j] = g;
    }
    return gap[N / 2];
}

/* CPU time since `from`, less one clock read, in target time. */
static vaced_time_t segment_since(const struct vaced_clock *c, int64_t from, int64_t now)
{
    int64_t ns = now - from - c->read_cost_ns;
    return ns > 0 ? vaced_time_from_ns(ns) : 0;
}

static void nothing_entered(enum vaced_clock_call call) { (void)call; }
static void nothing(void) {}
static void nothing_slept(vaced_time_t slept) { (void)slept; }
static void nothing_measured(vaced_time_t seg, double coldness, int canary)
{
    (void)seg, (void)coldness, (void)canary;
}
static void nothing_spent(enum vaced_clock_spent what, vaced_time_t from, vaced_time_t to)
{
    (void)what, (void)from, (void)to;
}
static void nothing_closed(vaced_time_t start, vaced_time_t end, vaced_time_t charge, int cold,
                           int oversubscribed)
{
    (void)start, (void)end, (void)charge, (void)cold, (void)oversubscribed;
}

static const struct vaced_clock_observer nobody = {
    .call_entered = nothing_entered,
    .call_left = nothing,
    .slept = nothing_slept,
    .segment_measured = nothing_measured,
    .spent = nothing_spent,
    .activity_begun = nothing,
    .activity_closing = nothing,
    .activity_closed = nothing_closed,
};

const struct vaced_clock_observer *vaced_clock_observer = &nobody;

void vaced_clock_observe(const struct vaced_clock_observer *o)
{
    vaced_clock_observer = o ? o : &nobody;
}

static void add_compute(struct vaced_clock *c, vaced_time_t seg, enum vaced_clock_spent what)
{
    vaced_time_t from = c->tv;
    c->tv += seg;
    c->compute += seg;
    vaced_clock_observer->spent(what, from, c->tv);
}

static int64_t wall_ns(void)
{
    struct timespec t;
    vaced_host_clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The wall time now, where the canary or the cold-start note needs it
 * (one read serves both); 0 otherwise. */
static int64_t wall_if_needed(const struct vaced_clock *c)
{
    return c->canary.head || c->oversubscribed ? wall_ns() : 0;
}

/* The canary's reading for the segment that just ended, cpu_ns long, at
 * wall time `wall` (canary.h); 0 when the segment was not the rank's alone:
 * another process or the hypervisor, running in it (wall time beyond its
 * CPU time), cools the caches as the target, a rank per core, would not. */
static double segment_coldness(struct vaced_clock *c, int64_t cpu_ns, int64_t wall)
{
    if (!c->canary.head || wall - c->wall_t1_ns > cpu_ns + cpu_ns / 50 + 2000)
        return 0;
    return vaced_canary_coldness(&c->canary);
}

const struct vaced_clock_input *vaced_clock_input;

/* The compute segment that ended at this activity's start and the
 * canary's reading after it: measured on the host (and recorded), or, in
 * a replay, read back. */
static void measure_segment(struct vaced_clock *c, vaced_time_t *seg, double *coldness)
{
    if (vaced_clock_input) {
        vaced_clock_input->segment(seg, coldness);
    } else {
        c->t2_ns = vaced_cputime_ns();     /* E*start: t2 = cpu(); tV += t2 - t1 */
        int64_t wall = wall_if_needed(c);
        *seg = segment_since(c, c->t1_ns, c->t2_ns);
        *coldness = segment_coldness(c, c->t2_ns - c->t1_ns, wall);
        c->call_wall_ns = wall;
        c->call_cpu_ns = c->t2_ns;
    }
    /* a run taking another record's compute records it too */
    vaced_clock_observer->segment_measured(*seg, *coldness, c->canary.head != NULL);
}

/* At the activity's end: the CPU time a failed test charges (0 if none
 * failed) and whether the segment to come starts cold. */
static void measure_close(struct vaced_clock *c, vaced_time_t *charge, int *cold)
{
    *charge = 0;
    if (vaced_clock_input) {
        vaced_clock_input->close(charge, cold);
        return;
    }
    if (c->canary.head)
        vaced_canary_coldness(&c->canary);  /* warm for the segment to come */
    int64_t now = vaced_cputime_ns();
    if (c->test_failed) {       /* polling: at most VACED_TEST_CHARGE_MAX_NS */
        int64_t from = now - c->t2_ns > VACED_TEST_CHARGE_MAX_NS
                           ? now - VACED_TEST_CHARGE_MAX_NS : c->t2_ns;
        *charge = segment_since(c, from, now);
    }
    int64_t wall = wall_if_needed(c);
    *cold = c->oversubscribed &&        /* off its core for a while in the call? */
        wall - c->call_wall_ns - (now - c->call_cpu_ns) > VACED_SLEPT_NS;
    c->t1_ns = now;             /* E*end: t1 = cpu() */
    c->wall_t1_ns = wall;
}

/* The activity boundaries load the state pointer once: nothing rebinds it
 * inside a call. */
void vaced_activity_begin(void)
{
    if (!vaced_running)
        return;
    const struct vaced_clock_observer *o = vaced_clock_observer;
    o->call_entered(VACED_CLOCK_BEGIN);
    struct vaced_clock *c = vaced_clock_st;
    if (c->depth++ == 0) {
        vaced_time_t seg;
        double coldness;
        measure_segment(c, &seg, &coldness);
        add_compute(c, seg, VACED_SPENT_COMPUTE);
        if (c->segment_cold)
            c->compute_cold += seg;
        c->last_compute = seg;
        c->last_coldness = coldness;
        c->call_start = c->tv;
        o->activity_begun();
    }
    o->call_left();
}

void vaced_activity_end(void)
{
    struct vaced_clock *c = vaced_clock_st;
    if (!vaced_running || c->depth == 0)
        return;
    const struct vaced_clock_observer *o = vaced_clock_observer;
    o->call_entered(VACED_CLOCK_END);
    if (c->depth == 1)
        o->activity_closing();
    if (--c->depth == 0) {
        vaced_time_t charge;
        int cold;
        measure_close(c, &charge, &cold);
        o->activity_closed(c->call_start, c->tv, charge, cold, c->oversubscribed);
        if (c->test_failed) {
            add_compute(c, charge, VACED_SPENT_POLL);
            c->test_failed = 0;
        }
        c->polling = 0;
        c->segment_cold = cold;
    }
    o->call_left();
}

/* A call that polls for completion and finds none (MPI_Test*, MPI_Iprobe)
 * is computation the program chose to spend: its host CPU time counts,
 * which also lets a polling loop's target time reach the completion. */
void vaced_test_failed(void)
{
    vaced_clock_observer->call_entered(VACED_CLOCK_TEST_FAILED);
    vaced_clock_observer->call_left();
    if (vaced_running && vaced_clock_st->depth > 0)
        vaced_clock_st->test_failed = 1;
}

void vaced_test_restart(void)
{
    if (vaced_running && vaced_clock_st->polling)
        vaced_clock_st->t2_ns = vaced_cputime_ns();
}

void vaced_clock_reset(void)
{
    memset(vaced_clock_st, 0, sizeof *vaced_clock_st);
}

void vaced_clock_measure_from_now(void)
{
    vaced_clock_input = NULL;
    vaced_clock_st->read_cost_ns = vaced_calibrate_read_cost();
    vaced_clock_st->t1_ns = vaced_clock_st->t2_ns = vaced_cputime_ns();
}

void vaced_clock_start(void)
{
    vaced_clock_st->tv = 0;
    if (vaced_clock_input)      /* a replay: the record has the segments */
        return;
    vaced_clock_st->read_cost_ns = vaced_calibrate_read_cost();
    vaced_clock_st->tv = 0;                      /* E_start: tV = 0; t1 = cpu() */
    vaced_clock_st->t1_ns = vaced_cputime_ns();
}

void vaced_clock_open_canary(void)
{
    vaced_canary_open(&vaced_clock_st->canary);
}

void vaced_clock_close_canary(void)
{
    vaced_canary_close(&vaced_clock_st->canary);
}

void vaced_clock_poll(void)
{
    vaced_clock_st->polling = vaced_clock_st->depth > 0;
}

vaced_time_t vaced_now(void)
{
    return vaced_clock_st->tv;
}

/* With MPI called from several threads (above MPI_THREAD_FUNNELED), one
 * clock cannot order the threads' calls: tests and probes answer as on the
 * host (the prediction is marked approximate), since waiting for a target
 * time that the threads' mixed clocks may never reach would livelock. */
vaced_time_t vaced_horizon(void)
{
    return vaced_running && !(vaced_sim_unmodelled() & VACED_UNMODELLED_THREADS)
               ? vaced_clock_st->tv : INT64_MAX;
}

vaced_time_t vaced_clock_now_ps(void)
{
    const struct vaced_clock *c = vaced_clock_st;
    vaced_time_t t = c->tv;
    if (vaced_running && c->depth == 0)
        t += segment_since(c, c->t1_ns, vaced_cputime_ns());
    return t;
}

double vaced_wtime(void)
{
    return vaced_time_to_s(vaced_clock_now_ps());
}

void vaced_clock_sleep(vaced_time_t slept)
{
    vaced_clock_observer->slept(slept);
    if (vaced_running && slept > 0)
        add_compute(vaced_clock_st, slept, VACED_SPENT_COMPUTE);
}

