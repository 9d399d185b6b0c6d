/* The simulation's start and end (sim.c), and a replay's per-rank start
 * and release: where every module's state is set up and the reports are
 * made.  The rank's identity it sets up is job/job.h's. */
#ifndef VACED_SIM_H
#define VACED_SIM_H

#include "job/job.h"

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
