/* The progress model's per-rank state (progress_state.h). */
#include "progress/progress_state.h"
#include "job/state_slot.h"

static struct vaced_progress progress_live;
struct vaced_progress *vaced_progress_st = &progress_live;
VACED_STATE_SLOT(vaced_progress_slot, vaced_progress_st, progress_live);
