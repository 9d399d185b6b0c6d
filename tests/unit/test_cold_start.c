/* Unit tests of the cold-start note (vaced/src/clock/clock.c): on an
 * oversubscribed host, a compute segment that begins after the rank slept
 * in its MPI call counts as cold; one after a call that kept the core does
 * not; without oversubscription nothing is noted. */
#include <stdio.h>
#include <time.h>

#include "check.h"
#include "paper16.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "progress/waits.h"

/* Spins for about `us` of CPU time (the segment's work). */
static void spin(long us)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void sleep_us(long us)
{
    struct timespec t = { 0, us * 1000 };
    nanosleep(&t, NULL);
}

/* One MPI call that sleeps `slept_us` on the host, then a segment of
 * `work_us`, closed by the next call. */
static void call_then_segment(long slept_us, long work_us)
{
    vaced_activity_begin();
    if (slept_us)
        sleep_us(slept_us);
    vaced_activity_end();
    spin(work_us);
    vaced_activity_begin();
    vaced_activity_end();
}

static void start(int oversubscribed)
{
    vaced_clock_reset();
    vaced_progress_reset();
    vaced_clock_set_oversubscribed(oversubscribed);
    vaced_clock_start();
    vaced_running = 1;
}

int main(int argc, char **argv)
{
    struct vaced_target *t = paper16_load(argc, argv);

    if (!t)
        return CHECK_REPORT();
    vaced_sim_test_start(0, 16, t);

    start(1);
    call_then_segment(0, 2000);                /* kept its core: warm */
    CHECK_EQ_I64(vaced_clock_compute_cold(), 0);
    vaced_time_t before = vaced_clock_compute();
    call_then_segment(5000, 2000);             /* slept 5 ms: cold */
    vaced_time_t seg = vaced_clock_compute() - before;
    CHECK(seg >= vaced_time_from_ns(2000000));
    /* the cold segment only (the empty one between the two calls is warm) */
    CHECK(vaced_clock_compute_cold() >= vaced_time_from_ns(1900000) &&
          vaced_clock_compute_cold() <= seg);
    vaced_time_t cold = vaced_clock_compute_cold();
    call_then_segment(0, 1000);                /* warm again */
    CHECK_EQ_I64(vaced_clock_compute_cold(), cold);

    start(0);                                   /* one rank a core: not noted */
    call_then_segment(5000, 1000);
    CHECK_EQ_I64(vaced_clock_compute_cold(), VACED_TIME_UNSET);

    vaced_running = 0;
    vaced_target_free(t);
    return CHECK_REPORT();
}
