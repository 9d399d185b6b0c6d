/* This rank's place in the job (job.h). */
#include "job/job.h"
#include "job/state_slot.h"

static struct vaced_sim sim_live;
struct vaced_sim *vaced_sim_st = &sim_live;
VACED_STATE_SLOT(vaced_sim_slot, vaced_sim_st, sim_live);

const char *vaced_unmodelled_what(unsigned kind)
{
    switch (kind) {
        case VACED_UNMODELLED_RMA: return "one-sided communication (RMA)";
        case VACED_UNMODELLED_DYNAMIC: return "dynamic processes";
        case VACED_UNMODELLED_WILDCARD:
            return "wildcard receives matched without a proof of the target's order";
        case VACED_UNMODELLED_GENTRAN: return "MPICH's gentran schedules";
        case VACED_UNMODELLED_UNCALIBRATED:
            return "messages larger than the target's largest calibrated size (calibrated_max)";
        case VACED_UNMODELLED_REPLAY:
            return "a recorded execution this target could change (the replay's notes say where)";
        default: return "MPI calls from several threads";
    }
}
