/* The trace's per-rank state, shared by the file's writer (trace.c), the
 * message lines (trace_msgs.c) and the critical path's lines
 * (trace_path.c); the format is in trace.h. */
#ifndef VACED_TRACE_STATE_H
#define VACED_TRACE_STATE_H

#include <stdint.h>
#include <stdio.h>
#include "vaced.h"
#include "clock/vtime.h"

/* A message being paired: a receive until its completion is written, a
 * rendezvous send until its data gives its size (trace_msgs.c). */
struct vaced_trace_open_msg {
    const struct vaced_msg *m;  /* NULL: a free slot */
    int peer;
    int is_send;
    int written;                /* a send's line is out; kept to name its wait's answer */
    uint32_t seq;
    uint64_t bytes;
    vaced_time_t t;             /* a send's time; a receive's completion, once known */
};

/* The path first: a replay never traces, and its ranks' blocks of state
 * (sim/rank_state.c) then leave its page untouched. */
struct vaced_trace {
    char path[4096];
    FILE *file;                 /* NULL: not tracing */
    int peers;                  /* entries of the per-peer counts */
    uint32_t *sent;             /* per peer: messages sent so far (the next SEQ) */
    uint32_t *received;         /* per peer: messages that arrived so far */
    struct vaced_trace_open_msg *open;  /* a hash table by m, `capacity` slots */
    size_t capacity, count;
    /* between a packet's arrival and its handler's matching: the
     * message it opens (-1: none) */
    int arriving_peer;
    uint32_t arriving_seq;
    uint64_t arriving_bytes;
    const struct vaced_msg *last_init;  /* the request created last */
    int data_peer;              /* rendezvous data just sent (-1: none), its size */
    uint64_t data_bytes;
};

/* trace_state.c's; the rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_trace *vaced_trace_st;

/* A time's seconds and picoseconds, for "%lld.%012lld": exact, and
 * cheaper to print than a double (times are never negative). */
#define VACED_TRACE_S(t) (long long)((t) / VACED_PS_PER_S), (long long)((t) % VACED_PS_PER_S)

/* Writes a span if tracing and it is not empty. */
static inline void vaced_trace_span(const char *kind, vaced_time_t start, vaced_time_t end)
{
    FILE *f = vaced_trace_st->file;
    if (f && end > start)
        fprintf(f, "%s,%lld.%012lld,%lld.%012lld\n", kind, VACED_TRACE_S(start), VACED_TRACE_S(end));
}

/* Calls a writer of the trace only when tracing: an untraced run pays one
 * branch. */
#define VACED_TRACE_HOOK(call) do { if (__builtin_expect(vaced_trace_st->file != NULL, 0)) call; } while (0)

/* Whether a trace is being written (the awaited record names its message
 * only then). */
static inline int vaced_tracing(void)
{
    return __builtin_expect(vaced_trace_st->file != NULL, 0);
}

#endif
