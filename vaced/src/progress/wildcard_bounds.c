/* Conservative matching of wildcard receives: peers' clock lower bounds.
 *
 * A receive from MPI_ANY_SOURCE must match the message the target delivers
 * first, but a sender that is early on the target may not have reached the
 * host yet.  The receiver R takes its earliest candidate (arrival T) only
 * when every other possible sender S is decided, i.e. no message of S can
 * arrive at R before T:
 *   - S's next matching message is already on the host, or S is closing;
 *   - S reported a bound >= T: its clock plus the latency S -> R.  Clocks
 *     only grow, so no later message of S arrives earlier; messages S sent
 *     before the report precede it on the connection (FIFO), so they are on
 *     the host already;
 *   - S reported, for this decision, that it is blocked waiting for
 *     messages from one rank W only, and:
 *       W = R, and R owes S no protocol message: S stays blocked until R
 *       sends again, which R does after this receive, at a time >= T; or
 *       W is itself decided for the deadline T - L(S,R) on its messages to
 *       S (recursively: its bound, or blocked on R, or on a decided rank),
 *       and no message W -> S is in flight: W's count of packets sent to S,
 *       in W's report, equals S's count of packets received from W, in
 *       S's report.  Both were blocked when they reported, and a blocked
 *       rank only wakes on a message from the one it waits on.  While the
 *       counts differ, R waits for the next report: the packet reaches S,
 *       which then reports blocked again or running.  A W that runs with
 *       a bound late enough may have sent S more since its report: those
 *       left at its bound or later.
 * This is Chandy-Misra-Bryant's null-message idea with blocked states and
 * packet counts standing in for lookahead, which within a node is zero.
 * Requests are sent on demand, for undecided senders only; a peer answers
 * at once if its bound suffices, otherwise when its clock gets there (at an
 * MPI call boundary) or when it blocks.  When the rule cannot decide (a
 * rank waits on several, a cycle), the earliest candidate on the host is
 * taken and the prediction is marked approximate: no hang, never silent. */
#include <stdlib.h>
#include "clock/clock.h"
#include "job/job.h"
#include "machine/target.h"
#include "progress/waits.h"
#include "progress/wildcard_bounds.h"
#include "progress/peers.h"
#include "job/state_slot.h"

enum { MAX_CHAIN = 8 };

/* Asker side, per peer. */
struct peer_view {
    vaced_time_t bound;         /* best reported bound (VACED_TIME_UNSET: none) */
    vaced_time_t asked_t;       /* the last request: its t, decision and about, */
    int asked_seq, asked_about;
    int asked_gen;              /* and the deadline it was for (check_gen) */
    struct vaced_bound_pkt last;        /* the last report answering that decision */
    int have_last;
    int finalizing;
};

/* Answerer side: requests not answered for good. */
struct pending {
    int peer, seq, about;
    vaced_time_t t;
    struct vaced_bound_pkt sent;        /* last report sent for it */
    int have_sent;
};

struct bounds_state {
    vaced_bound_send_fn transport;
    struct peer_view *view;     /* per peer, once asked or answered (ensure_arrays) */
    struct pending *pend;       /* npend of them */
    int npend, epoch, nsize;    /* epoch: the running decision (vaced_wildcard_begin) */
    /* The deadline of the running decision's checks, and a count of its
     * changes (a new earliest candidate) */
    vaced_time_t check_ta;
    int check_gen;
};

/* The rank's: a replay rebinds it (sim/rank_state.h). */
static struct bounds_state bounds_live = { .check_ta = VACED_TIME_UNSET }, *st = &bounds_live;
VACED_STATE_SLOT(vaced_bounds_slot, st, bounds_live);

static int ensure_arrays(void)
{
    if (st->view)
        return 1;
    st->nsize = vaced_sim_size();
    if (st->nsize <= 0)
        return 0;
    st->view = calloc((size_t) st->nsize, sizeof *st->view);
    st->pend = calloc((size_t) st->nsize, sizeof *st->pend);
    if (!st->view || !st->pend) {
        free(st->view);
        free(st->pend);
        st->view = NULL;
        st->pend = NULL;
        return 0;
    }
    for (int i = 0; i < st->nsize; i++) {
        st->view[i].bound = VACED_TIME_UNSET;
        st->view[i].asked_seq = -1;
    }
    return 1;
}

void vaced_bounds_start(vaced_bound_send_fn send)
{
    vaced_bounds_free();
    *st = (struct bounds_state){ .transport = send, .check_ta = VACED_TIME_UNSET };
}

static vaced_time_t latency(int from, int to)
{
    return vaced_target_transfer_time(vaced_sim_target(), from, to, 0);
}

/* --- Answering ---------------------------------------------------------- */

/* Lower bound on the target arrival at `peer` of any message this rank sends
 * from now on: sends start at tV or later and pay at least the latency. */
static vaced_time_t own_bound(int peer)
{
    return vaced_clock_tv() + latency(vaced_sim_rank(), peer);
}

static void report(struct pending *p, int state, int waits_on)
{
    struct vaced_bound_pkt r = {
        .msg = VACED_BOUND_REPORT, .seq = p->seq, .state = state, .rank = waits_on,
        .about = p->about, .t = state == VACED_PEER_FINALIZING ? INT64_MAX : own_bound(p->peer),
    };
    if (waits_on >= 0)
        r.recv_from = vaced_peers_count(waits_on, 0);
    if (p->about >= 0)
        r.sent_to = vaced_peers_count(p->about, 1);
    if (p->have_sent && state == VACED_PEER_BLOCKED && p->sent.state == state &&
        p->sent.rank == r.rank && p->sent.recv_from == r.recv_from && p->sent.sent_to == r.sent_to)
        return;                         /* nothing new to say */
    p->sent = r;
    p->have_sent = 1;
    if (st->transport)
        st->transport(p->peer, &r);
}

static void drop_pending(int i)
{
    st->pend[i] = st->pend[--st->npend];
}

/* Answers, for good, the requests that this rank's clock now satisfies (or
 * all of them when it has finished); tells askers that heard "blocked" that
 * it runs again.  Called at activity boundaries, where tV is current. */
static void answer_running(void)
{
    for (int i = 0; i < st->npend;) {
        struct pending *p = &st->pend[i];
        if (vaced_sim_ended()) {
            report(p, VACED_PEER_FINALIZING, -1);
            drop_pending(i);
        } else if (own_bound(p->peer) >= p->t) {
            report(p, VACED_PEER_RUNNING, -1);
            drop_pending(i);
        } else {
            if (p->have_sent && p->sent.state != VACED_PEER_RUNNING)
                report(p, VACED_PEER_RUNNING, -1);
            i++;
        }
    }
}

void vaced_bounds_activity_point(void)
{
    if (st->npend > 0)
        answer_running();
}

int vaced_bounds_pending(void)
{
    return st->npend > 0;
}

void vaced_bounds_blocked(int only_on)
{
    if (only_on == VACED_PROGRESSING)
        return;
    if (only_on != -2)
        only_on = vaced_blocked_on(only_on);
    for (int i = 0; i < st->npend; i++)
        report(&st->pend[i], VACED_PEER_BLOCKED, only_on);
}

static void request_received(int peer, const struct vaced_bound_pkt *q)
{
    if (vaced_sim_ended() || !vaced_running || !ensure_arrays()) {
        /* finished: nothing more will come from here */
        struct pending done = { .peer = peer, .seq = q->seq, .about = q->rank };
        report(&done, VACED_PEER_FINALIZING, -1);
        return;
    }
    int i = 0;
    while (i < st->npend && st->pend[i].peer != peer)
        i++;
    if (i == st->npend)
        st->npend++;
    st->pend[i] = (struct pending) { .peer = peer, .seq = q->seq, .about = q->rank, .t = q->t };
    answer_running();
}

/* --- Asking and deciding ------------------------------------------------ */

static void report_received(int peer, const struct vaced_bound_pkt *r)
{
    if (!ensure_arrays() || peer < 0 || peer >= st->nsize)
        return;
    struct peer_view *v = &st->view[peer];
    if (r->state == VACED_PEER_FINALIZING)
        v->finalizing = 1;
    else if (v->bound == VACED_TIME_UNSET || r->t > v->bound)
        v->bound = r->t;
    if (r->seq == v->asked_seq && r->about == v->asked_about) {
        v->last = *r;
        v->have_last = 1;
    }
}

void vaced_bound_received(int peer, const struct vaced_bound_pkt *p)
{
    if (p->msg == VACED_BOUND_REQUEST)
        request_received(peer, p);
    else
        report_received(peer, p);
}

void vaced_wildcard_begin(void)
{
    st->epoch++;
}

/* Asks `x` for a bound of at least t, and its sent count to `about`, unless
 * asked so already for this deadline of this decision.  0 when `x` is
 * already asked about another rank (two chains meet: left undecided).  Two
 * needs for one deadline (x itself, and x as a link of a chain) ask for the
 * larger bound: `x` answers a request once, when its bound reaches it, so
 * an answer to the smaller would leave the larger waiting for good.  A new
 * deadline asks afresh, lower or higher. */
static int ask(int x, vaced_time_t t, int about)
{
    struct peer_view *v = &st->view[x];
    if (v->asked_seq == st->epoch && v->asked_gen == st->check_gen) {
        if (about < 0)
            about = v->asked_about;     /* a report about a rank answers both */
        else if (v->asked_about >= 0 && v->asked_about != about)
            return 0;
        if (v->asked_about == about && t <= v->asked_t)
            return 1;
        t = t > v->asked_t ? t : v->asked_t;
    } else if (v->asked_seq == st->epoch && t == v->asked_t &&
               (about < 0 || about == v->asked_about)) {
        v->asked_gen = st->check_gen;   /* the request still pending asks the same */
        return 1;
    }
    v->asked_seq = st->epoch;
    v->asked_gen = st->check_gen;
    v->asked_t = t;
    v->asked_about = about;
    v->have_last = 0;
    struct vaced_bound_pkt q = {
        .msg = VACED_BOUND_REQUEST, .seq = st->epoch, .rank = about, .t = t,
    };
    if (st->transport)
        st->transport(x, &q);
    return 1;
}

enum verdict { YES, WAIT, NO };

/* Can a message of `x` (or of what `x` waits on) still reach `succ` before
 * `deadline`, and so R's wildcard before T?  `succ` is R itself, or the
 * rank of the chain that waits on `x`. */
static enum verdict decided(int x, int succ, vaced_time_t deadline, int depth, int *chain)
{
    int me = vaced_sim_rank(), about = succ == me ? -1 : succ;
    struct peer_view *v = &st->view[x];

    if (v->finalizing)
        return YES;
    /* a chain link also needs its count, from a report about succ */
    if (about < 0 && v->bound != VACED_TIME_UNSET &&
        v->bound - latency(x, me) + latency(x, succ) >= deadline)
        return YES;
    vaced_time_t need = deadline - latency(x, succ) + latency(x, me);
    if (!ask(x, need, about))
        return NO;
    if (v->finalizing)                  /* the transport knew it is closing */
        return YES;
    if (!v->have_last)
        return WAIT;
    const struct vaced_bound_pkt *r = &v->last;
    /* succ has received fewer than x had sent at its report: a packet is in
     * flight, and succ reports again when it arrives.  More: x sent after
     * its report, so a blocked x woke (it says so at its next activity
     * point), while a running x sent them from its bound on, which the
     * bound covers; waiting there for equal counts would wait for good
     * while x keeps sending, since x reported once. */
    int32_t ahead = (int32_t) (st->view[succ].last.recv_from - r->sent_to);
    if (about >= 0 && (ahead < 0 || (ahead > 0 && r->state != VACED_PEER_RUNNING)))
        return WAIT;
    if (v->bound != VACED_TIME_UNSET && v->bound - latency(x, me) + latency(x, succ) >= deadline)
        return YES;
    if (r->state == VACED_PEER_RUNNING)
        return WAIT;
    int w = r->rank;
    if (w == me)
        return vaced_peers_owes(x) ? NO : YES;
    if (w < 0 || w >= st->nsize || depth + 1 >= MAX_CHAIN)
        return NO;
    chain[depth] = x;
    for (int i = 0; i <= depth; i++)
        if (chain[i] == w)
            return NO;                  /* a cycle of blocked ranks */
    return decided(w, x, deadline - latency(x, succ), depth + 1, chain);
}

int vaced_wildcard_check(vaced_time_t ta, int n, const int *peers, const unsigned char *flags)
{
    int waiting = 0, undecidable = 0;

    /* several threads: no blocked state is meaningful (see vaced_horizon) */
    if (!vaced_running || (vaced_sim_unmodelled() & VACED_UNMODELLED_THREADS) || !ensure_arrays())
        return VACED_WILD_SAFE;
    if (ta != st->check_ta) {
        st->check_ta = ta;
        st->check_gen++;
    }
    int me = vaced_sim_rank();
    for (int i = 0; i < n; i++) {
        int p = peers[i];
        if (p == me || p < 0 || p >= st->nsize || (flags && (flags[i] & VACED_PEER_KNOWN)))
            continue;
        int chain[MAX_CHAIN];
        enum verdict d = decided(p, me, ta, 0, chain);
        waiting += d == WAIT;
        undecidable += d == NO;
    }
    if (waiting)
        return VACED_WILD_WAIT;
    return undecidable ? VACED_WILD_UNPROVABLE : VACED_WILD_SAFE;
}

vaced_time_t vaced_bound_lead(int sender, uint64_t bytes)
{
    int me = vaced_sim_rank();
    if (!vaced_running || sender < 0 || sender >= vaced_sim_size() || sender == me)
        return 0;
    return vaced_target_transfer_time(vaced_sim_target(), sender, me, bytes) - latency(sender, me);
}

void vaced_bounds_free(void)
{
    free(st->view);
    free(st->pend);
    st->view = NULL;
    st->pend = NULL;
    st->npend = 0;
}
