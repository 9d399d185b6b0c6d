/* The replay's ranks and their per-message state (ranks.c): each rank's
 * record and position, its messages by id, the stamps of the packets in
 * flight to it, the times of the last packet it sent or read, and who
 * waits for whom.  The scheduler (replay.c) and the protocol conversions
 * (protocol.c, to_eager.c, late_reads.c) read and change that state
 * through this API only; this module calls none of them. */
#ifndef VACED_REPLAY_RANKS_H
#define VACED_REPLAY_RANKS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "vaced.h"
#include "record/log_reader.h"

/* CH3 sends a message eager when its payload and the eager packet's
 * header (sizeof(MPIDI_CH3_Pkt_eager_send_t) with the target-time field,
 * in MPICH 4.0.2) fit the eager threshold; tests/mpi/test_replay.py
 * checks it against MPICH. */
#define VACED_EAGER_HEADER 40

/* The stamps of the packets one rank sent another and the other has not
 * read yet, in order; each names the protocol change it starts, if any
 * (protocol.c: -1 none). */
struct stamp {
    vaced_time_t ta;
    int32_t conv;
};
#define VACED_STAMPS_INLINE 4
struct stamps {
    struct stamp *s;            /* the ring once it outgrows `first` (cap larger) */
    uint32_t head, count, cap;
    uint64_t pushed, popped;    /* over the whole replay */
    struct stamp first[VACED_STAMPS_INLINE];
};
/* The ring: in the queue itself while it fits, so that it moves with it. */
static inline struct stamp *vaced_stamps_ring(struct stamps *q)
{
    return q->cap > VACED_STAMPS_INLINE ? q->s : q->first;
}

struct fire_block {
    size_t at;                  /* its FIRE_BEGIN; 0: not in the record */
    size_t end;                 /* just past its FIRE_END */
    int fired;                  /* the model fired it in the replay */
};

/* What the last packet the rank sent or read left, as the record's
 * VACED_SRC_SENT_TA ... VACED_SRC_RECV_TA name it. */
struct packet_times {
    vaced_time_t sent_ta, sent_tr, handled, recv_ta;
};

struct conv_rank;               /* protocol.c's */
struct late_reads;              /* late_reads.c's */
struct eager_plan;              /* to_eager.c's */

struct rank_run {
    struct vaced_log log;
    size_t pos;                 /* the next event of the rank's own thread of calls */
    size_t *cursor;             /* where its clock reads measurements: pos, or a fire block's */
    void *state;
    struct vaced_msg *msgs;     /* by id (vaced_rank_msg); [0] stands for requests the
                                 * record does not name: MPICH's preallocated, complete
                                 * ones and those older than the simulation */
    uint32_t nmsgs, msgs_made;
    struct fire_block *fires;   /* by defer id */
    uint32_t nfires, defers;
    uint32_t *in;               /* by sender: its queue in vaced_ranks_tab.q, 0 none yet
                                 * (vaced_stamp_*) */
    int blocked_on;             /* a sender whose packet it needs; -1: none */
    int started;                /* its model state was started */
    int done;
    struct packet_times last;
    struct conv_rank *cv;       /* NULL: no message changes protocol */
    struct late_reads *late;
    struct eager_plan *ep;      /* NULL: no message changes protocol so */
    double out[VACED_SUMMARY_LEN];
    size_t *seg_off;            /* kept by the load for uniform.c: its segments' offsets, */
    uint64_t *seg_ps;           /* in order, and the values to re-time them with; NULL: as recorded */
    size_t nseg;
    uint64_t calls;             /* the load's hash of its sequence of calls (uniform.h) */
};

/* --- The table of ranks ---------------------------------------------------- */

/* Clears the table, the divergences and the failure for a replay; err
 * (len bytes) gets its first failure. */
void vaced_ranks_reset(char *err, size_t len);
/* Takes the loaded ranks, every one runnable in rank order: 0, or -1
 * (out of memory, failed). */
int vaced_ranks_start(struct rank_run *ranks, int size);
/* Forgets them (the caller unloads them); frees the queues of stamps if
 * `release`, else leaves them to the process's exit. */
void vaced_ranks_stop(int release);

/* ranks.c's, read inline on the replay's path of every event; changed
 * only by ranks.c and vaced_ranks_set_current. */
struct vaced_ranks_table {
    struct rank_run *ranks;
    int size;
    struct rank_run *cur;       /* the rank whose calls run now */
    int failed;
    /* The queues of stamps, made at a connection's first packet: [0]
     * stays empty and stands for every connection without one.  A
     * table of size x size queues would be tens of pages a replay of
     * small files first touches, most of them for pairs that never
     * exchange a packet. */
    struct stamps *q;
    uint32_t nq, qcap;
    uint32_t *qidx;             /* size x size, the ranks' `in` */
};
extern struct vaced_ranks_table vaced_ranks_tab;

static inline struct rank_run *vaced_ranks_get(int i)
{
    return &vaced_ranks_tab.ranks[i];
}
static inline int vaced_ranks_size(void)
{
    return vaced_ranks_tab.size;
}
static inline int vaced_ranks_self(const struct rank_run *r)
{
    return (int)(r - vaced_ranks_tab.ranks);
}
/* The rank whose calls run now (the model's callbacks' rank). */
static inline struct rank_run *vaced_ranks_current(void)
{
    return vaced_ranks_tab.cur;
}
static inline void vaced_ranks_set_current(struct rank_run *r)
{
    vaced_ranks_tab.cur = r;
}

/* --- Who runs ------------------------------------------------------------- */

/* The next runnable rank, taken off the queue; -1: none. */
int vaced_ranks_next_runnable(void);
int vaced_ranks_any_runnable(void);
/* Rank `to` can go on if it waits for a packet from `from`. */
void vaced_ranks_wake(int to, int from);
/* Rank `from` ended: what it sends now is unstamped. */
void vaced_ranks_wake_blocked_on(int from);

/* --- Failure and divergence ---------------------------------------------- */

/* Where the recorded execution could have gone otherwise on this target. */
enum divergence { DIV_TEST, DIV_PARK, DIV_PROTOCOL, DIV_ORDER, DIV_WILDCARD, DIV_FIRST, DIV_RAW,
                  DIV_COUNT };
/* Counts one at the current rank's `offset`. */
void vaced_replay_diverged(enum divergence d, size_t offset);
/* Prints each kind met on stderr; returns how many were. */
long vaced_replay_report_divergences(void);
/* Sets the replay's failure (the first one is kept): returns -1. */
int vaced_replay_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int vaced_replay_failed(void)
{
    return vaced_ranks_tab.failed;
}

/* --- Packets in flight ---------------------------------------------------- */

/* Queues a packet's stamp from rank `from` to rank `to` and wakes `to` if
 * it waits for it: 0, or -1 failed. */
int vaced_stamp_push(int from, int to, vaced_time_t ta, int32_t conv);

/* Rank r's queue of stamps from `from` (queue 0, empty, until the first). */
static inline struct stamps *vaced_stamp_q(const struct rank_run *r, int from)
{
    return &vaced_ranks_tab.q[r->in[from]];
}

/* Whether rank r's next packet from `from` can be read: its stamp, or,
 * once `from` has ended, unstamped (sent after its simulation ended: the
 * reports). */
static inline int vaced_stamp_ready(const struct rank_run *r, int from)
{
    return vaced_stamp_q(r, from)->count > 0 || vaced_ranks_get(from)->done;
}

/* The next stamp from `from` (VACED_TIME_UNSET: none), *conv its protocol
 * change. */
static inline vaced_time_t vaced_stamp_pop(struct rank_run *r, int from, int32_t *conv)
{
    struct stamps *q = vaced_stamp_q(r, from);
    if (q->count == 0)          /* queue 0 among them: never written */
        return VACED_TIME_UNSET;
    struct stamp s = vaced_stamps_ring(q)[q->head];
    q->head = q->head + 1 == q->cap ? 0 : q->head + 1;
    q->count--;
    q->popped++;
    *conv = s.conv;
    return s.ta;
}

/* The protocol change of the next stamp from `from`; -1: none or no stamp. */
static inline int32_t vaced_stamp_next_conv(const struct rank_run *r, int from)
{
    struct stamps *q = vaced_stamp_q(r, from);
    return q->count ? vaced_stamps_ring(q)[q->head].conv : -1;
}

/* Stamps from `from` queued and read so far. */
static inline uint64_t vaced_stamp_pushed(const struct rank_run *r, int from)
{
    return vaced_stamp_q(r, from)->pushed;
}
static inline uint64_t vaced_stamp_popped(const struct rank_run *r, int from)
{
    return vaced_stamp_q(r, from)->popped;
}

/* --- Messages ------------------------------------------------------------- */

static inline struct vaced_msg *vaced_rank_msg(struct rank_run *r, uint32_t id)
{
    return &r->msgs[id];
}

/* The rank's next message, made (vaced_msg_init): its id, or 0 (failed:
 * more than the load counted). */
uint32_t vaced_rank_new_msg(struct rank_run *r, size_t offset);

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

#endif
