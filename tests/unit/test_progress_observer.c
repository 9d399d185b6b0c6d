/* Unit tests of the progress model's observer table
 * (vaced/src/progress/progress_observer.h): an observer of its own hears
 * the answers and choices the model makes (an arrival read out, a
 * completion asked inside a wait and answered, a wildcard's pick and its
 * candidates, Waitany's choice and the requests it chose among, an
 * unmodelled feature, a parked response's firing), in order, also when
 * the model asks itself; the model's own reading of arrivals inside a pick
 * is not heard.  With none installed, or the recorder's without a record,
 * nothing is heard and the answers are the same.
 *
 * Run: test_progress_observer ROOT */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "paper16.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "entry/progress_recorder.h"
#include "progress/early_queue.h"
#include "progress/matching.h"
#include "progress/peers.h"
#include "progress/progress_observer.h"
#include "progress/wildcard_bounds.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))
#define NRANKS 4

struct fake_req {
    struct vaced_msg msg;
    int kind, source;
    struct fake_req *next;
};

static struct fake_req reqs[4], *unexpected;
static char heard[1024];

/* Which of reqs[] a message record is (-1: none). */
static int which(const struct vaced_msg *m)
{
    for (int i = 0; i < 4; i++)
        if (m == &reqs[i].msg)
            return i;
    return -1;
}

static void note(const char *fmt, long long a, long long b)
{
    size_t n = strlen(heard);
    snprintf(heard + n, sizeof heard - n, fmt, a, b);
}

static void arrival_told(const struct vaced_msg *m, vaced_time_t ta)
{
    note("arrival %lld %lld;", which(m), ta / US(1));
}
static void done_asked(const struct vaced_msg *m, uint64_t bytes)
{
    note("asked %lld %lld;", which(m), (long long)bytes);
}
static void done_told(const struct vaced_msg *m, uint64_t bytes, vaced_time_t t)
{
    note("done %lld %lld", which(m), (long long)bytes);
    note(" at %lld;", t / US(1), 0);
}
static void list_msg(const struct vaced_msg *m, void *arg)
{
    (void)arg;
    note(" %lld", which(m), 0);
}
static void picked(void *owner, const void *spec, void *best)
{
    note("picked %lld of %lld:", best ? which(vaced_pick_msg(best)) : -1,
         vaced_pick_candidates(owner, spec, NULL, NULL));
    vaced_pick_candidates(owner, spec, list_msg, NULL);
    note(";", 0, 0);
}
static void list_req(const struct vaced_msg *m, uint64_t bytes, void *arg)
{
    (void)arg;
    note(" %lld/%lld", which(m), (long long)bytes);
}
static void *req_at(void *r, int i)
{
    return ((struct fake_req **)r)[i];
}
static void first_decided(vaced_time_t t, int count, void *(*at)(void *r, int i), void *r)
{
    note("first at %lld of %lld:", t / US(1), vaced_first_candidates(count, at, r, NULL, NULL));
    vaced_first_candidates(count, at, r, list_req, NULL);
    note(";", 0, 0);
}
static void unmodelled(enum vaced_unmodelled kind)
{
    note("unmodelled %lld;", kind, 0);
}
static int fire_begin(int id)
{
    note("fire %lld;", id, 0);
    return 40 + id;
}
static void fire_end(int begun)
{
    note("fired %lld;", begun, 0);
}

static const struct vaced_progress_observer listener = {
    .arrival_told = arrival_told,
    .done_asked = done_asked,
    .done_told = done_told,
    .picked = picked,
    .first_decided = first_decided,
    .unmodelled = unmodelled,
    .fire_begin = fire_begin,
    .fire_end = fire_end,
};

/* The fake device: one communicator of NRANKS, an unexpected queue, no
 * posted receives; a request's size is 8 bytes times its index. */
static void *unexpected_next(void *u)
{
    return u ? ((struct fake_req *)u)->next : unexpected;
}
static void *posted_next(void *p)
{
    (void)p;
    return NULL;
}
static void *claimant(void *u)
{
    (void)u;
    return NULL;
}
static int matches(void *u, const void *spec)
{
    (void)u, (void)spec;
    return 1;
}
static void facts(void *req, struct vaced_req_facts *f)
{
    struct fake_req *r = req;
    *f = (struct vaced_req_facts){ .kind = r->kind, .msg_kind = VACED_PKT_EAGER, .complete = 1,
        .active = 1, .peer = r->source, .status_peer = r->source,
        .bytes = 8 * (uint64_t)which(&r->msg), .comm = &unexpected, .msg = &r->msg };
}
static int comm_size(void *comm)
{
    (void)comm;
    return NRANKS;
}
static int world_rank(void *comm, int rank, int *closing)
{
    (void)comm;
    if (closing)
        *closing = 0;
    return rank;
}
static int no_work(void)
{
    return 0;
}

static const struct vaced_device fake = {
    fake_send, unexpected_next, posted_next, claimant, matches, facts, comm_size, world_rank,
    no_work, no_work, no_work
};

/* reqs[i]: a message from `source` arrived at ta (us), queued in order. */
static void message(int i, int source, long long ta)
{
    struct fake_req *r = &reqs[i];
    *r = (struct fake_req){ .kind = VACED_REQ_RECV, .source = source };
    vaced_msg_init(&r->msg);
    vaced_msg_arrived(&r->msg, VACED_PKT_EAGER, US(ta), 0);
    struct fake_req **q = &unexpected;
    while (*q)
        q = &(*q)->next;
    *q = r;
}

static void reset(void)
{
    vaced_clock_set(US(100));
    vaced_clock_test_set_depth(0);
    vaced_matching_start(&fake);
    unexpected = NULL;
    heard[0] = 0;
    vaced_progress_observe(&listener);
}

/* Answers handed out are heard, whoever asked; inside a wait the
 * completion's question is heard before its answer. */
static void test_answers(void)
{
    reset();
    message(0, 1, 50);
    CHECK_EQ_I64(vaced_msg_arrival(&reqs[0].msg), US(50));
    vaced_msg_complete_by(&reqs[1].msg, US(70));        /* a send, done at 70 */
    CHECK_EQ_I64(vaced_msg_done(&reqs[1].msg, 16), US(70));
    vaced_wait_begin();
    vaced_msg_done(&reqs[1].msg, 16);
    vaced_wait_end();
    CHECK(!strcmp(heard, "arrival 0 50;done 1 16 at 70;asked 1 16;done 1 16 at 70;"));
    if (strcmp(heard, "arrival 0 50;done 1 16 at 70;asked 1 16;done 1 16 at 70;"))
        printf("heard: %s\n", heard);
}

/* A pick is heard with the oldest candidate of each sender, in queue
 * order; the arrivals it compares are the model's own, not heard.  A
 * wildcard gate (vaced_post) picks on its own and reads the pick's
 * arrival out. */
static void test_pick(void)
{
    reset();
    message(0, 1, 300);
    message(1, 2, 200);
    message(2, 1, 100);                 /* behind 0: not a candidate */
    heard[0] = 0;
    void *best = vaced_pick(NULL, NULL);
    CHECK(best == &reqs[1]);
    CHECK(!strcmp(heard, "picked 1 of 2: 0 1;"));
    heard[0] = 0;
    int held = 0;
    CHECK_EQ_I64(vaced_post(&unexpected, -1, NULL, VACED_POST_IRECV, &held), 0);
    CHECK(!strncmp(heard, "picked 1 of 2: 0 1;arrival 1 200;", 33));
    if (strncmp(heard, "picked 1 of 2: 0 1;arrival 1 200;", 33))
        printf("heard: %s\n", heard);
}

/* Waitany's choice is heard with the requests it chose among and their
 * sizes; undecided, nothing of it is. */
static void test_first(void)
{
    struct fake_req *list[3] = { &reqs[0], NULL, &reqs[2] };
    int asked = 0;

    reset();
    message(0, 1, 50);
    message(2, 3, 60);
    heard[0] = 0;
    CHECK(vaced_waitany_decided(US(40), 3, req_at, list, &asked));
    CHECK(!strcmp(heard, "first at 40 of 2: 0/0 2/16;"));
    heard[0] = 0;
    CHECK(vaced_waitany_decided(VACED_TIME_UNSET, 3, req_at, list, &asked));
    CHECK_EQ_I64(strlen(heard), 0);
}

/* An unmodelled feature is heard, an uncalibrated size is not (the
 * target's to decide); a parked response fires between its observer's
 * two calls, which hand each other their value. */
static void fire(void *arg)
{
    (void)arg;
    note("firing;", 0, 0);
}

static void test_unmodelled_and_fire(void)
{
    reset();
    vaced_unmodelled(VACED_UNMODELLED_RMA, "MPI_Put");
    vaced_unmodelled(VACED_UNMODELLED_UNCALIBRATED, "a send");
    CHECK(!strcmp(heard, "unmodelled 1;"));
    heard[0] = 0;
    vaced_park(1, US(90), fire, NULL);
    vaced_park(2, US(95), fire, NULL);
    CHECK_EQ_I64(strlen(heard), 0);     /* nothing fired yet */
    vaced_fire_parked(INT64_MAX);
    CHECK(!strcmp(heard, "fire 1;firing;fired 41;fire 2;firing;fired 42;"));
    if (strcmp(heard, "fire 1;firing;fired 41;fire 2;firing;fired 42;"))
        printf("heard: %s\n", heard);
}

/* Nobody, or the recorder's table without a record: nothing is heard, and
 * the model answers the same. */
static void test_nobody(void)
{
    reset();
    message(0, 1, 50);
    message(1, 2, 20);
    vaced_progress_observe(NULL);
    CHECK(vaced_progress_observer != &listener);
    CHECK(vaced_pick(NULL, NULL) == &reqs[1]);
    CHECK_EQ_I64(vaced_msg_arrival(&reqs[0].msg), US(50));
    vaced_progress_observe(&listener);
    vaced_progress_recorder_install();  /* no record open */
    CHECK(vaced_progress_observer != &listener);
    CHECK(vaced_pick(NULL, NULL) == &reqs[1]);
    vaced_unmodelled(VACED_UNMODELLED_RMA, "MPI_Put");
    CHECK_EQ_I64(strlen(heard), 0);
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
    test_answers();
    test_pick();
    test_first();
    test_unmodelled_and_fire();
    test_nobody();
    vaced_progress_observe(NULL);
    vaced_bounds_free();
    vaced_free_parked();
    vaced_target_free(t);
    vaced_peers_free();
    return CHECK_REPORT();
}
