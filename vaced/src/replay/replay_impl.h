/* What the replay keeps for each recorded rank (replay.c), and loading
 * a record's files into it (replay_load.c). */
#ifndef VACED_REPLAY_IMPL_H
#define VACED_REPLAY_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "vaced.h"
#include "replay/log_reader.h"

/* The stamps of the packets one rank sent another and the other has not
 * read yet, in order; each names the protocol change it starts, if any
 * (protocol.c: -1 none). */
struct stamp {
    vaced_time_t ta;
    int32_t conv;
};
struct stamps {
    struct stamp *s;
    uint32_t head, count, cap;
    uint64_t pushed, popped;    /* over the whole replay */
};

struct fire_block {
    size_t at;                  /* its FIRE_BEGIN; 0: not in the record */
    size_t end;                 /* just past its FIRE_END */
    int fired;                  /* the model fired it in the replay */
};

struct rank_run {
    struct vaced_log log;
    size_t pos;                 /* the next event of the rank's own thread of calls */
    size_t *cursor;             /* where its clock reads measurements: pos, or a fire block's */
    void *state;
    struct vaced_msg *msgs;     /* by id; [0] stands for requests the record does not name:
                                 * MPICH's preallocated, complete ones and those older than
                                 * the simulation */
    uint32_t nmsgs, msgs_made;
    struct fire_block *fires;   /* by defer id */
    uint32_t nfires, defers;
    struct stamps *in;          /* by sender */
    int blocked_on;             /* a sender whose packet it needs; -1: none */
    int started;                /* its model state was started */
    int done;
    vaced_time_t sent_ta, sent_tr, handled, recv_ta;
    struct conv_rank *cv;       /* protocol.c's; NULL: no message changes protocol */
    struct late_reads *late;    /* late_reads.c's */
    struct eager_plan *ep;      /* to_eager.c's; NULL: no message changes protocol so */
    uint32_t ep_sreq;           /* a send made eager: its request, to complete at ep_tr */
    vaced_time_t ep_tr;
    double out[VACED_SUMMARY_LEN];
    size_t *seg_off;            /* kept by the load for uniform.c: its segments' offsets, */
    uint64_t *seg_ps;           /* in order, and the values to re-time them with; NULL: as recorded */
    size_t nseg;
};

/* Opens every rank's file of the record in `dir` and checks every event
 * once (counting messages, finding the fire blocks; with `segments`,
 * keeping the compute segments for vaced_uniform_segments), so a replay
 * never meets a bad one midway: *ranks gets *size ranks, each with its
 * model state block (unbound, zeroed).  0, or -1 with "FILE: offset N:
 * reason" in err (what was loaded is freed). */
int vaced_replay_load(const char *dir, int segments, struct rank_run **ranks, int *size, char *err,
                      size_t len);
/* Frees them, each rank's model state with it (not the shared target). */
void vaced_replay_unload(struct rank_run *ranks, int size);

/* Uniform computation (uniform.c), on segments the load kept: every
 * rank's k-th compute segment becomes the median of the k-th segments of
 * the ranks with as many segments as it (the same sequence of calls);
 * *groups gets the number of such groups.  0, or -1 when out of memory. */
int vaced_uniform_segments(struct rank_run *ranks, int size, int *groups);
/* The value to re-time r's segment at `offset` with (`recorded` if none). */
uint64_t vaced_uniform_value(const struct rank_run *r, size_t offset, uint64_t recorded);

/* CH3 sends a message eager when its payload and the eager packet's
 * header (sizeof(MPIDI_CH3_Pkt_eager_send_t) with the target-time field,
 * in MPICH 4.0.2) fit the eager threshold; tests/mpi/test_replay.py
 * checks it against MPICH. */
#define VACED_EAGER_HEADER 40

/* Room for one more element (of `size` bytes) after the n in the array
 * *p of capacity *cap, doubling it: 0, or -1 (out of memory). */
static inline int vaced_replay_room(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *q = realloc(*p, c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

/* --- replay.c's, for protocol.c --- */

/* Where the recorded execution could have gone otherwise on this target. */
enum divergence { DIV_TEST, DIV_PARK, DIV_PROTOCOL, DIV_ORDER, DIV_WILDCARD, DIV_FIRST, DIV_RAW,
                  DIV_COUNT };
void vaced_replay_diverged(enum divergence d, size_t offset);
int vaced_replay_fail(const char *fmt, ...);
/* Queues a packet's stamp from rank `from` to rank `to`. */
int vaced_replay_push_stamp(int from, int to, vaced_time_t ta, int32_t conv);
/* Rank `to` can go on if it waits for a packet from `from`. */
void vaced_replay_wake(int to, int from);
/* The model fires a parked response (vaced_defer's fire). */
void vaced_replay_fire(void *arg);
struct rank_run *vaced_replay_rank(int i);
/* Runs a recorded event now: 0, or -1 failed. */
int vaced_replay_execute(struct rank_run *r, const struct vaced_log_event *e);
/* Whether rank r's next packet from `from` can be read. */
int vaced_replay_stamp_ready(struct rank_run *r, int from);
int vaced_replay_size(void);

/* --- protocol.c: messages eager on the record and rendezvous here --- */

/* Prepares the ranks for it when the target's eager threshold is below
 * the record's; 0, or -1 (out of memory). */
int vaced_conv_start(struct rank_run *ranks, int size, uint64_t threshold);
void vaced_conv_free(struct rank_run *ranks, int size);
/* The recorded event about to run, on a rank whose record a protocol
 * change touches: runs it the rendezvous way and returns 1, or returns 0
 * to let replay.c run it as recorded. */
int vaced_conv_event(struct rank_run *r, const struct vaced_log_event *e);
/* A recorded packet read: conv, the conversion whose RTS it is, or -1. */
int vaced_conv_read(struct rank_run *r, const struct vaced_log_event *e, int32_t conv);
/* After replay.c ran event e (a progress point, an activity's end). */
void vaced_conv_after(struct rank_run *r, const struct vaced_log_event *e);
/* Before event e: whether the rank must first wait for a rendezvous
 * packet the record does not have; 1 it can go on, 3 it can once it ran
 * what vaced_conv_postponed gives (e ends a wait), 2 e is put off to its
 * wait's end, 0 it is blocked (r->blocked_on set), -1 failed. */
int vaced_conv_ready(struct rank_run *r, const struct vaced_log_event *e);
/* A rank about to block for a recorded packet: handles the packets the
 * record does not have that have come, and reads the RTS at the head of
 * its connections whose receive is posted, as MPICH's progress would
 * (their recorded reads come later).  0, or -1 failed. */
int vaced_conv_progress(struct rank_run *r, size_t offset);
/* The next event put off to the wait that ends now: 1, or 0 none left. */
int vaced_conv_postponed(struct rank_run *r, struct vaced_log_event *e);
/* A synthesized parked response (vaced_replay_fire's argument). */
int vaced_conv_fire(struct rank_run *r, uintptr_t arg);
#define VACED_CONV_FIRE ((uintptr_t)1 << 31)

/* --- to_eager.c: messages rendezvous on the record and eager here --- */

/* Links every rendezvous message across the records and plans, rank by
 * rank, what changes for those that fit `threshold`; 0, or -1 (out of
 * memory).  Nothing when the record's threshold is not below it. */
int vaced_eager_plan(struct rank_run *ranks, int size, uint64_t threshold);
void vaced_eager_free(struct rank_run *r);
/* Recorded event e, on a rank with a plan: 0 run it, 1 skip it, 2 run
 * *out instead. */
int vaced_eager_event(struct rank_run *r, const struct vaced_log_event *e,
                      struct vaced_log_event *out);
/* Whether the plan skips recorded event e (a CTS or DATA read that no
 * packet will come for). */
int vaced_eager_skips(const struct rank_run *r, const struct vaced_log_event *e);
/* After an event ran: completes a send made eager once its request exists. */
void vaced_eager_after(struct rank_run *r, const struct vaced_log_event *e);

/* --- late_reads.c: packets a wait read unexpected, read later --- */

/* e reads a packet not come yet: if a wait read it unexpected, puts the
 * read off (r->pos past it) and returns 1; else 0; -1 failed. */
int vaced_late_defer(struct rank_run *r, const struct vaced_log_event *e);
/* Before event e: makes the put-off reads whose packets have come; 1 e
 * can go, 0 it needs one still to come (r->blocked_on set). */
int vaced_late_ready(struct rank_run *r, const struct vaced_log_event *e);
void vaced_late_free(struct rank_run *r);

#endif
