/* Wait history and handling times: the paper's Algorithms 2 and 3.
 * Pure data structure over target times, unit-tested without a clock. */
#ifndef VACED_HISTORY_H
#define VACED_HISTORY_H

#include "clock/vtime.h"

/* Completed waits kept for Algorithm 3.  A message whose arrival is older
 * than the oldest kept wait is handled at its arrival time: with this many
 * waits of history that only happens to messages held on the host for
 * thousands of waits, and it bounds memory for runs of any length. */
#define VACED_WAIT_HISTORY 4096

/* A progress point: a blocking wait (blocked: the rank can fall asleep in
 * it; active: the end of its latest handling, of a message that arrived at
 * active_from; from busy_from to busy its CPU took turns on the messages
 * it handled), or polls (not blocked). */
struct vaced_span {
    vaced_time_t start, end, busy_from, busy, active, active_from;
    int blocked;
};

/* The ring last: a replay's rank touches only the pages of the entries it
 * has written (sim/rank_state.c). */
struct vaced_waits {
    unsigned head, count;       /* oldest entry, number of entries */
    int dropped;                /* older waits have left the ring */
    int depth;                  /* nesting of the running wait */
    vaced_time_t start;         /* AWTstart of the running wait */
    vaced_time_t active;        /* its latest handling (wake-up: idle since) */
    vaced_time_t active_from;   /* the arrival that handling began with */
    vaced_time_t done;          /* latest completion awaited so far */
    int handling;               /* inside vaced_handle_begin/end or respond */
    int responding;             /* inside vaced_respond_begin/end */
    vaced_time_t handle_ts;     /* ttemp of the message being handled */
    int outer_handling;         /* the handling context a respond interrupts */
    vaced_time_t outer_handle_ts;
    struct vaced_span hist[VACED_WAIT_HISTORY]; /* ring, in start order */
};

void vaced_waits_reset(struct vaced_waits *w);
/* Records a finished wait [start, end]; starts never decrease. */
void vaced_waits_record(struct vaced_waits *w, vaced_time_t start, vaced_time_t end);
/* The same for a blocking wait whose CPU took turns on the messages it
 * handled from `busy_from` to `busy` (both `start`: none) and whose latest
 * handling, of a message that arrived at `active_from`, ended at `active`. */
void vaced_waits_record_blocked(struct vaced_waits *w, vaced_time_t start, vaced_time_t end,
                                vaced_time_t busy_from, vaced_time_t busy,
                                vaced_time_t active, vaced_time_t active_from);
/* Algorithm 3, lines 1-13: the target time at which a message arriving at
 * `ta` is handled, when the current progress point started at `cur`.  A
 * past wait whose CPU was busy with its turns when the message came handles
 * it once they are done; a message that keeps the CPU busy for `work` (> 0)
 * only when that fits before the wait's end.  Otherwise the next progress
 * point does: a wait's time is past, and its end cannot move. */
vaced_time_t vaced_waits_handle_time(const struct vaced_waits *w, vaced_time_t cur, vaced_time_t ta,
                                     vaced_time_t work);
/* What handles it, for vaced_waits_handler. */
enum vaced_handler {
    VACED_BY_CURRENT,           /* the current progress point (or the arrival itself) */
    VACED_BY_POLL,              /* a recorded poll: the rank's CPU was the program's */
    VACED_BY_WAIT               /* a recorded wait (or history that is gone) */
};
/* The same, and in *by what handles the message. */
vaced_time_t vaced_waits_handler(const struct vaced_waits *w, vaced_time_t cur, vaced_time_t ta,
                                 vaced_time_t work, enum vaced_handler *by);
/* When a message arriving at `ta` finds the rank blocked in a wait (the
 * running one, or a recorded wait that spanned ta): the time since which it
 * had been idle there, the wait's start or its latest handling before ta;
 * ta itself (not idle) when that handling was still going on at ta, begun
 * by an earlier arrival (the rank was being woken or busy); the same
 * answer when asked again for the same arrival.
 * VACED_TIME_UNSET when it was computing or polling. */
vaced_time_t vaced_waits_idle_since(const struct vaced_waits *w, vaced_time_t ta);

#endif
