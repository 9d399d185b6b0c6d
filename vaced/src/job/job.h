/* This rank's place in the job (job.c): its rank, the job's size, the
 * target, and what the run has come to (ended, features the model does not
 * time).  The simulation's start and end (sim/sim.c) set them; every
 * module reads them through the inline readers below, on every message,
 * so without a call.  The ground floor of the model: it calls nothing.
 * One instance per simulated rank (job/state_slot.h): the live library's
 * process is one rank, and MPICH's global lock serialises the hooks. */
#ifndef VACED_JOB_H
#define VACED_JOB_H

#include "vaced.h"
#include "cputime/cputime.h"

struct vaced_target;    /* machine/target.h: job/ lies below the description's parser */

struct vaced_sim {
    int rank, size;
    int ended;                  /* E_end happened: tv is the prediction */
    unsigned unmodelled;        /* enum vaced_unmodelled bits used so far */
    struct vaced_target *target;
    enum vaced_cpu_source cpu_source;
    int replay;                 /* re-timing a record (replay.c), not a live run;
                                 * 2: with uniform computation (uniform.c) */
    char target_path[512];
};

/* Written by the simulation's start and end (sim/sim.c) and by
 * vaced_unmodelled; read by every module through the readers below.
 * The rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_sim *vaced_sim_st;

static inline int vaced_sim_rank(void)
{
    return vaced_sim_st->rank;
}

static inline int vaced_sim_size(void)
{
    return vaced_sim_st->size;
}

/* NULL before the simulation starts and after it is shut down. */
static inline const struct vaced_target *vaced_sim_target(void)
{
    return vaced_sim_st->target;
}

static inline int vaced_sim_ended(void)
{
    return vaced_sim_st->ended;
}

static inline unsigned vaced_sim_unmodelled(void)
{
    return vaced_sim_st->unmodelled;
}

/* What a feature the model does not time is, for messages and the job
 * line ("one-sided communication"). */
const char *vaced_unmodelled_what(unsigned kind);

#endif
