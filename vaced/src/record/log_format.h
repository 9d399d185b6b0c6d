/* The record's format (docs/replay.md): what the recorder writes and the
 * replay reads.  One file a rank: a header, events, a trailer.  An event
 * is an opcode byte and its arguments, LEB128 (signed ones zigzag).
 * Messages are named by the order of their records' creation on the rank
 * (1, 2, ...; 0: none), parked responses by their order of parking. */
#ifndef VACED_LOG_FORMAT_H
#define VACED_LOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define VACED_LOG_MAGIC "VACEDLOG"
#define VACED_LOG_VERSION 1u
#define VACED_LOG_FIXED_HEADER 42      /* bytes before the target's path */
#define VACED_LOG_PATH_MAX 4096
#define VACED_LOG_MAX_RANKS (1 << 24)

/* Header flags. */
#define VACED_LOG_COLDNESS 1u           /* BEGIN carries the canary's coldness */
#define VACED_LOG_OVERSUBSCRIBED 2u     /* END_ACT says whether the next segment is cold */

/* A target time MPICH handed back to the model, named by its source.
 * The replay evaluates the source on its own target. */
enum vaced_log_src {
    VACED_SRC_UNSET,            /* VACED_TIME_UNSET */
    VACED_SRC_RAW,              /* + t (signed): a time MPICH computed itself */
    VACED_SRC_SENT_TA,          /* the stamp the last vaced_packet_sent returned */
    VACED_SRC_SENT_TR,          /* its *tr */
    VACED_SRC_HANDLED,          /* the handling time the last vaced_packet_received returned */
    VACED_SRC_RECV_TA,          /* that packet's stamp, as vaced_packet_received left it */
    VACED_SRC_DONE,             /* + m, bytes: vaced_msg_done(m, bytes) */
    VACED_SRC_ARRIVAL,          /* + m: vaced_msg_arrival(m) */
    VACED_SRC_NOW,              /* vaced_now() */
    VACED_SRC_LAST = VACED_SRC_NOW
};

/* Events: the calls into vaced.h that MPICH (or the program, through its
 * clocks) made, in order; arguments after the colon. */
enum vaced_log_op {
    VACED_OP_BEGIN = 1,         /* vaced_activity_begin */
    VACED_OP_END_ACT,           /* vaced_activity_end */
    VACED_OP_SLEEP,             /* vaced_clock_sleep: ps (the program slept) */
    VACED_OP_PKT_SENT,          /* peer (signed), kind, bytes */
    VACED_OP_PKT_RECV,          /* peer (signed), kind, bytes, carries a stamp */
    VACED_OP_HANDLE_BEGIN,      /* src */
    VACED_OP_HANDLE_END,
    VACED_OP_RESPOND_END,
    VACED_OP_MSG_INIT,          /* (the next message id) */
    VACED_OP_COMPLETE_BY,       /* m, src */
    VACED_OP_ARRIVED,           /* m, kind, src, bytes */
    VACED_OP_POSTED,            /* m, held */
    VACED_OP_FOUND,             /* m, from, kind, complete, bytes, blocking */
    VACED_OP_COMPLETE_NOW,      /* m, bytes, the answer */
    VACED_OP_REPORT,            /* m, bytes */
    VACED_OP_PARKS,             /* src, at_post, the answer */
    VACED_OP_DEFER,             /* peer (signed), src (the defer's id: its order) */
    VACED_OP_FIRE_BEGIN,        /* defer id: the calls a parked response made */
    VACED_OP_FIRE_END,
    VACED_OP_POLL,
    VACED_OP_TEST_FAILED,
    VACED_OP_WAIT_BEGIN,
    VACED_OP_WAIT_COMPLETE,     /* src */
    VACED_OP_WAIT_END,
    VACED_OP_PROBE_FOUND,       /* src */
    VACED_OP_UNMODELLED,        /* kind */
    VACED_OP_SIM_END,           /* vaced_sim_end */
    VACED_OP_PICK,              /* vaced_pick: the message taken (0: none), the number
                                 * n of candidates (the oldest of each sender), their
                                 * ids */
    VACED_OP_DONE,              /* vaced_msg_done inside a wait, where the handling it
                                 * asks about counts as the wait's latest activity:
                                 * m, bytes */
    VACED_OP_FIRST,             /* vaced_waitany_decided, decided: the message chosen
                                 * (0: not known), the number n of requests, n pairs
                                 * (message, bytes) */
    /* The host's measurements, where the clock took them (inside a call
     * above): the replay's clock reads them back in the same order. */
    VACED_OP_SEGMENT,           /* an activity opened: the compute segment before it
                                 * (ps) and, with VACED_LOG_COLDNESS, the coldness's
                                 * bits */
    VACED_OP_CLOSE,             /* an activity closed: the poll charge (ps) and, with
                                 * VACED_LOG_OVERSUBSCRIBED, whether the segment after
                                 * it starts cold */
    VACED_OP_COLL_BEGIN,        /* a blocking collective call began (the breakdown's */
    VACED_OP_COLL_END,          /* collective_wait), ended */
    VACED_OP_SITE,              /* an MPI call from another call site than the rank's
                                 * previous one (VACED_RECORD_SITES=1): the site's id,
                                 * its order of first appearance on the rank (1, 2, ...) */
    VACED_OP_LAST = VACED_OP_SITE,
    VACED_OP_TRAILER = 0x7f     /* event count, then 8 bytes: vaced_log_hash */
};

/* v as LEB128 at d (at most 10 bytes); its length. */
static inline size_t vaced_log_put_u(unsigned char *d, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        d[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    d[n++] = (unsigned char)v;
    return n;
}

#define VACED_FNV_OFFSET 0xcbf29ce484222325ull
#define VACED_FNV_PRIME 0x100000001b3ull

static inline uint64_t vaced_fnv1a(uint64_t h, const unsigned char *p, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        h = (h ^ p[i]) * VACED_FNV_PRIME;
    return h;
}

/* A record's hash: FNV-1a 64 over its 8-byte little-endian words, the
 * last 1 to 7 bytes one at a time: a byte's cost, an eighth of FNV-1a's.
 * Hashed in pieces, every piece but the last is a multiple of 8 bytes. */
static inline uint64_t vaced_log_hash(uint64_t h, const unsigned char *p, uint64_t n)
{
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--)
            w = w << 8 | p[i + (uint64_t)k];
        h = (h ^ w) * VACED_FNV_PRIME;
    }
    return vaced_fnv1a(h, p + i, n - i);
}

#endif
