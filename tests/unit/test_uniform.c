/* Unit tests of the replay's uniform computation (vaced/src/replay/uniform.c):
 * a rank's sequence of calls is hashed from the program's steps only (the
 * peer, size and protocol of a message, the packets a wait reads, parked
 * responses, a collective's inner calls and where the segments fall leave
 * it alone), and ranks are grouped by it and their number of segments:
 * two ranks with as many segments but other calls are not grouped, and
 * each group's k-th segments become their median.
 *
 * Run: test_uniform */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "record/log_format.h"
#include "replay/uniform.h"

/* One event of a synthetic record: op, peer, kind, bytes. */
struct ev {
    int op, peer, kind;
    uint64_t bytes;
};

static uint64_t hash_of(const struct ev *evs, size_t n)
{
    struct vaced_call_seq s;
    vaced_call_seq_start(&s);
    for (size_t i = 0; i < n; i++) {
        struct vaced_log_event e;
        memset(&e, 0, sizeof e);
        e.op = evs[i].op;
        e.peer = evs[i].peer;
        e.kind = evs[i].kind;
        e.bytes = evs[i].bytes;
        vaced_call_seq_add(&s, &e);
    }
    return s.hash;
}

#define HASH(a) hash_of(a, sizeof a / sizeof a[0])
#define SEG { VACED_OP_SEGMENT, 0, 0, 0 }
#define SEND(peer, kind, bytes) { VACED_OP_PKT_SENT, peer, kind, bytes }
#define POST { VACED_OP_POSTED, 0, 0, 0 }
#define FOUND { VACED_OP_FOUND, 0, VACED_PKT_EAGER, 8 }
#define READ(peer, kind) { VACED_OP_PKT_RECV, peer, kind, 8 }
#define OP(op) { op, 0, 0, 0 }

/* Rank r of a group test: its segments' values, its hash. */
static void rank_with(struct rank_run *r, const uint64_t *ps, size_t n, uint64_t calls)
{
    memset(r, 0, sizeof *r);
    r->nseg = n;
    r->seg_ps = malloc(n * sizeof *r->seg_ps);
    r->seg_off = malloc(n * sizeof *r->seg_off);
    for (size_t k = 0; k < n; k++) {
        r->seg_ps[k] = ps[k];
        r->seg_off[k] = 100 + 10 * k;
    }
    r->calls = calls;
}

static void free_ranks(struct rank_run *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].seg_ps);
        free(r[i].seg_off);
    }
}

int main(void)
{
    /* send then receive, against receive then send: as many segments */
    const struct ev send_recv[] = { SEG, SEND(1, VACED_PKT_EAGER, 8), SEG, POST, OP(VACED_OP_WAIT_BEGIN),
                                    READ(1, VACED_PKT_EAGER), OP(VACED_OP_WAIT_END) };
    const struct ev recv_send[] = { SEG, POST, OP(VACED_OP_WAIT_BEGIN), READ(0, VACED_PKT_EAGER),
                                    OP(VACED_OP_WAIT_END), SEG, SEND(0, VACED_PKT_EAGER, 8) };
    CHECK(HASH(send_recv) != HASH(recv_send));

    /* another peer, size and protocol; the message come before the post
     * (found, not posted); the wait reading other packets: the same calls */
    const struct ev send_recv_other[] = { SEG, SEND(7, VACED_PKT_RTS, 1 << 20), SEG, FOUND,
                                          OP(VACED_OP_WAIT_BEGIN), READ(7, VACED_PKT_CTS),
                                          READ(7, VACED_PKT_RNDV_DATA), OP(VACED_OP_POLL),
                                          OP(VACED_OP_WAIT_END) };
    CHECK(HASH(send_recv) == HASH(send_recv_other));

    /* a parked response fired, with its own sends: the same calls */
    const struct ev with_fire[] = { SEG, SEND(1, VACED_PKT_EAGER, 8), OP(VACED_OP_FIRE_BEGIN),
                                    SEND(3, VACED_PKT_CTS, 0), SEND(3, VACED_PKT_EAGER, 8),
                                    OP(VACED_OP_FIRE_END), SEG, POST, OP(VACED_OP_WAIT_BEGIN),
                                    READ(1, VACED_PKT_EAGER), OP(VACED_OP_WAIT_END) };
    CHECK(HASH(send_recv) == HASH(with_fire));

    /* a collective's inner sends depend on the rank's place in it */
    const struct ev coll_root[] = { SEG, OP(VACED_OP_COLL_BEGIN), SEND(1, VACED_PKT_EAGER, 8),
                                    SEND(2, VACED_PKT_EAGER, 8), OP(VACED_OP_COLL_END), SEG };
    const struct ev coll_leaf[] = { SEG, OP(VACED_OP_COLL_BEGIN), POST, OP(VACED_OP_COLL_END), SEG };
    const struct ev no_coll[] = { SEG, SEG };
    CHECK(HASH(coll_root) == HASH(coll_leaf));
    CHECK(HASH(coll_root) != HASH(no_coll));

    /* a sleep is another call; where the segments fall is the host's */
    const struct ev slept[] = { SEG, OP(VACED_OP_SLEEP), SEG };
    const struct ev three[] = { SEG, SEG, SEG };
    const struct ev send_recv_merged[] = { SEG, SEND(1, VACED_PKT_EAGER, 8), POST,
                                           OP(VACED_OP_WAIT_BEGIN), READ(1, VACED_PKT_EAGER),
                                           OP(VACED_OP_WAIT_END), SEG };
    CHECK(HASH(slept) != HASH(no_coll));
    CHECK(HASH(three) == HASH(no_coll));
    CHECK(HASH(send_recv_merged) == HASH(send_recv));

    /* grouping: ranks 0 and 2 make the same calls, rank 1 as many segments
     * but other calls, rank 3 fewer segments */
    struct rank_run ranks[4];
    const uint64_t p0[] = { 10, 100, 1000 }, p1[] = { 20, 200, 2000 }, p2[] = { 30, 300, 3000 },
        p3[] = { 40, 400 };
    rank_with(&ranks[0], p0, 3, HASH(send_recv));
    rank_with(&ranks[1], p1, 3, HASH(recv_send));
    rank_with(&ranks[2], p2, 3, HASH(send_recv_other));
    rank_with(&ranks[3], p3, 2, HASH(send_recv));
    int groups = 0;
    CHECK(vaced_uniform_segments(ranks, 4, &groups) == 0);
    CHECK_EQ_I64(groups, 3);
    /* the median of two values: their mean, rounded down */
    CHECK_EQ_U64(ranks[0].seg_ps[0], 20);
    CHECK_EQ_U64(ranks[2].seg_ps[1], 200);
    CHECK_EQ_U64(ranks[0].seg_ps[2], 2000);
    CHECK_EQ_U64(ranks[2].seg_ps[2], 2000);
    /* rank 1, alone in its group, keeps its own */
    CHECK_EQ_U64(ranks[1].seg_ps[0], 20);
    CHECK_EQ_U64(ranks[1].seg_ps[2], 2000);
    CHECK_EQ_U64(ranks[3].seg_ps[1], 400);
    CHECK_EQ_U64(vaced_uniform_value(&ranks[0], 110, 7), 200);
    CHECK_EQ_U64(vaced_uniform_value(&ranks[0], 111, 7), 7);

    free_ranks(ranks, 4);

    /* three ranks, same calls: the middle value */
    rank_with(&ranks[0], p0, 3, 1);
    rank_with(&ranks[1], p2, 3, 1);
    rank_with(&ranks[2], p1, 3, 1);
    CHECK(vaced_uniform_segments(ranks, 3, &groups) == 0);
    CHECK_EQ_I64(groups, 1);
    CHECK_EQ_U64(ranks[0].seg_ps[1], 200);
    CHECK_EQ_U64(ranks[1].seg_ps[1], 200);
    free_ranks(ranks, 3);
    return CHECK_REPORT();
}
