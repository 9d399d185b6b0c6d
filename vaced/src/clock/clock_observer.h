/* What the clock reports of itself, and to whom: one table of observers
 * that the simulation's start fills (sim/clock_observers.c: the recorder, the
 * trace, the breakdown, the call tables, the wildcard bounds).  The clock
 * includes none of them, so a new observer of segments or activities is a
 * new line in that table, not a new dependency of the clock.  Every entry
 * is set (no-ops where nobody listens): the clock calls without checks. */
#ifndef VACED_CLOCK_OBSERVER_H
#define VACED_CLOCK_OBSERVER_H

#include "clock/vtime.h"

/* What a span of the rank's own CPU time was spent on. */
enum vaced_clock_spent {
    VACED_SPENT_COMPUTE,        /* a compute segment, or a sleep the program's clocks count */
    VACED_SPENT_POLL            /* a test or probe that found nothing */
};

/* The activity calls the clock has (vaced.h). */
enum vaced_clock_call {
    VACED_CLOCK_BEGIN,          /* vaced_activity_begin */
    VACED_CLOCK_END,            /* vaced_activity_end */
    VACED_CLOCK_TEST_FAILED     /* vaced_test_failed */
};

struct vaced_clock_observer {
    /* An activity call, nested or not, enters and leaves: a recorder logs
     * the outermost and nothing the call does meanwhile. */
    void (*call_entered)(enum vaced_clock_call call);
    void (*call_left)(void);
    /* The program slept `slept` on its clocks (vaced_clock_sleep), before
     * the clock counts it. */
    void (*slept)(vaced_time_t slept);
    /* The compute segment that ended as the outermost activity began:
     * measured on the host, or read back by a replay; with the canary's
     * reading when `canary` is open (0: the segment was not the rank's
     * alone). */
    void (*segment_measured)(vaced_time_t seg, double coldness, int canary);
    /* tV moved from `from` to `to` on the rank's own CPU time. */
    void (*spent)(enum vaced_clock_spent what, vaced_time_t from, vaced_time_t to);
    /* The outermost activity began; tV is current. */
    void (*activity_begun)(void);
    /* The outermost activity is about to close (sends it makes still nest). */
    void (*activity_closing)(void);
    /* The outermost activity closed, having run from `start` to `end` of
     * tV: the CPU time a failed test in it charges (0: none) and, when the
     * host is `oversubscribed`, whether the next segment starts `cold`. */
    void (*activity_closed)(vaced_time_t start, vaced_time_t end, vaced_time_t charge, int cold,
                            int oversubscribed);
};

/* The table in use; never NULL (at first, one that hears nothing). */
extern const struct vaced_clock_observer *vaced_clock_observer;

/* From now on, `o` hears the clock (NULL: nobody). */
void vaced_clock_observe(const struct vaced_clock_observer *o);

#endif
