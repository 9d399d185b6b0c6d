/* Unit tests of the wildcard bound rule (vaced/src/progress/wildcard_bounds.c): when a
 * receiver may take its earliest candidate, which requests it sends, how
 * it follows chains of blocked ranks, and how a rank answers requests while
 * it runs, blocks and finishes.  A fake transport records the packets.
 *
 * Run: test_bounds REPO_ROOT   (loads topo/paper-16.topo: 16 ranks) */
#include <stdio.h>

#include "check.h"
#include "paper16.h"
#include "progress/peers.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "progress/waits.h"
#include "progress/wildcard_bounds.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))


/* Counts on this rank's connections, as its packets would leave them. */
static void packets(int peer, int sent, int n)
{
    for (int i = 0; i < n; i++)
        if (sent)
            vaced_peers_sent(peer, VACED_PKT_EAGER);
        else
            vaced_peers_received(peer, VACED_PKT_EAGER);
}

static void reply(int from, int seq, int state, int rank, int about, uint32_t recv_from,
                  uint32_t sent_to, vaced_time_t t)
{
    struct vaced_bound_pkt r = { VACED_BOUND_REPORT, seq, state, rank, about, recv_from, sent_to, t };
    vaced_bound_received(from, &r);
}

static vaced_time_t latency_to(int peer)
{
    return vaced_target_transfer_time(vaced_sim_target(), vaced_sim_rank(), peer, 0);
}

static void test_direct(void)
{
    int peers[4] = { 0, 1, 2, 3 };
    unsigned char flags[4] = { 0, VACED_PEER_KNOWN, 0, 0 };
    vaced_time_t ta = US(100);

    nsent = 0;
    vaced_wildcard_begin();
    /* 1 has a message on the host; 2 and 3 are asked, once */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK_EQ_I64(nsent, 2);
    CHECK(sent_to_peer[0] == 2 && sent[0].msg == VACED_BOUND_REQUEST && sent[0].t == ta &&
          sent[0].rank == -1);
    CHECK(sent_to_peer[1] == 3 && sent[1].seq == sent[0].seq);
    int seq = sent[0].seq;
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK_EQ_I64(nsent, 2);
    /* an earlier candidate reaches the host: both are asked again, lower */
    CHECK_EQ_I64(vaced_wildcard_check(US(60), 4, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 4 && sent[2].t == US(60) && sent[3].t == US(60));
    /* 2's bound reaches ta; 3 still silent */
    reply(2, seq, VACED_PEER_RUNNING, -1, -1, 0, 0, ta);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    /* 3 waits only on us, and we owe it nothing: decided */
    reply(3, seq, VACED_PEER_BLOCKED, 0, -1, 0, 0, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_SAFE);
    /* ... unless we owe it a protocol message */
    vaced_peers_parked(3, 1);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_UNPROVABLE);
    vaced_peers_parked(3, -1);

    /* next decision: bounds persist, blocked states do not */
    nsent = 0;
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 1 && sent_to_peer[0] == 3 && sent[0].seq != seq);
    seq = sent[0].seq;
    reply(3, seq - 1, VACED_PEER_BLOCKED, 0, -1, 0, 0, 0);      /* stale */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    reply(3, seq, VACED_PEER_BLOCKED, -2, -1, 0, 0, US(2));     /* waits on several */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_UNPROVABLE);
    reply(3, seq, VACED_PEER_RUNNING, -1, -1, 0, 0, US(3));     /* runs again */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_WAIT);
    reply(3, seq, VACED_PEER_FINALIZING, -1, -1, 0, 0, 0);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 4, peers, flags), VACED_WILD_SAFE);
    vaced_wildcard_begin();
    nsent = 0;
    CHECK_EQ_I64(vaced_wildcard_check(US(900), 4, peers, flags), VACED_WILD_WAIT);  /* only 2 */
    CHECK(nsent == 1 && sent_to_peer[0] == 2);
}

/* Rank 6 waits on 7, which waits on us (or runs): a chain. */
static void test_chains(void)
{
    int peers[3] = { 0, 6, 7 };
    unsigned char flags[3] = { 0, 0, VACED_PEER_KNOWN };
    vaced_time_t ta = US(100);

    nsent = 0;
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 1 && sent_to_peer[0] == 6);
    int seq = sent[0].seq;
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 5, 0, US(1));
    /* 7 is asked about 6, for the deadline that makes 6's message late */
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);
    CHECK(nsent == 2 && sent_to_peer[1] == 7 && sent[1].rank == 6);
    vaced_time_t l76 = vaced_target_transfer_time(vaced_sim_target(), 7, 6, 0);
    vaced_time_t l60 = vaced_target_transfer_time(vaced_sim_target(), 6, 0, 0);
    vaced_time_t l70 = vaced_target_transfer_time(vaced_sim_target(), 7, 0, 0);
    CHECK_EQ_I64(sent[1].t, ta - l60 - l76 + l70);
    /* 7 blocked on us, all its packets to 6 received: decided */
    reply(7, seq, VACED_PEER_BLOCKED, 0, 6, 0, 5, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_SAFE);
    /* a packet 7 -> 6 in flight: wait for 6 to report again */
    reply(7, seq, VACED_PEER_BLOCKED, 0, 6, 0, 6, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);
    /* it reached 6, still blocked on 7: decided */
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 6, 0, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_SAFE);
    /* 6 woke on it and runs: its clock decides */
    reply(6, seq, VACED_PEER_RUNNING, -1, -1, 0, 0, US(2));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 5, 0, US(1));
    /* 7 running: its bound decides, once late enough for 6's deadline */
    reply(7, seq, VACED_PEER_RUNNING, -1, 6, 0, 5, ta - l60 - l76 + l70 - 1);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);
    reply(7, seq, VACED_PEER_RUNNING, -1, 6, 0, 5, ta - l60 - l76 + l70);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_SAFE);
    /* 7 runs on and sends 6 more (one-sided traffic, messages 6 does not
     * wait for) after its one report: they left at its bound or later */
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 9, 0, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_SAFE);
    /* but had 7 reported blocked, 6's extra packets say that it woke */
    reply(7, seq, VACED_PEER_BLOCKED, 0, 6, 0, 5, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, flags), VACED_WILD_WAIT);

    /* a cycle 6 -> 7 -> 6 cannot be decided */
    nsent = 0;
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(US(5000), 3, peers, flags), VACED_WILD_WAIT);
    seq = sent[0].seq;
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 5, 0, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(US(5000), 3, peers, flags), VACED_WILD_WAIT);
    reply(7, seq, VACED_PEER_BLOCKED, 6, 6, 9, 5, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(US(5000), 3, peers, flags), VACED_WILD_UNPROVABLE);
}

static void test_answerer(void)
{
    struct vaced_bound_pkt q = { .msg = VACED_BOUND_REQUEST, .seq = 11, .rank = -1, .t = US(10) };

    vaced_sim_test_set_rank(5);
    vaced_clock_set(US(10));
    vaced_clock_test_set_depth(0);
    nsent = 0;
    /* satisfied at once: clock plus latency */
    vaced_bound_received(7, &q);
    CHECK_EQ_I64(nsent, 1);
    CHECK(sent_to_peer[0] == 7 && sent[0].msg == VACED_BOUND_REPORT && sent[0].seq == 11 &&
          sent[0].state == VACED_PEER_RUNNING && sent[0].about == -1);
    CHECK_EQ_I64(sent[0].t, US(10) + latency_to(7));
    CHECK(!vaced_bounds_pending());

    /* not yet: kept until the clock gets there; asked about rank 2 */
    nsent = 0;
    q.seq = 12;
    q.rank = 2;
    q.t = US(500);
    packets(2, 1, 42);
    packets(7, 0, 3);
    vaced_bound_received(7, &q);
    CHECK_EQ_I64(nsent, 0);
    CHECK(vaced_bounds_pending());
    /* blocked on 7: said once, with the counts */
    vaced_bounds_blocked(7);
    vaced_bounds_blocked(7);
    CHECK_EQ_I64(nsent, 1);
    CHECK(sent[0].state == VACED_PEER_BLOCKED && sent[0].rank == 7 && sent[0].seq == 12 &&
          sent[0].about == 2 && sent[0].sent_to == 42 && sent[0].recv_from == 3);
    /* a packet from 7 arrived, still blocked: said again */
    packets(7, 0, 1);
    vaced_bounds_blocked(7);
    CHECK(nsent == 2 && sent[1].recv_from == 4);
    /* now blocked on several */
    vaced_bounds_blocked(-2);
    CHECK(nsent == 3 && sent[2].state == VACED_PEER_BLOCKED && sent[2].rank == -2);
    /* not blocked (a write pending): nothing said */
    vaced_bounds_blocked(VACED_PROGRESSING);
    CHECK_EQ_I64(nsent, 3);
    /* runs again, clock still short: the asker learns it runs */
    vaced_bounds_activity_point();
    CHECK(nsent == 4 && sent[3].state == VACED_PEER_RUNNING && sent[3].t < US(500));
    vaced_bounds_activity_point();
    CHECK_EQ_I64(nsent, 4);
    /* the clock passes it: answered for good */
    vaced_clock_set(US(500));
    vaced_bounds_activity_point();
    CHECK(nsent == 5 && sent[4].state == VACED_PEER_RUNNING && sent[4].t >= US(500));
    CHECK(!vaced_bounds_pending());

    /* finishing answers what is pending, and every later request */
    nsent = 0;
    q.t = US(9000);
    vaced_bound_received(3, &q);
    CHECK(vaced_bounds_pending());
    vaced_sim_test_set_ended(1);
    vaced_bounds_activity_point();
    CHECK(nsent == 1 && sent_to_peer[0] == 3 && sent[0].state == VACED_PEER_FINALIZING);
    vaced_running = 0;
    vaced_bound_received(4, &q);
    CHECK(nsent == 2 && sent_to_peer[1] == 4 && sent[1].state == VACED_PEER_FINALIZING);
    CHECK(!vaced_bounds_pending());
    vaced_sim_test_set_ended(0);
}

/* MPI called from several threads: no bound protocol (host order), and
 * tests see every completion at once. */
static void test_threads(void)
{
    int peers[4] = { 0, 1, 2, 3 };

    int running = vaced_running;

    vaced_running = 1;
    nsent = 0;
    vaced_sim_test_set_unmodelled(vaced_sim_unmodelled() | VACED_UNMODELLED_THREADS);
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(US(100), 4, peers, NULL), VACED_WILD_SAFE);
    CHECK_EQ_I64(nsent, 0);
    CHECK_EQ_I64(vaced_horizon(), INT64_MAX);
    vaced_sim_test_set_unmodelled(0);
    CHECK_EQ_I64(vaced_horizon(), vaced_clock_tv());
    vaced_running = running;
}

/* A message's arrival bound beyond its sender's clock bound: its bytes at
 * Bnet (paper-16: 4.16 GB/s), nothing from this rank itself. */
static void test_lead(void)
{
    vaced_running = 1;
    vaced_sim_test_set_rank(0);
    CHECK_EQ_I64(vaced_bound_lead(3, 0), 0);
    CHECK_EQ_I64(vaced_bound_lead(3, 4160000), US(1000));
    CHECK_EQ_I64(vaced_bound_lead(vaced_sim_rank(), 4160000), 0);
    CHECK_EQ_I64(vaced_bound_lead(-1, 4160000), 0);
    vaced_running = 0;
    CHECK_EQ_I64(vaced_bound_lead(3, 4160000), 0);      /* not simulating */
}

/* Rank 7 is needed twice in one decision: as a sender itself (a bound of
 * ta) and as the rank 6 waits on (a bound of ta less the chain's
 * latencies, and its count to 6).  One request serves both, so it asks for
 * the larger bound: an answer for the smaller would be final, and the
 * larger would wait for good (4 ranks, 2 pairs, each polling
 * MPI_Iprobe(MPI_ANY_SOURCE): both hung).  A new deadline asks again,
 * higher too. */
static void test_two_needs(void)
{
    int peers[3] = { 0, 6, 7 };
    vaced_time_t ta = US(100);
    vaced_time_t l76 = vaced_target_transfer_time(vaced_sim_target(), 7, 6, 0);
    vaced_time_t l60 = vaced_target_transfer_time(vaced_sim_target(), 6, 0, 0);
    vaced_time_t l70 = vaced_target_transfer_time(vaced_sim_target(), 7, 0, 0);
    vaced_time_t chain_t = ta - l60 - l76 + l70;

    nsent = 0;
    vaced_wildcard_begin();
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, NULL), VACED_WILD_WAIT);
    CHECK(nsent == 2 && sent_to_peer[1] == 7 && sent[1].t == ta && sent[1].rank == -1);
    int seq = sent[0].seq;
    reply(6, seq, VACED_PEER_BLOCKED, 7, -1, 5, 0, US(1));
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, NULL), VACED_WILD_WAIT);
    CHECK(nsent == 3 && sent_to_peer[2] == 7 && sent[2].rank == 6);
    CHECK_EQ_I64(sent[2].t, ta);
    /* 7's answer for the chain alone: 6 is decided, 7 itself not yet */
    reply(7, seq, VACED_PEER_RUNNING, -1, 6, 0, 5, chain_t);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, NULL), VACED_WILD_WAIT);
    CHECK_EQ_I64(nsent, 3);
    reply(7, seq, VACED_PEER_RUNNING, -1, 6, 0, 5, ta);
    CHECK_EQ_I64(vaced_wildcard_check(ta, 3, peers, NULL), VACED_WILD_SAFE);
    /* a later deadline in the same decision asks 6 and 7 again, for it */
    CHECK_EQ_I64(vaced_wildcard_check(ta + US(50), 3, peers, NULL), VACED_WILD_WAIT);
    CHECK(nsent == 5 && sent_to_peer[4] == 7 && sent[4].t == ta + US(50));
}

int main(int argc, char **argv)
{
    struct vaced_target *t = paper16_load(argc, argv);
    if (!t)
        return CHECK_REPORT();
    vaced_sim_test_set_target(t);
    vaced_sim_test_set_size(16);
    vaced_sim_test_set_rank(0);
    vaced_running = 1;
    vaced_bounds_start(fake_send);
    vaced_peers_init(16);
    test_direct();
    test_chains();
    test_two_needs();
    test_answerer();
    test_threads();
    test_lead();
    vaced_bounds_free();
    vaced_target_free(t);
    vaced_peers_free();
    return CHECK_REPORT();
}
