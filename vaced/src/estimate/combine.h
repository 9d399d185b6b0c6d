/* Several executions of one program combined into one record
 * (combine.c, docs/replay.md#repeated-executions): each rank's k-th
 * compute segment becomes the least (or the median) of its k-th segments
 * over the executions in which the rank made the same calls, so that a
 * stall of one execution does not decide the prediction and a rank's own,
 * repeatable work (its imbalance) stays. */
#ifndef VACED_ESTIMATE_COMBINE_H
#define VACED_ESTIMATE_COMBINE_H

#include <stddef.h>
#include <stdint.h>
#include "estimate/wakeup.h"

#define VACED_COMBINE_MAX 64    /* executions */

/* How a segment's measurements combine.  The host only ever adds to a
 * segment (stalls, preemptions, caches others used), so the least of a
 * few measurements is the nearest to an undisturbed one; the median needs
 * three to drop one stall. */
enum vaced_combine_stat { VACED_COMBINE_MIN, VACED_COMBINE_MEDIAN };

struct vaced_combined {
    int ranks;
    int combined;               /* ranks whose segments combine 2 or more executions */
    int executions_min;         /* the fewest executions a combined rank's segments took */
    uint64_t segments;          /* re-timed segments, over all ranks */
    double compute_ps;          /* every execution's segments, summed */
    struct vaced_wakeup wakeup; /* summed over every execution (with `wakeup`) */
};

/* Writes into `out` (an existing directory) the record of dirs[0] with
 * every rank's compute segments re-timed as above by `stat`, each
 * execution's first corrected for the wake-up penalty (wakeup.h) if
 * `wakeup`; the other records (dirs[1..n-1]) must be of the same job
 * (ranks, target).  A rank whose calls match in no other execution keeps
 * its own segments.  0, or -1 with "PATH: offset N: reason" or the
 * system's error in err. */
int vaced_combine_records(const char *out, const char *const *dirs, int n, int wakeup,
                          enum vaced_combine_stat stat, struct vaced_combined *res, char *err,
                          size_t len);

#endif
