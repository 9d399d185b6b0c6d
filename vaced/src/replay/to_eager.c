/* Messages that are rendezvous on the record and eager on the replay's
 * target (to_eager.h).  A pass over every rank's record before the
 * replay links each rendezvous message across its two records: the k-th
 * RTS from S to R is the k-th R reads from S (CH3 keeps a connection's
 * packets in order); R's record names the message it matched, the CTS it
 * answered with and the DATA (and so the size) that completed it; the
 * j-th CTS S reads from R is the j-th R sent, and its handling sends the
 * DATA that completes S's request.  A message that fits the target's
 * eager threshold then goes eager: the sender sends the eager packet in
 * place of the RTS and its request completes with the copy, the
 * receiver reads it as eager, and the CTS, the DATA and what handled them
 * are skipped on both sides. */
#include <stdlib.h>
#include "vaced.h"
#include "replay/to_eager.h"

enum act { ACT_SKIP = 1, ACT_SKIP_DEFER, ACT_SEND_EAGER, ACT_READ_EAGER, ACT_ARRIVED, ACT_FOUND };

struct action {
    size_t offset;
    int act;
    uint64_t bytes;
    uint32_t msg;               /* ACT_SEND_EAGER: the send's request */
};

struct eager_plan {
    struct action *a;
    size_t n, cap;
    uint32_t sreq;              /* a send made eager: its request, to complete at tr */
    vaced_time_t tr;
};

/* The receiver's view of a rendezvous message, by message id. */
struct rts_in {
    uint32_t root;              /* the message the RTS arrived as (a held receive is given it) */
    int sender;                 /* -1: not an RTS's message */
    uint32_t rts_k, cts_j, data_k;
    int has_cts, has_data;
    uint64_t bytes;
};

/* Offsets to act on, tagged with what they belong to, before it is known
 * which messages change. */
struct tentative {
    int rank;
    size_t offset;
    int act;
    /* the key: a receiver's message, or a sender's CTS block or RTS */
    int key_kind;               /* 0: receiver msg; 1: sender CTS block (peer, j); 2: sender RTS (peer, k) */
    int peer;
    uint32_t id;
};

/* A sender's CTS handling: the DATA it sent and the request that completed. */
struct cts_block {
    int peer;
    uint32_t j, data_k, sreq;
    int has_data;
};

static struct {
    struct tentative *t;
    size_t n, cap;
} tent;

static int add_tent(int rank, size_t offset, int act, int key_kind, int peer, uint32_t id)
{
    if (vaced_replay_room((void **)&tent.t, &tent.cap, tent.n, sizeof *tent.t))
        return -1;
    tent.t[tent.n++] = (struct tentative){ rank, offset, act, key_kind, peer, id };
    return 0;
}

static int add_action(struct rank_run *r, size_t offset, int act, uint64_t bytes, uint32_t msg)
{
    struct eager_plan *p = r->ep;
    if (!p && !(p = r->ep = calloc(1, sizeof *p)))
        return -1;
    if (vaced_replay_room((void **)&p->a, &p->cap, p->n, sizeof *p->a))
        return -1;
    p->a[p->n++] = (struct action){ offset, act, bytes, msg };
    return 0;
}

/* --- The receiver's record ---------------------------------------------- */

struct counters { uint32_t rts, cts, data; };

/* Scans receiver rank i: which messages came by RTS, their CTS and DATA. */
static int scan_receiver(struct rank_run *r, int i, struct rts_in *in, int size)
{
    struct counters *cnt = calloc((size_t)size, sizeof *cnt);
    uint32_t *defer_msg = NULL;
    size_t ndefer = 0, cap_defer = 0;
    if (!cnt)
        return -1;
    struct vaced_log_event e;
    char why[256];
    size_t pos = r->log.body;
    int reading = -1;           /* the sender whose RTS the running handler read */
    uint32_t reading_k = 0;
    size_t reading_at = 0;
    uint32_t answering = 0;     /* the message whose CTS is about to go */
    uint32_t data_msg = 0;      /* the DATA block being read: its message */
    int in_data = 0, data_from = -1;
    uint32_t data_k = 0;
    uint64_t data_bytes = 0;
    size_t data_at = 0;
    uint32_t fire_msg = 0;      /* inside a fire block that sends a CTS */
    size_t last_begin = 0;
    uint32_t skip_end = 0;      /* the CTS's activity end to skip, for its message */
    int rc = 0;
    while (rc == 0 && vaced_log_next(&r->log, &pos, &e, why, sizeof why) == 1) {
        switch (e.op) {
            case VACED_OP_PKT_RECV:
                if (e.peer >= 0 && e.peer < size && e.flag && e.kind == VACED_PKT_RTS) {
                    reading = e.peer;
                    reading_k = cnt[e.peer].rts++;
                    reading_at = e.offset;
                } else if (e.peer >= 0 && e.peer < size && e.flag && e.kind == VACED_PKT_RNDV_DATA) {
                    in_data = 1;
                    data_from = e.peer;
                    data_k = cnt[e.peer].data++;
                    data_bytes = e.bytes;
                    data_at = e.offset;
                    data_msg = 0;
                }
                break;
            case VACED_OP_ARRIVED:
                if (reading >= 0 && e.kind == VACED_PKT_RTS) {
                    in[e.msg] = (struct rts_in){ e.msg, reading, reading_k, 0, 0, 0, 0, 0 };
                    rc = add_tent(i, reading_at, ACT_READ_EAGER, 0, 0, e.msg) ||
                         add_tent(i, e.offset, ACT_ARRIVED, 0, 0, e.msg);
                    answering = e.msg;      /* a posted receive answers in this handler */
                    reading = -1;
                } else if (in_data && e.kind == VACED_PKT_RNDV_DATA && in[e.msg].sender == data_from) {
                    data_msg = in[e.msg].root;
                    in[data_msg].data_k = data_k;
                    in[data_msg].bytes = data_bytes;
                    in[data_msg].has_data = 1;
                    rc = add_tent(i, data_at, ACT_SKIP, 0, 0, data_msg) ||
                         add_tent(i, e.offset, ACT_SKIP, 0, 0, data_msg);
                }
                break;
            case VACED_OP_FOUND: {
                uint32_t rts = e.from ? e.from : e.msg;
                if (e.kind == VACED_PKT_RTS && in[rts].sender >= 0) {
                    if (rts != e.msg)
                        in[e.msg] = in[rts];
                    rc = add_tent(i, e.offset, ACT_FOUND, 0, 0, in[rts].root);
                    answering = in[rts].root;
                }
                break;
            }
            case VACED_OP_PARKS:
                if (answering)
                    rc = add_tent(i, e.offset, ACT_SKIP, 0, 0, answering);
                break;
            case VACED_OP_DEFER:
                if (vaced_replay_room((void **)&defer_msg, &cap_defer, ndefer, sizeof *defer_msg)) {
                    rc = -1;
                    break;
                }
                defer_msg[ndefer++] = answering;
                if (answering)
                    rc = add_tent(i, e.offset, ACT_SKIP_DEFER, 0, 0, answering);
                answering = 0;
                break;
            case VACED_OP_FIRE_BEGIN:
                fire_msg = e.value >= 1 && e.value <= ndefer ? defer_msg[e.value - 1] : 0;
                break;
            case VACED_OP_FIRE_END:
                fire_msg = 0;
                break;
            case VACED_OP_BEGIN:
                last_begin = e.offset;
                break;
            case VACED_OP_END_ACT:
                if (skip_end)
                    rc = add_tent(i, e.offset, ACT_SKIP, 0, 0, skip_end);
                skip_end = 0;
                break;
            case VACED_OP_PKT_SENT:
                if (e.kind == VACED_PKT_CTS && e.peer >= 0 && e.peer < size) {
                    uint32_t m = fire_msg ? fire_msg : answering;
                    uint32_t j = cnt[e.peer].cts++;
                    if (m && in[m].sender == e.peer) {
                        in[m].cts_j = j;
                        in[m].has_cts = 1;
                        if (!fire_msg) {    /* with its activity's begin and end */
                            rc = add_tent(i, last_begin, ACT_SKIP, 0, 0, m) ||
                                 add_tent(i, e.offset, ACT_SKIP, 0, 0, m);
                            skip_end = m;
                        }
                    }
                    answering = 0;
                }
                break;
            case VACED_OP_HANDLE_END:
                if (in_data && data_msg)
                    rc = add_tent(i, e.offset, ACT_SKIP, 0, 0, data_msg);
                in_data = 0;
                reading = -1;
                answering = 0;
                break;
            case VACED_OP_RESPOND_END:
                answering = 0;
                break;
            default:
                break;
        }
    }
    free(cnt);
    free(defer_msg);
    return rc;
}

/* --- The sender's record ------------------------------------------------ */

struct sender_view {
    struct cts_block *cts;
    size_t ncts, cap_cts;
};

/* Scans sender rank i: its RTS and the CTS blocks that sent the DATA. */
static int scan_sender(struct rank_run *r, int i, struct sender_view *v, int size)
{
    struct counters *cnt = calloc((size_t)size, sizeof *cnt);
    int32_t *defer_block = NULL;        /* by defer id: the CTS block that parked, -1 */
    size_t ndefer = 0, cap_defer = 0;
    if (!cnt)
        return -1;
    struct vaced_log_event e;
    char why[256];
    size_t pos = r->log.body;
    int32_t block = -1;         /* the CTS block being handled */
    int32_t fire_block = -1;    /* a fire block of a parked CTS */
    int32_t data_block = -1;    /* the block whose DATA was just sent */
    int rc = 0;
    while (rc == 0 && vaced_log_next(&r->log, &pos, &e, why, sizeof why) == 1) {
        int32_t cur = fire_block >= 0 ? fire_block : block;
        if (cur >= 0)           /* every event of a CTS's handling, and its fire block's */
            rc = add_tent(i, e.offset, e.op == VACED_OP_DEFER ? ACT_SKIP_DEFER : ACT_SKIP, 1,
                          v->cts[cur].peer, v->cts[cur].j);
        switch (e.op) {
            case VACED_OP_PKT_SENT:
                if (e.peer >= 0 && e.peer < size && e.kind == VACED_PKT_RTS)
                    rc = add_tent(i, e.offset, ACT_SEND_EAGER, 2, e.peer, cnt[e.peer].rts++);
                else if (e.peer >= 0 && e.peer < size && e.kind == VACED_PKT_RNDV_DATA) {
                    uint32_t k = cnt[e.peer].data++;
                    if (cur >= 0 && v->cts[cur].peer == e.peer) {
                        v->cts[cur].data_k = k;
                        v->cts[cur].has_data = 1;
                        data_block = cur;
                    }
                }
                break;
            case VACED_OP_COMPLETE_BY:
                if (data_block >= 0 && e.time.src == VACED_SRC_SENT_TR && !v->cts[data_block].sreq)
                    v->cts[data_block].sreq = e.msg;
                data_block = -1;
                break;
            case VACED_OP_PKT_RECV:
                if (e.peer >= 0 && e.peer < size && e.flag && e.kind == VACED_PKT_CTS && cur < 0) {
                    if (vaced_replay_room((void **)&v->cts, &v->cap_cts, v->ncts, sizeof *v->cts))
                        return free(cnt), free(defer_block), -1;
                    v->cts[v->ncts] = (struct cts_block){ e.peer, cnt[e.peer].cts++, 0, 0, 0 };
                    block = (int32_t)v->ncts++;
                    rc = add_tent(i, e.offset, ACT_SKIP, 1, e.peer, v->cts[block].j);
                }
                break;
            case VACED_OP_DEFER:
                if (vaced_replay_room((void **)&defer_block, &cap_defer, ndefer, sizeof *defer_block))
                    return free(cnt), free(defer_block), -1;
                defer_block[ndefer++] = block;
                break;
            case VACED_OP_FIRE_BEGIN:
                fire_block = e.value >= 1 && e.value <= ndefer ? defer_block[e.value - 1] : -1;
                break;
            case VACED_OP_FIRE_END:
                fire_block = -1;
                break;
            case VACED_OP_HANDLE_END:
                if (fire_block < 0)
                    block = -1;
                break;
            default:
                break;
        }
    }
    free(cnt);
    free(defer_block);
    return rc;
}

/* --- Linking, and what each rank does ------------------------------------ */

/* A converted message as each side names it. */
struct ckey {
    int rank, kind, peer;       /* kind as struct tentative's key_kind */
    uint32_t id;
    uint64_t bytes;
    uint32_t sreq;
};

static int ckey_cmp(const void *a, const void *b)
{
    const struct ckey *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->peer != y->peer)
        return x->peer < y->peer ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int action_cmp(const void *a, const void *b)
{
    const struct action *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static const struct cts_block *find_cts(const struct sender_view *v, int peer, uint32_t j)
{
    for (size_t i = 0; i < v->ncts; i++)        /* in order of j per peer: stop early */
        if (v->cts[i].peer == peer && v->cts[i].j == j)
            return &v->cts[i];
    return NULL;
}

int vaced_eager_plan(struct rank_run *ranks, int size, uint64_t threshold)
{
    if (ranks[0].log.eager_threshold >= threshold)
        return 0;               /* every rendezvous message stays rendezvous */
    int rc = -1;
    struct rts_in **in = calloc((size_t)size, sizeof *in);
    struct sender_view *sv = calloc((size_t)size, sizeof *sv);
    struct ckey *keys = NULL;
    size_t nkeys = 0, cap_keys = 0;
    tent.n = 0;
    if (!in || !sv)
        goto out;
    for (int i = 0; i < size; i++) {
        in[i] = malloc((ranks[i].nmsgs + 1) * sizeof *in[i]);
        if (!in[i])
            goto out;
        for (uint32_t m = 0; m <= ranks[i].nmsgs; m++)
            in[i][m].sender = -1;
        if (scan_receiver(&ranks[i], i, in[i], size) || scan_sender(&ranks[i], i, &sv[i], size))
            goto out;
    }
    /* the messages that change, named on both sides */
    for (int rcv = 0; rcv < size; rcv++)
        for (uint32_t m = 1; m <= ranks[rcv].nmsgs; m++) {
            const struct rts_in *x = &in[rcv][m];
            if (x->sender < 0 || x->root != m || !x->has_cts || !x->has_data ||
                x->bytes + VACED_EAGER_HEADER > threshold)
                continue;
            const struct cts_block *b = find_cts(&sv[x->sender], rcv, x->cts_j);
            if (!b || !b->has_data || b->data_k != x->data_k || !b->sreq)
                continue;
            if (vaced_replay_room((void **)&keys, &cap_keys, nkeys + 2, sizeof *keys))
                goto out;
            keys[nkeys++] = (struct ckey){ rcv, 0, 0, m, x->bytes, 0 };
            keys[nkeys++] = (struct ckey){ x->sender, 1, rcv, x->cts_j, x->bytes, b->sreq };
            keys[nkeys++] = (struct ckey){ x->sender, 2, rcv, x->rts_k, x->bytes, b->sreq };
        }
    if (nkeys)
        qsort(keys, nkeys, sizeof *keys, ckey_cmp);
    for (size_t t = 0; t < tent.n; t++) {
        const struct tentative *x = &tent.t[t];
        struct ckey probe = { x->rank, x->key_kind, x->peer, x->id, 0, 0 };
        const struct ckey *k = nkeys ? bsearch(&probe, keys, nkeys, sizeof *keys, ckey_cmp) : NULL;
        if (k && add_action(&ranks[x->rank], x->offset, x->act, k->bytes, k->sreq))
            goto out;
    }
    for (int i = 0; i < size; i++)
        if (ranks[i].ep)
            qsort(ranks[i].ep->a, ranks[i].ep->n, sizeof *ranks[i].ep->a, action_cmp);
    rc = 0;
out:
    for (int i = 0; in && i < size; i++)
        free(in[i]);
    for (int i = 0; sv && i < size; i++)
        free(sv[i].cts);
    free(in);
    free(sv);
    free(keys);
    free(tent.t);
    tent.t = NULL;
    tent.n = tent.cap = 0;
    return rc;
}

void vaced_eager_free(struct rank_run *r)
{
    if (r->ep) {
        free(r->ep->a);
        free(r->ep);
        r->ep = NULL;
    }
}

static const struct action *find_action(const struct eager_plan *p, size_t offset)
{
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (p->a[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && p->a[lo].offset == offset ? &p->a[lo] : NULL;
}

int vaced_eager_skips(const struct rank_run *r, const struct vaced_log_event *e)
{
    const struct action *a = r->ep ? find_action(r->ep, e->offset) : NULL;
    return a && a->act == ACT_SKIP;
}

int vaced_eager_event(struct rank_run *r, const struct vaced_log_event *e, struct vaced_log_event *out)
{
    const struct action *a = find_action(r->ep, e->offset);
    if (!a)
        return 0;
    *out = *e;
    switch (a->act) {
        case ACT_SKIP: return 1;
        case ACT_SKIP_DEFER: {
            uint32_t id = ++r->defers;          /* the record's ids stay aligned */
            if (id <= r->nfires)
                r->fires[id - 1].fired = 1;     /* never fires: skipped where met */
            return 1;
        }
        case ACT_SEND_EAGER:
            out->kind = VACED_PKT_EAGER;
            out->bytes = a->bytes;
            r->ep->sreq = a->msg;               /* completes with the copy (vaced_eager_after) */
            r->ep->tr = VACED_TIME_UNSET;
            return 2;
        case ACT_READ_EAGER:
            out->kind = VACED_PKT_EAGER;
            out->bytes = a->bytes;
            return 2;
        case ACT_ARRIVED:
            out->kind = VACED_PKT_EAGER;
            return 2;
        case ACT_FOUND:
            out->kind = VACED_PKT_EAGER;
            out->flag = 1;                      /* complete: the data came with it */
            return 2;
        default: return 0;
    }
}

/* The eager send's request completes when its copy ends, once the
 * record has made it (MPICH makes it before or after the packet). */
void vaced_eager_after(struct rank_run *r, const struct vaced_log_event *e)
{
    struct eager_plan *p = r->ep;
    if (!p->sreq)
        return;
    if (e->op == VACED_OP_PKT_SENT && p->tr == VACED_TIME_UNSET)
        p->tr = r->last.sent_tr;
    if (p->sreq <= r->msgs_made) {
        vaced_msg_complete_by(vaced_rank_msg(r, p->sreq), p->tr);
        p->sreq = 0;
    }
}
