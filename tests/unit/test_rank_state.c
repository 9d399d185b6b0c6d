/* Unit tests of the swappable rank state (vaced/src/sim/rank_state.c): two
 * simulated ranks in one process, each in a block of its own, bound in
 * turn, keep their own clock, sends (the CPU, the connections' warm-up),
 * waits, peers, early queue and bound requests; binding the live statics
 * back finds the live rank as it was.
 *
 * Run: test_rank_state REPO_ROOT   (loads topo/paper-16.topo, warming up) */
#define _POSIX_C_SOURCE 200809L /* mkstemp (tmptext.h), mkdtemp, setenv */
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>

#include "check.h"
#include "paper16.h"
#include "clock/clock_test.h"
#include "sim/sim_test.h"
#include "sim/rank_state.h"
#include "network/send.h"
#include "progress/peers.h"
#include "progress/progress_test.h"
#include "progress/early_queue.h"
#include "progress/wildcard_bounds.h"
#include "progress/matching.h"
#include "progress/receive.h"
#include "progress/handling.h"
#include "report/trace.h"
#include "tmptext.h"

#define US(x) ((vaced_time_t) ((x) * 1000000LL))     /* microseconds in ps */

/* paper-16 (Bmem 6.38 GB/s, Bnet 4.16 GB/s, l(3) = 15 + 3 * 0.6 us) whose
 * connections' first 2 messages move at 1 GB/s: a 6380 B eager send takes
 * 1 us to copy, then 1.53 us on a warm connection, 6.38 us on a cold one,
 * plus the latency. */
#define WARMING "net_warmup_messages = 2\nbnet_warmup = 1 GB/s\n"
#define BYTES 6380
static const vaced_time_t warm_ps = US(1) + 1533654 + US(16.8);
static const vaced_time_t cold_ps = US(1) + US(6.38) + US(16.8);

static struct vaced_target *load_warming(int argc, char **argv)
{
    char path[4096], text[4096];
    snprintf(path, sizeof path, "%s/topo/paper-16.topo", argc > 1 ? argv[1] : ".");
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - sizeof WARMING, f) : 0;
    if (f)
        fclose(f);
    if (!CHECK(n > 0)) {
        printf("cannot read %s\n", path);
        return NULL;
    }
    memcpy(text + n, WARMING, sizeof WARMING);
    struct vaced_target *t = NULL;
    if (!CHECK(load_text(text, 16, &t) == 0))
        printf("%s\n", errbuf);
    return t;
}

/* An eager send of BYTES to `peer` now: from tV to its arrival. */
static vaced_time_t flight(int peer)
{
    vaced_time_t from = vaced_now(), tr;
    vaced_activity_begin();
    vaced_time_t ta = vaced_packet_sent(peer, VACED_PKT_EAGER, BYTES, &tr);
    vaced_activity_end();
    return ta - from;
}

/* A device with no posted receives, for which every message is claimed. */
static void *none_next(void *x) { (void) x; return NULL; }
static void *claims_all(void *u) { return u; }
static int not_writing(void) { return 0; }
static const struct vaced_device fake_dev = {
    .send_bound = fake_send, .posted_next = none_next, .claimant = claims_all,
    .writing = not_writing,
};

/* The modules' starts, as vaced_sim_start calls them, without MPI. */
static void start(struct vaced_target *t, int rank)
{
    vaced_sim_test_start(rank, 16, t);
    vaced_clock_reset();
    vaced_send_reset();
    vaced_progress_reset();
    CHECK(vaced_peers_init(16) == 0);
    CHECK(vaced_send_count_connections(16) == 0);
    vaced_bounds_start(fake_send);
    vaced_matching_start(&fake_dev);
    vaced_clock_test_set_read_cost(INT64_MAX / 4);    /* every compute segment is 0 */
}

static void release(void)
{
    vaced_free_parked();
    vaced_bounds_free();
    vaced_send_free();
    vaced_peers_free();
    vaced_recv_turns_free();
}

static int fired_b;
static void fire_b(void *arg)
{
    (void) arg;
    fired_b++;
}

/* A fresh (zeroed) block: nothing of the rank bound before it shows. */
static void check_fresh(void)
{
    CHECK_EQ_I64(vaced_now(), 0);
    CHECK(vaced_sim_target() == NULL);
    CHECK_EQ_I64(vaced_cpu_free_at(), 0);
    CHECK_EQ_U64(vaced_progress_test_waits()->count, 0);
    CHECK(!vaced_bounds_pending());
    CHECK(vaced_trace_st->file == NULL);
}

int main(int argc, char **argv)
{
    struct vaced_target *t = load_warming(argc, argv);
    if (!t)
        return CHECK_REPORT();
    vaced_running = 1;

    /* the live rank: 5, at 7 us, its CPU busy until 3 us, nothing sent */
    start(t, 5);
    vaced_clock_set(US(7));
    vaced_cpu_occupy(0, US(3), 0);

    size_t size = vaced_rank_state_size();
    CHECK(size % alignof(max_align_t) == 0);
    CHECK(size >= sizeof(struct vaced_clock) + sizeof(struct vaced_sim) +
                  sizeof(struct vaced_progress) + sizeof(struct vaced_trace));
    char *a = calloc(1, size), *b = calloc(1, size);
    if (!CHECK(a && b))
        return CHECK_REPORT();

    char msg;                   /* an unexpected message, for fake_dev */

    /* a directory for the ranks' traces */
    char dir[] = "/tmp/vaced-rank-state-XXXXXX", file[64];
    if (!CHECK(mkdtemp(dir)))
        return CHECK_REPORT();
    setenv("VACED_TRACE", dir, 1);

    /* A, rank 0: traced; two sends to 3 at 100 us use up that
     * connection's warm-up; its CPU is busy from 100 to 150 us; a wait
     * completes at 300 us; a held receive */
    vaced_rank_state_bind(a);
    check_fresh();
    start(t, 0);
    CHECK(vaced_trace_open(0) == 0);
    vaced_clock_set(US(100));
    CHECK_NEAR_I64(flight(3), cold_ps, 2);
    CHECK_NEAR_I64(flight(3), cold_ps, 2);
    CHECK_EQ_I64(vaced_now(), US(102));
    CHECK_EQ_I64(vaced_cpu_occupy(US(100), US(50), 0), US(150));
    vaced_wait_begin();
    vaced_wait_complete(US(300));
    vaced_wait_end();
    CHECK_EQ_I64(vaced_now(), US(300));
    vaced_matching_hold();

    /* B, rank 1: fresh; traced; its connections to 3 and 2 are cold; a
     * response parked for 4; a bound request from 6 it cannot answer yet */
    vaced_rank_state_bind(b);
    check_fresh();
    start(t, 1);
    CHECK(vaced_trace_open(1) == 0);
    vaced_clock_set(US(10));
    CHECK_NEAR_I64(flight(3), cold_ps, 2);
    CHECK_NEAR_I64(flight(2), cold_ps, 2);
    CHECK_EQ_I64(vaced_cpu_occupy(0, US(5), 0), US(5));
    vaced_park(4, US(40), fire_b, NULL);
    struct vaced_bound_pkt q = { .msg = VACED_BOUND_REQUEST, .seq = 1, .rank = -1, .t = US(1000) };
    vaced_bound_received(6, &q);
    CHECK(vaced_bounds_pending());

    /* back to A: its own state, none of B's */
    vaced_rank_state_bind(a);
    CHECK_EQ_I64(vaced_sim_rank(), 0);
    CHECK_EQ_I64(vaced_now(), US(300));
    CHECK_EQ_I64(vaced_cpu_free_at(), US(150));
    CHECK_EQ_U64(vaced_progress_test_waits()->count, 1);
    CHECK_EQ_U64(vaced_peers_count(3, 1), 2);
    CHECK_EQ_U64(vaced_peers_count(2, 1), 0);
    CHECK(!vaced_peers_owes(4));
    CHECK(!vaced_bounds_pending());
    CHECK_EQ_I64(vaced_fire_parked(INT64_MAX), 0);
    CHECK_EQ_I64(fired_b, 0);
    CHECK_NEAR_I64(flight(3), warm_ps, 2);      /* warm now */
    CHECK(vaced_claimed(&msg));
    CHECK_CONTAINS(vaced_trace_st->path, "/vaced-trace.0.csv");

    /* back to B: as it was left */
    vaced_rank_state_bind(b);
    CHECK_EQ_I64(vaced_sim_rank(), 1);
    CHECK_EQ_I64(vaced_now(), US(12));
    CHECK_EQ_I64(vaced_cpu_free_at(), US(5));
    CHECK_EQ_U64(vaced_progress_test_waits()->count, 0);
    CHECK_EQ_U64(vaced_peers_count(3, 1), 1);
    CHECK_EQ_U64(vaced_peers_count(2, 1), 1);
    CHECK(vaced_peers_owes(4));
    CHECK(vaced_bounds_pending());
    CHECK_NEAR_I64(flight(3), cold_ps, 2);      /* its second to 3 */
    CHECK_EQ_I64(vaced_fire_parked(INT64_MAX), 1);
    CHECK_EQ_I64(fired_b, 1);
    CHECK(!vaced_peers_owes(4));
    CHECK(!vaced_claimed(&msg));
    CHECK_CONTAINS(vaced_trace_st->path, "/vaced-trace.1.csv");
    /* blocking, it tells 6 it waits on no one rank (as its matching
     * started: waiting on none; its peers: nothing open) */
    int before = nsent;
    vaced_idle();
    CHECK(nsent == before + 1 && sent_to_peer[before] == 6);
    CHECK_EQ_I64(sent[before].state, VACED_PEER_BLOCKED);
    CHECK_EQ_I64(sent[before].rank, -2);

    /* the live rank, untouched by either */
    vaced_rank_state_bind_live();
    CHECK_EQ_I64(vaced_sim_rank(), 5);
    CHECK_EQ_I64(vaced_now(), US(7));
    CHECK_EQ_I64(vaced_cpu_free_at(), US(3));
    CHECK_EQ_U64(vaced_progress_test_waits()->count, 0);
    CHECK_EQ_U64(vaced_peers_count(3, 1), 0);
    CHECK(!vaced_bounds_pending());
    CHECK(!vaced_claimed(&msg));
    CHECK(vaced_trace_st->file == NULL);
    CHECK_NEAR_I64(flight(3), cold_ps, 2);

    /* and A once more, after the live statics were bound */
    vaced_rank_state_bind(a);
    CHECK_EQ_I64(vaced_now(), US(301));
    CHECK_EQ_U64(vaced_peers_count(3, 1), 3);
    CHECK_NEAR_I64(flight(3), warm_ps, 2);

    /* each trace has the spans of its own rank's calls */
    vaced_trace_close(0);
    release();
    vaced_rank_state_bind(b);
    vaced_trace_close(1);
    release();
    vaced_rank_state_bind_live();
    release();
    for (int r = 0; r < 2; r++) {
        snprintf(file, sizeof file, "%s/vaced-trace.%d.csv", dir, r);
        char text[512] = "";
        FILE *f = fopen(file, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        text[n] = 0;
        if (f)
            fclose(f);
        CHECK_CONTAINS(text, r == 0 ? "mpi,0.000100000000,0.000101000000\n"
                                    : "mpi,0.000010000000,0.000011000000\n");
        unlink(file);
    }
    rmdir(dir);
    free(a);
    free(b);
    vaced_running = 0;
    vaced_target_free(t);
    return CHECK_REPORT();
}
