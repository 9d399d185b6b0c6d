/* Unit tests only (tests/unit/): sets what the clock otherwise measures, so
 * that a test's times are exact or its computation is given. */
#ifndef VACED_CLOCK_TEST_H
#define VACED_CLOCK_TEST_H

#include "clock/clock.h"

/* CPU time one clock read adds to a segment (huge: every segment is 0). */
static inline void vaced_clock_test_set_read_cost(int64_t ns)
{
    vaced_clock_st->read_cost_ns = ns;
}

/* CPU time when the running compute segment began. */
static inline void vaced_clock_test_set_t1(int64_t ns)
{
    vaced_clock_st->t1_ns = ns;
}

static inline void vaced_clock_test_set_depth(int depth)
{
    vaced_clock_st->depth = depth;
}

static inline void vaced_clock_test_set_compute(vaced_time_t compute)
{
    vaced_clock_st->compute = compute;
}

#endif
