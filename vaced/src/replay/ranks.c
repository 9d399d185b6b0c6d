/* The replay's ranks and their per-message state (ranks.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "replay/ranks.h"

static const char *const div_name[DIV_COUNT] = {
    "test", "park", "protocol", "protocol-order", "wildcard", "waitany", "raw-time" };
static const char *const div_what[DIV_COUNT] = {
    "a test or probe answers otherwise on this target (a polling loop may run another number of times)",
    "a rendezvous answer is parked otherwise on this target",
    ("a message changes protocol on this target where the replay does not follow the change "
     "(a synchronous send's, a rendezvous message the records do not link, or where the record's "
     "order of reads cannot follow the rendezvous packets); it is re-timed with the recorded protocol"),
    ("a rendezvous packet of a message eager on the record is handled before packets sent ahead of it "
     "on its connection"),
    "a wildcard receive would match another sender's message first on this target",
    "MPI_Waitany or MPI_Waitsome would complete another request first on this target",
    "a target time MPICH computed itself (a collective schedule) is replayed as recorded",
};

struct vaced_ranks_table vaced_ranks_tab;

static struct {
    int *runq;
    int runq_head, runq_count;
    long div_count[DIV_COUNT];
    int div_rank[DIV_COUNT];
    size_t div_offset[DIV_COUNT];
    char *err;
    size_t errlen;
} rk;

void vaced_ranks_reset(char *err, size_t len)
{
    free(rk.runq);
    memset(&rk, 0, sizeof rk);
    memset(&vaced_ranks_tab, 0, sizeof vaced_ranks_tab);
    rk.err = err;
    rk.errlen = len;
}

int vaced_ranks_start(struct rank_run *ranks, int size)
{
    struct vaced_ranks_table *t = &vaced_ranks_tab;
    t->ranks = ranks;
    t->size = size;
    rk.runq = calloc((size_t)size, sizeof *rk.runq);
    /* room for a few peers a rank before the first growth: untouched
     * until used */
    t->qcap = 16 * (uint32_t)size + 1;         /* size: at most VACED_LOG_MAX_RANKS */
    t->q = malloc(t->qcap * sizeof *t->q);
    t->qidx = calloc((size_t)size * (size_t)size, sizeof *t->qidx);
    if (!rk.runq || !t->q || !t->qidx)
        return vaced_replay_fail("out of memory for %d ranks", size);
    t->q[0] = (struct stamps){ 0 };
    t->nq = 1;
    for (int i = 0; i < size; i++)
        ranks[i].in = t->qidx + (size_t)i * (size_t)size;
    for (int i = 0; i < size; i++)
        rk.runq[rk.runq_count++] = i;
    return 0;
}

void vaced_ranks_stop(int release)
{
    struct vaced_ranks_table *t = &vaced_ranks_tab;
    if (release) {
        for (uint32_t i = 1; i < t->nq; i++)
            free(t->q[i].s);
        free(t->q);
        free(t->qidx);
        free(rk.runq);
    }
    for (int i = 0; t->ranks && i < t->size; i++)
        t->ranks[i].in = NULL;
    rk.runq = NULL;
    t->q = NULL;
    t->qidx = NULL;
    t->nq = t->qcap = 0;
    t->ranks = NULL;
    t->size = 0;
    t->cur = NULL;
}

/* --- Who runs ------------------------------------------------------------- */

static void make_runnable(int i)
{
    struct rank_run *r = &vaced_ranks_tab.ranks[i];
    /* its next events, read long before by the load: in cache when it runs
     * (addresses as integers: the second may lie past the file's end) */
    uintptr_t at = (uintptr_t)r->log.data + r->pos;
    __builtin_prefetch((const void *)at);
    __builtin_prefetch((const void *)(at + 64));
    r->blocked_on = -1;
    rk.runq[(rk.runq_head + rk.runq_count++) % vaced_ranks_tab.size] = i;
}

int vaced_ranks_next_runnable(void)
{
    if (!rk.runq_count)
        return -1;
    int i = rk.runq[rk.runq_head];
    rk.runq_head = (rk.runq_head + 1) % vaced_ranks_tab.size;
    rk.runq_count--;
    return i;
}

int vaced_ranks_any_runnable(void)
{
    return rk.runq_count > 0;
}

void vaced_ranks_wake(int to, int from)
{
    if (vaced_ranks_tab.ranks[to].blocked_on == from)
        make_runnable(to);
}

void vaced_ranks_wake_blocked_on(int from)
{
    for (int i = 0; i < vaced_ranks_tab.size; i++)
        if (vaced_ranks_tab.ranks[i].blocked_on == from)
            make_runnable(i);
}

/* --- Failure and divergence ---------------------------------------------- */

int vaced_replay_fail(const char *fmt, ...)
{
    va_list ap;
    if (vaced_ranks_tab.failed)
        return -1;
    va_start(ap, fmt);
    vsnprintf(rk.err, rk.errlen, fmt, ap);
    va_end(ap);
    vaced_ranks_tab.failed = 1;
    return -1;
}

void vaced_replay_diverged(enum divergence d, size_t offset)
{
    if (rk.div_count[d]++ == 0) {
        rk.div_rank[d] = (int)(vaced_ranks_tab.cur - vaced_ranks_tab.ranks);
        rk.div_offset[d] = offset;
    }
}

long vaced_replay_report_divergences(void)
{
    long flagged = 0;
    for (int d = 0; d < DIV_COUNT; d++) {
        if (!rk.div_count[d])
            continue;
        flagged += rk.div_count[d];
        fprintf(stderr, "vaced: replay: approximate (%s): %s; %ld time%s, first at rank %d, "
                "%s offset %zu\n", div_name[d], div_what[d], rk.div_count[d],
                rk.div_count[d] == 1 ? "" : "s", rk.div_rank[d],
                vaced_ranks_tab.ranks[rk.div_rank[d]].log.path, rk.div_offset[d]);
    }
    return flagged;
}

/* --- Packets in flight ---------------------------------------------------- */

/* A new queue for the connection whose index is *idx: 0, or -1 failed. */
static int new_queue(uint32_t *idx)
{
    struct vaced_ranks_table *t = &vaced_ranks_tab;
    if (t->nq == t->qcap) {
        uint32_t cap = t->qcap < UINT32_MAX / 2 ? 2 * t->qcap : UINT32_MAX;
        struct stamps *q = t->nq < cap ? realloc(t->q, (size_t)cap * sizeof *q) : NULL;
        if (!q)
            return vaced_replay_fail("out of memory for packets in flight");
        t->q = q;
        t->qcap = cap;
    }
    t->q[t->nq] = (struct stamps){ .cap = VACED_STAMPS_INLINE };
    *idx = t->nq++;
    return 0;
}

int vaced_stamp_push(int from, int to, vaced_time_t ta, int32_t conv)
{
    uint32_t *idx = &vaced_ranks_tab.ranks[to].in[from];
    if (!*idx && new_queue(idx))
        return -1;
    struct stamps *q = &vaced_ranks_tab.q[*idx];
    if (q->count == q->cap) {
        /* a power of two: a mask, not a division, finds the tail */
        uint32_t cap = 2 * q->cap;
        struct stamp *s2 = malloc(cap * sizeof *s2);
        if (!s2)
            return vaced_replay_fail("out of memory for packets in flight");
        const struct stamp *ring = vaced_stamps_ring(q);
        for (uint32_t i = 0; i < q->count; i++)
            s2[i] = ring[(q->head + i) & (q->cap - 1)];
        free(q->s);             /* NULL while in the queue itself */
        q->s = s2;
        q->cap = cap;
        q->head = 0;
    }
    vaced_stamps_ring(q)[(q->head + q->count++) & (q->cap - 1)] = (struct stamp){ ta, conv };
    q->pushed++;
    /* an RTS its progress may read ahead, wherever the rank waits */
    int waits_on = vaced_ranks_tab.ranks[to].blocked_on;
    vaced_ranks_wake(to, conv >= 0 && waits_on >= 0 ? waits_on : from);
    return 0;
}

/* --- Messages ------------------------------------------------------------- */

uint32_t vaced_rank_new_msg(struct rank_run *r, size_t offset)
{
    if (r->msgs_made >= r->nmsgs) {
        vaced_replay_fail("%s: offset %zu: more messages than counted", r->log.path, offset);
        return 0;
    }
    vaced_msg_init(&r->msgs[++r->msgs_made]);
    return r->msgs_made;
}
