/* Loading a record's files into the replay's ranks (replay_load.c). */
#ifndef VACED_REPLAY_LOAD_H
#define VACED_REPLAY_LOAD_H

#include <stddef.h>
#include "replay/ranks.h"

/* Opens every rank's file of the record in `dir` and checks every event
 * once (counting messages, finding the fire blocks; with `segments`,
 * keeping the compute segments and hashing the calls for uniform.h), so
 * a replay never meets a bad one midway, with `loaders` threads (0: one a
 * CPU): *ranks gets *size ranks, each with its model state block
 * (unbound, zeroed).  0, or -1 with "FILE: offset N: reason" in err
 * (what was loaded is freed). */
int vaced_replay_load(const char *dir, int segments, int loaders, struct rank_run **ranks, int *size,
                      char *err, size_t len);
/* Frees them, each rank's model state with it (not the shared target). */
void vaced_replay_unload(struct rank_run *ranks, int size);

#endif
