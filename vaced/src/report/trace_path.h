/* The trace's lines for the critical path (trace_path.c): how each advance
 * of tV inside an MPI call was made; the format is in trace.h. */
#ifndef VACED_TRACE_PATH_H
#define VACED_TRACE_PATH_H

#include "report/breakdown.h"
#include "report/trace_state.h"

void vaced_trace_on_step(vaced_time_t start, vaced_time_t mid, vaced_time_t end,
                         enum vaced_term t1, enum vaced_term t2);
/* What a wait's line says of the completion that ended it (dir -1: not
 * named; times VACED_TIME_UNSET when not known). */
struct vaced_trace_awaited {
    int dir;                    /* 0: a receive from peer; 1: a send to peer */
    int peer;
    uint32_t seq;
    vaced_time_t sent, landed;  /* its last packet from peer */
    vaced_time_t rts_sent, rts_landed;  /* a rendezvous receive's request */
};
void vaced_trace_on_wait(vaced_time_t from, vaced_time_t cut, vaced_time_t to, vaced_time_t ovh,
                         const struct vaced_trace_awaited *w, const struct vaced_chain *c);

/* tV advanced from start to end by the rank's own work inside an MPI call:
 * t1 until mid, then t2. */
static inline void vaced_trace_step(vaced_time_t start, vaced_time_t mid, vaced_time_t end,
                                    enum vaced_term t1, enum vaced_term t2)
{
    VACED_TRACE_HOOK(vaced_trace_on_step(start, mid, end, t1, t2));
}

#endif
