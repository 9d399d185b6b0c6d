/* The trace's message lines (trace_msgs.c): the model's message events,
 * as the hooks report them; the format is in trace.h. */
#ifndef VACED_TRACE_MSGS_H
#define VACED_TRACE_MSGS_H

#include "report/trace_state.h"

/* Each inline below costs an untraced run one branch. */
void vaced_trace_msgs_start(int size);
void vaced_trace_msgs_end(void);
void vaced_trace_on_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes, vaced_time_t t);
void vaced_trace_on_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes);
void vaced_trace_on_init(const struct vaced_msg *m);
void vaced_trace_on_arrived(const struct vaced_msg *m, enum vaced_pkt_kind kind, uint64_t bytes);
void vaced_trace_on_given(const struct vaced_msg *m, const struct vaced_msg *from);
void vaced_trace_on_complete_by(const struct vaced_msg *m);
void vaced_trace_on_done(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done);
void vaced_trace_on_report(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done);

/* A packet of `kind` leaves for world rank `peer` at the rank's time t. */
static inline void vaced_trace_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes,
                                    vaced_time_t t)
{
    VACED_TRACE_HOOK(vaced_trace_on_sent(peer, kind, bytes, t));
}

/* A packet of `kind` from `peer` is about to be handled. */
static inline void vaced_trace_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes)
{
    VACED_TRACE_HOOK(vaced_trace_on_received(peer, kind, bytes));
}

/* A request's record is (re)initialised: a new request. */
static inline void vaced_trace_init(const struct vaced_msg *m)
{
    VACED_TRACE_HOOK(vaced_trace_on_init(m));
}

/* The handler gave m the packet just received (or a send to self). */
static inline void vaced_trace_arrived(const struct vaced_msg *m, enum vaced_pkt_kind kind,
                                       uint64_t bytes)
{
    VACED_TRACE_HOOK(vaced_trace_on_arrived(m, kind, bytes));
}

/* A held receive m is given the message of record `from`. */
static inline void vaced_trace_given(const struct vaced_msg *m, const struct vaced_msg *from)
{
    VACED_TRACE_HOOK(vaced_trace_on_given(m, from));
}

/* m's completion is bounded (after rendezvous data left: m is its send). */
static inline void vaced_trace_complete_by(const struct vaced_msg *m)
{
    VACED_TRACE_HOOK(vaced_trace_on_complete_by(m));
}

/* m, a receive of `bytes`, completes at `done` as far as known (a wait
 * that does not report it, a blocking receive that found its data). */
static inline void vaced_trace_done(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done)
{
    VACED_TRACE_HOOK(vaced_trace_on_done(m, bytes, done));
}

/* m is reported complete at `done`. */
static inline void vaced_trace_report(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done)
{
    VACED_TRACE_HOOK(vaced_trace_on_report(m, bytes, done));
}

/* The message m's line names (trace_msgs.c): its peer, number and side
 * (1: a send); 0 if the trace has no open entry for m. */
int vaced_trace_name(const struct vaced_msg *m, int *peer, uint32_t *seq, int *is_send);

#endif
