/* Unit tests of the target's matching rules (vaced/src/progress/matching.c)
 * over a fake device: four ranks in one communicator (world ranks equal to
 * communicator ranks, this rank 0), queues of fake requests. */
#include <stdio.h>

#include "check.h"
#include "paper16.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "progress/peers.h"
#include "progress/wildcard_bounds.h"
#include "progress/matching.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))
#define NRANKS 4

struct fake_req {
    struct vaced_msg msg;
    int kind, msg_kind, complete, held;
    int source, tag;            /* a receive's (negative: any), a message's */
    struct fake_req *next;
};
struct fake_spec {
    int source, tag;            /* negative: any */
};

static struct fake_req *unexpected, *posted;
static int closing[NRANKS], waits;
static struct fake_req *wake;   /* completed by the next progress wait */


/* Every packet sent so far was a bound request to `peer`. */
static int only_asked(int peer)
{
    for (int i = 0; i < nsent; i++)
        if (sent_to_peer[i] != peer || sent[i].msg != VACED_BOUND_REQUEST)
            return 0;
    return 1;
}

static void *unexpected_next(void *u)
{
    return u ? ((struct fake_req *) u)->next : unexpected;
}

static void *posted_next(void *p)
{
    return p ? ((struct fake_req *) p)->next : posted;
}

static int takes(const struct fake_req *r, int source, int tag)
{
    return (r->source < 0 || r->source == source) && (r->tag < 0 || r->tag == tag);
}

static void *claimant(void *u)
{
    const struct fake_req *m = u;

    for (struct fake_req *p = posted; p; p = p->next)
        if (takes(p, m->source, m->tag))
            return p;
    return NULL;
}

static int matches(void *u, const void *spec)
{
    const struct fake_spec *s = spec;
    const struct fake_req *m = u;

    return (s->source < 0 || s->source == m->source) && (s->tag < 0 || s->tag == m->tag);
}

static void facts(void *req, struct vaced_req_facts *f)
{
    struct fake_req *r = req;

    f->kind = r->kind;
    f->msg_kind = r->msg_kind;
    f->complete = r->complete;
    f->active = 1;
    f->held = r->held;
    f->peer = r->source;
    f->status_peer = r->source;
    f->bytes = 0;
    f->comm = &unexpected;      /* the one communicator */
    f->msg = &r->msg;
}

static int comm_size(void *comm)
{
    (void) comm;
    return NRANKS;
}

static int world_rank(void *comm, int rank, int *is_closing)
{
    (void) comm;
    if (is_closing)
        *is_closing = closing[rank];
    return rank;
}

static int drain(void)
{
    return 0;
}

static int progress_wait(void)
{
    waits++;
    if (wake) {
        wake->complete = 1;
        wake = NULL;
    } else if (nsent > 0 && sent[nsent - 1].msg == VACED_BOUND_REQUEST) {
        /* the peer asked last answers: it runs, its messages arrive late */
        struct vaced_bound_pkt r = { .msg = VACED_BOUND_REPORT, .seq = sent[nsent - 1].seq,
            .state = VACED_PEER_RUNNING, .rank = -1, .about = -1, .t = US(10000) };
        vaced_bound_received(sent_to_peer[nsent - 1], &r);
    }
    return 0;
}

static int writing(void)
{
    return 0;
}

static const struct vaced_device fake = {
    fake_send, unexpected_next, posted_next, claimant, matches, facts, comm_size, world_rank,
    drain, progress_wait, writing
};

/* A message that has arrived from `source` at target time ta. */
static struct fake_req *message(struct fake_req *m, int source, int tag, vaced_time_t ta)
{
    *m = (struct fake_req) { .kind = VACED_REQ_RECV, .msg_kind = VACED_PKT_EAGER, .complete = 1,
        .source = source, .tag = tag };
    vaced_msg_init(&m->msg);
    vaced_msg_arrived(&m->msg, VACED_PKT_EAGER, ta, 0);
    return m;
}

static struct fake_req *receive(struct fake_req *r, int source, int tag)
{
    *r = (struct fake_req) { .kind = VACED_REQ_RECV, .msg_kind = VACED_PKT_OTHER, .source = source,
        .tag = tag };
    vaced_msg_init(&r->msg);
    return r;
}

static void queue(struct fake_req **q, int n, struct fake_req *reqs[])
{
    *q = NULL;
    for (int i = n - 1; i >= 0; i--) {
        reqs[i]->next = *q;
        *q = reqs[i];
    }
}

static void reset(void)
{
    vaced_sim_test_set_rank(0);
    vaced_clock_set(US(100));
    vaced_clock_test_set_depth(0);
    vaced_matching_start(&fake);
    unexpected = posted = NULL;
    for (int i = 0; i < NRANKS; i++)
        closing[i] = 0;
    nsent = waits = 0;
    wake = NULL;
}

/* A wildcard takes the earliest arrival among the oldest message of each
 * source: MPI keeps each source's order. */
static void test_pick(void)
{
    struct fake_req a, b, c, d;
    struct fake_spec any = { -1, -1 }, tag7 = { -1, 7 }, from3 = { 3, -1 };

    reset();
    queue(&unexpected, 4, (struct fake_req *[]) {
          message(&a, 2, 5, US(300)), message(&b, 1, 5, US(200)),
          message(&c, 2, 5, US(100)), message(&d, 3, 7, US(250)) });
    CHECK(vaced_pick(NULL, &any) == &b);        /* c is behind a: MPI's order */
    CHECK(vaced_pick(NULL, &tag7) == &d);
    CHECK(vaced_pick(NULL, &from3) == &d);
    queue(&unexpected, 3, (struct fake_req *[]) { &a, &b, &d });
    a.msg.ta = US(150);
    CHECK(vaced_pick(NULL, &any) == &a);
    vaced_running = 0;                          /* MPICH's first outside a simulation */
    CHECK(vaced_pick(NULL, &any) == NULL);
    vaced_running = 1;
}

/* A held wildcard takes its messages when its first is proven; until then
 * they are claimed: a probe or a later receive does not see them. */
static void test_held(void)
{
    struct fake_req held, later, m1, m2;
    struct fake_spec any = { -1, -1 };
    void *p, *u;

    reset();
    receive(&held, -1, -1);
    receive(&later, 2, -1);
    queue(&posted, 2, (struct fake_req *[]) { &held, &later });
    queue(&unexpected, 2, (struct fake_req *[]) {
          message(&m1, 1, 0, US(200)), message(&m2, 2, 0, US(150)) });
    CHECK(!vaced_claimed(&m1));                 /* nothing held yet */
    held.held = 1;
    vaced_msg_posted(&held.msg, 1);
    CHECK(vaced_claimed(&m1) && vaced_claimed(&m2));
    CHECK(vaced_pick(NULL, &any) == NULL);      /* all claimed */
    CHECK(vaced_pick(&held, NULL) == &m2);

    /* rank 3 has sent nothing to the host: asked for its bound, undecided */
    CHECK_EQ_I64(vaced_held_next(&p, &u), 0);
    CHECK(nsent >= 1 && only_asked(3));
    /* rank 3 is closing: m2 is the target's first */
    closing[3] = 1;
    CHECK_EQ_I64(vaced_held_next(&p, &u), 1);
    CHECK(p == &held && u == &m2);
    /* bound: the device dequeues both; m1 goes to the receive behind */
    held.held = 0;
    queue(&posted, 1, (struct fake_req *[]) { &later });
    queue(&unexpected, 1, (struct fake_req *[]) { &m1 });
    CHECK_EQ_I64(vaced_held_next(&p, &u), -1);  /* m1 is from 1, `later` takes 2 only */
    CHECK(!vaced_claimed(&m1));
    m1.source = 2;
    CHECK_EQ_I64(vaced_held_next(&p, &u), 1);
    CHECK(p == &later && u == &m1);
    posted = unexpected = NULL;
    CHECK_EQ_I64(vaced_held_next(&p, &u), -1);  /* the hook can rest */
    CHECK(!vaced_claimed(&m1));
}

/* MPI_Irecv(MPI_ANY_SOURCE) is held unless its first is proven at once;
 * MPI_Recv behind held receives is held with them. */
static void test_post(void)
{
    struct fake_req m1, held;
    struct fake_spec any = { -1, -1 };
    int is_held = -1;

    reset();
    closing[2] = closing[3] = 1;
    queue(&unexpected, 1, (struct fake_req *[]) { message(&m1, 1, 0, US(200)) });
    CHECK_EQ_I64(vaced_post(&unexpected, -1, &any, VACED_POST_IRECV, &is_held), 0);
    CHECK_EQ_I64(is_held, 0);                   /* 2 and 3 closing: m1 is first */
    closing[3] = 0;
    CHECK_EQ_I64(vaced_post(&unexpected, -1, &any, VACED_POST_IRECV, &is_held), 0);
    CHECK_EQ_I64(is_held, 1);                   /* 3 undecided */
    receive(&held, -1, -1);
    vaced_msg_posted(&held.msg, 1);
    CHECK_EQ_I64(vaced_post(&unexpected, -1, &any, VACED_POST_RECV, &is_held), 0);
    CHECK_EQ_I64(is_held, 1);
    CHECK_EQ_I64(waits, 0);                     /* held, not gated */
}

/* MPI_Test of a receive from rank 3, late on the host: the host waits
 * until rank 3's bound decides; here the message completes instead. */
static void test_settle(void)
{
    struct fake_req r;

    reset();
    receive(&r, 3, 0);
    vaced_msg_posted(&r.msg, 0);
    queue(&posted, 1, (struct fake_req *[]) { &r });
    wake = &r;
    CHECK_EQ_I64(vaced_test_settle(&r), 0);
    CHECK_EQ_I64(waits, 1);
    CHECK(nsent >= 1 && only_asked(3));
    /* complete on the host: nothing to settle */
    CHECK_EQ_I64(vaced_test_settle(&r), 0);
    CHECK_EQ_I64(waits, 1);
    /* rank 3's bound says its message comes after now: the test fails */
    receive(&r, 3, 0);
    vaced_msg_posted(&r.msg, 0);
    vaced_clock_set(US(200));
    nsent = 0;
    CHECK_EQ_I64(vaced_test_settle(&r), 0);
    CHECK(waits == 2 && nsent >= 1 && only_asked(3) && !r.complete);
}

static void *req_at(void *reqs, int i)
{
    return ((struct fake_req **) reqs)[i];
}

/* Waitany reports the target's first at t only when no other request can
 * complete earlier. */
static void test_waitany(void)
{
    struct fake_req done, rndv, from2;
    struct fake_req *reqs[3] = { &done, &rndv, &from2 };
    int asked = 0;

    reset();
    message(&done, 1, 0, US(100));
    receive(&rndv, 2, 0);
    rndv.msg_kind = VACED_PKT_RTS;
    vaced_msg_arrived(&rndv.msg, VACED_PKT_RTS, US(500), 0);
    CHECK(vaced_waitany_decided(US(400), 2, req_at, reqs, &asked));    /* its RTS came later */
    CHECK(!vaced_waitany_decided(US(600), 2, req_at, reqs, &asked));   /* its DATA may precede */
    receive(&from2, 2, 0);
    CHECK(!vaced_waitany_decided(US(400), 3, req_at, reqs, &asked));   /* 2 asked */
    CHECK(asked && nsent >= 1 && only_asked(2));
    closing[2] = 1;
    CHECK(vaced_waitany_decided(US(400), 3, req_at, reqs, &asked));
}

/* A rank about to block says what it waits on: its one posted source. */
static void test_idle(void)
{
    struct fake_req r, any;
    struct vaced_bound_pkt q = { .msg = VACED_BOUND_REQUEST, .seq = 3, .rank = -1, .t = US(900) };

    reset();
    vaced_idle();
    CHECK_EQ_I64(nsent, 0);                     /* nobody asked */
    vaced_bound_received(1, &q);
    CHECK(vaced_bounds_pending());
    receive(&r, 2, 0);
    queue(&posted, 1, (struct fake_req *[]) { &r });
    vaced_idle();
    CHECK(nsent == 1 && sent[0].state == VACED_PEER_BLOCKED && sent[0].rank == 2);
    receive(&any, -1, 0);
    queue(&posted, 2, (struct fake_req *[]) { &r, &any });
    vaced_idle();
    CHECK(nsent == 2 && sent[1].state == VACED_PEER_BLOCKED && sent[1].rank == -2);
    vaced_clock_set(US(900));
    vaced_bounds_activity_point();
    CHECK(!vaced_bounds_pending());
}

int main(int argc, char **argv)
{
    struct vaced_target *t = paper16_load(argc, argv);

    if (!t)
        return CHECK_REPORT();
    vaced_sim_test_start(0, 16, t);
    vaced_running = 1;
    vaced_bounds_start(fake_send);
    vaced_peers_init(16);
    test_pick();
    test_held();
    test_post();
    test_settle();
    test_waitany();
    test_idle();
    vaced_bounds_free();
    vaced_target_free(t);
    vaced_peers_free();
    return CHECK_REPORT();
}
