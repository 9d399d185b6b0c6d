/* Unit tests of the load's pass over a rank's events (vaced/src/replay/
 * survey.c): its fast way, taken by the common events far from the
 * file's end, agrees with the reference (vaced_log_next and the survey's
 * checks, the only way with `segments`): on a record of every opcode with
 * edge values, the same messages counted, fire blocks and events; on each
 * kind of bad argument in the middle of a record, the same refusal, the
 * reference's "PATH: offset N: reason".  The same again with the slack a
 * file read into the heap has after it (log_reader.h), which lets the fast
 * way run to the events' end; and an event cut short by that end is
 * refused alike.
 *
 * Run: test_survey */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vlog_body.h"
#include "record/log_format.h"
#include "replay/survey.h"

#define RANKS 4
#define MAX_PS (1ull << 62)
#define MAX_BYTES (1ull << 48)
#define PAD 80                  /* no-argument events: past the fast way's reach */

static size_t slack;            /* the records' (rank_of): 0, or VACED_LOG_SLACK zeros */

static void pad(struct buf *b)
{
    for (int i = 0; i < PAD; i++)
        put_op(b, i % 2 ? VACED_OP_END_ACT : VACED_OP_BEGIN);
}

/* Three messages made, a response parked (its id 1), the padding. */
static void prologue(struct buf *b)
{
    memset(b->d, 0, sizeof b->d);      /* the slack's zeros */
    b->n = b->events = 0;
    pad(b);
    put_op(b, VACED_OP_MSG_INIT);
    put_op(b, VACED_OP_MSG_INIT);
    put_op(b, VACED_OP_MSG_INIT);
    put_op(b, VACED_OP_DEFER); put_s(b, 1); put_u(b, VACED_SRC_SENT_TA);
}

static void epilogue(struct buf *b)
{
    pad(b);
    put_op(b, VACED_OP_SIM_END);
}

/* Every opcode the fast way takes, with edge values, and a fire block. */
static void every_op(struct buf *b, uint32_t flags)
{
    prologue(b);
    put_op(b, VACED_OP_SLEEP); put_u(b, MAX_PS);
    put_op(b, VACED_OP_PKT_SENT); put_s(b, -1); put_u(b, VACED_PKT_RTS); put_u(b, MAX_BYTES);
    put_op(b, VACED_OP_PKT_RECV); put_s(b, RANKS - 1); put_u(b, VACED_PKT_OTHER); put_u(b, 300); put_u(b, 1);
    put_op(b, VACED_OP_HANDLE_BEGIN); put_u(b, VACED_SRC_RAW); put_s(b, -1);
    put_op(b, VACED_OP_HANDLE_END);
    put_op(b, VACED_OP_RESPOND_END);
    put_op(b, VACED_OP_COMPLETE_BY); put_u(b, 3); put_u(b, VACED_SRC_DONE); put_u(b, 2); put_u(b, MAX_BYTES);
    put_op(b, VACED_OP_ARRIVED); put_u(b, 1); put_u(b, VACED_PKT_EAGER_SYNC); put_u(b, VACED_SRC_ARRIVAL);
    put_u(b, 3); put_u(b, 129);
    put_op(b, VACED_OP_POSTED); put_u(b, 0); put_u(b, 1);
    put_op(b, VACED_OP_FOUND); put_u(b, 2); put_u(b, 3); put_u(b, VACED_PKT_RNDV_DATA); put_u(b, 1);
    put_u(b, 1u << 30); put_u(b, 0);
    put_op(b, VACED_OP_COMPLETE_NOW); put_u(b, 3); put_u(b, 0); put_u(b, 1);
    put_op(b, VACED_OP_REPORT); put_u(b, 3); put_u(b, 128);
    put_op(b, VACED_OP_DONE); put_u(b, 1); put_u(b, 64);
    put_op(b, VACED_OP_PARKS); put_u(b, VACED_SRC_RAW); put_s(b, (int64_t)MAX_PS); put_u(b, 1); put_u(b, 0);
    put_op(b, VACED_OP_FIRE_BEGIN); put_u(b, 1);
    put_op(b, VACED_OP_POLL);
    put_op(b, VACED_OP_FIRE_END);
    put_op(b, VACED_OP_TEST_FAILED);
    put_op(b, VACED_OP_WAIT_BEGIN);
    put_op(b, VACED_OP_WAIT_COMPLETE); put_u(b, VACED_SRC_NOW);
    put_op(b, VACED_OP_WAIT_END);
    put_op(b, VACED_OP_PROBE_FOUND); put_u(b, VACED_SRC_UNSET);
    put_op(b, VACED_OP_UNMODELLED); put_u(b, UINT64_MAX);       /* 10 bytes: the reference's */
    put_op(b, VACED_OP_SITE); put_u(b, 1ull << 62);               /* 9 bytes: the fast way's */
    put_op(b, VACED_OP_PICK); put_u(b, 2); put_u(b, 2); put_u(b, 2); put_u(b, 3);
    put_op(b, VACED_OP_FIRST); put_u(b, 0); put_u(b, 1); put_u(b, 1); put_u(b, 8);
    put_op(b, VACED_OP_SEGMENT); put_u(b, 123456789);
    if (flags & VACED_LOG_COLDNESS)
        put_u(b, 0x3fe0000000000000ull);        /* 0.5 */
    put_op(b, VACED_OP_CLOSE); put_u(b, 1000);
    if (flags & VACED_LOG_OVERSUBSCRIBED)
        put_u(b, 1);
    put_op(b, VACED_OP_COLL_BEGIN);
    put_op(b, VACED_OP_COLL_END);
    epilogue(b);
}

static char mem_name[] = "mem.vlog";

/* A rank whose record's body is b (the survey reads these fields). */
static void rank_of(struct rank_run *r, const struct buf *b, uint32_t flags)
{
    memset(r, 0, sizeof *r);
    r->log.path = mem_name;
    r->log.data = b->d;
    r->log.size = b->n;
    r->log.body = 0;
    r->log.body_end = b->n;
    r->log.ranks = RANKS;
    r->log.flags = flags;
    r->log.events = b->events;
    r->log.slack = slack;
}

static void unrank(struct rank_run *r)
{
    free(r->fires);
    free(r->seg_off);
    free(r->seg_ps);
}

static void agrees_on_every_op(uint32_t flags)
{
    struct buf b;
    struct rank_run fast, ref;
    char err[512];
    every_op(&b, flags);
    rank_of(&fast, &b, flags);
    rank_of(&ref, &b, flags);
    int fast_got = vaced_survey(&fast, 0, err, sizeof err);
    if (fast_got)
        printf("    fast: %s\n", err);
    int ref_got = vaced_survey(&ref, 1, err, sizeof err);
    if (ref_got)
        printf("    reference: %s\n", err);
    CHECK(fast_got == 0 && ref_got == 0);
    CHECK_EQ_U64(fast.nmsgs, 3);
    CHECK_EQ_U64(ref.nmsgs, 3);
    CHECK(fast.nfires == ref.nfires && fast.nfires >= 1);
    CHECK(fast.fires && ref.fires && fast.fires[0].at == ref.fires[0].at &&
          fast.fires[0].end == ref.fires[0].end && fast.fires[0].at > 0);
    unrank(&fast);
    unrank(&ref);
}

/* The record with `bad` (one event) after the prologue: both ways
 * refuse it with the same message, "mem.vlog: offset AT: WHY...". */
static void same_refusal(void (*bad)(struct buf *), size_t at_from_event, const char *why,
                         uint32_t flags, int line)
{
    struct buf b;
    struct rank_run fast, ref;
    char fast_err[512] = "", ref_err[512] = "", want[256];
    prologue(&b);
    size_t event = b.n;
    bad(&b);
    epilogue(&b);
    rank_of(&fast, &b, flags);
    rank_of(&ref, &b, flags);
    int fast_got = vaced_survey(&fast, 0, fast_err, sizeof fast_err);
    int ref_got = vaced_survey(&ref, 1, ref_err, sizeof ref_err);
    snprintf(want, sizeof want, "mem.vlog: offset %zu: %s", event + at_from_event, why);
    if (!check_note_(fast_got == -1 && ref_got == -1 && !strcmp(fast_err, ref_err) &&
                     !strncmp(fast_err, want, strlen(want)), __FILE__, line, want))
        printf("    fast %d: %s\n    reference %d: %s\n", fast_got, fast_err, ref_got, ref_err);
    unrank(&fast);
    unrank(&ref);
}

#define SAME_REFUSAL(fn, at, why) same_refusal(fn, at, why, 0, __LINE__)

static void peer_out(struct buf *b) { put_op(b, VACED_OP_PKT_SENT); put_s(b, RANKS); put_u(b, 0); put_u(b, 1); }
static void peer_below(struct buf *b) { put_op(b, VACED_OP_PKT_RECV); put_s(b, -2); put_u(b, 0); put_u(b, 1); put_u(b, 0); }
static void kind_out(struct buf *b) { put_op(b, VACED_OP_PKT_SENT); put_s(b, 0); put_u(b, VACED_PKT_OTHER + 1); put_u(b, 1); }
static void bytes_out(struct buf *b) { put_op(b, VACED_OP_REPORT); put_u(b, 1); put_u(b, MAX_BYTES + 1); }
static void flag_out(struct buf *b) { put_op(b, VACED_OP_PKT_RECV); put_s(b, 0); put_u(b, 0); put_u(b, 1); put_u(b, 2); }
static void id_unmade(struct buf *b) { put_op(b, VACED_OP_POSTED); put_u(b, 4); put_u(b, 0); }
static void id_too_big(struct buf *b) { put_op(b, VACED_OP_POSTED); put_u(b, 1ull << 32); put_u(b, 0); }
static void from_unmade(struct buf *b)
{
    put_op(b, VACED_OP_FOUND); put_u(b, 1); put_u(b, 9); put_u(b, 0); put_u(b, 0); put_u(b, 0); put_u(b, 0);
}
static void time_src_out(struct buf *b) { put_op(b, VACED_OP_HANDLE_BEGIN); put_u(b, VACED_SRC_LAST + 1); }
static void time_raw_big(struct buf *b) { put_op(b, VACED_OP_WAIT_COMPLETE); put_u(b, VACED_SRC_RAW); put_s(b, (int64_t)MAX_PS + 1); }
static void time_raw_neg(struct buf *b) { put_op(b, VACED_OP_PROBE_FOUND); put_u(b, VACED_SRC_RAW); put_s(b, -2); }
static void time_msg_unmade(struct buf *b)
{
    put_op(b, VACED_OP_COMPLETE_BY); put_u(b, 1); put_u(b, VACED_SRC_DONE); put_u(b, 5); put_u(b, 1);
}
static void sleep_big(struct buf *b) { put_op(b, VACED_OP_SLEEP); put_u(b, MAX_PS + 1); }
static void segment_big(struct buf *b) { put_op(b, VACED_OP_SEGMENT); put_u(b, MAX_PS + 1); }
static void close_cold_2(struct buf *b) { put_op(b, VACED_OP_CLOSE); put_u(b, 1); put_u(b, 2); }
static void unknown_op(struct buf *b) { put_op(b, VACED_OP_LAST + 1); }
static void leb_too_long(struct buf *b)
{
    put_op(b, VACED_OP_SITE);
    for (int i = 0; i < 10; i++)
        b->d[b->n++] = 0xff;
    b->d[b->n++] = 0x01;
}
static void fire_unparked(struct buf *b) { put_op(b, VACED_OP_FIRE_BEGIN); put_u(b, 2); }
static void fire_end_alone(struct buf *b) { put_op(b, VACED_OP_FIRE_END); }

/* The record ends inside its last event, which `cut` writes: both ways
 * refuse it alike (the fast way reads the slack's zeros past the end and
 * must leave the event to the reference). */
static void cut_short(void (*cut)(struct buf *), const char *why, int line)
{
    struct buf b;
    struct rank_run fast, ref;
    char fast_err[512] = "", ref_err[512] = "";
    prologue(&b);
    pad(&b);
    cut(&b);
    rank_of(&fast, &b, 0);
    rank_of(&ref, &b, 0);
    int fast_got = vaced_survey(&fast, 0, fast_err, sizeof fast_err);
    int ref_got = vaced_survey(&ref, 1, ref_err, sizeof ref_err);
    if (!check_note_(fast_got == -1 && ref_got == -1 && !strcmp(fast_err, ref_err) &&
                     strstr(fast_err, why), __FILE__, line, why))
        printf("    fast %d: %s\n    reference %d: %s\n", fast_got, fast_err, ref_got, ref_err);
    unrank(&fast);
    unrank(&ref);
}

static void sent_no_bytes(struct buf *b) { put_op(b, VACED_OP_PKT_SENT); put_s(b, 0); put_u(b, 0); }
static void found_half(struct buf *b) { put_op(b, VACED_OP_FOUND); put_u(b, 1); put_u(b, 0); put_u(b, 0); }
static void leb_open(struct buf *b) { put_op(b, VACED_OP_SLEEP); b->d[b->n++] = 0x80; }
static void time_no_msg(struct buf *b) { put_op(b, VACED_OP_HANDLE_BEGIN); put_u(b, VACED_SRC_DONE); }

static void all_ways(void)
{
    agrees_on_every_op(0);
    agrees_on_every_op(VACED_LOG_COLDNESS);
    agrees_on_every_op(VACED_LOG_OVERSUBSCRIBED);
    agrees_on_every_op(VACED_LOG_COLDNESS | VACED_LOG_OVERSUBSCRIBED);

    SAME_REFUSAL(peer_out, 1, "peer 4 is not a rank of the job");
    SAME_REFUSAL(peer_below, 1, "peer -2 is not a rank of the job");
    SAME_REFUSAL(kind_out, 2, "unknown packet kind");
    SAME_REFUSAL(bytes_out, 2, "281474976710657 bytes: more than any message");
    SAME_REFUSAL(flag_out, 4, "flag 2 is not 0 or 1");
    SAME_REFUSAL(id_unmade, 0, "message 4 named before it was made");
    SAME_REFUSAL(id_too_big, 1, "bad message id 4294967296");
    SAME_REFUSAL(from_unmade, 0, "message 9 named before it was made");
    SAME_REFUSAL(time_src_out, 1, "bad target time in event 6");
    SAME_REFUSAL(time_raw_big, 1, "bad target time in event 23");
    SAME_REFUSAL(time_raw_neg, 1, "bad target time in event 25");
    SAME_REFUSAL(time_msg_unmade, 0, "message 5 named before it was made");
    SAME_REFUSAL(sleep_big, 1, "a sleep of 4611686018427387905 ps");
    SAME_REFUSAL(segment_big, 1, "a measurement of 4611686018427387905 ps");
    same_refusal(close_cold_2, 2, "bad measurement in event 32", VACED_LOG_OVERSUBSCRIBED, __LINE__);
    SAME_REFUSAL(unknown_op, 0, "unknown event 36");
    SAME_REFUSAL(leb_too_long, 1, "event 35 runs past the events' end");
    SAME_REFUSAL(fire_unparked, 0, "parked response 2 fires before it was parked");
    SAME_REFUSAL(fire_end_alone, 0, "the end of a parked response that did not begin");
    cut_short(sent_no_bytes, "runs past the events' end", __LINE__);
    cut_short(found_half, "runs past the events' end", __LINE__);
    cut_short(leb_open, "runs past the events' end", __LINE__);
    cut_short(time_no_msg, "bad target time", __LINE__);
}

int main(void)
{
    all_ways();
    slack = VACED_LOG_SLACK;
    all_ways();
    return CHECK_REPORT();
}
