/* A feature the model does not time was used (vaced_unmodelled): the
 * prediction becomes approximate, and the user hears of it once. */
#include <stdio.h>
#include "job/job.h"
#include "progress/progress_observer.h"

void vaced_unmodelled(enum vaced_unmodelled kind, const char *call)
{
    /* the observer (a record) does not hear of an uncalibrated size: it is
     * the target's to decide, and a replay on another target decides anew */
    if (kind != VACED_UNMODELLED_UNCALIBRATED)
        vaced_progress_observer->unmodelled(kind);
    if (!vaced_running || (vaced_sim_st->unmodelled & kind))
        return;
    vaced_sim_st->unmodelled |= kind;
    if (kind == VACED_UNMODELLED_WILDCARD)      /* only this rank knows */
        fprintf(stderr, "vaced: warning: rank %d: %s: the senders not yet heard from wait "
                "on other ranks, so the target's first message cannot be proven; it took the "
                "earliest one present: the prediction is approximate\n",
                vaced_sim_st->rank, call);
    else if (kind == VACED_UNMODELLED_UNCALIBRATED)     /* only this rank knows */
        fprintf(stderr, "vaced: note: rank %d sends messages larger than the target's calibrated_max: "
                "their cost is extrapolated from the calibrated sizes\n", vaced_sim_st->rank);
    else if (vaced_sim_st->rank == 0)
        fprintf(stderr, "vaced: warning: %s uses %s, which the model does not time: "
                "the prediction is approximate\n", call, vaced_unmodelled_what(kind));
}
