/* The trace's message lines (trace.h): each point-to-point message a rank
 * sends and receives, numbered per pair so that both sides' lines pair up.
 *
 * The model sees packets, not messages: a message opens with one eager,
 * eager-sync, rendezvous-request or to-self packet, and the k-th such
 * packet from S to R is the k-th R receives from S (a connection keeps its
 * order).  A receive's line waits for its completion: the packet's number
 * is kept by the request's record until a wait reports it.  A rendezvous
 * request carries no size; the send's line waits for its data, which the
 * device sends with the send request, the request created just before the
 * rendezvous request (CH3 creates it and sends at once).  A send that
 * waits for its receiver's answer (rendezvous, eager-sync) keeps its entry
 * after its line is written, until its request goes, so that the wait
 * that completes it can name it (vaced_trace_name). */
#include <stdlib.h>
#include <string.h>
#include "report/trace_msgs.h"
#include "job/job.h"

static int opens_message(enum vaced_pkt_kind kind)
{
    return kind == VACED_PKT_EAGER || kind == VACED_PKT_EAGER_SYNC || kind == VACED_PKT_RTS ||
           kind == VACED_PKT_SELF;
}

/* --- The open messages: open addressing by the record's address --------- */

static size_t slot_of(const struct vaced_trace *tr, const struct vaced_msg *m)
{
    uintptr_t h = (uintptr_t)m;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15u;
    return (size_t)(h >> 7) & (tr->capacity - 1);
}

static struct vaced_trace_open_msg *find(const struct vaced_trace *tr, const struct vaced_msg *m)
{
    if (!tr->capacity)
        return NULL;
    for (size_t i = slot_of(tr, m);; i = (i + 1) & (tr->capacity - 1)) {
        if (tr->open[i].m == m)
            return &tr->open[i];
        if (!tr->open[i].m)
            return NULL;
    }
}

/* Removes e, moving later entries of its run back so that lookups stop
 * at no false gap. */
static void remove_entry(struct vaced_trace *tr, struct vaced_trace_open_msg *e)
{
    size_t mask = tr->capacity - 1, hole = (size_t)(e - tr->open);
    for (size_t i = (hole + 1) & mask; tr->open[i].m; i = (i + 1) & mask) {
        size_t home = slot_of(tr, tr->open[i].m);
        if (((i - home) & mask) >= ((i - hole) & mask)) {
            tr->open[hole] = tr->open[i];
            hole = i;
        }
    }
    tr->open[hole].m = NULL;
    tr->count--;
}

static struct vaced_trace_open_msg *insert(struct vaced_trace *tr, const struct vaced_msg *m);

/* At most half full: a run ends soon. */
static int grow(struct vaced_trace *tr)
{
    size_t old_cap = tr->capacity, cap = old_cap ? 2 * old_cap : 64;
    struct vaced_trace_open_msg *old = tr->open, *fresh = calloc(cap, sizeof *fresh);
    if (!fresh)
        return -1;
    tr->open = fresh;
    tr->capacity = cap;
    tr->count = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].m)
            *insert(tr, old[i].m) = old[i];
    free(old);
    return 0;
}

/* m's entry, a fresh one (m set, the rest zero) if it had none; NULL if
 * memory ran out (the message goes untraced). */
static struct vaced_trace_open_msg *insert(struct vaced_trace *tr, const struct vaced_msg *m)
{
    struct vaced_trace_open_msg *e = find(tr, m);
    if (e)
        return e;
    if (2 * (tr->count + 1) > tr->capacity && grow(tr))
        return NULL;
    size_t i = slot_of(tr, m);
    while (tr->open[i].m)
        i = (i + 1) & (tr->capacity - 1);
    e = &tr->open[i];
    memset(e, 0, sizeof *e);
    e->m = m;
    tr->count++;
    return e;
}

/* --- Lines ------------------------------------------------------------- */

static void write_line(struct vaced_trace *tr, const char *kind, int peer, uint32_t seq,
                       uint64_t bytes, vaced_time_t t)
{
    fprintf(tr->file, "%s,%d,%u,%llu,%lld.%012lld\n", kind, peer, seq, (unsigned long long)bytes,
            VACED_TRACE_S(t));
}

/* A receive whose completion is known but that no wait reported (a
 * blocking receive that found its data, MPI_Sendrecv): written when its
 * request goes (its record is reused, or the trace ends). */
static void settle(struct vaced_trace *tr, struct vaced_trace_open_msg *e)
{
    if (!e->is_send && e->t != VACED_TIME_UNSET)
        write_line(tr, "recv", e->peer, e->seq, e->bytes, e->t);
    remove_entry(tr, e);
}

void vaced_trace_msgs_start(int size)
{
    struct vaced_trace *tr = vaced_trace_st;
    tr->arriving_peer = tr->data_peer = -1;
    tr->sent = calloc((size_t)(size > 0 ? size : 1), sizeof *tr->sent);
    tr->received = calloc((size_t)(size > 0 ? size : 1), sizeof *tr->received);
    tr->peers = tr->sent && tr->received ? size : 0;
}

void vaced_trace_msgs_end(void)
{
    struct vaced_trace *tr = vaced_trace_st;
    for (size_t i = 0; i < tr->capacity; i++)
        if (tr->open[i].m && !tr->open[i].is_send && tr->open[i].t != VACED_TIME_UNSET)
            write_line(tr, "recv", tr->open[i].peer, tr->open[i].seq, tr->open[i].bytes,
                       tr->open[i].t);
    free(tr->open);
    free(tr->sent);
    free(tr->received);
    tr->open = NULL;
    tr->sent = tr->received = NULL;
    tr->capacity = tr->count = 0;
    tr->peers = 0;
}

/* --- The hooks (trace.h) ---------------------------------------------- */

void vaced_trace_on_sent(int peer, enum vaced_pkt_kind kind, uint64_t bytes, vaced_time_t t)
{
    struct vaced_trace *tr = vaced_trace_st;
    if (peer < 0 || peer >= tr->peers)
        return;
    if (kind == VACED_PKT_RNDV_DATA) {
        tr->data_peer = peer;
        tr->data_bytes = bytes;
        return;
    }
    if (!opens_message(kind))
        return;
    uint32_t seq = tr->sent[peer]++;
    if (kind != VACED_PKT_RTS)
        write_line(tr, "send", peer, seq, bytes, t);
    if (kind != VACED_PKT_RTS && kind != VACED_PKT_EAGER_SYNC)
        return;
    struct vaced_trace_open_msg *e = tr->last_init ? insert(tr, tr->last_init) : NULL;
    if (e) {
        e->peer = peer;
        e->is_send = 1;
        e->written = kind != VACED_PKT_RTS;
        e->seq = seq;
        e->bytes = bytes;
        e->t = t;
    }
}

void vaced_trace_on_received(int peer, enum vaced_pkt_kind kind, uint64_t bytes)
{
    struct vaced_trace *tr = vaced_trace_st;
    tr->arriving_peer = -1;
    if (peer < 0 || peer >= tr->peers || !opens_message(kind))
        return;
    tr->arriving_peer = peer;
    tr->arriving_seq = tr->received[peer]++;
    tr->arriving_bytes = bytes;
}

void vaced_trace_on_init(const struct vaced_msg *m)
{
    struct vaced_trace *tr = vaced_trace_st;
    struct vaced_trace_open_msg *e = find(tr, m);
    if (e)
        settle(tr, e);
    tr->last_init = m;
}

void vaced_trace_on_arrived(const struct vaced_msg *m, enum vaced_pkt_kind kind, uint64_t bytes)
{
    struct vaced_trace *tr = vaced_trace_st;
    int peer;
    uint32_t seq;
    if (kind == VACED_PKT_SELF) {       /* no packet: numbered here */
        peer = vaced_sim_rank();
        if (peer < 0 || peer >= tr->peers)
            return;
        seq = tr->received[peer]++;
    } else if (opens_message(kind) && tr->arriving_peer >= 0) {
        peer = tr->arriving_peer;
        seq = tr->arriving_seq;
        bytes = tr->arriving_bytes;
        tr->arriving_peer = -1;
    } else {
        return;
    }
    struct vaced_trace_open_msg *e = insert(tr, m);
    if (e) {
        e->peer = peer;
        e->is_send = e->written = 0;
        e->seq = seq;
        e->bytes = bytes;
        e->t = VACED_TIME_UNSET;
    }
}

void vaced_trace_on_given(const struct vaced_msg *m, const struct vaced_msg *from)
{
    struct vaced_trace *tr = vaced_trace_st;
    struct vaced_trace_open_msg *e = from ? find(tr, from) : NULL;
    if (!e)
        return;
    struct vaced_trace_open_msg moved = *e;
    remove_entry(tr, e);
    struct vaced_trace_open_msg *to = insert(tr, m);
    if (to) {
        moved.m = m;
        *to = moved;
    }
}

void vaced_trace_on_complete_by(const struct vaced_msg *m)
{
    struct vaced_trace *tr = vaced_trace_st;
    if (tr->data_peer < 0)
        return;
    struct vaced_trace_open_msg *e = find(tr, m);
    if (e && e->is_send && !e->written && e->peer == tr->data_peer) {
        write_line(tr, "send", e->peer, e->seq, tr->data_bytes, e->t);
        e->written = 1;
    }
    tr->data_peer = -1;
}

/* A rendezvous request carries no size: the receive's (the device's count
 * of the message) stands in for it.  Other packets' sizes are kept: a
 * receive's count is not always set (a send to self found posted). */
void vaced_trace_on_done(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done)
{
    struct vaced_trace_open_msg *e = find(vaced_trace_st, m);
    if (!e || e->is_send)
        return;
    if (!e->bytes)
        e->bytes = bytes;
    if (done != VACED_TIME_UNSET)
        e->t = done;
}

void vaced_trace_on_report(const struct vaced_msg *m, uint64_t bytes, vaced_time_t done)
{
    struct vaced_trace *tr = vaced_trace_st;
    struct vaced_trace_open_msg *e = find(tr, m);
    if (!e || e->is_send)
        return;
    vaced_trace_on_done(m, bytes, done);
    if (e->t != VACED_TIME_UNSET)
        write_line(tr, "recv", e->peer, e->seq, e->bytes, e->t);
    remove_entry(tr, e);
}

int vaced_trace_name(const struct vaced_msg *m, int *peer, uint32_t *seq, int *is_send)
{
    const struct vaced_trace_open_msg *e = find(vaced_trace_st, m);
    if (!e)
        return 0;
    *peer = e->peer;
    *seq = e->seq;
    *is_send = e->is_send;
    return 1;
}
