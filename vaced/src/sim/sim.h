/* The simulation (sim.c): this rank, the job's size, the target, and what
 * the run has come to (ended, features the model does not time).  sim.c
 * sets them at start and end; other modules read them through the inline
 * readers below, on every message, so without a call.
 * One instance per simulated rank (sim/rank_state.h): the live library's
 * process is one rank, and MPICH's global lock serialises the hooks. */
#ifndef VACED_SIM_H
#define VACED_SIM_H

#include "vaced.h"
#include "target/target.h"
#include "cputime/cputime.h"

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

/* sim.c's own: outside sim/, only through the functions of this header.
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

/* A replay's start, per rank (replay.c): the job's target `t`, loaded once
 * and shared (path: its file), without the host's clocks; `oversubscribed`
 * as the record says; `uniform`: its computation made uniform across
 * ranks.  0, or -1 when out of memory. */
int vaced_sim_start_replay(int rank, int size, struct vaced_target *t, const char *path,
                           int oversubscribed, int uniform);
/* Loads target `spec` (a path or a name, as $VACED_TARGET) for `size`
 * ranks, its file's path into path.  0, or -1 with the reason in err. */
int vaced_sim_load_target(const char *spec, int size, char *path, size_t pathlen,
                          struct vaced_target **t, char *err, size_t len);
/* Frees a replayed rank's state, but not the shared target. */
void vaced_sim_release(void);

#endif
