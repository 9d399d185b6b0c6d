/* The receiving CPU's turns: the messages one wait handles each cost the
 * receiver its recv_overhead and the copy out of MPICH's buffer, one after
 * another (one CPU, one progress engine).  Pure data structure over target
 * times, unit-tested without a clock. */
#ifndef VACED_TURNS_H
#define VACED_TURNS_H

#include "clock/vtime.h"

struct vaced_turn {
    vaced_time_t start, work;   /* handled at start, then busy for work */
};

struct vaced_turns {
    struct vaced_turn *items;
    unsigned count, cap;
};

/* Adds a message handled at `start` that keeps the CPU busy for `work`;
 * -1 when out of memory (the message then takes no turn). */
int vaced_turns_add(struct vaced_turns *q, vaced_time_t start, vaced_time_t work);
/* When the CPU is done with every added message, each begun at its start
 * or when the one handled before it is done (in start order, whatever
 * order they were added in), and in *first when it began the first;
 * `none` for both when there are none.  Empties q. */
vaced_time_t vaced_turns_finish(struct vaced_turns *q, vaced_time_t none, vaced_time_t *first);
void vaced_turns_free(struct vaced_turns *q);

#endif
