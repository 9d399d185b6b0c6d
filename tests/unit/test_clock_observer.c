/* Unit tests of the clock's observer table (vaced/src/clock/clock_observer.h):
 * an observer of its own, installed in place of the simulation's, hears
 * every event of a nested activity, a failed test and a sleep, in order,
 * with the clock's values; with none installed, nothing is heard and the
 * clock still counts.  The segments come through vaced_clock_input, as in
 * a replay, so every time is exact.
 *
 * Run: test_clock_observer */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "clock/clock.h"
#include "clock/clock_observer.h"

#define US(x) ((vaced_time_t)((x) * 1000000LL))

static char heard[2048];

static void note(const char *fmt, long long a, long long b)
{
    size_t n = strlen(heard);
    snprintf(heard + n, sizeof heard - n, fmt, a, b);
}

static const char *call_name(enum vaced_clock_call c)
{
    return c == VACED_CLOCK_BEGIN ? "begin" : c == VACED_CLOCK_END ? "end" : "test_failed";
}

static void entered(enum vaced_clock_call c)
{
    size_t n = strlen(heard);
    snprintf(heard + n, sizeof heard - n, "enter %s;", call_name(c));
}
static void left(void) { note("leave;", 0, 0); }
static void slept(vaced_time_t t) { note("slept %lld;", t / US(1), 0); }
static void measured(vaced_time_t seg, double coldness, int canary)
{
    note("segment %lld cold %lld", seg / US(1), (long long)(coldness * 10));
    note(" canary %lld;", canary, 0);
}
static void spent(enum vaced_clock_spent what, vaced_time_t from, vaced_time_t to)
{
    note(what == VACED_SPENT_POLL ? "poll %lld-%lld;" : "compute %lld-%lld;", from / US(1),
         to / US(1));
}
static void begun(void) { note("begun;", 0, 0); }
static void closing(void) { note("closing;", 0, 0); }
static void closed(vaced_time_t start, vaced_time_t end, vaced_time_t charge, int cold,
                   int oversubscribed)
{
    note("closed %lld-%lld", start / US(1), end / US(1));
    note(" charge %lld cold %lld", charge / US(1), cold);
    note(" over %lld;", oversubscribed, 0);
}

static const struct vaced_clock_observer listener = {
    .call_entered = entered,
    .call_left = left,
    .slept = slept,
    .segment_measured = measured,
    .spent = spent,
    .activity_begun = begun,
    .activity_closing = closing,
    .activity_closed = closed,
};

/* The host's measurements, given: each segment 5 us at coldness 2.5, each
 * close charges 3 us (counted only after a failed test) and starts cold. */
static void given_segment(vaced_time_t *seg, double *coldness)
{
    *seg = US(5);
    *coldness = 2.5;
}
static void given_close(vaced_time_t *charge, int *cold)
{
    *charge = US(3);
    *cold = 1;
}
static const struct vaced_clock_input given = { given_segment, given_close };

int main(void)
{
    vaced_clock_reset();
    vaced_clock_input = &given;
    vaced_clock_set_oversubscribed(1);
    vaced_clock_start();
    vaced_running = 1;

    vaced_clock_observe(&listener);
    vaced_activity_begin();             /* the outermost: measured, begun */
    vaced_activity_begin();             /* nested: entered and left only */
    vaced_test_failed();
    vaced_activity_end();
    vaced_activity_end();               /* closes: the failed test's charge is a poll */
    vaced_clock_sleep(US(2));
    CHECK_EQ_STR(heard,
                 "enter begin;segment 5 cold 25 canary 0;compute 0-5;begun;leave;"
                 "enter begin;leave;"
                 "enter test_failed;leave;"
                 "enter end;leave;"
                 "enter end;closing;closed 5-5 charge 3 cold 1 over 1;poll 5-8;leave;"
                 "slept 2;compute 8-10;");
    CHECK_EQ_I64(vaced_now(), US(10));
    CHECK_EQ_I64(vaced_clock_compute(), US(10));        /* 5 computed, 3 polled, 2 slept */
    CHECK_EQ_I64(vaced_clock_compute_cold(), 0);        /* the first segment began warm */

    /* an end without a begin is no event */
    heard[0] = 0;
    vaced_activity_end();
    CHECK_EQ_STR(heard, "");

    /* nobody listening: nothing heard, the clock goes on */
    vaced_clock_observe(NULL);
    vaced_activity_begin();
    vaced_activity_end();
    CHECK_EQ_STR(heard, "");
    CHECK_EQ_I64(vaced_now(), US(15));
    CHECK_EQ_I64(vaced_clock_compute_cold(), US(5));    /* after a close that said cold */

    /* not running: the calls are no events */
    vaced_clock_observe(&listener);
    vaced_running = 0;
    vaced_activity_begin();
    vaced_activity_end();
    CHECK_EQ_STR(heard, "");
    return CHECK_REPORT();
}
