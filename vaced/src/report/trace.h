/* An optional per-rank timeline of the prediction: with VACED_TRACE=DIR,
 * rank R writes DIR/vaced-trace.R.csv in target seconds.  Its header is
 *   kind,start_s,end_s
 * and each line one of these kinds:
 *   compute,START,END   a segment between two MPI calls (host CPU time)
 *   mpi,START,END       an outermost MPI call (modelled time)
 *   poll,START,END      the CPU time a failed test or probe counts as the
 *                       program's polling, right after its mpi span
 *   send,PEER,SEQ,BYTES,T   a point-to-point message this rank sent to
 *                       world rank PEER at T (the rank's clock when it
 *                       handed the message's first packet over)
 *   recv,PEER,SEQ,BYTES,T   a message from PEER whose receive completed
 *                       at T
 *   site,ID,FUNCTION,COLL,OFFSET,MODULE   call site ID of this rank: the
 *                       MPI function (COLL 1: a blocking collective) called
 *                       from MODULE (a path, last: it may hold commas) at
 *                       OFFSET (hex, as addr2line reads it)
 *   call,ID,START,END   an outermost MPI call from site ID, from its first
 *                       activity to its return (report/calls.c)
 * The compute, mpi and poll spans tile [0, the rank's prediction]: their
 * ends meet, and the compute and poll spans add up to the rank's compute
 * time.  SEQ counts a pair's messages from 0 in the order the sender sent
 * them, on both sides: the send (S's line, PEER R, SEQ k) and the receive
 * (R's line, PEER S, SEQ k) are one message.  Messages are those of
 * MPICH's point-to-point protocol, collectives' included; their lines
 * are written when known, not in time order (a rendezvous send's once its
 * data leaves, a receive's once it is reported).  Tags are not written:
 * the model's hooks do not carry them.
 *
 * Two more kinds say how each advance of tV inside an MPI call was made,
 * so that the critical path can be walked back exactly (trace_path.c):
 *   step,START,MID,END,TERM1,TERM2   the rank's own work: TERM1 from START
 *                       to MID, TERM2 from MID to END (a send's o_s and
 *                       copy; a receive's o_r and copy)
 *   wait,FROM,CUT,TO,OVH,DIR,PEER,SEQ,SENT,LANDED,RSENT,RLANDED,LEAD,BEGIN[,TERM,UNTIL]...
 *                       a wait's jump from FROM to TO: up to CUT along the
 *                       chain of the completion that ended it (BEGIN, then
 *                       spans of TERM each ending at UNTIL; LEAD before
 *                       BEGIN), then its CPU's turns (OVH of o_r, the rest
 *                       copies).  DIR,PEER,SEQ name that completion's
 *                       message as the message lines do (recv: from PEER;
 *                       send: to PEER, ended by PEER's answer; -,-1,-1:
 *                       unnamed).  The last packet PEER sent for it (DATA,
 *                       or the answer to a send) left PEER at SENT and
 *                       landed here at LANDED; a rendezvous receive's
 *                       request left PEER at RSENT and landed at RLANDED
 *                       ('-': not known or none). */
#ifndef VACED_TRACE_H
#define VACED_TRACE_H

#include <stdint.h>
#include <stdio.h>
#include "vaced.h"
#include "clock/vtime.h"
#include "report/breakdown.h"

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

struct vaced_trace {
    FILE *file;                 /* NULL: not tracing */
    char path[4096];
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

/* trace.c's own; the rank's: a replay rebinds it (sim/rank_state.h). */
extern struct vaced_trace *vaced_trace_st;

/* Opens the file if VACED_TRACE is set and non-empty.  On failure prints
 * one line to stderr (the rank goes on, untraced) and returns -1. */
int vaced_trace_open(int rank);

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

/* Flushes and closes; reports a write error (a full disk) on stderr. */
void vaced_trace_close(int rank);

/* --- Messages (trace_msgs.c) ---------------------------------------------
 * The model's message events, as the hooks report them.  Each inline
 * below costs an untraced run one branch. */
#define VACED_TRACE_HOOK(call) do { if (__builtin_expect(vaced_trace_st->file != NULL, 0)) call; } while (0)

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

/* --- The critical path's lines (trace_path.c) --------------------------- */

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

/* Whether a trace is being written (the awaited record names its message
 * only then). */
static inline int vaced_tracing(void)
{
    return __builtin_expect(vaced_trace_st->file != NULL, 0);
}

/* The message m's line names (trace_msgs.c): its peer, number and side
 * (1: a send); 0 if the trace has no open entry for m. */
int vaced_trace_name(const struct vaced_msg *m, int *peer, uint32_t *seq, int *is_send);

/* tV advanced from start to end by the rank's own work inside an MPI call:
 * t1 until mid, then t2. */
static inline void vaced_trace_step(vaced_time_t start, vaced_time_t mid, vaced_time_t end,
                                    enum vaced_term t1, enum vaced_term t2)
{
    VACED_TRACE_HOOK(vaced_trace_on_step(start, mid, end, t1, t2));
}

#endif
