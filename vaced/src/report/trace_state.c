/* The trace's per-rank state (trace_state.h). */
#include "report/trace_state.h"
#include "job/state_slot.h"

static struct vaced_trace trace_live;
struct vaced_trace *vaced_trace_st = &trace_live;
VACED_STATE_SLOT(vaced_trace_slot, vaced_trace_st, trace_live);
