/* Unit tests only (tests/unit/): a simulation without vaced_sim_start (no
 * $VACED_TARGET, no MPI job), and what the run has come to, set directly. */
#ifndef VACED_SIM_TEST_H
#define VACED_SIM_TEST_H

#include <string.h>
#include "job/job.h"
#include "sim/sim.h"
#include "sim/clock_observers.h"

/* As vaced_sim_start leaves it, for `rank` of `size` on target `t`. */
static inline void vaced_sim_test_start(int rank, int size, struct vaced_target *t)
{
    memset(vaced_sim_st, 0, sizeof *vaced_sim_st);
    vaced_sim_st->rank = rank;
    vaced_sim_st->size = size;
    vaced_sim_st->target = t;
    vaced_clock_observers_install();
}

static inline void vaced_sim_test_set_rank(int rank)
{
    vaced_sim_st->rank = rank;
}

static inline void vaced_sim_test_set_size(int size)
{
    vaced_sim_st->size = size;
}

static inline void vaced_sim_test_set_target(struct vaced_target *t)
{
    vaced_sim_st->target = t;
}

static inline void vaced_sim_test_set_ended(int ended)
{
    vaced_sim_st->ended = ended;
}

static inline void vaced_sim_test_set_unmodelled(unsigned unmodelled)
{
    vaced_sim_st->unmodelled = unmodelled;
}

#endif
