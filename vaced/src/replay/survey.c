/* The load's pass over a rank's events (survey.h).  Two ways over one
 * event: vaced_log_next's decoding and the checks on the decoded event
 * (the reference, with every refusal's message), and a fast one for the
 * common events that checks their arguments as it reads them, without
 * filling an event, dispatched once.  The fast one accepts only what the
 * reference accepts, with the same effect; anything else (a bad or
 * unusual argument, a rare opcode, the file's last bytes) it leaves to
 * the reference, which refuses it with its message or takes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "record/log_format.h"
#include "record/log_reader.h"
#include "replay/survey.h"
#include "replay/uniform.h"
#include "record/fail.h"

/* log_reader.c's bounds: sizes and times no program has */
#define MAX_BYTES (1ull << 48)
#define MAX_PS (1ull << 62)

struct survey {
    uint64_t events, defers;
    size_t open_at[64], seg_cap;
    uint32_t open_id[64];
    int depth, ended, segments;
    struct vaced_call_seq calls;
};

/* Appends segment e to r's (uniform computation's) list. */
static int keep_segment(struct rank_run *r, const struct vaced_log_event *e, size_t *cap)
{
    if (r->nseg == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        size_t *off = realloc(r->seg_off, *cap * sizeof *off);
        if (!off)
            return -1;
        r->seg_off = off;
        uint64_t *ps = realloc(r->seg_ps, *cap * sizeof *ps);
        if (!ps)
            return -1;
        r->seg_ps = ps;
    }
    r->seg_off[r->nseg] = e->offset;
    r->seg_ps[r->nseg++] = e->value;
    return 0;
}

/* The reference's checks of decoded event e, which ends at `after`. */
static int survey_event(struct rank_run *r, struct survey *s, const struct vaced_log_event *e,
                        size_t after, char *err, size_t len)
{
    s->events++;
    if (s->segments)
        vaced_call_seq_add(&s->calls, e);
    /* vaced_sim_end measures the last segment and fires what is parked */
    if (s->ended && s->depth == 0 && e->op != VACED_OP_SEGMENT && e->op != VACED_OP_FIRE_BEGIN)
        return vaced_fail(err, len, "%s: offset %zu: event %d after MPI_Finalize began", r->log.path,
                    e->offset, e->op);
    /* (0 names no message: never above the count) */
    uint32_t named = e->msg > e->from ? e->msg : e->from;
    if ((named > e->time.msg ? named : e->time.msg) > r->nmsgs)
        return vaced_fail(err, len, "%s: offset %zu: message %u named before it was made",
                    r->log.path, e->offset, e->msg > r->nmsgs ? e->msg :
                    e->from > r->nmsgs ? e->from : e->time.msg);
    if (e->op == VACED_OP_PICK || e->op == VACED_OP_FIRST) {
        size_t at = (size_t)e->bits;
        for (uint64_t i = 0; i < e->value; i++)
            if (vaced_log_list_item(&r->log, &at) > r->nmsgs ||
                (e->op == VACED_OP_FIRST && (vaced_log_list_bytes(&r->log, &at), 0)))
                return vaced_fail(err, len, "%s: offset %zu: a candidate named before it was made",
                            r->log.path, e->offset);
    }
    if (s->segments && e->op == VACED_OP_SEGMENT && keep_segment(r, e, &s->seg_cap))
        return vaced_fail(err, len, "out of memory for the uniform computation");
    switch (e->op) {
        case VACED_OP_MSG_INIT: r->nmsgs++; break;
        case VACED_OP_DEFER: s->defers++; break;
        case VACED_OP_SIM_END: s->ended = 1; break;
        case VACED_OP_FIRE_BEGIN:
            if (e->value == 0 || e->value > s->defers || s->depth == 64)
                return vaced_fail(err, len, "%s: offset %zu: parked response %llu fires before it was parked",
                            r->log.path, e->offset, (unsigned long long)e->value);
            s->open_at[s->depth] = e->offset;
            s->open_id[s->depth++] = (uint32_t)e->value;
            break;
        case VACED_OP_FIRE_END: {
            if (s->depth == 0)
                return vaced_fail(err, len, "%s: offset %zu: the end of a parked response that did not begin",
                            r->log.path, e->offset);
            uint32_t id = s->open_id[--s->depth];
            if (id > r->nfires) {
                uint32_t n = id + 16;
                struct fire_block *f = realloc(r->fires, n * sizeof *f);
                if (!f)
                    return vaced_fail(err, len, "out of memory");
                memset(f + r->nfires, 0, (n - r->nfires) * sizeof *f);
                r->fires = f;
                r->nfires = n;
            }
            if (r->fires[id - 1].at)
                return vaced_fail(err, len, "%s: offset %zu: parked response %u fires twice", r->log.path,
                            s->open_at[s->depth], id);
            r->fires[id - 1] = (struct fire_block){ s->open_at[s->depth], after, 0 };
            break;
        }
        default: break;
    }
    return 0;
}

/* --- The fast way ---------------------------------------------------------- */

/* The most bytes an event the fast way takes reads (FOUND: its opcode and
 * six arguments of at most 9 bytes): it runs only this far from the end
 * of what it may read, the file and its slack (log_reader.h), and leaves
 * an event that ends past the events' end to the reference. */
#define FAST_SPAN 64

/* LEB128 of at most 9 bytes (63 bits; longer ones: the reference's). */
static inline __attribute__((always_inline)) int fast_u(const unsigned char *d, size_t *pos,
                                                         uint64_t *v)
{
    uint64_t b = d[*pos];
    if (b < 0x80) {
        *v = b;
        ++*pos;
        return 1;
    }
    uint64_t x = b & 0x7f;
    for (size_t i = 1; i < 9; i++) {
        b = d[*pos + i];
        x |= (b & 0x7f) << (7 * i);
        if (b < 0x80) {
            *v = x;
            *pos += i + 1;
            return 1;
        }
    }
    return 0;
}

/* What the reference requires of each kind of argument, the survey's
 * "named before it was made" included for message ids. */
#define U(v) if (!fast_u(d, &pos, &(v))) goto other
#define ID() U(v); if (v > nmsgs) goto other
#define FLAG() U(v); if (v > 1) goto other
#define KIND() U(v); if (v > VACED_PKT_OTHER) goto other
#define BYTES() U(v); if (v > MAX_BYTES) goto other
#define PEER() U(v); if ((int64_t)((v >> 1) ^ -(v & 1)) < -1 || \
                         (int64_t)((v >> 1) ^ -(v & 1)) >= ranks) goto other
#define TIME() do { \
        U(v); \
        if (v == VACED_SRC_RAW) { \
            U(v); \
            int64_t t_ = (int64_t)(v >> 1) ^ -(int64_t)(v & 1); \
            if (t_ < -1 || t_ > (int64_t)MAX_PS) goto other; \
        } else if (v == VACED_SRC_DONE) { \
            ID(); BYTES(); \
        } else if (v == VACED_SRC_ARRIVAL) { \
            ID(); \
        } else if (v > VACED_SRC_LAST) { \
            goto other; \
        } \
    } while (0)

/* Events from `pos` taken the fast way, as long as it can: returns where
 * it stopped, at an event for the reference. */
static size_t survey_fast(struct rank_run *r, struct survey *s, size_t pos)
{
    const unsigned char *d = r->log.data;
    const size_t end = r->log.body_end, readable = r->log.size + r->log.slack;
    const size_t stop = readable - end >= FAST_SPAN ? end : readable >= FAST_SPAN ? readable - FAST_SPAN : 0;
    const int64_t ranks = r->log.ranks;
    const uint32_t flags = r->log.flags;
    uint64_t events = s->events, defers = s->defers, v;
    uint32_t nmsgs = r->nmsgs;
    size_t at = pos;
    while (pos < stop) {
        at = pos;
        switch (d[pos++]) {
            case VACED_OP_BEGIN: case VACED_OP_END_ACT: case VACED_OP_HANDLE_END:
            case VACED_OP_RESPOND_END: case VACED_OP_POLL: case VACED_OP_TEST_FAILED:
            case VACED_OP_WAIT_BEGIN: case VACED_OP_WAIT_END: case VACED_OP_COLL_BEGIN:
            case VACED_OP_COLL_END:
                break;
            case VACED_OP_MSG_INIT:
                nmsgs++;
                break;
            case VACED_OP_SLEEP:
                U(v);
                if (v > MAX_PS)
                    goto other;
                break;
            case VACED_OP_UNMODELLED: case VACED_OP_SITE:
                U(v);
                break;
            case VACED_OP_PKT_SENT:
                PEER(); KIND(); BYTES();
                break;
            case VACED_OP_PKT_RECV:
                PEER(); KIND(); BYTES(); FLAG();
                break;
            case VACED_OP_HANDLE_BEGIN: case VACED_OP_WAIT_COMPLETE: case VACED_OP_PROBE_FOUND:
                TIME();
                break;
            case VACED_OP_COMPLETE_BY:
                ID(); TIME();
                break;
            case VACED_OP_ARRIVED:
                ID(); KIND(); TIME(); BYTES();
                break;
            case VACED_OP_POSTED:
                ID(); FLAG();
                break;
            case VACED_OP_FOUND:
                ID(); ID(); KIND(); FLAG(); BYTES(); FLAG();
                break;
            case VACED_OP_COMPLETE_NOW:
                ID(); BYTES(); FLAG();
                break;
            case VACED_OP_REPORT: case VACED_OP_DONE:
                ID(); BYTES();
                break;
            case VACED_OP_PARKS:
                TIME(); FLAG(); FLAG();
                break;
            case VACED_OP_DEFER:
                PEER(); TIME();
                defers++;
                break;
            case VACED_OP_SEGMENT:
                U(v);
                if (v > MAX_PS)
                    goto other;
                if (flags & VACED_LOG_COLDNESS)
                    U(v);
                break;
            case VACED_OP_CLOSE:
                U(v);
                if (v > MAX_PS)
                    goto other;
                if (flags & VACED_LOG_OVERSUBSCRIBED) {
                    FLAG();
                }
                break;
            default:            /* fire blocks, the end, lists, unknown opcodes */
                goto other;
        }
        if (pos > end)          /* into the trailer */
            goto other;
        events++;
    }
    at = pos;
other:
    s->events = events;
    s->defers = defers;
    r->nmsgs = nmsgs;
    return at;
}

#undef U
#undef ID
#undef FLAG
#undef KIND
#undef BYTES
#undef PEER
#undef TIME

int vaced_survey(struct rank_run *r, int segments, char *err, size_t len)
{
    struct survey s = { .segments = segments };
    struct vaced_log_event e;
    char why[512];
    size_t pos = r->log.body;
    int got;
    vaced_call_seq_start(&s.calls);
    for (;;) {
        /* the fast way does not hash calls, keep segments or check the end */
        if (!segments && !s.ended)
            pos = survey_fast(r, &s, pos);
        if ((got = vaced_log_next(&r->log, &pos, &e, why, sizeof why)) != 1)
            break;
        if (survey_event(r, &s, &e, pos, err, len))
            return -1;
    }
    if (got < 0)
        return vaced_fail(err, len, "%s", why);
    r->calls = s.calls.hash;
    if (s.depth)
        return vaced_fail(err, len, "%s: offset %zu: a parked response's calls do not end", r->log.path,
                    s.open_at[s.depth - 1]);
    if (!s.ended)
        return vaced_fail(err, len, "%s: offset %zu: the record ends before MPI_Finalize", r->log.path, pos);
    if (s.events != r->log.events)
        return vaced_fail(err, len, "%s: offset %zu: the trailer counts %llu events, the file has %llu",
                    r->log.path, r->log.body_end, (unsigned long long)r->log.events,
                    (unsigned long long)s.events);
    return 0;
}
