/* Conservative matching of wildcard receives: peers' clock lower bounds.
 *
 * A receive from MPI_ANY_SOURCE must match the message the target delivers
 * first, but a sender that is early on the target may not have reached the
 * host yet.  The receiver R takes its earliest candidate (arrival ta) only
 * when every other possible sender S is decided:
 *   - S's next matching message is already on the host (known), or
 *   - S reported a bound >= ta: S's clock plus the latency S -> R.  Clocks
 *     only grow, so no later message of S arrives before it; messages S sent
 *     before the report precede it on the connection (FIFO), so they are on
 *     the host already; or
 *   - S reported, in answer to this wildcard's request, that it waits for
 *     messages only R can send, and R owes it no protocol message: S stays
 *     blocked until R sends again, which R does only after this receive, at
 *     a time >= ta (null-message reasoning of Chandy-Misra-Bryant, with the
 *     blocked state standing in for lookahead, which is 0 within a node); or
 *   - S is finalizing.
 * Requests are sent on demand (only for undecided peers of a wildcard whose
 * candidate is on the host); a peer answers at once if its bound already
 * suffices, otherwise it keeps the request and answers when its clock gets
 * there or when it blocks.  If every undecided peer is blocked waiting on
 * other ranks, the rule cannot decide without a global snapshot: the
 * earliest candidate on the host is taken and the prediction is marked
 * approximate (no hang, never silent). */
#include <stdlib.h>
#include "state.h"

static vaced_bound_send_fn transport;

/* Asker side, per peer. */
struct peer_view {
    vaced_time_t bound;         /* best reported bound (VACED_TIME_UNSET: none) */
    vaced_time_t asked_t;       /* t of the last request sent */
    int asked_seq;              /* wildcard (epoch) of that request */
    int report_seq;             /* epoch the last state report answered */
    unsigned char state;        /* last reported enum vaced_peer_state */
};

/* Answerer side, per asker with a request not yet answered for good. */
struct pending {
    int peer, seq;
    vaced_time_t t;
    int sent_state;             /* state last reported for this request, -1: none */
};

static struct peer_view *view;
static struct pending *pend;
static int npend, epoch, nsize;

static int ensure_arrays(void)
{
    if (view)
        return 1;
    nsize = vaced_st.size;
    if (nsize <= 0)
        return 0;
    view = calloc((size_t) nsize, sizeof *view);
    pend = calloc((size_t) nsize, sizeof *pend);
    if (!view || !pend) {
        free(view);
        free(pend);
        view = NULL;
        pend = NULL;
        return 0;
    }
    for (int i = 0; i < nsize; i++) {
        view[i].bound = VACED_TIME_UNSET;
        view[i].asked_seq = view[i].report_seq = -1;
    }
    return 1;
}

void vaced_bounds_transport(vaced_bound_send_fn send)
{
    transport = send;
}

/* Lower bound on the target arrival at `peer` of any message this rank sends
 * from now on: sends start at tV or later and pay at least the latency. */
static vaced_time_t own_bound(int peer)
{
    return vaced_st.tv + vaced_target_transfer_time(vaced_st.target, vaced_st.rank, peer, 0);
}

static void report(struct pending *p, int state, vaced_time_t t)
{
    p->sent_state = state;
    if (transport)
        transport(p->peer, VACED_BOUND_REPORT, p->seq, state, t);
}

static void drop_pending(int i)
{
    pend[i] = pend[--npend];
}

/* Answers, for good, the requests that this rank's clock now satisfies (or
 * all of them when it has finished); tells askers that heard "blocked" that
 * it runs again.  Called at activity boundaries, where tV is current. */
static void answer_running(void)
{
    for (int i = 0; i < npend;) {
        struct pending *p = &pend[i];
        if (vaced_st.ended) {
            report(p, VACED_PEER_FINALIZING, INT64_MAX);
            drop_pending(i);
            continue;
        }
        vaced_time_t b = own_bound(p->peer);
        if (b >= p->t) {
            report(p, VACED_PEER_RUNNING, b);
            drop_pending(i);
            continue;
        }
        if (p->sent_state != -1 && p->sent_state != VACED_PEER_RUNNING)
            report(p, VACED_PEER_RUNNING, b);
        i++;
    }
}

void vaced_bounds_activity_point(void)
{
    if (npend > 0)
        answer_running();
}

int vaced_bounds_pending(void)
{
    return npend > 0;
}

void vaced_bounds_blocked(int only_on)
{
    if (only_on == -1)
        return;
    for (int i = 0; i < npend; i++) {
        struct pending *p = &pend[i];
        int state = only_on == p->peer ? VACED_PEER_BLOCKED_ON_YOU : VACED_PEER_BLOCKED_OTHER;
        if (p->sent_state != state)
            report(p, state, own_bound(p->peer));
    }
}

static void request_received(int peer, int seq, vaced_time_t t)
{
    if (vaced_st.ended || !vaced_running || !ensure_arrays()) {
        /* finished (or never started): nothing more will come from here */
        if (transport)
            transport(peer, VACED_BOUND_REPORT, seq, VACED_PEER_FINALIZING, INT64_MAX);
        return;
    }
    int i = 0;
    while (i < npend && pend[i].peer != peer)
        i++;
    if (i == npend)
        npend++;
    pend[i] = (struct pending) { .peer = peer, .seq = seq, .t = t, .sent_state = -1 };
    answer_running();
}

static void report_received(int peer, int seq, int state, vaced_time_t t)
{
    if (!ensure_arrays() || peer < 0 || peer >= nsize)
        return;
    struct peer_view *v = &view[peer];
    if (state == VACED_PEER_FINALIZING || t > v->bound)
        v->bound = state == VACED_PEER_FINALIZING ? INT64_MAX : t;
    if (seq == v->asked_seq) {
        v->report_seq = seq;
        v->state = (unsigned char) state;
    }
}

void vaced_bound_received(int peer, int msg, int seq, int state, vaced_time_t t)
{
    if (msg == VACED_BOUND_REQUEST)
        request_received(peer, seq, t);
    else
        report_received(peer, seq, state, t);
}

void vaced_wildcard_begin(void)
{
    epoch++;
}

int vaced_wildcard_check(vaced_time_t ta, int n, const int *peers, const unsigned char *flags)
{
    int waiting = 0, blocked = 0;

    if (!vaced_running || !ensure_arrays())
        return VACED_WILD_SAFE;
    for (int i = 0; i < n; i++) {
        int p = peers[i];
        if (p == vaced_st.rank || p < 0 || p >= nsize || (flags[i] & VACED_PEER_KNOWN))
            continue;
        struct peer_view *v = &view[p];
        if (v->bound != VACED_TIME_UNSET && v->bound >= ta)
            continue;
        int fresh = v->report_seq == epoch && v->asked_seq == epoch;
        if (fresh && v->state == VACED_PEER_BLOCKED_ON_YOU && !(flags[i] & VACED_PEER_OWED))
            continue;
        if (v->asked_seq != epoch || ta < v->asked_t) {
            v->asked_seq = epoch;
            v->asked_t = ta;
            if (transport)
                transport(p, VACED_BOUND_REQUEST, epoch, VACED_PEER_RUNNING, ta);
            if (v->bound == VACED_TIME_UNSET || v->bound < ta)  /* else answered at once */
                waiting++;
        } else if (fresh && v->state != VACED_PEER_RUNNING) {
            blocked++;
        } else {
            waiting++;
        }
    }
    if (waiting)
        return VACED_WILD_WAIT;
    return blocked ? VACED_WILD_UNPROVABLE : VACED_WILD_SAFE;
}

void vaced_bounds_free(void)
{
    free(view);
    free(pend);
    view = NULL;
    pend = NULL;
    npend = 0;
}
