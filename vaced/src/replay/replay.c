/* Re-timing a record (replay.h): each rank issues its recorded calls to
 * the model, with its own state block, until it needs a packet its peer
 * has not sent yet; another rank runs then.  A packet's stamp is the one
 * the sender's model computed here, matched by its order on the
 * connection, as CH3 keeps each connection's packets in order. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "env/env.h"
#include "vaced.h"
#include "clock/clock.h"
#include "sim/sim.h"
#include "sim/rank_state.h"
#include "progress/handling.h"
#include "progress/early_queue.h"
#include "progress/waits.h"
#include "record/record.h"
#include "report/breakdown.h"
#include "report/report.h"
#include "replay/late_reads.h"
#include "record/log_reader.h"
#include "record/log_known.h"
#include "replay/protocol.h"
#include "replay/ranks.h"
#include "replay/replay.h"
#include "replay/replay_load.h"
#include "replay/to_eager.h"
#include "replay/uniform.h"
#include "machine/target.h"

static struct {
    struct rank_run *ranks;     /* loaded (replay_load.c), run through ranks.h */
    int size;
    int same_target;
    uint64_t eager_threshold;   /* the replay target's */
    struct pending_first { int rank; size_t offset; } *pending;  /* Waitany choices to check */
    size_t npending, cap_pending;
} rp;

static int uniform_compute;     /* vaced_replay_uniform_compute */
static int loaders;             /* vaced_replay_loaders */
static int exit_after;          /* vaced_replay_exit_after */
static double load_cpu_s;       /* vaced_replay_load_cpu_s */

static int stamped(int kind)
{
    return kind == VACED_PKT_EAGER || kind == VACED_PKT_EAGER_SYNC || kind == VACED_PKT_SYNC_ACK ||
           kind == VACED_PKT_RTS || kind == VACED_PKT_CTS || kind == VACED_PKT_RNDV_DATA;
}

/* Event e reads a stamped packet its sender has not sent yet. */
static inline int needs_packet(struct rank_run *r, const struct vaced_log_event *e)
{
    return e->op == VACED_OP_PKT_RECV && e->flag && e->peer >= 0 &&
           !vaced_stamp_ready(r, e->peer) && !vaced_eager_skips(r, e);
}

/* --- The model's inputs ------------------------------------------------ */

static struct vaced_msg *msg(struct rank_run *r, uint32_t id)
{
    return vaced_rank_msg(r, id);
}

/* The target time t names, for the event at `offset`. */
static inline vaced_time_t eval_time(struct rank_run *r, const struct vaced_log_time *t, size_t offset)
{
    switch (t->src) {
        case VACED_SRC_RAW:
            if (!rp.same_target)
                vaced_replay_diverged(DIV_RAW, offset);
            return t->t;
        case VACED_SRC_SENT_TA: return r->last.sent_ta;
        case VACED_SRC_SENT_TR: return r->last.sent_tr;
        case VACED_SRC_HANDLED: return r->last.handled;
        case VACED_SRC_RECV_TA: return r->last.recv_ta;
        case VACED_SRC_DONE: return vaced_msg_done(msg(r, t->msg), t->bytes);
        case VACED_SRC_ARRIVAL: return vaced_msg_arrival(msg(r, t->msg));
        case VACED_SRC_NOW: return vaced_now();
        default: return VACED_TIME_UNSET;
    }
}

static vaced_time_t eval(struct rank_run *r, const struct vaced_log_event *e)
{
    return eval_time(r, &e->time, e->offset);
}

/* The clock's measurements, read where the clock asks for them (the
 * load checked every event: vaced_log_next_known). */
static int next_measurement(int op, struct vaced_log_event *e)
{
    struct rank_run *r = vaced_ranks_current();
    size_t *pos = r->cursor;
    const unsigned char *d = r->log.data;
    if (*pos < r->log.body_end && d[*pos] == op) {     /* the fields its callers read */
        uint32_t second = op == VACED_OP_SEGMENT ? VACED_LOG_COLDNESS : VACED_LOG_OVERSUBSCRIBED;
        e->offset = (*pos)++;
        e->value = vaced_known_u(d, pos);
        e->bits = r->log.flags & second ? vaced_known_u(d, pos) : 0;
        return 0;
    }
    int got = vaced_log_next_known(&r->log, r->cursor, e);
    if (got == 0 || e->op != op)
        return vaced_replay_fail("%s: offset %zu: the record is out of step with the model here "
                     "(expected the clock's %s)", r->log.path, e->offset,
                     op == VACED_OP_SEGMENT ? "segment" : "close");
    return 0;
}

static void input_segment(vaced_time_t *seg, double *coldness)
{
    struct vaced_log_event e;
    int bad = next_measurement(VACED_OP_SEGMENT, &e);
    struct rank_run *r = vaced_ranks_current();
    if (!bad && r->seg_ps)
        e.value = vaced_uniform_value(r, e.offset, e.value);
    vaced_log_segment(bad ? NULL : &e, seg, coldness);
}

static void input_close(vaced_time_t *charge, int *cold)
{
    struct vaced_log_event e;
    vaced_log_close_values(next_measurement(VACED_OP_CLOSE, &e) ? NULL : &e, charge, cold);
}

static const struct vaced_clock_input replay_input = { input_segment, input_close };

/* --- Issuing the recorded calls ----------------------------------------- */

static int execute(struct rank_run *r, const struct vaced_log_event *e);

/* Runs the events of [*pos, end) that the model's own calls do not
 * consume; a fire block's, or the rank's thread up to its next block. */
static int run_block(struct rank_run *r, size_t *pos, size_t end)
{
    struct vaced_log_event e;
    size_t *saved = r->cursor;
    r->cursor = pos;
    while (!vaced_replay_failed() && *pos < end) {
        if (!vaced_log_next_known(&r->log, pos, &e))
            return r->cursor = saved, 0;
        if (e.op == VACED_OP_FIRE_END)
            break;
        if (needs_packet(r, &e)) {
            r->cursor = saved;
            return vaced_replay_fail("%s: offset %zu: a parked response waits for a packet from rank %d, "
                         "which this replay cannot follow", r->log.path, e.offset, e.peer);
        }
        execute(r, &e);
    }
    r->cursor = saved;
    return vaced_replay_failed() ? -1 : 0;
}

/* The model fires a parked response (vaced_park's fire). */
static void fire_recorded(void *arg)
{
    struct rank_run *r = vaced_ranks_current();
    uint32_t id = (uint32_t)(uintptr_t)arg;
    if (id == 0 || id > r->nfires || !r->fires[id - 1].at) {
        vaced_replay_fail("%s: offset %zu: the model fired parked response %u, which the record never fired",
              r->log.path, *r->cursor, id);
        return;
    }
    struct fire_block *b = &r->fires[id - 1];
    if (b->fired) {
        vaced_replay_fail("%s: offset %zu: parked response %u fired twice", r->log.path, b->at, id);
        return;
    }
    b->fired = 1;
    size_t pos = b->at;
    struct vaced_log_event e;
    char why[512];
    if (vaced_log_next(&r->log, &pos, &e, why, sizeof why) != 1) {
        vaced_replay_fail("%s", why);
        return;
    }
    int in_place = b->at == *r->cursor;
    if (!in_place)              /* the model fires it elsewhere than the record has it */
        vaced_replay_diverged(DIV_PARK, b->at);
    run_block(r, &pos, b->end);
    if (in_place)
        *r->cursor = b->end;
}

/* Whether a wildcard would take another of the candidates the host had:
 * the earliest arrival on this target, the first in the queue on ties. */
static int picks_other(struct rank_run *r, const struct vaced_log_event *e)
{
    size_t at = (size_t)e->bits;
    uint32_t best = 0;
    vaced_time_t best_ta = 0;
    for (uint64_t i = 0; i < e->value; i++) {
        uint32_t id = vaced_log_list_item(&r->log, &at);
        vaced_time_t ta = msg(r, id)->ta;
        if (!best || ta < best_ta) {
            best = id;
            best_ta = ta;
        }
    }
    return best && best != e->from;
}

/* The model's completion time of message id, asked without counting the
 * question as the running wait's activity (the live run did not ask). */
static vaced_time_t done_quietly(struct rank_run *r, uint32_t id, uint64_t bytes)
{
    struct vaced_waits *w = &vaced_progress_st->waits;
    vaced_time_t active = w->active, active_from = w->active_from;
    vaced_time_t done = vaced_msg_done(msg(r, id), bytes);
    w->active = active;
    w->active_from = active_from;
    return done;
}

/* Whether another of Waitany's candidates completes before the chosen one
 * on this target, as far as the replay knows by now: 1 yes, 0 no, -1 not
 * known yet (a candidate's message has not come). */
static int first_other(struct rank_run *r, const struct vaced_log_event *e)
{
    size_t at = (size_t)e->bits;
    vaced_time_t chosen = VACED_TIME_UNSET, first = VACED_TIME_UNSET;
    int unknown = 0;
    for (uint64_t i = 0; i < e->value; i++) {
        uint32_t id = vaced_log_list_item(&r->log, &at);
        vaced_time_t done = done_quietly(r, id, vaced_log_list_bytes(&r->log, &at));
        if (id == e->from)
            chosen = done;
        else if (done == VACED_TIME_UNSET)
            unknown = 1;
        else if (first == VACED_TIME_UNSET || done < first)
            first = done;
    }
    if (chosen != VACED_TIME_UNSET && first != VACED_TIME_UNSET && first < chosen)
        return 1;
    return unknown ? -1 : 0;
}

/* Once every message has come: does a candidate receive whose message had
 * not come at the choice arrive before the chosen receive's?  (Arrivals
 * order receives; a send's completion is not compared with them.) */
static int first_other_later(struct rank_run *r, const struct vaced_log_event *e)
{
    size_t at = (size_t)e->bits;
    vaced_time_t chosen = msg(r, e->from)->ta;
    for (uint64_t i = 0; chosen != VACED_TIME_UNSET && i < e->value; i++) {
        uint32_t id = vaced_log_list_item(&r->log, &at);
        vaced_log_list_bytes(&r->log, &at);
        vaced_time_t ta = msg(r, id)->ta;
        if (id != e->from && ta != VACED_TIME_UNSET && ta < chosen)
            return 1;
    }
    return 0;
}

/* The Waitany choices left undecided, once every message has come. */
static void check_pending_firsts(void)
{
    for (size_t k = 0; k < rp.npending; k++) {
        struct rank_run *r = vaced_ranks_get(rp.pending[k].rank);
        struct vaced_log_event e;
        char why[256];
        size_t pos = rp.pending[k].offset;
        if (vaced_log_next(&r->log, &pos, &e, why, sizeof why) == 1 && first_other_later(r, &e)) {
            vaced_ranks_set_current(r);
            vaced_replay_diverged(DIV_FIRST, e.offset);
        }
    }
}

/* Whether a message's DATA would go by the other protocol on this target
 * (a ready send, eager whatever its size, never does), where protocol.c
 * does not re-time it so. */
static inline int protocol_changes(const struct rank_run *r, int kind, uint64_t bytes)
{
    int eager = kind == VACED_PKT_EAGER || kind == VACED_PKT_EAGER_SYNC;
    if (!eager && kind != VACED_PKT_RNDV_DATA)
        return 0;
    int fits_then = bytes + VACED_EAGER_HEADER <= r->log.eager_threshold;
    int fits_now = bytes + VACED_EAGER_HEADER <= rp.eager_threshold;
    return eager ? fits_then && !fits_now : !fits_then && fits_now;
}

static int defer_first(struct rank_run *r, const struct vaced_log_event *e)
{
    if (rp.npending == rp.cap_pending) {
        size_t cap = rp.cap_pending ? 2 * rp.cap_pending : 64;
        void *p = realloc(rp.pending, cap * sizeof *rp.pending);
        if (!p)
            return vaced_replay_fail("out of memory");
        rp.pending = p;
        rp.cap_pending = cap;
    }
    rp.pending[rp.npending++] = (struct pending_first){ vaced_ranks_self(r), e->offset };
    return 0;
}

/* The calls of the opcodes with more than one, shared by execute and
 * run_plain's decoding in place. */

/* PKT_SENT: whether its stamp goes to the peer (vaced_stamp_push). */
static inline int sent(struct rank_run *r, int peer, int kind, uint64_t bytes, size_t offset)
{
    vaced_time_t tr;
    if (protocol_changes(r, kind, bytes))
        vaced_replay_diverged(DIV_PROTOCOL, offset);
    r->last.sent_ta = vaced_packet_sent(peer, kind, bytes, &tr);
    r->last.sent_tr = tr;
    return stamped(kind) && peer >= 0;
}

/* PKT_RECV: the protocol change its stamp starts (-1: none). */
static inline int32_t received(struct rank_run *r, int peer, int kind, uint64_t bytes, int flag)
{
    int32_t conv = -1;
    vaced_time_t t = flag && peer >= 0 ? vaced_stamp_pop(r, peer, &conv) : VACED_TIME_UNSET;
    if (conv >= 0)      /* eager on the record, an RTS here (protocol.c) */
        r->last.handled = vaced_packet_received(peer, VACED_PKT_RTS, 0, &t);
    else
        r->last.handled = vaced_packet_received(peer, kind, bytes, flag ? &t : NULL);
    r->last.recv_ta = t;
    return conv;
}

static int execute(struct rank_run *r, const struct vaced_log_event *e)
{
    struct vaced_log_event instead;
    if (r->cv && vaced_conv_event(r, e))
        return vaced_replay_failed() ? -1 : 0;
    if (r->ep) {
        int plan = vaced_eager_event(r, e, &instead);
        if (plan == 1)
            return 0;
        if (plan == 2)
            e = &instead;
    }
    switch (e->op) {
        case VACED_OP_BEGIN: vaced_activity_begin(); break;
        case VACED_OP_END_ACT: vaced_activity_end(); break;
        case VACED_OP_SLEEP: vaced_clock_sleep((vaced_time_t)e->value); break;
        case VACED_OP_PKT_SENT:
            if (sent(r, e->peer, e->kind, e->bytes, e->offset))
                return vaced_stamp_push(vaced_ranks_self(r), e->peer, r->last.sent_ta, -1);
            break;
        case VACED_OP_PKT_RECV: {
            int32_t conv = received(r, e->peer, e->kind, e->bytes, e->flag);
            if (r->cv)
                vaced_conv_read(r, e, conv);
            break;
        }
        case VACED_OP_HANDLE_BEGIN: vaced_handle_begin(eval(r, e)); break;
        case VACED_OP_HANDLE_END: vaced_handle_end(); break;
        case VACED_OP_RESPOND_END: vaced_respond_end(); break;
        case VACED_OP_MSG_INIT:
            if (!vaced_rank_new_msg(r, e->offset))
                return -1;
            break;
        case VACED_OP_COMPLETE_BY: vaced_msg_complete_by(msg(r, e->msg), eval(r, e)); break;
        case VACED_OP_ARRIVED:
            vaced_msg_arrived(msg(r, e->msg), e->kind, eval(r, e), e->bytes);
            break;
        case VACED_OP_POSTED: vaced_msg_posted(msg(r, e->msg), e->flag); break;
        case VACED_OP_FOUND:
            vaced_msg_found(msg(r, e->msg), e->from ? msg(r, e->from) : NULL, e->kind, e->flag,
                            e->bytes, e->flag2);
            break;
        case VACED_OP_COMPLETE_NOW:
            if (vaced_msg_complete_now(msg(r, e->msg), e->bytes) != e->flag2)
                vaced_replay_diverged(DIV_TEST, e->offset);
            break;
        case VACED_OP_REPORT: vaced_msg_report(msg(r, e->msg), e->bytes); break;
        case VACED_OP_PARKS:
            if (vaced_parks(eval(r, e), e->flag) != e->flag2)
                vaced_replay_diverged(DIV_PARK, e->offset);
            break;
        case VACED_OP_DEFER:
            vaced_park(e->peer, eval(r, e), fire_recorded, (void *)(uintptr_t)++r->defers);
            break;
        case VACED_OP_FIRE_BEGIN: {
            struct fire_block *b = &r->fires[e->value - 1];
            *r->cursor = b->end;        /* fired already, or the model fires it later */
            if (!b->fired)
                vaced_replay_diverged(DIV_PARK, e->offset);
            break;
        }
        case VACED_OP_POLL: vaced_poll(); break;
        case VACED_OP_TEST_FAILED: vaced_test_failed(); break;
        case VACED_OP_COLL_BEGIN: vaced_breakdown_collective_begin(); break;
        case VACED_OP_COLL_END: vaced_breakdown_collective_end(); break;
        case VACED_OP_SITE: break;      /* names the program's code, for the estimates */
        case VACED_OP_WAIT_BEGIN: vaced_wait_begin(); break;
        case VACED_OP_WAIT_COMPLETE: vaced_wait_complete(eval(r, e)); break;
        case VACED_OP_WAIT_END: vaced_wait_end(); break;
        case VACED_OP_PROBE_FOUND: vaced_probe_found(eval(r, e)); break;
        case VACED_OP_UNMODELLED: vaced_unmodelled((enum vaced_unmodelled)e->value, "the recorded run"); break;
        case VACED_OP_PICK:
            if (e->from && picks_other(r, e))
                vaced_replay_diverged(DIV_WILDCARD, e->offset);
            break;
        case VACED_OP_DONE: vaced_msg_done(msg(r, e->msg), e->bytes); break;
        case VACED_OP_FIRST:
            if (e->from) {
                int other = first_other(r, e);
                if (other > 0)
                    vaced_replay_diverged(DIV_FIRST, e->offset);
                else if (other < 0)
                    return defer_first(r, e);
            }
            break;
        case VACED_OP_SIM_END:
            vaced_sim_end(r->out);
            vaced_running = 1;  /* the other ranks go on */
            r->done = 1;
            vaced_ranks_wake_blocked_on(vaced_ranks_self(r));
            break;
        default:
            return vaced_replay_fail("%s: offset %zu: event %d out of place", r->log.path, e->offset, e->op);
    }
    if (r->cv)
        vaced_conv_after(r, e);
    if (r->ep)
        vaced_eager_after(r, e);
    return vaced_replay_failed() ? -1 : 0;
}

/* run_rank for a rank that changes no message's protocol (no r->cv, no
 * r->ep): each common event's arguments read where its call is made, one
 * dispatch an event; the others decoded whole and issued by execute.  The
 * position is stored before each call: the clock reads its measurements
 * at *r->cursor, and a fired response may move it. */
static int run_plain(struct rank_run *r)
{
    const unsigned char *d = r->log.data;
    const size_t end = r->log.body_end;
    while (!r->done && !vaced_replay_failed()) {
        size_t at = r->pos, pos = at;
        uint64_t m, k, b, f, g;
        struct vaced_log_time t = { 0 };
        if (at >= end)
            return vaced_replay_fail("%s: offset %zu: the record ends before MPI_Finalize", r->log.path, at);
        /* the lines ahead: the ranks' files are read in turns, which the
         * hardware's prefetching misses (an integer address: it may lie
         * past the file's end) */
        __builtin_prefetch((const void *)((uintptr_t)d + at + 128));
        r->cursor = &r->pos;
        switch (d[pos++]) {
            case VACED_OP_BEGIN:
                r->pos = pos;
                vaced_activity_begin();
                break;
            case VACED_OP_END_ACT:
                r->pos = pos;
                vaced_activity_end();
                break;
            case VACED_OP_MSG_INIT:
                r->pos = pos;
                vaced_rank_new_msg(r, at);
                break;
            case VACED_OP_WAIT_BEGIN:
                r->pos = pos;
                vaced_wait_begin();
                break;
            case VACED_OP_WAIT_END:
                r->pos = pos;
                vaced_wait_end();
                break;
            case VACED_OP_HANDLE_END:
                r->pos = pos;
                vaced_handle_end();
                break;
            case VACED_OP_RESPOND_END:
                r->pos = pos;
                vaced_respond_end();
                break;
            case VACED_OP_POLL:
                r->pos = pos;
                vaced_poll();
                break;
            case VACED_OP_TEST_FAILED:
                r->pos = pos;
                vaced_test_failed();
                break;
            case VACED_OP_COLL_BEGIN:
                r->pos = pos;
                vaced_breakdown_collective_begin();
                break;
            case VACED_OP_COLL_END:
                r->pos = pos;
                vaced_breakdown_collective_end();
                break;
            case VACED_OP_SITE:
                vaced_known_u(d, &pos);
                r->pos = pos;
                break;
            case VACED_OP_SLEEP:
                m = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_clock_sleep((vaced_time_t)m);
                break;
            case VACED_OP_PKT_SENT: {
                uint64_t v = vaced_known_u(d, &pos);
                int peer = (int)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
                k = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                r->pos = pos;
                /* the peer's queue of stamps from this rank, which the
                 * push after the model's call writes: cold by now */
                if (peer >= 0)
                    __builtin_prefetch(vaced_stamp_q(vaced_ranks_get(peer), vaced_ranks_self(r)), 1);
                if (sent(r, peer, (int)k, b, at))
                    vaced_stamp_push(vaced_ranks_self(r), peer, r->last.sent_ta, -1);
                break;
            }
            case VACED_OP_PKT_RECV: {
                uint64_t v = vaced_known_u(d, &pos);
                int peer = (int)((int64_t)(v >> 1) ^ -(int64_t)(v & 1));
                k = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                f = vaced_known_u(d, &pos);
                if (f && peer >= 0 && !vaced_stamp_ready(r, peer)) {
                    r->blocked_on = peer;       /* r->pos stays at the event */
                    return 0;
                }
                r->pos = pos;
                received(r, peer, (int)k, b, (int)f);
                break;
            }
            case VACED_OP_HANDLE_BEGIN:
                vaced_known_time(d, &pos, &t);
                r->pos = pos;
                vaced_handle_begin(eval_time(r, &t, at));
                break;
            case VACED_OP_WAIT_COMPLETE:
                vaced_known_time(d, &pos, &t);
                r->pos = pos;
                vaced_wait_complete(eval_time(r, &t, at));
                break;
            case VACED_OP_PROBE_FOUND:
                vaced_known_time(d, &pos, &t);
                r->pos = pos;
                vaced_probe_found(eval_time(r, &t, at));
                break;
            case VACED_OP_COMPLETE_BY:
                m = vaced_known_u(d, &pos);
                vaced_known_time(d, &pos, &t);
                r->pos = pos;
                vaced_msg_complete_by(msg(r, (uint32_t)m), eval_time(r, &t, at));
                break;
            case VACED_OP_ARRIVED:
                m = vaced_known_u(d, &pos);
                k = vaced_known_u(d, &pos);
                vaced_known_time(d, &pos, &t);
                b = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_msg_arrived(msg(r, (uint32_t)m), (int)k, eval_time(r, &t, at), b);
                break;
            case VACED_OP_POSTED:
                m = vaced_known_u(d, &pos);
                f = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_msg_posted(msg(r, (uint32_t)m), (int)f);
                break;
            case VACED_OP_FOUND: {
                m = vaced_known_u(d, &pos);
                uint32_t from = (uint32_t)vaced_known_u(d, &pos);
                k = vaced_known_u(d, &pos);
                f = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                g = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_msg_found(msg(r, (uint32_t)m), from ? msg(r, from) : NULL, (int)k, (int)f, b,
                                (int)g);
                break;
            }
            case VACED_OP_COMPLETE_NOW:
                m = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                g = vaced_known_u(d, &pos);
                r->pos = pos;
                if (vaced_msg_complete_now(msg(r, (uint32_t)m), b) != (int)g)
                    vaced_replay_diverged(DIV_TEST, at);
                break;
            case VACED_OP_REPORT:
                m = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_msg_report(msg(r, (uint32_t)m), b);
                break;
            case VACED_OP_DONE:
                m = vaced_known_u(d, &pos);
                b = vaced_known_u(d, &pos);
                r->pos = pos;
                vaced_msg_done(msg(r, (uint32_t)m), b);
                break;
            case VACED_OP_PARKS:
                vaced_known_time(d, &pos, &t);
                f = vaced_known_u(d, &pos);
                g = vaced_known_u(d, &pos);
                r->pos = pos;
                if (vaced_parks(eval_time(r, &t, at), (int)f) != (int)g)
                    vaced_replay_diverged(DIV_PARK, at);
                break;
            default: {          /* the rarer events, and those out of place */
                struct vaced_log_event e;
                vaced_log_known_inline(&r->log, &r->pos, &e);
                if (needs_packet(r, &e)) {
                    r->pos = at;
                    r->blocked_on = e.peer;
                    return 0;
                }
                execute(r, &e);
                break;
            }
        }
    }
    return vaced_replay_failed() ? -1 : 0;
}

/* Runs rank r until it ends or needs a packet not sent yet. */
static int run_rank(struct rank_run *r)
{
    struct vaced_log_event e;
    vaced_ranks_set_current(r);
    vaced_rank_state_bind(r->state);
    if (!r->cv && !r->ep)
        return run_plain(r);
    while (!r->done && !vaced_replay_failed()) {
        size_t at = r->pos;
        if (!vaced_log_known_inline(&r->log, &r->pos, &e))
            return vaced_replay_fail("%s: offset %zu: the record ends before MPI_Finalize", r->log.path, r->pos);
        r->cursor = &r->pos;
        if (r->cv) {
            struct vaced_log_event due[3];
            while (vaced_late_due(r, due))     /* what has come, at this progress */
                for (int k = 0; k < 3 && execute(r, &due[k]) == 0; k++)
                    ;
            int late = vaced_late_ready(r, &e);
            if (late <= 0) {
                r->pos = at;
                return late;
            }
            int ready = vaced_conv_ready(r, &e);
            if (ready <= 0) {
                r->pos = at;
                return ready;
            }
            if (ready == 2)
                continue;
            struct vaced_log_event put_off;
            while (ready == 3 && !vaced_replay_failed() && vaced_conv_postponed(r, &put_off))
                execute(r, &put_off);
        }
        if (needs_packet(r, &e)) {
            int late = r->cv ? vaced_late_defer(r, &e) : 0;
            if (late)
                continue;
            r->pos = at;
            if (r->cv && vaced_conv_progress(r, e.offset) < 0)
                return -1;
            r->blocked_on = e.peer;
            return 0;
        }
        execute(r, &e);
    }
    return vaced_replay_failed() ? -1 : 0;
}

/* Every rank left waits for a packet: on this target a response parked
 * where the record sent it goes out later than the record has it, at a
 * progress point the record does not reach first.  On the host, MPICH
 * would block in a wait, which sends every parked response; so do they
 * here.  Returns whether a rank can go on. */
static int unstall(void)
{
    for (int i = 0; i < vaced_ranks_size(); i++) {
        struct rank_run *r = vaced_ranks_get(i);
        if (r->done)
            continue;
        vaced_ranks_set_current(r);
        vaced_rank_state_bind(r->state);
        r->cursor = &r->pos;
        if (vaced_fire_parked(INT64_MAX))
            vaced_replay_diverged(DIV_PARK, r->pos);
    }
    return vaced_ranks_any_runnable();
}

/* Prints the rank lines in rank order, as VACED_QUIET says (the ranks'
 * own printing is held back: a replay that converts protocols may run
 * twice). */
static void print_rank_lines(const char *quiet)
{
    if (quiet && *quiet && strcmp(quiet, "0"))
        return;
    for (int i = 0; i < rp.size; i++) {
        struct vaced_rank_summary s = { i, rp.ranks[i].out[0], rp.ranks[i].out[1],
                                         rp.ranks[i].out[2] };
        vaced_print_rank_line(stdout, &s, rp.size);
    }
}

enum run_outcome { RUN_DONE, RUN_FAILED, RUN_STALLED_CONVERTING };

static double process_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static enum run_outcome run_once(const char *dir, const char *target, int convert,
                                 const char *quiet, unsigned long long *events, char *err,
                                 size_t len)
{
    memset(&rp, 0, sizeof rp);
    vaced_ranks_reset(err, len);
    struct vaced_target *t = NULL;
    char path[512], why[1024];
    int stalled_converting = 0;
    double load_start = process_cpu_s();
    int failed_load = vaced_replay_load(dir, uniform_compute, loaders, &rp.ranks, &rp.size, err,
                                        len) != 0;
    load_cpu_s += process_cpu_s() - load_start;
    if (failed_load)
        goto out;
    if (vaced_ranks_start(rp.ranks, rp.size))
        goto out;
    if (vaced_sim_load_target(target, rp.size, path, sizeof path, &t, why, sizeof why)) {
        vaced_replay_fail("%s", why);
        goto out;
    }
    rp.same_target = vaced_record_target_hash(path) == rp.ranks[0].log.target_hash;
    rp.eager_threshold = vaced_target_eager_threshold(t);
    if (convert && (vaced_conv_start(rp.ranks, rp.size, rp.eager_threshold) ||
                    vaced_eager_plan(rp.ranks, rp.size, rp.eager_threshold))) {
        vaced_replay_fail("out of memory for protocol changes");
        goto out;
    }
    int groups;
    if (uniform_compute) {
        if (vaced_uniform_segments(rp.ranks, rp.size, &groups)) {
            vaced_replay_fail("out of memory for the uniform computation");
            goto out;
        }
        if (convert)            /* said once: a second run_once replays alike */
            fprintf(stderr, "vaced: replay: uniform computation: each rank's k-th compute segment is "
                    "the median of the k-th segments of the ranks with its sequence of calls "
                    "(%d group%s of ranks)\n", groups, groups == 1 ? "" : "s");
    }
    vaced_clock_input = &replay_input;
    for (int i = 0; i < rp.size; i++) {
        struct rank_run *r = &rp.ranks[i];
        vaced_rank_state_bind(r->state);
        r->started = 1;
        if (vaced_sim_start_replay(i, rp.size, t, path, r->log.flags & VACED_LOG_OVERSUBSCRIBED,
                                   uniform_compute)) {
            vaced_replay_fail("rank %d: out of memory for the model's state", i);
            goto out;
        }
        vaced_msg_init(vaced_rank_msg(r, 0));
    }
    int finished = 0;
    while (!vaced_replay_failed() &&
           (vaced_ranks_any_runnable() || (finished < rp.size && unstall()))) {
        int i = vaced_ranks_next_runnable();
        if (run_rank(&rp.ranks[i]) == 0 && rp.ranks[i].done)
            finished++;
    }
    int planned = 0;
    for (int i = 0; i < rp.size; i++)
        planned |= rp.ranks[i].cv != NULL || rp.ranks[i].ep != NULL;
    if (!vaced_replay_failed() && finished < rp.size && planned) {
        /* the record's order of reads cannot follow the rendezvous
         * packets: the recorded protocol, flagged, instead */
        stalled_converting = 1;
        goto out;
    }
    if (!vaced_replay_failed() && finished < rp.size) {
        for (int i = 0; i < rp.size; i++)
            if (!rp.ranks[i].done) {
                vaced_replay_fail("%s: offset %zu: the replay stalls: rank %d waits for a packet from rank %d "
                      "that the record never sends", rp.ranks[i].log.path, rp.ranks[i].pos, i,
                      rp.ranks[i].blocked_on);
                break;
            }
    }
    if (!vaced_replay_failed()) {
        double *all = malloc((size_t)rp.size * VACED_SUMMARY_LEN * sizeof *all);
        if (!all) {
            vaced_replay_fail("out of memory");
            goto out;
        }
        for (int i = 0; i < rp.size; i++)
            memcpy(all + (size_t)i * VACED_SUMMARY_LEN, rp.ranks[i].out, sizeof rp.ranks[i].out);
        check_pending_firsts();
        print_rank_lines(quiet);
        fflush(stdout);         /* the rank lines before the notes */
        if (vaced_replay_report_divergences())
            all[3] = (double)((unsigned)all[3] | VACED_UNMODELLED_REPLAY);
        vaced_rank_state_bind(rp.ranks[0].state);
        if (vaced_report_job(all, rp.size))
            vaced_replay_fail("the JSON report could not be written");
        free(all);
    }
out:;
    int failed = failed_load || vaced_replay_failed();
    *events = 0;
    for (int i = 0; !failed && i < rp.size; i++)
        *events += rp.ranks[i].log.events;
    vaced_clock_input = NULL;
    vaced_running = 0;
    vaced_conv_free(rp.ranks, rp.size);
    for (int i = 0; rp.ranks && i < rp.size; i++) {
        vaced_late_free(&rp.ranks[i]);
        vaced_eager_free(&rp.ranks[i]);
    }
    vaced_ranks_stop(!(exit_after && !failed && !stalled_converting));
    if (exit_after && !failed && !stalled_converting)
        vaced_rank_state_bind_live();   /* what the process frees at its exit, left to it */
    else
        vaced_replay_unload(rp.ranks, rp.size);
    free(rp.pending);
    vaced_target_free(t);
    return stalled_converting ? RUN_STALLED_CONVERTING : failed ? RUN_FAILED : RUN_DONE;
}

void vaced_replay_uniform_compute(int on)
{
    uniform_compute = on;
}

void vaced_replay_loaders(int n)
{
    loaders = n > 0 ? n : 0;
}

void vaced_replay_exit_after(int on)
{
    exit_after = on;
}

double vaced_replay_load_cpu_s(void)
{
    return load_cpu_s;
}

int vaced_replay_run(const char *dir, const char *target, unsigned long long *events,
                     char *err, size_t len)
{
    load_cpu_s = 0;
    /* the ranks print no rank line of their own (print_rank_lines) */
    const char *quiet = vaced_env(VACED_ENV_QUIET);
    char *saved = quiet ? strdup(quiet) : NULL;
    setenv("VACED_QUIET", saved && *saved && strcmp(saved, "0") ? saved : "1", 1);
    enum run_outcome o = run_once(dir, target, 1, saved, events, err, len);
    if (o == RUN_STALLED_CONVERTING)
        o = run_once(dir, target, 0, saved, events, err, len);
    if (saved)
        setenv("VACED_QUIET", saved, 1);
    else
        unsetenv("VACED_QUIET");
    free(saved);
    return o == RUN_DONE ? 0 : -1;
}
