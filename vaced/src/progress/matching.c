/* The target's matching rules over the device's receive queues (vaced.h,
 * struct vaced_device).  A receive or probe from any source takes the
 * message the target delivers first, proven by peers' clock bounds
 * (wildcard_bounds.c); a nonblocking wildcard receive is held until its
 * first message is proven; tests and probes wait on the host until the
 * target's answer is known; Waitany reports the target's first. */
#include <stdlib.h>
#include "progress/wildcard_bounds.h"
#include "progress/matching.h"
#include "progress/receive.h"
#include "progress/waits.h"
#include "progress/progress_observer.h"
#include "job/state_slot.h"

struct matching_state {
    const struct vaced_device *dev;
    /* Held wildcard receives, and messages for receives posted behind
     * them: the held-receive hook's work (an upper bound).  A message that
     * a held receive is the first posted receive to match is "claimed":
     * neither probes nor later receives take it (MPI's order gives it to
     * the held receive). */
    int nheld;
    /* What a blocking probe or a wildcard gate waits on: a world rank, -2
     * (any rank) or -1 (none). */
    int waiting_on;
    /* A test or probe is being settled: the rank waits on the host, but is
     * not blocked on the target (its clock moves on once it is decided). */
    int settling;
    /* vaced_held_next's decision in progress: the held receive, its
     * earliest candidate's arrival, and whether requests went out for it. */
    void *focus_req;
    vaced_time_t focus_ta;
    int focus_begun;
};

/* The rank's: a replay rebinds it (sim/rank_state.h). */
static struct matching_state matching_live = { .waiting_on = -1 }, *st = &matching_live;
VACED_STATE_SLOT(vaced_matching_slot, st, matching_live);

void vaced_matching_start(const struct vaced_device *d)
{
    *st = (struct matching_state){ .dev = d, .waiting_on = -1 };
}

void vaced_matching_hold(void)
{
    st->nheld++;
}

static struct vaced_req_facts facts_of(void *req)
{
    struct vaced_req_facts f;

    st->dev->facts(req, &f);
    return f;
}

static vaced_time_t arrival_of(void *req)
{
    return vaced_msg_arrival(facts_of(req).msg);
}

static int world_rank(void *comm, int rank)
{
    return st->dev->world_rank(comm, rank, NULL);
}

int vaced_claimed(void *u)
{
    return st->nheld > 0 && st->dev->claimant(u) != NULL;
}

/* Message u is a candidate of the held receive `owner`, or (owner NULL) of
 * a new receive or probe matching `spec`. */
static int candidate(void *u, void *owner, const void *spec)
{
    if (owner)
        return st->dev->claimant(u) == owner;
    return st->dev->matches(u, spec) && !vaced_claimed(u);
}

unsigned vaced_pick_candidates(void *owner, const void *spec,
                               void (*each)(const struct vaced_msg *m, void *arg), void *arg)
{
    const struct vaced_device *dev = st->dev;
    unsigned n = 0;
    for (void *r = dev->unexpected_next(NULL); r; r = dev->unexpected_next(r)) {
        void *q;
        if (!candidate(r, owner, spec))
            continue;
        struct vaced_req_facts fr = facts_of(r);
        for (q = dev->unexpected_next(NULL); q != r; q = dev->unexpected_next(q))
            if (facts_of(q).peer == fr.peer && candidate(q, owner, spec))
                break;
        if (q != r)
            continue;
        n++;
        if (each)
            each(fr.msg, arg);
    }
    return n;
}

const struct vaced_msg *vaced_pick_msg(void *u)
{
    return u ? facts_of(u).msg : NULL;
}

static void *pick(void *owner, const void *spec);

/* The observer hears the pick and may list its candidates: a record keeps
 * them, so that a replay on another target sees whether it would pick
 * another. */
void *vaced_pick(void *owner, const void *spec)
{
    void *best = pick(owner, spec);
    if (vaced_running)
        vaced_progress_observer->picked(owner, spec, best);
    return best;
}

static void *pick(void *owner, const void *spec)
{
    const struct vaced_device *dev = st->dev;
    void *best = NULL;
    vaced_time_t best_ta = 0;

    if (!vaced_running && !owner)
        return NULL;
    for (void *r = dev->unexpected_next(NULL); r; r = dev->unexpected_next(r)) {
        struct vaced_req_facts fr;
        void *q;

        if (!candidate(r, owner, spec))
            continue;
        fr = facts_of(r);
        for (q = dev->unexpected_next(NULL); q != r; q = dev->unexpected_next(q))
            if (facts_of(q).peer == fr.peer && candidate(q, owner, spec))
                break;          /* an older candidate from the same source */
        if (q == r && (!best || fr.msg->ta < best_ta)) {     /* not handed out */
            best = r;
            best_ta = fr.msg->ta;
        }
    }
    return best;
}

/* The senders of comm as world ranks (-1: another process group), with
 * flags for vaced_wildcard_check: closing ones are known. */
static int *senders(void *comm, unsigned char **flags, int *n)
{
    const struct vaced_device *dev = st->dev;
    int *peers;

    *n = dev->comm_size(comm);
    peers = malloc((size_t) *n * (sizeof(int) + 1));
    if (!peers)
        return NULL;
    *flags = (unsigned char *) (peers + *n);
    for (int i = 0; i < *n; i++) {
        int closing = 0;
        peers[i] = dev->world_rank(comm, i, &closing);
        (*flags)[i] = closing ? VACED_PEER_KNOWN : 0;
    }
    return peers;
}

/* vaced_wildcard_check on what peers have reported so far; a new decision
 * (fresh requests to the undecided) only when that does not suffice, once
 * per *begun. */
static int check(vaced_time_t ta, int n, const int *peers, const unsigned char *flags, int *begun)
{
    int verdict = vaced_wildcard_check(ta, n, peers, flags);

    if (verdict != VACED_WILD_SAFE && !*begun) {
        *begun = 1;
        vaced_wildcard_begin();
        verdict = vaced_wildcard_check(ta, n, peers, flags);
    }
    return verdict;
}

/* Whether best, the earliest candidate of a wildcard on comm (of the held
 * receive owner, or of a new one matching spec), is proven the target's
 * first; when the rule cannot tell, it is taken and the prediction marked
 * approximate, naming the call. */
static int first_proven(void *comm, void *best, void *owner, const void *spec, const char *call,
                        int *begun)
{
    const struct vaced_device *dev = st->dev;
    int n, verdict;
    unsigned char *flags;
    int *peers = senders(comm, &flags, &n);

    if (!peers)
        return 1;
    for (void *r = dev->unexpected_next(NULL); r; r = dev->unexpected_next(r)) {
        int src = facts_of(r).peer;
        if (src >= 0 && src < n && candidate(r, owner, spec))
            flags[src] |= VACED_PEER_KNOWN;
    }
    verdict = check(arrival_of(best), n, peers, flags, begun);
    free(peers);
    if (verdict == VACED_WILD_UNPROVABLE)
        vaced_unmodelled(VACED_UNMODELLED_WILDCARD, call);
    return verdict != VACED_WILD_WAIT;
}

static int decided(void *comm, const void *spec, const char *call, int *begun)
{
    void *best = vaced_pick(NULL, spec);

    return best && first_proven(comm, best, NULL, spec, call, begun);
}

/* A receive or probe from any source, before it matches: waits on the
 * host until its earliest candidate is proven the target's first, or
 * cannot be (then the prediction is approximate). */
static int gate(void *comm, const void *spec, const char *call)
{
    const struct vaced_device *dev = st->dev;
    int err, begun = 0;

    if (!vaced_running)
        return 0;
    if (dev->comm_size(comm) <= 1)
        return dev->drain();
    st->waiting_on = -2;
    while (!(err = dev->drain()) && !decided(comm, spec, call, &begun) &&
           !(err = dev->progress_wait()))
        ;
    st->waiting_on = -1;
    return err;
}

/* What a probe waits on, for peers asking for its bound. */
static void probing_on(void *comm, int source)
{
    int w = source < 0 ? -2 : world_rank(comm, source);

    st->waiting_on = w >= 0 ? w : -2;
}

/* A test or probe being settled: MPI_Test of req, or (req NULL) MPI_Iprobe
 * of `source` (-1: any) on comm matching spec, at target time now. */
struct settle {
    void *req, *comm;
    int source;
    const void *spec;
    vaced_time_t now;
};

/* One round of deciding whether a message from the senders of a->comm
 * (all, or only a->source) can reach this rank on the target before
 * `deadline`, given the candidates on the host (flags[i]: sender i's next
 * one is here).  Frees peers. */
static int settle_verdict(const struct settle *a, int *peers, unsigned char *flags, int n,
                          vaced_time_t deadline, int *begun)
{
    int verdict;

    if (a->source >= 0) {
        int peer = flags[a->source] ? -1 : world_rank(a->comm, a->source);
        verdict = check(deadline, 1, &peer, NULL, begun);
    } else
        verdict = check(deadline, n, peers, flags, begun);
    free(peers);
    return verdict;
}

static int test_round(const struct settle *a, int *begun)
{
    const struct vaced_device *dev = st->dev;
    struct vaced_req_facts f = facts_of(a->req);
    vaced_time_t ta = vaced_msg_arrival(f.msg), done;
    unsigned char *flags;
    int *peers, peer, n;

    if (f.complete)
        return VACED_WILD_SAFE;
    /* Matched.  A rendezvous receive awaits its DATA, which its sender sends
     * when it handles the CTS: no earlier than its clock bound plus the
     * DATA's transfer time.  The sender's bound settles it: a sender waits
     * on this rank only when this rank's bound is below its clock, and this
     * rank on the sender only when the sender's clock is a transfer time
     * below its own, so no two wait on each other.  A payload under way
     * needs only the sender's progress engine. */
    if (f.kind == VACED_REQ_RECV && ta != VACED_TIME_UNSET) {
        if (f.msg_kind != VACED_PKT_RTS || f.msg->data_in)
            return ta <= a->now ? VACED_WILD_WAIT : VACED_WILD_SAFE;
        peer = world_rank(f.comm, a->source);
        if (peer < 0)
            return VACED_WILD_SAFE;
        return check(a->now - vaced_bound_lead(peer, f.bytes), 1, &peer, NULL, begun);
    }
    /* A rendezvous send whose DATA has left: only the host's write remains,
     * which needs the receiver's progress engine, not its clock. */
    if (f.kind == VACED_REQ_SEND && f.msg_kind == VACED_PKT_RTS &&
        (done = vaced_msg_done(f.msg, 0)) != VACED_TIME_UNSET)
        return done <= a->now ? VACED_WILD_WAIT : VACED_WILD_SAFE;
    /* its sender only; for a send, its receiver (the ACK or CTS it awaits) */
    if (a->source >= 0) {
        peer = world_rank(f.comm, a->source);
        return check(a->now, 1, &peer, NULL, begun);
    }
    /* a held wildcard: every sender, and the messages it claims */
    if (!(peers = senders(f.comm, &flags, &n)))
        return VACED_WILD_SAFE;
    for (void *u = dev->unexpected_next(NULL); u; u = dev->unexpected_next(u)) {
        struct vaced_req_facts fu = facts_of(u);
        if (dev->claimant(u) != a->req || fu.peer < 0 || fu.peer >= n)
            continue;
        flags[fu.peer] |= VACED_PEER_KNOWN;
        if (vaced_msg_arrival(fu.msg) <= a->now) {  /* bound once proven */
            free(peers);
            return VACED_WILD_WAIT;
        }
    }
    return settle_verdict(a, peers, flags, n, a->now, begun);
}

static int probe_round(const struct settle *a, int *begun)
{
    const struct vaced_device *dev = st->dev;
    vaced_time_t deadline = a->now;
    unsigned char *flags;
    int n, *peers = senders(a->comm, &flags, &n);

    if (!peers)
        return VACED_WILD_SAFE;
    for (void *u = dev->unexpected_next(NULL); u; u = dev->unexpected_next(u)) {
        struct vaced_req_facts fu = facts_of(u);
        if (fu.peer < 0 || fu.peer >= n || !candidate(u, NULL, a->spec))
            continue;
        flags[fu.peer] |= VACED_PEER_KNOWN;
        if (vaced_msg_arrival(fu.msg) < deadline)
            deadline = vaced_msg_arrival(fu.msg);
    }
    return settle_verdict(a, peers, flags, n, deadline, begun);
}

/* Waits on the host (in poll: no CPU time counted) while the round says
 * VACED_WILD_WAIT.  A wildcard the rule cannot decide is approximate,
 * naming the call; the CPU time of the bound protocol is not the program's
 * polling. */
static int settle(const struct settle *a, int wildcard, const char *call)
{
    int err = 0, begun = 0, waited = 0, verdict;

    st->settling++;
    while ((verdict = a->req ? test_round(a, &begun) : probe_round(a, &begun)) == VACED_WILD_WAIT) {
        waited = 1;
        if ((err = st->dev->progress_wait()))
            break;
    }
    st->settling--;
    if (verdict == VACED_WILD_UNPROVABLE && wildcard)
        vaced_unmodelled(VACED_UNMODELLED_WILDCARD, call);
    if (begun || waited)
        vaced_test_restart();
    return err;
}

int vaced_test_settle(void *req)
{
    struct settle a = { req, NULL, -1, NULL, vaced_now() };
    struct vaced_req_facts f;
    int matched, wildcard;

    if (!vaced_running)
        return 0;
    f = facts_of(req);
    matched = f.kind == VACED_REQ_RECV && vaced_msg_arrival(f.msg) != VACED_TIME_UNSET;
    if (f.kind == VACED_REQ_OTHER || !f.comm || f.complete ||
        (f.kind == VACED_REQ_RECV && !matched && f.msg->posted == VACED_TIME_UNSET))
        return 0;               /* not a posted receive */
    a.comm = f.comm;
    wildcard = f.kind == VACED_REQ_RECV && !matched && f.held;
    if (!wildcard) {
        a.source = matched ? f.status_peer : f.peer;
        if (a.source < 0 || a.source >= st->dev->comm_size(f.comm))
            return 0;
    }
    return settle(&a, wildcard, "MPI_Test");
}

int vaced_post(void *comm, int source, const void *spec, enum vaced_post how, int *held)
{
    const struct vaced_device *dev = st->dev;
    static const char *const call[] = {
        [VACED_POST_IRECV] = "MPI_Irecv(MPI_ANY_SOURCE)",
        [VACED_POST_RECV] = "MPI_Recv(MPI_ANY_SOURCE)",
        [VACED_POST_PROBE] = "MPI_Probe(MPI_ANY_SOURCE)",
        [VACED_POST_MPROBE] = "MPI_Mprobe(MPI_ANY_SOURCE)",
        [VACED_POST_IPROBE] = "MPI_Iprobe(MPI_ANY_SOURCE)"
    };
    int err = 0, begun = 0, unused;

    if (!held)
        held = &unused;
    *held = 0;
    switch (how) {
    case VACED_POST_IRECV:     /* behind held receives (MPI's order), or unproven: held */
        if (!vaced_running || dev->comm_size(comm) <= 1)
            return 0;
        if (st->nheld > 0)
            *held = 1;
        else if (!dev->drain()) /* an error surfaces at the wait */
            *held = !decided(comm, spec, call[how], &begun);
        return 0;
    case VACED_POST_RECV:      /* behind held receives: held with them */
        if (vaced_running && st->nheld > 0) {
            *held = 1;
            return 0;
        }
        return gate(comm, spec, call[how]);
    case VACED_POST_PROBE:
    case VACED_POST_MPROBE:
        if (source < 0)
            err = gate(comm, spec, call[how]);
        probing_on(comm, source);
        return err;
    case VACED_POST_IPROBE: {
        struct settle a = { NULL, comm, source, spec, vaced_now() };
        if (!vaced_running || source >= dev->comm_size(comm))
            return 0;
        probing_on(comm, source);
        err = settle(&a, source < 0, call[how]);
        st->waiting_on = -1;
        return err;
    }
    }
    return 0;
}

void vaced_model_probe_found(vaced_time_t ta)
{
    st->waiting_on = -1;
    if (ta != VACED_TIME_UNSET)
        vaced_model_wait_complete(vaced_recv_done(ta, 0));
}

/* Eager DATA still arriving into u's buffer: u cannot be given away yet. */
static int bindable(void *u)
{
    struct vaced_req_facts f = facts_of(u);

    return f.msg_kind != VACED_PKT_EAGER || f.complete;
}

int vaced_held_next(void **posted, void **msg)
{
    const struct vaced_device *dev = st->dev;
    void *p, *u, *focus = NULL, *best = NULL;
    int work = 0;

    for (p = dev->posted_next(NULL); p; p = dev->posted_next(p)) {
        if (!facts_of(p).held)
            continue;
        work++;
        if (!best && (u = vaced_pick(p, NULL)) && bindable(u)) {
            focus = p;
            best = u;
        }
    }
    if (best) {
        if (focus != st->focus_req || arrival_of(best) != st->focus_ta) {
            st->focus_begun = 0;        /* a new decision */
            st->focus_req = focus;
            st->focus_ta = arrival_of(best);
        }
        if (!first_proven(facts_of(focus).comm, best, focus, NULL, "MPI_Irecv(MPI_ANY_SOURCE)",
                          &st->focus_begun))
            best = NULL;
    }
    if (!best)                  /* a message for a receive no held one precedes */
        for (u = dev->unexpected_next(NULL); u; u = dev->unexpected_next(u))
            if ((focus = dev->claimant(u)) && !facts_of(focus).held) {
                work++;
                if (bindable(u)) {
                    best = u;
                    break;
                }
            }
    st->nheld = work;
    if (!best)
        return work ? 0 : -1;
    st->focus_req = NULL;
    *posted = focus;
    *msg = best;
    return 1;
}

/* What this rank, about to block, can be woken by, as far as its posted
 * receives and probes tell: their one source, -1 (none) or -2 (several
 * ranks, any rank; wildcard_bounds.c adds the peers of its open
 * handshakes). */
static int blocked_on(void)
{
    const struct vaced_device *dev = st->dev;
    int only = st->waiting_on;

    if (only == -2)
        return -2;
    for (void *p = dev->posted_next(NULL); p; p = dev->posted_next(p)) {
        struct vaced_req_facts f = facts_of(p);
        int w = f.peer < 0 ? -2 : world_rank(f.comm, f.peer);
        if (w < 0 || (only >= 0 && only != w))
            return -2;
        only = w;
    }
    return only;
}

void vaced_idle(void)
{
    if (!st->dev || !vaced_bounds_pending() || st->settling)
        return;                 /* not blocked: its clock moves on when decided */
    vaced_bounds_blocked(st->dev->writing() ? VACED_PROGRESSING : blocked_on());
}

static int waitany_decided(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                           void *reqs, int *asked);

unsigned vaced_first_candidates(int count, void *(*req_at)(void *reqs, int i), void *reqs,
                                void (*each)(const struct vaced_msg *m, uint64_t bytes, void *arg),
                                void *arg)
{
    unsigned n = 0;
    for (int i = 0; i < count; i++) {
        void *r = req_at(reqs, i);
        if (!r)
            continue;
        struct vaced_req_facts f = facts_of(r);
        if (f.kind == VACED_REQ_OTHER || !f.active || !f.msg)
            continue;
        n++;
        if (each)
            each(f.msg, f.bytes, arg);
    }
    return n;
}

/* The observer hears Waitany's choice and may list the requests it chose
 * among: a record keeps them, so that a replay on another target sees
 * whether another would be first. */
int vaced_waitany_decided(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                          void *reqs, int *asked)
{
    int decided = waitany_decided(t, count, req_at, reqs, asked);
    if (decided && vaced_running && t != VACED_TIME_UNSET && count > 0)
        vaced_progress_observer->first_decided(t, count, req_at, reqs);
    return decided;
}

static int waitany_decided(vaced_time_t t, int count, void *(*req_at)(void *reqs, int i),
                           void *reqs, int *asked)
{
    const struct vaced_device *dev = st->dev;
    int n = 0, cap = 0, verdict = VACED_WILD_SAFE, *peers;

    if (!vaced_running || t == VACED_TIME_UNSET)
        return 1;
    for (int i = 0; i < count; i++) {
        void *r = req_at(reqs, i);
        if (r) {
            struct vaced_req_facts f = facts_of(r);
            if (f.kind == VACED_REQ_RECV && f.comm)
                cap += f.held ? dev->comm_size(f.comm) : 1;
            else if (f.kind == VACED_REQ_SEND)
                cap++;
        }
    }
    if (!(peers = malloc((size_t) (cap + 1) * sizeof(int))))
        return 1;
    for (int i = 0; i < count; i++) {
        void *r = req_at(reqs, i);
        struct vaced_req_facts f;
        vaced_time_t ta, done;
        int w, closing;

        if (!r)
            continue;
        f = facts_of(r);
        if (f.kind == VACED_REQ_OTHER || !f.active || f.complete || !f.comm)
            continue;
        ta = vaced_msg_arrival(f.msg);
        /* a rendezvous send whose DATA has left: complete at a known time,
         * once the host has written it; any other send awaits its
         * receiver's ACK or CTS: the receiver's bound, below */
        if (f.kind == VACED_REQ_SEND && f.msg_kind == VACED_PKT_RTS &&
            (done = vaced_msg_done(f.msg, 0)) != VACED_TIME_UNSET) {
            if (done < t)
                goto undecided;
            continue;
        }
        /* a matched rendezvous awaiting its DATA (a response to our CTS,
         * which comes without the sender's help): completes after its RTS
         * arrived; if that is before t, wait for the DATA */
        if (f.kind == VACED_REQ_RECV && ta != VACED_TIME_UNSET) {
            if (ta < t)
                goto undecided;
            continue;
        }
        /* a held wildcard: a message it claims that arrives before t, or
         * any sender of its communicator */
        if (f.kind == VACED_REQ_RECV && f.held) {
            for (void *u = dev->unexpected_next(NULL); u; u = dev->unexpected_next(u))
                if (arrival_of(u) < t && dev->claimant(u) == r)
                    goto undecided;
            for (int j = 0; j < dev->comm_size(f.comm); j++)
                if ((w = dev->world_rank(f.comm, j, &closing)) >= 0 && !closing)
                    peers[n++] = w;
            continue;
        }
        /* a receive whose message has not reached the host: its sender's
         * bound; a send: its receiver's (not when closing: it sends no
         * more) */
        if (f.peer >= 0 && (w = dev->world_rank(f.comm, f.peer, &closing)) >= 0 && !closing)
            peers[n++] = w;
    }
    if (n > 0) {
        if (!*asked)
            vaced_wildcard_begin();
        *asked = 1;
        verdict = vaced_wildcard_check(t, n, peers, NULL);
    }
    free(peers);
    if (verdict == VACED_WILD_UNPROVABLE)
        vaced_unmodelled(VACED_UNMODELLED_WILDCARD, "MPI_Waitany");
    return verdict != VACED_WILD_WAIT;
  undecided:
    free(peers);
    return 0;
}
