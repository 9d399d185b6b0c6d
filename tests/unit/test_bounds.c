/* Unit tests of the wildcard bound rule (vaced/src/bounds.c): when a
 * receiver may take its earliest candidate, which requests it sends, and
 * how a rank answers requests while it runs, blocks and finishes.  A fake
 * transport records the packets instead of sending them.
 *
 * Run: test_bounds REPO_ROOT   (loads topo/paper-16.topo: 16 ranks) */
#include <stdio.h>

#include "check.h"
#include "state.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))

struct packet {
    int peer, msg, seq, state;
    vaced_time_t t;
};
static struct packet sent[64];
static int nsent;

static void fake_send(int peer, int msg, int seq, int state, vaced_time_t t)
{
    if (nsent < 64)
        sent[nsent++] = (struct packet) { peer, msg, seq, state, t };
}

static vaced_time_t latency_to(int peer)
{
    return vaced_target_transfer_time(vaced_st.target, vaced_st.rank, peer, 0);
}

static void test_asker(void)
{
    int peers[4] = { 0, 1, 2, 3 };
    unsigned char flags[4] = { 0, VACED_PEER_KNOWN, 0, 0 };
    vaced_time_t ta = US(100);

    vaced_st.rank = 0;
    nsent = 0;
    vaced_wildcard_begin();
    /* 1 has a message on the host; 2 and 3 are asked, once */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK_EQ_I64(nsent, 2);
    CHECK(sent[0].peer == 2 && sent[0].msg == VACED_BOUND_REQUEST && sent[0].t == ta);
    CHECK(sent[1].peer == 3 && sent[1].seq == sent[0].seq);
    int seq = sent[0].seq;
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK_EQ_I64(nsent, 2);
    /* an earlier candidate reaches the host: both are asked again, lower */
    CHECK_EQ_I64(vaced_wildcard_check(US(60), 4, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 4 && sent[2].t == US(60) && sent[3].t == US(60));
    /* 2's clock bound reaches ta; 3 still silent */
    vaced_bound_received(2, VACED_BOUND_REPORT, seq, VACED_PEER_RUNNING, ta);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    /* 3 waits only on us, and we owe it nothing: decided */
    vaced_bound_received(3, VACED_BOUND_REPORT, seq, VACED_PEER_BLOCKED_ON_YOU, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_SAFE);
    /* ... unless we owe it a protocol message: then it is not decided, and
     * with every undecided peer blocked the rule gives up */
    flags[3] = VACED_PEER_OWED;
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_UNPROVABLE);
    flags[3] = 0;

    /* next wildcard: bounds persist, blocked states do not */
    nsent = 0;
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 1 && sent[0].peer == 3 && sent[0].seq != seq);
    seq = sent[0].seq;
    vaced_bound_received(3, VACED_BOUND_REPORT, seq - 1, VACED_PEER_BLOCKED_ON_YOU, 0);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);   /* stale */
    vaced_bound_received(3, VACED_BOUND_REPORT, seq, VACED_PEER_BLOCKED_OTHER, US(2));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_UNPROVABLE);
    /* running again: wait for it */
    vaced_bound_received(3, VACED_BOUND_REPORT, seq, VACED_PEER_RUNNING, US(3));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    vaced_bound_received(3, VACED_BOUND_REPORT, seq, VACED_PEER_FINALIZING, US(4));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_SAFE);
    vaced_wildcard_begin();
    nsent = 0;
    CHECK_EQ_I64(vaced_wildcard_check(US(900), 4, peers, flags), VACED_WILD_WAIT);  /* only 2 */
    CHECK(nsent == 1 && sent[0].peer == 2);
}

static void test_answerer(void)
{
    vaced_st.rank = 5;
    vaced_st.tv = US(10);
    vaced_st.depth = 0;
    nsent = 0;
    /* satisfied at once: clock plus latency */
    vaced_bound_received(7, VACED_BOUND_REQUEST, 11, 0, US(10));
    CHECK_EQ_I64(nsent, 1);
    CHECK(sent[0].peer == 7 && sent[0].msg == VACED_BOUND_REPORT && sent[0].seq == 11 &&
          sent[0].state == VACED_PEER_RUNNING);
    CHECK_EQ_I64(sent[0].t, US(10) + latency_to(7));
    CHECK(!vaced_bounds_pending());

    /* not yet: kept until the clock gets there */
    nsent = 0;
    vaced_bound_received(7, VACED_BOUND_REQUEST, 12, 0, US(500));
    CHECK_EQ_I64(nsent, 0);
    CHECK(vaced_bounds_pending());
    /* blocked on the asker: said once */
    vaced_bounds_blocked(7);
    vaced_bounds_blocked(7);
    CHECK_EQ_I64(nsent, 1);
    CHECK(sent[0].state == VACED_PEER_BLOCKED_ON_YOU && sent[0].seq == 12);
    /* now blocked on someone else */
    vaced_bounds_blocked(-2);
    CHECK(nsent == 2 && sent[1].state == VACED_PEER_BLOCKED_OTHER);
    /* not blocked (a write pending): nothing said */
    vaced_bounds_blocked(-1);
    CHECK_EQ_I64(nsent, 2);
    /* runs again, clock still short: the asker learns it runs */
    vaced_bounds_activity_point();
    CHECK(nsent == 3 && sent[2].state == VACED_PEER_RUNNING && sent[2].t < US(500));
    vaced_bounds_activity_point();
    CHECK_EQ_I64(nsent, 3);
    /* the clock passes it: answered for good */
    vaced_st.tv = US(500);
    vaced_bounds_activity_point();
    CHECK(nsent == 4 && sent[3].state == VACED_PEER_RUNNING && sent[3].t >= US(500));
    CHECK(!vaced_bounds_pending());

    /* finishing answers what is pending, and every later request */
    nsent = 0;
    vaced_bound_received(3, VACED_BOUND_REQUEST, 1, 0, US(9000));
    CHECK(vaced_bounds_pending());
    vaced_st.ended = 1;
    vaced_bounds_activity_point();
    CHECK(nsent == 1 && sent[0].peer == 3 && sent[0].state == VACED_PEER_FINALIZING);
    vaced_running = 0;
    vaced_bound_received(4, VACED_BOUND_REQUEST, 2, 0, US(9000));
    CHECK(nsent == 2 && sent[1].peer == 4 && sent[1].state == VACED_PEER_FINALIZING);
    CHECK(!vaced_bounds_pending());
    vaced_st.ended = 0;
}

int main(int argc, char **argv)
{
    char path[4096], err[512];
    snprintf(path, sizeof path, "%s/topo/paper-16.topo", argc > 1 ? argv[1] : ".");
    if (!CHECK(vaced_target_load(path, 16, &vaced_st.target, err, sizeof err) == 0)) {
        printf("cannot load %s: %s\n", path, err);
        return CHECK_REPORT();
    }
    vaced_st.size = 16;
    vaced_running = 1;
    vaced_bounds_transport(fake_send);
    test_asker();
    vaced_running = 1;
    test_answerer();
    vaced_bounds_free();
    vaced_target_free(vaced_st.target);
    return CHECK_REPORT();
}
