/* Uniform computation (uniform.c, docs/replay.md#uniform-computation). */
#ifndef VACED_REPLAY_UNIFORM_H
#define VACED_REPLAY_UNIFORM_H

#include <stddef.h>
#include <stdint.h>
#include "replay/ranks.h"

/* On segments the load kept: every rank's k-th compute segment becomes
 * the median of the k-th segments of the ranks with as many segments as
 * it (the same sequence of calls); *groups gets the number of such
 * groups.  0, or -1 when out of memory. */
int vaced_uniform_segments(struct rank_run *ranks, int size, int *groups);
/* The value to re-time r's segment at `offset` with (`recorded` if none). */
uint64_t vaced_uniform_value(const struct rank_run *r, size_t offset, uint64_t recorded);

#endif
