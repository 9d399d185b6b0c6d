/* Re-timing a record on a target (replay.c, docs/replay.md): a
 * discrete-event simulation of the recorded ranks in one process, each
 * issuing its recorded calls to the model with its own state block. */
#ifndef VACED_REPLAY_H
#define VACED_REPLAY_H

#include <stddef.h>

/* Replays the record in `dir` on `target` (a path or a name, as
 * $VACED_TARGET).  Prints the rank lines, the job line and the JSON as a
 * live run does ($VACED_QUIET, $VACED_JSON), and on stderr the first
 * point of each kind where the target could have changed the execution.
 * *events gets the number of events replayed.  Returns 0, or -1 with the reason in err (a bad or incomplete record:
 * file, offset, reason). */
int vaced_replay_run(const char *dir, const char *target, unsigned long long *events,
                     char *err, size_t len);

/* The CPU time, in seconds, that the last vaced_replay_run spent loading
 * its record (every loading thread's): what the record's ranks cost
 * before any event is replayed (their files read and checked, their
 * messages' memory made). */
double vaced_replay_load_cpu_s(void);

/* Whether the replays that follow re-time the computation as uniform
 * across ranks (docs/replay.md#uniform-computation); off by default. */
void vaced_replay_uniform_compute(int on);

/* How many threads the replays that follow load a record with (its ranks'
 * files are checked in parallel); 0, the default: one a CPU this process
 * may run on.  Replays run side by side (vaced sweep) share the CPUs. */
void vaced_replay_loaders(int n);

/* Whether the process exits once the replay that follows has succeeded:
 * its ranks' memory (their files, messages and model states) is then
 * left to the exit, which frees it at once; off by default, and for any
 * caller that replays again or checks for leaks. */
void vaced_replay_exit_after(int on);

#endif
